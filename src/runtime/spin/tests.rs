//! The spin policy read from its two variables, and when a spin yields.

use std::time::Duration;

use super::*;

const fn us(n: u64) -> Duration {
    Duration::from_micros(n)
}

#[test]
fn unset_variables_give_the_default_spin_with_yields() {
    let p = SpinPolicy::parse(None, None);
    assert_eq!(
        p,
        SpinPolicy {
            busy: DEFAULT_BUSY_POLL,
            total: DEFAULT_SPIN
        }
    );
}

#[test]
fn values_are_microseconds_capped_at_the_maximum() {
    let p = SpinPolicy::parse(Some("200"), Some(" 30 "));
    assert_eq!(
        p,
        SpinPolicy {
            busy: us(30),
            total: us(200)
        }
    );
    let p = SpinPolicy::parse(Some("99999999"), Some("99999999"));
    assert_eq!(
        p,
        SpinPolicy {
            busy: MAX_SPIN,
            total: MAX_SPIN
        }
    );
}

#[test]
fn a_busy_part_longer_than_the_total_extends_it() {
    let p = SpinPolicy::parse(Some("10"), Some("80"));
    assert_eq!(
        p,
        SpinPolicy {
            busy: us(80),
            total: us(80)
        }
    );
    let p = SpinPolicy::parse(None, Some("80"));
    assert_eq!(p.total, us(80).max(DEFAULT_SPIN));
}

#[test]
fn a_value_that_is_not_a_number_is_the_default() {
    let p = SpinPolicy::parse(Some("fast"), Some("-3"));
    assert_eq!(
        p,
        SpinPolicy {
            busy: DEFAULT_BUSY_POLL,
            total: DEFAULT_SPIN
        }
    );
}

#[test]
fn zero_turns_the_spin_off() {
    let p = SpinPolicy::parse(Some("0"), Some("0"));
    assert_eq!(
        p,
        SpinPolicy {
            busy: us(0),
            total: us(0)
        }
    );
}

#[test]
fn an_armed_spin_keeps_the_core_during_the_busy_part_only() {
    let p = SpinPolicy {
        busy: us(40),
        total: us(100),
    };
    assert!(!p.yields(us(0), true));
    assert!(!p.yields(us(39), true));
    assert!(p.yields(us(40), true));
    assert!(p.yields(us(99), true));
}

#[test]
fn after_a_spin_that_found_nothing_the_next_one_yields_from_the_start() {
    let p = SpinPolicy {
        busy: us(40),
        total: us(100),
    };
    assert!(p.yields(us(0), false));
}
