//! The referee: settled boards, button presses and commands in; moves, captures and
//! violations out (DESIGN.md `referee`, RULES.md R17–R24).
//!
//! The [`Referee`] keeps the game record and the rules state ([`Game`]) and matches every
//! settled board against the rules' successors of the record's position ([`inference`]). What
//! the board shows is judged in this order:
//!
//! 1. explained by legal moves (one, or several in the one possible order), by a stone out of
//!    turn (R17.2), or by a forbidden stone (R18.3, R19); several explanations are held as
//!    `ambiguous` for the referee;
//! 2. the last move, not yet committed, was lifted or moved: the same move being adjusted;
//! 3. a point whose stone changed colour: a sensor anomaly (or a stacked stone, which a clock
//!    press turns into `occupied_point`), set aside while the rest is explained;
//! 4. a committed stone lifted or moved (`takeback` R17.3, `moved_stone` R17.5), opponent stones
//!    with liberties lifted (`wrong_capture` R18.1), many stones off their points
//!    (`board_disturbed` R17.6) — each flagged once, with what to put back, while the moves
//!    made meanwhile are still recorded;
//! 5. anything else: `desync`, with the exact difference to restore.
//!
//! A move is **committed** when its player presses the clock, when the opponent moves, or —
//! without a clock — when the board has stayed settled for [`RefereeConfig::commit_ms`];
//! changes before that adjust the move, changes after it are takebacks or moved stones.
//! Sanctions follow the [`Profile`] (cn2002 R-clauses, cn1988 O-clauses) unless the
//! [`Policy`] accepts every act as played (replays of recorded games).

pub mod command;
pub mod inference;
pub mod intern;
pub mod profile;
pub mod result;
pub mod setup;
pub mod violation;

mod bookkeeping;
mod faults;
mod found;
mod handicap;
mod held;
mod judge;
mod presses;
mod proof;
mod provisional;
mod reorder;
mod revise;
mod rulings;
mod scoring;
mod stuck;

use std::collections::VecDeque;

use crate::event::{CandidateMove, EventKind, Evidence, Phase, PointColor};
pub use crate::rules::ViolationCode;
use crate::rules::{
    area_count, chinese_result, dead_shares, ChineseResult, Color, Game, GameRecord, Illegal,
    Point, RecordedMove, DEAD_THRESHOLD, DEFAULT_PLAYOUTS,
};
use crate::sensing::{PointTimes, StoneGrid};
pub use command::{Adjudication, CommandError, Ruling, SealedMove};
pub use inference::{
    explain, explain_lines, explain_timed, relaid, some_line, BoardDiff, Candidate, CaptureTally,
    Pending, Step, Verdict, LINES_BUDGET, MAX_HIDDEN_UNSEEN,
};
pub use profile::{Penalty, Policy, Profile, Sanction};
pub use provisional::{rank, Provisional};
pub use setup::GameSetup;
pub use violation::Violation;

/// How a flag fall is ruled (R22.5, [`Referee::on_time_expired`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FlagRuling {
    /// The game is lost (R22.5, O14.5).
    Loss,
    /// A pass with a warning; counting goes on (R22.5, on the counted player's request).
    Pass,
    /// The referee rules ([`Referee::rule_time_up`]).
    AskReferee,
}

/// What a clock press does to the clock ([`Referee::on_clock`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PressOutcome {
    /// The press commits move `move_number` (moves and passes in the record): the clock
    /// switches to the other side.
    Switch {
        /// The committed move.
        move_number: u32,
    },
    /// The clock stays as it is (ignored, or a press without any stone, R17.4).
    Stay,
    /// The press stands as made but commits nothing the referee can name: the board is held
    /// for the referee (ambiguous), so the clock follows the players' presses meanwhile.
    Stands,
}

/// Referee settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RefereeConfig {
    /// Rule profile (default cn2002).
    pub profile: Profile,
    /// Apply the sanctions, or accept every act as played.
    pub policy: Policy,
    /// Without a clock, a move is committed once the board has stayed settled this long after
    /// it, ms of board time; `None`: only a clock press (or the opponent's move) commits.
    pub commit_ms: Option<u64>,
    /// What a whole-board cycle does to the game (R20.3, O11.3): the event's rules.
    #[serde(default)]
    pub cycles: CycleRule,
}

