//! Writer-side content filtering against real peers: a Fast DDS 2.9 ContentFilteredTopic
//! reader on our writer gets exactly the matching samples (our writer GAPs the rest), trusts
//! the PID_CONTENT_FILTER_INFO bit we send for its signature (shown with the test-only
//! inverted-bit writer), and a Cyclone DDS reader without a filter on the same writer still
//! gets everything; a Fast DDS reader and one of ours on one multicast group get exactly
//! their samples from our multicast plan. Sandbox only (see `sandbox`); a counted skip otherwise
//! (`skip.rs`).
//!
//! RTPS 2.5 §8.7.3-§8.7.4, §9.6.4.1; docs/interop-facts.md §2.3, §3.4.

// These tests drive real vendor processes in real time.
#![allow(clippy::disallowed_methods)]

use std::io::Write;
use std::time::Duration;

use siftdds::api::{DataWriter, DomainParticipant};
use siftdds::core::discovery::user_multicast_port;
use siftdds::core::writer::{MulticastConfig, MulticastMode, WriterFilterStats};
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, PublisherQos, Reliability, SubscriberQos, TopicQos,
};
use siftdds::types::ShapeType;

use crate::vendors::{PeerSample, Vendor, argv, participant, peer_samples, ready, spawn};

/// What we write: colours round-robin, sizes 10/20/30/40, x = index. The last sample is RED
/// and small, so it matches both filters (a peer exiting after its N-th sample has seen all).
pub(crate) fn samples() -> Vec<ShapeType> {
    let colors = ["RED", "BLUE", "GREEN"];
    let mut v: Vec<ShapeType> = (0..59)
        .map(|i| ShapeType {
            color: colors[i % 3].into(),
            x: i as i32,
            y: 7,
            shapesize: [10, 20, 30, 40][i % 4],
            additional_payload_size: vec![],
        })
        .collect();
    v.push(ShapeType {
        color: "RED".into(),
        x: 59,
        y: 7,
        shapesize: 10,
        additional_payload_size: vec![],
    });
    v
}

fn writer_qos() -> DataWriterQos {
    DataWriterQos {
        history: History::KeepAll,
        ..DataWriterQos::default()
    }
}

/// Writes [`samples`] 2 ms apart and waits until every reliable reader acknowledged them.
fn write_all_acknowledged(w: &DataWriter<ShapeType>) {
    for s in samples() {
        w.write(&s).unwrap();
        std::thread::sleep(Duration::from_millis(2));
    }
    w.wait_for_acknowledgments(Duration::from_secs(30)).unwrap();
}

fn report(test: &str, stats: &WriterFilterStats, got: &[PeerSample]) {
    let _ = writeln!(
        std::io::stderr(),
        "{test}: peer received {} samples (x = {:?}); writer {stats:?}",
        got.len(),
        got.iter().map(|s| s.x).collect::<Vec<_>>()
    );
}

/// Our writer (inverting the filter bit when `invert`) and one Fast DDS filtered reader
/// (`filter_args`); returns what the reader delivered and our writer's filter figures.
/// `expected` is how many samples the reader is to deliver (it exits after that many).
fn run_fastdds_filtered(
    domain: u32,
    filter_args: &[&str],
    expected: usize,
    invert: bool,
) -> (Vec<PeerSample>, WriterFilterStats) {
    let mut args = argv(&format!("sub -d {domain} -k 0 -n {expected} -t 40"));
    args.extend(filter_args.iter().map(|a| a.to_string()));
    let peer = spawn(Vendor::FastDds, &args);
    let p = participant(domain);
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let publisher = p.create_publisher(PublisherQos::default());
    let w: DataWriter<ShapeType> = if invert {
        publisher
            .create_datawriter_inverting_filter_bits_for_tests(&topic, writer_qos())
            .unwrap()
    } else {
        publisher.create_datawriter(&topic, writer_qos()).unwrap()
    };
    w.wait_for_matched(1, Duration::from_secs(15)).unwrap();
    assert!(
        peer.wait_line("sub: matched writers 1", Duration::from_secs(15)),
        "Fast DDS never matched us"
    );
    write_all_acknowledged(&w);
    let out = peer.finish(Duration::from_secs(40));
    let stats = w.filter_stats().unwrap();
    (peer_samples(&out), stats)
}

