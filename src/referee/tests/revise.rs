//! Looking back before flagging (issue 35, [`crate::referee`]'s `revise`): boards the record
//! explains only with a violation, that the record's last moves misread explain without one —
//! a stone that slid under the finger before its move was committed, a stone nobody saw.

use super::*;

/// Issue 35 (the physical fuzzer): a stone recorded, not yet committed, that slid under the
/// finger to the next point, whose point the opponent then took under a hand (the board never
/// showed it empty), is recorded as it lies — the slid stone's point, then the reply — with no
/// penalty; once committed the same slide is a `moved_stone` (the test above) or a `takeback`.
#[test]
fn a_stone_recorded_before_it_slid_and_whose_point_the_reply_took_is_revised() {
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.put(&[(B, "G7")]);
    assert_eq!(b.moves(), ["BE5", "WC3", "BG7"]);
    b.take_events();
    b.t += 500;
    b.set("G6", Some(B));
    b.set("G7", Some(W));
    b.hands = true;
    b.settle();
    let ev = b.take_events();
    assert_eq!(b.moves(), ["BE5", "WC3", "BG6", "WG7"], "{ev:?}");
    assert!(ev
        .iter()
        .all(|e| !matches!(e, EventKind::Violation { penalty, .. } if *penalty != "notice")));
    assert!(!ev.iter().any(|e| matches!(e, EventKind::Warning { .. })));
    assert_eq!(b.r.phase(), Phase::Play);
}

/// Issue 35 (the physical fuzzer): the same slide under the finger, seen on its new point
/// before the press that committed the move — the press commits the stone where it lies — is
/// the move adjusted, even when the board is next judged only after the reply took the old
/// point under a hand; seen there only after the press, it is no revision (a committed stone
/// moved, R17.5).
#[test]
fn a_stone_that_slid_before_the_press_is_recorded_where_it_lay_at_the_press() {
    let slid = |before_press: bool| {
        let mut b = Board::even(9);
        b.play(&["E5", "C3"]);
        b.put(&[(B, "G7")]);
        b.take_events();
        b.t += 300;
        if !before_press {
            b.clock(B);
            b.t += 100;
        }
        // hands over G7 since: the referee is not shown a board until the reply is down
        b.set("G7", None);
        b.set("G6", Some(B));
        if before_press {
            b.t += 100;
            b.clock(B);
        }
        b.t += 500;
        b.set("G7", Some(W));
        b.hands = true;
        b.settle();
        b
    };
    let mut b = slid(true);
    let ev = b.take_events();
    assert_eq!(b.moves(), ["BE5", "WC3", "BG6", "WG7"], "{ev:?}");
    assert!(ev
        .iter()
        .all(|e| !matches!(e, EventKind::Violation { penalty, .. } if *penalty != "notice")));
    assert_eq!(b.r.warnings(), [0, 0]);
    assert_eq!(b.r.phase(), Phase::Play);
    let mut b = slid(false);
    let ev = b.take_events();
    assert_eq!(b.moves()[..3], ["BE5", "WC3", "BG7"], "{ev:?}");
}

/// Issue 35 (the physical fuzzer, `63948266` seed 1 with a clock): Black's stone slides from
/// G7 to G6 under the hand that then stays over both points until after the press; the board
/// saw G7 left before the press and G6 down only after it. Nothing proves the slide came after
/// the press: the move is recorded where the stone lies, with a notice and no violation. A
/// stone the board saw still on its point after the press and moved later is a `moved_stone`.
#[test]
fn a_slide_hidden_by_the_hand_until_after_the_press_is_no_moved_stone() {
    let slid = |left_before_press: bool| {
        let mut b = Board::even(9);
        b.play(&["E5", "C3"]);
        b.put(&[(B, "G7")]);
        b.take_events();
        b.t += 300;
        if !left_before_press {
            b.clock(B);
            b.t += 100;
        }
        // the hand arrives over G7 (and G6): G7 stops reading the stone
        let left = b.t;
        if left_before_press {
            b.t += 100;
            b.clock(B);
        }
        // the hand leaves after the press: G7 empty and G6's stone seen only now
        b.t += 500;
        b.set_since("G7", None, left);
        b.set_since("G6", Some(B), left);
        b.t += 300;
        b.set("G3", Some(W));
        b.settle();
        b
    };
    let mut b = slid(true);
    let ev = b.take_events();
    assert_eq!(b.moves(), ["BE5", "WC3", "BG6", "WG3"], "{ev:?}");
    let notice = ev.iter().find_map(|e| match e {
        EventKind::Violation {
            code,
            penalty,
            color,
            ..
        } => Some((*code, *penalty, *color)),
        _ => None,
    });
    assert_eq!(
        notice,
        Some((ViolationCode::MovedStone.as_str(), "notice", B)),
        "the referee is told, nobody is charged: {ev:?}"
    );
    assert_eq!(b.r.warnings(), [0, 0]);
    assert_eq!(b.r.phase(), Phase::Play);
    let mut b = slid(false);
    let ev = b.take_events();
    assert_eq!(b.moves()[..3], ["BE5", "WC3", "BG7"], "{ev:?}");
    assert!(
        ev.iter().any(|e| matches!(
            e,
            EventKind::Violation { code, penalty, .. } if *code == "moved_stone" && *penalty != "notice"
        )),
        "{ev:?}"
    );
}

