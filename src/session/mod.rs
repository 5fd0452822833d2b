//! The [`Session`]: one value that owns the whole core (DESIGN.md "Core and shell").
//!
//! Shaped like quinn-proto's connection: the shell calls [`Session::handle_input`] with each
//! input and the current time, then drains [`Session::poll_output`]; nothing in here reads a
//! clock or does I/O. Settling and every other board timing use the board's own scan
//! timestamps, so a replay at full speed behaves exactly as it would in real time; the `now`
//! passed in only stamps events (`t_ms`).

mod checkpoint;
mod input;
mod lights;
mod moves;
mod resume;
mod state;
mod timing;

use std::collections::VecDeque;

use crate::clock::Clock;
use crate::event::{Event, EventKind, LinkState};
use crate::referee::{CommandError, GameSetup, Observation, Referee, RefereeConfig, SetupError};
use crate::rules::{Color, GameRecord};
use crate::sensing::{Cell, Stabiliser, StabiliserConfig, StabiliserStats};
pub use checkpoint::{Beat, RestoreError};
pub use input::{
    BoardChange, BoardHistory, ClockButton, Command, HistoryStatus, Input, LinkInfo, ResumePoint,
};
pub use moves::{move_views, MoveView};

use smartgoban_protocol::{Button, ButtonCounters, Scan, Side};
pub use state::{
    dead_points, FaultCounts, Held, LinkView, ProvisionalView, SensorFaultView, SensorsView,
    StateView,
};

/// Session settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionConfig {
    /// Scan stabiliser settings (settle time).
    pub stabiliser: StabiliserConfig,
    /// Referee settings (profile, policy, commit time).
    pub referee: RefereeConfig,
    /// `seq` of the first event. A long-running service starts each run above every `seq` of
    /// its earlier runs (it uses the wall clock: ms since 1970 × 1000), so a feed client that
    /// resumes with an id from an earlier run misses nothing (`run` and `demo` do; the default
    /// is 1).
    pub first_seq: u64,
    /// What a flag fall does (R22.5).
    pub time_up: TimeUp,
}

/// R22.5: what happens when a side's time is up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TimeUp {
    /// The game is lost (R22.5, O14.5).
    #[default]
    Loss,
    /// The turn counts as a pass with a warning and the side keeps its last unit (R22.5, on
    /// the counted player's request; only with byo-yomi, counting or Canadian time).
    Pass,
    /// The referee rules ([`Command::RuleTimeUp`]); the clock waits.
    Referee,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            stabiliser: StabiliserConfig::default(),
            referee: RefereeConfig::default(),
            first_seq: 1,
            time_up: TimeUp::Loss,
        }
    }
}

/// Errors from [`Session::handle_input`]. The session is unchanged when one is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// A new game could not be set up.
    #[error("cannot start the game: {0}")]
    Setup(#[from] SetupError),
    /// The rules refuse a referee action.
    #[error(transparent)]
    Command(#[from] CommandError),
}

/// Counters for diagnostics and metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionStats {
    /// Scans taken in since the service started.
    pub scans: u64,
    /// Counter of the last scan taken in (PROTOCOL.md "Scan"), if any since the last handshake.
    pub last_scan_counter: Option<u32>,
    /// Scans dropped because the board size differs from the game's.
    pub size_mismatch_scans: u64,
    /// Presses of the clock buttons (on the board or by command).
    pub clock_presses: u64,
    /// Clock presses the clock refused: by the side whose time does not run, while paused,
    /// before the start or after the flag.
    pub clock_refused: u64,
    /// Second presses of a button within 80 ms, taken as the same press.
    pub double_presses: u64,
    /// Scans whose button counters jumped by more than a person can press in one scan
    /// period (a board fault): ignored.
    pub implausible_buttons: u64,
    /// Scans whose board clock did not move forward (or jumped back): timed by the scan rate.
    pub clock_faults: u64,
    /// Stabiliser counters.
    pub stabiliser: StabiliserStats,
    /// Settle latency of the boards that changed: board time from the first change of a
    /// point to the board found settled, ms, counted in [`SETTLE_BUCKETS_MS`] (cumulative,
    /// as Prometheus histograms) — the last entry counts them all.
    pub settle_buckets: [u64; SETTLE_BUCKETS_MS.len() + 1],
    /// Sum of those latencies, ms.
    pub settle_ms_sum: u64,
}

/// Upper bounds of the settle-latency buckets, ms (`GET /metrics`).
pub const SETTLE_BUCKETS_MS: [u64; 6] = [100, 150, 200, 300, 500, 1000];

/// Longest a press waits for something resting on the board to lift, ms of board time.
pub const STUCK_PRESS_WAIT_MS: u64 = 10_000;

/// A clock press this long, ms of board time, before a stone goes down belongs to that stone
/// (R17.4: pressed before or while placing it); the referee judges a press only after it.
pub const PRESS_GRACE_MS: u64 = 1_000;

/// Most presses of one button that one scan can report (scans are 20 ms apart).
pub const MAX_PRESSES_PER_SCAN: u8 = 2;

/// A button press read from the scan counters (PROTOCOL.md "button counters").
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Press {
    Pass(Color),
    Resign(Color),
    Clock(Color),
}

