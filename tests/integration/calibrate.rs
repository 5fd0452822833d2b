//! `smartgoban calibrate` end to end (issue 17): a virtual board fresh from the factory
//! (`sim --firmware --uncalibrated`) with a dead and a swapped sensor, whose person follows the
//! LED prompts; the command is answered as a person answers it (Enter at the empty board, and
//! where only the dead sensor keeps a step waiting); then the service plays the game on the
//! calibrated board, records it exactly and reports the sensors in `GET state`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support::{refereed_line, root, spawn_service, state_on};

/// Lines of a child's standard output, as they come.
fn lines(out: impl std::io::Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

struct Kill(std::process::Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_board_calibrated_with_a_dead_and_a_swapped_sensor_then_plays_a_game_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("board");
    let data = dir.path().join("data");
    let game = root().join("tests/fixtures/games/classical-chinese-yywolf1983/dh10/DANGHU02.SGF");
    let mut sim = Kill(
        Command::new(env!("CARGO_BIN_EXE_smartgoban"))
            .args(["sim"])
            .arg(&game)
            .arg("--link")
            .arg(&link)
            .args([
                "--firmware",
                "--uncalibrated",
                "--sensor-faults",
                "dead=1,swapped=1",
                "--speed",
                "max",
                "--seed",
                "3",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let sim_out = lines(sim.0.stdout.take().unwrap());
    let deadline = Instant::now() + Duration::from_secs(60);
    let faults = loop {
        let line = sim_out
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("the sim prints its faulty sensors");
        if let Some(list) = line.trim().strip_prefix("faulty sensors: ") {
            break list
                .split(", ")
                .map(|f| {
                    let (p, name) = f.split_once(' ').unwrap();
                    (p.to_string(), name.to_string())
                })
                .collect::<Vec<_>>();
        }
    };
    let of = |name: &str| -> Vec<String> {
        faults
            .iter()
            .filter(|(_, f)| f == name)
            .map(|(p, _)| p.clone())
            .collect()
    };
    let (dead, swapped) = (of("dead"), of("swapped"));
    assert_eq!(dead.len(), 1, "{faults:?}");
    assert!(!swapped.is_empty());

    let mut cal = Kill(
        Command::new(env!("CARGO_BIN_EXE_smartgoban"))
            .arg("calibrate")
            .arg("--serial")
            .arg(&link)
            .arg("--data-dir")
            .arg(&data)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut stdin = cal.0.stdin.take().unwrap();
    let out = lines(cal.0.stdout.take().unwrap());
    let err = lines(cal.0.stderr.take().unwrap());
    let mut seen = Vec::new();
    let mut entered_at: Option<String> = None;
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        match out.recv_timeout(Duration::from_millis(200)) {
            Ok(line) => {
                // A person presses Enter at the empty board, and when the only point a step
                // waits for is the dead sensor's (once per step).
                let step = line.split(':').next().unwrap_or("").to_string();
                let waits_for_dead = line.contains(&format!("waiting for {},", dead[0]))
                    && line.ends_with(", still");
                if line.contains("then press Enter")
                    || (waits_for_dead && entered_at.as_deref() != Some(step.as_str()))
                {
                    stdin.write_all(b"\n").unwrap();
                    stdin.flush().unwrap();
                    entered_at = Some(step);
                }
                seen.push(line);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        assert!(
            Instant::now() < deadline,
            "calibrate did not finish:\n{}",
            seen[seen.len().saturating_sub(20)..].join("\n")
        );
    }
    let status = cal.0.wait().unwrap();
    let errors: Vec<String> = err.try_iter().collect();
    assert!(
        status.success(),
        "{status}: {errors:?}\n{}",
        seen.join("\n")
    );
    // the report names the dead and the swapped sensors, each with its advice
    let reported = |point: &str, fault: &str| {
        seen.iter().any(|l| {
            let l = l.trim_start();
            l.starts_with(&format!("{point}  ")) && l.contains(fault)
        })
    };
    assert!(reported(&dead[0], "dead"), "{}", seen.join("\n"));
    for p in &swapped {
        assert!(reported(p, "swapped"), "{p}: {}", seen.join("\n"));
    }
    // the copy in the data directory
    let kept: Vec<_> = std::fs::read_dir(data.join("calibration"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(kept.len(), 1);
    let copy: serde_json::Value =
        serde_json::from_slice(&std::fs::read(kept[0].path()).unwrap()).unwrap();
    let image = copy["report"]["image_hex"].as_str().unwrap();
    let bytes: Vec<u8> = (0..image.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&image[i..i + 2], 16).unwrap())
        .collect();
    let decoded = smartgoban_board_core::image::decode(&bytes, None).unwrap();
    assert_eq!(decoded.calibration.size().get(), 19);

    // the service plays the game on the calibrated board
    let (run, port) = spawn_service(
        Command::new(env!("CARGO_BIN_EXE_smartgoban"))
            .arg("run")
            .arg("--serial")
            .arg(&link)
            .arg("--game")
            .arg(&game)
            .args(["--http", "127.0.0.1:0"])
            .arg("--data-dir")
            .arg(dir.path().join("run"))
            .env("SMARTGOBAN_LOG", "debug")
            .stderr(std::fs::File::create(dir.path().join("run.log")).unwrap()),
    );
    // what the service logged but its moves (the link, passes, violations, other events), for
    // a failure
    let run_log = || {
        let log = std::fs::read_to_string(dir.path().join("run.log")).unwrap_or_default();
        let lines: Vec<&str> = log
            .lines()
            .filter(|l| !(l.contains("kind=\"move\"") || l.contains("kind=move")))
            .collect();
        lines[lines.len().saturating_sub(150)..].join("\n")
    };
    let _run = Kill(run);
    let record =
        smartgoban::rules::GameRecord::from_sgf_bytes(&std::fs::read(&game).unwrap()).unwrap();
    let want = refereed_line(&record);
    let expected: Vec<(String, Option<String>)> = want
        .iter()
        .map(|(c, p)| {
            (
                if *c == smartgoban::rules::Color::Black {
                    "black".to_string()
                } else {
                    "white".to_string()
                },
                p.map(|p| p.to_gtp(19)),
            )
        })
        .collect();
    // the moves the service published, as (colour, point)
    let published = || -> Vec<(String, Option<String>)> {
        let moves: serde_json::Value = crate::support::rt().block_on(async {
            reqwest::get(format!("http://127.0.0.1:{port}/api/v1/moves"))
                .await
                .unwrap()
                .json()
                .await
                .unwrap()
        });
        moves
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["color"].as_str().unwrap().to_string(),
                    m["point"].as_str().map(str::to_string),
                )
            })
            .collect()
    };
    // the first move where the published moves differ from the game's
    let first_difference = |got: &[(String, Option<String>)]| {
        (0..got.len().max(expected.len()))
            .find(|&i| got.get(i) != expected.get(i))
            .map(|i| format!("move {}: {:?} for {:?}", i + 1, got.get(i), expected.get(i)))
    };
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut last = None;
    let state = loop {
        if let Some(s) = state_on(port) {
            if s["move_number"].as_u64() == Some(want.len() as u64) {
                break s;
            }
            last = Some(s);
        }
        assert!(
            Instant::now() < deadline,
            "the game was not played out ({} moves; {:?}): {last:?}\nthe service's log:\n{}",
            want.len(),
            first_difference(&published()),
            run_log()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    let sensors = &state["sensors"];
    assert_eq!(sensors["calibrated"], true, "{sensors}");
    let dead_points: Vec<&str> = sensors["faults"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["faults"].as_array().unwrap().iter().any(|x| x == "dead"))
        .map(|f| f["point"].as_str().unwrap())
        .collect();
    assert_eq!(dead_points, [dead[0].as_str()], "{sensors}");
    let got = published();
    assert_eq!(
        first_difference(&got),
        None,
        "the service's log:\n{}",
        run_log()
    );
    drop(sim);
}
