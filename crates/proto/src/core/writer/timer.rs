//! Timer tables: one optional deadline per timer kind, as quinn-proto's `TimerTable`, for the
//! writer (its periodic HEARTBEAT) and for each matched reader (repairs, an owed HEARTBEAT).
//!
//! Must not: read a clock (every query takes `now`), or decide what happens on expiry (the
//! owner does). No I/O.
//!
//! RTPS 2.5 §8.4.7.1 (heartbeatPeriod, nackResponseDelay), §8.4.9.2.7, §8.4.9.2.12.

use core::marker::PhantomData;

use crate::time::Instant;

/// The writer's own timers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum WriterTimer {
    /// The next periodic HEARTBEAT, armed while reliable readers have unacknowledged
    /// changes. RTPS 2.5 §8.4.9.2.7.
    Heartbeat,
}

impl From<WriterTimer> for usize {
    fn from(t: WriterTimer) -> usize {
        match t {
            WriterTimer::Heartbeat => 0,
        }
    }
}

/// A matched reader's timers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum ReaderTimer {
    /// Requested repairs go out (after nack_response_delay). RTPS 2.5 §8.4.7.1.
    Repair,
    /// A HEARTBEAT addressed to this reader is owed.
    Heartbeat,
}

impl From<ReaderTimer> for usize {
    fn from(t: ReaderTimer) -> usize {
        match t {
            ReaderTimer::Repair => 0,
            ReaderTimer::Heartbeat => 1,
        }
    }
}

/// One optional deadline per kind `K` (`N` kinds, indexed by `usize::from(K)`).
#[derive(Copy, Clone, Debug)]
pub(super) struct TimerTable<K, const N: usize> {
    at: [Option<Instant>; N],
    kind: PhantomData<K>,
}

impl<K: Into<usize> + Copy, const N: usize> TimerTable<K, N> {
    /// No timer armed.
    pub(super) fn new() -> Self {
        TimerTable {
            at: [None; N],
            kind: PhantomData,
        }
    }

    /// When `k` is due, if armed.
    pub(super) fn get(&self, k: K) -> Option<Instant> {
        self.at.get(k.into()).copied().flatten()
    }

    /// Arms `k` at `at` (or, with `None`, stops it).
    pub(super) fn set(&mut self, k: K, at: Option<Instant>) {
        if let Some(slot) = self.at.get_mut(k.into()) {
            *slot = at;
        }
    }

    /// Arms `k` at `at` unless it is already due earlier.
    pub(super) fn set_earliest(&mut self, k: K, at: Instant) {
        let earliest = self.get(k).map_or(at, |t| t.min(at));
        self.set(k, Some(earliest));
    }

    /// Stops `k`.
    pub(super) fn stop(&mut self, k: K) {
        self.set(k, None);
    }

    /// True when `k` is armed and due at `now`.
    pub(super) fn is_due(&self, k: K, now: Instant) -> bool {
        self.get(k).is_some_and(|t| t <= now)
    }

    /// The earliest armed deadline.
    pub(super) fn next_timeout(&self) -> Option<Instant> {
        self.at.iter().flatten().min().copied()
    }
}

#[cfg(test)]
mod tests;
