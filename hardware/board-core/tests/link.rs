//! The firmware's side of the protocol (board-core `link`) against the golden frames of
//! PROTOCOL.md §12: what the board sends is byte for byte what an independent encoder wrote
//! (hardware/protocol/tests/golden/golden.py), and the host's tests decode the same bytes
//! (src/link/connection_history_tests.rs).

mod golden_frames;

use golden_frames::{golden_wire, wire};
use smartgoban_board_core::history::History;
use smartgoban_board_core::link::{BoardLink, LinkConfig};
use smartgoban_protocol::{
    BoardSize, Button, ButtonCounters, Cell, Frame, Hello, Message, PackedCells, Pong, Side,
};

fn link() -> BoardLink {
    BoardLink::new(LinkConfig {
        board_size: BoardSize::NINE,
        protocol_version: 3,
        scan_rate_hz: 50,
        firmware_version: 1,
        device_id: 1,
    })
}

/// Feeds `bytes` to `link`; returns its answers.
fn feed(link: &mut BoardLink, bytes: &[u8], now_ms: u32) -> Vec<Frame> {
    let mut got = Vec::new();
    link.receive(bytes, now_ms, None::<&mut History<1>>, None, &mut |f| {
        got.push(f)
    });
    got
}

/// Sends frames (pongs) until the link's next frame carries `seq`.
fn advance_to(link: &mut BoardLink, seq: u8) {
    while link.frame(Message::Pong(Pong { nonce: 0 })).seq != seq.wrapping_sub(1) {}
}

#[test]
fn the_board_answers_the_golden_hello_and_sends_the_golden_scan() {
    let mut link = link();
    // Example 4: garbage, then the Hello: the board resynchronises and answers.
    let got = feed(&mut link, &golden_wire("garbage-then-hello"), 0);
    assert_eq!(got.len(), 1);
    assert!(matches!(got[0].message, Message::HelloAck(a) if a.accepted));
    assert_eq!(link.session_version(), Some(1));
    // Example 2: the scan of 9x9 with C3 black, D3 white, E5 uncertain, J1 black and one press
    // of Black's clock, its second scan (counter 1), at 1000 ms, in frame 5.
    let size = BoardSize::NINE;
    let mut cells = PackedCells::new(size);
    for (x, y, cell) in [
        (2, 2, Cell::Black),
        (3, 2, Cell::White),
        (4, 4, Cell::Uncertain),
        (8, 8, Cell::Black),
    ] {
        cells.set(size.point_index(x, y).unwrap(), cell);
    }
    let mut counters = ButtonCounters::ZERO;
    link.scan(980, PackedCells::new(size), counters).unwrap();
    counters.record_press(Button::Clock, Side::Black);
    let scan = link.scan(1000, cells, counters).unwrap();
    advance_to(&mut link, 5);
    assert_eq!(
        wire(link.frame(Message::Scan(scan))),
        golden_wire("scan-9x9")
    );
}

#[test]
fn the_board_answers_the_golden_led_frame_with_the_golden_ack_and_the_golden_ping() {
    let mut link = link();
    feed(&mut link, &golden_wire("hello"), 0);
    // Version 1 has no LED frames: the golden Hello asks for version 1.
    assert!(feed(&mut link, &golden_wire("led-frame-9x9"), 1).is_empty());
    let v2 = wire(Frame {
        seq: 1,
        message: Message::Hello(Hello {
            protocol_version: 2,
        }),
    });
    feed(&mut link, &v2, 2);
    advance_to(&mut link, 9);
    // Example 5 in, example 6 out.
    let got = feed(&mut link, &golden_wire("led-frame-9x9"), 3);
    assert_eq!(got.len(), 1);
    assert_eq!(wire(got[0]), golden_wire("led-ack"));
    let shown = link.leds().unwrap();
    assert_eq!(shown.color_at(20, 0), [255, 140, 0], "C7 amber");
    // Example 3: the golden ping is answered with its nonce.
    let got = feed(&mut link, &golden_wire("ping"), 4);
    assert_eq!(got[0].message, Message::Pong(Pong { nonce: 0x1234_5678 }));
}

/// The board's sensors for the version-4 tests: readings, health, and the images stored.
struct TestSensors {
    raw: Vec<u16>,
    health: smartgoban_protocol::calibration::SensorHealth,
    stored: Vec<Vec<u8>>,
}

impl smartgoban_board_core::link::Sensors for TestSensors {
    fn raw_readings(&self) -> &[u16] {
        &self.raw
    }
    fn sensor_health(&self) -> smartgoban_protocol::calibration::SensorHealth {
        self.health
    }
    fn store_calibration(
        &mut self,
        image: &[u8],
    ) -> smartgoban_protocol::calibration::CalibrationStatus {
        use smartgoban_protocol::calibration::CalibrationStatus;
        match smartgoban_board_core::image::decode(image, None) {
            Ok(_) => {
                self.stored.push(image.to_vec());
                CalibrationStatus::Stored
            }
            Err(_) => CalibrationStatus::Invalid,
        }
    }
}

fn feed_with(
    link: &mut BoardLink,
    sensors: &mut TestSensors,
    bytes: &[u8],
    now_ms: u32,
) -> Vec<Frame> {
    let mut got = Vec::new();
    link.receive(
        bytes,
        now_ms,
        None::<&mut History<1>>,
        Some(sensors),
        &mut |f| got.push(f),
    );
    got
}

fn hello4(seq: u8) -> Vec<u8> {
    wire(Frame {
        seq,
        message: Message::Hello(Hello {
            protocol_version: 4,
        }),
    })
}

