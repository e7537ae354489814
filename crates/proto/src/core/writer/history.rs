//! The writer's HistoryCache: changes ordered by sequence number, per-instance indexing for
//! KEEP_LAST replacement, and the RESOURCE_LIMITS checks for KEEP_ALL.
//!
//! The storage itself (the sequence-number window and its tombstones) is `history/window.rs`;
//! this module applies the policies to it and indexes instances.
//!
//! Must not: know about readers or the wire; it is told which sequence numbers every reliable
//! reader has acknowledged (`removable_through`) and never decides that by itself. No I/O, no
//! clock.
//!
//! RTPS 2.5 §8.2.2 (HistoryCache), §8.4.7.2 (writer history); DDS 1.4 §2.2.3.18 (HISTORY),
//! §2.2.3.19 (RESOURCE_LIMITS).

use std::collections::{HashMap, VecDeque};

use bytes::Bytes;

use super::change_filter::ChangeFilter;
use super::footprint::change_footprint;
use crate::core::CacheChange;
use crate::qos::{History, Length, ResourceLimits};
use crate::wire::SequenceNumber;
use window::{Stored, Window};

mod window;

/// Why a change could not be added. Mapped to [`super::WriteError`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum AddError {
    /// KEEP_ALL (or a sample limit) reached and every stored change is still unacknowledged.
    Full,
    /// `max_instances` reached and the change is for a new instance.
    TooManyInstances,
    /// 2^63 changes written: the sequence number space is exhausted.
    SequenceExhausted,
}

/// The instance key of a change: its key hash, or `None` for unkeyed topics (one instance).
type InstanceKey = Option<[u8; 16]>;

/// Instance index hasher. Key hashes come from the local application's samples, which may
/// carry keys chosen by someone else (a bridge republishing remote data), so the hasher is
/// seeded per map (foldhash's `RandomState`) rather than fixed, but it need not be the
/// std's SipHash: it hashes one 17-byte key per write.
type InstanceHasher = foldhash::fast::RandomState;

/// The writer's history. Sequence numbers start at 1 and increase by one per change
/// (RTPS 2.5 §8.4.7.2: `new_change` increments `last_change_sequence_number`).
/// The changes sit in a [`Window`] ordered by sequence number.
#[derive(Debug)]
pub(super) struct WriterHistory {
    history: History,
    limits: ResourceLimits,
    /// The stored changes by sequence number.
    window: Window,
    /// Sequence numbers of each instance's changes, oldest first; kept only when a policy
    /// needs them (`track_instances`).
    instances: HashMap<InstanceKey, VecDeque<SequenceNumber>, InstanceHasher>,
    /// KEEP_LAST, or a per-instance or instance-count limit: instances must be indexed.
    track_instances: bool,
    /// The last sequence number handed out (0 before the first write).
    last_sn: SequenceNumber,
    /// Memory the stored changes hold: payload plus the per-change overhead
    /// (`footprint.rs`), which is what [`KEEP_ALL_BYTES_LIMIT`] bounds.
    bytes: usize,
    /// Payloads of removed changes not freed yet: the caller frees them off the loop thread
    /// ([`Self::take_released`]); at most [`MAX_RELEASED`] of them, [`MAX_RELEASED_BYTES`] in
    /// all (beyond that, removal frees them at once).
    released: Vec<Bytes>,
    released_bytes: usize,
}

/// Most payloads of removed changes kept for the caller to free.
const MAX_RELEASED: usize = 1024;
/// Most payload bytes kept for the caller to free.
const MAX_RELEASED_BYTES: usize = 1 << 20;

/// Payload bytes a KEEP_ALL history holds at most (besides one change, whatever its size):
/// a writer blocks rather than have more than this unacknowledged, as Cyclone's writer does at
/// its history's high-water mark. It keeps a fast writer's data in flight within a reader's
/// socket receive buffer (4 MiB by default, `transport::DEFAULT_RECV_BUFFER`) and what it
/// buffers out of order while its application is slow to take
/// ([`crate::core::reader::MAX_OUT_OF_ORDER_BYTES`]); beyond that, datagrams are dropped and
/// samples repaired at a few hundred per round trip (measured with `siftdds perf` at 16 KiB
/// without this limit: half the samples repaired). DDS 1.4 §2.2.3.19 (resource limits; this
/// is an implementation one).
pub const KEEP_ALL_BYTES_LIMIT: usize = 2 << 20;

