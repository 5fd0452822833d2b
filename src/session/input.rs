//! What the shell feeds into a [`super::Session`].

use crate::referee::{Adjudication, GameSetup, Ruling, SealedMove};
use crate::rules::{Color, Point};
use smartgoban_protocol::{Button, ButtonCounters, Cell, Scan, Side};

/// The board that answered the handshake (PROTOCOL.md "HelloAck"; from version 3 also its
/// boot and what became of the history the host asked for, §14).
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
    /// The protocol version of the session (PROTOCOL.md §4, §11): 1, 2 or 3; 0 when unknown
    /// (a checkpoint written before version 3).
    #[serde(default)]
    pub protocol_version: u8,
    /// The board's boot id (PROTOCOL.md §14, version 3): it changes whenever the board
    /// restarts, and a history is only asked of the boot that saw it. `None` before
    /// version 3.
    #[serde(default)]
    pub boot_id: Option<u32>,
    /// What became of the history the host asked for at this handshake.
    #[serde(default)]
    pub history: HistoryStatus,
}

impl LinkInfo {
    /// A 19×19 board at 50 scans/s with no identity, of protocol version 0 (unknown): the base
    /// for `LinkInfo { .., ..LinkInfo::DEFAULT }` in constants.
    pub const DEFAULT: LinkInfo = LinkInfo {
        board_size: 19,
        firmware_version: 0,
        device_id: 0,
        scan_rate_hz: 50,
        protocol_version: 0,
        boot_id: None,
        history: HistoryStatus::NotAsked,
    };
}

impl Default for LinkInfo {
    /// [`LinkInfo::DEFAULT`].
    fn default() -> Self {
        LinkInfo::DEFAULT
    }
}

/// What became of the board's history of the time the host was away (PROTOCOL.md §14) at a
/// handshake. Only [`Input::LinkResumed`] carries a history to replay; every other outcome
/// falls back to judging the board as it now lies (moves inferred, or `desync`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum HistoryStatus {
    /// The host had nothing to ask for (a new game's first connection, no boot known yet),
    /// or the session is of a version without history (1 or 2, [`LinkInfo::protocol_version`]).
    #[default]
    NotAsked,
    /// The history was received whole: it follows as [`Input::LinkResumed`].
    Replayed {
        /// Point-reading changes in it.
        changes: u32,
        /// Button presses in it.
        presses: u32,
    },
    /// The board restarted since the host's last scan (another boot id): what it saw before
    /// is gone.
    BoardRestarted {
        /// The boot the host knew.
        known_boot: u32,
    },
    /// The board no longer holds the span asked for: its ring buffer was overwritten from
    /// board time `oldest_ms` on (or the time asked for is not one of this boot).
    Lost {
        /// The board time, ms, from which the board still holds everything.
        oldest_ms: u32,
    },
    /// The board did not answer the history request in time (or the transfer kept failing).
    NoAnswer,
}

/// Where the host's knowledge of the board's scans ends: the boot of the board and the board
/// time of the last scan the session took in (PROTOCOL.md §14: what the host asks the board's
/// history from after a reconnection or a restart).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ResumePoint {
    /// The board's boot id.
    pub boot_id: u32,
    /// Board time of the last scan taken in, ms (the board's own u32 millisecond clock).
    pub since_ms: u32,
}

/// One thing the board recorded in its history (PROTOCOL.md §14), in board time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BoardChange {
    /// A point's reading changed (the value its scans carry from then on).
    Reading {
        /// Board time of the first scan with the new reading, ms.
        board_ms: u32,
        /// The point, dense index (SGF order, PROTOCOL.md §6).
        index: u16,
        /// The new reading.
        #[serde(with = "crate::sensing::cell_serde")]
        cell: Cell,
    },
    /// A button was pressed.
    Press {
        /// Board time of the press, ms.
        board_ms: u32,
        /// Which button.
        #[serde(with = "crate::sensing::button_serde")]
        button: Button,
        /// Whose.
        #[serde(with = "crate::sensing::side_serde")]
        side: Side,
    },
}

