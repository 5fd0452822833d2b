//! MQTT: every board of a hall into one broker (issue 18; DESIGN.md "Data flow": MQTT).
//!
//! Shell code. The broker (Mosquitto, or any MQTT 5 broker; a cluster such as EMQX where a
//! hall outgrows one) does the fan-out; this module only names the topics, shapes the
//! payloads and runs the board's publisher ([`publisher`]). The hall service that reads them
//! is [`crate::hall`].
//!
//! Topics, under `smartgoban/v1/<hall>/`:
//!
//! | topic | retained | QoS | payload |
//! |---|---|---|---|
//! | `board/<board>/status` | yes | 1 | [`Status`]: `online` with the game and the version; the last will says `offline` |
//! | `board/<board>/state` | yes | 1 | [`StateMessage`]: `GET /api/v1/state` with the board, `seq` and the wall clock |
//! | `board/<board>/sgf` | yes | 1 | the game's record so far (`GET /api/v1/game.sgf`) |
//! | `board/<board>/events` | no | 1 | each event of the feed (DESIGN.md "Events"), in order, with its `seq` |
//! | `board/<board>/games/<key>` | yes | 1 | [`GameSummary`] of a finished game (`key`: the seq of its result) |
//! | `board/<board>/cmd` | no | 1 | [`HallCommand`] for this board (MQTT 5 response topic + correlation data) |
//! | `cmd` | no | 1 | [`HallCommand`] for every board of the hall |
//!
//! Events are delivered at least once: after an outage the publisher sends again from the
//! last event the broker acknowledged, so a consumer drops an event whose `seq` is not above
//! the last it has from that board.

pub mod publisher;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use publisher::{LocalApi, Publisher};

/// The first part of every topic.
pub const TOPIC_ROOT: &str = "smartgoban/v1";

/// Errors in the MQTT settings.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MqttError {
    /// The broker URL is not `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`.
    #[error("broker URL {0:?}: use mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS)")]
    Url(String),
    /// A hall or board id would not make one topic level.
    #[error("{what} id {id:?}: use 1 to 64 letters, digits, '-' or '_'")]
    Id {
        /// `hall` or `board`.
        what: &'static str,
        /// The id given.
        id: String,
    },
    /// The CA file for TLS could not be read or holds no certificate.
    #[error("CA file {path}: {why}")]
    Ca {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

/// A broker's address: `mqtt://HOST[:PORT]` (port 1883) or `mqtts://HOST[:PORT]` (TLS, 8883).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerUrl {
    /// TLS (`mqtts`).
    pub tls: bool,
    /// Host name or address.
    pub host: String,
    /// TCP port.
    pub port: u16,
}

impl std::str::FromStr for BrokerUrl {
    type Err = MqttError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || MqttError::Url(s.to_string());
        let (tls, rest) = if let Some(r) = s.strip_prefix("mqtt://") {
            (false, r)
        } else if let Some(r) = s.strip_prefix("mqtts://") {
            (true, r)
        } else {
            return Err(bad());
        };
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let port_of = |p: &str| {
            p.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| p.parse::<u16>().ok())
                .flatten()
                .filter(|&p| p != 0)
                .ok_or_else(bad)
        };
        let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
            // an IPv6 address in brackets, with or without a port
            let (host, after) = v6.split_once(']').ok_or_else(bad)?;
            if host.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(bad());
            }
            match after {
                "" => (host, None),
                p => (host, Some(port_of(p.strip_prefix(':').ok_or_else(bad)?)?)),
            }
        } else {
            match rest.split_once(':') {
                Some((h, p)) => (h, Some(port_of(p)?)),
                None => (rest, None),
            }
        };
        // a host name: labels of letters, digits, `-` and `_`, separated by single dots
        let name_ok = |h: &str| {
            h.split('.').all(|label| {
                !label.is_empty()
                    && label
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            })
        };
        if host.is_empty() || !(host.contains(':') || name_ok(host)) {
            return Err(bad());
        }
        Ok(BrokerUrl {
            tls,
            host: host.to_string(),
            port: port.unwrap_or(if tls { 8883 } else { 1883 }),
        })
    }
}

