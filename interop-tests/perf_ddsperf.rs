//! `siftdds perf` and Cyclone's `ddsperf` (cyclonedds-tools) measure each other, each pairing
//! once and briefly: `ddsperf ping` with `siftdds perf pong`, `siftdds perf ping` with
//! `ddsperf pong`, `ddsperf pub` to `siftdds perf sub`, `siftdds perf pub` to `ddsperf sub`.
//! Asserts correctness only: exit statuses (`ddsperf` fails a run in which a `DDSPerf:`
//! participant did not match all its endpoints, or a reliable KEEP_ALL sample was lost), round
//! trips happened, summaries are well-formed, nothing was lost; never a rate or a latency.
//! Skipped, with the reason printed, without `ddsperf` on PATH or outside the sandbox.

use std::process::{Command, Output, Stdio};

use crate::perf::{Running, finish, perf, start, summary};
use crate::sandbox::may_open_sockets;
use crate::skip::skip;

/// True when the test can run: inside the sandbox and with `ddsperf` installed.
fn ready(test: &str) -> bool {
    if !may_open_sockets(test) {
        return false;
    }
    let found = Command::new("ddsperf")
        .arg("-h")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !found {
        skip(test, "ddsperf not on PATH (apt install cyclonedds-tools)");
    }
    found
}

/// `ddsperf -i DOMAIN -D SECS ARGS…`.
fn ddsperf(domain: u32, secs: u32, args: &[&str]) -> Running {
    start(
        Command::new("ddsperf")
            .args(["-i", &domain.to_string(), "-D", &secs.to_string()])
            .args(args),
    )
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The value after `key` in `line` (`… key VALUE …`), its unit suffix `unit` stripped.
fn field(line: &str, key: &str, unit: &str) -> Option<f64> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == key)?;
    words.next()?.trim_end_matches(unit).parse().ok()
}

#[test]
fn ddsperf_ping_gets_round_trips_from_siftdds_pong() {
    if !ready("ddsperf_ping_gets_round_trips_from_siftdds_pong") {
        return;
    }
    let pong = perf(&["pong", "--domain", "145", "--duration", "30"]);
    let secs = 4;
    let ping = finish(ddsperf(145, secs, &["ping"]));
    let pong = finish(pong);
    let log = text(&ping);
    assert!(
        ping.status.success(),
        "ddsperf ping failed (unmatched endpoints?):\n{log}"
    );
    // `[pid] 2.000  host:pid size 12 mean …us min …us 50% …us 90% …us 99% …us max …us cnt N`
    let lines: Vec<&str> = log.lines().filter(|l| l.contains(" 50% ")).collect();
    assert!(!lines.is_empty(), "no round-trip lines:\n{log}");
    let mut round_trips = 0.0;
    for l in &lines {
        let p: Vec<f64> = ["min", "50%", "90%", "99%", "max"]
            .iter()
            .map(|k| field(l, k, "us").unwrap())
            .collect();
        assert!(
            p.windows(2).all(|w| w[0] <= w[1]),
            "percentiles out of order: {l}"
        );
        round_trips += field(l, "cnt", "").unwrap();
    }
    // Without the echoed source timestamp ddsperf falls back to one ping a second: at most
    // `secs` round trips in this run.
    assert!(
        round_trips > f64::from(10 * secs),
        "{round_trips} round trips:\n{log}"
    );
    assert!(pong.status.success(), "pong: {}", text(&pong));
    assert!(summary(&pong)["samples"] >= round_trips);
}

#[test]
fn siftdds_ping_gets_round_trips_from_ddsperf_pong() {
    if !ready("siftdds_ping_gets_round_trips_from_ddsperf_pong") {
        return;
    }
    let pong = ddsperf(146, 8, &["pong"]);
    let ping = finish(perf(&[
        "ping", "--domain", "146", "--count", "300", "--size", "1024",
    ]));
    let pong = finish(pong);
    assert!(ping.status.success(), "ping: {}", text(&ping));
    let s = summary(&ping);
    assert_eq!(s["samples"], 300.0);
    let (p50, p90, p99, max) = (s["p50_us"], s["p90_us"], s["p99_us"], s["max_us"]);
    assert!(0.0 < p50 && p50 <= p90 && p90 <= p99 && p99 <= max, "{s:?}");
    assert!(
        pong.status.success(),
        "ddsperf pong failed (unmatched endpoints?):\n{}",
        text(&pong)
    );
}

#[test]
fn ddsperf_pub_reaches_siftdds_sub_without_loss() {
    if !ready("ddsperf_pub_reaches_siftdds_sub_without_loss") {
        return;
    }
    let sub = perf(&["sub", "--domain", "147", "--count", "2000"]);
    let publisher = finish(ddsperf(147, 3, &["pub", "size", "1k"]));
    let sub = finish(sub);
    assert!(
        publisher.status.success(),
        "ddsperf pub:\n{}",
        text(&publisher)
    );
    assert!(sub.status.success(), "sub: {}", text(&sub));
    let s = summary(&sub);
    assert!(s["samples"] >= 2000.0, "{s:?}");
    assert_eq!(s["lost"], 0.0, "no gap in the sequence numbers");
}

#[test]
fn siftdds_pub_reaches_ddsperf_sub_without_loss() {
    if !ready("siftdds_pub_reaches_ddsperf_sub_without_loss") {
        return;
    }
    let sub = ddsperf(148, 6, &["sub"]);
    let publisher = finish(perf(&[
        "pub", "--domain", "148", "--count", "3000", "--size", "1024",
    ]));
    let sub = finish(sub);
    assert!(publisher.status.success(), "pub: {}", text(&publisher));
    assert_eq!(summary(&publisher)["samples"], 3000.0);
    let log = text(&sub);
    assert!(
        sub.status.success(),
        "ddsperf sub failed (lost samples?):\n{log}"
    );
    // `[pid] 1.000  size 1024 total 3000 lost 0 delta … lost 0 rate …`: the last one counts.
    // `total` may miss the first few samples: ddsperf's VOLATILE reader starts at the
    // writer's first HEARTBEAT once *it* has matched our writer, which can be after our
    // writer matched it and wrote. Lost counts gaps after that start, so it must be 0.
    let last = log
        .lines()
        .rfind(|l| l.contains(" total "))
        .unwrap_or_else(|| panic!("no totals:\n{log}"));
    let total = field(last, "total", "").unwrap();
    assert!(0.0 < total && total <= 3000.0, "{last}");
    assert_eq!(field(last, "lost", ""), Some(0.0), "{last}");
}
