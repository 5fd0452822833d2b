//! Shared helpers of the integration tests.

use smartgoban_protocol::PROTOCOL_VERSION;
use std::path::{Path, PathBuf};

use smartgoban::cli::demo::{self, DemoSummary};
use smartgoban::cli::{BoardArgs, DemoArgs};
use smartgoban::rules::{check_record, Color, GameRecord, Point};
use smartgoban::sim::{NoiseModel, Speed};

/// The referee token of the test rig's service.
pub const TEST_TOKEN: &str = "0123456789abcdef0123456789abcdef";

/// The project root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The full corpus of real games if this checkout sits beside `shared/`, else `None`.
pub fn shared_corpus() -> Option<PathBuf> {
    let dir = root().join("../shared/data/games");
    dir.join("MANIFEST.tsv").exists().then_some(dir)
}

/// The games the tests replay: the whole shared corpus when present, else the fixtures that
/// travel with the project.
pub fn corpus_files() -> Vec<PathBuf> {
    let dir = shared_corpus().unwrap_or_else(|| root().join("tests/fixtures/games"));
    let mut files = Vec::new();
    collect_sgf(&dir, &mut files);
    files.sort();
    files
}

fn collect_sgf(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_sgf(&p, out);
        } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
            out.push(p);
        }
    }
}

/// Demo arguments for a test run: full speed, no output, exit at the end, any free port.
pub fn demo_args(game: Option<&Path>, noise: NoiseModel, seed: u64) -> DemoArgs {
    DemoArgs {
        game: game.map(Path::to_path_buf),
        board: BoardArgs {
            script: None,
            noise,
            seed,
            speed: Speed::Max,
            firmware: false,
            sensor_faults: Default::default(),
            uncalibrated: false,
        },
        http: "127.0.0.1:0".parse().unwrap(),
        record: None,
        events: None,
        data_dir: None,
        exit_when_done: true,
        settle_ms: 150,
        profile: None,
        cycles: None,
        time: None,
        referee: None,
        quiet: true,
        mqtt: smartgoban::cli::MqttArgs {
            mqtt: None,
            hall: None,
            board_id: None,
        },
    }
}

/// Runs the demo (virtual board → pty → service) on a record file.
pub async fn replay(path: &Path, noise: NoiseModel, seed: u64) -> Result<DemoSummary, String> {
    replay_with(path, noise, seed, false).await
}

/// [`replay`], the virtual board read through Hall sensors and the firmware's logic when
/// `firmware` (`--firmware`).
pub async fn replay_with(
    path: &Path,
    noise: NoiseModel,
    seed: u64,
    firmware: bool,
) -> Result<DemoSummary, String> {
    replay_with_faults(path, noise, seed, firmware, Default::default()).await
}