impl BoardChange {
    /// Board time of the change, ms.
    pub fn board_ms(&self) -> u32 {
        match *self {
            BoardChange::Reading { board_ms, .. } | BoardChange::Press { board_ms, .. } => board_ms,
        }
    }
}

/// The board's history of a span (PROTOCOL.md §14), as the link received it whole: what the
/// board saw from the host's last scan (`since_ms`) to the end of the span (`until_ms`), after
/// which the live scans go on.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BoardHistory {
    /// The boot that saw it.
    pub boot_id: u32,
    /// Board time of the host's last scan before the span, ms (exclusive).
    pub since_ms: u32,
    /// Board time of the span's last scan, ms (inclusive): the live scans after the history
    /// are those taken later.
    pub until_ms: u32,
    /// Every point's reading at `since_ms`, as the board holds it (dense index order).
    #[serde(with = "crate::sensing::cells_serde")]
    pub base: Vec<Cell>,
    /// The changes in the span, oldest first, board times in (`since_ms`, `until_ms`].
    pub changes: Vec<BoardChange>,
    /// The button counters of the last live scan at or before `until_ms` (zero if none): the
    /// baseline for the live scans that follow, whose presses up to `until_ms` are already in
    /// `changes`.
    #[serde(with = "crate::sensing::counters_serde")]
    pub live_buttons: ButtonCounters,
    /// It fills a gap in the scans of a session of the board already under way (scans the
    /// board dropped, PROTOCOL.md §14.7), not an outage: no handshake came before it.
    #[serde(default)]
    pub gap: bool,
}

impl BoardHistory {
    /// What the history of boot `boot_id` holds for the scans `span` taken after `before`:
    /// every change of a point's reading from one scan to the next and every press the
    /// counters count (PROTOCOL.md §14.2), at the board time of the scan that shows it; the
    /// live counters are `span`'s last (or `before`'s). For the virtual board's tests and
    /// benchmarks, and any host that keeps the scans itself.
    pub fn of_scans(boot_id: u32, before: &Scan, span: &[Scan]) -> BoardHistory {
        let mut changes = Vec::new();
        let mut prev = before;
        for scan in span {
            for (i, (a, b)) in prev.cells.iter().zip(scan.cells.iter()).enumerate() {
                if a != b {
                    changes.push(BoardChange::Reading {
                        board_ms: scan.board_ms,
                        index: i as u16,
                        cell: b,
                    });
                }
            }
            let delta = scan.buttons.presses_since(&prev.buttons);
            for button in [Button::Pass, Button::Resign, Button::Clock] {
                for side in [Side::Black, Side::White] {
                    for _ in 0..delta.get(button, side) {
                        changes.push(BoardChange::Press {
                            board_ms: scan.board_ms,
                            button,
                            side,
                        });
                    }
                }
            }
            prev = scan;
        }
        BoardHistory {
            boot_id,
            since_ms: before.board_ms,
            until_ms: prev.board_ms,
            base: before.cells.iter().collect(),
            changes,
            live_buttons: prev.buttons,
            gap: false,
        }
    }
}

/// One input to the session.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// The link's handshake completed; the board is judged as it now lies (after a
    /// reconnection, the moves made meanwhile inferred). [`LinkInfo::history`] says why no
    /// history is replayed.
    LinkUp(LinkInfo),
    /// The link's handshake completed and the board's history of the time the host was away
    /// came whole (PROTOCOL.md §14): the session replays it in board time, as if the host had
    /// never been away, then takes the live scans that follow.
    LinkResumed {
        /// The board.
        info: LinkInfo,
        /// What it saw meanwhile.
        history: Box<BoardHistory>,
    },
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
    /// The referee picks order `index` of the provisional moves that start at move `first`.
    ChooseOrder {
        /// 1-based number of the first provisional move.
        first: u32,
        /// The order, as `GET state`'s `provisional` lists them.
        index: usize,
    },
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
    /// R21.4: life and death disputed in scoring; play resumes with the claimant first.
    DisputeCount(Color),
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
