//! The router's configuration: the TOML file of `siftdds router --config FILE` (sites,
//! topic allow/deny lists with wildcards, per-topic QoS overrides and forwarding policies),
//! and the rules the routing decisions consult. The format is documented in docs/router.md.
//!
//! Must not: open sockets or read files other than the one it is given; a bad file is an
//! error naming the place (toml's line/column), never a router that half runs.

use core::time::Duration;
use std::collections::BTreeMap;

use serde::Deserialize;

use super::keys::KeyTypes;
use super::repository::InstancePolicy;
use crate::qos::History;

/// One site in the file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SiteConfig {
    /// A name for logs.
    pub name: String,
    /// `lan` (multicast discovery on its interfaces) or `link` (a peer router: unicast
    /// initial peers, no multicast).
    pub kind: SiteKind,
    /// Interface names, addresses or CIDR prefixes (the `--interface` syntax); empty: every
    /// interface.
    #[serde(default)]
    pub interfaces: Vec<String>,
    /// Unicast initial peers of a link (`IP` or `IP:PORT`).
    #[serde(default)]
    pub peers: Vec<String>,
    /// The DDS domain (default: the file's `domain`).
    pub domain: Option<u32>,
    /// A link's cost in the shortest paths between routers (`router::paths`; default 1).
    pub cost: Option<u32>,
    /// `[site.security]`: the DDS Security identity, permissions and governance of the
    /// router's participant on this site (none: an open site), by the short names of
    /// [`SECURITY_KEYS`], the standard `dds.sec.*` property names or their Fast DDS
    /// spellings, as written.
    #[serde(default)]
    pub security: BTreeMap<String, toml::Spanned<String>>,
    /// [`Self::security`] checked and in file order, with their places
    /// ([`RouterConfig::from_toml`] fills it).
    #[serde(skip)]
    pub security_properties: Vec<SecurityProperty>,
}

/// The keys of `[site.security]`: the short name, the participant property
/// (`api::security`, DDS-Security 1.1 §9.3.1, §9.4.1) it stands for, and that property's
/// Fast DDS spelling, which the participant also takes. Every value but the password is a
/// file path (relative to the configuration file) or a `file:`/`data:,` URI.
pub const SECURITY_KEYS: [(&str, &str, &str); 7] = [
    (
        "identity_ca",
        "dds.sec.auth.identity_ca",
        "dds.sec.auth.builtin.PKI-DH.identity_ca",
    ),
    (
        "identity_certificate",
        "dds.sec.auth.identity_certificate",
        "dds.sec.auth.builtin.PKI-DH.identity_certificate",
    ),
    (
        "private_key",
        "dds.sec.auth.private_key",
        "dds.sec.auth.builtin.PKI-DH.private_key",
    ),
    (
        "password",
        "dds.sec.auth.password",
        "dds.sec.auth.builtin.PKI-DH.password",
    ),
    (
        "permissions_ca",
        "dds.sec.access.permissions_ca",
        "dds.sec.access.builtin.Access-Permissions.permissions_ca",
    ),
    (
        "governance",
        "dds.sec.access.governance",
        "dds.sec.access.builtin.Access-Permissions.governance",
    ),
    (
        "permissions",
        "dds.sec.access.permissions",
        "dds.sec.access.builtin.Access-Permissions.permissions",
    ),
];

/// One `[site.security]` entry, checked: the participant property it sets, its value as
/// written, and where it is in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SecurityProperty {
    /// The standard `dds.sec.*` property name.
    pub property: &'static str,
    /// The value as written: a path, a URI, or the password.
    pub value: String,
    /// Its place in the file.
    pub at: Place,
}

impl SecurityProperty {
    /// Whether the value names a file by a plain path (to be resolved against the
    /// configuration file's directory), not a URI or the password.
    pub fn is_path(&self) -> bool {
        self.property != "dds.sec.auth.password"
            && !self.value.starts_with("file:")
            && !self.value.starts_with("data:")
    }
}

/// A line and column of the configuration file (1-based), as toml's errors give them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1 (in characters).
    pub column: usize,
}

