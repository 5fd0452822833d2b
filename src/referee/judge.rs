//! Judging a settled board: the verdict of move inference applied — moves recorded, a stone
//! out of turn (R17.2), a forbidden stone (R18.3, R19) — and, when nothing explains the board,
//! the fall-back to board violations and `desync` (module docs of [`super`]).

use super::*;

impl Referee {
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
    pub(super) fn judge(&mut self, obs: Observation<'_>) {
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
    pub(super) fn apply_verdict(&mut self, verdict: Verdict, obs: Observation<'_>) -> bool {
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
    pub(super) fn record_steps(&mut self, steps: &[Step], obs: Observation<'_>) {
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
    pub(super) fn out_of_turn(&mut self, step: Step, tally: CaptureTally, obs: Observation<'_>) {
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
    pub(super) fn joins_takeback(&mut self, color: Color, point: Point) -> bool {
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
    pub(super) fn illegal_stone(
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

    /// The capture bookkeeping if `step` alone is played from the record and `grid` shows it.
    pub(super) fn tally_after(&self, step: &Step, grid: &StoneGrid) -> Option<CaptureTally> {
        let mut g = self.game.clone();
        g.play(step.color, Some(step.point)).ok()?;
        match explain(&g, &self.pending, grid) {
            Verdict::Unchanged(t) => Some(t),
            _ => None,
        }
    }

    /// `grid` with `restore` points showing the record's stone and `clear` points empty.
    pub(super) fn masked_grid(
        &self,
        grid: &StoneGrid,
        restore: &[Point],
        clear: &[Point],
    ) -> StoneGrid {
        let mut g = grid.clone();
        for &p in restore {
            g.set(p, self.game.board().get(p));
        }
        for &p in clear {
            g.set(p, None);
        }
        g
    }
}
