//! The referee's actions over HTTP (issue 6): the token, every error class (401, 400, 422,
//! 404, 409, 413) with nothing changed, and the actions taking effect; `GET moves`.

use serde_json::{json, Value};
use smartgoban::sim::{NoiseModel, Speed};

use crate::support::{rt, Rig, TEST_TOKEN};

/// Black captures C3 with C2 and White replies at E5 before it is lifted, and nobody lifts it
/// for longer than the captor's patience: a missed capture (R18.2) stays open.
const MISSED: &str = "size 9\n\
    at 0 place B C4\nat 500 place W C3\nat 1000 place B B3\nat 1500 place W G7\n\
    at 2000 place B D3\nat 2500 place W G6\nat 3000 place B C2\nat 4000 place W E5\n\
    at 7000 hand J9 0 20\n";

async fn state(rig: &Rig) -> Value {
    rig.get_json("/api/v1/state", false).await
}

#[test]
fn actions_need_the_token_and_bad_requests_change_nothing() {
    rt().block_on(async {
        let rig = Rig::script(MISSED, NoiseModel::Clean, 1, Speed::Max).await;
        rig.wait_done().await;
        let before = state(&rig).await;
        let id = before["violations"][0]["id"].as_u64().unwrap();
        assert_eq!(before["violations"][0]["code"], "missed_capture");
        let client = reqwest::Client::new();
        let resolve = rig.url(&format!("/api/v1/violations/{id}/resolve"));
        let post = |url: &str, token: Option<&str>, body: &str| {
            let mut req = client
                .post(url)
                .header("content-type", "application/json")
                .body(body.to_string());
            if let Some(t) = token {
                req = req.bearer_auth(t);
            }
            req.send()
        };
        let cases: Vec<(String, Option<&str>, String, u16, &str)> = vec![
            (resolve.clone(), None, r#"{"ruling":"put_back"}"#.into(), 401, "token"),
            (resolve.clone(), Some("wrong"), r#"{"ruling":"put_back"}"#.into(), 401, "token"),
            (resolve.clone(), Some(TEST_TOKEN), "{ruling".into(), 400, ""),
            (resolve.clone(), Some(TEST_TOKEN), r#"{"ruling":"maybe"}"#.into(), 422, "ruling"),
            // well-formed JSON of the wrong type is a bad value, as every other one is
            (resolve.clone(), Some(TEST_TOKEN), r#"{"ruling":5}"#.into(), 422, "wrong type in the body (ruling"),
            (resolve.clone(), Some(TEST_TOKEN), r#"{"ruling":["accept"]}"#.into(), 422, "ruling"),
            (resolve.clone(), Some(TEST_TOKEN), r#"{"ruling":"put_back","x":1}"#.into(), 422, "x"),
            (resolve.clone(), Some(TEST_TOKEN), "{}".into(), 422, "ruling"),
            (
                rig.url("/api/v1/violations/999/resolve"),
                Some(TEST_TOKEN),
                r#"{"ruling":"put_back"}"#.into(),
                404,
                "no open violation 999",
            ),
            (
                rig.url("/api/v1/violations/-1/resolve"),
                Some(TEST_TOKEN),
                r#"{"ruling":"put_back"}"#.into(),
                404,
                "no such violation",
            ),
            (
                rig.url("/api/v1/games"),
                Some(TEST_TOKEN),
                r#"{"size":13}"#.into(),
                409,
                "the board is 9×9",
            ),
            (
                rig.url("/api/v1/moves/99/correct"),
                Some(TEST_TOKEN),
                r#"{"point":"A1"}"#.into(),
                404,
                "no move 99",
            ),
            (
                rig.url("/api/v1/moves/1/correct"),
                Some(TEST_TOKEN),
                r#"{"point":"Z99"}"#.into(),
                422,
                "Z99",
            ),
            // A GTP point off this 9×9 board: the state refuses it, the syntax is right.
            (
                rig.url("/api/v1/moves/1/correct"),
                Some(TEST_TOKEN),
                r#"{"point":"T19"}"#.into(),
                409,
                "outside the 9×9 board",
            ),
            (
                rig.url("/api/v1/count"),
                Some(TEST_TOKEN),
                r#"{"dead":["A1","K10"]}"#.into(),
                409,
                "outside the 9×9 board",
            ),
            // serde would read a struct from an array of its fields: objects only.
            (
                rig.url("/api/v1/broadcast"),
                Some(TEST_TOKEN),
                "[]".into(),
                422,
                "object",
            ),
            (
                rig.url("/api/v1/broadcast"),
                Some(TEST_TOKEN),
                "[5, 0]".into(),
                422,
                "object",
            ),
            // nothing held, no provisional moves: the answer says which is missing
            (
                rig.url("/api/v1/ambiguous/choose"),
                Some(TEST_TOKEN),
                r#"{"index":0}"#.into(),
                409,
                "no board is held",
            ),
            (
                rig.url("/api/v1/ambiguous/choose"),
                Some(TEST_TOKEN),
                r#"{"index":0,"first":5}"#.into(),
                409,
                "no provisional moves start at move 5",
            ),
            (
                rig.url("/api/v1/ambiguous/choose"),
                Some(TEST_TOKEN),
                r#"{"index":"first"}"#.into(),
                422,
                "index",
            ),
            (
                rig.url("/api/v1/clock/adjust"),
                Some(TEST_TOKEN),
                r#"{"color":"black","delta_ms":60000}"#.into(),
                409,
                "no clock",
            ),
            (
                rig.url("/api/v1/clock/resume"),
                Some(TEST_TOKEN),
                "".into(),
                409,
                "phase",
            ),
            (
                rig.url("/api/v1/warnings"),
                Some(TEST_TOKEN),
                r#"{"color":"green","reason":"x"}"#.into(),
                422,
                "green",
            ),
            (
                rig.url("/api/v1/games"),
                Some(TEST_TOKEN),
                r#"{"size":10}"#.into(),
                422,
                "size 10",
            ),
            (
                rig.url("/api/v1/games"),
                Some(TEST_TOKEN),
                r#"{"profile":"aga"}"#.into(),
                422,
                "profile",
            ),
            (
                rig.url("/api/v1/games"),
                Some(TEST_TOKEN),
                format!(r#"{{"black":"{}"}}"#, "x".repeat(70_000)),
                413,
                "",
            ),
        ];
        for (url, token, body, status, words) in cases {
            let resp = post(&url, token, &body).await.unwrap();
            let code = resp.status().as_u16();
            let text = resp.text().await.unwrap();
            assert_eq!(code, status, "{url} {body:.60}: {text}");
            assert!(
                text.to_lowercase().contains(&words.to_lowercase()),
                "{url}: {text}"
            );
            if code != 413 {
                let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                assert!(v["error"].is_string(), "a JSON error: {text}");
            }
        }
        // A body not sent as JSON: 415, and said so in JSON.
        for content_type in [None, Some("text/plain"), Some("application/jsonx")] {
            let mut req = client
                .post(rig.url("/api/v1/broadcast"))
                .bearer_auth(TEST_TOKEN)
                .body(r#"{"delay_moves":5}"#);
            if let Some(t) = content_type {
                req = req.header("content-type", t);
            }
            let resp = req.send().await.unwrap();
            assert_eq!(resp.status().as_u16(), 415, "{content_type:?}");
            let v: Value = resp.json().await.unwrap();
            assert!(v["error"].as_str().unwrap().contains("application/json"), "{v}");
        }
        // a byte that is no UTF-8 inside a string: no JSON at all, 400
        let resp = client
            .post(rig.url("/api/v1/ambiguous/choose"))
            .bearer_auth(TEST_TOKEN)
            .header("content-type", "application/json")
            .body(b"{\"index\":0,\"\xff\":1}".to_vec())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 400);
        let got: Value = rig.get_json("/api/v1/broadcast", false).await;
        assert_eq!(got, json!({"delay_moves": 0, "delay_s": 0}), "no delay was set");
        // Nothing changed.
        let after = state(&rig).await;
        assert_eq!(after["violations"], before["violations"]);
        assert_eq!(after["warnings"], before["warnings"]);
        assert_eq!(after["move_number"], before["move_number"]);
        // GET moves, all and since.
        let moves: Value = rig.get_json("/api/v1/moves", false).await;
        assert_eq!(moves.as_array().unwrap().len(), 8);
        assert_eq!(moves[6]["point"], "C2");
        assert_eq!(moves[6]["sgf"], "ch");
        assert_eq!(moves[6]["captures"], json!(["C3"]));
        assert_eq!(moves[6]["color"], "black");
        let since: Value = rig.get_json("/api/v1/moves?since=6", false).await;
        assert_eq!(since.as_array().unwrap().len(), 2);
        assert_eq!(since[0]["number"], 7);
        let bad = reqwest::get(rig.url("/api/v1/moves?since=x")).await.unwrap();
        assert_eq!(bad.status().as_u16(), 400);
        // Now the right actions.
        let resp = post(&rig.url("/api/v1/warnings"), Some(TEST_TOKEN), r#"{"color":"white","reason":"talking"}"#)
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200, "{}", resp.text().await.unwrap());
        let resp = post(&resolve, Some(TEST_TOKEN), r#"{"ruling":"accept"}"#).await.unwrap();
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        assert!(status == 200 || status == 409, "{status} {text}");
        let s = state(&rig).await;
        assert_eq!(s["warnings"]["white"].as_u64(), Some(before["warnings"]["white"].as_u64().unwrap() + 1));
        // The reason goes into the record and the event.
        let sgf = reqwest::get(rig.url("/api/v1/game.sgf")).await.unwrap().text().await.unwrap();
        assert!(sgf.contains("warning to white by the referee (R24)") && sgf.contains("talking"), "{sgf}");
        let warned = rig.events().into_iter().any(|e| e["kind"] == "warning" && e["reason"] == "talking");
        assert!(warned);
        // The scheme name of the Authorization header does not depend on case.
        let resp = client
            .post(rig.url("/api/v1/clock/pause"))
            .header("authorization", format!("bearer {TEST_TOKEN}"))
            .send()
            .await
            .unwrap();
        assert_ne!(resp.status().as_u16(), 401);
        let resp = client
            .get(rig.url("/api/v1/warnings"))
            .bearer_auth(TEST_TOKEN)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 405);
        assert!(resp.text().await.unwrap().contains("error"));
        let resp = post(
            &rig.url("/api/v1/games"),
            Some(TEST_TOKEN),
            r#"{"size":9,"black":"Ke Jie <!--<script>","white":"Shin\u0007 Jinseo","komi":7.5,"event":"Test \"Cup\" ]\\","round":"1","profile":"cn1988","replace":true}"#,
        )
        .await
        .unwrap();
        assert_eq!(resp.status().as_u16(), 200, "{}", resp.text().await.unwrap());
        let s = state(&rig).await;
        assert_eq!(s["size"], 9);
        assert_eq!(s["move_number"], 0);
        assert_eq!(s["game"]["black"], "Ke Jie <!--<script>");
        assert_eq!(s["game"]["white"], "Shin Jinseo", "control characters dropped");
        // The live page embeds the state without anything the HTML parser would read.
        let page = reqwest::get(rig.url("/")).await.unwrap().text().await.unwrap();
        assert!(!page.contains("<!--<script>"), "escaped in the page");
        assert!(page.contains("Ke Jie \\u003c!--\\u003cscript\\u003e"));
        assert_eq!(s["profile"], "cn1988");
        let sgf = reqwest::get(rig.url("/api/v1/game.sgf")).await.unwrap().text().await.unwrap();
        assert!(sgf.contains("PB[Ke Jie <!--<script>]"), "{sgf}");
        assert!(sgf.contains(r#"EV[Test "Cup" \]\\]"#), "escaped: {sgf}");
        rig.stop().await;
    });
}

#[test]
fn the_openapi_document_describes_every_route() {
    rt().block_on(async {
        let rig = Rig::script(
            "size 9\nat 0 place B E5\n",
            NoiseModel::Clean,
            1,
            Speed::Max,
        )
        .await;
        let doc: Value = rig.get_json("/api/v1/openapi.json", false).await;
        assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
        let paths = doc["paths"].as_object().unwrap();
        for (path, method) in [
            ("/api/v1/state", "get"),
            ("/api/v1/moves", "get"),
            ("/api/v1/game.sgf", "get"),
            ("/api/v1/events", "get"),
            ("/api/v1/ws", "get"),
            ("/api/v1/leds", "get"),
            ("/api/v1/games", "get"),
            ("/api/v1/games", "post"),
            ("/api/v1/games/{id}.sgf", "get"),
            ("/api/v1/broadcast", "get"),
            ("/api/v1/broadcast", "post"),
            ("/api/v1/violations/{id}/resolve", "post"),
            ("/api/v1/ambiguous/choose", "post"),
            ("/api/v1/moves/{number}/correct", "post"),
            ("/api/v1/warnings", "post"),
            ("/api/v1/clock/pause", "post"),
            ("/api/v1/clock/resume", "post"),
            ("/api/v1/clock/adjust", "post"),
            ("/api/v1/result", "post"),
            ("/api/v1/count", "post"),
            ("/metrics", "get"),
        ] {
            assert!(
                paths.get(path).and_then(|p| p.get(method)).is_some(),
                "{method} {path}"
            );
        }
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        for s in [
            "StateView",
            "MoveView",
            "LedsSnapshot",
            "NewGame",
            "ViolationView",
            "ClockView",
        ] {
            assert!(schemas.contains_key(s), "schema {s}");
        }
        assert!(schemas["StateView"]["properties"]["board"].is_object());
        // What the shell adds to the state is in its schema, and served.
        assert!(schemas["StateView"]["properties"]["storage_error"].is_object());
        assert!(schemas["LinkView"]["properties"]["error"].is_object());
        let state: Value = rig.get_json("/api/v1/state", false).await;
        assert!(state.get("storage_error").is_some() && state["link"].get("error").is_some());
        // POST broadcast answers the delay in force, as documented.
        let delay = &paths["/api/v1/broadcast"]["post"]["responses"]["200"]["content"]
            ["application/json"]["schema"]["$ref"];
        assert_eq!(delay, "#/components/schemas/DelaySettings");
        // Request schemas as strict as the server: sizes, names, GTP points.
        let new_game = &schemas["NewGame"]["properties"];
        assert_eq!(
            new_game["size"]["enum"],
            serde_json::json!([9, 13, 19, null])
        );
        assert_eq!(new_game["black"]["maxLength"], 200);
        let correct = &schemas["Correct"]["properties"]["point"]["pattern"];
        let pattern = regex::Regex::new(correct.as_str().unwrap()).unwrap();
        for (p, ok) in [
            ("D4", true),
            ("t19", true),
            (" A1 ", true),
            ("I5", false),
            ("A0", false),
            ("A20", false),
            ("pass", false),
        ] {
            assert_eq!(pattern.is_match(p), ok, "{p}");
        }
        assert_eq!(
            paths["/api/v1/warnings"]["post"]["tags"],
            serde_json::json!(["referee"])
        );
        assert_eq!(
            doc["components"]["securitySchemes"]["bearer"]["scheme"],
            "bearer"
        );
        assert!(paths["/api/v1/warnings"]["post"]["responses"]["409"].is_object());
        rig.stop().await;
    });
}

#[test]
fn a_body_that_never_finishes_is_answered_408() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    rt().block_on(async {
        let rig = Rig::script("size 9\nat 0 place B E5\n", NoiseModel::Clean, 1, Speed::Max).await;
        let addr = rig.daemon.http_addr().unwrap();
        let mut conn = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST /api/v1/warnings HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TEST_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"color\":"
        );
        conn.write_all(head.as_bytes()).await.unwrap();
        let started = std::time::Instant::now();
        let mut buf = vec![0u8; 4096];
        let n = tokio::time::timeout(std::time::Duration::from_secs(20), conn.read(&mut buf))
            .await
            .expect("an answer within 20 s")
            .unwrap();
        let text = String::from_utf8_lossy(&buf[..n]);
        assert!(text.starts_with("HTTP/1.1 408"), "{text}");
        assert!(started.elapsed() >= smartgoban::api::actions::BODY_TIMEOUT - std::time::Duration::from_secs(1));
        let s = state(&rig).await;
        assert_eq!(s["warnings"], json!({"black": 0, "white": 0}));
        rig.stop().await;
    });
}
