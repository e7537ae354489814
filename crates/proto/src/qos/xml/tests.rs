//! Tests of the QoS XML loader: every policy and property is read, with the helpers and
//! fixtures the themed submodules share: profile inheritance, topic filters and defaults
//! (`tests/profile.rs`), Fast DDS import (`tests/fastdds.rs`), every error class with its
//! position (`tests/errors.rs`), limits and a no-panic fuzz loop (`tests/robustness.rs`), the
//! `<siftdds_peer_group>` extension (`tests/peer_group.rs`).
#![allow(clippy::arithmetic_side_effects)]

use super::{QosProvider, QosXmlError};
use crate::qos::{
    DataReaderQos, DataWriterQos, DomainParticipantQos, PublisherQos, SubscriberQos, TopicQos,
};
use crate::qos::{
    DataRepresentation, Deadline, DestinationOrder, Durability, DurabilityService, EntityFactory,
    GroupData, History, LatencyBudget, Length, Lifespan, Liveliness, LivelinessKind, Ownership,
    OwnershipStrength, Partition, Presentation, PresentationAccessScope, ReaderDataLifecycle,
    Reliability, ReliabilityKind, ResourceLimits, TimeBasedFilter, TopicData, TransportPriority,
    UserData, WriterDataLifecycle,
};
use crate::time::Duration;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/qos");

fn dur(seconds: i32, nanos: u32) -> Duration {
    let fraction = Duration::from_std(core::time::Duration::new(0, nanos)).fraction;
    Duration { seconds, fraction }
}

fn load(text: &str) -> QosProvider {
    let mut p = QosProvider::new();
    if let Err(e) = p.load_str("t.xml", text) {
        panic!("load failed: {e}");
    }
    p
}

/// The error of loading `text`, as `line:col: message`.
fn load_err(text: &str) -> String {
    let mut p = QosProvider::new();
    let e = p.load_str("t.xml", text).expect_err("load should fail");
    assert_eq!(e.file, "t.xml");
    format!("{}:{}: {}", e.line, e.col, e.message)
}

fn at(e: &QosXmlError) -> String {
    format!("{}:{}: {}", e.line, e.col, e.message)
}

fn everything() -> QosProvider {
    let mut p = QosProvider::new();
    p.load_file(format!("{DATA}/all_policies.xml")).unwrap();
    p
}

#[test]
fn every_participant_topic_and_group_policy_is_read() {
    let p = everything();
    let part = p.participant_qos("All::Everything").unwrap();
    assert_eq!(
        part,
        DomainParticipantQos {
            user_data: UserData {
                value: vec![1, 2, 3]
            },
            entity_factory: EntityFactory {
                autoenable_created_entities: false
            },
            property: Default::default(),
        }
    );
    let topic = p.topic_qos("All::Everything", "Any").unwrap();
    let expected = TopicQos {
        topic_data: TopicData {
            value: vec![1, 2, 3],
        },
        durability: Durability::Transient,
        durability_service: DurabilityService {
            service_cleanup_delay: dur(5, 0),
            history: History::KeepAll,
            max_samples: Length::Limited(100),
            max_instances: Length::Limited(10),
            max_samples_per_instance: Length::Limited(10),
        },
        deadline: Deadline {
            period: dur(2, 500_000_000),
        },
        latency_budget: LatencyBudget {
            duration: dur(0, 1_000_000),
        },
        liveliness: Liveliness {
            kind: LivelinessKind::ManualByTopic,
            lease_duration: dur(1, 0),
        },
        reliability: Reliability {
            kind: ReliabilityKind::Reliable,
            max_blocking_time: Duration::INFINITE,
        },
        destination_order: DestinationOrder::BySourceTimestamp,
        history: History::KeepLast(4),
        resource_limits: ResourceLimits {
            max_samples: Length::Limited(40),
            max_instances: Length::Unlimited,
            max_samples_per_instance: Length::Limited(8),
        },
        transport_priority: TransportPriority { value: 7 },
        lifespan: Lifespan {
            duration: dur(60, 0),
        },
        ownership: Ownership::Exclusive,
        data_representation: DataRepresentation::new([DataRepresentation::XCDR2]),
    };
    assert_eq!(topic, expected);
    let publisher = p.publisher_qos("All::Everything").unwrap();
    assert_eq!(
        publisher,
        PublisherQos {
            presentation: Presentation {
                access_scope: PresentationAccessScope::Group,
                coherent_access: true,
                ordered_access: true,
            },
            partition: Partition::new(["A", "B*"]),
            group_data: GroupData { value: vec![9, 10] },
            entity_factory: EntityFactory {
                autoenable_created_entities: false
            },
        }
    );
    let subscriber = p.subscriber_qos("All::Everything").unwrap();
    assert_eq!(
        subscriber,
        SubscriberQos {
            presentation: Presentation {
                access_scope: PresentationAccessScope::Topic,
                ..Presentation::default()
            },
            partition: Partition::new(["C"]),
            group_data: GroupData { value: vec![4] },
            entity_factory: EntityFactory {
                autoenable_created_entities: false
            },
        }
    );
}

