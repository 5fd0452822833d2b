//! The virtual board read as the real one is (`sim --firmware`): every stone's magnet gives
//! each Hall sensor a field, each sensor turns it into a voltage with its own offset, gain,
//! polarity and noise, the ADC oversamples it, and the firmware's own logic
//! (`smartgoban_board_core`: calibration, coupling, sensor health, classification with
//! hysteresis) turns the readings into the cells of a `Scan`. The calibration is done at the
//! start as a person does it (hardware/WIRING.md): the empty board, single stones, every point
//! black, every point white.
//!
//! The physics is harder than the firmware's model of it: the magnets sit at a height drawn
//! around the design's and vary in strength from stone to stone (the calibration's stones are
//! not the game's), stones lie up to [`HallParams::jitter_mm`] off their points, land from a
//! few millimetres and bounce, and some sensors are weak, noisy, mounted the other way round
//! or dead ([`HallParams`], [`SensorFaults`]). A dead sensor's point is read from its
//! neighbours' sensors, as the firmware does (`smartgoban_board_core::dead`). The board
//! answers the calibration messages of protocol version 4 as the firmware does
//! ([`Sensors`]).

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::action::Action;
use super::noise::{NoiseModel, NoiseParams};
use super::physics::Physics;
use crate::rules::{Color, Point};
use smartgoban_board_core::calibration::BoardCalibration;
use smartgoban_board_core::classify::{Classifier, Thresholds};
use smartgoban_board_core::coupling::{Coupling, DESIGN_HEIGHT_MM, DESIGN_PITCH_MM, PPM};
use smartgoban_board_core::health::{assess, Health};
use smartgoban_board_core::link::Sensors;
use smartgoban_board_core::oversample::{trimmed_mean, Stats, ADC_MAX};
use smartgoban_protocol::calibration::{CalibrationStatus, SensorHealth};
use smartgoban_protocol::{BoardSize, Cell, PackedCells};

/// The sensors' spread and faults and how the stones lie: the numbers behind `--firmware`.
#[derive(Clone, Debug, PartialEq)]
pub struct HallParams {
    /// Each sensor's empty reading is mid-scale ± this (counts).
    pub offset_spread: f64,
    /// A centred stone at rest gives a sensor this (counts) ± [`HallParams::gain_spread`].
    pub gain: f64,
    /// Relative spread of the sensors' gains (0.25: ±25 %).
    pub gain_spread: f64,
    /// Relative spread of the magnets' strengths from stone to stone.
    pub magnet_spread: f64,
    /// The board's magnets sit at the design height ± this (mm).
    pub height_spread_mm: f64,
    /// Standard deviation of one conversion's noise (counts).
    pub noise: f64,
    /// A stone lies up to this far off its point, across and along (mm).
    pub jitter_mm: f64,
    /// Conversions per reading.
    pub samples: usize,
    /// Sensors at a quarter of the gain.
    pub weak: u32,
    /// Sensors with eight times the noise.
    pub noisy: u32,
    /// Sensors mounted the other way round.
    pub swapped: u32,
    /// Sensors stuck at a rail.
    pub dead: u32,
    /// The board comes from the factory (`--uncalibrated`): the design calibration, every
    /// sensor taken as healthy, `calibrated` = 0, until `smartgoban calibrate` writes one.
    pub uncalibrated: bool,
}

