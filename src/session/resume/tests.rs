//! The board's history replayed after an outage gives exactly the game of a session that was
//! never away: the same record, the same clock readings (BL/WL), the same events.

use super::*;
use crate::event::Event;
use crate::rules::GameRecord;
use crate::session::{Input, SessionConfig};
use crate::sim::player::PlayerOptions;
use crate::sim::{NoiseModel, Source};
use smartgoban_protocol::{ButtonCounters, Scan};

/// The built-in game (`cli::source::BUILTIN_GAME`), read here without the shell.
const BUILTIN_GAME: &[u8] = include_bytes!("../../../assets/games/danghu03.sgf");

const BOOT: u32 = 0x0b00_7001;

/// The scans the virtual board takes for the built-in game with `noise` and `seed`, the
/// players pressing the clock, up to `moves` moves.
fn scans(noise: NoiseModel, seed: u64, moves: usize) -> (Source, Vec<Scan>) {
    let mut record = GameRecord::from_sgf_bytes(BUILTIN_GAME).unwrap();
    record.moves.truncate(moves);
    let source = Source::Record(record);
    let options = PlayerOptions {
        press_clock: true,
        injection: None,
    };
    let scans = source.scans(&noise.params(), seed, &options);
    (source, scans)
}

/// A 19×19 board of protocol version 3 (boot [`BOOT`]), its history not asked yet.
fn info() -> LinkInfo {
    LinkInfo {
        protocol_version: 3,
        boot_id: Some(BOOT),
        ..LinkInfo::DEFAULT
    }
}

fn session(source: &Source) -> Session {
    let mut setup = source.setup();
    setup.time = Some("main=2m jp=3x30s".parse().unwrap());
    Session::new(SessionConfig::default(), &setup).unwrap()
}

/// What the board's history holds for the scans `span` (the changes from one to the next, the
/// presses), from the scan before it, with the live counters `live_buttons`.
fn history_of(before: &Scan, span: &[Scan], live_buttons: ButtonCounters) -> BoardHistory {
    BoardHistory {
        live_buttons,
        ..BoardHistory::of_scans(BOOT, before, span)
    }
}

fn feed(s: &mut Session, scans: &[Scan], host_offset: i64) -> Vec<Event> {
    let mut out = Vec::new();
    for scan in scans {
        let now = (i64::from(scan.board_ms) + host_offset).max(0) as u64;
        s.handle_input(Input::Scan(*scan), now).unwrap();
        out.extend(std::iter::from_fn(|| s.poll_output()));
    }
    out
}

/// The game's events as a referee reads them: kinds without `seq`, `t_ms` and link events.
fn game_events(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter(|e| !matches!(e.kind, EventKind::Link { .. }))
        .map(|e| serde_json::to_string(&e.kind).unwrap())
        .collect()
}

fn record_with_times(s: &Session) -> Vec<(String, Option<u64>, Option<u32>)> {
    s.record()
        .moves
        .iter()
        .map(|m| {
            (
                format!("{}{:?}", m.color.sgf_letter(), m.point),
                m.time_left_ms,
                m.periods_left,
            )
        })
        .collect()
}

/// How the host was away from the board.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Away {
    /// The cable was pulled: the link went down and came back.
    Unplugged,
    /// The service restarted from its last checkpoint.
    Restarted,
    /// The host did not read (a starved service): the board dropped scans and the link filled
    /// the gap from its history without a new handshake (PROTOCOL.md §14.7).
    Starved,
}

