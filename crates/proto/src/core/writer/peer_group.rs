//! The writer's side of the peer-group cache (issue 18, docs/peer-group-cache.md §5): for a
//! writer that is a member of a peer group, which matched readers are capable intermediaries,
//! and, per first unicast push of a change to one of them, whether it goes in full, in full
//! with the definition PID (0x8100), or as the abbreviated vendor submessage (0x81).
//!
//! Must not: send abbreviated samples by multicast, in a shared datagram, as a repair, to a
//! reader that did not advertise the capability, or before that reader acknowledged the
//! definition (the decision table is `core::peer_group::publisher`); abbreviate a change it
//! cannot rebuild exactly (not ALIVE, keyed without a key hash, in a coherent set, relayed,
//! or not splittable).
//! Cooperation (docs/peer-group-cache.md §5 rules 13–15): the writer keeps the digests of
//! its most recent distinct projections (at most `wire::MAX_ANNOUNCED_PROJECTIONS`) and asks
//! the participant to re-announce its SEDP data when a new one enters, at most once per
//! [`ANNOUNCE_INTERVAL`]; an intermediary's eviction notices make it forget those keys.
//! No I/O, no clock (`now` is passed in).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::change_filter::ReaderSlot;
use super::history::WriterHistory;
use super::message::MessageBuilder;
use super::push::{Action, Cursor};
use super::push_queue::Input;
use super::repair::{FilterInfo, info_for, succ};
use crate::core::peer_group::publisher::{Path, PeerCache, SendAs};
use crate::core::peer_group::split::{common_segments, split};
use crate::core::peer_group::{config::type_hash, group_id, key_of};
use crate::core::{CacheChange, ChangeKind};
use crate::time::Instant;
use crate::types::TypeDescriptor;
use crate::wire::{
    Capability, EvictionNotice, Guid, KeyDefinition, KeyRef, MAX_ANNOUNCED_PROJECTIONS,
    ProjectionAnnouncement, SequenceNumber,
};

/// Most intermediary peers one writer tracks.
pub const MAX_PEERS: usize = 16;
/// Shortest time between two re-announcements of a writer's projections (SEDP DATA(w)): a
/// writer whose common part rotates fast is announced at this rate, not per sample.
pub const ANNOUNCE_INTERVAL: core::time::Duration = core::time::Duration::from_millis(500);

/// What a member writer needs: its group and how to split its samples.
#[derive(Clone, Debug)]
pub struct GroupMembership {
    /// The group name (its wire id is `peer_group::group_id` of it).
    pub group: String,
    /// The type name (its key hash is `config::type_hash` of it).
    pub type_name: String,
    /// The common member names (checked against `descriptor` when configured).
    pub common: Vec<String>,
    /// The sample type.
    pub descriptor: Arc<TypeDescriptor>,
}

/// Counters of a member writer.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerGroupWriterCounters {
    /// First pushes to an intermediary in full (no key, or not splittable).
    pub full: u64,
    /// First pushes carrying a definition.
    pub defines: u64,
    /// Abbreviated samples sent.
    pub abbreviated: u64,
    /// Of those, sent with an alias (the others with the short key: binding too old).
    pub aliased: u64,
    /// Bytes of those pushes: a full DATA's or definition's payload (+ the definition
    /// parameter), an abbreviated submessage whole (header included).
    pub upstream_bytes: u64,
    /// Abbreviated samples the intermediary NACKed (unknown key), each repaired in full.
    pub nacked: u64,
    /// Keys forgotten because the intermediary announced their eviction (§4.3).
    pub evicted_forgotten: u64,
    /// Re-announcements of the writer's projections (SEDP).
    pub announcements: u64,
}

/// The writer's peer-group state (`None` group: not a member, nothing changes).
#[derive(Debug, Default)]
pub(super) struct PeerGroupWriter {
    member: Option<(GroupMembership, u32, u64)>,
    peers: BTreeMap<Guid, PeerCache>,
    pub(super) counters: PeerGroupWriterCounters,
    /// Digests of the most recent distinct projections, newest first.
    projections: Vec<u64>,
    /// A new projection entered `projections` since the last announcement.
    announce_pending: bool,
    /// When the projections were last announced.
    announced_at: Option<Instant>,
}

impl PeerGroupWriter {
    /// Joins (`Some`) or leaves (`None`) a group. Leaving forgets every peer's state: later
    /// pushes are full.
    pub(super) fn set_membership(&mut self, m: Option<GroupMembership>) {
        self.member = m.map(|m| {
            let (g, t) = (group_id(&m.group), type_hash(&m.type_name));
            (m, g, t)
        });
        self.peers.clear();
        self.projections.clear();
        self.announce_pending = false;
    }

