//! [`HealthAsk`]: the host's side of the sensors' health (hardware/PROTOCOL.md §5.17–§5.18):
//! after each handshake of a version-4 session, once the history exchange is decided, the
//! host sends a `HealthRequest`, again every [`RESEND_MS`] until the board answers, at most
//! [`MAX_ASKS`] times a session (a board that never answers is served without a report). The
//! last report is kept through reconnections until a new one replaces it (a recalibrated
//! board reports anew at its next handshake). Sans-IO: [`crate::link::Connection`] drives it.

use smartgoban_protocol::calibration::SensorHealth;

/// A `HealthRequest` not answered within this long is sent again, host ms.
pub const RESEND_MS: u64 = 1_000;

/// The most `HealthRequest`s sent in one session.
pub const MAX_ASKS: u32 = 5;

/// The state of asking the board for its sensors' health.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HealthAsk {
    /// When the next request is due (host ms), while one is wanted.
    due_ms: Option<u64>,
    /// Requests sent in this session.
    asks: u32,
    /// The board's last report.
    report: Option<SensorHealth>,
}

impl HealthAsk {
    /// A session of a board that speaks version 4 started at `now_ms`: ask (again).
    pub fn start(&mut self, now_ms: u64) {
        self.due_ms = Some(now_ms);
        self.asks = 0;
    }

    /// The session ended, or its board does not speak version 4: ask nothing.
    pub fn stop(&mut self) {
        self.due_ms = None;
    }

    /// Whether to send a `HealthRequest` at `now_ms`; `ready`: the session is past its history
    /// exchange (nothing delays catching up).
    pub fn poll(&mut self, now_ms: u64, ready: bool) -> bool {
        match self.due_ms {
            Some(due) if ready && now_ms >= due => {
                self.asks += 1;
                self.due_ms = (self.asks < MAX_ASKS).then_some(now_ms + RESEND_MS);
                true
            }
            _ => false,
        }
    }

    /// When [`HealthAsk::poll`] must next run, host ms.
    pub fn deadline(&self, ready: bool) -> Option<u64> {
        self.due_ms.filter(|_| ready)
    }

    /// A report came; taken when it is of the session's `board_size`. Returns whether it was.
    pub fn on_report(&mut self, report: SensorHealth, board_size: Option<u8>) -> bool {
        if board_size != Some(report.board_size().get()) {
            return false;
        }
        self.report = Some(report);
        self.due_ms = None;
        true
    }

    /// The board's last report.
    pub fn report(&self) -> Option<&SensorHealth> {
        self.report.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smartgoban_protocol::BoardSize;

    #[test]
    fn asks_once_ready_again_until_answered_at_most_five_times() {
        let mut h = HealthAsk::default();
        assert!(!h.poll(0, true), "no session");
        h.start(100);
        assert!(!h.poll(100, false), "history exchange under way");
        assert_eq!(h.deadline(false), None);
        assert!(h.poll(150, true));
        assert!(!h.poll(151, true));
        assert_eq!(h.deadline(true), Some(1_150));
        let mut sent = 1;
        for t in (1_150..20_000).step_by(100) {
            sent += u32::from(h.poll(t, true));
        }
        assert_eq!(sent, MAX_ASKS);
        assert_eq!(h.deadline(true), None);
    }

    #[test]
    fn a_report_of_the_board_s_size_stops_the_asking_and_is_kept() {
        let mut h = HealthAsk::default();
        h.start(0);
        assert!(h.poll(0, true));
        let mut report = SensorHealth::new(BoardSize::NINE, true);
        report.set(40, 1);
        assert!(!h.on_report(report, Some(19)), "another size");
        assert!(h.report().is_none());
        assert!(h.on_report(report, Some(9)));
        assert_eq!(h.report().map(|r| r.get(40)), Some(1));
        assert!(!h.poll(5_000, true));
        // a new session asks again; the old report stays until a new one comes
        h.stop();
        h.start(6_000);
        assert!(h.poll(6_000, true));
        assert!(h.report().is_some());
    }
}
