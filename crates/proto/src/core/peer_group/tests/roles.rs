//! The publisher's decision table and the intermediary's checks: membership, foreign
//! keys, bad digests, collisions, LRU eviction.
//! Must not: open sockets, read clocks or files.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use super::{TYPE_HASH, config, definition, guid, project, sample};
use crate::cdr::Endianness;
use crate::core::peer_group::group_id;
use crate::core::peer_group::intermediary::GroupConfig;
use crate::core::peer_group::intermediary::{DefineOutcome, GroupCache, Restore};
use crate::core::peer_group::publisher::{Path, PeerCache, SendAs};
use crate::wire::{CacheKey, Capability, KeyDefinition, Segment, SequenceNumber};

#[test]
fn publisher_abbreviates_only_by_unicast_after_the_definition_was_acknowledged() {
    let (def, _) = definition(3, &sample(Endianness::Little, 0, 1));
    let key = def.key;
    let mut peer = PeerCache::new();
    // Not capable: always full.
    assert_eq!(
        peer.decide(key, SequenceNumber(1), Path::Unicast),
        SendAs::Full
    );
    peer.handle_capability(Some(Capability {
        capacity: 2,
        generation: 3,
    }));
    assert_eq!(
        peer.decide(key, SequenceNumber(2), Path::Unicast),
        SendAs::Define
    );
    assert_eq!(
        peer.decide(key, SequenceNumber(3), Path::Unicast),
        SendAs::Define
    );
    // An ACKNACK that does not cover SN 2 changes nothing.
    peer.handle_acknack(SequenceNumber(2), &[]);
    assert_eq!(
        peer.decide(key, SequenceNumber(4), Path::Unicast),
        SendAs::Define
    );
    peer.handle_acknack(SequenceNumber(3), &[]);
    assert_eq!(peer.acknowledged(), 1);
    assert_eq!(
        peer.decide(key, SequenceNumber(5), Path::Unicast),
        SendAs::Abbreviated
    );
    assert_eq!(
        peer.decide(key, SequenceNumber(6), Path::Multicast),
        SendAs::Full
    );
    assert_eq!(
        peer.decide(key, SequenceNumber(5), Path::Repair),
        SendAs::Full
    );
    // Another generation's key: full.
    let old = CacheKey {
        generation: 2,
        ..key
    };
    assert_eq!(
        peer.decide(old, SequenceNumber(7), Path::Unicast),
        SendAs::Full
    );
    // A NACK of the abbreviated SN 5: the key is no longer acknowledged.
    peer.handle_acknack(SequenceNumber(5), &[SequenceNumber(5)]);
    assert_eq!(peer.acknowledged(), 0);
    assert_eq!(
        peer.decide(key, SequenceNumber(8), Path::Unicast),
        SendAs::Define
    );
    // A new generation forgets everything.
    peer.handle_acknack(SequenceNumber(9), &[]);
    assert_eq!(peer.acknowledged(), 1);
    peer.handle_capability(Some(Capability {
        capacity: 2,
        generation: 4,
    }));
    assert_eq!(peer.acknowledged(), 0);
}

