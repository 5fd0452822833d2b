//! Property: random legal games, played by the virtual players with random noise, are
//! recorded exactly (virtual board → frames → link → stabiliser → referee, without the pty;
//! the pty path is covered by the corpus replays).

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smartgoban::referee::{Policy, RefereeConfig};
use smartgoban::rules::{Color, Game, GameInfo, GameRecord, Point, RecordedMove};
use smartgoban::session::{Session, SessionConfig};
use smartgoban::sim::loopback::{board_stream, feed};
use smartgoban::sim::{NoiseModel, Source};

/// A random legal game: uniformly random legal moves that fill no own single-point eye, now
/// and then a pass (never two in a row, so play goes on).
fn random_game(size: u8, moves: usize, seed: u64) -> GameRecord {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::new(size).unwrap();
    let mut record = GameRecord {
        info: GameInfo::new(size),
        setup: Vec::new(),
        player_to_move: None,
        moves: Vec::new(),
    };
    for _ in 0..moves {
        let color = game.to_move();
        let pass_ok = game.consecutive_passes() == 0;
        let mut candidates: Vec<Point> = game
            .board()
            .empty_points()
            .filter(|&p| !game.board().is_single_point_eye(p, color))
            .filter(|&p| game.preview(color, p).is_ok_and(|pv| pv.repeats.is_none()))
            .collect();
        let point = if candidates.is_empty() || (pass_ok && rng.random_range(0..40) == 0) {
            None
        } else {
            let i = rng.random_range(0..candidates.len());
            Some(candidates.swap_remove(i))
        };
        if point.is_none() && !pass_ok {
            break;
        }
        game.play(color, point).unwrap();
        record.moves.push(RecordedMove::new(color, point));
    }
    record
}

fn noise_model() -> impl Strategy<Value = NoiseModel> {
    prop_oneof![
        Just(NoiseModel::Clean),
        Just(NoiseModel::Realistic),
        Just(NoiseModel::Harsh)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_legal_games_with_random_noise_are_recorded_exactly(
        size in prop_oneof![Just(9u8), Just(13u8), Just(19u8)],
        moves in 10usize..120,
        game_seed in any::<u64>(),
        noise in noise_model(),
        noise_seed in any::<u64>(),
    ) {
        let record = random_game(size, moves, game_seed);
        let source = Source::Record(record.clone());
        let stream = board_stream(&source, noise, noise_seed);
        let config = SessionConfig {
            referee: RefereeConfig { policy: Policy::Rules, ..RefereeConfig::default() },
            ..SessionConfig::default()
        };
        let mut session = Session::new(config, &source.setup()).unwrap();
        feed(&mut session, &stream.bytes, 4096);
        let got: Vec<(Color, Option<Point>)> =
            session.record().moves.iter().map(|m| (m.color, m.point)).collect();
        let want: Vec<(Color, Option<Point>)> =
            record.moves.iter().map(|m| (m.color, m.point)).collect();
        prop_assert_eq!(got, want);
        prop_assert!(session.referee().violations().is_empty(),
            "{:?}", session.referee().violations());
    }
}
