//! Tests of the QoS XML loader: every policy, inheritance, topic filters, defaults, Fast DDS
//! import, every error class with its position, limits, and a no-panic fuzz loop.
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
fn inheritance_chains_cross_libraries_and_files() {
    let mut p = QosProvider::new();
    // The derived file first: references are resolved at lookup, so order does not matter.
    p.load_str("derived.xml", DERIVED_FILE).unwrap();
    p.load_str("base.xml", BASE_FILE).unwrap();
    let w = p.datawriter_qos("App::Sensor", "T").unwrap();
    assert_eq!(w.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(w.durability, Durability::TransientLocal);
    assert_eq!(w.history, History::KeepLast(3));
    // Same-library unqualified base, then the chain continues: Mixed -> Sensor -> Durable.
    let w = p.datawriter_qos("App::Mixed", "T").unwrap();
    assert_eq!(
        (w.durability, w.history),
        (Durability::TransientLocal, History::KeepLast(3))
    );
    // An entity-level base_name replaces the profile's base for that kind only.
    let r = p.datareader_qos("App::Mixed", "T").unwrap();
    assert_eq!(r.deadline.period, dur(4, 0));
    assert_eq!(r.reliability.kind, ReliabilityKind::BestEffort);
    // Through Sensor's base, the reader is reliable.
    assert_eq!(
        p.datareader_qos("App::Sensor", "T")
            .unwrap()
            .reliability
            .kind,
        ReliabilityKind::Reliable
    );
    // A unique unqualified name also works in the API.
    assert_eq!(
        p.datawriter_qos("Durable", "T").unwrap().history,
        History::KeepLast(10)
    );
    let names: Vec<&str> = p.profile_names().collect();
    assert_eq!(
        names,
        [
            "App::Sensor",
            "App::Mixed",
            "Other::Reader",
            "Base::Reliable",
            "Base::Durable"
        ]
    );
}

#[test]
fn inheritance_from_the_data_directory_files() {
    let mut p = QosProvider::new();
    p.load_sources(
        Some(&format!("{DATA}/base.xml; file://{DATA}/derived.xml;")),
        DATA.as_ref(),
    )
    .unwrap();
    let w = p.datawriter_qos("App::Fast", "Anything").unwrap();
    assert_eq!(w.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(w.history, History::KeepLast(20));
    assert_eq!(p.default_profile(), Some("App::Fast"));
    assert_eq!(p.datawriter_qos("", "x").unwrap(), w);
    // USER_QOS_PROFILES.xml in the directory is loaded after the list; its default wins.
    let dir = std::env::temp_dir().join(format!("siftdds-qos-xml-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let user = r#"<dds><qos_library name="User"><qos_profile name="U" is_default_qos="true"/></qos_library></dds>"#;
    std::fs::write(dir.join(super::USER_QOS_PROFILES_FILE), user).unwrap();
    p.load_sources(None, &dir).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(p.default_profile(), Some("User::U"));
    let err = p.load_file(format!("{DATA}/missing.xml")).unwrap_err();
    assert!(
        err.to_string().contains("missing.xml: cannot open"),
        "{err}"
    );
}

#[test]
fn topic_filter_prefers_filtered_entries_in_document_order() {
    let p = load(
        r#"<dds><qos_library name="L">
  <qos_profile name="Base"><datawriter_qos><ownership_strength><value>1</value></ownership_strength></datawriter_qos></qos_profile>
  <qos_profile name="P" base_name="Base">
    <datawriter_qos><ownership_strength><value>2</value></ownership_strength></datawriter_qos>
    <datawriter_qos topic_filter="Sensor*"><ownership_strength><value>3</value></ownership_strength></datawriter_qos>
    <datawriter_qos topic_filter="Sensor_[0-9]"><ownership_strength><value>4</value></ownership_strength></datawriter_qos>
    <datawriter_qos topic_filter="Exact"><ownership_strength><value>5</value></ownership_strength></datawriter_qos>
    <datawriter_qos topic_filter="*"><ownership_strength><value>6</value></ownership_strength></datawriter_qos>
  </qos_profile>
  <qos_profile name="OnlyFiltered" base_name="Base">
    <datawriter_qos topic_filter="A"><ownership_strength><value>7</value></ownership_strength></datawriter_qos>
  </qos_profile>
</qos_library></dds>"#,
    );
    let s = |prof: &str, t: &str| p.datawriter_qos(prof, t).unwrap().ownership_strength.value;
    assert_eq!(
        s("L::P", "Sensor_1"),
        3,
        "first matching filter wins, not the most specific"
    );
    assert_eq!(s("L::P", "Exact"), 5);
    assert_eq!(
        s("L::P", "Other"),
        2,
        "the first unfiltered entry ('*' counts as none)"
    );
    assert_eq!(s("L::OnlyFiltered", "A"), 7);
    assert_eq!(s("L::OnlyFiltered", "B"), 1, "no entry selected: inherited");
}

#[test]
fn default_profile_is_used_for_the_empty_name_and_last_one_wins() {
    let mut p = QosProvider::new();
    assert_eq!(p.default_profile(), None);
    assert_eq!(p.datawriter_qos("", "T").unwrap(), DataWriterQos::default());
    p.load_str(
        "a.xml",
        r#"<dds><qos_library name="A"><qos_profile name="D" is_default_qos="true">
             <datawriter_qos><durability><kind>TRANSIENT_LOCAL_DURABILITY_QOS</kind></durability></datawriter_qos>
           </qos_profile></qos_library></dds>"#,
    )
    .unwrap();
    assert_eq!(p.default_profile(), Some("A::D"));
    assert_eq!(
        p.datawriter_qos("", "T").unwrap().durability,
        Durability::TransientLocal
    );
    assert_eq!(p.publisher_qos("").unwrap(), PublisherQos::default());
    p.load_str(
        "b.xml",
        r#"<qos_library name="B"><qos_profile name="E" is_default_qos="1"/></qos_library>"#,
    )
    .unwrap();
    assert_eq!(p.default_profile(), Some("B::E"));
    assert_eq!(p.datawriter_qos("", "T").unwrap(), DataWriterQos::default());
}

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

/// Every error class, with its position (line:col of the offending element or attribute).
#[test]
fn errors_name_the_position() {
    let wrap = |body: &str| {
        format!(
            "<dds>\n<qos_library name=\"L\">\n<qos_profile name=\"P\">\n{body}\n</qos_profile>\n</qos_library>\n</dds>"
        )
    };
    let cases: &[(&str, &str)] = &[
        (
            "<datawriter_qos><reliabilty/></datawriter_qos>",
            "4:17: unknown element <reliabilty> in <datawriter_qos> (did you mean <reliability>?)",
        ),
        (
            "<datawriter_qos><reliability><kind>RELIABEL</kind></reliability></datawriter_qos>",
            "4:30: bad reliability kind `RELIABEL` (did you mean RELIABLE_RELIABILITY_QOS?)",
        ),
        (
            "<datawriter_qos><history><depth>ten</depth></history></datawriter_qos>",
            "4:26: bad integer `ten`",
        ),
        (
            "<datawriter_qos><history><depth>-1</depth></history></datawriter_qos>",
            "4:26: -1 is negative",
        ),
        (
            "<datawriter_qos><resource_limits><max_samples>-2</max_samples></resource_limits></datawriter_qos>",
            "4:34: -2 is negative (use LENGTH_UNLIMITED for no limit)",
        ),
        (
            "<datawriter_qos><deadline><period><sec>1</sec><nanosec>1000000000</nanosec></period></deadline></datawriter_qos>",
            "4:47: bad nanoseconds `1000000000`",
        ),
        (
            "<datawriter_qos><deadline><period><secs>1</secs></period></deadline></datawriter_qos>",
            "4:35: unknown element <secs> in <period> (did you mean <sec>?)",
        ),
        (
            "<datawriter_qos><entity_factory/></datawriter_qos>",
            "4:17: policy <entity_factory> does not apply to <datawriter_qos>",
        ),
        (
            "<datawriter_qos><writer_data_lifecycle><autodispose_unregistered_instances>yes</autodispose_unregistered_instances></writer_data_lifecycle></datawriter_qos>",
            "4:40: bad boolean `yes`",
        ),
        (
            "<datawriter_qos topic_filtre=\"x\"/>",
            "4:17: unknown attribute `topic_filtre` on <datawriter_qos> (did you mean `topic_filter`?)",
        ),
        (
            "<publisher_qos topic_filter=\"x\"/>",
            "4:16: unknown attribute `topic_filter` on <publisher_qos>",
        ),
        (
            "<writer_qos/>",
            "4:1: unknown element <writer_qos> in <qos_profile>",
        ),
        (
            "<user_data><value>1,300</value></user_data>",
            "4:1: unknown element <user_data> in <qos_profile>",
        ),
        (
            "<domain_participant_qos><user_data><value>1,300</value></user_data></domain_participant_qos>",
            "4:36: bad octet `300`",
        ),
        (
            "<datawriter_qos><reliability><kind><x/></kind></reliability></datawriter_qos>",
            "4:36: <kind> takes text, not <x>",
        ),
    ];
    for (body, expected) in cases {
        assert_eq!(&load_err(&wrap(body)), expected, "for {body}");
    }
}

#[test]
fn structural_errors_name_the_position() {
    assert_eq!(
        load_err("<dds><qos_library/></dds>"),
        "1:6: <qos_library> needs a `name` attribute"
    );
    assert_eq!(
        load_err("<qos>\n</qos>"),
        "1:1: root element is <qos>, expected <dds>, <qos_library> or <profiles>"
    );
    assert_eq!(
        load_err("<dds>\n  <qos_libary name=\"x\"/></dds>"),
        "2:3: unknown element <qos_libary> in <dds> (did you mean <qos_library>?)"
    );
    assert_eq!(
        load_err("<dds>\n<qos_library name=\"L\">\n</dds>")
            .split(':')
            .take(2)
            .collect::<Vec<_>>(),
        ["3", "1"]
    );
    assert!(load_err("<dds><qos_library name=\"L\">").contains("XML error"));
    assert_eq!(
        load_err(""),
        "1:1: XML error: the document does not have a root node"
    );
    let dtd = "<?xml version=\"1.0\"?>\n<!DOCTYPE dds [<!ENTITY a \"aaaa\">]>\n<dds>&a;</dds>";
    assert!(load_err(dtd).contains("DTD"), "{}", load_err(dtd));
    let dup = "<dds>\n<qos_library name=\"L\"><qos_profile name=\"P\"/></qos_library>\n<qos_library name=\"L\">\n  <qos_profile name=\"P\"/></qos_library></dds>";
    assert_eq!(
        load_err(dup),
        "4:3: duplicate profile `L::P` (first defined at t.xml:2:23)"
    );
    let mut p = QosProvider::new();
    p.load_str(
        "a.xml",
        "<qos_library name=\"L\"><qos_profile name=\"P\"/></qos_library>",
    )
    .unwrap();
    let e = p
        .load_str(
            "b.xml",
            "<qos_library name=\"L\">\n<qos_profile name=\"P\"/></qos_library>",
        )
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "b.xml:2:1: duplicate profile `L::P` (first defined at a.xml:1:23)"
    );
    // A failed load keeps nothing.
    let e = p
        .load_str(
            "c.xml",
            "<qos_library name=\"M\"><qos_profile name=\"Q\"/><bad/></qos_library>",
        )
        .unwrap_err();
    assert_eq!(e.line, 1);
    assert_eq!(p.profile_names().count(), 1);
}

#[test]
fn lookup_errors_name_the_position() {
    let p = load(
        r#"<dds>
<qos_library name="L">
  <qos_profile name="A" base_name="B"/>
  <qos_profile name="B" base_name="L::C"/>
  <qos_profile name="C" base_name="A"/>
  <qos_profile name="Lost" base_name="Nowhere"/>
  <qos_profile name="Self"><datawriter_qos base_name="Self"/></qos_profile>
  <qos_profile name="Bad">
    <datawriter_qos>
      <history><depth>10</depth></history>
      <resource_limits><max_samples_per_instance>5</max_samples_per_instance></resource_limits>
    </datawriter_qos>
    <datareader_qos><deadline><period><sec>-1</sec></period></deadline></datareader_qos>
  </qos_profile>
</qos_library>
</dds>"#,
    );
    let e = p.datawriter_qos("L::A", "T").unwrap_err();
    assert_eq!(
        at(&e),
        "5:25: base_name cycle: L::A -> L::B -> L::C -> L::A"
    );
    // The cycle is also found when the profile has no entry of the wanted kind.
    assert!(
        p.participant_qos("L::B")
            .unwrap_err()
            .message
            .contains("cycle")
    );
    let e = p.topic_qos("L::Lost", "T").unwrap_err();
    assert_eq!(
        at(&e),
        "6:28: unknown base profile `Nowhere` (in `L::Lost`)"
    );
    let e = p.datawriter_qos("L::Self", "T").unwrap_err();
    assert_eq!(at(&e), "7:44: base_name cycle: L::Self -> L::Self");
    assert_eq!(
        p.datareader_qos("L::Self", "T").unwrap(),
        DataReaderQos::default()
    );
    let e = p.datawriter_qos("L::Bad", "T").unwrap_err();
    assert_eq!(e.file, "t.xml");
    assert_eq!(
        at(&e),
        "8:3: profile `L::Bad` gives an inconsistent <datawriter_qos> for topic `T`: \
         History QoS inconsistent with ResourceLimits: history depth exceeds max_samples_per_instance"
    );
    let e = p.datareader_qos("L::Bad", "T").unwrap_err();
    assert!(
        e.message
            .ends_with("invalid Deadline QoS: period is negative"),
        "{e}"
    );
    let e = p.datawriter_qos("L::Missing", "T").unwrap_err();
    assert_eq!(e.to_string(), "unknown QoS profile `L::Missing`");
}

mod robustness;

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
