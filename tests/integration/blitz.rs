//! Issue 13, quick players: real games replayed under `--noise blitz` (replies 0.3–1.2 s after
//! the opponent's stone, hands lingering, captures lifted late, now and then two stones down
//! within 150 ms) through the link and the session, in process. Each game is recorded move for
//! move with no violation, or held as `ambiguous` only where the model put two stones down
//! within [`smartgoban::sim::blitz::CLOSE_PAIR_MS`] (a real ambiguity); the `ambiguous` event
//! is published once per set of candidates; the record never has fewer moves than the feed
//! published.
//!
//! A sample of the corpus (every 3rd game, two seeds) runs by default;
//! `SMARTGOBAN_BLITZ_ALL=1` runs every clean game with seeds 1, 2 and 3.

use std::collections::BTreeSet;
use std::path::PathBuf;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use smartgoban::event::EventKind;
use smartgoban::link::LinkConfig;
use smartgoban::rules::{check_record, GameRecord};
use smartgoban::session::{Session, SessionConfig};
use smartgoban::sim::board::{BoardConfig, VirtualBoard};
use smartgoban::sim::loopback::{board_stream, feed, Lockstep};
use smartgoban::sim::player::PlayerOptions;
use smartgoban::sim::{NoiseModel, Source};

use crate::support::{corpus_files, shared_corpus};

/// Games and seeds of the shared corpus that once went wrong with a clock (issue 13), run in
/// every CI run beside the sample when the corpus is present: a press for the stone before
/// while the next stones were still coming, a pass that did not hand the time over at once,
/// recaptures on a captured stone's point under one hand, a press for an earlier move judged
/// after the presser's next capture.
const HARD_WITH_A_CLOCK: &[(&str, u64)] = &[
    (
        "yenw-computer-go-dataset/AlphaGo/AG vs AG - G1 - English.sgf",
        1,
    ),
    (
        "yenw-computer-go-dataset/The 11th Computer Go UEC Cup/day1/5-nlp-Kifuwarabe.sgf",
        2,
    ),
    ("classical-chinese-yywolf1983/兼山堂/jst27.sgf", 1),
    ("classical-chinese-yywolf1983/兼山堂/jst52.sgf", 1),
    (
        "yenw-computer-go-dataset/fuheyuqi/2017.02.20 abcsong vs fuheyuqi (58206866).SGF",
        2,
    ),
    (
        "yenw-computer-go-dataset/Shi Kong Qi Dian/2018.03.18 潘亭宇1 VS 时空奇点 (010001645).SGF",
        1,
    ),
    (
        "yenw-computer-go-dataset/Jin Mao Ce Shi/2018.10.06 金毛测试 VS marny (010001460).SGF",
        3,
    ),
    (
        "yenw-computer-go-dataset/CGI Fox Go Server/2017.11.05 CGI vs 马晓春 (61882810).SGF",
        3,
    ),
    (
        "yenw-computer-go-dataset/The 11th Computer Go UEC Cup/day1/7-Katsunari-Rn.sgf",
        1,
    ),
];

/// How one replay went.
enum Outcome {
    Exact,
    /// Held at a close pair, as it must be.
    HeldAtClosePair,
    Wrong(String),
}

