//! The serial frame decoder (hardware/PROTOCOL.md §2, §9) on arbitrary bytes.
//!
//! Input: byte 0 picks how the stream is cut into chunks; the rest is the stream. Checks:
//! - `FrameDecoder::feed` over the chunks and `FrameDecoder::frames` over the whole stream
//!   never panic, give the same frames and errors, and leave the same unfinished frame;
//! - every decoded frame re-encodes, and the encoding decodes to the same frame;
//! - the stream read directly as one raw frame and as one message payload (no COBS, no CRC to
//!   get past): whatever parses re-encodes to exactly the bytes it was read from (every field
//!   has one wire form).
#![no_main]

use libfuzzer_sys::fuzz_target;
use smartgoban_protocol::{
    encode, Feed, Frame, FrameDecoder, Message, DECODER_CAPACITY, MAX_FRAME_LEN,
};

fuzz_target!(|data: &[u8]| {
    let Some((&split, stream)) = data.split_first() else {
        return;
    };

    // The whole stream at once, through the iterator.
    let mut whole = FrameDecoder::new();
    let expected: Vec<_> = whole.frames(stream).collect();
    assert!(whole.buffered_len() <= DECODER_CAPACITY);

    // The same stream in chunks of 1..=16 bytes (a tiny xorshift seeded by `split`), through
    // `feed`: the split must not matter.
    let mut chunked = FrameDecoder::new();
    let mut got = Vec::new();
    let mut state = u32::from(split) | 0x100;
    let mut input = stream;
    while !input.is_empty() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let n = (state % 16 + 1) as usize;
        let (chunk, tail) = input.split_at(n.min(input.len()));
        input = tail;
        let mut chunk = chunk;
        loop {
            match chunked.feed(chunk) {
                Feed::NeedMore => break,
                Feed::Frame { frame, rest } => {
                    got.push(Ok(frame));
                    chunk = rest;
                }
                Feed::Error { error, rest } => {
                    got.push(Err(error));
                    chunk = rest;
                }
            }
        }
        assert!(chunked.buffered_len() <= DECODER_CAPACITY);
    }
    assert_eq!(got, expected, "the chunk split changed what was decoded");
    assert_eq!(chunked.buffered_len(), whole.buffered_len());

    for frame in expected.iter().flatten() {
        round_trip(frame);
    }

    // One raw frame (kind, seq, payload, crc) and one message payload, read directly.
    if let Ok(frame) = Frame::decode_raw(stream) {
        let mut raw = [0u8; MAX_FRAME_LEN];
        let n = frame.encode_raw(&mut raw).expect("a decoded frame encodes");
        assert_eq!(
            &raw[..n],
            stream,
            "raw frame does not re-encode to its bytes"
        );
    }
    if let Some((&kind, payload)) = stream.split_first() {
        if let Ok(message) = Message::parse(kind, payload) {
            let frame = Frame::new(0, message);
            let mut raw = [0u8; MAX_FRAME_LEN];
            let n = frame
                .encode_raw(&mut raw)
                .expect("a parsed message encodes");
            assert_eq!(raw[0], kind);
            assert_eq!(
                &raw[2..n - 4],
                payload,
                "payload does not re-encode to its bytes"
            );
            round_trip(&frame);
        }
    }
});

/// Encodes `frame` for the wire and decodes it again: the same frame, nothing left over.
fn round_trip(frame: &Frame) {
    let mut wire = [0u8; MAX_FRAME_LEN];
    let n = encode(frame, &mut wire).expect("a decoded frame encodes");
    let mut decoder = FrameDecoder::new();
    let again: Vec<_> = decoder.frames(&wire[..n]).collect();
    assert_eq!(again, [Ok(*frame)], "re-encoded frame decodes differently");
    assert_eq!(decoder.buffered_len(), 0);
    // Whatever the message, its accessors hold on any value that decoded.
    if let Message::Scan(scan) = &frame.message {
        assert_eq!(scan.cells.iter().count(), scan.cells.len());
    }
    if let Message::HistoryChunk(chunk) = &frame.message {
        assert_eq!(chunk.timed().count(), chunk.len());
        let _ = chunk.last_ms();
    }
    if let Message::HistoryInfo(info) = &frame.message {
        assert_eq!(info.base.iter().count(), info.board_size().points());
    }
    if let Message::LedFrame(led) = &frame.message {
        let points = led.board_size().points();
        for i in 0..points {
            let _ = led.color_at(i, 0);
        }
        let _ = led.content_crc();
    }
}
