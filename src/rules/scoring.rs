//! End-of-game scoring under the Chinese rules: area counting (G9), the result with komi and
//! warnings (C2, R24.1), unconditional life (Benson's algorithm) and the dead stones the
//! controller proposes to the players (G8, R21.1–R21.4).
//!
//! Units: **points** are intersections of the board (a stone on the board or an empty point
//! surrounded by one side is one point); **stones** (子) are the unit of Chinese counting, in
//! which Black's area is compared with half the board: a margin of one stone is a margin of two
//! points (Black's 185 points against White's 176 is ½ stone over the par of 180½, less 3¾ stones
//! of komi). Komi is always given in points (C2: 7.5 points = 3¾ stones).
//!
//! * [`area_count`] — G9: take off the dead stones, count each side's stones and the empty
//!   regions only it borders; the rest is dame, shared half each (R21.2).
//! * [`chinese_result`] — C2 komi, R24.1 warnings, the winner, both margins and the SGF `RE`.
//! * [`unconditionally_alive`] — Benson's algorithm: the chains that stay on the board whatever
//!   the opponent plays, even if their owner passes for ever.
//! * [`propose_dead`] — G8: the chains that cannot avoid capture, estimated by seeded random
//!   playouts from the final position; never a chain that [`unconditionally_alive`] keeps.
//!   The players confirm or dispute the proposal (R21.3, R21.4).
//! * [`proposed_result`] — the three together.
//!
//! Pure and deterministic like the rest of the rules core: no clock, no I/O; the only
//! randomness is a [`ChaCha8Rng`](rand_chacha::ChaCha8Rng) seeded from the `seed` argument.
//!
//! ```
//! use smartgoban::rules::{area_count, chinese_result, propose_dead, Board, Color};
//!
//! // 9×9: Black owns the left five columns, White the right four (G9).
//! let rows = ["....XO..."; 9];
//! let board = Board::from_rows(&rows).unwrap();
//! let dead = propose_dead(&board, 1, 100);
//! assert!(dead.is_empty());
//! let count = area_count(&board, &dead);
//! assert_eq!((count.black_points(), count.white_points()), (45.0, 36.0));
//! // Par is 40½ points; Black needs more than 40½ + 3¾ = 44¼ (C2).
//! let result = chinese_result(&count, 9, 7.5, [0, 0]);
//! assert_eq!(result.winner, Some(Color::Black));
//! assert_eq!(result.re, "B+1.5");
//! assert_eq!(result.margin_stones, 0.75);
//! ```

mod ownership;

use super::board::Board;
use super::color::Color;
use super::point::Point;
use ownership::ownership;

/// The share of playouts above which a chain whose points end up the opponent's is proposed
/// dead by [`propose_dead`]: a strict majority.
///
/// Chosen by measurement (`tests/rules_scoring.rs`; 100 playouts, seeds 1–5) on the final
/// positions of the 22 counted modern games of the corpus with Chinese or unspecified rules.
/// The shares of the chains that [`unconditionally_alive`] does not already keep fall into two
/// clusters with a gap between them: of about 4 400 chain evaluations, 99 % of those below
/// 0.6 were below 0.3, none fell between 0.4 and 0.6, and the dead cluster runs from 0.6 to 1
/// (most above 0.8). Agreement with the recorded results was the same for every threshold from
/// 0.35 to 0.6 and fell above 0.65 (dead stones left on the board; at 0.7 the margins within a
/// point dropped from 105 to 95 of 110 game × seed pairs). On a wider set that adds 32 Fox
/// games with komi the gap was as clear (0.5 % of the shares between 0.4 and 0.6). 0.5 sits in
/// the middle of the gap. With 500 playouts ([`DEFAULT_PLAYOUTS`] since issue 14) the gap is the
/// same: of the same 4 400 evaluations none falls between 0.4 and 0.6.
pub const DEAD_THRESHOLD: f64 = 0.5;

