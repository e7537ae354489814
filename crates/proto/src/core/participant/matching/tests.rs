use super::*;
use crate::qos::Reliability;

const W: Guid = Guid::new(
    crate::wire::GuidPrefix([1; 12]),
    EntityId([0, 0, 1, EntityId::KIND_WRITER_WITH_KEY]),
);
const R: Guid = Guid::new(
    crate::wire::GuidPrefix([2; 12]),
    EntityId([0, 0, 1, EntityId::KIND_READER_WITH_KEY]),
);

fn writer(topic: &str, qos: DataWriterQos) -> Side<DataWriterQos, PublisherQos> {
    Side::local_writer(&WriterSpec::new(topic, "T", true, qos))
}

fn reader(topic: &str, qos: DataReaderQos) -> Side<DataReaderQos, SubscriberQos> {
    Side::local_reader(&ReaderSpec::new(topic, "T", true, qos))
}

#[test]
fn other_topics_are_not_decided_and_equal_ones_match() {
    let (w, r) = (DataWriterQos::default(), DataReaderQos::default());
    assert!(
        decide(
            W,
            R,
            &writer("A", w.clone()),
            &reader("B", r.clone()),
            TypeMatch::ByName
        )
        .is_none()
    );
    let v = decide(W, R, &writer("A", w), &reader("A", r), TypeMatch::ByName).unwrap();
    assert!(v.compatible());
}

#[test]
fn an_rxo_failure_is_an_incompatibility_not_a_match() {
    let w = DataWriterQos {
        reliability: Reliability::best_effort(),
        ..DataWriterQos::default()
    };
    let r = DataReaderQos {
        reliability: Reliability::reliable(),
        ..DataReaderQos::default()
    };
    let v = decide(W, R, &writer("A", w), &reader("A", r), TypeMatch::ByName).unwrap();
    assert!(v.same_type_and_partitions);
    assert!(v.rxo.is_err());
    assert!(!v.compatible());
}