/// The core state machine: link status, stabiliser, referee and the outgoing event queue.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Session {
    config: SessionConfig,
    referee: Referee,
    /// Kept in checkpoints: after a restart the board's history goes on from it
    /// (PROTOCOL.md §14).
    #[serde(default)]
    stabiliser: Option<Stabiliser>,
    link: Option<LinkInfo>,
    board_time_ms: u64,
    last_board_ms: Option<u32>,
    #[serde(skip)]
    buttons: ButtonCounters,
    /// Presses waiting for the board to settle, with their board time.
    deferred: Vec<(Press, u64)>,
    #[serde(skip)]
    cells: Vec<Cell>,
    outputs: VecDeque<Event>,
    next_seq: u64,
    now_ms: u64,
    stats: SessionStats,
    /// The game clock, if the game has a time control.
    clock: Option<Clock>,
    clock_started: bool,
    /// Host time up to which game time has run while the board is away.
    offline_anchor_ms: Option<u64>,
    /// The move whose press the next `clock` event reports.
    pressed_move: Option<u32>,
    /// The last press of each button (pass, resign, clock × black, white), board time.
    last_press_ms: [Option<u64>; 6],
    /// What the mover's clock showed at each clock press not yet judged by the referee.
    press_readings: Vec<(Color, u64, crate::clock::Reading)>,
    /// What the passer's clock showed at each pass press, by the side whose time ran, not yet
    /// judged by the referee: a pass switches the clock at once, as a clock press does.
    #[serde(default)]
    pass_readings: Vec<(Color, u64, crate::clock::Reading)>,
    /// A `clock` event is due (a press was judged).
    clock_news: bool,
    /// A flag that fell while the press that handed over the time waits to be judged.
    held_flag: Option<(Color, u64)>,
    /// Where the session's knowledge of a version-3 board's scans ends (PROTOCOL.md §14).
    #[serde(default)]
    resume: Option<ResumePoint>,
    /// While a version-3 board is away (or the service restarted): the session as it was at
    /// its last scan, and what the host did since, for the board's history to be replayed on.
    #[serde(default)]
    outage: Option<Box<resume::Outage>>,
    /// `t_ms` of the last event: events' times never go back.
    #[serde(default)]
    last_t_ms: u64,
    /// Board time the game began, ms (a new game's command): stones seen before are not its
    /// moves ([`Observation::came_up_ms`]).
    #[serde(default)]
    game_started_ms: u64,
}

impl Session {
    /// A session for `setup`, with no board connected yet.
    pub fn new(config: SessionConfig, setup: &GameSetup) -> Result<Session, SetupError> {
        let referee = Referee::new(setup, config.referee)?;
        let mut session = Session {
            config,
            referee,
            stabiliser: None,
            link: None,
            board_time_ms: 0,
            last_board_ms: None,
            buttons: ButtonCounters::default(),
            deferred: Vec::new(),
            cells: Vec::new(),
            outputs: VecDeque::new(),
            next_seq: config.first_seq.max(1),
            now_ms: 0,
            stats: SessionStats::default(),
            clock: setup.time.map(Clock::new),
            clock_started: false,
            offline_anchor_ms: None,
            pressed_move: None,
            last_press_ms: [None; 6],
            press_readings: Vec::new(),
            pass_readings: Vec::new(),
            clock_news: false,
            held_flag: None,
            resume: None,
            outage: None,
            last_t_ms: 0,
            game_started_ms: 0,
        };
        session.referee.set_timed(session.clock.is_some());
        session.drain_referee();
        Ok(session)
    }

    /// Takes one input at host time `now_ms` (ms since the service started; used for event
    /// times only).
    pub fn handle_input(&mut self, input: Input, now_ms: u64) -> Result<(), SessionError> {
        self.now_ms = self.now_ms.max(now_ms);
        self.advance_offline(self.now_ms);
        let result = match input {
            Input::LinkUp(info) => {
                let awaited = self.end_outage_unreplayed();
                self.link_up_noting(info, awaited);
                Ok(())
            }
            Input::LinkResumed { info, history } => {
                self.link_resumed(info, &history);
                Ok(())
            }
            Input::LinkDown { reason } => {
                self.link_down(reason);
                Ok(())
            }
            Input::Scan(scan) => {
                self.scan(&scan);
                Ok(())
            }
            Input::Command(command) => {
                self.note_host_input(resume::HostInput::Command(command.clone()));
                self.command(command)
            }
            Input::Button { button, host_ms } => {
                let board_ms = self
                    .board_time_ms
                    .saturating_sub(self.now_ms.saturating_sub(host_ms));
                self.note_host_input(resume::HostInput::Button { button, board_ms });
                self.button_at(button, board_ms);
                Ok(())
            }
        };
        self.drain_referee();
        if self.outage.is_none() {
            self.run_clock();
            self.drain_referee();
        }
        result
    }

    /// Runs timers due at `now_ms`: the game clock while the board is away (the link timeout
    /// lives in [`crate::link::Connection`]). While the board's history is awaited the clock
    /// only runs for the faces: its calls and its flag are judged once the history tells what
    /// the players did meanwhile.
    pub fn handle_timeout(&mut self, now_ms: u64) {
        self.now_ms = self.now_ms.max(now_ms);
        self.advance_offline(self.now_ms);
        if self.outage.is_none() {
            self.run_clock();
        }
        self.drain_referee();
    }

