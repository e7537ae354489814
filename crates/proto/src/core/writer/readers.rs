//! The writer's matched readers: a slab of [`ReaderProxy`]s with stable, generational keys,
//! iterated in match order.
//!
//! Must not: hand out a key that could name another reader later (a removed reader's key
//! never resolves again: its slot's generation moved on), reorder readers (iteration is in
//! match order, which fixes destination lists, round-robin and filter-info order), or know
//! what is sent to them. No I/O, no clock.
//!
//! RTPS 2.5 §8.4.7.5 (the writer's matched ReaderProxies), §8.4.9.2 (StatefulWriter).
//!
//! # Overview
//! Neighbours (the push queue, the multicast groups) hold [`ReaderKey`]s, never positions,
//! so a reader leaving moves nothing. [`Readers::membership`] counts additions, removals and
//! locator updates: state derived from who is matched where (the multicast groups) is
//! rebuilt when it differs, with no dirty flag to keep by hand.

use std::collections::BTreeMap;

use super::change_filter::ReaderSlot;
use super::reader_proxy::ReaderProxy;
use crate::wire::Guid;

/// A matched reader's handle: its slot and the slot's generation when it was matched.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct ReaderKey {
    index: usize,
    generation: u64,
}

#[derive(Clone, Debug)]
struct Slot {
    generation: u64,
    proxy: Option<ReaderProxy>,
}

/// The matched readers of one writer.
#[derive(Clone, Debug)]
pub(super) struct Readers {
    slots: Vec<Slot>,
    /// Vacant slot indices, reused last-freed first.
    free: Vec<usize>,
    /// Keys in match order. Invariant: exactly the occupied slots, each once.
    order: Vec<ReaderKey>,
    by_guid: BTreeMap<Guid, ReaderKey>,
    /// Bumped on every addition, removal and locator update.
    membership: u64,
    /// The filter-set generation every proxy's filter slot was resolved at (`u64::MAX`:
    /// no filter set, every reader unresolved).
    filter_generation: u64,
}

impl Readers {
    pub(super) fn new() -> Self {
        Readers {
            slots: Vec::new(),
            free: Vec::new(),
            order: Vec::new(),
            by_guid: BTreeMap::new(),
            membership: 0,
            filter_generation: u64::MAX,
        }
    }

    /// Re-resolves every reader's filter slot at filter-set `generation`.
    pub(super) fn resolve_filter_slots(
        &mut self,
        generation: u64,
        slot_of: impl Fn(Guid) -> Option<usize>,
    ) {
        self.filter_generation = generation;
        for r in self.iter_mut() {
            r.set_filter_slot(slot_of(r.guid()));
        }
    }

    /// Reader `r`'s slot in the writer's filter set, as resolved at the last change of the
    /// set: per-change decisions under that generation's table are one bit test.
    pub(super) fn filter_slot(&self, r: &ReaderProxy) -> ReaderSlot {
        ReaderSlot::new(r.guid(), self.filter_generation, r.filter_slot())
    }

    /// Number of matched readers.
    pub(super) fn len(&self) -> usize {
        self.order.len()
    }

    /// Counts changes of who is matched and where they listen: equal values, equal readers
    /// and locators.
    pub(super) fn membership(&self) -> u64 {
        self.membership
    }

    /// The key of the reader with this GUID.
    pub(super) fn find(&self, guid: Guid) -> Option<ReaderKey> {
        self.by_guid.get(&guid).copied()
    }

    /// Adds a reader (its GUID must not be matched yet) and returns its key.
    pub(super) fn insert(&mut self, proxy: ReaderProxy) -> ReaderKey {
        let guid = proxy.guid();
        let key = match self.free.pop() {
            Some(index) => {
                let generation = self
                    .slots
                    .get(index)
                    .map_or(0, |s| s.generation.wrapping_add(1));
                if let Some(s) = self.slots.get_mut(index) {
                    *s = Slot {
                        generation,
                        proxy: Some(proxy),
                    };
                }
                ReaderKey { index, generation }
            }
            None => {
                let index = self.slots.len();
                self.slots.push(Slot {
                    generation: 0,
                    proxy: Some(proxy),
                });
                ReaderKey {
                    index,
                    generation: 0,
                }
            }
        };
        self.order.push(key);
        self.by_guid.insert(guid, key);
        self.changed();
        key
    }

    /// Removes the reader with this GUID, if matched.
    pub(super) fn remove(&mut self, guid: Guid) -> Option<ReaderProxy> {
        let key = self.by_guid.remove(&guid)?;
        self.order.retain(|k| *k != key);
        let proxy = self.slot_mut(key)?.proxy.take();
        self.free.push(key.index);
        self.changed();
        proxy
    }

    /// Notes that a reader's locators (or flags) were updated in place.
    pub(super) fn changed(&mut self) {
        self.membership = self.membership.wrapping_add(1);
    }

    fn slot_mut(&mut self, key: ReaderKey) -> Option<&mut Slot> {
        self.slots
            .get_mut(key.index)
            .filter(|s| s.generation == key.generation)
    }

    /// The reader `key` names, if still matched.
    pub(super) fn get(&self, key: ReaderKey) -> Option<&ReaderProxy> {
        self.slots
            .get(key.index)
            .filter(|s| s.generation == key.generation)?
            .proxy
            .as_ref()
    }

    /// The reader `key` names, if still matched.
    pub(super) fn get_mut(&mut self, key: ReaderKey) -> Option<&mut ReaderProxy> {
        self.slot_mut(key)?.proxy.as_mut()
    }

    /// The key of the `i`-th reader in match order.
    pub(super) fn key_at(&self, i: usize) -> Option<ReaderKey> {
        self.order.get(i).copied()
    }

    /// The readers in match order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &ReaderProxy> + '_ {
        self.order.iter().filter_map(|k| self.get(*k))
    }

    /// The readers with their keys, in match order.
    pub(super) fn entries(&self) -> impl Iterator<Item = (ReaderKey, &ReaderProxy)> + '_ {
        self.order
            .iter()
            .filter_map(|k| self.get(*k).map(|r| (*k, r)))
    }

    /// Every reader, mutably, in no particular order (for updates that do not depend on it).
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = &mut ReaderProxy> + '_ {
        self.slots.iter_mut().filter_map(|s| s.proxy.as_mut())
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)]
mod tests;
