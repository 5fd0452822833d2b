//! The calibration of the board's Hall sensors: per point, what its sensor reads with no stone,
//! with a black stone and with a white one; for the board, how much of a stone's field reaches
//! the other points' sensors ([`Coupling`]). The maths that turns a person's calibration
//! patterns into these numbers, without the other stones' share.
//!
//! Each stone carries one magnet, black north up and white south up (hardware/WIRING.md), so a
//! linear Hall sensor under a point reads above its no-field level for black and below it for
//! white. A sensor mounted the other way round reads the opposite; its calibration says so
//! ([`Polarity::Swapped`]) and classification follows it.

use smartgoban_protocol::BoardSize;

use crate::coupling::Coupling;
use crate::MAX_POINTS;

/// What one point's sensor reads (ADC counts, [`crate::oversample::ADC_MAX`] full scale) with
/// no stone on the point, with a black stone alone and with a white stone alone, centred and
/// with no stone on the neighbouring points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PointCalibration {
    /// No stone (the sensor's no-field output plus the board's own field).
    pub empty: u16,
    /// A black stone (north pole up).
    pub black: u16,
    /// A white stone (south pole up).
    pub white: u16,
}

/// Which way a sensor reads a stone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Polarity {
    /// Black reads above empty, white below: as designed.
    Normal,
    /// Black reads below empty, white above: the sensor is mounted the other way round (or the
    /// stones of the calibration patterns were); the calibration compensates.
    Swapped,
    /// Black and white read on the same side of empty, or not at all: the point cannot tell
    /// them apart.
    Unusable,
}

impl PointCalibration {
    /// A sensor as designed: `empty` with no stone, `span` counts above it for black and below
    /// it for white (clamped to the ADC's range).
    pub fn symmetric(empty: u16, span: u16) -> PointCalibration {
        PointCalibration {
            empty,
            black: empty.saturating_add(span).min(crate::oversample::ADC_MAX),
            white: empty.saturating_sub(span),
        }
    }

    /// `black − empty` (counts; negative when swapped).
    pub fn black_span(&self) -> i32 {
        i32::from(self.black) - i32::from(self.empty)
    }

    /// `white − empty` (counts; negative as designed).
    pub fn white_span(&self) -> i32 {
        i32::from(self.white) - i32::from(self.empty)
    }

    /// The smaller of the two spans' sizes (counts): how far the weaker colour reads from empty.
    pub fn min_span(&self) -> u16 {
        let b = self.black_span().unsigned_abs();
        let w = self.white_span().unsigned_abs();
        u16::try_from(b.min(w)).unwrap_or(u16::MAX)
    }

    /// Which way the sensor reads a stone.
    pub fn polarity(&self) -> Polarity {
        match (self.black_span().signum(), self.white_span().signum()) {
            (1, -1) => Polarity::Normal,
            (-1, 1) => Polarity::Swapped,
            _ => Polarity::Unusable,
        }
    }
}

/// A calibration pattern the readings do not fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CalibrationError {
    /// A pattern has `actual` readings where the board has `expected` points.
    WrongCount {
        /// Points on the board.
        expected: usize,
        /// Readings given.
        actual: usize,
    },
    /// A reading above the ADC's full scale ([`crate::oversample::ADC_MAX`]).
    OutOfRange {
        /// The point.
        point: usize,
        /// Its reading.
        reading: u16,
    },
    /// By the coupling, a board full of stones would give point `point` `total_ppm` of one
    /// stone's field: outside [`MIN_TOTAL_PPM`] to [`MAX_TOTAL_PPM`], no magnets do that.
    ImplausibleCoupling {
        /// The point.
        point: usize,
        /// The full pattern's share there (ppm of one stone).
        total_ppm: i64,
    },
}

/// The least a board full of stones may give a point, in ppm of one stone's field: the design
/// gives 70 % in the middle (src `coupling`); a tenth means the coupling is not a magnet's.
pub const MIN_TOTAL_PPM: i64 = 100_000;

/// The most a board full of stones may give a point (ppm of one stone).
pub const MAX_TOTAL_PPM: i64 = 3_000_000;

