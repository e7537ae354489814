//! The WaitSet: blocks an application thread until one of its attached conditions triggers,
//! and returns exactly those whose trigger value is true.
//!
//! Must not: read clocks or block itself (the wait is `runtime::Signal::wait_until`, woken by
//! the conditions' listeners on the loop thread and by guard conditions), or evaluate
//! conditions on the loop thread while holding a lock.
//!
//! DDS 1.4 §2.2.2.1.6 (WaitSet: attach_condition, detach_condition, wait).

use std::sync::Arc;
use std::time::Duration;

use super::Error;
use super::condition::{Condition, ConditionId, Core};
use crate::runtime::Signal;

/// Waits for conditions: [`GuardCondition`](super::GuardCondition),
/// [`ReadCondition`](super::ReadCondition), [`QueryCondition`](super::QueryCondition),
/// [`StatusCondition`](super::StatusCondition). A condition may be attached to several
/// WaitSets; dropping the WaitSet detaches them all. DDS 1.4 §2.2.2.1.6.
pub struct WaitSet {
    signal: Arc<Signal>,
    attached: Vec<Arc<Core>>,
}

impl WaitSet {
    /// A WaitSet with no conditions.
    pub fn new() -> Self {
        WaitSet {
            signal: Signal::new(),
            attached: Vec::new(),
        }
    }

    /// Attaches `condition` (once; attaching it again does nothing). If it is triggered
    /// already, the next [`WaitSet::wait`] returns at once. DDS 1.4 §2.2.2.1.6.1.
    pub fn attach(&mut self, condition: &impl Condition) {
        let core = condition.core();
        if self.attached.iter().any(|c| Arc::ptr_eq(c, core)) {
            return;
        }
        core.signals().add(&self.signal);
        self.attached.push(Arc::clone(core));
    }

    /// Detaches `condition`; false if it was not attached. DDS 1.4 §2.2.2.1.6.2.
    pub fn detach(&mut self, condition: &impl Condition) -> bool {
        let core = condition.core();
        let before = self.attached.len();
        self.attached.retain(|c| !Arc::ptr_eq(c, core));
        core.signals().remove(&self.signal);
        self.attached.len() != before
    }

    /// The ids of the attached conditions.
    pub fn conditions(&self) -> Vec<ConditionId> {
        self.attached.iter().map(|c| c.id()).collect()
    }

    /// Blocks until at least one attached condition's trigger value is true, and returns
    /// the ids of every such condition (in attachment order); [`Error::Timeout`] when none
    /// became true within `timeout`. It asks the participants' loops for the trigger values,
    /// so it must not be called from a listener (on a loop thread). DDS 1.4 §2.2.2.1.6.3.
    pub fn wait(&self, timeout: Duration) -> Result<Vec<ConditionId>, Error> {
        self.signal
            .wait_until(timeout, || {
                let triggered: Vec<ConditionId> = self
                    .attached
                    .iter()
                    .filter(|c| c.trigger_value())
                    .map(|c| c.id())
                    .collect();
                (!triggered.is_empty()).then_some(triggered)
            })
            .ok_or(Error::Timeout)
    }
}

impl Default for WaitSet {
    fn default() -> Self {
        WaitSet::new()
    }
}

impl Drop for WaitSet {
    fn drop(&mut self) {
        for c in &self.attached {
            c.signals().remove(&self.signal);
        }
    }
}
