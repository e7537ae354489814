//! DDS-XML 1.0 policy elements (§7.3.2.4.1: XML mirrors the IDL QoS structs, member names as
//! element names, §7.2 value forms) → [`PolicyPatch`]. The enum tables are shared with the
//! Fast DDS import, which uses the short literals.
//!
//! Must not: decide which entity a policy belongs to (`patch::applies_to`) or resolve profiles.

use roxmltree::Node;

use super::QosXmlError;
use super::dom::{Ctx, elements, parse_i32};
use super::patch::{DurabilityServicePatch, HistoryKind, HistoryPatch, LimitsPatch, PolicyPatch};
use crate::qos::{
    DataRepresentation, DestinationOrder, Durability, LivelinessKind, Ownership,
    PresentationAccessScope, ReliabilityKind,
};

/// (IDL literal, RTI/Fast DDS short form, value) rows; see [`Ctx::literal`].
type Table<T> = &'static [(&'static str, &'static str, T)];

/// RELIABILITY kinds (DDS 1.4 §2.3.3 IDL).
pub(crate) const RELIABILITY: Table<ReliabilityKind> = &[
    (
        "BEST_EFFORT_RELIABILITY_QOS",
        "BEST_EFFORT",
        ReliabilityKind::BestEffort,
    ),
    (
        "RELIABLE_RELIABILITY_QOS",
        "RELIABLE",
        ReliabilityKind::Reliable,
    ),
];
/// DURABILITY kinds.
pub(crate) const DURABILITY: Table<Durability> = &[
    ("VOLATILE_DURABILITY_QOS", "VOLATILE", Durability::Volatile),
    (
        "TRANSIENT_LOCAL_DURABILITY_QOS",
        "TRANSIENT_LOCAL",
        Durability::TransientLocal,
    ),
    (
        "TRANSIENT_DURABILITY_QOS",
        "TRANSIENT",
        Durability::Transient,
    ),
    (
        "PERSISTENT_DURABILITY_QOS",
        "PERSISTENT",
        Durability::Persistent,
    ),
];
/// HISTORY kinds.
pub(crate) const HISTORY: Table<HistoryKind> = &[
    ("KEEP_LAST_HISTORY_QOS", "KEEP_LAST", HistoryKind::KeepLast),
    ("KEEP_ALL_HISTORY_QOS", "KEEP_ALL", HistoryKind::KeepAll),
];
/// LIVELINESS kinds.
pub(crate) const LIVELINESS: Table<LivelinessKind> = &[
    (
        "AUTOMATIC_LIVELINESS_QOS",
        "AUTOMATIC",
        LivelinessKind::Automatic,
    ),
    (
        "MANUAL_BY_PARTICIPANT_LIVELINESS_QOS",
        "MANUAL_BY_PARTICIPANT",
        LivelinessKind::ManualByParticipant,
    ),
    (
        "MANUAL_BY_TOPIC_LIVELINESS_QOS",
        "MANUAL_BY_TOPIC",
        LivelinessKind::ManualByTopic,
    ),
];
/// OWNERSHIP kinds.
pub(crate) const OWNERSHIP: Table<Ownership> = &[
    ("SHARED_OWNERSHIP_QOS", "SHARED", Ownership::Shared),
    ("EXCLUSIVE_OWNERSHIP_QOS", "EXCLUSIVE", Ownership::Exclusive),
];
const DESTINATION_ORDER: Table<DestinationOrder> = &[
    (
        "BY_RECEPTION_TIMESTAMP_DESTINATIONORDER_QOS",
        "BY_RECEPTION_TIMESTAMP",
        DestinationOrder::ByReceptionTimestamp,
    ),
    (
        "BY_SOURCE_TIMESTAMP_DESTINATIONORDER_QOS",
        "BY_SOURCE_TIMESTAMP",
        DestinationOrder::BySourceTimestamp,
    ),
];
const ACCESS_SCOPE: Table<PresentationAccessScope> = &[
    (
        "INSTANCE_PRESENTATION_QOS",
        "INSTANCE",
        PresentationAccessScope::Instance,
    ),
    (
        "TOPIC_PRESENTATION_QOS",
        "TOPIC",
        PresentationAccessScope::Topic,
    ),
    (
        "GROUP_PRESENTATION_QOS",
        "GROUP",
        PresentationAccessScope::Group,
    ),
];
/// DataRepresentationId_t literals (DDS-XTypes 1.3 §7.6.3.1.1).
const REPRESENTATION: Table<i16> = &[
    ("XCDR_DATA_REPRESENTATION", "XCDR", DataRepresentation::XCDR),
    ("XML_DATA_REPRESENTATION", "XML", DataRepresentation::XML),
    (
        "XCDR2_DATA_REPRESENTATION",
        "XCDR2",
        DataRepresentation::XCDR2,
    ),
];

