//! What the hall keeps of each board for the public delay, and in what form: the board's
//! state as the JSON text it came in (a few KiB; parsed into a tree it would take tens of
//! times that), bounded in count and bytes per board.

use std::collections::VecDeque;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A JSON object kept as its text: served as it came, parsed only where a field is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawJson(Arc<str>);

impl RawJson {
    /// `text` when it is one JSON object, else `None`.
    pub fn object(text: &str) -> Option<RawJson> {
        let raw: &serde_json::value::RawValue = serde_json::from_str(text).ok()?;
        raw.get()
            .starts_with('{')
            .then(|| RawJson(Arc::from(raw.get())))
    }

    /// The JSON text.
    pub fn text(&self) -> &str {
        &self.0
    }

    /// Parsed (for a test or a field that is read whole).
    pub fn value(&self) -> serde_json::Value {
        serde_json::from_str(&self.0).unwrap_or_default()
    }

    /// Reads the fields `T` names (serde skips the rest without building them).
    pub fn fields<'a, T: Deserialize<'a>>(&'a self) -> Option<T> {
        serde_json::from_str(&self.0).ok()
    }
}

impl Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw: &serde_json::value::RawValue =
            serde_json::from_str(&self.0).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

/// A board's state as the hall keeps it.
#[derive(Clone, Debug)]
pub struct KeptState {
    /// The `seq` of the last event it includes.
    pub seq: u64,
    /// `GET /api/v1/state` of the board, as its text.
    pub state: RawJson,
}

/// A value whose size in memory is about its bytes.
pub trait Footprint {
    /// Bytes it holds.
    fn footprint(&self) -> usize;
}

impl Footprint for Arc<KeptState> {
    fn footprint(&self) -> usize {
        self.state.text().len()
    }
}

impl Footprint for Arc<str> {
    fn footprint(&self) -> usize {
        self.len()
    }
}

/// Values kept for the public delay at most, per board and kind; past it the oldest go first
/// (the public then sees a newer value than due rather than the hall growing).
const DELAYED_KEPT: usize = 2_048;

/// What one board last said, kept for the delay: the newest value and those younger than the
/// delay, at most [`DELAYED_KEPT`] of them and `budget` bytes (the newest is always kept).
#[derive(Clone, Debug)]
pub struct Delayed<T> {
    values: VecDeque<(u64, T)>,
    bytes: usize,
    budget: usize,
}

impl<T: Clone + Footprint> Delayed<T> {
    /// Nothing kept yet; at most `budget` bytes.
    pub fn new(budget: usize) -> Self {
        Delayed {
            values: VecDeque::new(),
            bytes: 0,
            budget,
        }
    }

    /// Values kept.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Nothing kept.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Bytes kept.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Adds `v` received at `at` (ms), forgetting what no reader can see any more.
    pub fn push(&mut self, at: u64, v: T, delay: u64) {
        self.bytes += v.footprint();
        self.values.push_back((at, v));
        let cutoff = at.saturating_sub(delay);
        while self.values.len() > 1
            && (self.values[1].0 <= cutoff
                || self.values.len() > DELAYED_KEPT
                || self.bytes > self.budget)
        {
            if let Some((_, old)) = self.values.pop_front() {
                self.bytes -= old.footprint();
            }
        }
    }

    /// Replaces the newest value (received at `at`).
    fn replace_last(&mut self, at: u64, v: T) {
        if let Some(last) = self.values.back_mut() {
            self.bytes = self.bytes - last.1.footprint() + v.footprint();
            *last = (at, v);
        }
    }

    /// The newest value (`delay` 0) or the newest at least `delay` old at `now`.
    pub fn get(&self, now: u64, delay: u64) -> Option<&T> {
        let cutoff = now.saturating_sub(delay);
        self.values
            .iter()
            .rev()
            .find(|(at, _)| delay == 0 || *at <= cutoff)
            .map(|(_, v)| v)
    }
}

impl Delayed<Arc<KeptState>> {
    /// [`Delayed::push`], but a state that only moves the clocks on (the same `seq`) replaces
    /// the last kept one when that came less than `every_ms` after the one before it.
    pub fn push_state(&mut self, at: u64, v: Arc<KeptState>, delay: u64, every_ms: u64) {
        let n = self.values.len();
        if delay > 0 && n >= 2 {
            let (prev_at, prev) = &self.values[n - 1];
            let (before_at, before) = &self.values[n - 2];
            if prev.seq == v.seq
                && before.seq == v.seq
                && prev_at.saturating_sub(*before_at) < every_ms
            {
                self.replace_last(at, v);
                return;
            }
        }
        self.push(at, v, delay);
    }
}