    /// Host time at which [`Session::handle_timeout`] must next be called, if ever: the
    /// clock's next call or flag while the board is away (none while its history is awaited).
    pub fn poll_timeout(&self) -> Option<u64> {
        if self.outage.is_some() {
            return None;
        }
        self.clock_timeout()
    }

    /// The next event, oldest first.
    pub fn poll_output(&mut self) -> Option<Event> {
        self.outputs.pop_front()
    }

    /// The live state for the API (`GET /api/v1/state`).
    pub fn state(&self) -> StateView {
        state::view(self)
    }

    /// The game record so far.
    pub fn record(&self) -> &GameRecord {
        self.referee.record()
    }

    /// The referee (game, phase, violations).
    pub fn referee(&self) -> &Referee {
        &self.referee
    }

    /// The points no sensor of their own reads, from the board's health report (a dead
    /// sensor's point, read from its neighbours): the referee takes nothing seen there as
    /// proof of a violation ([`Referee::set_unsensed`]).
    pub fn set_unsensed(&mut self, points: Vec<crate::rules::Point>) {
        if self.referee.unsensed() != points.as_slice() {
            self.referee.set_unsensed(points);
        }
    }

    /// The last settled physical board, if any.
    pub fn sensed(&self) -> Option<&crate::sensing::StoneGrid> {
        self.stabiliser.as_ref().and_then(|s| s.stable())
    }

    /// Where the session's knowledge of the board's scans ends (PROTOCOL.md §14): the board's
    /// boot and the board time of the last scan taken in, once a version-3 board told its
    /// boot. The link asks the board's history from there after a reconnection or a restart.
    pub fn resume_point(&self) -> Option<ResumePoint> {
        match &self.outage {
            Some(o) => o.base.resume,
            None => self.resume,
        }
    }

    /// The connected board, if the link is up.
    pub fn link(&self) -> Option<&LinkInfo> {
        self.link.as_ref()
    }

    /// Diagnostic counters.
    pub fn stats(&self) -> SessionStats {
        let mut stats = self.stats;
        if let Some(s) = &self.stabiliser {
            stats.stabiliser = s.stats();
        }
        stats
    }

    /// Session settings.
    pub fn config(&self) -> SessionConfig {
        self.config
    }

    fn emit(&mut self, kind: EventKind) {
        self.emit_at(kind, None);
    }

    /// Emits `kind`; `at_board_ms`: the board time it happened at, if earlier than now (a
    /// move's stone seen before its board was handed on): its `t_ms` is that moment in host
    /// time. Events' times never go back.
    fn emit_at(&mut self, kind: EventKind, at_board_ms: Option<u64>) {
        let t = match at_board_ms {
            Some(at) => self
                .now_ms
                .saturating_sub(self.board_time_ms.saturating_sub(at)),
            None => self.now_ms,
        };
        let t_ms = t.max(self.last_t_ms);
        self.last_t_ms = t_ms;
        let event = Event {
            seq: self.next_seq,
            t_ms,
            kind,
        };
        self.next_seq += 1;
        self.outputs.push_back(event);
    }

    fn drain_referee(&mut self) {
        while let Some((mut kind, at)) = self.referee.poll_timed_event() {
            self.clock_follows(&mut kind);
            self.emit_at(kind, at);
        }
    }

    /// The handshake completed; `awaited`: the board's history of an outage had been
    /// expected (the `link` event says why none came).
    fn link_up_noting(&mut self, info: LinkInfo, awaited: bool) {
        let game_size = self.referee.game().board().size();
        let mut detail = if info.board_size == game_size {
            format!(
                "board {}x{}, firmware {}, device {:08x}, {} scans/s",
                info.board_size,
                info.board_size,
                info.firmware_version,
                info.device_id,
                info.scan_rate_hz
            )
        } else {
            format!(
                "board is {}x{} but the game is {}x{}: scans are ignored",
                info.board_size, info.board_size, game_size, game_size
            )
        };
        // a board without history coming (back) to a game under way: what happened while
        // nobody listened is lost, and the world is told so
        let awaited =
            awaited || (info.protocol_version < 3 && !self.referee.record().moves.is_empty());
        if let Some(why) = resume::fallback_reason(&info, awaited) {
            detail.push_str("; ");
            detail.push_str(&why);
            // the presses the host got before the board went (a pass, a clock press still
            // waiting for the board around it) were made: judged on the board as last seen,
            // not dropped with the board's lost history (issue 35: a White pass lost so
            // made Black's next stone look out of turn for the rest of the game)
            self.judge_all_presses();
            // nobody saw the board change meanwhile: nothing on it is repaired automatically
            self.referee.board_unknown(&why);
        }
        match &mut self.stabiliser {
            Some(s) if s.size() == info.board_size => s.restart(),
            _ => {
                self.stabiliser = Some(Stabiliser::new(info.board_size, self.config.stabiliser));
            }
        }
        // A repeated handshake restarts the board's counters but is no news to the world (nor
        // is a board that restarted by itself: the scans go on); after an outage it is.
        let same = |a: &LinkInfo, b: &LinkInfo| {
            LinkInfo {
                boot_id: None,
                history: HistoryStatus::NotAsked,
                ..*a
            } == LinkInfo {
                boot_id: None,
                history: HistoryStatus::NotAsked,
                ..*b
            }
        };
        let news = awaited || self.link.as_ref().is_none_or(|l| !same(l, &info));
        // A new boot of the board (or a board without history): the scans start afresh.
        if self.resume.is_some_and(|r| Some(r.boot_id) != info.boot_id) {
            self.resume = None;
        }
        self.link = Some(info);
        self.last_board_ms = None;
        self.buttons = ButtonCounters::default();
        self.drop_unjudged_presses();
        self.stats.last_scan_counter = None;
        if news {
            let history =
                (awaited || info.history != HistoryStatus::NotAsked).then_some(info.history);
            self.emit(EventKind::Link {
                state: LinkState::Connected,
                detail,
                history,
            });
        }
    }

