//! The live page (`GET /`) and its icon (`GET /favicon.ico`, `GET /favicon.svg`).
//!
//! The page is one dependency-free HTML file (`index.html`). The server fills it from the
//! snapshot of the request: the players, the status line and the moves list as HTML text, and
//! the state, the LED frame and the moves as JSON for the script, so the first paint (a
//! screenshot, an OBS browser source's first frame, a browser without JavaScript) already
//! shows the game. With `[api] public_reads = false` a request without the token gets the empty
//! page, which asks for the token and then reads with it (see the README, "The live page").

use std::fmt::Write;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};

use crate::daemon::{Shared, Snapshot};
use crate::event::LinkState;
use crate::rules::Color;
use crate::session::MoveView;

/// The page's template.
const INDEX: &str = include_str!("index.html");

/// The icon: a black stone on the board's wood, as SVG.
const FAVICON: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 32 32\">\
<rect width=\"32\" height=\"32\" rx=\"5\" fill=\"#dcb35c\"/>\
<path d=\"M16 0v32M0 16h32\" stroke=\"#333\" stroke-width=\"1.5\"/>\
<circle cx=\"16\" cy=\"16\" r=\"11\" fill=\"#111\"/>\
<circle cx=\"12.5\" cy=\"12.5\" r=\"3\" fill=\"#555\"/></svg>";

/// `GET /`: the live page, filled from the snapshot the request may see (the referee's with
/// the token, else the public one); the empty page when reads need the token and the request
/// has none.
pub(super) async fn index(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let referee = super::is_referee(&shared, &headers);
    let body = if !shared.access.public_reads && !referee {
        fill(None)
    } else {
        fill(Some(&shared.view(referee)))
    };
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            // a live page: never shown from a cache
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// `GET /favicon.ico` and `GET /favicon.svg`: the icon (SVG; browsers take it under either
/// name), so that a browser's request for it is not a 404.
pub(super) async fn favicon() -> Response {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "public, max-age=86400"),
        ],
        FAVICON,
    )
        .into_response()
}

/// The page with `snap`'s game in it (`None`: the empty page).
fn fill(snap: Option<&Snapshot>) -> String {
    let Some(snap) = snap else {
        return INDEX.replacen("/*INITIAL*/null", "null", 1);
    };
    let mut moves = String::with_capacity(snap.moves.len() * 40);
    for m in &snap.moves {
        move_item(&mut moves, m);
    }
    // Inside <script>: no "<" (a closing tag, a comment opener), ">" or "&" may reach the HTML
    // parser; as JSON escapes they mean the same to the script.
    let leds = serde_json::to_string(&snap.leds).unwrap_or_else(|_| "null".into());
    let list = serde_json::to_string(&snap.moves).unwrap_or_else(|_| "[]".into());
    let state = String::from_utf8_lossy(&snap.state_body()).into_owned();
    let json = format!(
        "{{\"seq\":{},\"state\":{state},\"leds\":{leds},\"moves\":{list}}}",
        snap.last_seq
    )
    .replace('<', "\\u003c")
    .replace('>', "\\u003e")
    .replace('&', "\\u0026");
    let mut out = String::with_capacity(INDEX.len() + moves.len() + json.len() + 256);
    let mut rest = INDEX;
    for (marker, value) in [
        ("<!--PLAYERS-->", escape(&players(snap))),
        ("<!--STATUS-->", escape(&status(snap))),
        ("<!--MOVES-->", moves),
        ("/*INITIAL*/null", json),
    ] {
        if let Some((before, after)) = rest.split_once(marker) {
            out.push_str(before);
            out.push_str(&value);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The players' line, as the page's script writes it (`players()` in `index.html`).
fn players(snap: &Snapshot) -> String {
    let g = &snap.state.game;
    let name = |n: &Option<String>, or: &'static str| {
        n.as_deref()
            .filter(|n| !n.is_empty())
            .unwrap_or(or)
            .to_string()
    };
    let mut s = format!(
        "● {}  —  ○ {}",
        name(&g.black, "Black"),
        name(&g.white, "White")
    );
    if let Some(r) = g.result.as_deref().filter(|r| !r.is_empty()) {
        let _ = write!(s, "   {r}");
    }
    s
}

fn colour(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// The status line, as the page's script writes it (`statusText()` in `index.html`).
fn status(snap: &Snapshot) -> String {
    let st = &snap.state;
    let mut s = format!(
        "move {}, {} to play, phase {}",
        st.move_number,
        colour(st.to_move),
        st.phase.as_str()
    );
    if st.link.state != LinkState::Connected {
        s.push_str(", board link lost");
        if let Some(e) = snap.state.link.error.as_deref().filter(|e| !e.is_empty()) {
            let _ = write!(s, " — {e}");
        }
    }
    if let Some(sensors) = &snap.state.sensors.summary {
        let _ = write!(s, " — {sensors}");
    }
    s
}

/// One entry of the moves list, as the page's script writes it (`moveItem()` in
/// `index.html`).
fn move_item(out: &mut String, m: &MoveView) {
    let mut text = format!(
        "{}. {} {}",
        m.number,
        if m.color == Color::Black { "B" } else { "W" },
        m.point.as_deref().unwrap_or("pass")
    );
    if !m.captures.is_empty() {
        let _ = write!(text, " ×{}", m.captures.len());
    }
    let _ = write!(out, "<li data-n=\"{}\"", m.number);
    if let Some(c) = &m.comment {
        text.push_str(" *");
        let _ = write!(out, " title=\"{}\"", escape(c));
    }
    let _ = write!(out, ">{}</li>", escape(&text));
}

/// `text` safe in HTML text and in a quoted attribute.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_the_empty_page_has_no_markers() {
        assert_eq!(
            escape("<b>\"A&B's\"</b>"),
            "&lt;b&gt;&quot;A&amp;B&#39;s&quot;&lt;/b&gt;"
        );
        let empty = fill(None);
        assert!(empty.contains("<script id=\"initial\" type=\"application/json\">null</script>"));
        assert!(!empty.contains("/*INITIAL*/"));
        // the markers of the template are in the page once each, where the text goes
        for marker in [
            "<!--PLAYERS-->",
            "<!--STATUS-->",
            "<!--MOVES-->",
            "/*INITIAL*/null",
        ] {
            assert_eq!(INDEX.matches(marker).count(), 1, "{marker}");
        }
        assert!(FAVICON.starts_with("<svg"));
    }
}
