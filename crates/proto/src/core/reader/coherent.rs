//! Coherent-set assembly for one matched writer: between in-order delivery (the writer
//! proxy) and the instance QoS / delivery queue, the changes of a coherent set are held until
//! the set is known to be complete and then passed on together, or dropped together when it
//! cannot be complete (all-or-nothing, DDS 1.4 §2.2.3.6 `coherent_access`).
//!
//! Must not: reorder changes, hold more than [`MAX_HELD_CHANGES`] changes or
//! [`MAX_HELD_BYTES`] payload bytes per writer, or pass the end-of-set marker on.
//!
//! RTPS 2.5 §8.7.5 (coherent sets): every change of a set carries PID_COHERENT_SET with the
//! SN of the set's first change; the set ends with the next change that carries another
//! value, carries none, or is the writer's end-of-set marker (a DATA with neither payload nor
//! status info, PID_COHERENT_SET only). The writer proxy hands changes over in SN order, so
//! "complete" means: the set's start was seen (its first SN, or a run of irrelevant SNs
//! reaching back to it) and no SN was lost before the set ended. An irrelevant SN (GAP,
//! content-filtered) inside a set is not a loss: the change is not for this reader.
//!
//! Group coherent sets (GROUP access scope with coherent access, RTPS 2.5 §8.7.6): in group
//! mode a set whose changes carry PID_GROUP_COHERENT_SET is not delivered when it ends but
//! handed out as one writer's [`GroupPart`] (complete, with the writerSet of its end-of-set
//! marker, or broken), for the participant to assemble with the other writers' parts
//! (`core::participant::group_sets`).

use crate::core::CacheChange;
use crate::wire::{GroupDigest, Guid, SequenceNumber};

/// Most finished parts waiting to be collected by the participant, per writer; more are
/// handed out as broken (their set is then dropped).
pub const MAX_PENDING_PARTS: usize = 16;

/// One writer's part of a group coherent set.
#[derive(Debug)]
pub struct GroupPart {
    /// The writer.
    pub writer: Guid,
    /// The group coherent set (PID_GROUP_COHERENT_SET).
    pub set: SequenceNumber,
    /// The set's writers (from the writer's end-of-set marker); `None`: the part ended
    /// without a marker or was broken, so the set cannot be delivered whole.
    pub writer_set: Option<GroupDigest>,
    /// The part's changes (empty when broken).
    pub changes: Vec<CacheChange>,
}

/// Most changes held for one open set; a larger set is dropped (counted) rather than grown.
pub const MAX_HELD_CHANGES: usize = 8192;
/// Most payload bytes held for one open set.
pub const MAX_HELD_BYTES: usize = 64 << 20;

/// The set being assembled.
#[derive(Debug)]
struct OpenSet {
    /// Its PID_COHERENT_SET value.
    set: SequenceNumber,
    held: Vec<CacheChange>,
    bytes: usize,
    /// A change of the set is known to be missing: the set is dropped when it ends.
    broken: bool,
    /// Its writer and PID_GROUP_COHERENT_SET (a group coherent set's part), if any.
    group: Option<(Guid, SequenceNumber)>,
}

/// Per-writer coherent-set state. With `enabled` false (the subscriber did not ask for
/// coherent access) changes pass straight through, only end-of-set markers are dropped.
#[derive(Debug, Default)]
pub(super) struct CoherentSets {
    enabled: bool,
    /// Group mode (GROUP access scope): group sets' parts go to `parts`.
    group: bool,
    parts: Vec<GroupPart>,
    open: Option<OpenSet>,
    /// First SN of the run of irrelevant SNs just before the next change (a set whose start
    /// lies in that run started completely for this reader).
    irrelevant_from: Option<SequenceNumber>,
}

impl CoherentSets {
    /// State for a newly matched writer.
    pub(super) fn new(enabled: bool) -> Self {
        CoherentSets {
            enabled,
            ..CoherentSets::default()
        }
    }

