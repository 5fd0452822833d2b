//! Points of the board and their two text forms: GTP (`D4`) and SGF (`dp`).
//!
//! A [`Point`] is a column `x` counted from the left and a row `y` counted from the **top**, both
//! from 0, as in SGF (`aa` is the top-left corner). GTP text counts rows from the **bottom**
//! (row 1 is the bottom line) and names columns `A`–`T` skipping `I`; so on 19×19
//! `Point { x: 3, y: 15 }` is `D4` in GTP and `dp` in SGF (DESIGN.md, "Names that others rely on").

use std::fmt;
use thiserror::Error;

/// The GTP column letters: `A` to `Z` without `I`, enough for 25 columns.
const GTP_COLUMNS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// The largest board the rules core supports (G1: 19×19).
pub const MAX_BOARD_SIZE: u8 = 19;

/// The smallest board the rules core supports.
pub const MIN_BOARD_SIZE: u8 = 2;

/// An intersection of the board: `x` is the column from the left, `y` the row from the top,
/// both from 0 (SGF orientation).
///
/// Ordered row by row (by `y`, then `x`), like [`Point::index`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Point {
    /// Column, 0 = leftmost (GTP `A`, SGF `a`).
    pub x: u8,
    /// Row, 0 = top (GTP row `size`, SGF `a`).
    pub y: u8,
}

/// Why a text coordinate is not a point of the board.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CoordError {
    /// The text was empty (or only white space).
    #[error("empty coordinate")]
    Empty,
    /// The text names a pass (`pass` in GTP, `tt` or an empty value in SGF), not a point.
    #[error("`{0}` is a pass, not a point")]
    Pass(String),
    /// GTP column letters skip `I` (it looks like `J` and `1`).
    #[error("`{0}`: GTP column letters skip I (H is followed by J)")]
    ColumnI(String),
    /// Not of the form letter + row number (GTP) or two letters (SGF).
    #[error("`{text}` is not a {form} coordinate ({expected})")]
    Syntax {
        /// The text as given.
        text: String,
        /// `"GTP"` or `"SGF"`.
        form: &'static str,
        /// What the form looks like.
        expected: &'static str,
    },
    /// Well formed, but outside a board of this size.
    #[error("`{text}` is outside the {size}×{size} board")]
    OutsideBoard {
        /// The text as given.
        text: String,
        /// The board size.
        size: u8,
    },
    /// The board size itself is not one the core supports (2..=19).
    #[error("board size {0} is not supported (2 to 19)")]
    UnsupportedSize(u8),
}

impl Point {
    /// The point at column `x` (from the left) and row `y` (from the top), both from 0.
    #[inline]
    pub const fn new(x: u8, y: u8) -> Point {
        Point { x, y }
    }

    /// Whether the point lies on a board of `size` × `size`.
    #[inline]
    pub const fn is_on_board(self, size: u8) -> bool {
        self.x < size && self.y < size
    }

