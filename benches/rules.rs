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
//! 2. `random_playouts`: random 19×19 playouts from the empty board, **one per iteration, each
//!    with the next seed** (every engine runs through the same sequence of seeds), under one
//!    policy: a uniformly random empty point, skipped if it fills one of the mover's own
//!    single-point eyes (all on-board neighbours the mover's) or is illegal (occupied, suicide,
//!    simple ko, a repeated whole-board position), else played; a pass when no point is left;
//!    until two passes in a row or 700 moves. The engines (`rules/playouts.rs` says how each
//!    works):
//!    * `old_game_board` — our [`Game`]/[`Board`], the code of the former `random_games`
//!      group: the empty points listed anew on every move, a candidate tried by `Game::play`
//!      and undone if it repeats a position;
//!    * `playout_board` — `PlayoutBoard`: its own incremental list of empty points,
//!      pseudo-liberties, the repetition test on the hash after the move in a `PositionSet`;
//!    * `goban` — goban as efficiently as its API allows: the harness keeps the list of empty
//!      points goban lacks (in the same order as `playout_board`'s), reads captures from
//!      goban's prisoner count, allocates nothing per move, and leaves legality (suicide, ko,
//!      superko) to goban's `try_play`. What is left is goban's own work, mostly the copy of
//!      the position that its `Game::play` pushes onto its history on every move (its
//!      allocations also make goban's rate vary more than the others' from run to run). On
//!      this machine the former harness (the empty points listed anew by `pseudo_legals` on
//!      every move) was some 1.4 times slower.
//!
//!    This group replaces the former `random_games` (20 fixed games per iteration, our
//!    `Game` against goban with that former harness).
//!
//!    Before timing, the check seeds are played by every engine, and the bench prints whether
//!    `playout_board` and `goban` played the very same games (same seed, same candidates in the
//!    same order: they should, except where goban's ko and superko rules differ from the
//!    Chinese ones), whether every `playout_board` game replayed through [`Game`] follows the
//!    old path's policy (each stone allowed, each pass only when nothing is allowed, the same
//!    final board; only the order of the draws differs), and each engine's mean playout length.
//! 3. `propose_dead`: [`propose_dead`] on the final position of a real counted 19×19 game (the
//!    fixture `2017.09.24 咆哮 vs CGI`, W+2) with 100 playouts and with [`DEFAULT_PLAYOUTS`];
//!    where the corpus exists, also single timings on the final positions of its 22 counted
//!    games with Chinese or unspecified rules (those of `tests/rules_scoring.rs`).
//!
//! Run: `cargo bench --bench rules` (one group: `cargo bench --bench rules -- random_playouts`).
//! After criterion's report, the speed ratios (goban time / our time, from criterion's
//! estimates) are printed and written to `target/criterion/rules-ratio.txt`, and to
//! `target/criterion/random-playouts.txt` the checks, each engine's playouts per second —
//! criterion's estimate with its confidence interval and the minimum, median and maximum of its
//! samples' rates, then five repeats of our own timed on the wall clock and on the CPU (Linux's
//! schedstat: what the core did for this thread, when the machine is shared) — and the
//! proposal's times, with those on empty 19×19 and 9×9 boards. Only estimates written by this
//! run are used.

#[path = "rules/playouts.rs"]
mod playouts;

use criterion::{BenchmarkId, Criterion};
use goban::pieces::stones::{Color as GColor, Stone};
use goban::rules::game::Game as GGame;
use goban::rules::{Move as GMove, CHINESE};
use playouts::{Fast, GobanEngine};
use smartgoban::rules::{
    check_record, propose_dead, Board, Color, Game, GameRecord, Point, DEFAULT_PLAYOUTS,
};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// The first seed of the random playouts (each iteration takes the next).
const SEED_BASE: u64 = 1_000_000;
/// Playouts compared between the engines before timing.
const CHECK_SEEDS: u64 = 20;
/// Criterion's samples per engine in `random_playouts`.
const PLAYOUT_SAMPLES: usize = 20;
/// The floor for `playout_board` on one core (playouts/s).
const FLOOR: f64 = 7_500.0;

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