/// Playouts [`proposed_result`] (and the referee, the `score` command) runs: 500, five times
/// the former 100, since the playouts run on a [`PlayoutBoard`](super::PlayoutBoard) (issue
/// 14) — more playouts for the same time, so that a chain near the threshold (a seki, a group
/// short of liberties) is decided by fewer coin flips: on the final positions of the 600 games
/// of the corpus, the proposals for seeds 1 and 2 differ in 168 positions by 559 stones, against
/// 242 positions and 1 118 stones with 100 playouts. The results of the real counted games of
/// the corpus come out the same for seeds 1–10 (`tests/rules_scoring.rs`), as with 100, and for
/// seed 1 no proposal of theirs changed with the raise (those of 180 other final positions,
/// mostly of unfinished or resigned games, did). Time: see [`propose_dead`]; on a Raspberry
/// Pi, some 3–5 times as long.
pub const DEFAULT_PLAYOUTS: u32 = 500;

/// The count of a finished board by area (G9), in **points**: each side's living stones and the
/// empty points it alone surrounds, and the neutral points (dame) between both sides.
///
/// The five numbers add up to the number of points of the board when the count comes from
/// [`area_count`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct AreaCount {
    /// Black stones left on the board after the dead ones are taken off (points).
    pub black_stones: u32,
    /// White stones left on the board after the dead ones are taken off (points).
    pub white_stones: u32,
    /// Empty points in regions bordered by Black stones only (points).
    pub black_territory: u32,
    /// Empty points in regions bordered by White stones only (points).
    pub white_territory: u32,
    /// Neutral points: empty points in regions that touch both colours or no stone at all
    /// (points; R21.2: shared half each, as in seki).
    pub dame: u32,
}

impl AreaCount {
    /// Black's area in points: stones + territory + half the dame (G9; R21.2: neutral points are
    /// shared half each).
    pub fn black_points(&self) -> f64 {
        f64::from(self.black_stones) + f64::from(self.black_territory) + f64::from(self.dame) / 2.0
    }

    /// White's area in points: stones + territory + half the dame (G9, R21.2).
    pub fn white_points(&self) -> f64 {
        f64::from(self.white_stones) + f64::from(self.white_territory) + f64::from(self.dame) / 2.0
    }

    /// All the points counted: stones, territory and dame of both sides.
    fn total(&self) -> f64 {
        f64::from(self.black_stones)
            + f64::from(self.white_stones)
            + f64::from(self.black_territory)
            + f64::from(self.white_territory)
            + f64::from(self.dame)
    }
}

/// The result of a counted game under the Chinese rules (G9, C2, R24.1).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ChineseResult {
    /// The winner; `None` for an exact draw (possible only with a whole-number komi).
    pub winner: Option<Color>,
    /// Black's area in points after the warnings (R24.1), before komi.
    pub black_points: f64,
    /// White's area in points after the warnings (R24.1), before komi.
    pub white_points: f64,
    /// Black's margin in **points**: `black_points − white_points − komi`; negative when White
    /// wins.
    pub margin_points: f64,
    /// Black's margin in **stones** (子), the unit of Chinese counting: `margin_points / 2`,
    /// which is also `black_points − (size²/2 + komi/2)` — Black's area against half the board
    /// plus half the komi (on 19×19 with 3¾ stones of komi: against 184¼, C2).
    pub margin_stones: f64,
    /// The SGF `RE` value: `B+3.5`, `W+0.5` (the margin in points), or `0` for an exact draw.
    pub re: String,
}

/// What one point is worth at the count (G9), from [`area_map`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum AreaPoint {
    /// A living stone of this colour.
    Stone(Color),
    /// An empty point (or a dead stone's point) in a region bordered by this colour only.
    Territory(Color),
    /// An empty point of a region that touches both colours or no stone: shared half each
    /// (R21.2).
    Dame,
}

