//! The effective configuration as a config file (`smartgoban config check FILE` prints it,
//! issue 16): every key with the value the service uses, defaults included, in the same TOML
//! the file is written in, so what is printed reads back to the same [`Config`].

use std::fmt::Write;

use super::{Config, LedDriverKind};
use crate::session::TimeUp;

/// A TOML string (basic string, escaped).
fn quoted(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The serde (kebab-case) name of a layout value.
fn serde_name<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

impl Config {
    /// Every key of the configuration with its value (defaults included), as TOML that
    /// [`Config::parse`] reads back to `self`. A key without a value (no serial device, no
    /// clock) is written as a comment.
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        let w = &mut out;
        let path = |p: &std::path::Path| quoted(&p.to_string_lossy());
        let _ = match &self.serial {
            Some(p) => writeln!(w, "serial = {}", path(p)),
            None => writeln!(w, "# serial: none (give --serial PATH)"),
        };
        let _ = writeln!(w, "http = {}", quoted(&self.http.to_string()));
        let _ = writeln!(w, "data_dir = {}", path(&self.data_dir));
        let _ = writeln!(w, "settle_ms = {}", self.settle_ms);
        let _ = writeln!(w, "profile = {}", quoted(self.profile.as_str()));
        let _ = writeln!(w, "cycles = {}", quoted(self.cycles.as_str()));
        let _ = writeln!(w, "commit_ms = {}", self.commit_ms.unwrap_or(0));
        let time_up = match self.time_up {
            TimeUp::Loss => "loss",
            TimeUp::Pass => "pass",
            TimeUp::Referee => "referee",
        };
        let _ = writeln!(w, "time_up = {}", quoted(time_up));
        let _ = writeln!(w, "charge_downtime = {}", self.charge_downtime);
        let _ = writeln!(w, "log = {}", quoted(&self.log));

        let info = &self.setup.info;
        let _ = writeln!(w, "\n[game]");
        let _ = writeln!(w, "size = {}", info.size);
        let _ = writeln!(w, "komi = {:?}", info.komi.unwrap_or(7.5));
        let _ = writeln!(w, "handicap = {}", self.setup.free_handicap);
        for (key, v) in [
            ("black", &info.black),
            ("white", &info.white),
            ("event", &info.event),
        ] {
            if let Some(v) = v {
                let _ = writeln!(w, "{key} = {}", quoted(v));
            }
        }
        let _ = match &self.setup.time {
            Some(t) => writeln!(w, "time = {}", quoted(&t.to_string())),
            None => writeln!(w, "time = \"none\""),
        };

        let c = &self.clock;
        let _ = writeln!(w, "\n[clock]");
        let _ = match c.buttons {
            Some(b) => writeln!(w, "buttons = {b:?}"),
            None => writeln!(w, "# buttons: none"),
        };
        let _ = match c.faces {
            Some([b, wh]) => writeln!(
                w,
                "faces = \"tm1637\"\nblack_face = {b:?}\nwhite_face = {wh:?}"
            ),
            None => writeln!(w, "faces = \"none\""),
        };
        let _ = match &c.voice {
            Some(dir) => {
                let lang = dir.file_name().map(|n| n.to_string_lossy().into_owned());
                let parent = dir.parent().map(path).unwrap_or_default();
                writeln!(
                    w,
                    "voice = {}\nvoice_dir = {parent}",
                    quoted(&lang.unwrap_or_default())
                )
            }
            None => writeln!(w, "voice = \"off\""),
        };
        if let Some(pwm) = c.buzzer_pwm {
            let _ = writeln!(w, "buzzer_pwm = {pwm}");
        }

        let _ = writeln!(w, "\n[api]");
        let _ = writeln!(w, "public_reads = {}", self.public_reads);
        let _ = writeln!(w, "connections = {}", self.limits.connections);
        let _ = writeln!(
            w,
            "connections_per_address = {}",
            self.limits.connections_per_address
        );
        let _ = writeln!(w, "feed_followers = {}", self.limits.feed_followers);

        let l = &self.leds;
        let driver = match l.driver {
            LedDriverKind::Mcu => "mcu",
            LedDriverKind::Ws2812Spi => "ws2812-spi",
            LedDriverKind::Apa102Spi => "apa102-spi",
            LedDriverKind::Sim => "sim",
            LedDriverKind::None => "none",
        };
        let _ = writeln!(w, "\n[leds]");
        let _ = writeln!(w, "driver = {}", quoted(driver));
        let _ = writeln!(w, "brightness = {}", l.settings.brightness);
        let _ = writeln!(w, "max_current_ma = {}", l.settings.max_current_ma);
        let _ = writeln!(w, "channel_ma = {}", l.settings.channel_ma);
        let _ = writeln!(w, "first = {}", quoted(&serde_name(&l.layout.first)));
        let _ = writeln!(w, "order = {}", quoted(&serde_name(&l.layout.order)));
        let _ = writeln!(w, "spi_bus = {}", l.spi_bus);
        let _ = writeln!(w, "spi_ss = {}", l.spi_ss);
        let _ = writeln!(w, "spi_hz = {}", l.spi_hz);
        let _ = writeln!(w, "spi_max_transfer = {}", l.spi_max_transfer);

        match &self.mqtt {
            None => {
                let _ = writeln!(w, "\n# [mqtt]: none (no hall broker)");
            }
            Some(m) => {
                let _ = writeln!(w, "\n[mqtt]");
                let _ = writeln!(w, "url = {}", quoted(&m.url.to_string()));
                let _ = writeln!(w, "hall = {}", quoted(&m.hall));
                let _ = writeln!(w, "board = {}", quoted(&m.board));
                if let Some((user, password)) = &m.credentials {
                    let _ = writeln!(w, "username = {}", quoted(user));
                    if !password.is_empty() {
                        // a secret is not printed
                        let _ = writeln!(w, "# password: set (not shown)");
                    }
                }
                if let Some(ca) = &m.ca_file {
                    let _ = writeln!(w, "ca_file = {}", path(ca));
                }
                let _ = writeln!(w, "keepalive_s = {}", m.keepalive.as_secs());
                let _ = writeln!(w, "heartbeat_s = {}", m.heartbeat.as_secs());
                if let Some(u) = &m.public_url {
                    let _ = writeln!(w, "public_url = {}", quoted(u));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_defaults_print_and_read_back() {
        let d = Config::defaults();
        let text = d.to_toml();
        assert_eq!(
            Config::parse(&text, Path::new("printed")).unwrap(),
            d,
            "{text}"
        );
        assert!(text.contains("settle_ms = 150\n"), "{text}");
        assert!(text.contains("log = \"warn\"\n"), "{text}");
    }

    #[test]
    fn a_full_file_prints_and_reads_back() {
        let file = r#"
serial = "/dev/smartgoban"
http = "127.0.0.1:9000"
data_dir = "/srv/go"
settle_ms = 300
profile = "cn1988"
cycles = "draw"
commit_ms = 0
time_up = "referee"
charge_downtime = true
log = "smartgoban=debug,warn"
[game]
size = 13
komi = 6.5
handicap = 3
black = "Fan \"Xiping\""
white = "Shi Xiangxia"
event = "Danghu"
time = "main=60m cn=5x60s"
[clock]
buttons = [17, 27, 22]
faces = "tm1637"
black_face = [5, 6]
white_face = [13, 19]
voice = "en"
voice_dir = "/opt/voice"
buzzer_pwm = 1
[api]
public_reads = false
connections = 2000
connections_per_address = 500
feed_followers = 1500
[leds]
driver = "apa102-spi"
brightness = 40
max_current_ma = 1500
channel_ma = 18
first = "bottom-right"
order = "columns"
spi_bus = 1
spi_ss = 2
spi_hz = 8000000
spi_max_transfer = 8192
"#;
        let c = Config::parse(file, Path::new("full.toml")).unwrap();
        let text = c.to_toml();
        assert_eq!(
            Config::parse(&text, Path::new("printed")).unwrap(),
            c,
            "{text}"
        );
    }
}
