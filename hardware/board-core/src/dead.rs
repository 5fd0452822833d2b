//! A dead sensor's point read from its neighbours. A stone's magnet reaches the sensors around
//! it too — 1.8 % of its own field under each point beside it, 1.2 % under the diagonals, for
//! the design of hardware/WIRING.md ([`crate::coupling`]) — so when a point's own sensor reads
//! nothing ([`Fault::Dead`]), the readings of the twenty points within two lines still tell
//! whether a stone lies on it and of which colour: a black stone moves each of them by
//! `share × span` counts one way, a white one the other way.
//!
//! The neighbours' own stones give far more than that (a whole span each, with the magnet's
//! strength and the stone's place unknown to a few percent), so each neighbour counts by how
//! its reading **changed** since it was last seen settled: a neighbour is anchored — its
//! residual reading (what its own calibration and every classified stone but the dead
//! point's leave unexplained) kept with the dead point's estimate at that moment — once it and
//! every point beside it have kept their cells for [`STABLE_SCANS`] scans; an empty neighbour
//! may also be anchored at "nothing on the dead point" when nothing is known yet (at power-up).
//! A neighbour that changes, or beside which a stone is being put down or lifted, is dropped
//! until it settles again. The estimate is the least-squares fit of the anchored neighbours'
//! changes, in thousandths of a stone (‰: +1000 a black stone, −1000 a white one, 0 none),
//! smoothed over a few scans, and the point's cell follows it with the classifier's own
//! hysteresis ([`Thresholds`]). Without enough anchored neighbours the estimate holds; with
//! none ever, the point reads uncertain, which the host takes as "keep what was there".
//!
//! A dead point whose usable neighbours cannot give [`MIN_SIGNAL_COUNTS`] even when all are
//! settled — within two lines of another dead sensor (whose stone's field they cannot tell
//! from its own), or in a corner of weak sensors — always reads uncertain. At most
//! [`MAX_DEAD`] dead points are read so (more: uncertain); integer arithmetic only.

use smartgoban_protocol::{BoardSize, Cell};

use crate::calibration::BoardCalibration;
use crate::classify::Thresholds;
use crate::coupling::Coupling;
use crate::health::{Fault, Health};
use crate::MAX_POINTS;

/// Dead points read from their neighbours; more read uncertain.
pub const MAX_DEAD: usize = 8;

/// Scans a neighbour and the points near it must keep their cells and their readings still
/// ([`crate::classify::STILL_PERMILLE`]) before it counts.
pub const STABLE_SCANS: u8 = 10;

/// The spread of one reading's noise the fit allows for, counts (8 conversions of a sensor
/// with 6 counts of noise each, trimmed: hardware/WIRING.md).
pub const NOISE_COUNTS: i64 = 3;

/// Fits after power-up before a dead point reads anything but uncertain: the smoothed
/// estimate has come within a twentieth of the fits.
pub const FIRST_FITS: u8 = 24;

/// Scans a fit with too little signal must disagree with the estimate before it is taken.
pub const SNAP_SCANS: u8 = 25;

/// Neighbours whose share of the dead point's field is below this (ppm) are not used: their
/// change is lost in their noise.
pub const MIN_SHARE_PPM: i32 = 3_000;

/// The least signal the anchored neighbours together must give, in counts for a whole stone
/// on the dead point (the root of the sum of squares): with sensors' noise of about 3 counts
/// a reading, one scan's fit spreads by half a stone and the smoothed estimate by an eighth,
/// a quarter of the way to the thresholds. (A corner point of a board whose sensors give
/// 450 counts for a stone has about 10; the design's 770 counts, about 20.)
pub const MIN_SIGNAL_COUNTS: i64 = 6;

/// Offsets (across, along) within two lines, in a fixed order.
const OFFSETS: [(i32, i32); 24] = [
    (-1, 0),
    (1, 0),
    (0, -1),
    (0, 1),
    (-1, -1),
    (1, -1),
    (-1, 1),
    (1, 1),
    (-2, 0),
    (2, 0),
    (0, -2),
    (0, 2),
    (-2, -1),
    (2, -1),
    (-2, 1),
    (2, 1),
    (-1, -2),
    (1, -2),
    (-1, 2),
    (1, 2),
    (-2, -2),
    (2, -2),
    (-2, 2),
    (2, 2),
];

/// A neighbour's residual reading (counts) when it was anchored — the mean of its first
/// [`ANCHOR_SCANS`] scans, so that one scan's noise is not kept for good —, what the dead
/// point held then (‰) and the neighbour's own cell then. 8 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Anchor {
    sum: i32,
    estimate: i16,
    /// Scans summed; 0 for one new this scan.
    scans: u8,
    cell: Cell,
}

