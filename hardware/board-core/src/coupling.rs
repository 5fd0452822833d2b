//! The coupling between points: how much of a stone's field reaches the sensor of every other
//! point, as a share of what it gives its own sensor.
//!
//! Every stone's magnet is a dipole, and a dipole's vertical field at horizontal distance `r`
//! and height `z` is proportional to `(3z²/R² − 1)/R³`, `R² = r² + z²`: it turns over at
//! `r = z/√2` and then falls with the cube of the distance. One stone's share at its neighbour
//! is a percent or two — but a board covered with stones adds hundreds of small shares: for
//! the design of hardware/WIRING.md (magnets 12 mm above the sensors, points 23.5 × 25 mm
//! apart) a sensor in the middle of a board full of black stones reads only 70 % of what one
//! black stone gives it. So the coupling is a table over every offset of a 19 × 19 board, not
//! the eight neighbours; [`Coupling::measure`] fills it from single stones and the full
//! patterns of the calibration (near offsets as measured, far ones from the dipole fitted to
//! them), and [`crate::classify`] takes every classified stone's share out of each reading.

use smartgoban_protocol::BoardSize;

/// The largest offset between two points of a board (19 × 19: 18 lines).
pub const MAX_OFFSET: usize = 18;

/// One million: shares are in millionths (ppm) of a stone's field on its own sensor.
pub const PPM: i32 = 1_000_000;

/// Offsets up to this many lines (each way) are measured; farther ones follow the dipole.
pub const NEAR: usize = 2;

/// The design: the magnet's centre above the sensor (mm) for a stone at rest.
pub const DESIGN_HEIGHT_MM: f64 = 12.0;

/// The design: line spacing across (between columns) and along (between rows), mm; RULES.md
/// R32 gives 23–24 and 24.5–25.5.
pub const DESIGN_PITCH_MM: (f64, f64) = (23.5, 25.0);

/// Each offset's share (ppm), by `(|dx|, |dy|)` in lines; `(0, 0)` is the stone's own sensor
/// ([`PPM`]). 1,444 bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Coupling {
    table: [[i32; MAX_OFFSET + 1]; MAX_OFFSET + 1],
}

impl Default for Coupling {
    /// The dipole of the design ([`DESIGN_HEIGHT_MM`], [`DESIGN_PITCH_MM`]).
    fn default() -> Coupling {
        Coupling::dipole(DESIGN_HEIGHT_MM, DESIGN_PITCH_MM).unwrap_or(Coupling::none())
    }
}

/// Dipole heights (mm) a board can have: below, no stone fits over the sensor; above, a stone
/// gives its sensor less than 6 % of the design's field.
pub const HEIGHTS_MM: core::ops::RangeInclusive<f64> = 4.0..=30.0;

/// The largest share (ppm) a single stone may give another point: more, and the "neighbour"
/// reads the stone better than its own sensor does.
pub const MAX_SHARE: i32 = PPM / 2;

/// Why single stones and patterns give no coupling ([`Coupling::measure`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CouplingError {
    /// A pattern has `actual` readings where the board has `expected` points.
    WrongCount {
        /// Points on the board.
        expected: usize,
        /// Readings given.
        actual: usize,
    },
    /// Single stone number `index` (from 0) lies on point `point`, off the board.
    OffTheBoard {
        /// Which single stone.
        index: usize,
        /// Its point.
        point: usize,
    },
    /// No single stone has a neighbour inside the board whose sensor reads.
    NothingMeasured,
    /// A measured share is `share` ppm at offset `(dx, dy)`: more than [`MAX_SHARE`], or the
    /// shares did not settle — not a field a magnet gives (a stone on the wrong point, the
    /// wrong colour, or a neighbour's sensor mounted the other way round).
    Implausible {
        /// Offset across, in lines.
        dx: u8,
        /// Offset along, in lines.
        dy: u8,
        /// The share, ppm.
        share: i32,
    },
}

impl core::fmt::Display for CouplingError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CouplingError::WrongCount { expected, actual } => write!(
                f,
                "a calibration pattern has {actual} readings; the board has {expected} points"
            ),
            CouplingError::OffTheBoard { index, point } => {
                write!(f, "single stone {index} is on point {point}, off the board")
            }
            CouplingError::NothingMeasured => {
                f.write_str("no single stone has a neighbour inside the board that reads")
            }
            CouplingError::Implausible { dx, dy, share } => write!(
                f,
                "a stone gives the point {dx} across and {dy} along {share} ppm of its own field: \
                 no magnet does that (a stone on the wrong point or of the wrong colour?)"
            ),
        }
    }
}

