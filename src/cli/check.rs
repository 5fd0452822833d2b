//! `smartgoban check`: records validated under the Chinese rules.

use std::io::Write;

use super::CheckArgs;
use crate::rules::{check_record, GameRecord};

/// Outcome of `check`, as the exit code says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckOutcome {
    /// Every record is legal (exit 0).
    Clean,
    /// At least one record contains a violation (exit 1).
    Violations,
    /// At least one file could not be read as SGF (exit 2).
    Unreadable,
}

impl CheckOutcome {
    /// Process exit code.
    pub fn exit_code(self) -> i32 {
        match self {
            CheckOutcome::Clean => 0,
            CheckOutcome::Violations => 1,
            CheckOutcome::Unreadable => 2,
        }
    }
}

/// Checks every file; writes one line per violation to `out` and problems to `err`:
/// `FILE: move N B Q16: forbidden_point (R19): …`.
pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> CheckOutcome {
    let mut violations = 0usize;
    let mut files_with = 0usize;
    let mut unreadable = 0usize;
    for path in &args.files {
        let bytes = match crate::files::read_input(path) {
            Ok(b) => b,
            Err(e) => {
                let _ = writeln!(err, "{}: cannot read: {e}", path.display());
                unreadable += 1;
                continue;
            }
        };
        let record = match GameRecord::from_sgf_bytes(&bytes) {
            Ok(r) => r,
            Err(e) => {
                let _ = writeln!(err, "{}: {e}", path.display());
                unreadable += 1;
                continue;
            }
        };
        let report = check_record(&record);
        let size = record.info.size;
        if !report.violations.is_empty() {
            files_with += 1;
        }
        for v in &report.violations {
            violations += 1;
            let point = v
                .point
                .map(|p| p.to_gtp(size))
                .unwrap_or_else(|| "pass".to_string());
            let _ = writeln!(
                out,
                "{}: move {} {} {}: {} ({}): {}",
                path.display(),
                v.number,
                v.color.sgf_letter(),
                point,
                v.code.as_str(),
                v.clause,
                v.detail
            );
        }
    }
    let _ = writeln!(
        err,
        "checked {} record(s): {violations} violation(s) in {files_with}, {unreadable} unreadable",
        args.files.len()
    );
    if unreadable > 0 {
        CheckOutcome::Unreadable
    } else if violations > 0 {
        CheckOutcome::Violations
    } else {
        CheckOutcome::Clean
    }
}
