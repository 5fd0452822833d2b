//! The hall's HTTP side: one page and one API for every board of the hall.
//!
//! | route | who | what |
//! |---|---|---|
//! | `GET /` | all | the hall page: the grid, violations, orphans, results |
//! | `GET /api/v1/hall` | all | [`HallView`]: boards, orphans, violations (referee), latency |
//! | `GET /api/v1/events` | all | one SSE feed of every board's events, `{"board", "event"}`; resumable with `Last-Event-ID` |
//! | `GET /api/v1/boards/{board}/game.sgf` | all | a board's record so far |
//! | `GET /api/v1/games` | all | finished games (without their records) |
//! | `GET /api/v1/games/{board}/{key}/game.sgf` | all | a finished game's record |
//! | `GET /api/v1/results`, `GET /api/v1/results.csv` | all | the R27 table |
//! | `GET /api/v1/pairings` | all | the imported pairings |
//! | `POST /api/v1/pairings` | token | imports pairings (CSV body) |
//! | `POST /api/v1/rounds/{round}/start` | token | starts round `round` on every board it pairs |
//! | `POST /api/v1/clock/pause`, `…/resume` | token | every board's clock |
//! | `POST /api/v1/broadcast` | token | the public delay, here and on every board |
//!
//! Readers without the hall's token (`Authorization: Bearer TOKEN` or `?token=TOKEN`) see the
//! hall as of the public delay and no violations: the broadcast. With it: live.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tokio::sync::Notify;

use super::subscriber::{HallLink, Target};
use super::{BoardView, Hall, HallViolation, Latency};
use crate::mqtt::{CommandAnswer, HallCommand};

/// What the HTTP side shares.
#[derive(Debug)]
pub struct HallState {
    /// The hall.
    pub hall: Arc<Mutex<Hall>>,
    /// Notified when the hall changed (a new event).
    pub changed: Arc<Notify>,
    /// The broker.
    pub link: HallLink,
    /// The hall's token for live reads and commands.
    pub token: String,
}

impl HallState {
    fn lock(&self) -> std::sync::MutexGuard<'_, Hall> {
        self.hall.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn is_referee(&self, headers: &HeaderMap, query: &TokenQuery) -> bool {
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim);
        let given = bearer.or(query.token.as_deref());
        given.is_some_and(|t| constant_time_eq(t.as_bytes(), self.token.as_bytes()))
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn now_ms() -> u64 {
    crate::store::unix_now_ms().max(0) as u64
}

fn error(status: StatusCode, why: impl Into<String>) -> Response {
    (status, Json(serde_json::json!({"error": why.into()}))).into_response()
}

/// `?token=` (for the page's feed: an EventSource cannot send headers).
#[derive(Debug, Default, Deserialize)]
pub struct TokenQuery {
    token: Option<String>,
}

/// `GET /api/v1/hall`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct HallView {
    /// The hall id.
    pub hall: String,
    /// Whether this view is live (the hall's token) or as of the public delay.
    pub live: bool,
    /// The public delay, s.
    pub delay_s: u64,
    /// The hall is connected to its broker.
    pub broker_connected: bool,
    /// Every board, in table order.
    pub boards: Vec<BoardView>,
    /// Boards offline or silent for too long.
    pub orphans: Vec<String>,
    /// Open violations and held boards (live views only).
    pub violations: Vec<HallViolation>,
    /// Events taken, and duplicates dropped (sent again after an outage).
    pub events: u64,
    /// Duplicates dropped.
    pub duplicates: u64,
    /// Delivery latency from the boards' feeds to the hall.
    pub latency: Latency,
}

/// The router of the hall's API and page.
pub fn router(state: Arc<HallState>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/api/v1/hall", get(hall_view))
        .route("/api/v1/events", get(events))
        .route("/api/v1/boards/{board}/game.sgf", get(board_sgf))
        .route("/api/v1/games", get(games))
        .route("/api/v1/games/{board}/{key}/game.sgf", get(game_sgf))
        .route("/api/v1/results", get(results))
        .route("/api/v1/results.csv", get(results_csv))
        .route("/api/v1/pairings", get(pairings).post(import_pairings))
        .route("/api/v1/rounds/{round}/start", post(start_round))
        .route("/api/v1/clock/pause", post(pause))
        .route("/api/v1/clock/resume", post(resume))
        .route("/api/v1/broadcast", post(broadcast))
        .with_state(state)
}

