//! The serial port: a blocking reader/writer thread that keeps the device path open.
//!
//! Device path: the board's USB CDC port on the Pi (`/dev/ttyACM0`, or better a stable name
//! such as `/dev/serial/by-id/usb-…` or the udev symlink from `systemd/`), or the pseudo-terminal
//! of the virtual board. The path is reopened on every reconnect, so a symlink that moves to a
//! new device node is followed; and while the port is open the path is looked at every
//! [`REOPEN_INTERVAL`]: once it leads to another device node than the one open (the board came
//! back under another name while the old node lingers), the port is reopened there.
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

/// Identity of a device node: the file system's device and inode, and the device number.
type NodeId = (u64, u64, u64);

/// The node `path` leads to now (symlinks followed), if it exists.
fn node_of(path: &Path) -> Option<NodeId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino(), m.rdev()))
}

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
        // Close-on-exec (a duplicate made with F_DUPFD_CLOEXEC): a child process (the sound
        // player) must not keep the port open, or the next open of an exclusive port fails.
        let port = port.and_then(|p| p.try_clone_native());
        let mut port = match port {
            Ok(p) => p,
            Err(e) => {
                let msg = if std::fs::metadata(path).is_err() {
                    format!(
                        "waiting for the board: {} does not exist yet (is the board plugged in? \
                         the service connects as soon as it appears; else set --serial PATH or \
                         `serial` in the config file)",
                        path.display()
                    )
                } else {
                    format!("cannot open {}: {}", path.display(), e.description)
                };
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
        let reason = serve(&mut port, path, events, outgoing, stop);
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

/// Writes what was queued before the service stopped (the dark LED frame of a service that
/// stops, issue 16), so the board gets the last word.
fn drain(port: &mut serialport::TTYPort, outgoing: &mpsc::Receiver<Vec<u8>>) {
    while let Ok(bytes) = outgoing.try_recv() {
        if port.write_all(&bytes).is_err() {
            return;
        }
    }
    let _ = port.flush();
}

/// Moves bytes until the port fails (`Some(reason)`) or the thread is stopped (`None`).
fn serve(
    port: &mut serialport::TTYPort,
    path: &Path,
    events: &tokio_mpsc::Sender<PortEvent>,
    outgoing: &mpsc::Receiver<Vec<u8>>,
    stop: &AtomicBool,
) -> Option<String> {
    let mut buf = vec![0u8; 16 * 1024];
    // The node opened (looked up just after opening: if the path moved in between, the first
    // check reopens it once more).
    let opened = node_of(path);
    let mut last_check = std::time::Instant::now();
    loop {
        if stop.load(Ordering::Relaxed) {
            drain(port, outgoing);
            return None;
        }
        if last_check.elapsed() >= REOPEN_INTERVAL {
            last_check = std::time::Instant::now();
            // A path that vanished is left alone (reads fail when the device is really gone);
            // one that leads elsewhere now is followed.
            if let Some(now) = node_of(path) {
                if opened.is_some_and(|o| o != now) {
                    return Some(format!("{} now leads to another device", path.display()));
                }
            }
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
                    // the service stops
                    drain(port, outgoing);
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

#[cfg(test)]
mod tests {
    use super::*;
    use serialport::{SerialPort as _, TTYPort};

    fn pty() -> (TTYPort, PathBuf) {
        let (master, slave) = TTYPort::pair().unwrap();
        let name = PathBuf::from(slave.name().unwrap());
        // The slave is opened again by the port thread; ours may go.
        drop(slave);
        (master, name)
    }

    fn point(link: &Path, target: &Path) {
        let tmp = link.with_extension("new");
        std::os::unix::fs::symlink(target, &tmp).unwrap();
        std::fs::rename(&tmp, link).unwrap();
    }

    fn next(rx: &mut tokio_mpsc::Receiver<PortEvent>, want: impl Fn(&PortEvent) -> bool) {
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            assert!(std::time::Instant::now() < deadline, "timed out");
            match rx.try_recv() {
                Ok(ev) if want(&ev) => return,
                Ok(_) => {}
                Err(_) => thread::sleep(Duration::from_millis(10)),
            }
        }
    }

    #[test]
    fn a_symlink_that_moves_to_another_node_is_followed_while_the_old_one_lingers() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("board");
        let (_old_master, old) = pty();
        let (mut new_master, new) = pty();
        assert_ne!(old, new);
        point(&link, &old);
        let (tx, mut rx) = tokio_mpsc::channel(64);
        let port = SerialPort::spawn(link.clone(), tx).unwrap();
        next(&mut rx, |e| *e == PortEvent::Opened);
        // The board comes back on another node; the old one stays open but silent.
        point(&link, &new);
        let moved = std::time::Instant::now();
        next(
            &mut rx,
            |e| matches!(e, PortEvent::Closed(r) if r.contains("another device")),
        );
        next(&mut rx, |e| *e == PortEvent::Opened);
        // within a check interval and a reopen interval
        assert!(
            moved.elapsed() < REOPEN_INTERVAL * 3,
            "{:?}",
            moved.elapsed()
        );
        new_master.write_all(b"hi").unwrap();
        next(
            &mut rx,
            |e| matches!(e, PortEvent::Bytes(b) if b.as_slice() == b"hi"),
        );
        drop(port);
    }
}
