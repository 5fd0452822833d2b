//! The hall service (`smartgoban hall --mqtt URL`, issue 18): every board of a tournament
//! hall read from the hall's MQTT broker, served as one page and one API for the chief referee,
//! the organisers and the broadcast.
//!
//! [`Hall`] is the sans-IO core: messages from the broker go in with the time they arrived;
//! the grid of boards, the open violations, the orphan alerts, the results table and the hall's
//! event feed come out. [`subscriber`] moves the bytes between the broker and it; [`server`]
//! serves it over HTTP.
//!
//! It keeps nothing the broker cannot give back: after a restart the retained topics (each
//! board's status, state, record and finished games, and the hall's pairings) rebuild it, and
//! each board's own API keeps its history.

pub mod kept;
pub mod pairings;
pub mod results;
pub mod server;
pub mod subscriber;

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use serde::Serialize;

use crate::mqtt::{parse_board_topic, BoardTopic, GameSummary, Status};
use kept::{Delayed, KeptState, RawJson};
pub use pairings::Pairing;

/// The hall's settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HallConfig {
    /// The hall id (the topics' second level).
    pub hall: String,
    /// A board silent this long is an orphan (its heartbeat is 10 s by default), ms.
    pub orphan_after_ms: u64,
    /// The public (broadcast) delay, ms: spectators see the boards, records and events this
    /// much later than the referee.
    pub delay_ms: u64,
}

/// Events the hall's feed keeps (for followers that resume, and for the delay).
pub const FEED_KEPT: usize = 200_000;

/// Boards a hall keeps at most (a message from one more is ignored).
pub const MAX_BOARDS: usize = 10_000;

/// Finished games a hall keeps at most (a tournament of 300 boards and 10 rounds has 3,000).
pub const MAX_GAMES: usize = 50_000;

/// While only the clocks change, a board's state is kept for the public delay at most this
/// often (the newest replaces the last kept in between), ms: the delay's memory is then a
/// state per event plus one every 5 s, whatever the delay.
const CLOCK_STATE_EVERY_MS: u64 = 5_000;

/// Bytes of events the feed keeps at most (the oldest go first): with [`FEED_KEPT`] and
/// [`MAX_EVENT_BYTES`] it bounds the hall's memory whatever the boards send.
pub const FEED_BYTES_KEPT: usize = 256 << 20;

/// The largest message the hall takes on a board's `events` topic, bytes (a real event is
/// under 16 KiB: a game's setup of 361 points is the largest).
pub const MAX_EVENT_BYTES: usize = 64 << 10;

/// The largest `state` message, bytes (a real one is a few KiB).
pub const MAX_STATE_BYTES: usize = 512 << 10;

/// The largest record (`sgf`), bytes.
pub const MAX_SGF_BYTES: usize = 1 << 20;

/// The largest `status` or finished game, bytes.
pub const MAX_SMALL_BYTES: usize = 64 << 10;

/// Bytes of states kept per board for the public delay at most (a real board's states over
/// a 15-minute delay take under 2 MiB); the newest is always kept.
pub const STATE_BYTES_KEPT: usize = 4 << 20;

/// Bytes of records kept per board for the public delay at most.
pub const SGF_BYTES_KEPT: usize = 4 << 20;

/// An event whose `seq` is past this is refused (JSON's exact integers end at 2^53; a
/// board's feed counts one by one from 1).
pub const MAX_SEQ: u64 = 1 << 53;

/// A board's retained state says which `seq` it has reached; the hall's last taken `seq`
/// further ahead than this means the board's feed restarted (a new data directory) or an
/// event came with a forged `seq`: the hall goes back to the state's `seq` so that the
/// board's real events are not dropped as duplicates. (A state may lag its events by the
/// few published between its snapshot and its delivery.)
pub const SEQ_AHEAD_OF_STATE: u64 = 1_000;

