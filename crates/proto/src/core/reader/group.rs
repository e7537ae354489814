//! The reader's side of group coherent sets (PRESENTATION access scope GROUP with coherent
//! access, RTPS 2.5 §8.7.6): the finished parts its writers' coherent-set assembly handed out
//! are collected by the participant, which delivers a group coherent set back to each reader
//! once every writer's part of it is in (`core::participant::group_sets`).
//!
//! Must not: decide whether a group set is complete (the participant sees all readers).

use super::Reader;
use super::coherent::GroupPart;
use super::writer_proxy::{Sink, Slot};
use crate::core::CacheChange;
use crate::qos::PresentationAccessScope;
use crate::time::Now;

impl Reader {
    /// True when the subscriber asked for GROUP-scope coherent access.
    pub(super) fn group_coherent(&self) -> bool {
        let p = &self.config.presentation;
        p.coherent_access && p.access_scope == PresentationAccessScope::Group
    }

    /// Moves the group-set parts finished since the last call to `out`.
    pub fn take_group_parts(&mut self, out: &mut Vec<GroupPart>) {
        if !self.group_coherent() {
            return;
        }
        for proxy in self.writers.values_mut() {
            proxy.coherent_mut().take_parts(out);
        }
    }

    /// Delivers the changes of a whole group coherent set that are this reader's, in the
    /// order given (instance QoS and the delivery queue apply as to any change).
    pub fn deliver_group_part(&mut self, now: Now, changes: Vec<CacheChange>) {
        let mut sink = Sink {
            queue: &mut self.queue,
            counters: &mut self.counters,
            instances: &mut self.instances,
            now,
        };
        for c in changes {
            sink.deliver(Slot::Sample(c));
        }
    }

    /// Counts `n` changes of group coherent sets dropped as incomplete.
    pub fn count_group_dropped(&mut self, n: u64) {
        let c = &mut self.counters.coherent_samples_dropped;
        *c = c.saturating_add(n);
    }
}
