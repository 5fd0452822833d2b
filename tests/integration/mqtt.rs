//! Many boards in one hall (issue 18), against a real Mosquitto broker that each test starts
//! on a free loopback port: boards publish through `smartgoban::mqtt`, the hall service's own
//! code (`smartgoban::hall`) reads them.
//!
//! Mosquitto is Debian's (`.ci/run` installs it). Without it the tests say so and pass, unless
//! `SMARTGOBAN_REQUIRE_MOSQUITTO=1` (CI).

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use smartgoban::hall::subscriber::{HallLink, HallMqtt};
use smartgoban::hall::{Hall, HallConfig};
use smartgoban::mqtt::{BrokerUrl, MqttSettings};
use smartgoban::sim::{NoiseModel, Source, Speed};

use crate::support::{free_port, rt, Rig, RigOptions};

/// A Mosquitto broker on a loopback port, with persistence (retained messages survive a
/// restart, as on a hall's broker). Killed when dropped.
struct Broker {
    port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

fn mosquitto() -> Option<PathBuf> {
    [
        "mosquitto",
        "/usr/sbin/mosquitto",
        "/usr/local/sbin/mosquitto",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| {
        Command::new(p)
            .arg("-h")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    })
}

impl Broker {
    /// Starts a broker, or `None` (with a note) when Mosquitto is not installed and not
    /// required.
    fn start() -> Option<Broker> {
        if mosquitto().is_none() {
            assert!(
                std::env::var("SMARTGOBAN_REQUIRE_MOSQUITTO").as_deref() != Ok("1"),
                "mosquitto is required (apt install mosquitto)"
            );
            eprintln!("mosquitto not installed: the MQTT test is skipped");
            return None;
        }
        let mut b = Broker {
            port: free_port(),
            dir: tempfile::tempdir().unwrap(),
            child: None,
        };
        b.up();
        Some(b)
    }

    fn url(&self) -> BrokerUrl {
        format!("mqtt://127.0.0.1:{}", self.port).parse().unwrap()
    }

