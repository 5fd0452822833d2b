//! The physical fuzzer's invariants ([`super`] module docs), checked on what a session
//! published and kept after playing a [`FuzzGame`]: no penalty in clean play, every move
//! recorded (exactly or provisionally in an order no sensor could tell), the feed never lagging
//! the board by more than [`MAX_LAG_MS`] once the stones are clear, and the record equal to
//! the feed.

use super::{FuzzGame, Outage, MAX_LAG_MS};
use crate::event::{Event, EventKind};
use crate::rules::{Color, Point};
use crate::sensing::TELL_APART_MS;

/// Time the host needs after the board is back on the wire before it has read it again, ms
/// of board time: the handshake, the board's history pulled and replayed, the stabiliser's
/// settle.
pub const RECONNECT_MS: u64 = 1_500;

/// What one fuzzed game came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    /// Moves of the game.
    pub moves: usize,
    /// Moves recorded.
    pub recorded: usize,
    /// The record is the game move for move.
    pub exact: bool,
    /// Moves in the record marked provisional at the end (their order not known for sure).
    pub provisional: usize,
    /// Moves held for the referee at the end (not in the record).
    pub held: usize,
    /// Violations that cost a player (a warning, a move made invalid, a loss), as
    /// `code (colour) at move N: detail`.
    pub penalties: Vec<String>,
    /// Notices to the referee (nothing charged), by code.
    pub notices: Vec<String>,
    /// Other violations left to the referee (no charge): by code.
    pub referee_calls: Vec<String>,
    /// Moves whose record is wrong or missing: what differs.
    pub wrong: Vec<String>,
    /// Moves published later than the invariant allows: `move N: lag ms`.
    pub late: Vec<String>,
    /// The largest lag of a move's first publication past its stones being clear, ms.
    pub max_lag_ms: u64,
    /// The feed's record and the session's differ: how.
    pub feed_mismatch: Option<String>,
    /// The phase at the end and the violations still open.
    pub end: String,
    /// Each `ambiguous` event's kind: `order` (the same stones in other orders), `hidden` (a
    /// stone placed and captured unseen in some), `out_of_turn` (a stone out of turn in some).
    pub ambiguities: Vec<&'static str>,
}

impl Findings {
    /// Every invariant holds.
    pub fn ok(&self) -> bool {
        self.penalties.is_empty()
            && self.wrong.is_empty()
            && self.late.is_empty()
            && self.feed_mismatch.is_none()
            && self.held == 0
    }

    /// The broken invariants, one line each.
    pub fn failures(&self) -> Vec<String> {
        let mut out = Vec::new();
        for p in &self.penalties {
            out.push(format!("penalty in clean play: {p}"));
        }
        for w in &self.wrong {
            out.push(format!("record: {w}"));
        }
        if self.held > 0 {
            out.push(format!(
                "{} moves held for the referee at the end",
                self.held
            ));
        }
        for l in &self.late {
            out.push(format!("feed late: {l}"));
        }
        if let Some(m) = &self.feed_mismatch {
            out.push(format!("record is not the feed: {m}"));
        }
        out
    }
}

/// What the session kept at the end of the game.
#[derive(Clone, Debug)]
pub struct Kept<'a> {
    /// The record's moves, in order.
    pub moves: Vec<(Color, Option<Point>)>,
    /// Move numbers (1-based) marked provisional.
    pub provisional: Vec<u32>,
    /// Moves held for the referee, not in the record.
    pub held: usize,
    /// The phase at the end and the codes of the violations still open (for the report).
    pub end: String,
    /// Every event published, with the board time, ms, at which it was published.
    pub events: &'a [(u64, Event)],
    /// Points per side.
    pub size: u8,
}

/// Checks the invariants of `game` (the moves it should give: `expected`) on what the session
/// kept; `hall`: the board read stones through Hall sensors (hands hide nothing).
pub fn check(game: &FuzzGame, expected: &[(Color, Option<Point>)], kept: &Kept<'_>) -> Findings {
    let mut f = Findings {
        moves: expected.len(),
        recorded: kept.moves.len(),
        provisional: kept.provisional.len(),
        held: kept.held,
        end: kept.end.clone(),
        ..Findings::default()
    };
    violations(kept.events, &mut f);
    record(game, expected, kept, &mut f);
    lag(game, kept.events, &mut f);
    f.feed_mismatch = feed_vs_record(kept);
    f.exact = kept.moves == expected;
    f
}

fn violations(events: &[(u64, Event)], f: &mut Findings) {
    for (_, e) in events {
        match &e.kind {
            EventKind::Ambiguous { candidates } => {
                let kind = if candidates.iter().flatten().any(|m| m.out_of_turn) {
                    "out_of_turn"
                } else if candidates.iter().flatten().any(|m| m.hidden) {
                    "hidden"
                } else {
                    "order"
                };
                f.ambiguities.push(kind);
            }
            EventKind::Violation {
                code,
                color,
                penalty,
                detail,
                evidence,
                ..
            } => {
                let line = format!(
                    "{code} ({}) at move {}: {detail}",
                    color.as_str(),
                    evidence.move_number
                );
                match *penalty {
                    "warning" | "move_invalid" | "loss" => f.penalties.push(line),
                    "notice" => f.notices.push(code.to_string()),
                    _ => f.referee_calls.push(code.to_string()),
                }
            }
            EventKind::Warning {
                color,
                count,
                reason,
            } if reason.is_some() => f.penalties.push(format!(
                "a warning to {} ({count}) by the referee",
                color.as_str()
            )),
            _ => {}
        }
    }
}

