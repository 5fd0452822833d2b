//! The virtual board's side of protocol version 4 (`sim --firmware`, PROTOCOL.md §15), driven
//! byte for byte in process: a board fresh from the factory (`--uncalibrated`) whose person
//! follows the LED prompts, its raw readings, a calibration image written in pieces (and a
//! damaged one refused), its health report, the game held until a calibration is stored and
//! its host gone; the flash kept across a restart; faulty sensors (`--sensor-faults`).

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use smartgoban_board_core::calibration::prompt;
use smartgoban_board_core::health::{Fault, Health};
use smartgoban_board_core::image;
use smartgoban_protocol::calibration::{
    CalibrationCommit, CalibrationData, CalibrationStatus, HealthRequest, RawRequest, SensorHealth,
    MAX_DATA_BYTES,
};
use smartgoban_protocol::{
    crc32c, encode, BoardSize, Cell, Frame, FrameDecoder, Hello, LedCells, LedEffect, LedFrame,
    LedPaint, Message, PackedCells, MAX_FRAME_LEN, PALETTE_LEN, PROTOCOL_VERSION,
};

use super::board::{BoardConfig, Step, VirtualBoard};
use super::hall::{HallBoard, HallParams, SensorFaults};
use super::noise::{NoiseModel, NoiseParams};
use super::{Playing, Script, Speed};
use crate::rules::{Color, Point};

const SIZE: BoardSize = BoardSize::NINE;

/// The board's sensors: a realistic batch (one weak, one noisy, one reversed) with `faults`
/// added, read without misreads so that readings compare exactly.
fn noise(faults: SensorFaults, uncalibrated: bool) -> NoiseParams {
    let mut noise = NoiseModel::Clean.params();
    let mut hall = HallParams::for_noise(NoiseModel::Realistic).with_faults(faults);
    hall.uncalibrated = uncalibrated;
    noise.hall = Some(hall);
    noise
}

fn board(script: &str, noise: NoiseParams, seed: u64) -> VirtualBoard {
    let s = Script::parse(script).unwrap();
    VirtualBoard::new(
        s.actions,
        BoardConfig {
            board_size: BoardSize::new(s.setup.size()).unwrap(),
            seed,
            noise,
            ..BoardConfig::default()
        },
    )
}

fn frame(message: Message) -> Vec<u8> {
    let mut buf = [0u8; MAX_FRAME_LEN];
    let n = encode(&Frame { seq: 0, message }, &mut buf).unwrap();
    buf[..n].to_vec()
}

/// Sends `message`, returns the board's answers.
fn ask(b: &mut VirtualBoard, message: Message) -> Vec<Message> {
    b.handle_bytes(&frame(message));
    received(b)
}

fn received(b: &mut VirtualBoard) -> Vec<Message> {
    FrameDecoder::new()
        .frames(&b.take_output())
        .filter_map(Result::ok)
        .map(|f| f.message)
        .collect()
}

fn hello(b: &mut VirtualBoard) {
    let answers = ask(
        b,
        Message::Hello(Hello {
            protocol_version: PROTOCOL_VERSION,
        }),
    );
    assert!(
        matches!(&answers[..], [Message::HelloAck(a)] if a.accepted && a.protocol_version == PROTOCOL_VERSION),
        "{answers:?}"
    );
}

fn health(b: &mut VirtualBoard) -> SensorHealth {
    match &ask(b, Message::HealthRequest(HealthRequest))[..] {
        [Message::SensorHealth(h)] => *h,
        other => panic!("{other:?}"),
    }
}

fn raw(b: &mut VirtualBoard) -> Vec<u16> {
    let points = SIZE.points();
    let request = RawRequest {
        first_point: 0,
        count: points as u8,
    };
    match &ask(b, Message::RawRequest(request))[..] {
        [Message::RawReadings(r)] => {
            assert_eq!(r.readings().len(), points);
            r.readings().to_vec()
        }
        other => panic!("{other:?}"),
    }
}

/// Writes `image` in pieces and commits it: the board's `CalibrationAck` status.
fn write_image(b: &mut VirtualBoard, image: &[u8]) -> CalibrationStatus {
    for (k, piece) in image.chunks(MAX_DATA_BYTES).enumerate() {
        let data = CalibrationData::new((k * MAX_DATA_BYTES) as u16, piece);
        assert!(ask(b, Message::CalibrationData(data)).is_empty());
    }
    let commit = CalibrationCommit {
        len: image.len() as u16,
        crc: crc32c(image),
    };
    match &ask(b, Message::CalibrationCommit(commit))[..] {
        [Message::CalibrationAck(a)] => {
            assert_eq!(a.crc, crc32c(image));
            a.status
        }
        other => panic!("{other:?}"),
    }
}

