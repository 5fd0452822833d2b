//! Error types: [`DecodeError`] for bytes that are not a valid frame, [`EncodeError`] for an
//! output buffer that is too small, and the two constructor errors [`InvalidBoardSize`] and
//! [`CellCountError`] (hardware/PROTOCOL.md §9).

use core::fmt;

/// Why received bytes did not give a frame (hardware/PROTOCOL.md §9).
///
/// Each bad frame on the wire gives exactly one `DecodeError`, and decoding resumes with the
/// byte after its `0x00` delimiter. Checks run in this order: delimiting ([`TooLong`]), COBS
/// ([`Cobs`]), length ([`TooShort`]), checksum ([`Crc`]), kind ([`UnknownKind`]), then the
/// payload ([`BadLength`], [`BadBoardSize`], [`BadAccepted`], [`BadPadding`], [`BadEffect`],
/// [`BadStatus`], [`BadEntry`]).
///
/// [`TooLong`]: DecodeError::TooLong
/// [`Cobs`]: DecodeError::Cobs
/// [`TooShort`]: DecodeError::TooShort
/// [`Crc`]: DecodeError::Crc
/// [`UnknownKind`]: DecodeError::UnknownKind
/// [`BadLength`]: DecodeError::BadLength
/// [`BadBoardSize`]: DecodeError::BadBoardSize
/// [`BadAccepted`]: DecodeError::BadAccepted
/// [`BadPadding`]: DecodeError::BadPadding
/// [`BadEffect`]: DecodeError::BadEffect
/// [`BadStatus`]: DecodeError::BadStatus
/// [`BadEntry`]: DecodeError::BadEntry
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecodeError {
    /// The bytes between two delimiters are not valid COBS (a code byte points past the end of
    /// the frame): typically a frame cut short or corrupted in transit (§2.1).
    Cobs,
    /// More than [`DECODER_CAPACITY`](crate::DECODER_CAPACITY) (512) bytes came without a
    /// delimiter. The decoder dropped them and everything up to the next `0x00`, and reports
    /// this once, at that `0x00` (§2.4, §9).
    TooLong,
    /// The COBS-decoded frame has `len` bytes, fewer than the 6 of `kind`, `seq` and `crc`
    /// (§2.2).
    TooShort {
        /// Raw (COBS-decoded) length in bytes.
        len: usize,
    },
    /// The CRC-32C does not match (§2.3): bits were corrupted, or pieces of two frames were
    /// joined.
    Crc {
        /// CRC-32C computed over the received `kind`, `seq` and payload.
        expected: u32,
        /// The value carried in the frame's last four bytes (little-endian).
        actual: u32,
    },
    /// The `kind` byte is not a message of this crate: `0x00`, `0x09..=0x0F`, or `0x13..=0xFF`
    /// (reserved for later versions, §10).
    UnknownKind(u8),
    /// The payload length does not fit the kind (§5). For a `Scan`, `HistoryInfo`, `LedFrame`
    /// or `HistoryChunk` whose payload ends before its header does, `expected` is that header
    /// length; otherwise it is the exact length for the board size (or, for a `HistoryChunk`,
    /// the `count`) it names, and for a `HistoryChunk` whose `count` is above 58 the longest
    /// chunk's, 246 (§5.11).
    BadLength {
        /// The message `kind` byte.
        kind: u8,
        /// Payload bytes required.
        expected: usize,
        /// Payload bytes received.
        actual: usize,
    },
    /// A `board_size` byte that is not 9, 13 or 19 (§5.2, §5.3).
    BadBoardSize(u8),
    /// The `accepted` byte of a `HelloAck` is neither 0 nor 1 (§5.2).
    BadAccepted(u8),
    /// The unused high bits of a `Scan`'s last cell byte are not 0 (§6), or the unused high
    /// nibble of an `LedFrame`'s last cell byte is not 0 (§5.6).
    BadPadding,
    /// An `LedFrame` palette entry's effect byte is invalid (kind 3, or a period that does not
    /// fit its kind, §13). The field is the byte.
    BadEffect(u8),
    /// A `HistoryInfo` or `HistoryChunk` status byte the kind does not define, or a status
    /// other than `Ok` with data only `Ok` carries: a `HistoryInfo` with `entries` ≠ 0 or a
    /// `base` byte ≠ 0, a `HistoryChunk` with `count` ≠ 0 (§5.9, §5.11).
    BadStatus {
        /// The message `kind` byte.
        kind: u8,
        /// The status byte.
        status: u8,
    },
    /// An invalid `HistoryChunk` entry (§5.11): a reserved `what` (361–503, 510), a non-zero bit
    /// 13–15 of its code, `from`/`to` bits on a press or a filler, or a point with `from` =
    /// `to`.
    BadEntry {
        /// Its place in the chunk, 0..=57.
        index: u8,
        /// Its `code`.
        code: u16,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecodeError::Cobs => f.write_str("invalid COBS encoding"),
            DecodeError::TooLong => write!(
                f,
                "frame longer than {} encoded bytes, discarded up to the next delimiter",
                crate::DECODER_CAPACITY
            ),
            DecodeError::TooShort { len } => write!(
                f,
                "frame of {len} bytes is shorter than the {} of kind, seq and crc",
                crate::RAW_OVERHEAD_LEN
            ),
            DecodeError::Crc { expected, actual } => write!(
                f,
                "CRC-32C mismatch: computed {expected:#010x}, frame carries {actual:#010x}"
            ),
            DecodeError::UnknownKind(kind) => write!(f, "unknown message kind {kind:#04x}"),
            DecodeError::BadLength {
                kind,
                expected,
                actual,
            } => write!(
                f,
                "message kind {kind:#04x} needs a {expected}-byte payload, got {actual} bytes"
            ),
            DecodeError::BadBoardSize(size) => {
                write!(f, "board size {size} is not 9, 13 or 19")
            }
            DecodeError::BadAccepted(value) => {
                write!(f, "HelloAck accepted byte is {value}, not 0 or 1")
            }
            DecodeError::BadPadding => f.write_str("unused bits of the last cell byte are not 0"),
            DecodeError::BadEffect(byte) => write!(f, "LED effect byte {byte:#04x} is invalid"),
            DecodeError::BadStatus { kind, status } => write!(
                f,
                "message kind {kind:#04x}: status {status} is undefined or contradicts its fields"
            ),
            DecodeError::BadEntry { index, code } => {
                write!(f, "history entry {index} has the invalid code {code:#06x}")
            }
        }
    }
}

