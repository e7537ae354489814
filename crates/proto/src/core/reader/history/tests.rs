#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
use super::*;
use crate::core::ChangeKind;
use crate::wire::{Guid, SequenceNumber};
use bytes::Bytes;

fn change(key: u8, sn: i64) -> CacheChange {
    CacheChange {
        kind: ChangeKind::Alive,
        writer_guid: Guid::default(),
        sequence_number: SequenceNumber(sn),
        key_hash: Some([key; 16]),
        source_timestamp: None,
        data: Bytes::new(),
        coherent_set: None,
        group: None,
        original_writer: None,
    }
}

fn sns(q: &mut DeliveryQueue) -> Vec<(u8, i64)> {
    std::iter::from_fn(|| q.pop())
        .map(|c| (c.key_hash.unwrap()[0], c.sequence_number.0))
        .collect()
}

#[test]
fn keep_last_replacing_one_instance_behind_an_old_one_keeps_the_ring_bounded() {
    let mut q = DeliveryQueue::new(History::KeepLast(1), ResourceLimits::default(), true);
    q.push_expiring(change(1, 1), None).unwrap();
    for sn in 2..10_000 {
        assert_eq!(
            q.push_expiring(change(2, sn), None),
            Ok(usize::from(sn > 2))
        );
        assert!(
            q.ring.len() <= 2 * q.len() + COMPACT_SLACK,
            "{}",
            q.ring.len()
        );
    }
    assert_eq!(q.len(), 2);
    assert_eq!(sns(&mut q), [(1, 1), (2, 9_999)]);
    assert!(q.instances.is_empty());
}

#[test]
fn a_drained_queue_gives_back_the_memory_of_a_burst() {
    let mut q = DeliveryQueue::new(History::KeepAll, ResourceLimits::default(), false);
    for sn in 0..20_000 {
        q.push_expiring(change(1, sn), None).unwrap();
    }
    assert!(q.ring.capacity() >= 20_000);
    assert_eq!(std::iter::from_fn(|| q.pop()).count(), 20_000);
    assert!(q.ring.capacity() <= IDLE_CAPACITY, "{}", q.ring.capacity());
}

#[test]
fn keep_last_depth_evicts_the_oldest_of_the_instance_only() {
    let mut q = DeliveryQueue::new(History::KeepLast(2), ResourceLimits::default(), true);
    for (key, sn) in [(1, 1), (2, 2), (1, 3), (2, 4), (1, 5), (3, 6), (1, 7)] {
        q.push_expiring(change(key, sn), None).unwrap();
    }
    assert_eq!(sns(&mut q), [(2, 2), (2, 4), (1, 5), (3, 6), (1, 7)]);
}

#[test]
fn keep_all_refuses_a_full_instance_and_an_instance_beyond_max_instances() {
    let limits = ResourceLimits {
        max_samples: Length::Limited(10),
        max_instances: Length::Limited(2),
        max_samples_per_instance: Length::Limited(2),
    };
    let mut q = DeliveryQueue::new(History::KeepAll, limits, true);
    q.push_expiring(change(1, 1), None).unwrap();
    q.push_expiring(change(1, 2), None).unwrap();
    assert!(!q.has_room(Some([1; 16])));
    assert_eq!(q.push_expiring(change(1, 3), None), Err(Rejected));
    q.push_expiring(change(2, 4), None).unwrap();
    assert!(!q.has_room(Some([3; 16])), "a third instance");
    assert_eq!(q.pop().unwrap().sequence_number.0, 1);
    assert!(q.has_room(Some([1; 16])));
    q.push_expiring(change(1, 5), None).unwrap();
    assert_eq!(sns(&mut q), [(1, 2), (2, 4), (1, 5)]);
    assert!(q.has_room(Some([3; 16])), "every instance was taken");
}

#[test]
fn select_any_returns_every_sample_with_its_previous_sample_state() {
    let mut q = DeliveryQueue::new(History::KeepLast(5), ResourceLimits::default(), true);
    q.push_expiring(change(1, 1), None).unwrap();
    q.push_expiring(change(2, 2), None).unwrap();
    assert_eq!(q.read(None).0.len(), 2);
    q.push_expiring(change(1, 3), None).unwrap();
    let all = q.select(false, usize::MAX, |_, _| true);
    let states: Vec<(i64, bool)> = all
        .iter()
        .map(|(c, was_read, _)| (c.sequence_number.0, *was_read))
        .collect();
    assert_eq!(states, [(1, true), (2, true), (3, false)]);
    assert_eq!(q.unread_len(), 0);
    // Again: the same three, all READ now; nothing was removed.
    let again: Vec<bool> = q
        .select(false, usize::MAX, |_, _| true)
        .iter()
        .map(|(_, r, _)| *r)
        .collect();
    assert_eq!(again, [true, true, true]);
    assert_eq!(sns(&mut q).len(), 3);
}

#[test]
fn select_take_removes_from_the_middle_up_to_max_and_keeps_the_chains() {
    let mut q = DeliveryQueue::new(History::KeepLast(3), ResourceLimits::default(), true);
    for (key, sn) in [(1, 1), (2, 2), (1, 3), (2, 4), (2, 5)] {
        q.push_expiring(change(key, sn), None).unwrap();
    }
    let key2 = |c: &CacheChange| c.key_hash == Some([2; 16]);
    let taken = q.select(true, 2, |c, _| key2(c));
    let sns_taken: Vec<i64> = taken.iter().map(|(c, _, _)| c.sequence_number.0).collect();
    assert_eq!(sns_taken, [2, 4]);
    assert_eq!(sns(&mut q), [(1, 1), (1, 3), (2, 5)]);
}

#[test]
fn read_drops_expired_samples_from_the_middle_and_keeps_the_chains() {
    let mut q = DeliveryQueue::new(History::KeepLast(3), ResourceLimits::default(), true);
    q.push_expiring(change(1, 1), None).unwrap();
    q.push_expiring(change(1, 2), Some(100)).unwrap();
    q.push_expiring(change(2, 3), Some(100)).unwrap();
    q.push_expiring(change(1, 4), None).unwrap();
    let (read, expired) = q.read(Some(150));
    assert_eq!(expired, 2);
    assert_eq!(read.len(), 2);
    assert_eq!(q.unread_len(), 0);
    // Instance 1 holds SNs 1 and 4: two more replace SN 1.
    assert_eq!(q.push_expiring(change(1, 5), None), Ok(0));
    assert_eq!(q.push_expiring(change(1, 6), None), Ok(1));
    assert_eq!(sns(&mut q), [(1, 4), (1, 5), (1, 6)]);
}