/// `path` played with `seed`; `clocked`: the players press a clock (10 minutes each), through
/// the link in lockstep with the board, else without one through the byte stream the board
/// sends.
fn replay(path: &PathBuf, seed: u64, clocked: bool) -> Option<Outcome> {
    let record = GameRecord::from_sgf_bytes(&std::fs::read(path).ok()?).ok()?;
    let check = check_record(&record);
    if !check.violations.is_empty() || record.moves.is_empty() {
        return None; // not a clean game
    }
    let source = Source::Record(record.clone());
    // the model's own account of the timings: where it put two stones down together
    let params = NoiseModel::Blitz.params();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_0f91_a7e5);
    let options = PlayerOptions {
        press_clock: clocked,
        injection: None,
    };
    let (timeline, _, report) =
        smartgoban::sim::blitz::timeline_with_report(&record, &params, &mut rng, &options);
    let mut setup = source.setup();
    // every event the session published, in order
    let mut events = Vec::new();
    let session = if clocked {
        setup.time = Some("main=10m jp=3x30s".parse().unwrap());
        let board = VirtualBoard::new(
            timeline,
            BoardConfig {
                board_size: smartgoban_protocol::BoardSize::new(setup.size()).unwrap(),
                seed,
                noise: params,
                device_id: 1,
                protocol_version: smartgoban_protocol::PROTOCOL_VERSION,
            },
        );
        let session = Session::new(SessionConfig::default(), &setup).unwrap();
        let mut lock = Lockstep::with_board(board, session, LinkConfig::default());
        lock.run_to_end();
        events.extend(lock.events().iter().cloned());
        let mut session = lock.into_session();
        events.extend(std::iter::from_fn(|| session.poll_output()));
        session
    } else {
        let stream = board_stream(&source, NoiseModel::Blitz, seed);
        let mut session = Session::new(SessionConfig::default(), &setup).unwrap();
        feed(&mut session, &stream.bytes, 4096);
        events.extend(std::iter::from_fn(|| session.poll_output()));
        session
    };
    let name = format!(
        "{} (seed {seed}{})",
        path.display(),
        if clocked { ", clock" } else { "" }
    );
    let mut published = 0;
    let mut ambiguous = Vec::new();
    for e in events {
        match e.kind {
            EventKind::Move { .. } | EventKind::Pass { .. } => published += 1,
            EventKind::Ambiguous { candidates, .. } => {
                ambiguous.push(serde_json::to_string(&candidates).unwrap())
            }
            _ => {}
        }
    }
    let got: Vec<_> = session
        .record()
        .moves
        .iter()
        .map(|m| (m.color, m.point))
        .collect();
    if got.len() < published {
        return Some(Outcome::Wrong(format!(
            "{name}: {published} moves published, {} recorded",
            got.len()
        )));
    }
    let distinct: BTreeSet<&String> = ambiguous.iter().collect();
    if distinct.len() != ambiguous.len() {
        return Some(Outcome::Wrong(format!(
            "{name}: {} ambiguous events for {} sets of candidates",
            ambiguous.len(),
            distinct.len()
        )));
    }
    let state = session.state();
    // a notice (issue 35) charges nobody: only what costs a player is wrong in clean play
    let costly: Vec<String> = state
        .violations
        .iter()
        .filter(|v| v.penalty != "notice")
        .map(|v| format!("{} {}", v.code, v.detail))
        .collect();
    if !costly.is_empty() {
        return Some(Outcome::Wrong(format!("{name}: violations {costly:?}")));
    }
    if clocked {
        let untimed: Vec<usize> = session
            .record()
            .moves
            .iter()
            .enumerate()
            .filter(|(_, m)| m.point.is_some() && m.time_left_ms.is_none())
            .map(|(i, _)| i + 1)
            .collect();
        if !untimed.is_empty() {
            return Some(Outcome::Wrong(format!(
                "{name}: moves without their clock reading: {untimed:?}"
            )));
        }
    }
    if got == check.refereed {
        return Some(Outcome::Exact);
    }
    let at = got.len();
    if let Some(held) = &state.held {
        if got[..] == check.refereed[..at] {
            // the held moves start at a close pair of the model's (index of its second stone)
            let close = report
                .close_pairs
                .iter()
                .any(|&i| i + 1 >= at && i <= at + held.moves);
            if close {
                return Some(Outcome::HeldAtClosePair);
            }
            return Some(Outcome::Wrong(format!(
                "{name}: held at move {} ({} moves, points {:?}) with no close pair there (close pairs at {:?})",
                at + 1,
                held.moves,
                held.points,
                report.close_pairs
            )));
        }
    }
    let i = got
        .iter()
        .zip(&check.refereed)
        .position(|(a, b)| a != b)
        .unwrap_or(at.min(check.refereed.len()));
    Some(Outcome::Wrong(format!(
        "{name}: {} of {} moves recorded, first difference at move {}: {:?} for {:?}",
        at,
        check.refereed.len(),
        i + 1,
        got.get(i),
        check.refereed.get(i)
    )))
}

#[test]
fn real_games_played_by_quick_players_are_recorded_move_for_move() {
    corpus(false);
}

/// The same with the players pressing a clock: each press 0–400 ms after its stone (after its
/// captures are lifted), and every move gets its clock reading, with no violation.
#[test]
fn real_games_played_by_quick_players_on_a_clock_are_recorded_move_for_move() {
    corpus(true);
}

fn corpus(clocked: bool) {
    let files = corpus_files();
    assert!(!files.is_empty());
    let all = std::env::var_os("SMARTGOBAN_BLITZ_ALL").is_some();
    // the whole corpus in steps of 3; the fixtures that travel with a fresh clone are few, all
    let shared = shared_corpus().is_some();
    let (step, seeds): (usize, &[u64]) = match (all, shared) {
        (true, _) => (1, &[1, 2, 3]),
        (false, true) => (3, &[1, 2]),
        (false, false) => (1, &[1, 2]),
    };
    let mut items: Vec<(PathBuf, u64)> = files
        .into_iter()
        .step_by(step)
        .flat_map(|f| seeds.iter().map(move |&s| (f.clone(), s)))
        .collect();
    if let (true, false, Some(dir)) = (clocked, all, shared_corpus()) {
        for &(file, seed) in HARD_WITH_A_CLOCK {
            let path = dir.join(file);
            assert!(path.exists(), "{}", path.display());
            if !items.contains(&(path.clone(), seed)) {
                items.push((path, seed));
            }
        }
    }
    let chunks: Vec<Vec<(PathBuf, u64)>> = {
        let mut c = vec![Vec::new(), Vec::new()];
        for (i, item) in items.into_iter().enumerate() {
            c[i % 2].push(item);
        }
        c
    };
    let outcomes: Vec<(u64, Outcome)> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|(f, s)| replay(f, *s, clocked).map(|o| (*s, o)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut wrong = Vec::new();
    let seeds: BTreeSet<u64> = outcomes.iter().map(|(s, _)| *s).collect();
    for seed in seeds {
        let of_seed = outcomes.iter().filter(|(s, _)| *s == seed);
        let (mut exact, mut held, mut bad) = (0, 0, 0);
        for (_, o) in of_seed {
            match o {
                Outcome::Exact => exact += 1,
                Outcome::HeldAtClosePair => held += 1,
                Outcome::Wrong(why) => {
                    bad += 1;
                    wrong.push(why.clone());
                }
            }
        }
        eprintln!(
            "blitz{} seed {seed}: {} clean games: {exact} recorded move for move, {held} held at a close pair, {bad} wrong",
            if clocked { " with a clock" } else { "" },
            exact + held + bad
        );
    }
    assert!(outcomes.len() >= 10, "enough games: {}", outcomes.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
