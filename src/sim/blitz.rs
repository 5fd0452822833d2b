//! Quick players ([`NoiseModel::Blitz`](super::NoiseModel::Blitz)): a game record played by
//! two people whose moves overlap, so the board as a whole hardly ever settles and the service
//! must still record every move in the order it was played.
//!
//! The players of [`super::player`] take turns on one timeline: hand in, stone down, hand out,
//! think, next move. Here each player has its own hand, and the two overlap as blitz players
//! do. With the numbers of [`Tempo`] (each a floor of untidiness, drawn uniformly from the
//! seeded generator, so a seed replays exactly):
//!
//! * a reply lands [`Tempo::reply_ms`] (0.3–1.2 s) after the opponent's stone landed; now and
//!   then ([`Tempo::close_reply_per_mille`], about 3% of the moves) the replier's hand was
//!   already there and its stone lands [`Tempo::close_reply_ms`] (40–150 ms) after the
//!   opponent's: two stones down within [`CLOSE_PAIR_MS`] of each other (planned one move
//!   ahead, where neither move has captures to lift, so the hands allow it);
//! * a hand is over its point from [`Tempo::hand_before_ms`] (100–400 ms) before its stone
//!   lands until [`Tempo::hand_stays_ms`] (20–300 ms) after the opponent's hand arrives over
//!   the opponent's point (never before its own stone is down; longer when the reply waits
//!   for captures to come off), so some hand is over the board at almost every moment;
//!   radius, wrong colours, bounces (when the hand lets go) and misreads come from the
//!   [`NoiseParams`];
//! * one hand per player: a player's next stone's hand arrives only after its previous hand
//!   lifted and its captures are all lifted, plus [`Tempo::hand_move_ms`] (50–150 ms);
//! * captured stones are lifted by the capturer after its hand left its stone, in any order,
//!   one at a time with a hand over each ([`NoiseParams::lift_hand_scans`]) and
//!   [`NoiseParams::capture_gap_ms`] apart; normally all before the opponent's next stone
//!   lands (its hand waits over its point), but for [`Tempo::late_capture_per_mille`] of the
//!   captures (a third) only after it; a stone never goes on a point whose captured stone
//!   still lies there;
//! * with a clock ([`PlayerOptions::press_clock`]) each player presses
//!   [`Tempo::press_ms`] (0–400 ms) after its stone lands, but never before its hand has
//!   lifted its captures and travelled to the clock ([`Tempo::hand_move_ms`]) nor before the
//!   opponent's previous press (its own clock must be running), and always before its next
//!   stone; the opponent's reply lands after that press (but for a close reply, which the
//!   press only just precedes); a pass button counts as the passer's press;
//! * whenever a rule above would be broken, the later act waits: the reply is stretched
//!   ([`Reply::Stretched`]). The game stays clean: nothing a referee would flag.
//!
//! The calm parts are played by [`super::player`]'s players with the calm fields of the
//! [`NoiseParams`], after everything before them has been done and settled: the setup stones,
//! the record moves a physical board cannot show (a play on an occupied point, a suicide, an
//! immediate ko retake: see [`super::player`]), a record move by the same colour as the one
//! before it, and an injected violation ([`super::inject`]). Passes are quick moves: the pass
//! button at the move's time, the passer's hand away from the board. A clock press is not a
//! hand over the board (the hands here are what the sensors see).
//!
//! [`timeline_with_report`] returns, next to the timeline, a [`BlitzReport`] of what the
//! players did: each record move's landing time, reply time and hands, and the close pairs.

use std::ops::{Range, RangeInclusive};

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::action::{Action, TimedAction};
use super::inject::{self, Injected};
use super::noise::{NoiseParams, Tempo};
use super::player::{Player, PlayerOptions, SCAN_MS};
use crate::referee::GameSetup;
use crate::rules::{Board, Color, Game, GameRecord, Point};

/// Two stones landing at most this far apart, ms, are a close pair: the service sees them in
/// one unsettled board (the stabiliser settles in 150 ms by default).
pub const CLOSE_PAIR_MS: u64 = 150;

/// When the game begins, ms from the board's first scan: the players sit down at a board the
/// service has read (and put in play) before any hand comes near it.
pub const START_MS: u64 = 1_000;

/// The least time between two acts that must come in order (a lift and a stone on its point,
/// a press and the next stone), ms: one scan.
const MARGIN_MS: u64 = SCAN_MS;

/// What the quick players did ([`timeline_with_report`]). Times are board time, ms, as in the
/// timeline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlitzReport {
    /// One entry per record move, in record order (index = record move index, from 0).
    pub moves: Vec<MoveTiming>,
    /// Indices of the record moves that landed within [`CLOSE_PAIR_MS`] of the stone before
    /// them (the [`Reply::Close`] ones), in order.
    pub close_pairs: Vec<usize>,
}

/// How one record move was played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveTiming {
    /// The mover.
    pub color: Color,
    /// The record's point; `None` for a pass.
    pub point: Option<Point>,
    /// When the stone landed (its `Place`) or the pass button was pressed, ms. For a calm move,
    /// its first `Place` on the record's point or its `Pass`; `None` if it has neither (a
    /// move an injection replaced).
    pub landed_ms: Option<u64>,
    /// Time from the previous stone's landing (or, after a calm part, from its end) to this
    /// landing, ms; `None` for a calm move.
    pub reply_ms: Option<u64>,
    /// How the reply was timed.
    pub reply: Reply,
    /// The mover's hand over the point, ms from..until (`None` for a pass or a calm move).
    pub hand_ms: Option<Range<u64>>,
    /// This move's captured stones as the mover lifted them, in the order lifted (empty for a
    /// calm move).
    pub lifts: Vec<Lift>,
    /// The captures were lifted late: only after the opponent's next stone or pass.
    pub late_captures: bool,
    /// The mover's clock press for this move, ms (`None` without a clock, for a pass, and for
    /// a calm move).
    pub press_ms: Option<u64>,
}

