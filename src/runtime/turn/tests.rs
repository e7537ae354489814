use std::time::Duration;

use super::{Turn, TurnProfile};

fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

#[test]
fn quantiles_are_the_upper_edges_of_the_buckets_per_phase() {
    let mut p = TurnProfile::new();
    for i in 1..=10 {
        p.record(Turn {
            receive: us(i),
            work: us(1),
            flush: us(2),
            send: us(1),
        });
    }
    assert_eq!(p.turns(), 10);
    // Receive: 1..=10 µs; the 5th is 5 µs, in the bucket [5.0, 5.1).
    assert_eq!(p.quantile(1, 0.5), Duration::from_nanos(5_100));
    assert_eq!(p.quantile(1, 0.9), Duration::from_nanos(9_100));
    // Total: receive + work + flush = i + 3 µs.
    assert_eq!(p.quantile(0, 0.5), Duration::from_nanos(8_100));
    assert_eq!(p.quantile(4, 0.5), Duration::from_nanos(1_100));
    assert!(
        p.summary()
            .starts_with("forwarding turns 10: total p50 8.1 p90 12.1 us;")
    );
}

#[test]
fn a_turn_longer_than_the_histogram_lands_in_its_last_bucket() {
    let mut p = TurnProfile::new();
    p.record(Turn {
        receive: Duration::from_secs(3600),
        ..Turn::default()
    });
    assert_eq!(p.quantile(1, 0.5), us(100));
    assert_eq!(p.quantile(7, 0.5), Duration::ZERO);
    assert_eq!(TurnProfile::new().quantile(0, 0.5), Duration::ZERO);
}
