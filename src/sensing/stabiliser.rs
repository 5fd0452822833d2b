//! The scan stabiliser: noisy scans in, settled readings out — per point, with the board time
//! of every change, and for the whole board.
//!
//! Each point has a **settled reading**: a definite reading (empty, black, white) that has held
//! for [`StabiliserConfig::settle_ms`] without a break. A hand over the point (uncertain), a
//! bouncing stone or a misread never changes it; a stone put down does, once it has been seen
//! for that long. When it changes, the stabiliser keeps the evidence of *when* ([`PointTimes`]):
//!
//! * `seen_ms` — the first scan of the earliest run of the new reading that lasted
//!   [`SEEN_RUN_MS`] (three scans) with no such run of another reading after it: the stone was
//!   down by then. Under a hand it is the first clear scan after the hand; a hand that comes
//!   back over the stone (to play next to it) does not undo that — an uncertain reading tells
//!   nothing — but a solid run of another reading does.
//! * `left_ms` — the first scan at which the point stopped reading its earlier settled value
//!   (the hand arriving, the stone descending): the stone went down at or after that.
//! * `reread_ms` — when the point read its earlier value again for [`REREAD_RUN_MS`] after
//!   `left_ms` (a hand passed over it and left it as it was), the first scan of its next
//!   departure: the stone *likely* went down after that — unless a bounce read that long
//!   (a stone wobbling under a finger), so it ranks orders and hands changes on sooner but
//!   proves nothing ([`PointTimes::likely_left_ms`]).
//!
//! The stone went down in `[left_ms, seen_ms]`. Move inference orders stones by these intervals
//! (referee::inference, "told apart").
//!
//! Changes are handed on in batches as boards ([`Settled`]) once they are **final**: a change
//! is final when it is told apart ([`PointTimes::told_apart_before`]) from every point still
//! disturbed now (a hand over it, a reading not yet held), whatever that point turns out to
//! hold — so nothing still hidden can turn out to have come first. While players are quick the board as a whole may never be quiet;
//! final boards still follow every move, in order. The whole board **settles** when no reading
//! changed for `settle_ms` and no point reads uncertain (except points stuck uncertain for
//! [`StabiliserConfig::stuck_ms`]: a dead sensor or an object resting on the board, which keep
//! their settled reading and hold nothing back): then every change is final and the board is
//! complete ([`Settled::complete`]).
//!
//! One change is never lost to a later one: a stone lifted (a capture) whose point settles on
//! a stone again before the lift was handed on (a ko retaken under a hand elsewhere, a point
//! filled again) hands on every change held back first, final or not — the board that showed
//! the point empty — and the new stone at the next scan (issue 35).

use super::grid::StoneGrid;
use crate::rules::{Color, Point};
use smartgoban_protocol::Cell;

/// A run of one reading this long, ms of board time (three scans at 50 scans/s), is evidence of
/// what lies on the point: one or two scans may be a bounce or a misread.
pub const SEEN_RUN_MS: u64 = 40;

/// A disturbed point that reads its settled value again for this long, ms of board time (a
/// solid run and a scan either side), likely showed that value then: a change found later was
/// likely made after it ([`PointTimes::reread_ms`]) — a hand that passed over an empty point
/// and left it empty for a while says little of a stone put there by a later hand. Likely
/// only: a stone bouncing under a finger may read empty that long.
pub const REREAD_RUN_MS: u64 = 2 * SEEN_RUN_MS;

/// Tuning of the [`Stabiliser`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StabiliserConfig {
    /// How long, in ms of board time, a point must read the same value before it counts as
    /// settled. Default 150 ms: longer than a bouncing stone or a single misread (one scan is
    /// 20 ms at 50 Hz), short enough that a move shows up at once.
    pub settle_ms: u64,
    /// A point that has read uncertain for this long, in ms of board time, is taken as stuck (a
    /// dead sensor, a hand or an object resting on the board): it keeps its last settled value
    /// and stops holding the rest of the board unsettled. Default 6,000 ms: longer than a hand
    /// resting over the board while its player thinks, or several hands in turn over one
    /// fight (a point covered that long may hide a stone played before those seen meanwhile:
    /// taken as stuck, it let them be handed on first — issue 35's fuzzer found a stone hidden
    /// 3.6 s so recorded after the moves made after it); a sensor that dies costs one such wait.
    pub stuck_ms: u64,
}

