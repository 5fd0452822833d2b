//! The version-4 messages of calibration (hardware/PROTOCOL.md §5.12–§5.18, §15): the host
//! reads the sensors' raw readings ([`RawRequest`] → [`RawReadings`]) while a person lays the
//! calibration patterns, writes the calibration image it computed into the board's flash
//! ([`CalibrationData`] chunks, then [`CalibrationCommit`] → [`CalibrationAck`]) and asks the
//! board for its sensors' health ([`HealthRequest`] → [`SensorHealth`]). The image's layout
//! (§15.2) is the board's business (`smartgoban-board-core`'s `image`); the protocol carries
//! it as bytes with a CRC-32C. All multi-byte integers are little-endian.
//!
//! Decoding checks exactly what §5.12–§5.18 and §9 list, in that order: the payload's length
//! ([`DecodeError::BadLength`]; for [`RawReadings`] and [`CalibrationData`] the length their
//! `count` (at most [`MAX_RAW_POINTS`]) or `len` (1 to [`MAX_DATA_BYTES`]) gives, for
//! [`SensorHealth`] the length for its board size, checked first as in a `Scan`:
//! [`DecodeError::BadBoardSize`]), then the fields ([`DecodeError::BadStatus`] for an
//! undefined [`CalibrationAck`] status or [`SensorHealth`] `calibrated` byte,
//! [`DecodeError::BadPadding`] for a health nibble past the last point). Values the board
//! judges (a `first_point` past its last point, an `offset` past [`MAX_IMAGE_LEN`], a reading
//! above 4,095) decode as they are. Nothing here panics on any input.

use crate::board_size::BoardSize;
use crate::error::DecodeError;
use crate::frame::Writer;
use crate::message::MessageKind;
use crate::MAX_BOARD_SIZE;

/// The most points one [`RawReadings`] carries: 112 readings of 2 bytes, a 231-byte payload.
pub const MAX_RAW_POINTS: usize = 112;

/// The most image bytes one [`CalibrationData`] carries (a 244-byte payload).
pub const MAX_DATA_BYTES: usize = 240;

/// The longest calibration image a board takes, in bytes: 8 KiB, two of the RP2040's flash
/// sectors (§15).
pub const MAX_IMAGE_LEN: usize = 8192;

/// Bytes of packed health for the largest board: one nibble a point, ceil(361/2) = 181.
pub const MAX_HEALTH_BYTES: usize = (MAX_BOARD_SIZE as usize * MAX_BOARD_SIZE as usize).div_ceil(2);

fn bad_length(kind: MessageKind, expected: usize, actual: usize) -> DecodeError {
    DecodeError::BadLength {
        kind: kind.as_u8(),
        expected,
        actual,
    }
}

fn u16_at(p: &[u8], at: usize) -> u16 {
    match p.get(at..at + 2) {
        Some(&[a, b]) => u16::from_le_bytes([a, b]),
        _ => 0,
    }
}

fn u32_at(p: &[u8], at: usize) -> u32 {
    match p.get(at..at + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

/// `0x13` host → board, version 4: asks for the latest scan's raw readings of `count` points
/// from `first_point` (hardware/PROTOCOL.md §5.12). Payload, 3 bytes: offset 0 `first_point`
/// (u16 LE, row-major from the top left, as the cells of a `Scan`), offset 2 `count` (u8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawRequest {
    /// The first point, `y × size + x`.
    pub first_point: u16,
    /// How many points (the board answers at most [`MAX_RAW_POINTS`], and none past the
    /// board's last point).
    pub count: u8,
}

impl RawRequest {
    /// Payload length in bytes.
    pub const PAYLOAD_LEN: usize = 3;

    pub(crate) fn parse(p: &[u8]) -> Result<RawRequest, DecodeError> {
        let [a, b, count] = *p else {
            return Err(bad_length(MessageKind::RawRequest, 3, p.len()));
        };
        Ok(RawRequest {
            first_point: u16::from_le_bytes([a, b]),
            count,
        })
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.first_point.to_le_bytes());
        w.put(&[self.count]);
    }
}

