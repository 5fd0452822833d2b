//! The service's configuration file (`smartgoban run --config FILE`), TOML.
//!
//! ```toml
//! serial = "/dev/serial/by-id/usb-smartgoban_board-if00"   # the board's serial device
//! http = "0.0.0.0:8019"                                     # API address
//! data_dir = "/var/lib/smartgoban"                          # records are kept here
//! settle_ms = 150                                           # stabiliser settle time, ms
//! profile = "cn2002"                                        # referee rules: cn2002 or cn1988
//! cycles = "referee"                                       # R20.3 triple ko, eternal life:
//!                                                           # "referee" (flagged, the referee
//!                                                           # rules), "no_result", "draw" or
//!                                                           # "replay" (the game ends so)
//! commit_ms = 3000                                          # no clock: a move is committed
//!                                                           # after the board is settled this
//!                                                           # long (0: only the clock commits)
//! time_up = "loss"                                          # R22.5 at a flag fall: "loss",
//!                                                           # "pass" (a pass with a warning) or
//!                                                           # "referee" (the referee rules)
//! log = "info"                                              # log level (SMARTGOBAN_LOG wins)
//! charge_downtime = false                                   # after a crash with no board
//!                                                           # history, the time down is on no
//!                                                           # one's clock (true: the running
//!                                                           # side's)
//!
//! [game]                                                    # the game to start with
//! size = 19
//! komi = 7.5
//! handicap = 0
//! black = "Fan Xiping"
//! white = "Shi Xiangxia"
//! time = "main=60m cn=5x60s"                                # clock: main time, then cn= (Chinese
//!                                                           # counting), jp= (byo-yomi), ca=
//!                                                           # (Canadian) or fischer=; none: no clock
//!
//! [clock]                                                   # clock hardware on the Pi (BCM pins)
//! buttons = [17, 27, 22]                                    # Black's, White's, pause
//! faces = "tm1637"                                          # 4-digit faces ("none": without)
//! black_face = [5, 6]                                       # CLK, DIO
//! white_face = [13, 19]
//! voice = "zh"                                              # calls spoken: "zh", "en" or "off"
//! voice_dir = "/usr/share/smartgoban/voice"                 # clips (assets/voice in the source)
//! buzzer_pwm = 0                                            # PWM channel: beeps without sound
//!
//! [api]
//! public_reads = true                                       # reads need no token (writes
//!                                                           # always need the referee's token,
//!                                                           # `smartgoban token`)
//! connections = 4096                                        # HTTP connections at once
//! connections_per_address = 1024                            # from one address
//! feed_followers = 3000                                     # SSE + WebSocket followers (503
//!                                                           # past it)
//!
//! [leds]                                                    # one LED under every point
//! driver = "mcu"                                            # "mcu" (the board's controller),
//!                                                           # "ws2812-spi", "apa102-spi", "sim"
//!                                                           # or "none"
//! brightness = 128                                          # 0–255
//! max_current_ma = 2000                                     # current budget for the colours, mA
//! channel_ma = 20                                           # one channel at full scale, mA
//! first = "top-left"                                        # corner of LED 0, seen from Black
//! order = "serpentine-rows"                                 # rows, serpentine-rows, columns,
//!                                                           # serpentine-columns
//! spi_bus = 0                                               # /dev/spidev0.0
//! spi_ss = 0
//! spi_hz = 4000000                                          # APA102 clock (WS2812: 2.4 MHz)
//! spi_max_transfer = 4096                                   # spidev.bufsiz
//! ```
//!
//! Raw values are read in one place and turned into a validated [`Config`]; every error
//! names the key and the bad value. Unknown keys are errors (a typo must not be silently
//! ignored).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::clock::TimeSystem;
use crate::referee::{CycleRule, GameSetup, Profile};
use crate::session::TimeUp;

mod effective;
mod lines;
mod mqtt;