impl Coupling {
    /// No coupling: each sensor sees its own stone only.
    pub const fn none() -> Coupling {
        let mut table = [[0; MAX_OFFSET + 1]; MAX_OFFSET + 1];
        table[0][0] = PPM;
        Coupling { table }
    }

    /// A point dipole `height_mm` above the sensors (within [`HEIGHTS_MM`]), points `pitch_mm`
    /// (across, along) apart (each 10 to 40 mm); `None` outside those.
    pub fn dipole(height_mm: f64, pitch_mm: (f64, f64)) -> Option<Coupling> {
        let pitches = 10.0..=40.0;
        if !HEIGHTS_MM.contains(&height_mm)
            || !pitches.contains(&pitch_mm.0)
            || !pitches.contains(&pitch_mm.1)
        {
            return None;
        }
        let mut c = Coupling::none();
        for (dy, row) in c.table.iter_mut().enumerate() {
            for (dx, share) in row.iter_mut().enumerate() {
                let r = (dx as f64 * pitch_mm.0, dy as f64 * pitch_mm.1);
                *share = (dipole_share(r, height_mm) * f64::from(PPM)) as i32;
            }
        }
        // the own share is one stone's field by definition (the square root's last bit made
        // it 999,999 at some heights, and a calibration image with it was refused)
        c.set(0, 0, PPM);
        Some(c)
    }

    /// The share (ppm) at offset `(dx, dy)` lines; 0 past [`MAX_OFFSET`].
    pub fn at(&self, dx: i32, dy: i32) -> i32 {
        let (x, y) = (dx.unsigned_abs() as usize, dy.unsigned_abs() as usize);
        self.table
            .get(y)
            .and_then(|row| row.get(x))
            .copied()
            .unwrap_or(0)
    }

    /// Sets the share (ppm) at offset `(dx, dy)` lines (both at most [`MAX_OFFSET`]; else
    /// nothing changes): a table measured some other way.
    /// The own share `(0, 0)` stays [`PPM`].
    pub fn set_share(&mut self, dx: usize, dy: usize, share: i32) {
        if dx != 0 || dy != 0 {
            self.set(dx, dy, share);
        }
    }

    fn set(&mut self, dx: usize, dy: usize, share: i32) {
        if let Some(slot) = self.table.get_mut(dy).and_then(|row| row.get_mut(dx)) {
            *slot = share;
        }
    }

    /// What every point of a board of `size` covered with stones of one colour gives point
    /// `i`'s sensor, its own stone included (ppm of its own stone alone): the full pattern's
    /// reading over the single stone's.
    pub fn total_ppm(&self, size: BoardSize, i: usize) -> i64 {
        let n = i32::from(size.get());
        let (x, y) = ((i as i32) % n, (i as i32) / n);
        let mut total = 0i64;
        for yj in 0..n {
            for xj in 0..n {
                total += i64::from(self.at(x - xj, y - yj));
            }
        }
        total
    }

    /// Measures a board's coupling. `empty` and `full` are every point's mean reading (counts,
    /// point order) on the empty board and with every point holding a stone of one colour;
    /// each of `singles` is `(j, readings)`: the board's mean readings with one stone of that
    /// colour alone on point `j` (a few, inside the board; 8 at most are used).
    ///
    /// Each sensor's own span is `(full − empty) / total` ([`Coupling::total_ppm`]), and a
    /// single stone's reading at another sensor over that sensor's own span is the share at
    /// their offset: starting from no coupling, the shares of the offsets up to [`NEAR`] lines
    /// are measured (the median over the stones), the dipole height that fits them best gives
    /// the farther ones, the own spans are worked out again, six times over.
    ///
    /// # Errors
    /// A pattern or a single stone's readings of the wrong length, a single stone off the
    /// board, nothing measured, or shares no magnet gives ([`CouplingError`]).
    pub fn measure(
        size: BoardSize,
        empty: &[u16],
        full: &[u16],
        singles: &[(usize, &[u16])],
    ) -> Result<Coupling, CouplingError> {
        let points = size.points();
        for len in [empty.len(), full.len()]
            .into_iter()
            .chain(singles.iter().map(|(_, r)| r.len()))
        {
            if len != points {
                return Err(CouplingError::WrongCount {
                    expected: points,
                    actual: len,
                });
            }
        }
        if let Some((index, &(point, _))) = singles.iter().enumerate().find(|(_, s)| s.0 >= points)
        {
            return Err(CouplingError::OffTheBoard { index, point });
        }
        let result = Coupling::measure_checked(size, empty, full, singles)
            .ok_or(CouplingError::NothingMeasured)?;
        let (coupling, previous) = result;
        for dy in 0..=NEAR {
            for dx in 0..=NEAR {
                if dx == 0 && dy == 0 {
                    continue;
                }
                let share = coupling.at(dx as i32, dy as i32);
                let before = previous.at(dx as i32, dy as i32);
                // settled: the last round moved it by under 1 % of a stone's own field
                if share.abs() > MAX_SHARE || (share - before).abs() > PPM / 100 {
                    return Err(CouplingError::Implausible {
                        dx: dx as u8,
                        dy: dy as u8,
                        share,
                    });
                }
            }
        }
        Ok(coupling)
    }

