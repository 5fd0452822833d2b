//! The host's side of the board's history (PROTOCOL.md §14.5) against the virtual board
//! ([`VirtualBoard`], the board-core ring the firmware runs) and against hand-made frames: the
//! history comes whole and exact after an unplug, a host restart or a host that was down, and
//! through the fault matrix of tests/integration/serial_faults.rs (garbage, a cut frame, a bad
//! CRC) during the transfer; every other outcome falls back to `Up` with the right status; a
//! version-2 board is never asked; and the golden frames of §12 (shared with the protocol crate
//! and the board) go out and come in as written.

use super::tests::{ack, events, frame_bytes, sent, up};
use super::*;
use crate::sim::board::{BoardConfig, Step, VirtualBoard};
use crate::sim::player::SCAN_MS;
use crate::sim::{NoiseModel, Replay, Script};
use smartgoban_protocol::{
    BoardSize, Button, ButtonCounters, Cell, HelloAck, HistoryEntry, PackedCells, Side,
};

/// What the board really saw: every scan (its clock, the readings) and every press.
struct Truth {
    scans: Vec<(u32, PackedCells)>,
    presses: Vec<(u32, Button, Side)>,
}

/// Plays `actions` on the physics alone, as the board does (same seed, same noise).
fn truth(
    actions: &[crate::sim::TimedAction],
    size: BoardSize,
    noise: NoiseModel,
    seed: u64,
) -> Truth {
    let mut t = Truth {
        scans: Vec::new(),
        presses: Vec::new(),
    };
    let mut prev = ButtonCounters::ZERO;
    for scan in
        Replay::new(actions.to_vec(), size, &noise.params(), seed).into_scans(crate::sim::TAIL_MS)
    {
        let d = scan.buttons.presses_since(&prev);
        prev = scan.buttons;
        for (button, side) in ButtonCounters::ORDER {
            for _ in 0..d.get(button, side) {
                t.presses.push((scan.board_ms, button, side));
            }
        }
        t.scans.push((scan.board_ms, scan.cells));
    }
    t
}

/// `t` in (since, until], wrapping (§14.2).
fn in_span(t: u32, since: u32, until: u32) -> bool {
    let d = t.wrapping_sub(since);
    d > 0 && d <= until.wrapping_sub(since)
}

/// The history is exactly what the board saw in (since, until]: its base is the readings at
/// `since`, its point changes give every scan's readings, its presses are every press.
fn check_history(truth: &Truth, h: &BoardHistory) {
    let at_since = truth
        .scans
        .iter()
        .rev()
        .find(|(t, _)| h.since_ms.wrapping_sub(*t) < 1 << 31)
        .map(|(_, c)| c.iter().collect::<Vec<Cell>>());
    assert_eq!(Some(&h.base), at_since.as_ref(), "base at {}", h.since_ms);
    let mut cells = h.base.clone();
    let mut changes = h.changes.iter().peekable();
    let mut presses = Vec::new();
    let mut scans = 0;
    for (t, scan) in truth
        .scans
        .iter()
        .filter(|(t, _)| in_span(*t, h.since_ms, h.until_ms))
    {
        while let Some(c) =
            changes.next_if(|c| c.board_ms().wrapping_sub(h.since_ms) <= t.wrapping_sub(h.since_ms))
        {
            match *c {
                BoardChange::Reading {
                    board_ms,
                    index,
                    cell,
                } => {
                    assert_eq!(board_ms, *t, "a reading changes at a scan's time");
                    cells[usize::from(index)] = cell;
                }
                BoardChange::Press {
                    board_ms,
                    button,
                    side,
                } => presses.push((board_ms, button, side)),
            }
        }
        assert_eq!(
            cells,
            scan.iter().collect::<Vec<_>>(),
            "readings of the scan at {t}"
        );
        scans += 1;
    }
    assert!(changes.next().is_none(), "changes after the span");
    let want: Vec<_> = truth
        .presses
        .iter()
        .copied()
        .filter(|p| in_span(p.0, h.since_ms, h.until_ms))
        .collect();
    assert_eq!(presses, want, "presses");
    assert!(scans > 0);
}

/// What a host does to the bytes from the board (a fault on the wire), given whether the
/// history exchange is under way.
type Wire = Box<dyn FnMut(Vec<u8>, bool) -> Vec<u8>>;

/// A version-3 virtual board and the host's link, in lockstep; the test plays the session's
/// part: it keeps the resume point (the boot it was told and the last scan it took in).
struct Rig {
    board: VirtualBoard,
    conn: Connection,
    now: u64,
    boot: Option<u32>,
    last_ms: Option<u32>,
    host_up: bool,
    events: Vec<LinkEvent>,
    wire: Option<Wire>,
}

