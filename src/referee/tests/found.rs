//! The board as found (issue 14): at the start of a game and after an outage whose history is
//! lost, nothing the referee did not see come about is repaired automatically — the LEDs show
//! it, the referee decides (`unexplained_board`, R17.6), nobody is warned.

use super::*;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

impl Board {
    /// A new game whose first board already shows `stones` (left from another game, or put
    /// down before the game began).
    fn found(setup: GameSetup, stones: &[(Color, Point)]) -> Board {
        let size = setup.size();
        let n = usize::from(size) * usize::from(size);
        let mut b = Board {
            r: Referee::new(&setup, RefereeConfig::default()).unwrap(),
            grid: StoneGrid::empty(size),
            times: vec![PointTimes::default(); n],
            t: 0,
            events: Vec::new(),
            hands: false,
            touched: Vec::new(),
        };
        for &(c, p) in stones {
            b.grid.set(p, Some(c));
        }
        b.settle();
        b
    }

    fn put_at(&mut self, c: Color, p: Point) -> &mut Self {
        let s = p.to_gtp(self.grid.size());
        self.put(&[(c, &s)])
    }

    fn lift_at(&mut self, points: &[Point]) -> &mut Self {
        let size = self.grid.size();
        let names: Vec<String> = points.iter().map(|p| p.to_gtp(size)).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        self.lift(&names)
    }

    fn warnings(events: &[EventKind]) -> usize {
        count(events, |e| matches!(e, EventKind::Warning { .. }))
    }
}

/// A legal move for the side to move on an empty point of the sensed board that captures
/// nothing (so that no stone is to lift), if one is found.
fn quiet_move(b: &Board, rng: &mut ChaCha8Rng) -> Option<Point> {
    let size = b.grid.size();
    let colour = b.r.game().to_move();
    for _ in 0..400 {
        let p = Point::new(rng.random_range(0..size), rng.random_range(0..size));
        if b.grid.get(p).is_some() {
            continue;
        }
        if let Ok(preview) = b.r.game().preview(colour, p) {
            if preview.captured.is_empty() {
                return Some(p);
            }
        }
    }
    None
}

fn random_stones(rng: &mut ChaCha8Rng, size: u8, n: usize) -> Vec<(Color, Point)> {
    let mut points: Vec<Point> = (0..size)
        .flat_map(|x| (0..size).map(move |y| Point::new(x, y)))
        .collect();
    points.shuffle(rng);
    points
        .into_iter()
        .take(n)
        .map(|p| (if rng.random_bool(0.5) { B } else { W }, p))
        .collect()
}

#[test]
fn stones_found_at_the_start_are_no_moves_and_are_shown_until_lifted() {
    // Any leftovers — of both colours, a white stone with no liberties in the corner — while
    // the players start: the moves are recorded as played, the leftovers never.
    for seed in 0..24 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let size = [9, 13, 19][seed as usize % 3];
        let n = rng.random_range(1..40);
        let mut left = random_stones(&mut rng, size, n);
        let corner = [
            (W, Point::from_gtp("A1", size).unwrap()),
            (B, Point::from_gtp("A2", size).unwrap()),
            (B, Point::from_gtp("B1", size).unwrap()),
        ];
        left.retain(|(_, p)| !corner.iter().any(|(_, q)| q == p));
        left.extend(corner);
        let mut b = Board::found(GameSetup::even(size), &left);
        let ev = b.take_events();
        assert!(violations(&ev).is_empty(), "seed {seed}: {ev:?}");
        assert_eq!(b.r.phase(), Phase::Setup, "seed {seed}");
        assert!(b.r.record().moves.is_empty(), "seed {seed}");
        let mut shown = b.r.guidance().remove.clone();
        shown.sort_by_key(|p| p.index(size));
        let mut expected: Vec<Point> = left.iter().map(|&(_, p)| p).collect();
        expected.sort_by_key(|p| p.index(size));
        assert_eq!(shown, expected, "seed {seed}: every stone found is to lift");
        // The players play while lifting the leftovers a few at a time, in any order.
        left.shuffle(&mut rng);
        let mut played = Vec::new();
        let mut to_lift: Vec<Point> = left.iter().map(|&(_, p)| p).collect();
        while !to_lift.is_empty() || played.len() < 12 {
            if !to_lift.is_empty() && rng.random_bool(0.5) {
                let k = rng.random_range(1..=to_lift.len().min(5));
                let some: Vec<Point> = to_lift.drain(..k).collect();
                b.lift_at(&some);
            } else if let Some(p) = quiet_move(&b, &mut rng) {
                let c = b.r.game().to_move();
                played.push(format!("{}{}", c.sgf_letter(), p.to_gtp(size)));
                b.put_at(c, p);
            }
        }
        let ev = b.take_events();
        assert!(
            violations(&ev).is_empty(),
            "seed {seed}: {:?}",
            violations(&ev)
        );
        assert_eq!(Board::warnings(&ev), 0, "seed {seed}");
        assert_eq!(b.moves(), played, "seed {seed}");
        assert_eq!(b.r.phase(), Phase::Play, "seed {seed}");
        assert!(b.r.guidance().is_empty(), "seed {seed}");
    }
}