/// Every point's share at the count (G9), by point index (`y * size + x`, SGF order): the
/// `dead` stones are taken off first; every living stone is its colour's, an empty region
/// bordered by one colour only is that colour's territory, any other empty region is dame
/// (R21.2). Points of `dead` that are empty or off the board are ignored.
pub fn area_map(board: &Board, dead: &[Point]) -> Vec<AreaPoint> {
    let mut cleared = board.clone();
    for &p in dead {
        cleared.put(p, None);
    }
    let grid = Grid::of(&cleared);
    let mut map = vec![AreaPoint::Dame; grid.cells.len()];
    let mut seen = vec![false; grid.cells.len()];
    let mut stack = Vec::new();
    let mut region = Vec::new();
    for k in 0..grid.cells.len() {
        match grid.cells[k] {
            BLACK => map[k] = AreaPoint::Stone(Color::Black),
            WHITE => map[k] = AreaPoint::Stone(Color::White),
            _ if !seen[k] => {
                // Flood the empty region of k and note which colours border it.
                let mut borders = 0u8;
                region.clear();
                seen[k] = true;
                stack.push(k);
                while let Some(e) = stack.pop() {
                    region.push(e);
                    for m in grid.neighbours(e) {
                        match grid.cells[m] {
                            EMPTY if !seen[m] => {
                                seen[m] = true;
                                stack.push(m);
                            }
                            EMPTY => {}
                            c => borders |= c,
                        }
                    }
                }
                let share = match borders {
                    BLACK => AreaPoint::Territory(Color::Black),
                    WHITE => AreaPoint::Territory(Color::White),
                    _ => AreaPoint::Dame,
                };
                for &e in &region {
                    map[e] = share;
                }
            }
            _ => {}
        }
    }
    map
}

/// Counts a finished board by area (G9): the sums of [`area_map`] — the `dead` stones are
/// taken off first (they count for nobody as stones, and their points then belong to whatever
/// region they fall in); every living stone is a point for its colour, an empty region
/// bordered by Black stones only is Black's territory, one bordered by White stones only is
/// White's, and a region that touches both colours, or no stone at all, is dame, shared half
/// each (R21.2; the shared liberties of a seki are dame, an eye of a seki group is its
/// owner's).
///
/// Points of `dead` that are empty or off the board are ignored.
pub fn area_count(board: &Board, dead: &[Point]) -> AreaCount {
    let mut count = AreaCount::default();
    for share in area_map(board, dead) {
        match share {
            AreaPoint::Stone(Color::Black) => count.black_stones += 1,
            AreaPoint::Stone(Color::White) => count.white_stones += 1,
            AreaPoint::Territory(Color::Black) => count.black_territory += 1,
            AreaPoint::Territory(Color::White) => count.white_territory += 1,
            AreaPoint::Dame => count.dame += 1,
        }
    }
    count
}

/// The result of a count under the Chinese rules.
///
/// * `size` — the board size; the par is half the board, `size²/2` points (G9: 180½ on
///   19×19). Points the count does not cover (only a hand-built count can leave some out) are
///   treated as neutral and shared (R21.2), so that the two areas always add up to `size²`.
/// * `komi_points` — komi in points (C2: 7.5 points = 3¾ stones), given by Black; a value that
///   is not finite counts as 0.
/// * `warnings` — warnings given to `[black, white]` during the game. R24.1: each warning costs
///   the warned side one stone at the count. Chinese counting counts one side's stones and gives
///   the other the rest of the board, so the stone taken off the warned side's count is one
///   point less for it and one point more for the opponent: the margin moves by one stone (two
///   points).
///
/// Black's margin is `black_points − white_points − komi` points, or half that in stones;
/// Black wins with more than `size²/2 + komi/2` points (184¼ on 19×19 with 7.5 komi).
pub fn chinese_result(
    count: &AreaCount,
    size: u8,
    komi_points: f64,
    warnings: [u32; 2],
) -> ChineseResult {
    let board_points = f64::from(size) * f64::from(size);
    let uncovered = (board_points - count.total()).max(0.0);
    let penalty = f64::from(warnings[0]) - f64::from(warnings[1]);
    let black_points = count.black_points() + uncovered / 2.0 - penalty;
    let white_points = count.white_points() + uncovered / 2.0 + penalty;
    let komi = if komi_points.is_finite() {
        komi_points
    } else {
        0.0
    };
    let margin_points = black_points - white_points - komi;
    let winner = if margin_points > 0.0 {
        Some(Color::Black)
    } else if margin_points < 0.0 {
        Some(Color::White)
    } else {
        None
    };
    let re = match winner {
        Some(c) => format!("{}+{}", c.sgf_letter(), format_points(margin_points.abs())),
        None => "0".to_string(),
    };
    ChineseResult {
        winner,
        black_points,
        white_points,
        margin_points,
        margin_stones: margin_points / 2.0,
        re,
    }
}

