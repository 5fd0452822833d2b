//! The end of the game (R21, G8, G9, C2): stones lifted as dead, the count, its confirmation.

use super::*;

/// The share of the playouts, at most, in which a chain's owner loses it for the chain to be
/// alive beyond dispute in the count ([`dead_shares`]; unconditionally alive chains are at 0):
/// a stone of such a chain lifted in scoring is counting (stones lifted in tens, C2), not a
/// claim that it is dead.
pub const UNDISPUTED_SHARE: f64 = 0.1;

/// A clock press within this time after the second pass (board time, ms) is the passer's
/// habit, not agreement to the count.
pub const AGREE_GRACE_MS: u64 = 2_000;

/// What a board shown in scoring is (R21.1–R21.4).
enum ScoringBoard {
    /// Only recorded stones missing, none alive beyond dispute: the players lift dead stones.
    DeadLifted(Vec<Point>),
    /// One new stone, a legal move, and nothing else but stones lifted as dead: play resumes
    /// (R21.4) — wherever it is, for the claimant's first move may well be inside what the
    /// count calls the other side's territory or its own.
    Resumption(Color),
    /// Anything else — a stone alive beyond dispute lifted, stones moved, several stones put
    /// at once, a stone that is no legal move: the players count (C2) and the dead stones
    /// are agreed.
    Counting,
}

impl Referee {
    /// In scoring, players lift dead stones: missing stones are not a capture error. A new
    /// stone resumes play (R21.4): the stones lifted as dead go back on the board, and the move
    /// is recorded. Any other change is the count on the board (G9, C2: stones lifted in tens,
    /// territory filled and rearranged): the dead stones are then agreed, the count is fixed
    /// and nothing on the board is judged until it is confirmed ([`Referee::confirm_count`],
    /// or both clock presses) or disputed ([`Referee::dispute_count`]). Returns whether the
    /// board was dealt with here.
    pub(super) fn scoring_board(&mut self, obs: Observation<'_>) -> bool {
        if self.counting {
            return true;
        }
        match self.read_scoring_board(obs.grid) {
            ScoringBoard::DeadLifted(lifted) => {
                if self.dead_lifted != lifted {
                    self.dead_lifted = lifted;
                    self.propose_count();
                }
                true
            }
            ScoringBoard::Counting => {
                self.begin_counting();
                true
            }
            ScoringBoard::Resumption(color) => self.resume_from_scoring(color, obs),
        }
    }

    fn read_scoring_board(&self, grid: &StoneGrid) -> ScoringBoard {
        let board = self.game.board();
        let mut lifted = Vec::new();
        let mut added = Vec::new();
        for (p, sensed) in grid.iter() {
            match (board.get(p), sensed) {
                (Some(_), None) => lifted.push(p),
                (a, Some(b)) if a != Some(b) => added.push((p, b)),
                _ => {}
            }
        }
        if lifted.iter().any(|p| self.undisputed.contains(p)) {
            return ScoringBoard::Counting;
        }
        let &[(p, color)] = added.as_slice() else {
            return if added.is_empty() {
                ScoringBoard::DeadLifted(lifted)
            } else {
                ScoringBoard::Counting
            };
        };
        if board.get(p).is_some() || self.game.preview(color, p).is_err() {
            return ScoringBoard::Counting;
        }
        ScoringBoard::Resumption(color)
    }

