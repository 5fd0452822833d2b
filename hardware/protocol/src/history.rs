//! The board's history (hardware/PROTOCOL.md §5.8–§5.11, §14, protocol version 3): the host asks
//! for everything the board saw since the last board time it processed, and the board sends it
//! from its ring buffer.
//!
//! - [`HistoryOpen`] (`0x11`, host → board): the boot the host knows and the board time of the
//!   last scan it processed (§5.8).
//! - [`HistoryInfo`] (`0x07`, board → host): the answer ([`InfoStatus`]), the board's boot id,
//!   the span it fixed and the readings at its start (§5.9).
//! - [`HistoryPull`] (`0x12`, host → board): a window of the span from one entry on (§5.10).
//! - [`HistoryChunk`] (`0x08`, board → host): up to [`MAX_CHUNK_ENTRIES`] consecutive entries
//!   ([`HistoryEntry`]: a [`HistoryEvent`] and the ms since the entry before), built by the
//!   board with [`HistoryChunk::push`] and read by the host with [`HistoryChunk::timed`], which
//!   gives every entry's absolute board time (§5.11).

use core::fmt;
use core::iter::FusedIterator;

use crate::board_size::BoardSize;
use crate::buttons::{Button, ButtonCounters, Side};
use crate::cell::{Cell, PackedCells};
use crate::error::DecodeError;
use crate::frame::Writer;
use crate::message::MessageKind;

/// The most entries one [`HistoryChunk`] carries: 58, so that its payload (14 + 4 × 58 = 246
/// bytes) and its frame (254 bytes on the wire) fit [`MAX_FRAME_LEN`](crate::MAX_FRAME_LEN)
/// (§5.11).
pub const MAX_CHUNK_ENTRIES: usize = 58;

/// Bytes of one history entry on the wire (and in the board's RAM): `code` u16 + `dt_ms` u16
/// (§5.11).
pub const ENTRY_LEN: usize = 4;

/// The most chunks the board sends for one [`HistoryPull`] (a window): 8, i.e. at most
/// 8 × 58 = 464 entries (§14.4).
pub const WINDOW_CHUNKS: usize = 8;

/// The most entries in one window: [`WINDOW_CHUNKS`] × [`MAX_CHUNK_ENTRIES`] = 464 (§14.4).
pub const WINDOW_ENTRIES: usize = WINDOW_CHUNKS * MAX_CHUNK_ENTRIES;

/// The highest point index an entry may carry: 360, the last point of a 19×19 board (§5.11).
pub const MAX_POINT_INDEX: u16 = 360;

/// `what` of the first press code (pass black); the six presses are 504..=509 (§5.11).
const WHAT_FIRST_PRESS: u16 = 504;
/// `what` of a time filler (§5.11).
const WHAT_FILLER: u16 = 511;

/// `0x11` host → board: asks for the board's history since the last scan the host processed
/// (hardware/PROTOCOL.md §5.8, §14.3, §14.5). The board answers with a [`HistoryInfo`].
///
/// Payload, 8 bytes: offset 0 `boot_id: u32` LE, offset 4 `since_ms: u32` LE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HistoryOpen {
    /// The board's boot the host knows (from an earlier [`HistoryInfo`], §14.1); 0: none known,
    /// the host only wants the board's boot id.
    pub boot_id: u32,
    /// Board time of the last scan of that boot the host processed, ms (0 when `boot_id` is 0).
    pub since_ms: u32,
}

impl HistoryOpen {
    /// Payload length in bytes.
    pub const PAYLOAD_LEN: usize = 8;

    pub(crate) fn parse(p: &[u8; 8]) -> HistoryOpen {
        HistoryOpen {
            boot_id: u32::from_le_bytes([p[0], p[1], p[2], p[3]]),
            since_ms: u32::from_le_bytes([p[4], p[5], p[6], p[7]]),
        }
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.boot_id.to_le_bytes());
        w.put(&self.since_ms.to_le_bytes());
    }
}

