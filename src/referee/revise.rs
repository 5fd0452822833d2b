//! Looking back before flagging (issue 35). A board the record explains only with a violation
//! — a stone out of turn (R17.2), a forbidden stone or a ko retaken (R18.3, R19), stones gone
//! that no capture took — may instead show that the record's last moves were misread: a stone
//! placed and captured under hands that no scan saw clear (a throw-in), or stones whose order
//! the hands hid. A human referee looks back before penalising; so does this one.
//!
//! The last [`REVISE_MOVES`] moves (never past a pass: a button press is certain) are played
//! again from before them with every stone the board now shows, in every order their times
//! allow, and with at most one stone nobody saw on a point empty before them that a hand was
//! over since they began (captured again within the line, or it would be on the board; the
//! point may hold another stone since). The fewest moves looked back, then the fewest stones
//! nobody saw, win — unless a line reaching further back ranks first among them all (the
//! shorter lines with the record's moves before them prefixed; [`super::provisional`]'s rank:
//! the scans order its stones better, as when a stone under a hand for seconds was in truth
//! played before moves the record has before it). A line that explains the board with no
//! violation replaces those moves in the record: `move_corrected` for each changed move,
//! `move` for each one more; every move of the line carries an SGF comment saying so (a stone
//! nobody saw: "never seen"), and the referee gets a `notice` naming what would otherwise have
//! been flagged. Several such lines that lead to the same position are recorded as
//! provisional ([`super::provisional`]); several that lead to different positions revise
//! nothing.

use super::*;

/// Most of the record's last moves looked at again before a violation is flagged.
pub const REVISE_MOVES: usize = 6;

/// Most empty points tried for a stone nobody saw (the nearest to the new stones first).
const MAX_HIDDEN_SPOTS: usize = 24;

impl Referee {
    /// Looks back over the record's last moves for a line that explains `obs`'s board without
    /// a violation (module docs); `would_flag` names what would be flagged otherwise (for the
    /// notice). Returns whether the record was revised.
    pub(super) fn revise(&mut self, obs: Observation<'_>, would_flag: ViolationCode) -> bool {
        if self.config.policy == Policy::AcceptAsPlayed
            || !matches!(self.phase, Phase::Play | Phase::Desync)
        {
            return false;
        }
        let len = self.record.moves.len();
        for k in 1..=REVISE_MOVES.min(len) {
            let (base, pending, candidates) = match self.revision_at(k, obs) {
                Revision::Stop => return false,
                Revision::None => continue,
                Revision::Found(base, pending, candidates) => (*base, pending, candidates),
            };
            // a line reaching further back that the scans order better wins (ranked with
            // the record's moves before it prefixed to the shorter ones)
            let (k, base, pending, candidates) =
                self.deeper_if_better(k, base, pending, candidates, obs);
            let saved = self.clone();
            if !self.positions_agree(&base, &candidates) {
                return false;
            }
            let before = self.last.clone();
            if self.adopt_revision(k, base, pending, candidates, obs, Some(would_flag)) {
                self.keep_commit(before, false);
                return true;
            }
            *self = saved;
            return false;
        }
        false
    }