    /// [`Coupling::measure`] on checked input: the coupling of the last round and of the one
    /// before it; `None` when nothing could be measured.
    fn measure_checked(
        size: BoardSize,
        empty: &[u16],
        full: &[u16],
        singles: &[(usize, &[u16])],
    ) -> Option<(Coupling, Coupling)> {
        let points = size.points();
        let n = usize::from(size.get());
        let mut coupling = Coupling::none();
        let mut previous = Coupling::none();
        let mut own = [0f64; crate::MAX_POINTS];
        for _ in 0..6 {
            for (i, slot) in own.iter_mut().enumerate().take(points) {
                let span = f64::from(*full.get(i)?) - f64::from(*empty.get(i)?);
                *slot = span * f64::from(PPM) / coupling.total_ppm(size, i).max(1) as f64;
            }
            // the near offsets' shares, each single stone's neighbours over their own spans
            let mut near = [[0f64; NEAR + 1]; NEAR + 1];
            let mut measured = [[false; NEAR + 1]; NEAR + 1];
            for (dy, row) in near.iter_mut().enumerate() {
                for (dx, share) in row.iter_mut().enumerate() {
                    if dx == 0 && dy == 0 {
                        continue;
                    }
                    let mut samples = [0f64; 32];
                    let mut count = 0;
                    for &(j, readings) in singles.iter().take(8) {
                        if readings.len() != points {
                            continue;
                        }
                        let (xj, yj) = ((j % n) as i32, (j / n) as i32);
                        for (sx, sy) in [(1, 1), (-1, 1), (1, -1), (-1, -1)] {
                            if (dx == 0 && sx < 0) || (dy == 0 && sy < 0) {
                                continue; // the same point twice
                            }
                            let (x, y) = (xj + sx * dx as i32, yj + sy * dy as i32);
                            if !(0..n as i32).contains(&x) || !(0..n as i32).contains(&y) {
                                continue;
                            }
                            let i = y as usize * n + x as usize;
                            let span = *own.get(i)?;
                            if span.abs() < f64::from(crate::health::DEAD_SPAN) {
                                continue;
                            }
                            let dev = f64::from(*readings.get(i)?) - f64::from(*empty.get(i)?);
                            if let Some(slot) = samples.get_mut(count) {
                                *slot = dev / span;
                                count += 1;
                            }
                        }
                    }
                    if let Some(m) = median(samples.get_mut(..count)?) {
                        *share = m;
                        if let Some(flag) = measured.get_mut(dy).and_then(|r| r.get_mut(dx)) {
                            *flag = true;
                        }
                    }
                }
            }
            let pitch = DESIGN_PITCH_MM;
            let height = fit_height(&near, &measured, pitch)?;
            previous = core::mem::replace(&mut coupling, Coupling::dipole(height, pitch)?);
            for (dy, row) in near.iter().enumerate() {
                for (dx, &share) in row.iter().enumerate() {
                    if measured.get(dy).and_then(|r| r.get(dx)) == Some(&true) {
                        coupling.set(dx, dy, (share * f64::from(PPM)) as i32);
                    }
                }
            }
        }
        Some((coupling, previous))
    }
}

/// The dipole's vertical field at horizontal offset `r` (mm) from a magnet `z` mm above the
/// sensor, over the field straight under it.
fn dipole_share(r: (f64, f64), z: f64) -> f64 {
    let r2 = r.0 * r.0 + r.1 * r.1 + z * z;
    let r5 = r2 * r2 * sqrt(r2);
    // (3z²/R² − 1)/R³ over 2/z³
    (3.0 * z * z - r2) / r5 * (z * z * z) / 2.0
}