impl std::fmt::Display for BrokerUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = if self.tls { "mqtts" } else { "mqtt" };
        if self.host.contains(':') {
            write!(f, "{scheme}://[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{scheme}://{}:{}", self.host, self.port)
        }
    }
}

/// The largest packet a smartgoban client takes from its broker, bytes: the hall's pairings
/// of 4 MiB ([`crate::hall::pairings::MAX_PAIRINGS_BYTES`]; a record is at most 1 MiB) with
/// topic and properties. States and events are a few KiB.
pub const MAX_PACKET_BYTES: u32 = (4 << 20) + (16 << 10);

/// Checks a hall or board id: one topic level of 1–64 letters, digits, `-` or `_` (no `/`,
/// `+`, `#`: they would change which topics a subscription or an ACL matches).
///
/// # Errors
/// [`MqttError::Id`].
pub fn check_id(what: &'static str, id: &str) -> Result<(), MqttError> {
    let ok = (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(MqttError::Id {
            what,
            id: id.to_string(),
        })
    }
}

/// How to reach the broker and who this board is (`[mqtt]` in the config file, `--mqtt`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MqttSettings {
    /// The broker.
    pub url: BrokerUrl,
    /// User name and password (the broker's ACLs key on the user: README "Many boards").
    pub credentials: Option<(String, String)>,
    /// PEM file of the certificate authorities a TLS broker is checked against (the system's
    /// roots without one).
    pub ca_file: Option<PathBuf>,
    /// The hall (tournament venue) id: the second topic level.
    pub hall: String,
    /// This board's id in the hall: its table number, as the pairings name it.
    pub board: String,
    /// MQTT keepalive: the broker publishes the last will (`offline`) about 1.5× this after
    /// the board falls silent.
    pub keepalive: Duration,
    /// The state is sent again this often with nothing new (the hall's orphan alert fires
    /// after three missed).
    pub heartbeat: Duration,
    /// This board's own page and API as the hall should link them (`http://table12.local:8019`).
    pub public_url: Option<String>,
}

impl MqttSettings {
    /// Settings for `url` with the defaults: no credentials, keepalive 10 s, heartbeat 10 s.
    pub fn new(url: BrokerUrl, hall: &str, board: &str) -> Self {
        MqttSettings {
            url,
            credentials: None,
            ca_file: None,
            hall: hall.to_string(),
            board: board.to_string(),
            keepalive: Duration::from_secs(10),
            heartbeat: Duration::from_secs(10),
            public_url: None,
        }
    }

    /// This board's topics.
    pub fn topics(&self) -> BoardTopics {
        BoardTopics::new(&self.hall, &self.board)
    }
}

/// The topics of one board (module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardTopics {
    base: String,
    hall: String,
}

impl BoardTopics {
    /// The topics of board `board` in hall `hall`.
    pub fn new(hall: &str, board: &str) -> Self {
        BoardTopics {
            base: format!("{TOPIC_ROOT}/{hall}/board/{board}"),
            hall: hall.to_string(),
        }
    }

    /// `…/status`.
    pub fn status(&self) -> String {
        format!("{}/status", self.base)
    }

    /// `…/state`.
    pub fn state(&self) -> String {
        format!("{}/state", self.base)
    }

    /// `…/sgf`.
    pub fn sgf(&self) -> String {
        format!("{}/sgf", self.base)
    }

    /// `…/events`.
    pub fn events(&self) -> String {
        format!("{}/events", self.base)
    }

    /// `…/games/<key>`.
    pub fn game(&self, key: u64) -> String {
        format!("{}/games/{key}", self.base)
    }

    /// `…/cmd`: commands for this board.
    pub fn cmd(&self) -> String {
        format!("{}/cmd", self.base)
    }

    /// `smartgoban/v1/<hall>/cmd`: commands for every board.
    pub fn hall_cmd(&self) -> String {
        hall_cmd_topic(&self.hall)
    }
}

/// `smartgoban/v1/<hall>/cmd`.
pub fn hall_cmd_topic(hall: &str) -> String {
    format!("{TOPIC_ROOT}/{hall}/cmd")
}

