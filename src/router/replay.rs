//! The **replay buffer** of the shortest-path forwarding (`router::paths`): the changes a
//! router accepted from its reliable proxy readers within the last window (twice the
//! detection time), in arrival order, so that when the paths change and a peer router
//! becomes our child in an origin's tree, what that child may have lost on its old path
//! (the samples in flight on a cut link or in a killed router, and those its old parent
//! stopped sending during the detection time) is written to it again. The route's
//! repository sends on only what that link has not had, and the child's repositories drop
//! what its sites already have, so exactly once and in order hold (docs/router.md, *Paths*).
//!
//! Bounded: at most [`MAX_REPLAY_CHANGES`] changes and [`MAX_REPLAY_BYTES`] of payload,
//! oldest first out; changes older than the window are dropped as time passes.
//!
//! Must not: decide where a change goes (the router does, as for a live change), read a
//! clock (`now` is handed in), or grow past its limits whatever the input.

use std::collections::VecDeque;

use core::time::Duration;

use super::EndpointId;
use crate::core::CacheChange;
use crate::time::Instant;

/// Changes held at most.
pub const MAX_REPLAY_CHANGES: usize = 65_536;
/// Payload bytes held at most.
pub const MAX_REPLAY_BYTES: usize = 64 << 20;

/// Counters of the replay buffer.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayCounters {
    /// Changes dropped before their window ended ([`MAX_REPLAY_CHANGES`],
    /// [`MAX_REPLAY_BYTES`]).
    pub evicted: u64,
    /// Path changes that replayed the buffer.
    pub replays: u64,
    /// Changes written again to a new child (the route's repository had not had them).
    pub replayed: u64,
}

/// The recent changes of the reliable proxy readers, oldest first.
#[derive(Debug)]
pub struct Replay {
    window: Duration,
    changes: VecDeque<(Instant, EndpointId, CacheChange)>,
    bytes: usize,
    counters: ReplayCounters,
}

impl Replay {
    /// An empty buffer keeping changes for `window`.
    pub fn new(window: Duration) -> Self {
        Replay {
            window,
            changes: VecDeque::new(),
            bytes: 0,
            counters: ReplayCounters::default(),
        }
    }

    /// Keeps `change`, read by proxy reader `proxy` at `now`.
    pub fn keep(&mut self, now: Instant, proxy: EndpointId, change: &CacheChange) {
        self.expire(now);
        self.bytes = self.bytes.saturating_add(change.data.len());
        self.changes.push_back((now, proxy, change.clone()));
        while self.changes.len() > MAX_REPLAY_CHANGES || self.bytes > MAX_REPLAY_BYTES {
            if !self.pop() {
                break;
            }
            self.counters.evicted = self.counters.evicted.saturating_add(1);
        }
    }

    /// Drops what is older than the window.
    pub fn expire(&mut self, now: Instant) {
        while self
            .changes
            .front()
            .is_some_and(|(at, _, _)| now.saturating_duration_since(*at) > self.window)
        {
            self.pop();
        }
    }

    fn pop(&mut self) -> bool {
        match self.changes.pop_front() {
            Some((_, _, c)) => {
                self.bytes = self.bytes.saturating_sub(c.data.len());
                true
            }
            None => false,
        }
    }

    /// The changes held (after [`Self::expire`]), oldest first, with their proxy readers.
    pub fn recent(&self) -> Vec<(EndpointId, CacheChange)> {
        self.changes
            .iter()
            .map(|(_, p, c)| (*p, c.clone()))
            .collect()
    }

    /// Proxy reader `old` was replaced by `new` (same key): its changes now count as read by
    /// `new`, which outlives it.
    pub fn rename(&mut self, old: EndpointId, new: EndpointId) {
        for (_, p, _) in &mut self.changes {
            if *p == old {
                *p = new;
            }
        }
    }

    /// Notes one replay of the buffer that wrote `written` changes again.
    pub fn replayed(&mut self, written: usize) {
        let k = &mut self.counters;
        k.replays = k.replays.saturating_add(1);
        k.replayed = k.replayed.saturating_add(written as u64);
    }

    /// Changes and payload bytes held.
    pub fn len(&self) -> (usize, usize) {
        (self.changes.len(), self.bytes)
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The counters so far.
    pub fn counters(&self) -> ReplayCounters {
        self.counters
    }
}

#[cfg(test)]
mod tests;
