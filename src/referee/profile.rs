//! Rule profiles and what each violation costs (RULES.md "Referee rules").
//!
//! `cn2002` (default) follows the 2002 referee rules (R-clauses); `cn1988` the older code
//! (O-clauses), which is harsher on some acts (O8.1: two moves in a row lose) and milder on
//! others (O11.1: an immediate ko retake is only invalid, without a warning).

use serde::Serialize;

use crate::rules::ViolationCode;

/// Which edition of the referee rules applies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// Chinese Weiqi Rules, 2002 edition (R17–R24).
    #[default]
    Cn2002,
    /// The older referee code (O8–O16).
    Cn1988,
}

impl std::str::FromStr for Profile {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "cn2002" => Ok(Profile::Cn2002),
            "cn1988" => Ok(Profile::Cn1988),
            other => Err(format!("profile `{other}`: use cn2002 or cn1988")),
        }
    }
}

/// What happens to acts that break a rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// The rules' sanctions apply: invalid moves are not recorded and must come off the board,
    /// warnings are counted (R24), losses end the game.
    #[default]
    Rules,
    /// Every act stands as played and every violation is flagged and at once accepted by the
    /// referee (no warning, no loss): for replaying a recorded game on the board, where the
    /// record is what happened.
    AcceptAsPlayed,
}

/// The primary penalty of a violation (DESIGN.md `violation.penalty`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Penalty {
    /// A warning (R24.1: one stone at the count; R24.2: two lose).
    Warning,
    /// The move does not stand (and counts as a pass where the rule says so).
    MoveInvalid,
    /// The game is lost.
    Loss,
    /// The referee rules (restore, accept, draw, replay, …).
    Referee,
    /// The board's evidence does not prove the act (stones under hands, a gap in what the
    /// board saw, a move whose order is not known): nothing is charged; the referee is told,
    /// and may uphold it (the rules' sanction then applies) or dismiss it (issue 35).
    Notice,
}

impl Penalty {
    /// The DESIGN.md name.
    pub fn as_str(self) -> &'static str {
        match self {
            Penalty::Warning => "warning",
            Penalty::MoveInvalid => "move_invalid",
            Penalty::Loss => "loss",
            Penalty::Referee => "referee",
            Penalty::Notice => "notice",
        }
    }
}

/// The rules' sanction of one violation: the primary penalty, and whether a warning comes
/// with it (R18.3: invalid and a warning).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sanction {
    /// Primary penalty.
    pub penalty: Penalty,
    /// A warning is also given.
    pub warning: bool,
}

const fn s(penalty: Penalty, warning: bool) -> Sanction {
    Sanction { penalty, warning }
}

impl Profile {
    /// The sanction of `code` under this profile.
    pub fn sanction(self, code: ViolationCode) -> Sanction {
        use Penalty::*;
        use ViolationCode as V;
        match (self, code) {
            // R17.2: second move invalid + a warning; O8.1: the double mover loses.
            (Profile::Cn2002, V::TwoMovesInARow) => s(MoveInvalid, true),
            (Profile::Cn1988, V::TwoMovesInARow) => s(Loss, false),
            // R17.3 / O8.2: the stone goes back, a warning.
            (_, V::Takeback) => s(Warning, true),
            // R17.4: a warning, the clock reading unchanged.
            (_, V::ClockBeforeStone) => s(Warning, true),
            // R17.5 / O8.3, R17.6 / O8.4: restore; else the referee rules.
            (_, V::MovedStone) | (_, V::BoardDisturbed) => s(Referee, false),
            // R18.1 / O9: a warning, the stones put back.
            (_, V::WrongCapture) => s(Warning, true),
            // R18.2 (O14.4 for the clock press): a warning, the captured stones removed.
            (_, V::MissedCapture) => s(Warning, true),
            // R18.3: invalid, a pass, a warning; O11.1: invalid, a pass.
            (Profile::Cn2002, V::KoRecapture) => s(MoveInvalid, true),
            (Profile::Cn1988, V::KoRecapture) => s(MoveInvalid, false),
            // R19 / O10: invalid, a pass.
            (_, V::ForbiddenPoint) => s(MoveInvalid, false),
            // R20.2–R20.3 / O11.3: the referee (no result, draw, replay).
            (_, V::SuperkoCycle) => s(Referee, false),
            // R22.6 / O14.4: a warning.
            (_, V::ClockBeforeCaptures) => s(Warning, true),
            // R22.5 / O14.5: loss (R22.5: or a pass and a warning, on request).
            (_, V::TimeExpired) => s(Loss, false),
            // R24.2 / O16.2.
            (_, V::TwoWarningsLoss) => s(Loss, false),
            // R17.1: corrected (colours swapped) up to move 10, by the referee.
            (_, V::WrongColors) => s(Referee, false),
            // C5 / O13: a play on an occupied point counts as a pass.
            (_, V::OccupiedPoint) => s(MoveInvalid, false),
            // R22.8: the referee decides whether the stone stands.
            (_, V::PlayedWhilePaused) => s(Referee, false),
            // R17.6 / O8.4: the position rebuilt from the record; nobody is charged.
            (_, V::UnexplainedBoard) => s(Referee, false),
        }
    }

    /// The clause of this profile behind `code`.
    pub fn clause(self, code: ViolationCode) -> &'static str {
        use ViolationCode as V;
        match self {
            Profile::Cn2002 => code.clause(),
            Profile::Cn1988 => match code {
                V::TwoMovesInARow => "O8.1",
                V::Takeback => "O8.2",
                V::MovedStone => "O8.3",
                V::BoardDisturbed | V::UnexplainedBoard => "O8.4",
                V::WrongCapture => "O9",
                V::ForbiddenPoint => "O10",
                V::KoRecapture => "O11.1",
                V::SuperkoCycle => "O11.3",
                V::OccupiedPoint => "O13",
                V::MissedCapture | V::ClockBeforeCaptures => "O14.4",
                V::TimeExpired => "O14.5",
                V::TwoWarningsLoss => "O16.2",
                // No clause of the older code: the 2002 rule applies.
                V::ClockBeforeStone | V::WrongColors | V::PlayedWhilePaused => code.clause(),
            },
        }
    }

    /// The DESIGN.md name.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Cn2002 => "cn2002",
            Profile::Cn1988 => "cn1988",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profiles_differ_where_the_codes_differ() {
        let two = ViolationCode::TwoMovesInARow;
        assert_eq!(Profile::Cn2002.sanction(two), s(Penalty::MoveInvalid, true));
        assert_eq!(Profile::Cn1988.sanction(two), s(Penalty::Loss, false));
        assert_eq!(Profile::Cn1988.clause(two), "O8.1");
        let ko = ViolationCode::KoRecapture;
        assert!(Profile::Cn2002.sanction(ko).warning);
        assert!(!Profile::Cn1988.sanction(ko).warning);
        assert_eq!("cn1988".parse::<Profile>(), Ok(Profile::Cn1988));
        assert!("cn2010".parse::<Profile>().is_err());
    }
}
