//! The count through the whole stack (board script → virtual board → pty → service → API): a
//! real game played to its end, both passes, the dead stones lifted, then the count on the
//! board (G9, C2) — one side's stones lifted in tens, territory filled, stones moved — and
//! both clock presses to sign it (R21.3). No violation, no move, and the result is the count
//! agreed when the dead stones were off. The same at the core: `src/referee/tests/count.rs`.

use std::fmt::Write as _;

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use smartgoban::rules::{propose_dead, Color, Game, GameRecord, Point, DEFAULT_PLAYOUTS};
use smartgoban::sim::NoiseModel;

use crate::support::{of_kind, play_script, rt};

/// A real game played to its end (Fox Go Server, 2017, 246 moves, counted W+2).
const FINISHED_GAME: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/games/yenw-computer-go-dataset/CGI Fox Go Server/",
    "2017.09.24 咆哮 vs CGI (49790172).SGF"
);

fn letter(c: Color) -> char {
    match c {
        Color::Black => 'B',
        Color::White => 'W',
    }
}

/// The script of the whole game, its end and the count on the board, and the number of
/// moves and passes it records.
fn script(seed: u64) -> (String, usize) {
    let record = GameRecord::from_sgf_bytes(&std::fs::read(FINISHED_GAME).unwrap()).unwrap();
    let size = record.info.size;
    let gtp = |p: Point| p.to_gtp(size);
    let mut game = Game::with_setup(size, &record.setup, record.first_to_move()).unwrap();
    let mut s = format!("size {size}\nkomi {}\n", record.info.komi.unwrap_or(0.0));
    let mut t = 0u64;
    let mut recorded = 0;
    for m in &record.moves {
        let outcome = game.play(m.color, m.point).unwrap();
        match m.point {
            Some(p) => writeln!(s, "at {t} place {} {}", letter(m.color), gtp(p)).unwrap(),
            None => writeln!(s, "at {t} pass {}", letter(m.color)).unwrap(),
        }
        if !outcome.captured.is_empty() {
            let points: Vec<String> = outcome.captured.iter().map(|&p| gtp(p)).collect();
            writeln!(s, "at {} remove {}", t + 300, points.join(" ")).unwrap();
        }
        recorded += 1;
        t += 1_000;
    }
    let to_move = game.to_move();
    for c in [to_move, to_move.opposite()] {
        writeln!(s, "at {t} pass {}", letter(c)).unwrap();
        t += 1_000;
        recorded += 1;
    }
    // the dead stones the LEDs show, lifted a few at a time
    let board = game.board();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut dead = propose_dead(board, board.hash(), DEFAULT_PLAYOUTS);
    assert!(!dead.is_empty());
    dead.shuffle(&mut rng);
    for chunk in dead.chunks(3) {
        let points: Vec<String> = chunk.iter().map(|&p| gtp(p)).collect();
        writeln!(s, "at {t} remove {}", points.join(" ")).unwrap();
        t += 1_500;
    }
    // one side's stones lifted in tens, then territory filled, stones moved
    let colour = if seed.is_multiple_of(2) {
        Color::Black
    } else {
        Color::White
    };
    let mut on_board: Vec<(Point, Color)> =
        board.stones().filter(|(p, _)| !dead.contains(p)).collect();
    let mut mine: Vec<Point> = on_board
        .iter()
        .filter(|&&(_, c)| c == colour)
        .map(|&(p, _)| p)
        .collect();
    mine.shuffle(&mut rng);
    let lifted: Vec<Point> = mine.into_iter().take(40).collect();
    for ten in lifted.chunks(10) {
        let points: Vec<String> = ten.iter().map(|&p| gtp(p)).collect();
        writeln!(s, "at {t} remove {}", points.join(" ")).unwrap();
        t += 1_500;
    }
    on_board.retain(|(p, _)| !lifted.contains(p));
    let mut empty: Vec<Point> = (0..usize::from(size) * usize::from(size))
        .map(|k| Point::from_index(k, size))
        .filter(|p| !on_board.iter().any(|(q, _)| q == p))
        .collect();
    for _ in 0..30 {
        empty.shuffle(&mut rng);
        let to = empty.pop().unwrap();
        if rng.random_bool(0.5) {
            writeln!(s, "at {t} place {} {}", letter(colour), gtp(to)).unwrap();
        } else {
            let &(from, c) = on_board.choose(&mut rng).unwrap();
            writeln!(s, "at {t} slide {} {}", gtp(from), gtp(to)).unwrap();
            on_board.retain(|(p, _)| *p != from);
            empty.push(from);
            on_board.push((to, c));
            continue;
        }
        on_board.push((to, colour));
        t += 700;
    }
    t += 5_000;
    writeln!(s, "at {t} clock B").unwrap();
    writeln!(s, "at {} clock W", t + 500).unwrap();
    (s, recorded)
}

