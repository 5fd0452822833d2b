//! The session's game clock: presses the referee accepted switch it, its calls and flag go
//! out as events, takebacks and pauses reach it (C3, R22, R17.4, R22.6).
//!
//! Game time is the board's time while the link is up (so a replay at full speed keeps time
//! as it would in real time) and the host's while the board is away: the clock never stops
//! because a cable was kicked.

use super::{Session, TimeUp};
use crate::clock::{Clock, ClockEvent, Overtime};
use crate::event::{ClockView, EventKind, Phase};
use crate::referee::{FlagRuling, PressOutcome};
use crate::rules::Color;

impl Session {
    /// The clocks as shown now, if the game has a clock.
    pub fn clock_view(&self) -> Option<ClockView> {
        let clock = self.clock.as_ref()?;
        let now = self.board_time_ms;
        Some(ClockView {
            system: clock.system().to_string(),
            running: clock.running(),
            paused: clock.is_paused(),
            black: clock.reading(Color::Black, now),
            white: clock.reading(Color::White, now),
        })
    }

    /// The game clock, if the game has one.
    pub fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }

    /// The referee judges a clock press made at board time `at_ms` (the clock switched when
    /// it was pressed): if it commits a move, the mover's reading at the press goes into the
    /// record; if it does not count (no stone, R17.4), the press is undone on the clock.
    pub(super) fn clock_pressed(&mut self, color: Color, at_ms: u64) {
        self.stats.clock_presses += 1;
        let reading = self
            .press_readings
            .iter()
            .position(|&(c, t, _)| c == color && t == at_ms)
            .map(|i| self.press_readings.remove(i).2);
        let now = self.board_time_ms;
        match self.referee.on_clock(color, at_ms) {
            PressOutcome::Switch { move_number } => {
                if let (Some(r), Some(clock)) = (reading, &mut self.clock) {
                    clock.set_press_move(color, at_ms, move_number);
                    let (ms, periods) = r.sgf();
                    self.referee.set_move_time(move_number, ms, periods);
                    self.pressed_move = Some(move_number);
                    self.clock_news = true;
                }
            }
            PressOutcome::Stands => {}
            PressOutcome::Stay => {
                let over = self.referee.phase() == Phase::Finished;
                if let (Some(_), Some(clock), false) = (reading, &mut self.clock, over) {
                    clock.revert_press_at(color, at_ms, now);
                }
            }
        }
        self.settle_held_flag();
    }

    /// A flag that fell while a press that handed the time over was still to be judged is
    /// decided once it is: if the press stood the flag stands (at its time); if it was undone,
    /// the time went back to the presser and there is no flag.
    fn settle_held_flag(&mut self) {
        let Some((color, at)) = self.held_flag else {
            return;
        };
        let waiting = self
            .press_readings
            .iter()
            .chain(&self.pass_readings)
            .any(|&(c, _, _)| c == color.opposite());
        if waiting {
            return;
        }
        self.held_flag = None;
        let still_up = self.clock.as_ref().is_some_and(|c| c.is_expired(color));
        if still_up {
            self.flag_fell(color, at);
        }
    }

    /// R22.5: the configured choice; a pass is possible only where a unit can be given.
    fn flag_fell(&mut self, color: Color, at: u64) {
        let Some(clock) = &mut self.clock else {
            return;
        };
        let units = matches!(
            clock.system().overtime,
            Overtime::Counting { .. } | Overtime::ByoYomi { .. } | Overtime::Canadian { .. }
        );
        let ruling = match self.config.time_up {
            TimeUp::Pass if units => FlagRuling::Pass,
            TimeUp::Referee if units => FlagRuling::AskReferee,
            _ => FlagRuling::Loss,
        };
        self.referee.on_time_expired(color, at, ruling);
        if ruling == FlagRuling::Pass {
            clock.pass_after_flag(color, at);
        }
    }

    /// A pass at board time `at_ms`: recorded by the referee, then the passer's clock stops
    /// like after any move.
    pub(super) fn passed(&mut self, color: Color, at_ms: u64) {
        let before = self.referee.record().moves.len();
        let touched = self.stabiliser.as_ref().map(|s| s.touched().to_vec());
        self.referee.on_pass_seen(color, at_ms, touched.as_deref());
        let record = self.referee.record();
        let recorded = record.moves.len() > before
            && record
                .moves
                .last()
                .is_some_and(|m| m.color == color && m.point.is_none());
        let number = record.moves.len() as u32;
        // the clock switched when this pass (or, for a pass by command, the same side's pass
        // on the board still waiting to be judged) was pressed
        let switched = self
            .pass_readings
            .iter()
            .position(|&(c, t, _)| c == color && t == at_ms)
            .or_else(|| {
                self.pass_readings
                    .iter()
                    .position(|&(c, t, _)| c == color && t <= at_ms)
            })
            .map(|i| self.pass_readings.remove(i))
            .map(|(_, t, reading)| (t, reading));
        if let (Some((at_ms, reading)), Some(clock)) = (switched, &mut self.clock) {
            if recorded {
                clock.set_press_move(color, at_ms, number);
                let (ms, periods) = reading.sgf();
                self.referee.set_move_time(number, ms, periods);
                self.pressed_move = Some(number);
                self.clock_news = true;
                self.referee.pass_pressed(color);
            } else if self.referee.phase() != Phase::Finished {
                // no move: the time goes back to the passer
                let now = self.board_time_ms;
                clock.revert_press_at(color, at_ms, now);
            }
            self.settle_held_flag();
            return;
        }
        if recorded && self.clock.as_ref().and_then(Clock::running) == Some(color) {
            let number = record.moves.len() as u32;
            self.switch_clock(color, at_ms, number);
            self.referee.pass_pressed(color);
        } else if recorded && self.clock.is_none() {
            self.referee.pass_pressed(color);
        }
    }

    /// A new session of the board: the presses not judged yet are dropped (they belong to
    /// the board before), and a pass that switched the clock gives the time back.
    pub(super) fn drop_unjudged_presses(&mut self) {
        self.deferred.clear();
        self.press_readings.clear();
        let now = self.board_time_ms;
        for (color, at_ms, _) in std::mem::take(&mut self.pass_readings) {
            if let Some(clock) = &mut self.clock {
                clock.revert_press_at(color, at_ms, now);
            }
        }
    }

    /// Moves the referee accepted after the fact (stones played while the clock was stopped)
    /// count as pressed when accepted: each mover's clock switches in turn.
    pub(super) fn accepted_moves_press(&mut self, moves_before: usize, at_ms: u64) {
        let accepted: Vec<(Color, u32)> = self.referee.record().moves
            [moves_before.min(self.referee.record().moves.len())..]
            .iter()
            .enumerate()
            .map(|(i, m)| (m.color, (moves_before + i + 1) as u32))
            .collect();
        for (color, number) in accepted {
            if self.clock.as_ref().and_then(Clock::running) == Some(color) {
                self.switch_clock(color, at_ms, number);
            }
        }
    }

    fn switch_clock(&mut self, color: Color, at_ms: u64, move_number: u32) {
        let Some(clock) = &mut self.clock else {
            return;
        };
        match clock.press(color, at_ms, move_number) {
            Ok(reading) => {
                let (ms, periods) = reading.sgf();
                self.referee.set_move_time(move_number, ms, periods);
                self.pressed_move = Some(move_number);
            }
            Err(_) => self.stats.clock_refused += 1,
        }
    }

    /// Game time runs on host time while the board is away.
    pub(super) fn advance_offline(&mut self, now_ms: u64) {
        if self.link.is_none() {
            if let Some(anchor) = self.offline_anchor_ms {
                self.board_time_ms += now_ms.saturating_sub(anchor);
            }
            self.offline_anchor_ms = Some(now_ms);
        } else {
            self.offline_anchor_ms = None;
        }
    }

    /// Host time at which the clock next needs [`Session::handle_timeout`] (a call, the flag),
    /// while the board is away (while it is up, every scan runs the clock).
    pub(super) fn clock_timeout(&self) -> Option<u64> {
        if self.link.is_some() {
            return None;
        }
        let due = self.clock.as_ref()?.next_deadline(self.board_time_ms)?;
        Some(self.now_ms + due.saturating_sub(self.board_time_ms))
    }

    /// Follows the referee's events that concern the clock, before they go out: the start
    /// of play starts it, a taken-back move gives back its time, the end stops it; violation
    /// evidence gets both clocks.
    pub(super) fn clock_follows(&mut self, kind: &mut EventKind) {
        let now = self.board_time_ms;
        let Some(clock) = &mut self.clock else {
            return;
        };
        match kind {
            EventKind::MoveUndone { number, .. } => {
                clock.undo_press(*number, now);
            }
            EventKind::Result { .. } => clock.stop(now),
            // the referee's pause and the count (both sides passed) stop the time
            EventKind::Phase { phase, .. } => match phase {
                Phase::Paused | Phase::Scoring => clock.pause(now),
                Phase::Finished => clock.stop(now),
                Phase::Setup | Phase::Play | Phase::Desync => clock.resume(now),
            },
            EventKind::Violation { evidence, .. } => evidence.clock = self.clock_view(),
            _ => {}
        }
    }

    /// Starts the clock once play begins (the setup, or the free handicap, is down) for the
    /// side to move, and runs it to now: calls, roll-overs, the flag.
    pub(super) fn run_clock(&mut self) {
        let now = self.board_time_ms;
        let Some(clock) = &mut self.clock else {
            return;
        };
        if !self.clock_started && self.referee.phase() != Phase::Setup {
            // the first mover's time, even if the board that ended the setup already shows
            // its first move
            self.clock_started = true;
            let first = self.referee.record().moves.first().map(|m| m.color);
            clock.start(first.unwrap_or(self.referee.game().to_move()), now);
        }
        clock.tick(now);
        let mut changed = false;
        let mut expired = Vec::new();
        let mut calls = Vec::new();
        while let Some(e) = clock.poll_event() {
            match e {
                ClockEvent::Changed => changed = true,
                ClockEvent::Call { color, call } => calls.push((color, call)),
                ClockEvent::Expired { color } => expired.push(color),
            }
        }
        let overtime = clock.system().overtime;
        for (color, call) in calls {
            let (minutes_left, periods_left) = match overtime {
                Overtime::Counting { .. } => (Some(call.left), None),
                Overtime::ByoYomi { .. } | Overtime::Canadian { .. } => (None, Some(call.left)),
                _ => (None, None),
            };
            self.emit(EventKind::Call {
                color,
                game_ms: call.at_ms,
                text: call.text,
                minutes_left,
                periods_left,
                unit_end: call.unit_end,
            });
        }
        if changed || std::mem::take(&mut self.clock_news) {
            if let Some(clock) = self.clock_view() {
                let move_number = self.pressed_move.take();
                self.emit(EventKind::Clock {
                    game_ms: now,
                    clock,
                    move_number,
                });
            }
        }
        for color in expired {
            // the opponent's press that handed the time over may yet be undone
            let handed_over = self
                .press_readings
                .iter()
                .chain(&self.pass_readings)
                .any(|&(c, _, _)| c == color.opposite());
            if handed_over {
                self.held_flag = Some((color, now));
                continue;
            }
            self.flag_fell(color, now);
            self.drain_referee();
            self.run_clock();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::TimeSystem;
    use crate::referee::{GameSetup, Ruling};
    use crate::rules::Point;
    use crate::session::{Command, Input, LinkInfo, SessionConfig};
    use smartgoban_protocol::{BoardSize, ButtonCounters, Cell, PackedCells, Scan};

    const NINE: LinkInfo = LinkInfo {
        board_size: 9,
        firmware_version: 1,
        device_id: 1,
        scan_rate_hz: 50,
        ..LinkInfo::DEFAULT
    };

    /// A session with a clock, fed scans 20 ms apart from board time 0.
    struct Table {
        s: Session,
        cells: PackedCells,
        /// The board's button counters, sent with every scan.
        buttons: ButtonCounters,
        t: u32,
        events: Vec<EventKind>,
    }

    impl Table {
        fn new(time: &str) -> Table {
            Table::with(time, SessionConfig::default())
        }

        fn with(time: &str, config: SessionConfig) -> Table {
            Table::setup(GameSetup::even(9), Some(time), config)
        }

        /// A session of `setup` with the clock `time` (none: moves committed by the board).
        fn setup(mut setup: GameSetup, time: Option<&str>, config: SessionConfig) -> Table {
            setup.time = time.map(|t| t.parse::<TimeSystem>().unwrap());
            let mut s = Session::new(config, &setup).unwrap();
            s.handle_input(Input::LinkUp(NINE), 0).unwrap();
            let mut t = Table {
                s,
                cells: PackedCells::new(BoardSize::NINE),
                buttons: ButtonCounters::ZERO,
                t: 0,
                events: Vec::new(),
            };
            t.run(200);
            t
        }

        /// Scans until board time `ms` has passed.
        fn run(&mut self, ms: u32) {
            let end = self.t + ms;
            while self.t < end {
                let scan = Scan {
                    scan_counter: self.t / 20,
                    board_ms: self.t,
                    buttons: self.buttons,
                    cells: self.cells,
                };
                self.s.handle_input(Input::Scan(scan), 0).unwrap();
                self.drain();
                self.t += 20;
            }
        }

        fn drain(&mut self) {
            while let Some(e) = self.s.poll_output() {
                self.events.push(e.kind);
            }
        }

        fn set(&mut self, gtp: &str, cell: Cell) {
            let p = Point::from_gtp(gtp, 9).unwrap();
            self.cells.set(p.index(9), cell);
            self.run(300);
        }

        /// Ten minutes each; Black E5 and White C3 played, each pressed on the board's buttons.
        fn two_moves_pressed_on_the_board() -> Table {
            use smartgoban_protocol::Button;
            let mut t = Table::new("main=10m");
            t.set("E5", Cell::Black);
            t.board_press(Button::Clock, Color::Black);
            t.set("C3", Cell::White);
            t.board_press(Button::Clock, Color::White);
            t
        }

        /// The reading of `gtp` becomes `cell` at the next scan (no time runs).
        fn put(&mut self, gtp: &str, cell: Cell) {
            let p = Point::from_gtp(gtp, 9).unwrap();
            self.cells.set(p.index(9), cell);
        }

        /// `button` of `color` on the board pressed, counted in the next scan (no time runs).
        fn board_press(&mut self, button: smartgoban_protocol::Button, color: Color) {
            let side = match color {
                Color::Black => smartgoban_protocol::Side::Black,
                Color::White => smartgoban_protocol::Side::White,
            };
            self.buttons.record_press(button, side);
        }

        /// The clock readings of the record's moves (`None`: no reading).
        fn move_readings(&self) -> Vec<Option<u64>> {
            self.s
                .record()
                .moves
                .iter()
                .map(|m| m.time_left_ms)
                .collect()
        }

        fn command(&mut self, c: Command) {
            self.s.handle_input(Input::Command(c), 0).unwrap();
            self.drain();
        }

        fn press(&mut self, color: Color) {
            self.command(Command::ClockPress(color));
        }

        fn reading(&self, color: Color) -> crate::clock::Reading {
            let v = self.s.clock_view().unwrap();
            match color {
                Color::Black => v.black,
                Color::White => v.white,
            }
        }
    }

    /// Quick players (R17.4, one press per move): Black presses for G7 while its hand already
    /// waits over G3 and White's over C7; White's stone comes down after the press, then
    /// Black's under its hand. The press is for G7 — a stone answering one not yet down
    /// cannot have been played — and each move gets its own press.
    #[test]
    fn a_press_made_while_both_next_stones_are_still_coming_is_for_the_stone_already_down() {
        use smartgoban_protocol::Button;
        let mut t = Table::two_moves_pressed_on_the_board();
        t.set("G7", Cell::Black);
        // the hands arrive: White's over C7, Black's over G3
        t.put("C7", Cell::Uncertain);
        t.run(40);
        t.put("G3", Cell::Uncertain);
        t.run(20);
        t.board_press(Button::Clock, Color::Black); // for G7
        t.run(20);
        t.put("C7", Cell::White);
        t.run(40);
        t.board_press(Button::Clock, Color::White); // for C7
        t.run(40);
        t.put("G3", Cell::Black); // down under the hand that waited
        t.run(40);
        t.board_press(Button::Clock, Color::Black); // for G3
        t.run(1_500);
        assert!(
            t.s.referee().violations().is_empty(),
            "{:?}",
            t.s.referee().violations()
        );
        let readings = t.move_readings();
        assert_eq!(readings.len(), 5, "{:?}", t.s.record().moves);
        assert!(readings.iter().all(Option::is_some), "{readings:?}");
        // Black's time ran from White's press for C3 to the press for G7, then from White's
        // press for C7 to the press for G3 (80 ms): each reading is its own press's
        let (g7, g3) = (readings[2].unwrap(), readings[4].unwrap());
        assert_eq!(g7 - g3, 80, "G7 {g7} ms, G3 {g3} ms");
    }

    /// A pass switches the clock when it is pressed, as a clock press does: White's press
    /// right after Black's pass (before the pass is judged) is taken, and both moves get
    /// their readings.
    #[test]
    fn a_pass_hands_the_time_over_at_once() {
        use smartgoban_protocol::Button;
        let mut t = Table::two_moves_pressed_on_the_board();
        t.run(500);
        // White's hand is over D7 before Black passes; its stone and press follow at once
        t.put("D7", Cell::Uncertain);
        t.run(40);
        t.board_press(Button::Pass, Color::Black);
        t.run(60);
        t.put("D7", Cell::White);
        t.board_press(Button::Clock, Color::White);
        t.run(60);
        t.put("D7", Cell::White);
        t.run(1_500);
        assert!(
            t.s.referee().violations().is_empty(),
            "{:?}",
            t.s.referee().violations()
        );
        let moves: Vec<_> = t.s.record().moves.iter().map(|m| m.point).collect();
        assert_eq!(moves.len(), 4, "{moves:?}");
        assert_eq!(moves[2], None, "Black's pass");
        let readings = t.move_readings();
        assert!(readings.iter().all(Option::is_some), "{readings:?}");
        assert_eq!(t.s.stats().clock_refused, 0);
    }

    /// Black A5 captures A4 and A3; A3 is lifted; White lifts A4 and puts its new stone there
    /// under one hand (the sensors never settle on the point empty) while Black presses; the
    /// new stone captures A5, which is lifted, and White presses. White's recapture on the
    /// captured stone's point, not Black's takeback (R17.3), and no press before a stone or
    /// its captures (R17.4, R22.6).
    #[test]
    fn a_recapture_on_a_captured_stones_point_under_one_hand_is_a_move() {
        let mut t = Table::new("main=10m");
        for (i, (p, c)) in [
            ("B4", Cell::Black),
            ("A4", Cell::White),
            ("B3", Cell::Black),
            ("A3", Cell::White),
            ("A2", Cell::Black),
            ("A6", Cell::White),
            ("G7", Cell::Black),
            ("B5", Cell::White),
            ("A5", Cell::Black),
        ]
        .into_iter()
        .enumerate()
        {
            t.set(p, c);
            if p != "A5" {
                t.press(if i % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                });
            }
        }
        t.set("A3", Cell::Empty); // the capture lifted, one stone
        t.put("A4", Cell::Empty);
        t.run(60);
        t.put("A4", Cell::Uncertain); // White's hand: the stone lifted, the new one coming
        t.run(100);
        t.press(Color::Black); // for A5, its captures off as far as anyone could see
        t.run(100);
        t.put("A4", Cell::White);
        t.run(300);
        t.set("A5", Cell::Empty); // White's capture lifted
        t.press(Color::White);
        t.run(1_500);
        assert!(
            t.s.referee().violations().is_empty(),
            "{:?}",
            t.s.referee().violations()
        );
        let last = t.s.record().moves.last().cloned().unwrap();
        assert_eq!(
            (last.color, last.point),
            (Color::White, Point::from_gtp("A4", 9).ok())
        );
        assert_eq!(t.s.record().moves.len(), 10);
        assert!(t.move_readings().iter().all(Option::is_some));
    }

    #[test]
    fn a_takeback_accepted_gives_black_back_its_two_full_periods() {
        let mut t = Table::new("jp=3x30s");
        t.set("E5", Cell::Black);
        t.press(Color::Black);
        t.set("C3", Cell::White);
        t.press(Color::White);
        // Black uses up a period, then plays at once after
        t.run(31_000);
        t.set("G7", Cell::Black);
        t.press(Color::Black);
        t.set("C7", Cell::White);
        t.press(Color::White);
        assert_eq!(t.reading(Color::Black).periods, 2);
        // in overtime with 2 periods: plays after 12 s, presses, then takes it back
        t.run(11_700);
        t.set("D4", Cell::Black);
        t.press(Color::Black);
        let before = t.reading(Color::Black);
        assert_eq!(before.periods, 2);
        t.run(2_000);
        t.set("D4", Cell::Empty);
        let id =
            t.s.referee()
                .violations()
                .iter()
                .find(|v| v.open && v.code == crate::rules::ViolationCode::Takeback)
                .map(|v| v.id)
                .expect("takeback flagged");
        t.command(Command::Resolve {
            id,
            ruling: Ruling::AcceptAsPlayed,
        });
        assert_eq!(t.s.record().moves.len(), 4, "the move left the record");
        let v = t.s.clock_view().unwrap();
        assert_eq!(v.running, Some(Color::Black));
        assert_eq!((v.black.periods, v.black.period_ms), (2, 30_000));
        assert!(t
            .events
            .iter()
            .any(|e| matches!(e, EventKind::MoveUndone { number: 5, .. })));
    }

    #[test]
    fn canadian_pause_lets_no_flag_fall_and_the_next_stone_counts_after_resume() {
        let mut t = Table::new("ca=10/300s");
        let points = [
            "A1", "A3", "A5", "A7", "A9", "C1", "C3", "C5", "C7", "C9", "E1", "E3",
        ];
        for (i, p) in points.iter().enumerate() {
            let color = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let cell = if i % 2 == 0 { Cell::Black } else { Cell::White };
            t.set(p, cell);
            t.press(color);
        }
        assert_eq!(
            t.reading(Color::Black).periods,
            4,
            "4 stones left: {:?}",
            t.events
                .iter()
                .filter(|e| matches!(e, EventKind::Violation { .. } | EventKind::Clock { .. }))
                .collect::<Vec<_>>()
        );
        t.command(Command::Pause);
        let left = t.reading(Color::Black).period_ms;
        t.run(400_000);
        assert_eq!(t.reading(Color::Black).period_ms, left);
        assert!(!t
            .events
            .iter()
            .any(|e| matches!(e, EventKind::Result { .. })));
        // a stone goes down while the clock is stopped: flagged on resumption, not a move
        t.set("G1", Cell::Black);
        t.command(Command::Resume);
        t.run(300);
        let v =
            t.s.referee()
                .violations()
                .iter()
                .find(|v| v.open && v.code == crate::rules::ViolationCode::PlayedWhilePaused)
                .map(|v| v.id)
                .expect("the stone played while paused is flagged");
        assert_eq!(t.s.record().moves.len(), 12);
        assert_eq!(t.reading(Color::Black).periods, 4);
        t.command(Command::Resolve {
            id: v,
            ruling: Ruling::AcceptAsPlayed,
        });
        assert_eq!(t.s.record().moves.len(), 13, "accepted: the move counts");
        assert_eq!(t.reading(Color::Black).periods, 3, "3 stones left");
        assert_eq!(t.s.clock().unwrap().running(), Some(Color::White));
        // the record keeps the stones left after the move (SGF OB)
        assert_eq!(t.s.record().moves.last().unwrap().periods_left, Some(3));
    }

    #[test]
    fn the_clock_buttons_on_the_pi_press_and_pause() {
        use crate::session::ClockButton;
        let mut t = Table::new("main=10m");
        t.set("E5", Cell::Black);
        // host time 0 is board time now: a press 100 ms ago
        let button = |b| Input::Button {
            button: b,
            host_ms: 900,
        };
        t.s.handle_input(button(ClockButton::Player(Color::Black)), 1_000)
            .unwrap();
        assert_eq!(t.s.clock().unwrap().running(), Some(Color::White));
        t.s.handle_input(button(ClockButton::Pause), 1_000).unwrap();
        assert!(t.s.clock().unwrap().is_paused());
        t.s.handle_input(button(ClockButton::Pause), 1_000).unwrap();
        assert!(!t.s.clock().unwrap().is_paused());
        // White's button before its stone: R17.4 once the stone is down within a second
        t.s.handle_input(button(ClockButton::Player(Color::White)), 1_000)
            .unwrap();
        t.set("C3", Cell::White);
        t.run(1_200);
        let v = t.s.referee().violations();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].code, crate::rules::ViolationCode::ClockBeforeStone);
        assert_eq!(t.s.record().moves.len(), 2);
        assert!(t.s.record().moves.iter().all(|m| m.time_left_ms.is_some()));
    }

    #[test]
    fn the_referee_rules_a_flag_fall_a_pass_with_a_warning() {
        let config = SessionConfig {
            time_up: TimeUp::Referee,
            ..SessionConfig::default()
        };
        let mut t = Table::with("cn=1x5s", config);
        t.run(6_000);
        let v = t.s.referee().violations();
        assert_eq!(v.len(), 1);
        assert!(v[0].open && v[0].code == crate::rules::ViolationCode::TimeExpired);
        assert!(t.s.referee().result().is_none(), "waiting for the referee");
        t.command(Command::RuleTimeUp { pass: true });
        assert_eq!(
            t.s.record().moves.len(),
            1,
            "Black's turn counted as a pass"
        );
        assert_eq!(t.s.referee().warnings(), [1, 0]);
        let clock = t.s.clock().unwrap();
        assert_eq!(clock.running(), Some(Color::White));
        assert_eq!(t.reading(Color::Black).periods, 1);
        let again =
            t.s.handle_input(Input::Command(Command::RuleTimeUp { pass: false }), 0);
        assert!(again.is_err(), "nothing left to rule");
        // the other ruling: the loss
        let config = SessionConfig {
            time_up: TimeUp::Referee,
            ..SessionConfig::default()
        };
        let mut t = Table::with("cn=1x5s", config);
        t.run(6_000);
        t.command(Command::RuleTimeUp { pass: false });
        assert_eq!(t.s.referee().result().map(|r| r.re.as_str()), Some("W+T"));
    }

    #[test]
    fn a_late_player_loses_twice_the_lateness() {
        let mut t = Table::new("main=60m cn=5x60s");
        t.command(Command::LateArrival {
            color: Color::White,
            late_ms: 10 * 60_000,
        });
        assert_eq!(t.reading(Color::White).main_ms, 40 * 60_000);
        let mut no_clock = Session::new(SessionConfig::default(), &GameSetup::even(9)).unwrap();
        let refused = no_clock.handle_input(
            Input::Command(Command::LateArrival {
                color: Color::White,
                late_ms: 1,
            }),
            0,
        );
        assert!(refused.is_err());
    }

    #[test]
    fn the_clock_runs_on_while_the_board_is_away() {
        let mut t = Table::new("main=60s");
        assert_eq!(t.s.clock().unwrap().running(), Some(Color::Black));
        let start = t.reading(Color::Black).main_ms;
        t.s.handle_input(
            Input::LinkDown {
                reason: "unplugged".into(),
            },
            1_000,
        )
        .unwrap();
        t.s.handle_timeout(31_000);
        assert_eq!(t.reading(Color::Black).main_ms, start - 30_000);
        // the session asks to be woken for the calls ("20" s left next) and the flag
        let due = t.s.poll_timeout().unwrap();
        assert_eq!(due, 31_000 + (start - 30_000) - 20_000);
        let mut now = 31_000;
        while let Some(due) = t.s.poll_timeout() {
            now = due;
            t.s.handle_timeout(now);
            t.drain();
        }
        assert_eq!(now, 1_000 + start);
        assert!(t
            .events
            .iter()
            .any(|e| matches!(e, EventKind::Result { reason: "time", .. })));
    }

    /// R22.8: stones of both colours put down while the referee had the clock stopped, then
    /// accepted: flagged once with each stone's colour, recorded in the order they were played,
    /// and no time charged for the pause — with a time control and without.
    #[test]
    fn stones_of_both_colours_played_during_a_pause_are_recorded_in_their_order_once_accepted() {
        for time in [Some("main=10m"), None] {
            let mut t = Table::setup(GameSetup::even(9), time, SessionConfig::default());
            t.set("E5", Cell::Black);
            if time.is_some() {
                t.press(Color::Black);
            }
            t.set("C3", Cell::White);
            if time.is_some() {
                t.press(Color::White);
            }
            t.run(3_500);
            t.command(Command::Pause);
            let black_before = time.map(|_| t.reading(Color::Black).main_ms);
            for (p, c) in [
                ("G7", Cell::Black),
                ("C7", Cell::White),
                ("G3", Cell::Black),
                ("D5", Cell::White),
            ] {
                t.set(p, c);
                t.run(700);
            }
            t.run(60_000);
            t.command(Command::Resume);
            t.run(300);
            let paused: Vec<_> =
                t.s.referee()
                    .violations()
                    .iter()
                    .filter(|v| v.open && v.code == crate::rules::ViolationCode::PlayedWhilePaused)
                    .cloned()
                    .collect();
            assert_eq!(
                paused.len(),
                1,
                "{time:?}: {:?}",
                t.s.referee().violations()
            );
            let detail = &paused[0].detail;
            for named in ["black G7", "white C7", "black G3", "white D5"] {
                assert!(detail.contains(named), "{time:?}: {detail}");
            }
            assert!(
                !t.events
                    .iter()
                    .any(|e| matches!(e, EventKind::Ambiguous { .. })),
                "{time:?}"
            );
            t.command(Command::Resolve {
                id: paused[0].id,
                ruling: Ruling::AcceptAsPlayed,
            });
            t.run(300);
            let moves: Vec<String> =
                t.s.record()
                    .moves
                    .iter()
                    .map(|m| format!("{}{}", m.color.sgf_letter(), m.point.unwrap().to_gtp(9)))
                    .collect();
            assert_eq!(
                moves,
                ["BE5", "WC3", "BG7", "WC7", "BG3", "WD5"],
                "{time:?}"
            );
            let open: Vec<_> =
                t.s.referee()
                    .violations()
                    .iter()
                    .filter(|v| v.open)
                    .collect();
            assert!(open.is_empty(), "{time:?}: {open:?}");
            if let Some(before) = black_before {
                // Black's time: nothing for the pause (60 s), at most the 300 ms after it
                let after = t.reading(Color::Black).main_ms;
                assert!(before - after <= 1_000, "{before} → {after}");
            }
        }
    }
}
