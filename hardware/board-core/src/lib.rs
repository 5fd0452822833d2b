//! The logic of the smartgoban board's firmware (the RP2040 under the board), as plain `no_std`
//! Rust without an allocator, so that the host tests it (DESIGN.md "rp-hal": "logic that does
//! not need the chip is plain Rust that the host tests").
//!
//! - [`history`]: the board's history (hardware/PROTOCOL.md §14, protocol version 3) — the ring
//!   buffer of every change of a point's reading and every button press, with board times, that
//!   answers the host's `HistoryOpen` with a `HistoryInfo` and its `HistoryPull`s with
//!   `HistoryChunk`s. The firmware and the virtual board (`src/sim`) run the same type,
//!   [`history::FirmwareHistory`].
//! - [`oversample`]: one reading per point and scan from several ADC conversions (a trimmed
//!   mean), and the running statistics of a point's readings (its noise).
//! - [`calibration`]: what each point's Hall sensor reads empty, with a black and with a white
//!   stone; the maths that turns the calibration patterns into these without the other stones'
//!   share.
//! - [`coupling`]: the share of a stone's field reaching every other point's sensor (a dipole
//!   fitted to single stones), which a board full of stones makes large.
//! - [`image`]: the calibration image the host writes into the board and its flash keeps
//!   (hardware/PROTOCOL.md §15).
//! - [`health`]: dead, swapped, weak and noisy sensors, told from their calibration and noise,
//!   with what to do about each.
//! - [`dead`]: a dead sensor's point read from its neighbours' readings.
//! - [`debounce`]: the players' six buttons, raw contact levels to presses counted as the
//!   protocol says (§7).
//! - [`classify`]: each scan's readings to cells (empty, black, white, uncertain) with
//!   hysteresis and the neighbours' field taken out.
//! - [`mux`]: the order of a scan's readings through the two levels of multiplexers.
//! - [`link`]: the board's side of the serial protocol (handshake, scans, pings, LED frames,
//!   the history exchange), which the virtual board runs too.
//! - [`led_chain`]: the LED frame along the chain, the link-lost pattern and the current cap.
//! - [`usb`]: the USB identity (vendor, product, the serial number from the flash's id).
//!
//! # RAM budget (RP2040, 264 KiB of SRAM)
//!
//! [`history::FirmwareHistory`] holds [`history::FIRMWARE_CAPACITY`] = 40,960 entries of 4 bytes
//! (as on the wire) in 640 blocks of 64, each block with a 4-byte anchor (the absolute board time
//! of its first entry): 640 × (4 + 64 × 4) = 166,400 bytes (162.5 KiB), plus about 120 bytes of
//! state. At the entry rates measured on the virtual board (hardware/PROTOCOL.md §14.6:
//! `cargo test --release --lib sim::board::tests::entry_rates -- --ignored --nocapture` in the
//! workspace root) that is 169 minutes of `clean` play (243 entries a minute, 2.0 a move), 69 of
//! `realistic` (594 a minute, 16.4 a move), 13 of `harsh` (3,063 a minute, 124 a move) and 28 of
//! `blitz` (1,448 a minute, 18.6 a move): about 2,500 `realistic` moves.
#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// No panics on any input: no unchecked indexing, unwrap or panic in library code.
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic
    )
)]

pub mod calibration;
pub mod classify;
pub mod coupling;
pub mod dead;
pub mod debounce;
pub mod health;
pub mod history;
pub mod image;
pub mod led_chain;
pub mod link;
pub mod mux;
pub mod oversample;
pub mod usb;

/// Points on the largest board (19 × 19): the fixed size of the per-point tables.
pub const MAX_POINTS: usize = 361;
