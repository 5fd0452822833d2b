//! The physical board: stones where they lie, hands, bounces and misreads, read out as scans.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::action::Action;
use super::noise::NoiseParams;
use crate::rules::{Color, Point};
use smartgoban_protocol::{BoardSize, Cell, PackedCells};

#[derive(Clone, Copy, Debug)]
struct Hand {
    center: Point,
    radius: u8,
    until_ms: u64,
}

/// The board's physical state and its sensors. Deterministic for a given seed.
#[derive(Debug)]
pub struct Physics {
    board_size: BoardSize,
    size: u8,
    stones: Vec<Option<Color>>,
    hands: Vec<Hand>,
    /// (point index, scans left)
    bounces: Vec<(usize, u32)>,
    /// (point index, reading, scans left)
    glitches: Vec<(usize, Cell, u32)>,
    wrong_colour_per_mille: u32,
    misread_every_scans: u32,
    misread_scans: std::ops::RangeInclusive<u32>,
}

impl Physics {
    /// An empty board of `size` with the sensor noise of `params`.
    pub fn new(board_size: BoardSize, params: &NoiseParams) -> Self {
        let size = board_size.get();
        let n = usize::from(size) * usize::from(size);
        Physics {
            board_size,
            size,
            stones: vec![None; n],
            hands: Vec::new(),
            bounces: Vec::new(),
            glitches: Vec::new(),
            wrong_colour_per_mille: params.wrong_colour_per_mille,
            misread_every_scans: params.misread_every_scans,
            misread_scans: params.misread_scans.clone(),
        }
    }

    /// Points per side.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// The stone lying on `point`.
    pub fn stone(&self, point: Point) -> Option<Color> {
        self.index(point).and_then(|i| self.stones[i])
    }

    fn index(&self, p: Point) -> Option<usize> {
        (p.x < self.size && p.y < self.size).then(|| p.index(self.size))
    }

    /// Applies a board action at board time `now_ms`. Button presses and unplugging are the
    /// device's business and are ignored here.
    pub fn apply(&mut self, action: &Action, now_ms: u64, rng: &mut ChaCha8Rng) {
        match action {
            Action::Place { color, point } => {
                if let Some(i) = self.index(*point) {
                    self.stones[i] = Some(*color);
                }
            }
            Action::Remove { points } => {
                for p in points {
                    if let Some(i) = self.index(*p) {
                        self.stones[i] = None;
                    }
                }
            }
            Action::Slide { from, to } => {
                if let (Some(a), Some(b)) = (self.index(*from), self.index(*to)) {
                    if let Some(stone) = self.stones[a].take() {
                        self.stones[b] = Some(stone);
                    }
                }
            }
            Action::Hand {
                center,
                radius,
                duration_ms,
            } => self.hands.push(Hand {
                center: *center,
                radius: *radius,
                until_ms: now_ms + duration_ms,
            }),
            Action::Bounce { point, scans } => {
                if let Some(i) = self.index(*point) {
                    self.bounces.push((i, *scans));
                }
            }
            Action::Glitch {
                point,
                reading,
                scans,
            } => {
                if let Some(i) = self.index(*point) {
                    self.glitches.push((i, *reading, *scans));
                }
            }
            Action::Scatter { count } => self.scatter(*count, rng),
            Action::Pass(_)
            | Action::Resign(_)
            | Action::Clock(_)
            | Action::Unplug { .. }
            | Action::Fault(_) => {}
        }
    }

    /// Knocks `count` random stones to a random free neighbour, or off the board.
    fn scatter(&mut self, count: u32, rng: &mut ChaCha8Rng) {
        for _ in 0..count {
            let occupied: Vec<usize> = (0..self.stones.len())
                .filter(|&i| self.stones[i].is_some())
                .collect();
            if occupied.is_empty() {
                return;
            }
            let i = occupied[rng.random_range(0..occupied.len())];
            let p = Point::from_index(i, self.size);
            let free: Vec<usize> = neighbours(p, self.size)
                .into_iter()
                .map(|n| n.index(self.size))
                .filter(|&j| self.stones[j].is_none())
                .collect();
            let stone = self.stones[i].take();
            if !free.is_empty() && rng.random_range(0..4) != 0 {
                self.stones[free[rng.random_range(0..free.len())]] = stone;
            }
        }
    }

    /// Reads every sensor at board time `now_ms` (one scan).
    pub fn scan(&mut self, now_ms: u64, rng: &mut ChaCha8Rng) -> PackedCells {
        let mut cells: Vec<Cell> = self
            .stones
            .iter()
            .map(|s| match s {
                None => Cell::Empty,
                Some(Color::Black) => Cell::Black,
                Some(Color::White) => Cell::White,
            })
            .collect();
        // random misreads of single points
        if self.misread_every_scans > 0 && rng.random_range(0..self.misread_every_scans) == 0 {
            let i = rng.random_range(0..cells.len());
            let wrong = loop {
                let c = random_cell(rng);
                if c != cells[i] {
                    break c;
                }
            };
            let scans = rng.random_range(self.misread_scans.clone());
            self.glitches.push((i, wrong, scans));
        }
        self.hands.retain(|h| h.until_ms > now_ms);
        for hand in &self.hands {
            for p in covered(hand.center, hand.radius, self.size) {
                let i = p.index(self.size);
                cells[i] = if rng.random_range(0..1000) < self.wrong_colour_per_mille {
                    if rng.random_bool(0.5) {
                        Cell::Black
                    } else {
                        Cell::White
                    }
                } else {
                    Cell::Uncertain
                };
            }
        }
        for (i, left) in self.bounces.iter_mut() {
            let truth = cells[*i];
            cells[*i] = match rng.random_range(0..3) {
                0 => Cell::Uncertain,
                1 => Cell::Empty,
                _ => truth,
            };
            *left -= 1;
        }
        self.bounces.retain(|&(_, left)| left > 0);
        for (i, reading, left) in self.glitches.iter_mut() {
            cells[*i] = *reading;
            *left = left.saturating_sub(1);
        }
        self.glitches.retain(|&(_, _, left)| left > 0);
        PackedCells::from_cells(self.board_size, cells)
            .unwrap_or_else(|_| PackedCells::new(self.board_size))
    }
}

pub(super) fn random_cell(rng: &mut ChaCha8Rng) -> Cell {
    match rng.random_range(0..4) {
        0 => Cell::Empty,
        1 => Cell::Black,
        2 => Cell::White,
        _ => Cell::Uncertain,
    }
}

fn neighbours(p: Point, size: u8) -> Vec<Point> {
    let mut v = Vec::with_capacity(4);
    if p.x > 0 {
        v.push(Point::new(p.x - 1, p.y));
    }
    if p.x + 1 < size {
        v.push(Point::new(p.x + 1, p.y));
    }
    if p.y > 0 {
        v.push(Point::new(p.x, p.y - 1));
    }
    if p.y + 1 < size {
        v.push(Point::new(p.x, p.y + 1));
    }
    v
}

/// Points under a round hand of `radius` points centred on `center`.
fn covered(center: Point, radius: u8, size: u8) -> impl Iterator<Item = Point> {
    let r = i32::from(radius);
    let (cx, cy) = (i32::from(center.x), i32::from(center.y));
    (-r..=r).flat_map(move |dy| {
        (-r..=r).filter_map(move |dx| {
            let (x, y) = (cx + dx, cy + dy);
            let inside = dx * dx + dy * dy <= r * r + r;
            (inside && x >= 0 && y >= 0 && x < i32::from(size) && y < i32::from(size))
                .then(|| Point::new(x as u8, y as u8))
        })
    })
}
