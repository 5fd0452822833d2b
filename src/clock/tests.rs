//! The clock issue's cases on virtual time.

use super::*;

const B: Color = Color::Black;
const W: Color = Color::White;

fn clock(s: &str) -> Clock {
    Clock::new(s.parse().unwrap())
}

fn drain(c: &mut Clock) -> Vec<ClockEvent> {
    std::iter::from_fn(|| c.poll_event()).collect()
}

/// The calls and flags of `color` while ticking every 100 ms up to `to_ms`, as (s, text).
fn run_to(c: &mut Clock, from_ms: u64, to_ms: u64) -> Vec<(f64, String)> {
    let mut out = Vec::new();
    let mut t = from_ms;
    while t <= to_ms {
        c.tick(t);
        for e in drain(c) {
            match e {
                ClockEvent::Call { call, .. } => out.push((t as f64 / 1000.0, call.text)),
                ClockEvent::Expired { .. } => out.push((t as f64 / 1000.0, "expired".into())),
                ClockEvent::Changed => {}
            }
        }
        t += 100;
    }
    out
}

#[test]
fn japanese_byo_yomi_black_never_moves() {
    let mut c = clock("main=10s jp=3x30s");
    c.start(B, 0);
    let r = |c: &Clock, t| {
        let r = c.reading(B, t);
        (r.overtime, r.main_ms, r.periods, r.period_ms)
    };
    assert_eq!(r(&c, 5_000), (false, 5_000, 3, 30_000));
    assert_eq!(r(&c, 15_000), (true, 0, 3, 25_000));
    assert_eq!(r(&c, 45_000), (true, 0, 2, 25_000));
    assert_eq!(r(&c, 75_000), (true, 0, 1, 25_000));
    let calls = run_to(&mut c, 0, 100_000);
    assert_eq!(calls.last().unwrap(), &(100.0, "expired".to_string()));
    assert!(c.is_expired(B));
    assert!(c.reading(B, 200_000).expired);
    assert_eq!(c.reading(B, 200_000).periods, 0);
    assert_eq!(c.press(B, 100_050, 1), Err(PressRefused::NotRunning));
}

#[test]
fn japanese_move_in_the_second_period_keeps_two_full_periods() {
    let mut c = clock("main=10s jp=3x30s");
    c.start(B, 0);
    c.tick(50_000);
    let at = c.press(B, 50_000, 1).unwrap();
    assert_eq!((at.periods, at.period_ms), (2, 20_000));
    assert_eq!(c.running(), Some(W));
    let r = c.reading(B, 60_000);
    assert_eq!((r.periods, r.period_ms), (2, 30_000));
    c.press(W, 60_000, 2).unwrap();
    let r = c.reading(B, 60_000);
    assert_eq!((r.periods, r.period_ms), (2, 30_000));
    // zero main time: the game starts in the periods
    let mut c = clock("jp=3x30s");
    c.start(B, 0);
    let r = c.reading(B, 0);
    assert_eq!((r.overtime, r.periods, r.period_ms), (true, 3, 30_000));
}

#[test]
fn chinese_counting_one_reserve_minute_is_counted_to_ten() {
    let mut c = clock("cn=1x60s");
    c.start(B, 0);
    let calls = run_to(&mut c, 0, 61_000);
    let mut expect: Vec<(f64, String)> = vec![
        (30.0, "30".into()),
        (40.0, "40".into()),
        (50.0, "50".into()),
    ];
    expect.extend((1..=9).map(|n| (50.0 + n as f64, n.to_string())));
    expect.push((60.0, "10".into()));
    expect.push((60.0, "expired".into()));
    assert_eq!(calls, expect);
}

#[test]
fn chinese_counting_five_minutes_a_move_under_a_minute_is_free() {
    let mut c = clock("cn=5x60s");
    c.start(B, 0);
    c.press(B, 59_000, 1).unwrap();
    assert_eq!(c.reading(B, 59_000).periods, 5);
    c.press(W, 59_500, 2).unwrap();
    drain(&mut c);
    let mut said = Vec::new();
    let mut t = 59_500;
    while t <= 59_500 + 61_000 {
        c.tick(t);
        for e in drain(&mut c) {
            if let ClockEvent::Call { call, .. } = e {
                said.push((call.text, call.left, call.unit_end));
            }
        }
        t += 250;
    }
    c.press(B, 59_500 + 61_000, 3).unwrap();
    assert_eq!(
        c.reading(B, 130_000).periods,
        4,
        "a move at 61 s costs a unit"
    );
    assert_eq!(
        said.last().unwrap(),
        &("60".to_string(), 4, true),
        "4 minutes left"
    );
    let texts: Vec<&str> = said.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(texts, ["30", "40", "50", "55", "58", "60"]);
}

