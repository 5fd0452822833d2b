//! The current budget: what a frame draws, and the scaling that keeps it under the limit.
//!
//! Model: a colour channel at value `v` (0–255) draws `v / 255 × channel_ma` (WS2812, APA102:
//! about 20 mA per channel at full scale, 60 mA for white). Blinking and breathing only ever
//! dim a colour (PROTOCOL.md §13), so the peak of a frame is its palette colours at full level,
//! and keeping the peak within the budget keeps every moment within it. The quiescent current
//! of the LEDs' drivers (about 1 mA each for WS2812, lit or not) is not in the budget: size the
//! supply for it separately (`hardware`).

/// Sum of the channel values (0–255 each) of every lit point at the frame's peak.
pub fn channel_sum(palette_rgb: &[[u8; 3]], points_per_slot: &[u32]) -> u64 {
    palette_rgb
        .iter()
        .zip(points_per_slot)
        .map(|(rgb, &n)| u64::from(n) * rgb.iter().map(|&c| u64::from(c)).sum::<u64>())
        .sum()
}

/// Current drawn for a channel sum, in µA (`sum × channel_ma × 1000 / 255`, rounded up).
pub fn current_ua(channel_sum: u64, channel_ma: u32) -> u64 {
    (channel_sum * u64::from(channel_ma) * 1000).div_ceil(255)
}

/// The largest channel sum within `max_current_ma`: `max_ma × 255 / channel_ma`, rounded
/// down (unlimited when `channel_ma` is 0).
pub fn max_channel_sum(max_current_ma: u32, channel_ma: u32) -> u64 {
    if channel_ma == 0 {
        return u64::MAX;
    }
    u64::from(max_current_ma) * 255 / u64::from(channel_ma)
}

/// Scales `palette_rgb` down (each channel `c × limit / sum`, rounded down) when its channel
/// sum over the points exceeds `limit`; leaves it alone otherwise. Afterwards
/// [`channel_sum`] ≤ `limit`.
pub fn fit(palette_rgb: &mut [[u8; 3]], points_per_slot: &[u32], limit: u64) {
    let sum = channel_sum(palette_rgb, points_per_slot);
    if sum <= limit {
        return;
    }
    for rgb in palette_rgb.iter_mut() {
        for c in rgb.iter_mut() {
            *c = (u64::from(*c) * limit / sum) as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn white_led_draws_sixty_ma() {
        let sum = channel_sum(&[[255, 255, 255]], &[1]);
        assert_eq!(current_ua(sum, 20), 60_000);
        assert_eq!(max_channel_sum(60, 20), 765);
    }

    #[test]
    fn fit_scales_down_to_the_limit() {
        // 361 LEDs at full white would draw 21.66 A; limit 2 A.
        let mut palette = [[255u8, 255, 255]];
        let limit = max_channel_sum(2_000, 20);
        fit(&mut palette, &[361], limit);
        let sum = channel_sum(&palette, &[361]);
        assert!(sum <= limit);
        assert!(current_ua(sum, 20) <= 2_000_000);
        assert_eq!(palette[0], [23, 23, 23]); // 255 × 25500 / 276165
                                              // Already within: unchanged.
        let mut small = [[10u8, 0, 0]];
        fit(&mut small, &[3], limit);
        assert_eq!(small[0], [10, 0, 0]);
    }
}
