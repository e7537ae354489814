use super::*;

#[test]
fn half_second_is_half_of_two_to_the_32() {
    let t = Timestamp::from_unix_nanos(1_500_000_000);
    assert_eq!(
        t,
        Timestamp {
            seconds: 1,
            fraction: 0x8000_0000
        }
    );
    assert_eq!(t.to_unix_nanos(), Some(1_500_000_000));
}

#[test]
fn infinite_duration_has_no_std_value() {
    assert_eq!(Duration::INFINITE.to_std(), None);
    assert!(
        Duration {
            seconds: 0x7fff_ffff,
            fraction: 0x7fff_ffff
        }
        .is_infinite()
    );
    assert_eq!(
        Duration::from_std(core::time::Duration::from_secs(u64::MAX)),
        Duration::INFINITE
    );
}

#[test]
fn duration_round_trips_milliseconds() {
    let d = core::time::Duration::from_millis(250);
    let back = Duration::from_std(d).to_std().unwrap_or_default();
    assert!(back.as_nanos().abs_diff(d.as_nanos()) <= 1);
}