/// Issue 35 (the physical fuzzer, `jst29` seed 1): Black's G7 goes down under a hand, White
/// answers at G3, Black plays C7 and the stone slides to C6 under the finger. The board saw
/// C7 and G3 at once (recorded C7, G3: Black's turn) and G7 only with the slide. The slid
/// stone was never committed (no press, nothing after it): the record becomes G7, G3, C6
/// with a notice, and no `moved_stone` desyncs the rest of the game.
#[test]
fn a_stone_recorded_before_a_hidden_one_that_slid_afterwards_is_the_last_move_revised() {
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.take_events();
    let hidden_from = b.t + 100;
    b.t += 500;
    b.set("C7", Some(B));
    b.set("G3", Some(W));
    b.settle();
    assert_eq!(b.moves(), ["BE5", "WC3", "BC7", "WG3"]);
    b.take_events();
    let slid_at = b.t + 100;
    b.t += 600;
    b.set_since("G7", Some(B), hidden_from);
    b.set_since("C7", None, slid_at);
    b.set_since("C6", Some(B), slid_at);
    b.settle();
    let ev = b.take_events();
    assert_eq!(b.moves(), ["BE5", "WC3", "BG7", "WG3", "BC6"], "{ev:?}");
    assert!(
        ev.iter()
            .all(|e| !matches!(e, EventKind::Violation { penalty, .. } if *penalty != "notice")),
        "{ev:?}"
    );
    assert_eq!(b.r.phase(), Phase::Play);
    b.put(&[(W, "A9")]);
    assert_eq!(b.moves().len(), 6, "play goes on");
}

/// Issue 35 (the physical fuzzer, a ko fought under hands): Black captures two white stones;
/// under the same hands White puts a stone on one of their points, Black captures it from the
/// other, White plays elsewhere and Black fills the first point. The board shows two new
/// black stones and one white: only a white stone nobody saw, on a point whose stone was
/// captured, explains it — recorded provisionally (which of the two points it took no scan
/// tells) with no penalty, and play goes on.
#[test]
fn a_stone_nobody_saw_on_the_point_of_a_captured_stone_explains_a_ko_fought_under_hands() {
    let mut b = Board::even(9);
    b.play(&[
        "D5", "E5", "D4", "E4", "F5", "A1", "F4", "A2", "E6", "A3", "E3",
    ]);
    b.lift(&["E5", "E4"]);
    assert_eq!(b.r.game().captures(B), 2);
    b.take_events();
    b.hands = true;
    b.touched = vec![0; 81];
    for s in ["E5", "E4"] {
        let i = b.p(s).index(9);
        b.touched[i] = b.t + 300;
    }
    b.put(&[(B, "E4"), (W, "B8"), (B, "E5")]);
    let ev = b.take_events();
    let moves = b.moves();
    assert_eq!(moves.len(), 15, "{ev:?}");
    assert_eq!(moves[13], "WB8");
    let hidden = moves[11].clone();
    assert!(hidden == "WE5" || hidden == "WE4", "{moves:?}");
    assert_eq!(
        moves[14],
        format!("B{}", &hidden[1..]),
        "Black fills the point of the stone nobody saw"
    );
    assert_eq!(b.r.game().captures(B), 3);
    assert!(ev
        .iter()
        .all(|e| !matches!(e, EventKind::Violation { penalty, .. } if *penalty != "notice")));
    assert_eq!(b.r.warnings(), [0, 0]);
    assert_eq!(b.r.phase(), Phase::Play);
    b.hands = false;
    b.play(&["A4"]);
    assert_eq!(b.moves().len(), 16, "play goes on");
}

