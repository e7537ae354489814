//! Coherent-set assembly on its own: changes handed over in SN order, what comes out.
#![allow(clippy::arithmetic_side_effects)]

use bytes::Bytes;

use super::*;
use crate::core::ChangeKind;
use crate::wire::Guid;

fn sample(sn: i64, set: Option<i64>) -> Option<CacheChange> {
    Some(CacheChange {
        kind: ChangeKind::Alive,
        writer_guid: Guid::default(),
        sequence_number: SequenceNumber(sn),
        key_hash: None,
        source_timestamp: None,
        data: Bytes::from_static(&[0, 1, 0, 0, 7]),
        coherent_set: set.map(SequenceNumber),
        group: None,
        original_writer: None,
    })
}

fn marker(sn: i64) -> Option<CacheChange> {
    Some(CacheChange {
        data: Bytes::new(),
        coherent_set: Some(SequenceNumber::UNKNOWN),
        group: None,
        ..sample(sn, None).unwrap()
    })
}

/// Runs `slots` (SN, slot) through `c`; returns the delivered SNs and the dropped count.
fn run(c: &mut CoherentSets, slots: Vec<(i64, Option<CacheChange>)>) -> (Vec<i64>, u64) {
    let mut out = Vec::new();
    let mut dropped = 0;
    for (sn, slot) in slots {
        dropped += c.pass(SequenceNumber(sn), slot, &mut |ch| {
            out.push(ch.sequence_number.0)
        });
    }
    (out, dropped)
}

#[test]
fn an_incomplete_set_is_never_delivered() {
    let mut c = CoherentSets::new(true);
    let (out, _) = run(
        &mut c,
        vec![(1, sample(1, Some(1))), (2, sample(2, Some(1)))],
    );
    assert!(out.is_empty(), "nothing before the set ends: {out:?}");
    assert_eq!(c.held(), 2);
    let (out, dropped) = run(&mut c, vec![(3, marker(3))]);
    assert_eq!((out, dropped), (vec![1, 2], 0));
    assert_eq!(c.held(), 0);
}

#[test]
fn the_next_set_or_a_plain_sample_ends_a_set() {
    let mut c = CoherentSets::new(true);
    let (out, _) = run(
        &mut c,
        vec![
            (1, sample(1, Some(1))),
            (2, sample(2, Some(1))),
            (3, sample(3, Some(3))),
            (4, sample(4, None)),
        ],
    );
    assert_eq!(out, vec![1, 2, 3, 4]);
}

#[test]
fn a_set_whose_head_was_not_seen_is_dropped_whole() {
    // Matched mid-set (or its first change lost before we knew it): 5 and 6 belong to the
    // set that began at 4.
    let mut c = CoherentSets::new(true);
    let (out, dropped) = run(
        &mut c,
        vec![
            (5, sample(5, Some(4))),
            (6, sample(6, Some(4))),
            (7, marker(7)),
        ],
    );
    assert_eq!((out, dropped), (vec![], 2));
    // The next set is complete again.
    let (out, _) = run(&mut c, vec![(8, sample(8, Some(8))), (9, marker(9))]);
    assert_eq!(out, vec![8]);
}

#[test]
fn a_loss_inside_a_set_drops_it_and_repair_first_delivers_it() {
    // Best effort: SN 2 lost while the set is open.
    let mut c = CoherentSets::new(true);
    run(&mut c, vec![(1, sample(1, Some(1)))]);
    assert_eq!(c.lost(), 1);
    let (out, dropped) = run(&mut c, vec![(3, sample(3, Some(1))), (4, marker(4))]);
    assert_eq!((out, dropped), (vec![], 1));
    // Reliable: the writer proxy holds 3 until the repair of 2 arrives, so the slots come in
    // order and the set is whole.
    let mut c = CoherentSets::new(true);
    let (out, _) = run(
        &mut c,
        vec![
            (1, sample(1, Some(1))),
            (2, sample(2, Some(1))),
            (3, sample(3, Some(1))),
            (4, marker(4)),
        ],
    );
    assert_eq!(out, vec![1, 2, 3]);
}

#[test]
fn a_gap_inside_a_set_is_not_a_loss() {
    // SN 2 is irrelevant for this reader (GAP: filtered out by the writer): the set holds
    // 1 and 3 and is complete.
    let mut c = CoherentSets::new(true);
    let (out, dropped) = run(
        &mut c,
        vec![
            (1, sample(1, Some(1))),
            (2, None),
            (3, sample(3, Some(1))),
            (4, marker(4)),
        ],
    );
    assert_eq!((out, dropped), (vec![1, 3], 0));
    // A set whose first change was the irrelevant one still started completely.
    let (out, dropped) = run(
        &mut c,
        vec![(5, None), (6, sample(6, Some(5))), (7, marker(7))],
    );
    assert_eq!((out, dropped), (vec![6], 0));
    // A GAP range skipped in one step (`irrelevant`) counts the same.
    c.irrelevant(SequenceNumber(8));
    let (out, _) = run(&mut c, vec![(12, sample(12, Some(8))), (13, marker(13))]);
    assert_eq!(out, vec![12]);
}

#[test]
fn without_coherent_access_everything_passes_but_the_marker() {
    let mut c = CoherentSets::new(false);
    let (out, dropped) = run(
        &mut c,
        vec![
            (1, sample(1, Some(1))),
            (2, sample(2, Some(1))),
            (3, marker(3)),
            (4, sample(4, None)),
        ],
    );
    assert_eq!((out, dropped), (vec![1, 2, 4], 0));
}

#[test]
fn an_oversized_set_is_dropped_not_grown() {
    let mut c = CoherentSets::new(true);
    let n = i64::try_from(MAX_HELD_CHANGES).unwrap() + 1;
    let slots = (1..=n).map(|sn| (sn, sample(sn, Some(1)))).collect();
    let (out, dropped) = run(&mut c, slots);
    assert!(out.is_empty());
    assert_eq!(dropped, u64::try_from(n).unwrap());
    assert_eq!(c.held(), 0);
    let (out, _) = run(&mut c, vec![(n + 1, marker(n + 1))]);
    assert!(out.is_empty());
}