#[test]
fn intermediary_refuses_non_members_foreign_keys_and_bad_digests() {
    let s = sample(Endianness::Big, 1, 1);
    let (def, rest) = definition(0, &s);
    let mut cache = GroupCache::new(config(4), 0);
    assert_eq!(
        cache.handle_definition(&guid(1), &def, &s),
        DefineOutcome::RefusedNonMember
    );
    assert_eq!(
        cache.restore(&guid(1), &def.key, &rest),
        Restore::RefusedNonMember
    );
    assert_eq!(cache.stats().refused_non_member, 2);
    cache.add_member(guid(1));
    let wrong_gen = KeyDefinition::new(
        CacheKey {
            generation: 9,
            ..def.key
        },
        def.segments().to_vec(),
    )
    .unwrap();
    assert_eq!(
        cache.handle_definition(&guid(1), &wrong_gen, &s),
        DefineOutcome::RefusedForeignKey
    );
    let lying = KeyDefinition::new(
        CacheKey {
            digest: def.key.digest ^ 1,
            ..def.key
        },
        def.segments().to_vec(),
    )
    .unwrap();
    assert_eq!(
        cache.handle_definition(&guid(1), &lying, &s),
        DefineOutcome::RefusedBadDigest
    );
    assert_eq!(
        cache.handle_definition(&guid(1), &def, &s[..10]),
        DefineOutcome::RefusedBadDigest
    );
    assert_eq!(cache.restore(&guid(1), &def.key, &rest), Restore::Unknown);
    assert_eq!(
        cache.handle_definition(&guid(1), &def, &s),
        DefineOutcome::Stored
    );
    assert_eq!(
        cache.restore(&guid(1), &def.key, &rest),
        Restore::Full(s.clone())
    );
    // Another group's cache never answers for this key (rule 7).
    let mut other = GroupCache::new(
        GroupConfig {
            group: group_id("fleet-b"),
            ..config(4)
        },
        0,
    );
    other.add_member(guid(1));
    assert_eq!(
        other.handle_definition(&guid(1), &def, &s),
        DefineOutcome::RefusedForeignKey
    );
    assert_eq!(other.restore(&guid(1), &def.key, &rest), Restore::Unknown);
    // A flush bumps the generation: the old key is unknown.
    cache.flush();
    assert_eq!(cache.generation(), 1);
    assert_eq!(cache.restore(&guid(1), &def.key, &rest), Restore::Unknown);
}

#[test]
fn a_digest_collision_is_detected_and_neither_content_is_restored() {
    fn weak(_: &[Segment], _: &[u8]) -> u64 {
        42
    }
    let mut cache = GroupCache::new(config(4), 0).with_digest(weak);
    cache.add_member(guid(1));
    let a = sample(Endianness::Big, 0, 1);
    let b = sample(Endianness::Big, 3, 1);
    let (pa, rest_a) = project(&a);
    let (pb, _) = project(&b);
    let key = CacheKey {
        group: group_id("fleet-a"),
        generation: 0,
        type_hash: TYPE_HASH,
        digest: 42,
    };
    let da = KeyDefinition::new(key, pa.segments).unwrap();
    let db = KeyDefinition::new(key, pb.segments).unwrap();
    assert_eq!(
        cache.handle_definition(&guid(1), &da, &a),
        DefineOutcome::Stored
    );
    assert_eq!(
        cache.handle_definition(&guid(1), &db, &b),
        DefineOutcome::Collision
    );
    assert_eq!(cache.stats().collisions, 1);
    assert_eq!(cache.restore(&guid(1), &key, &rest_a), Restore::Unknown);
    // Poisoned: not stored again in this generation.
    assert_eq!(
        cache.handle_definition(&guid(1), &da, &a),
        DefineOutcome::Collision
    );
    assert!(cache.is_empty());
}

#[test]
fn eviction_is_least_recently_used_within_capacity() {
    let mut cache = GroupCache::new(config(2), 0);
    cache.add_member(guid(1));
    let samples: Vec<_> = (0..3).map(|set| sample(Endianness::Big, set, 1)).collect();
    let defs: Vec<_> = samples.iter().map(|s| definition(0, s)).collect();
    for i in 0..2 {
        cache.handle_definition(&guid(1), &defs[i].0, &samples[i]);
    }
    // Use set 0, so set 1 is the least recently used.
    assert!(matches!(
        cache.restore(&guid(1), &defs[0].0.key, &defs[0].1),
        Restore::Full(_)
    ));
    cache.handle_definition(&guid(1), &defs[2].0, &samples[2]);
    assert_eq!(cache.len(), 2);
    assert_eq!(cache.stats().evictions, 1);
    assert!(matches!(
        cache.restore(&guid(1), &defs[0].0.key, &defs[0].1),
        Restore::Full(_)
    ));
    assert_eq!(
        cache.restore(&guid(1), &defs[1].0.key, &defs[1].1),
        Restore::Unknown
    );
}
