//! One line that explains a board no search of every order can take (issue 35): stones put
//! down while the board's history was lost, or a record stuck out of step with the board —
//! any line will do, the likeliest first, with the throw-ins nobody saw that alternation
//! needs.

use super::search::Search;
use super::*;

/// One line of alternating legal moves from `game` that ends on `grid` — any one, for stones
/// whose order nothing tells: put down while the board's history was lost, more than any
/// search of every order can take. The stones of each colour are tried in the order their
/// `times` make likeliest (`likely_order`, certain pairs kept in order). Where one side has
/// fewer stones than alternation gives it, up to `unseen` of its stones nobody saw — placed and
/// captured again meanwhile, a throw-in — go on points its opponent's new stones surround
/// (`throw_in_spots`). `None` when no line is found within the `budget` of stones tried
/// (what the search used is taken off it) — stones out of turn, stones missing or moved.
pub fn some_line(
    game: &Game,
    pending: &[Pending],
    grid: &StoneGrid,
    times: Option<&[PointTimes]>,
    unseen: usize,
    budget: &mut usize,
) -> Option<(Vec<Step>, CaptureTally)> {
    let board = game.board();
    if grid.size() != board.size() {
        return None;
    }
    let size = usize::from(board.size());
    let times = times.filter(|t| t.len() == size * size);
    let mut added = new_stones(board, pending, grid);
    likely_order(&mut added, times, board.size());
    // Where one side has fewer stones than alternation needs, that side's stones nobody saw
    // were captured meanwhile (throw-ins): as many as it lacks, or one more.
    let least = hidden_least(&added, game.to_move());
    if least > unseen {
        return None;
    }
    let spots = throw_in_spots(board, pending, grid, &added);
    for hidden in least..=unseen.min(least + 1) {
        if (hidden > 0 && spots.is_empty()) || *budget == 0 {
            break;
        }
        let mut search = Search::new(game, pending, grid, times.map(|t| (t, Binding::Certain)));
        search.budget = *budget;
        search.enough = 1;
        search.run(&added, &spots, hidden);
        *budget = budget.saturating_sub(search.tries);
        if let Some(line) = search.found.into_iter().next() {
            return Some(line);
        }
    }
    None
}

/// Most stones nobody saw (placed and captured again) that [`some_line`] puts in a line.
pub const MAX_HIDDEN_UNSEEN: usize = 2;

/// How many stones nobody saw, at least, the `added` stones need to alternate from `mover`:
/// the side with fewer stones than alternation gives it played the rest where they were
/// captured again.
fn hidden_least(added: &[(Point, Color)], mover: Color) -> usize {
    let mine = added.iter().filter(|&&(_, c)| c == mover).count();
    let theirs = added.len() - mine;
    if mine < theirs {
        theirs - mine
    } else {
        mine.saturating_sub(theirs + 1)
    }
}

/// Whether the stones `left` can still all be played alternating from `mover`, with at most
/// `hidden` stones nobody saw between them: alternation gives the mover as many moves as the
/// other side, or one more.
pub(super) fn colours_can_alternate(left: &[(Point, Color)], mover: Color, hidden: usize) -> bool {
    hidden_least(left, mover) <= hidden
}

/// Points where a stone nobody saw may have been played and captured again (a throw-in): empty
/// on the board and in the record, not a captured stone's, every neighbour a stone now or in
/// the record (captured with it), one of them among the `added` stones (its captor's side).
fn throw_in_spots(
    board: &Board,
    pending: &[Pending],
    grid: &StoneGrid,
    added: &[(Point, Color)],
) -> Vec<Point> {
    let size = board.size();
    grid.iter()
        .filter(|&(p, sensed)| {
            sensed.is_none()
                && board.get(p).is_none()
                && !pending.iter().any(|&(q, _)| q == p)
                && neighbours(p, size).all(|n| grid.get(n).is_some() || board.get(n).is_some())
                && neighbours(p, size).any(|n| added.iter().any(|&(q, _)| q == n))
        })
        .map(|(p, _)| p)
        .collect()
}
