//! [`Connection`]: the serial protocol (hardware/PROTOCOL.md, versions 1 to 4) from the host's
//! side, without I/O: handshake with version fallback, keep-alive, loss detection, the LED
//! frames of version 2, acknowledged and re-sent, and the board's history of version 3 (§14.5):
//! after every handshake the host asks for everything the board saw since its resume point,
//! holds the live scans back meanwhile, pulls the entries (again when they do not come), and
//! hands the session either the history and then the live scans after it
//! ([`LinkEvent::Resumed`]) or, falling back, the link and every live scan
//! ([`LinkEvent::Up`], [`LinkInfo::history`] saying why). In version 4 it asks the board for
//! its sensors' health once the exchange is decided ([`super::health`]).

use std::collections::VecDeque;

use crate::session::{BoardChange, BoardHistory, HistoryStatus, LinkInfo, ResumePoint};
use smartgoban_protocol::calibration::HealthRequest;
use smartgoban_protocol::{
    encode, timing, ChunkStatus, DecodeError, Feed, Frame, FrameDecoder, Hello, HistoryChunk,
    HistoryEvent, HistoryInfo, HistoryOpen, HistoryPull, InfoStatus, LedAck, LedFrame, Message,
    Ping, Scan, CALIBRATION_VERSION, HISTORY_VERSION, LED_VERSION, MAX_FRAME_LEN,
    MIN_PROTOCOL_VERSION, PROTOCOL_VERSION, WINDOW_ENTRIES,
};

/// Link timing (PROTOCOL.md "Timing").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkConfig {
    /// Interval between `Hello`s while waiting for the board, ms.
    pub hello_interval_ms: u64,
    /// A `Ping` is sent when the host has sent nothing else for this long, ms.
    pub ping_after_ms: u64,
    /// The link is declared lost after this long without any valid frame, ms (1 s).
    pub timeout_ms: u64,
    /// An LED frame not acknowledged within this long is sent again, ms (PROTOCOL.md §5.6).
    pub led_resend_ms: u64,
    /// A `HistoryOpen` or `HistoryPull` not answered within this long is sent again, ms
    /// (PROTOCOL.md §14.5: 200 ms).
    pub history_resend_ms: u64,
    /// The most `HistoryOpen`s sent after one handshake (10).
    pub history_max_opens: u32,
    /// `HistoryPull`s in a row without progress after which the host gives up (10).
    pub history_max_stalled_pulls: u32,
    /// The longest the live scans are held back during the history exchange, host ms (60 s).
    pub history_hold_ms: u64,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            hello_interval_ms: u64::from(timing::HELLO_INTERVAL_MS),
            ping_after_ms: u64::from(timing::PING_INTERVAL_MS),
            timeout_ms: u64::from(timing::LINK_TIMEOUT_MS),
            led_resend_ms: u64::from(timing::LED_RESEND_MS),
            history_resend_ms: u64::from(timing::HISTORY_RESEND_MS),
            history_max_opens: timing::HISTORY_MAX_OPENS,
            history_max_stalled_pulls: timing::HISTORY_MAX_STALLED_PULLS,
            history_hold_ms: u64::from(timing::HISTORY_HOLD_MS),
        }
    }
}

/// What the link tells the session.
///
/// In a version-3 session the `Up` or `Resumed` of a handshake comes only once the history
/// exchange is decided (PROTOCOL.md §14.5), and no scan of the session comes before it.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkEvent {
    /// The handshake completed ([`LinkInfo::history`] says whether a history was asked for
    /// and why none follows); every live scan of the session follows.
    Up(LinkInfo),
    /// The handshake completed and the board's history since the host's resume point came
    /// whole (PROTOCOL.md §14): the live scans that follow are those taken after its
    /// `until_ms`.
    Resumed {
        /// The board.
        info: LinkInfo,
        /// What it saw while the host was away.
        history: Box<crate::session::BoardHistory>,
    },
    /// A scan arrived.
    Scan(Scan),
    /// The link went down.
    Down {
        /// Why, for people.
        reason: String,
    },
    /// The board does not speak our protocol version; scans are not processed and the host
    /// waits for the port to be reopened (PROTOCOL.md §4).
    Rejected {
        /// The board's protocol version.
        board_version: u8,
    },
}

/// Counters for metrics (`GET /metrics`): everything that went wrong on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Bytes received.
    pub bytes_in: u64,
    /// Well-formed frames received.
    pub frames_in: u64,
    /// Frames that failed COBS decoding.
    pub cobs_errors: u64,
    /// Frames with a bad CRC.
    pub crc_errors: u64,
    /// Runs of bytes longer than any frame before a delimiter.
    pub too_long: u64,
    /// Other malformed frames (unknown kind, bad length, bad board size, bad padding).
    pub malformed: u64,
    /// Frames missing according to the sequence numbers.
    pub lost_frames: u64,
    /// Completed handshakes: the first connection and every reconnection (the link was down,
    /// or the board restarted by itself), once each — not the answers to the Hellos repeated
    /// while one was under way.
    pub handshakes: u64,
    /// Sessions started on the board: every accepted `HelloAck`, also one answering a Hello
    /// repeated while the board was silent (each starts a new session there, PROTOCOL.md §4).
    /// What a board's own count of its sessions is compared with.
    pub sessions: u64,
    /// Links lost because the board fell silent.
    pub timeouts: u64,
    /// Handshakes refused for a protocol version mismatch.
    pub version_mismatches: u64,
    /// Restarts of the board seen in a session (PROTOCOL.md §4: a restarted board has no
    /// session): no scan for [`LinkConfig::timeout_ms`] while other frames (`Pong`s) still
    /// came, an accepted `HelloAck` no `Hello` asked for, or a `scan_counter` that went back.
    pub board_resets: u64,
    /// Scans received before a handshake (from an earlier session of the board), ignored.
    pub ignored_scans: u64,
    /// LED frames sent, re-sends included.
    pub led_frames_sent: u64,
    /// LED frames sent again (no acknowledgement in time, a new session, a wrong CRC).
    pub led_resends: u64,
    /// LED acknowledgements whose CRC differed from the frame sent (the board holds another
    /// frame than the host asked for).
    pub led_mismatches: u64,
    /// Histories asked for: history exchanges started with a resume point, one per accepted
    /// `HelloAck` of a version-3 session (a handshake repeated during an exchange starts it
    /// again), PROTOCOL.md §14.5.
    pub histories_asked: u64,
    /// Histories received whole and handed to the session ([`LinkEvent::Resumed`]).
    pub histories_replayed: u64,
    /// Histories asked for that did not come (the board restarted, the span was overwritten,
    /// no answer, a broken history): the session judged the board as it lay.
    pub history_fallbacks: u64,
    /// `HistoryPull`s sent again because no chunk brought entries in time (a chunk lost or
    /// corrupted on the wire).
    pub history_repulls: u64,
    /// `HistoryOpen`s sent again because no `HistoryInfo` came in time.
    pub history_reopens: u64,
    /// Gaps in the scans (a `scan_counter` jump: scans the board dropped while the host did
    /// not read, or lost on the wire) filled from the board's history without a new
    /// handshake (PROTOCOL.md §14.7).
    pub gaps_filled: u64,
    /// Gaps in the scans that could not be filled (no history, or it did not come): the
    /// session went on with the scans it had.
    pub gaps_unfilled: u64,
}

/// Where the LED frame asked for with [`Connection::set_leds`] stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LedDelivery {
    /// No frame asked for.
    Idle,
    /// The board speaks version 1 (it has no LED frames, PROTOCOL.md §11), or refused our
    /// version.
    Unsupported,
    /// The board's grid is another size than the frame's: it would ignore the frame.
    WrongSize {
        /// The board's size from its `HelloAck`.
        board: u8,
        /// The frame's size.
        frame: u8,
    },
    /// Sent [`UNACKNOWLEDGED_AFTER`] times or more without a matching acknowledgement (the
    /// board does not answer, or answers with another CRC): still re-sent every
    /// [`LinkConfig::led_resend_ms`].
    Unacknowledged {
        /// The frame's id.
        frame_id: u16,
        /// Times sent in this session.
        sends: u32,
    },
    /// Sent (or waiting for the link), not acknowledged yet.
    Pending {
        /// The frame's id.
        frame_id: u16,
    },
    /// The board acknowledged it with the right CRC: the wood shows it.
    Shown {
        /// The frame's id.
        frame_id: u16,
    },
}

/// Sends of one frame without a matching acknowledgement after which
/// [`Connection::led_delivery`] reports it [`LedDelivery::Unacknowledged`] (2 s at 200 ms).
pub const UNACKNOWLEDGED_AFTER: u32 = 10;

#[derive(Clone, Copy, Debug)]
struct LedState {
    frame: LedFrame,
    /// The board's acknowledgement matched: nothing to send.
    acked: bool,
    /// When the frame was last sent in this session, host ms.
    sent_ms: Option<u64>,
    /// Times sent in this session without a matching acknowledgement.
    sends: u32,
}