/// How a reply was timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// As drawn from [`Tempo::reply_ms`].
    Drawn,
    /// A close reply, as drawn from [`Tempo::close_reply_ms`].
    Close,
    /// Drawn, then delayed so no rule of the model breaks: the player's one hand was still
    /// busy (its previous stone, its captures), its previous press had not come yet, or the
    /// opponent was still lifting captures the reply waits for.
    Stretched {
        /// The reply time drawn, ms.
        drawn_ms: u64,
    },
    /// Played the calm way (module docs).
    Calm,
}

/// One captured stone lifted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lift {
    /// Where it lay.
    pub point: Point,
    /// The lifting hand over it, ms from..until.
    pub hand_ms: Range<u64>,
    /// When it left the board (its `Remove`), ms.
    pub removed_ms: u64,
}

/// Builds the timeline of `record` played by quick players with the tempo of
/// `params.tempo` ([`Tempo::default`] if it has none) and `options`; returns it (sorted by
/// time) with what was injected, if anything, and the [`BlitzReport`].
/// [`super::player::timeline_with`] calls this when the noise has a tempo.
pub fn timeline_with_report(
    record: &GameRecord,
    params: &NoiseParams,
    rng: &mut ChaCha8Rng,
    options: &PlayerOptions,
) -> (Vec<TimedAction>, Option<Injected>, BlitzReport) {
    let setup = GameSetup::from_record(record);
    let Ok(mut game) = Game::with_setup(setup.size(), &setup.setup, setup.first_to_move) else {
        return (Vec::new(), None, BlitzReport::default());
    };
    let mut b = Builder {
        params,
        tempo: params.tempo.clone().unwrap_or_default(),
        press_clock: options.press_clock,
        out: Vec::new(),
        horizon: START_MS,
        reference: START_MS,
        free: [START_MS; 2],
        press: [None; 2],
        pending: None,
        close_next: false,
        close_owed: false,
        moves: record
            .moves
            .iter()
            .map(|m| MoveTiming {
                color: m.color,
                point: m.point,
                landed_ms: None,
                reply_ms: None,
                reply: Reply::Calm,
                hand_ms: None,
                lifts: Vec::new(),
                late_captures: false,
                press_ms: None,
            })
            .collect(),
    };
    // the setup stones, calmly, as the sequential players put them
    let mut p = Player::new(params, rng, 0, options.press_clock);
    let mut placed = Board::new(setup.size()).unwrap_or_else(|_| game.board().clone());
    for &(color, point) in &setup.setup {
        p.put_stone(color, point, &placed);
        placed.put(point, Some(color));
        p.think();
    }
    let (actions, t) = p.finish();
    b.absorb(actions, t, 0..0);

    let mut injected: Option<Injected> = None;
    let mut skip = 0;
    for (k, mv) in record.moves.iter().enumerate() {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        if let Some(inj) = options
            .injection
            .filter(|i| injected.is_none() && k >= i.from_move)
        {
            // try on copies first: a calm stretch only where the violation can be committed
            let mut probe_rng = rng.clone();
            let mut probe_game = game.clone();
            let mut probe = Player::new(params, &mut probe_rng, 0, options.press_clock);
            if inject::perform(&mut probe, &mut probe_game, record, k, inj.kind).is_some() {
                let t = b.flush(rng);
                let mut p = Player::new(params, rng, t, options.press_clock);
                p.think();
                let done = inject::perform(&mut p, &mut game, record, k, inj.kind);
                if done.is_some() {
                    p.think();
                }
                let (actions, t) = p.finish();
                let consumed = done.as_ref().map_or(0, |d| d.consumed);
                b.absorb(actions, t, k..k + consumed);
                if let Some(done) = done {
                    skip = done.consumed - 1;
                    injected = Some(done);
                    continue;
                }
            }
        }
        let legal = match mv.point {
            None => Some(Vec::new()),
            Some(point) => game.preview(mv.color, point).ok().map(|p| p.captured),
        };
        let turn = b.pending.as_ref().is_none_or(|p| p.color != mv.color);
        match legal.filter(|_| turn) {
            Some(captured) => {
                let next = record.moves.get(k + 1).and_then(|n| {
                    (n.color == mv.color.opposite())
                        .then_some(n.point)
                        .flatten()
                        .map(|p| (n.color, p))
                });
                b.play(rng, &mut game, k, mv.color, mv.point, captured, next);
            }
            None => {
                let t = b.flush(rng);
                let mut p = Player::new(params, rng, t, options.press_clock);
                p.think();
                p.play_record_move(&mut game, mv.color, mv.point);
                p.think();
                let (actions, t) = p.finish();
                b.absorb(actions, t, k..k + 1);
            }
        }
    }
    b.flush(rng);
    let Builder { mut out, moves, .. } = b;
    out.sort_by_key(|a| a.at_ms);
    let close_pairs = moves
        .iter()
        .enumerate()
        .filter(|(_, m)| m.reply_ms.is_some_and(|r| r <= CLOSE_PAIR_MS))
        .map(|(i, _)| i)
        .collect();
    (out, injected, BlitzReport { moves, close_pairs })
}

