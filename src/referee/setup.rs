//! [`GameSetup`]: what a game starts from.

use crate::clock::TimeSystem;
use crate::rules::{Color, GameInfo, GameRecord, Point};

/// Everything the referee needs to start a game: board size, game information (players, komi,
/// rules, …), the setup stones that must be on the board before the first move (handicap `AB`,
/// or the four 座子 stones of a classical Chinese game) and who moves first.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameSetup {
    /// Game information; `info.size` is the board size in points per side.
    pub info: GameInfo,
    /// Stones on the board before the first move (SGF `AB`/`AW`).
    pub setup: Vec<(Color, Point)>,
    /// The side that moves first (SGF `PL`; White in handicap and 座子 games).
    pub first_to_move: Color,
    /// Free handicap (Chinese rules): Black places this many stones anywhere before White's
    /// first move, one after the other without turns. 0: none, or fixed stones in `setup`.
    pub free_handicap: u8,
    /// The time control (C3, R22); `None`: no clock, moves are committed by the settled
    /// board. Written to the record as SGF `TM`/`OT`.
    pub time: Option<TimeSystem>,
    /// The referee's rule profile for this game (`None`: the service's, from its config). A
    /// new game started by the organiser may choose it.
    pub profile: Option<super::Profile>,
}

impl GameSetup {
    /// An even game on an empty board of `size` points per side: Black first, komi 7.5
    /// points (C2: 3¾ stones).
    pub fn even(size: u8) -> Self {
        let info = GameInfo {
            size,
            komi: Some(7.5),
            ..GameInfo::default()
        };
        GameSetup {
            info,
            setup: Vec::new(),
            first_to_move: Color::Black,
            free_handicap: 0,
            time: None,
            profile: None,
        }
    }

    /// An even game with a free handicap of `stones` (Chinese rules: Black places them
    /// anywhere, then White moves); komi as given.
    pub fn free_handicap(size: u8, stones: u8) -> Self {
        let mut setup = GameSetup::even(size);
        if stones >= 2 {
            setup.free_handicap = stones;
            setup.info.handicap = stones;
        }
        setup
    }

    /// The starting point of a recorded game: its information, setup stones and first mover
    /// (the result is left out: it is decided at the board).
    pub fn from_record(record: &GameRecord) -> Self {
        let mut info = record.info.clone();
        info.result = None;
        GameSetup {
            info,
            setup: record.setup.clone(),
            first_to_move: record.first_to_move(),
            free_handicap: 0,
            time: None,
            profile: None,
        }
    }

    /// Board size in points per side.
    pub fn size(&self) -> u8 {
        self.info.size
    }
}

/// The standard fixed handicap placement (GTP `fixed_handicap` order) of `stones` black
/// stones on a `size` board: 2 → the lower-left and upper-right star points, 3 adds the
/// upper-left, 4 the lower-right, 5 the centre, 6 the left and right side points, 7 the centre
/// again with them, 8 the top and bottom side points, 9 everything. `None` when the board has
/// no such placement (`stones` < 2 or > 9, sizes below 7, or 5+ stones on an even size).
pub fn handicap_points(size: u8, stones: u8) -> Option<Vec<Point>> {
    if !(2..=9).contains(&stones) || size < 7 {
        return None;
    }
    let edge = if size >= 13 { 3 } else { 2 };
    let (lo, hi, mid) = (edge, size - 1 - edge, size / 2);
    if stones >= 5 && size.is_multiple_of(2) {
        return None;
    }
    // (x, y) with y from the top: lower-left is (lo, hi).
    let lower_left = Point::new(lo, hi);
    let upper_right = Point::new(hi, lo);
    let upper_left = Point::new(lo, lo);
    let lower_right = Point::new(hi, hi);
    let centre = Point::new(mid, mid);
    let left = Point::new(lo, mid);
    let right = Point::new(hi, mid);
    let bottom = Point::new(mid, hi);
    let top = Point::new(mid, lo);
    let corners = [lower_left, upper_right, upper_left, lower_right];
    let mut points: Vec<Point> = corners.iter().copied().take(stones.min(4).into()).collect();
    match stones {
        5 => points.push(centre),
        6 => points.extend([left, right]),
        7 => points.extend([left, right, centre]),
        8 => points.extend([left, right, bottom, top]),
        9 => points.extend([left, right, bottom, top, centre]),
        _ => {}
    }
    Some(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gtp(size: u8, stones: u8) -> Vec<String> {
        handicap_points(size, stones)
            .unwrap()
            .into_iter()
            .map(|p| p.to_gtp(size))
            .collect()
    }

    #[test]
    fn gtp_fixed_handicap_placements() {
        // GTP 2 spec, "fixed_handicap".
        assert_eq!(gtp(19, 2), ["D4", "Q16"]);
        assert_eq!(gtp(19, 3), ["D4", "Q16", "D16"]);
        assert_eq!(gtp(19, 4), ["D4", "Q16", "D16", "Q4"]);
        assert_eq!(gtp(19, 5), ["D4", "Q16", "D16", "Q4", "K10"]);
        assert_eq!(gtp(19, 6), ["D4", "Q16", "D16", "Q4", "D10", "Q10"]);
        assert_eq!(gtp(19, 9).len(), 9);
        assert_eq!(gtp(13, 4), ["D4", "K10", "D10", "K4"]);
        assert_eq!(gtp(9, 2), ["C3", "G7"]);
        assert_eq!(gtp(9, 9)[8], "E5");
        assert!(handicap_points(19, 1).is_none());
        assert!(handicap_points(19, 10).is_none());
    }
}
