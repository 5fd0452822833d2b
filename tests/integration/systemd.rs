//! `smartgoban run` under a stand-in for systemd (issue 16): the notify socket (a unix
//! datagram socket given as `$NOTIFY_SOCKET`, `$WATCHDOG_USEC` and `$WATCHDOG_PID` set as
//! systemd sets them), SIGTERM mid-game, the unit checked by `systemd-analyze`, and
//! `systemd/install.sh` into a scratch root.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use smartgoban::sim::{NoiseModel, Playing, Source, Speed};

use crate::support::{root, state_on};

/// The stand-in manager: its socket, and what it heard (each datagram's lines with the time
/// they came), read all along by a thread of its own as systemd does.
struct Manager {
    path: PathBuf,
    heard: std::sync::Arc<std::sync::Mutex<Vec<(Instant, String)>>>,
}

impl Manager {
    fn bind(dir: &Path) -> Manager {
        let path = dir.join("notify.sock");
        let socket = UnixDatagram::bind(&path).unwrap();
        let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let into = heard.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = socket.recv(&mut buf) {
                let now = Instant::now();
                let mut heard = into.lock().unwrap();
                for line in String::from_utf8_lossy(&buf[..n]).lines() {
                    heard.push((now, line.to_string()));
                }
            }
        });
        Manager { path, heard }
    }

    /// Waits until `done` accepts what was heard so far, for at most `secs`.
    fn listen_until(&self, what: &str, secs: u64, done: impl Fn(&[(Instant, String)]) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        while !done(&self.heard.lock().unwrap()) {
            assert!(
                Instant::now() < deadline,
                "never: {what}; heard {:?}",
                self.lines()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn lines(&self) -> Vec<String> {
        self.heard
            .lock()
            .unwrap()
            .iter()
            .map(|(_, l)| l.clone())
            .collect()
    }

    /// When each `WATCHDOG=1` came.
    fn pings(&self) -> Vec<Instant> {
        self.heard
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, l)| l == "WATCHDOG=1")
            .map(|(t, _)| *t)
            .collect()
    }
}

/// `smartgoban run` as systemd starts it: `$WATCHDOG_PID` is the service's own pid (the shell
/// `exec`s it), stdout read for the API's address.
fn start_run(
    dir: &Path,
    notify_socket: &Path,
    watchdog_usec: u64,
    extra_env: &[(&str, &str)],
) -> (Child, u16) {
    let game = dir.join("game.sgf");
    std::fs::write(&game, smartgoban::cli::source::BUILTIN_GAME).unwrap();
    let config = dir.join("smartgoban.toml");
    std::fs::write(
        &config,
        format!(
            "serial = {:?}\nhttp = \"127.0.0.1:0\"\ndata_dir = {:?}\ncommit_ms = 0\n[leds]\ndriver = \"mcu\"\n",
            dir.join("board").to_str().unwrap(),
            dir.join("data").to_str().unwrap()
        ),
    )
    .unwrap();
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("WATCHDOG_PID=$$ exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_smartgoban"))
        .args(["run", "--config"])
        .arg(&config)
        .arg("--game")
        .arg(&game)
        .env("NOTIFY_SOCKET", notify_socket)
        .env("WATCHDOG_USEC", watchdog_usec.to_string())
        .env_remove("SMARTGOBAN_TEST_HANG_AFTER_MS")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let port = line
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no API address in {line:?}"));
    (child, port)
}

