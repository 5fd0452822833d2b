//! `[mqtt]`: the hall's broker (issue 18; [`crate::mqtt`]).
//!
//! ```toml
//! [mqtt]
//! url = "mqtt://broker.hall.local"      # or mqtts://HOST[:PORT] for TLS
//! hall = "open2026"                     # the tournament's id: one topic level
//! board = "12"                          # this board's table number, as the pairings name it
//! username = "board12"                  # the broker's ACLs key on it (README "Many boards")
//! password_file = "/etc/smartgoban/mqtt-password"   # or password = "…"
//! ca_file = "/etc/smartgoban/hall-ca.pem"           # TLS: the hall's CA (else the system's)
//! keepalive_s = 10                      # 5–600: the hall sees `offline` ~1.5× this after a silence
//! heartbeat_s = 10                      # the state is sent again this often regardless
//! public_url = "http://table12.local:8019"          # this board's page, linked from the hall
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use super::ConfigError;
use crate::mqtt::{BrokerUrl, MqttSettings};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMqtt {
    url: Option<String>,
    hall: Option<String>,
    board: Option<String>,
    username: Option<String>,
    password: Option<String>,
    password_file: Option<PathBuf>,
    ca_file: Option<PathBuf>,
    keepalive_s: Option<i64>,
    heartbeat_s: Option<i64>,
    public_url: Option<String>,
}

/// `[mqtt]`, validated: `None` without a `url`.
pub(super) fn mqtt_settings(
    raw: RawMqtt,
    bad: &dyn Fn(&'static str, String, &'static str) -> ConfigError,
    path: &Path,
) -> Result<Option<MqttSettings>, ConfigError> {
    let Some(url) = raw.url else {
        if raw.hall.is_some() || raw.board.is_some() || raw.username.is_some() {
            return Err(bad(
                "mqtt.url",
                "(none)".into(),
                "name the hall's broker, e.g. \"mqtt://broker.hall.local\"",
            ));
        }
        return Ok(None);
    };
    let url: BrokerUrl = url.parse().map_err(|_| {
        bad(
            "mqtt.url",
            format!("{url:?}"),
            "use mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (TLS)",
        )
    })?;
    let id = |key: &'static str, v: Option<String>| -> Result<String, ConfigError> {
        let v = v.ok_or_else(|| bad(key, "(none)".into(), "required with mqtt.url"))?;
        crate::mqtt::check_id("mqtt", &v).map_err(|_| {
            bad(
                key,
                format!("{v:?}"),
                "use 1 to 64 letters, digits, '-' or '_'",
            )
        })?;
        Ok(v)
    };
    let hall = id("mqtt.hall", raw.hall)?;
    let board = id("mqtt.board", raw.board)?;
    let seconds = |key: &'static str, v: Option<i64>, least: i64| match v {
        None => Ok(Duration::from_secs(10)),
        Some(s) if (least..=600).contains(&s) => Ok(Duration::from_secs(s as u64)),
        Some(s) => Err(bad(
            key,
            s.to_string(),
            if least == 5 {
                "use 5 to 600 s"
            } else {
                "use 1 to 600 s"
            },
        )),
    };
    let password = match (raw.password, raw.password_file) {
        (Some(_), Some(_)) => {
            return Err(bad(
                "mqtt.password_file",
                "(and mqtt.password)".into(),
                "give the password or its file, not both",
            ))
        }
        (Some(p), None) => Some(p),
        (None, Some(file)) => Some(
            std::fs::read_to_string(&file)
                .map(|p| p.trim_end_matches(['\n', '\r']).to_string())
                .map_err(|e| ConfigError::Read {
                    path: file.clone(),
                    source: e,
                })?,
        ),
        (None, None) => None,
    };
    let credentials = match (raw.username, password) {
        (Some(u), p) => Some((u, p.unwrap_or_default())),
        (None, Some(_)) => {
            return Err(bad(
                "mqtt.username",
                "(none)".into(),
                "a password needs a user name",
            ))
        }
        (None, None) => None,
    };
    if let Some(ca) = &raw.ca_file {
        crate::mqtt::tls_config(Some(ca)).map_err(|e| ConfigError::Syntax {
            path: path.to_path_buf(),
            message: format!("mqtt.ca_file: {e}"),
        })?;
    }
    Ok(Some(MqttSettings {
        url,
        credentials,
        ca_file: raw.ca_file,
        hall,
        board,
        keepalive: seconds("mqtt.keepalive_s", raw.keepalive_s, 5)?,
        heartbeat: seconds("mqtt.heartbeat_s", raw.heartbeat_s, 1)?,
        public_url: raw.public_url,
    }))
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use std::path::Path;

    #[test]
    fn the_mqtt_section_is_read_and_its_errors_name_the_key() {
        let c = Config::parse(
            "[mqtt]\nurl = \"mqtt://broker:1884\"\nhall = \"open\"\nboard = \"12\"\nusername = \"b12\"\npassword = \"pw\"\nkeepalive_s = 5\n",
            Path::new("t.toml"),
        )
        .unwrap();
        let m = c.mqtt.unwrap();
        assert_eq!(
            (m.url.port, m.hall.as_str(), m.board.as_str()),
            (1884, "open", "12")
        );
        assert_eq!(m.credentials, Some(("b12".into(), "pw".into())));
        assert_eq!(m.keepalive.as_secs(), 5);
        assert!(Config::parse("", Path::new("t.toml"))
            .unwrap()
            .mqtt
            .is_none());
        for (text, key) in [
            (
                "[mqtt]\nurl = \"http://x\"\nhall = \"h\"\nboard = \"1\"\n",
                "mqtt.url",
            ),
            ("[mqtt]\nurl = \"mqtt://x\"\nboard = \"1\"\n", "mqtt.hall"),
            (
                "[mqtt]\nurl = \"mqtt://x\"\nhall = \"h\"\nboard = \"a/b\"\n",
                "mqtt.board",
            ),
            ("[mqtt]\nhall = \"h\"\n", "mqtt.url"),
            (
                "[mqtt]\nurl = \"mqtt://x\"\nhall = \"h\"\nboard = \"1\"\nkeepalive_s = 4\n",
                "mqtt.keepalive_s",
            ),
            (
                "[mqtt]\nurl = \"mqtt://x\"\nhall = \"h\"\nboard = \"1\"\npassword = \"p\"\n",
                "mqtt.username",
            ),
        ] {
            let e = Config::parse(text, Path::new("t.toml"))
                .unwrap_err()
                .to_string();
            assert!(e.contains(key), "{text:?}: {e}");
        }
        let e = Config::parse(
            "[mqtt]\nurl = \"mqtt://x\"\nbogus = 1\n",
            Path::new("t.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("bogus"), "{e}");
    }

    #[test]
    fn the_effective_mqtt_section_reads_back_without_the_password() {
        let text = "[mqtt]\nurl = \"mqtts://broker:8884\"\nhall = \"open\"\nboard = \"t-12\"\nusername = \"t-12\"\npassword = \"secret\"\nheartbeat_s = 3\npublic_url = \"http://t12.local:8019\"\n";
        let c = Config::parse(text, Path::new("t.toml")).unwrap();
        let printed = c.to_toml();
        assert!(!printed.contains("secret"), "{printed}");
        let back = Config::parse(&printed, Path::new("printed")).unwrap();
        let (mut a, b) = (c.mqtt.unwrap(), back.mqtt.unwrap());
        a.credentials = Some(("t-12".into(), String::new()));
        assert_eq!(a, b);
    }
}
