//! A bounded memo table: remembers values by key (for instance a filter result by the
//! projection of a sample on the fields the filter reads), with a hard capacity, CLOCK
//! eviction, and O(1) invalidation by generation.
//!
//! Must not: grow beyond its capacity (capped at [`MAX_CAPACITY`]), scan the table on
//! invalidation, panic, or know anything about RTPS, filters or the rest of the crate (it is
//! a leaf module). No I/O, no clock.
//!
//! # Overview
//! - Storage: a `HashMap<K, slot>` index plus a slot array holding key, value, generation and
//!   a CLOCK reference bit. Slots are filled up to the capacity, then reused.
//! - Eviction (CLOCK, second chance): a hit sets the slot's reference bit; to make room the
//!   hand sweeps the slots, clearing set bits and taking the first slot whose bit is clear or
//!   whose generation is stale. Each sweep step clears a bit that a hit or an insert set, so
//!   the cost is amortised O(1) per operation (at most one full turn per eviction, and only
//!   after a turn's worth of hits). Lookups and inserts are O(1) expected (hashing).
//! - Invalidation: [`Memo::invalidate`] bumps the generation. An entry of an older
//!   generation is a miss; it stays in place until its key is inserted again (overwritten)
//!   or the hand reaches it (reused first, without counting as an eviction).

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;

#[cfg(test)]
mod tests;

/// Largest capacity a [`Memo`] accepts; larger requests are clamped (docs/conventions.md §4: every
/// table a peer can make us fill is capped).
pub const MAX_CAPACITY: usize = 1 << 20;

/// Event counters of a [`Memo`], since creation.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MemoStats {
    /// Lookups that found a current-generation entry.
    pub hits: u64,
    /// Lookups that found nothing or a stale entry.
    pub misses: u64,
    /// Current-generation entries removed to make room (stale entries reused do not count).
    pub evictions: u64,
    /// Values stored (new keys and overwrites).
    pub insertions: u64,
    /// Values computed by [`Memo::get_or_insert_with`] on a miss.
    pub evaluations: u64,
}

struct Slot<K, V> {
    key: K,
    value: V,
    generation: u64,
    referenced: bool,
}

/// A bounded key → value table with CLOCK eviction and generation-based invalidation.
pub struct Memo<K, V> {
    index: HashMap<K, usize>,
    slots: Vec<Slot<K, V>>,
    capacity: usize,
    hand: usize,
    generation: u64,
    stats: MemoStats,
}

impl<K: Hash + Eq + Clone, V: Clone> Memo<K, V> {
    /// An empty table holding at most `capacity` entries (clamped to [`MAX_CAPACITY`]; 0
    /// stores nothing). Memory is allocated as entries arrive.
    pub fn new(capacity: usize) -> Self {
        Memo {
            index: HashMap::new(),
            slots: Vec::new(),
            capacity: capacity.min(MAX_CAPACITY),
            hand: 0,
            generation: 0,
            stats: MemoStats::default(),
        }
    }

    /// The maximum number of entries.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Entries stored, current or stale (never above [`Memo::capacity`]).
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The current generation; entries stored under an older one are misses.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The counters.
    pub fn stats(&self) -> MemoStats {
        self.stats
    }

    /// Makes every stored entry a miss, in O(1): bumps the generation (wrapping after 2^64
    /// calls, which no program reaches).
    pub fn invalidate(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    /// The current value for `key`, counting a hit or a miss.
    pub fn get<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let generation = self.generation;
        let slot = self
            .index
            .get(key)
            .and_then(|i| self.slots.get_mut(*i))
            .filter(|s| s.generation == generation);
        match slot {
            Some(s) => {
                s.referenced = true;
                self.stats.hits = self.stats.hits.saturating_add(1);
                Some(s.value.clone())
            }
            None => {
                self.stats.misses = self.stats.misses.saturating_add(1);
                None
            }
        }
    }

    /// Stores `value` for `key` in the current generation, evicting another entry if the
    /// table is full. Does nothing when the capacity is 0.
    pub fn insert(&mut self, key: K, value: V) {
        if self.capacity == 0 {
            return;
        }
        self.stats.insertions = self.stats.insertions.saturating_add(1);
        let generation = self.generation;
        if let Some(slot) = self.index.get(&key).and_then(|i| self.slots.get_mut(*i)) {
            slot.value = value;
            slot.generation = generation;
            slot.referenced = false;
            return;
        }
        let fresh = Slot {
            key: key.clone(),
            value,
            generation,
            referenced: false,
        };
        if self.slots.len() < self.capacity {
            self.index.insert(key, self.slots.len());
            self.slots.push(fresh);
            return;
        }
        let victim = self.sweep();
        if let Some(slot) = self.slots.get_mut(victim) {
            if slot.generation == generation {
                self.stats.evictions = self.stats.evictions.saturating_add(1);
            }
            let old = core::mem::replace(slot, fresh);
            self.index.remove(&old.key);
            self.index.insert(key, victim);
        }
    }

    /// The current value for `key`, or `compute()` stored and returned on a miss (counted in
    /// [`MemoStats::evaluations`]).
    pub fn get_or_insert_with(&mut self, key: &K, compute: impl FnOnce() -> V) -> V {
        if let Some(v) = self.get(key) {
            return v;
        }
        self.stats.evaluations = self.stats.evaluations.saturating_add(1);
        let v = compute();
        self.insert(key.clone(), v.clone());
        v
    }

    /// Advances the CLOCK hand to a slot that may be reused: stale, or not referenced since
    /// the hand last passed. Clears reference bits on the way. At most one full turn plus one
    /// step, since the turn clears every bit.
    fn sweep(&mut self) -> usize {
        let len = self.slots.len();
        let generation = self.generation;
        for _ in 0..=len {
            let at = if self.hand < len { self.hand } else { 0 };
            self.hand = at.checked_add(1).filter(|h| *h < len).unwrap_or(0);
            if let Some(slot) = self.slots.get_mut(at) {
                if slot.generation != generation || !slot.referenced {
                    return at;
                }
                slot.referenced = false;
            }
        }
        self.hand
    }
}

impl<K, V> core::fmt::Debug for Memo<K, V> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Memo")
            .field("capacity", &self.capacity)
            .field("len", &self.slots.len())
            .field("generation", &self.generation)
            .field("stats", &self.stats)
            .finish()
    }
}