/// What a whole-board cycle — triple ko, quadruple ko, eternal life, sending two returning
/// one (R20.3, O11.3) — does to the game: "in principle forbidden; the event rules decide: no
/// result, draw, or replay". Config `cycles = "referee" | "no_result" | "draw" | "replay"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CycleRule {
    /// `superko_cycle` is flagged and play goes on until the referee rules (`POST result`).
    #[default]
    Referee,
    /// The game ends without a result: `RE[Void]`.
    NoResult,
    /// The game ends drawn: `RE[0]`.
    Draw,
    /// The game ends to be replayed: `RE[Void]`, the violation closed as `replay`.
    Replay,
}

impl CycleRule {
    /// The config name.
    pub fn as_str(self) -> &'static str {
        match self {
            CycleRule::Referee => "referee",
            CycleRule::NoResult => "no_result",
            CycleRule::Draw => "draw",
            CycleRule::Replay => "replay",
        }
    }
}

impl std::str::FromStr for CycleRule {
    type Err = String;

    /// `referee`, `no_result`, `draw` or `replay`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "referee" => CycleRule::Referee,
            "no_result" => CycleRule::NoResult,
            "draw" => CycleRule::Draw,
            "replay" => CycleRule::Replay,
            other => {
                return Err(format!(
                    "{other:?}: use \"referee\", \"no_result\", \"draw\" or \"replay\""
                ))
            }
        })
    }
}

impl Default for RefereeConfig {
    fn default() -> Self {
        RefereeConfig {
            profile: Profile::Cn2002,
            policy: Policy::Rules,
            commit_ms: Some(3_000),
            cycles: CycleRule::Referee,
        }
    }
}

/// A board from the stabiliser with the times of every point's last change (for the order of
/// the moves and R17.4).
#[derive(Clone, Copy, Debug)]
pub struct Observation<'a> {
    /// The stones.
    pub grid: &'a StoneGrid,
    /// Board time of the scan that handed it on, ms.
    pub at_ms: u64,
    /// Per point (dense index): when its reading last changed ([`PointTimes`], board ms).
    pub times: &'a [PointTimes],
    /// Per point (dense index): the last board time, ms, it did not read its settled value
    /// ([`crate::sensing::Stabiliser::touched`]): where a stone may have come and gone unseen
    /// (a throw-in captured under a hand). Empty when unknown (a ruling, the referee's choice).
    pub touched: &'a [u64],
    /// The whole board is settled ([`crate::sensing::Settled::complete`]). An incomplete board
    /// (quick play: hands still over the board elsewhere) is judged only as far as moves
    /// explain it; anything else waits for more of the board, up to
    /// [`PARTIAL_PATIENCE_MS`].
    pub complete: bool,
    /// Board time, ms, by which the board of this game had first been read whole (every point
    /// a solid reading: [`crate::sensing::Stabiliser::first_look_ms`], not before the game
    /// began): a stone seen by then was there when the board came up; one seen later was put
    /// down since, as a move. `None`: unknown, and every stone on the first board of the game
    /// is taken as there when it came up ([`AsFound::GameStart`]).
    pub came_up_ms: Option<u64>,
    /// A hand is over the board now ([`crate::sensing::Stabiliser::hands_over`]): a stone may
    /// be under it, so what the board shows is not all there is (issue 35: nothing judged on
    /// it is proven).
    pub hands: bool,
}

impl<'a> Observation<'a> {
    /// A complete board judged at `at_ms` outside the scans (a ruling, the referee's choice,
    /// a new game), nothing touched; `times` from [`times_now`].
    pub fn judged_now(grid: &'a StoneGrid, at_ms: u64, times: &'a [PointTimes]) -> Self {
        Observation {
            grid,
            at_ms,
            times,
            touched: &[],
            complete: true,
            came_up_ms: Some(at_ms),
            hands: false,
        }
    }

    /// The times of the point `p`'s last change (the board's time if unknown).
    fn times_of(&self, p: Point) -> PointTimes {
        self.times
            .get(p.index(self.grid.size()))
            .copied()
            .unwrap_or(PointTimes {
                left_ms: self.at_ms,
                seen_ms: self.at_ms,
                reread_ms: 0,
            })
    }

    /// The times, if they are one per point.
    fn timing(&self) -> Option<&[PointTimes]> {
        let n = usize::from(self.grid.size()).pow(2);
        (self.times.len() == n).then_some(self.times)
    }
}

