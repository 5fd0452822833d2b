//! Scans per second through the service's core path on one core: frame decoding and the link
//! state machine, the stabiliser, the referee and the session — everything the service does
//! with a scan except the syscall that reads it. The input is a whole real game (the built-in
//! Danghu game) as the virtual board sends it under realistic noise.
//!
//! `cargo bench --bench pipeline`

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use smartgoban::cli::source::BUILTIN_GAME;
use smartgoban::link::{Connection, LinkConfig, LinkEvent};
use smartgoban::rules::GameRecord;
use smartgoban::session::{Input, Session, SessionConfig};
use smartgoban::sim::{NoiseModel, Replay, Source, Tick};
use smartgoban_protocol::{
    encode, BoardSize, Frame, HelloAck, Message, Scan, MAX_FRAME_LEN, PROTOCOL_VERSION,
};

/// The bytes the board sends for the whole game, in 4 KiB reads, and the number of scans.
fn board_stream(noise: NoiseModel) -> (Vec<Vec<u8>>, u64, Source) {
    let record = GameRecord::from_sgf_bytes(BUILTIN_GAME).unwrap();
    let source = Source::Record(record);
    let params = noise.params();
    let mut replay = Replay::new(source.timeline(&params, 1), BoardSize::NINETEEN, &params, 1);
    let mut bytes = vec![0u8];
    let mut buf = [0u8; MAX_FRAME_LEN];
    let mut push = |seq: u8, message: Message, bytes: &mut Vec<u8>| {
        let n = encode(&Frame { seq, message }, &mut buf).unwrap();
        bytes.extend_from_slice(&buf[..n]);
    };
    push(
        0,
        Message::HelloAck(HelloAck {
            protocol_version: PROTOCOL_VERSION,
            accepted: true,
            board_size: BoardSize::NINETEEN,
            scan_rate_hz: 50,
            firmware_version: 1,
            device_id: 1,
        }),
        &mut bytes,
    );
    let mut scans = 0u64;
    while !replay.is_played_out(1_000) {
        if let Tick::Scan {
            board_ms,
            buttons,
            cells,
        } = replay.tick()
        {
            let scan = Scan {
                scan_counter: scans as u32,
                board_ms: board_ms as u32,
                buttons,
                cells,
            };
            push((scans + 1) as u8, Message::Scan(scan), &mut bytes);
            scans += 1;
        }
    }
    let chunks = bytes.chunks(4096).map(<[u8]>::to_vec).collect();
    (chunks, scans, source)
}

/// Runs the whole stream through a fresh connection and session; returns the moves recorded.
fn run(chunks: &[Vec<u8>], source: &Source) -> u32 {
    let mut conn = Connection::new(LinkConfig::default());
    let mut session = Session::new(SessionConfig::default(), &source.setup()).unwrap();
    conn.on_open(0);
    while conn.poll_transmit().is_some() {}
    for (i, chunk) in chunks.iter().enumerate() {
        let now = i as u64;
        conn.handle_bytes(chunk, now);
        while let Some(ev) = conn.poll_event() {
            let input = match ev {
                LinkEvent::Up(info) => Input::LinkUp(info),
                LinkEvent::Scan(scan) => Input::Scan(scan),
                LinkEvent::Down { reason } => Input::LinkDown { reason },
                LinkEvent::Rejected { .. } => continue,
            };
            session.handle_input(input, now).unwrap();
        }
        while session.poll_output().is_some() {}
    }
    session.state().move_number
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("service core");
    for noise in [NoiseModel::Clean, NoiseModel::Realistic] {
        let (chunks, scans, source) = board_stream(noise);
        let record_moves = match &source {
            Source::Record(r) => r.moves.len() as u32,
            Source::Script(_) => 0,
        };
        assert_eq!(
            run(&chunks, &source),
            record_moves,
            "the pipeline records the game"
        );
        group.throughput(Throughput::Elements(scans));
        group.bench_function(
            format!("whole game, {noise:?} noise ({scans} scans)"),
            |b| b.iter_batched(|| (), |()| run(&chunks, &source), BatchSize::SmallInput),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
