//! Seki at the count (G8, G9, R21.2; issue 14): stones in seki are alive, the liberties they
//! share are dame, shared half each, an eye of a seki chain is its owner's — and the dead-stone
//! proposal ([`propose_dead`]) never takes a chain in seki for dead, whatever the seki's shape,
//! where it lies on the board or which way up it is, while it still finds the dead stones
//! beside it.
//!
//! The positions are generated: a black and a white inner chain in mutual seki — without eyes
//! and sharing two liberties, or with an eye each and sharing one or two — between a living
//! black wall with its territory and a living white wall with its own, dead stones of the
//! other colour scattered in each territory, on 13×13 and 19×19, turned by any of the eight
//! symmetries of the board. Each comes with what the count must be.

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smartgoban::rules::{
    area_count, chinese_result, propose_dead, unconditionally_alive, Board, Point, DEFAULT_PLAYOUTS,
};

/// A generated end position with a seki, and its count.
struct Seki {
    rows: Vec<String>,
    /// The dead stones (the scattered ones), sorted.
    dead: Vec<Point>,
    /// The stones of both inner chains (alive, in seki).
    in_seki: Vec<Point>,
    black_points: f64,
    white_points: f64,
    dame: u32,
    what: String,
}

fn seki(rng: &mut ChaCha8Rng) -> Seki {
    let n: usize = *[13, 19].choose(rng).unwrap();
    let eyes = n == 19 && rng.random_bool(0.5);
    // widths of the inner white and black chains (columns)
    let (ww, wb) = if eyes {
        (3, 3)
    } else {
        loop {
            let w = (rng.random_range(1..=3), rng.random_range(1..=3));
            if w.0.max(w.1) >= 2 && (n == 19 || w.0 + w.1 <= 3) {
                break w;
            }
        }
    };
    // room for walls and territories of at least 4 columns
    let spare = n - 2 - ww - wb;
    let tb = rng.random_range(4..=spare - 4);
    let wall_b = tb;
    let (w0, w1) = (wall_b + 1, wall_b + ww); // inner white columns
    let (b0, b1) = (w1 + 1, w1 + wb); // inner black columns
    let wall_w = b1 + 1;
    // open territories of 3 or 4 columns along the edges; the walls fill the rest (a finished
    // game's territories are closed and small: a wide open area is no territory yet)
    let (open_b, open_w) = (rng.random_range(3..=4), rng.random_range(3..=4));
    let mut g = vec![vec!['.'; n]; n]; // g[y][x]
    for row in g.iter_mut() {
        for cell in row.iter_mut().take(wall_b + 1).skip(open_b) {
            *cell = 'X';
        }
        for cell in row.iter_mut().take(n - open_w).skip(wall_w) {
            *cell = 'O';
        }
        for cell in row.iter_mut().take(w1 + 1).skip(w0) {
            *cell = 'O';
        }
        for cell in row.iter_mut().take(b1 + 1).skip(b0) {
            *cell = 'X';
        }
    }
    // the territories are pockets of 4 or 5 rows between fences of the walls' colour
    let fence = |y: usize| y % 6 == 5 || (n == 13 && y == 10);
    for (_, row) in g.iter_mut().enumerate().filter(|(y, _)| fence(*y)) {
        for cell in row.iter_mut().take(open_b) {
            *cell = 'X';
        }
        for cell in row.iter_mut().skip(n - open_w) {
            *cell = 'O';
        }
    }
    // the shared liberties: on the top or bottom edge row, in a column of a strip at least two
    // wide that touches the other strip (so that they touch nothing else)
    let shared = if eyes { rng.random_range(1..=2) } else { 2 };
    let mut edges = [0, n - 1];
    edges.shuffle(rng);
    for &y in edges.iter().take(shared) {
        let x = match (ww >= 2, wb >= 2) {
            (true, true) => *[w1, b0].choose(rng).unwrap(),
            (true, false) => w1,
            _ => b0,
        };
        g[y][x] = '.';
    }
    if eyes {
        // one eye in the middle column of each inner chain, off the edge rows
        g[rng.random_range(1..n - 1)][w0 + 1] = '.';
        g[rng.random_range(1..n - 1)][b0 + 1] = '.';
    }
    // dead stones: white in Black's territory, black in White's, off the walls
    let mut dead_at = Vec::new();
    for (colour, cols) in [('O', 0..open_b - 1), ('X', n - open_w + 1..n)] {
        for _ in 0..rng.random_range(1..=3) {
            let (x, y) = (rng.random_range(cols.clone()), rng.random_range(0..n));
            if fence(y) {
                continue;
            }
            g[y][x] = colour;
            dead_at.push((x, y));
        }
    }
    // the expected count (points): the dead stones are every white stone left of Black's wall
    // and every black stone right of White's; each territory is its whole open area
    let stones = |c: char| g.iter().flatten().filter(|&&v| v == c).count();
    let dead_w = count_in(&g, 0..open_b, 'O');
    let dead_b = count_in(&g, n - open_w..n, 'X');
    let eye = usize::from(eyes);
    let fenced = |width: usize| width * (0..n).filter(|&y| !fence(y)).count();
    let dame = shared as u32;
    let black_points = (stones('X') - dead_b + fenced(open_b) + eye) as f64 + f64::from(dame) / 2.0;
    let white_points = (stones('O') - dead_w + fenced(open_w) + eye) as f64 + f64::from(dame) / 2.0;
    // the symmetry
    let sym = rng.random_range(0..8u8);
    let map = |x: usize, y: usize| -> (usize, usize) {
        let (x, y) = if sym & 1 == 1 { (y, x) } else { (x, y) };
        let x = if sym & 2 == 2 { n - 1 - x } else { x };
        let y = if sym & 4 == 4 { n - 1 - y } else { y };
        (x, y)
    };
    let mut t = vec![vec!['.'; n]; n];
    for (y, row) in g.iter().enumerate() {
        for (x, &c) in row.iter().enumerate() {
            let (tx, ty) = map(x, y);
            t[ty][tx] = c;
        }
    }
    let point = |(x, y): (usize, usize)| {
        let (x, y) = map(x, y);
        Point::new(x as u8, y as u8)
    };
    let mut dead: Vec<Point> = dead_at.iter().map(|&xy| point(xy)).collect();
    dead.sort();
    dead.dedup();
    let mut in_seki = Vec::new();
    for (y, row) in g.iter().enumerate() {
        for (x, &c) in row.iter().enumerate() {
            if c != '.' && (w0..=b1).contains(&x) {
                in_seki.push(point((x, y)));
            }
        }
    }
    Seki {
        rows: t.into_iter().map(|r| r.into_iter().collect()).collect(),
        dead,
        in_seki,
        black_points,
        white_points,
        dame,
        what: format!(
            "{n}x{n}, {}, inner white {ww} wide, inner black {wb} wide, {shared} shared liberties, symmetry {sym}",
            if eyes { "an eye each" } else { "no eyes" }
        ),
    }
}