impl Rig {
    fn new(
        actions: Vec<crate::sim::TimedAction>,
        size: BoardSize,
        noise: NoiseModel,
        seed: u64,
        version: u8,
    ) -> Rig {
        let board = VirtualBoard::new(
            actions,
            BoardConfig {
                board_size: size,
                seed,
                noise: noise.params(),
                device_id: 7,
                protocol_version: version,
            },
        );
        let mut conn = Connection::new(LinkConfig::default());
        conn.on_open(0);
        let mut rig = Rig {
            board,
            conn,
            now: 0,
            boot: None,
            last_ms: None,
            host_up: true,
            events: Vec::new(),
            wire: None,
        };
        rig.exchange();
        rig
    }

    fn resume(&self) -> Option<ResumePoint> {
        Some(ResumePoint {
            boot_id: self.boot?,
            since_ms: self.last_ms?,
        })
    }

    fn step(&mut self) {
        if self.board.streaming() {
            match self.board.tick(self.host_up) {
                Step::Unplug { duration_ms, .. } => {
                    self.board.unplug(duration_ms);
                    self.conn.on_close("unplugged");
                    self.take_events();
                    self.now += duration_ms;
                    self.conn.on_open(self.now);
                }
                Step::Silence { duration_ms } => {
                    // The board plays on without a word; the host times out and says Hello,
                    // which the board reads afterwards.
                    self.board.silence(duration_ms);
                    let mut to_board = Vec::new();
                    let until = self.now + duration_ms;
                    while self.now < until {
                        self.now += SCAN_MS;
                        self.conn.handle_timeout(self.now);
                        self.take_events();
                        to_board.extend(std::iter::from_fn(|| self.conn.poll_transmit()).flatten());
                    }
                    self.board.handle_bytes(&to_board);
                }
                Step::Scanned { .. } | Step::Fault(_) => {}
            }
        }
        self.now += SCAN_MS;
        self.exchange();
    }

    fn exchange(&mut self) {
        let bytes = self.board.take_output();
        if !self.host_up {
            return;
        }
        let pending = self.conn.history_pending();
        let bytes = match &mut self.wire {
            Some(wire) => wire(bytes, pending),
            None => bytes,
        };
        self.conn.handle_bytes(&bytes, self.now);
        if self.conn.poll_timeout().is_some_and(|t| t <= self.now) {
            self.conn.handle_timeout(self.now);
        }
        self.take_events();
        let out: Vec<u8> = std::iter::from_fn(|| self.conn.poll_transmit())
            .flatten()
            .collect();
        self.board.handle_bytes(&out);
    }

    fn take_events(&mut self) {
        while let Some(ev) = self.conn.poll_event() {
            match &ev {
                LinkEvent::Up(info) => self.boot = info.boot_id.or(self.boot),
                LinkEvent::Resumed { info, history } => {
                    self.boot = info.boot_id;
                    self.last_ms = Some(history.until_ms);
                }
                LinkEvent::Scan(scan) => self.last_ms = Some(scan.board_ms),
                _ => {}
            }
            self.events.push(ev);
        }
        self.conn.set_resume_point(self.resume());
    }

    fn run_until(&mut self, board_ms: u64) {
        let give_up = self.now + 120_000;
        while self.board.board_ms() < board_ms && self.now < give_up {
            self.step();
        }
    }

    /// The host service is killed now and starts again `down_ms` later with what the session
    /// kept (its resume point); the board plays on meanwhile.
    fn host_down(&mut self, down_ms: u64) {
        self.host_up = false;
        let until = self.now + down_ms;
        while self.now < until {
            self.step();
        }
        self.host_up = true;
        self.conn = Connection::new(LinkConfig::default());
        self.conn.set_resume_point(self.resume());
        self.conn.on_open(self.now);
        self.exchange();
    }

    /// The host does not read for `ms` (a starved service: no bytes taken in, no timer run);
    /// the board drops the scans it cannot send and keeps the rest of its output waiting.
    fn host_starved(&mut self, ms: u64) {
        let until = self.now + ms;
        let mut waiting = Vec::new();
        while self.now < until {
            if let Step::Scanned { .. } = self.board.tick(false) {}
            waiting.extend(self.board.take_output());
            self.now += SCAN_MS;
        }
        self.conn.handle_bytes(&waiting, self.now);
        self.exchange();
    }

    fn resumed(&self) -> Vec<(usize, &LinkInfo, &BoardHistory)> {
        self.events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                LinkEvent::Resumed { info, history } => Some((i, info, history.as_ref())),
                _ => None,
            })
            .collect()
    }

    fn ups(&self) -> Vec<LinkInfo> {
        self.events
            .iter()
            .filter_map(|e| match e {
                LinkEvent::Up(info) => Some(*info),
                _ => None,
            })
            .collect()
    }
}