/// Whether `log` is a log filter a person meant: comma-separated directives, each a level
/// (`error`, `warn`, `info`, `debug`, `trace`, `off`) or `target=level` (`smartgoban=debug`),
/// that tracing's `EnvFilter` takes. A bare word that is no level (`loud`, `inf`) would be
/// taken as a target and silently log nothing of use: refused.
fn is_log_filter(log: &str) -> bool {
    const LEVELS: [&str; 6] = ["error", "warn", "info", "debug", "trace", "off"];
    !log.trim().is_empty()
        && tracing_subscriber::EnvFilter::try_new(log).is_ok()
        && log.split(',').map(str::trim).all(|d| {
            LEVELS.contains(&d.to_ascii_lowercase().as_str())
                || d.rsplit_once('=')
                    .is_some_and(|(_, level)| LEVELS.contains(&level.to_ascii_lowercase().as_str()))
        })
}

/// `, line N` for an error on a key found in the file.
fn line_suffix(line: Option<usize>) -> String {
    line.map(|n| format!(", line {n}")).unwrap_or_default()
}

/// Default API address of `run`.
pub const DEFAULT_HTTP: &str = "0.0.0.0:8019";
/// Default data directory of `run`.
pub const DEFAULT_DATA_DIR: &str = "/var/lib/smartgoban";
/// Config file read by `run` when `--config` is not given and the file exists.
pub const DEFAULT_CONFIG: &str = "/etc/smartgoban/smartgoban.toml";
/// Default log level of `run` (`log`).
pub const DEFAULT_LOG: &str = "warn";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    serial: Option<PathBuf>,
    http: Option<String>,
    data_dir: Option<PathBuf>,
    settle_ms: Option<i64>,
    profile: Option<String>,
    cycles: Option<String>,
    commit_ms: Option<i64>,
    time_up: Option<String>,
    charge_downtime: Option<bool>,
    log: Option<String>,
    #[serde(default)]
    game: RawGame,
    #[serde(default)]
    clock: RawClock,
    #[serde(default)]
    leds: RawLeds,
    #[serde(default)]
    api: RawApi,
    #[serde(default)]
    mqtt: mqtt::RawMqtt,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawApi {
    public_reads: Option<bool>,
    connections: Option<usize>,
    connections_per_address: Option<usize>,
    feed_followers: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLeds {
    driver: Option<String>,
    brightness: Option<i64>,
    max_current_ma: Option<i64>,
    channel_ma: Option<i64>,
    first: Option<String>,
    order: Option<String>,
    spi_bus: Option<i64>,
    spi_ss: Option<i64>,
    spi_hz: Option<i64>,
    spi_max_transfer: Option<i64>,
}

/// Which LED driver (`[leds] driver`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LedDriverKind {
    /// The board's microcontroller drives the LEDs; frames go over the serial link.
    Mcu,
    /// WS2812 on the Pi's SPI.
    Ws2812Spi,
    /// APA102/SK9822 on the Pi's SPI.
    Apa102Spi,
    /// No LEDs: the frame is shown on the live page.
    Sim,
    /// No LEDs and no frame.
    None,
}

/// The LEDs (`[leds]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LedConfig {
    /// The driver.
    pub driver: LedDriverKind,
    /// Brightness and current budget.
    pub settings: crate::leds::LedSettings,
    /// Corner of LED 0 and wiring order (SPI drivers).
    pub layout: crate::leds::Layout,
    /// SPI bus (`/dev/spidevB.S`).
    pub spi_bus: u8,
    /// SPI slave select.
    pub spi_ss: u8,
    /// SPI clock for APA102, Hz.
    pub spi_hz: u32,
    /// Most bytes of one SPI transfer (spidev's `bufsiz`).
    pub spi_max_transfer: usize,
}

