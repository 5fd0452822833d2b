//! The board's MQTT publisher: one task beside the daemon that sends the board's status, state,
//! record, events and finished games to the hall's broker and carries out the hall's commands
//! through the board's own API (module docs of [`crate::mqtt`] for the topics).
//!
//! It never blocks play: it reads the daemon's shared view (the snapshot, the event log) and
//! the store, and the daemon never waits for it. While the broker is unreachable the events
//! wait in the store's outbox (the `events` table; `mqtt_outbox` holds the broker's place):
//! when the broker returns, or the service restarts, every event after the last one the broker
//! acknowledged is sent, oldest first. Without a data directory (a `demo` without
//! `--data-dir`) they wait in the event log in memory ([`crate::daemon::EventLog::KEPT`]).
//!
//! Acknowledgements are counted, not matched: a broker sends PUBACKs in the order it received
//! the QoS 1 publishes (MQTT 5.0 §4.6, MQTT 3.1.1 §4.6), and every publish here is QoS 1 and
//! goes through this one task, so the n-th PUBACK acknowledges the n-th publish.

use std::collections::VecDeque;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use rumqttc::v5::mqttbytes::v5::{LastWill, Packet, Publish, PublishProperties};
use rumqttc::v5::mqttbytes::QoS;
use rumqttc::v5::{AsyncClient, Event as MqttEvent};
use tokio::sync::{mpsc, watch};

use super::{
    client_options, CommandAnswer, GameSummary, HallCommand, MqttError, MqttSettings, Status,
    Warnings,
};
use crate::daemon::{Shared, Snapshot};
use crate::event::EventKind;
use crate::store::Store;

/// The board's API as the publisher calls it: `POST path` with a JSON body and the referee's
/// token, answered with the status and the JSON body (the composition root wires it to the
/// API's router, so this module does not depend on the API).
pub trait LocalApi: Send + Sync + 'static {
    /// `POST path` with `body`.
    fn post(
        &self,
        path: &'static str,
        body: serde_json::Value,
    ) -> Pin<Box<dyn Future<Output = (u16, serde_json::Value)> + Send>>;
}

/// The MQTT 5 user property of each event: the wall clock (ms since the Unix epoch) at which
/// the board handed the event to its feeds.
pub const PUBLISHED_MS: &str = "published_ms";

/// QoS 1 events in flight at most (sent, not yet acknowledged).
const WINDOW: usize = 64;
/// Events read from the store at a time.
const BATCH: usize = 256;
/// The state is sent at most this often while only the clocks change.
const STATE_EVERY: Duration = Duration::from_secs(1);
/// The broker's place in the outbox is written at most this often (an event sent again after
/// a crash is dropped by its `seq`).
const SAVE_EVERY: Duration = Duration::from_millis(500);
/// How long a stop waits for the last events and `offline` to be acknowledged.
const DRAIN: Duration = Duration::from_secs(3);

pub use crate::daemon::MqttCounters;

/// The running publisher.
pub struct Publisher {
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
    counters: Arc<MqttCounters>,
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher")
            .field("counters", &self.counters)
            .finish()
    }
}

/// What the task needs.
struct Ctx {
    settings: MqttSettings,
    options: rumqttc::v5::MqttOptions,
    shared: Arc<Shared>,
    api: Arc<dyn LocalApi>,
    outbox: Option<Outbox>,
    counters: Arc<MqttCounters>,
}

/// The store's outbox for one broker.
#[derive(Clone)]
struct Outbox {
    store: Arc<Mutex<Store>>,
    key: String,
}

impl Outbox {
    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Store, &str) -> Result<T, crate::store::StoreError> + Send + 'static,
    ) -> Option<T> {
        let this = self.clone();
        let done = tokio::task::spawn_blocking(move || {
            let mut store = this.store.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut store, &this.key)
        })
        .await;
        match done {
            Ok(Ok(v)) => Some(v),
            Ok(Err(e)) => {
                tracing::warn!("MQTT outbox: {e}");
                None
            }
            Err(_) => None,
        }
    }
}

