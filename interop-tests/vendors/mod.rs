//! Interop with other vendors' processes: Cyclone DDS 0.10 and Fast DDS 2.9 from Debian
//! packages, driven through the small peer programs in `interop-tests/peers/` (built by
//! `scripts/build-peers` into `target/peers/`). Each test runs in a network namespace of its
//! own (`sandbox`). Skipped (printed and counted, `skip.rs`) outside the sandbox or when the
//! peers are not built. The scenarios are in `delivery` and `qos`.

// These tests drive real vendor processes in real time, so they read the clock and poll.
#![allow(clippy::disallowed_methods)]
// The harness (not core) shares a peer's output between its reader thread and the test.
#![allow(clippy::disallowed_types)]

use std::io::BufRead;
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
use crate::skip::skip;

#[derive(Copy, Clone, Debug)]
pub(crate) enum Vendor {
    Cyclone,
    FastDds,
}

impl Vendor {
    pub(crate) fn binary(self) -> PathBuf {
        match self {
            Vendor::Cyclone => crate::vendor_peer("cyclone/shapes_cyclone"),
            Vendor::FastDds => crate::vendor_peer("fastdds/shapes_fastdds"),
        }
    }
}

impl Vendor {
    /// The vendor writer's HEARTBEAT period (the peers keep the default): Cyclone DDS 0.10's
    /// `Internal/HeartbeatInterval` is 100 ms, Fast DDS 2.9's `WriterTimes::heartbeatPeriod`
    /// 3 s. A reliable writer announces anything it still holds for a reader within one
    /// period, and our reader answers a HEARTBEAT at once
    /// (`core::reader::DEFAULT_HEARTBEAT_RESPONSE_DELAY` is zero), so a sample the writer
    /// means to send has been sent by then.
    fn heartbeat_period(self) -> Duration {
        match self {
            Vendor::Cyclone => Duration::from_millis(100),
            Vendor::FastDds => Duration::from_secs(3),
        }
    }
}

/// How long our own participant may take to hand datagrams it has already received to a
/// reader (runtime loop → core → reader cache). No protocol timer is involved; this covers
/// scheduling on a loaded machine.
const LOCAL_DELIVERY: Duration = Duration::from_millis(100);

/// Takes from `r` until nothing new arrived for `quiet` (a bounded quiet period: at most
/// [`QUIET_MAX`] in all, so a peer that keeps sending cannot hold the test).
fn take_until_quiet(r: &DataReader<ShapeType>, quiet: Duration) -> Vec<Sample<ShapeType>> {
    let mut all = Vec::new();
    let deadline = Instant::now() + QUIET_MAX;
    loop {
        let got = r.wait_take(quiet).unwrap();
        let done = got.is_empty() || Instant::now() >= deadline;
        all.extend(got);
        if done {
            return all;
        }
    }
}

/// Longest [`take_until_quiet`] keeps taking.
const QUIET_MAX: Duration = Duration::from_secs(10);

/// What is left in `r` once the peer has sent everything it will send (it printed
/// "pub: wrote", which it does after its writer was acknowledged and its linger): the samples
/// are already in our process, so a [`LOCAL_DELIVERY`] quiet period collects them.
fn take_delivered(r: &DataReader<ShapeType>) -> Vec<Sample<ShapeType>> {
    take_until_quiet(r, LOCAL_DELIVERY)
}

/// What `r` still gets from a `vendor` writer that may hold more for it: a quiet period of one
/// vendor HEARTBEAT period (see [`Vendor::heartbeat_period`]) plus [`LOCAL_DELIVERY`].
fn take_until_writer_quiet(r: &DataReader<ShapeType>, vendor: Vendor) -> Vec<Sample<ShapeType>> {
    take_until_quiet(r, vendor.heartbeat_period() + LOCAL_DELIVERY)
}

