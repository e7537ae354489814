//! The replay buffer alone: window, bounds, order, renamed proxies.

use bytes::Bytes;

use super::*;
use crate::core::ChangeKind;
use crate::wire::{EntityId, Guid, GuidPrefix, SequenceNumber};

fn at(ms: u64) -> Instant {
    Instant::from_nanos(ms * 1_000_000)
}

fn change(sn: i64, len: usize) -> CacheChange {
    CacheChange {
        kind: ChangeKind::Alive,
        writer_guid: Guid::new(GuidPrefix([1; 12]), EntityId([0, 0, 1, 0x02])),
        sequence_number: SequenceNumber(sn),
        key_hash: None,
        source_timestamp: None,
        data: Bytes::from(vec![0u8; len]),
        original_writer: None,
        coherent_set: None,
        group: None,
    }
}

fn sns(r: &Replay) -> Vec<i64> {
    r.recent()
        .iter()
        .map(|(_, c)| c.sequence_number.0)
        .collect()
}

#[test]
fn keeps_the_window_in_arrival_order_and_expires_what_is_older() {
    let mut r = Replay::new(Duration::from_secs(6));
    for sn in 1..=10 {
        r.keep(at(sn as u64 * 1000), 7, &change(sn, 4));
    }
    // At 10 s: kept from 4 s on (10 − 6).
    assert_eq!(sns(&r), (4..=10).collect::<Vec<_>>());
    assert_eq!(r.len(), (7, 28));
    r.expire(at(20_000));
    assert!(r.is_empty());
    assert_eq!(r.len(), (0, 0));
    assert_eq!(r.counters().evicted, 0);
}

#[test]
fn is_bounded_by_changes_and_bytes_oldest_first() {
    let mut r = Replay::new(Duration::from_secs(3600));
    for sn in 0..(MAX_REPLAY_CHANGES as i64 + 10) {
        r.keep(at(1), 1, &change(sn, 0));
    }
    assert_eq!(r.len().0, MAX_REPLAY_CHANGES);
    assert_eq!(r.counters().evicted, 10);
    assert_eq!(sns(&r).first(), Some(&10));
    let mut r = Replay::new(Duration::from_secs(3600));
    let big = MAX_REPLAY_BYTES / 4;
    for sn in 1..=6 {
        r.keep(at(1), 1, &change(sn, big));
    }
    assert_eq!(sns(&r), vec![3, 4, 5, 6]);
    assert_eq!(r.len().1, MAX_REPLAY_BYTES);
    // A single change larger than the bound is not kept.
    r.keep(at(1), 1, &change(7, MAX_REPLAY_BYTES + 1));
    assert!(r.is_empty());
}

#[test]
fn a_replaced_proxy_hands_its_changes_to_its_successor() {
    let mut r = Replay::new(Duration::from_secs(6));
    r.keep(at(1), 1, &change(1, 0));
    r.keep(at(2), 2, &change(2, 0));
    r.keep(at(3), 1, &change(3, 0));
    r.rename(1, 9);
    let proxies: Vec<EndpointId> = r.recent().iter().map(|(p, _)| *p).collect();
    assert_eq!(proxies, vec![9, 2, 9]);
    r.replayed(2);
    r.replayed(0);
    assert_eq!(
        r.counters(),
        ReplayCounters {
            evicted: 0,
            replays: 2,
            replayed: 2
        }
    );
}
