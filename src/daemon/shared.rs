//! What the session task shares with the HTTP server and the CLI: the latest snapshot and the
//! event log.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{broadcast, mpsc, oneshot, watch};

use crate::event::Event;
use crate::link::LinkStats;
use crate::session::{Command, MoveView, SessionError, SessionStats, StateView};

/// The state of the game at one moment, as the API serves it.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// `GET /api/v1/state`.
    pub state: StateView,
    /// `GET /api/v1/game.sgf`: the record so far.
    pub sgf: String,
    /// `GET /api/v1/moves`: every move of the record.
    pub moves: Vec<MoveView>,
    /// Link counters.
    pub link: LinkStats,
    /// Session counters.
    pub session: SessionStats,
    /// The last problem opening the device or with the handshake, if the link is not up.
    pub link_error: Option<String>,
    /// The last problem writing the record, while it lasts (the game goes on in memory).
    pub storage_error: Option<String>,
    /// `GET /api/v1/leds`: the LED frame being shown (none without LEDs).
    pub leds: Option<super::LedsSnapshot>,
}

/// Every event of the service run, in order, plus a broadcast for live followers.
///
/// Events are small (a few hundred bytes) and a game has a few thousand, so all of them are
/// kept: a client that reconnects gets every event it missed, with the same ids.
#[derive(Debug)]
pub struct EventLog {
    events: Mutex<Vec<Arc<Event>>>,
    live: broadcast::Sender<Arc<Event>>,
}

impl EventLog {
    /// An empty log.
    pub fn new() -> Self {
        let (live, _) = broadcast::channel(1024);
        EventLog {
            events: Mutex::new(Vec::new()),
            live,
        }
    }

    /// Appends an event and tells live followers.
    pub fn push(&self, event: Event) {
        let event = Arc::new(event);
        self.lock().push(event.clone());
        let _ = self.live.send(event);
    }

    /// Events with `seq` greater than `after`, oldest first.
    pub fn since(&self, after: u64) -> Vec<Arc<Event>> {
        let events = self.lock();
        let start = events.partition_point(|e| e.seq <= after);
        events[start..].to_vec()
    }

    /// Number of events so far.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// No events yet.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Follows new events (subscribe before reading the backlog, then skip duplicates by
    /// `seq`).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.live.subscribe()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Event>>> {
        // A panic while holding this lock cannot leave the Vec half-written; keep serving.
        self.events.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Default for EventLog {
    fn default() -> Self {
        EventLog::new()
    }
}

/// Who may do what over HTTP (`[api]` in the config file).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApiAccess {
    /// The referee's token (`Authorization: Bearer TOKEN`); without one, no writes.
    pub token: Option<String>,
    /// Reads (state, moves, records, feeds, LEDs) need no token.
    pub public_reads: bool,
}

/// A command and where its outcome goes.
pub type CommandRequest = (Command, oneshot::Sender<Result<(), SessionError>>);

/// Handles shared between the session task and its readers.
#[derive(Debug)]
pub struct Shared {
    /// Latest snapshot.
    pub snapshot: watch::Receiver<Arc<Snapshot>>,
    /// Every event.
    pub log: EventLog,
    /// Who may read and write.
    pub access: ApiAccess,
    /// Counter of the last scan the session took in, plus one (0 = none since the handshake).
    last_scan: AtomicU64,
    commands: mpsc::Sender<CommandRequest>,
}

impl Shared {
    pub(super) fn new(
        snapshot: watch::Receiver<Arc<Snapshot>>,
        commands: mpsc::Sender<CommandRequest>,
        access: ApiAccess,
    ) -> Self {
        Shared {
            snapshot,
            log: EventLog::new(),
            access,
            last_scan: AtomicU64::new(0),
            commands,
        }
    }

    /// Sends a command to the session and waits until it is applied (or refused).
    ///
    /// # Errors
    /// The session refused it (nothing changed), or the session task is gone (`None`).
    pub async fn command(&self, command: Command) -> Option<Result<(), SessionError>> {
        let (tx, rx) = oneshot::channel();
        self.commands.send((command, tx)).await.ok()?;
        rx.await.ok()
    }

    /// The latest snapshot.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        self.snapshot.borrow().clone()
    }

    /// Counter of the last scan the session has taken in since the last handshake.
    pub fn last_scan_counter(&self) -> Option<u32> {
        match self.last_scan.load(Ordering::Acquire) {
            0 => None,
            n => Some((n - 1) as u32),
        }
    }

    pub(super) fn set_last_scan_counter(&self, counter: Option<u32>) {
        let v = counter.map_or(0, |c| u64::from(c) + 1);
        self.last_scan.store(v, Ordering::Release);
    }
}