/// Where the history exchange of a version-3 session stands (PROTOCOL.md §14.5).
#[derive(Clone, Debug, PartialEq)]
enum HistoryPhase {
    /// Nothing to do: a session below version 3, or the exchange is decided.
    Idle,
    /// `HistoryOpen` sent `opens` times, the next due at `next_ms` (host ms).
    Opening {
        open: HistoryOpen,
        opens: u32,
        next_ms: u64,
    },
    /// The span is open: pulling its entries.
    Pulling(Box<Pulling>),
}

/// The entries of a span coming in (PROTOCOL.md §14.5).
#[derive(Clone, Debug, PartialEq)]
struct Pulling {
    info: HistoryInfo,
    /// The first entry the host does not have.
    next: u32,
    /// `from_entry` of the last pull.
    pull_from: u32,
    /// Pulls since the last chunk that brought entries.
    stalled: u32,
    /// When to pull again, host ms: 200 ms after the last pull or the last chunk that brought
    /// entries.
    due_ms: u64,
    /// Every point's reading after the entries so far: each point entry's `from` must match.
    readings: Vec<smartgoban_protocol::Cell>,
    changes: Vec<BoardChange>,
    readings_changed: u32,
    presses: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// No port open.
    Closed,
    /// Port open, waiting for HelloAck; next Hello due at the time given.
    Handshaking { next_hello_ms: u64 },
    /// Handshake done, in this protocol version.
    Up { version: u8 },
    /// The board refused our version: nothing more until the port is reopened.
    Rejected,
}

/// The host side of protocol v1 as a state machine.
///
/// Call [`Connection::on_open`] when the port opens, [`Connection::handle_bytes`] with what
/// it reads, [`Connection::handle_timeout`] when [`Connection::poll_timeout`] is due, and
/// [`Connection::on_close`] when the port fails; write whatever
/// [`Connection::poll_transmit`] yields and hand [`Connection::poll_event`]s to the session.
/// Times are host milliseconds. Decoding never panics; bad bytes are counted in
/// [`LinkStats`] and the decoder resyncs on the next frame delimiter.
#[derive(Debug)]
pub struct Connection {
    config: LinkConfig,
    decoder: FrameDecoder,
    state: State,
    tx_seq: u8,
    rx_seq: Option<u8>,
    last_rx_ms: u64,
    ping_nonce: u32,
    last_tx_ms: u64,
    transmit: VecDeque<Vec<u8>>,
    events: VecDeque<LinkEvent>,
    stats: LinkStats,
    /// The version offered in the next `Hello`: ours, or the board's older one it told us.
    hello_version: u8,
    leds: Option<LedState>,
    /// The board's grid size, from its last `HelloAck`.
    board_size: Option<u8>,
    /// Where the session's knowledge of the board's scans ends: what a version-3 session asks
    /// the board's history from (PROTOCOL.md §14).
    resume: Option<ResumePoint>,
    /// The board of the session, from its last accepted `HelloAck`.
    info: Option<LinkInfo>,
    /// When the session started or its last scan arrived, host ms.
    last_scan_ms: u64,
    /// The `scan_counter` of the session's last scan.
    last_scan_counter: Option<u32>,
    /// `Hello`s sent since the port opened that no `HelloAck` has answered yet.
    hellos_unanswered: u32,
    /// The history exchange of the session (version 3).
    phase: HistoryPhase,
    /// When the oldest scan still held back was held (the `HelloAck` that started the
    /// exchange), host ms.
    pending_since: Option<u64>,
    /// Live scans of the current session held back during the exchange.
    held: Vec<Scan>,
    /// The `scan_counter` of the scan handed on just before `held` (a gap's exchange), to
    /// tell a jump at `held[0]`.
    held_after_counter: Option<u32>,
    /// The exchange under way fills a gap in the scans of a session already decided
    /// (PROTOCOL.md §14.7): the session is not told of the link again.
    filling_gap: bool,
    /// The board time of the last scan the session has of this session of the board: the
    /// last scan handed on, or the end of the history replayed (what a gap is filled from).
    handed_ms: Option<u32>,
    /// The board's boot in this session, once the exchange decided it.
    session_boot: Option<u32>,
    /// A gap's exchange found no history in this session: gaps are not asked for again until
    /// the next handshake.
    gaps_unanswered: bool,
    /// Scans held back in earlier sessions whose exchange a new handshake or a lost link cut
    /// short, with their boards: covered by a history of the same boot, else handed on, each
    /// after its own `Up`, when the exchange is decided.
    interrupted: Vec<(LinkInfo, Vec<Scan>)>,
    /// The session was told the link is up (an `Up` or `Resumed` not followed by a `Down`).
    announced: bool,
    /// Asking a version-4 board for its sensors' health (PROTOCOL.md §5.17).
    health: super::health::HealthAsk,
}

impl Connection {
    /// A connection with no port open.
    pub fn new(config: LinkConfig) -> Self {
        Connection {
            config,
            decoder: FrameDecoder::new(),
            state: State::Closed,
            tx_seq: 0,
            rx_seq: None,
            last_rx_ms: 0,
            ping_nonce: 0,
            last_tx_ms: 0,
            transmit: VecDeque::new(),
            events: VecDeque::new(),
            stats: LinkStats::default(),
            hello_version: PROTOCOL_VERSION,
            leds: None,
            board_size: None,
            resume: None,
            info: None,
            last_scan_ms: 0,
            last_scan_counter: None,
            hellos_unanswered: 0,
            phase: HistoryPhase::Idle,
            pending_since: None,
            held: Vec::new(),
            held_after_counter: None,
            filling_gap: false,
            handed_ms: None,
            session_boot: None,
            gaps_unanswered: false,
            interrupted: Vec::new(),
            announced: false,
            health: Default::default(),
        }
    }

    /// Whether the handshake is done and scans flow (in a version-3 session, possibly still held
    /// back during the history exchange: [`Connection::history_pending`]).
    pub fn is_up(&self) -> bool {
        matches!(self.state, State::Up { .. })
    }

    /// Whether the history exchange of a version-3 session is under way (PROTOCOL.md §14.5):
    /// the live scans are held back until it is decided.
    pub fn history_pending(&self) -> bool {
        self.phase != HistoryPhase::Idle
    }

    /// The protocol version of the session, once the handshake is done.
    pub fn version(&self) -> Option<u8> {
        match self.state {
            State::Up { version } => Some(version),
            _ => None,
        }
    }

    /// Asks the board to show `frame` (protocol version 2, PROTOCOL.md §5.6). The host gives
    /// it the next `frame_id` when its content differs from the frame asked for before (the
    /// `frame_id` given is ignored), sends it as soon as the link is up, sends it again every
    /// [`LinkConfig::led_resend_ms`] until the board acknowledges it with the right CRC, and
    /// again after every new handshake. Asking for the same content again changes nothing.
    pub fn set_leds(&mut self, mut frame: LedFrame, now_ms: u64) {
        if let Some(current) = &self.leds {
            if current.frame.palette == frame.palette && current.frame.cells == frame.cells {
                return;
            }
            frame.frame_id = current.frame.frame_id.wrapping_add(1);
        } else {
            frame.frame_id = 0;
        }
        self.leds = Some(LedState {
            frame,
            acked: false,
            sent_ms: None,
            sends: 0,
        });
        self.send_leds(now_ms);
    }

    /// Where the last frame asked for stands.
    pub fn led_delivery(&self) -> LedDelivery {
        let Some(l) = &self.leds else {
            return LedDelivery::Idle;
        };
        let frame_id = l.frame.frame_id;
        let frame_size = l.frame.board_size().get();
        match self.state {
            State::Up { version: 1 } | State::Rejected => LedDelivery::Unsupported,
            _ if self.board_size.is_some_and(|b| b != frame_size) => LedDelivery::WrongSize {
                board: self.board_size.unwrap_or(0),
                frame: frame_size,
            },
            _ if l.acked => LedDelivery::Shown { frame_id },
            _ if l.sends >= UNACKNOWLEDGED_AFTER => LedDelivery::Unacknowledged {
                frame_id,
                sends: l.sends,
            },
            _ => LedDelivery::Pending { frame_id },
        }
    }

    /// Sends the LED frame if the session has LED frames and it is not acknowledged and not
    /// sent within the re-send interval.
    fn send_leds(&mut self, now_ms: u64) {
        if self.version().is_none_or(|v| v < LED_VERSION) {
            return;
        }
        let resend_ms = self.config.led_resend_ms;
        let board_size = self.board_size;
        let Some(leds) = &mut self.leds else {
            return;
        };
        if leds.acked || leds.sent_ms.is_some_and(|t| now_ms < t + resend_ms) {
            return;
        }
        // The board ignores a frame of another size (PROTOCOL.md §5.6): do not flood it.
        if board_size.is_some_and(|b| b != leds.frame.board_size().get()) {
            return;
        }
        if leds.sent_ms.is_some() {
            self.stats.led_resends += 1;
        }
        leds.sent_ms = Some(now_ms);
        leds.sends = leds.sends.saturating_add(1);
        let frame = leds.frame;
        self.stats.led_frames_sent += 1;
        self.queue(Message::LedFrame(frame), now_ms);
    }