impl Default for LedConfig {
    fn default() -> Self {
        LedConfig {
            driver: LedDriverKind::Mcu,
            settings: crate::leds::LedSettings::default(),
            layout: crate::leds::Layout::default(),
            spi_bus: 0,
            spi_ss: 0,
            spi_hz: 4_000_000,
            spi_max_transfer: 4096,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClock {
    buttons: Option<Vec<i64>>,
    faces: Option<String>,
    black_face: Option<Vec<i64>>,
    white_face: Option<Vec<i64>>,
    voice: Option<String>,
    voice_dir: Option<PathBuf>,
    buzzer_pwm: Option<i64>,
}

/// The game clock's hardware on the Pi (`[clock]`): BCM pin numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClockHardwareConfig {
    /// Black's, White's and the pause button (`buttons = [17, 27, 22]`), pressed = to ground.
    pub buttons: Option<[u8; 3]>,
    /// TM1637 faces, CLK and DIO for Black's then White's (`faces = "tm1637"`,
    /// `black_face = [5, 6]`, `white_face = [13, 19]`).
    pub faces: Option<[[u8; 2]; 2]>,
    /// Voice clips: folder and language (`voice = "zh"` or `"en"`, `voice_dir`).
    pub voice: Option<PathBuf>,
    /// Buzzer on hardware PWM channel 0 or 1 (`buzzer_pwm`): beeps the calls when no voice.
    pub buzzer_pwm: Option<u8>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGame {
    size: Option<i64>,
    komi: Option<f64>,
    handicap: Option<i64>,
    black: Option<String>,
    white: Option<String>,
    event: Option<String>,
    time: Option<String>,
}

/// A validated configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Serial device of the board, if configured.
    pub serial: Option<PathBuf>,
    /// API address.
    pub http: SocketAddr,
    /// Data directory.
    pub data_dir: PathBuf,
    /// Stabiliser settle time, ms.
    pub settle_ms: u64,
    /// Referee rule profile.
    pub profile: Profile,
    /// R20.3: what a whole-board cycle does to the game.
    pub cycles: CycleRule,
    /// Without a clock, a move is committed once the board has stayed settled this long, ms
    /// (`None`: only a clock press commits; `commit_ms = 0` in the file).
    pub commit_ms: Option<u64>,
    /// R22.5: what a flag fall does.
    pub time_up: TimeUp,
    /// After a crash or restart, charge the time the service was down to the player whose
    /// clock was running (default false: that time is on no one's clock).
    pub charge_downtime: bool,
    /// The clock's buttons, faces, voice and buzzer.
    pub clock: ClockHardwareConfig,
    /// The LEDs under the points.
    pub leds: LedConfig,
    /// `[api] public_reads`: reads need no token (default true).
    pub public_reads: bool,
    /// `[api] connections`, `connections_per_address`, `feed_followers`: how many clients
    /// the API takes at once ([`crate::api::Limits`]).
    pub limits: crate::api::Limits,
    /// The game to start with (its time control in `setup.time`).
    pub setup: GameSetup,
    /// `log`: the log level, a tracing `EnvFilter` directive (`info`, `smartgoban=debug`);
    /// `$SMARTGOBAN_LOG` wins over it. Default `warn`.
    pub log: String,
    /// `[mqtt]`: the hall's broker this board publishes to (none without `mqtt.url`).
    pub mqtt: Option<crate::mqtt::MqttSettings>,
}

/// A configuration that cannot be used: names the file, the key and the value.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML or has unknown keys or wrong types.
    #[error("config file {path}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The TOML parser's message (with line and column).
        message: String,
    },
    /// A value is out of range.
    #[error("config file {path}{}: `{key}` = {value}: {why}", line_suffix(*.line))]
    Value {
        /// The file.
        path: PathBuf,
        /// The line of the file the key is on (1-based), when it is in the file.
        line: Option<usize>,
        /// Key, e.g. `game.size`.
        key: &'static str,
        /// The value as written.
        value: String,
        /// What is allowed.
        why: &'static str,
    },
}

impl Config {
    /// Reads and validates a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = crate::files::read_input(path)
            .and_then(|b| {
                String::from_utf8(b).map_err(|_| {
                    std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text")
                })
            })
            .map_err(|source| ConfigError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        Config::parse(&text, path)
    }

    /// The configuration with every default (no file).
    pub fn defaults() -> Config {
        Config::from_raw(RawConfig::default(), Path::new("(defaults)"))
            .unwrap_or_else(|_| unreachable_defaults())
    }

