//! The storage of the writer's history: its changes in a window ordered by sequence number,
//! with tombstones for changes removed out of order, and their lookup by sequence number.
//!
//! Must not: apply HISTORY or RESOURCE_LIMITS, index instances or count bytes (that is
//! `history.rs`); it stores what it is given and removes what it is told. No I/O, no clock.
//!
//! RTPS 2.5 §8.2.2 (HistoryCache: changes ordered by sequence number).

use std::collections::VecDeque;

use super::super::change_filter::ChangeFilter;
use crate::core::CacheChange;
use crate::wire::SequenceNumber;

/// A stored change and what the writer keeps with it.
#[derive(Debug)]
pub(super) struct Stored {
    pub(super) change: CacheChange,
    /// The content-filter outcome, when the change was filtered.
    pub(super) filter: Option<ChangeFilter>,
}

/// One sequence number in the window: `None` once removed out of order (a tombstone).
#[derive(Debug)]
pub(super) struct Entry {
    sn: SequenceNumber,
    stored: Option<Stored>,
}

/// Tombstones tolerated beyond the number of stored changes before the window is compacted:
/// keeps memory within twice the stored changes (plus this) whatever the removal order.
pub(super) const MAX_EXTRA_TOMBSTONES: usize = 64;

/// Changes in a window ordered by sequence number: appended at the back, removed at the
/// front (acknowledged, KEEP_ALL) in O(1); a change removed elsewhere (KEEP_LAST replacement,
/// LIFESPAN) leaves a tombstone until the front reaches it or the window is compacted. While
/// no tombstone lies before it, a change is found at `sn - front` (O(1)), else by binary
/// search.
#[derive(Debug, Default)]
pub(super) struct Window {
    /// Ascending sequence numbers; the first and last entries are never tombstones.
    entries: VecDeque<Entry>,
    /// Stored changes (entries that are not tombstones).
    stored: usize,
}

impl Window {
    /// Number of stored changes.
    pub(super) fn len(&self) -> usize {
        self.stored
    }

    /// Number of entries, tombstones included.
    #[cfg(test)]
    pub(super) fn slots(&self) -> usize {
        self.entries.len()
    }

    /// The lowest sequence number stored, if any.
    pub(super) fn first_sn(&self) -> Option<SequenceNumber> {
        self.entries.front().map(|e| e.sn)
    }

    /// The window position of `sn`, stored or a tombstone.
    fn position(&self, sn: SequenceNumber) -> Option<usize> {
        let front = self.entries.front()?.sn;
        let offset = usize::try_from(sn.0.checked_sub(front.0)?).ok()?;
        match self.entries.get(offset) {
            Some(e) if e.sn == sn => Some(offset),
            // Tombstones before `sn` were compacted away: search.
            _ => self.entries.binary_search_by_key(&sn, |e| e.sn).ok(),
        }
    }

    /// The window position of the first entry with a sequence number ≥ `sn`.
    fn lower_bound(&self, sn: SequenceNumber) -> usize {
        self.entries.partition_point(|e| e.sn < sn)
    }

    /// The change stored with this sequence number, if any.
    pub(super) fn get(&self, sn: SequenceNumber) -> Option<&Stored> {
        self.entries.get(self.position(sn)?)?.stored.as_ref()
    }

    /// The stored changes with `sn <= through`, oldest first.
    pub(super) fn stored_through(
        &self,
        through: SequenceNumber,
    ) -> impl Iterator<Item = &CacheChange> + '_ {
        self.entries
            .iter()
            .take_while(move |e| e.sn <= through)
            .filter_map(|e| e.stored.as_ref().map(|s| &s.change))
    }

    /// The stored sequence numbers from `sn` on, in order.
    pub(super) fn stored_from(
        &self,
        sn: SequenceNumber,
    ) -> impl Iterator<Item = SequenceNumber> + '_ {
        self.entries
            .range(self.lower_bound(sn)..)
            .filter(|e| e.stored.is_some())
            .map(|e| e.sn)
    }

    /// The stored changes with `sn >= from`, oldest first, to update what is kept with them.
    pub(super) fn stored_from_mut(
        &mut self,
        from: SequenceNumber,
    ) -> impl Iterator<Item = &mut Stored> + '_ {
        let start = self.lower_bound(from);
        self.entries
            .range_mut(start..)
            .filter_map(|e| e.stored.as_mut())
    }

    /// Appends a change; its sequence number is above every other in the window.
    pub(super) fn push(&mut self, sn: SequenceNumber, stored: Stored) {
        self.stored = self.stored.saturating_add(1);
        self.entries.push_back(Entry {
            sn,
            stored: Some(stored),
        });
    }

    /// Removes the change `sn` and returns it (`None` when it was not stored), leaving a
    /// tombstone when it is not at an end.
    pub(super) fn take(&mut self, sn: SequenceNumber) -> Option<Stored> {
        let i = self.position(sn)?;
        let stored = self.entries.get_mut(i).and_then(|e| e.stored.take())?;
        self.stored = self.stored.saturating_sub(1);
        // The ends are never tombstones; too many tombstones inside are compacted away.
        while self.entries.front().is_some_and(|e| e.stored.is_none()) {
            self.entries.pop_front();
        }
        while self.entries.back().is_some_and(|e| e.stored.is_none()) {
            self.entries.pop_back();
        }
        if self.entries.len()
            > self
                .stored
                .saturating_mul(2)
                .saturating_add(MAX_EXTRA_TOMBSTONES)
        {
            self.entries.retain(|e| e.stored.is_some());
        }
        Some(stored)
    }
}
