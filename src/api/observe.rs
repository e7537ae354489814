//! Observing a domain without knowing its types at compile time (what `siftdds ls` and
//! `siftdds spy` use): a snapshot of what discovery learnt — remote participants, and remote
//! writers and readers with their QoS and announced content filters — and untyped
//! DataReaders created from a discovered writer's topic, type name and QoS, which hand out
//! the serialized payloads.
//!
//! Must not: decode samples (the caller does, with a descriptor if it has one:
//! [`crate::types::dynamic`]) or hold protocol logic: an untyped reader is an ordinary core
//! reader made from a [`ReaderSpec`], announced in SEDP like any other (a spy is visible on
//! the domain, as RTI's `rtiddsspy` and Cyclone's `cyclonedds subscribe` are), and matched by
//! the core's usual rules (DDS 1.4 §2.2.3 RxO, RTPS 2.5 §8.5.5).

use std::time::Duration;

use super::endpoint::{delete_reader, matched_writers, take_changes, wait_take_changes};
use super::{DomainParticipant, Error, Subscriber};
use crate::core::CacheChange;
use crate::core::discovery::{ParticipantProxyData, PublicationData, SubscriptionData};
use crate::core::participant::ReaderSpec;
use crate::qos::{
    DataReaderQos, DataRepresentation, Durability, History, Reliability, SubscriberQos,
};
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

/// A DataReader that matches writers by announced topic and type name and returns their
/// samples serialized. Deleted (and unannounced) when dropped.
pub struct UntypedDataReader {
    participant: DomainParticipant,
    guid: Guid,
}

impl Subscriber {
    /// Creates an untyped reader of `topic_name` announcing `type_name` (a keyed reader when
    /// `keyed`, entity kind 0x07, else 0x04: peers match on both). The QoS is checked for
    /// consistency; no descriptor is known, so no content filter and no key hashes beyond
    /// those the writers send.
    pub fn create_untyped_datareader(
        &self,
        topic_name: &str,
        type_name: &str,
        keyed: bool,
        qos: DataReaderQos,
    ) -> Result<UntypedDataReader, Error> {
        qos.check_consistency().map_err(Error::Qos)?;
        let mut spec = ReaderSpec::new(topic_name, type_name, keyed, qos);
        spec.subscriber_qos = self.qos.clone();
        let guid = self
            .participant
            .inner
            .handle
            .execute(move |p, now| p.create_reader(now, spec))?;
        Ok(UntypedDataReader {
            participant: self.participant.clone(),
            guid,
        })
    }
}

impl UntypedDataReader {
    /// The reader's GUID.
    pub fn guid(&self) -> Guid {
        self.guid
    }

    /// Takes every available change, as received (payload = serialized sample or key,
    /// encapsulation header included).
    pub fn take(&self) -> Result<Vec<CacheChange>, Error> {
        take_changes(&self.participant, self.guid)
    }

    /// Waits up to `timeout` until a change can be taken, then takes all available.
    pub fn wait_take(&self, timeout: Duration) -> Result<Vec<CacheChange>, Error> {
        wait_take_changes(&self.participant, self.guid, timeout)
    }

    /// Number of matched writers.
    pub fn matched_publications(&self) -> Result<usize, Error> {
        matched_writers(&self.participant, self.guid)
    }
}

impl Drop for UntypedDataReader {
    fn drop(&mut self) {
        delete_reader(&self.participant, self.guid);
    }
}

#[cfg(test)]
mod tests;
