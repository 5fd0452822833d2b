//! The calibration of a board's Hall sensors as `smartgoban calibrate` guides a person through
//! it (hardware/PROTOCOL.md §15): a sans-IO state machine fed with the board's raw readings
//! (every point's, as `RawReadings` bring them) and the person's Enter, with host timestamps;
//! out come the LED frame to show (where to put stones: `prompt::PUT_BLACK`,
//! `prompt::PUT_WHITE`), the prompt, the progress and, at the end, the readings of every
//! pattern for [`compute`]. The shell (`src/cli/calibrate.rs`) moves the bytes and the terminal.
//!
//! The steps, each with its LED frame:
//! 1. **empty board** (dark): the person clears the board and presses Enter; 32 reading sets
//!    are averaged, and their spread is each sensor's noise.
//! 2. **single stones** (one point blinking blue at a time, the four of
//!    [`single_points`]): the step goes on by itself once a stone reads on the lit point and
//!    the board is still; a stone read elsewhere is named; Enter goes on without it (a dead
//!    sensor never reads one). 16 sets are averaged.
//! 3. **every point black** (all blue), 4. **every point white** (all white): each goes on by
//!    itself once every point reads a stone and the board is still; Enter goes on with the
//!    points that do not (dead sensors: [`compute`] reports them). 16 sets each.
//! 5. **clear** (dark): once no point reads a stone (or Enter), [`Flow::finished`].
//!
//! A point "reads a stone" when it is [`DETECT_COUNTS`] from its empty reading either way (a
//! sensor mounted the other way round reads the colours swapped), and the board is still when
//! no more than [`STILL_OUTLIERS`] points moved over [`STILL_COUNTS`] between two sets, for
//! [`STILL_SETS`] sets in a row.

pub mod compute;

use smartgoban_board_core::calibration::prompt;
use smartgoban_protocol::{BoardSize, LedCells, LedEffect, LedFrame, LedPaint, PALETTE_LEN};

pub use compute::{compute, Calibrated, ComputeError};

/// A reading this far from the empty board's (counts) is a stone: 13 % of the design's 770
/// counts, so that a weak sensor (a quarter of a typical one, under a full board's 70 %) still
/// reads one, and four spreads of a noisy sensor's noise.
pub const DETECT_COUNTS: i32 = 100;

/// Moves between two reading sets under this (counts) are noise.
pub const STILL_COUNTS: i32 = 40;

/// How many points may move more than [`STILL_COUNTS`] in a still board (noisy sensors).
pub const STILL_OUTLIERS: usize = 3;

/// Still reading sets in a row before a step goes on by itself (with sets every 40–60 ms,
/// about half a second).
pub const STILL_SETS: u32 = 10;

/// Reading sets averaged for the empty board (its noise too) and for each other pattern.
pub const EMPTY_SETS: u32 = 32;
/// Reading sets averaged for each stone pattern.
pub const PATTERN_SETS: u32 = 16;

/// The four points the single stones go on (as the virtual board's own calibration takes
/// them): the centre, two points either side along the row, two rows up.
pub fn single_points(size: BoardSize) -> [usize; 4] {
    let n = usize::from(size.get());
    let points = n * n;
    let centre = points / 2;
    [
        centre,
        centre.saturating_sub(2),
        (centre + 2).min(points - 1),
        centre.saturating_sub(2 * n),
    ]
}

/// Where the calibration stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The empty board.
    Empty,
    /// Single stone number `k` (0–3) of [`single_points`].
    Single(usize),
    /// Every point black.
    Black,
    /// Every point white.
    White,
    /// Taking the stones off.
    Clear,
    /// Done: [`Flow::patterns`] holds the readings.
    Finished,
}

/// What the person sees of a step besides the LEDs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// The step.
    pub step: Step,
    /// What to do, one line.
    pub prompt: String,
    /// Points that read as the step wants (a stone on a lit point, none on a dark one).
    pub ready: usize,
    /// Points the step is about.
    pub of: usize,
    /// Points that do not yet (at most 8 of them, point indexes).
    pub missing: Vec<usize>,
    /// Stones read where none should be (point indexes, at most 8).
    pub stray: Vec<usize>,
    /// The board is still.
    pub still: bool,
    /// Reading sets averaged so far (the step is collecting).
    pub collected: u32,
}

/// Every pattern's mean readings (counts, point order), and each sensor's noise on the empty
/// board (standard deviation, counts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Patterns {
    /// The board's size.
    pub size: BoardSize,
    /// The empty board.
    pub empty: Vec<u16>,
    /// Each point's noise on the empty board.
    pub noise: Vec<u16>,
    /// The single stones: (point, the board's readings with it alone).
    pub singles: Vec<(usize, Vec<u16>)>,
    /// Every point black.
    pub black: Vec<u16>,
    /// Every point white.
    pub white: Vec<u16>,
}

