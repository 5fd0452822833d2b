//! The serial link to the board (DESIGN.md "Serial link", hardware/PROTOCOL.md).
//!
//! [`Connection`] is the protocol state machine — handshake, keep-alive, loss detection,
//! frame decoding — written sans-IO like the core: bytes and the time come in, bytes to send
//! and [`LinkEvent`]s come out. [`serial`] is the thin I/O around it: it opens the device path
//! (a USB serial port on the Pi, a pseudo-terminal in simulation), reads and writes bytes, and
//! reopens the path by itself when the device disappears.

pub mod connection;
pub mod health;
pub mod serial;

pub use connection::{Connection, LedDelivery, LinkConfig, LinkEvent, LinkStats};
