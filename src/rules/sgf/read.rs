//! Reading a [`GameRecord`] from SGF text with the `sgf-parse` crate.

use super::{GameInfo, GameRecord, RecordedMove, SgfError};
use crate::rules::color::Color;
use crate::rules::point::{Point, MAX_BOARD_SIZE, MIN_BOARD_SIZE};
use sgf_parse::go::{Move, Prop};
use sgf_parse::{GameTree, ParseOptions, SgfNode, SgfParseError, SgfProp};
use std::borrow::Cow;

/// Reads the first game tree of `text`.
pub(super) fn read(text: &str) -> Result<GameRecord, SgfError> {
    let tree = first_game_tree(text)?;
    if !tree.closed {
        let reason = if tree.open_value {
            "a property value is not closed: a `]` is missing"
        } else {
            "the game tree is not closed: a `)` is missing at the end"
        };
        return Err(SgfError::Syntax {
            reason: reason.to_string(),
            nodes_read: nodes_readable(&tree.text),
        });
    }
    let trees = match sgf_parse::parse(&tree.text) {
        Ok(trees) => trees,
        Err(e) => return Err(syntax_error(&tree.text, e)),
    };
    let mut result = Err(SgfError::NoGameTree);
    for (k, tree) in trees.into_iter().enumerate() {
        if k == 0 {
            result = match &tree {
                GameTree::GoGame(root) => read_root(root),
                GameTree::Unknown(root) => Err(SgfError::NotGo {
                    game: root
                        .properties()
                        .find_map(|p| match p {
                            sgf_parse::unknown_game::Prop::GM(v) => Some(v.to_string()),
                            _ => None,
                        })
                        .unwrap_or_default(),
                }),
            };
        }
        dismantle(tree);
    }
    result
}

/// The first game tree of a text, cleaned for the parser.
struct TreeText {
    /// From the tree's `(` to its matching `)`, or to the end of the text.
    text: String,
    /// Whether the matching `)` was found.
    closed: bool,
    /// Whether the text ends inside a property value (a `]` is missing).
    open_value: bool,
}

/// The text of the first game tree, cleaned for the parser: from its `(` to the matching `)`
/// (or to the end of the text when it is not closed).
///
/// Text before the tree is ignored (SGF allows it). Outside property values, text that is not
/// SGF — characters other than `(`, `)`, `;`, white space and letters, and letters not followed
/// by a value — is dropped, and so is an empty game tree `()`, as SGFC does: `sgf-parse` would otherwise read junk such as the
/// `#N/A` between two nodes of `jst44.sgf` as the start of the next property identifier and
/// swallow the `;` and the move after it. A `;` missing where a node must start — right after
/// a `(` (the Nihon Ki-in files), or before properties that follow a `)` — is supplied, as SGFC
/// does; with that, `sgf-parse` can only fail in its lexer, before it builds any tree. (Its
/// other errors drop a half-built tree recursively, one stack frame per node, which a long
/// malformed file would overflow.)
fn first_game_tree(text: &str) -> Result<TreeText, SgfError> {
    /// The last significant token written outside values.
    #[derive(PartialEq)]
    enum Last {
        Open,
        Close,
        Other,
    }
    let start = find_tree_start(text).ok_or(SgfError::NoGameTree)?;
    let rest = &text[start..];
    let mut out = String::with_capacity(rest.len() + 1);
    let mut depth = 0usize;
    let mut in_value = false;
    let mut escaped = false;
    let mut last = Last::Other;
    let mut open_at = 0;
    let mut chars = rest.char_indices().peekable();
    // Nodes in the tree so far (its `;`, written or supplied), at most [`super::MAX_NODES`]:
    // the parser's tree takes several hundred bytes a node.
    let mut nodes = 0usize;
    let too_many = || SgfError::TooLarge {
        what: "nodes (moves and variations)",
        limit: super::MAX_NODES,
    };
    // Before a token: supply the `;` of a node where one must start.
    let node_start = |out: &mut String, last: &Last, token: char, nodes: &mut usize| {
        let needs = match last {
            Last::Open => token != ';',
            Last::Close => token == '[' || token.is_ascii_alphabetic(),
            Last::Other => false,
        };
        if needs {
            out.push(';');
            *nodes += 1;
        }
    };
    while let Some((i, ch)) = chars.next() {
        if in_value {
            out.push(ch);
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == ']' {
                in_value = false;
            }
            continue;
        }
        match ch {
            ')' if last == Last::Open => {
                // An empty game tree `()`: dropped, as SGFC does.
                out.truncate(open_at);
                depth = depth.saturating_sub(1);
                last = Last::Close;
            }
            '(' | ')' | ';' | '[' => {
                node_start(&mut out, &last, ch, &mut nodes);
                if ch == ';' {
                    nodes += 1;
                }
                if nodes > super::MAX_NODES {
                    return Err(too_many());
                }
                if ch == '(' {
                    open_at = out.len();
                }
                out.push(ch);
                last = match ch {
                    '(' => Last::Open,
                    ')' => Last::Close,
                    _ => Last::Other,
                };
                match ch {
                    '(' => depth += 1,
                    ')' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return Ok(TreeText {
                                text: out,
                                closed: true,
                                open_value: false,
                            });
                        }
                    }
                    '[' => in_value = true,
                    _ => {}
                }
            }
            c if c.is_whitespace() => out.push(c),
            c if c.is_ascii_alphabetic() => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if !d.is_ascii_alphabetic() {
                        break;
                    }
                    end = j + d.len_utf8();
                    chars.next();
                }
                if rest[end..].trim_start().starts_with('[') {
                    node_start(&mut out, &last, c, &mut nodes);
                    if nodes > super::MAX_NODES {
                        return Err(too_many());
                    }
                    out.push_str(&rest[i..end]);
                    last = Last::Other;
                }
            }
            _ => {}
        }
    }
    Ok(TreeText {
        text: out,
        closed: false,
        open_value: in_value,
    })
}

