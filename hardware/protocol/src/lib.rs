//! The smartgoban serial protocol, version 4 (version 1 plus LED frames in version 2, the
//! board's history in version 3 and calibration in version 4): the bytes the board (an RP2040
//! reading a 19×19 sensor grid) and the host (the Raspberry Pi service) exchange over USB CDC
//! serial.
//!
//! `hardware/PROTOCOL.md` is the single source of truth; every item here names the section it
//! implements (§N below means a section of that file). This crate is `#![no_std]`, needs no
//! allocator, never reads a clock and never touches a port: the host and the firmware both move
//! bytes themselves and use it to turn values into frames and frames into values.
//!
//! - [`encode`] writes one [`Frame`] as `COBS(kind, seq, payload, crc32c) 0x00` (§2).
//! - [`FrameDecoder`] accumulates bytes split anywhere and yields [`Frame`]s or typed
//!   [`DecodeError`]s; it resynchronises on the next `0x00` after any bad frame (§9).
//! - [`Frame::decode_raw`] is the pure check of one COBS-decoded frame, used by the decoder.
//! - [`Message`] holds the messages: [`Hello`], [`HelloAck`], [`Scan`], [`Ping`], [`Pong`]
//!   (§5, every version), from version 2 [`LedFrame`] and [`LedAck`] (§5.6, §5.7, §13), and
//!   from version 3 the board's history, [`HistoryOpen`], [`HistoryInfo`], [`HistoryPull`] and
//!   [`HistoryChunk`] of [`HistoryEntry`]s (§5.8–§5.11, §14), and from version 4 the
//!   messages of [`calibration`] (§5.12–§5.18, §15); a [`Scan`] carries
//!   [`PackedCells`] (2 bits per point, §6) and [`ButtonCounters`] (§7).
//!
//! ```
//! use smartgoban_protocol::{encode, Feed, Frame, FrameDecoder, Hello, Message, MAX_FRAME_LEN};
//!
//! let frame = Frame { seq: 0, message: Message::Hello(Hello { protocol_version: 1 }) };
//! let mut wire = [0u8; MAX_FRAME_LEN];
//! let n = encode(&frame, &mut wire).unwrap();
//! assert_eq!(&wire[..n], &[0x02, 0x01, 0x06, 0x01, 0x07, 0xB2, 0x4E, 0x37, 0x00]);
//!
//! // The receiver may get the bytes in any pieces.
//! let mut decoder = FrameDecoder::new();
//! assert!(matches!(decoder.feed(&wire[..3]), Feed::NeedMore));
//! match decoder.feed(&wire[3..n]) {
//!     Feed::Frame { frame: got, rest } => {
//!         assert_eq!(got, frame);
//!         assert!(rest.is_empty());
//!     }
//!     other => panic!("unexpected {other:?}"),
//! }
//! ```
#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// Decoding must never panic on any input: no unchecked indexing, unwrap or panic in library code.
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic
    )
)]

mod board_size;
mod buttons;
pub mod calibration;
mod cell;
mod checksum;
mod decoder;
mod error;
mod frame;
mod history;
mod led;
mod message;
pub mod timing;

pub use board_size::BoardSize;
pub use buttons::{Button, ButtonCounters, Side};
pub use cell::{Cell, Cells, PackedCells};
pub use checksum::crc32c;
pub use decoder::{Feed, FrameDecoder, Frames};
pub use error::{CellCountError, DecodeError, EncodeError, InvalidBoardSize};
pub use frame::{encode, frames_lost, Frame};
pub use history::{
    ChunkEntries, ChunkStatus, HistoryChunk, HistoryEntry, HistoryEvent, HistoryInfo, HistoryOpen,
    HistoryPull, InfoStatus, PushError, TimedEntries, TimedEntry, ENTRY_LEN, MAX_CHUNK_ENTRIES,
    MAX_POINT_INDEX, WINDOW_CHUNKS, WINDOW_ENTRIES,
};
pub use led::{
    LedAck, LedCells, LedEffect, LedFrame, LedPaint, MAX_LED_CELL_BYTES, PAINT_LEN, PALETTE_LEN,
};
pub use message::{Direction, Hello, HelloAck, Message, MessageKind, Ping, Pong, Scan};

/// The highest protocol version this crate speaks: sent in [`Hello::protocol_version`] and
/// [`HelloAck::protocol_version`] (§4, §11). Version 2 adds LED frames ([`LedFrame`],
/// [`LedAck`]) to version 1; version 3 adds the board's history ([`HistoryOpen`],
/// [`HistoryInfo`], [`HistoryPull`], [`HistoryChunk`], §14); version 4 calibration (the
/// raw readings, the calibration image, the sensors' health: [`calibration`], §15).
pub const PROTOCOL_VERSION: u8 = 4;

/// The first protocol version with calibration ([`calibration`], §15).
pub const CALIBRATION_VERSION: u8 = 4;

/// The first protocol version with the board's history and boot id (§14).
pub const HISTORY_VERSION: u8 = 3;

/// The first protocol version with LED frames (§5.6).
pub const LED_VERSION: u8 = 2;

/// The lowest protocol version this crate still speaks (§11): a session of version 1 has no
/// LED frames, one of version 1 or 2 no history.
pub const MIN_PROTOCOL_VERSION: u8 = 1;

