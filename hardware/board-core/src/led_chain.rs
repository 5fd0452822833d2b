//! The board's LED chain (hardware/WIRING.md "LEDs"): the host's [`LedFrame`] (§5.6, with its
//! effects, §13) turned into one colour per LED along the chain, the link-lost pattern while
//! the host is silent, and a hard current cap.
//!
//! The chain runs in serpentine rows from the top-left point seen from Black (LED 0 under
//! point 0, LED 18 under point 18, LED 19 under point 37, …: WIRING.md, the host's default
//! `[leds] order`). The host already keeps its frames under `[leds] max_current_ma`; the
//! firmware caps again at [`MAX_CURRENT_MA`] so that no frame, effect or bug can draw more than
//! the supply gives ([`Chain::render`]).

use smartgoban_protocol::{BoardSize, LedFrame};

use crate::MAX_POINTS;

/// Current of one WS2812B channel at full scale (255), mA (WIRING.md: `channel_ma`).
pub const CHANNEL_MA: u32 = 20;

/// The most the chain's colours may draw, mA: the 5 V / 4 A supply less what the sensors'
/// regulator (about 1.6 A at 5 V) and the RP2040 take (hardware/BOM.md "Power budget").
pub const MAX_CURRENT_MA: u32 = 2_000;

/// Period of the link-lost pattern, ms: the corners and the centre breathe amber once in it.
pub const LINK_LOST_PERIOD_MS: u32 = 2_000;

/// The link-lost colour at full level: amber, dim (about 10 mA a LED at its brightest).
pub const LINK_LOST_RGB: [u8; 3] = [96, 32, 0];

/// The LED under each point and the colours to send.
#[derive(Clone, Debug)]
pub struct Chain {
    size: BoardSize,
}

impl Chain {
    /// The chain of a `size` board.
    pub const fn new(size: BoardSize) -> Chain {
        Chain { size }
    }

    /// LEDs on the chain: size².
    pub fn len(&self) -> usize {
        let n = usize::from(self.size.get());
        n * n
    }

    /// Whether the chain has no LED (never: the smallest board has 81).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The point (index in SGF order, §6) under LED `led`; `None` past the chain's end.
    pub fn point(&self, led: usize) -> Option<usize> {
        let n = usize::from(self.size.get());
        if led >= n * n {
            return None;
        }
        let (row, along) = (led / n, led % n);
        let x = if row % 2 == 0 { along } else { n - 1 - along };
        Some(row * n + x)
    }

