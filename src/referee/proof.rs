//! No penalty without proof (issue 35; README "The referee"). A violation that costs a player
//! — a warning, a move made invalid, a lost game — stands only on evidence that proves it: the
//! stones and presses the board actually saw, in an order it actually saw. Where the evidence
//! is incomplete the referee gets a `notice` instead (penalty `notice`: shown, logged, with the
//! evidence, answerable; it counts toward nothing — no warning, no pass, no loss), and the
//! referee may uphold it (the rules' sanction then applies) or dismiss it.
//!
//! The evidence is incomplete when ([`Referee::doubt`]):
//!
//! * the order of the last moves is not known for sure (moves recorded provisionally, or
//!   revised after the fact, within the last [`REVISE_MOVES`]);
//! * the board's history of an outage was lost (a restart of the board or of the service, a
//!   board without history) within the last [`REVISE_MOVES`] moves: what happened meanwhile
//!   was not seen;
//! * the board was not seen whole (hands over it elsewhere) when it was judged, or it was out
//!   of step with the record (`desync`: the record itself is in question);
//! * a point the violation is about has no sensor of its own that reads (a dead sensor: the
//!   board reads the point from its neighbours' sensors, an estimate;
//!   [`Referee::set_unsensed`]);
//! * what the violation is about was under a hand when it mattered — a press "without a
//!   stone" while a hand was over the board since (a stone may be under it), captured stones
//!   a hand was over since their capture (they may have been lifted and a stone of their
//!   colour put back), a press within a scan of its stone.
//!
//! A stone out of turn, a forbidden stone or stones gone that no capture took are first looked
//! at again with the record's last moves ([`super::revise`]): a line with no violation
//! replaces them, and only what no such line explains is judged as a violation at all.

use super::*;

pub use super::revise::REVISE_MOVES;

/// One scan at the board's usual 50 scans a second, ms: two acts less than this apart cannot
/// be told apart by the board.
pub const SCAN_MS: u64 = 20;

impl Referee {
    /// Why the board's evidence does not prove `code` by `color` at `points` (module docs), or
    /// `None` when it does. `also`: a doubt the caller found in the act itself.
    pub(super) fn doubt(
        &self,
        code: ViolationCode,
        points: &[Point],
        also: Option<String>,
    ) -> Option<String> {
        if also.is_some() {
            return also;
        }
        if self.judging_partial {
            return Some("hands were over the board: a stone may be under them".into());
        }
        if self.phase == Phase::Desync {
            return Some("the board was out of step with the record".into());
        }
        let unsensed: Vec<String> = points
            .iter()
            .filter(|p| self.unsensed.contains(p))
            .map(|&p| self.gtp(p))
            .collect();
        if !unsensed.is_empty() {
            return Some(format!(
                "the sensor under {} is dead: the board reads the point from its neighbours, an estimate",
                unsensed.join(" ")
            ));
        }
        let len = self.record.moves.len();
        let recent = |from: usize| len.saturating_sub(from) <= REVISE_MOVES;
        if let Some(p) = self
            .provisional
            .iter()
            .rev()
            .find(|p| recent(p.from + p.len()))
        {
            return Some(format!(
                "the order of moves {}-{} is not known for sure",
                p.numbers().start(),
                p.numbers().end()
            ));
        }
        if let Some(from) = self.revised_at.filter(|&from| recent(from)) {
            return Some(format!(
                "moves from {} on were revised after the fact (stones under hands)",
                from + 1
            ));
        }
        if let Some(at) = self.gap_at.filter(|&at| recent(at)) {
            return Some(format!(
                "the board's history of an outage was lost after move {at}: what happened meanwhile was not seen"
            ));
        }
        if matches!(
            code,
            ViolationCode::MissedCapture | ViolationCode::ClockBeforeCaptures
        ) {
            let touched: Vec<String> = points
                .iter()
                .filter(|&&p| self.first_touched.iter().any(|&(q, _)| q == p))
                .map(|&p| self.gtp(p))
                .collect();
            if !touched.is_empty() {
                return Some(format!(
                    "a hand was over {} since the capture: the stones may have been lifted and others of their colour put there",
                    touched.join(" ")
                ));
            }
        }
        None
    }

