//! Waits evaluated on the loop thread: `RuntimeHandle::wait_for` hands its check to the loop,
//! which runs it when registered and after every wakeup that handled input or commands, and
//! wakes the waiting thread once, with the result. A waiting thread thus costs one wake-up
//! per satisfied wait instead of a round trip to the loop per check.
//!
//! Must not: run a check after its waiter gave up (a check may have side effects, e.g. a
//! write that succeeds), or block the loop (a check is bounded work; the slot's lock is held
//! only while it runs, and the waiter takes it only to read or cancel).

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use crate::time::Now;

/// How often a waiter past its deadline looks again while the loop has not run its check yet
/// (it is also notified when the check first runs).
const UNTRIED_RECHECK: std::time::Duration = std::time::Duration::from_millis(10);

enum State<R> {
    /// Not decided yet; `tried` once the check has run (and returned `None`) at least once.
    Pending {
        tried: bool,
    },
    Done(R),
    /// The waiter gave up (timeout) or took the result.
    Closed,
    /// The loop stopped before the check succeeded.
    Stopped,
}

/// Where the loop puts a wait's result.
pub(crate) struct Slot<R> {
    state: Mutex<State<R>>,
    done: Condvar,
}

/// How a wait ended.
pub(crate) enum Outcome<R> {
    Done(R),
    TimedOut,
    Stopped,
}

impl<R> Slot<R> {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Slot {
            state: Mutex::new(State::Pending { tried: false }),
            done: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State<R>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until the loop delivered a result, the loop stopped, or `deadline` passed
    /// after the check ran at least once; on timeout the slot is closed, so the check never
    /// runs again. A check the loop has not reached yet (it is busy, or starved of CPU) is
    /// waited for past the deadline: a write queued behind other work has not been blocked
    /// by its resource limits, and must not fail as if it had (DDS 1.4 §2.2.2.4.2.11).
    pub(crate) fn wait(&self, deadline: Instant) -> Outcome<R> {
        let mut s = self.lock();
        loop {
            let tried = match std::mem::replace(&mut *s, State::Closed) {
                State::Done(r) => return Outcome::Done(r),
                State::Stopped => return Outcome::Stopped,
                State::Closed => return Outcome::TimedOut,
                State::Pending { tried } => tried,
            };
            *s = State::Pending { tried };
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() && tried {
                *s = State::Closed;
                return Outcome::TimedOut;
            }
            // Past the deadline and not tried yet: the loop notifies after the first check.
            let left = if left.is_zero() {
                UNTRIED_RECHECK
            } else {
                left
            };
            s = self
                .done
                .wait_timeout(s, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// A registered wait, as the loop sees it. Dropping it (the loop stopped, or panicked)
/// releases its waiter with [`Outcome::Stopped`] if it was still pending.
pub(crate) trait Waiter<P>: Send {
    /// Runs the check unless the waiter gave up; true when the wait is over (drop it).
    fn poll(&mut self, protocol: &mut P, now: Now) -> bool;

    /// True when its waiter gave up and it only waits to be dropped (a dropped future,
    /// `future.rs`): the loop drops such waits when told to, without running any check.
    fn withdrawn(&self) -> bool {
        false
    }
}

/// A check and the slot its result goes to.
pub(crate) struct Wait<R, F> {
    pub(crate) slot: Arc<Slot<R>>,
    pub(crate) check: F,
}

impl<P, R, F> Waiter<P> for Wait<R, F>
where
    R: Send,
    F: FnMut(&mut P, Now) -> Option<R> + Send,
{
    fn poll(&mut self, protocol: &mut P, now: Now) -> bool {
        let mut s = self.slot.lock();
        let State::Pending { tried } = *s else {
            return true;
        };
        match (self.check)(protocol, now) {
            Some(r) => {
                *s = State::Done(r);
                drop(s);
                self.slot.done.notify_one();
                true
            }
            None => {
                *s = State::Pending { tried: true };
                if !tried {
                    // A waiter past its deadline is waiting for this first verdict.
                    drop(s);
                    self.slot.done.notify_one();
                }
                false
            }
        }
    }
}

impl<R, F> Drop for Wait<R, F> {
    fn drop(&mut self) {
        let mut s = self.slot.lock();
        if matches!(*s, State::Pending { .. }) {
            *s = State::Stopped;
            drop(s);
            self.slot.done.notify_one();
        }
    }
}

/// A check that stays registered: it runs after every wakeup that did something until it
/// returns true (a DATA_AVAILABLE listener run on the loop thread).
pub(crate) struct Listener<F>(pub(crate) F);

impl<P, F> Waiter<P> for Listener<F>
where
    F: FnMut(&mut P, Now) -> bool + Send,
{
    fn poll(&mut self, protocol: &mut P, now: Now) -> bool {
        (self.0)(protocol, now)
    }
}
