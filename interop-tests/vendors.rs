//! Interop with other vendors' processes: Cyclone DDS 0.10 and Fast DDS 2.9 from Debian
//! packages, driven through the small peer programs in `interop-tests/peers/` (built by
//! `scripts/build-peers` into `target/peers/`). Each test uses its own domain so tests can
//! run in parallel. Skipped, with a printed reason, outside the sandbox or when the peers are
//! not built.

// These tests drive real vendor processes in real time, so they read the clock and poll.
#![allow(clippy::disallowed_methods)]
// The harness (not core) shares a peer's output between its reader thread and the test.
#![allow(clippy::disallowed_types)]

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use siftdds::api::{DataReader, DataWriter, DomainParticipant, Sample};
use siftdds::core::{ChangeKind, Event};
use siftdds::qos::{
    DataReaderQos, DataWriterQos, Durability, History, Liveliness, LivelinessKind, Partition,
    PublisherQos, QosPolicyId, Reliability, SubscriberQos, TopicQos,
};
use siftdds::types::{ShapeType, TopicType};

use crate::sandbox::may_open_sockets;

#[derive(Copy, Clone, Debug)]
pub(crate) enum Vendor {
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
pub(crate) fn ready(test: &str, vendor: Vendor) -> bool {
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
pub(crate) struct Peer {
    child: Child,
    stdout: Option<std::thread::JoinHandle<String>>,
    stderr: Option<std::thread::JoinHandle<String>>,
    /// Stdout so far, for waiting on a line while the peer runs.
    lines: Arc<Mutex<String>>,
}

fn drain(mut r: impl std::io::Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = r.read_to_string(&mut s);
        s
    })
}

/// Like [`drain`], also publishing every line to `lines` as it arrives.
fn drain_lines(r: impl std::io::Read + Send + 'static, lines: Arc<Mutex<String>>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut r = std::io::BufReader::new(r);
        let mut line = String::new();
        while r.read_line(&mut line).unwrap_or(0) > 0 {
            lines.lock().unwrap().push_str(&line);
            line.clear();
        }
        lines.lock().unwrap().clone()
    })
}

impl Peer {
    fn spawn(vendor: Vendor, args: &[&str]) -> Peer {
        Self::spawn_traced(vendor, args, std::env::var("SIFTDDS_CYCLONE_TRACE").ok())
    }

    /// Like [`Peer::spawn`]; a Cyclone peer writes its finest trace to `trace` if given.
    fn spawn_traced(vendor: Vendor, args: &[&str], trace: Option<String>) -> Peer {
        let mut cmd = Command::new(vendor.binary());
        cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
        if let Vendor::Cyclone = vendor {
            // Loopback only: everything goes over the sandbox's lo.
            // Loopback only; SIFTDDS_CYCLONE_TRACE=FILE adds Cyclone's finest tracing to FILE.
            let trace = trace
                .map(|f| format!("<Tracing><Verbosity>finest</Verbosity><OutputFile>{f}</OutputFile></Tracing>"))
                .unwrap_or_default();
            cmd.env(
                "CYCLONEDDS_URI",
                format!("<General><Interfaces><NetworkInterface name=\"lo\"/></Interfaces></General>{trace}"),
            );
        }
        Self::spawn_command(cmd)
    }

    /// Starts `cmd` (its stdout and stderr are replaced by pipes) as a peer.
    pub(crate) fn spawn_command(mut cmd: Command) -> Peer {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let lines = Arc::new(Mutex::new(String::new()));
        let stdout = child.stdout.take().map(|o| drain_lines(o, lines.clone()));
        let stderr = child.stderr.take().map(drain);
        Peer { child, stdout, stderr, lines }
    }