/// `0x12` host → board: asks for a window of the open span (hardware/PROTOCOL.md §5.10,
/// §14.4): up to [`WINDOW_CHUNKS`] [`HistoryChunk`]s from entry `from_entry` on.
///
/// Payload, 8 bytes: offset 0 `since_ms: u32` LE, offset 4 `from_entry: u32` LE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HistoryPull {
    /// The span: the `since_ms` of the [`HistoryOpen`] and of its [`HistoryInfo`].
    pub since_ms: u32,
    /// Index in the span (0-based) of the first entry wanted.
    pub from_entry: u32,
}

impl HistoryPull {
    /// Payload length in bytes.
    pub const PAYLOAD_LEN: usize = 8;

    pub(crate) fn parse(p: &[u8; 8]) -> HistoryPull {
        HistoryPull {
            since_ms: u32::from_le_bytes([p[0], p[1], p[2], p[3]]),
            from_entry: u32::from_le_bytes([p[4], p[5], p[6], p[7]]),
        }
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.since_ms.to_le_bytes());
        w.put(&self.from_entry.to_le_bytes());
    }
}

/// The `status` of a [`HistoryInfo`] (hardware/PROTOCOL.md §5.9, §14.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum InfoStatus {
    /// `0`: the span is open; pull its entries with [`HistoryPull`].
    Ok = 0,
    /// `1`: the Open's `boot_id` was 0: the host only learns the board's boot id.
    NotAsked = 1,
    /// `2`: the board restarted since (its boot is not the Open's): what it saw before is gone.
    OtherBoot = 2,
    /// `3`: `since_ms` is older than what the ring still holds (`oldest_ms`), or is not a time
    /// of this boot (e.g. later than the board's last scan).
    Lost = 3,
}

impl InfoStatus {
    /// The status for a wire byte, or `None` for a value §5.9 does not define.
    pub const fn from_u8(byte: u8) -> Option<InfoStatus> {
        match byte {
            0 => Some(InfoStatus::Ok),
            1 => Some(InfoStatus::NotAsked),
            2 => Some(InfoStatus::OtherBoot),
            3 => Some(InfoStatus::Lost),
            _ => None,
        }
    }

    /// The wire byte.
    pub const fn as_u8(self) -> u8 {
        self as u8
    }
}

/// `0x07` board → host: the answer to a [`HistoryOpen`] (hardware/PROTOCOL.md §5.9, §14.3).
///
/// Payload, `28 + ceil(size²/4)` bytes (49, 71 or 119):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 1 | `status` ([`InfoStatus`]) |
/// | 1 | 4 | `boot_id` (u32 LE) |
/// | 5 | 4 | `since_ms` (u32 LE) |
/// | 9 | 4 | `until_ms` (u32 LE) |
/// | 13 | 4 | `entries` (u32 LE) |
/// | 17 | 4 | `oldest_ms` (u32 LE) |
/// | 21 | 1 | `board_size` (9, 13, 19) |
/// | 22 | 6 | `buttons` ([`ButtonCounters`] wire order) |
/// | 28 | 21/43/91 | `base` ([`PackedCells`]) |
///
/// A status other than [`InfoStatus::Ok`] has `entries` 0 and an all-zero `base`; the decoder
/// rejects one that does not ([`DecodeError::BadStatus`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HistoryInfo {
    /// What the board makes of the request.
    pub status: InfoStatus,
    /// The board's current boot id (§14.1), never 0.
    pub boot_id: u32,
    /// The Open's `since_ms`, echoed, ms.
    pub since_ms: u32,
    /// Board time of the last scan the board took before it processed the Open, ms: the span
    /// ends there, inclusive (0 if it has taken no scan since power-up).
    pub until_ms: u32,
    /// Entries in the span, board times in (`since_ms`, `until_ms`]; 0 unless `Ok`.
    pub entries: u32,
    /// The board holds every change after this board time, ms (§14.2).
    pub oldest_ms: u32,
    /// The session's button counters as of `until_ms` (those the scan at `until_ms` carried),
    /// or zero if the board took no scan since the `HelloAck`: the host's baseline for the live
    /// scans after the span (§14.5).
    pub buttons: ButtonCounters,
    /// Every point's reading at `since_ms` (all [`Cell::Empty`] unless `Ok`); its
    /// [`PackedCells::size`] is the `board_size` byte.
    pub base: PackedCells,
}