    /// R21.4: play resumes with `color`'s stone, the side claiming first — after a pass of
    /// the side to move if that is the other side (no violation: the rules give the claimant
    /// the first move). The stones lifted as dead go back.
    fn resume_from_scoring(&mut self, color: Color, obs: Observation<'_>) -> bool {
        let lifted = std::mem::take(&mut self.dead_lifted);
        self.resume_play_for(color, obs.at_ms);
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

    /// R21.4: scoring left for play, `claimant` to move first — a pass of the other side
    /// recorded at board time `at_ms` if it is that side's turn.
    fn resume_play_for(&mut self, claimant: Color, at_ms: u64) {
        self.end_scoring();
        self.phase = Phase::Play;
        self.resume_phase = Phase::Play;
        self.push_phase();
        if self.game.to_move() != claimant {
            self.record_pass(claimant.opposite(), at_ms);
            self.note_on_last("R21.4: the claimant moves first");
        }
    }

    /// The board shows the count (C2): the dead stones as proposed now are agreed.
    fn begin_counting(&mut self) {
        if self.proposal.is_none() {
            self.propose_count();
        }
        self.counting = true;
        self.emit_count();
    }

    /// Leaves scoring's own state (the proposal, the count on the board, agreement).
    fn end_scoring(&mut self) {
        self.dead_lifted.clear();
        self.proposal = None;
        self.undisputed.clear();
        self.counting = false;
        self.agreed = [false, false];
    }

    /// Enters scoring at board time `at_ms` after both passes (R21.1): the count proposed.
    pub(super) fn enter_scoring(&mut self, at_ms: u64) {
        self.phase = Phase::Scoring;
        self.resume_phase = Phase::Scoring;
        self.end_scoring();
        self.scoring_since_ms = at_ms;
        self.push_phase();
        self.propose_count();
    }

    /// `color` presses its clock in scoring at board time `at_ms`: agreement to the count
    /// shown (R21.1); once both sides agreed, the count is confirmed. A press just after the
    /// second pass ([`AGREE_GRACE_MS`]) is not agreement.
    pub(super) fn agree_to_count(&mut self, color: Color, at_ms: u64) {
        if at_ms < self.scoring_since_ms.saturating_add(AGREE_GRACE_MS) {
            self.stats.ignored_presses += 1;
            return;
        }
        self.agreed[side(color)] = true;
        if self.agreed == [true, true] {
            // cannot fail in scoring with a proposal
            let _ = self.confirm_count(None);
        }
    }

    /// R21.4: a side disputes the life and death of the count; play resumes with `claimant`
    /// (the side claiming "dead") to move first: a pass of the other side is recorded if it
    /// is that side's turn. The stones lifted as dead (and anything moved while counting)
    /// are to be put back as the record has them. Errors: [`CommandError::WrongPhase`]
    /// outside scoring.
    pub fn dispute_count(&mut self, claimant: Color) -> Result<(), CommandError> {
        if self.phase != Phase::Scoring {
            return Err(CommandError::WrongPhase(self.phase.as_str()));
        }
        self.resume_play_for(claimant, self.now_ms);
        self.rejudge_last_board();
        if let Some(grid) = self.last_grid.clone() {
            self.refresh_guidance(&grid);
        }
        Ok(())
    }

    /// Whether the players are counting on the board (the dead stones agreed, the count
    /// fixed until it is confirmed or disputed).
    pub fn counting(&self) -> bool {
        self.counting
    }

    /// The dead stones proposed at the end and the count without them (G8, G9, C2, R21.2,
    /// R24.1): the stones the players lifted, plus those the playouts find dead among the rest.
    pub(super) fn propose_count(&mut self) {
        let board = self.game.board();
        let size = board.size();
        let mut left = board.clone();
        for &p in &self.dead_lifted {
            left.put(p, None);
        }
        let shares = dead_shares(&left, board.hash(), DEFAULT_PLAYOUTS);
        let mut dead = self.dead_lifted.clone();
        let mut undisputed = Vec::new();
        for (k, &share) in shares.iter().enumerate() {
            let p = Point::from_index(k, size);
            if left.get(p).is_none() {
                continue;
            }
            if share > DEAD_THRESHOLD {
                dead.push(p);
            } else if share <= UNDISPUTED_SHARE {
                undisputed.push(p);
            }
        }
        dead.sort_by_key(|p| (p.y, p.x));
        dead.dedup();
        let count = area_count(board, &dead);
        let komi = self.record.info.komi.unwrap_or(0.0);
        let result = chinese_result(&count, board.size(), komi, self.warnings);
        self.proposal = Some((dead, result));
        self.undisputed = undisputed;
        self.agreed = [false, false];
        self.emit_count();
    }

    /// The `count` event of the proposal as it stands.
    fn emit_count(&mut self) {
        let Some((dead, result)) = &self.proposal else {
            return;
        };
        let dead = dead.iter().map(|&p| self.gtp(p)).collect();
        self.events.push_back(EventKind::Count {
            dead,
            black_points: result.black_points,
            white_points: result.white_points,
            margin_stones: result.margin_stones,
            re: result.re.clone(),
            counting: self.counting,
        });
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
}
