//! The live feeds (issue 6): SSE resumed after a disconnect during which the referee corrected
//! a move, the WebSocket with the same events and ids, a snapshot for an id the service no
//! longer knows, and a client that replays the feed ends with the board of `GET state`.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use smartgoban::rules::{Color, Game, Point};
use smartgoban::sim::{NoiseModel, Speed};

use crate::support::{rt, Rig, TEST_TOKEN};

const GAME: &str = "size 9\n\
    at 0 place B E5\nat 500 place W C3\nat 1000 place B G7\nat 1500 place W C7\n\
    at 2000 place B G3\nat 2500 place W E3\n";

/// SSE messages `(id, data)` from `url` (with `Last-Event-ID` if given) until `done`.
async fn sse(
    url: &str,
    last_id: Option<u64>,
    done: impl Fn(&[(u64, Value)]) -> bool,
) -> Vec<(u64, Value)> {
    let client = reqwest::Client::new();
    let mut req = client.get(url);
    if let Some(id) = last_id {
        req = req.header("Last-Event-ID", id.to_string());
    }
    let resp = req.send().await.unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let mut stream = resp.bytes_stream();
    let mut buf = String::new();
    let mut out = Vec::new();
    while !done(&out) {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("an SSE message within 10 s")
            .unwrap()
            .unwrap();
        buf.push_str(std::str::from_utf8(&chunk).unwrap());
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            let id = block
                .lines()
                .find_map(|l| l.strip_prefix("id:"))
                .map(|v| v.trim().parse().unwrap());
            let data: String = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim_start)
                .collect();
            if let Some(id) = id {
                out.push((id, serde_json::from_str(&data).unwrap()));
            }
        }
    }
    out
}