    /// The colours (red, green, blue) to send along the chain at board time `t_ms` into
    /// `out[..len()]` (the rest of `out` is left alone), and returns the current they draw, mA
    /// (channels only). With `link_lost`, or without a frame, the board shows the link-lost
    /// pattern: every LED dark but the four corners and the centre, breathing amber. Every
    /// colour is scaled by the same factor so that the total stays under [`MAX_CURRENT_MA`].
    pub fn render(
        &self,
        frame: Option<&LedFrame>,
        link_lost: bool,
        t_ms: u32,
        out: &mut [[u8; 3]; MAX_POINTS],
    ) -> u32 {
        let n = usize::from(self.size.get());
        let marks = [0, n - 1, n * n / 2, n * (n - 1), n * n - 1];
        let breath = smartgoban_protocol::LedEffect::Breathe {
            period_ds: (LINK_LOST_PERIOD_MS / 100) as u8,
        }
        .level(t_ms);
        let mut units: u32 = 0;
        for (led, slot) in out.iter_mut().enumerate().take(self.len()) {
            let Some(point) = self.point(led) else {
                break;
            };
            let rgb = match frame.filter(|f| !link_lost && f.board_size() == self.size) {
                Some(frame) => frame.color_at(point, t_ms),
                None if marks.contains(&point) => {
                    LINK_LOST_RGB.map(|c| (u32::from(c) * u32::from(breath) / 255) as u8)
                }
                None => [0; 3],
            };
            units += rgb.iter().map(|&c| u32::from(c)).sum::<u32>();
            *slot = rgb;
        }
        // Units of 1/255 of a channel's full current: the cap in those units.
        let cap = MAX_CURRENT_MA * 255 / CHANNEL_MA;
        if units > cap {
            let mut scaled: u32 = 0;
            for slot in out.iter_mut().take(self.len()) {
                *slot = slot.map(|c| (u32::from(c) * cap / units) as u8);
                scaled += slot.iter().map(|&c| u32::from(c)).sum::<u32>();
            }
            units = scaled;
        }
        units * CHANNEL_MA / 255
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use smartgoban_protocol::{LedCells, LedEffect, LedPaint, PALETTE_LEN};

    fn frame(size: BoardSize, paint: LedPaint, points: &[usize]) -> LedFrame {
        let mut palette = [LedPaint::OFF; PALETTE_LEN];
        palette[3] = paint;
        let mut cells = LedCells::new(size);
        for &p in points {
            cells.set(p, 3);
        }
        LedFrame {
            frame_id: 1,
            palette,
            cells,
        }
    }

    #[test]
    fn the_chain_runs_in_serpentine_rows_and_visits_every_point_once() {
        for size in BoardSize::ALL {
            let chain = Chain::new(size);
            let n = usize::from(size.get());
            let mut seen = std::vec![false; n * n];
            for led in 0..chain.len() {
                let p = chain.point(led).unwrap();
                assert!(!seen[p], "{size:?}: point {p} twice");
                seen[p] = true;
            }
            assert!(seen.iter().all(|&s| s));
            assert_eq!(chain.point(n * n), None);
        }
        let chain = Chain::new(BoardSize::NINETEEN);
        // As the host's default layout: LED 18 is T19 (18), LED 19 is T18 (37), LED 37 A18 (19).
        assert_eq!(
            [0, 18, 19, 37, 38, 360].map(|l| chain.point(l).unwrap()),
            [0, 18, 37, 19, 38, 360]
        );
    }

    #[test]
    fn a_frame_is_shown_with_its_effects_along_the_chain() {
        let paint = LedPaint {
            rgb: [255, 0, 0],
            effect: LedEffect::Blink { period_ds: 10 },
        };
        // Point 19 (A18) sits under LED 37 on 19x19.
        let f = frame(BoardSize::NINETEEN, paint, &[19]);
        let chain = Chain::new(BoardSize::NINETEEN);
        let mut out = [[9; 3]; MAX_POINTS];
        let ma = chain.render(Some(&f), false, 0, &mut out);
        assert_eq!(out[37], [255, 0, 0]);
        assert_eq!(out.iter().filter(|c| **c != [0; 3]).count(), 1);
        assert_eq!(ma, CHANNEL_MA);
        // Blink: off in the second half of its second.
        chain.render(Some(&f), false, 700, &mut out);
        assert_eq!(out[37], [0; 3]);
        // A 9x9 chain leaves the rest of the buffer alone.
        let mut out = [[9; 3]; MAX_POINTS];
        Chain::new(BoardSize::NINE).render(None, true, 0, &mut out);
        assert_eq!(out[81], [9; 3]);
    }

    #[test]
    fn the_link_lost_pattern_breathes_on_the_corners_and_the_centre() {
        let chain = Chain::new(BoardSize::NINETEEN);
        let paint = LedPaint {
            rgb: [0, 0, 200],
            effect: LedEffect::Steady,
        };
        let f = frame(BoardSize::NINETEEN, paint, &[100, 200]);
        let mut out = [[0; 3]; MAX_POINTS];
        // At the top of its breath (half the period).
        let top = LINK_LOST_PERIOD_MS / 2;
        for (frame, lost) in [(None, false), (Some(&f), true)] {
            chain.render(frame, lost, top, &mut out);
            let lit: std::vec::Vec<usize> = (0..361)
                .filter(|&l| out[l] != [0; 3])
                .map(|l| chain.point(l).unwrap())
                .collect();
            let mut lit = lit;
            lit.sort();
            assert_eq!(lit, [0, 18, 180, 342, 360]);
            assert_eq!(out[0], LINK_LOST_RGB.map(|c| (c as u32 * 255 / 255) as u8));
        }
        // It breathes: dark at the start of the period.
        chain.render(None, true, 0, &mut out);
        assert!(out.iter().all(|c| *c == [0; 3]));
        // A frame of another size is not shown either.
        let small = frame(BoardSize::NINE, paint, &[4]);
        chain.render(Some(&small), false, top, &mut out);
        assert_ne!(out[0], [0; 3]);
    }

    #[test]
    fn no_frame_draws_more_than_the_cap() {
        let chain = Chain::new(BoardSize::NINETEEN);
        let white = LedPaint {
            rgb: [255, 255, 255],
            effect: LedEffect::Steady,
        };
        let all: std::vec::Vec<usize> = (0..361).collect();
        let f = frame(BoardSize::NINETEEN, white, &all);
        let mut out = [[0; 3]; MAX_POINTS];
        let ma = chain.render(Some(&f), false, 0, &mut out);
        assert!(ma <= MAX_CURRENT_MA, "{ma} mA");
        // Scaled, not cut: every LED still lit alike, and close to the cap.
        assert!(out.iter().all(|c| *c == out[0] && c[0] > 0));
        assert!(ma > MAX_CURRENT_MA * 9 / 10, "{ma} mA");
        // A frame under the cap is shown as sent.
        let f = frame(BoardSize::NINETEEN, white, &all[..20]);
        let ma = chain.render(Some(&f), false, 0, &mut out);
        assert_eq!(ma, 20 * 3 * CHANNEL_MA);
        assert_eq!(out[0], [255; 3]);
    }
}
