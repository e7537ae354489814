//! Round trips of the SEDP bodies, their defaults, checks and limits, and truncation of our
//! own payloads at every offset.
// Test arithmetic works on small, known inputs; docs/conventions.md §4 targets parse paths.
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::core::discovery::{ParticipantProxyData, payload};
use crate::qos::{
    DataReaderQos, DataRepresentation, DataWriterQos, Deadline, Durability, DurabilityService,
    GroupData, History, Length, Lifespan, Liveliness, LivelinessKind, Ownership, OwnershipStrength,
    Partition, Presentation, PresentationAccessScope, Reliability, ReliabilityKind, ResourceLimits,
    TimeBasedFilter, TopicData, UserData,
};
use crate::time::Duration;
use crate::wire::plist::parse_pl_cdr_payload;
use crate::wire::{EntityId, Guid, GuidPrefix, Locator, VendorId};

const PREFIX: GuidPrefix = GuidPrefix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);

fn writer_guid() -> Guid {
    Guid::new(PREFIX, EntityId([0, 0, 1, EntityId::KIND_WRITER_WITH_KEY]))
}

fn reader_guid() -> Guid {
    Guid::new(PREFIX, EntityId([0, 0, 2, EntityId::KIND_READER_NO_KEY]))
}

fn publication() -> PublicationData {
    PublicationData {
        endpoint: EndpointData {
            guid: writer_guid(),
            participant_guid: Guid::new(PREFIX, EntityId::PARTICIPANT),
            topic_name: "Square".into(),
            type_name: "ShapeType".into(),
            unicast_locators: vec![Locator::udpv4([127, 0, 0, 1], 7411)],
            multicast_locators: vec![Locator::udpv4([239, 255, 0, 1], 7401)],
            presentation: Presentation {
                access_scope: PresentationAccessScope::Topic,
                coherent_access: true,
                ordered_access: false,
            },
            partition: Partition::new(["a", "b*"]),
            group_data: GroupData { value: vec![9] },
            topic_data: TopicData { value: vec![8, 8] },
            group_guid: None,
            type_information: Some(vec![1, 2, 3, 4, 5, 6, 7, 8]),
            type_object_v1: None,
            router_path: vec![7, 0xdead_beef],
            // DDS-Security 1.1 §7.4.1.5 (what metadata and data protection ENCRYPT announce).
            security_info: Some(super::EndpointSecurityInfo {
                endpoint_security_attributes: 0x8000_0038,
                plugin_endpoint_security_attributes: 0x8000_0003,
            }),
            vendor_id: VendorId::SIFTDDS,
        },
        qos: DataWriterQos::default()
            .durability(Durability::TransientLocal)
            .durability_service(DurabilityService {
                service_cleanup_delay: Duration {
                    seconds: 1,
                    fraction: 0,
                },
                history: History::KeepLast(4),
                max_samples: Length::Limited(100),
                max_instances: Length::Unlimited,
                max_samples_per_instance: Length::Limited(4),
            })
            .deadline(Deadline {
                period: Duration {
                    seconds: 2,
                    fraction: 5,
                },
            })
            .liveliness(Liveliness {
                kind: LivelinessKind::ManualByTopic,
                lease_duration: Duration {
                    seconds: 3,
                    fraction: 0,
                },
            })
            .reliability(Reliability::best_effort())
            .lifespan(Lifespan {
                duration: Duration {
                    seconds: 9,
                    fraction: 0,
                },
            })
            .user_data(UserData {
                value: vec![1, 2, 3, 4, 5],
            })
            .ownership(Ownership::Exclusive)
            .ownership_strength(OwnershipStrength { value: -3 })
            .history(History::KeepAll)
            .resource_limits(ResourceLimits {
                max_samples: Length::Limited(10),
                max_instances: Length::Limited(2),
                max_samples_per_instance: Length::Limited(5),
            })
            .data_representation(DataRepresentation::new([2, 0])),
        peer_group: None,
    }
}

