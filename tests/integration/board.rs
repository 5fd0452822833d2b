//! Board situations played with board scripts on the virtual board, through the pty, into
//! the real service: what the referee sees and says.

use serde_json::json;
use smartgoban::sim::NoiseModel;

use crate::support::{of_kind, play_script, rt};

#[test]
fn moves_passes_and_resignation() {
    let script = "size 9\nkomi 5.5\n\
        at 0 place B E5\n\
        at 1000 place W C3\n\
        at 2000 pass B\n\
        at 3000 place W G7\n\
        at 4000 resign B\n";
    let (events, snap) = rt().block_on(play_script(script, NoiseModel::Clean, 1));
    let moves: Vec<_> = of_kind(&events, "move")
        .iter()
        .map(|e| (e["color"].clone(), e["point"].clone(), e["number"].clone()))
        .collect();
    assert_eq!(
        moves,
        vec![
            (json!("black"), json!("E5"), json!(1)),
            (json!("white"), json!("C3"), json!(2)),
            (json!("white"), json!("G7"), json!(4)),
        ]
    );
    let passes = of_kind(&events, "pass");
    assert_eq!(passes.len(), 1);
    assert_eq!(passes[0]["color"], "black");
    assert_eq!(passes[0]["number"], 3);
    let result = of_kind(&events, "result");
    assert_eq!(result.len(), 1);
    assert_eq!(result[0]["winner"], "white");
    assert_eq!(result[0]["reason"], "resignation");
    assert_eq!(result[0]["re"], "W+R");
    assert_eq!(snap.state.phase.as_str(), "finished");
    assert!(snap.sgf.contains("RE[W+R]"));
    assert!(
        snap.sgf.contains(";B[]"),
        "pass written as B[]: {}",
        snap.sgf
    );
    assert!(of_kind(&events, "violation").is_empty());
}

#[test]
fn captures_lifted_later_are_pending_then_removed() {
    // White C3 is surrounded by B3, C4, D3; Black C2 captures it, but the stone is lifted
    // only 2 s later.
    let script = "size 9\n\
        at 0 place B B3\n at 500 place W C3\n at 1000 place B C4\n at 1500 place W G7\n\
        at 2000 place B D3\n at 2500 place W G6\n\
        at 3000 place B C2\n\
        at 5000 remove C3\n";
    let (events, snap) = rt().block_on(play_script(script, NoiseModel::Clean, 1));
    let capture_move = of_kind(&events, "move")
        .into_iter()
        .find(|e| e["point"] == "C2")
        .unwrap()
        .clone();
    assert_eq!(capture_move["captured"], json!(["C3"]));
    assert_eq!(
        of_kind(&events, "captures_pending")[0]["points"],
        json!(["C3"])
    );
    assert_eq!(
        of_kind(&events, "captures_removed")[0]["points"],
        json!(["C3"])
    );
    assert_eq!(snap.state.captures.black, 1);
    assert!(snap.state.captures_pending.is_empty());
    assert_eq!(snap.state.phase.as_str(), "play");
}

#[test]
fn an_unexplained_board_is_a_desync_with_the_exact_difference_until_fixed() {
    let script = "size 9\n\
        at 0 place B E5\n at 1000 place W C3\n\
        at 2000 remove E5\n\
        at 2500 place W E5\n\
        at 4000 remove E5\n at 4200 place B E5\n\
        at 5000 place B G7\n";
    let (events, snap) = rt().block_on(play_script(script, NoiseModel::Clean, 1));
    let phases: Vec<_> = of_kind(&events, "phase")
        .iter()
        .map(|e| {
            (
                e["phase"].clone(),
                e["restore"].clone(),
                e["remove"].clone(),
            )
        })
        .collect();
    // E5 lifted: desync, put back a black stone at E5.
    assert!(
        phases.contains(&(
            json!("desync"),
            json!([{"point": "E5", "color": "black"}]),
            serde_json::Value::Null
        )),
        "{phases:?}"
    );
    // A white stone put there instead: still a desync, same fix.
    assert_eq!(phases.last().unwrap().0, json!("play"));
    // G7 after the board was fixed is the third move.
    let last = (*of_kind(&events, "move").last().unwrap()).clone();
    assert_eq!(
        (last["point"].clone(), last["number"].clone()),
        (json!("G7"), json!(3))
    );
    assert_eq!(snap.state.phase.as_str(), "play");
    assert!(snap.state.guidance.is_none());
}

#[test]
fn single_scan_glitches_and_hands_produce_no_event() {
    let script = "size 9\n\
        at 0 place B E5\n\
        at 500 glitch C3 X 1\n at 700 glitch D4 O 3\n at 900 glitch E5 . 2\n\
        at 1200 hand E5 2 600\n\
        at 2500 place W C3\n";
    let (events, snap) = rt().block_on(play_script(script, NoiseModel::Clean, 1));
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .filter(|k| !matches!(*k, "game" | "link"))
        .collect();
    // setup; the first settled board already shows E5, whose move ends the setup
    // phase; then White's move
    assert_eq!(kinds, ["phase", "move", "phase", "move"], "{events:?}");
    assert_eq!(snap.state.move_number, 2);
}

