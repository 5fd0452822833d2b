//! Serde forms of the protocol crate's values (which is `no_std` and has no serde), for the
//! session's checkpoints: a [`Cell`] as its 2-bit value (PROTOCOL.md §6), buttons and sides
//! by name, button counters as their six bytes in scan order (§7).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use smartgoban_protocol::{Button, ButtonCounters, Cell, Side};

/// A [`Cell`] as its 2-bit value: 0 empty, 1 black, 2 white, 3 uncertain.
pub mod cell_serde {
    use super::*;

    /// Writes the cell's value.
    pub fn serialize<S: Serializer>(cell: &Cell, s: S) -> Result<S::Ok, S::Error> {
        cell.bits().serialize(s)
    }

    /// Reads a value 0–3.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Cell, D::Error> {
        let bits = u8::deserialize(d)?;
        if bits > 3 {
            return Err(serde::de::Error::custom(format!(
                "cell value {bits} is not 0-3"
            )));
        }
        Ok(Cell::from_bits(bits))
    }
}

/// A list of [`Cell`]s as a string of their values, one digit each (`"0012…"`).
pub mod cells_serde {
    use super::*;

    /// Writes the digits.
    pub fn serialize<S: Serializer>(cells: &[Cell], s: S) -> Result<S::Ok, S::Error> {
        let text: String = cells.iter().map(|c| char::from(b'0' + c.bits())).collect();
        text.serialize(s)
    }

    /// Reads digits 0–3.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Cell>, D::Error> {
        let text = String::deserialize(d)?;
        text.bytes()
            .map(|b| match b {
                b'0'..=b'3' => Ok(Cell::from_bits(b - b'0')),
                other => Err(serde::de::Error::custom(format!(
                    "cell digit {:?} is not 0-3",
                    char::from(other)
                ))),
            })
            .collect()
    }
}

/// A [`Button`] by name: `pass`, `resign`, `clock`.
pub mod button_serde {
    use super::*;

    /// Writes the name.
    pub fn serialize<S: Serializer>(button: &Button, s: S) -> Result<S::Ok, S::Error> {
        match button {
            Button::Pass => "pass",
            Button::Resign => "resign",
            Button::Clock => "clock",
        }
        .serialize(s)
    }

    /// Reads a name.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Button, D::Error> {
        match String::deserialize(d)?.as_str() {
            "pass" => Ok(Button::Pass),
            "resign" => Ok(Button::Resign),
            "clock" => Ok(Button::Clock),
            other => Err(serde::de::Error::custom(format!(
                "unknown button {other:?}"
            ))),
        }
    }
}

/// A [`Side`] by name: `black`, `white`.
pub mod side_serde {
    use super::*;

    /// Writes the name.
    pub fn serialize<S: Serializer>(side: &Side, s: S) -> Result<S::Ok, S::Error> {
        match side {
            Side::Black => "black",
            Side::White => "white",
        }
        .serialize(s)
    }

    /// Reads a name.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Side, D::Error> {
        match String::deserialize(d)?.as_str() {
            "black" => Ok(Side::Black),
            "white" => Ok(Side::White),
            other => Err(serde::de::Error::custom(format!("unknown side {other:?}"))),
        }
    }
}

/// [`ButtonCounters`] as their six bytes in scan order (pass B, pass W, resign B, resign W,
/// clock B, clock W; PROTOCOL.md §5.3).
pub mod counters_serde {
    use super::*;

    /// Writes the six counters.
    pub fn serialize<S: Serializer>(c: &ButtonCounters, s: S) -> Result<S::Ok, S::Error> {
        c.to_bytes().serialize(s)
    }

    /// Reads six counters.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ButtonCounters, D::Error> {
        Ok(ButtonCounters::from_bytes(<[u8; 6]>::deserialize(d)?))
    }
}
