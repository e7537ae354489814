//! The configuration of a peer group (docs/peer-group-cache.md §2): its name, topic, member
//! writers, common and sensitive members, intermediary and capacity; the checks made once at
//! configuration time, and the membership tests the participant applies to discovered
//! endpoints.
//!
//! Plain data shared by the API, the QoS XML loader, the router and the core
//! (`core::peer_group` re-exports it as `core::peer_group::config`).
//!
//! Must not: touch the wire, read files or clocks, or accept a configuration that would
//! cache a sensitive member, name no member, or give two groups the same wire id.

/// Largest capacity a group cache accepts.
pub const MAX_CAPACITY: usize = 4096;

/// Default entries an intermediary keeps per group.
pub const DEFAULT_CAPACITY: usize = 64;
/// Longest group, topic or pattern text accepted.
pub const MAX_NAME_LEN: usize = 256;
/// Most member rules, common or sensitive names in one group.
pub const MAX_RULES: usize = 64;

/// Which participants an endpoint rule selects.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParticipantMatch {
    /// The participant's PID_ENTITY_NAME ("" when it has none) matches this shell
    /// wildcard (`* ? [..]`).
    Name(String),
    /// The participant's GUID prefix (12 octets).
    Prefix([u8; 12]),
}

impl ParticipantMatch {
    /// True when a participant with `name` (PID_ENTITY_NAME, if any) and `prefix` matches.
    pub fn matches(&self, name: Option<&str>, prefix: [u8; 12]) -> bool {
        match self {
            // An unnamed participant's name is "" (so `*` selects every participant).
            ParticipantMatch::Name(pattern) => {
                crate::qos::wildcard_match(pattern, name.unwrap_or(""))
            }
            ParticipantMatch::Prefix(p) => *p == prefix,
        }
    }

    /// Parses `name:PATTERN`-less text: 24 hex digits (dots allowed) are a GUID prefix,
    /// anything else a name pattern.
    pub fn parse(text: &str) -> ParticipantMatch {
        let hex: String = text.chars().filter(|c| *c != '.').collect();
        if hex.len() == 24 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            let mut p = [0u8; 12];
            for (i, o) in p.iter_mut().enumerate() {
                let pair = hex.get(i.saturating_mul(2)..i.saturating_mul(2).saturating_add(2));
                *o = pair
                    .and_then(|s| u8::from_str_radix(s, 16).ok())
                    .unwrap_or(0);
            }
            return ParticipantMatch::Prefix(p);
        }
        ParticipantMatch::Name(text.to_string())
    }
}

/// A peer group as configured (API `PeerGroup`, or `<siftdds_peer_group>` in a QoS profile).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerGroupConfig {
    /// The group name; its wire id is [`group_id`] of it.
    pub name: String,
    /// The topic the member writers write.
    pub topic: String,
    /// The member writers' participants (writers of `topic` in a matching participant).
    pub members: Vec<ParticipantMatch>,
    /// Top-level member names of the type whose values the group shares.
    pub common: Vec<String>,
    /// Members never cached (a configuration naming one as common is refused).
    pub sensitive: Vec<String>,
    /// The intermediary (a siftdds router participant) the group caches at.
    pub intermediary: ParticipantMatch,
    /// Entries the intermediary keeps for the group.
    pub capacity: usize,
}

/// Why a peer-group configuration is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PeerGroupError {
    /// A required item is empty (which one).
    Empty(&'static str),
    /// A name or list is too long (which one).
    TooLarge(&'static str),
    /// A common member is also sensitive.
    Sensitive(String),
    /// Capacity 0 or above the intermediary's maximum.
    Capacity(usize),
    /// Two groups whose names hash to the same wire id.
    DuplicateId(String, String),
}

impl core::fmt::Display for PeerGroupError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PeerGroupError::Empty(what) => write!(f, "peer group: {what} is empty"),
            PeerGroupError::TooLarge(what) => write!(f, "peer group: {what} is too long"),
            PeerGroupError::Sensitive(m) => write!(
                f,
                "peer group: common member `{m}` is marked sensitive and is never cached"
            ),
            PeerGroupError::Capacity(c) => {
                write!(f, "peer group: capacity {c} is not in 1..={MAX_CAPACITY}")
            }
            PeerGroupError::DuplicateId(a, b) => {
                write!(f, "peer groups `{a}` and `{b}` have the same wire id")
            }
        }
    }
}

impl std::error::Error for PeerGroupError {}

