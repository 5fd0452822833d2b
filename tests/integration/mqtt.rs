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

use smartgoban::hall::subscriber::{HallLink, HallMqtt, Target};
use smartgoban::hall::{Hall, HallConfig};
use smartgoban::mqtt::{BrokerUrl, HallCommand, MqttSettings};
use smartgoban::sim::{NoiseModel, Source, Speed};

use crate::support::{free_port, rt, Rig, RigOptions};

/// A Mosquitto broker on a loopback port, with persistence (retained messages survive a
/// restart, as on a hall's broker). Killed when dropped.
struct Broker {
    port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
    /// The password and ACL files: no anonymous clients, each user kept to the ACL.
    auth: Option<(PathBuf, PathBuf)>,
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
            auth: None,
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
        let access = match &self.auth {
            None => "allow_anonymous true\n".to_string(),
            Some((passwd, acl)) => format!(
                "allow_anonymous false\npassword_file {}\nacl_file {}\n",
                passwd.display(),
                acl.display()
            ),
        };
        std::fs::write(
            &conf,
            format!(
                "listener {} 127.0.0.1\n{access}persistence true\npersistence_location {}/\nlog_dest stderr\nlog_type error\n",
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
        TestHall::connect(broker.url(), None, hall_id, 0)
    }

    /// A hall `hall_id` with the public delay `delay_ms` on the broker at `url`, as the user
    /// `credentials`.
    fn connect(
        url: BrokerUrl,
        credentials: Option<(String, String)>,
        hall_id: &str,
        delay_ms: u64,
    ) -> TestHall {
        let hall = Arc::new(Mutex::new(Hall::new(HallConfig {
            hall: hall_id.into(),
            orphan_after_ms: 30_000,
            delay_ms,
        })));
        let link = HallLink::start(
            HallMqtt {
                url,
                credentials,
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

/// Starts `source` on a board whose service keeps its store (and the outbox) in `data` and
/// publishes it as board `board` of hall `hall`.
async fn published_board(
    source: Source,
    noise: NoiseModel,
    speed: Speed,
    data: &std::path::Path,
    broker: &Broker,
    hall: &str,
    board: &str,
) -> Rig {
    let mut rig = Rig::start_with(
        source,
        noise,
        3,
        speed,
        RigOptions {
            data_dir: Some(data.to_path_buf()),
            ..Default::default()
        },
    )
    .await;
    // this run's first event (the session's first seq: a run that has emitted none yet
    // starts after the store's last)
    let first_seq = rig.daemon.shared().log.oldest_seq().unwrap_or(1);
    rig.daemon
        .publish_mqtt(
            settings(broker, hall, board),
            Some(data.to_path_buf()),
            first_seq,
            Default::default(),
        )
        .unwrap();
    rig
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
        let hall = TestHall::start(&broker, "open");
        let rig = published_board(
            source,
            NoiseModel::Realistic,
            Speed::Factor(5.0),
            data.path(),
            &broker,
            "open",
            "5",
        )
        .await;
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
        let last = *want.last().unwrap();
        until(
            Duration::from_secs(30),
            "the broker's acknowledgement of the last event",
            || {
                counters
                    .acked_seq
                    .load(std::sync::atomic::Ordering::Acquire)
                    == last
            },
        )
        .await;
        // /metrics says so, by Prometheus' conventions
        let metrics = reqwest::get(rig.url("/metrics"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            metrics.contains("\nsmartgoban_mqtt_connected 1\n"),
            "{metrics}"
        );
        assert!(
            metrics.contains("\nsmartgoban_mqtt_outbox_events 0\n"),
            "{metrics}"
        );
        assert!(
            metrics.contains("\nsmartgoban_mqtt_connections_total 2\n"),
            "{metrics}"
        );
        crate::feeds::promtool_accepts(&metrics);
        // the board's retained state is the final one
        let b = hall.board("5").unwrap();
        assert!(b.online);
        assert_eq!(b.seq, *want.last().unwrap());
        assert_eq!(
            b.state.unwrap().value()["move_number"],
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
        let rig = published_board(
            Source::Script(smartgoban::sim::Script::parse(script).unwrap()),
            NoiseModel::Clean,
            Speed::Max,
            data.path(),
            &broker,
            "outbox",
            "3",
        )
        .await;
        rig.wait_done().await;
        let first_run = board_seqs(&rig);
        assert!(first_run.len() >= 4, "{first_run:?}");
        rig.stop().await;
        // the broker comes back; a new run of the service on the same store
        broker.up();
        let hall = TestHall::start(&broker, "outbox");
        let rig = published_board(
            Source::Script(smartgoban::sim::Script::parse("size 9\n").unwrap()),
            NoiseModel::Clean,
            Speed::Max,
            data.path(),
            &broker,
            "outbox",
            "3",
        )
        .await;
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
        // 1.5 × 10 s from the last packet, plus the broker's periodic check and a loaded
        // machine: README's promise is 2 × keepalive
        assert!(took <= Duration::from_secs(20), "offline after {took:?}");
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
        // the pairings, imported as CSV (kept on the broker for a restart of the hall)
        let csv = "round,table,black,white\n1,1,A,B\n1,2,C,D\n1,3,E,F\n2,1,D,A\n2,2,B,E\n2,3,F,C\n";
        let r = client
            .post(format!("http://{addr}/api/v1/pairings"))
            .bearer_auth("hall-token")
            .body(csv)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
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
                // the board's status names the new game too
                let board = (i + 1).to_string();
                until(Duration::from_secs(30), "the status with the game", || {
                    hall.board(&board)
                        .and_then(|b| b.game)
                        .is_some_and(|g| g["black"] == p.black.as_str())
                })
                .await;
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
        // commands sent back to back are carried out in the order sent: the last delay stays
        let sends = (1..=20u32).map(|delay_s| {
            let link = hall.link.clone();
            async move {
                link.command(
                    &Target::Board("1".into()),
                    &HallCommand::BroadcastDelay { delay_moves: 0, delay_s },
                    1,
                    Duration::from_secs(30),
                )
                .await
                .unwrap()
            }
        });
        let answers = futures_util::future::join_all(sends).await;
        let delays: Vec<u64> = answers
            .iter()
            .map(|a| a[0].body["delay_s"].as_u64().unwrap())
            .collect();
        assert_eq!(delays, (1..=20).collect::<Vec<u64>>(), "each answer is the delay it set");
        let delay = rigs[0].get_json("/api/v1/broadcast", true).await;
        assert_eq!(delay["delay_s"], 20, "{delay}");
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
        // a hall started afresh gets everything back from the broker: boards, finished games,
        // pairings
        let again = TestHall::start(&broker, "r27");
        until(Duration::from_secs(30), "the restarted hall's pairings and games", || {
            let h = again.hall.lock().unwrap();
            let now = smartgoban::store::unix_now_ms() as u64;
            h.pairings().len() == 6 && h.games(now, true).len() == 6 && h.boards(now, true).len() == 3
        })
        .await;
        let now = smartgoban::store::unix_now_ms() as u64;
        assert_eq!(again.hall.lock().unwrap().results(now, true), hall.hall.lock().unwrap().results(now, true));
        for rig in rigs {
            rig.stop().await;
        }
    });
}

/// Polls `eventloop` until `n` PUBACKs came.
async fn pubacks(n: usize, eventloop: &mut rumqttc::v5::EventLoop) {
    let mut acks = 0;
    while acks < n {
        if let rumqttc::v5::Event::Incoming(rumqttc::v5::mqttbytes::v5::Packet::PubAck(_)) =
            eventloop.poll().await.unwrap()
        {
            acks += 1;
        }
    }
}

/// A retained message far bigger than the hall takes (a broken or hostile publisher) does not
/// cut the hall off: the hall's CONNECT says its Maximum Packet Size (MQTT 5), the broker
/// keeps the message from it, and the hall takes the other boards' messages on its first
/// connection.
#[test]
fn an_oversized_retained_message_does_not_cut_the_hall_off() {
    use rumqttc::v5::mqttbytes::QoS;
    let Some(broker) = Broker::start() else {
        return;
    };
    rt().block_on(async {
        let options = rumqttc::v5::MqttOptions::new("hostile", "127.0.0.1", broker.port);
        let (client, mut eventloop) = rumqttc::v5::AsyncClient::new(options, 10);
        let state = |seq: u64| {
            serde_json::json!({"board": "8", "seq": seq, "unix_ms": 0, "state": {"move_number": seq}})
                .to_string()
        };
        let publish = |topic: &str, payload: Vec<u8>, retain: bool| {
            let client = client.clone();
            let topic = topic.to_string();
            async move {
                client
                    .publish(topic, QoS::AtLeastOnce, retain, payload)
                    .await
                    .unwrap()
            }
        };
        // 5 MiB on board 9's state, retained, then a good state of board 8
        publish("smartgoban/v1/big/board/9/state", vec![b'x'; 5 << 20], true).await;
        publish("smartgoban/v1/big/board/8/state", state(1).into_bytes(), true).await;
        pubacks(2, &mut eventloop).await;
        let hall = TestHall::start(&broker, "big");
        until(Duration::from_secs(30), "board 8 at the hall", || {
            hall.board("8").is_some_and(|b| b.seq == 1)
        })
        .await;
        // the next message comes through the same connection
        publish("smartgoban/v1/big/board/8/state", state(2).into_bytes(), true).await;
        pubacks(1, &mut eventloop).await;
        until(Duration::from_secs(30), "board 8's next state", || {
            hall.board("8").is_some_and(|b| b.seq == 2)
        })
        .await;
        assert_eq!(hall.link.connections(), 1, "the hall reconnected");
        assert!(hall.board("9").is_none(), "the oversized state was taken");
    });
}

/// The README's Mosquitto ACL, as written there (the indented block after its
/// `# /etc/mosquitto/smartgoban.acl` line).
fn readme_acl() -> String {
    let readme = std::fs::read_to_string(crate::support::root().join("README.md")).unwrap();
    let start = readme
        .find("    # /etc/mosquitto/smartgoban.acl\n")
        .expect("the README's ACL");
    readme[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .map(|l| format!("{}\n", &l[4..]))
        .collect()
}

/// Publishes `payload` to `topic` as broker user `user` (MQTT 5, QoS 1) and returns the
/// broker's PUBACK reason: `Success`, or `NotAuthorized` where the ACL refuses it.
async fn publish_as(
    broker: &Broker,
    user: &str,
    topic: &str,
    payload: &[u8],
) -> rumqttc::v5::mqttbytes::v5::PubAckReason {
    use rumqttc::v5::mqttbytes::v5::Packet;
    use rumqttc::v5::{AsyncClient, Event, MqttOptions};
    let mut options = MqttOptions::new(
        format!("probe-{user}-{}", rand::random::<u32>()),
        "127.0.0.1",
        broker.port,
    );
    options.set_credentials(user, "pw");
    let (client, mut eventloop) = AsyncClient::new(options, 10);
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut sent = false;
    loop {
        assert!(Instant::now() < deadline, "no PUBACK from the broker");
        match tokio::time::timeout(Duration::from_secs(5), eventloop.poll()).await {
            Ok(Ok(Event::Incoming(Packet::ConnAck(_)))) if !sent => {
                client
                    .publish(
                        topic,
                        rumqttc::v5::mqttbytes::QoS::AtLeastOnce,
                        false,
                        payload.to_vec(),
                    )
                    .await
                    .unwrap();
                sent = true;
            }
            Ok(Ok(Event::Incoming(Packet::PubAck(ack)))) => return ack.reason,
            Ok(Ok(_)) => {}
            other => panic!("probe {user}: {other:?}"),
        }
    }
}

/// Mosquitto with the README's ACL (users: the hall and boards 1 and 2): each board publishes
/// and the hall reads it; a board cannot write another board's topics nor send commands, and
/// a command the hall sends to board 1 reaches board 1 only.
#[test]
fn the_readmes_acl_keeps_each_board_to_its_own_topics() {
    let Some(mut broker) = Broker::start() else {
        return;
    };
    let passwd = broker.dir.path().join("passwd");
    for (i, user) in ["hall", "1", "2"].iter().enumerate() {
        let mut cmd = Command::new("mosquitto_passwd");
        if i == 0 {
            cmd.arg("-c");
        }
        let ok = cmd
            .arg("-b")
            .arg(&passwd)
            .args([user, "pw"])
            .status()
            .unwrap();
        assert!(ok.success(), "mosquitto_passwd");
    }
    let acl = broker.dir.path().join("acl");
    std::fs::write(&acl, readme_acl()).unwrap();
    // the same broker, now with the users and the ACL
    broker.down();
    broker.auth = Some((passwd, acl));
    broker.up();
    rt().block_on(async {
        use rumqttc::v5::mqttbytes::v5::PubAckReason;
        let test_hall = TestHall::connect(
            broker.url(),
            Some(("hall".into(), "pw".into())),
            "open2026",
            0,
        );
        let mut rigs = Vec::new();
        for board in ["1", "2"] {
            let mut rig = Rig::script("size 19\n", NoiseModel::Clean, 1, Speed::Max).await;
            let mut s = settings(&broker, "open2026", board);
            s.credentials = Some((board.into(), "pw".into()));
            rig.daemon
                .publish_mqtt(s, None, 1, Default::default())
                .unwrap();
            rigs.push(rig);
        }
        until(
            Duration::from_secs(60),
            "both boards' state at the hall",
            || {
                ["1", "2"].iter().all(|b| {
                    test_hall
                        .board(b)
                        .is_some_and(|b| b.online && b.state.is_some())
                })
            },
        )
        .await;
        // board 2 may write its own topics, not board 1's, and may not send commands
        let own = "smartgoban/v1/open2026/board/2/sgf";
        assert_eq!(
            publish_as(&broker, "2", own, b"(;GM[1])").await,
            PubAckReason::Success
        );
        for forged in [
            "smartgoban/v1/open2026/board/1/state",
            "smartgoban/v1/open2026/board/1/events",
            "smartgoban/v1/open2026/board/1/cmd",
            "smartgoban/v1/open2026/cmd",
        ] {
            assert_eq!(
                publish_as(&broker, "2", forged, br#"{"command":"pause"}"#).await,
                PubAckReason::NotAuthorized,
                "{forged}"
            );
        }
        // the hall's command to board 1 reaches board 1, which answers; board 2 is untouched
        let answers = test_hall
            .link
            .command(
                &smartgoban::hall::subscriber::Target::Board("1".into()),
                &smartgoban::mqtt::HallCommand::StartGame {
                    game: serde_json::json!({"black": "A", "white": "B", "round": "1"}),
                },
                1,
                Duration::from_secs(10),
            )
            .await
            .unwrap();
        assert_eq!(answers.len(), 1, "{answers:?}");
        assert_eq!((answers[0].board.as_str(), answers[0].status), ("1", 200));
        let name = |i: usize| rigs[i].daemon.shared().snapshot().state.game.black.clone();
        assert_eq!(name(0).as_deref(), Some("A"));
        assert_ne!(name(1).as_deref(), Some("A"));
        for rig in rigs {
            rig.stop().await;
        }
    });
}

/// The hall's HTTP side on messages as the broker delivers them (no broker needed): one SSE
/// feed of every board, resumable by id; the public feed, grid and records as of the delay,
/// the referee's live; commands refused without the token; the page served.
#[test]
fn the_halls_feed_and_views_are_live_for_the_referee_and_delayed_for_the_public() {
    rt().block_on(async {
        // a broker that is not there: the hall keeps trying, and serves what it has
        let TestHall { hall, link } = TestHall::connect(
            format!("mqtt://127.0.0.1:{}", free_port()).parse().unwrap(),
            None,
            "h",
            600_000,
        );
        let changed = Arc::new(tokio::sync::Notify::new());
        let state = Arc::new(smartgoban::hall::server::HallState {
            hall: hall.clone(),
            changed: changed.clone(),
            link,
            token: "t0k".into(),
        });
        let addr = smartgoban::hall::server::serve(state, "127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
        let now = || smartgoban::store::unix_now_ms() as u64;
        let apply = |board: &str, what: &str, payload: String| {
            hall.lock().unwrap().apply(
                &format!("smartgoban/v1/h/board/{board}/{what}"),
                payload.as_bytes(),
                None,
                now(),
            );
            changed.notify_waiters();
        };
        let event = |seq: u64| {
            format!(r#"{{"seq":{seq},"t_ms":1,"kind":"pass","color":"black","number":{seq}}}"#)
        };
        apply(
            "1",
            "status",
            r#"{"status":"online","board":"1","version":"0.1.0"}"#.into(),
        );
        apply(
            "1",
            "state",
            r#"{"board":"1","seq":1,"unix_ms":0,"state":{"move_number":1}}"#.into(),
        );
        apply("1", "sgf", "(;GM[1]SZ[19];B[dd])".into());
        let client = reqwest::Client::new();
        let live = client
            .get(format!("http://{addr}/api/v1/events"))
            .bearer_auth("t0k")
            .send()
            .await
            .unwrap();
        assert_eq!(live.status(), 200);
        // events from two boards, one of them sent twice
        for (b, seq) in [("1", 1), ("2", 7), ("1", 2), ("1", 2), ("2", 8)] {
            apply(b, "events", event(seq));
        }
        let msgs = crate::api::read_sse(live, 4).await;
        let got: Vec<(u64, String, u64)> = msgs
            .iter()
            .map(|m| {
                (
                    m.id,
                    m.data["board"].as_str().unwrap().to_string(),
                    m.data["event"]["seq"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (1, "1".into(), 1),
                (2, "2".into(), 7),
                (3, "1".into(), 2),
                (4, "2".into(), 8)
            ]
        );
        // resuming after id 2 gives 3 and 4
        let resumed = client
            .get(format!("http://{addr}/api/v1/events?token=t0k"))
            .header("Last-Event-ID", "2")
            .send()
            .await
            .unwrap();
        let ids: Vec<u64> = crate::api::read_sse(resumed, 2)
            .await
            .iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(ids, [3, 4]);
        // the public, 10 minutes behind: no position, no record, no event yet, no violations
        let public: serde_json::Value = client
            .get(format!("http://{addr}/api/v1/hall"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(public["live"], false);
        assert!(public["boards"][0]["state"].is_null(), "{public}");
        let sgf = client
            .get(format!("http://{addr}/api/v1/boards/1/game.sgf"))
            .send()
            .await
            .unwrap();
        assert_eq!(sgf.status(), 404);
        let referee: serde_json::Value = client
            .get(format!("http://{addr}/api/v1/hall"))
            .bearer_auth("t0k")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(referee["boards"][0]["state"]["move_number"], 1);
        assert_eq!(referee["events"], 4);
        assert_eq!(referee["duplicates"], 1);
        assert_eq!(referee["broker_connected"], false);
        let sgf = client
            .get(format!("http://{addr}/api/v1/boards/1/game.sgf"))
            .bearer_auth("t0k")
            .send()
            .await
            .unwrap();
        assert_eq!(sgf.text().await.unwrap(), "(;GM[1]SZ[19];B[dd])");
        let public_feed = client
            .get(format!("http://{addr}/api/v1/events"))
            .send()
            .await
            .unwrap();
        let mut stream = public_feed.bytes_stream();
        use futures_util::StreamExt;
        let nothing = tokio::time::timeout(Duration::from_millis(500), async {
            loop {
                let chunk = stream.next().await.unwrap().unwrap();
                if std::str::from_utf8(&chunk).unwrap().contains("data:") {
                    return chunk;
                }
            }
        })
        .await;
        assert!(
            nothing.is_err(),
            "a public event before the delay: {nothing:?}"
        );
        // commands need the token; the page is served
        for path in [
            "/api/v1/clock/pause",
            "/api/v1/pairings",
            "/api/v1/rounds/1/start",
        ] {
            let r = client
                .post(format!("http://{addr}{path}"))
                .body("x")
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 401, "{path}");
        }
        let r = client
            .post(format!("http://{addr}/api/v1/pairings"))
            .bearer_auth("t0k")
            .body("round,table,black\n")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 422);
        for (path, body) in [
            ("/api/v1/rounds/1/start", "{\"komi\": \"x\"}"),
            ("/api/v1/rounds/1/start", "{\"bogus\": 1}"),
            ("/api/v1/broadcast", "{}"),
            ("/api/v1/broadcast", "{\"delay_s\": 90000}"),
        ] {
            let r = client
                .post(format!("http://{addr}{path}"))
                .bearer_auth("t0k")
                .body(body)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 422, "{path} {body}");
        }
        let page = client.get(format!("http://{addr}/")).send().await.unwrap();
        assert_eq!(page.status(), 200);
        assert!(page.text().await.unwrap().contains("smartgoban hall"));
    });
}
