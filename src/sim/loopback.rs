//! The virtual board wired straight into a session, without a pseudo-terminal. Same physics,
//! same frames, same decoder — only the pty is missing, which makes it fast enough for property
//! tests and benchmarks.
//!
//! - [`board_stream`] records the bytes a version-2 board sends while playing a source out, and
//!   [`feed`] / [`feed_at`] push them through the link state machine into a [`Session`]. A
//!   recording cannot answer the history requests of version 3, so the recorded board speaks
//!   version 2 (no history; a pulled cable loses its presses).
//! - [`Lockstep`] runs the [`VirtualBoard`] interactively against the host's [`Connection`]
//!   and a [`Session`], one scan period at a time: a version-3 board answers the history
//!   requests, and the host can be restarted at a board time ([`Lockstep::restart_host`]),
//!   down for a while ([`Lockstep::host_down`]), the cable pulled ([`Lockstep::unplug`]) or the
//!   link silent ([`Lockstep::silence`]) while the board plays on and records.

use smartgoban_protocol::{encode, BoardSize, Frame, HelloAck, Message, Scan, MAX_FRAME_LEN};

use super::board::{BoardConfig, Step, VirtualBoard};
use super::noise::NoiseModel;
use super::player::SCAN_MS;
use super::replay::{Replay, Tick};
use super::{Source, TAIL_MS};
use crate::event::Event;
use crate::link::{Connection, LinkConfig, LinkEvent};
use crate::session::{Input, RestoreError, Session};

/// The protocol version of [`board_stream`]'s board: 2, the last without the board's history
/// (a recording cannot answer the host's history requests, PROTOCOL.md §14).
pub const STREAM_VERSION: u8 = 2;

/// Everything the board sends while playing a source out.
#[derive(Clone, Debug)]
pub struct BoardStream {
    /// The frames, as one byte stream (starting with the board's `HelloAck`).
    pub bytes: Vec<u8>,
    /// Scans in the stream.
    pub scans: u64,
}

/// The byte stream of `source` played with `noise` and `seed` by a board of protocol version 2
/// ([`STREAM_VERSION`]), as if the host's `Hello` arrived at board time 0. An unplugged cable is
/// modelled as an outage followed by a new handshake. Every handshake is the board's refusal of
/// the host's version 3 and its acceptance of the version 2 the host then offers (PROTOCOL.md
/// §4).
pub fn board_stream(source: &Source, noise: NoiseModel, seed: u64) -> BoardStream {
    board_stream_with_restarts(source, noise, seed, &[]).0
}

/// [`board_stream`] with the host restarted at each board time of `restarts_ms` (ascending):
/// there the board answers a new `Hello` (its `HelloAck`, counters from 0, as PROTOCOL.md
/// asks), while the stones and the players go on. Returns the stream and, for each restart,
/// the offset in `bytes` where its `HelloAck` starts: a new run of the host reads from there.
pub fn board_stream_with_restarts(
    source: &Source,
    noise: NoiseModel,
    seed: u64,
    restarts_ms: &[u64],
) -> (BoardStream, Vec<usize>) {
    let params = noise.params();
    let size = BoardSize::new(source.setup().size()).unwrap_or(BoardSize::NINETEEN);
    let mut replay = Replay::new(source.timeline(&params, seed), size, &params, seed);
    let mut out = BoardStream {
        bytes: vec![0],
        scans: 0,
    };
    let mut seq = 0u8;
    let mut counter = 0u32;
    let mut push = |message: Message, out: &mut BoardStream| {
        let mut buf = [0u8; MAX_FRAME_LEN];
        if let Ok(n) = encode(&Frame { seq, message }, &mut buf) {
            out.bytes.extend_from_slice(&buf[..n]);
        }
        seq = seq.wrapping_add(1);
    };
    let ack = |accepted| {
        Message::HelloAck(HelloAck {
            protocol_version: STREAM_VERSION,
            accepted,
            board_size: size,
            scan_rate_hz: 50,
            firmware_version: 1,
            device_id: 1,
        })
    };
    push(ack(false), &mut out);
    push(ack(true), &mut out);
    let mut restarts = restarts_ms.iter().copied().peekable();
    let mut offsets = Vec::new();
    while !replay.is_played_out(TAIL_MS) {
        if restarts.next_if(|&at| at <= replay.board_ms()).is_some() {
            replay.restart_buttons();
            counter = 0;
            offsets.push(out.bytes.len());
            push(ack(false), &mut out);
            push(ack(true), &mut out);
        }
        match replay.tick() {
            Tick::Unplug { duration_ms } => {
                replay.outage(duration_ms);
                replay.restart_buttons();
                counter = 0;
                push(ack(false), &mut out);
                push(ack(true), &mut out);
            }
            // The loopback has no wire to break.
            Tick::Fault(_) => {}
            Tick::Scan {
                board_ms,
                buttons,
                cells,
            } => {
                let scan = Scan {
                    scan_counter: counter,
                    board_ms: board_ms as u32,
                    buttons,
                    cells,
                };
                push(Message::Scan(scan), &mut out);
                counter = counter.wrapping_add(1);
                out.scans += 1;
            }
        }
    }
    (out, offsets)
}