    fn on_led_ack(&mut self, ack: LedAck, now_ms: u64) {
        let Some(leds) = &mut self.leds else {
            return;
        };
        if ack.frame_id != leds.frame.frame_id {
            return; // an older frame's answer; ours is on its way
        }
        if ack.content_crc == leds.frame.content_crc() {
            leds.acked = true;
            leds.sends = 0;
        } else {
            // The board holds another frame than ours: send it again, but never faster than
            // the re-send interval, however many wrong answers come (PROTOCOL.md §5.7).
            self.stats.led_mismatches += 1;
            leds.acked = false;
            self.send_leds(now_ms);
        }
    }

    /// Sets where the session's knowledge of the board's scans ends (call it whenever the
    /// session took in scans: [`crate::session::Session::resume_point`]): after the next
    /// handshake of a version-3 session the board is asked for its history from there
    /// (PROTOCOL.md §14).
    pub fn set_resume_point(&mut self, resume: Option<ResumePoint>) {
        self.resume = resume;
    }

    /// The board's last report of its sensors' health (version 4, PROTOCOL.md §5.18), kept
    /// through reconnections until a new one replaces it.
    pub fn sensor_health(&self) -> Option<&smartgoban_protocol::calibration::SensorHealth> {
        self.health.report()
    }

    /// Counters.
    pub fn stats(&self) -> LinkStats {
        self.stats
    }

    /// The port has just been opened: start the handshake.
    pub fn on_open(&mut self, now_ms: u64) {
        self.decoder = FrameDecoder::new();
        self.rx_seq = None;
        self.last_rx_ms = now_ms;
        self.hello_version = PROTOCOL_VERSION;
        self.hellos_unanswered = 0;
        self.interrupt_history();
        // A lone delimiter first ends whatever half frame the board may be holding.
        self.transmit.push_back(vec![0]);
        self.send_hello(now_ms);
    }

    /// The port failed or was closed.
    pub fn on_close(&mut self, reason: &str) {
        self.interrupt_history(); // a gap's held scans go on first
        if std::mem::take(&mut self.announced) {
            self.events.push_back(LinkEvent::Down {
                reason: reason.to_string(),
            });
        }
        self.state = State::Closed;
        self.transmit.clear();
    }

    /// Bytes read from the port at `now_ms`.
    pub fn handle_bytes(&mut self, mut bytes: &[u8], now_ms: u64) {
        self.stats.bytes_in += bytes.len() as u64;
        loop {
            match self.decoder.feed(bytes) {
                Feed::NeedMore => return,
                Feed::Frame { frame, rest } => {
                    bytes = rest;
                    self.handle_frame(frame, now_ms);
                }
                Feed::Error { error, rest } => {
                    bytes = rest;
                    self.count_error(&error);
                }
            }
        }
    }

    fn count_error(&mut self, error: &DecodeError) {
        match error {
            DecodeError::Cobs => self.stats.cobs_errors += 1,
            DecodeError::Crc { .. } => self.stats.crc_errors += 1,
            DecodeError::TooLong => self.stats.too_long += 1,
            _ => self.stats.malformed += 1,
        }
    }

    fn handle_frame(&mut self, frame: Frame, now_ms: u64) {
        self.stats.frames_in += 1;
        if self.state == State::Closed {
            return;
        }
        self.last_rx_ms = now_ms;
        if let Some(prev) = self.rx_seq {
            let gap = frame.seq.wrapping_sub(prev).wrapping_sub(1);
            // A big jump is a restarted board, not 200 lost frames.
            if gap < 128 {
                self.stats.lost_frames += u64::from(gap);
            }
        }
        self.rx_seq = Some(frame.seq);
        match frame.message {
            Message::HelloAck(ack) => {
                if self.state == State::Rejected {
                    return; // nothing until the port is reopened (PROTOCOL.md §4)
                }
                let unasked = self.hellos_unanswered == 0;
                self.hellos_unanswered = self.hellos_unanswered.saturating_sub(1);
                // Every accepted HelloAck starts a new session on the board, even one that
                // answers a repeated Hello: the host restarts too (PROTOCOL.md §4).
                if ack.accepted {
                    let reset = unasked && self.is_up();
                    if reset {
                        // No Hello of ours asked for it: the board restarted by itself.
                        self.stats.board_resets += 1;
                    }
                    if reset || !self.is_up() {
                        self.stats.handshakes += 1;
                    }
                    self.stats.sessions += 1;
                    let info = LinkInfo {
                        board_size: ack.board_size.get(),
                        firmware_version: ack.firmware_version,
                        device_id: ack.device_id,
                        scan_rate_hz: ack.scan_rate_hz,
                        protocol_version: self.hello_version,
                        ..LinkInfo::default()
                    };
                    self.start_session(info, self.hello_version, now_ms);
                } else if ack.protocol_version >= MIN_PROTOCOL_VERSION
                    && ack.protocol_version < self.hello_version
                {
                    // An older board: speak its version (no LED frames in version 1, §11).
                    self.hello_version = ack.protocol_version;
                    if !self.is_up() {
                        self.send_hello(now_ms);
                    }
                } else if ack.protocol_version == self.hello_version
                    && self.hello_version < PROTOCOL_VERSION
                {
                    // The answer to one of our earlier Hellos of a higher version, crossing the
                    // Hello in the board's version we already sent (§4): nothing new.
                } else {
                    self.stats.version_mismatches += 1;
                    self.state = State::Rejected;
                    self.events.push_back(LinkEvent::Rejected {
                        board_version: ack.protocol_version,
                    });
                }
            }
            Message::Scan(scan) => match (self.state, self.info) {
                (State::Up { version }, Some(info)) => {
                    // A counter that goes back is a board that restarted and streams without
                    // a HelloAck (or whose HelloAck was lost): its counters start from 0, so
                    // the session restarts too, or the button counters would read as 255
                    // presses (PROTOCOL.md §4, §7).
                    let back = self
                        .last_scan_counter
                        .is_some_and(|prev| scan.scan_counter.wrapping_sub(prev) >= 1 << 31);
                    if back {
                        self.stats.board_resets += 1;
                        self.start_session(info, version, now_ms);
                    }
                    let jump = self
                        .last_scan_counter
                        .is_some_and(|prev| counter_jump(prev, scan.scan_counter));
                    let prev_counter = self.last_scan_counter;
                    self.last_scan_counter = Some(scan.scan_counter);
                    self.last_scan_ms = now_ms;
                    if jump && self.phase == HistoryPhase::Idle {
                        // scans missed: filled from the board's history if it has them,
                        // this scan held back with the ones after it (§14.7)
                        self.fill_gap(prev_counter, now_ms);
                    }
                    if self.phase == HistoryPhase::Idle {
                        self.hand_on(scan);
                    } else {
                        // The history exchange is under way: held back (PROTOCOL.md §14.5).
                        self.held.push(scan);
                        self.check_hold(now_ms);
                    }
                }
                _ => self.stats.ignored_scans += 1,
            },
            Message::LedAck(ack) => self.on_led_ack(ack, now_ms),
            Message::HistoryInfo(info) => self.on_history_info(info, now_ms),
            Message::HistoryChunk(chunk) => self.on_history_chunk(&chunk, now_ms),
            Message::Pong(_)
            | Message::Hello(_)
            | Message::Ping(_)
            | Message::LedFrame(_)
            | Message::HistoryOpen(_)
            | Message::HistoryPull(_)
            | Message::RawRequest(_)
            | Message::RawReadings(_)
            | Message::CalibrationData(_)
            | Message::CalibrationCommit(_)
            | Message::CalibrationAck(_)
            | Message::HealthRequest(_) => {}
            Message::SensorHealth(report) => {
                self.health.on_report(report, self.board_size);
            }
        }
    }

    /// A session starts (or starts again) with the board `info` in protocol `version`: scans
    /// are counted from here, and the LED frame goes again (a new session shows nothing until
    /// told, PROTOCOL.md §5.6). In version 3 the history exchange starts (PROTOCOL.md §14.5):
    /// the session hears of the link once it is decided; before, it is told at once.
    fn start_session(&mut self, info: LinkInfo, version: u8, now_ms: u64) {
        self.interrupt_history();
        self.board_size = Some(info.board_size);
        self.info = Some(info);
        self.state = State::Up { version };
        self.last_scan_ms = now_ms;
        self.last_scan_counter = None;
        self.handed_ms = None;
        self.session_boot = None;
        self.gaps_unanswered = false;
        if version >= CALIBRATION_VERSION {
            self.health.start(now_ms);
        } else {
            self.health.stop();
        }
        if version >= HISTORY_VERSION {
            let open = match self.resume {
                Some(r) if r.boot_id != 0 => {
                    self.stats.histories_asked += 1;
                    HistoryOpen {
                        boot_id: r.boot_id,
                        since_ms: r.since_ms,
                    }
                }
                _ => HistoryOpen {
                    boot_id: 0,
                    since_ms: 0,
                },
            };
            self.phase = HistoryPhase::Opening {
                open,
                opens: 0,
                next_ms: now_ms,
            };
            self.pending_since.get_or_insert(now_ms);
            self.send_open(now_ms);
        } else {
            self.hand_on_interrupted(HistoryStatus::NotAsked, None);
            self.announced = true;
            self.events.push_back(LinkEvent::Up(info));
        }
        if let Some(leds) = &mut self.leds {
            leds.acked = false;
            leds.sent_ms = None;
            leds.sends = 0;
        }
        self.send_leds(now_ms);
    }

