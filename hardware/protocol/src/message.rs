//! The v1 messages and their payload layouts (hardware/PROTOCOL.md §5): [`Hello`],
//! [`HelloAck`], [`Scan`], [`Ping`], [`Pong`], the [`Message`] enum over them and over the
//! messages of later versions (LED frames, §5.6–§5.7; the board's history, §5.8–§5.11;
//! calibration, §5.12–§5.18), and
//! [`MessageKind`], the `kind` byte. All multi-byte integers are little-endian.

use crate::board_size::BoardSize;
use crate::buttons::ButtonCounters;
use crate::calibration::{
    CalibrationAck, CalibrationCommit, CalibrationData, HealthRequest, RawReadings, RawRequest,
    SensorHealth,
};
use crate::cell::PackedCells;
use crate::error::DecodeError;
use crate::frame::Writer;
use crate::history::{HistoryChunk, HistoryInfo, HistoryOpen, HistoryPull};
use crate::led::{LedAck, LedFrame};
use crate::PROTOCOL_VERSION;

/// Which way a message travels (hardware/PROTOCOL.md §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Sent by the host (the Raspberry Pi), read by the board.
    HostToBoard,
    /// Sent by the board (the RP2040), read by the host.
    BoardToHost,
}

/// The `kind` byte, the first byte of every raw frame (hardware/PROTOCOL.md §2.2, §5).
/// `0x06` and `0x10` came with version 2 (LED frames), `0x07`, `0x08`, `0x11` and `0x12` with
/// version 3 (the board's history), `0x09`–`0x0B` and `0x13`–`0x16` with version 4
/// (calibration); `0x17..=0xFF` are reserved for later versions (§10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum MessageKind {
    /// `0x01` [`Hello`], host → board (§5.1).
    Hello = 0x01,
    /// `0x02` [`HelloAck`], board → host (§5.2).
    HelloAck = 0x02,
    /// `0x03` [`Scan`], board → host (§5.3).
    Scan = 0x03,
    /// `0x04` [`Ping`], host → board (§5.4).
    Ping = 0x04,
    /// `0x05` [`Pong`], board → host (§5.5).
    Pong = 0x05,
    /// `0x06` [`LedAck`], board → host, version 2 (§5.7).
    LedAck = 0x06,
    /// `0x07` [`HistoryInfo`], board → host, version 3 (§5.9).
    HistoryInfo = 0x07,
    /// `0x08` [`HistoryChunk`], board → host, version 3 (§5.11).
    HistoryChunk = 0x08,
    /// `0x09` [`RawReadings`], board → host, version 4 (§5.13).
    RawReadings = 0x09,
    /// `0x0A` [`CalibrationAck`], board → host, version 4 (§5.16).
    CalibrationAck = 0x0A,
    /// `0x0B` [`SensorHealth`], board → host, version 4 (§5.18).
    SensorHealth = 0x0B,
    /// `0x10` [`LedFrame`], host → board, version 2 (§5.6).
    LedFrame = 0x10,
    /// `0x11` [`HistoryOpen`], host → board, version 3 (§5.8).
    HistoryOpen = 0x11,
    /// `0x12` [`HistoryPull`], host → board, version 3 (§5.10).
    HistoryPull = 0x12,
    /// `0x13` [`RawRequest`], host → board, version 4 (§5.12).
    RawRequest = 0x13,
    /// `0x14` [`CalibrationData`], host → board, version 4 (§5.14).
    CalibrationData = 0x14,
    /// `0x15` [`CalibrationCommit`], host → board, version 4 (§5.15).
    CalibrationCommit = 0x15,
    /// `0x16` [`HealthRequest`], host → board, version 4 (§5.17).
    HealthRequest = 0x16,
}

impl MessageKind {
    /// Every kind, in `kind` byte order.
    pub const ALL: [MessageKind; 18] = [
        MessageKind::Hello,
        MessageKind::HelloAck,
        MessageKind::Scan,
        MessageKind::Ping,
        MessageKind::Pong,
        MessageKind::LedAck,
        MessageKind::HistoryInfo,
        MessageKind::HistoryChunk,
        MessageKind::RawReadings,
        MessageKind::CalibrationAck,
        MessageKind::SensorHealth,
        MessageKind::LedFrame,
        MessageKind::HistoryOpen,
        MessageKind::HistoryPull,
        MessageKind::RawRequest,
        MessageKind::CalibrationData,
        MessageKind::CalibrationCommit,
        MessageKind::HealthRequest,
    ];

