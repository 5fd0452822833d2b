//! The game clock (C3, R22, R17.4, R22.6; DESIGN.md `clock`): a pure state machine fed with
//! presses and times, ms of game time. It keeps both sides' time under any [`TimeSystem`],
//! speaks the calls ([`calls`]), lets the flag fall, pauses, deducts for late arrival
//! (R22.1), and gives back what a taken-back move consumed.
//!
//! Whether a press counts is the referee's business (a press before the stone or before the
//! captures are lifted leaves the clock unchanged, R17.4/R22.6): the session asks the referee
//! first and only then calls [`Clock::press`].

pub mod calls;
pub mod side;
pub mod system;

use std::collections::VecDeque;

pub use calls::Call;
pub use side::{Reading, SideClock};
pub use system::{Overtime, TimeSystem, TimeSystemError};

use crate::rules::Color;

/// Two presses of one button closer than this are one press (contact bounce, a double tap).
pub const DOUBLE_PRESS_MS: u64 = 80;

/// What the clock reports, oldest first ([`Clock::poll_event`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ClockEvent {
    /// The readings changed in a way a display must show at once: a press, pause, resume, a
    /// period rolled over, the flag.
    Changed,
    /// A call to speak for `color`; `call.at_ms` is the clock time (as passed to
    /// [`Clock::tick`]) at which it fell due.
    Call {
        /// Whose time.
        color: Color,
        /// What to say.
        call: Call,
    },
    /// `color`'s time is up (R22.5, O14.5).
    Expired {
        /// Whose flag fell.
        color: Color,
    },
}

/// Why a press did not switch the clock. Nothing changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PressRefused {
    /// The clock has not been started (or is stopped after a flag or the end).
    #[error("the clock is not running")]
    NotRunning,
    /// The clock is paused by the referee.
    #[error("the clock is paused")]
    Paused,
    /// It is not this side's time that runs.
    #[error("it is not this side's time")]
    NotYourTime,
    /// A second press within [`DOUBLE_PRESS_MS`] of the last one.
    #[error("a second press within 80 ms is the same press")]
    Bounce,
}

/// The state before a press, to give back on a takeback.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct PressRecord {
    /// Move number (moves and passes in the record) the press committed.
    move_number: u32,
    color: Color,
    sides: [SideClock; 2],
    /// The mover's thinking in its turn at the press, ms, and the press's time.
    thought_ms: u64,
    at_ms: u64,
}

/// The game clock.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Clock {
    system: TimeSystem,
    /// Each side's state at the start of its current (or next) turn.
    sides: [SideClock; 2],
    /// Whose turn the clock is in (kept when it stops, so its reading stays).
    running: Option<Color>,
    paused: bool,
    /// Stopped (flag, end of game): time no longer runs.
    stopped: bool,
    /// Stopped for good by [`Clock::stop`]: nothing is undone any more.
    finished: bool,
    /// Thinking banked in this turn before `segment_start_ms` (pauses cut segments).
    banked_ms: u64,
    segment_start_ms: u64,
    /// Calls of this turn spoken up to this much thinking.
    spoken_to_ms: u64,
    /// Periods left last reported for the running side (to report roll-overs).
    shown_periods: u32,
    shown_overtime: bool,
    expired: [bool; 2],
    last_press: Option<(Color, u64)>,
    history: Vec<PressRecord>,
    events: VecDeque<ClockEvent>,
}

fn idx(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}

impl Clock {
    /// A clock set for `system`, not yet running.
    pub fn new(system: TimeSystem) -> Clock {
        let side = SideClock::new(&system);
        Clock {
            system,
            sides: [side; 2],
            running: None,
            paused: false,
            stopped: false,
            finished: false,
            banked_ms: 0,
            segment_start_ms: 0,
            spoken_to_ms: 0,
            shown_periods: side.periods,
            shown_overtime: false,
            expired: [false; 2],
            last_press: None,
            history: Vec::new(),
            events: VecDeque::new(),
        }
    }

