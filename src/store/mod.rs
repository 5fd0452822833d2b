//! The store: one SQLite database in the data directory (`DATA_DIR/smartgoban.sqlite3`)
//! holding the games, the append-only event log, clock readings, the referee's actions and a
//! checkpoint of the session of each game (DESIGN.md "Data flow": store).
//!
//! Shell code (DESIGN.md "Core and shell"): rusqlite with its bundled SQLite, in WAL mode with
//! `synchronous = FULL`, so a write that returned is on the disk and survives a power cut. The
//! daemon writes a batch of events, with the checkpoint that follows them, in one transaction
//! before it publishes them: after a crash the store holds every event ever published, the
//! checkpoint is never ahead of or behind the events it claims, and `seq` continues where it
//! stopped.

mod outbox;
mod schema;

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};

use crate::event::{ClockView, Event};

pub use schema::VERSION as SCHEMA_VERSION;

/// File name of the database in the data directory.
pub const FILE_NAME: &str = "smartgoban.sqlite3";

/// Errors of the store. Every one leaves the database as it was before the call (each write
/// is one transaction).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed: disk full (`SQLITE_FULL`), read-only directory, I/O error, a corrupt file.
    #[error("{path}: {cause}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// Why (part of the message, not a separate source: printed once).
        cause: rusqlite::Error,
    },
    /// The data directory could not be made.
    #[error("cannot make {path}: {cause}")]
    Dir {
        /// The directory.
        path: PathBuf,
        /// Why (part of the message, not a separate source: printed once).
        cause: std::io::Error,
    },
    /// The database was written by a newer version of smartgoban.
    #[error("{path} has schema version {found}; this smartgoban knows up to {known}: update smartgoban, or move the file away to start afresh")]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// Its `user_version`.
        found: u32,
        /// [`SCHEMA_VERSION`].
        known: u32,
    },
    /// A value could not be turned into JSON (a bug, not bad input).
    #[error("cannot encode {0}")]
    Encode(String),
}

impl StoreError {
    /// SQLite is busy (another connection holds a lock, or recovers a killed writer's WAL):
    /// worth trying again in a moment.
    pub fn is_busy(&self) -> bool {
        matches!(self, StoreError::Sqlite { cause: source, .. } if matches!(
            source.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        ))
    }
}

/// A game row.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// The game's id in the store.
    pub id: i64,
    /// Wall clock at its start, ms since 1970.
    pub started_unix_ms: i64,
    /// Its setup, JSON ([`crate::referee::GameSetup`]).
    pub setup: String,
    /// `None` while in progress; `finished` or `replaced`.
    pub ended: Option<String>,
    /// SGF `RE`, once known.
    pub result: Option<String>,
}

/// The latest checkpoint of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// Every event up to this seq is in the log.
    pub after_seq: u64,
    /// Session time, ms.
    pub t_ms: u64,
    /// Wall clock when written, ms since 1970.
    pub unix_ms: i64,
    /// The session, JSON ([`crate::session::Session::checkpoint`]).
    pub state: String,
    /// The latest beat after it (time run with nothing else happening) and its wall clock.
    pub beat: Option<(crate::session::Beat, i64)>,
}

/// One referee action as recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionRow {
    /// Session time, ms.
    pub t_ms: u64,
    /// Wall clock, ms since 1970.
    pub unix_ms: i64,
    /// The command, JSON.
    pub command: String,
    /// `ok` or the refusal.
    pub outcome: String,
}

/// What one write puts in the store, in one transaction: events, clock readings, referee
/// actions, and the checkpoint after them.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Events in `seq` order.
    pub events: Vec<Event>,
    /// Clock readings: (after seq, session ms, wall ms, the clocks).
    pub readings: Vec<(u64, u64, i64, ClockView)>,
    /// Referee actions.
    pub actions: Vec<ActionRow>,
    /// The session after all of the above.
    pub checkpoint: Option<Checkpoint>,
    /// Time run since the checkpoint of `after_seq` with nothing else happening:
    /// (after seq, the beat, wall ms).
    pub beat: Option<(u64, crate::session::Beat, i64)>,
}