/// A state that comes this long after the hall took an event, and is still behind it, was
/// published after it: the event's seq was not the board's (ms).
pub const STATE_LAG_MS: u64 = 5_000;

/// Latencies kept for the percentiles.
const LATENCIES_KEPT: usize = 100_000;

/// One event of the hall's feed: a board's event with the board's id.
#[derive(Clone, Debug)]
pub struct FeedItem {
    /// The hall's id for it: strictly increasing within a run of the hall.
    pub id: u64,
    /// When the hall received it, ms since the Unix epoch.
    pub at_ms: u64,
    /// `{"board": "12", "event": {…}}` (the event as DESIGN.md "Events" has it).
    pub json: Arc<str>,
}

/// A board's message, read.
enum Message {
    Status(Status),
    State(KeptState),
    Sgf(Arc<str>),
    Game(u64, GameSummary),
    Event(u64, serde_json::Value),
}

/// One board as the hall knows it.
#[derive(Clone, Debug)]
struct BoardEntry {
    status: Option<Status>,
    state: Delayed<Arc<KeptState>>,
    sgf: Delayed<Arc<str>>,
    /// The seq of the last event taken (events at or below it are duplicates), and when it
    /// was taken (ms since the Unix epoch).
    last_seq: u64,
    last_seq_ms: u64,
    /// When anything was last heard from the board, ms since the Unix epoch.
    heard_ms: u64,
    /// Events taken, and duplicates dropped.
    events: u64,
    duplicates: u64,
}

impl BoardEntry {
    /// Its last status says `online`.
    fn is_online(&self) -> bool {
        self.status.as_ref().is_some_and(|s| s.status == "online")
    }
}

/// What applying a message did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    /// A board's status, state, record or finished game changed.
    Board,
    /// A new event, appended to the feed with this id.
    Event(u64),
    /// An event already taken (sent again after an outage): dropped.
    Duplicate,
    /// Not for the hall, or not readable (the reason).
    Ignored(String),
}

/// The hall's state: the sans-IO core of the hall service.
#[derive(Debug)]
pub struct Hall {
    config: HallConfig,
    boards: BTreeMap<String, BoardEntry>,
    /// Finished games, with when each is due for the public (ms since the Unix epoch).
    games: BTreeMap<(String, u64), (u64, Arc<GameSummary>)>,
    pairings: Vec<Pairing>,
    feed: VecDeque<FeedItem>,
    /// The bytes of `feed`'s events, and the most it keeps.
    feed_bytes: usize,
    feed_bytes_kept: usize,
    next_id: u64,
    latencies: VecDeque<u64>,
}

/// One board in the grid.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct BoardView {
    /// The board id (its table).
    pub board: String,
    /// Its service is connected to the broker (its status says `online`).
    pub online: bool,
    /// Offline, or silent for longer than the hall's orphan time: someone should look.
    pub orphan: bool,
    /// Seconds since the board was last heard from.
    pub silent_s: u64,
    /// The board's own page, when it says where it is.
    pub url: Option<String>,
    /// smartgoban's version on the board.
    pub version: Option<String>,
    /// The game the board's status names (players, komi, round, result), live.
    #[schema(value_type = Object)]
    pub game: Option<serde_json::Value>,
    /// The `seq` of the last event in `state`.
    pub seq: u64,
    /// The board's `GET /api/v1/state` (schema `StateView` of the board's API), as of the
    /// delay for the public.
    #[schema(value_type = Object)]
    pub state: Option<RawJson>,
}

/// One open violation or held ambiguity somewhere in the hall.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct HallViolation {
    /// The board id.
    pub board: String,
    /// The board's own page.
    pub url: Option<String>,
    /// The board's violation (its `StateView.violations` item), or for a board held for the
    /// referee `{"code": "ambiguous", …}` with the board's `held`.
    #[schema(value_type = Object)]
    pub violation: serde_json::Value,
}