impl core::error::Error for DecodeError {}

/// Why [`encode`](crate::encode) could not write a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EncodeError {
    /// `out` is shorter than the encoded frame. Nothing useful was written. A buffer of
    /// [`MAX_FRAME_LEN`](crate::MAX_FRAME_LEN) (256) bytes always suffices.
    BufferTooSmall {
        /// Bytes the frame needs, delimiter included.
        needed: usize,
        /// Length of the buffer given.
        available: usize,
    },
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EncodeError::BufferTooSmall { needed, available } => write!(
                f,
                "output buffer of {available} bytes is too small, the frame needs {needed}"
            ),
        }
    }
}

impl core::error::Error for EncodeError {}

/// A board size other than 9, 13 or 19, given to [`BoardSize::new`](crate::BoardSize::new).
/// The field is the rejected value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InvalidBoardSize(pub u8);

impl fmt::Display for InvalidBoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "board size {} is not 9, 13 or 19", self.0)
    }
}

impl core::error::Error for InvalidBoardSize {}

/// [`PackedCells::from_cells`](crate::PackedCells::from_cells) got a number of cells other
/// than `size²`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellCountError {
    /// The iterator ended early.
    TooFew {
        /// Points on the board (81, 169 or 361).
        expected: usize,
        /// Cells received.
        actual: usize,
    },
    /// The iterator yielded more than `expected` cells (it was not read further).
    TooMany {
        /// Points on the board (81, 169 or 361).
        expected: usize,
    },
}

impl fmt::Display for CellCountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            CellCountError::TooFew { expected, actual } => {
                write!(f, "{actual} cells for a board of {expected} points")
            }
            CellCountError::TooMany { expected } => {
                write!(f, "more cells than the {expected} points of the board")
            }
        }
    }
}

impl core::error::Error for CellCountError {}
