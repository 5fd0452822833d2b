//! R17.3 through the whole stack (board script → virtual board → pty → service): a capture
//! taken back — the capturing stone lifted, the captured stones put back one by one under a
//! hand, with each noise model's misreads — and the capture played again. One `takeback`, no
//! other violation, the record exact. The same cases at the core: `src/referee/tests/takeback.rs`.

use std::fmt::Write as _;

use serde_json::{json, Value};
use smartgoban::sim::NoiseModel;

use crate::referee::moves;
use crate::support::{of_kind, play_script, rt};

/// Black surrounds `victims` with `captors` (the last one captures); White plays the victims,
/// then `fillers` far away.
struct Capture {
    victims: &'static [&'static str],
    captors: &'static [&'static str],
    fillers: &'static [&'static str],
}

const CAPTURES: [Capture; 3] = [
    Capture {
        victims: &["E5"],
        captors: &["D5", "F5", "E6", "E4"],
        fillers: &["A1", "A2", "A3"],
    },
    Capture {
        victims: &["E5", "E4"],
        captors: &["D5", "D4", "F5", "F4", "E6", "E3"],
        fillers: &["A1", "A2", "A3", "A4"],
    },
    Capture {
        victims: &["D5", "E5", "F5", "D4", "E4", "F4"],
        captors: &["C5", "C4", "G5", "G4", "D6", "E6", "F6", "D3", "E3", "F3"],
        fillers: &["A1", "A2", "A3", "A9"],
    },
];

impl Capture {
    fn moves(&self) -> Vec<(char, &'static str)> {
        let whites: Vec<&str> = self.victims.iter().chain(self.fillers).copied().collect();
        let mut out = Vec::new();
        for (i, &b) in self.captors.iter().enumerate() {
            out.push(('B', b));
            if i + 1 < self.captors.len() {
                out.push(('W', whites[i]));
            }
        }
        out
    }

    fn point(&self) -> &'static str {
        self.captors[self.captors.len() - 1]
    }

    /// The game to the capture, its stones lifted; 4 s later (committed) the capturing stone
    /// lifted and the captured stones put back one by one by a hand of `radius` points, in
    /// reverse order when `reverse`; then the capture played again and White's H8.
    fn script(&self, radius: u8, reverse: bool) -> String {
        let mut s = String::from("size 9\n");
        let mut t = 0;
        for (c, p) in self.moves() {
            writeln!(s, "at {t} place {c} {p}").unwrap();
            t += 1_000;
        }
        t -= 700;
        writeln!(s, "at {t} remove {}", self.victims.join(" ")).unwrap();
        t += 4_000;
        let back = |v: &mut Vec<&'static str>| {
            if reverse {
                v.reverse();
            }
        };
        let mut order = self.victims.to_vec();
        back(&mut order);
        writeln!(s, "at {t} hand {} {radius} 300", self.point()).unwrap();
        writeln!(s, "at {} remove {}", t + 150, self.point()).unwrap();
        t += 800;
        for v in &order {
            writeln!(s, "at {t} hand {v} {radius} 350").unwrap();
            writeln!(s, "at {} place W {v}", t + 150).unwrap();
            t += 600;
        }
        t += 1_500;
        writeln!(s, "at {t} hand {} {radius} 300", self.point()).unwrap();
        writeln!(s, "at {} place B {}", t + 150, self.point()).unwrap();
        t += 700;
        for v in order.iter().rev() {
            writeln!(s, "at {t} hand {v} {radius} 300").unwrap();
            writeln!(s, "at {} remove {v}", t + 150).unwrap();
            t += 500;
        }
        t += 1_500;
        writeln!(s, "at {t} place W H8").unwrap();
        s
    }
}

#[test]
fn a_capture_of_1_2_and_6_stones_taken_back_and_played_again_under_every_noise_model() {
    for capture in &CAPTURES {
        let mut want: Vec<String> = capture
            .moves()
            .iter()
            .map(|(c, p)| format!("{c}{p}"))
            .collect();
        want.push("WH8".into());
        for (noise, radius, reverse, seed) in [
            (NoiseModel::Clean, 1, false, 1),
            (NoiseModel::Realistic, 2, true, 2),
            (NoiseModel::Harsh, 1, true, 3),
            (NoiseModel::Harsh, 2, false, 4),
        ] {
            let script = capture.script(radius, reverse);
            let (events, snap) = rt().block_on(play_script(&script, noise, seed));
            let what = format!(
                "{} stones, {noise:?} seed {seed}, hand radius {radius}, reverse {reverse}",
                capture.victims.len()
            );
            let v: Vec<(Value, Value, Value)> = of_kind(&events, "violation")
                .iter()
                .map(|v| (v["code"].clone(), v["color"].clone(), v["points"].clone()))
                .collect();
            assert_eq!(
                v,
                [(json!("takeback"), json!("black"), json!([capture.point()]))],
                "{what}\n{script}"
            );
            assert_eq!(moves(&events), want, "{what}");
            let closed: Vec<&Value> = of_kind(&events, "violation_resolved");
            assert_eq!(closed.len(), 1, "{what}");
            assert_eq!(closed[0]["how"], "board_restored", "{what}");
            assert_eq!(snap.state.phase.as_str(), "play", "{what}");
        }
    }
}
