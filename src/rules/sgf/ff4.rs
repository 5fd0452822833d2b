//! The FF[4] forms of `RE` (result) and `DT` (date) (SGF FF[4] specification, "Game info
//! properties"), and the mapping of the forms real records use instead.
//!
//! Records in the wild write `RE[W+Resign]`, `RE[draw]`, `RE[黑中盘胜]`, `RE[白胜7子半]`,
//! `DT[2016-12-29 19:01:34]`, `DT[2011.03.05]`, `DT[1998年]`. The reader keeps them as
//! written ([`super::GameInfo`]); the writer writes only FF[4] syntax: a value already in
//! that form as it is, a value that maps to it without loss as the mapped form, and what
//! cannot be mapped whole in the game comment (`GC`, one line `RE as recorded: …`) beside
//! whatever part of it does map (the winner, the day).

/// A value in its FF[4] form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mapped {
    /// The value says exactly this in FF[4] form (`W+Resign` is already FF[4]; `draw` is `0`).
    Whole(String),
    /// This much of it maps (`黑胜14子`: `B+`; `2016-12-29 19:01:34`: `2016-12-29`); the rest
    /// is kept as written, in a comment.
    Part(String),
    /// Nothing of it maps: kept as written, in a comment.
    Not,
}

/// Whether `s` is an FF[4] result: `0`, `Draw`, `Void`, `?`, or `B+`/`W+` followed by
/// nothing, a score (`7.5`), `R`/`Resign`, `T`/`Time` or `F`/`Forfeit`.
pub fn is_result(s: &str) -> bool {
    if matches!(s, "0" | "Draw" | "Void" | "?") {
        return true;
    }
    let Some(rest) = s.strip_prefix("B+").or_else(|| s.strip_prefix("W+")) else {
        return false;
    };
    matches!(rest, "" | "R" | "Resign" | "T" | "Time" | "F" | "Forfeit") || is_score(rest)
}

