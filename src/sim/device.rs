//! The virtual microcontroller: speaks the serial protocol on a pseudo-terminal
//! (hardware/PROTOCOL.md, versions 1 and 2), turns a timeline of physical actions into 50
//! scans a second, and shows the LED frames the host sends.
//!
//! The device waits for the host's `Hello`, answers `HelloAck`, then streams scans whose
//! `board_ms` advances 20 ms per scan on the virtual clock. In a version-2 session it takes
//! `LedFrame`s, keeps the one it shows ([`SimHandle::leds`]) and answers each with an `LedAck`
//! carrying the CRC of the frame it holds. It also plays the link faults of board scripts
//! ([`LinkFault`]: line noise, a cut or corrupted frame, a silent link, a re-plug on another
//! pseudo-terminal node, a restart of the microcontroller). At `--speed max` nothing sleeps:
//! the pty's buffer blocks the device whenever the service falls behind, so it runs exactly as
//! fast as the service keeps up. At `--speed X` the virtual clock runs X times real time.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serialport::{SerialPort, TTYPort};

use super::action::{LinkFault, ResetKind, TimedAction};
use super::noise::NoiseParams;
use super::player::SCAN_MS;
use super::replay::{Replay, Tick};
use smartgoban_protocol::{
    encode, BoardSize, Feed, Frame, FrameDecoder, HelloAck, LedAck, LedFrame, Message, Pong, Scan,
    MAX_FRAME_LEN, MAX_RAW_FRAME_LEN, MIN_PROTOCOL_VERSION,
};

/// How fast the virtual clock runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Speed {
    /// As fast as the host reads: no sleeping.
    Max,
    /// This many times real time (1.0 = real time).
    Factor(f64),
}

impl std::fmt::Display for Speed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Speed::Max => f.write_str("max"),
            Speed::Factor(x) => write!(f, "{x}x real time"),
        }
    }
}

impl std::str::FromStr for Speed {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "max" {
            return Ok(Speed::Max);
        }
        match s.parse::<f64>() {
            Ok(f) if (0.01..=10_000.0).contains(&f) => Ok(Speed::Factor(f)),
            _ => Err(format!(
                "speed `{s}`: use `max` or a factor of real time from 0.01 to 10000, such as 1, 4 or 0.5"
            )),
        }
    }
}

/// Settings of the virtual board.
#[derive(Clone, Debug)]
pub struct DeviceConfig {
    /// Points per side.
    pub board_size: u8,
    /// Clock speed.
    pub speed: Speed,
    /// Seed of every random choice (noise, scatter).
    pub seed: u64,
    /// Sensor noise.
    pub noise: NoiseParams,
    /// Board time after the last action before the timeline counts as done, ms.
    pub tail_ms: u64,
    /// Where to expose the device: a symlink to the pty, replaced when the board is
    /// re-plugged. `None`: only the `/dev/pts/N` path.
    pub link: Option<PathBuf>,
    /// Reported in HelloAck.
    pub device_id: u32,
    /// The highest protocol version the board speaks (it speaks every version from 1 up to
    /// it): [`smartgoban_protocol::PROTOCOL_VERSION`], or 1 for a board without LEDs.
    pub protocol_version: u8,
}

/// Reported once the timeline has been played out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimReport {
    /// Counter of the last scan of the timeline (PROTOCOL.md "Scan").
    pub last_scan_counter: u32,
    /// Scans sent in all.
    pub scans: u64,
    /// Board time reached, ms.
    pub board_ms: u64,
    /// Sessions the board accepted (`HelloAck`s with `accepted` = 1 sent): the host's
    /// handshake count once it has read everything.
    pub sessions: u32,
}

/// A running virtual board.
#[derive(Debug)]
pub struct SimHandle {
    path: PathBuf,
    done: mpsc::Receiver<SimReport>,
    stop: Arc<AtomicBool>,
    counter: Arc<AtomicU32>,
    leds: Arc<Mutex<Option<LedFrame>>>,
    thread: Option<thread::JoinHandle<io::Result<()>>>,
}

