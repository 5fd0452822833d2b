//! The sensors' health through [`Connection`] (PROTOCOL.md §5.17–§5.18): asked once a
//! version-4 session's history exchange is decided, never in version 3, sent again until
//! answered, kept when of the board's size.

use super::tests::{ack, frame_bytes, sent, up};
use super::*;
use smartgoban_protocol::calibration::SensorHealth;
use smartgoban_protocol::{BoardSize, ButtonCounters, HistoryInfo, InfoStatus};

fn info_not_asked() -> Message {
    Message::HistoryInfo(HistoryInfo::refused(
        InfoStatus::NotAsked,
        77,
        0,
        5_000,
        10,
        ButtonCounters::ZERO,
        BoardSize::NINE,
    ))
}

/// A connection whose board accepted `version` (the host fell back to it), its history
/// exchange decided at 25 ms.
fn decided(version: u8) -> Connection {
    let mut c = up(version);
    sent(&mut c);
    c.handle_bytes(&frame_bytes(1, info_not_asked()), 25);
    c
}

/// A scan of the session, counter `k`, 20 ms apart.
fn scan(k: u32) -> Message {
    Message::Scan(smartgoban_protocol::Scan {
        scan_counter: k,
        board_ms: 5_000 + 20 * k,
        buttons: ButtonCounters::ZERO,
        cells: smartgoban_protocol::PackedCells::new(BoardSize::NINE),
    })
}

fn health_requests(c: &mut Connection) -> usize {
    sent(c)
        .iter()
        .filter(|m| matches!(m, Message::HealthRequest(_)))
        .count()
}

#[test]
fn a_version_4_board_is_asked_once_its_history_is_decided_and_a_version_3_board_never() {
    // during the exchange: not yet
    let mut c = Connection::new(LinkConfig::default());
    c.on_open(0);
    sent(&mut c);
    c.handle_bytes(&frame_bytes(0, ack(4, true)), 10);
    c.handle_bytes(&frame_bytes(1, scan(0)), 11);
    c.handle_timeout(11);
    assert_eq!(health_requests(&mut c), 0, "the history exchange first");
    c.handle_bytes(&frame_bytes(2, info_not_asked()), 25);
    c.handle_timeout(c.poll_timeout().unwrap().max(25));
    assert_eq!(health_requests(&mut c), 1);

    let mut c = decided(3);
    for (k, t) in (30..3_000).step_by(20).enumerate() {
        c.handle_bytes(
            &frame_bytes(2u8.wrapping_add(k as u8), scan(k as u32 + 1)),
            t,
        );
        c.handle_timeout(t);
    }
    assert!(c.is_up());
    assert_eq!(health_requests(&mut c), 0, "version 3 has no HealthRequest");
}

#[test]
fn the_request_is_sent_again_until_answered_and_the_report_of_the_board_s_size_kept() {
    let mut c = decided(4);
    let mut asked = 0;
    let mut seq = 2u8;
    let mut k = 0u32;
    let mut step = |c: &mut Connection, t: u64| {
        seq = seq.wrapping_add(1);
        k += 1;
        c.handle_bytes(&frame_bytes(seq, scan(k)), t);
        c.handle_timeout(t);
        health_requests(c)
    };
    for t in (25..2_600).step_by(20) {
        asked += step(&mut c, t);
    }
    assert!(c.is_up());
    assert_eq!(asked, 3, "at 25, 1025 and 2025 ms");
    // a report of another size is not this board's
    let other = SensorHealth::new(BoardSize::NINETEEN, true);
    c.handle_bytes(&frame_bytes(200, Message::SensorHealth(other)), 2_600);
    assert!(c.sensor_health().is_none());
    let mut report = SensorHealth::new(BoardSize::NINE, true);
    report.set(40, 1);
    c.handle_bytes(&frame_bytes(201, Message::SensorHealth(report)), 2_610);
    assert_eq!(c.sensor_health().map(|r| r.get(40)), Some(1));
    for t in (2_625..6_000).step_by(20) {
        assert_eq!(step(&mut c, t), 0, "answered: no more requests");
    }
    assert!(c.is_up());
}