/// Times for a board judged now, outside the scans (a ruling, the referee's choice): every
/// point dated `at_ms`, so nothing is ordered by them and no press is before them.
pub fn times_now(grid: &StoneGrid, at_ms: u64) -> Vec<PointTimes> {
    vec![
        PointTimes {
            left_ms: at_ms,
            seen_ms: at_ms,
            reread_ms: 0,
        };
        usize::from(grid.size()).pow(2)
    ]
}

/// How long, ms of board time, a board not yet complete that no move explains waits for more
/// of the board before it is judged as it stands (a violation, `desync`): long enough for a
/// hand still over another point to lift and show the stone that explains it.
pub const PARTIAL_PATIENCE_MS: u64 = 2_000;

/// How often (board time, ms) a board that legal moves did not explain is looked at again, at
/// most: after an outage ([`Referee::look_again_as_found`]), or with the record stuck out of
/// step with it ([`Referee::unstick`]).
pub const LOOK_AGAIN_MS: u64 = 500;

/// How long, ms of board time, captured stones may stay on the board untouched once the
/// opponent's next stone is down before they count as missed (R18.2): a captor still lifting
/// them (a hand over one of them within this time, the next one lifted meanwhile) is not
/// missing them. Quick players lift one stone every 0.1–0.5 s, some only once the reply is
/// down.
pub const LIFT_PATIENCE_MS: u64 = 2_000;

/// The SGF comment on a move whose stone the board never saw: placed and captured again
/// under hands, inferred from the stones around it.
pub const NEVER_SEEN: &str = "never seen on the board (placed and captured under hands)";

/// The end of a game.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameResult {
    /// Winner, `None` for a draw or no result.
    pub winner: Option<Color>,
    /// `resignation`, `referee`, `two_warnings`, … (DESIGN.md `result.reason`).
    #[serde(deserialize_with = "crate::referee::intern::deserialize")]
    pub reason: crate::referee::intern::StaticStr,
    /// SGF `RE` value.
    pub re: String,
}

/// Why a game could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The board size is not 2..=19.
    #[error("board size {0} is not supported (2 to 19 points per side)")]
    Size(u8),
    /// Two setup stones on one point, or a point off the board.
    #[error("setup stone at {0} is off the board or on an occupied point")]
    Stone(String),
}

/// What the referee knows of the last recorded move beyond the record.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct LastMove {
    color: Color,
    point: Option<Point>,
    /// Board time its stone appeared (or the pass was pressed), ms.
    placed_at: u64,
    /// Board time it was recorded, ms.
    recorded_at: u64,
    /// Captured stones on the board before it.
    pending_before: Vec<Pending>,
    committed: bool,
    /// Board time it was committed, ms (`None`: not yet, or unknown).
    #[serde(default)]
    committed_ms: Option<u64>,
    pressed: bool,
}

/// A side's last move still waiting for its clock press.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Unpressed {
    /// Its number (moves and passes in the record).
    number: u32,
    /// Board time its stone appeared (or the pass), ms: the first scan its point was
    /// disturbed (the stone went down at or after it).
    placed_at: u64,
    /// Board time its stone was certainly down, ms (`seen_ms`, sensing::PointTimes); `None`
    /// in checkpoints written before it was kept: `placed_at`.
    #[serde(default)]
    seen_at: Option<u64>,
    /// Board time the move it answers (the opponent's just before it) was certainly down,
    /// ms, if known.
    #[serde(default)]
    reply_to_seen: Option<u64>,
    /// Its point; `None` for a pass.
    point: Option<Point>,
    /// Board time the opponent's next stone appeared, if it has: a press after that is no
    /// longer for this move.
    answered_at: Option<u64>,
}

/// Captured stones still lying when the opponent moved (R18.2), not yet flagged.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Overdue {
    /// Who captured them.
    captor: Color,
    /// Where they lie.
    points: Vec<Point>,
    /// Board time of the last sign that the captor is lifting them (the capture, a hand over
    /// one of them, one lifted), ms.
    since_ms: u64,
}

/// The referee's outgoing events, each with the board time it happened at when that differs
/// from the time it is told (a move's stone was seen before the board that showed it was
/// handed on).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Events(VecDeque<(EventKind, Option<u64>)>);

impl Events {
    fn push_back(&mut self, kind: EventKind) {
        self.0.push_back((kind, None));
    }

    fn push_at(&mut self, kind: EventKind, at_ms: u64) {
        self.0.push_back((kind, Some(at_ms)));
    }

