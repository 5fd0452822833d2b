//! A board for fast random playouts: the engine of the dead-stone proposal
//! ([`propose_dead`](super::propose_dead)) and of `benches/rules.rs`'s `random_playouts`.
//!
//! Same rules as [`Board`] and [`Game`](super::Game) for a placement — G3 liberties, G4 captures
//! (the opponent's chains without liberties go), G5 no suicide, R20.1 no immediate retake of a
//! single ko — but every question a playout asks costs O(1), without walking a chain:
//!
//! * **Layout**: [`Board`]'s padded 21 × 21 array (a border of sentinel cells around the largest
//!   board, neighbours at −21, −1, +1, +21), so a *cell* index here is the same number as there,
//!   `(y + 1) · 21 + x + 1` for the point (x, y), and the Zobrist keys of
//!   [`super::zobrist`] apply as they are: [`PlayoutBoard::hash`] equals [`Board::hash`] for the
//!   same stones. Sizes: those of [`Board`] (2..=19).
//! * **Chains**: each stone holds the id of its chain (the cell of one of its stones, the
//!   *head*) and the next stone of its chain in a circular list; merging two chains relabels the
//!   smaller one and splices the lists.
//! * **Liberties**: pseudo-liberties — every (stone, empty neighbour) pair of a chain, counted
//!   with multiplicity — with their number *k*, the sum *s* and the sum of squares *q* of the
//!   empty cells' indices. Placing or lifting a stone changes these by its four neighbours only,
//!   and merging chains adds them. A chain is captured when *k* = 0; it has exactly one liberty
//!   (atari) exactly when *k* > 0 and *k* · *q* = *s*² (Cauchy–Schwarz: equality holds only when
//!   all *k* indices are the same), and that liberty is *s* / *k*. Exact integer arithmetic:
//!   *k* ≤ 4 · 361, *s* < 2²⁰, *q* < 2²⁹, products in `u64`. The exact number of liberties is
//!   not kept; the playouts only ask "none", "one (which?)" and "more".
//! * **Neighbour counts**: for each point, how many of its neighbours are empty, black, white
//!   (three bits each), so that the single-point-eye test is one load and a placement with
//!   only empty neighbours is known legal without looking further.
//! * **Empty points**: a list with an index map, O(1) to take a point out (the last entry moves
//!   into its slot, as [`Vec::swap_remove`]) or to append one (captured stones, appended in
//!   row-major order). Callers may reorder it with [`PlayoutBoard::swap_empties`] to draw
//!   without replacement.
//! * **Whole-board repetition** (R20.2–R20.3): the Zobrist hash is kept up to date; a
//!   [`PositionSet`] records the positions of a playout.
//!
//! ```
//! use smartgoban::rules::{Board, Color, PlayoutBoard, Point};
//!
//! let board = Board::from_rows(&["X....", ".....", ".....", ".....", "....."]).unwrap();
//! let mut pb = PlayoutBoard::from_board(&board);
//! let a5 = pb.cell_of(Point::new(0, 0)).unwrap();
//! let b5 = pb.cell_of(Point::new(1, 0)).unwrap();
//! let a4 = pb.cell_of(Point::new(0, 1)).unwrap();
//! pb.play(Color::White, b5).unwrap();
//! assert_eq!(pb.atari_liberty(a5), Some(a4));
//! assert_eq!(pb.play(Color::White, a4).unwrap(), &[a5 as u16]);
//! assert_eq!(pb.empties().len(), 23);
//! assert_eq!(pb.to_board().rows()[0], ".O...");
//! ```

use super::board::{Board, CELLS, MAX_POINTS, STRIDE};
use super::color::Color;
use super::game::Illegal;
use super::point::Point;
use super::zobrist::KEYS;

mod positions;
pub use positions::PositionSet;

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const EDGE: u8 = 3;

/// The cell value of a stone of `c`.
#[inline(always)]
const fn stone(c: Color) -> u8 {
    c.index() as u8 + 1
}

