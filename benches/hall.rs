//! Many boards into one Mosquitto (issue 18): end-to-end latency from a board's committed move
//! to the hall's event, and the CPU and memory of the broker, the boards and the hall.
//!
//! - The broker: Mosquitto (Debian's), started here on a free loopback port.
//! - The hall: `smartgoban hall` (the release binary beside this bench), its own process.
//! - The boards: `HALL_BOARDS` (default 100) virtual boards with their services, all in this
//!   process (one Pi each in a hall; one process here, as few as the design allows): each
//!   plays a real game of `tests/fixtures/games` (seeded, realistic noise) at `HALL_SPEED` ×
//!   real time (default 2), through a pseudo-terminal into a real `Service` that publishes to
//!   the broker. No HTTP listeners and no data directories: the hall's commands go to the
//!   boards' API in process, the outbox is the event log in memory.
//! - Latency: each event carries the instant its board handed it to its feeds (the
//!   `published_ms` user property, the board's wall clock); the hall subtracts it from the
//!   instant it takes the event in (one machine, one clock) and serves p50/p99 in
//!   `GET /api/v1/hall`. Measured over `HALL_SECONDS` (default 60) after a 10 s warm-up: the
//!   hall is started afresh for the window, so only the window's events count.
//! - Checked: every event the boards emitted in the window reached the hall once; the hall's
//!   HTTP answers 200 with JSON.
//!
//! `cargo bench --bench hall` (`HALL_BOARDS=300 cargo bench --bench hall`).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use smartgoban::cli::service::Service;
use smartgoban::daemon::{ApiAccess, DaemonConfig};
use smartgoban::mqtt::MqttSettings;
use smartgoban::rules::GameRecord;
use smartgoban::sim::{NoiseModel, Playing, Source, Speed};

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// CPU seconds (user + system) and resident memory (MiB, now and peak) of process `pid`.
fn usage(pid: u32) -> (f64, f64, f64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(vec![], |(_, r)| r.split_whitespace().collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of stat, 11 and 12 after the command name
    let cpu = (ticks(11) + ticks(12)) / 100.0;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let kb = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    (cpu, kb("VmRSS:"), kb("VmHWM:"))
}

fn games() -> Vec<GameRecord> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs = vec![root.join("tests/fixtures/games")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "sgf") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
        .iter()
        .filter_map(|p| GameRecord::from_sgf_bytes(&std::fs::read(p).ok()?).ok())
        .filter(|g| g.moves.len() > 100)
        .collect()
}

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_hall(bin: &std::path::Path, broker: u16, http: u16) -> Proc {
    let p = Command::new(bin)
        .args(["hall", "--hall", "bench", "--mqtt"])
        .arg(format!("mqtt://127.0.0.1:{broker}"))
        .arg("--http")
        .arg(format!("127.0.0.1:{http}"))
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("smartgoban hall (cargo build --release first)");
    Proc(p)
}

async fn hall_view(http: u16) -> Option<serde_json::Value> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", http))
        .await
        .ok()?;
    s.write_all(b"GET /api/v1/hall HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n")
        .await
        .ok()?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.ok()?;
    let text = String::from_utf8_lossy(&buf);
    let (head, body) = text.split_once("\r\n\r\n")?;
    assert!(head.starts_with("HTTP/1.1 200"), "the hall answered {head}");
    serde_json::from_str(body).ok()
}