    /// The kind for a `kind` byte, or `None` if no version defines it.
    pub const fn from_u8(kind: u8) -> Option<MessageKind> {
        match kind {
            0x01 => Some(MessageKind::Hello),
            0x02 => Some(MessageKind::HelloAck),
            0x03 => Some(MessageKind::Scan),
            0x04 => Some(MessageKind::Ping),
            0x05 => Some(MessageKind::Pong),
            0x06 => Some(MessageKind::LedAck),
            0x07 => Some(MessageKind::HistoryInfo),
            0x08 => Some(MessageKind::HistoryChunk),
            0x09 => Some(MessageKind::RawReadings),
            0x0A => Some(MessageKind::CalibrationAck),
            0x0B => Some(MessageKind::SensorHealth),
            0x10 => Some(MessageKind::LedFrame),
            0x11 => Some(MessageKind::HistoryOpen),
            0x12 => Some(MessageKind::HistoryPull),
            0x13 => Some(MessageKind::RawRequest),
            0x14 => Some(MessageKind::CalibrationData),
            0x15 => Some(MessageKind::CalibrationCommit),
            0x16 => Some(MessageKind::HealthRequest),
            _ => None,
        }
    }

    /// The `kind` byte.
    pub const fn as_u8(self) -> u8 {
        self as u8
    }

    /// Who sends this kind.
    pub const fn direction(self) -> Direction {
        match self {
            MessageKind::Hello
            | MessageKind::Ping
            | MessageKind::LedFrame
            | MessageKind::HistoryOpen
            | MessageKind::HistoryPull
            | MessageKind::RawRequest
            | MessageKind::CalibrationData
            | MessageKind::CalibrationCommit
            | MessageKind::HealthRequest => Direction::HostToBoard,
            MessageKind::HelloAck
            | MessageKind::Scan
            | MessageKind::Pong
            | MessageKind::LedAck
            | MessageKind::HistoryInfo
            | MessageKind::HistoryChunk
            | MessageKind::RawReadings
            | MessageKind::CalibrationAck
            | MessageKind::SensorHealth => Direction::BoardToHost,
        }
    }
}

/// `0x01` host → board: opens (or restarts) a session (hardware/PROTOCOL.md §4, §5.1).
///
/// Payload, 1 byte: offset 0 `protocol_version: u8`, the host's [`PROTOCOL_VERSION`]. The
/// host sends it on connect and every 500 ms until a [`HelloAck`] comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hello {
    /// The protocol version the host speaks ([`PROTOCOL_VERSION`], or 1 for a board that
    /// speaks only version 1).
    pub protocol_version: u8,
}

impl Hello {
    /// Payload length in bytes.
    pub const PAYLOAD_LEN: usize = 1;

    /// A `Hello` for this crate's [`PROTOCOL_VERSION`].
    pub const fn current() -> Hello {
        Hello {
            protocol_version: PROTOCOL_VERSION,
        }
    }

    fn parse(payload: &[u8]) -> Result<Hello, DecodeError> {
        let [protocol_version] = *fixed::<1>(MessageKind::Hello, payload)?;
        Ok(Hello { protocol_version })
    }

    fn write(&self, w: &mut Writer<'_>) {
        w.put(&[self.protocol_version]);
    }
}

/// `0x02` board → host: answers a [`Hello`] (hardware/PROTOCOL.md §4, §5.2).
///
/// Payload, 10 bytes (its layout is frozen for every version, §11):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | `protocol_version` |
/// | 1 | 1 | `accepted` (0 or 1) |
/// | 2 | 1 | `board_size` (9, 13, 19) |
/// | 3 | 1 | `scan_rate_hz` |
/// | 4 | 2 | `firmware_version` (u16 LE) |
/// | 6 | 4 | `device_id` (u32 LE) |
///
/// Every `HelloAck` starts a new session: `Scan::scan_counter` and the button counters restart
/// from 0, and if `accepted` scans follow (§4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HelloAck {
    /// The protocol version the board speaks.
    pub protocol_version: u8,
    /// Whether the board speaks the version of the `Hello` it answers (wire: 1 = yes, 0 = no).
    /// Without it the board sends no scans and the host reports the board's version.
    pub accepted: bool,
    /// The sensor grid's side in points.
    pub board_size: BoardSize,
    /// Scans per second the board will send (50 by default, §8).
    pub scan_rate_hz: u8,
    /// The firmware build, chosen by the firmware; the host only logs and shows it.
    pub firmware_version: u16,
    /// An identifier of this board (e.g. from the RP2040's flash unique ID); 0 if unknown.
    pub device_id: u32,
}

