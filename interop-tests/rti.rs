//! RTI Connext DDS 6.1 through PyPI `rticonnextdds-connector` (its wheel bundles the RTI core
//! libraries; `peers/python/shapes_rti.py`): an RTI writer to a siftdds reader with a content
//! filter — RTI filters on the writer side for such a reader, sending GAPs, HEARTBEATs whose
//! lastSN is below firstSN − 1 and its 16-byte NDDSPING datagrams (docs/interop-facts.md §5.8,
//! §5.11) — and a siftdds writer to an RTI reader. Skipped, with the reason
//! printed and counted, when `python3` cannot import `rticonnextdds_connector` (scripts/setup
//! installs it).

// Real processes in real time: these tests read the clock and poll.
#![allow(clippy::disallowed_methods)]

use std::process::Command;
use std::time::{Duration, Instant};

use siftdds::api::{DataReader, DomainParticipant};
use siftdds::qos::{DataReaderQos, DataWriterQos, History, Reliability, SubscriberQos, TopicQos};
use siftdds::types::ShapeType;

use crate::vendors::Peer;
use crate::xcdr2::python_module_ready;

const PEER: &str = repo_path!("interop-tests/peers/python/shapes_rti.py");
const WAIT: Duration = Duration::from_secs(40);

/// True when the test may run: inside the sandbox, with the connector importable.
fn rti_ready(test: &str) -> bool {
    python_module_ready(test, "rticonnextdds_connector")
}

fn rti_peer(args: &[&str]) -> Peer {
    let mut cmd = Command::new("python3");
    cmd.arg(PEER).args(args);
    Peer::spawn_command(cmd)
}

fn participant(domain: u32) -> DomainParticipant {
    DomainParticipant::builder(domain)
        .announce_period(Duration::from_millis(300))
        .build()
        .unwrap()
}

/// What the RTI peer writes as sample `i`.
fn rti_sample(i: i32) -> ShapeType {
    ShapeType {
        color: if i % 2 == 0 { "RED" } else { "BLUE" }.into(),
        x: i,
        y: 2 * i,
        shapesize: 30,
        additional_payload_size: vec![],
    }
}

/// An RTI writer (reliable, KEEP_LAST 1, one sample every 2 ms) writes 400 samples
/// alternating RED and BLUE; our reliable reader's filter keeps BLUE with x < 100 or x ≥ 300.
/// RTI evaluates the filter itself and sends us only those, with GAPs for the rest; while the
/// middle 200 are written its HEARTBEATs to us carry the last SN it sent us as lastSN and the
/// oldest it still holds as firstSN (lastSN < firstSN − 1, docs/interop-facts.md §5.8). We must
/// take those (no datagram counted as malformed) and go on to the samples after them: what we
/// get is in order, only what the filter keeps, and ends with the last BLUE (x = 399).
/// (KEEP_LAST 1 lets RTI replace a sample before it is sent, so not every one need arrive.)
#[test]
fn rti_writer_to_filtered_siftdds_reader() {
    if !rti_ready("rti_writer_to_filtered_siftdds_reader") {
        return;
    }
    let n = 400;
    let p = participant(180);
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    };
    let r: DataReader<ShapeType> = p
        .create_subscriber(SubscriberQos::default())
        .create_filtered_datareader(
            &topic,
            "Square_filtered",
            "color = %0 AND (x < %1 OR x >= %2)",
            &["'BLUE'", "100", "300"],
            qos,
        )
        .unwrap();
    let peer = rti_peer(&["pub", "180", "Square", &n.to_string(), "1", "20"]);
    let keep = |s: &ShapeType| s.color == "BLUE" && (s.x < 100 || s.x >= 300);
    let last = rti_sample(n - 1);
    let mut got = Vec::new();
    let deadline = Instant::now() + WAIT;
    while got.last() != Some(&last) && Instant::now() < deadline {
        got.extend(
            r.wait_take(Duration::from_millis(200))
                .unwrap()
                .into_iter()
                .filter_map(|s| s.value),
        );
    }
    let out = peer.finish(WAIT);
    assert!(out.contains("connext: NDDSCORE_BUILD_6.1"), "{out}");
    assert!(got.iter().all(keep), "a sample the filter rejects: {got:?}");
    assert!(
        got.windows(2).all(|w| w[0].x < w[1].x),
        "out of order: {got:?}"
    );
    assert_eq!(got.last(), Some(&last), "peer output:\n{out}");
    let stats = p.stats().unwrap();
    eprintln!(
        "rti_writer_to_filtered_siftdds_reader: {} of {} samples; datagrams {} malformed {} pings {}",
        got.len(),
        (0..n).map(rti_sample).filter(keep).count(),
        stats.datagrams,
        stats.malformed,
        stats.pings
    );
    assert_eq!(stats.malformed, 0, "{stats:?}");
}

/// A siftdds writer (reliable, KEEP_ALL) to an RTI reader: every sample arrives.
#[test]
fn siftdds_writer_to_rti_reader() {
    if !rti_ready("siftdds_writer_to_rti_reader") {
        return;
    }
    let n = 100;
    let peer = rti_peer(&["sub", "181", "Square", &n.to_string()]);
    let p = participant(181);
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataWriterQos {
        history: History::KeepAll,
        ..DataWriterQos::default()
    };
    let w = p
        .create_publisher(siftdds::qos::PublisherQos::default())
        .create_datawriter(&topic, qos)
        .unwrap();
    w.wait_for_matched(1, WAIT).unwrap();
    assert!(
        peer.wait_line("matched", WAIT),
        "the RTI reader never matched us"
    );
    for i in 0..n {
        w.write(&rti_sample(i)).unwrap();
    }
    w.wait_for_acknowledgments(WAIT).unwrap();
    let out = peer.finish(WAIT);
    let mut samples: Vec<(String, i32, i32, i32)> = out
        .lines()
        .filter_map(|l| {
            let mut f = l.strip_prefix("SAMPLE ")?.split(' ');
            let color = f.next()?.to_string();
            let mut num = || f.next()?.parse::<i32>().ok();
            Some((color, num()?, num()?, num()?))
        })
        .collect();
    // The connector takes instance by instance: compare as a set, each sample once.
    samples.sort_by_key(|s| s.1);
    let want: Vec<_> = (0..n)
        .map(rti_sample)
        .map(|s| (s.color, s.x, s.y, s.shapesize))
        .collect();
    assert_eq!(samples, want, "{out}");
}
