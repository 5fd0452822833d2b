//! Exact bytes of the worked examples in PROTOCOL.md §12, computed independently by
//! tests/golden/golden.py (bitwise CRC-32C, hand-written COBS; not copied from this crate) and
//! kept in tests/golden/frames.txt, the golden frames the board's (hardware/board-core) and the
//! host's (src/link) tests read too.

use smartgoban_protocol::{
    crc32c, encode, BoardSize, Button, ButtonCounters, Cell, ChunkStatus, DecodeError, Frame,
    Hello, HistoryChunk, HistoryEntry, HistoryEvent, HistoryInfo, HistoryOpen, HistoryPull,
    InfoStatus, LedAck, LedCells, LedEffect, LedFrame, LedPaint, PackedCells, Ping, Scan, Side,
    TimedEntry, MAX_FRAME_LEN, PALETTE_LEN,
};

use crate::util::{decode_all, frames_out, Out};

/// The golden frames file, `name raw-hex wire-hex` a line.
const FRAMES: &str = include_str!("../golden/frames.txt");

/// Every name in the file, in order: each must be checked below.
const NAMES: [&str; 17] = [
    "hello",
    "scan-9x9",
    "ping",
    "garbage-then-hello",
    "led-frame-9x9",
    "led-ack",
    "history-open",
    "history-info-9x9",
    "history-pull",
    "history-chunk",
    "raw-request",
    "raw-readings",
    "calibration-data",
    "calibration-commit",
    "calibration-ack",
    "health-request",
    "sensor-health-9x9",
];

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The raw frame (if any) and the wire bytes of golden frame `name`.
fn golden(name: &str) -> (Option<Vec<u8>>, Vec<u8>) {
    let line = FRAMES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("{name} not in frames.txt"));
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields.len(), 3, "{line}");
    let raw = (fields[1] != "-").then(|| unhex(fields[1]));
    (raw, unhex(fields[2]))
}

/// `frame` encodes to the golden frame `name` (raw and wire) and the wire bytes decode to it.
fn check_golden(frame: Frame, name: &str) {
    let (raw_golden, wire_golden) = golden(name);
    let mut raw = [0u8; MAX_FRAME_LEN];
    let n = frame.encode_raw(&mut raw).unwrap();
    assert_eq!(Some(raw[..n].to_vec()), raw_golden, "{name} raw");
    let mut out = [0u8; MAX_FRAME_LEN];
    let n = encode(&frame, &mut out).unwrap();
    assert_eq!(out[..n], wire_golden, "{name} wire");
    assert_eq!(decode_all(&wire_golden), frames_out(&[frame]), "{name}");
}

/// As [`check_golden`], and the hex as PROTOCOL.md prints it matches the file.
fn check(frame: Frame, raw_hex: &str, wire_hex: &str, name: &str) {
    let (raw, wire) = golden(name);
    assert_eq!(
        raw,
        Some(hex(raw_hex)),
        "PROTOCOL.md and frames.txt differ: {name} raw"
    );
    assert_eq!(
        wire,
        hex(wire_hex),
        "PROTOCOL.md and frames.txt differ: {name} wire"
    );
    check_golden(frame, name);
}

#[test]
fn the_file_holds_exactly_the_examples() {
    let names: Vec<&str> = FRAMES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(names, NAMES);
}

#[test]
fn crc32c_check_value() {
    assert_eq!(crc32c(b"123456789"), 0xE306_9283);
}

#[test]
fn example_1_hello() {
    check(
        Frame::new(
            0,
            Hello {
                protocol_version: 1,
            },
        ),
        "01 00 01 07 B2 4E 37",
        "02 01 06 01 07 B2 4E 37 00",
        "hello",
    );
}

