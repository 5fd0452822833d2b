//! Move inference: which acts explain a settled board (DESIGN.md `referee`).
//!
//! A settled board is matched against the rules' successors of the record's position, never
//! against raw scan differences. The candidates are the new stones on the board; the rules core
//! plays them in every alternating order from the side to move and the result must equal the
//! board exactly — with the one allowance that captured stones may still lie on the board until
//! their captor lifts them (R18.2).
//!
//! **Order from the scans.** Each new stone comes with the interval in which it went down
//! ([`PointTimes`]: from `left_ms`, the first scan its point stopped reading empty — a hand
//! arriving — to `seen_ms`, the first clear scan of the stone). A stone is known to have gone
//! down before another only when it was seen before anything touched the other's point
//! (`a.seen_ms < b.left_ms`, [`PointTimes::certainly_before`]): that holds by construction,
//! whatever the hands do. Stones seen a few scans apart under hands are not told apart: the
//! scans say which was *uncovered* first, not which was *placed* first (a hand lingering over
//! the first stone hides it past the second) — they rank the orders instead
//! ([`super::provisional::rank`]). A capture's stones vanish after the capturing stone: an
//! order in which a captured stone was seen gone before its captor's point was touched is no
//! explanation. This is evidence, not a guess: when the evidence leaves several legal orders,
//! they are all given to the referee (who records the likeliest provisionally).
//!
//! * one ordering of alternating legal moves explains the board → those moves (a quick reply
//!   before the board settled is two moves);
//! * several orderings, or a stone of the side not to move that a hidden stone (a throw-in
//!   placed and captured between two settled boards) could also explain → [`Verdict::Ambiguous`],
//!   for the referee: never a silent guess;
//! * one stone of the side not to move and nothing else could explain it → [`Verdict::OutOfTurn`]
//!   (R17.2);
//! * one stone the rules forbid there → [`Verdict::Illegal`] (R18.3/R20.1 ko, G5/R19);
//! * anything else → [`Verdict::Unexplained`] with the exact difference.

use crate::rules::{Board, Color, Game, Illegal, Point};
use crate::sensing::{PointTimes, StoneGrid};

mod lines;
mod search;

pub use lines::{some_line, MAX_HIDDEN_UNSEEN};
pub use search::ENOUGH_LINES;
use search::{tally, Search};

/// A captured stone that is still physically on the board, with its colour.
pub type Pending = (Point, Color);

/// Most new stones one settled board may explain without times that order them (a quick
/// exchange of two moves each).
pub const MAX_NEW_STONES: usize = 4;

/// Most new stones one settled board may explain when their times order them (after the
/// board's history was replayed, or quick play): above [`MAX_NEW_STONES`] the times must leave
/// exactly one legal order, found within [`SEARCH_BUDGET`] tries.
pub const MAX_TIMED_NEW_STONES: usize = 12;

/// Stones tried, at most, in one search over move orders.
pub const SEARCH_BUDGET: usize = 20_000;

/// Stones tried, at most, in one search of [`explain_lines`] (looking back over the record's
/// last moves before a violation: rare, and worth a longer look).
pub const LINES_BUDGET: usize = 200_000;

pub use crate::sensing::TELL_APART_MS;

/// How strictly the stones' times bind the order of the moves (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Binding {
    /// Only pairs certainly in order keep it.
    Certain,
}

/// The bindings tried in turn when the stones have times: only certainty binds (a stone seen
/// before anything touched another's point). Scans that tell two stones apart otherwise — one
/// seen a few scans before the other under hands — say which was *uncovered* first, not which
/// was *placed* first (a hand lingering over the first stone hides it past the second's): they
/// rank the orders instead ([`super::provisional::rank`]).
const BINDINGS: &[Option<Binding>] = &[Some(Binding::Certain)];

/// Whether the stone with times `a` is known to have gone down before the one with `b`.
fn before(a: PointTimes, b: PointTimes, binding: Binding) -> bool {
    match binding {
        Binding::Certain => a.certainly_before(&b),
    }
}

/// The exact difference between the record's position and the board: what to do to the
/// board to make it match (DESIGN.md `desync`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BoardDiff {
    /// Points where a stone of this colour belongs but is missing (or of the other colour).
    pub restore: Vec<(Point, Color)>,
    /// Points where a stone lies that must be lifted.
    pub remove: Vec<Point>,
}

