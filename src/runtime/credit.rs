//! The pipelined-write credit of one writer: how many more writes, and payload bytes, its
//! handle may hand to the event loop without waiting for their outcome
//! ([`RuntimeHandle::write`](super::RuntimeHandle::write)).
//!
//! Must not: read the protocol or the clock (the room it grants is what the writer's history
//! reported, passed in by the caller), or grant a write the history might refuse.
//!
//! # Invariant
//! While enabled, the credit (`samples`, `bytes`) never exceeds the room the writer's history
//! reported at the last write that waited (capped at [`MAX_PIPELINED_WRITES`] samples), less
//! what was taken since. The history's room only grows until the writes that took credit use
//! it, so a write that took credit cannot find the history full: its outcome need not be
//! awaited. Disabled (the default), no credit is taken; enabling or disabling zeroes it, so
//! the first write after either waits and learns the room.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Pipelined writes handed to the event loop between two writes that wait for it: bounds
/// the queue when the history itself is unbounded (KEEP_LAST) and how stale the writer's
/// view of its history room gets.
pub const MAX_PIPELINED_WRITES: usize = 256;

/// One writer's credit for writes handed over without waiting (see the module header).
#[derive(Debug, Default)]
pub struct WriteCredit {
    /// Writes may be handed over without waiting at all.
    enabled: AtomicBool,
    /// Writes that may still be handed over without waiting…
    samples: AtomicUsize,
    /// …and the payload bytes they may take in the history in all.
    bytes: AtomicUsize,
}

impl WriteCredit {
    /// A disabled credit (every write waits).
    pub fn new() -> Self {
        Self::default()
    }

    /// Turns pipelining on or off; either way the credit starts again from zero.
    pub fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed);
        self.samples.store(0, Ordering::Relaxed);
        self.bytes.store(0, Ordering::Relaxed);
    }

    /// True when writes may be handed over without waiting (given credit).
    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Takes the credit for one write of `len` payload bytes (as stored in the history), if
    /// pipelining is on and there is enough of both; false leaves the credit as it was.
    pub fn try_take(&self, len: usize) -> bool {
        if !self.is_enabled() {
            return false;
        }
        let sub = |n: usize| move |c: usize| c.checked_sub(n);
        if self
            .bytes
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, sub(len))
            .is_err()
        {
            return false;
        }
        if self
            .samples
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, sub(1))
            .is_err()
        {
            self.bytes.fetch_add(len, Ordering::AcqRel);
            return false;
        }
        true
    }

    /// Grants the room (`samples`, `bytes`) the history reported right after a write that
    /// waited, replacing what was left; `samples` is capped at [`MAX_PIPELINED_WRITES`].
    pub fn refill(&self, (samples, bytes): (usize, usize)) {
        self.bytes.store(bytes, Ordering::Release);
        self.samples
            .store(samples.min(MAX_PIPELINED_WRITES), Ordering::Release);
    }
}

#[cfg(test)]
mod tests;