/// Every point lit with `paint`, or dark.
fn leds(paint: Option<[u8; 3]>, blink: bool) -> Message {
    let mut palette = [LedPaint::OFF; PALETTE_LEN];
    let mut cells = LedCells::new(SIZE);
    if let Some(rgb) = paint {
        palette[1] = LedPaint {
            rgb,
            effect: if blink {
                LedEffect::Blink { period_ds: 5 }
            } else {
                LedEffect::Steady
            },
        };
        for i in 0..SIZE.points() {
            cells.set(i, 1);
        }
    }
    Message::LedFrame(LedFrame {
        frame_id: 7,
        palette,
        cells,
    })
}

/// Ticks one scan period; the scans sent since the last call.
fn scans(b: &mut VirtualBoard, periods: usize) -> Vec<PackedCells> {
    for _ in 0..periods {
        assert!(matches!(b.tick(true), Step::Scanned { .. }));
    }
    received(b)
        .into_iter()
        .filter_map(|m| match m {
            Message::Scan(s) => Some(s.cells),
            _ => None,
        })
        .collect()
}

fn stones(b: &VirtualBoard) -> Vec<(usize, Color)> {
    let hall = b.hall().unwrap();
    (0..SIZE.points())
        .filter_map(|i| hall.stone(Point::from_index(i, 9)).map(|c| (i, c)))
        .collect()
}

/// The image a person's calibration of this board gives: the same sensors (drawn first from
/// the seed) calibrated as `--firmware` calibrates them at construction.
fn image_of(faults: SensorFaults, seed: u64) -> (Vec<u8>, Vec<Health>) {
    let noise = noise(faults, false);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let twin = HallBoard::new(SIZE, &noise, noise.hall.as_ref().unwrap(), &mut rng);
    let mut out = vec![0u8; image::MAX_LEN];
    let n = image::encode(twin.calibration(), twin.health(), &mut out).unwrap();
    out.truncate(n);
    (out, twin.health().to_vec())
}

const GAME: &str = "size 9\nat 0 place B E5\nat 600 place W C3\n";
const E5: usize = 4 * 9 + 4;
const C3: usize = 6 * 9 + 2;

