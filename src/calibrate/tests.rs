//! The calibration flow against the virtual board's Hall sensors (`sim::hall`): a person who
//! follows the LED frames, in process.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use smartgoban_board_core::calibration::prompt;
use smartgoban_board_core::health::Fault;
use smartgoban_board_core::image;
use smartgoban_board_core::link::Sensors;
use smartgoban_protocol::{BoardSize, LedFrame};

use super::*;
use crate::rules::{Color, Point};
use crate::sim::action::Action;
use crate::sim::hall::{HallBoard, HallParams, SensorFaults};
use crate::sim::NoiseModel;

fn board(size: BoardSize, faults: SensorFaults, seed: u64) -> (HallBoard, ChaCha8Rng) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let noise = NoiseModel::Clean.params();
    let mut params = HallParams::for_noise(NoiseModel::Realistic).with_faults(faults);
    params.uncalibrated = true;
    (HallBoard::new(size, &noise, &params, &mut rng), rng)
}

/// Puts stones where `leds` asks for them and lifts the others, as the virtual person does.
fn follow(hall: &mut HallBoard, leds: &LedFrame, rng: &mut ChaCha8Rng, now: u64) {
    let n = hall.size_lines();
    for i in 0..usize::from(n) * usize::from(n) {
        let rgb = leds.palette[usize::from(leds.cells.get(i))].rgb;
        let want = if rgb == prompt::PUT_BLACK {
            Some(Color::Black)
        } else if rgb == prompt::PUT_WHITE {
            Some(Color::White)
        } else {
            None
        };
        let p = Point::from_index(i, n);
        if hall.stone(p) != want {
            let action = match want {
                Some(color) => Action::Place { color, point: p },
                None => Action::Remove { points: vec![p] },
            };
            hall.apply(&action, now, rng);
        }
    }
}

/// Runs the whole flow; `enter` says at which steps the person presses Enter (after waiting
/// `patience` sets).
fn run(hall: &mut HallBoard, rng: &mut ChaCha8Rng, patience: u32) -> Patterns {
    let size = BoardSize::new(hall.size_lines()).unwrap();
    let mut flow = Flow::new(size);
    let mut waited = 0;
    let mut step = flow.step();
    for k in 0..20_000u64 {
        if flow.finished() {
            return flow.patterns().unwrap().clone();
        }
        let now = k * 20;
        follow(hall, &flow.leds(), rng, now);
        hall.scan(rng);
        flow.readings(hall.raw_readings(), now);
        if flow.step() != step {
            step = flow.step();
            waited = 0;
        }
        waited += 1;
        if step == Step::Empty || waited > patience {
            flow.enter();
        }
    }
    panic!("the flow did not finish: {:?}", flow.progress());
}

#[test]
fn a_healthy_board_goes_through_by_itself_and_its_calibration_reads_stones() {
    let (mut hall, mut rng) = board(BoardSize::NINE, SensorFaults::default(), 3);
    // Enter only at the empty board: every other step goes on by itself
    let patterns = run(&mut hall, &mut rng, u32::MAX);
    assert_eq!(patterns.singles.len(), 4);
    let done = compute(&patterns).unwrap();
    // the realistic model's own faults: one weak, one noisy, one swapped sensor
    let faulty: Vec<usize> = hall.faults().iter().map(|(i, _)| *i).collect();
    for f in &done.report.faults {
        let i = (0..81)
            .find(|&i| Point::from_index(i, 9).to_gtp(9) == f.point)
            .unwrap();
        assert!(faulty.contains(&i), "{} reported {:?}", f.point, f.faults);
    }
    for &(i, name) in hall.faults() {
        if name == "swapped" {
            assert!(done.health[i].has(Fault::Swapped), "{i}");
        }
    }
    // written into the board, it is what the board then uses and reports
    assert_eq!(
        hall.store_calibration(&done.image),
        smartgoban_protocol::calibration::CalibrationStatus::Stored
    );
    assert!(hall.sensor_health().calibrated);
    assert_eq!(
        image::decode(&done.image, Some(BoardSize::NINE))
            .unwrap()
            .calibration,
        done.calibration
    );
}

#[test]
fn a_dead_and_a_swapped_sensor_are_reported_and_enter_goes_on_without_them() {
    let faults = SensorFaults {
        dead: 1,
        swapped: 1,
        ..SensorFaults::default()
    };
    let (mut hall, mut rng) = board(BoardSize::NINETEEN, faults, 11);
    let patterns = run(&mut hall, &mut rng, 200);
    let done = compute(&patterns).unwrap();
    let gtp = |i: usize| Point::from_index(i, 19).to_gtp(19);
    for &(i, name) in hall.faults() {
        let reported = done
            .report
            .faults
            .iter()
            .find(|f| f.point == gtp(i))
            .unwrap_or_else(|| panic!("{name} sensor at {} not reported", gtp(i)));
        if name == "dead" || name == "swapped" {
            assert!(
                reported.faults.contains(&name),
                "{}: {:?}",
                reported.point,
                reported.faults
            );
            assert!(!reported.advice.is_empty());
        }
    }
    assert!(done.report.text().contains("dead"));
    assert_eq!(
        image::decode(&done.image, Some(BoardSize::NINETEEN)).map(|_| ()),
        Ok(())
    );
    assert_eq!(
        hall.store_calibration(&done.image),
        smartgoban_protocol::calibration::CalibrationStatus::Stored
    );
}

#[test]
fn the_empty_board_waits_for_enter_and_a_stray_stone_is_named() {
    let (mut hall, mut rng) = board(BoardSize::NINE, SensorFaults::default(), 5);
    let mut flow = Flow::new(BoardSize::NINE);
    for k in 0..100 {
        hall.scan(&mut rng);
        flow.readings(hall.raw_readings(), k * 20);
    }
    assert_eq!(flow.step(), Step::Empty, "no Enter, no step");
    assert!(flow.leds().cells.get(40) == 0, "dark");
    flow.enter();
    for k in 0..60 {
        hall.scan(&mut rng);
        flow.readings(hall.raw_readings(), k * 20);
    }
    assert_eq!(flow.step(), Step::Single(0));
    // the stone goes on the wrong point: named, and the step waits
    let centre = single_points(BoardSize::NINE)[0];
    assert_ne!(flow.leds().cells.get(centre), 0, "the single point is lit");
    hall.apply(
        &Action::Place {
            color: Color::Black,
            point: Point::from_index(centre + 9, 9),
        },
        0,
        &mut rng,
    );
    for k in 0..100 {
        hall.scan(&mut rng);
        flow.readings(hall.raw_readings(), k * 20);
    }
    let progress = flow.progress();
    assert_eq!(flow.step(), Step::Single(0));
    assert_eq!(progress.stray, vec![centre + 9]);
    assert_eq!(progress.missing, vec![centre]);
    // readings of another board size are ignored
    assert!(!flow.readings(&[2048; 10], 0));
}

#[test]
fn patterns_of_the_wrong_colour_are_refused() {
    let (mut hall, mut rng) = board(BoardSize::NINE, SensorFaults::default(), 7);
    let mut patterns = run(&mut hall, &mut rng, u32::MAX);
    std::mem::swap(&mut patterns.black, &mut patterns.white);
    // with black and white swapped the coupling is not a magnet's, or most sensors read swapped
    assert!(compute(&patterns).is_err());
    patterns.white.clear();
    assert_eq!(
        compute(&patterns).unwrap_err(),
        ComputeError::Missing("white")
    );
}
