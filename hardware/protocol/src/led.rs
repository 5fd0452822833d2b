//! LED frames (hardware/PROTOCOL.md §5.6, §5.7, §13, protocol version 2): one LED under every
//! point, driven by the board's microcontroller from a 16-entry palette and 4 bits per point.
//!
//! - [`LedFrame`] (`0x10`, host → board): a frame id, the board size, the palette
//!   ([`LedPaint`]: a colour and an [`LedEffect`]) and one palette index per point
//!   ([`LedCells`]).
//! - [`LedAck`] (`0x06`, board → host): the id of the frame the board now shows and the
//!   CRC-32C of that frame as the board holds it, so the host knows exactly what the wood shows.
//!
//! [`LedPaint::at`] evaluates a paint at a moment: the host and the firmware animate blinking
//! and breathing with the same integer arithmetic (§13).

use crate::board_size::BoardSize;
use crate::checksum::crc32c;
use crate::error::DecodeError;
use crate::frame::Writer;
use crate::message::MessageKind;

/// Entries in a [`LedFrame`]'s palette (4 bits per point, §5.6).
pub const PALETTE_LEN: usize = 16;

/// Bytes of one palette entry: red, green, blue, effect (§5.6).
pub const PAINT_LEN: usize = 4;

/// Bytes of packed LED cells for the largest board: ceil(361 / 2) = 181 (§5.6).
pub const MAX_LED_CELL_BYTES: usize = (19 * 19usize).div_ceil(2);

/// How a palette entry changes over time (hardware/PROTOCOL.md §13).
///
/// Wire form, one byte: bits 7–6 the kind (`0` steady, `1` blink, `2` breathe; `3` is
/// invalid), bits 5–0 the period in units of 100 ms (1–63, i.e. 0.1–6.3 s; 0 for steady).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LedEffect {
    /// The colour, all the time.
    Steady,
    /// The colour for the first half of every period, off for the second half.
    Blink {
        /// Period in units of 100 ms, 1..=63.
        period_ds: u8,
    },
    /// The brightness rises linearly from off to the colour over the first half of the period
    /// and falls back over the second half (a triangle wave).
    Breathe {
        /// Period in units of 100 ms, 1..=63.
        period_ds: u8,
    },
}

impl LedEffect {
    /// The wire byte (§13). Periods above 63 are sent as 63, a period of 0 as 1.
    pub const fn to_byte(self) -> u8 {
        const fn clamp(p: u8) -> u8 {
            if p == 0 {
                1
            } else if p > 63 {
                63
            } else {
                p
            }
        }
        match self {
            LedEffect::Steady => 0,
            LedEffect::Blink { period_ds } => 0x40 | clamp(period_ds),
            LedEffect::Breathe { period_ds } => 0x80 | clamp(period_ds),
        }
    }

    /// Reads the wire byte; `None` for kind 3, a steady effect with a period, or a blink or
    /// breathe with period 0.
    pub const fn from_byte(byte: u8) -> Option<LedEffect> {
        let period_ds = byte & 0x3F;
        match (byte >> 6, period_ds) {
            (0, 0) => Some(LedEffect::Steady),
            (1, 1..) => Some(LedEffect::Blink { period_ds }),
            (2, 1..) => Some(LedEffect::Breathe { period_ds }),
            _ => None,
        }
    }

    /// The level of the effect at `t_ms` (any millisecond clock), 0 (off) to 255 (full colour).
    ///
    /// With `P` = period × 100 ms and `q = (t mod P) × 512 / P` (integer division): blink is
    /// 255 while `q < 256`, else 0; breathe is `q` while `q < 256`, else `511 − q`.
    pub const fn level(self, t_ms: u32) -> u8 {
        let (blink, period_ds) = match self {
            LedEffect::Steady => return 255,
            LedEffect::Blink { period_ds } => (true, period_ds),
            LedEffect::Breathe { period_ds } => (false, period_ds),
        };
        let period = (period_ds as u32) * 100;
        if period == 0 {
            return 255;
        }
        let q = (t_ms % period) * 512 / period;
        match (blink, q < 256) {
            (true, true) => 255,
            (true, false) => 0,
            (false, true) => q as u8,
            (false, false) => (511 - q) as u8,
        }
    }
}

/// One palette entry: a colour (8 bits per channel, already scaled for brightness and the
/// current budget by the host) and how it changes over time (§5.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LedPaint {
    /// Red, green, blue, 0–255.
    pub rgb: [u8; 3],
    /// Blink, breathe or steady.
    pub effect: LedEffect,
}

impl LedPaint {
    /// Off: black, steady. Palette entry 0 is by convention off, but any entry may be.
    pub const OFF: LedPaint = LedPaint {
        rgb: [0, 0, 0],
        effect: LedEffect::Steady,
    };

    /// The colour shown at `t_ms`: each channel `c × level / 255` (integer division, §13).
    pub const fn at(self, t_ms: u32) -> [u8; 3] {
        let level = self.effect.level(t_ms) as u32;
        let [r, g, b] = self.rgb;
        [
            (r as u32 * level / 255) as u8,
            (g as u32 * level / 255) as u8,
            (b as u32 * level / 255) as u8,
        ]
    }
}