    fn link_down(&mut self, reason: String) {
        if self.link.is_some() && self.outage.is_none() && self.resume.is_some() {
            // A board that keeps its history (PROTOCOL.md §14): what happens meanwhile is
            // replayed when it comes back; until then nothing is judged.
            self.begin_outage();
        }
        self.offline_anchor_ms = Some(self.now_ms);
        if self.outage.is_none() {
            // the presses waiting for their board are judged on the board as last seen
            self.judge_all_presses();
        }
        if self.link.take().is_some() {
            self.emit(EventKind::Link {
                state: LinkState::Lost,
                detail: reason,
                history: None,
            });
        }
    }

    fn scan(&mut self, scan: &Scan) {
        let Some(link) = &self.link else {
            return; // no handshake yet: a scan from an earlier session of the board
        };
        let size = self.referee.game().board().size();
        if scan.cells.size().get() != link.board_size || link.board_size != size {
            self.stats.size_mismatch_scans += 1;
            return;
        }
        self.stats.scans += 1;
        self.stats.last_scan_counter = Some(scan.scan_counter);
        // Board time: accumulate the wrapping deltas of the board's millisecond clock. A
        // clock that stands still or jumps back is a board fault: time that scan by the scan
        // rate instead, so settling never stops.
        if let Some(last) = self.last_board_ms {
            let delta = scan.board_ms.wrapping_sub(last);
            if delta > 0 && delta < 1 << 31 {
                self.board_time_ms += u64::from(delta);
            } else {
                self.stats.clock_faults += 1;
                self.board_time_ms += 1000 / u64::from(link.scan_rate_hz.max(1));
            }
        }
        self.last_board_ms = Some(scan.board_ms);
        if let Some(boot_id) = link.boot_id {
            self.resume = Some(ResumePoint {
                boot_id,
                since_ms: scan.board_ms,
            });
        }
        let presses = self.presses(scan.buttons);
        let now = self.board_time_ms;
        self.cells.resize(scan.cells.len(), Cell::Uncertain);
        scan.cells.unpack_into(&mut self.cells);
        self.sense(presses.into_iter().map(|p| (p, now)));
    }