#[test]
fn an_uncalibrated_board_is_calibrated_over_the_wire_then_plays_its_game() {
    let faults: SensorFaults = "dead=1".parse().unwrap();
    let seed = 4;
    let mut b = board(GAME, noise(faults, true), seed);
    let dead: Vec<usize> = b
        .hall()
        .unwrap()
        .faults()
        .iter()
        .filter(|f| f.1 == "dead")
        .map(|f| f.0)
        .collect();
    assert_eq!(dead.len(), 1);
    assert!(b.calibrating() && !b.calibrated());
    hello(&mut b);

    // Fresh from the factory: nothing stored, every sensor taken as healthy.
    let report = health(&mut b);
    assert_eq!(report.board_size(), SIZE);
    assert!(!report.calibrated);
    assert!((0..SIZE.points()).all(|i| report.get(i) == 0));

    // The game does not start: no stone, whatever the timeline says.
    let cells = scans(&mut b, 50);
    assert_eq!(cells.len(), 50);
    assert!(stones(&b).is_empty());
    let empty = raw(&mut b);

    // Every point lit PUT_BLACK (blinking): the person covers the board, a few stones a scan.
    let acks = ask(&mut b, leds(Some(prompt::PUT_BLACK), true));
    assert!(matches!(&acks[..], [Message::LedAck(_)]), "{acks:?}");
    let mut periods = 0;
    while stones(&b).len() < SIZE.points() {
        scans(&mut b, 1);
        periods += 1;
        assert!(periods < 300, "the person did not cover the board");
    }
    assert!(periods <= SIZE.points().div_ceil(4) + 1, "{periods} scans");
    assert!(stones(&b).iter().all(|&(_, c)| c == Color::Black));
    scans(&mut b, 10); // landed and still
    let black = raw(&mut b);
    for i in 0..SIZE.points() {
        let moved = i32::from(black[i]).abs_diff(i32::from(empty[i]));
        if dead.contains(&i) {
            assert_eq!(moved, 0, "the dead sensor {i} moved");
        } else {
            assert!(moved > 60, "sensor {i}: {} → {}", empty[i], black[i]);
        }
    }

    // A damaged image (its own CRC broken, the commit's right): refused, nothing changes.
    let (image, image_health) = image_of(faults, seed);
    assert!(image_health[dead[0]].has(Fault::Dead));
    let mut damaged = image.clone();
    damaged[100] ^= 0x40;
    assert_eq!(write_image(&mut b, &damaged), CalibrationStatus::Invalid);
    assert_eq!(health(&mut b), report);
    assert!(!b.calibrated());
    // another size's image too
    let mut nineteen = vec![0u8; image::MAX_LEN];
    let n = image::encode(
        &smartgoban_board_core::calibration::BoardCalibration::uniform(
            BoardSize::NINETEEN,
            smartgoban_board_core::calibration::PointCalibration::symmetric(2048, 770),
            smartgoban_board_core::coupling::Coupling::default(),
        ),
        &[],
        &mut nineteen,
    )
    .unwrap();
    assert_eq!(
        write_image(&mut b, &nineteen[..n]),
        CalibrationStatus::Invalid
    );
    assert_eq!(health(&mut b), report);

    // The calibration: stored, reported with the image's health.
    assert_eq!(write_image(&mut b, &image), CalibrationStatus::Stored);
    let stored = health(&mut b);
    assert!(stored.calibrated && b.calibrated());
    for (i, h) in image_health.iter().enumerate() {
        assert_eq!(stored.get(i), h.0, "point {i}");
    }
    assert!(image_health.iter().filter(|h| !h.is_healthy()).count() >= 2);
    // The classifier uses it from the next scan: the dead point reads uncertain (its
    // neighbours' estimate needs its first fits), every other point black.
    let cells = scans(&mut b, 1);
    assert_eq!(cells[0].get(dead[0]), Cell::Uncertain);
    let cells = scans(&mut b, 10);
    let last = cells.last().unwrap();
    for i in (0..SIZE.points()).filter(|i| !dead.contains(i)) {
        assert_eq!(last.get(i), Cell::Black, "point {i}");
    }
    // A damaged image now leaves the stored one as it is.
    assert_eq!(write_image(&mut b, &damaged), CalibrationStatus::Invalid);
    assert_eq!(health(&mut b), stored);

    // Still the calibrating host's session: the game waits.
    ask(&mut b, leds(None, false));
    scans(&mut b, 40);
    assert!(
        stones(&b).is_empty(),
        "the person lifts the stones off a dark frame"
    );
    assert!(b.calibrating());
    assert!(!b.is_played_out(0));

    // The next session (the service's): the game starts, read with the stored calibration.
    ask(&mut b, leds(Some(prompt::PUT_WHITE), false)); // a frame left over: no matter
    hello(&mut b);
    assert!(!b.calibrating());
    assert_eq!(health(&mut b), stored);
    let cells = scans(&mut b, 25);
    assert_eq!(stones(&b), vec![(E5, Color::Black)]);
    let last = cells.last().unwrap();
    for i in (0..SIZE.points()).filter(|i| !dead.contains(i)) {
        let want = if i == E5 { Cell::Black } else { Cell::Empty };
        assert_eq!(last.get(i), want, "point {i}");
    }
    let cells = scans(&mut b, 40);
    assert_eq!(cells.last().unwrap().get(C3), Cell::White);
    assert!(b.is_played_out(0));
}

#[test]
fn a_board_fresh_from_the_factory_reads_with_the_design_calibration() {
    let mut b = board(GAME, noise(SensorFaults::default(), true), 2);
    let hall = b.hall().unwrap();
    assert!(!hall.is_calibrated());
    assert_eq!(
        hall.calibration(),
        &smartgoban_board_core::calibration::BoardCalibration::uniform(
            SIZE,
            smartgoban_board_core::calibration::PointCalibration::symmetric(2048, 770),
            smartgoban_board_core::coupling::Coupling::default(),
        )
    );
    assert!(hall.health().iter().all(|h| h.is_healthy()));
    // Without a host nothing lights the board: the person keeps it bare, the game waits.
    for _ in 0..100 {
        b.tick(true);
    }
    assert!(stones(&b).is_empty() && b.calibrating());
    // A new session without a calibration stored does not start the game either.
    hello(&mut b);
    hello(&mut b);
    assert!(b.calibrating());
}

#[test]
fn the_calibration_is_kept_in_flash_across_a_restart() {
    let script = "size 9\nat 0 place B E5\nat 400 reset hello\nat 600 place W C3\n";
    let seed = 6;
    let mut b = board(script, noise(SensorFaults::default(), true), seed);
    hello(&mut b);
    let (image, image_health) = image_of(SensorFaults::default(), seed);
    assert_eq!(write_image(&mut b, &image), CalibrationStatus::Stored);
    let stored = health(&mut b);
    hello(&mut b);
    assert!(!b.calibrating());
    let step = loop {
        match b.tick(true) {
            Step::Scanned { .. } => {}
            other => break other,
        }
    };
    assert!(
        matches!(
            step,
            Step::Fault(super::LinkFault::Reset(super::ResetKind::Hello))
        ),
        "{step:?}"
    );
    received(&mut b);
    // The restarted firmware resumed its version-4 session with the calibration from flash.
    assert_eq!(health(&mut b), stored);
    assert!((0..SIZE.points()).all(|i| stored.get(i) == image_health[i].0));
    let cells = scans(&mut b, 30);
    let last = cells.last().unwrap();
    assert_eq!((last.get(E5), last.get(C3)), (Cell::Black, Cell::White));
}

