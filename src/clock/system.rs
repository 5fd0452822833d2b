//! [`TimeSystem`]: the time control of a game (C3, R22) and its text form, as written in the
//! config file and the board script header (`time main=60m cn=5x60s`).

use std::fmt;
use std::str::FromStr;

/// What follows the main time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Overtime {
    /// None: absolute time, the flag falls when the main time is used up.
    Absolute,
    /// Chinese counting (C3.2): `units` reserve units of `unit_ms` (one minute in every
    /// Chinese event). A move that takes less than a unit costs nothing; each full unit used
    /// takes one; the last one used up is time up. Text `cn=5x60s`.
    Counting {
        /// Reserve units (5 in national events, 1 in local ones).
        units: u32,
        /// Length of a unit, ms.
        unit_ms: u64,
    },
    /// Japanese byo-yomi: `periods` periods of `period_ms`; a move inside a period keeps it,
    /// a period used up without a move is gone. Text `jp=3x30s`.
    ByoYomi {
        /// Periods.
        periods: u32,
        /// Length of a period, ms.
        period_ms: u64,
    },
    /// Canadian: `stones` moves to play in `period_ms`, then a fresh block. Text `ca=10/300s`.
    Canadian {
        /// Moves per block.
        stones: u32,
        /// Length of a block, ms.
        period_ms: u64,
    },
    /// Fischer: `increment_ms` added after each move, never above `cap_ms` if set. Text
    /// `fischer=10s` or `fischer=10s/30m` (with a cap).
    Fischer {
        /// Added after each move, ms.
        increment_ms: u64,
        /// Most time a side can have after the increment, ms.
        cap_ms: Option<u64>,
    },
}

/// A time control: main time per side, then an overtime system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TimeSystem {
    /// Main time per side, ms (C3.1). Zero starts directly in the overtime.
    pub main_ms: u64,
    /// What follows it.
    pub overtime: Overtime,
}

impl TimeSystem {
    /// Absolute time of `main_ms` per side.
    pub fn absolute(main_ms: u64) -> TimeSystem {
        TimeSystem {
            main_ms,
            overtime: Overtime::Absolute,
        }
    }

    /// The SGF `TM` value: main time per side in seconds.
    pub fn sgf_tm(&self) -> f64 {
        self.main_ms as f64 / 1000.0
    }

    /// The SGF `OT` value, e.g. `5x60 byo-yomi` (Chinese counting is byo-yomi with one-minute
    /// periods as far as SGF readers go), `10/300 Canadian`, `Fischer 10`; `None` for absolute
    /// time.
    pub fn sgf_ot(&self) -> Option<String> {
        let s = |ms: u64| fmt_seconds(ms);
        match self.overtime {
            Overtime::Absolute => None,
            Overtime::Counting { units, unit_ms } => Some(format!(
                "{units}x{} byo-yomi (Chinese counting)",
                s(unit_ms)
            )),
            Overtime::ByoYomi { periods, period_ms } => {
                Some(format!("{periods}x{} byo-yomi", s(period_ms)))
            }
            Overtime::Canadian { stones, period_ms } => {
                Some(format!("{stones}/{} Canadian", s(period_ms)))
            }
            Overtime::Fischer {
                increment_ms,
                cap_ms,
            } => Some(match cap_ms {
                Some(cap) => format!("Fischer {} (cap {})", s(increment_ms), s(cap)),
                None => format!("Fischer {}", s(increment_ms)),
            }),
        }
    }
}

fn fmt_seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{}", ms as f64 / 1000.0)
    }
}

/// Why a time control text was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeSystemError {
    /// A word is not `key=value`, or the key is unknown.
    #[error("`{0}`: expected main=DURATION, then one of cn=NxDURATION, jp=NxDURATION, ca=N/DURATION, fischer=DURATION[/CAP]")]
    UnknownPart(String),
    /// A key given twice, or two overtime systems.
    #[error("`{0}` given twice (one main time, one overtime system)")]
    Repeated(String),
    /// A duration that is not numbers with units h, m, s.
    #[error("`{0}` is not a duration: write e.g. 90m, 1h30m, 30s, 2.5s")]
    BadDuration(String),
    /// A count that is not a whole number from 1 up.
    #[error("`{0}` is not a count: a whole number from 1 up")]
    BadCount(String),
    /// Overtime periods or blocks of zero length, or a text without any time.
    #[error("{0}")]
    Invalid(&'static str),
}

