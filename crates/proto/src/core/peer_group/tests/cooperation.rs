//! Cooperation (docs/peer-group-cache.md §5 rules 13–15): announced projections keep their
//! entries at the intermediary (when unannounced ones can go instead), only members'
//! announcements count and a departed member's stop counting, evictions are reported once,
//! and a writer forgets exactly the keys of fresh eviction notices; the SEDP and SPDP vendor
//! parameters travel only between siftdds participants and hostile values never panic.
//! Must not: open sockets, read clocks or files.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use super::{definition, guid, sample};
use crate::cdr::Endianness;
use crate::core::peer_group::intermediary::{DefineOutcome, GroupCache, Restore};
use crate::core::peer_group::publisher::{Path, PeerCache, SendAs};
use crate::wire::{
    Capability, EvictionNotice, GuidPrefix, KeyDefinition, MAX_ANNOUNCED_PROJECTIONS,
    SequenceNumber,
};

/// Definitions (and rests) of common sets 0..n, generation 0.
fn defs(n: usize) -> Vec<(KeyDefinition, Vec<u8>, Vec<u8>)> {
    (0..n)
        .map(|set| {
            let s = sample(Endianness::Little, set, 1);
            let (d, rest) = definition(0, &s);
            (d, rest, s)
        })
        .collect()
}

fn held(cache: &mut GroupCache, d: &(KeyDefinition, Vec<u8>, Vec<u8>)) -> bool {
    matches!(cache.restore(&guid(1), &d.0.key, &d.1), Restore::Full(_))
}

#[test]
fn an_announced_entry_is_kept_while_unannounced_ones_can_be_evicted() {
    let d = defs(4);
    let mut cache = GroupCache::new(super::config(2), 0);
    cache.add_member(guid(1));
    cache.add_member(guid(2));
    // Writer 2 announces set 0 as its current projection; writer 1 rotates 1, 2, 3.
    assert!(cache.announce(&guid(2), &[d[0].0.key.digest]));
    for e in &d[..2] {
        assert_eq!(
            cache.handle_definition(&guid(1), &e.0, &e.2),
            DefineOutcome::Stored
        );
    }
    // Set 0 is the least recently used, but announced: set 1 goes.
    cache.handle_definition(&guid(1), &d[2].0, &d[2].2);
    assert_eq!(cache.take_evicted(), vec![d[1].0.key.digest]);
    assert_eq!(cache.take_evicted(), Vec::<u64>::new(), "reported once");
    cache.handle_definition(&guid(1), &d[3].0, &d[3].2);
    assert_eq!(cache.take_evicted(), vec![d[2].0.key.digest]);
    assert_eq!(cache.stats().kept_announced, 2);
    assert!(held(&mut cache, &d[0]) && held(&mut cache, &d[3]));
    // Every entry announced: plain LRU among them (the bound holds whatever is announced).
    assert!(cache.announce(&guid(1), &[d[3].0.key.digest, d[1].0.key.digest]));
    assert!(held(&mut cache, &d[3]));
    cache.handle_definition(&guid(1), &d[1].0, &d[1].2);
    assert_eq!(cache.take_evicted(), vec![d[0].0.key.digest]);
    assert_eq!(cache.len(), 2);
}

#[test]
fn only_live_members_announcements_keep_entries() {
    let d = defs(3);
    let mut cache = GroupCache::new(super::config(2), 0);
    cache.add_member(guid(1));
    // A non-member's announcement is ignored.
    assert!(!cache.announce(&guid(9), &[d[0].0.key.digest]));
    assert!(!cache.is_announced(d[0].0.key.digest));
    cache.add_member(guid(2));
    assert!(cache.announce(&guid(2), &[d[0].0.key.digest]));
    assert!(cache.is_announced(d[0].0.key.digest));
    // The member leaves (configuration, lease): its announcement stops counting.
    cache.remove_member(&guid(2));
    assert!(!cache.is_announced(d[0].0.key.digest));
    for e in &d {
        cache.handle_definition(&guid(1), &e.0, &e.2);
    }
    assert_eq!(cache.take_evicted(), vec![d[0].0.key.digest]);
    assert_eq!(cache.stats().kept_announced, 0);
    // At most MAX_ANNOUNCED_PROJECTIONS digests per member, duplicates once.
    cache.add_member(guid(3));
    let many: Vec<u64> = (0..20).chain([0, 0]).collect();
    cache.announce(&guid(3), &many);
    assert!(cache.is_announced(MAX_ANNOUNCED_PROJECTIONS as u64 - 1));
    assert!(!cache.is_announced(MAX_ANNOUNCED_PROJECTIONS as u64));
    // Another announcement replaces the member's previous one.
    cache.announce(&guid(3), &[77]);
    assert!(cache.is_announced(77) && !cache.is_announced(0));
}

