//! What the consumer's peer tests need around the application: whether they may open sockets
//! here, where the vendor peers are, a peer process whose output is read line by line, and
//! counted skips. A stand-alone copy of the repository's conventions (README, "Network
//! safety"; the `SIFTDDS_SKIP_LOG` skip record that `scripts/test-summary` counts), so that
//! this crate depends on nothing of the repository's test code.
//!
//! Must not: decide whether a test passes; leave a peer process running (a dropped [`Peer`]
//! is killed, by the PID this test started).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;

use siftdds::transport::scope;

/// A vendor peer program.
#[derive(Copy, Clone, Debug)]
pub enum Vendor {
    /// Cyclone DDS 0.10 (`shapes_cyclone`, built by `scripts/build-peers`).
    Cyclone,
    /// Fast DDS 2.9 (`shapes_fastdds`, built by `scripts/build-peers`).
    FastDds,
    /// The PyPI `cyclonedds` binding (Cyclone DDS 11), `shapes_xcdr.py`.
    Python,
}

impl Vendor {
    /// The command that starts this peer with `args`, restricted to the sandbox's loopback.
    fn command(self, args: &[&str]) -> Command {
        let mut cmd = match self {
            Vendor::Cyclone => Command::new(peer_path("target/peers/cyclone/shapes_cyclone")),
            Vendor::FastDds => Command::new(peer_path("target/peers/fastdds/shapes_fastdds")),
            Vendor::Python => {
                let mut cmd = Command::new("python3");
                cmd.arg(peer_path("interop-tests/peers/python/shapes_xcdr.py"));
                cmd
            }
        };
        cmd.args(args).env(
            "CYCLONEDDS_URI",
            "<General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces></General>",
        );
        cmd
    }

    /// Why this peer cannot run here, if it cannot.
    fn missing(self) -> Option<String> {
        match self {
            Vendor::Cyclone | Vendor::FastDds => {
                let program = self.command(&[]).get_program().to_owned();
                match PathBuf::from(&program).exists() {
                    true => None,
                    false => Some(format!(
                        "{} not built (scripts/build-peers builds it)",
                        program.to_string_lossy()
                    )),
                }
            }
            Vendor::Python => {
                let ok = Command::new("python3")
                    .args(["-c", "import cyclonedds"])
                    .output()
                    .is_ok_and(|o| o.status.success());
                match ok {
                    true => None,
                    false => Some("python3 cannot import cyclonedds (scripts/setup)".into()),
                }
            }
        }
    }
}

/// A peer program of the repository, from its root (this crate is one level below it).
fn peer_path(rel: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join(rel)
}

/// True when `test` may run against `vendor`: inside a private network namespace with
/// multicast, the peer present. Otherwise records a counted skip and returns false.
pub fn ready(test: &str, vendor: Vendor) -> bool {
    let loopback_only = std::env::var(scope::LOOPBACK_ONLY_VAR).as_deref() == Ok("1");
    if !scope::inside_namespace() || loopback_only {
        skip(
            test,
            "needs multicast inside a private network namespace (run scripts/test)",
        );
        return false;
    }
    match vendor.missing() {
        Some(why) => {
            skip(test, &why);
            false
        }
        None => true,
    }
}

/// Prints `SKIPPED {test}: {reason}` and appends `{binary}\t{test}\t{reason}` to the file
/// `$SIFTDDS_SKIP_LOG` names, if any: the record `scripts/test-summary` moves from passed to
/// skipped. Panics when the record cannot be written (an unrecorded skip would count as a
/// pass).
pub fn skip(test: &str, reason: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {reason}");
    let Some(log) = std::env::var_os("SIFTDDS_SKIP_LOG") else {
        return;
    };
    // The test binary's name without cargo's hash suffix.
    let exe = std::env::current_exe().ok();
    let stem = exe
        .as_deref()
        .and_then(|e| e.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let binary = stem.rsplit_once('-').map_or(stem.as_str(), |(b, _)| b);
    let line = format!("{binary}\t{test}\t{}\n", reason.replace(['\t', '\n'], " "));
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        panic!("{test} skipped, but the skip could not be recorded in {log:?}: {e}");
    }
}

/// A running peer. Its stdout and stderr lines arrive on a channel (stderr prefixed
/// `stderr: `), so waiting for a line needs no polling; the channel closes when the peer has
/// closed both, i.e. exited.
pub struct Peer {
    child: Child,
    lines: Receiver<String>,
    /// Every line received so far.
    seen: Vec<String>,
}

fn forward(stream: impl Read + Send + 'static, prefix: &'static str, to: Sender<String>) {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            if to.send(format!("{prefix}{line}")).is_err() {
                return;
            }
        }
    });
}

impl Peer {
    /// Starts `vendor` with `args`.
    pub fn spawn(vendor: Vendor, args: &[&str]) -> Peer {
        let mut child = vendor
            .command(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{vendor:?} did not start: {e}"));
        let (tx, lines) = channel();
        if let Some(out) = child.stdout.take() {
            forward(out, "", tx.clone());
        }
        if let Some(err) = child.stderr.take() {
            forward(err, "stderr: ", tx);
        }
        Peer {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits until the peer printed a line containing `pattern` (true), exited or `timeout`
    /// passed (false).
    pub fn wait_line(&mut self, pattern: &str, timeout: Duration) -> bool {
        if self.seen.iter().any(|l| l.contains(pattern)) {
            return true;
        }
        let deadline = std::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let found = line.contains(pattern);
                    self.seen.push(line);
                    if found {
                        return true;
                    }
                }
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return false,
            }
        }
    }

    /// Waits (at most `timeout`, then kills it) for the peer to exit and returns its status
    /// (`None` when killed) and everything it printed.
    pub fn finish(mut self, timeout: Duration) -> (Option<ExitStatus>, String) {
        let deadline = std::time::Instant::now() + timeout;
        let closed = loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(RecvTimeoutError::Disconnected) => break true,
                Err(RecvTimeoutError::Timeout) => break false,
            }
        };
        if !closed {
            let _ = self.child.kill();
        }
        let status = self.child.wait().ok().filter(|_| closed);
        (status, self.seen.join("\n"))
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