    /// How long a session may go without a scan before the board counts as restarted, ms:
    /// the link timeout, or two scan periods for a board slower than 2 scans/s; `None` for a
    /// board that announced no scans.
    /// Whether a frame came well after the last scan (half a ping interval): the board
    /// answers without scanning. A frame just after it — an acknowledgement sent as the link
    /// fell silent — is no answer.
    fn answered_since_last_scan(&self) -> bool {
        self.last_rx_ms >= self.last_scan_ms + self.config.ping_after_ms / 2
    }

    fn scan_timeout_ms(&self) -> Option<u64> {
        let rate = u64::from(self.info?.scan_rate_hz);
        (rate > 0).then(|| self.config.timeout_ms.max(2000 / rate))
    }

    /// The link is lost: tell the session (if it was told the link is up) and start the
    /// handshake again; a history exchange under way starts over at the next handshake.
    fn lose(&mut self, reason: String, now_ms: u64) {
        self.interrupt_history(); // a gap's held scans go on first: they came before the loss
        if std::mem::take(&mut self.announced) {
            self.events.push_back(LinkEvent::Down { reason });
        }
        self.rx_seq = None;
        self.send_hello(now_ms);
    }

    /// The session of the exchange under way is over (a new handshake, a lost link): the
    /// exchange ends undecided and its held-back scans wait with the board they came from; the
    /// next exchange decides what becomes of them.
    fn interrupt_history(&mut self) {
        if self.phase == HistoryPhase::Idle {
            return;
        }
        self.phase = HistoryPhase::Idle;
        self.held_after_counter = None;
        if std::mem::take(&mut self.filling_gap) {
            // a gap of a session already decided: its held scans are live scans of that
            // session, handed on now (the gap stays)
            self.stats.gaps_unfilled += 1;
            self.pending_since = None;
            for scan in std::mem::take(&mut self.held) {
                self.hand_on(scan);
            }
            return;
        }
        let held = std::mem::take(&mut self.held);
        if let (false, Some(info)) = (held.is_empty(), self.info) {
            self.interrupted.push((info, held));
        }
        if self.interrupted.is_empty() {
            self.pending_since = None; // nothing waits: the next exchange holds from its start
        }
    }

    /// The scans of interrupted exchanges are not covered by a history: each session's go to
    /// the session after its own `Up`, as in version 2 (PROTOCOL.md §14.5 step 7), with the
    /// status and boot of the exchange that decided (a repeated handshake is no news; and the
    /// resume point the session derives is the decided session's once its scans follow).
    fn hand_on_interrupted(&mut self, status: HistoryStatus, boot_id: Option<u32>) {
        for (mut info, scans) in std::mem::take(&mut self.interrupted) {
            info.boot_id = boot_id;
            info.history = status;
            self.announced = true;
            self.events.push_back(LinkEvent::Up(info));
            self.events.extend(scans.into_iter().map(LinkEvent::Scan));
        }
        self.pending_since = None;
    }

    /// Sends the phase's `HistoryOpen` (again), PROTOCOL.md §14.5 step 1.
    fn send_open(&mut self, now_ms: u64) {
        let resend_ms = self.config.history_resend_ms;
        let HistoryPhase::Opening {
            open,
            opens,
            next_ms,
        } = &mut self.phase
        else {
            return;
        };
        if *opens > 0 {
            self.stats.history_reopens += 1;
        }
        *opens += 1;
        *next_ms = now_ms + resend_ms;
        let open = *open;
        self.queue(Message::HistoryOpen(open), now_ms);
    }

    /// Sends a `HistoryPull` from the first missing entry, PROTOCOL.md §14.5 step 4.
    fn send_pull(&mut self, now_ms: u64) {
        let resend_ms = self.config.history_resend_ms;
        let HistoryPhase::Pulling(p) = &mut self.phase else {
            return;
        };
        p.pull_from = p.next;
        p.stalled += 1;
        p.due_ms = now_ms + resend_ms;
        let pull = HistoryPull {
            since_ms: p.info.since_ms,
            from_entry: p.next,
        };
        self.queue(Message::HistoryPull(pull), now_ms);
    }

    /// Live scans held back for longer than the limit: give up (PROTOCOL.md §14.5 step 2).
    fn check_hold(&mut self, now_ms: u64) {
        if self.phase != HistoryPhase::Idle
            && self
                .pending_since
                .is_some_and(|t| now_ms.saturating_sub(t) >= self.config.history_hold_ms)
        {
            self.fall_back(
                HistoryStatus::NoAnswer,
                None,
                "the history exchange held the live scans back too long",
            );
        }
    }

    /// The answer to our `HistoryOpen` (PROTOCOL.md §14.5 step 3).
    fn on_history_info(&mut self, info: HistoryInfo, now_ms: u64) {
        let HistoryPhase::Opening { open, .. } = self.phase else {
            return; // an answer to an earlier Open, or no exchange under way
        };
        if info.since_ms != open.since_ms {
            return;
        }
        let boot = Some(info.boot_id);
        match info.status {
            InfoStatus::NotAsked => self.fall_back(HistoryStatus::NotAsked, boot, ""),
            _ if open.boot_id == 0 => self.fall_back(HistoryStatus::NotAsked, boot, ""),
            InfoStatus::OtherBoot => self.fall_back(
                HistoryStatus::BoardRestarted {
                    known_boot: open.boot_id,
                },
                boot,
                "the board restarted since the last scan processed",
            ),
            InfoStatus::Lost => self.fall_back(
                HistoryStatus::Lost {
                    oldest_ms: info.oldest_ms,
                },
                boot,
                "the board no longer holds the span asked for",
            ),
            InfoStatus::Ok if info.boot_id != open.boot_id => self.fall_back(
                HistoryStatus::BoardRestarted {
                    known_boot: open.boot_id,
                },
                boot,
                "the board answered for another boot",
            ),
            InfoStatus::Ok if Some(info.board_size().get()) != self.board_size => self.fall_back(
                HistoryStatus::NoAnswer,
                boot,
                "the board's history is of another board size",
            ),
            InfoStatus::Ok => {
                self.phase = HistoryPhase::Pulling(Box::new(Pulling {
                    readings: info.base.iter().collect(),
                    info,
                    next: 0,
                    pull_from: 0,
                    stalled: 0,
                    due_ms: now_ms,
                    changes: Vec::new(),
                    readings_changed: 0,
                    presses: 0,
                }));
                if info.entries == 0 {
                    self.finish_history();
                } else {
                    self.send_pull(now_ms);
                }
            }
        }
    }

    /// A chunk of the span being pulled (PROTOCOL.md §14.5 steps 4 and 5).
    fn on_history_chunk(&mut self, chunk: &HistoryChunk, now_ms: u64) {
        let resend_ms = self.config.history_resend_ms;
        let HistoryPhase::Pulling(p) = &mut self.phase else {
            return;
        };
        if chunk.since_ms != p.info.since_ms {
            return;
        }
        let boot = Some(p.info.boot_id);
        match take_chunk(p, chunk) {
            Taken::Nothing => {}
            Taken::Broken => self.fall_back(
                HistoryStatus::NoAnswer,
                boot,
                "the board's history is broken (an entry out of its span or not matching the readings)",
            ),
            Taken::NoSpan => self.fall_back(
                HistoryStatus::NoAnswer,
                boot,
                "the board no longer has the span open",
            ),
            Taken::Lost { oldest_ms } => self.fall_back(
                HistoryStatus::Lost { oldest_ms },
                boot,
                "the board overwrote the span while it was being sent",
            ),
            Taken::Entries => {
                p.stalled = 0;
                p.due_ms = now_ms + resend_ms;
                if p.next >= p.info.entries {
                    self.finish_history();
                } else if p.next >= p.pull_from.saturating_add(WINDOW_ENTRIES as u32) {
                    self.send_pull(now_ms); // the window is in: the next one
                }
            }
        }
    }

