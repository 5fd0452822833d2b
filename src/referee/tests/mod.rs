//! The referee on hand-made settled boards (positions in GTP coordinates): every case of the
//! referee issue at the core. The same cases run through the whole stack in
//! `tests/integration/referee.rs`.

use super::*;
use crate::event::EventKind;

mod count;
mod cycles;
mod found;
mod proof;
mod revise;
mod takeback;

const B: Color = Color::Black;
const W: Color = Color::White;

/// A referee fed with boards the way the session feeds it.
struct Board {
    r: Referee,
    grid: StoneGrid,
    times: Vec<PointTimes>,
    t: u64,
    events: Vec<EventKind>,
    /// The next boards are settled with a hand over the board elsewhere
    /// ([`Observation::hands`]).
    hands: bool,
    /// Per point, the last board time it did not read its settled value
    /// ([`Observation::touched`]; empty: unknown).
    touched: Vec<u64>,
}

impl Board {
    fn new(setup: GameSetup, config: RefereeConfig) -> Board {
        let size = setup.size();
        let r = Referee::new(&setup, config).unwrap();
        let n = usize::from(size) * usize::from(size);
        let mut b = Board {
            r,
            grid: StoneGrid::empty(size),
            times: vec![PointTimes::default(); n],
            t: 0,
            events: Vec::new(),
            hands: false,
            touched: Vec::new(),
        };
        b.settle();
        b.drain();
        b
    }

    fn even(size: u8) -> Board {
        Board::new(GameSetup::even(size), RefereeConfig::default())
    }

    fn p(&self, s: &str) -> Point {
        Point::from_gtp(s, self.grid.size()).unwrap()
    }

    fn set(&mut self, s: &str, c: Option<Color>) {
        let p = self.p(s);
        self.grid.set(p, c);
        self.times[p.index(self.grid.size())] = PointTimes {
            left_ms: self.t,
            seen_ms: self.t,
            reread_ms: 0,
        };
    }

    /// Point `s` reads `c` now, its change dated from `left_ms` (a hand over it since) to now.
    fn set_since(&mut self, s: &str, c: Option<Color>, left_ms: u64) {
        let p = self.p(s);
        self.grid.set(p, c);
        self.times[p.index(self.grid.size())] = PointTimes {
            left_ms,
            seen_ms: self.t,
            reread_ms: 0,
        };
    }

    /// Stones put down (colour per point), then the board settles.
    fn put(&mut self, stones: &[(Color, &str)]) -> &mut Self {
        self.t += 500;
        for &(c, s) in stones {
            self.set(s, Some(c));
        }
        self.settle()
    }

    fn lift(&mut self, points: &[&str]) -> &mut Self {
        self.t += 500;
        for s in points {
            self.set(s, None);
        }
        self.settle()
    }

    fn settle(&mut self) -> &mut Self {
        self.t += 200;
        let grid = self.grid.clone();
        self.r.on_board(Observation {
            grid: &grid,
            at_ms: self.t,
            times: &self.times,
            touched: &self.touched,
            complete: true,
            came_up_ms: None,
            hands: self.hands,
        });
        self.r.on_tick(self.t, true, &[]);
        self.drain();
        self
    }

    /// The changes known for certain while hands are still over the board (not settled
    /// whole: [`Observation::complete`] false).
    fn glimpse(&mut self) -> &mut Self {
        self.t += 200;
        let grid = self.grid.clone();
        self.r.on_board(Observation {
            grid: &grid,
            at_ms: self.t,
            times: &self.times,
            touched: &self.touched,
            complete: false,
            came_up_ms: None,
            hands: true,
        });
        self.drain();
        self
    }

    /// Time passes with the board settled.
    fn wait(&mut self, ms: u64) -> &mut Self {
        self.t += ms;
        self.r.on_tick(self.t, true, &[]);
        self
    }

    fn clock(&mut self, c: Color) -> &mut Self {
        self.t += 100;
        self.r.on_clock(c, self.t);
        self.drain();
        self
    }

    fn drain(&mut self) {
        while let Some(e) = self.r.poll_event() {
            self.events.push(e);
        }
    }

    /// Alternate moves from Black, each settled.
    fn play(&mut self, moves: &[&str]) -> &mut Self {
        for m in moves {
            let c = self.r.game().to_move();
            self.put(&[(c, m)]);
        }
        self
    }

    fn take_events(&mut self) -> Vec<EventKind> {
        std::mem::take(&mut self.events)
    }

