//! Supervision by the service manager (issue 16): the sd_notify(3) protocol under systemd's
//! `Type=notify` — `READY=1` once the API listens and the store is open, `STATUS=` lines a
//! person reads in `systemctl status`, `WATCHDOG=1` from the daemon's own loop (so a loop that
//! hangs is restarted, however alive the process's other threads are) and `STOPPING=1`.
//!
//! The [`Notifier`] trait is the shell's edge: [`SystemdNotifier`] speaks the protocol through
//! the `sd-notify` crate; [`RecordingNotifier`] keeps what was said, for tests. What the status
//! says is a pure function of the state ([`status_line`]).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::event::{LinkState, Phase};
use crate::session::StateView;

/// One notification (sd_notify(3)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notice<'a> {
    /// `READY=1`: start-up is finished (the API listens, the store is open).
    Ready,
    /// `STATUS=…`: one line for `systemctl status`.
    Status(&'a str),
    /// `WATCHDOG=1`: the daemon's loop is alive.
    Watchdog,
    /// `STOPPING=1`: shutting down.
    Stopping,
}

/// Where notifications go.
pub trait Notifier: Send + Sync {
    /// Sends `notice`. A manager that cannot be reached is logged, never an error: the
    /// service runs the same without one.
    fn send(&self, notice: Notice<'_>);

    /// How often the daemon's loop must send [`Notice::Watchdog`]: half the manager's
    /// `WATCHDOG_USEC` (sd_watchdog_enabled(3) asks for pings at least that often), or `None`
    /// without a watchdog.
    fn watchdog_interval(&self) -> Option<Duration>;

    /// Waits, at most `timeout`, until what was sent has gone out (before the process
    /// exits: `STOPPING=1` must reach the manager).
    fn flush(&self, timeout: Duration) {
        let _ = timeout;
    }
}

/// What the daemon is told about its supervision (`DaemonConfig::supervision`).
#[derive(Clone, Default)]
pub struct Supervision {
    /// The service manager, if the service runs under one.
    pub notifier: Option<Arc<dyn Notifier>>,
    /// Test hook (`SMARTGOBAN_TEST_HANG_AFTER_MS`): the daemon's loop waits for good this
    /// long after it starts, as a loop stuck on an await that never completes would; the
    /// watchdog pings stop while the API, another task, still answers.
    pub hang_after: Option<Duration>,
}

impl std::fmt::Debug for Supervision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Supervision")
            .field("notifier", &self.notifier.is_some())
            .field("hang_after", &self.hang_after)
            .finish()
    }
}

/// systemd (or any manager speaking sd_notify(3)) through `$NOTIFY_SOCKET`.
///
/// The datagrams go out from a thread of their own: a manager that does not read its socket
/// (its queue full) must never stall the game. What the loop hands over waits in a bounded
/// queue; when that is full too, the notice is dropped (and said once in the log).
#[derive(Debug)]
pub struct SystemdNotifier {
    watchdog: Option<Duration>,
    queue: std::sync::mpsc::SyncSender<String>,
    dropped: std::sync::atomic::AtomicBool,
    /// Notices queued, and notices the thread has sent (or failed to send).
    queued: std::sync::atomic::AtomicU64,
    sent: Arc<std::sync::atomic::AtomicU64>,
}

/// Notices waiting for the sending thread.
const QUEUE: usize = 64;

