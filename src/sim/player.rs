//! Virtual players: a game record turned into physical actions over time.
//!
//! The players follow the record move by move and obey the referee: a move the rules forbid
//! is physically carried out the way a person would try it and then put right, so the
//! record the service keeps is the record as a referee at the board would keep it (the
//! `refereed` line of [`crate::rules::check_record`]):
//!
//! * a legal move: hand over the point, the stone put down (bouncing), the hand withdrawn,
//!   captured stones lifted;
//! * a play on an occupied point cannot be done on wood: the player presses pass instead;
//! * a stone on a forbidden point (R19) is put down, then taken back off;
//! * an immediate ko retake (R18.3) is put down with its capture lifted, then undone: the
//!   captured stone goes back and the retaking stone comes off.
//!
//! These players take turns on one timeline, each move settling on its own; quick players
//! whose moves overlap are [`super::blitz`]'s, which plays the moves above the same way.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::action::{Action, TimedAction};
use super::inject::{self, Injected, Injection};
use super::noise::NoiseParams;
use crate::referee::GameSetup;
use crate::rules::{Board, Color, Game, GameRecord, Illegal, Point};

/// Scan period of the virtual board, ms (50 scans per second).
pub const SCAN_MS: u64 = 20;

/// How long an invalid stone stays on the board before the player puts it right, ms (enough
/// for the board to settle and the referee to flag it).
const CORRECTION_MS: u64 = 1_000;

/// Builds the physical timeline of `record` (setup stones first, then every main-line move).
pub fn timeline_from_record(
    record: &GameRecord,
    params: &NoiseParams,
    rng: &mut ChaCha8Rng,
) -> Vec<TimedAction> {
    timeline_with(record, params, rng, &PlayerOptions::default()).0
}

/// How the virtual players behave beyond the noise model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayerOptions {
    /// Each player presses the clock after its move (and after lifting its captures).
    pub press_clock: bool,
    /// One violation to commit on purpose, at the first suitable move from a given one.
    pub injection: Option<Injection>,
}

/// Builds the physical timeline of `record` with `options`; returns it with what was injected,
/// if the injection found a suitable moment. With a tempo in `params` (`--noise blitz`) the
/// players overlap their moves: [`super::blitz::timeline_with_report`].
pub fn timeline_with(
    record: &GameRecord,
    params: &NoiseParams,
    rng: &mut ChaCha8Rng,
    options: &PlayerOptions,
) -> (Vec<TimedAction>, Option<Injected>) {
    if params.tempo.is_some() {
        let (timeline, injected, _) =
            super::blitz::timeline_with_report(record, params, rng, options);
        return (timeline, injected);
    }
    let setup = GameSetup::from_record(record);
    let mut p = Player {
        params,
        rng,
        t: 0,
        out: Vec::new(),
        press_clock: options.press_clock,
    };
    let Ok(mut game) = Game::with_setup(setup.size(), &setup.setup, setup.first_to_move) else {
        return (Vec::new(), None);
    };
    let mut placed = Board::new(setup.size()).unwrap_or_else(|_| game.board().clone());
    for &(color, point) in &setup.setup {
        p.put_stone(color, point, &placed);
        placed.put(point, Some(color));
        p.think();
    }
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
            if let Some(done) = inject::perform(&mut p, &mut game, record, k, inj.kind) {
                skip = done.consumed - 1;
                injected = Some(done);
                p.think();
                continue;
            }
        }
        p.play_record_move(&mut game, mv.color, mv.point);
        p.think();
    }
    (p.out, injected)
}

pub(super) struct Player<'a> {
    params: &'a NoiseParams,
    pub(super) rng: &'a mut ChaCha8Rng,
    /// Current time, ms.
    pub(super) t: u64,
    out: Vec<TimedAction>,
    press_clock: bool,
}

impl<'a> Player<'a> {
    /// A player acting from time `t_ms` on (the calm parts of [`super::blitz`]).
    pub(super) fn new(
        params: &'a NoiseParams,
        rng: &'a mut ChaCha8Rng,
        t_ms: u64,
        press_clock: bool,
    ) -> Self {
        Player {
            params,
            rng,
            t: t_ms,
            out: Vec::new(),
            press_clock,
        }
    }

    /// The actions so far, and the current time, ms.
    pub(super) fn finish(self) -> (Vec<TimedAction>, u64) {
        (self.out, self.t)
    }
}

