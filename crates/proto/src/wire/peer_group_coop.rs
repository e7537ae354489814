//! Peer-group cooperation wire values (issue 18, docs/peer-group-cache.md §4.3): a member
//! writer's announced projections (`PID_SIFTDDS_PEER_GROUP_PROJECTIONS`, 0x8102, in SEDP
//! DATA(w)) and an intermediary's eviction notices (`PID_SIFTDDS_PEER_GROUP_EVICTED`, 0x8103, in
//! SPDP DATA(p)). Both are `sequence<octet>` values of big-endian integers, so the parameter
//! table decodes them as octets whatever the list's byte order.
//!
//! Must not: interpret these unless the sender's vendor id is siftdds (the parameter table
//! reads vendor PIDs only from their vendor, RTPS 2.5 §9.6.2.2.1), panic, or accept a value
//! that is ragged or longer than its named bound (a malformed value is ignored whole, so a
//! half-read list never drives a decision). No cache logic (that is `core::peer_group`).

/// Most projection digests one writer announces.
pub const MAX_ANNOUNCED_PROJECTIONS: usize = 4;
/// Most eviction notices one intermediary announces.
pub const MAX_EVICTION_NOTICES: usize = 16;

/// The value of `PID_SIFTDDS_PEER_GROUP_PROJECTIONS`: the group a writer is a member of and the
/// digests of its current common projections, most recent first (1..=
/// [`MAX_ANNOUNCED_PROJECTIONS`]). Octets: groupId u32, then digest u64 each, big-endian.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProjectionAnnouncement {
    /// The group's 32-bit wire id.
    pub group: u32,
    /// Digests (CacheKey.digest) of the writer's current projections, most recent first.
    pub digests: Vec<u64>,
}

impl ProjectionAnnouncement {
    /// The `sequence<octet>` value (at most [`MAX_ANNOUNCED_PROJECTIONS`] digests kept).
    pub fn to_octets(&self) -> Vec<u8> {
        let mut o = self.group.to_be_bytes().to_vec();
        for d in self.digests.iter().take(MAX_ANNOUNCED_PROJECTIONS) {
            o.extend_from_slice(&d.to_be_bytes());
        }
        o
    }

    /// The inverse of [`to_octets`](Self::to_octets); `None` for a value that is ragged,
    /// empty of digests or longer than the bound.
    pub fn from_octets(o: &[u8]) -> Option<Self> {
        let (group, rest) = o.split_first_chunk::<4>()?;
        if rest.is_empty() || rest.len() % 8 != 0 || rest.len() / 8 > MAX_ANNOUNCED_PROJECTIONS {
            return None;
        }
        let digests = rest
            .chunks_exact(8)
            .filter_map(|c| <[u8; 8]>::try_from(c).ok().map(u64::from_be_bytes))
            .collect();
        Some(ProjectionAnnouncement {
            group: u32::from_be_bytes(*group),
            digests,
        })
    }
}

/// One entry of `PID_SIFTDDS_PEER_GROUP_EVICTED`: the intermediary evicted the entry of `group`
/// with this projection digest (in its current generation). 12 octets: groupId u32, digest
/// u64, big-endian.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EvictionNotice {
    /// The group's 32-bit wire id.
    pub group: u32,
    /// The evicted entry's projection digest.
    pub digest: u64,
}

impl EvictionNotice {
    /// Octets of one notice.
    pub const LEN: usize = 12;

    /// The `sequence<octet>` value of a notice list (the first [`MAX_EVICTION_NOTICES`] kept).
    pub fn list_to_octets(notices: &[EvictionNotice]) -> Vec<u8> {
        notices
            .iter()
            .take(MAX_EVICTION_NOTICES)
            .flat_map(|n| {
                n.group
                    .to_be_bytes()
                    .into_iter()
                    .chain(n.digest.to_be_bytes())
            })
            .collect()
    }

    /// The inverse of [`list_to_octets`](Self::list_to_octets); `None` for a value that is
    /// empty, ragged or longer than the bound.
    pub fn list_from_octets(o: &[u8]) -> Option<Vec<EvictionNotice>> {
        if o.is_empty() || o.len() % Self::LEN != 0 || o.len() / Self::LEN > MAX_EVICTION_NOTICES {
            return None;
        }
        o.chunks_exact(Self::LEN)
            .map(|c| {
                let (g, d) = c.split_first_chunk::<4>()?;
                let d = <[u8; 8]>::try_from(d).ok()?;
                Some(EvictionNotice {
                    group: u32::from_be_bytes(*g),
                    digest: u64::from_be_bytes(d),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