impl Place {
    fn of(text: &str, offset: usize) -> Place {
        let before = text.get(..offset).unwrap_or(text);
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Place { line, column }
    }
}

impl core::fmt::Display for Place {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// The property a `[site.security]` short name stands for.
fn long_name(short: &str) -> &'static str {
    SECURITY_KEYS
        .iter()
        .find(|(s, _, _)| *s == short)
        .map_or("", |(_, long, _)| long)
}

/// The `[site.security]` entries of `site` checked: known keys, each property once, and a
/// whole identity (CA, certificate, key) and, if any access-control entry is there, all
/// three of them (as the participant requires, `api::security`).
fn site_security(text: &str, site: &SiteConfig) -> Result<Vec<SecurityProperty>, ConfigError> {
    let mut out: Vec<SecurityProperty> = Vec::new();
    for (key, value) in &site.security {
        let at = Place::of(text, value.span().start);
        let Some((_, property, _)) = SECURITY_KEYS
            .iter()
            .find(|(short, long, alias)| key == short || key == long || key == alias)
        else {
            return Err(ConfigError(format!(
                "{at}: site \"{}\": security: unknown key \"{key}\" (one of {})",
                site.name,
                SECURITY_KEYS.map(|(s, _, _)| s).join(", ")
            )));
        };
        if out.iter().any(|p| p.property == *property) {
            return Err(ConfigError(format!(
                "{at}: site \"{}\": security: {property} given twice",
                site.name
            )));
        }
        out.push(SecurityProperty {
            property,
            value: value.get_ref().clone(),
            at,
        });
    }
    out.sort_by_key(|p| (p.at.line, p.at.column));
    let Some(first) = out.first().map(|p| p.at) else {
        return Ok(out);
    };
    let has = |name: &str| out.iter().any(|p| p.property == name);
    let identity = ["identity_ca", "identity_certificate", "private_key"];
    let access = ["permissions_ca", "governance", "permissions"];
    let any_access = access.iter().any(|k| has(long_name(k)));
    let needed = identity.iter().chain(access.iter().filter(|_| any_access));
    if let Some(short) = needed.into_iter().find(|k| !has(long_name(k))) {
        return Err(ConfigError(format!(
            "{first}: site \"{}\": security: {short} ({}) is missing: a secured site \
             needs identity_ca, identity_certificate and private_key, and permissions_ca, \
             governance and permissions together",
            site.name,
            long_name(short)
        )));
    }
    Ok(out)
}

/// What a site is.
#[derive(Copy, Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SiteKind {
    /// A local DDS network.
    Lan,
    /// A link to a peer router.
    Link,
}

/// Topic allow/deny lists: shell wildcards (`*`, `?`, `[..]`) on topic and type names. A
/// topic is routed when it matches an allow pattern (none given: every topic) and no deny
/// pattern; the same for its type.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TopicLists {
    /// Topic name patterns routed (empty: all).
    #[serde(default)]
    pub allow: Vec<String>,
    /// Topic name patterns never routed.
    #[serde(default)]
    pub deny: Vec<String>,
    /// Type name patterns routed (empty: all).
    #[serde(default)]
    pub allow_types: Vec<String>,
    /// Type name patterns never routed.
    #[serde(default)]
    pub deny_types: Vec<String>,
}

/// A per-topic override (the first entry whose `name` pattern matches applies).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TopicOverride {
    /// Topic name pattern.
    pub name: String,
    /// HISTORY depth of the downstream writers (`0`: KEEP_ALL).
    pub history_depth: Option<u32>,
    /// Drop a sample equal to the last one forwarded for its instance.
    #[serde(default)]
    pub suppress_unchanged: bool,
    /// Forward at most one sample per instance per this many milliseconds.
    pub min_interval_ms: Option<u64>,
    /// An IDL file (relative to the configuration file) defining the topic's type, so the
    /// router can compute the key hash of samples sent without PID_KEY_HASH.
    pub idl: Option<String>,
    /// The topic's type in `idl` (default: the type name its endpoints announce).
    #[serde(rename = "type")]
    pub type_name: Option<String>,
}

