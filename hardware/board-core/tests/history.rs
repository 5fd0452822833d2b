//! The board's history against hardware/PROTOCOL.md §14: a long stream of random scans and
//! presses recorded, then for random `since_ms` an Open and its chunks must give back exactly
//! the readings of every later scan and every press; overwritten spans give `Lost`, another
//! boot `OtherBoot`, boot 0 `NotAsked`, a time after the last scan `Lost`. And the golden
//! frames of §12 (tests/golden/frames.txt, shared with the protocol crate and the host).

use proptest::prelude::*;
use smartgoban_board_core::history::{FirmwareHistory, History, BLOCK_LEN, FIRMWARE_CAPACITY};
use smartgoban_protocol::{
    encode, BoardSize, Button, ButtonCounters, Cell, ChunkStatus, Frame, HistoryChunk,
    HistoryEvent, HistoryInfo, InfoStatus, PackedCells, Side, MAX_CHUNK_ENTRIES, MAX_FRAME_LEN,
    WINDOW_CHUNKS,
};

const BOOT: u32 = 0x1234_ABCD;

/// Something the board saw, in the order it happened.
#[derive(Clone, Debug)]
enum Seen {
    Scan(u32, PackedCells),
    Press(u32, Button, Side),
}

/// What the host rebuilds from an Open and its chunks.
#[derive(Debug)]
struct Rebuilt {
    info: HistoryInfo,
    events: Vec<(u32, HistoryEvent)>,
}

/// Opens a span and pulls it whole, window after window, as the host does (§14.5).
fn pull_all<const B: usize>(
    h: &mut History<B>,
    boot: u32,
    since: u32,
) -> Result<Rebuilt, InfoStatus> {
    let info = h.open(boot, since, ButtonCounters::ZERO);
    if info.status != InfoStatus::Ok {
        return Err(info.status);
    }
    let mut events = Vec::new();
    let mut next = 0u32;
    while next < info.entries {
        let window: Vec<HistoryChunk> = h.window(since, next).collect();
        assert!(!window.is_empty() && window.len() <= WINDOW_CHUNKS);
        for (k, chunk) in window.iter().enumerate() {
            assert_eq!(chunk.status, ChunkStatus::Ok);
            assert_eq!(chunk.first_entry, next, "chunks in order, none missing");
            if k + 1 < window.len() {
                assert_eq!(
                    chunk.len(),
                    MAX_CHUNK_ENTRIES,
                    "only the last chunk is short"
                );
            }
            for e in chunk.timed() {
                events.push((e.board_ms, e.event));
            }
            next += chunk.len() as u32;
        }
    }
    assert_eq!(next, info.entries);
    // At the end: one empty Ok chunk.
    let end = h.chunk(since, info.entries);
    assert_eq!((end.status, end.len()), (ChunkStatus::Ok, 0));
    Ok(Rebuilt { info, events })
}

/// `t` in (since, until] with wrapping arithmetic (§14.2).
fn in_span(t: u32, since: u32, until: u32) -> bool {
    let d = t.wrapping_sub(since);
    d > 0 && d <= until.wrapping_sub(since)
}

