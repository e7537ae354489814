//! `siftdds perf` end to end: a publisher writing an exact count to a subscriber (reliable
//! KEEP_ALL: the subscriber must see every sequence number), and a few hundred ping-pong
//! round trips. Asserts the closing `summary:` lines are well-formed and nothing was lost;
//! never a rate or a latency (the machine is shared).

// Child processes run in real time: bounding them needs the wall clock and a poll interval.
#![allow(clippy::disallowed_methods)]

use std::collections::HashMap;
use std::io::Read;
use std::process::{Child, Command, Output, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::sandbox::may_open_sockets;

/// Longest a perf process may take here (discovery, the run, the acknowledgments).
const PROCESS_TIMEOUT: Duration = Duration::from_secs(60);

pub(crate) fn perf(args: &[&str]) -> Running {
    start(
        Command::new(env!("CARGO_BIN_EXE_siftdds"))
            .arg("perf")
            .args(args),
    )
}

/// A child process whose output is read while it runs: a child blocked on a full pipe would
/// never exit.
pub(crate) struct Running {
    child: Child,
    stdout: Option<JoinHandle<Vec<u8>>>,
    stderr: Option<JoinHandle<Vec<u8>>>,
}

/// Reads a child's pipe to its end on a thread of its own.
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> Option<JoinHandle<Vec<u8>>> {
    pipe.map(|mut r| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = r.read_to_end(&mut bytes);
            bytes
        })
    })
}

/// Spawns `cmd` with its stdout and stderr piped and drained.
pub(crate) fn start(cmd: &mut Command) -> Running {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (stdout, stderr) = (drain(child.stdout.take()), drain(child.stderr.take()));
    Running {
        child,
        stdout,
        stderr,
    }
}

/// Waits for the child (killing it, by its own handle, after [`PROCESS_TIMEOUT`]).
pub(crate) fn finish(mut r: Running) -> Output {
    let start = Instant::now();
    while r.child.try_wait().unwrap().is_none() {
        if start.elapsed() > PROCESS_TIMEOUT {
            let _ = r.child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = r.child.wait().unwrap();
    let collect = |h: Option<JoinHandle<Vec<u8>>>| h.map(|h| h.join().unwrap()).unwrap_or_default();
    Output {
        status,
        stdout: collect(r.stdout),
        stderr: collect(r.stderr),
    }
}

/// The `key=value` fields of the one `summary:` line (units such as `/s` stripped).
pub(crate) fn summary(out: &Output) -> HashMap<String, f64> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("summary: "))
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "one summary line expected:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    lines[0]["summary: ".len()..]
        .split(' ')
        .map(|kv| {
            let (k, v) = kv
                .split_once('=')
                .unwrap_or_else(|| panic!("not key=value: {kv:?} in {}", lines[0]));
            let v = v
                .trim_end_matches("/s")
                .parse::<f64>()
                .unwrap_or_else(|e| panic!("{kv}: {e}"));
            (k.to_string(), v)
        })
        .collect()
}

#[test]
fn perf_pub_count_reaches_sub_without_loss() {
    if !may_open_sockets("perf_pub_count_reaches_sub_without_loss") {
        return;
    }
    let sub = perf(&["sub", "--domain", "140", "--count", "3000"]);
    let publisher = finish(perf(&[
        "pub", "--domain", "140", "--count", "3000", "--size", "1024",
    ]));
    let sub = finish(sub);
    assert!(
        publisher.status.success(),
        "pub: {}",
        String::from_utf8_lossy(&publisher.stdout)
    );
    assert!(
        sub.status.success(),
        "sub: {}",
        String::from_utf8_lossy(&sub.stdout)
    );
    let p = summary(&publisher);
    assert_eq!(p["samples"], 3000.0);
    assert_eq!(p["lost"], 0.0);
    let s = summary(&sub);
    let keys: Vec<&str> = {
        let mut k: Vec<&str> = s.keys().map(String::as_str).collect();
        k.sort_unstable();
        k
    };
    assert_eq!(keys, ["lost", "mbps", "rate", "samples"]);
    assert_eq!(s["samples"], 3000.0, "every sample arrives");
    assert_eq!(s["lost"], 0.0, "no gap in the sequence numbers");
    assert!(s["rate"] > 0.0 && s["mbps"] > 0.0);
    // Piped, as into a log file: plain lines, no progress redrawn with carriage returns; the
    // opening lines say what they wait for, and for how long.
    for (who, out) in [("pub", &publisher), ("sub", &sub)] {
        assert!(
            !out.stdout.contains(&b'\r') && !out.stderr.contains(&b'\r'),
            "{who}"
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("RELIABLE KEEP_ALL") && stdout.contains("waiting up to 30 s"),
            "{who}: {stdout}"
        );
    }
}