impl Anchor {
    /// An anchor fixed at `residual` (counts).
    const fn fixed(residual: i32, estimate: i16, cell: Cell) -> Anchor {
        Anchor {
            sum: residual * ANCHOR_SCANS as i32,
            estimate,
            scans: ANCHOR_SCANS,
            cell,
        }
    }

    /// An anchor whose residual is averaged from `residual` over its first scans.
    fn new(residual: i64, estimate: i16, cell: Cell) -> Anchor {
        Anchor {
            sum: residual.clamp(-65_536, 65_536) as i32,
            estimate,
            scans: 0,
            cell,
        }
    }

    fn residual(&self) -> i64 {
        i64::from(self.sum) / i64::from(self.scans.max(1))
    }
}

/// Scans over which a new anchor's residual is averaged.
pub const ANCHOR_SCANS: u8 = 16;

/// One dead point being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DeadPoint {
    point: u16,
    /// The smoothed estimate (‰ of a stone; + black, − white); `None` until one is known.
    estimate: Option<i64>,
    /// Scans the estimate has kept within a tenth of a stone of each new fit.
    steady: u8,
    /// The last fit's signal: the sum of the squared weights of the anchored neighbours.
    signal: i64,
    /// The fit smoothed over a few scans however little signal it had (‰).
    weak: Option<i64>,
    /// The fit smoothed over two scans (‰): a change shows in it at once.
    fast: Option<i64>,
    /// Whether its usable neighbours, all settled, would give enough signal: not when it lies
    /// in a corner of weak sensors or within two lines of another dead sensor.
    readable: bool,
    /// Scans the weak fit has disagreed with the estimate.
    disagree: u8,
    /// Fits with enough signal since power-up (saturating).
    fits: u8,

    anchors: [Option<Anchor>; OFFSETS.len()],
}

impl DeadPoint {
    const fn new(point: u16) -> DeadPoint {
        DeadPoint {
            point,
            estimate: None,
            steady: 0,
            signal: 0,
            weak: None,
            fast: None,
            readable: false,
            disagree: 0,
            fits: 0,
            anchors: [None; OFFSETS.len()],
        }
    }
}

/// A dead point's reading, for diagnostics ([`crate::classify::Classifier::dead_points`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeadEstimate {
    /// The point.
    pub point: usize,
    /// What lies on it, in thousandths of a stone (+ black, − white); `None` while unknown.
    pub estimate: Option<i64>,
    /// Neighbours counting now.
    pub anchored: usize,
    /// The signal they give together: counts a whole stone on the point moves them (the
    /// root of the sum of squares); under [`MIN_SIGNAL_COUNTS`] the estimate holds.
    pub signal_counts: i64,
}

/// ⌊√v⌋ for `v ≥ 0` (0 otherwise).
fn isqrt(v: i64) -> i64 {
    if v <= 0 {
        return 0;
    }
    let mut x = v;
    let mut y = (x + 1) / 2;
    while y < x {
        x = y;
        y = (x + v / x) / 2;
    }
    x
}

/// What the classifier knows in a scan, as the dead points' reading needs it.
pub(crate) struct View<'a> {
    pub size: BoardSize,
    pub coupling: &'a Coupling,
    pub cal: &'a BoardCalibration,
    pub health: &'a [Health],
    pub readings: &'a [u16],
    /// Every classified stone's share at each point (ppm of its black span, of its white span).
    pub black_ppm: &'a [i32; MAX_POINTS],
    pub white_ppm: &'a [i32; MAX_POINTS],
    /// This scan's cells (the dead points' from the last scan) and how many scans each point
    /// has kept its cell and its reading still.
    pub cells: &'a [Cell; MAX_POINTS],
    pub ages: &'a [u8; MAX_POINTS],
}

/// The dead points of a board and what is known of each (about 2 KiB).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DeadPoints {
    points: [DeadPoint; MAX_DEAD],
    len: usize,
}

impl DeadPoints {
    pub(crate) const fn new() -> DeadPoints {
        DeadPoints {
            points: [DeadPoint::new(0); MAX_DEAD],
            len: 0,
        }
    }

