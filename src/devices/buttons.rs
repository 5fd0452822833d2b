//! The clock's buttons: one per player and the referee's pause button, on GPIO (issue "Game
//! clock", hardware). Each press goes to the service as a [`ButtonPress`] with the moment it
//! happened on the monotonic clock ([`std::time::Instant`]); debouncing of the contacts is the
//! driver's, a second press within 80 ms is the session's.

use std::time::Instant;

use tokio::sync::mpsc;

use crate::rules::Color;
pub use crate::session::ClockButton;

/// One press.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ButtonPress {
    /// Which button.
    pub button: ClockButton,
    /// When, on the monotonic clock.
    pub at: Instant,
}

/// Buttons that report presses into a channel until dropped.
pub trait ClockButtons: Send {
    /// Starts reporting presses into `tx`.
    ///
    /// # Errors
    /// The buttons cannot be set up (no GPIO, pin busy): a message for people.
    fn start(&mut self, tx: mpsc::UnboundedSender<ButtonPress>) -> Result<(), String>;
}

/// The simulated buttons: presses come from [`SimButtons::press`].
#[derive(Debug, Default)]
pub struct SimButtons {
    tx: Option<mpsc::UnboundedSender<ButtonPress>>,
}

impl SimButtons {
    /// Buttons nobody presses yet.
    pub fn new() -> SimButtons {
        SimButtons::default()
    }

    /// Presses `button` now. Returns false if the buttons were not started.
    pub fn press(&self, button: ClockButton) -> bool {
        self.tx.as_ref().is_some_and(|tx| {
            tx.send(ButtonPress {
                button,
                at: Instant::now(),
            })
            .is_ok()
        })
    }
}

impl ClockButtons for SimButtons {
    fn start(&mut self, tx: mpsc::UnboundedSender<ButtonPress>) -> Result<(), String> {
        self.tx = Some(tx);
        Ok(())
    }
}

/// Buttons on the Pi's GPIO through rppal: each pin (BCM number) an input with the pull-up
/// on, pressed = pulled to ground; a falling edge, debounced 5 ms by rppal's interrupt thread,
/// is a press.
#[derive(Debug)]
pub struct GpioButtons {
    /// BCM pins: Black's, White's, pause.
    pins: [(u8, ClockButton); 3],
    held: Vec<rppal::gpio::InputPin>,
}

impl GpioButtons {
    /// Black's, White's and the pause button on these BCM pins.
    pub fn new(black: u8, white: u8, pause: u8) -> GpioButtons {
        GpioButtons {
            pins: [
                (black, ClockButton::Player(Color::Black)),
                (white, ClockButton::Player(Color::White)),
                (pause, ClockButton::Pause),
            ],
            held: Vec::new(),
        }
    }
}

impl ClockButtons for GpioButtons {
    fn start(&mut self, tx: mpsc::UnboundedSender<ButtonPress>) -> Result<(), String> {
        let gpio = rppal::gpio::Gpio::new().map_err(|e| format!("GPIO: {e}"))?;
        for (pin, button) in self.pins {
            let mut input = gpio
                .get(pin)
                .map_err(|e| format!("GPIO pin {pin}: {e}"))?
                .into_input_pullup();
            let tx = tx.clone();
            input
                .set_async_interrupt(
                    rppal::gpio::Trigger::FallingEdge,
                    Some(std::time::Duration::from_millis(5)),
                    move |_| {
                        let _ = tx.send(ButtonPress {
                            button,
                            at: Instant::now(),
                        });
                    },
                )
                .map_err(|e| format!("GPIO pin {pin} interrupt: {e}"))?;
            self.held.push(input);
        }
        Ok(())
    }
}
