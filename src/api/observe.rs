//! Observing a domain without knowing its types at compile time (what `siftdds ls`,
//! `siftdds spy` and the router use): a snapshot of what discovery learnt — remote
//! participants, and remote writers and readers with their QoS and announced content filters
//! — and the reader QoS that matches a discovered writer, for an untyped DataReader
//! (`endpoint/untyped.rs`) of its topic, which hands out the serialized payloads.
//!
//! Must not: decode samples or hold protocol logic (discovery is the core's).

use super::{DomainParticipant, Error};
use crate::core::discovery::{ParticipantProxyData, PublicationData, SubscriptionData};
use crate::qos::{
    DataReaderQos, DataRepresentation, Durability, History, Reliability, SubscriberQos,
};

/// What this participant's discovery knows at one moment, each list in GUID order.
#[derive(Clone, Debug, Default)]
pub struct DiscoverySnapshot {
    /// Remote participants currently alive (SPDP).
    pub participants: Vec<ParticipantProxyData>,
    /// Remote DataWriters (SEDP DATA(w)).
    pub writers: Vec<PublicationData>,
    /// Remote DataReaders (SEDP DATA(r)), with their PID_CONTENT_FILTER_PROPERTY.
    pub readers: Vec<SubscriptionData>,
}

impl DomainParticipant {
    /// A copy of what discovery knows now (taken on the event loop in one visit, so the
    /// three lists are consistent with each other).
    pub fn discovery_snapshot(&self) -> Result<DiscoverySnapshot, Error> {
        Ok(self.inner.handle.execute(|p, _| DiscoverySnapshot {
            participants: p.remote_participants().cloned().collect(),
            writers: p.remote_writers().cloned().collect(),
            readers: p.remote_readers().cloned().collect(),
        })?)
    }
}

/// The most a reader can request of `writer` and still match it (DDS 1.4 §2.2.3 RxO): its
/// reliability, its durability up to TRANSIENT_LOCAL (so a late spy gets the history it
/// keeps), its ownership kind, its latency budget and its data representation; everything
/// else at the reader defaults, which every writer satisfies. The subscriber asks for the
/// writer's partitions. History: KEEP_LAST(`depth`).
pub fn reader_qos_matching(writer: &PublicationData, depth: u32) -> (DataReaderQos, SubscriberQos) {
    let qos = DataReaderQos {
        reliability: Reliability {
            kind: writer.qos.reliability.kind,
            ..DataReaderQos::default().reliability
        },
        durability: writer.qos.durability.min(Durability::TransientLocal),
        ownership: writer.qos.ownership,
        latency_budget: writer.qos.latency_budget,
        history: History::KeepLast(depth.max(1)),
        data_representation: DataRepresentation::new([writer.qos.data_representation.offered_id()]),
        ..DataReaderQos::default()
    };
    let subscriber = SubscriberQos {
        partition: writer.partition.clone(),
        ..SubscriberQos::default()
    };
    (qos, subscriber)
}

#[cfg(test)]
mod tests {
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
                router_path: Vec::new(),
                vendor_id: VendorId::FAST_DDS,
            },
            qos,
            pgcache: None,
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
}
