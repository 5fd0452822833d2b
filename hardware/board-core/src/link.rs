//! The board's side of the serial protocol (hardware/PROTOCOL.md §4–§8, §13, §14) as a sans-IO
//! state machine: bytes from the host in, [`Frame`]s for the host out, one call per scan. The
//! RP2040 firmware (`hardware/firmware`) and the virtual board (`src/sim/board.rs`) both run
//! it; each shell puts the frames on its wire (USB CDC, a pseudo-terminal) its own way.
//!
//! - A `Hello` of a version from [`MIN_PROTOCOL_VERSION`] up to the board's opens a session
//!   (answered by a `HelloAck` with `accepted` = 1; any other version gets `accepted` = 0 and no
//!   session, §4). A session starts its scan counter at 0, its button counters at 0 (§7) and its
//!   LEDs dark until the host sends a frame (§5.6).
//! - `Ping` is answered by a `Pong` with its nonce (§5.4), in any state.
//! - In a session of version 2 or later, an `LedFrame` of the board's size is shown and
//!   answered by an `LedAck` (§5.6, §5.7).
//! - In a session of version 3, `HistoryOpen` and `HistoryPull` are answered from the
//!   board's [`History`] (§14.3, §14.4).
//! - In a session of version 4, the calibration messages are answered from the board's
//!   [`Sensors`]: `RawRequest` with the latest scan's readings, `CalibrationData` pieces kept
//!   until `CalibrationCommit`, whose image (when its length and CRC-32C match) the sensors
//!   check, use and store, `HealthRequest` with the sensors' health (§5.12–§5.18, §15).
//! - Bad frames (CRC, COBS, length) are skipped (§9); messages meant for the host are ignored.
//!
//! The board shows the link-lost pattern on its LEDs while [`BoardLink::host_silent`] (no
//! valid frame from the host for [`LINK_TIMEOUT_MS`], §8): the host pings every 500 ms.

use smartgoban_protocol::calibration::{
    CalibrationAck, CalibrationStatus, RawReadings, SensorHealth, MAX_IMAGE_LEN, MAX_RAW_POINTS,
};
use smartgoban_protocol::{
    crc32c, timing::LINK_TIMEOUT_MS, BoardSize, ButtonCounters, Feed, Frame, FrameDecoder,
    HelloAck, LedAck, LedFrame, Message, PackedCells, Pong, Scan, CALIBRATION_VERSION,
    HISTORY_VERSION, LED_VERSION, MIN_PROTOCOL_VERSION,
};

use crate::history::History;

/// The board's sensors and its calibration store, as the version-4 calibration messages reach
/// them (hardware/PROTOCOL.md §5.12–§5.18, §15). The firmware implements it over its ADC
/// readings, classifier and flash; the virtual board over its simulated Hall sensors.
pub trait Sensors {
    /// The latest scan's readings (ADC counts, point order, one a point; empty before the
    /// first scan).
    fn raw_readings(&self) -> &[u16];

    /// Each point's sensor health and whether a calibration is stored (§5.18).
    fn sensor_health(&self) -> SensorHealth;

    /// A calibration image whose length and CRC-32C matched the host's commit: check it
    /// ([`crate::image::decode`]), classify with it from the next scan and keep it in flash.
    /// [`CalibrationStatus::Invalid`] leaves everything as it was.
    fn store_calibration(&mut self, image: &[u8]) -> CalibrationStatus;
}

/// What the board says of itself in its `HelloAck` (§5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkConfig {
    /// The sensor grid's side.
    pub board_size: BoardSize,
    /// The highest protocol version the board speaks; it speaks every version from
    /// [`MIN_PROTOCOL_VERSION`] up to it (the firmware: 4).
    pub protocol_version: u8,
    /// Scans a second (50, §8).
    pub scan_rate_hz: u8,
    /// The firmware build.
    pub firmware_version: u16,
    /// This board's id (the firmware: from the flash's unique id, [`crate::usb::device_id`]).
    pub device_id: u32,
}

