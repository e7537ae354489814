//! Counted skips. A test that cannot run here (no private network namespace, a peer binary or
//! tool not installed, no lossy link) calls [`skip`] and returns. libtest still reports it as
//! passed, so `skip` also records it where `scripts/test` can count it: one line appended to
//! the file named by `SIFTDDS_SKIP_LOG` (set by `scripts/test` to a temporary file); the closing
//! summary moves every recorded test from "passed" to "skipped" and lists it.
//!
//! Shared by the `interop` and `lossy` test binaries and by the library's socket tests
//! (`src/transport/tests.rs` includes this file with `#[path]`), so there is one skip format.
//!
//! Must not: decide whether a test may run (the callers do). It fails the test only when the
//! skip cannot be recorded, since an unrecorded skip would be counted as a pass.

use std::io::Write;

/// Environment variable naming the file that collects skips (one line per skipped test).
pub const SKIP_LOG_ENV: &str = "SIFTDDS_SKIP_LOG";

/// Reports that `test` did not run because of `reason`: prints `SKIPPED {test}: {reason}` on
/// stderr and appends `{binary}\t{test path}\t{reason}` to `$SIFTDDS_SKIP_LOG` when set.
///
/// The line goes to the stderr handle directly (the harness captures `eprintln!`, and a skip
/// must never be silent). The test path is libtest's name for the test's thread (module path
/// included, unique within a binary) when there is one, else `test`.
pub fn skip(test: &str, reason: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {reason}");
    let Some(path) = std::env::var_os(SKIP_LOG_ENV) else {
        return;
    };
    let thread = std::thread::current();
    let name = match thread.name() {
        Some(name) if name != "main" => name,
        _ => test,
    };
    let binary = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_default();
    // Drop a build hash suffix (`interop-0123abcd…`), keeping the binary's name.
    let binary = match binary.rsplit_once('-') {
        Some((stem, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            stem.to_owned()
        }
        _ => binary,
    };
    let record = format!("{binary}\t{name}\t{}\n", reason.replace(['\t', '\n'], " "));
    // One write of one short line to a file opened for appending: concurrent tests and test
    // binaries do not interleave within a line.
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(record.as_bytes()));
    if let Err(e) = written {
        panic!("{test} skipped, but the skip could not be recorded in {path:?}: {e}");
    }
}
