//! The smartgoban serial protocol, version 1: the bytes the board (an RP2040 reading a 19×19
//! sensor grid) and the host (the Raspberry Pi service) exchange over USB CDC serial.
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
//! - [`Message`] holds the five v1 messages: [`Hello`], [`HelloAck`], [`Scan`], [`Ping`],
//!   [`Pong`] (§5); a [`Scan`] carries [`PackedCells`] (2 bits per point, §6) and
//!   [`ButtonCounters`] (§7).
//!
//! ```
//! use smartgoban_protocol::{encode, Feed, Frame, FrameDecoder, Hello, Message, MAX_FRAME_LEN};
//!
//! let frame = Frame { seq: 0, message: Message::Hello(Hello::current()) };
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
mod cell;
mod checksum;
mod decoder;
mod error;
mod frame;
mod message;
pub mod timing;

pub use board_size::BoardSize;
pub use buttons::{Button, ButtonCounters, Side};
pub use cell::{Cell, Cells, PackedCells};
pub use checksum::crc32c;
pub use decoder::{Feed, FrameDecoder, Frames};
pub use error::{CellCountError, DecodeError, EncodeError, InvalidBoardSize};
pub use frame::{encode, frames_lost, Frame};
pub use message::{Direction, Hello, HelloAck, Message, MessageKind, Ping, Pong, Scan};

/// The protocol version this crate speaks: sent in [`Hello::protocol_version`] and
/// [`HelloAck::protocol_version`] (§4, §11).
pub const PROTOCOL_VERSION: u8 = 1;

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

/// The largest payload of any v1 message, in bytes: a 19×19 [`Scan`], 15 + 91 = 106 (§2.4).
pub const MAX_PAYLOAD_LEN: usize = max(
    max(Hello::PAYLOAD_LEN, HelloAck::PAYLOAD_LEN),
    max(
        Scan::HEADER_LEN + MAX_CELL_BYTES,
        max(Ping::PAYLOAD_LEN, Pong::PAYLOAD_LEN),
    ),
);

/// The largest raw (COBS-decoded) v1 frame in bytes: 6 + 106 = 112 (§2.4).
pub const MAX_RAW_FRAME_LEN: usize = RAW_OVERHEAD_LEN + MAX_PAYLOAD_LEN;

/// The largest encoded v1 frame on the wire in bytes, delimiter included: COBS adds at most one
/// byte per 254 (rounded up, at least one) so 112 + 1 + 1 = 114 (§2.4). An output buffer of
/// this size always suffices for [`encode`].
pub const MAX_FRAME_LEN: usize = cobs::max_encoding_length(MAX_RAW_FRAME_LEN) + 1;

/// The most encoded bytes (delimiter not counted) one frame may have for [`FrameDecoder`] to
/// accept it: 512, well above [`MAX_FRAME_LEN`] so that later versions' bigger host commands
/// (LED frames, §10) fit. Longer runs are discarded with [`DecodeError::TooLong`] (§2.4, §9).
pub const DECODER_CAPACITY: usize = 512;

/// The first `kind` reserved for later versions (host commands: LED frames, scan rate,
/// calibration). A v1 decoder rejects `0x10..=0xFF` with [`DecodeError::UnknownKind`] (§10).
pub const FIRST_RESERVED_KIND: u8 = 0x10;

const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

const _: () = assert!(MAX_CELL_BYTES == 91);
const _: () = assert!(MAX_PAYLOAD_LEN == 106);
const _: () = assert!(MAX_RAW_FRAME_LEN == 112);
const _: () = assert!(MAX_FRAME_LEN == 114);
const _: () = assert!(MAX_FRAME_LEN - 1 <= DECODER_CAPACITY);
