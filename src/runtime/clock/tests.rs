use super::*;

#[test]
fn manual_clock_moves_only_when_advanced_and_clones_share_time() {
    let clock = ManualClock::new(Instant::from_nanos(5), 1_500_000_000);
    let shared = clock.clone();
    assert_eq!(clock.now(), clock.now());
    shared.advance(core::time::Duration::from_millis(500));
    let now = clock.now();
    assert_eq!(now.mono, Instant::from_nanos(500_000_005));
    assert_eq!(
        now.wall,
        Timestamp {
            seconds: 2,
            fraction: 0
        }
    );
}

#[test]
fn manual_clock_saturates() {
    let clock = ManualClock::new(Instant::from_nanos(u64::MAX - 1), 0);
    clock.advance(core::time::Duration::from_secs(1));
    assert_eq!(clock.now().mono, Instant::from_nanos(u64::MAX));
}

#[test]
fn system_clock_is_monotonic_and_starts_near_zero() {
    let clock = SystemClock::new();
    let a = clock.now();
    let b = clock.now();
    assert!(b.mono >= a.mono);
    assert!(a.mono.as_nanos() < 60_000_000_000);
    assert!(a.wall.seconds > 1_600_000_000, "wall clock after 2020");
}