#[test]
fn setup_stones_missing_at_the_start_are_shown_to_put_down() {
    // A two-stone handicap whose Q16 is missing and a stray white stone on K10.
    let setup = GameSetup {
        setup: vec![
            (B, Point::from_gtp("D4", 19).unwrap()),
            (B, Point::from_gtp("Q16", 19).unwrap()),
        ],
        first_to_move: W,
        ..GameSetup::even(19)
    };
    let d4 = Point::from_gtp("D4", 19).unwrap();
    let k10 = Point::from_gtp("K10", 19).unwrap();
    let q16 = Point::from_gtp("Q16", 19).unwrap();
    let mut b = Board::found(setup, &[(B, d4), (W, k10)]);
    assert_eq!(b.r.phase(), Phase::Setup);
    assert_eq!(b.r.guidance().restore, [(q16, B)]);
    assert_eq!(b.r.guidance().remove, [k10]);
    b.lift(&["K10"]).put(&[(B, "Q16")]);
    assert_eq!(b.r.phase(), Phase::Play);
    b.play(&["Q4", "C16"]);
    assert_eq!(b.moves(), ["WQ4", "BC16"]);
    assert!(violations(&b.take_events()).is_empty());
}

/// Eight moves on 9×9 — Black C3, D4, C5, B4 around an eye at C4; White G7, G6, F7, H3 — then
/// the board goes away and its history is lost.
fn after_an_outage() -> Board {
    let mut b = Board::even(9);
    // black C3, D4, C5, B4 around the empty C4 (an eye); white G7, G6, F7, H3
    b.play(&["C3", "G7", "D4", "G6", "C5", "F7", "B4", "H3"]);
    b.take_events();
    b.r.board_unknown("the board restarted while the host was away");
    b
}

#[test]
fn legal_moves_found_after_an_outage_are_recorded() {
    let mut b = after_an_outage();
    b.put(&[(B, "E5"), (W, "E7")]);
    assert_eq!(&b.moves()[8..], ["BE5", "WE7"]);
    let ev = b.take_events();
    assert!(violations(&ev).is_empty(), "{ev:?}");
}