    /// Every entry is in: the session gets the history, then the live scans after it
    /// (PROTOCOL.md §14.5 step 6).
    fn finish_history(&mut self) {
        let HistoryPhase::Pulling(p) = std::mem::replace(&mut self.phase, HistoryPhase::Idle)
        else {
            return;
        };
        let Some(mut info) = self.info else {
            return;
        };
        let p = *p;
        let gap = std::mem::take(&mut self.filling_gap);
        if gap {
            self.stats.gaps_filled += 1;
        }
        self.session_boot = Some(p.info.boot_id);
        info.boot_id = Some(p.info.boot_id);
        info.history = HistoryStatus::Replayed {
            changes: p.readings_changed,
            presses: p.presses,
        };
        let (since, until) = (p.info.since_ms, p.info.until_ms);
        let history = BoardHistory {
            boot_id: p.info.boot_id,
            since_ms: since,
            until_ms: until,
            base: p.info.base.iter().collect(),
            changes: p.changes,
            live_buttons: p.info.buttons,
            gap,
        };
        self.stats.histories_replayed += 1;
        // Scans of interrupted exchanges: of this boot, after `since_ms` and before the Open,
        // so in the history.
        self.interrupted.clear();
        self.pending_since = None;
        self.announced = true;
        self.events.push_back(LinkEvent::Resumed {
            info,
            history: Box::new(history),
        });
        self.handed_ms = Some(until);
        // The live scans at or before `until_ms` are in the history; a gap among those after
        // it is filled in turn (§14.7).
        let span = until.wrapping_sub(since);
        let mut prev = self.held_after_counter.take();
        let mut held = std::mem::take(&mut self.held).into_iter();
        while let Some(scan) = held.next() {
            let jump = prev.is_some_and(|p| counter_jump(p, scan.scan_counter));
            let before = prev;
            prev = Some(scan.scan_counter);
            let d = scan.board_ms.wrapping_sub(since);
            if d == 0 || d <= span || d >= 1 << 31 {
                continue;
            }
            if jump && self.fill_gap(before, self.last_rx_ms) {
                self.held.push(scan);
                self.held.extend(held);
                return;
            }
            self.hand_on(scan);
        }
    }

    /// Hands a live scan of the session on to the session.
    fn hand_on(&mut self, scan: Scan) {
        self.handed_ms = Some(scan.board_ms);
        self.events.push_back(LinkEvent::Scan(scan));
    }

    /// Scans are missing before the one just received, after one of `counter` (PROTOCOL.md
    /// §14.7): in a version-3 session whose board's boot is known, asks the board for its
    /// history since the last scan handed on, holding the live scans back meanwhile, without a
    /// new handshake. Whether an exchange started; the caller holds the scan back if so.
    fn fill_gap(&mut self, counter: Option<u32>, now_ms: u64) -> bool {
        let (Some(boot_id), Some(since_ms), State::Up { version }) =
            (self.session_boot, self.handed_ms, self.state)
        else {
            self.stats.gaps_unfilled += 1;
            return false;
        };
        if version < HISTORY_VERSION || boot_id == 0 || self.gaps_unanswered {
            self.stats.gaps_unfilled += 1;
            return false;
        }
        tracing::info!(
            "scans missed after the one at board time {since_ms} ms: filling the gap from the board's history"
        );
        self.filling_gap = true;
        self.held_after_counter = counter;
        self.stats.histories_asked += 1;
        self.phase = HistoryPhase::Opening {
            open: HistoryOpen { boot_id, since_ms },
            opens: 0,
            next_ms: now_ms,
        };
        self.pending_since.get_or_insert(now_ms);
        self.send_open(now_ms);
        true
    }

    /// The history will not be replayed: the session gets the link with `status` and every
    /// held-back scan, and judges the board as it lies (PROTOCOL.md §14.5 step 7). `why` is
    /// logged for a history that was asked for.
    fn fall_back(&mut self, status: HistoryStatus, boot_id: Option<u32>, why: &str) {
        let Some(mut info) = self.info else {
            return;
        };
        let asked = !matches!(
            self.phase,
            HistoryPhase::Opening {
                open: HistoryOpen { boot_id: 0, .. },
                ..
            }
        );
        self.phase = HistoryPhase::Idle;
        self.held_after_counter = None;
        if std::mem::take(&mut self.filling_gap) {
            // a gap that stays: the session goes on with the scans it has, and is not told
            // of the link again (§14.7)
            self.stats.gaps_unfilled += 1;
            self.gaps_unanswered = true;
            self.pending_since = None;
            tracing::warn!("scans missed: no history from the board to fill them ({why})");
            for scan in std::mem::take(&mut self.held) {
                self.hand_on(scan);
            }
            return;
        }
        self.session_boot = boot_id;
        // A request without a resume point asks for nothing, answered or not.
        let status = if asked {
            status
        } else {
            HistoryStatus::NotAsked
        };
        if status != HistoryStatus::NotAsked {
            self.stats.history_fallbacks += 1;
            tracing::warn!("no history from the board ({why}): judging the board as it lies");
        }
        self.hand_on_interrupted(status, boot_id);
        info.boot_id = boot_id;
        info.history = status;
        self.announced = true;
        self.events.push_back(LinkEvent::Up(info));
        for scan in std::mem::take(&mut self.held) {
            self.hand_on(scan);
        }
    }

    /// The history exchange's timers: the Open and Pull re-sends, giving up (PROTOCOL.md
    /// §14.5).
    fn history_timeout(&mut self, now_ms: u64) {
        self.check_hold(now_ms);
        match &self.phase {
            HistoryPhase::Idle => {}
            HistoryPhase::Opening { opens, next_ms, .. } => {
                if now_ms >= *next_ms {
                    if *opens >= self.config.history_max_opens {
                        self.fall_back(
                            HistoryStatus::NoAnswer,
                            None,
                            "the board did not answer the history request",
                        );
                    } else {
                        self.send_open(now_ms);
                    }
                }
            }
            HistoryPhase::Pulling(p) => {
                if now_ms >= p.due_ms {
                    if p.stalled >= self.config.history_max_stalled_pulls {
                        let boot = Some(p.info.boot_id);
                        self.fall_back(
                            HistoryStatus::NoAnswer,
                            boot,
                            "the board's chunks kept getting lost",
                        );
                    } else {
                        self.stats.history_repulls += 1;
                        self.send_pull(now_ms);
                    }
                }
            }
        }
    }

    /// When the history exchange's next timer is due, host ms.
    fn history_deadline(&self) -> Option<u64> {
        let hold = self
            .pending_since
            .map_or(u64::MAX, |t| t.saturating_add(self.config.history_hold_ms));
        match &self.phase {
            HistoryPhase::Idle => None,
            HistoryPhase::Opening { next_ms, .. } => Some((*next_ms).min(hold)),
            HistoryPhase::Pulling(p) => Some(p.due_ms.min(hold)),
        }
    }

    /// Runs the timers due at `now_ms`: Hello retries, keep-alive pings, loss detection.
    pub fn handle_timeout(&mut self, now_ms: u64) {
        match self.state {
            State::Closed | State::Rejected => {}
            State::Handshaking { next_hello_ms } => {
                if now_ms >= next_hello_ms {
                    self.send_hello(now_ms);
                }
            }
            State::Up { .. } => {
                self.send_leds(now_ms);
                let silent = now_ms.saturating_sub(self.last_rx_ms);
                let no_scan = now_ms.saturating_sub(self.last_scan_ms);
                if silent >= self.config.timeout_ms {
                    self.stats.timeouts += 1;
                    self.lose(format!("no frame from the board for {silent} ms"), now_ms);
                } else if self.scan_timeout_ms().is_some_and(|t| no_scan >= t)
                    && self.answered_since_last_scan()
                {
                    // It answers (Pongs) but streams nothing: a board that restarted and
                    // waits for a Hello (PROTOCOL.md §4). Its answers must not keep the
                    // session alive.
                    self.stats.board_resets += 1;
                    self.lose(
                        format!(
                            "the board answers but sent no scan for {no_scan} ms: it restarted"
                        ),
                        now_ms,
                    );
                } else {
                    self.history_timeout(now_ms);
                    if self.health.poll(now_ms, self.phase == HistoryPhase::Idle) {
                        self.queue(Message::HealthRequest(HealthRequest), now_ms);
                    }
                    if now_ms.saturating_sub(self.last_tx_ms) >= self.config.ping_after_ms {
                        self.ping_nonce = self.ping_nonce.wrapping_add(1);
                        self.queue(
                            Message::Ping(Ping {
                                nonce: self.ping_nonce,
                            }),
                            now_ms,
                        );
                    }
                }
            }
        }
    }

    /// When [`Connection::handle_timeout`] must next run, host ms.
    pub fn poll_timeout(&self) -> Option<u64> {
        match self.state {
            State::Closed | State::Rejected => None,
            State::Handshaking { next_hello_ms } => Some(next_hello_ms),
            State::Up { version } => {
                let lost = self.last_rx_ms + self.config.timeout_ms;
                let ping = self.last_tx_ms + self.config.ping_after_ms;
                // (only once the board answered since its scans stopped: else the silence
                // timer is the one that runs)
                let no_scan = self
                    .scan_timeout_ms()
                    .filter(|_| self.answered_since_last_scan())
                    .map_or(u64::MAX, |t| self.last_scan_ms + t);
                // A frame of another size than the board's is never sent: no timer for it
                // (it would be due at once, forever: a busy loop).
                let resend = self
                    .leds
                    .filter(|l| {
                        version >= LED_VERSION
                            && !l.acked
                            && self
                                .board_size
                                .is_none_or(|b| b == l.frame.board_size().get())
                    })
                    .map(|l| l.sent_ms.map_or(0, |t| t + self.config.led_resend_ms));
                let history = self.history_deadline().unwrap_or(u64::MAX);
                let health = self
                    .health
                    .deadline(self.phase == HistoryPhase::Idle)
                    .unwrap_or(u64::MAX);
                Some(
                    lost.min(ping)
                        .min(no_scan)
                        .min(resend.unwrap_or(u64::MAX))
                        .min(history)
                        .min(health),
                )
            }
        }
    }

