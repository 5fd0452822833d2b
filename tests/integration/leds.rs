//! The LED renderer on real positions (issue 5): golden frames for every state the board can
//! show, checked against plain files in `tests/fixtures/leds/` (regenerate with
//! `SMARTGOBAN_BLESS=1` and review the diff), with the right points asserted independently of
//! the files; the current budget over any scene (property test).

use std::path::Path;

use proptest::prelude::*;
use smartgoban::leds::{self, LedSettings, Role, Scene, Slot};
use smartgoban::referee::GameSetup;
use smartgoban::rules::{Color, Game, GameRecord, Point};
use smartgoban::sensing::StoneGrid;
use smartgoban::session::{Input, LinkInfo, Session, SessionConfig};
use smartgoban_protocol::{ButtonCounters, Cell, PackedCells, Scan};

use crate::support::{read_record, root};

const GAME: &str =
    "tests/fixtures/games/yenw-computer-go-dataset/master/39-2017.01.02-Iyama_Yuta-Master.sgf";
const KO_GAME: &str =
    "tests/fixtures/games/yenw-computer-go-dataset/The 11th Computer Go UEC Cup/day1/6-QuinoaIgo-Kugutsu.sgf";

/// A session fed with settled boards, 20 ms per scan, as the board would send them.
struct Table {
    session: Session,
    size: u8,
    counter: u32,
    board_ms: u32,
    buttons: [u8; 6],
    /// The rules' view of the game, move by move, to know what the board should show.
    game: Game,
}

impl Table {
    fn new(record: &GameRecord) -> Table {
        let setup = GameSetup::from_record(record);
        let mut session = Session::new(SessionConfig::default(), &setup).unwrap();
        let size = setup.size();
        session
            .handle_input(
                Input::LinkUp(LinkInfo {
                    board_size: size,
                    firmware_version: 1,
                    device_id: 1,
                    scan_rate_hz: 50,
                    ..Default::default()
                }),
                0,
            )
            .unwrap();
        let mut table = Table {
            session,
            size,
            counter: 0,
            board_ms: 0,
            buttons: [0; 6],
            game: start_game(&setup),
        };
        let start = StoneGrid::from_board(table.game.board());
        table.show(&start, 400);
        table
    }

    /// The board shows `grid` for `ms`.
    fn show(&mut self, grid: &StoneGrid, ms: u32) {
        let cells = PackedCells::from_cells(
            smartgoban_protocol::BoardSize::new(self.size).unwrap(),
            (0..usize::from(self.size) * usize::from(self.size)).map(|i| match grid.at_index(i) {
                None => Cell::Empty,
                Some(Color::Black) => Cell::Black,
                Some(Color::White) => Cell::White,
            }),
        )
        .unwrap();
        for _ in 0..ms / 20 {
            let scan = Scan {
                scan_counter: self.counter,
                board_ms: self.board_ms,
                buttons: ButtonCounters::from_bytes(self.buttons),
                cells,
            };
            self.counter += 1;
            self.board_ms += 20;
            self.session
                .handle_input(Input::Scan(scan), u64::from(self.board_ms))
                .unwrap();
            while self.session.poll_output().is_some() {}
        }
    }

    fn grid(&self) -> StoneGrid {
        StoneGrid::from_board(self.game.board())
    }

    /// Plays the record's moves up to move `upto` (1-based, included), each settled for 400 ms.
    fn play(&mut self, record: &GameRecord, upto: usize) {
        for m in &record.moves[self.game.move_number() as usize..upto] {
            self.game.play(m.color, m.point).unwrap();
            if m.point.is_none() {
                self.press_pass(m.color);
            }
            let grid = self.grid();
            self.show(&grid, 400);
        }
        assert_eq!(
            self.session.record().moves.len(),
            upto,
            "the session follows"
        );
    }

    fn press_pass(&mut self, color: Color) {
        let i = if color == Color::Black { 0 } else { 1 };
        self.buttons[i] = self.buttons[i].wrapping_add(1);
    }

