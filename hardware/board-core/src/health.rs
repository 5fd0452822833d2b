//! Sensor health: from a point's calibration and its noise, whether its sensor can be trusted,
//! and what a person should do about it (`smartgoban calibrate`'s per-point report, and the
//! service's sensor health in `GET state`).

use crate::calibration::{PointCalibration, Polarity};
use crate::oversample::ADC_MAX;

/// Closer than this to a rail (counts), an empty reading means a shorted or open sensor line.
pub const RAIL_MARGIN: u16 = 40;

/// Below this span (counts) a colour is not read at all: about 1 mT with a 2.5 mV/G sensor.
pub const DEAD_SPAN: u16 = 60;

/// A sensor whose span is below this share of the board's typical span (‰) is weak: it reads,
/// but a stone a little off its point may read uncertain.
pub const WEAK_PERMILLE: u32 = 500;

/// Spans per standard deviation of the noise below which the sensor is noisy: the still rule
/// of [`crate::classify::Thresholds`] needs ten readings within 6 % of the span, about 3σ,
/// so σ must stay under 2 % of it.
pub const NOISY_SPANS_PER_SIGMA: u32 = 50;

/// Below this many spans per σ the point cannot be read reliably at all.
pub const UNREADABLE_SPANS_PER_SIGMA: u32 = 8;

/// What is wrong with one point's sensor. Each is a bit of [`Health`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Fault {
    /// It reads nothing usable: stuck at a rail, no response to stones, or noise as large as
    /// the signal. The point always reads uncertain.
    Dead = 1,
    /// It reads black as white (mounted the other way round, or the pattern's stones were
    /// upside down); the calibration compensates.
    Swapped = 2,
    /// Its response is well below the board's typical one.
    Weak = 4,
    /// Its noise is large for its span.
    Noisy = 8,
}

impl Fault {
    /// Every fault, most serious first.
    pub const ALL: [Fault; 4] = [Fault::Dead, Fault::Swapped, Fault::Weak, Fault::Noisy];

    /// A short name (`dead`, `swapped`, `weak`, `noisy`), as in reports and JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Fault::Dead => "dead",
            Fault::Swapped => "swapped",
            Fault::Weak => "weak",
            Fault::Noisy => "noisy",
        }
    }

    /// What a person should do about it.
    pub const fn advice(self) -> &'static str {
        match self {
            Fault::Dead => {
                "check the sensor's solder joints and its multiplexer channel; replace the sensor"
            }
            Fault::Swapped => {
                "if the pattern's stone here was not upside down, the sensor is mounted the other \
                 way round: the calibration compensates, nothing to do"
            }
            Fault::Weak => {
                "the sensor sits too deep or off centre, or the stone's magnet is weak: check its \
                 mounting, and calibrate with the stones that will be played"
            }
            Fault::Noisy => {
                "check the sensor's supply decoupling and its ground; keep motors and phone \
                 chargers away from the board"
            }
        }
    }
}

/// A point's faults, as bits (0: healthy).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Health(pub u8);

impl Health {
    /// No fault.
    pub const HEALTHY: Health = Health(0);

    /// Whether `fault` is among them.
    pub const fn has(self, fault: Fault) -> bool {
        self.0 & fault as u8 != 0
    }

    /// Whether there is no fault.
    pub const fn is_healthy(self) -> bool {
        self.0 == 0
    }

    /// Whether the point can be read at all (not [`Fault::Dead`]).
    pub const fn is_readable(self) -> bool {
        !self.has(Fault::Dead)
    }

    fn with(self, fault: Fault) -> Health {
        Health(self.0 | fault as u8)
    }

    /// The faults, most serious first.
    pub fn faults(self) -> impl Iterator<Item = Fault> {
        Fault::ALL.into_iter().filter(move |&f| self.has(f))
    }
}

/// The health of a point calibrated as `cal`, whose empty reading over many scans had a
/// standard deviation of `noise` counts, on a board whose typical span is `typical_span`
/// counts ([`crate::calibration::BoardCalibration::typical_span`]).
pub fn assess(cal: &PointCalibration, noise: u16, typical_span: u16) -> Health {
    let mut health = Health::HEALTHY;
    let span = u32::from(cal.min_span());
    let sigma = u32::from(noise).max(1);
    let at_rail = cal.empty < RAIL_MARGIN || cal.empty > ADC_MAX - RAIL_MARGIN;
    if at_rail
        || cal.polarity() == Polarity::Unusable
        || span < u32::from(DEAD_SPAN)
        || span < UNREADABLE_SPANS_PER_SIGMA * sigma
    {
        return health.with(Fault::Dead);
    }
    if cal.polarity() == Polarity::Swapped {
        health = health.with(Fault::Swapped);
    }
    if span * 1000 < WEAK_PERMILLE * u32::from(typical_span) {
        health = health.with(Fault::Weak);
    }
    if span < NOISY_SPANS_PER_SIGMA * sigma {
        health = health.with(Fault::Noisy);
    }
    health
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_fault_is_told_apart() {
        let good = PointCalibration::symmetric(2048, 600);
        assert_eq!(assess(&good, 3, 600), Health::HEALTHY);
        // stuck at a rail, no response, same side for both colours, all noise
        for dead in [
            PointCalibration::symmetric(4090, 600),
            PointCalibration::symmetric(10, 600),
            PointCalibration::symmetric(2048, 20),
            PointCalibration {
                empty: 2048,
                black: 2600,
                white: 2300,
            },
        ] {
            let h = assess(&dead, 3, 600);
            assert!(h.has(Fault::Dead) && !h.is_readable(), "{dead:?}: {h:?}");
        }
        assert!(assess(&good, 100, 600).has(Fault::Dead));
        let swapped = PointCalibration {
            empty: 2048,
            black: 1448,
            white: 2648,
        };
        assert_eq!(assess(&swapped, 3, 600), Health(Fault::Swapped as u8));
        let weak = PointCalibration::symmetric(2048, 250);
        assert_eq!(assess(&weak, 3, 600), Health(Fault::Weak as u8));
        let noisy = assess(&good, 40, 600);
        assert_eq!(noisy, Health(Fault::Noisy as u8));
        assert!(noisy.is_readable() && !noisy.is_healthy());
        let both = assess(&PointCalibration::symmetric(2048, 250), 20, 600);
        let names: [&str; 2] = [Fault::Weak.name(), Fault::Noisy.name()];
        assert!(both.faults().map(Fault::name).eq(names));
    }

    #[test]
    fn every_fault_has_advice() {
        for f in Fault::ALL {
            assert!(!f.advice().is_empty() && !f.name().is_empty());
        }
    }
}
