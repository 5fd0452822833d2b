//! The public broadcast delay (issue 6): unauthenticated reads and feeds see the game as it
//! was `delay_ms` ago and `delay_moves` moves back, whichever is older; the referee (with the
//! token) sees it live.
//!
//! The session task [records](Delay::record) every snapshot that carries new events; a ticker
//! [advances](Delay::advance) the public snapshot to the newest recorded one old enough. The
//! public feed releases events up to the public snapshot's `last_seq`.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use super::Snapshot;

/// The delay in force.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DelaySettings {
    /// Public views lag this many moves (and passes) behind the game; at most 1000.
    #[serde(default)]
    #[schema(minimum = 0, maximum = 1000)]
    pub delay_moves: u32,
    /// Public views lag this many seconds behind the game; at most 86,400 (24 h).
    #[serde(default)]
    #[schema(minimum = 0, maximum = 86400)]
    pub delay_s: u32,
}

impl DelaySettings {
    /// No delay.
    pub fn is_zero(&self) -> bool {
        self.delay_moves == 0 && self.delay_s == 0
    }
}

/// Most snapshots kept for the delay: a few per move, so a long delay of hundreds of moves.
/// Snapshots older than the public view are dropped as it moves on (it never goes back), so
/// only the delayed stretch of the game is held.
const KEPT: usize = 2_000;

/// Snapshots kept while there is no delay, so that one set during a game starts from the
/// recent past rather than from the live game.
const KEPT_WITHOUT_DELAY: usize = 64;

/// The recorded snapshots and the public one.
#[derive(Debug)]
pub struct Delay {
    settings: Mutex<DelaySettings>,
    history: Mutex<VecDeque<(Instant, Arc<Snapshot>)>>,
    public: watch::Sender<Arc<Snapshot>>,
}

impl Delay {
    /// No delay yet; the public view starts at `first`.
    pub fn new(first: Arc<Snapshot>) -> Delay {
        let (public, _) = watch::channel(first);
        Delay {
            settings: Mutex::new(DelaySettings::default()),
            history: Mutex::new(VecDeque::new()),
            public,
        }
    }

    /// The delay in force.
    pub fn settings(&self) -> DelaySettings {
        *self.settings.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the delay (takes effect at the next [`Delay::advance`]).
    pub fn set(&self, settings: DelaySettings) {
        *self.settings.lock().unwrap_or_else(|e| e.into_inner()) = settings;
    }

    /// Keeps `snap` (taken at `at`) if it carries events the last one kept did not.
    pub fn record(&self, at: Instant, snap: &Arc<Snapshot>) {
        let mut h = self.history.lock().unwrap_or_else(|e| e.into_inner());
        if h.back().is_some_and(|(_, s)| s.last_seq == snap.last_seq) {
            return;
        }
        h.push_back((at, snap.clone()));
        let kept = if self.settings().is_zero() {
            KEPT_WITHOUT_DELAY
        } else {
            KEPT
        };
        while h.len() > kept {
            h.pop_front();
        }
    }

    /// Moves the public view to the newest kept snapshot at least `delay_s` old and
    /// `delay_moves` moves behind `live` (the oldest kept when none is); with no delay, to
    /// `live` itself.
    pub fn advance(&self, live: &Arc<Snapshot>, now: Instant) {
        let settings = self.settings();
        let next = if settings.is_zero() {
            live.clone()
        } else {
            let mut h = self.history.lock().unwrap_or_else(|e| e.into_inner());
            let cutoff = now.checked_sub(Duration::from_secs(u64::from(settings.delay_s)));
            // Once the game is over the move delay has nothing left to protect: only the time
            // delay holds the end back.
            let over = live.state.phase == crate::event::Phase::Finished;
            let delay_moves = if over { 0 } else { settings.delay_moves };
            let max_moves = live.state.move_number.saturating_sub(delay_moves);
            let old_enough = |(at, _): &&(Instant, Arc<Snapshot>)| {
                cutoff.is_some_and(|c| *at <= c) || settings.delay_s == 0
            };
            let behind = |(_, s): &&(Instant, Arc<Snapshot>)| {
                delay_moves == 0 || s.state.move_number <= max_moves
            };
            match h.iter().rposition(|e| old_enough(&e) && behind(&e)) {
                Some(i) => {
                    // The public view never goes back: what is older is no longer needed.
                    h.drain(..i);
                    h.front().map_or_else(|| live.clone(), |(_, s)| s.clone())
                }
                None => match h.front() {
                    Some((_, s)) => s.clone(),
                    None => live.clone(),
                },
            }
        };
        if !Arc::ptr_eq(&self.public.borrow(), &next) {
            // send_replace: the value changes even when no feed is subscribed.
            self.public.send_replace(next);
        }
    }

    /// The public view.
    pub fn public(&self) -> Arc<Snapshot> {
        self.public.borrow().clone()
    }

    /// Follows the public view.
    pub fn subscribe(&self) -> watch::Receiver<Arc<Snapshot>> {
        self.public.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::GameSetup;
    use crate::session::{Session, SessionConfig};

    fn snap(moves: u32, seq: u64) -> Arc<Snapshot> {
        let session = Session::new(SessionConfig::default(), &GameSetup::even(9)).unwrap();
        let mut state = session.state();
        state.move_number = moves;
        Arc::new(Snapshot {
            state,
            sgf: String::new(),
            moves: Vec::new(),
            link: Default::default(),
            session: Default::default(),
            leds: None,
            last_seq: seq,
            state_body: Default::default(),
        })
    }

    #[test]
    fn the_public_view_lags_and_only_the_delayed_stretch_is_kept() {
        let t0 = Instant::now();
        let delay = Delay::new(snap(0, 0));
        delay.set(DelaySettings {
            delay_moves: 2,
            delay_s: 0,
        });
        for m in 1..=10u32 {
            let s = snap(m, u64::from(m));
            delay.record(t0, &s);
            delay.advance(&s, t0);
            assert_eq!(delay.public().state.move_number, m.saturating_sub(2).max(1));
        }
        // Only moves 8 to 10 are still held.
        assert_eq!(delay.history.lock().unwrap().len(), 3);
        // A time delay: nothing is 5 s old yet, the public view stays.
        delay.set(DelaySettings {
            delay_moves: 0,
            delay_s: 5,
        });
        let s = snap(11, 11);
        delay.record(t0 + Duration::from_secs(1), &s);
        delay.advance(&s, t0 + Duration::from_secs(2));
        assert_eq!(delay.public().state.move_number, 8);
        delay.advance(&s, t0 + Duration::from_secs(7));
        assert_eq!(delay.public().state.move_number, 11);
        // No delay: live.
        delay.set(DelaySettings::default());
        let s = snap(12, 12);
        delay.advance(&s, t0);
        assert_eq!(delay.public().state.move_number, 12);
    }
}
