//! `smartgoban hall`: the hall service ([`crate::hall`]).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use clap::Args;

use crate::hall::server::HallState;
use crate::hall::subscriber::{HallLink, HallMqtt};
use crate::hall::{Hall, HallConfig};
use crate::mqtt::BrokerUrl;

/// `smartgoban hall`.
#[derive(Debug, Clone, Args)]
pub struct HallArgs {
    /// The hall's broker, mqtt://HOST[:PORT] or mqtts://HOST[:PORT].
    #[arg(long, value_name = "URL", value_parser = super::parse_broker)]
    pub mqtt: BrokerUrl,
    /// The hall id (the boards' `[mqtt] hall`).
    #[arg(long, value_name = "ID", default_value = "hall", value_parser = super::parse_hall_id)]
    pub hall: String,
    /// Address of the hall's page and API.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8020")]
    pub http: SocketAddr,
    /// Pairings to import at start (CSV with columns round, table, black, white).
    #[arg(long, value_name = "CSV")]
    pub pairings: Option<PathBuf>,
    /// The broker user (the hall's ACL lets it publish commands).
    #[arg(long, value_name = "NAME")]
    pub username: Option<String>,
    /// File holding the broker user's password.
    #[arg(long, value_name = "FILE", requires = "username")]
    pub password_file: Option<PathBuf>,
    /// CA certificates (PEM) of a TLS broker; default the system's.
    #[arg(long, value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    /// The public delay, s: spectators see the boards, records and events this much later.
    #[arg(long, value_name = "S", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=86_400))]
    pub delay_s: u64,
    /// A board silent this long is an orphan (boards send their state every 10 s), s.
    #[arg(long, value_name = "S", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub orphan_after_s: u64,
    /// The referee's token for live reads and commands: read from this file, or made and
    /// written there (mode 0600). Without: made for this run and printed.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
}

/// Tokens shorter than this are refused (anyone who can reach the hall could guess them).
const MIN_TOKEN_LEN: usize = 16;

fn token(file: Option<&std::path::Path>) -> anyhow::Result<String> {
    use crate::api::token;
    let Some(f) = file else {
        return Ok(token::new_token());
    };
    if f.exists() {
        let t =
            std::fs::read_to_string(f).with_context(|| format!("cannot read {}", f.display()))?;
        let t = t.trim().to_string();
        anyhow::ensure!(
            t.len() >= MIN_TOKEN_LEN,
            "the token in {} is too short: at least {MIN_TOKEN_LEN} characters (delete the file to have one made)",
            f.display()
        );
        anyhow::ensure!(
            t.chars().all(|c| c == ' ' || c.is_ascii_graphic()),
            "the token in {} has a line break or characters an Authorization header cannot carry: use one line of ASCII letters, digits and punctuation",
            f.display()
        );
        token::keep_private(f);
        return Ok(t);
    }
    let t = token::new_token();
    token::write_private(f, &t).with_context(|| format!("cannot write {}", f.display()))?;
    Ok(t)
}

/// Runs the hall service until Ctrl-C or SIGTERM.
///
/// # Errors
/// The pairings, the token file, the TLS settings or the HTTP address.
pub async fn run(args: HallArgs) -> anyhow::Result<()> {
    let mut hall = Hall::new(HallConfig {
        hall: args.hall.clone(),
        orphan_after_ms: args.orphan_after_s * 1000,
        delay_ms: args.delay_s * 1000,
    });
    let mut pairings_text = None;
    if let Some(p) = &args.pairings {
        let text =
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?;
        let pairings = crate::hall::pairings::parse(&text)
            .with_context(|| format!("pairings {}", p.display()))?;
        hall.set_pairings(pairings);
        pairings_text = Some(text);
    }
    let password = match &args.password_file {
        Some(f) => Some(
            std::fs::read_to_string(f)
                .with_context(|| format!("cannot read {}", f.display()))?
                .trim_end_matches(['\n', '\r'])
                .to_string(),
        ),
        None => None,
    };
    let token = token(args.token_file.as_deref())?;
    let hall = Arc::new(Mutex::new(hall));
    let changed = Arc::new(tokio::sync::Notify::new());
    let link = HallLink::start(
        HallMqtt {
            url: args.mqtt.clone(),
            credentials: args
                .username
                .clone()
                .map(|u| (u, password.unwrap_or_default())),
            ca_file: args.ca_file.clone(),
            hall: args.hall.clone(),
        },
        hall.clone(),
        changed.clone(),
    )?;
    if let Some(text) = pairings_text {
        // kept on the broker (retained) for a restart without --pairings
        if let Err(e) = link.publish_pairings(&text).await {
            tracing::warn!("hall: pairings not kept on the broker: {e}");
        }
    }
    let state = Arc::new(HallState {
        hall,
        changed,
        link,
        token: token.clone(),
    });
    let addr = crate::hall::server::serve(state, args.http)
        .await
        .with_context(|| format!("cannot listen on {} (another --http address?)", args.http))?;
    println!("smartgoban hall {}: boards from {}", args.hall, args.mqtt);
    println!("  hall page:   http://{addr}/");
    println!("  hall state:  http://{addr}/api/v1/hall");
    println!("  event feed:  http://{addr}/api/v1/events");
    if args.token_file.is_none() {
        println!("  referee token (Authorization: Bearer …): {token}");
    }
    super::run::wait_for_signal().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_token_file_is_made_private_and_a_short_token_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("hall-token");
        // made: 64 hex digits, mode 0600, the same on the next start
        let t = super::token(Some(&f)).unwrap();
        assert!(
            t.len() == 64 && t.chars().all(|c| c.is_ascii_hexdigit()),
            "{t}"
        );
        let mode = |f: &std::path::Path| std::fs::metadata(f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&f), 0o600);
        assert_eq!(super::token(Some(&f)).unwrap(), t);
        // one of the organiser's, readable by all: taken, made private
        std::fs::write(&f, "correct horse battery staple\n").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(
            super::token(Some(&f)).unwrap(),
            "correct horse battery staple"
        );
        assert_eq!(mode(&f), 0o600);
        // too short to keep anyone out
        std::fs::write(&f, "1234\n").unwrap();
        let e = super::token(Some(&f)).unwrap_err().to_string();
        assert!(e.contains("too short"), "{e}");
        std::fs::write(&f, "correct horse\nbattery staple\n").unwrap();
        let e = super::token(Some(&f)).unwrap_err().to_string();
        assert!(e.contains("Authorization header"), "{e}");
        // without a file: one for this run
        assert_eq!(super::token(None).unwrap().len(), 64);
    }
}