    /// The time control.
    pub fn system(&self) -> &TimeSystem {
        &self.system
    }

    /// Whose time runs (also while paused), if any.
    pub fn running(&self) -> Option<Color> {
        self.running.filter(|_| !self.stopped)
    }

    /// Paused by the referee.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// `color`'s flag has fallen.
    pub fn is_expired(&self, color: Color) -> bool {
        self.expired[idx(color)]
    }

    /// Starts `color`'s time at `now_ms` (the start of the game). No effect once started.
    pub fn start(&mut self, color: Color, now_ms: u64) {
        if self.running.is_some() {
            return;
        }
        self.begin_turn(color, now_ms);
        self.events.push_back(ClockEvent::Changed);
    }

    /// R22.1: a player `late_ms` late has twice the lateness taken from its main time (the
    /// main time cannot go below zero; what is missing is not taken from the overtime).
    pub fn deduct_lateness(&mut self, color: Color, late_ms: u64) {
        let s = &mut self.sides[idx(color)];
        s.main_ms = s.main_ms.saturating_sub(late_ms.saturating_mul(2));
        self.events.push_back(ClockEvent::Changed);
    }

    /// The referee adjusts `color`'s main time by `delta_ms` (positive: time given, negative:
    /// time taken; the main time cannot go below zero). A side already in overtime that is
    /// given time is back in main time for it. Returns the new main time, ms.
    pub fn adjust_main(&mut self, color: Color, delta_ms: i64) -> u64 {
        let s = &mut self.sides[idx(color)];
        s.main_ms = if delta_ms >= 0 {
            s.main_ms.saturating_add(delta_ms.unsigned_abs())
        } else {
            s.main_ms.saturating_sub(delta_ms.unsigned_abs())
        };
        self.events.push_back(ClockEvent::Changed);
        s.main_ms
    }

    /// Thinking in the running side's current turn at `now_ms`, ms.
    pub fn thought_ms(&self, now_ms: u64) -> u64 {
        match self.running {
            Some(_) if !self.paused && !self.stopped => {
                self.banked_ms + now_ms.saturating_sub(self.segment_start_ms)
            }
            _ => self.banked_ms,
        }
    }

    /// What `color`'s clock shows at `now_ms`.
    pub fn reading(&self, color: Color, now_ms: u64) -> Reading {
        let side = &self.sides[idx(color)];
        let thought = if self.running == Some(color) {
            self.thought_ms(now_ms)
        } else {
            0
        };
        side.reading(&self.system, thought)
    }

    /// Runs the clock to `now_ms`: the calls due, period roll-overs, the flag.
    pub fn tick(&mut self, now_ms: u64) {
        let Some(color) = self.running() else {
            return;
        };
        if self.paused {
            return;
        }
        let side = self.sides[idx(color)];
        let until_flag = side.until_flag_ms(&self.system);
        let thought_now = self.thought_ms(now_ms);
        let thought = thought_now.min(until_flag);
        for mut call in calls::calls_between(&self.system, &side, self.spoken_to_ms, thought) {
            // from thinking time to clock time
            call.at_ms = now_ms.saturating_sub(thought_now - call.at_ms);
            self.events.push_back(ClockEvent::Call { color, call });
        }
        self.spoken_to_ms = self.spoken_to_ms.max(thought);
        let r = side.reading(&self.system, thought);
        if thought >= until_flag {
            self.flag(color, until_flag);
            return;
        }
        if r.periods != self.shown_periods || r.overtime != self.shown_overtime {
            self.shown_periods = r.periods;
            self.shown_overtime = r.overtime;
            self.events.push_back(ClockEvent::Changed);
        }
    }