    fn moves(&self) -> Vec<String> {
        let size = self.grid.size();
        self.r
            .record()
            .moves
            .iter()
            .map(|m| m.short(size))
            .collect()
    }
}

fn violations(events: &[EventKind]) -> Vec<(&'static str, Color, Vec<String>)> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::Violation {
                code,
                color,
                points,
                ..
            } => Some((*code, *color, points.clone())),
            _ => None,
        })
        .collect()
}

/// The numbers of the moves `events` correct (`move_corrected`), in order.
fn corrected(events: &[EventKind]) -> Vec<u32> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::MoveCorrected { number, .. } => Some(*number),
            _ => None,
        })
        .collect()
}

fn count(events: &[EventKind], f: impl Fn(&EventKind) -> bool) -> usize {
    events.iter().filter(|e| f(e)).count()
}

#[test]
fn a_misread_colour_is_an_anomaly_and_play_goes_on() {
    // After B E5 and W C3 on 9×9, C3 reads black for a while, then recovers; Black plays G7
    // and White C7 in between.
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.take_events();
    b.set("C3", Some(B));
    b.put(&[(B, "G7")]);
    b.put(&[(W, "C7")]);
    b.set("C3", Some(W));
    b.settle();
    assert_eq!(b.moves(), ["BE5", "WC3", "BG7", "WC7"]);
    let ev = b.take_events();
    assert!(violations(&ev).is_empty(), "{ev:?}");
    assert_eq!(b.r.stats().anomalies, 1);
    assert!(b.r.anomalies().is_empty());
    assert_eq!(b.r.phase(), Phase::Play);
}

#[test]
fn a_capture_left_on_the_board_when_the_opponent_moves_is_missed() {
    // black C4, B3, D3; white C3; Black plays C2 and White answers E5 without C3 lifted.
    let mut b = Board::even(9);
    b.play(&["C4", "C3", "B3", "G7", "D3", "G6", "C2"]);
    assert!(b
        .take_events()
        .iter()
        .any(|e| matches!(e, EventKind::CapturesPending { points } if points == &["C3"])));
    b.put(&[(W, "E5")]);
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("missed_capture", B, vec!["C3".to_string()])]
    );
    assert_eq!(b.moves().last().unwrap(), "WE5");
    // R18.2: a warning for Black
    assert!(ev.iter().any(|e| matches!(
        e,
        EventKind::Warning {
            color: B,
            count: 1,
            ..
        }
    )));
    // lifting C3 clears it with no other violation
    b.lift(&["C3"]);
    let ev = b.take_events();
    assert!(violations(&ev).is_empty());
    assert_eq!(
        count(&ev, |e| matches!(e, EventKind::ViolationResolved { .. })),
        1
    );
    assert!(b.r.violations().iter().all(|v| !v.open));
}

#[test]
fn two_moves_between_boards_and_a_capture_inside_them() {
    let mut b = Board::even(9);
    b.play(&["E5"]);
    b.put(&[(W, "C3"), (B, "G7")]);
    assert_eq!(b.moves(), ["BE5", "WC3", "BG7"]);
    let mut b = Board::even(19);
    b.play(&["A1", "B1", "R16"]);
    b.t += 500;
    b.set("A2", Some(W));
    b.set("A1", None);
    b.set("K10", Some(B));
    b.settle();
    assert_eq!(b.moves(), ["BA1", "WB1", "BR16", "WA2", "BK10"]);
    assert_eq!(b.r.game().captures(W), 1);
}

#[test]
fn a_throw_in_nobody_saw_or_a_stone_out_of_turn_is_recorded_as_the_throw_in_with_a_notice() {
    // black A2, B2, C1; White to move; the board shows only a new black A1: a white throw-in
    // at B1 captured by A1 (nobody saw it), or Black playing twice (R17.2). A violation is
    // never presumed: the throw-in is recorded at once, provisionally, and play goes on; the
    // referee gets a notice (no warning) and may choose otherwise (issue 35).
    let mut b = Board::even(9);
    b.play(&["A2", "J9", "B2", "J8", "C1"]);
    b.take_events();
    b.put(&[(B, "A1")]);
    let ev = b.take_events();
    assert_eq!(b.moves(), ["BA2", "WJ9", "BB2", "WJ8", "BC1", "WB1", "BA1"]);
    assert_eq!(b.r.game().captures(B), 1);
    let provisional = ev.iter().find_map(|e| match e {
        EventKind::Provisional { numbers, .. } => Some(numbers.clone()),
        _ => None,
    });
    assert_eq!(provisional, Some(vec![6, 7]));
    assert_eq!(
        violations(&ev),
        [("two_moves_in_a_row", B, vec!["A1".to_string()])]
    );
    let penalty = ev.iter().find_map(|e| match e {
        EventKind::Violation { penalty, .. } => Some(*penalty),
        _ => None,
    });
    assert_eq!(penalty, Some("notice"));
    assert!(!ev.iter().any(|e| matches!(e, EventKind::Warning { .. })));
    assert_eq!(b.r.warnings(), [0, 0]);
    assert!(b.r.record().moves[5]
        .comment
        .as_deref()
        .is_some_and(|c| c.contains("provisional")));
}