/// A 9×9 game with presses, an unplug of 5 s in the middle (moves and presses during it), and
/// a silent link.
const UNPLUG_GAME: &str = "size 9\n\
    at 0     place B E5\n\
    at 300   clock B\n\
    at 800   place W C3\n\
    at 1100  clock W\n\
    at 2000  unplug 5000\n\
    at 2500  place B G7\n\
    at 2900  clock B\n\
    at 3600  hand C7 1 600\n\
    at 4400  place W C7\n\
    at 4700  clock W\n\
    at 6000  place B G3\n\
    at 6300  clock B\n\
    at 8000  place W D7\n\
    at 8400  clock W\n\
    at 9000  silence 2000\n\
    at 9500  place B F3\n\
    at 9800  clock B\n\
    at 12000 place W B7\n";

fn script(text: &str) -> Script {
    Script::parse(text).unwrap()
}

#[test]
fn an_unplugged_cable_is_followed_by_exactly_the_boards_history_and_then_the_live_scans() {
    let s = script(UNPLUG_GAME);
    let (size, noise, seed) = (BoardSize::NINE, NoiseModel::Realistic, 11);
    let truth = truth(&s.actions, size, noise, seed);
    let mut rig = Rig::new(s.actions, size, noise, seed, 3);
    rig.run_until(20_000);
    // The first handshake: no resume point yet, so nothing asked; the board tells its boot.
    let ups = rig.ups();
    assert_eq!(ups[0].history, HistoryStatus::NotAsked);
    assert_eq!(ups[0].protocol_version, 3);
    assert_eq!(ups[0].boot_id, rig.board.boot_id());
    // The unplug and the silence: each followed by the history, whole.
    let resumed = rig.resumed();
    assert_eq!(resumed.len(), 2, "{:?}", rig.ups());
    for &(i, info, h) in &resumed {
        check_history(&truth, h);
        assert_eq!(info.boot_id, Some(h.boot_id));
        assert!(matches!(info.history, HistoryStatus::Replayed { .. }));
        // Then only live scans after the span, the first one right after it.
        let next = rig.events[i + 1..].iter().find_map(|e| match e {
            LinkEvent::Scan(s) => Some(*s),
            _ => None,
        });
        let next = next.expect("live scans after the history");
        assert_eq!(next.board_ms, h.until_ms + SCAN_MS as u32);
        // The live counters count from the history's baseline: the first live scan after it
        // has no press of its own.
        assert_eq!(
            next.buttons.presses_since(&h.live_buttons),
            ButtonCounters::ZERO
        );
    }
    // The presses during the unplug are in the first history: B's clock at 2900, W's at 4700,
    // B's at 6300.
    let presses: Vec<u32> = resumed[0]
        .2
        .changes
        .iter()
        .filter_map(|c| match c {
            BoardChange::Press { board_ms, .. } => Some(*board_ms),
            _ => None,
        })
        .collect();
    assert_eq!(presses, [2900, 4700, 6300]);
    assert_every_scan_covered_once(&truth, &rig.events);
    let stats = rig.conn.stats();
    // The silence drew several Hellos, each answered: each handshake asked again.
    assert!(stats.histories_asked >= 2, "{stats:?}");
    assert_eq!((stats.histories_replayed, stats.history_fallbacks), (2, 0));
}

/// Every scan the board took reaches the session once, in order: live, or in a history.
fn assert_every_scan_covered_once(truth: &Truth, events: &[LinkEvent]) {
    let mut covered: Vec<u32> = Vec::new();
    for e in events {
        match e {
            LinkEvent::Scan(s) => covered.push(s.board_ms),
            LinkEvent::Resumed { history, .. } => covered.extend(
                truth
                    .scans
                    .iter()
                    .map(|s| s.0)
                    .filter(|&t| in_span(t, history.since_ms, history.until_ms)),
            ),
            _ => {}
        }
    }
    let last_truth = truth.scans.last().unwrap().0;
    covered.retain(|&t| t <= last_truth);
    let all: Vec<u32> = truth.scans.iter().map(|s| s.0).collect();
    assert_eq!(covered, all);
}

#[test]
fn scans_dropped_while_the_host_did_not_read_come_from_the_history_without_a_new_handshake() {
    let s = script(UNPLUG_GAME);
    let (size, noise, seed) = (BoardSize::NINE, NoiseModel::Realistic, 2);
    let truth = truth(&s.actions, size, noise, seed);
    let mut rig = Rig::new(s.actions, size, noise, seed, 3);
    rig.run_until(700);
    // starved across W's stone at 800 and its press at 1100, then again for one scan
    rig.host_starved(600);
    rig.run_until(1_500);
    rig.host_starved(SCAN_MS);
    rig.run_until(20_000);
    let resumed = rig.resumed();
    // the two gaps, then the unplug and the silence of the game
    assert_eq!(resumed.len(), 4, "{:?}", rig.ups());
    for (_, _, h) in &resumed {
        check_history(&truth, h);
    }
    let gap = resumed[0].2;
    assert!(
        gap.changes
            .iter()
            .any(|c| matches!(c, BoardChange::Press { board_ms: 1100, .. })),
        "W's press is in the first gap's history: {:?}",
        gap.changes
    );
    assert_every_scan_covered_once(&truth, &rig.events);
    // one handshake before the unplug: the gaps were filled within its session
    let unplugged = rig
        .events
        .iter()
        .position(|e| matches!(e, LinkEvent::Down { .. }))
        .unwrap();
    let ups_before_unplug = rig.events[..unplugged]
        .iter()
        .filter(|e| matches!(e, LinkEvent::Up(_) | LinkEvent::Resumed { .. }))
        .count();
    assert_eq!(
        ups_before_unplug, 3,
        "the first Up and the two gaps' histories"
    );
    assert!(resumed[1].0 < unplugged);
    let stats = rig.conn.stats();
    assert_eq!(
        (stats.gaps_filled, stats.gaps_unfilled),
        (2, 0),
        "{stats:?}"
    );
}

