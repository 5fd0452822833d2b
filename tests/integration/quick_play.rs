//! Issue 35's reproductions, each from a board script played on the virtual board through the
//! host's link into a session (in lockstep), or through the whole demo: a restart of the board
//! during a quick local fight with presses pending, two stones of one colour hidden under hands
//! in a fight, the record at exit against the feed under four busy loops.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use smartgoban::event::{Event, EventKind};
use smartgoban::link::LinkConfig;
use smartgoban::rules::{Color, GameRecord, Point};
use smartgoban::session::{Session, SessionConfig};
use smartgoban::sim::board::{BoardConfig, VirtualBoard};
use smartgoban::sim::loopback::Lockstep;
use smartgoban::sim::{NoiseModel, Script, Source};

use crate::support::demo_args;

/// `text` played on a board of the current protocol version (with its history) in lockstep
/// with a session under the rules; every event with the board time it went out, and the
/// session at the end.
fn play(text: &str) -> (Vec<(u64, Event)>, Session) {
    let script = Script::parse(text).unwrap();
    let source = Source::Script(script.clone());
    let setup = source.setup();
    let board = VirtualBoard::new(
        script.actions.clone(),
        BoardConfig {
            board_size: smartgoban_protocol::BoardSize::new(setup.size()).unwrap(),
            seed: 1,
            noise: NoiseModel::Clean.params(),
            device_id: 1,
            protocol_version: smartgoban_protocol::PROTOCOL_VERSION,
        },
    );
    let session = Session::new(SessionConfig::default(), &setup).unwrap();
    let mut lock = Lockstep::with_board(board, session, LinkConfig::default());
    lock.run_to_end();
    let mut events: Vec<(u64, Event)> = lock
        .events_board_ms()
        .iter()
        .copied()
        .zip(lock.events().iter().cloned())
        .collect();
    let end = lock.board().board_ms();
    let mut session = lock.into_session();
    events.extend(std::iter::from_fn(|| session.poll_output()).map(|e| (end, e)));
    (events, session)
}

fn moves(session: &Session) -> Vec<String> {
    let size = session.record().info.size;
    session
        .record()
        .moves
        .iter()
        .map(|m| m.short(size))
        .collect()
}

fn penalties(events: &[(u64, Event)]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|(_, e)| match &e.kind {
            EventKind::Violation { code, penalty, .. } => {
                Some((code.to_string(), penalty.to_string()))
            }
            _ => None,
        })
        .collect()
}

/// The record the feed describes ([`smartgoban::sim::fuzz::check::feed_record`]).
fn feed_record(events: &[(u64, Event)], size: u8) -> Vec<(Color, Option<Point>)> {
    smartgoban::sim::fuzz::check::feed_record(events.iter().map(|(_, e)| &e.kind), size)
}

#[test]
fn a_board_restart_during_a_quick_fight_with_presses_pending_costs_nobody_anything() {
    // Four quick moves in a corner fight under the players' hands, each pressed, and the
    // board's microcontroller restarts before any of them was seen clear: its history is lost.
    // The host then sees four new stones at once and had four presses with no stone in view.
    // Nothing there proves a press came before its stone: no warning, no loss; the four moves
    // are recorded (their order from the presses and the scans cannot be known: provisional).
    let (events, session) = play(
        "size 19\ntime main=10m jp=3x30s\n\
         at 1000 place B Q16\nat 1300 clock B\nat 2000 place W D4\nat 2300 clock W\n\
         at 3000 place B C16\nat 3300 clock B\nat 4000 place W E16\nat 4300 clock W\n\
         at 5000 hand D16 2 4000\n\
         at 5200 place B D16\nat 5400 clock B\nat 5700 place W D17\nat 5900 clock W\n\
         at 6200 place B E17\nat 6400 clock B\nat 6700 place W D15\nat 6900 clock W\n\
         at 7200 reset\n\
         at 12000 place B R4\nat 12300 clock B\nat 13000 place W R16\nat 13300 clock W\n",
    );
    let p = penalties(&events);
    assert!(
        p.iter().all(|(_, penalty)| penalty == "notice"),
        "nothing charged: {p:?}"
    );
    assert_eq!(session.referee().warnings(), [0, 0]);
    assert!(session.referee().result().is_none());
    let got = moves(&session);
    assert_eq!(got.len(), 10, "{got:?}");
    assert_eq!(got[..4], ["BQ16", "WD4", "BC16", "WE16"]);
    let mut fight = got[4..8].to_vec();
    fight.sort();
    assert_eq!(fight, ["BD16", "BE17", "WD15", "WD17"], "{got:?}");
    assert_eq!(got[8..], ["BR4", "WR16"]);
    assert_eq!(
        feed_record(&events, 19),
        session
            .record()
            .moves
            .iter()
            .map(|m| (m.color, m.point))
            .collect::<Vec<_>>()
    );
}