#[test]
fn free_handicap_then_white_moves() {
    let mut b = Board::new(GameSetup::free_handicap(19, 3), RefereeConfig::default());
    b.put(&[(B, "D4")]).put(&[(B, "Q16")]).put(&[(B, "K10")]);
    b.put(&[(W, "Q4")]);
    let ev = b.take_events();
    assert!(violations(&ev).is_empty(), "{ev:?}");
    let rec = b.r.record();
    assert_eq!(rec.info.handicap, 3);
    assert_eq!(rec.setup.len(), 3);
    assert_eq!(b.moves(), ["WQ4"]);
    let sgf = rec.to_sgf();
    assert!(sgf.contains("HA[3]") && sgf.contains("AB["), "{sgf}");
    // a fourth black stone instead of White's move is flagged
    let mut b = Board::new(GameSetup::free_handicap(19, 3), RefereeConfig::default());
    b.put(&[(B, "D4")])
        .put(&[(B, "Q16")])
        .put(&[(B, "K10")])
        .put(&[(B, "D16")]);
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("two_moves_in_a_row", B, vec!["D16".to_string()])]
    );
    assert!(b.moves().is_empty());
}

#[test]
fn after_the_result_nothing_is_a_move_or_a_violation() {
    let mut b = Board::even(19);
    b.play(&["Q16", "D4", "Q4"]);
    // resignation gesture: two black stones on the edge out of turn (White to move)
    b.put(&[(B, "A10"), (B, "A11")]);
    b.r.set_result("W+R");
    b.put(&[(W, "K10")]).put(&[(B, "K11")]);
    b.lift(&["Q16"]);
    let ev = b.take_events();
    assert!(violations(&ev).is_empty(), "{ev:?}");
    assert_eq!(b.moves(), ["BQ16", "WD4", "BQ4"]);
    assert_eq!(b.r.phase(), Phase::Finished);
    assert!(b.r.record().to_sgf().contains("RE[W+R]"));
}

#[test]
fn a_stone_pushed_before_the_commit_adjusts_the_move_after_it_is_a_moved_stone() {
    // no clock, commit after 3 s of settled board: pushed at once → the same move adjusted
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.put(&[(B, "G7")]);
    b.t += 300;
    b.set("G7", None);
    b.set("G6", Some(B));
    b.settle();
    assert_eq!(b.moves(), ["BE5", "WC3", "BG6"]);
    let ev = b.take_events();
    assert!(violations(&ev).is_empty());
    assert_eq!(count(&ev, |e| matches!(e, EventKind::MoveUndone { .. })), 1);
    // placed at G7, clock pressed (committed), then pushed to G6: moved_stone G7→G6
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.put(&[(B, "G7")]).clock(B);
    b.t += 300;
    b.set("G7", None);
    b.set("G6", Some(B));
    b.settle();
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("moved_stone", B, vec!["G7".to_string(), "G6".to_string()])]
    );
    assert_eq!(b.moves(), ["BE5", "WC3", "BG7"], "the record keeps G7");
    assert_eq!(b.r.phase(), Phase::Desync);
    // put back: resolved
    b.t += 300;
    b.set("G6", None);
    b.set("G7", Some(B));
    b.settle();
    assert_eq!(b.r.phase(), Phase::Play);
    assert!(b.r.violations().iter().all(|v| !v.open));
}

#[test]
fn a_committed_stone_lifted_and_played_elsewhere_is_a_takeback() {
    let mut b = Board::even(9);
    b.play(&["E5", "C3", "G7"]);
    b.wait(3_500); // committed without a clock
    b.take_events();
    b.t += 300;
    b.set("G7", None);
    b.set("B8", Some(B));
    b.settle();
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("takeback", B, vec!["G7".to_string(), "B8".to_string()])]
    );
    assert!(ev.iter().any(|e| matches!(
        e,
        EventKind::Warning {
            color: B,
            count: 1,
            ..
        }
    )));
    assert_eq!(b.moves(), ["BE5", "WC3", "BG7"]);
}

