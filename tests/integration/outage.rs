//! Issue 13, outages of any length: a real game played by quick players (`blitz` noise) and
//! by calmer ones (`realistic` noise), both pressing the clock, on a version-3 board, with the service killed and kept down, or the cable pulled,
//! for 2, 8, 30 and 120 s of board time. The board records what it saw meanwhile
//! (hardware/PROTOCOL.md §14); replayed from its history, the record, the clock readings on
//! each move (BL/WL, periods) and the events are those of an uninterrupted run of the same
//! seed. A board that restarted meanwhile, and a version-2 board, say so in a `link` event and
//! the host judges the board as it lies.
//!
//! The board, the link and the session run in lockstep ([`Lockstep`]): host and board time
//! advance together, so "down for 30 s" is 30 s on both clocks, deterministically.

use smartgoban::event::EventKind;
use smartgoban::link::LinkConfig;
use smartgoban::session::{HistoryStatus, Session, SessionConfig};
use smartgoban::sim::action::{Action, LinkFault, ResetKind, TimedAction};
use smartgoban::sim::board::{BoardConfig, VirtualBoard};
use smartgoban::sim::loopback::Lockstep;
use smartgoban::sim::player::PlayerOptions;
use smartgoban::sim::{NoiseModel, Source};

use crate::support::{moves_with_readings, read_record, root};

/// Iyama Yuta vs Master, 2017: 135 moves with captures, about 150 s of blitz play.
const GAME: &str =
    "tests/fixtures/games/yenw-computer-go-dataset/master/39-2017.01.02-Iyama_Yuta-Master.sgf";

/// When the outage starts, board ms: past the opening, with most of the game to come.
const OUTAGE_AT_MS: u64 = 20_000;

/// How the host loses the board.
#[derive(Clone, Copy, Debug)]
enum Outage {
    /// The service is killed (SIGKILL: only its checkpoint survives) and restarted after this
    /// long.
    Killed(u64),
    /// The data cable is pulled for this long.
    Unplugged(u64),
}

/// What a run leaves: the record with its clock readings, the game's events as a referee
/// reads them (no `seq`, `t_ms` or link events), and the `link` events' history statuses.
struct Run {
    record: Vec<(String, Option<u64>, Option<u32>)>,
    events: Vec<String>,
    links: Vec<(Option<HistoryStatus>, String)>,
    record_len: usize,
}

fn source() -> Source {
    Source::Record(read_record(&root().join(GAME)))
}

/// How the game is played: quick players, or the default (realistic) players; both press
/// the clock.
#[derive(Clone, Copy, Debug)]
enum Play {
    Blitz,
    Calm,
}

fn run(
    play: Play,
    seed: u64,
    outage: Option<Outage>,
    protocol_version: u8,
    board_reset: bool,
) -> Run {
    let source = source();
    let (noise, press_clock) = match play {
        Play::Blitz => (NoiseModel::Blitz, true),
        Play::Calm => (NoiseModel::Realistic, true),
    };
    let params = noise.params();
    let options = PlayerOptions {
        press_clock,
        injection: None,
    };
    let (mut timeline, _) = source.timeline_with(&params, seed, &options);
    if board_reset {
        // the microcontroller restarts halfway through the outage (a brown-out): its history
        // starts again under a new boot id
        let ms = match outage {
            Some(Outage::Killed(ms) | Outage::Unplugged(ms)) => ms,
            None => 0,
        };
        let at_ms = OUTAGE_AT_MS + ms / 2;
        let i = timeline.partition_point(|a| a.at_ms <= at_ms);
        timeline.insert(
            i,
            TimedAction {
                at_ms,
                action: Action::Fault(LinkFault::Reset(ResetKind::Silent)),
            },
        );
    }
    let board = VirtualBoard::new(
        timeline,
        BoardConfig {
            board_size: smartgoban_protocol::BoardSize::NINETEEN,
            seed,
            noise: params,
            device_id: 7,
            protocol_version,
        },
    );
    let mut setup = source.setup();
    if press_clock {
        setup.time = Some("main=10m jp=3x30s".parse().unwrap());
    }
    let session = Session::new(SessionConfig::default(), &setup).unwrap();
    let mut lock = Lockstep::with_board(board, session, LinkConfig::default());
    if let Some(outage) = outage {
        lock.run_until(OUTAGE_AT_MS);
        match outage {
            Outage::Killed(ms) => lock.host_down(ms).unwrap(),
            Outage::Unplugged(ms) => lock.unplug(ms),
        }
    }
    lock.run_to_end();
    // an outage longer than the rest of the game ends after it: the host comes back to a board
    // whose game is played out
    let end = lock.board().board_ms() + 5_000;
    lock.run_until(end);
    let events = lock.events();
    let session = lock.session();
    Run {
        record: moves_with_readings(session.record()),
        events: events
            .iter()
            .filter(|e| !matches!(e.kind, EventKind::Link { .. }))
            .map(|e| serde_json::to_string(&e.kind).unwrap())
            .collect(),
        links: events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Link {
                    history, detail, ..
                } => Some((*history, detail.clone())),
                _ => None,
            })
            .collect(),
        record_len: session.record().moves.len(),
    }
}

