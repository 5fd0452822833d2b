//! Keeping the record: the session task's side of the [`Store`] (issue 7).
//!
//! Every batch of events goes to the store, with the clock readings, the referee's actions and
//! a checkpoint of the session, in one transaction *before* the events are published; while a
//! clock runs, a reading and a beat (time run since) are written every [`READING_EVERY`]. When
//! the store cannot take a write (disk full, read-only data directory, the database cannot be opened),
//! the game goes on in memory: the writes queue up in order, the error is served as the
//! `storage_error` alert (API, LEDs), and the queue is written, oldest first, as soon as the
//! store takes it again — tried every [`RETRY_EVERY`].

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::event::{Event, EventKind};
use crate::referee::GameSetup;
use crate::session::{Session, SessionConfig};
use crate::store::{unix_now_ms, ActionRow, Batch, Checkpoint, Store, StoreError};

/// A clock reading and a beat are kept this often while a clock runs: a crash costs the
/// player to move at most this much of the time really used.
pub const READING_EVERY: Duration = Duration::from_secs(1);

/// A store that failed is tried again this often.
pub const RETRY_EVERY: Duration = Duration::from_secs(1);

/// Attempts to open a busy database at start-up, 200 ms apart.
const OPEN_ATTEMPTS: usize = 25;

/// One write, in the order it happened.
#[derive(Debug)]
enum Op {
    /// A new game starts (its setup and settings as JSON).
    Begin {
        unix_ms: i64,
        setup: String,
        config: String,
    },
    Write(Batch),
    /// The game on the board ended with this result and record.
    Finish {
        unix_ms: i64,
        result: Option<String>,
        sgf: String,
    },
}

/// What a restart found in the store: the game in progress.
#[derive(Debug)]
pub(super) struct Resumed {
    /// The session, as restored from its checkpoint (or started again from the game's setup
    /// if it had none yet).
    pub session: Session,
    /// The game's events kept in the store, oldest first (for feed clients that resume).
    pub history: Vec<Event>,
    /// Wall clock of the checkpoint, ms since 1970.
    pub checkpoint_unix_ms: i64,
}

/// The store, the writes waiting for it, and its error.
#[derive(Debug)]
pub(super) struct Persist {
    dir: PathBuf,
    store: Option<Store>,
    /// The store's id of the game on the board, once its `Begin` is written.
    game: Option<i64>,
    queue: VecDeque<Op>,
    error: Option<String>,
    last_try: Option<Instant>,
    last_reading: Option<Instant>,
}

impl Persist {
    /// Opens the store in `dir`; a store that cannot be opened is an error served at once
    /// and tried again later (the game does not wait for the disk).
    pub fn open(dir: &Path) -> Persist {
        let mut persist = Persist {
            dir: dir.to_path_buf(),
            store: None,
            game: None,
            queue: VecDeque::new(),
            error: None,
            last_try: None,
            last_reading: None,
        };
        // A database busy with the recovery of a killed writer's WAL, or a reader, answers
        // `SQLITE_BUSY` for a moment: wait for it rather than start a new game beside the one
        // in progress.
        for _ in 0..OPEN_ATTEMPTS {
            match persist.try_open() {
                Err(e) if e.is_busy() => std::thread::sleep(Duration::from_millis(200)),
                _ => break,
            }
        }
        persist
    }

    fn try_open(&mut self) -> Result<(), StoreError> {
        if self.store.is_some() {
            return Ok(());
        }
        self.last_try = Some(Instant::now());
        match Store::open(&self.dir) {
            Ok(store) => {
                self.store = Some(store);
                Ok(())
            }
            Err(e) => {
                self.fail(e.to_string());
                Err(e)
            }
        }
    }

    fn fail(&mut self, msg: String) {
        if self.error.as_deref() != Some(msg.as_str()) {
            tracing::error!("the store does not take the record: {msg}; the game goes on in memory and is written once it does");
            self.error = Some(msg);
        }
    }

    /// Why the store does not take the record now, if it does not.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Events waiting for the store (kept in memory, in order).
    pub fn backlog(&self) -> usize {
        self.queue
            .iter()
            .map(|op| match op {
                Op::Write(batch) => batch.events.len(),
                _ => 0,
            })
            .sum()
    }

    /// The first `seq` a new session may use: above every event in the store.
    pub fn next_seq(&self) -> u64 {
        self.store
            .as_ref()
            .and_then(|s| s.last_seq().ok().flatten())
            .map_or(1, |s| s + 1)
    }

    /// The game in progress in the store, restored, if there is one (and the store opened).
    /// A checkpoint that cannot be read back (another version) is reported and the game is
    /// left for a new one: its events stay in the store.
    pub fn resume(&mut self, config: SessionConfig) -> Option<Resumed> {
        let store = self.store.as_ref()?;
        let row = match store.game_in_progress() {
            Ok(row) => row?,
            Err(e) => {
                tracing::error!("cannot read the game in progress: {e}");
                return None;
            }
        };
        let checkpoint = store.checkpoint(row.id).ok().flatten();
        let history: Vec<Event> = store
            .events(row.id, super::EventLog::KEPT)
            .unwrap_or_default()
            .iter()
            .filter_map(|e| serde_json::from_str(e).ok())
            .collect();
        let (session, checkpoint_unix_ms) = match checkpoint {
            Some(Checkpoint {
                state,
                unix_ms,
                beat,
                ..
            }) => {
                // the clock ran on after the checkpoint, up to its beat
                match Session::restore(&state, beat.map(|b| b.0), config.first_seq) {
                    Ok(session) => (session, beat.map_or(unix_ms, |b| b.1)),
                    Err(e) => {
                        tracing::error!("game {} cannot be resumed: {e}", row.id);
                        return None;
                    }
                }
            }
            // killed before its first event: the game starts again from its setup
            None => {
                let setup: GameSetup = serde_json::from_str(&row.setup).ok()?;
                let config = SessionConfig {
                    first_seq: config.first_seq.max(self.next_seq()),
                    ..config
                };
                (Session::new(config, &setup).ok()?, row.started_unix_ms)
            }
        };
        self.game = Some(row.id);
        tracing::info!(
            "resumed game {} at move {} ({} events kept)",
            row.id,
            session.record().moves.len(),
            history.len()
        );
        Some(Resumed {
            session,
            history,
            checkpoint_unix_ms,
        })
    }

