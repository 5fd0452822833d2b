//! Where the logs go (issue 16): to the journal when systemd connected this process's stderr
//! to it (`$JOURNAL_STREAM`, systemd.exec(5)), with every field of an event as a journal field
//! of its own (`MOVE_NUMBER`, `POINT`, `CODE`, … : `journalctl -u smartgoban CODE=ko_recapture`);
//! to the terminal otherwise. The level comes from `$SMARTGOBAN_LOG` (an `EnvFilter`
//! directive: `info`, `smartgoban=debug`), else the config file's `log`, else the command's
//! default; [`LogLevel`] sets it once the config file is read.

use std::os::unix::fs::MetadataExt;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{reload, EnvFilter, Layer, Registry};

/// The environment variable of the log level.
pub const LOG_ENV: &str = "SMARTGOBAN_LOG";

/// Where [`init`] sent the logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogTarget {
    /// The systemd journal, with structured fields.
    Journal,
    /// Standard error, as text.
    Terminal,
}

/// Changes the level set by [`init`] while the service runs.
pub struct LogLevel {
    handle: reload::Handle<EnvFilter, Registry>,
    from_env: bool,
}

impl LogLevel {
    /// Sets the level to `directive` (the config file's `log`) unless `$SMARTGOBAN_LOG` set it,
    /// which wins.
    ///
    /// # Errors
    /// The directive is not a valid filter (`info`, `warn`, `smartgoban=debug,info`).
    pub fn set_from_config(&self, directive: &str) -> Result<(), String> {
        if self.from_env {
            return Ok(());
        }
        let filter = EnvFilter::try_new(directive).map_err(|e| e.to_string())?;
        self.handle.reload(filter).map_err(|e| e.to_string())
    }
}

/// Whether `journal_stream` (`$JOURNAL_STREAM`, `DEVICE:INODE` in decimal) names the file
/// whose device and inode are `(dev, ino)`: systemd sets it for the stream it gives a service,
/// and a process whose stderr is now something else (redirected by a shell) must not log to
/// the journal.
pub fn is_journal_stream(journal_stream: &str, (dev, ino): (u64, u64)) -> bool {
    let Some((d, i)) = journal_stream.split_once(':') else {
        return false;
    };
    d.parse() == Ok(dev) && i.parse() == Ok(ino)
}

/// The device and inode of this process's stderr.
fn stderr_identity() -> Option<(u64, u64)> {
    use std::os::fd::AsFd;
    let fd = std::io::stderr().as_fd().try_clone_to_owned().ok()?;
    let meta = std::fs::File::from(fd).metadata().ok()?;
    Some((meta.dev(), meta.ino()))
}

/// Starts logging at `default_level` (unless `$SMARTGOBAN_LOG` says otherwise): to the journal
/// when stderr is systemd's journal stream and the journal answers, else to stderr.
pub fn init(default_level: &str) -> (LogTarget, LogLevel) {
    let env = std::env::var(LOG_ENV).ok();
    let filter = env
        .as_deref()
        .and_then(|d| EnvFilter::try_new(d).ok())
        .unwrap_or_else(|| EnvFilter::new(default_level));
    let (filter, handle) = reload::Layer::new(filter);
    let to_journal = std::env::var("JOURNAL_STREAM")
        .ok()
        .zip(stderr_identity())
        .is_some_and(|(stream, id)| is_journal_stream(&stream, id));
    let journal = to_journal
        .then(|| tracing_journald::layer().ok())
        .flatten()
        .map(|l| {
            l.with_field_prefix(None)
                .with_syslog_identifier("smartgoban".to_string())
        });
    let target = if journal.is_some() {
        LogTarget::Journal
    } else {
        LogTarget::Terminal
    };
    let terminal = journal.is_none().then(|| {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .boxed()
    });
    tracing_subscriber::registry()
        .with(filter)
        .with(journal)
        .with(terminal)
        .init();
    (
        target,
        LogLevel {
            handle,
            from_env: env.is_some(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_journal_stream_must_be_stderr_itself() {
        assert!(is_journal_stream("2049:123456", (2049, 123456)));
        assert!(!is_journal_stream("2049:123456", (2049, 123457)));
        assert!(!is_journal_stream("2050:123456", (2049, 123456)));
        for bad in ["", "2049", "2049:", ":123456", "x:y", "2049:123456:1"] {
            assert!(!is_journal_stream(bad, (2049, 123456)), "{bad:?}");
        }
    }
}
