//! What the session task shares with the HTTP server and the CLI: the latest snapshot and the
//! event log.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
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
    /// `GET /api/v1/leds`: the LED frame being shown (none without LEDs).
    pub leds: Option<super::LedsSnapshot>,
    /// The `seq` of the last event this snapshot includes (0: none): a feed that starts from
    /// this snapshot goes on with the events after it.
    pub last_seq: u64,
    /// `GET /api/v1/state`'s body, made on first use ([`Snapshot::state_body`]). A new
    /// snapshot starts with it empty.
    pub state_body: std::sync::OnceLock<bytes::Bytes>,
}

impl Snapshot {
    /// `GET /api/v1/state`'s JSON body: [`Snapshot::state`] (its `link.error` and
    /// `storage_error` filled by the shell). Serialised once per snapshot, on first use; every
    /// reader of the snapshot then shares the same bytes.
    pub fn state_body(&self) -> bytes::Bytes {
        self.state_body
            .get_or_init(|| serde_json::to_vec(&self.state).unwrap_or_default().into())
            .clone()
    }
}

/// Counters of the live feeds (`GET /metrics`).
#[derive(Debug, Default)]
pub struct FeedCounters {
    /// SSE clients connected now.
    pub sse_clients: AtomicI64,
    /// WebSocket clients connected now.
    pub ws_clients: AtomicI64,
    /// Events written to feeds, all clients together.
    pub events_sent: AtomicU64,
}

/// What the MQTT publisher has done (`GET /metrics`; all zero without `[mqtt]`).
#[derive(Debug, Default)]
pub struct MqttCounters {
    /// The publisher runs (`[mqtt]` or `--mqtt`).
    pub enabled: std::sync::atomic::AtomicBool,
    /// Connected to the broker now.
    pub connected: std::sync::atomic::AtomicBool,
    /// Connections made (CONNACK received).
    pub connects: AtomicU64,
    /// The seq of the last event the broker acknowledged.
    pub acked_seq: AtomicU64,
    /// Events sent (again after an outage, counted again).
    pub events_sent: AtomicU64,
    /// Commands from the hall carried out (whatever their answer).
    pub commands: AtomicU64,
}

/// The events of the service run, in order, plus a broadcast for live followers.
///
/// Events are small (a few hundred bytes) and a game has a few thousand, so the last
/// [`EventLog::KEPT`] are kept (tens of games): a client that reconnects gets every event it
/// missed, with the same ids; one whose last event is older gets a snapshot first.
#[derive(Debug)]
pub struct EventLog {
    events: Mutex<std::collections::VecDeque<Arc<Event>>>,
    live: broadcast::Sender<Arc<Event>>,
    kept: usize,
    /// The `seq` of the run's first event (0 before any).
    first: AtomicU64,
    /// Events pushed since the log was made (this run of the service).
    pushed: AtomicU64,
    /// When the newest events were handed to the feeds, at most [`EventLog::INSTANTS_KEPT`]:
    /// what delivery latency is measured from ([`EventLog::published_at`]).
    published: Mutex<std::collections::VecDeque<(u64, std::time::Instant)>>,
}

impl EventLog {
    /// Events kept for clients that reconnect.
    pub const KEPT: usize = 100_000;

    /// Publish instants kept ([`EventLog::published_at`]): minutes of the busiest game.
    pub const INSTANTS_KEPT: usize = 16_384;

    /// An empty log.
    pub fn new() -> Self {
        EventLog::with_capacity(Self::KEPT)
    }

    /// An empty log that keeps the last `kept` events.
    pub fn with_capacity(kept: usize) -> Self {
        let (live, _) = broadcast::channel(1024);
        EventLog {
            events: Mutex::new(std::collections::VecDeque::new()),
            live,
            kept: kept.max(1),
            first: AtomicU64::new(0),
            pushed: AtomicU64::new(0),
            published: Mutex::new(std::collections::VecDeque::new()),
        }
    }

