//! `smartgoban score`: the final position of a record counted under the Chinese rules (G9:
//! area, C2: komi in points and stones, R21.2: neutral points shared half each).
//!
//! The position is the record's last one (setup stones, then the main line as a referee at the
//! board keeps it: an invalid placement — on an occupied point, a forbidden point or an
//! immediate ko retake, see [`check_record`] — is a pass). Such moves are listed
//! ([`Score::invalid_moves_read_as_passes`], and a note in the text), since the position counted
//! is then not the one the record shows. The dead stones are proposed as the
//! service proposes them when both sides have passed ([`propose_dead`], `--dead auto`), none
//! (`--dead none`), or given (`--dead D4,E5`).

use std::io::Write;

use super::ScoreArgs;
use crate::rules::{
    area_count, check_record, chinese_result, propose_dead, CheckReport, GameRecord, Point,
    ViolationCode, DEFAULT_PLAYOUTS,
};

/// The komi of a record without `KM`: 7.5 points (C2: 3¾ stones).
pub const DEFAULT_KOMI: f64 = 7.5;

/// The seed of the dead-stone proposal: the service's, so both propose the same stones.
const PROPOSAL_SEED: u64 = 1;

/// The count of a record, as `--json` prints it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Score {
    /// Black's living stones and the points it alone surrounds, dead stones taken off
    /// (points, without the dame).
    pub black_area: u32,
    /// White's, the same way (points, without the dame).
    pub white_area: u32,
    /// Neutral points, shared half each (R21.2).
    pub dame: u32,
    /// The stones taken off as dead, GTP coordinates, row-major from the top.
    pub dead: Vec<String>,
    /// Komi in points, given by Black.
    pub komi: f64,
    /// SGF `RE`: `B+3.5`, `W+0.5`, `0` for a draw.
    pub result: String,
    /// Black's margin in stones (子): points / 2, negative when White wins.
    pub margin_stones: f64,
    /// The record's moves that are invalid under the rules and were read as passes (a stone on
    /// an occupied point, C5/O13; a forbidden point, G5/R19; an immediate ko retake,
    /// R18.3/R20.1), in move order. When there are any, the position counted is not the one
    /// the record shows. Empty for a record without them.
    pub invalid_moves_read_as_passes: Vec<PassedMove>,
}

/// A move of the record read as a pass (see [`Score::invalid_moves_read_as_passes`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PassedMove {
    /// 1-based number of the move in the main line (passes count).
    pub number: u32,
    /// `black` or `white`.
    pub color: String,
    /// The point the record gives, GTP.
    pub point: String,
    /// Why it is invalid: `occupied_point`, `forbidden_point` or `ko_recapture`.
    pub code: String,
    /// The RULES.md clause(s).
    pub clause: String,
}

/// Why a record could not be counted: exit 2.
#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    /// The file cannot be read.
    #[error("{0}: cannot read: {1}")]
    Read(String, std::io::Error),
    /// The file is not a game record.
    #[error("{0}: {1}")]
    Sgf(String, crate::rules::SgfError),
    /// A point of `--dead` is not on the board or holds no stone.
    #[error("--dead {0}: {1}")]
    Dead(String, String),
    /// `--komi` is not a finite number.
    #[error("--komi {0}: give the komi in points, such as 7.5")]
    Komi(f64),
}