#[test]
fn opponent_stones_with_liberties_lifted_are_a_wrong_capture() {
    let mut b = Board::even(9);
    b.play(&["E5", "C3", "D3"]);
    b.take_events();
    // White plays and lifts black D3, which still has liberties
    b.t += 300;
    b.set("G7", Some(W));
    b.set("D3", None);
    b.settle();
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("wrong_capture", W, vec!["D3".to_string()])]
    );
    assert_eq!(b.moves(), ["BE5", "WC3", "BD3", "WG7"]);
    b.put(&[(B, "D3")]);
    assert!(b.r.violations().iter().all(|v| !v.open));
    assert_eq!(b.r.phase(), Phase::Play);
}

#[test]
fn many_stones_off_their_points_is_a_disturbed_board() {
    let mut b = Board::even(9);
    b.play(&["E5", "C3", "D3", "C4", "G7", "G3"]);
    b.take_events();
    b.lift(&["E5", "C3", "D3", "C4"]);
    let ev = b.take_events();
    let v = violations(&ev);
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].0, "board_disturbed");
    assert_eq!(b.r.phase(), Phase::Desync);
    // the guidance lists every stone to put back
    assert_eq!(b.r.guidance().restore.len(), 4);
    b.put(&[(B, "E5"), (W, "C3"), (B, "D3"), (W, "C4")]);
    assert_eq!(b.r.phase(), Phase::Play);
}

#[test]
fn clock_presses_before_the_stone_and_before_the_captures_are_warnings() {
    let mut b = Board::even(9);
    b.play(&["E5"]);
    b.take_events();
    b.clock(W); // White presses before playing
    let ev = b.take_events();
    assert_eq!(violations(&ev), [("clock_before_stone", W, vec![])]);
    // a capture, then the clock before lifting (R22.6)
    let mut b = Board::even(9);
    b.play(&["C4", "C3", "B3", "G7", "D3", "G6", "C2"]);
    b.take_events();
    b.clock(B);
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("clock_before_captures", B, vec!["C3".to_string()])]
    );
    b.lift(&["C3"]);
    assert!(b.r.violations().iter().all(|v| !v.open));
    // a press while placing: the stone appeared after the press
    let mut b = Board::even(9);
    b.play(&["E5"]);
    b.take_events();
    b.t += 100;
    let press = b.t;
    b.t += 50;
    b.set("C3", Some(W));
    b.settle();
    b.r.on_clock(W, press);
    b.drain();
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("clock_before_stone", W, vec!["C3".to_string()])]
    );
}

#[test]
fn a_stacked_stone_and_a_clock_press_is_an_occupied_point() {
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.take_events();
    b.set("C3", Some(B)); // a black stone stacked on white C3 reads black
    b.settle();
    b.clock(B);
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("occupied_point", B, vec!["C3".to_string()])]
    );
    assert_eq!(b.moves(), ["BE5", "WC3", "Bpass"]);
}

#[test]
fn two_moves_in_a_row_is_invalid_under_cn2002_and_loses_under_cn1988() {
    let mut b = Board::even(9);
    b.play(&["E5"]);
    b.put(&[(B, "G7")]);
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("two_moves_in_a_row", B, vec!["G7".to_string()])]
    );
    assert_eq!(b.moves(), ["BE5"], "the second move is invalid (R17.2)");
    assert_eq!(b.r.warnings(), [1, 0]);
    b.lift(&["G7"]);
    assert_eq!(b.r.phase(), Phase::Play);
    let config = RefereeConfig {
        profile: Profile::Cn1988,
        ..RefereeConfig::default()
    };
    let mut b = Board::new(GameSetup::even(9), config);
    b.play(&["E5"]);
    b.put(&[(B, "G7")]);
    assert_eq!(b.r.phase(), Phase::Finished);
    assert_eq!(b.r.result().unwrap().winner, Some(W));
    let ev = b.take_events();
    assert!(ev
        .iter()
        .any(|e| matches!(e, EventKind::Violation { clause: "O8.1", .. })));
}

#[test]
fn a_second_warning_loses_the_game() {
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.clock(W); // White already moved: this press is valid
    b.clock(B); // Black presses without a stone: warning 1
    b.r.warn(B, "disturbing the opponent").unwrap();
    b.drain();
    let ev = b.take_events();
    assert!(violations(&ev).iter().any(|v| v.0 == "two_warnings_loss"));
    assert_eq!(b.r.result().unwrap().winner, Some(W));
    assert_eq!(b.r.result().unwrap().reason, "two_warnings");
}

