//! Boards held for the referee: several explanations of a board (`ambiguous`), tracked as
//! play goes on until one is left or the referee chooses.

use super::*;

impl Referee {
    /// A board after one held for the referee: the held board came first, so the new one is
    /// explained only as one of the held explanations followed by new moves. One way left:
    /// it is recorded; several: they stay held, longer; none: the board is judged as usual.
    pub(super) fn judge_after_held(&mut self, held: &Ambiguity, obs: Observation<'_>) -> bool {
        let mut ways: Vec<Candidate> = Vec::new();
        for c in &held.candidates {
            let mut game = self.game.clone();
            if c.out_of_turn {
                game.pass(c.steps[0].color.opposite());
            }
            if c.steps
                .iter()
                .any(|s| game.play(s.color, Some(s.point)).is_err())
            {
                continue;
            }
            let more = match explain(&game, &self.pending, obs.grid) {
                Verdict::Unchanged(_) => Vec::new(),
                Verdict::Moves { steps, .. } => steps,
                _ => continue,
            };
            let mut steps = c.steps.clone();
            steps.extend(more);
            ways.push(Candidate {
                steps,
                out_of_turn: c.out_of_turn,
            });
        }
        match ways.len() {
            0 => false,
            1 => {
                let way = ways.remove(0);
                self.ambiguous = None;
                if way.out_of_turn {
                    self.commit_last();
                    self.record_pass(way.steps[0].color.opposite(), obs.at_ms);
                }
                self.record_steps(&way.steps, obs);
                // the capture bookkeeping of the board as it now stands
                let verdict = explain(&self.game, &self.pending, obs.grid);
                if let Verdict::Unchanged(tally) = verdict {
                    let fresh: Vec<Point> =
                        way.steps.iter().flat_map(|s| s.captured.clone()).collect();
                    self.apply_tally(tally, &fresh);
                }
                true
            }
            _ => {
                self.hold_ambiguous(ways, obs.grid);
                true
            }
        }
    }

    pub(super) fn hold_ambiguous(&mut self, candidates: Vec<Candidate>, grid: &StoneGrid) {
        if self
            .ambiguous
            .as_ref()
            .is_some_and(|a| a.candidates == candidates)
        {
            return;
        }
        let size = self.size();
        let listed = candidates
            .iter()
            .map(|c| {
                c.steps
                    .iter()
                    .enumerate()
                    .map(|(i, s)| CandidateMove {
                        color: s.color,
                        point: s.point.to_gtp(size),
                        hidden: s.hidden,
                        out_of_turn: c.out_of_turn && i == 0,
                    })
                    .collect()
            })
            .collect();
        self.events
            .push_back(EventKind::Ambiguous { candidates: listed });
        self.ambiguous = Some(Ambiguity {
            candidates,
            grid: grid.clone(),
        });
    }

    /// The referee picks explanation `index` of an ambiguous board.
    pub fn choose(&mut self, index: usize) -> Result<(), CommandError> {
        let Some(amb) = self.ambiguous.take() else {
            return Err(CommandError::NoCandidate(index));
        };
        let Some(candidate) = amb.candidates.get(index).cloned() else {
            self.ambiguous = Some(amb);
            return Err(CommandError::NoCandidate(index));
        };
        let at = self.now_ms;
        let changed = vec![at; amb.grid.iter().count()];
        let obs = Observation {
            grid: &amb.grid,
            at_ms: at,
            changed_at: &changed,
        };
        if candidate.out_of_turn {
            // the side to move passed (explicitly ruled by the referee), then the stone
            self.commit_last();
            let passer = candidate.steps[0].color.opposite();
            self.record_pass(passer, at);
        }
        self.record_steps(&candidate.steps, obs);
        self.on_board(obs);
        Ok(())
    }
}
