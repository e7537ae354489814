use super::*;
use siftdds::core::discovery::{ContentFilter, EndpointData, ParticipantProxyData};
use siftdds::qos::{
    DataReaderQos, DataRepresentation, DataWriterQos, Durability, GroupData, History, Ownership,
    OwnershipStrength, Partition, Presentation, TopicData,
};
use siftdds::wire::{EntityId, Guid, GuidPrefix, Locator, VendorId};

fn endpoint(prefix: GuidPrefix, id: [u8; 4]) -> EndpointData {
    EndpointData {
        guid: Guid::new(prefix, EntityId(id)),
        participant_guid: Guid::new(prefix, EntityId::PARTICIPANT),
        topic_name: "Square".into(),
        type_name: "ShapeType".into(),
        unicast_locators: Vec::new(),
        multicast_locators: Vec::new(),
        presentation: Presentation::default(),
        partition: Partition::new(["A*"]),
        group_data: GroupData::default(),
        topic_data: TopicData::default(),
        group_guid: None,
        type_information: None,
        type_object_v1: None,
        router_path: Vec::new(),
        security_info: None,
        vendor_id: VendorId::RTI_CONNEXT,
    }
}

fn snapshot() -> DiscoverySnapshot {
    let prefix = GuidPrefix([1, 1, 0xaa, 0xbb, 0, 0, 0, 1, 0, 0, 0, 2]);
    let mut p = ParticipantProxyData::new(prefix, 3);
    p.vendor_id = VendorId::RTI_CONNEXT;
    p.entity_name = Some("shapes".into());
    p.metatraffic_unicast_locators = vec![Locator::udpv4([127, 0, 0, 1], 7410)];
    let writer = PublicationData {
        endpoint: endpoint(prefix, [0, 0, 1, 2]),
        qos: DataWriterQos {
            durability: Durability::TransientLocal,
            history: History::KeepLast(5),
            ownership: Ownership::Exclusive,
            ownership_strength: OwnershipStrength { value: 7 },
            data_representation: DataRepresentation::new([DataRepresentation::XCDR2]),
            ..DataWriterQos::default()
        },
        peer_group: None,
    };
    let reader = SubscriptionData {
        endpoint: endpoint(prefix, [0, 0, 2, 7]),
        expects_inline_qos: false,
        qos: DataReaderQos {
            history: History::KeepAll,
            ..DataReaderQos::default()
        },
        content_filter: Some(ContentFilter {
            content_filtered_topic_name: "Big".into(),
            related_topic_name: "Square".into(),
            filter_class_name: "DDSSQL".into(),
            filter_expression: "shapesize > %0".into(),
            expression_parameters: vec!["20".into()],
        }),
    };
    DiscoverySnapshot {
        participants: vec![p],
        writers: vec![writer],
        readers: vec![reader],
    }
}

fn args(json: bool) -> LsArgs {
    LsArgs {
        net: NetworkArgs {
            domain: 3,
            interface: None,
        },
        wait: 1.5,
        json,
    }
}

#[test]
fn the_tree_shows_vendor_name_qos_and_filter() {
    let s = snapshot();
    let idl = BTreeMap::from([(
        s.writers[0].guid,
        "@appendable\nstruct ShapeType {\n  long x;\n};\n".to_string(),
    )]);
    let text = tree(&args(false), &s, &idl);
    let want = [
        "domain 3: 1 participant(s), 1 topic(s), 1 writer(s), 1 reader(s) after 1.5 s",
        "0101aabb.00000001.00000002      RTI Connext   \"shapes\"",
        "udp/127.0.0.1:7410",
        "topic \"Square\"  type ShapeType",
        "  writer 0101aabb.00000001.00000002|00000102  RTI Connext",
        "reliable transient-local keep-last(5) exclusive(7) xcdr2 partitions [\"A*\"]",
        "best-effort volatile keep-all shared xcdr1 partitions [\"A*\"]",
        "filter DDSSQL \"shapesize > %0\" [%0=20] (content-filtered topic \"Big\" on \"Square\")",
        "           struct ShapeType {\n             long x;\n           };",
    ];
    for line in want {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}

#[test]
fn the_json_document_parses_and_has_every_field() {
    let doc: serde_json::Value =
        serde_json::from_str(&json_document(&args(true), &snapshot(), &BTreeMap::new())).unwrap();
    assert_eq!(doc["domain"], 3);
    assert_eq!(doc["participants"][0]["vendor"], "RTI Connext");
    assert_eq!(doc["participants"][0]["vendor_id"], "01.01");
    assert_eq!(doc["participants"][0]["domain_id"], 3);
    let topic = &doc["topics"][0];
    let w = &topic["writers"][0]["qos"];
    assert_eq!(w["ownership"], "exclusive");
    assert_eq!(w["ownership_strength"], 7);
    assert_eq!(
        w["history"],
        serde_json::json!({"kind": "keep-last", "depth": 5})
    );
    assert_eq!(w["data_representation"], serde_json::json!(["xcdr2"]));
    let r = &topic["readers"][0];
    assert_eq!(r["qos"]["history"]["depth"], serde_json::Value::Null);
    assert_eq!(r["content_filter"]["content_filtered_topic"], "Big");
    assert_eq!(r["content_filter"]["parameters"], serde_json::json!(["20"]));
    assert_eq!(r["keyed"], true);
    assert_eq!(topic["writers"][0]["type_idl"], serde_json::Value::Null);
}
