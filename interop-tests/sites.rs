//! Cross-host interop (issue 12) inside `netns-sites` topologies: every node is a network
//! namespace of its own ("a host"), joined by veth links on 198.18.k.0/24, so siftdds must
//! pick and announce real interface addresses to be reached at all. The harness builds a
//! topology, runs a bash script in it that starts processes with `run NAME SECS NODE CMD…`
//! (each bounded by `timeout`, its stdout/stderr/exit code collected into a temp dir), and
//! the tests assert in Rust on those files. Scenarios: `two_hosts` (siftdds, Cyclone's
//! `ddsperf` and Fast DDS across one link, both directions) and `multi_homed` (one writer on
//! a host with two links, interface selection, a capture on each link).
//!
//! Must not: touch the machine's real network (`netns-sites` keeps every interface inside
//! private namespaces), or hide a skip: a missing prerequisite prints `SKIPPED <test>: <why>`
//! through [`skip`].

// Processes run in real time: the harness measures wall time.
#![allow(clippy::disallowed_methods)]

mod multi_homed;
mod peer_group;
mod peer_group_faults;
mod router;
mod router_chain;
mod router_ha;
mod router_late;
mod router_mesh;
mod router_ring;
mod router_security;
mod router_wire_type;
mod two_hosts;

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::skip::skip;

/// The `siftdds` binary (`perf`, `inspect`) of this build.
pub(crate) const SIFTDDS: &str = env!("CARGO_BIN_EXE_siftdds");
/// The `shape_main` binary of this build.
pub(crate) const SHAPE_MAIN: &str = env!("CARGO_BIN_EXE_shape_main");

/// Prints a line of results to the test output even when the harness captures output.
pub(crate) fn report(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// What a scenario needs besides `netns-sites` and root.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Need {
    /// An executable on PATH.
    Tool(&'static str),
    /// A peer built by `scripts/build-peers` under `target/peers/`.
    Peer(&'static str),
}

/// A vendor peer under `target/peers/` (built by `scripts/build-peers`).
pub(crate) fn peer(rel: &str) -> PathBuf {
    crate::vendor_peer(rel)
}

/// `$SIFTDDS_NETNS_SITES` when set, else the repository's `scripts/netns-sites`.
fn netns_sites() -> Option<PathBuf> {
    let path = match std::env::var_os("SIFTDDS_NETNS_SITES") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(repo_path!("scripts/netns-sites")),
    };
    path.is_file().then_some(path)
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .and_then(|l| l.split_whitespace().nth(2))
            == Some("0")
    })
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
}

/// The topology tool when every prerequisite is there; otherwise reports the skip.
fn prerequisites(test: &str, needs: &[Need]) -> Option<PathBuf> {
    let Some(tool) = netns_sites() else {
        skip(
            test,
            "scripts/netns-sites not found (nor SIFTDDS_NETNS_SITES set to it)",
        );
        return None;
    };
    if !is_root() {
        skip(test, "netns-sites needs root");
        return None;
    }
    for need in needs {
        match *need {
            Need::Tool(t) if !on_path(t) => {
                skip(
                    test,
                    &format!("{t} not on PATH (scripts/setup installs it)"),
                );
                return None;
            }
            Need::Peer(p) if !peer(p).is_file() => {
                skip(
                    test,
                    &format!("{} not built (scripts/build-peers)", peer(p).display()),
                );
                return None;
            }
            _ => {}
        }
    }
    Some(tool)
}

