//! [`FrameDecoder`]: bytes in, [`Frame`]s or [`DecodeError`]s out, whatever the split
//! (hardware/PROTOCOL.md §2.1, §9). Modelled on postcard's `CobsAccumulator`.

use crate::error::DecodeError;
use crate::frame::Frame;
use crate::{DECODER_CAPACITY, DELIMITER};

/// Accumulates received bytes and cuts them into frames at each `0x00` delimiter
/// (hardware/PROTOCOL.md §2.1, §9).
///
/// Holds at most [`DECODER_CAPACITY`] (512) encoded bytes of one unfinished frame in a fixed
/// array (≈ 530 bytes in all, no allocation). Behaviour on any input, never panicking:
///
/// - Empty frames (consecutive `0x00`, a leading `0x00`) are skipped silently.
/// - Each non-empty run of bytes ending in `0x00` gives exactly one [`Feed::Frame`] or one
///   [`Feed::Error`]; the byte after the `0x00` starts a new frame. So after garbage, a cut
///   frame or a corrupted one, the next frame that follows a `0x00` decodes.
/// - A run longer than 512 bytes is dropped as it comes and reported once, as
///   [`DecodeError::TooLong`], when its `0x00` arrives.
///
/// A frame cut short and *not* followed by `0x00` merges with the next frame into one bad
/// frame (COBS cannot tell where it was cut); that is why senders send a `0x00` after
/// (re)opening the port (§2.1, §9).
#[derive(Debug, Clone)]
pub struct FrameDecoder {
    buf: [u8; DECODER_CAPACITY],
    /// Encoded bytes of the current frame held in `buf`.
    len: usize,
    /// The current frame outgrew `buf`; drop bytes until the next delimiter.
    overflowed: bool,
}

/// What [`FrameDecoder::feed`] found in the bytes given; `rest` is the input after the frame's
/// `0x00`, not yet consumed: feed it again until [`Feed::NeedMore`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)] // no allocator on the firmware: frames live on the stack
pub enum Feed<'a> {
    /// Every byte was consumed (and kept, or skipped) and no frame is complete yet.
    NeedMore,
    /// A valid frame ended in the input.
    Frame {
        /// The frame.
        frame: Frame,
        /// The unconsumed input after its delimiter.
        rest: &'a [u8],
    },
    /// A bad frame ended in the input (one error per bad frame).
    Error {
        /// Why the frame was rejected.
        error: DecodeError,
        /// The unconsumed input after its delimiter.
        rest: &'a [u8],
    },
}

impl FrameDecoder {
    /// An empty decoder, waiting for the start of a frame.
    pub const fn new() -> FrameDecoder {
        FrameDecoder {
            buf: [0; DECODER_CAPACITY],
            len: 0,
            overflowed: false,
        }
    }

    /// Consumes `bytes` up to and including the first delimiter that ends a non-empty frame,
    /// and says what that frame was; or consumes everything and returns [`Feed::NeedMore`].
    /// Bytes of an unfinished frame are kept for the next call.
    ///
    /// ```
    /// # use smartgoban_protocol::{Feed, FrameDecoder};
    /// # fn handle(_: smartgoban_protocol::Frame) {}
    /// let mut decoder = FrameDecoder::new();
    /// let mut input: &[u8] = &[0x00, 0x13, 0x37, 0x00, 0x02]; // garbage, then half a frame
    /// let mut errors = 0;
    /// loop {
    ///     match decoder.feed(input) {
    ///         Feed::NeedMore => break,
    ///         Feed::Frame { frame, rest } => { handle(frame); input = rest; }
    ///         Feed::Error { error: _, rest } => { errors += 1; input = rest; }
    ///     }
    /// }
    /// assert_eq!(errors, 1);
    /// assert_eq!(decoder.buffered_len(), 1);
    /// ```
    pub fn feed<'a>(&mut self, bytes: &'a [u8]) -> Feed<'a> {
        let mut input = bytes;
        loop {
            let Some(end) = input.iter().position(|&b| b == DELIMITER) else {
                self.push(input);
                return Feed::NeedMore;
            };
            let (chunk, rest) = input.split_at(end);
            let rest = rest.get(1..).unwrap_or(&[]); // skip the delimiter
            self.push(chunk);
            if self.overflowed {
                self.reset();
                return Feed::Error {
                    error: DecodeError::TooLong,
                    rest,
                };
            }
            if self.len == 0 {
                input = rest; // empty frame: skip silently
                continue;
            }
            let result = self.decode_buffered();
            self.reset();
            return match result {
                Ok(frame) => Feed::Frame { frame, rest },
                Err(error) => Feed::Error { error, rest },
            };
        }
    }

    /// An iterator that feeds `bytes` and yields each frame or error found, in order, until
    /// the input is used up (then an unfinished frame stays buffered for the next call).
    pub fn frames<'d, 'a>(&'d mut self, bytes: &'a [u8]) -> Frames<'d, 'a> {
        Frames {
            decoder: self,
            input: bytes,
        }
    }

    /// Drops any unfinished frame, e.g. when the port is reopened.
    pub fn reset(&mut self) {
        self.len = 0;
        self.overflowed = false;
    }

    /// Encoded bytes of an unfinished frame held (0 when idle or discarding an overlong run;
    /// never more than [`DECODER_CAPACITY`]).
    pub const fn buffered_len(&self) -> usize {
        self.len
    }

    /// Appends encoded bytes of the current frame, or starts discarding if they do not fit.
    fn push(&mut self, chunk: &[u8]) {
        if self.overflowed || chunk.is_empty() {
            return;
        }
        let end = self.len.saturating_add(chunk.len());
        match self.buf.get_mut(self.len..end) {
            Some(dst) => {
                dst.copy_from_slice(chunk);
                self.len = end;
            }
            None => {
                self.len = 0;
                self.overflowed = true;
            }
        }
    }

    /// COBS-decodes the buffered frame in place and parses it.
    fn decode_buffered(&mut self) -> Result<Frame, DecodeError> {
        let encoded = self.buf.get_mut(..self.len).ok_or(DecodeError::TooLong)?;
        let report = cobs::decode_in_place_report(encoded).map_err(|_| DecodeError::Cobs)?;
        let raw = encoded
            .get(..report.frame_size())
            .ok_or(DecodeError::Cobs)?;
        Frame::decode_raw(raw)
    }
}

impl Default for FrameDecoder {
    fn default() -> FrameDecoder {
        FrameDecoder::new()
    }
}

/// Iterator over the frames and errors in some input; see [`FrameDecoder::frames`].
#[derive(Debug)]
pub struct Frames<'d, 'a> {
    decoder: &'d mut FrameDecoder,
    input: &'a [u8],
}

impl Iterator for Frames<'_, '_> {
    type Item = Result<Frame, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.decoder.feed(self.input) {
            Feed::NeedMore => {
                self.input = &[];
                None
            }
            Feed::Frame { frame, rest } => {
                self.input = rest;
                Some(Ok(frame))
            }
            Feed::Error { error, rest } => {
                self.input = rest;
                Some(Err(error))
            }
        }
    }
}

impl core::iter::FusedIterator for Frames<'_, '_> {}
