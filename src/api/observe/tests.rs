use super::*;
use crate::core::discovery::EndpointData;
use crate::qos::{
    DataWriterQos, Deadline, LatencyBudget, Liveliness, LivelinessKind, Offered, Ownership,
    Partition, PublisherQos, ReliabilityKind, Requested, check_compatibility,
};
use crate::time::Duration as RtpsDuration;
use crate::wire::{EntityId, Guid, GuidPrefix, VendorId};

fn writer(qos: DataWriterQos, partition: Partition) -> PublicationData {
    let prefix = GuidPrefix([7; 12]);
    PublicationData {
        endpoint: EndpointData {
            guid: Guid::new(prefix, EntityId([0, 0, 1, 2])),
            participant_guid: Guid::new(prefix, EntityId::PARTICIPANT),
            topic_name: "T".into(),
            type_name: "X".into(),
            unicast_locators: Vec::new(),
            multicast_locators: Vec::new(),
            presentation: Default::default(),
            partition,
            group_data: Default::default(),
            topic_data: Default::default(),
            group_guid: None,
            type_information: None,
            type_object_v1: None,
            router_path: Vec::new(),
            security_info: None,
            vendor_id: VendorId::FAST_DDS,
        },
        qos,
        peer_group: None,
    }
}

/// Whatever a writer offers, the reader QoS made for it matches it (DDS 1.4 §2.2.3) and
/// asks for as much as it can: the writer's reliability and durability (up to
/// TRANSIENT_LOCAL), in its partitions.
#[test]
fn the_reader_qos_made_for_a_writer_matches_it_and_asks_for_what_it_offers() {
    let second = RtpsDuration::from_std(core::time::Duration::from_secs(1));
    for reliability in [ReliabilityKind::BestEffort, ReliabilityKind::Reliable] {
        for durability in [
            Durability::Volatile,
            Durability::TransientLocal,
            Durability::Transient,
            Durability::Persistent,
        ] {
            for ownership in [Ownership::Shared, Ownership::Exclusive] {
                let mut qos = DataWriterQos {
                    durability,
                    ownership,
                    latency_budget: LatencyBudget { duration: second },
                    deadline: Deadline { period: second },
                    liveliness: Liveliness {
                        kind: LivelinessKind::ManualByTopic,
                        lease_duration: second,
                    },
                    data_representation: DataRepresentation::new([DataRepresentation::XCDR2]),
                    ..DataWriterQos::default()
                };
                qos.reliability.kind = reliability;
                let w = writer(qos, Partition::new(["p*", "q"]));
                let (r, sub) = reader_qos_matching(&w, 8);
                let publisher = PublisherQos {
                    partition: w.partition.clone(),
                    ..PublisherQos::default()
                };
                let verdict = check_compatibility(
                    Offered {
                        writer: &w.qos,
                        publisher: &publisher,
                    },
                    Requested {
                        reader: &r,
                        subscriber: &sub,
                    },
                );
                assert!(verdict.is_ok(), "{:?} for {:?}", verdict, w.qos);
                assert_eq!(r.reliability.kind, reliability);
                assert_eq!(r.durability, durability.min(Durability::TransientLocal));
                assert_eq!(sub.partition, w.partition);
                assert_eq!(r.history, History::KeepLast(8));
                assert!(r.check_consistency().is_ok());
            }
        }
    }
}
