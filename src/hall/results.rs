//! The tournament table by RULES.md R27: win 2, draw 1, loss 0; ties broken by the opponents'
//! scores (the sum of the points of every opponent met), then by fewer warnings (R27.1 ① B).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::mqtt::GameSummary;

/// How a finished game counts, read from its SGF `RE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Black won (`B+…`).
    BlackWins,
    /// White won (`W+…`).
    WhiteWins,
    /// A draw (`0`, `Draw`, `Jigo`).
    Draw,
}

/// The outcome of `re`; `None` for no result (`Void`, `?`, empty): the game does not count.
pub fn outcome(re: &str) -> Option<Outcome> {
    let re = re.trim();
    let upper = re.to_ascii_uppercase();
    if upper.starts_with("B+") {
        Some(Outcome::BlackWins)
    } else if upper.starts_with("W+") {
        Some(Outcome::WhiteWins)
    } else if matches!(upper.as_str(), "0" | "DRAW" | "JIGO") {
        Some(Outcome::Draw)
    } else {
        None
    }
}

/// One player's line of the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Standing {
    /// 1-based place; players tied on every criterion share it.
    pub place: usize,
    /// The player's name as the boards recorded it.
    pub name: String,
    /// Games counted.
    pub games: u32,
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Points: 2 a win, 1 a draw, 0 a loss (R27).
    pub points: u32,
    /// Opponents' scores: the points of every opponent met, summed (the first tie-break).
    pub opponents_points: u32,
    /// Warnings received in these games (the second tie-break: fewer is better).
    pub warnings: u32,
}

/// The table of `games` (each game's newest summary; a game without a result or without both
/// names does not count), best first.
pub fn table<'a>(games: impl IntoIterator<Item = &'a GameSummary>) -> Vec<Standing> {
    #[derive(Default)]
    struct Acc {
        wins: u32,
        draws: u32,
        losses: u32,
        warnings: u32,
        opponents: Vec<String>,
    }
    let mut players: BTreeMap<String, Acc> = BTreeMap::new();
    for g in games {
        let (Some(black), Some(white), Some(outcome)) = (
            g.black.as_deref().map(str::trim).filter(|n| !n.is_empty()),
            g.white.as_deref().map(str::trim).filter(|n| !n.is_empty()),
            g.result.as_deref().and_then(outcome),
        ) else {
            continue;
        };
        for (me, them, warnings, won) in [
            (
                black,
                white,
                g.warnings.black,
                outcome == Outcome::BlackWins,
            ),
            (
                white,
                black,
                g.warnings.white,
                outcome == Outcome::WhiteWins,
            ),
        ] {
            let acc = players.entry(me.to_string()).or_default();
            acc.warnings = acc.warnings.saturating_add(warnings);
            acc.opponents.push(them.to_string());
            match (outcome, won) {
                (Outcome::Draw, _) => acc.draws += 1,
                (_, true) => acc.wins += 1,
                (_, false) => acc.losses += 1,
            }
        }
    }
    let points: BTreeMap<&str, u32> = players
        .iter()
        .map(|(n, a)| (n.as_str(), 2 * a.wins + a.draws))
        .collect();
    let mut rows: Vec<Standing> = players
        .iter()
        .map(|(name, a)| Standing {
            place: 0,
            name: name.clone(),
            games: a.wins + a.draws + a.losses,
            wins: a.wins,
            draws: a.draws,
            losses: a.losses,
            points: 2 * a.wins + a.draws,
            opponents_points: a.opponents.iter().map(|o| points[o.as_str()]).sum(),
            warnings: a.warnings,
        })
        .collect();
    let key = |s: &Standing| {
        (
            std::cmp::Reverse(s.points),
            std::cmp::Reverse(s.opponents_points),
            s.warnings,
        )
    };
    rows.sort_by(|a, b| key(a).cmp(&key(b)).then_with(|| a.name.cmp(&b.name)));
    for i in 0..rows.len() {
        rows[i].place = if i > 0 && key(&rows[i]) == key(&rows[i - 1]) {
            rows[i - 1].place
        } else {
            i + 1
        };
    }
    rows
}