    /// Appends an event and tells live followers; forgets the oldest beyond the capacity.
    pub fn push(&self, event: Event) {
        let event = Arc::new(event);
        {
            let mut events = self.lock();
            if events.is_empty() {
                let _ =
                    self.first
                        .compare_exchange(0, event.seq, Ordering::AcqRel, Ordering::Acquire);
            }
            events.push_back(event.clone());
            self.pushed.fetch_add(1, Ordering::AcqRel);
            while events.len() > self.kept {
                events.pop_front();
            }
        }
        {
            let mut published = self.published.lock().unwrap_or_else(|e| e.into_inner());
            published.push_back((event.seq, std::time::Instant::now()));
            if published.len() > Self::INSTANTS_KEPT {
                published.pop_front();
            }
        }
        let _ = self.live.send(event);
    }

    /// The instant event `seq` was handed to the live feeds, if it is among the newest
    /// [`EventLog::INSTANTS_KEPT`]: where a follower's delivery latency starts.
    pub fn published_at(&self, seq: u64) -> Option<std::time::Instant> {
        let published = self.published.lock().unwrap_or_else(|e| e.into_inner());
        let i = published.partition_point(|&(s, _)| s < seq);
        published
            .get(i)
            .filter(|&&(s, _)| s == seq)
            .map(|&(_, at)| at)
    }

    /// Events with `seq` greater than `after`, oldest first.
    pub fn since(&self, after: u64) -> Vec<Arc<Event>> {
        let events = self.lock();
        let start = events.partition_point(|e| e.seq <= after);
        events.range(start..).cloned().collect()
    }

    /// Whether a client whose last event is `after` (0: none yet) missed events the log no
    /// longer keeps, or comes from another run (an `after` before this run's first event or
    /// beyond its newest), or saw an event the log does not have (published by a run that
    /// died before it could store it: the numbers jump there, and what it saw may not have
    /// happened as it saw it).
    pub fn lost_since(&self, after: u64) -> bool {
        let events = self.lock();
        let first_ever = self.first.load(Ordering::Acquire);
        match (events.front(), events.back()) {
            (Some(front), _) if after == 0 => front.seq > first_ever,
            (Some(front), Some(last)) => {
                let unknown = after >= front.seq && {
                    let i = events.partition_point(|e| e.seq < after);
                    events.get(i).is_none_or(|e| e.seq != after)
                };
                after + 1 < first_ever || after + 1 < front.seq || after > last.seq || unknown
            }
            _ => after > 0,
        }
    }

    /// Events pushed since the service started: a count (a `seq` is an id, not a count:
    /// unique and increasing across restarts, but not consecutive across them).
    pub fn emitted(&self) -> u64 {
        self.pushed.load(Ordering::Acquire)
    }

    /// The `seq` of the oldest event the log still keeps, `None` if it keeps none: older ones
    /// are in the store (the MQTT outbox reads them there).
    pub fn oldest_seq(&self) -> Option<u64> {
        self.lock().front().map(|e| e.seq)
    }

