//! Hardware beside the board, each behind a small trait with a real driver and a simulated
//! twin (DESIGN.md "Core and shell"): the clock's faces ([`face`]), buttons ([`buttons`]) and
//! voice or buzzer ([`sound`]), and the LEDs under the points ([`leds`]).

pub mod buttons;
pub mod face;
pub mod leds;
pub mod sound;

use crate::config::ClockHardwareConfig;
use crate::daemon::ClockHardware;

/// The clock hardware `config` names, on the Pi's GPIO and PWM through rppal.
///
/// # Errors
/// A part that cannot be set up (not a Pi, a pin busy, no PWM): a message naming it. The
/// buttons are started by the daemon and report their own errors there.
pub fn on_the_pi(config: &ClockHardwareConfig) -> Result<ClockHardware, String> {
    let mut hw = ClockHardware::default();
    if let Some([black, white, pause]) = config.buttons {
        hw.buttons = Some(Box::new(buttons::GpioButtons::new(black, white, pause)));
    }
    if let Some(pins) = config.faces {
        let gpio = rppal::gpio::Gpio::new().map_err(|e| format!("GPIO: {e}"))?;
        let face = |[clk, dio]: [u8; 2]| -> Result<Box<dyn face::ClockFace>, String> {
            let out = |p: u8| {
                gpio.get(p)
                    .map(|p| p.into_output())
                    .map_err(|e| format!("GPIO pin {p}: {e}"))
            };
            Ok(Box::new(face::Tm1637Face::new(
                out(clk)?,
                out(dio)?,
                rppal::hal::Delay::new(),
            )))
        };
        hw.faces = Some([face(pins[0])?, face(pins[1])?]);
    }
    let buzzer: Option<Box<dyn sound::Announcer>> = match config.buzzer_pwm {
        Some(channel) => Some(Box::new(sound::PwmBuzzer::new(channel)?)),
        None => None,
    };
    hw.announcer = match (&config.voice, buzzer) {
        (Some(dir), fallback) => Some(Box::new(sound::ClipVoice::new(dir, fallback))),
        (None, buzzer) => buzzer,
    };
    Ok(hw)
}
