//! Reading back the `&'static str` fields of the referee and its events (a violation's code,
//! clause and penalty, a result's reason) from a checkpoint or the event log (the store's `checkpoints` table).
//!
//! The referee only ever holds a handful of such strings, all known at compile time; a
//! restored string is matched against them, and one not known (a checkpoint written by another
//! version) is interned once for the life of the process, so memory stays bounded by the number
//! of distinct strings.

use std::collections::BTreeSet;
use std::sync::{Mutex, OnceLock};

use super::profile::Penalty;
use super::Profile;
use crate::rules::ViolationCode;

/// The result reasons the referee gives (DESIGN.md `result.reason`).
const REASONS: [&str; 6] = [
    "resignation",
    "count",
    "time",
    "two_warnings",
    "referee",
    "cycle",
];

/// A `&'static str` field read back with [`deserialize`]. (Spelled through this alias so the
/// serde derive does not take it for a string borrowed from the input.)
pub type StaticStr = &'static str;

/// The `&'static str` equal to `s`.
pub fn intern(s: &str) -> &'static str {
    static EXTRA: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let penalties = [
        Penalty::Warning,
        Penalty::MoveInvalid,
        Penalty::Loss,
        Penalty::Referee,
    ];
    let known = REASONS
        .iter()
        .copied()
        .chain(penalties.iter().map(|p| p.as_str()))
        .chain(ViolationCode::ALL.iter().map(|c| c.as_str()))
        .chain(
            [Profile::Cn2002, Profile::Cn1988]
                .into_iter()
                .flat_map(|p| ViolationCode::ALL.iter().map(move |&c| p.clause(c))),
        );
    for k in known {
        if k == s {
            return k;
        }
    }
    let mut extra = EXTRA
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(&k) = extra.get(s) {
        return k;
    }
    let k: &'static str = Box::leak(s.to_owned().into_boxed_str());
    extra.insert(k);
    k
}

/// `deserialize_with` for a `&'static str` field.
pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
    Ok(intern(&s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_strings_are_the_referees_own_and_others_are_kept_once() {
        let clause = Profile::Cn1988.clause(ViolationCode::TwoMovesInARow);
        let owned = String::from(clause);
        let back = intern(&owned);
        assert!(std::ptr::eq(back, clause));
        let a = intern("a clause of another version");
        let b = intern(&String::from("a clause of another version"));
        assert!(std::ptr::eq(a, b));
        assert_eq!(a, "a clause of another version");
    }
}
