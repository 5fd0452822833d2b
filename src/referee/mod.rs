//! The referee: settled boards, button presses and commands in; moves, captures and
//! violations out (DESIGN.md `referee`, RULES.md R17–R21).
//!
//! The [`Referee`] keeps the game record and the rules state ([`Game`]) and matches every
//! settled board against the rules' successors of the record's position ([`inference`]). What
//! no legal move explains is never guessed: the game enters `desync` with the exact difference
//! to restore, and leaves it when the board matches again.
//!
//! Acts that break a rule but that a physical board can show are recorded as they happened and
//! flagged with evidence: a second move in a row (R17.2) and a whole-board repetition
//! (R20.2–20.3) stand until the referee rules (`penalty: referee`); a stone on a forbidden point
//! (R19) or an immediate ko retake (R18.3) is invalid and counts as a pass, and the board must
//! be put back.

pub mod inference;
pub mod result;
pub mod setup;
pub mod violation;

use std::collections::VecDeque;

use crate::event::{EventKind, Evidence, Phase, PointColor};
pub use crate::rules::ViolationCode;
use crate::rules::{Color, Game, GameRecord, Illegal, Point, RecordedMove};
use crate::sensing::StoneGrid;
pub use inference::{explain, BoardDiff, CaptureTally, Explanation, Pending};
pub use setup::GameSetup;
pub use violation::Penalty;

/// A violation as the referee keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Unique within the game, from 1.
    pub id: u32,
    /// What rule.
    pub code: ViolationCode,
    /// Offender.
    pub color: Color,
    /// Points concerned.
    pub points: Vec<Point>,
    /// What the rules do about it.
    pub penalty: Penalty,
    /// Move number (moves and passes in the record) when it was seen.
    pub move_number: u32,
    /// Explanation for people.
    pub detail: String,
    /// Still waiting for the board to be fixed or for the referee.
    pub open: bool,
}

/// The end of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    /// Winner, `None` for a draw or no result.
    pub winner: Option<Color>,
    /// `resignation`, `referee`, … (DESIGN.md `result.reason`).
    pub reason: &'static str,
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

/// The referee state machine. Feed it settled boards ([`Referee::on_board`]), presses and
/// commands; take events with [`Referee::poll_event`].
#[derive(Clone, Debug)]
pub struct Referee {
    game: Game,
    record: GameRecord,
    phase: Phase,
    /// Phase to go back to after a desync.
    resume_phase: Phase,
    pending: Vec<Pending>,
    guidance: BoardDiff,
    violations: Vec<Violation>,
    result: Option<GameResult>,
    events: VecDeque<EventKind>,
}