impl HallParams {
    /// The sensors of a board played with `model`: a real batch's spread for every model,
    /// faults and untidy stones growing with it. No dead sensor (a move on one cannot be
    /// recorded): tests add them.
    pub fn for_noise(model: NoiseModel) -> HallParams {
        let base = HallParams {
            offset_spread: 150.0,
            gain: 770.0,
            gain_spread: 0.25,
            magnet_spread: 0.08,
            height_spread_mm: 1.0,
            noise: 6.0,
            jitter_mm: 2.5,
            samples: 8,
            weak: 1,
            noisy: 1,
            swapped: 1,
            dead: 0,
            uncalibrated: false,
        };
        match model {
            NoiseModel::Clean => HallParams {
                jitter_mm: 0.5,
                weak: 0,
                noisy: 0,
                swapped: 0,
                ..base
            },
            NoiseModel::Realistic | NoiseModel::Blitz => base,
            NoiseModel::Harsh => HallParams {
                gain_spread: 0.35,
                magnet_spread: 0.15,
                noise: 10.0,
                jitter_mm: 4.0,
                weak: 3,
                noisy: 3,
                swapped: 2,
                ..base
            },
        }
    }
}

/// Faulty sensors added to a noise model's own (`--sensor-faults dead=1,swapped=1`): each
/// count of sensors drawn at random (from the seed) among the board's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SensorFaults {
    /// Sensors stuck at a rail: their points are read from the neighbours' sensors
    /// (`smartgoban_board_core::dead`).
    pub dead: u32,
    /// Sensors mounted the other way round.
    pub swapped: u32,
    /// Sensors at a quarter of the gain.
    pub weak: u32,
    /// Sensors with eight times the noise.
    pub noisy: u32,
}

/// The most sensors of one fault `--sensor-faults` adds.
pub const MAX_ADDED_FAULTS: u32 = 20;

impl std::str::FromStr for SensorFaults {
    type Err = String;

    /// `dead=1,swapped=1,weak=2,noisy=1` (any of them, any order; `none` for none).
    fn from_str(s: &str) -> Result<SensorFaults, String> {
        let mut faults = SensorFaults::default();
        if s.trim() == "none" {
            return Ok(faults);
        }
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, count) = part
                .split_once('=')
                .ok_or_else(|| format!("sensor faults `{part}`: use NAME=COUNT, such as dead=1"))?;
            let count: u32 = count.trim().parse().map_err(|_| {
                format!(
                    "sensor faults `{part}`: `{}` is not a whole number",
                    count.trim()
                )
            })?;
            if count > MAX_ADDED_FAULTS {
                return Err(format!(
                    "sensor faults `{part}`: at most {MAX_ADDED_FAULTS} sensors of one fault"
                ));
            }
            let slot = match name.trim() {
                "dead" => &mut faults.dead,
                "swapped" => &mut faults.swapped,
                "weak" => &mut faults.weak,
                "noisy" => &mut faults.noisy,
                other => {
                    return Err(format!(
                        "sensor faults: unknown fault `{other}` (dead, swapped, weak, noisy)"
                    ))
                }
            };
            *slot = count;
        }
        Ok(faults)
    }
}

impl HallParams {
    /// These sensors with `faults` added.
    pub fn with_faults(mut self, faults: SensorFaults) -> HallParams {
        self.dead += faults.dead;
        self.swapped += faults.swapped;
        self.weak += faults.weak;
        self.noisy += faults.noisy;
        self
    }
}

#[derive(Clone, Copy, Debug)]
struct Sensor {
    offset: f64,
    /// counts for a centred stone of strength 1 at rest; negative: mounted the other way round
    gain: f64,
    noise: f64,
    /// a dead sensor's output (counts)
    stuck: Option<u16>,
}

#[derive(Clone, Copy, Debug)]
struct Lying {
    /// +strength for black (north up), −strength for white
    pole: f64,
    /// off its point (mm)
    dx: f64,
    dy: f64,
    /// scans since it was put down (it lands from a few mm)
    age: u32,
}

/// Heights (mm) of a stone landing, scan by scan after it is put down.
const LANDING_MM: [f64; 3] = [4.0, 1.5, 0.5];

