//! Subscriber-side assembly of group coherent sets (PRESENTATION access scope GROUP with
//! coherent access, DDS 1.4 §2.2.3.6; RTPS 2.5 §8.7.6; a piece of the PRESENTATION part,
//! `presentation.rs`): the parts the readers' per-writer
//! assembly finished (`core::reader::group`) are held until every writer named by the set's
//! writerSet has its part in, then the whole set is delivered to the readers in one call, in
//! group-SN order; a set with a broken part, or whose remote participant loses a writer, is
//! dropped whole.
//!
//! Must not: deliver part of a set, hold more than [`MAX_PENDING_GROUP_SETS`] sets or
//! [`MAX_GROUP_HELD_CHANGES`] changes (the oldest set is dropped to make room), or remember
//! more than [`MAX_DEAD_GROUP_SETS`] dropped sets.
//!
//! Completeness: the set is named by (remote prefix, the writers' PID_GROUP_GUID when
//! announced, PID_GROUP_COHERENT_SET, writerSet); each taking-part
//! writer's end-of-set marker names the set's writers by their digest (PID_WRITER_GROUP_INFO).
//! The set is whole when the digest of the writers whose parts are in equals it. A subscriber
//! that reads only some of the set's topics cannot reach that digest: such a set is held until
//! evicted (docs/interop-facts.md §8.4).

use std::collections::VecDeque;

use super::discovery::Discovery;
use super::endpoints::Endpoints;
use super::group::writer_set_digest;
use crate::core::CacheChange;
use crate::core::reader::GroupPart;
use crate::time::Now;
use crate::wire::{EntityId, GroupDigest, Guid, GuidPrefix, SequenceNumber};

/// Most group coherent sets held at once.
pub const MAX_PENDING_GROUP_SETS: usize = 32;
/// Most changes held across all pending group sets.
pub const MAX_GROUP_HELD_CHANGES: usize = 65_536;
/// Most dropped sets remembered (their late parts are dropped too).
pub const MAX_DEAD_GROUP_SETS: usize = 64;

/// One set being assembled.
#[derive(Debug)]
pub(super) struct PendingSet {
    prefix: GuidPrefix,
    /// The remote publisher (its writers' PID_GROUP_GUID), when announced: two publishers of
    /// one participant number their sets independently.
    group: Option<Guid>,
    set: SequenceNumber,
    writer_set: GroupDigest,
    /// (reader, writer, changes) per part in.
    parts: Vec<(EntityId, EntityId, Vec<CacheChange>)>,
}

impl PendingSet {
    pub(super) fn held(&self) -> usize {
        self.parts.iter().map(|p| p.2.len()).sum()
    }

    fn writers(&self) -> Vec<EntityId> {
        self.parts.iter().map(|p| p.1).collect()
    }
}

/// The participant's group sets under assembly.
#[derive(Debug, Default)]
pub(super) struct GroupSets {
    pub(super) pending: VecDeque<PendingSet>,
    pub(super) dead: VecDeque<(GuidPrefix, SequenceNumber)>,
    pub(super) held: usize,
    /// Group sets delivered whole / dropped, for stats.
    pub(super) delivered: u64,
    pub(super) dropped: u64,
}

/// What to do after a part arrived.
pub(super) enum Outcome {
    Hold,
    Deliver(PendingSet),
    Drop(Vec<PendingSet>),
}

impl GroupSets {
    pub(super) fn kill(&mut self, prefix: GuidPrefix, set: SequenceNumber) -> Vec<PendingSet> {
        if !self.dead.contains(&(prefix, set)) {
            if self.dead.len() >= MAX_DEAD_GROUP_SETS {
                self.dead.pop_front();
            }
            self.dead.push_back((prefix, set));
        }
        let (gone, kept): (Vec<_>, Vec<_>) = core::mem::take(&mut self.pending)
            .into_iter()
            .partition(|p| p.prefix == prefix && p.set == set);
        self.pending = kept.into();
        self.forget(&gone);
        gone
    }

    fn forget(&mut self, gone: &[PendingSet]) {
        let n: usize = gone.iter().map(PendingSet::held).sum();
        self.held = self.held.saturating_sub(n);
        self.dropped = self
            .dropped
            .saturating_add(u64::try_from(gone.len()).unwrap_or(u64::MAX));
    }