impl BoardDiff {
    /// What to change on `grid` to make it show `board`.
    pub fn between(board: &Board, grid: &StoneGrid) -> BoardDiff {
        let mut diff = BoardDiff::default();
        for (point, sensed) in grid.iter() {
            let recorded = board.get(point);
            match (recorded, sensed) {
                (a, b) if a == b => {}
                (Some(color), _) => diff.restore.push((point, color)),
                (None, Some(_)) => diff.remove.push(point),
                (None, None) => {}
            }
        }
        diff
    }

    /// No difference.
    pub fn is_empty(&self) -> bool {
        self.restore.is_empty() && self.remove.is_empty()
    }

    /// Number of points to fix.
    pub fn len(&self) -> usize {
        self.restore.len() + self.remove.len()
    }
}

/// Which captured stones are still on the board and which were lifted, after a settled board
/// was matched.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CaptureTally {
    /// Captured stones still lying on the board (old and new).
    pub still_pending: Vec<Pending>,
    /// Previously pending stones that are now gone.
    pub lifted: Vec<Point>,
}

/// One move of an explanation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Step {
    /// Mover.
    pub color: Color,
    /// Where.
    pub point: Point,
    /// Opponent stones this move captures (G4).
    pub captured: Vec<Point>,
    /// A stone never seen on a settled board: placed and captured again in between (a
    /// throw-in).
    pub hidden: bool,
}

/// One way the board could have come about: moves in order.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Candidate {
    /// The moves, first first.
    pub steps: Vec<Step>,
    /// `steps[0]` was played by the side not to move (R17.2).
    pub out_of_turn: bool,
    /// Captured stones still lying on the board after these moves.
    #[serde(default)]
    pub still_pending: Vec<Pending>,
}

/// What explains a settled board.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Verdict {
    /// The board shows the record's position (captured stones may still lie on it).
    Unchanged(CaptureTally),
    /// Exactly one ordering of alternating legal moves from the side to move explains the
    /// board.
    Moves {
        /// The moves, in order.
        steps: Vec<Step>,
        /// Capture bookkeeping after them.
        tally: CaptureTally,
    },
    /// One stone of the side not to move, and nothing else explains it (R17.2).
    OutOfTurn {
        /// The stone.
        step: Step,
        /// Capture bookkeeping after it.
        tally: CaptureTally,
    },
    /// Several explanations: for the referee to choose.
    Ambiguous(Vec<Candidate>),
    /// One stone explains the board, but the rules forbid it there (R18.3/R20.1 ko, G5/R19
    /// forbidden point).
    Illegal {
        /// Offender.
        color: Color,
        /// Where the stone was put.
        point: Point,
        /// Why it is illegal.
        illegal: Illegal,
    },
    /// Nothing explains the board: the exact difference to the record.
    Unexplained(BoardDiff),
}

/// Explains `grid` from the record position in `game`, with `pending` captured stones that may
/// still lie on the board, without times (every order of the new stones is possible).
pub fn explain(game: &Game, pending: &[Pending], grid: &StoneGrid) -> Verdict {
    explain_timed(game, pending, grid, None, &[], &[])
}

/// Explains `grid` from the record position in `game`, with `pending` captured stones that may
/// still lie on the board; `times` (per point, dense index order) orders the new stones where
/// they were told apart (module docs); `touched` (per point, empty if unknown) is the last
/// board time, ms, each point was disturbed
/// ([`crate::sensing::Stabiliser::touched`]): a captured stone still on a point disturbed since
/// may be a new stone put there.
///
/// `relaid`: stones of the record's position that a board showed lifted and that lie on their
/// points again ([`relaid`]): each is tried first as a new stone there, its old one captured
/// by a move of the line (a ko retaken, a point filled again after its capture, the capture
/// seen before the stone that made it); when that explains nothing, the board is explained
/// without them.
pub fn explain_timed(
    game: &Game,
    pending: &[Pending],
    grid: &StoneGrid,
    times: Option<&[PointTimes]>,
    touched: &[u64],
    relaid: &[Pending],
) -> Verdict {
    if !relaid.is_empty() {
        let verdict = explain_with(game, pending, grid, times, touched, relaid, &[]);
        if matches!(verdict, Verdict::Moves { .. } | Verdict::Ambiguous(_)) {
            return verdict;
        }
        let spots = recapture_spots(game.board(), grid, times, touched, relaid);
        if !spots.is_empty() {
            let verdict = explain_with(game, pending, grid, times, touched, relaid, &spots);
            if matches!(verdict, Verdict::Moves { .. } | Verdict::Ambiguous(_)) {
                return verdict;
            }
        }
    }
    explain_with(game, pending, grid, times, touched, &[], &[])
}

