//! Whole-board cycles (R20.3, O11.3): `superko_cycle` is flagged, and the event's rule
//! ([`CycleRule`]) decides — the referee rules, no result, a draw or a replay — with the
//! result and the record following it. On a real cycle: UEC Cup 2017, QuinoaIgo vs Kugutsu,
//! whose position after move 314 comes back at move 317; and on eternal life (长生), KataGo's
//! case of the peer suite.

use super::*;

const CYCLE_GAME: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/games/yenw-computer-go-dataset/The 11th Computer Go UEC Cup/day1/",
    "6-QuinoaIgo-Kugutsu.sgf"
));

/// The cycle game played on the board under `cycles` (each stone put, its captures lifted)
/// up to move `last`, under the rules' sanctions.
fn play_to(cycles: CycleRule, last: usize) -> Board {
    let record = GameRecord::from_sgf_bytes(CYCLE_GAME).unwrap();
    let config = RefereeConfig {
        cycles,
        ..RefereeConfig::default()
    };
    let mut b = Board::new(GameSetup::from_record(&record), config);
    let size = b.grid.size();
    let mut game = Game::with_setup(size, &record.setup, record.first_to_move()).unwrap();
    for m in record.moves.iter().take(last) {
        let Ok(outcome) = game.play(m.color, m.point) else {
            continue;
        };
        match m.point {
            Some(p) => {
                b.put(&[(m.color, &p.to_gtp(size))]);
                let captured: Vec<String> =
                    outcome.captured.iter().map(|q| q.to_gtp(size)).collect();
                if !captured.is_empty() {
                    b.lift(&captured.iter().map(String::as_str).collect::<Vec<_>>());
                }
            }
            None => {
                b.r.on_pass(m.color, b.t);
                b.drain();
            }
        }
        b.wait(4_000);
        b.drain();
    }
    b
}

fn results(events: &[EventKind]) -> Vec<(Option<Color>, &'static str, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::Result {
                winner, reason, re, ..
            } => Some((*winner, *reason, re.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_cycle_under_each_event_rule_ends_the_game_as_the_rule_says() {
    for (rule, re, how) in [
        (CycleRule::NoResult, "Void", "no_result"),
        (CycleRule::Draw, "0", "draw"),
        (CycleRule::Replay, "Void", "replay"),
    ] {
        let mut b = play_to(rule, 320);
        let events = b.take_events();
        let cycles: Vec<_> = violations(&events)
            .into_iter()
            .filter(|v| v.0 == "superko_cycle")
            .collect();
        assert_eq!(cycles.len(), 1, "{rule:?}: {cycles:?}");
        assert_eq!(
            results(&events),
            [(None, "cycle", re.to_string())],
            "{rule:?}"
        );
        assert_eq!(b.r.phase(), Phase::Finished);
        assert_eq!(b.r.record().info.result.as_deref(), Some(re));
        // the game ends at the move that repeats the position: nothing after it counts
        assert_eq!(b.r.record().moves.len(), 317, "{rule:?}");
        let closed = events
            .iter()
            .any(|e| matches!(e, EventKind::ViolationResolved { how: h, .. } if h == how));
        assert!(closed, "{rule:?}: the cycle is closed as {how}");
        let note = b.r.record().moves[316].comment.clone().unwrap_or_default();
        assert!(note.contains("R20.3"), "{note}");
    }
}

#[test]
fn by_default_the_cycle_is_the_referees_and_play_goes_on() {
    let mut b = play_to(CycleRule::default(), 320);
    let events = b.take_events();
    assert!(violations(&events).iter().any(|v| v.0 == "superko_cycle"));
    assert!(results(&events).is_empty());
    assert_eq!(b.r.phase(), Phase::Play);
    assert_eq!(b.r.record().moves.len(), 320);
    // the referee rules: a replay
    b.r.adjudicate(Adjudication::Replay);
    b.drain();
    assert_eq!(b.r.record().info.result.as_deref(), Some("Void"));
}

/// KataGo's `Eternal life` (`tests/fixtures/peer/katago/testrules/eternal-life.txt`, its 8×5
/// board at the bottom left of 9×9 as setup stones): Black takes two, White takes two, and
/// White's retake at move 4 brings back the starting position.
const ETERNAL_LIFE: [&str; 5] = ["........", "oooooo..", "xxxxxo..", "xoooxxoo", ".o.x.ox."];

#[test]
fn eternal_life_under_each_event_rule_ends_the_game_at_the_repeating_move() {
    let mut sgf = String::from("(;GM[1]FF[4]SZ[9]KM[7.5]");
    for (tag, c) in [("AB", 'x'), ("AW", 'o')] {
        sgf.push_str(tag);
        for (y, row) in ETERNAL_LIFE.iter().enumerate() {
            for (x, _) in row.char_indices().filter(|&(_, s)| s == c) {
                let letter = |i: usize| char::from(b'a' + i as u8);
                sgf.push_str(&format!("[{}{}]", letter(x), letter(y + 4)));
            }
        }
    }
    // (2,4) (4,4) (3,4) (5,4) of KataGo's board, twice
    sgf.push_str(";B[ci];W[ei];B[di];W[fi];B[ci];W[ei];B[di];W[fi])");
    let record = GameRecord::from_sgf_str(&sgf).unwrap();
    for (rule, re) in [
        (CycleRule::NoResult, "Void"),
        (CycleRule::Draw, "0"),
        (CycleRule::Replay, "Void"),
    ] {
        let config = RefereeConfig {
            cycles: rule,
            ..RefereeConfig::default()
        };
        let mut b = Board::new(GameSetup::from_record(&record), config);
        let setup: Vec<(Color, String)> = record
            .setup
            .iter()
            .map(|&(c, p)| (c, p.to_gtp(9)))
            .collect();
        let setup: Vec<(Color, &str)> = setup.iter().map(|(c, p)| (*c, p.as_str())).collect();
        b.put(&setup);
        let mut game = Game::with_setup(9, &record.setup, Color::Black).unwrap();
        for m in &record.moves {
            let p = m.point.unwrap();
            let captured = game.play(m.color, Some(p)).unwrap().captured;
            b.put(&[(m.color, &p.to_gtp(9))]);
            let captured: Vec<String> = captured.iter().map(|q| q.to_gtp(9)).collect();
            b.lift(&captured.iter().map(String::as_str).collect::<Vec<_>>());
            b.wait(4_000);
            b.drain();
        }
        let events = b.take_events();
        let codes: Vec<&str> = violations(&events).iter().map(|v| v.0).collect();
        assert_eq!(codes, ["superko_cycle"], "{rule:?}");
        assert_eq!(
            results(&events),
            [(None, "cycle", re.to_string())],
            "{rule:?}"
        );
        assert_eq!(
            b.r.record().moves.len(),
            4,
            "{rule:?}: the game ends at move 4"
        );
        assert_eq!(b.r.record().info.result.as_deref(), Some(re));
    }
}

#[test]
fn cycle_rules_read_by_their_config_names() {
    for rule in [
        CycleRule::Referee,
        CycleRule::NoResult,
        CycleRule::Draw,
        CycleRule::Replay,
    ] {
        assert_eq!(rule.as_str().parse::<CycleRule>(), Ok(rule));
    }
    assert!("void"
        .parse::<CycleRule>()
        .unwrap_err()
        .contains("no_result"));
}