/// [`replay_with`] through the firmware's sensors with `faults` added (`--sensor-faults`).
pub async fn replay_with_faults(
    path: &Path,
    noise: NoiseModel,
    seed: u64,
    firmware: bool,
    faults: smartgoban::sim::hall::SensorFaults,
) -> Result<DemoSummary, String> {
    let mut args = demo_args(Some(path), noise, seed);
    args.board.firmware = firmware;
    args.board.sensor_faults = faults;
    demo::run(args)
        .await
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The main line as a referee at the board records it (illegal placements become passes).
pub fn refereed_line(record: &GameRecord) -> Vec<(Color, Option<Point>)> {
    check_record(record).refereed
}

/// Compares what the service recorded with the source record; `Err` explains the first
/// difference.
pub fn compare(source: &GameRecord, summary: &DemoSummary) -> Result<(), String> {
    let want = refereed_line(source);
    let got: Vec<(Color, Option<Point>)> = summary
        .record
        .moves
        .iter()
        .map(|m| (m.color, m.point))
        .collect();
    let size = source.info.size;
    let show = |m: Option<&(Color, Option<Point>)>| match m {
        None => "nothing".to_string(),
        Some((c, p)) => format!(
            "{} {}",
            c.sgf_letter(),
            p.map_or("pass".to_string(), |p| p.to_gtp(size))
        ),
    };
    if let Some(i) = (0..want.len().max(got.len())).find(|&i| want.get(i) != got.get(i)) {
        let st = &summary.snapshot.state;
        return Err(format!(
            "move {}: expected {}, recorded {} ({} recorded of {}; phase {}, guidance {:?})",
            i + 1,
            show(want.get(i)),
            show(got.get(i)),
            got.len(),
            want.len(),
            st.phase.as_str(),
            st.guidance
        ));
    }
    let mut setup_want = source.setup.clone();
    let mut setup_got = summary.record.setup.clone();
    setup_want.sort_by_key(|&(c, p)| (c.sgf_letter(), p.index(size)));
    setup_got.sort_by_key(|&(c, p)| (c.sgf_letter(), p.index(size)));
    if setup_want != setup_got {
        return Err(format!(
            "setup stones differ: {setup_want:?} vs {setup_got:?}"
        ));
    }
    // the record is written in FF[4] form (RE[黑胜] is RE[B+], README "API")
    let source_info = source.info.ff4_form();
    let (si, gi) = (&source_info, &summary.record.info);
    let trim = |s: &Option<String>| {
        s.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    for (what, a, b) in [
        ("PB", &si.black, &gi.black),
        ("PW", &si.white, &gi.white),
        ("RE", &si.result, &gi.result),
    ] {
        if trim(a) != trim(b) {
            return Err(format!("{what} differs: {a:?} vs {b:?}"));
        }
    }
    if si.handicap != gi.handicap {
        return Err(format!("HA differs: {} vs {}", si.handicap, gi.handicap));
    }
    Ok(())
}

/// Runs `jobs` with at most `parallel` at a time on a multi-threaded runtime; returns every
/// error message.
pub fn run_all<F, Fut>(items: Vec<(PathBuf, u64)>, parallel: usize, job: F) -> Vec<String>
where
    F: Fn(PathBuf, u64) -> Fut + Send + Sync + 'static + Clone,
    Fut: std::future::Future<Output = Result<(), String>> + Send + 'static,
{
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let sem = std::sync::Arc::new(tokio::sync::Semaphore::new(parallel));
        let mut set = tokio::task::JoinSet::new();
        for (path, seed) in items {
            let permit = sem.clone().acquire_owned().await.unwrap();
            let job = job.clone();
            set.spawn(async move {
                let r = job(path, seed).await;
                drop(permit);
                r
            });
        }
        let mut errors = Vec::new();
        while let Some(r) = set.join_next().await {
            match r {
                Ok(Ok(())) => {}
                Ok(Err(e)) => errors.push(e),
                Err(e) => errors.push(format!("task failed: {e}")),
            }
        }
        errors.sort();
        errors
    })
}

/// Reads a record file.
pub fn read_record(path: &Path) -> GameRecord {
    GameRecord::from_sgf_bytes(&std::fs::read(path).unwrap()).unwrap()
}

/// Each move of `record` with the mover's clock reading (SGF BL/WL ms, OB/OW periods).
pub fn moves_with_readings(record: &GameRecord) -> Vec<(String, Option<u64>, Option<u32>)> {
    record
        .moves
        .iter()
        .map(|m| {
            (
                format!("{}{:?}", m.color.sgf_letter(), m.point),
                m.time_left_ms,
                m.periods_left,
            )
        })
        .collect()
}

/// Writes the config of `smartgoban run` in `dir` (`smartgoban.toml`): the board at
/// `dir/board`, the store in `dir/data`, a 19×19 game of `komi` points with the clock `time`.
/// Returns the paths of the config, the link and the data directory.
pub fn run_config(dir: &Path, komi: f64, time: &str) -> (PathBuf, PathBuf, PathBuf) {
    let link = dir.join("board");
    let data = dir.join("data");
    let config = dir.join("smartgoban.toml");
    std::fs::write(
        &config,
        format!(
            "serial = {link:?}\nhttp = \"127.0.0.1:0\"\ndata_dir = {data:?}\n\
             [game]\nsize = 19\nkomi = {komi}\ntime = \"{time}\"\n"
        ),
    )
    .unwrap();
    (config, link, data)
}

/// A service on the board at `link` for a game of `setup`: no API, no store, no LEDs; the
/// rest as the defaults (fields to change go before `..daemon_config(…)`).
pub fn daemon_config(
    link: &Path,
    setup: &smartgoban::referee::GameSetup,
) -> smartgoban::daemon::DaemonConfig {
    smartgoban::daemon::DaemonConfig {
        supervision: Default::default(),
        recovery: Default::default(),
        serial: link.to_path_buf(),
        session: Default::default(),
        link: Default::default(),
        setup: setup.clone(),
        events_out: None,
        data_dir: None,
        clock_hardware: Default::default(),
        leds: None,
        access: Default::default(),
    }
}