fn subscription() -> SubscriptionData {
    SubscriptionData {
        endpoint: EndpointData {
            guid: reader_guid(),
            participant_guid: Guid::new(PREFIX, EntityId::PARTICIPANT),
            topic_name: "Square".into(),
            type_name: "ShapeType".into(),
            unicast_locators: vec![Locator::udpv4([127, 0, 0, 1], 7413)],
            multicast_locators: Vec::new(),
            presentation: Presentation::default(),
            partition: Partition::default(),
            group_data: GroupData::default(),
            topic_data: TopicData::default(),
            group_guid: None,
            type_information: None,
            type_object_v1: None,
            router_path: Vec::new(),
            security_info: None,
            vendor_id: VendorId::SIFTDDS,
        },
        expects_inline_qos: true,
        qos: DataReaderQos::default()
            .reliability(Reliability::reliable())
            .time_based_filter(TimeBasedFilter {
                minimum_separation: Duration {
                    seconds: 0,
                    fraction: 1 << 31,
                },
            })
            .history(History::KeepLast(10)),
        content_filter: Some(ContentFilter {
            content_filtered_topic_name: "SquareFiltered".into(),
            related_topic_name: "Square".into(),
            filter_class_name: "DDSSQL".into(),
            filter_expression: "x > %0 AND color = %1".into(),
            expression_parameters: vec!["10".into(), "'RED'".into()],
        }),
    }
}

#[test]
fn publication_round_trips_in_both_byte_orders() {
    for endian in [Endianness::Big, Endianness::Little] {
        let w = publication();
        let bytes = w.to_payload(endian).unwrap();
        assert_eq!(
            PublicationData::from_payload(&bytes, VendorId::SIFTDDS),
            Ok(w)
        );
        let mut plain = publication();
        plain.qos = DataWriterQos::default();
        plain.presentation = Presentation::default();
        plain.partition = Partition::default();
        plain.type_information = None;
        let bytes = plain.to_payload(endian).unwrap();
        assert_eq!(
            PublicationData::from_payload(&bytes, VendorId::SIFTDDS),
            Ok(plain)
        );
    }
}

#[test]
fn subscription_round_trips_in_both_byte_orders() {
    for endian in [Endianness::Big, Endianness::Little] {
        let r = subscription();
        let bytes = r.to_payload(endian).unwrap();
        assert_eq!(
            SubscriptionData::from_payload(&bytes, VendorId::SIFTDDS),
            Ok(r)
        );
        let mut plain = subscription();
        plain.content_filter = None;
        plain.qos = DataReaderQos::default();
        let bytes = plain.to_payload(endian).unwrap();
        assert_eq!(
            SubscriptionData::from_payload(&bytes, VendorId::SIFTDDS),
            Ok(plain)
        );
    }
}

fn pids(payload: &[u8]) -> Vec<u16> {
    parse_pl_cdr_payload(payload)
        .unwrap()
        .iter()
        .map(|p| p.pid)
        .collect()
}

#[test]
fn reliability_and_durability_are_always_sent_and_defaults_differ_by_side() {
    use crate::wire::plist::pid::{PID_DURABILITY, PID_RELIABILITY};
    let mut w = publication();
    w.qos = DataWriterQos::default();
    let bytes = w.to_payload(Endianness::Little).unwrap();
    let p = pids(&bytes);
    assert!(p.contains(&PID_RELIABILITY) && p.contains(&PID_DURABILITY));
    // Without the two PIDs, writers default to RELIABLE and readers to BEST_EFFORT, both
    // VOLATILE.
    let strip = |payload: &[u8]| -> Vec<u8> {
        let view = parse_pl_cdr_payload(payload).unwrap();
        let kept: Vec<_> = view
            .iter()
            .filter(|r| r.pid != PID_RELIABILITY && r.pid != PID_DURABILITY)
            .map(crate::wire::plist::Parameter::Unknown)
            .collect();
        payload::encode(&kept, view.endian()).unwrap()
    };
    let mut w = publication();
    w.qos.durability = Durability::Persistent;
    let w = PublicationData::from_payload(
        &strip(&w.to_payload(Endianness::Big).unwrap()),
        VendorId::SIFTDDS,
    )
    .unwrap();
    assert_eq!(w.qos.reliability.kind, ReliabilityKind::Reliable);
    assert_eq!(w.qos.durability, Durability::Volatile);
    let r = SubscriptionData::from_payload(
        &strip(&subscription().to_payload(Endianness::Big).unwrap()),
        VendorId::SIFTDDS,
    )
    .unwrap();
    assert_eq!(r.qos.reliability.kind, ReliabilityKind::BestEffort);
    assert_eq!(r.qos.durability, Durability::Volatile);
}

#[test]
fn endpoint_kind_and_participant_are_checked() {
    let bytes = publication().to_payload(Endianness::Little).unwrap();
    assert_eq!(
        SubscriptionData::from_payload(&bytes, VendorId::SIFTDDS),
        Err(DiscoveryError::Invalid("endpoint GUID (not a reader)"))
    );
    let bytes = subscription().to_payload(Endianness::Little).unwrap();
    assert!(PublicationData::from_payload(&bytes, VendorId::SIFTDDS).is_err());
    let mut w = publication();
    w.participant_guid = Guid::new(GuidPrefix([5; 12]), EntityId::PARTICIPANT);
    let bytes = w.to_payload(Endianness::Little).unwrap();
    assert!(matches!(
        PublicationData::from_payload(&bytes, VendorId::SIFTDDS),
        Err(DiscoveryError::Invalid(_))
    ));
}