/// What a topic under `smartgoban/v1/<hall>/board/` is, for a reader of the whole hall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardTopic {
    /// `status`.
    Status,
    /// `state`.
    State,
    /// `sgf`.
    Sgf,
    /// `events`.
    Events,
    /// `games/<key>`.
    Game(u64),
    /// `cmd`.
    Cmd,
}

/// Splits `smartgoban/v1/<hall>/board/<board>/<what>` into the board and what it is; `None`
/// for any other topic (another hall, a level this version does not know).
pub fn parse_board_topic<'a>(hall: &str, topic: &'a str) -> Option<(&'a str, BoardTopic)> {
    let rest = topic
        .strip_prefix(TOPIC_ROOT)?
        .strip_prefix('/')?
        .strip_prefix(hall)?
        .strip_prefix("/board/")?;
    let (board, what) = rest.split_once('/')?;
    check_id("board", board).ok()?;
    let kind = match what {
        "status" => BoardTopic::Status,
        "state" => BoardTopic::State,
        "sgf" => BoardTopic::Sgf,
        "events" => BoardTopic::Events,
        "cmd" => BoardTopic::Cmd,
        _ => BoardTopic::Game(what.strip_prefix("games/")?.parse().ok()?),
    };
    Some((board, kind))
}

/// `…/status`: whether the board's service is connected.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Status {
    /// `online`, or `offline` (the last will, or a clean stop).
    pub status: String,
    /// The board id.
    pub board: String,
    /// smartgoban's version on the board.
    pub version: String,
    /// The board's own page and API, when configured.
    #[serde(default)]
    pub url: Option<String>,
    /// Wall clock when this was sent, ms since the Unix epoch (absent in the last will, which
    /// is written when the board connects).
    #[serde(default)]
    pub unix_ms: Option<i64>,
    /// The game on the board (`GET /api/v1/state`'s `game`: players, komi, round, result),
    /// sent again when it changes; absent in the last will.
    #[serde(default)]
    pub game: Option<serde_json::Value>,
}

/// `…/state`: the board's `GET /api/v1/state` with who and when.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateMessage {
    /// The board id.
    pub board: String,
    /// The `seq` of the last event this state includes.
    pub seq: u64,
    /// Wall clock when sent, ms since the Unix epoch.
    pub unix_ms: i64,
    /// `GET /api/v1/state` (its OpenAPI schema `StateView`).
    pub state: serde_json::Value,
}

/// `…/games/<key>`: a finished game, kept by the broker for the results table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameSummary {
    /// The board id.
    pub board: String,
    /// The seq of the result event (the topic's key).
    pub key: u64,
    /// Round (`RO`), if the game was started with one.
    pub round: Option<String>,
    /// Black's name.
    pub black: Option<String>,
    /// White's name.
    pub white: Option<String>,
    /// The result (SGF `RE`: `B+R`, `W+3.5`, `0` for a draw, `Void`…).
    pub result: Option<String>,
    /// Warnings each side received (R24), for the tie-break of R27.
    pub warnings: Warnings,
    /// Moves played.
    pub moves: u32,
    /// Wall clock when the result was published, ms since the Unix epoch.
    pub unix_ms: i64,
    /// The record.
    pub sgf: String,
}

/// Warnings per side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warnings {
    /// Black's.
    pub black: u32,
    /// White's.
    pub white: u32,
}

/// A command from the hall (`cmd` topics), answered on the request's MQTT 5 response topic
/// with [`CommandAnswer`]. Each is carried out by the board's own API with the board's token,
/// as if the referee had sent it: the API stays the authority on each board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case", deny_unknown_fields)]
pub enum HallCommand {
    /// `POST /api/v1/games` with `game` (players, round, time system, komi…; `replace`).
    StartGame {
        /// The body of `POST /api/v1/games`.
        game: serde_json::Value,
    },
    /// `POST /api/v1/clock/pause`.
    Pause {},
    /// `POST /api/v1/clock/resume`.
    Resume {},
    /// `POST /api/v1/broadcast` with `{delay_moves, delay_s}`.
    BroadcastDelay {
        /// Moves the public view stays behind.
        #[serde(default)]
        delay_moves: u32,
        /// Seconds the public view stays behind.
        #[serde(default)]
        delay_s: u32,
    },
}