/// The dipole height (mm, [`HEIGHTS_MM`] in steps of 0.05) whose shares best fit the measured
/// near ones (least squares); `None` when nothing was measured.
fn fit_height(
    near: &[[f64; NEAR + 1]; NEAR + 1],
    measured: &[[bool; NEAR + 1]; NEAR + 1],
    pitch: (f64, f64),
) -> Option<f64> {
    let mut best: Option<(f64, f64)> = None;
    for step in 0..=520 {
        let z = 4.0 + f64::from(step) * 0.05;
        let mut error = 0.0;
        let mut any = false;
        for (dy, (row, flags)) in near.iter().zip(measured).enumerate() {
            for (dx, (&share, &m)) in row.iter().zip(flags).enumerate() {
                if m {
                    let model = dipole_share((dx as f64 * pitch.0, dy as f64 * pitch.1), z);
                    error += (share - model) * (share - model);
                    any = true;
                }
            }
        }
        if any && best.is_none_or(|(_, e)| error < e) {
            best = Some((z, error));
        }
    }
    best.map(|(z, _)| z)
}

/// The median of `values` (sorted in place); `None` when empty.
fn median(values: &mut [f64]) -> Option<f64> {
    values.sort_unstable_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

/// √v by Newton's method (`core` has no square root); `v ≥ 0`.
fn sqrt(v: f64) -> f64 {
    if v <= 0.0 {
        return 0.0;
    }
    let mut x = if v > 1.0 { v } else { 1.0 };
    for _ in 0..64 {
        let next = 0.5 * (x + v / x);
        if (next - x).abs() <= 1e-12 * x {
            return next;
        }
        x = next;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dipole_turns_over_and_falls_off() {
        let c = Coupling::default();
        assert_eq!(c.at(0, 0), PPM);
        // under the neighbours the field points the other way, a percent or two
        assert!((-25_000..-10_000).contains(&c.at(1, 0)), "{}", c.at(1, 0));
        assert!((-25_000..-5_000).contains(&c.at(1, 1)), "{}", c.at(1, 1));
        assert_eq!(c.at(-1, 0), c.at(1, 0));
        assert!(
            c.at(0, 1) != c.at(1, 0),
            "rows are farther apart than columns"
        );
        assert!(c.at(18, 18) < 0 && c.at(18, 18) > -200);
        assert_eq!(c.at(19, 0), 0);
        for step in 0..=520 {
            let z = 4.0 + f64::from(step) * 0.05;
            assert_eq!(
                Coupling::dipole(z, DESIGN_PITCH_MM).unwrap().at(0, 0),
                PPM,
                "{z}"
            );
        }
        assert!((sqrt(2.0) - core::f64::consts::SQRT_2).abs() < 1e-12);
        assert_eq!(sqrt(0.0), 0.0);
    }

    #[test]
    fn single_stones_no_magnet_gives_or_off_the_board_are_refused() {
        let s = BoardSize::new(9).unwrap();
        let (e, f) = ([2048u16; 81], [2548u16; 81]);
        // neighbours reading 30 % of the full pattern: more than the stone's own field
        let mut r = [2048u16; 81];
        r[40] = 2548;
        for i in [39, 41, 31, 49] {
            r[i] = 2048 + 150;
        }
        assert!(matches!(
            Coupling::measure(s, &e, &f, &[(40, &r[..])]),
            Err(CouplingError::Implausible { .. })
        ));
        let mut r = [2048u16; 81];
        r[49] = 2048 + 250;
        let huge = 9usize * (1 << 32) + 40;
        assert_eq!(
            Coupling::measure(s, &e, &f, &[(huge, &r[..])]),
            Err(CouplingError::OffTheBoard {
                index: 0,
                point: huge
            })
        );
        assert_eq!(
            Coupling::measure(s, &e, &f, &[(40, &r[..80])]),
            Err(CouplingError::WrongCount {
                expected: 81,
                actual: 80
            })
        );
        // sensors that read nothing (the full pattern reads as the empty board)
        assert_eq!(
            Coupling::measure(s, &e, &e, &[(40, &r[..])]),
            Err(CouplingError::NothingMeasured)
        );
    }

    #[test]
    fn a_full_board_gives_its_middle_much_less_than_one_stone() {
        let c = Coupling::default();
        let s = BoardSize::new(19).unwrap();
        let centre = c.total_ppm(s, 180);
        let corner = c.total_ppm(s, 0);
        assert!((650_000..750_000).contains(&centre), "{centre}");
        assert!(corner > centre + 100_000, "{corner}");
        assert_eq!(Coupling::none().total_ppm(s, 180), i64::from(PPM));
    }
}
