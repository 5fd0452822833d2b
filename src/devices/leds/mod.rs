//! The LEDs under the points, behind one small trait ([`LedDriver`]) with four drivers chosen
//! in the config file (`[leds] driver`):
//!
//! - `mcu` ([`McuLeds`]): the frame goes to the board's microcontroller in the protocol's
//!   `LedFrame` (hardware/PROTOCOL.md §5.6), acknowledged and re-sent by the link; the
//!   firmware animates it;
//! - `ws2812-spi` ([`SpiChain`] with [`Ws2812`]): WS2812/SK6812 on the Pi's SPI MOSI pin;
//! - `apa102-spi` ([`SpiChain`] with [`Apa102`]): APA102/SK9822, clocked, flicker-free on
//!   broadcast cameras;
//! - `sim` ([`SimLeds`]): the frame is kept for the live page and the terminal.
//!
//! The SPI drivers are written against embedded-hal's [`SpiBus`](embedded_hal::spi::SpiBus):
//! rppal provides it on the Pi ([`spi`], the one file to replace for another Linux backend)
//! and tests use a mock that records every byte.

mod apa102;
mod chain;
mod mcu;
mod sim;
pub mod spi;
mod ws2812;

pub use apa102::Apa102;
pub use chain::{ChainEncoding, SpiChain};
pub use mcu::McuLeds;
pub use sim::SimLeds;
pub use ws2812::Ws2812;

use crate::leds::Frame;
use smartgoban_protocol::LedFrame;

/// Why the LEDs could not be shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LedError {
    /// The SPI transfer failed.
    #[error("SPI: {0}")]
    Spi(String),
    /// A WS2812 frame does not fit one SPI transfer (the LEDs would latch half a frame).
    #[error("a WS2812 frame of {bytes} bytes does not fit one SPI transfer of {limit} bytes: raise spidev.bufsiz in /boot/firmware/cmdline.txt (e.g. spidev.bufsiz=65536) and `spi_max_transfer` in the config")]
    TooLong {
        /// Bytes of the encoded frame.
        bytes: usize,
        /// The transfer limit.
        limit: usize,
    },
    /// The device could not be opened.
    #[error("{0}")]
    Open(String),
}

/// Something that shows LED frames.
pub trait LedDriver: Send {
    /// The config name of the driver (`mcu`, `ws2812-spi`, `apa102-spi`, `sim`).
    fn name(&self) -> &'static str;

    /// Shows `frame` as it looks at `t_ms` (host ms; blinking and breathing are functions of
    /// it, PROTOCOL.md §13). Called when the frame changes and, unless
    /// [`LedDriver::animates_itself`], every [`ANIMATION_MS`] while the frame
    /// [`animates`](Frame::animated).
    ///
    /// # Errors
    /// The device failed; the next call tries again.
    fn show(&mut self, frame: &Frame, t_ms: u64) -> Result<(), LedError>;

    /// The device animates the palette's effects itself (the microcontroller, the live page).
    fn animates_itself(&self) -> bool {
        false
    }

    /// For the `mcu` driver: the frame to hand to the serial link, once per new frame.
    fn take_serial_frame(&mut self) -> Option<LedFrame> {
        None
    }
}

/// The driver `config` names (`None` for `driver = "none"`); the SPI drivers open the Pi's
/// SPI device.
///
/// # Errors
/// [`LedError::Open`] when the SPI device cannot be opened.
pub fn from_config(
    config: &crate::config::LedConfig,
) -> Result<Option<Box<dyn LedDriver>>, LedError> {
    use crate::config::LedDriverKind;
    Ok(match config.driver {
        LedDriverKind::None => None,
        LedDriverKind::Mcu => Some(Box::new(McuLeds::default())),
        LedDriverKind::Sim => Some(Box::new(SimLeds::default())),
        LedDriverKind::Ws2812Spi => Some(spi::ws2812(
            config.spi_bus,
            config.spi_ss,
            config.layout,
            config.spi_max_transfer,
        )?),
        LedDriverKind::Apa102Spi => Some(spi::apa102(
            config.spi_bus,
            config.spi_ss,
            config.spi_hz,
            config.layout,
            config.spi_max_transfer,
        )?),
    })
}

/// LEDs that could not be set up (no SPI device, SPI not enabled): every write fails with the
/// same error, so the service runs on — the referee does not need the lights — and
/// `GET /api/v1/leds` says why (`delivery: failed`).
#[derive(Debug)]
pub struct FailedLeds {
    name: &'static str,
    error: LedError,
}

impl FailedLeds {
    /// The driver `name` that failed with `error`.
    pub fn new(name: &'static str, error: LedError) -> FailedLeds {
        FailedLeds { name, error }
    }
}

impl LedDriver for FailedLeds {
    fn name(&self) -> &'static str {
        self.name
    }

    fn show(&mut self, _: &Frame, _: u64) -> Result<(), LedError> {
        Err(self.error.clone())
    }
}

/// The config name of a driver kind.
pub fn driver_name(kind: crate::config::LedDriverKind) -> &'static str {
    use crate::config::LedDriverKind;
    match kind {
        LedDriverKind::Mcu => "mcu",
        LedDriverKind::Ws2812Spi => "ws2812-spi",
        LedDriverKind::Apa102Spi => "apa102-spi",
        LedDriverKind::Sim => "sim",
        LedDriverKind::None => "none",
    }
}

/// How often the host redraws an animated frame on drivers that do not animate themselves, ms
/// (25 frames a second).
pub const ANIMATION_MS: u64 = 40;
