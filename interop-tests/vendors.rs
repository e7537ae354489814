//! Interop with other vendors' processes: Cyclone DDS 0.10 and Fast DDS 2.9 from Debian
//! packages, driven through the small peer programs in `interop-tests/peers/` (built by
//! `scripts/build-peers` into `target/peers/`). Each test uses its own domain so tests can
//! run in parallel. Skipped, with a printed reason, outside the sandbox or when the peers are
//! not built.

// These tests drive real vendor processes in real time, so they read the clock and poll.
#![allow(clippy::disallowed_methods)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use siftdds::api::{DataReader, DomainParticipant};
use siftdds::core::ChangeKind;
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, PublisherQos, Reliability, SubscriberQos,
    TopicQos,
};
use siftdds::types::ShapeType;

use crate::sandbox::may_open_sockets;

#[derive(Copy, Clone, Debug)]
enum Vendor {
    Cyclone,
    FastDds,
}

impl Vendor {
    fn binary(self) -> PathBuf {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/peers");
        match self {
            Vendor::Cyclone => root.join("cyclone/shapes_cyclone"),
            Vendor::FastDds => root.join("fastdds/shapes_fastdds"),
        }
    }
}

/// True when the test may run; prints why not otherwise (never silently).
fn ready(test: &str, vendor: Vendor) -> bool {
    if !may_open_sockets(test) {
        return false;
    }
    if !vendor.binary().exists() {
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: {} not built (scripts/build-peers builds it)",
            vendor.binary().display()
        );
        return false;
    }
    true
}

/// A peer process, killed (by its PID, which we started) if still running when dropped. Its
/// output is drained by threads as it runs, so a chatty peer never blocks on a full pipe.
struct Peer {
    child: Child,
    stdout: Option<std::thread::JoinHandle<String>>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

fn drain(mut r: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = r.read_to_string(&mut s);
        s
    })
}

impl Peer {
    fn spawn(vendor: Vendor, args: &[&str]) -> Peer {
        let mut cmd = Command::new(vendor.binary());
        cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Vendor::Cyclone = vendor {
            // Loopback only: everything goes over the sandbox's lo.
            cmd.env(
                "CYCLONEDDS_URI",
                "<General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces></General>",
            );
        }
        let mut child = cmd.spawn().unwrap();
        let stdout = child.stdout.take().map(drain);
        let stderr = child.stderr.take().map(drain);
        Peer { child, stdout, stderr }
    }

    /// Waits for the peer to exit by itself and returns its stdout.
    fn finish(mut self, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                let out = self.stdout.take().map(|h| h.join().unwrap()).unwrap_or_default();
                let tail: String = out.lines().rev().take(5).collect::<Vec<_>>().join("\n");
                panic!("peer did not finish in {timeout:?}; last lines:\n{tail}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = self.stdout.take().map(|h| h.join().unwrap()).unwrap_or_default();
        let err = self.stderr.take().map(|h| h.join().unwrap()).unwrap_or_default();
        assert!(status.success(), "peer failed ({status}):\n{out}\n{err}");
        out
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn participant(domain: u32) -> DomainParticipant {
    DomainParticipant::builder(domain).announce_period(Duration::from_millis(500)).build().unwrap()
}

fn shape(i: i32, color: &str) -> ShapeType {
    ShapeType { color: color.into(), x: i, y: 100 + i, shapesize: 30, additional_payload_size: vec![] }
}

fn reliable_writer_qos() -> DataWriterQos {
    DataWriterQos { history: History::KeepAll, ..DataWriterQos::default() }
}

fn reliable_reader_qos() -> DataReaderQos {
    DataReaderQos { reliability: Reliability::reliable(), history: History::KeepAll, ..DataReaderQos::default() }
}

/// siftdds writes `n` samples; the vendor's reliable subscriber must print all of them.
fn siftdds_to_vendor(vendor: Vendor, domain: u32, n: usize) {
    let d = domain.to_string();
    let count = n.to_string();
    let peer = Peer::spawn(vendor, &["sub", "-d", &d, "-n", &count, "-t", "60", "-k", "0"]);
    let p = participant(domain);
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let w = p.create_publisher(PublisherQos::default()).create_datawriter(&topic, reliable_writer_qos()).unwrap();
    w.wait_for_matched(1, Duration::from_secs(15)).unwrap();
    for i in 0..n {
        w.write(&shape(i as i32, "BLUE")).unwrap();
    }
    w.wait_for_acknowledgments(Duration::from_secs(60)).unwrap();
    let out = peer.finish(Duration::from_secs(60));
    assert!(out.contains(&format!("sub: received {n} samples")), "{vendor:?} output:\n{out}");
    // Every sample, once, in order: the peer prints "sub: <k> BLUE x=<x> ..." per sample.
    let xs: Vec<usize> = out
        .lines()
        .filter_map(|l| l.strip_prefix("sub: ")?.split_once(" BLUE x=")?.1.split(' ').next()?.parse().ok())
        .collect();
    assert_eq!(xs, (0..n).collect::<Vec<_>>(), "{vendor:?}");
}

/// The vendor publishes `n` samples; our reliable reader must take all of them, in order.
fn vendor_to_siftdds(vendor: Vendor, domain: u32, n: usize) {
    let p = participant(domain);
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let r: DataReader<ShapeType> =
        p.create_subscriber(SubscriberQos::default()).create_datareader(&topic, reliable_reader_qos()).unwrap();
    let d = domain.to_string();
    let count = n.to_string();
    let peer = Peer::spawn(vendor, &["pub", "-d", &d, "-n", &count, "-i", "0", "-c", "GREEN", "-t", "60", "-k", "0"]);
    let mut xs = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while xs.len() < n && Instant::now() < deadline {
        for s in r.wait_take(Duration::from_millis(200)).unwrap() {
            assert_eq!(s.kind, ChangeKind::Alive);
            let v = s.value.unwrap();
            assert_eq!(v.color, "GREEN");
            xs.push(v.x);
        }
    }
    peer.finish(Duration::from_secs(60));
    // The peers move the shape by 5 per sample, starting at x = 10.
    let expected: Vec<i32> = (0..n as i32).map(|i| 10 + 5 * i).collect();
    assert_eq!(xs.len(), n, "{vendor:?}: received {} of {n}", xs.len());
    assert_eq!(xs, expected, "{vendor:?}");
}

#[test]
fn siftdds_writer_to_cyclone_reader_keep_all_10k() {
    if ready("siftdds_writer_to_cyclone_reader_keep_all_10k", Vendor::Cyclone) {
        siftdds_to_vendor(Vendor::Cyclone, 20, 10_000);
    }
}

#[test]
fn cyclone_writer_to_siftdds_reader_keep_all_10k() {
    if ready("cyclone_writer_to_siftdds_reader_keep_all_10k", Vendor::Cyclone) {
        vendor_to_siftdds(Vendor::Cyclone, 21, 10_000);
    }
}

#[test]
fn siftdds_writer_to_fastdds_reader_keep_all_10k() {
    if ready("siftdds_writer_to_fastdds_reader_keep_all_10k", Vendor::FastDds) {
        siftdds_to_vendor(Vendor::FastDds, 22, 10_000);
    }
}

#[test]
fn fastdds_writer_to_siftdds_reader_keep_all_10k() {
    if ready("fastdds_writer_to_siftdds_reader_keep_all_10k", Vendor::FastDds) {
        vendor_to_siftdds(Vendor::FastDds, 23, 10_000);
    }
}