    /// Reads a GTP vertex such as `D4`, `q16` or `T19` (case-insensitive, white space around is
    /// ignored): a column letter `A`–`T` without `I`, then the row counted from the bottom,
    /// `1..=size`.
    ///
    /// # Errors
    /// [`CoordError`] naming what is wrong: `I` used as a column, `pass`, bad syntax, a point
    /// outside the board, or a board size outside 2..=19.
    pub fn from_gtp(text: &str, size: u8) -> Result<Point, CoordError> {
        check_size(size)?;
        let t = text.trim();
        if t.is_empty() {
            return Err(CoordError::Empty);
        }
        if t.eq_ignore_ascii_case("pass") {
            return Err(CoordError::Pass(t.to_string()));
        }
        let syntax = || CoordError::Syntax {
            text: t.to_string(),
            form: "GTP",
            expected: "a column letter A–T without I, then a row number from the bottom, e.g. D4",
        };
        let mut chars = t.chars();
        let first = chars.next().unwrap_or(' ');
        if !first.is_ascii_alphabetic() {
            return Err(syntax());
        }
        let letter = first.to_ascii_uppercase() as u8;
        let digits = chars.as_str();
        if letter == b'I' {
            return Err(CoordError::ColumnI(t.to_string()));
        }
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax());
        }
        let row: u8 = digits.parse().map_err(|_| syntax())?;
        let x = GTP_COLUMNS
            .iter()
            .position(|&c| c == letter)
            .ok_or_else(syntax)? as u8;
        if x >= size || row == 0 || row > size {
            return Err(CoordError::OutsideBoard {
                text: t.to_string(),
                size,
            });
        }
        Ok(Point { x, y: size - row })
    }

    /// The GTP vertex of this point on a `size` × `size` board, e.g. `D4` (upper case).
    ///
    /// Meant for points on that board; for a point off it the result is still some text (never
    /// a panic): `?` for a column beyond `Z` and the row number as computed, possibly 0 or
    /// negative.
    pub fn to_gtp(self, size: u8) -> String {
        let col = GTP_COLUMNS.get(self.x as usize).map_or('?', |&c| c as char);
        let row = i32::from(size) - i32::from(self.y);
        format!("{col}{row}")
    }

    /// Reads an SGF point such as `dp` (two lower-case letters, column then row, `a` = 0) on a
    /// `size` × `size` board.
    ///
    /// # Errors
    /// [`CoordError::Pass`] for `tt` on boards up to 19 and for an empty value (SGF passes),
    /// [`CoordError::OutsideBoard`] for letters beyond the board, [`CoordError::Syntax`] otherwise.
    pub fn from_sgf(text: &str, size: u8) -> Result<Point, CoordError> {
        check_size(size)?;
        let t = text.trim();
        if t.is_empty() {
            return Err(CoordError::Pass(String::new()));
        }
        let b = t.as_bytes();
        if b.len() != 2 || !b[0].is_ascii_lowercase() || !b[1].is_ascii_lowercase() {
            return Err(CoordError::Syntax {
                text: t.to_string(),
                form: "SGF",
                expected: "two lower-case letters, column then row from the top-left, e.g. dp",
            });
        }
        let p = Point {
            x: b[0] - b'a',
            y: b[1] - b'a',
        };
        if p.is_on_board(size) {
            Ok(p)
        } else if t == "tt" && size <= MAX_BOARD_SIZE {
            Err(CoordError::Pass(t.to_string()))
        } else {
            Err(CoordError::OutsideBoard {
                text: t.to_string(),
                size,
            })
        }
    }

    /// The SGF form of this point: two letters, column then row, `a` = 0 (`dp`). Columns and
    /// rows from 26 to 51 use `A`–`Z` as SGF FF\[4\] does; beyond that `?`.
    pub fn to_sgf(self) -> String {
        fn letter(v: u8) -> char {
            match v {
                0..=25 => (b'a' + v) as char,
                26..=51 => (b'A' + v - 26) as char,
                _ => '?',
            }
        }
        let mut s = String::with_capacity(2);
        s.push(letter(self.x));
        s.push(letter(self.y));
        s
    }

    /// Row-major index of the point on a `size` × `size` board: `y * size + x`.
    #[inline]
    pub const fn index(self, size: u8) -> usize {
        self.y as usize * size as usize + self.x as usize
    }

    /// The point with row-major index `index` on a `size` × `size` board (inverse of
    /// [`Point::index`]). A size of 0 yields the origin instead of dividing by zero; indices
    /// that do not fit in `u8` coordinates saturate.
    pub fn from_index(index: usize, size: u8) -> Point {
        if size == 0 {
            return Point { x: 0, y: 0 };
        }
        let s = size as usize;
        Point {
            x: (index % s) as u8,
            y: u8::try_from(index / s).unwrap_or(u8::MAX),
        }
    }
}

impl fmt::Debug for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Point({}, {} \"{}\")", self.x, self.y, self.to_sgf())
    }
}

impl PartialOrd for Point {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Point {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.y, self.x).cmp(&(other.y, other.x))
    }
}

