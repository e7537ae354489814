//! Peer-group cache: splitting against a real type, merge as the exact inverse, the
//! publisher's decision table, the intermediary's checks, and a seeded simulation of two
//! writers and the intermediary over lossy links (20 % each way) with a capacity of 2, five
//! rotating common sets and a writer leaving the group: every sample is delivered, each
//! byte-identical to what was written.
//! Must not: open sockets, read clocks or files.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::collections::{BTreeMap, VecDeque};

use super::intermediary::{DefineOutcome, GroupCache, GroupConfig, Restore};
use super::publisher::{Path, PeerCache, SendAs};
use super::split::{Projection, SplitError, common_segments, merge, split};
use super::{group_id, key_of};
use crate::cdr::{EncapsulationHeader, EncapsulationKind, Endianness, Writer};
use crate::test_rng::Rng;
use crate::types::{Extensibility, Member, TypeDescriptor, TypeKind};
use crate::wire::{
    CacheKey, Capability, EntityId, Guid, GuidPrefix, KeyDefinition, Segment, SequenceNumber,
};

const TYPE_HASH: u64 = 0x5151_5151_5151_5151;

/// counter u32, fleet string, model string, x f64, route string, calib sequence<octet>, speed f32.
pub(crate) fn vehicle() -> TypeDescriptor {
    let s = || TypeKind::String { bound: None };
    TypeDescriptor {
        name: "Vehicle".into(),
        extensibility: Extensibility::Final,
        members: vec![
            Member::new("counter", 0, TypeKind::U32),
            Member::new("fleet", 1, s()),
            Member::new("model", 2, s()),
            Member::new("x", 3, TypeKind::F64),
            Member::new("route", 4, s()),
            Member::new(
                "calib",
                5,
                TypeKind::Sequence {
                    elem: Box::new(TypeKind::Octet),
                    bound: None,
                },
            ),
            Member::new("speed", 6, TypeKind::F32),
        ],
    }
}