impl Publisher {
    /// Starts publishing the board of `shared` to `settings`' broker. `data_dir`: the store
    /// that keeps the outbox (none: the event log in memory). `first_seq`: the seq of this
    /// run's first event (where a broker that never acknowledged anything starts: older games
    /// are in the board's API). `api`: the board's API for the hall's commands.
    ///
    /// # Errors
    /// A bad id or TLS setting ([`MqttError`]); an unreachable broker is no error (the
    /// publisher keeps trying, and play goes on).
    pub fn spawn(
        settings: MqttSettings,
        shared: Arc<Shared>,
        data_dir: Option<PathBuf>,
        first_seq: u64,
        api: Arc<dyn LocalApi>,
    ) -> Result<Publisher, MqttError> {
        super::check_id("hall", &settings.hall)?;
        super::check_id("board", &settings.board)?;
        let client_id = format!("smartgoban-{}-{}", settings.hall, settings.board);
        let mut options = client_options(
            &client_id,
            &settings.url,
            settings.credentials.as_ref(),
            settings.ca_file.as_deref(),
            settings.keepalive,
        )?;
        let will = Status {
            status: "offline".into(),
            board: settings.board.clone(),
            version: env!("CARGO_PKG_VERSION").into(),
            url: settings.public_url.clone(),
            unix_ms: None,
            game: None,
        };
        options.set_last_will(LastWill::new(
            settings.topics().status(),
            serde_json::to_vec(&will).unwrap_or_default(),
            QoS::AtLeastOnce,
            true,
            None,
        ));
        let counters = shared.mqtt.clone();
        counters.enabled.store(true, Ordering::Release);
        let (stop, stop_rx) = watch::channel(false);
        let ctx = Ctx {
            outbox: None,
            settings,
            options,
            shared,
            api,
            counters: counters.clone(),
        };
        let task = tokio::spawn(run(ctx, data_dir, first_seq, stop_rx));
        Ok(Publisher {
            stop,
            task,
            counters,
        })
    }

    /// What the publisher has done so far.
    pub fn counters(&self) -> &Arc<MqttCounters> {
        &self.counters
    }

