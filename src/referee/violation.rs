//! Penalties (RULES.md, DESIGN.md `violation.penalty`); the codes themselves are
//! [`crate::rules::ViolationCode`].

use serde::Serialize;

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
