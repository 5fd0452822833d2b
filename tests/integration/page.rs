//! The live page in headless Chromium.
//!
//! * Issue 6: after a few moves of a demo game with a missed capture, the page shows the board
//!   of `GET state` (every stone on its point), the open violation with its buttons and the
//!   stone to lift marked; a screenshot is written to `target/test-artifacts/live-page.png`.
//! * Issue 15 (10): a real game followed live over the DevTools protocol ([`cdp`]), at several
//!   moments (the opening, mid-game at the first capture, the end): the coordinates, the
//!   newest move in view, history by click and by the arrow keys (the stones shown equal the
//!   position computed in Rust from the record, while new moves keep arriving), the first
//!   paint without JavaScript, the icon; and the token flow with `public_reads = false`.
//!   Screenshots named by moment in `target/test-artifacts/page-*.png`.
//!
//! Needs Debian's `chromium` (installed by `.ci/run`, which sets
//! `SMARTGOBAN_REQUIRE_CHROMIUM=1`: then its absence fails the tests); skipped with a note
//! without it.

mod cdp;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use smartgoban::sim::{NoiseModel, Speed};

use crate::support::{root, rt, Rig, RigOptions};

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SMARTGOBAN_CHROMIUM") {
        return Some(p.into());
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(PathBuf::from)
}

fn headless(chromium: &PathBuf, args: &[&str]) -> String {
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--timeout=5000",
        ])
        .args(args)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Chromium, or `None` with a note (a failure when `SMARTGOBAN_REQUIRE_CHROMIUM` is set).
fn required_chromium() -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        assert!(
            std::env::var_os("SMARTGOBAN_REQUIRE_CHROMIUM").is_none(),
            "SMARTGOBAN_REQUIRE_CHROMIUM is set but no chromium was found"
        );
        eprintln!("note: no chromium; the live page test is skipped");
    }
    found
}

#[test]
fn the_live_page_shows_the_board_of_the_state_in_chromium() {
    let Some(chromium) = required_chromium() else {
        return;
    };
    rt().block_on(async {
        let script = "size 9\n\
            at 0 place B C4\nat 500 place W C3\nat 1000 place B B3\nat 1500 place W G7\n\
            at 2000 place B D3\nat 2500 place W G6\nat 3000 place B C2\nat 4000 place W E5\n\
    at 7000 hand J9 0 20\n";
        let rig = Rig::script(script, NoiseModel::Realistic, 4, Speed::Max).await;
        rig.wait_done().await;
        let state: Value = rig.get_json("/api/v1/state", false).await;
        let url = rig.url("/");
        let dom = {
            let (c, u) = (chromium.clone(), url.clone());
            tokio::task::spawn_blocking(move || headless(&c, &["--dump-dom", &u]))
                .await
                .unwrap()
        };
        // Every stone of the state, and nothing else, is drawn on its point.
        let mut want = BTreeSet::new();
        let rows: Vec<String> = serde_json::from_value(state["board"].clone()).unwrap();
        for (y, row) in rows.iter().enumerate() {
            for (x, c) in row.chars().enumerate() {
                if c != '.' {
                    let p = smartgoban::rules::Point::new(x as u8, y as u8).to_gtp(9);
                    want.insert((if c == 'X' { "black" } else { "white" }, p));
                }
            }
        }
        let mut got = BTreeSet::new();
        for colour in ["black", "white"] {
            let tag = format!("class=\"stone {colour}\" data-point=\"");
            for part in dom.split(&tag).skip(1) {
                got.insert((colour, part.split('"').next().unwrap().to_string()));
            }
        }
        assert_eq!(got, want, "the stones on the page");
        assert!(dom.contains(&format!("data-move=\"{}\"", state["move_number"])));
        assert!(
            dom.contains("missed_capture (R18.2)"),
            "the open violation is listed"
        );
        assert!(
            dom.contains("class=\"mark remove\" data-point=\"C3\""),
            "the stone to lift is marked"
        );
        assert!(dom.contains(">put back</button>") && dom.contains(">accept</button>"));
        // The overlay: board and clocks only, on a transparent page.
        let overlay = {
            let (c, u) = (chromium.clone(), format!("{url}?overlay=1"));
            tokio::task::spawn_blocking(move || headless(&c, &["--dump-dom", &u]))
                .await
                .unwrap()
        };
        assert!(
            overlay.contains("<body class=\"overlay\""),
            "{overlay:.300}"
        );
        // A screenshot for people to look at.
        let dir = root().join("target/test-artifacts");
        std::fs::create_dir_all(&dir).unwrap();
        let shot = dir.join("live-page.png");
        let _ = std::fs::remove_file(&shot);
        let arg = format!("--screenshot={}", shot.display());
        let (c, u) = (chromium.clone(), url.clone());
        tokio::task::spawn_blocking(move || headless(&c, &[&arg, "--window-size=1280,1000", &u]))
            .await
            .unwrap();
        let png = std::fs::read(&shot).unwrap();
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 20_000,
            "{} bytes",
            png.len()
        );
        rig.stop().await;
    });
}

