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

use super::revise::REVISE_MOVES;
use super::*;

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
        let lines = explain_lines(&base, &pending, obs.grid, obs.timing(), &[], 0);
        let mut candidates: Vec<Candidate> = lines
            .into_iter()
            .filter(|(steps, _)| {
                steps.len() == k
                    && steps
                        .iter()
                        .all(|s| !s.hidden && tail.contains(&(s.color, s.point)))
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
            if candidates.is_empty() || !self.positions_agree(&base, &candidates) {
                return false;
            }
            let saved = self.clone();
            if self.adopt_revision(k, base, pending, candidates, obs, None) {
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
        for o in &mut orders {
            o.drain(..agreed);
        }
        let from = len - k + agreed;
        // a provisional order among these moves is part of the wider one
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

    /// How many of the record's last moves to look at again after `fresh` were recorded:
    /// back to the oldest move, within [`REVISE_MOVES`] and after any pass or provisional
    /// order that starts before it, that a fresh stone is not certainly after. `None`: every
    /// fresh stone is certainly after the moves before it.
    fn unordered_tail(&self, fresh: usize, obs: Observation<'_>) -> Option<usize> {
        let len = self.record.moves.len();
        let moves = &self.record.moves;
        let fresh_times: Vec<PointTimes> = moves[len.checked_sub(fresh)?..]
            .iter()
            .filter_map(|m| m.point)
            .map(|p| obs.times_of(p))
            .collect();
        // a provisional order that starts earlier bounds the look-back (it is not split)
        let window = len.saturating_sub(REVISE_MOVES);
        let floor = self
            .provisional
            .iter()
            .filter(|p| p.from < window && p.from + p.len() > window)
            .map(|p| p.from + p.len())
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
        oldest.map(|i| len - i)
    }
}
