//! The folder layout is the architecture (DESIGN.md "Core and shell", "Folders"): the core
//! imports nothing of the shell, and the shell's parts talk through the daemon — the API reads
//! the daemon's shared view, nothing below the composition root (`cli`) depends on the API
//! (issue 15, item 14).

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable source folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every line of the sources under `src/<part>` (a folder or one file) that names one of
/// `forbidden`, with its file and line number.
fn uses(part: &str, forbidden: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let path = root.join(part);
    let mut files = Vec::new();
    if path.is_dir() {
        sources(&path, &mut files);
    } else {
        files.push(path);
    }
    assert!(!files.is_empty(), "no sources in {part}");
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable source");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for name in forbidden {
                if code.contains(name) {
                    found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn the_core_imports_nothing_of_the_shell() {
    let shell = [
        "tokio",
        "axum",
        "hyper",
        "rusqlite",
        "serialport",
        "rppal",
        "crate::daemon",
        "crate::api",
        "crate::store",
        "crate::link::serial",
        "crate::cli",
        "std::fs",
        "std::net",
        "SystemTime",
        "Instant::now",
    ];
    for part in [
        "rules", "sensing", "referee", "clock", "leds", "session", "event.rs",
    ] {
        let found = uses(part, &shell);
        assert!(
            found.is_empty(),
            "{part} uses the shell:\n{}",
            found.join("\n")
        );
    }
}

#[test]
fn nothing_below_the_composition_root_depends_on_the_api() {
    // (config.rs reads the settings of every part, the API's limits among them, for the
    // composition root: it is not below it)
    for part in ["daemon", "link", "store", "devices", "sim", "session"] {
        let found = uses(part, &["crate::api", "api::serve", "api::Server"]);
        assert!(
            found.is_empty(),
            "{part} depends on the API:\n{}",
            found.join("\n")
        );
    }
}
