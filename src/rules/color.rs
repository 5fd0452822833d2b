//! Stone colours (G1: black and white stones; G2: Black moves first, then the sides alternate).

use serde::{Deserialize, Serialize};
use std::fmt;

/// The colour of a stone, of a player, or of the side to move.
///
/// In JSON (serde) a colour is the lowercase string `"black"` or `"white"`, the form used by the
/// event log (DESIGN.md, "Events").
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// Black: moves first in an even game (G2), holds 181 stones (G1).
    Black,
    /// White: moves second in an even game; first in a handicap game and in the classical
    /// zuozi (座子) games of the corpus.
    White,
}

impl Color {
    /// Both colours, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other colour: the opponent (G2, the sides alternate).
    #[inline]
    pub const fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `"black"` or `"white"`: the name used in events and JSON.
    pub const fn as_str(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// `"B"` or `"W"`: the SGF property letter of this colour's moves (`B[dp]`) and of `PL`.
    pub const fn sgf_letter(self) -> &'static str {
        match self {
            Color::Black => "B",
            Color::White => "W",
        }
    }

    /// 0 for Black, 1 for White: an index for per-colour arrays.
    #[inline]
    pub(crate) const fn index(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_letters() {
        assert_eq!(Color::Black.opposite(), Color::White);
        assert_eq!(Color::White.opposite(), Color::Black);
        assert_eq!(Color::Black.as_str(), "black");
        assert_eq!(Color::White.sgf_letter(), "W");
        assert_eq!(Color::White.to_string(), "white");
    }

    #[test]
    fn serde_is_lowercase() {
        // serde_json is not a dependency of the core; check through the derive's shape with a
        // tiny hand-written serializer instead: the variant name must be renamed.
        use serde::de::value::{Error, StrDeserializer};
        use serde::de::IntoDeserializer;
        let de: StrDeserializer<'_, Error> = "white".into_deserializer();
        assert_eq!(Color::deserialize(de).unwrap(), Color::White);
        let de: StrDeserializer<'_, Error> = "Black".into_deserializer();
        assert!(Color::deserialize(de).is_err());
    }
}
