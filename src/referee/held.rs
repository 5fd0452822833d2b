//! Boards held for the referee: several explanations of a board (`ambiguous`), followed as play
//! goes on until one is left or the referee chooses.
//!
//! Each explanation is a line of play from the record: the moves that explain the board that
//! was held, then every move made since, with the captured stones still lying in that line.
//! Nothing is recorded meanwhile — the record keeps the order the moves were played in — but
//! nothing is lost either: when one line is left, or the referee picks one, all its moves are
//! recorded at once, each with the times its stone went down. The `ambiguous` event names the
//! explanations of the held board; it goes out again only when one of them is ruled out.

use super::*;

/// Most lines of play followed while a board is held for the referee (each further hidden
/// exchange can double them); beyond, nothing more is followed until the referee chooses.
pub const MAX_HELD_WAYS: usize = 16;

/// One explanation held for the referee, followed as play goes on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct HeldWay {
    /// The moves from the record on (the held ones, then those made since) and the captured
    /// stones still lying after them.
    pub(super) candidate: Candidate,
    /// Per move of `candidate`: when its stone went down.
    pub(super) times: Vec<PointTimes>,
    /// Moves of `candidate` that explain the board that was held (the rest came after).
    pub(super) held: usize,
}

/// Explanations waiting for the referee's choice.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct Ambiguity {
    pub(super) ways: Vec<HeldWay>,
    /// The last board the ways were followed to.
    pub(super) grid: StoneGrid,
}

impl Referee {
    /// A board after one held for the referee: the held board came first, so the new one is
    /// explained only as one of the held lines of play followed by new moves. One line left:
    /// it is recorded; several: they stay held, each with the moves made since. A complete
    /// board rules out the lines that do not explain it; one that is not complete rules out
    /// nothing (a stone may still be hidden). When no line explains the board, every line stays
    /// held (the referee chooses, then the board is judged against that line). Returns whether
    /// the board was taken (always, while anything is held).
    pub(super) fn judge_after_held(&mut self, held: &Ambiguity, obs: Observation<'_>) -> bool {
        let mut kept: Vec<HeldWay> = Vec::new();
        let mut explained = 0;
        for way in &held.ways {
            let Some(game) = self.game_after(&way.candidate) else {
                continue; // cannot happen: the line was legal when it was held
            };
            let verdict = explain_timed(
                &game,
                &way.candidate.still_pending,
                obs.grid,
                obs.timing(),
                obs.touched,
                &self.relaid_on(&game, obs.grid),
            );
            let lines: Vec<(Vec<Step>, Vec<Pending>)> = match verdict {
                Verdict::Unchanged(tally) => vec![(Vec::new(), tally.still_pending)],
                Verdict::Moves { steps, tally } => vec![(steps, tally.still_pending)],
                // Several orders again (another exchange hidden under hands): each line
                // branches; a stone out of turn is no continuation of a line held for the
                // referee.
                Verdict::Ambiguous(subs) => subs
                    .into_iter()
                    .filter(|c| !c.out_of_turn)
                    .map(|c| (c.steps, c.still_pending))
                    .collect(),
                _ => Vec::new(),
            };
            if lines.is_empty() {
                if !obs.complete {
                    kept.push(way.clone());
                }
                continue;
            }
            explained += 1;
            for (steps, still_pending) in lines {
                let mut next = way.clone();
                next.times
                    .extend(steps.iter().map(|s| obs.times_of(s.point)));
                next.candidate.steps.extend(steps);
                next.candidate.still_pending = still_pending;
                kept.push(next);
            }
        }
        if kept.len() > MAX_HELD_WAYS {
            // Too many lines to follow: they stay as they were until the referee chooses.
            return true;
        }
        if explained == 0 {
            // Nothing explains the board in any line: all stay held as they were.
            return true;
        }
        if kept.len() == 1 {
            let way = kept.remove(0);
            self.ambiguous = None;
            self.record_way(&way, obs);
            return true;
        }
        self.hold_ways(kept, obs.grid);
        true
    }

    /// The record's game after `c`'s moves (the side to move passing first, for a stone out
    /// of turn), or `None` if one is illegal.
    fn game_after(&self, c: &Candidate) -> Option<Game> {
        let mut game = self.game.clone();
        if c.out_of_turn {
            game.pass(c.steps.first()?.color.opposite());
        }
        for s in &c.steps {
            game.play(s.color, Some(s.point)).ok()?;
        }
        Some(game)
    }