/// The board's side of the protocol (module docs). No allocation, no clock, no port.
#[derive(Debug)]
pub struct BoardLink {
    config: LinkConfig,
    decoder: FrameDecoder,
    tx_seq: u8,
    /// The version of the open session, if one is open.
    session: Option<u8>,
    /// The host has sent its `HistoryOpen` in this session (§14.5 step 1).
    history_opened: bool,
    /// The counter the next scan of the session carries.
    scan_counter: u32,
    /// The frame shown, from this session's host.
    leds: Option<LedFrame>,
    /// Board time of the last valid frame from the host, ms.
    heard_ms: Option<u32>,
    /// The calibration image being received (`CalibrationData`, §5.14), until its commit.
    image: [u8; MAX_IMAGE_LEN],
    /// The debouncer's counters when the session opened: a session counts from there (§7).
    base: ButtonCounters,
    /// The debouncer's counters at the latest scan.
    raw: ButtonCounters,
}

impl BoardLink {
    /// A board just powered up: no session, nothing heard, the LEDs dark.
    pub fn new(config: LinkConfig) -> BoardLink {
        BoardLink {
            config,
            decoder: FrameDecoder::new(),
            tx_seq: 0,
            session: None,
            history_opened: false,
            scan_counter: 0,
            leds: None,
            heard_ms: None,
            image: [0; MAX_IMAGE_LEN],
            base: ButtonCounters::ZERO,
            raw: ButtonCounters::ZERO,
        }
    }

    /// The board's settings.
    pub fn config(&self) -> &LinkConfig {
        &self.config
    }

    /// The version of the open session, if one is open (scans go to the host).
    pub fn session_version(&self) -> Option<u8> {
        self.session
    }

    /// Whether a version-3 session is open and the host has not sent its `HistoryOpen` yet
    /// (§14.5 step 1).
    pub fn awaits_history_open(&self) -> bool {
        self.session.is_some_and(|v| v >= HISTORY_VERSION) && !self.history_opened
    }

    /// The LED frame to show (the last `LedFrame` of this session), if any.
    pub fn leds(&self) -> Option<&LedFrame> {
        self.leds.as_ref()
    }

    /// Whether the host has been silent for [`LINK_TIMEOUT_MS`] or more at board time `now_ms`
    /// (a wrapping ms clock), or has never sent a valid frame: the board shows the link-lost
    /// pattern (§8).
    pub fn host_silent(&self, now_ms: u32) -> bool {
        self.heard_ms
            .is_none_or(|heard| now_ms.wrapping_sub(heard) >= LINK_TIMEOUT_MS)
    }

    /// Bytes from the host, received at board time `now_ms`: every complete frame is handled
    /// (module docs) and its answers given to `emit` in order; a partial frame waits for the
    /// next call. `history` is the board's history (`None` on a board without one, which then
    /// ignores `HistoryOpen` and `HistoryPull`); `sensors` its sensors and calibration store
    /// (`None`: the calibration messages are ignored).
    pub fn receive<const B: usize>(
        &mut self,
        mut bytes: &[u8],
        now_ms: u32,
        mut history: Option<&mut History<B>>,
        mut sensors: Option<&mut dyn Sensors>,
        emit: &mut impl FnMut(Frame),
    ) {
        loop {
            match self.decoder.feed(bytes) {
                Feed::NeedMore => return,
                Feed::Error { rest, .. } => bytes = rest,
                Feed::Frame { frame, rest } => {
                    bytes = rest;
                    self.heard_ms = Some(now_ms);
                    let sensors = sensors.as_deref_mut();
                    if !self.calibrate(&frame.message, sensors, emit) {
                        self.handle(frame.message, history.as_deref_mut(), emit);
                    }
                }
            }
        }
    }

