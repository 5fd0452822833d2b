//! Presses and the clock: passes (G2), clock presses (R17.4, R22.6), flag falls (R22.5),
//! resignation (G7).

use super::proof::SCAN_MS;
use super::*;

impl Referee {
    /// A pass (G2: an explicit act, never inferred from silence) at board time `at_ms`. Two
    /// passes in a row enter scoring (R21.1).
    pub fn on_pass(&mut self, color: Color, at_ms: u64) {
        self.on_pass_seen(color, at_ms, None);
    }

    /// [`Referee::on_pass`], with `touched`: per point (dense index), the last board time, ms,
    /// at which the point did not read its settled value (a hand over it) — the evidence that
    /// a captured stone may have been lifted and a stone of its colour put back on its point.
    pub fn on_pass_seen(&mut self, color: Color, at_ms: u64, touched: Option<&[u64]>) {
        if matches!(self.phase, Phase::Finished | Phase::Paused) {
            return;
        }
        if self.ambiguous.is_some() {
            self.stats.ignored_passes += 1;
            return;
        }
        if color != self.game.to_move() {
            if let Some(touched) = touched {
                self.replayed_before_pass(color, touched);
            }
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
            last.committed_ms.get_or_insert(at_ms);
        }
        // R21.1: both sides passed one after the other (two passes by one side are not it)
        let both_passed = match self.record.moves.as_slice() {
            [.., a, b] => a.point.is_none() && b.point.is_none() && a.color != b.color,
            _ => false,
        };
        if both_passed && matches!(self.phase, Phase::Play) {
            self.enter_scoring(at_ms);
        }
    }

    /// `passer` passes although the other side is to move. A stone the other side captured
    /// from itself earlier may still lie on the board — or have been lifted and a new stone of
    /// the same colour put on its point under a hand, which the sensors cannot tell apart
    /// (a retake on the point of a captured stone). When exactly one such point was covered
    /// since its stone was captured and is a legal move for the side to move, that move is
    /// what the pass answers: it is recorded first.
    fn replayed_before_pass(&mut self, passer: Color, touched: &[u64]) {
        self.replay_touched_pending(passer.opposite(), Some(touched), u64::MAX);
    }