impl Batch {
    /// Nothing to write.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
            && self.readings.is_empty()
            && self.actions.is_empty()
            && self.checkpoint.is_none()
            && self.beat.is_none()
    }

    /// Adds `later` after this batch (its checkpoint replaces this one's).
    pub fn extend(&mut self, later: Batch) {
        self.events.extend(later.events);
        self.readings.extend(later.readings);
        self.actions.extend(later.actions);
        if later.checkpoint.is_some() {
            self.checkpoint = later.checkpoint;
            self.beat = None;
        }
        if later.beat.is_some() {
            self.beat = later.beat;
        }
    }
}

/// The open database.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (or makes) `dir/smartgoban.sqlite3`, sets WAL and `synchronous = FULL`, and
    /// applies the missing migrations.
    ///
    /// # Errors
    /// The directory cannot be made, the file cannot be opened or written (read-only, full),
    /// or it comes from a newer version ([`StoreError::TooNew`]).
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        crate::files::not_a_file(dir)
            .and_then(|()| std::fs::create_dir_all(dir))
            .map_err(|source| StoreError::Dir {
                path: dir.to_path_buf(),
                cause: source,
            })?;
        let path = dir.join(FILE_NAME);
        let err = |source| StoreError::Sqlite {
            path: path.clone(),
            cause: source,
        };
        let conn = Connection::open(&path).map_err(err)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(err)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err)?;
        conn.pragma_update(None, "synchronous", "FULL")
            .map_err(err)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(err)?;
        let mut store = Store { conn, path };
        store.migrate()?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        move |source| StoreError::Sqlite {
            path: self.path.clone(),
            cause: source,
        }
    }

    fn migrate(&mut self) -> Result<(), StoreError> {
        let version: u32 = self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(self.err())?;
        if version > schema::VERSION {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found: version,
                known: schema::VERSION,
            });
        }
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(version as usize) {
            let path = self.path.clone();
            let err = |source| StoreError::Sqlite {
                path: path.clone(),
                cause: source,
            };
            let tx = self.conn.transaction().map_err(err)?;
            tx.execute_batch(sql).map_err(err)?;
            tx.pragma_update(None, "user_version", i as u32 + 1)
                .map_err(err)?;
            tx.commit().map_err(err)?;
        }
        Ok(())
    }

    /// The schema version of the open database.
    ///
    /// # Errors
    /// SQLite failed.
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        self.conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(self.err())
    }

    /// Starts a game: returns its id. Games still in progress are marked `replaced`.
    ///
    /// # Errors
    /// SQLite failed (nothing written).
    pub fn begin_game(
        &mut self,
        started_unix_ms: i64,
        setup: &str,
        config: &str,
    ) -> Result<i64, StoreError> {
        let path = self.path.clone();
        let err = |source| StoreError::Sqlite {
            path: path.clone(),
            cause: source,
        };
        let tx = self.conn.transaction().map_err(err)?;
        tx.execute(
            "UPDATE games SET ended = 'replaced', ended_unix_ms = ?1 WHERE ended IS NULL",
            params![started_unix_ms],
        )
        .map_err(err)?;
        tx.execute(
            "INSERT INTO games (started_unix_ms, setup, config) VALUES (?1, ?2, ?3)",
            params![started_unix_ms, setup, config],
        )
        .map_err(err)?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(err)?;
        Ok(id)
    }

    /// Marks game `id` finished with its result and record (again when the result comes
    /// later).
    ///
    /// # Errors
    /// SQLite failed (nothing written).
    pub fn finish_game(
        &mut self,
        id: i64,
        unix_ms: i64,
        result: Option<&str>,
        sgf: &str,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE games SET ended = 'finished', ended_unix_ms = ?2, result = ?3, sgf = ?4 \
                 WHERE id = ?1",
                params![id, unix_ms, result, sgf],
            )
            .map_err(self.err())?;
        Ok(())
    }

    /// The latest game not ended, if any: the game in progress to resume.
    ///
    /// # Errors
    /// SQLite failed.
    pub fn game_in_progress(&self) -> Result<Option<GameRow>, StoreError> {
        self.conn
            .query_row(
                "SELECT id, started_unix_ms, setup, ended, result FROM games \
                 WHERE ended IS NULL ORDER BY id DESC LIMIT 1",
                [],
                game_row,
            )
            .optional()
            .map_err(self.err())
    }

    /// Every game, oldest first.
    ///
    /// # Errors
    /// SQLite failed.
    pub fn games(&self) -> Result<Vec<GameRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, started_unix_ms, setup, ended, result FROM games ORDER BY id")
            .map_err(self.err())?;
        let rows = stmt
            .query_map([], game_row)
            .map_err(self.err())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.err())?;
        Ok(rows)
    }

    /// The latest checkpoint of game `id`.
    ///
    /// # Errors
    /// SQLite failed.
    pub fn checkpoint(&self, game: i64) -> Result<Option<Checkpoint>, StoreError> {
        self.conn
            .query_row(
                "SELECT c.after_seq, c.t_ms, c.unix_ms, c.state, b.beat, b.unix_ms \
                 FROM checkpoints c LEFT JOIN beats b \
                 ON b.game = c.game AND b.after_seq = c.after_seq WHERE c.game = ?1",
                params![game],
                |r| {
                    let beat = r
                        .get::<_, Option<String>>(4)?
                        .and_then(|b| serde_json::from_str(&b).ok())
                        .zip(r.get::<_, Option<i64>>(5)?);
                    Ok(Checkpoint {
                        after_seq: r.get::<_, i64>(0)? as u64,
                        t_ms: r.get::<_, i64>(1)? as u64,
                        unix_ms: r.get(2)?,
                        state: r.get(3)?,
                        beat,
                    })
                },
            )
            .optional()
            .map_err(self.err())
    }

    /// The last `limit` events of game `id`, oldest first, as JSON.
    ///
    /// # Errors
    /// SQLite failed.
    pub fn events(&self, game: i64, limit: usize) -> Result<Vec<String>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT body FROM (SELECT seq, body FROM events WHERE game = ?1 \
                 ORDER BY seq DESC LIMIT ?2) ORDER BY seq",
            )
            .map_err(self.err())?;
        let rows = stmt
            .query_map(params![game, limit as i64], |r| r.get::<_, String>(0))
            .map_err(self.err())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.err())?;
        Ok(rows)
    }

    /// The highest event seq in the store, if any.
    ///
    /// # Errors
    /// SQLite failed.
    pub fn last_seq(&self) -> Result<Option<u64>, StoreError> {
        self.conn
            .query_row("SELECT MAX(seq) FROM events", [], |r| {
                r.get::<_, Option<i64>>(0)
            })
            .map(|s| s.map(|s| s as u64))
            .map_err(self.err())
    }

    /// The referee actions of game `id`, oldest first.
    ///
    /// # Errors
    /// SQLite failed.
    pub fn actions(&self, game: i64) -> Result<Vec<ActionRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT t_ms, unix_ms, command, outcome FROM referee_actions WHERE game = ?1 \
                 ORDER BY id",
            )
            .map_err(self.err())?;
        let rows = stmt
            .query_map(params![game], |r| {
                Ok(ActionRow {
                    t_ms: r.get::<_, i64>(0)? as u64,
                    unix_ms: r.get(1)?,
                    command: r.get(2)?,
                    outcome: r.get(3)?,
                })
            })
            .map_err(self.err())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.err())?;
        Ok(rows)
    }

    /// Writes `batch` for game `id` in one transaction: all of it, or (on an error) nothing.
    ///
    /// # Errors
    /// SQLite failed (disk full, read-only, I/O): nothing was written; write the same batch
    /// again later.
    pub fn write(&mut self, game: i64, batch: &Batch) -> Result<(), StoreError> {
        let path = self.path.clone();
        let err = |source| StoreError::Sqlite {
            path: path.clone(),
            cause: source,
        };
        let unix_ms = unix_now_ms();
        let tx = self.conn.transaction().map_err(err)?;
        {
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO events (seq, game, t_ms, unix_ms, kind, body) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                )
                .map_err(err)?;
            for event in &batch.events {
                let body = serde_json::to_value(event)
                    .map_err(|e| StoreError::Encode(format!("event {}: {e}", event.seq)))?;
                let kind = body
                    .get("kind")
                    .and_then(|k| k.as_str())
                    .unwrap_or_default()
                    .to_owned();
                insert
                    .execute(params![
                        event.seq as i64,
                        game,
                        event.t_ms as i64,
                        unix_ms,
                        kind,
                        body.to_string()
                    ])
                    .map_err(err)?;
            }
            let mut reading = tx
                .prepare_cached(
                    "INSERT INTO clock_readings \
                     (game, after_seq, t_ms, unix_ms, black_ms, white_ms, running, body) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(err)?;
            for (after_seq, t_ms, at, clock) in &batch.readings {
                let body = serde_json::to_string(clock)
                    .map_err(|e| StoreError::Encode(format!("clock reading: {e}")))?;
                reading
                    .execute(params![
                        game,
                        *after_seq as i64,
                        *t_ms as i64,
                        at,
                        clock.black.time_left_ms() as i64,
                        clock.white.time_left_ms() as i64,
                        clock.running.map(|c| c.as_str()),
                        body
                    ])
                    .map_err(err)?;
            }
            let mut action = tx
                .prepare_cached(
                    "INSERT INTO referee_actions (game, t_ms, unix_ms, command, outcome) \
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(err)?;
            for a in &batch.actions {
                action
                    .execute(params![
                        game,
                        a.t_ms as i64,
                        a.unix_ms,
                        a.command,
                        a.outcome
                    ])
                    .map_err(err)?;
            }
            if let Some(c) = &batch.checkpoint {
                tx.execute(
                    "INSERT INTO checkpoints (game, after_seq, t_ms, unix_ms, state) \
                     VALUES (?1, ?2, ?3, ?4, ?5) \
                     ON CONFLICT(game) DO UPDATE SET after_seq = excluded.after_seq, \
                     t_ms = excluded.t_ms, unix_ms = excluded.unix_ms, state = excluded.state",
                    params![game, c.after_seq as i64, c.t_ms as i64, c.unix_ms, c.state],
                )
                .map_err(err)?;
            }
            if let Some((after_seq, beat, at)) = &batch.beat {
                let beat = serde_json::to_string(beat)
                    .map_err(|e| StoreError::Encode(format!("beat: {e}")))?;
                // only after the checkpoint it follows
                tx.execute(
                    "INSERT INTO beats (game, after_seq, beat, unix_ms) \
                     SELECT ?1, ?2, ?3, ?4 WHERE EXISTS \
                     (SELECT 1 FROM checkpoints WHERE game = ?1 AND after_seq = ?2) \
                     ON CONFLICT(game) DO UPDATE SET after_seq = excluded.after_seq, \
                     beat = excluded.beat, unix_ms = excluded.unix_ms",
                    params![game, *after_seq as i64, beat, at],
                )
                .map_err(err)?;
            }
        }
        tx.commit().map_err(err)?;
        Ok(())
    }
}

fn game_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<GameRow> {
    Ok(GameRow {
        id: r.get(0)?,
        started_unix_ms: r.get(1)?,
        setup: r.get(2)?,
        ended: r.get(3)?,
        result: r.get(4)?,
    })
}

/// The wall clock, ms since 1970.
pub fn unix_now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests;