#[test]
fn forbidden_point_is_flagged_counts_as_a_pass_and_must_be_lifted() {
    // White plays A1 into Black's eye (A2, B1 black): a suicide.
    let script = "size 9\n\
        at 0 place B A2\n at 500 place W E5\n at 1000 place B B1\n\
        at 1500 place W A1\n\
        at 3000 remove A1\n\
        at 3500 place B G7\n";
    let (events, snap) = rt().block_on(play_script(script, NoiseModel::Clean, 1));
    let v = of_kind(&events, "violation");
    assert_eq!(v.len(), 1, "{events:?}");
    assert_eq!(v[0]["code"], "forbidden_point");
    assert_eq!(v[0]["clause"], "G5/R19");
    assert_eq!(v[0]["color"], "white");
    assert_eq!(v[0]["points"], json!(["A1"]));
    assert_eq!(v[0]["penalty"], "move_invalid");
    let passes = of_kind(&events, "pass");
    assert_eq!(
        (passes[0]["color"].clone(), passes[0]["number"].clone()),
        (json!("white"), json!(4))
    );
    assert!(of_kind(&events, "phase")
        .iter()
        .any(|p| p["phase"] == "desync" && p["remove"] == json!(["A1"])));
    assert_eq!(of_kind(&events, "violation_resolved").len(), 1);
    assert_eq!(snap.state.move_number, 5);
    assert_eq!(snap.state.phase.as_str(), "play");
}

#[test]
fn ko_retake_is_flagged_and_undone() {
    // A ko: White E5 is captured by Black F5 (surrounded by D5, E6, E4); White's immediate
    // retake at E5 (capturing F5, surrounded by G5, F6, F4) is illegal (R20.1).
    let script = "size 9\n\
        at 0 place B D5\n at 500 place W G5\n\
        at 1000 place B E6\n at 1500 place W F6\n\
        at 2000 place B E4\n at 2500 place W F4\n\
        at 3000 place B A9\n at 3500 place W E5\n\
        at 4000 place B F5\n at 4100 remove E5\n\
        at 5000 place W E5\n at 5100 remove F5\n\
        at 7000 place B F5\n at 7100 remove E5\n\
        at 8000 place B B1\n";
    let (events, snap) = rt().block_on(play_script(script, NoiseModel::Clean, 1));
    let v = of_kind(&events, "violation");
    assert_eq!(v.len(), 1, "{events:?}");
    assert_eq!(v[0]["code"], "ko_recapture");
    assert_eq!(v[0]["clause"], "R18.3/R20.1");
    assert_eq!(v[0]["points"], json!(["E5"]));
    // The board must be put back: black F5 restored, white E5 lifted.
    assert!(of_kind(&events, "phase")
        .iter()
        .any(|p| p["phase"] == "desync"
            && p["restore"] == json!([{"point": "F5", "color": "black"}])
            && p["remove"] == json!(["E5"])));
    // The retake counted as White's pass (move 10); once the board is put back, Black plays on.
    assert_eq!(snap.state.phase.as_str(), "play");
    let last = (*of_kind(&events, "move").last().unwrap()).clone();
    assert_eq!(
        (last["point"].clone(), last["number"].clone()),
        (json!("B1"), json!(11))
    );
}

#[test]
fn unplugged_board_reconnects_by_itself_and_the_move_made_meanwhile_is_recorded() {
    let script = "size 9\n\
        at 0 place B E5\n at 1000 place W C3\n\
        at 2000 unplug 1500\n\
        at 2500 place B G7\n\
        at 5000 place W C7\n";
    let (events, snap) = rt().block_on(play_script(script, NoiseModel::Clean, 1));
    let links: Vec<_> = of_kind(&events, "link")
        .iter()
        .map(|e| e["state"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(links, ["connected", "lost", "connected"], "{events:?}");
    let moves: Vec<_> = of_kind(&events, "move")
        .iter()
        .map(|e| e["point"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(moves, ["E5", "C3", "G7", "C7"]);
    assert!(of_kind(&events, "violation").is_empty());
    assert_eq!(
        snap.state.link.state,
        smartgoban::event::LinkState::Connected
    );
}

#[test]
fn realistic_and_harsh_noise_on_a_script_change_nothing() {
    let script = "size 13\n\
        at 0 place B D4\n at 2000 place W K10\n at 4000 place B K4\n at 6000 place W D10\n\
        at 8000 pass B\n at 9000 pass W\n";
    for noise in [NoiseModel::Realistic, NoiseModel::Harsh] {
        for seed in 1..=3 {
            let (events, snap) = rt().block_on(play_script(script, noise, seed));
            let moves: Vec<_> = of_kind(&events, "move")
                .iter()
                .map(|e| e["point"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(moves, ["D4", "K10", "K4", "D10"], "{noise:?} seed {seed}");
            assert_eq!(of_kind(&events, "pass").len(), 2);
            assert!(of_kind(&events, "violation").is_empty());
            // two passes in a row: counting (R21.1)
            assert_eq!(snap.state.phase.as_str(), "scoring");
        }
    }
}

#[test]
fn a_dead_sensor_or_a_resting_hand_does_not_stop_the_game() {
    for script in [
        "size 19\nat 500 place B D4\nat 1000 glitch A1 ? 4294967295\nat 2000 place W Q16\nat 4000 place B C3\n",
        // uncertain from the start: the board first settles once A1 counts as stuck (6 s,
        // StabiliserConfig::stuck_ms)
        "size 19\nat 0 glitch A1 ? 4294967295\nat 6500 place B D4\nat 8000 place W Q16\nat 10000 place B C3\n",
        "size 19\nat 0 hand K10 2 86400000\nat 6500 place B D4\nat 8000 place W Q16\nat 10000 place B C3\n",
    ] {
        let (events, _) = rt().block_on(play_script(script, NoiseModel::Clean, 1));
        let moves: Vec<_> = of_kind(&events, "move")
            .iter()
            .map(|e| e["point"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(moves, ["D4", "Q16", "C3"], "{script}");
        assert!(of_kind(&events, "violation").is_empty());
    }
}
