//! Issue 7, "Nothing is ever lost": the service (`smartgoban run`, a separate process) is
//! killed with SIGKILL at 50 random moments of a real game played with realistic noise and a
//! running clock on the virtual board (which, like the wood, lives on while the service is
//! down: the players keep playing and pressing) and restarted each time. The final record is
//! the source game; the store's event log has every `seq` once, increasing; every move was
//! committed once; every clock reading the store had when a run died is in the final record.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smartgoban::rules::{Color, GameRecord, Point};
use smartgoban::sim::player::PlayerOptions;
use smartgoban::sim::{self, DeviceConfig, NoiseModel, Source, Speed};

use crate::support::{read_record, root, run_config, StoreView};

/// The source: Iyama Yuta vs Master, 2017 (135 moves, captures, no handicap).
const GAME: &str =
    "tests/fixtures/games/yenw-computer-go-dataset/master/39-2017.01.02-Iyama_Yuta-Master.sgf";

/// Kills, as the issue asks.
const KILLS: usize = 50;

/// Starts run number `n`; its log goes to `runs/N.log` beside the config.
pub(crate) fn start_service(config: &Path, n: usize) -> Child {
    let logs = config.with_file_name("runs");
    std::fs::create_dir_all(&logs).unwrap();
    let log = std::fs::File::create(logs.join(format!("{n}.log"))).unwrap();
    Command::new(env!("CARGO_BIN_EXE_smartgoban"))
        .args(["run", "--config"])
        .arg(config)
        .env("SMARTGOBAN_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start smartgoban run")
}

/// The clock reading of each move's press in the store: move number → mover's time left, ms.
fn pressed_readings(events: &[(u64, String, serde_json::Value)]) -> BTreeMap<u64, u64> {
    let mut readings = BTreeMap::new();
    for (_, kind, body) in events {
        if kind != "clock" {
            continue;
        }
        let Some(number) = body["move_number"].as_u64() else {
            continue;
        };
        let mover = if number % 2 == 1 { "black" } else { "white" };
        let side = &body[mover];
        let left = if side["overtime"].as_bool() == Some(true) {
            side["period_ms"].as_u64()
        } else {
            side["main_ms"].as_u64()
        };
        if let Some(left) = left {
            readings.insert(number, left);
        }
    }
    readings
}

