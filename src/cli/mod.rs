//! The command line (DESIGN.md "Command line"): `demo`, `run`, `sim`, `check`, `score`,
//! `leds test`, `token`, `config`.
//!
//! `smartgoban --help` documents every flag. The commands are library functions so the tests
//! drive exactly what a user runs.

pub mod calibrate;
pub mod check;
pub mod config_cmd;
pub mod demo;
pub mod hall;
pub mod leds;
pub mod logging;
pub mod run;
pub mod score;
pub mod service;
pub mod sim;
pub mod source;

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::referee::{Policy, Profile};
use crate::sim::{NoiseModel, Speed};

/// smartgoban: a real wooden Go board made smart — move inference, the Chinese rules'
/// referee, and a live HTTP API.
#[derive(Debug, Parser)]
#[command(name = "smartgoban", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Commands,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Commands {
    /// The whole product on one machine: a virtual board replays a real game through a
    /// pseudo-terminal to the service, which serves the API. Without GAME.sgf or --script, a
    /// built-in historical game (Fan Xiping vs Shi Xiangxia, Danghu game 3, 1739).
    Demo(DemoArgs),
    /// The service on a Pi: serial device, API.
    Run(RunArgs),
    /// The virtual board alone, exposing a pty at --link PATH for a separate `run`.
    Sim(SimArgs),
    /// Validates game records under the Chinese rules; prints each violation. Exit 0: every
    /// record legal; 1: a violation in any; 2: a file that cannot be read as SGF.
    Check(CheckArgs),
    /// Counts a record's final position under the Chinese rules (area, komi in points and
    /// stones, dame shared); exit 2 if the record cannot be read.
    ///
    /// The record's invalid moves (a stone on an occupied point, a forbidden point, an
    /// immediate ko retake) are read as passes, as the referee at the board reads them; a note
    /// names each (with --json: `invalid_moves_read_as_passes`), since the position counted is
    /// then not the one the record shows.
    Score(ScoreArgs),
    /// The LEDs under the points: `leds test` walks them in chain order to check the wiring.
    Leds(leds::LedsArgs),
    /// Prints the referee's API token (made at first start in the data directory, mode 0600).
    Token(TokenArgs),
    /// The config file: `config check FILE` validates it and prints the effective
    /// configuration; `config example` prints the documented example.
    Config(config_cmd::ConfigArgs),
    /// Guides a person through calibrating the board's Hall sensors (the service stopped):
    /// the empty board, four single stones, every point black, every point white, each shown
    /// on the board's LEDs; reports weak, noisy, swapped and dead sensors with what to do,
    /// writes the calibration into the board's flash and keeps a copy in the data directory.
    /// Exit 0: calibrated; 1: not (nothing written).
    Calibrate(calibrate::CalibrateArgs),
    /// The hall service: every board of a tournament hall read from the hall's MQTT broker,
    /// served as one page and API (the grid of boards, open violations, orphan boards, the R27
    /// results table, pairings, starting a round on every board, one delayed broadcast feed
    /// and every game's record).
    Hall(hall::HallArgs),
}

/// `smartgoban token`.
#[derive(Debug, Clone, Args)]
pub struct TokenArgs {
    /// Config file (its `data_dir`); default /etc/smartgoban/smartgoban.toml if it exists.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Data directory instead of the config's.
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

/// Prints the token of `args`' data directory (made if there is none).
///
/// # Errors
/// The config file or the token file cannot be read or made.
pub fn token(args: &TokenArgs) -> anyhow::Result<String> {
    let dir = match &args.data_dir {
        Some(d) => d.clone(),
        None => {
            let config = match &args.config {
                Some(path) => crate::config::Config::load(path)?,
                None if std::path::Path::new(crate::config::DEFAULT_CONFIG).exists() => {
                    crate::config::Config::load(std::path::Path::new(
                        crate::config::DEFAULT_CONFIG,
                    ))?
                }
                None => crate::config::Config::defaults(),
            };
            config.data_dir
        }
    };
    Ok(crate::api::token::load_or_create(&dir)?)
}

/// How the virtual board plays (shared by `demo` and `sim`).
#[derive(Debug, Clone, Args)]
pub struct BoardArgs {
    /// A board script to play instead of a game record (format: README.md, "Board scripts").
    #[arg(long, value_name = "FILE", conflicts_with = "game")]
    pub script: Option<PathBuf>,
    /// Noise model of the virtual board: clean, realistic, harsh or blitz (quick players whose
    /// moves overlap: some hand is nearly always over the board).
    #[arg(long, default_value = "realistic", value_parser = parse_noise)]
    pub noise: NoiseModel,
    /// Seed of every random choice, so a run can be repeated exactly.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Speed of the virtual clock: `max` (no waiting) or a factor of real time (1 = real time).
    #[arg(long, default_value = "2", value_parser = parse_speed)]
    pub speed: Speed,
    /// Read the virtual board as the real one: Hall sensors with a real batch's spread and a
    /// few faulty ones (weak, noisy, mounted the other way round), calibrated and classified
    /// by the firmware's own logic (hardware/board-core).
    #[arg(long)]
    pub firmware: bool,
    /// With --firmware: faulty sensors added to the noise model's own, drawn from the seed,
    /// e.g. `dead=1,swapped=1,weak=2,noisy=1` (at most 20 of each; `dead`: stuck at a rail,
    /// `swapped`: mounted the other way round, `weak`: a quarter of the gain, `noisy`: eight
    /// times the noise). The board prints which points got them (`faulty sensors: T5 weak,
    /// A2 dead`). A dead sensor's point is read from its neighbours' sensors; two dead within
    /// two lines of each other read uncertain.
    #[arg(
        long,
        value_name = "LIST",
        default_value = "none",
        requires = "firmware"
    )]
    pub sensor_faults: crate::sim::hall::SensorFaults,
    /// With --firmware: the board comes uncalibrated from the factory (the design's
    /// calibration, `calibrated` = 0) and its game waits: a person at the board follows the
    /// LED prompts of `smartgoban calibrate`; once a calibration is stored and a new session
    /// opens (the service's), the person clears the board and the game starts.
    #[arg(long, requires = "firmware")]
    pub uncalibrated: bool,
}

