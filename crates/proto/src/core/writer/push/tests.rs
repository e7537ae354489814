//! The per-change decision of a push burst, alone: which action at which cursor, and how
//! applying it moves the cursor and fills the message.
// Test arithmetic is on small known values; the parent's parse-path lint does not apply.
#![allow(clippy::arithmetic_side_effects)]

use bytes::Bytes;

use super::*;
use crate::core::{CacheChange, ChangeKind};
use crate::qos::{History, ResourceLimits};
use crate::wire::{EntityId, Guid, GuidPrefix, SequenceNumber};

const FRAG: usize = 100;

fn guid() -> Guid {
    Guid::new(GuidPrefix([1; 12]), EntityId([0, 0, 1, 2]))
}

/// A history holding changes 1..=lens.len() with these payload lengths.
fn history(lens: &[usize]) -> WriterHistory {
    let mut h = WriterHistory::new(History::KeepAll, ResourceLimits::default());
    for &len in lens {
        h.add(None, len, SequenceNumber(0), None, |sn| CacheChange {
            kind: ChangeKind::Alive,
            writer_guid: guid(),
            sequence_number: sn,
            key_hash: None,
            source_timestamp: None,
            data: Bytes::from(vec![0u8; len]),
            coherent_set: None,
            group: None,
            original_writer: None,
        })
        .unwrap();
    }
    h
}

fn burst(solo: bool, last: i64) -> Burst {
    Burst {
        solo,
        dst_slot: None,
        any_reliable: true,
        stop: (SequenceNumber(last + 1), 1),
        last: SequenceNumber(last),
        frag_size: FRAG,
    }
}

fn at(sn: i64, frag: u32, gap_from: i64) -> Cursor {
    Cursor {
        sn: SequenceNumber(sn),
        frag,
        gap_from: SequenceNumber(gap_from),
    }
}

fn builder() -> MessageBuilder {
    MessageBuilder::new(guid().prefix, guid().entity_id, None, 1400, 0, false)
}

#[test]
fn a_stored_change_is_data_or_data_frag_by_its_size() {
    let h = history(&[10, 250]);
    let b = burst(false, 2);
    assert_eq!(b.next_action(&h, at(1, 1, 1), false), Action::Data);
    assert_eq!(
        b.next_action(&h, at(2, 1, 2), false),
        Action::DataFrag { total: 3 }
    );
}

#[test]
fn a_replaced_change_is_passed_up_to_the_next_stored_one_or_the_stop() {
    let mut h = history(&[10, 10, 10, 10]);
    assert!(h.remove(SequenceNumber(2)));
    assert!(h.remove(SequenceNumber(3)));
    let b = burst(false, 4);
    assert_eq!(
        b.next_action(&h, at(2, 1, 2), false),
        Action::Replaced {
            end: SequenceNumber(4)
        }
    );
    let stopped = Burst {
        stop: (SequenceNumber(3), 1),
        ..b
    };
    assert_eq!(
        stopped.next_action(&h, at(2, 1, 2), false),
        Action::Replaced {
            end: SequenceNumber(3)
        }
    );
}

#[test]
fn a_solo_readers_pending_gap_goes_first_a_shared_burst_has_none() {
    let h = history(&[10, 10, 10]);
    assert_eq!(
        burst(true, 3).next_action(&h, at(3, 1, 1), false),
        Action::FlushGap
    );
    assert_eq!(
        burst(false, 3).next_action(&h, at(3, 1, 1), false),
        Action::Data
    );
    assert_eq!(
        burst(true, 3).next_action(&h, at(3, 1, 3), false),
        Action::Data
    );
}

#[test]
fn a_multicast_covered_change_is_passed_over_only_solo_and_at_its_first_fragment() {
    let h = history(&[10, 250]);
    assert_eq!(
        burst(true, 2).next_action(&h, at(1, 1, 1), true),
        Action::Covered { delivered: true }
    );
    assert_eq!(
        burst(false, 2).next_action(&h, at(1, 1, 1), true),
        Action::Data
    );
    assert_eq!(
        burst(true, 2).next_action(&h, at(2, 2, 2), true),
        Action::DataFrag { total: 3 }
    );
}

#[test]
fn applying_moves_the_cursor_and_fills_the_message() {
    let mut h = history(&[10, 250, 10, 10]);
    assert!(h.remove(SequenceNumber(3)));
    let shared = burst(false, 4);
    let mut b = builder();
    let mut c = at(1, 1, 1);
    assert!(shared.apply(&h, &mut b, &mut c, Action::Data));
    assert_eq!(c, at(2, 1, 2));
    for frag in 2..=3 {
        assert!(shared.apply(&h, &mut b, &mut c, Action::DataFrag { total: 3 }));
        assert_eq!(c, at(2, frag, 2));
    }
    assert!(shared.apply(&h, &mut b, &mut c, Action::DataFrag { total: 3 }));
    assert_eq!(c, at(3, 1, 3));
    let end = SequenceNumber(4);
    assert!(shared.apply(&h, &mut b, &mut c, Action::Replaced { end }));
    assert_eq!(
        c,
        at(4, 1, 3),
        "a replaced change stays pending for the lazy GAP"
    );
    let (_, sent) = b.finish(Vec::new());
    assert_eq!((sent.data, sent.data_frag, sent.gaps), (1, 3, 1));
}

#[test]
fn a_solo_reader_passes_replaced_changes_silently_and_flushes_them_later() {
    let mut h = history(&[10, 10, 10]);
    assert!(h.remove(SequenceNumber(1)));
    let solo = burst(true, 3);
    let mut b = builder();
    let mut c = at(1, 1, 1);
    let action = solo.next_action(&h, c, false);
    assert_eq!(
        action,
        Action::Replaced {
            end: SequenceNumber(2)
        }
    );
    assert!(solo.apply(&h, &mut b, &mut c, action));
    assert!(!b.has_content());
    assert_eq!(solo.next_action(&h, c, false), Action::FlushGap);
    assert!(solo.apply(&h, &mut b, &mut c, Action::FlushGap));
    assert_eq!(c, at(2, 1, 2));
    assert!(solo.apply(&h, &mut b, &mut c, Action::Covered { delivered: true }));
    assert_eq!(c, at(3, 1, 3));
    assert!(!solo.in_range(at(4, 1, 4)));
    assert!(solo.in_range(c));
}