    /// The dead points' cells for this scan, written into `out`: from `view` and the
    /// `thresholds`' hysteresis (`out` holds every point's cell of this scan; the dead points'
    /// are their last ones).
    pub(crate) fn update(
        &mut self,
        view: &View<'_>,
        thresholds: &Thresholds,
        out: &mut [Cell; MAX_POINTS],
    ) {
        self.follow_health(view);
        for dead in self.points.iter_mut().take(self.len) {
            let d = usize::from(dead.point);
            let (fit, den) = fit(dead, view);
            // The fit smoothed two ways: quickly, to notice a change; slowly, to take it when
            // the signal is too weak to follow scan by scan.
            let fast = fit.map(|f| dead.fast.map_or(f, |v| (v + f) / 2));
            let weak = fit.map(|f| dead.weak.map_or(f, |w| w + (f - w) / 8));
            dead.fast = fast;
            dead.weak = weak;
            let strong = den >= MIN_SIGNAL_COUNTS * MIN_SIGNAL_COUNTS * 1_000_000;
            // Three spreads of the quick fit (the readings' noise over the signal): a fit that
            // cannot tell a change from noise does not stop the neighbours settling again.
            let signal = isqrt(den) / 1000;
            let tolerance = (5 * NOISE_COUNTS * 1000 / signal.max(1)).max(150);
            let agrees = match (dead.estimate, fast) {
                (Some(q), Some(v)) => (v - q).abs() <= tolerance,
                // no neighbour counts: nothing says it changed
                (Some(_), None) => true,
                (None, _) => false,
            };
            dead.steady = if agrees {
                dead.steady.saturating_add(1)
            } else {
                0
            };
            // Too little signal to fit, and what there is (at least half of it) has been
            // half a stone off for half a second: the point changed while its neighbours were
            // busy; take what they say.
            let off = match (dead.estimate, weak) {
                (Some(q), Some(w)) => (w - q).abs() >= 500,
                _ => false,
            };
            dead.disagree = if !strong && off && 2 * signal >= MIN_SIGNAL_COUNTS {
                dead.disagree.saturating_add(1)
            } else {
                0
            };
            if dead.disagree >= SNAP_SCANS {
                dead.estimate = weak;
                dead.disagree = 0;
            }
            if let (true, Some(f)) = (strong, fit) {
                // (the first fit, at power-up, is smoothed from "no stone" like the rest: a
                // board is turned on empty more often than not, and the first neighbours'
                // anchors are the least sure)
                let q = dead.estimate.unwrap_or(0);
                dead.estimate = Some(q + (f - q) / 8);
                dead.fits = dead.fits.saturating_add(1);
            }
            let prev = view.cells.get(d).copied().unwrap_or(Cell::Uncertain);
            if let Some(slot) = out.get_mut(d) {
                // uncertain until the smoothing has caught up with the first fits
                *slot = match dead.estimate {
                    Some(q) if dead.readable && dead.fits >= FIRST_FITS => {
                        cell(prev, q, thresholds)
                    }
                    _ => Cell::Uncertain,
                };
            }
        }
    }

    /// Each dead point being read, with its estimate (‰ of a stone: + black, − white; `None`
    /// while unknown).
    pub(crate) fn estimates(&self) -> impl Iterator<Item = DeadEstimate> + '_ {
        self.points.iter().take(self.len).map(|p| DeadEstimate {
            point: usize::from(p.point),
            estimate: p.estimate,
            anchored: p.anchors.iter().filter(|a| a.is_some()).count(),
            signal_counts: isqrt(p.signal) / 1000,
        })
    }

    /// Keeps one entry for each of the first [`MAX_DEAD`] dead points of `view.health`, with
    /// what is known of those that were dead before.
    fn follow_health(&mut self, view: &View<'_>) {
        let mut next = [DeadPoint::new(0); MAX_DEAD];
        let mut len = 0;
        let dead = view
            .health
            .iter()
            .enumerate()
            .take(view.size.points())
            .filter(|(_, h)| h.has(Fault::Dead));
        for (i, _) in dead {
            let Some(slot) = next.get_mut(len) else {
                break;
            };
            let point = u16::try_from(i).unwrap_or(0);
            *slot = self
                .points
                .iter()
                .take(self.len)
                .find(|p| p.point == point)
                .copied()
                .unwrap_or(DeadPoint::new(point));
            len += 1;
        }
        self.points = next;
        self.len = len;
    }
}

