//! Checking a game record under the rules, as a referee at a physical board would
//! (R17.2, R18.3, R19, R20; C5/O13).
//!
//! [`check_record`] replays the main line of a [`GameRecord`] and lists every violation with
//! its move number, colour, point and clause. It also returns the **refereed** line — one
//! entry per recorded move, with each invalid placement turned into a pass of that colour — which
//! is exactly what the live referee records, so that the rest of the product can reproduce it.
//!
//! Policy, move by move (the first mover is [`GameRecord::first_to_move`], never a violation):
//!
//! | case | code | clause | the move |
//! |---|---|---|---|
//! | a stone or pass by the side that just moved (no pass between) | `two_moves_in_a_row` | R17.2 | stands (it is recorded as played; the referee warns) |
//! | a stone on an occupied point | `occupied_point` | C5/O13 | counts as a pass (physically impossible; like a sealed move on an occupied point) |
//! | suicide | `forbidden_point` | G5/R19 | invalid, counts as a pass |
//! | immediate retake of a single ko | `ko_recapture` | R18.3/R20.1 | invalid, counts as a pass |
//! | a legal play that recreates an earlier whole-board position | `superko_cycle` | R20.2/R20.3 | stands; the referee decides |
//!
//! A move can carry two violations: `two_moves_in_a_row` and one of the others.

use super::board::Board;
use super::color::Color;
use super::game::{Game, Illegal};
use super::point::Point;
use super::sgf::GameRecord;
use super::violation::ViolationCode;

/// One violation found in a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordViolation {
    /// 1-based position of the move in the main line (passes count).
    pub number: u32,
    /// The offender: the colour of the move.
    pub color: Color,
    /// The point of the move; `None` for a pass.
    pub point: Option<Point>,
    /// What is wrong.
    pub code: ViolationCode,
    /// The RULES.md clause(s), as [`ViolationCode::clause`].
    pub clause: &'static str,
    /// A sentence for people, with GTP coordinates and, for `superko_cycle`, the earlier move
    /// number.
    pub detail: String,
}

/// The result of [`check_record`].
#[derive(Debug, Clone)]
pub struct CheckReport {
    /// Every violation, in move order.
    pub violations: Vec<RecordViolation>,
    /// The refereed main line: one entry per recorded move, with invalid placements (occupied,
    /// forbidden, ko retake) turned into passes of that colour.
    pub refereed: Vec<(Color, Option<Point>)>,
    /// The game after the refereed line.
    pub final_game: Game,
}

impl CheckReport {
    /// How many violations have this code.
    pub fn count(&self, code: ViolationCode) -> usize {
        self.violations.iter().filter(|v| v.code == code).count()
    }
}

/// Replays the main line of `record` under the rules and reports what a referee would flag
/// (see the module documentation for the policy). Never fails and never panics: every move is
/// judged.
pub fn check_record(record: &GameRecord) -> CheckReport {
    // The SGF reader only produces sizes 2..=19; a hand-built record with another size is
    // judged on the nearest supported board, and setup stones off the board are left out.
    let mut board = Board::clamped(record.info.size);
    let size = board.size();
    for &(c, p) in &record.setup {
        board.put(p, Some(c));
    }
    let mut game = Game::from_board(board, record.first_to_move());
    let gtp = |p: Point| p.to_gtp(size);
    let mut violations = Vec::new();
    let mut refereed = Vec::with_capacity(record.moves.len());
    for (k, m) in record.moves.iter().enumerate() {
        let number = k as u32 + 1;
        let colour = m.color;
        let mut flag = |code: ViolationCode, detail: String| {
            violations.push(RecordViolation {
                number,
                color: colour,
                point: m.point,
                code,
                clause: code.clause(),
                detail,
            })
        };
        if k > 0 && colour != game.to_move() {
            let what = match m.point {
                Some(p) => format!("plays {}", gtp(p)),
                None => "passes".to_string(),
            };
            flag(
                ViolationCode::TwoMovesInARow,
                format!(
                    "{} {what} although it is {}'s turn: move {} was {}'s too, with no pass \
                     between (G2: the sides alternate); the move stands",
                    title(colour),
                    title(colour.opposite()),
                    number - 1,
                    title(colour),
                ),
            );
        }
        let Some(p) = m.point else {
            // A pass is always possible.
            let _ = game.play(colour, None);
            refereed.push((colour, None));
            continue;
        };
        match game.play(colour, Some(p)) {
            Ok(out) => {
                if let Some(earlier) = out.repeats {
                    flag(
                        ViolationCode::SuperkoCycle,
                        format!(
                            "{} {}: recreates the whole-board position after move {earlier} \
                             (global repetition, R20.2/R20.3); the move stands, the referee rules",
                            title(colour),
                            gtp(p)
                        ),
                    );
                }
                refereed.push((colour, Some(p)));
            }
            Err(illegal) => {
                let (code, why) = match illegal {
                    Illegal::Occupied(_) => {
                        let owner = game.board().get(p).map_or("", |c| c.as_str());
                        (
                            ViolationCode::OccupiedPoint,
                            format!(
                                "the point already holds a {owner} stone (physically \
                                 impossible); counts as a pass (C5/O13)"
                            ),
                        )
                    }
                    Illegal::Suicide(_) => (
                        ViolationCode::ForbiddenPoint,
                        "forbidden point: the stone would have no liberty and captures nothing \
                         (G5); invalid, counts as a pass (R19)"
                            .to_string(),
                    ),
                    Illegal::Ko(_) => (
                        ViolationCode::KoRecapture,
                        "retakes the ko at once, without a ko threat elsewhere (R20.1); \
                         invalid, counts as a pass (R18.3)"
                            .to_string(),
                    ),
                    Illegal::OffBoard(_) => (
                        ViolationCode::ForbiddenPoint,
                        format!(
                            "SGF point {} is off the {size}×{size} board; counts as a pass",
                            p.to_sgf()
                        ),
                    ),
                };
                flag(code, format!("{} {}: {why}", title(colour), gtp(p)));
                let _ = game.play(colour, None);
                refereed.push((colour, None));
            }
        }
    }
    CheckReport {
        violations,
        refereed,
        final_game: game,
    }
}

fn title(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}
