//! The HTTP API with a real client against a real server on 127.0.0.1:0.

use std::time::Duration;

use futures_util::StreamExt;
use smartgoban::rules::GameRecord;
use smartgoban::session::Command;
use smartgoban::sim::{NoiseModel, Source, Speed};

use crate::support::{root, rt, Rig};

/// One parsed SSE message.
#[derive(Debug, Clone, PartialEq)]
pub struct Msg {
    pub id: u64,
    pub data: serde_json::Value,
}

/// Reads `n` messages from an SSE response.
pub async fn read_sse(resp: reqwest::Response, n: usize) -> Vec<Msg> {
    read_sse_until(resp, |msgs| msgs.len() >= n).await
}

/// Reads messages from an SSE response until `done` says so.
pub async fn read_sse_until(resp: reqwest::Response, done: impl Fn(&[Msg]) -> bool) -> Vec<Msg> {
    let mut stream = resp.bytes_stream();
    let mut buf = String::new();
    let mut out: Vec<Msg> = Vec::new();
    while !done(&out) {
        let chunk = tokio::time::timeout(Duration::from_secs(60), stream.next())
            .await
            .expect("SSE message within 60 s")
            .expect("stream open")
            .expect("chunk");
        buf.push_str(std::str::from_utf8(&chunk).unwrap());
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            let mut id = None;
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id:") {
                    id = Some(v.trim().parse().unwrap());
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.trim_start());
                }
            }
            if let Some(id) = id {
                out.push(Msg {
                    id,
                    data: serde_json::from_str(&data).unwrap(),
                });
                if done(&out) {
                    break;
                }
            }
        }
    }
    out
}

fn builtin() -> GameRecord {
    GameRecord::from_sgf_bytes(&std::fs::read(root().join("assets/games/danghu03.sgf")).unwrap())
        .unwrap()
}

