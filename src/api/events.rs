//! The live feeds: `GET /api/v1/events` (Server-Sent Events) and `GET /api/v1/ws`
//! (WebSocket), the same events in the same order with the same ids.
//!
//! Both resume: a client that comes back with `Last-Event-ID: N` (SSE) or `?since=N` (both)
//! first gets every event after `N`, in order, then the live ones. When `N` is older than the
//! events the service keeps, or from another run, it first gets one `snapshot` event — `{"seq",
//! "kind": "snapshot", "state", "moves"}`, the state and the moves as of event `seq` — and then
//! every event after it. Corrected and taken-back moves are events of their own
//! (`move_corrected`, `move_undone`), so a client that replays the feed ends with the board of
//! `GET /api/v1/state`.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::QueryRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream, StreamExt};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::daemon::Shared;
use crate::event::Event;

/// One message of `GET /api/v1/events` (Server-Sent Events), as the OpenAPI document
/// describes it.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // only its schema is used
pub(super) struct SseMessage {
    /// The event's `seq`.
    #[schema(pattern = "^[0-9]+$")]
    id: String,
    /// The event as JSON: `seq` (unique, increasing), `t_ms` (ms since the service started),
    /// `kind` and the kind's fields (DESIGN.md "Events").
    #[schema(content_media_type = "application/json")]
    data: String,
}

/// A 503 when [`super::Limits::feed_followers`] clients (SSE and WebSocket together) already
/// follow the feeds, so followers can never take every connection from ordinary requests.
fn feeds_full(shared: &Shared, limits: &super::Limits) -> Option<Response> {
    let n = shared.feeds.sse_clients.load(Ordering::Relaxed)
        + shared.feeds.ws_clients.load(Ordering::Relaxed);
    (n >= i64::try_from(limits.feed_followers).unwrap_or(i64::MAX)).then(|| {
        let mut resp = super::error(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{n} clients already follow the feed (the most, `[api] feed_followers`); try again later"),
        );
        resp.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from_static("10"),
        );
        resp
    })
}

/// One message of a feed: its id and its JSON text.
#[derive(Clone, Debug)]
pub(super) struct Item {
    pub seq: u64,
    pub json: String,
}

/// The query string as decoded pairs (percent-decoding, `+` as space), or a 400.
pub(super) type Pairs = Result<Query<Vec<(String, String)>>, QueryRejection>;

/// `since=N` from a query (the last one if repeated; other parameters, such as a
/// cache-buster, are ignored): `Ok(None)` when absent, a 400 when not a whole number.
pub(super) fn since_param(query: Pairs) -> Result<Option<u64>, Box<Response>> {
    let bad = |why: String| Box::new(super::error(StatusCode::BAD_REQUEST, why));
    let Query(pairs) = query.map_err(|e| bad(e.body_text()))?;
    match pairs.iter().rev().find(|(k, _)| k == "since") {
        None => Ok(None),
        Some((_, value)) => value
            .parse::<u64>()
            .ok()
            .filter(|&n| i64::try_from(n).is_ok())
            .map(Some)
            .ok_or_else(|| {
                bad(format!(
                    "since={value:?}: use the seq or number of the last one received (a whole number from 0 to 2^63 − 1)"
                ))
            }),
    }
}

