//! The QoS policies that travel in SEDP, mapped between [`crate::qos`] policy types and wire
//! [`Value`]s: enum kinds as u32, ReliabilityKind as 1/2, lengths as IDL `long` (-1 =
//! unlimited), durations as `Duration_t`.
//!
//! Must not: decide which policies a body emits or what a missing PID defaults to (that is
//! `endpoint_data`), or panic on a value the PID table let through.
//!
//! RTPS 2.5 §9.6.3 (QoS encodings), Table 9.18; DDS 1.4 §2.3.3 (kind enumerations, in IDL
//! order); docs/interop-facts.md §5.4 (ReliabilityKind 1/2, durations, Fast DDS one-octet kinds).

use super::DiscoveryError;
use crate::qos::{
    DestinationOrder, Durability, DurabilityService, History, Length, Liveliness, LivelinessKind,
    Ownership, Presentation, PresentationAccessScope, Reliability, ReliabilityKind, ResourceLimits,
};
use crate::time::Duration;
use crate::wire::plist::{ReliabilityKind as WireReliabilityKind, Value};

/// DurabilityQosPolicyKind: VOLATILE 0, TRANSIENT_LOCAL 1, TRANSIENT 2, PERSISTENT 3.
pub(super) fn durability_value(d: Durability) -> Value<'static> {
    Value::QosKind(match d {
        Durability::Volatile => 0,
        Durability::TransientLocal => 1,
        Durability::Transient => 2,
        Durability::Persistent => 3,
    })
}

/// Inverse of [`durability_value`].
pub(super) fn durability_from(kind: u32) -> Result<Durability, DiscoveryError> {
    Ok(match kind {
        0 => Durability::Volatile,
        1 => Durability::TransientLocal,
        2 => Durability::Transient,
        3 => Durability::Persistent,
        _ => return Err(DiscoveryError::Invalid("durability kind")),
    })
}

/// ReliabilityQosPolicy; the kind is 1 (BEST_EFFORT) or 2 (RELIABLE) on the wire.
pub(super) fn reliability_value(r: Reliability) -> Value<'static> {
    Value::Reliability {
        kind: match r.kind {
            ReliabilityKind::BestEffort => WireReliabilityKind::BestEffort,
            ReliabilityKind::Reliable => WireReliabilityKind::Reliable,
        },
        max_blocking_time: r.max_blocking_time,
    }
}

/// Inverse of [`reliability_value`].
pub(super) fn reliability_from(
    kind: WireReliabilityKind,
    max_blocking_time: Duration,
) -> Reliability {
    Reliability {
        kind: match kind {
            WireReliabilityKind::BestEffort => ReliabilityKind::BestEffort,
            WireReliabilityKind::Reliable => ReliabilityKind::Reliable,
        },
        max_blocking_time,
    }
}

/// LivelinessQosPolicy: AUTOMATIC 0, MANUAL_BY_PARTICIPANT 1, MANUAL_BY_TOPIC 2.
pub(super) fn liveliness_value(l: Liveliness) -> Value<'static> {
    Value::Liveliness {
        kind: match l.kind {
            LivelinessKind::Automatic => 0,
            LivelinessKind::ManualByParticipant => 1,
            LivelinessKind::ManualByTopic => 2,
        },
        lease_duration: l.lease_duration,
    }
}

/// Inverse of [`liveliness_value`].
pub(super) fn liveliness_from(
    kind: u32,
    lease_duration: Duration,
) -> Result<Liveliness, DiscoveryError> {
    let kind = match kind {
        0 => LivelinessKind::Automatic,
        1 => LivelinessKind::ManualByParticipant,
        2 => LivelinessKind::ManualByTopic,
        _ => return Err(DiscoveryError::Invalid("liveliness kind")),
    };
    Ok(Liveliness {
        kind,
        lease_duration,
    })
}

/// OwnershipQosPolicyKind: SHARED 0, EXCLUSIVE 1.
pub(super) fn ownership_value(o: Ownership) -> Value<'static> {
    Value::QosKind(match o {
        Ownership::Shared => 0,
        Ownership::Exclusive => 1,
    })
}

/// Inverse of [`ownership_value`].
pub(super) fn ownership_from(kind: u32) -> Result<Ownership, DiscoveryError> {
    match kind {
        0 => Ok(Ownership::Shared),
        1 => Ok(Ownership::Exclusive),
        _ => Err(DiscoveryError::Invalid("ownership kind")),
    }
}

/// DestinationOrderQosPolicyKind: BY_RECEPTION_TIMESTAMP 0, BY_SOURCE_TIMESTAMP 1.
pub(super) fn destination_order_value(d: DestinationOrder) -> Value<'static> {
    Value::QosKind(match d {
        DestinationOrder::ByReceptionTimestamp => 0,
        DestinationOrder::BySourceTimestamp => 1,
    })
}

