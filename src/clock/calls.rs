//! The spoken calls (C3.2): when a timekeeper speaks during a turn, as a pure function of the
//! side's state at the start of its turn and the time thought.
//!
//! * Chinese counting and Japanese byo-yomi, in each unit (period) of length T: at T−30 s,
//!   T−20 s, T−10 s, T−5 s and T−2 s, saying the seconds used (`30`, `40`, `50`, `55`, `58`
//!   for a minute), and at the end of the unit the seconds (`60`) with the units left after
//!   the one taken ("4 minutes left"). In the last unit: T−30, T−20, T−10 s, then `1` … `9`
//!   second by second, and `10` at the end — time up.
//! * Absolute and Fischer main time, and a Canadian block: the seconds left at 30, 20 and
//!   10 s left, then `9` … `1` second by second.

use super::side::SideClock;
use super::system::{Overtime, TimeSystem};

/// One call, at `at_ms` of thinking into the turn.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Call {
    /// Thinking time into the turn, ms, at which it is spoken.
    pub at_ms: u64,
    /// What is said: seconds used in the unit (counting, byo-yomi) or seconds left (absolute,
    /// Fischer, Canadian), or the count `1` … `10` in the last unit.
    pub text: String,
    /// Units (counting: minutes; byo-yomi: periods; Canadian: stones) left when spoken; after
    /// the one taken for a unit-end call.
    pub left: u32,
    /// This call ends a unit ("N minutes left").
    pub unit_end: bool,
}

/// The calls of a turn that start with `side` spoken in `(from_ms, to_ms]` of thinking, in
/// order.
pub fn calls_between(system: &TimeSystem, side: &SideClock, from_ms: u64, to_ms: u64) -> Vec<Call> {
    let mut out = Vec::new();
    if to_ms <= from_ms {
        return out;
    }
    let within = |at: u64| at > from_ms && at <= to_ms;
    match system.overtime {
        Overtime::Counting { unit_ms: t, .. } | Overtime::ByoYomi { period_ms: t, .. } => {
            let start = side.main_ms;
            if to_ms <= start || side.periods == 0 {
                return out;
            }
            let first = from_ms.saturating_sub(start) / t;
            let last = ((to_ms - start) / t).min(u64::from(side.periods) - 1);
            for k in first..=last {
                let left = side.periods - k as u32;
                let base = start + k * t;
                let mut push = |offset: u64, text: String, left: u32, unit_end: bool| {
                    if within(base + offset) {
                        out.push(Call {
                            at_ms: base + offset,
                            text,
                            left,
                            unit_end,
                        });
                    }
                };
                let secs = |ms: u64| (ms / 1000).to_string();
                let early: &[u64] = if left > 1 {
                    &[30_000, 20_000, 10_000, 5_000, 2_000]
                } else {
                    &[30_000, 20_000, 10_000]
                };
                for &before in early {
                    if t > before {
                        push(t - before, secs(t - before), left, false);
                    }
                }
                if left > 1 {
                    push(t, secs(t), left - 1, true);
                } else {
                    for n in 1..=9u64 {
                        if t > (10 - n) * 1000 {
                            push(t - (10 - n) * 1000, n.to_string(), 1, false);
                        }
                    }
                    push(t, "10".into(), 0, true);
                }
            }
        }
        Overtime::Absolute | Overtime::Fischer { .. } | Overtime::Canadian { .. } => {
            let (end, left) = match system.overtime {
                Overtime::Canadian { .. } => (side.main_ms + side.block_ms, side.periods),
                _ => (side.main_ms, 0),
            };
            let starts = match system.overtime {
                Overtime::Canadian { .. } => side.main_ms,
                _ => 0,
            };
            for secs_left in [30u64, 20, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1] {
                let Some(at) = end.checked_sub(secs_left * 1000) else {
                    continue;
                };
                if at > starts && within(at) {
                    out.push(Call {
                        at_ms: at,
                        text: secs_left.to_string(),
                        left,
                        unit_end: false,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(system: &str, from: u64, to: u64) -> Vec<(u64, String, u32)> {
        let t: TimeSystem = system.parse().unwrap();
        calls_between(&t, &SideClock::new(&t), from, to)
            .into_iter()
            .map(|c| (c.at_ms / 1000, c.text, c.left))
            .collect()
    }

    #[test]
    fn the_last_reserve_minute_is_counted_second_by_second() {
        let calls = texts("cn=1x60s", 0, 120_000);
        let expect: Vec<(u64, String, u32)> = [(30, "30"), (40, "40"), (50, "50")]
            .into_iter()
            .map(|(s, t)| (s, t.to_string(), 1))
            .chain((1..=9).map(|n| (50 + n, n.to_string(), 1)))
            .chain([(60, "10".to_string(), 0)])
            .collect();
        assert_eq!(calls, expect);
    }

    #[test]
    fn a_minute_taken_is_called_with_the_minutes_left() {
        let calls = texts("main=10s cn=5x60s", 0, 70_000);
        let got: Vec<(u64, &str, u32)> =
            calls.iter().map(|(a, t, l)| (*a, t.as_str(), *l)).collect();
        assert_eq!(
            got,
            [
                (40, "30", 5),
                (50, "40", 5),
                (60, "50", 5),
                (65, "55", 5),
                (68, "58", 5),
                (70, "60", 4)
            ]
        );
        // windows split anywhere give the same calls once each
        let mut joined = Vec::new();
        for w in (0..400_000).step_by(7_000) {
            joined.extend(texts("main=10s cn=5x60s", w, w + 7_000));
        }
        assert_eq!(joined, texts("main=10s cn=5x60s", 0, 406_000));
        assert_eq!(joined.last().unwrap(), &(310, "10".to_string(), 0));
    }

    #[test]
    fn countdown_systems_say_the_seconds_left() {
        let calls = texts("main=40s", 0, 40_000);
        let t: Vec<&str> = calls.iter().map(|c| c.1.as_str()).collect();
        assert_eq!(
            t,
            ["30", "20", "10", "9", "8", "7", "6", "5", "4", "3", "2", "1"]
        );
        assert_eq!(calls[0].0, 10);
        // Canadian: only in the block
        let calls = texts("main=100s ca=5/25s", 0, 125_000);
        assert_eq!(calls.first().unwrap(), &(105, "20".to_string(), 5));
    }
}
