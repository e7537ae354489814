//! The router as a peer-group intermediary (issue 18, docs/peer-group-cache.md): the
//! `[[peer_group]]` tables of the router's TOML file, and the groups each site's participant
//! is configured with (its own participant, `siftdds-router-<site>`, is the intermediary).
//! The participants then announce the capability and restore abbreviated samples before
//! their proxy readers see them, so the router forwards full samples (with
//! PID_ORIGINAL_WRITER_INFO) and evaluates the downstream filters on them.
//!
//! Must not: hold cache logic (that is `core::peer_group`) or accept a group the core's checks
//! refuse.

use serde::Deserialize;

use crate::core::peer_group::config::{
    DEFAULT_CAPACITY, ParticipantMatch, PeerGroupConfig, validate_all,
};
use crate::wire::GuidPrefix;

/// One `[[peer_group]]` table.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PeerGroupToml {
    /// The group name (the members use the same).
    pub name: String,
    /// The topic.
    pub topic: String,
    /// Member participants: name patterns or GUID prefixes (24 hex digits).
    pub members: Vec<String>,
    /// Common member names.
    pub common: Vec<String>,
    /// Members never cached.
    #[serde(default)]
    pub sensitive: Vec<String>,
    /// Entries kept (default 64).
    pub capacity: Option<usize>,
}

/// The participant name of the router's site `site` (the driver names them so).
pub fn site_participant_name(site: &str) -> String {
    format!("siftdds-router-{site}")
}

/// The groups of the file, checked, with the intermediary left to [`for_site`].
pub fn compile(tables: &[PeerGroupToml]) -> Result<Vec<PeerGroupConfig>, String> {
    let groups: Vec<PeerGroupConfig> = tables
        .iter()
        .map(|t| PeerGroupConfig {
            name: t.name.clone(),
            topic: t.topic.clone(),
            members: t
                .members
                .iter()
                .map(|m| ParticipantMatch::parse(m))
                .collect(),
            common: t.common.clone(),
            sensitive: t.sensitive.clone(),
            intermediary: ParticipantMatch::Name(site_participant_name("*")),
            capacity: t.capacity.unwrap_or(DEFAULT_CAPACITY),
        })
        .collect();
    validate_all(&groups).map_err(|e| format!("[[peer_group]]: {e}"))?;
    Ok(groups)
}

/// The groups as the site participant with GUID prefix `me` is configured: it is their
/// intermediary, named by its own GUID prefix, so it restores the abbreviated samples of
/// the members on its site, and no other participant counts as an intermediary for its own
/// writers: where the router's participant is a member (a `members` pattern matching
/// `siftdds-router-*`), its downstream writers still send every sample in full, to every
/// peer, on a secured site as on an open one (docs/router.md, "Security").
pub fn for_site(groups: &[PeerGroupConfig], me: GuidPrefix) -> Vec<PeerGroupConfig> {
    groups
        .iter()
        .map(|g| PeerGroupConfig {
            intermediary: ParticipantMatch::Prefix(me.0),
            ..g.clone()
        })
        .collect()
}