pub(crate) fn common_names() -> Vec<String> {
    ["fleet", "model", "route", "calib"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// A serialized Vehicle for common set `set` and varying values from `n`.
pub(crate) fn sample(endian: Endianness, set: usize, n: u32) -> Vec<u8> {
    let mut v = Vec::new();
    let mut w = Writer::new(&mut v, endian);
    EncapsulationHeader::new(EncapsulationKind::Cdr, endian).emit(&mut w);
    let mut b = w.nested();
    b.u32(n);
    b.string(format!("fleet-{set}").as_bytes());
    b.string("model-XK-2000-long-description".repeat(set + 1).as_bytes());
    b.align(8);
    b.u64(f64::from(n).to_bits());
    b.string(format!("route {set}: A-B-C").as_bytes());
    b.align(4);
    b.u32(3 + set as u32);
    for i in 0..3 + set {
        b.u8(i as u8 ^ set as u8);
    }
    b.align(4);
    b.u32((n as f32 * 0.5).to_bits());
    v
}

fn project(payload: &[u8]) -> (Projection, Vec<u8>) {
    let segs = common_segments(&vehicle(), &common_names(), payload).unwrap();
    split(payload, segs).unwrap()
}

#[test]
fn split_then_merge_is_the_identity_in_both_byte_orders() {
    for e in [Endianness::Big, Endianness::Little] {
        for set in 0..5 {
            for n in [0, 1, 77, u32::MAX] {
                let s = sample(e, set, n);
                let (p, rest) = project(&s);
                assert!(rest.len() < s.len());
                assert_eq!(merge(&p.segments, &p.common, &rest).unwrap(), s);
            }
        }
    }
}

#[test]
fn same_common_values_give_the_same_digest_and_other_values_another() {
    let (a, _) = project(&sample(Endianness::Little, 1, 10));
    let (b, _) = project(&sample(Endianness::Little, 1, 11));
    let (c, _) = project(&sample(Endianness::Little, 2, 10));
    assert_eq!(a, b);
    assert_ne!(a.digest, c.digest);
}

#[test]
fn adjacent_common_members_are_one_segment_and_padding_stays_in_the_rest() {
    let (p, rest) = project(&sample(Endianness::Big, 0, 1));
    // fleet (4 + 8) and model follow each other with no padding: one segment. route
    // ("route 0: A-B-C" + NUL = 4 + 15) is followed by one octet of padding before calib's
    // length, so route and calib are two segments. counter, x and speed stay in the rest.
    assert_eq!(p.segments.len(), 3, "{:?}", p.segments);
    assert_eq!(p.segments[0].offset, 8);
    assert_eq!(p.segments[1].length, 19);
    assert_eq!(p.segments[2].offset, p.segments[1].offset + 20);
    // 4 encapsulation + 4 counter + x (8, with its padding) + 1 pad + speed 4 (+ padding).
    assert!(rest.len() < 40, "{}", rest.len());
}

#[test]
fn unsupported_encodings_and_kinds_are_not_split() {
    let mut s = sample(Endianness::Little, 0, 1);
    s[1] = 0x07; // CDR2_LE
    assert_eq!(
        common_segments(&vehicle(), &common_names(), &s),
        Err(SplitError::Unsupported("encoding other than plain XCDR1"))
    );
    let none: Vec<String> = vec!["nothing".into()];
    assert_eq!(
        common_segments(&vehicle(), &none, &sample(Endianness::Little, 0, 1)),
        Err(SplitError::NoCommon)
    );
    // Truncated anywhere: an error, never a panic.
    let s = sample(Endianness::Big, 3, 9);
    for n in 0..s.len() {
        assert!(common_segments(&vehicle(), &common_names(), &s[..n]).is_err());
    }
}

#[test]
fn sensitive_or_unknown_common_members_are_refused_at_configuration() {
    use super::split::{CommonConfigError, check_common};
    let d = vehicle();
    assert_eq!(check_common(&d, &common_names(), &[]), Ok(()));
    assert_eq!(
        check_common(&d, &common_names(), &["route".into()]),
        Err(CommonConfigError::Sensitive("route".into()))
    );
    assert_eq!(
        check_common(&d, &["nope".into()], &[]),
        Err(CommonConfigError::UnknownMember("nope".into()))
    );
    assert_eq!(check_common(&d, &[], &[]), Err(CommonConfigError::Empty));
}

#[test]
fn merge_refuses_a_rest_too_short_for_the_layout() {
    let s = sample(Endianness::Big, 2, 5);
    let (p, rest) = project(&s);
    let first = p.segments[0].offset as usize;
    assert!(merge(&p.segments, &p.common, &rest[..first - 1]).is_none());
}

fn guid(n: u8) -> Guid {
    Guid::new(GuidPrefix([n; 12]), EntityId([0, 0, 1, 0x03]))
}

fn config(capacity: usize) -> GroupConfig {
    GroupConfig {
        group: group_id("fleet-a"),
        type_hash: TYPE_HASH,
        capacity,
    }
}

fn definition(generation0: u32, payload: &[u8]) -> (KeyDefinition, Vec<u8>) {
    let (p, rest) = project(payload);
    let key = key_of(group_id("fleet-a"), generation0, TYPE_HASH, &p);
    (KeyDefinition::new(key, p.segments).unwrap(), rest)
}

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

// ---------- the lossy simulation ----------

enum Up {
    Full {
        writer: usize,
        sn: i64,
        payload: Vec<u8>,
        def: Option<KeyDefinition>,
    },
    Abbreviated {
        writer: usize,
        sn: i64,
        key: CacheKey,
        rest: Vec<u8>,
    },
}

struct SimWriter {
    guid: Guid,
    peer: PeerCache,
    history: BTreeMap<i64, Vec<u8>>,
    next: i64,
}

struct SimOutcome {
    abbreviated_restored: u64,
    evictions: u64,
    refused_non_member: u64,
    rounds: usize,
}

/// Two writers, `samples` each; common set rotates through 5 in runs of `run`; writer 1
/// leaves the group at round `leave` (it is not told, so it keeps abbreviating and is
/// repaired in full). Asserts every delivered sample equals the written one and that all are
/// delivered.
fn simulate(seed: u64, samples: i64, run: i64, loss: u64, leave: Option<usize>) -> SimOutcome {
    let mut rng = Rng::new(seed);
    let generation0 = 5;
    let mut cache = GroupCache::new(config(2), generation0);
    let mut writers: Vec<SimWriter> = (0..2)
        .map(|i| {
            let mut peer = PeerCache::new();
            peer.handle_capability(Some(Capability {
                capacity: 2,
                generation: generation0,
            }));
            cache.add_member(guid(i as u8 + 1));
            SimWriter {
                guid: guid(i as u8 + 1),
                peer,
                history: BTreeMap::new(),
                next: 1,
            }
        })
        .collect();
    let mut delivered: Vec<BTreeMap<i64, Vec<u8>>> = vec![BTreeMap::new(), BTreeMap::new()];
    let mut up: VecDeque<Up> = VecDeque::new();
    let mut max_len = 0;
    for round in 0..20_000 {
        if Some(round) == leave {
            cache.remove_member(&writers[1].guid);
        }
        // New samples.
        for (i, w) in writers.iter_mut().enumerate() {
            if w.next > samples {
                continue;
            }
            let sn = w.next;
            w.next += 1;
            let set = ((sn / run) as usize + i) % 5;
            let payload = sample(Endianness::Little, set, (sn as u32) * 7 + i as u32);
            w.history.insert(sn, payload.clone());
            let (p, rest) = project(&payload);
            let key = key_of(group_id("fleet-a"), generation0, TYPE_HASH, &p);
            match w.peer.decide(key, SequenceNumber(sn), Path::Unicast) {
                SendAs::Full => up.push_back(Up::Full {
                    writer: i,
                    sn,
                    payload,
                    def: None,
                }),
                SendAs::Define => up.push_back(Up::Full {
                    writer: i,
                    sn,
                    payload,
                    def: Some(KeyDefinition::new(key, p.segments).unwrap()),
                }),
                SendAs::Abbreviated => up.push_back(Up::Abbreviated {
                    writer: i,
                    sn,
                    key,
                    rest,
                }),
            }
        }
        // The link up, with loss; the intermediary handles what arrives.
        while let Some(m) = up.pop_front() {
            if rng.chance(loss) {
                continue;
            }
            let (writer, sn, full) = match m {
                Up::Full {
                    writer,
                    sn,
                    payload,
                    def,
                } => {
                    if let Some(def) = def {
                        cache.handle_definition(&writers[writer].guid, &def, &payload);
                    }
                    (writer, sn, Some(payload))
                }
                Up::Abbreviated {
                    writer,
                    sn,
                    key,
                    rest,
                } => match cache.restore(&writers[writer].guid, &key, &rest) {
                    Restore::Full(p) => (writer, sn, Some(p)),
                    Restore::Unknown | Restore::RefusedNonMember => (writer, sn, None),
                },
            };
            max_len = max_len.max(cache.len());
            if let Some(full) = full {
                // Nothing wrongly restored: byte-identical to what was written.
                assert_eq!(&full, &writers[writer].history[&sn], "seed {seed} sn {sn}");
                delivered[writer].insert(sn, full);
            }
        }
        // ACKNACKs down (lossy): base = first missing, set = the missing ones written so far.
        for (i, w) in writers.iter_mut().enumerate() {
            let last = w.next - 1;
            let missing: Vec<SequenceNumber> = (1..=last)
                .filter(|sn| !delivered[i].contains_key(sn))
                .take(256)
                .map(SequenceNumber)
                .collect();
            let base = missing.first().copied().unwrap_or(SequenceNumber(last + 1));
            if rng.chance(loss) {
                continue;
            }
            w.peer.handle_acknack(base, &missing);
            for sn in &missing {
                assert_eq!(
                    w.peer.decide(
                        CacheKey {
                            group: 0,
                            generation: generation0,
                            type_hash: 0,
                            digest: 0,
                        },
                        *sn,
                        Path::Repair
                    ),
                    SendAs::Full
                );
                up.push_back(Up::Full {
                    writer: i,
                    sn: sn.0,
                    payload: w.history[&sn.0].clone(),
                    def: None,
                });
            }
        }
        let done = writers.iter().all(|w| w.next > samples)
            && delivered.iter().all(|d| d.len() == samples as usize);
        if done {
            assert!(max_len <= 2, "cache over capacity");
            return SimOutcome {
                abbreviated_restored: cache.stats().hits,
                evictions: cache.stats().evictions,
                refused_non_member: cache.stats().refused_non_member,
                rounds: round,
            };
        }
    }
    panic!("seed {seed}: not everything delivered");
}

#[test]
fn lossless_run_abbreviates_most_samples() {
    let out = simulate(1, 200, 20, 0, None);
    // Each run of 20 samples: one definition, one ACKNACK round, then abbreviated.
    assert!(
        out.abbreviated_restored > 300,
        "{}",
        out.abbreviated_restored
    );
}

#[test]
fn twenty_percent_loss_capacity_two_five_rotating_sets_over_seeds() {
    let mut restored = 0;
    let mut evictions = 0;
    for seed in 1..=40 {
        let out = simulate(seed, 150, 3, 20, None);
        restored += out.abbreviated_restored;
        evictions += out.evictions;
        assert!(out.rounds < 20_000);
    }
    // The cache was really used and really evicted (not a test that cannot fail).
    assert!(restored > 0 && evictions > 0, "{restored} {evictions}");
    eprintln!(
        "pgcache sim: 40 seeds x 2 writers x 150 samples, 20 % loss: {restored} restored, {evictions} evictions"
    );
}

#[test]
fn a_writer_leaving_the_group_loses_nothing_and_gets_nothing_wrongly_restored() {
    for seed in 1..=20 {
        let out = simulate(seed, 120, 10, 20, Some(40));
        assert!(out.abbreviated_restored > 0);
        // The departed writer's definitions and abbreviated samples were refused (counted),
        // and it was repaired in full: the simulation asserted every sample arrived intact.
        assert!(out.refused_non_member > 0, "seed {seed}");
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// split then merge is the identity for any payload and any valid layout inside it.
        #[test]
        fn split_merge_identity(
            payload in proptest::collection::vec(any::<u8>(), 1..400),
            cuts in proptest::collection::vec((0usize..40, 1usize..40), 1..8),
        ) {
            let mut segments = Vec::new();
            let mut pos = 0usize;
            for (gap, len) in cuts {
                let start = pos + gap;
                if start + len > payload.len() {
                    break;
                }
                segments.push(Segment { offset: start as u32, length: len as u32 });
                pos = start + len;
            }
            prop_assume!(!segments.is_empty());
            let (p, rest) = split(&payload, segments).unwrap();
            prop_assert_eq!(merge(&p.segments, &p.common, &rest).unwrap(), payload);
        }

        /// A restore with any rest bytes never panics, and a restored sample always contains
        /// the cached common bytes at the defined offsets.
        #[test]
        fn restore_of_arbitrary_rest_is_exact_or_refused(
            rest in proptest::collection::vec(any::<u8>(), 0..200), set in 0usize..5,
        ) {
            let s = sample(Endianness::Little, set, 3);
            let (def, _) = definition(0, &s);
            let mut cache = GroupCache::new(config(2), 0);
            cache.add_member(guid(1));
            prop_assert_eq!(cache.handle_definition(&guid(1), &def, &s), DefineOutcome::Stored);
            let (p, _) = project(&s);
            match cache.restore(&guid(1), &def.key, &rest) {
                Restore::Full(full) => {
                    prop_assert_eq!(full.len(), rest.len() + p.common.len());
                    let mut at = 0;
                    for seg in def.segments() {
                        let (o, l) = (seg.offset as usize, seg.length as usize);
                        prop_assert_eq!(&full[o..o + l], &p.common[at..at + l]);
                        at += l;
                    }
                }
                Restore::Unknown => {
                    let first = def.segments()[0].offset as usize;
                    prop_assert!(rest.len() < first || rest.len() < s.len() - p.common.len());
                }
                Restore::RefusedNonMember => prop_assert!(false),
            }
        }
    }
}

#[test]
fn spdp_carries_the_capability_only_between_siftdds_participants() {
    use crate::core::discovery::ParticipantProxyData;
    use crate::wire::VendorId;
    let mut p = ParticipantProxyData::new(GuidPrefix([7; 12]), 0);
    p.pgcache = Some(Capability {
        capacity: 2,
        generation: 0x0102_0304,
    });
    for endian in [Endianness::Little, Endianness::Big] {
        let bytes = p.to_payload(endian).unwrap();
        let ours = ParticipantProxyData::from_payload(&bytes, VendorId::SIFTDDS).unwrap();
        assert_eq!(ours.pgcache, p.pgcache);
        // Another vendor's 0x8101 means something else: skipped.
        let theirs = ParticipantProxyData::from_payload(&bytes, VendorId::CYCLONE_DDS).unwrap();
        assert_eq!(theirs.pgcache, None);
    }
    p.pgcache = None;
    let bytes = p.to_payload(Endianness::Little).unwrap();
    let none = ParticipantProxyData::from_payload(&bytes, VendorId::SIFTDDS).unwrap();
    assert_eq!(none.pgcache, None);
    assert_eq!(Capability::from_octets(&[1, 2, 3]), None);
}

#[test]
fn group_configuration_checks() {
    use super::config::{ParticipantMatch, PeerGroupConfig, PeerGroupError, validate_all};
    let router = ParticipantMatch::parse("siftdds-router-*");
    let mut g = PeerGroupConfig::new("fleet", "Vehicle", &["model"], router.clone());
    assert_eq!(g.validate(), Err(PeerGroupError::Empty("members")));
    g.members
        .push(ParticipantMatch::parse("010f0000.00000001.00000002"));
    assert_eq!(
        g.members[0],
        ParticipantMatch::Prefix([1, 0x0f, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2])
    );
    assert_eq!(g.validate(), Ok(()));
    let mut s = g.clone();
    s.sensitive.push("model".into());
    assert_eq!(s.validate(), Err(PeerGroupError::Sensitive("model".into())));
    let mut c = g.clone();
    c.capacity = 0;
    assert_eq!(c.validate(), Err(PeerGroupError::Capacity(0)));
    assert!(matches!(
        validate_all(&[g.clone(), g.clone()]),
        Err(PeerGroupError::DuplicateId(..))
    ));
    let mut other = g.clone();
    other.name = "other".into();
    assert_eq!(validate_all(&[g.clone(), other]), Ok(()));
    assert!(g.is_intermediary(Some("siftdds-router-lan-a"), [0; 12]));
    assert!(!g.is_intermediary(None, [0; 12]));
    assert!(ParticipantMatch::parse("*").matches(None, [0; 12]));
}
