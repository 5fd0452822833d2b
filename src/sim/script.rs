//! Board scripts (DESIGN.md "Board scripts", README "Board scripts"): physical actions, one
//! a line.
//!
//! ```text
//! size 19                      # header lines first (all optional)
//! komi 7.5
//! at 0     place B Q16         # ms from the start, then the action
//! at 1800  remove C3 C4
//! ```
//!
//! Besides the players' actions (`place`, `remove`, `slide`, `hand`, `glitch`, `pass`,
//! `resign`, `clock`, `scatter`) and `unplug MS`, a script can break the serial link
//! (hardware/PROTOCOL.md §9; [`LinkFault`](super::action::LinkFault)); MS is board time in ms:
//!
//! ```text
//! at 4000  garbage 500         # 500 ms of random bytes instead of the scans
//! at 4600  cut                 # the next frame: its first half sent, the rest dropped
//! at 4700  badcrc              # the next frame with a corrupted CRC
//! at 5000  silence 5000        # 5 s without a byte either way; the players play on
//! at 11000 replug 3000         # the pty closed; 3 s later a new /dev/pts node, same link path
//! at 15000 reset               # the board restarts: no session until the host's Hello
//! at 16000 reset hello         # … and sends an unasked HelloAck and scans from counter 0
//! at 17000 reset stream        # … and streams scans from counter 0 without a HelloAck
//! ```

use super::action::{Action, LinkFault, ResetKind, TimedAction};
use crate::clock::TimeSystem;
use crate::referee::GameSetup;
use crate::rules::{Color, Point};
use smartgoban_protocol::Cell;

/// A parsed board script.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    /// The game the header describes (size, komi, handicap stones, first mover).
    pub setup: GameSetup,
    /// The `time …` header (`time main=60m cn=5x60s`), also in `setup.time`.
    pub time: Option<TimeSystem>,
    /// The `profile …` header (`cn2002` or `cn1988`).
    pub profile: Option<String>,
    /// Actions sorted by time (stable: same-time actions keep their order).
    pub actions: Vec<TimedAction>,
}

/// A script line that cannot be read. `line` counts from 1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("script line {line}: {message}")]
pub struct ScriptError {
    /// Line number, from 1.
    pub line: usize,
    /// What is wrong, naming the bad value.
    pub message: String,
}

impl Script {
    /// Parses a script. Every error names the line and the value at fault.
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        let mut size: u8 = 19;
        let mut komi: Option<f64> = Some(7.5);
        let mut handicap: u8 = 0;
        let mut time = None;
        let mut profile = None;
        let mut actions = Vec::new();
        let mut in_header = true;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let err = |message: String| ScriptError {
                line: line_no,
                message,
            };
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let (keyword, rest) = (words[0], &words[1..]);
            if keyword != "at" {
                if !in_header {
                    return Err(err(format!(
                        "header line `{keyword}` after the first `at` line (header lines come first)"
                    )));
                }
                let one = |what: &str| -> Result<&str, ScriptError> {
                    match rest {
                        [v] => Ok(v),
                        _ => Err(err(format!("`{what}` takes exactly one value"))),
                    }
                };
                match keyword {
                    "size" => {
                        let v = one("size")?;
                        size = match v.parse::<u8>() {
                            Ok(s @ (9 | 13 | 19)) => s,
                            _ => return Err(err(format!("board size `{v}`: use 9, 13 or 19"))),
                        };
                    }
                    "komi" => {
                        let v = one("komi")?;
                        let k: f64 = v
                            .parse()
                            .ok()
                            .filter(|k: &f64| k.is_finite() && k.abs() <= 1000.0)
                            .ok_or_else(|| err(format!("komi `{v}` is not a number of points")))?;
                        komi = Some(k);
                    }
                    "handicap" => {
                        let v = one("handicap")?;
                        handicap = v
                            .parse::<u8>()
                            .ok()
                            .filter(|&h| h <= 9)
                            .ok_or_else(|| err(format!("handicap `{v}`: use 0 to 9 stones")))?;
                    }
                    "time" => {
                        let text = rest.join(" ");
                        time = Some(
                            text.parse::<TimeSystem>()
                                .map_err(|e| err(format!("time `{text}`: {e}")))?,
                        );
                    }
                    "profile" => {
                        let v = one("profile")?;
                        if v != "cn2002" && v != "cn1988" {
                            return Err(err(format!("profile `{v}`: use cn2002 or cn1988")));
                        }
                        profile = Some(v.to_string());
                    }
                    other => return Err(err(format!("unknown header or action `{other}`"))),
                }
                continue;
            }
            in_header = false;
            let [at, verb, args @ ..] = rest else {
                return Err(err("`at` needs a time in ms and an action".to_string()));
            };
            let at_ms: u64 = at.parse().ok().filter(|&t| t <= MAX_MS).ok_or_else(|| {
                err(format!(
                    "time `{at}`: use a whole number of ms up to {MAX_MS} (24 h)"
                ))
            })?;
            let action = parse_action(verb, args, size).map_err(err)?;
            actions.push(TimedAction { at_ms, action });
        }
        actions.sort_by_key(|a| a.at_ms);
        // Chinese rules: a handicap is placed freely by Black (the script puts the stones).
        let mut setup = GameSetup::free_handicap(size, handicap);
        setup.info.komi = komi;
        setup.time = time;
        if let Some(t) = &time {
            setup.info.time_limit = Some(t.sgf_tm());
            setup.info.overtime = t.sgf_ot();
        }
        Ok(Script {
            setup,
            time,
            profile,
            actions,
        })
    }
}