    /// Next bytes to write to the port.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmit.pop_front()
    }

    /// Next event for the session.
    pub fn poll_event(&mut self) -> Option<LinkEvent> {
        self.events.pop_front()
    }

    fn send_hello(&mut self, now_ms: u64) {
        self.hellos_unanswered = self.hellos_unanswered.saturating_add(1);
        self.state = State::Handshaking {
            next_hello_ms: now_ms + self.config.hello_interval_ms,
        };
        self.queue(
            Message::Hello(Hello {
                protocol_version: self.hello_version,
            }),
            now_ms,
        );
    }

    fn queue(&mut self, message: Message, now_ms: u64) {
        self.last_tx_ms = now_ms;
        let frame = Frame {
            seq: self.tx_seq,
            message,
        };
        self.tx_seq = self.tx_seq.wrapping_add(1);
        let mut buf = [0u8; MAX_FRAME_LEN];
        if let Ok(n) = encode(&frame, &mut buf) {
            self.transmit.push_back(buf[..n].to_vec());
        }
    }
}

/// Whether scans are missing between a scan of `prev` and the next one received, of `next`
/// (a step of more than 1, not a counter that went back: PROTOCOL.md §5.3).
fn counter_jump(prev: u32, next: u32) -> bool {
    let step = next.wrapping_sub(prev);
    step > 1 && step < 1 << 31
}

/// What a chunk brought to the span being pulled.
enum Taken {
    /// Nothing new: a duplicate, or a chunk after one that was lost (pulled again later).
    Nothing,
    /// Entries from the first missing one on.
    Entries,
    /// An entry out of the span, a point index off the board, a `from` that is not the
    /// reading: a broken history.
    Broken,
    /// The board has no span of that `since_ms` open.
    NoSpan,
    /// The board overwrote the entries; it holds every change after `oldest_ms`.
    Lost { oldest_ms: u32 },
}

/// Takes the entries of `chunk` from `p.next` on into `p`, checking each (PROTOCOL.md §14.5
/// step 5): its board time in (`since_ms`, `until_ms`], a point's index on the board and its
/// `from` equal to the reading so far.
fn take_chunk(p: &mut Pulling, chunk: &HistoryChunk) -> Taken {
    match chunk.status {
        ChunkStatus::NoSpan => return Taken::NoSpan,
        ChunkStatus::Lost => {
            return Taken::Lost {
                oldest_ms: chunk.base_ms,
            }
        }
        ChunkStatus::Ok => {}
    }
    let first = chunk.first_entry;
    if first > p.next || first.saturating_add(chunk.len() as u32) <= p.next {
        return Taken::Nothing;
    }
    let since = p.info.since_ms;
    let span = p.info.until_ms.wrapping_sub(since);
    for e in chunk.timed().skip((p.next - first) as usize) {
        if p.next >= p.info.entries {
            break;
        }
        let d = e.board_ms.wrapping_sub(since);
        if d == 0 || d > span {
            return Taken::Broken;
        }
        match e.event {
            HistoryEvent::Point { index, from, to } => {
                match p.readings.get_mut(usize::from(index)) {
                    Some(reading) if *reading == from => *reading = to,
                    _ => return Taken::Broken,
                }
                p.readings_changed += 1;
                p.changes.push(BoardChange::Reading {
                    board_ms: e.board_ms,
                    index,
                    cell: to,
                });
            }
            HistoryEvent::Press { button, side } => {
                p.presses += 1;
                p.changes.push(BoardChange::Press {
                    board_ms: e.board_ms,
                    button,
                    side,
                });
            }
            HistoryEvent::Filler => {}
        }
        p.next += 1;
    }
    Taken::Entries
}

#[cfg(test)]
#[path = "connection_history_tests.rs"]
mod history_tests;

