//! The composition root of the service (`run`, `demo`): the daemon and the HTTP API started
//! side by side. The API reads the daemon's shared view ([`Shared`]); the daemon knows nothing
//! of the API (DESIGN.md "Core and shell").

use std::net::SocketAddr;
use std::sync::Arc;

use crate::api::{self, BindError};
use crate::daemon::{Daemon, DaemonConfig, DaemonError, Shared, Snapshot};
use crate::session::Command;

/// Errors starting the service.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// The HTTP address could not be bound.
    #[error(transparent)]
    Bind(#[from] BindError),
    /// The daemon could not start.
    #[error(transparent)]
    Daemon(#[from] DaemonError),
}

/// Descriptors the service needs beside its HTTP connections: the serial port, the store and
/// its journal, the record files, the runtime's own.
const OTHER_FILES: u64 = 64;

/// Raises this process's soft limit of open files to its hard limit (a shell's soft limit
/// is often 1024, fewer than [`api::Limits::connections`]); says so when even that is too
/// low for `connections`.
fn raise_open_files(connections: usize) {
    let wanted = connections as u64 + OTHER_FILES;
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(got) if got < wanted => tracing::warn!(
            "at most {got} open files (ulimit -n): fewer than the {connections} HTTP connections allowed need; raise LimitNOFILE or lower [api] connections"
        ),
        Ok(_) => {}
        Err(e) => tracing::warn!("cannot raise the limit of open files: {e}"),
    }
}

/// The daemon and, when asked for, the API served beside it and the MQTT publisher.
#[derive(Debug)]
pub struct Service {
    daemon: Daemon,
    api: Option<api::Server>,
    mqtt: Option<crate::mqtt::Publisher>,
}

/// The board's API as the MQTT publisher calls it for the hall's commands: the same router,
/// with the referee's token (the API stays the authority on the board).
struct RouterApi {
    router: axum::Router,
    token: Option<String>,
}

impl crate::mqtt::LocalApi for RouterApi {
    fn post(
        &self,
        path: &'static str,
        body: serde_json::Value,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = (u16, serde_json::Value)> + Send>> {
        use tower::ServiceExt;
        let mut request =
            axum::http::Request::post(path).header("content-type", "application/json");
        if let Some(t) = &self.token {
            request = request.header("authorization", format!("Bearer {t}"));
        }
        let request = request.body(axum::body::Body::from(body.to_string()));
        let router = self.router.clone();
        Box::pin(async move {
            let Ok(request) = request else {
                return (500, serde_json::json!({"error": "bad request"}));
            };
            let Ok(response) = router.oneshot(request).await;
            let status = response.status().as_u16();
            let bytes = axum::body::to_bytes(response.into_body(), 1 << 20)
                .await
                .unwrap_or_default();
            let body = serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| serde_json::json!({"text": String::from_utf8_lossy(&bytes)}));
            (status, body)
        })
    }
}

impl Service {
    /// Binds `http` first (a busy address is an error before anything starts), then starts the
    /// daemon with `config`, then serves the API from its shared view within `limits`. `http`
    /// `None`: no API.
    ///
    /// # Errors
    /// [`ServiceError::Bind`] for the address, [`ServiceError::Daemon`] for the rest (the
    /// device path, the data directory, the game).
    pub async fn start(
        config: DaemonConfig,
        http: Option<SocketAddr>,
        limits: api::Limits,
    ) -> Result<Service, ServiceError> {
        let listener = match http {
            Some(addr) => {
                raise_open_files(limits.connections);
                Some(api::Server::bind(addr).await?)
            }
            None => None,
        };
        let daemon = Daemon::start(config).await?;
        let api = listener.map(|l| api::Server::spawn(l, daemon.shared().clone(), limits));
        Ok(Service {
            daemon,
            api,
            mqtt: None,
        })
    }

    /// Publishes the board to `settings`' broker and takes the hall's commands
    /// ([`crate::mqtt::Publisher`]); the outbox is kept in `data_dir`'s store. `first_seq`: the
    /// seq of this run's first event. `limits`: the API's, for the commands.
    ///
    /// # Errors
    /// A bad id or TLS setting.
    pub fn publish_mqtt(
        &mut self,
        settings: crate::mqtt::MqttSettings,
        data_dir: Option<std::path::PathBuf>,
        first_seq: u64,
        limits: api::Limits,
    ) -> Result<(), crate::mqtt::MqttError> {
        let shared = self.daemon.shared().clone();
        let local = RouterApi {
            router: api::router(shared.clone(), limits),
            token: shared.access.token.clone(),
        };
        self.mqtt = Some(crate::mqtt::Publisher::spawn(
            settings,
            shared,
            data_dir,
            first_seq,
            Arc::new(local),
        )?);
        Ok(())
    }

    /// The MQTT publisher's counters, when it runs.
    pub fn mqtt(&self) -> Option<&Arc<crate::mqtt::publisher::MqttCounters>> {
        self.mqtt.as_ref().map(|m| m.counters())
    }

    /// The address the API listens on (the real port when `:0` was asked for).
    pub fn http_addr(&self) -> Option<SocketAddr> {
        self.api.as_ref().map(api::Server::addr)
    }

    /// The daemon's shared view: snapshot, event log.
    pub fn shared(&self) -> &Arc<Shared> {
        self.daemon.shared()
    }

    /// Sends a command to the session and waits for it to be applied
    /// ([`Daemon::command`]).
    ///
    /// # Errors
    /// As [`Daemon::command`].
    pub async fn command(&self, command: Command) -> Result<(), DaemonError> {
        self.daemon.command(command).await
    }

    /// Stops the daemon (its last events and checkpoint written), then the API; returns the
    /// final snapshot.
    ///
    /// # Errors
    /// As [`Daemon::shutdown`].
    pub async fn shutdown(self) -> Result<Arc<Snapshot>, DaemonError> {
        let last = self.daemon.shutdown().await;
        // the last events and `offline` to the hall's broker
        if let Some(mqtt) = self.mqtt {
            mqtt.stop().await;
        }
        if let Some(api) = self.api {
            api.stop().await;
        }
        last
    }
}
