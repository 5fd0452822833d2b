//! [`VirtualBoard`]: the virtual board's microcontroller as a sans-IO state machine
//! (hardware/PROTOCOL.md, versions 1 to 4): bytes from the host in, frames to the host out, one
//! scan period per [`VirtualBoard::tick`], and the cable pulled, the link silent or the
//! microcontroller restarted as calls. [`super::device`] is the pseudo-terminal, thread and
//! pacing shell around it; [`super::loopback::Lockstep`] runs it against the host's
//! [`crate::link::Connection`] and a [`crate::session::Session`] without a pty.
//!
//! The protocol itself — handshake, scan and button counters, pings, LED frames, the history
//! exchange — is the firmware's own [`BoardLink`] (`hardware/board-core/src/link.rs`), which the
//! RP2040 runs: this type adds the physical board (the replay), the faults it plays and the
//! wire.
//!
//! A board of version 3 keeps the firmware's history ([`FirmwareHistory`], PROTOCOL.md §14):
//! it records every scan it takes and every press it counts — also while unplugged, silent or
//! while the host does not read (it has its own power, §1) — and answers `HistoryOpen` and
//! `HistoryPull`. Its boot id is drawn from the seed, and again at every restart
//! ([`LinkFault::Reset`]), which empties the history. A board of version 2 or 1 behaves as
//! before version 3: no history, and a pulled cable is an outage in which its presses are lost
//! ([`Replay::outage`]).
//!
//! A board read through Hall sensors (`--firmware`, [`super::hall`]) answers the calibration
//! messages of a version-4 session (PROTOCOL.md §5.12–§5.18, §15) as the firmware does: its
//! [`HallBoard`](super::hall::HallBoard) is the [`Sensors`] handed to [`BoardLink::receive`] —
//! the last scan's readings, the sensors' health, and a calibration image stored as the flash
//! keeps it (a restart of the microcontroller, [`LinkFault::Reset`], reloads it). A board
//! without Hall sensors has nothing to calibrate and ignores them. A board fresh from the
//! factory (`--uncalibrated`) holds its game while a person follows the LED prompts of
//! `smartgoban calibrate` ([`Replay::tick_calibrating`]); once a calibration is stored, the
//! next session (a new `Hello`: the calibrating host has gone) clears the board and starts
//! the game.

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::action::{LinkFault, ResetKind, TimedAction};
use super::noise::NoiseParams;
use super::player::SCAN_MS;
use super::replay::{Replay, Tick};
use smartgoban_board_core::history::FirmwareHistory;
use smartgoban_board_core::link::{BoardLink, LinkConfig, Sensors};
use smartgoban_protocol::{
    encode, BoardSize, Button, ButtonCounters, Frame, LedFrame, Message, Side, HISTORY_VERSION,
    MAX_FRAME_LEN, MAX_RAW_FRAME_LEN,
};

/// Settings of a [`VirtualBoard`].
#[derive(Clone, Debug)]
pub struct BoardConfig {
    /// Points per side.
    pub board_size: BoardSize,
    /// Seed of every random choice (noise, scatter, line noise, boot ids).
    pub seed: u64,
    /// Sensor noise.
    pub noise: NoiseParams,
    /// Reported in `HelloAck`.
    pub device_id: u32,
    /// The highest protocol version the board speaks (it speaks every version from 1 up to it):
    /// [`smartgoban_protocol::PROTOCOL_VERSION`] (4: LEDs, history and calibration; the
    /// default), 3 (LEDs and history), 2 (LEDs, no history) or 1.
    pub protocol_version: u8,
}

impl Default for BoardConfig {
    /// A 19×19 board of the current protocol version ([`smartgoban_protocol::PROTOCOL_VERSION`]),
    /// seed 1, realistic noise read as cells (set [`NoiseParams::hall`] for Hall sensors).
    fn default() -> Self {
        BoardConfig {
            board_size: BoardSize::NINETEEN,
            seed: 1,
            noise: super::noise::NoiseModel::Realistic.params(),
            device_id: 1,
            protocol_version: smartgoban_protocol::PROTOCOL_VERSION,
        }
    }
}

