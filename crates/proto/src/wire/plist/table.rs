//! The PID table: one row per parameter id with its name, value shape, extra validation, what
//! to do when the value is invalid, and which vendors it applies to.
//!
//! Must not: hold behaviour beyond the row data and tiny validators; decoding is `value.rs`,
//! list handling `param.rs`.
//!
//! # Overview
//! Modelled on Cyclone's `piddesc_omg[]` (docs/conventions.md §7). Standard PIDs (below 0x8000)
//! apply to every sender. Vendor PIDs (bit 0x8000, RTPS 2.5 §9.6.2.2.1) apply only when the
//! message's VendorId is listed in the row; the same number means different things for different
//! vendors (0x8000 is ADLINK_BUILTIN_ENDPOINT_SET for Cyclone, PRODUCT_VERSION for Fast DDS).
//! [`describe`] is a linear scan: the table has ~110 rows and SEDP data ~30 parameters.

use super::pid::*;
use super::value::{Value, ValueKind};
use crate::wire::VendorId;

/// What a receiver does with a known PID whose value is malformed or fails validation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OnInvalid {
    /// The whole list is malformed (Cyclone rejects the DATA, `ddsi_plist.c`).
    Reject,
    /// Keep the parameter raw and carry on, as Fast DDS does for content-filter parameters
    /// (docs/interop-facts.md §1.3, §2.1): the entity is accepted as if the parameter were absent.
    Ignore,
}

