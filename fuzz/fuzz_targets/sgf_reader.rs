//! The SGF reader (`GameRecord::from_sgf_bytes`: charset detection, parsing, the record) on
//! arbitrary bytes. A record that reads must write (`to_sgf`) as SGF that reads again, to a
//! record that writes the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use smartgoban::rules::GameRecord;

fuzz_target!(|data: &[u8]| {
    let Ok(record) = GameRecord::from_sgf_bytes(data) else {
        return;
    };
    let text = record.to_sgf();
    let again = match GameRecord::from_sgf_str(&text) {
        Ok(again) => again,
        Err(e) => panic!("to_sgf wrote SGF it cannot read ({e}):\n{text}"),
    };
    assert_eq!(
        again.to_sgf(),
        text,
        "the written record reads back differently"
    );
    // The bytes path (charset detection) reads its own UTF-8 output the same way.
    let bytes = GameRecord::from_sgf_bytes(text.as_bytes()).expect("own output reads as bytes");
    assert_eq!(bytes.to_sgf(), text);
});
