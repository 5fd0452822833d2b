//! [`Violation`]: a violation as the referee keeps it.

use super::inference::BoardDiff;
use super::profile::Penalty;
use crate::rules::{Color, Point, ViolationCode};

/// A violation as the referee keeps it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Violation {
    /// Unique within the game, from 1.
    pub id: u32,
    /// What rule.
    pub code: ViolationCode,
    /// The clause of the profile in force.
    #[serde(deserialize_with = "crate::referee::intern::deserialize")]
    pub clause: crate::referee::intern::StaticStr,
    /// Offender.
    pub color: Color,
    /// Points concerned.
    pub points: Vec<Point>,
    /// What the rules do about it.
    pub penalty: Penalty,
    /// A warning came with it.
    pub warning: bool,
    /// Move number (moves and passes in the record) when it was seen.
    pub move_number: u32,
    /// Explanation for people.
    pub detail: String,
    /// Still waiting for the board to be fixed or for the referee.
    pub open: bool,
    /// The board must be changed back: the violation closes once it is (R17.3, R17.5, R18.1,
    /// R18.3, R19, …).
    pub needs_board_fix: bool,
    /// What the board must change: stones to put back, stones to lift.
    pub fix: BoardDiff,
}
