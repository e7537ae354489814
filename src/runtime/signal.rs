//! Wake-ups for threads that wait on conditions evaluated elsewhere (the WaitSet of the
//! public API): a [`Signal`] a waiting thread blocks on, and the [`Signals`] a condition
//! notifies when its trigger may have become true (from the loop thread's listeners, or from
//! an application thread that sets a guard condition).
//!
//! Must not: evaluate conditions itself, or hold a lock while a check runs (the check may
//! call into the loop). DDS 1.4 §2.2.2.1.6 (WaitSet::wait blocks until a condition triggers).

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

/// What a waiting thread blocks on: a generation count bumped by each notification.
#[derive(Debug, Default)]
pub struct Signal {
    generation: Mutex<u64>,
    changed: Condvar,
}

impl Signal {
    /// A new signal.
    pub fn new() -> Arc<Self> {
        Arc::new(Signal::default())
    }

    fn lock(&self) -> MutexGuard<'_, u64> {
        self.generation
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Wakes every thread waiting on this signal.
    pub fn notify(&self) {
        let mut g = self.lock();
        *g = g.wrapping_add(1);
        drop(g);
        self.changed.notify_all();
    }

    /// Runs `check` until it returns `Some` or `timeout` passes, again after each
    /// notification (a notification that comes while `check` runs is not lost). `check` runs
    /// at least once.
    pub fn wait_until<R>(
        &self,
        timeout: Duration,
        mut check: impl FnMut() -> Option<R>,
    ) -> Option<R> {
        let deadline = Instant::now().checked_add(timeout);
        loop {
            let seen = *self.lock();
            if let Some(r) = check() {
                return Some(r);
            }
            let mut g = self.lock();
            while *g == seen {
                let left = match deadline {
                    Some(d) => d.saturating_duration_since(Instant::now()),
                    None => Duration::from_secs(3600),
                };
                if left.is_zero() {
                    return None;
                }
                g = self
                    .changed
                    .wait_timeout(g, left)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
            }
        }
    }
}

/// The signals of the waiters a condition is attached to.
#[derive(Debug, Default)]
pub struct Signals {
    attached: Mutex<Vec<Weak<Signal>>>,
}

impl Signals {
    fn lock(&self) -> MutexGuard<'_, Vec<Weak<Signal>>> {
        self.attached.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Attaches `signal` (once).
    pub fn add(&self, signal: &Arc<Signal>) {
        let mut a = self.lock();
        a.retain(|w| w.strong_count() > 0);
        if !a.iter().any(|w| w.as_ptr() == Arc::as_ptr(signal)) {
            a.push(Arc::downgrade(signal));
        }
    }

    /// Detaches `signal`.
    pub fn remove(&self, signal: &Arc<Signal>) {
        self.lock()
            .retain(|w| w.strong_count() > 0 && w.as_ptr() != Arc::as_ptr(signal));
    }

    /// Notifies every attached signal.
    pub fn notify_all(&self) {
        let attached: Vec<Arc<Signal>> = self.lock().iter().filter_map(Weak::upgrade).collect();
        for s in attached {
            s.notify();
        }
    }

    /// True if some waiter is attached (a condition nobody waits on need not notify).
    pub fn any(&self) -> bool {
        self.lock().iter().any(|w| w.strong_count() > 0)
    }
}

#[cfg(test)]
mod tests;
