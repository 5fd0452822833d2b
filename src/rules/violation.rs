//! Violation codes and the RULES.md clauses behind them (DESIGN.md "Violation codes").

use serde::{Deserialize, Serialize};
use std::fmt;

/// Every violation the product knows, by its DESIGN.md code ([`ViolationCode::as_str`]) and
/// the RULES.md clause(s) it comes from ([`ViolationCode::clause`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationCode {
    /// R17.2: a side plays twice in a row while the opponent did not pass.
    TwoMovesInARow,
    /// R17.3: a stone lifted after its move was committed and played elsewhere, or a move
    /// undone.
    Takeback,
    /// R17.4: the clock pressed before, or while, placing the stone.
    ClockBeforeStone,
    /// R17.5: a stone found moved from its point.
    MovedStone,
    /// R17.6: many stones off their points at once.
    BoardDisturbed,
    /// R18.1 / O9: opponent stones that still have liberties removed.
    WrongCapture,
    /// R18.2: captured stones not (all) removed.
    MissedCapture,
    /// R18.3 / R20.1: a single ko retaken at once; invalid, counts as a pass.
    KoRecapture,
    /// G5 / R19: a stone on a forbidden point (suicide); invalid, counts as a pass.
    ForbiddenPoint,
    /// R20.2 / R20.3: another whole-board repetition (multiple ko, eternal life, …); the
    /// referee rules.
    SuperkoCycle,
    /// R22.6: the clock pressed with captured stones still on the board.
    ClockBeforeCaptures,
    /// R22.5 / O14.5: time used up.
    TimeExpired,
    /// R24.2 / O16.2: a second warning in one game loses it.
    TwoWarningsLoss,
    /// R17.1: colours taken the wrong way round.
    WrongColors,
    /// A stone "played" on an occupied point: physically impossible (a misread or a stacked
    /// stone can look like it); it counts as a pass, as a sealed move on an occupied point does
    /// (C5 / O13).
    OccupiedPoint,
    /// A stone put on the board while the referee had the clock stopped: not a move until the
    /// referee accepts it (R22.8: the clock is the referee's while stopped).
    PlayedWhilePaused,
    /// The board as found when the game starts or after an outage without the board's
    /// history (a service restart, a board that restarted): a difference to the record that no
    /// legal moves explain — a stone with no liberties, stones of both colours where the record
    /// has none, stones missing. Nobody is charged: the LEDs show what to put back and the
    /// referee rules, as for a disturbed board (R17.6: the position rebuilt from the record).
    UnexplainedBoard,
}

impl ViolationCode {
    /// Every code, in declaration order.
    pub const ALL: [ViolationCode; 17] = [
        ViolationCode::TwoMovesInARow,
        ViolationCode::Takeback,
        ViolationCode::ClockBeforeStone,
        ViolationCode::MovedStone,
        ViolationCode::BoardDisturbed,
        ViolationCode::WrongCapture,
        ViolationCode::MissedCapture,
        ViolationCode::KoRecapture,
        ViolationCode::ForbiddenPoint,
        ViolationCode::SuperkoCycle,
        ViolationCode::ClockBeforeCaptures,
        ViolationCode::TimeExpired,
        ViolationCode::TwoWarningsLoss,
        ViolationCode::WrongColors,
        ViolationCode::OccupiedPoint,
        ViolationCode::PlayedWhilePaused,
        ViolationCode::UnexplainedBoard,
    ];

    /// The DESIGN.md code, e.g. `forbidden_point`.
    pub const fn as_str(self) -> &'static str {
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
            ViolationCode::PlayedWhilePaused => "played_while_paused",
            ViolationCode::UnexplainedBoard => "unexplained_board",
        }
    }

    /// The RULES.md clause(s) behind the code (2002 edition first).
    pub const fn clause(self) -> &'static str {
        match self {
            ViolationCode::TwoMovesInARow => "R17.2",
            ViolationCode::Takeback => "R17.3",
            ViolationCode::ClockBeforeStone => "R17.4",
            ViolationCode::MovedStone => "R17.5",
            ViolationCode::BoardDisturbed => "R17.6",
            ViolationCode::WrongCapture => "R18.1",
            ViolationCode::MissedCapture => "R18.2",
            ViolationCode::KoRecapture => "R18.3/R20.1",
            ViolationCode::ForbiddenPoint => "G5/R19",
            ViolationCode::SuperkoCycle => "R20.2/R20.3",
            ViolationCode::ClockBeforeCaptures => "R22.6",
            ViolationCode::TimeExpired => "R22.5",
            ViolationCode::TwoWarningsLoss => "R24.2",
            ViolationCode::WrongColors => "R17.1",
            ViolationCode::OccupiedPoint => "C5/O13",
            ViolationCode::PlayedWhilePaused => "R22.8",
            ViolationCode::UnexplainedBoard => "R17.6",
        }
    }
}

impl fmt::Display for ViolationCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
