//! [`SideClock`]: one side's time at the start of its turn, and [`Reading`]: what it shows
//! after some thinking. Pure arithmetic: the reading at any moment of a turn is a function of
//! the state at the turn's start and the time thought, so nothing drifts.

use super::system::{Overtime, TimeSystem};
use serde::Serialize;

/// One side's time as it stands between turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SideClock {
    /// Main time left, ms.
    pub main_ms: u64,
    /// Reserve units (Chinese counting) or byo-yomi periods left, the current one included;
    /// Canadian: stones still to play in the current block; otherwise 0.
    pub periods: u32,
    /// Canadian: time left in the current block, ms (the block starts when the main time is
    /// used up); otherwise unused (a byo-yomi period starts full at every turn).
    pub block_ms: u64,
}

/// What a side's clock shows (DESIGN.md `clock` event, `GET /api/v1/state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema, serde::Deserialize)]
pub struct Reading {
    /// Main time left, ms.
    pub main_ms: u64,
    /// In overtime (main time used up).
    pub overtime: bool,
    /// Time left in the current period / reserve unit / Canadian block, ms; in main time the
    /// length of the period to come (0 for absolute and Fischer).
    pub period_ms: u64,
    /// Periods or reserve units left, the current one included (Chinese counting: minutes
    /// left; Japanese: periods left); Canadian: stones still to play in the block; absolute
    /// and Fischer: 0.
    pub periods: u32,
    /// The flag has fallen.
    pub expired: bool,
}

impl Reading {
    /// The time left that matters now, ms: main time, or in overtime the current period.
    pub fn time_left_ms(&self) -> u64 {
        if self.overtime {
            self.period_ms
        } else {
            self.main_ms
        }
    }

    /// The SGF pair (`BL`/`WL` in ms, `OB`/`OW`): main time left and no count in main time;
    /// in overtime the time left in the current period and the periods (Canadian: stones) left.
    pub fn sgf(&self) -> (u64, Option<u32>) {
        if self.overtime {
            (self.period_ms, Some(self.periods))
        } else {
            (self.main_ms, None)
        }
    }
}

impl SideClock {
    /// A side's clock at the start of the game.
    pub fn new(system: &TimeSystem) -> SideClock {
        let (periods, block_ms) = match system.overtime {
            Overtime::Counting { units, .. } => (units, 0),
            Overtime::ByoYomi { periods, .. } => (periods, 0),
            Overtime::Canadian { stones, period_ms } => (stones, period_ms),
            Overtime::Absolute | Overtime::Fischer { .. } => (0, 0),
        };
        SideClock {
            main_ms: system.main_ms,
            periods,
            block_ms,
        }
    }

    /// How long this side can think from the start of its turn before its flag falls, ms.
    pub fn until_flag_ms(&self, system: &TimeSystem) -> u64 {
        self.main_ms
            + match system.overtime {
                Overtime::Counting { unit_ms: t, .. } | Overtime::ByoYomi { period_ms: t, .. } => {
                    u64::from(self.periods) * t
                }
                Overtime::Canadian { .. } => self.block_ms,
                Overtime::Absolute | Overtime::Fischer { .. } => 0,
            }
    }

    /// What the clock shows after `thought_ms` of thinking in this turn. A period used up
    /// rolls over to the next at once.
    pub fn reading(&self, system: &TimeSystem, thought_ms: u64) -> Reading {
        let expired = thought_ms >= self.until_flag_ms(system);
        let period_len = match system.overtime {
            Overtime::Counting { unit_ms: t, .. } | Overtime::ByoYomi { period_ms: t, .. } => t,
            _ => 0,
        };
        if thought_ms < self.main_ms {
            return Reading {
                main_ms: self.main_ms - thought_ms,
                overtime: false,
                period_ms: match system.overtime {
                    Overtime::Canadian { .. } => self.block_ms,
                    _ => period_len,
                },
                periods: self.periods,
                expired: false,
            };
        }
        let over = thought_ms - self.main_ms;
        let (period_ms, periods) = match system.overtime {
            Overtime::Counting { .. } | Overtime::ByoYomi { .. } => {
                let used = over / period_len;
                let left = u64::from(self.periods).saturating_sub(used);
                (
                    if left == 0 {
                        0
                    } else {
                        period_len - over % period_len
                    },
                    left as u32,
                )
            }
            Overtime::Canadian { .. } => (self.block_ms.saturating_sub(over), self.periods),
            Overtime::Absolute | Overtime::Fischer { .. } => (0, 0),
        };
        Reading {
            main_ms: 0,
            overtime: !matches!(
                system.overtime,
                Overtime::Absolute | Overtime::Fischer { .. }
            ) || expired,
            period_ms,
            periods,
            expired,
        }
    }