impl Default for StabiliserConfig {
    fn default() -> Self {
        StabiliserConfig {
            settle_ms: 150,
            stuck_ms: 6_000,
        }
    }
}

/// When a point's settled reading last changed, from the scans, in ms of board time: the
/// change happened in `[left_ms, seen_ms]` (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PointTimes {
    /// The first scan at which the point stopped reading its earlier settled value.
    pub left_ms: u64,
    /// The first scan of the earliest solid run ([`SEEN_RUN_MS`]) of the new reading with no
    /// solid run of another reading after it (under a hand: the first clear scan after it).
    pub seen_ms: u64,
    /// The first scan of the point's last departure from its earlier reading after reading it
    /// again for [`REREAD_RUN_MS`] since `left_ms`; 0 if it never did (module docs). At most
    /// `seen_ms`.
    #[serde(default)]
    pub reread_ms: u64,
}

/// A point uncertain for longer than this, ms of board time, is no hand over the board (a
/// dead sensor, an object resting on it): [`Stabiliser::hands_over`].
pub const HAND_STAY_MS: u64 = 30_000;

/// Two stones seen at least this far apart, ms of board time, are told apart by their scans
/// (three scans at 50 scans/s; [`PointTimes::told_apart_before`]).
pub const TELL_APART_MS: u64 = 60;

impl PointTimes {
    /// When the change likely began: `left_ms`, or later where the point read its earlier
    /// value again for a while ([`Self::reread_ms`]). For ranking orders and handing changes
    /// on, never for proof.
    pub fn likely_left_ms(&self) -> u64 {
        self.left_ms.max(self.reread_ms)
    }

    /// The change with these times certainly came before `other`: it was seen before anything
    /// touched `other`'s point.
    pub fn certainly_before(&self, other: &PointTimes) -> bool {
        self.seen_ms < other.left_ms
    }

    /// The change with these times is known to have come before `other`: certainly, or by their
    /// scans — its point was disturbed no later than `other`'s and it was seen at least
    /// [`TELL_APART_MS`] before. Changes seen within the same few scans, hidden under hands
    /// until both were down (seen at the same scan), or one inside the other's interval are
    /// not told apart.
    pub fn told_apart_before(&self, other: &PointTimes) -> bool {
        self.certainly_before(other)
            || (self.left_ms <= other.left_ms && self.seen_ms + TELL_APART_MS <= other.seen_ms)
    }
}

/// A board handed on by the stabiliser: new final changes, or the whole board settled.
#[derive(Clone, Copy, Debug)]
pub struct Settled<'a> {
    /// The stones as known for certain: every final change applied. Points whose change is not
    /// final yet show their earlier settled reading.
    pub grid: &'a StoneGrid,
    /// `false` when the board settled back to exactly the previous board handed on (a hand
    /// passed over it, a stone bounced, a point misread): nothing happened on the board. A
    /// complete board is compared with the previous complete one.
    pub changed: bool,
    /// The whole board is settled: nothing is disturbed and nothing is held back. `false`
    /// while hands are over the board (quick play): `grid` is then everything known so far.
    pub complete: bool,
    /// Board time, in ms, of the scan that handed the board on.
    pub at_ms: u64,
    /// Board time, in ms, of the earliest `left_ms` among the points that differ from the
    /// previous board handed on: roughly when the new stones went down (`at_ms` if none).
    pub first_change_ms: u64,
    /// Per point (dense index order): the times of its last settled change ([`PointTimes`]).
    pub times: &'a [PointTimes],
}