impl SimHandle {
    /// The LED frame the board shows now (the last `LedFrame` of the session), if any.
    pub fn leds(&self) -> Option<LedFrame> {
        *self.leds.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A handle on the LED frame the board shows, for a reader on another thread.
    pub fn leds_handle(&self) -> Arc<Mutex<Option<LedFrame>>> {
        self.leds.clone()
    }

    /// The device path the service must open (the symlink if one was asked for).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Waits up to `timeout` for the timeline to be played out.
    pub fn wait_done(&self, timeout: Duration) -> Option<SimReport> {
        self.done.recv_timeout(timeout).ok()
    }

    /// The report, if the timeline is already played out.
    pub fn try_done(&self) -> Option<SimReport> {
        self.done.try_recv().ok()
    }

    /// Counter of the last scan sent.
    pub fn scan_counter(&self) -> u32 {
        self.counter.load(Ordering::Relaxed)
    }

    /// Stops the device and waits for its thread.
    pub fn stop(mut self) -> io::Result<()> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> io::Result<()> {
        self.stop.store(true, Ordering::Relaxed);
        match self.thread.take() {
            Some(t) => t
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("virtual board thread panicked"))),
            None => Ok(()),
        }
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// Opens a pty and starts the virtual board on it in its own thread.
pub fn spawn(actions: Vec<TimedAction>, config: DeviceConfig) -> io::Result<SimHandle> {
    let board_size = BoardSize::new(config.board_size)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    let port = Port::open(config.link.as_deref())?;
    let rng = ChaCha8Rng::seed_from_u64(config.seed ^ 0x6a7b_a9e5_11e0);
    let path = config
        .link
        .clone()
        .unwrap_or_else(|| port.slave_path.clone());
    let (done_tx, done) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let counter = Arc::new(AtomicU32::new(0));
    let leds = Arc::new(Mutex::new(None));
    let mut device = Device {
        board_size,
        replay: Replay::new(actions, board_size, &config.noise, config.seed),
        config,
        scan_counter: 0,
        scans: 0,
        tx_seq: 0,
        streaming: false,
        done_sent: false,
        stop: stop.clone(),
        counter: counter.clone(),
        done_tx,
        session_version: None,
        leds: leds.clone(),
        sessions: 0,
        rng,
        garbage_until_ms: None,
        cut_next: false,
        bad_crc_next: false,
        clock_zero_ms: 0,
    };
    let thread = thread::Builder::new()
        .name("virtual-board".into())
        .spawn(move || device.run(port))?;
    Ok(SimHandle {
        path,
        done,
        stop,
        counter,
        leds,
        thread: Some(thread),
    })
}

/// Bytes the host has left unread beyond which a paced board drops its scans (the host is
/// away): 2 KiB, under the pty's 4 KiB line buffer, about 18 full 19×19 scans.
const HOST_AWAY_BYTES: u32 = 2048;

/// The pty pair: the device holds the master and keeps the slave open so the pty survives
/// the service closing and reopening it.
struct Port {
    master: TTYPort,
    /// Our own handle on the slave side: keeps the pty alive, and tells how many bytes the
    /// service has not read yet.
    slave: TTYPort,
    slave_path: PathBuf,
}

impl Port {
    /// A new pty pair, exposed at `link` if given.
    fn open(link: Option<&Path>) -> io::Result<Port> {
        let port = Port::open_pair()?;
        if let Some(link) = link {
            port.expose(link)?;
        }
        Ok(port)
    }

    /// A new pty pair, not exposed yet.
    ///
    /// Both ends are close-on-exec: a process started meanwhile (a service under test, a
    /// sound player) must not inherit them, or closing the master would not hang the pty up
    /// and the service would not see the board go.
    fn open_pair() -> io::Result<Port> {
        let (master, slave) = TTYPort::pair().map_err(io::Error::other)?;
        // `try_clone_native` duplicates with F_DUPFD_CLOEXEC; the originals are closed.
        let mut master = master.try_clone_native().map_err(io::Error::other)?;
        let slave = slave.try_clone_native().map_err(io::Error::other)?;
        master
            .set_timeout(Duration::from_millis(200))
            .map_err(io::Error::other)?;
        let slave_path = PathBuf::from(
            slave
                .name()
                .ok_or_else(|| io::Error::other("pty without a name"))?,
        );
        Ok(Port {
            master,
            slave,
            slave_path,
        })
    }

