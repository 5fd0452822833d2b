//! Shared helpers: sample frames, proptest strategies, and a decoder driver.

use proptest::prelude::*;
use smartgoban_protocol::calibration::{
    CalibrationAck, CalibrationCommit, CalibrationData, CalibrationStatus, HealthRequest,
    RawReadings, RawRequest, SensorHealth, MAX_DATA_BYTES, MAX_RAW_POINTS,
};
use smartgoban_protocol::{
    encode, BoardSize, Button, ButtonCounters, Cell, ChunkStatus, DecodeError, Feed, Frame,
    FrameDecoder, Hello, HelloAck, HistoryChunk, HistoryEntry, HistoryEvent, HistoryInfo,
    HistoryOpen, HistoryPull, InfoStatus, LedAck, LedCells, LedEffect, LedFrame, LedPaint, Message,
    PackedCells, Ping, Pong, Scan, Side, DECODER_CAPACITY, MAX_CHUNK_ENTRIES, MAX_FRAME_LEN,
    PALETTE_LEN,
};

/// What came out of a decoder, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[allow(clippy::large_enum_variant)]
pub enum Out {
    Frame(Frame),
    Error(DecodeError),
}

/// Encodes frames back to back into one stream.
pub fn stream_of(frames: &[Frame]) -> Vec<u8> {
    let mut out = Vec::new();
    for frame in frames {
        out.extend_from_slice(&wire(frame));
    }
    out
}

/// One frame as it goes on the wire.
pub fn wire(frame: &Frame) -> Vec<u8> {
    let mut buf = [0u8; MAX_FRAME_LEN];
    let n = encode(frame, &mut buf).expect("MAX_FRAME_LEN always suffices");
    assert!(n <= MAX_FRAME_LEN);
    assert_eq!(buf[n - 1], 0, "frames end with the delimiter");
    assert!(
        !buf[..n - 1].contains(&0),
        "COBS leaves no 0x00 inside a frame"
    );
    buf[..n].to_vec()
}

/// Feeds `chunks` one after another through `Feed`, looping on `rest`, and checks the
/// decoder's invariants on the way.
pub fn decode_chunks<'a>(
    decoder: &mut FrameDecoder,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Vec<Out> {
    let mut out = Vec::new();
    for chunk in chunks {
        let mut input = chunk;
        loop {
            match decoder.feed(input) {
                Feed::NeedMore => break,
                Feed::Frame { frame, rest } => {
                    assert!(rest.len() < input.len(), "feed must make progress");
                    out.push(Out::Frame(frame));
                    input = rest;
                }
                Feed::Error { error, rest } => {
                    assert!(rest.len() < input.len(), "feed must make progress");
                    out.push(Out::Error(error));
                    input = rest;
                }
            }
            assert!(decoder.buffered_len() <= DECODER_CAPACITY);
        }
        assert!(decoder.buffered_len() <= DECODER_CAPACITY);
    }
    out
}

/// Decodes `bytes` given in one piece with a fresh decoder.
pub fn decode_all(bytes: &[u8]) -> Vec<Out> {
    decode_chunks(&mut FrameDecoder::new(), [bytes])
}

/// Cuts `bytes` at the given offsets (sorted, deduplicated, clamped).
pub fn split_at_offsets(bytes: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|&c| c.min(bytes.len())).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut pieces = Vec::new();
    let mut start = 0;
    for cut in cuts {
        pieces.push(bytes[start..cut].to_vec());
        start = cut;
    }
    pieces.push(bytes[start..].to_vec());
    pieces
}

pub fn frames_out(frames: &[Frame]) -> Vec<Out> {
    frames.iter().copied().map(Out::Frame).collect()
}

/// Cells of a `size` board with a deterministic mix of all four values.
pub fn mixed_cells(size: BoardSize, salt: usize) -> PackedCells {
    PackedCells::from_cells(
        size,
        (0..size.points()).map(|i| Cell::from_bits(((i * 7 + salt) % 11 % 4) as u8)),
    )
    .unwrap()
}

