//! The event vocabulary (DESIGN.md, "Events"): what the core tells the world.
//!
//! One JSON object per event, `{"seq": 1, "t_ms": 1234, "kind": "...", ...}`. The same objects go
//! to the event log (`--events` JSON Lines), the SSE feed (`data:`, with `id:` = `seq`), and
//! later the WebSocket and MQTT. Points are GTP coordinates (`D4`, `Q16`); moves also carry the
//! SGF form (`dp`).

use serde::Serialize;

use crate::clock::Reading;

use crate::rules::Color;

/// One event with its sequence number and time.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Event {
    /// Strictly increasing from 1 within a service run.
    pub seq: u64,
    /// Milliseconds since the service started (the session's clock).
    pub t_ms: u64,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// A stone that belongs on a point, in desync guidance.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema, serde::Deserialize)]
pub struct PointColor {
    /// GTP point.
    pub point: String,
    /// The stone's colour.
    pub color: Color,
}

/// Evidence attached to a violation: the boards around it, as rows (top row first, `.`/`X`/`O`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Evidence {
    /// The record's position before the offending act.
    pub before: Vec<String>,
    /// The settled physical board that showed the act (or the record after it for acts that
    /// do not come from the board, such as a pass button).
    pub after: Vec<String>,
    /// Number of moves (and passes) in the record when the act was seen.
    pub move_number: u32,
    /// Both clocks when the act was seen (absent without a clock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockView>,
}

/// Both sides' clocks (DESIGN.md `clock` event, `GET /api/v1/state`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema, serde::Deserialize)]
pub struct ClockView {
    /// The time control in its text form (`main=3600s cn=5x60s`).
    pub system: String,
    /// Whose time runs, if any.
    pub running: Option<Color>,
    /// Paused by the referee.
    pub paused: bool,
    /// Black's clock.
    pub black: Reading,
    /// White's clock.
    pub white: Reading,
}

