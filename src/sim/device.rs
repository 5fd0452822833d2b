//! The virtual microcontroller on a pseudo-terminal: the thread, pty and pacing shell around
//! [`VirtualBoard`], the sans-IO board (hardware/PROTOCOL.md, versions 1 to 4) that turns a
//! timeline of physical actions into 50 scans a second, shows the LED frames the host sends and
//! keeps the board's history.
//!
//! The device waits for the host's `Hello`, answers `HelloAck`, then streams scans whose
//! `board_ms` advances 20 ms per scan on the virtual clock. In a version-2 session it takes
//! `LedFrame`s, keeps the one it shows ([`SimHandle::leds`]) and answers each with an `LedAck`
//! carrying the CRC of the frame it holds; in a version-3 session it answers the history
//! requests (§14) from everything it recorded, also while unplugged, silent or not read; in a
//! version-4 session a board read through Hall sensors (`--firmware`) answers the calibration
//! messages (§15), and one fresh from the factory (`--uncalibrated`) holds its game until it is
//! calibrated and a new session opens (the calibrating host gone, the service's `Hello`). It
//! also plays the link faults of board scripts
//! ([`LinkFault`]: line noise, a cut or corrupted frame, a silent link, a re-plug on another
//! pseudo-terminal node, a restart of the microcontroller). At `--speed max` nothing sleeps:
//! the pty's buffer blocks the device whenever the service falls behind, so it runs exactly as
//! fast as the service keeps up. At `--speed X` the virtual clock runs X times real time.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serialport::{SerialPort, TTYPort};

use super::action::TimedAction;
use super::board::{BoardConfig, Step, VirtualBoard};
use super::noise::NoiseParams;
use smartgoban_protocol::{BoardSize, LedFrame};

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
    /// it): [`smartgoban_protocol::PROTOCOL_VERSION`] (3: LEDs and history), 2 for a board
    /// without history, or 1 for a board without LEDs.
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
    board_ms: Arc<AtomicU64>,
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

    /// The report, if the timeline is already played out. It is handed out once: later calls
    /// answer `None` while the board goes on scanning its last position.
    pub fn try_done(&self) -> Option<SimReport> {
        self.done.try_recv().ok()
    }

    /// Counter of the last scan sent.
    pub fn scan_counter(&self) -> u32 {
        self.counter.load(Ordering::Relaxed)
    }

    /// Board time of the last scan, ms (scanned whether or not a host reads it).
    pub fn board_ms(&self) -> u64 {
        self.board_ms.load(Ordering::Relaxed)
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
    let path = config
        .link
        .clone()
        .unwrap_or_else(|| port.slave_path.clone());
    let (done_tx, done) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let counter = Arc::new(AtomicU32::new(0));
    let board_ms = Arc::new(AtomicU64::new(0));
    let leds = Arc::new(Mutex::new(None));
    let board = VirtualBoard::new(
        actions,
        BoardConfig {
            board_size,
            seed: config.seed,
            noise: config.noise.clone(),
            device_id: config.device_id,
            protocol_version: config.protocol_version,
        },
    );
    let mut device = Device {
        board,
        config,
        done_sent: false,
        stop: stop.clone(),
        counter: counter.clone(),
        board_ms: board_ms.clone(),
        done_tx,
        leds: leds.clone(),
    };
    let thread = thread::Builder::new()
        .name("virtual-board".into())
        .spawn(move || device.run(port))?;
    Ok(SimHandle {
        path,
        done,
        stop,
        counter,
        board_ms,
        leds,
        thread: Some(thread),
    })
}

/// Bytes the host has left unread beyond which a paced board drops its scans (the host is
/// away): 2 KiB, under the pty's 4 KiB line buffer, about 18 full 19×19 scans.
const HOST_AWAY_BYTES: u32 = 2048;

/// How long the host must have been quiet before a link fault at `--speed max`.
const CATCH_UP_QUIET: Duration = Duration::from_millis(100);

/// The longest a link fault at `--speed max` waits for the host.
const CATCH_UP_LIMIT: Duration = Duration::from_secs(10);

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
    config: DeviceConfig,
    /// The microcontroller: everything but the pty and the pacing.
    board: VirtualBoard,
    done_sent: bool,
    stop: Arc<AtomicBool>,
    counter: Arc<AtomicU32>,
    board_ms: Arc<AtomicU64>,
    done_tx: mpsc::Sender<SimReport>,
    /// The LED frame shown, for readers on other threads.
    leds: Arc<Mutex<Option<LedFrame>>>,
}

