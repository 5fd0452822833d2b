//! Real games, end to end: each record is played on the virtual board, through a pty, by the
//! real service; the record the service keeps must be the game as a referee at the board
//! would record it (the source's main line, with the few moves that a physical board cannot
//! show turned into passes — see `rules::check_record`).

use std::path::PathBuf;

use smartgoban::sim::NoiseModel;

use crate::support::{
    compare, corpus_files, read_record, replay_with, replay_with_faults, run_all,
};

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
    job_with(noise, false)
}

/// A replay of one game with `noise`, through the firmware's sensors when `firmware`.
fn job_with(
    noise: NoiseModel,
    firmware: bool,
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
            let summary = replay_with(&path, noise, seed, firmware).await?;
            compare(&source, &summary).map_err(|e| {
                format!(
                    "{} ({noise:?}, seed {seed}, firmware {firmware}): {e}",
                    path.display()
                )
            })
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

/// Real games read as the real board is read (`--firmware`, issue 17): Hall sensors with a
/// real batch's spread and a few weak, noisy and reversed ones, stones off their points and
/// magnets of uneven strength, calibrated and classified by the firmware's own logic
/// (hardware/board-core) — a sample of 20 games under realistic noise and 10 under harsh, each
/// recorded exactly.
#[test]
fn a_sample_replays_exactly_through_the_firmwares_hall_sensors() {
    let files = corpus_files();
    let step = (files.len() / 20).max(1);
    let sample: Vec<PathBuf> = files.into_iter().step_by(step).take(20).collect();
    let realistic: Vec<_> = sample.iter().map(|f| (f.clone(), 5)).collect();
    let harsh: Vec<_> = sample.iter().step_by(2).map(|f| (f.clone(), 6)).collect();
    let (r, h) = (realistic.len(), harsh.len());
    let mut errors = run_all(realistic, 2, job_with(NoiseModel::Realistic, true));
    errors.extend(run_all(harsh, 2, job_with(NoiseModel::Harsh, true)));
    report("firmware", r + h, errors);
}

/// Real games on boards with a dead sensor (`--sensor-faults dead=1`, besides the noise
/// model's weak, noisy and reversed ones): the dead sensor's point is read from its
/// neighbours' sensors by the firmware's logic, so every move — those on the dead point
/// included — is recorded exactly; and `GET state`'s `sensors` reports the dead sensor where
/// the board put it (the service asks the board after the handshake, protocol version 4). 12 games under realistic noise, 4 under harsh.
#[test]
fn games_on_a_board_with_a_dead_sensor_are_recorded_exactly() {
    use smartgoban::sim::hall::SensorFaults;
    let files = corpus_files();
    let step = (files.len() / 12).max(1);
    let sample: Vec<PathBuf> = files.into_iter().skip(1).step_by(step).take(12).collect();
    let dead = SensorFaults {
        dead: 1,
        ..SensorFaults::default()
    };
    let job = move |noise: NoiseModel| {
        move |path: PathBuf, seed: u64| -> std::pin::Pin<
            Box<dyn std::future::Future<Output = Result<(), String>> + Send>,
        > {
            Box::pin(async move {
                let source = read_record(&path);
                let summary = replay_with_faults(&path, noise, seed, true, dead).await?;
                let what = format!("{} ({noise:?}, seed {seed}, a dead sensor)", path.display());
                compare(&source, &summary).map_err(|e| format!("{what}: {e}"))?;
                // GET state's sensors: the dead one where the board put it
                let playing = smartgoban::sim::Playing {
                    noise,
                    seed,
                    speed: smartgoban::sim::Speed::Max,
                    press_clock: false,
                    firmware: true,
                    sensor_faults: dead,
                    uncalibrated: false,
                };
                let placed = smartgoban::sim::faulty_sensors(source.info.size, &playing);
                let sensors = &summary.snapshot.state.sensors;
                let dead_points: Vec<&str> = sensors
                    .faults
                    .iter()
                    .filter(|f| f.faults.contains(&"dead"))
                    .map(|f| f.point.as_str())
                    .collect();
                let placed_dead: Vec<&str> = placed
                    .iter()
                    .filter(|(_, f)| *f == "dead")
                    .map(|(p, _)| p.as_str())
                    .collect();
                if !sensors.reported
                    || sensors.calibrated != Some(true)
                    || dead_points != placed_dead
                    || sensors.counts.dead != 1
                {
                    return Err(format!(
                        "{what}: GET state's sensors {sensors:?}, the board's dead sensors {placed_dead:?}"
                    ));
                }
                Ok(())
            })
        }
    };
    let realistic: Vec<_> = sample.iter().map(|f| (f.clone(), 41)).collect();
    let harsh: Vec<_> = sample.iter().step_by(3).map(|f| (f.clone(), 42)).collect();
    let runs = realistic.len() + harsh.len();
    let mut errors = run_all(realistic, 2, job(NoiseModel::Realistic));
    errors.extend(run_all(harsh, 2, job(NoiseModel::Harsh)));
    report("a dead sensor", runs, errors);
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
