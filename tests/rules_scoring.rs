//! End-of-game scoring (`smartgoban::rules::{area_count, chinese_result, unconditionally_alive,
//! propose_dead, proposed_result}`) under the Chinese rules: G8 (dead and alive stones), G9 (area
//! counting, par 180½ on 19×19), C2 (komi 7.5 points = 3¾ stones: Black needs more than 184¼),
//! R21.1–R21.4 (the end of the game: the controller proposes the dead stones, the players
//! confirm or play on), R21.2 (neutral points shared) and R24.1 (a warning costs a stone).
//!
//! Hand-built positions everywhere; the one counted fixture game of `tests/fixtures/games`
//! that fits; and, where `../shared/data/games` exists, every modern counted game of the corpus
//! whose rules are Chinese or unspecified, compared with its recorded result (see
//! `corpus_counted_games_agree_with_their_results` for the figures and the cases that differ).
//!
//! Diagrams: `X` black, `O` white, `.` empty, top row first; GTP coordinates in comments.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smartgoban::rules::{
    area_count, check_record, chinese_result, propose_dead, proposed_result, unconditionally_alive,
    AreaCount, Board, Color, GameRecord, Point, DEFAULT_PLAYOUTS,
};
use std::path::{Path, PathBuf};

fn board(rows: &[&str]) -> Board {
    Board::from_rows(rows).unwrap()
}

fn stones_of(board: &Board, colour: Color) -> Vec<Point> {
    board
        .stones()
        .filter(|&(_, c)| c == colour)
        .map(|(p, _)| p)
        .collect()
}

fn pts(gtp: &[&str], size: u8) -> Vec<Point> {
    let mut v: Vec<Point> = gtp
        .iter()
        .map(|s| Point::from_gtp(s, size).unwrap())
        .collect();
    v.sort();
    v
}

// ---------------------------------------------------------------------------------------------
// Unconditional life (Benson): G8 "stones that cannot be captured", in the strictest sense.

#[test]
fn two_separate_eyes_are_unconditionally_alive_g8() {
    let b = board(&[
        ".X.XO....", // A9, C9: two separate single-point eyes
        "XXXXO....",
        "OOOOO....",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
    ]);
    // Black only: White's one big area is no vital region for it.
    assert_eq!(unconditionally_alive(&b), stones_of(&b, Color::Black));
}

#[test]
fn one_big_eye_is_not_unconditionally_alive() {
    // A straight three in the corner: one region only (dead if White plays the middle).
    let three = board(&[
        "...XO", //
        "XXXXO", "OOOOO", ".....", ".....",
    ]);
    assert!(unconditionally_alive(&three).is_empty());
    // A rectangular six in the corner is alive in practice, but one region, whose inner points
    // are not liberties of the wall, is not two vital regions.
    let six = board(&[
        "...XO..", //
        "...XO..", "XXXXO..", "OOOOO..", ".......", ".......", ".......",
    ]);
    assert!(unconditionally_alive(&six).is_empty());
}

#[test]
fn a_chain_sharing_eyes_with_a_friend_is_alive() {
    // The lone stone C7 has no eye of its own: it shares B7, D7 and C6 with the ring around
    // them. Each of the three points is a liberty of both chains, so both are alive.
    let b = board(&[
        "X.X.XO.", //
        "XX.XXO.", "OXXXOO.", "OOOOO..", ".......", ".......", ".......",
    ]);
    let c7 = Point::from_gtp("C7", 7).unwrap();
    assert_eq!(b.group(c7), vec![c7], "C7 is a chain of its own");
    assert_eq!(unconditionally_alive(&b), stones_of(&b, Color::Black));
}

