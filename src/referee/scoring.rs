//! The end of the game (R21, G8, G9, C2): stones lifted as dead, the count, its confirmation.

use super::*;

impl Referee {
    /// In scoring, players lift dead stones: missing stones are not a capture error. A new
    /// stone resumes play (R21.4): the stones lifted as dead go back on the board, and the move
    /// is recorded. Returns whether the board was dealt with here.
    pub(super) fn scoring_board(&mut self, obs: Observation<'_>) -> bool {
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
    pub(super) fn propose_count(&mut self) {
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
}