use smartgoban::rules::{Game, GameRecord};

use cdp::Browser;

/// The folder of the screenshots.
fn artifacts() -> PathBuf {
    let dir = root().join("target/test-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The stones of `rows` (top row first, `X`/`O`) as (colour, GTP point).
fn stones(rows: &[String], size: u8) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (y, row) in rows.iter().enumerate() {
        for (x, c) in row.chars().enumerate() {
            if c != '.' {
                let p = smartgoban::rules::Point::new(x as u8, y as u8).to_gtp(size);
                let colour = if c == 'X' { "black" } else { "white" };
                out.insert((colour.to_string(), p));
            }
        }
    }
    out
}

/// The position after the first `n` moves of `record`, computed in Rust under the rules.
fn position_after(record: &GameRecord, n: usize) -> BTreeSet<(String, String)> {
    let size = record.info.size;
    let mut game = Game::with_setup(size, &record.setup, record.first_to_move()).unwrap();
    for m in record.moves.iter().take(n) {
        game.play(m.color, m.point)
            .expect("the record's moves are legal");
    }
    stones(&game.board().rows(), size)
}

/// The stones the page's board shows (not the faint sensed ones).
const PAGE_STONES: &str = "[...document.querySelectorAll('#board circle.stone:not(.sensed)')]\
    .map(c => [c.classList.contains('black') ? 'black' : 'white', c.dataset.point])";

async fn page_stones(b: &mut Browser) -> BTreeSet<(String, String)> {
    serde_json::from_value::<Vec<(String, String)>>(b.eval(PAGE_STONES).await)
        .unwrap()
        .into_iter()
        .collect()
}

/// The record as the service keeps it now (the referee's view).
async fn record_now(rig: &Rig) -> GameRecord {
    let sgf = reqwest::Client::new()
        .get(rig.url("/api/v1/game.sgf"))
        .bearer_auth(crate::support::TEST_TOKEN)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    GameRecord::from_sgf_bytes(&sgf).unwrap()
}

/// Waits until the page shows the position after move `n` (`None`: live) and checks its
/// stones against the position computed in Rust from the service's record.
async fn shows_move(b: &mut Browser, rig: &Rig, n: Option<usize>) {
    let want_view = n.map_or("live".to_string(), |n| n.to_string());
    b.wait_for(
        &format!(
            "document.body.dataset.view === '{want_view}' && \
             document.getElementById('board').dataset.view === '{want_view}'"
        ),
        &format!("the page to show {want_view}"),
    )
    .await;
    match n {
        Some(n) => {
            let record = record_now(rig).await;
            let got = page_stones(b).await;
            assert_eq!(
                got,
                position_after(&record, n),
                "the position after move {n}"
            );
            let text = b
                .eval("document.getElementById('history').textContent")
                .await;
            assert!(
                text.as_str()
                    .unwrap()
                    .starts_with(&format!("viewing move {n} of ")),
                "{text}"
            );
            let current = b
                .eval("[...document.querySelectorAll('#moves li.current')].map(l => l.dataset.n)")
                .await;
            if n > 0 {
                assert_eq!(
                    current,
                    serde_json::json!([n.to_string()]),
                    "the move shown is marked"
                );
            }
        }
        None => {
            // live: the page's board, move number and moves list read in one evaluation once
            // they agree (the board may still be the previous state's when the wait ends), then
            // compared with the record's position after that move
            let live = b
                .wait_for(
                    &format!(
                        "document.body.dataset.move === String(document.querySelectorAll('#moves li').length) \
                         && {{ move: document.body.dataset.move, stones: {PAGE_STONES} }}"
                    ),
                    "the page's state and moves to agree",
                )
                .await;
            let n: usize = live["move"].as_str().unwrap().parse().unwrap();
            let got: BTreeSet<(String, String)> =
                serde_json::from_value::<Vec<(String, String)>>(live["stones"].clone())
                    .unwrap()
                    .into_iter()
                    .collect();
            let record = record_now(rig).await;
            assert!(n <= record.moves.len(), "the page is ahead of the record");
            assert_eq!(got, position_after(&record, n), "the live board");
        }
    }
}

/// The checks of every moment: coordinates on all four sides (A–T without I, 19 at the top),
/// the moves list a bounded vertical scroller with its newest move in view.
async fn check_moment(b: &mut Browser, size: u8) {
    let coords = b
        .eval(
            "Object.fromEntries(['top', 'bottom', 'left', 'right'].map(s => [s, \
             [...document.querySelectorAll('#board text.coord[data-side=' + s + ']')].map(t => t.textContent)]))",
        )
        .await;
    let letters: Vec<String> = "ABCDEFGHJKLMNOPQRST"
        .chars()
        .take(size.into())
        .map(String::from)
        .collect();
    let numbers: Vec<String> = (1..=size).rev().map(|n| n.to_string()).collect();
    assert_eq!(coords["top"], serde_json::json!(letters), "{coords}");
    assert_eq!(coords["bottom"], serde_json::json!(letters));
    assert_eq!(coords["left"], serde_json::json!(numbers), "19 at the top");
    assert_eq!(coords["right"], serde_json::json!(numbers));
    assert!(!letters.contains(&"I".to_string()));
    // Top labels above the first row, left labels left of the first column.
    let placed = b
        .eval(
            "(() => { const q = s => document.querySelector('#board text.coord[data-side=' + s + ']'); \
             const line = document.querySelector('#board line.line'); \
             return +q('top').getAttribute('y') < +line.getAttribute('y1') && \
             +q('left').getAttribute('x') < +line.getAttribute('x1'); })()",
        )
        .await;
    assert_eq!(placed, serde_json::json!(true));
    // The newest move in view: the list scrolled to its bottom, its last item inside the box.
    b.wait_for(
        "(() => { const l = document.getElementById('moves'), last = l.lastElementChild; \
         if (!last || document.body.dataset.view !== 'live') return false; \
         const box = l.getBoundingClientRect(), r = last.getBoundingClientRect(); \
         return getComputedStyle(l).overflowY === 'auto' && l.clientHeight < 400 && \
         r.top >= box.top - 1 && r.bottom <= box.bottom + 1 && \
         Number(last.dataset.n) === l.children.length; })()",
        "the newest move in view in the moves list",
    )
    .await;
}

/// The text of the element `id` in an HTML text (no nested elements).
fn text_of(html: &str, id: &str) -> String {
    let open = format!("id=\"{id}\">");
    let start = html
        .find(&open)
        .map(|i| i + open.len())
        .unwrap_or(html.len());
    let end = html[start..].find('<').map_or(html.len(), |i| start + i);
    html[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[test]
fn the_live_page_follows_a_real_game_coordinates_history_first_paint_in_chromium() {
    let Some(chromium) = required_chromium() else {
        return;
    };
    rt().block_on(async {
        let source = GameRecord::from_sgf_bytes(smartgoban::cli::source::BUILTIN_GAME).unwrap();
        let size = source.info.size;
        // The first capture of the game (the refereed line is the record's: a clean game).
        let mut game = Game::with_setup(size, &source.setup, source.first_to_move()).unwrap();
        let first_capture = source
            .moves
            .iter()
            .position(|m| !game.play(m.color, m.point).unwrap().captured.is_empty())
            .expect("the built-in game has a capture")
            + 1;
        assert!(first_capture > 6, "{first_capture}");
        // About 0.15 s a move: the page is followed while the game is played.
        let rig = Rig::start(
            smartgoban::sim::Source::Record(source.clone()),
            NoiseModel::Clean,
            1,
            Speed::Factor(10.0),
        )
        .await;
        let dir = artifacts();
        let mut b = Browser::start(&chromium).await;
        b.open(&rig.url("/")).await;

        // The opening.
        b.wait_for(
            "document.querySelectorAll('#moves li').length >= 6",
            "six moves on the page",
        )
        .await;
        check_moment(&mut b, size).await;
        b.screenshot(&dir, "page-opening").await;
        // History by click while the game goes on: the viewer is not pulled back to live.
        b.click("#moves li[data-n=\"5\"]").await;
        shows_move(&mut b, &rig, Some(5)).await;
        let seen = b.eval("document.querySelectorAll('#moves li').length").await;
        let seen = seen.as_u64().unwrap();
        if (seen as usize) + 3 < source.moves.len() {
            b.wait_for(
                &format!("document.querySelectorAll('#moves li').length >= {}", seen + 2),
                "new moves to arrive while browsing",
            )
            .await;
        }
        shows_move(&mut b, &rig, Some(5)).await;
        // The keys.
        b.key("ArrowRight").await;
        shows_move(&mut b, &rig, Some(6)).await;
        b.key("ArrowLeft").await;
        b.key("ArrowLeft").await;
        shows_move(&mut b, &rig, Some(4)).await;
        b.key("Home").await;
        shows_move(&mut b, &rig, Some(0)).await;
        b.key("End").await;
        shows_move(&mut b, &rig, None).await;
        // The pointer leaves the moves list (over it, new moves do not scroll it).
        b.pointer_to(1.0, 1.0).await;

        // Mid-game: the first capture, and the move before it (the captured stones back).
        b.wait_for(
            &format!(
                "document.querySelectorAll('#moves li').length >= {}",
                first_capture + 2
            ),
            "the first capture on the page",
        )
        .await;
        check_moment(&mut b, size).await;
        b.click(&format!("#moves li[data-n=\"{first_capture}\"]"))
            .await;
        shows_move(&mut b, &rig, Some(first_capture)).await;
        b.screenshot(&dir, "page-mid-game-history").await;
        b.key("ArrowLeft").await;
        shows_move(&mut b, &rig, Some(first_capture - 1)).await;
        b.click("#live").await;
        shows_move(&mut b, &rig, None).await;

        // The end.
        rig.wait_done().await;
        let state: Value = rig.get_json("/api/v1/state", true).await;
        let last = state["move_number"].as_u64().unwrap() as usize;
        assert!(last > first_capture + 10, "{last}");
        b.wait_for(
            &format!("document.body.dataset.move === '{last}' && document.querySelectorAll('#moves li').length === {last}"),
            "the page to show the last move",
        )
        .await;
        check_moment(&mut b, size).await;
        shows_move(&mut b, &rig, None).await;
        assert_eq!(
            page_stones(&mut b).await,
            stones(
                &serde_json::from_value::<Vec<String>>(state["board"].clone()).unwrap(),
                size
            )
        );
        b.screenshot(&dir, "page-end").await;
        let middle = last / 2;
        b.click(&format!("#moves li[data-n=\"{middle}\"]")).await;
        shows_move(&mut b, &rig, Some(middle)).await;
        b.key("ArrowRight").await;
        shows_move(&mut b, &rig, Some(middle + 1)).await;
        b.key("End").await;
        shows_move(&mut b, &rig, None).await;
        let players = b.eval("document.getElementById('players').textContent").await;
        let status = b.eval("document.getElementById('status').textContent").await;

        // The first paint: the HTML served, before any script, has the names, the status and
        // the moves — the same texts the script writes.
        let html = reqwest::get(rig.url("/")).await.unwrap().text().await.unwrap();
        assert_eq!(text_of(&html, "players"), players.as_str().unwrap());
        assert_eq!(text_of(&html, "status"), status.as_str().unwrap());
        let black = state["game"]["black"].as_str().unwrap_or("Black");
        assert!(players.as_str().unwrap().contains(black), "{players}");
        assert!(status.as_str().unwrap().starts_with(&format!("move {last}, ")));
        assert_eq!(html.matches("<li data-n=").count(), last);
        // Chromium with JavaScript off shows them too (a first frame).
        b.call(
            "Emulation.setScriptExecutionDisabled",
            serde_json::json!({ "value": true }),
        )
        .await;
        let from = b.events.len();
        b.call("Page.navigate", serde_json::json!({ "url": rig.url("/") }))
            .await;
        // The whole document parsed: a document still arriving serialises with its closing
        // tags too, and only part of the moves.
        b.wait_event("Page.loadEventFired", from).await;
        let started = std::time::Instant::now();
        let dom = loop {
            let doc = b.call("DOM.getDocument", serde_json::json!({})).await;
            let id = doc["root"]["nodeId"].clone();
            // The document may be replaced between the two calls (the navigation commits):
            // its node is then gone, and the next round reads the new one.
            let dom = b
                .try_call("DOM.getOuterHTML", serde_json::json!({ "nodeId": id }))
                .await
                .map(|r| r["outerHTML"].as_str().unwrap_or_default().to_string())
                .unwrap_or_default();
            if dom.contains("id=\"moves\"") && dom.contains("</html>") {
                break dom;
            }
            assert!(started.elapsed() < cdp::DEADLINE, "no page without scripts");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        };
        assert!(!dom.contains("class=\"stone"), "no script ran");
        assert_eq!(text_of(&dom, "players"), players.as_str().unwrap());
        assert_eq!(text_of(&dom, "status"), status.as_str().unwrap());
        assert_eq!(dom.matches("<li data-n=").count(), last);
        b.screenshot(&dir, "page-first-paint-without-script").await;
        b.call(
            "Emulation.setScriptExecutionDisabled",
            serde_json::json!({ "value": false }),
        )
        .await;

        // The overlay: coordinates only when asked for.
        b.open(&rig.url("/?overlay=1")).await;
        b.wait_for("document.querySelector('#board circle.stone')", "the overlay's board")
            .await;
        assert_eq!(
            b.eval("document.querySelectorAll('#board text.coord').length").await,
            serde_json::json!(0)
        );
        b.open(&rig.url("/?overlay=1&coords=1")).await;
        b.wait_for("document.querySelector('#board circle.stone')", "the overlay's board")
            .await;
        check_coordinates_only(&mut b, size).await;
        b.screenshot(&dir, "page-overlay-coords").await;

        // The icon: where browsers look for it, and where the page points.
        for path in ["/favicon.ico", "/favicon.svg"] {
            let r = reqwest::get(rig.url(path)).await.unwrap();
            assert_eq!(r.status(), 200, "{path}");
            assert_eq!(r.headers()["content-type"], "image/svg+xml");
        }
        assert_eq!(
            b.eval("document.querySelector('link[rel=icon]').getAttribute('href')")
                .await,
            serde_json::json!("/favicon.svg")
        );
        // Nothing the page asked for was refused.
        let refused: Vec<_> = b
            .events
            .iter()
            .filter(|e| e["method"] == "Network.responseReceived")
            .filter(|e| e["params"]["response"]["status"].as_u64().unwrap_or(0) >= 400)
            .map(|e| e["params"]["response"]["url"].clone())
            .collect();
        assert!(refused.is_empty(), "{refused:?}");
        drop(b);
        rig.stop().await;
    });
}

/// The overlay's coordinates: the same labels as the page's.
async fn check_coordinates_only(b: &mut Browser, size: u8) {
    let top = b
        .eval("[...document.querySelectorAll('#board text.coord[data-side=top]')].map(t => t.textContent).join('')")
        .await;
    let want: String = "ABCDEFGHJKLMNOPQRST".chars().take(size.into()).collect();
    assert_eq!(top, serde_json::json!(want));
    let left = b
        .eval("document.querySelector('#board text.coord[data-side=left]').textContent")
        .await;
    assert_eq!(left, serde_json::json!(size.to_string()));
}

#[test]
fn the_live_page_asks_for_the_token_once_when_reads_are_private() {
    let Some(chromium) = required_chromium() else {
        return;
    };
    rt().block_on(async {
        // A 9×9 game of about 20 s at real time: the page follows it with the token.
        let mut script = String::from("size 9\n");
        let points = ["C3", "G7", "C7", "G3", "E5", "D4", "F6", "D6", "F4", "E3", "E7", "B5"];
        for (i, p) in points.iter().enumerate() {
            let who = if i % 2 == 0 { 'B' } else { 'W' };
            script.push_str(&format!("at {} place {who} {p}\n", 1000 + i * 1500));
        }
        let script = smartgoban::sim::Script::parse(&script).unwrap();
        let rig = Rig::start_with(
            smartgoban::sim::Source::Script(script),
            NoiseModel::Clean,
            1,
            Speed::Factor(1.0),
            RigOptions {
                public_reads: false,
                ..Default::default()
            },
        )
        .await;
        // Without the token: nothing of the game in the page, reads refused.
        let html = reqwest::get(rig.url("/")).await.unwrap().text().await.unwrap();
        assert!(!html.contains("<li data-n="), "the page leaks no moves");
        assert_eq!(text_of(&html, "players"), "", "no names without the token");
        let r = reqwest::get(rig.url("/api/v1/state")).await.unwrap();
        assert_eq!(r.status(), 401);
        let r = reqwest::get(rig.url("/favicon.ico")).await.unwrap();
        assert_eq!(r.status(), 200, "the icon needs no token");

        let mut b = Browser::start(&chromium).await;
        b.open(&rig.url("/")).await;
        b.wait_for(
            "document.body.dataset.auth === 'needed' && !document.getElementById('login').hidden",
            "the page to ask for the token",
        )
        .await;
        assert_eq!(page_stones(&mut b).await.len(), 0);
        let dir = artifacts();
        b.screenshot(&dir, "page-token-asked").await;
        // A wrong token: said so.
        b.click("#login-token").await;
        b.call("Input.insertText", serde_json::json!({ "text": "not-the-token" }))
            .await;
        b.click("#login-use").await;
        let note = b
            .wait_for(
                "document.body.dataset.auth === 'refused' && document.getElementById('login-note').textContent",
                "the page to say the token was refused",
            )
            .await;
        assert!(note.as_str().unwrap().contains("refused"), "{note}");
        // The right one: the page reads and follows the feed with it.
        b.click("#login-token").await;
        b.call(
            "Input.insertText",
            serde_json::json!({ "text": crate::support::TEST_TOKEN }),
        )
        .await;
        b.click("#login-use").await;
        let at = b
            .wait_for(
                "document.body.dataset.auth === 'ok' && document.body.dataset.feed === 'live' \
                 && document.body.dataset.move",
                "the page to read with the token",
            )
            .await;
        let at: usize = at.as_str().unwrap().parse().unwrap();
        rig.wait_done().await;
        let state: Value = rig.get_json("/api/v1/state", true).await;
        let last = state["move_number"].as_u64().unwrap() as usize;
        assert_eq!(last, points.len());
        if at >= last {
            eprintln!("note: the game was over before the token was entered (a slow machine)");
        }
        b.wait_for(
            &format!("document.body.dataset.move === '{last}' && document.querySelectorAll('#moves li').length === {last}"),
            "the feed to bring the page to the last move",
        )
        .await;
        let want = stones(
            &serde_json::from_value::<Vec<String>>(state["board"].clone()).unwrap(),
            9,
        );
        assert_eq!(page_stones(&mut b).await, want);
        check_moment(&mut b, 9).await;
        b.screenshot(&dir, "page-token-accepted").await;
        // Typed once: a reload reads with the kept token.
        b.open(&rig.url("/")).await;
        b.wait_for(
            &format!("document.body.dataset.auth === 'ok' && document.body.dataset.move === '{last}'"),
            "the reloaded page to read with the kept token",
        )
        .await;
        assert!(b.eval("document.getElementById('login').hidden").await == serde_json::json!(true));
        b.click("#moves li[data-n=\"3\"]").await;
        b.wait_for("document.body.dataset.view === '3'", "move 3").await;
        let record = record_now(&rig).await;
        assert_eq!(page_stones(&mut b).await, position_after(&record, 3));
        drop(b);
        rig.stop().await;
    });
}
