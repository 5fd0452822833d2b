//! `smartgoban run`: the service on the Pi.

use std::path::Path;
use std::sync::Arc;

use super::service::{Service, ServiceError};
use super::RunArgs;
use crate::config::{Config, ConfigError, DEFAULT_CONFIG};
use crate::daemon::supervise::{Notice, Notifier};
use crate::daemon::{DaemonConfig, DaemonError, Supervision};
use crate::link::LinkConfig;
use crate::referee::{Policy, RefereeConfig};
use crate::sensing::StabiliserConfig;
use crate::session::SessionConfig;

/// Errors of `run`.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad config file.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The game to start with could not be loaded.
    #[error(transparent)]
    Game(#[from] super::source::SourceError),
    /// No serial device given anywhere.
    #[error("no serial device: pass --serial PATH or set `serial` in the config file")]
    NoSerial,
    /// The service failed.
    #[error(transparent)]
    Daemon(#[from] DaemonError),
    /// The service could not start (its HTTP address, its device, its data directory).
    #[error(transparent)]
    Start(#[from] ServiceError),
    /// The API token could not be read or made.
    #[error(transparent)]
    Token(#[from] crate::api::token::TokenError),
    /// The MQTT settings cannot be used (an id, TLS).
    #[error("MQTT: {0}")]
    Mqtt(crate::mqtt::MqttError),
    /// The clock hardware of `[clock]` could not be set up.
    #[error("clock hardware: {0}")]
    ClockHardware(String),
}

/// Runs the service until Ctrl-C or SIGTERM.
/// `log` is the level [`super::logging::init`] set: the config file's `log` applies unless
/// `$SMARTGOBAN_LOG` is set.
pub async fn run(args: RunArgs, log: &super::logging::LogLevel) -> Result<(), RunError> {
    let mut config = match &args.config {
        Some(path) => Config::load(path)?,
        None if Path::new(DEFAULT_CONFIG).exists() => Config::load(Path::new(DEFAULT_CONFIG))?,
        None => Config::defaults(),
    };
    if let Err(e) = log.set_from_config(&config.log) {
        tracing::warn!("log level {:?}: {e}", config.log);
    }
    if let Some(s) = args.serial {
        config.serial = Some(s);
    }
    if let Some(h) = args.http {
        config.http = h;
    }
    if let Some(d) = args.data_dir {
        config.data_dir = d;
    }
    if args.game.is_some() || args.script.is_some() {
        let (source, _) = super::source::load(args.game.as_deref(), args.script.as_deref())?;
        config.setup = source.setup();
    }
    // --mqtt, --hall, --board-id over the file's [mqtt] (its credentials and TLS kept)
    if let Some(flags) = args.mqtt.settings() {
        let mut m = config.mqtt.take().unwrap_or_else(|| flags.clone());
        m.url = flags.url;
        if let Some(hall) = &args.mqtt.hall {
            m.hall.clone_from(hall);
        }
        if let Some(board) = &args.mqtt.board_id {
            m.board.clone_from(board);
        }
        config.mqtt = Some(m);
    }
    let serial = config.serial.clone().ok_or(RunError::NoSerial)?;
    let first_seq = seq_epoch();
    let notifier = crate::daemon::supervise::SystemdNotifier::from_env()
        .map(|n| Arc::new(n) as Arc<dyn Notifier>);
    let mut daemon = Service::start(
        DaemonConfig {
            supervision: Supervision {
                notifier: notifier.clone(),
                hang_after: hang_hook(),
            },
            recovery: crate::daemon::Recovery {
                resume: true,
                charge_downtime: config.charge_downtime,
            },
            serial: serial.clone(),
            session: SessionConfig {
                stabiliser: StabiliserConfig {
                    settle_ms: config.settle_ms,
                    ..StabiliserConfig::default()
                },
                referee: RefereeConfig {
                    profile: config.profile,
                    policy: Policy::Rules,
                    commit_ms: config.commit_ms,
                    cycles: config.cycles,
                },
                first_seq,
                time_up: config.time_up,
            },
            link: LinkConfig::default(),
            setup: config.setup.clone(),
            events_out: None,
            data_dir: Some(config.data_dir.clone()),
            clock_hardware: crate::devices::on_the_pi(&config.clock)
                .map_err(RunError::ClockHardware)?,
            leds: led_output(&config.leds),
            access: crate::daemon::ApiAccess {
                token: Some(crate::api::token::load_or_create(&config.data_dir)?),
                public_reads: config.public_reads,
            },
        },
        Some(config.http),
        config.limits,
    )
    .await?;
    if let Some(settings) = config.mqtt.clone() {
        daemon
            .publish_mqtt(
                settings,
                Some(config.data_dir.clone()),
                first_seq,
                config.limits,
            )
            .map_err(RunError::Mqtt)?;
    }
    let addr = daemon
        .http_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    println!(
        "smartgoban: board on {}, API on http://{addr}/api/v1/state, records in {}",
        serial.display(),
        config.data_dir.display()
    );
    // The API listens and the store is open: ready, whether or not the board is there yet
    // (the status line says so).
    if let Some(n) = &notifier {
        n.send(Notice::Ready);
    }
    wait_for_signal().await;
    let stopped = daemon.shutdown().await;
    // STOPPING=1 (sent by the daemon's last turn) out before the process ends.
    if let Some(n) = &notifier {
        n.flush(std::time::Duration::from_secs(1));
    }
    stopped?;
    Ok(())
}

/// The test hook `SMARTGOBAN_TEST_HANG_AFTER_MS`: the daemon's loop hangs this many ms after
/// it starts (the watchdog test; see [`Supervision::hang_after`]).
fn hang_hook() -> Option<std::time::Duration> {
    std::env::var("SMARTGOBAN_TEST_HANG_AFTER_MS")
        .ok()?
        .parse()
        .ok()
        .map(std::time::Duration::from_millis)
}

/// The LEDs of `[leds]`. LEDs that cannot be set up do not stop the service: the error is
/// logged and served by `GET /api/v1/leds` (`delivery: failed`).
fn led_output(config: &crate::config::LedConfig) -> Option<crate::daemon::LedOutput> {
    use crate::devices::leds::{driver_name, from_config, FailedLeds, LedDriver};
    let driver: Box<dyn LedDriver> = match from_config(config) {
        Ok(driver) => driver?,
        Err(e) => {
            tracing::error!("LEDs: {e}; the service runs without them");
            Box::new(FailedLeds::new(driver_name(config.driver), e))
        }
    };
    Some(crate::daemon::LedOutput {
        driver,
        settings: config.settings,
    })
}

/// Waits for Ctrl-C or SIGTERM (systemd's stop), so shutdown runs and files are flushed.
pub async fn wait_for_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}

/// The first event `seq` of this run: the wall clock in ms × 1000, above every `seq` of
/// earlier runs as long as a run emits fewer than 1000 events a millisecond on average.
pub(crate) fn seq_epoch() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| (d.as_millis() as u64).saturating_mul(1000).max(1))
}
