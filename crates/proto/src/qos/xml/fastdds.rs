//! Import of Fast DDS XML profiles (eProsima's own schema, docs/interop-facts.md §6.3; Fast DDS
//! docs "XML profiles"): `<profiles>` with `<participant>`, `<data_writer>`/`<publisher>`,
//! `<data_reader>`/`<subscriber>` and `<topic>` profiles, each becoming a profile named
//! `fastdds::<profile_name>`.
//!
//! Must not: model non-QoS Fast DDS settings. Transport, locator, timing and allocation
//! elements are recognised and skipped (listed in `SKIPPED_*`); anything else is an error.
//!
//! Mapping: `<qos>` policies use camelCase names and short enum literals; HISTORY and
//! RESOURCE_LIMITS live under `<topic><historyQos>`/`<resourceLimitsQos>` (Fast DDS 2.x), where
//! a resource limit ≤ 0 means unlimited (Fast DDS `ResourceLimitsQosPolicy` docs).

use roxmltree::Node;

use super::dom::{Ctx, elements};
use super::omg_policy::{DURABILITY, HISTORY, LIVELINESS, OWNERSHIP, RELIABILITY, fields};
use super::patch::{HistoryPatch, LimitsPatch, PolicyPatch, applies_to};
use super::profile::{Entry, Profile};
use super::{EntityKind, QosXmlError};
use crate::qos::Length;

/// The library name Fast DDS profiles are filed under.
pub(crate) const LIBRARY: &str = "fastdds";

const PROFILE_ELEMENTS: &[&str] = &[
    "participant",
    "data_writer",
    "publisher",
    "data_reader",
    "subscriber",
    "topic",
    "transport_descriptors",
    "log",
    "types",
    "library_settings",
    "domainparticipant_factory",
];
const SKIPPED_PROFILES: &[&str] = &[
    "transport_descriptors",
    "log",
    "types",
    "library_settings",
    "domainparticipant_factory",
];
const ENDPOINT_ELEMENTS: &[&str] = &[
    "topic",
    "qos",
    "times",
    "unicastLocatorList",
    "multicastLocatorList",
    "external_unicast_locators",
    "ignore_non_matching_locators",
    "throughputController",
    "historyMemoryPolicy",
    "propertiesPolicy",
    "userDefinedID",
    "entityID",
    "matchedSubscribersAllocation",
    "matchedPublishersAllocation",
    "expectsInlineQos",
];
const QOS_ELEMENTS: &[&str] = &[
    "durability",
    "liveliness",
    "reliability",
    "partition",
    "deadline",
    "lifespan",
    "latencyBudget",
    "ownership",
    "ownershipStrength",
    "disablePositiveAcks",
    "publishMode",
    "data_sharing",
    "disable_heartbeat_piggyback",
];
const SKIPPED_QOS: &[&str] = &[
    "disablePositiveAcks",
    "publishMode",
    "data_sharing",
    "disable_heartbeat_piggyback",
];
const TOPIC_ELEMENTS: &[&str] = &[
    "name",
    "dataType",
    "kind",
    "historyQos",
    "resourceLimitsQos",
];