/// A quick move whose hand has not lifted yet (it lifts once the opponent reaches in).
struct Pending {
    index: usize,
    color: Color,
    /// `None`: a pass (the hand was at the pass button).
    point: Option<Point>,
    arrive_ms: u64,
    landed_ms: u64,
    captured: Vec<Point>,
}

struct Builder<'a> {
    params: &'a NoiseParams,
    tempo: Tempo,
    press_clock: bool,
    /// Unsorted until the end.
    out: Vec<TimedAction>,
    /// The end of everything emitted so far (hands and bounces included), ms.
    horizon: u64,
    /// What the next reply counts from: the previous stone's landing, or the end of a calm
    /// part, ms.
    reference: u64,
    /// Per colour ([`Color::index`]): the earliest its hand may arrive for its next stone, ms.
    free: [u64; 2],
    /// Per colour: its latest clock press or pass, ms.
    press: [Option<u64>; 2],
    pending: Option<Pending>,
    /// The next move is to be a close reply (planned one move ahead, so the hands allow it).
    close_next: bool,
    /// A close reply was drawn and not yet planned.
    close_owed: bool,
    moves: Vec<MoveTiming>,
}

fn draw(rng: &mut ChaCha8Rng, range: &RangeInclusive<u64>) -> u64 {
    rng.random_range(range.clone())
}

/// `range` cut to end at `cap` (at its start if `cap` is below it).
fn capped(range: &RangeInclusive<u64>, cap: u64) -> RangeInclusive<u64> {
    *range.start()..=(*range.end()).min(cap).max(*range.start())
}