#[test]
fn a_false_eye_is_not_an_eye() {
    // C7 looks like an eye, but its right wall D7–E7 is a separate chain whose only liberty is
    // C7: White captures it by playing there, and Black is left with one eye.
    let rows = [
        ".X.XXO.", //
        "XXXOOO.", "OOOO...", ".......", ".......", ".......", ".......",
    ];
    assert!(unconditionally_alive(&board(&rows)).is_empty());
    // With the wall connected (D6 black) the eye is real: two eyes, alive.
    let mut fixed = rows;
    fixed[1] = "XXXXOO.";
    fixed[2] = "OOOOO..";
    let b = board(&fixed);
    assert_eq!(unconditionally_alive(&b), stones_of(&b, Color::Black));
}

/// A seki in the middle of a 7×7 board: White's C column and Black's D–E columns share the
/// liberties D7 and D1 and have no eye; the outer walls live with two eyes each.
const SEKI: [&str; 7] = [
    "XXO.XOO", //
    ".XOXXO.", "XXOXXOO", "XXOXXOO", "XXOXXOO", ".XOXXO.", "XXO.XOO",
];

#[test]
fn seki_is_not_unconditionally_alive() {
    let b = board(&SEKI);
    let alive = unconditionally_alive(&b);
    let outer = |p: &Point| p.x <= 1 || p.x >= 5;
    let expected: Vec<Point> = b.stones().map(|(p, _)| p).filter(outer).collect();
    assert_eq!(alive, expected, "the outer walls only, of both colours");
    // Seki points are shared (R21.2) and no seki stone is dead.
    let c = area_count(&b, &[]);
    assert_eq!(c.dame, 2);
    assert_eq!((c.black_territory, c.white_territory), (2, 2));
}

// ---------------------------------------------------------------------------------------------
// Dead stones proposed at the end (G8, R21.1, R21.4).

/// A finished 9×9 game: Black's wall on row 5, White's on row 4; a dead white stone (C7) in
/// Black's area and a dead black stone (G2) in White's. Black 45 points, White 36 (G9).
const FINISHED_9: [&str; 9] = [
    ".........", //
    ".........",
    "..O......",
    ".........",
    "XXXXXXXXX",
    "OOOOOOOOO",
    ".........",
    "......X..",
    ".........",
];

#[test]
fn dead_stones_in_territory_are_proposed_g8() {
    let b = board(&FINISHED_9);
    for seed in 0..5 {
        assert_eq!(
            propose_dead(&b, seed, DEFAULT_PLAYOUTS),
            pts(&["C7", "G2"], 9),
            "seed {seed}"
        );
    }
}

#[test]
fn proposed_result_of_a_finished_9x9_game_g9_c2_r24_1() {
    let b = board(&FINISHED_9);
    let (dead, count, result) = proposed_result(&b, 7.5, [0, 0], 1);
    assert_eq!(dead, pts(&["C7", "G2"], 9));
    assert_eq!(
        count,
        AreaCount {
            black_stones: 9,
            white_stones: 9,
            black_territory: 36,
            white_territory: 27,
            dame: 0,
        }
    );
    // 81 points, par 40½; Black needs more than 40½ + 3¾ = 44¼: 45 is ¾ stone more.
    assert_eq!((result.black_points, result.white_points), (45.0, 36.0));
    assert_eq!(result.winner, Some(Color::Black));
    assert_eq!((result.margin_points, result.margin_stones), (1.5, 0.75));
    assert_eq!(result.re, "B+1.5");
    // One warning to Black costs it a stone (R24.1): 44 against 37, White by ¼ stone.
    let (_, _, warned) = proposed_result(&b, 7.5, [1, 0], 1);
    assert_eq!((warned.black_points, warned.white_points), (44.0, 37.0));
    assert_eq!((warned.re.as_str(), warned.margin_stones), ("W+0.5", -0.25));
}

#[test]
fn seki_stones_are_not_proposed_dead() {
    let b = board(&SEKI);
    for seed in 0..5 {
        assert!(
            propose_dead(&b, seed, DEFAULT_PLAYOUTS).is_empty(),
            "seed {seed}"
        );
    }
    let (_, count, result) = proposed_result(&b, 0.0, [0, 0], 1);
    assert_eq!((count.black_stones, count.white_stones), (24, 19));
    // 24 + 2 + 1 against 19 + 2 + 1.
    assert_eq!(result.re, "B+5");
}