/// Feeds `bytes` through a fresh link [`Connection`] into `session`, `chunk` bytes per read
/// (each read one host millisecond apart), telling the link the session's resume point as the
/// daemon does. Events are left in the session for the caller.
pub fn feed(session: &mut Session, bytes: &[u8], chunk: usize) {
    feed_at(session, bytes, chunk, 0);
}

/// [`feed`] through a fresh connection opened at host time `start_ms` (a new run of the
/// service); returns the host time of the last read.
pub fn feed_at(session: &mut Session, bytes: &[u8], chunk: usize, start_ms: u64) -> u64 {
    let mut conn = Connection::new(LinkConfig::default());
    conn.set_resume_point(session.resume_point());
    conn.on_open(start_ms);
    while conn.poll_transmit().is_some() {}
    let mut now = start_ms;
    for (i, piece) in bytes.chunks(chunk.max(1)).enumerate() {
        now = start_ms + i as u64;
        conn.handle_bytes(piece, now);
        while let Some(ev) = conn.poll_event() {
            let input = match ev {
                LinkEvent::Up(info) => Input::LinkUp(info),
                LinkEvent::Resumed { info, history } => Input::LinkResumed { info, history },
                LinkEvent::Scan(scan) => Input::Scan(scan),
                LinkEvent::Down { reason } => Input::LinkDown { reason },
                LinkEvent::Rejected { .. } => continue,
            };
            // link inputs never fail
            let _ = session.handle_input(input, now);
        }
        conn.set_resume_point(session.resume_point());
    }
    now
}

/// The virtual board, the host's link and a session run in lockstep, one scan period (20 ms of
/// board time and of host time) at a time, without a pty (module docs).
///
/// Host time starts at 0 when the host opens the port; the board's bytes reach the host in the
/// period they are sent, the host's reach the board before its next scan. The session gets the
/// link's events as the daemon gives them ([`Input::LinkUp`], [`Input::LinkResumed`],
/// [`Input::Scan`], [`Input::LinkDown`]) and the link the session's resume point after each.
/// The unplugs and silences of the board's timeline are played as [`Lockstep::unplug`] and
/// [`Lockstep::silence`]; its line noise, cut and corrupted frames and restarts by the board.
pub struct Lockstep {
    board: VirtualBoard,
    link: Connection,
    link_config: LinkConfig,
    session: Session,
    now_ms: u64,
    /// The host service runs and reads.
    host_up: bool,
    /// The data cable is plugged in.
    cable_in: bool,
    /// The board neither reads nor sends: the host's bytes wait here.
    board_silent: bool,
    to_board: Vec<u8>,
    /// Host time, ms, the board was last back after an unplug or a silence: the run goes on
    /// [`TAIL_MS`] past it (a cable pulled at the end of the game comes back, and the board's
    /// history of it is replayed and judged, before the run ends).
    back_ms: u64,
    outputs: Vec<Event>,
    /// Per event of `outputs`: the board time, ms, at which the session published it.
    outputs_board_ms: Vec<u64>,
    link_log: Vec<LinkEvent>,
}

impl std::fmt::Debug for Lockstep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lockstep")
            .field("board", &self.board)
            .field("now_ms", &self.now_ms)
            .field("host_up", &self.host_up)
            .field("cable_in", &self.cable_in)
            .finish_non_exhaustive()
    }
}

