//! Judging a settled board: the verdict of move inference applied — moves recorded, a stone
//! out of turn (R17.2), a forbidden stone (R18.3, R19) — and, when nothing explains the board,
//! the fall-back to board violations and `desync` (module docs of [`super`]).

use super::*;

impl Referee {
    /// A board from the stabiliser that differs from the previous one: the whole board
    /// settled ([`Observation::complete`]), or — while hands are still over the board — the
    /// changes known for certain so far.
    ///
    /// Open violations that require the board to be put back (an invalid stone to lift, a
    /// moved stone to return, …) are applied to the board first: the board is judged as it will
    /// be once fixed, so the stone waiting to come off is never taken for a later move, and the
    /// violation closes once the board shows the fix.
    ///
    /// A board that is not complete is judged in play only as far as moves (or captured stones
    /// lifted) explain it, or several orders of them (held for the referee); anything else may
    /// be a move still half hidden under a hand, and waits for the complete board — or, while
    /// the board never settles, for [`PARTIAL_PATIENCE_MS`] — before it is judged as it stands.
    pub fn on_board(&mut self, obs: Observation<'_>) {
        self.now_ms = self.now_ms.max(obs.at_ms);
        let partial_ok =
            matches!(self.phase, Phase::Play | Phase::Setup) && self.handicap_left == 0;
        if !obs.complete && !partial_ok {
            // desync, scoring, a pause: judged once the board is complete — but a board after
            // an outage that legal moves did not explain is looked at again as it changes
            if self.phase == Phase::Desync {
                let was = self.judging_partial;
                self.judging_partial = true; // hands over the board: nothing proven
                if !self.look_again_as_found(obs) {
                    self.unstick(obs);
                }
                self.judging_partial = was;
            }
            return;
        }
        self.last_grid = Some(obs.grid.clone());
        let phase = self.phase;
        match phase {
            // R21.3: once the game is over nothing on the board changes the record. While
            // paused, the board is judged on resumption (in the order its times give).
            Phase::Finished => return,
            Phase::Paused => {
                self.paused_times = obs.times.to_vec();
                return;
            }
            Phase::Scoring if self.scoring_board(obs) => {
                self.refresh_guidance(obs.grid);
                return;
            }
            _ => {}
        }
        // a hand over the board now may hide a stone: nothing judged on this board is proven
        self.judging_partial = obs.hands;
        if phase == Phase::Play {
            self.note_lifts(obs.grid);
        }
        // moves made while the board was away with its history lost: their presses were lost
        // with it, so none is owed (a press to come is the next move's)
        let away_from = matches!(self.as_found, Some(AsFound::AfterOutage(_)))
            .then(|| self.record.moves.len() as u32);
        if self.look_as_found(obs) {
            return; // the board as found is looked at whole
        }
        if !self.look_again_as_found(obs) {
            self.judge_found(obs);
            self.unstick(obs);
        }
        if let Some(from) = away_from {
            for side in &mut self.unpressed {
                side.retain(|u| u.number <= from);
            }
        }
    }

    /// Keeps [`Referee::lifted_seen`] up to date with `grid`: notes the record's stones it shows
    /// gone, forgets those the record no longer has or whose point a move took since.
    fn note_lifts(&mut self, grid: &StoneGrid) {
        let board = self.game.board();
        let moves = &self.record.moves;
        let len = moves.len();
        self.lifted_seen.retain(|&(p, c, from)| {
            board.get(p) == Some(c) && !moves[from.min(len)..].iter().any(|m| m.point == Some(p))
        });
        for (p, sensed) in grid.iter() {
            if sensed.is_none() && !self.lifted_seen.iter().any(|&(q, ..)| q == p) {
                if let Some(c) = board.get(p) {
                    self.lifted_seen.push((p, c, len));
                }
            }
        }
    }

