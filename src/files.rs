//! Small file helpers for the shell.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` so that a crash or power cut leaves either the old file or the
/// new one, never a torn one: write a temporary file beside it, fsync, rename over, fsync the
/// directory.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let (dir, tmp) = atomic_parts(path)?;
    {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    fs::rename(&tmp, path)?;
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Takes `dir/smartgoban.lock` for this process (an advisory `flock`, let go when the
/// process ends, however it ends): one service per data directory.
///
/// # Errors
/// [`io::ErrorKind::WouldBlock`] when another process holds it; any error making the file.
pub fn lock_dir(dir: &Path) -> io::Result<fs::File> {
    fs::create_dir_all(dir)?;
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("smartgoban.lock"))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(fs::TryLockError::WouldBlock) => Err(io::ErrorKind::WouldBlock.into()),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Largest input file read whole (SGF records, board scripts, config): 16 MiB. Real game
/// records are a few KiB; the biggest commented ones a few hundred.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// Reads a whole input file, refusing what is not a regular file (a directory, a FIFO, a
/// device such as /dev/zero) or is larger than [`MAX_INPUT_BYTES`].
pub fn read_input(path: &Path) -> io::Result<Vec<u8>> {
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} bytes is too large (at most {} MiB)",
                meta.len(),
                MAX_INPUT_BYTES >> 20
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    use std::io::Read;
    fs::File::open(path)?
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "file grew too large while read",
        ));
    }
    Ok(bytes)
}

/// The directory of `path` and the temporary file [`write_atomic`] writes there.
fn atomic_parts(path: &Path) -> io::Result<(&Path, std::path::PathBuf)> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    Ok((dir, dir.join(format!(".{}.tmp", name.to_string_lossy()))))
}

/// Whether [`write_atomic`] could write `path` now: its temporary file is made (new) and
/// removed again; `path` itself is not touched.
///
/// # Errors
/// Why the temporary file cannot be made (no such directory, permission, name too long, …).
pub fn check_atomic_write(path: &Path) -> io::Result<()> {
    let (_, tmp) = atomic_parts(path)?;
    let made = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp);
    match made {
        Ok(_) => fs::remove_file(&tmp),
        // left by an earlier write that stopped half-way: write_atomic replaces it
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            fs::OpenOptions::new().write(true).open(&tmp).map(drop)
        }
        Err(e) => Err(e),
    }
}

/// A data directory that exists as something else (a file) is named as such, not as the
/// "File exists" its creation would report.
pub fn not_a_file(dir: &Path) -> io::Result<()> {
    match fs::metadata(dir) {
        Ok(m) if !m.is_dir() => Err(io::Error::other(format!(
            "the data directory {} is a file, not a directory",
            dir.display()
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => Err(io::Error::other(format!(
            "the data directory {} is not a directory: a part of its path is a file",
            dir.display()
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound && fs::symlink_metadata(dir).is_ok() => {
            Err(io::Error::other(format!(
                "the data directory {} is a symbolic link to nothing",
                dir.display()
            )))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_holder_of_a_data_directory_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_dir(dir.path()).unwrap();
        let second = lock_dir(dir.path()).unwrap_err();
        assert_eq!(second.kind(), io::ErrorKind::WouldBlock);
        drop(first);
        assert!(lock_dir(dir.path()).is_ok(), "free once the holder is gone");
    }

    #[test]
    fn input_must_be_a_regular_file_of_sane_size() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read_input(dir.path()).is_err());
        assert!(read_input(Path::new("/dev/zero")).is_err());
        let f = dir.path().join("x.sgf");
        fs::write(&f, b"(;)").unwrap();
        assert_eq!(read_input(&f).unwrap(), b"(;)");
    }

    #[test]
    fn replaces_content_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("game.sgf");
        write_atomic(&path, b"(;)").unwrap();
        write_atomic(&path, b"(;B[aa])").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"(;B[aa])");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1);
    }
}