/// Shell functions every scenario script can use (besides netns-sites' `site NODE CMD…`).
const PRELUDE: &str = r#"
set -u
# run NAME SECS NODE CMD...: CMD inside NODE in the background, ended by SIGINT after SECS
# (SIGKILL 3 s later); stdout/stderr into $OUT/NAME.out/.err, "exit-code start end" into
# $OUT/NAME.rc once it ended.
run() {
  local name=$1 secs=$2 node=$3; shift 3
  (
    t0=$(date +%s.%N)
    timeout -s INT -k 3 "$secs" site "$node" "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" &
    echo $! >"$OUT/$name.pid.tmp"; mv "$OUT/$name.pid.tmp" "$OUT/$name.pid"
    wait $!; rc=$?
    echo "$rc $t0 $(date +%s.%N)" >"$OUT/$name.rc"
  ) &
  while [ ! -e "$OUT/$name.pid" ]; do sleep 0.01; done
}
# stop NAME: SIGINT to it (timeout forwards it), then wait until it ended.
stop() {
  [ -e "$OUT/$1.rc" ] && return 0
  kill -INT "$(cat "$OUT/$1.pid")" 2>/dev/null || true
  local n=60; while [ ! -e "$OUT/$1.rc" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n-1)); done
}
# kill9 NAME: SIGKILL to NAME's command (the child of its `timeout`: no handler, no goodbye),
# then wait until it ended.
kill9() {
  [ -e "$OUT/$1.rc" ] && return 0
  pkill -KILL -P "$(cat "$OUT/$1.pid")" 2>/dev/null || true
  local n=60; while [ ! -e "$OUT/$1.rc" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n-1)); done
}
# await NAME SECS: wait until NAME ended by itself, at most SECS, then stop it.
await() {
  local n=$(( $2 * 10 ))
  while [ ! -e "$OUT/$1.rc" ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n-1)); done
  stop "$1"
}
# until_lines NAME REGEX COUNT SECS: wait until NAME's stdout has COUNT lines matching REGEX,
# NAME ended, or SECS passed.
until_lines() {
  local n=$(( $4 * 10 ))
  while [ $n -gt 0 ] && [ ! -e "$OUT/$1.rc" ]; do
    [ "$(grep -cE "$2" "$OUT/$1.out" 2>/dev/null || true)" -ge "$3" ] && return 0
    sleep 0.1; n=$((n-1))
  done
}
"#;

/// The files one topology run left behind.
pub(crate) struct Sites {
    dir: PathBuf,
    /// The whole script's wall time.
    pub(crate) elapsed: Duration,
}

impl Sites {
    /// The path of `$OUT/NAME`.
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Stdout of process NAME (empty when it never started).
    pub(crate) fn out(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(&format!("{name}.out"))).unwrap_or_default()
    }

    /// Stderr of process NAME.
    pub(crate) fn err(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(&format!("{name}.err"))).unwrap_or_default()
    }

    /// Exit code of NAME (124 or 130-ish when `timeout`/`stop` ended it) and its wall time.
    pub(crate) fn rc(&self, name: &str) -> Option<(i32, f64)> {
        let s = std::fs::read_to_string(self.path(&format!("{name}.rc"))).ok()?;
        let f: Vec<&str> = s.split_whitespace().collect();
        let (rc, t0, t1) = (f.first()?, f.get(1)?, f.get(2)?);
        let secs = t1.parse::<f64>().ok()? - t0.parse::<f64>().ok()?;
        Some((rc.parse().ok()?, secs))
    }

    /// Stdout, stderr and exit status of NAME, for failure messages.
    pub(crate) fn dump(&self, name: &str) -> String {
        let tail = |s: String| {
            let lines: Vec<&str> = s.lines().collect();
            lines[lines.len().saturating_sub(15)..].join("\n")
        };
        format!(
            "--- {name}: rc {:?}\n{}\n--- {name} stderr:\n{}",
            self.rc(name),
            tail(self.out(name)),
            tail(self.err(name))
        )
    }
}

static RUNS: AtomicU32 = AtomicU32::new(0);

/// Builds the topology of `links` (`"A:B"`, …), runs `script` (after [`PRELUDE`]) in it with
/// `$OUT` (the output directory), `$SIFTDDS`, `$SHAPE_MAIN`, `$CYCLONE`, `$FASTDDS` set, all
/// ended after `limit`. `None` (with the skip printed) when a prerequisite is missing. The
/// output directory is removed when the test passes and kept (its path printed) when it fails.
pub(crate) fn run_sites(
    test: &str,
    needs: &[Need],
    links: &[&str],
    script: &str,
    limit: Duration,
) -> Option<Sites> {
    run_sites_impaired(test, needs, links, &[], script, limit)
}

