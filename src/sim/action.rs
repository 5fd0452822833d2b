//! Physical actions on the virtual board, on a timeline.

use crate::rules::{Color, Point};
use smartgoban_protocol::Cell;

/// One thing that happens to the physical board (DESIGN.md "Board scripts").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// A stone is put on a point (replacing whatever lay there).
    Place {
        /// Stone colour.
        color: Color,
        /// Where.
        point: Point,
    },
    /// Stones are lifted off the board.
    Remove {
        /// Points cleared.
        points: Vec<Point>,
    },
    /// A stone is pushed from one point to another.
    Slide {
        /// From.
        from: Point,
        /// To.
        to: Point,
    },
    /// A hand hovers over the board: points within `radius` of `center` read uncertain (now
    /// and then a wrong colour) for `duration_ms`.
    Hand {
        /// Centre point.
        center: Point,
        /// Radius in points (0 = the point alone).
        radius: u8,
        /// How long, ms.
        duration_ms: u64,
    },
    /// A freshly placed stone wobbles: its point reads unreliably for `scans` scans.
    Bounce {
        /// The stone's point.
        point: Point,
        /// Scans affected.
        scans: u32,
    },
    /// One point misreads as `reading` for `scans` scans.
    Glitch {
        /// Point.
        point: Point,
        /// What the sensor reports.
        reading: Cell,
        /// Scans affected.
        scans: u32,
    },
    /// The pass button of `Color` is pressed (G2).
    Pass(Color),
    /// `Color` resigns with the resign button (G7).
    Resign(Color),
    /// `Color` presses the clock.
    Clock(Color),
    /// The USB cable is pulled for `duration_ms`; the board comes back on a new device path.
    Unplug {
        /// Outage, ms.
        duration_ms: u64,
    },
    /// `count` stones are knocked off their points (to a random free neighbour, or off the
    /// board), chosen with the seeded generator.
    Scatter {
        /// Stones displaced.
        count: u32,
    },
}

/// An action at a time, ms from the start of the timeline (the first handshake).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedAction {
    /// Milliseconds from the start.
    pub at_ms: u64,
    /// What happens.
    pub action: Action,
}