impl HelloAck {
    /// Payload length in bytes.
    pub const PAYLOAD_LEN: usize = 10;

    fn parse(payload: &[u8]) -> Result<HelloAck, DecodeError> {
        let p = fixed::<10>(MessageKind::HelloAck, payload)?;
        let accepted = match p[1] {
            0 => false,
            1 => true,
            other => return Err(DecodeError::BadAccepted(other)),
        };
        Ok(HelloAck {
            protocol_version: p[0],
            accepted,
            board_size: BoardSize::new(p[2]).map_err(|e| DecodeError::BadBoardSize(e.0))?,
            scan_rate_hz: p[3],
            firmware_version: u16::from_le_bytes([p[4], p[5]]),
            device_id: u32::from_le_bytes([p[6], p[7], p[8], p[9]]),
        })
    }

    fn write(&self, w: &mut Writer<'_>) {
        w.put(&[
            self.protocol_version,
            u8::from(self.accepted),
            self.board_size.get(),
            self.scan_rate_hz,
        ]);
        w.put(&self.firmware_version.to_le_bytes());
        w.put(&self.device_id.to_le_bytes());
    }
}

/// `0x03` board → host: one reading of the whole board and the buttons
/// (hardware/PROTOCOL.md §5.3, §6, §7).
///
/// Payload, `15 + ceil(size²/4)` bytes (36, 58 or 106):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | `scan_counter` (u32 LE) |
/// | 4 | 4 | `board_ms` (u32 LE) |
/// | 8 | 1 | `board_size` (9, 13, 19) |
/// | 9..=14 | 6 | button counters ([`ButtonCounters`] field order) |
/// | 15 | 21/43/91 | packed cells ([`PackedCells`]) |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scan {
    /// Scans taken since the `HelloAck` (the first scan is 0), +1 per scan, wrapping.
    /// A gap means the board skipped scans (frames lost on the wire show as `seq` gaps).
    pub scan_counter: u32,
    /// The board's millisecond clock when the scan was taken; wraps after ~49.7 days.
    pub board_ms: u32,
    /// Cumulative button presses since the `HelloAck`.
    pub buttons: ButtonCounters,
    /// Every point's reading; its [`PackedCells::size`] is the `board_size` byte.
    pub cells: PackedCells,
}

impl Scan {
    /// Bytes before the packed cells: 4 + 4 + 1 + 6 = 15.
    pub const HEADER_LEN: usize = 15;

    /// Payload length in bytes for a board of `size`: 36, 58 or 106.
    pub const fn payload_len(size: BoardSize) -> usize {
        Scan::HEADER_LEN + size.cell_bytes()
    }

    /// The board size, from [`Scan::cells`].
    pub const fn board_size(&self) -> BoardSize {
        self.cells.size()
    }

    fn parse(payload: &[u8]) -> Result<Scan, DecodeError> {
        let bad_length = |expected| DecodeError::BadLength {
            kind: MessageKind::Scan.as_u8(),
            expected,
            actual: payload.len(),
        };
        let (header, cells) = match payload.split_first_chunk::<15>() {
            Some(split) => split,
            None => return Err(bad_length(Scan::HEADER_LEN)),
        };
        let size = BoardSize::new(header[8]).map_err(|e| DecodeError::BadBoardSize(e.0))?;
        if cells.len() != size.cell_bytes() {
            return Err(bad_length(Scan::payload_len(size)));
        }
        Ok(Scan {
            scan_counter: u32::from_le_bytes([header[0], header[1], header[2], header[3]]),
            board_ms: u32::from_le_bytes([header[4], header[5], header[6], header[7]]),
            buttons: ButtonCounters::from_bytes([
                header[9], header[10], header[11], header[12], header[13], header[14],
            ]),
            cells: PackedCells::from_wire(size, cells)?,
        })
    }

    fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.scan_counter.to_le_bytes());
        w.put(&self.board_ms.to_le_bytes());
        w.put(&[self.cells.size().get()]);
        w.put(&self.buttons.to_bytes());
        w.put(self.cells.as_bytes());
    }
}

/// `0x04` host → board: asks for a [`Pong`] with the same nonce (hardware/PROTOCOL.md §5.4,
/// §8). Payload, 4 bytes: offset 0 `nonce: u32` LE, any value the host picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ping {
    /// Chosen by the host, echoed in the `Pong`.
    pub nonce: u32,
}

impl Ping {
    /// Payload length in bytes.
    pub const PAYLOAD_LEN: usize = 4;
}

/// `0x05` board → host: the answer to a [`Ping`] (hardware/PROTOCOL.md §5.5). Payload,
/// 4 bytes: offset 0 `nonce: u32` LE, copied from the `Ping`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pong {
    /// The nonce of the `Ping` answered.
    pub nonce: u32,
}

impl Pong {
    /// Payload length in bytes.
    pub const PAYLOAD_LEN: usize = 4;
}

/// Any message (hardware/PROTOCOL.md §5): what a frame carries after its `kind` and `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(clippy::large_enum_variant)] // no allocator on the firmware: frames live on the stack
pub enum Message {
    /// `0x01`, host → board.
    Hello(Hello),
    /// `0x02`, board → host.
    HelloAck(HelloAck),
    /// `0x03`, board → host.
    Scan(Scan),
    /// `0x04`, host → board.
    Ping(Ping),
    /// `0x05`, board → host.
    Pong(Pong),
    /// `0x06`, board → host (version 2).
    LedAck(LedAck),
    /// `0x10`, host → board (version 2).
    LedFrame(LedFrame),
    /// `0x11`, host → board (version 3).
    HistoryOpen(HistoryOpen),
    /// `0x07`, board → host (version 3).
    HistoryInfo(HistoryInfo),
    /// `0x12`, host → board (version 3).
    HistoryPull(HistoryPull),
    /// `0x08`, board → host (version 3).
    HistoryChunk(HistoryChunk),
    /// `0x13`, host → board (version 4).
    RawRequest(RawRequest),
    /// `0x09`, board → host (version 4).
    RawReadings(RawReadings),
    /// `0x14`, host → board (version 4).
    CalibrationData(CalibrationData),
    /// `0x15`, host → board (version 4).
    CalibrationCommit(CalibrationCommit),
    /// `0x0A`, board → host (version 4).
    CalibrationAck(CalibrationAck),
    /// `0x16`, host → board (version 4).
    HealthRequest(HealthRequest),
    /// `0x0B`, board → host (version 4).
    SensorHealth(SensorHealth),
}

impl Message {
    /// The `kind` of this message.
    pub const fn kind(&self) -> MessageKind {
        match self {
            Message::Hello(_) => MessageKind::Hello,
            Message::HelloAck(_) => MessageKind::HelloAck,
            Message::Scan(_) => MessageKind::Scan,
            Message::Ping(_) => MessageKind::Ping,
            Message::Pong(_) => MessageKind::Pong,
            Message::LedAck(_) => MessageKind::LedAck,
            Message::LedFrame(_) => MessageKind::LedFrame,
            Message::HistoryOpen(_) => MessageKind::HistoryOpen,
            Message::HistoryInfo(_) => MessageKind::HistoryInfo,
            Message::HistoryPull(_) => MessageKind::HistoryPull,
            Message::HistoryChunk(_) => MessageKind::HistoryChunk,
            Message::RawRequest(_) => MessageKind::RawRequest,
            Message::RawReadings(_) => MessageKind::RawReadings,
            Message::CalibrationData(_) => MessageKind::CalibrationData,
            Message::CalibrationCommit(_) => MessageKind::CalibrationCommit,
            Message::CalibrationAck(_) => MessageKind::CalibrationAck,
            Message::HealthRequest(_) => MessageKind::HealthRequest,
            Message::SensorHealth(_) => MessageKind::SensorHealth,
        }
    }

