//! From the patterns' readings to the board's calibration, its sensors' health, the image the
//! board keeps (board-core `image`) and the report a person reads — the firmware's own maths
//! (board-core `coupling`, `calibration`, `health`), run on the host.

use serde::Serialize;
use smartgoban_board_core::calibration::{BoardCalibration, Polarity};
use smartgoban_board_core::coupling::Coupling;
use smartgoban_board_core::health::{assess, Fault, Health};
use smartgoban_board_core::image;

use super::Patterns;

/// Why the patterns give no calibration; nothing is written to the board.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ComputeError {
    /// A pattern is missing or of the wrong length (a step skipped).
    #[error("the {0} pattern was not read")]
    Missing(&'static str),
    /// The single stones give no coupling.
    #[error("the single stones give no coupling between the points: {0}")]
    Coupling(String),
    /// The patterns give no calibration.
    #[error("{0}")]
    Calibration(String),
    /// Most sensors read the colours swapped: the patterns' stones, not the sensors.
    #[error(
        "{swapped} of {points} sensors read black as white: were the black pattern's stones \
         white (or the board turned round)? Calibrate again with black stones (north pole up) \
         for the black pattern"
    )]
    MostlySwapped {
        /// Sensors read swapped.
        swapped: usize,
        /// Points on the board.
        points: usize,
    },
}

/// A computed calibration.
#[derive(Clone, Debug)]
pub struct Calibrated {
    /// The calibration.
    pub calibration: BoardCalibration,
    /// Each point's health.
    pub health: Vec<Health>,
    /// The image to write into the board.
    pub image: Vec<u8>,
    /// The report.
    pub report: Report,
}

/// The calibration as a person (and `--json`, and the copy in the data directory) reads it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    /// Points per side.
    pub size: u8,
    /// The median of the sensors' smaller span (counts): what a stone gives a typical sensor.
    pub typical_span: u16,
    /// The median noise of the sensors on the empty board (counts, standard deviation).
    pub typical_noise: u16,
    /// The coupling's shares (ppm of a stone's own field) one and two lines away: across,
    /// along, diagonal, two across, two along.
    pub coupling_ppm: [i32; 5],
    /// Each faulty sensor, in point order.
    pub faults: Vec<PointFault>,
    /// Every point: GTP, empty, black and white readings (counts), noise, fault names.
    pub points: Vec<PointReport>,
    /// The image written to the board (hex, [`image::image_len`] bytes).
    pub image_hex: String,
}

/// One faulty sensor.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PointFault {
    /// GTP point.
    pub point: String,
    /// Its faults, most serious first.
    pub faults: Vec<&'static str>,
    /// What to do, for each.
    pub advice: Vec<&'static str>,
}

/// One point's calibration.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PointReport {
    /// GTP point.
    pub point: String,
    /// Empty reading (counts).
    pub empty: u16,
    /// With a black stone alone (counts).
    pub black: u16,
    /// With a white stone alone (counts).
    pub white: u16,
    /// Noise on the empty board (counts).
    pub noise: u16,
    /// Fault names (empty when healthy).
    pub faults: Vec<&'static str>,
}

/// The calibration, health, image and report of `patterns`.
///
/// # Errors
/// A missing pattern, patterns that give no coupling or calibration, or patterns by which most
/// sensors read the colours swapped ([`ComputeError`]).
pub fn compute(patterns: &Patterns) -> Result<Calibrated, ComputeError> {
    let size = patterns.size;
    let points = size.points();
    for (name, p) in [
        ("empty", &patterns.empty),
        ("black", &patterns.black),
        ("white", &patterns.white),
    ] {
        if p.len() != points {
            return Err(ComputeError::Missing(name));
        }
    }
    let singles: Vec<(usize, &[u16])> = patterns
        .singles
        .iter()
        .map(|(j, r)| (*j, r.as_slice()))
        .collect();
    let coupling = Coupling::measure(size, &patterns.empty, &patterns.black, &singles)
        .map_err(|e| ComputeError::Coupling(e.to_string()))?;
    let calibration = BoardCalibration::from_patterns(
        size,
        &patterns.empty,
        &patterns.black,
        &patterns.white,
        coupling,
    )
    .map_err(|e| ComputeError::Calibration(e.to_string()))?;
    let swapped = calibration
        .points()
        .iter()
        .filter(|p| p.polarity() == Polarity::Swapped)
        .count();
    if 2 * swapped > points {
        return Err(ComputeError::MostlySwapped { swapped, points });
    }
    let typical_span = calibration.typical_span();
    let health: Vec<Health> = calibration
        .points()
        .iter()
        .enumerate()
        .map(|(i, p)| assess(p, patterns.noise.get(i).copied().unwrap_or(0), typical_span))
        .collect();
    let mut buf = vec![0u8; image::MAX_LEN];
    let len = image::encode(&calibration, &health, &mut buf)
        .map_err(|e| ComputeError::Calibration(e.to_string()))?;
    buf.truncate(len);
    let n = size.get();
    let gtp = |i: usize| crate::rules::Point::from_index(i, n).to_gtp(n);
    let names = |h: Health| h.faults().map(Fault::name).collect::<Vec<_>>();
    let mut noise = patterns.noise.clone();
    noise.sort_unstable();
    let c = calibration.coupling();
    let report = Report {
        size: n,
        typical_span,
        typical_noise: noise.get(noise.len() / 2).copied().unwrap_or(0),
        coupling_ppm: [c.at(1, 0), c.at(0, 1), c.at(1, 1), c.at(2, 0), c.at(0, 2)],
        faults: health
            .iter()
            .enumerate()
            .filter(|(_, h)| !h.is_healthy())
            .map(|(i, &h)| PointFault {
                point: gtp(i),
                faults: names(h),
                advice: h.faults().map(Fault::advice).collect(),
            })
            .collect(),
        points: calibration
            .points()
            .iter()
            .enumerate()
            .map(|(i, p)| PointReport {
                point: gtp(i),
                empty: p.empty,
                black: p.black,
                white: p.white,
                noise: patterns.noise.get(i).copied().unwrap_or(0),
                faults: names(health[i]),
            })
            .collect(),
        image_hex: buf.iter().map(|b| format!("{b:02x}")).collect(),
    };
    Ok(Calibrated {
        calibration,
        health,
        image: buf,
        report,
    })
}

impl Report {
    /// The report as text for a terminal: a summary, then each faulty sensor with what to do.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{}x{} board: a stone gives a typical sensor {} counts, noise {} counts; a stone \
             gives the point beside it {:.1} % of its field (across), {:.1} % (along), {:.1} % \
             diagonally",
            self.size,
            self.size,
            self.typical_span,
            self.typical_noise,
            f64::from(self.coupling_ppm[0]) / 1e4,
            f64::from(self.coupling_ppm[1]) / 1e4,
            f64::from(self.coupling_ppm[2]) / 1e4,
        );
        if self.faults.is_empty() {
            let _ = writeln!(out, "every sensor is healthy");
        }
        for f in &self.faults {
            let _ = writeln!(out, "  {:>4}  {}", f.point, f.faults.join(", "));
            for a in &f.advice {
                let _ = writeln!(out, "        - {a}");
            }
        }
        out
    }
}