/// Plays the check seeds on every engine; prints and returns what agreed.
fn check_playouts() -> String {
    let (mut fast, mut gob) = (Fast::new(), GobanEngine::new());
    let (mut same, mut follows) = (0, 0);
    let mut lengths = [0usize; 3];
    for seed in SEED_BASE + 1..=SEED_BASE + CHECK_SEEDS {
        lengths[0] += playouts::old_path(seed).len();
        let end = fast.play(seed).to_board();
        lengths[1] += fast.moves.len();
        let g = gob.play(seed);
        lengths[2] += gob.moves.len();
        same += usize::from(fast.moves == gob.moves && playouts::goban_board(&g) == end);
        follows += usize::from(playouts::follows_old_policy(&fast.moves, &end));
    }
    let n = CHECK_SEEDS as f64;
    let text = format!(
        "random_playouts check, seeds {}..={}: playout_board and goban play the same games \
         (moves and final stones) in {same}/{CHECK_SEEDS}; playout_board's games follow the old \
         path's policy when replayed through Game in {follows}/{CHECK_SEEDS}; mean moves and \
         passes per playout: old_game_board {:.1}, playout_board {:.1}, goban {:.1}\n",
        SEED_BASE + 1,
        SEED_BASE + CHECK_SEEDS,
        lengths[0] as f64 / n,
        lengths[1] as f64 / n,
        lengths[2] as f64 / n,
    );
    println!("{text}");
    text
}

fn bench_playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_playouts");
    group.sample_size(PLAYOUT_SAMPLES);
    group.measurement_time(Duration::from_secs(12));
    group.warm_up_time(Duration::from_secs(2));
    // The seed lives outside the routine, which criterion calls once per sample: every
    // iteration of every sample plays a new game.
    let mut seed = SEED_BASE;
    group.bench_function("old_game_board", |b| {
        b.iter(|| {
            seed += 1;
            playouts::old_path(black_box(seed)).len()
        })
    });
    let (mut fast, mut seed) = (Fast::new(), SEED_BASE);
    group.bench_function("playout_board", |b| {
        b.iter(|| {
            seed += 1;
            black_box(fast.play(black_box(seed)).hash())
        })
    });
    let (mut gob, mut seed) = (GobanEngine::new(), SEED_BASE);
    group.bench_function("goban", |b| {
        b.iter(|| {
            seed += 1;
            black_box(gob.play(black_box(seed)))
        })
    });
    group.finish();
}

/// The final position of the fixture game `2017.09.24 咆哮 vs CGI` (counted, W+2).
fn fixture_end() -> Board {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/games/yenw-computer-go-dataset/CGI Fox Go Server/\
         2017.09.24 咆哮 vs CGI (49790172).SGF",
    );
    let bytes = std::fs::read(&path).expect("the fixture game");
    let record = GameRecord::from_sgf_bytes(&bytes).expect("it parses");
    check_record(&record).final_game.board().clone()
}

/// The playout counts the proposal is timed with: 100 (the former default) and the default.
fn proposal_playouts() -> Vec<u32> {
    let mut v = vec![100, DEFAULT_PLAYOUTS];
    v.dedup();
    v
}

fn bench_proposal(c: &mut Criterion, end: &Board) {
    let mut group = c.benchmark_group("propose_dead");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.warm_up_time(Duration::from_secs(2));
    for playouts in proposal_playouts() {
        group.bench_with_input(BenchmarkId::new("fixture_end", playouts), end, |b, end| {
            b.iter(|| propose_dead(black_box(end), 1, playouts))
        });
    }
    group.finish();
}

/// The final positions of the corpus's counted games with Chinese or unspecified rules (the
/// selection of `tests/rules_scoring.rs`); empty without the corpus.
fn counted_end_positions() -> Vec<Board> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/games");
    let Ok(text) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        return Vec::new();
    };
    let mut rows = text.lines();
    let header: Vec<&str> = rows.next().unwrap_or_default().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(file), Some(rules), Some(kind)) = (col("file"), col("RU"), col("result_kind")) else {
        return Vec::new();
    };
    rows.filter_map(|row| {
        let f: Vec<&str> = row.split('\t').collect();
        let ru = f.get(rules)?.trim();
        let wanted = f.get(file)?.starts_with("yenw-computer-go-dataset/")
            && *f.get(kind)? == "counted"
            && (ru.is_empty() || ru.eq_ignore_ascii_case("chinese"));
        let bytes = std::fs::read(dir.join(f[file])).ok().filter(|_| wanted)?;
        let record = GameRecord::from_sgf_bytes(&bytes).ok()?;
        Some(check_record(&record).final_game.board().clone())
    })
    .collect()
}

