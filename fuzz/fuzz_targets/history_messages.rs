//! The board's history messages (hardware/PROTOCOL.md §5.8–§5.11, §14), built from arbitrary
//! bytes the way the board builds them, must decode back to themselves.
//!
//! Input: bytes 0..13 the chunk's header fields (since_ms, first_entry, base_ms) and the Info's
//! status, then 4 bytes per entry candidate (code, dt_ms; codes `HistoryEvent::from_code`
//! rejects are skipped, and `push` must refuse exactly the invalid events), then the rest as
//! the Info's base cells. Checks: every `HistoryChunk`, `HistoryInfo`, `HistoryOpen` and
//! `HistoryPull` encodes and decodes to itself through the frame decoder; a chunk's timed
//! entries are its `base_ms` plus the running sum of the `dt_ms`; a full chunk fits the
//! board's largest frame.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smartgoban_protocol::{
    encode, BoardSize, ButtonCounters, Cell, Frame, FrameDecoder, HistoryChunk, HistoryEntry,
    HistoryEvent, HistoryInfo, HistoryOpen, HistoryPull, InfoStatus, Message, PackedCells,
    PushError, MAX_BOARD_FRAME_LEN, MAX_CHUNK_ENTRIES, MAX_FRAME_LEN,
};

fn u32_at(data: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    for (i, x) in b.iter_mut().enumerate() {
        *x = data.get(at + i).copied().unwrap_or(0);
    }
    u32::from_le_bytes(b)
}

/// Encodes `message` in a frame and decodes it again: the same frame, nothing left over.
fn round_trip(message: Message) -> usize {
    let frame = Frame::new(0x5A, message);
    let mut wire = [0u8; MAX_FRAME_LEN];
    let n = encode(&frame, &mut wire).expect("a valid message encodes");
    let mut decoder = FrameDecoder::new();
    let again: Vec<_> = decoder.frames(&wire[..n]).collect();
    assert_eq!(again, [Ok(frame)], "decodes differently");
    assert_eq!(decoder.buffered_len(), 0);
    n
}

fuzz_target!(|data: &[u8]| {
    let since_ms = u32_at(data, 0);
    let first_entry = u32_at(data, 4);
    let base_ms = u32_at(data, 8);
    let status = data.get(12).copied().unwrap_or(0);
    let body = data.get(13..).unwrap_or(&[]);

    // A chunk as the board builds it, entry by entry.
    let mut chunk = HistoryChunk::new(since_ms, first_entry, base_ms);
    let mut pushed = Vec::new();
    let mut used = 0;
    for bytes in body.chunks_exact(4) {
        used += 4;
        let code = u16::from_le_bytes([bytes[0], bytes[1]]);
        let dt_ms = u16::from_le_bytes([bytes[2], bytes[3]]);
        let event = match HistoryEvent::from_code(code) {
            Some(event) => event,
            None => {
                // An invalid point (index past 360, from = to) must be refused by `push`.
                let bad = HistoryEvent::Point {
                    index: code & 0x1FF | 0x100,
                    from: Cell::from_bits(bytes[0]),
                    to: Cell::from_bits(bytes[0]),
                };
                let mut copy = chunk;
                assert_eq!(
                    copy.push(HistoryEntry { event: bad, dt_ms }),
                    Err(PushError::Invalid)
                );
                assert_eq!(copy, chunk, "a refused entry changes nothing");
                continue;
            }
        };
        let entry = HistoryEntry { event, dt_ms };
        match chunk.push(entry) {
            Ok(()) => pushed.push(entry),
            Err(e) => {
                assert_eq!(e, PushError::Full);
                assert_eq!(pushed.len(), MAX_CHUNK_ENTRIES);
                break;
            }
        }
    }
    assert_eq!(chunk.len(), pushed.len());
    assert!(chunk.entries().eq(pushed.iter().copied()));
    let mut t = base_ms;
    for (e, timed) in pushed.iter().zip(chunk.timed()) {
        t = t.wrapping_add(u32::from(e.dt_ms));
        assert_eq!(timed.board_ms, t);
        assert_eq!(timed.event, e.event);
    }
    let n = round_trip(Message::HistoryChunk(chunk));
    assert!(n <= MAX_BOARD_FRAME_LEN);

    // An Info with a base from the rest of the bytes.
    let rest = body.get(used..).unwrap_or(&[]);
    let size = BoardSize::ALL[usize::from(status / 4) % 3];
    let base = PackedCells::from_cells(
        size,
        (0..size.points())
            .map(|i| Cell::from_bits(rest.get(i / 4).map_or(0, |b| b >> (2 * (i % 4))))),
    )
    .expect("size² cells");
    let mut buttons = [0u8; 6];
    for (i, b) in buttons.iter_mut().enumerate() {
        *b = data.get(i).copied().unwrap_or(0);
    }
    let status = InfoStatus::from_u8(status % 4).expect("0..=3");
    let info = if status == InfoStatus::Ok {
        HistoryInfo {
            status,
            boot_id: since_ms ^ base_ms,
            since_ms,
            until_ms: base_ms,
            entries: first_entry,
            oldest_ms: since_ms.rotate_left(7),
            buttons: ButtonCounters::from_bytes(buttons),
            base,
        }
    } else {
        HistoryInfo::refused(
            status,
            since_ms ^ base_ms,
            since_ms,
            base_ms,
            first_entry,
            ButtonCounters::from_bytes(buttons),
            size,
        )
    };
    round_trip(Message::HistoryInfo(info));
    round_trip(Message::HistoryOpen(HistoryOpen {
        boot_id: first_entry,
        since_ms,
    }));
    round_trip(Message::HistoryPull(HistoryPull {
        since_ms: base_ms,
        from_entry: first_entry,
    }));
});
