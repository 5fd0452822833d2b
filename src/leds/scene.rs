//! [`Scene`]: what the LEDs must show, as plain data: [`Mark`]s with a [`Role`] on points.

use serde::Serialize;

use crate::rules::{Color, Point};

/// What a point's LED shows (DESIGN.md "HTTP API", `GET leds`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The last move (a soft light in the mover's hue).
    LastMove,
    /// A stone to lift: captured stones still on the board (R18.2), a stone that does not
    /// belong (R17.2, R17.3), a stray stone of a disturbed board (R17.6).
    Remove,
    /// A stone to put (back), in the hue of its colour: stones wrongly lifted (R18.1), a
    /// takeback to undo (R17.3), a disturbed or desynchronised board (R17.6).
    Restore,
    /// Where a moved stone belongs (R17.5).
    MovedFrom,
    /// Where a moved stone lies now (R17.5).
    MovedTo,
    /// The point the side to move may not play because of a single ko (R20.1).
    Ko,
    /// A stone on a point it may not be played on: forbidden point (G5, R19), ko retaken at
    /// once (R18.3), a whole-board repetition (R20.2).
    Illegal,
    /// A stone counted as dead at the count (G8, R21).
    Dead,
    /// A stone of a board held for the referee: the moves it belongs to could have been
    /// played in several orders, and the referee chooses (`GET state`'s `ambiguous`).
    Ambiguous,
    /// Black's territory at the count (G9).
    TerritoryBlack,
    /// White's territory at the count (G9).
    TerritoryWhite,
    /// A dame point at the count: shared half each (R21.2).
    Shared,
    /// A star point with nothing else to show (dim; breathing while the link is lost).
    Star,
}

impl Role {
    /// The DESIGN.md name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::LastMove => "last_move",
            Role::Remove => "remove",
            Role::Restore => "restore",
            Role::MovedFrom => "moved_from",
            Role::MovedTo => "moved_to",
            Role::Ko => "ko",
            Role::Illegal => "illegal",
            Role::Dead => "dead",
            Role::Ambiguous => "ambiguous",
            Role::TerritoryBlack => "territory_black",
            Role::TerritoryWhite => "territory_white",
            Role::Shared => "shared",
            Role::Star => "star",
        }
    }
}

/// One point to light.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    /// The point.
    pub point: Point,
    /// What it shows.
    pub role: Role,
    /// For `last_move`, `restore` and `moved_from`: the colour of the stone concerned (its
    /// hue lights the point).
    pub color: Option<Color>,
}

/// What the LEDs must show. The first mark on a point wins: marks come in priority order
/// (what must be fixed first, then guidance, then information).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scene {
    /// Points per side.
    pub size: u8,
    /// The serial link to the board is up (star points breathe while it is not).
    pub link_up: bool,
    /// The store takes the record (issue 7, "Disk faults"): while it does not (disk full,
    /// read-only), the star points blink red instead of their usual light.
    pub storage_ok: bool,
    /// The marks, first wins.
    pub marks: Vec<Mark>,
    /// The next stone to fix while rebuilding a disturbed or desynchronised board: lit
    /// brighter than the others (must also be marked `remove` or `restore`).
    pub next: Option<Point>,
    /// Points with a stone on them: their star point stays dark (the light would be hidden
    /// and draw current for nothing).
    pub covered: Vec<Point>,
}

impl Scene {
    /// A scene with nothing to show.
    pub fn idle(size: u8, link_up: bool) -> Scene {
        Scene {
            size,
            link_up,
            storage_ok: true,
            marks: Vec::new(),
            next: None,
            covered: Vec::new(),
        }
    }

    /// Adds a mark.
    pub fn mark(&mut self, point: Point, role: Role, color: Option<Color>) {
        self.marks.push(Mark { point, role, color });
    }
}
