//! The virtual board (DESIGN.md `sim`): acts as the board's microcontroller on a
//! pseudo-terminal, speaking the serial protocol (versions 1 to 4, with the board's history
//! and, read through Hall sensors, its calibration: [`board`]), so the whole product runs and
//! is tested without hardware.
//!
//! A game record (through virtual players, [`player`]) or a board script ([`script`]) becomes
//! a timeline of physical [`action::Action`]s; the [`physics`] turns the board and the hands
//! over it into scans with the chosen [`noise`] model (or, with `--firmware`, the [`hall`]
//! board reads it through Hall sensors and the firmware's own logic); the [`device`] streams
//! them at 50 scans
//! per second of board time. Everything random is drawn from one seeded generator, so a run
//! can be repeated exactly.

pub mod action;
pub mod blitz;
pub mod board;
#[cfg(test)]
mod calibration_tests;
pub mod device;
pub mod fuzz;
pub mod hall;
pub mod inject;
pub mod loopback;
pub mod noise;
pub mod physics;
pub mod player;
pub mod replay;
pub mod script;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

pub use action::{Action, LinkFault, ResetKind, TimedAction};
pub use device::{spawn, DeviceConfig, SimHandle, SimReport, Speed};
pub use noise::{NoiseModel, NoiseParams};
pub use replay::{Replay, Tick};
pub use script::{Script, ScriptError};

use std::path::PathBuf;

use crate::referee::GameSetup;
use crate::rules::GameRecord;

/// What the virtual board plays.
#[derive(Clone, Debug)]
pub enum Source {
    /// A game record, played move by move by virtual players.
    Record(GameRecord),
    /// A board script, played action by action.
    Script(Script),
}

impl Source {
    /// The game the service should expect (size, setup stones, first mover, players…).
    pub fn setup(&self) -> GameSetup {
        match self {
            Source::Record(r) => GameSetup::from_record(r),
            Source::Script(s) => s.setup.clone(),
        }
    }

    /// The timeline of physical actions. For records, the players' noise and timing come from
    /// `noise` and `seed`; scripts are played as written (their sensors still get `noise`'s
    /// misreads).
    pub fn timeline(&self, noise: &NoiseParams, seed: u64) -> Vec<TimedAction> {
        self.timeline_with(noise, seed, &player::PlayerOptions::default())
            .0
    }

    /// As [`Source::timeline`], with the players' options (clock presses, an injected
    /// violation); returns what was injected.
    pub fn timeline_with(
        &self,
        noise: &NoiseParams,
        seed: u64,
        options: &player::PlayerOptions,
    ) -> (Vec<TimedAction>, Option<inject::Injected>) {
        match self {
            Source::Record(r) => {
                let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_0f91_a7e5);
                player::timeline_with(r, noise, &mut rng, options)
            }
            Source::Script(s) => (s.actions.clone(), None),
        }
    }

    /// The scans a board takes of [`Source::timeline_with`] in one uninterrupted session
    /// ([`Replay::into_scans`], with [`TAIL_MS`] after the last action).
    pub fn scans(
        &self,
        noise: &NoiseParams,
        seed: u64,
        options: &player::PlayerOptions,
    ) -> Vec<smartgoban_protocol::Scan> {
        let (actions, _) = self.timeline_with(noise, seed, options);
        let size = smartgoban_protocol::BoardSize::new(self.setup().size())
            .unwrap_or(smartgoban_protocol::BoardSize::NINETEEN);
        Replay::new(actions, size, noise, seed).into_scans(TAIL_MS)
    }
}

/// How the virtual board plays a source (the `--noise`, `--seed` and `--speed` flags).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Playing {
    /// Noise model.
    pub noise: NoiseModel,
    /// Seed of every random choice.
    pub seed: u64,
    /// Clock speed.
    pub speed: Speed,
    /// The players of a game record press the clock after each move (a game with a time
    /// control); a script presses it where it says.
    pub press_clock: bool,
    /// The board is read as the real one: Hall sensors with their spread and faults, read
    /// through the firmware's own calibration and classification ([`hall`], `--firmware`).
    pub firmware: bool,
    /// Faulty sensors added to the noise model's, with `firmware` (`--sensor-faults`).
    pub sensor_faults: hall::SensorFaults,
    /// With `firmware`: the board comes uncalibrated from the factory and waits for
    /// `smartgoban calibrate` (its person follows the LED prompts) before the game starts
    /// (`--uncalibrated`).
    pub uncalibrated: bool,
}

impl Playing {
    /// The noise parameters: the model's, read through Hall sensors with `firmware`.
    pub fn params(&self) -> noise::NoiseParams {
        let mut params = self.noise.params();
        if self.firmware {
            let mut hall = hall::HallParams::for_noise(self.noise).with_faults(self.sensor_faults);
            hall.uncalibrated = self.uncalibrated;
            params.hall = Some(hall);
        }
        params
    }
}

/// The faulty sensors of the board `playing` plays on a board of `size` lines with
/// `--firmware` — the noise model's and `--sensor-faults`, drawn from the seed as the board
/// draws them: (GTP point, fault name), in the order drawn; none without `--firmware`.
pub fn faulty_sensors(size: u8, playing: &Playing) -> Vec<(String, &'static str)> {
    let params = playing.params();
    let (Some(hall), Ok(board_size)) = (&params.hall, smartgoban_protocol::BoardSize::new(size))
    else {
        return Vec::new();
    };
    // the replay's first draws are the board's (Replay::new)
    let mut rng = ChaCha8Rng::seed_from_u64(playing.seed);
    let board = hall::HallBoard::new(board_size, &params, hall, &mut rng);
    board
        .faults()
        .iter()
        .map(|&(i, name)| (crate::rules::Point::from_index(i, size).to_gtp(size), name))
        .collect()
}

/// Board time after the last action before a timeline counts as played out, ms: enough for
/// the last move to settle and its clock press to be judged (session::PRESS_GRACE_MS).
pub const TAIL_MS: u64 = 1_500;

/// Starts the virtual board playing `source`, exposed at `link` (a symlink to its pty).
pub fn start(
    source: &Source,
    playing: Playing,
    link: PathBuf,
    device_id: u32,
) -> std::io::Result<SimHandle> {
    start_version(
        source,
        playing,
        link,
        device_id,
        smartgoban_protocol::PROTOCOL_VERSION,
    )
}

/// [`start`] with a board that speaks protocol versions 1 to `protocol_version` (2: a board
/// without history, PROTOCOL.md §14).
pub fn start_version(
    source: &Source,
    playing: Playing,
    link: PathBuf,
    device_id: u32,
    protocol_version: u8,
) -> std::io::Result<SimHandle> {
    let noise = playing.params();
    spawn(
        source
            .timeline_with(
                &noise,
                playing.seed,
                &player::PlayerOptions {
                    press_clock: playing.press_clock,
                    injection: None,
                },
            )
            .0,
        DeviceConfig {
            board_size: source.setup().size(),
            speed: playing.speed,
            seed: playing.seed,
            noise,
            tail_ms: TAIL_MS,
            link: Some(link),
            device_id,
            protocol_version,
        },
    )
}
