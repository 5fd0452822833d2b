//! Game records in SGF (FF\[4\]): reading real files and writing our own.
//!
//! A [`GameRecord`] is what the rules need from a file: the game information, the setup
//! stones, who moves first and the main line of moves with their comments and clock readings.
//! Variations, markup and unknown properties are not kept.
//!
//! **Reading** ([`GameRecord::from_sgf_bytes`]): the bytes are decoded to text first, before any
//! SGF escape is looked at (in Shift_JIS the byte 0x5C, `\`, can be the second half of a
//! character): a UTF-8 BOM is dropped; UTF-16 is recognised by its BOM or by NUL bytes; valid
//! UTF-8 is taken as it is; otherwise the charset named by `CA[...]` is used, with the
//! non-standard names found in real files mapped (`MS_KANJI` → Shift_JIS, `UTF16LE` →
//! UTF-16LE, `EUC-CN`/`GB2312` → GBK); without a usable `CA` the charset is guessed
//! (`chardetng`). Then the first game tree is parsed with the `sgf-parse` crate and its main
//! line (the first child at each node) is read. Quirks of real files that are handled:
//!
//! * `B[tt]` on boards up to 19×19 and `B[]` are passes;
//! * Fox writes `KM` × 100 and Tencent writes it in stones: see [`GameInfo::komi`];
//! * `HA[1]` (Fox: no komi, Black first) and values such as `HA[7.5]` do not fail the file:
//!   see [`GameInfo::handicap`];
//! * values are trimmed (`RE[\n172\n白胜\n]` is `172\n白胜`) and CR LF becomes LF;
//! * text before the first `(` is ignored; outside values, text that is not SGF (`#N/A` between
//!   two nodes of `jst44.sgf`) and empty game trees `()` are dropped, and a `;` missing where a
//!   node must start (right after `(`, as in the Nihon Ki-in files, or before properties after
//!   a `)`) is supplied — the repairs SGFC makes. Without the first, `sgf-parse` reads the junk
//!   as the start of the next property identifier and swallows the `;` and the move after it;
//!   the others keep `sgf-parse` from failing after it has built a tree (it would then drop the
//!   tree recursively, one stack frame per node). A long game never recurses here;
//! * setup (`AB`/`AW`/`AE`/`PL`) in main-line nodes before the first move is merged into the
//!   setup (the YuanYu app writes handicap stones in node 1); setup after the first move, and a
//!   node with two moves, are errors ([`SgfError::SetupAfterMoves`],
//!   [`SgfError::TwoMovesInNode`]) — they never occur in the corpus and ignoring them would
//!   change the game.
//!
//! **Writing** ([`GameRecord::to_sgf`]): nodes are built from `sgf-parse` property values and
//! serialised by it, so its text escaping (`\]`, `\\`, `\:`) is used. A written record reads
//! back equal.

mod decode;
mod error;
pub mod ff4;
mod read;
mod write;

pub use error::SgfError;

/// Most nodes read in a record's first game tree, variations included: 50,000. The longest
/// games have about 400 moves and the most commented records a few thousand nodes; the parser
/// takes some 700 bytes a node, so a record costs at most about 35 MB however large its file
/// ([`SgfError::TooLarge`]).
pub const MAX_NODES: usize = 50_000;

/// Most moves (and passes) in a record's main line: 10,000 ([`SgfError::TooLarge`]).
pub const MAX_MOVES: usize = 10_000;

use super::color::Color;
use super::point::Point;
use serde::{Deserialize, Serialize};