    /// Parses and validates config text; `path` is only used in messages.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError::Syntax {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        Config::from_raw(raw, path).map_err(|e| match e {
            ConfigError::Value {
                path,
                line: None,
                key,
                value,
                why,
            } => ConfigError::Value {
                line: lines::line_of(text, key),
                path,
                key,
                value,
                why,
            },
            e => e,
        })
    }

    fn from_raw(raw: RawConfig, path: &Path) -> Result<Config, ConfigError> {
        let bad = |key: &'static str, value: String, why: &'static str| ConfigError::Value {
            path: path.to_path_buf(),
            line: None,
            key,
            value,
            why,
        };
        let http_text = raw.http.unwrap_or_else(|| DEFAULT_HTTP.to_string());
        let http: SocketAddr = http_text.parse().map_err(|_| {
            bad(
                "http",
                format!("{http_text:?}"),
                "use an IP address and port, e.g. \"0.0.0.0:8019\"",
            )
        })?;
        let settle_ms = match raw.settle_ms {
            None => 150,
            Some(v @ 20..=5000) => v as u64,
            Some(v) => return Err(bad("settle_ms", v.to_string(), "use 20 to 5000 ms")),
        };
        let profile = match raw.profile.as_deref() {
            None => Profile::Cn2002,
            Some(p) => p
                .parse()
                .map_err(|_| bad("profile", format!("{p:?}"), "use \"cn2002\" or \"cn1988\""))?,
        };
        let cycles = match raw.cycles.as_deref() {
            None => CycleRule::Referee,
            Some(c) => c.parse().map_err(|_: String| {
                bad(
                    "cycles",
                    format!("{c:?}"),
                    "use \"referee\", \"no_result\", \"draw\" or \"replay\"",
                )
            })?,
        };
        let commit_ms = match raw.commit_ms {
            None => Some(3_000),
            Some(0) => None,
            Some(v @ 200..=600_000) => Some(v as u64),
            Some(v) => {
                return Err(bad(
                    "commit_ms",
                    v.to_string(),
                    "use 0 (the clock commits moves) or 200 to 600000 ms",
                ))
            }
        };
        let size = match raw.game.size {
            None => 19,
            Some(v @ (9 | 13 | 19)) => v as u8,
            Some(v) => return Err(bad("game.size", v.to_string(), "use 9, 13 or 19")),
        };
        let komi = match raw.game.komi {
            None => 7.5,
            Some(k) if k.is_finite() && k.abs() <= 1000.0 => k,
            Some(k) => return Err(bad("game.komi", k.to_string(), "use a number of points")),
        };
        let handicap = match raw.game.handicap {
            None | Some(0) | Some(1) => 0,
            Some(h @ 2..=9) => h as u8,
            Some(h) => return Err(bad("game.handicap", h.to_string(), "use 0 to 9 stones")),
        };
        let time_up = match raw.time_up.as_deref() {
            None | Some("loss") => TimeUp::Loss,
            Some("pass") => TimeUp::Pass,
            Some("referee") => TimeUp::Referee,
            Some(v) => {
                return Err(bad(
                    "time_up",
                    format!("{v:?}"),
                    "use \"loss\", \"pass\" or \"referee\"",
                ))
            }
        };
        let time = match raw.game.time.as_deref() {
            None | Some("") | Some("none") => None,
            Some(t) => Some(t.parse::<TimeSystem>().map_err(|_| {
                bad(
                    "game.time",
                    format!("{t:?}"),
                    "use e.g. \"main=60m cn=5x60s\", \"main=10m jp=3x30s\", \"main=5m ca=10/300s\" or \"main=5m fischer=10s\"",
                )
            })?),
        };
        let mut setup = GameSetup::free_handicap(size, handicap);
        setup.time = time;
        setup.info.komi = Some(komi);
        setup.info.black = raw.game.black;
        setup.info.white = raw.game.white;
        setup.info.event = raw.game.event;
        if raw
            .serial
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            return Err(bad(
                "serial",
                "\"\"".into(),
                "name the board's serial device",
            ));
        }
        if let Some(p) = raw.serial.as_ref().filter(|p| !p.is_absolute()) {
            return Err(bad(
                "serial",
                format!("{:?}", p.display().to_string()),
                "use the device's absolute path, e.g. \"/dev/smartgoban\" or \"/dev/ttyACM0\"",
            ));
        }
        if raw
            .data_dir
            .as_ref()
            .is_some_and(|p| p.as_os_str().is_empty())
        {
            return Err(bad("data_dir", "\"\"".into(), "name a directory"));
        }
        let clock = clock_hardware(raw.clock, &bad)?;
        let leds = led_config(raw.leds, &bad)?;
        let d = crate::api::Limits::default();
        let limits = crate::api::Limits {
            connections: raw.api.connections.unwrap_or(d.connections),
            connections_per_address: raw
                .api
                .connections_per_address
                .unwrap_or(d.connections_per_address),
            feed_followers: raw.api.feed_followers.unwrap_or(d.feed_followers),
        };
        if let Err(why) = limits.check() {
            return Err(bad(
                "api",
                format!(
                    "connections = {}, connections_per_address = {}, feed_followers = {}",
                    limits.connections, limits.connections_per_address, limits.feed_followers
                ),
                why,
            ));
        }
        let mqtt = mqtt::mqtt_settings(raw.mqtt, &bad, path)?;
        let log = raw.log.unwrap_or_else(|| DEFAULT_LOG.to_string());
        if !is_log_filter(&log) {
            return Err(bad(
                "log",
                format!("{log:?}"),
                "use a level (\"error\", \"warn\", \"info\", \"debug\", \"trace\") or directives such as \"smartgoban=debug,warn\"",
            ));
        }
        Ok(Config {
            log,
            mqtt,
            limits,
            profile,
            cycles,
            commit_ms,
            time_up,
            charge_downtime: raw.charge_downtime.unwrap_or(false),
            clock,
            leds,
            public_reads: raw.api.public_reads.unwrap_or(true),
            serial: raw.serial,
            http,
            data_dir: raw
                .data_dir
                .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR)),
            settle_ms,
            setup,
        })
    }
}

