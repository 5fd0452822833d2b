//! The referee's and organiser's commands: results, warnings, pause and resume, sealed moves,
//! colours, rulings on violations, corrections of the record.

use super::*;

impl Referee {
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
            Adjudication::NoResult => (None, "Void".to_string()),
        };
        self.finish(GameResult {
            winner,
            reason: "referee",
            re,
        });
    }

    /// A whole-board cycle was just flagged (R20.3): the event's rule ([`CycleRule`]) ends
    /// the game without a result, drawn, or to be replayed — or leaves it to the referee.
    pub(super) fn end_by_cycle(&mut self) {
        let (re, how) = match self.config.cycles {
            CycleRule::Referee => return,
            CycleRule::NoResult => ("Void", "no_result"),
            CycleRule::Draw => ("0", "draw"),
            CycleRule::Replay => ("Void", "replay"),
        };
        self.note_on_last(&format!(
            "R20.3: the cycle ends the game by the event's rules: {}",
            how.replace('_', " ")
        ));
        let open: Vec<u32> = self
            .violations
            .iter()
            .filter(|v| v.open && v.code == ViolationCode::SuperkoCycle)
            .map(|v| v.id)
            .collect();
        for id in open {
            self.close(id, how);
        }
        self.finish(GameResult {
            winner: None,
            reason: "cycle",
            re: re.to_string(),
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
                        committed_ms: Some(self.now_ms),
                        pressed: true,
                    });
                }
            }
        }
        if let (Some(grid), false) = (self.last_grid.clone(), sealed_move) {
            self.paused_base = Some(self.record.moves.len());
            self.flag_played_while_paused(&grid);
        }
        self.rejudge_last_board();
        Ok(())
    }

    /// Stones that went down while the clock was stopped (R22.8) are no moves until the
    /// referee accepts them: flagged once, each named with its colour in the order played (the
    /// board's times), and set aside (their fix is to lift them).
    pub(super) fn flag_played_while_paused(&mut self, grid: &StoneGrid) {
        let board = self.game.board();
        let size = self.size();
        let mut stones: Vec<(u64, Point, Color)> = grid
            .iter()
            .filter_map(|(p, sensed)| {
                let c = sensed?;
                let new = board.get(p).is_none() && !self.pending.contains(&(p, c));
                let seen = self
                    .paused_times
                    .get(p.index(size))
                    .map_or(0, |t| t.seen_ms);
                new.then_some((seen, p, c))
            })
            .collect();
        if stones.is_empty() {
            return;
        }
        stones.sort_by_key(|&(seen, p, _)| (seen, p.index(size)));
        let points: Vec<Point> = stones.iter().map(|&(_, p, _)| p).collect();
        let named: Vec<String> = stones
            .iter()
            .map(|&(_, p, c)| format!("{} {}", c.as_str(), self.gtp(p)))
            .collect();
        let detail = format!(
            "{} {} put down while the clock was stopped: {} once the referee accepts {}",
            named.join(", "),
            if named.len() == 1 { "was" } else { "were" },
            if named.len() == 1 {
                "it counts"
            } else {
                "they count, in this order,"
            },
            if named.len() == 1 { "it" } else { "them" },
        );
        let fix = BoardDiff {
            restore: Vec::new(),
            remove: points.clone(),
        };
        let color = stones[0].2;
        self.flag(
            ViolationCode::PlayedWhilePaused,
            color,
            points,
            detail,
            grid,
            fix,
        );
    }

    /// Accepts the stones of `v` (played while the clock was stopped, R22.8) when moves were
    /// recorded after the resume: they go into the record in the order played, at the place
    /// of the pause, and the moves made since follow them (each renumbered: `move_corrected`
    /// for the numbers that change, `move` for the new last ones).
    ///
    /// # Errors
    /// [`CommandError::CannotAccept`] when the stones are no longer all on the board, or the
    /// record with them in their place is not a legal game (nothing changes).
    fn accept_paused_before_later_moves(&mut self, v: &Violation) -> Result<(), CommandError> {
        let (Some(base), Some(grid)) = (self.paused_base, self.last_grid.clone()) else {
            return Err(CommandError::CannotAccept(
                v.id,
                "the board is not known".into(),
            ));
        };
        let mut stones = Vec::new();
        for &p in &v.points {
            let Some(color) = grid.get(p) else {
                return Err(CommandError::CannotAccept(
                    v.id,
                    format!("the stone on {} is no longer on the board", self.gtp(p)),
                ));
            };
            stones.push(RecordedMove::new(color, Some(p)));
        }
        let note = format!(
            "{} ({}): played while the clock was stopped, accepted by the referee",
            v.code.as_str(),
            v.clause
        );
        for m in &mut stones {
            m.comment = Some(note.clone());
        }
        let mut moves = self.record.moves[..base].to_vec();
        moves.extend(stones);
        moves.extend(self.record.moves[base..].iter().cloned());
        let game = self.replayed(&moves).map_err(|e| {
            CommandError::CannotAccept(v.id, format!("with them the record is not legal: {e}"))
        })?;
        self.rewrite_record(base, moves, game);
        self.paused_base = None;
        self.paused_times.clear();
        self.close(v.id, "accepted");
        self.rejudge_last_board();
        Ok(())
    }

    /// Replaces the record's moves from index `from` on by `moves[from..]` (`game`: the
    /// position after `moves`): `move_corrected` for each number whose move changes, `move`
    /// for each number beyond the old record (`move_undone` for each one fewer). The captured
    /// stones still lying are what the last board shows that the new position has not; the
    /// presses still owed follow their stones.
    pub(super) fn rewrite_record(&mut self, from: usize, moves: Vec<RecordedMove>, game: Game) {
        let size = self.size();
        let old = std::mem::take(&mut self.record.moves);
        for (i, m) in moves.iter().enumerate().skip(from) {
            let number = i as u32 + 1;
            match old.get(i) {
                Some(o) if o.color == m.color && o.point == m.point => {}
                Some(_) => self.events.push_back(EventKind::MoveCorrected {
                    number,
                    color: m.color,
                    point: m.point.map(|p| p.to_gtp(size)),
                }),
                None => self.events.push_back(match m.point {
                    Some(p) => EventKind::Move {
                        color: m.color,
                        point: p.to_gtp(size),
                        sgf: p.to_sgf(),
                        number,
                        captured: Vec::new(),
                    },
                    None => EventKind::Pass {
                        color: m.color,
                        number,
                    },
                }),
            }
        }
        for (i, o) in old.iter().enumerate().skip(moves.len()).rev() {
            self.events.push_back(EventKind::MoveUndone {
                number: i as u32 + 1,
                color: o.color,
                point: o.point.map(|p| p.to_gtp(size)),
            });
        }
        for side in &mut self.unpressed {
            for u in side.iter_mut() {
                if let Some(i) = moves
                    .iter()
                    .position(|m| m.point.is_some() && m.point == u.point)
                {
                    u.number = i as u32 + 1;
                }
            }
        }
        self.pending = self.pending_after(from, &moves, &game);
        self.record.moves = moves;
        self.game = game;
        self.last = None;
        self.trim_provisional(None);
    }

    /// The captured stones still lying on the last board after the record's moves are
    /// replaced from index `from` by `moves[from..]` (`game`: the position after them): those
    /// lying before, and those the new moves capture, that the board still shows and the new
    /// position has not.
    pub(super) fn pending_after(
        &self,
        from: usize,
        moves: &[RecordedMove],
        game: &Game,
    ) -> Vec<Pending> {
        let Some(grid) = &self.last_grid else {
            return self.pending.clone();
        };
        let mut captured: Vec<Point> = self.pending.iter().map(|&(p, _)| p).collect();
        if let Ok(mut g) = self.replayed(&moves[..from.min(moves.len())]) {
            for m in &moves[from.min(moves.len())..] {
                if let Ok(outcome) = g.play(m.color, m.point) {
                    captured.extend(outcome.captured);
                }
            }
        }
        let board = game.board();
        captured.sort_by_key(|p| p.index(self.size()));
        captured.dedup();
        captured
            .into_iter()
            .filter(|&p| board.get(p).is_none())
            .filter_map(|p| Some((p, grid.get(p)?)))
            .collect()
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
            Ruling::Uphold => {
                if v.penalty != Penalty::Notice {
                    return Err(CommandError::NotANotice(id));
                }
                let sanction = self.config.profile.sanction(v.code);
                self.note_on_last(&format!(
                    "{} ({}): upheld by the referee",
                    v.code.as_str(),
                    v.clause
                ));
                self.close(id, "upheld");
                if sanction.warning {
                    self.give_warning(v.color);
                }
                if sanction.penalty == Penalty::Loss && self.result.is_none() {
                    self.finish(GameResult {
                        winner: Some(v.color.opposite()),
                        reason: "referee",
                        re: format!("{}+F", v.color.opposite().sgf_letter()),
                    });
                }
                Ok(())
            }
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
                    let times = times_now(&grid, at);
                    let obs = Observation::judged_now(&grid, at, &times);
                    self.record_steps(std::slice::from_ref(&step), obs);
                    self.note_on_last(&format!("{} ({}): accepted as played by the referee", v.code.as_str(), v.clause));
                    self.close(id, "accepted");
                    self.on_board(obs);
                    Ok(())
                }
                ViolationCode::Takeback => self.accept_takeback(&v),
                ViolationCode::PlayedWhilePaused if self.paused_base.is_some_and(|b| b < self.record.moves.len()) => {
                    // moves were recorded since the resume: the stones played during the pause
                    // came first, and go in before them (R22.8)
                    self.accept_paused_before_later_moves(&v)
                }
                ViolationCode::PlayedWhilePaused => {
                    // the stones are judged as played, in the order the board's times give
                    self.paused_base = None;
                    self.close(id, "accepted");
                    let times = std::mem::take(&mut self.paused_times);
                    if let Some(grid) = self.last_grid.clone() {
                        let n = usize::from(grid.size()).pow(2);
                        let times = if times.len() == n {
                            times
                        } else {
                            times_now(&grid, self.now_ms)
                        };
                        self.on_board(Observation::judged_now(&grid, self.now_ms, &times));
                    }
                    Ok(())
                }
                ViolationCode::UnexplainedBoard => Err(CommandError::CannotAccept(
                    id,
                    "no legal moves explain the board as found; put it back as the LEDs show, adjudicate, or start a new game from this position".into(),
                )),
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
    pub(super) fn accept_takeback(&mut self, v: &Violation) -> Result<(), CommandError> {
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
    pub(super) fn rejudge_last_board(&mut self) {
        if let Some(grid) = self.last_grid.clone() {
            let at = self.now_ms;
            let times = times_now(&grid, at);
            self.on_board(Observation::judged_now(&grid, at, &times));
        }
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
        let game = self.replayed(&moves)?;
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
        self.trim_provisional(Some(number));
        if let Some(grid) = self.last_grid.clone() {
            self.refresh_guidance(&grid);
        }
        Ok(())
    }
}