/// Black takes the ko at F5 (White's E5 captured); its events taken.
fn ko_taken(b: &mut Board) {
    b.play(&["D5", "G5", "E6", "F6", "E4", "F4", "A9", "E5"]);
    b.t += 300;
    b.set("F5", Some(B));
    b.set("E5", None);
    b.settle();
    b.take_events();
}

/// [`ko_taken`], then, after `before_retake`, White retakes the ko at once at E5 (F5
/// lifted): a ko recapture (R18.3).
fn ko_taken_and_retaken(b: &mut Board, before_retake: impl FnOnce(&mut Board)) {
    ko_taken(b);
    before_retake(b);
    b.t += 300;
    b.set("E5", Some(W));
    b.set("F5", None);
    b.settle();
}

#[test]
fn forbidden_point_and_ko_retake_count_as_passes() {
    let mut b = Board::even(9);
    b.play(&["A2", "E5", "B1"]);
    b.put(&[(W, "A1")]);
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("forbidden_point", W, vec!["A1".to_string()])]
    );
    assert_eq!(b.moves().last().unwrap(), "Wpass");
    b.lift(&["A1"]);
    assert_eq!(b.r.phase(), Phase::Play);
    // ko
    let mut b = Board::even(9);
    ko_taken_and_retaken(&mut b, |_| {});
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("ko_recapture", W, vec!["E5".to_string()])]
    );
    assert_eq!(b.r.warnings(), [0, 1], "R18.3: a warning too");
}

#[test]
fn wrong_colours_at_the_start_can_be_swapped_up_to_move_ten() {
    let mut setup = GameSetup::even(9);
    setup.info.black = Some("Ana".into());
    setup.info.white = Some("Bo".into());
    let mut b = Board::new(setup, RefereeConfig::default());
    b.put(&[(W, "E5")]);
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("wrong_colors", W, vec!["E5".to_string()])]
    );
    b.r.swap_colors().unwrap();
    assert_eq!(b.r.record().info.black.as_deref(), Some("Bo"));
    assert!(b.r.violations().iter().all(|v| !v.open));
    let mut b = Board::even(9);
    b.play(&[
        "E5", "C3", "D3", "C4", "G7", "G3", "B8", "B2", "H8", "H2", "A5",
    ]);
    assert_eq!(b.r.swap_colors(), Err(CommandError::TooLateToSwap(11)));
}

#[test]
fn accept_as_played_lets_a_second_move_stand() {
    let config = RefereeConfig {
        policy: Policy::AcceptAsPlayed,
        ..RefereeConfig::default()
    };
    let mut b = Board::new(GameSetup::even(9), config);
    b.play(&["E5"]);
    b.put(&[(B, "G7")]);
    assert_eq!(b.moves(), ["BE5", "BG7"]);
    assert_eq!(b.r.warnings(), [0, 0]);
    assert!(b.r.violations().iter().all(|v| !v.open));
    let sgf = b.r.record().to_sgf();
    assert!(
        sgf.contains("two_moves_in_a_row"),
        "noted on the move: {sgf}"
    );
}

#[test]
fn the_referee_can_accept_an_invalid_second_move_and_correct_a_move() {
    let mut b = Board::even(9);
    b.play(&["E5"]);
    b.put(&[(B, "G7")]);
    let id = b.r.violations()[0].id;
    b.r.resolve(id, Ruling::AcceptAsPlayed).unwrap();
    b.drain();
    assert_eq!(b.moves(), ["BE5", "BG7"]);
    assert_eq!(b.r.phase(), Phase::Play);
    b.r.correct_move(2, Some(b.p("G6"))).unwrap();
    b.drain();
    assert_eq!(b.moves(), ["BE5", "BG6"]);
    // the board still shows G7: fix it
    assert_eq!(b.r.phase(), Phase::Desync);
    assert!(matches!(
        b.r.correct_move(9, None),
        Err(CommandError::NoSuchMove(9))
    ));
}

#[test]
fn a_sealed_move_on_an_occupied_point_is_a_pass() {
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.r.seal_move(SealedMove {
        color: B,
        point: Some(b.p("C3")),
    })
    .unwrap();
    assert_eq!(b.r.phase(), Phase::Paused);
    b.r.resume().unwrap();
    b.drain();
    assert_eq!(b.moves(), ["BE5", "WC3", "Bpass"]);
}