    fn pop_front(&mut self) -> Option<(EventKind, Option<u64>)> {
        self.0.pop_front()
    }
}

/// The referee state machine. Feed it settled boards ([`Referee::on_board`]), scan times
/// ([`Referee::on_tick`]), presses and commands; take events with [`Referee::poll_event`].
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Referee {
    config: RefereeConfig,
    game: Game,
    record: GameRecord,
    phase: Phase,
    /// Phase to go back to after a desync or a pause.
    resume_phase: Phase,
    /// Captured stones still on the board, with their colour (their captor is the other).
    pending: Vec<Pending>,
    guidance: BoardDiff,
    anomalies: Vec<Point>,
    violations: Vec<Violation>,
    warnings: [u32; 2],
    result: Option<GameResult>,
    last: Option<LastMove>,
    ambiguous: Option<held::Ambiguity>,
    /// Moves recorded in the likeliest of several orders, oldest first ([`provisional`]).
    #[serde(default)]
    provisional: Vec<Provisional>,
    /// The index in the record from which moves were last revised after the fact
    /// ([`revise`]).
    #[serde(default)]
    revised_at: Option<usize>,
    /// The record's length when the board's history of an outage was last lost ([`proof`]).
    #[serde(default)]
    gap_at: Option<usize>,
    /// Per point (dense index): the last board time, ms, a hand was over it, as last told
    /// ([`Referee::on_tick`]).
    #[serde(default)]
    last_touched: Vec<u64>,
    /// A board not yet complete (hands over it elsewhere) is being judged as it stands
    /// ([`PARTIAL_PATIENCE_MS`]): nothing found on it is proven.
    #[serde(skip)]
    judging_partial: bool,
    /// Each side's moves still waiting for their clock press, oldest first (Black, White):
    /// presses are judged a moment after they are made, when a fast player may have moved
    /// again.
    unpressed: [Vec<Unpressed>; 2],
    /// The number of the last move that came to wait for its press, and the board time it
    /// was certainly down, ms (what the next move answers).
    #[serde(default)]
    last_owed_seen: Option<(u32, u64)>,
    /// A game clock is in use: a press reaches the referee only while the presser's time
    /// runs, so it is for the presser's oldest unpressed move even if the opponent has
    /// already answered it.
    timed: bool,
    /// Free handicap stones still to place (Chinese rules: Black places them anywhere).
    handicap_left: u8,
    handicap_total: u8,
    /// During free handicap placement: the black stones down so far.
    handicap_placed: Vec<Point>,
    /// In scoring: recorded stones the players have lifted as dead.
    dead_lifted: Vec<Point>,
    /// In scoring: the stones proposed dead, and the count without them.
    proposal: Option<(Vec<Point>, ChineseResult)>,
    /// In scoring: the stones of the chains the count takes for alive beyond dispute
    /// ([`scoring::UNDISPUTED_SHARE`]): lifting one is counting, not a claim that it is dead.
    #[serde(default)]
    undisputed: Vec<Point>,
    /// In scoring: the players count on the board (the dead stones are agreed: G9, C2). The
    /// proposal is fixed; nothing on the board changes it until the count is confirmed
    /// (R21.3) or disputed (R21.4).
    #[serde(default)]
    counting: bool,
    /// In scoring: the sides that pressed their clock to agree to the count shown
    /// `[black, white]`; both: the count is confirmed.
    #[serde(default)]
    agreed: [bool; 2],
    /// Board time scoring began, ms: a press within [`scoring::AGREE_GRACE_MS`] after it is
    /// the passer's habit, not agreement.
    #[serde(default)]
    scoring_since_ms: u64,
    sealed: Option<SealedMove>,
    /// Board time of the last board judged, ms: a stone never seen since must have gone down
    /// after it.
    #[serde(default)]
    prev_board_ms: u64,
    /// When each stone of `pending` was captured, board time, ms.
    #[serde(default)]
    captured_at: Vec<(Point, u64)>,
    /// When each stone of `pending` was first disturbed after its capture, board time, ms: a
    /// hand over it, lifting it — perhaps to put a new stone of the same colour there.
    #[serde(default)]
    first_touched: Vec<(Point, u64)>,
    /// Points no sensor of their own reads: a dead sensor's point, which the board reads from
    /// its neighbours' sensors (hardware/PROTOCOL.md §5.17–§5.18) — an estimate, never proof
    /// of a violation there ([`Referee::doubt`]). From the board's health report.
    #[serde(default)]
    unsensed: Vec<Point>,
    /// Stones of the record a board showed lifted while the record still had them (their
    /// capture not yet explained: the stone that made it still under a hand), as (point,
    /// colour, the record's length then); kept while the record has the stone there and no
    /// move on its point since. Back on its point, such a stone is first taken as a new one (a
    /// ko retaken, a point filled again: [`explain_timed`]). At most one per point.
    #[serde(default)]
    lifted_seen: Vec<(Point, Color, usize)>,
    /// When the stones of the record's last moves were placed, as the board dated them when
    /// each was recorded (point, [`PointTimes`]), newest last, at most [`PLACED_KEPT`]: a stone
    /// captured and lifted since has its point dated by the lift, which says nothing of when
    /// it was placed ([`Referee::placement_times`]).
    #[serde(default)]
    placed_times: VecDeque<(Point, PointTimes)>,
    /// Captured stones still on the board when the opponent moved: the captor has a moment to
    /// lift them (R18.2, [`LIFT_PATIENCE_MS`]).
    #[serde(default)]
    overdue: Option<Overdue>,
    /// Board time since which boards that are not complete have found no explanation
    /// ([`PARTIAL_PATIENCE_MS`]; also for the board as found after an outage).
    #[serde(default)]
    partial_since: Option<u64>,
    now_ms: u64,
    last_grid: Option<StoneGrid>,
    /// The times of the last board seen while paused (one per point, dense index): the order
    /// in which stones put down meanwhile were played (R22.8). Empty outside a pause.
    #[serde(default)]
    paused_times: Vec<PointTimes>,
    /// The record's length when play resumed with stones played during the pause still on the
    /// board: accepted, they go in there, before the moves made since (R22.8).
    #[serde(default)]
    paused_base: Option<usize>,
    /// The next complete board is the board as found ([`AsFound`]): looked at before it is
    /// judged. `None` once seen.
    #[serde(default)]
    as_found: Option<AsFound>,
    /// The `unexplained_board` raised for the board as found after an outage (its violation's
    /// id, and why the history was lost), while it is open: each later board is looked at
    /// again as found — a stone a hand hid then shows since, a stone put back — and the
    /// violation closes as `explained` once legal moves explain the board (issue 35: an
    /// unexplained board never freezes the record).
    #[serde(default)]
    unexplained_outage: Option<(u32, String)>,
    /// When (board time, ms) the board was last looked at again, for
    /// [`Referee::unexplained_outage`] or a record stuck out of step with it ([`stuck`]).
    #[serde(default)]
    looked_again_ms: Option<u64>,
    /// The last board looked at again that nothing explained: not searched again unchanged.
    #[serde(skip)]
    looked_at: Option<StoneGrid>,
    /// Since when (board time, ms) the board has been out of step with the record with
    /// nothing for the players to put right but what nothing explains ([`stuck`]).
    #[serde(default)]
    stuck_since: Option<u64>,
    /// What the board as found at the start of the game had that the starting position has not
    /// (stones left from another game, stones missing): never moves, shown on the LEDs until
    /// each point is put right (the starting position's `setup` guidance).
    #[serde(default)]
    found: BoardDiff,
    #[serde(default)]
    events: Events,
    stats: RefereeStats,
}