fn check_size(size: u8) -> Result<(), CoordError> {
    if (MIN_BOARD_SIZE..=MAX_BOARD_SIZE).contains(&size) {
        Ok(())
    } else {
        Err(CoordError::UnsupportedSize(size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d4_is_dp_on_19() {
        let p = Point::new(3, 15);
        assert_eq!(p.to_gtp(19), "D4");
        assert_eq!(p.to_sgf(), "dp");
        assert_eq!(Point::from_gtp("D4", 19), Ok(p));
        assert_eq!(Point::from_gtp("d4", 19), Ok(p));
        assert_eq!(Point::from_gtp(" q16 ", 19), Ok(Point::new(15, 3)));
        assert_eq!(Point::from_sgf("dp", 19), Ok(p));
    }

    #[test]
    fn corners_and_t19() {
        assert_eq!(Point::from_gtp("T19", 19), Ok(Point::new(18, 0)));
        assert_eq!(Point::from_gtp("A1", 19), Ok(Point::new(0, 18)));
        assert_eq!(Point::from_gtp("A19", 19), Ok(Point::new(0, 0)));
        assert_eq!(Point::from_gtp("J9", 9), Ok(Point::new(8, 0)));
        assert_eq!(Point::new(18, 0).to_gtp(19), "T19");
        assert_eq!(Point::new(8, 8).to_gtp(9), "J1");
        assert_eq!(Point::from_sgf("ss", 19), Ok(Point::new(18, 18)));
    }

    #[test]
    fn round_trips_on_9_13_19() {
        for size in [9u8, 13, 19] {
            for y in 0..size {
                for x in 0..size {
                    let p = Point::new(x, y);
                    assert_eq!(Point::from_gtp(&p.to_gtp(size), size), Ok(p));
                    assert_eq!(Point::from_gtp(&p.to_gtp(size).to_lowercase(), size), Ok(p));
                    assert_eq!(Point::from_sgf(&p.to_sgf(), size), Ok(p));
                    assert_eq!(Point::from_index(p.index(size), size), p);
                }
            }
        }
    }

    #[test]
    fn rejects_i_and_outside_points() {
        assert_eq!(
            Point::from_gtp("I5", 19),
            Err(CoordError::ColumnI("I5".into()))
        );
        assert_eq!(
            Point::from_gtp("i5", 19),
            Err(CoordError::ColumnI("i5".into()))
        );
        assert!(matches!(
            Point::from_gtp("U1", 19),
            Err(CoordError::OutsideBoard { .. })
        ));
        assert!(matches!(
            Point::from_gtp("K10", 9),
            Err(CoordError::OutsideBoard { .. })
        ));
        assert!(matches!(
            Point::from_gtp("A0", 19),
            Err(CoordError::OutsideBoard { .. })
        ));
        assert!(matches!(
            Point::from_gtp("A20", 19),
            Err(CoordError::OutsideBoard { .. })
        ));
        assert!(matches!(
            Point::from_gtp("44", 19),
            Err(CoordError::Syntax { .. })
        ));
        assert!(matches!(
            Point::from_gtp("D", 19),
            Err(CoordError::Syntax { .. })
        ));
        assert!(matches!(
            Point::from_gtp("Ä4", 19),
            Err(CoordError::Syntax { .. })
        ));
        assert!(matches!(
            Point::from_gtp("D4x", 19),
            Err(CoordError::Syntax { .. })
        ));
        assert_eq!(Point::from_gtp("", 19), Err(CoordError::Empty));
        assert!(matches!(
            Point::from_gtp("PASS", 19),
            Err(CoordError::Pass(_))
        ));
        assert_eq!(
            Point::from_gtp("D4", 20),
            Err(CoordError::UnsupportedSize(20))
        );
    }

    #[test]
    fn sgf_passes_and_errors() {
        assert!(matches!(
            Point::from_sgf("tt", 19),
            Err(CoordError::Pass(_))
        ));
        assert!(matches!(Point::from_sgf("tt", 9), Err(CoordError::Pass(_))));
        assert!(matches!(Point::from_sgf("", 19), Err(CoordError::Pass(_))));
        assert!(matches!(
            Point::from_sgf("jj", 9),
            Err(CoordError::OutsideBoard { .. })
        ));
        assert!(matches!(
            Point::from_sgf("dP", 19),
            Err(CoordError::Syntax { .. })
        ));
        assert!(matches!(
            Point::from_sgf("d", 19),
            Err(CoordError::Syntax { .. })
        ));
        assert!(matches!(
            Point::from_sgf("ソソ", 19),
            Err(CoordError::Syntax { .. })
        ));
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        assert_eq!(Point::from_index(7, 0), Point::new(0, 0));
        assert_eq!(Point::new(30, 2).to_gtp(19), "?17");
        assert_eq!(Point::new(30, 60).to_sgf(), "E?");
        assert_eq!(Point::new(0, 25).to_gtp(19), "A-6");
    }

    #[test]
    fn ordering_is_row_major() {
        let mut v = vec![Point::new(1, 2), Point::new(5, 0), Point::new(0, 2)];
        v.sort();
        assert_eq!(
            v,
            vec![Point::new(5, 0), Point::new(0, 2), Point::new(1, 2)]
        );
    }
}
