//! The Pi's SPI bus through rppal: the one file to replace to move the SPI drivers to another
//! Linux backend (rppal is no longer maintained upstream); everything else uses embedded-hal's
//! `SpiBus`.

use super::{Apa102, LedDriver, LedError, SpiChain, Ws2812};
use crate::leds::Layout;

/// Opens `/dev/spidev{bus}.{slave_select}` at `clock_hz`, mode 0.
///
/// # Errors
/// [`LedError::Open`] naming the device (not a Pi, SPI not enabled in `config.txt`, a bus or
/// slave select that does not exist).
pub fn open(bus: u8, slave_select: u8, clock_hz: u32) -> Result<rppal::spi::Spi, LedError> {
    use rppal::spi::{Bus, Mode, SlaveSelect, Spi};
    let bus_id = match bus {
        0 => Bus::Spi0,
        1 => Bus::Spi1,
        2 => Bus::Spi2,
        3 => Bus::Spi3,
        4 => Bus::Spi4,
        5 => Bus::Spi5,
        6 => Bus::Spi6,
        other => {
            return Err(LedError::Open(format!(
                "SPI bus {other} does not exist (0–6)"
            )))
        }
    };
    let ss = match slave_select {
        0 => SlaveSelect::Ss0,
        1 => SlaveSelect::Ss1,
        2 => SlaveSelect::Ss2,
        other => {
            return Err(LedError::Open(format!(
                "SPI slave select {other} does not exist (0–2)"
            )))
        }
    };
    Spi::new(bus_id, ss, clock_hz, Mode::Mode0).map_err(|e| {
        LedError::Open(format!(
            "/dev/spidev{bus}.{slave_select}: {e} (enable SPI with dtparam=spi=on in /boot/firmware/config.txt)"
        ))
    })
}

/// The `ws2812-spi` driver on the Pi: SPI at 2.4 MHz ([`Ws2812::SPI_HZ`]).
///
/// # Errors
/// As [`open`].
pub fn ws2812(
    bus: u8,
    slave_select: u8,
    layout: Layout,
    max_transfer: usize,
) -> Result<Box<dyn LedDriver>, LedError> {
    let spi = open(bus, slave_select, Ws2812::SPI_HZ)?;
    Ok(Box::new(SpiChain::new(spi, Ws2812, layout, max_transfer)))
}

/// The `apa102-spi` driver on the Pi, at `clock_hz` (APA102 takes up to ~20 MHz; a few MHz is
/// safe over long wires).
///
/// # Errors
/// As [`open`].
pub fn apa102(
    bus: u8,
    slave_select: u8,
    clock_hz: u32,
    layout: Layout,
    max_transfer: usize,
) -> Result<Box<dyn LedDriver>, LedError> {
    let spi = open(bus, slave_select, clock_hz)?;
    Ok(Box::new(SpiChain::new(spi, Apa102, layout, max_transfer)))
}
