//! Violations committed on purpose by the virtual players, to test the referee on real games.
//!
//! An [`Injection`] names a kind of violation and the first record move from which to look
//! for a suitable moment; the players then commit it physically (an extra stone, a lifted
//! stone, a stone pushed, a clock pressed too early, …), wait for the referee, put the board
//! right as the referee requires, and go on with the record. [`Injected`] says what the
//! referee must report (code, offender, points) and which passes the rules add to the record
//! (R18.3, R19 and C5/O13 count an invalid move as a pass, so the other side passes back to
//! keep the record's order).

use rand::Rng;

use super::action::Action;
use super::player::Player;
use crate::rules::{Board, Color, Game, GameRecord, Point, ViolationCode};

/// The kinds of violation the players can commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InjectionKind {
    /// R17.2: an extra stone right after the player's own move, lifted again.
    TwoMovesInARow,
    /// R17.3: the committed stone lifted and played elsewhere, then put back.
    Takeback,
    /// R17.4: the clock pressed before the stone is down.
    ClockBeforeStone,
    /// R17.5: a stone pushed to a free neighbouring point, then pushed back.
    MovedStone,
    /// R17.6: four stones knocked off the board, then put back.
    BoardDisturbed,
    /// R18.1: an opponent stone with liberties lifted with the move, then put back.
    WrongCapture,
    /// R18.2: captured stones left on the board until after the opponent's reply.
    MissedCapture,
    /// R18.3/R20.1: a ko retaken at once, then undone.
    KoRecapture,
    /// R19: a stone on a forbidden point, then lifted.
    ForbiddenPoint,
    /// R22.6: the clock pressed before the captured stones are lifted.
    ClockBeforeCaptures,
    /// C5/O13: a stone stacked on an opponent stone and the clock pressed, then unstacked.
    OccupiedPoint,
}

impl InjectionKind {
    /// Every kind.
    pub const ALL: [InjectionKind; 11] = [
        InjectionKind::TwoMovesInARow,
        InjectionKind::Takeback,
        InjectionKind::ClockBeforeStone,
        InjectionKind::MovedStone,
        InjectionKind::BoardDisturbed,
        InjectionKind::WrongCapture,
        InjectionKind::MissedCapture,
        InjectionKind::KoRecapture,
        InjectionKind::ForbiddenPoint,
        InjectionKind::ClockBeforeCaptures,
        InjectionKind::OccupiedPoint,
    ];

    /// The violation code the referee must report.
    pub fn code(self) -> ViolationCode {
        match self {
            InjectionKind::TwoMovesInARow => ViolationCode::TwoMovesInARow,
            InjectionKind::Takeback => ViolationCode::Takeback,
            InjectionKind::ClockBeforeStone => ViolationCode::ClockBeforeStone,
            InjectionKind::MovedStone => ViolationCode::MovedStone,
            InjectionKind::BoardDisturbed => ViolationCode::BoardDisturbed,
            InjectionKind::WrongCapture => ViolationCode::WrongCapture,
            InjectionKind::MissedCapture => ViolationCode::MissedCapture,
            InjectionKind::KoRecapture => ViolationCode::KoRecapture,
            InjectionKind::ForbiddenPoint => ViolationCode::ForbiddenPoint,
            InjectionKind::ClockBeforeCaptures => ViolationCode::ClockBeforeCaptures,
            InjectionKind::OccupiedPoint => ViolationCode::OccupiedPoint,
        }
    }
}

/// One violation to commit: `kind`, at the first suitable record move from index `from_move`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Injection {
    /// What to commit.
    pub kind: InjectionKind,
    /// Index (from 0) of the first record move to try.
    pub from_move: usize,
}

/// What was committed, and what the referee must therefore report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Injected {
    /// The code to report.
    pub code: ViolationCode,
    /// The offender.
    pub offender: Color,
    /// The points to report, in the referee's order (row by row from the top-left, except
    /// the moved/taken-back stone: from, then to).
    pub points: Vec<Point>,
    /// Index of the record move at which it was committed.
    pub at_move: usize,
    /// Record moves played by the injection (the move itself, and the reply for a missed
    /// capture).
    pub consumed: usize,
    /// Passes the rules insert into the record before record move `at_move` (or after it, for
    /// a ko retake), in order.
    pub passes: Vec<Color>,
    /// The passes come after record move `at_move` (ko) rather than before it.
    pub passes_after: bool,
}

