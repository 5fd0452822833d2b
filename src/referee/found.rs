//! The board as found (issue 14): the first board of a new game, and the first board after an
//! outage whose history is lost. The referee did not see it come about, so nothing on it is
//! repaired automatically: what legal moves do not explain is shown on the LEDs, and after an
//! outage the referee is told ([`ViolationCode::UnexplainedBoard`], R17.6: the position is
//! rebuilt from the record; nobody is charged).

use super::*;

impl Referee {
    /// The board went away and its history of the time is lost (`why`, as the `link` event
    /// says it: a service restart, a board that restarted or keeps no history): the next
    /// complete board is looked at as found before it is judged ([`AsFound::AfterOutage`]).
    /// Nothing changes after the end of the game (R21.3).
    pub fn board_unknown(&mut self, why: &str) {
        if self.phase != Phase::Finished {
            self.as_found = Some(AsFound::AfterOutage(why.to_string()));
            self.gap_at = Some(self.record.moves.len());
            // the patience for the board as found starts afresh
            self.partial_since = None;
            // the presses still owed were made (or not) while nobody listened: lost
            for side in &mut self.unpressed {
                side.clear();
            }
        }
    }

    /// Looks at the board as found, if it is due. Returns true while the referee waits for a
    /// complete board to look at (a board that is not complete is not judged meanwhile) —
    /// after an outage only while legal moves do not explain the board as it shows, and at
    /// most [`PARTIAL_PATIENCE_MS`] of a board that never settles (quick play).
    ///
    /// * At the start of a game, one legal stone is the first move (put down as the board
    ///   came up: there is no order to guess; of the wrong colour, R17.1's `wrong_colors`). Any other difference to the
    ///   starting position is kept in `found`: never a move, shown on the LEDs until put
    ///   right (phase `setup`), while the moves played meanwhile are judged on the board as if
    ///   it were put right.
    /// * After an outage, legal moves (one order, or several held for the referee) that explain
    ///   the board are judged as usual; anything else — a stone with no liberties, stones out of
    ///   turn, stones missing or moved — is one `unexplained_board` for the referee, whose fix
    ///   is the record's position, with no warning to anyone.
    pub(super) fn look_as_found(&mut self, obs: Observation<'_>) -> bool {
        let Some(found) = self.as_found.clone() else {
            return false;
        };
        if !matches!(self.phase, Phase::Setup | Phase::Play | Phase::Desync) {
            self.as_found = None; // scoring, a pause, the end: boards are judged as they come
            return false;
        }
        if !obs.complete {
            let AsFound::AfterOutage(_) = &found else {
                return true;
            };
            // Quick play: hands may never leave the board all at once. Stones that legal moves
            // explain are judged as the board shows them, as any partial board is (the gap
            // makes them unproven, [`super::proof`]); a board they do not explain waits for
            // the complete board, or while it never settles for [`PARTIAL_PATIENCE_MS`] — the
            // longer it waits, the more moves pile up that no order can be found for.
            let grid = self.apply_fixes(obs.grid);
            let verdict = explain_timed(&self.game, &self.pending, &grid, obs.timing(), &[], &[]);
            if matches!(
                verdict,
                Verdict::Unchanged(_) | Verdict::Moves { .. } | Verdict::Ambiguous(_)
            ) {
                self.as_found = None;
                self.partial_since = None;
                return false;
            }
            let since = *self.partial_since.get_or_insert(obs.at_ms);
            if obs.at_ms.saturating_sub(since) < PARTIAL_PATIENCE_MS {
                return true;
            }
        }
        self.partial_since = None;
        self.as_found = None;
        match found {
            AsFound::GameStart => {
                if !self.record.moves.is_empty() || !self.handicap_placed.is_empty() {
                    return false;
                }
                let mut diff = BoardDiff::between(self.game.board(), obs.grid);
                // Stones put down after the board came up are moves, judged as usual; only
                // what it had then is looked at as found (missing setup stones always are).
                if let Some(came_up) = obs.came_up_ms {
                    diff.remove.retain(|&p| obs.times_of(p).seen_ms <= came_up);
                }
                if self.is_first_move(&diff, obs.grid) {
                    return false; // put down as the board came up: no order to guess
                }
                if !diff.is_empty() {
                    tracing::info!(
                        remove = diff.remove.len(),
                        restore = diff.restore.len(),
                        "the board as found at the start differs from the starting position: to put right, no move"
                    );
                    self.found = diff;
                }
            }
            AsFound::AfterOutage(why) => {
                let grid = self.apply_fixes(obs.grid);
                let verdict =
                    explain_timed(&self.game, &self.pending, &grid, obs.timing(), &[], &[]);
                if matches!(
                    verdict,
                    Verdict::Unchanged(_) | Verdict::Moves { .. } | Verdict::Ambiguous(_)
                ) {
                    return false;
                }
                let mut diff = BoardDiff::between(self.game.board(), &grid);
                diff.remove
                    .retain(|p| !self.pending.iter().any(|(q, _)| q == p));
                if diff.is_empty() {
                    return false;
                }
                // more stones than any search of every order takes, in an order nobody saw:
                // one line that explains them is recorded provisionally, and play goes on
                if self.record_some_line(&why, Observation { grid: &grid, ..obs }) {
                    return false;
                }
                // the record's last moves misread before the outage (a stone that slid under
                // the finger before it was committed, an order hands hid) may explain it
                if self.revise(
                    Observation { grid: &grid, ..obs },
                    ViolationCode::UnexplainedBoard,
                ) {
                    return false;
                }
                let size = self.size();
                let mut points: Vec<Point> = diff.remove.clone();
                points.extend(diff.restore.iter().map(|&(p, _)| p));
                points.sort_by_key(|p| p.index(size));
                let named = |stones: Vec<String>| {
                    if stones.is_empty() {
                        "none".to_string()
                    } else {
                        stones.join(" ")
                    }
                };
                let extra = named(
                    diff.remove
                        .iter()
                        .map(|&p| {
                            let c = grid.get(p).map_or("?", |c| c.as_str());
                            format!("{c} {}", p.to_gtp(size))
                        })
                        .collect(),
                );
                let missing = named(
                    diff.restore
                        .iter()
                        .map(|&(p, c)| format!("{} {}", c.as_str(), p.to_gtp(size)))
                        .collect(),
                );
                let detail = format!(
                    "{why}; the board as found is not the record's position and no legal moves explain it (not in the record: {extra}; missing: {missing}): put it back as the LEDs show, or rule"
                );
                let color = self.game.to_move();
                self.flag(
                    ViolationCode::UnexplainedBoard,
                    color,
                    points,
                    detail,
                    obs.grid,
                    diff,
                );
                self.unexplained_outage = self
                    .violations
                    .last()
                    .filter(|v| v.open && v.code == ViolationCode::UnexplainedBoard)
                    .map(|v| (v.id, why.clone()));
            }
        }
        false
    }