    /// Who sends this message. The decoder accepts both directions; a receiver ignores
    /// (and counts) messages meant for the other side.
    pub const fn direction(&self) -> Direction {
        self.kind().direction()
    }

    /// The payload length in bytes (between `seq` and `crc`).
    pub const fn payload_len(&self) -> usize {
        match self {
            Message::Hello(_) => Hello::PAYLOAD_LEN,
            Message::HelloAck(_) => HelloAck::PAYLOAD_LEN,
            Message::Scan(scan) => Scan::payload_len(scan.board_size()),
            Message::Ping(_) => Ping::PAYLOAD_LEN,
            Message::Pong(_) => Pong::PAYLOAD_LEN,
            Message::LedAck(_) => LedAck::PAYLOAD_LEN,
            Message::LedFrame(frame) => LedFrame::payload_len(frame.board_size()),
            Message::HistoryOpen(_) => HistoryOpen::PAYLOAD_LEN,
            Message::HistoryInfo(info) => HistoryInfo::payload_len(info.board_size()),
            Message::HistoryPull(_) => HistoryPull::PAYLOAD_LEN,
            Message::HistoryChunk(chunk) => chunk.payload_len(),
            Message::RawRequest(_) => RawRequest::PAYLOAD_LEN,
            Message::RawReadings(m) => m.payload_len(),
            Message::CalibrationData(m) => m.payload_len(),
            Message::CalibrationCommit(_) => CalibrationCommit::PAYLOAD_LEN,
            Message::CalibrationAck(_) => CalibrationAck::PAYLOAD_LEN,
            Message::HealthRequest(_) => HealthRequest::PAYLOAD_LEN,
            Message::SensorHealth(m) => SensorHealth::payload_len(m.board_size()),
        }
    }

    /// Parses a payload of message `kind` (§5). Errors: [`DecodeError::UnknownKind`],
    /// [`DecodeError::BadLength`], [`DecodeError::BadBoardSize`],
    /// [`DecodeError::BadAccepted`], [`DecodeError::BadPadding`], [`DecodeError::BadEffect`],
    /// [`DecodeError::BadStatus`], [`DecodeError::BadEntry`]. Never panics.
    pub fn parse(kind: u8, payload: &[u8]) -> Result<Message, DecodeError> {
        let kind = MessageKind::from_u8(kind).ok_or(DecodeError::UnknownKind(kind))?;
        Ok(match kind {
            MessageKind::Hello => Message::Hello(Hello::parse(payload)?),
            MessageKind::HelloAck => Message::HelloAck(HelloAck::parse(payload)?),
            MessageKind::Scan => Message::Scan(Scan::parse(payload)?),
            MessageKind::Ping => Message::Ping(Ping {
                nonce: u32::from_le_bytes(*fixed::<4>(kind, payload)?),
            }),
            MessageKind::Pong => Message::Pong(Pong {
                nonce: u32::from_le_bytes(*fixed::<4>(kind, payload)?),
            }),
            MessageKind::LedAck => Message::LedAck(LedAck::parse(fixed::<6>(kind, payload)?)),
            MessageKind::LedFrame => Message::LedFrame(LedFrame::parse(payload)?),
            MessageKind::HistoryOpen => {
                Message::HistoryOpen(HistoryOpen::parse(fixed::<8>(kind, payload)?))
            }
            MessageKind::HistoryInfo => Message::HistoryInfo(HistoryInfo::parse(payload)?),
            MessageKind::HistoryPull => {
                Message::HistoryPull(HistoryPull::parse(fixed::<8>(kind, payload)?))
            }
            MessageKind::HistoryChunk => Message::HistoryChunk(HistoryChunk::parse(payload)?),
            MessageKind::RawRequest => Message::RawRequest(RawRequest::parse(payload)?),
            MessageKind::RawReadings => Message::RawReadings(RawReadings::parse(payload)?),
            MessageKind::CalibrationData => {
                Message::CalibrationData(CalibrationData::parse(payload)?)
            }
            MessageKind::CalibrationCommit => {
                Message::CalibrationCommit(CalibrationCommit::parse(payload)?)
            }
            MessageKind::CalibrationAck => Message::CalibrationAck(CalibrationAck::parse(payload)?),
            MessageKind::HealthRequest => {
                fixed::<0>(kind, payload)?;
                Message::HealthRequest(HealthRequest)
            }
            MessageKind::SensorHealth => Message::SensorHealth(SensorHealth::parse(payload)?),
        })
    }