/// The kinds of event, tagged by `kind` in JSON.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EventKind {
    /// The clocks changed in a way a display must show at once: a press, pause, resume, a
    /// period rolled over, a flag fell. Times are what each clock shows now.
    Clock {
        /// Game time of the change, ms (see `call`).
        game_ms: u64,
        /// Both clocks.
        #[serde(flatten)]
        clock: ClockView,
        /// The move whose press this is (its mover's reading at the press is in the record
        /// as `BL`/`WL`), if a press.
        #[serde(skip_serializing_if = "Option::is_none")]
        move_number: Option<u32>,
    },
    /// A timekeeper's call (C3.2), spoken at once: `text` is `30`, `40`, `50`, `55`, `58`,
    /// `60` (seconds used in the unit; `60` ends a unit) or `1` … `10` in the last unit
    /// (Chinese counting, byo-yomi), or the seconds left (absolute, Fischer, Canadian).
    Call {
        /// Whose time.
        color: Color,
        /// Game time of the call, ms: the board's time since it connected (plus the time it
        /// was away), exact to the ms whenever the event goes out.
        game_ms: u64,
        /// What is said.
        text: String,
        /// Chinese counting: reserve minutes left (after the one taken, on a unit end).
        #[serde(skip_serializing_if = "Option::is_none")]
        minutes_left: Option<u32>,
        /// Japanese byo-yomi: periods left; Canadian: stones left in the block.
        #[serde(skip_serializing_if = "Option::is_none")]
        periods_left: Option<u32>,
        /// The call ends a unit (period): the units left are after the one taken ("4 minutes
        /// left"), or none — time is up.
        unit_end: bool,
    },
    /// A new game was set up: what the board must show before the first move.
    Game {
        /// Points per side.
        size: u8,
        /// Black player (SGF `PB`).
        black: Option<String>,
        /// White player (SGF `PW`).
        white: Option<String>,
        /// Komi in points (SGF `KM`).
        komi: Option<f64>,
        /// Handicap stones (SGF `HA`).
        handicap: u8,
        /// Setup stones (SGF `AB`/`AW`) that must be on the board before play.
        setup: Vec<PointColor>,
        /// The side that moves first.
        first_to_move: Color,
    },
    /// A stone was played (G2) and recorded.
    Move {
        /// Mover.
        color: Color,
        /// GTP point.
        point: String,
        /// SGF point.
        sgf: String,
        /// Move number (moves and passes counted from 1).
        number: u32,
        /// Opponent stones captured by the move (G4), GTP.
        captured: Vec<String>,
    },
    /// A pass (G2), from the pass button or a command.
    Pass {
        /// Passer.
        color: Color,
        /// Move number.
        number: u32,
    },
    /// Captured stones still physically on the board (R18.2 requires lifting them).
    CapturesPending {
        /// GTP points still to lift.
        points: Vec<String>,
    },
    /// Captured stones were lifted off the board.
    CapturesRemoved {
        /// GTP points lifted.
        points: Vec<String>,
    },
    /// A rule was broken (RULES.md codes).
    Violation {
        /// Violation id, unique within the game.
        id: u32,
        /// DESIGN.md violation code, e.g. `forbidden_point`.
        #[serde(deserialize_with = "crate::referee::intern::deserialize")]
        code: crate::referee::intern::StaticStr,
        /// RULES.md clause, e.g. `R19`.
        #[serde(deserialize_with = "crate::referee::intern::deserialize")]
        clause: crate::referee::intern::StaticStr,
        /// Offender.
        color: Color,
        /// Points concerned (GTP).
        points: Vec<String>,
        /// `warning`, `move_invalid`, `loss` or `referee` (left to the referee's ruling).
        #[serde(deserialize_with = "crate::referee::intern::deserialize")]
        penalty: crate::referee::intern::StaticStr,
        /// Human-readable explanation.
        detail: String,
        /// Boards before/after and the move number.
        evidence: Evidence,
    },
    /// The last recorded move was taken back before it was committed: its stone was lifted
    /// or moved (the same move being adjusted), or the referee ruled it out.
    MoveUndone {
        /// Its number.
        number: u32,
        /// Mover.
        color: Color,
        /// GTP point, or null for a pass.
        point: Option<String>,
    },
    /// A recorded move was corrected by the referee: the main line now has this move here.
    MoveCorrected {
        /// Its number.
        number: u32,
        /// Mover.
        color: Color,
        /// GTP point, or null for a pass.
        point: Option<String>,
    },
    /// The settled board can be explained in several ways: nothing is recorded until the
    /// referee chooses (`candidates[i]` is one ordering of moves).
    Ambiguous {
        /// Each candidate: moves in order.
        candidates: Vec<Vec<CandidateMove>>,
    },
    /// Several orders of the same stones explain the board and lead to the same position: the
    /// moves `numbers` are recorded in the likeliest order (`orders[recorded]`) and play goes
    /// on; they stay provisional until the referee picks an order
    /// (`POST ambiguous/choose` with `first`), which rewrites them (`move_corrected`).
    Provisional {
        /// The move numbers in question (consecutive).
        numbers: Vec<u32>,
        /// Each order: the moves, first first; the likeliest first.
        orders: Vec<Vec<CandidateMove>>,
        /// The order in the record.
        recorded: usize,
    },
    /// Provisional moves are provisional no longer.
    ProvisionalResolved {
        /// The move numbers.
        numbers: Vec<u32>,
        /// How: `chosen` (by the referee), `told_apart` (a later board the recorded order
        /// left unexplained was explained by moves after another order: that order is now
        /// recorded, the `move_corrected` events before this one name what changed), `undone`
        /// (taken out of the record), `widened` (now part of a wider provisional order, in the
        /// `provisional` event that follows).
        how: String,
    },
    /// Free handicap placement is complete (Chinese rules: Black placed its stones, White
    /// moves next).
    HandicapPlaced {
        /// The black stones, GTP.
        points: Vec<String>,
    },
    /// The count proposed at the end (R21.1, G8–G9): the stones the referee takes for dead
    /// (Benson's unconditional life, then playouts), and the area count without them. Sent
    /// when both sides have passed and again whenever stones are lifted in scoring; the
    /// players lift the dead stones and confirm, or dispute and play on (R21.4).
    Count {
        /// Stones counted as dead, GTP.
        dead: Vec<String>,
        /// Black's area, points (stones + territory + half the dame; warnings applied).
        black_points: f64,
        /// White's area, points.
        white_points: f64,
        /// Black's margin in stones (negative: White ahead), after komi (C2).
        margin_stones: f64,
        /// The SGF `RE` this count gives.
        re: String,
        /// The players count on the board (G9, C2): the dead stones are agreed and this
        /// count is fixed until it is confirmed (R21.3) or disputed (R21.4); stones lifted,
        /// moved or put meanwhile are the count's, not moves.
        #[serde(default)]
        counting: bool,
    },
    /// A warning was given (R24.1: one stone at the count; R24.2: two lose).
    Warning {
        /// Warned side.
        color: Color,
        /// Warnings this side has now.
        count: u32,
        /// The referee's reason, for a warning given by the referee (those that come with a
        /// violation are explained by it).
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A violation was closed.
    ViolationResolved {
        /// The violation's id.
        id: u32,
        /// How: e.g. `board_restored`.
        how: String,
    },
    /// The game phase changed, or the guidance of a `setup`/`desync` phase changed.
    Phase {
        /// `setup`, `play`, `desync`, `paused`, `scoring` or `finished`.
        phase: Phase,
        /// Stones to put back (or to put down, during setup), with their colour.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        restore: Vec<PointColor>,
        /// Points whose stone must be lifted.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        remove: Vec<String>,
    },
    /// The serial link to the board came up or went down.
    Link {
        /// `connected` or `lost`.
        state: LinkState,
        /// Why, for `lost`; the board's identity for `connected` (and, after an outage, what
        /// became of the board's history of it).
        detail: String,
        /// On `connected` after an outage of a version-3 board: the board's history of the
        /// outage replayed (`replayed`, with its counts), or why not (`board_restarted`,
        /// `lost`, `no_answer`) — then the board is judged as it now lies (PROTOCOL.md §14).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        history: Option<crate::session::HistoryStatus>,
    },
    /// The game ended.
    Result {
        /// Winner, or null for a draw / no result.
        winner: Option<Color>,
        /// `resignation`, `count`, `time`, `two_warnings`, `referee` or `cycle` (a whole-board
        /// cycle under the event's rule, R20.3).
        #[serde(deserialize_with = "crate::referee::intern::deserialize")]
        reason: crate::referee::intern::StaticStr,
        /// Black's points at the count (area scoring), when counted.
        black_points: Option<f64>,
        /// White's points at the count, when counted.
        white_points: Option<f64>,
        /// Margin in stones (Chinese counting), when counted.
        margin_stones: Option<f64>,
        /// The SGF `RE` value.
        re: String,
    },
}

/// One move of an ambiguous explanation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CandidateMove {
    /// Mover.
    pub color: Color,
    /// GTP point.
    pub point: String,
    /// A stone never seen on a settled board (placed and captured in between).
    pub hidden: bool,
    /// Played by the side not to move (R17.2).
    pub out_of_turn: bool,
}

/// Game phase (DESIGN.md `phase` event).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Waiting for the board to show the starting position (empty, or handicap/setup stones).
    Setup,
    /// Play goes on.
    Play,
    /// The board differs from the record in a way no legal move explains: fix the board.
    Desync,
    /// The clock is paused by the referee.
    Paused,
    /// Both sides passed (R21.1): counting.
    Scoring,
    /// The game is over (R21.3).
    Finished,
}

impl Phase {
    /// The DESIGN.md name.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Setup => "setup",
            Phase::Play => "play",
            Phase::Desync => "desync",
            Phase::Paused => "paused",
            Phase::Scoring => "scoring",
            Phase::Finished => "finished",
        }
    }
}

/// Serial link state (DESIGN.md `link` event).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkState {
    /// Handshake done, scans arriving.
    Connected,
    /// No board: never connected, unplugged, or silent for longer than the timeout.
    Lost,
}