    /// Stops: sends the last events and `offline` (waiting at most a few seconds for the
    /// broker), then disconnects cleanly (no last will).
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

async fn run(
    mut ctx: Ctx,
    data_dir: Option<PathBuf>,
    first_seq: u64,
    mut stop: watch::Receiver<bool>,
) {
    let key = format!("{} {}", ctx.settings.url, ctx.settings.topics().events());
    if let Some(dir) = data_dir {
        match tokio::task::spawn_blocking(move || Store::open(&dir)).await {
            Ok(Ok(store)) => {
                ctx.outbox = Some(Outbox {
                    store: Arc::new(Mutex::new(store)),
                    key,
                })
            }
            Ok(Err(e)) => tracing::error!("MQTT outbox: {e}; events wait in memory only"),
            Err(_) => {}
        }
    }
    let acked = match &ctx.outbox {
        Some(o) => o.blocking(|s, k| s.mqtt_acked(k)).await.flatten(),
        None => None,
    };
    // Never acknowledged: this run's events (older games are in the board's API). The place
    // is written at once, so a run that never reaches the broker leaves its events to the next.
    let mut acked = match acked {
        Some(a) => a,
        None => {
            let start = first_seq.saturating_sub(1);
            if let Some(o) = &ctx.outbox {
                o.blocking(move |s, k| s.set_mqtt_acked(k, start)).await;
            }
            start
        }
    };
    ctx.counters.acked_seq.store(acked, Ordering::Release);
    let mut backoff = Duration::from_millis(250);
    let mut last_error = String::new();
    loop {
        if *stop.borrow() {
            return;
        }
        match connection(&ctx, &mut acked, &mut stop).await {
            Ended::Stopped => return,
            Ended::Lost { why, was_connected } => {
                ctx.counters.connected.store(false, Ordering::Release);
                if was_connected {
                    backoff = Duration::from_millis(250);
                }
                if why != last_error {
                    tracing::warn!(
                        "MQTT broker {}: {why}; events wait in the outbox, trying again",
                        ctx.settings.url
                    );
                    last_error = why;
                }
                tokio::select! {
                    _ = tokio::time::sleep(backoff) => {}
                    _ = stop.changed() => return,
                }
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
        }
    }
}

enum Ended {
    Stopped,
    Lost { why: String, was_connected: bool },
}

/// One connection's bookkeeping.
struct Conn<'a> {
    ctx: &'a Ctx,
    client: AsyncClient,
    /// Every QoS 1 publish not yet acknowledged, in order: the event's seq, or `None`.
    sent: VecDeque<Option<u64>>,
    /// The seq of the last event handed to the client.
    sent_upto: u64,
    /// The seq of the last result event sent, and the summary published for it.
    last_result: Option<u64>,
    published_game: Option<(u64, Option<String>)>,
    /// The last state sent: its seq, when, and the record's length and hash.
    state_seq: Option<u64>,
    state_at: Instant,
    sgf_sent: Option<(usize, u64)>,
    state_dirty: bool,
    /// The game the last `online` status named.
    status_game: Option<serde_json::Value>,
}

async fn connection(ctx: &Ctx, acked: &mut u64, stop: &mut watch::Receiver<bool>) -> Ended {
    let (client, mut eventloop) = AsyncClient::new(ctx.options.clone(), WINDOW * 4);
    let topics = ctx.settings.topics();
    let mut conn = Conn {
        ctx,
        client,
        sent: VecDeque::new(),
        sent_upto: *acked,
        last_result: None,
        published_game: None,
        state_seq: None,
        state_at: Instant::now(),
        sgf_sent: None,
        state_dirty: true,
        status_game: None,
    };
    let mut connected = false;
    let mut log = ctx.shared.log.subscribe();
    let mut snapshots = ctx.shared.snapshot.clone();
    let (answers_tx, mut answers) = mpsc::channel::<(String, Option<Bytes>, Vec<u8>)>(64);
    // The hall's commands run one after another, in the order they came (a pause sent after
    // a round start pauses the round's clocks); the worker ends with this connection.
    let (commands, commands_rx) = mpsc::channel::<Publish>(COMMANDS_QUEUED);
    let _worker = AbortOnDrop(tokio::spawn(command_worker(
        ctx.settings.board.clone(),
        ctx.api.clone(),
        ctx.counters.clone(),
        commands_rx,
        answers_tx,
    )));
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut saved = (*acked, Instant::now());
    let lost = |why: String, connected: bool| Ended::Lost {
        why,
        was_connected: connected,
    };
    loop {
        tokio::select! {
            _ = stop.changed() => {
                if connected {
                    conn.drain(&mut eventloop, acked).await;
                }
                conn.save(acked, &mut saved, true).await;
                return Ended::Stopped;
            }
            polled = eventloop.poll() => match polled {
                Ok(MqttEvent::Incoming(Packet::ConnAck(_))) => {
                    connected = true;
                    ctx.counters.connected.store(true, Ordering::Release);
                    ctx.counters.connects.fetch_add(1, Ordering::AcqRel);
                    tracing::info!("MQTT broker {}: connected", ctx.settings.url);
                    for t in [topics.cmd(), topics.hall_cmd()] {
                        if let Err(e) = conn.client.try_subscribe(t, QoS::AtLeastOnce) {
                            return lost(e.to_string(), connected);
                        }
                    }
                    conn.publish_status("online");
                    conn.state_dirty = true;
                    conn.sgf_sent = None;
                    conn.publish_state(true);
                }
                Ok(MqttEvent::Incoming(Packet::PubAck(ack))) => {
                    if ack.reason != rumqttc::v5::mqttbytes::v5::PubAckReason::Success
                        && ack.reason != rumqttc::v5::mqttbytes::v5::PubAckReason::NoMatchingSubscribers
                    {
                        tracing::error!("MQTT broker {} refused a publish: {:?} (its ACL?)", ctx.settings.url, ack.reason);
                    }
                    if let Some(Some(seq)) = conn.sent.pop_front() {
                        *acked = seq;
                        ctx.counters.acked_seq.store(seq, Ordering::Release);
                    }
                }
                Ok(MqttEvent::Incoming(Packet::Publish(p))) => {
                    if commands.try_send(p).is_err() {
                        tracing::warn!("MQTT: more than {COMMANDS_QUEUED} of the hall's commands wait; one dropped (the hall sees no answer)");
                    }
                }
                Ok(MqttEvent::Incoming(Packet::Disconnect(d))) => {
                    return lost(format!("the broker disconnected ({:?})", d.reason_code), connected);
                }
                Ok(_) => {}
                Err(e) => {
                    conn.save(acked, &mut saved, true).await;
                    return lost(e.to_string(), connected);
                }
            },
            _ = log.recv() => {}
            changed = snapshots.changed() => {
                if changed.is_ok() {
                    conn.state_dirty = true;
                }
            }
            Some((topic, correlation, payload)) = answers.recv() => {
                if connected {
                    let props = PublishProperties { correlation_data: correlation, ..Default::default() };
                    if conn.client.try_publish_with_properties(topic, QoS::AtLeastOnce, false, payload, props).is_ok() {
                        conn.sent.push_back(None);
                    }
                }
            }
            _ = tick.tick() => {
                conn.save(acked, &mut saved, false).await;
            }
        }
        if connected {
            conn.pump().await;
            conn.publish_state(false);
        }
    }
}

impl Conn<'_> {
    /// Publishes `payload` at QoS 1 and counts it; false when the client's queue is full.
    fn publish(&mut self, topic: String, retain: bool, payload: Vec<u8>, seq: Option<u64>) -> bool {
        self.publish_with(topic, retain, payload, seq, PublishProperties::default())
    }