#[test]
fn two_passes_enter_scoring_and_a_stone_resumes_play() {
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.r.on_pass(B, b.t);
    b.r.on_pass(W, b.t);
    assert_eq!(b.r.phase(), Phase::Scoring);
    // lifting dead stones is no capture error
    b.lift(&["C3"]);
    assert!(violations(&b.take_events()).is_empty());
    assert_eq!(b.r.phase(), Phase::Scoring);
    // R21.4: a dispute is played out; the stone lifted as dead goes back
    b.put(&[(B, "G7")]);
    assert_eq!(b.moves(), ["BE5", "WC3", "Bpass", "Wpass", "BG7"]);
    assert!(violations(&b.take_events()).is_empty());
    assert_eq!(b.r.phase(), Phase::Desync);
    assert_eq!(b.r.guidance().restore, vec![(b.p("C3"), W)]);
    b.put(&[(W, "C3")]);
    assert_eq!(b.r.phase(), Phase::Play);
}

#[test]
fn the_count_is_proposed_in_scoring_and_confirmed_as_the_result() {
    let mut b = Board::even(9);
    for row in 1..=9 {
        b.put(&[(B, &format!("D{row}"))]);
        b.put(&[(W, &format!("F{row}"))]);
    }
    // a white stone thrown into Black's side: dead
    b.r.on_pass(B, b.t);
    b.put(&[(W, "B5")]);
    b.r.on_pass(B, b.t);
    b.r.on_pass(W, b.t);
    b.drain();
    assert_eq!(b.r.phase(), Phase::Scoring);
    let ev = b.take_events();
    let count = ev
        .iter()
        .rev()
        .find_map(|e| match e {
            EventKind::Count { dead, re, .. } => Some((dead.clone(), re.clone())),
            _ => None,
        })
        .expect("count proposed");
    // D: 9 black stones + 27 territory, F: 9 white + 27, E: 9 dame; komi 7.5
    assert_eq!(count, (vec!["B5".to_string()], "W+7.5".to_string()));
    // the players lift the dead stone: the count stays
    b.lift(&["B5"]);
    assert_eq!(b.r.proposed_dead(), [b.p("B5")]);
    b.r.confirm_count(None).unwrap();
    b.drain();
    assert_eq!(b.r.phase(), Phase::Finished);
    let result = b.take_events().into_iter().find_map(|e| match e {
        EventKind::Result {
            winner,
            reason,
            black_points,
            white_points,
            margin_stones,
            re,
        } => Some((
            winner,
            reason,
            black_points,
            white_points,
            margin_stones,
            re,
        )),
        _ => None,
    });
    assert_eq!(
        result,
        Some((
            Some(W),
            "count",
            Some(40.5),
            Some(40.5),
            Some(-3.75),
            "W+7.5".to_string()
        ))
    );
    assert!(b.r.record().to_sgf().contains("RE[W+7.5]"));
}

#[test]
fn a_ko_retake_whose_capture_is_lifted_later_is_one_violation() {
    // Ko at E5/F5: Black F5 takes E5; White retakes at E5 at once, first putting the stone
    // down, then lifting F5 a moment later (two settled boards).
    let mut b = Board::even(9);
    ko_taken(&mut b);
    b.put(&[(W, "E5")]);
    b.lift(&["F5"]);
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("ko_recapture", W, vec!["E5".to_string()])],
        "lifting F5 is part of the invalid retake, not a wrong capture (R18.1)"
    );
    assert_eq!(b.r.warnings(), [0, 1]);
    assert_eq!(b.r.phase(), Phase::Desync);
    let g = b.r.guidance();
    assert_eq!(g.restore, [(b.p("F5"), B)]);
    assert_eq!(g.remove, [b.p("E5")]);
    // put right: play goes on with Black, White's retake a pass
    b.lift(&["E5"]);
    b.put(&[(B, "F5")]);
    assert_eq!(b.r.phase(), Phase::Play);
    assert!(b.r.violations().iter().all(|v| !v.open));
    b.put(&[(B, "A1")]);
    assert_eq!(b.moves()[9..], ["Wpass", "BA1"]);
}

#[test]
fn stones_recorded_provisionally_are_not_guidance_to_lift() {
    let mut b = Board::even(9);
    b.play(&["A2", "J9", "B2", "J8", "C1"]);
    b.put(&[(B, "A1")]);
    assert_eq!(b.r.provisional().len(), 1);
    assert!(b.r.guidance().is_empty(), "{:?}", b.r.guidance());
    assert_eq!(b.r.phase(), Phase::Play);
}

