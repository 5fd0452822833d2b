//! Every event of the game in the log, with its facts as fields (issue 16): under systemd
//! each field is a journal field (`SEQ`, `KIND`, `MOVE_NUMBER`, `POINT`, `COLOR`, `CODE`,
//! `CLAUSE`), so `journalctl -u smartgoban CODE=ko_recapture` or `… MOVE_NUMBER=120` finds
//! them. Moves, passes and violations at `info` (the unit's level), the rest at `debug`.

use crate::event::{Event, EventKind};

/// The `kind` of `event` as in the event feed (`move`, `violation`, …).
fn kind_name(kind: &EventKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.get("kind").and_then(|k| k.as_str()).map(str::to_string))
        .unwrap_or_default()
}

/// Logs `event` with its fields.
pub(super) fn event(event: &Event) {
    let seq = event.seq;
    match &event.kind {
        EventKind::Move {
            color,
            point,
            number,
            captured,
            ..
        } => tracing::info!(
            seq,
            kind = "move",
            move_number = number,
            point = point.as_str(),
            color = color.as_str(),
            captured = captured.len(),
            "move {number}: {color} {point}{}",
            if captured.is_empty() {
                String::new()
            } else {
                format!(", captures {}", captured.join(" "))
            }
        ),
        EventKind::Pass { color, number } => tracing::info!(
            seq,
            kind = "pass",
            move_number = number,
            color = color.as_str(),
            "move {number}: {color} passes"
        ),
        EventKind::Violation {
            code,
            clause,
            color,
            points,
            penalty,
            detail,
            evidence,
            ..
        } => tracing::info!(
            seq,
            kind = "violation",
            code = *code,
            clause = *clause,
            color = color.as_str(),
            point = points.first().map_or("", String::as_str),
            move_number = evidence.move_number,
            penalty = *penalty,
            "violation {code} ({clause}) by {color} at move {}: {detail}",
            evidence.move_number
        ),
        other => tracing::debug!(seq, kind = kind_name(other).as_str(), "event"),
    }
}
