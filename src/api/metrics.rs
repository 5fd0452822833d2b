//! `GET /metrics`: Prometheus text format (version 0.0.4) — scans, settle latency, serial
//! errors by kind, reconnections, board restarts, LED frames, the board's history, events and
//! feed clients.

use std::fmt::Write;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::daemon::Shared;
use crate::session::SETTLE_BUCKETS_MS;

/// Renders every metric. `referee`: the live figures; otherwise, under a broadcast delay, the
/// game's progress (moves, events, violations) is the public view's.
pub fn render(shared: &Shared, referee: bool) -> String {
    let snap = shared.view(referee);
    let (link, session) = (&snap.link, &snap.session);
    let mut out = String::new();
    family(
        &mut out,
        "scans_total",
        "counter",
        "Scans taken in from the board.",
        &[("", session.scans as f64)],
    );
    family(
        &mut out,
        "serial_errors_total",
        "counter",
        "Bad frames and lost frames on the serial link, by kind.",
        &[
            ("{kind=\"cobs\"}", link.cobs_errors as f64),
            ("{kind=\"crc\"}", link.crc_errors as f64),
            ("{kind=\"too_long\"}", link.too_long as f64),
            ("{kind=\"malformed\"}", link.malformed as f64),
            ("{kind=\"lost_frames\"}", link.lost_frames as f64),
            (
                "{kind=\"version_mismatch\"}",
                link.version_mismatches as f64,
            ),
            ("{kind=\"ignored_scans\"}", link.ignored_scans as f64),
        ],
    );
    family(
        &mut out,
        "link_handshakes_total",
        "counter",
        "Completed handshakes with the board (the first connection and every reconnection).",
        &[("", link.handshakes as f64)],
    );
    family(
        &mut out,
        "link_board_sessions_total",
        "counter",
        "Sessions started on the board: every accepted HelloAck, also those answering Hellos repeated while it was silent (PROTOCOL.md §4).",
        &[("", link.sessions as f64)],
    );
    family(
        &mut out,
        "link_timeouts_total",
        "counter",
        "Links lost because the board fell silent for 1 s.",
        &[("", link.timeouts as f64)],
    );
    family(
        &mut out,
        "board_resets_total",
        "counter",
        "Restarts of the board seen during a session: scans stopped while it still answered, an unasked HelloAck, or a scan counter that went back (PROTOCOL.md §4).",
        &[("", link.board_resets as f64)],
    );
    family(
        &mut out,
        "link_up",
        "gauge",
        "1 while the board's link is up.",
        &[(
            "",
            if snap.state.link.state == crate::event::LinkState::Connected {
                1.0
            } else {
                0.0
            },
        )],
    );
    family(
        &mut out,
        "bytes_received_total",
        "counter",
        "Bytes read from the serial port.",
        &[("", link.bytes_in as f64)],
    );
    family(

        &mut out,
        "led_frames_total",
        "counter",
        "LED frames sent to the board, re-sends included; re-sends; acknowledgements with another CRC.",
        &[
            ("{kind=\"sent\"}", link.led_frames_sent as f64),
            ("{kind=\"resent\"}", link.led_resends as f64),
            ("{kind=\"mismatch\"}", link.led_mismatches as f64),
        ],
    );
    family(
        &mut out,
        "board_history_total",
        "counter",
        "The board's history after a handshake (PROTOCOL.md §14): histories asked for, replayed whole, fallen back to judging the board as it lies; Pulls and Opens sent again.",
        &[
            ("{kind=\"asked\"}", link.histories_asked as f64),
            ("{kind=\"replayed\"}", link.histories_replayed as f64),
            ("{kind=\"fallback\"}", link.history_fallbacks as f64),
            ("{kind=\"repulled\"}", link.history_repulls as f64),
            ("{kind=\"reopened\"}", link.history_reopens as f64),
        ],
    );
    family(
        &mut out,
        "scan_gaps_total",
        "counter",
        "Gaps in the board's scans (scans it dropped while the host did not read, or lost on the wire, PROTOCOL.md §14.7): filled from its history; not filled.",
        &[
            ("{kind=\"filled\"}", link.gaps_filled as f64),
            ("{kind=\"unfilled\"}", link.gaps_unfilled as f64),
        ],
    );
    family(
        &mut out,
        "board_changes_total",
        "counter",
        "Settled boards that differ from the one before; transients that settled back.",
        &[
            ("{kind=\"changed\"}", session.stabiliser.changes as f64),
            ("{kind=\"transient\"}", session.stabiliser.transients as f64),
        ],
    );
    // Durations in seconds, as Prometheus names them (the buckets are kept in ms).
    let _ = writeln!(out, "# HELP smartgoban_settle_latency_seconds Board time from a point's first change to the board settled, seconds.");
    let _ = writeln!(out, "# TYPE smartgoban_settle_latency_seconds histogram");
    for (bound, count) in SETTLE_BUCKETS_MS
        .iter()
        .map(|&b| (b as f64 / 1000.0).to_string())
        .chain(["+Inf".to_string()])
        .zip(session.settle_buckets)
    {
        let _ = writeln!(
            out,
            "smartgoban_settle_latency_seconds_bucket{{le=\"{bound}\"}} {count}"
        );
    }
    let count = session.settle_buckets.last().copied().unwrap_or(0);
    let _ = writeln!(
        out,
        "smartgoban_settle_latency_seconds_sum {}",
        session.settle_ms_sum as f64 / 1000.0
    );
    let _ = writeln!(out, "smartgoban_settle_latency_seconds_count {count}");
    family(
        &mut out,
        "events_total",
        "counter",
        "Events the service emitted since it started (a count, not an event id).",
        &[("", shared.log.emitted() as f64)],
    );
    family(
        &mut out,
        "feed_events_sent_total",
        "counter",
        "Events written to SSE and WebSocket clients, all together.",
        &[("", shared.feeds.events_sent.load(Ordering::Relaxed) as f64)],
    );
    family(
        &mut out,
        "feed_clients",
        "gauge",
        "Clients following the live feed now.",
        &[
            (
                "{feed=\"sse\"}",
                shared.feeds.sse_clients.load(Ordering::Relaxed) as f64,
            ),
            (
                "{feed=\"ws\"}",
                shared.feeds.ws_clients.load(Ordering::Relaxed) as f64,
            ),
        ],
    );
    family(
        &mut out,
        "moves",
        "gauge",
        "Moves and passes in the record.",
        &[("", f64::from(snap.state.move_number))],
    );
    family(
        &mut out,
        "open_violations",
        "gauge",
        "Violations waiting for the board or the referee.",
        &[("", snap.state.violations.len() as f64)],
    );
    family(
        &mut out,
        "storage_ok",
        "gauge",
        "1 while the record is written to the disk; 0 while the store or current.sgf cannot be written (disk full, read-only): the game goes on in memory (storage_error in GET state).",
        &[("", if snap.state.storage_error.is_none() { 1.0 } else { 0.0 })],
    );
    let c = snap.state.sensors.counts;
    family(
        &mut out,
        "sensor_faults",
        "gauge",
        "Faulty Hall sensors by fault, as the board reported them after its handshake (protocol version 4; 0 when nothing was reported): a dead sensor's point is read from its neighbours.",
        &[
            ("{fault=\"dead\"}", f64::from(c.dead)),
            ("{fault=\"swapped\"}", f64::from(c.swapped)),
            ("{fault=\"weak\"}", f64::from(c.weak)),
            ("{fault=\"noisy\"}", f64::from(c.noisy)),
        ],
    );
    if let Some(calibrated) = snap.state.sensors.calibrated {
        family(
            &mut out,
            "board_calibrated",
            "gauge",
            "1 when the board reported a stored calibration, 0 when it reported none (smartgoban calibrate); absent while nothing was reported.",
            &[("", if calibrated { 1.0 } else { 0.0 })],
        );
    }
    let m = &shared.mqtt;
    if m.enabled.load(Ordering::Acquire) {
        let last = shared.log.last_seq();
        let acked = m.acked_seq.load(Ordering::Acquire);
        family(
            &mut out,
            "mqtt_connected",
            "gauge",
            "1 while the service is connected to the hall's MQTT broker ([mqtt]).",
            &[(
                "",
                if m.connected.load(Ordering::Acquire) {
                    1.0
                } else {
                    0.0
                },
            )],
        );
        family(
            &mut out,
            "mqtt_connections_total",
            "counter",
            "Connections made to the hall's broker (the first and every reconnection).",
            &[("", m.connects.load(Ordering::Acquire) as f64)],
        );
        family(
            &mut out,
            "mqtt_events_sent_total",
            "counter",
            "Events sent to the hall's broker (sent again after an outage: counted again).",
            &[("", m.events_sent.load(Ordering::Acquire) as f64)],
        );
        family(
            &mut out,
            "mqtt_outbox_events",
            "gauge",
            "Events of this run the broker has not acknowledged yet (they wait in the store's outbox).",
            &[("", shared.log.since(acked.min(last)).len() as f64)],
        );
        family(
            &mut out,
            "mqtt_commands_total",
            "counter",
            "Commands from the hall carried out through the API (whatever their answer).",
            &[("", m.commands.load(Ordering::Acquire) as f64)],
        );
    }
    out
}

/// One metric family: its help and type lines and its samples (`labels` is `{k="v"}` or empty).
fn family(out: &mut String, name: &str, kind: &str, help: &str, samples: &[(&str, f64)]) {
    let _ = writeln!(out, "# HELP smartgoban_{name} {help}");
    let _ = writeln!(out, "# TYPE smartgoban_{name} {kind}");
    for (labels, value) in samples {
        let _ = writeln!(out, "smartgoban_{name}{labels} {value}");
    }
}

#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Prometheus text format 0.0.4", content_type = "text/plain", body = String)))]
pub(super) async fn metrics(
    State(shared): State<Arc<Shared>>,
    headers: axum::http::HeaderMap,
) -> Response {
    let referee = super::is_referee(&shared, &headers);
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        render(&shared, referee),
    )
        .into_response()
}
