//! Sensing: from noisy sensor scans to settled boards (DESIGN.md "Core and shell": `sensing`).
//!
//! The board's microcontroller reports every point as one [`Cell`] (empty, black, white or
//! uncertain) about 50 times a second (hardware/PROTOCOL.md, "Scan"). Hands over the board,
//! a stone still bouncing after it was put down and single-scan misreads make individual scans
//! unreliable; the [`Stabiliser`] turns them into [`StoneGrid`]s that the referee can trust: a
//! point is settled once it has read the same value for `settle_ms`, and the board is settled
//! when every point is.
//!
//! Everything here is pure: time comes in as milliseconds on the board's clock.

pub mod grid;
pub mod stabiliser;
mod wire_serde;

pub use grid::StoneGrid;
pub use smartgoban_protocol::Cell;
pub use stabiliser::{
    PointTimes, Settled, Stabiliser, StabiliserConfig, StabiliserStats, SEEN_RUN_MS, TELL_APART_MS,
};
pub use wire_serde::{button_serde, cell_serde, cells_serde, counters_serde, side_serde};
