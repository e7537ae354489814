//! The reader's delivery queue: samples that completed in-order delivery and wait to be taken
//! by the application, bounded by HISTORY and RESOURCE_LIMITS.
//!
//! Must not: grow past its capacity (the queue is filled by remote writers, STYLE §4), reorder
//! samples of one writer, or know about sequence-number gaps (the writer proxies do).
//!
//! DDS 1.4 §2.2.3.18 (HISTORY: KEEP_LAST depth per instance, KEEP_ALL), §2.2.3.19
//! (RESOURCE_LIMITS); RTPS 2.5 §8.2.2 (reader HistoryCache).
//!
//! # Overview
//! Entries are numbered in arrival order (`order`), stored in `queue` by that number, and each
//! instance keeps the numbers of its queued entries oldest first, so KEEP_LAST can replace the
//! oldest sample of one instance in O(log n). The instance is the key hash; a keyless topic
//! has one instance. A keyed sample without PID_KEY_HASH cannot be attributed to an instance
//! here (computing the hash needs the type layer), so it is not counted per instance and is
//! bounded only by the total capacity.
//!
//! Each entry also has a sample state (DDS 1.4 §2.2.2.5.3.8: READ once returned by `read`) and
//! an optional expiry (LIFESPAN, DDS 1.4 §2.2.3.16): expired entries are dropped when the
//! application reads or takes.

use std::collections::{BTreeMap, HashMap, VecDeque};

use crate::core::CacheChange;
use crate::qos::{History, Length, ResourceLimits};

/// Hard cap on queued samples when RESOURCE_LIMITS.max_samples is unlimited: a remote writer
/// must not be able to grow the queue without bound while the application is not taking.
pub const MAX_QUEUED_SAMPLES: usize = 65_536;

/// Which instance a sample belongs to for history accounting.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum InstanceKey {
    /// Keyless topic: the single instance.
    Keyless,
    /// Keyed topic: the key hash.
    Keyed([u8; 16]),
}

/// One queued sample.
#[derive(Debug)]
struct Entry {
    key: Option<InstanceKey>,
    change: CacheChange,
    /// Returned by `read` already (SampleState READ).
    read: bool,
    /// Source timestamp + the writer's lifespan, in Unix nanoseconds.
    expires_ns: Option<u64>,
}

impl Entry {
    fn expired(&self, now_ns: Option<u64>) -> bool {
        self.expires_ns.zip(now_ns).is_some_and(|(e, n)| n >= e)
    }
}

/// Why a sample was not queued.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Rejected;

/// The delivered-but-not-taken samples.
#[derive(Debug)]
pub(super) struct DeliveryQueue {
    history: History,
    keyed: bool,
    max_samples: usize,
    max_instances: usize,
    max_per_instance: usize,
    queue: BTreeMap<u64, Entry>,
    instances: HashMap<InstanceKey, VecDeque<u64>>,
    next_order: u64,
}

fn limit(l: Length) -> usize {
    match l {
        Length::Unlimited => usize::MAX,
        Length::Limited(n) => usize::try_from(n).unwrap_or(usize::MAX),
    }
}

impl DeliveryQueue {
    /// An empty queue for these policies.
    pub(super) fn new(history: History, limits: ResourceLimits, keyed: bool) -> Self {
        DeliveryQueue {
            history,
            keyed,
            max_samples: limit(limits.max_samples).min(MAX_QUEUED_SAMPLES),
            max_instances: limit(limits.max_instances),
            max_per_instance: limit(limits.max_samples_per_instance),
            queue: BTreeMap::new(),
            instances: HashMap::new(),
            next_order: 0,
        }
    }

