//! Exact bytes of the worked examples in PROTOCOL.md §12, computed independently by
//! tests/golden/golden.py (bitwise CRC-32C, hand-written COBS); not copied from this crate.

use smartgoban_protocol::{
    crc32c, encode, BoardSize, Button, ButtonCounters, Cell, DecodeError, Frame, Hello, LedAck,
    LedCells, LedEffect, LedFrame, LedPaint, PackedCells, Ping, Scan, Side, MAX_FRAME_LEN,
    PALETTE_LEN,
};

use crate::util::{decode_all, frames_out, Out};

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

fn check(frame: Frame, raw_hex: &str, wire_hex: &str) {
    let mut raw = [0u8; MAX_FRAME_LEN];
    let n = frame.encode_raw(&mut raw).unwrap();
    assert_eq!(raw[..n], hex(raw_hex), "raw");
    let mut out = [0u8; MAX_FRAME_LEN];
    let n = encode(&frame, &mut out).unwrap();
    assert_eq!(out[..n], hex(wire_hex), "wire");
    assert_eq!(decode_all(&hex(wire_hex)), frames_out(&[frame]));
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
    );
}

#[test]
fn example_3_ping() {
    check(
        Frame::new(7, Ping { nonce: 0x1234_5678 }),
        "04 07 78 56 34 12 8D 13 DD B7",
        "0B 04 07 78 56 34 12 8D 13 DD B7 00",
    );
}

#[test]
fn example_4_garbage_then_hello() {
    // §9: "13 37" is not COBS (code 0x13 promises 18 more bytes before the delimiter).
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
    check(Frame::new(3, led), &raw, &wire);
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
    );
}