/// Every move recorded, exactly or provisionally reordered where the sensors could not tell.
fn record(game: &FuzzGame, expected: &[(Color, Option<Point>)], kept: &Kept<'_>, f: &mut Findings) {
    let got = &kept.moves;
    if got.len() != expected.len() {
        f.wrong.push(format!(
            "{} of {} moves recorded",
            got.len(),
            expected.len()
        ));
    }
    let provisional = |i: usize| kept.provisional.contains(&(i as u32 + 1));
    let lost = lost_history(&game.outages);
    let mut i = 0;
    while i < got.len().min(expected.len()) {
        if got[i] == expected[i] {
            i += 1;
            continue;
        }
        if !provisional(i) {
            f.wrong.push(format!(
                "move {}: {} for {}",
                i + 1,
                show(got[i]),
                show(expected[i])
            ));
            i += 1;
            continue;
        }
        // a provisional run: the same stones in another order, none of them told apart
        let mut j = i;
        while j < got.len().min(expected.len()) && provisional(j) {
            j += 1;
        }
        let mut a: Vec<_> = got[i..j].to_vec();
        let mut b: Vec<_> = expected[i..j].to_vec();
        a.sort_by_key(key);
        b.sort_by_key(key);
        if a != b {
            f.wrong.push(format!(
                "moves {}-{}: provisional {:?} are not the stones {:?}",
                i + 1,
                j,
                got[i..j].iter().map(|&m| show(m)).collect::<Vec<_>>(),
                expected[i..j].iter().map(|&m| show(m)).collect::<Vec<_>>()
            ));
        } else {
            for x in i..j {
                for y in i..j {
                    // true order x before y, recorded y before x: the sensors must not have
                    // told them apart (x seen clear before anything covered y's point) —
                    // as the host got the scans (what a board's lost history held was not
                    // seen before the board came back)
                    let (tx, ty) = (&game.moves[x], &game.moves[y]);
                    // within the run (a point played twice in a game is two moves)
                    let gx = got[i..j].iter().position(|&m| m == expected[x]);
                    let gy = got[i..j].iter().position(|&m| m == expected[y]);
                    let seen =
                        |t: u64| lost.iter().find(|w| w.contains(&t)).map_or(t, |w| *w.end());
                    let covered = |t: u64| {
                        lost.iter()
                            .find(|w| w.contains(&t))
                            .map_or(t, |w| *w.start())
                    };
                    if x < y
                        && gx > gy
                        && seen(tx.clear_ms) + TELL_APART_MS < covered(ty.covered_from_ms)
                    {
                        f.wrong.push(format!(
                            "moves {} and {} recorded in the wrong order though the first was clear {} ms before anything covered the second's point",
                            x + 1,
                            y + 1,
                            ty.covered_from_ms - tx.clear_ms
                        ));
                    }
                }
            }
        }
        i = j;
    }
}

/// The spans of board time, ms, whose scans the host never got: from the start of the
/// time away that a restart of the board fell in (or the restart itself) until the board was
/// back on the wire and had said so — through any time away that began before it had (a
/// cable pulled while the board was still coming back up).
fn lost_history(outages: &[Outage]) -> Vec<std::ops::RangeInclusive<u64>> {
    outages
        .iter()
        .filter(|r| r.history_lost)
        .map(|r| {
            let away = outages
                .iter()
                .filter(|o| o.from_ms <= r.from_ms && r.from_ms <= o.until_ms);
            let from = away.clone().map(|o| o.from_ms).min().unwrap_or(r.from_ms);
            let mut until = away.map(|o| o.until_ms).max().unwrap_or(r.until_ms) + RECONNECT_MS;
            while let Some(next) = outages
                .iter()
                .filter(|o| o.from_ms >= from && o.from_ms <= until)
                .map(|o| o.until_ms + RECONNECT_MS)
                .filter(|&end| end > until)
                .max()
            {
                until = next;
            }
            from..=until
        })
        .collect()
}

fn key(m: &(Color, Option<Point>)) -> (u8, Option<(u8, u8)>) {
    (m.0.index() as u8, m.1.map(|p| (p.x, p.y)))
}

fn show(m: (Color, Option<Point>)) -> String {
    match m.1 {
        Some(p) => format!("{} {}", m.0.sgf_letter(), p.to_sgf()),
        None => format!("{} pass", m.0.sgf_letter()),
    }
}

/// When move `k`'s publication is due: every stone up to it clear (its order known) plus
/// [`MAX_LAG_MS`], later when the board was away meanwhile.
fn due_ms(game: &FuzzGame, k: usize) -> u64 {
    let ready = game.moves[..=k]
        .iter()
        .map(|m| m.clear_ms)
        .max()
        .unwrap_or(0);
    let ready = after_outages(&game.outages, game.moves[k].landed_ms, ready);
    ready + MAX_LAG_MS
}