/// Counters for diagnostics (exposed on the API and in metrics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StabiliserStats {
    /// Scans taken in.
    pub scans: u64,
    /// Scans ignored because they did not have one cell per point.
    pub rejected: u64,
    /// Times the board settled to a different board.
    pub changes: u64,
    /// Times the board settled back to the same board after a disturbance (hand, bounce,
    /// misread): transients that produced no event.
    pub transients: u64,
    /// Boards handed on before the whole board settled (final changes while hands were over
    /// the board).
    #[serde(default)]
    pub partial: u64,
}

/// Turns a stream of scans into settled readings per point and settled boards (module docs).
/// Times are board milliseconds and must not go backwards (a smaller time is taken as the
/// previous one).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Stabiliser {
    size: u8,
    config: StabiliserConfig,
    /// The latest reading of each point.
    #[serde(with = "super::cells_serde")]
    reading: Vec<Cell>,
    /// Board time the latest reading's run began, ms.
    run_start: Vec<u64>,
    /// Per point: the reading and start of the earliest solid run ([`SEEN_RUN_MS`]) with no
    /// solid run of another reading since.
    #[serde(default)]
    solid: Vec<Option<(u8, u64)>>,
    /// Each point's settled reading (`Uncertain` until it first settles).
    #[serde(with = "super::cells_serde")]
    settled_reading: Vec<Cell>,
    /// Since when each point has not read its settled reading, if it does not.
    left_at: Vec<Option<u64>>,
    /// Per point: disturbed, it read its settled reading again for [`REREAD_RUN_MS`] (`true`
    /// until it departs again), and the first scan of its departure after the last such run.
    #[serde(default)]
    reread: Vec<(bool, Option<u64>)>,
    /// The times of each point's last settled change.
    times: Vec<PointTimes>,
    /// Per point: the last board time it did not read its settled reading, ms.
    #[serde(default)]
    touched: Vec<u64>,
    /// Since when each point has read uncertain, if it does.
    uncertain_since: Vec<Option<u64>>,
    /// Points whose settled reading changed and that were not handed on yet.
    undelivered: Vec<usize>,
    /// Per point: it is in `undelivered`.
    is_undelivered: Vec<bool>,
    /// The board last handed on.
    delivered: Option<StoneGrid>,
    /// The board last handed on complete.
    #[serde(default)]
    delivered_complete: Option<StoneGrid>,
    /// Board time of the last change of any reading, ms.
    last_change_ms: u64,
    now_ms: u64,
    started: bool,
    /// Board time, ms, of the last scan before a [`Stabiliser::restart`], until the first scan
    /// after it: a point that comes back changed changed somewhere in the gap.
    #[serde(default)]
    gap_from: Option<u64>,
    /// The whole board is settled now.
    settled: bool,
    /// Board time, ms, by which every point had first been read solidly ([`Self::first_look_ms`]).
    #[serde(default)]
    first_look: Option<u64>,
    /// The earliest start of a disturbance still going on (`None`: nothing is disturbed).
    horizon: Option<u64>,
    /// The disturbances going on, as (`left_ms`, the earliest `seen_ms` their change can still
    /// get): what a change must be told apart from to be final.
    #[serde(skip)]
    disturbed: Vec<PointTimes>,
    stats: StabiliserStats,
}

impl Stabiliser {
    /// A stabiliser for a `size`×`size` board that has seen no scan yet.
    pub fn new(size: u8, config: StabiliserConfig) -> Self {
        let n = usize::from(size) * usize::from(size);
        Stabiliser {
            size,
            config,
            reading: vec![Cell::Uncertain; n],
            run_start: vec![0; n],
            solid: vec![None; n],
            settled_reading: vec![Cell::Uncertain; n],
            left_at: vec![None; n],
            reread: vec![(false, None); n],
            times: vec![PointTimes::default(); n],
            touched: vec![0; n],
            uncertain_since: vec![None; n],
            undelivered: Vec::new(),
            is_undelivered: vec![false; n],
            delivered: None,
            delivered_complete: None,
            last_change_ms: 0,
            now_ms: 0,
            started: false,
            gap_from: None,
            settled: false,
            first_look: None,
            horizon: Some(0),
            disturbed: Vec::new(),
            stats: StabiliserStats::default(),
        }
    }

