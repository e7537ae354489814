use super::*;

#[test]
fn percentiles_pick_nearest_ranks_in_microseconds() {
    let mut v: Vec<u64> = (1..=100).rev().map(|i| i * 1000).collect();
    assert_eq!(percentiles(&mut v), [51.0, 90.0, 99.0, 100.0]);
    assert_eq!(percentiles(&mut []), [0.0; 4]);
}

#[test]
fn cpu_time_is_readable_on_linux() {
    if std::path::Path::new("/proc/self/stat").exists() {
        assert!(cpu_ticks().is_some());
    }
}