/// The whole file.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RouterConfig {
    /// Default domain of the sites.
    #[serde(default)]
    pub domain: u32,
    /// This router's id in path vectors (default: random).
    pub router_id: Option<u64>,
    /// The sites (at least two).
    #[serde(default, rename = "site")]
    pub sites: Vec<SiteConfig>,
    /// Allow/deny lists.
    #[serde(default)]
    pub topics: TopicLists,
    /// Per-topic overrides.
    #[serde(default, rename = "topic")]
    pub overrides: Vec<TopicOverride>,
    /// Peer groups the router caches for (`router::peer_group`, docs/peer-group-cache.md).
    #[serde(default, rename = "peer_group")]
    pub peer_groups: Vec<super::peer_group::PeerGroupToml>,
    /// Shortest-path forwarding between routers and its failure detection.
    #[serde(default)]
    pub paths: PathsConfig,
}

/// The `[paths]` table: shortest-path forwarding between routers (`router::paths`) and the
/// heartbeat-based failure detection of the links; detection time = `heartbeat_ms` ×
/// `misses` (default 500 ms × 6 = 3 s).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PathsConfig {
    /// Forward along shortest paths (default); `false`: over every link, as path vectors
    /// allow, the repositories keeping exactly once.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Heartbeat period on each link, in milliseconds.
    pub heartbeat_ms: Option<u64>,
    /// Heartbeats missed before a link counts as down.
    pub misses: Option<u32>,
}

fn yes() -> bool {
    true
}

impl Default for PathsConfig {
    fn default() -> Self {
        PathsConfig {
            enabled: true,
            heartbeat_ms: None,
            misses: None,
        }
    }
}

impl PathsConfig {
    /// The failure detection, or `None` when shortest-path forwarding is off.
    pub fn detection(&self) -> Option<super::paths::Detection> {
        let d = super::paths::Detection::default();
        self.enabled.then(|| super::paths::Detection {
            interval: self.heartbeat_ms.map_or(d.interval, Duration::from_millis),
            misses: self.misses.unwrap_or(d.misses),
        })
    }
}

/// A configuration error, with its place in the file.
#[derive(Debug)]
pub struct ConfigError(pub String);

impl core::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

impl RouterConfig {
    /// Parses and checks a TOML file's text.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let mut config: RouterConfig =
            toml::from_str(text).map_err(|e| ConfigError(e.to_string()))?;
        for site in &mut config.sites {
            site.security_properties = site_security(text, site)?;
        }
        config.rules()?;
        if config.sites.len() < 2 {
            return Err(ConfigError(format!(
                "a router needs at least two sites ([[site]] tables), found {}",
                config.sites.len()
            )));
        }
        if config.paths.heartbeat_ms == Some(0) || config.paths.misses == Some(0) {
            return Err(ConfigError(
                "paths: heartbeat_ms and misses must be at least 1".into(),
            ));
        }
        for s in &config.sites {
            if s.cost == Some(0) {
                return Err(ConfigError(format!(
                    "site \"{}\": cost must be at least 1",
                    s.name
                )));
            }
            if s.kind == SiteKind::Link && s.peers.is_empty() {
                return Err(ConfigError(format!(
                    "site \"{}\": a link needs `peers` (unicast initial peers)",
                    s.name
                )));
            }
        }
        Ok(config)
    }

    /// The compiled topic rules.
    pub fn rules(&self) -> Result<TopicRules, ConfigError> {
        let t = &self.topics;
        Ok(TopicRules {
            allow: patterns(&t.allow, "topics.allow")?,
            deny: patterns(&t.deny, "topics.deny")?,
            allow_types: patterns(&t.allow_types, "topics.allow_types")?,
            deny_types: patterns(&t.deny_types, "topics.deny_types")?,
            overrides: self
                .overrides
                .iter()
                .map(|o| Ok((pattern(&o.name, "topic.name")?, o.clone())))
                .collect::<Result<_, ConfigError>>()?,
            keys: KeyTypes::new(),
            peer_groups: super::peer_group::compile(&self.peer_groups).map_err(ConfigError)?,
        })
    }
}