/// The calibration's flow (module docs).
#[derive(Clone, Debug)]
pub struct Flow {
    size: BoardSize,
    step: Step,
    /// The last reading set.
    last: Option<Vec<u16>>,
    still_sets: u32,
    /// Enter was pressed in this step.
    entered: bool,
    /// Collecting: the reading sets so far (a few KiB: 32 sets of 361 readings at most).
    collecting: Option<Vec<Vec<u16>>>,
    collected: u32,
    patterns: Patterns,
    /// The LED frame's id, one more at each step.
    frame_id: u16,
}

impl Flow {
    /// A calibration of a board of `size`, at its first step.
    pub fn new(size: BoardSize) -> Flow {
        Flow {
            size,
            step: Step::Empty,
            last: None,
            still_sets: 0,
            entered: false,
            collecting: None,
            collected: 0,
            patterns: Patterns {
                size,
                empty: Vec::new(),
                noise: Vec::new(),
                singles: Vec::new(),
                black: Vec::new(),
                white: Vec::new(),
            },
            frame_id: 1,
        }
    }

    /// The step.
    pub fn step(&self) -> Step {
        self.step
    }

    /// Whether every step is done.
    pub fn finished(&self) -> bool {
        self.step == Step::Finished
    }

    /// The readings of every pattern, once [`Flow::finished`].
    pub fn patterns(&self) -> Option<&Patterns> {
        self.finished().then_some(&self.patterns)
    }

    /// The person pressed Enter: the step goes on as it is (the empty board: it is empty).
    pub fn enter(&mut self) {
        self.entered = true;
    }

    /// What each point should hold in this step (`Some(true)`: black, `Some(false)`: white).
    fn wanted(&self, i: usize) -> Option<bool> {
        match self.step {
            Step::Single(k) => (single_points(self.size).get(k) == Some(&i)).then_some(true),
            Step::Black => Some(true),
            Step::White => Some(false),
            _ => None,
        }
    }

    /// The LED frame of the step: dark, or the points that want a stone lit blue (black) or
    /// white, a single stone's point blinking.
    pub fn leds(&self) -> LedFrame {
        let mut palette = [LedPaint::OFF; PALETTE_LEN];
        palette[1] = LedPaint {
            rgb: prompt::PUT_BLACK,
            effect: LedEffect::Steady,
        };
        palette[2] = LedPaint {
            rgb: prompt::PUT_WHITE,
            effect: LedEffect::Steady,
        };
        palette[3] = LedPaint {
            rgb: prompt::PUT_BLACK,
            effect: LedEffect::Blink { period_ds: 8 },
        };
        let mut cells = LedCells::new(self.size);
        for i in 0..self.size.points() {
            let slot = match (self.step, self.wanted(i)) {
                (Step::Single(_), Some(_)) => 3,
                (_, Some(true)) => 1,
                (_, Some(false)) => 2,
                (_, None) => 0,
            };
            cells.set(i, slot);
        }
        LedFrame {
            frame_id: self.frame_id,
            palette,
            cells,
        }
    }

    /// Whether point `i` reads a stone in `readings` (against the empty board's; before it is
    /// known, against mid-scale with a wider margin).
    fn reads_stone(&self, i: usize, readings: &[u16]) -> bool {
        let r = i32::from(readings.get(i).copied().unwrap_or(0));
        match self.patterns.empty.get(i) {
            Some(&e) => (r - i32::from(e)).abs() >= DETECT_COUNTS,
            None => (r - 2048).abs() >= 2 * DETECT_COUNTS,
        }
    }

    /// The progress of the step with the last reading set.
    pub fn progress(&self) -> Progress {
        let points = self.size.points();
        let mut progress = Progress {
            step: self.step,
            prompt: self.prompt(),
            ready: 0,
            of: 0,
            missing: Vec::new(),
            stray: Vec::new(),
            still: self.still_sets >= STILL_SETS,
            collected: self.collected,
        };
        let Some(last) = &self.last else {
            return progress;
        };
        let mut strays = 0;
        for i in 0..points {
            let stone = self.reads_stone(i, last);
            match self.wanted(i) {
                Some(_) => {
                    progress.of += 1;
                    if stone {
                        progress.ready += 1;
                    } else if progress.missing.len() < 8 {
                        progress.missing.push(i);
                    }
                }
                None if stone && self.step != Step::Empty => {
                    strays += 1;
                    if progress.stray.len() < 8 {
                        progress.stray.push(i);
                    }
                }
                None => {}
            }
        }
        if matches!(self.step, Step::Clear | Step::Empty) {
            progress.of = points;
            progress.ready = points - strays;
        }
        progress
    }