/// Issue 35 (the physical fuzzer, `010001717` seed 1): Black's stone, recorded and not yet
/// committed, slides to the next point just before the board restarts; the board as found
/// shows it there. The record's last move misread explains it: recorded where it lies, the
/// referee told with a notice, play goes on — no `unexplained_board` holding the game.
#[test]
fn a_stone_that_slid_just_before_an_outage_is_recorded_where_it_lies() {
    let mut b = Board::even(9);
    b.play(&["C3", "G7", "D4", "G6", "C5", "F7", "B4", "H3"]);
    b.put(&[(B, "E5")]);
    assert_eq!(b.moves()[8], "BE5");
    b.take_events();
    b.r.board_unknown("the board restarted while the host was away");
    b.t += 500;
    b.set("E5", None);
    b.set("E6", Some(B));
    b.settle();
    let ev = b.take_events();
    assert_eq!(&b.moves()[8..], ["BE6"], "{ev:?}");
    assert_eq!(
        violations(&ev),
        [("unexplained_board", B, vec!["E6".to_string()])]
    );
    assert!(ev
        .iter()
        .all(|e| !matches!(e, EventKind::Violation { penalty, .. } if *penalty != "notice")));
    assert_eq!(b.r.phase(), Phase::Play);
    b.put(&[(W, "A9")]);
    assert_eq!(&b.moves()[8..], ["BE6", "WA9"], "play goes on");
}

#[test]
fn a_stone_with_no_liberties_found_after_an_outage_is_for_the_referee() {
    // A white stone in Black's eye at C4: suicide; in play it would be White's forbidden
    // point, after an outage nobody knows who put it there.
    let mut b = after_an_outage();
    b.put(&[(W, "C4")]);
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("unexplained_board", B, vec!["C4".to_string()])]
    );
    assert_eq!(Board::warnings(&ev), 0);
    assert_eq!(b.moves().len(), 8, "nothing recorded");
    assert_eq!(b.r.phase(), Phase::Desync);
    assert_eq!(b.r.guidance().remove, [b.p("C4")]);
    let id = b.r.violations().last().unwrap().id;
    assert!(matches!(
        b.r.resolve(id, Ruling::AcceptAsPlayed),
        Err(CommandError::CannotAccept(..))
    ));
    // lifted: the board is the record's again, play goes on
    b.lift(&["C4"]);
    let ev = b.take_events();
    assert!(ev.iter().any(|e| matches!(
        e,
        EventKind::ViolationResolved { id: i, how } if *i == id && how == "board_restored"
    )));
    assert_eq!(b.r.phase(), Phase::Play);
    b.play(&["E5"]);
    assert_eq!(b.moves().last().unwrap(), "BE5");
    // the same stone in play is White's forbidden point (G5, R19): the outage is what differs
    let mut c = Board::even(9);
    c.play(&["C3", "G7", "D4", "G6", "C5", "F7", "B4", "H3", "E5"]);
    c.take_events();
    c.put(&[(W, "C4")]);
    assert_eq!(
        violations(&c.take_events())
            .iter()
            .map(|v| v.0)
            .collect::<Vec<_>>(),
        ["forbidden_point"]
    );
}

#[test]
fn stones_of_both_colours_and_stones_missing_after_an_outage_are_for_the_referee() {
    // Two black stones and a white one where the record has none, and Black's C3 gone: no
    // order of legal moves explains it.
    let mut b = after_an_outage();
    b.t += 500;
    for (c, s) in [(B, "E5"), (B, "E3"), (W, "E7")] {
        b.set(s, Some(c));
    }
    b.set("C3", None);
    b.settle();
    let ev = b.take_events();
    let v = violations(&ev);
    assert_eq!(v.len(), 1, "{ev:?}");
    assert_eq!(v[0].0, "unexplained_board");
    let mut points = v[0].2.clone();
    points.sort();
    assert_eq!(points, ["C3", "E3", "E5", "E7"]);
    assert_eq!(Board::warnings(&ev), 0);
    assert_eq!(b.moves().len(), 8);
    let g = b.r.guidance();
    assert_eq!(g.restore, [(b.p("C3"), B)]);
    assert_eq!(g.remove.len(), 3);
    // put back in two steps, with White's and Black's stones lifted in any order
    b.lift(&["E7", "E5"]).put(&[(B, "C3")]).lift(&["E3"]);
    let ev = b.take_events();
    assert_eq!(violations(&ev).len(), 0);
    assert!(b.r.violations().iter().all(|v| !v.open));
    assert_eq!(b.r.phase(), Phase::Play);
    assert_eq!(b.moves().len(), 8);
}

