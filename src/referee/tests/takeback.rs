//! R17.3: a capturing move taken back — its stone lifted, the captured stones put back in any
//! order — is one `takeback`; the capture played again is the fix, not a new move nor a ko.

use super::*;

/// A capture on 9×9: Black surrounds `victims` (White) with `captors`, the last of which
/// captures; White plays `victims` first, then `fillers` far away.
struct Capture {
    victims: &'static [&'static str],
    captors: &'static [&'static str],
    fillers: &'static [&'static str],
}

const ONE: Capture = Capture {
    victims: &["E5"],
    captors: &["D5", "F5", "E6", "E4"],
    fillers: &["A1", "A2", "A3"],
};

const TWO: Capture = Capture {
    victims: &["E5", "E4"],
    captors: &["D5", "D4", "F5", "F4", "E6", "E3"],
    fillers: &["A1", "A2", "A3", "A4"],
};

const SIX: Capture = Capture {
    victims: &["D5", "E5", "F5", "D4", "E4", "F4"],
    captors: &["C5", "C4", "G5", "G4", "D6", "E6", "F6", "D3", "E3", "F3"],
    fillers: &["A1", "A2", "A3", "A9"],
};

impl Capture {
    /// The moves up to and including the capture, alternating from Black.
    fn moves(&self) -> Vec<&'static str> {
        let whites: Vec<&str> = self.victims.iter().chain(self.fillers).copied().collect();
        let mut out = Vec::new();
        for (i, &b) in self.captors.iter().enumerate() {
            out.push(b);
            if i + 1 < self.captors.len() {
                out.push(whites[i]);
            }
        }
        out
    }

    fn point(&self) -> &'static str {
        self.captors[self.captors.len() - 1]
    }

    /// The game up to the capture, its stones lifted, committed (3.5 s without a clock).
    fn played(&self) -> Board {
        let mut b = Board::even(9);
        b.play(&self.moves());
        b.lift(self.victims);
        b.wait(3_500);
        b.take_events();
        b
    }
}

fn record(c: &Capture) -> Vec<String> {
    c.moves()
        .iter()
        .enumerate()
        .map(|(i, m)| format!("{}{m}", if i % 2 == 0 { "B" } else { "W" }))
        .collect()
}

/// The orders the captured stones go back in: as captured, reversed, and interleaved.
fn orders(victims: &[&'static str]) -> Vec<Vec<&'static str>> {
    let mut reversed = victims.to_vec();
    reversed.reverse();
    let mut odd_first: Vec<&str> = victims.iter().skip(1).step_by(2).copied().collect();
    odd_first.extend(victims.iter().step_by(2));
    vec![victims.to_vec(), reversed, odd_first]
}

#[test]
fn a_capture_taken_back_stone_by_stone_and_played_again_is_one_takeback() {
    for capture in [ONE, TWO, SIX] {
        for order in orders(capture.victims) {
            let mut b = capture.played();
            // the capturing stone lifted, then the captured stones back one by one
            b.lift(&[capture.point()]);
            for &v in &order {
                b.put(&[(W, v)]);
            }
            let ev = b.take_events();
            assert_eq!(
                violations(&ev),
                [("takeback", B, vec![capture.point().to_string()])],
                "{:?} put back in the order {order:?}",
                capture.victims
            );
            let open = b.r.violations().iter().filter(|v| v.open).count();
            assert_eq!(open, 1);
            // the capture played again: the stone back, the captured stones off again
            b.put(&[(B, capture.point())]);
            for &v in order.iter().rev() {
                b.lift(&[v]);
            }
            let ev = b.take_events();
            assert!(violations(&ev).is_empty(), "{ev:?}");
            assert!(b.r.violations().iter().all(|v| !v.open), "restored");
            assert_eq!(
                b.moves(),
                record(&capture),
                "the record keeps the capture once"
            );
            // and the game goes on with White
            b.play(&["H8"]);
            let ev = b.take_events();
            assert!(violations(&ev).is_empty(), "{ev:?}");
            assert_eq!(b.moves().last().map(String::as_str), Some("WH8"));
        }
    }
}

#[test]
fn a_capture_taken_back_at_once_is_one_takeback() {
    // the capturing stone lifted and every captured stone back within one settled board
    for capture in [ONE, TWO, SIX] {
        let mut b = capture.played();
        b.t += 500;
        b.set(capture.point(), None);
        for v in capture.victims {
            b.set(v, Some(W));
        }
        b.settle();
        let ev = b.take_events();
        assert_eq!(
            violations(&ev),
            [("takeback", B, vec![capture.point().to_string()])],
            "{:?}",
            capture.victims
        );
        assert_eq!(b.moves(), record(&capture));
    }
}

#[test]
fn a_takeback_of_a_capture_accepted_leaves_the_position_before_it_and_the_capture_is_legal_again() {
    for capture in [ONE, TWO, SIX] {
        let mut b = capture.played();
        b.lift(&[capture.point()]);
        for v in capture.victims {
            b.put(&[(W, v)]);
        }
        let id =
            b.r.violations()
                .iter()
                .find(|v| v.open)
                .map(|v| v.id)
                .unwrap();
        b.r.resolve(id, Ruling::AcceptAsPlayed).unwrap();
        b.drain();
        let mut shorter = record(&capture);
        shorter.pop();
        assert_eq!(b.moves(), shorter);
        // the same capture again is a legal move (no ko, no repetition)
        b.take_events();
        b.put(&[(B, capture.point())]);
        b.lift(capture.victims);
        let ev = b.take_events();
        assert!(violations(&ev).is_empty(), "{ev:?}");
        assert_eq!(b.moves(), record(&capture));
        assert!(b.r.violations().iter().all(|v| !v.open));
    }
}

/// Black F5 has taken White E5 in a ko (E5 lifted), committed.
fn ko_taken() -> Board {
    let mut b = Board::even(9);
    b.play(&["D5", "G5", "E6", "F6", "E4", "F4", "A9", "E5", "F5"]);
    b.lift(&["E5"]);
    b.wait(3_500);
    b.take_events();
    b
}

#[test]
fn in_a_ko_the_captured_stone_put_down_before_the_capturing_stone_is_lifted_is_a_retake() {
    // Black F5 takes White E5 in a ko; White puts E5 down and then lifts F5: the retake of the
    // ko at once (R20.1), not Black's takeback.
    let mut b = ko_taken();
    b.t += 500;
    b.set("E5", Some(W));
    b.t += 100;
    b.set("F5", None);
    b.settle();
    let ev = b.take_events();
    let codes: Vec<&str> = violations(&ev).iter().map(|v| v.0).collect();
    assert_eq!(codes, ["ko_recapture"], "{ev:?}");
}

#[test]
fn in_a_ko_the_capturing_stone_lifted_first_and_the_stone_put_back_is_a_takeback() {
    let mut b = ko_taken();
    b.t += 500;
    b.set("F5", None);
    b.t += 300;
    b.set("E5", Some(W));
    b.settle();
    let ev = b.take_events();
    assert_eq!(
        violations(&ev),
        [("takeback", B, vec!["F5".to_string()])],
        "{ev:?}"
    );
}
