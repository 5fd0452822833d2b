use super::*;

const E: Cell = Cell::Empty;
const B: Cell = Cell::Black;
const W: Cell = Cell::White;
const U: Cell = Cell::Uncertain;

fn scan(size: u8, set: &[(usize, Cell)]) -> Vec<Cell> {
    let mut v = vec![E; usize::from(size) * usize::from(size)];
    for &(i, c) in set {
        v[i] = c;
    }
    v
}

/// Feeds `cells` every 20 ms from `t0` for `n` scans; returns the settle reports
/// (time, changed, black count).
fn feed(s: &mut Stabiliser, cells: &[Cell], t0: u64, n: u64) -> Vec<(u64, bool, usize)> {
    (0..n)
        .filter_map(|k| {
            s.push(cells, t0 + 20 * k)
                .map(|st| (st.at_ms, st.changed, st.grid.count(Color::Black)))
        })
        .collect()
}

/// One board handed on: time, complete, the stones on `points`, the times of `points`.
type Report = (u64, bool, Vec<Option<Color>>, Vec<PointTimes>);

/// Feeds a scan script: `(from_ms, cells)` pairs, each cells held until the next pair (scans
/// every 20 ms), up to `end_ms`; returns every board handed on, with the stones and times of
/// `points`.
fn play(
    s: &mut Stabiliser,
    script: &[(u64, Vec<Cell>)],
    end_ms: u64,
    points: &[usize],
) -> Vec<Report> {
    let mut out = Vec::new();
    let mut t = script[0].0;
    while t <= end_ms {
        let cells = &script.iter().rev().find(|(from, _)| *from <= t).unwrap().1;
        if let Some(st) = s.push(cells, t) {
            out.push((
                st.at_ms,
                st.complete,
                points.iter().map(|&i| st.grid.at_index(i)).collect(),
                points.iter().map(|&i| st.times[i]).collect(),
            ));
        }
        t += 20;
    }
    out
}

#[test]
fn first_board_settles_after_settle_time() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    let empty = scan(9, &[]);
    // scans at 0, 20, ..., 140 are not enough; 160 is the first ≥ 150 ms after 0.
    let got = feed(&mut s, &empty, 0, 20);
    assert_eq!(got, vec![(160, true, 0)]);
    assert!(s.is_settled());
}

#[test]
fn single_scan_misread_is_a_transient_not_a_change() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    let empty = scan(9, &[]);
    let glitch = scan(9, &[(40, B)]);
    feed(&mut s, &empty, 0, 10);
    assert!(s.push(&glitch, 200).is_none());
    let got = feed(&mut s, &empty, 220, 10);
    // back to the same board: reported as settled but unchanged
    assert_eq!(got, vec![(380, false, 0)]);
    assert_eq!(s.stats().transients, 1);
    assert_eq!(s.stats().changes, 1);
}

#[test]
fn uncertain_points_hold_the_board_unsettled() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    let covered = scan(9, &[(40, U), (41, U)]);
    // a hand hovering for 1.8 s: nothing settles
    assert!(feed(&mut s, &covered, 0, 90).is_empty());
    let placed = scan(9, &[(40, B)]);
    let got = feed(&mut s, &placed, 1800, 10);
    assert_eq!(got, vec![(1960, true, 1)]);
}

#[test]
fn a_dead_sensor_keeps_its_value_and_does_not_block_the_board() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    let stone_at_3 = scan(9, &[(3, B)]);
    feed(&mut s, &stone_at_3, 0, 10);
    // point 3 goes dead (uncertain) at 200 ms; a stone arrives at 10 at 1000 ms
    let dead = scan(9, &[(3, U)]);
    let dead_and_new = scan(9, &[(3, U), (10, W)]);
    assert!(feed(&mut s, &dead, 200, 40).is_empty());
    let stuck_ms = StabiliserConfig::default().stuck_ms;
    let got = feed(&mut s, &dead_and_new, 1000, stuck_ms / 20 + 50);
    // settles once point 3 has been uncertain for stuck_ms (from 200 ms), keeping its stone
    assert_eq!(got, vec![(200 + stuck_ms, true, 1)]);
    assert_eq!(s.stable().unwrap().at_index(10), Some(Color::White));
    assert_eq!(s.stable().unwrap().at_index(3), Some(Color::Black));
    assert_eq!(s.stuck_points(), vec![Point::from_index(3, 9)]);
}