/// Diagnostic counters of the referee.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RefereeStats {
    /// Settled boards with a stone of the wrong colour on a recorded point, set aside as a
    /// sensor anomaly.
    pub anomalies: u64,
    /// Clock presses by the side not to press, ignored.
    pub ignored_presses: u64,
    /// Passes by the side not to move, ignored (under the rules policy).
    pub ignored_passes: u64,
}

/// When the board is looked at as found, before it is judged: a board the referee did not see
/// come about. Nothing on it is repaired automatically (issue 14).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AsFound {
    /// The first complete board of a new game. Of the stones the board had when it came up
    /// ([`Observation::came_up_ms`]), one legal stone is the first move (R17.1 if of the
    /// wrong colour); anything else that differed from the starting position was there before
    /// the game began — stones left from another game, stones of both colours, a stone with
    /// no liberties, missing setup stones. None of it is a move: the LEDs show each point to
    /// put right (phase `setup`) and moves are judged on the board as if it were put right.
    /// Stones put down after the board came up (quick players before the board first
    /// settled, a service restarted as the game began) are judged as moves.
    GameStart,
    /// The first board after an outage whose history is lost (a service restart, a board that
    /// restarted or keeps no history; the reason as the `link` event gives it). Legal moves
    /// that explain it are recorded; anything else is an [`UnexplainedBoard`] for the referee
    /// (nobody charged, no warning), shown on the LEDs.
    ///
    /// [`UnexplainedBoard`]: ViolationCode::UnexplainedBoard
    AfterOutage(String),
}

