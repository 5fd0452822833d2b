//! Bad input never panics, gives one error per bad frame, and the next frame after a `0x00`
//! decodes (PROTOCOL.md §9; STYLE.md: "partial, oversized and corrupt input are ordinary
//! return values").

use proptest::prelude::*;
use smartgoban_protocol::{
    crc32c, DecodeError, Frame, FrameDecoder, Ping, DECODER_CAPACITY, FIRST_RESERVED_KIND,
    MAX_RAW_FRAME_LEN,
};

use crate::util::{
    arb_frame, arb_nonzero_bytes, decode_all, decode_chunks, delimited_runs, frames_out,
    sample_frames, split_at_offsets, stream_of, wire, Out,
};

fn errors(outs: &[Out]) -> usize {
    outs.iter().filter(|o| matches!(o, Out::Error(_))).count()
}

fn frames(outs: &[Out]) -> Vec<Frame> {
    outs.iter()
        .filter_map(|o| match o {
            Out::Frame(f) => Some(*f),
            Out::Error(_) => None,
        })
        .collect()
}

#[test]
fn garbage_before_and_between_frames() {
    let sample = sample_frames();
    let garbage: [&[u8]; 4] = [b"\x13\x37\xff", b"AT+RESET\r\n", &[0xFF; 40], &[1, 1, 1]];
    let mut bytes = Vec::new();
    for (i, frame) in sample.iter().enumerate() {
        bytes.extend_from_slice(garbage[i % garbage.len()]);
        bytes.push(0);
        bytes.extend(wire(frame));
    }
    let got = decode_all(&bytes);
    assert_eq!(frames(&got), sample);
    assert_eq!(errors(&got), sample.len());
    // Each garbage run gives its error right before the frame that follows it.
    for pair in got.chunks(2) {
        assert!(matches!(pair, [Out::Error(_), Out::Frame(_)]), "{pair:?}");
    }
}

#[test]
fn frame_cut_short_then_delimiter() {
    let sample = sample_frames();
    let next = Frame::new(42, Ping { nonce: 7 });
    for frame in &sample {
        let bytes = wire(frame);
        for cut in 1..bytes.len() - 1 {
            let mut stream = bytes[..cut].to_vec();
            stream.push(0); // e.g. the leading 0x00 a sender writes after reconnecting
            stream.extend(wire(&next));
            let got = decode_all(&stream);
            assert!(
                matches!(got.as_slice(), [Out::Error(_), Out::Frame(f)] if *f == next),
                "{frame:?} cut at {cut}: {got:?}"
            );
        }
    }
}

#[test]
fn frame_cut_short_then_frames_without_delimiter() {
    // The cut frame merges with the next one (one error); the frame after that decodes.
    let sample = sample_frames();
    let (a, b) = (
        Frame::new(1, Ping { nonce: 1 }),
        Frame::new(2, Ping { nonce: 2 }),
    );
    for frame in &sample {
        let bytes = wire(frame);
        for cut in 1..bytes.len() - 1 {
            let mut stream = bytes[..cut].to_vec();
            stream.extend(stream_of(&[a, b]));
            let got = decode_all(&stream);
            assert!(
                matches!(got.as_slice(), [Out::Error(_), Out::Frame(f)] if *f == b),
                "{frame:?} cut at {cut}: {got:?}"
            );
        }
    }
}

#[test]
fn every_flipped_bit_is_caught() {
    let sample = sample_frames();
    let next = Frame::new(9, Ping { nonce: 0xABCD });
    for frame in &sample {
        let bytes = wire(frame);
        let body_len = bytes.len() - 1; // the delimiter stays
        for bit in 0..body_len * 8 {
            let mut bad = bytes.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            let runs = delimited_runs(&bad[..body_len]);
            bad.extend(wire(&next));
            let got = decode_all(&bad);
            // A flip to 0x00 splits the frame in two bad frames; otherwise exactly one error.
            assert_eq!(errors(&got), runs, "{frame:?} bit {bit}: {got:?}");
            assert_eq!(frames(&got), [next], "{frame:?} bit {bit}");
            assert_eq!(got.last(), Some(&Out::Frame(next)));
        }
    }
}

