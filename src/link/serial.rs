//! The serial port: a blocking reader/writer thread that keeps the device path open.
//!
//! Device path: the board's USB CDC port on the Pi (`/dev/ttyACM0`, or better a stable name
//! such as `/dev/serial/by-id/usb-…` or the udev symlink from `systemd/`), or the pseudo-terminal
//! of the virtual board. The path is reopened on every reconnect, so a symlink that moves to a
//! new device node is followed.
//!
//! # Troubleshooting
//! * "Permission denied": add the service user to the `dialout` group.
//! * "No such file or directory": the board is unplugged, or the path is wrong; `ls
//!   /dev/serial/by-id/` lists the boards present.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

use tokio::sync::mpsc as tokio_mpsc;

/// What the port thread reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortEvent {
    /// The device was opened.
    Opened,
    /// Bytes were read.
    Bytes(Vec<u8>),
    /// The device failed or vanished; the thread retries.
    Closed(String),
    /// Opening failed (reported once per distinct error while retrying).
    OpenFailed(String),
}

/// Pause between attempts to open a missing device: no busy loop while it is gone.
pub const REOPEN_INTERVAL: Duration = Duration::from_millis(500);

/// Read timeout: how long a read waits for bytes before the thread looks at what to write.
const READ_TIMEOUT: Duration = Duration::from_millis(20);

/// Baud rate set on the port (USB CDC ignores it; a UART would not).
pub const BAUD_RATE: u32 = 115_200;

/// Handle to the port thread. Dropping it stops the thread.
#[derive(Debug)]
pub struct SerialPort {
    outgoing: mpsc::Sender<Vec<u8>>,
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl SerialPort {
    /// Starts the thread that opens `path` (again and again if needed) and reports to
    /// `events`. The channel's capacity is the backpressure: when the session falls behind,
    /// the thread stops reading.
    pub fn spawn(path: PathBuf, events: tokio_mpsc::Sender<PortEvent>) -> io::Result<SerialPort> {
        let (outgoing, rx) = mpsc::channel::<Vec<u8>>();
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let thread = thread::Builder::new()
            .name("serial".into())
            .spawn(move || port_thread(&path, &events, &rx, &stop2))?;
        Ok(SerialPort {
            outgoing,
            stop,
            thread: Some(thread),
        })
    }

    /// Queues bytes to write (dropped if the port is closed when they come up).
    pub fn write(&self, bytes: Vec<u8>) {
        let _ = self.outgoing.send(bytes);
    }
}

impl Drop for SerialPort {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn port_thread(
    path: &Path,
    events: &tokio_mpsc::Sender<PortEvent>,
    outgoing: &mpsc::Receiver<Vec<u8>>,
    stop: &AtomicBool,
) {
    let mut last_error: Option<String> = None;
    while !stop.load(Ordering::Relaxed) {
        let port = serialport::new(path.to_string_lossy(), BAUD_RATE)
            .timeout(READ_TIMEOUT)
            .open_native();
        let mut port = match port {
            Ok(p) => p,
            Err(e) => {
                let msg = format!("cannot open {}: {}", path.display(), e.description);
                if last_error.as_deref() != Some(msg.as_str()) {
                    last_error = Some(msg.clone());
                    if events.blocking_send(PortEvent::OpenFailed(msg)).is_err() {
                        return;
                    }
                }
                sleep_unless_stopped(REOPEN_INTERVAL, stop);
                continue;
            }
        };
        last_error = None;
        // Bytes queued while the port was closed belong to the old connection.
        while outgoing.try_recv().is_ok() {}
        if events.blocking_send(PortEvent::Opened).is_err() {
            return;
        }
        let reason = serve(&mut port, events, outgoing, stop);
        drop(port);
        match reason {
            Some(reason) => {
                if events.blocking_send(PortEvent::Closed(reason)).is_err() {
                    return;
                }
                sleep_unless_stopped(REOPEN_INTERVAL, stop);
            }
            None => return,
        }
    }
}

/// Moves bytes until the port fails (`Some(reason)`) or the thread is stopped (`None`).
fn serve(
    port: &mut serialport::TTYPort,
    events: &tokio_mpsc::Sender<PortEvent>,
    outgoing: &mpsc::Receiver<Vec<u8>>,
    stop: &AtomicBool,
) -> Option<String> {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        while let Ok(bytes) = outgoing.try_recv() {
            if let Err(e) = port.write_all(&bytes) {
                return Some(format!("write failed: {e}"));
            }
        }
        match port.read(&mut buf) {
            Ok(0) => return Some("device closed".into()),
            Ok(n) => {
                if events
                    .blocking_send(PortEvent::Bytes(buf[..n].to_vec()))
                    .is_err()
                {
                    return None;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::TimedOut => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Some(format!("read failed: {e}")),
        }
    }
}

fn sleep_unless_stopped(total: Duration, stop: &AtomicBool) {
    let step = Duration::from_millis(50);
    let mut left = total;
    while !left.is_zero() && !stop.load(Ordering::Relaxed) {
        let d = left.min(step);
        thread::sleep(d);
        left -= d;
    }
}