    /// Board size in points per side.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// Forgets the readings (after a reconnect or a board reset) but keeps every point's
    /// settled reading, so that a board that comes back unchanged produces no change; a point
    /// that comes back changed (or hidden) changed somewhere in the gap: it is dated from the
    /// last scan before it (`left_ms`) to its first solid reading after it (`seen_ms`), so the
    /// gap never orders it after a stone seen before the gap (issue 35: a board that restarted
    /// and lost its history shows every stone of the gap at once, at its first scan).
    pub fn restart(&mut self) {
        if self.started {
            self.gap_from = Some(self.now_ms);
        }
        self.reading.fill(Cell::Uncertain);
        self.uncertain_since.fill(None);
        // a disturbance going on at the gap goes on through it (its start is kept)
        self.started = false;
        self.settled = false;
    }

    /// Takes one scan: `cells[i]` is the reading of the point with [`Point::index`] `i`, taken
    /// at board time `t_ms`. Returns a board when changes became final or the whole board has
    /// just settled (module docs).
    ///
    /// A scan whose length is not size² is ignored (counted in [`StabiliserStats::rejected`]).
    pub fn push(&mut self, cells: &[Cell], t_ms: u64) -> Option<Settled<'_>> {
        if cells.len() != self.reading.len() {
            self.stats.rejected += 1;
            return None;
        }
        self.stats.scans += 1;
        let t = t_ms.max(self.now_ms);
        self.now_ms = t;
        let mut gap_from = None;
        if !self.started {
            self.started = true;
            self.last_change_ms = t;
            gap_from = self.gap_from.take();
        }
        let settle_ms = self.config.settle_ms;
        let stuck_ms = self.config.stuck_ms;
        let mut changed = false;
        let mut blocking = false;
        let mut horizon: Option<u64> = None;
        let mut hand_on_all = false;
        self.disturbed.clear();
        for (i, &new) in cells.iter().enumerate() {
            let old = self.reading[i];
            // Most points, most scans: reading what they settled on, undisturbed, their solid
            // run already noted — nothing to do.
            if new == old
                && new == self.settled_reading[i]
                && new != Cell::Uncertain
                && self.left_at[i].is_none()
                && self.solid[i].is_some_and(|(v, _)| v == new.bits())
            {
                continue;
            }
            if new != old {
                self.reading[i] = new;
                self.run_start[i] = t;
                changed = true;
                self.uncertain_since[i] = (new == Cell::Uncertain).then_some(t);
            } else if new == Cell::Uncertain && self.uncertain_since[i].is_none() {
                self.uncertain_since[i] = Some(t);
            }
            if new != Cell::Uncertain && t.saturating_sub(self.run_start[i]) >= SEEN_RUN_MS {
                if let Some(solid) = self.solid.get_mut(i) {
                    if solid.is_none_or(|(v, _)| v != new.bits()) {
                        *solid = Some((new.bits(), self.run_start[i]));
                    }
                }
            }
            let settled = self.settled_reading[i];
            // a point not read yet (uncertain from the first scan on) is disturbed: what it
            // holds is not known
            if new == settled && settled != Cell::Uncertain {
                // back to its settled reading: undisturbed once that has held again (a stone
                // bouncing reads empty now and then; it is still going down)
                let held = t.saturating_sub(self.run_start[i]);
                if held >= settle_ms {
                    self.left_at[i] = None;
                } else if held >= REREAD_RUN_MS && self.left_at[i].is_some() {
                    if let Some(r) = self.reread.get_mut(i) {
                        r.0 = true;
                    }
                }
            } else {
                if let Some(touched) = self.touched.get_mut(i) {
                    *touched = t;
                }
                // A disturbance that starts with a hand (uncertain) began at this scan: the
                // stone comes later. One that starts with the new reading itself shows a
                // change made before this scan: it is dated a millisecond earlier, so a press
                // counted by the same scan is not taken for earlier than the stone.
                let start = if let Some(from) = gap_from {
                    from
                } else if new == Cell::Uncertain {
                    t
                } else {
                    t.saturating_sub(1)
                };
                if self.left_at[i].is_none() {
                    if let Some(r) = self.reread.get_mut(i) {
                        *r = (false, None);
                    }
                }
                if let Some(r) = self.reread.get_mut(i).filter(|r| r.0) {
                    *r = (false, Some(start));
                }
                let left = *self.left_at[i].get_or_insert(start);
                if new != Cell::Uncertain
                    && t.saturating_sub(self.run_start[i]) >= settle_ms
                    && self.lift_overwritten(i, new)
                {
                    // a stone lifted (a capture) and the point filled again before the lift
                    // was handed on: the lift is handed on first, with every change held back
                    // so far; the new stone settles at the next scan (module docs)
                    hand_on_all = true;
                } else if new != Cell::Uncertain && t.saturating_sub(self.run_start[i]) >= settle_ms
                {
                    // The new reading held: the point's settled reading changes.
                    let seen = match self.solid.get(i).copied().flatten() {
                        Some((v, since)) if v == new.bits() => since.min(self.run_start[i]),
                        _ => self.run_start[i],
                    };
                    let reread = self.reread.get_mut(i).map(std::mem::take);
                    self.times[i] = PointTimes {
                        left_ms: left.min(seen),
                        seen_ms: seen,
                        reread_ms: reread.and_then(|r| r.1).map_or(0, |r| r.min(seen)),
                    };
                    self.settled_reading[i] = new;
                    self.left_at[i] = None;
                    if !self.is_undelivered[i] {
                        self.is_undelivered[i] = true;
                        self.undelivered.push(i);
                    }
                    continue;
                }
            }
            let stuck = self.uncertain_since[i].is_some_and(|s| t.saturating_sub(s) >= stuck_ms);
            if stuck {
                continue;
            }
            if new == Cell::Uncertain {
                blocking = true;
            }
            if let Some(left) = self.left_at[i] {
                horizon = Some(horizon.map_or(left, |h: u64| h.min(left)));
                // the earliest its change could be dated: a solid run of another reading than
                // its settled one already seen, the reading it shows now, or later
                let mut seen = t;
                if new != Cell::Uncertain {
                    seen = seen.min(self.run_start[i]);
                }
                if let Some(Some((v, since))) = self.solid.get(i) {
                    if *v != settled.bits() {
                        seen = seen.min(*since);
                    }
                }
                // what a change must be told apart from: the likely start (a point reading its
                // earlier value again now will change, if at all, from now on)
                let likely = match self.reread.get(i) {
                    Some((true, _)) => t,
                    Some((false, Some(again))) => left.max(*again),
                    _ => left,
                };
                self.disturbed.push(PointTimes {
                    left_ms: likely,
                    seen_ms: seen.max(likely),
                    reread_ms: 0,
                });
            }
        }
        self.horizon = horizon;
        if self.first_look.is_none() {
            self.first_look = self.looked_whole(t);
        }
        if changed {
            self.last_change_ms = t;
            self.settled = false;
        }
        let complete = !self.settled
            && !blocking
            && horizon.is_none()
            && t.saturating_sub(self.last_change_ms) >= settle_ms;
        if complete {
            self.settled = true;
            return self.hand_on(t, true, true);
        }
        if hand_on_all {
            return self.hand_on(t, false, true);
        }
        if self.delivered.is_some() {
            let any_final =
                self.undelivered.iter().any(|&i| self.is_final(i)) && self.finals().contains(&true);
            if any_final {
                return self.hand_on(t, false, false);
            }
        } else if !self.settled_reading.contains(&Cell::Uncertain)
            && self.finals().iter().all(|&f| f)
        {
            // The first board, while hands are already over it (quick players from the
            // start): every point has been read, and nothing read is held back.
            return self.hand_on(t, false, false);
        }
        None
    }

    /// When the board was first read whole, if it now is: the latest start of a point's solid
    /// run ([`SEEN_RUN_MS`]), every point having one (points stuck uncertain aside).
    fn looked_whole(&self, t: u64) -> Option<u64> {
        let stuck_ms = self.config.stuck_ms;
        let mut latest = None;
        for (solid, uncertain) in self.solid.iter().zip(&self.uncertain_since) {
            match solid {
                Some((_, since)) => latest = Some(latest.map_or(*since, |l: u64| l.max(*since))),
                None if uncertain.is_some_and(|s| t.saturating_sub(s) >= stuck_ms) => {}
                None => return None,
            }
        }
        latest
    }

    /// Whether point `i`'s change may be final: it is told apart from every disturbance still
    /// going on (nothing hidden can turn out to have come first).
    fn is_final(&self, i: usize) -> bool {
        let c = self.times[i];
        self.disturbed.iter().all(|d| c.told_apart_before(d))
    }

    /// Which of the undelivered changes are final (in `undelivered` order): told apart from
    /// every disturbance still going on, and from every change held back — what is handed on
    /// never leaves behind a change that may have come before it.
    fn finals(&self) -> Vec<bool> {
        let mut finals: Vec<bool> = self.undelivered.iter().map(|&i| self.is_final(i)).collect();
        loop {
            let mut dropped = false;
            for a in 0..finals.len() {
                if !finals[a] {
                    continue;
                }
                let ta = self.times[self.undelivered[a]];
                let before_all_held = self
                    .undelivered
                    .iter()
                    .zip(&finals)
                    .filter(|(_, &f)| !f)
                    .all(|(&u, _)| ta.told_apart_before(&self.times[u]));
                if !before_all_held {
                    finals[a] = false;
                    dropped = true;
                }
            }
            if !dropped {
                return finals;
            }
        }
    }

    /// Whether settling point `i` on `new` would overwrite a lift not yet handed on: the
    /// board handed on has a stone there, the point settled empty since (the stone lifted: a
    /// capture, in play) and now a stone holds on it again (a ko retaken, a point filled again
    /// under a hand). Handing on only the last reading would lose the capture and the stone
    /// that retook the point: both boards would show a stone there.
    fn lift_overwritten(&self, i: usize, new: Cell) -> bool {
        self.is_undelivered[i]
            && self.settled_reading[i] == Cell::Empty
            && stone(new).is_some()
            && self
                .delivered
                .as_ref()
                .is_some_and(|d| d.at_index(i).is_some())
    }

    /// Applies the final changes (`all`: every change held back, final or not) to the board
    /// handed on and returns it; `complete`: the whole board settled.
    fn hand_on(&mut self, t: u64, complete: bool, all: bool) -> Option<Settled<'_>> {
        let finals = if all {
            vec![true; self.undelivered.len()]
        } else {
            self.finals()
        };
        let mut grid = self
            .delivered
            .clone()
            .unwrap_or_else(|| StoneGrid::empty(self.size));
        let first_time = self.delivered.is_none();
        let mut first_change: Option<u64> = None;
        let times = &self.times;
        let settled_reading = &self.settled_reading;
        let size = self.size;
        let mut applied = Vec::new();
        let mut k = 0;
        self.undelivered.retain(|&i| {
            let is_final = finals[k];
            k += 1;
            if is_final {
                applied.push(i);
            }
            !is_final
        });
        for &i in &applied {
            self.is_undelivered[i] = false;
        }
        if first_time {
            // The first board: every point's settled reading; stones already on it date it
            // from when they came (a press made meanwhile comes after them).
            for (i, &c) in settled_reading.iter().enumerate() {
                grid.set(Point::from_index(i, size), stone(c));
                if stone(c).is_some() {
                    let left = times[i].left_ms;
                    first_change = Some(first_change.map_or(left, |f: u64| f.min(left)));
                }
            }
        }
        for &i in &applied {
            let stone = stone(settled_reading[i]);
            if grid.at_index(i) != stone {
                grid.set(Point::from_index(i, size), stone);
                let left = times[i].left_ms;
                first_change = Some(first_change.map_or(left, |f: u64| f.min(left)));
            }
        }
        // A complete board is news against the last complete one (the boards handed on while
        // hands were over the board were judged only as far as moves explain them); a partial
        // one against the last board handed on.
        let changed = if complete {
            self.delivered_complete.as_ref() != Some(&grid)
        } else {
            self.delivered.as_ref() != Some(&grid)
        };
        if !complete && !changed {
            // changes that came back to the board handed on: nothing to tell yet
            return None;
        }
        if complete {
            if changed {
                self.stats.changes += 1;
            } else {
                self.stats.transients += 1;
            }
            self.delivered_complete = Some(grid.clone());
        } else {
            self.stats.partial += 1;
        }
        self.delivered = Some(grid);
        self.delivered.as_ref().map(|grid| Settled {
            grid,
            changed,
            complete,
            at_ms: t,
            first_change_ms: first_change.unwrap_or(t),
            times: &self.times,
        })
    }

    /// Whether the whole board is settled right now (no change for `settle_ms`, nothing
    /// uncertain, nothing held back).
    pub fn is_settled(&self) -> bool {
        self.settled
    }

    /// Board time, ms, by which the board had first been read whole since this stabiliser
    /// began: every point had a solid run of one reading ([`SEEN_RUN_MS`]; a point stuck
    /// uncertain for `stuck_ms` aside), and this is the latest start of those runs. A stone
    /// seen by then was on the board as it came up; a stone seen later was put down since.
    /// Kept over [`Self::restart`] (a board that comes back did not come up anew). `None`
    /// until then.
    pub fn first_look_ms(&self) -> Option<u64> {
        self.first_look
    }

    /// The last board handed on, if any.
    pub fn stable(&self) -> Option<&StoneGrid> {
        self.delivered.as_ref()
    }

    /// Board time, ms, from which nothing is known for certain yet: the earliest start of a
    /// disturbance still going on (a hand over a point, a reading not yet held, a change not
    /// yet handed on). `None`: everything up to now is known. A press made before the horizon
    /// can be judged against every stone that went down before it.
    pub fn horizon_ms(&self) -> Option<u64> {
        let held_back = self
            .undelivered
            .iter()
            .map(|&i| self.times[i].left_ms)
            .min();
        match (self.horizon, held_back) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Per point (dense index order): the times of its last settled change.
    pub fn times(&self) -> &[PointTimes] {
        &self.times
    }

    /// Per point (dense index order): the last board time, ms, at which it did not read its
    /// settled reading (a hand over it, a stone coming or going).
    pub fn touched(&self) -> &[u64] {
        &self.touched
    }

    /// The current raw reading of every point (dense index order).
    pub fn readings(&self) -> &[Cell] {
        &self.reading
    }

    /// Points that have read uncertain for longer than `stuck_ms` (dead sensors, objects
    /// resting on the board): they keep their last settled value.
    pub fn stuck_points(&self) -> Vec<Point> {
        let now = self.now_ms;
        self.uncertain_since
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some_and(|s| now.saturating_sub(s) >= self.config.stuck_ms))
            .map(|(i, _)| Point::from_index(i, self.size))
            .collect()
    }

    /// Whether a hand is over the board now: a point reads uncertain that read solidly less
    /// than [`HAND_STAY_MS`] ago (a point uncertain for longer is a dead sensor or an object
    /// resting on the board). A stone may be under it.
    pub fn hands_over(&self) -> bool {
        let now = self.now_ms;
        self.uncertain_since
            .iter()
            .any(|s| s.is_some_and(|s| now.saturating_sub(s) < HAND_STAY_MS))
    }

    /// Whether any point has read uncertain for longer than `stuck_ms`.
    pub fn has_stuck_points(&self) -> bool {
        let now = self.now_ms;
        self.uncertain_since
            .iter()
            .any(|s| s.is_some_and(|s| now.saturating_sub(s) >= self.config.stuck_ms))
    }

    /// Diagnostic counters.
    pub fn stats(&self) -> StabiliserStats {
        self.stats
    }
}

fn stone(c: Cell) -> Option<Color> {
    match c {
        Cell::Black => Some(Color::Black),
        Cell::White => Some(Color::White),
        Cell::Empty | Cell::Uncertain => None,
    }
}

#[cfg(test)]
mod tests;