/// The least-squares fit of the anchored neighbours of `dead` (‰ of a stone; `None` with
/// none anchored) and its signal (the sum of their squared weights), anchoring and dropping
/// neighbours as they settle and change.
fn fit(dead: &mut DeadPoint, view: &View<'_>) -> (Option<i64>, i64) {
    let n = i32::from(view.size.get());
    let d = usize::from(dead.point);
    let (x, y) = ((d as i32) % n, (d as i32) / n);
    let d_cell = view.cells.get(d).copied().unwrap_or(Cell::Uncertain);
    // What the dead point holds, as a whole stone or none, while its reading is steady.
    let held: Option<i16> = match d_cell {
        _ if dead.estimate.is_none() || dead.steady < STABLE_SCANS => None,
        Cell::Empty => Some(0),
        Cell::Black => Some(1000),
        Cell::White => Some(-1000),
        Cell::Uncertain => None,
    };
    let (mut num, mut den) = (0i64, 0i64);
    let mut potential = 0i64;
    for (slot, &(dx, dy)) in dead.anchors.iter_mut().zip(OFFSETS.iter()) {
        let (nx, ny) = (x + dx, y + dy);
        let share = view.coupling.at(dx, dy);
        let weight = if (0..n).contains(&nx)
            && (0..n).contains(&ny)
            && share.abs() >= MIN_SHARE_PPM
            && !near_another_dead(view, (nx, ny), d)
        {
            neighbour_weight(view, (ny * n + nx) as usize, share)
        } else {
            None
        };
        potential += weight.map_or(0, |w| w * w);
        let Some(weight) = weight else {
            *slot = None;
            continue;
        };
        // A stone being put down or lifted on it or near it: it counts again, anchored anew,
        // once all has settled.
        if !settled(view, (nx, ny), d, share) {
            *slot = None;
            continue;
        }
        let i = (ny * n + nx) as usize;
        let own = view.cells.get(i).copied().unwrap_or(Cell::Uncertain);
        let residual = residual(view, i, d_cell, share);
        let mut anchor = match (*slot, held) {
            (Some(a), _) => a,
            // A new anchor takes what the dead point is known to hold: a whole stone or none
            // (not the estimate, whose error would pass from anchor to anchor over a game).
            (None, Some(h)) => Anchor::new(residual, h, own),
            // Nothing known yet (at power-up): an empty neighbour's residual is the dead
            // point's field.
            (None, None) if dead.estimate.is_none() && own == Cell::Empty => {
                Anchor::fixed(0, 0, own)
            }
            (None, None) => continue,
        };
        if anchor.scans == 0 {
            anchor.scans = 1; // new this scan
        } else if anchor.scans < ANCHOR_SCANS && held.is_some() {
            // a young anchor learns its residual while the dead point keeps still
            anchor.sum = anchor
                .sum
                .saturating_add(residual.clamp(-65_536, 65_536) as i32);
            anchor.scans += 1;
        }
        *slot = Some(anchor);
        // weight: counts a whole stone on the dead point moves this neighbour (× 1000)
        let change = residual - anchor.residual() + weight * i64::from(anchor.estimate) / 1_000_000;
        num += weight * change;
        den += weight * weight;
    }
    dead.signal = den;
    dead.readable = potential >= MIN_SIGNAL_COUNTS * MIN_SIGNAL_COUNTS * 1_000_000;
    ((den > 0).then(|| num * 1_000_000 / den), den)
}

/// What a whole stone on the dead point moves neighbour `i`'s reading, in thousandths of a
/// count: its share of the field times the neighbour's mean span (signed: a swapped sensor
/// moves the other way). `None` for a neighbour that cannot be used (dead, noisy, no span).
fn neighbour_weight(view: &View<'_>, i: usize, share: i32) -> Option<i64> {
    let health = view.health.get(i).copied().unwrap_or(Health::HEALTHY);
    if health.has(Fault::Dead) || health.has(Fault::Noisy) {
        return None;
    }
    let p = view.cal.point(i)?;
    let span = (i64::from(p.black_span()) - i64::from(p.white_span())) / 2;
    if span.abs() < i64::from(crate::health::DEAD_SPAN) {
        return None;
    }
    Some(i64::from(share) * span / 1000)
}

/// Whether the neighbour at `(x, y)` has kept its cell (other than uncertain) for
/// [`STABLE_SCANS`] scans, and so has every point near it whose stone's share there is half
/// the dead point's `share` or more: a stone put down or lifted there moves the neighbour by a
/// share known only to a fifth (the magnet's strength, the stone off its point), which would
/// pass for a tenth of a stone on the dead point.
fn settled(view: &View<'_>, (x, y): (i32, i32), d: usize, share: i32) -> bool {
    let n = i32::from(view.size.get());
    let steady = |m: usize| {
        view.cells.get(m).is_some_and(|&c| c != Cell::Uncertain)
            && view.ages.get(m).is_some_and(|&a| a >= STABLE_SCANS)
    };
    if !steady((y * n + x) as usize) {
        return false;
    }
    OFFSETS.iter().all(|&(dx, dy)| {
        let (mx, my) = (x + dx, y + dy);
        let m = (my * n + mx) as usize;
        !(0..n).contains(&mx)
            || !(0..n).contains(&my)
            || m == d
            || 2 * view.coupling.at(dx, dy).abs() < share.abs()
            || steady(m)
    })
}

