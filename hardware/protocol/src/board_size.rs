//! [`BoardSize`]: the side of the board in points, 9, 13 or 19 (hardware/PROTOCOL.md §5.2, §5.3).

use core::fmt;

use crate::error::InvalidBoardSize;

/// A board side length in points, checked to be 9, 13 or 19 (hardware/PROTOCOL.md §5.2 `board_size`
/// of `HelloAck`, §5.3 `board_size` of `Scan`).
///
/// On the wire it is one `u8`. Points are indexed `i = y * size + x`, `x` the column from the
/// left and `y` the row from the top, both `0..size` (SGF order, §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoardSize(u8);

impl BoardSize {
    /// 9×9: 81 points, 21 bytes of packed cells.
    pub const NINE: BoardSize = BoardSize(9);
    /// 13×13: 169 points, 43 bytes of packed cells.
    pub const THIRTEEN: BoardSize = BoardSize(13);
    /// 19×19: 361 points, 91 bytes of packed cells.
    pub const NINETEEN: BoardSize = BoardSize(19);
    /// The three sizes a v1 board may report, smallest first.
    pub const ALL: [BoardSize; 3] = [Self::NINE, Self::THIRTEEN, Self::NINETEEN];

    /// Checks a side length in points; `Err` names the value unless it is 9, 13 or 19.
    pub const fn new(size: u8) -> Result<BoardSize, InvalidBoardSize> {
        match size {
            9 | 13 | 19 => Ok(BoardSize(size)),
            other => Err(InvalidBoardSize(other)),
        }
    }

    /// The side length in points (9, 13 or 19), as sent on the wire.
    pub const fn get(self) -> u8 {
        self.0
    }

    /// The number of points, `size²`: 81, 169 or 361.
    pub const fn points(self) -> usize {
        self.0 as usize * self.0 as usize
    }

    /// Bytes of packed cells for this size, `ceil(size² / 4)`: 21, 43 or 91 (§6).
    pub const fn cell_bytes(self) -> usize {
        self.points().div_ceil(4)
    }

    /// The point index `y * size + x` of column `x` (from the left) and row `y` (from the
    /// top), or `None` if either is `>= size` (§6). SGF point "aa" is `(0, 0)`, index 0.
    pub const fn point_index(self, x: u8, y: u8) -> Option<usize> {
        if x < self.0 && y < self.0 {
            Some(y as usize * self.0 as usize + x as usize)
        } else {
            None
        }
    }
}

impl TryFrom<u8> for BoardSize {
    type Error = InvalidBoardSize;

    fn try_from(size: u8) -> Result<Self, Self::Error> {
        BoardSize::new(size)
    }
}

impl From<BoardSize> for u8 {
    fn from(size: BoardSize) -> u8 {
        size.get()
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{0}x{0}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_9_13_19_are_sizes() {
        for n in 0..=u8::MAX {
            assert_eq!(BoardSize::new(n).is_ok(), matches!(n, 9 | 13 | 19), "{n}");
        }
        assert_eq!(BoardSize::new(18), Err(InvalidBoardSize(18)));
    }

    #[test]
    fn sizes_and_indices() {
        let cell_bytes: [usize; 3] = BoardSize::ALL.map(BoardSize::cell_bytes);
        assert_eq!(cell_bytes, [21, 43, 91]);
        assert_eq!(BoardSize::NINETEEN.point_index(0, 0), Some(0));
        assert_eq!(BoardSize::NINETEEN.point_index(18, 18), Some(360));
        assert_eq!(BoardSize::NINE.point_index(2, 1), Some(11));
        assert_eq!(BoardSize::NINE.point_index(9, 0), None);
    }
}
