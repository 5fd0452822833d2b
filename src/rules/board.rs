//! The board: stones, groups, liberties and captures (G3–G5).
//!
//! Layout: a fixed array of 21 × 21 cells — the largest board (19×19) plus a one-cell border of
//! sentinels on every side — used for every size, so the four neighbours of a cell are always
//! at offsets −21, −1, +1, +21 and no bounds test is needed while walking a group. A board of
//! size *n* uses the top-left (*n*+2)² corner; the rest is border. The whole board is one array
//! plus three counters, so [`Clone`] is a 456-byte copy without heap allocation.
//!
//! Group walks (liberty tests, captures) use a breadth-first scan with an on-stack bitset of
//! visited cells and stop at the first liberty when only "has a liberty" matters; a quick look
//! at a stone's four neighbours settles most cases without any walk.

use super::color::Color;
use super::point::{Point, MAX_BOARD_SIZE, MIN_BOARD_SIZE};
use super::zobrist::KEYS;
use std::fmt;
use thiserror::Error;

/// Cells per row of the padded layout: the largest board plus a border column on each side.
pub(crate) const STRIDE: usize = MAX_BOARD_SIZE as usize + 2;
/// Cells of the padded layout.
pub(crate) const CELLS: usize = STRIDE * STRIDE;
/// Points of the largest board: no group and no capture is larger.
pub(crate) const MAX_POINTS: usize = MAX_BOARD_SIZE as usize * MAX_BOARD_SIZE as usize;

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const EDGE: u8 = 3;

/// The cell value of a stone of `c`.
#[inline(always)]
const fn stone(c: Color) -> u8 {
    c.index() as u8 + 1
}

/// The four neighbours of an on-board cell (never out of the array: the border surrounds it).
#[inline(always)]
const fn neighbours(i: usize) -> [usize; 4] {
    [i - STRIDE, i - 1, i + 1, i + STRIDE]
}

/// The board size is not one the core supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("board size {0} is not supported (sizes 2 to 19 are)")]
pub struct SizeError(pub u8);

/// Why [`Board::play`] refused a placement. The board is left unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum BoardError {
    /// The point already holds a stone (G2: stones are placed on empty points).
    #[error("the point is already occupied")]
    Occupied,
    /// The stone would have no liberties and captures nothing: a forbidden point (G5, R19).
    #[error("suicide: the stone would have no liberty and captures nothing (G5)")]
    Suicide,
    /// The point is not on this board.
    #[error("the point is off the board")]
    OffBoard,
}

/// Why [`Board::from_rows`] could not read a diagram.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoardParseError {
    /// The number of rows is not a supported size.
    #[error(transparent)]
    Size(#[from] SizeError),
    /// A row does not have as many points as there are rows.
    #[error("row {row} has {found} points, expected {expected}")]
    RowLength {
        /// Row number from the top, from 0.
        row: usize,
        /// Points expected (the number of rows).
        expected: usize,
        /// Points found.
        found: usize,
    },
    /// A character other than `.`/`+` (empty), `X`/`x` (black), `O`/`o` (white) or a space.
    #[error("row {row}, column {column}: `{ch}` is not `.`, `X` or `O`")]
    BadChar {
        /// Row number from the top, from 0.
        row: usize,
        /// Column from the left, from 0 (spaces not counted).
        column: usize,
        /// The character found.
        ch: char,
    },
}

/// Scratch space of a group walk: visited bitset and the stones found, in visiting order.
struct Scan {
    marks: [u64; CELLS.div_ceil(64)],
    stones: [u16; MAX_POINTS],
    len: usize,
}

impl Scan {
    fn new() -> Scan {
        Scan {
            marks: [0; CELLS.div_ceil(64)],
            stones: [0; MAX_POINTS],
            len: 0,
        }
    }

    /// Marks `i` visited; true if it was not visited before.
    #[inline(always)]
    fn mark(&mut self, i: usize) -> bool {
        let (w, b) = (i >> 6, 1u64 << (i & 63));
        let fresh = self.marks[w] & b == 0;
        self.marks[w] |= b;
        fresh
    }

    #[inline(always)]
    fn stones(&self) -> &[u16] {
        &self.stones[..self.len]
    }
}

/// A square Go board of size 2..=19 with its stones (G1, G3–G5).
///
/// [`Board::play`] applies the capture rules; [`Board::put`] edits stones without them (SGF
/// setup `AB`/`AW`/`AE`, tests). The Zobrist [`hash`](Board::hash) of the stones is kept up to
/// date on every change.
#[derive(Clone, PartialEq, Eq)]
pub struct Board {
    cells: [u8; CELLS],
    size: u8,
    counts: [u16; 2],
    hash: u64,
}

