//! The end of the game and the count (G9, C2, R21): the players lift the dead stones, then
//! count on the board — stones lifted in tens, territory filled and rearranged — and none of
//! it is a move or a violation; the result is the agreed count, never the rearranged board's.
//! Life and death disputed, play resumes with the claimant first (R21.4).

use super::*;
use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A real game played to its end (Fox Go Server, 2017, 246 moves, counted W+2 with its
/// dead stones still on the board), from the test fixtures.
const FINISHED_GAME: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/games/yenw-computer-go-dataset/CGI Fox Go Server/",
    "2017.09.24 咆哮 vs CGI (49790172).SGF"
));

/// A referee in play on the final position of [`FINISHED_GAME`], set up as its starting
/// stones, Black to move.
fn final_position() -> Board {
    let record = GameRecord::from_sgf_bytes(FINISHED_GAME).unwrap();
    let mut game =
        Game::with_setup(record.info.size, &record.setup, record.first_to_move()).unwrap();
    for m in &record.moves {
        game.play(m.color, m.point).unwrap();
    }
    let mut setup = GameSetup::from_record(&record);
    setup.setup = game.board().stones().map(|(p, c)| (c, p)).collect();
    setup.first_to_move = B;
    let mut b = Board::new(setup, RefereeConfig::default());
    let size = b.grid.size();
    for (p, c) in game.board().stones() {
        b.set(&p.to_gtp(size), Some(c));
    }
    b.settle();
    assert_eq!(b.r.phase(), Phase::Play);
    b.take_events();
    b
}

fn counts(events: &[EventKind]) -> Vec<(Vec<String>, String, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::Count {
                dead, re, counting, ..
            } => Some((dead.clone(), re.clone(), *counting)),
            _ => None,
        })
        .collect()
}

fn result_re(events: &[EventKind]) -> Option<String> {
    events.iter().find_map(|e| match e {
        EventKind::Result { re, reason, .. } if *reason == "count" => Some(re.clone()),
        _ => None,
    })
}

fn gtp_all(b: &Board, points: &[Point]) -> Vec<String> {
    let size = b.grid.size();
    points.iter().map(|p| p.to_gtp(size)).collect()
}

