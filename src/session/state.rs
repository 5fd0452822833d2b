//! [`StateView`]: the live state served at `GET /api/v1/state`.

use serde::Serialize;

use super::Session;
use crate::event::{ClockView, Phase, PointColor};
use crate::rules::Color;

/// A count per side (prisoners taken by each side; warnings of each side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Captures {
    /// White stones captured by Black.
    pub black: u32,
    /// Black stones captured by White.
    pub white: u32,
}

/// The last move or pass.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct LastMove {
    /// Mover.
    pub color: Color,
    /// GTP point, or null for a pass.
    pub point: Option<String>,
    /// Move number.
    pub number: u32,
}

/// The serial link as the API shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct LinkView {
    /// `connected` or `lost`.
    pub state: crate::event::LinkState,
    /// Board size the board reported, when connected.
    pub board_size: Option<u8>,
    /// Firmware version, when connected.
    pub firmware_version: Option<u16>,
    /// Scans taken in since the service started.
    pub scans: u64,
    /// Counter of the last scan taken in since the handshake.
    pub last_scan_counter: Option<u32>,
    /// While the link is not up: the last problem opening the device or with the handshake
    /// (`waiting for the board: …`), else null. Filled by the service's shell (the session
    /// does not see the device).
    pub error: Option<String>,
}

/// An open violation, as the API shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct ViolationView {
    /// Violation id.
    pub id: u32,
    /// DESIGN.md code.
    pub code: &'static str,
    /// RULES.md clause.
    pub clause: &'static str,
    /// Offender.
    pub color: Color,
    /// GTP points.
    pub points: Vec<String>,
    /// Penalty name.
    pub penalty: &'static str,
    /// Move number when seen.
    pub move_number: u32,
    /// Explanation.
    pub detail: String,
}

/// Game information shown with the state.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct GameView {
    /// Black player.
    pub black: Option<String>,
    /// White player.
    pub white: Option<String>,
    /// Komi in points.
    pub komi: Option<f64>,
    /// Handicap stones.
    pub handicap: u8,
    /// Rules named in the record (the board always applies the Chinese rules).
    pub rules: Option<String>,
    /// Event.
    pub event: Option<String>,
    /// Date.
    pub date: Option<String>,
    /// Round (SGF `RO`): the hall's results table matches a game to its pairing by it.
    pub round: Option<String>,
    /// Result (SGF `RE`), once known.
    pub result: Option<String>,
}

/// Desync (or setup) guidance: what to change on the board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Guidance {
    /// Stones to put (back) with their colour.
    pub restore: Vec<PointColor>,
    /// Points to clear.
    pub remove: Vec<String>,
}

/// The live state (DESIGN.md "HTTP API", `GET state`). Boards are rows, top row first, `.`
/// empty, `X` black, `O` white.
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct StateView {
    /// Points per side.
    pub size: u8,
    /// The record's position.
    pub board: Vec<String>,
    /// The last settled physical board, if the board has settled since the link came up.
    pub sensed: Option<Vec<String>>,
    /// Side to move.
    pub to_move: Color,
    /// Moves and passes played.
    pub move_number: u32,
    /// Prisoners taken by each side.
    pub captures: Captures,
    /// The point the side to move may not play because of a single ko (R20.1), GTP.
    pub ko: Option<String>,
    /// Game phase.
    pub phase: Phase,
    /// Serial link.
    pub link: LinkView,
    /// The last move or pass.
    pub last_move: Option<LastMove>,
    /// Captured stones still on the board (R18.2), GTP.
    pub captures_pending: Vec<String>,
    /// In `setup` and `desync`: what to change on the board.
    pub guidance: Option<Guidance>,
    /// Violations not yet resolved.
    pub violations: Vec<ViolationView>,
    /// Warnings per side (R24.1: one stone each at the count; R24.2: two lose).
    pub warnings: Captures,
    /// Explanations of the board waiting for the referee's choice (each: moves in order, GTP
    /// with a colour prefix, `?` marking a stone never seen): the moves that explain the board
    /// that was held, then the moves made since, which are followed but not recorded until the
    /// referee chooses (`POST ambiguous/choose` with the index here).
    pub ambiguous: Vec<Vec<String>>,
    /// While a board is held for the referee: the stones in question (GTP; the LEDs show them
    /// as `ambiguous`), and how many moves wait for the choice to be recorded.
    pub held: Option<Held>,
    /// Moves recorded in the likeliest of several orders of the same stones (hands hid which
    /// came first): provisional until the referee picks an order (`POST ambiguous/choose` with
    /// `first` and the index of the order here). Oldest first.
    pub provisional: Vec<ProvisionalView>,
    /// Points whose sensors read a colour the record cannot explain (set aside), and points
    /// whose sensors have read uncertain for long (dead sensors, objects on the board).
    pub sensor_anomalies: Vec<String>,
    /// Free handicap stones Black still has to place.
    pub handicap_left: u8,
    /// In scoring: the stones counted as dead (proposed or lifted), GTP.
    pub dead: Vec<String>,
    /// In scoring: the players count on the board (G9, C2) — the dead stones are agreed and
    /// the count fixed until it is confirmed (R21.3) or disputed (R21.4).
    pub counting: bool,
    /// Referee rule profile (`cn2002`, `cn1988`).
    pub profile: &'static str,
    /// Both clocks as they show now (absent without a time control).
    pub clock: Option<ClockView>,
    /// The last move is committed (clock pressed, opponent moved, or settled long enough).
    pub committed: bool,
    /// Game information.
    pub game: GameView,
    /// While writing the record fails: why (the game goes on in memory and is written as soon
    /// as the storage works again), else null. Filled by the service's shell.
    pub storage_error: Option<String>,
    /// The board's sensors as the board reports them (protocol version 4: its calibration
    /// and each faulty sensor). Filled by the service's shell.
    pub sensors: SensorsView,
}