#[test]
fn a_gap_on_a_version_2_board_stays_a_gap() {
    let s = script(UNPLUG_GAME);
    let (size, noise, seed) = (BoardSize::NINE, NoiseModel::Clean, 2);
    let mut rig = Rig::new(s.actions, size, noise, seed, 2);
    rig.run_until(700);
    rig.host_starved(600);
    rig.run_until(1_500);
    assert!(rig.resumed().is_empty());
    assert!(!rig.conn.history_pending());
    let stats = rig.conn.stats();
    assert_eq!(
        (stats.gaps_filled, stats.gaps_unfilled),
        (0, 1),
        "{stats:?}"
    );
    // the scans after the gap went on at once
    let last = rig.events.iter().rev().find_map(|e| match e {
        LinkEvent::Scan(s) => Some(s.board_ms),
        _ => None,
    });
    assert!(
        last.is_some_and(|t| t + 2 * SCAN_MS as u32 >= 1_500),
        "{last:?}"
    );
}

#[test]
fn a_host_restarted_or_down_for_a_while_gets_the_history_of_its_absence() {
    let s = script(UNPLUG_GAME);
    let (size, noise, seed) = (BoardSize::NINE, NoiseModel::Harsh, 5);
    let truth = truth(&s.actions, size, noise, seed);
    let mut rig = Rig::new(s.actions, size, noise, seed, 3);
    rig.run_until(500);
    rig.host_down(0); // killed and restarted at once
    rig.run_until(1_000);
    rig.host_down(900); // down across W's move at 800… and B's clock
    rig.run_until(15_000);
    let resumed = rig.resumed();
    assert!(resumed.len() >= 4, "{}", resumed.len()); // 2 restarts, the unplug, the silence
    for (_, _, h) in &resumed {
        check_history(&truth, h);
    }
}

/// Frames of a byte stream (each ending in its 0x00), and whether each is a history frame.
fn frames(bytes: &[u8]) -> Vec<(Vec<u8>, Option<u8>)> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    for &b in bytes {
        cur.push(b);
        if b == 0 {
            let kind = FrameDecoder::new()
                .frames(&cur)
                .next()
                .and_then(Result::ok)
                .map(|f| f.message.kind().as_u8());
            out.push((std::mem::take(&mut cur), kind));
        }
    }
    if !cur.is_empty() {
        out.push((cur, None));
    }
    out
}

#[test]
fn the_history_comes_whole_through_garbage_cut_frames_and_bad_crcs() {
    // A hand over most of a 19×19 board for 6 s while the cable is out: thousands of entries,
    // many windows of chunks.
    let text = "size 19\n\
        at 0     place B Q16\n\
        at 500   place W D4\n\
        at 1000  unplug 8000\n\
        at 1200  hand K10 8 6000\n\
        at 7500  place B Q4\n\
        at 7800  clock B\n\
        at 11000 place W D16\n";
    let s = script(text);
    let (size, noise, seed) = (BoardSize::NINETEEN, NoiseModel::Realistic, 3);
    let truth = truth(&s.actions, size, noise, seed);
    let mut rig = Rig::new(s.actions, size, noise, seed, 3);
    let mut n = 0u32;
    rig.wire = Some(Box::new(move |bytes, pending| {
        if !pending {
            return bytes;
        }
        let mut out = Vec::new();
        for (frame, kind) in frames(&bytes) {
            let history = matches!(kind, Some(0x07 | 0x08));
            if !history {
                out.extend(frame);
                continue;
            }
            n += 1;
            match n % 7 {
                1 if n < 40 => {} // lost
                3 => {
                    let mut bad = frame.clone();
                    bad[frame.len() / 2] ^= 0x21; // corrupted: CRC or COBS
                    out.extend(bad);
                }
                5 => out.extend(&frame[..frame.len() / 2]), // cut: merges with the next
                6 => {
                    out.extend([0x13, 0x37, 0xFF, 0x00]); // line noise, then the frame
                    out.extend(frame);
                }
                _ => out.extend(frame),
            }
        }
        out
    }));
    rig.run_until(30_000);
    let resumed = rig.resumed();
    let stats = rig.conn.stats();
    // the unplug's history; and a live scan merged with a cut frame is a gap, filled too
    assert_eq!(
        resumed.len() as u64,
        1 + stats.gaps_filled,
        "{:?}",
        rig.ups()
    );
    let h = resumed[0].2;
    assert!(h.changes.len() > 2_000, "{} changes", h.changes.len());
    for (_, _, h) in &resumed {
        check_history(&truth, h);
    }
    assert_every_scan_covered_once(&truth, &rig.events);
    assert!(stats.history_repulls > 0, "{stats:?}");
    assert!(stats.history_reopens > 0, "{stats:?}");
    assert!(stats.crc_errors + stats.cobs_errors > 0, "{stats:?}");
    assert_eq!(stats.history_fallbacks, 0);
}

