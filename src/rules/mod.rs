//! The rules core: board, captures, ko, whole-board repetition, record checking and SGF.
//!
//! Implements the play clauses of the Chinese Weiqi Rules (RULES.md): G2 (alternate play,
//! passing), G3 (liberties), G4 (captures; when both sides are left without liberties only the
//! opponent's stones go), G5 (suicide is forbidden, R19), G6/R20 (simple ko is forbidden,
//! R20.1; other whole-board repetitions are reported to the referee, R20.2–20.3), and the
//! referee's treatment of records (R17.2, R18.3, R19, C5/O13) in [`check_record`].
//!
//! Pure and deterministic: no I/O, no clock, no randomness (Zobrist keys are fixed at compile
//! time). Coordinates: [`Point`] has `x` from the left and `y` from the top (SGF orientation);
//! GTP text counts rows from the bottom.
//!
//! * [`Board`] — stones, groups, liberties, captures, Zobrist hash; cheap to clone.
//! * [`Game`] — turn, passes, ko, capture counters, repetition record, undo.
//! * [`PlayoutBoard`] — the same placement rules in O(1) per question, for random playouts
//!   (the dead-stone proposal, [`propose_dead`]).
//! * [`check_record`] — what a referee flags in a [`GameRecord`], and the refereed line.
//! * [`GameRecord`] — SGF in ([`GameRecord::from_sgf_bytes`]) and out
//!   ([`GameRecord::to_sgf`]).
//!
//! ```
//! use smartgoban::rules::{check_record, Color, Game, GameRecord, Illegal, Point};
//!
//! let mut game = Game::new(19).unwrap();
//! let d4 = Point::from_gtp("D4", 19).unwrap();
//! assert_eq!(d4.to_sgf(), "dp");
//! let out = game.play(Color::Black, Some(d4)).unwrap();
//! assert_eq!((out.number, game.to_move()), (1, Color::White));
//! assert_eq!(game.play(Color::White, Some(d4)), Err(Illegal::Occupied(d4)));
//!
//! let record = GameRecord::from_sgf_str("(;SZ[9]KM[7.5];B[ee];B[cc])").unwrap();
//! let report = check_record(&record);
//! assert_eq!(report.violations[0].code.as_str(), "two_moves_in_a_row");
//! assert_eq!(report.violations[0].number, 2);
//! ```

mod board;
mod check;
mod color;
mod game;
pub mod playout;
mod point;
mod scoring;
pub mod sgf;
mod violation;
mod zobrist;

pub use board::{Board, BoardError, BoardParseError, SizeError};
pub use check::{check_record, CheckReport, RecordViolation};
pub use color::Color;
pub use game::{Game, Illegal, MoveOutcome, Preview, SetupError};
pub use playout::{Placement, PlayoutBoard, PositionSet};
pub use point::{CoordError, Point, MAX_BOARD_SIZE, MIN_BOARD_SIZE};
pub use scoring::{
    area_count, area_map, chinese_result, dead_shares, propose_dead, proposed_result,
    unconditionally_alive, AreaCount, AreaPoint, ChineseResult, DEAD_THRESHOLD, DEFAULT_PLAYOUTS,
};
pub use sgf::{GameInfo, GameRecord, RecordedMove, SgfError};
pub use violation::ViolationCode;