impl Lockstep {
    /// `source` played with `noise` and `seed` by a board of `protocol_version`, against
    /// `session` (the players press the clock as [`Source::timeline`] has them).
    pub fn new(
        source: &Source,
        noise: NoiseModel,
        seed: u64,
        protocol_version: u8,
        session: Session,
    ) -> Self {
        let params = noise.params();
        let board_size = BoardSize::new(source.setup().size()).unwrap_or(BoardSize::NINETEEN);
        let board = VirtualBoard::new(
            source.timeline(&params, seed),
            BoardConfig {
                board_size,
                seed,
                noise: params,
                device_id: 1,
                protocol_version,
            },
        );
        Lockstep::with_board(board, session, LinkConfig::default())
    }

    /// `board` against `session` through a link of `link_config`; the host opens the port at
    /// host time 0.
    pub fn with_board(board: VirtualBoard, session: Session, link_config: LinkConfig) -> Self {
        let mut link = Connection::new(link_config);
        link.set_resume_point(session.resume_point());
        link.on_open(0);
        let mut l = Lockstep {
            board,
            link,
            link_config,
            session,
            now_ms: 0,
            host_up: true,
            cable_in: true,
            board_silent: false,
            to_board: Vec::new(),
            back_ms: 0,
            outputs: Vec::new(),
            outputs_board_ms: Vec::new(),
            link_log: Vec::new(),
        };
        l.exchange();
        l
    }

    /// Host time, ms.
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// The board.
    pub fn board(&self) -> &VirtualBoard {
        &self.board
    }

    /// The host's link.
    pub fn link(&self) -> &Connection {
        &self.link
    }

    /// The session.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session, to give it commands.
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// The session, once done.
    pub fn into_session(self) -> Session {
        self.session
    }

    /// Every event the sessions published so far, in order (across host restarts).
    pub fn events(&self) -> &[Event] {
        &self.outputs
    }

    /// Per event of [`Lockstep::events`]: the board time, ms, at which it was published (the
    /// board's time of the timeline, which runs on while the board is away).
    pub fn events_board_ms(&self) -> &[u64] {
        &self.outputs_board_ms
    }

    /// Every link event the sessions were given but scans, in order: `Up`, `Resumed`, `Down`.
    pub fn link_log(&self) -> &[LinkEvent] {
        &self.link_log
    }

    /// Whether the board's timeline and [`TAIL_MS`] more are played out.
    pub fn is_played_out(&self) -> bool {
        self.board.is_played_out(TAIL_MS)
    }

    /// One scan period: the board scans (if a session is open) and the host runs 20 ms.
    pub fn step(&mut self) {
        if self.board.streaming() {
            match self.board.tick(self.host_up && self.cable_in) {
                Step::Unplug { duration_ms, .. } => return self.unplug(duration_ms),
                Step::Silence { duration_ms } => return self.silence(duration_ms),
                Step::Scanned { .. } | Step::Fault(_) => {}
            }
        }
        self.advance(SCAN_MS);
    }

    /// Steps until board time `board_ms` (or host time `board_ms` more, if the board waits for
    /// a host that does not come).
    pub fn run_until(&mut self, board_ms: u64) {
        let give_up = self.now_ms + board_ms.saturating_sub(self.board.board_ms()) + 60_000;
        while self.board.board_ms() < board_ms && self.now_ms < give_up {
            self.step();
        }
    }

    /// Steps until the timeline is played out and the board has been back [`TAIL_MS`] after
    /// its last unplug or silence (or a minute of host time passes with the board waiting for
    /// a host that does not come).
    pub fn run_to_end(&mut self) {
        let mut waiting_since = self.now_ms;
        let done = |l: &Self| l.is_played_out() && l.now_ms >= l.back_ms + TAIL_MS;
        while !done(self) && self.now_ms - waiting_since < 60_000 {
            self.step();
            if self.board.streaming() {
                waiting_since = self.now_ms;
            }
        }
    }

    /// The host service is killed and restarted now: the session is replaced by the one its
    /// checkpoint restores ([`Session::restore`]), with a new link that opens the port.
    ///
    /// # Errors
    /// The checkpoint does not read back.
    pub fn restart_host(&mut self) -> Result<(), RestoreError> {
        let checkpoint = self.checkpoint()?;
        self.restart_from(&checkpoint)
    }

