//! The scan stabiliser: noisy scans in, settled boards out.

use super::grid::StoneGrid;
use crate::rules::{Color, Point};
use smartgoban_protocol::Cell;

/// Tuning of the [`Stabiliser`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StabiliserConfig {
    /// How long, in ms of board time, a point must read the same value before it counts as
    /// settled. Default 150 ms: longer than a bouncing stone or a single misread (one scan is
    /// 20 ms at 50 Hz), short enough that a move shows up at once.
    pub settle_ms: u64,
}

impl Default for StabiliserConfig {
    fn default() -> Self {
        StabiliserConfig { settle_ms: 150 }
    }
}

/// A board that has just settled, reported once per quiet period.
#[derive(Clone, Copy, Debug)]
pub struct Settled<'a> {
    /// The settled stones.
    pub grid: &'a StoneGrid,
    /// `false` when the board settled back to exactly the previous settled board (a hand passed
    /// over it, a stone bounced, a point misread): nothing happened on the board.
    pub changed: bool,
    /// Board time, in ms, at which the board was found settled.
    pub at_ms: u64,
}

/// Counters for diagnostics (exposed on the API and in metrics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StabiliserStats {
    /// Scans taken in.
    pub scans: u64,
    /// Scans ignored because they did not have one cell per point.
    pub rejected: u64,
    /// Times the board settled to a different board.
    pub changes: u64,
    /// Times the board settled back to the same board after a disturbance (hand, bounce,
    /// misread): transients that produced no event.
    pub transients: u64,
}

/// Turns a stream of scans into settled boards.
///
/// A point is settled once it has read the same [`Cell`] for [`StabiliserConfig::settle_ms`];
/// the board is settled when every point is settled and none reads [`Cell::Uncertain`]. Each
/// time the board goes from unsettled to settled, [`Stabiliser::push`] returns a [`Settled`].
/// Times are board milliseconds and must not go backwards (a smaller time is taken as the
/// previous one).
#[derive(Clone, Debug)]
pub struct Stabiliser {
    size: u8,
    config: StabiliserConfig,
    reading: Vec<Cell>,
    uncertain: usize,
    last_change_ms: u64,
    now_ms: u64,
    started: bool,
    settled: bool,
    stable: Option<StoneGrid>,
    stats: StabiliserStats,
}

impl Stabiliser {
    /// A stabiliser for a `size`×`size` board that has seen no scan yet.
    pub fn new(size: u8, config: StabiliserConfig) -> Self {
        let n = usize::from(size) * usize::from(size);
        Stabiliser {
            size,
            config,
            reading: vec![Cell::Uncertain; n],
            uncertain: n,
            last_change_ms: 0,
            now_ms: 0,
            started: false,
            settled: false,
            stable: None,
            stats: StabiliserStats::default(),
        }
    }

    /// Board size in points per side.
    pub fn size(&self) -> u8 {
        self.size
    }

    /// Forgets the readings (after a reconnect or a board reset) but keeps the last settled
    /// board, so that a board that comes back unchanged produces no change.
    pub fn restart(&mut self) {
        let n = self.reading.len();
        self.reading.fill(Cell::Uncertain);
        self.uncertain = n;
        self.started = false;
        self.settled = false;
    }

