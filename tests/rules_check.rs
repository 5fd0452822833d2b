//! `check_record`: the referee's policy on records (R17.2, R18.3/R20.1, R19, R20.2–20.3,
//! C5/O13), on small hand-made records.

use smartgoban::rules::{
    check_record, Board, Color, GameRecord, Point, RecordedMove, ViolationCode,
};

const B: Color = Color::Black;
const W: Color = Color::White;

/// A record on a board from a diagram (setup stones), with moves in GTP coordinates
/// (`"pass"` for a pass).
fn record(rows: &[&str], moves: &[(Color, &str)]) -> GameRecord {
    let board = Board::from_rows(rows).expect("diagram");
    let size = board.size();
    let mut r = GameRecord::new(size);
    r.setup = board.stones().map(|(p, c)| (c, p)).collect();
    r.moves = moves
        .iter()
        .map(|&(c, m)| {
            let point = (m != "pass").then(|| Point::from_gtp(m, size).expect("GTP point"));
            RecordedMove::new(c, point)
        })
        .collect();
    r
}

fn empty(size: usize) -> Vec<String> {
    vec![".".repeat(size); size]
}

fn codes(r: &GameRecord) -> Vec<(u32, Color, &'static str)> {
    check_record(r)
        .violations
        .iter()
        .map(|v| (v.number, v.color, v.code.as_str()))
        .collect()
}

#[test]
fn codes_and_clauses() {
    let all = [
        (ViolationCode::TwoMovesInARow, "two_moves_in_a_row", "R17.2"),
        (ViolationCode::OccupiedPoint, "occupied_point", "C5/O13"),
        (ViolationCode::ForbiddenPoint, "forbidden_point", "G5/R19"),
        (ViolationCode::KoRecapture, "ko_recapture", "R18.3/R20.1"),
        (ViolationCode::SuperkoCycle, "superko_cycle", "R20.2/R20.3"),
    ];
    for (code, text, clause) in all {
        assert_eq!(code.as_str(), text);
        assert_eq!(code.to_string(), text);
        assert_eq!(code.clause(), clause);
        assert_eq!(serde_json::to_string(&code).unwrap(), format!("\"{text}\""));
    }
}

#[test]
fn a_clean_game_has_no_violation() {
    let rows = empty(9);
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let r = record(
        &rows,
        &[
            (B, "E5"),
            (W, "C3"),
            (B, "pass"),
            (W, "G7"),
            (B, "pass"),
            (W, "pass"),
        ],
    );
    let report = check_record(&r);
    assert!(report.violations.is_empty());
    assert_eq!(report.refereed.len(), 6);
    assert_eq!(report.final_game.consecutive_passes(), 2);
    assert_eq!(report.final_game.move_number(), 6);
}

#[test]
fn two_moves_in_a_row_stand_r17_2() {
    let rows = empty(9);
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    // The first mover is never a violation, whatever its colour.
    let r = record(
        &rows,
        &[(W, "E5"), (W, "C3"), (B, "D4"), (B, "pass"), (W, "F6")],
    );
    assert_eq!(
        codes(&r),
        vec![(2, W, "two_moves_in_a_row"), (4, B, "two_moves_in_a_row")]
    );
    let report = check_record(&r);
    assert_eq!(
        report.refereed[1],
        (W, Some(Point::from_gtp("C3", 9).unwrap()))
    );
    assert_eq!(
        report.refereed[3],
        (B, None),
        "a pass out of turn is recorded as played"
    );
    assert_eq!(report.final_game.board().stone_count(W), 3);
    assert!(
        report.violations[0].detail.contains("C3"),
        "{}",
        report.violations[0].detail
    );
    // After a pass, the same colour may move again.
    let r = record(&rows, &[(B, "E5"), (W, "pass"), (B, "C3")]);
    assert!(codes(&r).is_empty());
}

#[test]
fn invalid_placements_count_as_passes() {
    let rows = [
        ".X...", //
        "X....", ".....", ".....", ".....",
    ];
    // W A5 is suicide (R19); B B5 is occupied (C5/O13); then W may move (B's "move" was a pass).
    let r = record(&rows, &[(W, "A5"), (B, "B5"), (W, "E1")]);
    assert_eq!(
        codes(&r),
        vec![(1, W, "forbidden_point"), (2, B, "occupied_point")]
    );
    let report = check_record(&r);
    assert_eq!(report.refereed[0], (W, None));
    assert_eq!(report.refereed[1], (B, None));
    assert_eq!(report.violations[0].clause, "G5/R19");
    assert!(
        report.violations[1].detail.contains("black stone"),
        "{}",
        report.violations[1].detail
    );
    // An occupied point by the side that just moved: both violations.
    let r = record(&rows, &[(W, "E1"), (W, "B5")]);
    assert_eq!(
        codes(&r),
        vec![(2, W, "two_moves_in_a_row"), (2, W, "occupied_point")]
    );
}

#[test]
fn immediate_ko_retake_counts_as_a_pass_r18_3() {
    let rows = [
        ".XO..", //
        "XO.O.", ".XO..", ".....", ".....",
    ];
    let r = record(&rows, &[(B, "C4"), (W, "B4"), (B, "E1"), (W, "B4")]);
    assert_eq!(codes(&r), vec![(2, W, "ko_recapture")]);
    let report = check_record(&r);
    assert_eq!(report.refereed[1], (W, None));
    // The retake after a move elsewhere is legal.
    assert_eq!(
        report.refereed[3],
        (W, Some(Point::from_gtp("B4", 5).unwrap()))
    );
}

#[test]
fn triple_ko_cycle_is_flagged_and_stands_r20_3() {
    let rows = [
        ".XO......", //
        "XO.O.....",
        ".XO......",
        ".OX......",
        "OX.X.....",
        ".OX......",
        ".XO......",
        "XO.O.....",
        ".XO......",
    ];
    let cycle = [
        (B, "C8"),
        (W, "C5"),
        (B, "C2"),
        (W, "B8"),
        (B, "B5"),
        (W, "B2"),
    ];
    let moves: Vec<(Color, &str)> = cycle.iter().chain(cycle.iter()).copied().collect();
    let r = record(&rows, &moves);
    let report = check_record(&r);
    let flagged: Vec<_> = report
        .violations
        .iter()
        .map(|v| (v.number, v.code.as_str()))
        .collect();
    assert_eq!(
        flagged,
        (6..=12).map(|n| (n, "superko_cycle")).collect::<Vec<_>>(),
        "move 6 recreates the start, then every move its position six moves before"
    );
    assert!(
        report.violations[0].detail.contains("after move 0"),
        "{}",
        report.violations[0].detail
    );
    assert!(
        report.violations[1].detail.contains("after move 1"),
        "{}",
        report.violations[1].detail
    );
    assert_eq!(report.violations[0].clause, "R20.2/R20.3");
    // The moves stand.
    assert!(report.refereed.iter().all(|(_, p)| p.is_some()));
}

#[test]
fn records_with_odd_sizes_or_setup_do_not_panic() {
    let mut r = GameRecord::new(40);
    r.setup.push((B, Point::new(30, 30)));
    r.moves.push(RecordedMove::new(B, Some(Point::new(25, 3))));
    r.moves.push(RecordedMove::new(W, Some(Point::new(3, 3))));
    let report = check_record(&r);
    assert_eq!(report.refereed.len(), 2);
    assert_eq!(codes(&r), vec![(1, B, "forbidden_point")]);
}
