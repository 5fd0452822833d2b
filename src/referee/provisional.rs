//! Moves recorded provisionally (issue 35): several orders of the same stones explain the
//! board and lead to the same position — only their order is unknown (hands over a fight hid
//! which came first). The likeliest order is recorded at once and play goes on being recorded
//! and published; the moves in question are marked provisional (the `provisional` event names
//! them and the other orders, each carries an SGF comment) until the referee picks an order
//! ([`Referee::choose_order`]), which rewrites them in the record and the feed (`move_corrected`).
//!
//! **How the orders are ranked** ([`rank`]), first difference decides:
//!
//! 1. no stone out of turn (a violation is never presumed);
//! 2. fewer stones nobody saw (throw-ins placed and captured between two boards);
//! 3. agreement with the scans: each pair of stones put in an order their scans contradict
//!    costs the time by which it contradicts them (the middle of each stone's interval from
//!    its point's likely disturbance — the last after which it read empty again for a while,
//!    [`crate::sensing::PointTimes::likely_left_ms`] — to its first clear scan; the scans that told the stones
//!    apart already ruled their other orders out — these are the differences below that
//!    threshold);
//! 4. nearness: the distance from each stone to the one before it (the previous move for the
//!    first), summed — in a local fight each reply is played next to the stone it answers.
//!
//! A board several orders explain that lead to *different* positions (other captures, a
//! stone out of turn in one) is not provisional: it is held ([`super::held`]) until the board
//! tells the orders apart.

use super::*;

/// Moves recorded in the likeliest of several orders of the same stones (module docs).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Provisional {
    /// Index in the record's moves of the first move in question (its number is one more).
    pub from: usize,
    /// The orders, likeliest first; each as many moves as the others.
    pub orders: Vec<Vec<Step>>,
    /// The order in the record (an index of `orders`).
    pub recorded: usize,
}

impl Provisional {
    /// The numbers of the moves in question (1-based).
    pub fn numbers(&self) -> std::ops::RangeInclusive<u32> {
        let first = self.from as u32 + 1;
        first..=first + self.len().saturating_sub(1) as u32
    }

    /// Moves in question.
    pub fn len(&self) -> usize {
        self.orders.first().map_or(0, Vec::len)
    }

    /// No moves (never kept).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The rank of one explanation (module docs): lower is likelier.
fn score(c: &Candidate, obs: Observation<'_>, previous: Option<Point>) -> (bool, usize, u64, u32) {
    let visible: Vec<&Step> = c.steps.iter().filter(|s| !s.hidden).collect();
    let mid = |s: &Step| {
        let t = obs.times_of(s.point);
        (t.likely_left_ms() + t.seen_ms) / 2
    };
    let mut against_scans = 0;
    for (i, a) in visible.iter().enumerate() {
        for b in &visible[i + 1..] {
            against_scans += mid(a).saturating_sub(mid(b));
        }
    }
    let distance = |a: Point, b: Point| u32::from(a.x.abs_diff(b.x)) + u32::from(a.y.abs_diff(b.y));
    let mut near = 0;
    let mut before = previous;
    for s in &c.steps {
        if let Some(p) = before {
            near += distance(p, s.point);
        }
        before = Some(s.point);
    }
    (
        c.out_of_turn,
        c.steps.iter().filter(|s| s.hidden).count(),
        against_scans,
        near,
    )
}

/// `candidates` likeliest first (module docs); `previous`: the point of the record's last
/// move. Equal ranks keep their order.
pub fn rank(
    mut candidates: Vec<Candidate>,
    obs: Observation<'_>,
    previous: Option<Point>,
) -> Vec<Candidate> {
    candidates.sort_by_cached_key(|c| score(c, obs, previous));
    candidates
}

impl Referee {
    /// Records the likeliest of `candidates` (several orders of the same stones, leading to
    /// the same position) and marks its moves provisional (module docs).
    pub(super) fn record_provisional(&mut self, candidates: Vec<Candidate>, obs: Observation<'_>) {
        let previous = self.record.moves.last().and_then(|m| m.point);
        let ranked = rank(candidates, obs, previous);
        let Some(best) = ranked.first().cloned() else {
            return;
        };
        let from = self.record.moves.len();
        let fresh: Vec<Point> = best.steps.iter().flat_map(|s| s.captured.clone()).collect();
        let tally = self
            .tally_after_line(&best.steps, obs.grid)
            .unwrap_or_else(|| CaptureTally {
                still_pending: best.still_pending.clone(),
                lifted: Vec::new(),
            });
        self.record_steps(&best.steps, obs);
        if self.record.moves.len() != from + best.steps.len() {
            return; // the game is over: nothing recorded
        }
        self.apply_tally(tally, &fresh);
        self.mark_provisional(Provisional {
            from,
            orders: ranked.into_iter().map(|c| c.steps).collect(),
            recorded: 0,
        });
    }

