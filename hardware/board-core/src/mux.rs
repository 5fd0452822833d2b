//! The order in which the firmware reads the sensors through the two levels of 74HC4067
//! multiplexers (hardware/WIRING.md "The sensor PCB"): sensor `i` on channel `i mod 16` of
//! level-1 multiplexer `i div 16`; level-1 multiplexers 0–15 on level-2 multiplexer A
//! (ADC0), 16–22 on B (ADC1). The level-1 address (GP2–GP5) changes 16 times a scan, the
//! level-2 address (GP6–GP9) once per reading pair: for each level-1 channel, each level-2
//! channel is read on A and, where B has a multiplexer on it, on B.

use crate::MAX_POINTS;

/// Channels of a 74HC4067.
pub const CHANNELS: usize = 16;

/// Level-1 multiplexers on the largest board: ceil(361 / 16) = 23.
pub const LEVEL1_MUXES: usize = MAX_POINTS.div_ceil(CHANNELS);

/// One reading of the scan: the two addresses to set, the ADC input to convert and the point
/// it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    /// Level-1 address (S0–S3 of all level-1 multiplexers: GP2–GP5, bit 0 on GP2).
    pub level1: u8,
    /// Level-2 address (S0–S3 of both level-2 multiplexers: GP6–GP9, bit 0 on GP6).
    pub level2: u8,
    /// ADC input: 0 (GP26, multiplexer A) or 1 (GP27, multiplexer B).
    pub adc: u8,
    /// The point read (SGF order, §6).
    pub point: u16,
}

/// Every reading of one scan of a board of `points` points (81, 169 or 361; at most
/// [`MAX_POINTS`]), in the order the firmware takes them: each point exactly once, the
/// level-1 address outermost.
pub fn scan_order(points: usize) -> impl Iterator<Item = Reading> {
    let points = points.min(MAX_POINTS);
    (0..CHANNELS).flat_map(move |level1| {
        (0..CHANNELS).flat_map(move |level2| {
            // On A: level-1 multiplexer `level2`; on B: level-1 multiplexer 16 + `level2`.
            [(0u8, level2), (1u8, CHANNELS + level2)]
                .into_iter()
                .filter_map(move |(adc, mux)| {
                    let point = mux * CHANNELS + level1;
                    (point < points).then_some(Reading {
                        level1: level1 as u8,
                        level2: level2 as u8,
                        adc,
                        point: point as u16,
                    })
                })
        })
    })
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    #[test]
    fn every_point_is_read_once_on_the_wiring_s_channels() {
        for points in [81, 169, 361] {
            let order: Vec<Reading> = scan_order(points).collect();
            assert_eq!(order.len(), points);
            let mut seen = std::vec![false; points];
            for r in &order {
                let p = usize::from(r.point);
                assert!(!seen[p], "point {p} twice");
                seen[p] = true;
                // WIRING.md: sensor i on channel i mod 16 of level-1 multiplexer i div 16.
                assert_eq!(usize::from(r.level1), p % 16);
                let mux = p / 16;
                let (adc, level2) = if mux < 16 { (0, mux) } else { (1, mux - 16) };
                assert_eq!((usize::from(r.adc), usize::from(r.level2)), (adc, level2));
            }
        }
        // B has level-1 multiplexers 16-22 only: its channels 7-15 are never read for a point.
        assert!(scan_order(361).all(|r| r.adc == 0 || r.level2 < 7));
        assert_eq!(LEVEL1_MUXES, 23);
    }

    #[test]
    fn the_level1_address_changes_sixteen_times_a_scan() {
        let order: Vec<Reading> = scan_order(361).collect();
        let changes = order
            .windows(2)
            .filter(|w| w[0].level1 != w[1].level1)
            .count();
        assert_eq!(changes, 15);
        assert_eq!(scan_order(400).count(), 361, "never past the largest board");
    }
}