    /// Starts the broker process and waits until it takes connections.
    fn up(&mut self) {
        let conf = self.dir.path().join("mosquitto.conf");
        std::fs::write(
            &conf,
            format!(
                "listener {} 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location {}/\nlog_dest stderr\nlog_type error\n",
                self.port,
                self.dir.path().display()
            ),
        )
        .unwrap();
        let child = Command::new(mosquitto().unwrap())
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "mosquitto did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Stops the broker (SIGTERM: it saves its retained messages, as a restarted broker
    /// would) and waits until it is gone.
    fn down(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = Command::new("kill").arg(c.id().to_string()).status();
            let _ = c.wait();
        }
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The hall service's core and its link to `broker`.
struct TestHall {
    hall: Arc<Mutex<Hall>>,
    link: HallLink,
}

impl TestHall {
    fn start(broker: &Broker, hall_id: &str) -> TestHall {
        let hall = Arc::new(Mutex::new(Hall::new(HallConfig {
            hall: hall_id.into(),
            orphan_after_ms: 30_000,
            delay_ms: 0,
        })));
        let link = HallLink::start(
            HallMqtt {
                url: broker.url(),
                credentials: None,
                ca_file: None,
                hall: hall_id.into(),
            },
            hall.clone(),
            Arc::new(tokio::sync::Notify::new()),
        )
        .unwrap();
        TestHall { hall, link }
    }

    /// The seqs of `board`'s events in the hall's feed, in feed order.
    fn seqs(&self, board: &str) -> Vec<u64> {
        let hall = self.hall.lock().unwrap();
        let (items, _) = hall.feed_since(0, u64::MAX / 2, true, usize::MAX);
        items
            .iter()
            .filter_map(|f| {
                let v: serde_json::Value = serde_json::from_str(&f.json).unwrap();
                (v["board"] == board).then(|| v["event"]["seq"].as_u64().unwrap())
            })
            .collect()
    }

    fn board(&self, board: &str) -> Option<smartgoban::hall::BoardView> {
        let now = smartgoban::store::unix_now_ms() as u64;
        self.hall
            .lock()
            .unwrap()
            .boards(now, true)
            .into_iter()
            .find(|b| b.board == board)
    }
}

/// Waits (polling every 20 ms, at most `limit`) until `done` holds; panics with `what`.
async fn until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn settings(broker: &Broker, hall: &str, board: &str) -> MqttSettings {
    let mut s = MqttSettings::new(broker.url(), hall, board);
    s.keepalive = Duration::from_secs(5);
    s
}

fn board_seqs(rig: &Rig) -> Vec<u64> {
    rig.daemon
        .shared()
        .log
        .since(0)
        .iter()
        .map(|e| e.seq)
        .collect()
}

/// A game played while the broker goes down for 30 s and comes back: the hall gets every
/// event of the board exactly once (after dropping what was sent twice), in the board's order,
/// and the board never waited for the broker.
#[test]
fn events_reach_the_hall_in_order_exactly_once_through_30_s_without_a_broker() {
    let Some(mut broker) = Broker::start() else {
        return;
    };
    rt().block_on(async {
        let data = tempfile::tempdir().unwrap();
        let source = Source::Record(
            smartgoban::rules::GameRecord::from_sgf_bytes(
                &std::fs::read(crate::support::root().join("assets/games/danghu03.sgf")).unwrap(),
            )
            .unwrap(),
        );
        // the built-in game at 5× real time: about 70 s, so the outage falls mid-game
        let mut rig = Rig::start_with(
            source,
            NoiseModel::Realistic,
            3,
            Speed::Factor(5.0),
            RigOptions {
                data_dir: Some(data.path().to_path_buf()),
                ..Default::default()
            },
        )
        .await;
        let hall = TestHall::start(&broker, "open");
        let first_seq = rig.daemon.shared().log.oldest_seq().unwrap_or(1);
        rig.daemon
            .publish_mqtt(
                settings(&broker, "open", "5"),
                Some(data.path().to_path_buf()),
                first_seq,
                Default::default(),
            )
            .unwrap();
        until(Duration::from_secs(60), "10 events at the hall", || {
            hall.seqs("5").len() >= 10
        })
        .await;
        broker.down();
        let down_at = Instant::now();
        let before = board_seqs(&rig).len();
        // 30 s without a broker, and the game goes on meanwhile
        until(
            Duration::from_secs(120),
            "30 s and 20 more moves' events",
            || {
                down_at.elapsed() >= Duration::from_secs(30)
                    && board_seqs(&rig).len() >= before + 20
            },
        )
        .await;
        let during = hall.seqs("5").len();
        broker.up();
        rig.wait_done().await;
        let want = board_seqs(&rig);
        until(Duration::from_secs(60), "every event at the hall", || {
            hall.seqs("5").len() >= want.len()
        })
        .await;
        let got = hall.seqs("5");
        assert_eq!(
            got, want,
            "the hall's events are the board's, in order, once each"
        );
        assert!(
            during < want.len(),
            "events were held back during the outage"
        );
        let counters = rig.daemon.mqtt().unwrap().clone();
        assert_eq!(
            counters
                .acked_seq
                .load(std::sync::atomic::Ordering::Acquire),
            *want.last().unwrap()
        );
        // the board's retained state is the final one
        let b = hall.board("5").unwrap();
        assert!(b.online);
        assert_eq!(b.seq, *want.last().unwrap());
        assert_eq!(
            b.state.unwrap()["move_number"],
            rig.daemon.shared().snapshot().state.move_number
        );
        rig.stop().await;
    });
}

/// Events written while the broker was unreachable and the service then stopped are sent by
/// the next run from the store's outbox.
#[test]
fn events_of_a_stopped_run_are_sent_from_the_outbox_by_the_next() {
    let Some(mut broker) = Broker::start() else {
        return;
    };
    rt().block_on(async {
        let data = tempfile::tempdir().unwrap();
        broker.down();
        let script =
            "size 9\nat 0 place B E5\nat 400 place W C3\nat 800 place B G7\nat 1200 pass W\n";
        let mut rig = Rig::start_with(
            Source::Script(smartgoban::sim::Script::parse(script).unwrap()),
            NoiseModel::Clean,
            1,
            Speed::Max,
            RigOptions {
                data_dir: Some(data.path().to_path_buf()),
                ..Default::default()
            },
        )
        .await;
        let first_seq = rig.daemon.shared().log.oldest_seq().unwrap_or(1);
        rig.daemon
            .publish_mqtt(
                settings(&broker, "outbox", "3"),
                Some(data.path().to_path_buf()),
                first_seq,
                Default::default(),
            )
            .unwrap();
        rig.wait_done().await;
        let first_run = board_seqs(&rig);
        assert!(first_run.len() >= 4, "{first_run:?}");
        rig.stop().await;
        // the broker comes back; a new run of the service on the same store
        broker.up();
        let hall = TestHall::start(&broker, "outbox");
        let mut rig = Rig::start_with(
            Source::Script(smartgoban::sim::Script::parse("size 9\n").unwrap()),
            NoiseModel::Clean,
            1,
            Speed::Max,
            RigOptions {
                data_dir: Some(data.path().to_path_buf()),
                ..Default::default()
            },
        )
        .await;
        let second_first = rig.daemon.shared().log.oldest_seq().unwrap_or(u64::MAX);
        rig.daemon
            .publish_mqtt(
                settings(&broker, "outbox", "3"),
                Some(data.path().to_path_buf()),
                second_first,
                Default::default(),
            )
            .unwrap();
        until(Duration::from_secs(60), "the first run's events", || {
            hall.seqs("3").len() >= first_run.len()
        })
        .await;
        let got = hall.seqs("3");
        assert_eq!(&got[..first_run.len()], &first_run[..]);
        assert!(got.windows(2).all(|w| w[0] < w[1]), "{got:?}");
        rig.stop().await;
    });
}

/// A board killed without a goodbye (kill -9) shows `offline` at the hall within the
/// keepalive (the broker publishes its last will after 1.5 × keepalive), and is an orphan.
#[test]
fn a_board_killed_without_a_goodbye_is_offline_within_the_keepalive() {
    let Some(broker) = Broker::start() else {
        return;
    };
    rt().block_on(async {
        let hall = TestHall::start(&broker, "kill");
        let script = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(script.path(), "size 19\nat 600000 place B D4\n").unwrap();
        let mut board = Command::new(env!("CARGO_BIN_EXE_smartgoban"))
            .args(["demo", "--script"])
            .arg(script.path())
            .args(["--http", "127.0.0.1:0", "-q", "--mqtt"])
            .arg(broker.url().to_string())
            .args(["--hall", "kill", "--board-id", "4"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        until(Duration::from_secs(60), "board 4 online", || {
            hall.board("4").is_some_and(|b| b.online)
        })
        .await;
        board.kill().unwrap();
        let killed = Instant::now();
        board.wait().unwrap();
        // keepalive 10 s (the default): the will is due within 15 s of the last packet
        until(Duration::from_secs(40), "board 4 offline", || {
            hall.board("4").is_some_and(|b| !b.online && b.orphan)
        })
        .await;
        let took = killed.elapsed();
        assert!(took <= Duration::from_secs(16), "offline after {took:?}");
        let now = smartgoban::store::unix_now_ms() as u64;
        assert_eq!(hall.hall.lock().unwrap().orphans(now), ["4"]);
    });
}

/// A round started from the hall reaches every board it pairs (each starts the paired game),
/// pausing reaches every board, and the results table after the games is R27's.
#[test]
fn a_round_started_from_the_hall_reaches_every_board_and_the_results_table_follows() {
    let Some(broker) = Broker::start() else {
        return;
    };
    rt().block_on(async {
        let hall = TestHall::start(&broker, "r27");
        let mut rigs = Vec::new();
        for board in ["1", "2", "3"] {
            let mut rig = Rig::script("size 19\n", NoiseModel::Clean, 1, Speed::Max).await;
            rig.daemon
                .publish_mqtt(settings(&broker, "r27", board), None, 1, Default::default())
                .unwrap();
            rigs.push(rig);
        }
        until(Duration::from_secs(60), "three boards online", || {
            ["1", "2", "3"]
                .iter()
                .all(|b| hall.board(b).is_some_and(|b| b.online))
        })
        .await;
        let pairings = smartgoban::hall::pairings::parse(
            "round,table,black,white\n1,1,A,B\n1,2,C,D\n1,3,E,F\n2,1,D,A\n2,2,B,E\n2,3,F,C\n",
        )
        .unwrap();
        hall.hall.lock().unwrap().set_pairings(pairings);
        let state = Arc::new(smartgoban::hall::server::HallState {
            hall: hall.hall.clone(),
            changed: Arc::new(tokio::sync::Notify::new()),
            link: hall.link.clone(),
            token: "hall-token".into(),
        });
        let addr = smartgoban::hall::server::serve(state, "127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let client = reqwest::Client::new();
        let post = |path: &str, body: serde_json::Value| {
            client
                .post(format!("http://{addr}{path}"))
                .bearer_auth("hall-token")
                .json(&body)
                .send()
        };
        // without the token: refused, nothing sent
        let r = client
            .post(format!("http://{addr}/api/v1/rounds/1/start"))
            .json(&serde_json::json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401);
        // results by round: 1) A beats B (A warned once), C-D draw, F beats E; 2) A beats D,
        // B beats E, C beats F
        let results = [
            [("black", 1u8), ("draw", 0), ("white", 0)],
            [("white", 0), ("black", 0), ("white", 0)],
        ];
        for (round, decisions) in ["1", "2"].iter().zip(results) {
            let r = post(
                &format!("/api/v1/rounds/{round}/start"),
                serde_json::json!({"komi": 7.5, "time": "main=60m cn=5x60s"}),
            )
            .await
            .unwrap();
            assert_eq!(r.status(), 200);
            let report: serde_json::Value = r.json().await.unwrap();
            assert_eq!(report["done"], serde_json::json!(["1", "2", "3"]), "{report}");
            for (i, rig) in rigs.iter().enumerate() {
                let p = hall.hall.lock().unwrap().pairings()[i + 3 * (*round == "2") as usize].clone();
                let game = rig.daemon.shared().snapshot().state.game.clone();
                assert_eq!(
                    (game.black.as_deref(), game.white.as_deref(), game.round.as_deref()),
                    (Some(p.black.as_str()), Some(p.white.as_str()), Some(*round))
                );
                assert_eq!(game.komi, Some(7.5));
            }
            for (rig, (decision, warnings)) in rigs.iter().zip(decisions) {
                for _ in 0..warnings {
                    let (s, b) = rig
                        .act("/api/v1/warnings", serde_json::json!({"color": "black", "reason": "test"}))
                        .await;
                    assert_eq!(s, 200, "{b}");
                }
                let (s, b) = rig
                    .act("/api/v1/result", serde_json::json!({"decision": decision}))
                    .await;
                assert_eq!(s, 200, "{b}");
            }
            let want = 3 * (1 + (*round == "2") as usize);
            until(Duration::from_secs(30), "the finished games at the hall", || {
                let now = smartgoban::store::unix_now_ms() as u64;
                hall.hall.lock().unwrap().games(now, true).len() == want
            })
            .await;
        }
        // pause: every board answers
        let r = post("/api/v1/clock/pause", serde_json::json!({})).await.unwrap();
        let report: serde_json::Value = r.json().await.unwrap();
        assert_eq!(
            report["done"].as_array().map(Vec::len).unwrap_or(0)
                + report["refused"].as_array().map(Vec::len).unwrap_or(0),
            3,
            "{report}"
        );
        let table: Vec<serde_json::Value> = client
            .get(format!("http://{addr}/api/v1/results"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        // points: A 4, C 3, B 2, F 2, D 1, E 0. Opponents' scores: B = A 4 + E 0 = 4,
        // F = E 0 + C 3 = 3: B before F.
        let names: Vec<&str> = table.iter().map(|s| s["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["A", "C", "B", "F", "D", "E"], "{table:?}");
        let points: Vec<u64> = table.iter().map(|s| s["points"].as_u64().unwrap()).collect();
        assert_eq!(points, [4, 3, 2, 2, 1, 0]);
        let csv = client
            .get(format!("http://{addr}/api/v1/results.csv"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(csv.starts_with("place,name,games,wins,draws,losses,points,opponents_points,warnings\n1,A,2,2,0,0,4,"), "{csv}");
        for rig in rigs {
            rig.stop().await;
        }
    });
}
