//! The depth-first search over alternating move orders that every explanation of a board
//! runs ([`Search`]), and the check of a board against a position with captured stones still
//! lying on it ([`tally`]).

use super::lines::colours_can_alternate;
use super::*;

/// Depth-first search over alternating move orders.
pub(super) struct Search<'a> {
    game: Game,
    pending: &'a [Pending],
    grid: &'a StoneGrid,
    /// The stones' times and how strictly they bind the order.
    order: Option<(&'a [PointTimes], Binding)>,
    pub(super) found: Vec<(Vec<Step>, CaptureTally)>,
    /// Stones tried so far.
    pub(super) tries: usize,
    /// Stones to try at most.
    pub(super) budget: usize,
    /// The search stopped at [`SEARCH_BUDGET`] tries.
    pub(super) exhausted: bool,
    /// Lines to find at most (enough to call a board ambiguous; one for [`some_line`]).
    pub(super) enough: usize,
}

/// Lines a search finds at most: enough to call a board ambiguous. A search that found this
/// many may have stopped before a line it was asked about ([`explain_lines`]).
pub const ENOUGH_LINES: usize = 9;

impl<'a> Search<'a> {
    pub(super) fn new(
        game: &Game,
        pending: &'a [Pending],
        grid: &'a StoneGrid,
        order: Option<(&'a [PointTimes], Binding)>,
    ) -> Self {
        Search {
            game: game.clone(),
            pending,
            grid,
            order,
            found: Vec::new(),
            tries: 0,
            budget: SEARCH_BUDGET,
            exhausted: false,
            enough: ENOUGH_LINES,
        }
    }

    /// Tries every order of `remaining` stones (and at most `hidden` throw-ins on
    /// `hidden_spots`), alternating from the side to move; records each that ends on the board.
    pub(super) fn run(
        &mut self,
        remaining: &[(Point, Color)],
        hidden_spots: &[Point],
        hidden: usize,
    ) {
        let mut steps = Vec::new();
        let mut fresh = Vec::new();
        let mut left = remaining.to_vec();
        self.dfs(&mut left, hidden_spots, hidden, &mut steps, &mut fresh);
    }

    fn times(&self, p: Point) -> Option<(PointTimes, Binding)> {
        let (times, binding) = self.order?;
        times.get(p.index(self.grid.size())).map(|&t| (t, binding))
    }

    /// Whether `point` may be played now, before every stone in `left`: none of them is known
    /// to have gone down before it.
    fn may_come_next(&self, point: Point, left: &[(Point, Color)]) -> bool {
        let Some((mine, binding)) = self.times(point) else {
            return true;
        };
        let color = self.grid.get(point);
        !left.iter().any(|&(other, other_color)| {
            // Between the two colours only certainty binds: alternation orders them once the
            // stones of each colour are in order, and a stone covered again by the next hands
            // is seen after the opponent's reply to it.
            let binding = if Some(other_color) == color {
                binding
            } else {
                Binding::Certain
            };
            other != point
                && self
                    .times(other)
                    .is_some_and(|(t, _)| before(t, mine, binding))
        })
    }

    /// Whether a stone at `point` capturing `captured` fits the times: a captured stone already
    /// gone from the board must not have been seen gone before the capturing point was
    /// touched (module docs).
    /// `steps`: the line so far — a stone of it nobody saw (hidden) was never seen at all, so
    /// the times of its point say nothing of when it went.
    fn captures_fit(&self, point: Point, captured: &[Point], steps: &[Step]) -> bool {
        let Some((mine, _)) = self.times(point) else {
            return true;
        };
        captured.iter().all(|&c| {
            self.grid.get(c).is_some()
                || steps.iter().any(|s| s.hidden && s.point == c)
                || self
                    .times(c)
                    .is_none_or(|(gone, _)| gone.seen_ms >= mine.left_ms)
        })
    }

    fn dfs(
        &mut self,
        left: &mut Vec<(Point, Color)>,
        hidden_spots: &[Point],
        hidden: usize,
        steps: &mut Vec<Step>,
        fresh: &mut Vec<Pending>,
    ) {
        if self.found.len() >= self.enough || self.exhausted {
            return; // plenty to call it ambiguous
        }
        if left.is_empty() {
            if let Some(t) = tally(self.game.board(), self.pending, fresh, self.grid) {
                self.found.push((steps.clone(), t));
            }
            return;
        }
        let mover = self.game.to_move();
        if !colours_can_alternate(left, mover, hidden) {
            return; // one side has more stones left than alternation can place
        }
        for i in 0..left.len() {
            let (point, color) = left[i];
            if color != mover || !self.may_come_next(point, left) {
                continue;
            }
            // removed and put back in place: the stones keep their likely order
            left.remove(i);
            self.try_step(
                point,
                mover,
                false,
                left,
                hidden_spots,
                hidden,
                steps,
                fresh,
            );
            left.insert(i, (point, color));
        }
        if hidden > 0 {
            for &h in hidden_spots {
                if self.game.board().get(h).is_none() {
                    self.try_step(h, mover, true, left, hidden_spots, hidden - 1, steps, fresh);
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn try_step(
        &mut self,
        point: Point,
        color: Color,
        is_hidden: bool,
        left: &mut Vec<(Point, Color)>,
        hidden_spots: &[Point],
        hidden: usize,
        steps: &mut Vec<Step>,
        fresh: &mut Vec<Pending>,
    ) {
        self.tries += 1;
        if self.tries > self.budget {
            self.exhausted = true;
            return;
        }
        let Ok(outcome) = self.game.play(color, Some(point)) else {
            return;
        };
        if !is_hidden && !self.captures_fit(point, &outcome.captured, steps) {
            self.game.undo();
            return;
        }
        let fresh_len = fresh.len();
        fresh.extend(outcome.captured.iter().map(|&p| (p, color.opposite())));
        steps.push(Step {
            color,
            point,
            captured: outcome.captured,
            hidden: is_hidden,
        });
        self.dfs(left, hidden_spots, hidden, steps, fresh);
        steps.pop();
        fresh.truncate(fresh_len);
        self.game.undo();
    }
}

/// Checks that `grid` shows exactly `after`, allowing `pending` and `fresh` captured stones
/// to still lie on their (empty in `after`) points. Returns which are still there and which
/// old pending stones were lifted; `None` if the board differs anywhere else.
pub(super) fn tally(
    after: &Board,
    pending: &[Pending],
    fresh: &[Pending],
    grid: &StoneGrid,
) -> Option<CaptureTally> {
    let mut still = Vec::new();
    for (point, sensed) in grid.iter() {
        let expected = after.get(point);
        if expected == sensed {
            continue;
        }
        match (expected, sensed) {
            (None, Some(color))
                if pending.contains(&(point, color)) || fresh.contains(&(point, color)) =>
            {
                still.push((point, color));
            }
            _ => return None,
        }
    }
    let lifted = pending
        .iter()
        .filter(|&&(p, c)| grid.get(p) != Some(c))
        .map(|&(p, _)| p)
        .collect();
    Some(CaptureTally {
        still_pending: still,
        lifted,
    })
}