/// Serves `router` on `addr` until the process ends; returns the bound address.
///
/// # Errors
/// The address cannot be bound.
pub async fn serve(state: Arc<HallState>, addr: SocketAddr) -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, router(state)).await;
    });
    Ok(bound)
}

async fn page() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        include_str!("page.html"),
    )
        .into_response()
}

async fn hall_view(
    State(s): State<Arc<HallState>>,
    headers: HeaderMap,
    Query(q): Query<TokenQuery>,
) -> Response {
    let live = s.is_referee(&headers, &q);
    let now = now_ms();
    let hall = s.lock();
    let (events, duplicates) = hall.event_counts();
    let view = HallView {
        hall: hall.config().hall.clone(),
        live,
        delay_s: hall.config().delay_ms / 1000,
        broker_connected: s.link.is_connected(),
        boards: hall.boards(now, live),
        orphans: hall.orphans(now),
        violations: if live {
            hall.violations(now)
        } else {
            Vec::new()
        },
        events,
        duplicates,
        latency: hall.latency(),
    };
    drop(hall);
    Json(view).into_response()
}

fn sgf_response(sgf: Option<Arc<str>>) -> Response {
    match sgf {
        Some(s) => (
            [(header::CONTENT_TYPE, "application/x-go-sgf; charset=utf-8")],
            s.to_string(),
        )
            .into_response(),
        None => error(StatusCode::NOT_FOUND, "no such board or game (yet)"),
    }
}

async fn board_sgf(
    State(s): State<Arc<HallState>>,
    Path(board): Path<String>,
    headers: HeaderMap,
    Query(q): Query<TokenQuery>,
) -> Response {
    let live = s.is_referee(&headers, &q);
    sgf_response(s.lock().sgf(&board, now_ms(), live))
}

/// A finished game without its record (`GET /api/v1/games`).
#[derive(Debug, Serialize)]
struct GameListItem {
    board: String,
    key: u64,
    round: Option<String>,
    black: Option<String>,
    white: Option<String>,
    result: Option<String>,
    warnings: crate::mqtt::Warnings,
    moves: u32,
    unix_ms: i64,
    sgf: String,
}

async fn games(
    State(s): State<Arc<HallState>>,
    headers: HeaderMap,
    Query(q): Query<TokenQuery>,
) -> Response {
    let live = s.is_referee(&headers, &q);
    let games = s.lock().games(now_ms(), live);
    let list: Vec<GameListItem> = games
        .iter()
        .map(|g| GameListItem {
            board: g.board.clone(),
            key: g.key,
            round: g.round.clone(),
            black: g.black.clone(),
            white: g.white.clone(),
            result: g.result.clone(),
            warnings: g.warnings,
            moves: g.moves,
            unix_ms: g.unix_ms,
            sgf: format!("/api/v1/games/{}/{}/game.sgf", g.board, g.key),
        })
        .collect();
    Json(list).into_response()
}

async fn game_sgf(
    State(s): State<Arc<HallState>>,
    Path((board, key)): Path<(String, u64)>,
    headers: HeaderMap,
    Query(q): Query<TokenQuery>,
) -> Response {
    let live = s.is_referee(&headers, &q);
    let g = s.lock().game(&board, key, now_ms(), live);
    sgf_response(g.map(|g| Arc::from(g.sgf.as_str())))
}

async fn results(
    State(s): State<Arc<HallState>>,
    headers: HeaderMap,
    Query(q): Query<TokenQuery>,
) -> Response {
    let live = s.is_referee(&headers, &q);
    Json(s.lock().results(now_ms(), live)).into_response()
}

async fn results_csv(
    State(s): State<Arc<HallState>>,
    headers: HeaderMap,
    Query(q): Query<TokenQuery>,
) -> Response {
    let live = s.is_referee(&headers, &q);
    let table = s.lock().results(now_ms(), live);
    (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"results.csv\"",
            ),
        ],
        super::results::csv(&table),
    )
        .into_response()
}

async fn pairings(State(s): State<Arc<HallState>>) -> Response {
    Json(s.lock().pairings().to_vec()).into_response()
}

fn need_token(s: &HallState, headers: &HeaderMap) -> Option<Response> {
    (!s.is_referee(headers, &TokenQuery::default())).then(|| {
        error(
            StatusCode::UNAUTHORIZED,
            "the hall's token is needed (Authorization: Bearer TOKEN; `smartgoban hall` prints it)",
        )
    })
}

