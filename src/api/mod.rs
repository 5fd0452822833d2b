//! The HTTP API (DESIGN.md "HTTP API"), served with axum.
//!
//! * `GET /api/v1/state` — the live state ([`crate::session::StateView`]).
//! * `GET /api/v1/game.sgf` — the record so far, valid SGF at every moment.
//! * `GET /api/v1/events` — Server-Sent Events: one DESIGN.md event per message, `id:` = `seq`.
//!   Resumable: a client that reconnects with `Last-Event-ID` (or `?since=N`) first gets every
//!   event after that id, in order, then the live feed.
//! * `GET /api/v1/leds` — the LED frame being shown: each lit point's role, every point's
//!   colour, the palette with its effects, the driver and whether the LEDs show it
//!   ([`crate::daemon::LedsSnapshot`]); 404 when the service drives no LEDs.
//! * `GET /` — the live page.
//!
//! Handlers only read the shared snapshot and event log; no lock is held across an `.await`.

mod events;
pub mod server;

use std::future::Future;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use tokio::net::TcpListener;

use crate::daemon::Shared;

/// The API's routes over the shared state.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/api/v1/state", get(state))
        .route("/api/v1/game.sgf", get(game_sgf))
        .route("/api/v1/events", get(events::sse))
        .route("/api/v1/leds", get(leds))
        .fallback(not_found)
        .with_state(shared)
}

/// Serves the API on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    server::serve(listener, router(shared), shutdown).await
}

/// The state, with what only the shell knows added: why the link is not up
/// (`link.error`) and a failure to write the record (`storage_error`).
async fn state(State(shared): State<Arc<Shared>>) -> Response {
    let snap = shared.snapshot();
    let mut value = serde_json::to_value(&snap.state).unwrap_or_default();
    if let Some(link) = value.get_mut("link").and_then(|l| l.as_object_mut()) {
        link.insert("error".into(), snap.link_error.clone().into());
    }
    if let Some(obj) = value.as_object_mut() {
        obj.insert("storage_error".into(), snap.storage_error.clone().into());
    }
    Json(value).into_response()
}

/// A JSON error body: `{"error": message}` with `status`.
pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": message.into() }))).into_response()
}

async fn game_sgf(State(shared): State<Arc<Shared>>) -> Response {
    let snap = shared.snapshot();
    (
        [
            (header::CONTENT_TYPE, "application/x-go-sgf; charset=utf-8"),
            (header::CONTENT_DISPOSITION, "inline; filename=\"game.sgf\""),
        ],
        snap.sgf.clone(),
    )
        .into_response()
}

async fn leds(State(shared): State<Arc<Shared>>) -> Response {
    match &shared.snapshot().leds {
        Some(leds) => Json(leds).into_response(),
        None => error(
            StatusCode::NOT_FOUND,
            "no LEDs: `[leds] driver` is \"none\", or no frame yet",
        ),
    }
}

async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "not found; see / for the API")
}

async fn index() -> Html<&'static str> {
    Html(INDEX)
}

/// The live page: the board, both clocks (counting down from the state) and the last call.
const INDEX: &str = include_str!("index.html");