    fn frame(&self) -> leds::Frame {
        leds::render(&self.session.led_scene(), &LedSettings::default())
    }

    fn gtp(&self, p: Point) -> String {
        p.to_gtp(self.size)
    }

    /// Points (GTP, sorted) whose role is `role`.
    fn points_with(&self, frame: &leds::Frame, role: Role) -> Vec<String> {
        let mut v: Vec<String> = frame
            .roles
            .iter()
            .enumerate()
            .filter(|(_, r)| **r == Some(role))
            .map(|(i, _)| self.gtp(Point::from_index(i, self.size)))
            .collect();
        v.sort();
        v
    }
}

fn start_game(setup: &GameSetup) -> Game {
    Game::with_setup(setup.size(), &setup.setup, setup.first_to_move).unwrap()
}

/// The first move (1-based) of `record` after `from` for which `pred(game before, move)` holds.
fn find_move(
    record: &GameRecord,
    from: usize,
    mut pred: impl FnMut(&Game, Color, Point) -> bool,
) -> usize {
    let mut game = start_game(&GameSetup::from_record(record));
    for (i, m) in record.moves.iter().enumerate() {
        if i >= from {
            if let Some(p) = m.point {
                if pred(&game, m.color, p) {
                    return i + 1;
                }
            }
        }
        game.play(m.color, m.point).unwrap();
    }
    panic!("no such move in the game");
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// The frame as text: the palette (colour and effect of every slot used), one character per
/// point (top row first, as seen from Black), and the points of each role other than `star`.
fn describe(frame: &leds::Frame, title: &str) -> String {
    let size = frame.size();
    let ch = |slot: Slot| slot.symbol();
    let mut out = format!("# {title}\n");
    out += &format!(
        "# peak current {} mA\n",
        frame.peak_current_ua.div_ceil(1000)
    );
    let mut used: Vec<Slot> = (0..frame.roles.len()).map(|i| frame.slot(i)).collect();
    used.sort_by_key(|s| s.index());
    used.dedup();
    for slot in used {
        let paint = frame.leds.palette[usize::from(slot.index())];
        out += &format!(
            "palette {} {:?}: rgb {:?} {:?}\n",
            ch(slot),
            slot,
            paint.rgb,
            paint.effect
        );
    }
    out += &leds::diagram(size, |i| frame.leds.cells.get(i));
    let mut roles: Vec<(Role, String)> = frame
        .roles
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            r.filter(|r| *r != Role::Star)
                .map(|r| (r, Point::from_index(i, size).to_gtp(size)))
        })
        .collect();
    roles.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()).then(a.1.cmp(&b.1)));
    let mut last: Option<Role> = None;
    for (role, p) in roles {
        if last != Some(role) {
            out += &format!("\n{}:", role.as_str());
            last = Some(role);
        }
        out += &format!(" {p}");
    }
    out += "\n";
    if let Some(next) = frame.next {
        out += &format!("next: {}\n", next.to_gtp(size));
    }
    out
}

/// Compares with `tests/fixtures/leds/NAME.txt` (written when `SMARTGOBAN_BLESS=1`).
fn golden(name: &str, text: &str) {
    let path = root()
        .join("tests/fixtures/leds")
        .join(format!("{name}.txt"));
    if std::env::var_os("SMARTGOBAN_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with SMARTGOBAN_BLESS=1 to write it)",
            path.display()
        )
    });
    assert_eq!(
        text,
        want,
        "{name}: the frame differs from {}",
        path.display()
    );
}

fn record(path: &str) -> GameRecord {
    read_record(Path::new(&root().join(path)))
}