    /// The readings in `self.cells`, taken at the session's board time, with the presses that
    /// came with them (each at its own board time): through the stabiliser, then the boards it
    /// hands on and the presses, in order, to the referee.
    fn sense(&mut self, presses: impl IntoIterator<Item = (Press, u64)>) {
        let Some(stabiliser) = self.stabiliser.as_mut() else {
            return;
        };
        let now = self.board_time_ms;
        let handed = stabiliser.push(&self.cells, now).map(|s| {
            (
                s.changed,
                s.complete,
                s.grid.clone(),
                s.first_change_ms,
                s.times.to_vec(),
            )
        });
        let touched = handed.as_ref().map(|_| stabiliser.touched().to_vec());
        let came_up = stabiliser
            .first_look_ms()
            .map(|t| t.max(self.game_started_ms));
        let is_settled = stabiliser.is_settled();
        let horizon = stabiliser.horizon_ms();
        let stuck = stabiliser.has_stuck_points();
        let hands = stabiliser.hands_over();
        for (p, at) in presses {
            self.take_press(p, at);
        }
        if let Some((true, complete, _, first_change, _)) = &handed {
            if *complete {
                let latency = now.saturating_sub(*first_change);
                self.stats.settle_ms_sum += latency;
                for (bucket, bound) in self
                    .stats
                    .settle_buckets
                    .iter_mut()
                    .zip(SETTLE_BUCKETS_MS.iter().map(Some).chain([None]))
                {
                    if bound.is_none_or(|&b| latency <= b) {
                        *bucket += 1;
                    }
                }
            }
        }
        if let Some((true, complete, grid, first_change, times)) = handed {
            // Presses made before the board started to change belong to the board before,
            // except a clock press with no move to commit yet: it is for a stone going down
            // (R17.4: pressed before or while placing it), judged after the board.
            // A pass by the side to move made while the opponent's new stone was still
            // coming (its point covered since before the pass: a captured stone lifted and
            // the opponent's stone put there under one hand) answers the move before it.
            let to_move = self.referee.game().to_move();
            let board = self.referee.game().board();
            let latest_other: Option<u64> = grid
                .iter()
                .filter(|&(p, c)| c == Some(to_move.opposite()) && board.get(p) != c)
                .map(|(p, _)| times.get(p.index(grid.size())).map_or(0, |t| t.seen_ms))
                .max();
            let mut answered = false;
            let (before, after): (Vec<_>, Vec<_>) = std::mem::take(&mut self.deferred)
                .into_iter()
                .partition(|&(p, at)| match p {
                    // (one pass: after it the other side is to move)
                    Press::Pass(c)
                        if !answered && c == to_move && latest_other.is_some_and(|s| at <= s) =>
                    {
                        answered = true;
                        true
                    }
                    // a press for a move already recorded is judged before the board; one
                    // with no move of its own waits for its stone (up to its grace time). A
                    // press reported by the scan the change began in came before the stone:
                    // the hand was only arriving.
                    Press::Clock(c) => at <= first_change && self.referee.owes_press(c, at),
                    _ => at <= first_change,
                });
            self.deferred = after;
            for (press, at) in before {
                self.press(press, at);
            }
            self.referee.on_board(Observation {
                grid: &grid,
                at_ms: now,
                times: &times,
                touched: touched.as_deref().unwrap_or(&[]),
                complete,
                came_up_ms: came_up,
                hands,
            });
        }
        let touched = self.stabiliser.as_ref().map_or(&[][..], |s| s.touched());
        self.referee.on_tick(now, is_settled, touched);
        // A press counts once everything before it on the board is known (the stabiliser's
        // horizon: no hand still over a point it covered before the press), after the board it
        // belongs to, so a pass or resignation never jumps ahead of the stone placed just
        // before it; it keeps the time it was pressed. While something rests on the board
        // (stuck sensors), a stone may be going down unseen under it: presses wait for it to
        // lift, up to STUCK_PRESS_WAIT_MS.
        let oldest = self.deferred.first().map(|&(_, at)| at);
        let waited_enough = oldest.is_some_and(|at| now.saturating_sub(at) >= STUCK_PRESS_WAIT_MS);
        if !stuck || waited_enough {
            self.judge_presses(now, horizon);
        }
    }

    /// Button presses since the last scan (wrapping u8 counters, PROTOCOL.md §7).
    ///
    /// Scans come 20 ms apart; nobody presses a button more than [`MAX_PRESSES_PER_SCAN`]
    /// times in that time, so a bigger jump (a counter going backwards reads as ~255 presses)
    /// is a fault of the board: it is counted and ignored, and the counters are taken as the
    /// new baseline.
    fn presses(&mut self, now: ButtonCounters) -> Vec<Press> {
        let delta = now.presses_since(&self.buttons);
        self.buttons = now;
        let implausible = [Button::Pass, Button::Resign, Button::Clock]
            .into_iter()
            .flat_map(|b| [delta.get(b, Side::Black), delta.get(b, Side::White)])
            .any(|n| n > MAX_PRESSES_PER_SCAN);
        if implausible {
            self.stats.implausible_buttons += 1;
            return Vec::new();
        }
        let mut presses = Vec::new();
        for (side, color) in [(Side::Black, Color::Black), (Side::White, Color::White)] {
            for (button, press) in [
                (Button::Pass, Press::Pass(color)),
                (Button::Resign, Press::Resign(color)),
                (Button::Clock, Press::Clock(color)),
            ] {
                presses.extend(std::iter::repeat_n(
                    press,
                    usize::from(delta.get(button, side)),
                ));
            }
        }
        presses
    }

    /// A press comes in at board time `at_ms`. A second press of the same button within
    /// [`crate::clock::DOUBLE_PRESS_MS`] is the same press. A clock press by the side whose
    /// time runs switches the clock at once, as a physical clock does (the time of the press
    /// is what counts); one by the other side is ignored. The referee judges presses once the
    /// board has settled.
    fn take_press(&mut self, press: Press, at_ms: u64) {
        let slot = match press {
            Press::Pass(c) => c as usize,
            Press::Resign(c) => 2 + c as usize,
            Press::Clock(c) => 4 + c as usize,
        };
        if let Some(last) = self.last_press_ms[slot] {
            if at_ms.saturating_sub(last) < crate::clock::DOUBLE_PRESS_MS {
                self.stats.double_presses += 1;
                return;
            }
        }
        self.last_press_ms[slot] = Some(at_ms);
        if let (Press::Pass(color), Some(clock)) = (press, &mut self.clock) {
            // the pass hands the time over now; undone if it is no move (judged later)
            if clock.running() == Some(color) {
                if let Ok(reading) = clock.press(color, at_ms, 0) {
                    self.pass_readings.push((color, at_ms, reading));
                }
            }
        }
        if let Press::Clock(color) = press {
            if let Some(clock) = &mut self.clock {
                match clock.press(color, at_ms, 0) {
                    Ok(reading) => self.press_readings.push((color, at_ms, reading)),
                    Err(_) => {
                        self.stats.clock_presses += 1;
                        self.stats.clock_refused += 1;
                        return;
                    }
                }
            }
        }
        self.deferred.push((press, at_ms));
    }