/// Where the old stone of a `relaid` stone may have been captured by a stone nobody saw,
/// itself captured again by the new stone (a ko retaken under a hand and retaken back — R18.3
/// lets the retake back come only after a move elsewhere): the liberties in `board` of the
/// relaid stone's group, empty on `grid` too, that a hand disturbed after the relaid stone's
/// own point was (the stone nobody saw lifted once it was retaken). None without times.
fn recapture_spots(
    board: &Board,
    grid: &StoneGrid,
    times: Option<&[PointTimes]>,
    touched: &[u64],
    relaid: &[Pending],
) -> Vec<Point> {
    let size = board.size();
    let Some(times) = times else {
        return Vec::new();
    };
    let mut spots = Vec::new();
    for &(p, _) in relaid {
        let Some(since) = times.get(p.index(size)).map(|t| t.left_ms) else {
            continue;
        };
        for q in board.group(p) {
            for n in neighbours(q, size) {
                let fits = board.get(n).is_none()
                    && grid.get(n).is_none()
                    && touched.get(n.index(size)).is_some_and(|&t| t > since);
                if fits && !spots.contains(&n) {
                    spots.push(n);
                }
            }
        }
    }
    spots
}

/// The stones of `lifted` (stones of `game`'s position a board showed gone, as (point,
/// colour)) that `grid` shows on their points again and that `game`'s position still has: new
/// stones there if anything explains them so ([`explain_timed`]).
pub fn relaid(
    game: &Game,
    grid: &StoneGrid,
    lifted: impl IntoIterator<Item = Pending>,
) -> Vec<Pending> {
    let board = game.board();
    lifted
        .into_iter()
        .filter(|&(p, c)| board.get(p) == Some(c) && grid.get(p) == Some(c))
        .collect()
}

/// [`explain_timed`] with the stones of `relaid` taken as new, and at most one stone nobody
/// saw on `hidden_spots` ([`recapture_spots`]).
fn explain_with(
    game: &Game,
    pending: &[Pending],
    grid: &StoneGrid,
    times: Option<&[PointTimes]>,
    touched: &[u64],
    relaid: &[Pending],
    hidden_spots: &[Point],
) -> Verdict {
    let board = game.board();
    if grid.size() != board.size() {
        return Verdict::Unexplained(BoardDiff::between(board, &StoneGrid::empty(board.size())));
    }
    let times = times.filter(|t| t.len() == usize::from(board.size()).pow(2));
    let unexplained = || Verdict::Unexplained(BoardDiff::between(board, grid));
    let mut added = new_stones(board, pending, grid);
    added.extend_from_slice(relaid);
    likely_order(&mut added, times, board.size());
    if added.is_empty() {
        if let Some(t) = tally(board, pending, &[], grid) {
            return Verdict::Unchanged(t);
        }
    }
    let limit = if times.is_some() {
        MAX_TIMED_NEW_STONES
    } else {
        MAX_NEW_STONES
    };
    if added.len() > limit {
        return unexplained();
    }
    // Visible stones only, alternating from the side to move, the certain pairs in order.
    let bindings: &[Option<Binding>] = match times {
        Some(_) => BINDINGS,
        None => &[None],
    };
    for &binding in bindings {
        let mut search = Search::new(game, pending, grid, times.zip(binding));
        search.run(&added, hidden_spots, usize::from(!hidden_spots.is_empty()));
        if search.exhausted && added.len() > MAX_NEW_STONES {
            return unexplained(); // too many orders to try: no guess
        }
        if let Some(verdict) = lines_found(search.found) {
            return verdict;
        }
    }
    // A captured stone still on the board may also stand for a new stone on the same point
    // (lifted and put back under a hand, as in a snapback): try each as a move. A point
    // disturbed since its stone first went down (`touched`) had its new stone by the end of
    // that disturbance: that is its time; a point never disturbed since gives no order.
    let mut replayed = Vec::new();
    if added.len() < limit {
        for &(p, c) in pending.iter().filter(|&&(p, c)| grid.get(p) == Some(c)) {
            let mut with = added.clone();
            with.push((p, c));
            let i = p.index(board.size());
            let replaced = times.zip(touched.get(i)).and_then(|(t, &last)| {
                let first = t.get(i)?;
                (last > first.seen_ms).then(|| {
                    let mut t = t.to_vec();
                    t[i] = PointTimes {
                        left_ms: first.seen_ms,
                        seen_ms: last + 1,
                        reread_ms: 0,
                    };
                    t
                })
            });
            let orders: &[Option<Binding>] = match replaced {
                Some(_) => BINDINGS,
                None => &[None],
            };
            for &binding in orders {
                let mut search = Search::new(game, pending, grid, replaced.as_deref().zip(binding));
                search.run(&with, &[], 0);
                if !search.found.is_empty() {
                    replayed.extend(search.found);
                    break;
                }
            }
        }
    }
    // several orders of the same stones (or several points replayed) are an ambiguity as any
    // other: recorded, the likeliest provisionally
    if let Some(verdict) = lines_found(replayed) {
        return verdict;
    }
    if let [(point, color)] = added[..] {
        if color != game.to_move() {
            return single_out_of_turn(game, pending, grid, point, color);
        }
        return single_illegal(game, pending, grid, point, color).unwrap_or_else(unexplained);
    }
    unexplained()
}

