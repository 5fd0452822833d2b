//! Game results as the SGF `RE` property writes them.

use crate::rules::Color;

/// The winner an SGF `RE` value names: `B+…` → Black, `W+…` → White, anything else (`0`,
/// `Draw`, `Void`, `?`, free text such as `黑胜14子`) → no winner that can be read reliably —
/// except the Chinese forms `黑胜…` (Black wins) and `白胜…` (White wins), which classical
/// records use.
pub fn winner_from_re(re: &str) -> Option<Color> {
    let re = re.trim();
    let upper = re.to_ascii_uppercase();
    if upper.starts_with("B+") {
        Some(Color::Black)
    } else if upper.starts_with("W+") {
        Some(Color::White)
    } else if re.contains("黑胜") {
        Some(Color::Black)
    } else if re.contains("白胜") {
        Some(Color::White)
    } else {
        None
    }
}

/// The SGF `RE` value of a resignation by `loser`: `W+R` when Black resigns.
pub fn resignation_re(loser: Color) -> String {
    format!("{}+R", loser.opposite().sgf_letter())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_winners() {
        assert_eq!(winner_from_re("B+R"), Some(Color::Black));
        assert_eq!(winner_from_re("w+3.5"), Some(Color::White));
        assert_eq!(winner_from_re(" 白胜7子半 "), Some(Color::White));
        assert_eq!(winner_from_re("172 黑胜"), Some(Color::Black));
        assert_eq!(winner_from_re("0"), None);
        assert_eq!(winner_from_re("Draw"), None);
        assert_eq!(resignation_re(Color::Black), "W+R");
    }
}