/// A virtual board and a real service wired together, with the API on 127.0.0.1:0.
pub struct Rig {
    /// The service.
    pub daemon: smartgoban::cli::service::Service,
    /// The virtual board.
    pub device: smartgoban::sim::SimHandle,
    _dir: tempfile::TempDir,
}

/// What a [`Rig`] starts with besides the game, the noise, the seed and the speed: each field's
/// default is the common case (no clock hardware, no data directory, the newest protocol,
/// public reads).
pub struct RigOptions {
    /// Clock hardware (simulated buttons and faces); none by default.
    pub clock_hardware: smartgoban::daemon::ClockHardware,
    /// The data directory (the store, `current.sgf`); none by default: the record in memory.
    pub data_dir: Option<PathBuf>,
    /// The board speaks protocol versions 1 to this (2: a board that keeps no history).
    pub protocol_version: u8,
    /// `[api] public_reads`: `false` makes every read need the token.
    pub public_reads: bool,
    /// `[api]` connection and follower limits; the defaults by default.
    pub limits: smartgoban::api::Limits,
}

impl Default for RigOptions {
    fn default() -> RigOptions {
        RigOptions {
            clock_hardware: Default::default(),
            data_dir: None,
            protocol_version: PROTOCOL_VERSION,
            public_reads: true,
            limits: Default::default(),
        }
    }
}

impl Rig {
    /// Starts `source` on the virtual board at `speed` and the service on it.
    pub async fn start(
        source: smartgoban::sim::Source,
        noise: NoiseModel,
        seed: u64,
        speed: Speed,
    ) -> Rig {
        Rig::start_with(source, noise, seed, speed, RigOptions::default()).await
    }

    /// [`Rig::start`] with `options` (clock hardware, a data directory, an older board, private
    /// reads, API limits).
    pub async fn start_with(
        source: smartgoban::sim::Source,
        noise: NoiseModel,
        seed: u64,
        speed: Speed,
        options: RigOptions,
    ) -> Rig {
        let RigOptions {
            clock_hardware,
            data_dir,
            protocol_version,
            public_reads,
            limits,
        } = options;
        use smartgoban::cli::service::Service;
        use smartgoban::daemon::DaemonConfig;
        let setup = source.setup();
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("board");
        let playing = smartgoban::sim::Playing {
            noise,
            seed,
            speed,
            press_clock: false,
            firmware: false,
            sensor_faults: Default::default(),
            uncalibrated: false,
        };
        let device =
            smartgoban::sim::start_version(&source, playing, link.clone(), 1, protocol_version)
                .unwrap();
        let daemon = Service::start(
            DaemonConfig {
                supervision: Default::default(),
                recovery: Default::default(),
                serial: link,
                session: Default::default(),
                link: Default::default(),
                setup,
                events_out: None,
                data_dir,
                clock_hardware,
                leds: Some(smartgoban::daemon::LedOutput {
                    driver: Box::new(smartgoban::devices::leds::McuLeds::default()),
                    settings: Default::default(),
                }),
                access: smartgoban::daemon::ApiAccess {
                    token: Some(TEST_TOKEN.to_string()),
                    public_reads,
                },
            },
            Some("127.0.0.1:0".parse().unwrap()),
            limits,
        )
        .await
        .unwrap();
        Rig {
            daemon,
            device,
            _dir: dir,
        }
    }

    /// Starts a board script (see README, "Board scripts") like [`Rig::start`].
    pub async fn script(text: &str, noise: NoiseModel, seed: u64, speed: Speed) -> Rig {
        let script = smartgoban::sim::Script::parse(text).expect("script parses");
        Rig::start(smartgoban::sim::Source::Script(script), noise, seed, speed).await
    }

    /// `POST path` with the referee's token and `body`: the status and the body text.
    pub async fn act(&self, path: &str, body: serde_json::Value) -> (u16, String) {
        let resp = reqwest::Client::new()
            .post(self.url(path))
            .bearer_auth(TEST_TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap();
        (resp.status().as_u16(), resp.text().await.unwrap())
    }

    /// `GET path` as JSON, with the referee's token (`live`) or as the public.
    pub async fn get_json(&self, path: &str, live: bool) -> serde_json::Value {
        let mut req = reqwest::Client::new().get(self.url(path));
        if live {
            req = req.bearer_auth(TEST_TOKEN);
        }
        req.send().await.unwrap().json().await.unwrap()
    }

    /// Base URL of the API.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.daemon.http_addr().unwrap())
    }

