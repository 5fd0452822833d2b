//! The referee's cases through the whole stack: board scripts on the virtual board, through
//! the pty, into the real service (the same cases run at the core in `src/referee/tests.rs`).

use std::fmt::Write as _;

use serde_json::{json, Value};
use smartgoban::session::Command;
use smartgoban::sim::{NoiseModel, Script, Source, Speed};

use crate::support::{of_kind, play_script, rt, Rig};

/// The moves and passes the events recorded (`move_undone` takes the last back), as `BD4`, `Wpass`.
pub(crate) fn moves(events: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in events {
        match e["kind"].as_str() {
            Some("move") => out.push(format!(
                "{}{}",
                if e["color"] == "black" { "B" } else { "W" },
                e["point"].as_str().unwrap()
            )),
            Some("pass") => out.push(format!(
                "{}pass",
                if e["color"] == "black" { "B" } else { "W" }
            )),
            Some("move_undone") => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

fn violations(events: &[Value]) -> Vec<(String, String, Value)> {
    of_kind(events, "violation")
        .iter()
        .map(|v| {
            (
                v["code"].as_str().unwrap().to_string(),
                v["color"].as_str().unwrap().to_string(),
                v["points"].clone(),
            )
        })
        .collect()
}

fn run(script: &str) -> (Vec<Value>, std::sync::Arc<smartgoban::daemon::Snapshot>) {
    rt().block_on(play_script(script, NoiseModel::Clean, 1))
}

#[test]
fn flicker_while_placing_and_one_scan_misreads_are_no_event_even_fifty_times() {
    let mut script = String::from("size 19\n");
    let points = smartgoban::referee::setup::handicap_points(19, 9).unwrap();
    let mut t = 0;
    let mut n = 0;
    // 50 moves on distinct points, each with a burst: the point flickers empty five times in
    // 200 ms while the stone goes down, and an empty point reads black for one scan.
    'outer: for y in (0..19).step_by(2) {
        for x in (0..19).step_by(4) {
            if n == 50 {
                break 'outer;
            }
            let p = smartgoban::rules::Point::new(x, y).to_gtp(19);
            let c = if n % 2 == 0 { "B" } else { "W" };
            writeln!(script, "at {t} place {c} {p}").unwrap();
            for k in 0..5 {
                writeln!(script, "at {} glitch {p} . 1", t + 20 + 40 * k).unwrap();
            }
            let q = points[n % points.len()].to_gtp(19);
            writeln!(script, "at {} glitch {q} X 1", t + 100).unwrap();
            t += 800;
            n += 1;
        }
    }
    let (events, snap) = run(&script);
    assert_eq!(moves(&events).len(), 50);
    assert!(violations(&events).is_empty(), "{:?}", violations(&events));
    assert_eq!(snap.state.phase.as_str(), "play");
}

#[test]
fn a_long_colour_misread_is_a_sensor_anomaly_while_play_goes_on() {
    let (events, snap) = run("size 9\n\
        at 0 place B E5\nat 1000 place W C3\n\
        at 2000 glitch C3 X 200\n\
        at 3000 place B G7\nat 4500 place W C7\n");
    assert_eq!(moves(&events), ["BE5", "WC3", "BG7", "WC7"]);
    assert!(violations(&events).is_empty());
    assert_eq!(snap.state.phase.as_str(), "play");
}

#[test]
fn a_capture_left_on_the_board_is_missed_when_the_opponent_moves() {
    let (events, snap) = run("size 9\n\
        at 0 place B C4\nat 500 place W C3\nat 1000 place B B3\nat 1500 place W G7\n\
        at 2000 place B D3\nat 2500 place W G6\nat 3000 place B C2\n\
        at 4000 place W E5\n\
        at 7000 remove C3\n");
    assert_eq!(
        of_kind(&events, "captures_pending")[0]["points"],
        json!(["C3"])
    );
    assert_eq!(
        violations(&events),
        [(
            "missed_capture".to_string(),
            "black".to_string(),
            json!(["C3"])
        )]
    );
    assert_eq!(moves(&events).last().unwrap(), "WE5");
    assert_eq!(of_kind(&events, "violation_resolved").len(), 1);
    assert!(snap.state.violations.is_empty());
}

#[test]
fn several_moves_between_settled_boards_and_an_ambiguous_board() {
    // a quick reply before the board settled
    let (events, _) = run("size 9\nat 0 place B E5\nat 1000 place W C3\nat 1060 place B G7\n");
    assert_eq!(moves(&events), ["BE5", "WC3", "BG7"]);
    // a capture inside the two moves
    let (events, _) = run(
        "size 19\nat 0 place B A1\nat 1000 place W B1\nat 2000 place B R16\n\
        at 3000 place W A2\nat 3040 remove A1\nat 3080 place B K10\n",
    );
    assert_eq!(moves(&events), ["BA1", "WB1", "BR16", "WA2", "BK10"]);
    // black A2, B2, C1, White to move, then a hand over B1 and only a new black A1: White's
    // throw-in at B1 captured under the hand, or Black out of turn. A violation is never
    // presumed (issue 35): the throw-in is recorded at once, provisionally, play goes on, and
    // the referee gets a notice — nothing charged
    let (events, snap) = run(
        "size 9\nat 0 place B A2\nat 500 place W J9\nat 1000 place B B2\n\
        at 1500 place W J8\nat 2000 place B C1\nat 2500 hand B1 0 600\nat 3000 place B A1\n",
    );
    assert_eq!(
        moves(&events),
        ["BA2", "WJ9", "BB2", "WJ8", "BC1", "WB1", "BA1"]
    );
    assert!(of_kind(&events, "ambiguous").is_empty());
    let provisional = of_kind(&events, "provisional");
    assert_eq!(provisional.len(), 1);
    assert_eq!(provisional[0]["numbers"], json!([6, 7]));
    assert_eq!(
        violations(&events),
        [(
            "two_moves_in_a_row".to_string(),
            "black".to_string(),
            json!(["A1"])
        )]
    );
    assert_eq!(of_kind(&events, "violation")[0]["penalty"], "notice");
    assert!(of_kind(&events, "warning").is_empty());
    assert_eq!(snap.state.move_number, 7);
    assert_eq!(snap.state.provisional.len(), 1);
    assert_eq!(snap.state.provisional[0].numbers, [6, 7]);
    // the same without a hand over B1: nothing can have come and gone there, so the new black
    // A1 is Black's second move in a row (R17.2), not held
    let (events, _) = run(
        "size 9\nat 0 place B A2\nat 500 place W J9\nat 1000 place B B2\n\
        at 1500 place W J8\nat 2000 place B C1\nat 3000 place B A1\n",
    );
    assert!(of_kind(&events, "ambiguous").is_empty());
    assert_eq!(
        violations(&events)
            .iter()
            .map(|v| v.0.as_str())
            .collect::<Vec<_>>(),
        ["two_moves_in_a_row"]
    );
}

#[test]
fn free_handicap_three_then_white_and_a_fourth_stone_flagged() {
    let (events, snap) = run("size 19\nhandicap 3\n\
        at 0 place B D4\nat 500 place B Q16\nat 1000 place B K10\nat 2000 place W Q4\n");
    assert!(violations(&events).is_empty());
    assert_eq!(moves(&events), ["WQ4"]);
    assert_eq!(of_kind(&events, "handicap_placed").len(), 1);
    let sgf = &snap.sgf;
    assert!(sgf.contains("HA[3]"), "{sgf}");
    let rec = smartgoban::rules::GameRecord::from_sgf_str(sgf).unwrap();
    assert_eq!(rec.setup.len(), 3);
    assert_eq!(rec.moves[0].color, smartgoban::rules::Color::White);
    let (events, _) = run("size 19\nhandicap 3\n\
        at 0 place B D4\nat 500 place B Q16\nat 1000 place B K10\nat 2000 place B D16\n");
    assert_eq!(
        violations(&events),
        [(
            "two_moves_in_a_row".to_string(),
            "black".to_string(),
            json!(["D16"])
        )]
    );
}

#[test]
fn after_a_resignation_gesture_and_the_referee_result_nothing_counts() {
    rt().block_on(async {
        let script = Script::parse(
            "size 19\nat 0 place B Q16\nat 500 place W D4\nat 1000 place B Q4\n\
             at 2000 place B A10\nat 2040 place B A11\n\
             at 6000 place W K10\nat 7000 place B K11\nat 8000 remove Q16\n",
        )
        .unwrap();
        let rig = Rig::start(
            Source::Script(script),
            NoiseModel::Clean,
            1,
            Speed::Factor(4.0),
        )
        .await;
        // wait until the gesture has been seen (after the three moves, the board differs
        // from the record)
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let state = rig.daemon.shared().snapshot().state.clone();
            if state.move_number == 3 && state.guidance.is_some() {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the resignation gesture was never seen: {state:?}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        rig.daemon
            .command(Command::SetResult("W+R".into()))
            .await
            .unwrap();
        rig.wait_done().await;
        let events = rig.events();
        assert_eq!(moves(&events), ["BQ16", "WD4", "BQ4"]);
        assert!(violations(&events).is_empty(), "{:?}", violations(&events));
        let snap = rig.stop().await;
        assert_eq!(snap.state.phase.as_str(), "finished");
        let rec = smartgoban::rules::GameRecord::from_sgf_str(&snap.sgf).unwrap();
        assert_eq!(rec.moves.len(), 3);
        assert_eq!(rec.info.result.as_deref(), Some("W+R"));
    });
}

#[test]
fn a_stone_pushed_before_it_settles_is_one_move_after_the_clock_a_moved_stone() {
    let (events, _) = run("size 9\nat 0 place B E5\nat 1000 place W C3\n\
        at 2000 place B G7\nat 2060 slide G7 G6\n");
    assert_eq!(moves(&events), ["BE5", "WC3", "BG6"]);
    assert!(violations(&events).is_empty());
    let (events, snap) = run("size 9\nat 0 place B E5\nat 1000 place W C3\n\
        at 2000 place B G7\nat 2500 clock B\nat 3000 slide G7 G6\n");
    assert_eq!(
        violations(&events),
        [(
            "moved_stone".to_string(),
            "black".to_string(),
            json!(["G7", "G6"])
        )]
    );
    assert_eq!(moves(&events), ["BE5", "WC3", "BG7"], "the record keeps G7");
    assert_eq!(snap.state.phase.as_str(), "desync");
}

#[test]
fn every_other_clause_through_the_whole_stack() {
    let cases: &[(&str, &str, &str, Value)] = &[
        (
            "two_moves_in_a_row",
            "size 9\nat 0 place B E5\nat 1000 place B G7\nat 3000 remove G7\n",
            "black",
            json!(["G7"]),
        ),
        (
            "takeback",
            "size 9\nat 0 place B E5\nat 1000 place W C3\nat 2000 place B G7\nat 2500 clock B\n\
             at 3500 remove G7\nat 3560 place B B8\n",
            "black",
            json!(["G7", "B8"]),
        ),
        (
            "clock_before_stone",
            "size 9\nat 0 place B E5\nat 1000 clock W\n",
            "white",
            json!([]),
        ),
        (
            "board_disturbed",
            "size 9\nat 0 place B E5\nat 500 place W C3\nat 1000 place B D3\nat 1500 place W C4\n\
             at 2000 place B G7\nat 2500 place W G3\nat 4000 remove E5 C3 D3 C4\n",
            "white",
            json!(["E5", "C4", "C3", "D3"]),
        ),
        (
            "wrong_capture",
            "size 9\nat 0 place B E5\nat 1000 place W C3\nat 2000 place B D3\n\
             at 3000 place W G7\nat 3040 remove D3\n",
            "white",
            json!(["D3"]),
        ),
        (
            "ko_recapture",
            "size 9\nat 0 place B D5\nat 500 place W G5\nat 1000 place B E6\nat 1500 place W F6\n\
             at 2000 place B E4\nat 2500 place W F4\nat 3000 place B A9\nat 3500 place W E5\n\
             at 4000 place B F5\nat 4040 remove E5\nat 5000 place W E5\nat 5040 remove F5\n",
            "white",
            json!(["E5"]),
        ),
        (
            "forbidden_point",
            "size 9\nat 0 place B A2\nat 500 place W E5\nat 1000 place B B1\nat 1500 place W A1\n",
            "white",
            json!(["A1"]),
        ),
        (
            "clock_before_captures",
            "size 9\nat 0 place B C4\nat 500 place W C3\nat 1000 place B B3\nat 1500 place W G7\n\
             at 2000 place B D3\nat 2500 place W G6\nat 3000 place B C2\nat 3500 clock B\n",
            "black",
            json!(["C3"]),
        ),
        (
            "wrong_colors",
            "size 9\nat 0 place W E5\n",
            "white",
            json!(["E5"]),
        ),
        (
            "occupied_point",
            "size 9\nat 0 place B E5\nat 1000 place W C3\nat 2000 place B C3\nat 2500 clock B\n",
            "black",
            json!(["C3"]),
        ),
    ];
    for (code, script, offender, points) in cases {
        let (events, _) = run(script);
        let v = violations(&events);
        assert_eq!(
            v,
            [(code.to_string(), offender.to_string(), points.clone())],
            "{code}: {script}"
        );
    }
    // two warnings lose (R24.2): a clock press without a stone, twice
    let (events, snap) = run("size 9\nat 0 place B E5\nat 1000 clock W\nat 2000 clock W\n");
    let codes: Vec<String> = violations(&events).into_iter().map(|v| v.0).collect();
    assert_eq!(
        codes,
        [
            "clock_before_stone",
            "clock_before_stone",
            "two_warnings_loss"
        ]
    );
    assert_eq!(snap.state.phase.as_str(), "finished");
    assert_eq!(of_kind(&events, "result")[0]["winner"], "black");
}

#[test]
fn a_real_multiple_ko_cycle_raises_superko_cycle() {
    // UEC Cup 2017, QuinoaIgo vs Kugutsu: the position after move 314 comes back at 317, and
    // after 322 at 325 (R20.2–R20.3).
    let path = crate::support::root()
        .join("tests/fixtures/games/yenw-computer-go-dataset/The 11th Computer Go UEC Cup/day1/6-QuinoaIgo-Kugutsu.sgf");
    let summary = rt()
        .block_on(crate::support::replay(&path, NoiseModel::Clean, 1))
        .unwrap();
    let snap = &summary.snapshot;
    let _ = snap;
    let record = &summary.record;
    let notes: Vec<(usize, &str)> = record
        .moves
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.comment.as_deref().map(|c| (i + 1, c)))
        .filter(|(_, c)| c.contains("superko_cycle"))
        .collect();
    assert_eq!(
        notes.iter().map(|n| n.0).collect::<Vec<_>>(),
        [317, 325],
        "{notes:?}"
    );
}

#[test]
fn a_stone_put_down_under_a_resting_forearm_and_the_clock_pressed_is_a_move() {
    // White's forearm rests over the lower right for 8 s (those sensors read uncertain and are
    // taken as stuck after 6 s); Black plays G3 under it and presses the clock before the arm
    // lifts. The press waits for the arm: one move, no R17.4 clock_before_stone.
    let script = "size 9\n\
        at 0 place B E5\n at 300 clock B\n at 1000 place W C3\n at 1300 clock W\n\
        at 1500 hand H2 2 8000\n at 5000 place B G3\n at 5300 clock B\n\
        at 12000 place W G7\n at 12300 clock W\n";
    let (events, _) = run(script);
    assert_eq!(moves(&events), ["BE5", "WC3", "BG3", "WG7"]);
    assert_eq!(violations(&events), []);
}

#[test]
fn a_ko_retaken_and_its_capture_lifted_after_is_one_violation_through_the_stack() {
    // White retakes the ko at D5 at once and lifts E5 200 ms later (two settled boards): one
    // ko_recapture (R18.3/R20.1), counted as a pass, and the board guided back — not also a
    // wrong capture, which would be the second warning and a loss.
    let script = "size 9\n\
        at 0 place B D4\n at 300 clock B\n at 600 place W E4\n at 900 clock W\n\
        at 1200 place B C5\n at 1500 clock B\n at 1800 place W F5\n at 2100 clock W\n\
        at 2400 place B D6\n at 2700 clock B\n at 3000 place W E6\n at 3300 clock W\n\
        at 3600 place B H2\n at 3900 clock B\n at 4200 place W D5\n at 4500 clock W\n\
        at 4800 place B E5\n at 5000 remove D5\n at 5200 clock B\n\
        at 5800 place W D5\n at 6000 remove E5\n at 6200 clock W\n\
        at 7000 remove D5\n at 7300 place B E5\n\
        at 8000 place B H8\n at 8300 clock B\n";
    let (events, snap) = run(script);
    assert_eq!(
        violations(&events),
        [("ko_recapture".into(), "white".into(), json!(["D5"]))]
    );
    assert_eq!(
        moves(&events)[7..],
        ["WD5", "BE5", "Wpass", "BH8"],
        "{events:?}"
    );
    assert_eq!(snap.state.phase.as_str(), "play");
    assert!(of_kind(&events, "result").is_empty());
}

#[test]
fn a_real_cycle_under_each_events_rule_ends_the_game_through_the_stack() {
    // The same game under each of the event's rules but the referee's (R20.3): the game ends
    // at move 317, the repeating move, with the rule's result in the record and the state.
    let path = crate::support::root()
        .join("tests/fixtures/games/yenw-computer-go-dataset/The 11th Computer Go UEC Cup/day1/6-QuinoaIgo-Kugutsu.sgf");
    use smartgoban::referee::CycleRule;
    for (rule, noise, re) in [
        (CycleRule::Draw, NoiseModel::Realistic, "0"),
        (CycleRule::NoResult, NoiseModel::Clean, "Void"),
        (CycleRule::Replay, NoiseModel::Clean, "Void"),
    ] {
        let mut args = crate::support::demo_args(Some(&path), noise, 3);
        args.cycles = Some(rule);
        let summary = rt().block_on(smartgoban::cli::demo::run(args)).unwrap();
        let rule = rule.as_str();
        assert_eq!(summary.record.info.result.as_deref(), Some(re), "{rule}");
        assert_eq!(summary.record.moves.len(), 317, "{rule}");
        assert!(
            summary.snapshot.sgf.contains(&format!("RE[{re}]")),
            "{rule}"
        );
        assert_eq!(
            summary.snapshot.state.game.result.as_deref(),
            Some(re),
            "{rule}"
        );
        assert_eq!(summary.snapshot.state.phase.as_str(), "finished", "{rule}");
    }
}

/// Quick players at the start: the board comes up empty and three stones go down 100 ms
/// apart, so the board is not quiet for the stabiliser's 150 ms before the third. They were
/// put down after the board came up: moves 1-3, not stones found at the start (which they
/// were taken for when the first complete board was the board as found). Stones left from
/// another game on the same board are still found, not moves (one would be the first move).
#[test]
fn stones_put_down_before_the_board_first_settles_are_moves() {
    let quick = "size 9\n\
        at 100 place B E5\nat 200 place W C3\nat 300 place B G7\nat 2000 place W C7\n";
    let quick_with_leftovers = "size 9\nat 0 place W A1\nat 0 place B J9\n\
        at 100 place B E5\nat 200 place W C3\nat 300 place B G7\nat 2000 remove A1 J9\n\
        at 3000 place W C7\n";
    for (script, found) in [(quick, &[][..]), (quick_with_leftovers, &["A1", "J9"][..])] {
        for (noise, seed) in [(NoiseModel::Clean, 3), (NoiseModel::Realistic, 4)] {
            let (events, snap) = rt().block_on(play_script(script, noise, seed));
            let moves: Vec<String> = of_kind(&events, "move")
                .iter()
                .map(|e| {
                    format!(
                        "{}{}",
                        e["color"].as_str().unwrap(),
                        e["point"].as_str().unwrap()
                    )
                })
                .collect();
            assert_eq!(
                moves,
                ["blackE5", "whiteC3", "blackG7", "whiteC7"],
                "{noise} {found:?}"
            );
            let violations = of_kind(&events, "violation");
            assert!(violations.is_empty(), "{noise} {found:?}: {violations:?}");
            let mut to_lift: Vec<&str> = of_kind(&events, "phase")
                .iter()
                .filter(|e| e["phase"] == "setup")
                .flat_map(|e| e["remove"].as_array().into_iter().flatten())
                .filter_map(|p| p.as_str())
                .collect();
            to_lift.sort_unstable();
            to_lift.dedup();
            assert_eq!(to_lift, found, "{noise}");
            assert_eq!(snap.state.phase.as_str(), "play", "{noise} {found:?}");
        }
    }
}

/// The board as found when the game starts (issue 14): stones of both colours left from
/// another game, among them a white stone with no liberties in the corner. None is a move or
/// a violation; the `setup` phase names each to lift while the players begin, and the game
/// is recorded as played.
#[test]
fn stones_found_on_the_board_at_the_start_are_shown_to_lift_and_never_recorded() {
    let script = "size 9\n\
        at 0 place W A1\nat 0 place B A2\nat 0 place B B1\nat 0 place W G7\nat 0 place B G3\n\
        at 0 place W C7\n\
        at 2000 remove A1 G7\n\
        at 3000 place B E5\n\
        at 4500 remove A2 B1 C7\n\
        at 6000 place W C3\n\
        at 7500 remove G3\n\
        at 9000 place B E3\n";
    for (noise, seed) in [(NoiseModel::Clean, 1), (NoiseModel::Realistic, 2)] {
        let (events, snap) = rt().block_on(play_script(script, noise, seed));
        let violations = of_kind(&events, "violation");
        assert!(violations.is_empty(), "{noise}: {violations:?}");
        let setup_lists: Vec<Vec<String>> = of_kind(&events, "phase")
            .iter()
            .filter(|e| e["phase"] == "setup")
            .map(|e| {
                let mut v: Vec<String> = e["remove"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|p| p.as_str().unwrap().to_string())
                    .collect();
                v.sort();
                v
            })
            .collect();
        assert!(
            setup_lists.contains(
                &["A1", "A2", "B1", "C7", "G3", "G7"]
                    .map(String::from)
                    .to_vec()
            ),
            "{noise}: {setup_lists:?}"
        );
        let moves: Vec<String> = of_kind(&events, "move")
            .iter()
            .map(|e| e["point"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(moves, ["E5", "C3", "E3"], "{noise}");
        assert_eq!(snap.state.phase.as_str(), "play", "{noise}");
        assert_eq!(snap.moves.len(), 3, "{noise}");
    }
}