    /// Takes one scan: `cells[i]` is the reading of the point with [`Point::index`] `i`, taken
    /// at board time `t_ms`. Returns the board when it has just settled.
    ///
    /// A scan whose length is not size² is ignored (counted in [`StabiliserStats::rejected`]).
    pub fn push(&mut self, cells: &[Cell], t_ms: u64) -> Option<Settled<'_>> {
        if cells.len() != self.reading.len() {
            self.stats.rejected += 1;
            return None;
        }
        self.stats.scans += 1;
        let t_ms = t_ms.max(self.now_ms);
        self.now_ms = t_ms;
        if !self.started {
            self.started = true;
            self.last_change_ms = t_ms;
        }
        let mut changed = false;
        for (old, &new) in self.reading.iter_mut().zip(cells) {
            if *old != new {
                if *old == Cell::Uncertain {
                    self.uncertain -= 1;
                }
                if new == Cell::Uncertain {
                    self.uncertain += 1;
                }
                *old = new;
                changed = true;
            }
        }
        if changed {
            self.last_change_ms = t_ms;
            self.settled = false;
        }
        self.check_settled(t_ms)
    }

    /// Re-evaluates settling at board time `t_ms` without a new scan.
    fn check_settled(&mut self, t_ms: u64) -> Option<Settled<'_>> {
        if self.settled
            || self.uncertain > 0
            || t_ms.saturating_sub(self.last_change_ms) < self.config.settle_ms
        {
            return None;
        }
        self.settled = true;
        let grid = self.grid_from_readings();
        let changed = self.stable.as_ref() != Some(&grid);
        if changed {
            self.stats.changes += 1;
            self.stable = Some(grid);
        } else {
            self.stats.transients += 1;
        }
        self.stable.as_ref().map(|grid| Settled {
            grid,
            changed,
            at_ms: t_ms,
        })
    }

    fn grid_from_readings(&self) -> StoneGrid {
        let mut grid = StoneGrid::empty(self.size);
        for (i, cell) in self.reading.iter().enumerate() {
            let stone = match cell {
                Cell::Black => Some(Color::Black),
                Cell::White => Some(Color::White),
                Cell::Empty | Cell::Uncertain => None,
            };
            if stone.is_some() {
                grid.set(Point::from_index(i, self.size), stone);
            }
        }
        grid
    }

    /// Whether the board is settled right now (no change for `settle_ms`, nothing uncertain).
    pub fn is_settled(&self) -> bool {
        self.settled
    }

    /// The last settled board, if the board has settled at least once.
    pub fn stable(&self) -> Option<&StoneGrid> {
        self.stable.as_ref()
    }

    /// The current raw reading of every point (dense index order).
    pub fn readings(&self) -> &[Cell] {
        &self.reading
    }

    /// Diagnostic counters.
    pub fn stats(&self) -> StabiliserStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const E: Cell = Cell::Empty;

    fn scan(size: u8, set: &[(usize, Cell)]) -> Vec<Cell> {
        let mut v = vec![E; usize::from(size) * usize::from(size)];
        for &(i, c) in set {
            v[i] = c;
        }
        v
    }

    /// Feeds `cells` every 20 ms from `t0` for `n` scans; returns the settle reports
    /// (time, changed, black count).
    fn feed(s: &mut Stabiliser, cells: &[Cell], t0: u64, n: u64) -> Vec<(u64, bool, usize)> {
        (0..n)
            .filter_map(|k| {
                s.push(cells, t0 + 20 * k)
                    .map(|st| (st.at_ms, st.changed, st.grid.count(Color::Black)))
            })
            .collect()
    }

    #[test]
    fn first_board_settles_after_settle_time() {
        let mut s = Stabiliser::new(9, StabiliserConfig::default());
        let empty = scan(9, &[]);
        // scans at 0, 20, ..., 140 are not enough; 160 is the first ≥ 150 ms after 0.
        let got = feed(&mut s, &empty, 0, 20);
        assert_eq!(got, vec![(160, true, 0)]);
        assert!(s.is_settled());
    }

    #[test]
    fn single_scan_misread_is_a_transient_not_a_change() {
        let mut s = Stabiliser::new(9, StabiliserConfig::default());
        let empty = scan(9, &[]);
        let glitch = scan(9, &[(40, Cell::Black)]);
        feed(&mut s, &empty, 0, 10);
        assert!(s.push(&glitch, 200).is_none());
        let got = feed(&mut s, &empty, 220, 10);
        // back to the same board: reported as settled but unchanged
        assert_eq!(got, vec![(380, false, 0)]);
        assert_eq!(s.stats().transients, 1);
        assert_eq!(s.stats().changes, 1);
    }

    #[test]
    fn uncertain_points_hold_the_board_unsettled() {
        let mut s = Stabiliser::new(9, StabiliserConfig::default());
        let covered = scan(9, &[(40, Cell::Uncertain), (41, Cell::Uncertain)]);
        assert!(feed(&mut s, &covered, 0, 100).is_empty());
        let placed = scan(9, &[(40, Cell::Black)]);
        let got = feed(&mut s, &placed, 2000, 10);
        assert_eq!(got, vec![(2160, true, 1)]);
    }

    #[test]
    fn bouncing_stone_settles_once_at_its_final_reading() {
        let mut s = Stabiliser::new(9, StabiliserConfig::default());
        let empty = scan(9, &[]);
        let placed = scan(9, &[(10, Cell::Black)]);
        feed(&mut s, &empty, 0, 10);
        // bounce: black, empty, black, uncertain, black every 20 ms
        let mut t = 200;
        for c in [Cell::Black, E, Cell::Black, Cell::Uncertain] {
            assert!(s.push(&scan(9, &[(10, c)]), t).is_none());
            t += 20;
        }
        let got = feed(&mut s, &placed, t, 10);
        assert_eq!(got, vec![(t + 160, true, 1)]);
    }

    #[test]
    fn wrong_length_scan_is_rejected_without_panic() {
        let mut s = Stabiliser::new(9, StabiliserConfig::default());
        assert!(s.push(&[E; 5], 0).is_none());
        assert_eq!(s.stats().rejected, 1);
        assert_eq!(s.stats().scans, 0);
    }

    #[test]
    fn time_going_backwards_does_not_settle_early() {
        let mut s = Stabiliser::new(9, StabiliserConfig::default());
        let empty = scan(9, &[]);
        assert!(s.push(&empty, 1000).is_none());
        assert!(s.push(&empty, 10).is_none());
        assert!(s.push(&empty, 1100).is_none());
        assert!(s.push(&empty, 1150).is_some());
    }

    #[test]
    fn restart_keeps_the_stable_board() {
        let mut s = Stabiliser::new(9, StabiliserConfig::default());
        let placed = scan(9, &[(3, Cell::White)]);
        feed(&mut s, &placed, 0, 10);
        s.restart();
        let got = feed(&mut s, &placed, 5000, 10);
        assert_eq!(got, vec![(5160, false, 0)]);
    }
}