/// A margin as SGF writes it: `3.5`, `1`, `0.25`; rounded to hundredths so that a komi such as
/// 6.3 does not print binary noise.
fn format_points(points: f64) -> String {
    let rounded = (points * 100.0).round() / 100.0;
    format!("{rounded}")
}

/// The stones of both colours that are alive unconditionally — whatever the opponent plays,
/// even if their owner passes for ever — by Benson's algorithm, row-major.
///
/// For each colour: a *region* is a maximal connected set of points without a stone of that
/// colour (empty points and opponent stones); a region is *vital* to a chain of that colour if
/// it has an empty point and all its empty points are liberties of the chain. Then, repeated
/// until nothing changes: drop every chain with fewer than two vital regions among the regions
/// kept, and drop every region that touches a dropped chain. The chains left are alive: G8's
/// "stones that cannot be captured" in the strictest sense. A group with one large eye, a group
/// in seki, or one whose second eye is false is not alive in this sense (it may still be alive
/// in the usual sense; [`propose_dead`] decides those).
///
/// Never panics; on a hand-made board with groups without liberties the answer is still
/// conservative (a region must hold an empty point to be vital).
pub fn unconditionally_alive(board: &Board) -> Vec<Point> {
    let grid = Grid::of(board);
    let mut alive: Vec<usize> = Vec::new();
    for colour in [BLACK, WHITE] {
        alive.extend(benson(&grid, colour));
    }
    alive.sort_unstable();
    alive.into_iter().map(|k| grid.point(k)).collect()
}