/// One frame of every kind, with scans of all three sizes.
pub fn sample_frames() -> Vec<Frame> {
    let mut frames = vec![
        Frame::new(0, Hello::current()),
        Frame::new(
            1,
            HelloAck {
                protocol_version: 1,
                accepted: true,
                board_size: BoardSize::NINETEEN,
                scan_rate_hz: 50,
                firmware_version: 0x0102,
                device_id: 0xDEAD_BEEF,
            },
        ),
    ];
    for (n, size) in BoardSize::ALL.into_iter().enumerate() {
        frames.push(Frame::new(
            2 + n as u8,
            Scan {
                scan_counter: 1_000 + n as u32,
                board_ms: u32::MAX - n as u32,
                buttons: ButtonCounters::from_bytes([1, 2, 3, 4, 255, 0]),
                cells: mixed_cells(size, n),
            },
        ));
    }
    frames.push(Frame::new(5, Ping { nonce: 0 }));
    frames.push(Frame::new(255, Pong { nonce: 0x0100_00FF }));
    frames.push(Frame::new(
        6,
        LedAck {
            frame_id: 0x0201,
            content_crc: 0xCAFE_F00D,
        },
    ));
    for (n, size) in BoardSize::ALL.into_iter().enumerate() {
        frames.push(Frame::new(7 + n as u8, sample_led_frame(size, n)));
    }
    frames.push(Frame::new(
        10,
        HistoryOpen {
            boot_id: 0xA5A5_0001,
            since_ms: u32::MAX,
        },
    ));
    frames.push(Frame::new(
        11,
        HistoryPull {
            since_ms: 0x0102_0304,
            from_entry: 40_000,
        },
    ));
    for (n, size) in BoardSize::ALL.into_iter().enumerate() {
        frames.push(Frame::new(
            12 + n as u8,
            HistoryInfo {
                status: InfoStatus::Ok,
                boot_id: 7 + n as u32,
                since_ms: 1_000,
                until_ms: 2_000_000,
                entries: 123,
                oldest_ms: 0,
                buttons: ButtonCounters::from_bytes([6, 5, 4, 3, 2, 1]),
                base: mixed_cells(size, n + 5),
            },
        ));
    }
    frames.push(Frame::new(
        15,
        HistoryInfo::refused(
            InfoStatus::OtherBoot,
            99,
            5,
            6,
            7,
            ButtonCounters::ZERO,
            BoardSize::NINETEEN,
        ),
    ));
    frames.push(Frame::new(16, sample_chunk(MAX_CHUNK_ENTRIES, 1)));
    frames.push(Frame::new(17, sample_chunk(3, 2)));
    frames.push(Frame::new(18, sample_chunk(0, 3)));
    frames.push(Frame::new(
        19,
        HistoryChunk::refused(4, ChunkStatus::Lost, 9, 1_234),
    ));
    frames.push(Frame::new(
        20,
        HistoryChunk::refused(4, ChunkStatus::NoSpan, 9, 0),
    ));
    frames.extend(sample_calibration_frames(21));
    frames
}

/// One frame of each version-4 kind (§5.12–§5.18), the longest and shortest of each, from
/// `seq` on.
pub fn sample_calibration_frames(seq: u8) -> Vec<Frame> {
    let readings: Vec<u16> = (0..MAX_RAW_POINTS as u16).map(|i| i * 37 % 4096).collect();
    let image: Vec<u8> = (0..MAX_DATA_BYTES).map(|i| (i * 7 + 1) as u8).collect();
    let mut messages: Vec<Message> = vec![
        RawRequest {
            first_point: 336,
            count: 25,
        }
        .into(),
        RawReadings::new(77, 0, &readings).into(),
        RawReadings::new(78, 336, &readings[..25]).into(),
        RawReadings::new(0, 361, &[]).into(),
        CalibrationData::new(0, &image).into(),
        CalibrationData::new(3_840, &image[..1]).into(),
        CalibrationCommit {
            len: 3_985,
            crc: 0x1234_5678,
        }
        .into(),
        CalibrationAck {
            status: CalibrationStatus::Stored,
            crc: 0x1234_5678,
        }
        .into(),
        CalibrationAck {
            status: CalibrationStatus::Mismatch,
            crc: 1,
        }
        .into(),
        HealthRequest.into(),
    ];
    for size in BoardSize::ALL {
        let mut health = SensorHealth::new(size, size != BoardSize::NINE);
        for i in (0..size.points()).step_by(7) {
            health.set(i, (i % 15 + 1) as u8);
        }
        messages.push(health.into());
    }
    messages
        .into_iter()
        .enumerate()
        .map(|(n, m)| Frame::new(seq.wrapping_add(n as u8), m))
        .collect()
}

/// Every history event kind in turn, deterministic from `i`.
pub fn sample_event(i: usize) -> HistoryEvent {
    const PRESSES: [(Button, Side); 6] = ButtonCounters::ORDER;
    match i % 9 {
        0..=5 => {
            let from = Cell::from_bits((i % 4) as u8);
            HistoryEvent::Point {
                index: (i * 37 % 361) as u16,
                from,
                to: Cell::from_bits(from.bits() + 1 + (i % 3) as u8),
            }
        }
        6 => HistoryEvent::Filler,
        _ => {
            let (button, side) = PRESSES[i / 9 % 6];
            HistoryEvent::Press { button, side }
        }
    }
}