/// Single timings of the proposal (seed 1) on `boards`: min, median, max in ms.
fn proposal_spread(boards: &[Board], playouts: u32) -> Option<(f64, f64, f64)> {
    let mut ms: Vec<f64> = boards
        .iter()
        .map(|b| {
            let start = Instant::now();
            black_box(propose_dead(b, 1, playouts));
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    Some((*ms.first()?, ms[ms.len() / 2], *ms.last()?))
}
fn criterion_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("criterion")
}

/// Criterion's estimate for one function, in nanoseconds per iteration.
#[derive(Clone, Copy)]
struct Estimate {
    point: f64,
    lower: f64,
    upper: f64,
}

/// Criterion's estimate for `group/function` if this run wrote it (not before `since`): the
/// slope of its linear fit (the figure it prints as `time`) when there is one, else the mean,
/// with its 95 % confidence interval.
fn estimate(dir: &Path, group: &str, function: &str, since: SystemTime) -> Option<Estimate> {
    let path = dir.join(group).join(function).join("new/estimates.json");
    if std::fs::metadata(&path).ok()?.modified().ok()? < since {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let e = if v["slope"].is_object() {
        &v["slope"]
    } else {
        &v["mean"]
    };
    Some(Estimate {
        point: e["point_estimate"].as_f64()?,
        lower: e["confidence_interval"]["lower_bound"].as_f64()?,
        upper: e["confidence_interval"]["upper_bound"].as_f64()?,
    })
}

/// The rate (iterations per second) of each of criterion's samples of `group/function`:
/// minimum, median, maximum.
fn sample_rates(dir: &Path, group: &str, function: &str) -> Option<(f64, f64, f64)> {
    let path = dir.join(group).join(function).join("new/sample.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let (iters, times) = (v["iters"].as_array()?, v["times"].as_array()?);
    let mut rates: Vec<f64> = iters
        .iter()
        .zip(times)
        .filter_map(|(i, t)| Some(i.as_f64()? / t.as_f64()? * 1e9))
        .collect();
    rates.sort_by(f64::total_cmp);
    Some((*rates.first()?, rates[rates.len() / 2], *rates.last()?))
}

/// This thread's time on a CPU so far, in ns (`/proc/thread-self/schedstat`, Linux).
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Playouts per second over `repeats` runs of `playouts` playouts each (new seeds every run,
/// after one run to warm up): min, median, max on the wall clock and, where Linux tells, on the
/// CPU (what one core does when it is not shared).
struct Rates {
    repeats: usize,
    playouts: u64,
    wall: [f64; 3],
    cpu: Option<[f64; 3]>,
}

fn repeat_rates(repeats: usize, playouts: u64, mut play: impl FnMut(u64)) -> Rates {
    let spread = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        [v[0], v[v.len() / 2], v[v.len() - 1]]
    };
    let (mut wall, mut cpu) = (Vec::new(), Vec::new());
    let mut seed = SEED_BASE + 10_000_000;
    for run in 0..=repeats {
        let (w0, c0) = (Instant::now(), cpu_ns());
        for _ in 0..playouts {
            seed += 1;
            play(seed);
        }
        let (w, c) = (w0.elapsed().as_secs_f64(), cpu_ns());
        if run > 0 {
            wall.push(playouts as f64 / w);
            if let (Some(a), Some(b)) = (c0, c) {
                cpu.push(playouts as f64 * 1e9 / (b - a).max(1) as f64);
            }
        }
    }
    Rates {
        repeats,
        playouts,
        cpu: (cpu.len() == wall.len()).then(|| spread(cpu)),
        wall: spread(wall),
    }
}

/// Nanoseconds that one call of `f` takes, timed once.
fn time_once(mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64() * 1e9
}

fn main() {
    let started = SystemTime::now();
    let (lines, what) = load_lines();
    let dir = criterion_dir();
    // Criterion measures only when run by `cargo bench` (which passes `--bench`) and not in test
    // mode (`--test`, or `cargo test --benches`).
    let args: Vec<String> = std::env::args().collect();
    let measured = args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test");
    let mut c = Criterion::default()
        .output_directory(&dir)
        .configure_from_args();
    bench_replay(&mut c, &lines, &what);
    let check = check_playouts();
    bench_playouts(&mut c);
    let end = fixture_end();
    bench_proposal(&mut c, &end);
    c.final_summary();
    let fresh = |group: &str, function: &str| {
        measured
            .then(|| estimate(&dir, group, function, started))
            .flatten()
    };

    let mut ratios = String::new();
    let (ours, theirs, source) = match (
        fresh("replay_corpus", "smartgoban"),
        fresh("replay_corpus", "goban"),
    ) {
        (Some(a), Some(b)) => (a.point, b.point, "criterion estimate"),
        _ => (
            time_once(|| {
                black_box(replay_ours(&lines));
            }),
            time_once(|| {
                black_box(replay_goban(&lines));
            }),
            "single timing",
        ),
    };
    ratios.push_str(&format!(
        "replay_corpus: smartgoban {:.3} ms, goban {:.3} ms per iteration ({what}); \
         goban / smartgoban = {:.1}× ({source})\n",
        ours / 1e6,
        theirs / 1e6,
        theirs / ours
    ));

    let engines = ["old_game_board", "playout_board", "goban"];
    let estimates: Vec<Option<Estimate>> = engines
        .iter()
        .map(|f| fresh("random_playouts", f))
        .collect();
    // Repeats of our own, timed on the wall clock and on the CPU (the machine may be shared).
    let repeats = if measured { 5 } else { 1 };
    let rates = [
        repeat_rates(repeats, 100, |s| drop(playouts::old_path(s))),
        repeat_rates(repeats, 1000, {
            let mut fast = Fast::new();
            move |s| {
                black_box(fast.play(s).hash());
            }
        }),
        repeat_rates(repeats, 60, {
            let mut gob = GobanEngine::new();
            move |s| drop(gob.play(s))
        }),
    ];
    let (ns, source): (Vec<f64>, &str) = if estimates.iter().all(Option::is_some) {
        (
            estimates.iter().flatten().map(|e| e.point).collect(),
            "criterion estimate",
        )
    } else {
        (
            rates.iter().map(|r| 1e9 / r.wall[1]).collect(),
            "median of our repeats",
        )
    };
    ratios.push_str(&format!(
        "random_playouts: old_game_board {:.1} µs, playout_board {:.1} µs, goban {:.1} µs per \
         19×19 playout; goban / old_game_board = {:.2}×, goban / playout_board = {:.2}×, \
         old_game_board / playout_board = {:.2}× ({source})\n",
        ns[0] / 1e3,
        ns[1] / 1e3,
        ns[2] / 1e3,
        ns[2] / ns[0],
        ns[2] / ns[1],
        ns[0] / ns[1],
    ));

    let mut report = check;
    for (k, name) in engines.iter().enumerate() {
        report.push_str(&format!("{name}: {:.0} playouts/s ({source}", 1e9 / ns[k]));
        if let (Some(e), Some((lo, med, hi))) =
            (estimates[k], sample_rates(&dir, "random_playouts", name))
        {
            report.push_str(&format!(
                ", 95 % interval {:.0}–{:.0}; its {} samples: min {lo:.0}, median {med:.0}, \
                 max {hi:.0}",
                1e9 / e.upper,
                1e9 / e.lower,
                PLAYOUT_SAMPLES
            ));
        }
        let r = &rates[k];
        report.push_str(&format!(
            "); {} repeats of {} playouts: wall clock min {:.0}, median {:.0}, max {:.0}",
            r.repeats, r.playouts, r.wall[0], r.wall[1], r.wall[2]
        ));
        if let Some([lo, med, hi]) = r.cpu {
            report.push_str(&format!(
                "; on the CPU (schedstat) min {lo:.0}, median {med:.0}, max {hi:.0}"
            ));
        }
        report.push_str(" playouts/s\n");
    }
    report.push_str(&format!(
        "floor {FLOOR:.0} playouts/s for playout_board (the estimate and our median): {}\n",
        if 1e9 / ns[1] >= FLOOR && rates[1].wall[1] >= FLOOR {
            "met"
        } else {
            "NOT met"
        }
    ));
    let corpus = if measured {
        counted_end_positions()
    } else {
        Vec::new()
    };
    for playouts in proposal_playouts() {
        let id = format!("fixture_end/{playouts}");
        let fixture = fresh("propose_dead", &id)
            .map(|e| e.point)
            .unwrap_or_else(|| {
                time_once(|| {
                    black_box(propose_dead(&end, 1, playouts));
                })
            });
        report.push_str(&format!(
            "propose_dead, {playouts} playouts: {:.1} ms on the fixture's final position",
            fixture / 1e6
        ));
        if let Some((lo, med, hi)) = proposal_spread(&corpus, playouts) {
            report.push_str(&format!(
                "; on the final positions of {} counted corpus games {lo:.1}–{hi:.1} ms \
                 (median {med:.1})",
                corpus.len()
            ));
        }
        for size in [19, 9] {
            let empty = vec![Board::new(size).expect("a size"); 3];
            if let Some((_, med, _)) = proposal_spread(&empty, playouts) {
                report.push_str(&format!("; empty {size}×{size} {med:.1} ms"));
            }
        }
        report.push('\n');
    }
    report.push_str(&format!("DEFAULT_PLAYOUTS = {DEFAULT_PLAYOUTS}\n"));
    println!("\n{ratios}\n{report}");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("rules-ratio.txt"), &ratios);
    let _ = std::fs::write(dir.join("random-playouts.txt"), &report);
}