/// The byte offset of the first `(` followed (after white space) by `;`, or failing that by a
/// property identifier (an upper-case letter: a node whose `;` was left out).
fn find_tree_start(text: &str) -> Option<usize> {
    let next_after = |i: usize| text[i + 1..].trim_start().chars().next();
    let opens = || text.match_indices('(').map(|(i, _)| i);
    opens()
        .find(|&i| next_after(i) == Some(';'))
        .or_else(|| opens().find(|&i| next_after(i).is_some_and(|c| c.is_ascii_uppercase())))
}

/// A syntax error, with how far a lenient parse of the same text gets.
fn syntax_error(text: &str, e: SgfParseError) -> SgfError {
    if e == SgfParseError::InvalidGameType {
        let game = text
            .find("GM[")
            .and_then(|i| text[i + 3..].split(']').next())
            .unwrap_or("")
            .to_string();
        return SgfError::NotGo { game };
    }
    let reason = match e {
        SgfParseError::LexerError(l) => l.to_string().to_lowercase(),
        other => other.to_string().to_lowercase(),
    };
    SgfError::Syntax {
        reason,
        nodes_read: nodes_readable(text),
    }
}

/// How many main-line nodes of the first game tree a lenient parse reads (a hint to where a
/// fault is).
fn nodes_readable(text: &str) -> usize {
    let options = ParseOptions {
        lenient: true,
        ..ParseOptions::default()
    };
    let mut nodes = 0;
    if let Ok(trees) = sgf_parse::parse_with_options(text, &options) {
        for (k, tree) in trees.into_iter().enumerate() {
            if k == 0 {
                nodes = match &tree {
                    GameTree::GoGame(n) => n.main_variation().count(),
                    GameTree::Unknown(n) => n.main_variation().count(),
                };
            }
            dismantle(tree);
        }
    }
    nodes
}

/// Drops a game tree without recursion (a long main line is a deep chain of nodes, and the
/// derived drop would use one stack frame per node).
fn dismantle(tree: GameTree) {
    match tree {
        GameTree::GoGame(root) => dismantle_nodes(root),
        GameTree::Unknown(root) => dismantle_nodes(root),
    }
}

fn dismantle_nodes<P: sgf_parse::SgfProp>(root: SgfNode<P>) {
    let mut stack = vec![root];
    while let Some(mut node) = stack.pop() {
        stack.append(&mut node.children);
    }
}