#[test]
fn golden_idle_link_lost_last_move_and_ko() {
    let rec = record(GAME);
    let mut t = Table::new(&rec);
    let f = t.frame();
    assert_eq!(t.points_with(&f, Role::Star).len(), 9);
    assert!(!f.animated());
    golden(
        "idle",
        &describe(&f, "idle: the empty board before the first move"),
    );

    t.session
        .handle_input(
            Input::LinkDown {
                reason: "unplugged".into(),
            },
            1,
        )
        .unwrap();
    let f = t.frame();
    assert!(f.animated(), "star points breathe while the link is lost");
    golden(
        "link_lost",
        &describe(&f, "link lost: the star points breathe"),
    );

    let rec2 = record(GAME);
    let mut t = Table::new(&rec2);
    t.play(&rec2, 31);
    let f = t.frame();
    let (color, point) = t.game.last_move().unwrap();
    assert_eq!(color, Color::Black);
    assert_eq!(t.points_with(&f, Role::LastMove), [t.gtp(point.unwrap())]);
    assert_eq!(f.slot(point.unwrap().index(19)), Slot::LastBlack);
    golden("last_move", &describe(&f, "last move: move 31, Black"));

    // The first ko of the game: the point the side to move may not retake (R20.1).
    let rec3 = record(KO_GAME);
    let ko_move = find_move(&rec3, 0, |g, c, p| {
        let mut g = g.clone();
        g.play(c, Some(p)).is_ok() && g.ko().is_some()
    });
    let mut t = Table::new(&rec3);
    t.play(&rec3, ko_move);
    let f = t.frame();
    let ko = t.game.ko().unwrap();
    assert_eq!(t.points_with(&f, Role::Ko), [t.gtp(ko)]);
    golden("ko", &describe(&f, &format!("ko: after move {ko_move}")));
}

#[test]
fn golden_captures_pending_then_missed_capture() {
    let rec = record(GAME);
    let mut t = Table::new(&rec);
    // A capture whose reply is not played on a captured stone's point.
    let mut from = 20;
    let m = loop {
        let m = find_move(&rec, from, |g, c, p| {
            g.preview(c, p).is_ok_and(|pv| !pv.captured.is_empty())
        });
        let mut g = start_game(&GameSetup::from_record(&rec));
        for mv in &rec.moves[..m - 1] {
            g.play(mv.color, mv.point).unwrap();
        }
        let pv = g
            .preview(rec.moves[m - 1].color, rec.moves[m - 1].point.unwrap())
            .unwrap();
        if !pv.captured.contains(&rec.moves[m].point.unwrap()) {
            break m;
        }
        from = m;
    };
    t.play(&rec, m - 1);
    let before = t.grid();
    let mv = &rec.moves[m - 1];
    let captured: Vec<String> = {
        let mut g = t.game.clone();
        let out = g.play(mv.color, mv.point).unwrap();
        sorted(out.captured.iter().map(|&p| t.gtp(p)).collect())
    };
    // The stone goes down, the captured stones stay.
    let mut grid = before.clone();
    grid.set(mv.point.unwrap(), Some(mv.color));
    t.show(&grid, 400);
    let f = t.frame();
    assert_eq!(t.points_with(&f, Role::Remove), captured);
    golden(
        "captures_pending",
        &describe(
            &f,
            &format!("captures pending: move {m}, its captured stones still on the board"),
        ),
    );
    // The opponent replies without the captures lifted: missed capture (R18.2).
    t.game.play(mv.color, mv.point).unwrap();
    let reply = &rec.moves[m];
    let mut g2 = t.game.clone();
    g2.play(reply.color, reply.point).unwrap();
    grid.set(reply.point.unwrap(), Some(reply.color));
    // nobody lifts them for the captor's patience (quick players lift after the reply)
    t.show(&grid, 400 + smartgoban::referee::LIFT_PATIENCE_MS as u32);
    let state = t.session.state();
    assert!(
        state.violations.iter().any(|v| v.code == "missed_capture"),
        "{:?}",
        state.violations
    );
    let f = t.frame();
    assert_eq!(
        t.points_with(&f, Role::Remove),
        captured,
        "exactly the stones to lift"
    );
    golden(
        "missed_capture",
        &describe(
            &f,
            &format!("missed capture: move {m}'s captures left when the opponent replied"),
        ),
    );
}

