//! 2,000 SSE clients following a demo game (issues 6 and 15: every client receives every
//! event; p99 delivery latency under 100 ms on a 2-core machine).
//!
//! The service runs in this process on 127.0.0.1 with the virtual board playing the built-in
//! game at 4× real time (about 9 moves a second with their capture, clock-less), with its
//! default limits. Each client is an HTTP/1.1 connection reading `GET /api/v1/events`, from
//! one of 8 loopback addresses (127.0.0.1–8, as followers come from many machines); the
//! latency of an event is the time from the service handing it to the feeds (its publish
//! instant, `EventLog::published_at`) to a client reading its `id:` line. Every wait has a
//! deadline. `SSE_CLIENTS` and `SSE_SECONDS` change the 2,000 clients and 30 s.
//!
//! `cargo bench --bench sse`

use std::sync::Arc;
use std::time::{Duration, Instant};

use smartgoban::cli::service::Service;
use smartgoban::cli::source::BUILTIN_GAME;
use smartgoban::daemon::{ApiAccess, DaemonConfig};
use smartgoban::rules::GameRecord;
use smartgoban::sim::{NoiseModel, Playing, Source, Speed};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // `cargo bench` passes --bench; nothing else to parse.
    let clients = env("SSE_CLIENTS", 2000);
    let seconds = env("SSE_SECONDS", 30) as u64;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let record = GameRecord::from_sgf_bytes(BUILTIN_GAME).unwrap();
        let source = Source::Record(record);
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("board");
        let playing = Playing {
            noise: NoiseModel::Realistic,
            seed: 1,
            speed: Speed::Factor(4.0),
            press_clock: false,
            firmware: false,
            sensor_faults: Default::default(),
            uncalibrated: false,
        };
        let device = smartgoban::sim::start(&source, playing, link.clone(), 1).unwrap();
        let daemon = Service::start(
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
                token: None,
                public_reads: true,
            },
        },
            Some("127.0.0.1:0".parse().unwrap()),
            Default::default(),
        )
        .await
        .unwrap();
        let addr = daemon.http_addr().unwrap();
        let start_seq = daemon.shared().log.last_seq();
        let deadline = Instant::now() + Duration::from_secs(seconds);
        let connected = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for k in 0..clients {
            let connected = connected.clone();
            tasks.push(tokio::spawn(async move {
                let mut got: Vec<(u64, Instant)> = Vec::new();
                let socket = tokio::net::TcpSocket::new_v4().unwrap();
                let from = std::net::Ipv4Addr::new(127, 0, 0, 1 + (k % 8) as u8);
                socket.bind((from, 0).into()).unwrap();
                let stream = tokio::time::timeout(Duration::from_secs(30), socket.connect(addr))
                    .await
                    .expect("connected within 30 s")
                    .unwrap();
                let (read, mut write) = stream.into_split();
                write
                    .write_all(
                        format!(
                            "GET /api/v1/events?since={start_seq} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n"
                        )
                        .as_bytes(),
                    )
                    .await
                    .unwrap();
                let mut lines = BufReader::new(read).lines();
                let mut counted = false;
                loop {
                    let left = deadline.saturating_duration_since(Instant::now());
                    match tokio::time::timeout(left, lines.next_line()).await {
                        Ok(Ok(Some(line))) => {
                            if !counted && line.is_empty() {
                                // end of the response headers: following
                                counted = true;
                                connected.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                            }
                            if let Some(id) = line.strip_prefix("id:") {
                                if let Ok(seq) = id.trim().parse() {
                                    got.push((seq, Instant::now()));
                                }
                            }
                        }
                        _ => break,
                    }
                }
                got
            }));
        }
        // Latencies count from the moment every client follows the feed (connecting 500
        // clients takes a moment; the events before that reach them as backlog).
        while connected.load(std::sync::atomic::Ordering::SeqCst) < clients {
            assert!(
                Instant::now() < deadline,
                "only {} of {clients} clients were following before the end",
                connected.load(std::sync::atomic::Ordering::SeqCst)
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let ready_seq = daemon.shared().log.last_seq();
        let mut all = Vec::new();
        for t in tasks {
            let left = deadline.saturating_duration_since(Instant::now()) + Duration::from_secs(30);
            all.push(
                tokio::time::timeout(left, t)
                    .await
                    .expect("every client stops at the deadline")
                    .unwrap(),
            );
        }
        let last_seq = all
            .iter()
            .map(|g| g.last().map_or(0, |e| e.0))
            .min()
            .unwrap_or(0);
        let expected: Vec<u64> = {
            let log = &daemon.shared().log;
            log.since(start_seq)
                .iter()
                .map(|e| e.seq)
                .filter(|&s| s <= last_seq)
                .collect()
        };
        let mut latencies = Vec::new();
        let mut complete = 0;
        for got in &all {
            let seqs: Vec<u64> = got.iter().map(|e| e.0).filter(|&s| s <= last_seq).collect();
            if seqs == expected {
                complete += 1;
            }
            for &(seq, at) in got.iter().filter(|e| e.0 > ready_seq) {
                let published = daemon.shared().log.published_at(seq);
                if let Some(p) = published {
                    latencies.push(at.saturating_duration_since(p).as_secs_f64() * 1000.0);
                }
            }
        }
        latencies.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let pct = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q).round() as usize];
        println!(
            "SSE: {clients} clients for {seconds} s of a demo game at 4x: {} events each ({} after all were connected), {complete}/{clients} clients got every one in order",
            expected.len(),
            expected.iter().filter(|&&s| s > ready_seq).count()
        );
        println!(
            "delivery latency over {} deliveries: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            latencies.len(),
            pct(0.5),
            pct(0.9),
            pct(0.99),
            latencies.last().copied().unwrap_or(0.0)
        );
        let _ = daemon.shutdown().await;
        drop(device);
        assert_eq!(complete, clients, "every client receives every event");
        assert!(pct(0.99) < 100.0, "p99 under 100 ms");
    });
}
