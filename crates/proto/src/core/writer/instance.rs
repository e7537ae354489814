//! The writer's instance-level timers: OFFERED DEADLINE per instance and LIFESPAN expiry of
//! changes in the history.
//!
//! Must not: perform I/O or read clocks; send anything itself. An expired change is only
//! removed from the history: readers that still need it then get a GAP from the normal push
//! and repair paths (`send.rs`), and HEARTBEATs announce the new first SN.
//!
//! DDS 1.4 §2.2.3.7 (DEADLINE, OFFERED_DEADLINE_MISSED), §2.2.3.16 (LIFESPAN: "the sample is
//! removed from the DataWriter's history once expired"); RTPS 2.5 §8.4.7.2 (remove_change),
//! §8.3.7.4 (GAP).
//!
//! # Overview
//! The lifespan of every change is the same, so expiry instants are in write order: a queue of
//! `(expiry, SN)` is enough. Expiry uses the monotonic clock from the same `now` whose wall
//! time became the source timestamp, so `expiry = source timestamp + lifespan`.

use std::collections::VecDeque;

use super::history::WriterHistory;
use crate::core::deadline::{DeadlineTracker, InstanceId};
use crate::core::{ChangeKind, DeadlineMissedStatus};
use crate::time::{Instant, Now};
use crate::wire::SequenceNumber;

/// Deadline and lifespan state of one writer.
#[derive(Debug)]
pub(super) struct InstanceTimers {
    lifespan: Option<core::time::Duration>,
    /// `(expiry, SN)` in write order.
    expiries: VecDeque<(Instant, SequenceNumber)>,
    deadline: DeadlineTracker,
}

impl InstanceTimers {
    pub(super) fn new(
        deadline: Option<core::time::Duration>,
        lifespan: Option<core::time::Duration>,
    ) -> Self {
        InstanceTimers {
            lifespan,
            expiries: VecDeque::new(),
            deadline: DeadlineTracker::new(deadline),
        }
    }

    /// Bookkeeping after change `sn` was added to `history`: the instance's deadline restarts
    /// (ALIVE) or stops (dispose / unregister), and the change's lifespan starts.
    pub(super) fn written(
        &mut self,
        history: &WriterHistory,
        now: Now,
        kind: ChangeKind,
        key: Option<[u8; 16]>,
        sn: SequenceNumber,
    ) {
        let instance: InstanceId = key;
        match kind {
            ChangeKind::Alive => self.deadline.touch(instance, now.mono),
            _ => self.deadline.remove(instance),
        }
        let Some(lifespan) = self.lifespan else {
            return;
        };
        // Forget expiries of changes KEEP_LAST already replaced (keeps the queue bounded by
        // the history plus what is written between two expiries).
        while let Some((_, old)) = self.expiries.front() {
            if history.get(*old).is_some() {
                break;
            }
            self.expiries.pop_front();
        }
        self.expiries
            .push_back((now.mono.saturating_add(lifespan), sn));
    }

    /// Removes the changes whose lifespan ended by `now` from `history`; returns how many.
    /// DDS 1.4 §2.2.3.16.
    pub(super) fn expire(&mut self, history: &mut WriterHistory, now: Now) -> u64 {
        let mut removed = 0u64;
        while let Some((at, sn)) = self.expiries.front().copied() {
            if at > now.mono {
                break;
            }
            self.expiries.pop_front();
            if history.remove(sn) {
                removed = removed.saturating_add(1);
            }
        }
        removed
    }

    /// Records the instances whose offered deadline passed by `now`.
    pub(super) fn check_deadlines(&mut self, now: Now) {
        self.deadline.handle_timeout(now.mono);
    }

    /// The earliest lifespan expiry or deadline.
    pub(super) fn next_timeout(&self) -> Option<Instant> {
        let expiry = self.expiries.front().map(|(at, _)| *at);
        [expiry, self.deadline.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    /// The next instance that missed its offered deadline (`Some(None)`: keyless topic).
    pub(super) fn poll_missed(&mut self) -> Option<InstanceId> {
        self.deadline.poll_missed()
    }

    /// OFFERED_DEADLINE_MISSED status. DDS 1.4 §2.2.4.1.
    pub(super) fn status(&self) -> DeadlineMissedStatus {
        self.deadline.status()
    }
}
