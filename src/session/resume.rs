//! Outages of any length: the board's own history replayed (PROTOCOL.md §14, issue 13).
//!
//! A version-3 board keeps scanning and recording while no host listens — the data cable
//! pulled, the link silent, the service down. When such a board goes away, the session keeps
//! itself as it was at the board's last scan (the *base*) and judges nothing more: the clock
//! faces run on (for the players), but no press, call or flag is judged, and what the referee
//! does meanwhile is noted with its board time. When the board comes back with its history of
//! the outage, the session goes back to the base and replays the history scan by scan, in
//! board time, through the same stabiliser and referee — with the referee's acts at their
//! moments — so the record, the clocks (BL/WL) and the violations are what they would have
//! been had the host never been away. Events already published (the `link` `lost`, the
//! referee's acts) are not published again; the events of the replay follow, with `t_ms` the
//! host time at which each happened.
//!
//! Without the history (a board of an older version, a board that restarted, one whose ring
//! buffer no longer reaches back, no answer) the session falls back to judging the board as it
//! now lies, as after any reconnection: what was waiting at the loss is judged then.

use std::collections::VecDeque;

use super::{
    BoardChange, BoardHistory, ClockButton, Command, HistoryStatus, LinkInfo, LinkState, Press,
    ResumePoint, Session,
};
use crate::event::EventKind;
use crate::rules::Color;
use smartgoban_protocol::{Button, Cell, Side};

/// The session as it was at the board's last scan before it went away, and what the host did
/// since: what the board's history is replayed on.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Outage {
    /// The session at the last scan.
    pub(super) base: Session,
    /// The referee's and the Pi's inputs since, each with the session's board time, ms.
    pub(super) inputs: Vec<(u64, HostInput)>,
}

/// An input from the host's side (not from the board), noted during an outage.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) enum HostInput {
    /// A command (API, CLI).
    Command(Command),
    /// A clock button wired to the Pi, pressed at the session's board time `board_ms`.
    Button {
        /// Which.
        button: ClockButton,
        /// When, board time, ms.
        board_ms: u64,
    },
}

impl Session {
    /// The board went away (or the service restarted) and will tell what happened meanwhile:
    /// keep the session as it is now.
    pub(super) fn begin_outage(&mut self) {
        let mut base = self.clone();
        base.outputs.clear();
        base.outage = None;
        self.outage = Some(Box::new(Outage {
            base,
            inputs: Vec::new(),
        }));
    }

    /// Notes an input from the host's side while the board's history is awaited.
    pub(super) fn note_host_input(&mut self, input: HostInput) {
        let at = self.board_time_ms;
        if let Some(o) = &mut self.outage {
            o.inputs.push((at, input));
        }
    }

    /// The board came back without its history: the outage is over, and what waited at the
    /// loss (the presses not yet judged) is judged on the board as last seen. Returns whether
    /// a history had been awaited.
    pub(super) fn end_outage_unreplayed(&mut self) -> bool {
        if self.outage.take().is_none() {
            return false;
        }
        self.judge_all_presses();
        true
    }

    /// The board came back with its history of the outage: back to the session at its last
    /// scan, and the history replayed (module docs). A history that does not follow on from
    /// that scan is not replayed: the board is then judged as it now lies.
    pub(super) fn link_resumed(&mut self, info: LinkInfo, history: &BoardHistory) {
        let from = ResumePoint {
            boot_id: history.boot_id,
            since_ms: history.since_ms,
        };
        let base_now = self.now_ms;
        if history.gap && self.outage.is_none() && self.link.is_some() {
            // No outage: the link never went down, the board filled a gap in its scans
            // (scans it dropped while the host did not read, PROTOCOL.md §14.7). Replayed as
            // if they had come, ending now; nothing to tell the world.
            if self.resume == Some(from) {
                let span = u64::from(history.until_ms.wrapping_sub(history.since_ms));
                self.replay(history, VecDeque::new(), base_now.saturating_sub(span));
            } else {
                tracing::warn!("a history of the board that does not follow on: not replayed");
            }
            return;
        }
        let (inputs, base_now) = match self.outage.take() {
            Some(outage) if outage.base.resume == Some(from) => {
                let Outage { base, inputs } = *outage;
                let live = std::mem::replace(self, base);
                let base_now = self.now_ms;
                self.outputs = live.outputs;
                self.next_seq = live.next_seq;
                self.last_t_ms = live.last_t_ms;
                self.now_ms = live.now_ms;
                self.stats = live.stats;
                self.config = live.config;
                (inputs, base_now)
            }
            Some(outage) => {
                // not the board's history of our outage: judged as it lies
                self.outage = Some(outage);
                let awaited = self.end_outage_unreplayed();
                self.link_up_noting(
                    LinkInfo {
                        history: HistoryStatus::NoAnswer,
                        ..info
                    },
                    awaited,
                );
                return;
            }
            None if self.resume == Some(from) => (Vec::new(), base_now),
            None => {
                self.link_up_noting(
                    LinkInfo {
                        history: HistoryStatus::NoAnswer,
                        ..info
                    },
                    false,
                );
                return;
            }
        };
        let presses = history
            .changes
            .iter()
            .filter(|c| matches!(c, BoardChange::Press { .. }))
            .count() as u32;
        let changes = history.changes.len() as u32 - presses;
        let info = LinkInfo {
            history: HistoryStatus::Replayed { changes, presses },
            ..info
        };
        self.link = Some(info);
        self.offline_anchor_ms = None;
        let span = history.until_ms.wrapping_sub(history.since_ms);
        self.emit(EventKind::Link {
            state: LinkState::Connected,
            detail: format!(
                "board {}x{}, firmware {}, device {:08x}, {} scans/s; its history of the {:.1} s it was away replayed: {changes} readings and {presses} presses",
                info.board_size,
                info.board_size,
                info.firmware_version,
                info.device_id,
                info.scan_rate_hz,
                f64::from(span) / 1000.0
            ),
            history: Some(info.history),
        });
        self.replay(history, inputs.into(), base_now);
    }