/// The dead stones to propose to the players at the end of the game (G8: stones that cannot
/// avoid capture), row-major. The players confirm them or play on (R21.3, R21.4).
///
/// A chain is proposed dead as a whole, and never one that [`unconditionally_alive`] keeps.
/// For the others, ownership is estimated by `playouts` playouts from this position. In a
/// playout the two sides play in turn until both pass in a row:
///
/// 1. if the opponent's last stone left its own chain in atari, capture it; else, if it put a
///    chain of the mover's in atari, extend on that chain's liberty (when the move is allowed
///    under 3);
/// 2. otherwise a uniformly random move among the allowed ones;
/// 3. allowed: legal (G4, G5 and the R20.1 simple-ko ban, as [`Board::play`] and
///    [`Game::play`](super::Game::play) have them), not filling one of the mover's own
///    single-point eyes and, unless it captures, not leaving a chain of two or more of the
///    mover's stones in atari; a side without an allowed move passes.
///
/// A playout also ends when a whole-board position comes back (a double ko or another cycle,
/// R20.2–R20.3, left as it stands) and after 3 × size² moves at most. Half the playouts start
/// with Black, half with White. At the end of a playout each point is owned by the colour of
/// its stone or, if empty, by the colour of all its neighbours. A chain whose points end up
/// owned by the opponent in more than [`DEAD_THRESHOLD`] of the playouts (averaged over its
/// points) is proposed dead.
///
/// Why not purely random moves (measured on the corpus, see [`DEAD_THRESHOLD`]): without the
/// self-atari rule random play destroys every seki — once everything else is filled, the side
/// to move must fill a shared liberty and loses its chain — and lets the defender fill its own
/// eye space; without the capture-and-escape replies, most dead chains inside a territory
/// still survived 10–40 % of the playouts, some chains of real games sat near any threshold,
/// and the result of several games changed with the seed. With both rules, filling a shared
/// liberty of a seki is never allowed, and seki stones survive the playouts (those of the seki
/// in the tests, every one) and are not proposed.
///
/// The playouts run on a [`PlayoutBoard`](super::PlayoutBoard), where every question the
/// policy asks (legal? captures? atari? own eye? position seen before?) costs O(1). Candidates
/// are drawn from its list of empty points, a seeded [`ChaCha8Rng`](rand_chacha::ChaCha8Rng)
/// choosing among the entries not yet rejected for this move.
///
/// Deterministic for a given `seed`: the same proposal on every platform, and the same as
/// before issue 14 (when the playouts copied a [`Board`] per trial move) for the same seed and
/// playouts. With `playouts` = 0 nothing is proposed. Cost: about `playouts` × 1–3 × (empty
/// points) moves. Measured (`cargo bench --bench rules -- propose_dead`, release build, one
/// core of a shared 2-core machine, over several runs): with 500 playouts 12–39 ms (median
/// 20–27) for the final positions of the 22 counted 19×19 games of the corpus, 21–27 ms for
/// that of the fixture game `2017.09.24 咆哮 vs CGI`, 40–55 ms for an empty 19×19 board, 10–13
/// ms for an empty 9×9 one; with 100 playouts 5–7 ms for the fixture's position, where the
/// playouts on [`Board`] took 34–40 ms (19–66 ms, median 37–41, for the 22 games).
pub fn propose_dead(board: &Board, seed: u64, playouts: u32) -> Vec<Point> {
    let n = board.size();
    dead_shares(board, seed, playouts)
        .into_iter()
        .enumerate()
        .filter(|&(_, share)| share > DEAD_THRESHOLD)
        .map(|(k, _)| Point::from_index(k, n))
        .collect()
}

/// For each point (row-major, `size²` values in 0..=1): for a stone, the share of the
/// playouts of [`propose_dead`] in which the opponent owned its chain's points (averaged over
/// them; 0 for a chain [`unconditionally_alive`] keeps); for an empty point 0. `propose_dead`
/// takes the chains above [`DEAD_THRESHOLD`]; a chain near 0 is alive beyond reasonable
/// dispute. With `playouts` = 0 every share is 0. Same cost as [`propose_dead`].
pub fn dead_shares(board: &Board, seed: u64, playouts: u32) -> Vec<f64> {
    let grid = Grid::of(board);
    let n2 = grid.cells.len();
    let mut shares = vec![0.0; n2];
    if playouts == 0 {
        return shares;
    }
    let mut safe = vec![false; n2];
    for colour in [BLACK, WHITE] {
        for k in benson(&grid, colour) {
            safe[k] = true;
        }
    }
    let owned = ownership(board, seed, playouts);
    for colour in [BLACK, WHITE] {
        let opponent = colour ^ 3;
        let (_, chains) = grid.components(|c| c == colour);
        for chain in chains {
            if chain.iter().any(|&k| safe[k]) {
                continue;
            }
            let lost: u64 = chain
                .iter()
                .map(|&k| u64::from(owned[k][usize::from(opponent - 1)]))
                .sum();
            let share = lost as f64 / (chain.len() as f64 * f64::from(playouts));
            for k in chain {
                shares[k] = share;
            }
        }
    }
    shares
}

/// Proposes the dead stones ([`propose_dead`] with [`DEFAULT_PLAYOUTS`]), counts the board
/// without them ([`area_count`]) and gives the result ([`chinese_result`]) for `komi_points`
/// (points) and `warnings` `[black, white]` (R24.1). What the controller shows the players when
/// both have passed (R21.1); if they dispute the dead stones, play resumes (R21.4).
pub fn proposed_result(
    board: &Board,
    komi_points: f64,
    warnings: [u32; 2],
    seed: u64,
) -> (Vec<Point>, AreaCount, ChineseResult) {
    let dead = propose_dead(board, seed, DEFAULT_PLAYOUTS);
    let count = area_count(board, &dead);
    let result = chinese_result(&count, board.size(), komi_points, warnings);
    (dead, count, result)
}

