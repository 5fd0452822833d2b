//! `smartgoban demo`: the virtual board and the service in one process.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::broadcast::error::RecvError;

use super::service::{Service, ServiceError};
use super::source::{self, SourceError};
use super::DemoArgs;
use crate::daemon::{DaemonConfig, DaemonError, Snapshot};
use crate::event::{Event, EventKind};
use crate::link::LinkConfig;
use crate::referee::{Policy, RefereeConfig};
use crate::rules::GameRecord;
use crate::sensing::StabiliserConfig;
use crate::session::{Command, SessionConfig};
use crate::sim::{self, SimReport, Source};

/// Errors of `demo`.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The game or script could not be loaded.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The service failed.
    #[error(transparent)]
    Daemon(#[from] DaemonError),
    /// The service could not start (its HTTP address, its device, its data directory).
    #[error(transparent)]
    Start(#[from] ServiceError),
    /// The virtual board could not start.
    #[error("virtual board: {0}")]
    Sim(std::io::Error),
    /// The record could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The service stopped taking in scans.
    #[error("the service stopped taking in scans from the virtual board for 30 s (it has {seen} of {sent})")]
    Stalled {
        /// Scans the service took in.
        seen: u32,
        /// Last scan the board sent.
        sent: u32,
    },
}

/// What a finished demo leaves behind.
#[derive(Debug)]
pub struct DemoSummary {
    /// The service's final state and record.
    pub snapshot: Arc<Snapshot>,
    /// The record as the service kept it.
    pub record: GameRecord,
    /// The virtual board's report.
    pub sim: SimReport,
    /// Wall time from start to the end of the game.
    pub wall: Duration,
    /// Events emitted.
    pub events: usize,
    /// For a game record played to its end: the moves the whole game has, as a referee at
    /// the board records them (`rules::check_record`'s refereed line). `None` for a board
    /// script or a demo stopped early.
    pub expected_moves: Option<usize>,
}

impl DemoSummary {
    /// Whether the service recorded the whole game (always, for a script or an early stop).
    pub fn is_whole_game(&self) -> bool {
        self.expected_moves
            .is_none_or(|want| self.record.moves.len() >= want)
    }

    /// Why the record is not the whole game, or not certain, for people: the moves recorded,
    /// those held for the referee, those recorded provisionally (their order not known for
    /// sure), and why. `None` when the record is the whole game and certain.
    pub fn shortfall(&self) -> Option<String> {
        let state = &self.snapshot.state;
        let got = self.record.moves.len();
        let held = state.held.as_ref().map(|h| {
            format!(
                "{} moves are held for the referee: {} orders explain the stones at {} (choose with POST /api/v1/ambiguous/choose, or on the live page)",
                h.moves,
                h.explanations,
                h.points.join(" ")
            )
        });
        let provisional = (!state.provisional.is_empty()).then(|| {
            let spans: Vec<String> = state
                .provisional
                .iter()
                .map(|p| match (p.numbers.first(), p.numbers.last()) {
                    (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
                    (Some(a), _) => a.to_string(),
                    _ => String::new(),
                })
                .collect();
            format!(
                "moves {} are provisional: their order is not known for sure (choose with POST /api/v1/ambiguous/choose and `first`, or on the live page)",
                spans.join(", ")
            )
        });
        let short = self.expected_moves.filter(|&want| got < want);
        if short.is_none() && held.is_none() && provisional.is_none() {
            return None;
        }
        let mut why: Vec<String> = held.into_iter().chain(provisional).collect();
        if why.is_empty() {
            why.push(format!(
                "the board ended in phase {} ({} open violations)",
                state.phase.as_str(),
                state.violations.len()
            ));
        }
        Some(match short {
            Some(want) => format!(
                "the record is not the whole game: {got} of {want} moves recorded; {}",
                why.join("; ")
            ),
            None => format!("the record is not certain: {}", why.join("; ")),
        })
    }
}

/// Runs the demo. With `exit_when_done` it returns when the game has been played out and the
/// record written; otherwise it keeps serving until Ctrl-C.
pub async fn run(args: DemoArgs) -> Result<DemoSummary, DemoError> {
    // Ctrl-C and SIGTERM are taken from here on, also while starting and after the game:
    // each stops the demo the same way (record written, temporary directory removed).
    let mut stop = Stop::listen().map_err(DemoError::Sim)?;
    if let Some(path) = &args.record {
        check_writable(path)?;
    }
    let (source, description) = source::load(args.game.as_deref(), args.board.script.as_deref())?;
    let mut setup = source.setup();
    let mut playing = args.board.playing();
    if let Some(time) = args.time {
        setup.time = Some(time);
        setup.info.time_limit = Some(time.sgf_tm());
        setup.info.overtime = time.sgf_ot();
        playing.press_clock = true;
    }
    let workdir = tempfile::Builder::new()
        .prefix("smartgoban-demo-")
        .tempdir()
        .map_err(DemoError::Sim)?;
    let link = workdir.path().join("board");
    // The referee's token: kept with the records when there is a data dir, else for this run.
    let token =
        crate::api::token::load_or_create(args.data_dir.as_deref().unwrap_or(workdir.path()))
            .map_err(|e| DemoError::Sim(std::io::Error::other(e.to_string())))?;
    let device = sim::start(&source, playing, link.clone(), 0x5167_0001).map_err(DemoError::Sim)?;
    let started = Instant::now();
    let first_seq = super::run::seq_epoch();
    let mut daemon = Service::start(
        DaemonConfig {
            supervision: Default::default(),
            // the virtual board starts afresh: so does the game
            recovery: Default::default(),
            serial: link.clone(),
            session: SessionConfig {
                stabiliser: StabiliserConfig {
                    settle_ms: args.settle_ms,
                    ..StabiliserConfig::default()
                },
                referee: referee_config(&args, &source),
                // event ids of this run above those of any earlier one, so a client resuming with
                // an id from an earlier demo gets a snapshot rather than missing events
                first_seq,
                ..SessionConfig::default()
            },
            link: LinkConfig::default(),
            setup,
            events_out: args.events.clone(),
            data_dir: args.data_dir.clone(),
            clock_hardware: Default::default(),
            // The virtual board is the microcontroller: the frames travel over the serial protocol
            // and the board reports back the frame it shows.
            leds: Some(crate::daemon::LedOutput {
                driver: Box::new(crate::devices::leds::McuLeds::default()),
                settings: crate::leds::LedSettings::default(),
            }),
            access: crate::daemon::ApiAccess {
                token: Some(token.clone()),
                public_reads: true,
            },
        },
        Some(args.http),
        crate::api::Limits::default(),
    )
    .await?;
    if let Some(settings) = args.mqtt.settings() {
        daemon
            .publish_mqtt(
                settings,
                args.data_dir.clone(),
                first_seq,
                crate::api::Limits::default(),
            )
            .map_err(|e| DemoError::Sim(std::io::Error::other(e.to_string())))?;
    }
    let quiet = args.quiet;
    if !quiet {
        let addr = daemon
            .http_addr()
            .map(|a| a.to_string())
            .unwrap_or_default();
        println!("smartgoban demo: {description}");
        println!(
            "  virtual board on {} ({} noise, seed {}, speed {}{})",
            link.display(),
            format!("{:?}", args.board.noise).to_lowercase(),
            args.board.seed,
            args.board.speed,
            if args.board.firmware {
                ", read through Hall sensors and the firmware's logic"
            } else {
                ""
            }
        );
        super::sim::print_faulty_sensors(source.setup().size(), &args.board.playing());
        println!("  live state:  http://{addr}/api/v1/state");
        println!("  record:      http://{addr}/api/v1/game.sgf");
        println!("  event feed:  http://{addr}/api/v1/events");
        println!("  live page:   http://{addr}/");
        println!("  referee token (Authorization: Bearer …): {token}");
    }
    let (stop_printer, printer_stop) = tokio::sync::oneshot::channel::<()>();
    let printer = (!quiet).then(|| {
        tokio::spawn(print_progress(
            daemon.shared().clone(),
            device.leds_handle(),
            printer_stop,
        ))
    });

    // Wait for the board to play the timeline out and the service to take in its last scan.
    let mut report: Option<SimReport> = None;
    let mut last_progress = (None, Instant::now());
    let sim_report = loop {
        if report.is_none() {
            report = device.try_done();
        }
        let seen = daemon.shared().last_scan_counter();
        if let Some(r) = report {
            // The service has read the board's last session (after an unplug the counter
            // starts again from 0) up to its last scan.
            let sessions = daemon.shared().snapshot().link.sessions;
            if sessions >= u64::from(r.sessions) && seen.is_some_and(|s| s >= r.last_scan_counter) {
                break r;
            }
        }
        if seen != last_progress.0 {
            last_progress = (seen, Instant::now());
        } else if last_progress.1.elapsed() > Duration::from_secs(30) {
            return Err(DemoError::Stalled {
                seen: seen.map_or(0, |s| s + 1),
                sent: device.scan_counter() + 1,
            });
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(5)) => {}
            _ = stop.next() => {
                // Stopped early: keep what was recorded.
                if !quiet {
                    println!("interrupted: stopping");
                }
                break SimReport {
                    last_scan_counter: seen.unwrap_or(0),
                    scans: 0,
                    board_ms: 0,
                    sessions: 0,
                };
            }
        }
    };
    let finished = report.is_some_and(|r| r == sim_report);
    let wall = started.elapsed();
    // The organiser enters the recorded result, as a referee would at the end of the game
    // (unless the game already has one: a flag fall, two warnings).
    let decided = daemon.shared().snapshot().state.game.result.is_some();
    if let (true, false, Source::Record(r)) = (finished, decided, &source) {
        if let Some(re) = r.info.result.as_deref().filter(|re| !re.trim().is_empty()) {
            daemon.command(Command::SetResult(re.to_string())).await?;
        }
    }
    let record_path = args.record.clone();
    let write_record = |snapshot: &Snapshot| -> Result<(), DemoError> {
        if let Some(path) = &record_path {
            crate::files::write_atomic(path, snapshot.sgf.as_bytes()).map_err(|source| {
                DemoError::Write {
                    path: path.clone(),
                    source,
                }
            })?;
        }
        Ok(())
    };
    let expected_moves = match (&source, finished) {
        (Source::Record(r), true) => Some(crate::rules::check_record(r).refereed.len()),
        _ => None,
    };
    let summary_line = |snapshot: &Snapshot| {
        let state = &snapshot.state;
        let held = state
            .held
            .as_ref()
            .map(|h| {
                format!(
                    ", {} moves held for the referee ({} orders explain {})",
                    h.moves,
                    h.explanations,
                    h.points.join(" ")
                )
            })
            .unwrap_or_default();
        let provisional: usize = state.provisional.iter().map(|p| p.numbers.len()).sum();
        let provisional = if provisional > 0 {
            format!(", {provisional} of them provisional (their order not known for sure)")
        } else {
            String::new()
        };
        format!(
            "{}: {} moves recorded{provisional}{held}, phase {}, {} scans in {:.1} s{}",
            if finished { "game over" } else { "stopped" },
            state.move_number,
            state.phase.as_str(),
            if finished {
                sim_report.scans
            } else {
                snapshot.session.scans
            },
            wall.as_secs_f64(),
            record_path
                .as_ref()
                .map(|p| format!(", record written to {}", p.display()))
                .unwrap_or_default()
        )
    };
    if finished && !args.exit_when_done {
        // the game as it stands now; written again, final, when the demo stops
        let snapshot = daemon.shared().snapshot();
        write_record(&snapshot)?;
        println!("{}", summary_line(&snapshot));
        if !quiet {
            println!("still serving; Ctrl-C to stop");
        }
        stop.next().await;
    }
    // The service stops first and takes in everything still under way (a move judged once the
    // board fell silent, the last events): the record written, the summary and the events
    // printed are then all of the one final state — the feed's (issue 35).
    let shared = daemon.shared().clone();
    let snapshot = daemon.shutdown().await?;
    let events = shared.log.len();
    device.stop().map_err(DemoError::Sim)?;
    let _ = stop_printer.send(());
    if let Some(p) = printer {
        let _ = p.await;
    }
    write_record(&snapshot)?;
    // the final summary, also with --quiet (its help says so)
    if !finished || args.exit_when_done {
        println!("{}", summary_line(&snapshot));
    }
    let record = GameRecord::from_sgf_str(&snapshot.sgf).unwrap_or_default();
    Ok(DemoSummary {
        snapshot,
        record,
        sim: sim_report,
        wall,
        events,
        expected_moves,
    })
}

/// The referee of the demo: the profile from the flag, else the script's header; the policy
/// from the flag, else `accept` for a game record (the record is what happened) and `rules` for a
/// board script.
fn referee_config(args: &DemoArgs, source: &Source) -> RefereeConfig {
    let script_profile = match source {
        Source::Script(s) => s.profile.as_deref().and_then(|p| p.parse().ok()),
        Source::Record(_) => None,
    };
    RefereeConfig {
        profile: args.profile.or(script_profile).unwrap_or_default(),
        cycles: args.cycles.unwrap_or_default(),
        policy: args.referee.unwrap_or(match source {
            Source::Record(_) => Policy::AcceptAsPlayed,
            Source::Script(_) => Policy::Rules,
        }),
        ..RefereeConfig::default()
    }
}

/// Prints moves, violations and phase changes as they happen; when `stop` fires, prints
/// what is left in the log and returns.
async fn print_progress(
    shared: Arc<crate::daemon::Shared>,
    board_leds: Arc<std::sync::Mutex<Option<smartgoban_protocol::LedFrame>>>,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) {
    let mut rx = shared.log.subscribe();
    let mut last = 0u64;
    let mut printer = Printer::default();
    let mut leds_tick = tokio::time::interval(Duration::from_millis(100));
    leds_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let catch_up = |last: &mut u64, printer: &mut Printer| {
        for ev in shared.log.since(*last) {
            *last = ev.seq;
            printer.print(&ev);
        }
    };
    catch_up(&mut last, &mut printer);
    loop {
        tokio::select! {
            msg = rx.recv() => match msg {
                Ok(ev) if ev.seq > last => {
                    last = ev.seq;
                    printer.print(&ev);
                }
                Ok(_) => {}
                Err(RecvError::Lagged(_)) => catch_up(&mut last, &mut printer),
                Err(RecvError::Closed) => return,
            },
            _ = leds_tick.tick() => {
                printer.print_leds(&board_leds, &shared);
            }
            _ = &mut stop => {
                catch_up(&mut last, &mut printer);
                printer.print_leds(&board_leds, &shared);
                return;
            }
        }
    }
}

/// The terminal's view of the feed: one line per event worth a line, and the virtual board's
/// LEDs whenever they ask the players for something.
#[derive(Default)]
struct Printer {
    /// The side whose clock ran at the last clock line.
    running: Option<crate::rules::Color>,
    /// The LED frame (palette and cells) the virtual board showed last time we looked.
    leds: Option<(
        [smartgoban_protocol::LedPaint; 16],
        smartgoban_protocol::LedCells,
    )>,
}

impl Printer {
    /// Prints the frame the virtual board shows (as it reported it over the serial link) when
    /// it changed and shows guidance: stones to lift or put back, an illegal stone, the count.
    /// Routine captures being lifted are not worth a diagram: violations, a desync, the setup
    /// and the count are.
    fn print_leds(
        &mut self,
        board_leds: &std::sync::Mutex<Option<smartgoban_protocol::LedFrame>>,
        shared: &crate::daemon::Shared,
    ) {
        let shown = *board_leds.lock().unwrap_or_else(|e| e.into_inner());
        let Some(frame) = shown else {
            return;
        };
        let snap = shared.snapshot();
        if snap.state.violations.is_empty() && snap.state.phase == crate::event::Phase::Play {
            return;
        }
        let content = (frame.palette, frame.cells);
        if self.leds == Some(content) {
            return;
        }
        self.leds = Some(content);
        let size = frame.board_size().get();
        let n = usize::from(size) * usize::from(size);
        let guidance =
            (0..n).any(|i| crate::leds::Slot::from_index(frame.cells.get(i)).is_guidance());
        if guidance {
            println!(
                "      LEDs on the board (frame {}; r lift, p/q put back black/white, ! illegal, capitals: next):",
                frame.frame_id
            );
            for line in crate::leds::diagram(size, |i| frame.cells.get(i)).lines() {
                println!("        {line}");
            }
        }
    }

    fn print(&mut self, ev: &Event) {
        // the clocks at each switch (a press, a pass), not at every roll-over
        if let EventKind::Clock { clock, .. } = &ev.kind {
            if clock.running == self.running {
                return;
            }
            self.running = clock.running;
        }
        print_event(ev);
    }
}

fn print_event(ev: &Event) {
    let line = match &ev.kind {
        EventKind::Move {
            color,
            point,
            number,
            captured,
            ..
        } => {
            let caps = if captured.is_empty() {
                String::new()
            } else {
                format!("  captures {}", captured.join(" "))
            };
            format!("{number:>4}  {} {point}{caps}", color.sgf_letter())
        }
        EventKind::Pass { color, number } => format!("{number:>4}  {} pass", color.sgf_letter()),
        EventKind::Violation {
            code,
            clause,
            detail,
            ..
        } => format!("      ! {code} ({clause}): {detail}"),
        EventKind::Phase {
            phase,
            restore,
            remove,
        } => {
            let mut s = format!("      phase {}", phase.as_str());
            if !restore.is_empty() {
                let pts: Vec<String> = restore
                    .iter()
                    .map(|pc| format!("{}{}", pc.color.sgf_letter(), pc.point))
                    .collect();
                s.push_str(&format!("; put {}", pts.join(" ")));
            }
            if !remove.is_empty() {
                s.push_str(&format!("; lift {}", remove.join(" ")));
            }
            s
        }
        EventKind::Link { state, detail, .. } => {
            let state = match state {
                crate::event::LinkState::Connected => "connected",
                crate::event::LinkState::Lost => "lost",
            };
            format!("      link {state}: {detail}")
        }
        // the clocks after each press, and the timekeeper's calls
        EventKind::Clock { clock, .. } => format!(
            "      clock B {}  W {}",
            clock_face(&clock.black),
            clock_face(&clock.white)
        ),
        EventKind::Call {
            color,
            text,
            minutes_left,
            periods_left,
            ..
        } => {
            let left = minutes_left
                .map(|m| format!(" ({m} min left)"))
                .or(periods_left.map(|p| format!(" ({p} left)")))
                .unwrap_or_default();
            format!("      call {} {text}{left}", color.sgf_letter())
        }
        EventKind::MoveUndone { number, .. } => format!("{number:>4}  (taken back)"),
        EventKind::MoveCorrected {
            number,
            color,
            point,
        } => format!(
            "{number:>4}  {} {} (corrected)",
            color.sgf_letter(),
            point.as_deref().unwrap_or("pass")
        ),
        EventKind::Ambiguous { candidates } => format!(
            "      ? {} explanations for the board: waiting for the referee",
            candidates.len()
        ),
        EventKind::Warning { color, count, .. } => {
            format!("      ! warning for {} ({count})", color.as_str())
        }
        EventKind::HandicapPlaced { points } => format!("      handicap {}", points.join(" ")),
        EventKind::Count {
            dead, re, counting, ..
        } => {
            let agreed = if *counting {
                " (agreed: the players count on the board)"
            } else {
                ""
            };
            format!("      count {re} with {} stones dead{agreed}", dead.len())
        }
        EventKind::Result { re, .. } => format!("      result {re}"),
        _ => return,
    };
    println!("{line}");
}

/// A clock face for the terminal: `1:02:03` / `4:05` in main time, `3×0:25` in overtime
/// (periods left × time left in the period), `0:00 flag` when the time is up.
fn clock_face(r: &crate::clock::Reading) -> String {
    let hms = |ms: u64| {
        let s = ms.div_ceil(1000);
        if s >= 3600 {
            format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
        } else {
            format!("{}:{:02}", s / 60, s % 60)
        }
    };
    if r.expired {
        "0:00 flag".into()
    } else if r.overtime && r.periods > 0 {
        format!("{}×{}", r.periods, hms(r.period_ms))
    } else {
        hms(r.main_ms)
    }
}

/// Ctrl-C and SIGTERM, listened for from the start of the demo: a signal that comes while
/// nothing waits for it (starting, writing the record) is kept for the next wait.
struct Stop {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

impl Stop {
    fn listen() -> std::io::Result<Stop> {
        use tokio::signal::unix::{signal, SignalKind};
        Ok(Stop {
            term: signal(SignalKind::terminate())?,
            int: signal(SignalKind::interrupt())?,
        })
    }

    /// The next Ctrl-C or SIGTERM (or one already received).
    async fn next(&mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
        }
    }
}

/// `--record PATH` can be written: checked before the game, not after it, the way the record
/// is written ([`crate::files::write_atomic`]: a temporary file beside it, renamed over it).
/// The file itself is not touched.
fn check_writable(path: &std::path::Path) -> Result<(), DemoError> {
    let fail = |source| DemoError::Write {
        path: path.to_path_buf(),
        source,
    };
    if path.is_dir() {
        return Err(fail(std::io::Error::other("it is a directory")));
    }
    crate::files::check_atomic_write(path).map_err(fail)
}