/// Black E5, White C7, Black G3, White G7 recorded as the board showed them (seen at 700,
/// 1_400, 2_100 and 2_800 ms of the harness's time; a hand over G7 from 2_000 ms); then Black
/// C3 comes clear, whose point a hand disturbed at `c3_left` and which was seen at `c3_seen`
/// (before anything touched G3 when `c3_seen` is early). The referee was shown no board with
/// C3 before.
fn c3_comes_clear_late(c3_left: u64, c3_seen: u64) -> (Board, Vec<EventKind>) {
    let mut b = Board::even(9);
    b.play(&["E5", "C7", "G3", "G7"]);
    assert_eq!(b.moves(), ["BE5", "WC7", "BG3", "WG7"]);
    let g7 = b.p("G7").index(9);
    assert_eq!(b.times[g7].seen_ms, 2_800);
    b.times[g7].left_ms = 2_000;
    b.take_events();
    let c3 = b.p("C3");
    b.grid.set(c3, Some(B));
    b.times[c3.index(9)] = PointTimes {
        left_ms: c3_left,
        seen_ms: c3_seen,
        reread_ms: 0,
    };
    b.settle();
    let ev = b.take_events();
    (b, ev)
}

/// Issue 35 (the physical fuzzer): a stone that lay under a hand while later moves were
/// recorded comes clear; its point was disturbed before the stone of its colour recorded
/// since was seen, so no scan orders the two — the moves are marked provisional (the record's
/// order first, nothing in the feed moves) rather than stated as certain.
#[test]
fn a_stone_that_comes_clear_after_later_moves_makes_their_order_provisional() {
    // C3's point was disturbed at 1_000 ms, the stone seen only now
    let (b, ev) = c3_comes_clear_late(1_000, 3_400);
    assert_eq!(b.moves(), ["BE5", "WC7", "BG3", "WG7", "BC3"], "{ev:?}");
    let provisional = ev.iter().find_map(|e| match e {
        EventKind::Provisional {
            numbers, recorded, ..
        } => Some((numbers.clone(), *recorded)),
        _ => None,
    });
    assert_eq!(provisional, Some((vec![3, 4, 5], 0)), "{ev:?}");
    assert!(!ev.iter().any(|e| matches!(
        e,
        EventKind::MoveCorrected { .. } | EventKind::Violation { .. }
    )));
    // disturbed only after G3 was seen: certainly after it, nothing provisional
    let (b, ev) = c3_comes_clear_late(3_300, 3_400);
    assert_eq!(b.moves(), ["BE5", "WC7", "BG3", "WG7", "BC3"]);
    assert!(
        !ev.iter()
            .any(|e| matches!(e, EventKind::Provisional { .. })),
        "{ev:?}"
    );
}

/// The same stone seen before anything touched G3's point (the board was not judged whole
/// meanwhile): the board's times prove the record's order wrong, and the record takes the
/// order they prove — `move_corrected` for the two changed moves, nobody charged, no notice.
#[test]
fn a_stone_seen_before_a_later_recorded_one_corrects_the_record_order() {
    let (b, ev) = c3_comes_clear_late(1_000, 1_500);
    assert_eq!(b.moves(), ["BE5", "WC7", "BC3", "WG7", "BG3"], "{ev:?}");
    assert_eq!(corrected(&ev), [3, 5], "{ev:?}");
    assert!(!ev
        .iter()
        .any(|e| matches!(e, EventKind::Violation { .. } | EventKind::Warning { .. })));
    assert_eq!(b.r.phase(), Phase::Play);
}