fn limit(l: Length) -> Option<usize> {
    match l {
        Length::Unlimited => None,
        Length::Limited(n) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
    }
}

impl WriterHistory {
    /// An empty history with the given HISTORY and RESOURCE_LIMITS policies.
    pub(super) fn new(history: History, limits: ResourceLimits) -> Self {
        let track_instances = matches!(history, History::KeepLast(_))
            || limit(limits.max_samples_per_instance).is_some()
            || limit(limits.max_instances).is_some();
        WriterHistory {
            history,
            limits,
            window: Window::default(),
            instances: HashMap::with_hasher(InstanceHasher::default()),
            track_instances,
            last_sn: SequenceNumber(0),
            bytes: 0,
            released: Vec::new(),
            released_bytes: 0,
        }
    }

    /// The payloads of changes removed since the last call, for the caller to drop (free)
    /// where it costs the event loop nothing.
    pub(super) fn take_released(&mut self) -> Vec<Bytes> {
        self.released_bytes = 0;
        std::mem::take(&mut self.released)
    }

    /// The highest sequence number written so far (0 if none). RTPS 2.5 §8.4.7.2.
    pub(super) fn last_sn(&self) -> SequenceNumber {
        self.last_sn
    }

    /// The sequence number the next change will get.
    pub(super) fn next_sn(&self) -> SequenceNumber {
        self.last_sn.checked_add(1).unwrap_or(self.last_sn)
    }

    /// The lowest sequence number still stored, or `last_sn + 1` when empty, as HEARTBEAT's
    /// firstSN requires. RTPS 2.5 §8.3.7.5, §8.4.7.5 (seq_num_min).
    pub(super) fn first_sn(&self) -> SequenceNumber {
        self.window.first_sn().unwrap_or_else(|| self.next_sn())
    }

    /// The change with this sequence number, if still stored.
    pub(super) fn get(&self, sn: SequenceNumber) -> Option<&CacheChange> {
        self.window.get(sn).map(|s| &s.change)
    }

    /// Replaces the content-filter outcome of every stored change with `sn >= from` by what
    /// `evaluate` returns for it.
    pub(super) fn refilter(
        &mut self,
        from: SequenceNumber,
        mut evaluate: impl FnMut(&CacheChange) -> Option<ChangeFilter>,
    ) {
        for stored in self.window.stored_from_mut(from) {
            stored.filter = evaluate(&stored.change);
        }
    }

    /// The content-filter outcome stored with a change, if it was filtered.
    pub(super) fn filter(&self, sn: SequenceNumber) -> Option<&ChangeFilter> {
        self.window.get(sn)?.filter.as_ref()
    }