/// One neighbour of a kind in a neighbour count ([`PlayoutBoard`]'s `around`): three bits each
/// for empty points, black stones and white stones (border cells are the rest of four).
const AROUND: [u16; 3] = [1, 1 << 3, 1 << 6];
/// The bits of one kind's count in a neighbour count.
const AROUND_MASK: [u16; 3] = [7, 7 << 3, 7 << 6];

/// The four neighbours of an on-board cell: up, left, right, down.
#[inline(always)]
const fn neighbours(i: usize) -> [usize; 4] {
    [i - STRIDE, i - 1, i + 1, i + STRIDE]
}

/// A chain's pseudo-liberties (see the module doc) and stones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Chain {
    /// Number of (stone, empty neighbour) pairs, *k*.
    libs: u32,
    /// Sum of the empty neighbours' cell indices over those pairs, *s*.
    sum: u32,
    /// Sum of their squares, *q*.
    sumsq: u32,
    /// Stones in the chain.
    stones: u32,
}

impl Chain {
    #[inline(always)]
    fn add(&mut self, cell: usize) {
        let c = cell as u32;
        self.libs += 1;
        self.sum += c;
        self.sumsq += c * c;
    }

    #[inline(always)]
    fn remove(&mut self, cell: usize) {
        let c = cell as u32;
        self.libs -= 1;
        self.sum -= c;
        self.sumsq -= c * c;
    }

    /// The one liberty, if the chain has exactly one.
    #[inline(always)]
    fn single_liberty(&self) -> Option<usize> {
        one_value(self.libs, self.sum, self.sumsq)
    }
}

/// For `k` > 0 values with sum `s` and sum of squares `q`: the value, if all are equal.
#[inline(always)]
fn one_value(k: u32, s: u32, q: u32) -> Option<usize> {
    (k > 0 && u64::from(k) * u64::from(q) == u64::from(s) * u64::from(s)).then(|| (s / k) as usize)
}

/// What [`PlayoutBoard::check`] found about a legal placement; [`PlayoutBoard::apply`] plays it.
/// Valid for the position it was found on only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    cell: u16,
    colour: Color,
    /// Opponent stones the placement captures (G4), 0 for most moves.
    pub captures: u16,
    /// The placement captures nothing and leaves the mover's chain through the new stone with
    /// two or more stones and exactly one liberty (a self-atari of a chain; a single stone
    /// thrown in is not one).
    pub self_atari: bool,
    /// Heads of the captured chains.
    captured: [u16; 4],
    captured_chains: u8,
    /// The hash of the position it was found on.
    hash: u64,
}

impl Placement {
    /// The cell of the placement.
    #[inline]
    pub fn cell(&self) -> usize {
        usize::from(self.cell)
    }
}

/// A board of size 2..=19 for playouts: stones, chains with their pseudo-liberties, the list
/// of empty points, the Zobrist hash and the simple-ko ban (see the module doc).
///
/// Cells are padded-layout indices (`(y + 1) · 21 + x + 1`); [`PlayoutBoard::cell_of`] and
/// [`PlayoutBoard::point_of`] convert. About 13 KB, no heap: [`Clone`] is one copy.
#[derive(Clone)]
pub struct PlayoutBoard {
    cells: [u8; CELLS],
    /// For an on-board cell: how many of its neighbours are empty, black, white ([`AROUND`]);
    /// meaningless for border cells.
    around: [u16; CELLS],
    /// For a stone: the head cell of its chain.
    head: [u16; CELLS],
    /// For a stone: the next stone of its chain (circular).
    next: [u16; CELLS],
    /// For a head cell: its chain.
    chains: [Chain; CELLS],
    /// The empty points, `empties` of them.
    empty: [u16; MAX_POINTS],
    /// For an empty point: its index in `empty`.
    empty_at: [u16; CELLS],
    empties: u16,
    /// The stones captured by the last placement, row-major, `captures` of them.
    captured: [u16; MAX_POINTS],
    captures: u16,
    /// The R20.1 ban for the next placement: (cell, colour that may not retake there).
    ko: Option<(u16, Color)>,
    hash: u64,
    size: u8,
}