/// `0x09` board → host, version 4: the raw readings asked for (hardware/PROTOCOL.md §5.13).
///
/// Payload, `7 + 2 × count` bytes:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | `scan_counter` of the scan the readings come from (u32 LE; 0 outside a session) |
/// | 4 | 2 | `first_point` (u16 LE) |
/// | 6 | 1 | `count` (0 to [`MAX_RAW_POINTS`]) |
/// | 7 | 2 × count | each point's oversampled reading, ADC counts (u16 LE, 0 to 4095) |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RawReadings {
    /// The scan the readings were taken in: the host tells repeated answers apart by it.
    pub scan_counter: u32,
    /// The first point.
    pub first_point: u16,
    count: u8,
    readings: [u16; MAX_RAW_POINTS],
}

impl RawReadings {
    /// Bytes before the readings.
    pub const HEADER_LEN: usize = 7;

    /// Readings of `readings.len()` points from `first_point` (at most [`MAX_RAW_POINTS`]: the
    /// rest are left out).
    pub fn new(scan_counter: u32, first_point: u16, readings: &[u16]) -> RawReadings {
        let count = readings.len().min(MAX_RAW_POINTS);
        let mut out = [0u16; MAX_RAW_POINTS];
        for (slot, &r) in out.iter_mut().zip(readings) {
            *slot = r;
        }
        RawReadings {
            scan_counter,
            first_point,
            count: count as u8,
            readings: out,
        }
    }

    /// The readings (ADC counts), from `first_point` on.
    pub fn readings(&self) -> &[u16] {
        self.readings
            .get(..usize::from(self.count))
            .unwrap_or(&self.readings)
    }

    /// Payload length in bytes.
    pub const fn payload_len(&self) -> usize {
        Self::HEADER_LEN + 2 * self.count as usize
    }

    pub(crate) fn parse(p: &[u8]) -> Result<RawReadings, DecodeError> {
        let kind = MessageKind::RawReadings;
        let Some(&count) = p.get(6) else {
            return Err(bad_length(kind, Self::HEADER_LEN, p.len()));
        };
        let count = usize::from(count).min(MAX_RAW_POINTS + 1);
        let expected = Self::HEADER_LEN + 2 * count.min(MAX_RAW_POINTS);
        if count > MAX_RAW_POINTS || p.len() != expected {
            return Err(bad_length(kind, expected, p.len()));
        }
        let mut readings = [0u16; MAX_RAW_POINTS];
        for (i, r) in readings.iter_mut().take(count).enumerate() {
            *r = u16_at(p, Self::HEADER_LEN + 2 * i);
        }
        Ok(RawReadings {
            scan_counter: u32_at(p, 0),
            first_point: u16_at(p, 4),
            count: count as u8,
            readings,
        })
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.scan_counter.to_le_bytes());
        w.put(&self.first_point.to_le_bytes());
        w.put(&[self.count]);
        for r in self.readings() {
            w.put(&r.to_le_bytes());
        }
    }
}

/// `0x14` host → board, version 4: a piece of the calibration image, to be kept until the
/// [`CalibrationCommit`] (hardware/PROTOCOL.md §5.14). No answer.
///
/// Payload, `4 + len` bytes: offset 0 `offset` (u16 LE, where the bytes go in the image),
/// offset 2 `len` (u16 LE, 1 to [`MAX_DATA_BYTES`]), offset 4 the bytes. A piece past
/// [`MAX_IMAGE_LEN`] is ignored by the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CalibrationData {
    /// Where the bytes go in the image.
    pub offset: u16,
    len: u8,
    bytes: [u8; MAX_DATA_BYTES],
}

impl CalibrationData {
    /// Bytes before the data.
    pub const HEADER_LEN: usize = 4;

    /// The piece `bytes` (at most [`MAX_DATA_BYTES`]: the rest are left out) at `offset`.
    pub fn new(offset: u16, bytes: &[u8]) -> CalibrationData {
        let len = bytes.len().min(MAX_DATA_BYTES);
        let mut out = [0u8; MAX_DATA_BYTES];
        for (slot, &b) in out.iter_mut().zip(bytes) {
            *slot = b;
        }
        CalibrationData {
            offset,
            len: len as u8,
            bytes: out,
        }
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes
            .get(..usize::from(self.len))
            .unwrap_or(&self.bytes)
    }