/// Every policy element name this loader knows, for "did you mean".
pub(crate) const POLICY_NAMES: &[&str] = &[
    "user_data",
    "topic_data",
    "group_data",
    "durability",
    "durability_service",
    "presentation",
    "deadline",
    "latency_budget",
    "ownership",
    "ownership_strength",
    "liveliness",
    "time_based_filter",
    "partition",
    "reliability",
    "transport_priority",
    "lifespan",
    "destination_order",
    "history",
    "resource_limits",
    "entity_factory",
    "writer_data_lifecycle",
    "reader_data_lifecycle",
    "data_representation",
    "representation",
    "property",
];

/// Calls `f` for each element child of `node`; a child not in `names` is an error.
pub(crate) fn fields<'a, 'i>(
    ctx: &Ctx<'_, '_>,
    node: Node<'a, 'i>,
    names: &[&str],
    mut f: impl FnMut(&str, Node<'a, 'i>) -> Result<(), QosXmlError>,
) -> Result<(), QosXmlError> {
    for child in elements(node) {
        let name = child.tag_name().name();
        if !names.contains(&name) {
            return Err(ctx.unknown(child, names));
        }
        f(name, child)?;
    }
    Ok(())
}

/// The patch for policy element `node`, or `None` if its name is not a policy.
pub(crate) fn parse_policy(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
) -> Result<Option<PolicyPatch>, QosXmlError> {
    let patch = match node.tag_name().name() {
        "user_data" => PolicyPatch::UserData(octets(ctx, node)?),
        "topic_data" => PolicyPatch::TopicData(octets(ctx, node)?),
        "group_data" => PolicyPatch::GroupData(octets(ctx, node)?),
        "durability" => {
            let mut kind = None;
            fields(ctx, node, &["kind"], |_, c| {
                kind = Some(ctx.literal(c, "durability kind", DURABILITY)?);
                Ok(())
            })?;
            PolicyPatch::Durability(kind)
        }
        "durability_service" => {
            PolicyPatch::DurabilityService(Box::new(durability_service(ctx, node)?))
        }
        "presentation" => {
            let (mut scope, mut coherent, mut ordered) = (None, None, None);
            let names = ["access_scope", "coherent_access", "ordered_access"];
            fields(ctx, node, &names, |name, c| {
                match name {
                    "access_scope" => scope = Some(ctx.literal(c, "access scope", ACCESS_SCOPE)?),
                    "coherent_access" => coherent = Some(ctx.boolean(c)?),
                    _ => ordered = Some(ctx.boolean(c)?),
                }
                Ok(())
            })?;
            PolicyPatch::Presentation(scope, coherent, ordered)
        }
        "deadline" => PolicyPatch::Deadline(one_duration(ctx, node, "period")?),
        "latency_budget" => PolicyPatch::LatencyBudget(one_duration(ctx, node, "duration")?),
        "lifespan" => PolicyPatch::Lifespan(one_duration(ctx, node, "duration")?),
        "time_based_filter" => {
            PolicyPatch::TimeBasedFilter(one_duration(ctx, node, "minimum_separation")?)
        }
        "ownership" => {
            let mut kind = None;
            fields(ctx, node, &["kind"], |_, c| {
                kind = Some(ctx.literal(c, "ownership kind", OWNERSHIP)?);
                Ok(())
            })?;
            PolicyPatch::Ownership(kind)
        }
        "ownership_strength" => PolicyPatch::OwnershipStrength(one_long(ctx, node)?),
        "transport_priority" => PolicyPatch::TransportPriority(one_long(ctx, node)?),
        "liveliness" => {
            let (mut kind, mut lease) = (None, None);
            fields(ctx, node, &["kind", "lease_duration"], |name, c| {
                match name {
                    "kind" => kind = Some(ctx.literal(c, "liveliness kind", LIVELINESS)?),
                    _ => lease = Some(ctx.duration(c)?),
                }
                Ok(())
            })?;
            PolicyPatch::Liveliness(kind, lease)
        }
        "partition" => {
            let mut names = None;
            fields(ctx, node, &["name"], |_, c| {
                names = Some(string_seq(ctx, c)?);
                Ok(())
            })?;
            PolicyPatch::Partition(names)
        }
        "reliability" => {
            let (mut kind, mut blocking) = (None, None);
            fields(ctx, node, &["kind", "max_blocking_time"], |name, c| {
                match name {
                    "kind" => kind = Some(ctx.literal(c, "reliability kind", RELIABILITY)?),
                    _ => blocking = Some(ctx.duration(c)?),
                }
                Ok(())
            })?;
            PolicyPatch::Reliability(kind, blocking)
        }
        "destination_order" => {
            let mut kind = None;
            fields(ctx, node, &["kind"], |_, c| {
                kind = Some(ctx.literal(c, "destination order kind", DESTINATION_ORDER)?);
                Ok(())
            })?;
            PolicyPatch::DestinationOrder(kind)
        }
        "history" => {
            let mut h = HistoryPatch::default();
            fields(ctx, node, &["kind", "depth"], |name, c| {
                match name {
                    "kind" => h.kind = Some(ctx.literal(c, "history kind", HISTORY)?),
                    _ => h.depth = Some(ctx.count(c)?),
                }
                Ok(())
            })?;
            PolicyPatch::History(h)
        }
        "resource_limits" => PolicyPatch::ResourceLimits(resource_limits(ctx, node)?),
        "entity_factory" => {
            PolicyPatch::EntityFactory(one_bool(ctx, node, "autoenable_created_entities")?)
        }
        "writer_data_lifecycle" => PolicyPatch::WriterDataLifecycle(one_bool(
            ctx,
            node,
            "autodispose_unregistered_instances",
        )?),
        "reader_data_lifecycle" => {
            let (mut nowriter, mut disposed) = (None, None);
            let names = [
                "autopurge_nowriter_samples_delay",
                "autopurge_disposed_samples_delay",
            ];
            fields(ctx, node, &names, |name, c| {
                match name {
                    "autopurge_nowriter_samples_delay" => nowriter = Some(ctx.duration(c)?),
                    _ => disposed = Some(ctx.duration(c)?),
                }
                Ok(())
            })?;
            PolicyPatch::ReaderDataLifecycle(nowriter, disposed)
        }
        // `representation` is the DDS-XTypes member name used by OpenDDS's XSD; Cyclone and RTI
        // write `data_representation` (docs/interop-facts.md §6.1).
        "data_representation" | "representation" => {
            let mut ids = None;
            fields(ctx, node, &["value"], |_, c| {
                let mut v = Vec::new();
                fields(ctx, c, &["element"], |_, e| {
                    let text = ctx.text(e)?;
                    let id = match parse_i32(&text).and_then(|n| i16::try_from(n).ok()) {
                        Some(id) => id,
                        None => ctx.literal(e, "data representation", REPRESENTATION)?,
                    };
                    v.push(id);
                    Ok(())
                })?;
                {
                    ids = Some(v);
                    Ok(())
                }
            })?;
            PolicyPatch::DataRepresentation(ids)
        }
        "property" => PolicyPatch::Property(property(ctx, node)?),
        _ => return Ok(None),
    };
    Ok(Some(patch))
}