#[test]
fn bouncing_stone_settles_once_at_its_final_reading_dated_from_its_first_touch() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    let empty = scan(9, &[]);
    let placed = scan(9, &[(10, B)]);
    feed(&mut s, &empty, 0, 10);
    // bounce: black, empty, black, uncertain, black every 20 ms
    let mut t = 200;
    for c in [B, E, B, U] {
        assert!(s.push(&scan(9, &[(10, c)]), t).is_none());
        t += 20;
    }
    let got = feed(&mut s, &placed, t, 10);
    assert_eq!(got, vec![(t + 160, true, 1)]);
    // it went down by its first touch (the scan at 200 already showed it: dated just
    // before), and was seen from the run that held
    assert_eq!(
        s.times()[10],
        PointTimes {
            left_ms: 199,
            seen_ms: t,
            reread_ms: 0,
        }
    );
}

#[test]
fn wrong_length_scan_is_rejected_without_panic() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    assert!(s.push(&[E; 5], 0).is_none());
    assert_eq!(s.stats().rejected, 1);
    assert_eq!(s.stats().scans, 0);
}

#[test]
fn time_going_backwards_does_not_settle_early() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    let empty = scan(9, &[]);
    assert!(s.push(&empty, 1000).is_none());
    assert!(s.push(&empty, 10).is_none());
    assert!(s.push(&empty, 1100).is_none());
    assert!(s.push(&empty, 1150).is_some());
}

#[test]
fn restart_keeps_the_stable_board() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    let placed = scan(9, &[(3, W)]);
    feed(&mut s, &placed, 0, 10);
    s.restart();
    let got = feed(&mut s, &placed, 5000, 10);
    assert_eq!(got, vec![(5160, false, 0)]);
}

/// Issue 35: a board that restarted (its history lost) shows every stone put down in the gap
/// at its first scan. Each is dated from the last scan before the gap — or, if its point was
/// already under a hand then, from the hand — never after a stone seen before it (which would
/// bind a wrong order of the moves).
#[test]
fn a_stone_that_comes_back_after_a_restart_is_dated_from_before_the_gap() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    // a hand over point 41 from 300; a stone on point 3 seen at 500; the last scan at 700
    let script = vec![
        (0, scan(9, &[])),
        (300, scan(9, &[(41, U)])),
        (500, scan(9, &[(3, W), (41, U)])),
    ];
    play(&mut s, &script, 700, &[3]);
    let three = s.times()[3];
    assert_eq!(three.seen_ms, 500, "{three:?}");
    s.restart();
    // back at 5000: a new stone on 40, and the stone that was under the hand on 41
    let script = vec![(5000, scan(9, &[(3, W), (40, B), (41, W)]))];
    let after = play(&mut s, &script, 5400, &[40, 41]);
    let last = after.last().unwrap();
    assert_eq!(
        last.2,
        vec![Some(Color::Black), Some(Color::White)],
        "{after:?}"
    );
    let (forty, forty_one) = (last.3[0], last.3[1]);
    assert_eq!((forty.left_ms, forty.seen_ms), (700, 5000), "{after:?}");
    assert_eq!(
        (forty_one.left_ms, forty_one.seen_ms),
        (300, 5000),
        "{after:?}"
    );
    // 40 went down in the gap, after 3 was seen; 41 perhaps before 3: not after it
    assert!(three.certainly_before(&forty));
    assert!(!three.certainly_before(&forty_one));
}

#[test]
fn a_stone_under_a_hand_is_dated_from_the_hand_to_its_first_clear_scan() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    let script = vec![
        (0, scan(9, &[])),
        (1000, scan(9, &[(40, U), (41, U)])), // the hand arrives
        (1400, scan(9, &[(40, B)])),          // the hand lifts: the stone is there
    ];
    let got = play(&mut s, &script, 2000, &[40]);
    assert_eq!(got.len(), 2, "{got:?}");
    let (at, complete, stones, times) = &got[1];
    assert_eq!((*at, *complete), (1560, true));
    assert_eq!(stones[0], Some(Color::Black));
    assert_eq!(
        times[0],
        PointTimes {
            left_ms: 1000,
            seen_ms: 1400,
            reread_ms: 0,
        }
    );
}

/// A hand passes over an empty point and leaves it empty for a while (100 ms, less than the
/// settle time); a later hand puts a stone there: the stone went down after the first hand
/// (`left_ms`, all that is certain) and likely after the second arrived (`reread_ms`). A bounce
/// or misread of a few scans says nothing of the kind.
#[test]
fn a_point_seen_empty_again_between_two_hands_is_likely_dated_from_the_second() {
    for (gap_ms, reread_ms) in [(100, 1200), (160, 1260), (40, 0), (60, 0)] {
        let mut s = Stabiliser::new(9, StabiliserConfig::default());
        let script = vec![
            (0, scan(9, &[])),
            (1000, scan(9, &[(40, U)])),          // a hand passes over
            (1100, scan(9, &[])),                 // gone: the point reads empty
            (1100 + gap_ms, scan(9, &[(40, U)])), // the next hand arrives
            (1100 + gap_ms + 300, scan(9, &[(40, B)])), // and leaves a stone
        ];
        let got = play(&mut s, &script, 2400, &[40]);
        let last = got.last().unwrap();
        assert_eq!(last.2[0], Some(Color::Black), "gap {gap_ms}: {got:?}");
        let times = last.3[0];
        assert_eq!(
            times,
            PointTimes {
                left_ms: 1000,
                seen_ms: 1100 + gap_ms + 300,
                reread_ms,
            },
            "gap {gap_ms} ms"
        );
        assert_eq!(times.likely_left_ms(), reread_ms.max(1000));
    }
}