#[test]
fn example_2_scan_9x9() {
    // Black C7 ("cc"), white D7 ("dc"), a hand over E5 ("ee"), black J1 ("ii");
    // black has pressed the clock once.
    let size = BoardSize::NINE;
    let mut cells = PackedCells::new(size);
    for (x, y, cell) in [
        (2, 2, Cell::Black),
        (3, 2, Cell::White),
        (4, 4, Cell::Uncertain),
        (8, 8, Cell::Black),
    ] {
        cells.set(size.point_index(x, y).unwrap(), cell);
    }
    assert_eq!(
        cells.as_bytes(),
        hex("00 00 00 00 00 09 00 00 00 00 03 00 00 00 00 00 00 00 00 00 01")
    );
    let mut buttons = ButtonCounters::ZERO;
    buttons.record_press(Button::Clock, Side::Black);
    let scan = Scan {
        scan_counter: 1,
        board_ms: 1000,
        buttons,
        cells,
    };
    check(
        Frame::new(5, scan),
        "03 05 01 00 00 00 E8 03 00 00 09 00 00 00 00 01 00 00 00 00 00 00 09 00 00 00 00 \
         03 00 00 00 00 00 00 00 00 00 01 6C 68 E1 DD",
        "04 03 05 01 01 01 03 E8 03 01 02 09 01 01 01 02 01 01 01 01 01 01 02 09 01 01 01 02 \
         03 01 01 01 01 01 01 01 01 06 01 6C 68 E1 DD 00",
        "scan-9x9",
    );
}

#[test]
fn example_3_ping() {
    check(
        Frame::new(7, Ping { nonce: 0x1234_5678 }),
        "04 07 78 56 34 12 8D 13 DD B7",
        "0B 04 07 78 56 34 12 8D 13 DD B7 00",
        "ping",
    );
}

#[test]
fn example_4_garbage_then_hello() {
    // §9: "13 37" is not COBS (code 0x13 promises 18 more bytes before the delimiter).
    assert_eq!(
        golden("garbage-then-hello"),
        (None, hex("13 37 00 02 01 06 01 07 B2 4E 37 00"))
    );
    assert_eq!(
        decode_all(&hex("13 37 00 02 01 06 01 07 B2 4E 37 00")),
        [
            Out::Error(DecodeError::Cobs),
            Out::Frame(Frame::new(
                0,
                Hello {
                    protocol_version: 1
                }
            ))
        ]
    );
}

#[test]
fn example_5_led_frame_9x9() {
    // Palette 1: amber blinking once a second; palette 2: blue, steady. C7 ("cc", index 20)
    // shows entry 1, J1 ("ii", index 80) entry 2 (PROTOCOL.md §5.6, §13).
    let mut palette = [LedPaint::OFF; PALETTE_LEN];
    palette[1] = LedPaint {
        rgb: [255, 140, 0],
        effect: LedEffect::Blink { period_ds: 10 },
    };
    palette[2] = LedPaint {
        rgb: [40, 80, 255],
        effect: LedEffect::Steady,
    };
    let mut cells = LedCells::new(BoardSize::NINE);
    cells.set(20, 1);
    cells.set(80, 2);
    let led = LedFrame {
        frame_id: 1,
        palette,
        cells,
    };
    let zeros = |n: usize| vec!["00"; n].join(" ");
    let raw = format!(
        "10 03 01 00 09 {} FF 8C 00 4A 28 50 FF 00 {} {} 01 {} 02 60 9C 61 8A",
        zeros(4),
        zeros(52),
        zeros(10),
        zeros(29)
    );
    let ones = |n: usize| vec!["01"; n].join(" ");
    let wire = format!(
        "04 10 03 01 02 09 01 01 01 03 FF 8C 05 4A 28 50 FF {} 02 {} 06 02 60 9C 61 8A 00",
        ones(62),
        ones(29)
    );
    check(Frame::new(3, led), &raw, &wire, "led-frame-9x9");
    assert_eq!(led.content_crc(), 0x8390_3D77);
    // What the LEDs show: C7 amber for the first half second, off for the second; J1 blue.
    assert_eq!(led.color_at(20, 499), [255, 140, 0]);
    assert_eq!(led.color_at(20, 500), [0, 0, 0]);
    assert_eq!(led.color_at(80, 500), [40, 80, 255]);
    assert_eq!(led.color_at(0, 0), [0, 0, 0]);
}