    /// Waits until the peer printed a line containing `pat`; false on timeout.
    pub(crate) fn wait_line(&self, pat: &str, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if self.lines.lock().unwrap().lines().any(|l| l.contains(pat)) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// The peer's stdout so far.
    fn output(&self) -> String {
        self.lines.lock().unwrap().clone()
    }

    /// Waits for the peer to exit by itself (killing it after `timeout`) and returns its exit
    /// status (`None` when killed) and stdout, whatever the status.
    pub(crate) fn finish_any(mut self, timeout: Duration) -> (Option<ExitStatus>, String) {
        let deadline = Instant::now() + timeout;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = self.stdout.take().map(|h| h.join().unwrap()).unwrap_or_default();
        (status, out)
    }

    /// Waits for the peer to exit by itself and returns its stdout.
    pub(crate) fn finish(mut self, timeout: Duration) -> String {
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

pub(crate) fn participant(domain: u32) -> DomainParticipant {
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
    // A volatile reader that matches us after the first samples need not get them.
    assert!(peer.wait_line("sub: matched writers 1", Duration::from_secs(15)), "{vendor:?} never matched us");
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

// ---------------------------------------------------------------------------------------------
// Issue 3: the remaining scenarios. Each test uses its own domain (24..55).

/// The peers' sample line: "sub: <k> <COLOR> x=<x> y=.. size=.. payload=<len>".
pub(crate) struct PeerSample {
    pub(crate) color: String,
    pub(crate) x: i32,
    pub(crate) payload: usize,
}

pub(crate) fn peer_samples(out: &str) -> Vec<PeerSample> {
    out.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("sub: ")?;
            let mut it = rest.split(' ');
            it.next()?.parse::<u64>().ok()?;
            let color = it.next()?.to_string();
            let x = it.next()?.strip_prefix("x=")?.parse().ok()?;
            let payload = it.find_map(|f| f.strip_prefix("payload="))?.parse().ok()?;
            Some(PeerSample { color, x, payload })
        })
        .collect()
}

fn strictly_increasing(xs: &[i32]) -> bool {
    xs.windows(2).all(|w| w[0] < w[1])
}

fn writer_qos(reliable: bool, durability: Durability, history: History) -> DataWriterQos {
    let reliability = if reliable { Reliability::reliable() } else { Reliability::best_effort() };
    DataWriterQos { reliability, durability, history, ..DataWriterQos::default() }
}

fn reader_qos(reliable: bool, durability: Durability) -> DataReaderQos {
    let reliability = if reliable { Reliability::reliable() } else { Reliability::best_effort() };
    DataReaderQos { reliability, durability, history: History::KeepAll, ..DataReaderQos::default() }
}

fn make_writer(p: &DomainParticipant, topic: &str, partition: &[&str], qos: DataWriterQos) -> DataWriter<ShapeType> {
    let t = p.create_topic::<ShapeType>(topic, TopicQos::default());
    let pq = PublisherQos { partition: Partition::new(partition.iter().copied()), ..PublisherQos::default() };
    p.create_publisher(pq).create_datawriter(&t, qos).unwrap()
}

fn make_reader(p: &DomainParticipant, topic: &str, partition: &[&str], qos: DataReaderQos) -> DataReader<ShapeType> {
    let t = p.create_topic::<ShapeType>(topic, TopicQos::default());
    let sq = SubscriberQos { partition: Partition::new(partition.iter().copied()), ..SubscriberQos::default() };
    p.create_subscriber(sq).create_datareader(&t, qos).unwrap()
}

/// Takes from `r` until `done(all so far)` or `timeout`.
fn collect(r: &DataReader<ShapeType>, timeout: Duration, done: impl Fn(&[Sample<ShapeType>]) -> bool) -> Vec<Sample<ShapeType>> {
    let mut all = Vec::new();
    let deadline = Instant::now() + timeout;
    while !done(&all) && Instant::now() < deadline {
        all.extend(r.wait_take(Duration::from_millis(100)).unwrap());
    }
    all
}

fn alive_xs(samples: &[Sample<ShapeType>]) -> Vec<i32> {
    samples.iter().filter_map(|s| s.value.as_ref()).map(|v| v.x).collect()
}

pub(crate) fn spawn(vendor: Vendor, args: &[String]) -> Peer {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Peer::spawn(vendor, &args)
}

pub(crate) fn argv(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

// --- 1. best effort --------------------------------------------------------------------------

/// Our best-effort writer → the vendor's best-effort reader: ≥ 90 %, in order, no duplicates.
fn best_effort_to_vendor(vendor: Vendor, domain: u32) {
    const N: usize = 1000;
    let peer = spawn(vendor, &argv(&format!("sub -d {domain} -b -k 0 -n {N} -t 10")));
    let p = participant(domain);
    // KEEP_ALL: with KEEP_LAST(1) a burst of writes replaces samples not yet sent (allowed).
    let w = make_writer(&p, "Square", &[], writer_qos(false, Durability::Volatile, History::KeepAll));
    w.wait_for_matched(1, Duration::from_secs(8)).unwrap();
    assert!(peer.wait_line("sub: matched writers 1", Duration::from_secs(8)), "{vendor:?} never matched us");
    for i in 0..N {
        w.write(&shape(i as i32, "BLUE")).unwrap();
        if i % 10 == 9 {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let (_, out) = peer.finish_any(Duration::from_secs(12));
    let xs: Vec<i32> = peer_samples(&out).iter().map(|s| s.x).collect();
    eprintln!("{vendor:?} best-effort reader got {} of {N}", xs.len());
    assert!(xs.len() * 10 >= N * 9, "{vendor:?}: only {} of {N}", xs.len());
    assert!(strictly_increasing(&xs), "{vendor:?}: out of order or duplicated");
}

/// The vendor's best-effort writer → our best-effort reader.
fn best_effort_from_vendor(vendor: Vendor, domain: u32) {
    const N: usize = 1000;
    let p = participant(domain);
    let r = make_reader(&p, "Square", &[], reader_qos(false, Durability::Volatile));
    let peer = spawn(vendor, &argv(&format!("pub -d {domain} -b -k 0 -n {N} -i 1 -c GREEN -t 12 -l 200")));
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(12);
    while Instant::now() < deadline && !peer.output().contains("pub: wrote") {
        got.extend(r.wait_take(Duration::from_millis(100)).unwrap());
    }
    std::thread::sleep(Duration::from_millis(300));
    got.extend(r.take().unwrap());
    drop(peer);
    let xs = alive_xs(&got);
    eprintln!("{vendor:?} best-effort writer: we got {} of {N}", xs.len());
    assert!(xs.len() * 10 >= N * 9, "{vendor:?}: only {} of {N}", xs.len());
    assert!(strictly_increasing(&xs), "{vendor:?}: out of order or duplicated");
}

#[test]
fn siftdds_best_effort_writer_to_cyclone() {
    if ready("siftdds_best_effort_writer_to_cyclone", Vendor::Cyclone) {
        best_effort_to_vendor(Vendor::Cyclone, 24);
    }
}

#[test]
fn siftdds_best_effort_writer_to_fastdds() {
    if ready("siftdds_best_effort_writer_to_fastdds", Vendor::FastDds) {
        best_effort_to_vendor(Vendor::FastDds, 25);
    }
}

#[test]
fn cyclone_best_effort_writer_to_siftdds() {
    if ready("cyclone_best_effort_writer_to_siftdds", Vendor::Cyclone) {
        best_effort_from_vendor(Vendor::Cyclone, 26);
    }
}

#[test]
fn fastdds_best_effort_writer_to_siftdds() {
    if ready("fastdds_best_effort_writer_to_siftdds", Vendor::FastDds) {
        best_effort_from_vendor(Vendor::FastDds, 27);
    }
}

// --- 2. late joiner, TRANSIENT_LOCAL ---------------------------------------------------------

/// Our TRANSIENT_LOCAL writer writes 20 samples before the vendor's TRANSIENT_LOCAL reader
/// exists; the late reader gets the history (the last `depth`, or all with KEEP_ALL).
fn transient_local_to_vendor(vendor: Vendor, domain: u32, history: History) {
    const N: i32 = 20;
    let p = participant(domain);
    let w = make_writer(&p, "Square", &[], writer_qos(true, Durability::TransientLocal, history));
    for i in 0..N {
        w.write(&shape(i, "BLUE")).unwrap();
    }
    let expected: Vec<i32> = match history {
        History::KeepLast(d) => (N - d as i32..N).collect(),
        History::KeepAll => (0..N).collect(),
    };
    let peer = spawn(vendor, &argv(&format!("sub -d {domain} -D t -k 0 -n {} -t 10", expected.len())));
    let (status, out) = peer.finish_any(Duration::from_secs(12));
    let xs: Vec<i32> = peer_samples(&out).iter().map(|s| s.x).collect();
    assert_eq!(xs, expected, "{vendor:?} {history:?} ({status:?}):\n{out}");
    drop(w);
}

/// The vendor's TRANSIENT_LOCAL writer (KEEP_LAST 5) writes 20 samples with nobody matched;
/// our late TRANSIENT_LOCAL reader gets the last 5.
fn transient_local_from_vendor(vendor: Vendor, domain: u32) {
    let peer = spawn(vendor, &argv(&format!("pub -d {domain} -D t -k 5 -m 0 -n 20 -i 0 -c GREEN -t 12 -l 8000")));
    assert!(peer.wait_line("pub: 20 GREEN", Duration::from_secs(8)), "{vendor:?}:\n{}", peer.output());
    let p = participant(domain);
    let r = make_reader(&p, "Square", &[], reader_qos(true, Durability::TransientLocal));
    let got = collect(&r, Duration::from_secs(8), |s| s.len() >= 5);
    std::thread::sleep(Duration::from_millis(300));
    let mut got = got;
    got.extend(r.take().unwrap());
    let expected: Vec<i32> = (15..20).map(|i| 10 + 5 * i).collect();
    assert_eq!(alive_xs(&got), expected, "{vendor:?}:\n{}", peer.output());
}

#[test]
fn siftdds_transient_local_keep_last_to_late_cyclone_reader() {
    if ready("siftdds_transient_local_keep_last_to_late_cyclone_reader", Vendor::Cyclone) {
        transient_local_to_vendor(Vendor::Cyclone, 28, History::KeepLast(5));
    }
}

#[test]
fn siftdds_transient_local_keep_last_to_late_fastdds_reader() {
    if ready("siftdds_transient_local_keep_last_to_late_fastdds_reader", Vendor::FastDds) {
        transient_local_to_vendor(Vendor::FastDds, 29, History::KeepLast(5));
    }
}

#[test]
fn siftdds_transient_local_keep_all_to_late_cyclone_reader() {
    if ready("siftdds_transient_local_keep_all_to_late_cyclone_reader", Vendor::Cyclone) {
        transient_local_to_vendor(Vendor::Cyclone, 30, History::KeepAll);
    }
}

#[test]
fn siftdds_transient_local_keep_all_to_late_fastdds_reader() {
    if ready("siftdds_transient_local_keep_all_to_late_fastdds_reader", Vendor::FastDds) {
        transient_local_to_vendor(Vendor::FastDds, 31, History::KeepAll);
    }
}

#[test]
fn cyclone_transient_local_writer_to_late_siftdds_reader() {
    if ready("cyclone_transient_local_writer_to_late_siftdds_reader", Vendor::Cyclone) {
        transient_local_from_vendor(Vendor::Cyclone, 32);
    }
}

#[test]
fn fastdds_transient_local_writer_to_late_siftdds_reader() {
    if ready("fastdds_transient_local_writer_to_late_siftdds_reader", Vendor::FastDds) {
        transient_local_from_vendor(Vendor::FastDds, 33);
    }
}

// --- 3. fragmented 100 KB samples ------------------------------------------------------------

const BIG: usize = 100_000;

fn big_payload() -> Vec<u8> {
    (0..BIG).map(|k| k as u8).collect()
}

/// Our writer sends 100 KB samples (DATA_FRAG); the vendor reader prints their payload length.
fn fragments_to_vendor(vendor: Vendor, domain: u32) {
    const N: usize = 5;
    let peer = spawn(vendor, &argv(&format!("sub -d {domain} -k 0 -n {N} -t 12")));
    let p = participant(domain);
    let w = make_writer(&p, "Square", &[], reliable_writer_qos());
    w.wait_for_matched(1, Duration::from_secs(8)).unwrap();
    assert!(peer.wait_line("sub: matched writers 1", Duration::from_secs(8)), "{vendor:?} never matched us");
    for i in 0..N {
        w.write(&ShapeType { additional_payload_size: big_payload(), ..shape(i as i32, "BLUE") }).unwrap();
    }
    w.wait_for_acknowledgments(Duration::from_secs(10)).unwrap();
    let (status, out) = peer.finish_any(Duration::from_secs(12));
    let got = peer_samples(&out);
    assert_eq!(got.iter().map(|s| s.x).collect::<Vec<_>>(), (0..N as i32).collect::<Vec<_>>(), "{vendor:?} ({status:?}):\n{out}");
    assert!(got.iter().all(|s| s.payload == BIG && s.color == "BLUE"), "{vendor:?}:\n{out}");
}

/// The vendor writes 100 KB samples; we reassemble them intact.
fn fragments_from_vendor(vendor: Vendor, domain: u32) {
    const N: usize = 5;
    let p = participant(domain);
    let r = make_reader(&p, "Square", &[], reliable_reader_qos());
    let peer = spawn(vendor, &argv(&format!("pub -d {domain} -k 0 -n {N} -i 50 -z {BIG} -c GREEN -t 12")));
    let got = collect(&r, Duration::from_secs(12), |s| s.len() >= N);
    let out = peer.output();
    drop(peer);
    let values: Vec<&ShapeType> = got.iter().filter_map(|s| s.value.as_ref()).collect();
    assert_eq!(values.len(), N, "{vendor:?}:\n{out}");
    let expected = big_payload();
    for (i, v) in values.iter().enumerate() {
        assert_eq!(v.x, 10 + 5 * i as i32);
        assert_eq!(v.additional_payload_size.len(), BIG, "{vendor:?} sample {i}");
        assert!(v.additional_payload_size == expected, "{vendor:?} sample {i}: payload corrupted");
    }
}

#[test]
fn siftdds_fragmented_100k_to_cyclone() {
    if ready("siftdds_fragmented_100k_to_cyclone", Vendor::Cyclone) {
        fragments_to_vendor(Vendor::Cyclone, 34);
    }
}

#[test]
fn siftdds_fragmented_100k_to_fastdds() {
    if ready("siftdds_fragmented_100k_to_fastdds", Vendor::FastDds) {
        fragments_to_vendor(Vendor::FastDds, 35);
    }
}

#[test]
fn cyclone_fragmented_100k_to_siftdds() {
    if ready("cyclone_fragmented_100k_to_siftdds", Vendor::Cyclone) {
        fragments_from_vendor(Vendor::Cyclone, 36);
    }
}

#[test]
fn fastdds_fragmented_100k_to_siftdds() {
    if ready("fastdds_fragmented_100k_to_siftdds", Vendor::FastDds) {
        fragments_from_vendor(Vendor::FastDds, 37);
    }
}

// --- 4. dispose / unregister -----------------------------------------------------------------

/// We write RED and BLUE, dispose RED and unregister BLUE; the vendor's reader reports both
/// instance state changes.
fn dispose_to_vendor(vendor: Vendor, domain: u32) {
    let peer = spawn(vendor, &argv(&format!("sub -d {domain} -k 0 -n 2 -w 2 -t 10")));
    let p = participant(domain);
    let w = make_writer(&p, "Square", &[], reliable_writer_qos());
    w.wait_for_matched(1, Duration::from_secs(8)).unwrap();
    assert!(peer.wait_line("sub: matched writers 1", Duration::from_secs(8)), "{vendor:?} never matched us");
    w.write(&shape(1, "RED")).unwrap();
    w.write(&shape(2, "BLUE")).unwrap();
    w.dispose(&shape(0, "RED")).unwrap();
    w.unregister_instance(&shape(0, "BLUE")).unwrap();
    w.wait_for_acknowledgments(Duration::from_secs(8)).unwrap();
    let (status, out) = peer.finish_any(Duration::from_secs(10));
    assert!(out.contains("sub: instance RED NOT_ALIVE_DISPOSED"), "{vendor:?} ({status:?}):\n{out}");
    assert!(out.contains("sub: instance BLUE NOT_ALIVE_NO_WRITERS"), "{vendor:?} ({status:?}):\n{out}");
}

/// The vendor writes RED and BLUE, disposes RED, unregisters BLUE; we see both, with the key
/// hashes of our own ShapeType.
fn dispose_from_vendor(vendor: Vendor, domain: u32) {
    let p = participant(domain);
    let r = make_reader(&p, "Square", &[], reliable_reader_qos());
    let peer = spawn(vendor, &argv(&format!("pub -d {domain} -k 0 -n 2 -c RED,BLUE -x RED -u BLUE -t 10 -l 500")));
    let red = shape(0, "RED").key_hash();
    let blue = shape(0, "BLUE").key_hash();
    let has = |s: &[Sample<ShapeType>], kinds: &[ChangeKind], key| s.iter().any(|x| kinds.contains(&x.kind) && x.key_hash == key);
    // Both vendors' writers autodispose on unregister by default: BLUE may come as D|U.
    let disposed = [ChangeKind::NotAliveDisposed];
    let unregistered = [ChangeKind::NotAliveUnregistered, ChangeKind::NotAliveDisposedUnregistered];
    let got = collect(&r, Duration::from_secs(10), |s| has(s, &disposed, red) && has(s, &unregistered, blue));
    let out = peer.output();
    drop(peer);
    let summary: Vec<String> = got.iter().map(|s| format!("{:?} {:?} {:02x?}", s.kind, s.value.as_ref().map(|v| &v.color), s.key_hash)).collect();
    assert_eq!(alive_xs(&got), vec![10, 15], "{vendor:?}: {summary:#?}\n{out}");
    assert!(has(&got, &disposed, red), "{vendor:?}: no dispose of RED: {summary:#?}\n{out}");
    assert!(has(&got, &unregistered, blue), "{vendor:?}: no unregister of BLUE: {summary:#?}\n{out}");
}

#[test]
fn siftdds_dispose_unregister_seen_by_cyclone() {
    if ready("siftdds_dispose_unregister_seen_by_cyclone", Vendor::Cyclone) {
        dispose_to_vendor(Vendor::Cyclone, 38);
    }
}

#[test]
fn siftdds_dispose_unregister_seen_by_fastdds() {
    if ready("siftdds_dispose_unregister_seen_by_fastdds", Vendor::FastDds) {
        dispose_to_vendor(Vendor::FastDds, 39);
    }
}

#[test]
fn cyclone_dispose_unregister_seen_by_siftdds() {
    if ready("cyclone_dispose_unregister_seen_by_siftdds", Vendor::Cyclone) {
        dispose_from_vendor(Vendor::Cyclone, 40);
    }
}

#[test]
fn fastdds_dispose_unregister_seen_by_siftdds() {
    if ready("fastdds_dispose_unregister_seen_by_siftdds", Vendor::FastDds) {
        dispose_from_vendor(Vendor::FastDds, 41);
    }
}

// --- 5. incompatible QoS ---------------------------------------------------------------------

fn wait_for_event(p: &DomainParticipant, timeout: Duration, pred: impl Fn(&Event) -> bool) -> Option<Event> {
    let deadline = Instant::now() + timeout;
    while Instant::now() < deadline {
        if let Some(e) = p.wait_event(Duration::from_millis(200)).unwrap() {
            if pred(&e) {
                return Some(e);
            }
        }
    }
    None
}

/// The vendor's best-effort writer vs our reliable reader: REQUESTED_INCOMPATIBLE_QOS here,
/// OFFERED_INCOMPATIBLE_QOS there, and no match.
fn incompatible_vendor_writer(vendor: Vendor, domain: u32) {
    let p = participant(domain);
    let r = make_reader(&p, "Square", &[], reliable_reader_qos());
    let peer = spawn(vendor, &argv(&format!("pub -d {domain} -b -m 0 -n 0 -t 10 -l 8000")));
    let e = wait_for_event(&p, Duration::from_secs(8), |e| matches!(e, Event::RequestedIncompatibleQos { .. }));
    match e {
        Some(Event::RequestedIncompatibleQos { policies, .. }) => {
            assert!(policies.contains(QosPolicyId::Reliability), "{vendor:?}: {policies:?}")
        }
        other => panic!("{vendor:?}: no RequestedIncompatibleQos ({other:?})\n{}", peer.output()),
    }
    assert!(peer.wait_line("pub: offered incompatible qos", Duration::from_secs(5)), "{vendor:?}:\n{}", peer.output());
    assert_eq!(r.matched_publications().unwrap(), 0);
}

/// Our best-effort writer vs the vendor's reliable reader.
fn incompatible_vendor_reader(vendor: Vendor, domain: u32) {
    let p = participant(domain);
    let w = make_writer(&p, "Square", &[], writer_qos(false, Durability::Volatile, History::KeepLast(1)));
    let peer = spawn(vendor, &argv(&format!("sub -d {domain} -n 0 -t 10")));
    let e = wait_for_event(&p, Duration::from_secs(8), |e| matches!(e, Event::OfferedIncompatibleQos { .. }));
    match e {
        Some(Event::OfferedIncompatibleQos { policies, .. }) => {
            assert!(policies.contains(QosPolicyId::Reliability), "{vendor:?}: {policies:?}")
        }
        other => panic!("{vendor:?}: no OfferedIncompatibleQos ({other:?})\n{}", peer.output()),
    }
    assert!(peer.wait_line("sub: requested incompatible qos", Duration::from_secs(5)), "{vendor:?}:\n{}", peer.output());
    assert_eq!(w.matched_subscriptions().unwrap(), 0);
}

#[test]
fn cyclone_best_effort_writer_incompatible_with_siftdds_reliable_reader() {
    if ready("cyclone_best_effort_writer_incompatible_with_siftdds_reliable_reader", Vendor::Cyclone) {
        incompatible_vendor_writer(Vendor::Cyclone, 42);
    }
}

#[test]
fn fastdds_best_effort_writer_incompatible_with_siftdds_reliable_reader() {
    if ready("fastdds_best_effort_writer_incompatible_with_siftdds_reliable_reader", Vendor::FastDds) {
        incompatible_vendor_writer(Vendor::FastDds, 43);
    }
}

#[test]
fn siftdds_best_effort_writer_incompatible_with_cyclone_reliable_reader() {
    if ready("siftdds_best_effort_writer_incompatible_with_cyclone_reliable_reader", Vendor::Cyclone) {
        incompatible_vendor_reader(Vendor::Cyclone, 44);
    }
}

#[test]
fn siftdds_best_effort_writer_incompatible_with_fastdds_reliable_reader() {
    if ready("siftdds_best_effort_writer_incompatible_with_fastdds_reliable_reader", Vendor::FastDds) {
        incompatible_vendor_reader(Vendor::FastDds, 45);
    }
}

// --- 6. different domains --------------------------------------------------------------------

/// The vendor on `theirs`, we on `ours`: nobody is discovered or matched, nothing arrives
/// (both directions: their sub on "Square" vs our writer, their pub on "Circle" vs our reader).
fn domains_isolated(vendor: Vendor, ours: u32, theirs: u32) {
    let sub = spawn(vendor, &argv(&format!("sub -d {theirs} -n 0 -t 4")));
    let publ = spawn(vendor, &argv(&format!("pub -d {theirs} -T Circle -m 0 -n 30 -i 100 -c GREEN -t 6 -l 0")));
    let p = participant(ours);
    let w = make_writer(&p, "Square", &[], reliable_writer_qos());
    let r = make_reader(&p, "Circle", &[], reliable_reader_qos());
    let deadline = Instant::now() + Duration::from_secs(4);
    let mut i = 0;
    while Instant::now() < deadline {
        w.write(&shape(i, "BLUE")).unwrap();
        i += 1;
        assert!(r.take().unwrap().is_empty(), "{vendor:?}: got a sample across domains");
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(p.discovered_participants().unwrap(), 0, "{vendor:?}");
    assert_eq!(w.matched_subscriptions().unwrap(), 0, "{vendor:?}");
    assert_eq!(r.matched_publications().unwrap(), 0, "{vendor:?}");
    let (_, out) = sub.finish_any(Duration::from_secs(6));
    assert!(out.contains("sub: received 0 samples") && !out.contains("matched writers 1"), "{vendor:?}:\n{out}");
    let pub_out = publ.output();
    assert!(pub_out.contains("pub: 1 GREEN"), "{vendor:?} peer did not publish:\n{pub_out}");
}

#[test]
fn cyclone_other_domain_does_not_match() {
    if ready("cyclone_other_domain_does_not_match", Vendor::Cyclone) {
        domains_isolated(Vendor::Cyclone, 46, 47);
    }
}

#[test]
fn fastdds_other_domain_does_not_match() {
    if ready("fastdds_other_domain_does_not_match", Vendor::FastDds) {
        domains_isolated(Vendor::FastDds, 48, 49);
    }
}

// --- 7. partitions ---------------------------------------------------------------------------

/// (ours, theirs, should match), one topic per case.
const PARTITION_CASES: [(&str, &str, bool); 4] = [("A", "A", true), ("A", "B", false), ("A*", "AB", true), ("AB", "A*", true)];

/// Our writers in partition `ours` → the vendor's readers in `theirs`.
fn partitions_to_vendor(vendor: Vendor, domain: u32) {
    let peers: Vec<Peer> = PARTITION_CASES
        .iter()
        .enumerate()
        .map(|(k, (_, theirs, m))| {
            let n = if *m { 3 } else { 0 };
            spawn(vendor, &argv(&format!("sub -d {domain} -T P{k} -P {theirs} -k 0 -n {n} -t 7")))
        })
        .collect();
    let p = participant(domain);
    let writers: Vec<_> = PARTITION_CASES
        .iter()
        .enumerate()
        .map(|(k, (ours, _, _))| make_writer(&p, &format!("P{k}"), &[ours], reliable_writer_qos()))
        .collect();
    for (k, ((ours, theirs, m), w)) in PARTITION_CASES.iter().zip(&writers).enumerate() {
        if *m {
            w.wait_for_matched(1, Duration::from_secs(6)).unwrap_or_else(|e| panic!("{vendor:?} case {k} {ours}/{theirs}: {e}"));
            assert!(peers[k].wait_line("sub: matched writers 1", Duration::from_secs(6)), "{vendor:?} case {k}");
        }
        for i in 0..3 {
            w.write(&shape(i, "BLUE")).unwrap();
        }
    }
    for (k, ((ours, theirs, m), w)) in PARTITION_CASES.iter().zip(&writers).enumerate() {
        if *m {
            w.wait_for_acknowledgments(Duration::from_secs(5)).unwrap();
        } else {
            assert_eq!(w.matched_subscriptions().unwrap(), 0, "{vendor:?} case {k} {ours}/{theirs}");
        }
    }
    for (k, (peer, (ours, theirs, m))) in peers.into_iter().zip(PARTITION_CASES).enumerate() {
        let (_, out) = peer.finish_any(Duration::from_secs(8));
        let n = peer_samples(&out).len();
        assert_eq!(n, if m { 3 } else { 0 }, "{vendor:?} case {k} ours {ours} theirs {theirs}:\n{out}");
    }
}

/// The vendor's writers in `theirs` → our readers in `ours`.
fn partitions_from_vendor(vendor: Vendor, domain: u32) {
    let p = participant(domain);
    let readers: Vec<_> = PARTITION_CASES
        .iter()
        .enumerate()
        .map(|(k, (ours, _, _))| make_reader(&p, &format!("P{k}"), &[ours], reliable_reader_qos()))
        .collect();
    let peers: Vec<Peer> = PARTITION_CASES
        .iter()
        .enumerate()
        .map(|(k, (_, theirs, _))| {
            spawn(vendor, &argv(&format!("pub -d {domain} -T P{k} -P {theirs} -k 0 -n 3 -i 10 -c GREEN -t 6 -l 300")))
        })
        .collect();
    let mut got = vec![Vec::new(); PARTITION_CASES.len()];
    let deadline = Instant::now() + Duration::from_secs(7);
    while Instant::now() < deadline {
        for (g, r) in got.iter_mut().zip(&readers) {
            g.extend(alive_xs(&r.take().unwrap()));
        }
        let matched_done = PARTITION_CASES.iter().zip(&got).all(|((_, _, m), g)| !m || g.len() >= 3);
        if matched_done {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Give a non-matching writer time to (wrongly) deliver too.
    std::thread::sleep(Duration::from_millis(500));
    for (g, r) in got.iter_mut().zip(&readers) {
        g.extend(alive_xs(&r.take().unwrap()));
    }
    for (k, ((ours, theirs, m), (g, r))) in PARTITION_CASES.iter().zip(got.iter().zip(&readers)).enumerate() {
        let outs = peers[k].output();
        if *m {
            assert_eq!(g, &vec![10, 15, 20], "{vendor:?} case {k} ours {ours} theirs {theirs}:\n{outs}");
        } else {
            assert!(g.is_empty(), "{vendor:?} case {k} ours {ours} theirs {theirs}: {g:?}");
            assert_eq!(r.matched_publications().unwrap(), 0);
        }
    }
}

#[test]
fn siftdds_partitions_to_cyclone() {
    if ready("siftdds_partitions_to_cyclone", Vendor::Cyclone) {
        partitions_to_vendor(Vendor::Cyclone, 50);
    }
}

#[test]
fn siftdds_partitions_to_fastdds() {
    if ready("siftdds_partitions_to_fastdds", Vendor::FastDds) {
        partitions_to_vendor(Vendor::FastDds, 51);
    }
}

#[test]
fn cyclone_partitions_to_siftdds() {
    if ready("cyclone_partitions_to_siftdds", Vendor::Cyclone) {
        partitions_from_vendor(Vendor::Cyclone, 52);
    }
}

#[test]
fn fastdds_partitions_to_siftdds() {
    if ready("fastdds_partitions_to_siftdds", Vendor::FastDds) {
        partitions_from_vendor(Vendor::FastDds, 53);
    }
}

// --- 8. liveliness (Writer Liveliness Protocol) ---------------------------------------------

fn automatic_lease(ms: u64) -> Liveliness {
    Liveliness { kind: LivelinessKind::Automatic, lease_duration: siftdds::time::Duration::from_std(Duration::from_millis(ms)) }
}

/// Both directions of WLP with Cyclone on one domain:
/// - Cyclone's writer (AUTOMATIC, lease 1 s) writes two samples and then only lingers: its WLP
///   updates must keep it alive for our reader for 5 s (no `alive: false`).
/// - Our writer (AUTOMATIC, lease 1 s) writes nothing: our WLP updates must keep it alive for
///   Cyclone's reader (no "not_alive=1"), and Cyclone's trace must show it took our
///   ParticipantMessageData (PMD) without complaint.
#[test]
fn cyclone_and_siftdds_automatic_liveliness_kept_by_wlp() {
    if !ready("cyclone_and_siftdds_automatic_liveliness_kept_by_wlp", Vendor::Cyclone) {
        return;
    }
    let domain = 60;
    let trace = std::env::temp_dir().join(format!("siftdds-wlp-cyclone-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&trace);
    let p = participant(domain);
    let r = make_reader(&p, "Square", &[], reliable_reader_qos().liveliness(automatic_lease(2_000)));
    let w = make_writer(&p, "Circle", &[], reliable_writer_qos().liveliness(automatic_lease(1_000)));
    let publ = spawn(Vendor::Cyclone, &argv(&format!("pub -d {domain} -L 1000 -n 2 -i 100 -c GREEN -t 20 -l 8000")));
    let sub_args = format!("sub -d {domain} -T Circle -L 1000 -n 0 -t 9");
    let sub_args: Vec<&str> = sub_args.split(' ').collect();
    let sub = Peer::spawn_traced(Vendor::Cyclone, &sub_args, Some(trace.display().to_string()));
    let alive = wait_for_event(&p, Duration::from_secs(8), |e| {
        matches!(e, Event::LivelinessChanged { reader, alive: true, .. } if *reader == r.guid())
    });
    assert!(alive.is_some(), "Cyclone's writer never became alive:\n{}", publ.output());
    assert!(sub.wait_line("sub: liveliness alive=1", Duration::from_secs(8)), "{}", sub.output());
    w.wait_for_matched(1, Duration::from_secs(5)).unwrap();
    // Five seconds in which nobody writes: only WLP (and SPDP) traffic flows.
    let lapsed = wait_for_event(&p, Duration::from_secs(5), |e| matches!(e, Event::LivelinessChanged { alive: false, .. }));
    assert!(lapsed.is_none(), "{lapsed:?}\n{}", publ.output());
    let got = collect(&r, Duration::from_secs(1), |s| s.len() >= 2);
    assert_eq!(alive_xs(&got), vec![10, 15]);
    let (_, out) = sub.finish_any(Duration::from_secs(6));
    assert!(!out.contains("not_alive=1"), "Cyclone's reader saw our writer lose liveliness:\n{out}");
    // Cyclone traces each received ParticipantMessageData as "PMD ST<statusinfo> pp <guid>".
    let log = std::fs::read_to_string(&trace).unwrap_or_default();
    let prefix = p.guid_prefix().0;
    let ours = format!("{:x}:{:x}:{:x}", u32::from_be_bytes(prefix[0..4].try_into().unwrap()),
        u32::from_be_bytes(prefix[4..8].try_into().unwrap()), u32::from_be_bytes(prefix[8..12].try_into().unwrap()));
    let pmd: Vec<&str> = log.lines().filter(|l| l.contains("PMD") && l.contains(&ours)).collect();
    assert!(pmd.len() >= 3, "Cyclone logged {} PMD from us ({ours}); trace {}", pmd.len(), trace.display());
    assert!(pmd.iter().all(|l| !l.contains("PPunknown")), "{pmd:#?}");
    let bad: Vec<&str> = log.lines().filter(|l| l.contains(&ours) && (l.contains("malformed") || l.contains("invalid"))).collect();
    assert!(bad.is_empty(), "{bad:#?}");
    let _ = std::fs::remove_file(&trace);
    drop(publ);
}

// --- instance QoS: TIME_BASED_FILTER on our reader ------------------------------------------

/// The vendor writes RED and BLUE alternately every 50 ms (each instance every 100 ms); our
/// reader's TIME_BASED_FILTER of 300 ms keeps about one sample in three per instance. Cyclone
/// sends no PID_KEY_HASH, so this also checks that the reader computes key hashes itself
/// (a filter on the unattributed samples would drop one of the two colours).
fn time_based_filter_from_vendor(vendor: Vendor, domain: u32) {
    const N: usize = 40;
    let p = participant(domain);
    let mut qos = reliable_reader_qos();
    qos.time_based_filter = siftdds::qos::TimeBasedFilter {
        minimum_separation: siftdds::time::Duration::from_std(Duration::from_millis(300)),
    };
    let r = make_reader(&p, "Square", &[], qos);
    let peer = spawn(vendor, &argv(&format!("pub -d {domain} -n {N} -i 50 -c RED,BLUE -t 12 -l 300")));
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(12);
    while Instant::now() < deadline && !peer.output().contains("pub: wrote") {
        got.extend(r.wait_take(Duration::from_millis(100)).unwrap());
    }
    std::thread::sleep(Duration::from_millis(300));
    got.extend(r.take().unwrap());
    drop(peer);
    for color in ["RED", "BLUE"] {
        let times: Vec<u64> = got
            .iter()
            .filter(|s| s.value.as_ref().is_some_and(|v| v.color == color))
            .filter_map(|s| s.source_timestamp.and_then(|t| t.to_unix_nanos()))
            .collect();
        eprintln!("{vendor:?} {color}: {} of {} samples passed the filter", times.len(), N / 2);
        assert!((3..=10).contains(&times.len()), "{vendor:?} {color}: {} samples", times.len());
        for pair in times.windows(2) {
            // 300 ms apart on arrival; allow for the writer's 100 ms grid and jitter.
            assert!(pair[1] - pair[0] >= 200_000_000, "{vendor:?} {color}: {pair:?}");
        }
    }
}

#[test]
fn cyclone_writer_to_siftdds_reader_with_time_based_filter() {
    if ready("cyclone_writer_to_siftdds_reader_with_time_based_filter", Vendor::Cyclone) {
        time_based_filter_from_vendor(Vendor::Cyclone, 70);
    }
}

#[test]
fn fastdds_writer_to_siftdds_reader_with_time_based_filter() {
    if ready("fastdds_writer_to_siftdds_reader_with_time_based_filter", Vendor::FastDds) {
        time_based_filter_from_vendor(Vendor::FastDds, 71);
    }
}