/// The verdict of the lines a search found: none, one (moves), or several (ambiguous).
fn lines_found(mut found: Vec<(Vec<Step>, CaptureTally)>) -> Option<Verdict> {
    match found.len() {
        0 => None,
        1 => {
            let (steps, tally) = found.pop().unwrap_or_default();
            Some(Verdict::Moves { steps, tally })
        }
        _ => Some(Verdict::Ambiguous(
            found
                .into_iter()
                .map(|(steps, tally)| Candidate {
                    steps,
                    out_of_turn: false,
                    still_pending: tally.still_pending,
                })
                .collect(),
        )),
    }
}

/// Every line of alternating legal moves from `game` that ends on `grid`: the stones new on
/// `grid` (not in `game`, not among the `pending` captured stones), in every order the times
/// allow (certain pairs in order), with at most `hidden` stones
/// nobody saw on `hidden_spots` (each captured again within the line). At most a few lines are
/// returned; none when there are more new stones than [`MAX_TIMED_NEW_STONES`] or the search
/// runs out of its budget. For looking back over the record's last moves
/// ([`super::Referee`]'s revision before a violation). `relaid`: stones taken as new too, as
/// [`explain_timed`] tries them.
pub fn explain_lines(
    game: &Game,
    pending: &[Pending],
    grid: &StoneGrid,
    times: Option<&[PointTimes]>,
    hidden_spots: &[Point],
    hidden: usize,
    relaid: &[Pending],
) -> Vec<(Vec<Step>, CaptureTally)> {
    let board = game.board();
    if grid.size() != board.size() {
        return Vec::new();
    }
    let times = times.filter(|t| t.len() == usize::from(board.size()).pow(2));
    let mut added = new_stones(board, pending, grid);
    added.extend_from_slice(relaid);
    likely_order(&mut added, times, board.size());
    if added.len() > MAX_TIMED_NEW_STONES {
        return Vec::new();
    }
    let bindings: &[Option<Binding>] = match times {
        Some(_) => BINDINGS,
        None => &[None],
    };
    for &binding in bindings {
        let mut search = Search::new(game, pending, grid, times.zip(binding));
        search.budget = LINES_BUDGET;
        search.run(&added, hidden_spots, hidden);
        if search.exhausted {
            return Vec::new();
        }
        if !search.found.is_empty() {
            return search.found;
        }
    }
    Vec::new()
}

/// Sorts new stones into the order their `times` make likeliest (the middle of each one's
/// interval from its likely disturbance, [`PointTimes::likely_left_ms`], to its first clear
/// scan), then from the top left: a search tries them in this order, so the lines it finds
/// first — all it keeps when there are many — are the likeliest.
fn likely_order(added: &mut [(Point, Color)], times: Option<&[PointTimes]>, size: u8) {
    added.sort_by_key(|&(p, _)| {
        let mid = times
            .and_then(|t| t.get(p.index(size)))
            .map(|t| (t.likely_left_ms() + t.seen_ms) / 2);
        (mid, p.index(size))
    });
}

