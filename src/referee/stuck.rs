//! A record stuck out of step with the board (issue 35: an ambiguity never freezes the record).
//!
//! Where the record's last moves were misread — stones whose order or colour the hands hid
//! beyond what [`super::revise`] looks back over, a history replayed after a cable pull in an
//! order the scans could not tell — every later board differs from the record where nothing
//! explains it and nothing is flagged: the LEDs ask to put right what no player put wrong, and
//! the record and the broadcast stand still while play goes on. Once the board has stayed out
//! of step for [`STUCK_MS`] of board time, nothing flagged, with stones put down since, the
//! record's last moves (up to [`LOOK_BACK_MOST`], never past a pass) are taken as unknown: one
//! line from before them that explains the board as it lies ([`some_line`], the fewest moves
//! looked back first) replaces them, provisionally, `move_corrected` for each changed move,
//! and the referee gets a `notice` ([`ViolationCode::UnexplainedBoard`]).

use super::reorder::LOOK_BACK_MOST;
use super::*;

/// How long (board time, ms) the board may stay out of step with the record — nothing
/// flagged, stones put down since — before the record's last moves are looked at again as
/// unknown.
pub const STUCK_MS: u64 = 4_000;

impl Referee {
    /// Looks the record's last moves over again when the board has been out of step with it
    /// for [`STUCK_MS`] (module docs); at most once per [`LOOK_AGAIN_MS`] of board time.
    /// Returns whether the record was revised.
    pub(super) fn unstick(&mut self, obs: Observation<'_>) -> bool {
        // something for the players to put right (a fix, captured stones to lift) or a
        // violation that stands: the board is out of step for that, not for a misread record
        let flagged = self.violations.iter().any(|v| {
            v.open
                && (v.penalty != Penalty::Notice
                    || !v.fix.is_empty()
                    || matches!(
                        v.code,
                        ViolationCode::MissedCapture | ViolationCode::ClockBeforeCaptures
                    ))
        });
        if self.phase != Phase::Desync || flagged || self.ambiguous.is_some() {
            self.stuck_since = None;
            return false;
        }
        let since = *self.stuck_since.get_or_insert(obs.at_ms);
        if obs.at_ms.saturating_sub(since) < STUCK_MS || self.looked_at_too_soon(obs) {
            return false;
        }
        let grid = self.apply_fixes(obs.grid);
        let board = self.game.board();
        let put_down = grid
            .iter()
            .filter(|&(p, c)| {
                c.is_some_and(|c| board.get(p).is_none() && !self.pending.contains(&(p, c)))
            })
            .count();
        if put_down < 2 {
            return false; // play has not gone on: the LEDs' guidance is awaited
        }
        let fobs = Observation { grid: &grid, ..obs };
        // a stone placed and captured again nobody saw only on a board with no hand over it
        let unseen = if obs.complete && !obs.hands {
            MAX_HIDDEN_UNSEEN
        } else {
            0
        };
        let len = self.record.moves.len();
        // one budget for every look back: a board nothing explains costs one search's worth
        let mut budget = LINES_BUDGET;
        for k in 0..=LOOK_BACK_MOST.min(len) {
            if self.record.moves[len - k..]
                .iter()
                .any(|m| m.point.is_none())
            {
                return false; // a pass is a press of a button: certain
            }
            let Some((base, _, pending)) = self.before_tail(k) else {
                return false;
            };
            let Some((steps, tally)) =
                some_line(&base, &pending, &grid, obs.timing(), unseen, &mut budget)
            else {
                if budget == 0 {
                    break;
                }
                continue;
            };
            let candidate = Candidate {
                steps: steps.clone(),
                out_of_turn: false,
                still_pending: tally.still_pending,
            };
            let saved = self.clone();
            let from = len - k;
            let before = self.last.clone();
            if !self.adopt_revision(
                k,
                base,
                pending,
                vec![candidate],
                fobs,
                Some(ViolationCode::UnexplainedBoard),
            ) {
                *self = saved;
                return false;
            }
            self.keep_commit(before, false);
            self.mark_provisional(Provisional {
                from,
                orders: vec![steps],
                recorded: 0,
            });
            self.stuck_since = None;
            self.settle_fixes(obs.grid);
            self.refresh_guidance(obs.grid);
            return true;
        }
        self.looked_at = Some(obs.grid.clone());
        false
    }
}
