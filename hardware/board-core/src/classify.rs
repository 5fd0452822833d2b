//! Classification: each point's calibrated reading in a scan to a [`Cell`] — empty, black,
//! white or uncertain — with hysteresis, so that a stone whose reading sits on a threshold (a
//! weak magnet, a stone a little off its point) does not flicker, and with the field of the
//! neighbouring stones taken out first.
//!
//! A reading is placed on the point's own scale: 0 ‰ is its empty reading, 1000 ‰ its reading
//! with a stone of that colour alone ([`PointCalibration`]). Before that, every other
//! classified stone's share ([`crate::coupling::Coupling`], the whole board's, kept up to date
//! as cells change) is subtracted — in two passes per scan, the second with the first pass's
//! cells, so a stone put down among others is read right in the scan it lands. A point enters
//! black or white at [`Thresholds::enter_permille`] and stays until it falls below
//! [`Thresholds::leave_permille`]; it enters empty within [`Thresholds::empty_enter_permille`]
//! and stays until it leaves [`Thresholds::empty_leave_permille`]; anything else is uncertain
//! (a stone being lifted or put down, a stone between two points) — unless its reading lies
//! still on one colour's side for a while ([`Thresholds::steady_permille`]): a weak magnet or
//! a stone well off its point, which the host must not lose. A dead sensor's point
//! ([`crate::health`]) is read from its neighbours' readings ([`crate::dead`]); until they
//! tell, it reads uncertain, which the host treats as "keep what was there".
//!
//! Cost per scan: two passes over the points, plus one pass over the board for each point
//! whose cell changed (to move its share); nothing proportional to the square of the board
//! unless every point changes.

use smartgoban_protocol::{BoardSize, Cell, PackedCells};

use crate::calibration::{BoardCalibration, PointCalibration};
use crate::coupling::Coupling;
use crate::dead::{DeadPoints, View};
use crate::health::Health;
use crate::MAX_POINTS;

/// The thresholds of the hysteresis, in thousandths of a point's span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Thresholds {
    /// A point becomes black (white) from another state at this share of its black (white) span.
    pub enter_permille: i32,
    /// A black (white) point stays so down to this share.
    pub leave_permille: i32,
    /// A point becomes empty from another state within this share of either span.
    pub empty_enter_permille: i32,
    /// An empty point stays empty within this share.
    pub empty_leave_permille: i32,
    /// An uncertain point whose reading lies still at this share or more of a colour's span
    /// (but under [`Thresholds::enter_permille`]) for [`Thresholds::steady_scans`] scans
    /// becomes that colour: a weak magnet or a stone well off its point, which nothing but a
    /// stone lying there gives (a stone being put down or lifted does not lie still).
    pub steady_permille: i32,
    /// Scans a reading must lie still for ([`Thresholds::steady_permille`]).
    pub steady_scans: u8,
    /// How far a reading may wander while it lies still (‰ of the span, highest − lowest).
    pub steady_spread_permille: i32,
}

impl Default for Thresholds {
    /// Enter a colour at 55 % (a stone 5 mm off its point reads 61 % by the design of
    /// hardware/WIRING.md), leave it below 35 %; enter empty within 20 %, leave it past 30 %;
    /// a reading of 40 % or more lying still (within 6 %) for 10 scans (200 ms) is a stone.
    fn default() -> Thresholds {
        Thresholds {
            enter_permille: 550,
            leave_permille: 350,
            empty_enter_permille: 200,
            empty_leave_permille: 300,
            steady_permille: 400,
            steady_scans: 10,
            steady_spread_permille: 60,
        }
    }
}

impl Thresholds {
    /// Whether the thresholds hang together: `0 ≤ empty_enter ≤ empty_leave < leave ≤
    /// steady ≤ enter ≤ 1000`, at least one scan for the still rule, a spread of 0 to 1000.
    ///
    /// # Errors
    /// What does not hold, in words.
    pub fn check(&self) -> Result<(), &'static str> {
        let t = self;
        if !(0 <= t.empty_enter_permille && t.empty_enter_permille <= t.empty_leave_permille) {
            return Err("empty_enter must be from 0 to empty_leave");
        }
        if t.empty_leave_permille >= t.leave_permille {
            return Err(
                "empty_leave must be below leave (else a reading flips between empty and a colour)",
            );
        }
        if !(t.leave_permille <= t.steady_permille && t.steady_permille <= t.enter_permille) {
            return Err("steady must be from leave to enter");
        }
        if t.enter_permille > 1000 {
            return Err("enter must be at most 1000 (a stone's own reading)");
        }
        if t.steady_scans == 0 {
            return Err("steady_scans must be at least 1");
        }
        if !(0..=1000).contains(&t.steady_spread_permille) {
            return Err("steady_spread must be from 0 to 1000");
        }
        Ok(())
    }
}

