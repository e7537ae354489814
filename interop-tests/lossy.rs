//! Reliable delivery over a lossy real link (issue 7 §3): a siftdds writer sends N reliable
//! KEEP_ALL samples (default 100,000; `SIFTDDS_LOSSY_SAMPLES`) over UDP on a loopback that
//! drops, duplicates and reorders datagrams, to a siftdds reader, a Cyclone DDS reader and a
//! Fast DDS reader; each must get every sample exactly once, in order. Prints the time taken
//! and the writer's retransmissions.
//!
//! The impairment is set up by `scripts/lossy-link` and affects every socket in the namespace,
//! so this binary runs alone in its own `scripts/netns-run` (a step of `scripts/test`): its
//! tests are `#[ignore]`d in a plain `cargo test`, and even with `--ignored` they refuse to run
//! (record a skip, `skip.rs`) unless `SIFTDDS_LOSSY_LINK` (set by that script, describing the impairment)
//! says they own the namespace. Domains 150-152.

// Real processes in real time: this harness reads the clock and polls.
// Test code over real sockets and processes: it reads the clock, sleeps, and indexes and counts
// what it built itself; the parse-path lints are siftdds-proto's.
#![allow(
    clippy::disallowed_methods,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use siftdds::api::{DataReader, DataWriter, DomainParticipant};
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, Length, PublisherQos, Reliability, ReliabilityKind,
    ResourceLimits, SubscriberQos, TopicQos,
};
use siftdds::types::ShapeType;

#[path = "peer_lines.rs"]
mod peer_lines;
use peer_lines::blue_xs;
#[path = "skip.rs"]
mod skip;
use skip::skip;

/// At most this many warm-up samples before the measured run (see `siftdds_to_vendor`).
const MAX_WARM_UP: usize = 250;
/// Default sample count (the figure); CI lowers it with `SIFTDDS_LOSSY_SAMPLES`.
const DEFAULT_SAMPLES: usize = 100_000;
/// Longest a whole run may take before the test fails.
const RUN_TIMEOUT: Duration = Duration::from_secs(900);

/// The impairment description when this binary owns a lossy namespace; records a skip if not.
fn lossy_link(test: &str) -> Option<String> {
    let inside = std::env::var("NETNS_RUN_INSIDE").is_ok_and(|v| v == "1");
    match std::env::var("SIFTDDS_LOSSY_LINK") {
        Ok(link) if inside => Some(link),
        _ => {
            skip(
                test,
                "needs its own lossy namespace (scripts/netns-run scripts/lossy-link \
                 cargo test --test lossy; scripts/test does this)",
            );
            None
        }
    }
}