impl Referee {
    /// A referee for a new game, in the `setup` phase until the board shows the starting
    /// position (or, with free handicap, until Black has placed its stones).
    pub fn new(setup: &GameSetup, config: RefereeConfig) -> Result<Referee, SetupError> {
        let size = setup.size();
        let game = Game::with_setup(size, &setup.setup, setup.first_to_move).map_err(|_| {
            if !(2..=19).contains(&size) {
                SetupError::Size(size)
            } else {
                let bad = setup
                    .setup
                    .iter()
                    .map(|(_, p)| p.to_sgf())
                    .collect::<Vec<_>>()
                    .join(",");
                SetupError::Stone(bad)
            }
        })?;
        let mut info = setup.info.clone();
        if let Some(t) = &setup.time {
            info.time_limit = Some(t.sgf_tm());
            info.overtime = t.sgf_ot();
        }
        let record = GameRecord {
            info,
            setup: setup.setup.clone(),
            player_to_move: Some(setup.first_to_move),
            moves: Vec::new(),
        };
        let mut referee = Referee {
            config,
            game,
            record,
            phase: Phase::Setup,
            resume_phase: Phase::Play,
            pending: Vec::new(),
            guidance: BoardDiff::default(),
            anomalies: Vec::new(),
            violations: Vec::new(),
            warnings: [0, 0],
            result: None,
            last: None,
            ambiguous: None,
            provisional: Vec::new(),
            revised_at: None,
            gap_at: None,
            last_touched: Vec::new(),
            judging_partial: false,
            unpressed: [Vec::new(), Vec::new()],
            last_owed_seen: None,
            timed: false,
            handicap_left: setup.free_handicap,
            handicap_total: setup.free_handicap,
            handicap_placed: Vec::new(),
            dead_lifted: Vec::new(),
            proposal: None,
            undisputed: Vec::new(),
            counting: false,
            agreed: [false, false],
            scoring_since_ms: 0,
            sealed: None,
            partial_since: None,
            lifted_seen: Vec::new(),
            placed_times: Default::default(),
            overdue: None,
            captured_at: Vec::new(),
            first_touched: Vec::new(),
            unsensed: Vec::new(),
            prev_board_ms: 0,
            now_ms: 0,
            last_grid: None,
            paused_times: Vec::new(),
            paused_base: None,
            as_found: Some(AsFound::GameStart),
            unexplained_outage: None,
            looked_again_ms: None,
            looked_at: None,
            stuck_since: None,
            found: BoardDiff::default(),
            events: Events::default(),
            stats: RefereeStats::default(),
        };
        let setup_points = setup
            .setup
            .iter()
            .map(|&(color, p)| PointColor {
                point: p.to_gtp(size),
                color,
            })
            .collect();
        referee.events.push_back(EventKind::Game {
            size,
            black: setup.info.black.clone(),
            white: setup.info.white.clone(),
            komi: setup.info.komi,
            handicap: setup.info.handicap.max(setup.free_handicap),
            setup: setup_points,
            first_to_move: setup.first_to_move,
        });
        referee.guidance = BoardDiff::between(referee.game.board(), &StoneGrid::empty(size));
        referee.push_phase();
        Ok(referee)
    }

    // ---- read side -------------------------------------------------------------------

    /// The rules state of the record.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The game record so far (valid SGF at every moment through `to_sgf`).
    pub fn record(&self) -> &GameRecord {
        &self.record
    }

    /// Current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Captured stones still lying on the board.
    pub fn pending(&self) -> &[Pending] {
        &self.pending
    }

    /// What to change on the board to match the record (setup, desync, board violations).
    pub fn guidance(&self) -> &BoardDiff {
        &self.guidance
    }

    /// Points whose sensors read a colour the record cannot explain (set aside).
    pub fn anomalies(&self) -> &[Point] {
        &self.anomalies
    }

