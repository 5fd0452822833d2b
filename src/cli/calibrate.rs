//! `smartgoban calibrate`: the shell around [`crate::calibrate::Flow`] — the board's serial
//! port (protocol version 4: raw readings, LED prompts, the calibration image, the sensors'
//! health: hardware/PROTOCOL.md §15), the terminal (the prompt and a progress line; Enter on
//! standard input) and the copy kept in the data directory.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Args;
use smartgoban_protocol::calibration::{
    CalibrationCommit, CalibrationData, CalibrationStatus, HealthRequest, RawRequest, SensorHealth,
    MAX_DATA_BYTES, MAX_RAW_POINTS,
};
use smartgoban_protocol::{
    crc32c, encode, BoardSize, Feed, Frame, FrameDecoder, Hello, HelloAck, Message,
    CALIBRATION_VERSION, MAX_FRAME_LEN,
};

use crate::calibrate::{compute, Flow, Progress, Step};
use crate::config::{Config, DEFAULT_CONFIG};

/// `smartgoban calibrate`.
#[derive(Debug, Clone, Args)]
pub struct CalibrateArgs {
    /// Config file (its `serial` and `data_dir`); default /etc/smartgoban/smartgoban.toml if
    /// it exists.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Serial device of the board (overrides the config; default /dev/smartgoban).
    #[arg(long, value_name = "PATH")]
    pub serial: Option<PathBuf>,
    /// Data directory, where a copy of the calibration is kept in `calibration/` (overrides
    /// the config).
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// Print the report as JSON on standard output (the prompts go to standard error).
    #[arg(long)]
    pub json: bool,
}

/// Errors of `calibrate`; nothing is written to the board unless the calibration is complete.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    /// The config file.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The port.
    #[error("cannot open the board at {path}: {why}")]
    Open {
        /// The device.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// The board does not answer or not as a board.
    #[error("the board at {0}")]
    Board(PathBuf, #[source] BoardError),
    /// The patterns give no calibration.
    #[error("no calibration: {0}")]
    Compute(#[from] crate::calibrate::ComputeError),
    /// The copy in the data directory.
    #[error("cannot keep the calibration in {path}")]
    Keep {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// What went wrong with the board.
#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    /// No `HelloAck`.
    #[error("does not answer (no HelloAck in 5 s): is it plugged in, with its firmware?")]
    NoAnswer,
    /// An older firmware.
    #[error(
        "speaks protocol {0}; calibration needs {CALIBRATION_VERSION}: flash the current \
         firmware (README, \"The board's firmware\")"
    )]
    OldFirmware(u8),
    /// The board stopped sending readings.
    #[error("stopped sending its readings for 5 s")]
    Silent,
    /// The port failed.
    #[error("the port failed: {0}")]
    Port(String),
    /// The board refused or lost the image.
    #[error("did not store the calibration: {0}")]
    NotStored(String),
    /// Its health report is not the calibration's.
    #[error("reports a health that is not the calibration's ({0})")]
    Health(String),
}

/// The calibration written, for the caller and the tests.
#[derive(Debug)]
pub struct Outcome {
    /// The report.
    pub report: crate::calibrate::compute::Report,
    /// Where the copy was kept.
    pub kept: PathBuf,
}

/// The port and the protocol's framing, blocking with a reader thread.
struct Board {
    port: serialport::TTYPort,
    bytes: mpsc::Receiver<Result<Vec<u8>, String>>,
    decoder: FrameDecoder,
    pending: Vec<u8>,
    seq: u8,
    path: PathBuf,
}

impl Board {
    fn open(path: &Path) -> Result<Board, CalibrateError> {
        let port = serialport::new(path.to_string_lossy(), 115_200)
            .timeout(Duration::from_millis(50))
            .open_native()
            .and_then(|p| p.try_clone_native().map(|c| (p, c)));
        let (port, mut reader) = port.map_err(|e| CalibrateError::Open {
            path: path.to_path_buf(),
            why: if std::fs::metadata(path).is_err() {
                "it does not exist (is the board plugged in? else pass --serial PATH)".into()
            } else {
                format!(
                    "{} (if the service has it open, stop it first: sudo systemctl stop \
                     smartgoban)",
                    e.description
                )
            },
        })?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) => {
                        let _ = tx.send(Err("device closed".into()));
                        return;
                    }
                    Ok(n) => {
                        if tx.send(Ok(buf[..n].to_vec())).is_err() {
                            return;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        let _ = tx.send(Err(e.to_string()));
                        return;
                    }
                }
            }
        });
        Ok(Board {
            port,
            bytes: rx,
            decoder: FrameDecoder::new(),
            pending: Vec::new(),
            seq: 0,
            path: path.to_path_buf(),
        })
    }

    fn error(&self, e: BoardError) -> CalibrateError {
        CalibrateError::Board(self.path.clone(), e)
    }

    fn send(&mut self, message: Message) -> Result<(), CalibrateError> {
        let mut buf = [0u8; MAX_FRAME_LEN];
        let frame = Frame {
            seq: self.seq,
            message,
        };
        self.seq = self.seq.wrapping_add(1);
        let n =
            encode(&frame, &mut buf).map_err(|e| self.error(BoardError::Port(e.to_string())))?;
        self.port
            .write_all(&buf[..n])
            .map_err(|e| self.error(BoardError::Port(e.to_string())))
    }

    /// The next message from the board, waiting at most `wait`.
    fn next(&mut self, wait: Duration) -> Result<Option<Message>, CalibrateError> {
        let deadline = Instant::now() + wait;
        loop {
            // frames already received
            let mut rest_at = None;
            let mut got = None;
            if !self.pending.is_empty() {
                let pending = std::mem::take(&mut self.pending);
                let mut bytes = &pending[..];
                loop {
                    match self.decoder.feed(bytes) {
                        Feed::NeedMore => break,
                        Feed::Error { rest, .. } => bytes = rest,
                        Feed::Frame { frame, rest } => {
                            got = Some(frame.message);
                            rest_at = Some(rest.to_vec());
                            break;
                        }
                    }
                }
                if let Some(rest) = rest_at {
                    self.pending = rest;
                }
            }
            if got.is_some() {
                return Ok(got);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.bytes.recv_timeout(left.max(Duration::from_millis(1))) {
                Ok(Ok(bytes)) => self.pending.extend_from_slice(&bytes),
                Ok(Err(e)) => return Err(self.error(BoardError::Port(e))),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if Instant::now() >= deadline {
                        return Ok(None);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(self.error(BoardError::Port("device closed".into())))
                }
            }
        }
    }

    /// The handshake in version 4 (PROTOCOL.md §4): the board's `HelloAck`.
    fn hello(&mut self) -> Result<HelloAck, CalibrateError> {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut next_hello = Instant::now();
        while Instant::now() < deadline {
            if Instant::now() >= next_hello {
                self.send(Message::Hello(Hello {
                    protocol_version: CALIBRATION_VERSION,
                }))?;
                next_hello = Instant::now() + Duration::from_millis(500);
            }
            if let Some(Message::HelloAck(ack)) = self.next(Duration::from_millis(100))? {
                if ack.accepted {
                    return Ok(ack);
                }
                if ack.protocol_version < CALIBRATION_VERSION {
                    return Err(self.error(BoardError::OldFirmware(ack.protocol_version)));
                }
            }
        }
        Err(self.error(BoardError::NoAnswer))
    }
}

