//! The daemon: the one task that owns the [`Session`] and the link [`Connection`], reads the
//! clock and moves bytes (DESIGN.md "Core and shell"). Around it: the serial port thread. The
//! HTTP API reads its [`Shared`] view and is started beside it (`cli::service`).

mod clock_hw;
pub mod delay;
pub mod games;
mod leds;
mod log;
mod persist;
pub mod shared;
pub mod supervise;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use crate::link::serial::{PortEvent, SerialPort};
use crate::link::{Connection, LinkConfig, LinkEvent};
use crate::referee::GameSetup;
use crate::session::{Command, Input, Session, SessionConfig, SessionError};
use clock_hw::ClockDevices;
pub use clock_hw::ClockHardware;
pub use leds::{LedOutput, LedsSnapshot};
pub use shared::{ApiAccess, EventLog, MqttCounters, Shared, Snapshot};
pub use supervise::Supervision;
use supervise::{Notice, WatchdogPace};

/// Everything the daemon needs to run.
#[derive(Debug)]
pub struct DaemonConfig {
    /// Device path of the board (serial port, udev symlink, or the virtual board's pty).
    pub serial: PathBuf,
    /// Core settings.
    pub session: SessionConfig,
    /// Link timing.
    pub link: LinkConfig,
    /// The game to start with.
    pub setup: GameSetup,
    /// Append every event as a JSON line to this file.
    pub events_out: Option<PathBuf>,
    /// Keep the record of the game in progress here (`current.sgf`, rewritten on every change).
    pub data_dir: Option<PathBuf>,
    /// The clock's buttons and faces wired to this machine, if any.
    pub clock_hardware: ClockHardware,
    /// The LEDs under the points, if any.
    pub leds: Option<LedOutput>,
    /// Who may read and write over HTTP.
    pub access: ApiAccess,
    /// What to do with a game left in progress in the data directory's store.
    pub recovery: Recovery,
    /// The service manager the loop reports to (`STATUS=`, `WATCHDOG=1`, `STOPPING=1`), if
    /// any; `READY=1` is the composition root's (`cli::run`), once the API listens.
    pub supervision: Supervision,
}

/// Recovery after a crash or a restart (issue 7): the store in the data directory
/// (`DATA_DIR/smartgoban.sqlite3`) holds the game in progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Resume the game in progress in the store (`run`); otherwise a new game starts and the
    /// one in progress is kept as `replaced` (`demo`, whose virtual board starts afresh).
    pub resume: bool,
    /// Charge the time the service was down to the player whose clock was running (the wall
    /// clock from the last checkpoint to the restart) when the board has no history of it to
    /// replay (protocol version 2, a board that restarted). Off by default: the players could
    /// not see the clock while it was down. A history, when it comes, replays the outage as
    /// if the service had been up, whatever this says (README "Recovery").
    pub charge_downtime: bool,
}

/// Errors starting or running the daemon.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// Another service keeps its record in the same data directory.
    #[error("another smartgoban runs on {0} (it holds smartgoban.lock there): stop it, or give this one another --data-dir")]
    DataDirInUse(PathBuf),
    /// The serial path exists but is no device (a regular file, a directory).
    #[error("{0} is not a serial device")]
    NotADevice(PathBuf),
    /// A file could not be written.
    #[error("cannot write {path}")]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The game could not be set up.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A thread or task could not be started or ended badly.
    #[error("internal: {0}")]
    Internal(String),
}

type CommandReply = oneshot::Sender<Result<(), SessionError>>;
use shared::CommandRequest;

/// A running daemon.
#[derive(Debug)]
pub struct Daemon {
    shared: Arc<Shared>,
    commands: mpsc::Sender<(Command, CommandReply)>,
    shutdown: watch::Sender<bool>,
    session_task: Option<JoinHandle<Result<(), DaemonError>>>,
}