/// One row of the PID table.
#[derive(Copy, Clone, Debug)]
pub struct PidInfo {
    /// The parameter id, flag bits included.
    pub id: u16,
    /// The spec (or vendor header) name, for the inspect tool.
    pub name: &'static str,
    /// The value's wire shape (selects the decoder and encoder).
    pub kind: ValueKind,
    /// Extra range checks on the decoded value (`true` = valid).
    pub validate: Option<fn(&Value<'_>) -> bool>,
    /// What an invalid value does to the list.
    pub on_invalid: OnInvalid,
    /// Vendors the row applies to; empty for standard PIDs.
    pub vendors: &'static [VendorId],
}

const ANY: &[VendorId] = &[];
const CYCLONE: &[VendorId] = &[VendorId::CYCLONE_DDS, VendorId::OPENSPLICE];
const FAST: &[VendorId] = &[VendorId::FAST_DDS];
const SIFTDDS: &[VendorId] = &[VendorId::SIFTDDS];

/// A QoS kind or policy whose kind is at most `MAX` (DDS 1.4 §2.3.3 enumerations).
fn kind_at_most<const MAX: u32>(v: &Value<'_>) -> bool {
    match v {
        Value::QosKind(k)
        | Value::Liveliness { kind: k, .. }
        | Value::History { kind: k, .. }
        | Value::DurabilityService {
            history_kind: k, ..
        }
        | Value::Presentation {
            access_scope: k, ..
        } => *k <= MAX,
        _ => true,
    }
}

/// Durations must not be negative (Cyclone `validate_duration`); infinity is positive.
fn non_negative_duration(v: &Value<'_>) -> bool {
    match v {
        Value::Duration(d)
        | Value::Reliability {
            max_blocking_time: d,
            ..
        }
        | Value::Liveliness {
            lease_duration: d, ..
        } => d.seconds >= 0,
        Value::DurabilityService {
            service_cleanup_delay: d,
            ..
        } => d.seconds >= 0 && kind_at_most::<1>(v),
        _ => true,
    }
}

fn liveliness(v: &Value<'_>) -> bool {
    kind_at_most::<2>(v) && non_negative_duration(v)
}

macro_rules! row {
    ($id:expr, $name:expr, $kind:ident) => {
        row!($id, $name, $kind, None, ANY)
    };
    ($id:expr, $name:expr, $kind:ident, $validate:expr) => {
        row!($id, $name, $kind, $validate, ANY)
    };
    ($id:expr, $name:expr, $kind:ident, $validate:expr, $vendors:expr) => {
        PidInfo {
            id: $id,
            name: $name,
            kind: ValueKind::$kind,
            validate: $validate,
            on_invalid: OnInvalid::Reject,
            vendors: $vendors,
        }
    };
}

const DUR: Option<fn(&Value<'_>) -> bool> = Some(non_negative_duration);

/// The table. Order is by id within each group; lookups do not rely on it.
#[rustfmt::skip] // one row per line reads as a table
pub static PID_TABLE: &[PidInfo] = &[
    row!(PID_PAD, "PAD", Opaque),
    row!(PID_SENTINEL, "SENTINEL", Opaque),
    row!(PID_PARTICIPANT_LEASE_DURATION, "PARTICIPANT_LEASE_DURATION", Duration, DUR),
    row!(PID_TIME_BASED_FILTER, "TIME_BASED_FILTER", Duration, DUR),
    row!(PID_TOPIC_NAME, "TOPIC_NAME", String),
    row!(PID_OWNERSHIP_STRENGTH, "OWNERSHIP_STRENGTH", I32),
    row!(PID_TYPE_NAME, "TYPE_NAME", String),
    row!(PID_DOMAIN_ID, "DOMAIN_ID", U32),
    row!(PID_PROTOCOL_VERSION, "PROTOCOL_VERSION", ProtocolVersion),
    row!(PID_VENDORID, "VENDORID", VendorId),
    row!(PID_RELIABILITY, "RELIABILITY", Reliability, DUR),
    row!(PID_LIVELINESS, "LIVELINESS", Liveliness, Some(liveliness)),
    row!(PID_DURABILITY, "DURABILITY", QosKind, Some(kind_at_most::<3>)),
    row!(PID_DURABILITY_SERVICE, "DURABILITY_SERVICE", DurabilityService, DUR),
    row!(PID_OWNERSHIP, "OWNERSHIP", QosKind, Some(kind_at_most::<1>)),
    row!(PID_PRESENTATION, "PRESENTATION", Presentation, Some(kind_at_most::<2>)),
    row!(PID_DEADLINE, "DEADLINE", Duration, DUR),
    row!(PID_DESTINATION_ORDER, "DESTINATION_ORDER", QosKind, Some(kind_at_most::<1>)),
    row!(PID_LATENCY_BUDGET, "LATENCY_BUDGET", Duration, DUR),
    row!(PID_PARTITION, "PARTITION", StringSeq),
    row!(PID_LIFESPAN, "LIFESPAN", Duration, DUR),
    row!(PID_USER_DATA, "USER_DATA", Octets),
    row!(PID_GROUP_DATA, "GROUP_DATA", Octets),
    row!(PID_TOPIC_DATA, "TOPIC_DATA", Octets),
    row!(PID_UNICAST_LOCATOR, "UNICAST_LOCATOR", Locator),
    row!(PID_MULTICAST_LOCATOR, "MULTICAST_LOCATOR", Locator),
    row!(PID_DEFAULT_UNICAST_LOCATOR, "DEFAULT_UNICAST_LOCATOR", Locator),
    row!(PID_METATRAFFIC_UNICAST_LOCATOR, "METATRAFFIC_UNICAST_LOCATOR", Locator),
    row!(PID_METATRAFFIC_MULTICAST_LOCATOR, "METATRAFFIC_MULTICAST_LOCATOR", Locator),
    row!(PID_PARTICIPANT_MANUAL_LIVELINESS_COUNT, "PARTICIPANT_MANUAL_LIVELINESS_COUNT", I32),
    PidInfo {
        id: PID_CONTENT_FILTER_PROPERTY,
        name: "CONTENT_FILTER_PROPERTY",
        kind: ValueKind::ContentFilterProperty,
        validate: None,
        on_invalid: OnInvalid::Ignore,
        vendors: ANY,
    },
    row!(PID_HISTORY, "HISTORY", History, Some(kind_at_most::<1>)),
    row!(PID_RESOURCE_LIMITS, "RESOURCE_LIMITS", ResourceLimits),
    row!(PID_EXPECTS_INLINE_QOS, "EXPECTS_INLINE_QOS", Bool),
    row!(PID_PARTICIPANT_BUILTIN_ENDPOINTS, "PARTICIPANT_BUILTIN_ENDPOINTS", U32),
    row!(PID_DEFAULT_MULTICAST_LOCATOR, "DEFAULT_MULTICAST_LOCATOR", Locator),
    row!(PID_TRANSPORT_PRIORITY, "TRANSPORT_PRIORITY", I32),
    row!(PID_PARTICIPANT_GUID, "PARTICIPANT_GUID", Guid),
    row!(PID_PARTICIPANT_ENTITYID, "PARTICIPANT_ENTITYID", Opaque),
    row!(PID_GROUP_GUID, "GROUP_GUID", Guid),
    row!(PID_GROUP_ENTITYID, "GROUP_ENTITYID", Opaque),
    PidInfo {
        id: PID_CONTENT_FILTER_INFO,
        name: "CONTENT_FILTER_INFO",
        kind: ValueKind::ContentFilterInfo,
        validate: None,
        on_invalid: OnInvalid::Ignore,
        vendors: ANY,
    },
    row!(PID_COHERENT_SET, "COHERENT_SET", SequenceNumber),
    row!(PID_DIRECTED_WRITE, "DIRECTED_WRITE", GuidSeq),
    row!(PID_BUILTIN_ENDPOINT_SET, "BUILTIN_ENDPOINT_SET", U32),
    row!(PID_PROPERTY_LIST, "PROPERTY_LIST", PropertyList),
    row!(PID_ENDPOINT_GUID, "ENDPOINT_GUID", Guid),
    row!(PID_TYPE_MAX_SIZE_SERIALIZED, "TYPE_MAX_SIZE_SERIALIZED", I32),
    row!(PID_ORIGINAL_WRITER_INFO, "ORIGINAL_WRITER_INFO", Opaque),
    row!(PID_ENTITY_NAME, "ENTITY_NAME", String),
    row!(PID_GROUP_COHERENT_SET, "GROUP_COHERENT_SET", SequenceNumber),
    row!(PID_GROUP_SEQ_NUM, "GROUP_SEQ_NUM", SequenceNumber),
    row!(PID_WRITER_GROUP_INFO, "WRITER_GROUP_INFO", Opaque),
    row!(PID_SECURE_WRITER_GROUP_INFO, "SECURE_WRITER_GROUP_INFO", Opaque),
    row!(PID_TYPE_IDV1, "TYPE_IDV1", Opaque),
    row!(PID_KEY_HASH, "KEY_HASH", KeyHash),
    row!(PID_STATUS_INFO, "STATUS_INFO", StatusInfo),
    row!(PID_TYPE_OBJECTV1, "TYPE_OBJECTV1", Opaque),
    row!(PID_DATA_REPRESENTATION, "DATA_REPRESENTATION", DataRepresentation),
    row!(PID_TYPE_CONSISTENCY_ENFORCEMENT, "TYPE_CONSISTENCY_ENFORCEMENT", Opaque),
    row!(PID_TYPE_INFORMATION, "TYPE_INFORMATION", Opaque),
    row!(PID_BUILTIN_ENDPOINT_QOS, "BUILTIN_ENDPOINT_QOS", U32),
    row!(PID_RELATED_SAMPLE_IDENTITY, "RELATED_SAMPLE_IDENTITY", SampleIdentity),
    row!(PID_IDENTITY_TOKEN, "IDENTITY_TOKEN", Opaque),
    row!(PID_PERMISSIONS_TOKEN, "PERMISSIONS_TOKEN", Opaque),
    row!(PID_DATA_TAGS, "DATA_TAGS", Opaque),
    row!(PID_ENDPOINT_SECURITY_INFO, "ENDPOINT_SECURITY_INFO", Opaque),
    row!(PID_PARTICIPANT_SECURITY_INFO, "PARTICIPANT_SECURITY_INFO", Opaque),
    row!(PID_IDENTITY_STATUS_TOKEN, "IDENTITY_STATUS_TOKEN", Opaque),
    row!(PID_DOMAIN_TAG, "DOMAIN_TAG", String),
    // Cyclone DDS / OpenSplice, `q_protocol.h`.
    row!(PID_ADLINK_BUILTIN_ENDPOINT_SET, "ADLINK_BUILTIN_ENDPOINT_SET", U32, None, CYCLONE),
    row!(PID_ADLINK_READER_DATA_LIFECYCLE, "ADLINK_READER_DATA_LIFECYCLE", Opaque, None, CYCLONE),
    row!(PID_ADLINK_WRITER_DATA_LIFECYCLE, "ADLINK_WRITER_DATA_LIFECYCLE", Opaque, None, CYCLONE),
    row!(PID_ADLINK_ENDPOINT_GUID, "ADLINK_ENDPOINT_GUID", Guid, None, CYCLONE),
    row!(PID_ADLINK_SYNCHRONOUS_ENDPOINT, "ADLINK_SYNCHRONOUS_ENDPOINT", Opaque, None, CYCLONE),
    row!(PID_ADLINK_RELAXED_QOS_MATCHING, "ADLINK_RELAXED_QOS_MATCHING", Opaque, None, CYCLONE),
    row!(
        PID_ADLINK_PARTICIPANT_VERSION_INFO,
        "ADLINK_PARTICIPANT_VERSION_INFO",
        Opaque,
        None,
        CYCLONE
    ),
    row!(PID_ADLINK_NODE_NAME, "ADLINK_NODE_NAME", Opaque, None, CYCLONE),
    row!(PID_ADLINK_EXEC_NAME, "ADLINK_EXEC_NAME", Opaque, None, CYCLONE),
    row!(PID_ADLINK_PROCESS_ID, "ADLINK_PROCESS_ID", U32, None, CYCLONE),
    row!(PID_ADLINK_SERVICE_TYPE, "ADLINK_SERVICE_TYPE", Opaque, None, CYCLONE),
    row!(PID_ADLINK_ENTITY_FACTORY, "ADLINK_ENTITY_FACTORY", Opaque, None, CYCLONE),
    row!(PID_ADLINK_WATCHDOG_SCHEDULING, "ADLINK_WATCHDOG_SCHEDULING", Opaque, None, CYCLONE),
    row!(PID_ADLINK_LISTENER_SCHEDULING, "ADLINK_LISTENER_SCHEDULING", Opaque, None, CYCLONE),
    row!(PID_ADLINK_SUBSCRIPTION_KEYS, "ADLINK_SUBSCRIPTION_KEYS", Opaque, None, CYCLONE),
    row!(PID_ADLINK_READER_LIFESPAN, "ADLINK_READER_LIFESPAN", Opaque, None, CYCLONE),
    row!(PID_ADLINK_TYPE_DESCRIPTION, "ADLINK_TYPE_DESCRIPTION", Opaque, None, CYCLONE),
    row!(PID_ADLINK_LAN, "ADLINK_LAN", Opaque, None, CYCLONE),
    row!(PID_ADLINK_ENDPOINT_GID, "ADLINK_ENDPOINT_GID", Opaque, None, CYCLONE),
    row!(PID_ADLINK_GROUP_GID, "ADLINK_GROUP_GID", Opaque, None, CYCLONE),
    row!(PID_ADLINK_EOTINFO, "ADLINK_EOTINFO", Opaque, None, CYCLONE),
    row!(PID_ADLINK_PART_CERT_NAME, "ADLINK_PART_CERT_NAME", Opaque, None, CYCLONE),
    row!(PID_ADLINK_LAN_CERT_NAME, "ADLINK_LAN_CERT_NAME", Opaque, None, CYCLONE),
    row!(PID_CYCLONE_RECEIVE_BUFFER_SIZE, "CYCLONE_RECEIVE_BUFFER_SIZE", U32, None, CYCLONE),
    row!(PID_CYCLONE_TYPE_INFORMATION, "CYCLONE_TYPE_INFORMATION", Opaque, None, CYCLONE),
    row!(PID_CYCLONE_REQUESTS_KEYHASH, "CYCLONE_REQUESTS_KEYHASH", Opaque, None, CYCLONE),
    // Fast DDS, `ParameterTypes.hpp` 2.9.
    row!(PID_FASTDDS_PRODUCT_VERSION, "PRODUCT_VERSION", Opaque, None, FAST),
    row!(PID_FASTDDS_PERSISTENCE_GUID, "PERSISTENCE_GUID", Guid, None, FAST),
    row!(PID_FASTDDS_DISABLE_POSITIVE_ACKS, "DISABLE_POSITIVE_ACKS", Bool, None, FAST),
    row!(PID_FASTDDS_DATASHARING, "DATASHARING", Opaque, None, FAST),
    row!(
        PID_FASTDDS_CUSTOM_RELATED_SAMPLE_IDENTITY,
        "CUSTOM_RELATED_SAMPLE_IDENTITY",
        SampleIdentity,
        None,
        FAST
    ),
    // siftdds (docs/router.md: the router's path vector).
    row!(PID_SIFTDDS_ROUTER_PATH, "SIFTDDS_ROUTER_PATH", Octets, None, SIFTDDS),
    // siftdds (docs/peer-group-cache.md: an intermediary's cache capacity and generation).
    row!(
        PID_SIFTDDS_PEER_GROUP_CAPABILITY,
        "SIFTDDS_PEER_GROUP_CAPABILITY",
        Octets,
        None,
        SIFTDDS
    ),
    // siftdds (docs/peer-group-cache.md §4.3: cooperation).
    row!(
        PID_SIFTDDS_PEER_GROUP_PROJECTIONS,
        "SIFTDDS_PEER_GROUP_PROJECTIONS",
        Octets,
        None,
        SIFTDDS
    ),
    row!(
        PID_SIFTDDS_PEER_GROUP_EVICTED,
        "SIFTDDS_PEER_GROUP_EVICTED",
        Octets,
        None,
        SIFTDDS
    ),
];

/// The row for `pid` as sent by `vendor`: standard PIDs for everyone, vendor PIDs (bit 0x8000)
/// only for the vendors their row lists. RTPS 2.5 §9.6.2.2.1.
pub fn describe(pid: u16, vendor: VendorId) -> Option<&'static PidInfo> {
    PID_TABLE.iter().find(|row| {
        row.id == pid && (pid & PID_FLAG_VENDOR_SPECIFIC == 0 || row.vendors.contains(&vendor))
    })
}

/// The name of `pid` as sent by `vendor`, for logs and the inspect tool.
pub fn pid_name(pid: u16, vendor: VendorId) -> Option<&'static str> {
    describe(pid, vendor).map(|row| row.name)
}

#[cfg(test)]
mod tests;