#[test]
fn a_board_without_hall_sensors_speaks_version_4_and_ignores_the_calibration_messages() {
    assert_eq!(BoardConfig::default().protocol_version, PROTOCOL_VERSION);
    assert_eq!(PROTOCOL_VERSION, 4);
    let mut b = board(GAME, NoiseModel::Clean.params(), 1);
    hello(&mut b);
    assert!(ask(&mut b, Message::HealthRequest(HealthRequest)).is_empty());
    assert!(ask(
        &mut b,
        Message::RawRequest(RawRequest {
            first_point: 0,
            count: 10
        })
    )
    .is_empty());
    assert!(!b.calibrating() && !b.calibrated());
    // A calibrated --firmware board reports its health, calibrated = 1.
    let mut b = board(GAME, noise(SensorFaults::default(), false), 1);
    hello(&mut b);
    let report = health(&mut b);
    assert!(report.calibrated && !b.calibrating());
    let hall = b.hall().unwrap();
    assert!((0..SIZE.points()).all(|i| report.get(i) == hall.health()[i].0));
}

#[test]
fn a_dead_sensor_is_reported_and_reads_uncertain_until_its_neighbours_tell() {
    let playing = Playing {
        noise: NoiseModel::Realistic,
        seed: 3,
        speed: Speed::Max,
        press_clock: false,
        firmware: true,
        sensor_faults: "dead=1".parse().unwrap(),
        uncalibrated: false,
    };
    let placed = super::faulty_sensors(9, &playing);
    let dead: Vec<&String> = placed
        .iter()
        .filter(|(_, f)| *f == "dead")
        .map(|(p, _)| p)
        .collect();
    assert_eq!(dead.len(), 1, "{placed:?}");
    let point = Point::from_gtp(dead[0], 9).unwrap();
    let script = format!("size 9\nat 1000 place B {}\n", dead[0]);
    let mut b = board(&script, playing.params(), playing.seed);
    hello(&mut b);
    let i = point.index(9);
    let report = health(&mut b);
    assert!(Health(report.get(i)).has(Fault::Dead));
    let cells = scans(&mut b, 45);
    assert_eq!(cells[0].get(i), Cell::Uncertain, "at power-up");
    assert_eq!(
        cells.last().unwrap().get(i),
        Cell::Empty,
        "{:?}",
        b.hall().unwrap().dead_points()
    );
    let cells = scans(&mut b, 60);
    // the stone on it, read from the neighbours (never the rail's colour)
    assert_eq!(cells.last().unwrap().get(i), Cell::Black);
}

#[test]
fn sensor_faults_parse_and_are_drawn_apart_for_the_seed() {
    let f: SensorFaults = "dead=1,swapped=1,weak=2,noisy=1".parse().unwrap();
    assert_eq!(
        f,
        SensorFaults {
            dead: 1,
            swapped: 1,
            weak: 2,
            noisy: 1
        }
    );
    assert_eq!("none".parse::<SensorFaults>(), Ok(SensorFaults::default()));
    for (bad, says) in [
        ("broken=1", "unknown fault `broken`"),
        ("dead=x", "`x` is not a whole number"),
        ("dead=-1", "is not a whole number"),
        ("dead=21", "at most 20"),
        ("dead", "use NAME=COUNT"),
    ] {
        let e = bad.parse::<SensorFaults>().unwrap_err();
        assert!(e.contains(says), "{bad}: {e}");
    }
    // twenty of one fault on a 9×9 board: twenty sensors, the same for the same seed
    let faults: SensorFaults = "swapped=20,dead=20".parse().unwrap();
    let draw = |seed: u64| {
        let noise = noise(faults, true);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        HallBoard::new(SIZE, &noise, noise.hall.as_ref().unwrap(), &mut rng)
            .faults()
            .to_vec()
    };
    let drawn = draw(5);
    assert_eq!(drawn, draw(5));
    assert_ne!(drawn, draw(6));
    for (name, count) in [("swapped", 21), ("dead", 20)] {
        let mut points: Vec<usize> = drawn.iter().filter(|f| f.1 == name).map(|f| f.0).collect();
        points.sort_unstable();
        points.dedup();
        assert_eq!(
            points.len(),
            count,
            "{name}: the model's own and twenty more, apart"
        );
    }
}
