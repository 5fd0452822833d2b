//! Move inference: which act explains a settled board (DESIGN.md `referee`).
//!
//! A settled board is matched against the rules' successors of the record's position, never
//! against raw scan differences: the candidate is the one new stone on the board, the rules
//! core plays it, and the result must equal the board exactly — with the one allowance that
//! captured stones may still lie on the board until their captor lifts them (R18.2).

use crate::rules::{Board, Color, Game, Illegal, Point};
use crate::sensing::StoneGrid;

/// A captured stone that is still physically on the board, with its colour.
pub type Pending = (Point, Color);

/// The exact difference between the record's position and the board: what to do to the
/// board to make it match (DESIGN.md `desync`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BoardDiff {
    /// Points where a stone of this colour belongs but is missing (or of the other colour).
    pub restore: Vec<(Point, Color)>,
    /// Points where a stone lies that must be lifted.
    pub remove: Vec<Point>,
}

impl BoardDiff {
    /// What to change on `grid` to make it show `board`.
    pub fn between(board: &Board, grid: &StoneGrid) -> BoardDiff {
        let mut diff = BoardDiff::default();
        for (point, sensed) in grid.iter() {
            let recorded = board.get(point);
            match (recorded, sensed) {
                (a, b) if a == b => {}
                (Some(color), _) => diff.restore.push((point, color)),
                (None, Some(_)) => diff.remove.push(point),
                (None, None) => {}
            }
        }
        diff
    }

    /// No difference.
    pub fn is_empty(&self) -> bool {
        self.restore.is_empty() && self.remove.is_empty()
    }

    /// Number of points to fix.
    pub fn len(&self) -> usize {
        self.restore.len() + self.remove.len()
    }
}

/// Which captured stones are still on the board and which were lifted, after a settled board
/// was matched.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureTally {
    /// Captured stones still lying on the board (old and new).
    pub still_pending: Vec<Pending>,
    /// Previously pending stones that are now gone.
    pub lifted: Vec<Point>,
}

/// What explains a settled board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Explanation {
    /// The board shows the record's position (captured stones may still lie on it).
    Unchanged(CaptureTally),
    /// One legal stone of `color` at `point` explains the board.
    Move {
        /// Mover (may be the side not to move: the caller flags R17.2).
        color: Color,
        /// Where.
        point: Point,
        /// The captures the rules make (G4).
        captured: Vec<Point>,
        /// Capture bookkeeping after the move.
        tally: CaptureTally,
    },
    /// One stone explains the board, but the rules forbid it there (R18.3/R20.1 ko, R19/G5
    /// forbidden point).
    Illegal {
        /// Offender.
        color: Color,
        /// Where the stone was put.
        point: Point,
        /// Why it is illegal.
        illegal: Illegal,
    },
    /// Nothing explains the board: the exact difference to the record.
    Unexplained(BoardDiff),
}

/// Explains `grid` from the record position in `game`, with `pending` captured stones that may
/// still lie on the board.
pub fn explain(game: &Game, pending: &[Pending], grid: &StoneGrid) -> Explanation {
    let board = game.board();
    let size = board.size();
    if grid.size() != size {
        return Explanation::Unexplained(BoardDiff::between(board, &StoneGrid::empty(size)));
    }
    let mut added: Option<(Point, Color)> = None;
    let mut added_count = 0usize;
    for (point, sensed) in grid.iter() {
        if let (None, Some(color)) = (board.get(point), sensed) {
            if !pending.contains(&(point, color)) {
                added_count += 1;
                added = Some((point, color));
            }
        }
    }
    match (added_count, added) {
        (0, _) => match tally(board, pending, &[], grid) {
            Some(t) => Explanation::Unchanged(t),
            None => Explanation::Unexplained(BoardDiff::between(board, grid)),
        },
        (1, Some((point, color))) => explain_one_stone(game, pending, grid, color, point),
        _ => Explanation::Unexplained(BoardDiff::between(board, grid)),
    }
}

fn explain_one_stone(
    game: &Game,
    pending: &[Pending],
    grid: &StoneGrid,
    color: Color,
    point: Point,
) -> Explanation {
    let board = game.board();
    let unexplained = || Explanation::Unexplained(BoardDiff::between(board, grid));
    match game.preview(color, point) {
        Ok(preview) => {
            let fresh: Vec<Pending> = preview
                .captured
                .iter()
                .map(|&p| (p, color.opposite()))
                .collect();
            match tally(&preview.board, pending, &fresh, grid) {
                Some(t) => Explanation::Move {
                    color,
                    point,
                    captured: preview.captured,
                    tally: t,
                },
                None => unexplained(),
            }
        }
        Err(illegal @ Illegal::Ko(_)) => {
            // The retake as the board alone would play it (captures included).
            let mut after = board.clone();
            match after.play(color, point) {
                Ok(captured) => {
                    let fresh: Vec<Pending> =
                        captured.iter().map(|&p| (p, color.opposite())).collect();
                    match tally(&after, pending, &fresh, grid) {
                        Some(_) => Explanation::Illegal {
                            color,
                            point,
                            illegal,
                        },
                        None => unexplained(),
                    }
                }
                Err(_) => unexplained(),
            }
        }
        Err(illegal @ Illegal::Suicide(_)) => {
            // The stone lies where it was put; nothing else changed.
            let mut after = board.clone();
            after.put(point, Some(color));
            match tally(&after, pending, &[], grid) {
                Some(_) => Explanation::Illegal {
                    color,
                    point,
                    illegal,
                },
                None => unexplained(),
            }
        }
        Err(_) => unexplained(),
    }
}

/// Checks that `grid` shows exactly `after`, allowing `pending` and `fresh` captured stones
/// to still lie on their (empty in `after`) points. Returns which are still there and which
/// old pending stones were lifted; `None` if the board differs anywhere else.
fn tally(
    after: &Board,
    pending: &[Pending],
    fresh: &[Pending],
    grid: &StoneGrid,
) -> Option<CaptureTally> {
    let mut still = Vec::new();
    for (point, sensed) in grid.iter() {
        let expected = after.get(point);
        if expected == sensed {
            continue;
        }
        match (expected, sensed) {
            (None, Some(color))
                if pending.contains(&(point, color)) || fresh.contains(&(point, color)) =>
            {
                still.push((point, color));
            }
            _ => return None,
        }
    }
    let lifted = pending
        .iter()
        .filter(|&&(p, c)| grid.get(p) != Some(c))
        .map(|&(p, _)| p)
        .collect();
    Some(CaptureTally {
        still_pending: still,
        lifted,
    })
}
