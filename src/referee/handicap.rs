//! Free handicap placement (Chinese rules: Black places its stones anywhere).

use super::*;

impl Referee {
    /// Free handicap placement (Chinese rules): Black puts its stones anywhere, one after the
    /// other, without turns; when all are down White moves. Returns whether the board was
    /// taken as part of the placement.
    pub(super) fn place_handicap(&mut self, grid: &StoneGrid) -> bool {
        let board = self.game.board();
        let mut black = Vec::new();
        let mut white = Vec::new();
        let mut other = false;
        for (p, sensed) in grid.iter() {
            match (board.get(p), sensed) {
                (a, b) if a == b => {}
                (None, Some(Color::Black)) => black.push(p),
                (None, Some(Color::White)) => white.push(p),
                _ => other = true,
            }
        }
        if other || white.len() > 1 {
            return false; // stones vanished: judged as usual
        }
        let total = usize::from(self.handicap_total);
        if black.len() > total {
            return false; // judged as usual: the extra black stone is out of turn
        }
        if black.len() == total {
            let setup: Vec<(Color, Point)> = black.iter().map(|&p| (Color::Black, p)).collect();
            let Ok(game) = Game::with_setup(self.size(), &setup, Color::White) else {
                return false;
            };
            self.game = game;
            self.record.setup = setup;
            self.record.info.handicap = self.handicap_total;
            self.record.player_to_move = Some(Color::White);
            self.handicap_left = 0;
            self.handicap_placed.clear();
            self.events.push_back(EventKind::HandicapPlaced {
                points: black.iter().map(|&p| p.to_gtp(self.size())).collect(),
            });
            // White's first move, if already down, is judged as usual
            return white.is_empty();
        }
        self.handicap_left = (total - black.len()) as u8;
        self.handicap_placed = black.clone();
        if let [w] = white[..] {
            // White moved before Black placed all its handicap stones: too few (the stone is
            // invalid until the handicap is complete).
            let detail = format!(
                "white played {} while black had placed only {} of its {} handicap stones",
                self.gtp(w),
                black.len(),
                self.handicap_total
            );
            let fix = BoardDiff {
                restore: Vec::new(),
                remove: vec![w],
            };
            self.flag_once(
                ViolationCode::TwoMovesInARow,
                Color::White,
                vec![w],
                detail,
                grid,
                fix,
                None,
            );
        }
        true
    }
}
