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
//! Where no such line exists, two more guesses are made, the milder first, each over the same
//! look back:
//!
//! 1. **Stones of the record gone** that no move of any line captures (at most [`MOST_GONE`],
//!    each read empty for certain — a settled reading, not a point under a hand): they are
//!    kept in the record and the line is looked for as if they lay on their points. The
//!    stones put down since are recorded, and the referee gets a second notice whose fix asks
//!    for them back (the LEDs show them until they are down again, `board_restored`; a later
//!    move that captures them closes it too). A stone knocked off the board, or captured by
//!    moves nobody saw, is the players' to put back or the referee's to rule on — the moves
//!    after it are recorded all the same, and that notice does not keep the record from being
//!    looked at again.
//! 2. **The record's side to move is wrong**: a move left no stone the board could see (a pass
//!    with no clock to press, a stone placed and captured again under the hands — either
//!    leaves the same position, and area scoring counts no prisoners, C3). The look back is
//!    made again with the side to move passing first, on the board as it lies and then with
//!    the stones gone kept. The pass is recorded with a comment saying it was never seen, owes
//!    no press, and the notice names it. Never next to a pass (two passes end play, R21.1).

use super::reorder::LOOK_BACK_MOST;
use super::*;

/// How long (board time, ms) the board may stay out of step with the record — nothing
/// flagged, stones put down since — before the record's last moves are looked at again as
/// unknown.
pub const STUCK_MS: u64 = 4_000;

/// Most stones of the record gone from the board that a stuck record is unstuck around (module
/// docs): more at once is a board disturbed, the referee's to rebuild (R17.6).
pub const MOST_GONE: usize = 3;

impl Referee {
    /// Looks the record's last moves over again when the board has been out of step with it
    /// for [`STUCK_MS`] (module docs); at most once per [`LOOK_AGAIN_MS`] of board time.
    /// Returns whether the record was revised.
    pub(super) fn unstick(&mut self, obs: Observation<'_>) -> bool {
        // something for the players to put right (a fix, captured stones to lift) or a
        // violation that stands: the board is out of step for that, not for a misread record
        let flagged = self.violations.iter().any(|v| {
            v.open
                && !kept_gone(v)
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
        // a stone placed and captured again nobody saw only on a board with no hand over it
        let unseen = if obs.complete && !obs.hands {
            MAX_HIDDEN_UNSEEN
        } else {
            0
        };
        // stones of the record gone that nothing captures: kept, to be put back (module docs)
        let gone = self.gone_stones(&grid);
        let mut kept = grid.clone();
        for &(p, c) in &gone {
            kept.set(p, Some(c));
        }
        let keep_gone = (1..=MOST_GONE).contains(&gone.len());
        // one budget for every look back of each kind: a board nothing explains costs one
        // search's worth for the board as it lies, as much again with the stones gone kept,
        // and both again with the side to move passing first (a move nobody saw is the
        // boldest guess: a recorded stone kept is the referee's to rule on)
        let mut revised = None;
        'kinds: for unseen_pass in [false, true] {
            for keeping in [false, true] {
                if keeping && !keep_gone {
                    continue;
                }
                let g = if keeping { &kept } else { &grid };
                revised = self.look_back(g, Observation { grid: g, ..obs }, unseen, unseen_pass);
                if revised == Some(true) && keeping {
                    self.ask_gone_back(&gone, &grid);
                }
                if revised.is_some() {
                    break 'kinds;
                }
            }
        }
        let Some(revised) = revised else {
            self.looked_at = Some(obs.grid.clone());
            return false;
        };
        if revised {
            self.stuck_since = None;
            self.settle_fixes(obs.grid);
            self.refresh_guidance(obs.grid);
        }
        revised
    }

    /// The record's stones that `grid` shows gone (an empty point; not a captured stone, which
    /// the record no longer has), as (point, colour).
    fn gone_stones(&self, grid: &StoneGrid) -> Vec<(Point, Color)> {
        let board = self.game.board();
        grid.iter()
            .filter(|&(p, c)| c.is_none() && board.get(p).is_some())
            .filter_map(|(p, _)| board.get(p).map(|c| (p, c)))
            .collect()
    }

    /// Tells the referee that the stones `gone` were kept in the record and the moves after
    /// them recorded, and asks the players to put them back (the notice's fix).
    fn ask_gone_back(&mut self, gone: &[(Point, Color)], after: &StoneGrid) {
        let board = self.game.board();
        // a line that captured them after all leaves nothing to put back
        let gone: Vec<(Point, Color)> = gone
            .iter()
            .copied()
            .filter(|&(p, c)| board.get(p) == Some(c))
            .collect();
        let Some(&(_, color)) = gone.first() else {
            return;
        };
        let size = self.size();
        let names: Vec<String> = gone
            .iter()
            .map(|&(p, c)| format!("{} {}", c.as_str(), p.to_gtp(size)))
            .collect();
        let sanction = Sanction {
            penalty: Penalty::Notice,
            warning: false,
        };
        self.flag_sanctioned(
            ViolationCode::UnexplainedBoard,
            sanction,
            color,
            gone.iter().map(|&(p, _)| p).collect(),
            format!(
                "{} gone from the board with no move to capture {}: kept in the record, the \
                 moves since recorded; put back, or the referee rules",
                names.join(", "),
                if gone.len() == 1 { "it" } else { "them" }
            ),
            after,
            BoardDiff {
                restore: gone,
                remove: Vec::new(),
            },
        );
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

/// Whether `v` is the notice of stones gone that a stuck record kept ([`Referee::unstick`]):
/// no reason to wait for the players, who may never put them back (they may have been
/// captured under the hands after all).
fn kept_gone(v: &Violation) -> bool {
    v.code == ViolationCode::UnexplainedBoard
        && v.penalty == Penalty::Notice
        && !v.fix.restore.is_empty()
        && v.fix.remove.is_empty()
}