/// Parses a duration: one or more `<number><unit>` with units `h`, `m`, `s` (`90m`, `1h30m`,
/// `30s`, `2.5s`), into ms. Longest accepted: 100 hours.
pub fn parse_duration(text: &str) -> Result<u64, TimeSystemError> {
    let bad = || TimeSystemError::BadDuration(text.to_string());
    let mut total = 0.0f64;
    let mut number = String::new();
    let mut any = false;
    for ch in text.chars() {
        match ch {
            '0'..='9' | '.' => number.push(ch),
            'h' | 'm' | 's' => {
                let v: f64 = number.parse().map_err(|_| bad())?;
                number.clear();
                total += v * match ch {
                    'h' => 3_600_000.0,
                    'm' => 60_000.0,
                    _ => 1_000.0,
                };
                any = true;
            }
            _ => return Err(bad()),
        }
    }
    if !number.is_empty() || !any || !total.is_finite() || total > 100.0 * 3_600_000.0 {
        return Err(bad());
    }
    Ok(total.round() as u64)
}

fn parse_count(text: &str) -> Result<u32, TimeSystemError> {
    match text.parse::<u32>() {
        Ok(n) if (1..=10_000).contains(&n) => Ok(n),
        _ => Err(TimeSystemError::BadCount(text.to_string())),
    }
}

impl FromStr for TimeSystem {
    type Err = TimeSystemError;

    /// `main=60m cn=5x60s`, `main=10m jp=3x30s`, `main=5m ca=10/300s`, `main=5m fischer=10s`,
    /// `main=90m` (absolute). Words are separated by spaces; `main` may be left out (zero main
    /// time: the game starts in the overtime).
    fn from_str(text: &str) -> Result<TimeSystem, TimeSystemError> {
        let mut main: Option<u64> = None;
        let mut overtime: Option<Overtime> = None;
        for word in text.split_whitespace() {
            let (key, value) = word
                .split_once('=')
                .ok_or_else(|| TimeSystemError::UnknownPart(word.to_string()))?;
            if key == "main" {
                if main.is_some() {
                    return Err(TimeSystemError::Repeated(key.to_string()));
                }
                main = Some(parse_duration(value)?);
                continue;
            }
            let parsed = match key {
                "cn" | "jp" => {
                    let (n, d) = value
                        .split_once('x')
                        .ok_or_else(|| TimeSystemError::UnknownPart(word.to_string()))?;
                    let (n, d) = (parse_count(n)?, parse_duration(d)?);
                    if key == "cn" {
                        Overtime::Counting {
                            units: n,
                            unit_ms: d,
                        }
                    } else {
                        Overtime::ByoYomi {
                            periods: n,
                            period_ms: d,
                        }
                    }
                }
                "ca" => {
                    let (n, d) = value
                        .split_once('/')
                        .ok_or_else(|| TimeSystemError::UnknownPart(word.to_string()))?;
                    Overtime::Canadian {
                        stones: parse_count(n)?,
                        period_ms: parse_duration(d)?,
                    }
                }
                "fischer" => {
                    let (inc, cap) = match value.split_once('/') {
                        Some((i, c)) => (i, Some(parse_duration(c)?)),
                        None => (value, None),
                    };
                    Overtime::Fischer {
                        increment_ms: parse_duration(inc)?,
                        cap_ms: cap,
                    }
                }
                _ => return Err(TimeSystemError::UnknownPart(word.to_string())),
            };
            if overtime.is_some() {
                return Err(TimeSystemError::Repeated(key.to_string()));
            }
            overtime = Some(parsed);
        }
        let system = TimeSystem {
            main_ms: main.unwrap_or(0),
            overtime: overtime.unwrap_or(Overtime::Absolute),
        };
        match system.overtime {
            Overtime::Counting { unit_ms: 0, .. }
            | Overtime::ByoYomi { period_ms: 0, .. }
            | Overtime::Canadian { period_ms: 0, .. } => Err(TimeSystemError::Invalid(
                "overtime periods must last longer than 0 s",
            )),
            Overtime::Absolute if system.main_ms == 0 => Err(TimeSystemError::Invalid(
                "no time at all: give main= or an overtime",
            )),
            Overtime::Fischer { .. } if system.main_ms == 0 => Err(TimeSystemError::Invalid(
                "Fischer needs a main time to add the increment to",
            )),
            _ => Ok(system),
        }
    }
}