#[test]
fn a_version_2_board_is_never_asked() {
    let s = script(UNPLUG_GAME);
    let mut rig = Rig::new(s.actions, BoardSize::NINE, NoiseModel::Clean, 1, 2);
    rig.run_until(12_000);
    assert!(rig.resumed().is_empty());
    let ups = rig.ups();
    assert!(ups.len() >= 3);
    for up in ups {
        assert_eq!(
            (up.protocol_version, up.boot_id, up.history),
            (2, None, HistoryStatus::NotAsked)
        );
    }
    assert_eq!(rig.conn.stats().histories_asked, 0);
    assert!(rig.board.history().is_none());
    // And no Open ever went out: a v2 session with a resume point set.
    let mut c = up(2);
    c.set_resume_point(Some(ResumePoint {
        boot_id: 9,
        since_ms: 100,
    }));
    c.handle_bytes(&frame_bytes(1, ack(2, true)), 5);
    assert!(
        matches!(&events(&mut c)[..], [LinkEvent::Up(i)] if i.history == HistoryStatus::NotAsked && i.protocol_version == 2)
    );
    assert!(!sent(&mut c)
        .iter()
        .any(|m| matches!(m, Message::HistoryOpen(_))));
}

#[test]
fn a_board_that_restarted_falls_back_with_its_new_boot() {
    let text = "size 9\n\
        at 0     place B E5\n\
        at 500   place W C3\n\
        at 1000  reset\n\
        at 1500  place B G7\n";
    let s = script(text);
    let mut rig = Rig::new(s.actions, BoardSize::NINE, NoiseModel::Clean, 2, 3);
    let first_boot = rig.board.boot_id().unwrap();
    rig.run_until(4_000);
    let ups = rig.ups();
    assert_eq!(ups.len(), 2, "{ups:?}");
    assert_eq!(ups[0].boot_id, Some(first_boot));
    let new_boot = rig.board.boot_id().unwrap();
    assert_ne!(new_boot, first_boot);
    assert_eq!(ups[1].boot_id, Some(new_boot));
    assert_eq!(
        ups[1].history,
        HistoryStatus::BoardRestarted {
            known_boot: first_boot
        }
    );
    assert_eq!(rig.conn.stats().history_fallbacks, 1);
}

// ---- hand-made frames -----------------------------------------------------------------------

fn ack3() -> Message {
    ack(3, true)
}

fn info(
    status: InfoStatus,
    since_ms: u32,
    until_ms: u32,
    entries: u32,
    oldest_ms: u32,
) -> HistoryInfo {
    let mut i = HistoryInfo::refused(
        status,
        77,
        since_ms,
        until_ms,
        oldest_ms,
        ButtonCounters::ZERO,
        BoardSize::NINE,
    );
    i.entries = entries;
    i
}

fn scan_at(counter: u32, board_ms: u32) -> Message {
    Message::Scan(Scan {
        scan_counter: counter,
        board_ms,
        buttons: ButtonCounters::default(),
        cells: PackedCells::new(BoardSize::NINE),
    })
}

/// A connection that just accepted a version-3 board, with resume point `resume`.
fn v3(resume: Option<ResumePoint>) -> Connection {
    let mut c = Connection::new(LinkConfig::default());
    c.set_resume_point(resume);
    c.on_open(0);
    sent(&mut c);
    c.handle_bytes(&frame_bytes(0, ack3()), 10);
    c
}

const KNOWN: Option<ResumePoint> = Some(ResumePoint {
    boot_id: 77,
    since_ms: 1_000,
});

