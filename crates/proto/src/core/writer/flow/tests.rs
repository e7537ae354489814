//! Unit tests of one reader's flow state (`flow.rs`).

use super::*;

fn t(ms: u64) -> Instant {
    Instant::from_nanos(ms * 1_000_000)
}

fn sn(n: i64) -> SequenceNumber {
    SequenceNumber(n)
}

const RESOLICIT: core::time::Duration = core::time::Duration::from_millis(20);

#[test]
fn the_window_fills_asks_for_an_ack_at_half_and_always_lets_one_change_through() {
    let mut f = Flow::default();
    assert!(f.may_send());
    f.sent(sn(1), 200_000);
    assert!(!f.may_send(), "one change larger than the window fills it");
    assert!(f.wants_ack(t(0), RESOLICIT));
    f.solicited(t(0));
    assert!(!f.wants_ack(t(10), RESOLICIT), "asked, not yet answered");
    assert!(f.wants_ack(t(20), RESOLICIT), "unanswered: asked again");
    f.acknowledged(sn(1), None);
    assert!(f.may_send() && f.in_flight_bytes() == 0);
    assert!(!f.wants_ack(t(20), RESOLICIT));
}

#[test]
fn acks_grow_the_window_and_a_new_loss_halves_it_once_per_episode() {
    let mut f = Flow::default();
    let w0 = f.window();
    for i in 1..=100 {
        f.sent(sn(i), 100);
    }
    f.acknowledged(sn(100), None);
    let w1 = f.window();
    assert!(w1 > w0, "slow start: grows by what was acknowledged");
    for i in 101..=200 {
        f.sent(sn(i), 100);
    }
    f.acknowledged(sn(150), Some(sn(151)));
    assert_eq!(f.window(), w1 / 2);
    assert_eq!(f.recovery_until(), sn(200));
    f.acknowledged(sn(160), Some(sn(170)));
    assert_eq!(f.window(), w1 / 2, "the same episode does not cut again");
    for i in 201..=210 {
        f.sent(sn(i), 100);
    }
    f.acknowledged(sn(200), Some(sn(205)));
    assert_eq!(f.window(), (w1 / 4).max(MIN_WINDOW), "a new loss does");
    for i in 0..20 {
        f.acknowledged(sn(0), Some(sn(1_000 + i)));
    }
    assert_eq!(f.window(), MIN_WINDOW, "never below the minimum");
}

#[test]
fn the_window_is_capped() {
    let mut f = Flow::default();
    let mut next = 1;
    for _ in 0..100 {
        for _ in 0..100 {
            f.sent(sn(next), 10_000);
            next += 1;
        }
        f.acknowledged(sn(next - 1), None);
    }
    assert_eq!(f.window(), MAX_WINDOW);
}

#[test]
fn repairs_just_sent_suppress_duplicate_nacks_until_the_hold_off_ends() {
    let mut f = Flow::default();
    f.repaired(sn(5));
    f.repaired(sn(6));
    f.repairs_sent_at(t(100));
    let mut req = vec![sn(4), sn(5), sn(6)];
    assert_eq!(f.suppress_duplicates(t(110), RESOLICIT, &mut req), 2);
    assert_eq!(req, vec![sn(4)]);
    let mut req = vec![sn(5)];
    f.suppress_duplicates(t(120), RESOLICIT, &mut req);
    assert_eq!(
        req,
        vec![sn(5)],
        "after the hold-off a repeated NACK is answered"
    );
}

#[test]
fn the_release_floor_stops_before_the_oldest_change_in_flight() {
    let mut f = Flow::default();
    assert_eq!(
        f.release_floor(sn(10)),
        sn(9),
        "nothing in flight: up to the cursor"
    );
    f.sent(sn(4), 10);
    f.sent(sn(7), 10);
    assert_eq!(f.release_floor(sn(10)), sn(3));
    f.acknowledged(sn(5), None);
    assert_eq!(f.release_floor(sn(10)), sn(6));
}

#[test]
fn the_heartbeat_interval_grows_with_readers_only_while_writing() {
    let p = core::time::Duration::from_millis(100);
    assert_eq!(heartbeat_interval(p, 1, true, 0), p);
    assert_eq!(heartbeat_interval(p, 32, true, 0), p);
    assert_eq!(heartbeat_interval(p, 100, true, 1), p * 4);
    assert_eq!(heartbeat_interval(p, 1000, true, 0), p * 10, "at most ten");
    assert_eq!(heartbeat_interval(p, 1000, false, 0), p);
    assert_eq!(heartbeat_interval(p, 1000, true, 2), p * 5, "half full");
    assert_eq!(heartbeat_interval(p, 1000, true, 3), p * 10 / 4);
}

#[test]
fn the_fill_level_is_the_fuller_of_samples_and_bytes() {
    assert_eq!(fill_quarters((usize::MAX, usize::MAX), (None, None)), 0);
    assert_eq!(fill_quarters((100, usize::MAX), (Some(100), None)), 0);
    assert_eq!(fill_quarters((50, usize::MAX), (Some(100), None)), 2);
    assert_eq!(fill_quarters((50, 10), (Some(100), Some(100))), 3);
    assert_eq!(fill_quarters((0, 0), (Some(100), Some(100))), 4);
}