/// What one [`VirtualBoard::tick`] brought.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The sensors were read (and the scan recorded in the history of a version-3 board).
    Scanned {
        /// Board time of the scan, ms (from the start of the timeline).
        board_ms: u64,
        /// Whether it went to the host: not when the host does not read (the board drops it,
        /// PROTOCOL.md §8) or no session is open.
        sent: bool,
    },
    /// The cable is pulled now for `duration_ms` (`new_node`: plugged back into another port):
    /// the shell takes the board off the wire and calls [`VirtualBoard::unplug`].
    Unplug {
        /// Outage, ms of board time.
        duration_ms: u64,
        /// The board comes back on another `/dev/pts/N` (a `replug`).
        new_node: bool,
    },
    /// The board falls silent now for `duration_ms`: the shell calls
    /// [`VirtualBoard::silence`] (and, at a paced speed, waits as long).
    Silence {
        /// How long, ms of board time.
        duration_ms: u64,
    },
    /// A fault the board played by itself (line noise, a cut or corrupted frame, a restart);
    /// this period's scan is taken by the next tick.
    Fault(LinkFault),
}

/// The virtual microcontroller (module docs). Deterministic for a seed.
pub struct VirtualBoard {
    config: BoardConfig,
    replay: Replay,
    /// The history of a version-3 board.
    history: Option<Box<FirmwareHistory>>,
    /// Draws the boot ids.
    boot_rng: ChaCha8Rng,
    /// Draws the line noise of `garbage`.
    rng: ChaCha8Rng,
    /// The firmware's side of the protocol, as the RP2040 runs it (board-core): handshake,
    /// scan and button counters, pings, LED frames, the history exchange.
    link: BoardLink,
    /// Bytes for the host, not taken yet.
    out: Vec<u8>,
    /// The counter of the last scan taken in a session.
    last_scan_counter: u32,
    scans: u64,
    sessions: u32,
    garbage_until_ms: Option<u64>,
    cut_next: bool,
    bad_crc_next: bool,
    /// Board time (of the timeline) at which the microcontroller last restarted: its
    /// millisecond clock counts from there.
    clock_zero_ms: u64,
    /// The replay's counters at the previous scan: presses are their increase.
    prev_buttons: ButtonCounters,
    /// An uncalibrated board: the session in which its calibration was stored.
    calibrated_in_session: Option<u32>,
}

impl std::fmt::Debug for VirtualBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VirtualBoard")
            .field("config", &self.config)
            .field("board_ms", &self.replay.board_ms())
            .field("boot_id", &self.boot_id())
            .field("session_version", &self.link.session_version())
            .field("history", &self.history.as_ref().map(|h| h.stats()))
            .finish_non_exhaustive()
    }
}

impl VirtualBoard {
    /// A freshly powered board that will play `actions` (sorted by time) once a host opens a
    /// session; it sends nothing until a `Hello` (PROTOCOL.md §4).
    pub fn new(actions: Vec<TimedAction>, config: BoardConfig) -> Self {
        let replay = Replay::new(actions, config.board_size, &config.noise, config.seed);
        let link = BoardLink::new(LinkConfig {
            board_size: config.board_size,
            protocol_version: config.protocol_version,
            scan_rate_hz: (1000 / SCAN_MS) as u8,
            firmware_version: 1,
            device_id: config.device_id,
        });
        let mut board = VirtualBoard {
            history: (config.protocol_version >= HISTORY_VERSION)
                .then(|| Box::new(FirmwareHistory::new(config.board_size))),
            boot_rng: ChaCha8Rng::seed_from_u64(config.seed ^ 0xb007_1d5e_ed00),
            rng: ChaCha8Rng::seed_from_u64(config.seed ^ 0x6a7b_a9e5_11e0),
            replay,
            config,
            link,
            out: Vec::new(),
            last_scan_counter: 0,
            scans: 0,
            sessions: 0,
            garbage_until_ms: None,
            cut_next: false,
            bad_crc_next: false,
            clock_zero_ms: 0,
            prev_buttons: ButtonCounters::ZERO,
            calibrated_in_session: None,
        };
        board.power_up();
        board
    }

    /// The settings.
    pub fn config(&self) -> &BoardConfig {
        &self.config
    }

    /// Whether a session is open (scans go to the host).
    pub fn streaming(&self) -> bool {
        self.link.session_version().is_some()
    }