/// A real number as SGF writes it: digits, optionally a point and digits.
fn is_score(s: &str) -> bool {
    let (whole, fraction) = s.split_once('.').unwrap_or((s, "0"));
    !whole.is_empty()
        && !fraction.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// The FF[4] form of a result as written (see the module docs for what maps).
pub fn result(written: &str) -> Mapped {
    let s = written.trim();
    if is_result(s) {
        return Mapped::Whole(s.to_string());
    }
    let lower = s.to_lowercase();
    match lower.as_str() {
        "draw" | "jigo" | "tie" | "和" | "和棋" | "持碁" | "무승부" => {
            return Mapped::Whole("0".into())
        }
        "void" | "no result" | "无胜负" | "無勝負" => return Mapped::Whole("Void".into()),
        "unknown" => return Mapped::Whole("?".into()),
        _ => {}
    }
    latin_result(&lower).unwrap_or_else(|| cjk_result(s))
}

/// `B`, `w+resign`, `B + 3.5`, `W+3,5`, `B+AW` (winner only), … — `lower` is lower-case.
fn latin_result(lower: &str) -> Option<Mapped> {
    let winner = match lower.as_bytes().first()? {
        b'b' => 'B',
        b'w' => 'W',
        _ => return None,
    };
    let rest = lower[1..].trim_start();
    let rest = match rest.strip_prefix('+') {
        Some(r) => r.trim(),
        None if rest.is_empty() => "",
        None => return None, // `black wins`, `white+`…: words, not a winner's letter
    };
    let how = match rest {
        "" => String::new(),
        "r" | "res" | "resign" | "resignation" => "R".into(),
        "t" | "time" => "T".into(),
        "f" | "forfeit" => "F".into(),
        score if is_score(&score.replace(',', ".")) => score.replace(',', "."),
        _ => return Some(Mapped::Part(format!("{winner}+"))),
    };
    Some(Mapped::Whole(format!("{winner}+{how}")))
}

/// Chinese, Japanese and Korean results: `黑中盘胜` (B+R), `白胜` (W+), `黑超时负` (W+T),
/// `白胜7子半` (W+, the margin kept as written).
fn cjk_result(s: &str) -> Mapped {
    let black = s.contains('黑') || s.contains('黒') || s.contains('흑');
    let white = s.contains('白') || s.contains('백');
    let wins = s.contains('胜') || s.contains('勝') || s.contains('승');
    let loses = s.contains('负') || s.contains('負') || s.contains('패');
    let winner = match (black, white, wins, loses) {
        (true, false, true, false) => 'B',
        (false, true, true, false) => 'W',
        (true, false, false, true) => 'W',
        (false, true, false, true) => 'B',
        _ => return Mapped::Not,
    };
    let core: String = s
        .replace("勝ち", "勝")
        .replace("負け", "負")
        .chars()
        .filter(|c| !"黑黒흑白백胜勝승负負패".contains(*c))
        .collect();
    match core.trim() {
        "" => Mapped::Whole(format!("{winner}+")),
        "中盘" | "中押" | "中押し" | "불계" => Mapped::Whole(format!("{winner}+R")),
        "超时" | "超時" | "時間切れ" | "시간" => Mapped::Whole(format!("{winner}+T")),
        _ => Mapped::Part(format!("{winner}+")),
    }
}

/// Whether `s` is an FF[4] date list: `YYYY`, `YYYY-MM` or `YYYY-MM-DD` first, then, after
/// commas, the same or the shortcuts `MM-DD` and `DD` (`1996-05-06,07,08`).
pub fn is_date(s: &str) -> bool {
    let mut first = true;
    s.split(',').all(|d| {
        let parts: Vec<&str> = d.split('-').collect();
        let full = parts[0].len() == 4;
        let ok = match (full, parts.as_slice()) {
            (true, [y]) => digits(y),
            (true, [y, m]) => digits(y) && month(m),
            (true, [y, m, dd]) => digits(y) && month(m) && day(dd),
            (false, [m, dd]) if !first => month(m) && day(dd),
            (false, [dd]) if !first => day(dd),
            _ => false,
        };
        first = false;
        ok
    })
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn month(s: &str) -> bool {
    s.len() == 2 && digits(s) && (1..=12).contains(&s.parse::<u8>().unwrap_or(0))
}

fn day(s: &str) -> bool {
    s.len() == 2 && digits(s) && (1..=31).contains(&s.parse::<u8>().unwrap_or(0))
}

/// The FF[4] form of a date as written: a valid date list as it is; a year, month and day
/// with other separators (`2011.03.05`, `2011/3/5`, `2011年3月5日`) as `2011-03-05`; a time
/// of day after it (`2016-12-29 19:01:34`) is not FF[4]: the day is written, the whole value
/// kept in a comment.
pub fn date(written: &str) -> Mapped {
    let s = written.trim();
    if is_date(s) {
        return Mapped::Whole(s.to_string());
    }
    let mut fields: Vec<u32> = Vec::new();
    let mut rest = s;
    while fields.len() < 3 {
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        let wanted = if fields.is_empty() { 4..=4 } else { 1..=2 };
        if !wanted.contains(&n) {
            break;
        }
        let Ok(v) = rest[..n].parse::<u32>() else {
            break;
        };
        let valid = match fields.len() {
            0 => true,
            1 => (1..=12).contains(&v),
            _ => (1..=31).contains(&v),
        };
        if !valid {
            break;
        }
        fields.push(v);
        rest = &rest[n..];
        // the separator after this field, if another follows
        let sep = rest.chars().next();
        let next_is_digit = |r: &str| r.bytes().next().is_some_and(|b| b.is_ascii_digit());
        match sep {
            Some(c @ ('-' | '.' | '/' | '年' | '月')) if next_is_digit(&rest[c.len_utf8()..]) => {
                rest = &rest[c.len_utf8()..];
            }
            Some(c @ ('年' | '月' | '日')) => {
                rest = &rest[c.len_utf8()..];
                break;
            }
            _ => break,
        }
    }
    let mapped = match fields.as_slice() {
        [] => return Mapped::Not,
        [y] => format!("{y:04}"),
        [y, m] => format!("{y:04}-{m:02}"),
        [y, m, d, ..] => format!("{y:04}-{m:02}-{d:02}"),
    };
    if rest.trim().is_empty() {
        Mapped::Whole(mapped)
    } else {
        Mapped::Part(mapped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(s: &str) -> Mapped {
        Mapped::Whole(s.into())
    }

    fn part(s: &str) -> Mapped {
        Mapped::Part(s.into())
    }

    #[test]
    fn results_already_in_ff4_form_are_kept() {
        for re in [
            "0",
            "Draw",
            "Void",
            "?",
            "B+",
            "W+R",
            "B+Resign",
            "W+T",
            "B+Time",
            "W+F",
            "B+Forfeit",
            "W+7.5",
            "B+0.0",
            "W+1.25",
            "B+12",
        ] {
            assert!(is_result(re), "{re}");
            assert_eq!(result(re), whole(re), "{re}");
        }
        for re in [
            "B+7.", "B+.5", "W+-3", "B+resign", "Black+R", "W", "draw", "B+AW",
        ] {
            assert!(!is_result(re), "{re}");
        }
    }

    #[test]
    fn results_in_other_forms_map_to_ff4() {
        let cases = [
            ("W", whole("W+")),
            ("b", whole("B+")),
            ("draw", whole("0")),
            ("Jigo", whole("0")),
            ("和棋", whole("0")),
            ("void", whole("Void")),
            ("w+resign", whole("W+R")),
            ("B + 3.5", whole("B+3.5")),
            ("W+3,5", whole("W+3.5")),
            ("b+time", whole("B+T")),
            ("B+AW", part("B+")),
            ("W+J", part("W+")),
            ("B+V", part("B+")),
            ("黑胜", whole("B+")),
            ("白胜", whole("W+")),
            ("黑中盘胜", whole("B+R")),
            ("黒中押し勝ち", whole("B+R")),
            ("백 불계승", whole("W+R")),
            ("백불계승", whole("W+R")),
            ("黑超时负", whole("W+T")),
            ("黑胜14子", part("B+")),
            ("白胜7子半", part("W+")),
            ("黑胜九子半", part("B+")),
            ("172 白胜", part("W+")),
            ("黑负白胜", Mapped::Not),
            ("black wins", Mapped::Not),
            ("", Mapped::Not),
        ];
        for (written, mapped) in cases {
            assert_eq!(result(written), mapped, "{written}");
        }
    }

    #[test]
    fn dates_already_in_ff4_form_are_kept() {
        for dt in [
            "2016",
            "2016-12",
            "2016-12-29",
            "1996-05-06,07,08",
            "1996-05-06,06-01",
            "1996,1997",
        ] {
            assert!(is_date(dt), "{dt}");
            assert_eq!(date(dt), whole(dt), "{dt}");
        }
        for dt in [
            "16-12-29",
            "2016-13-01",
            "2016-12-32",
            "2016-1-5",
            "05-06",
            "2016-12-29 19:01",
        ] {
            assert!(!is_date(dt), "{dt}");
        }
    }

    #[test]
    fn dates_in_other_forms_map_to_ff4() {
        let cases = [
            ("2011.03.05", whole("2011-03-05")),
            ("2011/3/5", whole("2011-03-05")),
            ("2011年3月5日", whole("2011-03-05")),
            ("1998年", whole("1998")),
            ("2011.03", whole("2011-03")),
            ("2016-12-29 19:01:34", part("2016-12-29")),
            ("2011.03.05 14:30", part("2011-03-05")),
            ("2016-13-29", part("2016")),
            ("March 2011", Mapped::Not),
            ("16/12/29", Mapped::Not),
            ("", Mapped::Not),
        ];
        for (written, mapped) in cases {
            assert_eq!(date(written), mapped, "{written}");
        }
    }
}
