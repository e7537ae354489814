//! Whether a writer and a reader (one local, one remote) communicate: topic and type names,
//! keyed-ness, the types' assignability when both announce TypeInformation, RxO QoS,
//! partitions. A pure decision; the endpoints part (`endpoints.rs`) applies it to the local
//! side (match, unmatch, incompatible-QoS event), the participant asks for a remote type the
//! decision waits for.
//! RTPS 2.5 §8.5.5 (matching remote endpoints); DDS 1.4 §2.2.3 (RxO); DDS-XTypes 1.3 §7.6.3.4
//! (type consistency), §7.2.4.4 (assignability).
//!
//! Must not: perform I/O or keep state; match anything that fails a check (a partial match is
//! an incompatibility, never a match).

use super::spec::{ReaderSpec, WriterSpec};
use crate::core::discovery::{PublicationData, SubscriptionData};
use crate::qos::{
    DataReaderQos, DataWriterQos, IncompatiblePolicies, Offered, PublisherQos, Requested,
    SubscriberQos, check_compatibility, partitions_match,
};
use crate::qos::{TypeConsistencyEnforcement, TypeConsistencyKind};
use crate::types::xtypes::assignability::{AssignabilityRules, NotAssignable, is_assignable};
use crate::types::xtypes::{TypeIdentifier, TypeInformation, TypeObject, TypeRepresentation};
use crate::wire::{EntityId, Guid};

use super::type_client::TypeRegistry;

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
    /// The type check (assignability when both sides announce TypeInformation).
    pub(super) types: TypeMatch,
}

impl Verdict {
    /// They communicate: every check passed.
    pub(super) fn compatible(&self) -> bool {
        self.same_type_and_partitions && self.rxo.is_ok() && self.types.permits()
    }
}

/// What the types of a writer and a reader say about their match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum TypeMatch {
    /// A side announces no TypeInformation (or ours speaks XCDR1): type names decide, as
    /// before XTypes.
    ByName,
    /// The remote type could not be fetched: type names decide.
    ByNameAfterLookupFailed,
    /// The same minimal type, or the writer's type is assignable to the reader's.
    Assignable,
    /// The writer's type is not assignable to the reader's.
    NotAssignable(NotAssignable),
    /// The remote type is being fetched (the TypeLookup client asks for this identifier):
    /// not matched until it is known or given up.
    Pending(TypeIdentifier),
}

impl TypeMatch {
    fn permits(&self) -> bool {
        matches!(
            self,
            TypeMatch::ByName | TypeMatch::ByNameAfterLookupFailed | TypeMatch::Assignable
        )
    }
}

/// The local endpoint's side of a type check.
pub(super) struct LocalType<'a> {
    /// The representation it announces (`None`: it announces no TypeInformation).
    pub(super) representation: Option<&'a TypeRepresentation>,
    /// Whether the local endpoint is the reader.
    pub(super) is_reader: bool,
}

/// The remote endpoint's side of a type check.
pub(super) struct RemoteType<'a> {
    /// Its PID_TYPE_INFORMATION value.
    pub(super) information: Option<&'a [u8]>,
    /// The TypeObjects fetched from peers.
    pub(super) registry: &'a TypeRegistry,
    /// Whether fetching the identifier its information names was given up.
    pub(super) given_up: &'a dyn Fn(&TypeIdentifier) -> bool,
}

