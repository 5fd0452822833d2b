//! Writing a [`GameRecord`] as SGF text, with `sgf-parse` doing the value escaping.

use super::GameRecord;
use crate::rules::color::Color;
use sgf_parse::go::{Move, Prop};
use sgf_parse::{SgfNode, SimpleText, Text};

/// The application name written in `AP`.
const APPLICATION: &str = "smartgoban";

/// Moves per line of the written file (only for people reading it).
const MOVES_PER_LINE: usize = 10;

/// The constructor of a SimpleText game-information property (`Prop::PB`, …).
type TextProp = fn(SimpleText) -> Prop;

fn simple(s: &str) -> SimpleText {
    SimpleText {
        text: s.to_string(),
    }
}

/// One node without children, serialised by `sgf-parse` (`;` followed by its properties).
/// Nodes are written one by one rather than as one nested tree, so that a long game does not
/// recurse once per move.
fn node(properties: Vec<Prop>, is_root: bool) -> String {
    SgfNode::new(properties, Vec::new(), is_root).to_string()
}

/// A point list property in row-major order. `sgf-parse` keeps point lists in a `HashSet`,
/// whose order changes from run to run; the written file should not.
fn point_list(id: &str, record: &GameRecord, colour: Color) -> Option<Prop> {
    let mut points: Vec<_> = record
        .setup
        .iter()
        .filter(|(c, _)| *c == colour)
        .map(|(_, p)| *p)
        .collect();
    if points.is_empty() {
        return None;
    }
    points.sort();
    points.dedup();
    Some(Prop::Unknown(
        id.to_string(),
        points.iter().map(|p| p.to_sgf()).collect(),
    ))
}

pub(super) fn write(record: &GameRecord) -> String {
    let info = &record.info.ff4_form();
    let mut root = vec![
        Prop::FF(4),
        Prop::GM(1),
        Prop::CA(simple("UTF-8")),
        Prop::AP((simple(APPLICATION), simple(env!("CARGO_PKG_VERSION")))),
        // Prop::SZ((n, n)) would be written `SZ[n:n]`; a square board is written `SZ[n]`.
        Prop::Unknown("SZ".to_string(), vec![info.size.to_string()]),
    ];
    if let Some(k) = info.komi.filter(|k| k.is_finite()) {
        root.push(Prop::KM(k));
    }
    if info.handicap >= 2 {
        root.push(Prop::HA(i64::from(info.handicap)));
    }
    let texts: [(&Option<String>, TextProp); 15] = [
        (&info.rules, Prop::RU),
        (&info.black, Prop::PB),
        (&info.white, Prop::PW),
        (&info.black_rank, Prop::BR),
        (&info.white_rank, Prop::WR),
        (&info.event, Prop::EV),
        (&info.round, Prop::RO),
        (&info.date, Prop::DT),
        (&info.place, Prop::PC),
        (&info.game_name, Prop::GN),
        (&info.result, Prop::RE),
        (&info.overtime, Prop::OT),
        (&info.user, Prop::US),
        (&info.black_team, Prop::BT),
        (&info.white_team, Prop::WT),
    ];
    for (value, make) in texts {
        if let Some(v) = value {
            root.push(make(simple(v)));
        }
    }
    if let Some(c) = &info.game_comment {
        root.push(Prop::GC(Text { text: c.clone() }));
    }
    if let Some(t) = info.time_limit.filter(|t| t.is_finite()) {
        root.push(Prop::TM(t));
    }
    if let Some(c) = &info.comment {
        root.push(Prop::C(Text { text: c.clone() }));
    }
    root.extend(point_list("AB", record, Color::Black));
    root.extend(point_list("AW", record, Color::White));
    if let Some(c) = record.player_to_move {
        root.push(Prop::PL(match c {
            Color::Black => sgf_parse::Color::Black,
            Color::White => sgf_parse::Color::White,
        }));
    }

    let mut out = String::with_capacity(64 + record.moves.len() * 8);
    out.push('(');
    out.push_str(&node(root, true));
    for (k, m) in record.moves.iter().enumerate() {
        if k % MOVES_PER_LINE == 0 {
            out.push('\n');
        }
        let mv = match m.point {
            Some(p) => Move::Move(sgf_parse::go::Point { x: p.x, y: p.y }),
            None => Move::Pass,
        };
        let mut props = vec![match m.color {
            Color::Black => Prop::B(mv),
            Color::White => Prop::W(mv),
        }];
        if let Some(ms) = m.time_left_ms {
            let seconds = ms as f64 / 1000.0;
            props.push(match m.color {
                Color::Black => Prop::BL(seconds),
                Color::White => Prop::WL(seconds),
            });
        }
        if let Some(n) = m.periods_left {
            props.push(match m.color {
                Color::Black => Prop::OB(i64::from(n)),
                Color::White => Prop::OW(i64::from(n)),
            });
        }
        if let Some(c) = &m.comment {
            props.push(Prop::C(Text { text: c.clone() }));
        }
        out.push_str(&node(props, false));
    }
    out.push_str(")\n");
    out
}