    /// Forgets every stone of [`Referee::lifted_seen`] once a whole board with no hand over it
    /// shows exactly the record's position: nothing on it is left to explain, so each such
    /// stone was only moved and put back (a hand brushed it), and no later board need be tried
    /// with it taken as new.
    fn forget_lifts_explained(&mut self, obs: Observation<'_>) {
        if self.lifted_seen.is_empty() || obs.hands || !obs.complete {
            return;
        }
        let board = self.game.board();
        if obs.grid.iter().all(|(p, sensed)| board.get(p) == sensed) {
            self.lifted_seen.clear();
        }
    }

    /// The stones of [`Referee::lifted_seen`] back on their points on `grid`, that `game`'s
    /// position still has ([`relaid`]).
    pub(super) fn relaid_on(&self, game: &Game, grid: &StoneGrid) -> Vec<Pending> {
        relaid(game, grid, self.lifted_seen.iter().map(|&(p, c, _)| (p, c)))
    }

    /// [`Referee::on_board`] once the board as found was looked at.
    fn judge_found(&mut self, obs: Observation<'_>) {
        self.settle_fixes(obs.grid);
        let fixed = self.apply_fixes(obs.grid);
        let fobs = Observation {
            grid: &fixed,
            ..obs
        };
        if !obs.complete {
            let waited = self
                .partial_since
                .is_some_and(|since| obs.at_ms.saturating_sub(since) >= PARTIAL_PATIENCE_MS);
            if self.judge_moves_only(fobs) {
                self.partial_since = None;
            } else if !waited {
                self.partial_since.get_or_insert(obs.at_ms);
                return;
            } else {
                self.partial_since = None;
                // hands are still over the board: what is judged now is not proven
                self.judging_partial = true;
                self.judge(fobs);
                self.judging_partial = obs.hands;
            }
            self.check_overdue_captures(fobs);
            self.settle_fixes(obs.grid);
            self.refresh_guidance(obs.grid);
            self.prev_board_ms = obs.at_ms;
            return;
        }
        self.partial_since = None;
        if !(self.handicap_left > 0 && self.place_handicap(fobs.grid)) {
            self.judge(fobs);
        }
        self.forget_lifts_explained(fobs);
        self.check_overdue_captures(fobs);
        self.settle_fixes(obs.grid);
        self.refresh_guidance(obs.grid);
        self.prev_board_ms = obs.at_ms;
    }

    /// Judges a board that is not complete as far as moves explain it: the held explanations
    /// followed by moves, moves (or captured stones lifted), or several orders of moves (held).
    /// Returns whether the board was explained so.
    fn judge_moves_only(&mut self, obs: Observation<'_>) -> bool {
        if let Some(held) = self.ambiguous.clone() {
            return self.judge_after_held(&held, obs);
        }
        if self.takeback_of_capture(obs) {
            return true;
        }
        let verdict = explain_timed(
            &self.game,
            &self.pending,
            obs.grid,
            obs.timing(),
            obs.touched,
            &self.relaid_on(&self.game, obs.grid),
        );
        match verdict {
            Verdict::Unchanged(_) | Verdict::Moves { .. } | Verdict::Ambiguous(_) => {
                self.apply_verdict(verdict, obs);
                self.anomalies.clear();
                true
            }
            _ if self.tell_apart(obs) => {
                self.anomalies.clear();
                true
            }
            _ => false,
        }
    }

