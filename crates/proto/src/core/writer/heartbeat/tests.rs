use super::*;

#[test]
fn volume_counts_changes_and_bytes_since_the_last_announcement() {
    let mut a = Announcements::new();
    let limited = Length::Limited(40);
    assert!(!a.by_volume(SequenceNumber(9), limited));
    assert!(
        a.by_volume(SequenceNumber(10), limited),
        "a quarter of max_samples"
    );
    assert!(!a.by_volume(SequenceNumber(4095), Length::Unlimited));
    assert!(a.by_volume(SequenceNumber(4096), Length::Unlimited));
    a.announced(a.next_count(), SequenceNumber(10));
    assert!(!a.by_volume(SequenceNumber(19), limited));
    a.written(KEEP_ALL_BYTES_LIMIT / 4);
    assert!(a.by_volume(SequenceNumber(11), limited), "bytes alone");
    a.announced(a.next_count(), SequenceNumber(11));
    assert!(!a.by_volume(SequenceNumber(11), limited));
}

#[test]
fn liveliness_and_announcements_share_one_increasing_count() {
    let mut a = Announcements::new();
    assert_eq!(a.next_count(), 1);
    a.announced(a.next_count(), SequenceNumber(3));
    assert_eq!(a.take_liveliness_count(), 2);
    assert_eq!(a.next_count(), 3);
    a.written(KEEP_ALL_BYTES_LIMIT / 4);
    a.take_liveliness_count();
    assert!(
        a.by_volume(SequenceNumber(3), Length::Unlimited),
        "a liveliness HEARTBEAT announces no changes: the volume stays"
    );
}