    /// The lines that explain `obs`'s board from before the record's last `k` moves (module
    /// docs): [`Revision::Stop`] when nothing further back may be looked at (a pass in them,
    /// a record that does not replay), [`Revision::None`] when no line but the record's own.
    fn revision_at(&self, k: usize, obs: Observation<'_>) -> Revision {
        let len = self.record.moves.len();
        let size = self.size();
        // the last move's stone may have slid under the finger while it was not yet committed
        // (no press, not settled long) — or before the press that committed it, unless the
        // board saw the stone still on its point after the press (the press commits the stone
        // where it lies; a slide under a hand that covered the stone from before the press to
        // after it is not proved to come after the press, and is no `moved_stone`)
        let last = self.last.clone();
        let slid_uncommitted = |from: Point, to: Point| {
            last.as_ref().is_some_and(|l| {
                !l.committed
                    || l.committed_ms.is_some_and(|c| {
                        obs.times_of(from).left_ms <= c || obs.times_of(to).seen_ms <= c
                    })
            })
        };
        let tail = &self.record.moves[len - k..];
        if tail.iter().any(|m| m.point.is_none()) {
            return Revision::Stop; // a pass is a press of a button: certain
        }
        let Some((base, tail_captured, pending)) = self.before_tail(k) else {
            return Revision::Stop;
        };
        // a stone nobody saw went on a point a hand was over since the tail began
        let since = tail
            .iter()
            .filter_map(|m| m.point)
            .map(|p| obs.times_of(p).left_ms)
            .min()
            .unwrap_or(obs.at_ms);
        let new_points: Vec<Point> = obs
            .grid
            .iter()
            .filter(|&(p, c)| c.is_some() && base.board().get(p).is_none())
            .map(|(p, _)| p)
            .collect();
        // a point empty before the tail — empty now, or holding a new stone: a stone nobody
        // saw may have been put down there, captured, and the point filled since — or one
        // whose stone was captured meanwhile (the tail's captures, a captured stone still
        // lying there) and retaken since (a ko fought under hands)
        let retaken = |p: Point| tail_captured.contains(&p) || pending.iter().any(|&(q, _)| q == p);
        let mut spots: Vec<Point> = obs
            .grid
            .iter()
            .filter(|&(p, _)| base.board().get(p).is_none() || retaken(p))
            .map(|(p, _)| p)
            .filter(|p| obs.touched.get(p.index(size)).is_some_and(|&t| t >= since))
            .collect();
        let distance = |p: &Point| {
            new_points
                .iter()
                .map(|q| u32::from(p.x.abs_diff(q.x)) + u32::from(p.y.abs_diff(q.y)))
                .min()
                .unwrap_or(u32::MAX)
        };
        spots.sort_by_key(distance);
        spots.truncate(MAX_HIDDEN_SPOTS);
        // stones seen lifted and back on their points: new stones first (a ko retaken)
        let relaid = self.relaid_on(&base, obs.grid);
        let withs: Vec<&[Pending]> = if relaid.is_empty() {
            vec![&[]]
        } else {
            vec![&relaid, &[]]
        };
        let most_hidden = usize::from(!spots.is_empty());
        let tries = withs
            .into_iter()
            .flat_map(|r| (0..=most_hidden).map(move |h| (r, h)));
        for (with, hidden) in tries {
            let lines = explain_lines(
                &base,
                &pending,
                obs.grid,
                obs.timing(),
                &spots,
                hidden,
                with,
            );
            let candidates: Vec<Candidate> = lines
                .into_iter()
                .filter(|(steps, _)| steps.len() >= k)
                .filter(|(steps, _)| steps.iter().filter(|s| s.hidden).count() == hidden)
                // a stone the board saw down where the record has it stays a move: the
                // line only reorders them and adds what no scan saw — or its stone slid
                // under the finger before it was committed (the last move: no press, or
                // its point left before the press; an earlier one: `slid_before_reply`)
                // to a neighbouring point that no other move of the record holds (and its
                // point may since hold the reply's stone), each slid stone the slide of
                // one move only; a committed stone moved is a `moved_stone` or a
                // `takeback` (R17.5, R17.3)
                .filter(|(steps, _)| {
                    let mut slid_to: Vec<Point> = Vec::new();
                    tail.iter().enumerate().all(|(i, m)| {
                        let Some(at) = m.point else { return false };
                        if steps.iter().any(|s| s.color == m.color && s.point == at) {
                            return true;
                        }
                        let number = len - k + i + 1;
                        let slide = (obs.grid.get(at) != Some(m.color))
                            .then(|| {
                                steps.iter().enumerate().find(|&(j, s)| {
                                    s.color == m.color
                                        && !s.hidden
                                        && !slid_to.contains(&s.point)
                                        && !tail.iter().any(|t| t.point == Some(s.point))
                                        && s.point.x.abs_diff(at.x) + s.point.y.abs_diff(at.y) == 1
                                        && if i + 1 == k {
                                            slid_uncommitted(at, s.point)
                                        } else {
                                            self.slid_before_reply(number, at, &steps[j..], obs)
                                        }
                                })
                            })
                            .flatten();
                        if let Some((_, s)) = slide {
                            slid_to.push(s.point);
                        }
                        slide.is_some()
                    })
                })
                .map(|(steps, tally)| Candidate {
                    steps,
                    out_of_turn: false,
                    still_pending: tally.still_pending,
                })
                .collect();
            if candidates.is_empty() {
                continue;
            }
            // the record's own tail is no revision (it led here)
            let same_as_tail = |c: &Candidate| {
                c.steps
                    .iter()
                    .zip(tail)
                    .all(|(s, m)| m.color == s.color && m.point == Some(s.point))
                    && c.steps.len() == k
            };
            if candidates.iter().any(same_as_tail) {
                continue;
            }
            return Revision::Found(Box::new(base), pending, candidates);
        }
        Revision::None
    }

