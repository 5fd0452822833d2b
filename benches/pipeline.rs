//! Scans per second through the service's core path on one core: frame decoding and the link
//! state machine, the stabiliser, the referee and the session — everything the service does
//! with a scan except the syscall that reads it. The input is a whole real game (the built-in
//! Danghu game) as the virtual board sends it.
//!
//! `cargo bench --bench pipeline`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use smartgoban::cli::source::BUILTIN_GAME;
use smartgoban::referee::{Policy, RefereeConfig};
use smartgoban::rules::GameRecord;
use smartgoban::session::{Session, SessionConfig};
use smartgoban::sim::loopback::{board_stream, feed};
use smartgoban::sim::{NoiseModel, Source};

fn session(source: &Source) -> Session {
    let config = SessionConfig {
        referee: RefereeConfig {
            policy: Policy::AcceptAsPlayed,
            ..RefereeConfig::default()
        },
        ..SessionConfig::default()
    };
    Session::new(config, &source.setup()).unwrap()
}

fn bench(c: &mut Criterion) {
    let record = GameRecord::from_sgf_bytes(BUILTIN_GAME).unwrap();
    let moves = record.moves.len() as u32;
    let source = Source::Record(record);
    let mut group = c.benchmark_group("service core");
    for noise in [NoiseModel::Clean, NoiseModel::Realistic, NoiseModel::Harsh] {
        let stream = board_stream(&source, noise, 1);
        let mut check = session(&source);
        feed(&mut check, &stream.bytes, 4096);
        assert_eq!(
            check.state().move_number,
            moves,
            "the pipeline records the game"
        );
        group.throughput(Throughput::Elements(stream.scans));
        group.bench_function(
            format!("whole game, {noise} noise ({} scans)", stream.scans),
            |b| {
                b.iter_batched(
                    || session(&source),
                    |mut s| {
                        feed(&mut s, &stream.bytes, 4096);
                        s
                    },
                    BatchSize::SmallInput,
                )
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
