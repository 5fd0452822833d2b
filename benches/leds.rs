//! LED frames per second on one core (issue 5: floor 10,000): the session's scene, the
//! renderer, then the bytes for each driver — the WS2812 and APA102 SPI streams (pixels at a
//! moment, chain order, encoding) and the `LedFrame` on the serial wire (COBS, CRC). Positions
//! from the built-in real game: mid-game after move 120 (last move, a capture to lift), and
//! the count of the final position (every empty point lit by its owner).
//!
//! `cargo bench --bench leds`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use smartgoban::cli::source::BUILTIN_GAME;
use smartgoban::devices::leds::{Apa102, ChainEncoding, Ws2812};
use smartgoban::leds::{render, Frame, Layout, LedSettings, Role, Scene};
use smartgoban::referee::{GameSetup, Policy, RefereeConfig};
use smartgoban::rules::{area_map, AreaPoint, Color, Game, GameRecord, Point};
use smartgoban::session::{Session, SessionConfig};
use smartgoban::sim::loopback::{board_stream, feed};
use smartgoban::sim::{NoiseModel, Source};
use smartgoban_protocol::{encode, Frame as WireFrame, Message, MAX_FRAME_LEN};

fn mid_game_session() -> Session {
    let mut record = GameRecord::from_sgf_bytes(BUILTIN_GAME).unwrap();
    record.moves.truncate(120);
    let source = Source::Record(record);
    let config = SessionConfig {
        referee: RefereeConfig {
            policy: Policy::AcceptAsPlayed,
            ..RefereeConfig::default()
        },
        ..SessionConfig::default()
    };
    let mut session = Session::new(config, &source.setup()).unwrap();
    feed(
        &mut session,
        &board_stream(&source, NoiseModel::Clean, 1).bytes,
        4096,
    );
    assert_eq!(session.state().move_number, 120);
    session
}

fn count_scene() -> Scene {
    let record = GameRecord::from_sgf_bytes(BUILTIN_GAME).unwrap();
    let setup = GameSetup::from_record(&record);
    let mut game = Game::with_setup(setup.size(), &setup.setup, setup.first_to_move).unwrap();
    for m in &record.moves {
        game.play(m.color, m.point).unwrap();
    }
    let mut scene = Scene::idle(19, true);
    for (i, share) in area_map(game.board(), &[]).into_iter().enumerate() {
        let role = match share {
            AreaPoint::Stone(_) => continue,
            AreaPoint::Territory(Color::Black) => Role::TerritoryBlack,
            AreaPoint::Territory(Color::White) => Role::TerritoryWhite,
            AreaPoint::Dame => Role::Shared,
        };
        scene.mark(Point::from_index(i, 19), role, None);
    }
    scene
}

/// Everything a driver does with a frame: the bytes for the wire or the SPI bus.
fn encode_all(frame: &Frame, chain: &[usize], out: &mut Vec<u8>, t_ms: u64) -> usize {
    let pixels = frame.pixels_at(t_ms);
    let ordered: Vec<[u8; 3]> = chain.iter().map(|&i| pixels[i]).collect();
    Ws2812.encode(&ordered, out);
    let mut n = out.len();
    Apa102.encode(&ordered, out);
    n += out.len();
    let mut wire = [0u8; MAX_FRAME_LEN];
    n + encode(
        &WireFrame {
            seq: 0,
            message: Message::LedFrame(frame.leds),
        },
        &mut wire,
    )
    .unwrap()
}

fn bench(c: &mut Criterion) {
    let settings = LedSettings::default();
    let chain = Layout::default().chain(19);
    let session = mid_game_session();
    let count = count_scene();
    let mut group = c.benchmark_group("led frame 19x19");
    group.throughput(Throughput::Elements(1));
    let mut out = Vec::with_capacity(4096);
    let mut t = 0u64;
    group.bench_function("mid-game: scene + render + ws2812 + apa102 + wire", |b| {
        b.iter(|| {
            t += 40;
            let frame = render(&session.led_scene(), &settings);
            encode_all(&frame, &chain, &mut out, t)
        })
    });
    group.bench_function("count: render + ws2812 + apa102 + wire", |b| {
        b.iter(|| {
            t += 40;
            let frame = render(&count, &settings);
            encode_all(&frame, &chain, &mut out, t)
        })
    });
    group.bench_function("mid-game: scene + render only", |b| {
        b.iter(|| render(&session.led_scene(), &settings))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