#[test]
fn unconditionally_alive_chains_are_never_proposed() {
    // Black's corner group has two eyes: whatever the playouts say, it is never proposed.
    let b = board(&[
        ".X.XO.O..", //
        "XXXXOOO..",
        "OOOOO....",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
        ".........",
    ]);
    let alive = unconditionally_alive(&b);
    assert_eq!(alive, stones_of(&b, Color::Black));
    for seed in 0..5 {
        let dead = propose_dead(&b, seed, 50);
        assert!(dead.iter().all(|p| !alive.contains(p)), "seed {seed}");
    }
}

#[test]
fn counting_19x19_black_185_white_176_c2() {
    // Black's wall on K (x = 9) from row 14 down and on J (x = 8) above, joined by J14; White's
    // on L and K, joined by L15. Black's area: 9 × 5 + 10 × 14 = 185 points; White's 176.
    let mut rows = Vec::new();
    for y in 0..19 {
        let row: String = (0..19)
            .map(|x| {
                let (black, white) = if y < 5 { (8, 9) } else { (9, 10) };
                if x == black || (y == 5 && x == 8) {
                    'X'
                } else if x == white || (y == 4 && x == 10) {
                    'O'
                } else {
                    '.'
                }
            })
            .collect();
        rows.push(row);
    }
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let b = board(&rows);
    assert!(propose_dead(&b, 1, DEFAULT_PLAYOUTS).is_empty());
    let count = area_count(&b, &[]);
    assert_eq!((count.black_points(), count.white_points()), (185.0, 176.0));
    let r = chinese_result(&count, 19, 7.5, [0, 0]);
    assert_eq!(r.winner, Some(Color::Black));
    assert_eq!(r.re, "B+1.5");
    assert_eq!((r.margin_points, r.margin_stones), (1.5, 0.75));
    // Chinese counting: Black's area against 180½ + 3¾ = 184¼.
    assert_eq!(r.black_points - 184.25, r.margin_stones);
}

#[test]
fn proposals_are_deterministic_per_seed() {
    let b = board(&FINISHED_9);
    let a = propose_dead(&b, 42, 30);
    assert_eq!(a, propose_dead(&b, 42, 30));
    assert!(
        propose_dead(&b, 42, 0).is_empty(),
        "no playouts, no proposal"
    );
    assert!(propose_dead(&Board::new(19).unwrap(), 1, 10).is_empty());
}