/// The board of Hall sensors and the firmware's logic reading it. Deterministic for a seed.
#[derive(Debug)]
pub struct HallBoard {
    size: BoardSize,
    n: usize,
    params: HallParams,
    /// The stones where they lie, hands and scatter: the same bookkeeping as the cell board.
    physics: Physics,
    sensors: Vec<Sensor>,
    lying: Vec<Option<Lying>>,
    /// Each sensor's field from every other lying stone at rest (in a centred stone's units).
    others: Vec<f64>,
    /// The true coupling (the board's real magnet height), by offset.
    kernel: Coupling,
    height_mm: f64,
    bounces: Vec<(usize, u32)>,
    /// (point, added field in a stone's units, scans left)
    glitches: Vec<(usize, f64, u32)>,
    misread_every_scans: u32,
    misread_scans: std::ops::RangeInclusive<u32>,
    calibration: BoardCalibration,
    health: Vec<Health>,
    classifier: Classifier,
    /// Whether a calibration is stored (the internal one at the start, or one written by
    /// `smartgoban calibrate`): `SensorHealth.calibrated`.
    calibrated: bool,
    /// The last scan's readings (counts), for `RawRequest`.
    raw: Vec<u16>,
    /// Which sensor got which fault: (point, fault name), in the order drawn.
    faults: Vec<(usize, &'static str)>,
}

impl HallBoard {
    /// An empty board of `size`, its sensors drawn from `params`, calibrated as a person
    /// calibrates it; `noise` gives the misreads.
    pub fn new(
        size: BoardSize,
        noise: &NoiseParams,
        params: &HallParams,
        rng: &mut ChaCha8Rng,
    ) -> HallBoard {
        let n = usize::from(size.get());
        let spread = |rng: &mut ChaCha8Rng, x: f64| x * (2.0 * rng.random::<f64>() - 1.0);
        let mut sensors: Vec<Sensor> = (0..n * n)
            .map(|_| Sensor {
                offset: 2048.0 + spread(rng, params.offset_spread),
                gain: params.gain * (1.0 + spread(rng, params.gain_spread)),
                noise: params.noise,
                stuck: None,
            })
            .collect();
        let mut faults = Vec::new();
        // Each of `count` sensors drawn gets the fault; a sensor already drawn for it is drawn
        // again (twice swapped is not swapped, twice dead is one dead sensor), so the board
        // has as many of each fault as asked (up to its number of sensors).
        let mut faulty =
            |count: u32, name: &'static str, sensors: &mut Vec<Sensor>, f: &dyn Fn(&mut Sensor)| {
                for _ in 0..count {
                    let has = |faults: &[(usize, &str)], i: usize| faults.contains(&(i, name));
                    if (0..sensors.len()).all(|i| has(&faults, i)) {
                        break;
                    }
                    let i = loop {
                        let i = rng.random_range(0..sensors.len());
                        if !has(&faults, i) {
                            break i;
                        }
                    };
                    f(&mut sensors[i]);
                    faults.push((i, name));
                }
            };
        faulty(params.weak, "weak", &mut sensors, &|s| s.gain *= 0.25);
        faulty(params.noisy, "noisy", &mut sensors, &|s| s.noise *= 8.0);
        faulty(params.swapped, "swapped", &mut sensors, &|s| {
            s.gain = -s.gain
        });
        faulty(params.dead, "dead", &mut sensors, &|s| {
            s.stuck = Some(ADC_MAX)
        });
        let height_mm = DESIGN_HEIGHT_MM + spread(rng, params.height_spread_mm);
        let mut board = HallBoard {
            size,
            n,
            params: params.clone(),
            physics: Physics::new(size, noise),
            sensors,
            lying: vec![None; n * n],
            others: vec![0.0; n * n],
            // the height is drawn within a millimetre or two of the design's, always valid
            kernel: Coupling::dipole(height_mm, DESIGN_PITCH_MM).unwrap_or_default(),
            height_mm,
            bounces: Vec::new(),
            glitches: Vec::new(),
            misread_every_scans: noise.misread_every_scans,
            misread_scans: noise.misread_scans.clone(),
            calibration: BoardCalibration::uniform(
                size,
                smartgoban_board_core::calibration::PointCalibration::symmetric(2048, 770),
                Coupling::default(),
            ),
            health: Vec::new(),
            classifier: Classifier::new(size, Thresholds::default())
                .expect("the default thresholds hang together"),
            calibrated: false,
            raw: Vec::new(),
            faults,
        };
        if !params.uncalibrated {
            board.calibrate(rng);
            board.calibrated = true;
        } else {
            board.health = vec![Health::HEALTHY; n * n];
        }
        board
    }