async fn import_pairings(
    State(s): State<Arc<HallState>>,
    headers: HeaderMap,
    body: String,
) -> Response {
    if let Some(r) = need_token(&s, &headers) {
        return r;
    }
    match super::pairings::parse(&body) {
        Ok(p) => {
            let n = p.len();
            s.lock().set_pairings(p);
            if let Err(e) = s.link.publish_pairings(&body).await {
                tracing::warn!("hall: pairings not kept on the broker: {e}");
            }
            Json(serde_json::json!({"pairings": n})).into_response()
        }
        Err(e) => error(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()),
    }
}

/// `POST /api/v1/rounds/{round}/start`: the game settings every board of the round gets (the
/// board's `POST /api/v1/games` fields other than the names and the round).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoundStart {
    size: Option<u8>,
    komi: Option<f64>,
    handicap: Option<u8>,
    time: Option<String>,
    event: Option<String>,
    profile: Option<String>,
    delay_moves: Option<u32>,
    delay_s: Option<u32>,
    replace: Option<bool>,
}

/// What each board answered.
#[derive(Debug, Serialize)]
struct Report {
    /// Boards that carried the command out (status 200).
    done: Vec<String>,
    /// Boards that refused it, with their answer.
    refused: Vec<CommandAnswer>,
    /// Boards that did not answer in time (offline, or the broker's ACL).
    missing: Vec<String>,
}

fn report(expected: &[String], answers: Vec<CommandAnswer>) -> Report {
    let mut done = Vec::new();
    let mut refused = Vec::new();
    for a in answers {
        if a.status == 200 {
            done.push(a.board);
        } else {
            refused.push(a);
        }
    }
    let answered: std::collections::HashSet<&str> = done
        .iter()
        .map(String::as_str)
        .chain(refused.iter().map(|r| r.board.as_str()))
        .collect();
    let missing = expected
        .iter()
        .filter(|b| !answered.contains(b.as_str()))
        .cloned()
        .collect();
    done.sort_by(|a, b| super::board_order(a, b));
    Report {
        done,
        refused,
        missing,
    }
}

/// How long the hall waits for the boards' answers.
const ANSWER_WAIT: Duration = Duration::from_secs(5);

async fn start_round(
    State(s): State<Arc<HallState>>,
    Path(round): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if let Some(r) = need_token(&s, &headers) {
        return r;
    }
    // no body: the boards' defaults
    let settings = if body.iter().all(u8::is_ascii_whitespace) {
        RoundStart::default()
    } else {
        match serde_json::from_slice::<RoundStart>(&body) {
            Ok(b) => b,
            Err(e) => {
                return error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    format!("the round's settings: {e} (size, komi, handicap, time, event, profile, delay_moves, delay_s, replace)"),
                )
            }
        }
    };
    let games: Vec<_> = s
        .lock()
        .pairings()
        .iter()
        .filter(|p| p.round == round)
        .cloned()
        .collect();
    if games.is_empty() {
        return error(
            StatusCode::NOT_FOUND,
            format!("no pairings for round {round:?} (POST /api/v1/pairings first)"),
        );
    }
    // every board at once: one command each, answers collected together; a board the hall
    // does not see online is reported missing at once (its command would only expire)
    let online: std::collections::HashSet<String> = s.lock().online().into_iter().collect();
    let sends = games.iter().filter(|p| online.contains(&p.table)).map(|p| {
        let mut game = serde_json::json!({
            "black": p.black, "white": p.white, "round": p.round,
        });
        for (k, v) in [
            ("size", settings.size.map(serde_json::Value::from)),
            ("komi", settings.komi.map(serde_json::Value::from)),
            ("handicap", settings.handicap.map(serde_json::Value::from)),
            ("time", settings.time.clone().map(serde_json::Value::from)),
            ("event", settings.event.clone().map(serde_json::Value::from)),
            (
                "profile",
                settings.profile.clone().map(serde_json::Value::from),
            ),
            (
                "delay_moves",
                settings.delay_moves.map(serde_json::Value::from),
            ),
            ("delay_s", settings.delay_s.map(serde_json::Value::from)),
            ("replace", settings.replace.map(serde_json::Value::from)),
        ] {
            if let Some(v) = v {
                game[k] = v;
            }
        }
        let link = s.link.clone();
        let table = p.table.clone();
        async move {
            link.command(
                &Target::Board(table),
                &HallCommand::StartGame { game },
                1,
                ANSWER_WAIT,
            )
            .await
            .unwrap_or_default()
        }
    });
    let answers: Vec<CommandAnswer> = futures_util::future::join_all(sends)
        .await
        .into_iter()
        .flatten()
        .collect();
    let tables: Vec<String> = games.iter().map(|p| p.table.clone()).collect();
    let mut r = serde_json::to_value(report(&tables, answers)).unwrap_or_default();
    r["round"] = serde_json::Value::from(round);
    Json(r).into_response()
}