/// Checks a rebuilt history against what the board saw: the base is the readings at `since`,
/// replaying the point entries gives every later scan's readings at its time, and the presses
/// are exactly those in (since, until], in order.
fn check_rebuilt(seen: &[Seen], since: u32, r: &Rebuilt) {
    let until = r.info.until_ms;
    // The readings at `since`: the last scan at or before it.
    let mut at_since = None;
    for s in seen {
        if let Seen::Scan(t, cells) = s {
            if since.wrapping_sub(*t) < 1 << 31 {
                at_since = Some(*cells); // at or before `since`
            }
        }
    }
    assert_eq!(Some(r.info.base), at_since, "base at {since}");
    let mut cells = r.info.base;
    let mut events = r.events.iter().peekable();
    let mut presses = Vec::new();
    let mut expected_presses = Vec::new();
    for s in seen {
        match *s {
            Seen::Scan(t, ref scan) if in_span(t, since, until) => {
                while let Some(&&(et, ev)) = events.peek() {
                    if et.wrapping_sub(since) > t.wrapping_sub(since) {
                        break;
                    }
                    events.next();
                    match ev {
                        HistoryEvent::Point { index, from, to } => {
                            assert_eq!(et, t, "a point entry is at a scan's time");
                            assert_eq!(cells.get(index.into()), from, "from of {index} at {et}");
                            cells.set(index.into(), to);
                        }
                        HistoryEvent::Press { button, side } => presses.push((et, button, side)),
                        HistoryEvent::Filler => {}
                    }
                }
                assert_eq!(cells, *scan, "readings of the scan at {t}");
            }
            Seen::Press(t, b, side) if in_span(t, since, until) => {
                expected_presses.push((t, b, side))
            }
            _ => {}
        }
    }
    for &(et, ev) in events {
        assert!(in_span(et, since, until), "entry after the span: {et}");
        if let HistoryEvent::Press { button, side } = ev {
            presses.push((et, button, side));
        } else {
            assert_eq!(ev, HistoryEvent::Filler, "a point after the last scan");
        }
    }
    assert_eq!(presses, expected_presses);
}

#[derive(Clone, Debug)]
struct Step {
    /// ms after the previous scan.
    gap_ms: u32,
    /// Points changed, with their new readings.
    changes: Vec<(usize, u8)>,
    /// Presses before the scan: ms after the previous scan (clamped below `gap_ms`), which.
    presses: Vec<(u32, u8)>,
}

fn arb_step() -> impl Strategy<Value = Step> {
    (
        prop_oneof![8 => Just(20u32), 2 => 1u32..200, 1 => 60_000u32..200_000],
        prop::collection::vec((0usize..81, 0u8..4), 0..4),
        prop::collection::vec((0u32..200_000, 0u8..6), 0..2),
    )
        .prop_map(|(gap_ms, changes, presses)| Step {
            gap_ms,
            changes,
            presses,
        })
}

const PRESSES: [(Button, Side); 6] = ButtonCounters::ORDER;

/// Plays `steps` into a ring of `B` blocks from board time `start`; returns what it saw.
fn play<const B: usize>(h: &mut History<B>, start: u32, steps: &[Step]) -> Vec<Seen> {
    let mut seen = Vec::new();
    let mut cells = PackedCells::new(BoardSize::NINE);
    let mut t = start;
    h.record_scan(t, &cells);
    seen.push(Seen::Scan(t, cells));
    for step in steps {
        let mut presses: Vec<(u32, u8)> = step
            .presses
            .iter()
            .map(|&(at, which)| (at % step.gap_ms.max(1), which))
            .collect();
        presses.sort();
        for (at, which) in presses {
            let (button, side) = PRESSES[usize::from(which)];
            let pt = t.wrapping_add(at + 1); // in (t, t + gap]
            h.record_press(pt, button, side);
            seen.push(Seen::Press(pt, button, side));
        }
        t = t.wrapping_add(step.gap_ms);
        for &(i, v) in &step.changes {
            cells.set(i, Cell::from_bits(v));
        }
        h.record_scan(t, &cells);
        seen.push(Seen::Scan(t, cells));
    }
    seen
}