#[test]
fn example_6_led_ack() {
    check(
        Frame::new(
            9,
            LedAck {
                frame_id: 1,
                content_crc: 0x8390_3D77,
            },
        ),
        "06 09 01 00 77 3D 90 83 7B 7F 3C BD",
        "04 06 09 01 09 77 3D 90 83 7B 7F 3C BD 00",
        "led-ack",
    );
}

/// The board of §12 examples 7–10: boot 0x1234ABCD, 9×9.
const BOOT: u32 = 0x1234_ABCD;

#[test]
fn example_7_history_open() {
    check(
        Frame::new(
            1,
            HistoryOpen {
                boot_id: BOOT,
                since_ms: 1000,
            },
        ),
        "11 01 CD AB 34 12 E8 03 00 00 97 A6 42 51",
        "09 11 01 CD AB 34 12 E8 03 01 05 97 A6 42 51 00",
        "history-open",
    );
}

#[test]
fn example_8_history_info_9x9() {
    // The readings at 1000 ms: black J1 ("ii", index 80). Black pressed the clock once.
    let mut base = PackedCells::new(BoardSize::NINE);
    base.set(80, Cell::Black);
    let mut buttons = ButtonCounters::ZERO;
    buttons.record_press(Button::Clock, Side::Black);
    let info = HistoryInfo {
        status: InfoStatus::Ok,
        boot_id: BOOT,
        since_ms: 1000,
        until_ms: 70_000,
        entries: 4,
        oldest_ms: 1000,
        buttons,
        base,
    };
    check(
        Frame::new(4, info),
        "07 04 00 CD AB 34 12 E8 03 00 00 70 11 01 00 04 00 00 00 E8 03 00 00 09 00 00 00 00 01 00 \
         00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01 0A 09 1E 3F",
        "03 07 04 07 CD AB 34 12 E8 03 01 04 70 11 01 02 04 01 01 03 E8 03 01 02 09 01 01 01 02 \
         01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 01 06 01 0A 09 1E 3F 00",
        "history-info-9x9",
    );
}

#[test]
fn example_9_history_pull() {
    check(
        Frame::new(
            2,
            HistoryPull {
                since_ms: 1000,
                from_entry: 0,
            },
        ),
        "12 02 E8 03 00 00 00 00 00 00 E0 34 86 C9",
        "05 12 02 E8 03 01 01 01 01 01 05 E0 34 86 C9 00",
        "history-pull",
    );
}

#[test]
fn example_10_history_chunk() {
    // C7 ("cc", 20) empty → black at 1020, clock black at 1500, a filler (67 035), D7 ("dc",
    // 21) empty → white at 70 000.
    let mut chunk = HistoryChunk::new(1000, 0, 1000);
    let entries = [
        (
            HistoryEvent::Point {
                index: 20,
                from: Cell::Empty,
                to: Cell::Black,
            },
            20,
        ),
        (
            HistoryEvent::Press {
                button: Button::Clock,
                side: Side::Black,
            },
            480,
        ),
        (HistoryEvent::Filler, 65_535),
        (
            HistoryEvent::Point {
                index: 21,
                from: Cell::Empty,
                to: Cell::White,
            },
            2965,
        ),
    ];
    for (event, dt_ms) in entries {
        chunk.push(HistoryEntry { event, dt_ms }).unwrap();
    }
    assert_eq!(
        entries.map(|(e, _)| e.code()),
        [0x0814, 0x01FC, 0x01FF, 0x1015]
    );
    let timed: Vec<TimedEntry> = chunk.timed().collect();
    assert_eq!(
        timed
            .iter()
            .map(|t| (t.entry, t.board_ms))
            .collect::<Vec<_>>(),
        [(0, 1020), (1, 1500), (2, 67_035), (3, 70_000)]
    );
    assert_eq!(chunk.status, ChunkStatus::Ok);
    check(
        Frame::new(6, chunk),
        "08 06 E8 03 00 00 00 00 00 00 00 E8 03 00 00 04 14 08 14 00 FC 01 E0 01 FF 01 FF FF \
         15 10 95 0B 62 23 2A 8C",
        "05 08 06 E8 03 01 01 01 01 01 01 03 E8 03 01 05 04 14 08 14 11 FC 01 E0 01 FF 01 FF FF \
         15 10 95 0B 62 23 2A 8C 00",
        "history-chunk",
    );
}

