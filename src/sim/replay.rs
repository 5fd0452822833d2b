//! [`Replay`]: the virtual board without a wire — a timeline of actions applied to the
//! [`Physics`] (or, with [`NoiseParams::hall`], to the [`HallBoard`]) and read out at 50 scans
//! a second of board time.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::action::{Action, LinkFault, TimedAction};
use super::hall::HallBoard;
use super::noise::NoiseParams;
use super::physics::Physics;
use super::player::SCAN_MS;
use crate::rules::{Color, Point};
use smartgoban_board_core::calibration::prompt;
use smartgoban_protocol::{BoardSize, Button, ButtonCounters, LedFrame, PackedCells, Scan, Side};

/// Stones the person calibrating a board puts down or lifts in one scan period (20 ms): a
/// quick pair of hands.
pub const PERSON_STONES_PER_SCAN: usize = 4;

/// What one scan period brings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tick {
    /// The sensors were read.
    Scan {
        /// Board time of the scan, ms.
        board_ms: u64,
        /// Button presses so far (PROTOCOL.md §7).
        buttons: ButtonCounters,
        /// The readings.
        cells: PackedCells,
    },
    /// The cable is pulled now for `duration_ms`: take the board off the wire, then call
    /// [`Replay::outage`].
    Unplug {
        /// Outage, ms of board time.
        duration_ms: u64,
    },
    /// A fault on the wire or in the microcontroller happens now (before this period's scan,
    /// which the next [`Replay::tick`] reads).
    Fault(LinkFault),
}

/// The sensors: cells read directly, or Hall sensors read through the firmware's logic.
#[derive(Debug)]
enum Sensors {
    Cells(Physics),
    Hall(Box<HallBoard>),
}

impl Sensors {
    fn apply(&mut self, action: &Action, now_ms: u64, rng: &mut ChaCha8Rng) {
        match self {
            Sensors::Cells(p) => p.apply(action, now_ms, rng),
            Sensors::Hall(h) => h.apply(action, now_ms, rng),
        }
    }

    fn scan(&mut self, now_ms: u64, rng: &mut ChaCha8Rng) -> PackedCells {
        match self {
            Sensors::Cells(p) => p.scan(now_ms, rng),
            Sensors::Hall(h) => h.scan(rng),
        }
    }
}

/// The random stream of the seed that a game played after a calibration draws its noise from
/// ([`Replay::end_calibration`]); the board and the calibration draw from stream 0.
const GAME_AFTER_CALIBRATION_STREAM: u64 = 1;

/// A timeline being played on the physical board. Deterministic for a seed.
#[derive(Debug)]
pub struct Replay {
    physics: Sensors,
    rng: ChaCha8Rng,
    /// The seed `rng` was drawn from: the game after a calibration draws a stream of its own
    /// from it ([`Replay::end_calibration`]).
    seed: u64,
    actions: Vec<TimedAction>,
    /// When the last of the actions is over (a hand lifted, a bounce still), ms of the
    /// timeline.
    over_ms: u64,
    next_action: usize,
    board_ms: u64,
    buttons: ButtonCounters,
    /// The timeline waits while an uncalibrated board is being calibrated: its actions are
    /// due this much later.
    hold_ms: u64,
    /// An uncalibrated board (`--uncalibrated`): a person follows the LED prompts of
    /// `smartgoban calibrate` instead of playing the timeline.
    calibrating: bool,
}