#[cfg(test)]
#[path = "connection_health_tests.rs"]
mod health_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use smartgoban_protocol::{
        BoardSize, ButtonCounters, HelloAck, LedCells, LedPaint, PackedCells,
    };

    pub(super) fn frame_bytes(seq: u8, message: Message) -> Vec<u8> {
        let mut buf = [0u8; MAX_FRAME_LEN];
        let n = encode(&Frame { seq, message }, &mut buf).unwrap();
        buf[..n].to_vec()
    }

    pub(super) fn ack(version: u8, accepted: bool) -> Message {
        Message::HelloAck(HelloAck {
            protocol_version: version,
            accepted,
            board_size: BoardSize::NINE,
            scan_rate_hz: 50,
            firmware_version: 3,
            device_id: 7,
        })
    }

    fn scan(counter: u32) -> Message {
        Message::Scan(Scan {
            scan_counter: counter,
            board_ms: counter.wrapping_mul(20),
            buttons: ButtonCounters::default(),
            cells: PackedCells::new(BoardSize::NINE),
        })
    }

    /// The version of the board in the tests of what versions 2 and 3 share (LED frames, loss
    /// detection, restarts): 2, so that no history exchange holds the scans back.
    const V2: u8 = 2;

    /// A connection whose port just opened and whose board refused our version for `version`:
    /// the next accepted `HelloAck` opens a session of that version (PROTOCOL.md §4). The
    /// refusal has seq 255, so that a next frame of seq 0 is no loss.
    fn fallen_back_to(version: u8) -> Connection {
        let mut c = Connection::new(LinkConfig::default());
        c.on_open(0);
        c.handle_bytes(&frame_bytes(255, ack(version, false)), 0);
        assert!(
            matches!(&sent(&mut c)[..], [Message::Hello(h), Message::Hello(h2)]
                if h.protocol_version == PROTOCOL_VERSION && h2.protocol_version == version)
        );
        c
    }

    /// [`fallen_back_to`] a version-2 board.
    fn fallen_back() -> Connection {
        fallen_back_to(V2)
    }

    pub(super) fn events(c: &mut Connection) -> Vec<LinkEvent> {
        std::iter::from_fn(|| c.poll_event()).collect()
    }

    pub(super) fn sent(c: &mut Connection) -> Vec<Message> {
        let mut d = FrameDecoder::new();
        let bytes: Vec<u8> = std::iter::from_fn(|| c.poll_transmit()).flatten().collect();
        d.frames(&bytes)
            .filter_map(Result::ok)
            .map(|f| f.message)
            .collect()
    }

    #[test]
    fn handshake_then_scans_then_timeout_and_rehandshake() {
        let mut c = fallen_back(); // its Hellos checked
                                   // Scans before the handshake are from an earlier session: ignored.
        c.handle_bytes(&frame_bytes(0, scan(5)), 10);
        assert!(events(&mut c).is_empty());
        assert_eq!(c.stats().ignored_scans, 1);
        // Hello repeated every 500 ms until answered.
        c.handle_timeout(500);
        assert!(matches!(sent(&mut c)[..], [Message::Hello(_)]));
        c.handle_bytes(&frame_bytes(1, ack(V2, true)), 600);
        assert!(matches!(
            events(&mut c)[..],
            [LinkEvent::Up(LinkInfo { board_size: 9, .. })]
        ));
        c.handle_bytes(&frame_bytes(2, scan(0)), 620);
        assert!(matches!(events(&mut c)[..], [LinkEvent::Scan(_)]));
        // Nothing sent for 500 ms (last Hello at 500): ping. Silent 1000 ms: lost, and a new
        // Hello goes out.
        assert_eq!(c.poll_timeout(), Some(1000));
        c.handle_timeout(1000);
        assert!(matches!(sent(&mut c)[..], [Message::Ping(_)]));
        assert_eq!(c.poll_timeout(), Some(1500));
        c.handle_timeout(1500);
        assert!(matches!(sent(&mut c)[..], [Message::Ping(_)]));
        c.handle_timeout(1620);
        assert!(matches!(events(&mut c)[..], [LinkEvent::Down { .. }]));
        assert!(matches!(sent(&mut c)[..], [Message::Hello(_)]));
        assert_eq!(c.stats().timeouts, 1);
    }

    #[test]
    fn garbage_and_bad_frames_are_counted_and_skipped() {
        let mut c = fallen_back();
        c.handle_bytes(&frame_bytes(0, ack(V2, true)), 1);
        events(&mut c);
        let mut bytes = vec![1, 2, 3, 0xff, 0]; // garbage up to a delimiter
        let mut bad = frame_bytes(1, scan(1));
        bad[4] ^= 0x40; // corrupt the body: CRC or COBS error
        bytes.extend(bad);
        bytes.extend(frame_bytes(2, scan(2)));
        c.handle_bytes(&bytes, 2);
        let ev = events(&mut c);
        assert_eq!(ev.len(), 1, "{ev:?}");
        assert!(matches!(&ev[0], LinkEvent::Scan(s) if s.scan_counter == 2));
        let s = c.stats();
        assert_eq!(s.cobs_errors + s.crc_errors + s.malformed, 2, "{s:?}");
    }

    #[test]
    fn version_mismatch_is_reported_and_not_retried() {
        let mut c = Connection::new(LinkConfig::default());
        c.on_open(0);
        sent(&mut c);
        // A board of a later version that does not speak ours.
        c.handle_bytes(&frame_bytes(0, ack(PROTOCOL_VERSION + 1, false)), 5);
        assert_eq!(
            events(&mut c),
            vec![LinkEvent::Rejected {
                board_version: PROTOCOL_VERSION + 1
            }]
        );
        c.handle_bytes(&frame_bytes(1, scan(0)), 6);
        // an unasked accepted HelloAck does not bring the link up either
        c.handle_bytes(&frame_bytes(2, ack(PROTOCOL_VERSION, true)), 7);
        c.handle_bytes(&frame_bytes(3, scan(1)), 8);
        assert!(events(&mut c).is_empty());
        assert_eq!(c.poll_timeout(), None);
        assert_eq!(c.stats().version_mismatches, 1);
        // Reopening the port starts over.
        c.on_open(10);
        assert!(matches!(sent(&mut c)[..], [Message::Hello(_)]));
    }

    #[test]
    fn sequence_gaps_count_lost_frames() {
        let mut c = Connection::new(LinkConfig::default());
        c.on_open(0);
        c.handle_bytes(&frame_bytes(10, ack(PROTOCOL_VERSION, true)), 1);
        c.handle_bytes(&frame_bytes(11, scan(0)), 2);
        c.handle_bytes(&frame_bytes(14, scan(3)), 3);
        assert_eq!(c.stats().lost_frames, 2);
    }

    #[test]
    fn close_while_up_reports_down() {
        let mut c = fallen_back();
        c.handle_bytes(&frame_bytes(0, ack(V2, true)), 1);
        events(&mut c);
        c.on_close("unplugged");
        assert_eq!(
            events(&mut c),
            vec![LinkEvent::Down {
                reason: "unplugged".into()
            }]
        );
        assert_eq!(c.poll_timeout(), None);
    }

    fn led_frame(fill: u8) -> LedFrame {
        let mut frame = LedFrame {
            frame_id: 99,
            palette: [LedPaint::OFF; 16],
            cells: LedCells::new(BoardSize::NINE),
        };
        frame.palette[1].rgb = [fill, 0, 0];
        frame.cells.set(4, 1);
        frame
    }

    /// A connection in a session of `version` (for a version below ours, after the board's
    /// refusal and our fallback, PROTOCOL.md §4); sent frames and events drained.
    pub(super) fn up(version: u8) -> Connection {
        let mut c = if version < PROTOCOL_VERSION {
            fallen_back_to(version)
        } else {
            let mut c = Connection::new(LinkConfig::default());
            c.on_open(0);
            c
        };
        sent(&mut c);
        c.handle_bytes(&frame_bytes(0, ack(version, true)), 1);
        events(&mut c);
        c
    }

    #[test]
    fn led_frames_are_sent_acknowledged_and_resent() {
        let mut c = fallen_back();
        sent(&mut c);
        // Asked for before the link is up: waits for the handshake.
        c.set_leds(led_frame(10), 0);
        assert_eq!(c.led_delivery(), LedDelivery::Pending { frame_id: 0 });
        assert!(sent(&mut c).is_empty());
        c.handle_bytes(&frame_bytes(0, ack(V2, true)), 1);
        let first = match &sent(&mut c)[..] {
            [Message::LedFrame(f)] => *f,
            other => panic!("{other:?}"),
        };
        assert_eq!(first.frame_id, 0);
        assert_eq!(first.palette[1].rgb, [10, 0, 0]);
        // No answer within 200 ms: sent again, same id.
        assert_eq!(c.poll_timeout(), Some(201));
        c.handle_timeout(201);
        assert!(matches!(&sent(&mut c)[..], [Message::LedFrame(f)] if f.frame_id == 0));
        // An answer with the wrong CRC: sent again, once the re-send interval has passed.
        let wrong = LedAck {
            frame_id: 0,
            content_crc: first.content_crc() ^ 1,
        };
        c.handle_bytes(&frame_bytes(1, Message::LedAck(wrong)), 250);
        assert!(sent(&mut c).is_empty());
        assert_eq!(c.stats().led_mismatches, 1);
        assert_eq!(c.poll_timeout(), Some(401));
        c.handle_timeout(401);
        assert!(matches!(&sent(&mut c)[..], [Message::LedFrame(_)]));
        // The right answer: shown, nothing more to send.
        let right = LedAck {
            frame_id: 0,
            content_crc: first.content_crc(),
        };
        c.handle_bytes(&frame_bytes(2, Message::LedAck(right)), 410);
        assert_eq!(c.led_delivery(), LedDelivery::Shown { frame_id: 0 });
        c.handle_timeout(950);
        assert!(matches!(&sent(&mut c)[..], [Message::Ping(_)]));
        // The same content again: nothing; new content: the next id.
        c.set_leds(led_frame(10), 960);
        assert!(sent(&mut c).is_empty());
        c.set_leds(led_frame(11), 970);
        assert!(matches!(&sent(&mut c)[..], [Message::LedFrame(f)] if f.frame_id == 1));
        // A new session (the board restarted) shows nothing: the frame goes again.
        let second = led_frame(11);
        c.handle_bytes(
            &frame_bytes(
                3,
                Message::LedAck(LedAck {
                    frame_id: 1,
                    content_crc: second.content_crc(),
                }),
            ),
            630,
        );
        assert_eq!(c.led_delivery(), LedDelivery::Shown { frame_id: 1 });
        c.handle_bytes(&frame_bytes(4, ack(V2, true)), 640);
        assert!(matches!(&sent(&mut c)[..], [Message::LedFrame(f)] if f.frame_id == 1));
        assert_eq!(c.led_delivery(), LedDelivery::Pending { frame_id: 1 });
        assert_eq!(c.stats().led_frames_sent, 5);
    }

    #[test]
    fn an_older_board_is_spoken_to_in_its_version_without_leds() {
        let mut c = Connection::new(LinkConfig::default());
        c.on_open(0);
        assert!(
            matches!(&sent(&mut c)[..], [Message::Hello(h)] if h.protocol_version == PROTOCOL_VERSION)
        );
        c.handle_bytes(&frame_bytes(0, ack(1, false)), 5);
        assert!(events(&mut c).is_empty());
        assert!(matches!(&sent(&mut c)[..], [Message::Hello(h)] if h.protocol_version == 1));
        c.handle_bytes(&frame_bytes(1, ack(1, true)), 6);
        assert!(matches!(events(&mut c)[..], [LinkEvent::Up(_)]));
        assert_eq!(c.version(), Some(1));
        c.set_leds(led_frame(5), 7);
        assert!(sent(&mut c).is_empty(), "no LED frames in version 1");
        assert_eq!(c.led_delivery(), LedDelivery::Unsupported);
        // Reopening offers our version again.
        c.on_open(10);
        assert!(
            matches!(&sent(&mut c)[..], [Message::Hello(h)] if h.protocol_version == PROTOCOL_VERSION)
        );
        let c2 = up(PROTOCOL_VERSION);
        assert_eq!(c2.version(), Some(PROTOCOL_VERSION));
    }

    #[test]
    fn a_refusal_crossing_the_fallback_hello_is_not_a_mismatch() {
        // The board holds our first two Hellos (version 2) and refuses both; the first
        // refusal makes us speak version 1, the second must not reject the board.
        let mut c = Connection::new(LinkConfig::default());
        c.on_open(0);
        c.handle_timeout(500);
        sent(&mut c);
        c.handle_bytes(&frame_bytes(0, ack(1, false)), 600);
        assert!(matches!(&sent(&mut c)[..], [Message::Hello(h)] if h.protocol_version == 1));
        c.handle_bytes(&frame_bytes(1, ack(1, false)), 601);
        assert!(events(&mut c).is_empty());
        assert_eq!(c.stats().version_mismatches, 0);
        c.handle_bytes(&frame_bytes(2, ack(1, true)), 602);
        assert!(matches!(events(&mut c)[..], [LinkEvent::Up(_)]));
        assert_eq!(c.version(), Some(1));
        // A late refusal while up changes nothing either.
        c.handle_bytes(&frame_bytes(3, ack(1, false)), 603);
        assert!(c.is_up());
    }

    #[test]
    fn wrong_acknowledgements_never_make_the_host_send_faster_than_the_resend_interval() {
        let mut c = up(V2);
        c.set_leds(led_frame(7), 10);
        let frame = match &sent(&mut c)[..] {
            [Message::LedFrame(f)] => *f,
            other => panic!("{other:?}"),
        };
        let wrong = |seq| {
            frame_bytes(
                seq,
                Message::LedAck(LedAck {
                    frame_id: frame.frame_id,
                    content_crc: frame.content_crc() ^ 0xFF,
                }),
            )
        };
        // 50 wrong answers within 100 ms: nothing is sent before 200 ms have passed.
        for k in 0..50u8 {
            c.handle_bytes(&wrong(k + 1), 20 + u64::from(k) * 2);
        }
        assert!(sent(&mut c).is_empty());
        assert_eq!(c.stats().led_mismatches, 50);
        c.handle_timeout(210);
        assert_eq!(sent(&mut c).len(), 1);
        // A wrong answer after a right one: no longer shown, sent again in time.
        c.handle_bytes(
            &frame_bytes(
                60,
                Message::LedAck(LedAck {
                    frame_id: frame.frame_id,
                    content_crc: frame.content_crc(),
                }),
            ),
            220,
        );
        assert_eq!(c.led_delivery(), LedDelivery::Shown { frame_id: 0 });
        c.handle_bytes(&wrong(61), 230);
        assert_eq!(c.led_delivery(), LedDelivery::Pending { frame_id: 0 });
        assert!(sent(&mut c).is_empty());
        c.handle_timeout(410);
        assert_eq!(sent(&mut c).len(), 1);
        // Never acknowledged: reported after 10 sends, still sent every 200 ms.
        for t in (610..=2410).step_by(200) {
            c.handle_bytes(&frame_bytes(70 + (t / 200) as u8, scan(0)), t);
            c.handle_timeout(t);
        }
        assert!(matches!(
            c.led_delivery(),
            LedDelivery::Unacknowledged { frame_id: 0, sends } if sends >= UNACKNOWLEDGED_AFTER
        ));
        let resends = sent(&mut c)
            .iter()
            .filter(|m| matches!(m, Message::LedFrame(_)))
            .count();
        assert_eq!(resends, 10);
    }

    #[test]
    fn a_frame_of_another_size_than_the_board_is_not_sent() {
        let mut c = up(V2); // a 9×9 board
        let mut big = led_frame(1);
        big.cells = LedCells::new(BoardSize::NINETEEN);
        c.set_leds(big, 10);
        assert!(sent(&mut c).is_empty());
        assert_eq!(
            c.led_delivery(),
            LedDelivery::WrongSize {
                board: 9,
                frame: 19
            }
        );
        c.handle_timeout(1000);
        assert!(!sent(&mut c)
            .iter()
            .any(|m| matches!(m, Message::LedFrame(_))));
        // No timer for a frame that is never sent (it would be due at once, forever): the
        // next is the scan timeout.
        assert_eq!(c.poll_timeout(), Some(1001));
    }

    fn pong(nonce: u32) -> Message {
        Message::Pong(smartgoban_protocol::Pong { nonce })
    }

    #[test]
    fn a_board_that_restarts_and_only_answers_pings_is_lost_within_the_timeout() {
        // PROTOCOL.md §4: a restarted board has no session and sends no scan until a Hello,
        // but still answers Pings. Its Pongs must not keep the session alive.
        let mut c = up(V2);
        let mut seq = 1;
        let mut t = 1;
        while t <= 400 {
            c.handle_bytes(&frame_bytes(seq, scan(seq.into())), t);
            seq += 1;
            t += 20;
        }
        events(&mut c);
        sent(&mut c);
        let mut lost_at = None;
        for now in (400..3000).step_by(10) {
            c.handle_timeout(now);
            for m in sent(&mut c) {
                if let Message::Ping(p) = m {
                    c.handle_bytes(&frame_bytes(seq, pong(p.nonce)), now + 2);
                    seq = seq.wrapping_add(1);
                }
            }
            if events(&mut c)
                .iter()
                .any(|e| matches!(e, LinkEvent::Down { .. }))
            {
                lost_at = Some(now);
                break;
            }
        }
        // The last scan came at 381: lost 1 s later, as a board reset, not a timeout.
        assert_eq!(lost_at, Some(1390));
        assert_eq!(c.stats().board_resets, 1);
        assert_eq!(c.stats().timeouts, 0);
        assert!(!c.is_up());
        c.handle_bytes(&frame_bytes(seq, ack(V2, true)), 1400);
        assert!(matches!(events(&mut c)[..], [LinkEvent::Up(_)]));
        assert_eq!(c.stats().board_resets, 1, "an answered Hello is no reset");
    }

    #[test]
    fn an_unasked_hello_ack_is_a_board_reset_and_restarts_the_session() {
        let mut c = fallen_back();
        c.handle_timeout(500); // a second Hello: two answers are expected
        sent(&mut c);
        c.handle_bytes(&frame_bytes(0, ack(V2, true)), 510);
        c.handle_bytes(&frame_bytes(1, ack(V2, true)), 511);
        assert_eq!(c.stats().board_resets, 0);
        c.handle_bytes(&frame_bytes(2, scan(0)), 520);
        c.handle_bytes(&frame_bytes(3, scan(1)), 540);
        events(&mut c);
        // The board restarts and announces itself: a new session, counted once.
        c.handle_bytes(&frame_bytes(0, ack(V2, true)), 600);
        c.handle_bytes(&frame_bytes(1, scan(0)), 620);
        assert!(matches!(
            events(&mut c)[..],
            [LinkEvent::Up(_), LinkEvent::Scan(_)]
        ));
        assert_eq!(c.stats().board_resets, 1);
        // the first connection and the board's restart; three sessions on the board
        assert_eq!(c.stats().handshakes, 2);
        assert_eq!(c.stats().sessions, 3);
    }

    #[test]
    fn a_scan_counter_that_goes_back_restarts_the_session() {
        // A board that restarts and streams at once (or whose HelloAck was lost): its button
        // counters are back at 0, so the session restarts before the scan is taken.
        let mut c = up(V2);
        for k in 0..5u8 {
            c.handle_bytes(&frame_bytes(k + 1, scan(k.into())), 2 + u64::from(k) * 20);
        }
        events(&mut c);
        c.handle_bytes(&frame_bytes(0, scan(0)), 200);
        let ev = events(&mut c);
        assert!(
            matches!(&ev[..], [LinkEvent::Up(i), LinkEvent::Scan(s)] if i.board_size == 9 && s.scan_counter == 0),
            "{ev:?}"
        );
        assert_eq!(c.stats().board_resets, 1);
        assert_eq!(c.stats().handshakes, 1, "no handshake happened");
        // Counters going on, wrapping included, are no reset.
        let mut c = up(V2);
        c.handle_bytes(&frame_bytes(1, scan(u32::MAX - 1)), 2);
        c.handle_bytes(&frame_bytes(2, scan(u32::MAX)), 3);
        c.handle_bytes(&frame_bytes(3, scan(0)), 4);
        c.handle_bytes(&frame_bytes(5, scan(7)), 5);
        assert_eq!(c.stats().board_resets, 0);
        assert_eq!(events(&mut c).len(), 4);
    }

    /// A board that falls silent just after its last scan has answered something (an LED
    /// acknowledgement, a Pong): the link is lost as a silence, not as a restart of the board.
    #[test]
    fn a_silence_just_after_an_answer_is_a_timeout_not_a_board_reset() {
        for answer_after in [0u64, 10, 100, 240] {
            let mut c = up(V2);
            let mut seq = 1;
            let mut t = 1;
            while t <= 400 {
                c.handle_bytes(&frame_bytes(seq, scan(seq.into())), t);
                seq += 1;
                t += 20;
            }
            let last_scan = t - 20;
            c.handle_bytes(&frame_bytes(seq, pong(7)), last_scan + answer_after);
            events(&mut c);
            let mut lost_at = None;
            let mut now = last_scan;
            while now < 3_000 {
                // the shell wakes when the connection asks (never in a busy loop)
                let next = c.poll_timeout().unwrap();
                assert!(
                    next > now || lost_at.is_none() && next >= now,
                    "{next} {now}"
                );
                now = next.max(now + 1);
                c.handle_timeout(now);
                if events(&mut c)
                    .iter()
                    .any(|e| matches!(e, LinkEvent::Down { .. }))
                {
                    lost_at = Some(now);
                    break;
                }
            }
            assert_eq!(
                lost_at,
                Some(last_scan + answer_after + 1000),
                "{answer_after}"
            );
            assert_eq!(c.stats().timeouts, 1, "{answer_after}");
            assert_eq!(c.stats().board_resets, 0, "{answer_after}");
        }
    }

    /// After a silence the host repeats its Hello until the board answers; a board that held
    /// them all answers each: one reconnection (a handshake), a session per answer.
    #[test]
    fn one_reconnection_answering_repeated_hellos_is_one_handshake() {
        let mut c = Connection::new(LinkConfig::default());
        c.on_open(0);
        for k in 1..6u64 {
            c.handle_timeout(k * 500);
        }
        let hellos = sent(&mut c)
            .iter()
            .filter(|m| matches!(m, Message::Hello(_)))
            .count();
        assert_eq!(hellos, 6);
        for k in 0..6u8 {
            c.handle_bytes(
                &frame_bytes(k, ack(PROTOCOL_VERSION, true)),
                3_000 + u64::from(k),
            );
        }
        assert_eq!(c.stats().handshakes, 1);
        assert_eq!(c.stats().sessions, 6);
        assert_eq!(c.stats().board_resets, 0);
    }
}