/// Quick players: a hand is always over the board, so the board as a whole never settles,
/// yet every stone is handed on, in the order it was played, with its own times.
#[test]
fn overlapping_hands_hand_each_stone_on_in_order_without_the_board_settling() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    // Black's hand over 10 from 1000 (stone down under it), until White's hand reaches 50
    // (1500) and a little more (1600); White's hand over 50 until Black reaches 70 (2100),
    // lifting at 2200; Black's hand over 70 from then on, lifted only at 3000.
    let script = vec![
        (0, scan(9, &[])),
        (1000, scan(9, &[(10, U)])),
        (1500, scan(9, &[(10, U), (50, U)])),
        (1600, scan(9, &[(10, B), (50, U)])),
        (2100, scan(9, &[(10, B), (50, U), (70, U)])),
        (2200, scan(9, &[(10, B), (50, W), (70, U)])),
        (3000, scan(9, &[(10, B), (50, W), (70, B)])),
    ];
    let got = play(&mut s, &script, 3400, &[10, 50, 70]);
    let boards: Vec<_> = got
        .iter()
        .map(|(at, c, st, _)| (*at, *c, st.clone()))
        .collect();
    let b = Some(Color::Black);
    let w = Some(Color::White);
    assert_eq!(
        boards,
        vec![
            (160, true, vec![None, None, None]),
            // 10 held from 1600: handed on at 1760 although 50 is still under a hand (it was
            // covered only after 10 was touched)
            (1760, false, vec![b, None, None]),
            (2360, false, vec![b, w, None]),
            (3160, true, vec![b, w, b]),
        ]
    );
    let times = &got[3].3;
    assert_eq!(
        times[..],
        [
            PointTimes {
                left_ms: 1000,
                seen_ms: 1600,
                reread_ms: 0,
            },
            PointTimes {
                left_ms: 1500,
                seen_ms: 2200,
                reread_ms: 0,
            },
            PointTimes {
                left_ms: 2100,
                seen_ms: 3000,
                reread_ms: 0,
            },
        ]
    );
    assert_eq!(s.stats().partial, 2);
}

/// A stone seen while a point covered *before* it was touched is still hidden is held back:
/// the hidden one may have come first.
#[test]
fn a_change_waits_for_a_point_disturbed_before_it() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    let script = vec![
        (0, scan(9, &[])),
        (1000, scan(9, &[(10, U)])),          // a hand over 10 from 1000
        (1200, scan(9, &[(10, U), (50, W)])), // 50 placed cleanly at 1200
        (1800, scan(9, &[(10, B), (50, W)])), // the hand over 10 lifts at 1800
    ];
    let got = play(&mut s, &script, 2200, &[10, 50]);
    let boards: Vec<_> = got
        .iter()
        .map(|(at, c, st, _)| (*at, *c, st.clone()))
        .collect();
    assert_eq!(
        boards,
        vec![
            (160, true, vec![None, None]),
            // 50 settled at 1360 but waits for 10 (disturbed since 1000); both come together
            (1960, true, vec![Some(Color::Black), Some(Color::White)]),
        ]
    );
    assert_eq!(s.horizon_ms(), None);
}

#[test]
fn the_horizon_is_the_earliest_disturbance_still_going_on() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    feed(&mut s, &scan(9, &[]), 0, 10);
    assert_eq!(s.horizon_ms(), None);
    s.push(&scan(9, &[(5, U)]), 300);
    s.push(&scan(9, &[(5, U), (6, B)]), 320);
    assert_eq!(s.horizon_ms(), Some(300));
    // a stuck point holds nothing back
    let mut t = 340;
    while t < 400 + StabiliserConfig::default().stuck_ms {
        s.push(&scan(9, &[(5, U), (6, B)]), t);
        t += 20;
    }
    assert_eq!(s.horizon_ms(), None);
    assert_eq!(s.stable().unwrap().at_index(6), Some(Color::Black));
}

#[test]
fn checkpointed_stabiliser_goes_on_exactly() {
    let mut a = Stabiliser::new(9, StabiliserConfig::default());
    feed(&mut a, &scan(9, &[]), 0, 10);
    a.push(&scan(9, &[(5, U)]), 300);
    a.push(&scan(9, &[(5, B)]), 320);
    let json = serde_json::to_string(&a).unwrap();
    let mut b: Stabiliser = serde_json::from_str(&json).unwrap();
    let ra = feed(&mut a, &scan(9, &[(5, B)]), 340, 20);
    let rb = feed(&mut b, &scan(9, &[(5, B)]), 340, 20);
    assert_eq!(ra, rb);
    assert_eq!(a.times(), b.times());
    assert_eq!(ra, vec![(480, true, 1)]);
}