    /// What the writer announces in SEDP: its group and current projections (none when not a
    /// member or nothing was split yet).
    pub(super) fn announcement(&self) -> Option<ProjectionAnnouncement> {
        let (_, group, _) = self.member.as_ref()?;
        (!self.projections.is_empty()).then(|| ProjectionAnnouncement {
            group: *group,
            digests: self.projections.clone(),
        })
    }

    /// When a re-announcement is due (`None`: nothing new to announce).
    pub(super) fn announce_due(&self) -> Option<Instant> {
        self.announce_pending.then(|| {
            self.announced_at
                .map_or(Instant::ZERO, |t| t.saturating_add(ANNOUNCE_INTERVAL))
        })
    }

    /// True (once) when the projections should be re-announced at `now`.
    pub(super) fn take_announcement(&mut self, now: Instant) -> bool {
        if self.announce_due().is_some_and(|t| t <= now) {
            self.announce_pending = false;
            self.announced_at = Some(now);
            self.counters.announcements = self.counters.announcements.saturating_add(1);
            return true;
        }
        false
    }

    /// A sample with projection `digest` is being sent: it becomes the newest; a digest not
    /// announced yet makes a re-announcement pending. An unkeyed writer has one current
    /// projection; a keyed one up to `MAX_ANNOUNCED_PROJECTIONS` (its instances may carry
    /// different common parts, all current).
    fn note_projection(&mut self, digest: u64, keyed: bool) {
        if let Some(i) = self.projections.iter().position(|d| *d == digest) {
            self.projections.remove(i);
        } else {
            self.announce_pending = true;
        }
        self.projections.insert(0, digest);
        let keep = if keyed { MAX_ANNOUNCED_PROJECTIONS } else { 1 };
        self.projections.truncate(keep);
    }

    /// True when `reader` is a capable intermediary of our group.
    pub(super) fn is_peer(&self, reader: Guid) -> bool {
        self.member.is_some() && self.peers.contains_key(&reader)
    }

    /// A matched reader's capability (`None`: not, or no longer, an intermediary) and its
    /// eviction notices. Returns whether it is a peer now.
    pub(super) fn set_peer(
        &mut self,
        reader: Guid,
        cap: Option<Capability>,
        evicted: &[EvictionNotice],
    ) -> bool {
        match cap {
            Some(c) if self.member.is_some() => {
                if !self.peers.contains_key(&reader) && self.peers.len() >= MAX_PEERS {
                    return false;
                }
                let peer = self.peers.entry(reader).or_default();
                peer.handle_capability(Some(c));
                let n = peer.handle_evictions(evicted);
                let n = u64::try_from(n).unwrap_or(u64::MAX);
                self.counters.evicted_forgotten = self.counters.evicted_forgotten.saturating_add(n);
                true
            }
            _ => {
                self.peers.remove(&reader);
                false
            }
        }
    }

    /// The reader's ACKNACK (base and the SNs it asks for).
    pub(super) fn on_acknack(
        &mut self,
        reader: Guid,
        base: SequenceNumber,
        missing: &[SequenceNumber],
    ) {
        if let Some(p) = self.peers.get_mut(&reader) {
            let n = u64::try_from(p.handle_acknack(base, missing)).unwrap_or(u64::MAX);
            self.counters.nacked = self.counters.nacked.saturating_add(n);
        }
    }

