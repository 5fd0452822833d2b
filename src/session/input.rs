//! What the shell feeds into a [`super::Session`].

use crate::referee::{Adjudication, GameSetup, Ruling, SealedMove};
use crate::rules::{Color, Point};
use smartgoban_protocol::Scan;

/// The board that answered the handshake (PROTOCOL.md "HelloAck").
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// A clock button wired to the Pi (not through the board) pressed at host time
    /// `host_ms` (the same time base as `handle_input`'s `now_ms`).
    Button {
        /// Which button.
        button: ClockButton,
        /// When it was pressed, host ms.
        host_ms: u64,
    },
}

/// A button of the game clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ClockButton {
    /// A player's button: its time stops, the other side's starts (R17.4, R22.6).
    Player(Color),
    /// The referee's pause button: pauses, or resumes when paused.
    Pause,
}

/// Commands from people (referee, organiser) or programs.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Command {
    /// Start a new game (the board must then show its setup position).
    NewGame(Box<GameSetup>),
    /// `color` passes (G2), e.g. from a pass button not wired through the board.
    Pass(Color),
    /// `color` resigns (G7).
    Resign(Color),
    /// `color` presses its clock button (a clock not wired through the board).
    ClockPress(Color),
    /// The result is entered by the referee (SGF `RE` value).
    SetResult(String),
    /// The referee settles violation `id`.
    Resolve {
        /// Violation id.
        id: u32,
        /// Put back, or accept as played.
        ruling: Ruling,
    },
    /// The referee picks explanation `index` of an ambiguous board.
    Choose(usize),
    /// The referee corrects move `number` to `point` (`None`: a pass).
    CorrectMove {
        /// 1-based move number.
        number: u32,
        /// The right point.
        point: Option<Point>,
    },
    /// The referee gives a warning (R24).
    Warn {
        /// Warned side.
        color: Color,
        /// Why, for the record.
        reason: String,
    },
    /// The referee pauses play.
    Pause,
    /// The referee resumes play (playing a sealed move first).
    Resume,
    /// The referee decides the result.
    Adjudicate(Adjudication),
    /// A sealed move at adjournment (C5); play pauses.
    SealMove(SealedMove),
    /// R17.1: swap the players' colours (up to move 10).
    SwapColors,
    /// Both sides confirm the count (R21.1): `dead` as agreed, or `None` for the proposal.
    ConfirmCount(Option<Vec<Point>>),
    /// R22.5: the referee rules on a flag fall left to it (`time_up = "referee"`): a pass
    /// with a warning (counting goes on), or the loss.
    RuleTimeUp {
        /// A pass with a warning rather than the loss.
        pass: bool,
    },
    /// The referee adjusts `color`'s main time by `delta_ms` (positive gives time, negative
    /// takes it): a clock set wrong, a dispute settled.
    AdjustTime {
        /// The side.
        color: Color,
        /// Change of main time, ms.
        delta_ms: i64,
    },
    /// R22.1: `color` arrived `late_ms` late; twice that comes off its main time.
    LateArrival {
        /// The late player.
        color: Color,
        /// How late, ms.
        late_ms: u64,
    },
}
