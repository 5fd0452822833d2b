//! The HTTP server loop: axum's router on hyper's HTTP/1 connections, with the limits a
//! service on a local network needs (axum's own `serve` sets none of them).
//!
//! * at most [`MAX_CONNECTIONS`] connections at once; more wait in the kernel's backlog, so idle
//!   sockets can never take the file descriptors the serial port and the record need;
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

/// Most simultaneous HTTP connections (SSE followers included).
pub const MAX_CONNECTIONS: usize = 1024;

/// Time a client has to send a request's headers.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `router` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
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
        let (stream, _peer) = tokio::select! {
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
            drop(permit);
        });
    }
    let _ = stop_tx.send(true);
    Ok(())
}
