use super::*;
use crate::event::{EventKind, LinkState};

fn event(seq: u64) -> Event {
    Event {
        seq,
        t_ms: seq * 10,
        kind: EventKind::Link {
            state: LinkState::Connected,
            detail: format!("event {seq}"),
            history: None,
        },
    }
}

fn checkpoint(after_seq: u64) -> Checkpoint {
    Checkpoint {
        after_seq,
        t_ms: after_seq * 10,
        unix_ms: 5,
        state: format!("{{\"after\":{after_seq}}}"),
        beat: None,
    }
}

#[test]
fn a_new_store_has_every_migration_and_reopening_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let id = store.begin_game(1, "{}", "{}").unwrap();
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(store.game_in_progress().unwrap().unwrap().id, id);
    let mode: String = store
        .conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let sync: i64 = store
        .conn
        .pragma_query_value(None, "synchronous", |r| r.get(0))
        .unwrap();
    assert_eq!(sync, 2, "synchronous = FULL");
}

#[test]
fn a_store_from_a_newer_version_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store
        .conn
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    drop(store);
    match Store::open(dir.path()) {
        Err(StoreError::TooNew { found, known, .. }) => {
            assert_eq!((found, known), (SCHEMA_VERSION + 1, SCHEMA_VERSION));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_batch_is_written_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let game = store.begin_game(1, "{}", "{}").unwrap();
    let first = Batch {
        events: vec![event(1), event(2)],
        checkpoint: Some(checkpoint(2)),
        actions: vec![ActionRow {
            t_ms: 15,
            unix_ms: 7,
            command: "\"Pause\"".into(),
            outcome: "ok".into(),
        }],
        ..Batch::default()
    };
    store.write(game, &first).unwrap();
    // seq 2 again: the whole batch fails, its new event and checkpoint included
    let clash = Batch {
        events: vec![event(3), event(2)],
        checkpoint: Some(checkpoint(3)),
        ..Batch::default()
    };
    assert!(store.write(game, &clash).is_err());
    assert_eq!(store.last_seq().unwrap(), Some(2));
    assert_eq!(store.checkpoint(game).unwrap(), Some(checkpoint(2)));
    let events: Vec<Event> = store
        .events(game, 10)
        .unwrap()
        .iter()
        .map(|e| serde_json::from_str(e).unwrap())
        .collect();
    assert_eq!(events, [event(1), event(2)]);
    assert_eq!(store.actions(game).unwrap()[0].command, "\"Pause\"");
    // the same batch written again once the fault is gone
    let later = Batch {
        events: vec![event(3)],
        checkpoint: Some(checkpoint(3)),
        ..Batch::default()
    };
    store.write(game, &later).unwrap();
    assert_eq!(store.events(game, 2).unwrap().len(), 2, "the last two");
    assert_eq!(store.checkpoint(game).unwrap(), Some(checkpoint(3)));
}

#[test]
fn a_beat_extends_the_checkpoint_it_follows_and_a_new_checkpoint_clears_it() {
    use crate::session::Beat;
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let game = store.begin_game(1, "{}", "{}").unwrap();
    let beat = |board_time_ms| Beat {
        board_time_ms,
        now_ms: board_time_ms,
    };
    let write = |store: &mut Store, checkpoint: Option<Checkpoint>, b: Option<(u64, Beat)>| {
        let batch = Batch {
            checkpoint,
            beat: b.map(|(after, beat)| (after, beat, 9)),
            ..Batch::default()
        };
        store.write(game, &batch).unwrap();
    };
    write(&mut store, Some(checkpoint(4)), None);
    write(&mut store, None, Some((4, beat(1000))));
    assert_eq!(
        store.checkpoint(game).unwrap().unwrap().beat,
        Some((beat(1000), 9))
    );
    // a beat of another checkpoint (one not written) changes nothing
    write(&mut store, None, Some((3, beat(2000))));
    assert_eq!(
        store.checkpoint(game).unwrap().unwrap().beat,
        Some((beat(1000), 9))
    );
    write(&mut store, Some(checkpoint(5)), None);
    assert_eq!(store.checkpoint(game).unwrap().unwrap().beat, None);
}

#[test]
fn a_store_of_an_older_schema_is_brought_up_to_date() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(FILE_NAME);
    {
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(schema::MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute(
            "INSERT INTO games (started_unix_ms, setup, config) VALUES (1, '{}', '{}')",
            [],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO checkpoints (game, after_seq, t_ms, unix_ms, state) \
             VALUES (1, 7, 70, 5, '{\"s\":1}')",
            [],
        )
        .unwrap();
    }
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let kept = store.checkpoint(1).unwrap().unwrap();
    assert_eq!((kept.after_seq, kept.beat), (7, None), "the old rows kept");
}

#[test]
fn a_new_game_ends_the_one_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let a = store.begin_game(1, "{\"a\":1}", "{}").unwrap();
    let b = store.begin_game(2, "{\"b\":1}", "{}").unwrap();
    let games = store.games().unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(
        (games[0].id, games[0].ended.as_deref()),
        (a, Some("replaced"))
    );
    assert_eq!(store.game_in_progress().unwrap().unwrap().id, b);
    store.finish_game(b, 3, Some("B+R"), "(;)").unwrap();
    assert_eq!(store.game_in_progress().unwrap(), None);
    assert_eq!(store.games().unwrap()[1].result.as_deref(), Some("B+R"));
}