fn xs_where(f: impl Fn(&ShapeType) -> bool) -> Vec<i32> {
    samples().iter().filter(|s| f(s)).map(|s| s.x).collect()
}

fn fastdds_gets_exactly(
    test: &str,
    domain: u32,
    filter_args: &[&str],
    pred: impl Fn(&ShapeType) -> bool,
) {
    if !ready(test, Vendor::FastDds) {
        return;
    }
    let want = xs_where(&pred);
    let (got, stats) = run_fastdds_filtered(domain, filter_args, want.len(), false);
    report(test, &stats, &got);
    assert_eq!(got.iter().map(|s| s.x).collect::<Vec<_>>(), want, "{test}");
    // Our writer filtered for it: every rejected SN answered with a GAP. (The reader has
    // left by now, so `filtered_readers` is back to 0.)
    assert!(
        stats.samples_filtered >= (samples().len() - want.len()) as u64,
        "{stats:?}"
    );
    assert!(stats.filter_gaps_sent > 0, "{stats:?}");
}

#[test]
fn fastdds_color_filtered_reader_gets_exactly_the_red_samples_from_our_filtering_writer() {
    fastdds_gets_exactly(
        "fastdds_color_filtered_reader_gets_exactly_the_red_samples_from_our_filtering_writer",
        80,
        &["--cft"],
        |s| s.color == "RED",
    );
}

#[test]
fn fastdds_size_filtered_reader_gets_exactly_the_small_samples_from_our_filtering_writer() {
    fastdds_gets_exactly(
        "fastdds_size_filtered_reader_gets_exactly_the_small_samples_from_our_filtering_writer",
        81,
        &["-f", "shapesize <= 20"],
        |s| s.shapesize <= 20,
    );
}

/// The test-only writer sends the Fast DDS reader every sample with its bit inverted: if Fast
/// DDS trusts our bit it delivers exactly the non-RED samples (and drops the RED ones, which
/// its own filter would accept); if it re-filtered it would deliver the RED ones.
#[test]
fn fastdds_reader_trusts_our_filter_bit_inverted_bits_invert_its_delivered_set() {
    let test = "fastdds_reader_trusts_our_filter_bit_inverted_bits_invert_its_delivered_set";
    if !ready(test, Vendor::FastDds) {
        return;
    }
    // The last sample is RED (bit 0 in this mode): exit after the last non-RED one, then
    // check that no RED one was delivered before it.
    let want = xs_where(|s| s.color != "RED");
    let (got, stats) = run_fastdds_filtered(82, &["--cft"], want.len(), true);
    report(test, &stats, &got);
    assert!(
        got.iter().all(|s| s.color != "RED"),
        "a RED sample was delivered despite bit 0"
    );
    assert_eq!(got.iter().map(|s| s.x).collect::<Vec<_>>(), want);
    assert_eq!(
        stats.samples_filtered, 0,
        "in this mode everything goes as DATA"
    );
}

/// A Cyclone reader (which never announces a filter) and a Fast DDS RED reader on one writer:
/// Cyclone gets every sample, Fast DDS only the RED ones.
#[test]
fn cyclone_reader_without_filter_gets_everything_from_a_writer_filtering_for_fastdds() {
    let test = "cyclone_reader_without_filter_gets_everything_from_a_writer_filtering_for_fastdds";
    if !ready(test, Vendor::FastDds) || !ready(test, Vendor::Cyclone) {
        return;
    }
    let domain = 83;
    let all = samples().len();
    let red = xs_where(|s| s.color == "RED");
    let fast = spawn(
        Vendor::FastDds,
        &argv(&format!(
            "sub -d {domain} -k 0 -n {} -t 40 --cft",
            red.len()
        )),
    );
    let cyc = spawn(
        Vendor::Cyclone,
        &argv(&format!("sub -d {domain} -k 0 -n {all} -t 40")),
    );
    let p = participant(domain);
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let w = p
        .create_publisher(PublisherQos::default())
        .create_datawriter(&topic, writer_qos())
        .unwrap();
    w.wait_for_matched(2, Duration::from_secs(15)).unwrap();
    assert!(fast.wait_line("sub: matched writers 1", Duration::from_secs(15)));
    assert!(cyc.wait_line("sub: matched writers 1", Duration::from_secs(15)));
    write_all_acknowledged(&w);
    let fast_got = peer_samples(&fast.finish(Duration::from_secs(40)));
    let cyc_got = peer_samples(&cyc.finish(Duration::from_secs(40)));
    let stats = w.filter_stats().unwrap();
    report(&format!("{test} (Fast DDS)"), &stats, &fast_got);
    report(&format!("{test} (Cyclone)"), &stats, &cyc_got);
    // Cyclone's peer takes instance by instance (colour is the key): compare as sets.
    let mut cyc_xs: Vec<i32> = cyc_got.iter().map(|s| s.x).collect();
    cyc_xs.sort_unstable();
    assert_eq!(cyc_xs, (0..all as i32).collect::<Vec<_>>());
    assert_eq!(fast_got.iter().map(|s| s.x).collect::<Vec<_>>(), red);
    assert!(
        stats.samples_filtered >= (all - red.len()) as u64,
        "{stats:?}"
    );
}

