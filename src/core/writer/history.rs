//! The writer's HistoryCache: changes ordered by sequence number, per-instance indexing for
//! KEEP_LAST replacement, and the RESOURCE_LIMITS checks for KEEP_ALL.
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

/// A stored change and what the writer keeps with it.
#[derive(Debug)]
struct Stored {
    change: CacheChange,
    /// The content-filter outcome, when the change was filtered.
    filter: Option<ChangeFilter>,
}

/// One sequence number in the window: `None` once removed out of order (a tombstone).
#[derive(Debug)]
struct Entry {
    sn: SequenceNumber,
    stored: Option<Stored>,
}

/// Tombstones tolerated beyond the number of stored changes before the window is compacted:
/// keeps memory within twice the stored changes (plus this) whatever the removal order.
const MAX_EXTRA_TOMBSTONES: usize = 64;

/// The writer's history. Sequence numbers start at 1 and increase by one per change
/// (RTPS 2.5 §8.4.7.2: `new_change` increments `last_change_sequence_number`).
///
/// Changes sit in a window ordered by sequence number: appended at the back, removed at the
/// front (acknowledged, KEEP_ALL) in O(1); a change removed elsewhere (KEEP_LAST replacement,
/// LIFESPAN) leaves a tombstone until the front reaches it or the window is compacted. While
/// no tombstone lies before it, a change is found at `sn - front` (O(1)), else by binary
/// search.
#[derive(Debug)]
pub(super) struct WriterHistory {
    history: History,
    limits: ResourceLimits,
    /// Ascending sequence numbers; the first and last entries are never tombstones.
    window: VecDeque<Entry>,
    /// Stored changes (entries that are not tombstones).
    stored: usize,
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
            window: VecDeque::new(),
            stored: 0,
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
        self.window.front().map_or_else(|| self.next_sn(), |e| e.sn)
    }

    /// The window position of `sn`, stored or a tombstone.
    fn position(&self, sn: SequenceNumber) -> Option<usize> {
        let front = self.window.front()?.sn;
        let offset = usize::try_from(sn.0.checked_sub(front.0)?).ok()?;
        match self.window.get(offset) {
            Some(e) if e.sn == sn => Some(offset),
            // Tombstones before `sn` were compacted away: search.
            _ => self.window.binary_search_by_key(&sn, |e| e.sn).ok(),
        }
    }

    /// The window position of the first entry with a sequence number ≥ `sn`.
    fn lower_bound(&self, sn: SequenceNumber) -> usize {
        self.window.partition_point(|e| e.sn < sn)
    }

    fn stored(&self, sn: SequenceNumber) -> Option<&Stored> {
        self.window.get(self.position(sn)?)?.stored.as_ref()
    }

    /// The stored changes with `sn <= through`, oldest first.
    fn stored_through(&self, through: SequenceNumber) -> impl Iterator<Item = &CacheChange> + '_ {
        self.window
            .iter()
            .take_while(move |e| e.sn <= through)
            .filter_map(|e| e.stored.as_ref().map(|s| &s.change))
    }

    /// The change with this sequence number, if still stored.
    pub(super) fn get(&self, sn: SequenceNumber) -> Option<&CacheChange> {
        self.stored(sn).map(|s| &s.change)
    }

    /// The content-filter outcome stored with a change, if it was filtered.
    pub(super) fn filter(&self, sn: SequenceNumber) -> Option<&ChangeFilter> {
        self.stored(sn)?.filter.as_ref()
    }

    /// The stored changes from `sn` on, in order.
    pub(super) fn stored_from(
        &self,
        sn: SequenceNumber,
    ) -> impl Iterator<Item = SequenceNumber> + '_ {
        self.window
            .range(self.lower_bound(sn)..)
            .filter(|e| e.stored.is_some())
            .map(|e| e.sn)
    }

    /// The first stored sequence number ≥ `sn`.
    pub(super) fn next_stored_from(&self, sn: SequenceNumber) -> Option<SequenceNumber> {
        self.stored_from(sn).next()
    }

    /// Number of stored changes.
    pub(super) fn len(&self) -> usize {
        self.stored
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
            self.stored_through(removable_through)
                .fold((0usize, 0usize), |(n, b), c| {
                    (
                        n.saturating_add(1),
                        b.saturating_add(change_footprint(c.data.len())),
                    )
                });
        let samples = match limit(self.limits.max_samples) {
            None => usize::MAX,
            Some(max) => max.saturating_sub(self.stored.saturating_sub(n)),
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
        self.stored = self.stored.saturating_add(1);
        let stored = Stored { change, filter };
        self.window.push_back(Entry {
            sn,
            stored: Some(stored),
        });
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
        if self.stored.saturating_sub(removed.len()) < max {
            return Ok(());
        }
        // Ordered: only a prefix can be acknowledged (a full history of unacknowledged
        // changes is refused at its first change, not after a scan).
        let victim = self
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
        let mut kept_n = self.stored;
        let len = change_footprint(len);
        for old in removed.iter() {
            kept =
                kept.saturating_sub(self.get(*old).map_or(0, |c| change_footprint(c.data.len())));
            kept_n = kept_n.saturating_sub(1);
        }
        let mut acked = self.stored_through(removable_through);
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
        while let Some(sn) = self.window.front().map(|e| e.sn) {
            if sn > through {
                break;
            }
            self.remove(sn);
        }
    }

    /// Removes one change (LIFESPAN expiry, KEEP_LAST, garbage collection). Returns false when
    /// it was not stored. RTPS 2.5 §8.4.7.2 (remove_change).
    pub(super) fn remove(&mut self, sn: SequenceNumber) -> bool {
        let Some(i) = self.position(sn) else {
            return false;
        };
        let Some(Stored { change, .. }) = self.window.get_mut(i).and_then(|e| e.stored.take())
        else {
            return false;
        };
        self.stored = self.stored.saturating_sub(1);
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
        // The ends are never tombstones; too many tombstones inside are compacted away.
        while self.window.front().is_some_and(|e| e.stored.is_none()) {
            self.window.pop_front();
        }
        while self.window.back().is_some_and(|e| e.stored.is_none()) {
            self.window.pop_back();
        }
        if self.window.len()
            > self
                .stored
                .saturating_mul(2)
                .saturating_add(MAX_EXTRA_TOMBSTONES)
        {
            self.window.retain(|e| e.stored.is_some());
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
mod tests {
    use bytes::Bytes;

    use super::*;
    use crate::core::ChangeKind;
    use crate::wire::{EntityId, Guid, GuidPrefix};

    fn change(sn: SequenceNumber, len: usize) -> CacheChange {
        CacheChange {
            kind: ChangeKind::Alive,
            writer_guid: Guid {
                prefix: GuidPrefix([1; 12]),
                entity_id: EntityId([0, 0, 1, 2]),
            },
            sequence_number: sn,
            key_hash: None,
            source_timestamp: None,
            data: Bytes::from(vec![0u8; len]),
            coherent_set: None,
            group: None,
            original_writer: None,
        }
    }

    fn add(h: &mut WriterHistory, len: usize, acked: i64) -> Result<SequenceNumber, AddError> {
        h.add(None, len, SequenceNumber(acked), None, |sn| change(sn, len))
            .map(|(sn, _)| sn)
    }

    #[test]
    fn removed_payloads_are_handed_out_once_and_within_the_bounds() {
        let mut h = WriterHistory::new(History::KeepAll, ResourceLimits::default());
        for len in [100, 200, 300] {
            add(&mut h, len, 0).unwrap();
        }
        h.remove_through(SequenceNumber(2));
        assert_eq!(
            h.take_released().iter().map(Bytes::len).collect::<Vec<_>>(),
            [100, 200]
        );
        assert!(h.take_released().is_empty());
        // Past MAX_RELEASED_BYTES a removed payload is freed at once; a take makes room again.
        let big = MAX_RELEASED_BYTES / 2 + 1;
        let mut h = WriterHistory::new(History::KeepLast(1), ResourceLimits::default());
        for _ in 0..4 {
            add(&mut h, big, 0).unwrap(); // replaces the previous one
        }
        assert_eq!(h.take_released().len(), 1);
        add(&mut h, big, 0).unwrap();
        assert_eq!(h.take_released().len(), 1);
        // And past MAX_RELEASED payloads.
        for _ in 0..MAX_RELEASED + 10 {
            add(&mut h, 1, 0).unwrap();
        }
        assert_eq!(h.take_released().len(), MAX_RELEASED);
    }

    #[test]
    fn the_footprint_estimate_covers_a_window_slot() {
        let estimate = super::super::footprint::ENTRY_SIZE;
        assert!(core::mem::size_of::<Entry>() <= estimate, "{estimate}");
    }

    #[test]
    fn keep_all_refuses_past_the_byte_limit_until_acknowledged() {
        let mut h = WriterHistory::new(History::KeepAll, ResourceLimits::default());
        // The limit counts each change's overhead besides its payload (`footprint.rs`).
        let half = KEEP_ALL_BYTES_LIMIT / 2 - super::super::PER_CHANGE_OVERHEAD;
        assert_eq!(add(&mut h, half, 0), Ok(SequenceNumber(1)));
        assert_eq!(add(&mut h, half, 0), Ok(SequenceNumber(2)));
        assert_eq!(add(&mut h, 1, 0), Err(AddError::Full));
        // Once SN 1 is acknowledged it makes room.
        assert_eq!(add(&mut h, 1, 1), Ok(SequenceNumber(3)));
        assert_eq!(h.len(), 2);
        // A change larger than the limit still goes into an empty history.
        let mut h = WriterHistory::new(History::KeepAll, ResourceLimits::default());
        assert_eq!(
            add(&mut h, KEEP_ALL_BYTES_LIMIT * 2, 0),
            Ok(SequenceNumber(1))
        );
        // KEEP_LAST has no byte limit.
        let mut h = WriterHistory::new(History::KeepLast(1), ResourceLimits::default());
        assert_eq!(add(&mut h, KEEP_ALL_BYTES_LIMIT, 0), Ok(SequenceNumber(1)));
        assert_eq!(add(&mut h, KEEP_ALL_BYTES_LIMIT, 0), Ok(SequenceNumber(2)));
    }

    #[test]
    fn out_of_order_removals_keep_lookups_right_and_the_window_bounded() {
        // KEEP_LAST(1) with one instance written once and another written many times: every
        // replacement removes a change behind the stale one, leaving a tombstone.
        let mut h = WriterHistory::new(History::KeepLast(1), ResourceLimits::default());
        let keyed = |h: &mut WriterHistory, k: u8| {
            let key = Some([k; 16]);
            h.add(key, 8, SequenceNumber(0), None, |sn| CacheChange {
                key_hash: key,
                ..change(sn, 8)
            })
            .map(|(sn, _)| sn)
        };
        assert_eq!(keyed(&mut h, 1), Ok(SequenceNumber(1)));
        for n in 2..=10_000 {
            assert_eq!(keyed(&mut h, 2), Ok(SequenceNumber(n)));
            assert_eq!(h.len(), 2);
        }
        assert!(
            h.window.len() <= 2 * 2 + MAX_EXTRA_TOMBSTONES,
            "window {}",
            h.window.len()
        );
        assert_eq!(h.first_sn(), SequenceNumber(1));
        assert!(h.get(SequenceNumber(1)).is_some());
        assert!(h.get(SequenceNumber(9_999)).is_none());
        assert_eq!(
            h.get(SequenceNumber(10_000)).map(|c| c.sequence_number),
            Some(SequenceNumber(10_000))
        );
        assert_eq!(
            h.stored_from(SequenceNumber(2)).collect::<Vec<_>>(),
            [SequenceNumber(10_000)]
        );
        assert_eq!(
            h.next_stored_from(SequenceNumber(0)),
            Some(SequenceNumber(1))
        );
        // Removing the stale front leaves the newest change first.
        assert!(h.remove(SequenceNumber(1)));
        assert!(!h.remove(SequenceNumber(1)));
        assert_eq!(h.first_sn(), SequenceNumber(10_000));
        assert_eq!(h.len(), 1);
        h.remove_through(SequenceNumber(10_000));
        assert_eq!((h.len(), h.first_sn()), (0, SequenceNumber(10_001)));
    }

    #[test]
    fn keep_all_without_instance_limits_does_not_index_instances() {
        let mut h = WriterHistory::new(History::KeepAll, ResourceLimits::default());
        h.add(Some([3; 16]), 4, SequenceNumber(0), None, |sn| {
            change(sn, 4)
        })
        .unwrap();
        assert!(h.instances.is_empty());
        let limits = ResourceLimits {
            max_instances: Length::Limited(1),
            ..ResourceLimits::default()
        };
        let mut h = WriterHistory::new(History::KeepAll, limits);
        h.add(Some([3; 16]), 4, SequenceNumber(0), None, |sn| {
            change(sn, 4)
        })
        .unwrap();
        assert_eq!(
            h.add(Some([4; 16]), 4, SequenceNumber(0), None, |sn| change(
                sn, 4
            ))
            .map(|(s, _)| s),
            Err(AddError::TooManyInstances)
        );
    }

    #[test]
    fn room_counts_unacknowledged_samples_and_bytes() {
        let limits = ResourceLimits {
            max_samples: Length::Limited(10),
            ..ResourceLimits::default()
        };
        let mut h = WriterHistory::new(History::KeepAll, limits);
        assert_eq!(h.room(SequenceNumber(0)), (10, KEEP_ALL_BYTES_LIMIT));
        for _ in 0..3 {
            add(&mut h, 100, 0).unwrap();
        }
        let held = change_footprint(100);
        assert_eq!(
            h.room(SequenceNumber(0)),
            (7, KEEP_ALL_BYTES_LIMIT - 3 * held)
        );
        assert_eq!(h.room(SequenceNumber(2)), (9, KEEP_ALL_BYTES_LIMIT - held));
        // The lower bound holds: exactly that many more samples go in.
        for _ in 0..7 {
            add(&mut h, 100, 0).unwrap();
        }
        assert_eq!(add(&mut h, 100, 0), Err(AddError::Full));
        // An instance limit makes the bound unknown (0).
        let limits = ResourceLimits {
            max_instances: Length::Limited(4),
            ..ResourceLimits::default()
        };
        assert_eq!(
            WriterHistory::new(History::KeepAll, limits).room(SequenceNumber(0)),
            (0, 0)
        );
    }
}