    /// The host service is killed now and restarted from its checkpoint `duration_ms` of host
    /// time later; meanwhile the board plays on, records, and drops the scans no one reads.
    ///
    /// # Errors
    /// The checkpoint does not read back.
    pub fn host_down(&mut self, duration_ms: u64) -> Result<(), RestoreError> {
        let checkpoint = self.checkpoint()?;
        self.host_up = false;
        let until = self.now_ms + duration_ms;
        while self.now_ms < until {
            self.step();
        }
        self.restart_from(&checkpoint)
    }

    /// The data cable is pulled now for `duration_ms`: the board plays on (a version-3 board
    /// records), the host sees the port go and reopens it afterwards.
    pub fn unplug(&mut self, duration_ms: u64) {
        self.board.unplug(duration_ms);
        self.cable_in = false;
        if self.host_up {
            self.link.on_close("the cable was pulled");
            self.pump();
        }
        self.pass_time(duration_ms);
        self.cable_in = true;
        self.back_ms = self.now_ms;
        if self.host_up {
            self.link.on_open(self.now_ms);
        }
        self.exchange();
    }

    /// The board neither sends nor reads for `duration_ms`: it plays on (a version-3 board
    /// records); the host's link times out and says `Hello` meanwhile, which the board reads
    /// afterwards.
    pub fn silence(&mut self, duration_ms: u64) {
        self.board.silence(duration_ms);
        self.board_silent = true;
        self.pass_time(duration_ms);
        self.board_silent = false;
        self.back_ms = self.now_ms;
        let bytes = std::mem::take(&mut self.to_board);
        self.board.handle_bytes(&bytes);
        self.exchange();
    }

    fn checkpoint(&self) -> Result<String, RestoreError> {
        self.session.checkpoint().map_err(RestoreError::from)
    }

    fn restart_from(&mut self, checkpoint: &str) -> Result<(), RestoreError> {
        let seq = self.session.next_seq();
        self.session = Session::restore(checkpoint, None, seq)?;
        self.link = Connection::new(self.link_config);
        self.link.set_resume_point(self.session.resume_point());
        self.link.on_open(self.now_ms);
        self.host_up = true;
        self.collect();
        self.exchange();
        Ok(())
    }

    /// Host time runs on `duration_ms` without the board ticking.
    fn pass_time(&mut self, duration_ms: u64) {
        let until = self.now_ms + duration_ms;
        while self.now_ms < until {
            self.advance(SCAN_MS.min(until - self.now_ms));
        }
    }

    fn advance(&mut self, ms: u64) {
        self.now_ms += ms;
        self.exchange();
    }

    /// The board's bytes to the host; the host's timers, the session's; the host's bytes to
    /// the board.
    fn exchange(&mut self) {
        let now = self.now_ms;
        let bytes = self.board.take_output();
        if !self.host_up {
            return;
        }
        if self.cable_in {
            self.link.handle_bytes(&bytes, now);
        }
        if self.link.poll_timeout().is_some_and(|t| t <= now) {
            self.link.handle_timeout(now);
        }
        self.pump();
        let mut guard = 0;
        while self.session.poll_timeout().is_some_and(|t| t <= now) && guard < 16 {
            self.session.handle_timeout(now);
            guard += 1;
        }
        self.collect();
        let out: Vec<u8> = std::iter::from_fn(|| self.link.poll_transmit())
            .flatten()
            .collect();
        if !self.cable_in {
            return;
        }
        if self.board_silent {
            self.to_board.extend(out);
        } else {
            self.board.handle_bytes(&out);
        }
    }

    /// The link's events into the session, as the daemon does.
    fn pump(&mut self) {
        let now = self.now_ms;
        while let Some(ev) = self.link.poll_event() {
            if !matches!(ev, LinkEvent::Scan(_)) {
                self.link_log.push(ev.clone());
            }
            let input = match ev {
                LinkEvent::Up(info) => Input::LinkUp(info),
                LinkEvent::Resumed { info, history } => Input::LinkResumed { info, history },
                LinkEvent::Scan(scan) => Input::Scan(scan),
                LinkEvent::Down { reason } => Input::LinkDown { reason },
                LinkEvent::Rejected { .. } => continue,
            };
            // link inputs never fail
            let _ = self.session.handle_input(input, now);
        }
        self.link.set_resume_point(self.session.resume_point());
    }

