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
        Err(illegal @ (Illegal::Ko(_) | Illegal::Suicide(_))) => {
            // What the board shows after the forbidden stone: a ko retake with its capture
            // (which may still lie on the board), a suicide stone simply lying there.
            let mut after = board.clone();
            let fresh: Vec<Pending> = match illegal {
                Illegal::Ko(_) => match after.play(color, point) {
                    Ok(captured) => captured.iter().map(|&p| (p, color.opposite())).collect(),
                    Err(_) => return unexplained(),
                },
                _ => {
                    after.put(point, Some(color));
                    Vec::new()
                }
            };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Point {
        Point::from_gtp(s, 9).unwrap()
    }

    /// A game on 9×9 after the given alternating moves from Black.
    fn game(moves: &[&str]) -> Game {
        let mut g = Game::new(9).unwrap();
        let mut c = Color::Black;
        for m in moves {
            g.play(c, Some(p(m))).unwrap();
            c = c.opposite();
        }
        g
    }

    fn grid(g: &Game, edits: &[(&str, Option<Color>)]) -> StoneGrid {
        let mut grid = StoneGrid::from_board(g.board());
        for &(pt, c) in edits {
            grid.set(p(pt), c);
        }
        grid
    }

    const B: Option<Color> = Some(Color::Black);
    const W: Option<Color> = Some(Color::White);

    #[test]
    fn the_record_position_is_unchanged() {
        let g = game(&["E5", "C3"]);
        assert_eq!(
            explain(&g, &[], &grid(&g, &[])),
            Explanation::Unchanged(CaptureTally::default())
        );
    }

    #[test]
    fn one_new_stone_is_a_move_even_out_of_turn() {
        let g = game(&["E5"]);
        match explain(&g, &[], &grid(&g, &[("G7", W)])) {
            Explanation::Move { color, point, .. } => {
                assert_eq!((color, point), (Color::White, p("G7")))
            }
            other => panic!("{other:?}"),
        }
        // Black again: explained as a black move; the referee flags R17.2.
        match explain(&g, &[], &grid(&g, &[("G7", B)])) {
            Explanation::Move { color, .. } => assert_eq!(color, Color::Black),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_capture_may_be_lifted_now_or_later() {
        // W C3 in atari (B B3, C4, D3); Black C2 captures.
        let g = game(&["B3", "C3", "C4", "G7", "D3", "G6"]);
        let lifted = grid(&g, &[("C2", B), ("C3", None)]);
        match explain(&g, &[], &lifted) {
            Explanation::Move {
                point,
                captured,
                tally,
                ..
            } => {
                assert_eq!(point, p("C2"));
                assert_eq!(captured, vec![p("C3")]);
                assert!(tally.still_pending.is_empty());
            }
            other => panic!("{other:?}"),
        }
        let pending = grid(&g, &[("C2", B)]);
        match explain(&g, &[], &pending) {
            Explanation::Move { tally, .. } => {
                assert_eq!(tally.still_pending, vec![(p("C3"), Color::White)]);
            }
            other => panic!("{other:?}"),
        }
        // After the move, with C3 still pending: the board unchanged, then C3 lifted.
        let mut after = g.clone();
        after.play(Color::Black, Some(p("C2"))).unwrap();
        let still = [(p("C3"), Color::White)];
        assert_eq!(
            explain(&after, &still, &pending),
            Explanation::Unchanged(CaptureTally {
                still_pending: still.to_vec(),
                lifted: vec![]
            })
        );
        assert_eq!(
            explain(&after, &still, &lifted),
            Explanation::Unchanged(CaptureTally {
                still_pending: vec![],
                lifted: vec![p("C3")]
            })
        );
    }

    #[test]
    fn stones_that_vanish_or_appear_in_pairs_are_a_desync_with_the_exact_difference() {
        let g = game(&["E5", "C3"]);
        let missing = grid(&g, &[("E5", None)]);
        assert_eq!(
            explain(&g, &[], &missing),
            Explanation::Unexplained(BoardDiff {
                restore: vec![(p("E5"), Color::Black)],
                remove: vec![]
            })
        );
        let two = grid(&g, &[("A1", B), ("J9", W)]);
        match explain(&g, &[], &two) {
            Explanation::Unexplained(d) => {
                assert_eq!(d.remove, vec![p("J9"), p("A1")]);
                assert!(d.restore.is_empty());
            }
            other => panic!("{other:?}"),
        }
        // a stone that changed colour: put the right one back
        let swapped = grid(&g, &[("C3", B)]);
        assert_eq!(
            explain(&g, &[], &swapped),
            Explanation::Unexplained(BoardDiff {
                restore: vec![(p("C3"), Color::White)],
                remove: vec![]
            })
        );
    }

    #[test]
    fn a_move_that_also_lifts_a_stone_with_liberties_is_not_a_move() {
        let g = game(&["E5", "C3"]);
        let b = grid(&g, &[("G7", B), ("C3", None)]);
        assert!(matches!(explain(&g, &[], &b), Explanation::Unexplained(_)));
    }

    #[test]
    fn ko_retake_and_suicide_are_recognised_as_illegal() {
        // Black captures the ko at F5 (W E5 surrounded by D5, E6, E4).
        let g0 = game(&["D5", "G5", "E6", "F6", "E4", "F4", "A9", "E5", "F5"]);
        // White retakes at E5 at once, lifting F5.
        let retake = grid(&g0, &[("E5", W), ("F5", None)]);
        assert_eq!(
            explain(&g0, &[], &retake),
            Explanation::Illegal {
                color: Color::White,
                point: p("E5"),
                illegal: Illegal::Ko(p("E5"))
            }
        );
        // Suicide: W A1 into Black's A2/B1 corner.
        let g1 = game(&["A2", "E5", "B1"]);
        assert_eq!(
            explain(&g1, &[], &grid(&g1, &[("A1", W)])),
            Explanation::Illegal {
                color: Color::White,
                point: p("A1"),
                illegal: Illegal::Suicide(p("A1"))
            }
        );
    }
}
