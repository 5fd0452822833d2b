//! A game in progress: turn, passes, captures, simple ko and whole-board repetition
//! (G2–G6, R20), with exact undo.
//!
//! [`Game`] applies the rules that a board alone cannot: the R20.1 simple-ko ban, the record of
//! every earlier whole-board position for G6/R20.2–20.3, and the counters a referee needs.
//! Either colour may play at any time: what an out-of-turn move means (R17.2) is for the
//! referee to decide, the game only reports it ([`MoveOutcome::out_of_turn`]).

use super::board::{Board, BoardError, SizeError};
use super::color::Color;
use super::point::Point;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use thiserror::Error;

/// Why a stone may not be placed. On this error nothing changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error, serde::Serialize, serde::Deserialize)]
pub enum Illegal {
    /// The point already holds a stone (G2). A referee counts such a "move" as a pass
    /// (C5/O13, like a sealed move on an occupied point).
    #[error("the point {} (SGF) already holds a stone (G2)", .0.to_sgf())]
    Occupied(Point),
    /// Suicide: the stone(s) would have no liberty and nothing is captured — a forbidden point
    /// (G5, R19: invalid, counts as a pass).
    #[error("the point {} (SGF) is forbidden: suicide (G5, R19)", .0.to_sgf())]
    Suicide(Point),
    /// Immediate recapture of a single ko (R20.1; R18.3: invalid, counts as a pass).
    #[error("the point {} (SGF) retakes the ko at once (R20.1)", .0.to_sgf())]
    Ko(Point),
    /// The point is not on this board.
    #[error("the point {} (SGF) is off the board", .0.to_sgf())]
    OffBoard(Point),
}

impl Illegal {
    /// The point of the refused placement.
    pub fn point(self) -> Point {
        match self {
            Illegal::Occupied(p) | Illegal::Suicide(p) | Illegal::Ko(p) | Illegal::OffBoard(p) => p,
        }
    }

    /// The rule clause that forbids the placement (RULES.md).
    pub fn clause(self) -> &'static str {
        match self {
            Illegal::Occupied(_) => "G2",
            Illegal::Suicide(_) => "G5/R19",
            Illegal::Ko(_) => "R20.1",
            Illegal::OffBoard(_) => "G1",
        }
    }
}

/// Setting up a game failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum SetupError {
    /// The board size is not supported.
    #[error(transparent)]
    Size(#[from] SizeError),
    /// A setup stone lies off the board.
    #[error("setup stone at {} is off the {size}×{size} board", .point.to_sgf())]
    OffBoard {
        /// The stone's point.
        point: Point,
        /// The board size.
        size: u8,
    },
}

/// What [`Game::play`] did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MoveOutcome {
    /// The number of this move or pass: 1 for the first (moves and passes both count).
    pub number: u32,
    /// The opponent's stones removed by this move (G4), row-major; empty for a pass.
    pub captured: Vec<Point>,
    /// The mover was not the side to move (R17.2 if no pass came between; the referee decides).
    pub out_of_turn: bool,
    /// Set when this stone play recreates a whole-board position (stones only) that existed
    /// before: the latest earlier move number after which it existed (0 = the start position).
    /// Chinese rules leave such cycles to the referee (R20.2, R20.3), so this is information,
    /// not an error. `None` for passes.
    pub repeats: Option<u32>,
    /// The point the side now to move may not play because of simple ko (R20.1), if any.
    pub ko: Option<Point>,
}

/// The result of a placement tried with [`Game::preview`], without changing the game.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Preview {
    /// The board after the placement.
    pub board: Board,
    /// The stones the placement would capture, row-major.
    pub captured: Vec<Point>,
    /// As [`MoveOutcome::repeats`]: the latest earlier move after which this position existed.
    pub repeats: Option<u32>,
}

/// A simple-ko ban: `colour` may not play on `point` on the very next move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Ko {
    point: Point,
    cell: u16,
    colour: Color,
}

/// One entry of the undo history: the move and what it changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
struct Step {
    colour: Color,
    /// Padded cell index of the stone; 0 for a pass.
    cell: u16,
    /// Start of this move's captures in `Game::captured_log`.
    captured_from: u32,
    prev_ko: Option<Ko>,
    prev_to_move: Color,
    prev_passes: u32,
    /// The value the position map held for the new position before this move.
    prev_seen: Option<u32>,
}