/// How far a point's reading may move from one scan to the next and still count as still
/// (‰ of its span): a stone bouncing 1.5 mm moves its own reading by a third.
pub const STILL_PERMILLE: i32 = 60;

/// A scan the classifier cannot take; nothing changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpdateError {
    /// The scan has `actual` readings where the board has `expected` points.
    WrongCount {
        /// Points on the board.
        expected: usize,
        /// Readings given.
        actual: usize,
    },
    /// The calibration is of a board of `calibration` lines, the classifier's of `board`.
    WrongSize {
        /// The classifier's board size.
        board: u8,
        /// The calibration's.
        calibration: u8,
    },
    /// A reading above the ADC's full scale.
    OutOfRange {
        /// The point.
        point: usize,
        /// Its reading.
        reading: u16,
    },
    /// More health entries (`actual`) than points (`expected`).
    HealthCount {
        /// Points on the board.
        expected: usize,
        /// Entries given.
        actual: usize,
    },
}

impl core::fmt::Display for UpdateError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            UpdateError::WrongCount { expected, actual } => {
                write!(f, "a scan has {actual} readings; the board has {expected} points")
            }
            UpdateError::WrongSize { board, calibration } => write!(
                f,
                "the calibration is of a {calibration}×{calibration} board, the board is {board}×{board}"
            ),
            UpdateError::OutOfRange { point, reading } => write!(
                f,
                "point {point} reads {reading}, above the ADC's full scale of {}",
                crate::oversample::ADC_MAX
            ),
            UpdateError::HealthCount { expected, actual } => {
                write!(f, "{actual} health entries for a board of {expected} points")
            }
        }
    }
}

/// Every classified stone's share at each point (ppm of the point's own black or white span):
/// the sum over the black stones and the sum over the white ones.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Fields {
    black: [i32; MAX_POINTS],
    white: [i32; MAX_POINTS],
}

impl Fields {
    const fn none() -> Fields {
        Fields {
            black: [0; MAX_POINTS],
            white: [0; MAX_POINTS],
        }
    }

    /// Moves point `j`'s share from what `from` gives to what `to` gives.
    fn change(&mut self, size: BoardSize, coupling: &Coupling, j: usize, from: Cell, to: Cell) {
        if from == to {
            return;
        }
        let n = i32::from(size.get());
        let (xj, yj) = ((j as i32) % n, (j as i32) / n);
        for (i, (b, w)) in self
            .black
            .iter_mut()
            .zip(self.white.iter_mut())
            .enumerate()
            .take(size.points())
        {
            if i == j {
                continue;
            }
            let k = coupling.at((i as i32) % n - xj, (i as i32) / n - yj);
            match from {
                Cell::Black => *b -= k,
                Cell::White => *w -= k,
                _ => {}
            }
            match to {
                Cell::Black => *b += k,
                Cell::White => *w += k,
                _ => {}
            }
        }
    }

    /// `self` after the changes from `before` to `after`.
    fn after(
        &self,
        size: BoardSize,
        coupling: &Coupling,
        before: &[Cell; MAX_POINTS],
        after: &[Cell; MAX_POINTS],
    ) -> Fields {
        let mut fields = self.clone();
        for (j, (&from, &to)) in before.iter().zip(after).enumerate().take(size.points()) {
            fields.change(size, coupling, j, from, to);
        }
        fields
    }
}

/// How long an uncertain point's reading has lain still, and within what.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Steady {
    scans: u8,
    black: bool,
    lo: i16,
    hi: i16,
}

/// Where a reading sits on a point's black and white scales (‰; of opposite signs).
type Scales = [(i16, i16); MAX_POINTS];

/// The classifier of one board: each point's current [`Cell`] (the state of its hysteresis),
/// how long an uncertain reading has lain still, and the classified stones' shares at every
/// point, and the dead sensors' points read from their neighbours. About 9 KiB.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classifier {
    size: BoardSize,
    thresholds: Thresholds,
    cells: [Cell; MAX_POINTS],
    steady: [Steady; MAX_POINTS],
    fields: Fields,
    /// The coupling `fields` were summed with (a new calibration's sums them again).
    coupling: Coupling,
    /// Scans each point has kept its cell and its reading still (saturating).
    ages: [u8; MAX_POINTS],
    /// Each point's last reading on its black scale (‰).
    last_scale: [i16; MAX_POINTS],
    /// The dead sensors' points, read from their neighbours ([`crate::dead`]).
    dead: DeadPoints,
}