fn parse_color(word: &str) -> Result<Color, String> {
    match word {
        "B" | "b" => Ok(Color::Black),
        "W" | "w" => Ok(Color::White),
        other => Err(format!("player `{other}`: use B or W")),
    }
}

fn parse_point(word: &str, size: u8) -> Result<Point, String> {
    Point::from_gtp(word, size).map_err(|e| format!("point `{word}`: {e}"))
}

/// Longest time a script may name, ms (24 h).
pub const MAX_MS: u64 = 86_400_000;

/// A whole number from 0 to `max` (which fits `T`), or an error naming `what` and the range.
fn parse_num<T: TryFrom<u64>>(word: &str, what: &str, max: u64) -> Result<T, String> {
    let too_large = || format!("{what} `{word}` is too large: at most {max}");
    let n: u64 = word.parse().map_err(|_| {
        if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
            too_large() // beyond u64
        } else {
            format!("{what} `{word}` is not a whole number")
        }
    })?;
    if n > max {
        return Err(format!("{what} `{word}` is too large: at most {max}"));
    }
    T::try_from(n).map_err(|_| too_large())
}

fn parse_ms(word: &str, what: &str) -> Result<u64, String> {
    let ms: u64 = word.parse().map_err(|_| {
        if !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit()) {
            format!("{what} `{word}`: at most {MAX_MS} ms (24 h)")
        } else {
            format!("{what} `{word}` is not a whole number of ms")
        }
    })?;
    if ms <= MAX_MS {
        Ok(ms)
    } else {
        Err(format!("{what} `{word}`: at most {MAX_MS} ms (24 h)"))
    }
}

