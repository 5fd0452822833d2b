//! [`Apa102`]: the APA102 / SK9822 encoding (clock and data lines: SPI's SCLK and MOSI).
//!
//! A start frame of 32 zero bits, then 32 bits per LED: `111` and a 5-bit global brightness,
//! then blue, green, red; then an end frame. The LEDs' own PWM runs at about 20 kHz, so they do
//! not flicker on broadcast cameras — as long as the 5-bit global brightness stays at 31: on
//! the APA102 a lower value adds a slow (~580 Hz) PWM that cameras see. So brightness and the
//! current budget are applied to the 8-bit colours and the global field is always 31 (`0xFF`).
//! End frame: 4 zero bytes (the SK9822 latches on them) and then `ceil(n / 16)` zero bytes (the
//! data is delayed half a clock per LED, so n/2 more clock edges push it to the last LED).
//! Being clocked, the stream may be cut into several SPI transfers.

use super::chain::ChainEncoding;

/// The APA102/SK9822 encoding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Apa102;

impl ChainEncoding for Apa102 {
    fn name(&self) -> &'static str {
        "apa102-spi"
    }

    fn encode(&self, pixels: &[[u8; 3]], out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&[0; 4]);
        for &[r, g, b] in pixels {
            out.extend_from_slice(&[0xFF, b, g, r]);
        }
        out.extend_from_slice(&[0; 4]);
        out.resize(out.len() + pixels.len().div_ceil(16), 0);
    }

    fn split_ok(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_by_hand() {
        let mut out = Vec::new();
        Apa102.encode(&[[0x12, 0x34, 0x56], [255, 0, 0], [0, 0, 1]], &mut out);
        assert_eq!(
            out,
            [
                0x00, 0x00, 0x00, 0x00, // start frame
                0xFF, 0x56, 0x34, 0x12, // LED 0: global 31, B, G, R
                0xFF, 0x00, 0x00, 0xFF, // LED 1: red
                0xFF, 0x01, 0x00, 0x00, // LED 2: faint blue
                0x00, 0x00, 0x00, 0x00, // SK9822 latch
                0x00, // ceil(3 / 16) = 1 byte of extra clock
            ]
        );
        Apa102.encode(&[[0, 0, 0]; 361], &mut out);
        assert_eq!(out.len(), 4 + 361 * 4 + 4 + 23);
    }
}
