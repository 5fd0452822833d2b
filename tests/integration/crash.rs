//! Issue 13's crash test with real processes: Iyama–Master played by quick players (`blitz`
//! noise, the clock pressed) on the virtual board at 4× real time, into `smartgoban run` (a
//! separate process, its store on disk). The service is killed with SIGKILL 20 s of board time
//! into the game and kept down for 2, 8, 30 or 120 s of board time (¼ of that in real time),
//! then restarted; or the cable is pulled for as long. The version-3 board's history is
//! replayed: the record, the clock readings on every move (BL/WL, periods) and the game's
//! events (moves, passes, violations, warnings, the result; without `seq`, `t_ms` and link
//! events) are those of the uninterrupted run of the same seed.
//!
//! Or the service is stopped (SIGSTOP) for 2.4 s of board time and continued: a starved
//! service, under the link timeout, whose board drops the scans it cannot send; the gap is
//! filled from the board's history (PROTOCOL.md §14.7). Without that the press of the move
//! in the gap was dated by the next scan received: one reading off by 1,700 ms in this run,
//! as two of five earlier runs of the kill and unplug outages on a busy machine were.
//!
//! In every CI run: killed 8 s, unplugged 30 s and starved, beside the uninterrupted run, all
//! at once (about 30 s). Every outage of the issue (2, 8, 30, 120 s, killed and unplugged), two
//! at a time, about 3 minutes: `cargo test --test integration -- --ignored crash --nocapture`.
//! The same outages run deterministically in lockstep in `outage.rs`.

use std::time::{Duration, Instant};

use smartgoban::rules::GameRecord;
use smartgoban::sim::action::{Action, TimedAction};
use smartgoban::sim::player::PlayerOptions;
use smartgoban::sim::{self, DeviceConfig, NoiseModel, Source, Speed};

use crate::recovery::{start_service, terminate};
use crate::support::{moves_with_readings, read_record, root, run_config, StoreView};

const GAME: &str =
    "tests/fixtures/games/yenw-computer-go-dataset/master/39-2017.01.02-Iyama_Yuta-Master.sgf";

/// When the outage starts, board ms.
const OUTAGE_AT_MS: u64 = 20_000;

/// Board time runs this many times real time.
const SPEED: f64 = 4.0;

#[derive(Clone, Copy, Debug)]
enum Outage {
    None,
    Killed(u64),
    Unplugged(u64),
    /// The service stopped (SIGSTOP) for this long of board time and continued (SIGCONT): a
    /// starved service, under the link timeout; the board drops the scans it cannot send.
    Starved(u64),
}

/// Sends `signal` (`STOP`, `CONT`) to `child`.
fn signal(child: &std::process::Child, signal: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .expect("kill");
    assert!(status.success(), "kill -{signal}");
}

/// What a run leaves: the record's moves with their readings, and the game's events.
#[derive(Debug, PartialEq)]
struct Run {
    record: Vec<(String, Option<u64>, Option<u32>)>,
    events: Vec<String>,
    /// Gaps in the scans the service filled from the board's history (scans the board
    /// dropped while the service fell behind, PROTOCOL.md §14.7), from its logs.
    gaps_filled: usize,
}

/// Gaps filled, from the logs of the runs of the service in `dir` (`runs/N.log`).
fn gaps_filled(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir.join("runs"))
        .into_iter()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
        .map(|log| log.matches("filling the gap").count())
        .sum()
}