/// Cleans a text value: CR LF (and lone CR) become LF, surrounding white space goes, and an
/// empty value is `None`.
fn clean(s: &str) -> Option<String> {
    let s = if s.contains('\r') {
        Cow::Owned(s.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(s)
    };
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Komi in points from a `KM` value (see [`GameInfo::komi`]): Fox's × 100 values (|KM| ≥ 50)
/// are divided by 100, and a value ending in a quarter is in stones and is doubled.
pub(super) fn normalise_komi(value: f64) -> Option<f64> {
    if !value.is_finite() {
        return None;
    }
    let mut komi = value;
    if komi.abs() >= 50.0 {
        komi /= 100.0;
    }
    let quarters = komi * 4.0;
    if (quarters - quarters.round()).abs() < 1e-9 && (quarters.round() as i64).rem_euclid(2) == 1 {
        komi *= 2.0;
    }
    Some(komi)
}

/// Sets `slot` to `value` unless it is set already (the first value on the main line wins).
fn fill<T>(slot: &mut Option<T>, value: Option<T>) {
    if slot.is_none() {
        *slot = value;
    }
}

/// Handicap from an `HA` value (see [`GameInfo::handicap`]).
fn handicap(value: &str) -> u8 {
    value
        .trim()
        .parse::<i64>()
        .ok()
        .and_then(|h| u8::try_from(h).ok())
        .filter(|&h| h >= 2)
        .unwrap_or(0)
}

/// The board size from the root's `SZ`.
fn board_size(root: &SgfNode<Prop>) -> Result<u8, SgfError> {
    let raw = root.properties().find_map(|p| match p {
        Prop::SZ((a, b)) => Some(Ok((*a, *b))),
        Prop::Invalid(id, values) if id == "SZ" => Some(Err(values.join("]["))),
        _ => None,
    });
    let (a, b) = match raw {
        None => return Ok(19),
        Some(Ok(ab)) => ab,
        Some(Err(value)) => {
            // Unreadable as u8 (e.g. SZ[200], SZ[-10], SZ[19:25] with a big side).
            let sides: Vec<Option<i64>> = value
                .split(':')
                .map(|s| s.trim().parse::<i64>().ok())
                .collect();
            return Err(match sides.as_slice() {
                [Some(x), Some(y)] if x != y => SgfError::NonSquareBoard { value },
                _ => SgfError::UnsupportedSize { value },
            });
        }
    };
    let value = if a == b {
        a.to_string()
    } else {
        format!("{a}:{b}")
    };
    if a != b {
        Err(SgfError::NonSquareBoard { value })
    } else if !(MIN_BOARD_SIZE..=MAX_BOARD_SIZE).contains(&a) {
        Err(SgfError::UnsupportedSize { value })
    } else {
        Ok(a)
    }
}

/// A setup edit found in a node.
enum SetupOp {
    Place(Color, Point),
    Clear(Point),
}

/// What one main-line node holds that matters here.
#[derive(Default)]
struct NodeData {
    mv: Option<(Color, Option<Point>, String)>,
    setup: Vec<SetupOp>,
    setup_property: Option<String>,
    player: Option<Color>,
    comment: Option<String>,
    black_time: Option<f64>,
    white_time: Option<f64>,
    black_periods: Option<i64>,
    white_periods: Option<i64>,
}

fn read_root(root: &SgfNode<Prop>) -> Result<GameRecord, SgfError> {
    let size = board_size(root)?;
    let n = size as usize;
    let mut record = GameRecord::new(size);
    let mut board: Vec<Option<Color>> = vec![None; n * n];
    let mut game_comments: Vec<String> = Vec::new();
    for (k, node) in root.main_variation().enumerate() {
        let data = read_node(k, node, size, &mut record.info)?;
        // After the first move, `PL` naming the side that moves next anyway (Sabaki writes
        // `W[mo]PL[B]`) only restates the turn and is accepted; any other setup is refused.
        let last_mover = data
            .mv
            .as_ref()
            .map(|m| m.0)
            .or(record.moves.last().map(|m| m.color));
        let restated_turn = data.setup.is_empty()
            && last_mover.is_some()
            && data.player.is_some()
            && data.player == last_mover.map(Color::opposite);
        if (!data.setup.is_empty() || data.player.is_some()) && !restated_turn {
            if !record.moves.is_empty() {
                return Err(SgfError::SetupAfterMoves {
                    node: k,
                    property: data.setup_property.unwrap_or_else(|| "PL".to_string()),
                    after_move: record.moves.len(),
                });
            }
            for op in data.setup {
                match op {
                    SetupOp::Place(c, p) => board[p.index(size)] = Some(c),
                    SetupOp::Clear(p) => board[p.index(size)] = None,
                }
            }
            if data.player.is_some() {
                record.player_to_move = data.player;
            }
        }
        match data.mv {
            Some((color, point, _)) => {
                if record.moves.len() >= super::MAX_MOVES {
                    return Err(SgfError::TooLarge {
                        what: "moves in its main line",
                        limit: super::MAX_MOVES,
                    });
                }
                let (time, periods) = match color {
                    Color::Black => (data.black_time, data.black_periods),
                    Color::White => (data.white_time, data.white_periods),
                };
                record.moves.push(RecordedMove {
                    color,
                    point,
                    comment: data.comment,
                    time_left_ms: time
                        .filter(|t| t.is_finite() && *t >= 0.0 && *t < 1e15)
                        .map(|t| (t * 1000.0).round() as u64),
                    periods_left: periods.and_then(|p| u32::try_from(p).ok()),
                });
            }
            None => {
                if let Some(c) = data.comment {
                    match record.moves.last_mut() {
                        None => game_comments.push(c),
                        Some(m) => {
                            m.comment = Some(match m.comment.take() {
                                Some(before) => format!("{before}\n\n{c}"),
                                None => c,
                            })
                        }
                    }
                }
            }
        }
    }
    if !game_comments.is_empty() {
        record.info.comment = Some(game_comments.join("\n\n"));
    }
    for colour in Color::ALL {
        for (i, c) in board.iter().enumerate() {
            if *c == Some(colour) {
                record.setup.push((colour, Point::from_index(i, size)));
            }
        }
    }
    Ok(record)
}

/// Reads one node: its move, setup, comment and clock, and fills game information that is
/// not set yet (the first value on the main line wins).
fn read_node(
    k: usize,
    node: &SgfNode<Prop>,
    size: u8,
    info: &mut GameInfo,
) -> Result<NodeData, SgfError> {
    let mut data = NodeData::default();
    let point_of = |property: &str, p: &sgf_parse::go::Point| -> Result<Point, SgfError> {
        let q = Point::new(p.x, p.y);
        if q.is_on_board(size) {
            Ok(q)
        } else {
            Err(SgfError::PointOffBoard {
                node: k,
                property: property.to_string(),
                value: q.to_sgf(),
                size,
            })
        }
    };
    // SimpleText (FF[4]): a line break is a space; the value is trimmed
    let set_text = |slot: &mut Option<String>, text: &str| {
        if slot.is_none() {
            *slot = super::simple_text(text);
        }
    };
    for prop in node.properties() {
        match prop {
            Prop::B(m) | Prop::W(m) => {
                let color = if matches!(prop, Prop::B(_)) {
                    Color::Black
                } else {
                    Color::White
                };
                let (point, text) = match m {
                    Move::Pass => (None, String::new()),
                    Move::Move(p) => {
                        let q = Point::new(p.x, p.y);
                        if q.is_on_board(size) {
                            (Some(q), q.to_sgf())
                        } else if (p.x, p.y) == (19, 19) && size <= MAX_BOARD_SIZE {
                            (None, "tt".to_string())
                        } else {
                            return Err(SgfError::PointOffBoard {
                                node: k,
                                property: color.sgf_letter().to_string(),
                                value: q.to_sgf(),
                                size,
                            });
                        }
                    }
                };
                let letter = color.sgf_letter();
                if let Some((c0, _, t0)) = &data.mv {
                    return Err(SgfError::TwoMovesInNode {
                        node: k,
                        first: format!("{}[{t0}]", c0.sgf_letter()),
                        second: format!("{letter}[{text}]"),
                    });
                }
                data.mv = Some((color, point, text));
            }
            Prop::AB(points) | Prop::AW(points) | Prop::AE(points) => {
                let id = prop.identifier();
                let mut sorted: Vec<&sgf_parse::go::Point> = points.iter().collect();
                sorted.sort_by_key(|p| (p.y, p.x));
                for p in sorted {
                    let q = point_of(&id, p)?;
                    data.setup.push(match prop {
                        Prop::AB(_) => SetupOp::Place(Color::Black, q),
                        Prop::AW(_) => SetupOp::Place(Color::White, q),
                        _ => SetupOp::Clear(q),
                    });
                }
                data.setup_property.get_or_insert(id);
            }
            Prop::PL(c) => {
                data.player = Some(match c {
                    sgf_parse::Color::Black => Color::Black,
                    sgf_parse::Color::White => Color::White,
                });
            }
            Prop::C(t) => data.comment = clean(&t.text),
            Prop::BL(v) => data.black_time = Some(*v),
            Prop::WL(v) => data.white_time = Some(*v),
            Prop::OB(v) => data.black_periods = Some(*v),
            Prop::OW(v) => data.white_periods = Some(*v),
            Prop::KM(v) => fill(&mut info.komi, normalise_komi(*v)),
            Prop::HA(v) if info.handicap == 0 => info.handicap = handicap(&v.to_string()),
            Prop::TM(v) => fill(&mut info.time_limit, Some(*v).filter(|t| t.is_finite())),
            Prop::RU(t) => set_text(&mut info.rules, &t.text),
            Prop::PB(t) => set_text(&mut info.black, &t.text),
            Prop::PW(t) => set_text(&mut info.white, &t.text),
            Prop::BR(t) => set_text(&mut info.black_rank, &t.text),
            Prop::WR(t) => set_text(&mut info.white_rank, &t.text),
            Prop::EV(t) => set_text(&mut info.event, &t.text),
            Prop::RO(t) => set_text(&mut info.round, &t.text),
            Prop::DT(t) => set_text(&mut info.date, &t.text),
            Prop::PC(t) => set_text(&mut info.place, &t.text),
            Prop::GN(t) => set_text(&mut info.game_name, &t.text),
            Prop::RE(t) => set_text(&mut info.result, &t.text),
            Prop::OT(t) => set_text(&mut info.overtime, &t.text),
            Prop::US(t) => set_text(&mut info.user, &t.text),
            Prop::BT(t) => set_text(&mut info.black_team, &t.text),
            Prop::WT(t) => set_text(&mut info.white_team, &t.text),
            Prop::GC(t) if info.game_comment.is_none() => info.game_comment = clean(&t.text),
            Prop::Invalid(id, values) => {
                let value = values.join("][");
                let bad = |expected: &'static str| SgfError::BadValue {
                    node: k,
                    property: id.clone(),
                    value: value.clone(),
                    expected,
                };
                match id.as_str() {
                    "B" | "W" => {
                        return Err(bad("move (two letters, e.g. dp, or empty for a pass)"))
                    }
                    // An empty point list places nothing; anything else must be read.
                    "AB" | "AW" | "AE" if values.iter().any(|v| !v.trim().is_empty()) => {
                        return Err(bad("list of points"))
                    }
                    "PL" => return Err(bad("colour (B or W)")),
                    "KM" => fill(
                        &mut info.komi,
                        value.trim().parse::<f64>().ok().and_then(normalise_komi),
                    ),
                    "HA" if info.handicap == 0 => info.handicap = handicap(&value),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn komi_normalisation() {
        assert_eq!(normalise_komi(6.5), Some(6.5));
        assert_eq!(normalise_komi(7.5), Some(7.5));
        assert_eq!(normalise_komi(650.0), Some(6.5));
        assert_eq!(normalise_komi(750.0), Some(7.5));
        assert_eq!(normalise_komi(375.0), Some(7.5), "Tencent: 3¾ stones");
        assert_eq!(normalise_komi(3.75), Some(7.5));
        assert_eq!(normalise_komi(0.0), Some(0.0));
        assert_eq!(normalise_komi(-1.5), Some(-1.5));
        assert_eq!(normalise_komi(-650.0), Some(-6.5));
        assert_eq!(normalise_komi(f64::NAN), None);
    }

    #[test]
    fn handicap_values() {
        assert_eq!(handicap("2"), 2);
        assert_eq!(handicap(" 9 "), 9);
        assert_eq!(handicap("1"), 0);
        assert_eq!(handicap("0"), 0);
        assert_eq!(handicap("7.5"), 0);
        assert_eq!(handicap("400"), 0);
        assert_eq!(handicap("x"), 0);
    }

    #[test]
    fn tree_boundaries() {
        let text = |t: &str| first_game_tree(t).map(|t| (t.text, t.closed));
        let t = "junk (not a tree) (;C[a ) ( \\] b];B[aa](;W[bb])(;W[cc]))(;B[dd])";
        assert_eq!(
            text(t),
            Ok(("(;C[a ) ( \\] b];B[aa](;W[bb])(;W[cc]))".into(), true))
        );
        assert_eq!(text("no tree"), Err(SgfError::NoGameTree));
        assert_eq!(text("(;B[aa]"), Ok(("(;B[aa]".into(), false)));
    }

    #[test]
    fn junk_is_dropped_and_missing_node_starts_supplied() {
        let text = |t: &str| first_game_tree(t).map(|t| t.text).unwrap();
        assert_eq!(text("(\r\nPB[x];B[aa])"), "(\r\n;PB[x];B[aa])");
        assert_eq!(
            text("(;W[rp]\n#N/A\n;W[pn] illegal_chars FF [4] CoPyright[x])"),
            "(;W[rp]\n\n;W[pn]  FF [4] CoPyright[x])"
        );
        assert_eq!(text("(;A[]((;B[]))C[])"), "(;A[](;(;B[]));C[])");
        assert_eq!(text("(;A[]([x]))"), "(;A[](;[x]))");
        assert_eq!(text("(;A[]()(;))"), "(;A[](;))");
        assert_eq!(text("(;A[]( \n)B[])"), "(;A[];B[])");
    }

    #[test]
    fn text_cleaning() {
        assert_eq!(clean("\n172\n白胜\n"), Some("172\n白胜".to_string()));
        assert_eq!(clean(" a\r\nb\r"), Some("a\nb".to_string()));
        assert_eq!(clean(" \n "), None);
    }

    /// A record of `moves` passes, one node each, alternating from Black.
    fn passes(moves: usize) -> String {
        let nodes: String = (0..moves)
            .map(|i| if i % 2 == 0 { ";B[]" } else { ";W[]" })
            .collect();
        format!("(;GM[1]FF[4]SZ[19]{nodes})")
    }

    #[test]
    fn a_record_larger_than_any_game_is_refused_whole() {
        // the main line: MAX_MOVES moves are read, one more is too many
        assert_eq!(
            read(&passes(super::super::MAX_MOVES)).unwrap().moves.len(),
            10_000
        );
        assert_eq!(
            read(&passes(super::super::MAX_MOVES + 1)),
            Err(SgfError::TooLarge {
                what: "moves in its main line",
                limit: 10_000
            })
        );
        // nodes, counted before the parser builds its tree, variations and supplied `;`
        // included
        let too_many = Err(SgfError::TooLarge {
            what: "nodes (moves and variations)",
            limit: 50_000,
        });
        assert_eq!(
            read(&passes(super::super::MAX_NODES)),
            too_many,
            "the root is one"
        );
        let variations = format!("(;SZ[9]{})", "(;B[aa])".repeat(super::super::MAX_NODES));
        assert_eq!(read(&variations), too_many);
        let supplied = format!("(;SZ[9]{})", "(B[aa])".repeat(super::super::MAX_NODES));
        assert_eq!(read(&supplied), too_many);
        let unclosed = format!("(;SZ[9]{}", ";B[]".repeat(super::super::MAX_NODES));
        assert_eq!(read(&unclosed), too_many);
        // exactly MAX_NODES nodes are read: what stops this one is its main line
        assert_eq!(
            read(&passes(super::super::MAX_NODES - 1)),
            Err(SgfError::TooLarge {
                what: "moves in its main line",
                limit: 10_000
            })
        );
    }
}