#[test]
fn a_takeback_gives_back_the_periods() {
    // Black in overtime with 2 periods left plays after 12 s; the referee accepts a takeback
    let mut c = clock("jp=3x30s");
    c.start(B, 0);
    c.press(B, 35_000, 1).unwrap(); // a period gone: 2 left
    c.press(W, 36_000, 2).unwrap();
    assert_eq!(c.reading(B, 36_000).periods, 2);
    c.press(B, 48_000, 3).unwrap();
    assert!(
        !c.undo_press(2, 50_000),
        "only the last press can be undone"
    );
    assert!(c.undo_press(3, 50_000));
    assert_eq!(c.running(), Some(B));
    let r = c.reading(B, 50_000);
    assert_eq!((r.periods, r.period_ms), (2, 30_000));
    assert_eq!(c.reading(W, 50_000).period_ms, 30_000);
}

#[test]
fn canadian_pause_charges_nobody_and_no_flag_falls() {
    let mut c = clock("ca=10/300s");
    c.start(B, 0);
    let mut t = 0;
    for n in 0..6u32 {
        t += 10_000;
        c.press(B, t, 2 * n + 1).unwrap();
        t += 1_000;
        c.press(W, t, 2 * n + 2).unwrap();
    }
    assert_eq!(c.reading(B, t).periods, 4, "4 stones left");
    c.pause(t + 1_000);
    c.tick(t + 1_000_000);
    assert!(drain(&mut c)
        .iter()
        .all(|e| !matches!(e, ClockEvent::Expired { .. })));
    assert_eq!(
        c.reading(B, t + 1_000_000).period_ms,
        300_000 - 60_000 - 1_000
    );
    assert_eq!(c.press(B, t + 1_000_000, 13), Err(PressRefused::Paused));
    c.resume(t + 1_000_000);
    c.press(B, t + 1_001_000, 13).unwrap();
    assert_eq!(c.reading(B, t + 1_001_000).periods, 3);
}

#[test]
fn presses_by_the_wrong_side_and_double_presses_change_nothing() {
    let mut c = clock("main=10m");
    assert_eq!(c.press(B, 0, 1), Err(PressRefused::NotRunning));
    c.start(B, 0);
    assert_eq!(c.press(W, 1_000, 1), Err(PressRefused::NotYourTime));
    c.press(B, 2_000, 1).unwrap();
    assert_eq!(c.press(B, 2_050, 1), Err(PressRefused::Bounce));
    assert_eq!(c.press(B, 2_100, 1), Err(PressRefused::NotYourTime));
    assert_eq!(c.running(), Some(W));
    assert_eq!(c.reading(B, 5_000).main_ms, 598_000);
}

#[test]
fn late_arrival_is_charged_twice() {
    let mut c = clock("main=60m cn=5x60s");
    c.deduct_lateness(B, 10 * 60_000);
    c.start(B, 0);
    assert_eq!(c.reading(B, 0).main_ms, 40 * 60_000);
    c.deduct_lateness(W, 2 * 3_600_000);
    assert_eq!(c.reading(W, 0).main_ms, 0);
    assert_eq!(c.reading(W, 0).periods, 5);
}

#[test]
fn a_flag_in_the_last_unit_may_count_as_a_pass() {
    let mut c = clock("cn=1x60s");
    c.start(B, 0);
    c.tick(60_000);
    assert!(drain(&mut c).contains(&ClockEvent::Expired { color: B }));
    c.pass_after_flag(B, 61_000);
    assert_eq!(c.running(), Some(W));
    let r = c.reading(B, 61_000);
    assert_eq!((r.periods, r.period_ms, r.expired), (1, 60_000, false));
}

#[test]
fn next_deadline_is_the_next_call_or_the_flag() {
    let mut c = clock("main=100s cn=1x60s");
    assert_eq!(c.next_deadline(0), None);
    c.start(B, 0);
    assert_eq!(c.next_deadline(0), Some(130_000));
    c.tick(130_000);
    assert_eq!(c.next_deadline(130_000), Some(140_000));
    c.tick(159_000);
    assert_eq!(c.next_deadline(159_000), Some(160_000));
    c.pause(159_000);
    assert_eq!(c.next_deadline(159_000), None);
}

/// A pause before the clock starts (the referee pauses right after a new game) holds when the
/// game's clock starts, and after a flag's pass (R22.5): no one's time runs until resume
/// (C3, R22.8).
#[test]
fn a_pause_before_the_start_holds_until_resume() {
    let mut c = clock("main=10s");
    c.pause(0);
    assert!(c.is_paused());
    c.start(B, 100);
    run_to(&mut c, 100, 30_000);
    assert!(c.is_paused());
    assert!(!c.is_expired(B));
    assert_eq!(c.reading(B, 30_000).main_ms, 10_000);
    assert_eq!(c.press(B, 30_000, 1), Err(PressRefused::Paused));
    c.resume(30_000);
    assert_eq!(
        c.reading(B, 34_000).main_ms,
        6_000,
        "only the time since the resume"
    );
    // paused while White's flag falls and the referee counts it as a pass: still paused
    let mut c = clock("main=1s jp=1x1s");
    c.start(B, 0);
    c.press(B, 100, 1).unwrap();
    run_to(&mut c, 100, 3_000);
    assert!(c.is_expired(W));
    c.pause(3_000);
    c.pass_after_flag(W, 3_100);
    assert!(c.is_paused());
    let before = c.reading(B, 3_100);
    assert_eq!(c.reading(B, 60_000), before);
}