#[test]
fn captures_lifted_on_the_same_board_as_the_reply_are_not_missed() {
    // as above, but C3 goes and White's E5 comes down so close together that one settled
    // board shows both: which came first cannot be told; Black has the benefit of the doubt
    let mut b = Board::even(9);
    b.play(&["C4", "C3", "B3", "G7", "D3", "G6", "C2"]);
    b.take_events();
    b.t += 500;
    b.set("C3", None);
    b.set("E5", Some(W));
    b.settle();
    let ev = b.take_events();
    assert!(violations(&ev).is_empty(), "{ev:?}");
    assert_eq!(b.moves().last().unwrap(), "WE5");
    assert!(b.r.pending().is_empty());
}

#[test]
fn play_goes_on_being_recorded_after_moves_recorded_provisionally() {
    // black A2, B2, C1; White to move; A1 appears (a white throw-in at B1 captured, or Black
    // out of turn), then White plays E5: recorded at once after the provisional moves.
    let mut b = Board::even(9);
    b.play(&["A2", "J9", "B2", "J8", "C1"]);
    b.put(&[(B, "A1")]);
    b.take_events();
    b.put(&[(W, "E5")]);
    let ev = b.take_events();
    assert!(violations(&ev).is_empty(), "{ev:?}");
    assert_eq!(
        b.moves(),
        ["BA2", "WJ9", "BB2", "WJ8", "BC1", "WB1", "BA1", "WE5"]
    );
    assert_eq!(b.r.provisional().len(), 1);
    assert_eq!(b.r.provisional()[0].numbers(), 6..=7);
    assert!(b.r.ambiguity().is_none());
}

#[test]
fn presses_while_the_board_is_out_of_step_with_the_record_are_not_judged() {
    // R17.6: the board is put right first. A press made while it shows something else than
    // the record (here a moved stone; after an outage, moves no order explains) cannot be
    // judged "without a stone": it stands, and no warning comes of it.
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.put(&[(B, "G7")]).clock(B);
    b.t += 300;
    b.set("G7", None);
    b.set("G6", Some(B));
    b.settle();
    assert_eq!(b.r.phase(), Phase::Desync);
    b.take_events();
    let warnings = b.r.warnings();
    b.clock(W).clock(B).clock(W);
    let ev = b.take_events();
    assert!(violations(&ev).is_empty(), "{ev:?}");
    assert_eq!(b.r.warnings(), warnings);
}

#[test]
fn stones_played_during_a_pause_and_accepted_go_in_before_the_moves_made_after_the_resume() {
    // R22.8, issue 35: K10 (B) and C10 (W) go down while the referee has the clock stopped;
    // play resumes and R10 (B), C6 (W) follow while the paused stones are still to be ruled
    // on; accepted, the record reads them in the order played: K10, C10, R10, C6.
    let mut b = Board::new(GameSetup::even(19), RefereeConfig::default());
    b.play(&["D4", "Q16"]);
    b.r.pause().unwrap();
    b.put(&[(B, "K10")]);
    b.put(&[(W, "C10")]);
    b.r.resume().unwrap();
    b.drain();
    b.settle();
    let flagged =
        b.r.violations()
            .iter()
            .find(|v| v.code == ViolationCode::PlayedWhilePaused)
            .map(|v| v.id)
            .expect("the stones played during the pause are flagged");
    b.put(&[(B, "R10")]);
    b.put(&[(W, "C6")]);
    assert_eq!(b.moves(), ["BD4", "WQ16", "BR10", "WC6"]);
    b.take_events();
    b.r.resolve(flagged, Ruling::AcceptAsPlayed).unwrap();
    b.drain();
    assert_eq!(b.moves(), ["BD4", "WQ16", "BK10", "WC10", "BR10", "WC6"]);
    let ev = b.take_events();
    // the feed: moves 3 and 4 corrected, 5 and 6 new
    assert_eq!(corrected(&ev), [3, 4]);
    let new: Vec<u32> = ev
        .iter()
        .filter_map(|e| match e {
            EventKind::Move { number, .. } => Some(*number),
            _ => None,
        })
        .collect();
    assert_eq!(new, [5, 6]);
    assert!(b.r.violations().iter().all(|v| !v.open));
    assert_eq!(b.r.phase(), Phase::Play);
    assert_eq!(b.r.game().to_move(), B);
}