#[test]
fn every_other_answer_falls_back_to_up_with_its_reason_and_all_held_scans() {
    // No resume point: boot 0 asked, NotAsked, the boot learnt.
    let mut c = v3(None);
    assert!(matches!(
        &sent(&mut c)[..],
        [Message::HistoryOpen(HistoryOpen {
            boot_id: 0,
            since_ms: 0
        })]
    ));
    c.handle_bytes(&frame_bytes(1, scan_at(0, 5_000)), 20);
    assert!(events(&mut c).is_empty(), "held back");
    c.handle_bytes(
        &frame_bytes(
            2,
            Message::HistoryInfo(info(InfoStatus::NotAsked, 0, 5_000, 0, 10)),
        ),
        25,
    );
    let ev = events(&mut c);
    assert!(
        matches!(&ev[..], [LinkEvent::Up(i), LinkEvent::Scan(_)] if i.history == HistoryStatus::NotAsked && i.boot_id == Some(77)),
        "{ev:?}"
    );
    assert_eq!(c.stats().history_fallbacks, 0);
    // Another boot.
    let mut c = v3(Some(ResumePoint {
        boot_id: 5,
        since_ms: 1_000,
    }));
    c.handle_bytes(
        &frame_bytes(
            1,
            Message::HistoryInfo(info(InfoStatus::OtherBoot, 1_000, 3_000, 0, 0)),
        ),
        25,
    );
    assert!(
        matches!(&events(&mut c)[..], [LinkEvent::Up(i)] if i.history == HistoryStatus::BoardRestarted { known_boot: 5 } && i.boot_id == Some(77))
    );
    assert_eq!(c.stats().history_fallbacks, 1);
    // Overwritten.
    let mut c = v3(KNOWN);
    c.handle_bytes(
        &frame_bytes(
            1,
            Message::HistoryInfo(info(InfoStatus::Lost, 1_000, 9_000, 0, 4_000)),
        ),
        25,
    );
    assert!(
        matches!(&events(&mut c)[..], [LinkEvent::Up(i)] if i.history == HistoryStatus::Lost { oldest_ms: 4_000 })
    );
    // No answer: 10 Opens 200 ms apart, given up 200 ms after the last; the held scans follow.
    let mut c = v3(KNOWN);
    let mut opens = 0;
    let mut t = 10;
    let mut counter = 0;
    let mut up_at = None;
    while t < 3_000 && up_at.is_none() {
        opens += sent(&mut c)
            .iter()
            .filter(
                |m| matches!(m, Message::HistoryOpen(o) if o.boot_id == 77 && o.since_ms == 1_000),
            )
            .count();
        c.handle_bytes(
            &frame_bytes(counter as u8 + 1, scan_at(counter, 2_000 + 20 * counter)),
            t,
        );
        counter += 1;
        t += 20;
        c.handle_timeout(t);
        let ev = events(&mut c);
        if let Some(LinkEvent::Up(i)) = ev.first() {
            assert_eq!(i.history, HistoryStatus::NoAnswer);
            assert_eq!(i.boot_id, None);
            assert_eq!(ev.len() as u32, 1 + counter, "every held scan");
            up_at = Some(t);
        } else {
            assert!(ev.is_empty(), "{ev:?}");
        }
    }
    assert_eq!(opens, 10);
    assert_eq!(up_at, Some(10 + 2_000));
    assert_eq!(c.stats().history_reopens, 9);
    // Wrong answers do not end the wait: another since, a chunk before any Info.
    let mut c = v3(KNOWN);
    c.handle_bytes(
        &frame_bytes(
            1,
            Message::HistoryInfo(info(InfoStatus::Ok, 999, 3_000, 0, 0)),
        ),
        25,
    );
    c.handle_bytes(
        &frame_bytes(2, Message::HistoryChunk(HistoryChunk::new(1_000, 0, 1_000))),
        26,
    );
    assert!(events(&mut c).is_empty());
    assert!(c.history_pending());
}

#[test]
fn chunks_that_never_come_give_up_after_ten_pulls_and_held_scans_have_a_limit() {
    let mut c = v3(KNOWN);
    c.handle_bytes(
        &frame_bytes(
            1,
            Message::HistoryInfo(info(InfoStatus::Ok, 1_000, 3_000, 5, 0)),
        ),
        20,
    );
    let mut pulls = 0;
    let mut t = 20;
    loop {
        pulls += sent(&mut c)
            .iter()
            .filter(|m| matches!(m, Message::HistoryPull(p) if p.from_entry == 0))
            .count();
        let ev = events(&mut c);
        if !ev.is_empty() {
            assert!(
                matches!(ev.first(), Some(LinkEvent::Up(i)) if i.history == HistoryStatus::NoAnswer && i.boot_id == Some(77)),
                "{ev:?}"
            );
            break;
        }
        t += 50;
        c.handle_bytes(&frame_bytes(2, scan_at(0, 0)), t); // keeps the link alive
        c.handle_timeout(t);
    }
    assert_eq!(pulls, 10);
    assert_eq!(c.stats().history_repulls, 9);
    // A board that answers Opens with nothing more than scans: after 60 s of held-back scans,
    // the host gives up (the resends capped at 10 end it sooner; a long config shows the cap).
    let mut c = Connection::new(LinkConfig {
        history_max_opens: u32::MAX,
        ..LinkConfig::default()
    });
    c.set_resume_point(KNOWN);
    c.on_open(0);
    c.handle_bytes(&frame_bytes(0, ack3()), 0);
    let mut t = 0;
    let mut counter = 0;
    while events(&mut c).is_empty() {
        t += 20;
        counter += 1;
        c.handle_bytes(
            &frame_bytes(counter as u8, scan_at(counter, 20 * counter)),
            t,
        );
        c.handle_timeout(t);
        assert!(t <= 60_000);
    }
    assert_eq!(t, 60_000);
}