    /// The calibration messages of a version-4 session (§5.12–§5.18); `false` for any other
    /// message (or without a version-4 session or sensors), which [`Self::handle`] takes.
    fn calibrate<S: Sensors + ?Sized>(
        &mut self,
        message: &Message,
        sensors: Option<&mut S>,
        emit: &mut impl FnMut(Frame),
    ) -> bool {
        let Some(sensors) =
            sensors.filter(|_| self.session.is_some_and(|v| v >= CALIBRATION_VERSION))
        else {
            return false;
        };
        match message {
            Message::RawRequest(request) => {
                let raw = sensors.raw_readings();
                let first = usize::from(request.first_point).min(raw.len());
                let count = usize::from(request.count).min(MAX_RAW_POINTS);
                let readings = raw
                    .get(first..(first + count).min(raw.len()))
                    .unwrap_or(&[]);
                // The session's counter of the latest scan: 0 before its first (§5.13).
                let answer = RawReadings::new(
                    self.scan_counter.saturating_sub(1),
                    request.first_point,
                    readings,
                );
                emit(self.frame(Message::RawReadings(answer)));
            }
            Message::CalibrationData(data) => {
                let at = usize::from(data.offset);
                if let Some(slot) = self.image.get_mut(at..at + data.bytes().len()) {
                    slot.copy_from_slice(data.bytes());
                }
            }
            Message::CalibrationCommit(commit) => {
                let received = self.image.get(..usize::from(commit.len));
                let crc = received.map_or(0, crc32c);
                let status = match received {
                    None | Some([]) => CalibrationStatus::Invalid,
                    Some(_) if crc != commit.crc => CalibrationStatus::Mismatch,
                    Some(image) => sensors.store_calibration(image),
                };
                let ack = Message::CalibrationAck(CalibrationAck { status, crc });
                emit(self.frame(ack));
            }
            Message::HealthRequest(_) => {
                let health = sensors.sensor_health();
                emit(self.frame(Message::SensorHealth(health)));
            }
            _ => return false,
        }
        true
    }

    fn handle<const B: usize>(
        &mut self,
        message: Message,
        history: Option<&mut History<B>>,
        emit: &mut impl FnMut(Frame),
    ) {
        match message {
            Message::Hello(hello) => {
                let accepted = (MIN_PROTOCOL_VERSION..=self.config.protocol_version)
                    .contains(&hello.protocol_version);
                self.session = accepted.then_some(hello.protocol_version);
                self.history_opened = false;
                self.scan_counter = 0;
                self.base = self.raw;
                // A new session shows nothing until its host sends a frame (§5.6), and a
                // calibration image half sent in the last one is forgotten (§15).
                self.leds = None;
                self.image = [0; MAX_IMAGE_LEN];
                let ack = self.hello_ack(accepted);
                emit(self.frame(ack));
            }
            Message::Ping(ping) => emit(self.frame(Message::Pong(Pong { nonce: ping.nonce }))),
            Message::LedFrame(frame)
                if self.session.is_some_and(|v| v >= LED_VERSION)
                    && frame.board_size() == self.config.board_size =>
            {
                self.leds = Some(frame);
                let ack = Message::LedAck(LedAck {
                    frame_id: frame.frame_id,
                    content_crc: frame.content_crc(),
                });
                emit(self.frame(ack));
            }
            Message::HistoryOpen(open) if self.history_session() => {
                if let Some(history) = history {
                    self.history_opened = true;
                    let buttons = self.session_buttons();
                    let info = history.open(open.boot_id, open.since_ms, buttons);
                    emit(self.frame(Message::HistoryInfo(info)));
                }
            }
            Message::HistoryPull(pull) if self.history_session() => {
                if let Some(history) = history {
                    for chunk in history.window(pull.since_ms, pull.from_entry) {
                        emit(self.frame(Message::HistoryChunk(chunk)));
                    }
                }
            }
            _ => {}
        }
    }

    fn history_session(&self) -> bool {
        self.session.is_some_and(|v| v >= HISTORY_VERSION)
    }

