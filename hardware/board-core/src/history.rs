//! The board's history (hardware/PROTOCOL.md §14, protocol version 3): a ring buffer of every
//! change of a point's reading and every counted button press, with its board time, that the
//! board keeps recording whether or not a host listens, and from which it answers the host's
//! `HistoryOpen` ([`History::open`]) and `HistoryPull`s ([`History::window`],
//! [`History::chunk`]).
//!
//! # Layout
//!
//! Entries are kept as on the wire (§5.11): 4 bytes each, a 16-bit `code` and the ms since the
//! entry before (`dt_ms`). They sit in blocks of [`BLOCK_LEN`] = 64 entries; each block has an
//! anchor, the absolute board time of its first entry, so that the board time of any entry is
//! found in at most 63 additions. When the ring is full the oldest block is dropped whole, 64
//! entries at once (§14.2: `oldest_ms` is then the time of the newest entry dropped).
//!
//! # Budget
//!
//! [`FirmwareHistory`] is the type the RP2040 firmware and the virtual board run: 640 blocks,
//! [`FIRMWARE_CAPACITY`] = 40,960 entries, 640 × (4 + 64 × 4) = 166,400 bytes (162.5 KiB) of
//! the RP2040's 264 KiB, plus about 120 bytes of state. At the entry rates the virtual board
//! measures (hardware/PROTOCOL.md §14.6) that holds 69 minutes of its `realistic` play (594
//! entries a minute, 16.4 a move: about 2,500 moves), 169 of `clean`, 28 of `blitz` and 13 of
//! `harsh` (sensor noise under hands: 3,063 entries a minute).
//!
//! # Board time
//!
//! Times are the board's u32 millisecond clock, which wraps (§14.2). The ring holds at most
//! (N + 1) × 65,535 ms (fillers bound every gap), less than 2³² ms for every capacity this type
//! allows (at most 65,536 entries), so the board compares times relative to `oldest_ms` with
//! wrapping arithmetic. A time earlier than the latest recorded (a clock that went back) is
//! taken as the latest.

use smartgoban_protocol::{
    BoardSize, Button, ButtonCounters, ChunkStatus, HistoryChunk, HistoryEntry, HistoryEvent,
    HistoryInfo, InfoStatus, PackedCells, Side, ENTRY_LEN, MAX_CHUNK_ENTRIES, WINDOW_CHUNKS,
};

/// Entries per block: each block has one anchor (the absolute board time of its first entry),
/// and the ring drops the oldest block whole when it is full.
pub const BLOCK_LEN: usize = 64;

/// Blocks of the firmware's ring: 640, i.e. 40,960 entries in 166,400 bytes.
pub const FIRMWARE_BLOCKS: usize = 640;

/// Entries the firmware's ring holds: [`FIRMWARE_BLOCKS`] × [`BLOCK_LEN`] = 40,960 (§14.6).
pub const FIRMWARE_CAPACITY: usize = FIRMWARE_BLOCKS * BLOCK_LEN;

/// Bytes of the firmware's ring: 640 × (4 + 64 × 4) = 166,400 (162.5 KiB, §14.6).
pub const FIRMWARE_RING_BYTES: usize = FIRMWARE_BLOCKS * (4 + BLOCK_LEN * ENTRY_LEN);

/// The history the RP2040 firmware and the virtual board keep (§14.6).
pub type FirmwareHistory = History<FIRMWARE_BLOCKS>;

/// The longest `dt_ms` an entry carries, and a filler's (§5.11): 65,535 ms.
const MAX_DT_MS: u32 = u16::MAX as u32;

/// Half the u32 clock: a time at least this far "after" another is taken as before it.
const HALF_CLOCK: u32 = 1 << 31;

#[derive(Clone, Copy)]
struct Block {
    /// Board time of the block's first entry, ms.
    start_ms: u32,
    /// The entries, as on the wire (§5.11).
    slots: [[u8; ENTRY_LEN]; BLOCK_LEN],
}

impl Block {
    const EMPTY: Block = Block {
        start_ms: 0,
        slots: [[0; ENTRY_LEN]; BLOCK_LEN],
    };
}