/// A hasher for keys that are already uniformly random (Zobrist hashes): passes them through.
#[derive(Debug, Default, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct PassThroughHasher(u64);

impl Hasher for PassThroughHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type PositionMap = HashMap<u64, u32, BuildHasherDefault<PassThroughHasher>>;

/// Moves of history reserved when a game starts (long professional games run to ~350).
const RESERVED_MOVES: usize = 400;

/// A game on one board under the Chinese rules' play clauses (G2–G6, R20).
///
/// Holds the board, whose turn it is, the simple-ko ban, the capture counters, the run of
/// passes, the hash of every whole-board position reached so far (for R20 repetition) and an
/// undo history of compact steps (the move, its captures, the state it replaced).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Game {
    board: Board,
    to_move: Color,
    ko: Option<Ko>,
    captures: [u32; 2],
    passes: u32,
    seen: PositionMap,
    steps: Vec<Step>,
    captured_log: Vec<u16>,
}

impl Game {
    /// A new game on an empty `size` × `size` board, Black to move (G2).
    ///
    /// # Errors
    /// [`SizeError`] unless `2 <= size <= 19`.
    pub fn new(size: u8) -> Result<Game, SizeError> {
        Ok(Game::from_board(Board::new(size)?, Color::Black))
    }

    /// A new game whose board starts with `setup` stones (handicap stones, the classical zuozi
    /// corner stones, SGF `AB`/`AW`), placed without captures, and `first_to_move` to play.
    /// A later entry for the same point replaces an earlier one. The setup position counts as
    /// the position after move 0.
    ///
    /// # Errors
    /// [`SetupError`] for an unsupported size or a stone off the board.
    pub fn with_setup(
        size: u8,
        setup: &[(Color, Point)],
        first_to_move: Color,
    ) -> Result<Game, SetupError> {
        let mut board = Board::new(size)?;
        for &(c, p) in setup {
            if !p.is_on_board(size) {
                return Err(SetupError::OffBoard { point: p, size });
            }
            board.put(p, Some(c));
        }
        Ok(Game::from_board(board, first_to_move))
    }

    /// A game starting from `board` (its position counts as move 0), `to_move` to play.
    /// Room for a long game's history is reserved at once, so that play does not reallocate.
    pub(crate) fn from_board(board: Board, to_move: Color) -> Game {
        let mut seen = PositionMap::with_capacity_and_hasher(RESERVED_MOVES, Default::default());
        seen.insert(board.hash(), 0);
        Game {
            board,
            to_move,
            ko: None,
            captures: [0, 0],
            passes: 0,
            seen,
            steps: Vec::with_capacity(RESERVED_MOVES),
            captured_log: Vec::with_capacity(RESERVED_MOVES),
        }
    }

    /// The current board.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The board size.
    #[inline]
    pub fn size(&self) -> u8 {
        self.board.size()
    }

    /// The side to move: the opponent of the last mover (or of the last passer), or the first
    /// mover at the start.
    #[inline]
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Moves and passes played so far; 0 at the start.
    #[inline]
    pub fn move_number(&self) -> u32 {
        self.steps.len() as u32
    }

    /// The point the side to move may not play now because of simple ko (R20.1), if any.
    #[inline]
    pub fn ko(&self) -> Option<Point> {
        self.ko
            .filter(|k| k.colour == self.to_move)
            .map(|k| k.point)
    }

    /// Stones captured **by** `colour` so far (G4).
    #[inline]
    pub fn captures(&self, colour: Color) -> u32 {
        self.captures[colour.index()]
    }

    /// Passes in a row at the end of the game so far, by either side (R21.1: two end play).
    #[inline]
    pub fn consecutive_passes(&self) -> u32 {
        self.passes
    }

    /// The last move: its colour and point (`None` = a pass); `None` at the start.
    pub fn last_move(&self) -> Option<(Color, Option<Point>)> {
        self.steps.last().map(Self::step_move)
    }