#[test]
fn state_and_record_follow_the_game() {
    rt().block_on(async {
        let source = builtin();
        let rig = Rig::start(
            Source::Record(source.clone()),
            NoiseModel::Realistic,
            3,
            Speed::Max,
        )
        .await;
        rig.wait_done().await;
        let client = reqwest::Client::new();
        let state: serde_json::Value = client
            .get(rig.url("/api/v1/state"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(state["move_number"], source.moves.len());
        assert_eq!(state["size"], 19);
        assert_eq!(state["phase"], "play");
        assert_eq!(state["link"]["state"], "connected");
        let rows = state["board"].as_array().unwrap();
        assert_eq!(rows.len(), 19);
        // the record's final position, replayed by the rules core
        let mut game =
            smartgoban::rules::Game::with_setup(19, &source.setup, source.first_to_move()).unwrap();
        for m in &source.moves {
            game.play(m.color, m.point).unwrap();
        }
        let want: Vec<serde_json::Value> =
            game.board().rows().into_iter().map(Into::into).collect();
        assert_eq!(rows, &want);
        assert_eq!(state["sensed"], state["board"]);
        assert_eq!(
            state["captures"]["black"],
            game.captures(smartgoban::rules::Color::Black)
        );
        assert_eq!(
            state["captures"]["white"],
            game.captures(smartgoban::rules::Color::White)
        );
        assert_eq!(state["to_move"], game.to_move().as_str());

        let resp = client
            .get(rig.url("/api/v1/game.sgf"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        assert!(resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/x-go-sgf"));
        let sgf = resp.text().await.unwrap();
        let got = GameRecord::from_sgf_str(&sgf).unwrap();
        assert_eq!(got.moves.len(), source.moves.len());
        assert_eq!(got.info.black, source.info.black);

        let resp = client.get(rig.url("/api/v1/nothing")).send().await.unwrap();
        assert_eq!(resp.status(), 404);
        rig.stop().await;
    });
}

#[test]
fn event_feed_resumes_after_a_disconnect_with_the_same_ids() {
    rt().block_on(async {
        let source = builtin();
        // real time × 25: the game takes a while, so the feed is followed live
        let rig = Rig::start(
            Source::Record(source.clone()),
            NoiseModel::Clean,
            1,
            Speed::Factor(25.0),
        )
        .await;
        let client = reqwest::Client::new();
        let first = read_sse(
            client.get(rig.url("/api/v1/events")).send().await.unwrap(),
            12,
        )
        .await;
        let ids: Vec<u64> = first.iter().map(|m| m.id).collect();
        assert_eq!(ids, (1..=12).collect::<Vec<_>>());
        assert_eq!(first[0].data["kind"], "game");
        // disconnected (dropped); the game goes on (wait until the log has events the
        // client missed); reconnect with Last-Event-ID
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while rig.events().len() < 20 {
            assert!(
                std::time::Instant::now() < deadline,
                "the game never went on while the client was away: {} events",
                rig.events().len()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let resumed = read_sse(
            client
                .get(rig.url("/api/v1/events"))
                .header("Last-Event-ID", "12")
                .send()
                .await
                .unwrap(),
            20,
        )
        .await;
        let ids: Vec<u64> = resumed.iter().map(|m| m.id).collect();
        assert_eq!(ids, (13..=32).collect::<Vec<_>>());
        // the same events the log holds, byte for byte
        let log = rig.events();
        for m in first.iter().chain(&resumed) {
            assert_eq!(m.data, log[(m.id - 1) as usize]);
        }
        // ?since= does the same
        let again = read_sse(
            client
                .get(rig.url("/api/v1/events?since=30"))
                .send()
                .await
                .unwrap(),
            2,
        )
        .await;
        assert_eq!(again.iter().map(|m| m.id).collect::<Vec<_>>(), [31, 32]);
        assert_eq!(again, resumed[18..].to_vec());
        // a live event arrives on an open feed
        let feed = client
            .get(rig.url(&format!("/api/v1/events?since={}", rig.events().len())))
            .send()
            .await
            .unwrap();
        rig.daemon
            .command(Command::SetResult("B+R".into()))
            .await
            .unwrap();
        let live = read_sse_until(feed, |m| m.iter().any(|m| m.data["kind"] == "result")).await;
        let result = live.iter().find(|m| m.data["kind"] == "result").unwrap();
        assert_eq!(result.data["re"], "B+R");
        assert_eq!(result.data["winner"], "black");
        rig.stop().await;
    });
}

#[test]
fn a_client_that_sends_no_request_is_dropped_and_bad_queries_get_json_errors() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    rt().block_on(async {
        let rig = Rig::start(Source::Record(builtin()), NoiseModel::Clean, 1, Speed::Max).await;
        let addr = rig.daemon.http_addr().unwrap();
        let mut idle = tokio::net::TcpStream::connect(addr).await.unwrap();
        idle.write_all(b"GET /api/v1/state HTTP/1.1\r\nHost: x\r\n")
            .await
            .unwrap();
        let started = std::time::Instant::now();
        let mut buf = [0u8; 1024];
        // the server closes it once the header timeout has passed
        let n = tokio::time::timeout(Duration::from_secs(15), idle.read(&mut buf))
            .await
            .expect("closed within 15 s")
            .unwrap_or(0);
        let text = String::from_utf8_lossy(&buf[..n]);
        assert!(n == 0 || text.contains("408"), "{text}");
        let timeout = smartgoban::api::server::HEADER_TIMEOUT;
        assert!(started.elapsed() >= timeout - Duration::from_secs(1));
        assert!(started.elapsed() < timeout + Duration::from_secs(5));
        // meanwhile and afterwards the API answers
        let client = reqwest::Client::new();
        let resp = client
            .get(rig.url("/api/v1/events?since=abc"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 400);
        let body: serde_json::Value = resp.json().await.unwrap();
        assert!(body["error"].as_str().unwrap().contains("abc"));
        let state: serde_json::Value = client
            .get(rig.url("/api/v1/state"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert!(state["link"].get("error").is_some());
        assert!(state.get("storage_error").is_some());
        rig.stop().await;
    });
}