#[test]
fn killed_fifty_times_mid_game_the_service_loses_nothing() {
    let source_record = read_record(&root().join(GAME));
    let dir = tempfile::tempdir().unwrap();
    let (config, link, data) = run_config(
        dir.path(),
        source_record.info.komi.unwrap_or(6.5),
        "main=60m cn=3x60s",
    );
    let source = Source::Record(source_record.clone());
    let params = NoiseModel::Realistic.params();
    let options = PlayerOptions {
        press_clock: true,
        injection: None,
    };
    let (actions, _) = source.timeline_with(&params, 7, &options);
    let device = sim::spawn(
        actions,
        DeviceConfig {
            board_size: 19,
            speed: Speed::Factor(3.0),
            seed: 7,
            noise: params,
            tail_ms: sim::TAIL_MS,
            link: Some(link.clone()),
            device_id: 7,
            protocol_version: smartgoban_protocol::PROTOCOL_VERSION,
        },
    )
    .unwrap();

    let mut rng = ChaCha8Rng::seed_from_u64(50);
    let mut service = start_service(&config, 0);
    let mut recoveries = Vec::new();
    let mut lost_readings = Vec::new();
    let started = Instant::now();
    for kill in 0..KILLS {
        // wait 0.3–1.5 s, noting when this run reconnected to the board: from its start (so
        // some runs die while starting), or, every other run, from its reconnection (so that
        // most runs die mid-game with the board connected however slow the machine is)
        let run_start = Instant::now();
        let connected_before = StoreView::open(&data).map_or(0, |s| s.count_link_connected());
        let wait = Duration::from_millis(rng.random_range(300..1500));
        let after_reconnection = kill % 2 == 1;
        let deadline = run_start + Duration::from_secs(60);
        let mut reconnected = None;
        loop {
            let from = match reconnected {
                Some(at) if after_reconnection => at,
                None if after_reconnection => {
                    assert!(
                        Instant::now() < deadline,
                        "run {kill} never reconnected to the board"
                    );
                    Duration::from_secs(3600)
                }
                _ => Duration::ZERO,
            };
            if run_start.elapsed() >= from + wait {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
            if reconnected.is_none()
                && StoreView::open(&data)
                    .is_some_and(|s| s.count_link_connected() > connected_before)
            {
                reconnected = Some(run_start.elapsed());
            }
        }
        service.kill().unwrap();
        service.wait().unwrap();
        if kill > 0 {
            recoveries.extend(reconnected);
        }
        // what the store holds at this death must survive into the final record
        if let Some(store) = StoreView::open(&data) {
            lost_readings.push(pressed_readings(&store.events()));
        }
        service = start_service(&config, kill + 1);
    }
    let killing = started.elapsed();
    let report = device
        .wait_done(Duration::from_secs(600))
        .expect("the virtual board played the game out");
    // the last run sees the game to its end, then stops cleanly
    let want: Vec<(Color, Option<Point>)> = source_record
        .moves
        .iter()
        .map(|m| (m.color, m.point))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    let record = loop {
        let text = std::fs::read_to_string(data.join("current.sgf")).unwrap_or_default();
        let record = GameRecord::from_sgf_str(&text).ok();
        let got: Option<Vec<(Color, Option<Point>)>> = record
            .as_ref()
            .map(|r| r.moves.iter().map(|m| (m.color, m.point)).collect());
        if got.as_ref() == Some(&want) || Instant::now() > deadline {
            break record;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    terminate(&mut service);
    device.stop().unwrap();

    let record = record.expect("a record in current.sgf");
    let got: Vec<(Color, Option<Point>)> =
        record.moves.iter().map(|m| (m.color, m.point)).collect();
    if got != want {
        // what the runs said, to see why
        for n in 0..=KILLS {
            let log = std::fs::read_to_string(dir.path().join(format!("runs/{n}.log")))
                .unwrap_or_default();
            for line in log
                .lines()
                .filter(|l| !l.contains(" INFO ") || l.contains("resumed"))
            {
                eprintln!("run {n}: {line}");
            }
        }
    }
    assert_eq!(got, want, "the final record is the source game");

    let store = StoreView::open(&data).unwrap();
    let events = store.events();
    // every seq once, increasing across the runs (each run starts above every earlier one:
    // the wall clock, so a number published but never stored is not given again)
    let seqs: Vec<u64> = events.iter().map(|e| e.0).collect();
    assert!(
        seqs.windows(2).all(|w| w[1] > w[0]),
        "seq strictly increasing"
    );
    // each move committed once, at its number, on its point
    let mut moves: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for (_, kind, body) in &events {
        if kind == "move" {
            moves
                .entry(body["number"].as_u64().unwrap())
                .or_default()
                .push(body["sgf"].as_str().unwrap().to_owned());
        }
    }
    assert_eq!(moves.len(), want.len(), "a move event for every move");
    for (number, points) in &moves {
        let want_sgf = want[*number as usize - 1].1.map(|p| p.to_sgf());
        assert_eq!(
            points.iter().map(|p| Some(p.clone())).collect::<Vec<_>>(),
            vec![want_sgf],
            "move {number}: committed once, on its point"
        );
    }
    // no warning appeared from nowhere, none vanished
    let warnings = events.iter().filter(|e| e.1 == "warning").count();
    assert_eq!(warnings, 0, "a clean game has no warning");
    assert!(
        events.iter().all(|e| e.1 != "violation"),
        "no violation: {:?}",
        events
            .iter()
            .filter(|e| e.1 == "violation")
            .collect::<Vec<_>>()
    );
    // every press reading the store held when a run died is the record's, unchanged
    let mut checked = 0;
    for readings in &lost_readings {
        for (number, left) in readings {
            let m = &record.moves[*number as usize - 1];
            assert_eq!(
                m.time_left_ms,
                Some(*left),
                "move {number}: the clock reading kept before a crash"
            );
            checked += 1;
        }
    }
    let timed = record
        .moves
        .iter()
        .filter(|m| m.time_left_ms.is_some())
        .count();
    recoveries.sort();
    let pct = |p: usize| recoveries[(recoveries.len() - 1) * p / 100].as_millis();
    eprintln!(
        "crash test: {KILLS} SIGKILLs over {:.1} s of a {}-move game ({} board ms, {} board sessions); \
         {} events, {} moves, {timed} moves with their clock reading; {checked} readings checked \
         across the deaths; restart → board reconnected (from the store) in {} of the runs: \
         p50 {} ms, p90 {} ms, max {} ms",
        killing.as_secs_f64(),
        want.len(),
        report.board_ms,
        report.sessions,
        events.len(),
        moves.len(),
        recoveries.len(),
        pct(50),
        pct(90),
        pct(100),
    );
    assert!(
        recoveries.len() >= KILLS / 2,
        "most runs reconnected before they were killed"
    );
}

/// Stops the last run with SIGTERM (as systemd does) so it writes everything and exits.
pub(crate) fn terminate(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the service did not exit within 60 s of SIGTERM");
}

/// White's main time left, ms, as `GET /api/v1/state` shows it now, once the board is
/// connected.
fn white_left(port: u16) -> Option<u64> {
    let rt = crate::support::rt();
    rt.block_on(async {
        let state: serde_json::Value =
            reqwest::get(format!("http://127.0.0.1:{port}/api/v1/state"))
                .await
                .ok()?
                .json()
                .await
                .ok()?;
        // the board connected (after a restart: its history of the outage replayed)
        (state["clock"]["running"] == "white")
            .then(|| state["clock"]["white"]["main_ms"].as_u64())?
    })
}

/// Starts a service on the board at `link`; waits until White's clock runs in it.
fn start_and_wait(config: &Path, n: usize, port: u16) -> (Child, u64) {
    let mut child = start_service(config, n);
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Some(left) = white_left(port) {
            return (child, left);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("White's clock never ran");
}

/// Wall clock, ms since 1970 (the store's `unix_ms`).
fn unix_ms() -> i64 {
    smartgoban::store::unix_now_ms()
}

/// How stale a state read over HTTP may be: the snapshot is published with the scans and
/// the clock's ticks, not at the instant of the request (ms).
const STALE_MS: i64 = 250;

/// How the board under a 3 s outage of the service keeps (or not) what happened meanwhile.
#[derive(Clone, Copy, Debug)]
enum Board {
    /// Protocol version 2: no history; the service goes on from its checkpoint, and
    /// `charge_downtime` says whose clock the time down is on.
    WithoutHistory { charge_downtime: bool },
    /// Protocol version 3: the board's history of the outage is replayed (PROTOCOL.md §14),
    /// as if the service had been up (`charge_downtime = false`, which does not apply).
    WithHistory,
}

/// A 3 s outage of the service and its restart, measured: White's time used across it (ms,
/// from the reading before the kill to one after the restart — after the replay of the
/// board's history when it has one; negative if the clock shows more than before the kill)
/// and the range it must lie in, from the wall clock around each reading and the store's
/// last durable moment (checkpoint or beat) before the kill.
fn outage(board: Board) -> (i64, std::ops::RangeInclusive<i64>) {
    let (charge_downtime, version) = match board {
        Board::WithoutHistory { charge_downtime } => (charge_downtime, 2),
        Board::WithHistory => (false, smartgoban_protocol::PROTOCOL_VERSION),
    };
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("board");
    let data = dir.path().join("data");
    let config = dir.path().join("smartgoban.toml");
    let port = crate::support::free_port();
    std::fs::write(
        &config,
        format!(
            "serial = {link:?}\nhttp = \"127.0.0.1:{port}\"\ndata_dir = {data:?}\n\
             charge_downtime = {charge_downtime}\n[game]\nsize = 9\ntime = \"main=10m\"\n"
        ),
    )
    .unwrap();
    // Black plays and presses; White thinks for a minute.
    let script = smartgoban::sim::Script::parse(
        "size 9\ntime main=10m\nat 500 place B E5\nat 900 clock B\nat 60000 place W C3\n",
    )
    .unwrap();
    let device = sim::start_version(
        &Source::Script(script),
        smartgoban::sim::Playing {
            noise: NoiseModel::Clean,
            seed: 1,
            speed: Speed::Factor(1.0),
            press_clock: false,
            firmware: false,
            sensor_faults: Default::default(),
            uncalibrated: false,
        },
        link.clone(),
        9,
        version,
    )
    .unwrap();
    let (mut service, _) = start_and_wait(&config, 0, port);
    // White's clock runs a while (the length does not matter; no condition to wait for)
    std::thread::sleep(Duration::from_millis(2500));
    let asked_before = unix_ms();
    let before = white_left(port).unwrap() as i64;
    let answered_before = unix_ms();
    service.kill().unwrap();
    service.wait().unwrap();
    let durable = StoreView::open(&data)
        .and_then(|s| s.durable_unix_ms())
        .expect("a checkpoint before the kill");
    // the outage: its length is what is measured
    std::thread::sleep(Duration::from_secs(3));
    let restarted = unix_ms();
    let (mut service, _) = start_and_wait(&config, 1, port);
    let measured = match board {
        Board::WithoutHistory { charge_downtime } => {
            let asked_after = unix_ms();
            let after = white_left(port).unwrap() as i64;
            let answered_after = unix_ms();
            let range = if charge_downtime {
                // the clock ran on through the outage: the wall time between the readings
                (asked_after - answered_before)..=(answered_after - asked_before)
            } else {
                // the clock ran up to the last durable moment before the kill (which may
                // come before the first reading), then only while the service was up again
                (durable - answered_before)..=(durable - asked_before + answered_after - restarted)
            };
            (
                before - after,
                (range.start() - STALE_MS)..=(range.end() + STALE_MS),
            )
        }
        Board::WithHistory => {
            // the replay is stored (durable before published), then shown: White's clock
            // then reads the wall time since the first reading, as if the service had been
            // up; until it is shown, it reads about 3 s less
            let deadline = Instant::now() + Duration::from_secs(60);
            let replayed = || {
                StoreView::open(&data).is_some_and(|s| {
                    s.events().iter().any(|(_, kind, body)| {
                        kind == "link" && body.to_string().contains("\"outcome\":\"replayed\"")
                    })
                })
            };
            while !replayed() {
                assert!(
                    Instant::now() < deadline,
                    "the board's history was never replayed"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
            loop {
                let asked_after = unix_ms();
                let after = white_left(port).unwrap() as i64;
                let answered_after = unix_ms();
                let range = (asked_after - answered_before - STALE_MS)
                    ..=(answered_after - asked_before + STALE_MS);
                if range.contains(&(before - after)) || Instant::now() > deadline {
                    break (before - after, range);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    };
    terminate(&mut service);
    device.stop().unwrap();
    measured
}

/// With no history from the board, the time the service was down is on no one's clock
/// unless `charge_downtime = true` (README "Recovery").
#[test]
fn without_the_boards_history_the_time_down_is_on_no_clock_unless_configured() {
    // not charged: White's clock ran only while the service was up
    let (used, range) = outage(Board::WithoutHistory {
        charge_downtime: false,
    });
    assert!(
        range.contains(&used),
        "White was charged {used} ms, not in {range:?} (ms)"
    );
    // charged: White's clock ran through the outage too
    let (used, range) = outage(Board::WithoutHistory {
        charge_downtime: true,
    });
    assert!(
        range.contains(&used),
        "White was charged {used} ms with charge_downtime, not in {range:?} (ms)"
    );
    assert!(
        used > 3_000 - STALE_MS,
        "with charge_downtime the 3 s outage is on White's clock: {used} ms"
    );
}

/// With the board's history (protocol version 3), the outage is replayed as if the service
/// had been up: White, to move, thought through it (README "The board's own history").
#[test]
fn with_the_boards_history_the_time_down_is_on_the_clock_of_the_player_to_move() {
    let (used, range) = outage(Board::WithHistory);
    assert!(
        range.contains(&used),
        "White was charged {used} ms after the replay, not in {range:?} (ms): the wall time"
    );
    assert!(
        used > 3_000,
        "the 3 s outage is on White's clock: {used} ms"
    );
}

/// A stone lifted while the service is stopped: restarted, the service resumes the game and
/// shows the board in `desync` with the exact stone to put back (R17.6), then play goes on.
#[test]
fn a_board_changed_while_the_service_was_down_is_a_desync_with_the_exact_difference() {
    use smartgoban::daemon::{Daemon, DaemonConfig, Recovery};
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("board");
    let data = dir.path().join("data");
    // E5 and C3 are played; at 6 s, with the service down, E5 is lifted; at 16 s it is put back.
    let script = smartgoban::sim::Script::parse(
        "size 9\nat 500 place B E5\nat 1500 place W C3\nat 6000 remove E5\n\
         at 16000 place B E5\nat 18000 place B G7\n",
    )
    .unwrap();
    let source = Source::Script(script);
    let setup = source.setup();
    let playing = smartgoban::sim::Playing {
        noise: NoiseModel::Clean,
        seed: 1,
        speed: Speed::Factor(2.0),
        press_clock: false,
        firmware: false,
        sensor_faults: Default::default(),
        uncalibrated: false,
    };
    let device = sim::start(&source, playing, link.clone(), 5).unwrap();
    let config = || DaemonConfig {
        supervision: Default::default(),
        recovery: Recovery {
            resume: true,
            charge_downtime: false,
        },
        data_dir: Some(data.clone()),
        ..crate::support::daemon_config(&link, &setup)
    };
    crate::support::rt().block_on(async {
        let daemon = Daemon::start(config()).await.unwrap();
        wait_snapshot(&daemon, "two moves", |s| s.state.move_number == 2).await;
        // stopped at about 1 s of wall time (2 s of board time), before E5 is lifted
        daemon.shutdown().await.unwrap();
        assert!(
            device.board_ms() < 6_000,
            "the service stopped only after E5 was lifted (board at {} ms)",
            device.board_ms()
        );
        // down until E5 has been lifted (board time runs at twice wall time), restarted
        // well before it is put back
        wait_board(&device, 6_500).await;
        let daemon = Daemon::start(config()).await.unwrap();
        wait_snapshot(&daemon, "the desync", |s| {
            s.state.phase == smartgoban::event::Phase::Desync
        })
        .await;
        let snap = daemon.shared().snapshot();
        assert_eq!(snap.state.move_number, 2, "the game resumed");
        let guidance = serde_json::to_value(&snap.state.guidance).unwrap();
        assert_eq!(
            guidance["restore"],
            serde_json::json!([{"point": "E5", "color": "black"}]),
            "{guidance}"
        );
        assert_eq!(guidance["remove"], serde_json::json!([]), "{guidance}");
        // E5 put back: play goes on with G7
        wait_snapshot(&daemon, "G7", |s| s.state.move_number == 3).await;
        let snap = daemon.shutdown().await.unwrap();
        let record = GameRecord::from_sgf_str(&snap.sgf).unwrap();
        let points: Vec<String> = record
            .moves
            .iter()
            .map(|m| m.point.unwrap().to_gtp(9))
            .collect();
        assert_eq!(points, ["E5", "C3", "G7"]);
    });
    device.stop().unwrap();
}

/// Waits up to 60 s until the virtual board's time reaches `ms`.
async fn wait_board(device: &sim::SimHandle, ms: u64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while device.board_ms() < ms {
        assert!(
            Instant::now() < deadline,
            "the board never reached {ms} ms (at {} ms)",
            device.board_ms()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits up to 60 s for the daemon's snapshot to satisfy `ok`.
async fn wait_snapshot(
    daemon: &smartgoban::daemon::Daemon,
    what: &str,
    ok: impl Fn(&smartgoban::daemon::Snapshot) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ok(&daemon.shared().snapshot()) {
        assert!(
            Instant::now() < deadline,
            "{what}: {:?}",
            daemon.shared().snapshot().state
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A stone with no liberties put down while the service is stopped, on a board that keeps no
/// history (protocol version 2): restarted, the service does not repair it into anyone's move
/// or violation — one `unexplained_board` for the referee (R17.6, no warning), the stone
/// shown to lift — and once it is lifted play goes on.
#[test]
fn a_stone_with_no_liberties_found_after_a_restart_is_for_the_referee_not_a_players_fault() {
    use smartgoban::daemon::{Daemon, DaemonConfig, Recovery};
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("board");
    let data = dir.path().join("data");
    // Black C3 D4 C5 B4 around the eye C4, White G7 G6 F7 H3; with the service down, a white
    // stone in the eye at 5 s; lifted at 24 s; Black plays E5 at 26 s.
    let mut text = String::from("size 9\n");
    for (i, m) in ["C3", "G7", "D4", "G6", "C5", "F7", "B4", "H3"]
        .iter()
        .enumerate()
    {
        let colour = if i % 2 == 0 { "B" } else { "W" };
        text.push_str(&format!("at {} place {colour} {m}\n", 300 + 350 * i));
    }
    text.push_str("at 5000 place W C4\nat 24000 remove C4\nat 26000 place B E5\n");
    let source = Source::Script(smartgoban::sim::Script::parse(&text).unwrap());
    let setup = source.setup();
    let playing = smartgoban::sim::Playing {
        noise: NoiseModel::Clean,
        seed: 1,
        speed: Speed::Factor(2.0),
        press_clock: false,
        firmware: false,
        sensor_faults: Default::default(),
        uncalibrated: false,
    };
    let device = sim::start_version(&source, playing, link.clone(), 5, 2).unwrap();
    let config = || DaemonConfig {
        supervision: Default::default(),
        recovery: Recovery {
            resume: true,
            charge_downtime: false,
        },
        data_dir: Some(data.clone()),
        ..crate::support::daemon_config(&link, &setup)
    };
    crate::support::rt().block_on(async {
        let daemon = Daemon::start(config()).await.unwrap();
        wait_snapshot(&daemon, "eight moves", |s| s.state.move_number == 8).await;
        daemon.shutdown().await.unwrap();
        // down until well after the white stone went in (board time runs at twice wall time)
        wait_board(&device, 6_000).await;
        let daemon = Daemon::start(config()).await.unwrap();
        wait_snapshot(&daemon, "the referee told", |s| {
            s.state
                .violations
                .iter()
                .any(|v| v.code == "unexplained_board")
        })
        .await;
        let snap = daemon.shared().snapshot();
        let v = &snap.state.violations[0];
        assert_eq!(
            snap.state.violations.len(),
            1,
            "{:?}",
            snap.state.violations
        );
        assert_eq!(
            (v.points.clone(), v.penalty),
            (vec!["C4".to_string()], "referee")
        );
        assert_eq!(
            (snap.state.warnings.black, snap.state.warnings.white),
            (0, 0)
        );
        assert_eq!(snap.state.move_number, 8, "nothing recorded");
        assert_eq!(snap.state.phase, smartgoban::event::Phase::Desync);
        let guidance = serde_json::to_value(&snap.state.guidance).unwrap();
        assert_eq!(guidance["remove"], serde_json::json!(["C4"]), "{guidance}");
        // C4 lifted: the board is the record's again, and E5 is move 9
        wait_snapshot(&daemon, "E5", |s| s.state.move_number == 9).await;
        let snap = daemon.shutdown().await.unwrap();
        assert!(
            snap.state.violations.is_empty(),
            "{:?}",
            snap.state.violations
        );
        let record = GameRecord::from_sgf_str(&snap.sgf).unwrap();
        let last = record.moves.last().unwrap();
        assert_eq!(
            (last.color, last.point.map(|p| p.to_gtp(9))),
            (Color::Black, Some("E5".into()))
        );
        assert_eq!(record.moves.len(), 9);
    });
    device.stop().unwrap();
}
