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

    /// Whether a hand was over any point of the board after board time `at_ms` (by the last
    /// board times each point was disturbed).
    pub(super) fn hand_since(&self, at_ms: u64) -> bool {
        self.last_touched.iter().any(|&t| t >= at_ms)
    }
}