/// An `Ok` chunk of `count` entries.
pub fn sample_chunk(count: usize, salt: usize) -> HistoryChunk {
    let mut chunk = HistoryChunk::new(salt as u32 * 1_000, salt as u32 * 58, u32::MAX - 3);
    for i in 0..count {
        chunk
            .push(HistoryEntry {
                event: sample_event(i + salt),
                dt_ms: (i * 4_099 + salt) as u16,
            })
            .unwrap();
    }
    chunk
}

pub fn arb_history_event() -> impl Strategy<Value = HistoryEvent> {
    prop_oneof![
        4 => (0u16..=360, 0u8..4, 1u8..4).prop_map(|(index, from, k)| HistoryEvent::Point {
            index,
            from: Cell::from_bits(from),
            to: Cell::from_bits((from + k) % 4),
        }),
        1 => (0usize..3, any::<bool>()).prop_map(|(b, white)| HistoryEvent::Press {
            button: [Button::Pass, Button::Resign, Button::Clock][b],
            side: if white { Side::White } else { Side::Black },
        }),
        1 => Just(HistoryEvent::Filler),
    ]
}

pub fn arb_history_chunk() -> impl Strategy<Value = HistoryChunk> {
    let entries = prop::collection::vec(
        (arb_history_event(), any::<u16>())
            .prop_map(|(event, dt_ms)| HistoryEntry { event, dt_ms }),
        0..=MAX_CHUNK_ENTRIES,
    );
    prop_oneof![
        3 => (any::<u32>(), any::<u32>(), any::<u32>(), entries).prop_map(
            |(since, first, base, entries)| {
                let mut chunk = HistoryChunk::new(since, first, base);
                for e in entries {
                    chunk.push(e).unwrap();
                }
                chunk
            }
        ),
        1 => (any::<u32>(), any::<bool>(), any::<u32>(), any::<u32>()).prop_map(
            |(since, lost, first, base)| HistoryChunk::refused(
                since,
                if lost { ChunkStatus::Lost } else { ChunkStatus::NoSpan },
                first,
                base,
            )
        ),
    ]
}

pub fn arb_history_info() -> impl Strategy<Value = HistoryInfo> {
    (0u8..4, any::<[u32; 5]>(), any::<[u8; 6]>(), arb_cells()).prop_map(
        |(status, [boot_id, since_ms, until_ms, entries, oldest_ms], buttons, base)| {
            let status = InfoStatus::from_u8(status).unwrap();
            let buttons = ButtonCounters::from_bytes(buttons);
            if status == InfoStatus::Ok {
                HistoryInfo {
                    status,
                    boot_id,
                    since_ms,
                    until_ms,
                    entries,
                    oldest_ms,
                    buttons,
                    base,
                }
            } else {
                HistoryInfo::refused(
                    status,
                    boot_id,
                    since_ms,
                    until_ms,
                    oldest_ms,
                    buttons,
                    base.size(),
                )
            }
        },
    )
}

/// An LED frame of `size` with a deterministic palette and cells.
pub fn sample_led_frame(size: BoardSize, salt: usize) -> LedFrame {
    let mut palette = [LedPaint::OFF; PALETTE_LEN];
    for (i, paint) in palette.iter_mut().enumerate().skip(1) {
        *paint = LedPaint {
            rgb: [(i * 16) as u8, (255 - i * 9) as u8, (i * 3 + salt) as u8],
            effect: match i % 3 {
                0 => LedEffect::Steady,
                1 => LedEffect::Blink { period_ds: i as u8 },
                _ => LedEffect::Breathe {
                    period_ds: 63 - i as u8,
                },
            },
        };
    }
    let mut cells = LedCells::new(size);
    for i in 0..size.points() {
        cells.set(i, ((i * 5 + salt) % 16) as u8);
    }
    LedFrame {
        frame_id: salt as u16 * 1000,
        palette,
        cells,
    }
}

pub fn arb_led_frame() -> impl Strategy<Value = LedFrame> {
    let paint = (any::<[u8; 3]>(), 0u8..3, 1u8..64).prop_map(|(rgb, kind, period_ds)| LedPaint {
        rgb,
        effect: match kind {
            0 => LedEffect::Steady,
            1 => LedEffect::Blink { period_ds },
            _ => LedEffect::Breathe { period_ds },
        },
    });
    (
        any::<u16>(),
        prop::array::uniform16(paint),
        arb_size().prop_flat_map(|size| {
            prop::collection::vec(0u8..16, size.points()).prop_map(move |v| {
                let mut cells = LedCells::new(size);
                for (i, e) in v.into_iter().enumerate() {
                    cells.set(i, e);
                }
                cells
            })
        }),
    )
        .prop_map(|(frame_id, palette, cells)| LedFrame {
            frame_id,
            palette,
            cells,
        })
}

