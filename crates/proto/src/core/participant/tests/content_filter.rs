//! Content-filtered readers across participants on the simulated network, under loss: a
//! filtering writer sends each reader exactly its samples and GAPs the rest, readers filter
//! locally when the writer does not, on XCDR1 and XCDR2 samples. No sockets, no sleeps.
//! DDS 1.4 §2.2.2.3.3 (ContentFilteredTopic), RTPS 2.5 §8.7.3 (content filtering).
#![allow(clippy::arithmetic_side_effects)]

use super::*;

pub(super) fn filtered_spec(expr: &str, params: &[&str]) -> ReaderSpec {
    let mut spec = reader_spec(true);
    spec.content_filter = Some(ContentFilter {
        content_filtered_topic_name: format!("Square_{expr}"),
        related_topic_name: "Square".into(),
        filter_class_name: "DDSSQL".into(),
        filter_expression: expr.into(),
        expression_parameters: params.iter().map(|s| s.to_string()).collect(),
    });
    spec.descriptor = Some(std::sync::Arc::new(ShapeType::descriptor().clone()));
    spec
}

/// `n` samples: colours RED, BLUE, GREEN round-robin, sizes 10/20/30/40, x as `x` says.
pub(super) fn shapes(n: usize, x: impl Fn(usize) -> i32) -> Vec<ShapeType> {
    let colors = ["RED", "BLUE", "GREEN"];
    (0..n)
        .map(|i| ShapeType {
            color: colors[i % 3].into(),
            x: x(i),
            y: 0,
            shapesize: [10, 20, 30, 40][i % 4],
            additional_payload_size: vec![],
        })
        .collect()
}

/// A writer (filtering when `writer_filters`) of samples serialized as `version`, and two
/// readers with different filters, at 10 % loss: each reader delivers exactly the samples its
/// filter accepts. Returns the writer's filter figures and the readers' counters.
fn two_filtered_readers(
    writer_filters: bool,
    version: crate::types::XcdrVersion,
) -> (
    crate::core::writer::WriterFilterStats,
    Vec<crate::core::reader::ReaderCounters>,
) {
    let mut net = lan(&[0, 0, 0]);
    net.run_for(100);
    let now = net.now();
    let mut wspec = writer_spec(true);
    if writer_filters {
        wspec.descriptor = Some(std::sync::Arc::new(ShapeType::descriptor().clone()));
    }
    let w = net.nodes[0].p.create_writer(now, wspec);
    let red = net.nodes[1]
        .p
        .create_reader(now, filtered_spec("color = %0", &["'RED'"]));
    let small = net.nodes[2]
        .p
        .create_reader(now, filtered_spec("shapesize <= 20", &[]));
    net.run_for(300);
    net.faults.loss_percent = 10;
    let shapes = shapes(60, |i| i as i32);
    for s in &shapes {
        let now = net.now();
        let data = Bytes::from(
            s.serialize_as(version, crate::cdr::Endianness::Little)
                .unwrap(),
        );
        net.nodes[0]
            .p
            .write(
                now,
                w,
                WriteRequest::new(ChangeKind::Alive, s.key_hash(), data),
            )
            .unwrap();
        net.run_for(1);
    }
    for _ in 0..2000 {
        if net.nodes[0].p.all_acked(w) {
            break;
        }
        net.run_for(50);
    }
    assert!(net.nodes[0].p.all_acked(w), "reliability stalled");
    let now = net.now();
    let mut take = |node: usize, r| {
        let mut xs = Vec::new();
        while let Some(c) = net.nodes[node].p.take(now, r) {
            xs.push(ShapeType::deserialize(&c.data).unwrap().x);
        }
        xs
    };
    let want_red: Vec<i32> = shapes
        .iter()
        .filter(|s| s.color == "RED")
        .map(|s| s.x)
        .collect();
    let want_small: Vec<i32> = shapes
        .iter()
        .filter(|s| s.shapesize <= 20)
        .map(|s| s.x)
        .collect();
    assert_eq!(take(1, red), want_red);
    assert_eq!(take(2, small), want_small);
    let counters = vec![
        net.nodes[1].p.reader_counters(red).unwrap(),
        net.nodes[2].p.reader_counters(small).unwrap(),
    ];
    (net.nodes[0].p.writer_filter_stats(w).unwrap(), counters)
}

#[test]
fn filtering_writer_sends_two_filtered_readers_exactly_their_samples_and_gaps_the_rest() {
    let (stats, counters) = two_filtered_readers(true, crate::types::XcdrVersion::Xcdr1);
    assert_eq!(stats.filtered_readers, 2);
    // 40 rejected for the RED reader, 30 for the small one: every one covered by a GAP
    // (more with repairs of lost GAPs).
    assert!(stats.samples_filtered >= 70, "{stats:?}");
    assert!(stats.filter_gaps_sent > 0, "{stats:?}");
    assert_eq!(stats.filter.lookups, 60);
    for c in &counters {
        // The readers trusted the writer's bit and never evaluated a DATA themselves.
        assert_eq!(c.content_filtered_locally, 0);
        assert!(c.content_passed_by_writer > 0);
    }
}

#[test]
fn filtered_readers_filter_locally_when_the_writer_does_not() {
    let (stats, counters) = two_filtered_readers(false, crate::types::XcdrVersion::Xcdr1);
    assert_eq!((stats.filtered_readers, stats.samples_filtered), (0, 0));
    assert_eq!(counters[0].content_filtered_locally, 40);
    assert_eq!(counters[1].content_filtered_locally, 30);
}

/// The same on XCDR2 (D_CDR2) samples: the filtering writer evaluates the filters past the
/// DHEADER, and readers filtering locally do too (DDS-XTypes 1.3 §7.4.3.5).
#[test]
fn xcdr2_samples_are_filtered_by_the_writer_and_locally() {
    let (stats, counters) = two_filtered_readers(true, crate::types::XcdrVersion::Xcdr2);
    assert_eq!((stats.filtered_readers, stats.filter.lookups), (2, 60));
    assert!(stats.samples_filtered >= 70, "{stats:?}");
    assert!(
        counters.iter().all(|c| c.content_filtered_locally == 0),
        "{counters:?}"
    );
    let (_, counters) = two_filtered_readers(false, crate::types::XcdrVersion::Xcdr2);
    assert_eq!(counters[0].content_filtered_locally, 40);
    assert_eq!(counters[1].content_filtered_locally, 30);
}