    /// Judges a board (with the pending fixes applied): explained by moves, or one of the
    /// board violations, or left as a difference to fix.
    pub(super) fn judge(&mut self, obs: Observation<'_>) {
        if let Some(held) = self.ambiguous.clone() {
            if self.judge_after_held(&held, obs) {
                return;
            }
        }
        if self.takeback_of_capture(obs) {
            return;
        }
        let verdict = explain_timed(
            &self.game,
            &self.pending,
            obs.grid,
            obs.timing(),
            obs.touched,
            &self.relaid_on(&self.game, obs.grid),
        );
        let explained = matches!(
            verdict,
            Verdict::Unchanged(_) | Verdict::Moves { .. } | Verdict::Ambiguous(_)
        );
        // a provisional run at the record's end in another order may explain it (provisional)
        if (!explained && self.tell_apart(obs)) || self.apply_verdict(verdict, obs) {
            self.anomalies.clear();
            return;
        }
        if self.ambiguous.is_some() {
            return; // held for the referee: nothing else is judged meanwhile
        }
        // Unexplained as it stands: the adjusted last move, sensor anomalies, the record's last
        // moves misread (looked at again before anything is flagged), board violations.
        if self.adjust_last_move(obs) || self.set_aside_anomalies(obs) {
            return;
        }
        if matches!(self.phase, Phase::Play | Phase::Desync) {
            let mut probe = self.clone();
            let flagged = probe.violations.len();
            probe.board_violation(obs);
            let code = probe
                .violations
                .get(flagged)
                .map_or(ViolationCode::UnexplainedBoard, |v| v.code);
            if self.revise(obs, code) {
                return;
            }
        }
        if self.board_violation(obs) {
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
                self.recording_then_looking_back(obs, |r| {
                    r.record_steps(&steps, obs);
                    let fresh: Vec<Point> = steps.iter().flat_map(|s| s.captured.clone()).collect();
                    r.apply_tally(tally, &fresh);
                });
                true
            }
            Verdict::OutOfTurn { step, tally } => {
                if !self.revise(obs, ViolationCode::TwoMovesInARow) {
                    self.out_of_turn(step, tally, obs);
                }
                true
            }
            Verdict::Ambiguous(candidates) => {
                // A throw-in nobody saw needs a point a hand was over since the last board.
                let candidates = self.plausible(candidates, obs);
                if let [only] = &candidates[..] {
                    let only = only.clone();
                    return self.apply_candidate(only, obs);
                }
                // Under the rules, the likeliest line with no violation is recorded at once,
                // provisionally, and play goes on; a stone out of turn is never presumed: where
                // one is possible too, the referee is told.
                if self.config.policy == Policy::Rules {
                    let (out_of_turn, lines): (Vec<Candidate>, Vec<Candidate>) =
                        candidates.iter().cloned().partition(|c| c.out_of_turn);
                    if !lines.is_empty() {
                        // a stone recorded before them that one of them is not certainly
                        // after widens their order back over it (reorder)
                        self.recording_then_looking_back(obs, |r| r.record_provisional(lines, obs));
                        if let Some(step) = out_of_turn.first().and_then(|c| c.steps.first()) {
                            let detail = format!(
                                "{} {} may have been played out of turn, or after a stone nobody saw (recorded so, provisionally)",
                                step.color.as_str(),
                                self.gtp(step.point)
                            );
                            self.notice(
                                ViolationCode::TwoMovesInARow,
                                step.color,
                                vec![step.point],
                                detail,
                                obs.grid,
                            );
                        }
                        return true;
                    }
                }
                // Accepting the board as played takes it at face value: a throw-in a hand was
                // over, else the stone out of turn rather than a throw-in nobody saw.
                let hidden_seen = candidates
                    .iter()
                    .filter(|c| !c.out_of_turn && c.steps.iter().any(|s| s.hidden))
                    .count();
                let face_value = (self.config.policy == Policy::AcceptAsPlayed)
                    .then(|| {
                        if hidden_seen == 1 && !obs.touched.is_empty() {
                            candidates
                                .iter()
                                .find(|c| !c.out_of_turn && c.steps.iter().any(|s| s.hidden))
                                .cloned()
                        } else {
                            candidates
                                .iter()
                                .find(|c| c.out_of_turn && c.steps.len() == 1)
                                .cloned()
                        }
                    })
                    .flatten();
                if let Some(c) = face_value.clone().filter(|c| !c.out_of_turn) {
                    return self.apply_candidate(c, obs);
                }
                match face_value {
                    Some(c) => {
                        let step = c.steps[0].clone();
                        let tally = self.tally_after(&step, obs.grid);
                        match tally {
                            Some(t) => self.out_of_turn(step, t, obs),
                            None => self.hold_ambiguous(candidates, obs),
                        }
                    }
                    None => self.hold_ambiguous(candidates, obs),
                }
                true
            }
            Verdict::Illegal {
                color,
                point,
                illegal,
            } => {
                let code = illegal_code(&illegal);
                if !self.revise(obs, code) {
                    self.illegal_stone(color, point, illegal, obs);
                }
                true
            }
        }
    }

    /// The candidates a stone nobody saw could explain only if a hand was over its point since
    /// the last board: the others are dropped (when the board's `touched` times are known).
    fn plausible(&self, candidates: Vec<Candidate>, obs: Observation<'_>) -> Vec<Candidate> {
        if obs.touched.is_empty() {
            return candidates;
        }
        let size = obs.grid.size();
        let since = self.prev_board_ms;
        candidates
            .into_iter()
            .filter(|c| {
                c.steps.iter().filter(|s| s.hidden).all(|s| {
                    obs.touched
                        .get(s.point.index(size))
                        .is_some_and(|&t| t > since)
                })
            })
            .collect()
    }

    /// Applies one explanation of a board: its moves (after a pass for a stone out of turn,
    /// which is judged as one).
    fn apply_candidate(&mut self, c: Candidate, obs: Observation<'_>) -> bool {
        if c.out_of_turn {
            // looked back at before it is flagged, as every stone out of turn is (the other
            // explanations of this board were dropped for this board alone: a throw-in under a
            // hand earlier, whose capture only the record's last moves explain)
            if self.revise(obs, ViolationCode::TwoMovesInARow) {
                return true;
            }
            if let Some(step) = c.steps.first().cloned() {
                let tally = self.tally_after(&step, obs.grid);
                match tally {
                    Some(t) => self.out_of_turn(step, t, obs),
                    None => self.hold_ambiguous(vec![c], obs),
                }
            }
            return true;
        }
        let mut g = self.game.clone();
        let fresh: Vec<Point> = c.steps.iter().flat_map(|s| s.captured.clone()).collect();
        let legal = c
            .steps
            .iter()
            .all(|s| g.play(s.color, Some(s.point)).is_ok());
        if !legal {
            return false;
        }
        let pending_now: Vec<Pending> = self
            .pending
            .iter()
            .copied()
            .chain(
                c.steps
                    .iter()
                    .flat_map(|s| s.captured.iter().map(move |&p| (p, s.color.opposite()))),
            )
            .collect();
        let tally = match explain(&g, &pending_now, obs.grid) {
            Verdict::Unchanged(t) => t,
            _ => CaptureTally {
                still_pending: c.still_pending.clone(),
                lifted: Vec::new(),
            },
        };
        self.recording_then_looking_back(obs, |r| {
            r.record_steps(&c.steps, obs);
            r.apply_tally(tally, &fresh);
        });
        true
    }

    /// Runs `record`, which records moves from `obs`, then looks back over the moves before
    /// the ones it recorded (`reorder_after`), as every move recorded is looked back from: a
    /// stone recorded earlier that the board does not show is certainly before them widens
    /// their order back over it.
    fn recording_then_looking_back(
        &mut self,
        obs: Observation<'_>,
        record: impl FnOnce(&mut Self),
    ) {
        let before = self.record.moves.len();
        record(self);
        let recorded = self.record.moves.len().saturating_sub(before);
        self.reorder_after(recorded, obs);
    }

    /// Records moves explained from the board (nothing once the game is over, R21.3), each
    /// dated from `obs`'s times of its point.
    pub(super) fn record_steps(&mut self, steps: &[Step], obs: Observation<'_>) {
        self.record_steps_timed(steps, None, obs);
    }

    /// Records moves (nothing once the game is over, R21.3); `times[i]` says when the stone of
    /// `steps[i]` went down (else `obs`'s times of its point): from its `left_ms` a press counts
    /// as after it (R17.4), and its `seen_ms` is the time its `move` event tells.
    pub(super) fn record_steps_timed(
        &mut self,
        steps: &[Step],
        times: Option<&[PointTimes]>,
        obs: Observation<'_>,
    ) {
        if self.phase == Phase::Finished {
            return;
        }
        self.ambiguous = None;
        // A move by the opponent of the captor while captured stones still lie on the board:
        // the captor missed them (R18.2). A pending stone's captor is the other colour.
        if let Some(first) = steps.first() {
            let landed = times
                .and_then(|t| t.first().copied())
                .unwrap_or_else(|| obs.times_of(first.point))
                .seen_ms;
            let played: Vec<Point> = steps.iter().map(|s| s.point).collect();
            self.note_overdue_captures(first.color, landed, &played, obs);
        }
        for (i, step) in steps.iter().enumerate() {
            self.commit_last();
            let pending_before = self.pending.clone();
            let Ok(outcome) = self.game.play(step.color, Some(step.point)) else {
                continue; // explain() played this exact move; cannot happen
            };
            let when = times
                .and_then(|t| t.get(i).copied())
                .unwrap_or_else(|| obs.times_of(step.point));
            self.record
                .moves
                .push(RecordedMove::new(step.color, Some(step.point)));
            if step.hidden {
                let last = self.record.moves.len() - 1;
                self.note_at(last, NEVER_SEEN);
            }
            self.note_placed(step.point, when);
            if self.phase == Phase::Scoring {
                self.phase = Phase::Play; // R21.4: play resumes
                self.resume_phase = Phase::Play;
                self.push_phase();
            }
            self.events.push_at(
                EventKind::Move {
                    color: step.color,
                    point: self.gtp(step.point),
                    sgf: step.point.to_sgf(),
                    number: outcome.number,
                    captured: step.captured.iter().map(|&p| self.gtp(p)).collect(),
                },
                when.seen_ms,
            );
            self.last = Some(LastMove {
                color: step.color,
                point: Some(step.point),
                placed_at: when.left_ms,
                recorded_at: obs.at_ms,
                pending_before,
                committed: false,
                committed_ms: None,
                pressed: false,
            });
            self.owe_press(
                step.color,
                outcome.number,
                (when.left_ms, when.seen_ms),
                Some(step.point),
            );
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
                self.end_by_cycle();
            }
        }
    }

    /// `mover` moves while stones it lost are still on the board: their captor has not lifted
    /// them in time (R18.2). Stones the same board shows lifted were lifted in time: which came
    /// first cannot be told, and the captor has the benefit of the doubt. A captor still busy
    /// lifting them (a hand over one of the captured stones within the last
    /// [`LIFT_PATIENCE_MS`] since the mover's stone went down at `landed_ms`: quick play, a big
    /// group) is lifting them, not missing them: the stones are flagged only once nobody has
    /// touched them for that long. Points in `played` (the moves being recorded) had their
    /// captured stone lifted.
    pub(super) fn note_overdue_captures(
        &mut self,
        mover: Color,
        landed_ms: u64,
        played: &[Point],
        obs: Observation<'_>,
    ) {
        // a point played on (`played`: the moves being recorded) had its captured stone lifted
        let left: Vec<Point> = self
            .pending
            .iter()
            .filter(|&&(p, victim)| {
                victim == mover && obs.grid.get(p) == Some(victim) && !played.contains(&p)
            })
            .map(|&(p, _)| p)
            .collect();
        if left.is_empty() || self.overdue.is_some() {
            return;
        }
        let touched = self.last_touched(&left, obs);
        let captor = mover.opposite();
        let since = self
            .captured_at
            .iter()
            .filter(|(p, _)| left.contains(p))
            .map(|&(_, at)| at)
            .max()
            .unwrap_or(obs.at_ms)
            .max(landed_ms.min(obs.at_ms));
        let last_activity = touched.unwrap_or(since).max(since);
        if obs.at_ms.saturating_sub(last_activity) >= LIFT_PATIENCE_MS
            || (obs.complete && touched.is_none())
        {
            self.flag_missed_captures(captor, left, obs.grid);
            return;
        }
        self.overdue = Some(Overdue {
            captor,
            points: left,
            since_ms: last_activity,
        });
    }

    /// The last board time, ms, a hand was over one of `points` (`None`: not known).
    fn last_touched(&self, points: &[Point], obs: Observation<'_>) -> Option<u64> {
        if obs.touched.is_empty() {
            return None;
        }
        let size = obs.grid.size();
        points
            .iter()
            .filter_map(|p| obs.touched.get(p.index(size)).copied())
            .max()
    }

    /// Captured stones overdue since the opponent moved: lifted meanwhile, nothing to say;
    /// still there and nobody lifting them for [`LIFT_PATIENCE_MS`] (no hand over them, none
    /// of them lifted), R18.2.
    pub(super) fn check_overdue_captures(&mut self, obs: Observation<'_>) {
        let Some(overdue) = self.overdue.take() else {
            return;
        };
        let still = self.still_on_board(&overdue, obs.grid);
        if still.is_empty() {
            return;
        }
        let mut activity = overdue.since_ms;
        if still.len() < overdue.points.len() {
            activity = activity.max(obs.at_ms); // some were lifted: the captor is at it
        }
        if let Some(t) = self.last_touched(&overdue.points, obs) {
            activity = activity.max(t);
        }
        if obs.at_ms.saturating_sub(activity) >= LIFT_PATIENCE_MS
            || (obs.complete && obs.touched.is_empty())
        {
            self.flag_missed_captures(overdue.captor, still, obs.grid);
        } else {
            self.overdue = Some(Overdue {
                points: still,
                since_ms: activity,
                ..overdue
            });
        }
    }

    /// Notes, for each captured stone still pending, the first board time after its capture
    /// that a hand was over it (`touched`: per point, the last board time it was disturbed).
    pub(super) fn note_first_touches(&mut self, touched: &[u64]) {
        let Some(size) = self.last_grid.as_ref().map(StoneGrid::size) else {
            return;
        };
        for &(p, captured) in &self.captured_at {
            let Some(&t) = touched.get(p.index(size)) else {
                continue;
            };
            if t > captured && !self.first_touched.iter().any(|&(q, _)| q == p) {
                self.first_touched.push((p, t));
            }
        }
    }

    /// The stones of `victim` captured and certainly still on the board at board time `at_ms`
    /// (R22.6): pending, and no hand over them since their capture until then. One a hand was
    /// over may have been lifted and a new stone of its colour put there (the opponent's reply
    /// on the point): which came first cannot be told, and the captor has the benefit of the
    /// doubt (a stone really left there is missed once the opponent moves, R18.2).
    pub(super) fn unlifted_at(&self, victim: Color, at_ms: u64) -> Vec<Point> {
        self.pending
            .iter()
            .filter(|&&(p, v)| {
                v == victim
                    && !self
                        .first_touched
                        .iter()
                        .any(|&(q, t)| q == p && t <= at_ms)
            })
            .map(|&(p, _)| p)
            .collect()
    }

    /// Time passed: captured stones overdue that nobody has touched for [`LIFT_PATIENCE_MS`]
    /// are flagged (R18.2) on the board as last seen.
    pub(super) fn overdue_on_tick(&mut self, now_ms: u64, touched: &[u64]) {
        let Some(overdue) = &mut self.overdue else {
            return;
        };
        if let Some(size) = self.last_grid.as_ref().map(StoneGrid::size) {
            // a hand over one of them since: the captor is lifting them
            for p in &overdue.points {
                if let Some(&t) = touched.get(p.index(size)) {
                    overdue.since_ms = overdue.since_ms.max(t);
                }
            }
        }
        if now_ms.saturating_sub(overdue.since_ms) < LIFT_PATIENCE_MS {
            return;
        }
        let Some(overdue) = self.overdue.take() else {
            return;
        };
        let Some(grid) = self.last_grid.clone() else {
            return;
        };
        let still = self.still_on_board(&overdue, &grid);
        if !still.is_empty() {
            self.flag_missed_captures(overdue.captor, still, &grid);
        }
    }

    /// The overdue captured stones still on `grid`: still pending, and not a stone of the
    /// captor's colour since (put on the point after it was lifted).
    fn still_on_board(&self, overdue: &Overdue, grid: &StoneGrid) -> Vec<Point> {
        overdue
            .points
            .iter()
            .copied()
            .filter(|&p| {
                self.pending.iter().any(|&(q, _)| q == p)
                    && grid.get(p).is_some_and(|c| c != overdue.captor)
            })
            .collect()
    }

    fn flag_missed_captures(&mut self, captor: Color, left: Vec<Point>, grid: &StoneGrid) {
        // One failure, one warning: not again if the clock press was already flagged.
        let already = self.violations.iter().any(|v| {
            v.open
                && matches!(
                    v.code,
                    ViolationCode::MissedCapture | ViolationCode::ClockBeforeCaptures
                )
                && left.iter().any(|p| v.points.contains(p))
        });
        if already {
            return;
        }
        self.flag(
            ViolationCode::MissedCapture,
            captor,
            left,
            format!(
                "{} moved while stones captured by {} were still on the board: lift them",
                captor.opposite().as_str(),
                captor.as_str()
            ),
            grid,
            BoardDiff::default(),
        );
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
        // not proven (the board did not see the order): the stone stands, recorded as played,
        // and the referee is told — nothing to put right on the board, play goes on
        // (the alternation unseen, or any doubt about the evidence — hands over the board, an
        // order not known for sure: a stone that may follow one still hidden is not taken off)
        let doubt = (!wrong_colors && self.config.policy == Policy::Rules)
            .then(|| {
                let alt = self.alternation_unseen(step.color, step.point, obs);
                // a doubt about the whole record first (it says more)
                self.doubt(code, &[step.point], None).or(alt)
            })
            .flatten();
        let stands = wrong_colors
            || doubt.is_some()
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
        // R17.2: a second move that does not stand is invalid; its stone comes off the board
        let fix = if stands {
            let fresh = step.captured.clone();
            self.record_steps(std::slice::from_ref(&step), obs);
            self.apply_tally(tally, &fresh);
            BoardDiff::default()
        } else {
            BoardDiff {
                restore: Vec::new(),
                remove: vec![step.point],
            }
        };
        self.flag_unless_doubt(
            code,
            step.color,
            vec![step.point],
            detail,
            obs.grid,
            fix,
            doubt,
        );
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
        // Not proven: the stone comes off all the same (the record cannot hold it), but it
        // costs nothing — no pass, no warning — unless the referee upholds it.
        let doubt = self.doubt(code, &[point], None);
        if doubt.is_none() || self.config.policy != Policy::Rules {
            self.commit_last();
            self.record_pass(color, obs.at_ms);
        }
        // the retake's capture goes back, the stone comes off
        let mut fix = BoardDiff::between(self.game.board(), obs.grid);
        for c in captures {
            if !fix.restore.iter().any(|&(q, _)| q == c) {
                fix.restore.push((c, color.opposite()));
            }
        }
        self.flag(code, color, vec![point], detail, obs.grid, fix);
    }

    /// The capture bookkeeping if `step` alone is played from the record and `grid` shows it
    /// (its own captures may still lie on the board).
    pub(super) fn tally_after(&self, step: &Step, grid: &StoneGrid) -> Option<CaptureTally> {
        self.tally_after_line(std::slice::from_ref(step), grid)
    }

    /// The capture bookkeeping if the moves `steps` are played from the record and `grid`
    /// shows the position after them (the line's captures may still lie on the board); `None`
    /// if a move is illegal or the board shows anything else.
    pub(super) fn tally_after_line(
        &self,
        steps: &[Step],
        grid: &StoneGrid,
    ) -> Option<CaptureTally> {
        let mut g = self.game.clone();
        let mut pending = self.pending.clone();
        for step in steps {
            g.play(step.color, Some(step.point)).ok()?;
            pending.extend(step.captured.iter().map(|&p| (p, step.color.opposite())));
        }
        match explain(&g, &pending, grid) {
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

/// The violation a stone the rules forbid is: a ko retaken at once (R20.1) or a forbidden
/// point (R18.3, G5).
pub(super) fn illegal_code(illegal: &Illegal) -> ViolationCode {
    match illegal {
        Illegal::Ko(_) => ViolationCode::KoRecapture,
        _ => ViolationCode::ForbiddenPoint,
    }
}