    /// The `HelloAck` this board sends (§5.2).
    pub fn hello_ack(&self, accepted: bool) -> Message {
        Message::HelloAck(HelloAck {
            protocol_version: self.config.protocol_version,
            accepted,
            board_size: self.config.board_size,
            scan_rate_hz: self.config.scan_rate_hz,
            firmware_version: self.config.firmware_version,
            device_id: self.config.device_id,
        })
    }

    /// One scan taken at board time `board_ms`, with the debouncer's counters `buttons`
    /// (counted since power-up, wrapping): in a session, the `Scan` to send, carrying the next
    /// scan counter and the presses since the session opened (§5.3, §7). Put it on the wire
    /// with [`BoardLink::frame`], or drop it when the host does not read (the host sees the
    /// gap in the scan counters, §8). `None` without a session.
    pub fn scan(
        &mut self,
        board_ms: u32,
        cells: PackedCells,
        buttons: ButtonCounters,
    ) -> Option<Scan> {
        self.raw = buttons;
        self.session?;
        let scan = Scan {
            scan_counter: self.scan_counter,
            board_ms,
            buttons: self.session_buttons(),
            cells,
        };
        self.scan_counter = self.scan_counter.wrapping_add(1);
        Some(scan)
    }

    /// The debouncer's counters seen without a scan going out (a board that is busy or
    /// stalled): a later `HistoryInfo` reports the presses (§5.9).
    pub fn observe_buttons(&mut self, buttons: ButtonCounters) {
        self.raw = buttons;
    }

    /// The presses counted in this session (since its `HelloAck`, §7).
    pub fn session_buttons(&self) -> ButtonCounters {
        self.raw.presses_since(&self.base)
    }

    /// `message` as the board's next frame: its `seq` is one more than the last (§2.2).
    pub fn frame(&mut self, message: Message) -> Frame {
        let frame = Frame {
            seq: self.tx_seq,
            message,
        };
        self.tx_seq = self.tx_seq.wrapping_add(1);
        frame
    }

    /// The host went away (the USB cable pulled, the port closed): the session ends, a frame
    /// half received is dropped and the LEDs go dark until the next host's frame.
    pub fn disconnect(&mut self) {
        self.session = None;
        self.history_opened = false;
        self.decoder = FrameDecoder::new();
        self.leds = None;
        self.heard_ms = None;
    }

    /// The microcontroller restarted: as [`BoardLink::new`], and the debouncer counts from 0.
    pub fn restart(&mut self) {
        *self = BoardLink::new(self.config);
    }