/// Whether a dead point other than `d` lies within two lines of `(x, y)`: its stone's field
/// there is not known until its own estimate settles, and would be read as `d`'s.
fn near_another_dead(view: &View<'_>, (x, y): (i32, i32), d: usize) -> bool {
    let n = i32::from(view.size.get());
    OFFSETS.iter().any(|&(dx, dy)| {
        let (mx, my) = (x + dx, y + dy);
        let m = (my * n + mx) as usize;
        (0..n).contains(&mx)
            && (0..n).contains(&my)
            && m != d
            && view.health.get(m).is_some_and(|h| h.has(Fault::Dead))
    })
}

/// Neighbour `i`'s reading less its empty reading and every classified stone's share but the
/// dead point's (counts): its own stone, if it has one, and the dead point's field.
fn residual(view: &View<'_>, i: usize, d_cell: Cell, share: i32) -> i64 {
    let Some(p) = view.cal.point(i) else {
        return 0;
    };
    let (bs, ws) = (i64::from(p.black_span()), i64::from(p.white_span()));
    let black = i64::from(view.black_ppm.get(i).copied().unwrap_or(0));
    let white = i64::from(view.white_ppm.get(i).copied().unwrap_or(0));
    let mut others = (bs * black + ws * white) / 1_000_000;
    // the dead point's own share, as classified, back in
    match d_cell {
        Cell::Black => others -= bs * i64::from(share) / 1_000_000,
        Cell::White => others -= ws * i64::from(share) / 1_000_000,
        _ => {}
    }
    let reading = i64::from(view.readings.get(i).copied().unwrap_or(0));
    reading - i64::from(p.empty) - others
}

/// The cell after `prev` for an estimate of `q` ‰ (+ black, − white). A dead point has no
/// stone half down to wait for (its estimate is smoothed, and its neighbours' shares of a
/// stone off its point or of an uneven magnet leave a fifth of a stone either way), so it
/// takes the nearest of the three with a margin against flicker: a colour from
/// `enter_permille` (55 %) until below 45 %, empty within 45 % until beyond 50 %.
fn cell(prev: Cell, q: i64, t: &Thresholds) -> Cell {
    let enter = i64::from(t.enter_permille);
    let (stay, empty_enter, empty_leave) = (enter - 100, enter - 100, enter - 50);
    match prev {
        Cell::Black if q >= stay => Cell::Black,
        Cell::White if -q >= stay => Cell::White,
        Cell::Empty if q.abs() <= empty_leave => Cell::Empty,
        _ if q >= enter => Cell::Black,
        _ if -q >= enter => Cell::White,
        _ if q.abs() <= empty_enter => Cell::Empty,
        _ => Cell::Uncertain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cell_takes_the_nearest_with_a_margin() {
        let t = Thresholds::default();
        assert_eq!(cell(Cell::Uncertain, 560, &t), Cell::Black);
        assert_eq!(cell(Cell::Uncertain, -560, &t), Cell::White);
        assert_eq!(cell(Cell::Uncertain, 440, &t), Cell::Empty);
        assert_eq!(cell(Cell::Uncertain, 500, &t), Cell::Uncertain);
        // a colour holds down to 45 %, empty up to 50 %
        assert_eq!(cell(Cell::Black, 460, &t), Cell::Black);
        assert_eq!(cell(Cell::Black, 440, &t), Cell::Empty);
        assert_eq!(cell(Cell::Empty, 500, &t), Cell::Empty);
        assert_eq!(cell(Cell::Empty, -520, &t), Cell::Uncertain);
        assert_eq!(cell(Cell::White, -450, &t), Cell::White);
    }

    #[test]
    fn square_roots_and_anchors() {
        for v in [0i64, 1, 2, 3, 4, 15, 16, 17, 1 << 40, i64::MAX / 2] {
            let r = isqrt(v);
            assert!(
                r * r <= v && (r + 1).checked_mul(r + 1).is_none_or(|s| s > v),
                "{v}"
            );
        }
        assert_eq!(isqrt(-5), 0);
        let mut a = Anchor::new(30, 1000, Cell::Black);
        a.scans = 1;
        a.sum += 50;
        a.scans += 1;
        assert_eq!(a.residual(), 40);
        assert_eq!(Anchor::fixed(0, 0, Cell::Empty).residual(), 0);
        assert!(core::mem::size_of::<Option<Anchor>>() <= 8);
    }
}