    fn prompt(&self) -> String {
        let gtp =
            |i: usize| crate::rules::Point::from_index(i, self.size.get()).to_gtp(self.size.get());
        match self.step {
            Step::Empty => "Take every stone off the board, then press Enter".into(),
            Step::Single(k) => format!(
                "Single stone {} of 4: put one black stone on the blinking point {} (and no other); \
                 Enter goes on without it",
                k + 1,
                gtp(single_points(self.size)[k])
            ),
            Step::Black => "Put a black stone on every point (every point is lit blue); \
                            Enter goes on with the points that do not read one"
                .into(),
            Step::White => "Now a white stone on every point (every point is lit white); \
                            Enter goes on with the points that do not read one"
                .into(),
            Step::Clear => "Take every stone off the board".into(),
            Step::Finished => "Done".into(),
        }
    }

    /// One reading set (counts, point order; a set of the wrong length is ignored) at host
    /// time `now_ms`: the step goes on when it is complete. Returns whether the step changed.
    pub fn readings(&mut self, readings: &[u16], _now_ms: u64) -> bool {
        if readings.len() != self.size.points() || self.finished() {
            return false;
        }
        let moved = self.last.as_ref().map_or(usize::MAX, |last| {
            last.iter()
                .zip(readings)
                .filter(|(a, b)| (i32::from(**a) - i32::from(**b)).abs() > STILL_COUNTS)
                .count()
        });
        self.still_sets = if moved <= STILL_OUTLIERS {
            self.still_sets + 1
        } else {
            0
        };
        self.last = Some(readings.to_vec());
        if let Some(sets) = &mut self.collecting {
            // a board that moves while being read starts the reading again
            if moved > STILL_OUTLIERS {
                sets.clear();
            }
            sets.push(readings.to_vec());
            self.collected = sets.len() as u32;
            let want = if self.step == Step::Empty {
                EMPTY_SETS
            } else {
                PATTERN_SETS
            };
            if self.collected >= want {
                self.store();
                self.next_step();
                return true;
            }
            return false;
        }
        if self.ready() {
            if self.step == Step::Clear {
                self.next_step();
                return true;
            }
            self.collecting = Some(Vec::new());
            self.collected = 0;
        }
        false
    }

    /// Whether the step may start averaging (or, clearing, end).
    fn ready(&self) -> bool {
        let progress = self.progress();
        let still = self.still_sets >= STILL_SETS;
        match self.step {
            Step::Empty => self.entered,
            Step::Finished => false,
            _ if self.entered => true,
            Step::Single(_) => still && progress.ready == 1 && progress.stray.is_empty(),
            Step::Black | Step::White => still && progress.ready == progress.of,
            Step::Clear => still && progress.stray.is_empty(),
        }
    }

    fn store(&mut self) {
        let Some(sets) = self.collecting.take() else {
            return;
        };
        let (means, noise) = robust(&sets, self.size.points());
        match self.step {
            Step::Empty => {
                self.patterns.noise = noise;
                self.patterns.empty = means;
            }
            Step::Single(k) => {
                let point = single_points(self.size)[k];
                self.patterns.singles.push((point, means));
            }
            Step::Black => self.patterns.black = means,
            Step::White => self.patterns.white = means,
            Step::Clear | Step::Finished => {}
        }
    }

    fn next_step(&mut self) {
        self.step = match self.step {
            Step::Empty => Step::Single(0),
            Step::Single(k) if k + 1 < single_points(self.size).len() => Step::Single(k + 1),
            Step::Single(_) => Step::Black,
            Step::Black => Step::White,
            Step::White => Step::Clear,
            Step::Clear | Step::Finished => Step::Finished,
        };
        self.entered = false;
        self.still_sets = 0;
        self.collecting = None;
        self.collected = 0;
        self.frame_id = self.frame_id.wrapping_add(1);
    }
}

/// Each point's median over `sets` and the spread of its readings (counts: the median
/// absolute deviation × 1.4826, a standard deviation that a few spikes — a line glitch, a
/// phone charger's field for a few scans — do not move).
fn robust(sets: &[Vec<u16>], points: usize) -> (Vec<u16>, Vec<u16>) {
    let mut medians = Vec::with_capacity(points);
    let mut spreads = Vec::with_capacity(points);
    let mut column = Vec::with_capacity(sets.len());
    for i in 0..points {
        column.clear();
        column.extend(sets.iter().filter_map(|s| s.get(i).copied()));
        column.sort_unstable();
        let median = column.get(column.len() / 2).copied().unwrap_or(0);
        let mut deviations: Vec<u16> = column.iter().map(|&r| r.abs_diff(median)).collect();
        deviations.sort_unstable();
        let mad = deviations.get(deviations.len() / 2).copied().unwrap_or(0);
        medians.push(median);
        spreads.push((f64::from(mad) * 1.4826).round() as u16);
    }
    (medians, spreads)
}

#[cfg(test)]
mod tests;