#[test]
fn every_writer_and_reader_policy_is_read() {
    let p = everything();
    let w = p.datawriter_qos("All::Everything", "Any").unwrap();
    let expected = DataWriterQos {
        durability: Durability::TransientLocal,
        durability_service: DurabilityService {
            history: History::KeepLast(2),
            ..DurabilityService::default()
        },
        deadline: Deadline { period: dur(1, 0) },
        latency_budget: LatencyBudget {
            duration: dur(0, 5_000_000),
        },
        liveliness: Liveliness {
            kind: LivelinessKind::ManualByParticipant,
            lease_duration: Duration::INFINITE,
        },
        reliability: Reliability {
            kind: ReliabilityKind::BestEffort,
            max_blocking_time: Duration::ZERO,
        },
        destination_order: DestinationOrder::BySourceTimestamp,
        history: History::KeepAll,
        resource_limits: ResourceLimits {
            max_samples: Length::Limited(1000),
            max_instances: Length::Limited(10),
            max_samples_per_instance: Length::Limited(100),
        },
        transport_priority: TransportPriority { value: -3 },
        lifespan: Lifespan {
            duration: Duration::INFINITE,
        },
        user_data: UserData { value: vec![0xff] },
        ownership: Ownership::Exclusive,
        ownership_strength: OwnershipStrength { value: 42 },
        writer_data_lifecycle: WriterDataLifecycle {
            autodispose_unregistered_instances: false,
        },
        data_representation: DataRepresentation::new([2, 0]),
    };
    assert_eq!(w, expected);
    let r = p.datareader_qos("All::Everything", "Any").unwrap();
    let expected = DataReaderQos {
        durability: Durability::Persistent,
        deadline: Deadline { period: dur(10, 0) },
        latency_budget: LatencyBudget {
            duration: dur(0, 7),
        },
        liveliness: Liveliness {
            kind: LivelinessKind::Automatic,
            lease_duration: dur(3, 0),
        },
        // Only the kind is written: max_blocking_time keeps the 100 ms default.
        reliability: Reliability::reliable(),
        destination_order: DestinationOrder::BySourceTimestamp,
        history: History::KeepLast(5),
        resource_limits: ResourceLimits {
            max_samples_per_instance: Length::Limited(5),
            ..ResourceLimits::default()
        },
        user_data: UserData { value: vec![1] },
        ownership: Ownership::Exclusive,
        time_based_filter: TimeBasedFilter {
            minimum_separation: dur(1, 0),
        },
        reader_data_lifecycle: ReaderDataLifecycle {
            autopurge_nowriter_samples_delay: dur(30, 0),
            autopurge_disposed_samples_delay: dur(0, 250_000_000),
        },
        data_representation: DataRepresentation::new([DataRepresentation::XML]),
        type_consistency: Default::default(),
    };
    assert_eq!(r, expected);
}