/// The board's sensors as its firmware reports them after each handshake (hardware/PROTOCOL.md
/// §5.17–§5.18, §15; `smartgoban calibrate` measures them). A dead sensor's point is read from
/// its neighbours' sensors; two dead sensors within two lines of each other cannot be read,
/// and a stone there is not seen: the referee watches those points.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SensorsView {
    /// Whether the board has reported (boards of protocol version 4, once connected).
    pub reported: bool,
    /// Whether the board holds a calibration (`smartgoban calibrate`); null until reported.
    pub calibrated: Option<bool>,
    /// Each faulty sensor's point with its faults, points in SGF order.
    pub faults: Vec<SensorFaultView>,
    /// How many sensors have each fault.
    pub counts: FaultCounts,
    /// One line for people (the live page's status line): `sensors: 1 dead (D4)`, with
    /// `not calibrated (smartgoban calibrate)` for a board never calibrated; null when every
    /// sensor is healthy or nothing was reported.
    pub summary: Option<String>,
}

/// One faulty sensor (`GET state`'s `sensors.faults`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SensorFaultView {
    /// GTP point.
    pub point: String,
    /// SGF point.
    pub sgf: String,
    /// `dead`, `swapped`, `weak`, `noisy`, most serious first.
    pub faults: Vec<&'static str>,
    /// What to do about each, in the same order.
    pub advice: Vec<&'static str>,
}

/// Sensors per fault.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct FaultCounts {
    /// Dead sensors: their points are read from the neighbours' sensors.
    pub dead: u32,
    /// Sensors mounted the other way round (the calibration compensates).
    pub swapped: u32,
    /// Weak sensors.
    pub weak: u32,
    /// Noisy sensors.
    pub noisy: u32,
}

/// The points of a board's `SensorHealth` report whose sensor is dead: the board reads them
/// from their neighbours' sensors (hardware/PROTOCOL.md §5.17–§5.18), in index order.
pub fn dead_points(
    report: &smartgoban_protocol::calibration::SensorHealth,
) -> Vec<crate::rules::Point> {
    use smartgoban_board_core::health::{Fault, Health};
    let size = report.board_size().get();
    (0..report.board_size().points())
        .filter(|&i| Health(report.get(i)).faults().any(|f| f == Fault::Dead))
        .map(|i| crate::rules::Point::from_index(i, size))
        .collect()
}

impl SensorsView {
    /// The view of a board's `SensorHealth` report.
    pub fn from_health(report: &smartgoban_protocol::calibration::SensorHealth) -> SensorsView {
        use smartgoban_board_core::health::{Fault, Health};
        let size = report.board_size().get();
        let mut view = SensorsView {
            reported: true,
            calibrated: Some(report.calibrated),
            ..SensorsView::default()
        };
        for i in 0..report.board_size().points() {
            let health = Health(report.get(i));
            if health.is_healthy() {
                continue;
            }
            for f in health.faults() {
                match f {
                    Fault::Dead => view.counts.dead += 1,
                    Fault::Swapped => view.counts.swapped += 1,
                    Fault::Weak => view.counts.weak += 1,
                    Fault::Noisy => view.counts.noisy += 1,
                }
            }
            let point = crate::rules::Point::from_index(i, size);
            view.faults.push(SensorFaultView {
                point: point.to_gtp(size),
                sgf: point.to_sgf(),
                faults: health.faults().map(Fault::name).collect(),
                advice: health.faults().map(Fault::advice).collect(),
            });
        }
        view.summary = view.summary_line();
        view
    }