/// Examples 11, 12, 16 and 17 of PROTOCOL.md §12: the firmware's side answers the golden
/// requests with the golden answers, byte for byte; an image written in pieces is stored once
/// its CRC matches, a lost piece is a `Mismatch` and a damaged image `Invalid` with nothing
/// stored; a version-3 session ignores the calibration messages.
#[test]
fn the_board_answers_the_golden_calibration_requests() {
    use smartgoban_protocol::calibration::{
        CalibrationCommit, CalibrationData, CalibrationStatus, SensorHealth,
    };
    // a 19x19 board: readings of its scan of counter 41
    let mut link = BoardLink::new(LinkConfig {
        board_size: BoardSize::NINETEEN,
        protocol_version: 4,
        scan_rate_hz: 50,
        firmware_version: 1,
        device_id: 1,
    });
    let mut raw = vec![2048u16; 361];
    raw[337] = 2810;
    raw[338] = 1290;
    let mut sensors = TestSensors {
        raw,
        health: SensorHealth::new(BoardSize::NINETEEN, false),
        stored: Vec::new(),
    };
    // version 3: ignored
    feed_with(
        &mut link,
        &mut sensors,
        &wire(Frame::new(
            0,
            Hello {
                protocol_version: 3,
            },
        )),
        0,
    );
    assert!(feed_with(&mut link, &mut sensors, &golden_wire("raw-request"), 1).is_empty());
    feed_with(&mut link, &mut sensors, &hello4(1), 2);
    for k in 0..42 {
        link.scan(
            20 * k,
            PackedCells::new(BoardSize::NINETEEN),
            ButtonCounters::ZERO,
        )
        .unwrap();
    }
    advance_to(&mut link, 7);
    let got = feed_with(&mut link, &mut sensors, &golden_wire("raw-request"), 3);
    assert_eq!(got.len(), 1);
    assert_eq!(wire(got[0]), golden_wire("raw-readings"));

    // a 9x9 board's health: A9 dead, E5 weak and noisy, J1 swapped
    let mut link = link_of(BoardSize::NINE);
    let mut health = SensorHealth::new(BoardSize::NINE, true);
    health.set(0, 1);
    health.set(40, 12);
    health.set(80, 2);
    let mut sensors = TestSensors {
        raw: vec![2048; 81],
        health,
        stored: Vec::new(),
    };
    feed_with(&mut link, &mut sensors, &hello4(0), 0);
    advance_to(&mut link, 9);
    let got = feed_with(&mut link, &mut sensors, &golden_wire("health-request"), 1);
    assert_eq!(wire(got[0]), golden_wire("sensor-health-9x9"));

    // an image in pieces, committed
    let cal = smartgoban_board_core::calibration::BoardCalibration::uniform(
        BoardSize::NINE,
        smartgoban_board_core::calibration::PointCalibration::symmetric(2048, 700),
        smartgoban_board_core::coupling::Coupling::default(),
    );
    let mut image = vec![0u8; smartgoban_board_core::image::MAX_LEN];
    let n = smartgoban_board_core::image::encode(&cal, &[], &mut image).unwrap();
    image.truncate(n);
    let commit = |image: &[u8]| {
        wire(Frame::new(
            9,
            CalibrationCommit {
                len: image.len() as u16,
                crc: smartgoban_protocol::crc32c(image),
            },
        ))
    };
    let pieces: Vec<Vec<u8>> = image
        .chunks(240)
        .enumerate()
        .map(|(k, p)| {
            wire(Frame::new(
                k as u8,
                CalibrationData::new((k * 240) as u16, p),
            ))
        })
        .collect();
    // a lost piece: the CRC does not match
    for p in pieces.iter().skip(1) {
        assert!(feed_with(&mut link, &mut sensors, p, 2).is_empty());
    }
    let got = feed_with(&mut link, &mut sensors, &commit(&image), 3);
    match got[0].message {
        Message::CalibrationAck(a) => assert_eq!(a.status, CalibrationStatus::Mismatch),
        other => panic!("{other:?}"),
    }
    assert!(sensors.stored.is_empty());
    for p in &pieces {
        feed_with(&mut link, &mut sensors, p, 4);
    }
    let got = feed_with(&mut link, &mut sensors, &commit(&image), 5);
    match got[0].message {
        Message::CalibrationAck(a) => {
            assert_eq!(a.status, CalibrationStatus::Stored);
            assert_eq!(a.crc, smartgoban_protocol::crc32c(&image));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(sensors.stored, vec![image.clone()]);
    // a damaged image whose CRC matches what was sent: refused, nothing stored
    let mut bad = image.clone();
    bad[5] = 7;
    for (k, p) in bad.chunks(240).enumerate() {
        feed_with(
            &mut link,
            &mut sensors,
            &wire(Frame::new(
                k as u8,
                CalibrationData::new((k * 240) as u16, p),
            )),
            6,
        );
    }
    let got = feed_with(&mut link, &mut sensors, &commit(&bad), 7);
    match got[0].message {
        Message::CalibrationAck(a) => assert_eq!(a.status, CalibrationStatus::Invalid),
        other => panic!("{other:?}"),
    }
    assert_eq!(sensors.stored.len(), 1);
}

fn link_of(size: BoardSize) -> BoardLink {
    BoardLink::new(LinkConfig {
        board_size: size,
        protocol_version: 4,
        scan_rate_hz: 50,
        firmware_version: 1,
        device_id: 1,
    })
}
