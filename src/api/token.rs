//! The referee's API token: created at first start in the data directory (`api-token`, mode
//! 0600, 32 random bytes as 64 hex digits), shown by `smartgoban token`, required as
//! `Authorization: Bearer TOKEN` by every `POST` (and by reads when they are not public).

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rand::RngCore;

/// The token's file name in the data directory.
pub const TOKEN_FILE: &str = "api-token";

/// Why the token could not be read or made.
#[derive(Debug, thiserror::Error)]
#[error("API token {path}: {cause}")]
pub struct TokenError {
    /// The file.
    pub path: PathBuf,
    /// Why (part of the message, not a separate source: printed once).
    pub cause: std::io::Error,
}

/// The token in `dir/api-token`, made (mode 0600) if there is none. A file readable by others
/// is made private again; an empty or malformed file is replaced.
///
/// # Errors
/// The directory or the file cannot be created, read or written.
pub fn load_or_create(dir: &Path) -> Result<String, TokenError> {
    let path = dir.join(TOKEN_FILE);
    let err = |cause| TokenError {
        path: path.clone(),
        cause,
    };
    crate::files::not_a_file(dir).map_err(err)?;
    std::fs::create_dir_all(dir).map_err(err)?;
    if let Ok(text) = std::fs::read_to_string(&path) {
        let token = text.trim().to_string();
        if token.len() >= 32 && token.chars().all(|c| c.is_ascii_hexdigit()) {
            keep_private(&path);
            return Ok(token);
        }
    }
    let token = new_token();
    write_private(&path, &token).map_err(err)?;
    Ok(token)
}

/// A new token: 32 random bytes as 64 hex digits.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `token` to `path` (mode 0600, through a `.new` file renamed over it, synced).
///
/// # Errors
/// The file cannot be created, written or renamed.
pub fn write_private(path: &Path, token: &str) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".new");
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)?;
    file.write_all(format!("{token}\n").as_bytes())
        .and_then(|_| file.sync_all())?;
    std::fs::rename(&tmp, path)
}

/// Makes a token file readable by others private again (mode 0600); when it cannot (a data
/// directory gone read-only: a failing SD card), says so and goes on: the token is still
/// read.
pub fn keep_private(path: &Path) {
    let open = std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o077 != 0);
    if open {
        match std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)) {
            Ok(()) => tracing::warn!(
                "{} was readable by others: made private (mode 0600)",
                path.display()
            ),
            Err(e) => tracing::warn!(
                "{} is readable by others and cannot be made private: {e}",
                path.display()
            ),
        }
    }
}

/// Whether `given` equals `token`, comparing every byte (no early exit on the first
/// difference, so response times do not tell how much of a guess was right).
pub fn matches(token: &str, given: &str) -> bool {
    let (a, b) = (token.as_bytes(), given.as_bytes());
    let mut diff = a.len() ^ b.len();
    for (i, x) in a.iter().enumerate() {
        diff |= usize::from(x ^ b.get(i).copied().unwrap_or(0));
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_once_private_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let t = load_or_create(dir.path()).unwrap();
        assert_eq!(t.len(), 64);
        let path = dir.path().join(TOKEN_FILE);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(load_or_create(dir.path()).unwrap(), t);
        // Opened up by someone: private again, same token.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(load_or_create(dir.path()).unwrap(), t);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // A broken file is replaced.
        std::fs::write(&path, "not a token").unwrap();
        let t2 = load_or_create(dir.path()).unwrap();
        assert_ne!(t2, t);
        assert!(matches(&t2, &t2));
        assert!(!matches(&t2, &t));
        assert!(!matches(&t2, ""));
        assert!(!matches(&t2, &t2[..63]));
    }
}