/// Issue 35 (the physical fuzzer, `010001243` seed 2): Black's D2 goes down under hands and
/// White's D1 captures it at once; Black answers at E3, the captured stone is lifted under a
/// hand and White fills D2. The board never saw the black stone: it shows White D1, Black E3,
/// White D2. Only a stone nobody saw on the point White now holds explains it — recorded so,
/// with a notice, and play goes on (it held the rest of the game in `desync`).
#[test]
fn a_stone_nobody_saw_on_a_point_filled_since_explains_a_capture_under_hands() {
    let mut b = Board::even(9);
    b.play(&["E5", "C2", "G7", "E2", "G5", "D3"]);
    b.take_events();
    b.hands = true;
    b.touched = vec![0; 81];
    let d2 = b.p("D2").index(9);
    b.touched[d2] = b.t + 300;
    b.t += 100;
    b.set("D1", Some(W));
    b.t += 100;
    b.set("E3", Some(B));
    b.t += 100;
    b.set("D2", Some(W));
    b.settle();
    let ev = b.take_events();
    assert_eq!(
        b.moves()[6..],
        ["BD2", "WD1", "BE3", "WD2"],
        "{:?} {ev:?}",
        b.moves()
    );
    assert_eq!(b.r.game().captures(W), 1);
    assert!(
        ev.iter()
            .all(|e| !matches!(e, EventKind::Violation { penalty, .. } if *penalty != "notice")),
        "{ev:?}"
    );
    assert_eq!(b.r.phase(), Phase::Play);
    b.hands = false;
    b.put(&[(B, "A9")]);
    assert_eq!(b.moves().len(), 11, "play goes on");
}

/// The slide of an earlier move counts only before a reply answered it: Black's C7 was seen
/// down before White's G3 went down, so a slide of C7 to C6 after Black's next stone is a
/// committed stone moved (`moved_stone`), not a look-back that puts C6 last.
#[test]
fn a_stone_answered_by_the_reply_and_moved_later_is_no_slide() {
    let mut b = Board::even(9);
    b.play(&["E5", "C3"]);
    b.put(&[(B, "C7")]);
    b.put(&[(W, "G3"), (B, "A9")]);
    assert_eq!(b.moves(), ["BE5", "WC3", "BC7", "WG3", "BA9"]);
    b.take_events();
    b.t += 300;
    let left = b.t;
    b.t += 200;
    b.set_since("C7", None, left);
    b.set_since("C6", Some(B), left);
    b.settle();
    let ev = b.take_events();
    assert_eq!(b.moves(), ["BE5", "WC3", "BC7", "WG3", "BA9"], "{ev:?}");
    assert!(
        ev.iter().any(|e| matches!(
            e,
            EventKind::Violation { code, penalty, .. } if *code == "moved_stone" && *penalty != "notice"
        )),
        "{ev:?}"
    );
}

/// Issue 35 (the physical fuzzer, jst52 seeds 1 and 2, move 225): a ko taken and two threats
/// exchanged under hands, in one board. Both orders — the ko taken first, or last — lead to
/// the same position and the scans lean (by less than they can tell) towards the ko taken
/// last, so that order is recorded provisionally. It leaves Black a ko ban (R18.3) the other
/// order does not: when Black retakes the ko, the board tells the orders apart — the retake is
/// legal only after the ko taken first, which the record now takes (`move_corrected`,
/// `provisional_resolved` `told_apart`), with the retake after it and nobody charged.
#[test]
fn a_ko_retaken_after_a_provisional_run_tells_its_orders_apart() {
    let mut b = Board::even(9);
    // the ko: Black E5 inside White's E6, E4, F5; White D5 inside Black's D6, D4, C5
    b.play(&["D6", "E6", "D4", "E4", "C5", "F5", "E5"]);
    b.take_events();
    // White takes the ko at D5 (E5 lifted), Black threatens at H8, White answers at H7: one
    // board; D5 seen a little after the threats (not enough for the scans to order them)
    b.t += 500;
    b.set("H8", Some(B));
    b.set("H7", Some(W));
    let threats = b.t;
    b.t += 40;
    b.set_since("D5", Some(W), threats);
    b.set_since("E5", None, threats);
    b.settle();
    let ev = b.take_events();
    assert_eq!(b.moves()[7..], ["WH7", "BH8", "WD5"], "{ev:?}");
    assert_eq!(b.r.provisional().len(), 1);
    b.take_events();
    // Black retakes the ko at E5 (D5 lifted): legal only after the ko taken first
    b.t += 500;
    b.set("D5", None);
    b.set("E5", Some(B));
    b.settle();
    let ev = b.take_events();
    assert_eq!(b.moves()[7..], ["WD5", "BH8", "WH7", "BE5"], "{ev:?}");
    assert_eq!(corrected(&ev), [8, 10], "{ev:?}");
    assert!(ev.iter().any(|e| matches!(
        e,
        EventKind::ProvisionalResolved { numbers, how } if numbers == &[8, 9, 10] && how == "told_apart"
    )));
    assert!(violations(&ev).is_empty(), "{ev:?}");
    assert!(b.r.provisional().is_empty());
    assert_eq!(b.r.phase(), Phase::Play);
    let comment = b.r.record().moves[7].comment.as_deref().unwrap_or_default();
    assert!(comment.contains("told apart"), "{comment}");
}

