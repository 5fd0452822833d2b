//! `smartgoban sim`: the virtual board alone, for a separate `run`.

use std::time::Duration;

use super::source::{self, SourceError};
use super::SimArgs;
use crate::sim;

/// Errors of `sim`.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The game or script could not be loaded.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The pty could not be set up.
    #[error("virtual board on {path}")]
    Device {
        /// The link path.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Runs the virtual board until the game is played out (with `--exit-when-done`) or Ctrl-C.
pub async fn run(args: SimArgs) -> Result<(), SimError> {
    let (source, description) = source::load(args.game.as_deref(), args.board.script.as_deref())?;
    let device = sim::start(
        &source,
        args.board.playing(),
        args.link.clone(),
        0x5167_0002,
    )
    .map_err(|source| SimError::Device {
        path: args.link.clone(),
        source,
    })?;
    let game = match (&args.game, &args.board.script) {
        (_, Some(script)) => format!(" --script {}", script.display()),
        (Some(game), None) => format!(" --game {}", game.display()),
        (None, None) => String::new(),
    };
    println!(
        "virtual board on {} ({description}); start the service with: smartgoban run --serial {}{game}",
        args.link.display(),
        args.link.display()
    );
    print_faulty_sensors(source.setup().size(), &args.board.playing());
    let done = async {
        loop {
            if let Some(report) = device.try_done() {
                return report;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::select! {
        report = done => {
            println!("game played out: {} scans, {} ms of board time", report.scans, report.board_ms);
            if !args.exit_when_done {
                println!("the board stays connected; Ctrl-C to stop");
                super::run::wait_for_signal().await;
            }
        }
        _ = super::run::wait_for_signal() => {}
    }
    device.stop().map_err(|source| SimError::Device {
        path: args.link.clone(),
        source,
    })
}

/// Prints which sensors of a `--firmware` board are faulty (one line; nothing when none).
pub fn print_faulty_sensors(size: u8, playing: &sim::Playing) {
    let faults = sim::faulty_sensors(size, playing);
    if !faults.is_empty() {
        let list: Vec<String> = faults.iter().map(|(p, f)| format!("{p} {f}")).collect();
        println!("  faulty sensors: {}", list.join(", "));
    }
}