/// One full set of raw readings assembled from `RawReadings` pieces.
struct RawSet {
    readings: Vec<u16>,
    got: Vec<bool>,
    asked: Instant,
}

impl RawSet {
    fn new(points: usize) -> RawSet {
        RawSet {
            readings: vec![0; points],
            got: vec![false; points.div_ceil(MAX_RAW_POINTS)],
            asked: Instant::now(),
        }
    }
}

/// Runs the calibration (module docs); prompts and progress to `out` (standard error with
/// `--json`), Enter from `enter`.
///
/// # Errors
/// [`CalibrateError`]: nothing is written to the board unless every step was done.
pub fn calibrate(
    args: &CalibrateArgs,
    enter: mpsc::Receiver<()>,
    out: &mut dyn Write,
    terminal: bool,
) -> Result<Outcome, CalibrateError> {
    let config = match &args.config {
        Some(path) => Config::load(path)?,
        None if Path::new(DEFAULT_CONFIG).exists() => Config::load(Path::new(DEFAULT_CONFIG))?,
        None => Config::defaults(),
    };
    let serial = args
        .serial
        .clone()
        .or(config.serial)
        .unwrap_or_else(|| PathBuf::from("/dev/smartgoban"));
    let data_dir = args.data_dir.clone().unwrap_or(config.data_dir);
    let mut board = Board::open(&serial)?;
    let ack = board.hello()?;
    let size = ack.board_size;
    let _ = writeln!(
        out,
        "board {:08x} on {} ({}x{}, firmware {}): calibrating its Hall sensors",
        ack.device_id,
        serial.display(),
        size.get(),
        size.get(),
        ack.firmware_version
    );
    let mut flow = Flow::new(size);
    let mut leds = flow.leds();
    board.send(Message::LedFrame(leds))?;
    let mut leds_sent = Instant::now();
    let mut leds_acked = false;
    let mut set = RawSet::new(size.points());
    ask_raw(&mut board, size, &mut set)?;
    let mut heard = Instant::now();
    let mut step = None;
    let mut shown = String::new();
    let mut shown_at = Instant::now() - Duration::from_secs(10);
    let started = Instant::now();
    while !flow.finished() {
        while enter.try_recv().is_ok() {
            flow.enter();
        }
        if step != Some(flow.step()) {
            step = Some(flow.step());
            if terminal {
                let _ = writeln!(out);
            }
            let _ = writeln!(out, "{}", flow.progress().prompt);
            if flow.leds() != leds {
                leds = flow.leds();
                board.send(Message::LedFrame(leds))?;
                leds_sent = Instant::now();
                leds_acked = false;
            }
        }
        if !leds_acked && leds_sent.elapsed() >= Duration::from_millis(500) {
            board.send(Message::LedFrame(leds))?;
            leds_sent = Instant::now();
        }
        match board.next(Duration::from_millis(20))? {
            Some(Message::RawReadings(r)) => {
                heard = Instant::now();
                let first = usize::from(r.first_point);
                if let Some(slot) = set.got.get_mut(first / MAX_RAW_POINTS) {
                    *slot = true;
                    for (k, &v) in r.readings().iter().enumerate() {
                        if let Some(dst) = set.readings.get_mut(first + k) {
                            *dst = v;
                        }
                    }
                }
                if set.got.iter().all(|&g| g) {
                    let now = started.elapsed().as_millis() as u64;
                    flow.readings(&set.readings, now);
                    set = RawSet::new(size.points());
                    ask_raw(&mut board, size, &mut set)?;
                }
            }
            Some(Message::LedAck(a)) if a.frame_id == leds.frame_id => leds_acked = true,
            _ => {}
        }
        if set.asked.elapsed() >= Duration::from_millis(300) {
            // a piece lost: ask for the whole set again
            set = RawSet::new(size.points());
            ask_raw(&mut board, size, &mut set)?;
        }
        if heard.elapsed() >= Duration::from_secs(5) {
            return Err(board.error(BoardError::Silent));
        }
        let line = progress_line(&flow.progress(), size);
        if line != shown && (terminal || shown_at.elapsed() >= Duration::from_secs(1)) {
            if terminal {
                let _ = write!(out, "\r{line:<100}");
            } else {
                let _ = writeln!(out, "{line}");
            }
            let _ = out.flush();
            shown = line;
            shown_at = Instant::now();
        }
    }
    if terminal {
        let _ = writeln!(out);
    }
    let Some(patterns) = flow.patterns() else {
        return Err(board.error(BoardError::Silent));
    };
    let done = compute(patterns)?;
    let _ = write!(out, "{}", done.report.text());
    write_image(&mut board, &done.image)?;
    check_health(&mut board, size, &done.health)?;
    let kept = keep(&data_dir, &ack, &done.report)?;
    let _ = writeln!(
        out,
        "stored in the board's flash; a copy is in {}",
        kept.display()
    );
    Ok(Outcome {
        report: done.report,
        kept,
    })
}

