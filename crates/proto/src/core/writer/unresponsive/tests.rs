use super::*;

const T: core::time::Duration = core::time::Duration::from_secs(2);

fn at(ms: u64) -> Instant {
    Instant::from_nanos(ms * 1_000_000)
}

#[test]
fn a_reader_without_progress_for_the_timeout_is_marked_once() {
    let mut r = Responsiveness::default();
    assert_eq!(r.check(at(0), true, T), Change::None);
    assert_eq!(r.check(at(1_999), true, T), Change::None);
    assert_eq!(r.check(at(2_000), true, T), Change::MarkedUnresponsive);
    assert!(r.is_unresponsive());
    assert_eq!(r.check(at(5_000), true, T), Change::None);
}

#[test]
fn progress_restarts_the_clock_and_an_unresponsive_reader_recovers_by_acknowledging() {
    let mut r = Responsiveness::default();
    r.check(at(0), true, T);
    assert_eq!(r.acknowledged(3, 5), Change::None);
    assert_eq!(r.check(at(1_500), true, T), Change::None);
    assert_eq!(
        r.check(at(3_000), true, T),
        Change::None,
        "clock restarted at 1.5 s"
    );
    assert_eq!(r.check(at(3_500), true, T), Change::MarkedUnresponsive);
    // The same floor again is no progress.
    assert_eq!(r.acknowledged(5, 5), Change::None);
    assert!(r.is_unresponsive());
    assert_eq!(r.acknowledged(5, 6), Change::Recovered);
    assert!(!r.is_unresponsive());
}

#[test]
fn a_reader_with_nothing_unacknowledged_is_never_marked() {
    let mut r = Responsiveness::default();
    for s in 0..10 {
        assert_eq!(r.check(at(s * 1_000), false, T), Change::None);
    }
    assert!(!r.is_unresponsive());
}
