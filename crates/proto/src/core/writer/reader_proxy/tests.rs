use super::*;
use crate::wire::{EntityId, Guid, GuidPrefix};

fn proxy(start: i64) -> ReaderProxy {
    let remote = RemoteReader {
        guid: Guid::new(GuidPrefix([7; 12]), EntityId([0, 0, 1, 0x07])),
        unicast_locators: Vec::new(),
        multicast_locators: Vec::new(),
        reliable: true,
        expects_inline_qos: false,
        wants_history: false,
    };
    ReaderProxy::new(remote, SequenceNumber(start))
}

#[test]
fn the_push_cursor_never_leaves_a_gap_start_beyond_it() {
    let mut r = proxy(1);
    r.set_push_cursor(SequenceNumber(5), 1, SequenceNumber(9));
    assert_eq!(r.cursor(), (SequenceNumber(5), 1));
    assert_eq!(r.gap_from(), SequenceNumber(5));
    assert_eq!(r.pending_gap(), None);
    r.set_push_cursor(SequenceNumber(8), 1, SequenceNumber(5));
    assert_eq!(
        r.pending_gap(),
        Some((SequenceNumber(5), SequenceNumber(8)))
    );
    r.gap_told(SequenceNumber(5), SequenceNumber(20));
    assert_eq!(
        r.gap_from(),
        SequenceNumber(8),
        "told at most up to the cursor"
    );
    r.skip_to(SequenceNumber(12));
    assert_eq!(
        r.pending_gap(),
        Some((SequenceNumber(8), SequenceNumber(12)))
    );
    r.set_push_cursor(SequenceNumber(12), 2, SequenceNumber(12));
    r.skip_to(SequenceNumber(15));
    assert_eq!(
        r.cursor(),
        (SequenceNumber(12), 2),
        "not in the middle of a fragmented change"
    );
}

#[test]
fn multicast_coverage_is_recorded_once_per_change_and_forgotten_once_passed() {
    let mut r = proxy(1);
    r.record_multicast(SequenceNumber(2));
    r.record_multicast(SequenceNumber(2));
    r.record_multicast(SequenceNumber(4));
    assert!(r.multicast_covered(SequenceNumber(2)));
    assert!(!r.multicast_covered(SequenceNumber(3)));
    assert!(r.multicast_covered(SequenceNumber(4)));
    assert_eq!(r.multicast_covered.len(), 2);
    r.set_push_cursor(SequenceNumber(3), 1, SequenceNumber(3));
    assert!(!r.multicast_covered(SequenceNumber(2)));
    assert!(r.multicast_covered(SequenceNumber(4)));
    assert_eq!(r.multicast_covered.len(), 1);
}

#[test]
fn multicast_coverage_is_capped() {
    let mut r = proxy(1);
    let n = i64::try_from(MAX_MULTICAST_COVERED).unwrap();
    for sn in 1..=n.checked_add(10).unwrap() {
        r.record_multicast(SequenceNumber(sn));
    }
    assert_eq!(r.multicast_covered.len(), MAX_MULTICAST_COVERED);
    assert!(
        !r.multicast_covered(SequenceNumber(10)),
        "the oldest are forgotten"
    );
    assert!(r.multicast_covered(SequenceNumber(n.checked_add(10).unwrap())));
}

#[test]
fn stale_counts_are_refused_and_timers_follow_their_methods() {
    let mut r = proxy(1);
    assert!(r.accept_acknack_count(3));
    assert!(!r.accept_acknack_count(3));
    assert!(!r.accept_acknack_count(2));
    assert!(r.accept_nack_frag_count(1));
    let t = Instant::from_nanos(100);
    r.schedule_heartbeat(t);
    assert!(r.heartbeat_deadline() == Some(t) && r.heartbeat_due(t));
    r.heartbeat_sent();
    assert!(r.heartbeat_deadline().is_none());
    r.schedule_repair(t);
    assert!(!r.repair_due(t), "no request, no repair");
    assert!(r.request(SequenceNumber(1), SequenceNumber(1)));
    assert!(r.repair_due(t));
    assert_eq!(r.deadline(), Some(t));
    r.repairs_sent();
    assert_eq!(r.deadline(), None);
}