/// Benson's algorithm for the chains of `colour` (`BLACK` or `WHITE`): the points of the
/// unconditionally alive chains. See [`unconditionally_alive`].
fn benson(grid: &Grid, colour: u8) -> Vec<usize> {
    let (chain_of, chains) = grid.components(|c| c == colour);
    let (_, regions) = grid.components(|c| c != colour);
    // For every region: the chains it touches and the chains it is vital to.
    let mut touching: Vec<Vec<u32>> = Vec::with_capacity(regions.len());
    let mut vital: Vec<Vec<u32>> = Vec::with_capacity(regions.len());
    for region in &regions {
        let mut near: Vec<u32> = region
            .iter()
            .flat_map(|&k| grid.neighbours(k))
            .filter_map(|m| (chain_of[m] != NONE).then_some(chain_of[m]))
            .collect();
        near.sort_unstable();
        near.dedup();
        let empties: Vec<usize> = region
            .iter()
            .copied()
            .filter(|&k| grid.cells[k] == EMPTY)
            .collect();
        let is_liberty_of = |k: usize, chain: u32| grid.neighbours(k).any(|m| chain_of[m] == chain);
        let vital_to: Vec<u32> = if empties.is_empty() {
            Vec::new()
        } else {
            near.iter()
                .copied()
                .filter(|&c| empties.iter().all(|&k| is_liberty_of(k, c)))
                .collect()
        };
        touching.push(near);
        vital.push(vital_to);
    }
    let mut chain_kept = vec![true; chains.len()];
    let mut region_kept = vec![true; regions.len()];
    loop {
        let mut changed = false;
        let mut vital_count = vec![0u32; chains.len()];
        for (r, to) in vital.iter().enumerate() {
            if region_kept[r] {
                for &c in to {
                    vital_count[c as usize] += 1;
                }
            }
        }
        for (c, kept) in chain_kept.iter_mut().enumerate() {
            if *kept && vital_count[c] < 2 {
                *kept = false;
                changed = true;
            }
        }
        for (r, kept) in region_kept.iter_mut().enumerate() {
            if *kept && touching[r].iter().any(|&c| !chain_kept[c as usize]) {
                *kept = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    chains
        .into_iter()
        .zip(chain_kept)
        .filter(|(_, kept)| *kept)
        .flat_map(|(chain, _)| chain)
        .collect()
}

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
/// No component: the label of a point outside the components asked for.
const NONE: u32 = u32::MAX;

/// A row-major copy of a board's points (`EMPTY`, `BLACK`, `WHITE`) for flood fills.
struct Grid {
    n: usize,
    cells: Vec<u8>,
}

impl Grid {
    fn of(board: &Board) -> Grid {
        let n = usize::from(board.size());
        let mut cells = vec![EMPTY; n * n];
        for (p, c) in board.stones() {
            cells[p.index(board.size())] = match c {
                Color::Black => BLACK,
                Color::White => WHITE,
            };
        }
        Grid { n, cells }
    }

    fn point(&self, k: usize) -> Point {
        Point::new((k % self.n) as u8, (k / self.n) as u8)
    }

    /// The on-board orthogonal neighbours of point `k`.
    fn neighbours(&self, k: usize) -> impl Iterator<Item = usize> {
        let n = self.n;
        let (x, y) = (k % n, k / n);
        [
            (y > 0).then(|| k - n),
            (x > 0).then(|| k - 1),
            (x + 1 < n).then(|| k + 1),
            (y + 1 < n).then(|| k + n),
        ]
        .into_iter()
        .flatten()
    }

    /// The connected components of the points whose value satisfies `keep`: the component
    /// label of each point (`NONE` outside them) and each component's points, row-major order
    /// of their first point.
    fn components(&self, keep: impl Fn(u8) -> bool) -> (Vec<u32>, Vec<Vec<usize>>) {
        let mut label = vec![NONE; self.cells.len()];
        let mut comps: Vec<Vec<usize>> = Vec::new();
        for k in 0..self.cells.len() {
            if label[k] != NONE || !keep(self.cells[k]) {
                continue;
            }
            let id = comps.len() as u32;
            label[k] = id;
            let mut comp = vec![k];
            let mut head = 0;
            while head < comp.len() {
                let e = comp[head];
                head += 1;
                for m in self.neighbours(e) {
                    if label[m] == NONE && keep(self.cells[m]) {
                        label[m] = id;
                        comp.push(m);
                    }
                }
            }
            comps.push(comp);
        }
        (label, comps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&str]) -> Board {
        Board::from_rows(rows).unwrap()
    }

    fn count(b: u32, w: u32, bt: u32, wt: u32, dame: u32) -> AreaCount {
        AreaCount {
            black_stones: b,
            white_stones: w,
            black_territory: bt,
            white_territory: wt,
            dame,
        }
    }

    #[test]
    fn empty_board_is_all_dame_g9() {
        for size in [2u8, 9, 19] {
            let c = area_count(&Board::new(size).unwrap(), &[]);
            let n = u32::from(size) * u32::from(size);
            assert_eq!(c, count(0, 0, 0, 0, n));
            assert_eq!(c.black_points(), f64::from(n) / 2.0);
            let r = chinese_result(&c, size, 0.0, [0, 0]);
            assert_eq!((r.winner, r.re.as_str()), (None, "0"));
        }
    }

    #[test]
    fn split_board_g9() {
        let b = board(&[
            "..XO.", //
            "..XO.", "..XO.", "..XO.", "..XO.",
        ]);
        let c = area_count(&b, &[]);
        assert_eq!(c, count(5, 5, 10, 5, 0));
        assert_eq!((c.black_points(), c.white_points()), (15.0, 10.0));
    }

    #[test]
    fn dead_stones_inside_territory_are_taken_off_first_g9() {
        // A dead white stone in Black's area: taken off, its point is Black territory. The
        // empty and off-board "dead" points are ignored.
        let b = board(&[
            "..XO.", //
            ".OXO.", "..XO.", "..XO.", "..XO.",
        ]);
        let without = area_count(&b, &[]);
        assert_eq!(
            without,
            count(5, 6, 0, 5, 9),
            "the stone touches both: dame"
        );
        let dead = [Point::new(1, 1), Point::new(0, 0), Point::new(30, 30)];
        let c = area_count(&b, &dead);
        assert_eq!(c, count(5, 5, 10, 5, 0));
        // A dead black chain on the line between the areas: its points become dame.
        let b = board(&[
            "..XO.", //
            "..XO.", "..X..", "..XO.", "..XO.",
        ]);
        let c = area_count(&b, &[Point::new(2, 2)]);
        assert_eq!(c.black_stones, 4);
        assert_eq!(c.white_territory, 0);
        assert_eq!(
            c.dame,
            5 + 10 + 1 + 1,
            "everything but the stones is one region"
        );
    }

    /// A seki in the middle of a 7×7 board: the white chain on column C and the black chain
    /// on columns D–E share the liberties D7 and D1; the outer walls live with two eyes each.
    pub(super) const SEKI: [&str; 7] = [
        "XXO.XOO", //
        ".XOXXO.", "XXOXXOO", "XXOXXOO", "XXOXXOO", ".XOXXO.", "XXO.XOO",
    ];

    #[test]
    fn seki_liberties_are_shared_r21_2() {
        let c = area_count(&board(&SEKI), &[]);
        assert_eq!(c, count(24, 19, 2, 2, 2));
        assert_eq!((c.black_points(), c.white_points()), (27.0, 22.0));
    }

    #[test]
    fn result_with_komi_in_points_and_stones_c2() {
        // 19×19: Black 185 points, White 176, komi 7.5: Black by 1.5 points = ¾ stone, and
        // Black's area less 184¼ is the margin in stones.
        let c = count(150, 140, 35, 36, 0);
        let r = chinese_result(&c, 19, 7.5, [0, 0]);
        assert_eq!((r.black_points, r.white_points), (185.0, 176.0));
        assert_eq!(r.winner, Some(Color::Black));
        assert_eq!(r.margin_points, 1.5);
        assert_eq!(r.margin_stones, 0.75);
        assert_eq!(r.black_points - 184.25, r.margin_stones);
        assert_eq!(r.re, "B+1.5");
        // 184 points is not enough: White by ¼ stone.
        let r = chinese_result(&count(150, 141, 34, 36, 0), 19, 7.5, [0, 0]);
        assert_eq!((r.re.as_str(), r.margin_stones), ("W+0.5", -0.25));
    }

    #[test]
    fn nine_by_nine_par() {
        // 81 points, par 40½; with 7.5 komi Black needs more than 44¼.
        let r = chinese_result(&count(40, 30, 5, 6, 0), 9, 7.5, [0, 0]);
        assert_eq!((r.re.as_str(), r.margin_stones), ("B+1.5", 0.75));
        assert_eq!(r.black_points - (40.5 + 3.75), r.margin_stones);
        let r = chinese_result(&count(40, 31, 4, 6, 0), 9, 7.5, [0, 0]);
        assert_eq!((r.winner, r.re.as_str()), (Some(Color::White), "W+0.5"));
        // No komi: par alone; one dame shared.
        let r = chinese_result(&count(40, 30, 0, 10, 1), 9, 0.0, [0, 0]);
        assert_eq!((r.black_points, r.white_points), (40.5, 40.5));
        assert_eq!((r.winner, r.re.as_str()), (None, "0"));
    }

    #[test]
    fn warnings_cost_a_stone_each_r24_1() {
        let c = count(150, 140, 35, 36, 0); // 185 : 176
        let r = chinese_result(&c, 19, 7.5, [1, 0]);
        assert_eq!((r.black_points, r.white_points), (184.0, 177.0));
        assert_eq!(r.margin_stones, -0.25, "¾ stone less one stone");
        assert_eq!(r.re, "W+0.5");
        let r = chinese_result(&c, 19, 7.5, [0, 2]);
        assert_eq!((r.margin_stones, r.re.as_str()), (2.75, "B+5.5"));
        let r = chinese_result(&c, 19, 7.5, [1, 1]);
        assert_eq!(r.re, "B+1.5", "one each cancels out");
    }

    #[test]
    fn draw_and_odd_komi() {
        // With a whole-number komi an exact draw is possible: SGF RE "0".
        let r = chinese_result(&count(150, 141, 35, 35, 0), 19, 9.0, [0, 0]);
        assert_eq!((r.winner, r.re.as_str(), r.margin_points), (None, "0", 0.0));
        // A komi that is not finite counts as none; a hand-built count that leaves points out
        // shares them.
        let r = chinese_result(&count(10, 0, 0, 0, 0), 9, f64::NAN, [0, 0]);
        assert_eq!((r.black_points, r.white_points), (45.5, 35.5));
        assert_eq!(r.re, "B+10");
        let r = chinese_result(&count(150, 141, 35, 35, 0), 19, 6.3, [0, 0]);
        assert_eq!(r.re, "B+2.7");
    }

    #[test]
    fn benson_on_a_small_board() {
        // Black with two single-point eyes in the corner of a 5×5 board, the rest White's.
        let b = board(&[
            ".X.XO", //
            "XXXXO", "OOOOO", ".....", ".....",
        ]);
        let alive = unconditionally_alive(&b);
        let black: Vec<Point> = b
            .stones()
            .filter(|(_, c)| *c == Color::Black)
            .map(|(p, _)| p)
            .collect();
        assert_eq!(
            alive, black,
            "Black is pass-alive; White's one big area is not a vital region"
        );
    }
}
