//! The PRESENTATION part of the participant ([`Presentation`]): publishers with access
//! scope GROUP (writer groups, `group.rs`), the subscriber-side assembly of group coherent
//! sets (`group_sets.rs`), and coherent changes across a publisher's writers
//! (`coherent.rs`). DDS 1.4 §2.2.3.6; RTPS 2.5 §8.7.6.
//!
//! Owns: the writer groups and the group sets under assembly. The local writers and
//! readers are the endpoints part's (`endpoints.rs`), handed in.
//!
//! Must not: know which writers form a publisher on its own (the API passes them), deliver
//! part of a group set, or send anything itself (the transmits it returns go out through
//! the participant's outbound gate).

use super::coherent::merge;
use super::discovery::Discovery;
use super::endpoints::Endpoints;
use super::group::{WriterGroups, writer_set_digest};
use super::group_sets::GroupSets;
use crate::core::writer::WriteError;
use crate::core::{GroupStamp, Transmit};
use crate::time::Now;
use crate::wire::{EntityId, Guid, GuidPrefix};

/// The participant's PRESENTATION state (see the module overview).
#[derive(Debug, Default)]
pub(super) struct Presentation {
    /// Writer groups (GROUP access scope publishers).
    groups: WriterGroups,
    /// Group coherent sets under assembly (subscriber side).
    sets: GroupSets,
}

impl Presentation {
    /// Puts `writers` (local writers of one publisher, in creation order) into one writer
    /// group named by the first one; unknown writers are left out. Returns the writers that
    /// joined, whose DATA(w) now names the group (to announce again).
    pub(super) fn join_writer_group(
        &mut self,
        writers: &[Guid],
        coherent: bool,
        endpoints: &Endpoints,
    ) -> Vec<Guid> {
        let Some(first) = writers.first() else {
            return Vec::new();
        };
        let known: Vec<EntityId> = writers
            .iter()
            .map(|g| g.entity_id)
            .filter(|e| endpoints.has_writer(*e))
            .collect();
        let joined = self.groups.join(first.entity_id, &known, coherent);
        joined
            .into_iter()
            .map(|e| Guid::new(first.prefix, e))
            .collect()
    }

    /// The group GUID (PID_GROUP_GUID: the publisher) of local writer `writer`, if grouped:
    /// our prefix `ours` with the group's key and entity kind 0x08 (user-defined writer
    /// group, RTPS 2.5 Table 9.1).
    pub(super) fn writer_group_guid(&self, ours: GuidPrefix, writer: EntityId) -> Option<Guid> {
        let [a, b, c, _] = self.groups.key_of(writer)?.0;
        Some(Guid::new(ours, EntityId([a, b, c, 0x08])))
    }

    /// The stamp of local writer `writer`'s next change (a GSN when it is in a group).
    pub(super) fn stamp(&mut self, writer: EntityId) -> Option<GroupStamp> {
        self.groups.stamp(writer)
    }

    /// Tells every writer of `writer`'s group the group's new highest GSN.
    pub(super) fn written(&mut self, writer: EntityId, endpoints: &mut Endpoints) {
        let Some((members, last)) = self.groups.position(writer) else {
            return;
        };
        let set = writer_set_digest(&members);
        for e in members {
            if let Some(w) = endpoints.writer_by_id_mut(e) {
                w.writer.set_group_position(last, set);
            }
        }
    }

    /// Starts (or nests) a coherent set on each of `writers` (unknown ones are skipped: a
    /// deleted writer has nothing left to make coherent).
    pub(super) fn begin_coherent_changes(&mut self, writers: &[Guid], endpoints: &mut Endpoints) {
        for guid in writers {
            if let Some(w) = endpoints.writer_mut(*guid) {
                w.writer.begin_coherent_changes();
            }
        }
        self.groups.begin(writers);
    }

    /// Ends the coherent set of each of `writers`: each writes its end-of-set marker. The
    /// first error is returned after every writer was ended, with what the writers have to
    /// send right away, merged (`coherent.rs`), to go out before anything else.
    pub(super) fn end_coherent_changes(
        &mut self,
        now: Now,
        writers: &[Guid],
        endpoints: &mut Endpoints,
    ) -> (Result<(), WriteError>, Vec<Transmit>) {
        let mut result = Ok(());
        let mut out = Vec::new();
        let taking_part: Vec<_> = writers
            .iter()
            .filter(|g| {
                endpoints
                    .writer(**g)
                    .is_some_and(|w| w.writer.coherent_set_closes_with_marker())
            })
            .map(|g| g.entity_id)
            .collect();
        let stamps = self.groups.end(writers, &taking_part);
        for guid in writers {
            let stamp = stamps
                .iter()
                .find(|(e, _)| *e == guid.entity_id)
                .map(|(_, s)| *s);
            if let Some(w) = endpoints.writer_mut(*guid) {
                if let Err(e) = w.writer.end_coherent_changes_stamped(now, stamp) {
                    result = result.and(Err(e));
                }
            }
            if stamp.is_some() {
                self.written(guid.entity_id, endpoints);
            }
        }
        for guid in writers {
            if let Some(w) = endpoints.writer_mut(*guid) {
                while let Some(t) = w.writer.poll_transmit(now) {
                    out.push(t);
                }
            }
        }
        (result, merge(out))
    }

    /// Collects the readers' finished group parts and delivers every group set made whole.
    pub(super) fn assemble(&mut self, now: Now, endpoints: &mut Endpoints, discovery: &Discovery) {
        self.sets.assemble(now, endpoints, discovery);
    }

    /// A remote writer of participant `prefix` went away: its sets under assembly are
    /// dropped.
    pub(super) fn remote_writer_gone(&mut self, prefix: GuidPrefix, endpoints: &mut Endpoints) {
        self.sets.remote_writer_gone(prefix, endpoints);
    }
}