pub fn arb_cell() -> impl Strategy<Value = Cell> {
    (0u8..4).prop_map(Cell::from_bits)
}

pub fn arb_size() -> impl Strategy<Value = BoardSize> {
    prop::sample::select(BoardSize::ALL.to_vec())
}

pub fn arb_cells() -> impl Strategy<Value = PackedCells> {
    arb_size().prop_flat_map(|size| {
        prop::collection::vec(arb_cell(), size.points())
            .prop_map(move |cells| PackedCells::from_cells(size, cells).unwrap())
    })
}

pub fn arb_message() -> impl Strategy<Value = Message> {
    prop_oneof![
        any::<u8>().prop_map(|v| Message::Hello(Hello {
            protocol_version: v
        })),
        (
            any::<u8>(),
            any::<bool>(),
            arb_size(),
            any::<u8>(),
            any::<u16>(),
            any::<u32>()
        )
            .prop_map(|(v, accepted, board_size, rate, fw, id)| Message::HelloAck(
                HelloAck {
                    protocol_version: v,
                    accepted,
                    board_size,
                    scan_rate_hz: rate,
                    firmware_version: fw,
                    device_id: id,
                }
            )),
        (any::<u32>(), any::<u32>(), any::<[u8; 6]>(), arb_cells()).prop_map(
            |(scan_counter, board_ms, buttons, cells)| Message::Scan(Scan {
                scan_counter,
                board_ms,
                buttons: ButtonCounters::from_bytes(buttons),
                cells,
            })
        ),
        any::<u32>().prop_map(|nonce| Message::Ping(Ping { nonce })),
        any::<u32>().prop_map(|nonce| Message::Pong(Pong { nonce })),
        (any::<u16>(), any::<u32>()).prop_map(|(frame_id, content_crc)| Message::LedAck(LedAck {
            frame_id,
            content_crc
        })),
        arb_led_frame().prop_map(Message::LedFrame),
        (any::<u32>(), any::<u32>()).prop_map(|(boot_id, since_ms)| Message::HistoryOpen(
            HistoryOpen { boot_id, since_ms }
        )),
        (any::<u32>(), any::<u32>()).prop_map(|(since_ms, from_entry)| Message::HistoryPull(
            HistoryPull {
                since_ms,
                from_entry
            }
        )),
        arb_history_info().prop_map(Message::HistoryInfo),
        arb_history_chunk().prop_map(Message::HistoryChunk),
        (any::<u16>(), any::<u8>()).prop_map(|(first_point, count)| RawRequest {
            first_point,
            count
        }
        .into()),
        (
            any::<u32>(),
            any::<u16>(),
            prop::collection::vec(0u16..=u16::MAX, 0..=MAX_RAW_POINTS)
        )
            .prop_map(|(c, first, r)| RawReadings::new(c, first, &r).into()),
        (
            any::<u16>(),
            prop::collection::vec(any::<u8>(), 1..=MAX_DATA_BYTES)
        )
            .prop_map(|(offset, bytes)| CalibrationData::new(offset, &bytes).into()),
        (any::<u16>(), any::<u32>()).prop_map(|(len, crc)| CalibrationCommit { len, crc }.into()),
        (0u8..4, any::<u32>()).prop_map(|(status, crc)| CalibrationAck {
            status: CalibrationStatus::from_u8(status).unwrap(),
            crc
        }
        .into()),
        Just(HealthRequest.into()),
        (
            arb_size(),
            any::<bool>(),
            prop::collection::vec(0u8..16, 361)
        )
            .prop_map(|(size, calibrated, faults)| {
                let mut h = SensorHealth::new(size, calibrated);
                for (i, f) in faults.into_iter().enumerate() {
                    h.set(i, f);
                }
                h.into()
            }),
    ]
}

pub fn arb_frame() -> impl Strategy<Value = Frame> {
    (any::<u8>(), arb_message()).prop_map(|(seq, message)| Frame { seq, message })
}

/// Bytes with no 0x00 (so they stay inside one frame on the wire).
pub fn arb_nonzero_bytes(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(1u8..=255, 0..=max_len)
}

/// Number of non-empty runs between delimiters in `bytes` followed by a delimiter: the number of
/// frame attempts (good or bad) a decoder must report for them.
pub fn delimited_runs(bytes: &[u8]) -> usize {
    bytes
        .split(|&b| b == 0)
        .filter(|run| !run.is_empty())
        .count()
}
