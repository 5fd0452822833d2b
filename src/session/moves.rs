//! [`MoveView`]: the record's moves as `GET /api/v1/moves` serves them.

use serde::Serialize;

use crate::rules::{Color, Game, GameRecord};

/// One move or pass of the record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct MoveView {
    /// 1-based move number (moves and passes count).
    pub number: u32,
    /// The mover.
    pub color: Color,
    /// GTP point; null for a pass.
    pub point: Option<String>,
    /// SGF point (`dp`); null for a pass.
    pub sgf: Option<String>,
    /// The opponent's stones this move captured (GTP).
    pub captures: Vec<String>,
    /// The mover's time left after the move (SGF `BL`/`WL`), ms, with a time control.
    pub time_left_ms: Option<u64>,
    /// The mover's overtime periods or stones left (SGF `OB`/`OW`).
    pub periods_left: Option<u32>,
    /// The move's comment: referee notes (violations, accepted illegal moves, corrections).
    pub comment: Option<String>,
}

/// Every move of `record` with its captures, replayed under the rules from its setup. A move
/// the rules refuse (an illegal move the referee accepted) is replayed as placed, without
/// captures, and keeps its comment.
pub fn move_views(record: &GameRecord) -> Vec<MoveView> {
    let size = record.info.size;
    let first = record.first_to_move();
    let mut game = Game::with_setup(size, &record.setup, first).ok();
    record
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let captures = game
                .as_mut()
                .and_then(|g| g.play(m.color, m.point).ok())
                .map(|o| o.captured.iter().map(|p| p.to_gtp(size)).collect())
                .unwrap_or_default();
            MoveView {
                number: i as u32 + 1,
                color: m.color,
                point: m.point.map(|p| p.to_gtp(size)),
                sgf: m.point.map(|p| p.to_sgf()),
                captures,
                time_left_ms: m.time_left_ms,
                periods_left: m.periods_left,
                comment: m.comment.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_and_passes() {
        let record = GameRecord::from_sgf_str(
            "(;GM[1]FF[4]SZ[9];B[ba];W[aa];B[ab]C[captures A9];W[];B[cc]BL[30.5])",
        )
        .unwrap();
        let moves = move_views(&record);
        assert_eq!(moves.len(), 5);
        assert_eq!(moves[2].captures, ["A9"]);
        assert_eq!(moves[2].comment.as_deref(), Some("captures A9"));
        assert_eq!(moves[3].point, None);
        assert_eq!(moves[4].sgf.as_deref(), Some("cc"));
        assert_eq!(moves[4].point.as_deref(), Some("C7"));
        assert_eq!(moves[4].time_left_ms, Some(30_500));
        assert_eq!(moves[0].number, 1);
    }
}
