//! The siftdds extension `<siftdds_peer_group>` inside a `<qos_profile>` (docs/qos-xml.md
//! "siftdds extensions", docs/peer-group-cache.md §2): one peer group, scoped to the profile
//! (`QosProvider::peer_groups`; not inherited through `base_name`).
//!
//! ```xml
//! <siftdds_peer_group name="fleet" topic="Vehicle">
//!   <member>pub-*</member>                       <!-- participant name pattern -->
//!   <member>01.0f.aa.bb.00.00.00.01.00.00.00.02</member>  <!-- or a GUID prefix -->
//!   <common>model</common> <common>route</common>
//!   <sensitive>owner</sensitive>
//!   <intermediary>siftdds-router-*</intermediary>
//!   <capacity>64</capacity>
//! </siftdds_peer_group>
//! ```
//!
//! Must not: accept a group `PeerGroupConfig::validate` refuses (the error is placed at the
//! element), or an unknown child or attribute.

use roxmltree::Node;

use super::QosXmlError;
use super::dom::{Ctx, elements};
use crate::qos::peer_group::{DEFAULT_CAPACITY, ParticipantMatch, PeerGroupConfig};

/// The element name.
pub(crate) const ELEMENT: &str = "siftdds_peer_group";
const CHILDREN: &[&str] = &["member", "common", "sensitive", "intermediary", "capacity"];

/// Parses one `<siftdds_peer_group name topic>`.
pub(crate) fn peer_group(
    ctx: &Ctx<'_, '_>,
    node: Node<'_, '_>,
) -> Result<PeerGroupConfig, QosXmlError> {
    ctx.check_attributes(node, &["name", "topic"])?;
    let (name, _) = ctx.required_attr(node, "name")?;
    let (topic, _) = ctx.required_attr(node, "topic")?;
    let mut g = PeerGroupConfig {
        name,
        topic,
        members: Vec::new(),
        common: Vec::new(),
        sensitive: Vec::new(),
        intermediary: ParticipantMatch::Name(String::new()),
        capacity: DEFAULT_CAPACITY,
    };
    let mut intermediary = false;
    for child in elements(node) {
        let text = || ctx.name_text(child);
        match child.tag_name().name() {
            "member" => g.members.push(ParticipantMatch::parse(&text()?)),
            "common" => g.common.push(text()?),
            "sensitive" => g.sensitive.push(text()?),
            "intermediary" => {
                if intermediary {
                    return Err(ctx.err(child, "more than one <intermediary>".into()));
                }
                intermediary = true;
                g.intermediary = ParticipantMatch::parse(&text()?);
            }
            "capacity" => {
                g.capacity = usize::try_from(ctx.count(child)?).unwrap_or(usize::MAX);
            }
            _ => return Err(ctx.unknown(child, CHILDREN)),
        }
    }
    if !intermediary {
        return Err(ctx.err(node, format!("<{ELEMENT}> needs an <intermediary>")));
    }
    g.validate().map_err(|e| ctx.err(node, e.to_string()))?;
    Ok(g)
}