impl HistoryInfo {
    /// Bytes before the packed `base`: 1 + 4 × 5 + 1 + 6 = 28.
    pub const HEADER_LEN: usize = 28;

    /// Payload length in bytes for a board of `size`: 49, 71 or 119.
    pub const fn payload_len(size: BoardSize) -> usize {
        HistoryInfo::HEADER_LEN + size.cell_bytes()
    }

    /// The board size, from [`HistoryInfo::base`].
    pub const fn board_size(&self) -> BoardSize {
        self.base.size()
    }

    /// An answer other than `Ok` (§14.3): no entries, an empty `base` of `size`.
    #[allow(clippy::too_many_arguments)]
    pub const fn refused(
        status: InfoStatus,
        boot_id: u32,
        since_ms: u32,
        until_ms: u32,
        oldest_ms: u32,
        buttons: ButtonCounters,
        size: BoardSize,
    ) -> HistoryInfo {
        HistoryInfo {
            status,
            boot_id,
            since_ms,
            until_ms,
            entries: 0,
            oldest_ms,
            buttons,
            base: PackedCells::new(size),
        }
    }

    pub(crate) fn parse(payload: &[u8]) -> Result<HistoryInfo, DecodeError> {
        let kind = MessageKind::HistoryInfo.as_u8();
        let bad_length = |expected| DecodeError::BadLength {
            kind,
            expected,
            actual: payload.len(),
        };
        let (h, cells) = payload
            .split_first_chunk::<28>()
            .ok_or(bad_length(HistoryInfo::HEADER_LEN))?;
        let status =
            InfoStatus::from_u8(h[0]).ok_or(DecodeError::BadStatus { kind, status: h[0] })?;
        let size = BoardSize::new(h[21]).map_err(|e| DecodeError::BadBoardSize(e.0))?;
        if cells.len() != size.cell_bytes() {
            return Err(bad_length(HistoryInfo::payload_len(size)));
        }
        let base = PackedCells::from_wire(size, cells)?;
        let info = HistoryInfo {
            status,
            boot_id: u32::from_le_bytes([h[1], h[2], h[3], h[4]]),
            since_ms: u32::from_le_bytes([h[5], h[6], h[7], h[8]]),
            until_ms: u32::from_le_bytes([h[9], h[10], h[11], h[12]]),
            entries: u32::from_le_bytes([h[13], h[14], h[15], h[16]]),
            oldest_ms: u32::from_le_bytes([h[17], h[18], h[19], h[20]]),
            buttons: ButtonCounters::from_bytes([h[22], h[23], h[24], h[25], h[26], h[27]]),
            base,
        };
        if status != InfoStatus::Ok
            && (info.entries != 0 || info.base.as_bytes().iter().any(|&b| b != 0))
        {
            return Err(DecodeError::BadStatus { kind, status: h[0] });
        }
        Ok(info)
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&[self.status.as_u8()]);
        w.put(&self.boot_id.to_le_bytes());
        w.put(&self.since_ms.to_le_bytes());
        w.put(&self.until_ms.to_le_bytes());
        w.put(&self.entries.to_le_bytes());
        w.put(&self.oldest_ms.to_le_bytes());
        w.put(&[self.base.size().get()]);
        w.put(&self.buttons.to_bytes());
        w.put(self.base.as_bytes());
    }
}

/// The `status` of a [`HistoryChunk`] (hardware/PROTOCOL.md §5.11, §14.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ChunkStatus {
    /// `0`: the entries asked for (possibly none, at the span's end).
    Ok = 0,
    /// `1`: no span with that `since_ms` is open (another Open replaced it, the board
    /// restarted).
    NoSpan = 1,
    /// `2`: the entries asked for were overwritten meanwhile; `base_ms` is the board's
    /// `oldest_ms` now.
    Lost = 2,
}

