//! A generated type on real endpoints: a DataWriter naming XCDR2 in DATA_REPRESENTATION writes
//! the generated D_CDR2 payloads over UDP, and a content-filtered DataReader (XCDR2 only) gets
//! exactly the samples its filter passes, the writer evaluating the filter on those payloads
//! through the generated descriptor. Loopback-only participants (127.0.0.1, unicast
//! discovery), so this runs anywhere; domain 131.

// An end-to-end test: it waits on real sockets.
#![allow(clippy::disallowed_methods)]

use std::time::{Duration, Instant};

use siftdds::api::DomainParticipant;
use siftdds::qos::{
    DataReaderQos, DataRepresentation, DataWriterQos, History, PublisherQos, Reliability,
    SubscriberQos, TopicQos,
};

fn participant() -> DomainParticipant {
    DomainParticipant::builder(131)
        .loopback_only()
        .announce_period(Duration::from_millis(200))
        .build()
        .unwrap()
}

#[test]
fn generated_type_in_xcdr2_is_filtered_by_the_writer_and_delivered_exactly() {
    let xcdr2 = || DataRepresentation::new([DataRepresentation::XCDR2]);
    let (a, b) = (participant(), participant());
    let wt = a.create_topic::<idl_tests::ShapeType>("GenSquare", TopicQos::default());
    let rt = b.create_topic::<idl_tests::ShapeType>("GenSquare", TopicQos::default());
    let wqos = DataWriterQos {
        history: History::KeepAll,
        ..DataWriterQos::default()
    }
    .data_representation(xcdr2());
    let w = a
        .create_publisher(PublisherQos::default())
        .create_datawriter(&wt, wqos)
        .unwrap();
    let rqos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        ..DataReaderQos::default()
    }
    .data_representation(xcdr2());
    let r = b
        .create_subscriber(SubscriberQos::default())
        .create_filtered_datareader(
            &rt,
            "GenSquareRed",
            "color = %0 AND x > 5",
            &["'RED'"],
            rqos,
        )
        .unwrap();
    w.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    let colors = ["RED", "BLUE"];
    for i in 0..40 {
        let s = idl_tests::ShapeType {
            color: colors[i % 2].into(),
            x: i as i32,
            y: 1,
            shapesize: 20,
            additional_payload_size: vec![7; i],
        };
        w.write(&s).unwrap();
    }
    w.wait_for_acknowledgments(Duration::from_secs(10)).unwrap();
    let want: Vec<i32> = (0..40).filter(|i| i % 2 == 0 && *i > 5).collect();
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while got.len() < want.len() && Instant::now() < deadline {
        for s in r.wait_take(Duration::from_millis(100)).unwrap() {
            let v = s.value.unwrap();
            assert_eq!(
                v.additional_payload_size.len(),
                v.x as usize,
                "payload intact"
            );
            got.push(v.x);
        }
    }
    assert_eq!(got, want);
    let stats = w.filter_stats().unwrap();
    assert_eq!(
        stats.data_sent,
        want.len() as u64,
        "the writer filtered: {stats:?}"
    );
    // `color` is a string<128>: a longer one is refused before anything is sent.
    let too_long = idl_tests::ShapeType {
        color: "R".repeat(129),
        ..Default::default()
    };
    assert!(matches!(
        w.write(&too_long),
        Err(siftdds::api::Error::Usage(
            siftdds::api::UsageError::InvalidSample { .. }
        ))
    ));
}