fn wait_state(port: u16, what: &str, is: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let state = state_on(port);
        if let Some(s) = state.as_ref().filter(|s| is(s)) {
            return s.clone();
        }
        assert!(
            Instant::now() < deadline,
            "never: {what}; the state: {state:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn wait_exit(child: &mut Child, secs: u64) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

fn sigterm(child: &Child) {
    let ok = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -TERM");
}

/// The virtual board with the built-in game, plugged in at `dir/board`.
fn plug_in_board(dir: &Path) -> smartgoban::sim::SimHandle {
    let record =
        smartgoban::rules::GameRecord::from_sgf_bytes(smartgoban::cli::source::BUILTIN_GAME)
            .unwrap();
    let playing = Playing {
        noise: NoiseModel::Clean,
        seed: 1,
        speed: Speed::Factor(4.0),
        press_clock: false,
        firmware: false,
        sensor_faults: Default::default(),
        uncalibrated: false,
    };
    smartgoban::sim::start(&Source::Record(record), playing, dir.join("board"), 1).unwrap()
}

/// READY=1 once the API answers (before the board is there), STATUS lines from "waiting for
/// the board" to the game's moves, WATCHDOG=1 at least every `WATCHDOG_USEC`; then SIGTERM
/// mid-game: STOPPING=1, the board's LEDs all dark, the record intact, exit 0 within the
/// unit's TimeoutStopSec (15 s).
#[test]
fn run_under_systemd_notifies_pings_reports_and_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let manager = Manager::bind(dir.path());
    let usec = 2_000_000;
    let (mut run, port) = start_run(dir.path(), &manager.path, usec, &[]);
    manager.listen_until("READY=1", 60, |h| h.iter().any(|(_, l)| l == "READY=1"));
    let state = state_on(port).expect("the API answers once READY=1 is sent");
    assert_eq!(state["link"]["state"], "lost", "no board yet: {state}");
    manager.listen_until("the status says it waits for the board", 30, |h| {
        h.iter()
            .any(|(_, l)| l.starts_with("STATUS=waiting for the board"))
    });

    let device = plug_in_board(dir.path());
    let moves_seen = wait_state(port, "twelve moves", |s| {
        s["move_number"].as_u64().is_some_and(|n| n >= 12)
    })["move_number"]
        .as_u64()
        .unwrap();
    manager.listen_until("a status line with the game's moves", 30, |h| {
        h.iter()
            .any(|(_, l)| l.starts_with("STATUS=game in progress, move "))
    });
    // Pings kept coming all along, never further apart than the watchdog's timeout.
    let pings = manager.pings();
    assert!(pings.len() >= 2, "{:?}", manager.lines());
    for gap in pings.windows(2).map(|w| w[1] - w[0]) {
        assert!(
            gap < Duration::from_micros(usec),
            "a {gap:?} gap between pings"
        );
    }
    // Move numbers only go up in the status.
    let numbers: Vec<u64> = manager
        .lines()
        .iter()
        .filter_map(|l| l.strip_prefix("STATUS=game in progress, move "))
        .filter_map(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert!(numbers.windows(2).all(|w| w[0] <= w[1]), "{numbers:?}");

    // The LEDs were lit before the stop (the last move, the star points).
    let lit = |frame: &smartgoban_protocol::LedFrame| {
        let n = usize::from(frame.board_size().get()).pow(2);
        (0..n).any(|i| frame.color_at(i, 0) != [0, 0, 0] || frame.color_at(i, 500) != [0, 0, 0])
    };
    assert!(device.leds().as_ref().is_some_and(lit), "LEDs lit in play");

    sigterm(&run);
    let status = wait_exit(&mut run, 15).expect("exit within TimeoutStopSec");
    assert!(status.success(), "{status:?}");
    manager.listen_until("STOPPING=1", 5, |h| {
        h.iter().any(|(_, l)| l == "STOPPING=1")
    });
    // The board's frame is all dark.
    let deadline = Instant::now() + Duration::from_secs(10);
    while device.leds().as_ref().is_some_and(lit) {
        assert!(
            Instant::now() < deadline,
            "the LEDs stay lit after the stop"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The record: every move seen before the stop, in the game's order.
    let sgf = std::fs::read(dir.path().join("data/current.sgf")).unwrap();
    let kept = smartgoban::rules::GameRecord::from_sgf_bytes(&sgf).unwrap();
    let game = smartgoban::rules::GameRecord::from_sgf_bytes(smartgoban::cli::source::BUILTIN_GAME)
        .unwrap();
    assert!(
        kept.moves.len() as u64 >= moves_seen,
        "{} < {moves_seen}",
        kept.moves.len()
    );
    for (i, (k, g)) in kept.moves.iter().zip(&game.moves).enumerate() {
        assert_eq!((k.color, k.point), (g.color, g.point), "move {}", i + 1);
    }
    let _ = device.stop();
}

/// A daemon loop that hangs (the test hook) stops the pings while the process lives on and
/// its API still answers: systemd's watchdog would restart it.
#[test]
fn a_hung_daemon_loop_stops_the_watchdog_pings() {
    let dir = tempfile::tempdir().unwrap();
    let manager = Manager::bind(dir.path());
    let usec = 400_000;
    let (mut run, port) = start_run(
        dir.path(),
        &manager.path,
        usec,
        &[("SMARTGOBAN_TEST_HANG_AFTER_MS", "3000")],
    );
    manager.listen_until("READY=1 and pings", 60, |h| {
        h.iter().any(|(_, l)| l == "READY=1")
            && h.iter().filter(|(_, l)| l == "WATCHDOG=1").count() >= 3
    });
    // After the hang: no ping for ten watchdog timeouts.
    manager.listen_until("pings to stop", 120, |h| {
        let last = h
            .iter()
            .rev()
            .find(|(_, l)| l == "WATCHDOG=1")
            .map(|(t, _)| *t);
        last.is_some_and(|t| t.elapsed() >= Duration::from_micros(10 * usec))
    });
    assert!(run.try_wait().unwrap().is_none(), "the process lives on");
    let answered = std::net::TcpStream::connect(("127.0.0.1", port)).and_then(|mut s| {
        use std::io::{Read, Write};
        s.set_read_timeout(Some(Duration::from_secs(30)))?;
        s.write_all(b"GET /api/v1/state HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")?;
        let mut head = [0u8; 12];
        s.read_exact(&mut head)?;
        Ok(head)
    });
    assert!(
        answered
            .as_ref()
            .is_ok_and(|h| h.starts_with(b"HTTP/1.1 200")),
        "the API still answers: {answered:?}"
    );
    let _ = run.kill();
    let _ = run.wait();
}

/// A manager that never reads its socket (its queue full) never stalls the game: the
/// notices are dropped, the moves go on.
#[test]
fn a_manager_that_does_not_read_never_stalls_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("deaf.sock");
    let _deaf = UnixDatagram::bind(&socket).unwrap();
    // a ping every 50 ms fills a unix socket's queue within a second
    let (mut run, port) = start_run(dir.path(), &socket, 100_000, &[]);
    let device = plug_in_board(dir.path());
    wait_state(port, "twelve moves with a deaf manager", |s| {
        s["move_number"].as_u64().is_some_and(|n| n >= 12)
    });
    sigterm(&run);
    let status = wait_exit(&mut run, 15).expect("exit within TimeoutStopSec");
    assert!(status.success(), "{status:?}");
    let _ = device.stop();
}

/// The unit as installed passes `systemd-analyze verify`, and `systemd-analyze security`
/// scores it under 3.0 (issue 16). Skipped with a note where systemd's tools are missing,
/// unless `SMARTGOBAN_REQUIRE_SYSTEMD_ANALYZE=1` (CI).
#[test]
fn the_unit_verifies_and_scores_under_3() {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("SMARTGOBAN_REQUIRE_SYSTEMD_ANALYZE").is_none(),
            "systemd-analyze is required"
        );
        eprintln!("note: no systemd-analyze here; the unit check is skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let unit = std::fs::read_to_string(root().join("systemd/smartgoban.service")).unwrap();
    // the binary where the unit names it, here the one under test
    let unit = unit.replace(
        "/usr/local/bin/smartgoban",
        env!("CARGO_BIN_EXE_smartgoban"),
    );
    let path = dir.path().join("smartgoban.service");
    std::fs::write(&path, unit).unwrap();
    let verify = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&path)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&verify.stderr).into_owned();
    assert!(verify.status.success(), "{said}");
    assert!(
        !said.contains("smartgoban.service"),
        "verify complains about the unit: {said}"
    );
    let security = Command::new("systemd-analyze")
        .args(["security", "--offline=true"])
        .arg(&path)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&security.stdout).into_owned();
    let score: f64 = out
        .lines()
        .find_map(|l| {
            l.split("Overall exposure level for smartgoban.service: ")
                .nth(1)
        })
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| panic!("no score in {out}"));
    eprintln!("systemd-analyze security: {score}");
    assert!(score < 3.0, "exposure {score}\n{out}");
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// `systemd/install.sh` with `DESTDIR`: every file where the README says, with its mode; the
/// configuration kept on a second install; `uninstall` removes all but the configuration.
#[test]
fn install_into_a_scratch_root_and_uninstall() {
    let dest = tempfile::tempdir().unwrap();
    let d = dest.path();
    let script = |action: &str| {
        let o = Command::new("sh")
            .arg(root().join("systemd/install.sh"))
            .arg(action)
            .env("DESTDIR", d)
            .env("BINARY", env!("CARGO_BIN_EXE_smartgoban"))
            .env_remove("PREFIX")
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{out}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        out
    };
    let out = script("install");
    let files = [
        ("usr/local/bin/smartgoban", 0o755),
        ("etc/systemd/system/smartgoban.service", 0o644),
        ("usr/lib/sysusers.d/smartgoban.conf", 0o644),
        ("etc/udev/rules.d/99-smartgoban.rules", 0o644),
        ("etc/smartgoban/smartgoban.toml", 0o644),
        ("usr/share/smartgoban/voice/en/1.wav", 0o644),
        ("usr/share/smartgoban/voice/zh/1.wav", 0o644),
        ("usr/local/share/doc/smartgoban/README.md", 0o644),
    ];
    for (f, m) in files {
        let p = d.join(f);
        assert!(p.exists(), "{f} missing\n{out}");
        assert_eq!(mode(&p), m, "{f}: mode {:o}", mode(&p));
    }
    let same = |a: &str, b: &str| {
        assert_eq!(
            std::fs::read(d.join(a)).unwrap(),
            std::fs::read(root().join(b)).unwrap(),
            "{a}"
        );
    };
    same("etc/smartgoban/smartgoban.toml", "systemd/smartgoban.toml");
    same(
        "usr/lib/sysusers.d/smartgoban.conf",
        "systemd/smartgoban.sysusers",
    );
    same(
        "etc/udev/rules.d/99-smartgoban.rules",
        "systemd/99-smartgoban.rules",
    );
    same(
        "etc/systemd/system/smartgoban.service",
        "systemd/smartgoban.service",
    );
    assert_eq!(
        std::fs::read(d.join("usr/local/bin/smartgoban")).unwrap(),
        std::fs::read(env!("CARGO_BIN_EXE_smartgoban")).unwrap()
    );
    assert!(
        out.contains("would run: systemctl enable --now smartgoban.service"),
        "{out}"
    );
    // A person's configuration survives a second install.
    let conf = d.join("etc/smartgoban/smartgoban.toml");
    std::fs::write(&conf, "serial = \"/dev/ttyACM0\"\n").unwrap();
    let again = script("install");
    assert!(
        again.contains("kept /etc/smartgoban/smartgoban.toml"),
        "{again}"
    );
    assert_eq!(
        std::fs::read_to_string(&conf).unwrap(),
        "serial = \"/dev/ttyACM0\"\n"
    );
    let out = script("uninstall");
    for (f, _) in files {
        if f != "etc/smartgoban/smartgoban.toml" {
            assert!(!d.join(f).exists(), "{f} left behind\n{out}");
        }
    }
    assert!(conf.exists(), "the configuration is kept");
    assert!(out.contains("would run: systemctl disable --now smartgoban.service"));
}