impl Classifier {
    /// A board of `size` with every point uncertain until its first scan.
    ///
    /// # Errors
    /// Thresholds that do not hang together ([`Thresholds::check`]).
    pub fn new(size: BoardSize, thresholds: Thresholds) -> Result<Classifier, &'static str> {
        thresholds.check()?;
        Ok(Classifier {
            size,
            thresholds,
            cells: [Cell::Uncertain; MAX_POINTS],
            steady: [Steady::default(); MAX_POINTS],
            fields: Fields::none(),
            coupling: Coupling::none(),
            ages: [0; MAX_POINTS],
            last_scale: [0; MAX_POINTS],
            dead: DeadPoints::new(),
        })
    }

    /// Each dead sensor's point read from its neighbours ([`crate::dead`]), with the estimate
    /// of what lies on it: thousandths of a stone, + black, − white, `None` while unknown.
    pub fn dead_points(&self) -> impl Iterator<Item = crate::dead::DeadEstimate> + '_ {
        self.dead.estimates()
    }

    /// The current cells, as a `Scan` carries them.
    pub fn cells(&self) -> PackedCells {
        let cells = self.cells.iter().copied().take(self.size.points());
        PackedCells::from_cells(self.size, cells).unwrap_or(PackedCells::new(self.size))
    }

    /// Classifies one scan: `readings` (counts, point order, one per point, from
    /// [`crate::oversample::trimmed_mean`]) with the board's calibration `cal` and each point's
    /// `health` (a [`Health::HEALTHY`] slice, or fewer entries, for no known faults). Returns
    /// the new cells.
    ///
    /// # Errors
    /// A wrong number of readings or health entries, a reading above full scale, a calibration
    /// of another board size ([`UpdateError`]); nothing changes.
    pub fn update(
        &mut self,
        readings: &[u16],
        cal: &BoardCalibration,
        health: &[Health],
    ) -> Result<PackedCells, UpdateError> {
        let n = self.size.points();
        if readings.len() != n {
            return Err(UpdateError::WrongCount {
                expected: n,
                actual: readings.len(),
            });
        }
        if cal.size() != self.size {
            return Err(UpdateError::WrongSize {
                board: self.size.get(),
                calibration: cal.size().get(),
            });
        }
        if health.len() > n {
            return Err(UpdateError::HealthCount {
                expected: n,
                actual: health.len(),
            });
        }
        if let Some((point, &reading)) = readings
            .iter()
            .enumerate()
            .find(|(_, &r)| r > crate::oversample::ADC_MAX)
        {
            return Err(UpdateError::OutOfRange { point, reading });
        }
        if cal.coupling() != &self.coupling {
            let none = [Cell::Uncertain; MAX_POINTS];
            self.fields = Fields::none().after(self.size, cal.coupling(), &none, &self.cells);
            self.coupling = cal.coupling().clone();
        }
        let before = self.cells;
        // Pass 1: the other stones as they were; pass 2: as pass 1 read them.
        let mut first = before;
        let mut scales: Scales = [(0, 0); MAX_POINTS];
        self.pass(readings, cal, health, &self.fields, &mut first, &mut scales);
        let fields = self
            .fields
            .after(self.size, &self.coupling, &before, &first);
        let mut second = before;
        self.pass(readings, cal, health, &fields, &mut second, &mut scales);
        self.lie_still(&scales, &mut second);
        let fields = self
            .fields
            .after(self.size, &self.coupling, &before, &second);
        // How long each point has kept its cell and its reading still (a stone just put
        // down wobbles and bounces under an unchanged cell), this scan included.
        for ((((age, last), &was), &now), &(zb, _)) in self
            .ages
            .iter_mut()
            .zip(self.last_scale.iter_mut())
            .zip(&before)
            .zip(&second)
            .zip(&scales)
        {
            let still = (i32::from(zb) - i32::from(*last)).abs() <= STILL_PERMILLE;
            *age = if was == now && still {
                age.saturating_add(1)
            } else {
                0
            };
            *last = zb;
        }
        // The dead sensors' points, from their neighbours (they kept their cells so far).
        let mut cells = second;
        let view = View {
            size: self.size,
            coupling: &self.coupling,
            cal,
            health,
            readings,
            black_ppm: &fields.black,
            white_ppm: &fields.white,
            cells: &second,
            ages: &self.ages,
        };
        self.dead.update(&view, &self.thresholds, &mut cells);
        self.fields = fields.after(self.size, &self.coupling, &second, &cells);
        for ((age, &was), &now) in self.ages.iter_mut().zip(&second).zip(&cells) {
            if was != now {
                *age = 0;
            }
        }
        self.cells = cells;
        Ok(self.cells())
    }

    fn pass(
        &self,
        readings: &[u16],
        cal: &BoardCalibration,
        health: &[Health],
        fields: &Fields,
        out: &mut [Cell; MAX_POINTS],
        scales: &mut Scales,
    ) {
        let points = readings.iter().zip(cal.points());
        let shares = fields.black.iter().zip(&fields.white);
        for (i, ((((&reading, p), (&black, &white)), slot), scale)) in points
            .zip(shares)
            .zip(out.iter_mut())
            .zip(scales.iter_mut())
            .enumerate()
        {
            let readable = health.get(i).is_none_or(|h| h.is_readable());
            let prev = self.cells.get(i).copied().unwrap_or(Cell::Uncertain);
            (*slot, *scale) = if readable {
                self.next(prev, reading, p, black, white)
            } else {
                // a dead sensor's point keeps its cell: its neighbours read it (`crate::dead`)
                (prev, (0, 0))
            };
        }
    }

    /// The rule of the still reading ([`Thresholds::steady_permille`]): counts, for each
    /// point this scan left uncertain, how long its reading has lain still on one colour's
    /// scale, and gives it that colour once it has for [`Thresholds::steady_scans`].
    fn lie_still(&mut self, scales: &Scales, cells: &mut [Cell; MAX_POINTS]) {
        let t = self.thresholds;
        for ((steady, cell), &(zb, zw)) in self.steady.iter_mut().zip(cells.iter_mut()).zip(scales)
        {
            let (colour, z) = if zb > 0 {
                (Cell::Black, i32::from(zb))
            } else {
                (Cell::White, i32::from(zw))
            };
            if *cell != Cell::Uncertain || z < t.steady_permille || z >= t.enter_permille {
                steady.scans = 0;
                continue;
            }
            let z = z as i16; // under enter_permille: fits
            let black = colour == Cell::Black;
            let (lo, hi) = (steady.lo.min(z), steady.hi.max(z));
            *steady = if steady.scans > 0
                && steady.black == black
                && i32::from(hi) - i32::from(lo) <= t.steady_spread_permille
            {
                Steady {
                    scans: steady.scans.saturating_add(1),
                    black,
                    lo,
                    hi,
                }
            } else {
                Steady {
                    scans: 1,
                    black,
                    lo: z,
                    hi: z,
                }
            };
            if steady.scans >= t.steady_scans {
                *cell = colour;
                steady.scans = 0;
            }
        }
    }

    /// The cell after `prev` for a `reading` of a point calibrated as `p`, with `black` ppm of
    /// its black span and `white` ppm of its white span coming from the other stones; and where
    /// the reading sits on the point's black and white scales (‰, clamped to ±30,000).
    fn next(
        &self,
        prev: Cell,
        reading: u16,
        p: &PointCalibration,
        black: i32,
        white: i32,
    ) -> (Cell, (i16, i16)) {
        let (bs, ws) = (i64::from(p.black_span()), i64::from(p.white_span()));
        if p.min_span() < crate::health::DEAD_SPAN || bs.signum() == ws.signum() {
            // a colour that reads nothing, or both on one side: no reading can be trusted
            return (Cell::Uncertain, (0, 0));
        }
        let others = (bs * i64::from(black) + ws * i64::from(white)) / 1_000_000;
        let own = i64::from(reading) - i64::from(p.empty) - others;
        // where the reading sits on each colour's scale (‰); of opposite signs
        let zb = (own * 1000 / bs).clamp(-30_000, 30_000) as i32;
        let zw = (own * 1000 / ws).clamp(-30_000, 30_000) as i32;
        let scales = (zb as i16, zw as i16);
        let t = &self.thresholds;
        let cell = match prev {
            Cell::Black if zb >= t.leave_permille => Cell::Black,
            Cell::White if zw >= t.leave_permille => Cell::White,
            Cell::Empty
                if zb.abs() <= t.empty_leave_permille && zw.abs() <= t.empty_leave_permille =>
            {
                Cell::Empty
            }
            _ if zb >= t.enter_permille => Cell::Black,
            _ if zw >= t.enter_permille => Cell::White,
            _ if zb.abs() <= t.empty_enter_permille && zw.abs() <= t.empty_enter_permille => {
                Cell::Empty
            }
            _ => Cell::Uncertain,
        };
        (cell, scales)
    }
}
