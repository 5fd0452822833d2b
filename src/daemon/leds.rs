//! The LEDs in the service: after every change the session's [`Scene`](crate::leds::Scene) is
//! rendered; a new frame goes to the driver (the `mcu` driver's through the serial link), an
//! animated one is redrawn every [`ANIMATION_MS`] on drivers that do not animate themselves,
//! and a failed write is tried again a second later.

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
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct LedsSnapshot {
    /// The frame.
    #[serde(flatten)]
    pub view: LedView,
    /// The driver (`mcu`, `ws2812-spi`, `apa102-spi`, `sim`).
    pub driver: &'static str,
    /// `shown` (written to the LEDs, or acknowledged by the board with the right CRC),
    /// `pending` (sent, not yet acknowledged; or waiting for the link), `unacknowledged` (sent
    /// 10 times or more without the board acknowledging this frame with its CRC; still
    /// re-sent), `wrong_size` (the board's grid is another size than the game's),
    /// `unsupported` (the board speaks protocol version 1, without LEDs, or refused our
    /// version), `failed` (the driver failed: `error`).
    pub delivery: &'static str,
    /// LED frames the link sent again (`mcu`).
    pub resends: u64,
    /// Acknowledgements whose CRC differed from the frame sent (`mcu`).
    pub mismatches: u64,
    /// The link's id of the frame (the `mcu` driver).
    pub frame_id: Option<u16>,
    /// The driver's last error, while it lasts.
    pub error: Option<String>,
    /// Brightness and current budget in force.
    pub settings: LedSettings,
}

/// How often a failed LED device is tried again, ms.
const RETRY_MS: u64 = 1_000;

pub(super) struct Leds {
    output: LedOutput,
    frame: Option<Frame>,
    error: Option<String>,
    last_draw_ms: u64,
    /// The delivery last logged, so each change is logged once.
    logged: &'static str,
    /// The delivery last reported by [`Leds::delivery_changed`].
    published: (&'static str, Option<u16>),
}

impl Leds {
    pub(super) fn new(output: LedOutput) -> Leds {
        Leds {
            output,
            frame: None,
            error: None,
            last_draw_ms: 0,
            logged: "pending",
            published: ("pending", None),
        }
    }

    /// Renders the session's scene and shows it if it changed, is animated and due, or the
    /// last write failed. `(now_ms, wire_ms)`: session time and the link's time.
    pub(super) fn refresh(
        &mut self,
        session: &Session,
        connection: &mut Connection,
        (now_ms, wire_ms): (u64, u64),
        storage_ok: bool,
    ) {
        let mut scene = session.led_scene();
        scene.storage_ok = storage_ok;
        let frame = render(&scene, &self.output.settings);
        let changed = self.frame.as_ref() != Some(&frame);
        let due = !self.output.driver.animates_itself()
            && frame.animated()
            && now_ms >= self.last_draw_ms + ANIMATION_MS;
        // A failed device is tried again once a second, not at every scan.
        let retry = self.error.is_some() && now_ms >= self.last_draw_ms + RETRY_MS;
        if changed || due || retry {
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
            connection.set_leds(serial, wire_ms);
        }
        if changed {
            self.frame = Some(frame);
        }
        let (delivery, _) = self.delivery(connection);
        if delivery != self.logged {
            match delivery {
                "unacknowledged" => tracing::warn!(
                    "the board does not acknowledge the LED frame (no answer, or another CRC: {} so far)",
                    connection.stats().led_mismatches
                ),
                "wrong_size" => tracing::error!(
                    "the board's grid is another size than the game's: no LED frames"
                ),
                "unsupported" => {
                    tracing::warn!("the board has no LED frames (protocol version 1)")
                }
                _ => {}
            }
            self.logged = delivery;
        }
    }

    /// Shows every LED dark (the service stops): on the device, and to the board's link for
    /// the `mcu` driver. An error is logged; there is nothing to retry on the way out.
    pub(super) fn blank(
        &mut self,
        connection: &mut Connection,
        (now_ms, wire_ms): (u64, u64),
        size: u8,
    ) {
        let size = smartgoban_protocol::BoardSize::new(size)
            .unwrap_or(smartgoban_protocol::BoardSize::NINETEEN);
        let frame = crate::leds::Frame::dark(size);
        if let Err(e) = self.output.driver.show(&frame, now_ms) {
            tracing::warn!("LEDs: cannot blank them on the way out: {e}");
        }
        if let Some(serial) = self.output.driver.take_serial_frame() {
            connection.set_leds(serial, wire_ms);
        }
        self.frame = Some(frame);
    }

