//! [`Frame`] and [`encode`]: one message with its sequence number, as raw bytes and as COBS on
//! the wire (hardware/PROTOCOL.md §2, §3).

use crate::checksum::crc32c;
use crate::error::{DecodeError, EncodeError};
use crate::message::Message;
use crate::{DELIMITER, MAX_FRAME_LEN, MAX_RAW_FRAME_LEN, RAW_OVERHEAD_LEN};

/// One message and the sender's sequence number (hardware/PROTOCOL.md §2.2, §3).
///
/// Raw layout (before COBS), `6 + payload` bytes:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | `kind` ([`MessageKind`](crate::MessageKind)) |
/// | 1 | 1 | `seq` |
/// | 2 | n | payload ([`Message`]) |
/// | 2 + n | 4 | `crc`: CRC-32C of bytes `0 .. 2 + n`, u32 LE |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Frame {
    /// The sender's sequence number for this direction: +1 (wrapping) per frame sent (§3).
    pub seq: u8,
    /// The message carried.
    pub message: Message,
}

impl Frame {
    /// A frame of `message` with sequence number `seq`.
    pub fn new(seq: u8, message: impl Into<Message>) -> Frame {
        Frame {
            seq,
            message: message.into(),
        }
    }

    /// Raw length in bytes, `6 + payload` (at most [`MAX_RAW_FRAME_LEN`], 112).
    pub const fn raw_len(&self) -> usize {
        RAW_OVERHEAD_LEN + self.message.payload_len()
    }

    /// Checks and parses one raw (already COBS-decoded, delimiter removed) frame (§2.2, §9):
    /// length (≥ 6, else [`DecodeError::TooShort`]), CRC-32C ([`DecodeError::Crc`]), then
    /// the message ([`Message::parse`]). Pure and never panics; [`FrameDecoder`] calls it
    /// for every delimited frame.
    ///
    /// [`FrameDecoder`]: crate::FrameDecoder
    pub fn decode_raw(raw: &[u8]) -> Result<Frame, DecodeError> {
        let too_short = DecodeError::TooShort { len: raw.len() };
        let (body, crc) = raw.split_last_chunk::<4>().ok_or(too_short)?;
        let (&[kind, seq], payload) = body.split_first_chunk::<2>().ok_or(too_short)?;
        let actual = u32::from_le_bytes(*crc);
        let expected = crc32c(body);
        if expected != actual {
            return Err(DecodeError::Crc { expected, actual });
        }
        Ok(Frame {
            seq,
            message: Message::parse(kind, payload)?,
        })
    }

    /// Writes the raw frame (`kind`, `seq`, payload, `crc`; no COBS, no delimiter) to the
    /// start of `out` and returns its length, [`Frame::raw_len`]. Fails if `out` is shorter.
    pub fn encode_raw(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        let needed = self.raw_len();
        let too_small = EncodeError::BufferTooSmall {
            needed,
            available: out.len(),
        };
        let mut w = Writer::new(out);
        w.put(&[self.message.kind().as_u8(), self.seq]);
        self.message.write_payload(&mut w);
        let body_len = w.len;
        let crc = crc32c(w.buf.get(..body_len).unwrap_or(&[]));
        w.put(&crc.to_le_bytes());
        if w.overflow || w.len != needed {
            return Err(too_small);
        }
        Ok(w.len)
    }

    /// Same as [`encode`]`(self, out)`.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        encode(self, out)
    }
}

/// Writes `frame` as it goes on the wire, `COBS(raw) 0x00` (hardware/PROTOCOL.md §2.1), to the
/// start of `out` and returns the number of bytes written, delimiter included (at most
/// [`MAX_FRAME_LEN`], 114).
///
/// Fails with [`EncodeError::BufferTooSmall`] (saying how many bytes are needed) if `out` is
/// shorter; never panics. Senders may write extra `0x00` bytes before or after (§2.1).
pub fn encode(frame: &Frame, out: &mut [u8]) -> Result<usize, EncodeError> {
    let mut raw = [0u8; MAX_RAW_FRAME_LEN];
    let raw_len = frame.encode_raw(&mut raw)?;
    let raw = raw.get(..raw_len).unwrap_or(&[]);
    let mut cobs_buf = [0u8; MAX_FRAME_LEN];
    // Cannot fail: MAX_FRAME_LEN - 1 is the largest COBS encoding of MAX_RAW_FRAME_LEN bytes.
    let cobs_len =
        cobs::try_encode(raw, &mut cobs_buf).map_err(|_| EncodeError::BufferTooSmall {
            needed: MAX_FRAME_LEN,
            available: out.len(),
        })?;
    let needed = cobs_len + 1;
    let too_small = EncodeError::BufferTooSmall {
        needed,
        available: out.len(),
    };
    let dst = out.get_mut(..needed).ok_or(too_small)?;
    let (body, delimiter) = dst.split_at_mut(cobs_len);
    body.copy_from_slice(cobs_buf.get(..cobs_len).ok_or(too_small)?);
    delimiter.fill(DELIMITER);
    Ok(needed)
}

/// Frames lost between two frames received in a row with sequence numbers `previous` then
/// `received`: `(received - previous - 1) mod 256` (hardware/PROTOCOL.md §3).
///
/// 0 when `received == previous + 1`. A repeated `seq` gives 255 (the arithmetic cannot tell a
/// duplicate from 255 losses; v1 senders never repeat). A receiver takes the `seq` of the
/// first frame after a (re)connect as its starting point.
pub const fn frames_lost(previous: u8, received: u8) -> u8 {
    received.wrapping_sub(previous).wrapping_sub(1)
}

/// Appends bytes to a buffer without ever panicking; remembers if something did not fit.
pub(crate) struct Writer<'a> {
    buf: &'a mut [u8],
    len: usize,
    overflow: bool,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> Writer<'a> {
        Writer {
            buf,
            len: 0,
            overflow: false,
        }
    }

    /// Bytes written so far.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends `bytes`, or marks the writer overflowed if they do not fit.
    pub(crate) fn put(&mut self, bytes: &[u8]) {
        let end = self.len.saturating_add(bytes.len());
        match self.buf.get_mut(self.len..end) {
            Some(dst) if !self.overflow => {
                dst.copy_from_slice(bytes);
                self.len = end;
            }
            _ => self.overflow = true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Hello, Ping};

    #[test]
    fn losses() {
        assert_eq!(frames_lost(4, 5), 0);
        assert_eq!(frames_lost(255, 0), 0);
        assert_eq!(frames_lost(254, 1), 2);
        assert_eq!(frames_lost(7, 7), 255);
    }

    #[test]
    fn short_buffers_are_errors() {
        let frame = Frame::new(9, Ping { nonce: 0 });
        let mut out = [0u8; MAX_FRAME_LEN];
        let n = encode(&frame, &mut out).unwrap();
        for len in 0..n {
            assert_eq!(
                encode(&frame, &mut out[..len]),
                Err(EncodeError::BufferTooSmall {
                    needed: n,
                    available: len
                })
            );
        }
        for len in 0..frame.raw_len() {
            assert!(frame.encode_raw(&mut out[..len]).is_err());
        }
    }

    #[test]
    fn raw_too_short() {
        for len in 0..RAW_OVERHEAD_LEN {
            assert_eq!(
                Frame::decode_raw(&[1u8; 8][..len]),
                Err(DecodeError::TooShort { len })
            );
        }
        let mut raw = [0u8; 16];
        let n = Frame::new(0, Hello::current())
            .encode_raw(&mut raw)
            .unwrap();
        assert!(Frame::decode_raw(&raw[..n]).is_ok());
    }
}
