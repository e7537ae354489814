//! Per-instance DEADLINE bookkeeping shared by writers (OFFERED_DEADLINE_MISSED) and readers
//! (REQUESTED_DEADLINE_MISSED): when each instance must next be written / received, and the
//! instances whose period passed without it.
//!
//! Must not: read a clock (instants arrive as arguments), or grow without bound: the number
//! of instances tracked is capped (a remote writer creates reader instances).
//!
//! DDS 1.4 §2.2.3.7 (DEADLINE), §2.2.4.1 (OFFERED/REQUESTED_DEADLINE_MISSED status: total
//! count and last instance handle).
//!
//! # Overview
//! Each tracked instance has the instant its period ends. `DeadlineTracker::touch` (a write
//! or a received sample) restarts it; `DeadlineTracker::handle_timeout` reports every
//! instance whose period ended, counts one miss per whole period elapsed, and restarts the
//! period from the old end (so a silent instance misses once per period, not once per call).
use std::collections::{BTreeMap, VecDeque};

use crate::time::Instant;

/// Most instances whose deadline is tracked per endpoint; beyond it new instances are not
/// watched (docs/conventions.md §4: state a peer can make us create is capped).
pub const MAX_DEADLINE_INSTANCES: usize = 65_536;
/// Most missed-deadline notifications queued per endpoint before the oldest are dropped (the
/// total count stays exact).
const MAX_PENDING_MISSES: usize = 4096;

/// The instance a deadline is about: its key hash, `None` for a keyless topic.
pub type InstanceId = Option<[u8; 16]>;

/// OFFERED_/REQUESTED_DEADLINE_MISSED status. DDS 1.4 §2.2.4.1.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DeadlineMissedStatus {
    /// Missed periods so far, over all instances.
    pub total_count: u64,
    /// The instance of the last miss (`None` before the first, or for a keyless topic).
    pub last_instance: InstanceId,
}

/// When each instance's period ends.
#[derive(Debug)]
pub(crate) struct DeadlineTracker {
    period: Option<core::time::Duration>,
    ends: BTreeMap<InstanceId, Instant>,
    missed: VecDeque<InstanceId>,
    status: DeadlineMissedStatus,
}

impl DeadlineTracker {
    /// A tracker for this DEADLINE period (`None`: infinite, nothing is ever tracked).
    pub(crate) fn new(period: Option<core::time::Duration>) -> Self {
        DeadlineTracker {
            period: period.filter(|p| !p.is_zero()),
            ends: BTreeMap::new(),
            missed: VecDeque::new(),
            status: DeadlineMissedStatus::default(),
        }
    }

    /// The instance was written / received at `now`: its period restarts.
    pub(crate) fn touch(&mut self, instance: InstanceId, now: Instant) {
        let Some(period) = self.period else { return };
        if !self.ends.contains_key(&instance) && self.ends.len() >= MAX_DEADLINE_INSTANCES {
            return;
        }
        self.ends.insert(instance, now.saturating_add(period));
    }

    /// The instance is no longer alive (unregistered, disposed, no writers): stop watching.
    pub(crate) fn remove(&mut self, instance: InstanceId) {
        self.ends.remove(&instance);
    }

    /// The earliest end of a period.
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        self.ends.values().min().copied()
    }

    /// Records a miss for every instance whose period ended by `now` (one per whole period
    /// elapsed) and restarts its period.
    pub(crate) fn handle_timeout(&mut self, now: Instant) {
        let Some(period) = self.period else { return };
        let period_ns = u64::try_from(period.as_nanos()).unwrap_or(u64::MAX).max(1);
        for (instance, end) in self.ends.iter_mut() {
            if *end > now {
                continue;
            }
            let late = now.as_nanos().saturating_sub(end.as_nanos());
            let periods = late.checked_div(period_ns).unwrap_or(0).saturating_add(1);
            self.status.total_count = self.status.total_count.saturating_add(periods);
            self.status.last_instance = *instance;
            let advance = periods.saturating_mul(period_ns);
            *end = Instant::from_nanos(end.as_nanos().saturating_add(advance));
            if self.missed.len() >= MAX_PENDING_MISSES {
                self.missed.pop_front();
            }
            self.missed.push_back(*instance);
        }
    }

    /// The next instance that missed its deadline, for the event queue.
    pub(crate) fn poll_missed(&mut self) -> Option<InstanceId> {
        self.missed.pop_front()
    }

    /// Counts so far.
    pub(crate) fn status(&self) -> DeadlineMissedStatus {
        self.status
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)]
mod tests;