fn first_difference(a: &[String], b: &[String]) -> String {
    let i = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    format!(
        "from event #{i}:\n got  {:?}\n want {:?}",
        &a[i..(i + 3).min(a.len())],
        &b[i..(i + 3).min(b.len())]
    )
}

/// Outages as the issue asks, board ms.
const DURATIONS: [u64; 4] = [2_000, 8_000, 30_000, 120_000];

fn check(make: fn(u64) -> Outage) {
    for (play, seed) in [(Play::Blitz, 1), (Play::Blitz, 2), (Play::Calm, 3)] {
        let whole = run(play, seed, None, 3, false);
        assert_eq!(
            whole.record_len, 135,
            "{play:?} seed {seed}: the uninterrupted run is whole"
        );
        assert!(
            whole.record.iter().all(|m| m.1.is_some()),
            "{play:?} seed {seed}: every move has its BL/WL: not {:?}",
            whole
                .record
                .iter()
                .enumerate()
                .filter(|(_, m)| m.1.is_none())
                .map(|(i, m)| (i + 1, &m.0))
                .collect::<Vec<_>>()
        );
        for ms in DURATIONS {
            let outage = make(ms);
            let got = run(play, seed, Some(outage), 3, false);
            if got.record != whole.record {
                let i = got
                    .record
                    .iter()
                    .zip(&whole.record)
                    .position(|(a, b)| a != b);
                panic!(
                    "{play:?} seed {seed}, {outage:?}: record, BL/WL: {} moves of {}, first difference at move {:?}: {:?} for {:?}; links {:?}",
                    got.record.len(),
                    whole.record.len(),
                    i.map(|i| i + 1),
                    i.map(|i| &got.record[i]),
                    i.map(|i| &whole.record[i]),
                    got.links
                );
            }
            assert!(
                got.events == whole.events,
                "{play:?} seed {seed}, {outage:?}: events differ {}",
                first_difference(&got.events, &whole.events)
            );
            assert!(
                got.links.iter().any(|(h, _)| matches!(
                    h,
                    Some(HistoryStatus::Replayed { changes, .. }) if *changes > 0
                )),
                "{play:?} seed {seed}, {outage:?}: the board's history was replayed: {:?}",
                got.links
            );
        }
    }
}

#[test]
fn the_service_killed_for_2_8_30_120_s_replays_the_boards_history_exactly() {
    check(Outage::Killed);
}

#[test]
fn the_cable_pulled_for_2_8_30_120_s_replays_the_boards_history_exactly() {
    check(Outage::Unplugged);
}

/// A board that restarted while the host was away (its boot id changed: its history is of
/// another session) or a version-2 board (no history): the `link` event says why nothing is
/// replayed, and the board is judged as it lies — the moves of the outage in one board, as
/// before version 3 (held or a desync), never a wrong order taken for the right one.
#[test]
fn a_board_that_restarted_or_speaks_version_2_is_said_so_and_judged_as_it_lies() {
    let whole = run(Play::Blitz, 1, None, 3, false);
    let cases = [
        (
            3,
            true,
            Outage::Killed(8_000),
            "the board restarted while the host was away",
        ),
        (2, false, Outage::Killed(8_000), "keeps no history"),
        (2, false, Outage::Unplugged(8_000), "keeps no history"),
    ];
    for (version, reset, outage, why) in cases {
        {
            let got = run(Play::Blitz, 1, Some(outage), version, reset);
            let said: Vec<&String> = got
                .links
                .iter()
                .map(|(_, d)| d)
                .filter(|d| d.contains(why) && d.contains("judged from the board as it now lies"))
                .collect();
            assert!(
                !said.is_empty(),
                "v{version}, reset {reset}, {outage:?}: a link event says why: {:?}",
                got.links
            );
            assert!(
                got.links
                    .iter()
                    .all(|(h, _)| !matches!(h, Some(HistoryStatus::Replayed { .. }))),
                "v{version}: nothing replayed"
            );
            // what was recorded before the outage stands, and nothing recorded is a move the
            // game did not have at that number
            let n = got.record.len().min(whole.record.len());
            let agree = got.record[..n]
                .iter()
                .zip(&whole.record[..n])
                .take_while(|(a, b)| a.0 == b.0)
                .count();
            assert!(
                agree >= 10,
                "v{version}: the moves before the outage are kept"
            );
        }
    }
}