/// The span fixed by the last `Ok` Open (§14.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    since_ms: u32,
    until_ms: u32,
    /// Sequence number (since the boot) of the span's entry 0.
    start: u64,
    /// Entries in the span.
    len: u32,
}

/// What a [`History`] holds, for diagnostics and the budget (§14.6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HistoryStats {
    /// Entries the ring can hold.
    pub capacity: usize,
    /// Entries it holds now (up to `capacity`; after the first overwrite between
    /// `capacity − 63` and `capacity`, as the oldest block goes whole).
    pub stored: usize,
    /// Entries recorded since the boot.
    pub recorded: u64,
    /// Entries dropped from the ring to make room.
    pub overwritten: u64,
    /// Point entries recorded since the boot.
    pub points: u64,
    /// Press entries recorded since the boot.
    pub presses: u64,
    /// Fillers recorded since the boot.
    pub fillers: u64,
    /// The board holds every change after this board time, ms (§14.2); `None` before the first
    /// scan.
    pub oldest_ms: Option<u32>,
    /// Board time of the last scan recorded, ms; `None` before the first scan.
    pub newest_ms: Option<u32>,
}

/// The board's history: a ring of `BLOCKS` × [`BLOCK_LEN`] entries (hardware/PROTOCOL.md §14).
///
/// Feed it every scan ([`History::record_scan`]) and every counted press
/// ([`History::record_press`]) with their board times, from power-up on; answer a
/// `HistoryOpen` with [`History::open`] and a `HistoryPull` with the chunks of
/// [`History::window`]. [`History::new`] is `const`, so the firmware keeps it in a `static`.
/// No method panics or allocates. `BLOCKS` must be 1 to 1,024 (at most 65,536 entries, so that
/// the span held stays shorter than the u32 clock).
pub struct History<const BLOCKS: usize> {
    blocks: [Block; BLOCKS],
    size: BoardSize,
    boot_id: u32,
    /// The readings of the last scan (valid once `scanned`).
    readings: PackedCells,
    scanned: bool,
    /// Sequence number (since the boot) of the next entry.
    next: u64,
    /// Sequence number of the oldest entry held (block-aligned).
    oldest: u64,
    /// The board holds every change after this board time.
    oldest_ms: u32,
    /// Board time of the last entry (the first scan's while there is none).
    last_entry_ms: u32,
    /// Board time of the last scan.
    last_scan_ms: u32,
    /// The latest board time recorded (scan or entry): times never go back from it.
    latest_ms: u32,
    span: Option<Span>,
    points: u64,
    presses: u64,
    fillers: u64,
}

impl<const BLOCKS: usize> History<BLOCKS> {
    const CHECK: () = assert!(
        BLOCKS >= 1 && BLOCKS * BLOCK_LEN <= 65_536,
        "a History holds 64 to 65,536 entries"
    );

    /// Entries this ring holds: `BLOCKS` × 64.
    pub const CAPACITY: usize = BLOCKS * BLOCK_LEN;

    /// An empty history of a `size` board, of no boot yet (boot id 0): call
    /// [`History::restart`] with the boot id drawn at power-up (§14.1) before recording.
    pub const fn new(size: BoardSize) -> Self {
        #[allow(clippy::let_unit_value)]
        let () = Self::CHECK;
        History {
            blocks: [Block::EMPTY; BLOCKS],
            size,
            boot_id: 0,
            readings: PackedCells::new(size),
            scanned: false,
            next: 0,
            oldest: 0,
            oldest_ms: 0,
            last_entry_ms: 0,
            last_scan_ms: 0,
            latest_ms: 0,
            span: None,
            points: 0,
            presses: 0,
            fillers: 0,
        }
    }

    /// The board (re)started with boot id `boot_id` (a random non-zero u32, §14.1): the history
    /// empties and the next scan is its first.
    pub fn restart(&mut self, boot_id: u32) {
        self.boot_id = boot_id;
        self.readings = PackedCells::new(self.size);
        self.scanned = false;
        self.next = 0;
        self.oldest = 0;
        self.oldest_ms = 0;
        self.last_entry_ms = 0;
        self.last_scan_ms = 0;
        self.latest_ms = 0;
        self.span = None;
        self.points = 0;
        self.presses = 0;
        self.fillers = 0;
    }