/// Asks for every point's raw readings, in pieces of at most 112 points.
fn ask_raw(board: &mut Board, size: BoardSize, set: &mut RawSet) -> Result<(), CalibrateError> {
    set.asked = Instant::now();
    for first in (0..size.points()).step_by(MAX_RAW_POINTS) {
        let count = (size.points() - first).min(MAX_RAW_POINTS);
        board.send(Message::RawRequest(RawRequest {
            first_point: first as u16,
            count: count as u8,
        }))?;
    }
    Ok(())
}

/// One line of progress: the step, what is ready, what is missing, whether the board is still.
fn progress_line(p: &Progress, size: BoardSize) -> String {
    let n = size.get();
    let gtp = |i: &usize| crate::rules::Point::from_index(*i, n).to_gtp(n);
    let step = match p.step {
        Step::Empty => "empty board".to_string(),
        Step::Single(k) => format!("single stone {}", k + 1),
        Step::Black => "every point black".into(),
        Step::White => "every point white".into(),
        Step::Clear => "clearing".into(),
        Step::Finished => "done".into(),
    };
    let mut line = format!("{step}: {} of {} points", p.ready, p.of);
    if !p.missing.is_empty() && p.of > 0 && p.ready + 8 >= p.of {
        let m: Vec<String> = p.missing.iter().map(gtp).collect();
        line.push_str(&format!(", waiting for {}", m.join(" ")));
    }
    if !p.stray.is_empty() {
        let s: Vec<String> = p.stray.iter().map(gtp).collect();
        line.push_str(&format!(", a stone where none should be: {}", s.join(" ")));
    }
    line.push_str(if p.still { ", still" } else { ", moving" });
    if p.collected > 0 {
        line.push_str(&format!(", reading ({})", p.collected));
    }
    line
}

