//! Bookkeeping: passes and presses owed, capture tallies, physical fixes owed by open
//! violations, guidance, phases, warnings and flags.

use super::*;

impl Referee {
    pub(super) fn commit_last(&mut self) {
        let now = self.now_ms;
        if let Some(l) = &mut self.last {
            l.committed = true;
            l.committed_ms.get_or_insert(now);
        }
    }

    pub(super) fn finish(&mut self, result: GameResult) {
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

    /// `color`'s move `number` (its stone down in `[placed_at, seen_at]`, board ms; a pass at
    /// `placed_at` = `seen_at`) now waits for its press; the opponent's moves waiting for
    /// theirs are answered.
    pub(super) fn owe_press(
        &mut self,
        color: Color,
        number: u32,
        (placed_at, seen_at): (u64, u64),
        point: Option<Point>,
    ) {
        for u in &mut self.unpressed[side(color.opposite())] {
            u.answered_at.get_or_insert(placed_at);
        }
        let reply_to_seen = self
            .last_owed_seen
            .filter(|&(n, _)| n + 1 == number)
            .map(|(_, seen)| seen);
        self.last_owed_seen = Some((number, seen_at));
        self.unpressed[side(color)].push(Unpressed {
            number,
            placed_at,
            seen_at: Some(seen_at),
            reply_to_seen,
            point,
            answered_at: None,
        });
    }

    /// Records a pass of `color` (a pass button, or an invalid move that counts as one).
    pub(super) fn record_pass(&mut self, color: Color, at_ms: u64) {
        let outcome = self.game.pass(color);
        self.owe_press(color, outcome.number, (at_ms, at_ms), None);
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
            committed_ms: Some(at_ms),
            pressed: false,
        });
    }

    pub(super) fn apply_tally(&mut self, tally: CaptureTally, fresh: &[Point]) {
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
        let now = self.now_ms;
        for &(p, _) in tally
            .still_pending
            .iter()
            .filter(|(p, _)| fresh.contains(p))
        {
            self.captured_at.retain(|&(q, _)| q != p);
            self.captured_at.push((p, now));
            self.first_touched.retain(|&(q, _)| q != p);
        }
        self.pending = tally.still_pending;
        let pending = &self.pending;
        self.captured_at
            .retain(|&(q, _)| pending.iter().any(|&(p, _)| p == q));
        self.first_touched
            .retain(|&(q, _)| pending.iter().any(|&(p, _)| p == q));
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
    pub(super) fn apply_fixes(&self, grid: &StoneGrid) -> StoneGrid {
        self.apply_fixes_but(grid, 0)
    }

    /// [`Referee::apply_fixes`] but for the fix of violation `id` (violation ids start at 1).
    pub(super) fn apply_fixes_but(&self, grid: &StoneGrid, id: u32) -> StoneGrid {
        let mut g = grid.clone();
        let board = self.game.board();
        let fixes = self
            .violations
            .iter()
            .filter(|v| v.open && v.id != id)
            .map(|v| &v.fix)
            .chain(std::iter::once(&self.found));
        for fix in fixes {
            for &(p, c) in &fix.restore {
                if board.get(p) == Some(c) {
                    g.set(p, Some(c));
                }
            }
            for &p in &fix.remove {
                if board.get(p).is_none() {
                    g.set(p, None);
                }
            }
        }
        g
    }

    /// Closes the open violations whose fix the board now shows (or that became moot).
    pub(super) fn settle_fixes(&mut self, grid: &StoneGrid) {
        self.settle_found(grid);
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
    pub(super) fn refresh_guidance(&mut self, actual: &StoneGrid) {
        if matches!(self.phase, Phase::Finished | Phase::Paused) {
            return;
        }
        if self.phase == Phase::Scoring && self.counting {
            // the board is the players' abacus (C2): nothing to lift or put back
            if !self.guidance.is_empty() {
                self.guidance = BoardDiff::default();
                self.push_phase();
            }
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
            let steps = || a.ways.iter().flat_map(|w| w.candidate.steps.iter());
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

    pub(super) fn close(&mut self, id: u32, how: &str) {
        if let Some(v) = self.violations.iter_mut().find(|v| v.id == id && v.open) {
            v.open = false;
            self.events.push_back(EventKind::ViolationResolved {
                id,
                how: how.to_string(),
            });
        }
    }

    pub(super) fn has_open(&self, code: ViolationCode) -> bool {
        self.violations.iter().any(|v| v.open && v.code == code)
    }

    pub(super) fn push_phase(&mut self) {
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

    pub(super) fn give_warning(&mut self, color: Color) {
        self.give_warning_for(color, None);
    }

    pub(super) fn give_warning_for(&mut self, color: Color, reason: Option<String>) {
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

    /// Flags `code` unless the same violation (code and points) is open already — or, with a
    /// `doubt` the caller found, a notice ([`Referee::flag_unless_doubt`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn flag_once(
        &mut self,
        code: ViolationCode,
        color: Color,
        points: Vec<Point>,
        detail: String,
        grid: &StoneGrid,
        fix: BoardDiff,
        doubt: Option<String>,
    ) {
        if self
            .violations
            .iter()
            .any(|v| v.open && v.code == code && v.points == points)
        {
            return;
        }
        self.flag_unless_doubt(code, color, points, detail, grid, fix, doubt);
    }

    pub(super) fn note_on_last(&mut self, note: &str) {
        if let Some(i) = self.record.moves.len().checked_sub(1) {
            self.note_at(i, note);
        }
    }

    pub(super) fn note_at(&mut self, i: usize, note: &str) {
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
    pub(super) fn flag(
        &mut self,
        code: ViolationCode,
        color: Color,
        points: Vec<Point>,
        detail: String,
        after: &StoneGrid,
        fix: BoardDiff,
    ) {
        self.flag_unless_doubt(code, color, points, detail, after, fix, None);
    }

    /// [`Referee::flag`], or — where a cost would stand on evidence that does not prove it
    /// ([`Referee::doubt`]; `doubt`: what the caller found) — a `notice` with the same fix
    /// (issue 35, [`super::proof`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn flag_unless_doubt(
        &mut self,
        code: ViolationCode,
        color: Color,
        points: Vec<Point>,
        detail: String,
        after: &StoneGrid,
        fix: BoardDiff,
        doubt: Option<String>,
    ) {
        let sanction = self.config.profile.sanction(code);
        let costs = sanction.warning
            || matches!(
                sanction.penalty,
                Penalty::Warning | Penalty::MoveInvalid | Penalty::Loss
            );
        let judged = !matches!(
            code,
            ViolationCode::TimeExpired | ViolationCode::TwoWarningsLoss
        );
        if costs && judged && self.config.policy == Policy::Rules {
            if let Some(why) = self.doubt(code, &points, doubt) {
                let sanction = Sanction {
                    penalty: Penalty::Notice,
                    warning: false,
                };
                let detail = format!("{detail} — not proven ({why}): nothing is charged unless the referee upholds it");
                self.flag_sanctioned(code, sanction, color, points, detail, after, fix);
                return;
            }
        }
        self.flag_sanctioned(code, sanction, color, points, detail, after, fix);
    }

    /// A `notice` to the referee (issue 35): what would be `code` by `color` at `points`, but
    /// the board's evidence does not prove it; nothing is charged and nothing on the board is
    /// to fix. `detail` says why it is not proven.
    pub(super) fn notice(
        &mut self,
        code: ViolationCode,
        color: Color,
        points: Vec<Point>,
        detail: String,
        after: &StoneGrid,
    ) {
        let sanction = Sanction {
            penalty: Penalty::Notice,
            warning: false,
        };
        self.flag_sanctioned(
            code,
            sanction,
            color,
            points,
            detail,
            after,
            BoardDiff::default(),
        );
    }

    /// [`Referee::flag`] with a sanction other than the profile's (R22.5's pass instead of
    /// the loss).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn flag_sanctioned(
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