    /// Looks again at a board after an outage that legal moves did not explain
    /// ([`Referee::unexplained_outage`]): the board as it lies now, the fix of that
    /// `unexplained_board` not applied. Where legal moves explain it now — a stone a hand hid
    /// has come out, a stone was put back, more stones made the order plain — they are recorded
    /// as after any outage, and the violation closes as `explained`: nobody has to put the
    /// board back to the record of before the outage and play the moves again. Looked at once
    /// per [`LOOK_AGAIN_MS`] of board time at most (a search of every order is not cheap).
    /// Returns whether the board was judged so.
    pub(super) fn look_again_as_found(&mut self, obs: Observation<'_>) -> bool {
        let Some((id, why)) = self.unexplained_outage.clone() else {
            return false;
        };
        let open = self.violations.iter().any(|v| v.id == id && v.open);
        if !open || !matches!(self.phase, Phase::Play | Phase::Desync) {
            self.unexplained_outage = None;
            return false;
        }
        if self.looked_at_too_soon(obs) {
            return false;
        }
        // only once a stone the violation does not name is down (play went on, or the stone a
        // hand hid came out): while the players lift what the LEDs show, what is left is no
        // move
        let board = self.game.board();
        let Some(fix) = self.violations.iter().find(|v| v.id == id).map(|v| &v.fix) else {
            return false;
        };
        let grid = self.apply_fixes_but(obs.grid, id);
        let more = grid.iter().any(|(p, c)| {
            c.is_some()
                && board.get(p).is_none()
                && !fix.remove.contains(&p)
                && !self.pending.iter().any(|&(q, _)| q == p)
        });
        if !more {
            return false;
        }
        let fobs = Observation { grid: &grid, ..obs };
        let verdict = explain_timed(&self.game, &self.pending, &grid, obs.timing(), &[], &[]);
        let explained = match verdict {
            Verdict::Moves { .. } | Verdict::Ambiguous(_) => self.apply_verdict(verdict, fobs),
            // the record's position: put back, the violation closes as `board_restored`
            Verdict::Unchanged(_) => false,
            _ => self.record_some_line(&why, fobs),
        };
        if explained {
            self.unexplained_outage = None;
            self.close(id, "explained");
            self.settle_fixes(obs.grid);
            self.refresh_guidance(obs.grid);
        } else {
            self.looked_at = Some(obs.grid.clone());
        }
        explained
    }