/// Writes the image (pieces, commit, acknowledgement), sending it again on a mismatch.
fn write_image(board: &mut Board, image: &[u8]) -> Result<(), CalibrateError> {
    let crc = crc32c(image);
    for _attempt in 0..3 {
        for (k, piece) in image.chunks(MAX_DATA_BYTES).enumerate() {
            board.send(Message::CalibrationData(CalibrationData::new(
                (k * MAX_DATA_BYTES) as u16,
                piece,
            )))?;
        }
        board.send(Message::CalibrationCommit(CalibrationCommit {
            len: image.len() as u16,
            crc,
        }))?;
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Some(Message::CalibrationAck(ack)) = board.next(Duration::from_millis(100))? {
                match ack.status {
                    CalibrationStatus::Stored => return Ok(()),
                    CalibrationStatus::Mismatch => break,
                    CalibrationStatus::Invalid => {
                        return Err(board.error(BoardError::NotStored(
                            "it found the image invalid (nothing changed)".into(),
                        )))
                    }
                    CalibrationStatus::FlashFailed => {
                        return Err(board.error(BoardError::NotStored(
                            "writing its flash failed: it is used until the board is turned \
                             off; calibrate again"
                                .into(),
                        )))
                    }
                }
            }
        }
    }
    Err(board.error(BoardError::NotStored(
        "the image did not arrive whole in 3 tries".into(),
    )))
}

/// Asks the board for its health: calibrated, with the calibration's faults.
fn check_health(
    board: &mut Board,
    size: BoardSize,
    health: &[smartgoban_board_core::health::Health],
) -> Result<SensorHealth, CalibrateError> {
    for _ in 0..5 {
        board.send(Message::HealthRequest(HealthRequest))?;
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if let Some(Message::SensorHealth(report)) = board.next(Duration::from_millis(50))? {
                let same = report.board_size() == size
                    && report.calibrated
                    && (0..size.points()).all(|i| report.get(i) == health[i].0 & 0x0f);
                if !same {
                    return Err(board.error(BoardError::Health(format!(
                        "calibrated {}",
                        report.calibrated
                    ))));
                }
                return Ok(report);
            }
        }
    }
    Err(board.error(BoardError::Health("no answer".into())))
}

/// Keeps the report (with the image) as `DATA_DIR/calibration/<device id>.json`.
fn keep(
    data_dir: &Path,
    ack: &HelloAck,
    report: &crate::calibrate::compute::Report,
) -> Result<PathBuf, CalibrateError> {
    let dir = data_dir.join("calibration");
    let path = dir.join(format!("{:08x}.json", ack.device_id));
    let body = serde_json::json!({
        "device_id": format!("{:08x}", ack.device_id),
        "firmware_version": ack.firmware_version,
        "calibrated_at_unix_s": SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
        "report": report,
    });
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        let text = serde_json::to_vec_pretty(&body).map_err(std::io::Error::other)?;
        crate::files::write_atomic(&path, &text)
    };
    write().map_err(|source| CalibrateError::Keep {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

/// `smartgoban calibrate` from the command line: Enter from standard input, the prompts and
/// progress on standard output (standard error with `--json`). Exit 0: calibrated; 1: not.
pub fn run(args: &CalibrateArgs) -> i32 {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        loop {
            line.clear();
            match std::io::stdin().read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if tx.send(()).is_err() {
                        return;
                    }
                }
            }
        }
    });
    let result = if args.json {
        let terminal = std::io::stderr().is_terminal();
        calibrate(args, rx, &mut std::io::stderr(), terminal)
    } else {
        let terminal = std::io::stdout().is_terminal();
        calibrate(args, rx, &mut std::io::stdout(), terminal)
    };
    match result {
        Ok(outcome) => {
            if args.json {
                let _ = serde_json::to_writer_pretty(std::io::stdout(), &outcome.report);
                println!();
            }
            0
        }
        Err(e) => {
            let mut msg = format!("error: {e}");
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                msg.push_str(&format!(": {s}"));
                source = s.source();
            }
            eprintln!("{msg}");
            1
        }
    }
}
