//! The HTTP server loop: axum's router on hyper's HTTP/1 connections, with the limits a
//! service on a local network needs (axum's own `serve` sets none of them).
//!
//! * at most [`MAX_CONNECTIONS`] connections at once; more wait in the kernel's backlog, so idle
//!   sockets can never take the file descriptors the serial port and the record need;
//! * at most [`MAX_CONNECTIONS_PER_ADDRESS`] from one address, so one client cannot lock out
//!   the others (the referee included);
//! * a request's headers must arrive within [`HEADER_TIMEOUT`], so a client that connects and
//!   sends nothing (or sends slowly) is dropped;
//! * on shutdown every connection is asked to finish; long-lived feeds are cut by the caller's
//!   timeout.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tower::ServiceExt;

/// Most simultaneous HTTP connections (feed followers included). The systemd unit allows 4096
/// file descriptors.
pub const MAX_CONNECTIONS: usize = 2048;

/// Most simultaneous connections from one address: one machine (a broadcaster's script gone
/// wrong, a client holding sockets open) cannot take them all, so the referee and the others
/// still get in.
pub const MAX_CONNECTIONS_PER_ADDRESS: usize = 640;

// One address never takes more than half the connections.
const _: () = assert!(MAX_CONNECTIONS_PER_ADDRESS * 2 <= MAX_CONNECTIONS);

/// Time a client has to send a request's headers.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// Open connections per client address.
#[derive(Default)]
struct PerAddress(std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>);

impl PerAddress {
    /// Counts a connection from `ip` in, unless it already has the most.
    fn admit(&self, ip: std::net::IpAddr) -> bool {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(ip).or_insert(0);
        if *n >= MAX_CONNECTIONS_PER_ADDRESS {
            return false;
        }
        *n += 1;
        true
    }

    fn release(&self, ip: std::net::IpAddr) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = map.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&ip);
            }
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let per_address = Arc::new(PerAddress::default());
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            _ = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!("HTTP accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let ip = peer.ip();
        if !per_address.admit(ip) {
            drop(stream); // refused at once: this address holds too many connections
            continue;
        }
        let per_address = per_address.clone();
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(
            router
                .clone()
                .map_request(|req: hyper::Request<Incoming>| req.map(axum::body::Body::new)),
        );
        let mut stop = stop_rx.clone();
        tokio::spawn(async move {
            let mut builder = http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_TIMEOUT)
                .keep_alive(true);
            let conn = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades();
            let mut conn = std::pin::pin!(conn);
            let stopping = async move {
                let _ = stop.wait_for(|s| *s).await;
            };
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = stopping => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
            per_address.release(ip);
            drop(permit);
        });
    }
    let _ = stop_tx.send(true);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_address_cannot_take_every_connection() {
        let per = PerAddress::default();
        let a: std::net::IpAddr = "192.168.1.20".parse().unwrap();
        let b: std::net::IpAddr = "192.168.1.21".parse().unwrap();
        for _ in 0..MAX_CONNECTIONS_PER_ADDRESS {
            assert!(per.admit(a));
        }
        assert!(!per.admit(a), "one more from the same address is refused");
        assert!(per.admit(b), "another address still gets in");
        per.release(a);
        assert!(per.admit(a));
    }
}
