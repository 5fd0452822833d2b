//! The LEDs in the service: after every change the session's [`Scene`](crate::leds::Scene) is
//! rendered; a new frame goes to the driver (the `mcu` driver's through the serial link), an
//! animated one is redrawn every [`ANIMATION_MS`] on drivers that do not animate themselves,
//! and a failed write is tried again on the next turn.

use serde::Serialize;

use crate::devices::leds::{LedDriver, ANIMATION_MS};
use crate::leds::{render, Frame, LedSettings, LedView};
use crate::link::{Connection, LedDelivery};
use crate::session::Session;

/// The LEDs a daemon drives.
pub struct LedOutput {
    /// The driver.
    pub driver: Box<dyn LedDriver>,
    /// Brightness and current budget.
    pub settings: LedSettings,
}

impl std::fmt::Debug for LedOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LedOutput")
            .field("driver", &self.driver.name())
            .field("settings", &self.settings)
            .finish()
    }
}

/// The LEDs as `GET /api/v1/leds` serves them: the frame being shown and where it stands.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LedsSnapshot {
    /// The frame.
    #[serde(flatten)]
    pub view: LedView,
    /// The driver (`mcu`, `ws2812-spi`, `apa102-spi`, `sim`).
    pub driver: &'static str,
    /// `shown` (written to the LEDs, or acknowledged by the board with the right CRC),
    /// `pending` (sent, not yet acknowledged; or waiting for the link), `unsupported` (the
    /// board speaks protocol version 1, without LEDs), `failed` (the driver failed: `error`).
    pub delivery: &'static str,
    /// The link's id of the frame (the `mcu` driver).
    pub frame_id: Option<u16>,
    /// The driver's last error, while it lasts.
    pub error: Option<String>,
    /// Brightness and current budget in force.
    pub settings: LedSettings,
}

pub(super) struct Leds {
    output: LedOutput,
    frame: Option<Frame>,
    error: Option<String>,
    last_draw_ms: u64,
}

impl Leds {
    pub(super) fn new(output: LedOutput) -> Leds {
        Leds {
            output,
            frame: None,
            error: None,
            last_draw_ms: 0,
        }
    }

    /// Renders the session's scene and shows it if it changed, is animated and due, or the
    /// last write failed.
    pub(super) fn refresh(&mut self, session: &Session, connection: &mut Connection, now_ms: u64) {
        let frame = render(&session.led_scene(), &self.output.settings);
        let changed = self.frame.as_ref() != Some(&frame);
        let due = !self.output.driver.animates_itself()
            && frame.animated()
            && now_ms >= self.last_draw_ms + ANIMATION_MS;
        if changed || due || self.error.is_some() {
            self.last_draw_ms = now_ms;
            match self.output.driver.show(&frame, now_ms) {
                Ok(()) => {
                    if self.error.take().is_some() {
                        tracing::info!("the LEDs answer again");
                    }
                }
                Err(e) => {
                    let msg = e.to_string();
                    if self.error.as_deref() != Some(msg.as_str()) {
                        tracing::error!("LEDs: {msg}");
                    }
                    self.error = Some(msg);
                }
            }
        }
        if let Some(serial) = self.output.driver.take_serial_frame() {
            connection.set_leds(serial, now_ms);
        }
        if changed {
            self.frame = Some(frame);
        }
    }

    /// When the LEDs must be redrawn next, host ms (animated frames on drivers that do not
    /// animate themselves).
    pub(super) fn poll_timeout(&self) -> Option<u64> {
        let frame = self.frame.as_ref()?;
        (!self.output.driver.animates_itself() && frame.animated())
            .then_some(self.last_draw_ms + ANIMATION_MS)
    }

    pub(super) fn snapshot(&self, connection: &Connection) -> Option<LedsSnapshot> {
        let frame = self.frame.as_ref()?;
        let (delivery, frame_id) = if self.error.is_some() {
            ("failed", None)
        } else if self.output.driver.name() == "mcu" {
            match connection.led_delivery() {
                LedDelivery::Shown { frame_id } => ("shown", Some(frame_id)),
                LedDelivery::Pending { frame_id } => ("pending", Some(frame_id)),
                LedDelivery::Unsupported => ("unsupported", None),
                LedDelivery::Idle => ("pending", None),
            }
        } else {
            ("shown", None)
        };
        Some(LedsSnapshot {
            view: LedView::of(frame),
            driver: self.output.driver.name(),
            delivery,
            frame_id,
            error: self.error.clone(),
            settings: self.output.settings,
        })
    }
}
