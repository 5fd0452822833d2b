//! Every message kind and board size survives encode → decode (PROTOCOL.md §2, §5).

use proptest::prelude::*;
use smartgoban_protocol::{
    crc32c, encode, BoardSize, Cell, DecodeError, Direction, Frame, FrameDecoder, Message,
    MessageKind, PackedCells, Scan, FIRST_RESERVED_KIND, MAX_BOARD_FRAME_LEN, MAX_CHUNK_ENTRIES,
    MAX_FRAME_LEN, MAX_RAW_FRAME_LEN,
};

use crate::util::{
    arb_frame, decode_all, frames_out, mixed_cells, sample_chunk, sample_frames, sample_led_frame,
    wire, Out,
};

/// A raw frame with a correct CRC around any kind and payload.
pub fn raw_frame(kind: u8, seq: u8, payload: &[u8]) -> Vec<u8> {
    let mut raw = vec![kind, seq];
    raw.extend_from_slice(payload);
    let crc = crc32c(&raw);
    raw.extend_from_slice(&crc.to_le_bytes());
    raw
}

/// A raw frame COBS-encoded and delimited by a reference encoder written from the COBS paper
/// (not the `cobs` crate), so the crate's encoder and decoder are checked against it.
pub fn wire_of_raw(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut block: Vec<u8> = Vec::new();
    // A full 254-byte block (code 0xFF) carries no 0x00 after it; at the very end of the frame
    // it needs no empty block after it either (PROTOCOL.md §2.1).
    let mut full_block_last = false;
    for &byte in raw {
        full_block_last = false;
        if byte == 0 {
            out.push(block.len() as u8 + 1);
            out.append(&mut block);
        } else {
            block.push(byte);
            if block.len() == 254 {
                out.push(255);
                out.append(&mut block);
                full_block_last = true;
            }
        }
    }
    if !full_block_last {
        out.push(block.len() as u8 + 1);
        out.append(&mut block);
    }
    out.push(0);
    out
}

#[test]
fn every_kind_and_size_round_trips() {
    let frames = sample_frames();
    let kinds: Vec<MessageKind> = frames.iter().map(|f| f.message.kind()).collect();
    for kind in MessageKind::ALL {
        assert!(kinds.contains(&kind), "{kind:?} missing from the samples");
    }
    for frame in &frames {
        let bytes = wire(frame);
        assert_eq!(
            bytes.len(),
            frame.raw_len() + 2,
            "COBS adds 1 byte below 254"
        );
        assert_eq!(decode_all(&bytes), frames_out(&[*frame]));

        let mut raw = [0u8; MAX_RAW_FRAME_LEN];
        let n = frame.encode_raw(&mut raw).unwrap();
        assert_eq!(n, frame.raw_len());
        assert_eq!(Frame::decode_raw(&raw[..n]), Ok(*frame));
    }
}

#[test]
fn largest_frame_is_max_frame_len() {
    let scan = Scan {
        scan_counter: 0,
        board_ms: 0,
        buttons: Default::default(),
        cells: mixed_cells(BoardSize::NINETEEN, 3),
    };
    let frame = Frame::new(0, scan);
    let mut exact = [0u8; 114];
    assert_eq!(
        encode(&frame, &mut exact),
        Ok(114),
        "the largest frame of versions 1 and 2"
    );
    // The board's largest from version 3: a full history chunk (§2.4).
    let chunk = Frame::new(0, sample_chunk(MAX_CHUNK_ENTRIES, 5));
    assert_eq!(chunk.raw_len(), 252);
    let mut exact = [0u8; MAX_BOARD_FRAME_LEN];
    assert_eq!(encode(&chunk, &mut exact), Ok(MAX_BOARD_FRAME_LEN));
    assert_eq!(MAX_BOARD_FRAME_LEN, 254);
    for frame in sample_frames() {
        if frame.message.direction() == Direction::BoardToHost {
            assert!(wire(&frame).len() <= MAX_BOARD_FRAME_LEN, "{frame:?}");
        }
    }
    // The largest of all: a 19×19 LED frame with no 0x00 in it (COBS's worst case).
    let mut led = sample_led_frame(BoardSize::NINETEEN, 1);
    for paint in &mut led.palette {
        paint.rgb = [1, 2, 3];
    }
    for i in 0..361 {
        led.cells.set(i, 1 + (i % 15) as u8);
    }
    led.cells.set(360, 1);
    let frame = Frame::new(1, led);
    assert_eq!(frame.raw_len(), MAX_RAW_FRAME_LEN);
    let mut exact = [0u8; MAX_FRAME_LEN];
    assert_eq!(encode(&frame, &mut exact), Ok(MAX_FRAME_LEN));
    assert_eq!(frame.encode(&mut exact), Ok(MAX_FRAME_LEN));
}

