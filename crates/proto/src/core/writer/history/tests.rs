//! Tests of the writer's history: released payloads, the byte limit, out-of-order removal
//! in the window, instance indexing and the room it reports.

use bytes::Bytes;

use super::window::{Entry, MAX_EXTRA_TOMBSTONES};
use super::*;
use crate::core::ChangeKind;
use crate::wire::{EntityId, Guid, GuidPrefix};

fn change(sn: SequenceNumber, len: usize) -> CacheChange {
    CacheChange {
        kind: ChangeKind::Alive,
        writer_guid: Guid {
            prefix: GuidPrefix([1; 12]),
            entity_id: EntityId([0, 0, 1, 2]),
        },
        sequence_number: sn,
        key_hash: None,
        source_timestamp: None,
        data: Bytes::from(vec![0u8; len]),
        coherent_set: None,
        group: None,
        original_writer: None,
    }
}

fn add(h: &mut WriterHistory, len: usize, acked: i64) -> Result<SequenceNumber, AddError> {
    h.add(None, len, SequenceNumber(acked), None, |sn| change(sn, len))
        .map(|(sn, _)| sn)
}

#[test]
fn removed_payloads_are_handed_out_once_and_within_the_bounds() {
    let mut h = WriterHistory::new(History::KeepAll, ResourceLimits::default());
    for len in [100, 200, 300] {
        add(&mut h, len, 0).unwrap();
    }
    h.remove_through(SequenceNumber(2));
    assert_eq!(
        h.take_released().iter().map(Bytes::len).collect::<Vec<_>>(),
        [100, 200]
    );
    assert!(h.take_released().is_empty());
    // Past MAX_RELEASED_BYTES a removed payload is freed at once; a take makes room again.
    let big = MAX_RELEASED_BYTES / 2 + 1;
    let mut h = WriterHistory::new(History::KeepLast(1), ResourceLimits::default());
    for _ in 0..4 {
        add(&mut h, big, 0).unwrap(); // replaces the previous one
    }
    assert_eq!(h.take_released().len(), 1);
    add(&mut h, big, 0).unwrap();
    assert_eq!(h.take_released().len(), 1);
    // And past MAX_RELEASED payloads.
    for _ in 0..MAX_RELEASED + 10 {
        add(&mut h, 1, 0).unwrap();
    }
    assert_eq!(h.take_released().len(), MAX_RELEASED);
}

#[test]
fn the_footprint_estimate_covers_a_window_slot() {
    let estimate = super::super::footprint::ENTRY_SIZE;
    assert!(core::mem::size_of::<Entry>() <= estimate, "{estimate}");
}

#[test]
fn keep_all_refuses_past_the_byte_limit_until_acknowledged() {
    let mut h = WriterHistory::new(History::KeepAll, ResourceLimits::default());
    // The limit counts each change's overhead besides its payload (`footprint.rs`).
    let half = KEEP_ALL_BYTES_LIMIT / 2 - super::super::PER_CHANGE_OVERHEAD;
    assert_eq!(add(&mut h, half, 0), Ok(SequenceNumber(1)));
    assert_eq!(add(&mut h, half, 0), Ok(SequenceNumber(2)));
    assert_eq!(add(&mut h, 1, 0), Err(AddError::Full));
    // Once SN 1 is acknowledged it makes room.
    assert_eq!(add(&mut h, 1, 1), Ok(SequenceNumber(3)));
    assert_eq!(h.len(), 2);
    // A change larger than the limit still goes into an empty history.
    let mut h = WriterHistory::new(History::KeepAll, ResourceLimits::default());
    assert_eq!(
        add(&mut h, KEEP_ALL_BYTES_LIMIT * 2, 0),
        Ok(SequenceNumber(1))
    );
    // KEEP_LAST has no byte limit.
    let mut h = WriterHistory::new(History::KeepLast(1), ResourceLimits::default());
    assert_eq!(add(&mut h, KEEP_ALL_BYTES_LIMIT, 0), Ok(SequenceNumber(1)));
    assert_eq!(add(&mut h, KEEP_ALL_BYTES_LIMIT, 0), Ok(SequenceNumber(2)));
}