/// `GET /api/v1/events[?since=N]`, header `Last-Event-ID: N`: every event after `N`, then
/// the live ones. A `Last-Event-ID` that is not a number is ignored (browsers send what they
/// got); a bad `since` is a 400.
#[utoipa::path(get, path = "/api/v1/events", params(("since" = Option<u64>, Query, minimum = 0, description = "resume after this seq (the Last-Event-ID header wins when both are sent)"), ("Last-Event-ID" = Option<String>, Header, description = "resume after this seq (browsers send it when they reconnect; ignored when not a whole number)")), responses((status = 200, description = "Server-Sent Events, without end: each message's `id` is the event's seq and its `data` the event as JSON; a comment every 15 s keeps the connection open", content_type = "text/event-stream", body = SseMessage), (status = 400, description = "`since` is not a whole number from 0 to 2^63 − 1", body = super::ErrorBody), (status = 503, description = "the most followers (`[api] feed_followers`) already follow the feeds; Retry-After says when to try again", body = super::ErrorBody)))]
pub(super) async fn sse(
    State(shared): State<Arc<Shared>>,
    axum::Extension(limits): axum::Extension<super::Limits>,
    headers: HeaderMap,
    query: Pairs,
) -> Response {
    let since = match since_param(query) {
        Ok(s) => s,
        Err(resp) => return *resp,
    };
    let last_id = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let after = last_id.or(since).unwrap_or(0);
    let public = !super::is_referee(&shared, &headers);
    if let Some(full) = feeds_full(&shared, &limits) {
        return full;
    }
    let stream = feed(shared, after, Client::Sse, public).map(|item| {
        Ok::<_, Infallible>(SseEvent::default().id(item.seq.to_string()).data(item.json))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// `GET /api/v1/ws[?since=N]`: the same feed over a WebSocket, one event per text message.
/// Messages from the client are ignored (pings are answered by the library).
#[utoipa::path(get, path = "/api/v1/ws", params(("since" = Option<u64>, Query, minimum = 0, description = "resume after this seq")), responses((status = 101, description = "WebSocket: the same events as /api/v1/events, one JSON text message each"), (status = 400, description = "`since` is not a whole number from 0 to 2^63 − 1, or a WebSocket handshake with a wrong header", body = super::ErrorBody), (status = 426, description = "not a WebSocket handshake (`Upgrade: websocket` is required)", body = super::ErrorBody), (status = 503, description = "the most followers (`[api] feed_followers`) already follow the feeds; Retry-After says when to try again", body = super::ErrorBody)))]
pub(super) async fn ws(
    State(shared): State<Arc<Shared>>,
    axum::Extension(limits): axum::Extension<super::Limits>,
    headers: HeaderMap,
    query: Pairs,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let public = !super::is_referee(&shared, &headers);
    if let Some(full) = feeds_full(&shared, &limits) {
        return full;
    }
    let after = match since_param(query) {
        Ok(s) => s.unwrap_or(0),
        Err(resp) => return *resp,
    };
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(rejection) => return not_a_websocket(&rejection),
    };
    upgrade
        .max_message_size(64 * 1024)
        .on_upgrade(move |socket| follow(socket, shared, after, public))
        .into_response()
}

/// The answer to a request on the WebSocket route that is not a WebSocket handshake: 426
/// Upgrade Required with `Upgrade: websocket` when it asks for no upgrade (a plain GET, RFC
/// 9110 §15.5.22), 400 for a handshake with a wrong header; a JSON error either way.
fn not_a_websocket(rejection: &WebSocketUpgradeRejection) -> Response {
    let plain = matches!(
        rejection,
        WebSocketUpgradeRejection::InvalidConnectionHeader(_)
            | WebSocketUpgradeRejection::InvalidUpgradeHeader(_)
            | WebSocketUpgradeRejection::ConnectionNotUpgradable(_)
    );
    let status = if plain {
        StatusCode::UPGRADE_REQUIRED
    } else {
        rejection.status()
    };
    let mut resp = super::error(
        status,
        format!(
            "{}: this is the WebSocket feed (GET with `Connection: Upgrade`, `Upgrade: websocket`); /api/v1/events is the same feed as Server-Sent Events",
            rejection.body_text()
        ),
    );
    if plain {
        resp.headers_mut().insert(
            axum::http::header::UPGRADE,
            axum::http::HeaderValue::from_static("websocket"),
        );
    }
    resp
}

async fn follow(mut socket: WebSocket, shared: Arc<Shared>, after: u64, public: bool) {
    let mut items = std::pin::pin!(feed(shared, after, Client::Ws, public));
    loop {
        tokio::select! {
            item = items.next() => match item {
                Some(item) => {
                    if socket.send(Message::Text(item.json.into())).await.is_err() {
                        return;
                    }
                }
                None => return,
            },
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(frame))) => {
                    // answer the closing handshake, so the client sees a clean close
                    let _ = socket.send(Message::Close(frame)).await;
                    return;
                }
                None | Some(Err(_)) => return,
                Some(Ok(_)) => {}
            },
        }
    }
}