impl Player<'_> {
    /// Plays one record move the way a player obeying the referee would (module docs).
    pub(super) fn play_record_move(&mut self, game: &mut Game, color: Color, point: Option<Point>) {
        let Some(point) = point else {
            self.at(Action::Pass(color));
            let _ = game.play(color, None);
            return;
        };
        match game.preview(color, point) {
            Ok(preview) => {
                self.put_stone(color, point, game.board());
                self.lift_captures(&preview.captured);
                self.clock(color);
                let _ = game.play(color, Some(point));
            }
            Err(Illegal::Occupied(_)) | Err(Illegal::OffBoard(_)) => {
                self.at(Action::Pass(color));
                let _ = game.play(color, None);
            }
            Err(Illegal::Suicide(_)) => {
                self.put_stone(color, point, game.board());
                self.t += CORRECTION_MS;
                self.lift(point);
                let _ = game.play(color, None);
            }
            Err(Illegal::Ko(_)) => {
                let mut after = game.board().clone();
                let captured = after.play(color, point).unwrap_or_default();
                self.put_stone(color, point, game.board());
                self.lift_captures(&captured);
                self.t += CORRECTION_MS;
                for &c in &captured {
                    self.put_stone(color.opposite(), c, &after);
                }
                self.lift(point);
                let _ = game.play(color, None);
            }
        }
    }

    /// Presses `color`'s clock, if the players use one.
    pub(super) fn clock(&mut self, color: Color) {
        if self.press_clock {
            self.t += 200;
            self.at(Action::Clock(color));
        }
    }

    /// Presses `color`'s clock, clock or not (an injected fault).
    pub(super) fn force_clock(&mut self, color: Color) {
        self.t += 200;
        self.at(Action::Clock(color));
    }

    /// Waits long enough for the referee to see what is on the board.
    pub(super) fn pause(&mut self) {
        self.t += CORRECTION_MS;
    }

    pub(super) fn at(&mut self, action: Action) {
        self.out.push(TimedAction {
            at_ms: self.t,
            action,
        });
    }

    fn scans(&mut self, range: &std::ops::RangeInclusive<u32>) -> u32 {
        self.rng.random_range(range.clone())
    }

    pub(super) fn think(&mut self) {
        let ms = self.rng.random_range(self.params.think_ms.clone());
        self.t += ms;
    }

    fn hand(&mut self, center: Point, scans: u32) {
        if scans == 0 {
            return;
        }
        let radius = self.rng.random_range(self.params.hand_radius.clone());
        self.at(Action::Hand {
            center,
            radius,
            duration_ms: u64::from(scans) * SCAN_MS,
        });
    }

    /// Hand in, stone down (perhaps on a neighbour first and pushed home), bounce, hand out.
    /// `board` is what lies on the board before the stone (a slide starts on an empty point).
    pub(super) fn put_stone(&mut self, color: Color, point: Point, board: &Board) {
        let before = self.scans(&self.params.hand_before_scans.clone());
        let after = self.scans(&self.params.hand_after_scans.clone());
        let total = before + after;
        self.hand(point, total);
        self.t += u64::from(before) * SCAN_MS;
        let slide_from = (self.rng.random_range(0..1000) < self.params.slide_per_mille)
            .then(|| empty_neighbour(point, board, self.rng))
            .flatten();
        match slide_from {
            Some(first) => {
                self.at(Action::Place {
                    color,
                    point: first,
                });
                // pushed home well within the hand's stay, long before anything settles
                self.t += 2 * SCAN_MS;
                self.at(Action::Slide {
                    from: first,
                    to: point,
                });
            }
            None => self.at(Action::Place { color, point }),
        }
        self.t += u64::from(after) * SCAN_MS;
        let bounce = self.scans(&self.params.bounce_scans.clone());
        if bounce > 0 {
            self.at(Action::Bounce {
                point,
                scans: bounce,
            });
            self.t += u64::from(bounce) * SCAN_MS;
        }
    }

    /// Lifts one stone, with a hand over it.
    pub(super) fn lift(&mut self, point: Point) {
        let scans = self.scans(&self.params.lift_hand_scans.clone());
        self.hand(point, scans);
        self.t += u64::from(scans / 2) * SCAN_MS;
        self.at(Action::Remove {
            points: vec![point],
        });
        self.t += u64::from(scans - scans / 2) * SCAN_MS;
    }

    pub(super) fn lift_captures(&mut self, captured: &[Point]) {
        if captured.is_empty() {
            return;
        }
        match self.params.capture_gap_ms.clone() {
            None => {
                self.t += self.params.capture_together_ms;
                self.at(Action::Remove {
                    points: captured.to_vec(),
                });
            }
            Some(gap) => {
                for &point in captured {
                    self.t += self.rng.random_range(gap.clone());
                    self.lift(point);
                }
            }
        }
    }
}

/// A random empty orthogonal neighbour of `point`.
fn empty_neighbour(point: Point, board: &Board, rng: &mut ChaCha8Rng) -> Option<Point> {
    let size = board.size();
    let mut options = Vec::with_capacity(4);
    let (x, y) = (point.x, point.y);
    if x > 0 {
        options.push(Point::new(x - 1, y));
    }
    if x + 1 < size {
        options.push(Point::new(x + 1, y));
    }
    if y > 0 {
        options.push(Point::new(x, y - 1));
    }
    if y + 1 < size {
        options.push(Point::new(x, y + 1));
    }
    options.retain(|&n| board.get(n).is_none());
    if options.is_empty() {
        None
    } else {
        let i = rng.random_range(0..options.len());
        Some(options[i])
    }
}
