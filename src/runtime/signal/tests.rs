//! `Signal` and `Signals`: a notification from another thread ends a wait whose check then
//! succeeds, a notification during the check is not lost, and a wait with nothing to wake it
//! times out.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::*;

#[test]
fn a_notification_from_another_thread_ends_the_wait() {
    let signal = Signal::new();
    let signals = Arc::new(Signals::default());
    signals.add(&signal);
    assert!(signals.any());
    let flag = Arc::new(AtomicBool::new(false));
    let (f, s) = (Arc::clone(&flag), Arc::clone(&signals));
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        f.store(true, Ordering::Release);
        s.notify_all();
    });
    let start = Instant::now();
    let got = signal.wait_until(Duration::from_secs(10), || {
        flag.load(Ordering::Acquire).then_some(7)
    });
    assert_eq!(got, Some(7));
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "woken, not timed out"
    );
    t.join().unwrap();
    signals.remove(&signal);
    assert!(!signals.any());
}

#[test]
fn a_notification_during_the_check_is_not_lost_and_nothing_times_out() {
    let signal = Signal::new();
    let calls = AtomicUsize::new(0);
    // The first check notifies (as the loop would while it runs) and fails; the wait must
    // check again at once instead of sleeping until the timeout.
    let start = Instant::now();
    let got = signal.wait_until(Duration::from_secs(10), || {
        let n = calls.fetch_add(1, Ordering::Relaxed);
        if n == 0 {
            signal.notify();
        }
        (n == 1).then_some(())
    });
    assert_eq!(got, Some(()));
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(
        signal.wait_until(Duration::from_millis(30), || None::<()>),
        None
    );
}
