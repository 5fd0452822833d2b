//! The golden frames of PROTOCOL.md §12 (hardware/protocol/tests/golden/frames.txt, written by
//! an independent Python encoder), shared by board-core's tests.

use smartgoban_protocol::{encode, Frame, MAX_FRAME_LEN};

const FRAMES: &str = include_str!("../../../protocol/tests/golden/frames.txt");

/// The wire bytes (COBS and the delimiter) of golden frame `name`.
pub fn golden_wire(name: &str) -> Vec<u8> {
    let line = FRAMES
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("{name} not in frames.txt"));
    let hex = line.split_whitespace().nth(2).unwrap();
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// `frame` as it goes on the wire.
pub fn wire(frame: Frame) -> Vec<u8> {
    let mut out = [0u8; MAX_FRAME_LEN];
    let n = encode(&frame, &mut out).unwrap();
    out[..n].to_vec()
}