/// `ready_ms`, pushed past every outage that began before the move could be published.
fn after_outages(outages: &[Outage], landed_ms: u64, ready_ms: u64) -> u64 {
    let mut ready = ready_ms;
    for o in outages {
        // an outage that ends before the stone landed does not hold it up; one that begins
        // before it is published does
        if o.until_ms + RECONNECT_MS >= landed_ms && o.from_ms <= ready + MAX_LAG_MS {
            ready = ready.max(o.until_ms + RECONNECT_MS);
        }
    }
    ready
}

fn lag(game: &FuzzGame, events: &[(u64, Event)], f: &mut Findings) {
    let mut first: Vec<Option<u64>> = vec![None; game.moves.len()];
    for (at, e) in events {
        let n = match &e.kind {
            EventKind::Move { number, .. }
            | EventKind::Pass { number, .. }
            | EventKind::MoveCorrected { number, .. } => *number,
            _ => continue,
        };
        if let Some(slot) = n.checked_sub(1).and_then(|i| first.get_mut(i as usize)) {
            slot.get_or_insert(*at);
        }
    }
    for (k, at) in first.iter().enumerate() {
        let due = due_ms(game, k);
        let ready = due - MAX_LAG_MS;
        match at {
            Some(at) => {
                f.max_lag_ms = f.max_lag_ms.max(at.saturating_sub(ready));
                if *at > due {
                    f.late.push(format!(
                        "move {}: published at {} ms, {} ms after its stones were clear at {} ms",
                        k + 1,
                        at,
                        at - ready,
                        ready
                    ));
                }
            }
            None => f.late.push(format!("move {}: never published", k + 1)),
        }
    }
}

/// The record a follower of the feed holds after `events`: moves and passes in order, taken
/// back (`move_undone`) or corrected in place (`move_corrected`); points on a `size`×`size`
/// board. What a broadcaster shows, for comparing with the record the session kept.
pub fn feed_record<'a>(
    events: impl IntoIterator<Item = &'a EventKind>,
    size: u8,
) -> Vec<(Color, Option<Point>)> {
    let mut feed: Vec<(Color, Option<Point>)> = Vec::new();
    let before = |number: u32| (number as usize).saturating_sub(1);
    for e in events {
        match e {
            EventKind::Move {
                color, sgf, number, ..
            } => {
                feed.truncate(before(*number));
                feed.push((*color, Point::from_sgf(sgf, size).ok()));
            }
            EventKind::Pass { color, number } => {
                feed.truncate(before(*number));
                feed.push((*color, None));
            }
            EventKind::MoveUndone { number, .. } => feed.truncate(before(*number)),
            EventKind::MoveCorrected {
                number,
                color,
                point,
            } => {
                let p = point.as_deref().and_then(|g| Point::from_gtp(g, size).ok());
                if let Some(m) = feed.get_mut(before(*number)) {
                    *m = (*color, p);
                }
            }
            _ => {}
        }
    }
    feed
}

/// The record the feed describes ([`feed_record`]) against the one the session kept.
fn feed_vs_record(kept: &Kept<'_>) -> Option<String> {
    let feed = feed_record(kept.events.iter().map(|(_, e)| &e.kind), kept.size);
    (feed != kept.moves).then(|| {
        let i = feed
            .iter()
            .zip(&kept.moves)
            .position(|(a, b)| a != b)
            .unwrap_or(feed.len().min(kept.moves.len()));
        format!(
            "the feed has {} moves, the record {}; first difference at move {}: {:?} in the feed, {:?} in the record",
            feed.len(),
            kept.moves.len(),
            i + 1,
            feed.get(i).map(|&m| show(m)),
            kept.moves.get(i).map(|&m| show(m))
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outage(from_ms: u64, until_ms: u64, history_lost: bool) -> Outage {
        Outage {
            from_ms,
            until_ms,
            history_lost,
        }
    }

    #[test]
    fn a_restart_while_the_cable_is_out_loses_the_whole_time_away() {
        let outages = [
            outage(10_000, 18_000, false), // the cable out
            outage(12_000, 12_000, true),  // the board restarts meanwhile
            outage(30_000, 30_000, true),  // a restart while streaming
            outage(40_000, 41_000, false), // a pull that loses nothing
        ];
        assert_eq!(
            lost_history(&outages),
            [
                10_000..=18_000 + RECONNECT_MS,
                30_000..=30_000 + RECONNECT_MS
            ]
        );
    }

    #[test]
    fn a_cable_pulled_while_the_board_is_still_coming_back_up_loses_the_pull_too() {
        let outages = [
            outage(10_000, 10_000, true),  // the board restarts
            outage(10_012, 19_000, false), // the cable pulled before it is back
            outage(30_000, 31_000, false), // a pull long after: nothing lost
        ];
        assert_eq!(lost_history(&outages), [10_000..=19_000 + RECONNECT_MS]);
    }
}