    /// The boot id given to [`History::restart`] (0 before).
    pub const fn boot_id(&self) -> u32 {
        self.boot_id
    }

    /// The board size the history records.
    pub const fn size(&self) -> BoardSize {
        self.size
    }

    /// The readings of the last scan recorded, if any.
    pub fn readings(&self) -> Option<&PackedCells> {
        self.scanned.then_some(&self.readings)
    }

    /// Records a scan taken at board time `board_ms` (§14.2): one point entry for every point
    /// whose reading differs from the previous scan's, at `board_ms`, in index order, after the
    /// fillers a gap of more than 65,535 ms since the last entry needs. The first scan since
    /// [`History::restart`] only sets the readings. A scan of another size than the history's
    /// is ignored.
    pub fn record_scan(&mut self, board_ms: u32, cells: &PackedCells) {
        if cells.size() != self.size {
            return;
        }
        if !self.scanned {
            self.scanned = true;
            self.readings = *cells;
            self.last_scan_ms = board_ms;
            self.last_entry_ms = board_ms;
            self.oldest_ms = board_ms;
            self.latest_ms = board_ms;
            return;
        }
        let now = self.monotonic(board_ms);
        self.fill_gap(now);
        let old = self.readings;
        for (i, (&a, &b)) in old
            .as_bytes()
            .iter()
            .zip(cells.as_bytes().iter())
            .enumerate()
        {
            if a == b {
                continue;
            }
            for k in 0..4 {
                let (from, to) = ((a >> (2 * k)) & 0b11, (b >> (2 * k)) & 0b11);
                if from != to {
                    let event = HistoryEvent::Point {
                        index: (4 * i + k) as u16,
                        from: smartgoban_protocol::Cell::from_bits(from),
                        to: smartgoban_protocol::Cell::from_bits(to),
                    };
                    self.push(event, now);
                    self.points += 1;
                }
            }
        }
        self.readings = *cells;
        self.last_scan_ms = now;
    }

    /// Records a counted press of `button` on `side` at board time `board_ms` (§14.2), after
    /// the fillers a gap of more than 65,535 ms needs. Presses before the first scan are not
    /// recorded (the history starts with the readings).
    pub fn record_press(&mut self, board_ms: u32, button: Button, side: Side) {
        if !self.scanned {
            return;
        }
        let now = self.monotonic(board_ms);
        self.fill_gap(now);
        self.push(HistoryEvent::Press { button, side }, now);
        self.presses += 1;
    }

    /// Answers a `HistoryOpen { boot_id, since_ms }` (§14.3): `NotAsked` for boot 0,
    /// `OtherBoot` for another boot than this one, `Lost` if the history has no scan yet or
    /// `since_ms` is not in [`oldest_ms`, last scan]; otherwise `Ok`, fixing the span
    /// (`since_ms`, last scan] with the readings at `since_ms` as its base. `buttons`: the
    /// session's counters as the last scan carried them (zero if the board took no scan since
    /// the `HelloAck`), sent as they are. Every call replaces the open span (a status other
    /// than `Ok` leaves none). Runs once per Open, in time linear in the span's entries.
    pub fn open(&mut self, boot_id: u32, since_ms: u32, buttons: ButtonCounters) -> HistoryInfo {
        self.span = None;
        let until_ms = if self.scanned { self.last_scan_ms } else { 0 };
        let refused = |status| {
            HistoryInfo::refused(
                status,
                self.boot_id,
                since_ms,
                until_ms,
                self.oldest_ms,
                buttons,
                self.size,
            )
        };
        if boot_id == 0 {
            return refused(InfoStatus::NotAsked);
        }
        if boot_id != self.boot_id {
            return refused(InfoStatus::OtherBoot);
        }
        let d_since = since_ms.wrapping_sub(self.oldest_ms);
        let d_until = until_ms.wrapping_sub(self.oldest_ms);
        // `d_until` "negative": entries after the last scan (presses) overwrote everything.
        if !self.scanned || d_until >= HALF_CLOCK || d_since > d_until {
            return refused(InfoStatus::Lost);
        }
        // Walk back from the newest entry, undoing every point entry after `since_ms`.
        let mut base = self.readings;
        let mut seq = self.next;
        let mut t = self.last_entry_ms; // the time of entry `seq - 1`
        let mut end = self.next; // the first entry after `until_ms`
        let mut start = None; // the first entry after `since_ms`
        while seq > self.oldest {
            let Some(entry) = self.entry(seq - 1) else {
                break;
            };
            let d = t.wrapping_sub(self.oldest_ms);
            if d <= d_since {
                break;
            }
            if let HistoryEvent::Point { index, from, .. } = entry.event {
                if usize::from(index) < base.len() {
                    base.set(usize::from(index), from);
                }
            }
            if d > d_until {
                end = seq - 1;
            } else {
                start = Some(seq - 1);
            }
            t = t.wrapping_sub(u32::from(entry.dt_ms));
            seq -= 1;
        }
        let start = start.unwrap_or(end);
        let len = u32::try_from(end.saturating_sub(start)).unwrap_or(u32::MAX);
        self.span = Some(Span {
            since_ms,
            until_ms,
            start,
            len,
        });
        HistoryInfo {
            status: InfoStatus::Ok,
            boot_id: self.boot_id,
            since_ms,
            until_ms,
            entries: len,
            oldest_ms: self.oldest_ms,
            buttons,
            base,
        }
    }

