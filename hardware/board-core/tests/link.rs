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

/// Sensors that take any image whose length and CRC matched (the golden image is only a
/// header), to see the board's acknowledgement byte for byte.
struct AnyImage {
    stored: Vec<Vec<u8>>,
}

impl smartgoban_board_core::link::Sensors for AnyImage {
    fn raw_readings(&self) -> &[u16] {
        &[]
    }
    fn sensor_health(&self) -> smartgoban_protocol::calibration::SensorHealth {
        smartgoban_protocol::calibration::SensorHealth::new(BoardSize::NINE, false)
    }
    fn store_calibration(
        &mut self,
        image: &[u8],
    ) -> smartgoban_protocol::calibration::CalibrationStatus {
        self.stored.push(image.to_vec());
        smartgoban_protocol::calibration::CalibrationStatus::Stored
    }
}

fn feed_any(link: &mut BoardLink, sensors: &mut AnyImage, bytes: &[u8], now_ms: u32) -> Vec<Frame> {
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

/// The four bytes that, after `prefix`, give the CRC-32C `target` (§2.3: the register runs
/// backwards 32 steps from the target, and four bytes xor into it at once).
fn forge_crc(prefix: &[u8], target: u32) -> [u8; 4] {
    const POLY: u32 = 0x82F6_3B78;
    let before = !smartgoban_protocol::crc32c(prefix);
    let mut reg = !target;
    for _ in 0..32 {
        reg = if reg & 0x8000_0000 != 0 {
            ((reg ^ POLY) << 1) | 1
        } else {
            reg << 1
        };
    }
    (reg ^ before).to_le_bytes()
}

fn ack_of(got: &[Frame]) -> smartgoban_protocol::calibration::CalibrationAck {
    match got {
        [Frame {
            message: Message::CalibrationAck(a),
            ..
        }] => *a,
        other => panic!("{other:?}"),
    }
}

/// Examples 13–15 of PROTOCOL.md §12: the golden first piece and the golden commit, alone a
/// `Mismatch` (the rest of the image never came); with the rest of an image of 2,023 bytes
/// whose CRC-32C is the commit's, the golden `CalibrationAck` byte for byte.
#[test]
fn the_board_answers_the_golden_commit_with_the_golden_ack() {
    use smartgoban_protocol::calibration::{CalibrationData, CalibrationStatus};
    let mut link = link_of(BoardSize::NINE);
    let mut sensors = AnyImage { stored: Vec::new() };
    feed_any(&mut link, &mut sensors, &hello4(0), 0);
    assert!(feed_any(&mut link, &mut sensors, &golden_wire("calibration-data"), 1).is_empty());
    let ack = ack_of(&feed_any(
        &mut link,
        &mut sensors,
        &golden_wire("calibration-commit"),
        2,
    ));
    let mut image = b"SGCB\x01\x09\x00\x00".to_vec();
    image.resize(2023, 0);
    assert_eq!(ack.status, CalibrationStatus::Mismatch);
    assert_eq!(ack.crc, smartgoban_protocol::crc32c(&image));

    // The rest of an image whose CRC-32C is 0x89ABCDEF.
    let forged = forge_crc(&image[..2019], 0x89AB_CDEF);
    image[2019..].copy_from_slice(&forged);
    assert_eq!(smartgoban_protocol::crc32c(&image), 0x89AB_CDEF);
    assert!(feed_any(&mut link, &mut sensors, &golden_wire("calibration-data"), 3).is_empty());
    for (k, piece) in image[8..].chunks(240).enumerate() {
        let data = CalibrationData::new((8 + 240 * k) as u16, piece);
        assert!(feed_any(&mut link, &mut sensors, &wire(Frame::new(k as u8, data)), 4).is_empty());
    }
    advance_to(&mut link, 8);
    let got = feed_any(
        &mut link,
        &mut sensors,
        &golden_wire("calibration-commit"),
        5,
    );
    assert_eq!(got.len(), 1);
    assert_eq!(wire(got[0]), golden_wire("calibration-ack"));
    assert_eq!(sensors.stored, vec![image]);
}

/// §10: the calibration messages are answered only in a session of version 4, and only by a
/// board with sensors; outside one they are ignored (a ping is still answered).
#[test]
fn calibration_messages_are_ignored_outside_a_version_4_session() {
    use smartgoban_protocol::calibration::{CalibrationCommit, CalibrationData, SensorHealth};
    let size = BoardSize::NINE;
    let mut sensors = TestSensors {
        raw: vec![2048; 81],
        health: SensorHealth::new(size, false),
        stored: Vec::new(),
    };
    let cal = smartgoban_board_core::calibration::BoardCalibration::uniform(
        size,
        smartgoban_board_core::calibration::PointCalibration::symmetric(2048, 700),
        smartgoban_board_core::coupling::Coupling::default(),
    );
    let mut image = vec![0u8; smartgoban_board_core::image::MAX_LEN];
    let n = smartgoban_board_core::image::encode(&cal, &[], &mut image).unwrap();
    image.truncate(n);
    let mut requests: Vec<Vec<u8>> =
        vec![golden_wire("raw-request"), golden_wire("health-request")];
    for (k, piece) in image.chunks(240).enumerate() {
        requests.push(wire(Frame::new(
            k as u8,
            CalibrationData::new((240 * k) as u16, piece),
        )));
    }
    requests.push(wire(Frame::new(
        0,
        CalibrationCommit {
            len: n as u16,
            crc: smartgoban_protocol::crc32c(&image),
        },
    )));
    let ignores_them = |link: &mut BoardLink, sensors: &mut TestSensors, with: bool| {
        for bytes in &requests {
            let got = if with {
                feed_with(link, sensors, bytes, 1)
            } else {
                feed(link, bytes, 1)
            };
            assert!(got.is_empty(), "{got:?}");
        }
        let got = feed_with(link, sensors, &golden_wire("ping"), 2);
        assert!(matches!(
            got[..],
            [Frame {
                message: Message::Pong(_),
                ..
            }]
        ));
    };
    // Before any Hello, after a refused one (version 5), in sessions of versions 1 to 3.
    let mut link = link_of(size);
    ignores_them(&mut link, &mut sensors, true);
    let refused = wire(Frame::new(
        0,
        Hello {
            protocol_version: 5,
        },
    ));
    let got = feed_with(&mut link, &mut sensors, &refused, 0);
    assert!(matches!(got[0].message, Message::HelloAck(a) if !a.accepted));
    ignores_them(&mut link, &mut sensors, true);
    for version in 1..=3 {
        let hello = wire(Frame::new(
            0,
            Hello {
                protocol_version: version,
            },
        ));
        feed_with(&mut link, &mut sensors, &hello, 0);
        assert_eq!(link.session_version(), Some(version));
        ignores_them(&mut link, &mut sensors, true);
    }
    // A version-4 session on a board without sensors.
    feed(&mut link, &hello4(0), 0);
    assert_eq!(link.session_version(), Some(4));
    ignores_them(&mut link, &mut sensors, false);
    assert!(sensors.stored.is_empty());
    // The same board with its sensors answers.
    let got = feed_with(&mut link, &mut sensors, &golden_wire("health-request"), 3);
    assert!(matches!(
        got[..],
        [Frame {
            message: Message::SensorHealth(_),
            ..
        }]
    ));
}

/// §15.1: a `Hello` forgets the pieces of an image half sent; the image sent again whole is
/// stored.
#[test]
fn a_hello_forgets_the_pieces_of_an_image() {
    use smartgoban_protocol::calibration::{
        CalibrationCommit, CalibrationData, CalibrationStatus, SensorHealth,
    };
    let size = BoardSize::NINETEEN;
    let mut sensors = TestSensors {
        raw: vec![2048; 361],
        health: SensorHealth::new(size, false),
        stored: Vec::new(),
    };
    let cal = smartgoban_board_core::calibration::BoardCalibration::uniform(
        size,
        smartgoban_board_core::calibration::PointCalibration::symmetric(2048, 700),
        smartgoban_board_core::coupling::Coupling::default(),
    );
    let mut image = vec![0u8; smartgoban_board_core::image::MAX_LEN];
    let n = smartgoban_board_core::image::encode(&cal, &[], &mut image).unwrap();
    image.truncate(n);
    assert_eq!(n, 3983, "§15.2: 3,983 bytes for 19x19");
    let pieces: Vec<Vec<u8>> = image
        .chunks(240)
        .enumerate()
        .map(|(k, p)| {
            wire(Frame::new(
                k as u8,
                CalibrationData::new((240 * k) as u16, p),
            ))
        })
        .collect();
    let commit = wire(Frame::new(
        0,
        CalibrationCommit {
            len: n as u16,
            crc: smartgoban_protocol::crc32c(&image),
        },
    ));
    let mut link = link_of(size);
    feed_with(&mut link, &mut sensors, &hello4(0), 0);
    for p in &pieces {
        assert!(feed_with(&mut link, &mut sensors, p, 1).is_empty());
    }
    feed_with(&mut link, &mut sensors, &hello4(1), 2);
    let ack = ack_of(&feed_with(&mut link, &mut sensors, &commit, 3));
    assert_eq!(ack.status, CalibrationStatus::Mismatch);
    assert_eq!(ack.crc, smartgoban_protocol::crc32c(&vec![0; n]));
    assert!(sensors.stored.is_empty());
    for p in &pieces {
        feed_with(&mut link, &mut sensors, p, 4);
    }
    let ack = ack_of(&feed_with(&mut link, &mut sensors, &commit, 5));
    assert_eq!(ack.status, CalibrationStatus::Stored);
    assert_eq!(sensors.stored, vec![image]);
}

/// §5.14, §5.15: a piece reaching past 8 KiB is ignored, one ending there is kept; a commit of
/// no bytes or of more than 8 KiB is `Invalid` (CRC 0) and stores nothing.
#[test]
fn pieces_and_commits_past_8_kib() {
    use smartgoban_protocol::calibration::{
        CalibrationCommit, CalibrationData, CalibrationStatus, SensorHealth, MAX_IMAGE_LEN,
    };
    let mut sensors = TestSensors {
        raw: vec![2048; 81],
        health: SensorHealth::new(BoardSize::NINE, false),
        stored: Vec::new(),
    };
    let mut link = link_of(BoardSize::NINE);
    feed_with(&mut link, &mut sensors, &hello4(0), 0);
    let data = |offset: usize, byte: u8| {
        wire(Frame::new(
            0,
            CalibrationData::new(offset as u16, &[byte; 100]),
        ))
    };
    let commit = |len: usize, crc: u32| {
        wire(Frame::new(
            0,
            CalibrationCommit {
                len: len as u16,
                crc,
            },
        ))
    };
    assert!(feed_with(&mut link, &mut sensors, &data(MAX_IMAGE_LEN - 99, 1), 1).is_empty());
    assert!(feed_with(&mut link, &mut sensors, &data(MAX_IMAGE_LEN - 100, 2), 1).is_empty());
    let mut held = vec![0u8; MAX_IMAGE_LEN];
    held[MAX_IMAGE_LEN - 100..].fill(2);
    let ack = ack_of(&feed_with(
        &mut link,
        &mut sensors,
        &commit(MAX_IMAGE_LEN, 1),
        2,
    ));
    assert_eq!(ack.status, CalibrationStatus::Mismatch);
    assert_eq!(ack.crc, smartgoban_protocol::crc32c(&held));
    for (len, crc) in [(0, 0), (MAX_IMAGE_LEN + 1, 0), (u16::MAX as usize, 7)] {
        let ack = ack_of(&feed_with(&mut link, &mut sensors, &commit(len, crc), 3));
        assert_eq!(ack.status, CalibrationStatus::Invalid, "len {len}");
        assert_eq!(ack.crc, 0);
    }
    assert!(sensors.stored.is_empty());
}

/// §5.12, §5.13: at most 112 readings, none past the board's last point, the request's
/// `first_point` echoed; `scan_counter` is the session's latest scan, 0 before its first.
#[test]
fn raw_readings_stop_at_112_points_and_the_board_s_last() {
    use smartgoban_protocol::calibration::{RawRequest, SensorHealth, MAX_RAW_POINTS};
    let size = BoardSize::NINETEEN;
    let mut sensors = TestSensors {
        raw: (0..361).map(|i| 1000 + i).collect(),
        health: SensorHealth::new(size, false),
        stored: Vec::new(),
    };
    let mut link = link_of(size);
    feed_with(&mut link, &mut sensors, &hello4(0), 0);
    let mut ask = |link: &mut BoardLink, first_point: u16, count: u8| {
        let request = wire(Frame::new(0, RawRequest { first_point, count }));
        match &feed_with(link, &mut sensors, &request, 1)[..] {
            [Frame {
                message: Message::RawReadings(r),
                ..
            }] => *r,
            other => panic!("{other:?}"),
        }
    };
    let r = ask(&mut link, 0, 255);
    assert_eq!(r.scan_counter, 0, "before the session's first scan");
    assert_eq!(r.readings().len(), MAX_RAW_POINTS);
    assert_eq!(r.readings()[111], 1111);
    for _ in 0..3 {
        link.scan(0, PackedCells::new(size), ButtonCounters::ZERO);
    }
    let r = ask(&mut link, 350, 20);
    assert_eq!(r.scan_counter, 2);
    assert_eq!(
        (r.first_point, r.readings()),
        (
            350,
            &[1350u16, 1351, 1352, 1353, 1354, 1355, 1356, 1357, 1358, 1359, 1360][..]
        )
    );
    for first in [361, 1000, u16::MAX] {
        let r = ask(&mut link, first, 5);
        assert_eq!((r.first_point, r.readings().len()), (first, 0));
    }
    let r = ask(&mut link, 5, 0);
    assert_eq!((r.first_point, r.readings().len()), (5, 0));
}