impl Device {
    fn run(&mut self, mut port: Port) -> io::Result<()> {
        // Real time at which board time 0 happened, for paced speeds.
        let mut epoch: Option<Instant> = None;
        let mut speed = self.config.speed;
        let mut buf = [0u8; 512];
        while !self.stop.load(Ordering::Relaxed) {
            // Host frames: Hello, Ping, LedFrame, HistoryOpen, HistoryPull.
            let waiting = port.master.bytes_to_read().unwrap_or(0);
            if waiting > 0 || !self.board.streaming() {
                match port.master.read(&mut buf) {
                    Ok(n) => {
                        self.board.handle_bytes(&buf[..n]);
                        self.flush(&mut port)?;
                    }
                    Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    // EIO while no one has the slave open: keep waiting
                    Err(_) => thread::sleep(Duration::from_millis(20)),
                }
            }
            if !self.board.streaming() {
                continue;
            }
            // At a paced speed a board whose host does not read (the service is down) drops its
            // scans, as a real board's full USB buffer does, and keeps its own time: it never
            // sends a backlog of stale scans in a burst once a host reads again (that would run
            // the game clock on board time that never was). It records them all the same.
            let host_away = matches!(speed, Speed::Factor(_))
                && port.slave.bytes_to_read().unwrap_or(0) > HOST_AWAY_BYTES;
            if speed == Speed::Max && self.board.link_fault_due() {
                self.let_host_catch_up(&mut port)?;
            }
            let board_ms = match self.board.tick(!host_away) {
                Step::Unplug {
                    duration_ms,
                    new_node,
                } => {
                    self.flush(&mut port)?;
                    port = self.unplug(port, duration_ms, speed, new_node)?;
                    continue; // unplugged: wait for a new Hello
                }
                Step::Silence { duration_ms } => {
                    self.flush(&mut port)?;
                    self.silence(duration_ms, speed);
                    continue;
                }
                Step::Fault(_) => {
                    self.flush(&mut port)?;
                    continue;
                }
                Step::Scanned { board_ms, .. } => board_ms,
            };
            self.flush(&mut port)?;
            self.counter
                .store(self.board.last_scan_counter(), Ordering::Relaxed);
            self.board_ms.store(board_ms, Ordering::Relaxed);
            if !self.done_sent && self.board.is_played_out(self.config.tail_ms) {
                self.done_sent = true;
                let _ = self.done_tx.send(SimReport {
                    last_scan_counter: self.board.last_scan_counter(),
                    scans: self.board.scans(),
                    board_ms,
                    sessions: self.board.sessions(),
                });
                // After the game the board stays on the table, scanning in real time.
                speed = Speed::Factor(1.0);
                epoch = None;
            }
            if let Speed::Factor(f) = speed {
                let next_ms = self.board.board_ms() as f64;
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

    /// Writes what the board has for the host, and publishes the LED frame it shows.
    fn flush(&mut self, port: &mut Port) -> io::Result<()> {
        *self.leds.lock().unwrap_or_else(|e| e.into_inner()) = self.board.leds();
        let bytes = self.board.take_output();
        self.write_all(port, &bytes)
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

    /// At `--speed max` board time runs far ahead of the host's real time: before a link fault
    /// the board lets the host catch up, as it would have in real time. It answers the host's
    /// frames until the host has read everything sent (a hang-up discards unread input), has
    /// opened the history exchange of a version-3 session, and has sent nothing for
    /// [`CATCH_UP_QUIET`] (at most [`CATCH_UP_LIMIT`] in all: a host that is not there
    /// is not waited for).
    fn let_host_catch_up(&mut self, port: &mut Port) -> io::Result<()> {
        let deadline = Instant::now() + CATCH_UP_LIMIT;
        let mut quiet_since = Instant::now();
        let mut buf = [0u8; 512];
        while !self.stop.load(Ordering::Relaxed) && Instant::now() < deadline {
            let waiting = port.master.bytes_to_read().unwrap_or(0);
            if waiting > 0 {
                if let Ok(n) = port.master.read(&mut buf) {
                    self.board.handle_bytes(&buf[..n]);
                    self.flush(port)?;
                }
                quiet_since = Instant::now();
                continue;
            }
            if port.slave.bytes_to_read().unwrap_or(0) > 0 || self.board.awaits_history_open() {
                quiet_since = Instant::now();
            } else if quiet_since.elapsed() >= CATCH_UP_QUIET {
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }

    /// The cable is pulled: the pty disappears for `duration_ms` of board time (the board keeps
    /// its stones, players may keep playing; a version-3 board, on its own power, keeps
    /// scanning and recording), then a new pty appears under the same symlink and the board
    /// waits for a Hello.
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
        // What happens during the outage happens on the board in board time.
        self.board.unplug(duration_ms);
        // Back on the wire: the LEDs are dark until the host sends a frame.
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
        self.board.silence(duration_ms);
        while !self.stop.load(Ordering::Relaxed) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            thread::sleep(left.min(Duration::from_millis(50)));
        }
    }
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
    use super::super::board::{cobs_encode, encode_bad_crc};
    use smartgoban_protocol::{
        encode, DecodeError, Frame, FrameDecoder, Message, Ping, MAX_FRAME_LEN, MAX_RAW_FRAME_LEN,
    };

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
        let m = encode_bad_crc(&frame, &mut bad);
        let got: Vec<_> = FrameDecoder::new().frames(&bad[..m]).collect();
        assert!(matches!(got[..], [Err(DecodeError::Crc { .. })]), "{got:?}");
    }
}
