//! Whether a writer and a reader (one local, one remote) communicate: topic and type names,
//! keyed-ness, RxO QoS, partitions. A pure decision; the endpoints part (`endpoints.rs`)
//! applies it to the local side (match, unmatch, incompatible-QoS event).
//! RTPS 2.5 §8.5.5 (matching remote endpoints); DDS 1.4 §2.2.3 (RxO).
//!
//! Must not: perform I/O or keep state; match anything that fails a check (a partial match is
//! an incompatibility, never a match).

use super::spec::{ReaderSpec, WriterSpec};
use crate::core::discovery::{PublicationData, SubscriptionData};
use crate::qos::{
    DataReaderQos, DataWriterQos, IncompatiblePolicies, Offered, PublisherQos, Requested,
    SubscriberQos, check_compatibility, partitions_match,
};
use crate::wire::{EntityId, Guid};

/// Entity kinds say whether a topic is keyed (docs/interop-facts.md §5.4; Fast DDS refuses a
/// mismatch).
fn is_keyed(id: EntityId) -> bool {
    matches!(
        id.kind(),
        EntityId::KIND_WRITER_WITH_KEY | EntityId::KIND_READER_WITH_KEY
    )
}

/// One side of a pair: its QoS, its publisher's or subscriber's QoS, topic and type names.
pub(super) struct Side<Q, G> {
    qos: Q,
    group: G,
    topic: String,
    type_name: String,
}

impl Side<DataWriterQos, PublisherQos> {
    pub(super) fn local_writer(spec: &WriterSpec) -> Self {
        Side {
            qos: spec.qos.clone(),
            group: spec.publisher_qos.clone(),
            topic: spec.topic_name.clone(),
            type_name: spec.type_name.clone(),
        }
    }

    pub(super) fn remote_writer(w: &PublicationData) -> Self {
        let publisher = PublisherQos {
            presentation: w.presentation,
            partition: w.partition.clone(),
            group_data: w.group_data.clone(),
            ..PublisherQos::default()
        };
        Side {
            qos: w.qos.clone(),
            group: publisher,
            topic: w.topic_name.clone(),
            type_name: w.type_name.clone(),
        }
    }
}

impl Side<DataReaderQos, SubscriberQos> {
    pub(super) fn local_reader(spec: &ReaderSpec) -> Self {
        Side {
            qos: spec.qos.clone(),
            group: spec.subscriber_qos.clone(),
            topic: spec.topic_name.clone(),
            type_name: spec.type_name.clone(),
        }
    }

    pub(super) fn remote_reader(r: &SubscriptionData) -> Self {
        let subscriber = SubscriberQos {
            presentation: r.presentation,
            partition: r.partition.clone(),
            group_data: r.group_data.clone(),
            ..SubscriberQos::default()
        };
        Side {
            qos: r.qos.clone(),
            group: subscriber,
            topic: r.topic_name.clone(),
            type_name: r.type_name.clone(),
        }
    }
}

/// The decision for a pair on one topic.
#[derive(Debug)]
pub(super) struct Verdict {
    /// Same type name and keyed-ness, and a common partition.
    pub(super) same_type_and_partitions: bool,
    /// The RxO check.
    pub(super) rxo: Result<(), IncompatiblePolicies>,
}

impl Verdict {
    /// They communicate: every check passed.
    pub(super) fn compatible(&self) -> bool {
        self.same_type_and_partitions && self.rxo.is_ok()
    }
}

/// Decides a pair; `None` when their topics differ (nothing to report).
pub(super) fn decide(
    writer: Guid,
    reader: Guid,
    offered: &Side<DataWriterQos, PublisherQos>,
    requested: &Side<DataReaderQos, SubscriberQos>,
) -> Option<Verdict> {
    if offered.topic != requested.topic {
        return None;
    }
    let same_type = offered.type_name == requested.type_name
        && is_keyed(writer.entity_id) == is_keyed(reader.entity_id);
    let partitions = partitions_match(
        &offered.group.partition.names,
        &requested.group.partition.names,
    );
    let rxo = check_compatibility(
        Offered {
            writer: &offered.qos,
            publisher: &offered.group,
        },
        Requested {
            reader: &requested.qos,
            subscriber: &requested.group,
        },
    );
    Some(Verdict {
        same_type_and_partitions: same_type && partitions,
        rxo,
    })
}

#[cfg(test)]
mod tests;
