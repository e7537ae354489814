use super::*;

fn ms(n: u64) -> Instant {
    Instant::from_nanos(n * 1_000_000)
}

#[test]
fn a_silent_instance_misses_once_per_period() {
    let mut d = DeadlineTracker::new(Some(core::time::Duration::from_millis(100)));
    d.touch(Some([1; 16]), ms(0));
    d.touch(Some([2; 16]), ms(50));
    assert_eq!(d.poll_timeout(), Some(ms(100)));
    d.handle_timeout(ms(99));
    assert_eq!(d.poll_missed(), None);
    d.handle_timeout(ms(100));
    assert_eq!(d.poll_missed(), Some(Some([1; 16])));
    assert_eq!(d.poll_missed(), None);
    // Instance 2 is written again in time; instance 1 stays silent.
    d.touch(Some([2; 16]), ms(140));
    d.handle_timeout(ms(200));
    assert_eq!(d.poll_missed(), Some(Some([1; 16])));
    assert_eq!(d.poll_missed(), None);
    assert_eq!(d.status().total_count, 2);
    // A late call counts every whole period elapsed.
    d.handle_timeout(ms(520));
    // Instance 1 (end 300) and 2 (end 240) each missed three periods by 520.
    assert_eq!(d.status().total_count, 2 + 3 + 3);
    assert_eq!(d.poll_timeout(), Some(ms(540)));
}

#[test]
fn removed_and_infinite_instances_never_miss() {
    let mut d = DeadlineTracker::new(Some(core::time::Duration::from_millis(10)));
    d.touch(None, ms(0));
    d.remove(None);
    d.handle_timeout(ms(1000));
    assert_eq!(d.poll_missed(), None);
    let mut inf = DeadlineTracker::new(None);
    inf.touch(None, ms(0));
    assert_eq!(inf.poll_timeout(), None);
}
