//! The HTTP API (DESIGN.md "HTTP API"), served with axum.
//!
//! * `GET /api/v1/state` — the live state ([`crate::session::StateView`]).
//! * `GET /api/v1/game.sgf` — the record so far, valid SGF at every moment.
//! * `GET /api/v1/events` — Server-Sent Events: one DESIGN.md event per message, `id:` = `seq`.
//!   Resumable: a client that reconnects with `Last-Event-ID` (or `?since=N`) first gets every
//!   event after that id, in order, then the live feed; a snapshot first when that id is too old.
//! * `GET /api/v1/ws` — the same feed over a WebSocket (`?since=N`).
//! * `GET /api/v1/moves[?since=N]` — the record's moves with captures, clock and comments.
//! * `GET /api/v1/games`, `GET /api/v1/games/{id}.sgf` — finished games kept on the device.
//! * `GET /api/v1/broadcast` — the public broadcast delay: reads and feeds without the token
//!   see the game `delay_s` seconds and `delay_moves` moves back; with the token, live.
//! * `GET /metrics` — Prometheus text ([`metrics`]).
//! * `GET /api/v1/openapi.json` — the OpenAPI 3 document of all of this, generated from the
//!   types and handlers (utoipa).
//! * `POST …` — the referee's actions with the bearer token ([`actions`]).
//! * `GET /api/v1/leds` — the LED frame being shown: each lit point's role, every point's
//!   colour, the palette with its effects, the driver and whether the LEDs show it
//!   ([`crate::daemon::LedsSnapshot`]); 404 when the service drives no LEDs.
//! * `GET /` — the live page (`page.rs`); `GET /favicon.ico` (and `.svg`) its icon.
//!
//! Handlers only read the shared snapshot and event log; no lock is held across an `.await`.

pub mod actions;
mod events;
pub mod metrics;
mod openapi;
mod page;
pub mod server;
pub use server::Limits;
pub mod token;

use std::future::Future;
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use tokio::net::TcpListener;

use crate::daemon::Shared;

/// The API's routes over the shared state: reads (open on the local network unless
/// `[api] public_reads = false`) and the referee's actions (bearer token).
pub fn router(shared: Arc<Shared>, limits: Limits) -> Router {
    let reads = Router::new()
        .route("/api/v1/state", get(state))
        .route("/api/v1/moves", get(moves))
        .route("/api/v1/game.sgf", get(game_sgf))
        .route("/api/v1/events", get(events::sse))
        .route("/api/v1/ws", get(events::ws))
        .route("/api/v1/leds", get(leds))
        .route("/metrics", get(metrics::metrics))
        .route("/api/v1/openapi.json", get(openapi::document))
        .route("/api/v1/games", get(games))
        .route("/api/v1/games/{file}", get(game_file))
        .route("/api/v1/broadcast", get(broadcast))
        .route_layer(middleware::from_fn_with_state(shared.clone(), may_read));
    let writes = Router::new()
        .route("/api/v1/games", post(actions::new_game))
        .route("/api/v1/violations/{id}/resolve", post(actions::resolve))
        .route("/api/v1/ambiguous/choose", post(actions::choose))
        .route("/api/v1/moves/{number}/correct", post(actions::correct))
        .route("/api/v1/warnings", post(actions::warn))
        .route("/api/v1/clock/pause", post(actions::pause))
        .route("/api/v1/clock/resume", post(actions::resume))
        .route("/api/v1/clock/adjust", post(actions::adjust))
        .route("/api/v1/result", post(actions::result))
        .route("/api/v1/count", post(actions::count))
        .route("/api/v1/count/dispute", post(actions::dispute))
        .route("/api/v1/broadcast", post(actions::set_broadcast))
        .route_layer(middleware::from_fn_with_state(
            shared.clone(),
            must_be_referee,
        ))
        .layer(DefaultBodyLimit::max(actions::BODY_LIMIT));
    Router::new()
        .route("/", get(page::index))
        .route("/favicon.ico", get(page::favicon))
        .route("/favicon.svg", get(page::favicon))
        .merge(reads)
        .merge(writes)
        .fallback(not_found)
        .method_not_allowed_fallback(not_allowed)
        .layer(axum::Extension(limits))
        .with_state(shared)
}

