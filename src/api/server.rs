//! The HTTP server loop: axum's router on hyper's HTTP/1 connections, with the limits a
//! service on a local network needs (axum's own `serve` sets none of them).
//!
//! * at most [`Limits::connections`] connections at once; more wait in the kernel's backlog,
//!   so idle sockets can never take the file descriptors the serial port and the record need;
//! * at most [`Limits::connections_per_address`] from one address, so one client cannot lock
//!   out the others (the referee included);
//! * at most [`Limits::feed_followers`] following the live feeds (SSE and WebSocket), so
//!   followers never take every connection from ordinary requests;
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

/// How many clients the server takes at once (config `[limits]`). The defaults hold 2,000
/// feed followers beside the referee, the page and the broadcasters' polling; each connection
/// is one file descriptor (the systemd unit allows 8192, and the service raises its own soft
/// limit to its hard limit at start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most simultaneous HTTP connections, feed followers included (default 4096).
    pub connections: usize,
    /// Most simultaneous connections from one address (default 1024, a quarter of the
    /// connections): one machine — a broadcaster's script gone wrong, a client holding sockets
    /// open — cannot take them all, so the referee and the others still get in.
    pub connections_per_address: usize,
    /// Most clients following the live feeds, SSE and WebSocket together (default 3000); more
    /// get 503 with a `Retry-After`.
    pub feed_followers: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connections: 4096,
            connections_per_address: 1024,
            feed_followers: 3000,
        }
    }
}

impl Limits {
    /// Checks the limits hang together.
    ///
    /// # Errors
    /// What is wrong: a limit is 0, or the feed followers or one address's connections are
    /// more than the connections.
    pub fn check(&self) -> Result<(), &'static str> {
        if self.connections == 0 || self.connections_per_address == 0 || self.feed_followers == 0 {
            return Err("each limit must be at least 1");
        }
        if self.connections_per_address > self.connections {
            return Err("connections_per_address must not be more than connections");
        }
        if self.feed_followers > self.connections {
            return Err("feed_followers must not be more than connections");
        }
        Ok(())
    }
}

/// Time a client has to send a request's headers.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// Open connections per client address, at most `most` each.
struct PerAddress {
    open: std::sync::Mutex<std::collections::HashMap<std::net::IpAddr, usize>>,
    most: usize,
}

impl PerAddress {
    fn new(most: usize) -> PerAddress {
        PerAddress {
            open: Default::default(),
            most,
        }
    }

    /// Counts a connection from `ip` in, unless it already has the most.
    fn admit(&self, ip: std::net::IpAddr) -> bool {
        let mut map = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(ip).or_insert(0);
        if *n >= self.most {
            return false;
        }
        *n += 1;
        true
    }

    fn release(&self, ip: std::net::IpAddr) {
        let mut map = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = map.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&ip);
            }
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes, within `limits`' connections.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(limits.connections));
    let per_address = Arc::new(PerAddress::new(limits.connections_per_address));
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
        let most = Limits::default().connections_per_address;
        let per = PerAddress::new(most);
        let a: std::net::IpAddr = "192.168.1.20".parse().unwrap();
        let b: std::net::IpAddr = "192.168.1.21".parse().unwrap();
        for _ in 0..most {
            assert!(per.admit(a));
        }
        assert!(!per.admit(a), "one more from the same address is refused");
        assert!(per.admit(b), "another address still gets in");
        per.release(a);
        assert!(per.admit(a));
    }

    #[test]
    fn the_default_limits_hold_2000_followers_and_hang_together() {
        let d = Limits::default();
        assert_eq!(d.check(), Ok(()));
        assert!(d.feed_followers >= 2000 && d.connections >= d.feed_followers + 500);
        assert!(
            d.connections_per_address * 2 <= d.connections,
            "one address: at most half"
        );
        let bad = |l: Limits| l.check().unwrap_err();
        assert!(bad(Limits {
            connections: 0,
            ..d
        })
        .contains("at least 1"));
        assert!(bad(Limits {
            feed_followers: 5000,
            ..d
        })
        .starts_with("feed_followers"));
        assert!(bad(Limits {
            connections_per_address: 5000,
            ..d
        })
        .starts_with("connections_per_address"));
    }
}