    fn publish_with(
        &mut self,
        topic: String,
        retain: bool,
        payload: Vec<u8>,
        seq: Option<u64>,
        props: PublishProperties,
    ) -> bool {
        match self.client.try_publish_with_properties(
            topic,
            QoS::AtLeastOnce,
            retain,
            payload,
            props,
        ) {
            Ok(()) => {
                self.sent.push_back(seq);
                true
            }
            Err(_) => false,
        }
    }

    fn publish_status(&mut self, status: &str) {
        let game = serde_json::to_value(&self.ctx.shared.snapshot().state.game).ok();
        self.status_game.clone_from(&game);
        let s = Status {
            status: status.into(),
            board: self.ctx.settings.board.clone(),
            version: env!("CARGO_PKG_VERSION").into(),
            url: self.ctx.settings.public_url.clone(),
            unix_ms: Some(crate::store::unix_now_ms()),
            game,
        };
        let topic = self.ctx.settings.topics().status();
        self.publish(
            topic,
            true,
            serde_json::to_vec(&s).unwrap_or_default(),
            None,
        );
    }

    /// Sends the state (and the record, if it changed) when something happened, at most once a
    /// second while only the clocks run, and every heartbeat regardless (`force`: now).
    fn publish_state(&mut self, force: bool) {
        let snap = self.ctx.shared.snapshot();
        let new_seq = self.state_seq != Some(snap.last_seq);
        let due = (self.state_dirty && (new_seq || self.state_at.elapsed() >= STATE_EVERY))
            || self.state_at.elapsed() >= self.ctx.settings.heartbeat;
        if !(force || due) {
            return;
        }
        let topics = self.ctx.settings.topics();
        let body = snap.state_body();
        let payload = format!(
            "{{\"board\":{},\"seq\":{},\"unix_ms\":{},\"state\":{}}}",
            serde_json::Value::from(self.ctx.settings.board.as_str()),
            snap.last_seq,
            crate::store::unix_now_ms(),
            String::from_utf8_lossy(&body)
        );
        if !self.publish(topics.state(), true, payload.into_bytes(), None) {
            return;
        }
        self.state_seq = Some(snap.last_seq);
        self.state_at = Instant::now();
        self.state_dirty = false;
        // a new game (players, round) or its result: the status says so too
        if serde_json::to_value(&snap.state.game).ok() != self.status_game {
            self.publish_status("online");
        }
        let sgf = (snap.sgf.len(), hash(&snap.sgf));
        if self.sgf_sent != Some(sgf)
            && self.publish(topics.sgf(), true, snap.sgf.clone().into_bytes(), None)
        {
            self.sgf_sent = Some(sgf);
        }
        self.publish_game(&snap);
    }