    /// The revision at depth `k` (`base`, `pending`, `candidates`), or one reaching further
    /// back (at most [`REVISE_MOVES`], never past a pass) whose likeliest line ranks before
    /// every line of depth `k` with the record's moves before it prefixed ([`rank`]: the
    /// scans order the stones better) — the lines of both then, at the deeper depth.
    fn deeper_if_better(
        &self,
        k: usize,
        base: Game,
        pending: Vec<Pending>,
        candidates: Vec<Candidate>,
        obs: Observation<'_>,
    ) -> (usize, Game, Vec<Pending>, Vec<Candidate>) {
        let len = self.record.moves.len();
        let mut best = (k, base, pending, candidates);
        for deeper in k + 1..=REVISE_MOVES.min(len) {
            let (base, pending, mut found) = match self.revision_at(deeper, obs) {
                Revision::Stop => break,
                Revision::None => continue,
                Revision::Found(base, pending, found) => (*base, pending, found),
            };
            // the record's moves between the two depths, as steps from `base`
            let mut g = base.clone();
            let mut prefix = Vec::new();
            for m in &self.record.moves[len - deeper..len - best.0] {
                let Some(point) = m.point else { return best };
                let Ok(outcome) = g.play(m.color, Some(point)) else {
                    return best;
                };
                prefix.push(Step {
                    color: m.color,
                    point,
                    captured: outcome.captured,
                    hidden: false,
                });
            }
            let shallow: Vec<Candidate> = best
                .3
                .iter()
                .map(|c| Candidate {
                    steps: prefix.iter().chain(&c.steps).cloned().collect(),
                    ..c.clone()
                })
                .collect();
            found.retain(|c| !shallow.iter().any(|s| s.steps == c.steps));
            let previous = len
                .checked_sub(deeper + 1)
                .and_then(|i| self.record.moves.get(i))
                .and_then(|m| m.point);
            let n_shallow = shallow.len();
            let mut all = shallow;
            all.extend(found);
            let ranked = rank(all.clone(), obs, previous);
            let deeper_first = ranked
                .first()
                .is_some_and(|c| !all[..n_shallow].iter().any(|s| s.steps == c.steps));
            if deeper_first && self.positions_agree(&base, &all) {
                best = (deeper, base, pending, all);
            }
        }
        best
    }

    /// Whether move `number` (not the record's last) may have slid from `at` before anything
    /// committed it, in a line where its stone is `from_slid[0]` and the steps after it follow:
    /// it is still owed its press; no opponent's move the record has after it was answered to
    /// it — the stone was not certainly down on `at` before that stone's point was touched
    /// (the hands hid which came first: the record had it first only because it was seen on
    /// `at` first); its stone left `at` no later than the opponent's next stone of the line was
    /// certainly down; and not after it had lain still for the commit time.
    fn slid_before_reply(
        &self,
        number: usize,
        at: Point,
        from_slid: &[Step],
        obs: Observation<'_>,
    ) -> bool {
        let Some(slid) = from_slid.first() else {
            return false;
        };
        let Some(owed) = self
            .unpressed
            .iter()
            .flatten()
            .find(|u| u.number as usize == number && u.point == Some(at))
        else {
            return false;
        };
        let down_ms = owed.seen_at.unwrap_or(owed.placed_at);
        let left_ms = obs.times_of(at).left_ms;
        let answered = self
            .record
            .moves
            .iter()
            .skip(number)
            .filter(|m| m.color != slid.color)
            .filter_map(|m| m.point)
            .any(|p| down_ms < obs.times_of(p).left_ms);
        let lay_still = self
            .config
            .commit_ms
            .is_some_and(|c| left_ms > down_ms.saturating_add(c));
        let reply = from_slid[1..].iter().find(|s| s.color != slid.color);
        !answered && !lay_still && reply.is_none_or(|r| left_ms <= obs.times_of(r.point).seen_ms)
    }

    /// The game before the record's last `k` moves, the stones those moves captured (lying on
    /// its board) and the captured stones lying from before them. `None` when the record does
    /// not replay.
    pub(super) fn before_tail(&self, k: usize) -> Option<(Game, Vec<Point>, Vec<Pending>)> {
        let len = self.record.moves.len();
        let base = self
            .replayed(&self.record.moves[..len.checked_sub(k)?])
            .ok()?;
        let mut g = base.clone();
        let mut tail_captured = Vec::new();
        for m in &self.record.moves[len - k..] {
            tail_captured.extend(g.play(m.color, m.point).ok()?.captured);
        }
        let pending: Vec<Pending> = self
            .pending
            .iter()
            .filter(|(p, _)| !tail_captured.contains(p))
            .copied()
            .collect();
        Some((base, tail_captured, pending))
    }

