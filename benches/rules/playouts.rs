//! The three engines of the `random_playouts` group (see the bench's module doc): one random
//! 19×19 playout from the empty board per call, under one policy — a uniformly random empty
//! point, skipped if it fills one of the mover's own single-point eyes (all on-board neighbours
//! the mover's) or is illegal (occupied, suicide, simple ko, a repeated whole-board position),
//! else played; a pass when no point is left; until two passes in a row or [`MAX_MOVES`].

use goban::pieces::goban::Goban;
use goban::pieces::stones::Color as GColor;
use goban::rules::game::Game as GGame;
use goban::rules::{GobanSizes, Move as GMove, CHINESE};
use smartgoban::rules::{Board, Color, Game, PlayoutBoard, Point, PositionSet};

/// Move cap of a random playout (moves and passes).
pub const MAX_MOVES: usize = 700;
/// Points of the 19×19 board.
const N: usize = 19;

/// splitmix64: the seeded generator every engine draws from.
pub struct Rng(pub u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (Lemire's multiply-shift on 32 bits).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }
}

/// Neighbours on the 19×19 board as (column, row).
fn neighbours(x: u8, y: u8) -> impl Iterator<Item = (u8, u8)> {
    [(0i8, -1i8), (-1, 0), (1, 0), (0, 1)]
        .into_iter()
        .map(move |(dx, dy)| (x as i8 + dx, y as i8 + dy))
        .filter(|&(a, b)| (0..N as i8).contains(&a) && (0..N as i8).contains(&b))
        .map(|(a, b)| (a as u8, b as u8))
}

/// (a) The old path: [`Game`] and [`Board`] as the `random_games` group had them (this code
/// unchanged). Each move lists the empty points anew (`Board::empty_points`, row-major), draws
/// among them, and tries a candidate with `Game::play` (undone if it repeats a position).
pub fn old_path(seed: u64) -> Vec<Option<Point>> {
    let Ok(mut g) = Game::new(19) else {
        return Vec::new();
    };
    let mut rng = Rng(seed);
    let mut empties: Vec<Point> = Vec::with_capacity(361);
    let mut played_moves = Vec::with_capacity(MAX_MOVES);
    while played_moves.len() < MAX_MOVES && g.consecutive_passes() < 2 {
        let c = g.to_move();
        empties.clear();
        empties.extend(g.board().empty_points());
        let mut chosen = None;
        while !empties.is_empty() {
            let k = rng.below(empties.len());
            let p = empties[k];
            if !g.board().is_single_point_eye(p, c) {
                match g.play(c, Some(p)) {
                    Ok(out) if out.repeats.is_none() => {
                        chosen = Some(p);
                        break;
                    }
                    Ok(_) => {
                        g.undo();
                    }
                    Err(_) => {}
                }
            }
            empties.swap_remove(k);
        }
        if chosen.is_none() {
            let _ = g.play(c, None);
        }
        played_moves.push(chosen);
    }
    played_moves
}

/// (b) The playout board: its own list of empty points (no rebuilding), candidates drawn
/// without replacement by moving the rejected ones past the end of the live part of the list,
/// legality and the repeated-position test in O(1) ([`PlayoutBoard::check`],
/// [`PlayoutBoard::hash_after`] in a [`PositionSet`]).
pub struct Fast {
    start: PlayoutBoard,
    board: PlayoutBoard,
    seen: PositionSet,
    /// The moves of the last playout (`None` = pass).
    pub moves: Vec<Option<Point>>,
}

impl Fast {
    pub fn new() -> Fast {
        let start = PlayoutBoard::new(19).expect("19×19");
        Fast {
            board: start.clone(),
            start,
            seen: PositionSet::with_capacity(MAX_MOVES + 1),
            moves: Vec::with_capacity(MAX_MOVES),
        }
    }

    /// One playout; returns the final board.
    pub fn play(&mut self, seed: u64) -> &PlayoutBoard {
        let pb = &mut self.board;
        pb.clone_from(&self.start);
        self.seen.clear();
        self.seen.insert(pb.hash());
        self.moves.clear();
        let mut rng = Rng(seed);
        let mut colour = Color::Black;
        let mut passes = 0;
        while self.moves.len() < MAX_MOVES && passes < 2 {
            let mut left = pb.empties().len();
            let mut chosen = None;
            while left > 0 {
                let k = rng.below(left);
                let cell = usize::from(pb.empties()[k]);
                if !pb.is_single_point_eye(cell, colour) {
                    if let Ok(placement) = pb.check(colour, cell) {
                        if self.seen.insert(pb.hash_after(&placement)) {
                            pb.apply(placement);
                            chosen = Some(PlayoutBoard::point_of(cell));
                            break;
                        }
                    }
                }
                left -= 1;
                pb.swap_empties(k, left);
            }
            if chosen.is_some() {
                passes = 0;
            } else {
                pb.pass();
                passes += 1;
            }
            self.moves.push(chosen);
            colour = colour.opposite();
        }
        &self.board
    }
}

/// (c) goban 0.20 used as efficiently as its API allows. goban keeps the stones, chains with
/// liberty bitsets, the ko point, a Zobrist hash and the history of positions, and decides
/// legality itself (`try_play` under `CHINESE`: suicide, ko, superko); the harness asks only
/// that. goban keeps no list of empty points (`pseudo_legals` walks the board and divides
/// twice per point to make coordinates), so the harness keeps one, updated in O(1) per move
/// exactly as [`Fast`]'s (the played point swap-removed, captured stones appended row-major):
/// both engines then draw the same candidates from the same seed. goban does not say which
/// stones a move captured, only how many (`prisoners`); when that count changes, the harness
/// finds them as the points next to the move, and next to those, that are empty now but were
/// not in its list. The eye test reads four points with `get_color`. Nothing is cloned or
/// allocated by the harness per move; what remains is goban's own work, including the copy of
/// the whole position that `Game::play` pushes onto its history on every move (and the one
/// `try_play` makes to test superko on a capture), which its API has no way around: `Goban`
/// alone cannot lift captured stones.
pub struct GobanEngine {
    list: [u16; N * N],
    at: [u16; N * N],
    len: usize,
    marks: [bool; N * N],
    found: Vec<u16>,
    /// The moves of the last playout (`None` = pass).
    pub moves: Vec<Option<Point>>,
}

impl GobanEngine {
    pub fn new() -> GobanEngine {
        GobanEngine {
            list: [0; N * N],
            at: [0; N * N],
            len: 0,
            marks: [false; N * N],
            found: Vec::with_capacity(N * N),
            moves: Vec::with_capacity(MAX_MOVES),
        }
    }

    /// One playout; returns goban's final game.
    pub fn play(&mut self, seed: u64) -> GGame {
        let mut g = GGame::new(GobanSizes::Nineteen, CHINESE);
        for k in 0..N * N {
            self.list[k] = k as u16;
            self.at[k] = k as u16;
        }
        self.len = N * N;
        self.moves.clear();
        let mut rng = Rng(seed);
        while self.moves.len() < MAX_MOVES && !g.is_over() {
            let c = g.turn();
            let mut left = self.len;
            let mut chosen = None;
            while left > 0 {
                let j = rng.below(left);
                let k = usize::from(self.list[j]);
                let (y, x) = ((k / N) as u8, (k % N) as u8);
                if !own_eye(g.goban(), y, x, c) {
                    let prisoners = g.prisoners();
                    if g.try_play(GMove::Play(y, x)).is_ok() {
                        self.remove(k);
                        if g.prisoners() != prisoners {
                            self.add_captured(g.goban(), k);
                        }
                        chosen = Some(Point::new(x, y));
                        break;
                    }
                }
                left -= 1;
                self.swap(j, left);
            }
            if chosen.is_none() {
                g.play(GMove::Pass);
            }
            self.moves.push(chosen);
        }
        g
    }

    fn swap(&mut self, a: usize, b: usize) {
        self.list.swap(a, b);
        self.at[usize::from(self.list[a])] = a as u16;
        self.at[usize::from(self.list[b])] = b as u16;
    }

    fn remove(&mut self, k: usize) {
        let j = usize::from(self.at[k]);
        self.len -= 1;
        self.swap(j, self.len);
    }

    fn listed(&self, k: usize) -> bool {
        let j = usize::from(self.at[k]);
        j < self.len && usize::from(self.list[j]) == k
    }

    /// Appends, row-major, the stones the move on `k` captured: empty now, not listed before.
    fn add_captured(&mut self, gob: &Goban, k: usize) {
        self.found.clear();
        let mut head = 0;
        self.marks[k] = true;
        self.found.push(k as u16);
        while head < self.found.len() {
            let s = usize::from(self.found[head]);
            head += 1;
            let (y, x) = ((s / N) as u8, (s % N) as u8);
            for (a, b) in neighbours(x, y) {
                let m = usize::from(b) * N + usize::from(a);
                if !self.marks[m] && !self.listed(m) && gob.get_color((b, a)).is_none() {
                    self.marks[m] = true;
                    self.found.push(m as u16);
                }
            }
        }
        for &s in &self.found {
            self.marks[usize::from(s)] = false;
        }
        self.found.swap_remove(0);
        self.found.sort_unstable();
        for i in 0..self.found.len() {
            let s = self.found[i];
            self.list[self.len] = s;
            self.at[usize::from(s)] = self.len as u16;
            self.len += 1;
        }
    }
}

/// Whether (row `y`, column `x`) is an eye of `c`: all its on-board neighbours are `c`'s.
fn own_eye(gob: &Goban, y: u8, x: u8, c: GColor) -> bool {
    let own = |p: (u8, u8)| gob.get_color(p) == Some(c);
    (y == 0 || own((y - 1, x)))
        && (x == 0 || own((y, x - 1)))
        && (x as usize == N - 1 || own((y, x + 1)))
        && (y as usize == N - 1 || own((y + 1, x)))
}

/// goban's stones as a [`Board`].
pub fn goban_board(g: &GGame) -> Board {
    let mut b = Board::new(19).expect("19×19");
    for y in 0..N as u8 {
        for x in 0..N as u8 {
            let c = match g.goban().get_color((y, x)) {
                Some(GColor::Black) => Some(Color::Black),
                Some(GColor::White) => Some(Color::White),
                None => None,
            };
            b.put(Point::new(x, y), c);
        }
    }
    b
}

/// Whether `moves` (a playout of [`Fast`] or [`GobanEngine`]) is a playout of the old path's
/// policy with its engine: replayed with [`Game`], every stone is a legal placement that is
/// not an own eye and repeats no position, every pass comes when no such placement is left,
/// the playout ends as the old one would, on the board `end`. (Only the order in which
/// candidates are drawn differs from [`old_path`]'s.)
pub fn follows_old_policy(moves: &[Option<Point>], end: &Board) -> bool {
    let mut g = Game::new(19).expect("19×19");
    for &m in moves {
        if g.consecutive_passes() >= 2 {
            return false;
        }
        let c = g.to_move();
        let allowed = |g: &Game, p: Point| {
            !g.board().is_single_point_eye(p, c)
                && matches!(g.preview(c, p), Ok(pv) if pv.repeats.is_none())
        };
        match m {
            Some(p) => {
                if !allowed(&g, p) {
                    return false;
                }
                let _ = g.play(c, Some(p));
            }
            None => {
                if g.board().empty_points().any(|p| allowed(&g, p)) {
                    return false;
                }
                let _ = g.play(c, None);
            }
        }
    }
    (g.consecutive_passes() >= 2 || moves.len() == MAX_MOVES) && g.board() == end
}