#[test]
fn out_of_order_removals_keep_lookups_right_and_the_window_bounded() {
    // KEEP_LAST(1) with one instance written once and another written many times: every
    // replacement removes a change behind the stale one, leaving a tombstone.
    let mut h = WriterHistory::new(History::KeepLast(1), ResourceLimits::default());
    let keyed = |h: &mut WriterHistory, k: u8| {
        let key = Some([k; 16]);
        h.add(key, 8, SequenceNumber(0), None, |sn| CacheChange {
            key_hash: key,
            ..change(sn, 8)
        })
        .map(|(sn, _)| sn)
    };
    assert_eq!(keyed(&mut h, 1), Ok(SequenceNumber(1)));
    for n in 2..=10_000 {
        assert_eq!(keyed(&mut h, 2), Ok(SequenceNumber(n)));
        assert_eq!(h.len(), 2);
    }
    assert!(
        h.window.slots() <= 2 * 2 + MAX_EXTRA_TOMBSTONES,
        "window {}",
        h.window.slots()
    );
    assert_eq!(h.first_sn(), SequenceNumber(1));
    assert!(h.get(SequenceNumber(1)).is_some());
    assert!(h.get(SequenceNumber(9_999)).is_none());
    assert_eq!(
        h.get(SequenceNumber(10_000)).map(|c| c.sequence_number),
        Some(SequenceNumber(10_000))
    );
    assert_eq!(
        h.stored_from(SequenceNumber(2)).collect::<Vec<_>>(),
        [SequenceNumber(10_000)]
    );
    assert_eq!(
        h.next_stored_from(SequenceNumber(0)),
        Some(SequenceNumber(1))
    );
    // Removing the stale front leaves the newest change first.
    assert!(h.remove(SequenceNumber(1)));
    assert!(!h.remove(SequenceNumber(1)));
    assert_eq!(h.first_sn(), SequenceNumber(10_000));
    assert_eq!(h.len(), 1);
    h.remove_through(SequenceNumber(10_000));
    assert_eq!((h.len(), h.first_sn()), (0, SequenceNumber(10_001)));
}

#[test]
fn keep_all_without_instance_limits_does_not_index_instances() {
    let mut h = WriterHistory::new(History::KeepAll, ResourceLimits::default());
    h.add(Some([3; 16]), 4, SequenceNumber(0), None, |sn| {
        change(sn, 4)
    })
    .unwrap();
    assert!(h.instances.is_empty());
    let limits = ResourceLimits {
        max_instances: Length::Limited(1),
        ..ResourceLimits::default()
    };
    let mut h = WriterHistory::new(History::KeepAll, limits);
    h.add(Some([3; 16]), 4, SequenceNumber(0), None, |sn| {
        change(sn, 4)
    })
    .unwrap();
    assert_eq!(
        h.add(Some([4; 16]), 4, SequenceNumber(0), None, |sn| change(
            sn, 4
        ))
        .map(|(s, _)| s),
        Err(AddError::TooManyInstances)
    );
}

#[test]
fn room_counts_unacknowledged_samples_and_bytes() {
    let limits = ResourceLimits {
        max_samples: Length::Limited(10),
        ..ResourceLimits::default()
    };
    let mut h = WriterHistory::new(History::KeepAll, limits);
    assert_eq!(h.room(SequenceNumber(0)), (10, KEEP_ALL_BYTES_LIMIT));
    for _ in 0..3 {
        add(&mut h, 100, 0).unwrap();
    }
    let held = change_footprint(100);
    assert_eq!(
        h.room(SequenceNumber(0)),
        (7, KEEP_ALL_BYTES_LIMIT - 3 * held)
    );
    assert_eq!(h.room(SequenceNumber(2)), (9, KEEP_ALL_BYTES_LIMIT - held));
    // The lower bound holds: exactly that many more samples go in.
    for _ in 0..7 {
        add(&mut h, 100, 0).unwrap();
    }
    assert_eq!(add(&mut h, 100, 0), Err(AddError::Full));
    // An instance limit makes the bound unknown (0).
    let limits = ResourceLimits {
        max_instances: Length::Limited(4),
        ..ResourceLimits::default()
    };
    assert_eq!(
        WriterHistory::new(History::KeepAll, limits).room(SequenceNumber(0)),
        (0, 0)
    );
}
