//! The firmware's side of the protocol (board-core `link`) against the golden frames of
//! PROTOCOL.md §12: what the board sends is byte for byte what an independent encoder wrote
//! (hardware/protocol/tests/golden/golden.py), and the host's tests decode the same bytes
//! (src/link/connection_history_tests.rs).

mod golden_frames;

use golden_frames::{golden_wire, wire};
use smartgoban_board_core::history::History;
use smartgoban_board_core::link::{BoardLink, LinkConfig};
use smartgoban_protocol::{
    BoardSize, Button, ButtonCounters, Cell, Frame, Hello, Message, PackedCells, Pong, Side,
};

fn link() -> BoardLink {
    BoardLink::new(LinkConfig {
        board_size: BoardSize::NINE,
        protocol_version: 3,
        scan_rate_hz: 50,
        firmware_version: 1,
        device_id: 1,
    })
}

/// Feeds `bytes` to `link`; returns its answers.
fn feed(link: &mut BoardLink, bytes: &[u8], now_ms: u32) -> Vec<Frame> {
    let mut got = Vec::new();
    link.receive(bytes, now_ms, None::<&mut History<1>>, None, &mut |f| {
        got.push(f)
    });
    got
}

/// Sends frames (pongs) until the link's next frame carries `seq`.
fn advance_to(link: &mut BoardLink, seq: u8) {
    while link.frame(Message::Pong(Pong { nonce: 0 })).seq != seq.wrapping_sub(1) {}
}

#[test]
fn the_board_answers_the_golden_hello_and_sends_the_golden_scan() {
    let mut link = link();
    // Example 4: garbage, then the Hello: the board resynchronises and answers.
    let got = feed(&mut link, &golden_wire("garbage-then-hello"), 0);
    assert_eq!(got.len(), 1);
    assert!(matches!(got[0].message, Message::HelloAck(a) if a.accepted));
    assert_eq!(link.session_version(), Some(1));
    // Example 2: the scan of 9x9 with C3 black, D3 white, E5 uncertain, J1 black and one press
    // of Black's clock, its second scan (counter 1), at 1000 ms, in frame 5.
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
    let mut counters = ButtonCounters::ZERO;
    link.scan(980, PackedCells::new(size), counters).unwrap();
    counters.record_press(Button::Clock, Side::Black);
    let scan = link.scan(1000, cells, counters).unwrap();
    advance_to(&mut link, 5);
    assert_eq!(
        wire(link.frame(Message::Scan(scan))),
        golden_wire("scan-9x9")
    );
}

#[test]
fn the_board_answers_the_golden_led_frame_with_the_golden_ack_and_the_golden_ping() {
    let mut link = link();
    feed(&mut link, &golden_wire("hello"), 0);
    // Version 1 has no LED frames: the golden Hello asks for version 1.
    assert!(feed(&mut link, &golden_wire("led-frame-9x9"), 1).is_empty());
    let v2 = wire(Frame {
        seq: 1,
        message: Message::Hello(Hello {
            protocol_version: 2,
        }),
    });
    feed(&mut link, &v2, 2);
    advance_to(&mut link, 9);
    // Example 5 in, example 6 out.
    let got = feed(&mut link, &golden_wire("led-frame-9x9"), 3);
    assert_eq!(got.len(), 1);
    assert_eq!(wire(got[0]), golden_wire("led-ack"));
    let shown = link.leds().unwrap();
    assert_eq!(shown.color_at(20, 0), [255, 140, 0], "C7 amber");
    // Example 3: the golden ping is answered with its nonce.
    let got = feed(&mut link, &golden_wire("ping"), 4);
    assert_eq!(got[0].message, Message::Pong(Pong { nonce: 0x1234_5678 }));
}
