//! The rules core against the `goban` crate (0.20) on the same work, in one criterion run.
//!
//! 1. `replay_corpus`: replay every game of `../shared/data/games` (or, where that folder is
//!    absent, `tests/fixtures/games`) with legality and whole-board repetition checks. Both
//!    engines are fed the same **refereed** lines from [`check_record`], so both do only legal
//!    work: our [`Game::play`] (every move checked: occupied, suicide, ko, repetition record);
//!    `goban`'s `try_play` under its `CHINESE` rule (suicide, ko and superko checks, history of
//!    positions), with `resume()` where a third pass would panic, a pass inserted where the
//!    record has the same colour twice (goban's turn is implicit), and an unchecked `play` for
//!    the few moves that recreate an earlier position (they stand under Chinese rules; goban's
//!    superko refuses them).
//! 2. `random_games`: 19×19 games to the end with the same policy for both: from the same
//!    seeded generator, a uniformly random empty point, skipped if it fills one of the mover's
//!    own single-point eyes (all on-board neighbours the mover's) or is illegal (suicide, ko, a
//!    repeated position), else played; a pass when no point is left; until two passes or 700
//!    moves. Each engine lists the empty points (row-major) and tests the eye with its own API
//!    (`Board::empty_points`/`is_single_point_eye`; goban's `pseudo_legals`/`get_color`); the
//!    bench checks that both play the very same games.
//!
//! Run: `cargo bench --bench rules`. After criterion's report the speed ratios (goban time /
//! our time, from criterion's mean estimates) are printed and written to
//! `target/criterion/rules-ratio.txt`.

use criterion::{BenchmarkId, Criterion};
use goban::pieces::stones::{Color as GColor, Stone};
use goban::rules::game::Game as GGame;
use goban::rules::{Move as GMove, CHINESE};
use smartgoban::rules::{check_record, Color, Game, GameRecord, Point};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Random games per measured iteration.
const RANDOM_GAMES: u64 = 20;
/// Move cap of a random game.
const MAX_MOVES: usize = 700;

/// A refereed game: what both engines replay.
struct Line {
    setup: Vec<(Color, Point)>,
    first: Color,
    moves: Vec<(Color, Option<Point>)>,
}

fn sgf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sgf_files(&p, out);
        } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
            out.push(p);
        }
    }
}

fn load_lines() -> (Vec<Line>, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = root.join("../shared/data/games");
    let dir = if corpus.is_dir() {
        corpus
    } else {
        root.join("tests/fixtures/games")
    };
    let mut files = Vec::new();
    sgf_files(&dir, &mut files);
    files.sort();
    let mut lines = Vec::new();
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        let Ok(record) = GameRecord::from_sgf_bytes(&bytes) else {
            continue;
        };
        if record.info.size != 19 {
            continue;
        }
        let report = check_record(&record);
        lines.push(Line {
            setup: record.setup.clone(),
            first: record.first_to_move(),
            moves: report.refereed,
        });
    }
    let moves: usize = lines.iter().map(|l| l.moves.len()).sum();
    let what = format!(
        "{} games, {moves} moves, from {}",
        lines.len(),
        dir.display()
    );
    (lines, what)
}

fn gcolor(c: Color) -> GColor {
    match c {
        Color::Black => GColor::Black,
        Color::White => GColor::White,
    }
}

/// Replays every line with our engine; returns a checksum of the final positions.
fn replay_ours(lines: &[Line]) -> u64 {
    let mut sum = 0u64;
    for l in lines {
        let Ok(mut g) = Game::with_setup(19, &l.setup, l.first) else {
            continue;
        };
        for &(c, p) in &l.moves {
            let _ = black_box(g.play(c, p));
        }
        sum = sum.wrapping_add(g.board().hash());
    }
    sum
}

fn goban_game(l: &Line) -> GGame {
    let mut b = GGame::builder();
    b.size((19, 19)).rule(CHINESE).turn(gcolor(l.first));
    for &(c, p) in &l.setup {
        b.add(Stone {
            coord: (p.y, p.x),
            color: gcolor(c),
        });
    }
    b.build().unwrap_or_default()
}

