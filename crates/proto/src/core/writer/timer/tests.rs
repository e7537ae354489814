use super::*;

/// Deadlines in the tables' own terms: only their order matters.
const fn due(n: u64) -> Instant {
    Instant::from_nanos(n)
}

#[test]
fn set_earliest_keeps_the_earlier_deadline_and_next_timeout_is_the_minimum() {
    let mut t: TimerTable<ReaderTimer, 2> = TimerTable::new();
    assert_eq!(t.next_timeout(), None);
    t.set_earliest(ReaderTimer::Heartbeat, due(50));
    t.set_earliest(ReaderTimer::Heartbeat, due(80));
    assert_eq!(t.get(ReaderTimer::Heartbeat), Some(due(50)));
    t.set_earliest(ReaderTimer::Repair, due(20));
    assert_eq!(t.next_timeout(), Some(due(20)));
    assert!(!t.is_due(ReaderTimer::Repair, due(19)));
    assert!(t.is_due(ReaderTimer::Repair, due(20)));
    t.stop(ReaderTimer::Repair);
    assert_eq!(t.get(ReaderTimer::Repair), None);
    assert!(!t.is_due(ReaderTimer::Repair, due(100)));
    assert_eq!(t.next_timeout(), Some(due(50)));
}

#[test]
fn set_replaces_and_none_stops() {
    let mut t: TimerTable<WriterTimer, 1> = TimerTable::new();
    t.set(WriterTimer::Heartbeat, Some(due(30)));
    t.set(WriterTimer::Heartbeat, Some(due(90)));
    assert_eq!(t.get(WriterTimer::Heartbeat), Some(due(90)));
    t.set(WriterTimer::Heartbeat, None);
    assert_eq!(t.next_timeout(), None);
}