/// The table as CSV (a header, then one line a player).
pub fn csv(rows: &[Standing]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "place",
        "name",
        "games",
        "wins",
        "draws",
        "losses",
        "points",
        "opponents_points",
        "warnings",
    ]);
    for r in rows {
        let _ = w.write_record([
            r.place.to_string(),
            spreadsheet_safe(&r.name),
            r.games.to_string(),
            r.wins.to_string(),
            r.draws.to_string(),
            r.losses.to_string(),
            r.points.to_string(),
            r.opponents_points.to_string(),
            r.warnings.to_string(),
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// A name as a spreadsheet cell that stays text: one starting with `=`, `+`, `-`, `@`, a tab
/// or a carriage return would be read as a formula (CSV injection), so it gets a leading `'`.
fn spreadsheet_safe(name: &str) -> String {
    if name.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{name}")
    } else {
        name.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mqtt::Warnings;

    #[test]
    fn huge_warning_counts_and_formula_names_are_harmless() {
        let games = [
            game("=HYPERLINK(\"x\")", "B", "B+R", (u32::MAX, 0)),
            game("=HYPERLINK(\"x\")", "C", "W+R", (1, 0)),
        ];
        let t = table(games.iter());
        let first = t.iter().find(|s| s.name.starts_with('=')).unwrap();
        assert_eq!(first.warnings, u32::MAX);
        let csv = csv(&t);
        assert!(csv.contains("'=HYPERLINK"), "{csv}");
        assert!(
            !csv.contains(",=HYPERLINK") && !csv.contains(",\"=HYPERLINK"),
            "{csv}"
        );
    }

    fn game(black: &str, white: &str, re: &str, warnings: (u32, u32)) -> GameSummary {
        GameSummary {
            board: "1".into(),
            key: 1,
            round: None,
            black: Some(black.into()),
            white: Some(white.into()),
            result: Some(re.into()),
            warnings: Warnings {
                black: warnings.0,
                white: warnings.1,
            },
            moves: 100,
            unix_ms: 0,
            sgf: String::new(),
        }
    }

    #[test]
    fn outcomes_are_read_from_re() {
        assert_eq!(outcome("B+R"), Some(Outcome::BlackWins));
        assert_eq!(outcome("w+3.5"), Some(Outcome::WhiteWins));
        assert_eq!(outcome("W+T"), Some(Outcome::WhiteWins));
        assert_eq!(outcome("0"), Some(Outcome::Draw));
        assert_eq!(outcome("Draw"), Some(Outcome::Draw));
        assert_eq!(outcome("Void"), None);
        assert_eq!(outcome("?"), None);
        assert_eq!(outcome(""), None);
    }

    #[test]
    fn points_then_opponents_scores_then_fewer_warnings() {
        // Round 1: A beats B, C draws D. Round 2: A beats C, D beats B.
        // Points: A 4, D 3, C 1, B 0. Opponents' scores: A = B 0 + C 1 = 1; D = C 1 + B 0 = 1;
        // C = D 3 + A 4 = 7; B = A 4 + D 3 = 7.
        let games = [
            game("A", "B", "B+R", (0, 1)),
            game("C", "D", "0", (0, 0)),
            game("C", "A", "W+2.5", (1, 0)),
            game("B", "D", "W+T", (0, 0)),
        ];
        let t = table(&games);
        let names: Vec<_> = t.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["A", "D", "C", "B"]);
        assert_eq!((t[0].points, t[0].wins, t[0].opponents_points), (4, 2, 1));
        assert_eq!((t[1].points, t[1].draws, t[1].opponents_points), (3, 1, 1));
        assert_eq!((t[2].points, t[2].warnings), (1, 1));
        assert_eq!((t[3].points, t[3].losses, t[3].warnings), (0, 2, 1));
    }

    #[test]
    fn ties_go_to_opponents_scores_then_to_fewer_warnings_then_share_a_place() {
        // E and F each win once; E's opponent scored more (G beat H) than F's (H lost twice).
        let games = [
            game("E", "G", "B+R", (0, 0)),
            game("F", "H", "B+R", (0, 0)),
            game("G", "H", "B+R", (0, 0)),
        ];
        let t = table(&games);
        let e = t.iter().position(|s| s.name == "E").unwrap();
        let f = t.iter().position(|s| s.name == "F").unwrap();
        assert!(e < f, "{t:?}");
        // Same points and opponents' scores: the one with fewer warnings first.
        let games = [game("P", "Q", "0", (1, 0)), game("R", "S", "0", (0, 0))];
        let t = table(&games);
        assert_eq!(t[0].name, "Q");
        assert_eq!(t[0].place, 1);
        assert_eq!(t.iter().find(|s| s.name == "P").unwrap().place, 4);
        assert_eq!(t.iter().find(|s| s.name == "R").unwrap().place, 1);
        // void games and games without names do not count
        let t = table(&[game("X", "Y", "Void", (0, 0)), game("", "Y", "B+R", (0, 0))]);
        assert!(t.is_empty(), "{t:?}");
    }

    #[test]
    fn the_csv_has_a_header_and_a_line_a_player() {
        let t = table(&[game("Fan, Xiping", "Shi", "B+R", (0, 0))]);
        let csv = csv(&t);
        let lines: Vec<_> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "place,name,games,wins,draws,losses,points,opponents_points,warnings"
        );
        assert_eq!(lines[1], "1,\"Fan, Xiping\",1,1,0,0,2,0,0");
        assert_eq!(lines[2], "2,Shi,1,0,0,1,0,2,0");
    }
}