    /// Whether the open session is of version 3 and the host has not sent its `HistoryOpen`
    /// yet (PROTOCOL.md §14.5 step 1): the host has not caught up with the session.
    pub fn awaits_history_open(&self) -> bool {
        self.history.is_some() && self.link.awaits_history_open()
    }

    /// Whether the next [`VirtualBoard::tick`] plays an unplug or a link fault.
    pub fn link_fault_due(&self) -> bool {
        self.replay.link_fault_due()
    }

    /// The protocol version of the open session.
    pub fn session_version(&self) -> Option<u8> {
        self.link.session_version()
    }

    /// Board time of the next scan, ms from the start of the timeline.
    pub fn board_ms(&self) -> u64 {
        self.replay.board_ms()
    }

    /// Whether every action has happened and `tail_ms` more have passed.
    pub fn is_played_out(&self, tail_ms: u64) -> bool {
        self.replay.is_played_out(tail_ms)
    }

    /// Sessions accepted so far (`HelloAck`s with `accepted` = 1 sent).
    pub fn sessions(&self) -> u32 {
        self.sessions
    }

    /// Scans taken in sessions (sent or dropped).
    pub fn scans(&self) -> u64 {
        self.scans
    }

    /// The `scan_counter` of the last scan taken in a session.
    pub fn last_scan_counter(&self) -> u32 {
        self.last_scan_counter
    }

    /// The LED frame the board shows (the last `LedFrame` of the session), if any.
    pub fn leds(&self) -> Option<LedFrame> {
        self.link.leds().copied()
    }

    /// The boot id of a version-3 board (PROTOCOL.md §14.1); `None` below version 3.
    pub fn boot_id(&self) -> Option<u32> {
        self.history.as_ref().map(|h| h.boot_id())
    }

    /// The Hall sensors and the firmware's logic reading them (`--firmware`).
    pub fn hall(&self) -> Option<&super::hall::HallBoard> {
        self.replay.hall()
    }

    /// Whether the board, fresh from the factory (`--uncalibrated`), still holds its game: a
    /// person follows the LED prompts until a calibration is stored and a new session opens.
    pub fn calibrating(&self) -> bool {
        self.replay.calibrating()
    }

    /// Whether a calibration is stored in the board's flash (`SensorHealth.calibrated`):
    /// `false` without Hall sensors.
    pub fn calibrated(&self) -> bool {
        self.replay.hall().is_some_and(|h| h.is_calibrated())
    }

    /// The history of a version-3 board.
    pub fn history(&self) -> Option<&FirmwareHistory> {
        self.history.as_deref()
    }

    /// The board's millisecond clock at board time `board_ms` of the timeline (it restarts
    /// with the microcontroller, PROTOCOL.md §5.3).
    pub fn clock_ms(&self, board_ms: u64) -> u32 {
        board_ms.saturating_sub(self.clock_zero_ms) as u32
    }

