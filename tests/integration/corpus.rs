//! Real games, end to end: each record is played on the virtual board, through a pty, by the
//! real service; the record the service keeps must be the game as a referee at the board
//! would record it (the source's main line, with the few moves that a physical board cannot
//! show turned into passes — see `rules::check_record`).

use std::path::PathBuf;

use smartgoban::sim::NoiseModel;

use crate::support::{compare, corpus_files, read_record, replay, run_all};

fn job(
    noise: NoiseModel,
) -> impl Fn(
    PathBuf,
    u64,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), String>> + Send>>
       + Clone
       + Send
       + Sync
       + 'static {
    move |path: PathBuf, seed: u64| {
        Box::pin(async move {
            let source = read_record(&path);
            let summary = replay(&path, noise, seed).await?;
            compare(&source, &summary)
                .map_err(|e| format!("{} ({noise:?}, seed {seed}): {e}", path.display()))
        })
    }
}

fn report(kind: &str, runs: usize, errors: Vec<String>) {
    assert!(
        errors.is_empty(),
        "{kind}: {} of {runs} replays differ:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

/// Every game, clean noise.
#[test]
fn every_game_replays_exactly_under_clean_noise() {
    let files = corpus_files();
    assert!(!files.is_empty());
    let items: Vec<_> = files.into_iter().map(|f| (f, 1)).collect();
    let runs = items.len();
    report("clean", runs, run_all(items, 2, job(NoiseModel::Clean)));
}

/// A fixed sample of at least 100 games (every few files of the sorted corpus), each with
/// three seeds, realistic noise.
#[test]
fn sample_replays_exactly_under_realistic_noise() {
    let files = corpus_files();
    let step = (files.len() / 100).max(1);
    let sample: Vec<PathBuf> = files.into_iter().step_by(step).collect();
    let items: Vec<_> = sample
        .iter()
        .flat_map(|f| [11, 22, 33].map(|seed| (f.clone(), seed)))
        .collect();
    let runs = items.len();
    report(
        "realistic",
        runs,
        run_all(items, 2, job(NoiseModel::Realistic)),
    );
}

/// A few games under harsh noise.
#[test]
fn a_few_games_replay_exactly_under_harsh_noise() {
    let files = corpus_files();
    let step = (files.len() / 6).max(1);
    let items: Vec<_> = files
        .into_iter()
        .step_by(step)
        .take(6)
        .enumerate()
        .map(|(i, f)| (f, 100 + i as u64))
        .collect();
    let runs = items.len();
    report("harsh", runs, run_all(items, 2, job(NoiseModel::Harsh)));
}