    /// The microcontroller restarts: the classifier starts over (its hysteresis and the dead
    /// points' estimates were in RAM) with the calibration and health from the flash; the
    /// stones and the sensors stay as they are.
    pub fn restart(&mut self) {
        self.classifier = Classifier::new(self.size, Thresholds::default())
            .expect("the default thresholds hang together");
        self.raw.clear();
    }

    /// Points per side.
    pub fn size_lines(&self) -> u8 {
        self.size.get()
    }

    /// Whether a calibration is stored (`SensorHealth.calibrated`).
    pub fn is_calibrated(&self) -> bool {
        self.calibrated
    }

    /// The stone lying on point `p`, if any.
    pub fn stone(&self, p: Point) -> Option<Color> {
        self.physics.stone(p)
    }

    /// The firmware's reading of each dead sensor's point (board-core `dead`): diagnostics.
    pub fn dead_points(&self) -> Vec<smartgoban_board_core::dead::DeadEstimate> {
        self.classifier.dead_points().collect()
    }

    /// Which sensor got which fault, in the order drawn: (point index, `dead` / `swapped` /
    /// `weak` / `noisy`).
    pub fn faults(&self) -> &[(usize, &'static str)] {
        &self.faults
    }

    /// The calibration the board made at the start.
    pub fn calibration(&self) -> &BoardCalibration {
        &self.calibration
    }

    /// Each point's sensor health, as the calibration found it.
    pub fn health(&self) -> &[Health] {
        &self.health
    }

    /// The calibration of hardware/WIRING.md: the empty board, four single stones inside,
    /// every point black, every point white (stones of strength 1, centred).
    fn calibrate(&mut self, rng: &mut ChaCha8Rng) {
        let points = self.n * self.n;
        let (empty, noise) = self.pattern(&[], 32, rng);
        let centre = points / 2;
        let singles_at = [
            centre,
            centre.saturating_sub(2),
            (centre + 2).min(points - 1),
            centre.saturating_sub(2 * self.n),
        ];
        let singles: Vec<(usize, Vec<u16>)> = singles_at
            .iter()
            .map(|&j| (j, self.pattern(&[(j, 1.0)], 16, rng).0))
            .collect();
        let all = |pole: f64| (0..points).map(|i| (i, pole)).collect::<Vec<_>>();
        let black = self.pattern(&all(1.0), 16, rng).0;
        let white = self.pattern(&all(-1.0), 16, rng).0;
        let refs: Vec<(usize, &[u16])> = singles.iter().map(|(j, r)| (*j, r.as_slice())).collect();
        let coupling = Coupling::measure(self.size, &empty, &black, &refs).unwrap_or_default();
        if let Ok(cal) =
            BoardCalibration::from_patterns(self.size, &empty, &black, &white, coupling)
        {
            self.calibration = cal;
        }
        let typical = self.calibration.typical_span();
        self.health = self
            .calibration
            .points()
            .iter()
            .zip(&noise)
            .map(|(p, s)| assess(p, s.std_dev(), typical))
            .collect();
    }

    /// The mean readings of `scans` scans with `stones` `(point, pole)` centred and at rest,
    /// and each point's statistics.
    fn pattern(
        &self,
        stones: &[(usize, f64)],
        scans: usize,
        rng: &mut ChaCha8Rng,
    ) -> (Vec<u16>, Vec<Stats>) {
        let points = self.n * self.n;
        let mut field = vec![0.0; points];
        for &(j, pole) in stones {
            self.spread_field(&mut field, j, pole);
            if let Some(f) = field.get_mut(j) {
                *f += pole;
            }
        }
        let mut stats = vec![Stats::new(); points];
        for _ in 0..scans {
            for (i, s) in stats.iter_mut().enumerate() {
                s.push(self.read(i, field[i], rng));
            }
        }
        (stats.iter().map(|s| s.mean().unwrap_or(0)).collect(), stats)
    }

    /// Adds the field of a stone of `pole` at rest on point `j` to every other point's.
    fn spread_field(&self, field: &mut [f64], j: usize, pole: f64) {
        let n = self.n as i32;
        let (xj, yj) = ((j as i32) % n, (j as i32) / n);
        for (i, f) in field.iter_mut().enumerate() {
            if i != j {
                let (x, y) = ((i as i32) % n, (i as i32) / n);
                *f += pole * f64::from(self.kernel.at(x - xj, y - yj)) / f64::from(PPM);
            }
        }
    }

    /// One reading of sensor `i` in a field of `b` (a centred stone's units): oversampled.
    fn read(&self, i: usize, b: f64, rng: &mut ChaCha8Rng) -> u16 {
        let s = self.sensors[i];
        if let Some(v) = s.stuck {
            return v;
        }
        let mut conversions = [0u16; 16];
        let k = self.params.samples.clamp(1, conversions.len());
        for c in conversions.iter_mut().take(k) {
            // Irwin–Hall of 4 uniforms: mean 2, variance 1/3
            let z = ((0..4).map(|_| rng.random::<f64>()).sum::<f64>() - 2.0) * 3f64.sqrt();
            let v = s.offset + s.gain * b + s.noise * z;
            *c = v.round().clamp(0.0, f64::from(ADC_MAX)) as u16;
        }
        trimmed_mean(&conversions[..k]).unwrap_or(0)
    }

    /// The field of the stone lying on `i` at its own sensor (a centred stone's units).
    fn own_field(&self, i: usize) -> f64 {
        match self.lying[i] {
            None => 0.0,
            Some(l) => {
                let lift = LANDING_MM.get(l.age as usize).copied().unwrap_or(0.0)
                    + if self.bounces.iter().any(|&(b, _)| b == i) {
                        1.5
                    } else {
                        0.0
                    };
                let z = self.height_mm + lift;
                let r2 = l.dx * l.dx + l.dy * l.dy + z * z;
                let h = self.height_mm;
                // the dipole's vertical field over the one straight under it at rest
                l.pole * ((3.0 * z * z - r2) / (r2 * r2 * r2.sqrt())) * (h * h * h) / 2.0
            }
        }
    }

    /// Applies a board action at board time `now_ms` (button presses and unplugging are the
    /// device's business).
    pub fn apply(&mut self, action: &Action, now_ms: u64, rng: &mut ChaCha8Rng) {
        match action {
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
                    let add = self.glitch_field(i, *reading, rng);
                    self.glitches.push((i, add, *scans));
                }
            }
            // A hand is not magnetic.
            Action::Hand { .. } => {}
            _ => {
                self.physics.apply(action, now_ms, rng);
                self.sync(rng);
            }
        }
    }

    fn index(&self, p: Point) -> Option<usize> {
        let n = self.size.get();
        (p.x < n && p.y < n).then(|| p.index(n))
    }

    /// A disturbance that makes point `i` look like `reading` to a naive reader: a field added
    /// to its sensor for a few scans (a phone charger's cable, a spike on the line).
    fn glitch_field(&self, i: usize, reading: Cell, rng: &mut ChaCha8Rng) -> f64 {
        match reading {
            Cell::Black => 0.8,
            Cell::White => -0.8,
            Cell::Empty => -self.own_field(i),
            Cell::Uncertain => {
                if rng.random_bool(0.5) {
                    0.45
                } else {
                    -0.45
                }
            }
        }
    }

    /// Brings the lying stones in line with the bookkeeping after an action: a stone put
    /// down lands somewhere near its point with a magnet of its own strength.
    fn sync(&mut self, rng: &mut ChaCha8Rng) {
        let n = self.size.get();
        for i in 0..self.n * self.n {
            let stone = self.physics.stone(Point::from_index(i, n));
            let same = match (stone, self.lying[i]) {
                (None, None) => true,
                (Some(c), Some(l)) => (c == Color::Black) == (l.pole > 0.0),
                _ => false,
            };
            if same {
                continue;
            }
            if let Some(old) = self.lying[i].take() {
                let mut others = std::mem::take(&mut self.others);
                self.spread_field(&mut others, i, -old.pole);
                self.others = others;
            }
            if let Some(c) = stone {
                let strength = 1.0 + self.params.magnet_spread * (2.0 * rng.random::<f64>() - 1.0);
                let j = self.params.jitter_mm;
                let pole = if c == Color::Black {
                    strength
                } else {
                    -strength
                };
                self.lying[i] = Some(Lying {
                    pole,
                    dx: j * (2.0 * rng.random::<f64>() - 1.0),
                    dy: j * (2.0 * rng.random::<f64>() - 1.0),
                    age: 0,
                });
                let mut others = std::mem::take(&mut self.others);
                self.spread_field(&mut others, i, pole);
                self.others = others;
            }
        }
    }

    /// Reads every sensor (one scan) and classifies the readings as the firmware does.
    pub fn scan(&mut self, rng: &mut ChaCha8Rng) -> PackedCells {
        let points = self.n * self.n;
        if self.misread_every_scans > 0 && rng.random_range(0..self.misread_every_scans) == 0 {
            let i = rng.random_range(0..points);
            let wrong = super::physics::random_cell(rng);
            let scans = rng.random_range(self.misread_scans.clone());
            let add = self.glitch_field(i, wrong, rng);
            self.glitches.push((i, add, scans));
        }
        let readings: Vec<u16> = (0..points)
            .map(|i| {
                let glitch: f64 = self.glitches.iter().filter(|g| g.0 == i).map(|g| g.1).sum();
                let b = self.own_field(i) + self.others[i] + glitch;
                self.read(i, b, rng)
            })
            .collect();
        for l in self.lying.iter_mut().flatten() {
            l.age = l.age.saturating_add(1);
        }
        for (_, left) in self.bounces.iter_mut() {
            *left = left.saturating_sub(1);
        }
        self.bounces.retain(|&(_, left)| left > 0);
        for (_, _, left) in self.glitches.iter_mut() {
            *left = left.saturating_sub(1);
        }
        self.glitches.retain(|&(_, _, left)| left > 0);
        let cells = self
            .classifier
            .update(&readings, &self.calibration, &self.health)
            .unwrap_or_else(|_| PackedCells::new(self.size));
        self.raw = readings;
        cells
    }
}

/// The board's sensors as the version-4 calibration messages reach them (PROTOCOL.md §15):
/// the firmware's own behaviour, with the simulated sensors' readings and a calibration kept
/// as the flash keeps it (across restarts of the microcontroller).
impl Sensors for HallBoard {
    fn raw_readings(&self) -> &[u16] {
        &self.raw
    }

    fn sensor_health(&self) -> SensorHealth {
        let mut report = SensorHealth::new(self.size, self.calibrated);
        for (i, h) in self.health.iter().enumerate() {
            report.set(i, h.0);
        }
        report
    }

    fn store_calibration(&mut self, image: &[u8]) -> CalibrationStatus {
        match smartgoban_board_core::image::decode(image, Some(self.size)) {
            Ok(decoded) => {
                self.calibration = decoded.calibration;
                self.health = decoded.health[..self.size.points()].to_vec();
                self.calibrated = true;
                CalibrationStatus::Stored
            }
            Err(_) => CalibrationStatus::Invalid,
        }
    }
}
