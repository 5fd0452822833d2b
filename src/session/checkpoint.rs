//! Checkpoints: the whole session as JSON, kept by the store after every batch of events and
//! every second while a clock runs, and read back after a crash or a restart (issue 7,
//! "Recovery").
//!
//! A restored session is the session as it was, with the board away. A version-3 board kept
//! its own history of the time the service was down (PROTOCOL.md §14): at its next handshake
//! the history is replayed from the checkpoint's last scan (the stabiliser is in the
//! checkpoint), and the record, the clocks and the violations are what they would have been
//! had the service been up. Without that history (an older board, a board that restarted, one
//! whose history no longer reaches back) the game clock runs on the host's time from the
//! checkpoint's moment until the board is back, and the first settled board is judged against
//! the record like the board after an unplugged cable — the moves made meanwhile inferred, or
//! the board in `desync` with the exact difference (R17.6).

use super::Session;

/// How far time has run since the last checkpoint, when nothing else happened (no event):
/// kept every second while a clock runs instead of the whole session (a few bytes instead of
/// tens of KiB), and applied to the checkpoint it follows on restore. Between two events the
/// session changes only by time passing — the clock's reading is a function of board time —
/// so the checkpoint plus its beat is the session as it was at the beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Beat {
    /// The session's board time, ms (the game clock's time base).
    pub board_time_ms: u64,
    /// The session's host time, ms.
    pub now_ms: u64,
}

/// Why a checkpoint could not be read back.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the checkpoint: {0}")]
pub struct RestoreError(#[from] serde_json::Error);

impl Session {
    /// The whole session as JSON (the store's `checkpoints.state`). Events not yet taken with
    /// [`Session::poll_output`] are part of it.
    ///
    /// # Errors
    /// Never for a session built by this crate (every part is plain data); the error is
    /// serde_json's.
    pub fn checkpoint(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// The session of `checkpoint` as after a restart of the service: the link is down (a
    /// `link` `lost` event says so if it was up), the clock runs on from the checkpoint's
    /// session time (pass the shell's time from there on: see [`Session::now_ms`]), event
    /// `seq` continues after the checkpoint's last, and at `min_seq` or above. `beat`: the
    /// time that ran after the checkpoint with nothing else happening, if any. Events: events the
    /// dead run published but could not store (a full disk) had numbers above the
    /// checkpoint's, and a number is never given to two events (the shell passes the wall
    /// clock, as [`super::SessionConfig::first_seq`]).
    ///
    /// # Errors
    /// [`RestoreError`] if `checkpoint` is not a session of this version.
    pub fn restore(
        checkpoint: &str,
        beat: Option<Beat>,
        min_seq: u64,
    ) -> Result<Session, RestoreError> {
        let mut session: Session = serde_json::from_str(checkpoint)?;
        session.next_seq = session.next_seq.max(min_seq);
        // The session at its last scan: a version-3 board's history of the time the service
        // was down goes on from there (PROTOCOL.md §14); the beat only runs the faces.
        if session.link.is_some() && session.outage.is_none() && session.resume.is_some() {
            session.begin_outage();
        }
        if let Some(beat) = beat {
            session.board_time_ms = session.board_time_ms.max(beat.board_time_ms);
            session.now_ms = session.now_ms.max(beat.now_ms);
        }
        session.last_board_ms = None;
        session.restarted();
        Ok(session)
    }

    fn restarted(&mut self) {
        let now = self.now_ms;
        self.link_down("the service restarted".into());
        self.offline_anchor_ms = Some(now);
        self.drain_referee();
    }

    /// Where time stands now (see [`Beat`]).
    pub fn beat(&self) -> Beat {
        Beat {
            board_time_ms: self.board_time_ms,
            now_ms: self.now_ms,
        }
    }

    /// Session time of the latest input or timeout, ms (the shell's time base: a restored
    /// session's shell continues from here).
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// The `seq` the next event will carry.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Whether a game clock is running (not paused, not stopped): the store then keeps a
    /// reading every second.
    pub fn clock_running(&self) -> bool {
        self.clock
            .as_ref()
            .is_some_and(|c| c.running().is_some() && !c.is_paused())
    }
}
