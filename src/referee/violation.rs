//! Violation codes, clauses and penalties (RULES.md, DESIGN.md "Violation codes").

use serde::Serialize;

/// Every violation the referee knows, by its DESIGN.md code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationCode {
    /// R17.2: a side plays twice in a row while the opponent did not pass.
    TwoMovesInARow,
    /// R17.3: a stone lifted after its move and played elsewhere, or a move undone.
    Takeback,
    /// R17.4: the clock pressed before, or while, placing the stone.
    ClockBeforeStone,
    /// R17.5: a stone found moved from its point.
    MovedStone,
    /// R17.6: many stones off their points at once.
    BoardDisturbed,
    /// R18.1: opponent stones with liberties removed.
    WrongCapture,
    /// R18.2: captured stones not (all) removed.
    MissedCapture,
    /// R18.3 / R20.1: a single ko retaken at once.
    KoRecapture,
    /// R19 / G5: a stone played on a forbidden point (suicide).
    ForbiddenPoint,
    /// R20.2–R20.3: another whole-board repetition (multiple ko, eternal life, …).
    SuperkoCycle,
    /// R22.6: the clock pressed with captured stones still on the board.
    ClockBeforeCaptures,
    /// R22.5 / O14.5: time used up.
    TimeExpired,
    /// R24.2: a second warning in one game.
    TwoWarningsLoss,
    /// R17.1: colours taken the wrong way round.
    WrongColors,
    /// A stone apparently put on an occupied point (physically impossible: a misread or a
    /// stacked stone); G2 has stones played on empty points.
    OccupiedPoint,
}

impl ViolationCode {
    /// The DESIGN.md code, e.g. `forbidden_point`.
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationCode::TwoMovesInARow => "two_moves_in_a_row",
            ViolationCode::Takeback => "takeback",
            ViolationCode::ClockBeforeStone => "clock_before_stone",
            ViolationCode::MovedStone => "moved_stone",
            ViolationCode::BoardDisturbed => "board_disturbed",
            ViolationCode::WrongCapture => "wrong_capture",
            ViolationCode::MissedCapture => "missed_capture",
            ViolationCode::KoRecapture => "ko_recapture",
            ViolationCode::ForbiddenPoint => "forbidden_point",
            ViolationCode::SuperkoCycle => "superko_cycle",
            ViolationCode::ClockBeforeCaptures => "clock_before_captures",
            ViolationCode::TimeExpired => "time_expired",
            ViolationCode::TwoWarningsLoss => "two_warnings_loss",
            ViolationCode::WrongColors => "wrong_colors",
            ViolationCode::OccupiedPoint => "occupied_point",
        }
    }

    /// The RULES.md clause (2002 edition) the code implements.
    pub fn clause(self) -> &'static str {
        match self {
            ViolationCode::TwoMovesInARow => "R17.2",
            ViolationCode::Takeback => "R17.3",
            ViolationCode::ClockBeforeStone => "R17.4",
            ViolationCode::MovedStone => "R17.5",
            ViolationCode::BoardDisturbed => "R17.6",
            ViolationCode::WrongCapture => "R18.1",
            ViolationCode::MissedCapture => "R18.2",
            ViolationCode::KoRecapture => "R18.3",
            ViolationCode::ForbiddenPoint => "R19",
            ViolationCode::SuperkoCycle => "R20.3",
            ViolationCode::ClockBeforeCaptures => "R22.6",
            ViolationCode::TimeExpired => "R22.5",
            ViolationCode::TwoWarningsLoss => "R24.2",
            ViolationCode::WrongColors => "R17.1",
            ViolationCode::OccupiedPoint => "G2",
        }
    }
}

/// What the rules do about a violation (DESIGN.md `violation.penalty`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Penalty {
    /// A warning (R24.1: one stone at the count).
    Warning,
    /// The move does not stand and counts as a pass (R18.3, R19).
    MoveInvalid,
    /// The game is lost.
    Loss,
    /// The act stands in the record until the referee rules on it.
    Referee,
}

impl Penalty {
    /// The DESIGN.md name.
    pub fn as_str(self) -> &'static str {
        match self {
            Penalty::Warning => "warning",
            Penalty::MoveInvalid => "move_invalid",
            Penalty::Loss => "loss",
            Penalty::Referee => "referee",
        }
    }
}