impl core::fmt::Display for CalibrationError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CalibrationError::WrongCount { expected, actual } => write!(
                f,
                "a calibration pattern has {actual} readings; the board has {expected} points"
            ),
            CalibrationError::OutOfRange { point, reading } => write!(
                f,
                "point {point} reads {reading}, above the ADC's full scale of {}",
                crate::oversample::ADC_MAX
            ),
            CalibrationError::ImplausibleCoupling { point, total_ppm } => write!(
                f,
                "by the coupling, a full board would give point {point} {total_ppm} ppm of one \
                 stone's field: not a coupling magnets have"
            ),
        }
    }
}

/// The calibration of every point of a board, and the board's coupling. Fixed storage for the
/// largest board (361 points × 6 bytes), no allocation. Two calibrations are equal when
/// their sizes, their points on the board and their couplings are.
#[derive(Clone, Debug)]
pub struct BoardCalibration {
    size: BoardSize,
    points: [PointCalibration; MAX_POINTS],
    coupling: Coupling,
}

impl PartialEq for BoardCalibration {
    fn eq(&self, other: &Self) -> bool {
        self.size == other.size
            && self.points() == other.points()
            && self.coupling == other.coupling
    }
}

impl Eq for BoardCalibration {}

impl BoardCalibration {
    /// Every point of a board of `size` calibrated as `point` (a board not yet calibrated gets
    /// the design values: [`PointCalibration::symmetric`] around mid-scale).
    pub fn uniform(size: BoardSize, point: PointCalibration, coupling: Coupling) -> Self {
        BoardCalibration {
            size,
            points: [point; MAX_POINTS],
            coupling,
        }
    }

    /// From the three full patterns of the calibration (hardware/WIRING.md "Calibration"):
    /// each point's mean reading on the empty board, with every point black and with every
    /// point white (counts, point order). The other stones' share at each point, by `coupling`
    /// ([`Coupling::total_ppm`]), is taken out of the black and white readings, so each point's
    /// calibration is what it reads with its own stone alone.
    ///
    /// # Errors
    /// A pattern of the wrong length, a reading above full scale, or a coupling by which a
    /// full board gives a point less than [`MIN_TOTAL_PPM`] or more than [`MAX_TOTAL_PPM`].
    pub fn from_patterns(
        size: BoardSize,
        empty: &[u16],
        black: &[u16],
        white: &[u16],
        coupling: Coupling,
    ) -> Result<BoardCalibration, CalibrationError> {
        let expected = size.points();
        for pattern in [empty, black, white] {
            if pattern.len() != expected {
                return Err(CalibrationError::WrongCount {
                    expected,
                    actual: pattern.len(),
                });
            }
            if let Some((point, &reading)) = pattern
                .iter()
                .enumerate()
                .find(|(_, &r)| r > crate::oversample::ADC_MAX)
            {
                return Err(CalibrationError::OutOfRange { point, reading });
            }
        }
        for point in 0..expected {
            let total_ppm = coupling.total_ppm(size, point);
            if !(MIN_TOTAL_PPM..=MAX_TOTAL_PPM).contains(&total_ppm) {
                return Err(CalibrationError::ImplausibleCoupling { point, total_ppm });
            }
        }
        let mut cal = BoardCalibration::uniform(size, PointCalibration::symmetric(0, 0), coupling);
        for (i, ((slot, &e), (&b, &w))) in cal
            .points
            .iter_mut()
            .zip(empty)
            .zip(black.iter().zip(white))
            .enumerate()
        {
            // full − empty = own · total, all sensors alike to first order
            let total = cal.coupling.total_ppm(size, i).max(MIN_TOTAL_PPM);
            let own = |full: u16| {
                let span =
                    (i64::from(full) - i64::from(e)) * i64::from(crate::coupling::PPM) / total;
                u16::try_from((i64::from(e) + span).clamp(0, i64::from(crate::oversample::ADC_MAX)))
                    .unwrap_or(0)
            };
            *slot = PointCalibration {
                empty: e,
                black: own(b),
                white: own(w),
            };
        }
        Ok(cal)
    }