#[test]
fn a_whole_count_on_the_virtual_board_after_a_real_game_is_no_violation_and_gives_the_agreed_result(
) {
    for (noise, seed) in [(NoiseModel::Clean, 1), (NoiseModel::Realistic, 2)] {
        let (script, recorded) = script(seed);
        let (events, snapshot) = rt().block_on(play_script(&script, noise, seed));
        let violations = of_kind(&events, "violation");
        assert!(violations.is_empty(), "{noise}: {violations:?}");
        let counts = of_kind(&events, "count");
        let agreed = counts
            .iter()
            .rev()
            .find(|c| c["counting"] == false)
            .expect("a count while the dead stones were lifted");
        let counting: Vec<&&Value> = counts.iter().filter(|c| c["counting"] == true).collect();
        assert_eq!(counting.len(), 1, "{noise}: the count begins once");
        assert_eq!(counting[0]["re"], agreed["re"], "{noise}");
        assert_eq!(counting[0]["dead"], agreed["dead"], "{noise}");
        let result = of_kind(&events, "result");
        assert_eq!(result.len(), 1, "{noise}: {result:?}");
        assert_eq!(result[0]["re"], agreed["re"], "{noise}");
        assert_eq!(result[0]["reason"], "count");
        assert_eq!(snapshot.state.phase, smartgoban::event::Phase::Finished);
        assert_eq!(
            snapshot.state.game.result.as_deref(),
            agreed["re"].as_str(),
            "{noise}"
        );
        assert_eq!(
            snapshot.moves.len(),
            recorded,
            "{noise}: no move from the count"
        );
        assert!(snapshot
            .sgf
            .contains(&format!("RE[{}]", agreed["re"].as_str().unwrap())));
    }
}

/// A seki at the end, through the whole stack (R21.2, G8, G9, C2): White's chain on column D
/// and Black's on E–F share the liberties E9 and E1 and have no eye; the walls on C and G live
/// with their territories, in which a white stone (A5) and a black one (J5) are dead.
const SEKI_9: &str = include_str!("../fixtures/positions/seki_9.txt");

/// The rows of [`SEKI_9`], top row first.
fn seki_9() -> Vec<&'static str> {
    SEKI_9.lines().filter(|l| !l.starts_with('#')).collect()
}

#[test]
fn a_seki_at_the_end_is_alive_its_liberties_are_shared_and_the_result_is_in_stones() {
    let board = smartgoban::rules::Board::from_rows(&seki_9()).unwrap();
    let gtp = |p: Point| p.to_gtp(9);
    let stones = |c: Color| -> Vec<Point> {
        board
            .stones()
            .filter(|&(_, s)| s == c)
            .map(|(p, _)| p)
            .collect()
    };
    // Every final position is reached by alternate placements (each chain on the way is part
    // of a final one, which has a liberty: nothing is captured), White passing where Black has
    // more stones to put down.
    let (black, white) = (stones(Color::Black), stones(Color::White));
    let mut s = String::from("size 9\nkomi 7.5\n");
    let mut t = 0u64;
    let mut recorded = 0;
    for (i, &p) in black.iter().enumerate() {
        writeln!(s, "at {t} place B {}", gtp(p)).unwrap();
        t += 1_000;
        match white.get(i) {
            Some(&q) => writeln!(s, "at {t} place W {}", gtp(q)).unwrap(),
            None => writeln!(s, "at {t} pass W").unwrap(),
        }
        t += 1_000;
        recorded += 2;
    }
    assert!(white.len() <= black.len());
    // White passed last: Black's pass ends the game
    writeln!(s, "at {t} pass B").unwrap();
    recorded += 1;
    t += 3_000;
    writeln!(s, "at {t} remove A5 J5").unwrap();
    t += 3_000;
    writeln!(s, "at {t} clock B").unwrap();
    writeln!(s, "at {} clock W", t + 500).unwrap();
    for (noise, seed) in [(NoiseModel::Clean, 1), (NoiseModel::Realistic, 2)] {
        let (events, snapshot) = rt().block_on(play_script(&s, noise, seed));
        let violations = of_kind(&events, "violation");
        assert!(violations.is_empty(), "{noise}: {violations:?}");
        let counts = of_kind(&events, "count");
        let first = counts.first().expect("a count");
        // the proposal takes the two dead stones only: the seki lives
        assert_eq!(first["dead"], serde_json::json!(["A5", "J5"]), "{noise}");
        let result = of_kind(&events, "result");
        assert_eq!(result.len(), 1, "{noise}: {result:?}");
        let r = &result[0];
        assert_eq!(r["reason"], "count");
        // Black 25 stones + 18 + 1 of the two dame = 44, White 18 + 18 + 1 = 37 (R21.2);
        // 44 against 40½ + 3¾ = 44¼: White by ¼ stone, half a point (C2)
        assert_eq!(
            (r["black_points"].as_f64(), r["white_points"].as_f64()),
            (Some(44.0), Some(37.0)),
            "{noise}"
        );
        assert_eq!(r["margin_stones"].as_f64(), Some(-0.25), "{noise}");
        assert_eq!(r["re"], "W+0.5", "{noise}");
        assert_eq!(snapshot.moves.len(), recorded, "{noise}");
        assert!(snapshot.sgf.contains("RE[W+0.5]"), "{noise}");
    }
}