#[test]
fn flipped_payload_bit_is_a_crc_error() {
    let frame = Frame::new(3, Ping { nonce: 0x0403_0201 });
    let mut raw = [0u8; MAX_RAW_FRAME_LEN];
    let n = frame.encode_raw(&mut raw).unwrap();
    let raw = &raw[..n];
    let carried = u32::from_le_bytes(raw[n - 4..].try_into().unwrap());
    let bytes = wire(&frame);
    // raw has no 0x00 (checked) so the wire is 1 code byte + raw + delimiter: raw[i] is at i+1.
    assert!(!raw.contains(&0));
    let mut bad = bytes.clone();
    bad[1 + 2] ^= 0x10; // first nonce byte 0x01 → 0x11
    let mut corrupted = raw.to_vec();
    corrupted[2] ^= 0x10;
    let expected = crc32c(&corrupted[..n - 4]);
    assert_eq!(
        decode_all(&bad),
        [Out::Error(DecodeError::Crc {
            expected,
            actual: carried
        })]
    );
}

#[test]
fn oversized_run_then_frames() {
    let next = Frame::new(1, Ping { nonce: 1 });
    for len in [DECODER_CAPACITY + 1, 1000, 5000] {
        let mut stream = vec![0x55u8; len];
        stream.push(0);
        stream.extend(wire(&next));
        assert_eq!(
            decode_all(&stream),
            [Out::Error(DecodeError::TooLong), Out::Frame(next)],
            "{len}"
        );
        // Same bytes in small pieces: the decoder never holds more than its capacity.
        let mut decoder = FrameDecoder::new();
        let got = decode_chunks(&mut decoder, stream.chunks(7));
        assert_eq!(got, [Out::Error(DecodeError::TooLong), Out::Frame(next)]);
    }
    // Exactly the capacity is still tried as a frame (and fails some other way).
    let mut stream = vec![0x55u8; DECODER_CAPACITY];
    stream.push(0);
    let got = decode_all(&stream);
    assert_eq!(got.len(), 1);
    assert_ne!(got[0], Out::Error(DecodeError::TooLong));
}

#[test]
fn oversized_run_without_delimiter_swallows_one_frame() {
    // No 0x00 after the run: discarding lasts to the first frame's delimiter (one TooLong),
    // and the frame after it decodes.
    let (a, b) = (
        Frame::new(1, Ping { nonce: 1 }),
        Frame::new(2, Ping { nonce: 2 }),
    );
    let mut stream = vec![0xAAu8; 700];
    stream.extend(stream_of(&[a, b]));
    assert_eq!(
        decode_all(&stream),
        [Out::Error(DecodeError::TooLong), Out::Frame(b)]
    );
}

#[test]
fn later_versions_bigger_frames_fit() {
    // §2.4: any raw frame of up to 509 bytes fits the 512-byte receive buffer, so a
    // receiver reports a later version's big command as UnknownKind, not TooLong.
    use crate::roundtrip::{raw_frame, wire_of_raw};
    for payload_len in [200, 248, 249, 400, 503] {
        for fill in [0x00u8, 0xAB] {
            let raw = raw_frame(FIRST_RESERVED_KIND, 0, &vec![fill; payload_len]);
            let bytes = wire_of_raw(&raw);
            assert!(bytes.len() - 1 <= DECODER_CAPACITY, "{payload_len}");
            assert_eq!(
                decode_all(&bytes),
                [Out::Error(DecodeError::UnknownKind(FIRST_RESERVED_KIND))]
            );
        }
    }
}

#[test]
fn discarding_keeps_nothing() {
    let mut decoder = FrameDecoder::new();
    assert_eq!(decode_chunks(&mut decoder, [&[0x77u8; 600][..]]), []);
    assert_eq!(decoder.buffered_len(), 0);
    assert_eq!(decode_chunks(&mut decoder, [&[0x77u8; 600][..]]), []);
    assert_eq!(
        decode_chunks(&mut decoder, [&[0u8][..]]),
        [Out::Error(DecodeError::TooLong)]
    );
}