fn scan_times(seen: &[Seen]) -> Vec<u32> {
    seen.iter()
        .filter_map(|s| match s {
            Seen::Scan(t, _) => Some(*t),
            Seen::Press(..) => None,
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// §14.3–§14.4: for every `since_ms` the ring still holds, the Open and its chunks give back
    /// exactly what the board saw after it; one it no longer holds gives `Lost`.
    #[test]
    fn open_and_chunks_rebuild_every_later_scan_and_press(
        start in prop_oneof![Just(0u32), Just(u32::MAX - 100_000), any::<u32>()],
        steps in prop::collection::vec(arb_step(), 1..700),
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..6),
        offsets in prop::collection::vec(0u32..40, 1..6),
    ) {
        // 8 blocks: 512 entries, so long streams overwrite.
        let mut h = History::<8>::new(BoardSize::NINE);
        h.restart(BOOT);
        let seen = play(&mut h, start, &steps);
        let times = scan_times(&seen);
        let stats = h.stats();
        prop_assert!(stats.stored <= 512);
        prop_assert_eq!(stats.recorded, stats.stored as u64 + stats.overwritten);
        let oldest = stats.oldest_ms.unwrap();
        let last = *times.last().unwrap();
        prop_assert_eq!(stats.newest_ms, Some(last));
        for (pick, off) in picks.iter().zip(offsets.iter().cycle()) {
            // A scan time, or a time between it and the next scan.
            let i = pick.index(times.len());
            let since = match times.get(i + 1) {
                Some(next) => times[i].wrapping_add(off % next.wrapping_sub(times[i])),
                None => times[i],
            };
            let held = since.wrapping_sub(oldest) <= last.wrapping_sub(oldest);
            match pull_all(&mut h, BOOT, since) {
                Ok(r) => {
                    prop_assert!(held, "{since} is before {oldest}");
                    prop_assert_eq!(r.info.until_ms, last);
                    prop_assert_eq!(r.info.oldest_ms, oldest);
                    check_rebuilt(&seen, since, &r);
                }
                Err(status) => {
                    prop_assert_eq!(status, InfoStatus::Lost);
                    prop_assert!(!held, "{since} is held from {oldest}");
                }
            }
        }
        // Another boot, no boot, a time after the last scan.
        prop_assert_eq!(h.open(BOOT ^ 1, last, ButtonCounters::ZERO).status, InfoStatus::OtherBoot);
        prop_assert_eq!(h.open(0, 0, ButtonCounters::ZERO).status, InfoStatus::NotAsked);
        prop_assert_eq!(h.open(BOOT, last.wrapping_add(1), ButtonCounters::ZERO).status, InfoStatus::Lost);
        // No span is open after a refusal.
        prop_assert_eq!(h.chunk(last, 0).status, ChunkStatus::NoSpan);
    }
}

#[test]
fn entries_overwritten_during_a_transfer_are_lost() {
    let mut h = History::<2>::new(BoardSize::NINE);
    h.restart(BOOT);
    let mut cells = PackedCells::new(BoardSize::NINE);
    h.record_scan(0, &cells);
    for k in 1..=60u32 {
        cells.set((k % 81) as usize, Cell::from_bits((k % 3 + 1) as u8));
        h.record_scan(20 * k, &cells);
    }
    let info = h.open(BOOT, 0, ButtonCounters::ZERO);
    assert_eq!((info.status, info.entries), (InfoStatus::Ok, 60));
    let first = h.chunk(0, 0);
    assert_eq!(first.len(), MAX_CHUNK_ENTRIES);
    // The board plays on: two blocks later the span's first entries are gone.
    for k in 61..=200u32 {
        h.record_press(20 * k, Button::Clock, Side::Black);
    }
    let lost = h.chunk(0, 0);
    assert_eq!(lost.status, ChunkStatus::Lost);
    assert_eq!(lost.base_ms, h.stats().oldest_ms.unwrap());
    let window: Vec<_> = h.window(0, 58).collect();
    assert_eq!(window.len(), 1, "a refusal ends the window");
    assert_eq!(window[0].status, ChunkStatus::Lost);
    // A new Open of that since: Lost too.
    assert_eq!(
        h.open(BOOT, 0, ButtonCounters::ZERO).status,
        InfoStatus::Lost
    );
}

#[test]
fn a_window_is_at_most_eight_chunks_of_58() {
    let mut h = History::<16>::new(BoardSize::NINETEEN);
    h.restart(BOOT);
    h.record_scan(0, &PackedCells::new(BoardSize::NINETEEN));
    for k in 0..1000u32 {
        h.record_press(
            1 + k,
            Button::Pass,
            if k % 2 == 0 { Side::Black } else { Side::White },
        );
    }
    h.record_scan(2000, &PackedCells::new(BoardSize::NINETEEN));
    let info = h.open(BOOT, 0, ButtonCounters::ZERO);
    assert_eq!(info.entries, 1000);
    let w: Vec<_> = h.window(0, 0).collect();
    assert_eq!(w.len(), WINDOW_CHUNKS);
    assert!(w.iter().all(|c| c.len() == MAX_CHUNK_ENTRIES));
    let tail: Vec<_> = h.window(0, 1000 - 10).collect();
    assert_eq!(tail.len(), 1);
    assert_eq!(tail[0].len(), 10);
    // The chunk after entry 0 counts from the entry before it.
    assert_eq!(w[1].base_ms, 58);
    assert_eq!(w[1].timed().next().unwrap().board_ms, 59);
    // The wire frames of a full chunk fit the board's largest frame.
    let mut out = [0u8; MAX_FRAME_LEN];
    assert_eq!(encode(&Frame::new(0, w[0]), &mut out), Ok(254));
}

#[test]
fn fillers_bridge_long_gaps_and_bound_the_span() {
    let mut h = History::<2>::new(BoardSize::NINE);
    h.restart(BOOT);
    let cells = PackedCells::new(BoardSize::NINE);
    h.record_scan(1_000, &cells);
    // Ten minutes of nothing: fillers every 65.5 s as the scans come.
    for k in 1..=30_000u32 {
        h.record_scan(1_000 + 20 * k, &cells);
    }
    let s = h.stats();
    assert_eq!(s.fillers, 600_000 / 65_535);
    assert_eq!(s.points, 0);
    let r = pull_all(&mut h, BOOT, 1_000).unwrap();
    let times: Vec<u32> = r.events.iter().map(|e| e.0).collect();
    assert_eq!(times[0], 66_535);
    assert!(times.windows(2).all(|w| w[1] - w[0] == 65_535));
}

#[test]
fn the_firmware_ring_holds_40960_entries_in_166400_bytes() {
    assert_eq!(FIRMWARE_CAPACITY, 40_960);
    assert_eq!(FirmwareHistory::CAPACITY, 640 * BLOCK_LEN);
    let size = std::mem::size_of::<FirmwareHistory>();
    assert!(
        (166_400..166_400 + 256).contains(&size),
        "{size} bytes of RAM"
    );
}

// ---- golden frames (PROTOCOL.md §12 examples 8 and 10) -------------------------------------

mod golden_frames;
use golden_frames::{golden_wire, wire};

#[test]
fn the_board_of_the_worked_examples_sends_the_golden_frames() {
    // §12 examples 7–10: first scan at 1000 with black J1, black C7 at 1020, black's clock
    // press at 1500, white D7 at 70 000.
    let size = BoardSize::NINE;
    let mut h = Box::new(FirmwareHistory::new(size));
    h.restart(BOOT);
    let mut cells = PackedCells::new(size);
    cells.set(80, Cell::Black);
    h.record_scan(1000, &cells);
    cells.set(20, Cell::Black);
    h.record_scan(1020, &cells);
    h.record_press(1500, Button::Clock, Side::Black);
    cells.set(21, Cell::White);
    h.record_scan(70_000, &cells);
    let mut buttons = ButtonCounters::ZERO;
    buttons.record_press(Button::Clock, Side::Black);
    let info = h.open(BOOT, 1000, buttons);
    assert_eq!(wire(Frame::new(4, info)), golden_wire("history-info-9x9"));
    let chunks: Vec<_> = h.window(1000, 0).collect();
    assert_eq!(chunks.len(), 1);
    assert_eq!(wire(Frame::new(6, chunks[0])), golden_wire("history-chunk"));
}