#[test]
fn duration_spellings() {
    let p = load(
        r#"<dds><qos_library name="L"><qos_profile name="P">
  <datawriter_qos topic_filter="a"><deadline><period><sec>DURATION_INFINITY</sec></period></deadline></datawriter_qos>
  <datawriter_qos topic_filter="b"><deadline><period><nanosec>DURATION_INFINITY_NSEC</nanosec></period></deadline></datawriter_qos>
  <datawriter_qos topic_filter="c"><deadline><period><sec>2147483647</sec></period></deadline></datawriter_qos>
  <datawriter_qos topic_filter="d"><deadline><period>DDS_DURATION_ZERO</period></deadline></datawriter_qos>
  <datawriter_qos topic_filter="e"><deadline><period><sec>DDS_DURATION_ZERO_SEC</sec><nanosec>500000000</nanosec></period></deadline></datawriter_qos>
</qos_profile></qos_library></dds>"#,
    );
    let period = |t: &str| p.datawriter_qos("L::P", t).unwrap().deadline.period;
    assert_eq!(period("a"), Duration::INFINITE);
    assert_eq!(period("b"), Duration::INFINITE);
    assert_eq!(period("c"), Duration::INFINITE);
    assert_eq!(period("d"), Duration::ZERO);
    assert_eq!(period("e"), dur(0, 500_000_000));
    assert_eq!(
        period("e").to_std(),
        Some(core::time::Duration::from_millis(500))
    );
}

const BASE_FILE: &str = r#"<dds>
  <qos_library name="Base">
    <qos_profile name="Reliable">
      <datawriter_qos>
        <reliability><kind>RELIABLE_RELIABILITY_QOS</kind></reliability>
        <history><kind>KEEP_LAST_HISTORY_QOS</kind><depth>10</depth></history>
      </datawriter_qos>
      <datareader_qos><reliability><kind>RELIABLE_RELIABILITY_QOS</kind></reliability></datareader_qos>
    </qos_profile>
    <qos_profile name="Durable" base_name="Reliable">
      <datawriter_qos><durability><kind>TRANSIENT_LOCAL_DURABILITY_QOS</kind></durability></datawriter_qos>
    </qos_profile>
  </qos_library>
</dds>"#;

const DERIVED_FILE: &str = r#"<dds>
  <qos_library name="App">
    <qos_profile name="Sensor" base_name="Base::Durable">
      <datawriter_qos><history><depth>3</depth></history></datawriter_qos>
    </qos_profile>
    <qos_profile name="Mixed" base_name="Sensor">
      <datareader_qos base_name="Other::Reader"/>
    </qos_profile>
  </qos_library>
  <qos_library name="Other">
    <datareader_qos name="Reader"><deadline><period><sec>4</sec></period></deadline></datareader_qos>
  </qos_library>
</dds>"#;

#[test]
fn participant_property_is_read_and_a_derived_profile_overrides_by_name() {
    let p = load(
        r#"<dds><qos_library name="Net">
  <qos_profile name="Base">
    <domain_participant_qos><property><value>
      <element><name>siftdds.transport.interfaces</name><value>B,198.18.2.0/24</value></element>
      <element><name>other</name><value>x</value><propagate>false</propagate></element>
    </value></property></domain_participant_qos>
  </qos_profile>
  <qos_profile name="OnlyA" base_name="Net::Base">
    <domain_participant_qos><property><value>
      <element><name>siftdds.transport.interfaces</name><value>A</value></element>
    </value></property></domain_participant_qos>
  </qos_profile>
</qos_library></dds>"#,
    );
    let base = p.participant_qos("Net::Base").unwrap();
    assert_eq!(
        base.property.get("siftdds.transport.interfaces"),
        Some("B,198.18.2.0/24")
    );
    assert_eq!(base.property.get("other"), Some("x"));
    let derived = p.participant_qos("Net::OnlyA").unwrap();
    assert_eq!(
        derived.property.get("siftdds.transport.interfaces"),
        Some("A")
    );
    assert_eq!(derived.property.get("other"), Some("x"));
}

#[test]
fn a_property_element_without_a_value_is_an_error() {
    let e = load_err(
        "<dds><qos_library name=\"L\"><qos_profile name=\"P\"><domain_participant_qos>\
         <property><value><element><name>n</name></element></value></property>\
         </domain_participant_qos></qos_profile></qos_library></dds>",
    );
    assert!(
        e.ends_with("a property <element> needs <name> and <value>"),
        "{e}"
    );
}

mod errors;
mod fastdds;
mod peer_group;
mod profile;
mod robustness;