/// The stones on `grid` that the record's `board` does not have: on empty points (not a
/// `pending` captured stone still lying there), and stones of the other colour on a point
/// whose stone a move of the line must capture first (captured and the point retaken under a
/// hand, never seen empty: a ko, a snapback).
fn new_stones(board: &Board, pending: &[Pending], grid: &StoneGrid) -> Vec<(Point, Color)> {
    grid.iter()
        .filter_map(|(p, sensed)| match (board.get(p), sensed) {
            (None, Some(c)) if !pending.contains(&(p, c)) => Some((p, c)),
            (Some(old), Some(c)) if old != c => Some((p, c)),
            _ => None,
        })
        .collect()
}

/// One stone of the side not to move: a move out of turn (R17.2), unless a throw-in by the side
/// to move, captured by this stone, explains it too — then the referee chooses.
fn single_out_of_turn(
    game: &Game,
    pending: &[Pending],
    grid: &StoneGrid,
    point: Point,
    color: Color,
) -> Verdict {
    let mut solo = game.clone();
    let Ok(outcome) = solo.play(color, Some(point)) else {
        return single_illegal(game, pending, grid, point, color)
            .unwrap_or_else(|| Verdict::Unexplained(BoardDiff::between(game.board(), grid)));
    };
    let fresh: Vec<Pending> = outcome
        .captured
        .iter()
        .map(|&p| (p, color.opposite()))
        .collect();
    let Some(solo_tally) = tally(solo.board(), pending, &fresh, grid) else {
        return Verdict::Unexplained(BoardDiff::between(game.board(), grid));
    };
    let step = Step {
        color,
        point,
        captured: outcome.captured,
        hidden: false,
    };
    let board = game.board();
    let hidden_spots: Vec<Point> = neighbours(point, board.size())
        .filter(|&n| board.get(n).is_none() && grid.get(n).is_none())
        .collect();
    let mut search = Search::new(game, pending, grid, None);
    search.run(&[(point, color)], &hidden_spots, 1);
    if search.found.is_empty() {
        return Verdict::OutOfTurn {
            step,
            tally: solo_tally,
        };
    }
    let mut candidates: Vec<Candidate> = search
        .found
        .into_iter()
        .map(|(steps, tally)| Candidate {
            steps,
            out_of_turn: false,
            still_pending: tally.still_pending,
        })
        .collect();
    candidates.push(Candidate {
        steps: vec![step],
        out_of_turn: true,
        still_pending: solo_tally.still_pending,
    });
    Verdict::Ambiguous(candidates)
}

/// One stone the rules forbid where it lies: a ko retaken at once, or a forbidden point.
fn single_illegal(
    game: &Game,
    pending: &[Pending],
    grid: &StoneGrid,
    point: Point,
    color: Color,
) -> Option<Verdict> {
    let illegal = match game.preview(color, point) {
        Err(i @ (Illegal::Ko(_) | Illegal::Suicide(_))) => i,
        _ => return None,
    };
    // What the board shows after the forbidden stone: a ko retake with its capture (which
    // may still lie on the board), a suicide stone simply lying there.
    let mut after = game.board().clone();
    let fresh: Vec<Pending> = match illegal {
        Illegal::Ko(_) => after
            .play(color, point)
            .ok()?
            .iter()
            .map(|&p| (p, color.opposite()))
            .collect(),
        _ => {
            after.put(point, Some(color));
            Vec::new()
        }
    };
    tally(&after, pending, &fresh, grid).map(|_| Verdict::Illegal {
        color,
        point,
        illegal,
    })
}

/// The points next to `p` on a board of `size` lines.
pub(super) fn neighbours(p: Point, size: u8) -> impl Iterator<Item = Point> {
    let (x, y) = (i16::from(p.x), i16::from(p.y));
    [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)]
        .into_iter()
        .filter(move |&(a, b)| a >= 0 && b >= 0 && a < i16::from(size) && b < i16::from(size))
        .map(|(a, b)| Point::new(a as u8, b as u8))
}

#[cfg(test)]
mod tests;