fn count_in(g: &[Vec<char>], cols: std::ops::Range<usize>, c: char) -> usize {
    g.iter()
        .map(|row| row[cols.clone()].iter().filter(|&&v| v == c).count())
        .sum()
}

#[test]
fn stones_in_seki_are_alive_and_their_shared_liberties_are_dame_r21_2() {
    let mut kinds = std::collections::BTreeSet::new();
    for case in 0..40u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(case);
        let s = seki(&mut rng);
        kinds.insert(s.what.split(", symmetry").next().unwrap().to_string());
        let rows: Vec<&str> = s.rows.iter().map(String::as_str).collect();
        let board = Board::from_rows(&rows).unwrap();
        let picture = s.rows.join("\n");
        // Benson's unconditional life never covers a seki (its owner could not pass for ever)
        let safe = unconditionally_alive(&board);
        assert!(
            s.in_seki.iter().all(|p| !safe.contains(p)),
            "case {case} ({}): a seki chain taken as unconditionally alive\n{picture}",
            s.what
        );
        for seed in 0..3 {
            let dead = propose_dead(&board, seed, DEFAULT_PLAYOUTS);
            assert_eq!(
                dead, s.dead,
                "case {case} ({}), seed {seed}: the proposal\n{picture}",
                s.what
            );
        }
        let count = area_count(&board, &s.dead);
        assert_eq!(count.dame, s.dame, "case {case} ({})\n{picture}", s.what);
        assert_eq!(
            (count.black_points(), count.white_points()),
            (s.black_points, s.white_points),
            "case {case} ({})\n{picture}",
            s.what
        );
        // the result in points and in stones (C2: 3¾ stones of komi)
        let size = s.rows.len() as u8;
        let r = chinese_result(&count, size, 7.5, [0, 0]);
        let par = f64::from(size) * f64::from(size) / 2.0;
        assert_eq!(r.margin_stones, s.black_points - par - 3.75, "case {case}");
        assert_eq!(r.margin_points, 2.0 * r.margin_stones, "case {case}");
        let winner = if r.margin_points > 0.0 { "B" } else { "W" };
        assert_eq!(
            r.re,
            format!("{winner}+{}", r.margin_points.abs()),
            "case {case}"
        );
    }
    // the generator covers every kind of seki it knows
    assert!(kinds.len() >= 8, "{kinds:?}");
}
