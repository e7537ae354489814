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
mod tests;
