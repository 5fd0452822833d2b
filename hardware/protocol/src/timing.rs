//! Protocol timing (hardware/PROTOCOL.md §8), in milliseconds or hertz. The crate never reads a
//! clock: the host's link loop and the firmware apply these.

/// The host re-sends `Hello` this often until a `HelloAck` comes: 500 ms (§4, §8).
pub const HELLO_INTERVAL_MS: u32 = 500;

/// The host sends a `Ping` after this long without sending anything else: 500 ms (§8).
pub const PING_INTERVAL_MS: u32 = 500;

/// The host declares the link lost after this long without receiving any frame, and starts
/// again with `Hello`: 1000 ms (§8).
pub const LINK_TIMEOUT_MS: u32 = 1000;

/// The board's default scan rate: 50 scans per second, one every 20 ms (§8).
pub const DEFAULT_SCAN_RATE_HZ: u8 = 50;

/// The host sends an `LedFrame` again when no matching `LedAck` came within this long: 200 ms
/// (version 2, §5.6, §8).
pub const LED_RESEND_MS: u32 = 200;

/// The host sends a `HistoryOpen` again, and a `HistoryPull` again, when no answer (a
/// `HistoryInfo`, a chunk that brought entries) came within this long: 200 ms (version 3,
/// §8, §14.5).
pub const HISTORY_RESEND_MS: u32 = 200;

/// The most `HistoryOpen`s the host sends after one handshake before it gives up: 10 (§14.5).
pub const HISTORY_MAX_OPENS: u32 = 10;

/// The host gives up on a history after this many `HistoryPull`s in a row without progress:
/// 10 (§14.5).
pub const HISTORY_MAX_STALLED_PULLS: u32 = 10;

/// The longest the host holds back the live scans during the history exchange, host ms from
/// the `HelloAck`: 60 s; longer means giving up (§8, §14.5).
pub const HISTORY_HOLD_MS: u32 = 60_000;
