//! SGF in and out: quirks of real files, clear errors, round trips, and robustness on the
//! edge-case files of `tests/fixtures/sgf-edge` (and the whole `../shared/data/sgf-edge` where
//! it exists).

use proptest::prelude::*;
use smartgoban::rules::sgf::{ff4, MAX_MOVES, MAX_NODES};
use smartgoban::rules::{Color, GameInfo, GameRecord, Point, RecordedMove, SgfError};
use std::path::{Path, PathBuf};

fn p(s: &str) -> Point {
    Point::from_sgf(s, 19).expect("sgf point")
}

fn read(text: &str) -> GameRecord {
    GameRecord::from_sgf_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn err(text: &str) -> SgfError {
    GameRecord::from_sgf_str(text).expect_err("should not read")
}

#[test]
fn moves_passes_and_clock() {
    let r = read("(;GM[1]SZ[19];B[dp]BL[598.5]OB[3];W[tt]WL[12];B[]C[pass];W[pd]OW[1])");
    assert_eq!(r.moves.len(), 4);
    assert_eq!(r.moves[0].point, Some(p("dp")));
    assert_eq!(r.moves[0].time_left_ms, Some(598_500));
    assert_eq!(r.moves[0].periods_left, Some(3));
    assert_eq!(
        r.moves[1],
        RecordedMove {
            time_left_ms: Some(12_000),
            ..RecordedMove::new(Color::White, None)
        }
    );
    assert_eq!(r.moves[2].point, None);
    assert_eq!(r.moves[2].comment.as_deref(), Some("pass"));
    assert_eq!(r.moves[3].periods_left, Some(1));
    // tt is a pass on 9×9 too.
    let nine = read("(;SZ[9];B[tt];W[ee])");
    assert_eq!(nine.moves[0].point, None);
    assert_eq!(nine.moves[1].point, Some(Point::new(4, 4)));
}

#[test]
fn komi_and_handicap_normalisation() {
    assert_eq!(read("(;KM[650])").info.komi, Some(6.5));
    assert_eq!(read("(;KM[750])").info.komi, Some(7.5));
    assert_eq!(read("(;KM[375])").info.komi, Some(7.5));
    assert_eq!(read("(;KM[7.5])").info.komi, Some(7.5));
    assert_eq!(read("(;KM[-1.5])").info.komi, Some(-1.5));
    assert_eq!(read("(;KM[x])").info.komi, None);
    assert_eq!(read("(;HA[1]KM[0])").info.handicap, 0);
    assert_eq!(read("(;HA[7.5])").info.handicap, 0);
    assert_eq!(read("(;HA[3])").info.handicap, 3);
    assert_eq!(
        read("(;TM[1800]OT[5x30 byo-yomi])").info.time_limit,
        Some(1800.0)
    );
}

#[test]
fn text_values_are_trimmed_and_kept_whole() {
    let r = read("(;RE[\n172\n白胜\n]PB[\n盛大有\n]C[ line1\r\nline2 ]GN[]EV[ ])");
    // SimpleText: a line break inside is a space (FF[4] §2.2), like a name's
    assert_eq!(r.info.result.as_deref(), Some("172 白胜"));
    assert_eq!(r.info.black.as_deref(), Some("盛大有"));
    assert_eq!(r.info.comment.as_deref(), Some("line1\nline2"));
    assert_eq!(r.info.game_name, None);
    assert_eq!(r.info.event, None);
    let r = read("(;PW[ Lee\n Sedol ]EV[a\r\n\r\nb]GC[ two\r\nlines ])");
    assert_eq!(r.info.white.as_deref(), Some("Lee Sedol"));
    assert_eq!(r.info.event.as_deref(), Some("a b"));
    assert_eq!(
        r.info.game_comment.as_deref(),
        Some("two\nlines"),
        "GC is Text"
    );
}

#[test]
fn setup_before_the_first_move_is_merged() {
    // YuanYu writes handicap stones in node 1; AE removes; later PL restating the turn is fine.
    let r = read("(;SZ[19]HA[2]AB[aa][bb];AB[pd][dp]AE[aa]C[setup];W[qp]PL[B];B[dd])");
    assert_eq!(
        r.setup,
        vec![
            (Color::Black, p("bb")),
            (Color::Black, p("pd")),
            (Color::Black, p("dp"))
        ]
    );
    assert_eq!(r.info.comment.as_deref(), Some("setup"));
    assert_eq!(r.first_to_move(), Color::White);
    assert_eq!(r.player_to_move, None);
    // Compressed point lists.
    let r = read("(;SZ[9]AW[aa:bb])");
    assert_eq!(r.setup.len(), 4);
}

#[test]
fn first_to_move_rules() {
    assert_eq!(read("(;PL[W];B[aa])").first_to_move(), Color::White);
    assert_eq!(read("(;W[aa])").first_to_move(), Color::White);
    assert_eq!(read("(;HA[2]AB[dd][pp])").first_to_move(), Color::White);
    assert_eq!(read("(;AB[dd][pp])").first_to_move(), Color::Black);
    assert_eq!(read("(;)").first_to_move(), Color::Black);
}

#[test]
fn variations_are_dropped_main_line_kept() {
    let r = read("(;B[aa](;W[bb];B[cc])(;W[dd]))(;B[ee])");
    let pts: Vec<_> = r.moves.iter().map(|m| m.point).collect();
    assert_eq!(pts, vec![Some(p("aa")), Some(p("bb")), Some(p("cc"))]);
}

#[test]
fn clear_errors() {
    assert_eq!(err("no sgf here"), SgfError::NoGameTree);
    assert_eq!(err(""), SgfError::NoGameTree);
    assert_eq!(
        err("(;SZ[19:13])"),
        SgfError::NonSquareBoard {
            value: "19:13".into()
        }
    );
    assert_eq!(
        err("(;SZ[25])"),
        SgfError::UnsupportedSize { value: "25".into() }
    );
    assert_eq!(
        err("(;SZ[200])"),
        SgfError::UnsupportedSize {
            value: "200".into()
        }
    );
    assert_eq!(
        err("(;SZ[-10])"),
        SgfError::UnsupportedSize {
            value: "-10".into()
        }
    );
    assert_eq!(err("(;GM[12])"), SgfError::NotGo { game: "12".into() });
    assert!(matches!(
        err("(;SZ[9];B[aa];W[jj])"),
        SgfError::PointOffBoard { node: 2, ref property, ref value, size: 9 } if property == "W" && value == "jj"
    ));
    assert!(matches!(
        err("(;B[aa];W[a1])"),
        SgfError::BadValue { node: 1, ref property, .. } if property == "W"
    ));
    assert!(matches!(
        err("(;B[aa]W[bb])"),
        SgfError::TwoMovesInNode { node: 0, .. }
    ));
    let e = err("(;B[aa];W[bb];AB[cc];B[dd])");
    assert_eq!(
        e,
        SgfError::SetupAfterMoves {
            node: 2,
            property: "AB".into(),
            after_move: 2
        }
    );
    assert!(e.to_string().contains("node 2"), "{e}");
    assert!(matches!(
        err("(;PL[W];B[aa];PL[B])"),
        SgfError::SetupAfterMoves { .. }
    ));
    let e = err("(;B[aa];W[bb];C[unclosed");
    assert!(matches!(e, SgfError::Syntax { nodes_read: 3, .. }), "{e:?}");
    assert!(e.to_string().contains("malformed"), "{e}");
}

#[test]
fn junk_is_ignored_around_and_between_nodes() {
    let r = read("Some mail header (not SGF)\n(;GM[1];B[aa]\n#N/A\n;W[bb]) trailing (;B[cc])");
    assert_eq!(r.moves.len(), 2);
    // A missing `;` after the first `(` (Nihon Ki-in files).
    let r = read("(\nPB[x]\n;B[aa])");
    assert_eq!(r.info.black.as_deref(), Some("x"));
    assert_eq!(r.moves.len(), 1);
}

#[test]
fn written_sgf_has_the_agreed_shape() {
    let mut r = GameRecord::new(19);
    r.info.komi = Some(7.5);
    r.moves.push(RecordedMove::new(Color::Black, Some(p("pd"))));
    r.moves.push(RecordedMove::new(Color::White, None));
    let text = r.to_sgf();
    let head = format!(
        "(;FF[4]GM[1]CA[UTF-8]AP[smartgoban:{}]SZ[19]KM[7.5]",
        env!("CARGO_PKG_VERSION")
    );
    assert!(text.starts_with(&head), "{text}");
    assert!(text.contains(";B[pd];W[])"), "{text}");
    assert_eq!(read(&text), r);
}

#[test]
fn long_and_malformed_files_do_not_exhaust_the_stack() {
    // A game tree is a chain of nodes; nothing may recurse once per node (test threads have
    // small stacks). The longest record read is MAX_MOVES moves long.
    let n = MAX_MOVES / 2;
    let moves = ";B[];W[]".repeat(n);
    let long = read(&format!("(;SZ[9]{moves})"));
    assert_eq!(long.moves.len(), 2 * n);
    assert_eq!(read(&long.to_sgf()), long);
    let e = err(&format!("(;SZ[9]{moves};C[unclosed)"));
    assert!(
        matches!(e, SgfError::Syntax { nodes_read, .. } if nodes_read > 2 * n),
        "{e}"
    );
    let e = err(&format!("(;SZ[9]{moves}"));
    assert!(e.to_string().contains("not closed"), "{e}");
    // A variation that starts without `;` becomes a node, as SGFC repairs it.
    let fewer = ";B[];W[]".repeat(n - 1);
    assert_eq!(
        read(&format!("(;SZ[9]{fewer}(B[aa]))")).moves.len(),
        2 * (n - 1) + 1
    );
    // Variations nested as deep as the node limit allows: read (the main line is the first
    // child each time), or refused as too large, never a stack overflow.
    let deep = MAX_NODES - 2;
    let nested = format!("(;SZ[9]{}{})", "(;B[]".repeat(deep), ")".repeat(deep));
    match GameRecord::from_sgf_str(&nested) {
        Ok(r) => assert_eq!(r.moves.len(), deep.min(MAX_MOVES)),
        Err(e) => assert!(matches!(e, SgfError::TooLarge { .. }), "{e}"),
    }
}

fn tricky() -> GameRecord {
    let mut r = GameRecord::new(13);
    r.info = GameInfo {
        size: 13,
        komi: Some(-3.5),
        handicap: 4,
        rules: Some("Chinese".into()),
        black: Some("黑 ]\\ name: with [brackets]".into()),
        white: Some("White\\".into()),
        black_rank: Some("9段".into()),
        white_rank: Some("1p".into()),
        event: Some("第1回 ソパルコサノル]".into()),
        round: Some("3:2".into()),
        date: Some("2025-06-12,13".into()),
        place: Some("韓国棋院".into()),
        game_name: Some("a\\]b".into()),
        result: Some("W+R".into()),
        time_limit: Some(5400.0),
        overtime: Some("5x30 byo-yomi".into()),
        comment: Some("Game comment:\nline two ] \\ :\n\nline four".into()),
        game_comment: Some("Final of the 3rd ] cup\nbroadcast live".into()),
        user: Some("smartgoban \\ operator".into()),
        black_team: Some("Seoul".into()),
        white_team: Some("北京".into()),
    };
    r.setup = vec![
        (Color::Black, Point::new(3, 3)),
        (Color::White, Point::new(9, 9)),
    ];
    r.player_to_move = Some(Color::White);
    r.moves = vec![
        RecordedMove {
            comment: Some("C with ] and \\ and : and 中文".into()),
            time_left_ms: Some(1_234),
            periods_left: Some(5),
            ..RecordedMove::new(Color::White, Some(Point::new(12, 0)))
        },
        RecordedMove::new(Color::Black, None),
        RecordedMove {
            time_left_ms: Some(0),
            ..RecordedMove::new(Color::White, Some(Point::new(0, 12)))
        },
    ];
    r
}

/// `RE` and `DT` are written in FF[4] form; what cannot be mapped whole is kept as written
/// in `GC`, beside the part that maps; `GC`, `US`, `BT`, `WT` are kept (issue 15, item 11).
#[test]
fn results_and_dates_are_written_in_ff4_form_and_nothing_is_lost() {
    let source = read(
        "(;GM[1]FF[4]SZ[19]RE[黑胜14子]DT[2016-12-29 19:01:34]GC[Final]US[Fox]BT[Seoul]WT[北京];B[pd])",
    );
    let text = source.to_sgf();
    for property in [
        "RE[B+]",
        "DT[2016-12-29]",
        "US[Fox]",
        "BT[Seoul]",
        "WT[北京]",
    ] {
        assert!(text.contains(property), "{property} in {text}");
    }
    let again = read(&text);
    assert_eq!(
        again.info.game_comment.as_deref(),
        Some("Final\nDT as recorded: 2016-12-29 19:01:34\nRE as recorded: 黑胜14子")
    );
    assert_eq!(again.info.result.as_deref(), Some("B+"));
    assert_eq!(again.info.date.as_deref(), Some("2016-12-29"));
    assert_eq!(again.to_sgf(), text, "written once, the same ever after");
    // mapped whole: nothing to keep
    let mapped = read("(;RE[W+Resign]DT[2011.03.05];W[dd])").to_sgf();
    assert!(
        mapped.contains("RE[W+Resign]") && mapped.contains("DT[2011-03-05]"),
        "{mapped}"
    );
    assert!(!mapped.contains("GC["), "{mapped}");
    let mapped = read("(;RE[draw]DT[1998年];W[dd])").to_sgf();
    assert!(
        mapped.contains("RE[0]") && mapped.contains("DT[1998]"),
        "{mapped}"
    );
    // nothing maps: no RE or DT, the values in GC
    let kept = read("(;RE[black wins]DT[summer];W[dd])").to_sgf();
    assert!(!kept.contains("RE[") && !kept.contains("DT["), "{kept}");
    assert_eq!(
        read(&kept).info.game_comment.as_deref(),
        Some("DT as recorded: summer\nRE as recorded: black wins")
    );
}

#[test]
fn tricky_text_round_trips() {
    let r = tricky();
    let text = r.to_sgf();
    assert_eq!(GameRecord::from_sgf_str(&text), Ok(r.clone()), "{text}");
    assert_eq!(GameRecord::from_sgf_bytes(text.as_bytes()), Ok(r));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any text in the game information and comments reads back as the writer puts it: in
    /// FF[4] form ([`GameInfo::ff4_form`]: one line, `RE`/`DT` mapped or kept in `GC`),
    /// comments as written after trimming; and that form is written again unchanged.
    #[test]
    fn any_text_round_trips(
        name in "[\\PC\n]{0,30}",
        comment in "[\\PC\n]{0,60}",
        result in "[a-zBW0-9黑白胜负中盘子半\\]\\\\:+.\n ]{0,12}",
        date in "[0-9年月日.:/\\- ,\n]{0,20}",
    ) {
        let mut r = tricky();
        r.info.black = Some(name);
        r.info.result = Some(result);
        r.info.date = Some(date);
        r.moves[1].comment = Some(comment).as_deref().map(str::trim).filter(|s| !s.is_empty()).map(String::from);
        let written = GameRecord {
            info: r.info.ff4_form(),
            ..r.clone()
        };
        prop_assert!(written.info.result.as_deref().is_none_or(ff4::is_result), "{:?}", written.info.result);
        prop_assert!(written.info.date.as_deref().is_none_or(ff4::is_date), "{:?}", written.info.date);
        prop_assert_eq!(&written.info.ff4_form(), &written.info, "the form is a fixed point");
        let again = GameRecord::from_sgf_str(&r.to_sgf());
        prop_assert_eq!(again, Ok(written.clone()));
        prop_assert_eq!(written.to_sgf(), r.to_sgf());
    }

    /// Arbitrary bytes never panic the reader.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = GameRecord::from_sgf_bytes(&bytes);
    }

    /// SGF-like text built from SGF's own characters never panics the reader either.
    #[test]
    fn sgf_like_text_never_panics(text in "[();\\[\\]\\\\A-Za-z:0-9 \n]{0,200}") {
        let _ = GameRecord::from_sgf_str(&text);
        let _ = GameRecord::from_sgf_str(&format!("(;{text})"));
    }
}

