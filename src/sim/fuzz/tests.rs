//! When hands let a sensor see a point: the times the invariants are checked against.

use super::*;

fn hand(center: Point, from_ms: u64, until_ms: u64) -> HandSpan {
    HandSpan {
        center,
        radius: 1,
        from_ms,
        until_ms,
    }
}

const K5: Point = Point { x: 9, y: 14 };

#[test]
fn a_point_between_two_hands_for_less_than_a_solid_run_was_never_seen_empty() {
    // one hand leaves K5 and the next arrives 23 ms later (about one scan): no sensor saw the
    // point empty, so it was covered from the first hand on
    let hands = [hand(K5, 1_000, 2_000), hand(K5, 2_023, 3_000)];
    assert_eq!(covered_before(&hands, K5, 2_900), 1_000);
    // a gap of a solid run and more shows the point empty: covered only from the second hand
    let hands = [
        hand(K5, 1_000, 2_000),
        hand(K5, 2_000 + CLEAR_RUN_MS, 3_000),
    ];
    assert_eq!(covered_before(&hands, K5, 2_900), 2_000 + CLEAR_RUN_MS);
}

#[test]
fn a_stone_shows_only_once_no_hand_covers_it_for_a_solid_run() {
    let hands = [hand(K5, 1_000, 2_000), hand(K5, 2_023, 3_000)];
    assert_eq!(clear_after(&hands, K5, 1_500), 3_000);
    // a hand elsewhere does not hide it
    let far = [hand(Point { x: 2, y: 2 }, 1_000, 5_000)];
    assert_eq!(clear_after(&far, K5, 1_500), 1_500);
    assert_eq!(covered_before(&far, K5, 1_500), 1_500);
}