/// A binary that is not there is a clear error of the installer, nothing installed.
#[test]
fn install_without_a_binary_is_a_clear_error() {
    let dest = tempfile::tempdir().unwrap();
    let o = Command::new("sh")
        .arg(root().join("systemd/install.sh"))
        .env("DESTDIR", dest.path())
        .env("BINARY", dest.path().join("no-such-binary"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("cargo build --release"), "{e}");
    assert_eq!(std::fs::read_dir(dest.path()).unwrap().count(), 0);
}

/// The udev rule (`systemd/99-smartgoban.rules`) matches what the firmware says on USB
/// (`smartgoban_board_core::usb`): every rule line matches the tty subsystem, the vendor id,
/// the product id and the product string, and between them they name `/dev/smartgoban` and
/// `/dev/smartgoban-by-serial/<serial>` (the latter only when the serial number is known).
#[test]
fn the_udev_rule_matches_the_firmware_usb_ids() {
    use smartgoban_board_core::usb;
    let text = std::fs::read_to_string(root().join("systemd/99-smartgoban.rules")).unwrap();
    let rules: Vec<Vec<(String, String, String)>> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            line.split(", ")
                .map(|pair| {
                    let at = pair
                        .find(['=', '!', '+'])
                        .unwrap_or_else(|| panic!("no operator in {pair:?}"));
                    let (key, rest) = pair.split_at(at);
                    let op_len = rest.find('"').unwrap_or_else(|| panic!("{pair:?}"));
                    let (op, value) = rest.split_at(op_len);
                    let value = value
                        .strip_prefix('"')
                        .and_then(|v| v.strip_suffix('"'))
                        .unwrap_or_else(|| panic!("unquoted value in {pair:?}"));
                    (key.to_owned(), op.to_owned(), value.to_owned())
                })
                .collect()
        })
        .collect();
    assert_eq!(rules.len(), 2, "{text}");
    let vendor = format!("{:04x}", usb::VENDOR_ID);
    let product_id = format!("{:04x}", usb::PRODUCT_ID);
    let get = |rule: &[(String, String, String)], key: &str, op: &str| -> Vec<String> {
        rule.iter()
            .filter(|(k, o, _)| k == key && o == op)
            .map(|(_, _, v)| v.clone())
            .collect()
    };
    let mut links = Vec::new();
    for rule in &rules {
        assert_eq!(get(rule, "SUBSYSTEM", "=="), ["tty"], "{rule:?}");
        assert_eq!(get(rule, "ATTRS{idVendor}", "=="), [vendor.as_str()]);
        assert_eq!(get(rule, "ATTRS{idProduct}", "=="), [product_id.as_str()]);
        assert_eq!(get(rule, "ATTRS{product}", "=="), [usb::PRODUCT]);
        links.extend(get(rule, "SYMLINK", "+="));
    }
    assert_eq!(
        links,
        ["smartgoban", "smartgoban-by-serial/$env{ID_SERIAL_SHORT}"]
    );
    // The per-serial link is only made when udev knows the serial number.
    assert_eq!(get(&rules[1], "ENV{ID_SERIAL_SHORT}", "=="), ["?*"]);
    // The group that may open it is the one the service's unit runs with.
    assert_eq!(get(&rules[0], "GROUP", "="), ["dialout"]);
    let unit = std::fs::read_to_string(root().join("systemd/smartgoban.service")).unwrap();
    assert!(
        unit.lines().any(|l| l.starts_with("SupplementaryGroups=")
            && l.split(['=', ' ']).any(|g| g == "dialout")),
        "the unit does not join dialout:\n{unit}"
    );
}