    /// Takes what SN `sn` holds (handed over in SN order; `None`: irrelevant) and passes on
    /// to `deliver` what is deliverable now. Returns the number of changes dropped
    /// (incomplete sets, markers excluded).
    pub(super) fn pass(
        &mut self,
        sn: SequenceNumber,
        change: Option<CacheChange>,
        deliver: &mut dyn FnMut(CacheChange),
    ) -> u64 {
        let Some(change) = change else {
            self.irrelevant(sn);
            // Not a loss: the SN holds nothing for this reader.
            return 0;
        };
        let irrelevant_from = self.irrelevant_from.take();
        if !self.enabled {
            if !change.is_coherent_end() {
                deliver(change);
            }
            return 0;
        }
        if change.is_coherent_end() {
            let writer_set = change.group.and_then(|g| g.writer_set);
            return self.close_with(deliver, writer_set);
        }
        let Some(set) = change.coherent_set else {
            let dropped = self.close(deliver);
            deliver(change);
            return dropped;
        };
        let mut dropped = 0;
        if self.open.as_ref().is_none_or(|o| o.set != set) {
            dropped = self.close(deliver);
            // The set's first change is this one, or lies among the irrelevant SNs just
            // before it; otherwise its head was lost or predates our match.
            let started = set == sn || irrelevant_from.is_some_and(|from| from <= set);
            let group = change
                .group
                .and_then(|g| g.coherent_set)
                .map(|gs| (change.writer_guid, gs));
            self.open = Some(OpenSet {
                set,
                held: Vec::new(),
                bytes: 0,
                broken: !started,
                group,
            });
        }
        if let Some(open) = self.open.as_mut() {
            if open.broken {
                return dropped.saturating_add(1);
            }
            let bytes = open.bytes.saturating_add(change.data.len());
            if open.held.len() >= MAX_HELD_CHANGES || bytes > MAX_HELD_BYTES {
                open.broken = true;
                let n = u64::try_from(open.held.len()).unwrap_or(u64::MAX);
                open.held = Vec::new();
                return dropped.saturating_add(n).saturating_add(1);
            }
            open.bytes = bytes;
            open.held.push(change);
        }
        dropped
    }

    /// The SNs from `sn` on were skipped as irrelevant without a slot each (a GAP range).
    pub(super) fn irrelevant(&mut self, sn: SequenceNumber) {
        self.irrelevant_from.get_or_insert(sn);
    }

    /// SNs were lost (best-effort skip, or a HEARTBEAT's firstSN moved past changes we lack):
    /// the open set cannot be complete, and a set starting after the loss must show its start.
    /// Returns the changes dropped.
    pub(super) fn lost(&mut self) -> u64 {
        self.irrelevant_from = None;
        match self.open.as_mut() {
            Some(open) if !open.broken => {
                open.broken = true;
                let n = u64::try_from(open.held.len()).unwrap_or(u64::MAX);
                open.held = Vec::new();
                open.bytes = 0;
                n
            }
            _ => 0,
        }
    }

    /// Ends the open set: delivers it when complete. Returns the changes dropped.
    fn close(&mut self, deliver: &mut dyn FnMut(CacheChange)) -> u64 {
        self.close_with(deliver, None)
    }

    /// Ends the open set, `writer_set` from its end-of-set marker if it had one: a group set's
    /// part (group mode) goes to the parts, any other complete set is delivered.
    fn close_with(
        &mut self,
        deliver: &mut dyn FnMut(CacheChange),
        writer_set: Option<GroupDigest>,
    ) -> u64 {
        let Some(open) = self.open.take() else {
            return 0;
        };
        if let (true, Some((writer, set))) = (self.group, open.group) {
            let whole =
                !open.broken && writer_set.is_some() && self.parts.len() < MAX_PENDING_PARTS;
            let dropped = if whole || open.broken {
                0
            } else {
                u64::try_from(open.held.len()).unwrap_or(u64::MAX)
            };
            let (writer_set, changes) = match whole {
                true => (writer_set, open.held),
                false => (None, Vec::new()),
            };
            // A full queue still records the broken part (its set must be dropped too).
            if self.parts.len() >= MAX_PENDING_PARTS {
                self.parts.remove(0);
            }
            self.parts.push(GroupPart {
                writer,
                set,
                writer_set,
                changes,
            });
            return dropped;
        }
        // A broken set's changes were counted when they were discarded.
        if !open.broken {
            for c in open.held {
                deliver(c);
            }
        }
        0
    }

    /// Turns group mode on (GROUP access scope with coherent access).
    pub(super) fn set_group(&mut self, group: bool) {
        self.group = group && self.enabled;
    }

    /// Takes the finished group parts.
    pub(super) fn take_parts(&mut self, out: &mut Vec<GroupPart>) {
        out.append(&mut self.parts);
    }

    /// Changes held for the open set (tests and diagnostics).
    #[cfg(test)]
    pub(super) fn held(&self) -> usize {
        self.open.as_ref().map_or(0, |o| o.held.len())
    }
}

#[cfg(test)]
mod tests;