fn parse_action(verb: &str, args: &[&str], size: u8) -> Result<Action, String> {
    let arity = |n: usize| -> Result<(), String> {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!("`{verb}` takes {n} value(s), got {}", args.len()))
        }
    };
    Ok(match verb {
        "place" => {
            arity(2)?;
            Action::Place {
                color: parse_color(args[0])?,
                point: parse_point(args[1], size)?,
            }
        }
        "remove" => {
            if args.is_empty() {
                return Err("`remove` needs at least one point".to_string());
            }
            Action::Remove {
                points: args
                    .iter()
                    .map(|a| parse_point(a, size))
                    .collect::<Result<_, _>>()?,
            }
        }
        "slide" => {
            arity(2)?;
            Action::Slide {
                from: parse_point(args[0], size)?,
                to: parse_point(args[1], size)?,
            }
        }
        "hand" => {
            arity(3)?;
            Action::Hand {
                center: parse_point(args[0], size)?,
                radius: parse_num(args[1], "radius", u64::from(size))?,
                duration_ms: parse_ms(args[2], "duration")?,
            }
        }
        "glitch" => {
            arity(3)?;
            let reading = match args[1] {
                "X" | "x" => Cell::Black,
                "O" | "o" => Cell::White,
                "." => Cell::Empty,
                "?" => Cell::Uncertain,
                other => return Err(format!("reading `{other}`: use X, O, . or ?")),
            };
            Action::Glitch {
                point: parse_point(args[0], size)?,
                reading,
                scans: parse_num(args[2], "scan count", u64::from(u32::MAX))?,
            }
        }
        "pass" => {
            arity(1)?;
            Action::Pass(parse_color(args[0])?)
        }
        "resign" => {
            arity(1)?;
            Action::Resign(parse_color(args[0])?)
        }
        "clock" => {
            arity(1)?;
            Action::Clock(parse_color(args[0])?)
        }
        "unplug" => {
            arity(1)?;
            Action::Unplug {
                duration_ms: parse_ms(args[0], "duration")?,
            }
        }
        "garbage" => {
            arity(1)?;
            Action::Fault(LinkFault::Garbage {
                duration_ms: parse_ms(args[0], "duration")?,
            })
        }
        "cut" => {
            arity(0)?;
            Action::Fault(LinkFault::Cut)
        }
        "badcrc" => {
            arity(0)?;
            Action::Fault(LinkFault::BadCrc)
        }
        "silence" => {
            arity(1)?;
            Action::Fault(LinkFault::Silence {
                duration_ms: parse_ms(args[0], "duration")?,
            })
        }
        "replug" => {
            arity(1)?;
            Action::Fault(LinkFault::Replug {
                duration_ms: parse_ms(args[0], "duration")?,
            })
        }
        "reset" => Action::Fault(LinkFault::Reset(match args {
            [] => ResetKind::Silent,
            ["hello"] => ResetKind::Hello,
            ["stream"] => ResetKind::Stream,
            [other] => {
                return Err(format!(
                    "reset `{other}`: use `reset`, `reset hello` or `reset stream`"
                ))
            }
            _ => {
                return Err(format!(
                    "`reset` takes at most 1 value (hello or stream), got {}",
                    args.len()
                ))
            }
        })),
        "scatter" => {
            arity(1)?;
            Action::Scatter {
                count: parse_num(args[0], "stone count", u64::from(size) * u64::from(size))?,
            }
        }
        other => return Err(format!("unknown action `{other}`")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESIGN_EXAMPLE: &str = "\
size 19                      # header lines first (all optional): size, komi (points), handicap,
komi 7.5                     # time (e.g. `time main=60m cn=5x60s`), profile (cn2002|cn1988)
at 0     place B Q16         # a stone is put on a point
at 900   clock B             # B presses the clock
at 1500  place W D4
at 1800  remove C3 C4        # stones lifted off the board
at 2000  slide D4 D5         # a stone pushed from one point to another
at 2100  hand D4 2 400       # a hand over D4, radius 2 points, for 400 ms
at 2600  glitch K10 X 1      # one point misreads (X, O or .) for N scans
at 3000  pass B              # pass gesture
at 3100  resign W
at 4000  unplug 1500         # serial link down for 1500 ms
at 5000  scatter 3           # 3 stones knocked off their points (seeded random)
";

    #[test]
    fn parses_the_design_example() {
        let s = Script::parse(DESIGN_EXAMPLE).unwrap();
        assert_eq!(s.setup.size(), 19);
        assert_eq!(s.setup.info.komi, Some(7.5));
        assert_eq!(s.actions.len(), 11);
        let q16 = Point::from_gtp("Q16", 19).unwrap();
        assert_eq!(
            s.actions[0],
            TimedAction {
                at_ms: 0,
                action: Action::Place {
                    color: Color::Black,
                    point: q16
                }
            }
        );
        assert_eq!(
            s.actions[5].action,
            Action::Hand {
                center: Point::from_gtp("D4", 19).unwrap(),
                radius: 2,
                duration_ms: 400
            }
        );
        assert_eq!(s.actions[10].action, Action::Scatter { count: 3 });
    }

    #[test]
    fn handicap_header_is_a_free_placement() {
        let s = Script::parse("size 9\nhandicap 4\nkomi 0.5\n").unwrap();
        assert!(s.setup.setup.is_empty());
        assert_eq!(s.setup.free_handicap, 4);
        assert_eq!(s.setup.info.handicap, 4);
        assert_eq!(s.setup.info.komi, Some(0.5));
    }

    #[test]
    fn errors_name_the_line_and_value() {
        let cases = [
            ("size 21\n", 1, "21"),
            ("at 0 place B Z99\n", 1, "Z99"),
            ("\n\nat x place B D4\n", 3, "`x`"),
            ("at 0 place B D4\nsize 9\n", 2, "header"),
            ("at 0 jump B D4\n", 1, "jump"),
            ("at 0 place Q D4\n", 1, "`Q`"),
            ("komi lots\n", 1, "lots"),
            ("at 0 glitch D4 Z 2\n", 1, "`Z`"),
            ("at 0 place B I5\n", 1, "I5"),
            ("at 100000000 place B D4\n", 1, "24 h"),
            ("at 0 unplug 18446744073709551615\n", 1, "at most"),
            ("at 0 garbage\n", 1, "`garbage` takes 1 value(s), got 0"),
            ("at 0 garbage lots\n", 1, "`lots`"),
            ("at 0 garbage 100000000\n", 1, "at most"),
            ("at 0 cut 3\n", 1, "`cut` takes 0 value(s), got 1"),
            ("\nat 0 badcrc D4\n", 2, "`badcrc` takes 0"),
            ("at 0 silence -5\n", 1, "`-5`"),
            ("at 0 silence 1 2\n", 1, "`silence` takes 1"),
            ("at 0 replug\n", 1, "`replug` takes 1"),
            ("at 0 reset now\n", 1, "`now`"),
            ("at 0 reset hello stream\n", 1, "at most 1"),
            ("at 0 unplugg 5\n", 1, "unknown action `unplugg`"),
            (
                "size 19\nat 0 hand D4 99999 500\n",
                2,
                "radius `99999` is too large: at most 19",
            ),
            (
                "at 0 hand D4 2.5 500\n",
                1,
                "radius `2.5` is not a whole number",
            ),
            (
                "at 0 glitch D4 X 99999999999\n",
                1,
                "scan count `99999999999` is too large",
            ),
            (
                "size 9\nat 0 scatter 82\n",
                2,
                "stone count `82` is too large: at most 81",
            ),
            (
                "at 0 scatter -1\n",
                1,
                "stone count `-1` is not a whole number",
            ),
            (
                "at 0 hand D4 18446744073709551616 500\n",
                1,
                "too large: at most 19",
            ),
            (
                "at 0 hand D4 2 99999999999999999999999\n",
                1,
                "at most 86400000 ms",
            ),
        ];
        for (text, line, needle) in cases {
            let e = Script::parse(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.to_string().contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn link_faults_parse() {
        let s = Script::parse(
            "size 9\n\
             at 4000 garbage 500\n\
             at 4600 cut\n\
             at 4700 badcrc # a comment\n\
             at 5000 silence 5000\n\
             at 11000 replug 3000\n\
             at 15000 reset\n\
             at 16000 reset hello\n\
             at 17000 reset stream\n",
        )
        .unwrap();
        let got: Vec<(u64, Action)> = s.actions.into_iter().map(|a| (a.at_ms, a.action)).collect();
        use LinkFault::*;
        assert_eq!(
            got,
            vec![
                (4000, Action::Fault(Garbage { duration_ms: 500 })),
                (4600, Action::Fault(Cut)),
                (4700, Action::Fault(BadCrc)),
                (5000, Action::Fault(Silence { duration_ms: 5000 })),
                (11000, Action::Fault(Replug { duration_ms: 3000 })),
                (15000, Action::Fault(Reset(ResetKind::Silent))),
                (16000, Action::Fault(Reset(ResetKind::Hello))),
                (17000, Action::Fault(Reset(ResetKind::Stream))),
            ]
        );
    }

    #[test]
    fn the_readme_example_parses() {
        // Every action the README's board-script block lists parses.
        let readme =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
        let start = readme.find("## Board scripts").unwrap();
        let block = readme[start..].split("```").nth(1).unwrap();
        let s = Script::parse(block).unwrap();
        assert!(s
            .actions
            .iter()
            .any(|a| a.action == Action::Fault(LinkFault::Reset(ResetKind::Stream))));
    }
}