/// [`run_sites`] with `--impair LINK SPEC` for each `(link, spec)` of `impairs`.
pub(crate) fn run_sites_impaired(
    test: &str,
    needs: &[Need],
    links: &[&str],
    impairs: &[(&str, &str)],
    script: &str,
    limit: Duration,
) -> Option<Sites> {
    let tool = prerequisites(test, needs)?;
    let dir = std::env::temp_dir().join(format!(
        "siftdds-sites-{}-{}-{test}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut cmd = Command::new("timeout");
    cmd.args(["-k", "5", &limit.as_secs().to_string()])
        .arg(&tool);
    for l in links {
        // "lan=L:N1,N2,…" is a shared LAN (`--lan`), anything else a link.
        match l.strip_prefix("lan=") {
            Some(lan) => cmd.args(["--lan", lan]),
            None => cmd.args(["--link", l]),
        };
    }
    for (link, spec) in impairs {
        cmd.args(["--impair", link, spec]);
    }
    cmd.args(["--", "bash", "-c", &format!("{PRELUDE}\n{script}"), "sites"])
        .env("OUT", &dir)
        .env("SIFTDDS", SIFTDDS)
        .env("SHAPE_MAIN", SHAPE_MAIN)
        .env("CYCLONE", peer("cyclone/shapes_cyclone"))
        .env("FASTDDS", peer("fastdds/shapes_fastdds"))
        // Each scenario chooses its interfaces itself.
        .env_remove("SIFTDDS_INTERFACES")
        .env_remove("CYCLONEDDS_URI")
        .env_remove("RUST_LOG");
    let start = Instant::now();
    let out = cmd.output().unwrap();
    let elapsed = start.elapsed();
    std::fs::write(dir.join("script.out"), &out.stdout).unwrap();
    std::fs::write(dir.join("script.err"), &out.stderr).unwrap();
    assert!(
        out.status.success(),
        "netns-sites run failed ({}) after {elapsed:?}:\n{}\n{}\n(outputs in {})",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        dir.display()
    );
    Some(Sites { dir, elapsed })
}

impl Drop for Sites {
    fn drop(&mut self) {
        if std::thread::panicking() || std::env::var_os("SIFTDDS_KEEP_SITES").is_some() {
            report(&format!("(outputs kept in {})", self.dir.display()));
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The `key=value` fields of `siftdds perf`'s `summary:` line (units such as `/s` stripped).
pub(crate) fn perf_summary(stdout: &str) -> Option<HashMap<String, f64>> {
    let line = stdout.lines().rfind(|l| l.starts_with("summary: "))?;
    line["summary: ".len()..]
        .split(' ')
        .map(|kv| {
            let (k, v) = kv.split_once('=')?;
            Some((k.to_string(), v.trim_end_matches("/s").parse().ok()?))
        })
        .collect()
}

/// The start-up line the binaries print on stderr: `siftdds: scope SCOPE, announcing IP[, IP…]`
/// → (scope, addresses).
pub(crate) fn scope_line(stderr: &str) -> Option<(String, Vec<String>)> {
    let rest = stderr
        .lines()
        .find_map(|l| l.trim().strip_prefix("siftdds: scope "))?;
    let (scope, ips) = rest.split_once(", announcing ")?;
    Some((
        scope.to_string(),
        ips.split(", ").map(|s| s.trim().to_string()).collect(),
    ))
}

/// One cell of the cross-host matrix.
pub(crate) struct Case {
    pub(crate) peer: &'static str,
    pub(crate) direction: String,
    pub(crate) scenario: &'static str,
    /// `Ok(figures)` or `Err(why it failed)`.
    pub(crate) result: Result<String, String>,
}

/// Prints the cases as matrix rows and fails the test listing every failed case.
pub(crate) fn conclude(test: &str, cases: &[Case], sites: &Sites) {
    for c in cases {
        let (verdict, detail) = match &c.result {
            Ok(f) => ("pass", f.as_str()),
            Err(e) => ("FAIL", e.lines().next().unwrap_or("")),
        };
        report(&format!(
            "MATRIX {:<8} {:<22} {:<12} {verdict} {detail}",
            c.peer, c.direction, c.scenario
        ));
    }
    report(&format!("{test}: topology run {:.1?}", sites.elapsed));
    let failed: Vec<String> = cases
        .iter()
        .filter_map(|c| {
            c.result
                .as_ref()
                .err()
                .map(|e| format!("{} {} {}: {e}", c.peer, c.direction, c.scenario))
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} cases failed:\n{}",
        failed.len(),
        cases.len(),
        failed.join("\n\n")
    );
}

/// `Err(msg)` unless `cond`.
pub(crate) fn check(cond: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if cond { Ok(()) } else { Err(msg()) }
}
