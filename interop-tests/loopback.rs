//! siftdds to siftdds over real UDP sockets (inside the sandbox): the runtime, transport and
//! public API end to end. The peers are other vendors' processes in `vendors.rs`.

use std::time::Duration;

use siftdds::api::DomainParticipant;
use siftdds::qos::{DataReaderQos, DataWriterQos, Durability, History, PublisherQos, Reliability, SubscriberQos, TopicQos};
use siftdds::types::ShapeType;

use crate::sandbox::may_open_sockets;

#[test]
fn reliable_shapes_flow_between_two_participants_over_udp() {
    if !may_open_sockets("reliable_shapes_flow_between_two_participants_over_udp") {
        return;
    }
    let a = DomainParticipant::builder(7).announce_period(Duration::from_millis(200)).build().unwrap();
    let b = DomainParticipant::builder(7).announce_period(Duration::from_millis(200)).build().unwrap();
    let topic = a.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataWriterQos { history: History::KeepAll, durability: Durability::TransientLocal, ..DataWriterQos::default() };
    let writer = a.create_publisher(PublisherQos::default()).create_datawriter(&topic, qos).unwrap();
    let rqos = DataReaderQos { reliability: Reliability::reliable(), history: History::KeepAll, ..DataReaderQos::default() };
    let reader = b.create_subscriber(SubscriberQos::default()).create_datareader(&topic, rqos).unwrap();
    writer.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    reader.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    for i in 0..1000 {
        let s = ShapeType { color: "RED".into(), x: i, y: 2 * i, shapesize: 30, additional_payload_size: vec![] };
        writer.write(&s).unwrap();
    }
    writer.wait_for_acknowledgments(Duration::from_secs(20)).unwrap();
    let mut xs = Vec::new();
    while xs.len() < 1000 {
        let got = reader.wait_take(Duration::from_secs(5)).unwrap();
        assert!(!got.is_empty(), "stalled after {} samples", xs.len());
        xs.extend(got.into_iter().map(|s| s.value.unwrap().x));
    }
    assert_eq!(xs, (0..1000).collect::<Vec<_>>());
}