/// `[clock]`, validated: pins are BCM numbers 0–27.
fn clock_hardware(
    raw: RawClock,
    bad: &dyn Fn(&'static str, String, &'static str) -> ConfigError,
) -> Result<ClockHardwareConfig, ConfigError> {
    fn pins<const N: usize>(
        key: &'static str,
        v: Option<Vec<i64>>,
        bad: &dyn Fn(&'static str, String, &'static str) -> ConfigError,
    ) -> Result<Option<[u8; N]>, ConfigError> {
        let Some(v) = v else {
            return Ok(None);
        };
        let shown = format!("{v:?}");
        let pins: Vec<u8> = v
            .iter()
            .map(|&p| u8::try_from(p).ok().filter(|p| *p <= 27))
            .collect::<Option<_>>()
            .ok_or_else(|| bad(key, shown.clone(), "use BCM pin numbers 0 to 27"))?;
        <[u8; N]>::try_from(pins)
            .map(Some)
            .map_err(|_| bad(key, shown, "wrong number of pins"))
    }
    let buttons = pins::<3>("clock.buttons", raw.buttons, bad)?;
    let faces = match raw.faces.as_deref() {
        None | Some("none") => None,
        Some("tm1637") => {
            let black = pins::<2>("clock.black_face", raw.black_face, bad)?;
            let white = pins::<2>("clock.white_face", raw.white_face, bad)?;
            match (black, white) {
                (Some(b), Some(w)) => Some([b, w]),
                _ => {
                    return Err(bad(
                        "clock.faces",
                        "\"tm1637\"".into(),
                        "give black_face and white_face = [CLK, DIO]",
                    ))
                }
            }
        }
        Some(v) => {
            return Err(bad(
                "clock.faces",
                format!("{v:?}"),
                "use \"tm1637\" or \"none\"",
            ))
        }
    };
    let dir = raw
        .voice_dir
        .unwrap_or_else(|| PathBuf::from("/usr/share/smartgoban/voice"));
    let voice = match raw.voice.as_deref() {
        None | Some("off") => None,
        Some(lang @ ("zh" | "en")) => Some(dir.join(lang)),
        Some(v) => {
            return Err(bad(
                "clock.voice",
                format!("{v:?}"),
                "use \"zh\", \"en\" or \"off\"",
            ))
        }
    };
    let buzzer_pwm = match raw.buzzer_pwm {
        None => None,
        Some(c @ 0..=1) => Some(c as u8),
        Some(c) => {
            return Err(bad(
                "clock.buzzer_pwm",
                c.to_string(),
                "use PWM channel 0 or 1",
            ))
        }
    };
    Ok(ClockHardwareConfig {
        buttons,
        faces,
        voice,
        buzzer_pwm,
    })
}