    /// When [`Clock::tick`] must next run for a call or the flag, ms, if the clock runs.
    pub fn next_deadline(&self, now_ms: u64) -> Option<u64> {
        let color = self.running()?;
        if self.paused {
            return None;
        }
        let side = &self.sides[idx(color)];
        let thought = self.thought_ms(now_ms);
        let until_flag = side.until_flag_ms(&self.system);
        // looked for up to ten minutes ahead (a wake-up then, if nothing is due before)
        let horizon = until_flag.min(thought + 600_000);
        let next = calls::calls_between(&self.system, side, self.spoken_to_ms, horizon)
            .first()
            .map_or(horizon, |c| c.at_ms);
        Some(now_ms + next.saturating_sub(thought))
    }

    /// `color` presses its button at `now_ms`, committing move `move_number` (moves and passes
    /// in the record after it): its time stops and the other side's starts. Returns what the
    /// mover's clock showed at the press — time left after the move, before the period is
    /// reset or the increment added (what the record keeps as `BL`/`WL`, `OB`/`OW`).
    ///
    /// # Errors
    /// [`PressRefused`]; nothing changes.
    pub fn press(
        &mut self,
        color: Color,
        now_ms: u64,
        move_number: u32,
    ) -> Result<Reading, PressRefused> {
        if let Some((c, at)) = self.last_press {
            if c == color && now_ms.saturating_sub(at) < DOUBLE_PRESS_MS {
                return Err(PressRefused::Bounce);
            }
        }
        let Some(running) = self.running() else {
            return Err(PressRefused::NotRunning);
        };
        if self.paused {
            return Err(PressRefused::Paused);
        }
        if running != color {
            return Err(PressRefused::NotYourTime);
        }
        self.tick(now_ms);
        if self.stopped {
            return Err(PressRefused::NotRunning); // the flag fell first
        }
        let thought = self.thought_ms(now_ms);
        let i = idx(color);
        self.history.push(PressRecord {
            move_number,
            color,
            sides: self.sides,
            thought_ms: thought,
            at_ms: now_ms,
        });
        let (next, at) = self.sides[i].after_move(&self.system, thought);
        self.sides[i] = next;
        self.last_press = Some((color, now_ms));
        self.begin_turn(color.opposite(), now_ms);
        self.events.push_back(ClockEvent::Changed);
        Ok(at)
    }

    /// The referee pauses the clock at `now_ms` (C3, R22.8). No effect when paused or the
    /// game is over. A clock paused before it started stays paused when it starts (a pause
    /// right after a new game holds until [`Clock::resume`]).
    pub fn pause(&mut self, now_ms: u64) {
        if self.paused || self.finished {
            return;
        }
        if self.running().is_some() {
            self.tick(now_ms);
            self.banked_ms = self.thought_ms(now_ms);
        }
        self.paused = true;
        self.events.push_back(ClockEvent::Changed);
    }

    /// Resumes at `now_ms`: the paused time is charged to nobody.
    pub fn resume(&mut self, now_ms: u64) {
        if self.paused {
            self.paused = false;
            self.segment_start_ms = now_ms;
            self.events.push_back(ClockEvent::Changed);
        }
    }

    /// A takeback of move `move_number` accepted (R17.3 ruling): if the last press committed
    /// it, both sides get back the time as it stood before that move and the mover's time runs
    /// again from `now_ms`, periods included. Returns whether a press was undone.
    pub fn undo_press(&mut self, move_number: u32, now_ms: u64) -> bool {
        if self.finished {
            return false;
        }
        match self.history.last() {
            Some(rec) if rec.move_number == move_number => {
                let rec = *rec;
                self.history.pop();
                self.sides = rec.sides;
                self.expired = [false; 2];
                self.last_press = None;
                self.begin_turn(rec.color, now_ms);
                self.events.push_back(ClockEvent::Changed);
                true
            }
            _ => false,
        }
    }