impl HallCommand {
    /// The API path and JSON body this command is carried out with.
    pub fn request(&self) -> (&'static str, serde_json::Value) {
        match self {
            HallCommand::StartGame { game } => ("/api/v1/games", game.clone()),
            HallCommand::Pause {} => ("/api/v1/clock/pause", serde_json::json!({})),
            HallCommand::Resume {} => ("/api/v1/clock/resume", serde_json::json!({})),
            HallCommand::BroadcastDelay {
                delay_moves,
                delay_s,
            } => (
                "/api/v1/broadcast",
                serde_json::json!({"delay_moves": delay_moves, "delay_s": delay_s}),
            ),
        }
    }

    /// The command's name (`start_game`…).
    pub fn name(&self) -> &'static str {
        match self {
            HallCommand::StartGame { .. } => "start_game",
            HallCommand::Pause {} => "pause",
            HallCommand::Resume {} => "resume",
            HallCommand::BroadcastDelay { .. } => "broadcast_delay",
        }
    }
}

/// A board's answer to a [`HallCommand`]: the API's status and body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CommandAnswer {
    /// The board id.
    pub board: String,
    /// The command's name, or `invalid` for a payload that is no command.
    pub command: String,
    /// The HTTP status the board's API answered (200: done; 409, 422: refused, see `body`;
    /// 400: not a command).
    pub status: u16,
    /// The API's JSON body (`{"ok": true}`, `{"error": "…"}`).
    pub body: serde_json::Value,
}

/// The rustls client configuration for a TLS broker: `ca_file`'s certificates, or the
/// system's roots.
///
/// # Errors
/// [`MqttError::Ca`] for a file that cannot be read or holds no certificate.
pub fn tls_config(ca_file: Option<&std::path::Path>) -> Result<rustls::ClientConfig, MqttError> {
    use rustls::pki_types::{pem::PemObject, CertificateDer};
    let mut roots = rustls::RootCertStore::empty();
    match ca_file {
        Some(path) => {
            let ca = |why: String| MqttError::Ca {
                path: path.to_path_buf(),
                why,
            };
            let certs = CertificateDer::pem_file_iter(path)
                .map_err(|e| ca(e.to_string()))?
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| ca(e.to_string()))?;
            if certs.is_empty() {
                return Err(ca("no certificate in it".into()));
            }
            for c in certs {
                roots.add(c).map_err(|e| ca(e.to_string()))?;
            }
        }
        None => {
            for c in rustls_native_certs::load_native_certs().certs {
                let _ = roots.add(c);
            }
        }
    }
    // ring, not aws-lc: it builds for the Pi with the cross compilers alone. (rustls 0.23.48
    // deprecates ring's provider for lacking post-quantum key exchange; a hall's broker on
    // its own network does not need it.)
    #[allow(deprecated)]
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map(|b| b.with_root_certificates(roots).with_no_client_auth())
        .map_err(|e| MqttError::Ca {
            path: ca_file.map(|p| p.to_path_buf()).unwrap_or_default(),
            why: e.to_string(),
        })
}

/// The shortest keepalive: the MQTT client library's least.
pub const MIN_KEEPALIVE: Duration = Duration::from_secs(5);