async fn to_every_board(s: &HallState, command: HallCommand) -> Response {
    let online: Vec<String> = s.lock().online();
    match s
        .link
        .command(&Target::All, &command, online.len(), ANSWER_WAIT)
        .await
    {
        Ok(answers) => Json(report(&online, answers)).into_response(),
        Err(e) => error(StatusCode::SERVICE_UNAVAILABLE, e),
    }
}

async fn pause(State(s): State<Arc<HallState>>, headers: HeaderMap) -> Response {
    if let Some(r) = need_token(&s, &headers) {
        return r;
    }
    to_every_board(&s, HallCommand::Pause {}).await
}

async fn resume(State(s): State<Arc<HallState>>, headers: HeaderMap) -> Response {
    if let Some(r) = need_token(&s, &headers) {
        return r;
    }
    to_every_board(&s, HallCommand::Resume {}).await
}

/// `POST /api/v1/broadcast`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Broadcast {
    /// The public delay, s (at most 24 h): the hall's feed, grid and records, and every
    /// board's own public view.
    delay_s: u32,
    /// Moves every board's public view also stays behind.
    #[serde(default)]
    delay_moves: u32,
}

async fn broadcast(
    State(s): State<Arc<HallState>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if let Some(r) = need_token(&s, &headers) {
        return r;
    }
    let b: Broadcast = match serde_json::from_slice(&body) {
        Ok(b) => b,
        Err(e) => {
            return error(
                StatusCode::UNPROCESSABLE_ENTITY,
                format!("{e}: send {{\"delay_s\": N}} (and \"delay_moves\")"),
            )
        }
    };
    if b.delay_s > 86_400 || b.delay_moves > 1000 {
        return error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "delay_s: at most 86400; delay_moves: at most 1000",
        );
    }
    s.lock().set_delay_ms(u64::from(b.delay_s) * 1000);
    to_every_board(
        &s,
        HallCommand::BroadcastDelay {
            delay_moves: b.delay_moves,
            delay_s: b.delay_s,
        },
    )
    .await
}

/// `GET /api/v1/events`: every board's events, `{"board": …, "event": …}`, ids the hall's;
/// as of the public delay without the token.
async fn events(
    State(s): State<Arc<HallState>>,
    headers: HeaderMap,
    Query(q): Query<TokenQuery>,
) -> Response {
    let live = s.is_referee(&headers, &q);
    let after = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        // a new follower starts from now, not from the whole tournament
        .unwrap_or_else(|| {
            let hall = s.lock();
            let (due, _) = hall.feed_since(0, now_ms(), live, usize::MAX);
            if live {
                hall.last_feed_id()
            } else {
                due.last().map_or(0, |f| f.id)
            }
        });
    let stream = futures_util::stream::unfold((s, after), move |(s, after)| async move {
        let changed = s.changed.clone();
        loop {
            let notified = changed.notified();
            tokio::pin!(notified);
            // registered before the feed is read: an event in between still wakes it
            notified.as_mut().enable();
            let (items, next_due) = s.lock().feed_since(after, now_ms(), live, 256);
            if !items.is_empty() {
                let last = items.last().map_or(after, |f| f.id);
                let events: Vec<Result<SseEvent, Infallible>> = items
                    .into_iter()
                    .map(|f| Ok(SseEvent::default().id(f.id.to_string()).data(&*f.json)))
                    .collect();
                return Some((futures_util::stream::iter(events), (s, last)));
            }
            let wait = next_due.map_or(Duration::from_secs(3600), |due| {
                Duration::from_millis(due.saturating_sub(now_ms()).max(1))
            });
            tokio::select! {
                _ = notified => {}
                _ = tokio::time::sleep(wait) => {}
            }
        }
    });
    use futures_util::StreamExt;
    Sse::new(stream.flatten())
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}