/// A Fast DDS filtered reader (`color = 'RED'`) that listens on the user multicast group (so
/// Fast DDS's own writers would not filter for it, docs/interop-facts.md §3.1) and a siftdds
/// filtered reader (`color = 'BLUE'`) on the same group. Our writer, forced to multicast, sends
/// every sample one of them passes once to the group, listing both signatures with their bits: each
/// reader delivers exactly its own samples, drops the other's on its bit (Fast DDS:
/// `irrelevant_change_set`), and reliability completes.
#[test]
fn fastdds_and_siftdds_readers_on_one_multicast_group_each_get_exactly_their_samples() {
    let test = "fastdds_and_siftdds_readers_on_one_multicast_group_each_get_exactly_their_samples";
    if !ready(test, Vendor::FastDds) {
        return;
    }
    let domain = 120;
    let group_port = user_multicast_port(domain).unwrap();
    let red = xs_where(|s| s.color == "RED");
    let blue = xs_where(|s| s.color == "BLUE");
    // Fast DDS's user unicast port: any free one (ours are PB + DG·domain + 11 + 2·index).
    let fast_unicast = group_port + 89;
    let fast = spawn(
        Vendor::FastDds,
        &argv(&format!(
            "sub -d {domain} -k 0 -n {} -t 40 --cft -M {group_port},{fast_unicast}",
            red.len()
        )),
    );
    let plan = MulticastConfig {
        mode: MulticastMode::AlwaysMulticast,
        ..MulticastConfig::default()
    };
    let builder = || DomainParticipant::builder(domain).announce_period(Duration::from_millis(500));
    let p = builder().writer_multicast(plan).build().unwrap();
    let sub = builder().user_multicast(true).build().unwrap();
    let sub_topic = sub.create_topic::<ShapeType>("Square", TopicQos::default());
    let reader_qos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    };
    let reader = sub
        .create_subscriber(SubscriberQos::default())
        .create_filtered_datareader(
            &sub_topic,
            "SquareBlue",
            "color = %0",
            &["'BLUE'"],
            reader_qos,
        )
        .unwrap();
    let topic = p.create_topic::<ShapeType>("Square", TopicQos::default());
    let w = p
        .create_publisher(PublisherQos::default())
        .create_datawriter(&topic, writer_qos())
        .unwrap();
    w.wait_for_matched(2, Duration::from_secs(15)).unwrap();
    assert!(fast.wait_line("sub: matched writers 1", Duration::from_secs(15)));
    write_all_acknowledged(&w);
    let fast_got = peer_samples(&fast.finish(Duration::from_secs(40)));
    let mut ours: Vec<i32> = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while ours.len() < blue.len() && std::time::Instant::now() < deadline {
        ours.extend(
            reader
                .wait_take(Duration::from_millis(50))
                .unwrap()
                .iter()
                .filter_map(|s| s.value.as_ref().map(|v| v.x)),
        );
    }
    ours.extend(
        reader
            .take()
            .unwrap()
            .iter()
            .filter_map(|s| s.value.as_ref().map(|v| v.x)),
    );
    let stats = w.filter_stats().unwrap();
    report(test, &stats, &fast_got);
    assert_eq!(
        fast_got.iter().map(|s| s.x).collect::<Vec<_>>(),
        red,
        "Fast DDS"
    );
    assert_eq!(ours, blue, "siftdds reader");
    assert!(stats.samples_multicast > 0, "{stats:?}");
}
