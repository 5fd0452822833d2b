//! What the shell feeds into a [`super::Session`].

use crate::referee::GameSetup;
use crate::rules::Color;
use smartgoban_protocol::Scan;

/// The board that answered the handshake (PROTOCOL.md "HelloAck").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkInfo {
    /// Points per side: 9, 13 or 19.
    pub board_size: u8,
    /// Firmware version reported by the board.
    pub firmware_version: u16,
    /// The board's identity.
    pub device_id: u32,
    /// Scans per second the board sends.
    pub scan_rate_hz: u8,
}

/// One input to the session.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// The link's handshake completed.
    LinkUp(LinkInfo),
    /// The link was lost (unplugged, silent, reset).
    LinkDown {
        /// Why, for people.
        reason: String,
    },
    /// A full-board scan (PROTOCOL.md "Scan").
    Scan(Scan),
    /// A command from the API, the CLI or the demo.
    Command(Command),
}

/// Commands from people (referee, organiser) or programs.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Start a new game (the board must then show its setup position).
    NewGame(Box<GameSetup>),
    /// `color` passes (G2), e.g. from a pass button not wired through the board.
    Pass(Color),
    /// `color` resigns (G7).
    Resign(Color),
    /// The result is entered by the referee (SGF `RE` value).
    SetResult(String),
}
