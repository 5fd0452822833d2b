//! Issue 7, "Nothing is ever lost": the service (`smartgoban run`, a separate process) is
//! killed with SIGKILL at 50 random moments of a real game played with realistic noise and a
//! running clock on the virtual board (which, like the wood, lives on while the service is
//! down: the players keep playing and pressing) and restarted each time. The final record is
//! the source game; the store's event log has every `seq` once, with no gap; every move was
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

use crate::support::{read_record, root, StoreView};

/// The source: Iyama Yuta vs Master, 2017 (135 moves, captures, no handicap).
const GAME: &str =
    "tests/fixtures/games/yenw-computer-go-dataset/master/39-2017.01.02-Iyama_Yuta-Master.sgf";

/// Kills, as the issue asks.
const KILLS: usize = 50;

/// Starts run number `n`; its log goes to `runs/N.log` beside the config.
fn start_service(config: &Path, n: usize) -> Child {
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
    let link = dir.path().join("board");
    let data = dir.path().join("data");
    let config = dir.path().join("smartgoban.toml");
    std::fs::write(
        &config,
        format!(
            "serial = {link:?}\nhttp = \"127.0.0.1:0\"\ndata_dir = {data:?}\n\
             [game]\nsize = 19\nkomi = {}\ntime = \"main=60m cn=3x60s\"\n",
            source_record.info.komi.unwrap_or(6.5)
        ),
    )
    .unwrap();
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
        // wait 0.3–1.5 s, noting when this run reconnected to the board
        let run_start = Instant::now();
        let connected_before = StoreView::open(&data).map_or(0, |s| s.count_link_connected());
        let wait = Duration::from_millis(rng.random_range(300..1500));
        let mut reconnected = None;
        while run_start.elapsed() < wait {
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
    // every seq once, none skipped: a run that died took no event with it
    let seqs: Vec<u64> = events.iter().map(|e| e.0).collect();
    assert!(
        seqs.windows(2).all(|w| w[1] == w[0] + 1),
        "seq strictly increasing without a gap"
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
fn terminate(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}