/// PROPERTY as RTI Connext writes it (DDS-Security 1.1 §7.2.1 PropertyQosPolicy):
/// `<value><element><name>N</name><value>V</value><propagate>..</propagate></element>..`.
fn property(ctx: &Ctx<'_, '_>, node: Node<'_, '_>) -> Result<Vec<(String, String)>, QosXmlError> {
    let mut pairs = Vec::new();
    fields(ctx, node, &["value"], |_, list| {
        fields(ctx, list, &["element"], |_, e| {
            let (mut name, mut value) = (None, None);
            fields(ctx, e, &["name", "value", "propagate"], |field, c| {
                match field {
                    "name" => name = Some(ctx.text(c)?),
                    "value" => value = Some(ctx.text(c)?),
                    // Local settings are never sent, whatever `propagate` says.
                    _ => ctx.boolean(c).map(|_| ())?,
                }
                Ok(())
            })?;
            match (name, value) {
                (Some(n), Some(v)) => pairs.push((n, v)),
                _ => return Err(ctx.err(e, "a property <element> needs <name> and <value>".into())),
            }
            Ok(())
        })
    })?;
    Ok(pairs)
}

/// A policy whose only field is the duration `<field>`.
fn one_duration(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
    field: &str,
) -> Result<Option<crate::time::Duration>, QosXmlError> {
    let mut d = None;
    fields(ctx, node, &[field], |_, c| {
        d = Some(ctx.duration(c)?);
        Ok(())
    })?;
    Ok(d)
}

/// A policy whose only field is the `long` `<value>`.
fn one_long(ctx: &Ctx<'_, '_>, node: Node<'_, '_>) -> Result<Option<i32>, QosXmlError> {
    let mut v = None;
    fields(ctx, node, &["value"], |_, c| {
        v = Some(ctx.long(c)?);
        Ok(())
    })?;
    Ok(v)
}

