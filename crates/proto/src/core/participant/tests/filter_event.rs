//! `Event::RemoteFilterRejected` (issue 15): a remote reader whose filter does not type-check
//! against our writer's type is reported once, however often its SEDP data is re-announced,
//! and still gets every sample (RTPS 2.5 §8.7.3: it filters itself).
#![allow(clippy::arithmetic_side_effects)]

use crate::core::discovery::ContentFilter;
use crate::core::participant::*;
use crate::core::sim::SimNet;
use crate::core::writer::NotFiltering;
use crate::qos::{DataReaderQos, DataWriterQos, History, Reliability};
use crate::types::ShapeType;

#[test]
fn a_remote_filter_that_does_not_type_check_is_reported_once_and_not_applied() {
    let mut net = SimNet::new(2, 0xf1, |_| {});
    net.run_for(100);
    let now = net.now();
    let descriptor = Some(std::sync::Arc::new(ShapeType::descriptor().clone()));
    let mut wspec = WriterSpec::new(
        "Square",
        "ShapeType",
        true,
        DataWriterQos {
            history: History::KeepAll,
            reliability: Reliability::reliable(),
            ..DataWriterQos::default()
        },
    );
    wspec.descriptor = descriptor.clone();
    let w = net.nodes[0].p.create_writer(now, wspec);
    let mut rspec = ReaderSpec::new(
        "Square",
        "ShapeType",
        true,
        DataReaderQos {
            history: History::KeepAll,
            reliability: Reliability::reliable(),
            ..DataReaderQos::default()
        },
    );
    // `x` is a long: comparing it with a string does not type-check.
    rspec.content_filter = Some(ContentFilter {
        content_filtered_topic_name: "Square_bad".into(),
        related_topic_name: "Square".into(),
        filter_class_name: "DDSSQL".into(),
        filter_expression: "x = 'abc'".into(),
        expression_parameters: Vec::new(),
    });
    let r = net.nodes[1].p.create_reader(now, rspec);
    // Long enough for the reader's SEDP data to be re-sent (repairs, re-announcements).
    net.run_for(5_000);
    let rejected: Vec<_> = net
        .events(0)
        .into_iter()
        .filter_map(|e| match e {
            Event::RemoteFilterRejected {
                writer,
                reader,
                reason,
            } => Some((writer, reader, reason)),
            _ => None,
        })
        .collect();
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    let (writer, reader, reason) = &rejected[0];
    assert_eq!((*writer, *reader), (w, r));
    assert!(matches!(reason, NotFiltering::Invalid(_)), "{reason:?}");
    let stats = net.nodes[0].p.writer_filter_stats(w).unwrap();
    assert_eq!(stats.filtered_readers, 0, "{stats:?}");
}