/// A board is kept (the store's checkpoints) as its [`Board::rows`], top row first, and read
/// back with [`Board::from_rows`]: the stones alone define it (the hash is recomputed).
impl serde::Serialize for Board {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.rows())
    }
}

impl<'de> serde::Deserialize<'de> for Board {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Board, D::Error> {
        let rows = <Vec<String> as serde::Deserialize>::deserialize(deserializer)?;
        let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
        Board::from_rows(&rows).map_err(serde::de::Error::custom)
    }
}

impl Board {
    /// An empty board of `size` × `size` points.
    ///
    /// # Errors
    /// [`SizeError`] unless `2 <= size <= 19` (the product uses 9, 13 and 19).
    pub fn new(size: u8) -> Result<Board, SizeError> {
        if !(MIN_BOARD_SIZE..=MAX_BOARD_SIZE).contains(&size) {
            return Err(SizeError(size));
        }
        Ok(Board::clamped(size))
    }

    /// An empty board of `size` clamped into 2..=19: for callers that must not fail.
    pub(crate) fn clamped(size: u8) -> Board {
        let size = size.clamp(MIN_BOARD_SIZE, MAX_BOARD_SIZE);
        let mut cells = [EDGE; CELLS];
        let n = size as usize;
        for y in 1..=n {
            cells[y * STRIDE + 1..y * STRIDE + 1 + n].fill(EMPTY);
        }
        Board {
            cells,
            size,
            counts: [0, 0],
            hash: 0,
        }
    }

    /// Reads a diagram, top row first: `.` or `+` empty, `X`/`x` black, `O`/`o` white; spaces
    /// are ignored. The number of rows is the size. Stones are placed as they are, without
    /// captures (a diagram may show a group without liberties).
    ///
    /// # Errors
    /// [`BoardParseError`] naming the bad row, its length or the bad character.
    pub fn from_rows(rows: &[&str]) -> Result<Board, BoardParseError> {
        let size = u8::try_from(rows.len()).map_err(|_| SizeError(u8::MAX))?;
        let mut board = Board::new(size)?;
        for (y, row) in rows.iter().enumerate() {
            let chars: Vec<char> = row.chars().filter(|c| *c != ' ').collect();
            if chars.len() != rows.len() {
                return Err(BoardParseError::RowLength {
                    row: y,
                    expected: rows.len(),
                    found: chars.len(),
                });
            }
            for (x, ch) in chars.into_iter().enumerate() {
                let colour = match ch {
                    '.' | '+' => None,
                    'X' | 'x' => Some(Color::Black),
                    'O' | 'o' => Some(Color::White),
                    _ => {
                        return Err(BoardParseError::BadChar {
                            row: y,
                            column: x,
                            ch,
                        })
                    }
                };
                board.put(Point::new(x as u8, y as u8), colour);
            }
        }
        Ok(board)
    }

    /// The number of points on a side.
    #[inline]
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The padded-layout index of a point, if it is on this board.
    #[inline]
    pub(crate) fn index_of(&self, p: Point) -> Option<usize> {
        if p.is_on_board(self.size) {
            Some((p.y as usize + 1) * STRIDE + p.x as usize + 1)
        } else {
            None
        }
    }

    /// The point of a padded-layout index (of an on-board cell).
    #[inline]
    pub(crate) fn point_at(i: usize) -> Point {
        Point::new((i % STRIDE) as u8 - 1, (i / STRIDE) as u8 - 1)
    }

    /// The stone on a point: `None` for an empty point and for a point off the board.
    #[inline]
    pub fn get(&self, p: Point) -> Option<Color> {
        self.index_of(p).and_then(|i| self.colour_at(i))
    }

