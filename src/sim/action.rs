//! Physical actions on the virtual board, on a timeline.

use crate::rules::{Color, Point};
use crate::sensing::stabiliser::HAND_STAY_MS;
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
    /// The USB cable is pulled for `duration_ms`; the board comes back under the same link
    /// path, on whatever pseudo-terminal the kernel gives it (often the same node again).
    Unplug {
        /// Outage, ms.
        duration_ms: u64,
    },
    /// Something goes wrong on the wire or in the board's microcontroller
    /// (hardware/PROTOCOL.md §9); the stones and the players are not affected.
    Fault(LinkFault),
    /// `count` stones are knocked off their points (to a random free neighbour, or off the
    /// board), chosen with the seeded generator.
    Scatter {
        /// Stones displaced.
        count: u32,
    },
}

impl Action {
    /// How long the action goes on after it starts, as play waits for it, ms: a hand's stay,
    /// the scans of a bounce or a misread — at most [`HAND_STAY_MS`] (longer, it is an object
    /// resting on the board or a dead sensor, which play does not wait for); 0 for the rest
    /// (over at once, or an outage the link plays out itself).
    pub fn lasts_ms(&self) -> u64 {
        let ms = match self {
            Action::Hand { duration_ms, .. } => *duration_ms,
            Action::Bounce { scans, .. } | Action::Glitch { scans, .. } => {
                u64::from(*scans).saturating_mul(super::player::SCAN_MS)
            }
            _ => 0,
        };
        ms.min(HAND_STAY_MS)
    }
}

/// An action at a time, ms from the start of the timeline (the first handshake).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedAction {
    /// Milliseconds from the start.
    pub at_ms: u64,
    /// What happens.
    pub action: Action,
}

/// A fault of the serial link or of the board's microcontroller, played by the virtual board
/// (board-script actions `garbage`, `cut`, `badcrc`, `silence`, `replug`, `reset`). Durations
/// are board time, ms. A fault due while the board is unplugged or silent is skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkFault {
    /// Random bytes instead of the scans for `duration_ms` (line noise, a bad cable): as many
    /// bytes as the scans would have taken, drawn from the seeded generator. The board still
    /// reads and answers the host meanwhile.
    Garbage {
        /// How long, ms.
        duration_ms: u64,
    },
    /// The next frame is cut: its first half is sent, the rest is dropped (it merges with the
    /// frame after it into one bad frame, PROTOCOL.md §9).
    Cut,
    /// The next frame goes out with a corrupted CRC-32C (PROTOCOL.md §2.3).
    BadCrc,
    /// The board sends nothing and reads nothing for `duration_ms` (a hung firmware, a stalled
    /// USB link); the stones stay, the players keep playing, and what the host sent meanwhile
    /// is read afterwards. At `--speed max` the silence lasts `duration_ms` of real time: the
    /// host's link timeout is real time.
    Silence {
        /// How long, ms.
        duration_ms: u64,
    },
    /// The cable is pulled for `duration_ms` and plugged into another port: the
    /// pseudo-terminal is closed and the board comes back on a new `/dev/pts/N` node behind
    /// the same link path, as a `/dev/serial/by-id/…` or udev symlink moves to the new node.
    Replug {
        /// Outage, ms.
        duration_ms: u64,
    },
    /// The microcontroller restarts (its scan and button counters start again from 0).
    Reset(ResetKind),
}

/// How a restarted board behaves. PROTOCOL.md §4: after power-up a board has no session and
/// sends nothing until a `Hello`; the other kinds are firmwares that do not follow it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetKind {
    /// As the protocol says: no session and no scans until the host's next `Hello`; `Ping`s
    /// are still answered with `Pong`s (script: `reset`).
    Silent,
    /// An unasked `HelloAck`, then scans from counter 0 (script: `reset hello`).
    Hello,
    /// Scans from counter 0, button counters at 0, without a `HelloAck` (script:
    /// `reset stream`).
    Stream,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn play_waits_for_a_hand_but_not_for_an_object_resting_on_the_board() {
        let p = Point::new(3, 3);
        let hand = |duration_ms| Action::Hand {
            center: p,
            radius: 1,
            duration_ms,
        };
        assert_eq!(hand(2_871).lasts_ms(), 2_871);
        assert_eq!(hand(86_400_000).lasts_ms(), HAND_STAY_MS);
        let glitch = Action::Glitch {
            point: p,
            reading: Cell::Empty,
            scans: u32::MAX,
        };
        assert_eq!(glitch.lasts_ms(), HAND_STAY_MS);
        assert_eq!(Action::Bounce { point: p, scans: 4 }.lasts_ms(), 80);
        assert_eq!(Action::Clock(Color::Black).lasts_ms(), 0);
    }
}