#[test]
fn golden_wrong_capture_takeback_and_moved_stone() {
    let rec = record(GAME);
    // Wrong capture: with move 40, the mover also lifts an opponent stone that has liberties.
    let mut t = Table::new(&rec);
    t.play(&rec, 39);
    let mv = &rec.moves[39];
    let mut g = t.game.clone();
    g.play(mv.color, mv.point).unwrap();
    let victim = g
        .board()
        .stones()
        .find(|&(p, c)| c == mv.color.opposite() && g.board().liberties(p) >= 2)
        .map(|(p, _)| p)
        .unwrap();
    let mut grid = StoneGrid::from_board(g.board());
    grid.set(victim, None);
    t.show(&grid, 400);
    let f = t.frame();
    assert_eq!(t.points_with(&f, Role::Restore), [t.gtp(victim)]);
    assert_eq!(
        f.slot(victim.index(19)),
        Slot::restore(mv.color.opposite(), false),
        "in the colour of the stone that belongs there"
    );
    golden(
        "wrong_capture",
        &describe(
            &f,
            "wrong capture: move 40 also lifts a stone with liberties",
        ),
    );

    // Takeback: move 40 committed (settled long), then lifted and played elsewhere.
    let mut t = Table::new(&rec);
    t.play(&rec, 40);
    let grid40 = t.grid();
    t.show(&grid40, 6_000);
    let last = rec.moves[39].point.unwrap();
    let elsewhere = t
        .game
        .board()
        .empty_points()
        .find(|&p| t.game.preview(rec.moves[39].color, p).is_ok() && p.index(19) > 200)
        .unwrap();
    let mut grid = grid40.clone();
    grid.set(last, None);
    grid.set(elsewhere, Some(rec.moves[39].color));
    t.show(&grid, 400);
    let state = t.session.state();
    assert!(
        state.violations.iter().any(|v| v.code == "takeback"),
        "{:?}",
        state.violations
    );
    let f = t.frame();
    assert!(t.points_with(&f, Role::Restore).contains(&t.gtp(last)));
    golden(
        "takeback",
        &describe(
            &f,
            "takeback: move 40, committed, lifted and played elsewhere",
        ),
    );

    // Moved stone: an old stone pushed to the next empty point.
    let mut t = Table::new(&rec);
    t.play(&rec, 60);
    let from = rec.moves[9].point.unwrap();
    assert_eq!(t.game.board().get(from), Some(rec.moves[9].color));
    let to = [(0i8, 1i8), (1, 0), (0, -1), (-1, 0)]
        .iter()
        .filter_map(|&(dx, dy)| {
            let (x, y) = (from.x as i8 + dx, from.y as i8 + dy);
            (0..19).contains(&x).then_some(())?;
            (0..19).contains(&y).then_some(Point::new(x as u8, y as u8))
        })
        .find(|&p| t.game.board().get(p).is_none())
        .unwrap();
    let mut grid = t.grid();
    grid.set(from, None);
    grid.set(to, Some(rec.moves[9].color));
    t.show(&grid, 400);
    let f = t.frame();
    assert_eq!(t.points_with(&f, Role::MovedFrom), [t.gtp(from)]);
    assert_eq!(t.points_with(&f, Role::MovedTo), [t.gtp(to)]);
    golden(
        "moved_stone",
        &describe(
            &f,
            "moved stone: move 10's stone pushed one point, at move 60",
        ),
    );
}

