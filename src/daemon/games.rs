//! Finished games kept on the device: `DATA_DIR/games/ID.sgf`, listed by `GET /api/v1/games`
//! and served by `GET /api/v1/games/ID.sgf`. Without a data directory they are kept in memory
//! for the run.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Serialize;

use crate::rules::GameRecord;

/// One finished game as listed.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct GameEntry {
    /// Its id: `YYYYMMDD-HHMMSS` of when it finished, with `-N` if two share a second.
    pub id: String,
    /// Black player.
    pub black: Option<String>,
    /// White player.
    pub white: Option<String>,
    /// Event.
    pub event: Option<String>,
    /// Round.
    pub round: Option<String>,
    /// Result (SGF `RE`).
    pub result: Option<String>,
    /// Moves and passes.
    pub moves: usize,
    /// Points per side.
    pub size: u8,
    #[serde(skip)]
    sgf: String,
}

impl GameEntry {
    fn of(id: String, record: &GameRecord, sgf: String) -> GameEntry {
        let info = &record.info;
        GameEntry {
            id,
            black: info.black.clone(),
            white: info.white.clone(),
            event: info.event.clone(),
            round: info.round.clone(),
            result: info.result.clone(),
            moves: record.moves.len(),
            size: info.size,
            sgf,
        }
    }
}

/// The finished games.
#[derive(Debug, Default)]
pub struct GameStore {
    dir: Option<PathBuf>,
    games: Mutex<Vec<GameEntry>>,
    /// The id of the game on the board, once it has finished (until a new game starts): the
    /// broadcast delay hides it from the public until the public view reaches its end.
    current: Mutex<Option<String>>,
}

impl GameStore {
    /// The games in `data_dir/games` (none without a data directory). Files that are not
    /// valid SGF are skipped with a warning.
    pub fn open(data_dir: Option<&Path>) -> GameStore {
        let dir = data_dir.map(|d| d.join("games"));
        let mut games = Vec::new();
        if let Some(dir) = &dir {
            if let Ok(entries) = std::fs::read_dir(dir) {
                for e in entries.flatten() {
                    let path = e.path();
                    let Some(id) = path
                        .file_name()
                        .and_then(|n| n.to_str())
                        .and_then(|n| n.strip_suffix(".sgf"))
                    else {
                        continue;
                    };
                    match std::fs::read(&path).map(|b| (GameRecord::from_sgf_bytes(&b), b)) {
                        Ok((Ok(record), bytes)) => games.push(GameEntry::of(
                            id.to_string(),
                            &record,
                            String::from_utf8_lossy(&bytes).into_owned(),
                        )),
                        _ => {
                            tracing::warn!("skipping {}: not a readable SGF record", path.display())
                        }
                    }
                }
            }
        }
        games.sort_by(|a: &GameEntry, b| a.id.cmp(&b.id));
        GameStore {
            dir,
            games: Mutex::new(games),
            current: Mutex::new(None),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<GameEntry>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Marks game `id` as the one on the board (`None`: a new game started).
    pub fn set_current(&self, id: Option<String>) {
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = id;
    }

    /// The finished game still on the board, if any.
    pub fn current(&self) -> Option<String> {
        self.current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The games, newest first.
    pub fn list(&self) -> Vec<GameEntry> {
        let mut v = self.lock().clone();
        v.reverse();
        v
    }

    /// The record of game `id`.
    pub fn sgf(&self, id: &str) -> Option<String> {
        self.lock()
            .iter()
            .find(|g| g.id == id)
            .map(|g| g.sgf.clone())
    }

    /// A fresh id for a game finished at unix time `secs`.
    pub fn new_id(&self, secs: u64) -> String {
        let base = timestamp(secs);
        let games = self.lock();
        let mut id = base.clone();
        let mut n = 1;
        while games.iter().any(|g| g.id == id) {
            n += 1;
            id = format!("{base}-{n}");
        }
        id
    }

    /// Keeps (or updates) game `id`; writes `games/ID.sgf` when there is a data directory.
    ///
    /// # Errors
    /// The file could not be written (the game is kept in memory all the same).
    pub fn keep(&self, id: &str, record: &GameRecord) -> std::io::Result<()> {
        let sgf = record.to_sgf();
        {
            let mut games = self.lock();
            let entry = GameEntry::of(id.to_string(), record, sgf.clone());
            match games.iter_mut().find(|g| g.id == id) {
                Some(g) => *g = entry,
                None => games.push(entry),
            }
        }
        if let Some(dir) = &self.dir {
            std::fs::create_dir_all(dir)?;
            crate::files::write_atomic(&dir.join(format!("{id}.sgf")), sgf.as_bytes())?;
        }
        Ok(())
    }
}

/// `YYYYMMDD-HHMMSS` (UTC) of unix time `secs`.
fn timestamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dates_and_games_survive_a_restart() {
        assert_eq!(timestamp(0), "19700101-000000");
        assert_eq!(timestamp(1_796_000_000), "20261130-005320");
        let dir = tempfile::tempdir().unwrap();
        let store = GameStore::open(Some(dir.path()));
        let record = GameRecord::from_sgf_str("(;SZ[9]PB[A]PW[B]RE[B+R];B[cc];W[dd])").unwrap();
        let id = store.new_id(1_796_000_000);
        store.keep(&id, &record).unwrap();
        assert_eq!(store.new_id(1_796_000_000), "20261130-005320-2");
        std::fs::write(dir.path().join("games/broken.sgf"), "(;B[").unwrap();
        let again = GameStore::open(Some(dir.path()));
        let list = again.list();
        assert_eq!(list.len(), 1);
        assert_eq!(
            (
                list[0].black.as_deref(),
                list[0].result.as_deref(),
                list[0].moves
            ),
            (Some("A"), Some("B+R"), 2)
        );
        assert!(again.sgf(&id).unwrap().contains("PB[A]"));
        assert!(again.sgf("nope").is_none());
    }
}