#[test]
fn two_stones_of_one_colour_hidden_under_hands_are_provisional_and_play_goes_on_being_recorded() {
    // A hand over a fight hides which of two white stones came first (B between them: both
    // orders give the same position). The likeliest order is recorded at once, the three
    // moves are marked provisional, and every later move is recorded and published as it
    // comes — the broadcast never stands still.
    let mut text = String::from(
        "size 19\n\
         at 1000 place B Q16\nat 2000 place W D4\nat 3000 place B C16\n\
         at 4000 hand D16 2 2000\n\
         at 4200 place W D16\nat 4600 place B C15\nat 5000 place W E16\n",
    );
    let later = ["Q4", "R4", "Q3", "R3", "P4", "O3", "R5", "S5", "Q6", "C3"];
    let mut at = 8000;
    for p in later {
        let c = if at % 2000 == 0 { "B" } else { "W" };
        text.push_str(&format!("at {at} place {c} {p}\n"));
        at += 1000;
    }
    let (events, session) = play(&text);
    let got = moves(&session);
    assert_eq!(got.len(), 16, "{got:?}");
    let mut fight = got[3..6].to_vec();
    fight.sort();
    assert_eq!(fight, ["BC15", "WD16", "WE16"]);
    assert_eq!(got[4], "BC15");
    let provisional = session.referee().provisional().to_vec();
    assert_eq!(provisional.len(), 1);
    assert_eq!(provisional[0].numbers(), 4..=6);
    assert_eq!(provisional[0].orders.len(), 2);
    // each later move went out within 2 s of its stone (the scans: 150 ms to settle)
    for (k, p) in later.iter().enumerate() {
        let number = 7 + k as u32;
        let landed = 8000 + 1000 * k as u64;
        let published = events.iter().find_map(|(t, e)| match &e.kind {
            EventKind::Move {
                number: n, point, ..
            } if *n == number => {
                assert_eq!(point, p);
                Some(*t)
            }
            _ => None,
        });
        let published = published.unwrap_or_else(|| panic!("move {number} never published"));
        assert!(
            published <= landed + 2_000,
            "move {number} published {} ms after its stone",
            published - landed
        );
    }
    assert!(penalties(&events).is_empty(), "{:?}", penalties(&events));
    // the referee picks the other order: the record and the feed follow
    let mut session = session;
    let other = 1 - provisional[0].recorded;
    session
        .handle_input(
            smartgoban::session::Input::Command(smartgoban::session::Command::ChooseOrder {
                first: 4,
                index: other,
            }),
            1_000_000,
        )
        .unwrap();
    let mut all = events;
    all.extend(std::iter::from_fn(|| session.poll_output()).map(|e| (0, e)));
    assert!(session.referee().provisional().is_empty());
    let after = moves(&session);
    assert_eq!(
        (&after[3], &after[4], &after[5]),
        (&got[5], &got[4], &got[3]),
        "the white stones swapped"
    );
    assert_eq!(after[6..], got[6..]);
    assert_eq!(
        feed_record(&all, 19),
        session
            .record()
            .moves
            .iter()
            .map(|m| (m.color, m.point))
            .collect::<Vec<_>>()
    );
    assert!(session
        .referee()
        .record()
        .to_sgf()
        .contains("chosen by the referee"));
}

/// The moves of an SGF file.
fn sgf_moves(path: &std::path::Path) -> Vec<(Color, Option<Point>)> {
    GameRecord::from_sgf_bytes(&std::fs::read(path).unwrap())
        .unwrap()
        .moves
        .iter()
        .map(|m| (m.color, m.point))
        .collect()
}

#[test]
fn the_record_written_at_exit_is_the_feed_even_under_four_busy_loops() {
    // `demo --exit-when-done` with quick players under load: the summary, `--record`, the
    // data directory's `current.sgf` and the moves published on the feed all agree, whatever
    // the service was still doing when the board fell silent; and exit code 3 whenever a move
    // is held or provisional.
    let busy = Arc::new(AtomicBool::new(true));
    let loops: Vec<_> = (0..4)
        .map(|_| {
            let busy = busy.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while busy.load(Ordering::Relaxed) {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                }
                x
            })
        })
        .collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    for seed in [1, 2] {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("out.sgf");
        let events = dir.path().join("events.jsonl");
        let data = dir.path().join("data");
        let mut args = demo_args(None, NoiseModel::Blitz, seed);
        args.record = Some(record.clone());
        args.events = Some(events.clone());
        args.data_dir = Some(data.clone());
        let summary = rt.block_on(smartgoban::cli::demo::run(args)).unwrap();
        let written = sgf_moves(&record);
        let kept: Vec<_> = summary
            .record
            .moves
            .iter()
            .map(|m| (m.color, m.point))
            .collect();
        assert_eq!(written, kept, "seed {seed}: --record is the final record");
        assert_eq!(sgf_moves(&data.join("current.sgf")), kept, "seed {seed}");
        let published: Vec<(u64, Event)> = std::fs::read_to_string(&events)
            .unwrap()
            .lines()
            .map(|l| (0, serde_json::from_str(l).unwrap()))
            .collect();
        assert_eq!(feed_record(&published, 19), kept, "seed {seed}: the feed");
        assert_eq!(summary.snapshot.state.move_number as usize, kept.len());
        let uncertain =
            summary.snapshot.state.held.is_some() || !summary.snapshot.state.provisional.is_empty();
        assert_eq!(
            summary.shortfall().is_some(),
            uncertain || !summary.is_whole_game()
        );
    }
    busy.store(false, Ordering::Relaxed);
    for l in loops {
        l.join().unwrap();
    }
}
