//! A stream of valid frames decodes to the same frames whatever the split (STYLE.md: "a test
//! feeds a valid stream cut at every offset"; PROTOCOL.md §2.1).

use proptest::prelude::*;
use smartgoban_protocol::{Frame, FrameDecoder};

use crate::util::{
    arb_frame, decode_all, decode_chunks, frames_out, sample_frames, split_at_offsets, stream_of,
    Out,
};

/// All sample frames, with the optional extra 0x00 bytes a sender may add (§2.1).
fn sample_stream() -> (Vec<u8>, Vec<Out>) {
    let frames = sample_frames();
    let mut bytes = vec![0u8]; // leading flush
    for (i, frame) in frames.iter().enumerate() {
        bytes.extend(stream_of(&[*frame]));
        if i % 3 == 1 {
            bytes.extend([0, 0]); // extra delimiters between frames
        }
    }
    (bytes, frames_out(&frames))
}

#[test]
fn whole_stream() {
    let (bytes, expected) = sample_stream();
    assert_eq!(decode_all(&bytes), expected);
}

#[test]
fn cut_at_every_offset() {
    let (bytes, expected) = sample_stream();
    for cut in 0..=bytes.len() {
        let mut decoder = FrameDecoder::new();
        let got = decode_chunks(&mut decoder, [&bytes[..cut], &bytes[cut..]]);
        assert_eq!(got, expected, "cut at {cut}");
        assert_eq!(decoder.buffered_len(), 0);
    }
}

#[test]
fn cut_at_every_pair_of_offsets() {
    let (bytes, expected) = sample_stream();
    for a in 0..=bytes.len() {
        for b in a..=bytes.len() {
            let got = decode_chunks(
                &mut FrameDecoder::new(),
                [&bytes[..a], &bytes[a..b], &bytes[b..]],
            );
            assert_eq!(got, expected, "cuts at {a} and {b}");
        }
    }
}

#[test]
fn byte_by_byte() {
    let (bytes, expected) = sample_stream();
    let got = decode_chunks(&mut FrameDecoder::new(), bytes.chunks(1));
    assert_eq!(got, expected);
}

#[test]
fn frames_iterator() {
    let (bytes, expected) = sample_stream();
    let mid = bytes.len() / 2;
    let mut decoder = FrameDecoder::new();
    let mut got: Vec<Out> = Vec::new();
    for part in [&bytes[..mid], &bytes[mid..]] {
        for item in decoder.frames(part) {
            got.push(match item {
                Ok(frame) => Out::Frame(frame),
                Err(error) => Out::Error(error),
            });
        }
    }
    assert_eq!(got, expected);
    let mut frames = decoder.frames(&[]);
    assert_eq!(frames.next(), None);
    assert_eq!(frames.next(), None);
}

#[test]
fn reset_drops_a_partial_frame() {
    let frames = sample_frames();
    let bytes = stream_of(&frames[..2]);
    let first_len = stream_of(&frames[..1]).len();
    let mut decoder = FrameDecoder::new();
    // Half of frame 0, then the port is reopened: frame 1 alone must decode.
    assert_eq!(decode_chunks(&mut decoder, [&bytes[..first_len / 2]]), []);
    assert!(decoder.buffered_len() > 0);
    decoder.reset();
    assert_eq!(
        decode_chunks(&mut decoder, [&bytes[first_len..]]),
        frames_out(&frames[1..2])
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn random_frames_random_splits(
        frames in prop::collection::vec(arb_frame(), 1..8),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let bytes = stream_of(&frames);
        let cuts: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
        let pieces = split_at_offsets(&bytes, &cuts);
        let got = decode_chunks(&mut FrameDecoder::new(), pieces.iter().map(Vec::as_slice));
        prop_assert_eq!(got, frames_out(&frames));
    }

    #[test]
    fn random_frames_from_iterator(frames in prop::collection::vec(arb_frame(), 0..8)) {
        let bytes = stream_of(&frames);
        let got: Vec<Frame> = FrameDecoder::new().frames(&bytes).map(Result::unwrap).collect();
        prop_assert_eq!(got, frames);
    }
}
