//! Loading what the virtual board plays: a game record, a board script, or the built-in game.

use std::path::{Path, PathBuf};

use crate::rules::{GameRecord, SgfError};
use crate::sim::{Script, ScriptError, Source};

/// The built-in game: Danghu game 3, Fan Xiping (Black) vs Shi Xiangxia (White), 1739, Black
/// wins by 14 stones — a public-domain classical record (座子 opening: four stones set on the
/// corner star points, White moves first). See assets/games/README.md.
pub const BUILTIN_GAME: &[u8] = include_bytes!("../../assets/games/danghu03.sgf");

/// Why a game source cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The file could not be read.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The SGF is malformed.
    #[error("{path}")]
    Sgf {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: SgfError,
    },
    /// The board script is malformed.
    #[error("{path}")]
    Script {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        source: ScriptError,
    },
    /// The record cannot be played on a physical board.
    #[error("{path}: {why}")]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
}

/// Loads the game or script to play; with neither, the built-in game. Returns the source and
/// a short description for people.
pub fn load(game: Option<&Path>, script: Option<&Path>) -> Result<(Source, String), SourceError> {
    if let Some(path) = script {
        let bytes = crate::files::read_input(path).map_err(|source| SourceError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let text = String::from_utf8(bytes).map_err(|_| SourceError::Unsupported {
            path: path.to_path_buf(),
            why: "a board script must be UTF-8 text".to_string(),
        })?;
        let script = Script::parse(&text).map_err(|source| SourceError::Script {
            path: path.to_path_buf(),
            source,
        })?;
        return Ok((Source::Script(script), format!("script {}", path.display())));
    }
    let (bytes, path) = match game {
        Some(path) => (
            crate::files::read_input(path).map_err(|source| SourceError::Read {
                path: path.to_path_buf(),
                source,
            })?,
            path.to_path_buf(),
        ),
        None => (BUILTIN_GAME.to_vec(), PathBuf::from("(built-in game)")),
    };
    let record = GameRecord::from_sgf_bytes(&bytes).map_err(|source| SourceError::Sgf {
        path: path.clone(),
        source,
    })?;
    let size = record.info.size;
    if !matches!(size, 9 | 13 | 19) {
        return Err(SourceError::Unsupported {
            path,
            why: format!(
                "the board is {size}x{size}; the virtual board has 9, 13 or 19 points per side"
            ),
        });
    }
    let who = match (&record.info.black, &record.info.white) {
        (Some(b), Some(w)) => format!("{b} (B) vs {w} (W)"),
        _ => path.display().to_string(),
    };
    let date = record
        .info
        .date
        .as_deref()
        .map(|d| format!(", {d}"))
        .unwrap_or_default();
    let description = format!("{who}{date}, {} moves", record.moves.len());
    Ok((Source::Record(record), description))
}