/// The board a client gets by replaying the feed: the moves, undone and corrected as told.
fn replay(events: &[Value], size: u8) -> Vec<String> {
    let mut moves: Vec<(Color, Option<Point>)> = Vec::new();
    let color = |v: &Value| {
        if v == "black" {
            Color::Black
        } else {
            Color::White
        }
    };
    let point = |v: &Value| v.as_str().map(|p| Point::from_gtp(p, size).unwrap());
    for e in events {
        match e["kind"].as_str().unwrap() {
            "snapshot" => {
                moves = e["moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| (color(&m["color"]), point(&m["point"])))
                    .collect()
            }
            "game" => moves.clear(),
            "move" => moves.push((color(&e["color"]), point(&e["point"]))),
            "pass" => moves.push((color(&e["color"]), None)),
            "move_undone" => moves.truncate(e["number"].as_u64().unwrap() as usize - 1),
            "move_corrected" => {
                let n = e["number"].as_u64().unwrap() as usize;
                moves[n - 1] = (color(&e["color"]), point(&e["point"]));
            }
            _ => {}
        }
    }
    let mut game = Game::new(size).unwrap();
    for (c, p) in moves {
        game.play(c, p).unwrap();
    }
    game.board().rows()
}

#[test]
fn sse_resumes_across_a_correction_and_the_websocket_carries_the_same_feed() {
    rt().block_on(async {
        let rig = Rig::script(GAME, NoiseModel::Clean, 1, Speed::Max).await;
        rig.wait_done().await;
        let url = rig.url("/api/v1/events");
        let first = sse(&url, None, |m| {
            m.iter().filter(|(_, d)| d["kind"] == "move").count() >= 6
        })
        .await;
        let last = first.last().unwrap().0;
        // Disconnected; the referee corrects move 4 (C7 → D7).
        let (resp_status, resp_text) = rig
            .act(
                "/api/v1/moves/4/correct",
                serde_json::json!({"point": "D7"}),
            )
            .await;
        assert_eq!(resp_status, 200, "{resp_text}");
        let resumed = sse(&url, Some(last), |m| {
            m.iter().any(|(_, d)| d["kind"] == "move_corrected")
        })
        .await;
        assert!(
            resumed.iter().all(|(id, _)| *id > last),
            "only what was missed"
        );
        let ids: Vec<u64> = first.iter().chain(&resumed).map(|(id, _)| *id).collect();
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "strictly increasing ids: {ids:?}"
        );
        let corrected = resumed
            .iter()
            .find(|(_, d)| d["kind"] == "move_corrected")
            .unwrap();
        assert_eq!(
            (
                corrected.1["number"].as_u64(),
                corrected.1["point"].as_str()
            ),
            (Some(4), Some("D7"))
        );
        // Replaying the feed gives the board of GET state.
        let events: Vec<Value> = first
            .iter()
            .chain(&resumed)
            .map(|(_, d)| d.clone())
            .collect();
        let state: Value = rig.get_json("/api/v1/state", false).await;
        let board: Vec<String> = serde_json::from_value(state["board"].clone()).unwrap();
        assert_eq!(replay(&events, 9), board);
        // The WebSocket from the start: the same ids and events.
        let ws_url = rig
            .url("/api/v1/ws?since=0")
            .replacen("http://", "ws://", 1);
        let (mut ws, _) = tokio_tungstenite::connect_async(ws_url).await.unwrap();
        let mut ws_events = Vec::new();
        while ws_events.len() < ids.len() {
            let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            if let tokio_tungstenite::tungstenite::Message::Text(t) = msg {
                ws_events.push(serde_json::from_str::<Value>(&t).unwrap());
            }
        }
        let ws_ids: Vec<u64> = ws_events
            .iter()
            .map(|e| e["seq"].as_u64().unwrap())
            .collect();
        assert_eq!(ws_ids, ids);
        assert_eq!(ws_events, events);
        // The metrics count the WebSocket client and what went through.
        let metrics = reqwest::get(rig.url("/metrics"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let value = |name: &str| -> f64 {
            metrics
                .lines()
                .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
                .unwrap_or_else(|| panic!("{name} in {metrics}"))
                .rsplit(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert_eq!(value("smartgoban_feed_clients{feed=\"ws\"}"), 1.0);
        assert!(value("smartgoban_scans_total") > 100.0);
        assert!(value("smartgoban_settle_latency_ms_count") >= 6.0);
        assert!(value("smartgoban_settle_latency_ms_bucket{le=\"+Inf\"}") >= 6.0);
        assert!(value("smartgoban_feed_events_sent_total") >= 2.0 * ids.len() as f64);
        assert_eq!(value("smartgoban_serial_errors_total{kind=\"crc\"}"), 0.0);
        assert_eq!(value("smartgoban_link_up"), 1.0);
        assert_eq!(value("smartgoban_moves"), 6.0);
        // a count of the events, not the last id (ids start from the wall clock)
        assert_eq!(
            value("smartgoban_events_total"),
            rig.events().len() as f64,
            "events_total"
        );
        ws.send(tokio_tungstenite::tungstenite::Message::Close(None))
            .await
            .unwrap();
        // An id from another run: a snapshot first, then the live feed.
        let snap = sse(&url, Some(u64::MAX / 2), |m| !m.is_empty()).await;
        assert_eq!(snap[0].1["kind"], "snapshot");
        assert!(snap[0].0 >= ids.last().copied().unwrap());
        assert_eq!(snap[0].1["seq"].as_u64(), Some(snap[0].0));
        assert_eq!(replay(&[snap[0].1.clone()], 9), board);
        let bad = reqwest::get(rig.url("/api/v1/ws?since=x")).await.unwrap();
        assert_eq!(bad.status().as_u16(), 400);
        rig.stop().await;
    });
}

/// The public broadcast delay: without the token, reads and feeds lag N moves (or N seconds)
/// behind; with it, the referee sees the game live.
#[test]
fn the_broadcast_delay_holds_back_public_reads_and_feeds_but_not_the_referee() {
    rt().block_on(async {
        // At twice real time, as a game is played: every move is published on its own (at
        // full speed several moves can fall between two snapshots).
        let rig = Rig::script(GAME, NoiseModel::Clean, 1, Speed::Factor(2.0)).await;
        rig.wait_done().await;
        let client = reqwest::Client::new();
        let set = |body: Value| {
            client
                .post(rig.url("/api/v1/broadcast"))
                .bearer_auth(TEST_TOKEN)
                .json(&body)
                .send()
        };
        let moves_of = |v: &Value| v["move_number"].as_u64().unwrap();
        let public_state = || async {
            reqwest::get(rig.url("/api/v1/state"))
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        };
        assert_eq!(moves_of(&public_state().await), 6);
        let resp = set(serde_json::json!({"delay_moves": 2})).await.unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        // The public view moves at the next publish (every 200 ms at most).
        tokio::time::sleep(Duration::from_millis(500)).await;
        let public = public_state().await;
        assert!(moves_of(&public) <= 4, "{}", public["move_number"]);
        let live: Value = rig.get_json("/api/v1/state", true).await;
        assert_eq!(moves_of(&live), 6, "the referee sees it live");
        let public_moves: Value = rig.get_json("/api/v1/moves", false).await;
        assert_eq!(
            public_moves.as_array().unwrap().len() as u64,
            moves_of(&public)
        );
        let sgf = reqwest::get(rig.url("/api/v1/game.sgf"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(moves_of(&public) >= 3, "{}", public["move_number"]);
        assert_eq!(
            sgf.matches(";B[").count() + sgf.matches(";W[").count(),
            moves_of(&public) as usize,
            "the SGF is the public view's: {sgf}"
        );
        assert!(!sgf.contains("W[eg]"), "move 6 (W E3) is not in it: {sgf}");
        // The public feed stops where the public view is; the referee's goes on.
        let public_feed = tokio::time::timeout(
            Duration::from_millis(1500),
            sse(&rig.url("/api/v1/events"), None, |m| {
                m.iter().filter(|(_, d)| d["kind"] == "move").count() > 4
            }),
        )
        .await;
        assert!(
            public_feed.is_err(),
            "a public client must not get move 5 or 6"
        );
        let referee_moves = {
            let resp = client
                .get(rig.url("/api/v1/events"))
                .bearer_auth(TEST_TOKEN)
                .send()
                .await
                .unwrap();
            let mut stream = resp.bytes_stream();
            let mut text = String::new();
            while text.matches("\"kind\":\"move\"").count() < 6 {
                let chunk = tokio::time::timeout(Duration::from_secs(5), stream.next())
                    .await
                    .unwrap()
                    .unwrap()
                    .unwrap();
                text.push_str(std::str::from_utf8(&chunk).unwrap());
            }
            text.matches("\"kind\":\"move\"").count()
        };
        assert_eq!(referee_moves, 6);
        // A time delay: 1 s; after it, the public view is the game as it is (no new events).
        set(serde_json::json!({"delay_s": 1})).await.unwrap();
        tokio::time::sleep(Duration::from_millis(1600)).await;
        assert_eq!(moves_of(&public_state().await), 6);
        let got: Value = rig.get_json("/api/v1/broadcast", false).await;
        assert_eq!(got, serde_json::json!({"delay_moves": 0, "delay_s": 1}));
        let bad = set(serde_json::json!({"delay_moves": -1})).await.unwrap();
        assert_eq!(bad.status().as_u16(), 422);
        let unauth = reqwest::Client::new()
            .post(rig.url("/api/v1/broadcast"))
            .json(&serde_json::json!({"delay_moves": 0}))
            .send()
            .await
            .unwrap();
        assert_eq!(unauth.status().as_u16(), 401);
        rig.stop().await;
    });
}