fn samples() -> usize {
    std::env::var("SIFTDDS_LOSSY_SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_SAMPLES)
}

fn report(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn participant(domain: u32) -> DomainParticipant {
    DomainParticipant::builder(domain)
        .announce_period(Duration::from_millis(500))
        .build()
        .unwrap()
}

fn shape(i: usize) -> ShapeType {
    ShapeType {
        color: "BLUE".into(),
        x: i as i32,
        y: 7,
        shapesize: 30,
        additional_payload_size: vec![],
    }
}

/// Unacknowledged samples the writer may hold: KEEP_ALL with RESOURCE_LIMITS max_samples, so
/// `write` blocks while that many await acknowledgment (DDS flow control). It also bounds the
/// writer history, whose garbage collection costs O(history) per acknowledged sample of one
/// instance (`WriterHistory::remove`), which made an unbounded 100,000-sample run crawl.
const WINDOW: u32 = 1000;

fn writer(p: &DomainParticipant) -> DataWriter<ShapeType> {
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataWriterQos {
        history: History::KeepAll,
        reliability: Reliability {
            kind: ReliabilityKind::Reliable,
            max_blocking_time: siftdds::time::Duration {
                seconds: 60,
                fraction: 0,
            },
        },
        resource_limits: ResourceLimits {
            max_samples: Length::Limited(WINDOW),
            max_samples_per_instance: Length::Limited(WINDOW),
            ..ResourceLimits::default()
        },
        ..DataWriterQos::default()
    };
    p.create_publisher(PublisherQos::default())
        .create_datawriter(&topic, qos)
        .unwrap()
}

/// Writes `n` samples and waits until every matched reader acknowledged them; prints the
/// figures under `label`.
fn publish(label: &str, link: &str, w: &DataWriter<ShapeType>, n: usize) {
    let start = Instant::now();
    for i in 0..n {
        w.write(&shape(i)).unwrap();
    }
    w.wait_for_acknowledgments(RUN_TIMEOUT).unwrap();
    let elapsed = start.elapsed();
    let c = w.counters().unwrap();
    report(&format!(
        "lossy {label}: {n} samples over [{link}] acknowledged in {:.1} s; writer: {} DATA, {} \
         repairs ({:.1} % of samples), {} heartbeats, {} ACKNACKs, {} datagrams",
        elapsed.as_secs_f64(),
        c.data_sent,
        c.repairs_sent,
        100.0 * c.repairs_sent as f64 / n as f64,
        c.heartbeats_sent,
        c.acknacks_received,
        c.wire_datagrams,
    ));
}

#[test]
#[ignore = "needs its own lossy namespace: scripts/netns-run scripts/lossy-link cargo test --test lossy -- --ignored"]
fn siftdds_writer_to_siftdds_reader_over_lossy_link() {
    let test = "siftdds_writer_to_siftdds_reader_over_lossy_link";
    let Some(link) = lossy_link(test) else { return };
    let n = samples();
    let pw = participant(150);
    let pr = participant(150);
    let w = writer(&pw);
    let topic = pr.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    };
    let r: DataReader<ShapeType> = pr
        .create_subscriber(SubscriberQos::default())
        .create_datareader(&topic, qos)
        .unwrap();
    w.wait_for_matched(1, Duration::from_secs(30)).unwrap();
    r.wait_for_matched(1, Duration::from_secs(30)).unwrap();
    let taker = std::thread::spawn(move || {
        let mut xs = Vec::with_capacity(n);
        let deadline = Instant::now() + RUN_TIMEOUT;
        while xs.len() < n && Instant::now() < deadline {
            for s in r.wait_take(Duration::from_millis(200)).unwrap() {
                xs.push(s.value.unwrap().x as usize);
            }
        }
        xs
    });
    publish("siftdds -> siftdds", &link, &w, n);
    let xs = taker.join().unwrap();
    assert_eq!(xs.len(), n, "received {} of {n}", xs.len());
    assert!(
        xs.iter().copied().eq(0..n),
        "not every sample once in order"
    );
}

/// A vendor subscriber peer (`interop-tests/peers/`), its stdout in a file we can poll.
struct Peer {
    child: Child,
    log: PathBuf,
}

impl Peer {
    fn spawn(binary: &str, domain: u32, n: usize) -> Option<Peer> {
        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("target");
        let bin = root.join("peers").join(binary);
        if !bin.exists() {
            return None;
        }
        let log = root.join(format!("lossy-{domain}.log"));
        let out = std::fs::File::create(&log).unwrap();
        let secs = RUN_TIMEOUT.as_secs().to_string();
        let child = Command::new(bin)
            .args([
                "sub",
                "-d",
                &domain.to_string(),
                "-n",
                &n.to_string(),
                "-t",
                &secs,
                "-k",
                "0",
            ])
            // Cyclone: loopback only (ignored by Fast DDS).
            .env(
                "CYCLONEDDS_URI",
                "<General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces></General>",
            )
            .stdout(Stdio::from(out))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Some(Peer { child, log })
    }

    fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits until the output has a line containing `pat`, or has not grown for a second,
    /// or `timeout` passed.
    fn wait_settled(&self, pat: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let (mut len, mut since) = (0, Instant::now());
        while Instant::now() < deadline {
            let out = self.output();
            if out.lines().any(|l| l.contains(pat)) {
                return;
            }
            if out.len() != len {
                (len, since) = (out.len(), Instant::now());
            } else if since.elapsed() >= Duration::from_secs(1) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_line(&self, pat: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if self.output().lines().any(|l| l.contains(pat)) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // Only the child we started, by its handle.
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

fn siftdds_to_vendor(test: &str, binary: &str, domain: u32) {
    let Some(link) = lossy_link(test) else { return };
    let n = samples();
    // The peer stops on its own only after far more samples than we send; we stop it once the
    // last BLUE sample is in (warm-up samples below are counted by it too).
    let Some(peer) = Peer::spawn(binary, domain, n + MAX_WARM_UP + 1) else {
        skip(
            test,
            &format!("target/peers/{binary} not built (scripts/build-peers)"),
        );
        return;
    };
    let p = participant(domain);
    let w = writer(&p);
    w.wait_for_matched(1, Duration::from_secs(30)).unwrap();
    assert!(
        peer.wait_line("sub: matched writers 1", Duration::from_secs(30)),
        "{binary} never matched"
    );
    // A VOLATILE Cyclone reader takes a writer's changes from the first HEARTBEAT it sees on:
    // when our initial HEARTBEAT is lost (20 %), the first one it sees is piggy-backed on the
    // first batch of DATA and covers it, so it skips that batch (seen in CI: x = 0..49
    // missing, everything after exact). Warm up with RED samples until it delivers one,
    // i.e. until it is in step with the writer; only the BLUE run that follows is checked.
    let mut warm = 0;
    while !peer.output().contains(" RED x=") {
        assert!(
            warm < MAX_WARM_UP,
            "{binary} delivered none of {MAX_WARM_UP} warm-up samples"
        );
        w.write(&ShapeType {
            color: "RED".into(),
            ..shape(warm)
        })
        .unwrap();
        warm += 1;
        std::thread::sleep(Duration::from_millis(20));
    }
    publish(&format!("siftdds -> {binary}"), &link, &w, n);
    let last = format!(" BLUE x={} ", n - 1);
    assert!(
        peer.wait_line(&last, Duration::from_secs(60)),
        "{binary} did not get all"
    );
    // Judge the peer's whole output once it has stopped writing: our participant leaves, and
    // the peer prints its unmatch (or, if that announcement is lost, the output stops growing).
    drop(w);
    drop(p);
    peer.wait_settled("sub: matched writers 0", Duration::from_secs(10));
    let out = peer.output();
    // Every sample, once, in order.
    let xs = blue_xs(&out);
    if let Some(at) = (0..n.max(xs.len())).find(|&i| xs.get(i) != Some(&i)) {
        let around = &xs[at.saturating_sub(3)..(at + 4).min(xs.len())];
        panic!(
            "{binary}: not every sample once in order: {} BLUE lines for {n} samples; first \
             difference at position {at}: {around:?} around it (output: {})",
            xs.len(),
            peer.log.display()
        );
    }
}

#[test]
#[ignore = "needs its own lossy namespace: scripts/netns-run scripts/lossy-link cargo test --test lossy -- --ignored"]
fn siftdds_writer_to_cyclone_reader_over_lossy_link() {
    siftdds_to_vendor(
        "siftdds_writer_to_cyclone_reader_over_lossy_link",
        "cyclone/shapes_cyclone",
        151,
    );
}

#[test]
#[ignore = "needs its own lossy namespace: scripts/netns-run scripts/lossy-link cargo test --test lossy -- --ignored"]
fn siftdds_writer_to_fastdds_reader_over_lossy_link() {
    siftdds_to_vendor(
        "siftdds_writer_to_fastdds_reader_over_lossy_link",
        "fastdds/shapes_fastdds",
        152,
    );
}