impl Replay {
    /// Starts `actions` (sorted by time) on an empty board at board time 0.
    pub fn new(actions: Vec<TimedAction>, size: BoardSize, noise: &NoiseParams, seed: u64) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let physics = match &noise.hall {
            None => Sensors::Cells(Physics::new(size, noise)),
            Some(hall) => Sensors::Hall(Box::new(HallBoard::new(size, noise, hall, &mut rng))),
        };
        let calibrating = noise.hall.as_ref().is_some_and(|h| h.uncalibrated);
        let over_ms = actions
            .iter()
            .map(|a| a.at_ms + a.action.lasts_ms())
            .max()
            .unwrap_or(0);
        Replay {
            physics,
            rng,
            seed,
            actions,
            over_ms,
            next_action: 0,
            board_ms: 0,
            buttons: ButtonCounters::ZERO,
            hold_ms: 0,
            calibrating,
        }
    }

    /// The Hall sensors and the firmware's logic reading them, with `--firmware`.
    pub fn hall(&self) -> Option<&HallBoard> {
        match &self.physics {
            Sensors::Hall(h) => Some(h),
            Sensors::Cells(_) => None,
        }
    }

    /// [`Replay::hall`], to change.
    pub fn hall_mut(&mut self) -> Option<&mut HallBoard> {
        match &mut self.physics {
            Sensors::Hall(h) => Some(h),
            Sensors::Cells(_) => None,
        }
    }

    /// Board time of the next scan, ms.
    pub fn board_ms(&self) -> u64 {
        self.board_ms
    }

    /// Whether every action has happened and is over (a hand lifted off the last stone) and
    /// `tail_ms` more have passed.
    pub fn is_played_out(&self, tail_ms: u64) -> bool {
        let last = self.over_ms + self.hold_ms;
        !self.calibrating
            && self.next_action >= self.actions.len()
            && self.board_ms >= last + tail_ms
    }

    /// The board starts a new session (a `Hello`): button counters restart from 0.
    pub fn restart_buttons(&mut self) {
        self.buttons = ButtonCounters::ZERO;
    }

    /// Whether the next [`Replay::tick`] brings an unplug or a link fault (one is due now).
    pub fn link_fault_due(&self) -> bool {
        self.actions
            .get(self.next_action..)
            .unwrap_or_default()
            .iter()
            .take_while(|a| a.at_ms + self.hold_ms <= self.board_ms)
            .any(|a| matches!(a.action, Action::Unplug { .. } | Action::Fault(_)))
    }

    /// Applies the actions due now and reads the sensors, then moves on one scan period.
    pub fn tick(&mut self) -> Tick {
        while let Some(a) = self.actions.get(self.next_action) {
            if self.calibrating || a.at_ms + self.hold_ms > self.board_ms {
                break;
            }
            let action = a.action.clone();
            self.next_action += 1;
            match action {
                Action::Unplug { duration_ms } => return Tick::Unplug { duration_ms },
                Action::Fault(fault) => return Tick::Fault(fault),
                _ => {}
            }
            self.apply(&action);
        }
        let cells = self.physics.scan(self.board_ms, &mut self.rng);
        let tick = Tick::Scan {
            board_ms: self.board_ms,
            buttons: self.buttons,
            cells,
        };
        self.board_ms += SCAN_MS;
        if self.calibrating {
            self.hold_ms += SCAN_MS;
        }
        tick
    }

    /// Whether the board is being calibrated (`--uncalibrated`, until
    /// [`Replay::end_calibration`]): the timeline waits.
    pub fn calibrating(&self) -> bool {
        self.calibrating
    }

    /// The person calibrating the board follows the LED frame shown (`leds`): a point lit
    /// [`prompt::PUT_BLACK`] wants a black stone, [`prompt::PUT_WHITE`] a white one, any
    /// other a bare point. Up to [`PERSON_STONES_PER_SCAN`] stones a scan are put down or
    /// lifted, in point order, landing off their points as every stone does. Then
    /// [`Replay::tick`].
    pub fn tick_calibrating(&mut self, leds: Option<&LedFrame>) -> Tick {
        let mut changes = Vec::new();
        if let Some(hall) = self.hall() {
            let size = leds.map(|f| f.board_size().get());
            let n = hall.size_lines();
            for i in 0..usize::from(n) * usize::from(n) {
                if changes.len() >= PERSON_STONES_PER_SCAN {
                    break;
                }
                let want = match leds.filter(|_| size == Some(n)) {
                    Some(frame) => {
                        let rgb = frame
                            .palette
                            .get(usize::from(frame.cells.get(i)))
                            .map(|p| p.rgb);
                        if rgb == Some(prompt::PUT_BLACK) {
                            Some(Color::Black)
                        } else if rgb == Some(prompt::PUT_WHITE) {
                            Some(Color::White)
                        } else {
                            None
                        }
                    }
                    None => None,
                };
                let point = Point::from_index(i, n);
                if hall.stone(point) != want {
                    changes.push((point, want));
                }
            }
        }
        {
            for (point, want) in changes {
                let action = match want {
                    Some(color) => Action::Place { color, point },
                    None => Action::Remove {
                        points: vec![point],
                    },
                };
                self.physics.apply(&action, self.board_ms, &mut self.rng);
            }
        }
        self.tick()
    }

    /// The calibration is over (stored, and its host gone): the person takes every stone off
    /// and the timeline starts from here. Its noise is drawn from a stream of the seed of its
    /// own: how many scans the calibration took depends on how quickly its host answered (real
    /// time), and a game played from a seed is the same game whatever the machine's load.
    pub fn end_calibration(&mut self) {
        self.rng = ChaCha8Rng::seed_from_u64(self.seed);
        self.rng.set_stream(GAME_AFTER_CALIBRATION_STREAM);
        let points: Vec<Point> = match self.hall() {
            Some(hall) => {
                let n = hall.size_lines();
                (0..usize::from(n) * usize::from(n))
                    .map(|i| Point::from_index(i, n))
                    .filter(|&p| hall.stone(p).is_some())
                    .collect()
            }
            None => Vec::new(),
        };
        if !points.is_empty() {
            self.physics
                .apply(&Action::Remove { points }, self.board_ms, &mut self.rng);
        }
        self.calibrating = false;
    }

    /// Plays the timeline out (every action, then `tail_ms` more) as a board in one session
    /// that nothing interrupts: its scans, counted from 0 as a session counts them (PROTOCOL.md
    /// §5.3). Unplugs and link faults are passed over.
    pub fn into_scans(mut self, tail_ms: u64) -> Vec<Scan> {
        let mut scans = Vec::new();
        while !self.is_played_out(tail_ms) {
            if let Tick::Scan {
                board_ms,
                buttons,
                cells,
            } = self.tick()
            {
                scans.push(Scan {
                    scan_counter: scans.len() as u32,
                    board_ms: board_ms as u32,
                    buttons,
                    cells,
                });
            }
        }
        scans
    }

    /// The board is off the wire for `duration_ms`: what happens meanwhile happens on the
    /// board (a powerless board registers no button presses). This is the outage of a board of
    /// protocol version 2 or 1; a version-3 board has its own power and scans, counts and
    /// records on through an unplug ([`super::board::VirtualBoard::unplug`]).
    pub fn outage(&mut self, duration_ms: u64) {
        let until = self.board_ms.saturating_add(duration_ms);
        while let Some(a) = self.actions.get(self.next_action) {
            if self.calibrating || a.at_ms + self.hold_ms > until {
                break;
            }
            let action = a.action.clone();
            self.next_action += 1;
            if !matches!(
                action,
                Action::Pass(_)
                    | Action::Resign(_)
                    | Action::Clock(_)
                    | Action::Unplug { .. }
                    | Action::Fault(_)
            ) {
                self.physics.apply(&action, a.at_ms, &mut self.rng);
            }
        }
        self.board_ms = until;
    }

    /// The board runs on for `duration_ms` without sending (a silent link): actions happen
    /// and buttons count as usual, the scans are read and dropped; an unplug or a fault due
    /// meanwhile is skipped.
    pub fn run_silent(&mut self, duration_ms: u64) {
        let until = self.board_ms.saturating_add(duration_ms);
        while self.board_ms < until {
            // Scans are dropped; a fault or unplug due now is consumed and skipped.
            let _ = self.tick();
        }
    }

    fn apply(&mut self, action: &Action) {
        match *action {
            Action::Pass(c) => self.buttons.record_press(Button::Pass, side(c)),
            Action::Resign(c) => self.buttons.record_press(Button::Resign, side(c)),
            Action::Clock(c) => self.buttons.record_press(Button::Clock, side(c)),
            _ => self.physics.apply(action, self.board_ms, &mut self.rng),
        }
    }
}

fn side(c: Color) -> Side {
    match c {
        Color::Black => Side::Black,
        Color::White => Side::White,
    }
}