    /// Opens a session of `version` without a `Hello` (a board whose firmware restarted in the
    /// middle of a session and goes on as if it were open — a fault the virtual board plays,
    /// not what this firmware does): the scan and button counters restart from 0.
    pub fn resume(&mut self, version: u8) {
        self.session = Some(version);
        self.history_opened = false;
        self.scan_counter = 0;
        self.base = self.raw;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smartgoban_protocol::{
        encode, Button, Cell, Hello, HistoryOpen, HistoryPull, InfoStatus, LedCells, LedEffect,
        LedPaint, Ping, Side, MAX_FRAME_LEN, PALETTE_LEN, PROTOCOL_VERSION,
    };

    type SmallHistory = History<4>;

    fn config() -> LinkConfig {
        LinkConfig {
            board_size: BoardSize::NINE,
            protocol_version: PROTOCOL_VERSION,
            scan_rate_hz: 50,
            firmware_version: 7,
            device_id: 0xdead_beef,
        }
    }

    fn wire(seq: u8, message: Message) -> ([u8; MAX_FRAME_LEN], usize) {
        let mut out = [0u8; MAX_FRAME_LEN];
        let n = encode(&Frame { seq, message }, &mut out).unwrap();
        (out, n)
    }

    /// Feeds `message` to `link` at `now_ms`; returns the frames it answered with.
    fn send(
        link: &mut BoardLink,
        message: Message,
        now_ms: u32,
        history: Option<&mut SmallHistory>,
    ) -> std::vec::Vec<Frame> {
        let (bytes, n) = wire(9, message);
        let mut got = std::vec::Vec::new();
        link.receive(&bytes[..n], now_ms, history, None, &mut |f| got.push(f));
        got
    }

    extern crate std;

    fn hello(version: u8) -> Message {
        Message::Hello(Hello {
            protocol_version: version,
        })
    }

    fn cells() -> PackedCells {
        PackedCells::new(BoardSize::NINE)
    }

    fn press(counters: &mut ButtonCounters, button: Button, side: Side) -> ButtonCounters {
        counters.record_press(button, side);
        *counters
    }

    #[test]
    fn a_hello_opens_a_session_whose_scans_count_from_zero() {
        let mut link = BoardLink::new(config());
        assert_eq!(
            link.scan(0, cells(), ButtonCounters::ZERO),
            None,
            "no session yet"
        );
        let got = send(&mut link, hello(3), 5, None);
        assert_eq!(got.len(), 1);
        match got[0].message {
            Message::HelloAck(ack) => {
                assert!(ack.accepted);
                assert_eq!(
                    ack.protocol_version, PROTOCOL_VERSION,
                    "the board's highest"
                );
                assert_eq!(ack.board_size, BoardSize::NINE);
                assert_eq!(ack.firmware_version, 7);
                assert_eq!(ack.device_id, 0xdead_beef);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(link.session_version(), Some(3));
        let first = link.scan(20, cells(), ButtonCounters::ZERO).unwrap();
        let second = link.scan(40, cells(), ButtonCounters::ZERO).unwrap();
        assert_eq!((first.scan_counter, second.scan_counter), (0, 1));
        assert_eq!(second.board_ms, 40);
        // Every frame carries the next seq.
        let f1 = link.frame(Message::Scan(first));
        let f2 = link.frame(Message::Scan(second));
        assert_eq!((f1.seq, f2.seq), (1, 2));
    }

    #[test]
    fn a_version_the_board_does_not_speak_is_refused_and_opens_nothing() {
        for version in [0, PROTOCOL_VERSION + 1, 200] {
            let mut link = BoardLink::new(config());
            let got = send(&mut link, hello(version), 0, None);
            match got[0].message {
                Message::HelloAck(ack) => assert!(!ack.accepted, "version {version}"),
                other => panic!("{other:?}"),
            }
            assert_eq!(link.session_version(), None);
            assert_eq!(link.scan(20, cells(), ButtonCounters::ZERO), None);
        }
        // Every version from 1 up is spoken.
        for version in MIN_PROTOCOL_VERSION..=PROTOCOL_VERSION {
            let mut link = BoardLink::new(config());
            send(&mut link, hello(version), 0, None);
            assert_eq!(link.session_version(), Some(version));
        }
    }

    #[test]
    fn buttons_count_from_the_session_start() {
        let mut link = BoardLink::new(config());
        let mut raw = ButtonCounters::ZERO;
        // Presses before any session (counted by the debouncer since power-up).
        press(&mut raw, Button::Clock, Side::Black);
        press(&mut raw, Button::Clock, Side::Black);
        link.observe_buttons(raw);
        send(&mut link, hello(3), 0, None);
        let scan = link.scan(20, cells(), raw).unwrap();
        assert_eq!(scan.buttons, ButtonCounters::ZERO);
        let raw = press(&mut raw, Button::Pass, Side::White);
        let scan = link.scan(40, cells(), raw).unwrap();
        assert_eq!(scan.buttons.get(Button::Pass, Side::White), 1);
        assert_eq!(scan.buttons.get(Button::Clock, Side::Black), 0);
        // A counter that wraps past 255 on the debouncer still counts right.
        let mut wrapped = raw;
        for _ in 0..300 {
            wrapped.record_press(Button::Clock, Side::White);
        }
        let scan = link.scan(60, cells(), wrapped).unwrap();
        assert_eq!(
            scan.buttons.get(Button::Clock, Side::White),
            (300 % 256) as u8
        );
        // A new Hello: counters restart.
        send(&mut link, hello(3), 70, None);
        let scan = link.scan(80, cells(), wrapped).unwrap();
        assert_eq!(scan.buttons, ButtonCounters::ZERO);
        assert_eq!(scan.scan_counter, 0);
    }

    #[test]
    fn pings_are_answered_in_any_state_and_keep_the_link_alive() {
        let mut link = BoardLink::new(config());
        assert!(link.host_silent(0), "nothing heard yet");
        let got = send(
            &mut link,
            Message::Ping(Ping { nonce: 0x1234_5678 }),
            100,
            None,
        );
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].message, Message::Pong(Pong { nonce: 0x1234_5678 }));
        assert!(!link.host_silent(100 + LINK_TIMEOUT_MS - 1));
        assert!(link.host_silent(100 + LINK_TIMEOUT_MS));
        // The clock wraps.
        send(
            &mut link,
            Message::Ping(Ping { nonce: 1 }),
            u32::MAX - 10,
            None,
        );
        assert!(!link.host_silent(100));
        assert!(link.host_silent(LINK_TIMEOUT_MS));
    }

    fn led_frame(size: BoardSize, id: u16) -> LedFrame {
        let mut palette = [LedPaint::OFF; PALETTE_LEN];
        palette[1] = LedPaint {
            rgb: [200, 10, 0],
            effect: LedEffect::Blink { period_ds: 5 },
        };
        let mut cells = LedCells::new(size);
        cells.set(4, 1);
        LedFrame {
            frame_id: id,
            palette,
            cells,
        }
    }

    #[test]
    fn led_frames_are_shown_and_acknowledged_from_version_2_in_a_session_of_the_board_s_size() {
        let mut link = BoardLink::new(config());
        // Before a session: ignored.
        assert!(send(
            &mut link,
            Message::LedFrame(led_frame(BoardSize::NINE, 1)),
            0,
            None
        )
        .is_empty());
        assert_eq!(link.leds(), None);
        send(&mut link, hello(2), 0, None);
        let frame = led_frame(BoardSize::NINE, 2);
        let got = send(&mut link, Message::LedFrame(frame), 10, None);
        assert_eq!(
            got[0].message,
            Message::LedAck(LedAck {
                frame_id: 2,
                content_crc: frame.content_crc()
            })
        );
        assert_eq!(link.leds(), Some(&frame));
        // Another size: ignored, the frame shown stays.
        assert!(send(
            &mut link,
            Message::LedFrame(led_frame(BoardSize::NINETEEN, 3)),
            20,
            None
        )
        .is_empty());
        assert_eq!(link.leds(), Some(&frame));
        // A new session starts dark; so does a pulled cable.
        send(&mut link, hello(2), 30, None);
        assert_eq!(link.leds(), None);
        send(&mut link, Message::LedFrame(frame), 40, None);
        link.disconnect();
        assert_eq!(link.leds(), None);
        assert_eq!(link.session_version(), None);
        // Version 1 has no LED frames.
        send(&mut link, hello(1), 50, None);
        assert!(send(&mut link, Message::LedFrame(frame), 60, None).is_empty());
        assert_eq!(link.leds(), None);
    }

    #[test]
    fn the_history_is_answered_in_a_version_3_session_only() {
        let mut history = SmallHistory::new(BoardSize::NINE);
        history.restart(0x00c0_ffee);
        let mut cells = cells();
        history.record_scan(0, &cells);
        cells.set(10, Cell::Black);
        history.record_scan(20, &cells);
        history.record_press(30, Button::Clock, Side::Black);
        cells.set(11, Cell::White);
        history.record_scan(40, &cells);

        let open = Message::HistoryOpen(HistoryOpen {
            boot_id: 0x00c0_ffee,
            since_ms: 0,
        });
        let mut link = BoardLink::new(config());
        send(&mut link, hello(2), 0, Some(&mut history));
        assert!(
            send(&mut link, open, 1, Some(&mut history)).is_empty(),
            "version 2"
        );

        send(&mut link, hello(3), 2, Some(&mut history));
        assert!(link.awaits_history_open());
        let got = send(&mut link, open, 3, Some(&mut history));
        let Message::HistoryInfo(info) = got[0].message else {
            panic!("{:?}", got[0].message)
        };
        assert!(!link.awaits_history_open());
        assert_eq!(info.boot_id, 0x00c0_ffee);
        assert_eq!(info.status, InfoStatus::Ok);
        assert_eq!(info.entries, 3, "two points and a press");
        let pull = Message::HistoryPull(HistoryPull {
            since_ms: 0,
            from_entry: 0,
        });
        let got = send(&mut link, pull, 4, Some(&mut history));
        let entries: usize = got
            .iter()
            .map(|f| match f.message {
                Message::HistoryChunk(chunk) => chunk.len(),
                other => panic!("{other:?}"),
            })
            .sum();
        assert_eq!(entries, 3);
        // Seqs go on in order across the answers.
        let seqs: std::vec::Vec<u8> = got.iter().map(|f| f.seq).collect();
        assert!(seqs.windows(2).all(|w| w[1] == w[0].wrapping_add(1)));
        // A board without a history ignores it.
        let mut bare = BoardLink::new(config());
        send(&mut bare, hello(3), 0, None);
        assert!(send(&mut bare, open, 1, None).is_empty());
    }

    #[test]
    fn bad_bytes_and_messages_for_the_host_are_skipped_and_the_next_frame_is_read() {
        let mut link = BoardLink::new(config());
        let mut got = std::vec::Vec::new();
        // Noise, a corrupted frame, a frame meant for the host, a cut frame, then a Hello.
        link.receive(
            &[0x13, 0x55, 0x00, 0xff, 0xff, 0x00],
            0,
            None::<&mut SmallHistory>,
            None,
            &mut |f| got.push(f),
        );
        let (mut bad, n) = wire(1, hello(3));
        bad[3] ^= 0x40;
        link.receive(&bad[..n], 0, None::<&mut SmallHistory>, None, &mut |f| {
            got.push(f)
        });
        let (pong, n) = wire(2, Message::Pong(Pong { nonce: 1 }));
        link.receive(&pong[..n], 0, None::<&mut SmallHistory>, None, &mut |f| {
            got.push(f)
        });
        assert!(got.is_empty(), "{got:?}");
        assert_eq!(link.session_version(), None);
        let (ok, n) = wire(3, hello(3));
        // Split anywhere.
        link.receive(&ok[..2], 0, None::<&mut SmallHistory>, None, &mut |f| {
            got.push(f)
        });
        assert!(got.is_empty());
        link.receive(&ok[2..n], 0, None::<&mut SmallHistory>, None, &mut |f| {
            got.push(f)
        });
        assert_eq!(got.len(), 1);
        assert_eq!(link.session_version(), Some(3));
    }

    #[test]
    fn a_restart_forgets_the_session_and_resume_counts_from_zero() {
        let mut link = BoardLink::new(config());
        send(&mut link, hello(3), 0, None);
        link.scan(20, cells(), ButtonCounters::ZERO);
        link.restart();
        assert_eq!(link.session_version(), None);
        assert!(link.host_silent(30));
        link.resume(3);
        let scan = link.scan(40, cells(), ButtonCounters::ZERO).unwrap();
        assert_eq!(scan.scan_counter, 0);
        assert_eq!(
            link.frame(Message::Scan(scan)).seq,
            0,
            "seq restarts with the chip"
        );
    }
}