    fn collect(&mut self) {
        let board_ms = self.board.board_ms();
        while let Some(e) = self.session.poll_output() {
            self.outputs.push(e);
            self.outputs_board_ms.push(board_ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::{Policy, RefereeConfig};
    use crate::rules::GameRecord;
    use crate::session::{HistoryStatus, SessionConfig};

    fn session(source: &Source) -> Session {
        let config = SessionConfig {
            referee: RefereeConfig {
                policy: Policy::Rules,
                ..RefereeConfig::default()
            },
            ..SessionConfig::default()
        };
        Session::new(config, &source.setup()).unwrap()
    }

    fn builtin() -> Source {
        Source::Record(GameRecord::from_sgf_bytes(crate::cli::source::BUILTIN_GAME).unwrap())
    }

    fn moves(s: &Session) -> Vec<(crate::rules::Color, Option<crate::rules::Point>)> {
        s.record()
            .moves
            .iter()
            .map(|m| (m.color, m.point))
            .collect()
    }

    #[test]
    fn a_version_3_board_in_lockstep_records_the_game_exactly() {
        let source = builtin();
        let Source::Record(record) = &source else {
            unreachable!()
        };
        let want: Vec<_> = record.moves.iter().map(|m| (m.color, m.point)).collect();
        let mut l = Lockstep::new(&source, NoiseModel::Realistic, 4, 3, session(&source));
        l.run_to_end();
        assert_eq!(moves(l.session()), want);
        let LinkEvent::Up(info) = &l.link_log()[0] else {
            panic!("{:?}", l.link_log());
        };
        assert_eq!(info.protocol_version, 3);
        assert_eq!(info.boot_id, l.board().boot_id());
        assert_eq!(info.history, HistoryStatus::NotAsked);
        // The board recorded every scan of the game.
        let stats = l.board().history().unwrap().stats();
        assert!(stats.points > 100 && stats.presses == 0, "{stats:?}");
    }

    #[test]
    fn the_board_plays_on_and_records_while_the_host_is_down_unplugged_or_silent() {
        let source = builtin();
        for version in [2, 3] {
            let mut l = Lockstep::new(&source, NoiseModel::Clean, 2, version, session(&source));
            l.run_until(5_000);
            let recorded = |l: &Lockstep| l.board().history().map(|h| h.stats().newest_ms);
            let before = recorded(&l);
            l.host_down(3_000).unwrap();
            assert!(l.board().board_ms() >= 8_000, "the board played on");
            if version == 3 {
                assert!(recorded(&l) > before);
            }
            l.run_until(10_000);
            l.unplug(2_000);
            l.run_until(14_000);
            l.silence(1_500);
            l.run_until(18_000);
            l.restart_host().unwrap();
            l.run_until(20_000);
            // Every outage ended in a handshake the session heard of: down and up again.
            let ups = l
                .link_log()
                .iter()
                .filter(|e| matches!(e, LinkEvent::Up(_) | LinkEvent::Resumed { .. }))
                .count();
            assert!(ups >= 4, "version {version}: {:?}", l.link_log());
            for e in l.link_log() {
                if let LinkEvent::Up(info) = e {
                    assert_eq!(info.protocol_version, version);
                    assert_eq!(info.boot_id.is_some(), version == 3);
                }
            }
            // Events are numbered across the restarts without repeats.
            let seqs: Vec<u64> = l.events().iter().map(|e| e.seq).collect();
            assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
        }
    }

    #[test]
    fn the_recorded_stream_is_of_a_version_2_board() {
        let source = builtin();
        let stream = board_stream(&source, NoiseModel::Clean, 1);
        let mut s = session(&source);
        feed(&mut s, &stream.bytes, 4096);
        let Source::Record(record) = &source else {
            unreachable!()
        };
        assert_eq!(moves(&s).len(), record.moves.len());
        assert_eq!(s.link().map(|l| l.protocol_version), Some(STREAM_VERSION));
    }
}