impl SystemdNotifier {
    /// The manager of this process, when `$NOTIFY_SOCKET` names one; its watchdog from
    /// `$WATCHDOG_USEC` when `$WATCHDOG_PID` is this process (as systemd sets them). `None`
    /// also when the sending thread cannot start (logged).
    pub fn from_env() -> Option<SystemdNotifier> {
        std::env::var_os("NOTIFY_SOCKET")?;
        let mut usec = 0;
        let watchdog = (sd_notify::watchdog_enabled(false, &mut usec) && usec > 0)
            .then(|| Duration::from_micros(usec / 2));
        let (queue, rx) = std::sync::mpsc::sync_channel::<String>(QUEUE);
        let sent = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let sent_by_thread = sent.clone();
        let started = std::thread::Builder::new()
            .name("sd-notify".into())
            .spawn(move || {
                for line in rx {
                    let state = match line.as_str() {
                        "READY=1" => sd_notify::NotifyState::Ready,
                        "WATCHDOG=1" => sd_notify::NotifyState::Watchdog,
                        "STOPPING=1" => sd_notify::NotifyState::Stopping,
                        other => sd_notify::NotifyState::Status(
                            other.strip_prefix("STATUS=").unwrap_or(other),
                        ),
                    };
                    if let Err(e) = sd_notify::notify(false, &[state]) {
                        tracing::warn!("cannot notify the service manager ($NOTIFY_SOCKET): {e}");
                    }
                    sent_by_thread.fetch_add(1, std::sync::atomic::Ordering::Release);
                }
            });
        if let Err(e) = started {
            tracing::error!("cannot start the thread that notifies the service manager: {e}");
            return None;
        }
        Some(SystemdNotifier {
            watchdog,
            queue,
            dropped: Default::default(),
            queued: Default::default(),
            sent,
        })
    }
}

impl Notifier for SystemdNotifier {
    fn send(&self, notice: Notice<'_>) {
        use std::sync::atomic::Ordering;
        match self.queue.try_send(notice.line()) {
            Ok(()) => {
                self.queued.fetch_add(1, Ordering::Relaxed);
                self.dropped.store(false, Ordering::Relaxed);
            }
            Err(_) if !self.dropped.swap(true, Ordering::Relaxed) => tracing::warn!(
                "the service manager does not read its notifications: dropping them until it does"
            ),
            Err(_) => {}
        }
    }

    fn flush(&self, timeout: Duration) {
        use std::sync::atomic::Ordering;
        let until = std::time::Instant::now() + timeout;
        while self.sent.load(Ordering::Acquire) < self.queued.load(Ordering::Relaxed)
            && std::time::Instant::now() < until
        {
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn watchdog_interval(&self) -> Option<Duration> {
        self.watchdog
    }
}

impl Notice<'_> {
    /// The sd_notify(3) line: `READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`.
    pub fn line(&self) -> String {
        match self {
            Notice::Ready => "READY=1".to_string(),
            Notice::Status(s) => format!("STATUS={s}"),
            Notice::Watchdog => "WATCHDOG=1".to_string(),
            Notice::Stopping => "STOPPING=1".to_string(),
        }
    }
}

/// Keeps every notice as its sd_notify(3) line (`READY=1`, `STATUS=…`), for tests.
#[derive(Debug, Default)]
pub struct RecordingNotifier {
    /// The lines sent, in order.
    pub lines: Mutex<Vec<String>>,
    /// What [`Notifier::watchdog_interval`] answers.
    pub watchdog: Option<Duration>,
}

impl Notifier for RecordingNotifier {
    fn send(&self, notice: Notice<'_>) {
        self.lines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(notice.line());
    }

