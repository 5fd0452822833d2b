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

use std::collections::VecDeque;

use crate::event::{CandidateMove, EventKind, Evidence, Phase, PointColor};
pub use crate::rules::ViolationCode;
use crate::rules::{
    area_count, chinese_result, propose_dead, ChineseResult, Color, Game, GameRecord, Illegal,
    Point, RecordedMove, DEFAULT_PLAYOUTS,
};
use crate::sensing::StoneGrid;
pub use command::{Adjudication, CommandError, Ruling, SealedMove};
pub use inference::{explain, BoardDiff, Candidate, CaptureTally, Pending, Step, Verdict};
pub use profile::{Penalty, Policy, Profile, Sanction};
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
}

impl Default for RefereeConfig {
    fn default() -> Self {
        RefereeConfig {
            profile: Profile::Cn2002,
            policy: Policy::Rules,
            commit_ms: Some(3_000),
        }
    }
}

/// A settled board with the time each point's reading last changed (for R17.4).
#[derive(Clone, Copy, Debug)]
pub struct Observation<'a> {
    /// The stones.
    pub grid: &'a StoneGrid,
    /// Board time of the settle, ms.
    pub at_ms: u64,
    /// Per point (dense index): board time its reading last changed, ms.
    pub changed_at: &'a [u64],
}

impl Observation<'_> {
    fn changed(&self, p: Point) -> u64 {
        self.changed_at
            .get(p.index(self.grid.size()))
            .copied()
            .unwrap_or(self.at_ms)
    }
}

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
    pressed: bool,
}

/// A side's last move still waiting for its clock press.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Unpressed {
    /// Its number (moves and passes in the record).
    number: u32,
    /// Board time its stone appeared (or the pass), ms.
    placed_at: u64,
    /// Its point; `None` for a pass.
    point: Option<Point>,
    /// Board time the opponent's next stone appeared, if it has: a press after that is no
    /// longer for this move.
    answered_at: Option<u64>,
}