impl BoardArgs {
    /// The noise, seed and speed as the virtual board takes them.
    pub fn playing(&self) -> crate::sim::Playing {
        crate::sim::Playing {
            noise: self.noise,
            seed: self.seed,
            speed: self.speed,
            press_clock: false,
            firmware: self.firmware,
            sensor_faults: self.sensor_faults,
            uncalibrated: self.uncalibrated,
        }
    }
}

/// `smartgoban demo`.
#[derive(Debug, Clone, Args)]
pub struct DemoArgs {
    /// Game record to replay (SGF). Default: the built-in game.
    #[arg(value_name = "GAME.sgf")]
    pub game: Option<PathBuf>,
    /// Virtual board settings.
    #[command(flatten)]
    pub board: BoardArgs,
    /// Address of the API.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8019")]
    pub http: SocketAddr,
    /// Write the record (SGF) here when the game is over.
    #[arg(long, value_name = "OUT.sgf")]
    pub record: Option<PathBuf>,
    /// Write every event here as JSON Lines.
    #[arg(long, value_name = "OUT.jsonl")]
    pub events: Option<PathBuf>,
    /// Keep the record of the game in progress in this directory (current.sgf).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// End after the last move, once the record is written (default: keep serving until
    /// Ctrl-C).
    #[arg(long)]
    pub exit_when_done: bool,
    /// Stabiliser settle time, ms.
    #[arg(long, value_name = "MS", default_value_t = 150, value_parser = clap::value_parser!(u64).range(20..=5000))]
    pub settle_ms: u64,
    /// Referee rules: cn2002 (default, or the script's `profile`) or cn1988.
    #[arg(long, value_parser = parse_profile)]
    pub profile: Option<Profile>,
    /// R20.3, a whole-board cycle (triple ko, eternal life …), by the event's rules: `referee`
    /// (flagged, the referee rules; the default), `no_result` (RE[Void]), `draw` (RE[0]) or
    /// `replay` (RE[Void], to be replayed).
    #[arg(long, value_name = "RULE", value_parser = parse_cycles)]
    pub cycles: Option<crate::referee::CycleRule>,
    /// Play with a game clock (e.g. "main=10m cn=3x60s", "main=5m jp=3x30s"): the virtual
    /// players press it after each move; a script's `time` header is used otherwise.
    #[arg(long, value_name = "SYSTEM", value_parser = parse_time)]
    pub time: Option<crate::clock::TimeSystem>,
    /// What the referee does with violations: `rules` applies the sanctions (invalid moves
    /// come off the board, warnings, losses); `accept` flags them and lets every act stand, as
    /// a record of a finished game needs. Default: `accept` for a game record, `rules` for a
    /// board script.
    #[arg(long, value_name = "rules|accept", value_parser = parse_policy)]
    pub referee: Option<Policy>,
    /// Print nothing but errors and the final summary.
    #[arg(long, short)]
    pub quiet: bool,
    /// Publish the board to a hall's MQTT broker.
    #[command(flatten)]
    pub mqtt: MqttArgs,
}

/// Publishing to a hall's MQTT broker (`demo`, `run`; `run` reads `[mqtt]` too).
#[derive(Debug, Clone, Args)]
pub struct MqttArgs {
    /// The hall's broker, mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (issue 18): the board's
    /// status, state, record and events go there, and it takes the hall's commands.
    #[arg(long, value_name = "URL", value_parser = parse_broker)]
    pub mqtt: Option<crate::mqtt::BrokerUrl>,
    /// The hall's id (one topic level) with --mqtt [default: hall].
    #[arg(long, value_name = "ID", requires = "mqtt", value_parser = parse_hall_id)]
    pub hall: Option<String>,
    /// This board's id in the hall (its table number) with --mqtt [default: 1].
    #[arg(long, value_name = "ID", requires = "mqtt", value_parser = parse_board_id)]
    pub board_id: Option<String>,
}

