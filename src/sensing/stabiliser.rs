//! The scan stabiliser: noisy scans in, settled boards out.

use super::grid::StoneGrid;
use crate::rules::{Color, Point};
use smartgoban_protocol::Cell;

/// Tuning of the [`Stabiliser`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StabiliserConfig {
    /// How long, in ms of board time, a point must read the same value before it counts as
    /// settled. Default 150 ms: longer than a bouncing stone or a single misread (one scan is
    /// 20 ms at 50 Hz), short enough that a move shows up at once.
    pub settle_ms: u64,
    /// A point that has read uncertain for this long, in ms of board time, is taken as stuck (a
    /// dead sensor, a hand or an object resting on the board): it keeps its last settled value
    /// and stops holding the rest of the board unsettled. Default 2,000 ms, far longer than a
    /// hand placing or lifting a stone.
    pub stuck_ms: u64,
}

impl Default for StabiliserConfig {
    fn default() -> Self {
        StabiliserConfig {
            settle_ms: 150,
            stuck_ms: 2_000,
        }
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
    /// Board time, in ms, of the earliest last change among the points that differ from the
    /// previous settled board: roughly when the new stones went down (`at_ms` if none).
    pub first_change_ms: u64,
}

/// Counters for diagnostics (exposed on the API and in metrics).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
/// the board is settled when every point is settled and none reads [`Cell::Uncertain`] — except
/// points uncertain for longer than [`StabiliserConfig::stuck_ms`], which keep their last
/// settled value. Each time the board goes from unsettled to settled, [`Stabiliser::push`]
/// returns a [`Settled`].
/// Times are board milliseconds and must not go backwards (a smaller time is taken as the
/// previous one).
#[derive(Clone, Debug)]
pub struct Stabiliser {
    size: u8,
    config: StabiliserConfig,
    reading: Vec<Cell>,
    /// Board time each point's reading last changed, ms.
    changed_at: Vec<u64>,
    /// Since when each point has read uncertain, if it does.
    uncertain_since: Vec<Option<u64>>,
    /// Points whose reading changed since the board last settled.
    disturbed: Vec<bool>,
    /// Points uncertain for less than `stuck_ms`: they hold the board unsettled.
    blocking: usize,
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
            changed_at: vec![0; n],
            uncertain_since: vec![None; n],
            disturbed: vec![false; n],
            blocking: n,
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
        self.uncertain_since.fill(None);
        self.disturbed.fill(false);
        self.blocking = n;
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
        let mut blocking = 0;
        let stuck_ms = self.config.stuck_ms;
        for ((((old, &new), since), changed_at), disturbed) in self
            .reading
            .iter_mut()
            .zip(cells)
            .zip(&mut self.uncertain_since)
            .zip(&mut self.changed_at)
            .zip(&mut self.disturbed)
        {
            if *old != new {
                // A point disturbed since the board last settled (a hand over it, readings
                // flickering) may have changed at any moment of it: the first change is taken,
                // so a stone put down under a hand is never later than a clock press made
                // before the hand lifted (R17.4). A point out of a long uncertain spell dates
                // from its start.
                let from = match (*old, *since) {
                    (Cell::Uncertain, Some(from)) => from,
                    _ => t_ms,
                };
                *changed_at = if *disturbed {
                    (*changed_at).min(from)
                } else {
                    from
                };
                *disturbed = true;
                *old = new;
                changed = true;
                *since = (new == Cell::Uncertain).then_some(t_ms);
            } else if new == Cell::Uncertain && since.is_none() {
                // uncertain from the first scan on
                *since = Some(t_ms);
            }
            if let Some(since) = *since {
                if t_ms.saturating_sub(since) < stuck_ms {
                    blocking += 1;
                }
            }
        }
        self.blocking = blocking;
        if changed {
            self.last_change_ms = t_ms;
            self.settled = false;
        }
        self.check_settled(t_ms)
    }

    /// Re-evaluates settling at board time `t_ms` without a new scan.
    fn check_settled(&mut self, t_ms: u64) -> Option<Settled<'_>> {
        if self.settled
            || self.blocking > 0
            || t_ms.saturating_sub(self.last_change_ms) < self.config.settle_ms
        {
            return None;
        }
        self.settled = true;
        self.disturbed.fill(false);
        let grid = self.grid_from_readings();
        let changed = self.stable.as_ref() != Some(&grid);
        let first_change_ms = match &self.stable {
            Some(old) => (0..self.reading.len())
                .filter(|&i| old.at_index(i) != grid.at_index(i))
                .map(|i| self.changed_at[i])
                .min()
                .unwrap_or(t_ms),
            None => t_ms,
        };
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
            first_change_ms,
        })
    }

    /// The readings as stones; a stuck uncertain point keeps its last settled value.
    fn grid_from_readings(&self) -> StoneGrid {
        let mut grid = StoneGrid::empty(self.size);
        for (i, cell) in self.reading.iter().enumerate() {
            let stone = match cell {
                Cell::Black => Some(Color::Black),
                Cell::White => Some(Color::White),
                Cell::Empty => None,
                Cell::Uncertain => self.stable.as_ref().and_then(|g| g.at_index(i)),
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

    /// Board time, ms, at which each point's reading last changed (dense index order): when a
    /// stone appeared, for telling a clock press before the stone (R17.4). For a point that
    /// read uncertain before its new value, the moment the uncertainty began.
    pub fn changed_at(&self) -> &[u64] {
        &self.changed_at
    }

    /// The current raw reading of every point (dense index order).
    pub fn readings(&self) -> &[Cell] {
        &self.reading
    }

    /// Points that have read uncertain for longer than `stuck_ms` (dead sensors, objects
    /// resting on the board): they keep their last settled value.
    pub fn stuck_points(&self) -> Vec<Point> {
        let now = self.now_ms;
        self.uncertain_since
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some_and(|s| now.saturating_sub(s) >= self.config.stuck_ms))
            .map(|(i, _)| Point::from_index(i, self.size))
            .collect()
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
        // a hand hovering for 1.8 s: nothing settles
        assert!(feed(&mut s, &covered, 0, 90).is_empty());
        let placed = scan(9, &[(40, Cell::Black)]);
        let got = feed(&mut s, &placed, 1800, 10);
        assert_eq!(got, vec![(1960, true, 1)]);
    }

    #[test]
    fn a_dead_sensor_keeps_its_value_and_does_not_block_the_board() {
        let mut s = Stabiliser::new(9, StabiliserConfig::default());
        let stone_at_3 = scan(9, &[(3, Cell::Black)]);
        feed(&mut s, &stone_at_3, 0, 10);
        // point 3 goes dead (uncertain) at 200 ms; a stone arrives at 10 at 1000 ms
        let dead = scan(9, &[(3, Cell::Uncertain)]);
        let dead_and_new = scan(9, &[(3, Cell::Uncertain), (10, Cell::White)]);
        assert!(feed(&mut s, &dead, 200, 40).is_empty());
        let got = feed(&mut s, &dead_and_new, 1000, 100);
        // settles once point 3 has been uncertain for 2 s (at 2200 ms), keeping its stone
        assert_eq!(got, vec![(2200, true, 1)]);
        assert_eq!(s.stable().unwrap().at_index(10), Some(Color::White));
        assert_eq!(s.stable().unwrap().at_index(3), Some(Color::Black));
        assert_eq!(s.stuck_points(), vec![Point::from_index(3, 9)]);
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