/// Inverse of [`destination_order_value`].
pub(super) fn destination_order_from(kind: u32) -> Result<DestinationOrder, DiscoveryError> {
    match kind {
        0 => Ok(DestinationOrder::ByReceptionTimestamp),
        1 => Ok(DestinationOrder::BySourceTimestamp),
        _ => Err(DiscoveryError::Invalid("destination order kind")),
    }
}

/// PresentationQosPolicy: access scope INSTANCE 0, TOPIC 1, GROUP 2, then two booleans.
pub(super) fn presentation_value(p: Presentation) -> Value<'static> {
    Value::Presentation {
        access_scope: match p.access_scope {
            PresentationAccessScope::Instance => 0,
            PresentationAccessScope::Topic => 1,
            PresentationAccessScope::Group => 2,
        },
        coherent_access: p.coherent_access,
        ordered_access: p.ordered_access,
    }
}

/// Inverse of [`presentation_value`].
pub(super) fn presentation_from(
    access_scope: u32,
    coherent_access: bool,
    ordered_access: bool,
) -> Result<Presentation, DiscoveryError> {
    let access_scope = match access_scope {
        0 => PresentationAccessScope::Instance,
        1 => PresentationAccessScope::Topic,
        2 => PresentationAccessScope::Group,
        _ => return Err(DiscoveryError::Invalid("presentation access scope")),
    };
    Ok(Presentation {
        access_scope,
        coherent_access,
        ordered_access,
    })
}

/// HistoryQosPolicy as (kind, depth): KEEP_LAST 0, KEEP_ALL 1. KEEP_ALL is sent with depth 1,
/// as Cyclone and Fast DDS do.
fn history_wire(h: History) -> (u32, i32) {
    match h {
        History::KeepLast(depth) => (0, i32::try_from(depth).unwrap_or(i32::MAX)),
        History::KeepAll => (1, 1),
    }
}

/// Inverse of [`history_wire`]. KEEP_LAST needs depth ≥ 1 (Cyclone `validate_history`).
pub(super) fn history_from(kind: u32, depth: i32) -> Result<History, DiscoveryError> {
    match kind {
        0 => match u32::try_from(depth) {
            Ok(d) if d >= 1 => Ok(History::KeepLast(d)),
            _ => Err(DiscoveryError::Invalid("history depth")),
        },
        1 => Ok(History::KeepAll),
        _ => Err(DiscoveryError::Invalid("history kind")),
    }
}

/// HistoryQosPolicy.
pub(super) fn history_value(h: History) -> Value<'static> {
    let (kind, depth) = history_wire(h);
    Value::History { kind, depth }
}

fn length(v: i32, what: &'static str) -> Result<Length, DiscoveryError> {
    Length::from_i32(v).ok_or(DiscoveryError::Invalid(what))
}

/// ResourceLimitsQosPolicy (three IDL `long`s, -1 = unlimited).
pub(super) fn resource_limits_value(r: ResourceLimits) -> Value<'static> {
    Value::ResourceLimits {
        max_samples: r.max_samples.as_i32(),
        max_instances: r.max_instances.as_i32(),
        max_samples_per_instance: r.max_samples_per_instance.as_i32(),
    }
}

/// Inverse of [`resource_limits_value`].
pub(super) fn resource_limits_from(
    max_samples: i32,
    max_instances: i32,
    max_samples_per_instance: i32,
) -> Result<ResourceLimits, DiscoveryError> {
    Ok(ResourceLimits {
        max_samples: length(max_samples, "resource_limits.max_samples")?,
        max_instances: length(max_instances, "resource_limits.max_instances")?,
        max_samples_per_instance: length(
            max_samples_per_instance,
            "resource_limits.max_samples_per_instance",
        )?,
    })
}

/// DurabilityServiceQosPolicy.
pub(super) fn durability_service_value(d: &DurabilityService) -> Value<'static> {
    let (history_kind, history_depth) = history_wire(d.history);
    Value::DurabilityService {
        service_cleanup_delay: d.service_cleanup_delay,
        history_kind,
        history_depth,
        max_samples: d.max_samples.as_i32(),
        max_instances: d.max_instances.as_i32(),
        max_samples_per_instance: d.max_samples_per_instance.as_i32(),
    }
}

/// Inverse of [`durability_service_value`]; takes the fields of [`Value::DurabilityService`].
pub(super) fn durability_service_from(v: &Value<'_>) -> Result<DurabilityService, DiscoveryError> {
    let Value::DurabilityService {
        service_cleanup_delay,
        history_kind,
        history_depth,
        max_samples,
        max_instances,
        max_samples_per_instance,
    } = *v
    else {
        return Err(DiscoveryError::Invalid("durability_service"));
    };
    Ok(DurabilityService {
        service_cleanup_delay,
        history: history_from(history_kind, history_depth)?,
        max_samples: length(max_samples, "durability_service.max_samples")?,
        max_instances: length(max_instances, "durability_service.max_instances")?,
        max_samples_per_instance: length(
            max_samples_per_instance,
            "durability_service.max_samples_per_instance",
        )?,
    })
}

#[cfg(test)]
mod tests;