#[test]
fn golden_board_disturbed_and_desync() {
    let rec = record(GAME);
    let mut t = Table::new(&rec);
    t.play(&rec, 80);
    // A sleeve sweeps six stones of the lower right off their points.
    let swept: Vec<Point> = t
        .game
        .board()
        .stones()
        .filter(|(p, _)| p.x >= 10 && p.y >= 10)
        .map(|(p, _)| p)
        .take(6)
        .collect();
    assert_eq!(swept.len(), 6);
    let mut grid = t.grid();
    for &p in &swept {
        grid.set(p, None);
    }
    t.show(&grid, 400);
    let state = t.session.state();
    let f = t.frame();
    let expected: Vec<String> = sorted(swept.iter().map(|&p| t.gtp(p)).collect());
    assert_eq!(
        t.points_with(&f, Role::Restore),
        expected,
        "{:?}",
        state.violations
    );
    let next = f.next.expect("the next stone to put back");
    assert!(matches!(
        f.slot(next.index(19)),
        Slot::RestoreBlackNext | Slot::RestoreWhiteNext
    ));
    assert_eq!(
        (0..361)
            .filter(|&i| matches!(f.slot(i), Slot::RestoreBlackNext | Slot::RestoreWhiteNext))
            .count(),
        1,
        "one stone brightest"
    );
    golden(
        "board_disturbed",
        &describe(&f, "board disturbed: six stones swept off at move 80"),
    );

    // Desync: five stones appear that no legal sequence explains (R17.6).
    let mut t = Table::new(&rec);
    t.play(&rec, 80);
    let strays: Vec<Point> = t
        .game
        .board()
        .empty_points()
        .filter(|p| p.y == 0)
        .take(5)
        .collect();
    let mut grid = t.grid();
    for &p in &strays {
        grid.set(p, Some(Color::Black));
    }
    t.show(&grid, 400);
    let f = t.frame();
    let state = t.session.state();
    assert_eq!(state.phase.as_str(), "desync", "{state:?}");
    assert_eq!(
        t.points_with(&f, Role::Remove),
        sorted(strays.iter().map(|&p| t.gtp(p)).collect())
    );
    assert_eq!(f.next, Some(strays[0]));
    golden(
        "desync",
        &describe(
            &f,
            "desync: five black stones appear on the top row at move 80",
        ),
    );
}

#[test]
fn golden_forbidden_point_and_superko_cycle() {
    let rec = record(GAME);
    let mut t = Table::new(&rec);
    // The first position with a forbidden point (suicide, G5/R19) for the side to move.
    let mut n = 100;
    let (point, color) = loop {
        t.play(&rec, n);
        let color = t.game.to_move();
        if let Some(p) = t.game.board().empty_points().find(|&p| {
            matches!(
                t.game.preview(color, p),
                Err(smartgoban::rules::Illegal::Suicide(_))
            )
        }) {
            break (p, color);
        }
        n += 1;
    };
    let mut grid = t.grid();
    grid.set(point, Some(color));
    t.show(&grid, 400);
    let f = t.frame();
    assert_eq!(
        t.points_with(&f, Role::Illegal),
        [t.gtp(point)],
        "{:?}",
        t.session.state().violations
    );
    golden(
        "forbidden_point",
        &describe(
            &f,
            &format!("forbidden point: after move {n}, a stone on a suicide point"),
        ),
    );

    // UEC Cup 2017: move 317 brings back the position after move 314 (R20.2).
    let rec = record(KO_GAME);
    let mut t = Table::new(&rec);
    t.play(&rec, 317);
    let f = t.frame();
    let p317 = rec.moves[316].point.unwrap();
    assert_eq!(
        t.points_with(&f, Role::Illegal),
        [t.gtp(p317)],
        "{:?}",
        t.session.state().violations
    );
    golden(
        "superko_cycle",
        &describe(
            &f,
            "superko cycle: move 317 repeats the position after move 314",
        ),
    );
}

