//! Writer groups: the publishers whose PRESENTATION has access scope GROUP with coherent or
//! ordered access (DDS 1.4 §2.2.3.6), as RTPS 2.5 §8.7.6 puts them on the wire. A group's
//! writers share one sequence of group sequence numbers (GSN, PID_GROUP_SEQ_NUM on every
//! change), a group coherent set is named by the GSN of its first change
//! (PID_GROUP_COHERENT_SET on every change of the set), and each taking part writer ends its
//! part with an end-of-set marker that also names the set's writers (PID_WRITER_GROUP_INFO:
//! the writerSet digest). The writers' HEARTBEATs carry the group's GroupInfo
//! (`core::writer::group`).
//!
//! A piece of the participant's PRESENTATION part (`presentation.rs`).
//!
//! Must not: know which writers form a publisher on its own (the API says so with
//! `Participant::join_writer_group`), hold more than [`MAX_GROUP_WRITERS`] writers per group,
//! or send anything itself.
//!
//! The writerSet digest is our reading of RTPS 2.5 §9.3.2 (GroupDigest_t, 4 octets): the
//! first 4 octets of the MD5 of the taking-part writers' EntityIds, ascending, 4 octets each
//! (docs/interop-facts.md §8.4).

use std::collections::BTreeMap;

use md5::{Digest, Md5};

use crate::core::GroupStamp;
use crate::wire::{EntityId, GroupDigest, Guid, SequenceNumber};

/// Most writers in one group; more are not added to it (they write outside the group).
pub const MAX_GROUP_WRITERS: usize = 64;

/// One writer group (a publisher).
#[derive(Debug, Default)]
struct WriterGroup {
    writers: Vec<EntityId>,
    /// The last GSN given out (0: none yet).
    last_gsn: SequenceNumber,
    /// Coherent access: changes between begin and end form group coherent sets.
    coherent: bool,
    /// Open begin/end pairs and the set's first GSN once a change was written.
    depth: u32,
    first: Option<SequenceNumber>,
}

impl WriterGroup {
    fn next_gsn(&mut self) -> Option<SequenceNumber> {
        self.last_gsn = self.last_gsn.checked_add(1)?;
        Some(self.last_gsn)
    }
}

/// The participant's writer groups.
#[derive(Debug, Default)]
pub(super) struct WriterGroups {
    groups: BTreeMap<EntityId, WriterGroup>,
    of_writer: BTreeMap<EntityId, EntityId>,
}

/// The writerSet digest of `writers` (any order, duplicates ignored).
pub fn writer_set_digest(writers: &[EntityId]) -> GroupDigest {
    let mut ids: Vec<[u8; 4]> = writers.iter().map(|e| e.0).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut h = Md5::new();
    for id in &ids {
        h.update(id);
    }
    let d = h.finalize();
    let mut out = [0u8; 4];
    for (o, b) in out.iter_mut().zip(d.iter()) {
        *o = *b;
    }
    GroupDigest(out)
}

impl WriterGroups {
    /// The group of `writer`, if any.
    fn group_of(&mut self, writer: EntityId) -> Option<&mut WriterGroup> {
        let key = self.of_writer.get(&writer)?;
        self.groups.get_mut(key)
    }

    /// The stamp of `writer`'s next change, consuming a GSN; `None` outside any group.
    pub(super) fn stamp(&mut self, writer: EntityId) -> Option<GroupStamp> {
        let g = self.group_of(writer)?;
        let gsn = g.next_gsn()?;
        let coherent_set = (g.coherent && g.depth > 0).then(|| *g.first.get_or_insert(gsn));
        Some(GroupStamp {
            gsn,
            coherent_set,
            writer_set: None,
        })
    }

    /// The groups of `writers`, each once, in the order their first writer comes.
    fn distinct_groups(&self, writers: &[Guid]) -> Vec<EntityId> {
        let mut seen = Vec::new();
        for w in writers {
            if let Some(&key) = self.of_writer.get(&w.entity_id)
                && !seen.contains(&key)
            {
                seen.push(key);
            }
        }
        seen
    }

    /// The group's writers, its last GSN and its writerSet, for `writer`'s group.
    pub(super) fn position(&self, writer: EntityId) -> Option<(Vec<EntityId>, SequenceNumber)> {
        let key = self.of_writer.get(&writer)?;
        let g = self.groups.get(key)?;
        Some((g.writers.clone(), g.last_gsn))
    }
}

impl WriterGroups {
    /// Puts the `known` writers (local writers of one publisher, in creation order, the
    /// first naming the group) into one writer group, with or without group coherent sets.
    /// Returns those that were in no group before (their DATA(w) now names the group).
    pub(super) fn join(
        &mut self,
        key: EntityId,
        known: &[EntityId],
        coherent: bool,
    ) -> Vec<EntityId> {
        let group = self.groups.entry(key).or_default();
        group.coherent = coherent;
        let mut joined = Vec::new();
        for e in known.iter().take(MAX_GROUP_WRITERS) {
            if !group.writers.contains(e) {
                group.writers.push(*e);
            }
            if self.of_writer.insert(*e, key).is_none() {
                joined.push(*e);
            }
        }
        joined
    }

    /// The key of `writer`'s group, if grouped.
    pub(super) fn key_of(&self, writer: EntityId) -> Option<EntityId> {
        self.of_writer.get(&writer).copied()
    }

    /// A begin_coherent_changes on `writers`: opens (or nests) their groups' coherent sets.
    pub(super) fn begin(&mut self, writers: &[Guid]) {
        for key in self.distinct_groups(writers) {
            if let Some(g) = self.groups.get_mut(&key) {
                if g.coherent {
                    g.depth = g.depth.saturating_add(1);
                }
            }
        }
    }

    /// The end-of-set stamps for an end_coherent_changes on `writers` that closes their
    /// group's set: one per writer that wrote changes in it (`taking_part`), all naming the set
    /// and its writerSet. Empty when no group set closes here (nested pair, no group, or an
    /// empty set).
    pub(super) fn end(
        &mut self,
        writers: &[Guid],
        taking_part: &[EntityId],
    ) -> Vec<(EntityId, GroupStamp)> {
        let mut out = Vec::new();
        for key in self.distinct_groups(writers) {
            let Some(g) = self.groups.get_mut(&key) else {
                continue;
            };
            if !g.coherent || g.depth == 0 {
                continue;
            }
            g.depth = g.depth.saturating_sub(1);
            if g.depth > 0 {
                continue;
            }
            let Some(first) = g.first.take() else {
                continue;
            };
            let part: Vec<EntityId> = g
                .writers
                .iter()
                .copied()
                .filter(|e| taking_part.contains(e))
                .collect();
            let writer_set = writer_set_digest(&part);
            for e in part {
                let Some(gsn) = g.next_gsn() else {
                    break;
                };
                out.push((
                    e,
                    GroupStamp {
                        gsn,
                        coherent_set: Some(first),
                        writer_set: Some(writer_set),
                    },
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