/// True when the test may run; records a counted skip otherwise (`skip.rs`, never silently).
pub(crate) fn ready(test: &str, vendor: Vendor) -> bool {
    if !may_open_sockets(test) {
        return false;
    }
    if !vendor.binary().exists() {
        skip(
            test,
            &format!(
                "{} not built (scripts/build-peers builds it)",
                vendor.binary().display()
            ),
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
fn drain_lines(
    r: impl std::io::Read + Send + 'static,
    lines: Arc<Mutex<String>>,
) -> std::thread::JoinHandle<String> {
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
        Peer {
            child,
            stdout,
            stderr,
            lines,
        }
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

    /// Waits (bounded) until the peer has exited by itself; false on timeout. Once it has,
    /// nothing more can arrive from it.
    pub(crate) fn wait_exit(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if self.child.try_wait().unwrap().is_some() {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
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
        let out = self
            .stdout
            .take()
            .map(|h| h.join().unwrap())
            .unwrap_or_default();
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
                let out = self
                    .stdout
                    .take()
                    .map(|h| h.join().unwrap())
                    .unwrap_or_default();
                let tail: String = out.lines().rev().take(5).collect::<Vec<_>>().join("\n");
                panic!("peer did not finish in {timeout:?}; last lines:\n{tail}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let out = self
            .stdout
            .take()
            .map(|h| h.join().unwrap())
            .unwrap_or_default();
        let err = self
            .stderr
            .take()
            .map(|h| h.join().unwrap())
            .unwrap_or_default();
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
    DomainParticipant::builder(domain)
        .announce_period(Duration::from_millis(500))
        .build()
        .unwrap()
}

fn shape(i: i32, color: &str) -> ShapeType {
    ShapeType {
        color: color.into(),
        x: i,
        y: 100 + i,
        shapesize: 30,
        additional_payload_size: vec![],
    }
}

fn reliable_writer_qos() -> DataWriterQos {
    DataWriterQos {
        history: History::KeepAll,
        ..DataWriterQos::default()
    }
}

fn reliable_reader_qos() -> DataReaderQos {
    DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    }
}

/// siftdds writes `n` samples; the vendor's reliable subscriber must print all of them.
fn siftdds_to_vendor(vendor: Vendor, domain: u32, n: usize) {
    let d = domain.to_string();
    let count = n.to_string();
    let peer = Peer::spawn(
        vendor,
        &["sub", "-d", &d, "-n", &count, "-t", "60", "-k", "0"],
    );
    let p = participant(domain);
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let w = p
        .create_publisher(PublisherQos::default())
        .create_datawriter(&topic, reliable_writer_qos())
        .unwrap();
    w.wait_for_matched(1, Duration::from_secs(15)).unwrap();
    // A volatile reader that matches us after the first samples need not get them.
    assert!(
        peer.wait_line("sub: matched writers 1", Duration::from_secs(15)),
        "{vendor:?} never matched us"
    );
    for i in 0..n {
        w.write(&shape(i as i32, "BLUE")).unwrap();
    }
    w.wait_for_acknowledgments(Duration::from_secs(60)).unwrap();
    let out = peer.finish(Duration::from_secs(60));
    assert!(
        out.contains(&format!("sub: received {n} samples")),
        "{vendor:?} output:\n{out}"
    );
    // Every sample, once, in order.
    let xs = crate::peer_lines::blue_xs(&out);
    assert_eq!(xs, (0..n).collect::<Vec<_>>(), "{vendor:?}");
}

/// The vendor publishes `n` samples; our reliable reader must take all of them, in order.
fn vendor_to_siftdds(vendor: Vendor, domain: u32, n: usize) {
    let p = participant(domain);
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let r: DataReader<ShapeType> = p
        .create_subscriber(SubscriberQos::default())
        .create_datareader(&topic, reliable_reader_qos())
        .unwrap();
    let d = domain.to_string();
    let count = n.to_string();
    let peer = Peer::spawn(
        vendor,
        &[
            "pub", "-d", &d, "-n", &count, "-i", "0", "-c", "GREEN", "-t", "60", "-k", "0",
        ],
    );
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
    if ready(
        "siftdds_writer_to_cyclone_reader_keep_all_10k",
        Vendor::Cyclone,
    ) {
        siftdds_to_vendor(Vendor::Cyclone, 20, 10_000);
    }
}

#[test]
fn cyclone_writer_to_siftdds_reader_keep_all_10k() {
    if ready(
        "cyclone_writer_to_siftdds_reader_keep_all_10k",
        Vendor::Cyclone,
    ) {
        vendor_to_siftdds(Vendor::Cyclone, 21, 10_000);
    }
}

#[test]
fn siftdds_writer_to_fastdds_reader_keep_all_10k() {
    if ready(
        "siftdds_writer_to_fastdds_reader_keep_all_10k",
        Vendor::FastDds,
    ) {
        siftdds_to_vendor(Vendor::FastDds, 22, 10_000);
    }
}

#[test]
fn fastdds_writer_to_siftdds_reader_keep_all_10k() {
    if ready(
        "fastdds_writer_to_siftdds_reader_keep_all_10k",
        Vendor::FastDds,
    ) {
        vendor_to_siftdds(Vendor::FastDds, 23, 10_000);
    }
}

// ---------------------------------------------------------------------------------------------
// The remaining scenarios.

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
    let reliability = if reliable {
        Reliability::reliable()
    } else {
        Reliability::best_effort()
    };
    DataWriterQos {
        reliability,
        durability,
        history,
        ..DataWriterQos::default()
    }
}

fn reader_qos(reliable: bool, durability: Durability) -> DataReaderQos {
    let reliability = if reliable {
        Reliability::reliable()
    } else {
        Reliability::best_effort()
    };
    DataReaderQos {
        reliability,
        durability,
        history: History::KeepAll,
        ..DataReaderQos::default()
    }
}

fn make_writer(
    p: &DomainParticipant,
    topic: &str,
    partition: &[&str],
    qos: DataWriterQos,
) -> DataWriter<ShapeType> {
    let t = p.create_topic::<ShapeType>(topic, TopicQos::default());
    let pq = PublisherQos {
        partition: Partition::new(partition.iter().copied()),
        ..PublisherQos::default()
    };
    p.create_publisher(pq).create_datawriter(&t, qos).unwrap()
}

fn make_reader(
    p: &DomainParticipant,
    topic: &str,
    partition: &[&str],
    qos: DataReaderQos,
) -> DataReader<ShapeType> {
    let t = p.create_topic::<ShapeType>(topic, TopicQos::default());
    let sq = SubscriberQos {
        partition: Partition::new(partition.iter().copied()),
        ..SubscriberQos::default()
    };
    p.create_subscriber(sq).create_datareader(&t, qos).unwrap()
}

/// Takes from `r` until `done(all so far)` or `timeout`.
fn collect(
    r: &DataReader<ShapeType>,
    timeout: Duration,
    done: impl Fn(&[Sample<ShapeType>]) -> bool,
) -> Vec<Sample<ShapeType>> {
    let mut all = Vec::new();
    let deadline = Instant::now() + timeout;
    while !done(&all) && Instant::now() < deadline {
        all.extend(r.wait_take(Duration::from_millis(100)).unwrap());
    }
    all
}

fn alive_xs(samples: &[Sample<ShapeType>]) -> Vec<i32> {
    samples
        .iter()
        .filter_map(|s| s.value.as_ref())
        .map(|v| v.x)
        .collect()
}

pub(crate) fn spawn(vendor: Vendor, args: &[String]) -> Peer {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Peer::spawn(vendor, &args)
}

pub(crate) fn argv(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_string).collect()
}

mod delivery;
mod instances;
mod qos;
