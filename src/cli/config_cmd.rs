//! `smartgoban config check FILE` and `smartgoban config example` (issue 16).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::config::Config;

/// The documented example configuration: `systemd/smartgoban.toml`, the file the installer
/// puts in `/etc/smartgoban/` (a test keeps them the same file).
pub const EXAMPLE: &str = include_str!("../../systemd/smartgoban.toml");

/// `smartgoban config`.
#[derive(Debug, Clone, Args)]
pub struct ConfigArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: ConfigCommand,
}

/// The `config` subcommands.
#[derive(Debug, Clone, Subcommand)]
pub enum ConfigCommand {
    /// Validates a config file: every key, each error with the file's line and the key's
    /// name; then prints the effective configuration (defaults included) as TOML. Exit 0 when
    /// valid, 1 when not, with the error on stderr.
    Check {
        /// The config file.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Prints the documented example configuration (systemd/smartgoban.toml).
    Example,
}

/// What `check` found beside the errors: warnings a person should read (the device path does
/// not exist yet, which the service waits for).
fn warnings(config: &Config) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(serial) = &config.serial {
        match std::fs::metadata(serial) {
            Err(_) => out.push(format!(
                "serial {} does not exist (yet): the service waits for the board to be plugged in",
                serial.display()
            )),
            Ok(m) if !std::os::unix::fs::FileTypeExt::is_char_device(&m.file_type()) => {
                out.push(format!(
                    "serial {} is not a character device: `run` refuses it",
                    serial.display()
                ))
            }
            Ok(_) => {}
        }
    }
    out
}

/// Runs `config`; returns the exit code (0 valid, 1 invalid).
pub fn run(args: &ConfigArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match &args.command {
        ConfigCommand::Example => {
            let _ = out.write_all(EXAMPLE.as_bytes());
            0
        }
        ConfigCommand::Check { file } => check(file, out, err),
    }
}

fn check(file: &Path, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match Config::load(file) {
        Ok(config) => {
            for w in warnings(&config) {
                let _ = writeln!(err, "warning: {w}");
            }
            let _ = writeln!(
                out,
                "# {}: valid. The effective configuration (defaults included):",
                file.display()
            );
            let _ = out.write_all(config.to_toml().as_bytes());
            0
        }
        Err(e) => {
            let mut msg = format!("error: {e}");
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                msg.push_str(&format!(": {s}"));
                source = s.source();
            }
            let _ = writeln!(err, "{msg}");
            1
        }
    }
}
