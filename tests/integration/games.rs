//! Finished games kept on the device (issue 6): `GET games`, `GET games/{id}.sgf`, and the
//! record of a finished demo game read by an independent SGF reader (sgfmill from PyPI) with
//! the same moves, players and times.

use serde_json::Value;
use smartgoban::sim::{NoiseModel, Speed};

use crate::support::{demo_args, read_record, root, rt, Rig};

#[test]
fn a_game_the_referee_ends_is_listed_and_served() {
    rt().block_on(async {
        let script = "size 9\nat 0 place B E5\nat 500 place W C3\nat 1000 place B G7\n";
        let rig = Rig::script(script, NoiseModel::Clean, 1, Speed::Max).await;
        rig.wait_done().await;
        let list: Value = rig.get_json("/api/v1/games", false).await;
        assert_eq!(list, serde_json::json!([]), "nothing finished yet");
        // Under a broadcast delay the public does not see the end before its time.
        let (resp_status, resp_text) = rig
            .act("/api/v1/broadcast", serde_json::json!({"delay_s": 3600}))
            .await;
        assert_eq!(resp_status, 200, "{resp_text}");
        let (resp_status, resp_text) = rig
            .act("/api/v1/result", serde_json::json!({"decision": "black"}))
            .await;
        assert_eq!(resp_status, 200, "{resp_text}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let list = loop {
            let list: Value = rig.get_json("/api/v1/games", true).await;
            if list.as_array().is_some_and(|l| !l.is_empty()) {
                break list;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the game is never listed"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        };
        assert_eq!(list.as_array().unwrap().len(), 1);
        let public: Value = rig.get_json("/api/v1/games", false).await;
        assert_eq!(
            public,
            serde_json::json!([]),
            "hidden from the public until the delay runs out"
        );
        let hidden = reqwest::get(rig.url(&format!(
            "/api/v1/games/{}.sgf",
            list[0]["id"].as_str().unwrap()
        )))
        .await
        .unwrap();
        assert_eq!(hidden.status().as_u16(), 404);
        rig.act("/api/v1/broadcast", serde_json::json!({"delay_s": 0}))
            .await;
        let id = list[0]["id"].as_str().unwrap();
        // Without the delay the public sees the end: wait until it is served the record.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let resp = loop {
            let resp = reqwest::get(rig.url(&format!("/api/v1/games/{id}.sgf")))
                .await
                .unwrap();
            if resp.status().as_u16() == 200 {
                break resp;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the public is never served the finished game once the delay is 0: {}",
                resp.status()
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        };
        // A warning after the end is refused.
        let (late_status, late_text) = rig
            .act(
                "/api/v1/warnings",
                serde_json::json!({"color": "black", "reason": "late"}),
            )
            .await;
        assert_eq!(late_status, 409, "{late_text}");
        assert_eq!(list[0]["moves"], 3);
        assert!(
            list[0]["result"].as_str().unwrap().starts_with("B+"),
            "{list}"
        );
        let sgf = resp.text().await.unwrap();
        assert!(sgf.contains("RE[B+") && sgf.contains(";B[ee]"), "{sgf}");
        for missing in ["/api/v1/games/nope.sgf", &format!("/api/v1/games/{id}")] {
            let resp = reqwest::get(rig.url(missing)).await.unwrap();
            assert_eq!(resp.status().as_u16(), 404, "{missing}");
        }
        rig.stop().await;
    });
}

#[test]
fn a_finished_demo_game_reads_back_the_same_in_sgfmill() {
    let Some(python) = crate::support::python_with("sgfmill") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let game = root().join(
        "tests/fixtures/games/yenw-computer-go-dataset/master/39-2017.01.02-Iyama_Yuta-Master.sgf",
    );
    let source = read_record(&game);
    let mut args = demo_args(Some(&game), NoiseModel::Realistic, 2);
    args.data_dir = Some(dir.path().to_path_buf());
    args.time = Some("main=10m jp=3x30s".parse().unwrap());
    let summary = rt().block_on(smartgoban::cli::demo::run(args)).unwrap();
    assert_eq!(
        summary.snapshot.state.phase,
        smartgoban::event::Phase::Finished
    );
    let kept: Vec<_> = std::fs::read_dir(dir.path().join("games"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(kept.len(), 1, "the finished game is kept");
    let path = kept[0].path();
    let script = "import sys\nfrom sgfmill import sgf\n\
        g = sgf.Sgf_game.from_bytes(open(sys.argv[1], 'rb').read())\n\
        r = g.get_root()\n\
        print(r.get('PB'))\n\
        print(r.get('PW'))\n\
        for n in g.get_main_sequence()[1:]:\n\
        \x20   c, m = n.get_move()\n\
        \x20   k = 'BL' if c == 'b' else 'WL'\n\
        \x20   print(c, m, n.get(k) if n.has_property(k) else None)\n";
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
    assert_eq!(lines.next(), source.info.black.as_deref());
    assert_eq!(lines.next(), source.info.white.as_deref());
    let moves: Vec<&str> = lines.collect();
    assert_eq!(moves.len(), source.moves.len());
    for (line, m) in moves.iter().zip(&source.moves) {
        let parts: Vec<&str> = line.split(' ').collect();
        assert_eq!(parts[0], m.color.sgf_letter().to_lowercase());
        // sgfmill gives (row, col) with row 0 at the bottom.
        let want = m.point.map(|p| format!("({}, {})", 18 - p.y, p.x));
        assert_eq!(
            line.split_once(' ').unwrap().1.rsplit_once(' ').unwrap().0,
            want.as_deref().unwrap_or("None")
        );
        let seconds: f64 = parts.last().unwrap().parse().expect("BL/WL on every move");
        assert!((0.0..=600.0).contains(&seconds), "{line}");
    }
}

/// `POST games` cannot replace a game in progress by accident (409 without `"replace": true`);
/// replaced, that game's record is kept in `GET games` like a finished one. A result for a
/// game that has one is a correction only when it says so.
#[test]
fn a_game_in_progress_is_replaced_only_on_purpose_and_its_record_is_kept() {
    rt().block_on(async {
        let script = "size 9\nat 0 place B E5\nat 500 place W C3\nat 1000 place B G7\n";
        let rig = Rig::script(script, NoiseModel::Clean, 1, Speed::Max).await;
        rig.wait_done().await;
        let (status, text) = rig
            .act("/api/v1/games", serde_json::json!({"size": 9}))
            .await;
        assert_eq!(status, 409, "{text}");
        assert!(text.contains("replace"), "{text}");
        let state: Value = rig.get_json("/api/v1/state", true).await;
        assert_eq!(state["move_number"], 3, "nothing changed");
        let (status, text) = rig
            .act(
                "/api/v1/games",
                serde_json::json!({"size": 9, "replace": true}),
            )
            .await;
        assert_eq!(status, 200, "{text}");
        let state: Value = rig.get_json("/api/v1/state", true).await;
        assert_eq!(state["move_number"], 0);
        let list: Value = rig.get_json("/api/v1/games", true).await;
        let list = list.as_array().unwrap();
        assert_eq!(list.len(), 1, "{list:?}");
        let sgf = reqwest::get(rig.url(&format!(
            "/api/v1/games/{}.sgf",
            list[0]["id"].as_str().unwrap()
        )))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
        let record = smartgoban::rules::GameRecord::from_sgf_str(&sgf).unwrap();
        let points: Vec<String> = record
            .moves
            .iter()
            .map(|m| m.point.unwrap().to_gtp(9))
            .collect();
        assert_eq!(points, ["E5", "C3", "G7"]);
        assert_eq!(record.info.result, None);
        // a new game with no move yet is replaced freely; a result, then a correction
        let (status, text) = rig
            .act("/api/v1/games", serde_json::json!({"size": 9}))
            .await;
        assert_eq!(status, 200, "{text}");
        let (status, text) = rig
            .act("/api/v1/result", serde_json::json!({"decision": "black"}))
            .await;
        assert_eq!(status, 200, "{text}");
        let (status, text) = rig
            .act("/api/v1/result", serde_json::json!({"decision": "white"}))
            .await;
        assert_eq!(status, 409, "{text}");
        let (status, text) = rig
            .act(
                "/api/v1/result",
                serde_json::json!({"decision": "white", "correct": true}),
            )
            .await;
        assert_eq!(status, 200, "{text}");
        let state: Value = rig.get_json("/api/v1/state", true).await;
        assert_eq!(state["game"]["result"], "W+F", "{state}");
        rig.stop().await;
    });
}
