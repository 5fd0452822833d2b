//! Property tests over random playouts (proptest): the invariants of G3–G5 and of the
//! incremental state hold after every move, on 5×5, 9×9, 13×13 and 19×19 boards.
//!
//! * no group on the board is left without liberties (G4 captures it, G5 forbids suicide);
//! * `Board::hash` equals the hash of the same stones set up from scratch;
//! * `Game::undo` restores the exact state before each move;
//! * each side's capture counter equals the stones it removed, and the stones on the board
//!   equal the stones played less the stones captured;
//! * `Game::preview` predicts `Game::play`, and `Board::play` agrees with `Game::play`;
//! * the playout board (`PlayoutBoard`) agrees with `Game::play` and `Board::play` on 9×9,
//!   13×13 and 19×19: the same legality (occupied, suicide G5, simple ko R20.1), the same
//!   captures, the same stones and hash, the same empty points, and its O(1) answers (atari
//!   liberty, chain size, single-point eyes, self-atari, hash after a move) equal the board's
//!   group walks.

use proptest::prelude::*;
use smartgoban::rules::{Board, Color, Game, Illegal, PlayoutBoard, Point};

/// splitmix64, so that one proptest seed drives a whole game.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn rebuilt(board: &Board) -> Board {
    let mut b = Board::new(board.size()).expect("same size");
    for (p, c) in board.stones() {
        b.put(p, Some(c));
    }
    b
}

fn check_invariants(
    game: &Game,
    played: [usize; 2],
    removed: [usize; 2],
) -> Result<(), TestCaseError> {
    let board = game.board();
    for (p, _) in board.stones() {
        prop_assert!(
            board.liberties(p) > 0,
            "group at {:?} has no liberty\n{:?}",
            p,
            board
        );
    }
    let fresh = rebuilt(board);
    prop_assert_eq!(board.hash(), fresh.hash());
    prop_assert_eq!(board, &fresh);
    for c in Color::ALL {
        let i = c as usize;
        prop_assert_eq!(game.captures(c) as usize, removed[i]);
        prop_assert_eq!(
            board.stone_count(c),
            played[i] - removed[1 - i],
            "{:?} stones on the board",
            c
        );
    }
    Ok(())
}

/// Plays `moves` random moves (some passes, some illegal attempts, some out of turn) and checks
/// the invariants after each.
fn random_playout(size: u8, seed: u64, moves: usize) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed);
    let mut game = Game::new(size).expect("supported size");
    let mut played = [0usize; 2];
    let mut removed = [0usize; 2];
    for _ in 0..moves {
        let colour = if rng.below(20) == 0 {
            game.to_move().opposite()
        } else {
            game.to_move()
        };
        let point = if rng.below(30) == 0 {
            None
        } else {
            Some(Point::new(
                rng.below(size as usize) as u8,
                rng.below(size as usize) as u8,
            ))
        };
        let before = game.clone();
        let preview = point.map(|p| game.preview(colour, p));
        match game.play(colour, point) {
            Ok(out) => {
                prop_assert_eq!(out.number, before.move_number() + 1);
                prop_assert_eq!(out.out_of_turn, colour != before.to_move());
                if let Some(p) = point {
                    played[colour as usize] += 1;
                    removed[colour as usize] += out.captured.len();
                    let pv = preview.expect("a point").expect("preview agrees: legal");
                    prop_assert_eq!(&pv.board, game.board());
                    prop_assert_eq!(&pv.captured, &out.captured);
                    prop_assert_eq!(pv.repeats, out.repeats);
                    let mut b = before.board().clone();
                    prop_assert_eq!(b.play(colour, p), Ok(out.captured.clone()));
                    prop_assert_eq!(&b, game.board());
                    if let Some(n) = out.repeats {
                        prop_assert!(n < out.number);
                    }
                }
                // Undo restores exactly, then the move is played again.
                let after = game.clone();
                prop_assert!(game.undo());
                prop_assert_eq!(&game, &before);
                game.play(colour, point).expect("the same move again");
                prop_assert_eq!(&game, &after);
            }
            Err(e) => {
                prop_assert_eq!(&game, &before, "an illegal move changes nothing");
                prop_assert_eq!(preview.expect("a point"), Err(e));
                if let Illegal::Ko(p) = e {
                    prop_assert_eq!(before.ko(), Some(p));
                }
            }
        }
        check_invariants(&game, played, removed)?;
    }
    // Undo all the way back to the empty board.
    while game.undo() {}
    prop_assert_eq!(game, Game::new(size).expect("supported size"));
    Ok(())
}

/// The on-board neighbours of `p`.
fn around(p: Point, size: u8) -> impl Iterator<Item = Point> {
    [(0i8, -1i8), (-1, 0), (1, 0), (0, 1)]
        .into_iter()
        .map(move |(dx, dy)| (p.x as i8 + dx, p.y as i8 + dy))
        .filter(move |&(x, y)| x >= 0 && y >= 0 && x < size as i8 && y < size as i8)
        .map(|(x, y)| Point::new(x as u8, y as u8))
}

/// The one liberty of the chain on `p` by a group walk, if it has exactly one.
fn sole_liberty(board: &Board, p: Point) -> Option<Point> {
    (board.liberties(p) == 1).then(|| {
        board
            .group(p)
            .into_iter()
            .flat_map(|s| around(s, board.size()))
            .find(|&q| board.get(q).is_none())
            .expect("a liberty")
    })
}