impl Daemon {
    /// Starts the daemon: checks the device path (one that does not exist yet is waited for:
    /// the state's `link.error` says so), then starts the serial thread and the session task.
    /// The HTTP API is started beside it by the caller (`cli::service`), on [`Daemon::shared`]:
    /// nothing here depends on the API.
    pub async fn start(config: DaemonConfig) -> Result<Daemon, DaemonError> {
        // A device that is not there yet is waited for (systemd starts the service at boot,
        // the board may be plugged in later); a path that is something else is a mistake.
        if let Ok(meta) = std::fs::metadata(&config.serial) {
            if !std::os::unix::fs::FileTypeExt::is_char_device(&meta.file_type()) {
                return Err(DaemonError::NotADevice(config.serial.clone()));
            }
        }
        // One service per data directory. A directory that cannot hold the lock (read-only,
        // full) does not stop the game: the store reports it.
        let dir_lock = match config.data_dir.as_deref().map(crate::files::lock_dir) {
            Some(Err(e)) if e.kind() == std::io::ErrorKind::WouldBlock => {
                return Err(DaemonError::DataDirInUse(
                    config.data_dir.clone().unwrap_or_default(),
                ))
            }
            Some(Ok(lock)) => Some(lock),
            _ => None,
        };
        let mut persist = config.data_dir.as_deref().map(persist::Persist::open);
        let resumed = match persist.as_mut() {
            Some(p) if config.recovery.resume => p.resume(config.session),
            _ => None,
        };
        let resuming = resumed.is_some();
        let mut history = Vec::new();
        let mut base_ms = 0;
        let session = match resumed {
            Some(r) => {
                // The session's time goes on from its checkpoint: the time the service was
                // down is not on anyone's clock unless configured — until the board's
                // history, if it has one, replays the outage in its own time.
                base_ms = r.session.now_ms();
                let down = (crate::store::unix_now_ms() - r.checkpoint_unix_ms).max(0) as u64;
                let mut session = r.session;
                if config.recovery.charge_downtime {
                    base_ms += down;
                }
                history = r.history;
                // Time runs to now before anything is served: the first state already shows
                // the clock as it stands (with the time down, when charged).
                session.handle_timeout(base_ms);
                session
            }
            None => {
                let mut session_config = config.session;
                if let Some(p) = &persist {
                    session_config.first_seq = session_config.first_seq.max(p.next_seq());
                }
                let session = Session::new(session_config, &config.setup)
                    .map_err(|e| DaemonError::Session(SessionError::Setup(e)))?;
                if let Some(p) = persist.as_mut() {
                    p.begin_game(&config.setup, &session_config);
                }
                session
            }
        };
        let events_file = match &config.events_out {
            Some(path) => Some(std::io::BufWriter::new(
                std::fs::File::create(path).map_err(|source| DaemonError::File {
                    path: path.clone(),
                    source,
                })?,
            )),
            None => None,
        };
        if let Some(dir) = &config.data_dir {
            if !resuming {
                keep_earlier_record(dir)?;
            }
        }
        let (snapshot_tx, snapshot_rx) = watch::channel(Arc::new(snapshot_of(
            &session,
            None,
            &Connection::new(config.link),
        )));
        let (commands, command_rx) = mpsc::channel::<CommandRequest>(16);
        let games = games::GameStore::open(config.data_dir.as_deref());
        let shared = Arc::new(Shared::new(
            snapshot_rx,
            commands.clone(),
            config.access,
            games,
        ));
        for event in history {
            shared.log.push(event);
        }
        let (port_tx, port_rx) = mpsc::channel(64);
        let port = SerialPort::spawn(config.serial.clone(), port_tx)
            .map_err(|e| DaemonError::Internal(format!("serial thread: {e}")))?;
        let (shutdown, shutdown_rx) = watch::channel(false);
        let task = SessionTask {
            session,
            connection: Connection::new(config.link),
            port,
            shared: shared.clone(),
            snapshot: snapshot_tx,
            events_file,
            events_path: config.events_out.clone(),
            data_dir: config.data_dir.clone(),
            link_error: None,
            health_told: None,
            storage_error: None,
            start: Instant::now(),
            base_ms,
            persist,
            _dir_lock: dir_lock,
            actions: Vec::new(),
            record_dirty: true,
            last_record_write: None,
            devices: ClockDevices::start(config.clock_hardware),
            leds: config.leds.map(leds::Leds::new),
            finished: None,
            finished_in_store: None,
            watchdog: config
                .supervision
                .notifier
                .as_ref()
                .and_then(|n| n.watchdog_interval())
                .map(WatchdogPace::new),
            supervision: config.supervision,
            status: String::new(),
        };
        let session_task = tokio::spawn(task.run(port_rx, command_rx, shutdown_rx));
        Ok(Daemon {
            shared,
            commands,
            shutdown,
            session_task: Some(session_task),
        })
    }

