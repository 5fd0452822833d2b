//! The command line as a user runs it: clear errors and non-zero exits on bad input, `check`
//! on real records, `demo` writing its record.

use std::process::{Command, Output};

use crate::support::{corpus_files, root, rt, state_on};

fn smartgoban(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_smartgoban"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run smartgoban")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn missing_sgf_file_is_a_clear_error() {
    let o = smartgoban(&["demo", "no/such/game.sgf", "--exit-when-done"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("no/such/game.sgf") && e.contains("cannot read"),
        "{e}"
    );
}

#[test]
fn malformed_sgf_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.sgf");
    std::fs::write(&bad, "(;GM[1]SZ[19];B[dd];W[").unwrap();
    let o = smartgoban(&["demo", bad.to_str().unwrap(), "--exit-when-done"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("bad.sgf"), "{e}");
    let o = smartgoban(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad.sgf"));
}

#[test]
fn unknown_flag_is_rejected() {
    let o = smartgoban(&["demo", "--sped", "max"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--sped"), "{}", stderr(&o));
    let o = smartgoban(&["demo", "--speed", "warp"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("warp"));
    let o = smartgoban(&["demo", "--noise", "loud"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("loud"));
}

/// Polls the state on `port` until `is` accepts it (180 s at most); returns it.
fn wait_state(port: u16, what: &str, is: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(180);
    loop {
        if let Some(s) = state_on(port).filter(&is) {
            return s;
        }
        assert!(std::time::Instant::now() < deadline, "never: {what}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A service started before its board is plugged in (systemd starts it at boot): it serves
/// its API, says it waits for the board, and connects when the device appears.
#[test]
fn run_before_the_board_is_plugged_in_serves_and_connects_when_it_appears() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("board");
    let (mut run, port) = crate::support::spawn_service(
        Command::new(env!("CARGO_BIN_EXE_smartgoban"))
            .args(["run", "--serial", link.to_str().unwrap()])
            .args(["--http", "127.0.0.1:0"])
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .stderr(std::process::Stdio::null()),
    );
    let waiting = wait_state(port, "the state says it waits", |s| {
        s["link"]["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("waiting for the board"))
    });
    assert_ne!(waiting["link"]["state"], "connected");
    assert!(
        waiting["link"]["error"]
            .as_str()
            .unwrap()
            .contains(link.to_str().unwrap()),
        "{waiting}"
    );
    // The page says so too, in its first paint (what a browser shows before its script runs;
    // the script writes the same status text from the state).
    let page = rt().block_on(async {
        let resp = reqwest::get(format!("http://127.0.0.1:{port}/"))
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        resp.text().await.unwrap()
    });
    assert!(
        page.contains("board link lost — waiting for the board"),
        "the page's status line: {page}"
    );
    // the board is plugged in: a virtual one at the same path, playing one stone
    let script = dir.path().join("one.txt");
    std::fs::write(&script, "size 19\nat 500 place B Q16\n").unwrap();
    let mut sim = Command::new(env!("CARGO_BIN_EXE_smartgoban"))
        .args(["sim", "--link", link.to_str().unwrap(), "--script"])
        .arg(&script)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let moved = wait_state(port, "the board's move", |s| {
        s["move_number"].as_u64() == Some(1)
    });
    for child in [&mut run, &mut sim] {
        let _ = child.kill();
        let _ = child.wait();
    }
    assert_eq!(moved["link"]["state"], "connected", "{moved}");
    assert_eq!(moved["link"]["error"], serde_json::Value::Null, "{moved}");
}

#[test]
fn bad_config_file_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("smartgoban.toml");
    std::fs::write(&cfg, "serial = \"/dev/null\"\n[game]\nsize = 21\n").unwrap();
    let o = smartgoban(&["run", "--config", cfg.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("game.size") && e.contains("21"), "{e}");
}

#[test]
fn bad_board_script_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.txt");
    std::fs::write(&script, "size 19\nat 0 place B Z42\n").unwrap();
    let o = smartgoban(&[
        "demo",
        "--script",
        script.to_str().unwrap(),
        "--exit-when-done",
    ]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("line 2") && e.contains("Z42"), "{e}");
}

#[test]
fn check_passes_a_legal_record_and_reports_an_illegal_one() {
    let legal = root().join("assets/games/danghu03.sgf");
    let o = smartgoban(&["check", legal.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let illegal = root().join("tests/fixtures/games/classical-chinese-yywolf1983/兼山堂/jst43.sgf");
    let o = smartgoban(&["check", illegal.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = String::from_utf8_lossy(&o.stdout);
    // the suicide at move 162 (G5/R19)
    assert!(
        out.lines()
            .any(|l| l.contains("move 162 B R2") && l.contains("forbidden_point")),
        "{out}"
    );
}

/// `check` over the whole corpus (the shared one, else the fixtures): only records that
/// really contain an illegal move are reported, and each report line names its code, move and
/// point.
#[test]
fn check_over_the_corpus_reports_only_real_violations() {
    let files = corpus_files();
    let mut args = vec!["check".to_string()];
    args.extend(files.iter().map(|p| p.to_string_lossy().into_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = smartgoban(&args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let codes = [
        "two_moves_in_a_row",
        "occupied_point",
        "forbidden_point",
        "ko_recapture",
        "superko_cycle",
    ];
    for line in out.lines() {
        assert!(codes.iter().any(|c| line.contains(c)), "{line}");
        assert!(line.contains(": move "), "{line}");
    }
    // every reported file is one whose replay the rules core flags, and vice versa
    let flagged: std::collections::BTreeSet<String> = files
        .iter()
        .filter(|f| {
            !smartgoban::rules::check_record(&crate::support::read_record(f))
                .violations
                .is_empty()
        })
        .map(|f| f.to_string_lossy().into_owned())
        .collect();
    let reported: std::collections::BTreeSet<String> = out
        .lines()
        .map(|l| l[..l.find(": move ").unwrap()].to_string())
        .collect();
    assert_eq!(flagged, reported);
    let summary = format!("checked {} record(s)", files.len());
    assert!(stderr(&o).contains(&summary), "{}", stderr(&o));
}

#[test]
fn demo_writes_the_record_and_events() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("out.sgf");
    let ev = dir.path().join("events.jsonl");
    let o = smartgoban(&[
        "demo",
        "--speed",
        "max",
        "--noise",
        "clean",
        "--http",
        "127.0.0.1:0",
        "--record",
        rec.to_str().unwrap(),
        "--events",
        ev.to_str().unwrap(),
        "--exit-when-done",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("/api/v1/state"), "{stdout}");
    let sgf = std::fs::read_to_string(&rec).unwrap();
    assert!(sgf.starts_with("(;FF[4]"), "{sgf}");
    assert!(sgf.contains("CA[UTF-8]"));
    let written = smartgoban::rules::GameRecord::from_sgf_str(&sgf).unwrap();
    let source = crate::support::read_record(&root().join("assets/games/danghu03.sgf"));
    assert_eq!(written.moves.len(), source.moves.len());
    // RE in FF[4] form (黑胜14子: B+), the result as recorded kept in GC (README "API")
    assert_eq!(written.info.result, source.info.ff4_form().result);
    assert_eq!(written.info.result.as_deref(), Some("B+"));
    let gc = written.info.game_comment.as_deref().unwrap_or_default();
    assert!(gc.contains("RE as recorded: 黑胜14子"), "{gc}");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&ev)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let moves = lines.iter().filter(|v| v["kind"] == "move").count();
    assert_eq!(moves, source.moves.len());
    let seqs: Vec<u64> = lines.iter().map(|v| v["seq"].as_u64().unwrap()).collect();
    assert!(
        seqs.windows(2).all(|w| w[1] == w[0] + 1),
        "seq strictly increasing by one"
    );
}

#[test]
fn leds_test_walks_the_chain_in_the_configured_order() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("smartgoban.toml");
    std::fs::write(
        &config,
        "[leds]\ndriver = \"sim\"\nfirst = \"bottom-right\"\norder = \"serpentine-columns\"\n",
    )
    .unwrap();
    let out = smartgoban(&[
        "leds",
        "test",
        "--config",
        config.to_str().unwrap(),
        "--size",
        "9",
        "--step-ms",
        "0",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let walk: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("LED ") && l.contains(" → "))
        .map(|l| l.rsplit(' ').next().unwrap())
        .collect();
    assert_eq!(walk.len(), 81);
    // From J1 up the right column, then down the next one.
    assert_eq!(&walk[..3], ["J1", "J2", "J3"]);
    assert_eq!(&walk[8..11], ["J9", "H9", "H8"]);
    assert_eq!(walk[80], "A9");
    // The map shows LED 0 at J1 (bottom right).
    let bottom = text
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap();
    assert_eq!(bottom.split_whitespace().last(), Some("0"));
    // A bad corner is a clear error naming it.
    let out = smartgoban(&["leds", "test", "--driver", "sim", "--first", "middle"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("LED corner `middle`"),
        "{}",
        stderr(&out)
    );
    // The mcu driver without a board says so.
    let out = smartgoban(&[
        "leds",
        "test",
        "--driver",
        "mcu",
        "--serial",
        "/nonexistent/board",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("does not exist"), "{}", stderr(&out));
}

/// A 9×9 record of setup stones only: Black holds columns A–E behind a wall on E, White
/// columns F–I behind a wall on F, with a lone white stone at B8 inside Black's area.
const WALLS: &str = "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]\
    AB[ea][eb][ec][ed][ee][ef][eg][eh][ei]\
    AW[fa][fb][fc][fd][fe][ff][fg][fh][fi][bb])";

fn score_json(args: &[&str]) -> serde_json::Value {
    let o = smartgoban(args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn score_counts_a_records_last_position_by_area() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("walls.sgf");
    std::fs::write(&file, WALLS).unwrap();
    let f = file.to_str().unwrap();
    // auto: B8 is dead; Black 45 points, White 36, komi 7.5: B+1.5, ¾ stone (G9, C2)
    let s = score_json(&["score", f, "--json"]);
    assert_eq!(
        s,
        serde_json::json!({"black_area": 45, "white_area": 36, "dame": 0, "dead": ["B8"],
            "komi": 7.5, "result": "B+1.5", "margin_stones": 0.75,
            "invalid_moves_read_as_passes": []})
    );
    // none: the white stone lives, so Black's side touches both colours: 35 neutral points
    // shared half each (R21.2); Black 9 + 17.5, White 10 + 27 + 17.5: W+35.5
    let s = score_json(&["score", f, "--json", "--dead", "none"]);
    assert_eq!(
        (
            s["black_area"].clone(),
            s["white_area"].clone(),
            s["dame"].clone()
        ),
        (9.into(), 37.into(), 35.into())
    );
    assert_eq!(s["result"], "W+35.5");
    assert_eq!(s["margin_stones"], -17.75);
    // given points take their whole chain; a komi of 0.5
    let s = score_json(&["score", f, "--json", "--dead", "B8", "--komi", "0.5"]);
    assert_eq!(
        (s["result"].clone(), s["komi"].clone()),
        ("B+8.5".into(), 0.5.into())
    );
    let s = score_json(&["score", f, "--json", "--dead", "F5,B8"]);
    assert_eq!(s["dead"].as_array().unwrap().len(), 10, "the F wall and B8");
    // text for people
    let o = smartgoban(&["score", f]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("result: B+1.5"), "{text}");
    assert!(text.contains("dead: B8"), "{text}");
    assert!(!text.contains("note:"), "{text}");
}

/// A record's invalid moves are read as passes (C5/O13, R19, R18.3), so the position counted
/// is not the record's: `score` says so, in the text and in JSON.
#[test]
fn score_names_the_invalid_moves_it_read_as_passes() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("walls.sgf");
    // Black plays on its own wall at E9, White on its own at F9: neither can be played, both
    // count as passes, and the position is the setup's.
    std::fs::write(&file, WALLS.replace(")", ";B[ea];W[fa])")).unwrap();
    let f = file.to_str().unwrap();
    let s = score_json(&["score", f, "--json"]);
    assert_eq!(s["result"], "B+1.5", "the setup's count");
    assert_eq!(
        s["invalid_moves_read_as_passes"],
        serde_json::json!([
            {"number": 1, "color": "black", "point": "E9", "code": "occupied_point",
                "clause": "C5/O13"},
            {"number": 2, "color": "white", "point": "F9", "code": "occupied_point",
                "clause": "C5/O13"}
        ])
    );
    let o = smartgoban(&["score", f]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("note: 2 invalid moves of the record read as passes")
            && text.contains("not the record's")
            && text.contains("#1 black E9 (occupied_point, C5/O13)"),
        "{text}"
    );
    // a real record: a suicide (G5, R19) and a stone on an occupied point; its moves played
    // twice in a row stand, so they are not listed
    let jst43 = root().join("tests/fixtures/games/classical-chinese-yywolf1983/兼山堂/jst43.sgf");
    let s = score_json(&["score", jst43.to_str().unwrap(), "--json"]);
    let passed: Vec<(u64, &str, &str, &str)> = s["invalid_moves_read_as_passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["number"].as_u64().unwrap(),
                m["color"].as_str().unwrap(),
                m["point"].as_str().unwrap(),
                m["code"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        passed,
        [
            (162, "black", "R2", "forbidden_point"),
            (165, "white", "R3", "occupied_point")
        ]
    );
    let o = smartgoban(&["score", "--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    assert!(
        help.contains("read as passes") && help.contains("invalid_moves_read_as_passes"),
        "{help}"
    );
}

#[test]
fn score_refuses_what_it_cannot_count_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("walls.sgf");
    std::fs::write(&file, WALLS).unwrap();
    let bad = dir.path().join("bad.sgf");
    std::fs::write(&bad, "(;GM[1]SZ[19];B[dd];W[").unwrap();
    let f = file.to_str().unwrap();
    for (args, says) in [
        (vec!["score", bad.to_str().unwrap()], "bad.sgf"),
        (vec!["score", "/nonexistent/x.sgf"], "cannot read"),
        (vec!["score", f, "--dead", "Z99"], "Z99"),
        (vec!["score", f, "--dead", "A1"], "no stone"),
    ] {
        let o = smartgoban(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn demo_refuses_a_record_path_it_cannot_write_before_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("no-such-dir/out.sgf");
    // a name the record's temporary file (".NAME.tmp") cannot have: too long
    let long = dir.path().join(format!("{}.sgf", "x".repeat(248)));
    // a symbolic link to nothing is fine, and left as it is until the record replaces it
    for path in [
        bad.to_str().unwrap(),
        dir.path().to_str().unwrap(),
        long.to_str().unwrap(),
    ] {
        let o = smartgoban(&[
            "demo",
            "--speed",
            "max",
            "--http",
            "127.0.0.1:0",
            "--record",
            path,
            "--exit-when-done",
        ]);
        assert!(!o.status.success());
        let err = stderr(&o);
        assert!(err.contains("cannot write"), "{err}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(!out.contains("moves recorded"), "no game was played: {out}");
    }
    assert!(!bad.exists());
    assert!(!long.exists());
}

#[test]
fn demo_quiet_prints_the_final_summary_only() {
    let o = smartgoban(&[
        "demo",
        "-q",
        "--speed",
        "max",
        "--noise",
        "clean",
        "--http",
        "127.0.0.1:0",
        "--exit-when-done",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].starts_with("game over: "), "{out}");
    assert!(lines[0].contains("moves recorded"), "{out}");
}

#[test]
fn demo_on_a_busy_address_says_how_to_choose_another() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let o = smartgoban(&[
        "demo",
        "--speed",
        "max",
        "--http",
        &addr,
        "--exit-when-done",
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains(&format!("cannot listen on {addr}")), "{err}");
    assert!(err.contains("--http"), "{err}");
}

/// SIGTERM stops `demo` as Ctrl-C does: the record written, the temporary directory (the
/// virtual board's link) removed, exit 0.
/// A `demo` started with `args` (from the repository's root), its output read line by line.
struct Demo {
    child: std::process::Child,
    lines: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl Demo {
    fn start(args: &[&str]) -> Demo {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_smartgoban"))
            .arg("demo")
            .args(args)
            .current_dir(root())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        Demo { child, lines }
    }

    /// Reads up to and including the first line `is` accepts, returning it (panics at the
    /// end of the output).
    fn until(&mut self, is: impl Fn(&str) -> bool) -> String {
        loop {
            let line = self.lines.next().expect("demo output").unwrap();
            if is(&line) {
                return line;
            }
        }
    }

    /// Sends SIGTERM, reads the rest of the output (it closes when the demo exits: a demo
    /// that missed the signal would serve on) and asserts a clean exit; returns the rest.
    fn terminate(mut self) -> Vec<String> {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let rest: Vec<String> = self.lines.map_while(Result::ok).collect();
        let exit = self.child.wait().unwrap();
        assert!(exit.success(), "{exit:?}: {rest:?}");
        rest
    }
}

#[test]
fn demo_stopped_with_sigterm_writes_its_record_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("out.sgf");
    let mut demo = Demo::start(&["--http", "127.0.0.1:0", "--record", rec.to_str().unwrap()]);
    // the virtual board's link lives in the demo's temporary directory
    let line = demo.until(|l| l.trim().starts_with("virtual board on "));
    let rest = line.trim().trim_start_matches("virtual board on ");
    let link = std::path::PathBuf::from(rest.split(" (").next().unwrap());
    let workdir = link.parent().unwrap().to_path_buf();
    assert!(workdir.exists());
    // the first move recorded: then the signal
    demo.until(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        fields.len() >= 3 && fields[0] == "1" && ["B", "W"].contains(&fields[1])
    });
    let rest = demo.terminate();
    assert!(rest.iter().any(|l| l.starts_with("stopped: ")), "{rest:?}");
    let sgf = std::fs::read_to_string(&rec).unwrap();
    let record = smartgoban::rules::GameRecord::from_sgf_str(&sgf).unwrap();
    assert!(!record.moves.is_empty(), "{sgf}");
    assert!(!workdir.exists(), "{} left behind", workdir.display());
}

#[test]
fn a_data_directory_that_is_a_file_is_named_once_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data");
    std::fs::write(&file, "not a directory").unwrap();
    let o = smartgoban(&[
        "run",
        "--data-dir",
        file.to_str().unwrap(),
        "--serial",
        "/dev/null",
        "--http",
        "127.0.0.1:0",
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    let cause = format!(
        "the data directory {} is a file, not a directory",
        file.display()
    );
    assert_eq!(err.matches(&cause).count(), 1, "{err}");
    assert!(!err.contains("File exists"), "{err}");
    // with a slash after it, the path goes through the file
    let slashed = format!("{}/", file.display());
    let o = smartgoban(&[
        "run",
        "--data-dir",
        &slashed,
        "--serial",
        "/dev/null",
        "--http",
        "127.0.0.1:0",
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    let cause = "is not a directory: a part of its path is a file";
    assert_eq!(err.matches(cause).count(), 1, "{err}");
}

/// A SIGTERM that comes as the game ends — while the record is written and the summary
/// printed, before the demo waits to be stopped — still stops it: exit 0, nothing left behind.
#[test]
fn demo_stopped_with_sigterm_as_the_game_ends_still_stops() {
    let mut demo = Demo::start(&["--speed", "max", "--http", "127.0.0.1:0"]);
    // the result is printed before the record is written and the summary follows
    demo.until(|l| l.contains("result"));
    demo.terminate();
}

#[test]
fn demo_quiet_prints_no_warnings_of_a_faulty_link() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("faults.txt");
    std::fs::write(
        &script,
        "size 9\nat 0 place B E5\nat 500 unplug 800\nat 2000 place W C3\nat 2500 reset hello\nat 4000 place B G7\n",
    )
    .unwrap();
    let o = smartgoban(&[
        "demo",
        "-q",
        "--script",
        script.to_str().unwrap(),
        "--speed",
        "max",
        "--http",
        "127.0.0.1:0",
        "--exit-when-done",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "nothing but errors");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().count(), 1, "{out}");
}

/// `check` on records of 1, 4 and 16 MiB (the largest input read): passes by the million are
/// refused as larger than any game, a 16 MiB comment is read — each within 256 MiB of address
/// space (`prlimit`), where a Pi has 1–8 GB (it took 3 GB for the 16 MiB file).
#[test]
fn check_on_huge_records_stays_within_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let limited = |path: &std::path::Path| {
        Command::new("prlimit")
            .arg(format!("--as={}", 256u64 << 20))
            .arg("--")
            .arg(env!("CARGO_BIN_EXE_smartgoban"))
            .arg("check")
            .arg(path)
            .output()
            .expect("prlimit (util-linux)")
    };
    for mib in [1usize, 4, 16] {
        let passes = ";B[];W[]".repeat(((mib << 20) - 40) / 8);
        let path = write(
            &format!("passes-{mib}.sgf"),
            format!("(;GM[1]SZ[19]{passes})"),
        );
        let o = limited(&path);
        assert_eq!(o.status.code(), Some(2), "{mib} MiB: {}", stderr(&o));
        assert!(
            stderr(&o).contains("too large to be a game: more than 50000 nodes"),
            "{mib} MiB: {}",
            stderr(&o)
        );
    }
    let comment = "x".repeat((16 << 20) - 40);
    let path = write(
        "comment.sgf",
        format!("(;GM[1]SZ[19]C[{comment}];B[pd];W[dp])"),
    );
    let o = limited(&path);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("checked 1 record(s): 0 violation(s) in 0, 0 unreadable"),
        "{}",
        stderr(&o)
    );
}

/// The README's `sim` and `run` lines, as written (GAME.sgf the built-in game, whose four
/// setup stones are on the board before the first move; PATH a link in a scratch directory),
/// with only an address and a data directory of the test's own added to `run`: the moves
/// are recorded as played, without a warning or a violation.
#[test]
fn the_readmes_sim_and_run_lines_play_a_game_with_setup_stones() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `smartgoban sim GAME.sgf"))
        .expect("the README's sim row");
    let commands: Vec<&str> = row
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|c| c.starts_with("smartgoban sim") || c.starts_with("smartgoban run"))
        .collect();
    assert_eq!(commands.len(), 2, "{row}");
    let dir = tempfile::tempdir().unwrap();
    let game = root().join("assets/games/danghu03.sgf");
    let link = dir.path().join("board");
    let words = |command: &str| -> Vec<String> {
        command
            .split_whitespace()
            .skip(1)
            .map(|w| match w {
                "GAME.sgf" => game.to_str().unwrap().to_string(),
                "PATH" => link.to_str().unwrap().to_string(),
                w => w.to_string(),
            })
            .collect()
    };
    let spawn = |args: Vec<String>| {
        Command::new(env!("CARGO_BIN_EXE_smartgoban"))
            .args(args)
            .current_dir(root())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut sim = spawn(words(commands[0]));
    let mut run_args = words(commands[1]);
    run_args.extend([
        "--http".to_string(),
        "127.0.0.1:0".to_string(),
        "--data-dir".to_string(),
        dir.path().join("data").to_str().unwrap().to_string(),
    ]);
    let (mut run, port) = crate::support::spawn_service(
        Command::new(env!("CARGO_BIN_EXE_smartgoban"))
            .args(run_args)
            .current_dir(root())
            .stderr(std::process::Stdio::null()),
    );
    let record =
        smartgoban::rules::GameRecord::from_sgf_bytes(&std::fs::read(&game).unwrap()).unwrap();
    assert!(!record.setup.is_empty(), "a game with setup stones");
    const MOVES: u64 = 8;
    // eight moves, or a game already decided (forfeited: the failure this test is for)
    let state = wait_state(port, "eight moves", |s| {
        s["move_number"].as_u64() >= Some(MOVES) || !s["result"].is_null()
    });
    let moves: Option<serde_json::Value> = crate::support::rt().block_on(async {
        reqwest::get(format!("http://127.0.0.1:{port}/api/v1/moves"))
            .await
            .ok()?
            .json()
            .await
            .ok()
    });
    for child in [&mut run, &mut sim] {
        let _ = child.kill();
        let _ = child.wait();
    }
    assert_eq!(state["result"], serde_json::Value::Null, "{state}");
    assert_eq!(state["violations"], serde_json::json!([]), "{state}");
    assert_eq!(
        state["warnings"],
        serde_json::json!({"black": 0, "white": 0})
    );
    let played: Vec<String> = moves
        .expect("the moves")
        .as_array()
        .unwrap()
        .iter()
        .take(MOVES as usize)
        .map(|m| m["point"].as_str().unwrap_or("pass").to_string())
        .collect();
    let want: Vec<String> = record.moves[..MOVES as usize]
        .iter()
        .map(|m| m.point.map_or("pass".into(), |p| p.to_gtp(19)))
        .collect();
    assert_eq!(played, want);
}