impl PlayoutBoard {
    /// An empty board of `size` × `size` points.
    ///
    /// # Errors
    /// [`SizeError`](super::SizeError) unless `2 <= size <= 19`.
    pub fn new(size: u8) -> Result<PlayoutBoard, super::SizeError> {
        Ok(PlayoutBoard::from_board(&Board::new(size)?))
    }

    /// The stones of `board` as they are (a hand-made diagram may hold chains without
    /// liberties: they stay until a capture next to them gives them one), no ko ban, the empty
    /// points listed row-major.
    pub fn from_board(board: &Board) -> PlayoutBoard {
        let size = board.size();
        let n = usize::from(size);
        let mut pb = PlayoutBoard {
            cells: [EDGE; CELLS],
            around: [0; CELLS],
            head: [0; CELLS],
            next: [0; CELLS],
            chains: [Chain::default(); CELLS],
            empty: [0; MAX_POINTS],
            empty_at: [0; CELLS],
            empties: 0,
            captured: [0; MAX_POINTS],
            captures: 0,
            ko: None,
            hash: 0,
            size,
        };
        for y in 0..n {
            for x in 0..n {
                let i = (y + 1) * STRIDE + x + 1;
                pb.cells[i] = match board.get(Point::new(x as u8, y as u8)) {
                    None => {
                        pb.push_empty(i);
                        EMPTY
                    }
                    Some(c) => {
                        pb.hash ^= KEYS[c.index()][i];
                        stone(c)
                    }
                };
            }
        }
        for y in 1..=n {
            for x in 1..=n {
                let i = y * STRIDE + x;
                for m in neighbours(i) {
                    if pb.cells[m] != EDGE {
                        pb.around[i] += AROUND[usize::from(pb.cells[m])];
                    }
                }
            }
        }
        // Chains: flood each from its first stone in row-major order, which becomes its head.
        let mut labelled = [false; CELLS];
        let mut stack = Vec::with_capacity(MAX_POINTS);
        for i in 0..CELLS {
            let c = pb.cells[i];
            if labelled[i] || !(c == BLACK || c == WHITE) {
                continue;
            }
            let mut chain = Chain::default();
            let mut last = i;
            labelled[i] = true;
            stack.push(i);
            while let Some(s) = stack.pop() {
                pb.head[s] = i as u16;
                pb.next[last] = s as u16;
                last = s;
                chain.stones += 1;
                for m in neighbours(s) {
                    if pb.cells[m] == EMPTY {
                        chain.add(m);
                    } else if pb.cells[m] == c && !labelled[m] {
                        labelled[m] = true;
                        stack.push(m);
                    }
                }
            }
            pb.next[last] = i as u16;
            pb.chains[i] = chain;
        }
        debug_assert_eq!(pb.hash, board.hash());
        pb
    }

    /// The stones as a [`Board`].
    pub fn to_board(&self) -> Board {
        let mut b = Board::clamped(self.size);
        for y in 0..self.size {
            for x in 0..self.size {
                let p = Point::new(x, y);
                b.put(p, self.colour_at(self.cell_of(p).unwrap_or(0)));
            }
        }
        b
    }

    /// The number of points on a side.
    #[inline]
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The cell of a point, if it is on this board.
    #[inline]
    pub fn cell_of(&self, p: Point) -> Option<usize> {
        p.is_on_board(self.size)
            .then(|| (usize::from(p.y) + 1) * STRIDE + usize::from(p.x) + 1)
    }

    /// The point of an on-board cell.
    #[inline]
    pub fn point_of(cell: usize) -> Point {
        Board::point_at(cell)
    }