    fn watchdog_interval(&self) -> Option<Duration> {
        self.watchdog
    }
}

/// The one line `systemctl status` shows for `state`, most urgent first: a storage error
/// (the game goes on in memory), the board not connected (`waiting for the board`), then the
/// game's phase with the move number.
pub fn status_line(state: &StateView) -> String {
    if let Some(e) = &state.storage_error {
        return format!("storage error: {e} (the game goes on in memory)");
    }
    if state.link.state != LinkState::Connected {
        return match &state.link.error {
            Some(e) if e.starts_with("waiting for the board") => e.clone(),
            Some(e) => format!("waiting for the board: {e}"),
            None => "waiting for the board".to_string(),
        };
    }
    let n = state.move_number;
    let to_move = state.to_move.as_str();
    match state.phase {
        Phase::Setup => "board connected, waiting for the starting position".to_string(),
        Phase::Play => format!("game in progress, move {n}, {to_move} to play"),
        Phase::Desync => format!("game in progress, move {n}: the board must be fixed"),
        Phase::Paused => format!("game paused at move {n}"),
        Phase::Scoring => format!("counting after move {n}"),
        Phase::Finished => match &state.game.result {
            Some(result) => format!("game over after move {n}: {result}"),
            None => format!("game over after move {n}"),
        },
    }
}

/// When the next watchdog ping is due, from the loop's own clock (ms).
#[derive(Clone, Copy, Debug)]
pub(super) struct WatchdogPace {
    interval_ms: u64,
    last_ms: Option<u64>,
}

impl WatchdogPace {
    /// Pings every `interval`.
    pub(super) fn new(interval: Duration) -> WatchdogPace {
        WatchdogPace {
            interval_ms: (interval.as_millis() as u64).max(1),
            last_ms: None,
        }
    }

    /// Whether a ping is due at `now_ms`; if so it counts as sent.
    pub(super) fn due(&mut self, now_ms: u64) -> bool {
        let due = self
            .last_ms
            .is_none_or(|last| now_ms >= last + self.interval_ms);
        if due {
            self.last_ms = Some(now_ms);
        }
        due
    }

    /// The ms until the next ping is due (0 when it is).
    pub(super) fn until_due(&self, now_ms: u64) -> u64 {
        self.last_ms
            .map_or(0, |last| (last + self.interval_ms).saturating_sub(now_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::GameSetup;
    use crate::session::{Session, SessionConfig};

    fn state() -> StateView {
        Session::new(SessionConfig::default(), &GameSetup::even(19))
            .unwrap()
            .state()
    }

    #[test]
    fn the_status_says_what_a_person_needs_most() {
        let mut s = state();
        s.link.error = Some("waiting for the board: /dev/smartgoban does not exist yet".into());
        assert_eq!(
            status_line(&s),
            "waiting for the board: /dev/smartgoban does not exist yet"
        );
        s.link.error = Some("cannot open /dev/ttyACM0: Permission denied".into());
        assert_eq!(
            status_line(&s),
            "waiting for the board: cannot open /dev/ttyACM0: Permission denied"
        );
        s.link.state = LinkState::Connected;
        s.phase = Phase::Play;
        s.move_number = 41;
        s.to_move = crate::rules::Color::White;
        assert_eq!(status_line(&s), "game in progress, move 41, white to play");
        s.storage_error = Some("disk full".into());
        assert_eq!(
            status_line(&s),
            "storage error: disk full (the game goes on in memory)"
        );
        s.storage_error = None;
        s.phase = Phase::Finished;
        s.game.result = Some("B+R".into());
        assert_eq!(status_line(&s), "game over after move 41: B+R");
    }

    #[test]
    fn the_watchdog_is_due_at_once_then_every_interval() {
        let mut pace = WatchdogPace::new(Duration::from_millis(500));
        assert!(pace.due(1_000));
        assert!(!pace.due(1_499));
        assert_eq!(pace.until_due(1_200), 300);
        assert!(pace.due(1_500));
        assert!(!pace.due(1_700));
        assert!(pace.due(2_600), "a late loop pings as soon as it runs");
        assert_eq!(pace.until_due(2_600), 500);
    }

    #[test]
    fn the_recording_notifier_keeps_the_protocol_lines() {
        let n = RecordingNotifier::default();
        n.send(Notice::Ready);
        n.send(Notice::Status("game in progress, move 3, black to play"));
        n.send(Notice::Watchdog);
        n.send(Notice::Stopping);
        assert_eq!(
            *n.lines.lock().unwrap(),
            [
                "READY=1",
                "STATUS=game in progress, move 3, black to play",
                "WATCHDOG=1",
                "STOPPING=1"
            ]
        );
    }
}