#[test]
fn perf_ping_pong_completes_round_trips() {
    if !may_open_sockets("perf_ping_pong_completes_round_trips") {
        return;
    }
    let pong = perf(&["pong", "--domain", "141"]);
    let ping = finish(perf(&[
        "ping", "--domain", "141", "--count", "300", "--size", "1024",
    ]));
    let pong = finish(pong);
    assert!(
        ping.status.success(),
        "ping: {}",
        String::from_utf8_lossy(&ping.stdout)
    );
    let s = summary(&ping);
    assert_eq!(s["samples"], 300.0);
    let (p50, p90, p99, max) = (s["p50_us"], s["p90_us"], s["p99_us"], s["max_us"]);
    assert!(0.0 < p50 && p50 <= p90 && p90 <= p99 && p99 <= max, "{s:?}");
    assert!(
        pong.status.success(),
        "pong: {}",
        String::from_utf8_lossy(&pong.stdout)
    );
    assert!(summary(&pong)["samples"] >= 300.0);
}

#[test]
fn perf_64k_samples_reach_sub_intact_without_loss() {
    // 64 KiB samples: two DATA_FRAG each, the 60 000-byte one sent from the stored sample
    // (gather send) and reassembled into reused buffers; the sub checks every sequence number.
    if !may_open_sockets("perf_64k_samples_reach_sub_intact_without_loss") {
        return;
    }
    let sub = perf(&["sub", "--domain", "195", "--count", "2000"]);
    let publisher = finish(perf(&[
        "pub", "--domain", "195", "--count", "2000", "--size", "64k",
    ]));
    let sub = finish(sub);
    assert!(
        publisher.status.success(),
        "pub: {}",
        String::from_utf8_lossy(&publisher.stdout)
    );
    assert!(
        sub.status.success(),
        "sub: {}",
        String::from_utf8_lossy(&sub.stdout)
    );
    let s = summary(&sub);
    assert_eq!(s["samples"], 2000.0, "every sample arrives");
    assert_eq!(s["lost"], 0.0, "no gap in the sequence numbers");
}

#[test]
fn udp_ping_pong_completes_round_trips() {
    if !may_open_sockets("udp_ping_pong_completes_round_trips") {
        return;
    }
    let pong = perf(&["udp-pong", "--domain", "196", "--duration", "20"]);
    let ping = finish(perf(&[
        "udp-ping", "--domain", "196", "--count", "300", "--size", "1024",
    ]));
    let pong = finish(pong);
    assert!(
        ping.status.success(),
        "udp-ping: {}",
        String::from_utf8_lossy(&ping.stdout)
    );
    let s = summary(&ping);
    assert_eq!(s["samples"], 300.0);
    let (p50, p90, p99, max) = (s["p50_us"], s["p90_us"], s["p99_us"], s["max_us"]);
    assert!(0.0 < p50 && p50 <= p90 && p90 <= p99 && p99 <= max, "{s:?}");
    assert!(
        pong.status.success(),
        "udp-pong: {}",
        String::from_utf8_lossy(&pong.stdout)
    );
    assert!(summary(&pong)["samples"] >= 300.0);
}

#[test]
fn udp_ping_through_the_relay_completes_round_trips() {
    if !may_open_sockets("udp_ping_through_the_relay_completes_round_trips") {
        return;
    }
    // Raw-UDP ports only (6000 + 2·domain): no RTPS domain is involved.
    let pong = perf(&["udp-pong", "--domain", "197", "--duration", "20"]);
    let relay = perf(&["udp-relay", "--domain", "197", "--duration", "20"]);
    let ping = finish(perf(&[
        "udp-ping",
        "--domain",
        "197",
        "--via-relay",
        "--count",
        "300",
        "--size",
        "100",
    ]));
    let (pong, relay) = (finish(pong), finish(relay));
    assert!(
        ping.status.success(),
        "udp-ping: {}",
        String::from_utf8_lossy(&ping.stdout)
    );
    assert_eq!(summary(&ping)["samples"], 300.0);
    assert!(
        relay.status.success(),
        "udp-relay: {}",
        String::from_utf8_lossy(&relay.stdout)
    );
    // Each round trip crosses the relay twice: the ping, then its echo.
    assert!(summary(&relay)["relayed"] >= 600.0, "{:?}", summary(&relay));
    assert!(summary(&pong)["samples"] >= 300.0);
}