/// Tries to commit `kind` around record move `k`; on success the move (and for a missed
/// capture its reply) has been played, and `game` follows the record as the referee keeps it.
pub(super) fn perform(
    p: &mut Player<'_>,
    game: &mut Game,
    record: &GameRecord,
    k: usize,
    kind: InjectionKind,
) -> Option<Injected> {
    let mv = record.moves.get(k)?;
    let (c, pt) = (mv.color, mv.point?);
    if c != game.to_move() {
        return None;
    }
    let preview = game.preview(c, pt).ok()?;
    let captured = preview.captured.clone();
    let next = record.moves.get(k + 1);
    let o = c.opposite();
    let done = |code: ViolationCode, offender: Color, points: Vec<Point>| Injected {
        code,
        offender,
        points,
        at_move: k,
        consumed: 1,
        passes: Vec::new(),
        passes_after: false,
    };
    match kind {
        InjectionKind::TwoMovesInARow => {
            let mut after = game.board().clone();
            after.play(c, pt).ok()?;
            let x = safe_point(&after, p)?;
            p.play_record_move(game, c, Some(pt));
            p.think();
            p.put_stone(c, x, game.board());
            p.pause();
            p.lift(x);
            Some(done(ViolationCode::TwoMovesInARow, c, vec![x]))
        }
        InjectionKind::Takeback => {
            if !captured.is_empty() {
                return None;
            }
            let mut after = game.board().clone();
            after.play(c, pt).ok()?;
            let q = safe_point(&after, p).filter(|q| manhattan(*q, pt) > 1)?;
            p.play_record_move(game, c, Some(pt));
            p.force_clock(c);
            p.think();
            p.at(Action::Remove { points: vec![pt] });
            p.t += 40;
            p.at(Action::Place { color: c, point: q });
            p.pause();
            p.at(Action::Remove { points: vec![q] });
            p.t += 40;
            p.at(Action::Place {
                color: c,
                point: pt,
            });
            Some(done(ViolationCode::Takeback, c, vec![pt, q]))
        }
        InjectionKind::ClockBeforeStone => {
            // a press with no stone: the stone comes well after the press's grace time
            // (session::PRESS_GRACE_MS), within which it would count as placed with it
            p.force_clock(c);
            p.pause();
            p.pause();
            p.play_record_move(game, c, Some(pt));
            Some(done(ViolationCode::ClockBeforeStone, c, Vec::new()))
        }
        InjectionKind::MovedStone => {
            let board = game.board();
            let (s, color, q) = board
                .stones()
                .filter_map(|(s, color)| {
                    free_neighbours(board, s)
                        .into_iter()
                        .find(|&q| q != pt && manhattan(q, pt) > 1)
                        .map(|q| (s, color, q))
                })
                .filter(|&(s, _, _)| s != pt && manhattan(s, pt) > 1)
                .nth(p.rng.random_range(0..4))?;
            p.at(Action::Slide { from: s, to: q });
            p.pause();
            p.at(Action::Slide { from: q, to: s });
            p.think();
            p.play_record_move(game, c, Some(pt));
            Some(done(ViolationCode::MovedStone, color, vec![s, q]))
        }
        InjectionKind::BoardDisturbed => {
            let stones: Vec<(Point, Color)> = game.board().stones().collect();
            if stones.len() < 8 {
                return None;
            }
            let offender = game.last_move()?.0;
            let mut chosen: Vec<(Point, Color)> = Vec::new();
            while chosen.len() < 4 {
                let s = stones[p.rng.random_range(0..stones.len())];
                if !chosen.contains(&s) {
                    chosen.push(s);
                }
            }
            let points: Vec<Point> = chosen.iter().map(|&(s, _)| s).collect();
            p.at(Action::Remove {
                points: points.clone(),
            });
            p.pause();
            for &(s, color) in &chosen {
                p.at(Action::Place { color, point: s });
            }
            p.think();
            p.play_record_move(game, c, Some(pt));
            let mut sorted = points;
            sorted.sort_by_key(|q| (q.y, q.x));
            Some(done(ViolationCode::BoardDisturbed, offender, sorted))
        }
        InjectionKind::WrongCapture => {
            let board = game.board();
            let y = board
                .stones()
                .filter(|&(s, color)| {
                    color == o
                        && !captured.contains(&s)
                        && manhattan(s, pt) > 2
                        && board.liberties(s) >= 2
                        && board.group(s).len() == 1
                })
                .map(|(s, _)| s)
                .nth(p.rng.random_range(0..3))?;
            p.put_stone(c, pt, game.board());
            p.lift_captures(&captured);
            p.at(Action::Remove { points: vec![y] });
            p.clock(c);
            let _ = game.play(c, Some(pt));
            p.pause();
            p.at(Action::Place { color: o, point: y });
            Some(done(ViolationCode::WrongCapture, c, vec![y]))
        }
        InjectionKind::MissedCapture => {
            let reply = next?;
            let rp = reply.point?;
            if captured.is_empty() || reply.color != o || captured.contains(&rp) {
                return None;
            }
            let mut after = game.clone();
            after.play(c, Some(pt)).ok()?;
            let reply_captures = after.preview(o, rp).ok()?.captured;
            p.put_stone(c, pt, game.board());
            let _ = game.play(c, Some(pt));
            p.think();
            p.put_stone(o, rp, game.board());
            p.lift_captures(&reply_captures);
            p.clock(o);
            let _ = game.play(o, Some(rp));
            // left alone for longer than the captor may take to lift them (quick players
            // lift after the reply): then missed (R18.2)
            p.t += crate::referee::LIFT_PATIENCE_MS;
            p.pause();
            for &s in &captured {
                p.lift(s);
            }
            let mut injected = done(ViolationCode::MissedCapture, c, captured);
            injected.consumed = 2;
            Some(injected)
        }
        InjectionKind::KoRecapture => {
            let reply = next?;
            let mut after = game.clone();
            let outcome = after.play(c, Some(pt)).ok()?;
            let kp = outcome.ko?;
            if reply.color != o || reply.point == Some(kp) {
                return None;
            }
            p.play_record_move(game, c, Some(pt));
            p.think();
            // the retake: o on the ko point, capturing c's stone
            p.put_stone(o, kp, game.board());
            p.lift(pt);
            p.pause();
            // undone as the referee rules: c's stone back, o's stone off
            p.put_stone(c, pt, game.board());
            p.lift(kp);
            p.think();
            let _ = game.play(o, None); // the invalid retake counts as o's pass (R18.3)
            p.at(Action::Pass(c));
            let _ = game.play(c, None);
            let mut injected = done(ViolationCode::KoRecapture, o, vec![kp]);
            injected.passes = vec![o, c];
            injected.passes_after = true;
            Some(injected)
        }
        InjectionKind::ForbiddenPoint => {
            let board = game.board();
            let f = board
                .empty_points()
                .find(|&q| matches!(game.preview(c, q), Err(crate::rules::Illegal::Suicide(_))))?;
            let _ = board;
            p.put_stone(c, f, game.board());
            p.pause();
            p.lift(f);
            let _ = game.play(c, None); // invalid, counts as c's pass (R19)
            p.think();
            p.at(Action::Pass(o));
            let _ = game.play(o, None);
            p.think();
            p.play_record_move(game, c, Some(pt));
            let mut injected = done(ViolationCode::ForbiddenPoint, c, vec![f]);
            injected.passes = vec![c, o];
            Some(injected)
        }
        InjectionKind::ClockBeforeCaptures => {
            if captured.is_empty() {
                return None;
            }
            p.put_stone(c, pt, game.board());
            p.force_clock(c);
            p.pause();
            p.lift_captures(&captured);
            let _ = game.play(c, Some(pt));
            let mut sorted = captured;
            sorted.sort_by_key(|q| (q.y, q.x));
            Some(done(ViolationCode::ClockBeforeCaptures, c, sorted))
        }
        InjectionKind::OccupiedPoint => {
            let board = game.board();
            let y = board
                .stones()
                .filter(|&(s, color)| color == o && manhattan(s, pt) > 1)
                .map(|(s, _)| s)
                .nth(p.rng.random_range(0..3))?;
            // c's stone stacked on o's stone at y: the sensor reads c
            p.at(Action::Place { color: c, point: y });
            p.pause();
            p.force_clock(c);
            p.pause();
            p.at(Action::Place { color: o, point: y });
            let _ = game.play(c, None); // counts as c's pass (C5/O13)
            p.think();
            p.at(Action::Pass(o));
            let _ = game.play(o, None);
            p.think();
            p.play_record_move(game, c, Some(pt));
            let mut injected = done(ViolationCode::OccupiedPoint, c, vec![y]);
            injected.passes = vec![c, o];
            Some(injected)
        }
    }
}

