//! Replaying the board's history after an outage (issue 13, hardware/PROTOCOL.md §14): a whole
//! real game played while the service was down — the built-in Danghu game, realistic noise, the
//! clock pressed, its history as a version-3 board gives it — fed to a session restored at the
//! game's first scan, through the stabiliser and the referee in board time, one scan period at
//! a time. Prints the history's length (board minutes, entries, bytes as the host holds it) and
//! min/median/max replay time over the runs; each run checks the whole game was recorded.
//!
//! `cargo bench --bench history`

use std::time::Instant;

use smartgoban::cli::source::BUILTIN_GAME;
use smartgoban::rules::GameRecord;
use smartgoban::session::{BoardChange, BoardHistory, Input, LinkInfo, Session, SessionConfig};
use smartgoban::sim::player::PlayerOptions;
use smartgoban::sim::{NoiseModel, Source};
use smartgoban_protocol::Cell;

const BOOT: u32 = 0x0b00_7001;

/// A 19×19 board of protocol version 3 (boot [`BOOT`]), its history not asked yet.
fn info() -> LinkInfo {
    LinkInfo {
        protocol_version: 3,
        boot_id: Some(BOOT),
        ..LinkInfo::DEFAULT
    }
}

fn main() {
    let record = GameRecord::from_sgf_bytes(BUILTIN_GAME).unwrap();
    let moves = record.moves.len();
    let source = Source::Record(record);
    let options = PlayerOptions {
        press_clock: true,
        injection: None,
    };
    // the scans the board took; its history of all but the first
    let scans = source.scans(&NoiseModel::Realistic.params(), 1, &options);
    let first = scans[0];
    let history = BoardHistory::of_scans(BOOT, &first, &scans[1..]);
    let last_ms = history.until_ms;
    let since_ms = history.since_ms;
    let minutes = f64::from(last_ms - since_ms) / 60_000.0;
    let bytes = std::mem::size_of::<BoardHistory>()
        + history.changes.len() * std::mem::size_of::<BoardChange>()
        + history.base.len() * std::mem::size_of::<Cell>();
    println!(
        "history: {minutes:.1} min of board time, {} entries ({} readings), {} KiB as the host holds it",
        history.changes.len(),
        history
            .changes
            .iter()
            .filter(|c| matches!(c, BoardChange::Reading { .. }))
            .count(),
        bytes / 1024
    );
    let runs = 7;
    let mut times = Vec::new();
    for _ in 0..runs {
        let mut setup = source.setup();
        setup.time = Some("main=60m jp=3x30s".parse().unwrap());
        let mut s = Session::new(SessionConfig::default(), &setup).unwrap();
        s.handle_input(Input::LinkUp(info()), 0).unwrap();
        s.handle_input(Input::Scan(first), 0).unwrap();
        // the service was up for the board's first scan only
        let checkpoint = s.checkpoint().unwrap();
        let mut s = Session::restore(&checkpoint, None, s.next_seq()).unwrap();
        let h = Box::new(history.clone());
        let t0 = Instant::now();
        s.handle_input(
            Input::LinkResumed {
                info: info(),
                history: h,
            },
            1_000,
        )
        .unwrap();
        let took = t0.elapsed();
        assert_eq!(s.record().moves.len(), moves, "the whole game replayed");
        times.push(took.as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    println!(
        "replay: min {:.3} s, median {:.3} s, max {:.3} s over {runs} runs ({:.1} ms per board minute, median)",
        times[0],
        times[runs / 2],
        times[runs - 1],
        times[runs / 2] * 1000.0 / minutes
    );
}