/// `<profiles>`: appends one profile per `profile_name`.
pub(crate) fn profiles(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
    out: &mut Vec<Profile>,
) -> Result<(), QosXmlError> {
    for child in elements(node) {
        let element = child.tag_name().name();
        let kind = match element {
            "participant" => EntityKind::Participant,
            "data_writer" | "publisher" => EntityKind::DataWriter,
            "data_reader" | "subscriber" => EntityKind::DataReader,
            "topic" => EntityKind::Topic,
            name if SKIPPED_PROFILES.contains(&name) => continue,
            _ => return Err(ctx.unknown(child, PROFILE_ELEMENTS)),
        };
        ctx.check_attributes(child, &["profile_name", "is_default_profile"])?;
        let (pname, _) = ctx.required_attr(child, "profile_name")?;
        let patches = match kind {
            EntityKind::Participant => participant(ctx, child)?,
            EntityKind::Topic => topic(ctx, child)?,
            _ => endpoint(ctx, child)?,
        };
        let pos = ctx.pos(child);
        // Fast DDS puts PARTITION in the endpoint's <qos>; in DDS it belongs to the
        // Publisher/Subscriber, so it becomes that group entry of the same profile.
        let group_kind = match kind {
            EntityKind::DataWriter => Some(EntityKind::Publisher),
            EntityKind::DataReader => Some(EntityKind::Subscriber),
            _ => None,
        };
        let (group, patches): (Vec<_>, Vec<_>) = patches
            .into_iter()
            .partition(|p| group_kind.is_some() && matches!(p, PolicyPatch::Partition(_)));
        if patches.iter().any(|p| !applies_to(kind, p)) {
            let msg = format!("<{element}> profile sets a policy that does not apply to it");
            return Err(pos.error(msg));
        }
        let mut entries = vec![Entry {
            kind,
            base: None,
            filter: None,
            patches,
        }];
        if let (Some(gk), false) = (group_kind, group.is_empty()) {
            entries.push(Entry {
                kind: gk,
                base: None,
                filter: None,
                patches: group,
            });
        }
        let name = format!("{LIBRARY}::{pname}");
        let default = ctx.bool_attr(child, "is_default_profile")?;
        // Fast DDS keeps one namespace per element kind, so `p` may be both a participant and
        // a data_writer profile: merge them into one profile with an entry per kind.
        let free = |p: &Profile| {
            p.entries
                .iter()
                .all(|e| entries.iter().all(|n| n.kind != e.kind))
        };
        match out.iter_mut().find(|p| p.name == name && free(p)) {
            Some(p) => {
                p.entries.extend(entries);
                if default {
                    p.default_kinds.push(kind);
                }
            }
            None => out.push(Profile {
                name,
                library: LIBRARY.to_string(),
                base: None,
                is_default: false,
                default_kinds: if default { vec![kind] } else { Vec::new() },
                pos,
                entries,
                peer_groups: Vec::new(),
            }),
        }
    }
    Ok(())
}

/// `<participant>`: `<domainId>` and `<rtps>` carry no DDS QoS the model has; skipped.
fn participant(ctx: &Ctx<'_, '_>, node: Node<'_, '_>) -> Result<Vec<PolicyPatch>, QosXmlError> {
    fields(ctx, node, &["domainId", "rtps"], |_, _| Ok(()))?;
    Ok(Vec::new())
}

/// `<data_writer>` / `<data_reader>`: `<qos>` policies and `<topic>` history/limits.
fn endpoint(ctx: &Ctx<'_, '_>, node: Node<'_, '_>) -> Result<Vec<PolicyPatch>, QosXmlError> {
    let mut patches = Vec::new();
    fields(ctx, node, ENDPOINT_ELEMENTS, |name, c| {
        match name {
            "qos" => qos(ctx, c, &mut patches)?,
            "topic" => patches.extend(topic(ctx, c)?),
            _ => {}
        }
        Ok(())
    })?;
    Ok(patches)
}