/// One palette index (0–15) per point, 4 bits each, for a board of [`BoardSize`] (§5.6).
///
/// Point `i` (SGF order, as in scans, §6) is the low nibble of byte `i / 2` when `i` is even,
/// the high nibble when odd. The unused high nibble of the last byte (every size has an odd
/// number of points) must be 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LedCells {
    size: BoardSize,
    bytes: [u8; MAX_LED_CELL_BYTES],
}

impl LedCells {
    /// Every point on palette entry 0.
    pub const fn new(size: BoardSize) -> LedCells {
        LedCells {
            size,
            bytes: [0; MAX_LED_CELL_BYTES],
        }
    }

    /// Bytes on the wire for `size`: 41, 85 or 181.
    pub const fn byte_len(size: BoardSize) -> usize {
        size.points().div_ceil(2)
    }

    /// The board size.
    pub const fn size(&self) -> BoardSize {
        self.size
    }

    /// The palette index of point `index`; 0 for an index off the board.
    pub fn get(&self, index: usize) -> u8 {
        if index >= self.size.points() {
            return 0;
        }
        let byte = self.bytes.get(index / 2).copied().unwrap_or(0);
        if index.is_multiple_of(2) {
            byte & 0x0F
        } else {
            byte >> 4
        }
    }

    /// Sets point `index` to palette entry `entry` (only its low 4 bits are used); an index
    /// off the board is ignored.
    pub fn set(&mut self, index: usize, entry: u8) {
        if index >= self.size.points() {
            return;
        }
        if let Some(byte) = self.bytes.get_mut(index / 2) {
            let entry = entry & 0x0F;
            *byte = if index.is_multiple_of(2) {
                (*byte & 0xF0) | entry
            } else {
                (*byte & 0x0F) | (entry << 4)
            };
        }
    }

    /// The wire bytes, [`LedCells::byte_len`] of them.
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes
            .get(..Self::byte_len(self.size))
            .unwrap_or(&self.bytes)
    }

    fn from_wire(size: BoardSize, wire: &[u8]) -> Result<LedCells, DecodeError> {
        let mut cells = LedCells::new(size);
        let len = Self::byte_len(size);
        let dst = cells.bytes.get_mut(..len).ok_or(DecodeError::BadPadding)?;
        if wire.len() != len {
            return Err(DecodeError::BadPadding);
        }
        dst.copy_from_slice(wire);
        if wire.last().is_some_and(|last| last >> 4 != 0) {
            return Err(DecodeError::BadPadding);
        }
        Ok(cells)
    }
}

/// `0x10` host → board (version 2): the LEDs to show (hardware/PROTOCOL.md §5.6).
///
/// Payload, `67 + ceil(size² / 2)` bytes (108, 152 or 248):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 2 | `frame_id` (u16 LE), +1 per new frame, wrapping; a re-sent frame keeps its id |
/// | 2 | 1 | `board_size` (9, 13, 19) |
/// | 3 | 64 | palette: 16 × (`r`, `g`, `b`, `effect`) ([`LedPaint`], [`LedEffect`]) |
/// | 67 | 41/85/181 | [`LedCells`]: one palette index per point, 4 bits each |
///
/// The board shows the frame at once (replacing the one it showed), animates blinking and
/// breathing entries with its own millisecond clock, and answers with an [`LedAck`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LedFrame {
    /// Chosen by the host; echoed by the [`LedAck`].
    pub frame_id: u16,
    /// The palette.
    pub palette: [LedPaint; PALETTE_LEN],
    /// One palette index per point; its size is the `board_size` byte.
    pub cells: LedCells,
}

impl LedFrame {
    /// Bytes before the cells: 2 + 1 + 64 = 67.
    pub const HEADER_LEN: usize = 3 + PALETTE_LEN * PAINT_LEN;

    /// Payload length for `size`: 108, 152 or 248.
    pub const fn payload_len(size: BoardSize) -> usize {
        Self::HEADER_LEN + LedCells::byte_len(size)
    }

    /// The board size.
    pub const fn board_size(&self) -> BoardSize {
        self.cells.size()
    }

    /// The colour point `index` shows at `t_ms` (§13).
    pub fn color_at(&self, index: usize, t_ms: u32) -> [u8; 3] {
        let entry = usize::from(self.cells.get(index));
        self.palette
            .get(entry)
            .copied()
            .unwrap_or(LedPaint::OFF)
            .at(t_ms)
    }

    /// CRC-32C of the frame's content: the payload from `board_size` to the end (everything
    /// but `frame_id`). The [`LedAck`] carries it (§5.7).
    pub fn content_crc(&self) -> u32 {
        let mut buf = [0u8; Self::HEADER_LEN + MAX_LED_CELL_BYTES];
        let mut w = Writer::new(&mut buf);
        self.write_content(&mut w);
        let len = w.len();
        crc32c(buf.get(..len).unwrap_or(&[]))
    }