impl MqttArgs {
    /// The settings these flags give, if `--mqtt` was given.
    pub fn settings(&self) -> Option<crate::mqtt::MqttSettings> {
        self.mqtt.clone().map(|url| {
            crate::mqtt::MqttSettings::new(
                url,
                self.hall.as_deref().unwrap_or("hall"),
                self.board_id.as_deref().unwrap_or("1"),
            )
        })
    }
}

fn parse_broker(s: &str) -> Result<crate::mqtt::BrokerUrl, String> {
    s.parse().map_err(|e: crate::mqtt::MqttError| e.to_string())
}

fn parse_hall_id(s: &str) -> Result<String, String> {
    crate::mqtt::check_id("hall", s)
        .map(|()| s.to_string())
        .map_err(|e| e.to_string())
}

fn parse_board_id(s: &str) -> Result<String, String> {
    crate::mqtt::check_id("board", s)
        .map(|()| s.to_string())
        .map_err(|e| e.to_string())
}

/// `smartgoban run`.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Config file (TOML). Default: /etc/smartgoban/smartgoban.toml if it exists.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Serial device of the board (overrides the config).
    #[arg(long, value_name = "PATH")]
    pub serial: Option<PathBuf>,
    /// Address of the API (overrides the config).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// Data directory (overrides the config).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Start with the game of this record's root (size, setup stones, first mover, players,
    /// komi); its moves are not played. Overrides the config's `[game]`.
    #[arg(long, value_name = "GAME.sgf")]
    pub game: Option<PathBuf>,
    /// Start with the game of this board script's header (size, komi, handicap).
    #[arg(long, value_name = "FILE", conflicts_with = "game")]
    pub script: Option<PathBuf>,
    /// Publish to a hall's MQTT broker (overrides the config's `[mqtt]` url, hall and board).
    #[command(flatten)]
    pub mqtt: MqttArgs,
}

/// `smartgoban sim`.
#[derive(Debug, Clone, Args)]
pub struct SimArgs {
    /// Game record to play (SGF); or use --script.
    #[arg(value_name = "GAME.sgf", required_unless_present = "script")]
    pub game: Option<PathBuf>,
    /// Virtual board settings.
    #[command(flatten)]
    pub board: BoardArgs,
    /// Where to expose the virtual board: a symlink to its pseudo-terminal, for `run --serial`.
    #[arg(long, value_name = "PATH")]
    pub link: PathBuf,
    /// End once the game has been played out (default: the board stays connected until
    /// Ctrl-C).
    #[arg(long)]
    pub exit_when_done: bool,
}

/// `smartgoban score`.
#[derive(Debug, Clone, Args)]
pub struct ScoreArgs {
    /// The record whose last position is counted.
    #[arg(value_name = "FILE.sgf")]
    pub file: PathBuf,
    /// Dead stones: `auto` (proposed as the service does at the end of a game), `none`, or
    /// points such as `D4,E5` (each takes its whole chain off).
    #[arg(long, default_value = "auto", value_name = "auto|none|POINTS")]
    pub dead: String,
    /// Komi in points (default: the record's KM, else 7.5).
    #[arg(long, value_name = "K", allow_negative_numbers = true)]
    pub komi: Option<f64>,
    /// One JSON object instead of lines for people: `black_area`, `white_area`, `dame`,
    /// `dead`, `komi`, `result`, `margin_stones` and `invalid_moves_read_as_passes` (each
    /// `{number, color, point, code, clause}`; empty when every move was valid).
    #[arg(long)]
    pub json: bool,
}

/// `smartgoban check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// Records to check.
    #[arg(value_name = "FILE.sgf", required = true)]
    pub files: Vec<PathBuf>,
}

fn parse_noise(s: &str) -> Result<NoiseModel, String> {
    s.parse()
}

fn parse_speed(s: &str) -> Result<Speed, String> {
    s.parse()
}

fn parse_profile(s: &str) -> Result<Profile, String> {
    s.parse()
}

fn parse_cycles(s: &str) -> Result<crate::referee::CycleRule, String> {
    s.parse()
}

fn parse_policy(s: &str) -> Result<Policy, String> {
    match s {
        "rules" => Ok(Policy::Rules),
        "accept" => Ok(Policy::AcceptAsPlayed),
        other => Err(format!("referee `{other}`: use rules or accept")),
    }
}

fn parse_time(s: &str) -> Result<crate::clock::TimeSystem, String> {
    s.parse()
        .map_err(|e: crate::clock::TimeSystemError| e.to_string())
}
