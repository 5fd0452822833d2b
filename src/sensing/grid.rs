//! [`StoneGrid`]: what is physically on the board, one entry per point.

use crate::rules::{Board, Color, Point};

/// The stones physically on the board: one `Option<Color>` per point, indexed by
/// [`Point::index`] (row-major from the top-left, SGF orientation).
///
/// Unlike [`Board`] it carries no rules: two stones of a group without liberties can sit on a
/// `StoneGrid` (a capture not yet lifted), which is exactly what the referee must be able to see.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct StoneGrid {
    size: u8,
    cells: Vec<Option<Color>>,
}

impl StoneGrid {
    /// An empty grid of `size`×`size` points.
    pub fn empty(size: u8) -> Self {
        let n = usize::from(size) * usize::from(size);
        StoneGrid {
            size,
            cells: vec![None; n],
        }
    }

    /// The stones of a rules [`Board`], as a grid.
    pub fn from_board(board: &Board) -> Self {
        let mut grid = StoneGrid::empty(board.size());
        for (point, color) in board.stones() {
            grid.set(point, Some(color));
        }
        grid
    }

    /// Board size in points per side (9, 13 or 19 on a physical board).
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The stone at `point`, if any. Points off the grid read as empty.
    pub fn get(&self, point: Point) -> Option<Color> {
        if point.x >= self.size || point.y >= self.size {
            return None;
        }
        self.cells[point.index(self.size)]
    }

    /// Puts (`Some`) or removes (`None`) a stone. Points off the grid are ignored.
    pub fn set(&mut self, point: Point, stone: Option<Color>) {
        if point.x < self.size && point.y < self.size {
            let i = point.index(self.size);
            self.cells[i] = stone;
        }
    }

    /// The stone at dense index `i` (= [`Point::index`]).
    pub fn at_index(&self, i: usize) -> Option<Color> {
        self.cells.get(i).copied().flatten()
    }

    /// Every point with its stone, row by row from the top-left.
    pub fn iter(&self) -> impl Iterator<Item = (Point, Option<Color>)> + '_ {
        let size = self.size;
        self.cells
            .iter()
            .enumerate()
            .map(move |(i, &c)| (Point::from_index(i, size), c))
    }

    /// The board as text rows, top row first: `.` empty, `X` black, `O` white (DESIGN.md,
    /// "Points in text and JSON").
    pub fn rows(&self) -> Vec<String> {
        self.cells
            .chunks(usize::from(self.size.max(1)))
            .map(|row| {
                row.iter()
                    .map(|c| match c {
                        None => '.',
                        Some(Color::Black) => 'X',
                        Some(Color::White) => 'O',
                    })
                    .collect()
            })
            .collect()
    }

    /// Number of stones of `color` on the grid.
    pub fn count(&self, color: Color) -> usize {
        self.cells.iter().filter(|&&c| c == Some(color)).count()
    }
}