    /// Takes `reader`'s part.
    pub(super) fn accept(
        &mut self,
        reader: EntityId,
        part: GroupPart,
        group: Option<Guid>,
    ) -> Outcome {
        let prefix = part.writer.prefix;
        if self.dead.contains(&(prefix, part.set)) {
            return Outcome::Drop(Vec::new());
        }
        let Some(writer_set) = part.writer_set else {
            return Outcome::Drop(self.kill(prefix, part.set));
        };
        let mut evicted = Vec::new();
        let found = self.pending.iter().position(|p| {
            p.prefix == prefix
                && p.group == group
                && p.set == part.set
                && p.writer_set == writer_set
        });
        let at = match found {
            Some(i) => i,
            None => {
                while self.pending.len() >= MAX_PENDING_GROUP_SETS
                    || (self.held.saturating_add(part.changes.len()) > MAX_GROUP_HELD_CHANGES
                        && !self.pending.is_empty())
                {
                    if let Some(old) = self.pending.pop_front() {
                        evicted.push(old);
                    }
                }
                self.pending.push_back(PendingSet {
                    prefix,
                    group,
                    set: part.set,
                    writer_set,
                    parts: Vec::new(),
                });
                self.pending.len().saturating_sub(1)
            }
        };
        self.forget(&evicted);
        let Some(p) = self.pending.get_mut(at) else {
            return Outcome::Drop(evicted);
        };
        // A duplicate part (the same writer to the same reader) adds nothing.
        if !p
            .parts
            .iter()
            .any(|(r, w, _)| *r == reader && *w == part.writer.entity_id)
        {
            self.held = self.held.saturating_add(part.changes.len());
            p.parts.push((reader, part.writer.entity_id, part.changes));
        }
        if writer_set_digest(&p.writers()) != writer_set {
            return match evicted.is_empty() {
                true => Outcome::Hold,
                false => Outcome::Drop(evicted),
            };
        }
        let Some(done) = self.pending.remove(at) else {
            return Outcome::Hold;
        };
        self.held = self.held.saturating_sub(done.held());
        self.delivered = self.delivered.saturating_add(1);
        // Evicted sets are counted; the whole one goes out.
        Outcome::Deliver(done)
    }

    /// Drops every set of `prefix` still being assembled (one of its writers went away).
    pub(super) fn writer_gone(&mut self, prefix: GuidPrefix) -> Vec<PendingSet> {
        let (gone, kept): (Vec<_>, Vec<_>) = core::mem::take(&mut self.pending)
            .into_iter()
            .partition(|p| p.prefix == prefix);
        self.pending = kept.into();
        self.forget(&gone);
        gone
    }
}

impl GroupSets {
    /// Collects the readers' finished group parts and delivers every group set made whole.
    pub(super) fn assemble(&mut self, now: Now, endpoints: &mut Endpoints, discovery: &Discovery) {
        let mut parts = Vec::new();
        for (key, r) in endpoints.readers_mut() {
            let mut mine = Vec::new();
            r.reader.take_group_parts(&mut mine);
            parts.extend(mine.into_iter().map(|p| (*key, p)));
        }
        for (reader, part) in parts {
            let group = discovery
                .remote_writer(part.writer)
                .and_then(|w| w.group_guid);
            match self.accept(reader, part, group) {
                Outcome::Hold => {}
                Outcome::Deliver(set) => deliver(now, set, endpoints),
                Outcome::Drop(sets) => count_drops(sets, endpoints),
            }
        }
    }

    /// A remote writer went away: sets of its participant under assembly cannot be trusted
    /// to complete and are dropped (DDS 1.4 §2.2.3.6: never delivered in part).
    pub(super) fn remote_writer_gone(&mut self, prefix: GuidPrefix, endpoints: &mut Endpoints) {
        let gone = self.writer_gone(prefix);
        count_drops(gone, endpoints);
    }
}

fn count_drops(sets: Vec<PendingSet>, endpoints: &mut Endpoints) {
    for set in sets {
        for (reader, _, changes) in set.parts {
            if let Some(r) = endpoints.reader_by_id_mut(reader) {
                r.reader
                    .count_group_dropped(u64::try_from(changes.len()).unwrap_or(u64::MAX));
            }
        }
    }
}

fn deliver(now: Now, set: PendingSet, endpoints: &mut Endpoints) {
    let mut by_reader: Vec<(EntityId, Vec<CacheChange>)> = Vec::new();
    for (reader, _, changes) in set.parts {
        match by_reader.iter_mut().find(|(r, _)| *r == reader) {
            Some((_, v)) => v.extend(changes),
            None => by_reader.push((reader, changes)),
        }
    }
    for (reader, mut changes) in by_reader {
        // The publisher's group order (each writer's SN order is part of it).
        changes.sort_by_key(|c| c.group.map(|g| g.gsn));
        if let Some(r) = endpoints.reader_by_id_mut(reader) {
            r.reader.deliver_group_part(now, changes);
        }
    }
}