    /// Whether a board is not to be looked at again yet ([`Referee::look_again_as_found`],
    /// [`Referee::unstick`]): within [`LOOK_AGAIN_MS`] of board time of the last look, or the
    /// very board the last look found nothing for. Notes the look otherwise.
    pub(super) fn looked_at_too_soon(&mut self, obs: Observation<'_>) -> bool {
        if self
            .looked_again_ms
            .is_some_and(|at| obs.at_ms.saturating_sub(at) < LOOK_AGAIN_MS)
            || self.looked_at.as_ref() == Some(obs.grid)
        {
            return true;
        }
        self.looked_again_ms = Some(obs.at_ms);
        false
    }

    /// After an outage whose history was lost (`why`), stones that legal moves explain in
    /// some order but too many for the orders to be searched (or told apart): one line that
    /// explains the board ([`some_line`]) is recorded at once, provisionally — its moves
    /// marked so, their SGF comments and `provisional` event, the referee told with a
    /// `notice` — rather than the board held for the rest of the game (issue 35: an ambiguity
    /// never freezes the record). Returns whether it was.
    fn record_some_line(&mut self, why: &str, obs: Observation<'_>) -> bool {
        // a stone placed and captured again nobody saw is looked for only on a board with no
        // hand over it: a hand may still hide the stone that is missing
        let unseen = if obs.complete && !obs.hands {
            MAX_HIDDEN_UNSEEN
        } else {
            0
        };
        let mut budget = LINES_BUDGET;
        let Some((steps, tally)) = some_line(
            &self.game,
            &self.pending,
            obs.grid,
            obs.timing(),
            unseen,
            &mut budget,
        ) else {
            return false;
        };
        let Some(first) = steps.first() else {
            return false;
        };
        let color = first.color;
        let from = self.record.moves.len();
        let points: Vec<Point> = steps.iter().map(|s| s.point).collect();
        self.record_provisional(
            vec![Candidate {
                steps,
                out_of_turn: false,
                still_pending: tally.still_pending,
            }],
            obs,
        );
        let to = self.record.moves.len();
        if to == from {
            return true; // the game is over: nothing recorded
        }
        let detail = format!(
            "{why}; {} stones were put down meanwhile in an order nobody saw: recorded as moves {}-{} in one order that explains the board, provisionally (a move in the wrong place can be corrected)",
            to - from,
            from + 1,
            to
        );
        self.notice(
            ViolationCode::UnexplainedBoard,
            color,
            points,
            detail,
            obs.grid,
        );
        true
    }

    /// Whether `diff` to the starting position is one stone on a point where it is legal,
    /// capturing nothing: the first move, whenever it was put down — of the side to move, or
    /// of the other, which is judged as colours taken the wrong way round (R17.1, for the
    /// referee).
    fn is_first_move(&self, diff: &BoardDiff, grid: &StoneGrid) -> bool {
        let [p] = diff.remove[..] else {
            return false;
        };
        let Some(colour) = grid.get(p) else {
            return false;
        };
        diff.restore.is_empty()
            && self
                .game
                .preview(colour, p)
                .is_ok_and(|preview| preview.captured.is_empty())
    }

    /// Forgets the points of `found` the board now shows put right (or that the record has
    /// since filled).
    pub(super) fn settle_found(&mut self, grid: &StoneGrid) {
        if self.found.is_empty() {
            return;
        }
        let board = self.game.board();
        self.found
            .restore
            .retain(|&(p, c)| grid.get(p) != Some(c) && board.get(p) == Some(c));
        self.found
            .remove
            .retain(|&p| grid.get(p).is_some() && board.get(p).is_none());
    }
}