    /// Why a stone of `color` at `point` is not proven to be a second move in a row (R17.2), or
    /// `None` when it is. The record says `color` moved last; that stands as proof only when
    /// the board saw it: the opponent's last stone certainly down before `color`'s last one
    /// (seen before anything touched its point: [`PointTimes::certainly_before`]), so that
    /// the two of `color` came with no move of the opponent between. Where hands hid which
    /// of the two last stones went down first, the record's order came from alternation
    /// itself — and an opponent's stone placed and captured unseen earlier would leave the
    /// record one move out of step with the board for the rest of the game (the fuzzer's
    /// `jst20` seed 1: the record, one white stone short since a fight under hands, ordered
    /// the last two stones by turn and then called black's reply a second move). A pass is a
    /// press of a button: certain. Without the stones' times (boards handed on whole) the
    /// record's order is the boards' order, which the board saw.
    pub(super) fn alternation_unseen(
        &self,
        color: Color,
        point: Point,
        obs: Observation<'_>,
    ) -> Option<String> {
        obs.timing()?;
        let moves = &self.record.moves;
        let own = moves.iter().rposition(|m| m.color == color)?;
        let mine = &moves[own];
        let own_point = mine.point?; // a pass: a button press, certain
        let own_times = obs.times_of(own_point);
        let unseen = |why: String| {
            Some(format!(
                "{why}: the order {} {} then {} was not seen, and the record may be out of step",
                color.as_str(),
                self.gtp(own_point),
                self.gtp(point)
            ))
        };
        if obs.grid.get(own_point) != Some(color) {
            return unseen(format!(
                "{}'s last stone {} is no longer on its point",
                color.as_str(),
                self.gtp(own_point)
            ));
        }
        // none before: nothing of the opponent's to order; a pass: a button press, certain
        let theirs = moves[..own].iter().rev().find(|m| m.color != color)?;
        let their_point = theirs.point?;
        let their_times = obs.times_of(their_point);
        if obs.grid.get(their_point) != Some(color.opposite())
            || !their_times.certainly_before(&own_times)
        {
            return unseen(format!(
                "hands hid whether {} {} went down before {} {}",
                color.opposite().as_str(),
                self.gtp(their_point),
                color.as_str(),
                self.gtp(own_point)
            ));
        }
        None
    }

    /// Why stones of `victim` lifted from `lifted` are not proven to have had liberties (R18.1),
    /// or `None` when they are: the board itself, with the lifted stones back (`masked`), must
    /// show their group a liberty — an empty point next to it. A group the board shows
    /// surrounded by the offender's stones was captured as far as the wood can tell; only the
    /// record's reading of a neighbouring stone (a captured stone still lying there, say,
    /// where the offender may since have put a new one under a hand — a ko-like exchange
    /// under a cable pull, the fuzzer's Chen Yaoye seed 2) says otherwise.
    pub(super) fn liberties_unseen(
        &self,
        masked: &StoneGrid,
        lifted: &[Point],
        victim: Color,
    ) -> Option<String> {
        let size = masked.size();
        let mut group: Vec<Point> = lifted.to_vec();
        let mut i = 0;
        while let Some(&p) = group.get(i) {
            i += 1;
            for n in super::inference::neighbours(p, size) {
                match masked.get(n) {
                    None => return None, // a liberty the board saw
                    Some(c) if c == victim && !group.contains(&n) => group.push(n),
                    Some(_) => {}
                }
            }
        }
        Some(format!(
            "the board shows {} surrounded by {} stones: a capture the record did not see may have taken them",
            lifted
                .iter()
                .map(|&p| self.gtp(p))
                .collect::<Vec<_>>()
                .join(" "),
            victim.opposite().as_str()
        ))
    }

    /// Whether a hand was over any point of the board after board time `at_ms` (by the last
    /// board times each point was disturbed).
    pub(super) fn hand_since(&self, at_ms: u64) -> bool {
        self.last_touched.iter().any(|&t| t >= at_ms)
    }
}