/// PROTOCOL.md §12 prints `hex` (bytes separated by spaces, however the lines wrap).
fn in_the_spec(hex: &str) -> bool {
    let spec = include_str!("../../../PROTOCOL.md");
    let flat: String = spec
        .lines()
        .map(|l| l.trim().trim_matches('`'))
        .collect::<Vec<_>>()
        .join(" ");
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    flat.contains(hex)
}

/// The version-4 examples (§12 examples 11–17): each golden frame encoded from its message,
/// decoded back, and printed in PROTOCOL.md.
#[test]
fn examples_11_to_17_calibration() {
    use smartgoban_protocol::calibration::{
        CalibrationAck, CalibrationCommit, CalibrationData, CalibrationStatus, HealthRequest,
        RawReadings, RawRequest, SensorHealth,
    };
    let mut health = SensorHealth::new(BoardSize::NINE, true);
    health.set(0, 1);
    health.set(40, 4 | 8);
    health.set(80, 2);
    let frames: [(Frame, &str); 7] = [
        (
            Frame::new(
                2,
                RawRequest {
                    first_point: 336,
                    count: 3,
                },
            ),
            "raw-request",
        ),
        (
            Frame::new(7, RawReadings::new(41, 336, &[2048, 2810, 1290])),
            "raw-readings",
        ),
        (
            Frame::new(3, CalibrationData::new(0, b"SGCB\x01\x09\x00\x00")),
            "calibration-data",
        ),
        (
            Frame::new(
                4,
                CalibrationCommit {
                    len: 2023,
                    crc: 0x89AB_CDEF,
                },
            ),
            "calibration-commit",
        ),
        (
            Frame::new(
                8,
                CalibrationAck {
                    status: CalibrationStatus::Stored,
                    crc: 0x89AB_CDEF,
                },
            ),
            "calibration-ack",
        ),
        (Frame::new(5, HealthRequest), "health-request"),
        (Frame::new(9, health), "sensor-health-9x9"),
    ];
    for (frame, name) in frames {
        check_golden(frame, name);
        let (_, wire) = golden(name);
        let spaced: Vec<String> = wire.iter().map(|b| format!("{b:02X}")).collect();
        assert!(
            in_the_spec(&spaced.join(" ")),
            "PROTOCOL.md §12 does not print the wire bytes of {name}: {}",
            spaced.join(" ")
        );
    }
}

/// frames.txt is what golden.py writes now: a frame added to or changed in golden.py and not
/// written out (`python3 golden.py`) fails here. Needs a Python 3 (`$SMARTGOBAN_PYTHON`, else
/// `python3`); without one the test says so and passes, unless `SMARTGOBAN_REQUIRE_PYTHON` is
/// set (CI).
#[test]
fn frames_txt_is_what_golden_py_writes() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
    let python = std::env::var("SMARTGOBAN_PYTHON").unwrap_or_else(|_| "python3".into());
    let script = "import contextlib, io, sys\n\
        sys.dont_write_bytecode = True\n\
        sys.path.insert(0, sys.argv[1])\n\
        with contextlib.redirect_stdout(io.StringIO()):\n    import golden\n\
        for name, raw, wire in golden.golden_frames():\n    \
        print(name, raw.hex().upper() if raw is not None else '-', wire.hex().upper())\n";
    let out = match std::process::Command::new(&python)
        .args(["-c", script, dir])
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            assert!(
                std::env::var_os("SMARTGOBAN_REQUIRE_PYTHON").is_none(),
                "no {python}: {e}"
            );
            eprintln!("skipped: no {python} ({e})");
            return;
        }
    };
    assert!(
        out.status.success(),
        "golden.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written: Vec<&str> = FRAMES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    let now = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        now.lines().collect::<Vec<_>>(),
        written,
        "frames.txt is out of date: run python3 hardware/protocol/tests/golden/golden.py"
    );
}
