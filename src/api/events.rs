//! `GET /api/v1/events`: the resumable Server-Sent Events feed.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::daemon::{EventLog, Shared};
use crate::event::Event;

/// `GET /api/v1/events[?since=N]`, header `Last-Event-ID: N`: every event after `N`, then
/// the live ones. A `Last-Event-ID` that is not a number is ignored (browsers send what they
/// got); a bad `since` is a 400.
pub(super) async fn sse(
    State(shared): State<Arc<Shared>>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let mut since = None;
    for pair in query
        .as_deref()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
    {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if key != "since" {
            continue;
        }
        match value.parse::<u64>() {
            Ok(n) => since = Some(n),
            Err(_) => {
                return super::error(
                    StatusCode::BAD_REQUEST,
                    format!(
                        "since={value:?}: use the seq of the last event received (a whole number)"
                    ),
                )
            }
        }
    }
    let last_id = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    let after = last_id.or(since).unwrap_or(0);
    Sse::new(feed(shared, after))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

struct Feed {
    shared: Arc<Shared>,
    live: broadcast::Receiver<Arc<Event>>,
    backlog: VecDeque<Arc<Event>>,
    last_sent: u64,
}

/// Every event after `after`, then the live ones, each exactly once and in order. Subscribes
/// before reading the backlog so nothing falls between the two; if a slow client lags behind
/// the broadcast buffer, it is refilled from the log.
fn feed(shared: Arc<Shared>, after: u64) -> impl Stream<Item = Result<SseEvent, Infallible>> {
    let live = shared.log.subscribe();
    let backlog = shared.log.since(after).into();
    let state = Feed {
        shared,
        live,
        backlog,
        last_sent: after,
    };
    stream::unfold(state, |mut st| async move {
        loop {
            if let Some(ev) = st.backlog.pop_front() {
                if ev.seq <= st.last_sent {
                    continue;
                }
                st.last_sent = ev.seq;
                return Some((Ok(to_sse(&ev)), st));
            }
            match st.live.recv().await {
                Ok(ev) => st.backlog.push_back(ev),
                Err(RecvError::Lagged(_)) => {
                    st.backlog = refill(&st.shared.log, st.last_sent);
                }
                Err(RecvError::Closed) => return None,
            }
        }
    })
}

fn refill(log: &EventLog, after: u64) -> VecDeque<Arc<Event>> {
    log.since(after).into()
}

fn to_sse(ev: &Event) -> SseEvent {
    let data = serde_json::to_string(ev).unwrap_or_else(|_| "{}".to_string());
    SseEvent::default().id(ev.seq.to_string()).data(data)
}