#[test]
fn payload_lengths_match_the_spec() {
    let by_size: Vec<usize> = BoardSize::ALL
        .iter()
        .map(|&s| Scan::payload_len(s))
        .collect();
    assert_eq!(by_size, [36, 58, 106]);
    for frame in sample_frames() {
        let expected = match frame.message {
            Message::Hello(_) => 1,
            Message::HelloAck(_) => 10,
            Message::Scan(s) => 15 + s.cells.as_bytes().len(),
            Message::Ping(_) | Message::Pong(_) => 4,
            Message::LedAck(_) => 6,
            Message::LedFrame(f) => 67 + f.cells.as_bytes().len(),
            Message::HistoryOpen(_) | Message::HistoryPull(_) => 8,
            Message::HistoryInfo(i) => 28 + i.base.as_bytes().len(),
            Message::HistoryChunk(c) => 14 + 4 * c.len(),
            Message::RawRequest(_) => 3,
            Message::RawReadings(r) => 7 + 2 * r.readings().len(),
            Message::CalibrationData(d) => 4 + d.bytes().len(),
            Message::CalibrationCommit(_) => 6,
            Message::CalibrationAck(_) => 5,
            Message::HealthRequest(_) => 0,
            Message::SensorHealth(h) => 2 + h.board_size().points().div_ceil(2),
        };
        assert_eq!(frame.message.payload_len(), expected);
    }
}

#[test]
fn directions() {
    use MessageKind::*;
    for kind in [
        Hello,
        Ping,
        LedFrame,
        HistoryOpen,
        HistoryPull,
        RawRequest,
        CalibrationData,
        CalibrationCommit,
        HealthRequest,
    ] {
        assert_eq!(kind.direction(), Direction::HostToBoard);
    }
    for kind in [
        HelloAck,
        Scan,
        Pong,
        LedAck,
        HistoryInfo,
        HistoryChunk,
        RawReadings,
        CalibrationAck,
        SensorHealth,
    ] {
        assert_eq!(kind.direction(), Direction::BoardToHost);
    }
    for kind in MessageKind::ALL {
        assert_eq!(MessageKind::from_u8(kind.as_u8()), Some(kind));
    }
}

#[test]
fn point_order_is_sgf_order() {
    // §6: index = y * size + x, y from the top; "aa" is 0, "ba" is 1, "ab" is size.
    let size = BoardSize::THIRTEEN;
    let mut cells = PackedCells::new(size);
    cells.set(size.point_index(1, 0).unwrap(), Cell::Black); // "ba"
    cells.set(size.point_index(0, 1).unwrap(), Cell::White); // "ab"
    assert_eq!(cells.as_bytes()[0], 0b0000_0100);
    // "ab" is index 13: byte 13 / 4 = 3, pair 13 % 4 = 1 (bits 2..=3).
    assert_eq!(cells.as_bytes()[3], 0b0000_1000);
}