/// Replays every line with goban; returns the total number of stones at the ends.
fn replay_goban(lines: &[Line]) -> u64 {
    let mut sum = 0u64;
    for l in lines {
        let mut g = goban_game(l);
        for &(c, p) in &l.moves {
            if g.is_over() {
                g.resume();
            }
            if g.turn() != gcolor(c) {
                g.play(GMove::Pass);
                if g.is_over() {
                    g.resume();
                }
            }
            match p {
                None => {
                    let _ = black_box(g.try_play(GMove::Pass));
                }
                Some(p) => {
                    let m = GMove::Play(p.y, p.x);
                    if black_box(g.try_play(m)).is_err() {
                        g.play(m);
                    }
                }
            }
        }
        let (b, w) = g.goban().number_of_stones();
        sum += u64::from(b + w);
    }
    sum
}

/// splitmix64: the seeded generator both engines draw from.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
}

/// Neighbours on the 19×19 board as (column, row).
fn neighbours(x: u8, y: u8) -> impl Iterator<Item = (u8, u8)> {
    [(0i8, -1i8), (-1, 0), (1, 0), (0, 1)]
        .into_iter()
        .map(move |(dx, dy)| (x as i8 + dx, y as i8 + dy))
        .filter(|&(a, b)| (0..19).contains(&a) && (0..19).contains(&b))
        .map(|(a, b)| (a as u8, b as u8))
}

/// One random game with our engine: the moves played (stone or pass).
fn random_game_ours(seed: u64) -> Vec<Option<Point>> {
    let Ok(mut g) = Game::new(19) else {
        return Vec::new();
    };
    let mut rng = Rng(seed);
    let mut empties: Vec<Point> = Vec::with_capacity(361);
    let mut played_moves = Vec::with_capacity(MAX_MOVES);
    while played_moves.len() < MAX_MOVES && g.consecutive_passes() < 2 {
        let c = g.to_move();
        empties.clear();
        empties.extend(g.board().empty_points());
        let mut chosen = None;
        while !empties.is_empty() {
            let k = rng.below(empties.len());
            let p = empties[k];
            if !g.board().is_single_point_eye(p, c) {
                match g.play(c, Some(p)) {
                    Ok(out) if out.repeats.is_none() => {
                        chosen = Some(p);
                        break;
                    }
                    Ok(_) => {
                        g.undo();
                    }
                    Err(_) => {}
                }
            }
            empties.swap_remove(k);
        }
        if chosen.is_none() {
            let _ = g.play(c, None);
        }
        played_moves.push(chosen);
    }
    played_moves
}

/// The same random game with goban.
fn random_game_goban(seed: u64) -> Vec<Option<Point>> {
    let mut g = GGame::new(goban::rules::GobanSizes::Nineteen, CHINESE);
    let mut rng = Rng(seed);
    let mut empties: Vec<Point> = Vec::with_capacity(361);
    let mut played_moves = Vec::with_capacity(MAX_MOVES);
    while played_moves.len() < MAX_MOVES && !g.is_over() {
        let c = g.turn();
        empties.clear();
        empties.extend(g.pseudo_legals().map(|(y, x)| Point::new(x, y)));
        let mut chosen = None;
        while !empties.is_empty() {
            let k = rng.below(empties.len());
            let p = empties[k];
            let own_eye = neighbours(p.x, p.y).all(|(a, b)| g.goban().get_color((b, a)) == Some(c));
            if !own_eye && g.try_play(GMove::Play(p.y, p.x)).is_ok() {
                chosen = Some(p);
                break;
            }
            empties.swap_remove(k);
        }
        if chosen.is_none() {
            g.play(GMove::Pass);
        }
        played_moves.push(chosen);
    }
    played_moves
}

fn bench_replay(c: &mut Criterion, lines: &[Line], what: &str) {
    let mut group = c.benchmark_group("replay_corpus");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.warm_up_time(Duration::from_secs(3));
    println!("replay_corpus: {what}");
    group.bench_function(BenchmarkId::new("smartgoban", ""), |b| {
        b.iter(|| replay_ours(black_box(lines)))
    });
    group.bench_function(BenchmarkId::new("goban", ""), |b| {
        b.iter(|| replay_goban(black_box(lines)))
    });
    group.finish();
}

