//! The hall's core, fed messages as the broker delivers them.

use super::*;
use crate::mqtt::BoardTopics;

fn hall() -> Hall {
    Hall::new(HallConfig {
        hall: "h".into(),
        orphan_after_ms: 30_000,
        delay_ms: 0,
    })
}

fn event(seq: u64, kind: &str) -> Vec<u8> {
    serde_json::json!({"seq": seq, "t_ms": seq, "kind": kind})
        .to_string()
        .into_bytes()
}

fn state(board: &str, seq: u64, extra: serde_json::Value) -> Vec<u8> {
    let mut state = serde_json::json!({"move_number": seq, "violations": [], "held": null});
    if let (Some(s), Some(e)) = (state.as_object_mut(), extra.as_object()) {
        s.extend(e.clone());
    }
    serde_json::json!({"board": board, "seq": seq, "unix_ms": 0, "state": state})
        .to_string()
        .into_bytes()
}

fn status(board: &str, online: bool) -> Vec<u8> {
    serde_json::json!({"status": if online {"online"} else {"offline"}, "board": board, "version": "0.1.0", "url": "http://t.local"})
        .to_string()
        .into_bytes()
}

fn feed_seqs(h: &Hall, board: &str, now: u64, live: bool) -> Vec<u64> {
    h.feed_since(0, now, live, usize::MAX)
        .0
        .iter()
        .filter_map(|f| {
            let v: serde_json::Value = serde_json::from_str(&f.json).unwrap();
            (v["board"] == board).then(|| v["event"]["seq"].as_u64().unwrap())
        })
        .collect()
}

#[test]
fn events_sent_again_are_dropped_by_seq_and_boards_keep_their_own_order() {
    let mut h = hall();
    let a = BoardTopics::new("h", "1").events();
    let b = BoardTopics::new("h", "2").events();
    // board 1 sends 1..=5, its connection drops after 3 was delivered but before it was
    // acknowledged: it sends 3, 4, 5 again; board 2 interleaves
    for (t, seq) in [
        (&a, 1),
        (&a, 2),
        (&b, 100),
        (&a, 3),
        (&a, 3),
        (&b, 101),
        (&a, 4),
        (&a, 5),
        (&a, 4),
        (&a, 5),
        (&b, 100),
    ] {
        h.apply(t, &event(seq, "move"), Some(990), 1000);
    }
    assert_eq!(feed_seqs(&h, "1", 1000, true), [1, 2, 3, 4, 5]);
    assert_eq!(feed_seqs(&h, "2", 1000, true), [100, 101]);
    assert_eq!(h.event_counts(), (7, 4));
    let ids: Vec<u64> = h
        .feed_since(0, 1000, true, 100)
        .0
        .iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(ids, (1..=7).collect::<Vec<_>>());
    assert_eq!(h.latency().p99_ms, Some(10));
    // resuming after id 4 gives the rest, in order
    let rest: Vec<u64> = h
        .feed_since(4, 1000, true, 100)
        .0
        .iter()
        .map(|f| f.id)
        .collect();
    assert_eq!(rest, [5, 6, 7]);
}