/// Counts the record of `args` (see the module docs).
///
/// # Errors
/// [`ScoreError`]: an unreadable file or record, a bad `--dead` point or `--komi`.
pub fn score(args: &ScoreArgs) -> Result<Score, ScoreError> {
    let name = args.file.display().to_string();
    let bytes =
        crate::files::read_input(&args.file).map_err(|e| ScoreError::Read(name.clone(), e))?;
    let record = GameRecord::from_sgf_bytes(&bytes).map_err(|e| ScoreError::Sgf(name, e))?;
    let komi = args.komi.or(record.info.komi).unwrap_or(DEFAULT_KOMI);
    if !komi.is_finite() {
        return Err(ScoreError::Komi(komi));
    }
    let size = record.info.size;
    let report = check_record(&record);
    let board = report.final_game.board();
    let invalid_moves_read_as_passes = passed_moves(&record, &report);
    let dead: Vec<Point> = match args.dead.trim() {
        "auto" => propose_dead(board, PROPOSAL_SEED, DEFAULT_PLAYOUTS),
        "none" | "" => Vec::new(),
        list => {
            let mut dead = Vec::new();
            for text in list.split(',').map(str::trim).filter(|t| !t.is_empty()) {
                let p = Point::from_gtp(text, size)
                    .map_err(|e| ScoreError::Dead(text.into(), e.to_string()))?;
                if board.get(p).is_none() {
                    return Err(ScoreError::Dead(
                        text.into(),
                        "no stone there in the final position".into(),
                    ));
                }
                // a chain is dead or alive as a whole
                for q in board.group(p) {
                    if !dead.contains(&q) {
                        dead.push(q);
                    }
                }
            }
            dead.sort_by_key(|p| p.index(size));
            dead
        }
    };
    let count = area_count(board, &dead);
    let result = chinese_result(&count, size, komi, [0, 0]);
    Ok(Score {
        black_area: count.black_stones + count.black_territory,
        white_area: count.white_stones + count.white_territory,
        dame: count.dame,
        dead: dead.iter().map(|p| p.to_gtp(size)).collect(),
        komi,
        result: result.re,
        margin_stones: result.margin_stones,
        invalid_moves_read_as_passes,
    })
}

/// The moves of `record` that [`check_record`] turned into passes: a point in the record, a
/// pass in the refereed line.
fn passed_moves(record: &GameRecord, report: &CheckReport) -> Vec<PassedMove> {
    let size = record.info.size;
    record
        .moves
        .iter()
        .zip(&report.refereed)
        .enumerate()
        .filter_map(|(k, (m, &(_, refereed)))| {
            let p = m.point?;
            if refereed.is_some() {
                return None;
            }
            let number = k as u32 + 1;
            // the violation that made it a pass (a move can also be `two_moves_in_a_row`)
            let v = report
                .violations
                .iter()
                .find(|v| v.number == number && v.code != ViolationCode::TwoMovesInARow);
            Some(PassedMove {
                number,
                color: m.color.as_str().to_string(),
                point: p.to_gtp(size),
                code: v.map_or("invalid", |v| v.code.as_str()).to_string(),
                clause: v.map_or("", |v| v.clause).to_string(),
            })
        })
        .collect()
}

/// Runs `score`: the count on `out` (one JSON object with `--json`, else lines for people),
/// an error on `err`. Returns the exit code: 0, or 2 when the record cannot be counted.
pub fn run(args: &ScoreArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let s = match score(args) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            return 2;
        }
    };
    if args.json {
        let _ = writeln!(out, "{}", serde_json::to_string(&s).unwrap_or_default());
        return 0;
    }
    let half = f64::from(s.dame) / 2.0;
    let _ = writeln!(
        out,
        "Black {} + {half} dame = {} points; White {} + {half} dame = {} points; komi {}",
        s.black_area,
        f64::from(s.black_area) + half,
        s.white_area,
        f64::from(s.white_area) + half,
        s.komi
    );
    let _ = writeln!(
        out,
        "dead: {}",
        if s.dead.is_empty() {
            "none".to_string()
        } else {
            s.dead.join(" ")
        }
    );
    let _ = writeln!(
        out,
        "result: {} ({:+} stones for Black)",
        s.result, s.margin_stones
    );
    if !s.invalid_moves_read_as_passes.is_empty() {
        let moves: Vec<String> = s
            .invalid_moves_read_as_passes
            .iter()
            .map(|m| {
                format!(
                    "#{} {} {} ({}, {})",
                    m.number, m.color, m.point, m.code, m.clause
                )
            })
            .collect();
        let n = moves.len();
        let _ = writeln!(
            out,
            "note: {n} invalid move{} of the record read as pass{}, so the position counted is \
             not the record's: {}",
            if n == 1 { "" } else { "s" },
            if n == 1 { "" } else { "es" },
            moves.join(", ")
        );
    }
    0
}