/// Both pass; the dead stones the LEDs show are lifted a few at a time in a random order;
/// then `colour`'s stones are lifted in tens and put back into its territory and elsewhere,
/// stones of both colours are moved and territory filled, in random gestures. Returns the
/// agreed `RE` (the count once the dead stones were off).
fn count_on_the_board(b: &mut Board, seed: u64) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    b.r.on_pass(B, b.t);
    b.r.on_pass(W, b.t);
    b.drain();
    assert_eq!(b.r.phase(), Phase::Scoring);
    let mut dead = b.r.proposed_dead().to_vec();
    assert!(!dead.is_empty(), "the built-in game ends with dead stones");
    dead.shuffle(&mut rng);
    for chunk in dead.chunks(3) {
        b.lift(
            &gtp_all(b, chunk)
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
    }
    let agreed = counts(&b.take_events())
        .last()
        .map(|(_, re, _)| re.clone())
        .expect("a count after the dead stones were lifted");
    assert!(!b.r.counting(), "lifting dead stones is not yet the count");
    // Count one side (C2): its stones lifted in tens…
    let colour = if seed.is_multiple_of(2) { B } else { W };
    let size = b.grid.size();
    let mut mine: Vec<Point> =
        b.r.game()
            .board()
            .stones()
            .filter(|&(p, c)| c == colour && b.grid.get(p) == Some(c))
            .map(|(p, _)| p)
            .collect();
    mine.shuffle(&mut rng);
    let mut in_hand = 0usize;
    for ten in mine.chunks(10).take(6) {
        b.lift(
            &gtp_all(b, ten)
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
        in_hand += ten.len();
        assert!(b.r.counting(), "stones lifted in tens are the count");
    }
    // …then territory filled and rearranged, stones moved about, by both players.
    for _ in 0..60 {
        let empty: Vec<Point> = (0..usize::from(size) * usize::from(size))
            .map(|k| Point::from_index(k, size))
            .filter(|&p| b.grid.get(p).is_none())
            .collect();
        let stones: Vec<Point> = (0..usize::from(size) * usize::from(size))
            .map(|k| Point::from_index(k, size))
            .filter(|&p| b.grid.get(p).is_some())
            .collect();
        match rng.random_range(0..3) {
            0 if in_hand > 0 => {
                let n = rng.random_range(1..=in_hand.min(10));
                for &p in empty.choose_multiple(&mut rng, n) {
                    b.set(&p.to_gtp(size), Some(colour));
                }
                in_hand -= n;
            }
            1 => {
                // a stone moved
                if let (Some(&from), Some(&to)) = (stones.choose(&mut rng), empty.choose(&mut rng))
                {
                    let c = b.grid.get(from);
                    b.set(&from.to_gtp(size), None);
                    b.set(&to.to_gtp(size), c);
                }
            }
            _ => {
                let c = if rng.random_bool(0.5) { B } else { W };
                if let Some(&p) = empty.choose(&mut rng) {
                    b.set(&p.to_gtp(size), Some(c));
                }
            }
        }
        b.t += 300;
        b.settle();
    }
    agreed
}

#[test]
fn counting_on_the_board_after_a_real_game_is_no_violation_and_the_result_is_the_agreed_count() {
    for seed in 0..8 {
        let mut b = final_position();
        let moves_before = b.r.record().moves.len();
        let agreed = count_on_the_board(&mut b, seed);
        let events = b.take_events();
        assert!(violations(&events).is_empty(), "seed {seed}: {events:?}");
        assert_eq!(b.r.phase(), Phase::Scoring, "seed {seed}");
        assert!(b.r.counting());
        // the count stays the agreed one, whatever the board shows now
        assert!(
            counts(&events).iter().all(|(_, re, _)| *re == agreed),
            "seed {seed}"
        );
        assert_eq!(
            b.r.record().moves.len(),
            moves_before + 2,
            "only the two passes"
        );
        // both players press to sign the count (R21.3)
        b.wait(5_000).clock(B).clock(W);
        let events = b.take_events();
        assert_eq!(b.r.phase(), Phase::Finished, "seed {seed}");
        assert_eq!(result_re(&events), Some(agreed.clone()), "seed {seed}");
        assert_eq!(b.r.record().info.result, Some(agreed));
    }
}

#[test]
fn the_same_gestures_during_play_are_violations() {
    let mut b = final_position();
    // ten stones of a living group lifted before both passed
    let chain: Vec<Point> = {
        let board = b.r.game().board();
        let (p, _) = board
            .stones()
            .max_by_key(|&(p, _)| board.group(p).len())
            .unwrap();
        board.group(p).into_iter().take(10).collect()
    };
    b.lift(
        &gtp_all(&b, &chain)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(!violations(&b.take_events()).is_empty() || b.r.phase() == Phase::Desync);
    assert_ne!(
        b.r.guidance().restore,
        Vec::new(),
        "the LEDs ask for them back"
    );
}

#[test]
fn a_press_just_after_the_second_pass_is_not_agreement() {
    let mut b = final_position();
    b.r.on_pass(B, b.t);
    b.r.on_pass(W, b.t);
    b.clock(W).wait(5_000).clock(B);
    assert_eq!(b.r.phase(), Phase::Scoring);
    b.clock(W);
    assert_eq!(b.r.phase(), Phase::Finished);
    assert!(violations(&b.take_events()).is_empty());
}

#[test]
fn lifting_dead_stones_is_not_yet_the_count_and_a_claimant_moves_first() {
    // R21.4 on the board: White disputes a black area by playing into it although Black is
    // to move: Black's pass is recorded first, no violation.
    let mut b = Board::even(9);
    for row in 1..=9 {
        b.put(&[(B, &format!("D{row}"))]);
        b.put(&[(W, &format!("F{row}"))]);
    }
    b.r.on_pass(B, b.t);
    b.r.on_pass(W, b.t);
    assert_eq!(b.r.phase(), Phase::Scoring);
    b.take_events();
    b.put(&[(W, "B5")]);
    assert_eq!(b.r.phase(), Phase::Play);
    let moves = b.moves();
    assert_eq!(moves[moves.len() - 3..], ["Wpass", "Bpass", "WB5"]);
    assert!(violations(&b.take_events()).is_empty());
    // once stones alive beyond dispute are lifted (the count), a stone put anywhere is the
    // count's filling, not a move
    b.r.on_pass(B, b.t);
    b.r.on_pass(W, b.t);
    assert_eq!(b.r.phase(), Phase::Scoring);
    b.lift(&["F9", "F8"]);
    assert!(b.r.counting());
    b.put(&[(W, "H5")]).put(&[(W, "F9")]).put(&[(B, "A1")]);
    assert_eq!(b.r.phase(), Phase::Scoring);
    assert_eq!(b.moves().last().map(String::as_str), Some("Wpass"));
    assert!(violations(&b.take_events()).is_empty());
}

#[test]
fn a_disputed_count_returns_to_play_with_the_claimant_first_and_the_board_put_back() {
    let mut b = final_position();
    let agreed_seed = 3;
    count_on_the_board(&mut b, agreed_seed);
    assert!(b.r.counting());
    let moves_before = b.r.record().moves.len();
    // Black (to move) would move first; White claims: Black's pass is recorded
    b.r.dispute_count(W).unwrap();
    b.drain();
    assert_eq!(
        b.r.phase(),
        Phase::Desync,
        "the rearranged board must be put back"
    );
    assert!(!b.r.counting());
    assert_eq!(b.r.record().moves.len(), moves_before + 1);
    assert_eq!(b.r.game().to_move(), W);
    assert!(!b.r.guidance().restore.is_empty() || !b.r.guidance().remove.is_empty());
    assert_eq!(
        b.r.dispute_count(B),
        Err(CommandError::WrongPhase("desync"))
    );
}

/// A seki on 9×9 (R21.2): White's chain on column D and Black's on E–F share E9 and E1 and
/// have no eye; a dead white stone on A5 and a dead black one on J5.
const SEKI_9: &str = include_str!("../../../tests/fixtures/positions/seki_9.txt");

/// The rows of [`SEKI_9`], top row first.
fn seki_9() -> Vec<&'static str> {
    SEKI_9.lines().filter(|l| !l.starts_with('#')).collect()
}

#[test]
fn a_seki_is_alive_at_the_count_and_lifting_its_stones_to_count_changes_nothing() {
    let position = crate::rules::Board::from_rows(&seki_9()).unwrap();
    let mut setup = GameSetup::even(9);
    setup.setup = position.stones().map(|(p, c)| (c, p)).collect();
    let mut b = Board::new(setup, RefereeConfig::default());
    for (p, c) in position.stones() {
        b.set(&p.to_gtp(9), Some(c));
    }
    b.settle();
    b.take_events();
    b.r.on_pass(B, b.t);
    b.r.on_pass(W, b.t);
    b.drain();
    let ev = b.take_events();
    let proposed = counts(&ev);
    assert_eq!(proposed.last().unwrap().0, ["A5", "J5"], "the seki lives");
    b.lift(&["A5", "J5"]);
    // counting: the seki's stones lifted, both chains, with the walls
    b.lift(&["D5", "D6", "E5", "E6", "F5", "C5", "G5"]);
    b.wait(5_000).clock(B).clock(W);
    let ev = b.take_events();
    assert!(violations(&ev).is_empty(), "{ev:?}");
    assert_eq!(b.r.phase(), Phase::Finished);
    // Black 25 + 18 + 1 (half of E9 and E1), White 18 + 18 + 1: W by ¼ stone (C2)
    assert_eq!(result_re(&ev).as_deref(), Some("W+0.5"));
    let margin = ev.iter().find_map(|e| match e {
        EventKind::Result { margin_stones, .. } => Some(*margin_stones),
        _ => None,
    });
    assert_eq!(margin, Some(Some(-0.25)));
}