    /// Every move and pass so far, in order: colour and point (`None` = a pass).
    pub fn moves(&self) -> impl ExactSizeIterator<Item = (Color, Option<Point>)> + '_ {
        self.steps.iter().map(Self::step_move)
    }

    fn step_move(s: &Step) -> (Color, Option<Point>) {
        (
            s.colour,
            (s.cell != 0).then(|| Board::point_at(s.cell as usize)),
        )
    }

    /// The latest move number after which the whole-board position with this
    /// [`Board::hash`] existed (0 = the start position), if it did (G6/R20). Positions are
    /// recorded at the start and after each stone play.
    pub fn position_seen(&self, hash: u64) -> Option<u32> {
        self.seen.get(&hash).copied()
    }

    /// Places a stone on `board` for `colour` under G3–G5 and the R20.1 ko ban, appending the
    /// captured cells to `captured`; on error the board and `captured` are unchanged.
    fn place(
        board: &mut Board,
        ko: Option<Ko>,
        colour: Color,
        p: Point,
        captured: &mut Vec<u16>,
    ) -> Result<usize, Illegal> {
        let i = board.index_of(p).ok_or(Illegal::OffBoard(p))?;
        let from = captured.len();
        board.play_at(colour, i, captured).map_err(|e| match e {
            BoardError::Occupied => Illegal::Occupied(p),
            BoardError::Suicide => Illegal::Suicide(p),
            BoardError::OffBoard => Illegal::OffBoard(p),
        })?;
        if let Some(k) = ko {
            // A retake that captures more than the ko stone is not a simple-ko recapture: it
            // does not restore the earlier position.
            if k.cell as usize == i && k.colour == colour && captured.len() - from == 1 {
                board.unplay_at(colour, i, &captured[from..]);
                captured.truncate(from);
                return Err(Illegal::Ko(p));
            }
        }
        Ok(i)
    }

    /// The ko ban created by a stone just placed on cell `i`: it captured exactly one stone,
    /// and it stands alone with exactly one liberty (the point it captured on) — R20.1.
    fn new_ko(board: &Board, colour: Color, i: usize, captured: &[u16]) -> Option<Ko> {
        let &[cell] = captured else { return None };
        if board.lone_stone_liberties(i) != Some(1) {
            return None;
        }
        Some(Ko {
            point: Board::point_at(cell as usize),
            cell,
            colour: colour.opposite(),
        })
    }

    /// What placing a stone of `colour` on `p` would do, without changing the game.
    ///
    /// # Errors
    /// As [`Game::play`].
    pub fn preview(&self, colour: Color, p: Point) -> Result<Preview, Illegal> {
        let mut board = self.board.clone();
        let mut captured = Vec::new();
        Self::place(&mut board, self.ko, colour, p, &mut captured)?;
        let repeats = self.position_seen(board.hash());
        Ok(Preview {
            board,
            captured: Board::points_of(&captured),
            repeats,
        })
    }

    /// Plays a stone of `colour` on `p`, or passes when `p` is `None` (G2: either side may
    /// pass). Either colour may play: afterwards the side to move is the mover's opponent, and
    /// [`MoveOutcome::out_of_turn`] tells whether the mover was the side to move.
    ///
    /// A stone play applies G3–G5 (captures first, then the suicide ban) and the R20.1
    /// simple-ko ban: a move that captures exactly one stone with a stone that then stands
    /// alone with one liberty forbids the captured colour to retake on that point on the very
    /// next move; any other move or a pass lifts the ban. A position seen before is reported
    /// in [`MoveOutcome::repeats`] (R20.2, R20.3: for the referee).
    ///
    /// # Errors
    /// [`Illegal`]; nothing changes then.
    pub fn play(&mut self, colour: Color, p: Option<Point>) -> Result<MoveOutcome, Illegal> {
        let Some(p) = p else {
            return Ok(self.pass(colour));
        };
        let number = self.move_number() + 1;
        let out_of_turn = colour != self.to_move;
        let from = self.captured_log.len();
        let i = Self::place(&mut self.board, self.ko, colour, p, &mut self.captured_log)?;
        let captured = &self.captured_log[from..];
        let ko = Self::new_ko(&self.board, colour, i, captured);
        let repeats = self.seen.insert(self.board.hash(), number);
        let step = Step {
            colour,
            cell: i as u16,
            captured_from: from as u32,
            prev_ko: self.ko,
            prev_to_move: self.to_move,
            prev_passes: self.passes,
            prev_seen: repeats,
        };
        self.steps.push(step);
        self.captures[colour.index()] += captured.len() as u32;
        self.ko = ko;
        self.passes = 0;
        self.to_move = colour.opposite();
        Ok(MoveOutcome {
            number,
            captured: Board::points_of(captured),
            out_of_turn,
            repeats,
            ko: ko.map(|k| k.point),
        })
    }

    /// A pass by `colour` (G2: either side may pass; R21.1: two in a row end play). Same as
    /// `play(colour, None)`, which cannot fail.
    pub fn pass(&mut self, colour: Color) -> MoveOutcome {
        let number = self.move_number() + 1;
        let out_of_turn = colour != self.to_move;
        self.steps.push(Step {
            colour,
            cell: 0,
            captured_from: self.captured_log.len() as u32,
            prev_ko: self.ko,
            prev_to_move: self.to_move,
            prev_passes: self.passes,
            prev_seen: None,
        });
        self.ko = None;
        self.passes += 1;
        self.to_move = colour.opposite();
        MoveOutcome {
            number,
            captured: Vec::new(),
            out_of_turn,
            repeats: None,
            ko: None,
        }
    }

    /// Takes back the last move or pass, restoring the state before it exactly (board, hash,
    /// turn, ko, counters, position record). Returns false if there is nothing to take back.
    pub fn undo(&mut self) -> bool {
        let Some(step) = self.steps.pop() else {
            return false;
        };
        if step.cell != 0 {
            let hash = self.board.hash();
            match step.prev_seen {
                Some(n) => {
                    self.seen.insert(hash, n);
                }
                None => {
                    self.seen.remove(&hash);
                }
            }
            let from = step.captured_from as usize;
            let captured = &self.captured_log[from..];
            self.board
                .unplay_at(step.colour, step.cell as usize, captured);
            self.captures[step.colour.index()] -= captured.len() as u32;
            self.captured_log.truncate(from);
        }
        self.ko = step.prev_ko;
        self.to_move = step.prev_to_move;
        self.passes = step.prev_passes;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(gtp: &str, size: u8) -> Point {
        Point::from_gtp(gtp, size).unwrap()
    }

    /// A game on a board from a diagram, `to_move` to play.
    fn game(rows: &[&str], to_move: Color) -> Game {
        let b = Board::from_rows(rows).unwrap();
        let setup: Vec<_> = b.stones().map(|(p, c)| (c, p)).collect();
        Game::with_setup(b.size(), &setup, to_move).unwrap()
    }

    const KO: [&str; 5] = [
        ".XO..", //
        "XO.O.", ".XO..", ".....", ".....",
    ];

    #[test]
    fn simple_ko_forbids_the_immediate_retake_r20_1() {
        let mut g = game(&KO, Color::Black);
        // Black C4 captures White B4.
        let out = g.play(Color::Black, Some(pt("C4", 5))).unwrap();
        assert_eq!(out.captured, vec![pt("B4", 5)]);
        assert_eq!(out.ko, Some(pt("B4", 5)));
        assert_eq!(g.ko(), Some(pt("B4", 5)));
        let before = g.clone();
        assert_eq!(
            g.play(Color::White, Some(pt("B4", 5))),
            Err(Illegal::Ko(pt("B4", 5)))
        );
        assert_eq!(g, before, "an illegal move changes nothing");
        assert!(matches!(
            g.preview(Color::White, pt("B4", 5)),
            Err(Illegal::Ko(_))
        ));
    }

    #[test]
    fn ko_is_lifted_by_a_move_elsewhere_or_a_pass() {
        let mut g = game(&KO, Color::Black);
        g.play(Color::Black, Some(pt("C4", 5))).unwrap();
        g.play(Color::White, Some(pt("E1", 5))).unwrap();
        assert_eq!(g.ko(), None);
        g.play(Color::Black, Some(pt("A1", 5))).unwrap();
        let out = g.play(Color::White, Some(pt("B4", 5))).unwrap();
        assert_eq!(out.captured, vec![pt("C4", 5)]);
        assert_eq!(out.ko, Some(pt("C4", 5)));
        // A pass lifts it too.
        g.play(Color::Black, None).unwrap();
        assert_eq!(g.ko(), None);
        g.play(Color::White, None).unwrap();
        let out = g.play(Color::Black, Some(pt("C4", 5))).unwrap();
        assert_eq!(out.captured, vec![pt("B4", 5)]);
        // Same position as after move 3 (Black A1): a repetition, reported, not refused.
        assert_eq!(out.repeats, Some(3));
        assert_eq!(out.number, 7);
    }

    #[test]
    fn ko_binds_only_the_captured_colour() {
        let mut g = game(&KO, Color::Black);
        g.play(Color::Black, Some(pt("C4", 5))).unwrap();
        // Black (out of turn) may fill the ko point itself; that lifts the ban.
        let out = g.play(Color::Black, Some(pt("B4", 5))).unwrap();
        assert!(out.out_of_turn);
        assert_eq!(g.ko(), None);
    }

    #[test]
    fn snapback_is_not_ko() {
        let mut g = game(
            &[
                "..XO.", //
                "XXXO.", "OOO..", ".....", ".....",
            ],
            Color::White,
        );
        // White throws in at A5: the black group is left with B5 only.
        g.play(Color::White, Some(pt("A5", 5))).unwrap();
        // Black B5 captures the thrown-in stone, but the capturing stone joins the group.
        let out = g.play(Color::Black, Some(pt("B5", 5))).unwrap();
        assert_eq!(out.captured, vec![pt("A5", 5)]);
        assert_eq!(out.ko, None, "the capturing stone is not alone: no ko");
        assert_eq!(g.ko(), None);
        // White retakes at A5 at once and captures the whole group: the snapback.
        let out = g.play(Color::White, Some(pt("A5", 5))).unwrap();
        assert_eq!(
            out.captured,
            vec![
                pt("B5", 5),
                pt("C5", 5),
                pt("A4", 5),
                pt("B4", 5),
                pt("C4", 5)
            ]
        );
        assert_eq!(g.captures(Color::White), 5);
        assert_eq!(g.captures(Color::Black), 1);
    }

    #[test]
    fn retake_capturing_more_than_the_ko_stone_is_not_ko() {
        // A set-up position (B3 starts without liberties): after Black C4 takes B4 in a ko
        // shape, a white retake on B4 also captures B3, so it is not a single-ko recapture.
        let mut g = game(
            &[
                ".XO..", //
                "XO.O.", "OXO..", ".O...", ".....",
            ],
            Color::Black,
        );
        let out = g.play(Color::Black, Some(pt("C4", 5))).unwrap();
        assert_eq!(out.captured, vec![pt("B4", 5)]);
        assert_eq!(out.ko, Some(pt("B4", 5)));
        let out = g.play(Color::White, Some(pt("B4", 5))).unwrap();
        assert_eq!(out.captured, vec![pt("C4", 5), pt("B3", 5)]);
    }

    #[test]
    fn suicide_is_refused_and_changes_nothing() {
        let mut g = game(&[".X...", "X....", ".....", ".....", "....."], Color::White);
        let before = g.clone();
        assert_eq!(
            g.play(Color::White, Some(pt("A5", 5))),
            Err(Illegal::Suicide(pt("A5", 5)))
        );
        assert_eq!(g, before);
        assert_eq!(
            g.play(Color::White, Some(pt("B5", 5))),
            Err(Illegal::Occupied(pt("B5", 5)))
        );
        assert_eq!(
            g.play(Color::White, Some(Point::new(7, 7))),
            Err(Illegal::OffBoard(Point::new(7, 7)))
        );
        assert_eq!(g, before);
    }

    #[test]
    fn passes_turns_and_counters() {
        let mut g = Game::new(9).unwrap();
        assert_eq!(g.to_move(), Color::Black);
        assert_eq!(g.move_number(), 0);
        assert_eq!(g.last_move(), None);
        let out = g.play(Color::Black, None).unwrap();
        assert_eq!(out.number, 1);
        assert!(!out.out_of_turn);
        assert_eq!(g.consecutive_passes(), 1);
        assert_eq!(g.to_move(), Color::White);
        g.play(Color::White, None).unwrap();
        assert_eq!(g.consecutive_passes(), 2);
        let out = g.play(Color::White, Some(pt("E5", 9))).unwrap();
        assert!(out.out_of_turn, "White again after its own pass");
        assert_eq!(out.repeats, None);
        assert_eq!(g.consecutive_passes(), 0);
        assert_eq!(g.to_move(), Color::Black);
        assert_eq!(g.last_move(), Some((Color::White, Some(pt("E5", 9)))));
        assert_eq!(
            g.moves().collect::<Vec<_>>(),
            vec![
                (Color::Black, None),
                (Color::White, None),
                (Color::White, Some(pt("E5", 9)))
            ]
        );
    }

    #[test]
    fn captures_count_stones_taken_by_each_side() {
        let mut g = game(&["XO...", ".....", ".....", ".....", "....."], Color::White);
        g.play(Color::White, Some(pt("A4", 5))).unwrap();
        assert_eq!(g.captures(Color::White), 1);
        assert_eq!(g.captures(Color::Black), 0);
        assert!(g.undo());
        assert_eq!(g.captures(Color::White), 0);
    }

    #[test]
    fn undo_restores_exactly() {
        let mut g = game(&KO, Color::Black);
        let start = g.clone();
        let mut states = vec![g.clone()];
        for (c, m) in [
            (Color::Black, Some("C4")),
            (Color::White, None),
            (Color::White, Some("E1")),
            (Color::Black, Some("A1")),
            (Color::White, Some("B4")),
        ] {
            g.play(c, m.map(|s| pt(s, 5))).unwrap();
            states.push(g.clone());
        }
        states.pop();
        while let Some(s) = states.pop() {
            assert!(g.undo());
            assert_eq!(g, s);
        }
        assert_eq!(g, start);
        assert!(!g.undo());
    }

    #[test]
    fn triple_ko_cycle_names_the_earlier_move_r20_3() {
        // Three kos: Black can take in the first and third, White in the second. Taking them
        // in turn brings back the start position after six moves (R20.3, triple ko).
        let rows = [
            ".XO......", //
            "XO.O.....",
            ".XO......",
            ".OX......",
            "OX.X.....",
            ".OX......",
            ".XO......",
            "XO.O.....",
            ".XO......",
        ];
        let mut g = game(&rows, Color::Black);
        let start = g.board().hash();
        assert_eq!(g.position_seen(start), Some(0));
        let cycle = [
            (Color::Black, "C8"),
            (Color::White, "C5"),
            (Color::Black, "C2"),
            (Color::White, "B8"),
            (Color::Black, "B5"),
            (Color::White, "B2"),
        ];
        for (k, &(c, m)) in cycle.iter().enumerate() {
            let out = g.play(c, Some(pt(m, 9))).unwrap();
            assert_eq!(out.captured.len(), 1, "move {} captures one stone", k + 1);
            assert!(out.ko.is_some());
            if k < 5 {
                assert_eq!(out.repeats, None, "move {}", k + 1);
            } else {
                assert_eq!(out.repeats, Some(0), "the start position again");
            }
        }
        assert_eq!(g.board().hash(), start);
        // Going round again: each position names its latest earlier occurrence.
        let out = g.play(Color::Black, Some(pt("C8", 9))).unwrap();
        assert_eq!(out.repeats, Some(1));
        let preview = g.preview(Color::White, pt("C5", 9)).unwrap();
        assert_eq!(preview.repeats, Some(2));
        assert_eq!(preview.captured, vec![pt("B5", 9)]);
        // Undo restores the position record too.
        assert!(g.undo());
        assert!(g.undo());
        assert_eq!(g.position_seen(start), Some(0));
    }

    #[test]
    fn setup_rejects_off_board_stones() {
        assert_eq!(
            Game::with_setup(9, &[(Color::Black, Point::new(9, 0))], Color::White),
            Err(SetupError::OffBoard {
                point: Point::new(9, 0),
                size: 9
            })
        );
        assert!(matches!(
            Game::with_setup(25, &[], Color::Black),
            Err(SetupError::Size(_))
        ));
        let g = Game::with_setup(9, &[(Color::Black, Point::new(2, 2))], Color::White).unwrap();
        assert_eq!(g.to_move(), Color::White);
        assert_eq!(g.board().stone_count(Color::Black), 1);
    }
}