    /// Judges the waiting presses, in order, up to the first one made after `horizon` (the
    /// board around it is not known yet: [`crate::sensing::Stabiliser::horizon_ms`]; a press
    /// in the scan a disturbance began in came before it;
    /// `None`: everything is known) or the first clock press still inside its grace time (a
    /// stone may yet go down for it).
    fn judge_presses(&mut self, now: u64, horizon: Option<u64>) {
        let mut waiting: std::collections::VecDeque<(Press, u64)> =
            std::mem::take(&mut self.deferred).into();
        while let Some((press, at)) = waiting.pop_front() {
            if horizon.is_some_and(|h| at > h) {
                waiting.push_front((press, at));
                break;
            }
            // a clock press with no move to commit waits for its stone, up to its grace time
            let waits = match press {
                Press::Clock(c) => {
                    !self.referee.owes_press(c, at)
                        && now < at + PRESS_GRACE_MS
                        && !matches!(
                            self.referee.phase(),
                            crate::event::Phase::Finished | crate::event::Phase::Setup
                        )
                }
                _ => false,
            };
            if waits {
                waiting.push_front((press, at));
                break;
            }
            // a pass made just after a clock press is the move that press is for
            if let Press::Clock(c) = press {
                let pass = waiting
                    .iter()
                    .position(|&(p, t)| p == Press::Pass(c) && t >= at && t <= at + PRESS_GRACE_MS);
                if let Some((p, t)) = pass.and_then(|i| waiting.remove(i)) {
                    self.press(p, t);
                }
            }
            self.press(press, at);
        }
        self.deferred.extend(waiting);
    }

    /// Judges every waiting press now (the board went away: no stone is coming).
    fn judge_all_presses(&mut self) {
        for (press, at) in std::mem::take(&mut self.deferred) {
            self.press(press, at);
        }
    }

    fn press(&mut self, press: Press, at_ms: u64) {
        match press {
            Press::Pass(color) => self.passed(color, at_ms),
            Press::Resign(color) => self.referee.on_resign(color),
            Press::Clock(color) => self.clock_pressed(color, at_ms),
        }
    }

    /// A clock button not wired through the board (API, GPIO) pressed at board time `at`.
    fn clock_button(&mut self, color: Color, at: u64) {
        self.take_press(Press::Clock(color), at);
        let horizon = self.stabiliser.as_ref().and_then(|s| s.horizon_ms());
        self.judge_presses(self.board_time_ms, horizon);
    }

    /// A clock button on the Pi pressed at board time `at`.
    fn button_at(&mut self, button: ClockButton, at: u64) {
        match button {
            ClockButton::Player(color) => self.clock_button(color, at),
            ClockButton::Pause => {
                let command = if self.referee.phase() == crate::event::Phase::Paused {
                    Command::Resume
                } else {
                    Command::Pause
                };
                // refused in phases without a clock to stop (setup, finished): nothing changes
                let _ = self.command(command);
            }
        }
    }