    /// Payload length in bytes.
    pub const fn payload_len(&self) -> usize {
        Self::HEADER_LEN + self.len as usize
    }

    pub(crate) fn parse(p: &[u8]) -> Result<CalibrationData, DecodeError> {
        let kind = MessageKind::CalibrationData;
        if p.len() < Self::HEADER_LEN {
            return Err(bad_length(kind, Self::HEADER_LEN, p.len()));
        }
        let len = usize::from(u16_at(p, 2));
        let expected = Self::HEADER_LEN + len.clamp(1, MAX_DATA_BYTES);
        if !(1..=MAX_DATA_BYTES).contains(&len) || p.len() != expected {
            return Err(bad_length(kind, expected, p.len()));
        }
        let bytes = p.get(Self::HEADER_LEN..).unwrap_or(&[]);
        Ok(CalibrationData::new(u16_at(p, 0), bytes))
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.offset.to_le_bytes());
        w.put(&u16::from(self.len).to_le_bytes());
        w.put(self.bytes());
    }
}

/// `0x15` host → board, version 4: the image is complete; check it, use it and keep it in
/// flash (hardware/PROTOCOL.md §5.15, §15). Answered by a [`CalibrationAck`]. Payload,
/// 6 bytes: offset 0 `len` (u16 LE, the image's length), offset 2 `crc` (u32 LE, the image's
/// CRC-32C, §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CalibrationCommit {
    /// The image's length in bytes.
    pub len: u16,
    /// The image's CRC-32C.
    pub crc: u32,
}

impl CalibrationCommit {
    /// Payload length in bytes.
    pub const PAYLOAD_LEN: usize = 6;

    pub(crate) fn parse(p: &[u8]) -> Result<CalibrationCommit, DecodeError> {
        if p.len() != Self::PAYLOAD_LEN {
            return Err(bad_length(MessageKind::CalibrationCommit, 6, p.len()));
        }
        Ok(CalibrationCommit {
            len: u16_at(p, 0),
            crc: u32_at(p, 2),
        })
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.len.to_le_bytes());
        w.put(&self.crc.to_le_bytes());
    }
}

/// What became of a committed calibration image (the `status` byte of a [`CalibrationAck`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CalibrationStatus {
    /// `0`: checked, in use and written to flash.
    Stored = 0,
    /// `1`: the bytes received do not have the commit's length and CRC-32C (a piece lost):
    /// send every piece again.
    Mismatch = 1,
    /// `2`: the image is not one this board can use (another board size, an unknown image
    /// version, values out of range). Nothing changed.
    Invalid = 2,
    /// `3`: in use, but writing the flash failed: it is lost at the next power-up.
    FlashFailed = 3,
}

impl CalibrationStatus {
    /// The status for its byte.
    pub const fn from_u8(b: u8) -> Option<CalibrationStatus> {
        match b {
            0 => Some(CalibrationStatus::Stored),
            1 => Some(CalibrationStatus::Mismatch),
            2 => Some(CalibrationStatus::Invalid),
            3 => Some(CalibrationStatus::FlashFailed),
            _ => None,
        }
    }
}

/// `0x0A` board → host, version 4: the answer to a [`CalibrationCommit`]
/// (hardware/PROTOCOL.md §5.16). Payload, 5 bytes: offset 0 `status`
/// ([`CalibrationStatus`]), offset 1 `crc` (u32 LE, the CRC-32C of the bytes the board
/// received).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CalibrationAck {
    /// What became of the image.
    pub status: CalibrationStatus,
    /// The CRC-32C of the image the board received (of its first `len` bytes).
    pub crc: u32,
}

impl CalibrationAck {
    /// Payload length in bytes.
    pub const PAYLOAD_LEN: usize = 5;