#[test]
fn unknown_and_reserved_kinds_are_rejected() {
    for kind in 0..=u8::MAX {
        let known = (1..=0x0B).contains(&kind) || (0x10..=0x16).contains(&kind);
        let result = Message::parse(kind, &[0; 4]);
        if !known {
            assert_eq!(result, Err(DecodeError::UnknownKind(kind)));
            let bytes = wire_of_raw(&raw_frame(kind, 0, &[1, 2, 3]));
            assert_eq!(
                decode_all(&bytes),
                [Out::Error(DecodeError::UnknownKind(kind))]
            );
        }
        if kind >= FIRST_RESERVED_KIND {
            assert!(!known);
        }
    }
}

#[test]
fn payload_errors() {
    use DecodeError::*;
    let cases: Vec<(u8, Vec<u8>, DecodeError)> = vec![
        (
            0x01,
            vec![],
            BadLength {
                kind: 1,
                expected: 1,
                actual: 0,
            },
        ),
        (
            0x01,
            vec![1, 1],
            BadLength {
                kind: 1,
                expected: 1,
                actual: 2,
            },
        ),
        (
            0x02,
            vec![1; 9],
            BadLength {
                kind: 2,
                expected: 10,
                actual: 9,
            },
        ),
        (0x02, vec![1, 2, 19, 50, 0, 0, 0, 0, 0, 0], BadAccepted(2)),
        (0x02, vec![1, 1, 18, 50, 0, 0, 0, 0, 0, 0], BadBoardSize(18)),
        (
            0x03,
            vec![0; 14],
            BadLength {
                kind: 3,
                expected: 15,
                actual: 14,
            },
        ),
        (
            0x03,
            [&[0u8; 8][..], &[0], &[0; 6]].concat(),
            BadBoardSize(0),
        ),
        (
            0x03,
            [&[0u8; 8][..], &[9], &[0; 6], &[0; 20]].concat(),
            BadLength {
                kind: 3,
                expected: 36,
                actual: 35,
            },
        ),
        (
            0x03,
            [&[0u8; 8][..], &[19], &[0; 6], &[0; 92]].concat(),
            BadLength {
                kind: 3,
                expected: 106,
                actual: 107,
            },
        ),
        (
            0x03,
            [&[0u8; 8][..], &[9], &[0; 6], &[0; 20], &[0b0000_0100]].concat(),
            BadPadding,
        ),
        (
            0x03,
            [&[0u8; 8][..], &[13], &[0; 6], &[0; 42], &[0b1000_0000]].concat(),
            BadPadding,
        ),
        (
            0x04,
            vec![0; 3],
            BadLength {
                kind: 4,
                expected: 4,
                actual: 3,
            },
        ),
        (
            0x05,
            vec![0; 5],
            BadLength {
                kind: 5,
                expected: 4,
                actual: 5,
            },
        ),
        (
            0x06,
            vec![0; 4],
            BadLength {
                kind: 6,
                expected: 6,
                actual: 4,
            },
        ),
        (
            0x10,
            vec![0; 2],
            BadLength {
                kind: 0x10,
                expected: 67,
                actual: 2,
            },
        ),
        (0x10, vec![0, 0, 7], BadBoardSize(7)),
        (
            0x10,
            [&[0u8, 0, 9][..], &[0; 64], &[0; 40]].concat(),
            BadLength {
                kind: 0x10,
                expected: 108,
                actual: 107,
            },
        ),
        // 9×9 has 81 points: the last byte's high nibble is padding.
        (
            0x10,
            [&[0u8, 0, 9][..], &[0; 64], &[0; 40], &[0x10]].concat(),
            BadPadding,
        ),
        // effect kind 3
        (
            0x10,
            [&[0u8, 0, 9][..], &[9, 9, 9, 0xC1], &[0; 60], &[0; 41]].concat(),
            BadEffect(0xC1),
        ),
        // a blink with period 0
        (
            0x10,
            [&[0u8, 0, 13][..], &[0; 60], &[9, 9, 9, 0x40], &[0; 85]].concat(),
            BadEffect(0x40),
        ),
    ];
    for (kind, payload, error) in cases
        .into_iter()
        .chain(history_payload_errors())
        .chain(calibration_payload_errors())
    {
        assert_eq!(
            Message::parse(kind, &payload),
            Err(error),
            "kind {kind} {payload:?}"
        );
        let raw = raw_frame(kind, 7, &payload);
        assert_eq!(Frame::decode_raw(&raw), Err(error));
        assert_eq!(decode_all(&wire_of_raw(&raw)), [Out::Error(error)]);
    }
    // Valid padding: only the first pair of the last byte is used on every v1 size.
    let ok = [&[0u8; 8][..], &[9], &[0; 6], &[0; 20], &[0b11]].concat();
    assert!(Message::parse(3, &ok).is_ok());
}