#[test]
fn a_stone_brushed_off_and_put_back_is_forgotten_once_a_whole_board_agrees() {
    // W C3 is moved by a hand over a fight and put back: noted as lifted while it is off (its
    // capture may still be explained by a stone under the hand), tried as a new stone while
    // hands are over the board, forgotten once the whole board with no hand shows the record.
    let mut b = Board::even(9);
    b.play(&["E5", "C3", "G7"]);
    b.hands = true;
    b.lift(&["C3"]);
    let c3 = b.p("C3");
    assert_eq!(b.r.lifted_seen, [(c3, W, 3)]);
    b.put(&[(W, "C3")]);
    assert_eq!(
        b.r.lifted_seen,
        [(c3, W, 3)],
        "kept while a hand is over the board: {:?} {:?}",
        b.moves(),
        b.events
    );
    b.hands = false;
    b.settle();
    assert!(b.r.lifted_seen.is_empty(), "{:?}", b.r.lifted_seen);
    assert_eq!(b.moves(), ["BE5", "WC3", "BG7"]);
    // Play goes on with nothing to try again.
    b.play(&["C7"]);
    assert_eq!(b.moves(), ["BE5", "WC3", "BG7", "WC7"]);
    assert!(b.r.lifted_seen.is_empty());
}

#[test]
fn a_stone_recorded_before_an_ambiguous_board_is_in_question_when_a_hand_hid_the_first() {
    // Black C7, White C8, Black D7, White G3, with one hand lingering over C7 from before
    // anything was put down there: D7 is seen alone first and recorded; C7, C8 and G3 come
    // clear together later, in an order the scans cannot give (White's two stones). Nothing
    // says D7 came before C7 — only that it came clear first — so the provisional order covers
    // it too (issue 35: every move exact, or provisional within the stones no sensor ordered).
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.take_events();
    b.hands = true;
    b.t += 500;
    let hand = b.t - 300;
    b.set_since("D7", Some(B), hand);
    b.settle();
    assert_eq!(b.moves(), ["BE5", "WC3", "BD7"]);
    b.hands = false;
    b.t += 500;
    b.set_since("C7", Some(B), hand);
    b.set_since("C8", Some(W), hand + 100);
    b.set_since("G3", Some(W), hand + 100);
    b.settle();
    let ev = b.take_events();
    assert!(violations(&ev).is_empty(), "{ev:?}");
    assert_eq!(b.moves().len(), 6, "{:?}", b.moves());
    let open = b.r.provisional();
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(open[0].numbers(), 3..=6, "{open:?}");
    let c7 = b.p("C7");
    assert!(
        open[0].orders.iter().any(|o| o[0].point == c7),
        "C7 first is one of the orders: {open:?}"
    );
}

#[test]
fn a_provisional_order_reaching_back_past_the_look_back_is_widened_whole() {
    // One hand lingers over Black's corner from the start: every stone comes clear in an order
    // that proves nothing, so the provisional order grows back to move 3 (six moves). Then a
    // black stone that was under the hand all along comes clear with a white reply: it may
    // have been any of Black's moves since, so the order takes in the whole run again rather
    // than leaving the new moves exact after it (REVISE_MOVES alone would split the run).
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.take_events();
    let hand = b.t + 200;
    b.hands = true;
    b.t += 500;
    b.set_since("D7", Some(B), hand);
    b.settle();
    b.t += 500;
    for (c, s) in [(B, "C7"), (W, "C8"), (W, "G3")] {
        b.set_since(s, Some(c), hand);
    }
    b.settle();
    b.t += 500;
    for (c, s) in [(B, "F7"), (W, "F3")] {
        b.set_since(s, Some(c), hand);
    }
    b.settle();
    assert_eq!(b.moves().len(), 8, "{:?}", b.moves());
    assert_eq!(b.r.provisional().len(), 1, "{:?}", b.r.provisional());
    assert_eq!(b.r.provisional()[0].numbers(), 3..=8);
    b.hands = false;
    b.t += 500;
    for (c, s) in [(B, "B8"), (W, "H8")] {
        b.set_since(s, Some(c), hand);
    }
    b.settle();
    let ev = b.take_events();
    assert!(violations(&ev).is_empty(), "{ev:?}");
    assert_eq!(b.moves().len(), 10, "{:?}", b.moves());
    let open = b.r.provisional();
    assert_eq!(open.len(), 1, "{open:?}");
    assert_eq!(open[0].numbers(), 3..=10);
    // B8 earlier than move 9 is one of the orders
    let b8 = b.p("B8");
    assert!(open[0]
        .orders
        .iter()
        .any(|o| o.iter().position(|s| s.point == b8) < Some(6)));
}
