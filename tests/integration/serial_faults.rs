//! Serial faults (issue 7, part 3): the real `smartgoban run` binary on the virtual board's pty
//! while a game is played, with line noise, a cut frame, a frame with a bad CRC, 5 s of
//! silence and a re-plug on another `/dev/pts` node behind the same symlink; and boards that
//! restart in the middle of a game (PROTOCOL.md §4). Nothing but the real moves may come out,
//! the link events must be exact, and every fault must show in `/metrics`.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::Value;
use smartgoban::sim::{self, DeviceConfig, NoiseModel, Script, Speed};

use crate::support::{of_kind, rt, Rig};

/// The game, in real time (board ms = real ms at speed 1). Black and White alternate; the
/// faults fall between the moves.
const GAME: &str = "size 9\n\
    at 0     place B E5\n\
    at 500   place W C3\n\
    at 1000  garbage 500\n\
    at 1600  place B G7\n\
    at 2200  cut\n\
    at 2500  place W C7\n\
    at 2800  badcrc\n\
    at 3400  silence 5000\n\
    at 4700  place B G3\n\
    at 9000  replug 3000\n\
    at 9500  place W D7\n\
    at 10500 place B F3\n\
    at 12600 place W B7\n";

/// The service as a child process, killed when dropped.
struct Service {
    child: Child,
    base: String,
    stderr: PathBuf,
}

impl Service {
    fn start(link: &Path, dir: &Path, script: &Path) -> Service {
        let config = dir.join("smartgoban.toml");
        std::fs::write(&config, "[leds]\ndriver = \"mcu\"\n").unwrap();
        let stderr = dir.join("service.log");
        let mut child = Command::new(env!("CARGO_BIN_EXE_smartgoban"))
            .args(["run", "--config"])
            .arg(&config)
            .arg("--serial")
            .arg(link)
            .args(["--http", "127.0.0.1:0", "--data-dir"])
            .arg(dir.join("data"))
            .arg("--script")
            .arg(script)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .env("RUST_LOG", "smartgoban=debug")
            .spawn()
            .expect("start smartgoban run");
        // "smartgoban: board on …, API on http://ADDR/api/v1/state, …"
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no API address in {line:?}"));
        Service {
            base: format!("http://{addr}"),
            child,
            stderr,
        }
    }

    /// CPU time the process has used (user + system), ms.
    fn cpu_ms(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        // Fields after the command name: state is field 3, utime 14, stime 15 (proc(5)).
        let rest: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        let ticks: u64 = rest[11].parse::<u64>().unwrap() + rest[12].parse::<u64>().unwrap();
        ticks * 1000 / clock_ticks_per_second()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `USER_HZ`, the unit of the times in `/proc/PID/stat` (100 on every usual Linux).
fn clock_ticks_per_second() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .filter(|&t| t > 0)
        .unwrap_or(100)
}

/// Every SSE event received so far, with when it arrived.
type Feed = Arc<Mutex<Vec<(Instant, Value)>>>;

/// Follows `GET /api/v1/events` from the start into `feed`.
fn follow(base: &str) -> Feed {
    let feed: Feed = Arc::default();
    let url = format!("{base}/api/v1/events?since=0");
    let out = feed.clone();
    tokio::spawn(async move {
        let resp = reqwest::get(&url).await.unwrap();
        let mut stream = resp.bytes_stream();
        let mut buf = String::new();
        while let Some(Ok(chunk)) = stream.next().await {
            buf.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = buf.find("\n\n") {
                let block: String = buf.drain(..end + 2).collect();
                let data: String = block
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if let Ok(v) = serde_json::from_str(&data) {
                    out.lock().unwrap().push((Instant::now(), v));
                }
            }
        }
    });
    feed
}

fn link_events(feed: &Feed) -> Vec<(Instant, String)> {
    feed.lock()
        .unwrap()
        .iter()
        .filter(|(_, e)| e["kind"] == "link")
        .map(|(t, e)| (*t, e["state"].as_str().unwrap_or("").to_string()))
        .collect()
}

/// Waits (up to `secs`) until `ready`; panics with `what` otherwise.
async fn wait_for(secs: u64, what: &str, mut ready: impl FnMut() -> bool) -> Instant {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if ready() {
            return Instant::now();
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The samples of `/metrics`, by name with labels.
async fn metrics(base: &str) -> BTreeMap<String, f64> {
    let text = reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.rsplit_once(' '))
        .filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?)))
        .collect()
}