#[test]
fn many_stones_found_after_an_outage_are_recorded_in_one_order_provisionally_and_play_goes_on() {
    // a quick exchange of seven moves each while the board's history was lost: more stones
    // than any search of every order takes, none told apart — one order that explains them is
    // recorded provisionally (never a board held for the rest of the game, issue 35)
    let mut b = Board::even(19);
    b.play(&["Q16", "D4"]);
    b.take_events();
    b.r.board_unknown("the board restarted while the host was away");
    put_quick_exchange(&mut b);
    let ev = b.take_events();
    assert_quick_exchange_recorded_provisionally(&b, &ev);
    // the referee is told, nobody is charged, nothing is to put right
    let notices: Vec<&EventKind> = ev
        .iter()
        .filter(|e| {
            matches!(
                e,
                EventKind::Violation {
                    code: "unexplained_board",
                    penalty: "notice",
                    ..
                }
            )
        })
        .collect();
    assert_eq!(notices.len(), 1, "{ev:?}");
    assert!(format!("{notices:?}").contains("14 stones were put down meanwhile"));
    assert_eq!(Board::warnings(&ev), 0);
    assert_eq!(b.r.phase(), Phase::Play);
    assert!(b.r.guidance().remove.is_empty());
    // and the next move is recorded as it comes
    b.play(&["R16"]);
    assert_eq!(b.moves().last().unwrap(), "BR16");
}