    /// Points the symlink `link` at this pty.
    fn expose(&self, link: &Path) -> io::Result<()> {
        check_replaceable(link)?;
        // Replace the symlink atomically so the service never sees it missing.
        let tmp = link.with_extension("new");
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&self.slave_path, &tmp)?;
        if let Err(e) = std::fs::rename(&tmp, link) {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        Ok(())
    }
}

/// The link path may only replace nothing, or a symlink to a pseudo-terminal (ours, from an
/// earlier run): never a file or directory someone else owns.
fn check_replaceable(link: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(link) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(meta) => {
            let ours = meta.file_type().is_symlink()
                && std::fs::read_link(link).is_ok_and(|t| t.starts_with("/dev/pts"));
            if ours {
                Ok(())
            } else {
                Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "{} exists and is not a link to a pseudo-terminal; choose another --link path",
                        link.display()
                    ),
                ))
            }
        }
    }
}

struct Device {
    board_size: BoardSize,
    config: DeviceConfig,
    replay: Replay,
    scan_counter: u32,
    scans: u64,
    tx_seq: u8,
    streaming: bool,
    done_sent: bool,
    stop: Arc<AtomicBool>,
    counter: Arc<AtomicU32>,
    done_tx: mpsc::Sender<SimReport>,
    /// The protocol version of the session, once a `Hello` was accepted.
    session_version: Option<u8>,
    /// The LED frame shown.
    leds: Arc<Mutex<Option<LedFrame>>>,
    /// Sessions accepted so far.
    sessions: u32,
    /// Draws the line noise of `garbage`.
    rng: ChaCha8Rng,
    /// Board time until which the wire carries noise instead of the scans, ms.
    garbage_until_ms: Option<u64>,
    /// The next frame is cut in half (`cut`).
    cut_next: bool,
    /// The next frame gets a corrupted CRC (`badcrc`).
    bad_crc_next: bool,
    /// Board time at which the microcontroller last restarted: its millisecond clock (a
    /// scan's `board_ms`) counts from there, ms.
    clock_zero_ms: u64,
}