    /// The stored changes from `sn` on, in order.
    pub(super) fn stored_from(
        &self,
        sn: SequenceNumber,
    ) -> impl Iterator<Item = SequenceNumber> + '_ {
        self.window.stored_from(sn)
    }

    /// The first stored sequence number ≥ `sn`.
    pub(super) fn next_stored_from(&self, sn: SequenceNumber) -> Option<SequenceNumber> {
        self.stored_from(sn).next()
    }

    /// Number of stored changes.
    pub(super) fn len(&self) -> usize {
        self.window.len()
    }

    /// Lower bounds on how many changes, and how many payload bytes in all, [`Self::add`]
    /// accepts from now on whatever their instances while nothing is acknowledged:
    /// `usize::MAX` when no limit applies, 0 when an instance limit does (only an attempt can
    /// tell). DDS 1.4 §2.2.3.19.
    pub(super) fn room(&self, removable_through: SequenceNumber) -> (usize, usize) {
        let per_instance_limited = self.history == History::KeepAll
            && limit(self.limits.max_samples_per_instance).is_some();
        if per_instance_limited || limit(self.limits.max_instances).is_some() {
            return (0, 0);
        }
        let (n, bytes) =
            self.window
                .stored_through(removable_through)
                .fold((0usize, 0usize), |(n, b), c| {
                    (
                        n.saturating_add(1),
                        b.saturating_add(change_footprint(c.data.len())),
                    )
                });
        let samples = match limit(self.limits.max_samples) {
            None => usize::MAX,
            Some(max) => max.saturating_sub(self.window.len().saturating_sub(n)),
        };
        let bytes = match self.history {
            History::KeepAll => {
                KEEP_ALL_BYTES_LIMIT.saturating_sub(self.bytes.saturating_sub(bytes))
            }
            History::KeepLast(_) => usize::MAX,
        };
        (samples, bytes)
    }

    /// Stores a new change built by `make(sn)`, making room first:
    /// - KEEP_LAST(depth): the instance's oldest change beyond `depth` is removed, acknowledged
    ///   or not (DDS 1.4 §2.2.3.18);
    /// - KEEP_ALL / sample limits: only changes with `sn <= removable_through` (acknowledged by
    ///   every reliable reader) may be removed; otherwise [`AddError::Full`] (DDS 1.4
    ///   §2.2.3.19: the write blocks until resources free up).
    ///
    /// Returns the new sequence number and the sequence numbers removed. `filter` is kept
    /// with the change.
    pub(super) fn add(
        &mut self,
        key: InstanceKey,
        len: usize,
        removable_through: SequenceNumber,
        filter: Option<ChangeFilter>,
        make: impl FnOnce(SequenceNumber) -> CacheChange,
    ) -> Result<(SequenceNumber, Vec<SequenceNumber>), AddError> {
        let sn = self
            .last_sn
            .checked_add(1)
            .filter(|s| s.0 < i64::MAX)
            .ok_or(AddError::SequenceExhausted)?;
        let removed = self.victims(key, len, removable_through)?;
        for old in &removed {
            self.remove(*old);
        }
        self.last_sn = sn;
        let change = make(sn);
        self.bytes = self
            .bytes
            .saturating_add(change_footprint(change.data.len()));
        self.window.push(sn, Stored { change, filter });
        if self.track_instances {
            self.instances.entry(key).or_default().push_back(sn);
        }
        Ok((sn, removed))
    }

    /// The changes that must go for a change of `len` payload bytes of instance `key` to
    /// fit, oldest first, or why it cannot (see [`Self::add`]).
    fn victims(
        &self,
        key: InstanceKey,
        len: usize,
        removable_through: SequenceNumber,
    ) -> Result<Vec<SequenceNumber>, AddError> {
        let mut removed: Vec<SequenceNumber> = self
            .instance_victim(key, removable_through)?
            .into_iter()
            .collect();
        self.sample_victim(&mut removed, removable_through)?;
        if self.history == History::KeepAll {
            self.byte_victims(&mut removed, len, removable_through)?;
        }
        Ok(removed)
    }

    /// The instance limits: max_instances for a new instance, then the instance's own room
    /// (KEEP_LAST depth: its oldest change goes; KEEP_ALL max_samples_per_instance: only if
    /// acknowledged).
    fn instance_victim(
        &self,
        key: InstanceKey,
        removable_through: SequenceNumber,
    ) -> Result<Option<SequenceNumber>, AddError> {
        let instance = match self.track_instances {
            true => self.instances.get(&key),
            false => None,
        };
        let instance_len = instance.map_or(0, VecDeque::len);
        if instance_len == 0 {
            if let Some(max) = limit(self.limits.max_instances) {
                if self.instances.len() >= max {
                    return Err(AddError::TooManyInstances);
                }
            }
        }
        // Per-instance room (tracked whenever such a limit applies).
        let per_instance = match self.history {
            History::KeepLast(depth) => Some(usize::try_from(depth.max(1)).unwrap_or(usize::MAX)),
            History::KeepAll => limit(self.limits.max_samples_per_instance),
        };
        if per_instance.is_none_or(|max| instance_len < max) {
            return Ok(None);
        }
        let oldest = instance.and_then(|q| q.front()).copied();
        match (self.history, oldest) {
            (History::KeepLast(_), Some(old)) => Ok(Some(old)),
            (History::KeepAll, Some(old)) if old <= removable_through => Ok(Some(old)),
            _ => Err(AddError::Full),
        }
    }

    /// Total room, max_samples (both kinds): only acknowledged changes may go.
    fn sample_victim(
        &self,
        removed: &mut Vec<SequenceNumber>,
        removable_through: SequenceNumber,
    ) -> Result<(), AddError> {
        let Some(max) = limit(self.limits.max_samples) else {
            return Ok(());
        };
        if self.window.len().saturating_sub(removed.len()) < max {
            return Ok(());
        }
        // Ordered: only a prefix can be acknowledged (a full history of unacknowledged
        // changes is refused at its first change, not after a scan).
        let victim = self
            .window
            .stored_through(removable_through)
            .map(|c| c.sequence_number)
            .find(|s| !removed.contains(s));
        match victim {
            Some(v) => {
                removed.push(v);
                Ok(())
            }
            None => Err(AddError::Full),
        }
    }

    /// Payload room (KEEP_ALL, [`KEEP_ALL_BYTES_LIMIT`]): acknowledged changes may go,
    /// oldest first.
    fn byte_victims(
        &self,
        removed: &mut Vec<SequenceNumber>,
        len: usize,
        removable_through: SequenceNumber,
    ) -> Result<(), AddError> {
        let mut kept = self.bytes;
        let mut kept_n = self.window.len();
        let len = change_footprint(len);
        for old in removed.iter() {
            kept =
                kept.saturating_sub(self.get(*old).map_or(0, |c| change_footprint(c.data.len())));
            kept_n = kept_n.saturating_sub(1);
        }
        let mut acked = self.window.stored_through(removable_through);
        while kept_n > 0 && kept.saturating_add(len) > KEEP_ALL_BYTES_LIMIT {
            let Some(c) = acked.next() else {
                return Err(AddError::Full);
            };
            if !removed.contains(&c.sequence_number) {
                removed.push(c.sequence_number);
                kept = kept.saturating_sub(change_footprint(c.data.len()));
                kept_n = kept_n.saturating_sub(1);
            }
        }
        Ok(())
    }

    /// Removes every change with `sn <= through` (acknowledged by all reliable readers of a
    /// VOLATILE KEEP_ALL writer: nobody can ask for it again). RTPS 2.5 §8.4.7.2 (remove_change).
    pub(super) fn remove_through(&mut self, through: SequenceNumber) {
        while let Some(sn) = self.window.first_sn() {
            if sn > through {
                break;
            }
            self.remove(sn);
        }
    }

    /// Removes one change (LIFESPAN expiry, KEEP_LAST, garbage collection). Returns false when
    /// it was not stored. RTPS 2.5 §8.4.7.2 (remove_change).
    pub(super) fn remove(&mut self, sn: SequenceNumber) -> bool {
        let Some(Stored { change, .. }) = self.window.take(sn) else {
            return false;
        };
        self.bytes = self
            .bytes
            .saturating_sub(change_footprint(change.data.len()));
        let key_hash = change.key_hash;
        let len = change.data.len();
        if self.released.len() < MAX_RELEASED
            && self.released_bytes.saturating_add(len) <= MAX_RELEASED_BYTES
        {
            self.released_bytes = self.released_bytes.saturating_add(len);
            self.released.push(change.data);
        }
        if !self.track_instances {
            return true;
        }
        if let Some(q) = self.instances.get_mut(&key_hash) {
            // Changes nearly always go oldest first: O(1) then, not a scan of the instance.
            if q.front() == Some(&sn) {
                q.pop_front();
            } else {
                q.retain(|s| *s != sn);
            }
            if q.is_empty() {
                self.instances.remove(&key_hash);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests;