/// `[leds]`, validated.
fn led_config(
    raw: RawLeds,
    bad: &dyn Fn(&'static str, String, &'static str) -> ConfigError,
) -> Result<LedConfig, ConfigError> {
    let d = LedConfig::default();
    let int = |key: &'static str,
               v: Option<i64>,
               range: std::ops::RangeInclusive<i64>,
               default: i64,
               why: &'static str| match v {
        None => Ok(default),
        Some(v) if range.contains(&v) => Ok(v),
        Some(v) => Err(bad(key, v.to_string(), why)),
    };
    let driver = match raw.driver.as_deref() {
        None | Some("mcu") => LedDriverKind::Mcu,
        Some("ws2812-spi") => LedDriverKind::Ws2812Spi,
        Some("apa102-spi") => LedDriverKind::Apa102Spi,
        Some("sim") => LedDriverKind::Sim,
        Some("none") => LedDriverKind::None,
        Some(v) => {
            return Err(bad(
                "leds.driver",
                format!("{v:?}"),
                "use \"mcu\", \"ws2812-spi\", \"apa102-spi\", \"sim\" or \"none\"",
            ))
        }
    };
    let layout = crate::leds::Layout::parse(
        raw.first.as_deref().unwrap_or("top-left"),
        raw.order.as_deref().unwrap_or("serpentine-rows"),
    )
    .map_err(|e| match e {
        crate::leds::LayoutError::Corner(v) => bad(
            "leds.first",
            format!("{v:?}"),
            "use \"top-left\", \"top-right\", \"bottom-left\" or \"bottom-right\" (seen from Black)",
        ),
        crate::leds::LayoutError::Order(v) => bad(
            "leds.order",
            format!("{v:?}"),
            "use \"rows\", \"serpentine-rows\", \"columns\" or \"serpentine-columns\"",
        ),
    })?;
    Ok(LedConfig {
        driver,
        settings: crate::leds::LedSettings {
            brightness: int(
                "leds.brightness",
                raw.brightness,
                0..=255,
                128,
                "use 0 to 255",
            )? as u8,
            max_current_ma: int(
                "leds.max_current_ma",
                raw.max_current_ma,
                100..=100_000,
                2_000,
                "use 100 to 100000 mA (below 100 mA the lights are too dim to guide anyone)",
            )? as u32,
            channel_ma: int(
                "leds.channel_ma",
                raw.channel_ma,
                1..=100,
                20,
                "use 1 to 100 mA",
            )? as u32,
        },
        layout,
        spi_bus: int("leds.spi_bus", raw.spi_bus, 0..=6, 0, "use SPI bus 0 to 6")? as u8,
        spi_ss: int(
            "leds.spi_ss",
            raw.spi_ss,
            0..=2,
            0,
            "use slave select 0 to 2",
        )? as u8,
        spi_hz: int(
            "leds.spi_hz",
            raw.spi_hz,
            100_000..=32_000_000,
            i64::from(d.spi_hz),
            "use 100000 to 32000000 Hz",
        )? as u32,
        spi_max_transfer: int(
            "leds.spi_max_transfer",
            raw.spi_max_transfer,
            64..=1_048_576,
            4096,
            "use 64 to 1048576 bytes (spidev.bufsiz)",
        )? as usize,
    })
}

