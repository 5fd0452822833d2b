//! [`SimLeds`]: no LEDs; the frame is kept for whoever shows it (the live page, the terminal).

use std::sync::{Arc, Mutex};

use super::{LedDriver, LedError};
use crate::leds::Frame;

/// The `sim` driver: keeps the frame shown; the live page draws it from `GET /api/v1/leds`.
#[derive(Debug, Default, Clone)]
pub struct SimLeds {
    shown: Arc<Mutex<Option<Frame>>>,
}

impl SimLeds {
    /// The frame shown now.
    pub fn shown(&self) -> Option<Frame> {
        self.shown.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl LedDriver for SimLeds {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn show(&mut self, frame: &Frame, _t_ms: u64) -> Result<(), LedError> {
        *self.shown.lock().unwrap_or_else(|e| e.into_inner()) = Some(frame.clone());
        Ok(())
    }

    fn animates_itself(&self) -> bool {
        true
    }
}