    /// One chunk of the open span from entry `from_entry` (§14.4): up to 58 entries; `NoSpan`
    /// if no span of `since_ms` is open, `Lost` if entry `from_entry` was overwritten (its
    /// `base_ms` the board's `oldest_ms` now), an empty `Ok` chunk (`base_ms` = `until_ms`) at
    /// or past the span's end.
    pub fn chunk(&self, since_ms: u32, from_entry: u32) -> HistoryChunk {
        let Some(span) = self.span.filter(|s| s.since_ms == since_ms) else {
            return HistoryChunk::refused(since_ms, ChunkStatus::NoSpan, from_entry, 0);
        };
        if from_entry >= span.len {
            return HistoryChunk::refused(since_ms, ChunkStatus::Ok, from_entry, span.until_ms);
        }
        let first = span.start + u64::from(from_entry);
        let lost = HistoryChunk::refused(since_ms, ChunkStatus::Lost, from_entry, self.oldest_ms);
        if first < self.oldest {
            return lost;
        }
        let (Some(first_ms), Some(first_entry)) = (self.time_of(first), self.entry(first)) else {
            return lost;
        };
        let base_ms = if from_entry == 0 {
            since_ms
        } else {
            first_ms.wrapping_sub(u32::from(first_entry.dt_ms))
        };
        let mut chunk = HistoryChunk::new(since_ms, from_entry, base_ms);
        let end = (span.start + u64::from(span.len)).min(first + MAX_CHUNK_ENTRIES as u64);
        for seq in first..end {
            let Some(mut entry) = self.entry(seq) else {
                return lost;
            };
            if seq == first {
                // Entry 0 counts from `since_ms`, not from the entry before it (§14.4).
                entry.dt_ms = u16::try_from(first_ms.wrapping_sub(base_ms)).unwrap_or(u16::MAX);
            }
            if chunk.push(entry).is_err() {
                break;
            }
        }
        chunk
    }

