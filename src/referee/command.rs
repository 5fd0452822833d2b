//! Referee actions (issue: "Referee actions"): what a person with authority does to the game.
//! A plain Rust API on the session now; the HTTP API exposes the same later.

use crate::rules::{Color, Point};

/// How the referee settles an open violation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Ruling {
    /// The board is put back as the record has it (the default for board violations).
    PutBack,
    /// The act stands as played: an illegal move stays in the record with a comment, and
    /// later legality uses the accepted position.
    AcceptAsPlayed,
    /// A `notice` (issue 35: the board's evidence did not prove it) is upheld by the referee,
    /// who saw it: the rules' sanction applies now — the warning, the loss — and the notice
    /// closes as `upheld`. Only for notices.
    Uphold,
}

/// A referee's decision on the result (R17.5, R17.6, R20.3, R27).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Adjudication {
    /// `color` wins (SGF `RE`, e.g. `B+F`, given or derived).
    Win(Color),
    /// A draw (`RE[0]`).
    Draw,
    /// Both sides lose (R17.5, R17.6).
    BothLose,
    /// The game is to be replayed; no result (`RE[Void]`).
    Replay,
    /// No result (`RE[Void]`).
    NoResult,
}

/// Why a referee action was refused. Nothing changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    /// No such violation, or it is already closed.
    #[error("no open violation {0}")]
    NoViolation(u32),
    /// The act cannot be accepted as played (the record cannot hold it); put it back instead.
    #[error("violation {0} cannot be accepted as played: {1}")]
    CannotAccept(u32, String),
    /// R17.1: colours may be corrected up to and including move 10 only.
    #[error("colours can be corrected only up to move 10 (R17.1); the game is at move {0}")]
    TooLateToSwap(u32),
    /// The move to correct does not exist.
    #[error("there is no move {0} to correct")]
    NoSuchMove(u32),
    /// The correction would make a later move illegal.
    #[error("the correction makes move {number} illegal: {why}")]
    CorrectionBreaks {
        /// The later move.
        number: u32,
        /// Why.
        why: String,
    },
    /// No such explanation, or order, to choose: the index is past the last one.
    #[error("no such explanation to choose: {0} (GET state lists them, from 0)")]
    NoCandidate(usize),
    /// No board is held for the referee: there are no explanations to choose from.
    #[error("no board is held for the referee, so there is nothing to choose (for the order of provisional moves, give `first`: GET state's provisional[].numbers[0])")]
    NothingHeld,
    /// No provisional moves start at this move number.
    #[error("no provisional moves start at move {0} (GET state's provisional[].numbers[0] says where each does)")]
    NoProvisionalAt(u32),
    /// Only a notice can be upheld.
    #[error("violation {0} is no notice: only a notice can be upheld")]
    NotANotice(u32),
    /// The action needs another phase.
    #[error("not possible in phase {0}")]
    WrongPhase(&'static str),
    /// The action needs a game clock and the game has none.
    #[error("the game has no clock (no time control)")]
    NoClock,
    /// A sealed move's point is off the board.
    #[error("{0} is not a point of this board")]
    BadPoint(String),
}

/// A sealed move at adjournment (C5): who, where (`None`: a sealed pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SealedMove {
    /// The sealing side.
    pub color: Color,
    /// The sealed point.
    pub point: Option<Point>,
}