/// An explanation waiting for the referee's choice.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Ambiguity {
    candidates: Vec<Candidate>,
    grid: StoneGrid,
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
    ambiguous: Option<Ambiguity>,
    /// Each side's moves still waiting for their clock press, oldest first (Black, White):
    /// presses are judged a moment after they are made, when a fast player may have moved
    /// again.
    unpressed: [Vec<Unpressed>; 2],
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
    sealed: Option<SealedMove>,
    now_ms: u64,
    last_grid: Option<StoneGrid>,
    events: VecDeque<EventKind>,
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
            unpressed: [Vec::new(), Vec::new()],
            timed: false,
            handicap_left: setup.free_handicap,
            handicap_total: setup.free_handicap,
            handicap_placed: Vec::new(),
            dead_lifted: Vec::new(),
            proposal: None,
            sealed: None,
            now_ms: 0,
            last_grid: None,
            events: VecDeque::new(),
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

    /// Explanations waiting for the referee's choice.
    pub fn ambiguity(&self) -> Option<&[Candidate]> {
        self.ambiguous.as_ref().map(|a| a.candidates.as_slice())
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

    /// Next event, oldest first.
    pub fn poll_event(&mut self) -> Option<EventKind> {
        self.events.pop_front()
    }

    fn size(&self) -> u8 {
        self.game.board().size()
    }

    fn gtp(&self, p: Point) -> String {
        p.to_gtp(self.size())
    }

    // ---- time ---------------------------------------------------------------------------

    /// Board time advanced to `now_ms` with the board `settled` or not: commits the last move
    /// once the board has stayed settled for [`RefereeConfig::commit_ms`].
    pub fn on_tick(&mut self, now_ms: u64, settled: bool) {
        self.now_ms = self.now_ms.max(now_ms);
        let Some(commit_ms) = self.config.commit_ms else {
            return;
        };
        if let Some(last) = &mut self.last {
            if settled && !last.committed && now_ms.saturating_sub(last.recorded_at) >= commit_ms {
                last.committed = true;
            }
        }
    }

    // ---- the board ------------------------------------------------------------------------

    /// A newly settled board that differs from the previous one.
    ///
    /// Open violations that require the board to be put back (an invalid stone to lift, a
    /// moved stone to return, …) are applied to the board first: the board is judged as it will
    /// be once fixed, so the stone waiting to come off is never taken for a later move, and the
    /// violation closes once the board shows the fix.
    pub fn on_board(&mut self, obs: Observation<'_>) {
        self.now_ms = self.now_ms.max(obs.at_ms);
        self.last_grid = Some(obs.grid.clone());
        let phase = self.phase;
        match phase {
            // R21.3: once the game is over nothing on the board changes the record. While
            // paused, the board is judged on resumption.
            Phase::Finished | Phase::Paused => return,
            Phase::Scoring if self.scoring_board(obs) => {
                self.refresh_guidance(obs.grid);
                return;
            }
            _ => {}
        }
        self.settle_fixes(obs.grid);
        let fixed = self.apply_fixes(obs.grid);
        let fobs = Observation {
            grid: &fixed,
            ..obs
        };
        if !(self.handicap_left > 0 && self.place_handicap(fobs.grid)) {
            self.judge(fobs);
        }
        self.settle_fixes(obs.grid);
        self.refresh_guidance(obs.grid);
    }

    /// Judges a board (with the pending fixes applied): explained by moves, or one of the
    /// board violations, or left as a difference to fix.
    fn judge(&mut self, obs: Observation<'_>) {
        if let Some(held) = self.ambiguous.clone() {
            if self.judge_after_held(&held, obs) {
                return;
            }
        }
        let verdict = explain(&self.game, &self.pending, obs.grid);
        if self.apply_verdict(verdict, obs) {
            self.anomalies.clear();
            return;
        }
        if self.ambiguous.is_some() {
            return; // held for the referee: nothing else is judged meanwhile
        }
        // Unexplained as it stands: the adjusted last move, sensor anomalies, board violations.
        if self.adjust_last_move(obs) || self.set_aside_anomalies(obs) || self.board_violation(obs)
        {
            return;
        }
        self.anomalies.clear();
        let diff = BoardDiff::between(self.game.board(), obs.grid);
        // Many recorded stones missing or changed at once (new stones are not "off").
        if diff.restore.len() >= DISTURBED && !self.has_open(ViolationCode::BoardDisturbed) {
            let color = self.last.as_ref().map_or(self.game.to_move(), |l| l.color);
            let points = diff.restore.iter().map(|&(p, _)| p).collect();
            let detail = format!(
                "{} stones are off their points at once: rebuild the position from the record",
                diff.restore.len()
            );
            self.flag(
                ViolationCode::BoardDisturbed,
                color,
                points,
                detail,
                obs.grid,
                diff,
            );
        }
    }

    /// Applies a verdict. Returns false for `Unexplained`.
    fn apply_verdict(&mut self, verdict: Verdict, obs: Observation<'_>) -> bool {
        match verdict {
            Verdict::Unexplained(_) => false,
            Verdict::Unchanged(tally) => {
                self.apply_tally(tally, &[]);
                true
            }
            Verdict::Moves { steps, tally } => {
                self.record_steps(&steps, obs);
                let fresh: Vec<Point> = steps.iter().flat_map(|s| s.captured.clone()).collect();
                self.apply_tally(tally, &fresh);
                true
            }
            Verdict::OutOfTurn { step, tally } => {
                self.out_of_turn(step, tally, obs);
                true
            }
            Verdict::Ambiguous(candidates) => {
                // Accepting the board as played takes it at face value: the stone out of turn
                // rather than a throw-in nobody saw.
                let face_value = (self.config.policy == Policy::AcceptAsPlayed)
                    .then(|| {
                        candidates
                            .iter()
                            .find(|c| c.out_of_turn && c.steps.len() == 1)
                            .cloned()
                    })
                    .flatten();
                match face_value {
                    Some(c) => {
                        let step = c.steps[0].clone();
                        let tally = self.tally_after(&step, obs.grid);
                        match tally {
                            Some(t) => self.out_of_turn(step, t, obs),
                            None => self.hold_ambiguous(candidates, obs.grid),
                        }
                    }
                    None => self.hold_ambiguous(candidates, obs.grid),
                }
                true
            }
            Verdict::Illegal {
                color,
                point,
                illegal,
            } => {
                self.illegal_stone(color, point, illegal, obs);
                true
            }
        }
    }

    /// Records moves explained from the board (nothing once the game is over, R21.3).
    fn record_steps(&mut self, steps: &[Step], obs: Observation<'_>) {
        if self.phase == Phase::Finished {
            return;
        }
        self.ambiguous = None;
        // A move by the opponent of the captor while captured stones still lie on the board:
        // the captor missed them (R18.2). A pending stone's captor is the other colour. Stones
        // the same settled board shows lifted were lifted in time: which came first cannot be
        // told, and the captor has the benefit of the doubt.
        if let Some(first) = steps.first() {
            let left: Vec<Point> = self
                .pending
                .iter()
                .filter(|&&(p, victim)| victim == first.color && obs.grid.get(p) == Some(victim))
                .map(|&(p, _)| p)
                .collect();
            // One failure, one warning: not again if the clock press was already flagged.
            let already = self.violations.iter().any(|v| {
                v.open
                    && matches!(
                        v.code,
                        ViolationCode::MissedCapture | ViolationCode::ClockBeforeCaptures
                    )
                    && left.iter().any(|p| v.points.contains(p))
            });
            if !left.is_empty() && !already {
                let captor = first.color.opposite();
                self.flag(
                    ViolationCode::MissedCapture,
                    captor,
                    left,
                    format!(
                        "{} moved while stones captured by {} were still on the board: lift them",
                        first.color.as_str(),
                        captor.as_str()
                    ),
                    obs.grid,
                    BoardDiff::default(),
                );
            }
        }
        for step in steps {
            self.commit_last();
            let pending_before = self.pending.clone();
            let Ok(outcome) = self.game.play(step.color, Some(step.point)) else {
                continue; // explain() played this exact move; cannot happen
            };
            self.record
                .moves
                .push(RecordedMove::new(step.color, Some(step.point)));
            if self.phase == Phase::Scoring {
                self.phase = Phase::Play; // R21.4: play resumes
                self.resume_phase = Phase::Play;
                self.push_phase();
            }
            self.events.push_back(EventKind::Move {
                color: step.color,
                point: self.gtp(step.point),
                sgf: step.point.to_sgf(),
                number: outcome.number,
                captured: step.captured.iter().map(|&p| self.gtp(p)).collect(),
            });
            self.last = Some(LastMove {
                color: step.color,
                point: Some(step.point),
                placed_at: obs.changed(step.point),
                recorded_at: obs.at_ms,
                pending_before,
                committed: false,
                pressed: false,
            });
            let placed_at = obs.changed(step.point);
            self.owe_press(step.color, outcome.number, placed_at, Some(step.point));
            if let Some(earlier) = outcome.repeats {
                self.flag(
                    ViolationCode::SuperkoCycle,
                    step.color,
                    vec![step.point],
                    format!(
                        "the whole-board position after move {earlier} is repeated (a multiple-ko or other cycle)"
                    ),
                    obs.grid,
                    BoardDiff::default(),
                );
            }
        }
    }

    /// One stone of the side not to move (R17.2), or — as the very first move of a game with
    /// no setup — colours taken the wrong way round (R17.1).
    fn out_of_turn(&mut self, step: Step, tally: CaptureTally, obs: Observation<'_>) {
        if self.joins_takeback(step.color, step.point) {
            return;
        }
        let wrong_colors = self.game.move_number() == 0
            && self.record.setup.is_empty()
            && self.handicap_total == 0;
        let code = if wrong_colors {
            ViolationCode::WrongColors
        } else {
            ViolationCode::TwoMovesInARow
        };
        let sanction = self.config.profile.sanction(code);
        let stands = wrong_colors
            || self.config.policy == Policy::AcceptAsPlayed
            || sanction.penalty != Penalty::MoveInvalid;
        let detail = if wrong_colors {
            format!(
                "the first stone is {} but {} moves first: colours reversed? the referee may swap them up to move 10",
                step.color.as_str(),
                self.game.to_move().as_str()
            )
        } else {
            format!(
                "{} played {} although {} is to move (no pass between)",
                step.color.as_str(),
                self.gtp(step.point),
                step.color.opposite().as_str()
            )
        };
        if stands {
            let fresh = step.captured.clone();
            self.record_steps(std::slice::from_ref(&step), obs);
            self.apply_tally(tally, &fresh);
            self.flag(
                code,
                step.color,
                vec![step.point],
                detail,
                obs.grid,
                BoardDiff::default(),
            );
        } else {
            // R17.2: the second move is invalid; its stone comes off the board.
            let fix = BoardDiff {
                restore: Vec::new(),
                remove: vec![step.point],
            };
            self.flag(code, step.color, vec![step.point], detail, obs.grid, fix);
        }
    }

    /// A stone of `color` played elsewhere while its takeback is still to be put right is the
    /// same act (R17.3: lifted and played elsewhere): it joins that violation's fix.
    fn joins_takeback(&mut self, color: Color, point: Point) -> bool {
        let Some(v) = self
            .violations
            .iter_mut()
            .find(|v| v.open && v.code == ViolationCode::Takeback && v.color == color)
        else {
            return false;
        };
        if !v.points.contains(&point) {
            v.points.push(point);
            v.fix.remove.push(point);
        }
        true
    }

    /// A stone on a forbidden point (G5/R19) or a ko retaken at once (R18.3/R20.1): invalid,
    /// counts as a pass; the board must be put back.
    fn illegal_stone(
        &mut self,
        color: Color,
        point: Point,
        illegal: Illegal,
        obs: Observation<'_>,
    ) {
        let (code, why) = match illegal {
            Illegal::Ko(_) => (
                ViolationCode::KoRecapture,
                "retakes the ko at once; the move is invalid and counts as a pass",
            ),
            _ => (
                ViolationCode::ForbiddenPoint,
                "is a forbidden point (no liberty, no capture); the move is invalid and counts as a pass",
            ),
        };
        let detail = format!("{} {} {}", color.as_str(), self.gtp(point), why);
        // What the invalid stone would capture (the ko stone) stays on, or goes back on if
        // lifted later: lifting it is part of the same invalid move, not a wrong capture.
        let mut would_capture = self.game.board().clone();
        let captures = would_capture.play(color, point).unwrap_or_default();
        self.commit_last();
        self.record_pass(color, obs.at_ms);
        // the retake's capture goes back, the stone comes off
        let mut fix = BoardDiff::between(self.game.board(), obs.grid);
        for c in captures {
            if !fix.restore.iter().any(|&(q, _)| q == c) {
                fix.restore.push((c, color.opposite()));
            }
        }
        self.flag(code, color, vec![point], detail, obs.grid, fix);
    }

    /// A board after one held for the referee: the held board came first, so the new one is
    /// explained only as one of the held explanations followed by new moves. One way left:
    /// it is recorded; several: they stay held, longer; none: the board is judged as usual.
    fn judge_after_held(&mut self, held: &Ambiguity, obs: Observation<'_>) -> bool {
        let mut ways: Vec<Candidate> = Vec::new();
        for c in &held.candidates {
            let mut game = self.game.clone();
            if c.out_of_turn {
                game.pass(c.steps[0].color.opposite());
            }
            if c.steps
                .iter()
                .any(|s| game.play(s.color, Some(s.point)).is_err())
            {
                continue;
            }
            let more = match explain(&game, &self.pending, obs.grid) {
                Verdict::Unchanged(_) => Vec::new(),
                Verdict::Moves { steps, .. } => steps,
                _ => continue,
            };
            let mut steps = c.steps.clone();
            steps.extend(more);
            ways.push(Candidate {
                steps,
                out_of_turn: c.out_of_turn,
            });
        }
        match ways.len() {
            0 => false,
            1 => {
                let way = ways.remove(0);
                self.ambiguous = None;
                if way.out_of_turn {
                    self.commit_last();
                    self.record_pass(way.steps[0].color.opposite(), obs.at_ms);
                }
                self.record_steps(&way.steps, obs);
                // the capture bookkeeping of the board as it now stands
                let verdict = explain(&self.game, &self.pending, obs.grid);
                if let Verdict::Unchanged(tally) = verdict {
                    let fresh: Vec<Point> =
                        way.steps.iter().flat_map(|s| s.captured.clone()).collect();
                    self.apply_tally(tally, &fresh);
                }
                true
            }
            _ => {
                self.hold_ambiguous(ways, obs.grid);
                true
            }
        }
    }

    fn hold_ambiguous(&mut self, candidates: Vec<Candidate>, grid: &StoneGrid) {
        if self
            .ambiguous
            .as_ref()
            .is_some_and(|a| a.candidates == candidates)
        {
            return;
        }
        let size = self.size();
        let listed = candidates
            .iter()
            .map(|c| {
                c.steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| CandidateMove {
                        color: s.color,
                        point: s.point.to_gtp(size),
                        hidden: s.hidden,
                        out_of_turn: c.out_of_turn && i == 0,
                    })
                    .collect()
            })
            .collect();
        self.events
            .push_back(EventKind::Ambiguous { candidates: listed });
        self.ambiguous = Some(Ambiguity {
            candidates,
            grid: grid.clone(),
        });
    }

    /// The last move, not yet committed, is being adjusted: its stone was lifted (the move is
    /// withdrawn) or moved (the move is replaced).
    fn adjust_last_move(&mut self, obs: Observation<'_>) -> bool {
        let Some(last) = self.last.clone() else {
            return false;
        };
        if last.committed || last.point.is_none() {
            return false;
        }
        let mut undone = self.game.clone();
        undone.undo();
        match explain(&undone, &last.pending_before, obs.grid) {
            Verdict::Unchanged(tally) => {
                self.undo_last();
                self.apply_tally(tally, &[]);
                true
            }
            Verdict::Moves { steps, tally } if steps[0].color == last.color => {
                self.undo_last();
                self.record_steps(&steps, obs);
                let fresh: Vec<Point> = steps.iter().flat_map(|s| s.captured.clone()).collect();
                self.apply_tally(tally, &fresh);
                true
            }
            _ => false,
        }
    }

    fn undo_last(&mut self) {
        let Some(last) = self.last.take() else {
            return;
        };
        let number = self.game.move_number();
        if !self.game.undo() {
            return;
        }
        for owed in &mut self.unpressed {
            owed.retain(|u| u.number < number);
        }
        self.record.moves.pop();
        self.pending = last.pending_before;
        self.events.push_back(EventKind::MoveUndone {
            number,
            color: last.color,
            point: last.point.map(|p| self.gtp(p)),
        });
    }

    /// Points that show a stone of the other colour than the record: a sensor anomaly (or a
    /// stacked stone). Set them aside and explain the rest.
    fn set_aside_anomalies(&mut self, obs: Observation<'_>) -> bool {
        let flips: Vec<Point> = obs
            .grid
            .iter()
            .filter_map(|(p, sensed)| match (self.game.board().get(p), sensed) {
                (Some(a), Some(b)) if a != b => Some(p),
                _ => None,
            })
            .collect();
        if flips.is_empty() || flips.len() > 2 {
            return false;
        }
        let masked = self.masked_grid(obs.grid, &flips, &[]);
        let verdict = explain(&self.game, &self.pending, &masked);
        if matches!(verdict, Verdict::Unexplained(_)) {
            return false;
        }
        let masked_obs = Observation {
            grid: &masked,
            ..obs
        };
        self.apply_verdict(verdict, masked_obs);
        if self.anomalies != flips {
            self.stats.anomalies += 1;
        }
        self.anomalies = flips;
        true
    }

    /// A committed stone lifted or moved (R17.3, R17.5), or opponent stones with liberties
    /// lifted (R18.1): flagged once with what to put back; moves made meanwhile are recorded.
    fn board_violation(&mut self, obs: Observation<'_>) -> bool {
        let board = self.game.board();
        let mut missing: Vec<(Point, Color)> = Vec::new();
        let mut extra: Vec<(Point, Color)> = Vec::new();
        for (p, sensed) in obs.grid.iter() {
            match (board.get(p), sensed) {
                (Some(c), None) => missing.push((p, c)),
                (None, Some(c)) if !self.pending.contains(&(p, c)) => extra.push((p, c)),
                _ => {}
            }
        }
        let last = self.last.clone();
        // A stone moved from p to q (possibly with new moves elsewhere).
        if let [(from, color)] = missing[..] {
            for &(to, _) in extra.iter().filter(|&&(_, c)| c == color) {
                let masked = self.masked_grid(obs.grid, &[from], &[to]);
                let verdict = explain(&self.game, &self.pending, &masked);
                if matches!(verdict, Verdict::Unexplained(_) | Verdict::Ambiguous(_)) {
                    continue;
                }
                let is_last = last
                    .as_ref()
                    .is_some_and(|l| l.point == Some(from) && l.committed);
                let adjacent = from.x.abs_diff(to.x) + from.y.abs_diff(to.y) == 1;
                let (code, detail) = if is_last && !adjacent {
                    (
                        ViolationCode::Takeback,
                        format!(
                            "{} lifted its committed stone from {} and played it at {}: put it back on {}",
                            color.as_str(),
                            self.gtp(from),
                            self.gtp(to),
                            self.gtp(from)
                        ),
                    )
                } else {
                    (
                        ViolationCode::MovedStone,
                        format!(
                            "the {} stone of {} was found on {}: it belongs on {}",
                            color.as_str(),
                            self.gtp(from),
                            self.gtp(to),
                            self.gtp(from)
                        ),
                    )
                };
                let fix = BoardDiff {
                    restore: vec![(from, color)],
                    remove: vec![to],
                };
                self.flag_once(code, color, vec![from, to], detail, obs.grid, fix);
                let masked_obs = Observation {
                    grid: &masked,
                    ..obs
                };
                self.apply_verdict(verdict, masked_obs);
                return true;
            }
        }
        // The last committed move's stone lifted (a move undone after it was committed).
        if let (Some(l), [(from, color)]) = (&last, &missing[..]) {
            if l.committed && l.point == Some(*from) && l.color == *color {
                let masked = self.masked_grid(obs.grid, &[*from], &[]);
                let verdict = explain(&self.game, &self.pending, &masked);
                // With a new move of the opponent at the same time, it is the opponent who
                // lifted the stone (R18.1), not a takeback.
                if matches!(verdict, Verdict::Unchanged(_)) {
                    let detail = format!(
                        "{} lifted its committed stone from {}: put it back",
                        color.as_str(),
                        self.gtp(*from)
                    );
                    let fix = BoardDiff {
                        restore: vec![(*from, *color)],
                        remove: Vec::new(),
                    };
                    self.flag_once(
                        ViolationCode::Takeback,
                        *color,
                        vec![*from],
                        detail,
                        obs.grid,
                        fix,
                    );
                    let masked_obs = Observation {
                        grid: &masked,
                        ..obs
                    };
                    self.apply_verdict(verdict, masked_obs);
                    return true;
                }
            }
        }
        // Opponent stones with liberties lifted (R18.1).
        if !missing.is_empty() && missing.len() <= 3 {
            let victim = missing[0].1;
            if missing.iter().all(|&(_, c)| c == victim) {
                let mut lifted: Vec<Point> = missing.iter().map(|&(p, _)| p).collect();
                let mut masked = self.masked_grid(obs.grid, &lifted, &[]);
                let mut verdict = explain(&self.game, &self.pending, &masked);
                // Stones the new moves capture were lifted rightly: only the others go back.
                if let Verdict::Moves { steps, .. } = &verdict {
                    let captured: Vec<Point> = steps
                        .iter()
                        .flat_map(|s| s.captured.iter().copied())
                        .collect();
                    if lifted.iter().any(|p| captured.contains(p)) {
                        lifted.retain(|p| !captured.contains(p));
                        masked = self.masked_grid(obs.grid, &lifted, &[]);
                        verdict = explain(&self.game, &self.pending, &masked);
                    }
                }
                let offender = victim.opposite();
                let by_offender = match &verdict {
                    Verdict::Unchanged(_) => {
                        self.last.as_ref().is_some_and(|l| l.color == offender)
                    }
                    Verdict::Moves { steps, .. } => steps.iter().any(|s| s.color == offender),
                    // a stone out of turn and a wrong capture at once: both are flagged
                    Verdict::OutOfTurn { step, .. } => step.color == offender,
                    _ => false,
                };
                if by_offender && !lifted.is_empty() {
                    let detail = format!(
                        "{} lifted {} stone(s) that still have liberties ({}): put them back",
                        offender.as_str(),
                        victim.as_str(),
                        lifted
                            .iter()
                            .map(|&p| self.gtp(p))
                            .collect::<Vec<_>>()
                            .join(" ")
                    );
                    let masked_obs = Observation {
                        grid: &masked,
                        ..obs
                    };
                    let fix = BoardDiff {
                        restore: lifted.iter().map(|&p| (p, victim)).collect(),
                        remove: Vec::new(),
                    };
                    self.flag_once(
                        ViolationCode::WrongCapture,
                        offender,
                        lifted,
                        detail,
                        obs.grid,
                        fix,
                    );
                    self.apply_verdict(verdict, masked_obs);
                    return true;
                }
            }
        }
        false
    }

    /// The capture bookkeeping if `step` alone is played from the record and `grid` shows it.
    fn tally_after(&self, step: &Step, grid: &StoneGrid) -> Option<CaptureTally> {
        let mut g = self.game.clone();
        g.play(step.color, Some(step.point)).ok()?;
        match explain(&g, &self.pending, grid) {
            Verdict::Unchanged(t) => Some(t),
            _ => None,
        }
    }

    /// `grid` with `restore` points showing the record's stone and `clear` points empty.
    fn masked_grid(&self, grid: &StoneGrid, restore: &[Point], clear: &[Point]) -> StoneGrid {
        let mut g = grid.clone();
        for &p in restore {
            g.set(p, self.game.board().get(p));
        }
        for &p in clear {
            g.set(p, None);
        }
        g
    }

    // ---- free handicap ---------------------------------------------------------------------

    /// Free handicap placement (Chinese rules): Black puts its stones anywhere, one after the
    /// other, without turns; when all are down White moves. Returns whether the board was
    /// taken as part of the placement.
    fn place_handicap(&mut self, grid: &StoneGrid) -> bool {
        let board = self.game.board();
        let mut black = Vec::new();
        let mut white = Vec::new();
        let mut other = false;
        for (p, sensed) in grid.iter() {
            match (board.get(p), sensed) {
                (a, b) if a == b => {}
                (None, Some(Color::Black)) => black.push(p),
                (None, Some(Color::White)) => white.push(p),
                _ => other = true,
            }
        }
        if other || white.len() > 1 {
            return false; // stones vanished: judged as usual
        }
        let total = usize::from(self.handicap_total);
        if black.len() > total {
            return false; // judged as usual: the extra black stone is out of turn
        }
        if black.len() == total {
            let setup: Vec<(Color, Point)> = black.iter().map(|&p| (Color::Black, p)).collect();
            let Ok(game) = Game::with_setup(self.size(), &setup, Color::White) else {
                return false;
            };
            self.game = game;
            self.record.setup = setup;
            self.record.info.handicap = self.handicap_total;
            self.record.player_to_move = Some(Color::White);
            self.handicap_left = 0;
            self.handicap_placed.clear();
            self.events.push_back(EventKind::HandicapPlaced {
                points: black.iter().map(|&p| p.to_gtp(self.size())).collect(),
            });
            // White's first move, if already down, is judged as usual
            return white.is_empty();
        }
        self.handicap_left = (total - black.len()) as u8;
        self.handicap_placed = black.clone();
        if let [w] = white[..] {
            // White moved before Black placed all its handicap stones: too few (the stone is
            // invalid until the handicap is complete).
            let detail = format!(
                "white played {} while black had placed only {} of its {} handicap stones",
                self.gtp(w),
                black.len(),
                self.handicap_total
            );
            let fix = BoardDiff {
                restore: Vec::new(),
                remove: vec![w],
            };
            self.flag_once(
                ViolationCode::TwoMovesInARow,
                Color::White,
                vec![w],
                detail,
                grid,
                fix,
            );
        }
        true
    }

    // ---- presses and commands ------------------------------------------------------------------

    /// A pass (G2: an explicit act, never inferred from silence) at board time `at_ms`. Two
    /// passes in a row enter scoring (R21.1).
    pub fn on_pass(&mut self, color: Color, at_ms: u64) {
        if matches!(self.phase, Phase::Finished | Phase::Paused) {
            return;
        }
        if self.ambiguous.is_some() {
            self.stats.ignored_passes += 1;
            return;
        }
        let out_of_turn = color != self.game.to_move();
        if out_of_turn && self.config.policy == Policy::Rules {
            // A pass is no move of the side not to move: nothing to record.
            self.stats.ignored_passes += 1;
            return;
        }
        self.commit_last();
        let before = self.last_grid.clone();
        self.record_pass(color, at_ms);
        if out_of_turn {
            let grid = before.unwrap_or_else(|| StoneGrid::from_board(self.game.board()));
            self.flag(
                ViolationCode::TwoMovesInARow,
                color,
                Vec::new(),
                format!("{} passed when it was not its turn", color.as_str()),
                &grid,
                BoardDiff::default(),
            );
        }
        if let Some(last) = &mut self.last {
            last.committed = true;
        }
        // R21.1: both sides passed one after the other (two passes by one side are not it)
        let both_passed = match self.record.moves.as_slice() {
            [.., a, b] => a.point.is_none() && b.point.is_none() && a.color != b.color,
            _ => false,
        };
        if both_passed && matches!(self.phase, Phase::Play) {
            self.phase = Phase::Scoring;
            self.resume_phase = Phase::Scoring;
            self.dead_lifted.clear();
            self.push_phase();
            self.propose_count();
        }
    }

    /// `color` presses its clock button at board time `at_ms` (R17.4, R22.6). A press commits
    /// the move just made; a press before the stone (or while placing it), or with captured
    /// stones still on the board, is a warning — the press stands, the clock reading is not
    /// corrected. A press without any stone is a warning and leaves the clock with the
    /// presser, whose turn it still is. A press by the side whose turn it is not is ignored.
    ///
    /// Returns [`PressOutcome::Switch`] with the move the press commits when the clock is to
    /// switch to the other side.
    pub fn on_clock(&mut self, color: Color, at_ms: u64) -> PressOutcome {
        if matches!(self.phase, Phase::Finished | Phase::Paused | Phase::Setup) {
            self.stats.ignored_presses += 1;
            return PressOutcome::Stay;
        }
        if self.ambiguous.is_some() || self.phase == Phase::Desync {
            // nothing to judge a press against (the board held for the referee is not in the
            // record yet; or the board is out of step with the record, e.g. moves made while
            // the board or the service was away that no order explains): the press stands as
            // the players made it (R17.6: the board is put right first)
            return PressOutcome::Stands;
        }
        let grid = self
            .last_grid
            .clone()
            .unwrap_or_else(|| StoneGrid::from_board(self.game.board()));
        // The press belongs to the presser's last move not yet pressed, even if the opponent
        // has answered since (a quick reply, or one on the same settled board).
        // without a clock, moves answered before this press are past pressing for
        let timed = self.timed;
        let owed = &mut self.unpressed[side(color)];
        owed.retain(|u| timed || u.answered_at.is_none_or(|t| at_ms < t));
        // the newest move already down when pressed (older ones lost their press, e.g. while
        // the board was away), else the oldest still coming (a press before its stone)
        let pick = owed
            .iter()
            .rposition(|u| u.placed_at <= at_ms)
            .or((!owed.is_empty()).then_some(0));
        let for_move = pick.map(|i| {
            let u = owed[i];
            owed.drain(..=i);
            u
        });
        if let Some(u) = for_move {
            let (placed_at, point) = (u.placed_at, u.point);
            if let Some(l) = self.last.as_mut().filter(|l| l.color == color) {
                l.pressed = true;
                l.committed = true;
            }
            let outcome = PressOutcome::Switch {
                move_number: u.number,
            };
            let pending_now = self.last.as_ref().is_some_and(|l| l.color == color);
            if point.is_some() && at_ms < placed_at {
                let detail = format!(
                    "{} pressed the clock {} ms before its stone was down",
                    color.as_str(),
                    placed_at - at_ms
                );
                self.flag(
                    ViolationCode::ClockBeforeStone,
                    color,
                    point.into_iter().collect(),
                    detail,
                    &grid,
                    BoardDiff::default(),
                );
            } else if pending_now && self.pending.iter().any(|&(_, v)| v == color.opposite()) {
                let points = self
                    .pending
                    .iter()
                    .filter(|&&(_, v)| v == color.opposite())
                    .map(|&(p, _)| p)
                    .collect();
                let detail = format!(
                    "{} pressed the clock with captured stones still on the board: lift them",
                    color.as_str()
                );
                self.flag(
                    ViolationCode::ClockBeforeCaptures,
                    color,
                    points,
                    detail,
                    &grid,
                    BoardDiff::default(),
                );
            }
            return outcome;
        }
        if color == self.game.to_move() {
            // A stone of the presser's colour stacked on an occupied point looks like this
            // (C5/O13); otherwise the clock was pressed before any stone (R17.4).
            if let Some(p) = self.stacked_stone(color) {
                let detail = format!(
                    "{} put a stone on {}, which already holds a stone: counts as a pass",
                    color.as_str(),
                    self.gtp(p)
                );
                self.commit_last();
                self.record_pass(color, at_ms);
                self.unpressed[side(color)].pop(); // this press is its press
                if let Some(l) = &mut self.last {
                    l.pressed = true;
                    l.committed = true;
                }
                // the stacked stone comes off: the point shows its own stone again
                let fix = BoardDiff {
                    restore: self
                        .game
                        .board()
                        .get(p)
                        .map(|own| vec![(p, own)])
                        .unwrap_or_default(),
                    remove: Vec::new(),
                };
                self.flag(
                    ViolationCode::OccupiedPoint,
                    color,
                    vec![p],
                    detail,
                    &grid,
                    fix,
                );
            } else {
                let detail = format!(
                    "{} pressed the clock without playing a stone",
                    color.as_str()
                );
                self.flag(
                    ViolationCode::ClockBeforeStone,
                    color,
                    Vec::new(),
                    detail,
                    &grid,
                    BoardDiff::default(),
                );
                return PressOutcome::Stay;
            }
            return PressOutcome::Switch {
                move_number: self.game.move_number(),
            };
        }
        self.stats.ignored_presses += 1;
        PressOutcome::Stay
    }

    /// Whether a press by `color` at board time `at_ms` has a move of its own to commit now
    /// (else it may be for a stone still going down: R17.4).
    pub fn owes_press(&self, color: Color, at_ms: u64) -> bool {
        self.unpressed[side(color)]
            .iter()
            .any(|u| self.timed || u.answered_at.is_none_or(|t| at_ms < t))
            || (color == self.game.to_move() && self.stacked_stone(color).is_some())
    }

    /// A stone of `color` read on a point that holds the other colour: stacked on it
    /// (C5/O13), or a misread.
    fn stacked_stone(&self, color: Color) -> Option<Point> {
        self.anomalies
            .iter()
            .copied()
            .find(|&p| self.last_grid.as_ref().and_then(|g| g.get(p)) == Some(color))
    }

    /// Whether a game clock is in use (presses come only from the side whose time runs).
    pub fn set_timed(&mut self, timed: bool) {
        self.timed = timed;
    }

    /// `color`'s last move (a pass) switched the clock by itself: no press is owed for it.
    pub fn pass_pressed(&mut self, color: Color) {
        let owed = &mut self.unpressed[side(color)];
        if owed.last().is_some_and(|u| u.point.is_none()) {
            owed.pop();
        }
    }

    /// The clock's reading for move `number` (1-based, moves and passes) at the press that
    /// committed it: `time_left_ms` in main time or the current period, `periods` left in
    /// overtime (SGF `BL`/`WL`, `OB`/`OW`). Unknown numbers are ignored.
    pub fn set_move_time(&mut self, number: u32, time_left_ms: u64, periods: Option<u32>) {
        if let Some(m) = number
            .checked_sub(1)
            .and_then(|i| self.record.moves.get_mut(i as usize))
        {
            m.time_left_ms = Some(time_left_ms);
            m.periods_left = periods;
        }
    }

    /// `color`'s time ran out at board time `at_ms` (R22.5, O14.5): `time_expired`, ruled by
    /// `ruling`: the game is lost; or (R22.5, on the counted player's request) the turn counts
    /// as a pass with a warning and the game goes on; or the referee decides
    /// ([`Referee::rule_time_up`]) while the violation stays open.
    pub fn on_time_expired(&mut self, color: Color, at_ms: u64, ruling: FlagRuling) {
        if matches!(self.phase, Phase::Finished) {
            return;
        }
        let grid = self
            .last_grid
            .clone()
            .unwrap_or_else(|| StoneGrid::from_board(self.game.board()));
        if ruling == FlagRuling::AskReferee {
            let detail = format!(
                "{}'s time is up: the referee rules a loss, or a pass with a warning (R22.5)",
                color.as_str()
            );
            let sanction = Sanction {
                penalty: Penalty::Referee,
                warning: false,
            };
            self.flag_sanctioned(
                ViolationCode::TimeExpired,
                sanction,
                color,
                Vec::new(),
                detail,
                &grid,
                BoardDiff::default(),
            );
            return;
        }
        if ruling == FlagRuling::Pass && self.game.to_move() == color {
            self.commit_last();
            self.record_pass(color, at_ms);
            let detail = format!(
                "{}'s time is up in the last counted unit: the turn counts as a pass with a warning, counting goes on",
                color.as_str()
            );
            let sanction = Sanction {
                penalty: Penalty::MoveInvalid,
                warning: true,
            };
            self.flag_sanctioned(
                ViolationCode::TimeExpired,
                sanction,
                color,
                Vec::new(),
                detail,
                &grid,
                BoardDiff::default(),
            );
            let id = self.violations.len() as u32;
            self.close(id, "counted_as_pass");
        } else {
            let detail = if self.config.policy == Policy::AcceptAsPlayed {
                format!(
                    "{}'s time is up (noted; every act stands as played)",
                    color.as_str()
                )
            } else {
                format!("{}'s time is up: the game is lost", color.as_str())
            };
            self.flag(
                ViolationCode::TimeExpired,
                color,
                Vec::new(),
                detail,
                &grid,
                BoardDiff::default(),
            );
        }
    }

    /// The referee rules on a flag fall left to it (R22.5): a pass with a warning (`as_pass`)
    /// or the loss. Returns the side whose time was up.
    ///
    /// # Errors
    /// [`CommandError::NoViolation`] when no flag fall waits for a ruling.
    pub fn rule_time_up(&mut self, as_pass: bool, at_ms: u64) -> Result<Color, CommandError> {
        let Some(v) = self
            .violations
            .iter()
            .find(|v| v.open && v.code == ViolationCode::TimeExpired)
            .cloned()
        else {
            return Err(CommandError::NoViolation(0));
        };
        if as_pass {
            self.close(v.id, "counted_as_pass");
            if self.game.to_move() == v.color {
                self.commit_last();
                self.record_pass(v.color, at_ms);
            }
            self.note_on_last(&format!(
                "{} ({}): time up, counted as a pass with a warning by the referee",
                v.code.as_str(),
                v.clause
            ));
            self.give_warning(v.color);
        } else {
            self.close(v.id, "loss");
            self.finish(GameResult {
                winner: Some(v.color.opposite()),
                reason: "time",
                re: format!("{}+T", v.color.opposite().sgf_letter()),
            });
        }
        Ok(v.color)
    }

    /// `loser` resigns (G7): the game is over.
    pub fn on_resign(&mut self, loser: Color) {
        if self.phase == Phase::Finished {
            return;
        }
        self.finish(GameResult {
            winner: Some(loser.opposite()),
            reason: "resignation",
            re: result::resignation_re(loser),
        });
    }

    /// The referee (or the tournament director) enters the result: `re` as SGF writes it.
    pub fn set_result(&mut self, re: &str) {
        self.finish(GameResult {
            winner: result::winner_from_re(re),
            reason: "referee",
            re: re.trim().to_string(),
        });
    }

    /// The referee decides the game (R17.5, R17.6, R20.3).
    pub fn adjudicate(&mut self, decision: Adjudication) {
        let (winner, re) = match decision {
            Adjudication::Win(c) => (Some(c), format!("{}+F", c.sgf_letter())),
            Adjudication::Draw => (None, "0".to_string()),
            Adjudication::BothLose => (None, "Void".to_string()),
            Adjudication::Replay => (None, "Void".to_string()),
            Adjudication::NoResult => (None, "?".to_string()),
        };
        self.finish(GameResult {
            winner,
            reason: "referee",
            re,
        });
    }

    /// A warning given by the referee (R24.1); a second one loses the game (R24.2).
    pub fn warn(&mut self, color: Color, reason: &str) -> Result<(), CommandError> {
        if self.phase == Phase::Finished {
            return Err(CommandError::WrongPhase(self.phase.as_str()));
        }
        let reason = reason.trim();
        self.note_on_last(&format!(
            "warning to {} by the referee (R24): {reason}",
            color.as_str()
        ));
        self.give_warning_for(color, Some(reason.to_string()));
        Ok(())
    }

    /// Pauses play (the referee): boards are not judged until [`Referee::resume`].
    pub fn pause(&mut self) -> Result<(), CommandError> {
        if matches!(self.phase, Phase::Finished | Phase::Paused) {
            return Err(CommandError::WrongPhase(self.phase.as_str()));
        }
        self.resume_phase = self.phase;
        self.phase = Phase::Paused;
        self.push_phase();
        Ok(())
    }

    /// Resumes play; a sealed move (C5) is played first — as a pass if its point is occupied
    /// (O13). The board as it lies is then judged.
    pub fn resume(&mut self) -> Result<(), CommandError> {
        if self.phase != Phase::Paused {
            return Err(CommandError::WrongPhase(self.phase.as_str()));
        }
        self.phase = self.resume_phase;
        self.push_phase();
        let sealed_move = self.sealed.is_some();
        if let Some(sealed) = self.sealed.take() {
            let occupied = sealed.point.is_none_or(|p| {
                self.game.board().get(p).is_some() || self.game.preview(sealed.color, p).is_err()
            });
            self.commit_last();
            if occupied {
                self.record_pass(sealed.color, self.now_ms);
            } else if let Some(p) = sealed.point {
                if let Ok(outcome) = self.game.play(sealed.color, Some(p)) {
                    self.record
                        .moves
                        .push(RecordedMove::new(sealed.color, Some(p)));
                    self.events.push_back(EventKind::Move {
                        color: sealed.color,
                        point: self.gtp(p),
                        sgf: p.to_sgf(),
                        number: outcome.number,
                        captured: outcome.captured.iter().map(|&c| self.gtp(c)).collect(),
                    });
                    self.last = Some(LastMove {
                        color: sealed.color,
                        point: Some(p),
                        placed_at: self.now_ms,
                        recorded_at: self.now_ms,
                        pending_before: self.pending.clone(),
                        committed: true,
                        pressed: true,
                    });
                }
            }
        }
        if let (Some(grid), false) = (self.last_grid.clone(), sealed_move) {
            self.flag_played_while_paused(&grid);
        }
        self.rejudge_last_board();
        Ok(())
    }

    /// Stones that went down while the clock was stopped (R22.8) are no moves until the
    /// referee accepts them: flagged, set aside (their fix is to lift them).
    fn flag_played_while_paused(&mut self, grid: &StoneGrid) {
        let steps = match explain(&self.game, &self.pending, grid) {
            Verdict::Moves { steps, .. } => steps,
            Verdict::OutOfTurn { step, .. } => vec![step],
            Verdict::Illegal { color, point, .. } => vec![Step {
                color,
                point,
                captured: Vec::new(),
                hidden: false,
            }],
            _ => return,
        };
        let points: Vec<Point> = steps.iter().map(|s| s.point).collect();
        let detail = format!(
            "{} played {} while the clock was stopped: it counts once the referee accepts it",
            steps[0].color.as_str(),
            points
                .iter()
                .map(|&p| self.gtp(p))
                .collect::<Vec<_>>()
                .join(" ")
        );
        let fix = BoardDiff {
            restore: Vec::new(),
            remove: points.clone(),
        };
        self.flag(
            ViolationCode::PlayedWhilePaused,
            steps[0].color,
            points,
            detail,
            grid,
            fix,
        );
    }

    /// Adjournment (C5): `sealed` is kept secret and play pauses; it is played on
    /// [`Referee::resume`].
    pub fn seal_move(&mut self, sealed: SealedMove) -> Result<(), CommandError> {
        if let Some(p) = sealed.point {
            if p.x >= self.size() || p.y >= self.size() {
                return Err(CommandError::BadPoint(p.to_sgf()));
            }
        }
        self.pause()?;
        self.sealed = Some(sealed);
        Ok(())
    }

    /// R17.1: the players took the wrong colours; up to move 10 the referee swaps the players
    /// (the stones stay where they are).
    pub fn swap_colors(&mut self) -> Result<(), CommandError> {
        let n = self.game.move_number();
        if n > 10 {
            return Err(CommandError::TooLateToSwap(n));
        }
        let info = &mut self.record.info;
        std::mem::swap(&mut info.black, &mut info.white);
        std::mem::swap(&mut info.black_rank, &mut info.white_rank);
        let ids: Vec<u32> = self
            .violations
            .iter()
            .filter(|v| v.open && v.code == ViolationCode::WrongColors)
            .map(|v| v.id)
            .collect();
        for id in ids {
            self.close(id, "colors_swapped");
        }
        Ok(())
    }

    /// The referee settles violation `id`.
    pub fn resolve(&mut self, id: u32, ruling: Ruling) -> Result<(), CommandError> {
        let Some(v) = self
            .violations
            .iter()
            .find(|v| v.id == id && v.open)
            .cloned()
        else {
            return Err(CommandError::NoViolation(id));
        };
        match ruling {
            Ruling::PutBack => {
                if v.needs_board_fix {
                    // stays open until the board is put back
                    self.events.push_back(EventKind::ViolationResolved {
                        id,
                        how: "put_back_ordered".into(),
                    });
                } else {
                    self.close(id, "put_back");
                }
                Ok(())
            }
            Ruling::AcceptAsPlayed => match v.code {
                ViolationCode::TwoMovesInARow if v.needs_board_fix => {
                    let (Some(&point), Some(grid)) = (v.points.first(), self.last_grid.clone()) else {
                        return Err(CommandError::CannotAccept(id, "the stone is no longer on the board".into()));
                    };
                    if grid.get(point) != Some(v.color) {
                        return Err(CommandError::CannotAccept(id, "the stone is no longer on the board".into()));
                    }
                    let Ok(preview) = self.game.preview(v.color, point) else {
                        return Err(CommandError::CannotAccept(id, "the stone is illegal there".into()));
                    };
                    let step = Step {
                        color: v.color,
                        point,
                        captured: preview.captured,
                        hidden: false,
                    };
                    let at = self.now_ms;
                    let changed = vec![at; grid.iter().count()];
                    let obs = Observation {
                        grid: &grid,
                        at_ms: at,
                        changed_at: &changed,
                    };
                    self.record_steps(std::slice::from_ref(&step), obs);
                    self.note_on_last(&format!("{} ({}): accepted as played by the referee", v.code.as_str(), v.clause));
                    self.close(id, "accepted");
                    self.on_board(obs);
                    Ok(())
                }
                ViolationCode::Takeback => self.accept_takeback(&v),
                ViolationCode::PlayedWhilePaused => {
                    // the stones are judged as played now
                    self.close(id, "accepted");
                    self.rejudge_last_board();
                    Ok(())
                }
                ViolationCode::MovedStone | ViolationCode::BoardDisturbed => {
                    Err(CommandError::CannotAccept(
                        id,
                        "the record keeps the stones where they were played; put the stones back or adjudicate".into(),
                    ))
                }
                _ => {
                    self.close(id, "accepted");
                    Ok(())
                }
            },
        }
    }

    /// R17.3 ruling: the referee lets a takeback stand. The taken-back move (the last one)
    /// leaves the record (`move_undone`; the clock gives back its time), the violation's
    /// warning stays, and the board as it stands is judged again (a stone played elsewhere
    /// becomes the move).
    fn accept_takeback(&mut self, v: &Violation) -> Result<(), CommandError> {
        let is_last = self.last.as_ref().is_some_and(|l| {
            l.color == v.color && l.point.is_some() && l.point == v.points.first().copied()
        });
        if !is_last {
            return Err(CommandError::CannotAccept(
                v.id,
                "only the last move can be taken back; put the stone back or adjudicate".into(),
            ));
        }
        self.undo_last();
        self.note_at(
            self.record.moves.len().saturating_sub(1),
            &format!(
                "{} ({}): a move was taken back with the referee's leave",
                v.code.as_str(),
                v.clause
            ),
        );
        self.close(v.id, "accepted");
        self.rejudge_last_board();
        Ok(())
    }

    /// Judges the last settled board again after a ruling changed the record (every point
    /// dated now: a ruling is no clock fault of anyone's).
    fn rejudge_last_board(&mut self) {
        if let Some(grid) = self.last_grid.clone() {
            let at = self.now_ms;
            let changed = vec![at; grid.iter().count()];
            self.on_board(Observation {
                grid: &grid,
                at_ms: at,
                changed_at: &changed,
            });
        }
    }

    /// The referee picks explanation `index` of an ambiguous board.
    pub fn choose(&mut self, index: usize) -> Result<(), CommandError> {
        let Some(amb) = self.ambiguous.take() else {
            return Err(CommandError::NoCandidate(index));
        };
        let Some(candidate) = amb.candidates.get(index).cloned() else {
            self.ambiguous = Some(amb);
            return Err(CommandError::NoCandidate(index));
        };
        let at = self.now_ms;
        let changed = vec![at; amb.grid.iter().count()];
        let obs = Observation {
            grid: &amb.grid,
            at_ms: at,
            changed_at: &changed,
        };
        if candidate.out_of_turn {
            // the side to move passed (explicitly ruled by the referee), then the stone
            self.commit_last();
            let passer = candidate.steps[0].color.opposite();
            self.record_pass(passer, at);
        }
        self.record_steps(&candidate.steps, obs);
        self.on_board(obs);
        Ok(())
    }

    /// The referee corrects move `number` (1-based) to `point` (`None`: a pass): the record's
    /// main line is replaced and replayed; refused if a later move becomes illegal.
    pub fn correct_move(&mut self, number: u32, point: Option<Point>) -> Result<(), CommandError> {
        let i = number.checked_sub(1).map(|i| i as usize);
        let Some(i) = i.filter(|&i| i < self.record.moves.len()) else {
            return Err(CommandError::NoSuchMove(number));
        };
        let mut moves = self.record.moves.clone();
        moves[i].point = point;
        let mut game =
            Game::with_setup(self.size(), &self.record.setup, self.record.first_to_move())
                .map_err(|e| CommandError::CorrectionBreaks {
                    number,
                    why: e.to_string(),
                })?;
        for (k, m) in moves.iter().enumerate() {
            game.play(m.color, m.point)
                .map_err(|e| CommandError::CorrectionBreaks {
                    number: k as u32 + 1,
                    why: e.to_string(),
                })?;
        }
        let color = moves[i].color;
        self.record.moves = moves;
        self.game = game;
        self.pending.clear();
        self.last = None;
        self.events.push_back(EventKind::MoveCorrected {
            number,
            color,
            point: point.map(|p| self.gtp(p)),
        });
        self.note_at(i, "corrected by the referee");
        if let Some(grid) = self.last_grid.clone() {
            self.refresh_guidance(&grid);
        }
        Ok(())
    }

    // ---- scoring (R21) -------------------------------------------------------------------------

    /// In scoring, players lift dead stones: missing stones are not a capture error. A new
    /// stone resumes play (R21.4): the stones lifted as dead go back on the board, and the move
    /// is recorded. Returns whether the board was dealt with here.
    fn scoring_board(&mut self, obs: Observation<'_>) -> bool {
        let board = self.game.board();
        let mut lifted = Vec::new();
        let mut added = false;
        for (p, sensed) in obs.grid.iter() {
            match (board.get(p), sensed) {
                (Some(_), None) => lifted.push(p),
                (a, Some(b)) if a != Some(b) => added = true,
                _ => {}
            }
        }
        if !added {
            if self.dead_lifted != lifted {
                self.dead_lifted = lifted;
                self.propose_count();
            }
            return true;
        }
        self.dead_lifted.clear();
        self.proposal = None;
        self.phase = Phase::Play;
        self.resume_phase = Phase::Play;
        self.push_phase();
        // The new stone with its own captures lifted, as on any board…
        let verdict = explain(&self.game, &self.pending, obs.grid);
        if self.apply_verdict(verdict, obs) {
            return true;
        }
        // …or with the stones lifted as dead still to go back.
        let masked = self.masked_grid(obs.grid, &lifted, &[]);
        let verdict = explain(&self.game, &self.pending, &masked);
        let masked_obs = Observation {
            grid: &masked,
            ..obs
        };
        self.apply_verdict(verdict, masked_obs)
    }

    /// The dead stones proposed at the end and the count without them (G8, G9, C2, R21.2,
    /// R24.1): the stones the players lifted, plus those the playouts find dead among the rest.
    fn propose_count(&mut self) {
        let board = self.game.board();
        let mut left = board.clone();
        for &p in &self.dead_lifted {
            left.put(p, None);
        }
        let mut dead = self.dead_lifted.clone();
        dead.extend(propose_dead(&left, board.hash(), DEFAULT_PLAYOUTS));
        dead.sort_by_key(|p| (p.y, p.x));
        dead.dedup();
        let count = area_count(board, &dead);
        let komi = self.record.info.komi.unwrap_or(0.0);
        let result = chinese_result(&count, board.size(), komi, self.warnings);
        self.events.push_back(EventKind::Count {
            dead: dead.iter().map(|&p| self.gtp(p)).collect(),
            black_points: result.black_points,
            white_points: result.white_points,
            margin_stones: result.margin_stones,
            re: result.re.clone(),
        });
        self.proposal = Some((dead, result));
    }

    /// The stones the count takes for dead, while scoring.
    pub fn proposed_dead(&self) -> &[Point] {
        self.proposal.as_ref().map_or(&[], |(d, _)| d.as_slice())
    }

    /// Both players (or the referee) confirm the count (R21.1, R21.3): the game ends with the
    /// area result. `dead`: the dead stones as agreed, or `None` for the proposal.
    pub fn confirm_count(&mut self, dead: Option<Vec<Point>>) -> Result<(), CommandError> {
        if self.phase != Phase::Scoring {
            return Err(CommandError::WrongPhase(self.phase.as_str()));
        }
        if let Some(dead) = dead {
            let board = self.game.board();
            if let Some(p) = dead.iter().find(|p| board.get(**p).is_none()) {
                return Err(CommandError::BadPoint(p.to_gtp(self.size())));
            }
            let count = area_count(board, &dead);
            let komi = self.record.info.komi.unwrap_or(0.0);
            let result = chinese_result(&count, board.size(), komi, self.warnings);
            self.proposal = Some((dead, result));
        }
        let Some((_, result)) = self.proposal.clone() else {
            return Err(CommandError::WrongPhase("scoring"));
        };
        self.record.info.result = Some(result.re.clone());
        self.events.push_back(EventKind::Result {
            winner: result.winner,
            reason: "count",
            black_points: Some(result.black_points),
            white_points: Some(result.white_points),
            margin_stones: Some(result.margin_stones),
            re: result.re.clone(),
        });
        self.result = Some(GameResult {
            winner: result.winner,
            reason: "count",
            re: result.re,
        });
        self.phase = Phase::Finished;
        self.guidance = BoardDiff::default();
        self.push_phase();
        Ok(())
    }

    // ---- bookkeeping -----------------------------------------------------------------------------

    fn commit_last(&mut self) {
        if let Some(l) = &mut self.last {
            l.committed = true;
        }
    }

    fn finish(&mut self, result: GameResult) {
        self.record.info.result = Some(result.re.clone());
        self.events.push_back(EventKind::Result {
            winner: result.winner,
            reason: result.reason,
            black_points: None,
            white_points: None,
            margin_stones: None,
            re: result.re.clone(),
        });
        self.result = Some(result);
        self.ambiguous = None;
        if self.phase != Phase::Finished {
            self.phase = Phase::Finished;
            self.guidance = BoardDiff::default();
            self.push_phase();
        }
    }

    /// Records a pass of `color` (a pass button, or an invalid move that counts as one).
    /// `color`'s move `number` (placed at `placed_at`) now waits for its press; the
    /// opponent's moves waiting for theirs are answered.
    fn owe_press(&mut self, color: Color, number: u32, placed_at: u64, point: Option<Point>) {
        for u in &mut self.unpressed[side(color.opposite())] {
            u.answered_at.get_or_insert(placed_at);
        }
        self.unpressed[side(color)].push(Unpressed {
            number,
            placed_at,
            point,
            answered_at: None,
        });
    }

    fn record_pass(&mut self, color: Color, at_ms: u64) {
        let outcome = self.game.pass(color);
        self.owe_press(color, outcome.number, at_ms, None);
        self.record.moves.push(RecordedMove::new(color, None));
        self.events.push_back(EventKind::Pass {
            color,
            number: outcome.number,
        });
        self.last = Some(LastMove {
            color,
            point: None,
            placed_at: at_ms,
            recorded_at: at_ms,
            pending_before: self.pending.clone(),
            committed: true,
            pressed: false,
        });
    }

    fn apply_tally(&mut self, tally: CaptureTally, fresh: &[Point]) {
        if !tally.lifted.is_empty() {
            let points = tally.lifted.iter().map(|&p| self.gtp(p)).collect();
            self.events.push_back(EventKind::CapturesRemoved { points });
        }
        let fresh_pending: Vec<String> = tally
            .still_pending
            .iter()
            .filter(|(p, _)| fresh.contains(p))
            .map(|&(p, _)| self.gtp(p))
            .collect();
        if !fresh_pending.is_empty() {
            self.events.push_back(EventKind::CapturesPending {
                points: fresh_pending,
            });
        }
        self.pending = tally.still_pending;
        // R18.2, R22.6: put right once the captured stones they name are off the board.
        let ids: Vec<u32> = self
            .violations
            .iter()
            .filter(|v| {
                v.open
                    && matches!(
                        v.code,
                        ViolationCode::MissedCapture | ViolationCode::ClockBeforeCaptures
                    )
                    && !v
                        .points
                        .iter()
                        .any(|p| self.pending.iter().any(|(q, _)| q == p))
            })
            .map(|v| v.id)
            .collect();
        for id in ids {
            self.close(id, "captures_removed");
        }
    }

    /// The physical fixes still owed by open violations, applied to `grid`: the board as it
    /// will be once put right. A fix that no longer matches the record (the stone was since
    /// captured, the point since played) is moot and skipped.
    fn apply_fixes(&self, grid: &StoneGrid) -> StoneGrid {
        let mut g = grid.clone();
        let board = self.game.board();
        for v in self.violations.iter().filter(|v| v.open) {
            for &(p, c) in &v.fix.restore {
                if board.get(p) == Some(c) {
                    g.set(p, Some(c));
                }
            }
            for &p in &v.fix.remove {
                if board.get(p).is_none() {
                    g.set(p, None);
                }
            }
        }
        g
    }

    /// Closes the open violations whose fix the board now shows (or that became moot).
    fn settle_fixes(&mut self, grid: &StoneGrid) {
        let board = self.game.board();
        let done: Vec<u32> = self
            .violations
            .iter()
            .filter(|v| v.open && !v.fix.is_empty())
            .filter(|v| {
                v.fix
                    .restore
                    .iter()
                    .all(|&(p, c)| grid.get(p) == Some(c) || board.get(p) != Some(c))
                    && v.fix
                        .remove
                        .iter()
                        .all(|&p| grid.get(p).is_none() || board.get(p).is_some())
            })
            .map(|v| v.id)
            .collect();
        for id in done {
            self.close(id, "board_restored");
        }
    }

    /// What the board must change to match the record, and the phase that follows: `setup`
    /// until the starting position (or the free handicap) is down, `desync` while anything is
    /// to fix, else play (or scoring). Captured stones being lifted, stones lifted as dead in
    /// scoring and sensor anomalies are no desync.
    fn refresh_guidance(&mut self, actual: &StoneGrid) {
        if matches!(self.phase, Phase::Finished | Phase::Paused) {
            return;
        }
        let mut diff = BoardDiff::between(self.game.board(), actual);
        let flagged: Vec<Point> = self
            .violations
            .iter()
            .filter(|v| {
                v.open
                    && matches!(
                        v.code,
                        ViolationCode::MissedCapture | ViolationCode::ClockBeforeCaptures
                    )
            })
            .flat_map(|v| v.points.iter().copied())
            .collect();
        diff.remove.retain(|p| {
            let captured_being_lifted =
                self.pending.iter().any(|(q, _)| q == p) && !flagged.contains(p);
            !captured_being_lifted && !self.handicap_placed.contains(p)
        });
        diff.restore
            .retain(|(p, _)| !self.anomalies.contains(p) && !self.dead_lifted.contains(p));
        // Stones held for the referee's choice are neither to lift nor to put back until the
        // choice is made.
        if let Some(a) = &self.ambiguous {
            let steps = || a.candidates.iter().flat_map(|c| c.steps.iter());
            diff.remove.retain(|p| !steps().any(|s| s.point == *p));
            diff.restore
                .retain(|(p, _)| !steps().any(|s| s.captured.contains(p)));
        }
        let phase = match self.phase {
            Phase::Setup if diff.is_empty() && self.handicap_left == 0 => Phase::Play,
            Phase::Setup => Phase::Setup,
            Phase::Desync if diff.is_empty() => self.resume_phase,
            Phase::Desync => Phase::Desync,
            other if diff.is_empty() => other,
            other => {
                self.resume_phase = other;
                Phase::Desync
            }
        };
        if phase != self.phase || diff != self.guidance {
            self.phase = phase;
            self.guidance = diff;
            self.push_phase();
        }
    }

    fn close(&mut self, id: u32, how: &str) {
        if let Some(v) = self.violations.iter_mut().find(|v| v.id == id && v.open) {
            v.open = false;
            self.events.push_back(EventKind::ViolationResolved {
                id,
                how: how.to_string(),
            });
        }
    }

    fn has_open(&self, code: ViolationCode) -> bool {
        self.violations.iter().any(|v| v.open && v.code == code)
    }

    fn push_phase(&mut self) {
        let size = self.size();
        self.events.push_back(EventKind::Phase {
            phase: self.phase,
            restore: self
                .guidance
                .restore
                .iter()
                .map(|&(p, color)| PointColor {
                    point: p.to_gtp(size),
                    color,
                })
                .collect(),
            remove: self
                .guidance
                .remove
                .iter()
                .map(|&p| p.to_gtp(size))
                .collect(),
        });
    }

    fn give_warning(&mut self, color: Color) {
        self.give_warning_for(color, None);
    }

    fn give_warning_for(&mut self, color: Color, reason: Option<String>) {
        let i = color.index();
        self.warnings[i] += 1;
        let count = self.warnings[i];
        self.events.push_back(EventKind::Warning {
            color,
            count,
            reason,
        });
        if count >= 2 {
            let grid = self
                .last_grid
                .clone()
                .unwrap_or_else(|| StoneGrid::from_board(self.game.board()));
            self.flag(
                ViolationCode::TwoWarningsLoss,
                color,
                Vec::new(),
                format!("{} has two warnings in this game", color.as_str()),
                &grid,
                BoardDiff::default(),
            );
        }
    }

    /// Flags `code` unless the same violation (code and points) is open already.
    fn flag_once(
        &mut self,
        code: ViolationCode,
        color: Color,
        points: Vec<Point>,
        detail: String,
        grid: &StoneGrid,
        fix: BoardDiff,
    ) {
        if self
            .violations
            .iter()
            .any(|v| v.open && v.code == code && v.points == points)
        {
            return;
        }
        self.flag(code, color, points, detail, grid, fix);
    }

    fn note_on_last(&mut self, note: &str) {
        if let Some(i) = self.record.moves.len().checked_sub(1) {
            self.note_at(i, note);
        }
    }

    fn note_at(&mut self, i: usize, note: &str) {
        if let Some(m) = self.record.moves.get_mut(i) {
            match &mut m.comment {
                Some(c) => {
                    c.push('\n');
                    c.push_str(note);
                }
                None => m.comment = Some(note.to_string()),
            }
        }
    }

    /// Raises a violation with evidence, applies its sanction under the profile and policy,
    /// and notes it on the move it concerns. `fix`: what the board must change back; the
    /// violation stays open until it has (then it closes as `board_restored`).
    fn flag(
        &mut self,
        code: ViolationCode,
        color: Color,
        points: Vec<Point>,
        detail: String,
        after: &StoneGrid,
        fix: BoardDiff,
    ) {
        let sanction = self.config.profile.sanction(code);
        self.flag_sanctioned(code, sanction, color, points, detail, after, fix);
    }

    /// [`Referee::flag`] with a sanction other than the profile's (R22.5's pass instead of
    /// the loss).
    #[allow(clippy::too_many_arguments)]
    fn flag_sanctioned(
        &mut self,
        code: ViolationCode,
        sanction: Sanction,
        color: Color,
        points: Vec<Point>,
        detail: String,
        after: &StoneGrid,
        fix: BoardDiff,
    ) {
        if self.phase == Phase::Finished {
            return; // R21.3: nothing after the end
        }
        let needs_board_fix = !fix.is_empty();
        let id = self.violations.len() as u32 + 1;
        let move_number = self.game.move_number();
        let clause = self.config.profile.clause(code);
        let accepted = self.config.policy == Policy::AcceptAsPlayed;
        let note = format!("{} ({}): {}", code.as_str(), clause, detail);
        self.note_on_last(&note);
        self.events.push_back(EventKind::Violation {
            id,
            code: code.as_str(),
            clause,
            color,
            points: points.iter().map(|&p| self.gtp(p)).collect(),
            penalty: sanction.penalty.as_str(),
            detail: detail.clone(),
            evidence: Evidence {
                before: self.game.board().rows(),
                after: after.rows(),
                move_number,
                clock: None, // the session adds the clocks
            },
        });
        self.violations.push(Violation {
            id,
            code,
            clause,
            color,
            points,
            penalty: sanction.penalty,
            warning: sanction.warning,
            move_number,
            detail,
            open: true,
            needs_board_fix,
            fix,
        });
        if accepted && !needs_board_fix {
            self.close(id, "accepted");
            return;
        }
        if accepted {
            return; // the board is put right; no warning, no loss
        }
        if sanction.warning {
            self.give_warning(color);
        }
        if sanction.penalty == Penalty::Loss && self.result.is_none() {
            let (reason, how) = match code {
                ViolationCode::TwoWarningsLoss => ("two_warnings", "F"),
                ViolationCode::TimeExpired => ("time", "T"),
                _ => ("referee", "F"),
            };
            self.finish(GameResult {
                winner: Some(color.opposite()),
                reason,
                re: format!("{}+{how}", color.opposite().sgf_letter()),
            });
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
