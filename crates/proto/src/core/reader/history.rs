//! The reader's delivery queue: samples that completed in-order delivery and wait to be taken
//! by the application, bounded by HISTORY and RESOURCE_LIMITS.
//!
//! Must not: grow past its capacity (the queue is filled by remote writers,
//! docs/conventions.md §4), reorder samples of one writer, or know about sequence-number gaps
//! (the writer proxies do).
//!
//! DDS 1.4 §2.2.3.18 (HISTORY: KEEP_LAST depth per instance, KEEP_ALL), §2.2.3.19
//! (RESOURCE_LIMITS); RTPS 2.5 §8.2.2 (reader HistoryCache).
//!
//! # Overview
//! Entries are numbered in arrival order (`order`) and stored in a ring (`VecDeque`) indexed
//! by `order - base`, so queueing and taking the oldest are O(1) without a tree. Removing an
//! entry from the middle (KEEP_LAST replacing the oldest sample of one instance, an expired
//! sample) leaves a hole; holes at the front are trimmed at once, and the ring is compacted
//! when holes outnumber the queued samples (amortized O(1), so the ring stays below twice the
//! capacity plus [`COMPACT_SLACK`]). Each instance keeps a chain of its queued entries, oldest
//! first (head, tail and a link in each entry), so KEEP_LAST finds the oldest sample of one
//! instance without a scan and without allocating per sample. Instances are looked up in a
//! `BTreeMap` by key hash: key hashes come from the network, and an ordered map has no hash
//! function to attack (no HashDoS), while with the usual one or few instances a lookup is a
//! comparison or two. The instance is the key hash; a keyless topic has one instance. A keyed
//! sample without PID_KEY_HASH cannot be attributed to an instance here (computing the hash
//! needs the type layer), so it is not counted per instance and is bounded only by the total
//! capacity.
//!
//! Each entry also has a sample state (DDS 1.4 §2.2.2.5.3.8: READ once returned by `read`), an
//! optional expiry (LIFESPAN, DDS 1.4 §2.2.3.16: expired entries are dropped when the
//! application reads or takes), and the [`Stamp`] its SampleInfo needs: the instance's
//! generation counts and the wall time when it was received (DDS 1.4 §2.2.2.5.4).

use std::collections::{BTreeMap, VecDeque};

use super::sample_info::Generations;
use crate::core::CacheChange;
use crate::qos::{History, Length, ResourceLimits};
use crate::time::Timestamp;

/// Hard cap on queued samples when RESOURCE_LIMITS.max_samples is unlimited: a remote writer
/// must not be able to grow the queue without bound while the application is not taking.
pub const MAX_QUEUED_SAMPLES: usize = 65_536;

/// Holes tolerated in the ring beyond the number of queued samples before it is compacted.
const COMPACT_SLACK: usize = 64;

/// Ring slots kept allocated once the queue is empty: a burst (up to [`MAX_QUEUED_SAMPLES`])
/// does not pin its memory afterwards, and a steady stream does not reallocate.
const IDLE_CAPACITY: usize = 1024;

/// Which instance a sample belongs to for history accounting: the key hash as one big-endian
/// integer (compared without memcmp), or 0 for the single instance of a keyless topic (a
/// queue is either keyed or keyless, so the two never meet).
type InstanceKey = u128;

/// The instance key of a keyless topic.
const KEYLESS: InstanceKey = 0;

/// What is kept with a queued sample besides the change.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Stamp {
    /// Source timestamp + the writer's lifespan, in Unix nanoseconds.
    pub expires_ns: Option<u64>,
    /// The instance's generation counts when the sample was received.
    pub generations: Generations,
    /// When the sample was received (wall clock).
    pub reception: Timestamp,
}

/// A sample a selection returned: the change, whether a read had returned it before (READ),
/// and its stamp.
pub(super) type Selected = (CacheChange, bool, Stamp);

/// One queued sample.
#[derive(Debug)]
struct Entry {
    key: Option<InstanceKey>,
    change: CacheChange,
    /// Returned by `read` already (SampleState READ).
    read: bool,
    stamp: Stamp,
    /// The order of the next queued entry of the same instance.
    next_same: Option<u64>,
}

impl Entry {
    fn expired(&self, now_ns: Option<u64>) -> bool {
        self.stamp
            .expires_ns
            .zip(now_ns)
            .is_some_and(|(e, n)| n >= e)
    }
}

