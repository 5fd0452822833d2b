//! Issue 14: `smartgoban score` (the library's [`score`], which `score --json` prints) on every
//! game of the corpus that was counted under the Chinese rules and whose record ends in a
//! finished position, compared with the record's `RE`: the whole corpus of
//! `../shared/data/games` where it exists, and everywhere the sample of `tests/fixtures/games`
//! (so a clone without `../shared` runs the sample).
//!
//! Prints a report (`cargo test --test rules_score_corpus -- --nocapture`): each game's rules,
//! recorded and counted margins, and for the games that differ the reason class. Fails when
//! agreement falls below the floor measured (see [`corpus_games_counted_under_chinese_rules`]).
//!
//! Which games qualify:
//!
//! 1. **A counted result**: `RE` with a margin. `B+3.5`, `W+0.5` are points; a margin that is
//!    not a multiple of ½ is in stones (子, Tencent `B+0.2` = ¼ stone = ½ point, Golaxy
//!    `W+1.25` = 1¼ stones). Chinese results: `黑胜14子`, `白胜7子半`, `黑胜九子半`,
//!    `白胜0.5子`, `白胜半子` (numerals in figures or in Chinese, 半 = ½) are in stones, one
//!    stone = two points (G9); a margin in 目 is in points of **territory** (Japanese
//!    counting), so the game was not counted by area and does not qualify. `B+R`, `W+T`,
//!    bare winners, and Fox's `B+0.0`/`W+0.0` (Fox's mark for a game stopped early, never a
//!    count) are not counts.
//! 2. **Counted under the Chinese rules**: `RU[Chinese]`; a result in stones; or no `RU` and a
//!    komi other than 6.5 (7.5, or none: C2's 3¾ stones; the AlphaGo–Fan Hui games have no
//!    `KM` and were played under Chinese rules with 7.5). Not: `RU[Japanese]`/`RU[Korean]`
//!    (Fox writes `RU[Japanese]`), and no `RU` with 6.5 komi (the Master games on Tygem/Fox,
//!    territory counting). Classical records (a Chinese result in 子, no `KM`) were played
//!    without komi: they are scored with `--komi 0`.
//! 3. **A finished position** ([`unsettled`]): with the proposed dead stones taken off, every
//!    neutral point touches a black and a white stone (no border left open, where a move
//!    would still gain a point), and no chain is in atari (no capture, connection or ko left
//!    to play). No counted record of the corpus ends with two passes, so the position, not
//!    the record's passes, has to say that the game is over.
//!
//! Classical counting had a group tax (还棋头, Ming and Qing): each side gave back one stone
//! per living group (棋头), so a side with more groups than the opponent lost one stone per
//! group of difference; the two eye points every group needs are shared instead of counted.
//! The modern rules (G9, RULES.md) have no group tax and `score` applies none, so a classical
//! result differs from ours by the group difference (groups: connected sets of a side's
//! living stones and territory, [`groups`]). The report gives both; agreement is measured on
//! `score`'s result as it is, and the group tax is a reason class for the games it explains.

use smartgoban::cli::score::{score, Score};
use smartgoban::cli::ScoreArgs;
use smartgoban::rules::{area_map, check_record, AreaPoint, Board, Color, GameRecord, Point};
use std::path::{Path, PathBuf};

/// How a record's result was counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counting {
    /// Area counting under modern Chinese rules, with the record's komi.
    Chinese,
    /// A classical Chinese record: area in stones, no komi, group tax.
    Classical,
    /// Territory counting (Japanese or Korean rules): not compared.
    Territory,
}

/// A recorded result with a margin.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Recorded {
    /// Black's margin in points (negative: White won).
    points: f64,
    /// The margin was written in stones (子).
    stones: bool,
    /// … in 目 (territory points).
    territory: bool,
    /// … in Chinese.
    chinese: bool,
}

/// The value of a numeral in figures (`14`, `0.5`) or Chinese (`九`, `十四`, `二十`), and the
/// rest of the text.
fn numeral(s: &str) -> Option<(f64, &str)> {
    let figures: String = s
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    if !figures.is_empty() {
        return Some((figures.parse().ok()?, &s[figures.len()..]));
    }
    let digit = |c: char| "零一二三四五六七八九".chars().position(|d| d == c);
    let (mut total, mut current, mut len, mut any) = (0u32, 0u32, 0, false);
    for c in s.chars() {
        if let Some(d) = digit(c).or((c == '两').then_some(2)) {
            current = d as u32;
        } else if c == '十' {
            total += current.max(1) * 10;
            current = 0;
        } else if c == '百' {
            total += current.max(1) * 100;
            current = 0;
        } else {
            break;
        }
        any = true;
        len += c.len_utf8();
    }
    any.then(|| (f64::from(total + current), &s[len..]))
}

