//! [`Session::led_scene`]: what the LEDs under the board must show now (DESIGN.md `leds`).

use super::Session;
use crate::event::Phase;
use crate::leds::{Role, Scene};
use crate::referee::BoardDiff;
use crate::rules::{area_map, AreaPoint, Color, Point, ViolationCode};

impl Session {
    /// The [`Scene`] for the LEDs, marks in priority order:
    ///
    /// 1. open violations, by what their fix asks: the offending stone of a forbidden point,
    ///    a ko retaken at once or a whole-board repetition is `illegal` (G5, R18.3, R20.2); a
    ///    moved stone shows `moved_from` and `moved_to` (R17.5); stones to lift are `remove`,
    ///    stones to put back `restore` in their colour (R17.2, R17.3, R18.1, R18.2);
    /// 2. a disturbed board (R17.6) or, in `desync` and `setup`, the difference to the record,
    ///    stone by stone, the next one to fix brightest (stones to lift first, then stones to
    ///    put back, in board order); when open violations and pending captures account for the
    ///    whole difference, it is shown without a next stone;
    /// 3. the stones of a board held for the referee (`ambiguous`), then captured stones still
    ///    on the board (`remove`, R18.2);
    /// 4. the ko point (R20.1) and the last move;
    /// 5. at the count (and after a counted game): dead stones, each side's territory and the
    ///    shared points (G9, R21.2).
    ///
    /// Star points with no stone and nothing else to show stay dim, and breathe while the link
    /// is lost.
    pub fn led_scene(&self) -> Scene {
        let referee = &self.referee;
        let game = referee.game();
        let size = game.size();
        let mut scene = Scene::idle(size, self.link.is_some());
        scene.covered = game.board().stones().map(|(p, _)| p).collect();
        let sensed = self.sensed();
        let phase = referee.phase();
        let mut ordered: Option<BoardDiff> = None;
        // Points the open violations and the pending captures already account for.
        let mut explained: Vec<Point> = referee.pending().iter().map(|&(p, _)| p).collect();
        for v in referee.violations().iter().filter(|v| v.open) {
            explained.extend(&v.points);
            explained.extend(&v.fix.remove);
            explained.extend(v.fix.restore.iter().map(|&(p, _)| p));
        }
        for v in referee.violations().iter().filter(|v| v.open) {
            match v.code {
                ViolationCode::BoardDisturbed => {
                    ordered = Some(v.fix.clone());
                    continue;
                }
                ViolationCode::ForbiddenPoint
                | ViolationCode::KoRecapture
                | ViolationCode::SuperkoCycle
                    if !matches!(phase, Phase::Scoring | Phase::Finished) =>
                {
                    for &p in &v.points {
                        scene.mark(p, Role::Illegal, None);
                    }
                }
                ViolationCode::MovedStone => {
                    for &(p, color) in &v.fix.restore {
                        scene.mark(p, Role::MovedFrom, Some(color));
                    }
                    for &p in &v.fix.remove {
                        scene.mark(p, Role::MovedTo, None);
                    }
                }
                _ => {}
            }
            // What the board already shows needs no light (a stone the fix would put back that
            // is still there, a stone to lift already gone).
            let fix = BoardDiff {
                restore: v
                    .fix
                    .restore
                    .iter()
                    .copied()
                    .filter(|&(p, c)| sensed.is_none_or(|g| g.get(p) != Some(c)))
                    .collect(),
                remove: v
                    .fix
                    .remove
                    .iter()
                    .copied()
                    .filter(|&p| sensed.is_none_or(|g| g.get(p).is_some()))
                    .collect(),
            };
            mark_fix(&mut scene, &fix);
        }
        let guidance = referee.guidance();
        if matches!(phase, Phase::Desync | Phase::Setup) && !guidance.is_empty() {
            let unexplained = guidance
                .remove
                .iter()
                .chain(guidance.restore.iter().map(|(p, _)| p))
                .any(|p| !explained.contains(p));
            if unexplained || ordered.is_some() {
                ordered = Some(guidance.clone());
            } else {
                // The open violations and the captures say what to fix: no rebuild order.
                mark_fix(&mut scene, guidance);
            }
        }
        if let Some(diff) = ordered {
            let mut remove = diff.remove.clone();
            remove.sort_by_key(|p| p.index(size));
            let mut restore = diff.restore.clone();
            restore.sort_by_key(|(p, _)| p.index(size));
            scene.next = remove
                .first()
                .copied()
                .or_else(|| restore.first().map(|&(p, _)| p));
            mark_fix(&mut scene, &BoardDiff { restore, remove });
        }
        // A board held for the referee: the stones whose order is in question (the moves that
        // explain the held board, in any of its explanations).
        for p in referee.held_points() {
            scene.mark(p, Role::Ambiguous, None);
        }
        // Moves recorded provisionally (issue 35): their stones, while they are the newest
        // moves (the players see which stones are in question; the referee rules on the page).
        let len = referee.record().moves.len();
        if let Some(p) = referee.provisional().last() {
            if p.from + p.len() + 2 >= len {
                for q in referee.provisional_points_of(p) {
                    scene.mark(q, Role::Ambiguous, None);
                }
            }
        }
        for &(p, _) in referee.pending() {
            scene.mark(p, Role::Remove, None);
        }
        if matches!(phase, Phase::Play) {
            if let Some(ko) = game.ko() {
                scene.mark(ko, Role::Ko, None);
            }
        }
        if !matches!(phase, Phase::Scoring | Phase::Finished) {
            if let Some((color, Some(p))) = game.last_move() {
                scene.mark(p, Role::LastMove, Some(color));
            }
        }
        let counted =
            phase == Phase::Scoring || (phase == Phase::Finished && game.consecutive_passes() >= 2);
        if counted {
            let dead = referee.proposed_dead();
            for &p in dead {
                scene.mark(p, Role::Dead, None);
            }
            for (i, share) in area_map(game.board(), dead).into_iter().enumerate() {
                let role = match share {
                    AreaPoint::Stone(_) => continue,
                    AreaPoint::Territory(Color::Black) => Role::TerritoryBlack,
                    AreaPoint::Territory(Color::White) => Role::TerritoryWhite,
                    AreaPoint::Dame => Role::Shared,
                };
                scene.mark(Point::from_index(i, size), role, None);
            }
        }
        scene
    }
}

/// Stones to lift as `remove`, stones to put back as `restore` in their colour.
fn mark_fix(scene: &mut Scene, fix: &BoardDiff) {
    for &p in &fix.remove {
        scene.mark(p, Role::Remove, None);
    }
    for &(p, color) in &fix.restore {
        scene.mark(p, Role::Restore, Some(color));
    }
}