/// The uninterrupted run, and a run with an outage over scans `from..to` (the board away; its
/// history of them replayed when it comes back), as `away` says.
fn compare(noise: NoiseModel, seed: u64, from: usize, to: usize, away: Away) {
    let (source, scans) = scans(noise, seed, 120);
    let to = to.min(scans.len() - 1);
    let mut whole = session(&source);
    whole.handle_input(Input::LinkUp(info()), 0).unwrap();
    let mut want = std::iter::from_fn(|| whole.poll_output()).collect::<Vec<_>>();
    want.extend(feed(&mut whole, &scans, 0));

    let mut s = session(&source);
    s.handle_input(Input::LinkUp(info()), 0).unwrap();
    let mut got = std::iter::from_fn(|| s.poll_output()).collect::<Vec<_>>();
    got.extend(feed(&mut s, &scans[..from], 0));
    let lost_at = u64::from(scans[from - 1].board_ms);
    match away {
        Away::Restarted => {
            let checkpoint = s.checkpoint().unwrap();
            s = Session::restore(&checkpoint, None, s.next_seq()).unwrap();
        }
        Away::Unplugged => s
            .handle_input(
                Input::LinkDown {
                    reason: "unplugged".into(),
                },
                lost_at + 1000,
            )
            .unwrap(),
        Away::Starved => {}
    }
    // the board is away: the clock faces run on the host, nothing is judged
    let back_at = u64::from(scans[to].board_ms);
    let mut t = lost_at + 1000;
    while t < back_at {
        s.handle_timeout(t);
        t += 500;
    }
    got.extend(std::iter::from_fn(|| s.poll_output()));
    let links_before = got.len() - game_events(&got).len();
    let history = BoardHistory {
        gap: away == Away::Starved,
        ..history_of(&scans[from - 1], &scans[from..=to], scans[to].buttons)
    };
    s.handle_input(
        Input::LinkResumed {
            info: info(),
            history: Box::new(history),
        },
        back_at,
    )
    .unwrap();
    got.extend(std::iter::from_fn(|| s.poll_output()));
    got.extend(feed(&mut s, &scans[to + 1..], 0));
    let links = got.len() - game_events(&got).len();
    if away == Away::Starved {
        // the link never went down: nothing to tell of it
        assert_eq!(
            links, links_before,
            "{noise} seed {seed}: a link event for a gap"
        );
    }

    let restart = away;
    assert_eq!(
        record_with_times(&s),
        record_with_times(&whole),
        "{noise} seed {seed}, outage {from}..{to}, {restart:?}"
    );
    assert_eq!(s.record().moves.len(), 120);
    let (g, w) = (game_events(&got), game_events(&want));
    if g != w {
        let first = g
            .iter()
            .zip(&w)
            .position(|(a, b)| a != b)
            .unwrap_or(g.len().min(w.len()));
        panic!(
            "{noise} seed {seed}, outage {from}..{to}, {restart:?}: events differ from #{first}:\n got  {:?}\n want {:?}",
            &g[first..(first + 3).min(g.len())],
            &w[first..(first + 3).min(w.len())]
        );
    }
    // the replayed events carry the host time they happened at, in order
    assert!(got.windows(2).all(|p| p[0].t_ms <= p[1].t_ms));
    assert!(got.windows(2).all(|p| p[0].seq < p[1].seq));
}

#[test]
fn an_unplugged_cable_replayed_from_the_boards_history_changes_nothing() {
    for (seed, from, to) in [(1, 2_000, 2_100), (2, 3_000, 5_500), (3, 1_000, 9_000)] {
        compare(NoiseModel::Realistic, seed, from, to, Away::Unplugged);
    }
}

#[test]
fn scans_the_board_dropped_while_the_host_did_not_read_are_filled_from_its_history() {
    // from a gap of one scan to one of 40 s, over moves, captures and presses
    for (seed, from, to) in [(6, 2_000, 2_002), (7, 3_000, 3_050), (8, 1_500, 3_500)] {
        compare(NoiseModel::Realistic, seed, from, to, Away::Starved);
    }
    compare(NoiseModel::Blitz, 9, 2_200, 2_260, Away::Starved);
}

#[test]
fn a_restart_of_the_service_replayed_from_the_boards_history_changes_nothing() {
    for (seed, from, to) in [(4, 2_500, 2_600), (5, 4_000, 7_000)] {
        compare(NoiseModel::Realistic, seed, from, to, Away::Restarted);
    }
}