    /// From each point's calibration as measured before (a calibration image,
    /// [`crate::image`]): `points` in point order, one a point.
    ///
    /// # Errors
    /// A wrong number of points, a reading above full scale, or a coupling by which a full
    /// board gives a point less than [`MIN_TOTAL_PPM`] or more than [`MAX_TOTAL_PPM`].
    pub fn from_points(
        size: BoardSize,
        points: &[PointCalibration],
        coupling: Coupling,
    ) -> Result<BoardCalibration, CalibrationError> {
        let expected = size.points();
        if points.len() != expected {
            return Err(CalibrationError::WrongCount {
                expected,
                actual: points.len(),
            });
        }
        for (point, p) in points.iter().enumerate() {
            let reading = p.empty.max(p.black).max(p.white);
            if reading > crate::oversample::ADC_MAX {
                return Err(CalibrationError::OutOfRange { point, reading });
            }
        }
        for point in 0..expected {
            let total_ppm = coupling.total_ppm(size, point);
            if !(MIN_TOTAL_PPM..=MAX_TOTAL_PPM).contains(&total_ppm) {
                return Err(CalibrationError::ImplausibleCoupling { point, total_ppm });
            }
        }
        let mut cal = BoardCalibration::uniform(size, PointCalibration::symmetric(0, 0), coupling);
        for (slot, p) in cal.points.iter_mut().zip(points) {
            *slot = *p;
        }
        Ok(cal)
    }

    /// The board size.
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// The coupling between the points.
    pub fn coupling(&self) -> &Coupling {
        &self.coupling
    }

    /// Replaces the coupling (one measured with [`Coupling::measure`]).
    pub fn set_coupling(&mut self, coupling: Coupling) {
        self.coupling = coupling;
    }

    /// Point `i`'s calibration, if `i` is on the board.
    pub fn point(&self, i: usize) -> Option<&PointCalibration> {
        self.points.get(..self.size.points())?.get(i)
    }

    /// Every point's calibration, in point order.
    pub fn points(&self) -> &[PointCalibration] {
        self.points.get(..self.size.points()).unwrap_or(&[])
    }

    /// Replaces point `i`'s calibration; `false` (and nothing changes) if `i` is off the board.
    pub fn set_point(&mut self, i: usize, point: PointCalibration) -> bool {
        match self
            .points
            .get_mut(..self.size.points())
            .and_then(|p| p.get_mut(i))
        {
            Some(slot) => {
                *slot = point;
                true
            }
            None => false,
        }
    }

    /// The median of the points' [`PointCalibration::min_span`] (counts): what a typical
    /// sensor of this board reads, the yardstick for a weak one.
    pub fn typical_span(&self) -> u16 {
        let mut spans = [0u16; MAX_POINTS];
        let n = self.size.points();
        for (slot, p) in spans.iter_mut().zip(self.points()) {
            *slot = p.min_span();
        }
        let used = spans.get_mut(..n).unwrap_or(&mut []);
        used.sort_unstable();
        used.get(n / 2).copied().unwrap_or(0)
    }
}

/// The LED colours with which `smartgoban calibrate` tells a person where to put stones
/// during the calibration (`LedFrame` palette entries, hardware/PROTOCOL.md §5.6, steady or
/// blinking): a point lit [`prompt::PUT_BLACK`] wants a black stone, [`prompt::PUT_WHITE`]
/// a white one, a dark point none. The virtual board's person (`sim --firmware
/// --uncalibrated`) follows them as a person at a real board does.
pub mod prompt {
    /// Put a black stone here (blue: a black stone on a lit point hides the light).
    pub const PUT_BLACK: [u8; 3] = [0, 60, 255];
    /// Put a white stone here.
    pub const PUT_WHITE: [u8; 3] = [255, 255, 255];
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(n: u8) -> BoardSize {
        BoardSize::new(n).unwrap()
    }