    /// Whether every line of `candidates` from `base` ends in the same position.
    pub(super) fn positions_agree(&self, base: &Game, candidates: &[Candidate]) -> bool {
        let size = self.size();
        let ends: Vec<Option<(crate::rules::Board, Color, Vec<Pending>)>> = candidates
            .iter()
            .map(|c| {
                let mut g = base.clone();
                for s in &c.steps {
                    g.play(s.color, Some(s.point)).ok()?;
                }
                let mut pending = c.still_pending.clone();
                pending.sort_by_key(|&(p, _)| p.index(size));
                Some((g.board().clone(), g.to_move(), pending))
            })
            .collect();
        ends.first()
            .and_then(|e| e.as_ref())
            .is_some_and(|first| ends.iter().all(|e| e.as_ref() == Some(first)))
    }

    /// Replaces the record's last `k` moves by the likeliest of `candidates` (lines from
    /// `base`, where `pending` captured stones still lay), as the module docs say; the referee
    /// gets a notice naming `would_flag`, what would otherwise have been flagged (`None`:
    /// nothing was, the board's times alone told the order: no notice). A line
    /// [`Candidate::out_of_turn`] starts with a pass of `base`'s side to move: a move nobody
    /// saw (a pass without a clock, a stone placed and captured again under the hands),
    /// recorded with a comment saying so and owing no press.
    pub(super) fn adopt_revision(
        &mut self,
        k: usize,
        base: Game,
        pending: Vec<Pending>,
        candidates: Vec<Candidate>,
        obs: Observation<'_>,
        would_flag: Option<ViolationCode>,
    ) -> bool {
        let previous = self
            .record
            .moves
            .len()
            .checked_sub(k + 1)
            .and_then(|i| self.record.moves.get(i))
            .and_then(|m| m.point);
        let ranked = rank(candidates, obs, previous);
        let Some(best) = ranked.first().cloned() else {
            return false;
        };
        let len = self.record.moves.len();
        let from = len - k;
        let old: Vec<RecordedMove> = self.record.moves[from..].to_vec();
        // the moves already pressed for keep their press
        let pressed: Vec<Point> = old
            .iter()
            .filter_map(|m| m.point)
            .filter(|&p| {
                !self
                    .unpressed
                    .iter()
                    .flatten()
                    .any(|u| u.number as usize > from && u.point == Some(p))
            })
            .collect();
        // unwind (put back whole if the line cannot be recorded after all: nothing recorded is
        // ever lost)
        let before = self.clone();
        self.revised_at = Some(from);
        self.record.moves.truncate(from);
        self.game = base;
        self.pending = pending;
        self.last = None;
        for side in &mut self.unpressed {
            side.retain(|u| u.number as usize <= from);
        }
        self.last_owed_seen = self.last_owed_seen.filter(|&(n, _)| n as usize <= from);
        self.trim_provisional(None);
        // record the line; its moves' events become corrections where they change a move
        let first_event = self.events.0.len();
        let fresh: Vec<Point> = best.steps.iter().flat_map(|s| s.captured.clone()).collect();
        let Some(tally) = self.tally_after_line(&best.steps, obs.grid) else {
            *self = before;
            return false;
        };
        let unseen_pass = best.out_of_turn.then(|| self.game.to_move());
        let lead = usize::from(unseen_pass.is_some());
        if let Some(passer) = unseen_pass {
            self.commit_last();
            self.record_pass(passer, obs.at_ms);
            // nobody was seen to move: no press is owed for it
            let number = self.game.move_number();
            self.unpressed[side(passer)].retain(|u| u.number != number);
        }
        self.record_steps(&best.steps, obs);
        if self.record.moves.len() != from + lead + best.steps.len() {
            *self = before;
            return false;
        }
        let size = self.size();
        let mut events: Vec<(EventKind, Option<u64>)> =
            self.events.0.drain(first_event..).collect();
        events.retain_mut(|(e, _)| {
            let (number, color, point) = match e {
                EventKind::Move {
                    number,
                    color,
                    point,
                    ..
                } => (*number, *color, Some(point.clone())),
                EventKind::Pass { number, color } => (*number, *color, None),
                _ => return true,
            };
            let Some(was) = (number as usize)
                .checked_sub(from + 1)
                .and_then(|i| old.get(i))
            else {
                return true; // a move more
            };
            if was.color == color && was.point.map(|p| p.to_gtp(size)) == point {
                return false; // unchanged
            }
            *e = EventKind::MoveCorrected {
                number,
                color,
                point,
            };
            true
        });
        self.events.0.extend(events);
        self.apply_tally(tally, &fresh);
        // clock readings stay with their move numbers; presses already made stay made
        for (i, m) in old.iter().enumerate() {
            if let Some(now) = self.record.moves.get_mut(from + i) {
                now.time_left_ms = m.time_left_ms;
                now.periods_left = m.periods_left;
            }
        }
        for side in &mut self.unpressed {
            side.retain(|u| {
                let was_pressed = u.point.is_some_and(|p| pressed.contains(&p));
                let hidden = best
                    .steps
                    .iter()
                    .any(|s| s.hidden && Some(s.point) == u.point);
                !(was_pressed || hidden)
            });
        }
        let before: Vec<String> = old.iter().map(|m| m.short(size)).collect();
        let hidden: Vec<String> = best
            .steps
            .iter()
            .filter(|s| s.hidden)
            .map(|s| format!("{} {}", s.color.as_str(), s.point.to_gtp(size)))
            .collect();
        let why = if let Some(passer) = unseen_pass {
            format!(
                "a move of {} nobody saw (recorded as a pass), then the stones' order",
                passer.as_str()
            )
        } else if hidden.is_empty() {
            "the stones' order".to_string()
        } else {
            format!(
                "a stone nobody saw ({}, captured under hands)",
                hidden.join(", ")
            )
        };
        let note = format!(
            "revised after the fact: {why} explains the board; the record had {} here",
            before.join(" ")
        );
        for i in from..self.record.moves.len() {
            self.note_at(i, &note);
        }
        if unseen_pass.is_some() {
            self.note_at(
                from,
                "a move nobody saw: recorded as a pass (it may have been a stone placed and \
                 captured again under the hands, or a pass with no clock to press)",
            );
        }
        if ranked.len() > 1 {
            let p = Provisional {
                from: from + lead,
                orders: ranked.into_iter().map(|c| c.steps).collect(),
                recorded: 0,
            };
            self.mark_provisional(p);
        }
        // what was flagged about these stones meanwhile was no violation after all (a
        // revision the times alone asked for withdraws nothing: nothing was flagged for it)
        let mut revised_points: Vec<Point> = Vec::new();
        for s in &best.steps {
            if !revised_points.contains(&s.point) {
                revised_points.push(s.point);
            }
        }
        let Some(would_flag) = would_flag else {
            // the times alone asked for it: only a notice of a stone out of turn among these
            // stones lost its ground (the line alternates)
            let groundless: Vec<u32> = self
                .violations
                .iter()
                .filter(|v| {
                    v.open
                        && v.penalty == Penalty::Notice
                        && v.code == ViolationCode::TwoMovesInARow
                        && v.points.iter().all(|p| revised_points.contains(p))
                })
                .map(|v| v.id)
                .collect();
            for id in groundless {
                self.close(id, "revised");
            }
            return true;
        };
        let withdrawn: Vec<u32> = self
            .violations
            .iter()
            .filter(|v| v.open && v.points.iter().any(|p| revised_points.contains(p)))
            .map(|v| v.id)
            .collect();
        for id in withdrawn {
            self.close(id, "revised");
        }
        // the player whose move the revision changed (the first that differs), else the last
        let changed = best
            .steps
            .iter()
            .zip(
                old.iter()
                    .skip(lead)
                    .map(Some)
                    .chain(std::iter::repeat(None)),
            )
            .find(|(s, m)| {
                !s.hidden && m.is_none_or(|m| m.color != s.color || m.point != Some(s.point))
            })
            .map(|(s, _)| s);
        let color = unseen_pass
            .or(changed.or(best.steps.last()).map(|s| s.color))
            .unwrap_or(self.game.to_move());
        let points = revised_points;
        self.notice(
            would_flag,
            color,
            points,
            if before.is_empty() {
                format!(
                    "not flagged: {why} explains the board without it (moves {}-{} recorded so)",
                    from + 1,
                    self.record.moves.len(),
                )
            } else {
                format!(
                    "not flagged: {why} explains the board without it (moves {}-{} revised; the record had {})",
                    from + 1,
                    self.record.moves.len(),
                    before.join(" ")
                )
            },
            obs.grid,
        );
        true
    }
}

/// What looking back over the record's last moves found at one depth
/// ([`Referee::revision_at`]).
enum Revision {
    /// Nothing further back may be looked at.
    Stop,
    /// No line but the record's own.
    None,
    /// The game before those moves, the captured stones lying from before them, and the lines.
    Found(Box<Game>, Vec<Pending>, Vec<Candidate>),
}