/// The largest board side in points (19×19). Valid sizes are 9, 13 and 19 ([`BoardSize`], §5.3).
pub const MAX_BOARD_SIZE: u8 = 19;

/// Bytes of packed cells for the largest board: ceil(19²/4) = ceil(361/4) = 91 (§6).
pub const MAX_CELL_BYTES: usize = (MAX_BOARD_SIZE as usize * MAX_BOARD_SIZE as usize).div_ceil(4);

/// The frame delimiter: every frame on the wire ends with this byte, and COBS guarantees it
/// appears nowhere else inside a frame (§2.1).
pub const DELIMITER: u8 = 0x00;

/// Bytes a raw frame adds around its payload: `kind` (1) + `seq` (1) + `crc` (4) = 6 (§2.2).
/// Also the shortest possible raw frame (an empty payload).
pub const RAW_OVERHEAD_LEN: usize = 6;

/// The largest payload the board sends, in bytes: a full [`HistoryChunk`], 14 + 4 × 58 = 246
/// (§2.4; a 19×19 [`Scan`], 106, before version 3).
pub const MAX_BOARD_PAYLOAD_LEN: usize = max(
    max(Hello::PAYLOAD_LEN, HelloAck::PAYLOAD_LEN),
    max(
        Scan::HEADER_LEN + MAX_CELL_BYTES,
        max(
            max(Ping::PAYLOAD_LEN, Pong::PAYLOAD_LEN),
            max(
                LedAck::PAYLOAD_LEN,
                max(
                    max(
                        HistoryInfo::HEADER_LEN + MAX_CELL_BYTES,
                        HistoryChunk::HEADER_LEN + ENTRY_LEN * MAX_CHUNK_ENTRIES,
                    ),
                    // version 4: 231, 5 and 183
                    max(
                        calibration::RawReadings::HEADER_LEN + 2 * calibration::MAX_RAW_POINTS,
                        max(
                            calibration::CalibrationAck::PAYLOAD_LEN,
                            calibration::SensorHealth::HEADER_LEN + calibration::MAX_HEALTH_BYTES,
                        ),
                    ),
                ),
            ),
        ),
    ),
);

/// The largest payload of any message, in bytes: a 19×19 [`LedFrame`], 67 + 181 = 248 (§2.4).
pub const MAX_PAYLOAD_LEN: usize = max(
    MAX_BOARD_PAYLOAD_LEN,
    max(
        LedFrame::HEADER_LEN + MAX_LED_CELL_BYTES,
        max(
            max(HistoryOpen::PAYLOAD_LEN, HistoryPull::PAYLOAD_LEN),
            // version 4: 4 + 240 = 244
            calibration::CalibrationData::HEADER_LEN + calibration::MAX_DATA_BYTES,
        ),
    ),
);

/// The largest raw (COBS-decoded) frame in bytes: 6 + 248 = 254 (§2.4).
pub const MAX_RAW_FRAME_LEN: usize = RAW_OVERHEAD_LEN + MAX_PAYLOAD_LEN;

/// The largest encoded frame on the wire in bytes, delimiter included: COBS adds at most one
/// byte per 254 (rounded up, at least one), so 254 + 1 + 1 = 256 (§2.4). An output buffer of
/// this size always suffices for [`encode`].
pub const MAX_FRAME_LEN: usize = cobs::max_encoding_length(MAX_RAW_FRAME_LEN) + 1;

/// The largest frame the board sends, on the wire: a full [`HistoryChunk`], 252 + 1 + 1 = 254
/// bytes (§2.4; 114, a 19×19 [`Scan`], before version 3). The firmware's transmit buffer needs
/// no more.
pub const MAX_BOARD_FRAME_LEN: usize =
    cobs::max_encoding_length(RAW_OVERHEAD_LEN + MAX_BOARD_PAYLOAD_LEN) + 1;

/// The most encoded bytes (delimiter not counted) one frame may have for [`FrameDecoder`] to
/// accept it: 512, well above [`MAX_FRAME_LEN`] so that later versions' bigger host commands
/// (LED frames, §10) fit. Longer runs are discarded with [`DecodeError::TooLong`] (§2.4, §9).
pub const DECODER_CAPACITY: usize = 512;

/// The first `kind` reserved for later versions (host commands: scan rate).
/// This crate rejects `0x17..=0xFF` and `0x0C..=0x0F` with [`DecodeError::UnknownKind`]
/// (§10); `0x10` is the version-2 [`LedFrame`], `0x11` and `0x12` the version-3
/// [`HistoryOpen`] and [`HistoryPull`], `0x13`–`0x16` the version-4 calibration commands.
pub const FIRST_RESERVED_KIND: u8 = 0x17;

const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

const _: () = assert!(MAX_CELL_BYTES == 91);
const _: () = assert!(MAX_BOARD_PAYLOAD_LEN == 246);
const _: () = assert!(MAX_PAYLOAD_LEN == 248);
const _: () = assert!(MAX_RAW_FRAME_LEN == 254);
const _: () = assert!(MAX_FRAME_LEN == 256);
const _: () = assert!(MAX_BOARD_FRAME_LEN == 254);
const _: () = assert!(MAX_FRAME_LEN - 1 <= DECODER_CAPACITY);
