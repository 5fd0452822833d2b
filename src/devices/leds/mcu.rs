//! [`McuLeds`]: the LEDs are the board microcontroller's; frames go over the serial link.

use super::{LedDriver, LedError};
use crate::leds::Frame;
use smartgoban_protocol::LedFrame;

/// The `mcu` driver: hands each new frame to the link (`Connection::set_leds`), which sends it
/// as an `LedFrame`, re-sends it until acknowledged and after every reconnection
/// (hardware/PROTOCOL.md §5.6). The firmware animates the palette's effects.
#[derive(Debug, Default)]
pub struct McuLeds {
    outbox: Option<LedFrame>,
}

impl LedDriver for McuLeds {
    fn name(&self) -> &'static str {
        "mcu"
    }

    fn show(&mut self, frame: &Frame, _t_ms: u64) -> Result<(), LedError> {
        self.outbox = Some(frame.leds);
        Ok(())
    }

    fn animates_itself(&self) -> bool {
        true
    }

    fn take_serial_frame(&mut self) -> Option<LedFrame> {
        self.outbox.take()
    }
}