fn manhattan(a: Point, b: Point) -> u8 {
    a.x.abs_diff(b.x) + a.y.abs_diff(b.y)
}

fn free_neighbours(board: &Board, p: Point) -> Vec<Point> {
    let size = board.size();
    let mut v = Vec::new();
    if p.x > 0 {
        v.push(Point::new(p.x - 1, p.y));
    }
    if p.x + 1 < size {
        v.push(Point::new(p.x + 1, p.y));
    }
    if p.y > 0 {
        v.push(Point::new(p.x, p.y - 1));
    }
    if p.y + 1 < size {
        v.push(Point::new(p.x, p.y + 1));
    }
    v.retain(|&q| board.get(q).is_none());
    v
}

/// An empty point away from the edge with no stone on any of its eight neighbours (a stone
/// there touches nothing).
fn safe_point(board: &Board, p: &mut Player<'_>) -> Option<Point> {
    let size = board.size();
    let mut spots: Vec<Point> = board
        .empty_points()
        .filter(|&q| {
            board
                .stones()
                .all(|(s, _)| s.x.abs_diff(q.x).max(s.y.abs_diff(q.y)) > 1)
        })
        .filter(|q| q.x > 0 && q.y > 0 && q.x + 1 < size && q.y + 1 < size)
        .collect();
    if spots.is_empty() {
        return None;
    }
    let i = p.rng.random_range(0..spots.len());
    Some(spots.swap_remove(i))
}
