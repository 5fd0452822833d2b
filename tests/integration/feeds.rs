//! The live feeds (issue 6): SSE resumed after a disconnect during which the referee corrected
//! a move, the WebSocket with the same events and ids, a snapshot for an id the service no
//! longer knows, and a client that replays the feed ends with the board of `GET state`.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use smartgoban::rules::{Color, Game, Point};
use smartgoban::sim::{NoiseModel, Speed};

use crate::support::{rt, Rig, RigOptions, TEST_TOKEN};

const GAME: &str = "size 9\n\
    at 0 place B E5\nat 500 place W C3\nat 1000 place B G7\nat 1500 place W C7\n\
    at 2000 place B G3\nat 2500 place W E3\n";

/// An open SSE feed.
struct Sse {
    stream: std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<Vec<u8>>> + Send>>,
    buf: String,
}

impl Sse {
    /// Opens `url` (with `Last-Event-ID` if given).
    async fn open(url: &str, last_id: Option<u64>) -> Sse {
        let client = reqwest::Client::new();
        let mut req = client.get(url);
        if let Some(id) = last_id {
            req = req.header("Last-Event-ID", id.to_string());
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        Sse {
            stream: Box::pin(resp.bytes_stream().map(|chunk| chunk.map(|b| b.to_vec()))),
            buf: String::new(),
        }
    }

    /// Reads messages `(id, data)` into `out` until `done`; panics after 60 s without one.
    async fn read_until(
        &mut self,
        out: &mut Vec<(u64, Value)>,
        done: impl Fn(&[(u64, Value)]) -> bool,
    ) {
        while !done(out) {
            let chunk = tokio::time::timeout(Duration::from_secs(60), self.stream.next())
                .await
                .expect("an SSE message within 60 s")
                .unwrap()
                .unwrap();
            self.buf.push_str(std::str::from_utf8(&chunk).unwrap());
            while let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
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
    }
}

/// SSE messages `(id, data)` from `url` (with `Last-Event-ID` if given) until `done`.
async fn sse(
    url: &str,
    last_id: Option<u64>,
    done: impl Fn(&[(u64, Value)]) -> bool,
) -> Vec<(u64, Value)> {
    let mut out = Vec::new();
    Sse::open(url, last_id)
        .await
        .read_until(&mut out, done)
        .await;
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
            let msg = tokio::time::timeout(Duration::from_secs(60), ws.next())
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
        promtool_accepts(&metrics);
        assert_eq!(value("smartgoban_feed_clients{feed=\"ws\"}"), 1.0);
        assert!(value("smartgoban_scans_total") > 100.0);
        assert!(value("smartgoban_settle_latency_seconds_count") >= 6.0);
        assert!(value("smartgoban_settle_latency_seconds_bucket{le=\"+Inf\"}") >= 6.0);
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
        // A plain GET (no handshake): 426 Upgrade Required, in JSON, naming the SSE feed.
        let plain = reqwest::get(rig.url("/api/v1/ws")).await.unwrap();
        assert_eq!(plain.status().as_u16(), 426);
        assert_eq!(plain.headers()["upgrade"], "websocket");
        let v: Value = plain.json().await.unwrap();
        assert!(
            v["error"].as_str().unwrap().contains("/api/v1/events"),
            "{v}"
        );
        let huge = reqwest::get(rig.url("/api/v1/moves?since=9223372036854775808"))
            .await
            .unwrap();
        assert_eq!(huge.status().as_u16(), 400, "since past 2^63 − 1");
        rig.stop().await;
    });
}