    /// Records a held line of play: its pass (for a stone out of turn) and its moves, each with
    /// its own times, then the capture bookkeeping of the board as it now stands.
    fn record_way(&mut self, way: &HeldWay, obs: Observation<'_>) {
        let c = &way.candidate;
        if c.out_of_turn {
            self.commit_last();
            if let Some(first) = c.steps.first() {
                let at = way.times.first().map_or(obs.at_ms, |t| t.left_ms);
                self.record_pass(first.color.opposite(), at);
            }
        }
        self.record_steps_timed(&c.steps, Some(&way.times), obs);
        let verdict = explain(&self.game, &self.pending, obs.grid);
        if let Verdict::Unchanged(tally) = verdict {
            let fresh: Vec<Point> = c.steps.iter().flat_map(|s| s.captured.clone()).collect();
            self.apply_tally(tally, &fresh);
        } else {
            self.pending = c.still_pending.clone();
        }
    }

    /// Holds `candidates` (several explanations of `obs`'s board) for the referee.
    pub(super) fn hold_ambiguous(&mut self, candidates: Vec<Candidate>, obs: Observation<'_>) {
        let ways = candidates
            .into_iter()
            .map(|candidate| HeldWay {
                times: candidate
                    .steps
                    .iter()
                    .map(|s| obs.times_of(s.point))
                    .collect(),
                held: candidate.steps.len(),
                candidate,
            })
            .collect();
        self.hold_ways(ways, obs.grid);
    }

    /// Holds `ways`; the `ambiguous` event goes out when the explanations differ from those
    /// last published other than by the same moves made since (a new ambiguity, one ruled
    /// out, a line that branched).
    fn hold_ways(&mut self, ways: Vec<HeldWay>, grid: &StoneGrid) {
        let now = self.alternatives(&ways);
        let before = self.ambiguous.as_ref().map(|a| self.alternatives(&a.ways));
        if before.as_ref() != Some(&now) {
            let size = self.size();
            let candidates = ways
                .iter()
                .map(|w| {
                    w.candidate
                        .steps
                        .iter()
                        .enumerate()
                        .map(|(i, s)| CandidateMove {
                            color: s.color,
                            point: s.point.to_gtp(size),
                            hidden: s.hidden,
                            out_of_turn: w.candidate.out_of_turn && i == 0,
                        })
                        .collect()
                })
                .collect();
            self.events.push_back(EventKind::Ambiguous { candidates });
        }
        self.ambiguous = Some(Ambiguity {
            ways,
            grid: grid.clone(),
        });
    }

    /// What tells the lines apart: each line without the moves every line ends with.
    fn alternatives(&self, ways: &[HeldWay]) -> Vec<Vec<(Color, Point, bool)>> {
        let lines: Vec<Vec<(Color, Point, bool)>> = ways
            .iter()
            .map(|w| {
                w.candidate
                    .steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (s.color, s.point, w.candidate.out_of_turn && i == 0))
                    .collect()
            })
            .collect();
        let common = (0..)
            .take_while(|&k| {
                let mut ends = lines
                    .iter()
                    .map(|l| l.len().checked_sub(k + 1).map(|i| l[i]));
                match ends.next() {
                    Some(Some(first)) => ends.all(|e| e == Some(first)),
                    _ => false,
                }
            })
            .count();
        lines
            .into_iter()
            .map(|l| l[..l.len() - common].to_vec())
            .collect()
    }

    /// The referee picks explanation `index` of an ambiguous board (as `GET state` lists
    /// them): its line of play is recorded — the held moves and every move made since — and
    /// the board as it stands is judged against it.
    ///
    /// # Errors
    /// [`CommandError::NothingHeld`] when no board is held, [`CommandError::NoCandidate`]
    /// when there is no explanation `index`: nothing changes.
    pub fn choose(&mut self, index: usize) -> Result<(), CommandError> {
        let Some(amb) = self.ambiguous.take() else {
            return Err(CommandError::NothingHeld);
        };
        let Some(way) = amb.ways.get(index).cloned() else {
            self.ambiguous = Some(amb);
            return Err(CommandError::NoCandidate(index));
        };
        let grid = self.last_grid.clone().unwrap_or_else(|| amb.grid.clone());
        let at = self.now_ms;
        let times = times_now(&grid, at);
        let obs = Observation::judged_now(&grid, at, &times);
        self.record_way(&way, obs);
        self.on_board(obs);
        Ok(())
    }
}
