//! What a board shows that no move explains: the last move adjusted, sensor anomalies, and
//! committed stones lifted or moved (R17.3, R17.5, R18.1).

use super::*;

impl Referee {
    /// The last move, not yet committed, is being adjusted: its stone was lifted (the move is
    /// withdrawn) or moved (the move is replaced).
    pub(super) fn adjust_last_move(&mut self, obs: Observation<'_>) -> bool {
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

    pub(super) fn undo_last(&mut self) {
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
        self.trim_provisional(None);
    }

    /// R17.3: the last move captured, and the board shows the position before it coming back —
    /// its stone lifted, none, some or all of the stones it captured back on their points (put
    /// back by either player, in any order), everything else as recorded. A committed move:
    /// one `takeback`, whose fix is the capture's position again (the stone back, the captured
    /// stones off); the record keeps the move until the referee accepts the takeback, and
    /// the capture played again is that fix, no new move (nor a ko). A move not yet committed
    /// is withdrawn once the position before it is back (a stone picked up again before the
    /// move was complete); on the way there, nothing is judged.
    ///
    /// Not a takeback: a single captured stone put down again, capturing the capturing stone,
    /// before that stone was certainly lifted is the opponent's recapture (in a ko, the
    /// retake of R20.1), judged as a move.
    pub(super) fn takeback_of_capture(&mut self, obs: Observation<'_>) -> bool {
        let Some(last) = self.last.clone() else {
            return false;
        };
        let Some(at) = last.point else {
            return false;
        };
        if obs.grid.get(at).is_some() {
            return false;
        }
        let victim = last.color.opposite();
        let mut before = self.game.clone();
        if !before.undo() {
            return false;
        }
        let board = self.game.board();
        let captured: Vec<Point> = before
            .board()
            .stones()
            .filter(|&(p, c)| c == victim && board.get(p).is_none())
            .map(|(p, _)| p)
            .collect();
        if captured.is_empty() {
            return false;
        }
        let mut returned = Vec::new();
        for (p, sensed) in obs.grid.iter() {
            if p == at {
                continue;
            }
            if captured.contains(&p) {
                match sensed {
                    None => {}
                    Some(c) if c == victim => returned.push(p),
                    Some(_) => return false,
                }
                continue;
            }
            let as_recorded = sensed == board.get(p)
                || sensed.is_some_and(|c| self.pending.contains(&(p, c)))
                || (sensed.is_none() && self.pending.iter().any(|&(q, _)| q == p));
            if !as_recorded {
                return false;
            }
        }
        if let [x] = returned[..] {
            // A stone on x that captures the capturing stone is also a move: the recapture
            // (a ko retake, R20.1, or a legal one, perhaps with more stones still to lift).
            // It is a takeback only if the capturing stone was certainly gone before the
            // stone came back.
            let (recapture, legal) = match self.game.preview(victim, x) {
                Ok(preview) => (preview.captured.contains(&at), true),
                Err(e) => (matches!(e, crate::rules::Illegal::Ko(_)), false),
            };
            let (mut put, lifted) = (obs.times_of(x), obs.times_of(at));
            // (not for a ko retake, illegal at once: a hand passing over the captured stone
            // while the capturer takes its stone back must stay a takeback)
            if legal && put.seen_ms <= last.placed_at {
                // never seen lifted, but a hand was over it since the capture: a new stone
                // of its colour may have gone down there under the hand (a retake on a
                // captured stone's point), since that touch
                if let Some(&(_, t)) = self.first_touched.iter().find(|&&(q, _)| q == x) {
                    put = crate::sensing::PointTimes {
                        left_ms: t,
                        seen_ms: t,
                        reread_ms: 0,
                    };
                }
            }
            let lifted_first = lifted.seen_ms < put.left_ms;
            if recapture && put.seen_ms > last.placed_at && !lifted_first {
                return false;
            }
        }
        if !last.committed {
            // withdrawn once the position before it is back; until then nothing is judged
            self.adjust_last_move(obs);
            return true;
        }
        let detail = format!(
            "{} took back its capture at {}{}: put the stone back on {} and the captured stones off again",
            last.color.as_str(),
            self.gtp(at),
            if returned.is_empty() {
                String::new()
            } else {
                format!(
                    ", {} of the {} captured stones put back",
                    returned.len(),
                    captured.len()
                )
            },
            self.gtp(at)
        );
        let fix = BoardDiff {
            restore: vec![(at, last.color)],
            remove: captured,
        };
        self.flag_once(
            ViolationCode::Takeback,
            last.color,
            vec![at],
            detail,
            obs.grid,
            fix,
            None,
        );
        true
    }

    /// Points that show a stone of the other colour than the record: a sensor anomaly (or a
    /// stacked stone). Set them aside and explain the rest.
    pub(super) fn set_aside_anomalies(&mut self, obs: Observation<'_>) -> bool {
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
        // Set aside, the rest is a violation: the board as it reads may instead show the
        // record's last moves misread — a stone slid after it was recorded and its point
        // taken by the reply under a hand (issue 35) — looked at before anything is flagged.
        let would_flag = match &verdict {
            Verdict::OutOfTurn { .. } => Some(ViolationCode::TwoMovesInARow),
            Verdict::Illegal { illegal, .. } => Some(super::judge::illegal_code(illegal)),
            _ => None,
        };
        if would_flag.is_some_and(|code| self.revise(obs, code)) {
            self.anomalies.clear();
            return true;
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
    pub(super) fn board_violation(&mut self, obs: Observation<'_>) -> bool {
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
                self.flag_once(code, color, vec![from, to], detail, obs.grid, fix, None);
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
                        None,
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
                    let doubt = self.liberties_unseen(&masked, &lifted, victim);
                    self.flag_once(
                        ViolationCode::WrongCapture,
                        offender,
                        lifted,
                        detail,
                        obs.grid,
                        fix,
                        doubt,
                    );
                    self.apply_verdict(verdict, masked_obs);
                    return true;
                }
            }
        }
        false
    }
}