    /// [`SensorsView::summary`]'s line.
    fn summary_line(&self) -> Option<String> {
        let c = self.counts;
        let mut parts = Vec::new();
        for (n, name) in [
            (c.dead, "dead"),
            (c.swapped, "swapped"),
            (c.weak, "weak"),
            (c.noisy, "noisy"),
        ] {
            if n > 0 {
                let points: Vec<&str> = self
                    .faults
                    .iter()
                    .filter(|f| f.faults.contains(&name))
                    .map(|f| f.point.as_str())
                    .take(6)
                    .collect();
                parts.push(format!("{n} {name} ({})", points.join(" ")));
            }
        }
        let uncalibrated = self.calibrated == Some(false);
        if parts.is_empty() && !uncalibrated {
            return None;
        }
        let mut line = format!("sensors: {}", parts.join(", "));
        if uncalibrated {
            line = if parts.is_empty() {
                "sensors: not calibrated (smartgoban calibrate)".to_string()
            } else {
                format!("{line}; not calibrated (smartgoban calibrate)")
            };
        }
        Some(line)
    }
}

/// Moves recorded provisionally (`GET state`'s `provisional`).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ProvisionalView {
    /// The move numbers in question (consecutive, from 1).
    pub numbers: Vec<u32>,
    /// Each order that explains the stones, likeliest first: moves in order, a colour letter
    /// and the GTP point (`BD4`), `?` marking a stone never seen.
    pub orders: Vec<Vec<String>>,
    /// The order in the record (an index of `orders`).
    pub recorded: usize,
}

/// A board held for the referee (`GET state`'s `held`).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Held {
    /// The stones whose order is in question, GTP.
    pub points: Vec<String>,
    /// Moves made that wait for the referee's choice to be recorded (in the first
    /// explanation).
    pub moves: usize,
    /// Explanations to choose from.
    pub explanations: usize,
}

/// Moves as `GET state` lists an explanation: a colour letter and the GTP point (`BD4`), `?`
/// for a stone never seen.
fn steps_text(steps: &[crate::referee::Step], size: u8) -> Vec<String> {
    steps
        .iter()
        .map(|s| {
            format!(
                "{}{}{}",
                s.color.sgf_letter(),
                s.point.to_gtp(size),
                if s.hidden { "?" } else { "" }
            )
        })
        .collect()
}