impl Device {
    fn run(&mut self, mut port: Port) -> io::Result<()> {
        let mut decoder = FrameDecoder::new();
        // Real time at which board time 0 happened, for paced speeds.
        let mut epoch: Option<Instant> = None;
        let mut speed = self.config.speed;
        let mut buf = [0u8; 512];
        while !self.stop.load(Ordering::Relaxed) {
            // Host frames: Hello, Ping.
            let waiting = port.master.bytes_to_read().unwrap_or(0);
            if waiting > 0 || !self.streaming {
                match port.master.read(&mut buf) {
                    Ok(n) => self.handle_input(&mut port, &mut decoder, &buf[..n])?,
                    Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    // EIO while no one has the slave open: keep waiting
                    Err(_) => thread::sleep(Duration::from_millis(20)),
                }
            }
            if !self.streaming {
                continue;
            }
            let (board_ms, buttons, cells) = match self.replay.tick() {
                Tick::Unplug { duration_ms } => {
                    port = self.unplug(port, duration_ms, speed, false)?;
                    decoder = FrameDecoder::new();
                    continue; // unplugged: wait for a new Hello
                }
                Tick::Fault(fault) => {
                    match fault {
                        LinkFault::Garbage { duration_ms } => {
                            self.garbage_until_ms =
                                Some(self.replay.board_ms().saturating_add(duration_ms));
                        }
                        LinkFault::Cut => self.cut_next = true,
                        LinkFault::BadCrc => self.bad_crc_next = true,
                        LinkFault::Silence { duration_ms } => self.silence(duration_ms, speed),
                        LinkFault::Replug { duration_ms } => {
                            port = self.unplug(port, duration_ms, speed, true)?;
                            decoder = FrameDecoder::new();
                        }
                        LinkFault::Reset(kind) => {
                            decoder = FrameDecoder::new();
                            self.reset(kind, &mut port)?;
                        }
                    }
                    continue;
                }
                Tick::Scan {
                    board_ms,
                    buttons,
                    cells,
                } => (board_ms, buttons, cells),
            };
            let scan = Scan {
                scan_counter: self.scan_counter,
                // The microcontroller's clock restarts with it (PROTOCOL.md §5.3).
                board_ms: board_ms.saturating_sub(self.clock_zero_ms) as u32,
                buttons,
                cells,
            };
            // At a paced speed a board whose host does not read (the service is down) drops its
            // scans, as a real board's full USB buffer does, and keeps its own time: it never
            // sends a backlog of stale scans in a burst once a host reads again (that would run
            // the game clock on board time that never was).
            let host_away = matches!(speed, Speed::Factor(_))
                && port.slave.bytes_to_read().unwrap_or(0) > HOST_AWAY_BYTES;
            if host_away {
                // dropped: the host sees the gap in the frame numbers
            } else if self.garbage_until_ms.is_some_and(|until| board_ms < until) {
                // Line noise: the scan was sent, the host gets as many random bytes.
                self.tx_seq = self.tx_seq.wrapping_add(1);
                let mut noise = vec![0u8; encoded_len(&Message::Scan(scan))];
                self.rng.fill_bytes(&mut noise);
                self.write_all(&mut port, &noise)?;
            } else {
                self.garbage_until_ms = None;
                self.send(&mut port, Message::Scan(scan))?;
            }
            self.counter.store(self.scan_counter, Ordering::Relaxed);
            self.scans += 1;
            if !self.done_sent && self.replay.is_played_out(self.config.tail_ms) {
                self.done_sent = true;
                let _ = self.done_tx.send(SimReport {
                    last_scan_counter: self.scan_counter,
                    scans: self.scans,
                    board_ms,
                    sessions: self.sessions,
                });
                // After the game the board stays on the table, scanning in real time.
                speed = Speed::Factor(1.0);
                epoch = None;
            }
            self.scan_counter = self.scan_counter.wrapping_add(1);
            if let Speed::Factor(f) = speed {
                let next_ms = self.replay.board_ms() as f64;
                let start = *epoch.get_or_insert_with(|| {
                    Instant::now() - Duration::from_secs_f64(next_ms / 1000.0 / f)
                });
                let due = start + Duration::from_secs_f64(next_ms / 1000.0 / f);
                let now = Instant::now();
                if due > now {
                    thread::sleep(due - now);
                }
            }
        }
        Ok(())
    }