#[test]
fn invalid_content_filter_is_refused_on_send() {
    let mut r = subscription();
    if let Some(f) = r.content_filter.as_mut() {
        f.filter_class_name.clear();
    }
    assert!(matches!(
        r.to_payload(Endianness::Little),
        Err(DiscoveryError::Wire(_))
    ));
}

#[test]
fn too_many_partitions_are_refused() {
    let mut w = publication();
    w.partition = Partition::new((0..=MAX_PARTITIONS).map(|i| i.to_string()));
    let bytes = w.to_payload(Endianness::Little).unwrap();
    assert_eq!(
        PublicationData::from_payload(&bytes, VendorId::SIFTDDS),
        Err(DiscoveryError::TooLarge("PID_PARTITION"))
    );
}

#[test]
fn key_hash_is_the_guid() {
    assert_eq!(publication().key_hash(), writer_guid().to_bytes());
    assert_eq!(subscription().key_hash(), reader_guid().to_bytes());
}

#[test]
fn truncated_own_payloads_are_errors() {
    let payloads = [
        participant_payload(),
        publication().to_payload(Endianness::Big).unwrap(),
        subscription().to_payload(Endianness::Little).unwrap(),
    ];
    for p in payloads {
        for cut in 0..p.len() {
            let bytes = &p[..cut];
            assert!(ParticipantProxyData::from_payload(bytes, VendorId::SIFTDDS).is_err());
            assert!(PublicationData::from_payload(bytes, VendorId::SIFTDDS).is_err());
            assert!(SubscriptionData::from_payload(bytes, VendorId::SIFTDDS).is_err());
        }
    }
}

fn participant_payload() -> Vec<u8> {
    let mut p = ParticipantProxyData::new(PREFIX, 3);
    p.metatraffic_unicast_locators = vec![Locator::udpv4([127, 0, 0, 1], 7410)];
    p.default_unicast_locators = vec![Locator::udpv4([127, 0, 0, 1], 7411)];
    p.to_payload(Endianness::Little).unwrap()
}

#[test]
fn router_path_is_a_siftdds_vendor_pid_read_only_from_siftdds() {
    let mut r = subscription();
    r.router_path = vec![3, 0xabc];
    let bytes = r.to_payload(Endianness::Little).unwrap();
    assert!(pids(&bytes).contains(&PID_SIFTDDS_ROUTER_PATH));
    let ours = SubscriptionData::from_payload(&bytes, VendorId::SIFTDDS).unwrap();
    assert_eq!(ours.router_path, vec![3, 0xabc]);
    // The same PID from another vendor means something else (RTPS 2.5 §9.6.2.2.1).
    let theirs = SubscriptionData::from_payload(&bytes, VendorId::FAST_DDS).unwrap();
    assert!(theirs.router_path.is_empty());
    r.router_path.clear();
    let plain = r.to_payload(Endianness::Little).unwrap();
    assert!(!pids(&plain).contains(&PID_SIFTDDS_ROUTER_PATH));
}

#[test]
fn peer_group_projections_are_a_siftdds_vendor_pid_read_only_from_siftdds() {
    use crate::wire::ProjectionAnnouncement;
    use crate::wire::plist::pid::PID_SIFTDDS_PEER_GROUP_PROJECTIONS;
    let mut w = publication();
    w.peer_group = Some(ProjectionAnnouncement {
        group: 5,
        digests: vec![1, u64::MAX],
    });
    for endian in [Endianness::Little, Endianness::Big] {
        let bytes = w.to_payload(endian).unwrap();
        assert!(pids(&bytes).contains(&PID_SIFTDDS_PEER_GROUP_PROJECTIONS));
        let ours = PublicationData::from_payload(&bytes, VendorId::SIFTDDS).unwrap();
        assert_eq!(ours.peer_group, w.peer_group);
        let theirs = PublicationData::from_payload(&bytes, VendorId::CYCLONE_DDS).unwrap();
        assert_eq!(theirs.peer_group, None);
    }
    w.peer_group = None;
    let plain = w.to_payload(Endianness::Little).unwrap();
    assert!(!pids(&plain).contains(&PID_SIFTDDS_PEER_GROUP_PROJECTIONS));
}
