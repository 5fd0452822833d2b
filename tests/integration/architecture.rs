//! The folder layout is the architecture (DESIGN.md "Core and shell"): the core never
//! imports the shell's crates and never reads a clock.

use std::path::Path;

use crate::support::root;

const CORE: &[&str] = &[
    "src/clock",
    "src/leds",
    "src/rules",
    "src/sensing",
    "src/referee",
    "src/session",
    "src/event.rs",
    "src/calibrate",
    "hardware/protocol/src",
    "hardware/board-core/src",
];

const FORBIDDEN: &[&str] = &[
    "tokio",
    "axum",
    "serialport",
    "rppal",
    "rusqlite",
    "Instant::now",
    "SystemTime",
    "std::thread",
    "std::fs",
    "std::net",
];

fn rust_files(path: &Path, out: &mut Vec<std::path::PathBuf>) {
    if path.is_dir() {
        for e in std::fs::read_dir(path).unwrap().flatten() {
            rust_files(&e.path(), out);
        }
    } else if path.extension().is_some_and(|x| x == "rs") {
        out.push(path.to_path_buf());
    }
}

#[test]
fn core_modules_do_no_io_and_read_no_clock() {
    let mut files = Vec::new();
    for dir in CORE {
        rust_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 10, "core files found: {files:?}");
    let mut hits = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        // only the code, not the test modules at the end of a file
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with("//") {
                continue;
            }
            for word in FORBIDDEN {
                if line.contains(word) {
                    hits.push(format!("{}:{}: {word}: {line}", f.display(), n + 1));
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "core imports shell things:\n{}",
        hits.join("\n")
    );
}