#[test]
fn the_first_look_is_when_every_point_was_first_read_solidly_and_survives_a_restart() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    // point 5 is under a hand (uncertain) until 100 ms, then shows a stone left on it; a
    // stone goes down on point 7 at 300 ms, after the board came up
    let hand = scan(9, &[(5, U)]);
    let leftover = scan(9, &[(5, W)]);
    let moved = scan(9, &[(5, W), (7, B)]);
    feed(&mut s, &hand, 0, 5);
    assert_eq!(s.first_look_ms(), None, "point 5 not read yet");
    feed(&mut s, &leftover, 100, 1);
    assert_eq!(
        s.first_look_ms(),
        None,
        "one scan is no solid run ({SEEN_RUN_MS} ms)"
    );
    feed(&mut s, &leftover, 120, 9);
    assert_eq!(s.first_look_ms(), Some(100), "the start of point 5's run");
    feed(&mut s, &moved, 300, 20);
    let times = s.times();
    assert!(
        times[5].seen_ms <= 100 && times[7].seen_ms > 100,
        "{times:?}"
    );
    // a board that comes back did not come up anew
    s.restart();
    feed(&mut s, &moved, 1000, 20);
    assert_eq!(s.first_look_ms(), Some(100));
}

#[test]
fn a_point_stuck_uncertain_does_not_hold_back_the_first_look() {
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    let dead = scan(9, &[(3, U)]);
    let stuck_ms = StabiliserConfig::default().stuck_ms;
    feed(&mut s, &dead, 0, stuck_ms / 20);
    assert_eq!(s.first_look_ms(), None, "not stuck before stuck_ms");
    feed(&mut s, &dead, stuck_ms, 1);
    assert_eq!(
        s.first_look_ms(),
        Some(0),
        "stuck after stuck_ms: the rest was read from 0"
    );
}

#[test]
fn a_lift_held_back_is_handed_on_before_the_point_is_filled_again() {
    // White 50 on the board; a hand over 10 from 1000 holds back every change after it.
    // Under it nothing shows: 50 is lifted at 1200 (a capture) and, 1 s later, White plays
    // there again (a ko retaken). The lift is held back behind the hand at 10 — but it must not
    // vanish into the board with 50 White again: the board showing 50 empty is handed on
    // before the new stone settles.
    let mut s = Stabiliser::new(9, StabiliserConfig::default());
    for (retake_ms, lifted_shown) in [(2200, true), (1300, false)] {
        let mut s2 = Stabiliser::new(9, StabiliserConfig::default());
        let script = vec![
            (0, scan(9, &[(50, W)])),
            (1000, scan(9, &[(10, U), (50, W)])),
            (1200, scan(9, &[(10, U)])),               // 50 lifted
            (retake_ms, scan(9, &[(10, U), (50, W)])), // 50 filled again
            (3000, scan(9, &[(10, B), (50, W)])),      // the hand over 10 lifts
        ];
        let got = play(&mut s2, &script, 3400, &[10, 50]);
        let stones: Vec<_> = got.iter().map(|(_, _, st, _)| st.clone()).collect();
        let empty_50 = stones.iter().any(|st| st[1].is_none());
        // a lift that held for less than the settle time (100 ms) never settled: nothing
        // to hand on
        assert_eq!(empty_50, lifted_shown, "retaken at {retake_ms}: {got:?}");
        assert_eq!(
            stones.last(),
            Some(&vec![Some(Color::Black), Some(Color::White)]),
            "retaken at {retake_ms}"
        );
        if lifted_shown {
            // the lift first (10 still held back), then the stone again
            let at = got
                .iter()
                .position(|(_, _, st, _)| st[1].is_none())
                .unwrap();
            assert_eq!(got[at].2[0], None, "10 is still under the hand");
            assert!(got[at].0 >= retake_ms + 150 && got[at].0 < 3000);
        }
    }
    // a stone that shows and goes again before it was handed on is no capture: nothing forced
    let script = vec![
        (0, scan(9, &[])),
        (1000, scan(9, &[(10, U)])),
        (1200, scan(9, &[(10, U), (50, B)])), // placed
        (1600, scan(9, &[(10, U)])),          // gone again (slid away)
        (3000, scan(9, &[(10, B)])),
    ];
    let got = play(&mut s, &script, 3400, &[10, 50]);
    assert!(got.iter().all(|(_, _, st, _)| st[1].is_none()), "{got:?}");
}