    /// Waits until the board has played everything out and the service has taken it in: see
    /// [`wait_played_out`].
    pub async fn wait_done(&self) {
        let board = || (self.device.try_done(), self.device.scan_counter());
        if let Err(e) = wait_played_out(board, self.daemon.shared()).await {
            panic!("{e}");
        }
    }

    /// Every event so far, as JSON.
    pub fn events(&self) -> Vec<serde_json::Value> {
        self.daemon
            .shared()
            .log
            .since(0)
            .iter()
            .map(|e| serde_json::to_value(&**e).unwrap())
            .collect()
    }

    /// Stops both; returns the final snapshot.
    pub async fn stop(self) -> std::sync::Arc<smartgoban::daemon::Snapshot> {
        let snapshot = self.daemon.shutdown().await.unwrap();
        self.device.stop().unwrap();
        snapshot
    }
}

/// How long the virtual board may go without sending a scan, or the service without taking one
/// in, before a wait for them gives up: generous, for a loaded machine.
pub const STALL: std::time::Duration = std::time::Duration::from_secs(60);

/// Waits until `device` has played its timeline out and the service of `shared` has taken in
/// the timeline's last scan in the board's last session. That is the end of everything the
/// board's scans cause: the service publishes the counter of the last scan it took in only
/// with the snapshot and the events that scan caused (`Shared::last_scan_counter`), so the
/// counter and the board sessions are read from one snapshot (a board counts its scans again from
/// 0 in each session). Gives up with `Err` when the board or the service makes no progress
/// for [`STALL`]. `board` asks the virtual board for its report (`try_done`) and its scan
/// counter (a closure, so that a caller that must be `Send` can lend the board mutably).
pub async fn wait_played_out(
    mut board: impl FnMut() -> (Option<smartgoban::sim::SimReport>, u32),
    shared: &smartgoban::daemon::Shared,
) -> Result<smartgoban::sim::SimReport, String> {
    use std::time::{Duration, Instant};
    // `try_done` hands its report out once: every answer of `board` is looked at (a report
    // dropped here would leave the wait on a board that keeps scanning and never reports again).
    let mut progress: Option<(u32, Instant)> = None;
    let report = loop {
        let (done, counter) = board();
        if let Some(r) = done {
            break r;
        }
        if progress.is_none_or(|(last, _)| last != counter) {
            progress = Some((counter, Instant::now()));
        } else if progress.is_some_and(|(_, at)| at.elapsed() > STALL) {
            return Err(format!(
                "the virtual board never played its timeline out: no scan for {STALL:?} \
                 (last scan counter {counter})"
            ));
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let mut progress = (None, Instant::now());
    loop {
        let snap = shared.snapshot();
        let seen = snap.state.link.last_scan_counter;
        if snap.link.sessions >= u64::from(report.sessions)
            && seen.is_some_and(|c| c >= report.last_scan_counter)
        {
            return Ok(report);
        }
        let at = (snap.link.sessions, seen);
        if progress.0 != Some(at) {
            progress = (Some(at), Instant::now());
        } else if progress.1.elapsed() > STALL {
            return Err(format!(
                "the service never took in the board's last scan: {} of the board's {} \
                 sessions, last scan {seen:?} of {} (no progress for {STALL:?})",
                snap.link.sessions, report.sessions, report.last_scan_counter
            ));
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Plays a board script on the virtual board (at full speed) into a real service; returns
/// every event (as JSON values) and the final snapshot.
pub async fn play_script(
    script: &str,
    noise: NoiseModel,
    seed: u64,
) -> (
    Vec<serde_json::Value>,
    std::sync::Arc<smartgoban::daemon::Snapshot>,
) {
    play_script_on(script, noise, seed, PROTOCOL_VERSION).await
}

/// [`play_script`] on a board that speaks protocol versions 1 to `protocol_version`.
pub async fn play_script_on(
    script: &str,
    noise: NoiseModel,
    seed: u64,
    protocol_version: u8,
) -> (
    Vec<serde_json::Value>,
    std::sync::Arc<smartgoban::daemon::Snapshot>,
) {
    let script = smartgoban::sim::Script::parse(script).expect("script parses");
    let rig = Rig::start_with(
        smartgoban::sim::Source::Script(script),
        noise,
        seed,
        Speed::Max,
        RigOptions {
            protocol_version,
            ..Default::default()
        },
    )
    .await;
    rig.wait_done().await;
    let events = rig.events();
    (events, rig.stop().await)
}

/// The events of one kind.
pub fn of_kind<'a>(events: &'a [serde_json::Value], kind: &str) -> Vec<&'a serde_json::Value> {
    events.iter().filter(|e| e["kind"] == kind).collect()
}

/// A two-thread runtime for tests that drive the async service.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A Python interpreter that can import `module`: `$SMARTGOBAN_PYTHON`, else `python3`. `None`
/// (with a note on stderr) when there is none, unless `SMARTGOBAN_REQUIRE_PYTHON` is set (CI
/// sets it and installs the module), where its absence fails the test.
pub fn python_with(module: &str) -> Option<String> {
    let python = std::env::var("SMARTGOBAN_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = std::process::Command::new(&python)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(python);
    }
    assert!(
        std::env::var_os("SMARTGOBAN_REQUIRE_PYTHON").is_none(),
        "{python} cannot import {module}"
    );
    eprintln!("skipping the {module} check: {python} cannot import it (pip install {module})");
    None
}

/// Reads the store as another process would (WAL: readers never block the writer).
pub struct StoreView(rusqlite::Connection);

impl StoreView {
    /// Opens `data`'s store read-only, if it exists.
    pub fn open(data: &Path) -> Option<StoreView> {
        let path = data.join("smartgoban.sqlite3");
        let conn = rusqlite::Connection::open_with_flags(
            &path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
        )
        .ok()?;
        conn.busy_timeout(std::time::Duration::from_secs(5)).ok()?;
        Some(StoreView(conn))
    }

    /// `seq`, kind and JSON of every event, in `seq` order.
    pub fn events(&self) -> Vec<(u64, String, serde_json::Value)> {
        let Ok(mut stmt) = self
            .0
            .prepare("SELECT seq, kind, body FROM events ORDER BY seq")
        else {
            return Vec::new();
        };
        stmt.query_map([], |r| {
            let body: String = r.get(2)?;
            Ok((
                r.get::<_, i64>(0)? as u64,
                r.get::<_, String>(1)?,
                serde_json::from_str(&body).unwrap_or_default(),
            ))
        })
        .map(|rows| rows.filter_map(Result::ok).collect())
        .unwrap_or_default()
    }

    /// The wall clock (ms since 1970) of the latest game's last durable moment: its beat, or
    /// its checkpoint when no beat follows it. What a restarted service resumes from.
    pub fn durable_unix_ms(&self) -> Option<i64> {
        self.0
            .query_row(
                "SELECT COALESCE(b.unix_ms, c.unix_ms) FROM checkpoints c LEFT JOIN beats b \
                 ON b.game = c.game AND b.after_seq = c.after_seq ORDER BY c.game DESC LIMIT 1",
                [],
                |r| r.get::<_, i64>(0),
            )
            .ok()
    }

    /// `link` `connected` events in the store.
    pub fn count_link_connected(&self) -> usize {
        self.0
            .query_row(
                "SELECT COUNT(*) FROM events WHERE kind = 'link' AND body LIKE '%\"connected\"%'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map_or(0, |n| n as usize)
    }
}

/// The state, as `GET /api/v1/state` of the service on `port` shows it, if it answers
/// (from outside any runtime).
pub fn state_on(port: u16) -> Option<serde_json::Value> {
    rt().block_on(async {
        reqwest::get(format!("http://127.0.0.1:{port}/api/v1/state"))
            .await
            .ok()?
            .json()
            .await
            .ok()
    })
}

/// A port free on the loopback now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `smartgoban run` (`cmd`, with `--http 127.0.0.1:0`) and reads the port its API
/// took from its first line ("… API on http://127.0.0.1:PORT/api/v1/state …"): no port is
/// picked in advance that another test's connection could take first. The rest of its
/// standard output is read and dropped.
pub fn spawn_service(cmd: &mut std::process::Command) -> (std::process::Child, u16) {
    use std::io::BufRead;
    let mut child = cmd.stdout(std::process::Stdio::piped()).spawn().unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines() {
            let Ok(line) = line else { return };
            if let Some(rest) = line.split("API on http://").nth(1) {
                let port = rest
                    .split('/')
                    .next()
                    .and_then(|a| a.parse::<std::net::SocketAddr>().ok())
                    .map(|a| a.port());
                let _ = tx.send(port);
            }
        }
    });
    match rx.recv_timeout(std::time::Duration::from_secs(120)) {
        Ok(Some(port)) => (child, port),
        other => {
            let _ = child.kill();
            let status = child.wait();
            panic!("the service did not say where its API is ({other:?}, {status:?})")
        }
    }
}
