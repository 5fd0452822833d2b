//! The config parser (`config::Config::parse`: TOML, then every value checked) on arbitrary
//! UTF-8 text: bad text is an error naming the file, never a panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use smartgoban::config::Config;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = Config::parse(text, Path::new("fuzz.toml")) {
        assert!(e.to_string().contains("fuzz.toml"), "{e}");
    }
});