impl Referee {
    /// A referee for a new game, in the `setup` phase until the board shows the starting
    /// position.
    pub fn new(setup: &GameSetup) -> Result<Referee, SetupError> {
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
        let record = GameRecord {
            info: setup.info.clone(),
            setup: setup.setup.clone(),
            player_to_move: Some(setup.first_to_move),
            moves: Vec::new(),
        };
        let mut referee = Referee {
            game,
            record,
            phase: Phase::Setup,
            resume_phase: Phase::Play,
            pending: Vec::new(),
            guidance: BoardDiff::default(),
            violations: Vec::new(),
            result: None,
            events: VecDeque::new(),
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
            handicap: setup.info.handicap,
            setup: setup_points,
            first_to_move: setup.first_to_move,
        });
        referee.guidance = BoardDiff::between(referee.game.board(), &StoneGrid::empty(size));
        referee.push_phase();
        Ok(referee)
    }

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

    /// In `setup` and `desync`: what to change on the board to match the record.
    pub fn guidance(&self) -> &BoardDiff {
        &self.guidance
    }

    /// All violations of the game, open or not.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The result, once the game is over.
    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
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

    /// A newly settled board that differs from the previous one.
    pub fn on_board(&mut self, grid: &StoneGrid) {
        if self.phase == Phase::Finished {
            return; // R21.3: once the game is over, nothing on the board changes the record.
        }
        match explain(&self.game, &self.pending, grid) {
            Explanation::Unchanged(tally) => {
                self.apply_tally(tally, &[]);
                self.leave_desync();
            }
            Explanation::Move {
                color,
                point,
                captured,
                tally,
            } => {
                self.leave_desync();
                let before = self.game.board().rows();
                let Ok(outcome) = self.game.play(color, Some(point)) else {
                    // explain() previewed this exact move; keep the board as a desync rather
                    // than panic if the rules disagree.
                    self.enter_desync(BoardDiff::between(self.game.board(), grid));
                    return;
                };
                self.record.moves.push(RecordedMove {
                    color,
                    point: Some(point),
                    comment: None,
                    time_left_ms: None,
                    periods_left: None,
                });
                let number = outcome.number;
                self.events.push_back(EventKind::Move {
                    color,
                    point: self.gtp(point),
                    sgf: point.to_sgf(),
                    number,
                    captured: captured.iter().map(|&p| self.gtp(p)).collect(),
                });
                if outcome.out_of_turn {
                    self.flag(
                        ViolationCode::TwoMovesInARow,
                        color,
                        vec![point],
                        Penalty::Referee,
                        format!(
                            "{} played twice in a row without a pass from {}",
                            color.as_str(),
                            color.opposite().as_str()
                        ),
                        before.clone(),
                        grid.rows(),
                    );
                }
                if let Some(earlier) = outcome.repeats {
                    self.flag(
                        ViolationCode::SuperkoCycle,
                        color,
                        vec![point],
                        Penalty::Referee,
                        format!("the whole-board position after move {earlier} is repeated"),
                        before,
                        grid.rows(),
                    );
                }
                self.apply_tally(tally, &captured);
                if self.phase == Phase::Scoring {
                    self.phase = Phase::Play; // R21.4: play resumes
                    self.resume_phase = Phase::Play;
                    self.push_phase();
                }
            }
            Explanation::Illegal {
                color,
                point,
                illegal,
            } => {
                let before = self.game.board().rows();
                let (code, why) = match illegal {
                    Illegal::Ko(_) => (
                        ViolationCode::KoRecapture,
                        "retakes the ko at once (R20.1); the move is invalid and counts as a pass",
                    ),
                    _ => (
                        ViolationCode::ForbiddenPoint,
                        "is a forbidden point (G5); the move is invalid and counts as a pass",
                    ),
                };
                let detail = format!("{} {} {}", color.as_str(), self.gtp(point), why);
                self.record_pass(color);
                self.flag(
                    code,
                    color,
                    vec![point],
                    Penalty::MoveInvalid,
                    detail,
                    before,
                    grid.rows(),
                );
                self.enter_desync(BoardDiff::between(self.game.board(), grid));
            }
            Explanation::Unexplained(diff) => self.enter_desync(diff),
        }
    }

    /// A pass (G2: an explicit act, never inferred from silence). A pass by the side not to
    /// move is recorded and flagged (R17.2). Two passes in a row enter scoring (R21.1).
    pub fn on_pass(&mut self, color: Color) {
        if self.phase == Phase::Finished {
            return;
        }
        let before = self.game.board().rows();
        let out_of_turn = self.record_pass(color);
        if out_of_turn {
            self.flag(
                ViolationCode::TwoMovesInARow,
                color,
                Vec::new(),
                Penalty::Referee,
                format!("{} passed when it was not its turn", color.as_str()),
                before.clone(),
                before,
            );
        }
        if self.game.consecutive_passes() >= 2 && matches!(self.phase, Phase::Play) {
            self.phase = Phase::Scoring;
            self.resume_phase = Phase::Scoring;
            self.push_phase();
        }
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
        if self.phase != Phase::Finished {
            self.phase = Phase::Finished;
            self.guidance = BoardDiff::default();
            self.push_phase();
        }
    }

    /// Records a pass of `color`; returns whether it was out of turn.
    fn record_pass(&mut self, color: Color) -> bool {
        match self.game.play(color, None) {
            Ok(outcome) => {
                self.record.moves.push(RecordedMove {
                    color,
                    point: None,
                    comment: None,
                    time_left_ms: None,
                    periods_left: None,
                });
                self.events.push_back(EventKind::Pass {
                    color,
                    number: outcome.number,
                });
                outcome.out_of_turn
            }
            Err(_) => false,
        }
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
    }

    fn enter_desync(&mut self, diff: BoardDiff) {
        let changed = self.guidance != diff;
        let phase = if self.phase == Phase::Setup {
            Phase::Setup
        } else {
            if !matches!(self.phase, Phase::Desync) {
                self.resume_phase = self.phase;
            }
            Phase::Desync
        };
        if changed || self.phase != phase {
            self.phase = phase;
            self.guidance = diff;
            self.push_phase();
        }
    }

    fn leave_desync(&mut self) {
        // Invalid placements are closed once the board is put back (R18.3, R19).
        for v in self.violations.iter_mut() {
            if v.open && v.penalty == Penalty::MoveInvalid {
                v.open = false;
                self.events.push_back(EventKind::ViolationResolved {
                    id: v.id,
                    how: "board_restored".to_string(),
                });
            }
        }
        if matches!(self.phase, Phase::Setup | Phase::Desync) {
            self.phase = if self.phase == Phase::Setup {
                Phase::Play
            } else {
                self.resume_phase
            };
            self.guidance = BoardDiff::default();
            self.push_phase();
        }
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

    #[allow(clippy::too_many_arguments)]
    fn flag(
        &mut self,
        code: ViolationCode,
        color: Color,
        points: Vec<Point>,
        penalty: Penalty,
        detail: String,
        before: Vec<String>,
        after: Vec<String>,
    ) {
        let id = self.violations.len() as u32 + 1;
        let move_number = self.game.move_number();
        let note = format!("{} ({}): {}", code.as_str(), code.clause(), detail);
        if let Some(last) = self.record.moves.last_mut() {
            match &mut last.comment {
                Some(c) => {
                    c.push('\n');
                    c.push_str(&note);
                }
                None => last.comment = Some(note),
            }
        }
        self.events.push_back(EventKind::Violation {
            id,
            code: code.as_str(),
            clause: code.clause(),
            color,
            points: points.iter().map(|&p| self.gtp(p)).collect(),
            penalty: penalty.as_str(),
            detail: detail.clone(),
            evidence: Evidence {
                before,
                after,
                move_number,
            },
        });
        self.violations.push(Violation {
            id,
            code,
            color,
            points,
            penalty,
            move_number,
            detail,
            open: true,
        });
    }
}