/// The game information of a record (SGF root and game-info properties). Text values are
/// trimmed; an empty value is `None`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameInfo {
    /// Board size, 2..=19 (`SZ`; 19 when absent).
    pub size: u8,
    /// Komi in **points** (`KM`), as area counting uses it (C2: 3¾ stones = 7.5 points).
    ///
    /// Normalised on reading: a value of 50 or more in magnitude is a Fox value × 100
    /// (`KM[650]` = 6.5, `KM[750]` = 7.5) and is divided by 100; a value then ending in a
    /// quarter (x.25 or x.75, e.g. Tencent's `KM[375]` = 3¾) is in **stones** (子, Chinese
    /// counting) and is doubled (3¾ stones = 7.5 points). Written as points, so a komi in
    /// points must be a multiple of ½ below 50 to read back the same (every real komi is).
    pub komi: Option<f64>,
    /// Handicap stones (`HA`): 0 for an even game. Values below 2 (`HA[0]`, Fox's `HA[1]` "no
    /// komi, Black first", whose komi is in `KM`) and values that are not a whole number from 2
    /// to 255 (`HA[7.5]`, komi typed into the wrong field) read as 0.
    pub handicap: u8,
    /// Rules as written (`RU`, e.g. `Chinese`, `Japanese`); the product applies Chinese rules
    /// regardless.
    pub rules: Option<String>,
    /// Black player's name (`PB`).
    pub black: Option<String>,
    /// White player's name (`PW`).
    pub white: Option<String>,
    /// Black player's rank (`BR`).
    pub black_rank: Option<String>,
    /// White player's rank (`WR`).
    pub white_rank: Option<String>,
    /// Event (`EV`).
    pub event: Option<String>,
    /// Round (`RO`).
    pub round: Option<String>,
    /// Date(s) (`DT`), as written (`2016-12-29 19:01:34`); written back in FF[4] form
    /// ([`ff4::date`]).
    pub date: Option<String>,
    /// Place (`PC`).
    pub place: Option<String>,
    /// Game name (`GN`).
    pub game_name: Option<String>,
    /// Result (`RE`), as written: `B+R`, `W+7.5`, `黑胜14子`, …; written back in FF[4] form
    /// ([`ff4::result`]).
    pub result: Option<String>,
    /// Main time per side in seconds (`TM`).
    pub time_limit: Option<f64>,
    /// Overtime system (`OT`), as written, e.g. `5x30 byo-yomi`.
    pub overtime: Option<String>,
    /// Comment on the game as a whole (`C` of the root and of setup nodes before the first
    /// move).
    pub comment: Option<String>,
    /// Background of the game (`GC`, text); also where a `RE` or `DT` that is not in FF[4]
    /// form is kept as written (`RE as recorded: 黑胜14子`).
    pub game_comment: Option<String>,
    /// Who entered the record (`US`).
    pub user: Option<String>,
    /// Black's team (`BT`).
    pub black_team: Option<String>,
    /// White's team (`WT`).
    pub white_team: Option<String>,
}

impl GameInfo {
    /// Information for a new game on a `size` board: everything else empty.
    pub fn new(size: u8) -> GameInfo {
        GameInfo {
            size,
            komi: None,
            handicap: 0,
            rules: None,
            black: None,
            white: None,
            black_rank: None,
            white_rank: None,
            event: None,
            round: None,
            date: None,
            place: None,
            game_name: None,
            result: None,
            time_limit: None,
            overtime: None,
            comment: None,
            game_comment: None,
            user: None,
            black_team: None,
            white_team: None,
        }
    }
}

impl GameInfo {
    /// The information as [`GameRecord::to_sgf`] writes it, and so as it reads back: every
    /// SimpleText value on one line ([`simple_text`]), `DT` and `RE` in FF[4] form
    /// ([`ff4::date`], [`ff4::result`]: `2016/12/29` is `2016-12-29`, `W+Resign` stays,
    /// `draw` is `0`), and what of them cannot be mapped whole kept as written in `GC`, one
    /// line each (`DT as recorded: 2016-12-29 19:01:34`, `RE as recorded: 黑胜14子`) beside
    /// the part that maps (`DT[2016-12-29]`, `RE[B+]`). Applying it twice changes nothing
    /// more.
    pub fn ff4_form(&self) -> GameInfo {
        let one_line = |v: &Option<String>| v.as_deref().and_then(simple_text);
        let mut kept = Vec::new();
        let mut mapped = |value: &Option<String>, id: &str, map: fn(&str) -> ff4::Mapped| {
            let value = one_line(value)?;
            match map(&value) {
                ff4::Mapped::Whole(v) => Some(v),
                ff4::Mapped::Part(v) => {
                    kept.push(format!("{id} as recorded: {value}"));
                    Some(v)
                }
                ff4::Mapped::Not => {
                    kept.push(format!("{id} as recorded: {value}"));
                    None
                }
            }
        };
        let date = mapped(&self.date, "DT", ff4::date);
        let result = mapped(&self.result, "RE", ff4::result);
        let game_comment = self
            .game_comment
            .iter()
            .cloned()
            .chain(kept)
            .reduce(|a, b| format!("{a}\n{b}"));
        GameInfo {
            size: self.size,
            komi: self.komi,
            handicap: self.handicap,
            rules: one_line(&self.rules),
            black: one_line(&self.black),
            white: one_line(&self.white),
            black_rank: one_line(&self.black_rank),
            white_rank: one_line(&self.white_rank),
            event: one_line(&self.event),
            round: one_line(&self.round),
            date,
            place: one_line(&self.place),
            game_name: one_line(&self.game_name),
            result,
            time_limit: self.time_limit,
            overtime: one_line(&self.overtime),
            comment: self.comment.clone(),
            game_comment,
            user: one_line(&self.user),
            black_team: one_line(&self.black_team),
            white_team: one_line(&self.white_team),
        }
    }
}