#[test]
fn a_digest_match_never_restores_another_members_bytes_without_a_checked_definition() {
    // An announcement never creates an entry: only a definition whose bytes match its
    // digest does, so a writer cannot skip its definition on the strength of a digest.
    let d = defs(1);
    let mut cache = GroupCache::new(super::config(2), 0);
    cache.add_member(guid(1));
    assert!(cache.announce(&guid(1), &[d[0].0.key.digest]));
    assert_eq!(
        cache.restore(&guid(1), &d[0].0.key, &d[0].1),
        Restore::Unknown
    );
    assert!(cache.is_empty());
}

#[test]
fn a_writer_forgets_exactly_the_keys_of_fresh_eviction_notices() {
    let d = defs(2);
    let (k0, k1) = (d[0].0.key, d[1].0.key);
    let mut peer = PeerCache::new();
    peer.handle_capability(Some(Capability {
        capacity: 2,
        generation: 0,
    }));
    for (i, k) in [k0, k1].into_iter().enumerate() {
        assert_eq!(
            peer.decide(k, SequenceNumber(i as i64 + 1), Path::Unicast),
            SendAs::Define
        );
    }
    assert_eq!(peer.handle_acknack(SequenceNumber(3), &[]), 0);
    assert_eq!(peer.acknowledged(), 2);
    let n0 = EvictionNotice {
        group: k0.group,
        digest: k0.digest,
    };
    let other_group = EvictionNotice {
        group: k1.group ^ 1,
        digest: k1.digest,
    };
    assert_eq!(peer.handle_evictions(&[n0, other_group]), 1);
    // The evicted key is defined again, not abbreviated; the other is untouched.
    assert_eq!(
        peer.decide(k0, SequenceNumber(3), Path::Unicast),
        SendAs::Define
    );
    assert_eq!(
        peer.decide(k1, SequenceNumber(4), Path::Unicast),
        SendAs::Abbreviated
    );
    // The same notice seen again (periodic SPDP) is not applied to the re-defined key.
    peer.handle_acknack(SequenceNumber(5), &[]);
    assert_eq!(peer.handle_evictions(&[n0, other_group]), 0);
    assert_eq!(
        peer.decide(k0, SequenceNumber(5), Path::Unicast),
        SendAs::Abbreviated
    );
    // Gone from the list and back: a fresh eviction.
    assert_eq!(peer.handle_evictions(&[]), 0);
    assert_eq!(peer.handle_evictions(&[n0]), 1);
    // A NACK of an abbreviated SN is counted (a full repair follows).
    assert_eq!(
        peer.handle_acknack(SequenceNumber(5), &[SequenceNumber(5)]),
        1
    );
}

#[test]
fn announcements_and_notices_travel_only_between_siftdds_participants() {
    use crate::core::discovery::ParticipantProxyData;
    use crate::wire::VendorId;
    let mut p = ParticipantProxyData::new(GuidPrefix([7; 12]), 0);
    p.peer_group = Some(Capability {
        capacity: 2,
        generation: 9,
    });
    p.peer_group_evicted = vec![EvictionNotice {
        group: 3,
        digest: 4,
    }];
    let bytes = p.to_payload(Endianness::Big).unwrap();
    let ours = ParticipantProxyData::from_payload(&bytes, VendorId::SIFTDDS).unwrap();
    assert_eq!(ours.peer_group_evicted, p.peer_group_evicted);
    let theirs = ParticipantProxyData::from_payload(&bytes, VendorId::FAST_DDS).unwrap();
    assert!(theirs.peer_group_evicted.is_empty());
    // SEDP: `core::discovery::endpoint_data::tests::peer_group_projections_are_a_siftdds_…`.
}