#[test]
fn decoder_is_const_and_default() {
    static _DECODER: FrameDecoder = FrameDecoder::new();
    assert_eq!(FrameDecoder::default().buffered_len(), 0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_valid_frame_round_trips(frame in arb_frame()) {
        let bytes = wire(&frame);
        prop_assert_eq!(bytes.len(), frame.raw_len() + 2);
        prop_assert_eq!(decode_all(&bytes), frames_out(&[frame]));
        let mut raw = [0u8; MAX_RAW_FRAME_LEN];
        let n = frame.encode_raw(&mut raw).unwrap();
        prop_assert_eq!(Frame::decode_raw(&raw[..n]), Ok(frame));
        // The independent COBS path agrees with the crate's encoder.
        prop_assert_eq!(wire_of_raw(&raw[..n]), bytes);
    }
}

/// A `HistoryInfo` payload (§5.9): header fields, then `cells` bytes of base.
fn info_payload(status: u8, entries: u32, size: u8, cells: &[u8]) -> Vec<u8> {
    let mut p = vec![status];
    for v in [7u32, 1000, 2000, entries, 500] {
        p.extend(v.to_le_bytes());
    }
    p.push(size);
    p.extend([0u8; 6]);
    p.extend(cells);
    p
}

/// A `HistoryChunk` payload (§5.11) with `count` in the header and the entry bytes given.
fn chunk_payload(status: u8, count: u8, entries: &[(u16, u16)]) -> Vec<u8> {
    let mut p = 1000u32.to_le_bytes().to_vec();
    p.push(status);
    p.extend(0u32.to_le_bytes());
    p.extend(1000u32.to_le_bytes());
    p.push(count);
    for &(code, dt) in entries {
        p.extend(code.to_le_bytes());
        p.extend(dt.to_le_bytes());
    }
    p
}

/// Bad payloads of the version-3 kinds and the error each gives (§5.8–§5.11, §9).
fn history_payload_errors() -> Vec<(u8, Vec<u8>, DecodeError)> {
    use DecodeError::*;
    let ok_point = (20 | (1 << 11), 5); // C7 empty → black
    let mut cases = vec![
        (
            0x11,
            vec![0; 7],
            BadLength {
                kind: 0x11,
                expected: 8,
                actual: 7,
            },
        ),
        (
            0x12,
            vec![0; 9],
            BadLength {
                kind: 0x12,
                expected: 8,
                actual: 9,
            },
        ),
        (
            0x07,
            vec![0; 27],
            BadLength {
                kind: 7,
                expected: 28,
                actual: 27,
            },
        ),
        (
            0x07,
            info_payload(4, 0, 9, &[0; 21]),
            BadStatus { kind: 7, status: 4 },
        ),
        (0x07, info_payload(0, 0, 10, &[0; 21]), BadBoardSize(10)),
        (
            0x07,
            info_payload(0, 0, 9, &[0; 20]),
            BadLength {
                kind: 7,
                expected: 49,
                actual: 48,
            },
        ),
        (
            0x07,
            info_payload(0, 0, 19, &[0; 92]),
            BadLength {
                kind: 7,
                expected: 119,
                actual: 120,
            },
        ),
        (
            0x07,
            info_payload(0, 0, 9, &[[0u8; 20].as_slice(), &[0b0000_0100]].concat()),
            BadPadding,
        ),
        // Not Ok: no entries, an empty base.
        (
            0x07,
            info_payload(1, 1, 9, &[0; 21]),
            BadStatus { kind: 7, status: 1 },
        ),
        (
            0x07,
            info_payload(3, 0, 13, &[[0u8; 42].as_slice(), &[1]].concat()),
            BadStatus { kind: 7, status: 3 },
        ),
        (
            0x08,
            vec![0; 13],
            BadLength {
                kind: 8,
                expected: 14,
                actual: 13,
            },
        ),
        (
            0x08,
            chunk_payload(3, 0, &[]),
            BadStatus { kind: 8, status: 3 },
        ),
        (
            0x08,
            chunk_payload(0, 59, &[ok_point; 59]),
            BadLength {
                kind: 8,
                expected: 246,
                actual: 250,
            },
        ),
        (
            0x08,
            chunk_payload(0, 2, &[ok_point]),
            BadLength {
                kind: 8,
                expected: 22,
                actual: 18,
            },
        ),
        (
            0x08,
            chunk_payload(0, 0, &[ok_point]),
            BadLength {
                kind: 8,
                expected: 14,
                actual: 18,
            },
        ),
        (
            0x08,
            chunk_payload(1, 1, &[ok_point]),
            BadStatus { kind: 8, status: 1 },
        ),
    ];
    // Invalid entries (§5.11), each after a valid one.
    for code in [
        361,                        // reserved what
        503,                        // reserved what
        510,                        // reserved what
        20 | (1 << 11) | (1 << 13), // bit 13
        20 | (1 << 11) | (1 << 15), // bit 15
        508 | (1 << 9),             // a press with a from
        511 | (2 << 11),            // a filler with a to
        20 | (2 << 9) | (2 << 11),  // from = to
        0,                          // point 0 empty → empty
    ] {
        cases.push((
            0x08,
            chunk_payload(0, 2, &[ok_point, (code, 1)]),
            BadEntry { index: 1, code },
        ));
    }
    cases
}

#[test]
fn every_decode_error_is_reachable() {
    // One example of each error through the whole decoder; the match has no wildcard, so a new
    // variant must be added here.
    use DecodeError::*;
    let mut seen = [false; 12];
    let mut examples: Vec<Vec<u8>> = vec![
        vec![0x13, 0x37, 0x00],                // Cobs
        [vec![0x55; 600], vec![0]].concat(),   // TooLong
        wire_of_raw(&[1, 2, 3]),               // TooShort
        wire_of_raw(&[1, 0, 1, 0, 0, 0, 0]),   // Crc
        wire_of_raw(&raw_frame(0x0C, 0, &[])), // UnknownKind
    ];
    examples.push(wire_of_raw(&raw_frame(
        0x02,
        0,
        &[1, 2, 19, 50, 0, 0, 0, 0, 0, 0],
    ))); // BadAccepted
    examples.push(wire_of_raw(&raw_frame(
        0x10,
        0,
        &[[0u8, 0, 9].as_slice(), &[9, 9, 9, 0xC1], &[0; 60], &[0; 41]].concat(),
    ))); // BadEffect
    for (kind, payload, _) in history_payload_errors()
        .into_iter()
        .chain(calibration_payload_errors())
    {
        examples.push(wire_of_raw(&raw_frame(kind, 0, &payload)));
    }
    for bytes in examples {
        for out in decode_all(&bytes) {
            let Out::Error(error) = out else { continue };
            let i = match error {
                Cobs => 0,
                TooLong => 1,
                TooShort { .. } => 2,
                Crc { .. } => 3,
                UnknownKind(_) => 4,
                BadLength { .. } => 5,
                BadBoardSize(_) => 6,
                BadAccepted(_) => 7,
                BadPadding => 8,
                BadEffect(_) => 9,
                BadStatus { .. } => 10,
                BadEntry { .. } => 11,
            };
            seen[i] = true;
        }
    }
    assert_eq!(seen, [true; 12]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Whatever the board pushes comes out of the chunk with its absolute board time: `base_ms`
    /// plus the running sum of the `dt_ms` (wrapping), in order (§5.11).
    #[test]
    fn chunk_times_are_the_running_sum(chunk in crate::util::arb_history_chunk()) {
        let mut t = chunk.base_ms;
        for (k, (timed, entry)) in chunk.timed().zip(chunk.entries()).enumerate() {
            t = t.wrapping_add(u32::from(entry.dt_ms));
            prop_assert_eq!(timed.board_ms, t);
            prop_assert_eq!(timed.entry, chunk.first_entry.wrapping_add(k as u32));
            prop_assert_eq!(timed.event, entry.event);
        }
        prop_assert_eq!(chunk.last_ms(), t);
        prop_assert_eq!(chunk.timed().len(), chunk.len());
    }
}

/// Bad payloads of the version-4 kinds and the error each gives (§5.12–§5.18, §9).
fn calibration_payload_errors() -> Vec<(u8, Vec<u8>, DecodeError)> {
    use DecodeError::*;
    let len = |kind: u8, expected: usize, actual: usize| BadLength {
        kind,
        expected,
        actual,
    };
    vec![
        (0x13, vec![0; 2], len(0x13, 3, 2)),
        (0x13, vec![0; 4], len(0x13, 3, 4)),
        // RawReadings: header cut, count disagreeing with the bytes, count above 112
        (0x09, vec![0; 6], len(0x09, 7, 6)),
        (
            0x09,
            [&[0u8; 6][..], &[2], &[0; 3]].concat(),
            len(0x09, 11, 10),
        ),
        (
            0x09,
            [&[0u8; 6][..], &[113], &[0; 226]].concat(),
            len(0x09, 231, 233),
        ),
        // CalibrationData: no header, len 0, len above 240, len disagreeing with the bytes
        (0x14, vec![0; 3], len(0x14, 4, 3)),
        (0x14, vec![0, 0, 0, 0], len(0x14, 5, 4)),
        (
            0x14,
            [&[0u8, 0, 241, 0][..], &[1; 241]].concat(),
            len(0x14, 244, 245),
        ),
        (
            0x14,
            [&[0u8, 0, 3, 0][..], &[1; 2]].concat(),
            len(0x14, 7, 6),
        ),
        (0x15, vec![0; 5], len(0x15, 6, 5)),
        (0x0A, vec![], len(0x0A, 5, 0)),
        (0x0A, vec![0; 4], len(0x0A, 5, 4)),
        (
            0x0A,
            vec![4, 0, 0, 0, 0],
            BadStatus {
                kind: 0x0A,
                status: 4,
            },
        ),
        (0x16, vec![0], len(0x16, 0, 1)),
        // SensorHealth: no header, a bad size, the wrong count, a bad flag, padding
        (0x0B, vec![9], len(0x0B, 2, 1)),
        (0x0B, [&[7u8, 0][..], &[0; 25]].concat(), BadBoardSize(7)),
        (0x0B, [&[9u8, 0][..], &[0; 40]].concat(), len(0x0B, 43, 42)),
        (
            0x0B,
            [&[9u8, 2][..], &[0; 41]].concat(),
            BadStatus {
                kind: 0x0B,
                status: 2,
            },
        ),
        (
            0x0B,
            [&[9u8, 1][..], &[0; 40], &[0x10]].concat(),
            BadPadding,
        ),
    ]
}
