//! The game clock through the whole stack: board scripts with a `time` header and `clock`
//! presses on the virtual board, through the pty, into the service (the clock's own cases at
//! the core are in `src/clock/tests.rs`).

use serde_json::Value;
use smartgoban::sim::NoiseModel;

use crate::support::{of_kind, play_script, play_script_on, rt, Rig, RigOptions};

fn calls(events: &[Value]) -> Vec<(u64, String, String)> {
    of_kind(events, "call")
        .iter()
        .map(|c| {
            (
                c["game_ms"].as_u64().unwrap(),
                c["color"].as_str().unwrap().to_string(),
                c["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A Chinese-counting game (10 s main, 2 reserve minutes): W thinks 70 s (a minute taken),
/// passes, and B lets its flag fall.
const COUNTING: &str = "size 9\ntime main=10s cn=2x60s\n\
    at 0 place B E5\n at 2000 clock B\n\
    at 5000 place W C3\n at 5300 clock W\n\
    at 20000 place B G7\n at 20300 clock B\n\
    at 90000 place W C7\n at 90400 clock W\n\
    at 95000 place B D4\n at 95200 clock B\n\
    at 100000 pass W\n\
    at 230000 place B H8\n";

#[test]
fn chinese_counting_calls_come_at_the_exact_times_and_the_flag_loses() {
    let (events, snap) = rt().block_on(play_script(COUNTING, NoiseModel::Realistic, 3));
    let w: Vec<(u64, String)> = calls(&events)
        .into_iter()
        .filter(|c| c.1 == "white")
        .map(|c| (c.0, c.2))
        .collect();
    // W's turn from 20.3 s with 6.7 s of main time: its first minute from 27 s
    let expect_w: Vec<(u64, String)> = [
        (57_000, "30"),
        (67_000, "40"),
        (77_000, "50"),
        (82_000, "55"),
        (85_000, "58"),
        (87_000, "60"),
    ]
    .iter()
    .map(|&(t, s)| (t, s.to_string()))
    .collect();
    assert_eq!(w, expect_w);
    let w_unit_end = of_kind(&events, "call")
        .into_iter()
        .find(|c| c["color"] == "white" && c["text"] == "60")
        .unwrap();
    assert_eq!(w_unit_end["minutes_left"], 1, "\"1 minute left\"");
    // B's turn from W's pass at 100 s, no main time left: two minutes, the last counted
    let b: Vec<(u64, String)> = calls(&events)
        .into_iter()
        .filter(|c| c.1 == "black")
        .map(|c| (c.0, c.2))
        .collect();
    let mut expect_b: Vec<(u64, String)> = [30, 40, 50, 55, 58, 60]
        .iter()
        .map(|&s| (100_000 + s * 1000, s.to_string()))
        .collect();
    expect_b.extend(
        [30, 40, 50]
            .iter()
            .map(|&s| (160_000 + s * 1000, s.to_string())),
    );
    expect_b.extend((1..=9).map(|n| (210_000 + n * 1000, n.to_string())));
    expect_b.push((220_000, "10".into()));
    assert_eq!(b, expect_b);
    let v = of_kind(&events, "violation");
    assert_eq!(v.len(), 1);
    assert_eq!(
        (v[0]["code"].as_str(), v[0]["color"].as_str()),
        (Some("time_expired"), Some("black"))
    );
    let result = of_kind(&events, "result");
    assert_eq!(result[0]["re"], "W+T");
    assert_eq!(result[0]["reason"], "time");
    // nothing after the flag: H8 is no move
    assert_eq!(snap.state.move_number, 6);
}

/// Each move's clock reading in the record: (colour, BL/WL seconds, OB/OW), given Black's
/// main time left after its first move, `b1` s (its clock started when the first board
/// settled, a little after the script's start).
fn expected_times(b1: f64) -> Vec<(char, f64, Option<u32>)> {
    vec![
        ('B', b1, None),
        // W: 2.0 → 5.3 s in main time
        ('W', 10.0 - 3.3, None),
        // B: 5.3 → 20.3 s: the rest of its main time, then into its first minute
        ('B', 60.0 - (15.0 - b1), Some(2)),
        // W: 20.3 → 90.4 s: 6.7 s main, 63.4 s of overtime: a minute taken
        ('W', 60.0 - 3.4, Some(1)),
        ('B', 60.0 - 4.8, Some(2)),
        ('W', 60.0 - 4.8, Some(1)),
    ]
}

#[test]
fn every_move_carries_its_clock_and_sgfmill_reads_the_same() {
    let (_, snap) = rt().block_on(play_script(COUNTING, NoiseModel::Clean, 1));
    let rec = smartgoban::rules::GameRecord::from_sgf_str(&snap.sgf).unwrap();
    assert_eq!(rec.info.time_limit, Some(10.0));
    assert_eq!(
        rec.info.overtime.as_deref(),
        Some("2x60 byo-yomi (Chinese counting)")
    );
    let ours: Vec<(char, Option<f64>, Option<u32>)> = rec
        .moves
        .iter()
        .map(|m| {
            (
                m.color.sgf_letter().chars().next().unwrap(),
                m.time_left_ms.map(|ms| ms as f64 / 1000.0),
                m.periods_left,
            )
        })
        .collect();
    let b1 = ours[0].1.unwrap();
    assert!(
        (8.0..10.0).contains(&b1),
        "B's first move took under 2 s: {b1}"
    );
    let expect = expected_times(b1);
    assert_eq!(ours.len(), expect.len());
    for (i, (got, want)) in ours.iter().zip(&expect).enumerate() {
        assert_eq!((got.0, got.2), (want.0, want.2), "move {}", i + 1);
        let g = got.1.unwrap();
        assert!(
            (g - want.1).abs() < 0.0005,
            "move {}: {g} vs {}",
            i + 1,
            want.1
        );
    }
    // an independent SGF reader reads the same values
    let Some(python) = crate::support::python_with("sgfmill") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("game.sgf");
    std::fs::write(&path, &snap.sgf).unwrap();
    let script = "import sys\nfrom sgfmill import sgf\n\
        g = sgf.Sgf_game.from_bytes(open(sys.argv[1], 'rb').read())\n\
        r = g.get_root()\n\
        print(r.get('TM'), r.get('OT'))\n\
        for n in g.get_main_sequence()[1:]:\n\
        \x20   c, _ = n.get_move()\n\
        \x20   k = 'BL' if c == 'b' else 'WL'\n\
        \x20   o = 'OB' if c == 'b' else 'OW'\n\
        \x20   print(c.upper(), n.get(k) if n.has_property(k) else None, n.get(o) if n.has_property(o) else None)\n";
    let out = std::process::Command::new(python)
        .args(["-c", script])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("10.0 2x60 byo-yomi (Chinese counting)"));
    for (i, line) in lines.enumerate() {
        let parts: Vec<&str> = line.split(' ').collect();
        let (c, time, periods) = ours[i];
        assert_eq!(parts[0], c.to_string());
        let read: f64 = parts[1].parse().unwrap();
        assert!(
            (read - time.unwrap()).abs() < 1e-9,
            "move {}: {line}",
            i + 1
        );
        let want = periods.map_or("None".to_string(), |p| p.to_string());
        assert_eq!(parts[2], want, "move {}", i + 1);
    }
}

#[test]
fn japanese_periods_roll_over_on_the_feed_and_the_flag_falls_at_100_s() {
    // 10 s main + 3×30 s; Black never moves
    let script = "size 9\ntime main=10s jp=3x30s\nat 120000 glitch E5 X 1\n";
    let (events, _) = rt().block_on(play_script(script, NoiseModel::Clean, 1));
    let clocks = of_kind(&events, "clock");
    let start = clocks[0]["game_ms"].as_u64().unwrap();
    assert_eq!(clocks[0]["running"], "black");
    let shown: Vec<(u64, bool, u64, u64, bool)> = clocks
        .iter()
        .map(|c| {
            let b = &c["black"];
            (
                c["game_ms"].as_u64().unwrap() - start,
                b["overtime"].as_bool().unwrap(),
                b["periods"].as_u64().unwrap(),
                b["period_ms"].as_u64().unwrap(),
                b["expired"].as_bool().unwrap(),
            )
        })
        .collect();
    // each roll-over is seen on the first scan after it (scans are 20 ms apart)
    let near = |got: u64, want: u64| got >= want && got < want + 20;
    assert_eq!(shown.len(), 5, "{shown:?}");
    assert!(
        near(shown[1].0, 10_000) && shown[1].1 && shown[1].2 == 3,
        "{shown:?}"
    );
    assert!(near(shown[2].0, 40_000) && shown[2].2 == 2, "{shown:?}");
    assert!(near(shown[3].0, 70_000) && shown[3].2 == 1, "{shown:?}");
    assert!(near(shown[4].0, 100_000) && shown[4].4, "{shown:?}");
    let v = of_kind(&events, "violation");
    assert_eq!(v[0]["code"], "time_expired");
    assert_eq!(v[0]["evidence"]["clock"]["black"]["expired"], true);
    assert_eq!(of_kind(&events, "result")[0]["re"], "W+T");
    assert!(of_kind(&events, "move").is_empty());
}

#[test]
fn the_faces_lose_their_link_for_3_s_around_a_move_and_catch_up() {
    use smartgoban::devices::face::{ClockFace, FaceFrame, SimFace};
    use smartgoban::sim::{Script, Source, Speed};
    let script = Script::parse(
        "size 9\ntime main=60s\n\
         at 0 place B E5\n at 500 clock B\n at 1500 place W C3\n at 2000 clock W\n\
         at 3000 place B G7\n at 3500 clock B\n at 4500 place W C7\n at 5000 clock W\n\
         at 6000 place B D4\n at 6500 clock B\n",
    )
    .unwrap();
    let (black, white) = (SimFace::new(), SimFace::new());
    let faces: [Box<dyn ClockFace>; 2] = [Box::new(black.clone()), Box::new(white.clone())];
    let hw = smartgoban::daemon::ClockHardware {
        buttons: None,
        faces: Some(faces),
        announcer: None,
    };
    rt().block_on(async {
        let rig = Rig::start_with(
            Source::Script(script),
            NoiseModel::Clean,
            1,
            Speed::Factor(1.0),
            RigOptions {
                clock_hardware: hw,
                ..Default::default()
            },
        )
        .await;
        // Once move 2 is recorded (W C3, pressed at 2 s) the faces lose their link for 3 s:
        // around the moves and presses of 3 to 5 s.
        wait_for(&rig, "move 2", |s| s.move_number >= 2).await;
        black.drop_link(std::time::Duration::from_secs(3));
        white.drop_link(std::time::Duration::from_secs(3));
        rig.wait_done().await;
        // The faces catch up once their link is back: wait until both show the clocks of the
        // live state (read together, so a tick between them is no failure).
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let snap = loop {
            let snap = rig.daemon.shared().snapshot();
            let clock = snap.state.clock.clone().unwrap();
            if white.frames().last() == Some(&FaceFrame::of(&clock.white))
                && black.frames().last() == Some(&FaceFrame::of(&clock.black))
            {
                break snap;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the faces never showed the clocks again: black {:?}, white {:?}, clock {clock:?}",
                black.frames().last(),
                white.frames().last()
            );
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        };
        let rec = smartgoban::rules::GameRecord::from_sgf_str(&snap.sgf).unwrap();
        assert_eq!(rec.moves.len(), 5);
        assert!(
            rec.moves.iter().all(|m| m.time_left_ms.is_some()),
            "every move keeps its time: {:?}",
            rec.moves
        );
        // the faces failed meanwhile, then show the clocks again
        assert!(black.failed_writes() > 0 && white.failed_writes() > 0);
        assert!(black.frames().len() >= 2, "black's face counted down");
        rig.stop().await;
    });
}

#[test]
fn the_demo_with_a_clock_records_every_move_with_its_time() {
    // the built-in game, the virtual players pressing the clock: Chinese counting with a short
    // main time, so the game runs into the reserve minutes
    let mut args = crate::support::demo_args(None, NoiseModel::Realistic, 5);
    args.time = Some("main=20s cn=3x10s".parse().unwrap());
    let summary = rt().block_on(smartgoban::cli::demo::run(args)).unwrap();
    let rec = &summary.record;
    assert_eq!(rec.moves.len(), 232);
    assert_eq!(rec.info.time_limit, Some(20.0));
    assert!(
        rec.moves.iter().all(|m| m.time_left_ms.is_some()),
        "BL/WL on every move"
    );
    // into overtime: periods on the later moves, never more than the three units
    let last = rec.moves.last().unwrap();
    assert!(matches!(last.periods_left, Some(1..=3)), "{last:?}");
    assert!(summary
        .snapshot
        .state
        .violations
        .iter()
        .all(|v| v.code != "time_expired"));
}

#[test]
fn a_button_on_the_pi_switches_the_clock_and_the_calls_are_spoken() {
    use smartgoban::devices::buttons::{ClockButton, SimButtons};
    use smartgoban::devices::sound::SimAnnouncer;
    use smartgoban::sim::{Script, Source, Speed};
    // Black plays at once and presses its button wired to the Pi (not the board's); White
    // then thinks through 2 s of main time and its one 5 s reserve unit: 6…9, 10, time up.
    let script =
        Script::parse("size 9\ntime main=2s cn=1x5s\nat 0 place B E5\nat 9500 glitch A1 X 1\n")
            .unwrap();
    let buttons = std::sync::Arc::new(std::sync::Mutex::new(SimButtons::new()));
    struct Shared(std::sync::Arc<std::sync::Mutex<SimButtons>>);
    impl smartgoban::devices::buttons::ClockButtons for Shared {
        fn start(
            &mut self,
            tx: tokio::sync::mpsc::UnboundedSender<smartgoban::devices::buttons::ButtonPress>,
        ) -> Result<(), String> {
            self.0.lock().unwrap().start(tx)
        }
    }
    let voice = SimAnnouncer::new();
    let hw = smartgoban::daemon::ClockHardware {
        buttons: Some(Box::new(Shared(buttons.clone()))),
        faces: None,
        announcer: Some(Box::new(voice.clone())),
    };
    rt().block_on(async {
        let rig = Rig::start_with(
            Source::Script(script),
            NoiseModel::Clean,
            1,
            Speed::Factor(1.0),
            RigOptions {
                clock_hardware: hw,
                ..Default::default()
            },
        )
        .await;
        // Black presses once the service sees its stone on the board.
        wait_for(&rig, "B E5 on the board", |s| {
            s.sensed
                .as_ref()
                .is_some_and(|rows| rows[4].chars().nth(4) == Some('X'))
        })
        .await;
        assert!(buttons
            .lock()
            .unwrap()
            .press(ClockButton::Player(smartgoban::rules::Color::Black)));
        rig.wait_done().await;
        // The calls and the flag come with White's time (7 s after the press), which a late
        // press may put after the board's last scripted scan: wait for the flag and the calls.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while of_kind(&rig.events(), "result").is_empty() || voice.said().len() < 5 {
            assert!(
                std::time::Instant::now() < deadline,
                "White's flag never fell: calls {:?}",
                calls(&rig.events())
            );
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let events = rig.events();
        let snap = rig.stop().await;
        let rec = smartgoban::rules::GameRecord::from_sgf_str(&snap.sgf).unwrap();
        assert_eq!(rec.moves.len(), 1);
        assert!(
            rec.moves[0].time_left_ms.is_some(),
            "the Pi's button committed B E5"
        );
        let texts: Vec<String> = calls(&events).into_iter().map(|c| c.2).collect();
        assert_eq!(texts, ["6", "7", "8", "9", "10"]);
        let said: Vec<Vec<String>> = voice.said().iter().map(|c| c.clips()).collect();
        assert_eq!(said.len(), 5);
        assert_eq!(
            said.last().unwrap(),
            &["10".to_string(), "timeup".to_string()]
        );
        assert_eq!(of_kind(&events, "result")[0]["re"], "B+T");
    });
}

/// Waits (up to 60 s) until the service's state satisfies `f`.
async fn wait_for(rig: &Rig, what: &str, f: impl Fn(&smartgoban::session::StateView) -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !f(&rig.daemon.shared().snapshot().state) {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

#[test]
fn a_takeback_accepted_through_the_stack_gives_black_its_two_periods_back() {
    use smartgoban::referee::Ruling;
    use smartgoban::session::Command;
    use smartgoban::sim::{Script, Source, Speed};
    // Black uses up a period on its second move, so it is in overtime with 2 periods; then
    // plays D4 after 12 s, presses, and lifts it again.
    let script = Script::parse(
        "size 9\ntime jp=3x30s\n\
         at 0 place B E5\n at 500 clock B\n at 1000 place W C3\n at 1500 clock W\n\
         at 33000 place B G7\n at 33500 clock B\n at 34000 place W C7\n at 34500 clock W\n\
         at 46000 place B D4\n at 46500 clock B\n at 49000 remove D4\n at 60000 glitch A1 X 1\n",
    )
    .unwrap();
    rt().block_on(async {
        let rig = Rig::start(
            Source::Script(script),
            NoiseModel::Realistic,
            2,
            Speed::Factor(10.0),
        )
        .await;
        wait_for(&rig, "the takeback", |s| {
            s.violations.iter().any(|v| v.code == "takeback")
        })
        .await;
        let state = rig.daemon.shared().snapshot().state.clone();
        let before = state.clock.clone().unwrap();
        assert_eq!(before.running, Some(smartgoban::rules::Color::White));
        let id = state
            .violations
            .iter()
            .find(|v| v.code == "takeback")
            .unwrap()
            .id;
        rig.daemon
            .command(Command::Resolve {
                id,
                ruling: Ruling::AcceptAsPlayed,
            })
            .await
            .unwrap();
        let after = rig.daemon.shared().snapshot().state.clone();
        let clock = after.clock.unwrap();
        assert_eq!(clock.running, Some(smartgoban::rules::Color::Black));
        assert_eq!(clock.black.periods, 2);
        assert!(clock.black.period_ms > 29_000, "{:?}", clock.black);
        assert_eq!(after.move_number, 4, "D4 left the record");
        rig.wait_done().await;
        rig.stop().await;
    });
}

#[test]
fn canadian_pause_through_the_stack_a_stone_while_paused_counts_once_accepted() {
    use smartgoban::referee::Ruling;
    use smartgoban::session::Command;
    use smartgoban::sim::{Script, Source, Speed};
    // Canadian 10 stones in 5 minutes; after 6 moves each Black has 4 stones left. The
    // referee pauses; Black puts a stone down; the referee resumes, the stone is flagged;
    // once accepted Black has 3 stones left. The pause lasts longer than Black's block.
    let mut text = String::from("size 9\ntime ca=10/300s\n");
    let points = [
        "A1", "A3", "A5", "A7", "A9", "C1", "C3", "C5", "C7", "C9", "E1", "E3",
    ];
    for (i, p) in points.iter().enumerate() {
        let c = if i % 2 == 0 { "B" } else { "W" };
        let t = i * 1_000;
        text.push_str(&format!("at {t} place {c} {p}\nat {} clock {c}\n", t + 300));
    }
    text.push_str("at 200000 place B G1\nat 3000000 glitch J9 X 1\n");
    let script = Script::parse(&text).unwrap();
    rt().block_on(async {
        let rig = Rig::start(
            Source::Script(script),
            NoiseModel::Clean,
            1,
            Speed::Factor(200.0),
        )
        .await;
        wait_for(&rig, "12 moves pressed", |s| {
            s.move_number == 12
                && s.clock
                    .as_ref()
                    .is_some_and(|c| c.running == Some(smartgoban::rules::Color::Black))
        })
        .await;
        rig.daemon.command(Command::Pause).await.unwrap();
        let paused_at = rig.device.board_ms();
        let paused = rig.daemon.shared().snapshot().state.clock.clone().unwrap();
        assert_eq!(paused.black.periods, 4);
        // the stone goes down during the pause, and the pause lasts past Black's block
        wait_for(&rig, "G1 on the board", |s| {
            s.sensed
                .as_ref()
                .is_some_and(|rows| rows[8].chars().nth(6) == Some('X'))
        })
        .await;
        // Game time is the board's: the pause has lasted past Black's block once the service
        // has taken in a scan from 5 s of board time after the block would have run out.
        let past_block = paused_at + paused.black.main_ms + paused.black.period_ms + 5_000;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while rig.device.board_ms() < past_block {
            assert!(
                std::time::Instant::now() < deadline,
                "the board never reached {past_block} ms (at {} ms)",
                rig.device.board_ms()
            );
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let scan = rig.device.scan_counter();
        wait_for(&rig, "the scans past Black's block taken in", |s| {
            s.link.last_scan_counter.is_some_and(|c| c >= scan)
        })
        .await;
        let still = rig.daemon.shared().snapshot().state.clone();
        assert_eq!(still.move_number, 12);
        assert!(still.game.result.is_none(), "no flag fall during the pause");
        rig.daemon.command(Command::Resume).await.unwrap();
        wait_for(&rig, "the stone flagged", |s| {
            s.violations.iter().any(|v| v.code == "played_while_paused")
        })
        .await;
        let id = rig
            .daemon
            .shared()
            .snapshot()
            .state
            .violations
            .iter()
            .find(|v| v.code == "played_while_paused")
            .unwrap()
            .id;
        rig.daemon
            .command(Command::Resolve {
                id,
                ruling: Ruling::AcceptAsPlayed,
            })
            .await
            .unwrap();
        let after = rig.daemon.shared().snapshot().state.clone();
        assert_eq!(after.move_number, 13);
        let clock = after.clock.unwrap();
        assert_eq!(clock.black.periods, 3, "3 stones left");
        assert_eq!(clock.running, Some(smartgoban::rules::Color::White));
        rig.stop().await;
    });
}

#[test]
fn the_live_page_and_the_state_show_both_clocks() {
    use smartgoban::sim::{Script, Source, Speed};
    let script = Script::parse(COUNTING).unwrap();
    rt().block_on(async {
        let rig = Rig::start(
            Source::Script(script),
            NoiseModel::Clean,
            1,
            Speed::Factor(20.0),
        )
        .await;
        wait_for(&rig, "two moves", |s| s.move_number >= 2).await;
        let page = reqwest::get(rig.url("/"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(page.contains("id=\"clock-black\"") && page.contains("id=\"clock-white\""));
        let state: Value = reqwest::get(rig.url("/api/v1/state"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let clock = &state["clock"];
        assert_eq!(clock["system"], "main=10s cn=2x60s");
        assert!(clock["running"] == "black" || clock["running"] == "white");
        for side in ["black", "white"] {
            for key in ["main_ms", "overtime", "period_ms", "periods", "expired"] {
                assert!(!clock[side][key].is_null(), "{side}.{key}: {clock}");
            }
        }
        rig.stop().await;
    });
}

/// (script, expected violation codes, expected BL/WL in tenths of seconds per move)
type PressCase = (
    &'static str,
    &'static [&'static str],
    &'static [Option<u64>],
);

#[test]
fn presses_in_every_order_around_quick_replies_passes_and_presses_without_a_stone() {
    let cases: [PressCase; 5] = [
        // W replies before B's stone has settled: both presses are right
        (
            "time main=60s\nat 1000 place B Q16\nat 1050 clock B\nat 1100 place W D4\nat 1150 clock W\n\
             at 3000 place B Q4\nat 3100 clock B\n",
            &[],
            &[Some(591), Some(599), Some(572)],
        ),
        // W plays on B's time before B presses; then B presses, then W
        (
            "time main=60s\nat 1000 place B Q16\nat 1200 place W D4\nat 1300 clock B\nat 1400 clock W\n\
             at 3000 place B Q4\nat 3100 clock B\n",
            &[],
            &[Some(589), Some(599), Some(572)],
        ),
        // B presses without a stone and W presses back at once: both undone, B's time runs
        (
            "time main=60s\nat 1000 place B Q16\nat 1300 clock B\nat 2000 place W D4\nat 2300 clock W\n\
             at 4000 clock B\nat 4300 clock W\nat 8000 place B Q4\nat 8300 clock B\n",
            &["clock_before_stone"],
            &[Some(589), Some(590), Some(529)],
        ),
        // a clock press, then the pass button: the press is the pass's, no warning
        (
            "time main=60s\nat 300 place B Q16\nat 400 clock B\nat 2000 place W D4\nat 2500 clock W\n\
             at 4000 clock B\nat 4300 pass B\nat 7000 place W D16\nat 7300 clock W\n",
            &[],
            &[Some(598), Some(579), Some(583), Some(546)],
        ),
        // B's press without a stone hands White 0.6 s: White's flag waits for the ruling on
        // that press, which gives the time back to Black
        (
            "time main=5s\nat 300 place B Q16\nat 400 clock B\nat 2000 place W D4\nat 4800 clock W\n\
             at 5000 clock B\nat 6500 place B Q4\nat 6600 clock B\nat 6700 place W D16\nat 6800 clock W\n",
            &["clock_before_stone"],
            &[Some(48), Some(6), Some(28), Some(4)],
        ),
    ];
    for (body, codes, times) in cases {
        let script = format!("size 19\n{body}");
        let (events, snap) = rt().block_on(play_script(&script, NoiseModel::Realistic, 4));
        let got: Vec<String> = of_kind(&events, "violation")
            .iter()
            .map(|v| v["code"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, codes.to_vec(), "{body}");
        let rec = smartgoban::rules::GameRecord::from_sgf_str(&snap.sgf).unwrap();
        let tenths: Vec<Option<u64>> = rec
            .moves
            .iter()
            .map(|m| m.time_left_ms.map(|ms| ms / 100))
            .collect();
        // Black's first move: its clock started when the first board settled (~0.2 s)
        assert_eq!(tenths.len(), times.len(), "{body}: {tenths:?}");
        for (i, (g, w)) in tenths.iter().zip(times).enumerate() {
            let ok = match (g, w) {
                (Some(g), Some(w)) => g.abs_diff(*w) <= 3,
                _ => false,
            };
            assert!(ok, "{body}: move {}: {tenths:?} vs {times:?}", i + 1);
        }
    }
}

/// G7 and C7 are played and pressed while the board is unplugged.
const PRESSED_WHILE_UNPLUGGED: &str = "size 9\ntime main=60s\n\
    at 1000 place B E5\nat 1500 clock B\nat 2000 place W C3\nat 2500 clock W\n\
    at 2800 unplug 2000\nat 3500 place B G7\nat 3800 clock B\nat 4300 place W C7\nat 4600 clock W\n\
    at 6000 place B G3\nat 6300 clock B\nat 7000 place W D4\nat 7300 clock W\n\
    at 9000 place B F6\nat 9300 clock B\nat 12000 place W D6\nat 12300 clock W\n";

#[test]
fn presses_lost_while_a_board_without_history_was_away_leave_later_moves_their_own_press() {
    // A version-2 board keeps no history: its buttons' presses while unplugged are gone, so
    // G7 and C7 have no time; every move after carries its own press
    let (_, snap) = rt().block_on(play_script_on(
        PRESSED_WHILE_UNPLUGGED,
        NoiseModel::Realistic,
        1,
        2,
    ));
    let rec = smartgoban::rules::GameRecord::from_sgf_str(&snap.sgf).unwrap();
    let timed: Vec<bool> = rec.moves.iter().map(|m| m.time_left_ms.is_some()).collect();
    assert_eq!(timed, [true, true, false, false, true, true, true, true]);
    // W's D6 after 2.7 s of thinking: its own press, not another move's
    let w = rec.moves[7].time_left_ms.unwrap();
    let d4 = rec.moves[5].time_left_ms.unwrap();
    assert!(d4 - w > 2_000 && d4 - w < 3_500, "{d4} → {w}");
}

#[test]
fn presses_made_while_the_board_was_unplugged_come_back_with_its_history() {
    // A version-3 board kept scanning and counting while unplugged (PROTOCOL.md §14): the
    // moves and presses made meanwhile are replayed, each move with its own press
    let (_, snap) = rt().block_on(play_script(
        PRESSED_WHILE_UNPLUGGED,
        NoiseModel::Realistic,
        1,
    ));
    let rec = smartgoban::rules::GameRecord::from_sgf_str(&snap.sgf).unwrap();
    let left: Vec<u64> = rec.moves.iter().map(|m| m.time_left_ms.unwrap()).collect();
    assert_eq!(left.len(), 8);
    // each move is charged what its mover used, as if the board had never gone: G7 from
    // White's press at 2.5 s to its own at 3.8 s, C7 from 3.8 s to 4.6 s, G3 from 4.6 s to
    // 6.3 s, D4 from 6.3 s to 7.3 s (presses are read to the scan, 20 ms)
    let used = |a: usize, b: usize| left[a] as i64 - left[b] as i64;
    for (a, b, want) in [(0, 2, 1_300), (1, 3, 800), (2, 4, 1_700), (3, 5, 1_000)] {
        assert!((used(a, b) - want).abs() <= 100, "moves {a}→{b}: {left:?}");
    }
    let w = rec.moves[7].time_left_ms.unwrap();
    let d4 = rec.moves[5].time_left_ms.unwrap();
    assert!(d4 - w > 2_000 && d4 - w < 3_500, "{d4} → {w}");
}

#[test]
fn stones_of_both_colours_played_during_a_pause_are_recorded_in_their_order_through_the_stack() {
    use smartgoban::referee::Ruling;
    use smartgoban::session::Command;
    use smartgoban::sim::{Script, Source, Speed};
    // R22.8, with a time control and without: the referee pauses after two moves (the
    // stones come 5 min of board time later, 6 s at 50x: time enough on a busy machine for
    // the pause to come first); four stones
    // of both colours go down (G7 B, C7 W, G3 B, D5 W); on resumption they are flagged once,
    // each named with its colour; accepted, they are moves 3 to 6 in the order played, and
    // the pause cost Black no time.
    for time in ["time main=10m\n", ""] {
        let mut text = format!("size 9\n{time}");
        text.push_str("at 0 place B E5\nat 300 clock B\nat 1000 place W C3\nat 1300 clock W\n");
        let stones = [("B", "G7"), ("W", "C7"), ("B", "G3"), ("W", "D5")];
        for (i, (c, p)) in stones.iter().enumerate() {
            text.push_str(&format!("at {} place {c} {p}\n", 300_000 + 700 * i));
        }
        text.push_str("at 3000000 glitch J9 X 1\n");
        let script = Script::parse(&text).unwrap();
        rt().block_on(async {
            let rig = Rig::start(
                Source::Script(script),
                NoiseModel::Clean,
                1,
                Speed::Factor(50.0),
            )
            .await;
            wait_for(&rig, "2 moves", |s| s.move_number == 2).await;
            rig.daemon.command(Command::Pause).await.unwrap();
            let before = rig.daemon.shared().snapshot().state.clock.clone();
            wait_for(&rig, "D5 on the board", |s| {
                s.sensed
                    .as_ref()
                    .is_some_and(|rows| rows[4].chars().nth(3) == Some('O'))
            })
            .await;
            rig.daemon.command(Command::Resume).await.unwrap();
            wait_for(&rig, "the stones flagged", |s| {
                s.violations.iter().any(|v| v.code == "played_while_paused")
            })
            .await;
            let state = rig.daemon.shared().snapshot().state.clone();
            let flagged: Vec<_> = state
                .violations
                .iter()
                .filter(|v| v.code == "played_while_paused")
                .collect();
            assert_eq!(flagged.len(), 1, "{time}");
            for named in ["black G7", "white C7", "black G3", "white D5"] {
                assert!(flagged[0].detail.contains(named), "{}", flagged[0].detail);
            }
            assert_eq!(state.move_number, 2, "no move until accepted");
            rig.daemon
                .command(Command::Resolve {
                    id: flagged[0].id,
                    ruling: Ruling::AcceptAsPlayed,
                })
                .await
                .unwrap();
            wait_for(&rig, "6 moves", |s| s.move_number == 6).await;
            let events = rig.events();
            let moves: Vec<String> = events
                .iter()
                .filter(|e| e["kind"] == "move")
                .map(|e| e["point"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(moves, ["E5", "C3", "G7", "C7", "G3", "D5"], "{time}");
            let others: Vec<&serde_json::Value> = events
                .iter()
                .filter(|e| e["kind"] == "violation" && e["code"] != "played_while_paused")
                .collect();
            assert!(others.is_empty(), "{time}: {others:?}");
            assert!(!events.iter().any(|e| e["kind"] == "ambiguous"), "{time}");
            if let (Some(before), Some(after)) =
                (before, rig.daemon.shared().snapshot().state.clock.clone())
            {
                // 5 min of board time paused: Black's main time is what it was, give or take
                // the moments around the pause and the ruling
                let used = before.black.main_ms.saturating_sub(after.black.main_ms);
                assert!(used < 5_000, "Black was charged {used} ms");
            }
            rig.stop().await;
        });
    }
}

/// The referee pauses right after a new game, before anyone moved (a hall pausing a round it
/// just started): the clock reads paused and Black's time does not run until resume (C3).
#[test]
fn a_pause_right_after_a_new_game_stops_the_clock_until_resume() {
    use smartgoban::sim::Speed;
    rt().block_on(async {
        let rig = Rig::script("size 19\n", NoiseModel::Clean, 1, Speed::Max).await;
        let (s, b) = rig
            .act(
                "/api/v1/games",
                serde_json::json!({"black": "A", "white": "B", "time": "main=10s", "replace": true}),
            )
            .await;
        assert_eq!(s, 200, "{b}");
        let (s, b) = rig.act("/api/v1/clock/pause", serde_json::json!({})).await;
        assert_eq!(s, 200, "{b}");
        let state = rig.get_json("/api/v1/state", true).await;
        assert_eq!(state["phase"], "paused", "{state}");
        assert_eq!(state["clock"]["paused"], true, "{state}");
        let main = state["clock"]["black"]["main_ms"].as_u64().unwrap();
        // the clock is read at every state; a paused one gives the same reading each time
        // (a running one would have lost the milliseconds between the two reads)
        for _ in 0..20 {
            let again = rig.get_json("/api/v1/state", true).await;
            assert_eq!(again["clock"]["black"]["main_ms"].as_u64(), Some(main), "{again}");
            assert_eq!(again["clock"]["paused"], true, "{again}");
        }
        let (s, b) = rig.act("/api/v1/clock/resume", serde_json::json!({})).await;
        assert_eq!(s, 200, "{b}");
        let state = rig.get_json("/api/v1/state", true).await;
        assert_eq!(state["clock"]["paused"], false, "{state}");
        rig.stop().await;
    });
}