/// `<topic>` (a profile, or inside an endpoint): `<historyQos>` and `<resourceLimitsQos>`.
fn topic(ctx: &Ctx<'_, '_>, node: Node<'_, '_>) -> Result<Vec<PolicyPatch>, QosXmlError> {
    let mut patches = Vec::new();
    fields(ctx, node, TOPIC_ELEMENTS, |name, c| {
        match name {
            "historyQos" => {
                let mut h = HistoryPatch::default();
                fields(ctx, c, &["kind", "depth"], |f, v| {
                    match f {
                        "kind" => h.kind = Some(ctx.literal(v, "history kind", HISTORY)?),
                        _ => h.depth = Some(ctx.count(v)?),
                    }
                    Ok(())
                })?;
                patches.push(PolicyPatch::History(h));
            }
            "resourceLimitsQos" => {
                let mut l = LimitsPatch::default();
                let names = [
                    "max_samples",
                    "max_instances",
                    "max_samples_per_instance",
                    "allocated_samples",
                    "extra_samples",
                ];
                fields(ctx, c, &names, |f, v| {
                    let n = ctx.long(v)?;
                    let len = u32::try_from(n)
                        .ok()
                        .filter(|n| *n > 0)
                        .map(Length::Limited);
                    let len = Some(len.unwrap_or(Length::Unlimited));
                    match f {
                        "max_samples" => l.max_samples = len,
                        "max_instances" => l.max_instances = len,
                        "max_samples_per_instance" => l.max_samples_per_instance = len,
                        _ => {}
                    }
                    Ok(())
                })?;
                patches.push(PolicyPatch::ResourceLimits(l));
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(patches)
}

/// `<qos>` of a data_writer/data_reader.
fn qos(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
    out: &mut Vec<PolicyPatch>,
) -> Result<(), QosXmlError> {
    fields(ctx, node, QOS_ELEMENTS, |name, c| {
        let patch = match name {
            "durability" => {
                let mut kind = None;
                fields(ctx, c, &["kind"], |_, v| {
                    kind = Some(ctx.literal(v, "durability kind", DURABILITY)?);
                    Ok(())
                })?;
                PolicyPatch::Durability(kind)
            }
            "liveliness" => {
                let (mut kind, mut lease) = (None, None);
                let names = ["kind", "lease_duration", "announcement_period"];
                fields(ctx, c, &names, |f, v| {
                    match f {
                        "kind" => kind = Some(ctx.literal(v, "liveliness kind", LIVELINESS)?),
                        "lease_duration" => lease = Some(ctx.duration(v)?),
                        // Fast DDS-only knob; validated, not modelled.
                        _ => {
                            ctx.duration(v)?;
                        }
                    }
                    Ok(())
                })?;
                PolicyPatch::Liveliness(kind, lease)
            }
            "reliability" => {
                let (mut kind, mut blocking) = (None, None);
                fields(ctx, c, &["kind", "max_blocking_time"], |f, v| {
                    match f {
                        "kind" => kind = Some(ctx.literal(v, "reliability kind", RELIABILITY)?),
                        _ => blocking = Some(ctx.duration(v)?),
                    }
                    Ok(())
                })?;
                PolicyPatch::Reliability(kind, blocking)
            }
            "partition" => {
                let mut names = None;
                fields(ctx, c, &["names"], |_, list| {
                    let mut v = Vec::new();
                    fields(ctx, list, &["name"], |_, n| {
                        v.push(ctx.name_text(n)?);
                        Ok(())
                    })?;
                    names = Some(v);
                    Ok(())
                })?;
                PolicyPatch::Partition(names)
            }
            "deadline" => PolicyPatch::Deadline(duration_field(ctx, c, "period")?),
            "lifespan" => PolicyPatch::Lifespan(duration_field(ctx, c, "duration")?),
            "latencyBudget" => PolicyPatch::LatencyBudget(duration_field(ctx, c, "duration")?),
            "ownership" => {
                let mut kind = None;
                fields(ctx, c, &["kind"], |_, v| {
                    kind = Some(ctx.literal(v, "ownership kind", OWNERSHIP)?);
                    Ok(())
                })?;
                PolicyPatch::Ownership(kind)
            }
            "ownershipStrength" => {
                let mut value = None;
                fields(ctx, c, &["value"], |_, v| {
                    value = Some(ctx.long(v)?);
                    Ok(())
                })?;
                PolicyPatch::OwnershipStrength(value)
            }
            skipped => {
                debug_assert!(SKIPPED_QOS.contains(&skipped));
                return Ok(());
            }
        };
        out.push(patch);
        Ok(())
    })
}

fn duration_field(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
    field: &str,
) -> Result<Option<crate::time::Duration>, QosXmlError> {
    let mut d = None;
    fields(ctx, node, &[field], |_, v| {
        d = Some(ctx.duration(v)?);
        Ok(())
    })?;
    Ok(d)
}