/// A policy whose only field is the boolean `<field>`.
fn one_bool(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
    field: &str,
) -> Result<Option<bool>, QosXmlError> {
    let mut v = None;
    fields(ctx, node, &[field], |_, c| {
        v = Some(ctx.boolean(c)?);
        Ok(())
    })?;
    Ok(v)
}

/// RESOURCE_LIMITS fields; RTI's `initial_samples`/`initial_instances` are checked and ignored.
pub(crate) fn resource_limits(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
) -> Result<LimitsPatch, QosXmlError> {
    let mut l = LimitsPatch::default();
    let names = [
        "max_samples",
        "max_instances",
        "max_samples_per_instance",
        "initial_samples",
        "initial_instances",
    ];
    fields(ctx, node, &names, |name, c| {
        let v = Some(ctx.length(c)?);
        match name {
            "max_samples" => l.max_samples = v,
            "max_instances" => l.max_instances = v,
            "max_samples_per_instance" => l.max_samples_per_instance = v,
            _ => {}
        }
        Ok(())
    })?;
    Ok(l)
}

fn durability_service(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
) -> Result<DurabilityServicePatch, QosXmlError> {
    let mut p = DurabilityServicePatch::default();
    let names = [
        "service_cleanup_delay",
        "history_kind",
        "history_depth",
        "max_samples",
        "max_instances",
        "max_samples_per_instance",
    ];
    fields(ctx, node, &names, |name, c| {
        match name {
            "service_cleanup_delay" => p.service_cleanup_delay = Some(ctx.duration(c)?),
            "history_kind" => p.history.kind = Some(ctx.literal(c, "history kind", HISTORY)?),
            "history_depth" => p.history.depth = Some(ctx.count(c)?),
            "max_samples" => p.limits.max_samples = Some(ctx.length(c)?),
            "max_instances" => p.limits.max_instances = Some(ctx.length(c)?),
            _ => p.limits.max_samples_per_instance = Some(ctx.length(c)?),
        }
        Ok(())
    })?;
    Ok(p)
}

/// A string sequence: repeated `<element>` children (DDS-XML 1.0 §7.2).
pub(crate) fn string_seq(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
) -> Result<Vec<String>, QosXmlError> {
    let mut out = Vec::new();
    fields(ctx, node, &["element"], |_, e| {
        out.push(ctx.name_text(e)?);
        Ok(())
    })?;
    Ok(out)
}

/// USER/TOPIC/GROUP_DATA: `<value>` as comma-separated bytes (decimal or `0x` hex) or as
/// `<element>` bytes, or `<valueB64>` base64 (DDS-XML 1.0 §7.2 octet sequences).
fn octets(ctx: &Ctx<'_, '_>, node: Node<'_, '_>) -> Result<Option<Vec<u8>>, QosXmlError> {
    let mut out = None;
    fields(ctx, node, &["value", "valueB64"], |name, c| {
        let bytes = if name == "valueB64" {
            let text = ctx.text(c)?;
            base64(&text).ok_or_else(|| ctx.err(c, "bad base64 value".to_string()))?
        } else if elements(c).next().is_some() {
            let mut v = Vec::new();
            fields(ctx, c, &["element"], |_, e| {
                v.push(byte(ctx, e, &ctx.text(e)?)?);
                Ok(())
            })?;
            v
        } else {
            let text = ctx.text(c)?;
            let items = text.split(',').map(str::trim).filter(|s| !s.is_empty());
            items
                .map(|s| byte(ctx, c, s))
                .collect::<Result<Vec<u8>, _>>()?
        };
        {
            out = Some(bytes);
            Ok(())
        }
    })?;
    Ok(out)
}

fn byte(ctx: &Ctx<'_, '_>, node: Node<'_, '_>, s: &str) -> Result<u8, QosXmlError> {
    parse_i32(s)
        .and_then(|v| u8::try_from(v).ok())
        .ok_or_else(|| ctx.err(node, format!("bad octet `{s}`")))
}

/// Standard base64 (RFC 4648 §4) with optional padding; whitespace is ignored.
fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in text.bytes().filter(|b| !b.is_ascii_whitespace()) {
        let v = match b {
            b'A'..=b'Z' => b.wrapping_sub(b'A'),
            b'a'..=b'z' => b.wrapping_sub(b'a').wrapping_add(26),
            b'0'..=b'9' => b.wrapping_sub(b'0').wrapping_add(52),
            b'+' => 62,
            b'/' => 63,
            b'=' => continue,
            _ => return None,
        };
        acc = (acc << 6 | u32::from(v)) & 0xff_ffff;
        bits = bits.wrapping_add(6);
        if bits >= 8 {
            bits = bits.wrapping_sub(8);
            out.push(u8::try_from((acc >> bits) & 0xff).ok()?);
        }
    }
    Some(out)
}
