//! The order of the record's last moves looked at again as new stones come clear (issue 35).
//!
//! A stone is recorded in the order the board showed it. In quick play a stone may lie under
//! a hand while later stones are recorded, and come clear only after them: the board then
//! says its point was disturbed before they were seen (it cannot tell which came first), or
//! even that it was seen first. Each time moves are recorded, the last [`REVISE_MOVES`] moves
//! (never past a pass) that a new stone is not certainly after
//! ([`PointTimes::certainly_before`]) are played again from before them in every order the
//! board's times allow ([`explain_lines`]):
//!
//! * one order, the record's: nothing changes;
//! * several orders that lead to the same position, the record's among them: the moves are
//!   marked provisional ([`super::provisional`]), the record's order first — nothing in the
//!   feed moves;
//! * orders that do not include the record's (the times now prove it wrong), all to the same
//!   position: the likeliest replaces the record's last moves, `move_corrected` for each
//!   changed one (provisional when several remain); nobody is charged and nothing was
//!   flagged, so the referee gets no notice.
//!
//! Orders that lead to different positions change nothing: the board will tell them apart.
//! Nor does an order that repeats a whole-board position, nor a search that stopped at
//! [`ENOUGH_LINES`] before finding the record's order (that is no proof it is wrong). A
//! provisional order among the moves becomes part of the wider one (`provisional_resolved`
//! with `widened`, then the new `provisional`); one is never split.

use super::inference::ENOUGH_LINES;
use super::revise::REVISE_MOVES;
use super::*;

/// Most of the record's last moves looked at again at once: [`REVISE_MOVES`], widened back to
/// the start of a provisional order among them up to this many.
pub const LOOK_BACK_MOST: usize = 2 * REVISE_MOVES;

/// Most placements kept for the look-back ([`Referee::placement_times`]).
pub const PLACED_KEPT: usize = 2 * LOOK_BACK_MOST;

/// Whether playing `steps` from `base` repeats a whole-board position (an order with a cycle
/// is no order to record without the referee).
fn repeats_a_position(base: &Game, steps: &[Step]) -> bool {
    let mut g = base.clone();
    steps.iter().any(|s| {
        g.play(s.color, Some(s.point))
            .map_or(true, |outcome| outcome.repeats.is_some())
    })
}

impl Referee {
    /// After `fresh` moves were recorded from `obs`: looks at the order of the record's last
    /// moves again (module docs). Returns whether anything was marked or revised.
    pub(super) fn reorder_after(&mut self, fresh: usize, obs: Observation<'_>) -> bool {
        if self.config.policy == Policy::AcceptAsPlayed
            || fresh == 0
            || !matches!(self.phase, Phase::Play)
        {
            return false;
        }
        // the look-back dates each stone by its placement, not by a capture's lift since
        let placed = self.placement_times(obs);
        let obs = Observation {
            times: placed.as_deref().unwrap_or(obs.times),
            ..obs
        };
        let Some(k) = self.unordered_tail(fresh, obs) else {
            return false;
        };
        let Some((base, _, pending)) = self.before_tail(k) else {
            return false;
        };
        let len = self.record.moves.len();
        let tail: Vec<(Color, Point)> = self.record.moves[len - k..]
            .iter()
            .filter_map(|m| Some((m.color, m.point?)))
            .collect();
        if tail.len() != k {
            return false;
        }
        let lines = explain_lines(&base, &pending, obs.grid, obs.timing(), &[], 0, &[]);
        // a search that stopped at its most lines may have stopped before the record's order
        let every_line = lines.len() < ENOUGH_LINES;
        let mut candidates: Vec<Candidate> = lines
            .into_iter()
            .filter(|(steps, _)| {
                steps.len() == k
                    && steps
                        .iter()
                        .all(|s| !s.hidden && tail.contains(&(s.color, s.point)))
                    && !repeats_a_position(&base, steps)
            })
            .map(|(steps, tally)| Candidate {
                steps,
                out_of_turn: false,
                still_pending: tally.still_pending,
            })
            .collect();
        let is_record = |c: &Candidate| {
            c.steps
                .iter()
                .zip(&tail)
                .all(|(s, &(color, point))| s.color == color && s.point == point)
        };
        let Some(recorded) = candidates.iter().position(is_record) else {
            // the times now prove the record's order wrong
            if !every_line || candidates.is_empty() || !self.positions_agree(&base, &candidates) {
                return false;
            }
            let saved = self.clone();
            let last = self.last.clone();
            if self.adopt_revision(k, base, pending, candidates, obs, None) {
                self.keep_commit(last, true);
                return true;
            }
            *self = saved;
            return false;
        };
        if candidates.len() < 2 || !self.positions_agree(&base, &candidates) {
            return false;
        }
        // the record's order first; the others as the ranking has them
        let mine = candidates.remove(recorded);
        let previous = (len - k)
            .checked_sub(1)
            .and_then(|i| self.record.moves.get(i))
            .and_then(|m| m.point);
        let mut orders = vec![mine.steps];
        orders.extend(rank(candidates, obs, previous).into_iter().map(|c| c.steps));
        // the moves every order agrees on first are not in question
        let agreed = (0..k)
            .take_while(|&i| orders.iter().all(|o| o[i] == orders[0][i]))
            .count();
        let mut from = len - k + agreed;
        // a provisional order among these moves is part of the wider one, never split: one
        // that starts before them (and ends among them) widens them back to its start
        while let Some(start) = self
            .provisional
            .iter()
            .filter(|p| p.from < from && p.from + p.len() > from)
            .map(|p| p.from)
            .min()
        {
            if start < len - k {
                return false;
            }
            from = start;
        }
        for o in &mut orders {
            o.drain(..from - (len - k));
        }
        let (inside, outside): (Vec<Provisional>, Vec<Provisional>) =
            std::mem::take(&mut self.provisional)
                .into_iter()
                .partition(|p| p.from >= from);
        self.provisional = outside;
        for p in inside {
            self.events.push_back(EventKind::ProvisionalResolved {
                numbers: p.numbers().collect(),
                how: "widened".into(),
            });
        }
        self.mark_provisional(Provisional {
            from,
            orders,
            recorded: 0,
        });
        true
    }