    /// The move number a press committed is known only later (the referee judges a press
    /// once the board has settled): sets it for `color`'s press at `at_ms`.
    pub fn set_press_move(&mut self, color: Color, at_ms: u64, move_number: u32) {
        if let Some(rec) = self
            .history
            .iter_mut()
            .rev()
            .find(|r| r.color == color && r.at_ms == at_ms)
        {
            rec.move_number = move_number;
        }
    }

    /// [`Clock::revert_press`] of `color`'s press at `at_ms`, with every press made after it
    /// (they answered a switch that did not count).
    pub fn revert_press_at(&mut self, color: Color, at_ms: u64, now_ms: u64) -> bool {
        let Some(i) = self
            .history
            .iter()
            .rposition(|r| r.color == color && r.at_ms == at_ms)
        else {
            return false;
        };
        self.history.truncate(i + 1);
        self.revert_press(now_ms)
    }

    /// The last press did not count (R17.4: no stone was played): as if it had not been made,
    /// the presser's time runs on from its thinking at the press plus everything since, and
    /// the other side gets back what ran meanwhile. Returns whether there was a press.
    pub fn revert_press(&mut self, now_ms: u64) -> bool {
        if self.finished {
            return false;
        }
        let Some(rec) = self.history.pop() else {
            return false;
        };
        self.sides = rec.sides;
        self.expired = [false; 2];
        self.begin_turn(rec.color, now_ms);
        self.banked_ms = rec.thought_ms + now_ms.saturating_sub(rec.at_ms);
        self.spoken_to_ms = self.banked_ms;
        self.events.push_back(ClockEvent::Changed);
        self.tick(now_ms);
        true
    }

    /// R22.5: `color`'s time ran out in its last counted unit and the referee lets it count
    /// as a pass with a warning: the turn passes to the other side and `color` keeps one
    /// fresh unit (period, block) for its next turn; with absolute or Fischer time nothing
    /// is left to give and the flag stays down.
    pub fn pass_after_flag(&mut self, color: Color, now_ms: u64) {
        let i = idx(color);
        let fresh = SideClock::new(&self.system);
        let s = &mut self.sides[i];
        s.main_ms = 0;
        match self.system.overtime {
            Overtime::Counting { .. } | Overtime::ByoYomi { .. } => s.periods = 1,
            Overtime::Canadian { .. } => {
                s.periods = fresh.periods;
                s.block_ms = fresh.block_ms;
            }
            Overtime::Absolute | Overtime::Fischer { .. } => return,
        }
        self.expired[i] = false;
        self.begin_turn(color.opposite(), now_ms);
        self.events.push_back(ClockEvent::Changed);
    }

    /// Stops the clock for good (the game is over).
    pub fn stop(&mut self, now_ms: u64) {
        if self.running().is_some() {
            self.tick(now_ms);
            self.banked_ms = self.thought_ms(now_ms);
            self.stopped = true;
            self.events.push_back(ClockEvent::Changed);
        }
        self.finished = true;
    }

    /// The next event, oldest first.
    pub fn poll_event(&mut self) -> Option<ClockEvent> {
        self.events.pop_front()
    }

    /// `color`'s turn begins at `now_ms`; a paused clock stays paused (its time starts at
    /// [`Clock::resume`]).
    fn begin_turn(&mut self, color: Color, now_ms: u64) {
        self.running = Some(color);
        self.stopped = false;
        self.banked_ms = 0;
        self.segment_start_ms = now_ms;
        self.spoken_to_ms = 0;
        let r = self.sides[idx(color)].reading(&self.system, 0);
        self.shown_periods = r.periods;
        self.shown_overtime = r.overtime;
    }

    fn flag(&mut self, color: Color, until_flag: u64) {
        self.expired[idx(color)] = true;
        self.banked_ms = until_flag;
        self.stopped = true;
        self.events.push_back(ClockEvent::Changed);
        self.events.push_back(ClockEvent::Expired { color });
    }
}

#[cfg(test)]
mod tests;