impl ChunkStatus {
    /// The status for a wire byte, or `None` for a value §5.11 does not define.
    pub const fn from_u8(byte: u8) -> Option<ChunkStatus> {
        match byte {
            0 => Some(ChunkStatus::Ok),
            1 => Some(ChunkStatus::NoSpan),
            2 => Some(ChunkStatus::Lost),
            _ => None,
        }
    }

    /// The wire byte.
    pub const fn as_u8(self) -> u8 {
        self as u8
    }
}

/// What one history entry records (hardware/PROTOCOL.md §5.11, §14.2), the `what`, `from` and
/// `to` fields of its `code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HistoryEvent {
    /// A point's reading changed (`what` 0–360).
    Point {
        /// The point's dense index, SGF order (§6): 0..=360, below the board's points.
        index: u16,
        /// Its reading before.
        from: Cell,
        /// Its reading from this entry's time on; never equal to `from`.
        to: Cell,
    },
    /// A counted button press (`what` 504–509, in the `Scan`'s counter order, §7).
    Press {
        /// Which button.
        button: Button,
        /// Whose.
        side: Side,
    },
    /// A time filler (`what` 511): only its `dt_ms` counts; it bridges gaps longer than
    /// 65,535 ms.
    Filler,
}

impl HistoryEvent {
    /// The 16-bit `code` (§5.11): bits 0–8 `what`, 9–10 `from`, 11–12 `to`, 13–15 zero. A
    /// point with an index above [`MAX_POINT_INDEX`] or `from == to` gives a code that
    /// [`HistoryEvent::from_code`] rejects.
    pub const fn code(self) -> u16 {
        match self {
            HistoryEvent::Point { index, from, to } => {
                (index & 0x1FF) | ((from.bits() as u16) << 9) | ((to.bits() as u16) << 11)
            }
            HistoryEvent::Press { button, side } => {
                let button = match button {
                    Button::Pass => 0,
                    Button::Resign => 1,
                    Button::Clock => 2,
                };
                let side = match side {
                    Side::Black => 0,
                    Side::White => 1,
                };
                WHAT_FIRST_PRESS + 2 * button + side
            }
            HistoryEvent::Filler => WHAT_FILLER,
        }
    }

    /// The event of a 16-bit `code`, or `None` if it is invalid (§5.11): a reserved `what`
    /// (361–503, 510), a non-zero bit 13–15, `from`/`to` bits on a press or filler, or a point
    /// with `from == to`.
    pub const fn from_code(code: u16) -> Option<HistoryEvent> {
        let what = code & 0x1FF;
        let from = Cell::from_bits(((code >> 9) & 0b11) as u8);
        let to = Cell::from_bits(((code >> 11) & 0b11) as u8);
        if code >> 13 != 0 {
            return None;
        }
        if what <= MAX_POINT_INDEX {
            if from.bits() == to.bits() {
                return None;
            }
            return Some(HistoryEvent::Point {
                index: what,
                from,
                to,
            });
        }
        if code >> 9 != 0 {
            return None; // from/to on a press or filler
        }
        match what {
            504 => Some(HistoryEvent::Press {
                button: Button::Pass,
                side: Side::Black,
            }),
            505 => Some(HistoryEvent::Press {
                button: Button::Pass,
                side: Side::White,
            }),
            506 => Some(HistoryEvent::Press {
                button: Button::Resign,
                side: Side::Black,
            }),
            507 => Some(HistoryEvent::Press {
                button: Button::Resign,
                side: Side::White,
            }),
            508 => Some(HistoryEvent::Press {
                button: Button::Clock,
                side: Side::Black,
            }),
            509 => Some(HistoryEvent::Press {
                button: Button::Clock,
                side: Side::White,
            }),
            WHAT_FILLER => Some(HistoryEvent::Filler),
            _ => None,
        }
    }