#[test]
fn golden_scoring() {
    // The end of a real game: both pass, the board is counted (G9, R21).
    let rec = record(KO_GAME);
    let mut t = Table::new(&rec);
    let n = rec.moves.len();
    t.play(&rec, n);
    for color in [t.game.to_move(), t.game.to_move().opposite()] {
        if t.session.state().phase.as_str() == "scoring" {
            break;
        }
        t.game.pass(color);
        t.press_pass(color);
        let grid = t.grid();
        t.show(&grid, 400);
    }
    let state = t.session.state();
    assert_eq!(state.phase.as_str(), "scoring");
    let f = t.frame();
    assert_eq!(t.points_with(&f, Role::Dead), sorted(state.dead.clone()));
    let dead = t.session.referee().proposed_dead().to_vec();
    let count = smartgoban::rules::area_count(t.game.board(), &dead);
    // Every point of the board is a living stone (unlit) or shows its share of the count.
    let lit = |role| t.points_with(&f, role).len() as u32;
    let (tb, tw, shared) = (
        lit(Role::TerritoryBlack),
        lit(Role::TerritoryWhite),
        lit(Role::Shared),
    );
    assert_eq!(
        tb + tw + shared + lit(Role::Dead) + count.black_stones + count.white_stones,
        361
    );
    assert_eq!(shared, count.dame);
    assert!(tb <= count.black_territory && tw <= count.white_territory);
    assert_eq!(
        tb + tw + lit(Role::Dead),
        count.black_territory + count.white_territory,
        "dead stones lie in the territory that takes them"
    );
    golden(
        "scoring",
        &describe(&f, &format!("scoring: after move {n} and two passes")),
    );
}