/// Whether the request carries the referee's token (`Authorization: Bearer TOKEN`).
pub(crate) fn is_referee(shared: &Shared, headers: &HeaderMap) -> bool {
    let Some(token) = &shared.access.token else {
        return false;
    };
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, token) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then_some(token)
        })
        .is_some_and(|given| token::matches(token, given.trim()))
}

/// Writes need the token: 401 otherwise, before the body is read.
async fn must_be_referee(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    if is_referee(&shared, req.headers()) {
        return next.run(req).await;
    }
    let why = if shared.access.token.is_none() {
        "this service has no referee token: actions are disabled"
    } else {
        "send the referee's token: Authorization: Bearer TOKEN (smartgoban token shows it)"
    };
    let mut resp = error(StatusCode::UNAUTHORIZED, why);
    resp.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Bearer"),
    );
    resp
}

/// Reads are open unless `[api] public_reads = false`.
async fn may_read(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    if shared.access.public_reads {
        return next.run(req).await;
    }
    must_be_referee(State(shared), req, next).await
}

/// `GET moves?since=N`: the moves after move `N` (all without `since`).
#[utoipa::path(get, path = "/api/v1/moves", params(("since" = Option<u64>, Query, minimum = 0, description = "only the moves after this move number (all without it)")), responses((status = 200, description = "the moves, in order", body = Vec<crate::session::MoveView>), (status = 400, description = "`since` is not a whole number from 0 to 2^63 − 1", body = ErrorBody)))]
async fn moves(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    query: events::Pairs,
) -> Response {
    let since = match events::since_param(query) {
        Ok(s) => s.unwrap_or(0),
        Err(resp) => return *resp,
    };
    let snap = shared.view(is_referee(&shared, &headers));
    let from = usize::try_from(since)
        .unwrap_or(usize::MAX)
        .min(snap.moves.len());
    Json(&snap.moves[from..]).into_response()
}

/// Serves the API on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    server::serve(listener, router(shared, limits), limits, shutdown).await
}

/// The HTTP address could not be bound.
#[derive(Debug, thiserror::Error)]
#[error("cannot listen on {addr} (another service may be using it, or it is not an address of this machine: choose another, --http ADDR or `http` in the config file)")]
pub struct BindError {
    /// The address.
    pub addr: std::net::SocketAddr,
    /// Why.
    #[source]
    pub source: std::io::Error,
}

/// How long [`Server::stop`] lets connections finish before it cuts them (live feeds never
/// finish by themselves).
pub const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// The API served on a bound address, from the daemon's shared view.
#[derive(Debug)]
pub struct Server {
    addr: std::net::SocketAddr,
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    /// Binds `addr` (port 0: any free port), before anything else starts, so that a busy
    /// address is an error at once.
    ///
    /// # Errors
    /// [`BindError`]: the address is in use or not one of this machine.
    pub async fn bind(addr: std::net::SocketAddr) -> Result<TcpListener, BindError> {
        TcpListener::bind(addr)
            .await
            .map_err(|source| BindError { addr, source })
    }

    /// Serves the API on `listener` from `shared`, taking at most `limits`' clients, until
    /// [`Server::stop`].
    pub fn spawn(listener: TcpListener, shared: Arc<Shared>, limits: Limits) -> Server {
        let addr = listener
            .local_addr()
            .unwrap_or_else(|_| std::net::SocketAddr::from(([0, 0, 0, 0], 0)));
        let (stop, mut stop_rx) = tokio::sync::watch::channel(false);
        let task = tokio::spawn(async move {
            let stopped = async move {
                let _ = stop_rx.wait_for(|stop| *stop).await;
            };
            if let Err(e) = serve(listener, shared, limits, stopped).await {
                tracing::error!("the HTTP server stopped: {e}");
            }
        });
        Server { addr, stop, task }
    }

    /// The address served (the real port when port 0 was asked for).
    pub fn addr(&self) -> std::net::SocketAddr {
        self.addr
    }

    /// Asks every connection to finish, and cuts those still open after [`STOP_GRACE`].
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let abort = self.task.abort_handle();
        if tokio::time::timeout(STOP_GRACE, self.task).await.is_err() {
            abort.abort();
        }
    }
}

