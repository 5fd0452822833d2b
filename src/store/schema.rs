//! The store's schema and its migrations, versioned in the code.
//!
//! `PRAGMA user_version` holds the number of migrations applied; opening a store applies the
//! missing ones in order, each in its own transaction, so a store written by an older version
//! is brought up to date and one from a newer version is refused (its tables may mean something
//! this version does not know).

/// The migrations, oldest first: `MIGRATIONS[i]` takes the schema from version `i` to `i + 1`.
/// Never edit one that has shipped; add a new one.
pub const MIGRATIONS: &[&str] = &[
    // 1: games, the append-only event log, clock readings, referee actions, checkpoints.
    "CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        started_unix_ms INTEGER NOT NULL,
        setup TEXT NOT NULL,          -- the game's GameSetup, JSON
        config TEXT NOT NULL,         -- the session settings in force (profile, policy), JSON
        ended_unix_ms INTEGER,        -- finished, or replaced by another game
        ended TEXT,                   -- 'finished' or 'replaced'
        result TEXT,                  -- SGF RE
        sgf TEXT                      -- the record when it ended
    );
    CREATE TABLE events (
        seq INTEGER PRIMARY KEY,      -- the event's seq: strictly increasing, never reused
        game INTEGER NOT NULL REFERENCES games(id),
        t_ms INTEGER NOT NULL,        -- session time, ms
        unix_ms INTEGER NOT NULL,     -- wall clock when written
        kind TEXT NOT NULL,
        body TEXT NOT NULL            -- the event, JSON (DESIGN.md \"Events\")
    );
    CREATE INDEX events_game ON events(game, seq);
    CREATE TABLE clock_readings (
        id INTEGER PRIMARY KEY,
        game INTEGER NOT NULL REFERENCES games(id),
        after_seq INTEGER NOT NULL,   -- the last event seq when read
        t_ms INTEGER NOT NULL,
        unix_ms INTEGER NOT NULL,
        black_ms INTEGER NOT NULL,    -- main time or period left, ms
        white_ms INTEGER NOT NULL,
        running TEXT,                 -- 'black', 'white' or NULL
        body TEXT NOT NULL            -- the clock view, JSON
    );
    CREATE INDEX clock_readings_game ON clock_readings(game, id);
    CREATE TABLE referee_actions (
        id INTEGER PRIMARY KEY,
        game INTEGER NOT NULL REFERENCES games(id),
        t_ms INTEGER NOT NULL,
        unix_ms INTEGER NOT NULL,
        command TEXT NOT NULL,        -- the session command, JSON
        outcome TEXT NOT NULL         -- 'ok' or the refusal
    );
    CREATE TABLE checkpoints (
        game INTEGER PRIMARY KEY REFERENCES games(id),
        after_seq INTEGER NOT NULL,   -- every event up to this seq is in `events`
        t_ms INTEGER NOT NULL,
        unix_ms INTEGER NOT NULL,
        state TEXT NOT NULL           -- the whole session, JSON (Session::checkpoint)
    );",
    // 2: the beat after a checkpoint: time run since, with nothing else happening (a few
    // bytes a second while a clock runs, instead of the whole session). A table of its own:
    // updating a column of the checkpoint's row would rewrite the whole row, state included.
    "CREATE TABLE beats (
        game INTEGER PRIMARY KEY REFERENCES games(id),
        after_seq INTEGER NOT NULL,   -- the checkpoint it extends
        beat TEXT NOT NULL,           -- Session::beat, JSON
        unix_ms INTEGER NOT NULL
    );",
    // 3: the MQTT outbox (issue 18). The append-only `events` table is the outbox itself:
    // every event is there, in order, before anyone sees it. This table holds, per broker, the
    // seq of the last event the broker acknowledged (PUBACK): after an outage or a restart the
    // publisher sends every event after it, oldest first, and nothing is lost.
    "CREATE TABLE mqtt_outbox (
        broker TEXT PRIMARY KEY,      -- the broker URL and topic prefix the events went to
        acked_seq INTEGER NOT NULL,   -- every event up to this seq was acknowledged
        unix_ms INTEGER NOT NULL      -- when it was last moved on
    );",
];

/// The schema version this code writes.
pub const VERSION: u32 = MIGRATIONS.len() as u32;