#[test]
fn empty_frames_are_skipped() {
    let frame = Frame::new(0, Ping { nonce: 0 });
    let mut stream = vec![0u8; 10];
    stream.extend(wire(&frame));
    stream.extend([0u8; 10]);
    assert_eq!(decode_all(&stream), frames_out(&[frame]));
    assert_eq!(decode_all(&[0u8; 100]), []);
}

#[test]
fn tiny_frames() {
    use DecodeError::*;
    // 0x01 is COBS for an empty raw frame; 0x02 0x05 for one byte.
    assert_eq!(decode_all(&[0x01, 0]), [Out::Error(TooShort { len: 0 })]);
    assert_eq!(
        decode_all(&[0x02, 0x05, 0]),
        [Out::Error(TooShort { len: 1 })]
    );
    // A code byte pointing past the end is not COBS.
    assert_eq!(decode_all(&[0x05, 0x01, 0]), [Out::Error(Cobs)]);
    assert_eq!(decode_all(&[0xFF, 0]), [Out::Error(Cobs)]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Any bytes at all, in any pieces: no panic, bounded buffer, and exactly one output per
    /// delimited non-empty run.
    #[test]
    fn arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..2000),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
        next in arb_frame(),
    ) {
        let cuts: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        let pieces = split_at_offsets(&bytes, &cuts);
        let mut decoder = FrameDecoder::new();
        let got = decode_chunks(&mut decoder, pieces.iter().map(Vec::as_slice));
        let terminated = match bytes.iter().rposition(|&b| b == 0) {
            Some(last) => delimited_runs(&bytes[..last]),
            None => 0,
        };
        prop_assert_eq!(got.len(), terminated);
        // After a 0x00, the decoder is back in sync.
        let mut tail = vec![0u8];
        tail.extend(wire(&next));
        let after = decode_chunks(&mut decoder, [tail.as_slice()]);
        prop_assert_eq!(after.last(), Some(&Out::Frame(next)));
        prop_assert!(after.len() <= 2);
    }

    /// Garbage (any bytes, zeros included) then 0x00 before each valid frame: exactly the
    /// valid frames come out, with one error per non-empty garbage run.
    #[test]
    fn garbage_between_random_frames(
        items in prop::collection::vec(
            (prop::collection::vec(any::<u8>(), 0..700), arb_frame()), 1..6),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..10),
    ) {
        let mut bytes = Vec::new();
        let mut expected_errors = 0;
        for (garbage, frame) in &items {
            bytes.extend_from_slice(garbage);
            bytes.push(0);
            bytes.extend(wire(frame));
            expected_errors += delimited_runs(garbage);
        }
        let cuts: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        let pieces = split_at_offsets(&bytes, &cuts);
        let got = decode_chunks(&mut FrameDecoder::new(), pieces.iter().map(Vec::as_slice));
        let want: Vec<Frame> = items.iter().map(|(_, f)| *f).collect();
        prop_assert_eq!(frames(&got), want);
        prop_assert_eq!(errors(&got), expected_errors);
    }

    /// A run of non-zero bytes of any length then a frame.
    #[test]
    fn nonzero_runs(run in arb_nonzero_bytes(1500), frame in arb_frame()) {
        let mut bytes = run.clone();
        bytes.push(0);
        bytes.extend(wire(&frame));
        let got = decode_all(&bytes);
        prop_assert_eq!(got.last(), Some(&Out::Frame(frame)));
        prop_assert_eq!(got.len(), if run.is_empty() { 1 } else { 2 });
        if run.len() > DECODER_CAPACITY {
            prop_assert_eq!(&got[0], &Out::Error(DecodeError::TooLong));
        }
    }

    /// Frame::decode_raw on any bytes never panics.
    #[test]
    fn decode_raw_any(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = Frame::decode_raw(&bytes);
    }
}