    #[inline]
    fn colour_at(&self, i: usize) -> Option<Color> {
        match self.cells[i] {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    /// Sets a point to a stone or to empty, without applying any rule (SGF setup `AB`/`AW`/`AE`
    /// and test positions). A point off the board is ignored.
    pub fn put(&mut self, p: Point, stone: Option<Color>) {
        if let Some(i) = self.index_of(p) {
            self.remove(i);
            if let Some(c) = stone {
                self.add(i, c);
            }
        }
    }

    #[inline(always)]
    fn add(&mut self, i: usize, c: Color) {
        self.cells[i] = stone(c);
        self.hash ^= KEYS[c.index()][i];
        self.counts[c.index()] += 1;
    }

    #[inline(always)]
    fn remove(&mut self, i: usize) {
        let v = self.cells[i];
        if v == BLACK || v == WHITE {
            let c = (v - 1) as usize;
            self.cells[i] = EMPTY;
            self.hash ^= KEYS[c][i];
            self.counts[c] -= 1;
        }
    }

    /// Plays a stone of `colour` on `p` under G3–G5: the stone is placed; every opponent group
    /// left without liberties is removed — first, so that when both sides' groups have no
    /// liberties only the opponent's are captured (G4) —; then a placement whose own group has
    /// no liberty is refused as suicide (G5).
    ///
    /// Returns the captured points in row-major order (empty for most moves; no allocation
    /// then). Ko and repetition are not a board matter: see [`Game`](super::Game).
    ///
    /// # Errors
    /// [`BoardError::Occupied`], [`BoardError::Suicide`], [`BoardError::OffBoard`]; the board is
    /// unchanged.
    pub fn play(&mut self, colour: Color, p: Point) -> Result<Vec<Point>, BoardError> {
        let i = self.index_of(p).ok_or(BoardError::OffBoard)?;
        let mut captured = Vec::new();
        self.play_at(colour, i, &mut captured)?;
        Ok(Self::points_of(&captured))
    }

    /// Points of padded indices, sorted row-major.
    pub(crate) fn points_of(idx: &[u16]) -> Vec<Point> {
        if idx.is_empty() {
            return Vec::new();
        }
        let mut v: Vec<u16> = idx.to_vec();
        v.sort_unstable();
        v.into_iter().map(|i| Self::point_at(i as usize)).collect()
    }

    /// [`Board::play`] on a padded index, appending the captured cells to `captured` (which is
    /// not touched unless something is captured: no allocation on the usual path).
    pub(crate) fn play_at(
        &mut self,
        colour: Color,
        i: usize,
        captured: &mut Vec<u16>,
    ) -> Result<(), BoardError> {
        match self.cells[i] {
            EMPTY => {}
            EDGE => return Err(BoardError::OffBoard),
            _ => return Err(BoardError::Occupied),
        }
        let opp = stone(colour.opposite());
        self.add(i, colour);
        let mut any_captured = false;
        let mut scan: Option<Scan> = None;
        for n in neighbours(i) {
            // G4: the opponent's groups without liberties go first.
            if self.cells[n] == opp && !self.touches_empty(n) {
                let sc = scan.get_or_insert_with(Scan::new);
                if !self.scan(n, true, sc) {
                    for &s in sc.stones() {
                        self.remove(s as usize);
                    }
                    captured.extend_from_slice(sc.stones());
                    any_captured = true;
                }
            }
        }
        if !any_captured && !self.touches_empty(i) {
            let sc = scan.get_or_insert_with(Scan::new);
            if !self.scan(i, true, sc) {
                // G5: no liberty and nothing captured.
                self.remove(i);
                return Err(BoardError::Suicide);
            }
        }
        Ok(())
    }

    /// Takes back a placement made by [`Board::play_at`]: removes the stone on `i` and puts
    /// back the opponent's stones on `captured`.
    pub(crate) fn unplay_at(&mut self, colour: Color, i: usize, captured: &[u16]) {
        self.remove(i);
        let opp = colour.opposite();
        for &s in captured {
            self.add(s as usize, opp);
        }
    }

    /// For the stone on cell `i`: `None` if a neighbour holds a stone of its colour, else the
    /// number of its liberties (its empty neighbours).
    #[inline]
    pub(crate) fn lone_stone_liberties(&self, i: usize) -> Option<usize> {
        let me = self.cells[i];
        let mut empties = 0;
        for n in neighbours(i) {
            match self.cells[n] {
                EMPTY => empties += 1,
                c if c == me => return None,
                _ => {}
            }
        }
        Some(empties)
    }

    /// Whether the cell has an empty neighbour.
    #[inline(always)]
    fn touches_empty(&self, i: usize) -> bool {
        let [a, b, c, d] = neighbours(i);
        self.cells[a] == EMPTY
            || self.cells[b] == EMPTY
            || self.cells[c] == EMPTY
            || self.cells[d] == EMPTY
    }

    /// Walks the group on `start` (a stone) breadth-first. Returns whether it has a liberty;
    /// with `stop_at_liberty` it returns at the first one found, otherwise `scan` ends up holding
    /// the whole group.
    fn scan(&self, start: usize, stop_at_liberty: bool, scan: &mut Scan) -> bool {
        let colour = self.cells[start];
        scan.marks = [0; CELLS.div_ceil(64)];
        scan.mark(start);
        scan.stones[0] = start as u16;
        scan.len = 1;
        let mut head = 0;
        let mut found = false;
        while head < scan.len {
            let s = scan.stones[head] as usize;
            head += 1;
            for n in neighbours(s) {
                let c = self.cells[n];
                if c == EMPTY {
                    if stop_at_liberty {
                        return true;
                    }
                    found = true;
                } else if c == colour && scan.mark(n) {
                    scan.stones[scan.len] = n as u16;
                    scan.len += 1;
                }
            }
        }
        found
    }

    /// The Zobrist hash of the stones (not of the side to move): equal positions have equal
    /// hashes, on every run and platform. Updated incrementally by every change.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The number of stones of `colour` on the board.
    #[inline]
    pub fn stone_count(&self, colour: Color) -> usize {
        self.counts[colour.index()] as usize
    }

    /// The number of liberties (G3: distinct empty points orthogonally adjacent to the group)
    /// of the group on `p`; 0 for an empty point or a point off the board.
    pub fn liberties(&self, p: Point) -> usize {
        let Some(i) = self.index_of(p) else { return 0 };
        if self.colour_at(i).is_none() {
            return 0;
        }
        let mut scan = Scan::new();
        self.scan(i, false, &mut scan);
        let mut seen = [0u64; CELLS.div_ceil(64)];
        let mut count = 0;
        for &s in scan.stones() {
            for n in neighbours(s as usize) {
                if self.cells[n] == EMPTY {
                    let (w, b) = (n >> 6, 1u64 << (n & 63));
                    if seen[w] & b == 0 {
                        seen[w] |= b;
                        count += 1;
                    }
                }
            }
        }
        count
    }

    /// The stones of the group (G3: orthogonally connected, same colour) on `p`, row-major;
    /// empty for an empty point or a point off the board.
    pub fn group(&self, p: Point) -> Vec<Point> {
        let Some(i) = self.index_of(p) else {
            return Vec::new();
        };
        if self.colour_at(i).is_none() {
            return Vec::new();
        }
        let mut scan = Scan::new();
        self.scan(i, false, &mut scan);
        Self::points_of(scan.stones())
    }

    /// The board as text rows, top row first: `.` empty, `X` black, `O` white (the JSON board
    /// form of DESIGN.md).
    pub fn rows(&self) -> Vec<String> {
        let n = self.size as usize;
        (1..=n)
            .map(|y| {
                self.cells[y * STRIDE + 1..y * STRIDE + 1 + n]
                    .iter()
                    .map(|&c| match c {
                        BLACK => 'X',
                        WHITE => 'O',
                        _ => '.',
                    })
                    .collect()
            })
            .collect()
    }

    /// Every stone on the board with its point, row-major.
    pub fn stones(&self) -> impl Iterator<Item = (Point, Color)> + '_ {
        let n = self.size as usize;
        (0..n * n).filter_map(move |k| {
            let p = Point::new((k % n) as u8, (k / n) as u8);
            let i = (k / n + 1) * STRIDE + k % n + 1;
            self.colour_at(i).map(|c| (p, c))
        })
    }

    /// Every empty point, row-major (the candidate moves of a position).
    pub fn empty_points(&self) -> impl Iterator<Item = Point> + '_ {
        let n = self.size as usize;
        (1..=n).flat_map(move |y| {
            self.cells[y * STRIDE + 1..y * STRIDE + 1 + n]
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c == EMPTY)
                .map(move |(x, _)| Point::new(x as u8, y as u8 - 1))
        })
    }

    /// Whether `p` is an empty point whose every neighbour on the board holds a stone of
    /// `colour`: a single-point eye of that colour (or a false eye: diagonals are not looked
    /// at). Filling one's own such point is never useful, so playout policies skip it.
    pub fn is_single_point_eye(&self, p: Point, colour: Color) -> bool {
        let Some(i) = self.index_of(p) else {
            return false;
        };
        let me = stone(colour);
        self.cells[i] == EMPTY
            && neighbours(i)
                .iter()
                .all(|&n| self.cells[n] == me || self.cells[n] == EDGE)
    }

    /// The hash recomputed from the stones, for tests of the incremental update.
    #[cfg(test)]
    pub(crate) fn hash_from_scratch(&self) -> u64 {
        let mut h = 0;
        for (i, &c) in self.cells.iter().enumerate() {
            if c == BLACK || c == WHITE {
                h ^= KEYS[(c - 1) as usize][i];
            }
        }
        h
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Board {}×{} (hash {:016x}, black {}, white {})",
            self.size, self.size, self.hash, self.counts[0], self.counts[1]
        )?;
        for row in self.rows() {
            writeln!(f, "  {row}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rows().join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(gtp: &str, size: u8) -> Point {
        Point::from_gtp(gtp, size).unwrap()
    }

    #[test]
    fn sizes() {
        assert_eq!(Board::new(1), Err(SizeError(1)));
        assert_eq!(Board::new(20), Err(SizeError(20)));
        for s in [2u8, 9, 13, 19] {
            let b = Board::new(s).unwrap();
            assert_eq!(b.rows().len(), s as usize);
            assert_eq!(b.stones().count(), 0);
            assert_eq!(b.hash(), 0);
        }
        assert!(std::mem::size_of::<Board>() <= 456);
    }

    #[test]
    fn corner_capture() {
        let mut b = Board::from_rows(&["X....", ".....", ".....", ".....", "....."]).unwrap();
        assert_eq!(b.play(Color::White, p("B5", 5)), Ok(vec![]));
        assert_eq!(b.liberties(p("A5", 5)), 1);
        assert_eq!(b.play(Color::White, p("A4", 5)), Ok(vec![p("A5", 5)]));
        assert_eq!(b.get(p("A5", 5)), None);
        assert_eq!(b.stone_count(Color::Black), 0);
        assert_eq!(b.stone_count(Color::White), 2);
        // The captured corner is an ordinary empty point again.
        assert_eq!(b.play(Color::Black, p("E1", 5)), Ok(vec![]));
        assert_eq!(b.liberties(p("E1", 5)), 2);
    }

    #[test]
    fn edge_capture_of_a_group() {
        let mut b = Board::from_rows(&[
            ".XXX.", //
            "OOOO.", ".....", ".....", ".....",
        ])
        .unwrap();
        assert_eq!(b.liberties(p("B5", 5)), 2);
        assert_eq!(b.play(Color::White, p("A5", 5)), Ok(vec![]));
        assert_eq!(b.liberties(p("B5", 5)), 1);
        let caps = b.play(Color::White, p("E5", 5)).unwrap();
        assert_eq!(caps, vec![p("B5", 5), p("C5", 5), p("D5", 5)]);
        assert_eq!(b.rows()[0], "O...O");
    }

    #[test]
    fn multi_group_capture() {
        // Four single black stones whose last liberty is C4.
        let mut b = Board::from_rows(&[
            ".OXO.", //
            "OX.XO", ".OXO.", "..O..", ".....",
        ])
        .unwrap();
        let caps = b.play(Color::White, p("C4", 5)).unwrap();
        assert_eq!(caps, vec![p("C5", 5), p("B4", 5), p("D4", 5), p("C3", 5)]);
        assert_eq!(b.stone_count(Color::Black), 0);
        assert_eq!(b.liberties(p("C4", 5)), 4);
    }

    #[test]
    fn both_sides_without_liberties_only_the_opponent_goes_g4() {
        // White A5 has no liberty when placed (B5 and A4 are black), and neither has black
        // B5: only the opponent's stone is captured, and White's stone stays.
        let mut b = Board::from_rows(&[
            ".XO..", //
            "XO...", ".....", ".....", ".....",
        ])
        .unwrap();
        let caps = b.play(Color::White, p("A5", 5)).unwrap();
        assert_eq!(caps, vec![p("B5", 5)]);
        assert_eq!(b.get(p("A5", 5)), Some(Color::White));
        assert_eq!(b.get(p("A4", 5)), Some(Color::Black));
        assert_eq!(b.liberties(p("A5", 5)), 1);
    }

    #[test]
    fn suicide_single_and_group() {
        let mut b = Board::from_rows(&[
            ".X...", //
            "X....", ".....", ".....", ".....",
        ])
        .unwrap();
        let before = b.clone();
        assert_eq!(b.play(Color::White, p("A5", 5)), Err(BoardError::Suicide));
        assert_eq!(b, before);
        let mut g = Board::from_rows(&[
            "O.X..", //
            "XX...", ".....", ".....", ".....",
        ])
        .unwrap();
        // White B5 would join A5 into a group with no liberty: suicide of two stones.
        let before = g.clone();
        assert_eq!(g.play(Color::White, p("B5", 5)), Err(BoardError::Suicide));
        assert_eq!(g, before);
        assert_eq!(g.play(Color::Black, p("B5", 5)).unwrap(), vec![p("A5", 5)]);
    }

    #[test]
    fn occupied_and_off_board() {
        let mut b = Board::new(9).unwrap();
        b.play(Color::Black, p("E5", 9)).unwrap();
        let before = b.clone();
        assert_eq!(b.play(Color::White, p("E5", 9)), Err(BoardError::Occupied));
        assert_eq!(
            b.play(Color::White, Point::new(9, 0)),
            Err(BoardError::OffBoard)
        );
        assert_eq!(b, before);
        assert_eq!(b.get(Point::new(40, 40)), None);
        assert_eq!(b.liberties(Point::new(40, 40)), 0);
        assert!(b.group(Point::new(9, 9)).is_empty());
    }

    #[test]
    fn hash_is_incremental_and_positional() {
        let mut a = Board::new(19).unwrap();
        let mut b = Board::new(19).unwrap();
        a.play(Color::Black, Point::new(3, 3)).unwrap();
        a.play(Color::White, Point::new(15, 15)).unwrap();
        b.play(Color::White, Point::new(15, 15)).unwrap();
        b.play(Color::Black, Point::new(3, 3)).unwrap();
        assert_eq!(a.hash(), b.hash());
        assert_eq!(a.hash(), a.hash_from_scratch());
        a.put(Point::new(3, 3), None);
        a.put(Point::new(15, 15), None);
        assert_eq!(a.hash(), 0);
        assert_eq!(a, Board::new(19).unwrap());
    }

    #[test]
    fn rows_and_stones() {
        let rows = ["X.O", "...", "O.X"];
        let b = Board::from_rows(&rows).unwrap();
        assert_eq!(b.rows(), rows);
        let stones: Vec<_> = b.stones().collect();
        assert_eq!(
            stones,
            vec![
                (Point::new(0, 0), Color::Black),
                (Point::new(2, 0), Color::White),
                (Point::new(0, 2), Color::White),
                (Point::new(2, 2), Color::Black),
            ]
        );
        assert_eq!(format!("{b}"), "X.O\n...\nO.X");
        assert!(matches!(
            Board::from_rows(&["X.", "..."]),
            Err(BoardParseError::RowLength {
                row: 1,
                expected: 2,
                found: 3
            })
        ));
        assert!(matches!(
            Board::from_rows(&["X?", ".."]),
            Err(BoardParseError::BadChar { ch: '?', .. })
        ));
        assert!(matches!(
            Board::from_rows(&["X"]),
            Err(BoardParseError::Size(SizeError(1)))
        ));
    }

    #[test]
    fn empty_points_and_eyes() {
        let b = Board::from_rows(&[
            ".X.", //
            "X.O", ".X.",
        ])
        .unwrap();
        let empties: Vec<_> = b.empty_points().collect();
        let pts = |v: &[(u8, u8)]| v.iter().map(|&(x, y)| Point::new(x, y)).collect::<Vec<_>>();
        assert_eq!(empties, pts(&[(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)]));
        assert!(b.is_single_point_eye(Point::new(0, 0), Color::Black));
        assert!(b.is_single_point_eye(Point::new(0, 2), Color::Black));
        assert!(
            !b.is_single_point_eye(Point::new(1, 1), Color::Black),
            "touches white"
        );
        assert!(!b.is_single_point_eye(Point::new(2, 0), Color::Black));
        assert!(!b.is_single_point_eye(Point::new(0, 0), Color::White));
        assert!(
            !b.is_single_point_eye(Point::new(1, 0), Color::Black),
            "occupied"
        );
        assert!(
            !b.is_single_point_eye(Point::new(5, 5), Color::Black),
            "off the board"
        );
    }

    #[test]
    fn group_and_liberties() {
        let b = Board::from_rows(&[
            "XX...", //
            "X.O..", ".....", ".....", ".....",
        ])
        .unwrap();
        assert_eq!(
            b.group(p("A5", 5)),
            vec![p("A5", 5), p("B5", 5), p("A4", 5)]
        );
        assert_eq!(b.liberties(p("B5", 5)), 3); // C5, B4, A3
        assert_eq!(b.liberties(p("C4", 5)), 4);
    }
}
