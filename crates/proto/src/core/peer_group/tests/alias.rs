//! Aliases (docs/peer-group-cache.md §4.2, §5 rule 16): an abbreviated sample names the
//! definition SN that bound its key; the intermediary resolves exactly that SN or nothing.
//! Rebinding while old samples are in flight or reordered, a lost definition repaired as a
//! plain DATA (the case a writer-chosen alias number would get wrong), conflicting and
//! evicted bindings, and the writer's periodic re-definition.
//! Must not: open sockets, read clocks or files.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use super::{config, definition, guid, sample};
use crate::cdr::Endianness;
use crate::core::peer_group::alias::MAX_BINDINGS_PER_WRITER;
use crate::core::peer_group::intermediary::{DefineOutcome, GroupCache, Restore};
use crate::core::peer_group::publisher::{Path, PeerCache, REBIND_AFTER, SendAs};
use crate::wire::{Alias, Capability, KeyRef, SequenceNumber};

const G: u32 = 4;

fn sn(n: i64) -> SequenceNumber {
    SequenceNumber(n)
}

fn cache() -> GroupCache {
    let mut c = GroupCache::new(config(8), G);
    c.add_member(guid(1));
    c
}

fn peer() -> PeerCache {
    let mut p = PeerCache::new();
    p.handle_capability(Some(Capability {
        capacity: 8,
        generation: G,
    }));
    p
}

/// The alias a writer would send at `at` for a binding defined at `def`.
fn alias(def: i64, at: i64) -> KeyRef {
    KeyRef::Alias(Alias::for_definition(sn(def), sn(at)).unwrap())
}

#[test]
fn rebinding_with_old_samples_in_flight_restores_each_from_its_own_definition() {
    let (s1, s2) = (
        sample(Endianness::Little, 0, 1),
        sample(Endianness::Little, 1, 2),
    );
    let ((d1, _), (d2, _)) = (definition(G, &s1), definition(G, &s2));
    let mut c = cache();
    // K1 defined at SN 1; samples 2 and 3 name it. The writer moves to K2, defined at SN 4;
    // sample 6 names that. Sample 3 is reordered behind everything.
    assert_eq!(
        c.handle_definition_at(&guid(1), sn(1), &d1, &s1),
        DefineOutcome::Stored
    );
    let (a2, r2) = (
        sample(Endianness::Little, 0, 20),
        sample(Endianness::Little, 0, 30),
    );
    let rest = |p: &[u8]| super::project(p).1;
    assert_eq!(
        c.restore_ref(&guid(1), sn(2), &alias(1, 2), &rest(&a2)),
        Restore::Full(a2.clone())
    );
    assert_eq!(
        c.handle_definition_at(&guid(1), sn(4), &d2, &s2),
        DefineOutcome::Stored
    );
    let b6 = sample(Endianness::Little, 1, 60);
    assert_eq!(
        c.restore_ref(&guid(1), sn(6), &alias(4, 6), &rest(&b6)),
        Restore::Full(b6)
    );
    // The late K1 sample names SN 1, not "the alias's current binding": restored as K1.
    assert_eq!(
        c.restore_ref(&guid(1), sn(3), &alias(1, 3), &rest(&r2)),
        Restore::Full(r2)
    );
    // A reference to SN 4 from a sample before it cannot be formed; one naming SN 1 from
    // after the window (narrow low bits of 1 at SN 300 name 257) resolves to nothing.
    assert_eq!(Alias::for_definition(sn(4), sn(3)), None);
    let stale = KeyRef::Alias(Alias {
        low: 1,
        narrow: true,
    });
    assert_eq!(c.resolve(&guid(1), sn(300), &stale), None);
    assert_eq!(c.stats().hits, 3);
}

/// The case that rules out writer-chosen alias numbers: the writer's ACKNACK shows only
/// that the intermediary's reader has the SN, not that it read the definition (a lost
/// definition is repaired as a plain DATA, rule 4). A writer that had rebound "alias 1" from
/// K1 to K2 would now be restored as K1; naming the definition SN cannot be.
#[test]
fn a_lost_definition_repaired_in_full_is_never_resolved_to_an_older_binding() {
    let (s1, s2) = (
        sample(Endianness::Little, 0, 1),
        sample(Endianness::Little, 1, 2),
    );
    let ((d1, _), (d2, _)) = (definition(G, &s1), definition(G, &s2));
    let mut c = cache();
    let mut p = peer();
    assert_eq!(p.decide(d1.key, sn(1), Path::Unicast), SendAs::Define);
    c.handle_definition_at(&guid(1), sn(1), &d1, &s1);
    p.handle_acknack(sn(2), &[]);
    // K2 defined at SN 257 (its low byte equals SN 1's); that DATA is lost.
    for n in 2..257 {
        assert_eq!(p.decide(d1.key, sn(n), Path::Unicast), SendAs::Abbreviated);
    }
    assert_eq!(p.decide(d2.key, sn(257), Path::Unicast), SendAs::Define);
    // NACKed, repaired as a plain DATA (no definition), then covered by the ACKNACK.
    p.handle_acknack(sn(257), &[sn(257)]);
    assert_eq!(p.decide(d2.key, sn(257), Path::Repair), SendAs::Full);
    p.handle_acknack(sn(258), &[]);
    // The writer believes K2 bound at 257 and names it narrowly: low byte 1, as SN 1's.
    assert_eq!(
        p.decide(d2.key, sn(260), Path::Unicast),
        SendAs::Abbreviated
    );
    let a = p.alias(&d2.key, sn(260)).unwrap();
    assert_eq!(
        a,
        Alias {
            low: 1,
            narrow: true
        }
    );
    let b = sample(Endianness::Little, 1, 260);
    let rest = super::project(&b).1;
    // The intermediary holds SN 1 → K1 but resolves SN 257: unbound, unknown, NACKed.
    assert_eq!(c.resolve(&guid(1), sn(260), &KeyRef::Alias(a)), None);
    assert_eq!(
        c.restore_ref(&guid(1), sn(260), &KeyRef::Alias(a), &rest),
        Restore::Unknown
    );
    assert_eq!(c.stats().unbound_aliases, 1);
    // The NACK makes the writer define K2 again; that binding then serves.
    assert_eq!(p.handle_acknack(sn(260), &[sn(260)]), 1);
    assert_eq!(p.decide(d2.key, sn(261), Path::Unicast), SendAs::Define);
    c.handle_definition_at(&guid(1), sn(261), &d2, &s2);
    p.handle_acknack(sn(262), &[]);
    let a = p.alias(&d2.key, sn(262)).unwrap();
    let b = sample(Endianness::Little, 1, 262);
    assert_eq!(
        c.restore_ref(&guid(1), sn(262), &KeyRef::Alias(a), &super::project(&b).1),
        Restore::Full(b)
    );
}