    /// After the record's last moves were rewritten (`before`: the last move then): the last
    /// move keeps its own state if it is the same move. A move now last that was not, when
    /// `reordered` (the same stones in another order), was committed already — by its press
    /// or by the moves after it — and stays so, pressed for unless its press is still owed;
    /// after a revision (a move changed) only a move whose press is no longer owed on a clock
    /// was pressed and is committed (a slide of it later is a `moved_stone`).
    pub(super) fn keep_commit(&mut self, before: Option<LastMove>, reordered: bool) {
        let now_ms = self.now_ms;
        let timed = self.timed;
        let owed = |p: Option<Point>| self.unpressed.iter().flatten().any(|u| u.point == p);
        let still_owed = self.last.as_ref().is_some_and(|l| owed(l.point));
        let Some(now) = self.last.as_mut() else {
            return;
        };
        match before {
            Some(b) if b.point == now.point && b.color == now.color => {
                now.committed = b.committed;
                now.committed_ms = b.committed_ms;
                now.pressed = b.pressed;
            }
            _ if reordered || (timed && !still_owed) => {
                now.committed = true;
                now.committed_ms.get_or_insert(now_ms);
                now.pressed = !still_owed;
            }
            _ => {}
        }
    }

    /// Notes when the stone at `point` recorded now was placed (its times on the board that
    /// recorded it).
    pub(super) fn note_placed(&mut self, point: Point, times: PointTimes) {
        self.placed_times.push_back((point, times));
        while self.placed_times.len() > PLACED_KEPT {
            self.placed_times.pop_front();
        }
    }

    /// `obs`'s times with the points of the record's last moves whose stone the record still
    /// has but the board no longer shows, or whose point changed after the stone was recorded
    /// (lifted — by a capture whose captor is still to come — perhaps put back), dated by the
    /// placement noted when the move was recorded. A stone the record has captured keeps its
    /// point's times: they date the capture, which orders its captor. `None` when no point
    /// needs it (or the times are not one per point).
    pub(super) fn placement_times(&self, obs: Observation<'_>) -> Option<Vec<PointTimes>> {
        obs.timing()?;
        let size = obs.grid.size();
        let len = self.record.moves.len();
        let board = self.game.board();
        let mut times: Option<Vec<PointTimes>> = None;
        for m in &self.record.moves[len.saturating_sub(LOOK_BACK_MOST)..] {
            let Some(p) = m.point else { continue };
            if board.get(p) != Some(m.color) {
                continue;
            }
            let Some(&(_, at)) = self.placed_times.iter().rev().find(|(q, _)| *q == p) else {
                continue;
            };
            let now = obs.times_of(p);
            if now == at || (obs.grid.get(p) == Some(m.color) && now.left_ms <= at.seen_ms) {
                continue;
            }
            times.get_or_insert_with(|| obs.times.to_vec())[p.index(size)] = at;
        }
        times
    }

    /// How many of the record's last moves to look at again after `fresh` were recorded:
    /// back to the oldest move, within [`REVISE_MOVES`] and after any pass, that a fresh stone
    /// is not certainly after — and back to the start of a provisional order that move is in
    /// (an order is never split), within [`LOOK_BACK_MOST`]; a longer one bounds the look-back
    /// instead. `None`: every fresh stone is certainly after the moves before it.
    fn unordered_tail(&self, fresh: usize, obs: Observation<'_>) -> Option<usize> {
        let len = self.record.moves.len();
        let moves = &self.record.moves;
        let fresh_times: Vec<PointTimes> = moves[len.checked_sub(fresh)?..]
            .iter()
            .filter_map(|m| m.point)
            .map(|p| obs.times_of(p))
            .collect();
        // a provisional order across the window's start is looked at whole when it is not too
        // long, else it bounds the look-back
        let window = len.saturating_sub(REVISE_MOVES);
        let reach = len.saturating_sub(LOOK_BACK_MOST);
        let floor = self
            .provisional
            .iter()
            .filter(|p| p.from < window && p.from + p.len() > window)
            .map(|p| {
                if p.from >= reach {
                    p.from
                } else {
                    p.from + p.len()
                }
            })
            .max()
            .unwrap_or(window);
        let mut oldest = None;
        for i in (floor..len - fresh).rev() {
            let Some(point) = moves[i].point else {
                break; // a pass is a press of a button: certain
            };
            let times = obs.times_of(point);
            if fresh_times.iter().any(|f| !times.certainly_before(f)) {
                oldest = Some(i);
            }
        }
        // back to the start of the provisional order the oldest move is in
        let oldest = oldest.map(|i| {
            self.provisional
                .iter()
                .filter(|p| p.from < i && p.from + p.len() > i && p.from >= floor)
                .map(|p| p.from)
                .min()
                .unwrap_or(i)
        });
        oldest.map(|i| len - i)
    }
}
