//! Clocks: the only place in siftdds where time is read. [`SystemClock`] for real runs,
//! [`ManualClock`] for tests that step time by hand.
//!
//! Must not: be used below `runtime/`; core receives [`Now`] as an argument.
//!
//! RTPS 2.5 §9.3.2 (Time_t, the wall-clock half of [`Now`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::time::{Instant, Now, Timestamp};

/// A source of [`Now`].
pub trait Clock: Send + 'static {
    /// Reads both clocks.
    fn now(&self) -> Now;
}

/// The real clocks: monotonic time since this clock was created, wall time from the OS.
#[derive(Clone, Debug)]
pub struct SystemClock {
    start: std::time::Instant,
}

impl SystemClock {
    /// A clock whose monotonic origin ([`Instant::ZERO`]) is now.
    pub fn new() -> Self {
        SystemClock {
            start: std::time::Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Now {
        let mono = u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let wall = match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => Timestamp::from_unix_nanos(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
            // A wall clock before 1970 is misconfigured; report the epoch.
            Err(_) => Timestamp::ZERO,
        };
        Now {
            mono: Instant::from_nanos(mono),
            wall,
        }
    }
}

/// A clock that moves only when told to. Clones share the same time, so a test can keep one
/// and hand another to the runtime.
#[derive(Clone, Debug)]
pub struct ManualClock {
    mono_nanos: Arc<AtomicU64>,
    wall_unix_nanos: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock at monotonic `mono` and wall time `wall_unix_nanos` after the Unix epoch.
    pub fn new(mono: Instant, wall_unix_nanos: u64) -> Self {
        ManualClock {
            mono_nanos: Arc::new(AtomicU64::new(mono.as_nanos())),
            wall_unix_nanos: Arc::new(AtomicU64::new(wall_unix_nanos)),
        }
    }

    /// Moves both clocks forward by `d` (saturating).
    pub fn advance(&self, d: core::time::Duration) {
        let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        for clock in [&self.mono_nanos, &self.wall_unix_nanos] {
            // fetch_update with a closure that always returns Some cannot fail.
            let _ = clock.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| {
                Some(t.saturating_add(nanos))
            });
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Now {
        Now {
            mono: Instant::from_nanos(self.mono_nanos.load(Ordering::SeqCst)),
            wall: Timestamp::from_unix_nanos(self.wall_unix_nanos.load(Ordering::SeqCst)),
        }
    }
}

#[cfg(test)]
mod tests;