/// The resolution events of violation `id` in `events`: how each closed.
fn resolved(events: &[EventKind], id: u32) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::ViolationResolved { id: i, how } if *i == id => Some(how.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_board_after_an_outage_that_moves_did_not_explain_is_looked_at_again_and_play_goes_on() {
    // Issue 35 (the physical fuzzer, YM_075 seed 2): Black E5, White E7, Black E3, White G3
    // while the board's history was lost — and as the board is first judged, Black's E3 is
    // still in the player's hand: two white stones for one black with Black to move, which no
    // line of legal moves explains. The referee is told and the LEDs show the record's
    // position; once the stone shows, the board is looked at again as found: the four moves
    // are recorded and the violation closes as `explained` — nobody has to take four stones
    // off and play them again, and the record does not stop for the rest of the game.
    let mut b = after_an_outage();
    let hand_from = b.t + 500; // put's time
    b.put(&[(B, "E5"), (W, "E7"), (W, "G3")]);
    let ev = b.take_events();
    assert_eq!(violations(&ev).len(), 1, "{ev:?}");
    assert_eq!(violations(&ev)[0].0, "unexplained_board");
    assert_eq!(Board::warnings(&ev), 0);
    assert_eq!(b.moves().len(), 8, "nothing recorded yet");
    assert_eq!(b.r.phase(), Phase::Desync);
    let id = b.r.violations().last().unwrap().id;
    // the hand over E3 since before the board came up leaves
    b.t += 500;
    b.set_since("E3", Some(B), hand_from);
    b.settle();
    let ev = b.take_events();
    let mut got = b.moves()[8..].to_vec();
    got.sort();
    assert_eq!(got, ["BE3", "BE5", "WE7", "WG3"], "{ev:?}");
    assert!(b.moves()[8..].iter().step_by(2).all(|m| m.starts_with('B')));
    assert_eq!(resolved(&ev, id), ["explained"]);
    assert_eq!(Board::warnings(&ev), 0);
    assert_eq!(b.r.phase(), Phase::Play);
    assert!(b.r.guidance().is_empty());
    b.put(&[(B, "A9")]);
    assert_eq!(b.moves().last().unwrap(), "BA9", "play goes on");
}

#[test]
fn a_throw_in_placed_and_captured_while_the_history_was_lost_is_in_the_line_recorded() {
    // Issue 35 (the physical fuzzer): Black E5, White A2, Black's throw-in A1, White B1
    // capturing it, all while the board's history was lost; the board as found shows one black
    // stone for two white ones, Black to move. Black's missing stone was captured again where
    // every neighbour is White's: one line with the throw-in there is recorded provisionally
    // — four moves, the capture in it — and play goes on, the referee told (a notice).
    let mut b = after_an_outage();
    b.put(&[(B, "E5"), (W, "A2"), (W, "B1")]);
    let ev = b.take_events();
    let moves = b.moves()[8..].to_vec();
    assert_eq!(moves.len(), 4, "{ev:?}");
    assert!(moves.contains(&"BA1".to_string()), "{moves:?}");
    assert!(moves.iter().step_by(2).all(|m| m.starts_with('B')));
    let mut stones: Vec<&String> = moves.iter().filter(|m| *m != "BA1").collect();
    stones.sort();
    assert_eq!(stones, ["BE5", "WA2", "WB1"]);
    assert_eq!(
        violations(&ev),
        [(
            "unexplained_board",
            B,
            moves.iter().map(|m| m[1..].to_string()).collect()
        )]
    );
    assert!(ev
        .iter()
        .all(|e| !matches!(e, EventKind::Violation { penalty, .. } if *penalty != "notice")));
    assert_eq!(Board::warnings(&ev), 0);
    assert_eq!(b.r.phase(), Phase::Play);
    b.put(&[(B, "J9")]);
    assert_eq!(b.moves().last().unwrap(), "BJ9", "play goes on");
}

#[test]
fn a_board_out_of_step_with_the_record_for_good_is_explained_by_one_line_and_play_goes_on() {
    // Issue 35 (the physical fuzzer, DANGHU04 and 6-Kifuwarabe-Ray seed 2): in play, the
    // board shows more new stones than any search of every order takes — seven moves each, the
    // service stalled — and nothing explains it or is flagged: the LEDs ask to lift them all,
    // and the record stood still for the rest of the game. Once the board has stayed so for
    // STUCK_MS with stones put down, one line that explains it is recorded provisionally, the
    // referee told with a notice, and play goes on.
    let mut b = Board::even(19);
    b.play(&["Q16", "D4"]);
    b.take_events();
    put_quick_exchange(&mut b);
    let ev = b.take_events();
    assert_eq!(b.moves().len(), 2, "{ev:?}");
    assert!(violations(&ev).is_empty(), "{ev:?}");
    assert_eq!(b.r.phase(), Phase::Desync);
    // not yet: the players may still be putting the board right
    b.wait(super::super::stuck::STUCK_MS / 2).settle();
    assert_eq!(b.moves().len(), 2);
    b.wait(super::super::stuck::STUCK_MS).settle();
    let ev = b.take_events();
    assert_quick_exchange_recorded_provisionally(&b, &ev);
    assert_only_an_unexplained_board_notice(&ev);
    assert_eq!(Board::warnings(&ev), 0);
    assert_eq!(b.r.phase(), Phase::Play);
    b.play(&["R16"]);
    assert_eq!(b.moves().last().unwrap(), "BR16", "play goes on");
}

/// Changes `points` on the board at once (a stone, or `None` for an empty point) and lets it
/// settle: no line explains the board, so the record stays as it was and nothing is flagged
/// yet (the players may still be putting the board right).
fn put_at_once_out_of_step(b: &mut Board, points: &[(&str, Option<Color>)]) {
    let recorded = b.moves().len();
    b.t += 500;
    for &(s, c) in points {
        b.set(s, c);
    }
    b.settle();
    let ev = b.take_events();
    assert_eq!(b.moves().len(), recorded, "{ev:?}");
    assert!(violations(&ev).is_empty(), "{ev:?}");
}

#[test]
fn a_board_out_of_step_by_a_move_nobody_saw_is_recorded_with_a_pass_and_play_goes_on() {
    // Issue 35 (the physical fuzzer, 杀人执照 seed 2: a throw-in placed and captured under the
    // hands long before; AlphaGo Zero's Game_017: a pass with no clock to press): the record's
    // side to move is wrong, so no line of the stones since alternates from it, however far
    // the record is looked back over. Black to move after B Q16, W D4; White Q10 and C10 and
    // Black R10 come down together. Once stuck for STUCK_MS, the side to move is taken to
    // have made a move nobody saw: a pass (it owes no press, its comment says so), then the
    // stones in one order, provisionally, the referee told — and play goes on.
    let mut b = Board::even(19);
    b.play(&["Q16", "D4"]);
    b.take_events();
    put_at_once_out_of_step(
        &mut b,
        &[("Q10", Some(W)), ("R10", Some(B)), ("C10", Some(W))],
    );
    assert_eq!(b.r.phase(), Phase::Desync);
    b.wait(super::super::stuck::STUCK_MS).settle();
    let ev = b.take_events();
    let moves = b.moves();
    assert_eq!(moves.len(), 6, "{ev:?}");
    assert_eq!(moves[2], "Bpass");
    assert_eq!(moves[4], "BR10");
    let mut white = [moves[3].clone(), moves[5].clone()];
    white.sort();
    assert_eq!(white, ["WC10", "WQ10"]);
    assert!(
        ev.contains(&EventKind::MoveCorrected {
            number: 3,
            color: B,
            point: None
        }) || ev.contains(&EventKind::Pass {
            color: B,
            number: 3
        })
    );
    let comment = b.r.record().moves[2].comment.clone().unwrap_or_default();
    assert!(comment.contains("a move nobody saw"), "{comment}");
    assert_eq!(provisional_numbers(&b), [4..=6]);
    assert_only_an_unexplained_board_notice(&ev);
    assert_eq!(b.r.phase(), Phase::Play);
    b.play(&["R16"]);
    assert_eq!(b.moves().last().unwrap(), "BR16", "play goes on");
}

#[test]
fn a_record_stone_gone_that_nothing_captures_is_kept_and_the_moves_since_are_recorded() {
    // Issue 35 (the physical fuzzer, 2018.07.12 秋天的老虎 seed 1, no clock: a ko fight
    // under the hands, a stone captured by moves the board never saw): the record's White D4
    // is gone from the board and no line of the stones put down since captures it; the record
    // stood still for the rest of the game. Once stuck for STUCK_MS, D4 is kept in the record,
    // the stones since are recorded, and the referee gets a notice whose fix asks for D4 back.
    let mut b = Board::even(19);
    b.play(&["Q16", "D4", "Q4", "D16"]);
    b.take_events();
    put_at_once_out_of_step(
        &mut b,
        &[
            ("D4", None),
            ("R10", Some(B)),
            ("C10", Some(W)),
            ("K10", Some(B)),
        ],
    );
    b.wait(super::super::stuck::STUCK_MS).settle();
    let ev = b.take_events();
    let moves = b.moves();
    assert_eq!(moves.len(), 7, "{ev:?}");
    assert_eq!(moves[..4], ["BQ16", "WD4", "BQ4", "WD16"]);
    assert_eq!(moves[5], "WC10");
    let mut black = [moves[4].clone(), moves[6].clone()];
    black.sort();
    assert_eq!(black, ["BK10", "BR10"]);
    // told twice, charged nothing: the order of the stones since, and the stone to put back
    let v = violations(&ev);
    assert_eq!(v.len(), 2, "{ev:?}");
    assert!(v.iter().all(|v| v.0 == "unexplained_board"), "{ev:?}");
    assert_eq!(v[1].2, ["D4"]);
    assert!(ev
        .iter()
        .all(|e| !matches!(e, EventKind::Violation { penalty, .. } if *penalty != "notice")));
    let gone =
        b.r.violations()
            .iter()
            .find(|v| v.open && !v.fix.is_empty());
    assert_eq!(
        gone.map(|v| v.fix.restore.clone()),
        Some(vec![(b.p("D4"), W)]),
        "{ev:?}"
    );
    let id = gone.map(|v| v.id).unwrap();
    // play goes on while D4 is away, and putting it back closes the notice
    b.play(&["C4"]);
    assert_eq!(b.moves().last().unwrap(), "WC4", "{:?}", b.take_events());
    b.put(&[(W, "D4")]);
    let ev = b.take_events();
    assert_eq!(resolved(&ev, id), ["board_restored"]);
    assert_eq!(b.moves().len(), 8, "{ev:?}");
    assert_eq!(b.r.phase(), Phase::Play);
}

#[test]
fn stones_lifted_as_the_leds_show_after_an_unexplained_board_are_no_moves() {
    // After an outage, White E5 and E3 and Black E7 with Black to move: no line of legal
    // moves explains them (`unexplained_board`, the LEDs show all three to lift). The players
    // lift them one at a time; what is left on the way — White E5 and Black E7, a legal pair —
    // is what they are lifting, not moves, even though the board is looked at again as it
    // changes.
    let mut b = after_an_outage();
    b.put(&[(W, "E5"), (W, "E3"), (B, "E7")]);
    let ev = b.take_events();
    assert_eq!(violations(&ev).len(), 1, "{ev:?}");
    assert_eq!(violations(&ev)[0].0, "unexplained_board");
    let id = b.r.violations().last().unwrap().id;
    b.lift(&["E3"]);
    assert_eq!(b.moves().len(), 8, "{:?}", b.take_events());
    b.lift(&["E5"]).lift(&["E7"]);
    let ev = b.take_events();
    assert_eq!(b.moves().len(), 8, "{ev:?}");
    assert_eq!(resolved(&ev, id), ["board_restored"]);
    assert_eq!(b.r.phase(), Phase::Play);
}

/// The quick exchange of seven moves each that the outage tests put down at once after B Q16,
/// W D4 (more stones than any search of every order takes).
const QUICK_BLACK: [&str; 7] = ["Q4", "C16", "R10", "K10", "C10", "K17", "K3"];
const QUICK_WHITE: [&str; 7] = ["D16", "Q10", "F3", "O3", "F17", "O17", "H10"];

/// Puts [`QUICK_BLACK`] and [`QUICK_WHITE`] down 500 ms later, pair by pair, and lets the
/// board settle.
fn put_quick_exchange(b: &mut Board) {
    b.t += 500;
    for (bs, ws) in QUICK_BLACK.iter().zip(&QUICK_WHITE) {
        b.set(bs, Some(B));
        b.set(ws, Some(W));
    }
    b.settle();
}

/// The record holds the two opening moves and then exactly the quick exchange's fourteen
/// stones, colours alternating from Black, and moves 3–16 are provisional.
fn assert_quick_exchange_recorded_provisionally(b: &Board, ev: &[EventKind]) {
    let moves = b.moves();
    assert_eq!(moves.len(), 16, "{ev:?}");
    let mut got: Vec<String> = moves[2..].to_vec();
    got.sort();
    let mut put: Vec<String> = QUICK_BLACK.iter().map(|s| format!("B{s}")).collect();
    put.extend(QUICK_WHITE.iter().map(|s| format!("W{s}")));
    put.sort();
    assert_eq!(got, put);
    assert!(moves[2..].iter().step_by(2).all(|m| m.starts_with('B')));
    assert_eq!(provisional_numbers(b), [3..=16]);
}

/// The numbers of the moves recorded provisionally, one range per ambiguity.
fn provisional_numbers(b: &Board) -> Vec<std::ops::RangeInclusive<u32>> {
    b.r.provisional().iter().map(|p| p.numbers()).collect()
}

/// The only violation among `ev` is one `unexplained_board`, and every violation among them
/// is a notice: the referee is told, nobody is charged.
fn assert_only_an_unexplained_board_notice(ev: &[EventKind]) {
    let v = violations(ev);
    assert_eq!(v.len(), 1, "{ev:?}");
    assert_eq!(v[0].0, "unexplained_board");
    assert!(ev
        .iter()
        .all(|e| !matches!(e, EventKind::Violation { penalty, .. } if *penalty != "notice")));
}