    /// A finished game's summary, once per result (retained: the hall's results table).
    fn publish_game(&mut self, snap: &Snapshot) {
        let (Some(key), Some(result)) = (self.last_result, snap.state.game.result.clone()) else {
            return;
        };
        if snap.last_seq < key || self.published_game == Some((key, Some(result.clone()))) {
            return;
        }
        let state = &snap.state;
        let summary = GameSummary {
            board: self.ctx.settings.board.clone(),
            key,
            round: state.game.round.clone(),
            black: state.game.black.clone(),
            white: state.game.white.clone(),
            result: Some(result.clone()),
            warnings: Warnings {
                black: state.warnings.black,
                white: state.warnings.white,
            },
            moves: state.move_number,
            unix_ms: crate::store::unix_now_ms(),
            sgf: snap.sgf.clone(),
        };
        let topic = self.ctx.settings.topics().game(key);
        if self.publish(
            topic,
            true,
            serde_json::to_vec(&summary).unwrap_or_default(),
            None,
        ) {
            self.published_game = Some((key, Some(result)));
        }
    }

    /// Sends the events after the last one sent, while fewer than [`WINDOW`] wait for their
    /// acknowledgement.
    async fn pump(&mut self) {
        while self.sent.len() < WINDOW {
            let room = WINDOW - self.sent.len();
            let batch = self.next_events(room).await;
            if batch.is_empty() {
                return;
            }
            let topic = self.ctx.settings.topics().events();
            let now = (Instant::now(), crate::store::unix_now_ms());
            for (seq, is_result, payload) in batch {
                // When the event was handed to the board's feeds (its wall clock, ms): where a
                // reader's delivery latency starts. Events read back from the store: now.
                let at = self.ctx.shared.log.published_at(seq).map_or(now.1, |at| {
                    now.1 - now.0.saturating_duration_since(at).as_millis() as i64
                });
                let props = PublishProperties {
                    user_properties: vec![(PUBLISHED_MS.into(), at.to_string())],
                    content_type: Some("application/json".into()),
                    ..Default::default()
                };
                if !self.publish_with(topic.clone(), false, payload, Some(seq), props) {
                    return;
                }
                self.sent_upto = seq;
                self.ctx.counters.events_sent.fetch_add(1, Ordering::AcqRel);
                if is_result {
                    self.last_result = Some(seq);
                    self.state_dirty = true;
                }
            }
        }
    }

    /// Up to `n` events after `sent_upto`: from the store while they are older than the
    /// event log's oldest, else from the log.
    async fn next_events(&self, n: usize) -> Vec<(u64, bool, Vec<u8>)> {
        let log = &self.ctx.shared.log;
        let oldest = log.oldest_seq();
        let after = self.sent_upto;
        if let Some(outbox) = &self.ctx.outbox {
            if oldest.is_none_or(|o| after + 1 < o) {
                let before = oldest.unwrap_or(u64::MAX);
                let n = n.min(BATCH);
                let rows = outbox
                    .blocking(move |s, _| s.events_between(after, before, n))
                    .await
                    .unwrap_or_default();
                if !rows.is_empty() {
                    return rows
                        .into_iter()
                        .map(|(seq, body)| {
                            let is_result = body.contains("\"kind\":\"result\"");
                            (seq, is_result, body.into_bytes())
                        })
                        .collect();
                }
            }
        }
        log.since(after)
            .into_iter()
            .take(n)
            .map(|e| {
                let is_result = matches!(e.kind, EventKind::Result { .. });
                (
                    e.seq,
                    is_result,
                    serde_json::to_vec(&*e).unwrap_or_default(),
                )
            })
            .collect()
    }