    /// Takes the bytes the board has written for the host since the last call.
    pub fn take_output(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.out)
    }

    /// Bytes from the host, handled by the firmware's [`BoardLink`]: `Hello`, `Ping`,
    /// `LedFrame`, in a version-3 session `HistoryOpen` and `HistoryPull`, and in a version-4
    /// session of a board with Hall sensors `RawRequest`, `CalibrationData`,
    /// `CalibrationCommit` and `HealthRequest` are answered (PROTOCOL.md §4, §5, §14.3, §14.4,
    /// §15); bad frames and other messages are ignored.
    pub fn handle_bytes(&mut self, bytes: &[u8]) {
        let now_ms = self.clock_ms(self.replay.board_ms());
        let mut answers = Vec::new();
        let sensors = self.replay.hall_mut().map(|h| h as &mut dyn Sensors);
        self.link.receive(
            bytes,
            now_ms,
            self.history.as_deref_mut(),
            sensors,
            &mut |frame| answers.push(frame),
        );
        for frame in answers {
            if let Message::HelloAck(ack) = frame.message {
                self.sessions += u32::from(ack.accepted);
            }
            self.put(&frame);
        }
        // An uncalibrated board plays its game once calibrated and its calibrating host gone:
        // at the next session after the calibration was stored.
        if self.replay.calibrating() {
            let stored = self.replay.hall().is_some_and(|h| h.is_calibrated());
            match self.calibrated_in_session {
                None if stored => self.calibrated_in_session = Some(self.sessions),
                Some(k) if self.sessions > k => {
                    self.replay.end_calibration();
                }
                _ => {}
            }
        }
    }

    /// One scan period: applies the actions due, reads the sensors, records the scan and the
    /// presses counted (version 3) and sends the scan if a session is open and `host_reading`
    /// (a host that does not read makes the board drop its scans, PROTOCOL.md §8). An unplug or
    /// a silence due now is returned for the shell to play; line noise, cut and corrupted frames
    /// and restarts are played here.
    pub fn tick(&mut self, host_reading: bool) -> Step {
        let tick = if self.replay.calibrating() {
            let leds = self.link.leds().copied();
            self.replay.tick_calibrating(leds.as_ref())
        } else {
            self.replay.tick()
        };
        let (board_ms, buttons, cells) = match tick {
            Tick::Unplug { duration_ms } => {
                return Step::Unplug {
                    duration_ms,
                    new_node: false,
                }
            }
            Tick::Fault(fault) => {
                match fault {
                    LinkFault::Garbage { duration_ms } => {
                        self.garbage_until_ms =
                            Some(self.replay.board_ms().saturating_add(duration_ms));
                    }
                    LinkFault::Cut => self.cut_next = true,
                    LinkFault::BadCrc => self.bad_crc_next = true,
                    LinkFault::Silence { duration_ms } => return Step::Silence { duration_ms },
                    LinkFault::Replug { duration_ms } => {
                        return Step::Unplug {
                            duration_ms,
                            new_node: true,
                        }
                    }
                    LinkFault::Reset(kind) => self.reset(kind),
                }
                return Step::Fault(fault);
            }
            Tick::Scan {
                board_ms,
                buttons,
                cells,
            } => (board_ms, buttons, cells),
        };
        let clock_ms = self.clock_ms(board_ms);
        self.record(clock_ms, buttons, &cells);
        let Some(scan) = self.link.scan(clock_ms, cells, buttons) else {
            return Step::Scanned {
                board_ms,
                sent: false,
            };
        };
        let sent = if !host_reading {
            false // dropped: the host sees the gap in the scan counters
        } else if self.garbage_until_ms.is_some_and(|until| board_ms < until) {
            // Line noise: the scan was sent, the host gets as many random bytes.
            let frame = self.link.frame(Message::Scan(scan));
            let mut noise = vec![0u8; encoded_len(&frame.message)];
            self.rng.fill_bytes(&mut noise);
            self.out.extend_from_slice(&noise);
            true
        } else {
            self.garbage_until_ms = None;
            let frame = self.link.frame(Message::Scan(scan));
            self.put(&frame);
            true
        };
        self.last_scan_counter = scan.scan_counter;
        self.scans += 1;
        Step::Scanned { board_ms, sent }
    }

    /// The cable is pulled for `duration_ms` of board time (the shell has taken the board off
    /// the wire): the session ends, and the board comes back waiting for a `Hello`. A
    /// version-3 board has its own power: it goes on scanning, counting and recording
    /// meanwhile (PROTOCOL.md §1, §14.2). A board of version 2 or 1 plays an outage: the stones
    /// move, its presses are lost ([`Replay::outage`]).
    pub fn unplug(&mut self, duration_ms: u64) {
        if self.history.is_some() {
            self.run_offline(duration_ms, false);
        } else {
            self.replay.outage(duration_ms);
        }
        // Back on the wire: no session, the LEDs dark until the host sends a frame.
        self.link.disconnect();
        self.garbage_until_ms = None;
        self.out.clear();
    }

    /// The board neither sends nor reads for `duration_ms` of board time (a stalled USB link):
    /// the physical board runs on, presses count, and the microcontroller goes on scanning —
    /// each scan counted in the session and its frame dropped, so the host sees the gap in the
    /// scan counters and a version-3 board's history of it can fill it (PROTOCOL.md §14.7); a
    /// restart of the microcontroller due meanwhile happens, an unplug or another fault is
    /// skipped. What the host sent meanwhile is read afterwards (the shell keeps it). (A hung
    /// firmware scans nothing: the watchdog restarts it, a `Reset` fault.)
    pub fn silence(&mut self, duration_ms: u64) {
        self.run_offline(duration_ms, true);
        self.garbage_until_ms = None;
    }

    /// Runs `duration_ms` of board time without sending: scans recorded, not sent (`counted`:
    /// in the session still open, its scan counter going on); a restart of the microcontroller
    /// due meanwhile happens (its history starts over); unplugs and other faults due meanwhile
    /// are skipped.
    fn run_offline(&mut self, duration_ms: u64, counted: bool) {
        let until = self.replay.board_ms().saturating_add(duration_ms);
        while self.replay.board_ms() < until {
            match self.replay.tick() {
                Tick::Scan {
                    board_ms,
                    buttons,
                    cells,
                } => {
                    let clock_ms = self.clock_ms(board_ms);
                    self.record(clock_ms, buttons, &cells);
                    let scan = counted
                        .then(|| self.link.scan(clock_ms, cells, buttons))
                        .flatten();
                    match scan {
                        Some(scan) => {
                            self.last_scan_counter = scan.scan_counter;
                            self.scans += 1;
                        }
                        None => self.link.observe_buttons(buttons),
                    }
                }
                // The microcontroller restarts whether or not a host listens.
                Tick::Fault(LinkFault::Reset(kind)) => self.reset(kind),
                _ => {}
            }
        }
    }

    /// Records a scan and the presses counted since the previous one in the history.
    fn record(
        &mut self,
        clock_ms: u32,
        buttons: ButtonCounters,
        cells: &smartgoban_protocol::PackedCells,
    ) {
        let presses = buttons.presses_since(&self.prev_buttons);
        self.prev_buttons = buttons;
        let Some(h) = self.history.as_mut() else {
            return;
        };
        for button in [Button::Pass, Button::Resign, Button::Clock] {
            for side in [Side::Black, Side::White] {
                for _ in 0..presses.get(button, side) {
                    h.record_press(clock_ms, button, side);
                }
            }
        }
        h.record_scan(clock_ms, cells);
    }

    /// Power-up: a new boot id and an empty history (PROTOCOL.md §14.1).
    fn power_up(&mut self) {
        if let Some(h) = self.history.as_mut() {
            let boot = loop {
                let id = self.boot_rng.next_u32();
                if id != 0 {
                    break id;
                }
            };
            h.restart(boot);
        }
    }

    /// The microcontroller restarts: the session, the LEDs, the scan and button counters, the
    /// frame seq, its millisecond clock, its boot id and its history start over; what it does
    /// next depends on `kind`.
    fn reset(&mut self, kind: ResetKind) {
        let version = self
            .link
            .session_version()
            .unwrap_or(self.config.protocol_version);
        self.link.restart();
        self.replay.restart_buttons();
        // The firmware starts over from the calibration in its flash.
        if let Some(hall) = self.replay.hall_mut() {
            hall.restart();
        }
        self.prev_buttons = ButtonCounters::ZERO;
        self.clock_zero_ms = self.replay.board_ms();
        self.garbage_until_ms = None;
        self.cut_next = false;
        self.bad_crc_next = false;
        self.power_up();
        match kind {
            ResetKind::Silent => {}
            ResetKind::Hello => {
                self.link.resume(version);
                self.sessions += 1;
                // A delimiter first ends any half frame (PROTOCOL.md §2.1).
                self.out.push(0);
                let ack = self.link.hello_ack(true);
                let frame = self.link.frame(ack);
                self.put(&frame);
            }
            ResetKind::Stream => self.link.resume(version),
        }
    }

    /// Puts `frame` on the wire, corrupted or cut if a fault is due.
    fn put(&mut self, frame: &Frame) {
        let mut buf = [0u8; MAX_FRAME_LEN];
        let Ok(mut n) = encode(frame, &mut buf) else {
            return;
        };
        if std::mem::take(&mut self.bad_crc_next) {
            n = encode_bad_crc(frame, &mut buf);
        }
        if std::mem::take(&mut self.cut_next) {
            n /= 2; // the first half goes out, the rest is lost
        }
        self.out.extend_from_slice(&buf[..n]);
    }
}

