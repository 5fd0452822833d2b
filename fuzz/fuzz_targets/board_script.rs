//! The board-script parser (`sim::script::Script::parse`) on arbitrary UTF-8 text: a line it
//! cannot read is an error naming the line, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smartgoban::sim::Script;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Script::parse(text) {
        Ok(script) => {
            assert!(script.actions.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
        }
        Err(e) => {
            assert!(e.line >= 1 && e.line <= text.lines().count().max(1), "{e}");
        }
    }
});