fn unreachable_defaults() -> Config {
    // The defaults above are constants that validate; keep a literal fallback anyway.
    Config {
        serial: None,
        http: SocketAddr::from(([0, 0, 0, 0], 8019)),
        data_dir: PathBuf::from(DEFAULT_DATA_DIR),
        settle_ms: 150,
        profile: Profile::Cn2002,
        cycles: CycleRule::Referee,
        commit_ms: Some(3_000),
        time_up: TimeUp::Loss,
        charge_downtime: false,
        clock: ClockHardwareConfig::default(),
        leds: LedConfig::default(),
        public_reads: true,
        limits: crate::api::Limits::default(),
        setup: GameSetup::even(19),
        log: DEFAULT_LOG.to_string(),
        mqtt: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_config_parses() {
        let text = "serial = \"/dev/ttyACM0\"\nhttp = \"127.0.0.1:9000\"\nsettle_ms = 200\n[game]\nsize = 9\nhandicap = 3\nkomi = 0.5\nblack = \"A\"\n";
        let c = Config::parse(text, Path::new("t.toml")).unwrap();
        assert_eq!(c.serial.as_deref(), Some(Path::new("/dev/ttyACM0")));
        assert_eq!(c.http.port(), 9000);
        assert_eq!(c.settle_ms, 200);
        assert_eq!(c.setup.size(), 9);
        // Chinese rules: a free handicap, placed by Black anywhere
        assert_eq!(c.setup.free_handicap, 3);
        assert!(c.setup.setup.is_empty());
        assert_eq!(c.setup.info.black.as_deref(), Some("A"));
    }

    #[test]
    fn shipped_example_config_is_valid() {
        let text = include_str!("../../systemd/smartgoban.toml");
        let c = Config::parse(text, Path::new("systemd/smartgoban.toml")).unwrap();
        assert_eq!(c.serial.as_deref(), Some(Path::new("/dev/smartgoban")));
        assert_eq!(c.setup.size(), 19);
    }

    #[test]
    fn the_example_configs_commented_sections_are_valid_too() {
        // Every `# [section]` and `# key = value` line of the shipped example, uncommented.
        let text: String = include_str!("../../systemd/smartgoban.toml")
            .lines()
            .map(|l| match l.strip_prefix("# ") {
                Some(rest)
                    if rest.starts_with('[') || rest.split_whitespace().nth(1) == Some("=") =>
                {
                    rest
                }
                _ => l,
            })
            .collect::<Vec<_>>()
            .join("\n");
        let c = Config::parse(&text, Path::new("uncommented")).unwrap();
        assert_eq!(c.leds.driver, LedDriverKind::Mcu);
        assert_eq!(c.leds.spi_max_transfer, 4096);
        assert!(c.public_reads);
        assert_eq!(c.limits, crate::api::Limits::default());
        assert_eq!(c.clock.buttons, Some([17, 27, 22]));
        let m = c.mqtt.expect("[mqtt]");
        assert_eq!(
            (m.hall.as_str(), m.board.as_str(), m.url.tls),
            ("open2026", "12", true)
        );
    }

    #[test]
    fn the_apis_limits_are_read() {
        let text =
            "[api]\nconnections = 6000\nconnections_per_address = 100\nfeed_followers = 5000\n";
        let c = Config::parse(text, Path::new("t.toml")).unwrap();
        let want = crate::api::Limits {
            connections: 6000,
            connections_per_address: 100,
            feed_followers: 5000,
        };
        assert_eq!(c.limits, want);
        assert_eq!(Config::defaults().limits, crate::api::Limits::default());
    }

    #[test]
    fn defaults_are_valid() {
        let c = Config::defaults();
        assert_eq!(c.http.port(), 8019);
        assert_eq!(c.setup.size(), 19);
        assert_eq!(c.setup.info.komi, Some(7.5));
    }

    #[test]
    fn the_time_control_and_the_flag_policy_are_read() {
        let text = "time_up = \"pass\"\n[game]\ntime = \"main=60m cn=5x60s\"\n";
        let c = Config::parse(text, Path::new("t.toml")).unwrap();
        assert_eq!(c.time_up, TimeUp::Pass);
        assert_eq!(c.setup.time, Some("main=60m cn=5x60s".parse().unwrap()));
        assert_eq!(Config::defaults().setup.time, None);
        assert_eq!(Config::defaults().time_up, TimeUp::Loss);
    }

    #[test]
    fn the_clock_hardware_is_read() {
        let text = "[clock]\nbuttons = [17, 27, 22]\nfaces = \"tm1637\"\nblack_face = [5, 6]\nwhite_face = [13, 19]\nvoice = \"en\"\nvoice_dir = \"/v\"\nbuzzer_pwm = 1\n";
        let c = Config::parse(text, Path::new("t.toml")).unwrap().clock;
        assert_eq!(c.buttons, Some([17, 27, 22]));
        assert_eq!(c.faces, Some([[5, 6], [13, 19]]));
        assert_eq!(c.voice, Some(PathBuf::from("/v/en")));
        assert_eq!(c.buzzer_pwm, Some(1));
        assert_eq!(Config::defaults().clock, ClockHardwareConfig::default());
    }

    #[test]
    fn errors_name_key_and_value() {
        let cases = [
            ("settle_ms = 5", "settle_ms", "5"),
            ("http = \"nowhere\"", "http", "nowhere"),
            ("[game]\nsize = 21", "game.size", "21"),
            ("[game]\nhandicap = 12", "game.handicap", "12"),
            ("serail = \"/dev/x\"", "serail", ""),
            ("settle_ms = \"fast\"", "settle_ms", ""),
            ("[game\nsize = 9", "t.toml", ""),
            ("serial = \"\"", "serial", "\"\""),
            ("data_dir = \"\"", "data_dir", "\"\""),
            ("profile = \"fide\"", "profile", "fide"),
            ("commit_ms = 50", "commit_ms", "50"),
            ("[game]\ntime = \"main=60\"", "game.time", "main=60"),
            (
                "[game]\ntime = \"main=5m jp=0x30s\"",
                "game.time",
                "jp=0x30s",
            ),
            ("time_up = \"draw\"", "time_up", "draw"),
            ("[clock]\nbuttons = [17, 99, 22]", "clock.buttons", "99"),
            ("[clock]\nbuttons = [17, 27]", "clock.buttons", "[17, 27]"),
            ("[clock]\nfaces = \"tm1637\"", "clock.faces", "tm1637"),
            ("[clock]\nvoice = \"fr\"", "clock.voice", "fr"),
            ("[clock]\nbuzzer_pwm = 3", "clock.buzzer_pwm", "3"),
            ("[api]\nfeed_followers = 0", "api", "feed_followers = 0"),
            (
                "[api]\nconnections = 100\nconnections_per_address = 50\nfeed_followers = 200",
                "feed_followers must not be more than connections",
                "connections = 100",
            ),
            ("[api]\nfollowers = 10", "followers", ""),
        ];
        for (text, key, value) in cases {
            let e = Config::parse(text, Path::new("t.toml"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(key), "{text:?}: {e}");
            assert!(e.contains(value), "{text:?}: {e}");
        }
    }

    #[test]
    fn leds_section_parses_and_bad_values_name_their_key() {
        let c = Config::parse(
            "[leds]\ndriver = \"apa102-spi\"\nbrightness = 60\nmax_current_ma = 1500\nfirst = \"bottom-right\"\norder = \"columns\"\nspi_hz = 8000000\n",
            Path::new("t.toml"),
        )
        .unwrap();
        assert_eq!(c.leds.driver, LedDriverKind::Apa102Spi);
        assert_eq!(c.leds.settings.brightness, 60);
        assert_eq!(c.leds.settings.max_current_ma, 1500);
        assert_eq!(c.leds.spi_hz, 8_000_000);
        assert_eq!(
            c.leds.layout,
            crate::leds::Layout::parse("bottom-right", "columns").unwrap()
        );
        assert_eq!(Config::defaults().leds, LedConfig::default());
        for (text, key) in [
            ("[leds]\ndriver = \"neon\"", "leds.driver"),
            ("[leds]\nbrightness = 300", "leds.brightness"),
            ("[leds]\nfirst = \"middle\"", "leds.first"),
            ("[leds]\norder = \"spiral\"", "leds.order"),
            ("[leds]\nchannel_ma = 0", "leds.channel_ma"),
            ("[leds]\nmax_current_ma = 1", "leds.max_current_ma"),
        ] {
            let e = Config::parse(text, Path::new("t.toml"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(key), "{e}");
        }
        assert!(Config::parse("[leds]\ncolour = 1", Path::new("t.toml")).is_err());
    }
}
