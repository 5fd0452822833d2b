//! [`LedView`]: a frame as `GET /api/v1/leds` serves it (DESIGN.md "HTTP API").

use std::collections::BTreeMap;

use serde::Serialize;
use smartgoban_protocol::LedEffect;

use super::palette::Slot;
use super::render::Frame;
use super::scene::Role;
use crate::rules::Point;

/// One palette entry as served.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct PaintView {
    /// The slot's name (`remove`, `restore_black_next`, …).
    pub slot: Slot,
    /// Peak colour, `#rrggbb` (after brightness and the current budget).
    pub rgb: String,
    /// `steady`, `blink` or `breathe` (PROTOCOL.md §13).
    pub effect: &'static str,
    /// Period of a blink or breathe, ms.
    pub period_ms: Option<u32>,
}

/// A frame as served: what every point shows and why.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct LedView {
    /// Points per side.
    pub size: u8,
    /// The role of every lit point, by GTP point.
    pub roles: BTreeMap<String, Role>,
    /// The next stone to fix (lit brightest), GTP.
    pub next: Option<String>,
    /// Every point's colour at its peak, `#rrggbb`, rows top first (row `size` first, as seen
    /// from Black), columns A to T.
    pub rgb: Vec<Vec<String>>,
    /// The palette slot of every point, rows top first (index into `palette`).
    pub slots: Vec<Vec<u8>>,
    /// The 16 palette entries.
    pub palette: Vec<PaintView>,
    /// The current the frame draws at its peak, mA.
    pub peak_current_ma: f64,
    /// Something lit blinks or breathes.
    pub animated: bool,
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

impl LedView {
    /// The view of `frame`.
    pub fn of(frame: &Frame) -> LedView {
        let size = frame.size();
        let n = usize::from(size);
        let roles = frame
            .roles
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.map(|r| (Point::from_index(i, size).to_gtp(size), r)))
            .collect();
        let palette: Vec<PaintView> = Slot::ALL
            .iter()
            .zip(frame.leds.palette.iter())
            .map(|(&slot, paint)| {
                let (effect, period) = match paint.effect {
                    LedEffect::Steady => ("steady", None),
                    LedEffect::Blink { period_ds } => ("blink", Some(u32::from(period_ds) * 100)),
                    LedEffect::Breathe { period_ds } => {
                        ("breathe", Some(u32::from(period_ds) * 100))
                    }
                };
                PaintView {
                    slot,
                    rgb: hex(paint.rgb),
                    effect,
                    period_ms: period,
                }
            })
            .collect();
        let slots: Vec<Vec<u8>> = (0..n)
            .map(|y| (0..n).map(|x| frame.leds.cells.get(y * n + x)).collect())
            .collect();
        let rgb = slots
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&s| palette[usize::from(s) % palette.len()].rgb.clone())
                    .collect()
            })
            .collect();
        LedView {
            size,
            roles,
            next: frame.next.map(|p| p.to_gtp(size)),
            rgb,
            slots,
            palette,
            peak_current_ma: frame.peak_current_ua as f64 / 1000.0,
            animated: frame.animated(),
        }
    }
}