/// Which kind of feed a client follows (for the counters of `GET /metrics`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Client {
    /// Server-Sent Events.
    Sse,
    /// WebSocket.
    Ws,
}

/// Counts a client in while it is connected.
struct Connected {
    shared: Arc<Shared>,
    client: Client,
}

impl Connected {
    fn new(shared: Arc<Shared>, client: Client) -> Connected {
        connected(&shared, client).fetch_add(1, Ordering::Relaxed);
        Connected { shared, client }
    }
}

impl Drop for Connected {
    fn drop(&mut self) {
        connected(&self.shared, self.client).fetch_sub(1, Ordering::Relaxed);
    }
}

fn connected(shared: &Shared, client: Client) -> &std::sync::atomic::AtomicI64 {
    match client {
        Client::Sse => &shared.feeds.sse_clients,
        Client::Ws => &shared.feeds.ws_clients,
    }
}

struct Feed {
    _client: Connected,
    /// A reader without the token: held back by the broadcast delay.
    public: bool,
    /// The public view, whose `last_seq` is how far a delayed public feed may go.
    watermark: tokio::sync::watch::Receiver<Arc<crate::daemon::Snapshot>>,
    shared: Arc<Shared>,
    live: broadcast::Receiver<Arc<Event>>,
    backlog: VecDeque<Arc<Event>>,
    last_sent: u64,
    snapshot: Option<Item>,
}

/// Every event after `after` (after a snapshot when those are no longer kept), then the live
/// ones, each exactly once and in order. Subscribes before reading the backlog so nothing falls
/// between the two; if a slow client lags behind the broadcast buffer, it is refilled from the
/// log.
pub(super) fn feed(
    shared: Arc<Shared>,
    after: u64,
    client: Client,
    public: bool,
) -> impl Stream<Item = Item> {
    let live = shared.log.subscribe();
    let watermark = shared.delay.subscribe();
    let (snapshot, after) = if shared.log.lost_since(after) {
        let snap = shared.view(!public);
        let body = serde_json::json!({
            "seq": snap.last_seq,
            "kind": "snapshot",
            "state": snap.state,
            "moves": snap.moves,
        });
        (
            Some(Item {
                seq: snap.last_seq,
                json: body.to_string(),
            }),
            snap.last_seq,
        )
    } else {
        (None, after)
    };
    let backlog = shared.log.since(after).into();
    let state = Feed {
        _client: Connected::new(shared.clone(), client),
        public,
        watermark,
        shared,
        live,
        backlog,
        last_sent: after,
        snapshot,
    };
    stream::unfold(state, |mut st| async move {
        if let Some(item) = st.snapshot.take() {
            st.shared.feeds.events_sent.fetch_add(1, Ordering::Relaxed);
            return Some((item, st));
        }
        loop {
            // With a broadcast delay, a public reader gets events only up to the public view.
            let limit = (st.public && !st.shared.delay.settings().is_zero())
                .then(|| st.watermark.borrow().last_seq);
            if let (Some(limit), Some(front)) = (limit, st.backlog.front()) {
                if front.seq > st.last_sent && front.seq > limit {
                    if st.watermark.changed().await.is_err() {
                        return None;
                    }
                    continue;
                }
            }
            if let Some(ev) = st.backlog.pop_front() {
                if ev.seq <= st.last_sent {
                    continue;
                }
                st.last_sent = ev.seq;
                let json = serde_json::to_string(&*ev).unwrap_or_else(|_| "{}".to_string());
                st.shared.feeds.events_sent.fetch_add(1, Ordering::Relaxed);
                return Some((Item { seq: ev.seq, json }, st));
            }
            match st.live.recv().await {
                Ok(ev) => st.backlog.push_back(ev),
                Err(RecvError::Lagged(_)) => {
                    st.backlog = st.shared.log.since(st.last_sent).into();
                }
                Err(RecvError::Closed) => return None,
            }
        }
    })
}
