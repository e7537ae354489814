//! The router as a peer-group intermediary (issue 18, docs/peer-group-cache.md): the
//! `[[peer_group]]` tables of the router's TOML file, and the groups each site's participant
//! is configured with (its own participant, `siftdds-router-<site>`, is the intermediary).
//! The participants then announce the capability and restore abbreviated samples before
//! their proxy readers see them, so the router forwards full samples (with
//! PID_ORIGINAL_WRITER_INFO) and evaluates the downstream filters on them.
//!
//! Must not: hold cache logic (that is `core::pgcache`) or accept a group the core's checks
//! refuse.

use serde::Deserialize;

use super::config::ConfigError;
use crate::core::pgcache::config::{
    DEFAULT_CAPACITY, ParticipantMatch, PeerGroupConfig, validate_all,
};

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
pub fn compile(tables: &[PeerGroupToml]) -> Result<Vec<PeerGroupConfig>, ConfigError> {
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
    validate_all(&groups).map_err(|e| ConfigError(format!("[[peer_group]]: {e}")))?;
    Ok(groups)
}

/// The groups as site `site`'s participant is configured: it is their intermediary.
pub fn for_site(groups: &[PeerGroupConfig], site: &str) -> Vec<PeerGroupConfig> {
    groups
        .iter()
        .map(|g| PeerGroupConfig {
            intermediary: ParticipantMatch::Name(site_participant_name(site)),
            ..g.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::router::config::RouterConfig;
    use crate::wire::GuidPrefix;

    const FILE: &str = r#"
[[site]]
name = "A"
kind = "lan"
[[site]]
name = "B"
kind = "lan"

[[peer_group]]
name = "fleet"
topic = "Square"
members = ["pub-*"]
common = ["color"]
capacity = 2
"#;

    #[test]
    fn peer_group_tables_compile_and_each_site_is_the_intermediary() {
        let c = RouterConfig::from_toml(FILE).unwrap();
        let rules = c.rules().unwrap();
        let g = &rules.peer_groups;
        assert_eq!(g.len(), 1);
        assert_eq!(
            (g[0].capacity, g[0].common.clone()),
            (2, vec!["color".to_string()])
        );
        let a = for_site(g, "A");
        assert!(a[0].is_intermediary(Some("siftdds-router-A"), GuidPrefix([0; 12])));
        assert!(!a[0].is_intermediary(Some("siftdds-router-B"), GuidPrefix([0; 12])));
        assert!(a[0].is_member("Square", Some("pub-1"), GuidPrefix([0; 12])));
    }

    #[test]
    fn a_bad_peer_group_is_a_configuration_error() {
        let bad = FILE.replace("capacity = 2", "capacity = 0");
        let e = RouterConfig::from_toml(&bad)
            .and_then(|c| c.rules())
            .unwrap_err();
        assert!(e.0.contains("capacity"), "{e}");
        let no_members = FILE.replace("members = [\"pub-*\"]", "members = []");
        let e = RouterConfig::from_toml(&no_members)
            .and_then(|c| c.rules())
            .unwrap_err();
        assert!(e.0.contains("members"), "{e}");
    }
}
