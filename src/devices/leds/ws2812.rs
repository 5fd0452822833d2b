//! [`Ws2812`]: the WS2812 (NeoPixel) one-wire encoding, made with SPI's MOSI line.
//!
//! A WS2812 reads a bit from the length of a high pulse in a 1.25 µs slot: a `0` is about
//! 0.4 µs high then 0.85 µs low, a `1` about 0.8 µs high then 0.45 µs low; 24 bits per LED in
//! the order green, red, blue, most significant bit first; a low line for more than 280 µs
//! (WS2812B; 50 µs for the first WS2812) latches the frame. At an SPI clock of 2.4 MHz
//! (0.417 µs a bit) three SPI bits make one WS2812 bit: `0` → `100` (0.417 µs high), `1` →
//! `110` (0.833 µs high). One colour byte becomes three SPI bytes; one LED nine. So a 19×19
//! board is 361 × 9 = 3,249 bytes, plus [`Ws2812::RESET_BYTES`] of zeros (0.3 ms low) before
//! and after: 3,429 bytes, within spidev's default 4,096-byte transfer (one transfer is needed:
//! a pause between two transfers longer than the latch time would cut the frame).

use super::chain::ChainEncoding;

/// The WS2812 encoding over SPI at [`Ws2812::SPI_HZ`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ws2812;

impl Ws2812 {
    /// The SPI clock this encoding needs: 2.4 MHz.
    pub const SPI_HZ: u32 = 2_400_000;
    /// Zero bytes before and after the LED data: 90 bytes = 300 µs low at 2.4 MHz (latch).
    pub const RESET_BYTES: usize = 90;

    /// The three SPI bytes of one colour byte, most significant bit first, each bit as
    /// `100` (0) or `110` (1).
    pub const fn encode_byte(byte: u8) -> [u8; 3] {
        let mut bits: u32 = 0;
        let mut i = 0;
        while i < 8 {
            let one = (byte >> (7 - i)) & 1 == 1;
            bits = (bits << 3) | if one { 0b110 } else { 0b100 };
            i += 1;
        }
        [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8]
    }
}

impl ChainEncoding for Ws2812 {
    fn name(&self) -> &'static str {
        "ws2812-spi"
    }

    fn encode(&self, pixels: &[[u8; 3]], out: &mut Vec<u8>) {
        out.clear();
        out.resize(Self::RESET_BYTES, 0);
        for &[r, g, b] in pixels {
            for byte in [g, r, b] {
                out.extend_from_slice(&Self::encode_byte(byte));
            }
        }
        out.resize(out.len() + Self::RESET_BYTES, 0);
    }

    fn split_ok(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_by_hand() {
        // 0xFF: eight `110` = 110110110 110110110 110110110 → DB 6D B6.
        assert_eq!(Ws2812::encode_byte(0xFF), [0xDB, 0x6D, 0xB6]);
        // 0x00: eight `100` = 100100100 100100100 100100100 → 92 49 24.
        assert_eq!(Ws2812::encode_byte(0x00), [0x92, 0x49, 0x24]);
        // 0xA5 = 1010 0101: 110 100 110 100 100 110 100 110
        //      = 1101 0011 | 0100 1001 | 1010 0110 → D3 49 A6.
        assert_eq!(Ws2812::encode_byte(0xA5), [0xD3, 0x49, 0xA6]);
    }

    #[test]
    fn two_pixels_in_grb_order_between_resets() {
        let mut out = Vec::new();
        // Pixel 0 red (255, 0, 0), pixel 1 (0x00, 0xA5, 0xFF).
        Ws2812.encode(&[[255, 0, 0], [0x00, 0xA5, 0xFF]], &mut out);
        assert_eq!(out.len(), 90 + 18 + 90);
        assert!(out[..90].iter().all(|&b| b == 0));
        assert_eq!(
            &out[90..108],
            &[
                0x92, 0x49, 0x24, // G 0x00
                0xDB, 0x6D, 0xB6, // R 0xFF
                0x92, 0x49, 0x24, // B 0x00
                0xD3, 0x49, 0xA6, // G 0xA5
                0x92, 0x49, 0x24, // R 0x00
                0xDB, 0x6D, 0xB6, // B 0xFF
            ]
        );
        assert!(out[108..].iter().all(|&b| b == 0));
        // A 19×19 board fits spidev's default transfer.
        Ws2812.encode(&[[1, 2, 3]; 361], &mut out);
        assert_eq!(out.len(), 3_429);
    }
}