/// Reads a margin from `RE` (see the module docs); `None` when it is no count.
fn recorded(re: &str) -> Option<Recorded> {
    let re = re.trim();
    if let Some((side, value)) = re.split_once('+') {
        let sign = match side.trim() {
            "B" => 1.0,
            "W" => -1.0,
            _ => return None,
        };
        let v: f64 = value.trim().parse().ok()?;
        if v == 0.0 {
            return None; // Fox: stopped early
        }
        let stones = (v * 2.0).fract() != 0.0;
        // in stones: doubled, to the nearest half point (¼ stone written 0.2)
        let points = if stones { (v * 4.0).round() / 2.0 } else { v };
        return Some(Recorded {
            points: sign * points,
            stones,
            territory: false,
            chinese: false,
        });
    }
    // Chinese: an optional move count first (`217\n白胜0.5子`, `224手 白胜半子`)
    let (sign, rest) = if let Some(k) = re.find("黑胜") {
        (1.0, &re[k + "黑胜".len()..])
    } else if let Some(k) = re.find("白胜") {
        (-1.0, &re[k + "白胜".len()..])
    } else {
        return None;
    };
    let rest = rest.trim();
    let (mut value, mut rest) = numeral(rest).unwrap_or((0.0, rest));
    let half = |rest: &mut &str, value: &mut f64| {
        if let Some(r) = rest.strip_prefix('半') {
            *value += 0.5;
            *rest = r;
        }
    };
    half(&mut rest, &mut value);
    let unit = rest.chars().next()?;
    rest = &rest[unit.len_utf8()..];
    half(&mut rest, &mut value);
    let (stones, territory) = match unit {
        '子' => (true, false),
        '目' => (false, true),
        _ => return None,
    };
    if value == 0.0 || !rest.trim().is_empty() {
        return None;
    }
    let points = if stones { value * 2.0 } else { value };
    Some(Recorded {
        points: sign * points,
        stones,
        territory,
        chinese: true,
    })
}

/// How the record's result was counted (see the module docs, 2).
fn counting(record: &GameRecord, re: &Recorded) -> Counting {
    let rules = record
        .info
        .rules
        .as_deref()
        .unwrap_or("")
        .to_ascii_lowercase();
    if re.territory {
        Counting::Territory
    } else if re.chinese && re.stones && record.info.komi.is_none() {
        Counting::Classical
    } else if rules.contains("chinese") || rules == "cn" || re.stones {
        Counting::Chinese
    } else if !rules.is_empty() || record.info.komi == Some(6.5) {
        Counting::Territory
    } else {
        Counting::Chinese
    }
}

/// Why the position, dead stones taken off, is not finished (see the module docs, 3): the
/// neutral points that do not touch both colours, and the chains in atari (a point of each).
/// Empty for a finished position.
fn unsettled(board: &Board, dead: &[Point]) -> Vec<String> {
    let size = board.size();
    let mut live = board.clone();
    for &p in dead {
        live.put(p, None);
    }
    let map = area_map(board, dead);
    let mut why = Vec::new();
    for (k, share) in map.iter().enumerate() {
        let p = Point::from_index(k, size);
        if *share == AreaPoint::Dame {
            let touches = |c: Color| neighbours(p, size).any(|q| live.get(q) == Some(c));
            if !(touches(Color::Black) && touches(Color::White)) {
                why.push(format!("open {}", p.to_gtp(size)));
            }
        }
    }
    let mut seen = vec![false; map.len()];
    for (p, _) in live.stones() {
        if seen[p.index(size)] {
            continue;
        }
        for q in live.group(p) {
            seen[q.index(size)] = true;
        }
        if live.liberties(p) == 1 {
            why.push(format!("atari {}", p.to_gtp(size)));
        }
    }
    why
}