    /// The first push of `action` at `at` to `reader` alone. `None`: not ours, the burst's
    /// ordinary step applies. `Some(false)`: the message is full (the burst ends).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push(
        &mut self,
        reader: Guid,
        unicast: bool,
        slot: Option<ReaderSlot>,
        history: &WriterHistory,
        keyed: bool,
        b: &mut MessageBuilder,
        at: &mut Cursor,
        action: Action,
    ) -> Option<bool> {
        if action != Action::Data || !unicast {
            return None;
        }
        let (m, group, thash) = self.member.as_ref()?;
        let peer = self.peers.get_mut(&reader)?;
        let sn = at.sn;
        let c = history.get(sn)?;
        let split = peer
            .generation()
            .filter(|_| abbreviable(c, keyed))
            .and_then(|generation| {
                let segments = common_segments(&m.descriptor, &m.common, &c.data).ok()?;
                let (projection, rest) = split(&c.data, segments).ok()?;
                let key = key_of(*group, generation, *thash, &projection);
                Some((key, projection, rest))
            });
        let decision = split.as_ref().map_or(SendAs::Full, |(key, _, _)| {
            peer.decide(*key, sn, Path::Unicast)
        });
        // The alias of the acknowledged binding, else the short key (the binding too old).
        let key_ref = split.as_ref().map(|(key, _, _)| {
            peer.alias(key, sn)
                .map_or(KeyRef::Digest(key.digest), KeyRef::Alias)
        });
        if let Some((key, _, _)) = &split {
            self.note_projection(key.digest, keyed);
        }
        let cfi = info_for(history, sn, slot);
        let cfi = cfi.as_ref().map(FilterInfo::bytes);
        let ok = match (decision, split) {
            (SendAs::Define, Some((key, projection, _))) => {
                let def = KeyDefinition::new(key, projection.segments).ok()?;
                let ok = b.data_defining(c, cfi, &def);
                if ok {
                    self.counters.defines = self.counters.defines.saturating_add(1);
                    // The DATA's payload and the definition parameter (4-octet header).
                    let n = c.data.len().saturating_add(def.buffer_len());
                    self.count_bytes(n.saturating_add(4));
                }
                ok
            }
            (SendAs::Abbreviated, Some((_, _, rest))) => {
                let Some(key_ref) = key_ref else {
                    return None; // invariant: a split sample has a key reference.
                };
                let len = b.abbreviated(c, key_ref, &rest);
                if len > 0 {
                    self.counters.abbreviated = self.counters.abbreviated.saturating_add(1);
                    if matches!(key_ref, KeyRef::Alias(_)) {
                        self.counters.aliased = self.counters.aliased.saturating_add(1);
                    }
                    self.count_bytes(len);
                }
                len > 0
            }
            _ => {
                // In full by the ordinary step (which also fragments a large sample).
                self.counters.full = self.counters.full.saturating_add(1);
                self.count_bytes(c.data.len());
                return None;
            }
        };
        if !ok && b.has_content() {
            return Some(false);
        }
        if ok {
            *at = Cursor {
                sn: succ(sn),
                frag: 1,
                gap_from: succ(sn),
            };
            return Some(true);
        }
        // Too large for an empty message: the ordinary step fragments it.
        None
    }

    fn count_bytes(&mut self, n: usize) {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        self.counters.upstream_bytes = self.counters.upstream_bytes.saturating_add(n);
    }
}

/// A change the intermediary can rebuild exactly from its key and rest: an ALIVE sample
/// with no inline QoS the abbreviated submessage cannot carry (coherent set, original
/// writer); a keyed one needs its key hash (flag H).
fn abbreviable(c: &CacheChange, keyed: bool) -> bool {
    c.kind == ChangeKind::Alive
        && (!keyed || c.key_hash.is_some())
        && c.coherent_set.is_none()
        && c.original_writer.is_none()
        && !c.data.is_empty()
}

impl super::Writer {
    /// Makes the writer a member of a peer group (`Some`) or not (`None`).
    pub fn set_peer_group(&mut self, membership: Option<GroupMembership>) {
        self.peer_group.set_membership(membership);
        for r in self.readers.iter_mut() {
            r.peer_group_peer = false;
        }
        self.queue.invalidate(Input::Regrouped, &mut self.readers);
    }

    /// A matched reader's peer-group capability (from its participant's discovery data,
    /// when it is our group's intermediary); `None` makes it an ordinary reader again.
    pub fn set_peer_group_peer(
        &mut self,
        reader: Guid,
        capability: Option<Capability>,
        evicted: &[EvictionNotice],
    ) {
        let peer = self.peer_group.set_peer(reader, capability, evicted);
        if let Some(r) = self
            .readers
            .find(reader)
            .and_then(|k| self.readers.get_mut(k))
        {
            r.peer_group_peer = peer;
        }
        self.queue.invalidate(Input::Regrouped, &mut self.readers);
    }

    /// The peer-group counters (all zero when not a member).
    pub fn peer_group_counters(&self) -> PeerGroupWriterCounters {
        self.peer_group.counters
    }

    /// The projections this writer announces in SEDP (`None`: not a member, or none yet).
    pub fn peer_group_announcement(&self) -> Option<ProjectionAnnouncement> {
        self.peer_group.announcement()
    }

    /// When the writer's projections are due for re-announcement (`None`: nothing new).
    pub fn peer_group_announce_due(&self) -> Option<Instant> {
        self.peer_group.announce_due()
    }

    /// True (once per change, at most once per `ANNOUNCE_INTERVAL`) when the participant
    /// should re-announce this writer's SEDP data at `now`.
    pub fn peer_group_take_announcement(&mut self, now: Instant) -> bool {
        self.peer_group.take_announcement(now)
    }

    /// The send step for a solo push to `dst` when it is a capable intermediary.
    pub(super) fn peer_group_step(
        &mut self,
        dst: Option<Guid>,
        burst: &super::push::Burst,
        b: &mut MessageBuilder,
        at: &mut Cursor,
        action: Action,
    ) -> Option<bool> {
        let g = dst.filter(|g| burst.solo && self.peer_group.is_peer(*g))?;
        let r = self.readers.find(g).and_then(|k| self.readers.get(k))?;
        // Rule 1: only by unicast to the intermediary itself.
        let unicast = !r.remote().unicast_locators.is_empty();
        let keyed = self.config.keyed;
        self.peer_group.push(
            g,
            unicast,
            burst.dst_slot,
            &self.history,
            keyed,
            b,
            at,
            action,
        )
    }
}