    /// Marks the moves of `p` (recorded in its order `recorded`) provisional: their SGF
    /// comments and the `provisional` event.
    pub(super) fn mark_provisional(&mut self, p: Provisional) {
        self.note_provisional(&p);
        self.events.push_back(self.provisional_event(&p));
        self.provisional.push(p);
    }

    /// The `provisional` event of `p`.
    fn provisional_event(&self, p: &Provisional) -> EventKind {
        let size = self.size();
        EventKind::Provisional {
            numbers: p.numbers().collect(),
            orders: p
                .orders
                .iter()
                .map(|o| {
                    o.iter()
                        .map(|s| CandidateMove {
                            color: s.color,
                            point: s.point.to_gtp(size),
                            hidden: s.hidden,
                            out_of_turn: false,
                        })
                        .collect()
                })
                .collect(),
            recorded: p.recorded,
        }
    }

    /// The SGF comment on each move of `p`: provisional, and the other orders.
    fn note_provisional(&mut self, p: &Provisional) {
        let numbers = p.numbers();
        let others: Vec<String> = p
            .orders
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != p.recorded)
            .map(|(_, o)| {
                o.iter()
                    .map(|s| format!("{}{}", s.color.sgf_letter(), self.gtp(s.point)))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let note = format!(
            "provisional: the order of moves {}-{} is not known for sure (hands hid it); also possible: {}",
            numbers.start(),
            numbers.end(),
            others.join("; ")
        );
        for i in p.from..p.from + p.len() {
            self.note_at(i, &note);
        }
    }

    /// The moves recorded provisionally, oldest first.
    pub fn provisional(&self) -> &[Provisional] {
        &self.provisional
    }

    /// The stones whose order is in question in the moves of `p` that are still on the board
    /// (board order, no repeats).
    pub fn provisional_points_of(&self, p: &Provisional) -> Vec<Point> {
        let size = self.size();
        let board = self.game.board();
        let mut points: Vec<Point> = p
            .orders
            .iter()
            .flatten()
            .filter(|s| !s.hidden && board.get(s.point).is_some())
            .map(|s| s.point)
            .collect();
        points.sort_by_key(|p| p.index(size));
        points.dedup();
        points
    }

    /// The referee picks order `index` (as `GET state`'s `provisional` lists them) for the
    /// provisional moves starting at move `first` (1-based): the record's moves are rewritten
    /// in that order (`move_corrected` for each move that changes; the clock readings stay
    /// with their move numbers) and they are no longer provisional.
    ///
    /// # Errors
    /// [`CommandError::NoProvisionalAt`] when no provisional moves start at `first`,
    /// [`CommandError::NoCandidate`] when there is no order `index`;
    /// [`CommandError::CorrectionBreaks`] when a later move would become illegal (a ko
    /// retaken at once in that order): nothing changes.
    pub fn choose_order(&mut self, first: u32, index: usize) -> Result<(), CommandError> {
        let Some(k) = self
            .provisional
            .iter()
            .position(|p| p.from as u32 + 1 == first)
        else {
            return Err(CommandError::NoProvisionalAt(first));
        };
        self.reorder(k, index, "chosen", "was chosen by the referee")?;
        self.rejudge_last_board();
        Ok(())
    }

    /// A board the record's moves do not explain as they stand, explained by moves once a
    /// provisional run at the record's end is put in another of its orders: that order is
    /// recorded (`move_corrected`, `provisional_resolved` `told_apart`) and the board's moves
    /// after it. Orders that lead to the same position still differ in what they leave the
    /// next move — the ko ban (R18.3: the run's last stone may have taken a ko the next move
    /// retakes legally in the other order) — so a later board can tell them apart. Only
    /// moves explain a board so (no violation is presumed to pick an order); the orders are
    /// tried likeliest first. Returns whether the board was explained so.
    pub(super) fn tell_apart(&mut self, obs: Observation<'_>) -> bool {
        let len = self.record.moves.len();
        let Some(k) = self
            .provisional
            .iter()
            .position(|p| p.from + p.len() == len)
        else {
            return false;
        };
        let (orders, recorded) = (
            self.provisional[k].orders.len(),
            self.provisional[k].recorded,
        );
        for index in (0..orders).filter(|&i| i != recorded) {
            // tried on the record in that order, the referee changed only once it explains
            let Ok((moves, game)) = self.reordered(k, index) else {
                continue;
            };
            let pending = self.pending_after(self.provisional[k].from, &moves, &game);
            let verdict = explain_timed(
                &game,
                &pending,
                obs.grid,
                obs.timing(),
                obs.touched,
                &self.relaid_on(&game, obs.grid),
            );
            if !matches!(verdict, Verdict::Moves { .. }) {
                continue;
            }
            let told = format!("was told apart by the board after move {len}");
            if self.reorder(k, index, "told_apart", &told).is_ok() {
                return self.apply_verdict(verdict, obs);
            }
        }
        false
    }

    /// The record's moves with those of `self.provisional[k]` in their order `index`, and the
    /// game after them.
    ///
    /// # Errors
    /// [`CommandError::NoCandidate`] when there is no order `index`;
    /// [`CommandError::CorrectionBreaks`] when a later move would become illegal.
    fn reordered(&self, k: usize, index: usize) -> Result<(Vec<RecordedMove>, Game), CommandError> {
        let p = &self.provisional[k];
        let Some(order) = p.orders.get(index) else {
            return Err(CommandError::NoCandidate(index));
        };
        let mut moves = self.record.moves.clone();
        for (i, s) in order.iter().enumerate() {
            if let Some(m) = moves.get_mut(p.from + i) {
                m.color = s.color;
                m.point = Some(s.point);
            }
        }
        let game = self.replayed(&moves)?;
        Ok((moves, game))
    }

    /// Puts the provisional moves of `self.provisional[k]` in their order `index`: the
    /// record's moves are rewritten (`move_corrected` for each that changes; the clock
    /// readings stay with their move numbers), commented "the order of moves a-b {told}", and
    /// no longer provisional (`provisional_resolved` with `how`).
    ///
    /// # Errors
    /// [`CommandError::NoCandidate`] when there is no order `index`;
    /// [`CommandError::CorrectionBreaks`] when a later move would become illegal: nothing
    /// changes.
    fn reorder(
        &mut self,
        k: usize,
        index: usize,
        how: &str,
        told: &str,
    ) -> Result<(), CommandError> {
        let (moves, game) = self.reordered(k, index)?;
        let p = self.provisional[k].clone();
        let order = &p.orders[index];
        let size = self.size();
        let changed: Vec<(u32, Color, Point)> = order
            .iter()
            .enumerate()
            .filter(|&(i, s)| {
                self.record.moves.get(p.from + i).and_then(|m| m.point) != Some(s.point)
            })
            .map(|(i, s)| ((p.from + i) as u32 + 1, s.color, s.point))
            .collect();
        // the bookkeeping that names points of the moves follows them
        for (number, _, point) in &changed {
            for side in &mut self.unpressed {
                for u in side.iter_mut().filter(|u| u.number == *number) {
                    u.point = Some(*point);
                }
            }
            if *number as usize == moves.len() {
                if let Some(l) = &mut self.last {
                    l.point = Some(*point);
                }
            }
        }
        // an order with other captures leaves other stones lying captured
        self.pending = self.pending_after(p.from, &moves, &game);
        self.record.moves = moves;
        self.game = game;
        for (number, color, point) in changed {
            self.events.push_back(EventKind::MoveCorrected {
                number,
                color,
                point: Some(point.to_gtp(size)),
            });
        }
        self.provisional.remove(k);
        let note = format!(
            "the order of moves {}-{} {told}",
            p.numbers().start(),
            p.numbers().end()
        );
        for (i, step) in order.iter().enumerate() {
            if let Some(m) = self.record.moves.get_mut(p.from + i) {
                m.comment = Some(note.clone());
            }
            // the stones went with their moves: so does what was never seen
            if step.hidden {
                self.note_at(p.from + i, NEVER_SEEN);
            }
        }
        self.events.push_back(EventKind::ProvisionalResolved {
            numbers: p.numbers().collect(),
            how: how.into(),
        });
        Ok(())
    }

    /// The game after `moves` from the record's setup.
    ///
    /// # Errors
    /// [`CommandError::CorrectionBreaks`] naming the first move that is illegal.
    pub(super) fn replayed(&self, moves: &[RecordedMove]) -> Result<Game, CommandError> {
        let mut game =
            Game::with_setup(self.size(), &self.record.setup, self.record.first_to_move())
                .map_err(|e| CommandError::CorrectionBreaks {
                    number: 0,
                    why: e.to_string(),
                })?;
        for (k, m) in moves.iter().enumerate() {
            game.play(m.color, m.point)
                .map_err(|e| CommandError::CorrectionBreaks {
                    number: k as u32 + 1,
                    why: e.to_string(),
                })?;
        }
        Ok(game)
    }

    /// Provisional moves of which one left the record (taken back) or was corrected by the
    /// referee (`number`, 1-based; `None`: only those beyond the record's end) are
    /// provisional no longer (`provisional_resolved`, `undone`).
    pub(super) fn trim_provisional(&mut self, corrected: Option<u32>) {
        let len = self.record.moves.len();
        let (gone, kept): (Vec<Provisional>, Vec<Provisional>) =
            std::mem::take(&mut self.provisional)
                .into_iter()
                .partition(|p| {
                    p.from + p.len() > len || corrected.is_some_and(|n| p.numbers().contains(&n))
                });
        self.provisional = kept;
        for p in gone {
            self.events.push_back(EventKind::ProvisionalResolved {
                numbers: p.numbers().collect(),
                how: "undone".into(),
            });
        }
    }
}