/// The queued entries of one instance, oldest first, linked through [`Entry::next_same`].
#[derive(Copy, Clone, Debug)]
struct Chain {
    head: u64,
    tail: u64,
    len: usize,
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
    /// `ring[i]` holds order `base + i`; `None` is a hole (removed from the middle).
    ring: VecDeque<Option<Entry>>,
    base: u64,
    /// Queued entries (the ring minus its holes).
    live: usize,
    instances: BTreeMap<InstanceKey, Chain>,
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
            ring: VecDeque::new(),
            base: 0,
            live: 0,
            instances: BTreeMap::new(),
        }
    }

    /// Number of queued samples.
    pub(super) fn len(&self) -> usize {
        self.live
    }

    fn instance_of(&self, key_hash: Option<[u8; 16]>) -> Option<InstanceKey> {
        if self.keyed {
            key_hash.map(u128::from_be_bytes)
        } else {
            Some(KEYLESS)
        }
    }

    /// Queued entries of `key` (`None` when the instance has none).
    fn chain(&self, key: Option<InstanceKey>) -> Option<&Chain> {
        key.and_then(|k| self.instances.get(&k))
    }

    fn is_new_instance_refused(&self, key: Option<InstanceKey>, chain: Option<&Chain>) -> bool {
        // DDS 1.4 §2.2.3.19: max_instances bounds the instances the reader manages.
        key.is_some() && chain.is_none() && self.instances.len() >= self.max_instances
    }

    fn room_for(&self, key: Option<InstanceKey>) -> bool {
        let chain = self.chain(key);
        if self.is_new_instance_refused(key, chain) {
            return false;
        }
        match self.history {
            // KEEP_LAST replaces older samples instead of refusing new ones.
            History::KeepLast(_) => true,
            History::KeepAll => {
                self.live < self.max_samples && chain.map_or(0, |c| c.len) < self.max_per_instance
            }
        }
    }

    /// True if a sample with this key hash would be queued now. A reliable writer proxy that
    /// gets `false` stops delivering (and so stops acknowledging) until the application
    /// takes samples: KEEP_ALL flow control, DDS 1.4 §2.2.3.18.
    pub(super) fn has_room(&self, key_hash: Option<[u8; 16]>) -> bool {
        self.room_for(self.instance_of(key_hash))
    }

    /// Queues `change` with only an expiry (generation counts zero, received at time zero).
    #[cfg(test)]
    pub(super) fn push_expiring(
        &mut self,
        change: CacheChange,
        expires_ns: Option<u64>,
    ) -> Result<usize, Rejected> {
        let stamp = Stamp {
            expires_ns,
            generations: Generations::default(),
            reception: Timestamp::ZERO,
        };
        self.push(change, stamp)
    }

    /// Queues `change`. Returns how many older samples KEEP_LAST replaced, or `Rejected` when
    /// there is no room (see [`DeliveryQueue::has_room`]).
    /// The sample expires at `stamp.expires_ns` (Unix ns) when its writer has a lifespan.
    pub(super) fn push(&mut self, change: CacheChange, stamp: Stamp) -> Result<usize, Rejected> {
        let key = self.instance_of(change.key_hash);
        if !self.room_for(key) {
            return Err(Rejected);
        }
        let mut replaced = 0usize;
        if let History::KeepLast(depth) = self.history {
            // DDS 1.4 §2.2.3.18: keep the most recent `depth` samples per instance.
            let depth = usize::try_from(depth.max(1)).unwrap_or(usize::MAX);
            let per_instance = depth.min(self.max_per_instance);
            if let Some(k) = key {
                while self
                    .instances
                    .get(&k)
                    .is_some_and(|c| c.len >= per_instance)
                {
                    if !self.evict_oldest_of(k) {
                        break;
                    }
                    replaced = replaced.saturating_add(1);
                }
            }
            // The total bound still holds: drop the oldest sample overall.
            while self.live >= self.max_samples {
                if self.pop().is_none() {
                    break;
                }
                replaced = replaced.saturating_add(1);
            }
        }
        let order = self.next_order();
        if let Some(k) = key {
            match self.instances.get_mut(&k) {
                Some(chain) => {
                    let tail = chain.tail;
                    chain.tail = order;
                    chain.len = chain.len.saturating_add(1);
                    if let Some(prev) = self.entry_mut(tail) {
                        prev.next_same = Some(order);
                    }
                }
                None => {
                    self.instances.insert(
                        k,
                        Chain {
                            head: order,
                            tail: order,
                            len: 1,
                        },
                    );
                }
            }
        }
        self.ring.push_back(Some(Entry {
            key,
            change,
            read: false,
            stamp,
            next_same: None,
        }));
        self.live = self.live.saturating_add(1);
        Ok(replaced)
    }

    /// The order the next queued entry gets.
    fn next_order(&self) -> u64 {
        self.base
            .wrapping_add(u64::try_from(self.ring.len()).unwrap_or(u64::MAX))
    }

    fn index(&self, order: u64) -> Option<usize> {
        usize::try_from(order.wrapping_sub(self.base)).ok()
    }

    fn entry_mut(&mut self, order: u64) -> Option<&mut Entry> {
        let i = self.index(order)?;
        self.ring.get_mut(i)?.as_mut()
    }

    fn evict_oldest_of(&mut self, key: InstanceKey) -> bool {
        let Some(head) = self.instances.get(&key).map(|c| c.head) else {
            return false;
        };
        let removed = self.remove(head).is_some();
        self.maybe_compact();
        removed
    }

    /// Removes the entry `order` (a hole is left unless it is at the front), unlinking it
    /// from its instance's chain. Never renumbers (see [`DeliveryQueue::maybe_compact`]).
    fn remove(&mut self, order: u64) -> Option<CacheChange> {
        let i = self.index(order)?;
        let e = self.ring.get_mut(i)?.take()?;
        Some(self.forget(order, e))
    }

    /// The bookkeeping after entry `order` left the ring: counts, its instance's chain, the
    /// front trimmed, a drained ring's burst memory given back.
    fn forget(&mut self, order: u64, e: Entry) -> CacheChange {
        self.live = self.live.saturating_sub(1);
        if let Some(k) = e.key {
            self.unlink(k, order, e.next_same);
        }
        self.trim_front();
        if self.ring.is_empty() && self.ring.capacity() > IDLE_CAPACITY {
            self.ring.shrink_to(IDLE_CAPACITY);
        }
        e.change
    }

    /// Compacts the ring when its holes outnumber the queued samples (plus slack), so it
    /// stays within about twice the capacity whatever the order of removals. Renumbers the
    /// entries: no order may be held across this call.
    fn maybe_compact(&mut self) {
        if self.ring.len() > self.live.saturating_mul(2).saturating_add(COMPACT_SLACK) {
            self.compact();
        }
    }

    /// Takes `order` out of `key`'s chain; `next` is the removed entry's link.
    fn unlink(&mut self, key: InstanceKey, order: u64, next: Option<u64>) {
        let Some(chain) = self.instances.get_mut(&key) else {
            return;
        };
        chain.len = chain.len.saturating_sub(1);
        if chain.head == order {
            // The usual case: entries of one instance are queued and taken oldest first.
            match next {
                Some(n) if chain.len > 0 => chain.head = n,
                _ => {
                    self.instances.remove(&key);
                }
            }
            return;
        }
        // From the middle of the chain (an expired sample): find its predecessor.
        let mut chain = *chain;
        let mut at = chain.head;
        let mut steps = 0usize;
        let bound = self.ring.len();
        while let Some(e) = self.entry_mut(at) {
            if e.next_same == Some(order) {
                e.next_same = next;
                if chain.tail == order {
                    chain.tail = at;
                }
                break;
            }
            match e.next_same {
                Some(n) if steps < bound => at = n,
                _ => break,
            }
            steps = steps.saturating_add(1);
        }
        if let Some(c) = self.instances.get_mut(&key) {
            *c = chain;
        }
    }

    fn trim_front(&mut self) {
        while matches!(self.ring.front(), Some(None)) {
            self.ring.pop_front();
            self.base = self.base.wrapping_add(1);
        }
    }

    /// Renumbers the queued entries without holes and rebuilds the instance chains.
    fn compact(&mut self) {
        let entries: Vec<Entry> = self.ring.drain(..).flatten().collect();
        self.instances.clear();
        self.live = 0;
        for mut e in entries {
            let order = self.next_order();
            e.next_same = None;
            if let Some(k) = e.key {
                let chain = self.instances.entry(k).or_insert(Chain {
                    head: order,
                    tail: order,
                    len: 0,
                });
                let tail = chain.tail;
                chain.tail = order;
                chain.len = chain.len.saturating_add(1);
                if tail != order {
                    if let Some(prev) = self.entry_mut(tail) {
                        prev.next_same = Some(order);
                    }
                }
            }
            self.ring.push_back(Some(e));
            self.live = self.live.saturating_add(1);
        }
    }

    /// Number of samples not yet returned by [`DeliveryQueue::read`].
    pub(super) fn unread_len(&self) -> usize {
        self.ring.iter().flatten().filter(|e| !e.read).count()
    }

    /// Takes the oldest queued sample that has not expired at `now_ns` (Unix ns); expired
    /// ones on the way are dropped and counted in the second value.
    pub(super) fn pop_live(&mut self, now_ns: Option<u64>) -> (Option<CacheChange>, u64) {
        let mut expired = 0u64;
        while let Some(e) = self
            .ring
            .front()
            .and_then(Option::as_ref)
            .map(|e| e.expired(now_ns))
        {
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
        let expired = self.drop_expired(now_ns);
        let mut out = Vec::new();
        for e in self.ring.iter_mut().flatten().filter(|e| !e.read) {
            e.read = true;
            out.push(e.change.clone());
        }
        (out, expired)
    }

    /// The queued samples, oldest first, each with whether a read returned it (READ).
    pub(super) fn iter(&self) -> impl Iterator<Item = (&CacheChange, bool)> {
        self.ring.iter().flatten().map(|e| (&e.change, e.read))
    }

    /// [`DeliveryQueue::iter`] without the samples expired at `now_ns` (Unix ns).
    pub(super) fn iter_live(
        &self,
        now_ns: Option<u64>,
    ) -> impl Iterator<Item = (&CacheChange, bool)> {
        self.ring
            .iter()
            .flatten()
            .filter(move |e| !e.expired(now_ns))
            .map(|e| (&e.change, e.read))
    }

    /// Returns up to `max` queued samples that `select` accepts (given the change and whether
    /// a read returned it), oldest first, each with its sample state before this call and its
    /// stamp. `take` removes them; otherwise they stay queued, marked READ. Expire samples
    /// with [`DeliveryQueue::drop_expired`] first. DDS 1.4 §2.2.2.5.3.8-9.
    pub(super) fn select(
        &mut self,
        take: bool,
        max: usize,
        mut select: impl FnMut(&CacheChange, bool) -> bool,
    ) -> Vec<Selected> {
        let mut out = Vec::new();
        let mut taken = Vec::new();
        for (order, slot) in (self.base..).zip(self.ring.iter_mut()) {
            if out.len().saturating_add(taken.len()) >= max {
                break;
            }
            let Some(e) = slot.as_mut() else { continue };
            if !select(&e.change, e.read) {
                continue;
            }
            if take {
                taken.push((order, e.read, e.stamp));
            } else {
                out.push((e.change.clone(), e.read, e.stamp));
                e.read = true;
            }
        }
        for (order, read, stamp) in taken {
            if let Some(change) = self.remove(order) {
                out.push((change, read, stamp));
            }
        }
        self.maybe_compact();
        out
    }

    /// Removes the samples expired at `now_ns` (Unix ns) wherever they are; their number.
    pub(super) fn drop_expired(&mut self, now_ns: Option<u64>) -> u64 {
        let expired: Vec<u64> = (self.base..)
            .zip(self.ring.iter())
            .filter(|(_, e)| e.as_ref().is_some_and(|e| e.expired(now_ns)))
            .map(|(o, _)| o)
            .collect();
        for order in &expired {
            self.remove(*order);
        }
        self.maybe_compact();
        u64::try_from(expired.len()).unwrap_or(u64::MAX)
    }

    /// Takes the oldest queued sample.
    pub(super) fn pop(&mut self) -> Option<CacheChange> {
        // The front is never a hole (trimmed on every removal).
        self.trim_front();
        let e = self.ring.pop_front()??;
        let order = self.base;
        self.base = self.base.wrapping_add(1);
        Some(self.forget(order, e))
    }
}

#[cfg(test)]
mod tests;