/// Every point's answers of the playout board against the board's walks.
fn same_answers(pb: &PlayoutBoard, board: &Board) -> Result<(), TestCaseError> {
    prop_assert_eq!(&pb.to_board(), board);
    prop_assert_eq!(pb.hash(), board.hash());
    let mut empties: Vec<Point> = pb
        .empties()
        .iter()
        .map(|&c| PlayoutBoard::point_of(usize::from(c)))
        .collect();
    empties.sort();
    prop_assert_eq!(empties, board.empty_points().collect::<Vec<_>>());
    for y in 0..board.size() {
        for x in 0..board.size() {
            let q = Point::new(x, y);
            let cell = pb.cell_of(q).expect("on the board");
            let liberty = pb.atari_liberty(cell).map(PlayoutBoard::point_of);
            prop_assert_eq!(liberty, sole_liberty(board, q), "atari at {:?}", q);
            prop_assert_eq!(pb.chain_stones(cell), board.group(q).len());
            for c in Color::ALL {
                prop_assert_eq!(
                    pb.is_single_point_eye(cell, c),
                    board.is_single_point_eye(q, c)
                );
            }
        }
    }
    Ok(())
}

/// Random placements (mostly on empty points; some on any point, some out of turn, some
/// passes) on the playout board and on a [`Game`]: the same legality, captures and ko, and the
/// same answers (every tenth move, and at the end also for a playout board built afresh).
fn playout_board_agrees(size: u8, seed: u64, moves: usize) -> Result<(), TestCaseError> {
    let mut rng = Rng(seed);
    let mut game = Game::new(size).expect("supported size");
    let mut pb = PlayoutBoard::new(size).expect("supported size");
    for turn in 0..moves {
        let colour = if rng.below(8) == 0 {
            game.to_move().opposite()
        } else {
            game.to_move()
        };
        if rng.below(40) == 0 {
            game.pass(colour);
            pb.pass();
            continue;
        }
        let p = if rng.below(6) == 0 || pb.empties().is_empty() {
            Point::new(
                rng.below(size as usize) as u8,
                rng.below(size as usize) as u8,
            )
        } else {
            let k = rng.below(pb.empties().len());
            PlayoutBoard::point_of(usize::from(pb.empties()[k]))
        };
        let cell = pb.cell_of(p).expect("on the board");
        let before = game.board().clone();
        match (pb.check(colour, cell), game.preview(colour, p)) {
            (Ok(placement), Ok(preview)) => {
                prop_assert_eq!(usize::from(placement.captures), preview.captured.len());
                let self_atari = preview.captured.is_empty()
                    && preview.board.liberties(p) == 1
                    && preview.board.group(p).len() > 1;
                prop_assert_eq!(placement.self_atari, self_atari);
                prop_assert_eq!(pb.hash_after(&placement), preview.board.hash());
                let captured: Vec<Point> = pb
                    .apply(placement)
                    .iter()
                    .map(|&c| PlayoutBoard::point_of(usize::from(c)))
                    .collect();
                let out = game.play(colour, Some(p)).expect("legal, as previewed");
                prop_assert_eq!(&captured, &out.captured);
                prop_assert_eq!(out.ko, pb.ko().map(|(c, _)| PlayoutBoard::point_of(c)));
                let mut board = before;
                prop_assert_eq!(board.play(colour, p), Ok(out.captured.clone()));
                prop_assert_eq!(&board, game.board());
            }
            (Err(e), Err(f)) => prop_assert_eq!(e, f),
            (mine, theirs) => prop_assert!(
                false,
                "{:?} at {:?}: playout board {:?}, game {:?}\n{:?}",
                colour,
                p,
                mine.map(|pl| pl.captures),
                theirs.map(|pv| pv.captured),
                game.board()
            ),
        }
        if turn % 10 == 0 {
            same_answers(&pb, game.board())?;
        }
    }
    same_answers(&pb, game.board())?;
    same_answers(&PlayoutBoard::from_board(game.board()), game.board())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn playout_board_9x9(seed in any::<u64>()) {
        playout_board_agrees(9, seed, 300)?;
    }

    #[test]
    fn playout_board_13x13(seed in any::<u64>()) {
        playout_board_agrees(13, seed, 400)?;
    }

    #[test]
    fn playout_board_19x19(seed in any::<u64>()) {
        playout_board_agrees(19, seed, 600)?;
    }

    #[test]
    fn playouts_5x5(seed in any::<u64>()) {
        random_playout(5, seed, 150)?;
    }

    #[test]
    fn playouts_9x9(seed in any::<u64>()) {
        random_playout(9, seed, 250)?;
    }

    #[test]
    fn playouts_13x13(seed in any::<u64>()) {
        random_playout(13, seed, 300)?;
    }

    #[test]
    fn playouts_19x19(seed in any::<u64>()) {
        random_playout(19, seed, 400)?;
    }

    /// GTP and SGF coordinates round-trip on every supported size.
    #[test]
    fn coordinates_round_trip(size in 2u8..=19, x in 0u8..19, y in 0u8..19) {
        let p = Point::new(x % size, y % size);
        prop_assert_eq!(Point::from_gtp(&p.to_gtp(size), size), Ok(p));
        prop_assert_eq!(Point::from_sgf(&p.to_sgf(), size), Ok(p));
        prop_assert_eq!(Point::from_index(p.index(size), size), p);
    }

    /// Coordinate parsing never panics on any text.
    #[test]
    fn coordinate_parsing_never_panics(text in "\\PC{0,6}", size in any::<u8>()) {
        let _ = Point::from_gtp(&text, size);
        let _ = Point::from_sgf(&text, size);
    }
}
