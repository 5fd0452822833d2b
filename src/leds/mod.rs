//! The LED renderer (DESIGN.md `leds`): one colour per point from the game state, so the wood
//! shows what the referee found and what to fix. Pure and deterministic like the rest of the
//! core: no clock, no I/O; animation is a function of a time argument.
//!
//! - [`Scene`]: what the board must show, as plain data (built by
//!   [`Session::led_scene`](crate::session::Session::led_scene)): marks on points with a
//!   [`Role`], in priority order, and whether the link is up.
//! - [`render`]: a scene and the [`LedSettings`] to a [`Frame`]: the 16-entry palette of
//!   [`Slot`]s (colour and effect, already scaled to the brightness and the current budget), one
//!   slot and one role per point. [`Frame::pixels_at`] evaluates blinking and breathing at a
//!   moment.
//! - [`budget`]: the current model; a frame never asks for more than the configured current.
//! - [`Layout`]: where LED 0 sits and how the chain runs, for the drivers that drive the chain
//!   themselves (`ws2812-spi`, `apa102-spi`).
//!
//! The palette on the wood (peak colours before brightness, effects in PROTOCOL.md §13):
//!
//! | slot | role(s) | colour | effect |
//! |---|---|---|---|
//! | `star` | `star` | dim white | steady; breathing (3 s) while the link is lost |
//! | `last_black`, `last_white` | `last_move` | soft blue / soft warm white (the mover's hue) | steady |
//! | `remove` | `remove`, `moved_to` | amber | blink 1 s |
//! | `remove_next` | `remove` (next to fix) | bright amber | blink 0.5 s |
//! | `restore_black`, `restore_white` | `restore`, `moved_from` | the hue of the stone that belongs there | steady |
//! | `restore_black_next`, `restore_white_next` | `restore` (next to fix) | that hue, brighter | breathe 1.5 s |
//! | `ko` | `ko` | violet | steady |
//! | `illegal` | `illegal` | red | blink 0.4 s |
//! | `dead` | `dead` | orange | steady |
//! | `territory_black`, `territory_white` | `territory_black`, `territory_white` | each side's hue, dim | steady |
//! | `shared` | `shared` | both hues mixed, dim | steady |

pub mod budget;
mod layout;
mod palette;
mod render;
mod scene;
mod view;

pub use layout::{Corner, Layout, LayoutError, Order};
pub use palette::{LedSettings, Slot, BLACK_HUE, WHITE_HUE};
pub use render::{render, Frame};
pub use scene::{Mark, Role, Scene};
pub use view::{LedView, PaintView};

/// A text diagram of an LED frame: one [`Slot::symbol`] per point, rows top first with their
/// numbers, columns lettered as in GTP (A–T without I). `slots` holds the palette index of
/// every point in SGF order (`y * size + x`).
pub fn diagram(size: u8, slots: impl Fn(usize) -> u8) -> String {
    const LETTERS: &str = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let n = usize::from(size);
    let mut out = String::from("   ");
    for c in LETTERS.chars().take(n) {
        out.push(c);
        out.push(' ');
    }
    out.push('\n');
    for y in 0..n {
        out += &format!("{:>2} ", n - y);
        for x in 0..n {
            out.push(Slot::from_index(slots(y * n + x)).symbol());
            out.push(' ');
        }
        out.push('\n');
    }
    out
}

/// The star points (hoshi) of a board of `size`, as (x, y) from the top left: nine on boards
/// from 15 up (odd), the four corners and the centre on odd boards from 7 to 13, the four
/// corners on even boards from 8, none below 7.
pub fn star_points(size: u8) -> Vec<(u8, u8)> {
    if size < 7 {
        return Vec::new();
    }
    let edge = if size >= 13 { 3 } else { 2 };
    let far = size - 1 - edge;
    let mid = size / 2;
    let mut stars = vec![(edge, edge), (far, edge), (edge, far), (far, far)];
    if size % 2 == 1 {
        stars.push((mid, mid));
        if size >= 15 {
            stars.extend([(mid, edge), (edge, mid), (far, mid), (mid, far)]);
        }
    }
    stars
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_points_of_the_usual_boards() {
        let mut s19 = star_points(19);
        s19.sort_unstable();
        assert_eq!(
            s19,
            [
                (3, 3),
                (3, 9),
                (3, 15),
                (9, 3),
                (9, 9),
                (9, 15),
                (15, 3),
                (15, 9),
                (15, 15)
            ]
        );
        let mut s13 = star_points(13);
        s13.sort_unstable();
        assert_eq!(s13, [(3, 3), (3, 9), (6, 6), (9, 3), (9, 9)]);
        let mut s9 = star_points(9);
        s9.sort_unstable();
        assert_eq!(s9, [(2, 2), (2, 6), (4, 4), (6, 2), (6, 6)]);
        assert!(star_points(5).is_empty());
    }
}
