//! Observing a domain without knowing its types at compile time (what `siftdds ls`,
//! `siftdds spy` and the router use): a snapshot of what discovery learnt — remote
//! participants, and remote writers and readers with their QoS and announced content filters
//! — and the reader QoS that matches a discovered writer, for an untyped DataReader
//! (`endpoint/untyped.rs`) of its topic, which hands out the serialized payloads.
//!
//! Also the types of remote writers learnt through the TypeLookup service, as the
//! `TypeDescriptor` a tool decodes their samples with.
//!
//! Must not: decode samples or hold protocol logic (discovery and TypeLookup are the core's).

use super::{DomainParticipant, Error};
use crate::core::Participant;
use crate::core::discovery::{ParticipantProxyData, PublicationData, SubscriptionData};
use crate::core::participant::type_client::TypeClientStats;
use crate::qos::{
    DataReaderQos, DataRepresentation, Durability, History, Reliability, SubscriberQos,
};
use crate::types::TypeDescriptor;
use crate::types::xtypes::to_descriptor::type_descriptor;
use crate::wire::Guid;

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
    /// Asks the participant of remote writer `writer` for the type it announced in
    /// PID_TYPE_INFORMATION (DDS-XTypes 1.3 §7.6.3.3, TypeLookup getTypes); the answer is
    /// [`DomainParticipant::remote_type`]. False when the writer announced no type
    /// information or too many types are being resolved.
    pub fn request_writer_type(&self, writer: Guid) -> Result<bool, Error> {
        Ok(self
            .inner
            .handle
            .execute(move |p, now| p.request_writer_type(now, writer))?)
    }

    /// [`DomainParticipant::request_writer_type`] for a remote writer or reader (either may
    /// announce PID_TYPE_INFORMATION; the router learns a topic's type from any of them).
    pub fn request_endpoint_type(&self, endpoint: Guid) -> Result<bool, Error> {
        Ok(self
            .inner
            .handle
            .execute(move |p, now| p.request_endpoint_type(now, endpoint))?)
    }

    /// The descriptor of the type a remote endpoint announced (`type_information`, its
    /// PID_TYPE_INFORMATION bytes), once it and every type it refers to were received;
    /// `None` before, or when the type cannot be described (maps, wide strings).
    pub fn remote_type(&self, type_information: Vec<u8>) -> Result<Option<TypeDescriptor>, Error> {
        Ok(self.inner.handle.execute(move |p, _| {
            let id = Participant::announced_type_id(&type_information)?;
            let registry = p.remote_types();
            type_descriptor(&|i| registry.get(i), &id).ok()
        })?)
    }

    /// True when the type `type_information` names was requested and the TypeLookup client
    /// gave up on it ([`DomainParticipant::remote_type`] stays `None`; it is not asked for
    /// again).
    pub fn remote_type_given_up(&self, type_information: Vec<u8>) -> Result<bool, Error> {
        Ok(self
            .inner
            .handle
            .execute(move |p, _| p.announced_type_given_up(&type_information))?)
    }

    /// [`DomainParticipant::remote_type`] of remote writer or reader `endpoint`: the type
    /// it announced in PID_TYPE_INFORMATION, or the one Fast DDS 2.x sends inline in
    /// PID_TYPE_OBJECTV1 (docs/types.md); `None` before it is known, or when it cannot be
    /// described.
    pub fn remote_endpoint_type(&self, endpoint: Guid) -> Result<Option<TypeDescriptor>, Error> {
        Ok(self.inner.handle.execute(move |p, _| {
            let id = p.remote_endpoint_type_id(endpoint)?;
            let registry = p.remote_types();
            type_descriptor(&|i| registry.get(i), &id).ok()
        })?)
    }

    /// The counters of this participant's TypeLookup client (requests sent, replies matched,
    /// replies and TypeObjects refused, requests given up).
    pub fn type_lookup_stats(&self) -> Result<TypeClientStats, Error> {
        Ok(self.inner.handle.execute(|p, _| p.type_client_stats())?)
    }

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