#[test]
fn refused_conflicting_and_evicted_bindings_resolve_to_nothing() {
    let (s1, s2) = (
        sample(Endianness::Little, 0, 1),
        sample(Endianness::Little, 1, 2),
    );
    let ((d1, _), (d2, _)) = (definition(G, &s1), definition(G, &s2));
    let mut c = cache();
    // A refused definition (bytes that do not match its digest) binds nothing.
    assert_eq!(
        c.handle_definition_at(&guid(1), sn(1), &d1, &s2),
        DefineOutcome::RefusedBadDigest
    );
    assert_eq!(c.resolve(&guid(1), sn(2), &alias(1, 2)), None);
    // Two definitions with one SN naming different keys: that SN resolves to nothing.
    c.handle_definition_at(&guid(1), sn(3), &d1, &s1);
    assert_eq!(c.resolve(&guid(1), sn(4), &alias(3, 4)), Some(d1.key));
    c.handle_definition_at(&guid(1), sn(3), &d2, &s2);
    assert_eq!(c.resolve(&guid(1), sn(4), &alias(3, 4)), None);
    // Another writer's bindings are its own; a non-member is refused.
    assert_eq!(c.resolve(&guid(2), sn(4), &alias(3, 4)), None);
    assert_eq!(
        c.restore_ref(&guid(2), sn(4), &alias(3, 4), &[]),
        Restore::RefusedNonMember
    );
    // Bounded: the oldest definitions' bindings go first.
    for n in 0..MAX_BINDINGS_PER_WRITER as i64 + 10 {
        c.handle_definition_at(&guid(1), sn(100 + n), &d1, &s1);
    }
    assert_eq!(c.bindings_of(&guid(1)), MAX_BINDINGS_PER_WRITER);
    assert_eq!(c.resolve(&guid(1), sn(101), &alias(100, 101)), None);
    let last = 100 + MAX_BINDINGS_PER_WRITER as i64 + 9;
    assert_eq!(
        c.resolve(&guid(1), sn(last + 1), &alias(last, last + 1)),
        Some(d1.key)
    );
    // Leaving the group (or a flush) drops the writer's bindings.
    c.remove_member(&guid(1));
    assert_eq!(c.bindings_of(&guid(1)), 0);
}

#[test]
fn an_old_binding_is_redefined_and_serves_until_the_new_one_is_acknowledged() {
    let s1 = sample(Endianness::Little, 0, 1);
    let (d1, _) = definition(G, &s1);
    let mut p = peer();
    assert_eq!(p.decide(d1.key, sn(1), Path::Unicast), SendAs::Define);
    p.handle_acknack(sn(2), &[]);
    assert!(p.alias(&d1.key, sn(2)).unwrap().narrow);
    assert!(!p.alias(&d1.key, sn(300)).unwrap().narrow);
    // Half a wide window on: the sample defines again; the next ones still name SN 1.
    let due = 1 + REBIND_AFTER;
    assert_eq!(
        p.decide(d1.key, sn(due - 1), Path::Unicast),
        SendAs::Abbreviated
    );
    assert_eq!(p.decide(d1.key, sn(due), Path::Unicast), SendAs::Define);
    assert_eq!(
        p.decide(d1.key, sn(due + 1), Path::Unicast),
        SendAs::Abbreviated
    );
    assert_eq!(
        p.alias(&d1.key, sn(due + 1))
            .unwrap()
            .definition_sn(sn(due + 1)),
        Some(sn(1))
    );
    // Beyond the window without an acknowledgement: no alias (the short key is sent).
    assert_eq!(p.alias(&d1.key, sn(1 + 65_537)), None);
    // Acknowledged: the new definition is the binding.
    p.handle_acknack(sn(due + 2), &[]);
    let a = p.alias(&d1.key, sn(due + 2)).unwrap();
    assert!(a.narrow);
    assert_eq!(a.definition_sn(sn(due + 2)), Some(sn(due)));
}