    /// The window of chunks answering a `HistoryPull { since_ms, from_entry }` (§14.4): up to
    /// [`WINDOW_CHUNKS`] (8) chunks in order from `from_entry`, stopping after the span's last
    /// entry; or one `NoSpan`, `Lost` or empty `Ok` chunk, as [`History::chunk`] says.
    pub fn window(&self, since_ms: u32, from_entry: u32) -> Window<'_, BLOCKS> {
        Window {
            history: self,
            since_ms,
            next: from_entry,
            left: WINDOW_CHUNKS,
        }
    }

    /// What the history holds (§14.6).
    pub fn stats(&self) -> HistoryStats {
        HistoryStats {
            capacity: Self::CAPACITY,
            stored: usize::try_from(self.next - self.oldest).unwrap_or(usize::MAX),
            recorded: self.next,
            overwritten: self.oldest,
            points: self.points,
            presses: self.presses,
            fillers: self.fillers,
            oldest_ms: self.scanned.then_some(self.oldest_ms),
            newest_ms: self.scanned.then_some(self.last_scan_ms),
        }
    }

    /// `board_ms`, or the latest time recorded if it is earlier (a clock that went back).
    fn monotonic(&mut self, board_ms: u32) -> u32 {
        if board_ms.wrapping_sub(self.latest_ms) < HALF_CLOCK {
            self.latest_ms = board_ms;
        }
        self.latest_ms
    }

    /// Fillers, each 65,535 ms after the entry before, until `now` is within 65,535 ms of the
    /// last entry (§14.2).
    fn fill_gap(&mut self, now: u32) {
        while now.wrapping_sub(self.last_entry_ms) > MAX_DT_MS {
            let t = self.last_entry_ms.wrapping_add(MAX_DT_MS);
            self.push(HistoryEvent::Filler, t);
            self.fillers += 1;
        }
    }

    /// Appends an entry at board time `t` (within 65,535 ms after the last entry), dropping the
    /// oldest block if the ring is full.
    fn push(&mut self, event: HistoryEvent, t: u32) {
        let dt_ms = u16::try_from(t.wrapping_sub(self.last_entry_ms)).unwrap_or(u16::MAX);
        let cap = Self::CAPACITY as u64;
        let seq = self.next;
        let (block, slot) = Self::place(seq);
        if slot == 0 {
            if seq >= cap {
                // The block about to be reused holds the oldest entries: drop it whole.
                let oldest = seq - cap + BLOCK_LEN as u64;
                self.oldest_ms = if oldest >= seq {
                    self.last_entry_ms // a ring of one block: every entry goes
                } else {
                    match (self.time_of(oldest), self.entry(oldest)) {
                        (Some(t), Some(e)) => t.wrapping_sub(u32::from(e.dt_ms)),
                        _ => self.last_entry_ms,
                    }
                };
                self.oldest = oldest;
            }
            if let Some(b) = self.blocks.get_mut(block) {
                b.start_ms = t;
            }
        }
        if let Some(s) = self
            .blocks
            .get_mut(block)
            .and_then(|b| b.slots.get_mut(slot))
        {
            *s = HistoryEntry { event, dt_ms }.to_bytes();
        }
        self.next += 1;
        self.last_entry_ms = t;
    }

    /// The block and slot of entry `seq`.
    fn place(seq: u64) -> (usize, usize) {
        let block = (seq / BLOCK_LEN as u64) % BLOCKS as u64;
        (block as usize, (seq % BLOCK_LEN as u64) as usize)
    }

    /// Entry `seq`, if the ring holds it.
    fn entry(&self, seq: u64) -> Option<HistoryEntry> {
        if seq < self.oldest || seq >= self.next {
            return None;
        }
        let (block, slot) = Self::place(seq);
        let bytes = self.blocks.get(block)?.slots.get(slot)?;
        HistoryEntry::from_bytes(*bytes)
    }

    /// The board time of entry `seq`, if the ring holds it: its block's anchor plus the `dt_ms`
    /// of the block's entries after the first, up to `seq` (at most 63 additions).
    fn time_of(&self, seq: u64) -> Option<u32> {
        if seq < self.oldest || seq >= self.next {
            return None;
        }
        let (block, slot) = Self::place(seq);
        let b = self.blocks.get(block)?;
        let mut t = b.start_ms;
        for bytes in b.slots.get(1..=slot)? {
            t = t.wrapping_add(u32::from(u16::from_le_bytes([bytes[2], bytes[3]])));
        }
        Some(t)
    }
}

/// The chunks answering one `HistoryPull`; see [`History::window`].
pub struct Window<'a, const BLOCKS: usize> {
    history: &'a History<BLOCKS>,
    since_ms: u32,
    next: u32,
    left: usize,
}