    fn write_content(&self, w: &mut Writer<'_>) {
        w.put(&[self.board_size().get()]);
        for paint in &self.palette {
            let [r, g, b] = paint.rgb;
            w.put(&[r, g, b, paint.effect.to_byte()]);
        }
        w.put(self.cells.as_bytes());
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.frame_id.to_le_bytes());
        self.write_content(w);
    }

    pub(crate) fn parse(payload: &[u8]) -> Result<LedFrame, DecodeError> {
        let kind = MessageKind::LedFrame.as_u8();
        let (header, cells) = payload
            .split_first_chunk::<3>()
            .ok_or(DecodeError::BadLength {
                kind,
                expected: Self::HEADER_LEN,
                actual: payload.len(),
            })?;
        let size = BoardSize::new(header[2]).map_err(|e| DecodeError::BadBoardSize(e.0))?;
        if payload.len() != Self::payload_len(size) {
            return Err(DecodeError::BadLength {
                kind,
                expected: Self::payload_len(size),
                actual: payload.len(),
            });
        }
        let (palette_bytes, cells) = cells.split_at(PALETTE_LEN * PAINT_LEN);
        let mut palette = [LedPaint::OFF; PALETTE_LEN];
        for (paint, bytes) in palette
            .iter_mut()
            .zip(palette_bytes.chunks_exact(PAINT_LEN))
        {
            if let [r, g, b, effect] = *bytes {
                *paint = LedPaint {
                    rgb: [r, g, b],
                    effect: LedEffect::from_byte(effect).ok_or(DecodeError::BadEffect(effect))?,
                };
            }
        }
        Ok(LedFrame {
            frame_id: u16::from_le_bytes([header[0], header[1]]),
            palette,
            cells: LedCells::from_wire(size, cells)?,
        })
    }
}

/// `0x06` board → host (version 2): the board shows a frame (hardware/PROTOCOL.md §5.7).
///
/// Payload, 6 bytes: offset 0 `frame_id` (u16 LE) of the [`LedFrame`] now shown, offset 2
/// `content_crc` (u32 LE), [`LedFrame::content_crc`] of that frame as the board holds it. The
/// host re-sends its frame when the id or the CRC differ from what it sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LedAck {
    /// The frame shown.
    pub frame_id: u16,
    /// CRC-32C of its content as the board holds it.
    pub content_crc: u32,
}

impl LedAck {
    /// Payload length in bytes.
    pub const PAYLOAD_LEN: usize = 6;

    pub(crate) fn parse(p: &[u8; 6]) -> LedAck {
        LedAck {
            frame_id: u16::from_le_bytes([p[0], p[1]]),
            content_crc: u32::from_le_bytes([p[2], p[3], p[4], p[5]]),
        }
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.frame_id.to_le_bytes());
        w.put(&self.content_crc.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effects_round_trip_and_reject_bad_bytes() {
        for byte in 0..=255u8 {
            match LedEffect::from_byte(byte) {
                Some(e) => assert_eq!(e.to_byte(), byte),
                None => assert!(byte >> 6 == 3 || (byte & 0x3F == 0) != (byte >> 6 == 0)),
            }
        }
        assert_eq!(LedEffect::Blink { period_ds: 0 }.to_byte(), 0x41);
        assert_eq!(LedEffect::Breathe { period_ds: 200 }.to_byte(), 0xBF);
    }

    #[test]
    fn levels_follow_the_formula() {
        let blink = LedEffect::Blink { period_ds: 10 }; // 1 s
        assert_eq!(blink.level(0), 255);
        assert_eq!(blink.level(499), 255);
        assert_eq!(blink.level(500), 0);
        assert_eq!(blink.level(1999), 0);
        assert_eq!(blink.level(2000), 255);
        let breathe = LedEffect::Breathe { period_ds: 20 }; // 2 s
        assert_eq!(breathe.level(0), 0);
        assert_eq!(breathe.level(500), 128); // q = 500*512/2000 = 128
        assert_eq!(breathe.level(999), 255);
        assert_eq!(breathe.level(1000), 255); // q = 256 → 511-256
        assert_eq!(breathe.level(1999), 0); // q = 511
        assert_eq!(LedEffect::Steady.level(12345), 255);
        let paint = LedPaint {
            rgb: [200, 100, 3],
            effect: breathe,
        };
        assert_eq!(paint.at(500), [100, 50, 1]);
    }

    #[test]
    fn cells_pack_two_points_a_byte() {
        let mut cells = LedCells::new(BoardSize::NINE);
        cells.set(0, 3);
        cells.set(1, 0xA);
        cells.set(80, 0xF);
        cells.set(81, 1); // off the board: ignored
        assert_eq!(cells.as_bytes().len(), 41);
        assert_eq!(cells.as_bytes()[0], 0xA3);
        assert_eq!(cells.as_bytes()[40], 0x0F);
        assert_eq!((cells.get(0), cells.get(1), cells.get(80)), (3, 10, 15));
        assert_eq!(cells.get(81), 0);
        cells.set(1, 0x12); // only the low nibble
        assert_eq!(cells.get(1), 2);
    }
}
