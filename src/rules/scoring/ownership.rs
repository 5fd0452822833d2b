//! The playouts behind the dead-stone proposal ([`propose_dead`](super::propose_dead), whose
//! doc gives the policy): who owns each point at the end of seeded random playouts, played on
//! a [`PlayoutBoard`].

use super::super::board::{Board, STRIDE};
use super::super::color::Color;
use super::super::playout::{Placement, PlayoutBoard, PositionSet};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// For each point (row-major), in how many of `playouts` random playouts it ended up
/// `[black, white]`.
pub(super) fn ownership(board: &Board, seed: u64, playouts: u32) -> Vec<[u32; 2]> {
    let n = usize::from(board.size());
    let mut owned = vec![[0u32; 2]; n * n];
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let start = PlayoutBoard::from_board(board);
    let mut pb = start.clone();
    let cap = 3 * n * n;
    let mut seen = PositionSet::with_capacity(cap + 1);
    for i in 0..playouts {
        let first = if i % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        pb.clone_from(&start);
        playout(&mut pb, first, &mut seen, cap, &mut rng);
        for (k, own) in owned.iter_mut().enumerate() {
            let cell = (k / n + 1) * STRIDE + k % n + 1;
            if let Some(c) = pb.owner(cell) {
                own[c.index()] += 1;
            }
        }
    }
    owned
}

/// One random playout on `pb` (the start position on entry, the final one on return), `first`
/// to move; `seen` is scratch space.
///
/// Candidates are drawn from the board's list of empty points without replacement: a
/// rejected one is swapped past the end of the part still to draw from. The R20.1 simple-ko
/// ban is [`PlayoutBoard`]'s, as in [`Game::play`](crate::rules::Game::play): a stone that captures
/// exactly one stone and then stands alone with one liberty forbids the opponent to retake at
/// once by capturing just that stone. Longer cycles (double ko, triple ko, sending two and
/// returning one: R20.2, R20.3) are not forbidden; the playout simply ends when a whole-board
/// position comes back, and the points are counted as they stand. Without that stop, such
/// cycles ran to the move cap `cap` in half the playouts of some real final positions, at ten
/// times the cost.
fn playout(
    pb: &mut PlayoutBoard,
    first: Color,
    seen: &mut PositionSet,
    cap: usize,
    rng: &mut ChaCha8Rng,
) {
    seen.clear();
    seen.insert(pb.hash());
    let mut colour = first;
    let mut passes = 0;
    let mut moves = 0;
    let mut last: Option<usize> = None;
    while passes < 2 && moves < cap {
        moves += 1;
        let mut played = None;
        if let Some(last) = last {
            played = tactical_moves(pb, last, colour)
                .into_iter()
                .flatten()
                .find_map(|q| allowed(pb, colour, q));
        }
        // Draw candidates without replacement until one is allowed: a uniform choice among
        // the allowed moves.
        let mut left = if played.is_some() {
            0
        } else {
            pb.empties().len()
        };
        while left > 0 {
            let j = rng.random_range(0..left);
            let p = usize::from(pb.empties()[j]);
            if !pb.is_single_point_eye(p, colour) {
                played = allowed(pb, colour, p);
                if played.is_some() {
                    break;
                }
            }
            left -= 1;
            pb.swap_empties(j, left);
        }
        match played {
            Some(placement) => {
                passes = 0;
                last = Some(placement.cell());
                pb.apply(placement);
                if !seen.insert(pb.hash()) {
                    break;
                }
            }
            None => {
                pb.pass();
                last = None;
                passes += 1;
            }
        }
        colour = colour.opposite();
    }
}

