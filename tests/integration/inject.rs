//! Every clean game of the corpus replayed with one violation committed on purpose by the
//! virtual players (each kind in turn, at a random suitable moment), through the pty and the
//! real service under the cn2002 rules: each injected violation is reported exactly once with
//! the right code, offender and points and the rules' sanction (committed in full view, it is
//! proven: issue 35), nothing else is reported, and the record is the game's (with the passes
//! the rules insert for an invalid move).

use std::collections::BTreeMap;
use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smartgoban::daemon::{Daemon, DaemonConfig};
use smartgoban::referee::{Policy, Profile, RefereeConfig};
use smartgoban::rules::{check_record, Color, Point};
use smartgoban::session::SessionConfig;
use smartgoban::sim::inject::{Injection, InjectionKind};
use smartgoban::sim::player::PlayerOptions;
use smartgoban::sim::{self, DeviceConfig, NoiseModel, Source, Speed};

use crate::support::{corpus_files, read_record, run_all};

/// Injected violations judged unproven (a notice with its doubt) instead of sanctioned.
static NOTICES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Outcome of one run: (kind, Some(ok or error) | None when the game had no suitable moment).
type Outcome = (InjectionKind, Option<Result<(), String>>);

async fn run_one(path: PathBuf, index: u64) -> Outcome {
    let kind = InjectionKind::ALL[index as usize % InjectionKind::ALL.len()];
    let record = read_record(&path);
    let mut rng = ChaCha8Rng::seed_from_u64(index);
    let from_move = rng.random_range(8..record.moves.len().saturating_sub(20).max(9));
    let source = Source::Record(record.clone());
    let noise = NoiseModel::Realistic;
    let params = noise.params();
    let options = PlayerOptions {
        press_clock: true,
        injection: Some(Injection { kind, from_move }),
    };
    let (actions, injected) = source.timeline_with(&params, index, &options);
    let Some(injected) = injected else {
        return (kind, None);
    };
    let size = record.info.size;
    let gtp = |p: &Point| p.to_gtp(size);
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("board");
    let mut device = sim::spawn(
        actions,
        DeviceConfig {
            board_size: size,
            speed: Speed::Max,
            seed: index,
            noise: params,
            tail_ms: sim::TAIL_MS,
            link: Some(link.clone()),
            device_id: 3,
            protocol_version: smartgoban_protocol::PROTOCOL_VERSION,
        },
    )
    .unwrap();
    let daemon = Daemon::start(DaemonConfig {
        supervision: Default::default(),
        session: SessionConfig {
            referee: RefereeConfig {
                policy: Policy::Rules,
                ..RefereeConfig::default()
            },
            ..SessionConfig::default()
        },
        ..crate::support::daemon_config(&link, &source.setup())
    })
    .await
    .unwrap();
    let lent = &mut device;
    let board = move || (lent.try_done(), lent.scan_counter());
    if let Err(e) = crate::support::wait_played_out(board, daemon.shared()).await {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let _ = daemon.shutdown().await;
        return (kind, Some(Err(format!("{name} (seed {index}): {e}"))));
    }
    let events: Vec<serde_json::Value> = daemon
        .shared()
        .log
        .since(0)
        .iter()
        .map(|e| serde_json::to_value(&**e).unwrap())
        .collect();
    let snap = daemon.shutdown().await.unwrap();
    device.stop().unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let reported: Vec<(String, String, Vec<String>)> = events
        .iter()
        .filter(|e| e["kind"] == "violation")
        .map(|v| {
            (
                v["code"].as_str().unwrap().to_string(),
                v["color"].as_str().unwrap().to_string(),
                v["points"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect();
    let want = vec![(
        injected.code.as_str().to_string(),
        injected.offender.as_str().to_string(),
        injected.points.iter().map(gtp).collect::<Vec<_>>(),
    )];
    // committed in calm play, in full view of the board: proven, so the rules' sanction
    // stands (issue 35: a notice only where the evidence is incomplete)
    let sanction = Profile::Cn2002.sanction(injected.code).penalty.as_str();
    let penalties: Vec<&str> = events
        .iter()
        .filter(|e| e["kind"] == "violation")
        .filter_map(|v| v["penalty"].as_str())
        .collect();
    // (a hand over what the violation is about, at the wrong moment, leaves it unproven: a
    // notice that says so — counted, and kept rare by the assertion below)
    let noticed = penalties == ["notice"]
        && events.iter().any(|e| {
            e["kind"] == "violation"
                && e["detail"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("not proven (")
        });
    if noticed {
        NOTICES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    if reported == want && penalties != [sanction] && !noticed {
        return (
            kind,
            Some(Err(format!(
                "{name} (seed {index}, {kind:?} at move {}): penalty {penalties:?}, the rules say {sanction}: {:?}",
                injected.at_move + 1,
                events
                    .iter()
                    .filter(|e| e["kind"] == "violation")
                    .map(|v| v["detail"].as_str().unwrap_or_default())
                    .collect::<Vec<_>>()
            ))),
        );
    }
    if reported != want {
        return (
            kind,
            Some(Err(format!(
                "{name} (seed {index}, {kind:?} at move {}): reported {reported:?}, expected {want:?}",
                injected.at_move + 1
            ))),
        );
    }
    // the record: the game's moves, with the passes the rules insert
    let mut expected: Vec<(Color, Option<Point>)> =
        record.moves.iter().map(|m| (m.color, m.point)).collect();
    let at = injected.at_move + usize::from(injected.passes_after);
    for (i, &c) in injected.passes.iter().enumerate() {
        expected.insert(at + i, (c, None));
    }
    let got: Vec<(Color, Option<Point>)> = smartgoban::rules::GameRecord::from_sgf_str(&snap.sgf)
        .unwrap()
        .moves
        .iter()
        .map(|m| (m.color, m.point))
        .collect();
    if got != expected {
        let i = (0..got.len().max(expected.len()))
            .find(|&i| got.get(i) != expected.get(i))
            .unwrap_or(0);
        return (
            kind,
            Some(Err(format!(
                "{name} (seed {index}, {kind:?} at move {}): record differs at move {}: {:?} vs {:?} (phase {})",
                injected.at_move + 1,
                i + 1,
                got.get(i),
                expected.get(i),
                snap.state.phase.as_str()
            ))),
        );
    }
    (kind, Some(Ok(())))
}

#[test]
fn injected_violations_are_reported_once_and_the_record_stays_exact() {
    let files: Vec<PathBuf> = corpus_files()
        .into_iter()
        .filter(|f| {
            let r = read_record(f);
            r.moves.len() >= 60 && check_record(&r).violations.is_empty()
        })
        .collect();
    assert!(!files.is_empty());
    // Each game gets one kind in turn; with SMARTGOBAN_INJECT_ALL=1 every game gets every
    // kind (11 runs a game: about ten minutes on two cores).
    let kinds = InjectionKind::ALL.len() as u64;
    let items: Vec<(PathBuf, u64)> = if std::env::var_os("SMARTGOBAN_INJECT_ALL").is_some() {
        files
            .iter()
            .enumerate()
            .flat_map(|(i, f)| (0..kinds).map(move |k| (f.clone(), i as u64 * kinds + k)))
            .collect()
    } else {
        files.into_iter().zip(0..).collect()
    };
    // SMARTGOBAN_INJECT_SEEDS=3110,2667 re-runs only those runs (seeds as reported).
    let items: Vec<(PathBuf, u64)> = match std::env::var("SMARTGOBAN_INJECT_SEEDS") {
        Ok(list) => {
            let seeds: Vec<u64> = list
                .split(',')
                .filter_map(|s| s.trim().parse().ok())
                .collect();
            items
                .into_iter()
                .filter(|(_, i)| seeds.contains(i))
                .collect()
        }
        Err(_) => items,
    };
    let results = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Outcome>::new()));
    let sink = results.clone();
    let errors = run_all(items, 2, move |path, index| {
        let sink = sink.clone();
        async move {
            let outcome = run_one(path, index).await;
            let err = match &outcome.1 {
                Some(Err(e)) => Err(e.clone()),
                _ => Ok(()),
            };
            sink.lock().unwrap().push(outcome);
            err
        }
    });
    let mut counts: BTreeMap<&'static str, (usize, usize, usize)> = BTreeMap::new();
    for (kind, outcome) in results.lock().unwrap().iter() {
        let e = counts.entry(kind.code().as_str()).or_default();
        match outcome {
            None => e.2 += 1,
            Some(Ok(())) => e.0 += 1,
            Some(Err(_)) => e.1 += 1,
        }
    }
    let table: String = counts
        .iter()
        .map(|(code, (ok, bad, na))| {
            format!(
                "{code:<22} reported right {ok:>4}, wrong {bad:>3}, no suitable moment {na:>3}\n"
            )
        })
        .collect();
    eprintln!("injected violations per code:\n{table}");
    let _ = std::fs::write(
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("injection-report.txt"),
        &table,
    );
    assert!(
        errors.is_empty(),
        "{} wrong:\n{}\n{table}",
        errors.len(),
        errors.join("\n")
    );
    let runs = results
        .lock()
        .unwrap()
        .iter()
        .filter(|o| o.1.is_some())
        .count();
    let notices = NOTICES.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("{notices} of {runs} injected violations unproven (notices)");
    assert!(
        notices * 20 <= runs,
        "{notices} of {runs} injected violations were only noticed"
    );
}