fn main() {
    let boards: usize = env("HALL_BOARDS", 100);
    let seconds: u64 = env("HALL_SECONDS", 60);
    let speed: f64 = env("HALL_SPEED", 2.0);
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let bin = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/release/smartgoban");
    let broker_port = free_port();
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("mosquitto.conf");
    std::fs::write(
        &conf,
        format!("listener {broker_port} 127.0.0.1\nallow_anonymous true\nmax_connections -1\n"),
    )
    .unwrap();
    let mosquitto = ["mosquitto", "/usr/sbin/mosquitto"]
        .iter()
        .find(|m| Command::new(m).arg("-h").output().is_ok())
        .expect("mosquitto (apt install mosquitto)");
    let broker = Proc(
        Command::new(mosquitto)
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", broker_port)).is_err() {
        assert!(Instant::now() < deadline, "mosquitto did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let broker_pid = broker.0.id();
    rt.block_on(async move {
        let games = games();
        let url: smartgoban::mqtt::BrokerUrl =
            format!("mqtt://127.0.0.1:{broker_port}").parse().unwrap();
        let mut services = Vec::new();
        let mut devices = Vec::new();
        for i in 0..boards {
            let source = Source::Record(games[i % games.len()].clone());
            let link = dir.path().join(format!("board{i}"));
            let playing = Playing {
                noise: NoiseModel::Realistic,
                seed: i as u64 + 1,
                speed: Speed::Factor(speed),
                press_clock: false,
                firmware: false,
                sensor_faults: Default::default(),
                uncalibrated: false,
            };
            let device = smartgoban::sim::start(&source, playing, link.clone(), i as u32 + 1).unwrap();
            let mut service = Service::start(
                DaemonConfig {
                    supervision: Default::default(),
                    recovery: Default::default(),
                    serial: link,
                    session: Default::default(),
                    link: Default::default(),
                    setup: source.setup(),
                    events_out: None,
                    data_dir: None,
                    clock_hardware: Default::default(),
                    leds: None,
                    access: ApiAccess {
                        token: Some("bench".into()),
                        public_reads: true,
                    },
                },
                None,
                Default::default(),
            )
            .await
            .unwrap();
            let board = (i + 1).to_string();
            service
                .publish_mqtt(MqttSettings::new(url.clone(), "bench", &board), None, 1, Default::default())
                .unwrap();
            services.push(service);
            devices.push(device);
        }
        // warm-up: every board connected and playing
        tokio::time::sleep(Duration::from_secs(10)).await;
        let http = free_port();
        let hall = start_hall(&bin, broker_port, http);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(v) = hall_view(http).await {
                if v["boards"].as_array().is_some_and(|b| b.len() == boards) {
                    break;
                }
            }
            assert!(Instant::now() < deadline, "the hall did not see every board");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let counts = |services: &[Service]| -> Vec<u64> {
            services.iter().map(|s| s.shared().log.last_seq()).collect()
        };
        let me = std::process::id();
        let pids = [("broker", broker_pid), ("boards", me), ("hall", hall.0.id())];
        let before: Vec<_> = pids.iter().map(|(_, p)| usage(*p)).collect();
        let seq_before = counts(&services);
        let started = Instant::now();
        tokio::time::sleep(Duration::from_secs(seconds)).await;
        let after: Vec<_> = pids.iter().map(|(_, p)| usage(*p)).collect();
        let wall = started.elapsed().as_secs_f64();
        let seq_after = counts(&services);
        // events emitted in the window, per board
        let emitted: usize = services
            .iter()
            .zip(&seq_before)
            .map(|(s, &b)| s.shared().log.since(b).len())
            .sum();
        tokio::time::sleep(Duration::from_secs(2)).await;
        let view = hall_view(http).await.expect("the hall's view");
        let moves: u64 = view["boards"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["state"]["move_number"].as_u64().unwrap_or(0))
            .sum();
        println!(
            "{boards} boards at {speed}x real time, {seconds} s window: {emitted} events emitted ({:.0}/s), the hall took {} (+{} duplicates dropped) since it started, {} moves on the boards",
            emitted as f64 / wall,
            view["events"],
            view["duplicates"],
            moves
        );
        println!(
            "latency board feed -> hall event: p50 {} ms, p99 {} ms, max {} ms over {} events",
            view["latency"]["p50_ms"], view["latency"]["p99_ms"], view["latency"]["max_ms"], view["latency"]["count"]
        );
        for ((name, _), (b, a)) in pids.iter().zip(before.iter().zip(&after)) {
            println!(
                "{name:>6}: CPU {:.1} % of one core, RSS {:.0} MiB (peak {:.0} MiB)",
                100.0 * (a.0 - b.0) / wall,
                a.1,
                a.2
            );
        }
        assert!(seq_after.iter().zip(&seq_before).all(|(a, b)| a >= b));
        drop(hall);
        for s in services {
            let _ = s.shutdown().await;
        }
        for d in devices {
            let _ = d.stop();
        }
    });
    drop(broker);
}