    /// Shared handles: snapshot, event log.
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Sends a command to the session and waits for it to be applied.
    pub async fn command(&self, command: Command) -> Result<(), DaemonError> {
        let (tx, rx) = oneshot::channel();
        self.commands
            .send((command, tx))
            .await
            .map_err(|_| DaemonError::Internal("session task stopped".into()))?;
        rx.await
            .map_err(|_| DaemonError::Internal("session task stopped".into()))?
            .map_err(DaemonError::Session)
    }

    /// Stops everything; returns the final snapshot.
    pub async fn shutdown(mut self) -> Result<Arc<Snapshot>, DaemonError> {
        let _ = self.shutdown.send(true);
        if let Some(task) = self.session_task.take() {
            task.await
                .map_err(|e| DaemonError::Internal(format!("session task: {e}")))??;
        }
        Ok(self.shared.snapshot())
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
    }
}

/// Makes sure `dir` can hold the record, and moves the record a previous run left in it
/// (`current.sgf`) aside to `interrupted-<unix time>.sgf`, so that starting never overwrites a
/// recorded game. (Resuming that game is the store's job.)
fn keep_earlier_record(dir: &std::path::Path) -> Result<(), DaemonError> {
    let err = |source| DaemonError::File {
        path: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(err)?;
    let current = dir.join("current.sgf");
    if current.exists() {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut kept = dir.join(format!("interrupted-{stamp}.sgf"));
        let mut n = 1;
        while kept.exists() {
            kept = dir.join(format!("interrupted-{stamp}-{n}.sgf"));
            n += 1;
        }
        std::fs::rename(&current, &kept).map_err(|source| DaemonError::File {
            path: current.clone(),
            source,
        })?;
        tracing::warn!(
            "the record of an earlier run was kept as {}",
            kept.display()
        );
    }
    Ok(())
}

fn snapshot_of(session: &Session, link_error: Option<String>, connection: &Connection) -> Snapshot {
    let mut state = session.state();
    state.link.error = link_error;
    if let Some(report) = connection.sensor_health() {
        state.sensors = crate::session::SensorsView::from_health(report);
    }
    Snapshot {
        state,
        sgf: session.record().to_sgf(),
        moves: crate::session::move_views(session.record()),
        link: connection.stats(),
        session: session.stats(),
        leds: None,
        last_seq: 0,
        state_body: Default::default(),
    }
}

/// Minimum interval between rewrites of `current.sgf` and snapshots that carry no event.
const REFRESH: Duration = Duration::from_millis(200);

struct SessionTask {
    session: Session,
    connection: Connection,
    port: SerialPort,
    shared: Arc<Shared>,
    snapshot: watch::Sender<Arc<Snapshot>>,
    events_file: Option<std::io::BufWriter<std::fs::File>>,
    events_path: Option<PathBuf>,
    data_dir: Option<PathBuf>,
    link_error: Option<String>,
    /// The board's last sensor health report the referee was told of (its dead sensors'
    /// points): a report is turned into points only when a new one comes.
    health_told: Option<smartgoban_protocol::calibration::SensorHealth>,
    storage_error: Option<String>,
    start: Instant,
    /// Session time at `start`, ms: 0, or where a resumed session's checkpoint left it.
    base_ms: u64,
    /// The store, if there is a data directory.
    persist: Option<persist::Persist>,
    /// Held while the task runs: one service per data directory.
    _dir_lock: Option<std::fs::File>,
    /// Referee actions not yet written (they go with the events they cause).
    actions: Vec<crate::store::ActionRow>,
    record_dirty: bool,
    last_record_write: Option<Instant>,
    devices: ClockDevices,
    leds: Option<leds::Leds>,
    /// The id under which the game in progress is kept once finished, and the record length
    /// and result last kept.
    finished: Option<(String, usize, Option<String>)>,
    /// The record length and result last given to the store as the game's end.
    finished_in_store: Option<(usize, Option<String>)>,
    /// The service manager, and the test hook that makes this loop hang.
    supervision: Supervision,
    /// When the next `WATCHDOG=1` is due, under a manager with a watchdog.
    watchdog: Option<WatchdogPace>,
    /// The `STATUS=` line last sent.
    status: String,
}

impl SessionTask {
    /// Session time, ms: [`SessionTask::wire_ms`] from `base_ms` (which a replayed history
    /// moves on).
    fn now_ms(&self) -> u64 {
        self.base_ms + self.wire_ms()
    }

    /// The link's time, ms since the task started: real time only, so that a replayed
    /// history, which moves session time on, is never taken for silence on the wire.
    fn wire_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    async fn run(
        mut self,
        mut port_rx: mpsc::Receiver<PortEvent>,
        mut command_rx: mpsc::Receiver<(Command, CommandReply)>,
        mut shutdown: watch::Receiver<bool>,
    ) -> Result<(), DaemonError> {
        let mut last_snapshot = Instant::now();
        loop {
            let (now, wire) = (self.now_ms(), self.wire_ms());
            let sleep_for = [
                self.connection
                    .poll_timeout()
                    .map(|d| d.saturating_sub(wire)),
                self.session.poll_timeout().map(|d| d.saturating_sub(now)),
                self.leds
                    .as_ref()
                    .and_then(|l| l.poll_timeout())
                    .map(|d| d.saturating_sub(now)),
                self.watchdog.map(|w| w.until_due(wire)),
            ]
            .into_iter()
            .flatten()
            .min()
            .map(Duration::from_millis)
            .unwrap_or(REFRESH)
            .min(REFRESH);
            let mut changed = false;
            tokio::select! {
                ev = port_rx.recv() => match ev {
                    Some(ev) => {
                        self.port_event(ev);
                        // Take whatever else is already waiting before publishing.
                        while let Ok(ev) = port_rx.try_recv() {
                            self.port_event(ev);
                            changed |= self.pump()?;
                        }
                    }
                    None => return Err(DaemonError::Internal("serial thread stopped".into())),
                },
                cmd = command_rx.recv() => if let Some((command, reply)) = cmd {
                    let now = self.now_ms();
                    let logged = serde_json::to_string(&command).unwrap_or_default();
                    let new_game = match &command {
                        Command::NewGame(setup) => Some((**setup).clone()),
                        _ => None,
                    };
                    // A game in progress that a new one replaces is kept like a finished one
                    // (without a result): nothing recorded is lost.
                    let replaced = (new_game.is_some()
                        && !self.session.record().moves.is_empty()
                        && self.session.referee().phase() != crate::event::Phase::Finished)
                        .then(|| self.session.record().clone());
                    let result = self.session.handle_input(Input::Command(command), now);
                    if let (Some(record), Ok(())) = (&replaced, &result) {
                        self.keep_replaced_game(record);
                    }
                    if let (Some(setup), Ok(()), Some(p)) = (new_game, &result, &mut self.persist) {
                        p.begin_game(&setup, &self.session.config());
                    }
                    self.actions.push(crate::store::ActionRow {
                        t_ms: now,
                        unix_ms: crate::store::unix_now_ms(),
                        command: logged,
                        outcome: match &result {
                            Ok(()) => "ok".into(),
                            Err(e) => e.to_string(),
                        },
                    });
                    changed = true;
                    self.record_dirty = true;
                    changed |= self.pump()?;
                    self.publish();
                    let _ = reply.send(result);
                },
                press = async {
                    match &mut self.devices.presses {
                        Some(rx) => rx.recv().await,
                        None => std::future::pending().await,
                    }
                } => if let Some(press) = press {
                    let host_ms = clock_hw::host_ms(self.start, &press);
                    let now = self.now_ms();
                    let input = Input::Button { button: press.button, host_ms };
                    if let Err(e) = self.session.handle_input(input, now) {
                        tracing::error!("session refused a button: {e}");
                    }
                    changed = true;
                },
                _ = tokio::time::sleep(sleep_for) => {
                    // A service that was kept from running (a busy Pi) reads what the board
                    // sent meanwhile before it times anything out: bytes waiting are no silence.
                    while let Ok(ev) = port_rx.try_recv() {
                        self.port_event(ev);
                        changed |= self.pump()?;
                    }
                    self.connection.handle_timeout(self.wire_ms());
                    self.session.handle_timeout(self.now_ms());
                },
                _ = shutdown.changed() => {
                    self.notify(Notice::Stopping);
                    self.pump()?;
                    if let Some(p) = &mut self.persist {
                        p.stopping(&self.session);
                    }
                    self.blank_devices();
                    self.publish();
                    self.write_record(true)?;
                    let done = self.flush_events();
                    // The serial thread writes what is queued (the dark LED frame) and ends:
                    // no one reads its events any more, then the port is closed.
                    drop(port_rx);
                    drop(self);
                    return done;
                }
            }
            changed |= self.pump()?;
            changed |= self.refresh_leds();
            self.devices.refresh(self.session.clock_view().as_ref());
            if let Some(p) = &mut self.persist {
                let failing = p.error().is_some();
                p.tick(&self.session);
                changed |= failing != p.error().is_some();
            }
            if changed || last_snapshot.elapsed() >= REFRESH {
                // a finished game whose file could not be written is tried again
                if matches!(self.finished, Some((_, usize::MAX, _))) {
                    self.keep_finished_game();
                }
                self.publish();
                last_snapshot = Instant::now();
                self.report_status();
            }
            self.write_record(false)?;
            self.supervise();
            // The test hook: the loop waits for good, as a loop stuck on an await that never
            // completes would (the runtime's other tasks, the API among them, go on).
            if self
                .supervision
                .hang_after
                .is_some_and(|after| self.start.elapsed() >= after)
            {
                tracing::error!("test hook SMARTGOBAN_TEST_HANG_AFTER_MS: the daemon's loop hangs");
                std::future::pending::<()>().await;
            }
        }
    }

    /// Sends `notice` to the service manager, if there is one.
    fn notify(&self, notice: Notice<'_>) {
        if let Some(n) = &self.supervision.notifier {
            n.send(notice);
        }
    }

    /// `WATCHDOG=1` when due: from this loop, so only a loop that runs keeps the service
    /// alive (issue 16).
    fn supervise(&mut self) {
        let wire = self.wire_ms();
        if self.watchdog.as_mut().is_some_and(|w| w.due(wire)) {
            self.notify(Notice::Watchdog);
        }
    }

    /// `STATUS=` when the line for the published state changed.
    fn report_status(&mut self) {
        if self.supervision.notifier.is_none() {
            return;
        }
        let line = supervise::status_line(&self.shared.snapshot().state);
        if line != self.status {
            self.notify(Notice::Status(&line));
            self.status = line;
        }
    }

    /// At shutdown: every LED dark (sent to the board, for the `mcu` driver) and both clock
    /// faces blank, so a stopped service leaves no stale guidance on the board.
    fn blank_devices(&mut self) {
        let (now, wire) = (self.now_ms(), self.wire_ms());
        if let Some(leds) = &mut self.leds {
            leds.blank(&mut self.connection, (now, wire), self.session.state().size);
        }
        while let Some(bytes) = self.connection.poll_transmit() {
            self.port.write(bytes);
        }
        self.devices.blank();
    }

    fn port_event(&mut self, ev: PortEvent) {
        let now = self.wire_ms();
        // Also before the first pump (a session restored from its checkpoint): PROTOCOL.md §14.
        self.connection
            .set_resume_point(self.session.resume_point());
        match ev {
            PortEvent::Opened => {
                self.link_error = None;
                self.connection.on_open(now);
            }
            PortEvent::Bytes(bytes) => self.connection.handle_bytes(&bytes, now),
            PortEvent::Closed(reason) => {
                tracing::warn!("serial port closed: {reason}");
                self.link_error = Some(reason.clone());
                self.connection.on_close(&reason);
            }
            PortEvent::OpenFailed(reason) => {
                tracing::warn!("{reason}");
                self.link_error = Some(reason);
            }
        }
    }

    /// Moves link events into the session, bytes to the port and events out. Returns whether
    /// any event was emitted.
    fn pump(&mut self) -> Result<bool, DaemonError> {
        let now = self.now_ms();
        while let Some(ev) = self.connection.poll_event() {
            let input = match ev {
                LinkEvent::Up(info) => Input::LinkUp(info),
                LinkEvent::Resumed { info, history } => Input::LinkResumed { info, history },
                LinkEvent::Scan(scan) => Input::Scan(scan),
                LinkEvent::Down { reason } => Input::LinkDown { reason },
                LinkEvent::Rejected { board_version } => {
                    let msg = format!(
                        "the board refused protocol version {} (its own version is {board_version}); update the board's firmware or this service",
                        smartgoban_protocol::PROTOCOL_VERSION
                    );
                    tracing::error!("{msg}");
                    self.link_error = Some(msg);
                    continue;
                }
            };
            // Link inputs cannot fail; an error here would be a bug, not bad input.
            if let Err(e) = self.session.handle_input(input, now) {
                tracing::error!("session refused a link input: {e}");
            }
        }
        // The referee takes nothing read from a dead sensor's neighbours as proof.
        if let Some(&report) = self.connection.sensor_health() {
            if self.health_told != Some(report) {
                self.health_told = Some(report);
                self.session
                    .set_unsensed(crate::session::dead_points(&report));
            }
        }
        // A history replayed after an outage ran the session's time on by the board's clock
        // (the time the service was down is on the players' clocks then): the shell's time
        // base follows, so time never goes back for the session.
        let ahead = self.session.now_ms().saturating_sub(self.now_ms());
        self.base_ms += ahead;
        // What the board's history is asked from after the next handshake (PROTOCOL.md §14).
        self.connection
            .set_resume_point(self.session.resume_point());
        while let Some(bytes) = self.connection.poll_transmit() {
            self.port.write(bytes);
        }
        let mut events = Vec::new();
        while let Some(event) = self.session.poll_output() {
            events.push(event);
        }
        let any = !events.is_empty();
        // Durable before published: the events, the referee's actions and the checkpoint
        // after them go to the store first (when it fails, they wait there in memory and the
        // game goes on).
        if let Some(p) = &mut self.persist {
            if any || !self.actions.is_empty() {
                p.record(&self.session, &events, std::mem::take(&mut self.actions));
            }
        }
        for event in events {
            if let Some(file) = &mut self.events_file {
                let line = serde_json::to_string(&event).unwrap_or_default();
                if let Err(source) = writeln!(file, "{line}") {
                    return Err(DaemonError::File {
                        path: self.events_path.clone().unwrap_or_default(),
                        source,
                    });
                }
            }
            self.devices.announce(&event.kind);
            log::event(&event);
            self.shared.log.push(event);
        }
        if any {
            self.record_dirty = true;
            self.keep_finished_game();
        }
        Ok(any)
    }

    /// A game in progress replaced by a new one (`POST games` with `replace`) is kept with
    /// the finished ones, without a result.
    fn keep_replaced_game(&mut self, record: &crate::rules::GameRecord) {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let id = self.shared.games.new_id(secs);
        if let Err(e) = self.shared.games.keep(&id, record) {
            tracing::error!("cannot keep the replaced game {id}: {e}");
        }
        self.finished = None;
        self.finished_in_store = None;
    }

    /// A finished game goes to the games kept on the device (again whenever its record
    /// changes, e.g. the result entered later); a new game gets a new id.
    fn keep_finished_game(&mut self) {
        let record = self.session.record();
        if self.session.referee().phase() != crate::event::Phase::Finished {
            if record.moves.is_empty() && self.finished.take().is_some() {
                self.shared.games.set_current(None);
                self.finished_in_store = None;
            }
            return;
        }
        let now = (record.moves.len(), record.info.result.clone());
        let id = match &self.finished {
            Some((id, len, result)) if (*len, result) == (now.0, &now.1) => return,
            Some((id, ..)) => id.clone(),
            None => {
                let secs = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                self.shared.games.new_id(secs)
            }
        };
        if let Some(p) = &mut self.persist {
            if self.finished_in_store.as_ref() != Some(&now) {
                p.finish(record.info.result.clone(), record.to_sgf());
                self.finished_in_store = Some(now.clone());
            }
        }
        if let Err(e) = self.shared.games.keep(&id, record) {
            // tried again at the next turn of the loop: `finished` still says otherwise
            tracing::error!("cannot keep the finished game {id}: {e}");
            self.finished = Some((id, usize::MAX, None));
            return;
        }
        self.shared.games.set_current(Some(id.clone()));
        self.finished = Some((id, now.0, now.1));
    }

    /// Shows the session's LED frame; the `mcu` driver's frame goes out on the link at once.
    /// Returns whether where the frame stands changed (shown, acknowledged…), so the snapshot
    /// says so at once.
    fn refresh_leds(&mut self) -> bool {
        let (now, wire) = (self.now_ms(), self.wire_ms());
        let storage_ok = self.storage_alert().is_none();
        let Some(leds) = &mut self.leds else {
            return false;
        };
        leds.refresh(&self.session, &mut self.connection, (now, wire), storage_ok);
        while let Some(bytes) = self.connection.poll_transmit() {
            self.port.write(bytes);
        }
        leds.delivery_changed(&self.connection)
    }

    fn publish(&mut self) {
        let mut snap = snapshot_of(&self.session, self.link_error.clone(), &self.connection);
        snap.state.storage_error = self.storage_alert();
        snap.leds = self
            .leds
            .as_ref()
            .and_then(|l| l.snapshot(&self.connection));
        snap.last_seq = self.shared.log.last_seq();
        let snap = Arc::new(snap);
        let now = Instant::now();
        self.shared.delay.record(now, &snap);
        self.shared.delay.advance(&snap, now);
        let _ = self.snapshot.send(snap);
        // Only now: whoever waits for a scan to be taken in finds its effects in the snapshot
        // (a loop turn may take in many scans before it publishes).
        self.shared
            .set_last_scan_counter(self.session.stats().last_scan_counter);
    }

    /// Why the record is not being kept on the disk now, if it is not: the store's error
    /// first, then the `current.sgf` file's.
    fn storage_alert(&self) -> Option<String> {
        self.persist
            .as_ref()
            .and_then(|p| p.error())
            .map(|e| match self.persist.as_ref().map(|p| p.backlog()) {
                Some(n) if n > 0 => format!("{e} ({n} events kept in memory until it does)"),
                _ => e.to_owned(),
            })
            .or_else(|| self.storage_error.clone())
    }

    fn flush_events(&mut self) -> Result<(), DaemonError> {
        if let Some(file) = &mut self.events_file {
            file.flush().map_err(|source| DaemonError::File {
                path: self.events_path.clone().unwrap_or_default(),
                source,
            })?;
        }
        Ok(())
    }

    /// Rewrites `DATA_DIR/current.sgf` atomically when the record changed (at most every
    /// [`REFRESH`] unless `force`). A failed write is logged and retried on the next change:
    /// the game goes on.
    fn write_record(&mut self, force: bool) -> Result<(), DaemonError> {
        let Some(dir) = &self.data_dir else {
            return Ok(());
        };
        if !self.record_dirty
            || (!force
                && self
                    .last_record_write
                    .is_some_and(|t| t.elapsed() < REFRESH))
        {
            return Ok(());
        }
        let path = dir.join("current.sgf");
        self.last_record_write = Some(Instant::now());
        match crate::files::write_atomic(&path, self.session.record().to_sgf().as_bytes()) {
            Ok(()) => {
                self.record_dirty = false;
                if self.storage_error.take().is_some() {
                    tracing::info!("the record is written again to {}", path.display());
                }
            }
            // The game goes on in memory; the record is written again on the next change.
            Err(e) => {
                let msg = format!("cannot write {}: {e}", path.display());
                if self.storage_error.as_deref() != Some(msg.as_str()) {
                    tracing::error!("{msg}");
                    self.storage_error = Some(msg);
                }
            }
        }
        self.flush_events()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_earlier_record_is_moved_aside_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        keep_earlier_record(dir.path()).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        std::fs::write(dir.path().join("current.sgf"), "(;B[aa])").unwrap();
        keep_earlier_record(dir.path()).unwrap();
        std::fs::write(dir.path().join("current.sgf"), "(;B[bb])").unwrap();
        keep_earlier_record(dir.path()).unwrap();
        let mut kept: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
        kept.sort();
        assert_eq!(kept, ["(;B[aa])", "(;B[bb])"]);
        assert!(!dir.path().join("current.sgf").exists());
    }
}
