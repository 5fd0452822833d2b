//! The virtual board wired straight into a session, without a pseudo-terminal: the bytes the
//! board would send, and a way to feed them through the link state machine into a
//! [`Session`]. Same physics, same frames, same decoder — only the pty is missing, which makes
//! it fast enough for property tests and benchmarks.

use smartgoban_protocol::{
    encode, BoardSize, Frame, HelloAck, Message, Scan, MAX_FRAME_LEN, PROTOCOL_VERSION,
};

use super::noise::NoiseModel;
use super::replay::{Replay, Tick};
use super::{Source, TAIL_MS};
use crate::link::{Connection, LinkConfig, LinkEvent};
use crate::session::{Input, Session};

/// Everything the board sends while playing a source out.
#[derive(Clone, Debug)]
pub struct BoardStream {
    /// The frames, as one byte stream (starting with the board's `HelloAck`).
    pub bytes: Vec<u8>,
    /// Scans in the stream.
    pub scans: u64,
}

/// The byte stream of `source` played with `noise` and `seed`, as if the host's `Hello`
/// arrived at board time 0. An unplugged cable is modelled as an outage followed by a new
/// handshake.
pub fn board_stream(source: &Source, noise: NoiseModel, seed: u64) -> BoardStream {
    board_stream_with_restarts(source, noise, seed, &[]).0
}

/// [`board_stream`] with the host restarted at each board time of `restarts_ms` (ascending):
/// there the board answers a new `Hello` (its `HelloAck`, counters from 0, as PROTOCOL.md
/// asks), while the stones and the players go on. Returns the stream and, for each restart,
/// the offset in `bytes` where its `HelloAck` starts: a new run of the host reads from there.
pub fn board_stream_with_restarts(
    source: &Source,
    noise: NoiseModel,
    seed: u64,
    restarts_ms: &[u64],
) -> (BoardStream, Vec<usize>) {
    let params = noise.params();
    let size = BoardSize::new(source.setup().size()).unwrap_or(BoardSize::NINETEEN);
    let mut replay = Replay::new(source.timeline(&params, seed), size, &params, seed);
    let mut out = BoardStream {
        bytes: vec![0],
        scans: 0,
    };
    let mut seq = 0u8;
    let mut counter = 0u32;
    let mut push = |message: Message, out: &mut BoardStream| {
        let mut buf = [0u8; MAX_FRAME_LEN];
        if let Ok(n) = encode(&Frame { seq, message }, &mut buf) {
            out.bytes.extend_from_slice(&buf[..n]);
        }
        seq = seq.wrapping_add(1);
    };
    let ack = Message::HelloAck(HelloAck {
        protocol_version: PROTOCOL_VERSION,
        accepted: true,
        board_size: size,
        scan_rate_hz: 50,
        firmware_version: 1,
        device_id: 1,
    });
    push(ack, &mut out);
    let mut restarts = restarts_ms.iter().copied().peekable();
    let mut offsets = Vec::new();
    while !replay.is_played_out(TAIL_MS) {
        if restarts.next_if(|&at| at <= replay.board_ms()).is_some() {
            replay.restart_buttons();
            counter = 0;
            offsets.push(out.bytes.len());
            push(ack, &mut out);
        }
        match replay.tick() {
            Tick::Unplug { duration_ms } => {
                replay.outage(duration_ms);
                replay.restart_buttons();
                counter = 0;
                push(ack, &mut out);
            }
            // The loopback has no wire to break.
            Tick::Fault(_) => {}
            Tick::Scan {
                board_ms,
                buttons,
                cells,
            } => {
                let scan = Scan {
                    scan_counter: counter,
                    board_ms: board_ms as u32,
                    buttons,
                    cells,
                };
                push(Message::Scan(scan), &mut out);
                counter = counter.wrapping_add(1);
                out.scans += 1;
            }
        }
    }
    (out, offsets)
}

/// Feeds `bytes` through a fresh link [`Connection`] into `session`, `chunk` bytes per read
/// (each read one host millisecond apart). Events are left in the session for the caller.
pub fn feed(session: &mut Session, bytes: &[u8], chunk: usize) {
    feed_at(session, bytes, chunk, 0);
}

/// [`feed`] through a fresh connection opened at host time `start_ms` (a new run of the
/// service); returns the host time of the last read.
pub fn feed_at(session: &mut Session, bytes: &[u8], chunk: usize, start_ms: u64) -> u64 {
    let mut conn = Connection::new(LinkConfig::default());
    conn.on_open(start_ms);
    while conn.poll_transmit().is_some() {}
    let mut now = start_ms;
    for (i, piece) in bytes.chunks(chunk.max(1)).enumerate() {
        now = start_ms + i as u64;
        conn.handle_bytes(piece, now);
        while let Some(ev) = conn.poll_event() {
            let input = match ev {
                LinkEvent::Up(info) => Input::LinkUp(info),
                LinkEvent::Resumed { info, history } => Input::LinkResumed { info, history },
                LinkEvent::Scan(scan) => Input::Scan(scan),
                LinkEvent::Down { reason } => Input::LinkDown { reason },
                LinkEvent::Rejected { .. } => continue,
            };
            // link inputs never fail
            let _ = session.handle_input(input, now);
        }
    }
    now
}