    /// Whether [`HistoryEvent::from_code`] accepts this event's [`code`](HistoryEvent::code):
    /// a point's index is at most [`MAX_POINT_INDEX`] and its `from` differs from its `to`.
    pub const fn is_valid(self) -> bool {
        match self {
            HistoryEvent::Point { index, from, to } => {
                index <= MAX_POINT_INDEX && from.bits() != to.bits()
            }
            HistoryEvent::Press { .. } | HistoryEvent::Filler => true,
        }
    }
}

/// One history entry as on the wire (and in the board's RAM): an event and the ms since the
/// entry before (hardware/PROTOCOL.md §5.11). Four bytes: `code` u16 LE, `dt_ms` u16 LE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HistoryEntry {
    /// What happened.
    pub event: HistoryEvent,
    /// Milliseconds since the entry before (for the first entry of a chunk: since the chunk's
    /// `base_ms`).
    pub dt_ms: u16,
}

impl HistoryEntry {
    /// The four wire bytes: `code` then `dt_ms`, both little-endian.
    pub const fn to_bytes(self) -> [u8; ENTRY_LEN] {
        let code = self.event.code().to_le_bytes();
        let dt = self.dt_ms.to_le_bytes();
        [code[0], code[1], dt[0], dt[1]]
    }

    /// The entry of four wire bytes, or `None` if its code is invalid
    /// ([`HistoryEvent::from_code`]).
    pub const fn from_bytes(bytes: [u8; ENTRY_LEN]) -> Option<HistoryEntry> {
        match HistoryEvent::from_code(u16::from_le_bytes([bytes[0], bytes[1]])) {
            Some(event) => Some(HistoryEntry {
                event,
                dt_ms: u16::from_le_bytes([bytes[2], bytes[3]]),
            }),
            None => None,
        }
    }
}

/// An entry of a [`HistoryChunk`] with its absolute board time, as [`HistoryChunk::timed`]
/// yields them (hardware/PROTOCOL.md §5.11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimedEntry {
    /// The entry's index in the span (the chunk's `first_entry` + its place in the chunk).
    pub entry: u32,
    /// Its board time, ms: the chunk's `base_ms` plus the `dt_ms` of the chunk's entries up to
    /// and including this one (u32, wrapping).
    pub board_ms: u32,
    /// What happened.
    pub event: HistoryEvent,
}

/// Why [`HistoryChunk::push`] refused an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PushError {
    /// The chunk already holds [`MAX_CHUNK_ENTRIES`] entries.
    Full,
    /// The chunk's status is not [`ChunkStatus::Ok`]: it carries no entries (§5.11).
    NotOk,
    /// The event is not valid ([`HistoryEvent::is_valid`]).
    Invalid,
}

impl fmt::Display for PushError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PushError::Full => "the history chunk already holds 58 entries",
            PushError::NotOk => "a history chunk whose status is not Ok carries no entries",
            PushError::Invalid => "invalid history entry (point index above 360, or from = to)",
        })
    }
}

impl core::error::Error for PushError {}

/// `0x08` board → host: up to [`MAX_CHUNK_ENTRIES`] consecutive entries of the open span
/// (hardware/PROTOCOL.md §5.11, §14.4).
///
/// Payload, `14 + 4 × count` bytes (14..=246):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | `since_ms` (u32 LE) |
/// | 4 | 1 | `status` ([`ChunkStatus`]) |
/// | 5 | 4 | `first_entry` (u32 LE) |
/// | 9 | 4 | `base_ms` (u32 LE) |
/// | 13 | 1 | `count` (0..=58; 0 unless `Ok`) |
/// | 14 | 4 × count | entries ([`HistoryEntry`]) |
///
/// The board builds one with [`HistoryChunk::new`] and [`HistoryChunk::push`]; the host reads
/// it with [`HistoryChunk::timed`]. The entries are kept as their wire bytes (always valid), so
/// a chunk is 248 bytes and needs no allocator.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct HistoryChunk {
    /// The span's `since_ms` (the Pull's), ms.
    pub since_ms: u32,
    /// What the board makes of the Pull.
    pub status: ChunkStatus,
    /// Index in the span of the chunk's first entry (for `NoSpan` and `Lost`, the Pull's
    /// `from_entry`).
    pub first_entry: u32,
    /// `Ok`: the board time the first entry's `dt_ms` counts from, ms (`since_ms` for entry 0,
    /// else the time of entry `first_entry − 1`). `Lost`: the board's `oldest_ms` now. `NoSpan`:
    /// 0.
    pub base_ms: u32,
    count: u8,
    entries: [u8; MAX_CHUNK_ENTRIES * ENTRY_LEN],
}