#[test]
fn a_history_that_does_not_follow_on_is_not_replayed() {
    let (source, scans) = scans(NoiseModel::Clean, 1, 60);
    let mut s = session(&source);
    s.handle_input(Input::LinkUp(info()), 0).unwrap();
    feed(&mut s, &scans[..500], 0);
    s.handle_input(
        Input::LinkDown {
            reason: "unplugged".into(),
        },
        20_000,
    )
    .unwrap();
    // a history from another scan than the session's last
    let history = history_of(&scans[300], &scans[301..=800], scans[800].buttons);
    s.handle_input(
        Input::LinkResumed {
            info: info(),
            history: Box::new(history),
        },
        30_000,
    )
    .unwrap();
    let events: Vec<Event> = std::iter::from_fn(|| s.poll_output()).collect();
    let link = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Link {
                history,
                detail,
                state: LinkState::Connected,
            } => Some((*history, detail.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(link.0, Some(HistoryStatus::NoAnswer), "{}", link.1);
}

#[test]
fn a_board_that_restarted_is_said_so_and_judged_as_it_lies() {
    let (source, scans) = scans(NoiseModel::Clean, 1, 60);
    let mut s = session(&source);
    s.handle_input(Input::LinkUp(info()), 0).unwrap();
    feed(&mut s, &scans[..500], 0);
    assert_eq!(
        s.resume_point(),
        Some(ResumePoint {
            boot_id: BOOT,
            since_ms: scans[499].board_ms
        })
    );
    s.handle_input(
        Input::LinkDown {
            reason: "unplugged".into(),
        },
        20_000,
    )
    .unwrap();
    let restarted = LinkInfo {
        boot_id: Some(BOOT + 1),
        history: HistoryStatus::BoardRestarted { known_boot: BOOT },
        ..info()
    };
    s.handle_input(Input::LinkUp(restarted), 30_000).unwrap();
    let events: Vec<Event> = std::iter::from_fn(|| s.poll_output()).collect();
    let (history, detail) = events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::Link {
                history,
                detail,
                state: LinkState::Connected,
            } => Some((*history, detail.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(history, Some(restarted.history));
    assert!(detail.contains("restarted"), "{detail}");
    // the new boot's scans (its clock from 0) are taken in as after any reconnection
    let later: Vec<Scan> = scans[700..]
        .iter()
        .map(|s| Scan {
            board_ms: s.board_ms - scans[700].board_ms,
            buttons: ButtonCounters::ZERO,
            ..*s
        })
        .collect();
    feed(&mut s, &later, 30_000);
    assert!(s.record().moves.len() >= 8, "{}", s.record().moves.len());
    assert_eq!(
        s.resume_point().map(|r| r.boot_id),
        Some(BOOT + 1),
        "the new boot is where the next history starts"
    );
}

/// Both sides' main time used at the session's board time, ms.
fn main_used(s: &Session) -> u64 {
    let view = s.clock_view().unwrap();
    assert!(!view.black.overtime && !view.white.overtime, "{view:?}");
    2 * 3_600_000 - view.black.main_ms - view.white.main_ms
}

/// A restart of the service while the board kept its history (README "Recovery", issue 13):
/// the outage is replayed as if the service had been up — every move of it in its order, and
/// the clock charged exactly as it would have been, whatever `charge_downtime` says (that
/// setting is for restarts with no history to replay).
#[test]
fn the_outage_is_on_the_clock_as_if_the_service_had_been_up_when_its_history_is_replayed() {
    let (source, scans) = scans(NoiseModel::Realistic, 11, 120);
    let mut setup = source.setup();
    setup.time = Some("main=60m".parse().unwrap());
    let run = |outage: Option<(usize, usize)>| {
        let mut s = Session::new(SessionConfig::default(), &setup).unwrap();
        s.handle_input(Input::LinkUp(info()), 0).unwrap();
        let Some((from, to)) = outage else {
            feed(&mut s, &scans, 0);
            let moves: Vec<String> = record_with_times(&s).into_iter().map(|m| m.0).collect();
            return (moves, main_used(&s));
        };
        feed(&mut s, &scans[..from], 0);
        let checkpoint = s.checkpoint().unwrap();
        s = Session::restore(&checkpoint, None, s.next_seq()).unwrap();
        let history = history_of(&scans[from - 1], &scans[from..=to], scans[to].buttons);
        s.handle_input(
            Input::LinkResumed {
                info: info(),
                history: Box::new(history),
            },
            u64::from(scans[to].board_ms),
        )
        .unwrap();
        let events: Vec<Event> = std::iter::from_fn(|| s.poll_output()).collect();
        assert!(
            events.iter().any(|e| matches!(
                e.kind,
                EventKind::Link {
                    history: Some(HistoryStatus::Replayed { .. }),
                    ..
                }
            )),
            "the history is replayed"
        );
        feed(&mut s, &scans[to + 1..], 0);
        let moves: Vec<String> = record_with_times(&s).into_iter().map(|m| m.0).collect();
        (moves, main_used(&s))
    };
    let (whole_moves, whole_used) = run(None);
    assert!(whole_moves.len() > 20, "a real stretch of the game");
    for outage in [(2_000, 2_400), (2_000, 4_500), (1_000, 5_000)] {
        let (moves, used) = run(Some(outage));
        assert_eq!(
            moves, whole_moves,
            "outage {outage:?}: the same moves, in order"
        );
        assert_eq!(
            used, whole_used,
            "outage {outage:?}: the clocks as if the service had been up"
        );
    }
}

/// Issue 35 (the physical fuzzer, `1-Go_Genius-EsArgo` seed 2 with a clock): a player passes
/// while a hand rests over the board (the press waits for the board around it), and the board
/// restarts before it is judged — its new boot says hello with no link lost in between. The
/// host got the pass before the board went: it is recorded, not dropped with the board's lost
/// history (dropped, the other side's next stone looked out of turn for the rest of the game).
#[test]
fn a_pass_waiting_for_the_board_when_it_restarts_is_recorded() {
    let (source, scans) = scans(NoiseModel::Clean, 1, 20);
    let mut s = session(&source);
    s.handle_input(Input::LinkUp(info()), 0).unwrap();
    feed(&mut s, &scans, 0);
    let before = s.record().moves.clone();
    assert_eq!(before.len(), 20);
    let passer = before[19].color.opposite();
    let last = *scans.last().unwrap();
    // a hand arrives over an empty point and stays; the side to move presses pass under it
    let empty = (0..last.cells.len())
        .find(|&i| last.cells.get(i) == smartgoban_protocol::Cell::Empty)
        .unwrap();
    let mut cells = last.cells;
    cells.set(empty, smartgoban_protocol::Cell::Uncertain);
    let mut buttons = last.buttons;
    let hand: Vec<Scan> = (1..=20u32)
        .map(|k| {
            if k == 10 {
                match passer {
                    Color::Black => buttons.pass_black += 1,
                    Color::White => buttons.pass_white += 1,
                }
            }
            Scan {
                scan_counter: last.scan_counter + k,
                board_ms: last.board_ms + 20 * k,
                buttons,
                cells,
            }
        })
        .collect();
    feed(&mut s, &hand, 0);
    assert_eq!(
        s.record().moves,
        before,
        "the pass waits for the board around it"
    );
    let restarted = LinkInfo {
        boot_id: Some(BOOT + 1),
        history: HistoryStatus::BoardRestarted { known_boot: BOOT },
        ..info()
    };
    s.handle_input(Input::LinkUp(restarted), u64::from(last.board_ms) + 500)
        .unwrap();
    let moves = &s.record().moves;
    assert_eq!(moves.len(), 21, "{moves:?}");
    assert_eq!((moves[20].color, moves[20].point), (passer, None));
}