impl Builder<'_> {
    fn emit(&mut self, at_ms: u64, action: Action) {
        let end = match &action {
            Action::Hand { duration_ms, .. } => at_ms + duration_ms,
            Action::Bounce { scans, .. } => at_ms + u64::from(*scans) * SCAN_MS,
            _ => at_ms,
        };
        self.horizon = self.horizon.max(end);
        self.out.push(TimedAction { at_ms, action });
    }

    /// Plays quick record move `k`: `color` on `point` (`None`: a pass), legal and in turn,
    /// capturing `captured`; `next` is the next record move if it is the opponent's stone.
    #[allow(clippy::too_many_arguments)]
    fn play(
        &mut self,
        rng: &mut ChaCha8Rng,
        game: &mut Game,
        k: usize,
        color: Color,
        point: Option<Point>,
        captured: Vec<Point>,
        next: Option<(Color, Point)>,
    ) {
        let me = color.index();
        let them = color.opposite().index();
        // a close reply planned one move ahead: the stone lands 40–150 ms after the
        // opponent's, the hand arriving about when that one lands, yet after this player's
        // hand was free
        let mut close = None;
        if std::mem::take(&mut self.close_next) && point.is_some() {
            let (prev, free) = (self.reference, self.free[me]);
            let range = &self.tempo.close_reply_ms;
            let lo = (*range.start())
                .max((free + self.tempo.hand_before_ms.start()).saturating_sub(prev));
            if lo <= *range.end() {
                let d = rng.random_range(lo..=*range.end());
                let hb = draw(rng, &capped(&self.tempo.hand_before_ms, prev + d - free));
                close = Some((d, hb));
            }
        }
        let (drawn, hb) = match close {
            Some(close) => close,
            None => (
                draw(rng, &self.tempo.reply_ms),
                draw(rng, &self.tempo.hand_before_ms),
            ),
        };
        // one hand: it arrives once free; and the previous press comes before the next stone
        let mut landed = (self.reference + drawn).max(self.free[me] + hb);
        if self.press_clock {
            if let Some(pressed) = self.press[me] {
                landed = landed.max(pressed + MARGIN_MS);
            }
        }
        let arrive = landed - hb;
        // plan the opponent's reply to this stone as a close one? Drawn for every move; one
        // drawn where it cannot be (captures to lift, a pass or a calm move next) is owed to
        // the next move where it can
        if rng.random_range(0..1000) < self.tempo.close_reply_per_mille {
            self.close_owed = true;
        }
        let plan = self.close_owed
            && close.is_none()
            && point.is_some()
            && captured.is_empty()
            && self.pending.as_ref().is_none_or(|p| p.captured.is_empty())
            && next.is_some_and(|(c, q)| {
                let mut after = game.clone();
                after.play(color, point).is_ok() && after.preview(c, q).is_ok()
            });
        if plan {
            self.close_owed = false;
        }
        // the opponent's hand lifts now that this hand reached in; its captures follow
        if let Some(p) = self.pending.take() {
            let mut m = draw(rng, &self.tempo.hand_move_ms);
            let stays = if plan {
                // the opponent's hand must be free again in time for its close reply
                let slack = self
                    .tempo
                    .close_reply_ms
                    .end()
                    .saturating_sub(*self.tempo.hand_before_ms.start());
                let by = landed + slack;
                m = m
                    .min(by.saturating_sub(arrive + self.tempo.hand_stays_ms.start()))
                    .max(*self.tempo.hand_move_ms.start());
                capped(&self.tempo.hand_stays_ms, by.saturating_sub(arrive + m))
            } else {
                self.tempo.hand_stays_ms.clone()
            };
            let leave = (arrive + draw(rng, &stays)).max(p.landed_ms + MARGIN_MS);
            let next_stone = point.map(|q| (landed, q));
            let (end, last_removal, late) = self.release(rng, &p, leave, next_stone);
            self.free[them] = end + m;
            if let (Some(removed), false) = (last_removal, late) {
                // the reply waits for the captures to come off; its hand comes back over its
                // point as it would have, before the stone lands (nobody holds a hand over a
                // point for the seconds it takes to lift a big group)
                landed = landed.max(removed + MARGIN_MS);
            }
            // a stone played where a captured stone was: its hand comes over that point only
            // once the lifting hand has left it (two hands are not over one point)
            if let Some(lift) = self.moves[p.index]
                .lifts
                .iter()
                .find(|l| Some(l.point) == point)
            {
                landed = landed.max(lift.hand_ms.end + MARGIN_MS + hb);
            }
            // with a close reply planned, the opponent presses before it; a close reply lands
            // just after the opponent's press
            let cap = if plan {
                (landed + MARGIN_MS).saturating_sub(p.landed_ms)
            } else if close.is_some() {
                landed.saturating_sub(MARGIN_MS + p.landed_ms)
            } else {
                u64::MAX
            };
            // the press comes from the lifting hand, once it has left the last stone
            self.press_for(rng, &p, last_removal.map(|_| end), cap);
            if self.press_clock && !plan {
                // the reply waits for its own clock to run: the opponent's press
                if let Some(pressed) = self.press[them] {
                    landed = landed.max(pressed + MARGIN_MS);
                }
            }
        }
        match point {
            Some(point) => self.emit(landed, Action::Place { color, point }),
            None => {
                if self.press_clock {
                    if let Some(pressed) = self.press[them] {
                        // the passer's clock must be running
                        landed = landed.max(pressed + MARGIN_MS);
                    }
                }
                self.press[me] = Some(landed);
                self.emit(landed, Action::Pass(color));
            }
        }
        let _ = game.play(color, point);
        let reply_ms = landed - self.reference;
        let m = &mut self.moves[k];
        m.landed_ms = Some(landed);
        m.reply_ms = Some(reply_ms);
        m.reply = match close {
            _ if reply_ms != drawn => Reply::Stretched { drawn_ms: drawn },
            Some(_) => Reply::Close,
            None => Reply::Drawn,
        };
        self.pending = Some(Pending {
            index: k,
            color,
            point,
            arrive_ms: arrive.max(landed.saturating_sub(hb)),
            landed_ms: landed,
            captured,
        });
        self.reference = landed;
        self.close_next = plan;
    }

    /// Ends the quick part: the last hand lifts, its captures and press follow. Returns the
    /// end of everything so far, ms.
    fn flush(&mut self, rng: &mut ChaCha8Rng) -> u64 {
        self.close_next = false;
        if let Some(p) = self.pending.take() {
            let leave = p.landed_ms + draw(rng, &self.tempo.hand_stays_ms).max(MARGIN_MS);
            let (end, last_removal, _) = self.release(rng, &p, leave, None);
            self.free[p.color.index()] = end;
            self.press_for(rng, &p, last_removal.map(|_| end), u64::MAX);
        }
        self.horizon
    }

    /// The hand of pending move `p` lifts at `leave_ms` (its stone bouncing as it lets go),
    /// then lifts the move's captures one by one, in a random order: late (only after
    /// `next`'s stone, the opponent's next stone and its point, is down) for a share of them
    /// if that stone is not on a captured point. Returns when the hand is done, the last
    /// removal, and whether the captures were late.
    fn release(
        &mut self,
        rng: &mut ChaCha8Rng,
        p: &Pending,
        leave_ms: u64,
        next: Option<(u64, Point)>,
    ) -> (u64, Option<u64>, bool) {
        if let Some(point) = p.point {
            // The palm over the point and around it while placing, until the stone is down
            // and the fingers let go; then the fingers over the stone alone, until the
            // opponent reaches in.
            let radius = rng.random_range(self.params.hand_radius.clone());
            let palm_until = (p.landed_ms + draw(rng, &self.tempo.palm_after_ms)).min(leave_ms);
            if radius > 0 {
                self.emit(
                    p.arrive_ms,
                    Action::Hand {
                        center: point,
                        radius,
                        duration_ms: palm_until - p.arrive_ms,
                    },
                );
            }
            self.emit(
                p.arrive_ms,
                Action::Hand {
                    center: point,
                    radius: 0,
                    duration_ms: leave_ms - p.arrive_ms,
                },
            );
            let scans = rng.random_range(self.params.bounce_scans.clone());
            if scans > 0 {
                self.emit(leave_ms, Action::Bounce { point, scans });
            }
            self.moves[p.index].hand_ms = Some(p.arrive_ms..leave_ms);
        }
        if p.captured.is_empty() {
            return (leave_ms, None, false);
        }
        let late = next.is_some_and(|(_, q)| !p.captured.contains(&q))
            && rng.random_range(0..1000) < self.tempo.late_capture_per_mille;
        let mut t = match next {
            Some((landed, _)) if late => leave_ms.max(landed),
            _ => leave_ms,
        };
        let gap = self
            .params
            .capture_gap_ms
            .clone()
            .unwrap_or(self.params.capture_together_ms..=self.params.capture_together_ms);
        let mut order = p.captured.clone();
        order.shuffle(rng);
        let mut lifts = Vec::with_capacity(order.len());
        for point in order {
            t += draw(rng, &gap);
            let scans = rng.random_range(self.params.lift_hand_scans.clone());
            let held = u64::from(scans) * SCAN_MS;
            let removed_ms = t + u64::from(scans / 2) * SCAN_MS;
            if scans > 0 {
                let radius = rng.random_range(self.params.hand_radius.clone());
                self.emit(
                    t,
                    Action::Hand {
                        center: point,
                        radius,
                        duration_ms: held,
                    },
                );
            }
            self.emit(
                removed_ms,
                Action::Remove {
                    points: vec![point],
                },
            );
            lifts.push(Lift {
                point,
                hand_ms: t..t + held,
                removed_ms,
            });
            t += held;
        }
        let last = lifts.last().map(|l| l.removed_ms);
        let m = &mut self.moves[p.index];
        m.lifts = lifts;
        m.late_captures = late;
        (t, last, late)
    }

    /// The clock press of pending stone move `p` (with a clock): [`Tempo::press_ms`] after
    /// its landing, cut to `cap_ms`, but after its hand lifted its last capture (`lifted_ms`,
    /// the lifting hand's end) and after the opponent's previous press.
    fn press_for(
        &mut self,
        rng: &mut ChaCha8Rng,
        p: &Pending,
        lifted_ms: Option<u64>,
        cap_ms: u64,
    ) {
        if !self.press_clock || p.point.is_none() {
            return;
        }
        let mut at = p.landed_ms + draw(rng, &capped(&self.tempo.press_ms, cap_ms));
        if let Some(lifted) = lifted_ms {
            // the hand travels from the last captured stone to the clock
            at = at.max(lifted + draw(rng, &self.tempo.hand_move_ms).max(MARGIN_MS));
        }
        if let Some(pressed) = self.press[p.color.opposite().index()] {
            at = at.max(pressed + MARGIN_MS);
        }
        self.press[p.color.index()] = Some(at);
        self.moves[p.index].press_ms = Some(at);
        self.emit(at, Action::Clock(p.color));
    }

    /// Takes in a calm part that ended at `t_ms` (after its last pause) and played the
    /// record moves `moves`: their landings, its presses and passes; both hands are free
    /// after it.
    fn absorb(&mut self, actions: Vec<TimedAction>, t_ms: u64, moves: Range<usize>) {
        for k in moves {
            let m = &mut self.moves[k];
            m.landed_ms = actions
                .iter()
                .find(|a| match (&a.action, m.point) {
                    (Action::Place { color, point }, Some(p)) => *color == m.color && *point == p,
                    (Action::Pass(c), None) => *c == m.color,
                    _ => false,
                })
                .or_else(|| {
                    actions
                        .iter()
                        .find(|a| matches!(a.action, Action::Pass(c) if c == m.color))
                })
                .map(|a| a.at_ms);
        }
        for a in actions {
            if let Action::Clock(c) | Action::Pass(c) = a.action {
                self.press[c.index()] = Some(a.at_ms);
            }
            self.emit(a.at_ms, a.action);
        }
        self.free = [self.horizon; 2];
        self.reference = t_ms.max(self.horizon);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};

    use rand::SeedableRng;

    use super::*;
    use crate::sim::inject::{Injection, InjectionKind};
    use crate::sim::noise::NoiseModel;
    use crate::sim::player;

    /// The built-in game and the real games of tests/fixtures/games.
    fn games() -> Vec<(String, GameRecord)> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path
                    .extension()
                    .is_some_and(|x| x.eq_ignore_ascii_case("sgf"))
                {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        walk(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/games"),
            &mut files,
        );
        files.sort();
        let mut games = vec![(
            "built-in".to_string(),
            GameRecord::from_sgf_bytes(crate::cli::source::BUILTIN_GAME).unwrap(),
        )];
        for f in files {
            let record = GameRecord::from_sgf_bytes(&std::fs::read(&f).unwrap()).unwrap();
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            games.push((name, record));
        }
        games
    }

    fn builtin() -> GameRecord {
        GameRecord::from_sgf_bytes(crate::cli::source::BUILTIN_GAME).unwrap()
    }

    fn build(
        record: &GameRecord,
        seed: u64,
        press_clock: bool,
        injection: Option<Injection>,
    ) -> (Vec<TimedAction>, Option<Injected>, BlitzReport) {
        let params = NoiseModel::Blitz.params();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        timeline_with_report(
            record,
            &params,
            &mut rng,
            &PlayerOptions {
                press_clock,
                injection,
            },
        )
    }

    /// Plays Place/Remove/Slide in order on a plain board; with `strict`, a stone put on a
    /// point holding one fails.
    fn replay(timeline: &[TimedAction], size: u8, strict: bool) -> Vec<Option<Color>> {
        let mut board = vec![None; usize::from(size) * usize::from(size)];
        for a in timeline {
            match &a.action {
                Action::Place { color, point } => {
                    let i = point.index(size);
                    assert!(
                        !strict || board[i].is_none(),
                        "a stone put on {} at {} ms, where a stone lies",
                        point.to_gtp(size),
                        a.at_ms
                    );
                    board[i] = Some(*color);
                }
                Action::Remove { points } => {
                    for p in points {
                        board[p.index(size)] = None;
                    }
                }
                Action::Slide { from, to } => {
                    let stone = board[from.index(size)].take();
                    assert!(!strict || board[to.index(size)].is_none());
                    board[to.index(size)] = stone;
                }
                _ => {}
            }
        }
        board
    }

    /// The final position as the sequential players leave it.
    fn final_position(record: &GameRecord) -> Vec<Option<Color>> {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let timeline = player::timeline_from_record(record, &NoiseModel::Clean.params(), &mut rng);
        replay(&timeline, record.info.size, false)
    }

    fn quick(m: &MoveTiming) -> bool {
        m.reply != Reply::Calm
    }

    /// Fraction of `from..until` with no hand over the board.
    fn no_hand_fraction(timeline: &[TimedAction], from: u64, until: u64) -> f64 {
        let mut spans: Vec<(u64, u64)> = timeline
            .iter()
            .filter_map(|a| match a.action {
                Action::Hand { duration_ms, .. } => Some((a.at_ms, a.at_ms + duration_ms)),
                _ => None,
            })
            .collect();
        spans.sort();
        let mut covered = 0;
        let mut reach = from;
        for (s, e) in spans {
            let (s, e) = (s.max(reach), e.min(until));
            if e > s {
                covered += e - s;
                reach = e;
            }
        }
        1.0 - covered as f64 / (until - from) as f64
    }

    /// The span of the record's moves: the first record move's hand to the last action.
    fn record_span(timeline: &[TimedAction], report: &BlitzReport) -> (u64, u64) {
        let first = &report.moves[0];
        let from = first
            .hand_ms
            .as_ref()
            .map(|h| h.start)
            .or(first.landed_ms)
            .unwrap();
        let until = timeline
            .iter()
            .map(|a| match a.action {
                Action::Hand { duration_ms, .. } => a.at_ms + duration_ms,
                _ => a.at_ms,
            })
            .max()
            .unwrap();
        (from, until)
    }

    #[test]
    fn the_noise_flag_names_blitz() {
        assert_eq!("blitz".parse::<NoiseModel>(), Ok(NoiseModel::Blitz));
        assert_eq!(NoiseModel::Blitz.to_string(), "blitz");
        assert!("quick"
            .parse::<NoiseModel>()
            .unwrap_err()
            .contains("clean, realistic, harsh or blitz"));
        assert_eq!(NoiseModel::Blitz.params().tempo, Some(Tempo::default()));
        for m in [NoiseModel::Clean, NoiseModel::Realistic, NoiseModel::Harsh] {
            assert_eq!(m.params().tempo, None, "{m}");
        }
    }

    #[test]
    fn timelines_are_sorted_and_end_on_the_final_position_without_stacking_stones() {
        for (name, record) in games() {
            let expected = final_position(&record);
            for (seed, press) in [(1, false), (2, true), (3, false)] {
                let (timeline, _, report) = build(&record, seed, press, None);
                assert!(
                    timeline.windows(2).all(|w| w[0].at_ms <= w[1].at_ms),
                    "{name} seed {seed}: not sorted"
                );
                assert_eq!(report.moves.len(), record.moves.len());
                let board = replay(&timeline, record.info.size, true);
                assert_eq!(board, expected, "{name} seed {seed}: final position");
            }
        }
    }

    #[test]
    fn replies_are_drawn_close_or_stretched_and_land_where_reported() {
        let tempo = Tempo::default();
        for (name, record) in games() {
            for seed in 1..=3 {
                let (timeline, _, report) = build(&record, seed, seed == 2, None);
                let landed_at = |at_ms: u64, action: &Action| {
                    timeline
                        .iter()
                        .any(|a| a.at_ms == at_ms && a.action == *action)
                };
                let mut previous: Option<u64> = None;
                for (k, m) in report.moves.iter().enumerate() {
                    let landed = m.landed_ms;
                    if quick(m) {
                        let landed = landed.unwrap();
                        let action = match m.point {
                            Some(point) => Action::Place {
                                color: m.color,
                                point,
                            },
                            None => Action::Pass(m.color),
                        };
                        assert!(landed_at(landed, &action), "{name} {k}: no landing");
                        let reply = m.reply_ms.unwrap();
                        match m.reply {
                            Reply::Drawn => assert!(tempo.reply_ms.contains(&reply)),
                            Reply::Close => assert!(tempo.close_reply_ms.contains(&reply)),
                            Reply::Stretched { drawn_ms } => {
                                assert!(reply > drawn_ms, "{name} {k}");
                                assert!(
                                    tempo.reply_ms.contains(&drawn_ms)
                                        || tempo.close_reply_ms.contains(&drawn_ms)
                                );
                            }
                            Reply::Calm => unreachable!(),
                        }
                        // close pairs, measured on the landings themselves
                        let close = previous.is_some_and(|p| landed - p <= CLOSE_PAIR_MS);
                        assert_eq!(close, report.close_pairs.contains(&k), "{name} {k}");
                        if let Some(hand) = &m.hand_ms {
                            assert!(hand.start + tempo.hand_before_ms.start() <= landed);
                            assert!(hand.end >= landed + MARGIN_MS);
                        }
                        previous = Some(landed);
                    } else {
                        assert_eq!(m.reply_ms, None);
                        assert!(!report.close_pairs.contains(&k));
                        previous = None;
                    }
                }
            }
        }
    }

    #[test]
    fn a_hand_stays_until_the_opponent_reaches_in_so_the_board_hardly_ever_settles() {
        let tempo = Tempo::default();
        let record = builtin();
        for seed in 1..=5 {
            let (timeline, _, report) = build(&record, seed, false, None);
            for w in report.moves.windows(2) {
                let (Some(hand), Some(next)) = (&w[0].hand_ms, &w[1].hand_ms) else {
                    continue;
                };
                if matches!(w[1].reply, Reply::Stretched { .. }) && !w[0].lifts.is_empty() {
                    // the reply waited for these captures: its hand came back over its point
                    // only after they were off, long after this hand had lifted
                    assert!(next.start >= hand.end);
                    continue;
                }
                // the hand lifts 20–300 ms after the opponent's hand arrives (or, if that one
                // came before the stone was down, just after the stone)
                assert!(hand.end >= next.start + tempo.hand_stays_ms.start());
                assert!(
                    hand.end <= next.start + tempo.hand_stays_ms.end()
                        || hand.end == w[0].landed_ms.unwrap() + MARGIN_MS
                );
            }
            let (from, until) = record_span(&timeline, &report);
            let idle = no_hand_fraction(&timeline, from, until);
            assert!(
                idle < 0.01,
                "seed {seed}: no hand {:.1}% of the time",
                idle * 100.0
            );
        }
    }

    #[test]
    fn each_player_has_one_hand() {
        for (name, record) in games() {
            for seed in 1..=3 {
                let (timeline, _, report) = build(&record, seed, seed == 1, None);
                let mut hands: HashMap<(u64, Point, u64), usize> = HashMap::new();
                for a in &timeline {
                    if let Action::Hand {
                        center,
                        duration_ms,
                        ..
                    } = a.action
                    {
                        *hands
                            .entry((a.at_ms, center, a.at_ms + duration_ms))
                            .or_default() += 1;
                    }
                }
                let mut spans: [Vec<Range<u64>>; 2] = [Vec::new(), Vec::new()];
                for m in &report.moves {
                    let mut take = |point: Point, span: &Range<u64>| {
                        let n = hands.get_mut(&(span.start, point, span.end));
                        let n = n.unwrap_or_else(|| panic!("{name}: a reported hand is missing"));
                        assert!(*n > 0);
                        *n -= 1;
                        spans[m.color.index()].push(span.clone());
                    };
                    if let (Some(point), Some(hand)) = (m.point, &m.hand_ms) {
                        take(point, hand);
                    }
                    for lift in &m.lifts {
                        assert!(lift.hand_ms.contains(&lift.removed_ms));
                        take(lift.point, &lift.hand_ms);
                    }
                }
                let all: Vec<Range<u64>> = spans.iter().flatten().cloned().collect();
                for spans in &mut spans {
                    spans.sort_by_key(|s| s.start);
                    for w in spans.windows(2) {
                        assert!(
                            w[1].start >= w[0].end + 50,
                            "{name} seed {seed}: one player's hands overlap: {:?} {:?}",
                            w[0],
                            w[1]
                        );
                    }
                }
                // the other hands are the calm parts': they overlap no quick hand
                for (&(from, _, until), &n) in &hands {
                    if n > 0 {
                        assert!(
                            all.iter().all(|s| until <= s.start || from >= s.end),
                            "{name} seed {seed}: a calm hand {from}..{until} among quick ones"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn captures_come_off_one_at_a_time_in_any_order_a_third_of_them_late() {
        let tempo = Tempo::default();
        let params = NoiseModel::Blitz.params();
        let gap = params.capture_gap_ms.clone().unwrap();
        let (mut captures, mut late, mut unsorted) = (0, 0, 0);
        for (name, record) in games() {
            for seed in 1..=3 {
                let (_, _, report) = build(&record, seed, false, None);
                for (k, m) in report.moves.iter().enumerate() {
                    if m.lifts.is_empty() {
                        continue;
                    }
                    let hand = m.hand_ms.clone().unwrap();
                    let mut from = hand.end;
                    for lift in &m.lifts {
                        let waited = lift.hand_ms.start - from;
                        assert!(gap.contains(&waited) || m.late_captures, "{name} {k}");
                        assert!(params.lift_hand_scans.contains(
                            &((lift.hand_ms.end - lift.hand_ms.start) / SCAN_MS)
                                .try_into()
                                .unwrap()
                        ));
                        from = lift.hand_ms.end;
                    }
                    let points: Vec<Point> = m.lifts.iter().map(|l| l.point).collect();
                    let mut sorted = points.clone();
                    sorted.sort_by_key(|p| (p.y, p.x));
                    if points.len() > 1 && points != sorted {
                        unsorted += 1;
                    }
                    let last = m.lifts.last().unwrap().removed_ms;
                    let Some(next) = report.moves.get(k + 1).filter(|n| quick(n)) else {
                        continue;
                    };
                    let next_landed = next.landed_ms.unwrap();
                    captures += 1;
                    if m.late_captures {
                        late += 1;
                        assert!(m.lifts[0].removed_ms > next_landed, "{name} {k}");
                    } else {
                        assert!(next_landed > last, "{name} {k}: a normal capture");
                    }
                }
            }
        }
        let share = f64::from(late) / f64::from(captures);
        assert!(captures > 300, "{captures} captures");
        assert!((0.25..0.42).contains(&share), "{late} of {captures} late");
        assert!(unsorted > 20, "lifted in record order: {unsorted}");
        let _ = tempo;
    }

    #[test]
    fn presses_come_after_the_stone_its_captures_and_the_opponents_press() {
        for (name, record) in games() {
            for seed in 1..=3 {
                let (timeline, _, report) = build(&record, seed, true, None);
                let moves = &report.moves;
                for (k, m) in moves.iter().enumerate() {
                    if !quick(m) {
                        continue;
                    }
                    let pressed = match m.point {
                        Some(_) => m.press_ms.unwrap(),
                        None => m.landed_ms.unwrap(),
                    };
                    assert!(pressed >= m.landed_ms.unwrap());
                    if let Some(last) = m.lifts.last() {
                        assert!(pressed > last.removed_ms, "{name} {k}: before the captures");
                    }
                    if let Some(prev) = k.checked_sub(1).map(|i| &moves[i]).filter(|p| quick(p)) {
                        let before = prev
                            .press_ms
                            .or(prev.landed_ms.filter(|_| prev.point.is_none()));
                        assert!(
                            pressed > before.unwrap(),
                            "{name} {k}: before the opponent's"
                        );
                    }
                    if let Some(next) = moves[k + 1..]
                        .iter()
                        .find(|n| n.color == m.color)
                        .filter(|n| quick(n))
                    {
                        assert!(
                            pressed < next.landed_ms.unwrap(),
                            "{name} {k}: after the next stone"
                        );
                    }
                }
                // in a game played all quick, presses (and passes) alternate
                if moves.iter().all(quick) {
                    let presses: Vec<Color> = timeline
                        .iter()
                        .filter_map(|a| match a.action {
                            Action::Clock(c) | Action::Pass(c) => Some(c),
                            _ => None,
                        })
                        .collect();
                    assert_eq!(presses.len(), moves.len(), "{name}");
                    assert!(
                        presses.windows(2).all(|w| w[0] != w[1]),
                        "{name} seed {seed}"
                    );
                }
            }
        }
    }

    #[test]
    fn about_three_moves_in_a_hundred_land_within_150_ms_of_the_one_before() {
        let (mut close, mut moves) = (0, 0);
        for (_, record) in games() {
            for seed in 1..=4 {
                let (_, _, report) = build(&record, seed, seed % 2 == 0, None);
                close += report.close_pairs.len();
                moves += report.moves.len();
            }
        }
        let rate = close as f64 / moves as f64;
        assert!(
            (0.02..0.04).contains(&rate),
            "{close} close pairs in {moves} moves"
        );
    }

    #[test]
    fn a_seed_replays_exactly() {
        let record = builtin();
        let a = build(&record, 7, true, None);
        assert_eq!(a, build(&record, 7, true, None));
        assert_ne!(a.0, build(&record, 8, true, None).0);
        // through the player module and the source, as the virtual board takes it
        let params = NoiseModel::Blitz.params();
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let options = PlayerOptions {
            press_clock: true,
            injection: None,
        };
        assert_eq!(
            player::timeline_with(&record, &params, &mut rng, &options).0,
            a.0
        );
    }

    #[test]
    fn injected_violations_are_committed_calmly_among_quick_moves() {
        let record = builtin();
        let expected = final_position(&record);
        for kind in InjectionKind::ALL {
            let injection = Some(Injection {
                kind,
                from_move: 30,
            });
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            let calm = player::timeline_with(
                &record,
                &NoiseModel::Realistic.params(),
                &mut rng,
                &PlayerOptions {
                    press_clock: true,
                    injection,
                },
            );
            let (timeline, injected, report) = build(&record, 3, true, injection);
            assert_eq!(injected.is_some(), calm.1.is_some(), "{kind:?}");
            let Some(injected) = injected else { continue };
            assert_eq!(injected.code, kind.code());
            assert!(timeline.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
            assert_eq!(replay(&timeline, 19, false), expected, "{kind:?}");
            let at = injected.at_move;
            assert_eq!(report.moves[at].reply, Reply::Calm);
            assert!(report.moves[at + injected.consumed..]
                .iter()
                .take(5)
                .all(quick));
        }
    }

    /// Sums over runs, for [`measurements`].
    #[derive(Default)]
    struct Tally {
        span_ms: u64,
        idle_ms: f64,
        moves: usize,
        close: usize,
        quick: usize,
        reply_ms: u64,
        stretched: usize,
        captures: usize,
        after_next: usize,
    }

    /// The measurements: `cargo test --lib sim::blitz -- --nocapture measurements`.
    #[test]
    fn measurements() {
        let games = games();
        let runs: [(&str, Vec<(&GameRecord, u64)>); 2] = [
            (
                "built-in game, seeds 1-5",
                (1..=5).map(|s| (&games[0].1, s)).collect(),
            ),
            (
                "12 fixture games, seed 1",
                games[1..].iter().map(|(_, r)| (r, 1)).collect(),
            ),
        ];
        for (label, runs) in runs {
            let mut t = Tally::default();
            for (record, seed) in runs {
                let (timeline, _, report) = build(record, seed, true, None);
                let (from, until) = record_span(&timeline, &report);
                t.span_ms += until - from;
                t.idle_ms += no_hand_fraction(&timeline, from, until) * (until - from) as f64;
                t.moves += report.moves.len();
                t.close += report.close_pairs.len();
                for (k, m) in report.moves.iter().enumerate() {
                    if quick(m) {
                        t.quick += 1;
                        t.reply_ms += m.reply_ms.unwrap();
                        t.stretched += usize::from(matches!(m.reply, Reply::Stretched { .. }));
                    }
                    let next = report.moves.get(k + 1).and_then(|n| n.landed_ms);
                    if let (Some(last), Some(next)) = (m.lifts.last(), next) {
                        t.captures += 1;
                        t.after_next += usize::from(last.removed_ms > next);
                    }
                }
            }
            println!(
                "{label}: a hand over the board {:.2}% of the time, close pairs {:.2}% of moves \
                 ({} of {}), mean reply {:.0} ms, stretched {:.1}%, captures with a stone still \
                 lying when the next stone lands {:.1}% ({} of {})",
                100.0 - t.idle_ms / t.span_ms as f64 * 100.0,
                t.close as f64 / t.moves as f64 * 100.0,
                t.close,
                t.moves,
                t.reply_ms as f64 / t.quick as f64,
                t.stretched as f64 / t.quick as f64 * 100.0,
                t.after_next as f64 / t.captures as f64 * 100.0,
                t.after_next,
                t.captures,
            );
        }
    }
}