impl HistoryChunk {
    /// Bytes before the entries: 4 + 1 + 4 + 4 + 1 = 14.
    pub const HEADER_LEN: usize = 14;

    /// An empty `Ok` chunk of the span `since_ms` starting at entry `first_entry`, whose first
    /// entry's `dt_ms` will count from `base_ms` (§5.11). Add entries with
    /// [`HistoryChunk::push`].
    pub const fn new(since_ms: u32, first_entry: u32, base_ms: u32) -> HistoryChunk {
        HistoryChunk {
            since_ms,
            status: ChunkStatus::Ok,
            first_entry,
            base_ms,
            count: 0,
            entries: [0; MAX_CHUNK_ENTRIES * ENTRY_LEN],
        }
    }

    /// A chunk that carries no entries: `NoSpan` (`base_ms` 0) or `Lost` (`base_ms` the board's
    /// `oldest_ms`), answering a Pull from `first_entry` (§14.4). With [`ChunkStatus::Ok`] it is
    /// the empty chunk at the span's end.
    pub const fn refused(
        since_ms: u32,
        status: ChunkStatus,
        first_entry: u32,
        base_ms: u32,
    ) -> HistoryChunk {
        let mut chunk = HistoryChunk::new(since_ms, first_entry, base_ms);
        chunk.status = status;
        chunk
    }

    /// Payload length in bytes: 14 + 4 × [`HistoryChunk::len`].
    pub const fn payload_len(&self) -> usize {
        HistoryChunk::HEADER_LEN + ENTRY_LEN * self.count as usize
    }

    /// Entries in the chunk, 0..=[`MAX_CHUNK_ENTRIES`].
    pub const fn len(&self) -> usize {
        self.count as usize
    }

    /// Whether the chunk has no entries.
    pub const fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Whether the chunk holds [`MAX_CHUNK_ENTRIES`] entries.
    pub const fn is_full(&self) -> bool {
        self.count as usize >= MAX_CHUNK_ENTRIES
    }

    /// Appends an entry (used by the board). Errors: [`PushError::Full`] after 58 entries,
    /// [`PushError::NotOk`] on a chunk whose status is not `Ok`, [`PushError::Invalid`] for an
    /// event that is not [valid](HistoryEvent::is_valid). The chunk is unchanged on error.
    pub fn push(&mut self, entry: HistoryEntry) -> Result<(), PushError> {
        if self.status != ChunkStatus::Ok {
            return Err(PushError::NotOk);
        }
        if !entry.event.is_valid() {
            return Err(PushError::Invalid);
        }
        let at = self.len() * ENTRY_LEN;
        let slot = self
            .entries
            .get_mut(at..at + ENTRY_LEN)
            .ok_or(PushError::Full)?;
        slot.copy_from_slice(&entry.to_bytes());
        self.count += 1;
        Ok(())
    }

