//! [`Connection`]: protocol v1 from the host's side, without I/O.

use std::collections::VecDeque;

use crate::session::LinkInfo;
use smartgoban_protocol::{
    encode, timing, DecodeError, Feed, Frame, FrameDecoder, Hello, Message, Ping, Scan,
    MAX_FRAME_LEN, PROTOCOL_VERSION,
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
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            hello_interval_ms: u64::from(timing::HELLO_INTERVAL_MS),
            ping_after_ms: u64::from(timing::PING_INTERVAL_MS),
            timeout_ms: u64::from(timing::LINK_TIMEOUT_MS),
        }
    }
}

/// What the link tells the session.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkEvent {
    /// The handshake completed.
    Up(LinkInfo),
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
    /// Completed handshakes.
    pub handshakes: u64,
    /// Links lost because the board fell silent.
    pub timeouts: u64,
    /// Handshakes refused for a protocol version mismatch.
    pub version_mismatches: u64,
    /// Scans received before a handshake (from an earlier session of the board), ignored.
    pub ignored_scans: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// No port open.
    Closed,
    /// Port open, waiting for HelloAck; next Hello due at the time given.
    Handshaking { next_hello_ms: u64 },
    /// Handshake done.
    Up,
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
        }
    }

    /// Whether the handshake is done and scans flow.
    pub fn is_up(&self) -> bool {
        self.state == State::Up
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
        // A lone delimiter first ends whatever half frame the board may be holding.
        self.transmit.push_back(vec![0]);
        self.send_hello(now_ms);
    }

    /// The port failed or was closed.
    pub fn on_close(&mut self, reason: &str) {
        if self.state == State::Up {
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
                // Every accepted HelloAck starts a new session on the board, even one that
                // answers a repeated Hello: the host restarts too (PROTOCOL.md §4).
                if ack.accepted {
                    self.state = State::Up;
                    self.stats.handshakes += 1;
                    self.events.push_back(LinkEvent::Up(LinkInfo {
                        board_size: ack.board_size.get(),
                        firmware_version: ack.firmware_version,
                        device_id: ack.device_id,
                        scan_rate_hz: ack.scan_rate_hz,
                    }));
                } else {
                    self.stats.version_mismatches += 1;
                    self.state = State::Rejected;
                    self.events.push_back(LinkEvent::Rejected {
                        board_version: ack.protocol_version,
                    });
                }
            }
            Message::Scan(scan) => {
                if self.state == State::Up {
                    self.events.push_back(LinkEvent::Scan(scan));
                } else {
                    self.stats.ignored_scans += 1;
                }
            }
            Message::Pong(_) | Message::Hello(_) | Message::Ping(_) => {}
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
            State::Up => {
                let silent = now_ms.saturating_sub(self.last_rx_ms);
                if silent >= self.config.timeout_ms {
                    self.stats.timeouts += 1;
                    self.events.push_back(LinkEvent::Down {
                        reason: format!("no frame from the board for {silent} ms"),
                    });
                    self.rx_seq = None;
                    self.send_hello(now_ms);
                } else if now_ms.saturating_sub(self.last_tx_ms) >= self.config.ping_after_ms {
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

    /// When [`Connection::handle_timeout`] must next run, host ms.
    pub fn poll_timeout(&self) -> Option<u64> {
        match self.state {
            State::Closed | State::Rejected => None,
            State::Handshaking { next_hello_ms } => Some(next_hello_ms),
            State::Up => {
                let lost = self.last_rx_ms + self.config.timeout_ms;
                let ping = self.last_tx_ms + self.config.ping_after_ms;
                Some(lost.min(ping))
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
        self.state = State::Handshaking {
            next_hello_ms: now_ms + self.config.hello_interval_ms,
        };
        self.queue(
            Message::Hello(Hello {
                protocol_version: PROTOCOL_VERSION,
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

#[cfg(test)]
mod tests {
    use super::*;
    use smartgoban_protocol::{BoardSize, ButtonCounters, HelloAck, PackedCells};

    fn frame_bytes(seq: u8, message: Message) -> Vec<u8> {
        let mut buf = [0u8; MAX_FRAME_LEN];
        let n = encode(&Frame { seq, message }, &mut buf).unwrap();
        buf[..n].to_vec()
    }

    fn ack(version: u8, accepted: bool) -> Message {
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
            board_ms: counter * 20,
            buttons: ButtonCounters::default(),
            cells: PackedCells::new(BoardSize::NINE),
        })
    }

    fn events(c: &mut Connection) -> Vec<LinkEvent> {
        std::iter::from_fn(|| c.poll_event()).collect()
    }

    fn sent(c: &mut Connection) -> Vec<Message> {
        let mut d = FrameDecoder::new();
        let bytes: Vec<u8> = std::iter::from_fn(|| c.poll_transmit()).flatten().collect();
        d.frames(&bytes)
            .filter_map(Result::ok)
            .map(|f| f.message)
            .collect()
    }

    #[test]
    fn handshake_then_scans_then_timeout_and_rehandshake() {
        let mut c = Connection::new(LinkConfig::default());
        c.on_open(0);
        assert!(matches!(sent(&mut c)[..], [Message::Hello(_)]));
        // Scans before the handshake are from an earlier session: ignored.
        c.handle_bytes(&frame_bytes(0, scan(5)), 10);
        assert!(events(&mut c).is_empty());
        assert_eq!(c.stats().ignored_scans, 1);
        // Hello repeated every 500 ms until answered.
        c.handle_timeout(500);
        assert!(matches!(sent(&mut c)[..], [Message::Hello(_)]));
        c.handle_bytes(&frame_bytes(1, ack(PROTOCOL_VERSION, true)), 600);
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
        let mut c = Connection::new(LinkConfig::default());
        c.on_open(0);
        c.handle_bytes(&frame_bytes(0, ack(PROTOCOL_VERSION, true)), 1);
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
        c.handle_bytes(&frame_bytes(0, ack(2, false)), 5);
        assert_eq!(
            events(&mut c),
            vec![LinkEvent::Rejected { board_version: 2 }]
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
        let mut c = Connection::new(LinkConfig::default());
        c.on_open(0);
        c.handle_bytes(&frame_bytes(0, ack(PROTOCOL_VERSION, true)), 1);
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
}