    fn command(&mut self, command: Command) -> Result<(), SessionError> {
        let now = self.board_time_ms;
        match command {
            Command::NewGame(setup) => {
                let mut config = self.config.referee;
                if let Some(profile) = setup.profile {
                    config.profile = profile;
                }
                let mut referee = Referee::new(&setup, config)?;
                // the board's dead sensors are the same for the new game
                referee.set_unsensed(self.referee.unsensed().to_vec());
                self.referee = referee;
                self.clock = setup.time.map(Clock::new);
                self.referee.set_timed(self.clock.is_some());
                self.clock_started = false;
                self.pressed_move = None;
                self.game_started_ms = now;
                // The board as it lies now is judged against the new game at once (if it is
                // the game's size: scans of another size are not taken in).
                if let Some(s) = &self.stabiliser {
                    if let Some(grid) = s.stable().filter(|g| g.size() == setup.size()).cloned() {
                        // the stones already down are no moves of the new game: no order
                        let times = crate::referee::times_now(&grid, now);
                        self.drain_referee();
                        self.referee
                            .on_board(Observation::judged_now(&grid, now, &times));
                    }
                }
            }
            Command::Pass(color) => self.passed(color, now),
            Command::Resign(color) => self.referee.on_resign(color),
            Command::ClockPress(color) => self.clock_button(color, now),
            Command::SetResult(re) => self.referee.set_result(&re),
            Command::Resolve { id, ruling } => {
                let paused_stone = self.referee.violations().iter().any(|v| {
                    v.id == id && v.open && v.code == crate::rules::ViolationCode::PlayedWhilePaused
                });
                let before = self.referee.record().moves.len();
                self.referee.resolve(id, ruling)?;
                if paused_stone && ruling == crate::referee::Ruling::AcceptAsPlayed {
                    self.accepted_moves_press(before, now);
                }
            }
            Command::Choose(index) => self.referee.choose(index)?,
            Command::ChooseOrder { first, index } => self.referee.choose_order(first, index)?,
            Command::CorrectMove { number, point } => self.referee.correct_move(number, point)?,
            Command::Warn { color, reason } => self.referee.warn(color, &reason)?,
            Command::Pause => {
                // presses made before the pause are judged before it
                self.judge_all_presses();
                self.referee.pause()?
            }
            Command::Resume => self.referee.resume()?,
            Command::Adjudicate(decision) => self.referee.adjudicate(decision),
            Command::SealMove(sealed) => self.referee.seal_move(sealed)?,
            Command::SwapColors => self.referee.swap_colors()?,
            Command::ConfirmCount(dead) => self.referee.confirm_count(dead)?,
            Command::DisputeCount(claimant) => self.referee.dispute_count(claimant)?,
            Command::RuleTimeUp { pass } => {
                let color = self.referee.rule_time_up(pass, now)?;
                if let (true, Some(clock)) = (pass, &mut self.clock) {
                    clock.pass_after_flag(color, now);
                }
            }
            Command::LateArrival { color, late_ms } => match &mut self.clock {
                Some(clock) => clock.deduct_lateness(color, late_ms),
                None => return Err(CommandError::NoClock.into()),
            },
            Command::AdjustTime { .. } if self.referee.phase() == crate::event::Phase::Finished => {
                return Err(CommandError::WrongPhase("finished").into());
            }
            Command::AdjustTime { color, delta_ms } => match &mut self.clock {
                Some(clock) if !clock.is_expired(color) => {
                    clock.adjust_main(color, delta_ms);
                }
                Some(_) => return Err(CommandError::WrongPhase("time expired").into()),
                None => return Err(CommandError::NoClock.into()),
            },
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Point;
    use smartgoban_protocol::{BoardSize, PackedCells};

    const NINE: LinkInfo = LinkInfo {
        board_size: 9,
        firmware_version: 1,
        device_id: 1,
        scan_rate_hz: 50,
        ..LinkInfo::DEFAULT
    };

    fn session() -> Session {
        Session::new(SessionConfig::default(), &GameSetup::even(9)).unwrap()
    }

    fn cells(stones: &[(&str, Cell)]) -> PackedCells {
        let mut c = PackedCells::new(BoardSize::NINE);
        for &(pt, cell) in stones {
            c.set(Point::from_gtp(pt, 9).unwrap().index(9), cell);
        }
        c
    }

    struct Feeder {
        counter: u32,
        board_ms: u32,
        buttons: ButtonCounters,
    }

    impl Feeder {
        fn new(board_ms: u32) -> Self {
            Feeder {
                counter: 0,
                board_ms,
                buttons: ButtonCounters::ZERO,
            }
        }
        /// `n` scans of `cells`, 20 ms apart; returns the event kinds emitted.
        fn scans(&mut self, s: &mut Session, cells: &PackedCells, n: u32) -> Vec<EventKind> {
            let mut out = Vec::new();
            for _ in 0..n {
                let scan = Scan {
                    scan_counter: self.counter,
                    board_ms: self.board_ms,
                    buttons: self.buttons,
                    cells: *cells,
                };
                self.counter += 1;
                self.board_ms = self.board_ms.wrapping_add(20);
                s.handle_input(Input::Scan(scan), 0).unwrap();
                out.extend(std::iter::from_fn(|| s.poll_output()).map(|e| e.kind));
            }
            out
        }
    }

    fn moves(events: &[EventKind]) -> Vec<String> {
        events
            .iter()
            .filter_map(|e| match e {
                EventKind::Move { color, point, .. } => {
                    Some(format!("{}{point}", color.sgf_letter()))
                }
                EventKind::Pass { color, .. } => Some(format!("{}pass", color.sgf_letter())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_move_is_recorded_once_the_board_has_settled_for_150_ms() {
        let mut s = session();
        while s.poll_output().is_some() {}
        s.handle_input(Input::LinkUp(NINE), 0).unwrap();
        let mut f = Feeder::new(1000);
        let empty = cells(&[]);
        let stone = cells(&[("E5", Cell::Black)]);
        f.scans(&mut s, &empty, 10);
        // 7 scans = 120 ms after the change: not yet
        assert!(moves(&f.scans(&mut s, &stone, 8)).is_empty());
        // the 9th scan is 160 ms after the change
        assert_eq!(moves(&f.scans(&mut s, &stone, 1)), ["BE5"]);
        assert!(moves(&f.scans(&mut s, &stone, 50)).is_empty());
        assert_eq!(s.state().move_number, 1);
    }

    #[test]
    fn a_pass_pressed_while_the_board_is_unsettled_waits_for_the_stone_before_it() {
        let mut s = session();
        s.handle_input(Input::LinkUp(NINE), 0).unwrap();
        let mut f = Feeder::new(0);
        f.scans(&mut s, &cells(&[]), 10);
        // Black puts a stone down and White presses pass at once, before anything settled.
        let stone = cells(&[("E5", Cell::Black)]);
        f.buttons
            .record_press(smartgoban_protocol::Button::Pass, Side::White);
        let events = f.scans(&mut s, &stone, 20);
        assert_eq!(moves(&events), ["BE5", "Wpass"]);
    }

    #[test]
    fn implausible_button_jumps_are_ignored() {
        let mut s = session();
        s.handle_input(Input::LinkUp(NINE), 0).unwrap();
        let mut f = Feeder::new(0);
        let empty = cells(&[]);
        f.scans(&mut s, &empty, 10);
        f.buttons.pass_black = 1;
        assert_eq!(moves(&f.scans(&mut s, &empty, 10)), ["Bpass"]);
        // the counter going back reads as 255 presses: a fault, not 255 passes
        f.buttons.pass_black = 0;
        assert!(moves(&f.scans(&mut s, &empty, 10)).is_empty());
        f.buttons.resign_white = 3;
        assert!(f.scans(&mut s, &empty, 10).is_empty());
        assert_eq!(s.stats().implausible_buttons, 2);
        assert_eq!(s.state().move_number, 1);
        // from the new baseline, a real press counts again
        f.buttons.pass_white = 1;
        assert_eq!(moves(&f.scans(&mut s, &empty, 10)), ["Wpass"]);
    }

    #[test]
    fn a_board_clock_that_stands_still_is_replaced_by_the_scan_rate() {
        let mut s = session();
        s.handle_input(Input::LinkUp(NINE), 0).unwrap();
        let mut f = Feeder::new(500);
        // the board as found is empty (a stone found at the start would be no move)
        f.scans(&mut s, &cells(&[]), 10);
        let stone = cells(&[("C3", Cell::Black)]);
        let stuck_at = f.board_ms;
        let mut events = Vec::new();
        for _ in 0..20 {
            events.extend(f.scans(&mut s, &stone, 1));
            f.board_ms = stuck_at; // stuck
        }
        assert_eq!(moves(&events), ["BC3"]);
        assert!(s.stats().clock_faults >= 18);
    }

    #[test]
    fn the_board_clock_may_wrap_around() {
        let mut s = session();
        s.handle_input(Input::LinkUp(NINE), 0).unwrap();
        let mut f = Feeder::new(u32::MAX - 100);
        f.scans(&mut s, &cells(&[]), 10);
        let events = f.scans(&mut s, &cells(&[("C3", Cell::Black)]), 10);
        assert_eq!(moves(&events), ["BC3"]);
    }

    #[test]
    fn scans_without_a_handshake_or_of_another_size_are_ignored() {
        let mut s = session();
        while s.poll_output().is_some() {}
        let mut f = Feeder::new(0);
        assert!(f
            .scans(&mut s, &cells(&[("C3", Cell::Black)]), 20)
            .is_empty());
        s.handle_input(
            Input::LinkUp(LinkInfo {
                board_size: 19,
                ..NINE
            }),
            0,
        )
        .unwrap();
        let mut big = PackedCells::new(BoardSize::NINETEEN);
        big.set(0, Cell::Black);
        let scan = Scan {
            scan_counter: 0,
            board_ms: 0,
            buttons: ButtonCounters::ZERO,
            cells: big,
        };
        for _ in 0..20 {
            s.handle_input(Input::Scan(scan), 0).unwrap();
        }
        assert_eq!(s.stats().size_mismatch_scans, 20);
        assert_eq!(s.state().move_number, 0);
    }

    #[test]
    fn a_repeated_handshake_is_not_a_new_link_event() {
        let mut s = session();
        while s.poll_output().is_some() {}
        s.handle_input(Input::LinkUp(NINE), 0).unwrap();
        s.handle_input(Input::LinkUp(NINE), 1).unwrap();
        let links = std::iter::from_fn(|| s.poll_output())
            .filter(|e| matches!(e.kind, EventKind::Link { .. }))
            .count();
        assert_eq!(links, 1);
        s.handle_input(Input::LinkDown { reason: "x".into() }, 2)
            .unwrap();
        s.handle_input(Input::LinkUp(NINE), 3).unwrap();
        let links = std::iter::from_fn(|| s.poll_output())
            .filter(|e| matches!(e.kind, EventKind::Link { .. }))
            .count();
        assert_eq!(links, 2);
    }

    #[test]
    fn events_are_numbered_from_one_without_gaps() {
        let mut s = session();
        let mut seqs: Vec<u64> = std::iter::from_fn(|| s.poll_output())
            .map(|e| e.seq)
            .collect();
        s.handle_input(Input::LinkUp(NINE), 5).unwrap();
        let mut f = Feeder::new(0);
        let mut kinds = f.scans(&mut s, &cells(&[]), 10);
        kinds.extend(f.scans(&mut s, &cells(&[("E5", Cell::Black)]), 10));
        s.handle_input(Input::Command(Command::Resign(Color::White)), 9)
            .unwrap();
        seqs.extend(std::iter::from_fn(|| s.poll_output()).map(|e| e.seq));
        // game, phase setup | link, phase play, move (drained by the feeder) | result, phase
        // finished
        let total = seqs.len() + kinds.len();
        assert_eq!(total, 7, "{kinds:?}");
        assert_eq!(seqs[..2], [1, 2]);
        assert_eq!(*seqs.last().unwrap(), total as u64);
    }

    #[test]
    fn a_new_game_keeps_the_boards_dead_sensors_points() {
        // the service tells the referee once per health report; a new game on the same board
        // has the same dead sensors
        let mut s = session();
        let e5 = Point::from_gtp("E5", 9).unwrap();
        s.set_unsensed(vec![e5]);
        s.handle_input(
            Input::Command(Command::NewGame(Box::new(GameSetup::even(9)))),
            1,
        )
        .unwrap();
        assert_eq!(s.referee().unsensed(), [e5]);
    }
}