    /// All violations of the game, open or not.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// Warnings per side, `[black, white]` (R24).
    pub fn warnings(&self) -> [u32; 2] {
        self.warnings
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    /// Explanations waiting for the referee's choice: each a line of play from the record on
    /// (the moves that explain the held board, then those made since), in the order
    /// [`Referee::choose`] takes.
    pub fn ambiguity(&self) -> Option<Vec<Candidate>> {
        self.ambiguous
            .as_ref()
            .map(|a| a.ways.iter().map(|w| w.candidate.clone()).collect())
    }

    /// The stones in question while a board is held for the referee: those of the moves that
    /// explain the held board, in any of its explanations (board order, no repeats).
    pub fn held_points(&self) -> Vec<Point> {
        let mut points: Vec<Point> = self
            .ambiguous
            .iter()
            .flat_map(|a| a.ways.iter())
            .flat_map(|w| w.candidate.steps[..w.held.min(w.candidate.steps.len())].iter())
            .filter(|s| !s.hidden)
            .map(|s| s.point)
            .collect();
        let size = self.size();
        points.sort_by_key(|p| p.index(size));
        points.dedup();
        points
    }

    /// Moves made and followed while a board is held for the referee, not yet in the record
    /// (those of the first explanation), and how many explanations there are.
    pub fn held_moves(&self) -> Option<(usize, usize)> {
        let a = self.ambiguous.as_ref()?;
        let first = a.ways.first()?;
        Some((first.candidate.steps.len(), a.ways.len()))
    }

    /// Free handicap stones Black still has to place.
    pub fn handicap_left(&self) -> u8 {
        self.handicap_left
    }

    /// Settings.
    pub fn config(&self) -> RefereeConfig {
        self.config
    }

    /// Diagnostic counters.
    pub fn stats(&self) -> RefereeStats {
        self.stats
    }

    /// Whether the last recorded move is committed.
    pub fn last_move_committed(&self) -> bool {
        self.last.as_ref().is_none_or(|l| l.committed)
    }

    /// The points no sensor of their own reads (a dead sensor's, read from its neighbours),
    /// from the board's latest health report: what the board shows there is no proof of a
    /// violation — one there is a notice (module `proof`: no penalty without proof).
    pub fn set_unsensed(&mut self, points: Vec<Point>) {
        self.unsensed = points;
    }

    /// The points [`Referee::set_unsensed`] last named.
    pub fn unsensed(&self) -> &[Point] {
        &self.unsensed
    }

    /// Next event, oldest first.
    pub fn poll_event(&mut self) -> Option<EventKind> {
        self.events.pop_front().map(|(kind, _)| kind)
    }

    /// Next event, oldest first, with the board time it happened at (ms) when that is earlier
    /// than the board that told it: a move's stone seen before its board was handed on.
    pub fn poll_timed_event(&mut self) -> Option<(EventKind, Option<u64>)> {
        self.events.pop_front()
    }

    fn size(&self) -> u8 {
        self.game.board().size()
    }

    fn gtp(&self, p: Point) -> String {
        p.to_gtp(self.size())
    }

    // ---- time ---------------------------------------------------------------------------

    /// Board time advanced to `now_ms` with the board `settled` or not, `touched` per point
    /// (dense index; empty if unknown) the last board time, ms, it was disturbed
    /// ([`crate::sensing::Stabiliser::touched`]): commits the last move once the board has
    /// stayed settled for [`RefereeConfig::commit_ms`]; flags captured stones nobody lifts
    /// (R18.2, [`LIFT_PATIENCE_MS`]).
    pub fn on_tick(&mut self, now_ms: u64, settled: bool, touched: &[u64]) {
        self.now_ms = self.now_ms.max(now_ms);
        if !touched.is_empty() {
            self.last_touched.clear();
            self.last_touched.extend_from_slice(touched);
        }
        self.note_first_touches(touched);
        self.overdue_on_tick(now_ms, touched);
        let Some(commit_ms) = self.config.commit_ms else {
            return;
        };
        if let Some(last) = &mut self.last {
            if settled && !last.committed && now_ms.saturating_sub(last.recorded_at) >= commit_ms {
                last.committed = true;
                last.committed_ms = Some(now_ms);
            }
        }
    }
}

/// Index of a side in per-side arrays: Black 0, White 1.
fn side(color: Color) -> usize {
    match color {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// Differences that make a board "disturbed" (R17.6) rather than a single mistake.
const DISTURBED: usize = 4;

#[cfg(test)]
mod tests;