    /// A captured stone of `mover` still pending whose point a hand was over since its
    /// capture — per `touched` (the last board time each point was disturbed), or else by
    /// [`Referee::note_first_touches`] before `at_ms` — may be a new stone of `mover` put on
    /// its point (a retake there). When exactly one such point is a legal move for `mover`,
    /// it is recorded as that move. Returns whether it was.
    fn replay_touched_pending(
        &mut self,
        mover: Color,
        touched: Option<&[u64]>,
        at_ms: u64,
    ) -> bool {
        if self.game.to_move() != mover {
            return false;
        }
        let Some(grid) = self.last_grid.clone() else {
            return false;
        };
        let touched_since_capture = |p: Point| match touched {
            Some(touched) => {
                let captured = self
                    .captured_at
                    .iter()
                    .find(|&&(q, _)| q == p)
                    .map_or(u64::MAX, |&(_, at)| at);
                touched
                    .get(p.index(grid.size()))
                    .is_some_and(|&t| t > captured)
            }
            None => self
                .first_touched
                .iter()
                .any(|&(q, t)| q == p && t <= at_ms),
        };
        let options: Vec<Step> = self
            .pending
            .iter()
            .filter(|&&(p, c)| c == mover && grid.get(p) == Some(c))
            .filter(|&&(p, _)| touched_since_capture(p))
            .filter_map(|&(p, _)| {
                let preview = self.game.preview(mover, p).ok()?;
                Some(Step {
                    color: mover,
                    point: p,
                    captured: preview.captured,
                    hidden: false,
                })
            })
            .filter(|step| self.tally_after(step, &grid).is_some())
            .collect();
        if let [step] = &options[..] {
            // down by the press it answers, if that came first; and going down since the
            // first hand over its point after the capture (a press while placing it is no
            // press before the stone, R17.4)
            let at = self.now_ms.min(at_ms);
            let mut times = times_now(&grid, at);
            let first_touch = self
                .first_touched
                .iter()
                .find(|&&(q, _)| q == step.point)
                .map(|&(_, t)| t);
            if let (Some(t), Some(slot)) =
                (first_touch, times.get_mut(step.point.index(grid.size())))
            {
                slot.left_ms = t.min(at);
            }
            let obs = Observation::judged_now(&grid, at, &times);
            let fresh = step.captured.clone();
            let tally = self.tally_after(step, &grid);
            self.record_steps(std::slice::from_ref(step), obs);
            if let Some(t) = tally {
                self.apply_tally(t, &fresh);
            }
            return true;
        }
        false
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
        if self.phase == Phase::Scoring {
            // R21.1: a press after both passed agrees to the count shown
            self.agree_to_count(color, at_ms);
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
        // The newest move already going down when pressed (older ones lost their press,
        // e.g. while the board was away; pressed while placing it counts, R17.4) — unless its
        // stone was not certainly down yet and neither was the opponent's stone it answers:
        // a reply to a stone not yet down cannot have been played, so the press is for the
        // newest earlier move certainly down (quick players: the press, then the opponent's
        // stone, then the presser's next one under a hand already waiting). Else the oldest
        // still coming (a press before its stone).
        let certainly = |u: &Unpressed| u.seen_at.unwrap_or(u.placed_at) <= at_ms;
        // With a game clock the presses alternate as the clock lets them: each side's presses
        // come in the order of its moves, so a press is for the oldest move still waiting for
        // one (a hand over a neighbouring point dates the next stone's `left` too early to
        // tell which one it is).
        let pick = match owed.iter().rposition(|u| u.placed_at <= at_ms) {
            _ if timed => (!owed.is_empty()).then_some(0),
            Some(i)
                if !certainly(&owed[i])
                    && owed[i].reply_to_seen.is_some_and(|seen| seen > at_ms) =>
            {
                owed[..i].iter().rposition(certainly).or(Some(i))
            }
            newest => newest,
        }
        .or((!owed.is_empty()).then_some(0));
        let for_move = pick.map(|i| {
            let u = owed[i];
            owed.drain(..=i);
            u
        });
        if let Some(u) = for_move {
            let (placed_at, point) = (u.placed_at, u.point);
            // the press is for the last move recorded, or for an earlier one of the presser's
            // (the opponent and the presser have moved again since: quick players)
            let for_last = u.number as usize == self.record.moves.len();
            if let Some(l) = self.last.as_mut().filter(|l| l.color == color && for_last) {
                l.pressed = true;
                l.committed = true;
                l.committed_ms.get_or_insert(at_ms);
            }
            let outcome = PressOutcome::Switch {
                move_number: u.number,
            };
            let pending_now = for_last && self.last.as_ref().is_some_and(|l| l.color == color);
            if point.is_some() && at_ms < placed_at {
                let detail = format!(
                    "{} pressed the clock {} ms before its stone was down",
                    color.as_str(),
                    placed_at - at_ms
                );
                // proof: the point read empty after the press (a scan after it)
                let doubt = (at_ms + SCAN_MS >= placed_at).then(|| {
                    "the press came within a scan of the stone: the board cannot tell which was first".to_string()
                });
                self.flag_unless_doubt(
                    ViolationCode::ClockBeforeStone,
                    color,
                    point.into_iter().collect(),
                    detail,
                    &grid,
                    BoardDiff::default(),
                    doubt,
                );
            } else if pending_now && !self.unlifted_at(color.opposite(), at_ms).is_empty() {
                let points = self.unlifted_at(color.opposite(), at_ms);
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
        if color == self.game.to_move() && self.replay_touched_pending(color, None, at_ms) {
            // the press answers a retake on a captured stone's point: judged for that move
            return self.on_clock(color, at_ms);
        }
        if color == self.game.to_move() {
            // A stone of the presser's colour stacked on an occupied point looks like this
            // (C5/O13); otherwise the clock was pressed before any stone (R17.4).
            let stacked = self.stacked_stone(color);
            let doubt = stacked.and_then(|p| self.doubt(ViolationCode::OccupiedPoint, &[p], None));
            if let (Some(p), Some(why)) = (stacked, doubt) {
                let detail = format!(
                    "{} put a stone on {}, which already holds a stone? — not proven ({why}): nothing is charged unless the referee upholds it",
                    color.as_str(),
                    self.gtp(p)
                );
                self.notice(ViolationCode::OccupiedPoint, color, vec![p], detail, &grid);
                return PressOutcome::Stay;
            }
            if let Some(p) = stacked {
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
                    l.committed_ms.get_or_insert(at_ms);
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
                // proof: the whole board in view from the press on, and no stone of the
                // presser's anywhere on it not yet judged
                let doubt = self.hand_since(at_ms).then(|| {
                    "a hand was over the board since the press: the stone may be under it"
                        .to_string()
                });
                self.flag_unless_doubt(
                    ViolationCode::ClockBeforeStone,
                    color,
                    Vec::new(),
                    detail,
                    &grid,
                    BoardDiff::default(),
                    doubt,
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
    pub(super) fn stacked_stone(&self, color: Color) -> Option<Point> {
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
}