#[test]
fn a_link_lost_during_the_transfer_starts_over_at_the_next_handshake() {
    let mut c = v3(KNOWN);
    c.handle_bytes(
        &frame_bytes(
            1,
            Message::HistoryInfo(info(InfoStatus::Ok, 1_000, 3_000, 100, 0)),
        ),
        20,
    );
    assert!(matches!(
        &sent(&mut c)[..],
        [Message::HistoryOpen(_), Message::HistoryPull(_)]
    ));
    // Silent for a second: lost; the session was never told the link was up, so no Down.
    c.handle_timeout(1_020);
    assert!(events(&mut c).is_empty());
    assert!(!c.history_pending());
    assert!(matches!(&sent(&mut c)[..], [Message::Hello(_)]));
    // The next handshake asks again, from the same resume point.
    c.handle_bytes(&frame_bytes(2, ack3()), 1_100);
    assert!(
        matches!(&sent(&mut c)[..], [Message::HistoryOpen(o)] if o.since_ms == 1_000 && o.boot_id == 77)
    );
    c.handle_bytes(
        &frame_bytes(
            3,
            Message::HistoryInfo(info(InfoStatus::Ok, 1_000, 3_000, 0, 0)),
        ),
        1_120,
    );
    assert!(
        matches!(&events(&mut c)[..], [LinkEvent::Resumed { history, .. }] if history.changes.is_empty())
    );
    // A link lost after that: Down, as ever.
    c.on_close("unplugged");
    assert!(matches!(&events(&mut c)[..], [LinkEvent::Down { .. }]));
}

/// What a version-3 connection tells the session once the board has answered its
/// `HistoryOpen` with the span 1 000–3 000 ms and sent `chunk`.
fn after_one_chunk(chunk: HistoryChunk) -> Vec<LinkEvent> {
    let mut c = v3(KNOWN);
    c.handle_bytes(
        &frame_bytes(
            1,
            Message::HistoryInfo(info(InfoStatus::Ok, 1_000, 3_000, 1, 0)),
        ),
        20,
    );
    c.handle_bytes(&frame_bytes(2, Message::HistoryChunk(chunk)), 30);
    events(&mut c)
}

#[test]
fn a_broken_history_is_not_replayed() {
    // A point entry whose `from` is not the reading (the base is empty: from must be Empty),
    // a point off a 9×9 board, an entry after until_ms.
    for (index, from, dt_ms) in [
        (3, Cell::Black, 20),
        (81, Cell::Empty, 20),
        (3, Cell::Empty, 5_000),
    ] {
        let mut chunk = HistoryChunk::new(1_000, 0, 1_000);
        chunk
            .push(HistoryEntry {
                event: HistoryEvent::Point {
                    index,
                    from,
                    to: Cell::White,
                },
                dt_ms,
            })
            .unwrap();
        assert!(
            matches!(&after_one_chunk(chunk)[..], [LinkEvent::Up(i)] if i.history == HistoryStatus::NoAnswer),
            "point {index} from {from:?} at +{dt_ms} ms"
        );
    }
    // A Lost chunk: the board overwrote the span meanwhile.
    let lost = HistoryChunk::refused(1_000, ChunkStatus::Lost, 0, 2_500);
    assert!(
        matches!(&after_one_chunk(lost)[..], [LinkEvent::Up(i)] if i.history == HistoryStatus::Lost { oldest_ms: 2_500 })
    );
}

// ---- the golden frames of PROTOCOL.md §12 (hardware/protocol/tests/golden/frames.txt) -------

const FRAMES: &str = include_str!("../../hardware/protocol/tests/golden/frames.txt");