    /// A new game starts on the board (at start-up, or the referee's `POST games`).
    pub fn begin_game(&mut self, setup: &GameSetup, config: &SessionConfig) {
        self.queue.push_back(Op::Begin {
            unix_ms: unix_now_ms(),
            setup: serde_json::to_string(setup).unwrap_or_default(),
            config: serde_json::to_string(config).unwrap_or_default(),
        });
        self.flush();
    }

    /// The game on the board ended (again when its result changes).
    pub fn finish(&mut self, result: Option<String>, sgf: String) {
        self.queue.push_back(Op::Finish {
            unix_ms: unix_now_ms(),
            result,
            sgf,
        });
        self.flush();
    }

    /// Writes `events` and `actions` with the session's checkpoint after them (and a clock
    /// reading for each `clock` event). Returns whether they are durable; when they are not,
    /// they wait in memory, in order, and the caller publishes them anyway (the game goes
    /// on).
    pub fn record(&mut self, session: &Session, events: &[Event], actions: Vec<ActionRow>) -> bool {
        let unix_ms = unix_now_ms();
        let readings = events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Clock { clock, .. } => Some((e.seq, e.t_ms, unix_ms, clock.clone())),
                _ => None,
            })
            .collect();
        let batch = Batch {
            events: events.to_vec(),
            readings,
            actions,
            checkpoint: self.checkpoint_of(session, unix_ms),
            beat: None,
        };
        self.push(batch);
        self.flush()
    }

    /// The service stops (SIGTERM, Ctrl-C): a last checkpoint, so a planned restart gives no
    /// time back, and one more try at the backlog.
    pub fn stopping(&mut self, session: &Session) {
        let unix_ms = unix_now_ms();
        self.push(Batch {
            checkpoint: self.checkpoint_of(session, unix_ms),
            ..Batch::default()
        });
        self.last_try = None;
        self.flush();
    }

    /// Every [`READING_EVERY`] while a clock runs: a reading and a beat. A failed store is
    /// tried again every [`RETRY_EVERY`].
    pub fn tick(&mut self, session: &Session) {
        let due = self
            .last_reading
            .is_none_or(|t| t.elapsed() >= READING_EVERY);
        if session.clock_running() && due {
            self.last_reading = Some(Instant::now());
            let unix_ms = unix_now_ms();
            if let Some(clock) = session.clock_view() {
                let after = session_last_seq(session);
                self.push(Batch {
                    readings: vec![(after, session.now_ms(), unix_ms, clock)],
                    beat: Some((after, session.beat(), unix_ms)),
                    ..Batch::default()
                });
            }
        }
        self.flush();
    }

    fn checkpoint_of(&self, session: &Session, unix_ms: i64) -> Option<Checkpoint> {
        match session.checkpoint() {
            Ok(state) => Some(Checkpoint {
                after_seq: session_last_seq(session),
                t_ms: session.now_ms(),
                unix_ms,
                state,
                beat: None,
            }),
            Err(e) => {
                tracing::error!("cannot make a checkpoint: {e}");
                None
            }
        }
    }

    fn push(&mut self, batch: Batch) {
        if let Some(Op::Write(last)) = self.queue.back_mut() {
            last.extend(batch);
        } else {
            self.queue.push_back(Op::Write(batch));
        }
    }

    /// Writes the queue, oldest first, up to the first failure; a store that failed is tried
    /// again at most once per [`RETRY_EVERY`]. Returns whether the queue is empty.
    fn flush(&mut self) -> bool {
        if self.queue.is_empty() {
            return true;
        }
        let waited = self.last_try.is_none_or(|t| t.elapsed() >= RETRY_EVERY);
        if self.error.is_some() && !waited {
            return false;
        }
        if self.try_open().is_err() {
            return false;
        }
        self.last_try = Some(Instant::now());
        while let Some(op) = self.queue.front() {
            let Some(store) = self.store.as_mut() else {
                return false;
            };
            let result = match op {
                Op::Begin {
                    unix_ms,
                    setup,
                    config,
                } => store.begin_game(*unix_ms, setup, config).map(|id| {
                    self.game = Some(id);
                }),
                Op::Write(batch) => match self.game {
                    Some(game) => store.write(game, batch),
                    None => Ok(()),
                },
                Op::Finish {
                    unix_ms,
                    result,
                    sgf,
                } => match self.game {
                    Some(game) => store.finish_game(game, *unix_ms, result.as_deref(), sgf),
                    None => Ok(()),
                },
            };
            match result {
                Ok(()) => {
                    self.queue.pop_front();
                }
                Err(e) => {
                    self.fail(e.to_string());
                    return false;
                }
            }
        }
        if self.error.take().is_some() {
            tracing::info!(
                "the store takes the record again: everything kept meanwhile is written"
            );
        }
        true
    }
}

/// The last `seq` the session has emitted (its checkpoint follows it).
fn session_last_seq(session: &Session) -> u64 {
    session.next_seq().saturating_sub(1)
}