    /// Replays `history` from the session's last scan (made at host time `base_host`), one
    /// scan per scan period of the board, with `inputs` (the host's, during the outage) at
    /// their board times.
    fn replay(
        &mut self,
        history: &BoardHistory,
        mut inputs: VecDeque<(u64, HostInput)>,
        base_host: u64,
    ) {
        let Some(link) = self.link else {
            return;
        };
        let n = usize::from(self.referee.game().board().size()).pow(2);
        if usize::from(link.board_size).pow(2) != n {
            return; // scans of another size are not taken in
        }
        if history.base.len() == n {
            self.cells.clone_from(&history.base);
        } else if self.cells.len() != n {
            self.cells = vec![Cell::Uncertain; n];
        }
        let period = (1000 / u64::from(link.scan_rate_hz.max(1))).max(1);
        let span = u64::from(history.until_ms.wrapping_sub(history.since_ms));
        let base_board = self.board_time_ms;
        let resumed_host = self.now_ms;
        // the host time at the end of the span: now, or later if the board's clock says more
        // time passed (the service was down and its clock did not count it)
        let end_host = resumed_host.max(base_host + span);
        let mut changes = history.changes.iter().peekable();
        let mut offset = 0;
        while offset < span {
            offset = (offset + period).min(span);
            let mut presses = Vec::new();
            while let Some(change) = changes.peek() {
                let at = u64::from(change.board_ms().wrapping_sub(history.since_ms));
                if at > offset {
                    break;
                }
                match **change {
                    BoardChange::Reading { index, cell, .. } => {
                        if let Some(c) = self.cells.get_mut(usize::from(index)) {
                            *c = cell;
                        }
                    }
                    BoardChange::Press { button, side, .. } => {
                        presses.push((press_of(button, side), base_board + at));
                    }
                }
                changes.next();
            }
            self.board_time_ms = base_board + offset;
            self.now_ms = end_host - (span - offset);
            while inputs
                .front()
                .is_some_and(|(at, _)| *at <= self.board_time_ms)
            {
                if let Some((_, input)) = inputs.pop_front() {
                    self.reapply(input);
                }
            }
            self.stats.scans += 1;
            self.sense(presses);
            self.drain_referee();
            self.run_clock();
            self.drain_referee();
        }
        for (_, input) in inputs {
            self.reapply(input);
        }
        self.now_ms = end_host;
        self.last_board_ms = Some(history.until_ms);
        self.buttons = history.live_buttons;
        self.resume = Some(ResumePoint {
            boot_id: history.boot_id,
            since_ms: history.until_ms,
        });
        self.run_clock();
        self.drain_referee();
    }

    /// An input of the host's, made during the outage, applied again at its moment of the
    /// replay; its own events were published when it was made and are not again.
    fn reapply(&mut self, input: HostInput) {
        self.drain_referee();
        let (seq, len) = (self.next_seq, self.outputs.len());
        match input {
            HostInput::Command(command) => {
                let _ = self.command(command);
            }
            HostInput::Button { button, board_ms } => self.button_at(button, board_ms),
        }
        self.drain_referee();
        self.outputs.truncate(len);
        self.next_seq = seq;
    }
}

/// Why the board's history of an outage is not replayed, for the `link` event, if it was
/// asked for (or expected: `awaited`).
pub(super) fn fallback_reason(info: &LinkInfo, awaited: bool) -> Option<String> {
    let tail = "what happened meanwhile is judged from the board as it now lies";
    match info.history {
        HistoryStatus::BoardRestarted { known_boot } => Some(format!(
            "the board restarted while the host was away (boot {known_boot:08x}, now {:08x}): its history of that time is lost; {tail}",
            info.boot_id.unwrap_or(0)
        )),
        HistoryStatus::Lost { oldest_ms } => Some(format!(
            "the board's history no longer reaches back to the host's last scan (it holds everything after board time {oldest_ms} ms); {tail}"
        )),
        HistoryStatus::NoAnswer => Some(format!(
            "the board did not give its history of the time the host was away; {tail}"
        )),
        HistoryStatus::NotAsked if awaited => Some(format!(
            "the board speaks protocol version {} and keeps no history; {tail}",
            info.protocol_version
        )),
        HistoryStatus::NotAsked | HistoryStatus::Replayed { .. } => None,
    }
}

/// The press a history entry records.
fn press_of(button: Button, side: Side) -> Press {
    let color = match side {
        Side::Black => Color::Black,
        Side::White => Color::White,
    };
    match button {
        Button::Pass => Press::Pass(color),
        Button::Resign => Press::Resign(color),
        Button::Clock => Press::Clock(color),
    }
}

#[cfg(test)]
mod tests;