/// Decides the types of a pair under the reader's `enforcement`. DDS-XTypes 1.3 §7.6.3.4.2:
/// when both announce TypeInformation, equal minimal identifiers are the same type; otherwise
/// the remote TypeObject (complete, else minimal) is needed and the writer's type must be
/// assignable to the reader's (§7.2.4.4; with DISALLOW_TYPE_COERCION each to the other and no
/// widening). With `force_type_validation` a remote endpoint announcing no TypeInformation is
/// not matched.
pub(super) fn decide_types(
    local: &LocalType<'_>,
    remote: &RemoteType<'_>,
    enforcement: &TypeConsistencyEnforcement,
) -> TypeMatch {
    let Some(rep) = local.representation else {
        return TypeMatch::ByName;
    };
    let info = remote.information.and_then(|b| {
        TypeInformation::from_bytes(b, crate::cdr::Endianness::Little)
            .or_else(|_| TypeInformation::from_bytes(b, crate::cdr::Endianness::Big))
            .ok()
    });
    let Some(info) = info else {
        if enforcement.force_type_validation && local.is_reader {
            return TypeMatch::NotAssignable(NotAssignable(
                "the writer announces no type information (force_type_validation)".to_owned(),
            ));
        }
        return TypeMatch::ByName;
    };
    let ours = &rep.information;
    let same = |a: &TypeIdentifier, b: &TypeIdentifier| a == b && is_hash(a);
    if same(
        &info.minimal.typeid_with_size.type_id,
        &ours.minimal.typeid_with_size.type_id,
    ) || same(
        &info.complete.typeid_with_size.type_id,
        &ours.complete.typeid_with_size.type_id,
    ) {
        return TypeMatch::Assignable;
    }
    let Some(theirs) = [&info.complete, &info.minimal]
        .into_iter()
        .map(|w| &w.typeid_with_size.type_id)
        .find(|id| is_hash(id))
    else {
        return TypeMatch::ByName;
    };
    if remote.registry.first_missing(theirs).is_some() {
        return match (remote.given_up)(theirs) {
            true => TypeMatch::ByNameAfterLookupFailed,
            false => TypeMatch::Pending(theirs.clone()),
        };
    }
    let our_id = match theirs {
        TypeIdentifier::Complete(_) => &ours.complete.typeid_with_size.type_id,
        _ => &ours.minimal.typeid_with_size.type_id,
    };
    let objects: Vec<(TypeIdentifier, TypeObject)> = rep
        .objects
        .iter()
        .filter_map(|(id, b)| {
            let o = TypeObject::from_bytes(b, crate::cdr::Endianness::Little).ok()?;
            Some((id.clone(), o))
        })
        .collect();
    let local_lookup = |id: &TypeIdentifier| objects.iter().find(|(i, _)| i == id).map(|(_, o)| o);
    let remote_lookup = |id: &TypeIdentifier| remote.registry.get(id);
    let (ours, theirs) = ((our_id, &local_lookup as _), (theirs, &remote_lookup as _));
    let (reader, writer) = match local.is_reader {
        true => (ours, theirs),
        false => (theirs, ours),
    };
    let mut rules = AssignabilityRules {
        ignore_sequence_bounds: enforcement.ignore_sequence_bounds,
        ignore_string_bounds: enforcement.ignore_string_bounds,
        ignore_member_names: enforcement.ignore_member_names,
        prevent_type_widening: enforcement.prevent_type_widening,
    };
    let result = match enforcement.kind {
        TypeConsistencyKind::AllowTypeCoercion => is_assignable(reader, writer, rules),
        TypeConsistencyKind::DisallowTypeCoercion => {
            rules.prevent_type_widening = true;
            is_assignable(reader, writer, rules).and_then(|()| is_assignable(writer, reader, rules))
        }
    };
    match result {
        Ok(()) => TypeMatch::Assignable,
        Err(e) => TypeMatch::NotAssignable(e),
    }
}

fn is_hash(id: &TypeIdentifier) -> bool {
    matches!(id, TypeIdentifier::Minimal(_) | TypeIdentifier::Complete(_))
}

/// Decides a pair, its types already decided (`decide_types`); `None` when their topics
/// differ (nothing to report).
pub(super) fn decide(
    writer: Guid,
    reader: Guid,
    offered: &Side<DataWriterQos, PublisherQos>,
    requested: &Side<DataReaderQos, SubscriberQos>,
    types: TypeMatch,
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
        types,
    })
}

#[cfg(test)]
mod tests;