/// Issue 35 (the physical fuzzer, jst52 seed 2, moves 225-228): White retakes the ko at D5
/// under a hand that stays over it for seconds; the board sees only Black's E5 lifted. Black
/// threatens at H8, White answers at H7, Black retakes at E5 (legal: R18.3 asks only for a
/// move elsewhere first) and D5 is lifted, still under the hand. The board never saw White's
/// D5, but it saw E5 lifted and put down again: the ko retaken and retaken back explains it —
/// four moves, not the two threats alone (which left the record two moves short for the rest
/// of the game).
#[test]
fn a_ko_retaken_under_a_hand_and_retaken_back_after_threats_is_recorded_whole() {
    let mut b = Board::even(9);
    b.play(&["D6", "E6", "D4", "E4", "C5", "F5", "E5"]);
    b.take_events();
    b.touched = vec![0; 81];
    b.t += 500;
    b.set("E5", None);
    b.glimpse();
    b.t += 500;
    b.set("H8", Some(B));
    b.glimpse();
    b.t += 500;
    b.set("H7", Some(W));
    b.glimpse();
    b.t += 500;
    b.set("E5", Some(B));
    b.t += 300;
    let d5 = b.p("D5").index(9);
    b.touched[d5] = b.t; // the hand leaves D5 with the captured stone
    b.settle();
    let ev = b.take_events();
    assert_eq!(b.moves()[7..], ["WD5", "BH8", "WH7", "BE5"], "{ev:?}");
    assert!(
        b.r.record().moves[7].comment.is_some(),
        "the stone nobody saw is said so"
    );
    assert!(
        !ev.iter().any(|e| matches!(e, EventKind::Warning { .. })),
        "{ev:?}"
    );
    assert_eq!(b.r.phase(), Phase::Play);
    // without a hand over D5 since E5 went down again, nothing says a stone was there
    let mut b = Board::even(9);
    b.play(&["D6", "E6", "D4", "E4", "C5", "F5", "E5"]);
    b.touched = vec![0; 81];
    b.t += 500;
    b.set("E5", None);
    b.glimpse();
    b.t += 500;
    b.set("H8", Some(B));
    b.set("H7", Some(W));
    b.set("E5", Some(B));
    b.settle();
    assert_eq!(b.moves()[7..], ["WH7", "BH8"]);
}

/// Issue 35 (the physical fuzzer, clover77 VS BensonDarr seed 1, moves 174-177): White's G1
/// goes into atari under a hand and Black's G2 captures it at once; White answers at H2 and
/// Black plays elsewhere at A5. The board never saw G1; it saw H2 and G2 together (recorded
/// W H2, B G2 as the colours alternate), then A5: Black twice. Looking back over one move
/// finds B A5, W G1, B G2 (G2 last: A5's point was covered before G2 came clear); looking
/// back over two finds the order the scans make likelier — G2's point was covered before
/// H2's, A5 came clear last — and that line wins.
#[test]
fn a_revision_reaching_further_back_wins_when_the_scans_order_it_better() {
    let mut b = Board::even(9);
    b.play(&["F1", "A9", "H1", "B9", "J5"]);
    b.take_events();
    b.touched = vec![0; 81];
    let g2_covered = b.t + 100;
    b.t += 500;
    b.set("H2", Some(W));
    b.set_since("G2", Some(B), g2_covered);
    b.settle();
    assert_eq!(b.moves()[5..], ["WH2", "BG2"]);
    b.take_events();
    b.t += 500;
    let g1 = b.p("G1").index(9);
    b.touched[g1] = b.t - 300; // the hand over G1 lifting the captured stone
                               // A5's point was covered since before G2 came clear: no scan puts G2 first for certain
    b.set_since("A5", Some(B), g2_covered + 200);
    b.settle();
    let ev = b.take_events();
    assert_eq!(b.moves()[5..], ["WG1", "BG2", "WH2", "BA5"], "{ev:?}");
    assert!(
        !ev.iter().any(|e| matches!(e, EventKind::Warning { .. })),
        "{ev:?}"
    );
    assert_eq!(b.r.phase(), Phase::Play);
}