fn play(outage: Outage) -> Run {
    let source_record = read_record(&root().join(GAME));
    let dir = tempfile::tempdir().unwrap();
    let (config, link, data) = run_config(
        dir.path(),
        source_record.info.komi.unwrap_or(6.5),
        "main=10m jp=3x30s",
    );
    // The API on a port of its own, to ask the service what it has taken in.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("127.0.0.1:0", &format!("127.0.0.1:{port}"));
    std::fs::write(&config, text).unwrap();
    let source = Source::Record(source_record.clone());
    let params = NoiseModel::Blitz.params();
    let options = PlayerOptions {
        press_clock: true,
        injection: None,
    };
    let (mut actions, _) = source.timeline_with(&params, 1, &options);
    if let Outage::Unplugged(ms) = outage {
        let at = actions.partition_point(|a| a.at_ms < OUTAGE_AT_MS);
        actions.insert(
            at,
            TimedAction {
                at_ms: OUTAGE_AT_MS,
                action: Action::Unplug { duration_ms: ms },
            },
        );
    }
    let device = sim::spawn(
        actions,
        DeviceConfig {
            board_size: 19,
            speed: Speed::Factor(SPEED),
            seed: 1,
            noise: params,
            tail_ms: sim::TAIL_MS,
            link: Some(link.clone()),
            device_id: 7,
            protocol_version: smartgoban_protocol::PROTOCOL_VERSION,
        },
    )
    .unwrap();
    let mut service = start_service(&config, 0);
    if let Outage::Killed(ms) | Outage::Starved(ms) = outage {
        let at = (OUTAGE_AT_MS / 20) as u32;
        let deadline = Instant::now() + Duration::from_secs(60);
        while device.scan_counter() < at {
            assert!(
                Instant::now() < deadline,
                "the board never reached the outage"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let down = Duration::from_secs_f64(ms as f64 / 1000.0 / SPEED);
        if let Outage::Starved(_) = outage {
            signal(&service, "STOP");
            std::thread::sleep(down);
            signal(&service, "CONT");
        } else {
            service.kill().unwrap();
            service.wait().unwrap();
            std::thread::sleep(down);
            service = start_service(&config, 1);
        }
    }
    let report = device
        .wait_done(Duration::from_secs(600))
        .expect("the board played the game out");
    // The service has taken in the board's last scan: everything the game does (the last
    // press judged, the last reading) has happened in it. The board counts its scans again in
    // each session; the outages end long before the game, so an earlier session never counts
    // as far as the last one.
    assert!(
        report.last_scan_counter > (OUTAGE_AT_MS / 20) as u32,
        "{outage:?}: the board's last session is shorter than its first: {report:?}"
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let state = crate::support::state_on(port);
        let seen = state
            .as_ref()
            .and_then(|s| s["link"]["last_scan_counter"].as_u64());
        let connected = state
            .as_ref()
            .is_some_and(|s| s["link"]["state"] == "connected");
        if connected && seen.is_some_and(|c| c >= u64::from(report.last_scan_counter)) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{outage:?}: the service never took in the board's last scan {} (at {seen:?}, \
             connected: {connected})",
            report.last_scan_counter
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // SIGTERM: the service writes everything before it exits
    terminate(&mut service);
    device.stop().unwrap();
    let text = std::fs::read_to_string(data.join("current.sgf")).unwrap();
    let record = GameRecord::from_sgf_str(&text).unwrap();
    let store = StoreView::open(&data).unwrap();
    let events = store
        .events()
        .into_iter()
        .filter(|(_, kind, _)| {
            matches!(
                kind.as_str(),
                "move" | "pass" | "violation" | "warning" | "result" | "ambiguous"
            )
        })
        .map(|(_, kind, mut body)| {
            if let Some(o) = body.as_object_mut() {
                o.remove("seq");
                o.remove("t_ms");
            }
            format!("{kind} {body}")
        })
        .collect();
    Run {
        record: moves_with_readings(&record),
        events,
        gaps_filled: gaps_filled(dir.path()),
    }
}

/// Plays the uninterrupted run and `outages`, `parallel` at a time (each a board and a
/// service of its own: more at once is a busier machine), and checks each against the
/// uninterrupted run.
fn check(outages: &[Outage], parallel: usize) {
    let runs: Vec<(Outage, Run)> = std::iter::once(Outage::None)
        .chain(outages.iter().copied())
        .collect::<Vec<_>>()
        .chunks(parallel)
        .flat_map(|batch| {
            std::thread::scope(|scope| {
                let handles: Vec<_> = batch
                    .iter()
                    .map(|&outage| {
                        scope.spawn(move || {
                            let started = Instant::now();
                            let run = play(outage);
                            eprintln!(
                                "crash test {outage:?}: {:.1} s, {} gaps in the scans filled",
                                started.elapsed().as_secs_f64(),
                                run.gaps_filled
                            );
                            (outage, run)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let base = &runs[0].1;
    assert_eq!(
        base.record.len(),
        135,
        "the uninterrupted run records the game"
    );
    for (outage, run) in &runs[1..] {
        if let Outage::Starved(_) = outage {
            // else the board never dropped a scan, and the run proves nothing about gaps
            assert!(run.gaps_filled > 0, "{outage:?}: no gap in the scans");
        }
        assert!(
            run.record == base.record,
            "{outage:?}: the record and its readings differ: {}",
            first_difference(&run.record, &base.record)
        );
        assert!(
            run.events == base.events,
            "{outage:?}: the game's events differ: {}",
            first_difference(&run.events, &base.events)
        );
    }
}

/// A sample in every CI run (about 40 s): killed for 8 s and unplugged for 30 s of board
/// time, beside the uninterrupted run, all three at once.
#[test]
fn crash_a_blitz_game_at_4x_killed_for_8_s_or_unplugged_for_30_s_ends_as_if_never_down() {
    check(
        &[
            Outage::Killed(8_000),
            Outage::Unplugged(30_000),
            Outage::Starved(2_400),
        ],
        4,
    );
}

/// Every outage of the issue, two at a time.
#[test]
#[ignore = "about 3 minutes of real time; a sample runs in CI"]
fn crash_a_blitz_game_at_4x_killed_or_unplugged_for_2_8_30_120_s_ends_as_if_never_down() {
    // the uninterrupted run again: real time must not change what is recorded
    let outages: Vec<Outage> = std::iter::once(Outage::None)
        .chain(
            [2_000, 8_000, 30_000, 120_000]
                .into_iter()
                .flat_map(|ms| [Outage::Killed(ms), Outage::Unplugged(ms)]),
        )
        .collect();
    check(&outages, 2);
}

/// Where `got` first differs from `want`: the index and both sides.
fn first_difference<T: std::fmt::Debug + PartialEq>(got: &[T], want: &[T]) -> String {
    let i = (0..got.len().max(want.len()))
        .find(|&i| got.get(i) != want.get(i))
        .unwrap_or(0);
    format!(
        "at {i} of {}/{}: got {:?}, want {:?}",
        got.len(),
        want.len(),
        got.get(i),
        want.get(i)
    )
}