    /// Appends the payload bytes (§5).
    pub(crate) fn write_payload(&self, w: &mut Writer<'_>) {
        match self {
            Message::Hello(m) => m.write(w),
            Message::HelloAck(m) => m.write(w),
            Message::Scan(m) => m.write(w),
            Message::Ping(m) => w.put(&m.nonce.to_le_bytes()),
            Message::Pong(m) => w.put(&m.nonce.to_le_bytes()),
            Message::LedAck(m) => m.write(w),
            Message::LedFrame(m) => m.write(w),
            Message::HistoryOpen(m) => m.write(w),
            Message::HistoryInfo(m) => m.write(w),
            Message::HistoryPull(m) => m.write(w),
            Message::HistoryChunk(m) => m.write(w),
            Message::RawRequest(m) => m.write(w),
            Message::RawReadings(m) => m.write(w),
            Message::CalibrationData(m) => m.write(w),
            Message::CalibrationCommit(m) => m.write(w),
            Message::CalibrationAck(m) => m.write(w),
            Message::HealthRequest(_) => {}
            Message::SensorHealth(m) => m.write(w),
        }
    }
}

impl From<HistoryOpen> for Message {
    fn from(m: HistoryOpen) -> Message {
        Message::HistoryOpen(m)
    }
}

impl From<HistoryInfo> for Message {
    fn from(m: HistoryInfo) -> Message {
        Message::HistoryInfo(m)
    }
}

impl From<HistoryPull> for Message {
    fn from(m: HistoryPull) -> Message {
        Message::HistoryPull(m)
    }
}

impl From<HistoryChunk> for Message {
    fn from(m: HistoryChunk) -> Message {
        Message::HistoryChunk(m)
    }
}

impl From<Hello> for Message {
    fn from(m: Hello) -> Message {
        Message::Hello(m)
    }
}

impl From<HelloAck> for Message {
    fn from(m: HelloAck) -> Message {
        Message::HelloAck(m)
    }
}

impl From<Scan> for Message {
    fn from(m: Scan) -> Message {
        Message::Scan(m)
    }
}

impl From<Ping> for Message {
    fn from(m: Ping) -> Message {
        Message::Ping(m)
    }
}

impl From<LedAck> for Message {
    fn from(m: LedAck) -> Message {
        Message::LedAck(m)
    }
}

impl From<LedFrame> for Message {
    fn from(m: LedFrame) -> Message {
        Message::LedFrame(m)
    }
}

impl From<Pong> for Message {
    fn from(m: Pong) -> Message {
        Message::Pong(m)
    }
}

/// The payload as an `N`-byte array, or [`DecodeError::BadLength`].
fn fixed<const N: usize>(kind: MessageKind, payload: &[u8]) -> Result<&[u8; N], DecodeError> {
    payload.try_into().map_err(|_| DecodeError::BadLength {
        kind: kind.as_u8(),
        expected: N,
        actual: payload.len(),
    })
}

impl From<RawRequest> for Message {
    fn from(m: RawRequest) -> Message {
        Message::RawRequest(m)
    }
}

impl From<RawReadings> for Message {
    fn from(m: RawReadings) -> Message {
        Message::RawReadings(m)
    }
}

impl From<CalibrationData> for Message {
    fn from(m: CalibrationData) -> Message {
        Message::CalibrationData(m)
    }
}

impl From<CalibrationCommit> for Message {
    fn from(m: CalibrationCommit) -> Message {
        Message::CalibrationCommit(m)
    }
}

impl From<CalibrationAck> for Message {
    fn from(m: CalibrationAck) -> Message {
        Message::CalibrationAck(m)
    }
}

impl From<HealthRequest> for Message {
    fn from(m: HealthRequest) -> Message {
        Message::HealthRequest(m)
    }
}

impl From<SensorHealth> for Message {
    fn from(m: SensorHealth) -> Message {
        Message::SensorHealth(m)
    }
}