#[test]
fn random_boards_never_panic_and_counts_add_up() {
    // Random stones on every size, including diagrams no game can reach (groups without
    // liberties): every function answers, the count covers the board, alive and dead are
    // disjoint sets of stones.
    let mut rng = ChaCha8Rng::seed_from_u64(2021);
    for round in 0..120u64 {
        let size = rng.random_range(2..=19u8);
        let density = rng.random_range(0.0..1.0f64);
        let mut b = Board::new(size).unwrap();
        for y in 0..size {
            for x in 0..size {
                if rng.random_bool(density) {
                    let c = if rng.random_bool(0.5) {
                        Color::Black
                    } else {
                        Color::White
                    };
                    b.put(Point::new(x, y), Some(c));
                }
            }
        }
        let alive = unconditionally_alive(&b);
        let dead = propose_dead(&b, round, 4);
        for p in alive.iter().chain(&dead) {
            assert!(b.get(*p).is_some(), "round {round}: {p:?} is not a stone");
        }
        assert!(dead.iter().all(|p| !alive.contains(p)), "round {round}");
        let c = area_count(&b, &dead);
        let total =
            c.black_stones + c.white_stones + c.black_territory + c.white_territory + c.dame;
        assert_eq!(total, u32::from(size) * u32::from(size), "round {round}");
        let r = chinese_result(&c, size, 7.5, [round as u32 % 3, 1]);
        assert_eq!(r.margin_points, r.black_points - r.white_points - 7.5);
        assert_eq!(r.margin_stones * 2.0, r.margin_points);
        assert_eq!(
            r.black_points + r.white_points,
            f64::from(size) * f64::from(size)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Real games.

/// Black's margin in points from an SGF `RE` value (`B+3.5`, `W+2.50`), `None` for anything
/// else (resignation, time, …). A margin that is not a multiple of ½ is in stones (Chinese
/// counting: Tencent and Golaxy write `W+1.25` = 1¼ stones, and `B+0.2` for ¼ stone): doubled
/// and rounded to the nearest half point.
fn re_margin(re: &str) -> Option<f64> {
    let (side, value) = re.trim().split_once('+')?;
    let v: f64 = value.trim().parse().ok()?;
    let points = if (v * 2.0).fract() == 0.0 {
        v
    } else {
        (v * 4.0).round() / 2.0
    };
    match side {
        "B" => Some(points),
        "W" => Some(-points),
        _ => None,
    }
}

/// Replays a record and scores its final board: the proposal of dead stones (seed 1,
/// [`DEFAULT_PLAYOUTS`]), the area count, and Black's margin in points with `komi`.
fn score(record: &GameRecord, komi: f64) -> (Vec<Point>, AreaCount, f64, String) {
    let report = check_record(record);
    let board = report.final_game.board();
    let (dead, count, result) = proposed_result(board, komi, [0, 0], 1);
    (dead, count, result.margin_points, result.re)
}

#[test]
fn re_values_are_read_as_points() {
    assert_eq!(re_margin("B+3.5"), Some(3.5));
    assert_eq!(re_margin("W+2.50"), Some(-2.5));
    assert_eq!(re_margin("W+1.25"), Some(-2.5), "1¼ stones");
    assert_eq!(re_margin("B+0.2"), Some(0.5), "¼ stone, truncated");
    assert_eq!(re_margin("B+R"), None);
    assert_eq!(re_margin("0"), None);
}

#[test]
fn fixture_counted_game_agrees() {
    // Of the fixtures, three have a counted result; two of them are Fox's `B+0.0`/`W+0.0`
    // (games that ended early, not counts). The third, a Fox game without komi (`HA[1]`,
    // `KM[0]`) won by White by 2 points, is counted exactly.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/games/yenw-computer-go-dataset/CGI Fox Go Server/\
         2017.09.24 咆哮 vs CGI (49790172).SGF",
    );
    let record = GameRecord::from_sgf_bytes(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(record.info.result.as_deref(), Some("W+2.0"));
    assert_eq!(record.info.komi, Some(0.0));
    let (dead, count, margin, re) = score(&record, 0.0);
    assert_eq!(re, "W+2");
    assert_eq!(margin, re_margin("W+2.0").unwrap());
    assert_eq!(dead.len(), 12);
    assert_eq!(count.dame, 3);
}

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/games");
    dir.join("MANIFEST.tsv").exists().then_some(dir)
}

/// Every game of `yenw-computer-go-dataset/` won on counting (`result_kind` = `counted`) whose
/// rules are Chinese or not given: replayed, scored from its final board, compared with `RE`.
///
/// Measured (seed 1, [`DEFAULT_PLAYOUTS`] = 500 playouts): 22 games; the winner agrees in 18, the
/// margin is within one point in 20 (and equal in 12). The same figures for every seed from 1 to
/// 10, with 500 playouts and with 100 (the default before issue 14; for seed 1 the proposals of
/// these games are the same with both). They are the floors asserted. The four games that differ:
///
/// * `2018 Tencent …/S 1-3 ELFOpenGo vs Golaxy` (`RE[B+0.2]`, ¼ stone = B+0.5): W+0.5 here,
///   one point off, which decides the winner. The game stopped with 12 neutral points and
///   regions still open to both sides in the centre and at the top; the count depends on how
///   they would have been closed.
/// * `AlphaGo 2.0/AG vs AG - G55` (W+0.5): B+1.5 here. Also stopped unfinished (16 neutral
///   points, open regions).
/// * `Jin Mao Ce Shi/2018.10.08 clinic VS 金毛测试` (`RE[W+1.25]`, 1¼ stones): the file says
///   `KM[0]`, but the result is in stones and Golaxy's other games have 3¾ stones of komi;
///   with 7.5 points the count gives exactly W+2.5 = 1¼ stones (checked below).
/// * `master/29-…-Master-Mi_Yuting` (W+0.5): B+0.5 here. The Master games were played on
///   Tygem/Fox with 6.5 komi under territory counting, which can differ from area counting by
///   a point; here that point decides the winner. The other Master margins off by one point
///   (6 of 13) have the same cause, as has `AlphaGo/FH vs AG G2` (W+3.5 recorded, W+2.5 here).
///
/// Left out: resignations and time losses, and Fox's RU[Japanese] games. Most of these carry
/// `KM[0]` whatever komi was played (their margins fit 6.5 komi and territory counting), and
/// their `B+0.0`/`W+0.0` marks games that ended early, not counts. For information (not
/// asserted): of the 32 of them with a komi and a real margin, the winner agrees in all 32 and
/// the margin is within a point in 28.
#[test]
fn corpus_counted_games_agree_with_their_results() {
    let Some(dir) = corpus_dir() else {
        eprintln!("../shared/data/games not found: corpus scoring test skipped");
        return;
    };
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (c_file, c_rules, c_kind) = (col("file"), col("RU"), col("result_kind"));
    let (mut games, mut winner_ok, mut within_one, mut exact) = (0, 0, 0, 0);
    let mut differ = Vec::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let rules = f[c_rules].trim();
        if !f[c_file].starts_with("yenw-computer-go-dataset/")
            || f[c_kind] != "counted"
            || !(rules.is_empty() || rules.eq_ignore_ascii_case("chinese"))
        {
            continue;
        }
        let bytes = std::fs::read(dir.join(f[c_file])).unwrap();
        let record = GameRecord::from_sgf_bytes(&bytes).unwrap();
        let re = record.info.result.clone().unwrap_or_default();
        let Some(want) = re_margin(&re) else {
            panic!("{}: counted result {re:?} not read", f[c_file]);
        };
        // No KM: the AlphaGo–Fan Hui match, played with the usual 7.5 (C2).
        let komi = record.info.komi.unwrap_or(7.5);
        let (_, count, margin, ours) = score(&record, komi);
        games += 1;
        let same_winner = margin.signum() == want.signum();
        winner_ok += usize::from(same_winner);
        within_one += usize::from((margin - want).abs() <= 1.0);
        exact += usize::from(margin == want);
        eprintln!(
            "{:<8} {:<8} dame {:>3}  {}",
            re, ours, count.dame, f[c_file]
        );
        if !same_winner || (margin - want).abs() > 1.0 {
            differ.push(f[c_file].to_string());
        }
        if f[c_file].contains("clinic VS 金毛测试") {
            // Its KM[0] is wrong (see above): with 3¾ stones the count is exactly the result.
            assert_eq!(komi, 0.0);
            let (_, _, with_komi, _) = score(&record, 7.5);
            assert_eq!(with_komi, want);
        }
    }
    eprintln!(
        "{games} games: winner agrees {winner_ok}, margin within 1 point {within_one}, \
         exact {exact}; differ: {differ:#?}"
    );
    assert!(
        games >= 20,
        "only {games} counted Chinese/unspecified games"
    );
    assert!(winner_ok >= 17, "winner agrees in {winner_ok} of {games}");
    assert!(
        within_one >= 18,
        "margin within 1 in {within_one} of {games}"
    );
}
