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
//!
//! Where no such line exists, the record's side to move is taken as wrong: a move left no
//! stone that the board could see (a pass with no clock to press, a stone placed and captured
//! again under the hands — either leaves the same position, and area scoring counts no
//! prisoners, C3) — and the look back is made again with the side to move passing first. The
//! pass is recorded with a comment saying it was never seen, owes no press, and the notice
//! names it. Never next to a pass (two passes end play, R21.1).

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
        // one budget for every look back of each kind: a board nothing explains costs one
        // search's worth, and as much again with the side to move passing first
        for unseen_pass in [false, true] {
            if let Some(revised) = self.look_back(&grid, fobs, unseen, unseen_pass) {
                if revised {
                    self.stuck_since = None;
                    self.settle_fixes(obs.grid);
                    self.refresh_guidance(obs.grid);
                }
                return revised;
            }
        }
        self.looked_at = Some(obs.grid.clone());
        false
    }

    /// Looks back over the record's last 0, 1, … [`LOOK_BACK_MOST`] moves for one line that
    /// explains `grid` (with `unseen_pass`, from the side to move passing first) and records
    /// it provisionally. `Some(true)`: recorded; `Some(false)`: a line was found but could not
    /// be recorded, or a pass stops the look back (nothing changed either way); `None`: no
    /// line found.
    fn look_back(
        &mut self,
        grid: &StoneGrid,
        obs: Observation<'_>,
        unseen: usize,
        unseen_pass: bool,
    ) -> Option<bool> {
        let len = self.record.moves.len();
        let mut budget = LINES_BUDGET;
        for k in 0..=LOOK_BACK_MOST.min(len) {
            if self.record.moves[len - k..]
                .iter()
                .any(|m| m.point.is_none())
            {
                return Some(false); // a pass is a press of a button: certain
            }
            let (base, _, pending) = self.before_tail(k)?;
            if unseen_pass && base.consecutive_passes() > 0 {
                return None; // two passes in a row would end play (R21.1)
            }
            let mut from_game = base.clone();
            if unseen_pass {
                from_game.pass(from_game.to_move());
            }
            let Some((steps, tally)) = some_line(
                &from_game,
                &pending,
                grid,
                obs.timing(),
                unseen,
                &mut budget,
            ) else {
                if budget == 0 {
                    break;
                }
                continue;
            };
            let candidate = Candidate {
                steps: steps.clone(),
                out_of_turn: unseen_pass,
                still_pending: tally.still_pending,
            };
            let saved = self.clone();
            let from = len - k + usize::from(unseen_pass);
            let before = self.last.clone();
            if !self.adopt_revision(
                k,
                base,
                pending,
                vec![candidate],
                obs,
                Some(ViolationCode::UnexplainedBoard),
            ) {
                *self = saved;
                return Some(false);
            }
            self.keep_commit(before, false);
            self.mark_provisional(Provisional {
                from,
                orders: vec![steps],
                recorded: 0,
            });
            return Some(true);
        }
        None
    }
}
