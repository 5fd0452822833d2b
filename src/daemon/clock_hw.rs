//! The clock's hardware in the service: the buttons' presses go into the session, the faces
//! show the session's clocks (written when a frame changes, and again after a write failed:
//! a face that lost its link catches up as soon as it answers; the time itself is the
//! session's and never depends on a face).

use std::time::Instant;

use tokio::sync::mpsc;

use crate::devices::buttons::{ButtonPress, ClockButtons};
use crate::devices::face::{ClockFace, FaceFrame};
use crate::devices::sound::{Announcer, SpokenCall};
use crate::event::{ClockView, EventKind};

/// The clock devices a daemon drives (`None` parts are absent).
#[derive(Default)]
pub struct ClockHardware {
    /// The players' and the pause buttons.
    pub buttons: Option<Box<dyn ClockButtons>>,
    /// Black's face, White's face.
    pub faces: Option<[Box<dyn ClockFace>; 2]>,
    /// The timekeeper's voice (or buzzer) for the calls.
    pub announcer: Option<Box<dyn Announcer>>,
}

impl std::fmt::Debug for ClockHardware {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClockHardware")
            .field("buttons", &self.buttons.is_some())
            .field("faces", &self.faces.is_some())
            .field("announcer", &self.announcer.is_some())
            .finish()
    }
}

/// The running devices.
pub(super) struct ClockDevices {
    faces: Option<[Box<dyn ClockFace>; 2]>,
    shown: [Option<FaceFrame>; 2],
    pub(super) presses: Option<mpsc::UnboundedReceiver<ButtonPress>>,
    _buttons: Option<Box<dyn ClockButtons>>,
    announcer: Option<Box<dyn Announcer>>,
    pub(super) face_errors: u64,
}

impl ClockDevices {
    /// Starts the buttons. A button driver that cannot start is reported and left out: the
    /// board's own clock buttons and the API still work.
    pub(super) fn start(hw: ClockHardware) -> ClockDevices {
        let mut presses = None;
        let mut buttons = hw.buttons;
        if let Some(b) = &mut buttons {
            let (tx, rx) = mpsc::unbounded_channel();
            match b.start(tx) {
                Ok(()) => presses = Some(rx),
                Err(e) => tracing::error!("clock buttons: {e}"),
            }
        }
        ClockDevices {
            faces: hw.faces,
            shown: [None; 2],
            presses,
            _buttons: buttons,
            announcer: hw.announcer,
            face_errors: 0,
        }
    }

    /// Speaks a `call` event.
    pub(super) fn announce(&mut self, kind: &EventKind) {
        let (
            Some(announcer),
            EventKind::Call {
                color,
                text,
                minutes_left,
                periods_left,
                unit_end,
                ..
            },
        ) = (&mut self.announcer, kind)
        else {
            return;
        };
        let call = SpokenCall {
            color: *color,
            text: text.clone(),
            minutes_left: *minutes_left,
            periods_left: *periods_left,
            unit_end: *unit_end,
        };
        if let Err(e) = announcer.announce(&call) {
            tracing::warn!("{e}");
        }
    }

    /// Blanks both faces (the service stops): no digit, no colon.
    pub(super) fn blank(&mut self) {
        let Some(faces) = &mut self.faces else {
            return;
        };
        let blank = FaceFrame {
            digits: [None; 4],
            colon: false,
        };
        for (i, face) in faces.iter_mut().enumerate() {
            match face.show(blank) {
                Ok(()) => self.shown[i] = Some(blank),
                Err(e) => tracing::warn!("cannot blank the clock face on the way out: {e}"),
            }
        }
    }

    /// Shows `view` on the faces (blank clocks without a time control).
    pub(super) fn refresh(&mut self, view: Option<&ClockView>) {
        let Some(faces) = &mut self.faces else {
            return;
        };
        let Some(view) = view else {
            return;
        };
        for (i, reading) in [&view.black, &view.white].into_iter().enumerate() {
            let frame = FaceFrame::of(reading);
            if self.shown[i] == Some(frame) {
                continue;
            }
            match faces[i].show(frame) {
                Ok(()) => self.shown[i] = Some(frame),
                Err(e) => {
                    if self.shown[i].is_some() {
                        tracing::warn!("{e}");
                    }
                    self.face_errors += 1;
                    self.shown[i] = None;
                }
            }
        }
    }
}

/// Host ms of a press, in the daemon's time base (ms since `start`).
pub(super) fn host_ms(start: Instant, press: &ButtonPress) -> u64 {
    press.at.saturating_duration_since(start).as_millis() as u64
}
