//! [`SpiChain`]: a chain of LEDs on an SPI bus, in the order of a [`Layout`], with an
//! encoding ([`ChainEncoding`]: [`Ws2812`](super::Ws2812), [`Apa102`](super::Apa102)).

use embedded_hal::spi::SpiBus;

use super::{LedDriver, LedError};
use crate::leds::{Frame, Layout};

/// How pixels become SPI bytes.
pub trait ChainEncoding: Send {
    /// The config name of the driver.
    fn name(&self) -> &'static str;
    /// Writes the bytes for `pixels` (RGB, in chain order) to `out` (cleared first).
    fn encode(&self, pixels: &[[u8; 3]], out: &mut Vec<u8>);
    /// The stream may be cut into several SPI transfers (clocked LEDs); if not, a frame must
    /// fit one transfer.
    fn split_ok(&self) -> bool;
}

/// LEDs chained on an SPI bus.
pub struct SpiChain<S, E> {
    spi: S,
    encoding: E,
    layout: Layout,
    /// The most bytes one transfer may carry (spidev's `bufsiz`, 4096 by default).
    max_transfer: usize,
    bytes: Vec<u8>,
    /// What was last written, to skip identical writes.
    written: Vec<u8>,
    pixels: Vec<[u8; 3]>,
}

impl<S, E> std::fmt::Debug for SpiChain<S, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpiChain")
            .field("layout", &self.layout)
            .field("max_transfer", &self.max_transfer)
            .finish_non_exhaustive()
    }
}

impl<S: SpiBus<u8> + Send, E: ChainEncoding> SpiChain<S, E> {
    /// A chain on `spi` wired as `layout`, with transfers of at most `max_transfer` bytes.
    pub fn new(spi: S, encoding: E, layout: Layout, max_transfer: usize) -> Self {
        SpiChain {
            spi,
            encoding,
            layout,
            max_transfer: max_transfer.max(1),
            bytes: Vec::new(),
            written: Vec::new(),
            pixels: Vec::new(),
        }
    }

    /// The bus (for tests: the mock and what it recorded).
    pub fn bus(&self) -> &S {
        &self.spi
    }

    /// Writes `pixels` in point order (SGF order) of a board of `size` to the chain.
    ///
    /// # Errors
    /// [`LedError::TooLong`] for an encoding that cannot be split and does not fit one
    /// transfer; [`LedError::Spi`] when the bus fails.
    pub fn write_points(&mut self, pixels: &[[u8; 3]], size: u8) -> Result<(), LedError> {
        self.pixels.clear();
        self.pixels.extend(
            self.layout
                .chain(size)
                .into_iter()
                .map(|i| pixels.get(i).copied().unwrap_or([0, 0, 0])),
        );
        self.encoding.encode(&self.pixels, &mut self.bytes);
        if self.bytes == self.written {
            return Ok(());
        }
        if !self.encoding.split_ok() && self.bytes.len() > self.max_transfer {
            return Err(LedError::TooLong {
                bytes: self.bytes.len(),
                limit: self.max_transfer,
            });
        }
        for chunk in self.bytes.chunks(self.max_transfer) {
            self.spi
                .write(chunk)
                .map_err(|e| LedError::Spi(format!("{:?}", embedded_hal::spi::Error::kind(&e))))?;
        }
        self.spi
            .flush()
            .map_err(|e| LedError::Spi(format!("{:?}", embedded_hal::spi::Error::kind(&e))))?;
        std::mem::swap(&mut self.written, &mut self.bytes);
        Ok(())
    }
}

impl<S: SpiBus<u8> + Send, E: ChainEncoding> LedDriver for SpiChain<S, E> {
    fn name(&self) -> &'static str {
        self.encoding.name()
    }

    fn show(&mut self, frame: &Frame, t_ms: u64) -> Result<(), LedError> {
        let pixels = frame.pixels_at(t_ms);
        self.write_points(&pixels, frame.size())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Apa102, Ws2812};
    use super::*;
    use crate::leds::{render, LedSettings, Role, Scene};
    use crate::rules::Point;

    /// An SPI bus that records every transfer.
    #[derive(Default)]
    pub struct RecordingBus {
        pub transfers: Vec<Vec<u8>>,
    }

    impl embedded_hal::spi::ErrorType for RecordingBus {
        type Error = std::convert::Infallible;
    }

    impl SpiBus<u8> for RecordingBus {
        fn read(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
            Ok(())
        }
        fn write(&mut self, words: &[u8]) -> Result<(), Self::Error> {
            self.transfers.push(words.to_vec());
            Ok(())
        }
        fn transfer(&mut self, _: &mut [u8], write: &[u8]) -> Result<(), Self::Error> {
            self.write(write)
        }
        fn transfer_in_place(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
            Ok(())
        }
        fn flush(&mut self) -> Result<(), Self::Error> {
            Ok(())
        }
    }

    #[test]
    fn ws2812_frame_in_chain_order_in_one_transfer() {
        // 9×9, LED 0 at A9, serpentine rows: LED 17 is A8 (the second row runs back).
        let mut chain = SpiChain::new(RecordingBus::default(), Ws2812, Layout::default(), 4096);
        let mut pixels = vec![[0u8; 3]; 81];
        pixels[Point::from_gtp("A8", 9).unwrap().index(9)] = [0xFF, 0, 0];
        chain.write_points(&pixels, 9).unwrap();
        assert_eq!(chain.bus().transfers.len(), 1);
        let bytes = &chain.bus().transfers[0];
        assert_eq!(bytes.len(), 90 + 81 * 9 + 90);
        let led = |n: usize| &bytes[90 + n * 9..90 + n * 9 + 9];
        assert_eq!(
            led(17),
            [0x92, 0x49, 0x24, 0xDB, 0x6D, 0xB6, 0x92, 0x49, 0x24],
            "G 0, R 255, B 0"
        );
        assert_eq!(
            led(9),
            [0x92, 0x49, 0x24, 0x92, 0x49, 0x24, 0x92, 0x49, 0x24]
        );
        // The same pixels again: nothing written.
        chain.write_points(&pixels, 9).unwrap();
        assert_eq!(chain.bus().transfers.len(), 1);
        // Too long for one transfer: refused, nothing written.
        let mut small = SpiChain::new(RecordingBus::default(), Ws2812, Layout::default(), 512);
        assert!(matches!(
            small.write_points(&pixels, 9),
            Err(LedError::TooLong {
                bytes: 909,
                limit: 512
            })
        ));
        assert!(small.bus().transfers.is_empty());
    }

    #[test]
    fn apa102_frame_split_into_transfers() {
        let layout = Layout::parse("bottom-left", "rows").unwrap();
        let mut chain = SpiChain::new(RecordingBus::default(), Apa102, layout, 1000);
        let mut scene = Scene::idle(19, true);
        scene.mark(Point::from_gtp("A1", 19).unwrap(), Role::Illegal, None);
        let frame = render(&scene, &LedSettings::default());
        chain.show(&frame, 0).unwrap();
        let t = &chain.bus().transfers;
        assert_eq!(t.iter().map(Vec::len).collect::<Vec<_>>(), [1000, 475]);
        let all: Vec<u8> = t.concat();
        // LED 0 is A1: red at half brightness (blinking, on at t = 0).
        assert_eq!(&all[4..8], &[0xFF, 0, 0, 128]);
        // Off at t = 200 ms (a 0.4 s blink).
        chain.show(&frame, 200).unwrap();
        let all: Vec<u8> = chain.bus().transfers[2..].concat();
        assert_eq!(&all[4..8], &[0xFF, 0, 0, 0]);
    }
}
