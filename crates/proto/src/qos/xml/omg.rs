//! The DDS-XML 1.0 document structure (§7.3.2, QoS building block; §8.1 `<dds>` root):
//! libraries, profiles and entity QoS elements, turned into [`Profile`]s.
//!
//! Must not: resolve `base_name` references (the provider does, lazily) or apply patches.

use roxmltree::Node;

use super::dom::{Ctx, elements};
use super::omg_policy::{POLICY_NAMES, parse_policy};
use super::patch::applies_to;
use super::profile::{Entry, Profile};
use super::{EntityKind, QosXmlError, fastdds, peer_group};

/// DDS-XML system-level blocks that may sit next to QoS libraries; they carry no QoS and are
/// skipped (§8.1: types, domains, participants, applications).
const OTHER_BLOCKS: &[&str] = &[
    "types",
    "domain_library",
    "domain_participant_library",
    "participant_library",
    "application_library",
    "qos_library",
    "profiles",
];

const ENTITY_ELEMENTS: &[&str] = &[
    "domain_participant_qos",
    "domainparticipant_qos",
    "participant_qos",
    "topic_qos",
    "publisher_qos",
    "subscriber_qos",
    "datawriter_qos",
    "datareader_qos",
];

/// `<dds>`: QoS libraries and (Fast DDS) `<profiles>`.
pub(crate) fn dds(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
    out: &mut Vec<Profile>,
) -> Result<(), QosXmlError> {
    for child in elements(node) {
        match child.tag_name().name() {
            "qos_library" => library(ctx, child, out)?,
            "profiles" => fastdds::profiles(ctx, child, out)?,
            name if OTHER_BLOCKS.contains(&name) => {}
            _ => return Err(ctx.unknown(child, OTHER_BLOCKS)),
        }
    }
    Ok(())
}

/// `<qos_library name>`: profiles, and named entity QoS elements as one-element profiles
/// (§7.3.2.4.4).
pub(crate) fn library(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
    out: &mut Vec<Profile>,
) -> Result<(), QosXmlError> {
    ctx.check_attributes(node, &["name"])?;
    let (lib, _) = ctx.required_attr(node, "name")?;
    for child in elements(node) {
        let name = child.tag_name().name();
        if name == "qos_profile" {
            out.push(profile(ctx, child, &lib)?);
        } else if let Some(kind) = entity_kind(name) {
            let (pname, _) = ctx.required_attr(child, "name")?;
            let entry = entry(ctx, child, kind)?;
            out.push(Profile {
                name: format!("{lib}::{pname}"),
                library: lib.clone(),
                base: None,
                is_default: false,
                default_kinds: Vec::new(),
                pos: ctx.pos(child),
                entries: vec![entry],
                peer_groups: Vec::new(),
            });
        } else {
            let mut expected = vec!["qos_profile"];
            expected.extend_from_slice(ENTITY_ELEMENTS);
            return Err(ctx.unknown(child, &expected));
        }
    }
    Ok(())
}

/// `<qos_profile name [base_name] [is_default_qos]>`.
fn profile(ctx: &Ctx<'_, '_>, node: Node<'_, '_>, lib: &str) -> Result<Profile, QosXmlError> {
    // RTI: is_default_participant_factory_profile selects factory QoS, which we do not model.
    let attrs = [
        "name",
        "base_name",
        "is_default_qos",
        "is_default_participant_factory_profile",
    ];
    ctx.check_attributes(node, &attrs)?;
    let (name, _) = ctx.required_attr(node, "name")?;
    let mut entries = Vec::new();
    let mut peer_groups = Vec::new();
    for child in elements(node) {
        // siftdds extension (docs/peer-group-cache.md §2).
        if child.tag_name().name() == peer_group::ELEMENT {
            peer_groups.push(peer_group::peer_group(ctx, child)?);
            continue;
        }
        let kind = entity_kind(child.tag_name().name()).ok_or_else(|| {
            let mut expected = ENTITY_ELEMENTS.to_vec();
            expected.push(peer_group::ELEMENT);
            ctx.unknown(child, &expected)
        })?;
        entries.push(entry(ctx, child, kind)?);
    }
    if let Err(e) = crate::qos::peer_group::validate_all(&peer_groups) {
        return Err(ctx.err(node, e.to_string()));
    }
    Ok(Profile {
        name: format!("{lib}::{name}"),
        library: lib.to_string(),
        base: ctx.name_attr(node, "base_name")?,
        is_default: ctx.bool_attr(node, "is_default_qos")?,
        default_kinds: Vec::new(),
        pos: ctx.pos(node),
        entries,
        peer_groups,
    })
}

fn entity_kind(element: &str) -> Option<EntityKind> {
    Some(match element {
        // Spelling varies (docs/interop-facts.md §6.1): the spec example, Cyclone, and a short
        // form.
        "domain_participant_qos" | "domainparticipant_qos" | "participant_qos" => {
            EntityKind::Participant
        }
        "topic_qos" => EntityKind::Topic,
        "publisher_qos" => EntityKind::Publisher,
        "subscriber_qos" => EntityKind::Subscriber,
        "datawriter_qos" => EntityKind::DataWriter,
        "datareader_qos" => EntityKind::DataReader,
        _ => return None,
    })
}

/// One entity QoS element: its attributes and policies.
fn entry(ctx: &Ctx<'_, '_>, node: Node<'_, '_>, kind: EntityKind) -> Result<Entry, QosXmlError> {
    let attrs: &[&str] = if kind.has_topic() {
        &["name", "base_name", "topic_filter"]
    } else {
        &["name", "base_name"]
    };
    ctx.check_attributes(node, attrs)?;
    // §7.3.2.4.3: the default filter is `*`, which is the same as no filter.
    let filter = ctx
        .name_attr(node, "topic_filter")?
        .map(|(f, _)| f)
        .filter(|f| f != "*");
    let mut patches = Vec::new();
    for child in elements(node) {
        let patch = parse_policy(ctx, child)?.ok_or_else(|| ctx.unknown(child, POLICY_NAMES))?;
        if !applies_to(kind, &patch) {
            let (policy, elem) = (child.tag_name().name(), node.tag_name().name());
            return Err(ctx.err(
                child,
                format!("policy <{policy}> does not apply to <{elem}>"),
            ));
        }
        patches.push(patch);
    }
    Ok(Entry {
        kind,
        base: ctx.name_attr(node, "base_name")?,
        filter,
        patches,
    })
}