fn serial(m: &BTreeMap<String, f64>, kind: &str) -> f64 {
    m[&format!("smartgoban_serial_errors_total{{kind=\"{kind}\"}}")]
}

/// Bad frames of any kind (line noise decodes to any of them).
fn bad_frames(m: &BTreeMap<String, f64>) -> f64 {
    ["cobs", "crc", "too_long", "malformed"]
        .iter()
        .map(|k| serial(m, k))
        .sum()
}

async fn get_json(url: String) -> (u16, Value) {
    let resp = reqwest::get(url).await.unwrap();
    (
        resp.status().as_u16(),
        resp.json().await.unwrap_or(Value::Null),
    )
}

/// The counter of the last scan the service has taken in since its handshake (`GET state`).
async fn service_scan(base: &str) -> Option<u64> {
    get_json(format!("{base}/api/v1/state")).await.1["link"]["last_scan_counter"].as_u64()
}

/// `/metrics` once the service has taken in the scan of board time `from_ms` (in the board's
/// first session: one scan every 20 ms) and, if `before_ms` is given, before it has come to
/// the frames there (the next fault): the service's position is read before and after the
/// metrics, so the figures are known to lie between the two.
async fn metrics_between(
    base: &str,
    from_ms: u64,
    before_ms: Option<u64>,
) -> BTreeMap<String, f64> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while service_scan(base).await.is_none_or(|c| c < from_ms / 20) {
        assert!(
            Instant::now() < deadline,
            "the service never took in the scan of {from_ms} ms"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let m = metrics(base).await;
    if let Some(before) = before_ms {
        let after = service_scan(base).await.unwrap_or(0);
        assert!(
            after + 1 < before / 20,
            "the metrics of {from_ms} ms came too late: the service had taken in scan {after}, \
             next to the fault at {before} ms"
        );
    }
    m
}

/// When the `n`th link event in `state` reached the feed.
fn link_event_at(feed: &Feed, state: &str, n: usize) -> Option<Instant> {
    link_events(feed)
        .into_iter()
        .filter(|(_, s)| s == state)
        .nth(n - 1)
        .map(|(t, _)| t)
}

#[test]
fn line_noise_silence_and_a_replug_on_another_node_during_a_game() {
    let started = Instant::now();
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("board"); // the by-id / udev symlink
        let script_path = dir.path().join("game.txt");
        std::fs::write(&script_path, GAME).unwrap();
        let script = Script::parse(GAME).unwrap();
        let noise = NoiseModel::Clean.params();
        let device = sim::spawn(
            script.actions.clone(),
            DeviceConfig {
                board_size: 9,
                speed: Speed::Factor(1.0),
                seed: 7,
                noise,
                tail_ms: sim::TAIL_MS,
                link: Some(link.clone()),
                device_id: 1,
                protocol_version: smartgoban_protocol::PROTOCOL_VERSION,
            },
        )
        .unwrap();
        let first_node = std::fs::read_link(&link).unwrap();
        let service = Service::start(&link, dir.path(), &script_path);
        let base = service.base.clone();
        let feed = follow(&base);
        // Board time runs from the first handshake; one scan every 20 ms.
        let at = |ms: u32| {
            let device = &device;
            move || device.scan_counter() >= ms / 20
        };

        // The metrics are read between the faults as the service takes the scans in (not as
        // the board sends them: the service may lag behind the board).
        // Clean start: nothing wrong on the wire.
        let m0 = metrics_between(&base, 400, Some(1000)).await;
        assert_eq!(bad_frames(&m0), 0.0, "{m0:?}");
        assert_eq!(serial(&m0, "lost_frames"), 0.0);
        // 500 ms of random bytes (1000–1500): bad frames, the scans they replaced lost; the
        // link holds (bad frames do not keep it alive, but 500 ms is under the 1 s timeout).
        let m1 = metrics_between(&base, 1600, Some(2200)).await;
        assert!(bad_frames(&m1) >= 1.0, "{m1:?}");
        assert!(serial(&m1, "lost_frames") >= 20.0, "{m1:?}");
        // A frame cut in half (2200): it merges with the next one into one bad frame; both
        // are lost.
        let m2 = metrics_between(&base, 2300, Some(2800)).await;
        assert_eq!(bad_frames(&m2) - bad_frames(&m1), 1.0, "{m2:?}");
        assert_eq!(serial(&m2, "lost_frames") - serial(&m1, "lost_frames"), 2.0);
        // A frame with a bad CRC (2800): one CRC error, one frame lost.
        let m3 = metrics_between(&base, 2900, None).await;
        assert_eq!(serial(&m3, "crc") - serial(&m2, "crc"), 1.0, "{m3:?}");
        assert_eq!(bad_frames(&m3) - bad_frames(&m2), 1.0, "{m3:?}");
        assert_eq!(serial(&m3, "lost_frames") - serial(&m2, "lost_frames"), 1.0);
        assert_eq!(m3["smartgoban_link_timeouts_total"], 0.0);
        assert_eq!(m3["smartgoban_link_up"], 1.0);

        // 5 s of silence from 3400: lost within about 1 s of the last scan (the board's last
        // scan seen as it is sent, the loss as it reaches the feed).
        assert!(
            !at(3380)(),
            "the test fell behind the board: it watches for the last scan before the silence \
             only after it was sent"
        );
        let last_scan = wait_for(60, "the last scan before the silence", at(3380)).await;
        wait_for(60, "the link lost in the silence", || {
            link_event_at(&feed, "lost", 1).is_some()
        })
        .await;
        let lost = link_event_at(&feed, "lost", 1).unwrap();
        let silence_to_lost = lost - last_scan;
        // The API answers meanwhile and says so; the LEDs breathe (the star points).
        let (status, state) = get_json(format!("{base}/api/v1/state")).await;
        assert_eq!(status, 200);
        assert_eq!(state["link"]["state"], "lost", "{state}");
        let (status, leds) = get_json(format!("{base}/api/v1/leds")).await;
        assert_eq!(status, 200);
        assert_eq!(
            leds["animated"], true,
            "the link-lost pattern breathes: {leds}"
        );
        wait_for(60, "the link back after the silence", || {
            link_event_at(&feed, "connected", 2).is_some()
        })
        .await;

        // The cable pulled at 9000 and plugged into another port 3 s later.
        wait_for(60, "the link lost at the re-plug", || {
            link_event_at(&feed, "lost", 2).is_some()
        })
        .await;
        let gone = link_event_at(&feed, "lost", 2).unwrap();
        // CPU while the device is gone: the service's own CPU time, from 200 ms after the loss
        // (the transition over) for 2 s or until the device is back (whichever comes first:
        // a late test must not measure the reconnection), at least 1 s of it.
        let settle = (gone + Duration::from_millis(200)).saturating_duration_since(Instant::now());
        tokio::time::sleep(settle).await;
        assert!(std::fs::symlink_metadata(&link).is_err(), "device gone");
        let (status, state) = get_json(format!("{base}/api/v1/state")).await;
        assert_eq!(status, 200);
        assert_eq!(state["link"]["state"], "lost");
        let (cpu0, wall0) = (service.cpu_ms(), Instant::now());
        let (mut cpu1, mut wall1) = (cpu0, wall0);
        while wall1 - wall0 < Duration::from_millis(2000) {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let sample = (service.cpu_ms(), Instant::now());
            if std::fs::symlink_metadata(&link).is_ok() {
                break; // back during this step: the window ends at the previous sample
            }
            (cpu1, wall1) = sample;
        }
        assert!(
            wall1 - wall0 >= Duration::from_millis(1000),
            "the device was back {:?} into the CPU window: {:?} {:?} {}",
            wall1 - wall0,
            link_events(&feed)
                .iter()
                .map(|(t, s)| (t.duration_since(started), s.clone()))
                .collect::<Vec<_>>(),
            gone.duration_since(started),
            service.log()
        );
        let cpu_percent = (cpu1 - cpu0) as f64 * 100.0 / (wall1 - wall0).as_millis() as f64;
        let back = wait_for(60, "the device back", || std::fs::read_link(&link).is_ok()).await;
        let second_node = std::fs::read_link(&link).unwrap();
        assert_ne!(
            first_node, second_node,
            "the board came back on another node"
        );
        wait_for(60, "the link back after the re-plug", || {
            link_event_at(&feed, "connected", 3).is_some()
        })
        .await;
        let connected = link_event_at(&feed, "connected", 3).unwrap();
        let replug_to_connected = connected.saturating_duration_since(back);

        // The game plays out; the service takes in the last move (B7, move 8).
        let report = device
            .wait_done(Duration::from_secs(60))
            .expect("board played out");
        wait_for(60, "the last move", || {
            let f = feed.lock().unwrap();
            f.iter().filter(|(_, e)| e["kind"] == "move").count() >= 8
        })
        .await;
        // Everything the board's scans caused is out once the service has taken in the last
        // scan of its last session; then the feed has every event of the run.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let sessions = metrics(&base).await["smartgoban_link_board_sessions_total"];
            let seen = service_scan(&base).await;
            if sessions >= f64::from(report.sessions)
                && seen.is_some_and(|c| c >= u64::from(report.last_scan_counter))
            {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the service never took in the board's last scan: {sessions} of {} \
                 sessions, scan {seen:?} of {}",
                report.sessions,
                report.last_scan_counter
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let emitted = metrics(&base).await["smartgoban_events_total"] as usize;
        wait_for(60, "every event of the run on the feed", || {
            feed.lock().unwrap().len() >= emitted
        })
        .await;
        let events: Vec<Value> = feed
            .lock()
            .unwrap()
            .iter()
            .map(|(_, e)| e.clone())
            .collect();
        let m = metrics(&base).await;

        // Exactly the real events, in order: every move (the one made in the silence and the
        // two made while unplugged, inferred from the first settled boards after reconnecting)
        // and nothing spurious.
        let seen: Vec<String> = events
            .iter()
            .map(|e| match e["kind"].as_str().unwrap() {
                "move" => format!("move {} {}", e["number"], e["point"].as_str().unwrap()),
                "link" => format!("link {}", e["state"].as_str().unwrap()),
                "phase" => format!("phase {}", e["phase"].as_str().unwrap()),
                other => other.to_string(),
            })
            .collect();
        let want = [
            "game",
            "phase setup",
            "link connected",
            // the first settled board already shows E5, whose move ends the setup
            "move 1 E5",
            "phase play",
            "move 2 C3",
            "move 3 G7",
            "move 4 C7",
            "link lost",
            "link connected",
            "move 5 G3",
            "link lost",
            "link connected",
            "move 6 D7",
            "move 7 F3",
            "move 8 B7",
        ];
        assert_eq!(seen, want, "{}", service.log());
        let links: Vec<_> = of_kind(&events, "link")
            .iter()
            .map(|e| e["state"].as_str().unwrap())
            .collect();
        assert_eq!(
            links,
            ["connected", "lost", "connected", "lost", "connected"]
        );
        let (_, moves) = get_json(format!("{base}/api/v1/moves")).await;
        let sgf = reqwest::get(format!("{base}/api/v1/game.sgf"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            sgf.contains(";B[ee];W[cg];B[gc];W[cc];B[gg];W[dc];B[fg];W[bc]"),
            "{sgf}\n{moves}"
        );

        // The counters: one timeout (the silence), no board reset, no version mismatch, and
        // the board's LEDs shown again after each reconnection.
        assert_eq!(m["smartgoban_link_timeouts_total"], 1.0, "{m:?}");
        assert_eq!(m["smartgoban_board_resets_total"], 0.0);
        assert_eq!(serial(&m, "version_mismatch"), 0.0);
        assert!(m["smartgoban_link_handshakes_total"] >= 3.0);
        assert_eq!(
            serial(&m, "crc"),
            serial(&m3, "crc"),
            "nothing after the bad CRC"
        );
        assert_eq!(bad_frames(&m), bad_frames(&m3));
        assert_eq!(m["smartgoban_link_up"], 1.0);
        wait_for(60, "the LEDs shown again", || device.leds().is_some()).await;
        assert!(report.sessions >= 3);

        eprintln!(
            "serial faults: link lost {} ms after the last scan; connected {} ms after the \
             device came back on {} (was {}); link down {} ms at the re-plug; CPU while the \
             device was gone {cpu_percent:.2}% ({} ms in {} ms); bad frames: garbage {}, cut {}, \
             bad CRC {}; lost frames {}; timeouts {}; handshakes {}",
            silence_to_lost.as_millis(),
            replug_to_connected.as_millis(),
            second_node.display(),
            first_node.display(),
            (connected - gone).as_millis(),
            cpu1 - cpu0,
            (wall1 - wall0).as_millis(),
            bad_frames(&m1),
            bad_frames(&m2) - bad_frames(&m1),
            bad_frames(&m3) - bad_frames(&m2),
            serial(&m, "lost_frames"),
            m["smartgoban_link_timeouts_total"],
            m["smartgoban_link_handshakes_total"],
        );
        assert!(
            silence_to_lost >= Duration::from_millis(900)
                && silence_to_lost <= Duration::from_millis(1300),
            "link lost {silence_to_lost:?} after the last scan"
        );
        assert!(
            replug_to_connected <= Duration::from_millis(1200),
            "connected {replug_to_connected:?} after the device came back: {}",
            service.log()
        );
        assert!(
            cpu_percent < 5.0,
            "{cpu_percent:.2}% CPU while the device is gone"
        );
        drop(service);
        device.stop().unwrap();
    });
    let wall = started.elapsed();
    eprintln!("serial faults test: {wall:?}");
    assert!(wall < Duration::from_secs(30), "{wall:?}");
}

#[test]
fn a_board_that_restarts_mid_game_makes_no_move_and_is_counted() {
    // White's pass makes the board's pass counter 1: a restart that went unnoticed would read
    // its return to 0 as 255 presses. Three restarts: one that streams at once, one that
    // announces itself with an unasked HelloAck, and one as the protocol says (silent until
    // the host's Hello, answering Pings: it must not keep the link alive).
    let script = "size 9\n\
        at 0 place B E5\n at 500 pass W\n at 1000 place B C3\n at 1500 place W G7\n\
        at 2000 reset stream\n at 2500 place B C7\n\
        at 3000 reset hello\n at 3500 place W G3\n\
        at 4000 reset\n at 4500 place B D7\n at 5000 pass W\n at 5500 place B F3\n";
    let started = Instant::now();
    let (events, m) = rt().block_on(async {
        let rig = Rig::script(script, NoiseModel::Clean, 1, Speed::Max).await;
        rig.wait_done().await;
        let m = rig.daemon.shared().snapshot().link;
        let events = rig.events();
        rig.stop().await;
        (events, m)
    });
    let seen: Vec<String> = events
        .iter()
        .filter(|e| !matches!(e["kind"].as_str(), Some("game" | "phase")))
        .map(|e| match e["kind"].as_str().unwrap() {
            "move" => format!("move {}", e["point"].as_str().unwrap()),
            "link" => format!("link {}", e["state"].as_str().unwrap()),
            "pass" => format!("pass {}", e["color"].as_str().unwrap()),
            other => other.to_string(),
        })
        .collect();
    assert_eq!(
        seen,
        [
            "link connected",
            "move E5",
            "pass white",
            "move C3",
            "move G7",
            "move C7",
            "move G3",
            "link lost",
            "link connected",
            "move D7",
            "pass white",
            "move F3"
        ],
        "{events:?}"
    );
    // The silent restart is a board reset if its Pongs showed it alive without scans, a
    // timeout if the host was sending LED frames (no Pings, so no answer at all).
    assert!(m.board_resets >= 2, "{m:?}");
    assert_eq!(m.board_resets + m.timeouts, 3, "{m:?}");
    assert_eq!(m.version_mismatches, 0);
    eprintln!("board restarts test: {:?}", started.elapsed());
}

#[test]
fn a_board_of_another_protocol_version_is_reported_and_never_makes_a_move() {
    // A board whose only version is 0 refuses our Hello (PROTOCOL.md §4, §11): a version
    // mismatch, reported and counted, not retried until the port is reopened; no scan is
    // taken, so nothing happens on the board that could become a move.
    use smartgoban::daemon::Daemon;
    let script = Script::parse("size 9\nat 0 place B E5\nat 500 place W C3\n").unwrap();
    rt().block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("board");
        let device = sim::spawn(
            script.actions.clone(),
            DeviceConfig {
                board_size: 9,
                speed: Speed::Max,
                seed: 1,
                noise: NoiseModel::Clean.params(),
                tail_ms: sim::TAIL_MS,
                link: Some(link.clone()),
                device_id: 9,
                protocol_version: 0,
            },
        )
        .unwrap();
        let daemon = Daemon::start(crate::support::daemon_config(&link, &script.setup))
            .await
            .unwrap();
        wait_for(60, "the refusal", || {
            daemon.shared().snapshot().link.version_mismatches == 1
        })
        .await;
        // A second later: no retry, no scan, no event but the game's opening ones. Nothing
        // positive is left to wait for (all that is checked is that nothing more happens), so
        // the service is given a second to do what it must not.
        tokio::time::sleep(Duration::from_millis(1200)).await;
        let snap = daemon.shared().snapshot();
        assert_eq!(snap.link.version_mismatches, 1, "{:?}", snap.link);
        assert_eq!(snap.link.handshakes, 0);
        assert_eq!(snap.session.scans, 0);
        let error = snap.state.link.error.clone().unwrap_or_default();
        assert!(error.contains("refused protocol version"), "{error}");
        let kinds: Vec<String> = daemon
            .shared()
            .log
            .since(0)
            .iter()
            .map(|e| {
                serde_json::to_value(&**e).unwrap()["kind"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(kinds, ["game", "phase"], "{kinds:?}");
        assert_eq!(device.scan_counter(), 0);
        daemon.shutdown().await.unwrap();
        device.stop().unwrap();
    });
}