/// `[api] feed_followers` (issue 15, point 12): past the limit, an SSE or WebSocket follower
/// gets a 503 with `Retry-After` and a JSON error naming the setting, ordinary reads go on, and
/// a place a follower leaves is taken again.
#[test]
fn followers_past_the_limit_are_told_when_to_retry_and_a_place_left_is_taken_again() {
    rt().block_on(async {
        let script = smartgoban::sim::Script::parse(GAME).expect("script parses");
        let options = RigOptions {
            limits: smartgoban::api::Limits {
                feed_followers: 2,
                ..Default::default()
            },
            ..Default::default()
        };
        let rig = Rig::start_with(
            smartgoban::sim::Source::Script(script),
            NoiseModel::Clean,
            1,
            Speed::Max,
            options,
        )
        .await;
        rig.wait_done().await;
        let url = rig.url("/api/v1/events");
        let first = Sse::open(&url, None).await;
        let _second = Sse::open(&url, None).await;
        let refused = reqwest::get(&url).await.unwrap();
        assert_eq!(refused.status().as_u16(), 503);
        assert_eq!(
            refused.headers().get("retry-after").map(|v| v.as_bytes()),
            Some(&b"10"[..])
        );
        let body: Value = refused.json().await.unwrap();
        let why = body["error"].as_str().unwrap_or_default();
        assert!(
            why.contains("2 clients") && why.contains("feed_followers"),
            "{body}"
        );
        // The WebSocket counts against the same limit.
        let ws_url = rig
            .url("/api/v1/ws?since=0")
            .replacen("http://", "ws://", 1);
        match tokio_tungstenite::connect_async(&ws_url).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
                assert_eq!(resp.status().as_u16(), 503);
                assert!(resp.headers().contains_key("retry-after"));
            }
            other => panic!("a WebSocket past the limit: {:?}", other.map(|_| ())),
        }
        // Reads that do not follow the feed are not held back.
        let state = reqwest::get(rig.url("/api/v1/state")).await.unwrap();
        assert_eq!(state.status().as_u16(), 200);
        // A follower leaves: its place is free as soon as the service sees it gone (at the
        // latest at the next keep-alive comment, every 15 s).
        drop(first);
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let resp = reqwest::get(&url).await.unwrap();
            match resp.status().as_u16() {
                200 => break,
                503 => assert!(
                    std::time::Instant::now() < deadline,
                    "the place left was not taken again within 60 s"
                ),
                other => panic!("status {other}"),
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
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
        // The public view moves at the next publish (every 200 ms at most): wait for it.
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let public = loop {
            let public = public_state().await;
            if moves_of(&public) <= 4 {
                break public;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the public view never held back 2 moves: {}",
                public["move_number"]
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
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
        // The public feed stops where the public view is; the referee's goes on. The public
        // client gets the public view's moves; then nothing positive is left to wait for, so
        // it is given 1.5 s for a move 5 or 6 that must not come.
        let moves_in = |m: &[(u64, Value)]| m.iter().filter(|(_, d)| d["kind"] == "move").count();
        let shown = moves_of(&public) as usize;
        let mut public_feed = Sse::open(&rig.url("/api/v1/events"), None).await;
        let mut got = Vec::new();
        public_feed
            .read_until(&mut got, |m| moves_in(m) >= shown)
            .await;
        let more = tokio::time::timeout(
            Duration::from_millis(1500),
            public_feed.read_until(&mut got, |m| moves_in(m) > shown),
        )
        .await;
        assert!(
            more.is_err() && moves_in(&got) == shown,
            "a public client must not get move 5 or 6: {got:?}"
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
                let chunk = tokio::time::timeout(Duration::from_secs(60), stream.next())
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
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let public = public_state().await;
            if moves_of(&public) == 6 {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the public view never caught up with the 1 s delay: {}",
                public["move_number"]
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
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

/// `promtool check metrics` (Prometheus's own linter: names, units in base units such as
/// `_seconds`, `_total` on counters, help texts) passes `metrics` without a remark. Skipped
/// with a note when promtool is not installed, unless `SMARTGOBAN_REQUIRE_PROMTOOL=1` (CI).
pub fn promtool_accepts(metrics: &str) {
    use std::io::Write;
    let child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => {
            assert!(
                std::env::var("SMARTGOBAN_REQUIRE_PROMTOOL").as_deref() != Ok("1"),
                "promtool is required: {e}"
            );
            eprintln!("promtool not installed ({e}): the metrics lint is skipped");
            return;
        }
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(metrics.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "promtool: {said}");
    assert_eq!(said.trim(), "", "promtool's remarks");
}
