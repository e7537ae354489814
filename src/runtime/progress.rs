//! A generation counter the loop bumps after a wakeup that handled input (datagrams or due
//! timers), so that threads waiting for protocol state (`RuntimeHandle::wait_for`) wake on
//! progress instead of polling on a timer.
//!
//! Must not: make the loop pay for a system call when nobody waits (the condition variable
//! is signalled only with waiters registered), or be used by anything outside `runtime`.

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

#[derive(Default)]
struct State {
    generation: u64,
    waiters: u32,
}

/// Progress made by the loop, for waiters on other threads.
#[derive(Default)]
pub(crate) struct Progress {
    state: Mutex<State>,
    changed: Condvar,
}

impl Progress {
    /// The current generation.
    pub(crate) fn generation(&self) -> u64 {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).generation
    }

    /// Called by the loop after input was handled: a new generation, waking any waiter.
    pub(crate) fn bump(&self) {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.generation = s.generation.wrapping_add(1);
        if s.waiters > 0 {
            drop(s);
            self.changed.notify_all();
        }
    }

    /// Waits until the generation differs from `seen` or `deadline` passes.
    pub(crate) fn wait_past(&self, seen: u64, deadline: Instant) {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.waiters = s.waiters.saturating_add(1);
        while s.generation == seen {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            s = self.changed.wait_timeout(s, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        s.waiters = s.waiters.saturating_sub(1);
    }
}