    fn handle_input(
        &mut self,
        port: &mut Port,
        decoder: &mut FrameDecoder,
        mut bytes: &[u8],
    ) -> io::Result<()> {
        loop {
            match decoder.feed(bytes) {
                Feed::NeedMore => return Ok(()),
                Feed::Error { rest, .. } => bytes = rest,
                Feed::Frame { frame, rest } => {
                    bytes = rest;
                    match frame.message {
                        Message::Hello(hello) => {
                            let accepted = (MIN_PROTOCOL_VERSION..=self.config.protocol_version)
                                .contains(&hello.protocol_version);
                            self.session_version = accepted.then_some(hello.protocol_version);
                            self.sessions += u32::from(accepted);
                            // A new session shows nothing until the host sends a frame (§5.6).
                            *self.leds.lock().unwrap_or_else(|e| e.into_inner()) = None;
                            self.send(
                                port,
                                Message::HelloAck(HelloAck {
                                    protocol_version: self.config.protocol_version,
                                    accepted,
                                    board_size: self.board_size,
                                    scan_rate_hz: (1000 / SCAN_MS) as u8,
                                    firmware_version: 1,
                                    device_id: self.config.device_id,
                                }),
                            )?;
                            // A new session on the board: counters restart (PROTOCOL.md §4).
                            self.streaming = accepted;
                            self.scan_counter = 0;
                            self.replay.restart_buttons();
                        }
                        Message::Ping(ping) => {
                            self.send(port, Message::Pong(Pong { nonce: ping.nonce }))?
                        }
                        // PROTOCOL.md §5.6: show it, answer with what is shown.
                        Message::LedFrame(frame)
                            if self.session_version.is_some_and(|v| v >= 2)
                                && frame.board_size() == self.board_size =>
                        {
                            *self.leds.lock().unwrap_or_else(|e| e.into_inner()) = Some(frame);
                            self.send(
                                port,
                                Message::LedAck(LedAck {
                                    frame_id: frame.frame_id,
                                    content_crc: frame.content_crc(),
                                }),
                            )?
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    fn send(&mut self, port: &mut Port, message: Message) -> io::Result<()> {
        let frame = Frame {
            seq: self.tx_seq,
            message,
        };
        self.tx_seq = self.tx_seq.wrapping_add(1);
        let mut out = [0u8; MAX_FRAME_LEN];
        let mut n = encode(&frame, &mut out).map_err(|e| io::Error::other(e.to_string()))?;
        if std::mem::take(&mut self.bad_crc_next) {
            n = encode_bad_crc(&frame, &mut out)?;
        }
        if std::mem::take(&mut self.cut_next) {
            n /= 2; // the first half goes out, the rest is lost
        }
        self.write_all(port, &out[..n])
    }

    /// Writes `bytes`, waiting while the host does not read (unless stopped).
    fn write_all(&mut self, port: &mut Port, bytes: &[u8]) -> io::Result<()> {
        let mut off = 0;
        while off < bytes.len() {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            match port.master.write(&bytes[off..]) {
                Ok(k) => off += k,
                // The host is not reading: wait (at full speed this is the backpressure).
                Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The cable is pulled: the pty disappears for `duration_ms` of board time (the board keeps
    /// its stones, players may keep playing), then a new pty appears under the same symlink and
    /// the board, freshly powered, waits for a Hello.
    ///
    /// With `new_node` (`replug`) it comes back on another `/dev/pts/N` than before: the new
    /// pty is taken before the old one is closed, and exposed when the outage ends.
    fn unplug(
        &mut self,
        port: Port,
        duration_ms: u64,
        speed: Speed,
        new_node: bool,
    ) -> io::Result<Port> {
        let link = self.config.link.clone();
        if speed == Speed::Max {
            // Board time has run ahead of the host: let the service read what was sent before
            // the cable goes (a hang-up discards unread input), as it would have in real time.
            // Written bytes reach the slave's queue a moment later, so the queue must stay
            // empty for a while.
            let deadline = Instant::now() + Duration::from_secs(5);
            let mut quiet = 0;
            while quiet < 5 && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(10));
                if port.slave.bytes_to_read().unwrap_or(0) == 0 {
                    quiet += 1;
                } else {
                    quiet = 0;
                }
            }
        }
        let next = if new_node {
            Some(Port::open_pair()?)
        } else {
            None
        };
        drop(port);
        if let Some(link) = &link {
            let _ = std::fs::remove_file(link);
        }
        let real = match speed {
            Speed::Max => Duration::from_millis(100),
            Speed::Factor(f) => Duration::from_secs_f64(duration_ms as f64 / 1000.0 / f),
        };
        thread::sleep(real);
        // Actions during the outage happen on the board in board time.
        self.replay.outage(duration_ms);
        self.streaming = false;
        self.session_version = None;
        self.garbage_until_ms = None;
        // Powered again: the LEDs are dark until the host sends a frame.
        *self.leds.lock().unwrap_or_else(|e| e.into_inner()) = None;
        match next {
            Some(port) => {
                if let Some(link) = &link {
                    port.expose(link)?;
                }
                Ok(port)
            }
            None => Port::open(link.as_deref()),
        }
    }

    /// The board neither sends nor reads for `duration_ms` of board time (real time at
    /// `--speed max`); the physical board runs on meanwhile.
    fn silence(&mut self, duration_ms: u64, speed: Speed) {
        let real = match speed {
            Speed::Max => Duration::from_millis(duration_ms),
            Speed::Factor(f) => Duration::from_secs_f64(duration_ms as f64 / 1000.0 / f),
        };
        let deadline = Instant::now() + real;
        self.replay.run_silent(duration_ms);
        self.garbage_until_ms = None;
        while !self.stop.load(Ordering::Relaxed) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            thread::sleep(left.min(Duration::from_millis(50)));
        }
    }

    /// The microcontroller restarts: the session, the LEDs, the scan and button counters and
    /// its millisecond clock start over; what it does next depends on `kind`.
    fn reset(&mut self, kind: ResetKind, port: &mut Port) -> io::Result<()> {
        let version = self.session_version.unwrap_or(self.config.protocol_version);
        self.scan_counter = 0;
        self.replay.restart_buttons();
        self.clock_zero_ms = self.replay.board_ms();
        self.garbage_until_ms = None;
        self.cut_next = false;
        self.bad_crc_next = false;
        *self.leds.lock().unwrap_or_else(|e| e.into_inner()) = None;
        match kind {
            ResetKind::Silent => {
                self.streaming = false;
                self.session_version = None;
            }
            ResetKind::Hello => {
                self.session_version = Some(version);
                self.sessions += 1;
                self.streaming = true;
                // A delimiter first ends any half frame (PROTOCOL.md §2.1).
                self.write_all(port, &[0])?;
                self.send(
                    port,
                    Message::HelloAck(HelloAck {
                        protocol_version: self.config.protocol_version,
                        accepted: true,
                        board_size: self.board_size,
                        scan_rate_hz: (1000 / SCAN_MS) as u8,
                        firmware_version: 1,
                        device_id: self.config.device_id,
                    }),
                )?;
            }
            ResetKind::Stream => {
                self.session_version = Some(version);
                self.streaming = true;
            }
        }
        Ok(())
    }
}

/// Length of `message`'s frame on the wire, delimiter included, bytes.
fn encoded_len(message: &Message) -> usize {
    let mut out = [0u8; MAX_FRAME_LEN];
    encode(
        &Frame {
            seq: 1,
            message: *message,
        },
        &mut out,
    )
    .unwrap_or(MAX_FRAME_LEN)
}

/// Writes `frame` to `out` as it goes on the wire but with its CRC-32C corrupted
/// (PROTOCOL.md §2.3); returns the length written.
fn encode_bad_crc(frame: &Frame, out: &mut [u8; MAX_FRAME_LEN]) -> io::Result<usize> {
    let mut raw = [0u8; MAX_RAW_FRAME_LEN];
    let len = frame
        .encode_raw(&mut raw)
        .map_err(|e| io::Error::other(e.to_string()))?;
    if let Some(b) = raw.get_mut(len.saturating_sub(4)) {
        *b ^= 0x5A;
    }
    let wire = cobs_encode(raw.get(..len).unwrap_or(&[]));
    let n = wire.len().min(MAX_FRAME_LEN - 1);
    out[..n].copy_from_slice(&wire[..n]);
    out[n] = 0;
    Ok(n + 1)
}

/// COBS (PROTOCOL.md §2.1) without the delimiter.
fn cobs_encode(raw: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8];
    let mut code_at = 0;
    let mut code = 1u8;
    for &b in raw {
        if b != 0 {
            out.push(b);
            code += 1;
        }
        if b == 0 || code == 0xFF {
            out[code_at] = code;
            code_at = out.len();
            out.push(0);
            code = 1;
        }
    }
    out[code_at] = code;
    out
}

impl Drop for Device {
    fn drop(&mut self) {
        if let Some(link) = &self.config.link {
            let _ = std::fs::remove_file(link);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smartgoban_protocol::{DecodeError, Ping};

    #[test]
    fn a_bad_crc_frame_decodes_to_a_crc_error_and_cobs_matches_the_crate() {
        let frame = Frame {
            seq: 7,
            message: Message::Ping(Ping { nonce: 0x0012_0034 }),
        };
        let mut good = [0u8; MAX_FRAME_LEN];
        let n = encode(&frame, &mut good).unwrap();
        let mut raw = [0u8; MAX_RAW_FRAME_LEN];
        let len = frame.encode_raw(&mut raw).unwrap();
        let mut ours = cobs_encode(&raw[..len]);
        ours.push(0);
        assert_eq!(ours, &good[..n], "same COBS as the crate");
        let mut bad = [0u8; MAX_FRAME_LEN];
        let m = encode_bad_crc(&frame, &mut bad).unwrap();
        let got: Vec<_> = FrameDecoder::new().frames(&bad[..m]).collect();
        assert!(matches!(got[..], [Err(DecodeError::Crc { .. })]), "{got:?}");
    }
}