    #[test]
    fn polarity_and_spans() {
        let p = PointCalibration::symmetric(2048, 600);
        assert_eq!((p.black, p.white), (2648, 1448));
        assert_eq!(
            (p.black_span(), p.white_span(), p.min_span()),
            (600, -600, 600)
        );
        assert_eq!(p.polarity(), Polarity::Normal);
        let swapped = PointCalibration {
            empty: 2048,
            black: 1500,
            white: 2500,
        };
        assert_eq!(swapped.polarity(), Polarity::Swapped);
        assert_eq!(swapped.min_span(), 452);
        let dead = PointCalibration::symmetric(4095, 0);
        assert_eq!(dead.polarity(), Polarity::Unusable);
        // clamped to the ADC's range
        assert_eq!(PointCalibration::symmetric(4000, 600).black, 4095);
    }

    #[test]
    fn full_patterns_give_each_sensor_its_own_stone_without_the_neighbours_share() {
        let s = size(9);
        // deep sensors: the neighbours' field the same way as the stone's own
        let c = Coupling::dipole(24.0, (23.5, 25.0)).unwrap();
        // sensors with spread offsets and gains; the patterns include the neighbours' share
        let own = |i: usize| {
            PointCalibration::symmetric(1900 + (i as u16 * 37) % 300, 300 + (i as u16 * 53) % 400)
        };
        let full = |i: usize, sign: i32| {
            let p = own(i);
            let total = c.total_ppm(s, i);
            (i64::from(p.empty) + i64::from(sign) * i64::from(p.min_span()) * total / 1_000_000)
                as u16
        };
        let empty: [u16; 81] = core::array::from_fn(|i| own(i).empty);
        let black: [u16; 81] = core::array::from_fn(|i| full(i, 1));
        let white: [u16; 81] = core::array::from_fn(|i| full(i, -1));
        let cal = BoardCalibration::from_patterns(s, &empty, &black, &white, c.clone()).unwrap();
        for i in 0..81 {
            let (got, want) = (cal.point(i).unwrap(), own(i));
            assert_eq!(got.empty, want.empty);
            assert!(got.black.abs_diff(want.black) <= 2, "{i}: {got:?} {want:?}");
            assert!(got.white.abs_diff(want.white) <= 2, "{i}: {got:?} {want:?}");
        }
        assert_eq!(cal.point(81), None);
        assert_eq!(
            BoardCalibration::from_patterns(s, &empty[..80], &black, &white, c),
            Err(CalibrationError::WrongCount {
                expected: 81,
                actual: 80
            })
        );
    }

    #[test]
    fn readings_past_full_scale_and_couplings_no_magnet_has_are_refused() {
        let s = size(9);
        let (e, b, w) = ([2048u16; 81], [2548u16; 81], [1548u16; 81]);
        let mut high = b;
        high[7] = 4096;
        assert_eq!(
            BoardCalibration::from_patterns(s, &e, &high, &w, Coupling::default()),
            Err(CalibrationError::OutOfRange {
                point: 7,
                reading: 4096
            })
        );
        // a coupling by which a full board cancels a stone
        let mut table = Coupling::none();
        for dx in 1..4 {
            table.set_share(dx, 0, -400_000);
        }
        assert!(matches!(
            BoardCalibration::from_patterns(s, &e, &b, &w, table),
            Err(CalibrationError::ImplausibleCoupling { .. })
        ));
        assert!(Coupling::dipole(0.0, (23.5, 25.0)).is_none());
        assert!(Coupling::dipole(f64::NAN, (23.5, 25.0)).is_none());
        assert!(Coupling::dipole(12.0, (f64::INFINITY, 25.0)).is_none());
    }

    #[test]
    fn the_typical_span_is_the_median_and_points_are_set_only_on_the_board() {
        let s = size(9);
        let mut cal = BoardCalibration::uniform(
            s,
            PointCalibration::symmetric(2048, 500),
            Coupling::default(),
        );
        for i in 0..10 {
            assert!(cal.set_point(i, PointCalibration::symmetric(2048, 50)));
        }
        assert_eq!(cal.typical_span(), 500);
        assert!(!cal.set_point(81, PointCalibration::symmetric(0, 0)));
        assert_eq!(cal.points().len(), 81);
    }
}