/// The replies to the opponent's stone on `last` that any player would consider first, for
/// `colour` to move, in this order: capture the chain of `last` if it is in atari; else save a
/// chain of `colour` next to `last` (left, right, above, below) that it put in atari, by
/// extending on its liberty.
fn tactical_moves(pb: &PlayoutBoard, last: usize, colour: Color) -> [Option<usize>; 5] {
    let mut out = [None; 5];
    out[0] = pb.atari_liberty(last);
    for (k, q) in [last - 1, last + 1, last - STRIDE, last + STRIDE]
        .into_iter()
        .enumerate()
    {
        if pb.colour_at(q) == Some(colour) {
            out[k + 1] = pb.atari_liberty(q);
        }
    }
    out
}

/// The placement of `colour` on `p` if it is allowed (see
/// [`propose_dead`](super::propose_dead)): legal (G4, G5, R20.1) and not a self-atari of a
/// chain. A single stone may still be thrown in.
fn allowed(pb: &PlayoutBoard, colour: Color, p: usize) -> Option<Placement> {
    pb.check(colour, p).ok().filter(|pl| !pl.self_atari)
}

#[cfg(test)]
mod tests {
    use super::super::tests::SEKI;
    use super::super::{propose_dead, Grid, EMPTY};
    use super::*;
    use crate::rules::Point;

    fn board(rows: &[&str]) -> Board {
        Board::from_rows(rows).unwrap()
    }

    /// FNV-1a over the counts, to pin a whole ownership table.
    fn fnv(own: &[[u32; 2]]) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for v in own.iter().flatten() {
            h = (h ^ u64::from(*v)).wrapping_mul(0x0100_0000_01b3);
        }
        h
    }

    /// A board with each point black, white or empty at random, chains without liberties
    /// included.
    fn random_board(size: u8, seed: u64) -> Board {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut b = Board::new(size).unwrap();
        for y in 0..size {
            for x in 0..size {
                match rng.random_range(0..3) {
                    0 => b.put(Point::new(x, y), Some(Color::Black)),
                    1 => b.put(Point::new(x, y), Some(Color::White)),
                    _ => {}
                }
            }
        }
        b
    }

    #[test]
    fn playouts_are_deterministic() {
        let b = board(&[
            ".X.XO....", //
            "XXXXO....",
            "OOOOO....",
            ".........",
            "...X.....",
            ".........",
            ".........",
            ".........",
            ".........",
        ]);
        let a = propose_dead(&b, 7, 50);
        assert_eq!(a, propose_dead(&b, 7, 50));
        assert_eq!(ownership(&b, 3, 20), ownership(&b, 3, 20));
        assert!(propose_dead(&b, 7, 0).is_empty());
    }

    #[test]
    fn the_same_playouts_as_on_board() {
        // The tables of the former implementation on `Board` (a board copy per trial move,
        // group walks, the empty points in a `Vec`), with the same seeds: the playout board
        // draws the same candidates in the same order and plays the same games. (Checked
        // before the change on 755 positions — random boards of every size and the final
        // position of every game of the corpus — with seeds 1 and 2.)
        let pins = [
            (board(&SEKI), 0xd49e_d6b4_9551_e0d5),
            (Board::new(19).unwrap(), 0x38ee_f97e_b44c_f49d),
            (random_board(19, 5), 0x789d_9cd6_8571_f5c5),
            (random_board(13, 6), 0xb0d4_6e1d_1ebf_07ff),
            (random_board(9, 7), 0x0950_e9ea_9a99_ebe2),
        ];
        for (k, (b, pin)) in pins.iter().enumerate() {
            assert_eq!(fnv(&ownership(b, 3, 40)), *pin, "board {k}\n{b:?}");
        }
    }

    #[test]
    fn seki_stones_survive_every_playout() {
        // The playouts never fill a shared liberty of a seki (self-atari of a chain).
        let b = board(&SEKI);
        let grid = Grid::of(&b);
        for (k, own) in ownership(&b, 1, 200).iter().enumerate() {
            if grid.cells[k] != EMPTY {
                assert_eq!(own[usize::from(grid.cells[k] - 1)], 200, "point {k}");
            }
        }
    }
}