/// rumqttc's options for a client `client_id` of `url`: credentials, TLS, keepalive.
///
/// # Errors
/// [`MqttError::Ca`] for TLS without usable roots.
pub fn client_options(
    client_id: &str,
    url: &BrokerUrl,
    credentials: Option<&(String, String)>,
    ca_file: Option<&std::path::Path>,
    keepalive: Duration,
) -> Result<rumqttc::v5::MqttOptions, MqttError> {
    let mut options = rumqttc::v5::MqttOptions::new(client_id, url.host.clone(), url.port);
    // rumqttc takes 5 s at least (it panics below)
    options.set_keep_alive(keepalive.max(MIN_KEEPALIVE));
    options.set_clean_start(true);
    // Sent as the CONNECT's Maximum Packet Size (MQTT 5 §3.1.2.11.4): the broker does not
    // send this client a bigger message (a hostile retained one would otherwise break the
    // connection at every reconnect).
    options.set_max_packet_size(Some(MAX_PACKET_BYTES));
    if let Some((user, password)) = credentials {
        options.set_credentials(user.clone(), password.clone());
    }
    if url.tls {
        let config = tls_config(ca_file)?;
        options.set_transport(rumqttc::Transport::tls_with_config(
            rumqttc::TlsConfiguration::Rustls(std::sync::Arc::new(config)),
        ));
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broker_urls_are_read_and_bad_ones_refused() {
        let u: BrokerUrl = "mqtt://broker.local".parse().unwrap();
        assert_eq!(
            (u.tls, u.host.as_str(), u.port),
            (false, "broker.local", 1883)
        );
        let u: BrokerUrl = "mqtts://10.0.0.2:8884/".parse().unwrap();
        assert_eq!((u.tls, u.host.as_str(), u.port), (true, "10.0.0.2", 8884));
        let u: BrokerUrl = "mqtt://[::1]:1884".parse().unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 1884));
        assert_eq!(u.to_string(), "mqtt://[::1]:1884");
        let u: BrokerUrl = "mqtts://[fe80::2]".parse().unwrap();
        assert_eq!((u.host.as_str(), u.port), ("fe80::2", 8883));
        for bad in [
            "mqtt://[::1",
            "mqtt://[::1]x",
            "mqtt://[::1]:",
            "mqtt://[nonsense]:1883",
            "mqtt://::1",
            "mqtt://host:1883:1884",
            "mqtt://ho st",
            "mqtt://host:",
            "mqtt://[]",
            "mqtt://host:+1",
            "mqtt://..",
            "mqtt://a..b",
            "",
            "broker:1883",
            "http://broker",
            "mqtt://",
            "mqtt://host:0",
            "mqtt://host:99999",
            "mqtt://user@host",
            "mqtt://host/path",
        ] {
            assert!(bad.parse::<BrokerUrl>().is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn ids_are_one_topic_level() {
        for ok in ["1", "table-12", "hall_A", &"x".repeat(64)] {
            assert!(check_id("board", ok).is_ok(), "{ok}");
        }
        for bad in ["", "a/b", "+", "#", "a b", "ü", &"x".repeat(65)] {
            assert!(check_id("board", bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn topics_are_named_and_read_back() {
        let t = BoardTopics::new("open2026", "12");
        assert_eq!(t.status(), "smartgoban/v1/open2026/board/12/status");
        assert_eq!(t.hall_cmd(), "smartgoban/v1/open2026/cmd");
        for (topic, kind) in [
            (t.status(), BoardTopic::Status),
            (t.state(), BoardTopic::State),
            (t.sgf(), BoardTopic::Sgf),
            (t.events(), BoardTopic::Events),
            (t.cmd(), BoardTopic::Cmd),
            (t.game(77), BoardTopic::Game(77)),
        ] {
            assert_eq!(parse_board_topic("open2026", &topic), Some(("12", kind)));
        }
        assert_eq!(parse_board_topic("other", &t.status()), None);
        assert_eq!(
            parse_board_topic("open2026", "smartgoban/v1/open2026/board/12/x"),
            None
        );
        assert_eq!(
            parse_board_topic("open2026", "smartgoban/v1/open2026/board/12/games/x"),
            None
        );
        assert_eq!(
            parse_board_topic("open2026", "smartgoban/v1/open2026/cmd"),
            None
        );
    }

    #[test]
    fn hall_commands_are_read_as_documented() {
        let c: HallCommand = serde_json::from_str(
            r#"{"command":"start_game","game":{"black":"A","white":"B","round":"3"}}"#,
        )
        .unwrap();
        assert_eq!(c.request().0, "/api/v1/games");
        assert_eq!(c.request().1["round"], "3");
        let c: HallCommand =
            serde_json::from_str(r#"{"command":"broadcast_delay","delay_s":900}"#).unwrap();
        assert_eq!(
            c.request(),
            (
                "/api/v1/broadcast",
                serde_json::json!({"delay_moves": 0, "delay_s": 900})
            )
        );
        for bad in [
            r#"{"command":"format_disk"}"#,
            r#"{"command":"pause","x":1}"#,
            "[]",
        ] {
            assert!(serde_json::from_str::<HallCommand>(bad).is_err(), "{bad}");
        }
    }
}