fn bench_random(c: &mut Criterion) {
    // Both engines must play the very same games, or the work would differ.
    let mut total_moves = 0;
    let mut same = 0;
    for seed in 0..RANDOM_GAMES {
        let a = random_game_ours(seed);
        let b = random_game_goban(seed);
        total_moves += a.len();
        if a == b {
            same += 1;
        }
    }
    println!(
        "random_games: {RANDOM_GAMES} games per iteration, {total_moves} moves and passes; \
         identical move sequences in both engines: {same}/{RANDOM_GAMES}"
    );
    let mut group = c.benchmark_group("random_games");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.warm_up_time(Duration::from_secs(3));
    group.bench_function(BenchmarkId::new("smartgoban", ""), |b| {
        b.iter(|| {
            (0..RANDOM_GAMES)
                .map(|s| random_game_ours(black_box(s)).len())
                .sum::<usize>()
        })
    });
    group.bench_function(BenchmarkId::new("goban", ""), |b| {
        b.iter(|| {
            (0..RANDOM_GAMES)
                .map(|s| random_game_goban(black_box(s)).len())
                .sum::<usize>()
        })
    });
    group.finish();
}

fn criterion_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("criterion")
}

/// Criterion's estimate in nanoseconds per iteration for `group/function`: the slope of its
/// linear fit (the figure it prints as `time`) when there is one, else the mean.
fn estimate_ns(dir: &Path, group: &str, function: &str) -> Option<f64> {
    let text =
        std::fs::read_to_string(dir.join(group).join(function).join("new/estimates.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["slope"]["point_estimate"]
        .as_f64()
        .or_else(|| v["mean"]["point_estimate"].as_f64())
}

/// Our own timing, for the ratio when criterion wrote no estimates (test mode).
fn quick_ratio(mut ours: impl FnMut(), mut theirs: impl FnMut()) -> (f64, f64) {
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        f();
        start.elapsed().as_secs_f64() * 1e9
    };
    (time(&mut ours), time(&mut theirs))
}

fn main() {
    let (lines, what) = load_lines();
    let dir = criterion_dir();
    let mut c = Criterion::default()
        .output_directory(&dir)
        .configure_from_args();
    bench_replay(&mut c, &lines, &what);
    bench_random(&mut c);
    c.final_summary();

    let mut report = String::new();
    for (group, unit) in [
        ("replay_corpus", what.clone()),
        ("random_games", format!("{RANDOM_GAMES} random 19×19 games")),
    ] {
        // Criterion measures only when run by `cargo bench` (which passes `--bench`) and not in
        // test mode (`--test`, or `cargo test --benches`): then its estimates on disk are stale.
        let args: Vec<String> = std::env::args().collect();
        let measured = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test");
        let estimates = if measured {
            (
                estimate_ns(&dir, group, "smartgoban"),
                estimate_ns(&dir, group, "goban"),
            )
        } else {
            (None, None)
        };
        let (ours, theirs, source) = match estimates {
            (Some(a), Some(b)) => (a, b, "criterion estimate"),
            _ => {
                let (a, b) = if group == "replay_corpus" {
                    quick_ratio(
                        || {
                            black_box(replay_ours(&lines));
                        },
                        || {
                            black_box(replay_goban(&lines));
                        },
                    )
                } else {
                    quick_ratio(
                        || {
                            for s in 0..RANDOM_GAMES {
                                black_box(random_game_ours(s));
                            }
                        },
                        || {
                            for s in 0..RANDOM_GAMES {
                                black_box(random_game_goban(s));
                            }
                        },
                    )
                };
                (a, b, "single timing")
            }
        };
        report.push_str(&format!(
            "{group}: smartgoban {:.3} ms, goban {:.3} ms per iteration ({unit}); \
             goban / smartgoban = {:.1}× ({source})\n",
            ours / 1e6,
            theirs / 1e6,
            theirs / ours
        ));
    }
    println!("\n{report}");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("rules-ratio.txt"), &report);
}