    /// The `seq` of the newest event, 0 if none.
    pub fn last_seq(&self) -> u64 {
        self.lock().back().map_or(0, |e| e.seq)
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

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<Arc<Event>>> {
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
    /// Feed counters for `GET /metrics`.
    pub feeds: FeedCounters,
    /// The MQTT publisher's counters for `GET /metrics`.
    pub mqtt: Arc<MqttCounters>,
    /// Finished games kept on the device.
    pub games: super::games::GameStore,
    /// The public broadcast delay.
    pub delay: super::delay::Delay,
    /// Counter of the last scan the session took in, plus one (0 = none since the handshake).
    last_scan: AtomicU64,
    commands: mpsc::Sender<CommandRequest>,
}

impl Shared {
    pub(super) fn new(
        snapshot: watch::Receiver<Arc<Snapshot>>,
        commands: mpsc::Sender<CommandRequest>,
        access: ApiAccess,
        games: super::games::GameStore,
    ) -> Self {
        let first = snapshot.borrow().clone();
        Shared {
            delay: super::delay::Delay::new(first),
            snapshot,
            log: EventLog::new(),
            access,
            feeds: FeedCounters::default(),
            mqtt: Arc::default(),
            games,

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

    /// The snapshot a reader sees: live for the referee or without a broadcast delay, the
    /// delayed public one otherwise.
    pub fn view(&self, referee: bool) -> Arc<Snapshot> {
        if referee || self.delay.settings().is_zero() {
            self.snapshot()
        } else {
            self.delay.public()
        }
    }

    /// Counter of the last scan the session has taken in since the last handshake and whose
    /// effects are in the published snapshot and the event log.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventKind;
    use crate::rules::Color;

    fn pass(seq: u64) -> Event {
        Event {
            seq,
            t_ms: seq,
            kind: EventKind::Pass {
                color: Color::Black,
                number: seq as u32,
            },
        }
    }

    /// The state's body is made once per snapshot and shared (issue 15, item 12), with the
    /// shell's additions in it.
    #[test]
    fn the_state_body_is_serialised_once_per_snapshot() {
        let session = crate::session::Session::new(
            crate::session::SessionConfig::default(),
            &crate::referee::GameSetup::even(9),
        )
        .unwrap();
        let mut state = session.state();
        state.link.error = Some("waiting for the board".into());
        state.storage_error = Some("disk full".into());
        let snap = Snapshot {
            state,
            sgf: String::new(),
            moves: Vec::new(),
            link: Default::default(),
            session: Default::default(),
            leds: None,
            last_seq: 0,
            state_body: Default::default(),
        };
        let (a, b) = (snap.state_body(), snap.state_body());
        assert_eq!(a.as_ptr(), b.as_ptr(), "the same bytes, not made again");
        let value: serde_json::Value = serde_json::from_slice(&a).unwrap();
        assert_eq!(value, serde_json::to_value(&snap.state).unwrap());
        assert_eq!(value["link"]["error"], "waiting for the board");
        assert_eq!(value["storage_error"], "disk full");
        assert_eq!(value["size"], 9);
    }

    /// Each event's publish instant is kept for the newest [`EventLog::INSTANTS_KEPT`], in
    /// order: what delivery latency is measured from.
    #[test]
    fn the_publish_instants_of_the_newest_events_are_kept() {
        let log = EventLog::with_capacity(10);
        let before = std::time::Instant::now();
        let n = EventLog::INSTANTS_KEPT as u64 + 5;
        for seq in 1..=n {
            log.push(pass(seq * 2));
        }
        let after = std::time::Instant::now();
        assert_eq!(log.published_at(2), None, "the oldest are forgotten");
        assert_eq!(log.published_at(2 * n + 1), None, "never published");
        assert_eq!(log.published_at(7), None);
        let (a, b) = (
            log.published_at(2 * n - 2).unwrap(),
            log.published_at(2 * n).unwrap(),
        );
        assert!(before <= a && a <= b && b <= after);
        assert!(log.published_at(12).is_some(), "5 forgotten, the 6th kept");
        assert_eq!(log.published_at(10), None);
    }

    #[test]
    fn the_log_keeps_the_newest_and_knows_what_it_lost() {
        let log = EventLog::with_capacity(3);
        assert!(!log.lost_since(0));
        for seq in 10..15 {
            log.push(pass(seq));
        }
        assert!(log.lost_since(0), "10 and 11 are gone: a snapshot first");
        // Kept: 12, 13, 14.
        assert_eq!(
            log.since(0).iter().map(|e| e.seq).collect::<Vec<_>>(),
            [12, 13, 14]
        );
        assert_eq!(log.since(12).len(), 2);
        assert!(!log.lost_since(11), "12 onwards is all there");
        assert!(log.lost_since(10), "11 is gone");
        assert!(log.lost_since(15), "an id from another run");
        let fresh = EventLog::with_capacity(10);
        for seq in 1000..1003 {
            fresh.push(pass(seq));
        }
        assert!(!fresh.lost_since(0), "from the start: everything is there");
        assert!(!fresh.lost_since(999));
        assert!(fresh.lost_since(50), "an id of an earlier run");
        assert_eq!(log.last_seq(), 14);
        // A resumed run: the stored events up to 1002, then this run's from 5000 on. 1003 was
        // published by the run that died and never stored.
        fresh.push(pass(5000));
        assert!(!fresh.lost_since(1002), "all it saw is kept");
        assert!(
            fresh.lost_since(1003),
            "it saw an event that is gone: a snapshot first"
        );
        assert!(!fresh.lost_since(5000));
    }
}