    /// The entries in order, each with its `dt_ms` as carried.
    pub fn entries(&self) -> ChunkEntries<'_> {
        ChunkEntries {
            bytes: self.entries.get(..self.len() * ENTRY_LEN).unwrap_or(&[]),
        }
    }

    /// The entries in order with their index in the span and their absolute board time:
    /// `base_ms` plus the running sum of `dt_ms` (u32, wrapping, §5.11).
    pub fn timed(&self) -> TimedEntries<'_> {
        TimedEntries {
            entries: self.entries(),
            next_entry: self.first_entry,
            board_ms: self.base_ms,
        }
    }

    /// The board time of the chunk's last entry (`base_ms` if it has none), ms.
    pub fn last_ms(&self) -> u32 {
        self.timed().last().map_or(self.base_ms, |e| e.board_ms)
    }

    pub(crate) fn parse(payload: &[u8]) -> Result<HistoryChunk, DecodeError> {
        let kind = MessageKind::HistoryChunk.as_u8();
        let bad_length = |expected| DecodeError::BadLength {
            kind,
            expected,
            actual: payload.len(),
        };
        let (h, body) = payload
            .split_first_chunk::<14>()
            .ok_or(bad_length(HistoryChunk::HEADER_LEN))?;
        let status =
            ChunkStatus::from_u8(h[4]).ok_or(DecodeError::BadStatus { kind, status: h[4] })?;
        let count = usize::from(h[13]);
        if count > MAX_CHUNK_ENTRIES {
            return Err(bad_length(
                HistoryChunk::HEADER_LEN + ENTRY_LEN * MAX_CHUNK_ENTRIES,
            ));
        }
        if body.len() != ENTRY_LEN * count {
            return Err(bad_length(HistoryChunk::HEADER_LEN + ENTRY_LEN * count));
        }
        if status != ChunkStatus::Ok && count != 0 {
            return Err(DecodeError::BadStatus { kind, status: h[4] });
        }
        let mut chunk = HistoryChunk::refused(
            u32::from_le_bytes([h[0], h[1], h[2], h[3]]),
            status,
            u32::from_le_bytes([h[5], h[6], h[7], h[8]]),
            u32::from_le_bytes([h[9], h[10], h[11], h[12]]),
        );
        for (index, bytes) in body.chunks_exact(ENTRY_LEN).enumerate() {
            let bytes: [u8; ENTRY_LEN] = bytes.try_into().unwrap_or([0xFF; ENTRY_LEN]);
            let code = u16::from_le_bytes([bytes[0], bytes[1]]);
            let bad_entry = DecodeError::BadEntry {
                index: index as u8,
                code,
            };
            let entry = HistoryEntry::from_bytes(bytes).ok_or(bad_entry)?;
            chunk.push(entry).map_err(|_| bad_entry)?;
        }
        Ok(chunk)
    }

    pub(crate) fn write(&self, w: &mut Writer<'_>) {
        w.put(&self.since_ms.to_le_bytes());
        w.put(&[self.status.as_u8()]);
        w.put(&self.first_entry.to_le_bytes());
        w.put(&self.base_ms.to_le_bytes());
        w.put(&[self.count]);
        w.put(self.entries.get(..self.len() * ENTRY_LEN).unwrap_or(&[]));
    }
}

impl fmt::Debug for HistoryChunk {
    /// Shows the header and the entries in use (not the unused tail of the storage).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct List<'a>(&'a HistoryChunk);
        impl fmt::Debug for List<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_list().entries(self.0.entries()).finish()
            }
        }
        f.debug_struct("HistoryChunk")
            .field("since_ms", &self.since_ms)
            .field("status", &self.status)
            .field("first_entry", &self.first_entry)
            .field("base_ms", &self.base_ms)
            .field("entries", &List(self))
            .finish()
    }
}

/// Iterator over the entries of a [`HistoryChunk`]; see [`HistoryChunk::entries`].
#[derive(Debug, Clone)]
pub struct ChunkEntries<'a> {
    bytes: &'a [u8],
}

impl Iterator for ChunkEntries<'_> {
    type Item = HistoryEntry;

    fn next(&mut self) -> Option<HistoryEntry> {
        let (first, rest) = self.bytes.split_first_chunk::<ENTRY_LEN>()?;
        self.bytes = rest;
        // Always valid: a chunk only ever holds entries `push` checked.
        HistoryEntry::from_bytes(*first)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.bytes.len() / ENTRY_LEN;
        (left, Some(left))
    }
}

