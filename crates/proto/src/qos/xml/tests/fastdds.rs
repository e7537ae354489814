//! Fast DDS XML profiles imported into the QoS model, endpoint partitions becoming group QoS.
#![allow(clippy::arithmetic_side_effects)]

use super::*;

#[test]
fn fast_dds_profiles_are_imported() {
    let mut p = QosProvider::new();
    p.load_file(format!("{DATA}/fastdds.xml")).unwrap();
    let w = p.datawriter_qos("fastdds::writer_profile", "T").unwrap();
    assert_eq!(w.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(w.reliability.max_blocking_time, dur(1, 0));
    assert_eq!(w.durability, Durability::TransientLocal);
    assert_eq!(
        w.liveliness,
        Liveliness {
            kind: LivelinessKind::ManualByTopic,
            lease_duration: dur(3, 0)
        }
    );
    assert_eq!(w.deadline.period, dur(0, 500_000_000));
    assert_eq!(w.lifespan.duration, Duration::INFINITE);
    assert_eq!(w.latency_budget.duration, dur(0, 10));
    assert_eq!(w.ownership, Ownership::Exclusive);
    assert_eq!(w.ownership_strength.value, 9);
    assert_eq!(w.history, History::KeepLast(50));
    assert_eq!(
        w.resource_limits,
        ResourceLimits {
            max_samples: Length::Limited(500),
            max_instances: Length::Unlimited,
            max_samples_per_instance: Length::Limited(50),
        }
    );
    // The data_writer is the Fast DDS default writer profile.
    assert_eq!(p.datawriter_qos("", "T").unwrap(), w);
    let r = p.datareader_qos("fastdds::reader_profile", "T").unwrap();
    assert_eq!(r.reliability.kind, ReliabilityKind::BestEffort);
    assert_eq!(r.history, History::KeepAll);
    let t = p.topic_qos("fastdds::topic_profile", "T").unwrap();
    assert_eq!(t.history, History::KeepLast(7));
    assert_eq!(
        p.participant_qos("fastdds::participant_profile").unwrap(),
        DomainParticipantQos::default()
    );
    let sub = p.subscriber_qos("fastdds::reader_profile").unwrap();
    assert_eq!(sub, SubscriberQos::default());
    // Standalone <profiles> root works too; partitions are read.
    let q = load(
        r#"<profiles><data_reader profile_name="r"><qos><partition><names><name>p1</name><name>p*</name></names></partition></qos></data_reader></profiles>"#,
    );
    let s = q.subscriber_qos("fastdds::r").unwrap();
    assert_eq!(s.partition, Partition::new(["p1", "p*"]));
}

#[test]
fn fast_dds_endpoint_partitions_become_group_qos() {
    let p = load(
        r#"<profiles><data_writer profile_name="w"><qos><partition><names><name>p</name></names></partition></qos></data_writer>
<data_reader profile_name="w"><qos><reliability><kind>RELIABLE</kind></reliability></qos></data_reader></profiles>"#,
    );
    assert_eq!(
        p.datareader_qos("fastdds::w", "T").unwrap().reliability,
        Reliability::reliable()
    );
    assert_eq!(
        p.publisher_qos("fastdds::w").unwrap().partition,
        Partition::new(["p"])
    );
    assert_eq!(
        p.datawriter_qos("fastdds::w", "T").unwrap(),
        DataWriterQos::default()
    );
    let e = load_err(
        r#"<profiles><data_reader profile_name="r"><qos><ownershipStrength><value>1</value></ownershipStrength></qos></data_reader></profiles>"#,
    );
    assert_eq!(
        e,
        "1:11: <data_reader> profile sets a policy that does not apply to it"
    );
}