fn pattern(p: &str, what: &str) -> Result<glob::Pattern, ConfigError> {
    glob::Pattern::new(p).map_err(|e| ConfigError(format!("{what}: pattern \"{p}\": {e}")))
}

fn patterns(list: &[String], what: &str) -> Result<Vec<glob::Pattern>, ConfigError> {
    list.iter().map(|p| pattern(p, what)).collect()
}

/// The compiled allow/deny lists and overrides.
#[derive(Clone, Debug, Default)]
pub struct TopicRules {
    allow: Vec<glob::Pattern>,
    deny: Vec<glob::Pattern>,
    allow_types: Vec<glob::Pattern>,
    deny_types: Vec<glob::Pattern>,
    overrides: Vec<(glob::Pattern, TopicOverride)>,
    keys: KeyTypes,
    /// The peer groups, intermediary still to be set per site (`peer_group::for_site`).
    pub peer_groups: Vec<crate::core::peer_group::config::PeerGroupConfig>,
}

fn listed(list: &[glob::Pattern], name: &str) -> bool {
    list.iter().any(|p| p.matches(name))
}

impl TopicRules {
    /// Every topic, no override (`siftdds router --interfaces`).
    pub fn all() -> Self {
        TopicRules::default()
    }

    /// These rules with the topic types `keys` (the IDL files of the overrides, parsed by
    /// the caller: this module reads no file).
    pub fn with_key_types(mut self, keys: KeyTypes) -> Self {
        self.keys = keys;
        self
    }

    /// The known topic types.
    pub fn key_types(&self) -> &KeyTypes {
        &self.keys
    }

    /// The known topic types, to add those learnt from the wire.
    pub fn key_types_mut(&mut self) -> &mut KeyTypes {
        &mut self.keys
    }

    /// The overrides that name an IDL file: (topic pattern, file, type name).
    pub fn idl_files(&self) -> impl Iterator<Item = (&glob::Pattern, &str, Option<&str>)> {
        self.overrides
            .iter()
            .filter_map(|(p, o)| o.idl.as_deref().map(|f| (p, f, o.type_name.as_deref())))
    }

    /// Whether `topic` of `type_name` is routed.
    pub fn routes(&self, topic: &str, type_name: &str) -> bool {
        (self.allow.is_empty() || listed(&self.allow, topic))
            && !listed(&self.deny, topic)
            && (self.allow_types.is_empty() || listed(&self.allow_types, type_name))
            && !listed(&self.deny_types, type_name)
    }

    fn override_for(&self, topic: &str) -> Option<&TopicOverride> {
        self.overrides
            .iter()
            .find(|(p, _)| p.matches(topic))
            .map(|(_, o)| o)
    }

    /// The HISTORY of a downstream writer of `topic`: the override, else KEEP_ALL for a
    /// volatile route (exactly once) and KEEP_LAST(1) for a TRANSIENT_LOCAL one (a late
    /// joiner gets the newest sample of each instance).
    pub fn history(&self, topic: &str, transient_local: bool) -> History {
        self.history_after(topic, transient_local, History::KeepLast(1))
    }

    /// [`Self::history`] with `upstream` (the upstream writers' HISTORY) as the default of
    /// a TRANSIENT_LOCAL route.
    pub fn history_after(&self, topic: &str, transient_local: bool, upstream: History) -> History {
        match self.override_for(topic).and_then(|o| o.history_depth) {
            Some(0) => History::KeepAll,
            Some(n) => History::KeepLast(n),
            None if transient_local => upstream,
            None => History::KeepAll,
        }
    }

    /// The forwarding policy of `topic`'s instances.
    pub fn policy(&self, topic: &str) -> InstancePolicy {
        self.override_for(topic)
            .map(|o| InstancePolicy {
                suppress_unchanged: o.suppress_unchanged,
                min_interval: o.min_interval_ms.map(Duration::from_millis),
            })
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