/// Delivery latency from a board's feed to the hall, ms (boards and hall on one clock).
#[derive(Clone, Debug, Default, Serialize, utoipa::ToSchema)]
pub struct Latency {
    /// Events measured (the newest 100,000).
    pub count: usize,
    /// Median, ms.
    pub p50_ms: Option<u64>,
    /// 99th percentile, ms.
    pub p99_ms: Option<u64>,
    /// Largest, ms.
    pub max_ms: Option<u64>,
}

impl Hall {
    /// An empty hall.
    pub fn new(config: HallConfig) -> Self {
        Hall {
            config,
            boards: BTreeMap::new(),
            games: BTreeMap::new(),
            pairings: Vec::new(),
            feed: VecDeque::new(),
            feed_bytes: 0,
            feed_bytes_kept: FEED_BYTES_KEPT,
            next_id: 1,
            latencies: VecDeque::new(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &HallConfig {
        &self.config
    }

    /// Sets the public delay, ms.
    pub fn set_delay_ms(&mut self, delay_ms: u64) {
        self.config.delay_ms = delay_ms;
    }

    /// Takes in a message of `topic` that arrived at `now_ms` (ms since the Unix epoch).
    /// `published_ms`: the event's `published_ms` user property (the latency's start).
    pub fn apply(
        &mut self,
        topic: &str,
        payload: &[u8],
        published_ms: Option<u64>,
        now_ms: u64,
    ) -> Applied {
        let Some((board, kind)) = parse_board_topic(&self.config.hall, topic) else {
            return Applied::Ignored(format!("not a board topic of hall {}", self.config.hall));
        };
        let board = board.to_string();
        // An empty retained message clears the topic: a board taken out of the hall, a game
        // deleted.
        if payload.is_empty() {
            match kind {
                BoardTopic::Status => {
                    self.boards.remove(&board);
                }
                BoardTopic::Game(key) => {
                    self.games.remove(&(board, key));
                }
                _ => return Applied::Ignored("empty".into()),
            }
            return Applied::Board;
        }
        let limit = match kind {
            BoardTopic::Events => MAX_EVENT_BYTES,
            BoardTopic::State => MAX_STATE_BYTES,
            BoardTopic::Sgf => MAX_SGF_BYTES,
            _ => MAX_SMALL_BYTES,
        };
        if payload.len() > limit {
            return Applied::Ignored(format!(
                "{} bytes, more than the {limit} the hall takes on this topic",
                payload.len()
            ));
        }
        let delay = self.config.delay_ms;
        let ignored = |what: &str, e: serde_json::Error| Applied::Ignored(format!("{what}: {e}"));
        // read first: a message that is not one of a board's makes no board
        let message = match kind {
            BoardTopic::Status => match serde_json::from_slice::<Status>(payload) {
                Ok(mut s) => {
                    // the page links to it: a web address or nothing
                    s.url = s.url.filter(|u| is_web_url(u));
                    Message::Status(s)
                }
                Err(e) => return ignored("status", e),
            },
            BoardTopic::State => {
                /// `…/state` as the hall reads it: `state` stays text.
                #[derive(serde::Deserialize)]
                struct StateText<'a> {
                    seq: u64,
                    #[serde(borrow)]
                    state: &'a serde_json::value::RawValue,
                }
                let m = match serde_json::from_slice::<StateText>(payload) {
                    Ok(m) => m,
                    Err(e) => return ignored("state", e),
                };
                let Some(state) = RawJson::object(m.state.get()) else {
                    return Applied::Ignored("state: `state` is not an object".into());
                };
                Message::State(KeptState { seq: m.seq, state })
            }
            BoardTopic::Sgf => match std::str::from_utf8(payload) {
                Ok(text) if text.trim_start().starts_with('(') => Message::Sgf(Arc::from(text)),
                _ => return Applied::Ignored("sgf: not an SGF record".into()),
            },
            BoardTopic::Game(key) => match serde_json::from_slice::<GameSummary>(payload) {
                Ok(g) => Message::Game(key, g),
                Err(e) => return ignored("game", e),
            },
            BoardTopic::Events => {
                let event: serde_json::Value = match serde_json::from_slice(payload) {
                    Ok(v) => v,
                    Err(e) => return ignored("event", e),
                };
                let Some(seq) = event.get("seq").and_then(serde_json::Value::as_u64) else {
                    return Applied::Ignored("event without a seq".into());
                };
                if seq == 0 || seq > MAX_SEQ {
                    return Applied::Ignored(format!("event seq {seq}: not a feed's seq"));
                }
                Message::Event(seq, event)
            }
            BoardTopic::Cmd => return Applied::Ignored("a command".into()),
        };
        if let Message::Game(key, g) = message {
            if self.games.len() >= MAX_GAMES && !self.games.contains_key(&(board.clone(), key)) {
                return Applied::Ignored(format!("more than {MAX_GAMES} finished games"));
            }
            // due for the public by the hall's clock: a board whose clock runs ahead does not
            // hide its games
            let due_ms = (g.unix_ms.max(0) as u64).min(now_ms);
            self.games.insert((board, key), (due_ms, Arc::new(g)));
            return Applied::Board;
        }
        if !self.boards.contains_key(&board) && self.boards.len() >= MAX_BOARDS {
            return Applied::Ignored(format!("more than {MAX_BOARDS} boards"));
        }
        let entry = self
            .boards
            .entry(board.clone())
            .or_insert_with(|| BoardEntry {
                status: None,
                state: Delayed::new(STATE_BYTES_KEPT),
                sgf: Delayed::new(SGF_BYTES_KEPT),
                last_seq: 0,
                last_seq_ms: 0,
                heard_ms: now_ms,
                events: 0,
                duplicates: 0,
            });
        entry.heard_ms = now_ms;
        match message {
            Message::Status(s) => {
                entry.status = Some(s);
                Applied::Board
            }
            Message::State(s) => {
                // A state says which seq the board has reached. It may lag the events sent
                // between its snapshot and its delivery, but not by much or for long: the
                // hall's last seq far ahead of it, or still ahead of a state that came
                // seconds later, is a restarted feed or a forged event.
                let far_ahead = entry.last_seq > s.seq.saturating_add(SEQ_AHEAD_OF_STATE);
                let stale = entry.last_seq > s.seq
                    && now_ms.saturating_sub(entry.last_seq_ms) >= STATE_LAG_MS;
                if far_ahead || stale {
                    tracing::warn!(
                        "hall: board {board}'s state is at seq {} but an event had {}: its feed restarted, or the event was forged; taking its events from {} on",
                        s.seq,
                        entry.last_seq,
                        s.seq + 1
                    );
                    entry.last_seq = s.seq;
                }
                entry
                    .state
                    .push_state(now_ms, Arc::new(s), delay, CLOCK_STATE_EVERY_MS);
                Applied::Board
            }
            Message::Sgf(text) => {
                entry.sgf.push(now_ms, text, delay);
                Applied::Board
            }
            Message::Event(seq, event) => {
                if seq <= entry.last_seq {
                    entry.duplicates += 1;
                    return Applied::Duplicate;
                }
                entry.last_seq = seq;
                entry.last_seq_ms = now_ms;
                entry.events += 1;
                if let Some(p) = published_ms {
                    if self.latencies.len() == LATENCIES_KEPT {
                        self.latencies.pop_front();
                    }
                    self.latencies.push_back(now_ms.saturating_sub(p));
                }
                let id = self.next_id;
                self.next_id += 1;
                let json = serde_json::json!({"board": board, "event": event}).to_string();
                self.feed_bytes += json.len();
                self.feed.push_back(FeedItem {
                    id,
                    at_ms: now_ms,
                    json: Arc::from(json),
                });
                while self.feed.len() > FEED_KEPT || self.feed_bytes > self.feed_bytes_kept {
                    match self.feed.pop_front() {
                        Some(old) => self.feed_bytes -= old.json.len(),
                        None => break,
                    }
                }
                Applied::Event(id)
            }
            Message::Game(..) => Applied::Board,
        }
    }

    fn delay(&self, live: bool) -> u64 {
        if live {
            0
        } else {
            self.config.delay_ms
        }
    }

    /// The grid: every board, by id (numbers in numeric order), as of `now_ms`; `live` for the
    /// referee, else as of the public delay.
    pub fn boards(&self, now_ms: u64, live: bool) -> Vec<BoardView> {
        let delay = self.delay(live);
        let mut v: Vec<BoardView> = self
            .boards
            .iter()
            .map(|(id, b)| {
                let online = b.is_online();
                let silent = now_ms.saturating_sub(b.heard_ms);
                let state = b.state.get(now_ms, delay);
                BoardView {
                    board: id.clone(),
                    online,
                    orphan: !online || silent > self.config.orphan_after_ms,
                    silent_s: silent / 1000,
                    url: b.status.as_ref().and_then(|s| s.url.clone()),
                    version: b.status.as_ref().map(|s| s.version.clone()),
                    // live: the status's; for the public, the delayed state's (the status
                    // would tell a result before its time)
                    game: if live {
                        b.status.as_ref().and_then(|s| s.game.clone())
                    } else {
                        state
                            .and_then(|s| s.state.fields::<GameField>())
                            .and_then(|g| g.game)
                    },
                    seq: state.map_or(0, |s| s.seq),
                    state: state.map(|s| s.state.clone()),
                }
            })
            .collect();
        v.sort_by(|a, b| board_order(&a.board, &b.board));
        v
    }

    /// The boards whose status says `online`, in table order.
    pub fn online(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .boards
            .iter()
            .filter(|(_, b)| b.is_online())
            .map(|(id, _)| id.clone())
            .collect();
        v.sort_by(|a, b| board_order(a, b));
        v
    }

    /// The boards that are orphans at `now_ms` (offline or silent too long).
    pub fn orphans(&self, now_ms: u64) -> Vec<String> {
        self.boards(now_ms, true)
            .into_iter()
            .filter(|b| b.orphan)
            .map(|b| b.board)
            .collect()
    }

    /// Every open violation and held ambiguity in the hall, live (for the chief referee).
    pub fn violations(&self, now_ms: u64) -> Vec<HallViolation> {
        /// The fields of a board's state the list reads.
        #[derive(serde::Deserialize)]
        struct Open {
            #[serde(default)]
            violations: Vec<serde_json::Value>,
            #[serde(default)]
            held: Option<serde_json::Value>,
        }
        let mut out = Vec::new();
        for b in self.boards(now_ms, true) {
            let Some(open) = b.state.as_ref().and_then(|s| s.fields::<Open>()) else {
                continue;
            };
            for v in open.violations {
                out.push(HallViolation {
                    board: b.board.clone(),
                    url: b.url.clone(),
                    violation: v,
                });
            }
            // a board held for the referee: `held` names its candidates
            if let Some(held) = open
                .held
                .filter(|h| !h.is_null() && h.as_object().is_some())
            {
                out.push(HallViolation {
                    board: b.board.clone(),
                    url: b.url.clone(),
                    violation: serde_json::json!({"code": "ambiguous", "held": held}),
                });
            }
        }
        out
    }

    /// A board's record as of the delay (`live`: now).
    pub fn sgf(&self, board: &str, now_ms: u64, live: bool) -> Option<Arc<str>> {
        let delay = self.delay(live);
        self.boards.get(board)?.sgf.get(now_ms, delay).cloned()
    }

    /// Finished games (the newest summary of each), those older than the delay unless `live`
    /// (older by the hall's clock: when the game ended, or when the hall got it if the
    /// board's clock says later).
    pub fn games(&self, now_ms: u64, live: bool) -> Vec<Arc<GameSummary>> {
        let delay = self.delay(live);
        let mut newest: BTreeMap<GameKey, Arc<GameSummary>> = BTreeMap::new();
        for (due, g) in self.games.values() {
            if due + delay > now_ms {
                continue;
            }
            // a result corrected later is published under a new key: the newest counts
            let k = (
                g.board.clone(),
                g.round.clone(),
                g.black.clone(),
                g.white.clone(),
            );
            match newest.get(&k) {
                Some(old) if old.unix_ms >= g.unix_ms => {}
                _ => {
                    newest.insert(k, g.clone());
                }
            }
        }
        newest.into_values().collect()
    }

    /// One finished game, if it is older than the delay (`live`: any).
    pub fn game(&self, board: &str, key: u64, now_ms: u64, live: bool) -> Option<Arc<GameSummary>> {
        let (due, g) = self.games.get(&(board.to_string(), key))?;
        (due + self.delay(live) <= now_ms).then(|| g.clone())
    }

    /// The R27 table of the finished games ([`results::table`]).
    pub fn results(&self, now_ms: u64, live: bool) -> Vec<results::Standing> {
        let games = self.games(now_ms, live);
        results::table(games.iter().map(|g| g.as_ref()))
    }

    /// The imported pairings.
    pub fn pairings(&self) -> &[Pairing] {
        &self.pairings
    }

    /// Replaces the pairings.
    pub fn set_pairings(&mut self, pairings: Vec<Pairing>) {
        self.pairings = pairings;
    }

    /// Feed events after `after` that are due at `now_ms` (`live`: all), at most `max`; and
    /// when the next one falls due, if one waits for the delay.
    pub fn feed_since(
        &self,
        after: u64,
        now_ms: u64,
        live: bool,
        max: usize,
    ) -> (Vec<FeedItem>, Option<u64>) {
        let delay = self.delay(live);
        let start = self.feed.partition_point(|f| f.id <= after);
        let mut out = Vec::new();
        for f in self.feed.range(start..) {
            if f.at_ms + delay > now_ms {
                return (out, Some(f.at_ms + delay));
            }
            if out.len() == max {
                break;
            }
            out.push(f.clone());
        }
        (out, None)
    }

    /// The id of the newest feed event (0: none).
    pub fn last_feed_id(&self) -> u64 {
        self.next_id - 1
    }

    /// Events taken and duplicates dropped, all boards together.
    pub fn event_counts(&self) -> (u64, u64) {
        self.boards
            .values()
            .fold((0, 0), |(e, d), b| (e + b.events, d + b.duplicates))
    }

    /// Delivery latency of the events measured so far.
    pub fn latency(&self) -> Latency {
        let mut v: Vec<u64> = self.latencies.iter().copied().collect();
        v.sort_unstable();
        let pick = |q: f64| {
            (!v.is_empty()).then(|| v[((v.len() as f64 * q).ceil() as usize).clamp(1, v.len()) - 1])
        };
        Latency {
            count: v.len(),
            p50_ms: pick(0.50),
            p99_ms: pick(0.99),
            max_ms: v.last().copied(),
        }
    }
}

/// `url` is an absolute http(s) address the hall's page may link to: no other scheme
/// (`javascript:`), no spaces, quotes or angle brackets, at most 2,048 bytes.
fn is_web_url(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://"))
        && url.len() <= 2048
        && !url
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || "\"'<>`\\".contains(c))
}

/// The `game` field of a board's state.
#[derive(serde::Deserialize)]
struct GameField {
    #[serde(default)]
    game: Option<serde_json::Value>,
}

/// A game as the results count it: board, round, Black, White.
type GameKey = (String, Option<String>, Option<String>, Option<String>);

/// Board ids in table order: numbers by value, then the rest by name.
fn board_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        _ => a.cmp(b),
    }
}

#[cfg(test)]
mod tests;