fn edge_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("readable").flatten() {
        let p = e.path();
        if p.is_dir() {
            edge_files(&p, out);
        } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
            out.push(p);
        }
    }
}

/// Reads every file of `dir`: each either reads (and then round-trips) or gives an `SgfError`.
fn edge_folder(dir: &Path) -> Vec<(String, Result<GameRecord, SgfError>)> {
    let mut files = Vec::new();
    edge_files(dir, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let bytes = std::fs::read(&f).expect("readable");
            let name = f
                .strip_prefix(dir)
                .expect("inside")
                .to_string_lossy()
                .replace('\\', "/");
            let result = GameRecord::from_sgf_bytes(&bytes);
            if let Ok(r) = &result {
                let written = GameRecord {
                    info: r.info.ff4_form(),
                    ..r.clone()
                };
                assert_eq!(GameRecord::from_sgf_str(&r.to_sgf()), Ok(written), "{name}");
            }
            (name, result)
        })
        .collect()
}

#[test]
fn edge_fixtures_read_or_fail_cleanly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sgf-edge");
    let results = edge_folder(&dir);
    assert_eq!(results.len(), 13);
    let get = |name: &str| {
        results
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r.clone())
            .unwrap_or_else(|| panic!("{name} missing"))
    };
    // Shift_JIS without CA, byte 0x5C inside ソ, no `;` after `(`.
    let nk = get("sabaki-sgf/encoding/nihon-kiin.sgf").expect("nihon-kiin reads");
    assert_eq!(nk.info.black.as_deref(), Some("申眞ソ"));
    assert_eq!(nk.info.white.as_deref(), Some("党毅飛"));
    assert_eq!(nk.info.place.as_deref(), Some("韓国棋院"));
    assert_eq!(nk.info.result.as_deref(), Some("257手完, 黒中押し勝ち"));
    assert_eq!(nk.moves.len(), 8);
    let u16le = get("sabaki-sgf/utf16le.sgf").expect("UTF-16LE reads");
    assert_eq!(u16le.info.white.as_deref(), Some("Go Seigen"));
    assert_eq!(u16le.moves.len(), 164);
    let u16be = get("libsgfcplusplus/encoding-utf16-nobom.sgf").expect("UTF-16BE reads");
    assert!(u16be.info.comment.is_some());
    let sjis = get("libsgfcplusplus/encoding-japanese-shiftjis.sgf").expect("Shift_JIS reads");
    assert!(
        sjis.info
            .comment
            .as_deref()
            .is_some_and(|c| c.contains("東アジア")),
        "{:?}",
        sjis.info.comment
    );
    let gb = get("libsgfcplusplus/encoding-simplifiedchinese-gb2312.sgf").expect("EUC-CN reads");
    assert!(gb
        .info
        .comment
        .as_deref()
        .is_some_and(|c| !c.contains('\u{FFFD}')));
    let chinese = get("sabaki-sgf/chinese.sgf").expect("GB2312 reads");
    assert_eq!(chinese.info.black.as_deref(), Some("古力"));
    let old = get("katrain/xmgt97.sgf").expect("FF[1] long names read");
    assert_eq!((old.info.size, old.info.komi), (9, Some(-1.5)));
    let igs = get("katrain/panda1.sgf").expect("IGS reads");
    assert!(igs.moves.iter().any(|m| m.point.is_none()));
    assert!(get("sgf-parse/ff4_ex.sgf").is_ok());
    assert!(matches!(
        get("sgfc/escaping.sgf"),
        Err(SgfError::NotGo { .. })
    ));
    assert!(get("sgfc/test.sgf").is_err());
    assert!(get("sgfc/mixed-encoding.sgf").is_ok());
}

/// Every edge-case file of `../shared/data/sgf-edge` where it exists, else the fixtures:
/// each reads or is refused with a specific error, never a panic.
#[test]
fn whole_edge_folder_never_panics() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/sgf-edge");
    let (dir, expected) = if shared.is_dir() {
        (shared, 51)
    } else {
        (
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sgf-edge"),
            13,
        )
    };
    let results = edge_folder(&dir);
    assert_eq!(results.len(), expected);
    for (name, r) in &results {
        if let Err(e) = r {
            // Every refusal says something specific.
            assert!(!e.to_string().is_empty(), "{name}");
        }
    }
}
