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