impl PeerGroupConfig {
    /// A group `name` on `topic`, caching `common` at `intermediary`, with no member yet and
    /// the default capacity.
    pub fn new(
        name: &str,
        topic: &str,
        common: &[&str],
        intermediary: ParticipantMatch,
    ) -> PeerGroupConfig {
        PeerGroupConfig {
            name: name.to_string(),
            topic: topic.to_string(),
            members: Vec::new(),
            common: common.iter().map(|s| s.to_string()).collect(),
            sensitive: Vec::new(),
            intermediary,
            capacity: DEFAULT_CAPACITY,
        }
    }

    /// The group's 32-bit wire id.
    pub fn id(&self) -> u32 {
        group_id(&self.name)
    }

    /// The configuration checks that need no type (the type's own check is
    /// `split::check_common`, made when a member writer is created).
    pub fn validate(&self) -> Result<(), PeerGroupError> {
        let texts = [("name", &self.name), ("topic", &self.topic)];
        for (what, t) in texts {
            if t.is_empty() {
                return Err(PeerGroupError::Empty(what));
            }
            if t.len() > MAX_NAME_LEN {
                return Err(PeerGroupError::TooLarge(what));
            }
        }
        if self.members.is_empty() {
            return Err(PeerGroupError::Empty("members"));
        }
        if self.common.is_empty() {
            return Err(PeerGroupError::Empty("common"));
        }
        let lists = [
            ("members", self.members.len()),
            ("common", self.common.len()),
            ("sensitive", self.sensitive.len()),
        ];
        for (what, n) in lists {
            if n > MAX_RULES {
                return Err(PeerGroupError::TooLarge(what));
            }
        }
        if let Some(c) = self.common.iter().find(|c| self.sensitive.contains(c)) {
            return Err(PeerGroupError::Sensitive(c.clone()));
        }
        if self.capacity == 0 || self.capacity > MAX_CAPACITY {
            return Err(PeerGroupError::Capacity(self.capacity));
        }
        Ok(())
    }

    /// True when a writer of `topic` in participant (`name`, `prefix`) is a member.
    pub fn is_member(&self, topic: &str, name: Option<&str>, prefix: [u8; 12]) -> bool {
        topic == self.topic && self.members.iter().any(|m| m.matches(name, prefix))
    }

    /// True when participant (`name`, `prefix`) is this group's intermediary.
    pub fn is_intermediary(&self, name: Option<&str>, prefix: [u8; 12]) -> bool {
        self.intermediary.matches(name, prefix)
    }
}

/// Checks every group and that no two share a wire id (so no cache is ever shared across
/// groups, docs/peer-group-cache.md §5 rule 7).
pub fn validate_all(groups: &[PeerGroupConfig]) -> Result<(), PeerGroupError> {
    for (i, g) in groups.iter().enumerate() {
        g.validate()?;
        if let Some(other) = groups
            .iter()
            .skip(i.saturating_add(1))
            .find(|o| o.id() == g.id())
        {
            return Err(PeerGroupError::DuplicateId(
                g.name.clone(),
                other.name.clone(),
            ));
        }
    }
    Ok(())
}

/// The 32-bit wire id of a group name: the first 4 octets of MD5(name), big-endian.
pub fn group_id(name: &str) -> u32 {
    use md5::{Digest, Md5};
    let d = Md5::digest(name.as_bytes());
    let mut first = [0u8; 4];
    for (o, i) in first.iter_mut().zip(d.iter()) {
        *o = *i;
    }
    u32::from_be_bytes(first)
}

/// The type hash used in keys: the first 8 octets of MD5(type name), big-endian. Both sides
/// know the type name from SEDP; two types under one topic name get other keys.
pub fn type_hash(type_name: &str) -> u64 {
    use md5::{Digest, Md5};
    let d = Md5::digest(type_name.as_bytes());
    let mut first = [0u8; 8];
    for (o, i) in first.iter_mut().zip(d.iter()) {
        *o = *i;
    }
    u64::from_be_bytes(first)
}

/// Builder methods of the API (`siftdds::api::PeerGroup` is this type).
impl PeerGroupConfig {
    /// Adds a member rule: writers of the group's topic in participants matching `m`.
    pub fn member(mut self, m: ParticipantMatch) -> Self {
        self.members.push(m);
        self
    }

    /// Marks `name` sensitive: never cached (a group naming it common is refused).
    pub fn sensitive(mut self, name: &str) -> Self {
        self.sensitive.push(name.to_string());
        self
    }

    /// Sets the intermediary's capacity (entries) for this group.
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity;
        self
    }
}
