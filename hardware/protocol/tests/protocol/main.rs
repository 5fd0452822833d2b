//! Integration tests of the serial protocol v1 against hardware/PROTOCOL.md.
//!
//! One test binary (shared helpers in `util`): round trips, streams cut anywhere, resync after
//! bad input, and golden bytes checked by an independent script (tests/golden/golden.py).

mod golden;
mod resync;
mod roundtrip;
mod stream;
mod util;