#[test]
fn bad_or_foreign_messages_change_nothing() {
    let mut h = hall();
    let t = BoardTopics::new("h", "1");
    for (topic, payload) in [
        (t.events(), b"not json".to_vec()),
        (t.events(), br#"{"kind":"move"}"#.to_vec()),
        (t.state(), b"{}".to_vec()),
        (t.status(), b"[1]".to_vec()),
        (BoardTopics::new("other", "1").events(), event(1, "move")),
        (
            "smartgoban/v1/h/board/a+b/events".to_string(),
            event(1, "move"),
        ),
        (t.cmd(), b"{}".to_vec()),
    ] {
        assert!(
            matches!(h.apply(&topic, &payload, None, 5), Applied::Ignored(_)),
            "{topic}"
        );
    }
    assert!(h.feed_since(0, 5, true, 10).0.is_empty());
    assert!(
        h.boards(5, true).is_empty(),
        "no board made by a bad message"
    );
}

#[test]
fn the_public_sees_the_hall_as_of_the_delay_and_the_referee_live() {
    let mut h = Hall::new(HallConfig {
        hall: "h".into(),
        orphan_after_ms: 30_000,
        delay_ms: 60_000,
    });
    let t = BoardTopics::new("h", "7");
    h.apply(&t.status(), &status("7", true), None, 0);
    h.apply(
        &t.state(),
        &state("7", 1, serde_json::json!({})),
        None,
        1_000,
    );
    h.apply(&t.sgf(), b"(;GM[1])", None, 1_000);
    h.apply(&t.events(), &event(1, "move"), None, 1_000);
    h.apply(
        &t.state(),
        &state("7", 2, serde_json::json!({})),
        None,
        50_000,
    );
    h.apply(&t.sgf(), b"(;GM[1];B[dd])", None, 50_000);
    h.apply(&t.events(), &event(2, "move"), None, 50_000);
    let at = 70_000;
    assert_eq!(h.boards(at, true)[0].seq, 2);
    assert_eq!(h.boards(at, false)[0].seq, 1);
    assert_eq!(&*h.sgf("7", at, false).unwrap(), "(;GM[1])");
    assert_eq!(&*h.sgf("7", at, true).unwrap(), "(;GM[1];B[dd])");
    assert_eq!(feed_seqs(&h, "7", at, false), [1]);
    let (_, next) = h.feed_since(1, at, false, 10);
    assert_eq!(
        next,
        Some(110_000),
        "the next event falls due at 50 s + 60 s"
    );
    assert_eq!(feed_seqs(&h, "7", 110_000, false), [1, 2]);
    // before anything is a minute old, the public sees no position yet
    assert!(h.boards(30_000, false)[0].state.is_none());
}

#[test]
fn offline_or_silent_boards_are_orphans_and_violations_are_gathered() {
    let mut h = hall();
    for b in ["1", "2", "10", "3"] {
        let t = BoardTopics::new("h", b);
        h.apply(&t.status(), &status(b, true), None, 0);
    }
    let t1 = BoardTopics::new("h", "1");
    let t2 = BoardTopics::new("h", "2");
    h.apply(
        &BoardTopics::new("h", "3").status(),
        &status("3", false),
        None,
        1_000,
    );
    let v = serde_json::json!({"violations": [{"id": 1, "code": "ko_recapture", "clause": "R20.1", "points": ["D4"]}]});
    h.apply(&t1.state(), &state("1", 5, v), None, 20_000);
    let held = serde_json::json!({"held": {"points": ["C3", "D4"], "moves": 2, "explanations": 2}});
    h.apply(&t2.state(), &state("2", 9, held), None, 20_000);
    let order: Vec<String> = h
        .boards(20_000, true)
        .into_iter()
        .map(|b| b.board)
        .collect();
    assert_eq!(order, ["1", "2", "3", "10"]);
    assert_eq!(h.orphans(20_000), ["3"]);
    // board 10 silent past 30 s; 1 and 2 heard at 20 s
    assert_eq!(h.orphans(35_000), ["3", "10"]);
    assert_eq!(h.orphans(60_000), ["1", "2", "3", "10"]);
    let v = h.violations(20_000);
    assert_eq!(v.len(), 2);
    assert_eq!(
        (v[0].board.as_str(), &v[0].violation["code"]),
        ("1", &serde_json::json!("ko_recapture"))
    );
    assert_eq!(v[0].url.as_deref(), Some("http://t.local"));
    assert_eq!(
        (v[1].board.as_str(), &v[1].violation["code"]),
        ("2", &serde_json::json!("ambiguous"))
    );
    // an empty retained status takes the board out of the hall
    h.apply(&BoardTopics::new("h", "10").status(), b"", None, 60_000);
    assert_eq!(h.boards(60_000, true).len(), 3);
}

#[test]
fn finished_games_count_once_the_newest_result_winning() {
    let mut h = hall();
    let t = BoardTopics::new("h", "4");
    let game = |key: u64, re: &str, at: i64| {
        serde_json::json!({"board": "4", "key": key, "round": "1", "black": "A", "white": "B",
            "result": re, "warnings": {"black": 0, "white": 0}, "moves": 120, "unix_ms": at, "sgf": "(;)"})
        .to_string()
        .into_bytes()
    };
    h.apply(&t.game(10), &game(10, "B+R", 1_000), None, 1_000);
    // the referee corrects the result: a new key, a later time
    h.apply(&t.game(20), &game(20, "W+T", 2_000), None, 2_000);
    let table = h.results(3_000, true);
    assert_eq!(table[0].name, "B");
    assert_eq!(table[0].points, 2);
    assert_eq!(table[1].points, 0);
    assert_eq!(h.games(3_000, true).len(), 1);
    h.apply(&t.game(20), b"", None, 4_000);
    assert_eq!(h.results(5_000, true)[0].name, "A");
}

#[test]
fn memory_for_the_delay_is_a_state_per_event_plus_one_every_5_s() {
    let mut h = Hall::new(HallConfig {
        hall: "h".into(),
        orphan_after_ms: 30_000,
        delay_ms: 900_000,
    });
    let t = BoardTopics::new("h", "1");
    // 10 minutes of clock-only states (one a second, the same seq), then a move
    for i in 0..600u64 {
        h.apply(
            &t.state(),
            &state("1", 7, serde_json::json!({})),
            None,
            1000 + i * 1000,
        );
    }
    h.apply(
        &t.state(),
        &state("1", 8, serde_json::json!({})),
        None,
        600_000,
    );
    let kept = h.boards.get("1").unwrap().state.len();
    assert!((100..=130).contains(&kept), "{kept} states kept");
    // the public, 15 minutes behind, sees nothing yet; the referee the move
    assert!(h.boards(600_000, false)[0].state.is_none());
    assert_eq!(h.boards(600_000, true)[0].seq, 8);
    assert_eq!(h.boards(900_000 + 300_000, false)[0].seq, 7);
}

#[test]
fn a_flood_of_boards_or_games_is_bounded() {
    let mut h = hall();
    for b in 0..MAX_BOARDS + 5 {
        h.apply(
            &BoardTopics::new("h", &b.to_string()).status(),
            &status("x", true),
            None,
            0,
        );
    }
    assert_eq!(h.boards(0, true).len(), MAX_BOARDS);
}

#[test]
fn a_forged_seq_or_a_restarted_feed_is_healed_by_the_next_state() {
    let mut h = hall();
    let topics = BoardTopics::new("h", "1");
    for seq in 1..=3 {
        h.apply(&topics.events(), &event(seq, "move"), None, 1000);
    }
    // nonsense seqs are refused outright
    for seq in [0, MAX_SEQ + 1, u64::MAX] {
        let bad = serde_json::json!({"seq": seq, "kind": "move"}).to_string();
        assert!(matches!(
            h.apply(&topics.events(), bad.as_bytes(), None, 1000),
            Applied::Ignored(_)
        ));
    }
    // a forged event far ahead: taken once, the board's real ones look like duplicates …
    h.apply(&topics.events(), &event(MAX_SEQ, "move"), None, 1000);
    assert_eq!(
        h.apply(&topics.events(), &event(4, "move"), None, 1000),
        Applied::Duplicate
    );
    // … until the board's next state says where its feed is
    h.apply(
        &topics.state(),
        &state("1", 4, serde_json::json!({})),
        None,
        1001,
    );
    assert!(matches!(
        h.apply(&topics.events(), &event(5, "move"), None, 1002),
        Applied::Event(_)
    ));
    assert_eq!(feed_seqs(&h, "1", 2000, true), [1, 2, 3, MAX_SEQ, 5]);

    // a board whose data directory was replaced counts from 1 again
    let b = BoardTopics::new("h", "2");
    for seq in 5_000..5_010 {
        h.apply(&b.events(), &event(seq, "move"), None, 1000);
    }
    h.apply(
        &b.state(),
        &state("2", 0, serde_json::json!({})),
        None,
        1001,
    );
    for seq in 1..=3 {
        assert!(matches!(
            h.apply(&b.events(), &event(seq, "move"), None, 1002),
            Applied::Event(_)
        ));
    }
    // a state a little behind its events (published between its snapshot and delivery)
    // changes nothing
    h.apply(
        &b.state(),
        &state("2", 1, serde_json::json!({})),
        None,
        1003,
    );
    assert_eq!(
        h.apply(&b.events(), &event(3, "move"), None, 1004),
        Applied::Duplicate
    );
}

#[test]
fn oversized_or_mistyped_messages_and_foreign_links_are_refused() {
    let mut h = hall();
    let topics = BoardTopics::new("h", "1");
    h.apply(
        &topics.state(),
        &state("1", 1, serde_json::json!({})),
        None,
        1000,
    );
    let big = serde_json::json!({"seq": 2, "kind": "call", "text": "x".repeat(MAX_EVENT_BYTES)});
    assert!(matches!(
        h.apply(&topics.events(), big.to_string().as_bytes(), None, 1000),
        Applied::Ignored(_)
    ));
    let huge = serde_json::json!({"board": "1", "seq": 2, "unix_ms": 0, "state": {"x": "y".repeat(MAX_STATE_BYTES)}});
    assert!(matches!(
        h.apply(&topics.state(), huge.to_string().as_bytes(), None, 1000),
        Applied::Ignored(_)
    ));
    let not_object = serde_json::json!({"board": "1", "seq": 2, "unix_ms": 0, "state": "<img>"});
    assert!(matches!(
        h.apply(
            &topics.state(),
            not_object.to_string().as_bytes(),
            None,
            1000
        ),
        Applied::Ignored(_)
    ));
    assert_eq!(h.boards(1000, true)[0].seq, 1, "the last good state stays");
    let sgf = vec![b'('; MAX_SGF_BYTES + 1];
    assert!(matches!(
        h.apply(&topics.sgf(), &sgf, None, 1000),
        Applied::Ignored(_)
    ));
    // the page links only to web addresses
    for (url, kept) in [
        ("javascript:alert(1)", false),
        ("JavaScript:alert(1)", false),
        ("http://x\" onmouseover=\"alert(1)", false),
        ("data:text/html,<b>", false),
        ("https://board-7.local:8080/", true),
        ("HTTP://10.0.0.7/", true),
    ] {
        let s = serde_json::json!({"status": "online", "board": "1", "version": "1", "url": url});
        h.apply(&topics.status(), s.to_string().as_bytes(), None, 1000);
        assert_eq!(h.boards(1000, true)[0].url.is_some(), kept, "{url}");
    }
}

#[test]
fn the_feed_keeps_a_bounded_number_of_bytes() {
    let mut h = hall();
    h.feed_bytes_kept = 100_000;
    let topics = BoardTopics::new("h", "1");
    let text = "x".repeat(10_000);
    for seq in 1..=100 {
        let e = serde_json::json!({"seq": seq, "kind": "call", "text": text});
        h.apply(&topics.events(), e.to_string().as_bytes(), None, 1000);
    }
    let kept = feed_seqs(&h, "1", 1000, true);
    assert!((8..=10).contains(&kept.len()), "{}", kept.len());
    assert_eq!(*kept.last().unwrap(), 100, "the newest stay");
    assert!(h.feed_bytes <= 100_000);
    assert_eq!(
        h.feed_bytes,
        h.feed.iter().map(|f| f.json.len()).sum::<usize>()
    );
}

#[test]
fn a_forged_seq_a_little_ahead_is_healed_by_a_state_seconds_later() {
    let mut h = hall();
    let t = BoardTopics::new("h", "1");
    for seq in 1..=3 {
        h.apply(&t.events(), &event(seq, "move"), None, 1_000);
    }
    h.apply(&t.events(), &event(3 + 999, "forged"), None, 1_100);
    // a state just after is the lag between a snapshot and its delivery: nothing changes
    h.apply(
        &t.state(),
        &state("1", 3, serde_json::json!({})),
        None,
        1_200,
    );
    assert_eq!(
        h.apply(&t.events(), &event(4, "move"), None, 1_300),
        Applied::Duplicate
    );
    // a state seconds later that is still behind: the seq was not the board's
    h.apply(
        &t.state(),
        &state("1", 4, serde_json::json!({})),
        None,
        1_100 + STATE_LAG_MS,
    );
    assert!(matches!(
        h.apply(&t.events(), &event(5, "move"), None, 7_000),
        Applied::Event(_)
    ));
}

#[test]
fn the_public_learns_a_result_and_a_game_only_after_the_delay() {
    let mut h = hall();
    h.set_delay_ms(600_000);
    let t = BoardTopics::new("h", "1");
    let status = |result: Option<&str>| {
        serde_json::json!({"status": "online", "board": "1", "version": "1",
            "game": {"black": "A", "white": "B", "result": result}})
        .to_string()
    };
    h.apply(
        &t.state(),
        &state(
            "1",
            1,
            serde_json::json!({"game": {"black": "A", "result": null}}),
        ),
        None,
        1_000,
    );
    h.apply(&t.status(), status(None).as_bytes(), None, 1_000);
    h.apply(
        &t.state(),
        &state(
            "1",
            2,
            serde_json::json!({"game": {"black": "A", "result": "B+R"}}),
        ),
        None,
        700_000,
    );
    h.apply(&t.status(), status(Some("B+R")).as_bytes(), None, 700_000);
    let public = &h.boards(700_001, false)[0];
    assert_eq!(
        public.game.as_ref().unwrap()["result"],
        serde_json::Value::Null
    );
    assert_eq!(
        h.boards(700_001, true)[0].game.as_ref().unwrap()["result"],
        "B+R"
    );
    assert_eq!(
        h.boards(1_300_001, false)[0].game.as_ref().unwrap()["result"],
        "B+R"
    );
    // a finished game whose board's clock runs an hour ahead: due by the hall's clock
    let g = serde_json::json!({"board": "1", "key": 1, "round": "1", "black": "A", "white": "B",
        "result": "B+R", "warnings": {"black": 0, "white": 0}, "moves": 1,
        "unix_ms": 700_000 + 3_600_000, "sgf": "(;)"});
    h.apply(&t.game(1), g.to_string().as_bytes(), None, 700_000);
    assert_eq!(h.games(700_001, true).len(), 1, "live: at once");
    assert!(h.games(700_001, false).is_empty());
    assert!(h.game("1", 1, 700_001, false).is_none());
    assert_eq!(
        h.games(1_300_000, false).len(),
        1,
        "public: after the delay"
    );
    assert!(h.game("1", 1, 1_300_000, false).is_some());
}

#[test]
fn a_boards_kept_states_are_bounded_in_bytes_whatever_the_delay() {
    let mut h = hall();
    h.set_delay_ms(3_600_000);
    let t = BoardTopics::new("h", "1");
    let filler = "0,".repeat(200_000);
    for seq in 1..=100u64 {
        let s = format!(r#"{{"board":"1","seq":{seq},"unix_ms":0,"state":{{"x":[{filler}0]}}}}"#);
        assert_eq!(
            h.apply(&t.state(), s.as_bytes(), None, seq * 1_000),
            Applied::Board
        );
    }
    let kept = &h.boards.get("1").unwrap().state;
    assert!(kept.bytes() <= STATE_BYTES_KEPT, "{}", kept.bytes());
    assert!(kept.len() >= 2);
    assert_eq!(h.boards(200_000, true)[0].seq, 100, "the newest is kept");
    // a record that is not SGF is not kept
    assert!(matches!(
        h.apply(&t.sgf(), b"<html>", None, 1),
        Applied::Ignored(_)
    ));
}