impl Default for GameInfo {
    /// A 19×19 game (G1) with nothing else known.
    fn default() -> Self {
        GameInfo::new(19)
    }
}

/// One move of the main line.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecordedMove {
    /// The mover.
    pub color: Color,
    /// The point; `None` is a pass (`B[]`, or `B[tt]` on boards up to 19×19).
    pub point: Option<Point>,
    /// The node's comment (`C`), trimmed. Comments of later move-less nodes are appended.
    pub comment: Option<String>,
    /// The mover's time left after the move, in milliseconds (`BL`/`WL`, which are seconds).
    pub time_left_ms: Option<u64>,
    /// The mover's byo-yomi periods or stones left (`OB`/`OW`).
    pub periods_left: Option<u32>,
}

impl RecordedMove {
    /// A move (or a pass, `point` = `None`) with no comment or clock reading.
    pub fn new(color: Color, point: Option<Point>) -> RecordedMove {
        RecordedMove {
            color,
            point,
            comment: None,
            time_left_ms: None,
            periods_left: None,
        }
    }

    /// The move in short: the colour's SGF letter and the GTP point on a `size`×`size`
    /// board, or `pass` (`BD4`, `Wpass`) — for notes and comments.
    pub fn short(&self, size: u8) -> String {
        format!(
            "{}{}",
            self.color.sgf_letter(),
            self.point.map_or("pass".into(), |p| p.to_gtp(size))
        )
    }
}

/// A game record: information, setup, first mover and the main line.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct GameRecord {
    /// Game information.
    pub info: GameInfo,
    /// Stones on the board before the first move (`AB`/`AW`, less `AE`). Reading gives Black's
    /// stones first, each colour's in row-major order.
    pub setup: Vec<(Color, Point)>,
    /// The side to move first if the record says so (`PL`).
    pub player_to_move: Option<Color>,
    /// The main line: one entry per move or pass.
    pub moves: Vec<RecordedMove>,
}

impl GameRecord {
    /// An empty record for a `size` board.
    pub fn new(size: u8) -> GameRecord {
        GameRecord {
            info: GameInfo::new(size),
            ..GameRecord::default()
        }
    }

    /// Reads the first game tree of an SGF file from its bytes, in any of the charsets real
    /// files use (see the module documentation).
    ///
    /// # Errors
    /// [`SgfError`], saying which node, property and value are at fault.
    pub fn from_sgf_bytes(bytes: &[u8]) -> Result<GameRecord, SgfError> {
        let (text, _) = decode::decode(bytes);
        read::read(&text)
    }

    /// Reads the first game tree of SGF text.
    ///
    /// # Errors
    /// [`SgfError`], saying which node, property and value are at fault.
    pub fn from_sgf_str(text: &str) -> Result<GameRecord, SgfError> {
        read::read(text)
    }

    /// The record as SGF text: `FF[4]GM[1]CA[UTF-8]AP[smartgoban:<version>]SZ[n]`, the game
    /// information, root comment, setup stones and `PL` if set, then one node per move (`B[]`
    /// for a pass) with its comment and clock reading.
    pub fn to_sgf(&self) -> String {
        write::write(self)
    }

    /// The side that moves first: `PL` if given; else the colour of the first move; else White
    /// if Black has setup stones and the handicap is 2 or more; else Black (G2).
    pub fn first_to_move(&self) -> Color {
        if let Some(c) = self.player_to_move {
            return c;
        }
        if let Some(m) = self.moves.first() {
            return m.color;
        }
        let black_setup = self.setup.iter().any(|(c, _)| *c == Color::Black);
        if black_setup && self.info.handicap >= 2 {
            Color::White
        } else {
            Color::Black
        }
    }
}

/// A SimpleText value (FF[4] §2.2: `PB`, `RE`, `DT`, …) as one line: each line break, with the
/// blanks around it, is one space; the value is trimmed. `None` if nothing is left.
/// `"\n172\n白胜\n"` is `172 白胜`.
pub fn simple_text(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    for line in s
        .split(['\n', '\r'])
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(line);
    }
    (!out.is_empty()).then_some(out)
}