    pub(crate) fn parse(p: &[u8]) -> Result<CalibrationAck, DecodeError> {
        let kind = MessageKind::CalibrationAck;
        let [status, ..] = *p else {
            return Err(bad_length(kind, 5, 0));
        };
        if p.len() != Self::PAYLOAD_LEN {
            return Err(bad_length(kind, 5, p.len()));
        }
        let status = CalibrationStatus::from_u8(status).ok_or(DecodeError::BadStatus {
            kind: kind.as_u8(),
            status,
        })?;
        Ok(CalibrationAck {
            status,
            crc: u32_at(p, 1),
        })
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&[self.status as u8]);
        w.put(&self.crc.to_le_bytes());
    }
}

/// `0x16` host → board, version 4: asks for a [`SensorHealth`] (hardware/PROTOCOL.md
/// §5.17). Empty payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HealthRequest;

impl HealthRequest {
    /// Payload length in bytes.
    pub const PAYLOAD_LEN: usize = 0;
}

/// `0x0B` board → host, version 4: each point's sensor health as its calibration found it
/// (hardware/PROTOCOL.md §5.18).
///
/// Payload, `2 + ceil(size²/2)` bytes (43, 87 or 183): offset 0 `board_size`, offset 1
/// `calibrated` (0: the design values, never calibrated; 1: a stored calibration), offset 2 one
/// nibble a point in point order, low nibble first: bit 0 dead, bit 1 swapped, bit 2 weak,
/// bit 3 noisy (0: healthy). The unused high nibble of an odd count is 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SensorHealth {
    size: BoardSize,
    /// Whether the board has a stored calibration.
    pub calibrated: bool,
    nibbles: [u8; MAX_HEALTH_BYTES],
}

impl SensorHealth {
    /// Bytes before the nibbles.
    pub const HEADER_LEN: usize = 2;

    /// Every point of a board of `size` healthy.
    pub fn new(size: BoardSize, calibrated: bool) -> SensorHealth {
        SensorHealth {
            size,
            calibrated,
            nibbles: [0; MAX_HEALTH_BYTES],
        }
    }

    /// The board size.
    pub const fn board_size(&self) -> BoardSize {
        self.size
    }

    /// Payload length for a board of `size`.
    pub const fn payload_len(size: BoardSize) -> usize {
        Self::HEADER_LEN + size.points().div_ceil(2)
    }

    /// Point `i`'s fault bits (low 4 bits); 0 off the board.
    pub fn get(&self, i: usize) -> u8 {
        if i >= self.size.points() {
            return 0;
        }
        self.nibbles
            .get(i / 2)
            .map_or(0, |b| (b >> (4 * (i % 2))) & 0x0f)
    }

    /// Sets point `i`'s fault bits (the low 4 bits of `faults`); nothing off the board.
    pub fn set(&mut self, i: usize, faults: u8) {
        if i < self.size.points() {
            let shift = 4 * (i % 2);
            if let Some(b) = self.nibbles.get_mut(i / 2) {
                *b = (*b & !(0x0f << shift)) | ((faults & 0x0f) << shift);
            }
        }
    }

    pub(crate) fn parse(p: &[u8]) -> Result<SensorHealth, DecodeError> {
        let kind = MessageKind::SensorHealth;
        let [size, calibrated, rest @ ..] = p else {
            return Err(bad_length(kind, Self::HEADER_LEN, p.len()));
        };
        let size = BoardSize::new(*size).map_err(|e| DecodeError::BadBoardSize(e.0))?;
        if rest.len() != size.points().div_ceil(2) {
            return Err(bad_length(kind, Self::payload_len(size), p.len()));
        }
        let calibrated = match calibrated {
            0 => false,
            1 => true,
            &status => {
                return Err(DecodeError::BadStatus {
                    kind: kind.as_u8(),
                    status,
                })
            }
        };
        if size.points() % 2 == 1 && rest.last().is_some_and(|b| b >> 4 != 0) {
            return Err(DecodeError::BadPadding);
        }
        let mut nibbles = [0u8; MAX_HEALTH_BYTES];
        for (slot, &b) in nibbles.iter_mut().zip(rest) {
            *slot = b;
        }
        Ok(SensorHealth {
            size,
            calibrated,
            nibbles,
        })
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&[self.size.get(), u8::from(self.calibrated)]);
        let used = self.size.points().div_ceil(2);
        w.put(self.nibbles.get(..used).unwrap_or(&self.nibbles));
    }
}