    /// Where the frame stands, and its link id.
    fn delivery(&self, connection: &Connection) -> (&'static str, Option<u16>) {
        if self.error.is_some() {
            return ("failed", None);
        }
        if self.output.driver.name() != "mcu" {
            return ("shown", None);
        }
        match connection.led_delivery() {
            LedDelivery::Shown { frame_id } => ("shown", Some(frame_id)),
            LedDelivery::Pending { frame_id } => ("pending", Some(frame_id)),
            LedDelivery::Unacknowledged { frame_id, .. } => ("unacknowledged", Some(frame_id)),
            LedDelivery::WrongSize { .. } => ("wrong_size", None),
            LedDelivery::Unsupported => ("unsupported", None),
            LedDelivery::Idle => ("pending", None),
        }
    }

    /// Whether where the frame stands changed since the last call (so the snapshot says so
    /// at once, not at the next periodic refresh).
    pub(super) fn delivery_changed(&mut self, connection: &Connection) -> bool {
        let now = self.delivery(connection);
        let changed = now != self.published;
        self.published = now;
        changed
    }

    /// When the LEDs must be redrawn next, host ms (animated frames on drivers that do not
    /// animate themselves).
    pub(super) fn poll_timeout(&self) -> Option<u64> {
        if self.error.is_some() {
            return Some(self.last_draw_ms + RETRY_MS);
        }
        let frame = self.frame.as_ref()?;
        (!self.output.driver.animates_itself() && frame.animated())
            .then_some(self.last_draw_ms + ANIMATION_MS)
    }

    pub(super) fn snapshot(&self, connection: &Connection) -> Option<LedsSnapshot> {
        let frame = self.frame.as_ref()?;
        let (delivery, frame_id) = self.delivery(connection);
        Some(LedsSnapshot {
            view: LedView::of(frame),
            driver: self.output.driver.name(),
            delivery,
            resends: connection.stats().led_resends,
            mismatches: connection.stats().led_mismatches,
            frame_id,
            error: self.error.clone(),
            settings: self.output.settings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::devices::leds::LedError;
    use crate::link::LinkConfig;
    use crate::referee::GameSetup;
    use crate::session::SessionConfig;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::sync::Arc;

    /// Fails its first `fail` writes, counts them all.
    struct Flaky {
        fail: u32,
        calls: Arc<AtomicU32>,
    }

    impl LedDriver for Flaky {
        fn name(&self) -> &'static str {
            "ws2812-spi"
        }
        fn show(&mut self, _: &Frame, _: u64) -> Result<(), LedError> {
            let n = self.calls.fetch_add(1, Ordering::Relaxed);
            if n < self.fail {
                Err(LedError::Spi("bus gone".into()))
            } else {
                Ok(())
            }
        }
    }

    #[test]
    fn a_failing_device_is_reported_and_tried_again_once_a_second() {
        let calls = Arc::new(AtomicU32::new(0));
        let mut leds = Leds::new(LedOutput {
            driver: Box::new(Flaky {
                fail: 2,
                calls: calls.clone(),
            }),
            settings: LedSettings::default(),
        });
        let mut session = Session::new(SessionConfig::default(), &GameSetup::even(9)).unwrap();
        // With the link up the idle frame is steady (it breathes while the link is lost).
        session
            .handle_input(
                crate::session::Input::LinkUp(crate::session::LinkInfo {
                    board_size: 9,
                    firmware_version: 1,
                    device_id: 1,
                    scan_rate_hz: 50,
                    ..Default::default()
                }),
                0,
            )
            .unwrap();
        let mut conn = Connection::new(LinkConfig::default());
        leds.refresh(&session, &mut conn, (0, 0), true);
        let snap = leds.snapshot(&conn).unwrap();
        assert_eq!(snap.delivery, "failed");
        assert_eq!(snap.error.as_deref(), Some("SPI: bus gone"));
        // The same frame, 50 scans later: not tried again before a second has passed.
        for t in (20..1000).step_by(20) {
            leds.refresh(&session, &mut conn, (t, t), true);
        }
        assert_eq!(calls.load(Ordering::Relaxed), 1);
        assert_eq!(leds.poll_timeout(), Some(1000));
        leds.refresh(&session, &mut conn, (1000, 1000), true);
        assert_eq!(calls.load(Ordering::Relaxed), 2);
        leds.refresh(&session, &mut conn, (2000, 2000), true);
        assert_eq!(calls.load(Ordering::Relaxed), 3);
        let snap = leds.snapshot(&conn).unwrap();
        assert_eq!((snap.delivery, snap.error), ("shown", None));
        // Steady frame on a device that does not animate: nothing more to do.
        leds.refresh(&session, &mut conn, (3000, 3000), true);
        assert_eq!(calls.load(Ordering::Relaxed), 3);
        assert_eq!(leds.poll_timeout(), None);
        // The link goes: the star points breathe, redrawn every 40 ms.
        session
            .handle_input(
                crate::session::Input::LinkDown {
                    reason: "unplugged".into(),
                },
                3000,
            )
            .unwrap();
        for t in (3000..=4000).step_by(20) {
            leds.refresh(&session, &mut conn, (t, t), true);
        }
        assert_eq!(calls.load(Ordering::Relaxed), 3 + 26);
    }
}