/// Length of `message`'s frame on the wire, delimiter included, bytes.
fn encoded_len(message: &Message) -> usize {
    let mut out = [0u8; MAX_FRAME_LEN];
    encode(
        &Frame {
            seq: 1,
            message: *message,
        },
        &mut out,
    )
    .unwrap_or(MAX_FRAME_LEN)
}

/// Writes `frame` to `out` as it goes on the wire but with its CRC-32C corrupted
/// (PROTOCOL.md §2.3); returns the length written.
pub(super) fn encode_bad_crc(frame: &Frame, out: &mut [u8; MAX_FRAME_LEN]) -> usize {
    let mut raw = [0u8; MAX_RAW_FRAME_LEN];
    let Ok(len) = frame.encode_raw(&mut raw) else {
        return 0;
    };
    if let Some(b) = raw.get_mut(len.saturating_sub(4)) {
        *b ^= 0x5A;
    }
    let wire = cobs_encode(raw.get(..len).unwrap_or(&[]));
    let n = wire.len().min(MAX_FRAME_LEN - 1);
    out[..n].copy_from_slice(&wire[..n]);
    out[n] = 0;
    n + 1
}

/// COBS (PROTOCOL.md §2.1) without the delimiter.
pub(super) fn cobs_encode(raw: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8];
    let mut code_at = 0;
    let mut code = 1u8;
    for &b in raw {
        if b != 0 {
            out.push(b);
            code += 1;
        }
        if b == 0 || code == 0xFF {
            out[code_at] = code;
            code_at = out.len();
            out.push(0);
            code = 1;
        }
    }
    out[code_at] = code;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::noise::NoiseModel;
    use crate::sim::Script;
    use smartgoban_protocol::{FrameDecoder, Hello, HistoryOpen, InfoStatus, PROTOCOL_VERSION};

    fn board(script: &str, version: u8, seed: u64) -> VirtualBoard {
        let s = Script::parse(script).unwrap();
        VirtualBoard::new(
            s.actions,
            BoardConfig {
                board_size: BoardSize::new(s.setup.size()).unwrap(),
                seed,
                noise: NoiseModel::Clean.params(),
                device_id: 1,
                protocol_version: version,
            },
        )
    }

    fn frame(message: Message) -> Vec<u8> {
        let mut buf = [0u8; MAX_FRAME_LEN];
        let n = encode(&Frame { seq: 0, message }, &mut buf).unwrap();
        buf[..n].to_vec()
    }

    fn hello(version: u8) -> Vec<u8> {
        frame(Message::Hello(Hello {
            protocol_version: version,
        }))
    }

    fn received(b: &mut VirtualBoard) -> Vec<Message> {
        FrameDecoder::new()
            .frames(&b.take_output())
            .filter_map(Result::ok)
            .map(|f| f.message)
            .collect()
    }

    const GAME: &str = "size 9\n\
        at 0    place B E5\n\
        at 200  clock B\n\
        at 1000 unplug 2000\n\
        at 1400 place W C3\n\
        at 1600 clock W\n\
        at 4000 place B G7\n";

    #[test]
    fn a_version_3_board_records_while_unplugged_and_answers_the_history() {
        let mut b = board(GAME, PROTOCOL_VERSION, 1);
        b.handle_bytes(&hello(3));
        assert!(matches!(&received(&mut b)[..], [Message::HelloAck(a)] if a.accepted));
        let boot = b.boot_id().unwrap();
        let step = loop {
            match b.tick(true) {
                Step::Scanned { .. } => {}
                other => break other,
            }
        };
        assert_eq!(
            step,
            Step::Unplug {
                duration_ms: 2000,
                new_node: false
            }
        );
        let last = b.clock_ms(b.board_ms() - SCAN_MS);
        b.take_output();
        b.unplug(2000);
        assert!(!b.streaming());
        // Back: a new session; the history holds the stone and the press of the outage.
        b.handle_bytes(&hello(3));
        b.handle_bytes(&frame(Message::HistoryOpen(HistoryOpen {
            boot_id: boot,
            since_ms: last,
        })));
        let msgs = received(&mut b);
        let Some(Message::HistoryInfo(info)) = msgs.get(1) else {
            panic!("{msgs:?}");
        };
        assert_eq!(info.status, InfoStatus::Ok);
        assert_eq!(info.until_ms, 2980, "the last scan of the outage");
        b.handle_bytes(&frame(Message::HistoryPull(
            smartgoban_protocol::HistoryPull {
                since_ms: last,
                from_entry: 0,
            },
        )));
        let events: Vec<_> = received(&mut b)
            .iter()
            .flat_map(|m| match m {
                Message::HistoryChunk(c) => c.timed().collect::<Vec<_>>(),
                _ => Vec::new(),
            })
            .map(|e| (e.board_ms, e.event))
            .collect();
        assert_eq!(events.len() as u32, info.entries);
        assert!(events.contains(&(
            1600,
            smartgoban_protocol::HistoryEvent::Press {
                button: Button::Clock,
                side: Side::White
            }
        )));
        assert!(events.iter().any(|&(t, e)| t == 1400
            && matches!(
                e,
                smartgoban_protocol::HistoryEvent::Point { index: 56, .. }
            )));
    }

    #[test]
    fn a_version_2_board_has_no_history_and_ignores_its_requests() {
        let mut b = board(GAME, 2, 1);
        assert_eq!(b.boot_id(), None);
        b.handle_bytes(&hello(3));
        assert!(
            matches!(&received(&mut b)[..], [Message::HelloAck(a)] if !a.accepted && a.protocol_version == 2)
        );
        b.handle_bytes(&hello(2));
        b.handle_bytes(&frame(Message::HistoryOpen(HistoryOpen {
            boot_id: 0,
            since_ms: 0,
        })));
        assert!(matches!(&received(&mut b)[..], [Message::HelloAck(a)] if a.accepted));
        assert!(b.history().is_none());
        // A version-3 board in a version-2 session ignores them too.
        let mut b = board(GAME, 3, 1);
        b.handle_bytes(&hello(2));
        b.handle_bytes(&frame(Message::HistoryOpen(HistoryOpen {
            boot_id: 0,
            since_ms: 0,
        })));
        assert_eq!(received(&mut b).len(), 1);
    }

    #[test]
    fn a_restart_draws_a_new_boot_id_and_empties_the_history() {
        let mut b = board(
            "size 9\nat 0 place B E5\nat 500 reset hello\nat 600 place W C3\n",
            3,
            9,
        );
        let first = b.boot_id().unwrap();
        assert_ne!(first, 0);
        assert_eq!(
            board(GAME, 3, 9).boot_id(),
            Some(first),
            "drawn from the seed"
        );
        assert_ne!(board(GAME, 3, 10).boot_id(), Some(first));
        b.handle_bytes(&hello(3));
        while b.board_ms() < 500 {
            b.tick(true);
        }
        let before = b.history().unwrap().stats();
        assert!(before.newest_ms.is_some());
        assert_eq!(
            b.tick(true),
            Step::Fault(LinkFault::Reset(ResetKind::Hello))
        );
        let second = b.boot_id().unwrap();
        assert_ne!(second, first);
        let after = b.history().unwrap().stats();
        assert_eq!((after.recorded, after.newest_ms), (0, None));
        b.tick(true);
        // The clock restarted with the board: the first scan after the reset is at 0.
        assert_eq!(b.history().unwrap().stats().newest_ms, Some(0));
    }

    #[test]
    fn a_host_that_does_not_read_gets_nothing_but_the_board_records_everything() {
        let mut b = board(GAME, 3, 1);
        b.handle_bytes(&hello(3));
        b.take_output();
        for _ in 0..40 {
            assert!(matches!(b.tick(false), Step::Scanned { sent: false, .. }));
        }
        assert!(b.take_output().is_empty());
        let stats = b.history().unwrap().stats();
        assert_eq!(stats.newest_ms, Some(780));
        assert_eq!(stats.presses, 1, "black's clock at 200");
        // Black E5 (index 40) lay there from the first scan, which only sets the readings.
        assert_eq!(stats.points, 0);
        let readings = b.history().unwrap().readings().unwrap();
        assert_eq!(readings.get(40), smartgoban_protocol::Cell::Black);
    }

    /// A stalled link: the board scans on and counts each scan in the session, so the first
    /// scan after the silence shows the host the gap (PROTOCOL.md §14.7) that the history,
    /// which recorded the silence, fills.
    #[test]
    fn a_silence_counts_its_scans_so_the_host_sees_the_gap() {
        let mut b = board(
            "size 9\nat 0 place B E5\nat 200 silence 500\nat 400 place W C3\n",
            3,
            1,
        );
        b.handle_bytes(&hello(3));
        b.take_output();
        let step = loop {
            match b.tick(true) {
                Step::Scanned { .. } => {}
                other => break other,
            }
        };
        assert_eq!(step, Step::Silence { duration_ms: 500 });
        let before = b.last_scan_counter();
        let scans = b.scans();
        b.take_output();
        b.silence(500);
        assert!(b.take_output().is_empty(), "nothing sent in the silence");
        let counted = b.scans() - scans;
        assert_eq!(counted, 500 / SCAN_MS, "every scan of the silence counted");
        assert_eq!(u64::from(b.last_scan_counter() - before), counted);
        let sent: Vec<u32> = loop {
            b.tick(true);
            let scans: Vec<u32> = received(&mut b)
                .iter()
                .filter_map(|m| match m {
                    Message::Scan(s) => Some(s.scan_counter),
                    _ => None,
                })
                .collect();
            if !scans.is_empty() {
                break scans;
            }
        };
        assert_eq!(sent, [before + counted as u32 + 1], "the gap shows");
        // the history has the stone put down in the silence (C3: index 56)
        let stats = b.history().unwrap().stats();
        assert_eq!(stats.points, 1, "{stats:?}");
    }

    /// The entry rates of the noise models and the minutes of play the firmware's ring holds
    /// (PROTOCOL.md §14.6). Run with
    /// `cargo test --lib sim::board::tests::entry_rates -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement: prints the rates"]
    fn entry_rates() {
        use crate::rules::GameRecord;
        use smartgoban_board_core::history::FIRMWARE_CAPACITY;
        let mut games = vec![GameRecord::from_sgf_bytes(crate::cli::source::BUILTIN_GAME).unwrap()];
        for path in [
            "tests/fixtures/games/yenw-computer-go-dataset/HanDol/Lee Sedol VS HanDol - G1.sgf",
            "tests/fixtures/games/yenw-computer-go-dataset/master/39-2017.01.02-Iyama_Yuta-Master.sgf",
        ] {
            if let Ok(bytes) = std::fs::read(path) {
                games.push(GameRecord::from_sgf_bytes(&bytes).unwrap());
            }
        }
        for name in ["clean", "realistic", "harsh", "blitz"] {
            let Ok(noise) = name.parse::<NoiseModel>() else {
                println!("{name:>9}: no such noise model");
                continue;
            };
            let params = noise.params();
            let (mut entries, mut points, mut presses, mut fillers, mut ms) = (0, 0, 0, 0, 0);
            let moves: usize = games.iter().map(|g| g.moves.len()).sum();
            for (i, record) in games.iter().enumerate() {
                let source = crate::sim::Source::Record(record.clone());
                let options = crate::sim::player::PlayerOptions {
                    press_clock: true,
                    ..Default::default()
                };
                let (actions, _) = source.timeline_with(&params, i as u64 + 1, &options);
                let mut b = VirtualBoard::new(
                    actions,
                    BoardConfig {
                        board_size: BoardSize::new(record.info.size).unwrap(),
                        seed: i as u64 + 1,
                        noise: params.clone(),
                        device_id: 1,
                        protocol_version: 3,
                    },
                );
                while !b.is_played_out(0) {
                    b.tick(false);
                }
                let s = b.history().unwrap().stats();
                entries += s.recorded;
                points += s.points;
                presses += s.presses;
                fillers += s.fillers;
                ms += b.board_ms();
            }
            let minutes = ms as f64 / 60_000.0;
            let rate = entries as f64 / minutes;
            let per_move = entries as f64 / moves as f64;
            println!(
                "{name:>9}: {} games, {moves} moves, {minutes:.1} min of play, {entries} entries \
                 ({points} points, {presses} presses, {fillers} fillers): {rate:.0} entries/min, \
                 {per_move:.1} per move; the ring of {FIRMWARE_CAPACITY} holds {:.0} min, {:.0} moves",
                games.len(),
                FIRMWARE_CAPACITY as f64 / rate,
                FIRMWARE_CAPACITY as f64 / per_move
            );
        }
    }
}