impl ExactSizeIterator for ChunkEntries<'_> {}
impl FusedIterator for ChunkEntries<'_> {}

/// Iterator over the entries of a [`HistoryChunk`] with their absolute board times; see
/// [`HistoryChunk::timed`].
#[derive(Debug, Clone)]
pub struct TimedEntries<'a> {
    entries: ChunkEntries<'a>,
    next_entry: u32,
    board_ms: u32,
}

impl Iterator for TimedEntries<'_> {
    type Item = TimedEntry;

    fn next(&mut self) -> Option<TimedEntry> {
        let e = self.entries.next()?;
        self.board_ms = self.board_ms.wrapping_add(u32::from(e.dt_ms));
        let entry = self.next_entry;
        self.next_entry = self.next_entry.wrapping_add(1);
        Some(TimedEntry {
            entry,
            board_ms: self.board_ms,
            event: e.event,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.entries.size_hint()
    }
}

impl ExactSizeIterator for TimedEntries<'_> {}
impl FusedIterator for TimedEntries<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_decodes_to_itself_or_is_rejected() {
        let mut points = 0;
        let mut others = 0;
        for code in 0..=u16::MAX {
            if let Some(event) = HistoryEvent::from_code(code) {
                assert_eq!(event.code(), code);
                assert!(event.is_valid());
                match event {
                    HistoryEvent::Point { .. } => points += 1,
                    _ => others += 1,
                }
            }
        }
        // 361 points × 12 ordered (from, to) pairs with from ≠ to; 6 presses and the filler.
        assert_eq!(points, 361 * 12);
        assert_eq!(others, 7);
    }

    #[test]
    fn press_codes_follow_the_counter_order() {
        let codes: [u16; 6] =
            ButtonCounters::ORDER.map(|(button, side)| HistoryEvent::Press { button, side }.code());
        assert_eq!(codes, [504, 505, 506, 507, 508, 509]);
        assert_eq!(HistoryEvent::Filler.code(), 511);
    }

    #[test]
    fn push_checks() {
        let mut chunk = HistoryChunk::new(0, 0, 0);
        let bad = HistoryEntry {
            event: HistoryEvent::Point {
                index: 361,
                from: Cell::Empty,
                to: Cell::Black,
            },
            dt_ms: 1,
        };
        assert_eq!(chunk.push(bad), Err(PushError::Invalid));
        let ok = HistoryEntry {
            event: HistoryEvent::Filler,
            dt_ms: u16::MAX,
        };
        for _ in 0..MAX_CHUNK_ENTRIES {
            chunk.push(ok).unwrap();
        }
        assert!(chunk.is_full());
        assert_eq!(chunk.push(ok), Err(PushError::Full));
        assert_eq!(chunk.payload_len(), 246);
        // Times wrap.
        let mut chunk = HistoryChunk::new(0, 5, u32::MAX - 10);
        chunk.push(ok).unwrap();
        let t: heapless_free::Vec = chunk.timed().map(|e| (e.entry, e.board_ms)).collect();
        assert_eq!(t.0[0], (5, 65_524));
        let mut refused = HistoryChunk::refused(0, ChunkStatus::Lost, 0, 0);
        assert_eq!(refused.push(ok), Err(PushError::NotOk));
    }

    /// A tiny fixed collector for the tests (the crate is `no_std` without `alloc`).
    mod heapless_free {
        pub struct Vec(pub [(u32, u32); 4], usize);
        impl FromIterator<(u32, u32)> for Vec {
            fn from_iter<I: IntoIterator<Item = (u32, u32)>>(iter: I) -> Self {
                let mut v = Vec([(0, 0); 4], 0);
                for x in iter {
                    v.0[v.1] = x;
                    v.1 += 1;
                }
                v
            }
        }
    }
}
