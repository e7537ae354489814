//! Peer-group cooperation wire values (issue 18, docs/peer-group-cache.md §4.3): a member
//! writer's announced projections (`PID_SIFTDDS_PGCACHE_PROJECTIONS`, 0x8102, in SEDP
//! DATA(w)) and an intermediary's eviction notices (`PID_SIFTDDS_PGCACHE_EVICTED`, 0x8103, in
//! SPDP DATA(p)). Both are sequence<octet> values of big-endian integers, so the parameter
//! table decodes them as octets whatever the list's byte order.
//!
//! Must not: interpret these unless the sender's vendor id is siftdds (the parameter table
//! reads vendor PIDs only from their vendor, RTPS 2.5 §9.6.2.2.1), panic, or accept a value
//! that is ragged or longer than its named bound (a malformed value is ignored whole, so a
//! half-read list never drives a decision). No cache logic (that is `core::pgcache`).

/// Most projection digests one writer announces.
pub const MAX_ANNOUNCED_PROJECTIONS: usize = 4;
/// Most eviction notices one intermediary announces.
pub const MAX_EVICTION_NOTICES: usize = 16;

/// The value of `PID_SIFTDDS_PGCACHE_PROJECTIONS`: the group a writer is a member of and the
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
    /// The sequence<octet> value (at most [`MAX_ANNOUNCED_PROJECTIONS`] digests kept).
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

/// One entry of `PID_SIFTDDS_PGCACHE_EVICTED`: the intermediary evicted the entry of `group`
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

    /// The sequence<octet> value of a notice list (the first [`MAX_EVICTION_NOTICES`] kept).
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
mod tests {
    #![allow(clippy::unwrap_used, clippy::arithmetic_side_effects)]
    use super::*;

    #[test]
    fn projections_round_trip_and_refuse_ragged_empty_or_long_values() {
        let a = ProjectionAnnouncement {
            group: 0x0102_0304,
            digests: vec![0xdead_beef, u64::MAX],
        };
        let o = a.to_octets();
        assert_eq!(o.len(), 4 + 16);
        assert_eq!(&o[..4], &[1, 2, 3, 4]);
        assert_eq!(ProjectionAnnouncement::from_octets(&o), Some(a));
        assert_eq!(ProjectionAnnouncement::from_octets(&o[..4]), None);
        assert_eq!(ProjectionAnnouncement::from_octets(&o[..19]), None);
        assert_eq!(ProjectionAnnouncement::from_octets(&[]), None);
        let long = vec![0u8; 4 + 8 * (MAX_ANNOUNCED_PROJECTIONS + 1)];
        assert_eq!(ProjectionAnnouncement::from_octets(&long), None);
        let many = ProjectionAnnouncement {
            group: 1,
            digests: (0..10).collect(),
        };
        let back = ProjectionAnnouncement::from_octets(&many.to_octets()).unwrap();
        assert_eq!(back.digests, (0..4).collect::<Vec<u64>>());
    }

    #[test]
    fn eviction_notices_round_trip_and_refuse_ragged_empty_or_long_values() {
        let n = [
            EvictionNotice {
                group: 7,
                digest: 9,
            },
            EvictionNotice {
                group: u32::MAX,
                digest: 0x0102_0304_0506_0708,
            },
        ];
        let o = EvictionNotice::list_to_octets(&n);
        assert_eq!(o.len(), 24);
        assert_eq!(&o[12..], &[0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(EvictionNotice::list_from_octets(&o).unwrap(), n);
        assert_eq!(EvictionNotice::list_from_octets(&o[..23]), None);
        assert_eq!(EvictionNotice::list_from_octets(&[]), None);
        let long = vec![0u8; EvictionNotice::LEN * (MAX_EVICTION_NOTICES + 1)];
        assert_eq!(EvictionNotice::list_from_octets(&long), None);
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            /// Any bytes: no panic, and whatever decodes encodes back to the same bytes.
            #[test]
            fn hostile_values_never_panic_and_decode_canonically(
                o in proptest::collection::vec(any::<u8>(), 0..300),
            ) {
                if let Some(a) = ProjectionAnnouncement::from_octets(&o) {
                    prop_assert!(a.digests.len() <= MAX_ANNOUNCED_PROJECTIONS);
                    prop_assert_eq!(a.to_octets(), o.clone());
                }
                if let Some(n) = EvictionNotice::list_from_octets(&o) {
                    prop_assert!(n.len() <= MAX_EVICTION_NOTICES);
                    prop_assert_eq!(EvictionNotice::list_to_octets(&n), o);
                }
            }
        }
    }
}