    /// The state after a move made `thought_ms` into the turn (before the flag), with the
    /// reading at the moment of the move (time left after the move, before any period reset
    /// or increment — what the record keeps; Canadian: the stones left after this one).
    pub fn after_move(&self, system: &TimeSystem, thought_ms: u64) -> (SideClock, Reading) {
        let mut at = self.reading(system, thought_ms);
        let mut next = SideClock {
            main_ms: at.main_ms,
            periods: self.periods,
            block_ms: self.block_ms,
        };
        match system.overtime {
            Overtime::Counting { .. } | Overtime::ByoYomi { .. } => {
                // the period in which the move fell is kept, full again
                next.periods = at.periods;
            }
            Overtime::Canadian { stones, period_ms } if at.overtime => {
                // the record keeps the stones left after this one (SGF OB/OW)
                at.periods = self.periods.saturating_sub(1);
                if self.periods <= 1 {
                    next.periods = stones;
                    next.block_ms = period_ms;
                } else {
                    next.periods = self.periods - 1;
                    next.block_ms = at.period_ms;
                }
            }
            Overtime::Fischer {
                increment_ms,
                cap_ms,
            } => {
                let with = at.main_ms + increment_ms;
                next.main_ms = cap_ms.map_or(with, |cap| with.min(cap.max(at.main_ms)));
            }
            _ => {}
        }
        (next, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys(s: &str) -> TimeSystem {
        s.parse().unwrap()
    }

    #[test]
    fn japanese_periods_roll_over_and_a_move_keeps_the_period() {
        // 10 s main + 3×30 s, Black never moves
        let t = sys("main=10s jp=3x30s");
        let b = SideClock::new(&t);
        let r = b.reading(&t, 5_000);
        assert_eq!((r.overtime, r.main_ms), (false, 5_000));
        let at = |ms| {
            let r = b.reading(&t, ms);
            (r.periods, r.period_ms, r.expired)
        };
        assert_eq!(at(15_000), (3, 25_000, false));
        assert_eq!(at(45_000), (2, 25_000, false));
        assert_eq!(at(75_000), (1, 25_000, false));
        assert_eq!(at(99_999), (1, 1, false));
        assert_eq!(at(100_000), (0, 0, true));
        assert_eq!(b.until_flag_ms(&t), 100_000);
        // a move at 50 s: the next turn starts with 2 full periods
        let (next, at_move) = b.after_move(&t, 50_000);
        assert_eq!((at_move.periods, at_move.period_ms), (2, 20_000));
        let r = next.reading(&t, 0);
        assert_eq!((r.overtime, r.periods, r.period_ms), (true, 2, 30_000));
        // zero main time starts in the periods
        let t = sys("jp=3x30s");
        let r = SideClock::new(&t).reading(&t, 0);
        assert_eq!((r.overtime, r.periods, r.period_ms), (true, 3, 30_000));
    }

    #[test]
    fn chinese_counting_a_move_under_a_minute_costs_nothing() {
        let t = sys("cn=5x60s");
        let s = SideClock::new(&t);
        assert_eq!(s.after_move(&t, 59_000).0.periods, 5);
        assert_eq!(s.after_move(&t, 61_000).0.periods, 4);
        assert_eq!(s.after_move(&t, 180_500).0.periods, 2);
        assert!(s.reading(&t, 300_000).expired);
    }

    #[test]
    fn canadian_blocks_count_stones_and_time() {
        let t = sys("main=1m ca=10/300s");
        let mut s = SideClock::new(&t);
        // a move in main time does not count against the block
        s = s.after_move(&t, 30_000).0;
        assert_eq!((s.main_ms, s.periods, s.block_ms), (30_000, 10, 300_000));
        // into overtime: 40 s thought, 10 of them in the block
        s = s.after_move(&t, 40_000).0;
        assert_eq!((s.main_ms, s.periods, s.block_ms), (0, 9, 290_000));
        for _ in 0..8 {
            s = s.after_move(&t, 10_000).0;
        }
        assert_eq!((s.periods, s.block_ms), (1, 210_000));
        // the last stone of the block: a fresh block
        s = s.after_move(&t, 10_000).0;
        assert_eq!((s.periods, s.block_ms), (10, 300_000));
        assert!(s.reading(&t, 300_000).expired);
        assert!(!s.reading(&t, 299_999).expired);
    }

    #[test]
    fn fischer_adds_the_increment_up_to_the_cap() {
        let t = sys("main=1m fischer=10s/65s");
        let s = SideClock::new(&t);
        let (next, at) = s.after_move(&t, 2_000);
        assert_eq!(at.main_ms, 58_000, "recorded before the increment");
        assert_eq!(next.main_ms, 65_000, "capped");
        assert!(s.reading(&t, 60_000).expired);
        let t = sys("main=90m");
        assert!(!SideClock::new(&t).reading(&t, 5_399_999).expired);
        assert!(SideClock::new(&t).reading(&t, 5_400_000).expired);
    }
}
