//! What a test could not run, said loudly and recorded for the suite's summary: a skipped test
//! is reported by cargo as `ok`, so `tests/run.sh` names a file in [`LOG_VAR`] and prints, after
//! the run, every skip recorded there (grouped by what was missing and why) and counts the
//! tests that skipped whole as skipped, not passed.
//!
//! Each record is one line of five tab-separated fields: `whole` or `part` (the test returned
//! without checking anything, or checked less than it would have), the test (its binary and
//! name), the group (what is missing: "corpus sweeps", "spirv-val", ...), the reason, and for
//! `part` what ran instead. The runtime suite adds one `runtime` line with its check counts
//! ([`record_runtime`]).

use std::io::Write;

/// The environment variable naming the file skips are appended to.
pub const LOG_VAR: &str = "DXBC_SPIRV_SKIP_LOG";

/// The group of sweeps over `../shared`'s shader corpus.
pub const CORPUS: &str = "corpus sweeps";
/// Why the corpus sweeps skip on a clone without the corpus beside it.
pub const NO_CORPUS: &str = "../shared/corpus absent";

/// The test that is running: its package (cargo sets `CARGO_PKG_NAME` when it runs tests),
/// binary (without cargo's hash) and name.
fn current_test() -> String {
    // argv[0], not current_exe(): under tools/lavapipe.sh the executable is the loader.
    let binary = std::env::args_os()
        .next()
        .map(|a| {
            let name = std::path::Path::new(&a)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match name.rsplit_once('-') {
                Some((stem, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => {
                    stem.to_string()
                }
                _ => name,
            }
        })
        .unwrap_or_default();
    // libtest runs each test on a thread named after it.
    let thread = std::thread::current();
    let package = std::env::var("CARGO_PKG_NAME").map_or(String::new(), |p| format!("{p}/"));
    format!("{package}{binary}::{}", thread.name().unwrap_or("?"))
}

/// Appends one record to the log, when there is one.
fn append(line: &str) {
    let Some(path) = std::env::var_os(LOG_VAR).filter(|p| !p.is_empty()) else {
        return;
    };
    // One write per record, in append mode: records of parallel tests do not interleave.
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        eprintln!("cannot record the skip in {}: {e}", path.to_string_lossy());
    }
}

fn one_line(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

fn record(kind: &str, group: &str, reason: &str, detail: &str) {
    let test = current_test();
    if kind == "part" {
        eprintln!("SKIPPED IN PART: {group}: {reason}: {detail} ({test})");
    } else {
        eprintln!("SKIPPED: {group}: {reason} ({test}: not a pass)");
    }
    append(&format!(
        "{kind}\t{}\t{}\t{}\t{}\n",
        one_line(&test),
        one_line(group),
        one_line(reason),
        one_line(detail)
    ));
}

/// The calling test checks nothing and returns: `group` is missing, because of `reason`.
pub fn skip(group: &str, reason: &str) {
    record("whole", group, reason, "");
}

/// The calling test checks less than it would: what `group` covers did not run, because of
/// `reason`; `what_ran` says what it did instead (e.g. "ran over the bundled examples only").
pub fn skip_part(group: &str, reason: &str, what_ran: &str) {
    record("part", group, reason, what_ran);
}

/// The runtime suite's check counts, for the summary's `runtime:` line.
pub fn record_runtime(passed: u64, failed: u64, skipped: u64) {
    append(&format!("runtime\t{passed}\t{failed}\t{skipped}\n"));
}