impl fmt::Display for TimeSystem {
    /// The text form [`TimeSystem::from_str`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |ms: u64| format!("{}s", fmt_seconds(ms));
        write!(f, "main={}", s(self.main_ms))?;
        match self.overtime {
            Overtime::Absolute => Ok(()),
            Overtime::Counting { units, unit_ms } => write!(f, " cn={units}x{}", s(unit_ms)),
            Overtime::ByoYomi { periods, period_ms } => {
                write!(f, " jp={periods}x{}", s(period_ms))
            }
            Overtime::Canadian { stones, period_ms } => {
                write!(f, " ca={stones}/{}", s(period_ms))
            }
            Overtime::Fischer {
                increment_ms,
                cap_ms,
            } => {
                write!(f, " fischer={}", s(increment_ms))?;
                match cap_ms {
                    Some(c) => write!(f, "/{}", s(c)),
                    None => Ok(()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_issue_forms_parse() {
        let t: TimeSystem = "main=60m cn=5x60s".parse().unwrap();
        assert_eq!(t.main_ms, 3_600_000);
        assert_eq!(
            t.overtime,
            Overtime::Counting {
                units: 5,
                unit_ms: 60_000
            }
        );
        let t: TimeSystem = "main=10m jp=3x30s".parse().unwrap();
        assert_eq!(
            (t.main_ms, t.overtime),
            (
                600_000,
                Overtime::ByoYomi {
                    periods: 3,
                    period_ms: 30_000
                }
            )
        );
        let t: TimeSystem = "main=5m ca=10/300s".parse().unwrap();
        assert_eq!(
            t.overtime,
            Overtime::Canadian {
                stones: 10,
                period_ms: 300_000
            }
        );
        let t: TimeSystem = "main=5m fischer=10s".parse().unwrap();
        assert_eq!(
            t.overtime,
            Overtime::Fischer {
                increment_ms: 10_000,
                cap_ms: None
            }
        );
        assert_eq!(parse_duration("1h30m").unwrap(), 5_400_000);
        assert_eq!(parse_duration("2.5s").unwrap(), 2_500);
        let t: TimeSystem = "jp=3x30s".parse().unwrap();
        assert_eq!(t.main_ms, 0);
        assert_eq!(t.sgf_ot().as_deref(), Some("3x30 byo-yomi"));
    }

    #[test]
    fn bad_texts_say_what_is_wrong() {
        for (text, needle) in [
            ("main=60", "not a duration"),
            ("main=60x", "not a duration"),
            ("main=5m main=6m", "twice"),
            ("main=5m cn=5x60s jp=3x30s", "twice"),
            ("main=5m cn=0x60s", "not a count"),
            ("main=5m jp=3x0s", "longer than 0"),
            ("main=0s", "no time"),
            ("byo=3", "expected main="),
            ("main=5m ca=10x300s", "expected main="),
            ("main=1000h", "not a duration"),
        ] {
            let e = text.parse::<TimeSystem>().unwrap_err().to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    proptest! {
        #[test]
        fn display_reads_back(main in 0u64..360_000_000, n in 1u32..100, d in 1u64..3_600_000, kind in 0..5) {
            let overtime = match kind {
                0 => Overtime::Absolute,
                1 => Overtime::Counting { units: n, unit_ms: d },
                2 => Overtime::ByoYomi { periods: n, period_ms: d },
                3 => Overtime::Canadian { stones: n, period_ms: d },
                _ => Overtime::Fischer { increment_ms: d, cap_ms: Some(d * 2) },
            };
            let main_ms = if matches!(overtime, Overtime::Absolute | Overtime::Fischer { .. }) { main.max(1) } else { main };
            let t = TimeSystem { main_ms, overtime };
            prop_assert_eq!(t.to_string().parse::<TimeSystem>(), Ok(t));
        }

        #[test]
        fn any_text_is_parsed_or_refused_without_panic(s in "\\PC{0,40}") {
            let _ = s.parse::<TimeSystem>();
        }
    }
}