    /// Number of queued samples.
    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }

    fn instance_of(&self, key_hash: Option<[u8; 16]>) -> Option<InstanceKey> {
        if self.keyed {
            key_hash.map(InstanceKey::Keyed)
        } else {
            Some(InstanceKey::Keyless)
        }
    }

    fn instance_len(&self, key: Option<InstanceKey>) -> usize {
        key.and_then(|k| self.instances.get(&k))
            .map_or(0, VecDeque::len)
    }

    fn is_new_instance_refused(&self, key: Option<InstanceKey>) -> bool {
        // DDS 1.4 §2.2.3.19: max_instances bounds the instances the reader manages.
        key.is_some_and(|k| !self.instances.contains_key(&k))
            && self.instances.len() >= self.max_instances
    }

    /// True if a sample with this key hash would be queued now. A reliable writer proxy that
    /// gets `false` stops delivering (and so stops acknowledging) until the application
    /// takes samples: KEEP_ALL flow control, DDS 1.4 §2.2.3.18.
    pub(super) fn has_room(&self, key_hash: Option<[u8; 16]>) -> bool {
        let key = self.instance_of(key_hash);
        if self.is_new_instance_refused(key) {
            return false;
        }
        match self.history {
            // KEEP_LAST replaces older samples instead of refusing new ones.
            History::KeepLast(_) => true,
            History::KeepAll => {
                self.queue.len() < self.max_samples
                    && self.instance_len(key) < self.max_per_instance
            }
        }
    }

    /// Queues `change`. Returns how many older samples KEEP_LAST replaced, or `Rejected` when
    /// there is no room (see [`DeliveryQueue::has_room`]).
    /// The sample expires at `expires_ns` (Unix ns) when its writer has a lifespan.
    pub(super) fn push_expiring(
        &mut self,
        change: CacheChange,
        expires_ns: Option<u64>,
    ) -> Result<usize, Rejected> {
        if !self.has_room(change.key_hash) {
            return Err(Rejected);
        }
        let key = self.instance_of(change.key_hash);
        let mut replaced = 0usize;
        if let History::KeepLast(depth) = self.history {
            // DDS 1.4 §2.2.3.18: keep the most recent `depth` samples per instance.
            let depth = usize::try_from(depth.max(1)).unwrap_or(usize::MAX);
            let per_instance = depth.min(self.max_per_instance);
            if let Some(k) = key {
                while self.instance_len(Some(k)) >= per_instance {
                    if !self.evict_oldest_of(k) {
                        break;
                    }
                    replaced = replaced.saturating_add(1);
                }
            }
            // The total bound still holds: drop the oldest sample overall.
            while self.queue.len() >= self.max_samples {
                if !self.evict_oldest() {
                    break;
                }
                replaced = replaced.saturating_add(1);
            }
        }
        let order = self.next_order;
        self.next_order = self.next_order.wrapping_add(1);
        if let Some(k) = key {
            self.instances.entry(k).or_default().push_back(order);
        }
        self.queue.insert(order, Entry { key, change, read: false, expires_ns });
        Ok(replaced)
    }

    fn evict_oldest_of(&mut self, key: InstanceKey) -> bool {
        let Some(order) = self.instances.get_mut(&key).and_then(VecDeque::pop_front) else {
            return false;
        };
        self.queue.remove(&order);
        self.forget_if_empty(key);
        true
    }

    fn evict_oldest(&mut self) -> bool {
        self.pop().is_some()
    }

    fn forget_if_empty(&mut self, key: InstanceKey) {
        if self.instances.get(&key).is_some_and(VecDeque::is_empty) {
            self.instances.remove(&key);
        }
    }

    /// Number of samples not yet returned by [`DeliveryQueue::read`].
    pub(super) fn unread_len(&self) -> usize {
        self.queue.values().filter(|e| !e.read).count()
    }

    /// Takes the oldest queued sample that has not expired at `now_ns` (Unix ns); expired
    /// ones on the way are dropped and counted in the second value.
    pub(super) fn pop_live(&mut self, now_ns: Option<u64>) -> (Option<CacheChange>, u64) {
        let mut expired = 0u64;
        while let Some(e) = self.queue.first_key_value().map(|(_, e)| e.expired(now_ns)) {
            let change = self.pop();
            if !e {
                return (change, expired);
            }
            expired = expired.saturating_add(1);
        }
        (None, expired)
    }

    /// Returns copies of the samples not returned before, oldest first, and marks them READ;
    /// they stay queued for a later take. Expired samples are dropped first (counted in the
    /// second value). DDS 1.4 §2.2.2.5.3.8 (read, NOT_READ_SAMPLE_STATE).
    pub(super) fn read(&mut self, now_ns: Option<u64>) -> (Vec<CacheChange>, u64) {
        let expired: Vec<u64> = self
            .queue
            .iter()
            .filter(|(_, e)| e.expired(now_ns))
            .map(|(o, _)| *o)
            .collect();
        for order in &expired {
            self.remove(*order);
        }
        let mut out = Vec::new();
        for e in self.queue.values_mut().filter(|e| !e.read) {
            e.read = true;
            out.push(e.change.clone());
        }
        (out, u64::try_from(expired.len()).unwrap_or(u64::MAX))
    }

    fn remove(&mut self, order: u64) {
        let Some(e) = self.queue.remove(&order) else { return };
        if let Some(k) = e.key {
            if let Some(orders) = self.instances.get_mut(&k) {
                orders.retain(|o| *o != order);
            }
            self.forget_if_empty(k);
        }
    }

    /// Takes the oldest queued sample.
    pub(super) fn pop(&mut self) -> Option<CacheChange> {
        let (order, Entry { key, change, .. }) = self.queue.pop_first()?;
        if let Some(k) = key {
            if let Some(orders) = self.instances.get_mut(&k) {
                // Entries of one instance are queued and taken in arrival order.
                if orders.front() == Some(&order) {
                    orders.pop_front();
                } else {
                    orders.retain(|o| *o != order);
                }
            }
            self.forget_if_empty(k);
        }
        Some(change)
    }
}