    /// Writes the broker's place in the outbox when it moved (at most every
    /// [`SAVE_EVERY`] unless `now`).
    async fn save(&self, acked: &u64, saved: &mut (u64, Instant), now: bool) {
        let Some(outbox) = &self.ctx.outbox else {
            return;
        };
        if *acked == saved.0 || (!now && saved.1.elapsed() < SAVE_EVERY) {
            return;
        }
        let seq = *acked;
        if outbox
            .blocking(move |s, k| s.set_mqtt_acked(k, seq))
            .await
            .is_some()
        {
            *saved = (seq, Instant::now());
        }
    }

    /// At a stop: the events not yet sent and `offline`, then waits (at most [`DRAIN`]) for
    /// their acknowledgements and disconnects.
    async fn drain(&mut self, eventloop: &mut rumqttc::v5::EventLoop, acked: &mut u64) {
        let deadline = tokio::time::Instant::now() + DRAIN;
        loop {
            self.pump().await;
            if self.sent_upto >= self.ctx.shared.log.last_seq() {
                break;
            }
            if !self.poll_until(eventloop, acked, deadline).await {
                return;
            }
        }
        // the final state, record and finished game
        self.publish_state(true);
        self.publish_status("offline");
        while !self.sent.is_empty() {
            if !self.poll_until(eventloop, acked, deadline).await {
                return;
            }
        }
        let _ = self.client.try_disconnect();
        let _ = tokio::time::timeout_at(deadline, eventloop.poll()).await;
    }

    /// Polls the connection once before `deadline`, counting acknowledgements; false when the
    /// deadline passed or the connection failed.
    async fn poll_until(
        &mut self,
        eventloop: &mut rumqttc::v5::EventLoop,
        acked: &mut u64,
        deadline: tokio::time::Instant,
    ) -> bool {
        match tokio::time::timeout_at(deadline, eventloop.poll()).await {
            Ok(Ok(MqttEvent::Incoming(Packet::PubAck(_)))) => {
                if let Some(Some(seq)) = self.sent.pop_front() {
                    *acked = seq;
                    self.ctx.counters.acked_seq.store(seq, Ordering::Release);
                }
                true
            }
            Ok(Ok(_)) => true,
            _ => false,
        }
    }
}

/// FNV-1a of `s`: whether the record changed since it was last sent.
fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The hall's commands a board keeps waiting at most; more are dropped (the hall reports the
/// board as not answering after its 5 s).
const COMMANDS_QUEUED: usize = 32;

/// Aborts a task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Carries out the hall's commands through the board's API, one at a time in the order they
/// came; each answer goes back through `answers` to be published on the request's response
/// topic (MQTT 5 request/response).
async fn command_worker(
    board: String,
    api: Arc<dyn LocalApi>,
    counters: Arc<MqttCounters>,
    mut commands: mpsc::Receiver<Publish>,
    answers: mpsc::Sender<(String, Option<Bytes>, Vec<u8>)>,
) {
    while let Some(p) = commands.recv().await {
        let props = p.properties.unwrap_or_default();
        let answer = match serde_json::from_slice::<HallCommand>(&p.payload) {
            Ok(cmd) => {
                let (path, body) = cmd.request();
                let (status, body) = api.post(path, body).await;
                CommandAnswer {
                    board: board.clone(),
                    command: cmd.name().into(),
                    status,
                    body,
                }
            }
            Err(e) => CommandAnswer {
                board: board.clone(),
                command: "invalid".into(),
                status: 400,
                body: serde_json::json!({"error": format!("not a command: {e}")}),
            },
        };
        counters.commands.fetch_add(1, Ordering::AcqRel);
        if let Some(topic) = props.response_topic {
            let payload = serde_json::to_vec(&answer).unwrap_or_default();
            if answers
                .send((topic, props.correlation_data, payload))
                .await
                .is_err()
            {
                return;
            }
        }
    }
}