    /// The Zobrist hash of the stones: [`Board::hash`] of the same position.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The stone on a cell: `None` for an empty cell or a border cell (`cell` < 441).
    #[inline]
    pub fn colour_at(&self, cell: usize) -> Option<Color> {
        match self.cells[cell] {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    /// The empty points (cells), in the order described in the module doc.
    #[inline]
    pub fn empties(&self) -> &[u16] {
        &self.empty[..usize::from(self.empties)]
    }

    /// Swaps entries `a` and `b` of [`PlayoutBoard::empties`] (both below its length).
    #[inline]
    pub fn swap_empties(&mut self, a: usize, b: usize) {
        self.empty.swap(a, b);
        self.empty_at[usize::from(self.empty[a])] = a as u16;
        self.empty_at[usize::from(self.empty[b])] = b as u16;
    }

    /// The R20.1 ban on the next placement: the cell that the colour given may not retake at
    /// once by capturing a single stone (as [`Game::ko`](super::Game::ko)).
    #[inline]
    pub fn ko(&self) -> Option<(usize, Color)> {
        self.ko.map(|(k, c)| (usize::from(k), c))
    }

    /// Whether `cell` is an empty point whose every on-board neighbour holds a stone of
    /// `colour` (as [`Board::is_single_point_eye`]; diagonals are not looked at).
    #[inline]
    pub fn is_single_point_eye(&self, cell: usize, colour: Color) -> bool {
        let not_mine = AROUND_MASK[0] | AROUND_MASK[usize::from(stone(colour.opposite()))];
        self.cells[cell] == EMPTY && self.around[cell] & not_mine == 0
    }

    /// For a stone on `cell`: the one liberty of its chain if it has exactly one (atari);
    /// `None` for more, for none, or for a cell without a stone.
    #[inline]
    pub fn atari_liberty(&self, cell: usize) -> Option<usize> {
        match self.cells[cell] {
            BLACK | WHITE => self.chains[usize::from(self.head[cell])].single_liberty(),
            _ => None,
        }
    }

    /// The number of stones of the chain on `cell`; 0 for a cell without a stone.
    #[inline]
    pub fn chain_stones(&self, cell: usize) -> usize {
        match self.cells[cell] {
            BLACK | WHITE => self.chains[usize::from(self.head[cell])].stones as usize,
            _ => 0,
        }
    }

    /// Who owns `cell` at the end of a playout: the colour of its stone or, for an empty point,
    /// the colour of all its on-board neighbours if they are all stones of one colour.
    #[inline]
    pub fn owner(&self, cell: usize) -> Option<Color> {
        let mut seen = self.cells[cell];
        if seen == EMPTY {
            for n in neighbours(cell) {
                if self.cells[n] != EDGE {
                    seen |= self.cells[n];
                }
            }
        }
        match seen {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    /// Whether `colour` may place a stone on `cell`, and what it would do: G2 (the point must
    /// be empty), G4/G5 (a stone without liberties is allowed only if it captures), R20.1 (no
    /// immediate retake of a single ko by capturing just the ko stone). O(1): the four
    /// neighbours and their chains' counters.
    ///
    /// # Errors
    /// [`Illegal::Occupied`], [`Illegal::Suicide`], [`Illegal::Ko`], and
    /// [`Illegal::OffBoard`] for a border cell (`cell` must be < 441).
    #[inline]
    pub fn check(&self, colour: Color, cell: usize) -> Result<Placement, Illegal> {
        match self.cells[cell] {
            EMPTY => {}
            EDGE => return Err(Illegal::OffBoard(Self::point_of_any(cell))),
            _ => return Err(Illegal::Occupied(Self::point_of(cell))),
        }
        let me = stone(colour);
        if self.around[cell] & !AROUND_MASK[0] == 0 {
            // Only empty neighbours (and the border): nothing to capture, nothing to join.
            return Ok(Placement {
                cell: cell as u16,
                colour,
                captures: 0,
                self_atari: false,
                captured: [0; 4],
                captured_chains: 0,
                hash: self.hash,
            });
        }
        let mut heads = [0u16; 4];
        let mut seen = 0;
        let (mut libs, mut sum, mut sumsq) = (0u32, 0u32, 0u32);
        let mut own_sides = 0u32;
        let mut breathes = false;
        let mut captured = [0u16; 4];
        let mut captured_chains = 0;
        let mut captures = 0u32;
        for n in neighbours(cell) {
            let c = self.cells[n];
            if c == EMPTY {
                breathes = true;
                let v = n as u32;
                (libs, sum, sumsq) = (libs + 1, sum + v, sumsq + v * v);
                continue;
            }
            if c == EDGE {
                continue;
            }
            let h = self.head[n];
            let fresh = !heads[..seen].contains(&h);
            if fresh {
                heads[seen] = h;
                seen += 1;
            }
            let chain = &self.chains[usize::from(h)];
            if c == me {
                own_sides += 1;
                if fresh {
                    (libs, sum, sumsq) = (libs + chain.libs, sum + chain.sum, sumsq + chain.sumsq);
                    // A chain in atari next to the empty `cell` has it as its liberty.
                    breathes |= chain.single_liberty().is_none();
                }
            } else if fresh && chain.single_liberty().is_some() {
                captures += chain.stones;
                captured[captured_chains] = h;
                captured_chains += 1;
            }
        }
        if captures == 0 && !breathes {
            return Err(Illegal::Suicide(Self::point_of(cell)));
        }
        if captures == 1 && self.ko == Some((cell as u16, colour)) {
            return Err(Illegal::Ko(Self::point_of(cell)));
        }
        // The merged chain loses the pairs (own stone, `cell`).
        let c = cell as u32;
        let self_atari = captures == 0
            && own_sides > 0
            && one_value(
                libs - own_sides,
                sum - own_sides * c,
                sumsq - own_sides * c * c,
            )
            .is_some();
        Ok(Placement {
            cell: cell as u16,
            colour,
            captures: captures as u16,
            self_atari,
            captured,
            captured_chains: captured_chains as u8,
            hash: self.hash,
        })
    }

    /// The hash of the position after `placement` (for a whole-board repetition test before
    /// playing): the stone's key and the keys of the stones it captures.
    #[inline]
    pub fn hash_after(&self, placement: &Placement) -> u64 {
        let mut h = self.hash ^ KEYS[placement.colour.index()][placement.cell()];
        let opp = placement.colour.opposite().index();
        for &head in &placement.captured[..usize::from(placement.captured_chains)] {
            let head = usize::from(head);
            let mut s = head;
            loop {
                h ^= KEYS[opp][s];
                s = usize::from(self.next[s]);
                if s == head {
                    break;
                }
            }
        }
        h
    }

    /// Plays a placement found by [`PlayoutBoard::check`] on this very position: the stone
    /// goes down, the opponent's chains left without liberties are lifted (G4), the ko ban is
    /// set for the next placement (R20.1: it captured one stone and stands alone with one
    /// liberty) or lifted. Returns the captured cells, row-major.
    pub fn apply(&mut self, placement: Placement) -> &[u16] {
        debug_assert_eq!(placement.hash, self.hash, "a placement of another position");
        let i = placement.cell();
        let colour = placement.colour;
        let me = stone(colour);
        self.remove_empty(i);
        self.cells[i] = me;
        self.hash ^= KEYS[colour.index()][i];
        self.count_around(i, me, EMPTY);
        self.head[i] = i as u16;
        self.next[i] = i as u16;
        let mut chain = Chain {
            stones: 1,
            ..Chain::default()
        };
        for n in neighbours(i) {
            if self.cells[n] == EMPTY {
                chain.add(n);
            }
        }
        self.chains[i] = chain;
        self.captures = 0;
        for n in neighbours(i) {
            let c = self.cells[n];
            if c == EMPTY || c == EDGE {
                continue;
            }
            let h = usize::from(self.head[n]);
            self.chains[h].remove(i);
            if c == me {
                let mine = usize::from(self.head[i]);
                if h != mine {
                    self.merge(mine, h);
                }
            } else if self.chains[h].libs == 0 {
                self.capture(h);
            }
        }
        let count = usize::from(self.captures);
        if count > 1 {
            self.captured[..count].sort_unstable();
        }
        for k in 0..count {
            self.push_empty(usize::from(self.captured[k]));
        }
        let mine = &self.chains[usize::from(self.head[i])];
        self.ko = (count == 1 && mine.stones == 1 && mine.libs == 1)
            .then(|| (self.captured[0], colour.opposite()));
        &self.captured[..count]
    }

    /// [`PlayoutBoard::check`] then [`PlayoutBoard::apply`]: plays `colour` on `cell`, returning
    /// the captured cells, row-major.
    ///
    /// # Errors
    /// As [`PlayoutBoard::check`]; nothing changes then.
    pub fn play(&mut self, colour: Color, cell: usize) -> Result<&[u16], Illegal> {
        let placement = self.check(colour, cell)?;
        Ok(self.apply(placement))
    }

    /// A pass (G2): lifts the ko ban.
    #[inline]
    pub fn pass(&mut self) {
        self.ko = None;
    }

    /// A point for any cell of the padded layout (a border cell gives a point off the board).
    fn point_of_any(cell: usize) -> Point {
        let (x, y) = (cell % STRIDE, cell / STRIDE);
        Point::new((x as u8).wrapping_sub(1), (y as u8).wrapping_sub(1))
    }

    /// Cell `i` changed from `was` to `now`: its neighbours' counts follow.
    #[inline(always)]
    fn count_around(&mut self, i: usize, now: u8, was: u8) {
        let (add, sub) = (AROUND[usize::from(now)], AROUND[usize::from(was)]);
        for n in neighbours(i) {
            self.around[n] = self.around[n].wrapping_add(add).wrapping_sub(sub);
        }
    }

    #[inline(always)]
    fn push_empty(&mut self, cell: usize) {
        self.empty[usize::from(self.empties)] = cell as u16;
        self.empty_at[cell] = self.empties;
        self.empties += 1;
    }

    #[inline(always)]
    fn remove_empty(&mut self, cell: usize) {
        let j = usize::from(self.empty_at[cell]);
        self.empties -= 1;
        let last = self.empty[usize::from(self.empties)];
        self.empty[j] = last;
        self.empty_at[usize::from(last)] = j as u16;
    }

    /// Merges the chains with heads `a` and `b`: the smaller is relabelled, the circular lists
    /// are spliced, the counters added.
    fn merge(&mut self, a: usize, b: usize) {
        let (big, small) = if self.chains[a].stones >= self.chains[b].stones {
            (a, b)
        } else {
            (b, a)
        };
        let mut s = small;
        loop {
            self.head[s] = big as u16;
            s = usize::from(self.next[s]);
            if s == small {
                break;
            }
        }
        self.next.swap(big, small);
        let sm = self.chains[small];
        let bg = &mut self.chains[big];
        bg.libs += sm.libs;
        bg.sum += sm.sum;
        bg.sumsq += sm.sumsq;
        bg.stones += sm.stones;
    }

    /// Lifts the chain with head `h`, appending its stones to `captured` and giving each a
    /// liberty of the chains next to it.
    fn capture(&mut self, h: usize) {
        let colour = self.cells[h];
        let key = &KEYS[usize::from(colour - 1)];
        let from = usize::from(self.captures);
        let mut s = h;
        loop {
            self.cells[s] = EMPTY;
            self.hash ^= key[s];
            self.count_around(s, EMPTY, colour);
            self.captured[usize::from(self.captures)] = s as u16;
            self.captures += 1;
            s = usize::from(self.next[s]);
            if s == h {
                break;
            }
        }
        for k in from..usize::from(self.captures) {
            let s = usize::from(self.captured[k]);
            for m in neighbours(s) {
                if matches!(self.cells[m], BLACK | WHITE) {
                    self.chains[usize::from(self.head[m])].add(s);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(pb: &PlayoutBoard, gtp: &str) -> usize {
        pb.cell_of(Point::from_gtp(gtp, pb.size()).unwrap())
            .unwrap()
    }

    #[test]
    fn from_board_keeps_stones_chains_and_hash() {
        let b = Board::from_rows(&["XX.O.", "X.OO.", ".....", "..X..", "....."]).unwrap();
        let pb = PlayoutBoard::from_board(&b);
        assert_eq!(pb.to_board(), b);
        assert_eq!(pb.hash(), b.hash());
        assert_eq!(pb.empties().len(), 25 - 7);
        assert_eq!(pb.chain_stones(cell(&pb, "A4")), 3);
        assert_eq!(pb.chain_stones(cell(&pb, "C4")), 3);
        // A5–B5–A4 has the liberties C5, B4 and A3.
        assert_eq!(pb.atari_liberty(cell(&pb, "A5")), None);
        assert_eq!(pb.atari_liberty(cell(&pb, "C2")), None);
        assert_eq!(pb.chain_stones(cell(&pb, "C3")), 0);
        assert!(std::mem::size_of::<PlayoutBoard>() <= 13 * 1024);
    }

    #[test]
    fn atari_suicide_ko_and_self_atari() {
        // A ko: Black C4's one liberty is B4, surrounded by Black B5, A4 and B3.
        let b = Board::from_rows(&[
            ".XO..", //
            "X.XO.", ".XO..", ".....", ".....",
        ])
        .unwrap();
        let mut pb = PlayoutBoard::from_board(&b);
        let (b4, c4) = (cell(&pb, "B4"), cell(&pb, "C4"));
        assert_eq!(pb.atari_liberty(c4), Some(b4));
        // White B4 takes C4 and stands alone with one liberty: Black may not retake at once.
        let p = pb.check(Color::White, b4).unwrap();
        assert_eq!((p.captures, p.self_atari), (1, false));
        assert_eq!(pb.apply(p), &[c4 as u16]);
        assert_eq!(pb.ko(), Some((c4, Color::Black)));
        assert_eq!(
            pb.check(Color::Black, c4),
            Err(Illegal::Ko(Board::point_at(c4)))
        );
        pb.pass();
        assert!(pb.check(Color::Black, c4).is_ok(), "a pass lifts the ban");
        assert_eq!(
            pb.check(Color::Black, cell(&pb, "C5")),
            Err(Illegal::Occupied(Point::from_gtp("C5", 5).unwrap()))
        );
        assert_eq!(
            pb.check(Color::Black, 0),
            Err(Illegal::OffBoard(Point::new(255, 255)))
        );
        // Suicide in the corner; a self-atari of a two-stone chain.
        let b = Board::from_rows(&[".X...", "X....", ".....", "OO...", "X...."]).unwrap();
        let pb = PlayoutBoard::from_board(&b);
        assert_eq!(
            pb.check(Color::White, cell(&pb, "A5")),
            Err(Illegal::Suicide(Point::new(0, 0)))
        );
        let p = pb.check(Color::Black, cell(&pb, "B1")).unwrap();
        assert!(p.self_atari, "A1–B1 would have one liberty, C1");
        let p = pb.check(Color::White, cell(&pb, "B1")).unwrap();
        assert_eq!((p.captures, p.self_atari), (1, false));
        assert_eq!(pb.hash_after(&p), {
            let mut after = b.clone();
            after
                .play(Color::White, Point::from_gtp("B1", 5).unwrap())
                .unwrap();
            after.hash()
        });
    }

    #[test]
    fn eyes_and_owners() {
        let b = Board::from_rows(&[".X.", "X.O", ".X."]).unwrap();
        let pb = PlayoutBoard::from_board(&b);
        assert!(pb.is_single_point_eye(cell(&pb, "A3"), Color::Black));
        assert!(!pb.is_single_point_eye(cell(&pb, "B2"), Color::Black));
        assert!(!pb.is_single_point_eye(cell(&pb, "A3"), Color::White));
        assert_eq!(pb.owner(cell(&pb, "A3")), Some(Color::Black));
        assert_eq!(pb.owner(cell(&pb, "B2")), None);
        assert_eq!(pb.owner(cell(&pb, "C2")), Some(Color::White));
    }
}