/// `GET state`: the live state, serialised once per snapshot ([`Snapshot::state_body`]).
///
/// [`Snapshot::state_body`]: crate::daemon::Snapshot::state_body
#[utoipa::path(get, path = "/api/v1/state", responses((status = 200, description = "the live state (delayed for the public when a broadcast delay is set)", body = crate::session::StateView)))]
async fn state(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let snap = shared.view(is_referee(&shared, &headers));
    (
        [(header::CONTENT_TYPE, "application/json")],
        snap.state_body(),
    )
        .into_response()
}

/// Every error's body.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// What went wrong and what to do.
    pub error: String,
}

/// The body of a successful action.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct OkBody {
    /// Always true.
    pub ok: bool,
}

/// A JSON error body: `{"error": message}` with `status`.
pub(crate) fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({ "error": message.into() }))).into_response()
}

#[utoipa::path(get, path = "/api/v1/game.sgf", responses((status = 200, description = "the record so far, SGF FF[4] CA[UTF-8]", content_type = "application/x-go-sgf", body = String)))]
async fn game_sgf(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let snap = shared.view(is_referee(&shared, &headers));
    (
        [
            (header::CONTENT_TYPE, "application/x-go-sgf; charset=utf-8"),
            (header::CONTENT_DISPOSITION, "inline; filename=\"game.sgf\""),
        ],
        snap.sgf.clone(),
    )
        .into_response()
}

#[utoipa::path(get, path = "/api/v1/leds", responses((status = 200, description = "the LED frame being shown", body = crate::daemon::LedsSnapshot), (status = 404, description = "the service drives no LEDs (`[leds] driver = \"none\"`), or no frame yet", body = ErrorBody)))]
async fn leds(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    match &shared.view(is_referee(&shared, &headers)).leds {
        Some(leds) => Json(leds).into_response(),
        None => error(
            StatusCode::NOT_FOUND,
            "no LEDs: `[leds] driver` is \"none\", or no frame yet",
        ),
    }
}

/// `GET broadcast`: the public delay in force (`delay_moves`, `delay_s`).
#[utoipa::path(get, path = "/api/v1/broadcast", responses((status = 200, description = "the public delay in force", body = crate::daemon::delay::DelaySettings)))]
async fn broadcast(State(shared): State<Arc<Shared>>) -> Response {
    Json(shared.delay.settings()).into_response()
}

/// `GET games`: the finished games kept on the device, newest first.
#[utoipa::path(get, path = "/api/v1/games", responses((status = 200, description = "finished games, newest first", body = Vec<crate::daemon::games::GameEntry>)))]
async fn games(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let hidden = hidden_game(&shared, &headers);
    let list: Vec<_> = shared
        .games
        .list()
        .into_iter()
        .filter(|g| Some(&g.id) != hidden.as_ref())
        .collect();
    Json(list).into_response()
}

/// The finished game the public may not see yet: the one on the board while a broadcast delay
/// holds the public view before its end.
fn hidden_game(shared: &Shared, headers: &HeaderMap) -> Option<String> {
    let public = shared.view(is_referee(shared, headers));
    (public.state.phase != crate::event::Phase::Finished)
        .then(|| shared.games.current())
        .flatten()
}

/// `GET games/{id}.sgf`: one finished game's record.
#[utoipa::path(get, path = "/api/v1/games/{id}.sgf", params(("id" = String, Path, description = "a game id from GET games")), responses((status = 200, description = "the finished game's record, SGF FF[4] CA[UTF-8]", content_type = "application/x-go-sgf", body = String), (status = 404, description = "no finished game with this id (or the public may not see it yet)", body = ErrorBody)))]
async fn game_file(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    axum::extract::Path(file): axum::extract::Path<String>,
) -> Response {
    let hidden = hidden_game(&shared, &headers);
    let sgf = file
        .strip_suffix(".sgf")
        .filter(|id| Some(id.to_string()) != hidden)
        .and_then(|id| shared.games.sgf(id));
    match sgf {
        Some(sgf) => (
            [
                (
                    header::CONTENT_TYPE,
                    "application/x-go-sgf; charset=utf-8".to_string(),
                ),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{file}\""),
                ),
            ],
            sgf,
        )
            .into_response(),
        None => error(
            StatusCode::NOT_FOUND,
            format!("no finished game {file:?}; GET /api/v1/games lists them"),
        ),
    }
}

async fn not_allowed() -> Response {
    error(
        StatusCode::METHOD_NOT_ALLOWED,
        "this method is not allowed here; see /api/v1/openapi.json",
    )
}

async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "not found; see / for the API")
}
