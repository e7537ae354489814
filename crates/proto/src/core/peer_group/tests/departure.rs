//! A member gone (SEDP dispose or participant lease expiry, docs/peer-group-cache.md §5
//! rule 12): `GroupCache::forget_writer` drops exactly the entries only it defined, reports
//! them as evicted (for the SPDP notices), keeps entries another member defined too or that
//! more than `MAX_DEFINERS` members defined, and a later abbreviated sample with a dropped
//! key is a miss, never a restore.
//! Must not: open sockets, read clocks or files.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use super::{definition, guid, sample};
use crate::cdr::Endianness;
use crate::core::peer_group::intermediary::{DefineOutcome, GroupCache, MAX_DEFINERS, Restore};
use crate::wire::{EntityId, Guid, GuidPrefix};

fn member(n: u8) -> Guid {
    Guid::new(
        GuidPrefix([0x40, n, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9]),
        EntityId([0, 0, 1, 0x02]),
    )
}

#[test]
fn a_departed_member_takes_exactly_the_entries_only_it_defined() {
    let (a, b) = (guid(1), guid(2));
    let mut cache = GroupCache::new(super::config(8), 0);
    cache.add_member(a);
    cache.add_member(b);
    let sets: Vec<_> = (0..3)
        .map(|set| {
            let s = sample(Endianness::Little, set, 7);
            let (d, rest) = definition(0, &s);
            (d, rest, s)
        })
        .collect();
    // Set 0: a alone; set 1: a and b; set 2: b alone.
    for (who, set) in [(a, 0), (a, 1), (b, 1), (b, 2)] {
        let (d, _, s) = &sets[set];
        assert_eq!(cache.handle_definition(&who, d, s), DefineOutcome::Stored);
    }
    assert_eq!(cache.take_evicted(), Vec::<u64>::new());
    assert_eq!(cache.forget_writer(&a), 1);
    assert!(cache.has_evicted());
    assert_eq!(cache.take_evicted(), vec![sets[0].0.key.digest]);
    assert_eq!((cache.len(), cache.stats().departed), (2, 1));
    // a, rediscovered and a member again, still believes set 0 acknowledged: a miss.
    cache.add_member(a);
    let (d0, rest0, _) = &sets[0];
    assert_eq!(cache.restore(&a, &d0.key, rest0), Restore::Unknown);
    // Set 1 (b defined it too) still restores, for either, byte-identical.
    let (d1, rest1, s1) = &sets[1];
    assert_eq!(cache.restore(&a, &d1.key, rest1), Restore::Full(s1.clone()));
    // b goes too: set 1 now had no other definer left (a's departure removed it), set 2
    // only b: both dropped. Forgetting again drops nothing.
    assert_eq!(cache.forget_writer(&b), 2);
    assert_eq!(cache.forget_writer(&b), 0);
    assert!(cache.is_empty());
    assert_eq!(cache.restore(&a, &d1.key, rest1), Restore::Unknown);
}

#[test]
fn an_entry_defined_by_more_members_than_tracked_stays_when_any_goes() {
    let s = sample(Endianness::Little, 1, 3);
    let (d, rest) = definition(0, &s);
    let mut cache = GroupCache::new(super::config(4), 0);
    let n = u8::try_from(MAX_DEFINERS).unwrap() + 1;
    for i in 0..n {
        cache.add_member(member(i));
        assert_eq!(
            cache.handle_definition(&member(i), &d, &s),
            DefineOutcome::Stored
        );
    }
    for i in 0..n {
        assert_eq!(cache.forget_writer(&member(i)), 0);
    }
    // Nobody is a member any more: a newcomer's restore uses the entry.
    cache.add_member(guid(5));
    assert_eq!(cache.restore(&guid(5), &d.key, &rest), Restore::Full(s));
    assert!(!cache.has_evicted());
}

#[test]
fn a_non_member_leaving_changes_nothing() {
    let s = sample(Endianness::Little, 0, 1);
    let (d, rest) = definition(0, &s);
    let mut cache = GroupCache::new(super::config(2), 0);
    cache.add_member(guid(1));
    cache.handle_definition(&guid(1), &d, &s);
    // guid(2) never defined anything (its definition was refused: not a member).
    assert_eq!(
        cache.handle_definition(&guid(2), &d, &s),
        DefineOutcome::RefusedNonMember
    );
    assert_eq!(cache.forget_writer(&guid(2)), 0);
    assert_eq!(cache.restore(&guid(1), &d.key, &rest), Restore::Full(s));
}