fn neighbours(p: Point, size: u8) -> impl Iterator<Item = Point> {
    let (x, y) = (i16::from(p.x), i16::from(p.y));
    [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
        .into_iter()
        .filter(move |&(a, b)| a >= 0 && b >= 0 && a < i16::from(size) && b < i16::from(size))
        .map(|(a, b)| Point {
            x: a as u8,
            y: b as u8,
        })
}

/// Living groups (棋头) of `[black, white]` for the classical group tax: connected sets of a
/// side's living stones and the territory they surround (chains sharing an eye are one group).
fn groups(board: &Board, dead: &[Point]) -> [u32; 2] {
    let size = board.size();
    let map = area_map(board, dead);
    let owner = |k: usize| match map[k] {
        AreaPoint::Stone(c) | AreaPoint::Territory(c) => Some(c),
        AreaPoint::Dame => None,
    };
    let mut seen = vec![false; map.len()];
    let mut count = [0u32; 2];
    for start in 0..map.len() {
        let Some(c) = owner(start) else { continue };
        if seen[start] {
            continue;
        }
        count[usize::from(c == Color::White)] += 1;
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(k) = stack.pop() {
            for q in neighbours(Point::from_index(k, size), size) {
                let j = q.index(size);
                if !seen[j] && owner(j) == Some(c) {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
    }
    count
}

/// One game counted by the record, scored.
struct Game {
    name: String,
    counting: Counting,
    re: String,
    want: f64,
    score: Score,
    /// Black's margin in points after the group tax (classical records; else ours).
    taxed: f64,
    groups: [u32; 2],
    /// Black's margin in points by territory counting ([`territory_margin`]).
    territory: f64,
    /// Why the position is not finished ([`unsettled`]); empty for a qualifying game.
    unsettled: Vec<String>,
}

impl Game {
    fn ours(&self) -> f64 {
        self.score.margin_stones * 2.0
    }
}

/// Why a game differs: the first class that explains the recorded margin, else `unexplained`.
///
/// * group tax — a classical record whose margin is ours less one stone per group of
///   difference (还棋头);
/// * komi — the recorded margin is impossible under area counting with the record's `KM`
///   (Black's margin plus komi must be a whole number of points) and fits a usual komi;
/// * territory — the recorded margin is this position's territory count (Japanese counting:
///   territory plus prisoners, [`territory_margin`]), not its area count;
/// * neutral points — the recorded margin needs an odd number of neutral points at the count
///   (margin + komi + 1 ≡ neutral points, mod 2) and the position has an even number, or the
///   other way round: the count did not share them half each (R21.2) as they stand;
/// * one point — within ½ stone, none of the above.
fn reason(g: &Game) -> String {
    let ours = g.ours();
    let komi = g.score.komi;
    if g.counting == Counting::Classical && g.taxed == g.want {
        return format!(
            "group tax: {} black and {} white groups, {:+} stones to Black (还棋头), give the \
             recorded result",
            g.groups[0],
            g.groups[1],
            f64::from(g.groups[1]) - f64::from(g.groups[0])
        );
    }
    if (g.want + komi).fract() != 0.0 {
        for usual in [7.5, 6.5, 0.0] {
            if ours + komi - usual == g.want {
                return format!(
                    "komi: the record says KM {komi}, with which no area count ends in {:+} \
                     points; with {usual} this count is the recorded result",
                    g.want
                );
            }
        }
    }
    if g.territory == g.want {
        return format!(
            "territory: the recorded margin is this position's territory count ({:+} points, \
             Japanese counting), not its area count",
            g.territory
        );
    }
    let needs_odd = (g.want + komi + 1.0).rem_euclid(2.0) == 1.0;
    if needs_odd != (g.score.dame % 2 == 1) {
        return format!(
            "neutral points: the recorded margin needs an {} number of neutral points at the \
             count, the position has {}{}",
            if needs_odd { "odd" } else { "even" },
            g.score.dame,
            if g.score.dame == 0 {
                " (a move missing from the record?)"
            } else {
                ", shared half each here (R21.2), played out or shared otherwise in the record"
            }
        );
    }
    if (ours - g.want).abs() <= 1.0 {
        return "one point: within ½ stone".to_string();
    }
    "unexplained".to_string()
}

/// Black's margin in points by territory counting (Japanese): each side's territory (empty
/// points it alone surrounds, and the points of the dead stones in it) plus its prisoners (the
/// stones it captured and the opponent's dead stones), less `komi`.
fn territory_margin(game: &smartgoban::rules::Game, dead: &[Point], komi: f64) -> f64 {
    let board = game.board();
    let mut margin =
        f64::from(game.captures(Color::Black)) - f64::from(game.captures(Color::White));
    for share in area_map(board, dead) {
        match share {
            AreaPoint::Territory(Color::Black) => margin += 1.0,
            AreaPoint::Territory(Color::White) => margin -= 1.0,
            _ => {}
        }
    }
    for &p in dead {
        match board.get(p) {
            Some(Color::White) => margin += 1.0,
            Some(Color::Black) => margin -= 1.0,
            None => {}
        }
    }
    margin - komi
}

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/games");
    dir.join("MANIFEST.tsv").exists().then_some(dir)
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/games")
}

/// The files of a folder's `MANIFEST.tsv` whose `result_kind` is `counted`.
fn counted_files(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (c_file, c_kind) = (col("file"), col("result_kind"));
    lines
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f.len() > c_kind && f[c_kind] == "counted")
        .map(|f| f[c_file].to_string())
        .collect()
}

/// What the run found.
#[derive(Default)]
struct Report {
    games: Vec<Game>,
    unfinished: Vec<Game>,
    territory: Vec<Game>,
    not_counts: Vec<(String, String)>,
}

/// Prints the final board with the count's marks (`SCORE_CORPUS_BOARDS=1`): `X`/`O` living
/// stones, `x`/`o` dead ones, `b`/`w` territory, `?` neutral.
fn print_board(board: &Board, dead: &[Point]) {
    let size = usize::from(board.size());
    let map = area_map(board, dead);
    for (y, row) in board.rows().iter().enumerate() {
        let marks: String = row
            .chars()
            .zip(&map[y * size..(y + 1) * size])
            .map(|(c, share)| match (c, share) {
                ('.', AreaPoint::Dame) => '?',
                ('.', AreaPoint::Territory(Color::Black)) => 'b',
                ('.', AreaPoint::Territory(Color::White)) => 'w',
                (c, AreaPoint::Territory(_)) => c.to_ascii_lowercase(),
                (c, _) => c,
            })
            .collect();
        eprintln!("  {:>2} {marks}", size - y);
    }
}

/// Scores every counted game of `dir`'s manifest as `smartgoban score --json` does (with
/// `--komi 0` for a classical record) and sorts them into the report.
fn run(dir: &Path) -> Report {
    let mut report = Report::default();
    for name in counted_files(dir) {
        let path = dir.join(&name);
        let record = GameRecord::from_sgf_bytes(&std::fs::read(&path).unwrap()).unwrap();
        let re = record.info.result.clone().unwrap_or_default();
        let Some(rec) = recorded(&re) else {
            report.not_counts.push((name, re));
            continue;
        };
        let counting = counting(&record, &rec);
        let args = ScoreArgs {
            file: path,
            dead: "auto".into(),
            komi: (counting == Counting::Classical).then_some(0.0),
            json: true,
        };
        let s = score(&args).unwrap();
        let last = check_record(&record).final_game;
        let board = last.board();
        let dead: Vec<Point> = s
            .dead
            .iter()
            .map(|t| Point::from_gtp(t, board.size()).unwrap())
            .collect();
        if std::env::var_os("SCORE_CORPUS_BOARDS").is_some() {
            eprintln!("{name}: RE {re}, ours {}", s.result);
            print_board(board, &dead);
        }
        let groups = groups(board, &dead);
        let ours = s.margin_stones * 2.0;
        let game = Game {
            taxed: match counting {
                // 还棋头: one stone (two points) per group of difference
                Counting::Classical => ours - 2.0 * (f64::from(groups[0]) - f64::from(groups[1])),
                _ => ours,
            },
            territory: territory_margin(&last, &dead, s.komi),
            unsettled: unsettled(board, &dead),
            name,
            counting,
            re,
            want: rec.points,
            score: s,
            groups,
        };
        if counting == Counting::Territory {
            report.territory.push(game);
        } else if game.unsettled.is_empty() {
            report.games.push(game);
        } else {
            report.unfinished.push(game);
        }
    }
    report
}

/// Prints the report; returns how many qualifying games agree (same winner and margin).
fn print(report: &Report) -> usize {
    let one = |g: &Game| {
        format!(
            "{:<9} RE {:<12} ({:>+5}) ours {:<7} dame {:>3} groups {:>2}/{:<2} taxed {:>+5} \
             territory {:>+5} passes read {}  {}",
            format!("{:?}", g.counting),
            g.re.replace('\n', " "),
            g.want,
            g.score.result,
            g.score.dame,
            g.groups[0],
            g.groups[1],
            g.taxed,
            g.territory,
            g.score.invalid_moves_read_as_passes.len(),
            g.name
        )
    };
    let mut agree = 0;
    eprintln!(
        "{} games qualify (counted under Chinese rules, finished position):",
        report.games.len()
    );
    for g in &report.games {
        let ok = g.ours() == g.want;
        agree += usize::from(ok);
        eprintln!("  {} {}", if ok { "=" } else { "≠" }, one(g));
    }
    eprintln!(
        "agree: {agree} of {} (same winner and margin); differ:",
        report.games.len()
    );
    for g in report.games.iter().filter(|g| g.ours() != g.want) {
        eprintln!("  {} — {}", g.name, reason(g));
    }
    eprintln!(
        "counted under Chinese rules, position not finished (not compared): {}",
        report.unfinished.len()
    );
    for g in &report.unfinished {
        let mut why = g.unsettled.clone();
        if why.len() > 6 {
            let n = why.len();
            why.truncate(5);
            why.push(format!("… {} in all", n));
        }
        eprintln!("  {} [{}]", one(g), why.join(" "));
    }
    let t = &report.territory;
    eprintln!(
        "counted by territory (not compared): {}; for information, the winner of our area \
         count agrees in {}, our territory count equals RE in {}",
        t.len(),
        t.iter()
            .filter(|g| g.ours().signum() == g.want.signum())
            .count(),
        t.iter().filter(|g| g.territory == g.want).count()
    );
    let mut marks: Vec<&str> = report
        .not_counts
        .iter()
        .map(|(_, re)| re.as_str())
        .collect();
    marks.sort_unstable();
    marks.dedup();
    let marks: Vec<String> = marks
        .iter()
        .map(|m| {
            let n = report.not_counts.iter().filter(|(_, re)| re == m).count();
            format!("{m} ×{n}")
        })
        .collect();
    eprintln!(
        "counted, but no margin in RE (not compared): {} ({})",
        report.not_counts.len(),
        marks.join(", ")
    );
    agree
}

#[test]
fn results_are_read_in_points_and_stones() {
    let pts = |re: &str| recorded(re).map(|r| r.points);
    assert_eq!(pts("B+3.5"), Some(3.5));
    assert_eq!(pts("W+2.50"), Some(-2.5));
    assert_eq!(pts("W+1.25"), Some(-2.5), "1¼ stones");
    assert_eq!(pts("B+0.2"), Some(0.5), "¼ stone");
    assert_eq!(pts("B+R"), None);
    assert_eq!(pts("W+0.0"), None, "Fox: stopped early");
    assert_eq!(pts("黑胜14子"), Some(28.0));
    assert_eq!(pts("白胜7子半"), Some(-15.0));
    assert_eq!(pts("白胜14子半"), Some(-29.0));
    assert_eq!(pts("黑胜九子半"), Some(19.0));
    assert_eq!(pts("黑胜二十一子"), Some(42.0));
    assert_eq!(pts("217\n白胜0.5子"), Some(-1.0));
    assert_eq!(pts("224手 白胜半子"), Some(-1.0));
    assert_eq!(pts("黑胜"), None, "winner only");
    assert_eq!(pts("285 黑胜"), None);
    let moku = recorded("黑胜3目半").unwrap();
    assert_eq!((moku.points, moku.territory), (3.5, true));
}

#[test]
fn an_open_border_and_an_atari_are_unsettled() {
    // 5×5, Black on columns A–C, White on D–E. The white stone C5 has one liberty, D5.
    let board = Board::from_rows(&["XXO..", "X.XO.", "X.XO.", "X.XO.", "X.XO."]).unwrap();
    let why = unsettled(&board, &[]);
    assert!(why.iter().any(|w| w == "atari C5"), "{why:?}");
    let finished = Board::from_rows(&["X.XO.", "X.XO.", "X.XO.", "X.XO.", "X.XO."]).unwrap();
    assert!(unsettled(&finished, &[]).is_empty());
    // D2 missing from White's wall: the neutral region D2 + column E touches White only at
    // E5–E1, the border is open
    let open = Board::from_rows(&["X.XO.", "X.XO.", "X.XO.", "X.X..", "X.XO."]).unwrap();
    let why = unsettled(&open, &[]);
    assert!(why.contains(&"open E5".to_string()), "{why:?}");
    assert!(
        !why.contains(&"open D2".to_string()),
        "D2 touches both: {why:?}"
    );
}

/// Runs `dir`, prints the report, and checks the floors: at least `games` qualifying games,
/// at least `agree` of them agreeing with their `RE`, no differing game left unexplained.
fn check(dir: &Path, games: usize, agree: usize) {
    let report = run(dir);
    let agreed = print(&report);
    let n = report.games.len();
    assert!(n >= games, "{n} qualifying games, expected {games} or more");
    assert!(
        agreed >= agree,
        "{agreed} of {n} agree, expected {agree} or more"
    );
    let unexplained: Vec<&str> = report
        .games
        .iter()
        .filter(|g| g.ours() != g.want && reason(g) == "unexplained")
        .map(|g| g.name.as_str())
        .collect();
    assert!(
        unexplained.is_empty(),
        "differ, unexplained: {unexplained:?}"
    );
}

/// The fixtures' sample, everywhere: `Berry … FineArt VS BADUKi` (B+3.5) and `AG vs AG - G1`
/// (W+2.5, 36 dead stones) agree; `clinic VS 金毛测试` differs by its komi (below);
/// `DANGHU04` is not finished (two kos left open, at A19/B19 and T14/T15) — with the group tax
/// its count is its result, 白胜7子半. Measured 2 of 3, the floor.
#[test]
fn fixture_sample_counted_under_chinese_rules() {
    check(&fixtures_dir(), 3, 2);
}

/// The whole corpus where `../shared/data/games` exists.
///
/// Measured (`cargo test --test rules_score_corpus -- --nocapture`): of 118 games the manifest
/// calls counted, 29 have no margin in `RE` (Fox's `B+0.0`/`W+0.0`), 74 were counted by
/// territory (`RU[Japanese]` and the Master games), 15 under the Chinese rules; of these, 7
/// positions are not finished (the six classical records — their collections stop before the
/// last boundaries are closed, 2 to 142 open points, or leave a ko — and `AlphaGo 2.0 … G55`,
/// open at Q11). **8 qualify, and 5 agree** (same winner and margin). The three that differ,
/// each explained by the record rather than by the count:
///
/// * `Jin Mao Ce Shi/2018.10.08 clinic VS 金毛测试` (`RE[W+1.25]`, 1¼ stones): the file says
///   `KM[0]`, with which no area count can end on a quarter stone; with 3¾ stones of komi (7.5
///   points, Golaxy's others) this count is exactly the result.
/// * `2018 Tencent …/S 1-3 ELFOpenGo vs Golaxy` (`RE[B+0.2]`, ¼ stone = B+0.5): 12 neutral
///   points left. Shared half each (R21.2) they give W+0.5; a margin of B+0.5 with 7.5 komi
///   needs an odd number of neutral points at the count, as if the 12 had been played out in
///   turn from Black's move with one left over.
/// * `AlphaGo/FH vs AG G2` (`RE[W+3.5]`): no neutral point left, so an area count with 7.5
///   komi can only end on an odd margin plus ½ (W+2.5 here); W+3.5 is this position's
///   territory count (Japanese counting).
///
/// No qualifying game has an invalid move read as a pass (`passes read` in the report), so
/// each position counted is the record's; three Tencent games have one side playing twice in a
/// row at the end (a pass the record left out), which stands (R17.2, see `check_record`).
///
/// The same 8 games and the same margins for every proposal seed from 1 to 10 (the proposal
/// that `score` makes uses seed 1), so 5 is the floor: a count or proposal that loses one of
/// them is a regression; the three others are off for reasons in their records.
///
/// For information, the games not compared: the 74 counted by territory — our area count's
/// winner agrees in 60, our territory count equals `RE` in 40 (many Fox files carry `KM[0]`
/// whatever komi was played); and the classical ones, where the group tax is printed:
/// `DANGHU04`'s taxed count is its result exactly, the others are too far from finished to
/// say.
#[test]
fn corpus_games_counted_under_chinese_rules() {
    let Some(dir) = corpus_dir() else {
        eprintln!("../shared/data/games not found: the fixtures' sample runs instead");
        return;
    };
    check(&dir, 8, 5);
}
