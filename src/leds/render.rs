//! [`render`]: a [`Scene`] to a [`Frame`] (one palette slot and one role per point).

use smartgoban_protocol::{BoardSize, LedCells, LedFrame, LedPaint, PALETTE_LEN};

use super::budget;
use super::palette::{scale, LedSettings, Slot};
use super::scene::{Role, Scene};
use super::star_points;
use crate::rules::{Color, Point};

/// One rendered frame: what every point's LED shows.
///
/// `leds` is the frame as the board's microcontroller gets it (PROTOCOL.md §5.6; its
/// `frame_id` is 0, the link numbers frames): the palette, already scaled to the brightness
/// and the current budget, and one palette index per point in SGF order (`y * size + x`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Palette and cells.
    pub leds: LedFrame,
    /// Each point's role (SGF order), `None` for an unlit point.
    pub roles: Vec<Option<Role>>,
    /// The next stone to fix, lit brightest.
    pub next: Option<Point>,
    /// Current the frame draws at its peak (every colour at full level), µA.
    pub peak_current_ua: u64,
}

impl Frame {
    /// Every LED off (the palette all [`LedPaint::OFF`]): what a service that stops leaves
    /// on the board (issue 16).
    pub fn dark(size: BoardSize) -> Frame {
        let n = usize::from(size.get()) * usize::from(size.get());
        Frame {
            leds: LedFrame {
                frame_id: 0,
                palette: [LedPaint::OFF; PALETTE_LEN],
                cells: LedCells::new(size),
            },
            roles: vec![None; n],
            next: None,
            peak_current_ua: 0,
        }
    }

    /// Points per side.
    pub fn size(&self) -> u8 {
        self.leds.board_size().get()
    }

    /// The palette slot of point `index` (SGF order).
    pub fn slot(&self, index: usize) -> Slot {
        Slot::from_index(self.leds.cells.get(index))
    }

    /// Every point's colour at `t_ms` (any millisecond clock), SGF order (PROTOCOL.md §13).
    pub fn pixels_at(&self, t_ms: u64) -> Vec<[u8; 3]> {
        let t = (t_ms % (1 << 32)) as u32;
        let colours: Vec<[u8; 3]> = self.leds.palette.iter().map(|p| p.at(t)).collect();
        (0..self.roles.len())
            .map(|i| colours[usize::from(self.leds.cells.get(i)) % PALETTE_LEN])
            .collect()
    }

    /// Whether anything lit blinks or breathes (the drivers that animate on the host must then
    /// refresh the LEDs).
    pub fn animated(&self) -> bool {
        let mut used = [false; PALETTE_LEN];
        for i in 0..self.roles.len() {
            used[usize::from(self.leds.cells.get(i)) % PALETTE_LEN] = true;
        }
        self.leds.palette.iter().zip(used).any(|(p, used)| {
            used && p.rgb != [0, 0, 0] && p.effect != smartgoban_protocol::LedEffect::Steady
        })
    }
}

/// Renders `scene` with `settings` (DESIGN.md `leds`).
///
/// Each point takes the first mark on it; points with no mark show their star point, if any
/// and not [`covered`](Scene::covered) by a stone.
/// The palette is [`Slot::paint`], scaled by [`LedSettings::brightness`], then scaled down as
/// a whole when the frame's peak would draw more than [`LedSettings::max_current_ma`]
/// ([`budget`]). Marks off the board are ignored.
pub fn render(scene: &Scene, settings: &LedSettings) -> Frame {
    let size = scene.size;
    let board_size = BoardSize::new(size).unwrap_or(BoardSize::NINETEEN);
    let n = usize::from(board_size.get()) * usize::from(board_size.get());
    let mut slots = vec![Slot::Off; n];
    let mut roles: Vec<Option<Role>> = vec![None; n];
    for mark in &scene.marks {
        if !mark.point.is_on_board(board_size.get()) {
            continue;
        }
        let i = mark.point.index(board_size.get());
        if roles[i].is_some() {
            continue;
        }
        let next = scene.next == Some(mark.point);
        let color = mark.color.unwrap_or(Color::Black);
        let slot = match mark.role {
            Role::LastMove => match color {
                Color::Black => Slot::LastBlack,
                Color::White => Slot::LastWhite,
            },
            Role::Remove | Role::MovedTo if next => Slot::RemoveNext,
            Role::Remove | Role::MovedTo => Slot::Remove,
            Role::Restore | Role::MovedFrom => Slot::restore(color, next),
            Role::Ko => Slot::Ko,
            Role::Illegal => Slot::Illegal,
            // orange: at the count a dead stone, in play a stone whose order is in question
            Role::Dead | Role::Ambiguous => Slot::Dead,
            Role::TerritoryBlack => Slot::TerritoryBlack,
            Role::TerritoryWhite => Slot::TerritoryWhite,
            Role::Shared => Slot::Shared,
            Role::Star => Slot::Star,
        };
        slots[i] = slot;
        roles[i] = Some(mark.role);
    }
    for (x, y) in star_points(board_size.get()) {
        let point = Point::new(x, y);
        let i = point.index(board_size.get());
        if roles[i].is_none() && !scene.covered.contains(&point) {
            slots[i] = Slot::Star;
            roles[i] = Some(Role::Star);
        }
    }
    let mut counts = [0u32; PALETTE_LEN];
    for slot in &slots {
        counts[usize::from(slot.index())] += 1;
    }
    let mut rgb: Vec<[u8; 3]> = Slot::ALL
        .iter()
        .map(|s| {
            scale(
                s.paint(scene.link_up, scene.storage_ok).rgb,
                settings.brightness,
            )
        })
        .collect();
    budget::fit(
        &mut rgb,
        &counts,
        budget::max_channel_sum(settings.max_current_ma, settings.channel_ma),
    );
    let mut palette = [LedPaint::OFF; PALETTE_LEN];
    for ((entry, slot), rgb) in palette.iter_mut().zip(Slot::ALL).zip(&rgb) {
        *entry = LedPaint {
            rgb: *rgb,
            effect: slot.paint(scene.link_up, scene.storage_ok).effect,
        };
    }
    let mut cells = LedCells::new(board_size);
    for (i, slot) in slots.iter().enumerate() {
        cells.set(i, slot.index());
    }
    let peak = budget::current_ua(budget::channel_sum(&rgb, &counts), settings.channel_ma);
    Frame {
        leds: LedFrame {
            frame_id: 0,
            palette,
            cells,
        },
        roles,
        next: scene.next,
        peak_current_ua: peak,
    }
}