fn arb_scene() -> impl Strategy<Value = Scene> {
    let roles = [
        Role::LastMove,
        Role::Remove,
        Role::Restore,
        Role::MovedFrom,
        Role::MovedTo,
        Role::Ko,
        Role::Illegal,
        Role::Dead,
        Role::TerritoryBlack,
        Role::TerritoryWhite,
        Role::Shared,
        Role::Star,
    ];
    prop::sample::select(vec![9u8, 13, 19]).prop_flat_map(move |size| {
        let mark = (
            0..size,
            0..size,
            prop::sample::select(roles.to_vec()),
            any::<bool>(),
        );
        (
            any::<bool>(),
            prop::collection::vec(mark, 0..400),
            prop::option::of((0..size, 0..size)),
        )
            .prop_map(move |(link_up, marks, next)| {
                let mut scene = Scene::idle(size, link_up);
                for (x, y, role, black) in marks {
                    let color = if black { Color::Black } else { Color::White };
                    scene.mark(Point::new(x, y), role, Some(color));
                }
                scene.next = next.map(|(x, y)| Point::new(x, y));
                scene
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Whatever the scene and the settings, no moment of the frame draws more than the budget
    /// (channel model of `leds::budget`: 255 on a channel = `channel_ma`).
    #[test]
    fn the_current_budget_is_never_exceeded(
        scene in arb_scene(),
        brightness in any::<u8>(),
        max_current_ma in 0u32..25_000,
        channel_ma in 1u32..64,
        times in prop::collection::vec(0u64..10_000, 1..8),
    ) {
        let settings = LedSettings { brightness, max_current_ma, channel_ma };
        let frame = leds::render(&scene, &settings);
        prop_assert!(frame.peak_current_ua <= u64::from(max_current_ma) * 1000);
        for t in times {
            let sum: u64 = frame
                .pixels_at(t)
                .iter()
                .flat_map(|rgb| rgb.iter().map(|&c| u64::from(c)))
                .sum();
            let ua = (sum * u64::from(channel_ma) * 1000).div_ceil(255);
            prop_assert!(ua <= u64::from(max_current_ma) * 1000, "{ua} µA at {t} ms");
        }
    }
}

#[test]
fn a_full_board_of_light_is_scaled_to_the_budget() {
    // Every point to put back, at full brightness: 361 LEDs of bright warm white would draw
    // some 14 A; the budget is 1 A.
    let mut scene = Scene::idle(19, true);
    for i in 0..361 {
        scene.mark(Point::from_index(i, 19), Role::Restore, Some(Color::White));
    }
    let settings = LedSettings {
        brightness: 255,
        max_current_ma: 1_000,
        channel_ma: 20,
    };
    let frame = leds::render(&scene, &settings);
    assert!(frame.peak_current_ua <= 1_000_000);
    assert!(
        frame.peak_current_ua > 900_000,
        "scaled to the budget, not far below it"
    );
    let rgb = frame.leds.palette[usize::from(Slot::RestoreWhite.index())].rgb;
    // 160/255 of the white hue (160, 119, 75) scaled by 12750 / (361 × 354): × 0.0998.
    assert_eq!(rgb, [15, 11, 7]);
    // The same scene within a generous budget keeps its colours.
    let roomy = leds::render(
        &scene,
        &LedSettings {
            max_current_ma: 100_000,
            ..settings
        },
    );
    assert_eq!(
        roomy.leds.palette[usize::from(Slot::RestoreWhite.index())].rgb,
        [160, 119, 75]
    );
}

/// Through the whole product: the service renders the frame, sends it over the serial protocol
/// to the virtual board, the board shows it and acknowledges it with the CRC of what it shows;
/// a missed capture lights exactly the stone to lift, and `GET /api/v1/leds` says the same.
#[test]
fn a_missed_capture_lights_exactly_the_stones_to_lift_on_the_virtual_board() {
    use crate::support::{rt, Rig};
    use smartgoban::sim::{NoiseModel, Script, Source, Speed};
    rt().block_on(async {
        // White's C3 and D3... Black captures C3 with C2; White replies at E5 without the
        // capture lifted (R18.2); nobody lifts it (a hand passes far away later, past the
        // captor's patience).
        let script = Script::parse(
            "size 9\n\
             at 0 place B C4\nat 500 place W C3\nat 1000 place B B3\nat 1500 place W G7\n\
             at 2000 place B D3\nat 2500 place W G6\nat 3000 place B C2\n\
             at 4000 place W E5\nat 7000 hand J9 0 20\n",
        )
        .unwrap();
        let rig = Rig::start(Source::Script(script), NoiseModel::Realistic, 5, Speed::Max).await;
        rig.wait_done().await;
        let state = rig.daemon.shared().snapshot().state.clone();
        let v: Vec<_> = state
            .violations
            .iter()
            .map(|v| (v.code, v.points.clone()))
            .collect();
        assert_eq!(v, [("missed_capture", vec!["C3".to_string()])]);
        // The board shows the frame once the link has carried it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let (shown, api) = loop {
            let snap = rig.daemon.shared().snapshot();
            let shown = rig.device.leds();
            if let (Some(frame), Some(leds)) = (shown, &snap.leds) {
                if leds.delivery == "shown" && leds.frame_id == Some(frame.frame_id) {
                    break (frame, leds.clone());
                }
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the board never showed the frame"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        };
        let lift: Vec<String> = (0..81)
            .filter(|&i| {
                matches!(
                    Slot::from_index(shown.cells.get(i)),
                    Slot::Remove | Slot::RemoveNext
                )
            })
            .map(|i| Point::from_index(i, 9).to_gtp(9))
            .collect();
        assert_eq!(
            lift,
            ["C3"],
            "the virtual board lights exactly the stone to lift"
        );
        // Its colour is amber, blinking (PROTOCOL.md §13 evaluated on the board's side).
        let c3 = Point::from_gtp("C3", 9).unwrap().index(9);
        assert_eq!(shown.color_at(c3, 0), [80, 37, 0]);
        assert_eq!(shown.color_at(c3, 600), [0, 0, 0]);
        // The API serves the same frame with the roles.
        assert_eq!(api.view.roles.get("C3"), Some(&Role::Remove));
        assert_eq!(api.view.roles.get("E5"), Some(&Role::LastMove));
        assert_eq!(api.driver, "mcu");
        let body: serde_json::Value = rig.get_json("/api/v1/leds", false).await;
        assert_eq!(body["roles"]["C3"], "remove");
        assert_eq!(body["delivery"], "shown");
        assert_eq!(
            body["rgb"][6][2], "#502500",
            "C3 is row 3 from the bottom, column C"
        );
        assert_eq!(body["size"], 9);
        // The live page mirrors the frame from this endpoint.
        let page = reqwest::get(rig.url("/"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            page.contains("read('/api/v1/leds')"),
            "the page reads the frame (with the token when reads are private)"
        );
        rig.stop().await;
    });
}

/// The cable is pulled while the board shows a frame: the re-powered board is dark until the
/// host, on the new handshake, sends the frame again; it shows the same lights as before.
#[test]
fn the_frame_is_shown_again_after_the_board_is_unplugged() {
    use crate::support::{rt, Rig};
    use smartgoban::sim::{NoiseModel, Script, Source, Speed};
    rt().block_on(async {
        let script = Script::parse(
            "size 9\n\
             at 0 place B C4\nat 500 place W C3\nat 1000 place B B3\nat 1500 place W G7\n\
             at 2000 place B D3\nat 2500 place W G6\nat 3000 place B C2\n\
             at 4000 place W E5\nat 6000 unplug 1500\n",
        )
        .unwrap();
        let rig = Rig::start(Source::Script(script), NoiseModel::Clean, 2, Speed::Max).await;
        rig.wait_done().await;
        let events = rig.events();
        let links: Vec<&str> = events
            .iter()
            .filter(|e| e["kind"] == "link")
            .map(|e| e["state"].as_str().unwrap())
            .collect();
        assert!(links.ends_with(&["lost", "connected"]), "{links:?}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let shown = loop {
            let snap = rig.daemon.shared().snapshot();
            if let (Some(frame), Some(leds)) = (rig.device.leds(), &snap.leds) {
                if leds.delivery == "shown" && leds.frame_id == Some(frame.frame_id) {
                    break frame;
                }
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the frame never came back"
            );
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        };
        let lit: Vec<(String, Slot)> = (0..81)
            .map(|i| (i, Slot::from_index(shown.cells.get(i))))
            .filter(|(_, s)| !matches!(s, Slot::Off | Slot::Star))
            .map(|(i, s)| (Point::from_index(i, 9).to_gtp(9), s))
            .collect();
        assert_eq!(
            lit,
            [
                ("E5".to_string(), Slot::LastWhite),
                ("C3".to_string(), Slot::Remove)
            ]
        );
        assert!(rig.daemon.shared().snapshot().link.led_frames_sent >= 2);
        rig.stop().await;
    });
}

/// A ko retaken at once without lifting the stone it would capture (R18.3, R20.1): the
/// retaking stone is lit as illegal; the white stone still on D5 gets no "put back" light.
#[test]
fn a_ko_retaken_lights_the_illegal_stone_and_nothing_already_in_place() {
    use crate::support::{rt, Rig};
    use smartgoban::sim::{NoiseModel, Script, Source, Speed};
    rt().block_on(async {
        let script = Script::parse(
            "size 9\nat 0 place B D4\nat 1000 place W E4\nat 2000 place B D6\n\
             at 3000 place W E6\nat 4000 place B C5\nat 5000 place W F5\nat 6000 place B E5\n\
             at 7000 place W D5\nat 7500 remove E5\nat 9000 place B E5\n",
        )
        .unwrap();
        let rig = Rig::start(Source::Script(script), NoiseModel::Clean, 3, Speed::Max).await;
        rig.wait_done().await;
        let snap = rig.daemon.shared().snapshot();
        let codes: Vec<&str> = snap.state.violations.iter().map(|v| v.code).collect();
        assert_eq!(codes, ["ko_recapture"]);
        let roles = &snap.leds.as_ref().unwrap().view.roles;
        assert_eq!(roles.get("E5"), Some(&Role::Illegal));
        assert_eq!(roles.get("D5"), None, "{roles:?}");
        rig.stop().await;
    });
}