pub(super) fn view(session: &Session) -> StateView {
    let referee = &session.referee;
    let game = referee.game();
    let board = game.board();
    let size = board.size();
    let gtp = |p: crate::rules::Point| p.to_gtp(size);
    let stats = session.stats();
    let info = &referee.record().info;
    let guidance = referee.guidance();
    StateView {
        size,
        board: board.rows(),
        sensed: session.sensed().map(|g| g.rows()),
        to_move: game.to_move(),
        move_number: game.move_number(),
        captures: Captures {
            black: game.captures(Color::Black),
            white: game.captures(Color::White),
        },
        ko: game.ko().map(gtp),
        phase: referee.phase(),
        link: LinkView {
            state: if session.link.is_some() {
                crate::event::LinkState::Connected
            } else {
                crate::event::LinkState::Lost
            },
            board_size: session.link.map(|l| l.board_size),
            firmware_version: session.link.map(|l| l.firmware_version),
            scans: stats.scans,
            last_scan_counter: stats.last_scan_counter,
            error: None,
        },
        last_move: game.last_move().map(|(color, point)| LastMove {
            color,
            point: point.map(gtp),
            number: game.move_number(),
        }),
        captures_pending: referee.pending().iter().map(|&(p, _)| gtp(p)).collect(),
        guidance: (!guidance.is_empty()).then(|| Guidance {
            restore: guidance
                .restore
                .iter()
                .map(|&(p, color)| PointColor {
                    point: gtp(p),
                    color,
                })
                .collect(),
            remove: guidance.remove.iter().map(|&p| gtp(p)).collect(),
        }),
        violations: referee
            .violations()
            .iter()
            .filter(|v| v.open)
            .map(|v| ViolationView {
                id: v.id,
                code: v.code.as_str(),
                clause: v.code.clause(),
                color: v.color,
                points: v.points.iter().map(|&p| gtp(p)).collect(),
                penalty: v.penalty.as_str(),
                move_number: v.move_number,
                detail: v.detail.clone(),
            })
            .collect(),
        warnings: Captures {
            black: referee.warnings()[0],
            white: referee.warnings()[1],
        },
        ambiguous: referee
            .ambiguity()
            .unwrap_or_default()
            .iter()
            .map(|c| steps_text(&c.steps, size))
            .collect(),
        provisional: referee
            .provisional()
            .iter()
            .map(|p| ProvisionalView {
                numbers: p.numbers().collect(),
                orders: p.orders.iter().map(|o| steps_text(o, size)).collect(),
                recorded: p.recorded,
            })
            .collect(),
        held: referee.held_moves().map(|(moves, explanations)| Held {
            points: referee.held_points().into_iter().map(gtp).collect(),
            moves,
            explanations,
        }),
        sensor_anomalies: referee
            .anomalies()
            .iter()
            .copied()
            .chain(session.stabiliser.iter().flat_map(|s| s.stuck_points()))
            .map(gtp)
            .collect(),
        handicap_left: referee.handicap_left(),
        dead: referee.proposed_dead().iter().map(|&p| gtp(p)).collect(),
        counting: referee.counting(),
        profile: referee.config().profile.as_str(),
        clock: session.clock_view(),
        committed: referee.last_move_committed(),
        game: GameView {
            black: info.black.clone(),
            white: info.white.clone(),
            komi: info.komi,
            handicap: info.handicap,
            rules: info.rules.clone(),
            event: info.event.clone(),
            date: info.date.clone(),
            round: info.round.clone(),
            result: info.result.clone(),
        },
        storage_error: None,
        sensors: SensorsView::default(),
    }
}

#[cfg(test)]
mod sensors_tests {
    use super::SensorsView;
    use smartgoban_protocol::calibration::SensorHealth;
    use smartgoban_protocol::BoardSize;

    #[test]
    fn the_dead_sensors_points_are_the_ones_the_referee_reads_as_estimates() {
        let mut report = SensorHealth::new(BoardSize::NINE, true);
        report.set(0, 1); // A9 dead
        report.set(40, 1 | 8); // E5 dead and noisy
        report.set(80, 2 | 4); // J1 swapped and weak: read by its own sensor
        let dead: Vec<String> = super::dead_points(&report)
            .iter()
            .map(|p| p.to_gtp(9))
            .collect();
        assert_eq!(dead, ["A9", "E5"]);
    }

    #[test]
    fn a_report_lists_each_faulty_sensor_with_its_advice_and_a_line_for_people() {
        let mut report = SensorHealth::new(BoardSize::NINE, true);
        report.set(0, 1); // A9 dead
        report.set(80, 2 | 4); // J1 swapped and weak
        let view = SensorsView::from_health(&report);
        assert!(view.reported);
        assert_eq!(view.calibrated, Some(true));
        let points: Vec<&str> = view.faults.iter().map(|f| f.point.as_str()).collect();
        assert_eq!(points, ["A9", "J1"]);
        assert_eq!(view.faults[0].sgf, "aa");
        assert_eq!(view.faults[1].faults, ["swapped", "weak"]);
        assert_eq!(view.faults[1].advice.len(), 2);
        assert_eq!(
            (
                view.counts.dead,
                view.counts.swapped,
                view.counts.weak,
                view.counts.noisy
            ),
            (1, 1, 1, 0)
        );
        assert_eq!(
            view.summary.as_deref(),
            Some("sensors: 1 dead (A9), 1 swapped (J1), 1 weak (J1)")
        );
        let fresh = SensorsView::from_health(&SensorHealth::new(BoardSize::NINE, false));
        assert_eq!(
            fresh.summary.as_deref(),
            Some("sensors: not calibrated (smartgoban calibrate)")
        );
        let healthy = SensorsView::from_health(&SensorHealth::new(BoardSize::NINE, true));
        assert_eq!(healthy.summary, None);
        assert!(healthy.faults.is_empty());
        assert_eq!(SensorsView::default().summary, None);
    }
}