fn golden(name: &str) -> Vec<u8> {
    let line = FRAMES
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("{name} not in frames.txt"));
    let hex = line.split_whitespace().nth(2).unwrap();
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn the_host_sends_and_reads_the_golden_frames_of_the_worked_examples() {
    // §12 examples 7–10: the host processed the scan at 1000 ms of boot 0x1234ABCD.
    let mut c = Connection::new(LinkConfig::default());
    c.set_resume_point(Some(ResumePoint {
        boot_id: 0x1234_ABCD,
        since_ms: 1000,
    }));
    c.on_open(0);
    let hello: Vec<u8> = std::iter::from_fn(|| c.poll_transmit()).flatten().collect();
    assert_eq!(hello[0], 0, "the leading delimiter");
    let ack = Message::HelloAck(HelloAck {
        protocol_version: 3,
        accepted: true,
        board_size: BoardSize::NINE,
        scan_rate_hz: 50,
        firmware_version: 1,
        device_id: 1,
    });
    c.handle_bytes(&frame_bytes(0, ack), 10);
    let open: Vec<u8> = std::iter::from_fn(|| c.poll_transmit()).flatten().collect();
    assert_eq!(open, golden("history-open"));
    // A live scan at 70 000 (at until_ms: in the history) and one after it.
    c.handle_bytes(&frame_bytes(1, scan_at(0, 70_000)), 15);
    c.handle_bytes(&golden("history-info-9x9"), 20);
    let pull: Vec<u8> = std::iter::from_fn(|| c.poll_transmit()).flatten().collect();
    assert_eq!(pull, golden("history-pull"));
    c.handle_bytes(&frame_bytes(5, scan_at(1, 70_020)), 25);
    assert!(
        events(&mut c).is_empty(),
        "held back until the history is in"
    );
    c.handle_bytes(&golden("history-chunk"), 30);
    let ev = events(&mut c);
    let [LinkEvent::Resumed { info, history }, LinkEvent::Scan(live)] = &ev[..] else {
        panic!("{ev:?}");
    };
    assert_eq!(live.board_ms, 70_020);
    assert_eq!(info.boot_id, Some(0x1234_ABCD));
    assert_eq!(
        info.history,
        HistoryStatus::Replayed {
            changes: 2,
            presses: 1
        }
    );
    assert_eq!((history.since_ms, history.until_ms), (1000, 70_000));
    let mut base = vec![Cell::Empty; 81];
    base[80] = Cell::Black;
    assert_eq!(history.base, base);
    assert_eq!(
        history.changes,
        [
            BoardChange::Reading {
                board_ms: 1020,
                index: 20,
                cell: Cell::Black
            },
            BoardChange::Press {
                board_ms: 1500,
                button: Button::Clock,
                side: Side::Black
            },
            BoardChange::Reading {
                board_ms: 70_000,
                index: 21,
                cell: Cell::White
            },
        ]
    );
    let mut buttons = ButtonCounters::ZERO;
    buttons.record_press(Button::Clock, Side::Black);
    assert_eq!(history.live_buttons, buttons);
}

/// A decided version-3 session (boot 77 learnt, nothing asked) that has handed on the scans
/// 0 and 1 (board times 5000, 5020), then receives scan 5 (5100): a gap, held back, and the
/// `HistoryOpen` from 5020 sent (PROTOCOL.md §14.7).
fn gap_opened() -> Connection {
    let mut c = v3(None);
    sent(&mut c);
    c.handle_bytes(
        &frame_bytes(
            1,
            Message::HistoryInfo(info(InfoStatus::NotAsked, 0, 4_980, 0, 10)),
        ),
        20,
    );
    c.handle_bytes(&frame_bytes(2, scan_at(0, 5_000)), 30);
    c.handle_bytes(&frame_bytes(3, scan_at(1, 5_020)), 50);
    events(&mut c);
    sent(&mut c);
    c.handle_bytes(&frame_bytes(4, scan_at(5, 5_100)), 130);
    assert!(
        events(&mut c).is_empty(),
        "the scan after the gap is held back"
    );
    assert!(c.history_pending());
    assert!(
        sent(&mut c).contains(&Message::HistoryOpen(HistoryOpen {
            boot_id: 77,
            since_ms: 5_020
        })),
        "asked from the last scan handed on"
    );
    c
}

#[test]
fn a_gap_whose_exchange_is_cut_short_hands_its_scans_on_before_the_loss() {
    // the port fails during the exchange: the held scan goes on as the live scan it is, then
    // the loss; no second Up for the same session
    let mut c = gap_opened();
    c.handle_bytes(&frame_bytes(5, scan_at(6, 5_120)), 150);
    c.on_close("unplugged");
    let ev = events(&mut c);
    assert!(
        matches!(
            &ev[..],
            [LinkEvent::Scan(a), LinkEvent::Scan(b), LinkEvent::Down { .. }]
                if a.board_ms == 5_100 && b.board_ms == 5_120
        ),
        "{ev:?}"
    );
    assert!(!c.history_pending());
    assert_eq!(c.stats().gaps_unfilled, 1);
    // a board that answers for another boot: the gap stays, the scans go on, no Up; and no
    // gap is asked for again in this session
    let mut c = gap_opened();
    c.handle_bytes(
        &frame_bytes(
            5,
            Message::HistoryInfo(HistoryInfo {
                boot_id: 78,
                ..info(InfoStatus::OtherBoot, 5_020, 5_100, 0, 10)
            }),
        ),
        160,
    );
    let ev = events(&mut c);
    assert!(
        matches!(&ev[..], [LinkEvent::Scan(a)] if a.board_ms == 5_100),
        "{ev:?}"
    );
    c.handle_bytes(&frame_bytes(6, scan_at(9, 5_180)), 200);
    assert!(!c.history_pending(), "no second gap asked for");
    assert!(matches!(&events(&mut c)[..], [LinkEvent::Scan(_)]));
    assert_eq!((c.stats().gaps_filled, c.stats().gaps_unfilled), (0, 2));
}