impl<const BLOCKS: usize> Iterator for Window<'_, BLOCKS> {
    type Item = HistoryChunk;

    fn next(&mut self) -> Option<HistoryChunk> {
        if self.left == 0 {
            return None;
        }
        let chunk = self.history.chunk(self.since_ms, self.next);
        self.left -= 1;
        let len = chunk.len() as u32;
        let span_len = self.history.span.map_or(0, |s| s.len);
        if chunk.status != ChunkStatus::Ok || len == 0 || self.next.saturating_add(len) >= span_len
        {
            self.left = 0; // a refusal, the empty end chunk, or the span's last entry
        }
        self.next = self.next.saturating_add(len);
        Some(chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smartgoban_protocol::Cell;

    const NINE: BoardSize = BoardSize::NINE;

    fn board(stones: &[(usize, Cell)]) -> PackedCells {
        let mut cells = PackedCells::new(NINE);
        for &(i, c) in stones {
            cells.set(i, c);
        }
        cells
    }

    #[test]
    fn the_first_scan_only_sets_the_readings() {
        let mut h = History::<2>::new(NINE);
        h.restart(5);
        h.record_press(10, Button::Pass, Side::Black); // before any scan: not recorded
        h.record_scan(100, &board(&[(3, Cell::Black)]));
        assert_eq!(h.stats().recorded, 0);
        assert_eq!(h.stats().oldest_ms, Some(100));
        h.record_scan(120, &board(&[(3, Cell::Black), (4, Cell::White)]));
        h.record_scan(140, &board(&[(4, Cell::White)]));
        assert_eq!(h.stats().points, 2);
        let info = h.open(5, 100, ButtonCounters::ZERO);
        assert_eq!(info.status, InfoStatus::Ok);
        assert_eq!((info.until_ms, info.entries), (140, 2));
        assert_eq!(info.base, board(&[(3, Cell::Black)]));
        let chunks: heapless::Chunks = h.window(100, 0).collect();
        assert_eq!(chunks.len(), 1);
        let got: [(u32, HistoryEvent); 2] = {
            let chunk = chunks.get(0);
            let mut it = chunk.timed().map(|e| (e.board_ms, e.event));
            [it.next().unwrap(), it.next().unwrap()]
        };
        assert_eq!(
            got,
            [
                (
                    120,
                    HistoryEvent::Point {
                        index: 4,
                        from: Cell::Empty,
                        to: Cell::White
                    }
                ),
                (
                    140,
                    HistoryEvent::Point {
                        index: 3,
                        from: Cell::Black,
                        to: Cell::Empty
                    }
                )
            ]
        );
    }

    #[test]
    fn a_ring_of_one_block_drops_everything_at_once() {
        let mut h = History::<1>::new(NINE);
        h.restart(1);
        h.record_scan(0, &board(&[]));
        for k in 0..65u32 {
            h.record_press(10 + k, Button::Clock, Side::White);
        }
        // Every entry came after the last scan: nothing is held before it.
        assert_eq!(h.open(1, 0, ButtonCounters::ZERO).status, InfoStatus::Lost);
        h.record_scan(80, &board(&[]));
        let s = h.stats();
        assert_eq!((s.stored, s.overwritten, s.oldest_ms), (1, 64, Some(73)));
        assert_eq!(h.open(1, 73, ButtonCounters::ZERO).entries, 1);
        assert_eq!(h.open(1, 72, ButtonCounters::ZERO).status, InfoStatus::Lost);
    }

    /// A fixed collector for the tests (no allocator in this crate).
    mod heapless {
        use smartgoban_protocol::HistoryChunk;
        pub struct Chunks([Option<HistoryChunk>; 8], usize);
        impl Chunks {
            pub fn len(&self) -> usize {
                self.1
            }
            pub fn get(&self, i: usize) -> HistoryChunk {
                self.0[i].unwrap()
            }
        }
        impl FromIterator<HistoryChunk> for Chunks {
            fn from_iter<I: IntoIterator<Item = HistoryChunk>>(iter: I) -> Self {
                let mut c = Chunks([None; 8], 0);
                for x in iter {
                    c.0[c.1] = Some(x);
                    c.1 += 1;
                }
                c
            }
        }
    }
}
