//! The participant's part in peer-group caching (issue 18, docs/peer-group-cache.md): the
//! configured groups (`ParticipantConfig::peer_groups`); on a member, which local writers
//! are in a group and which matched readers are its capable intermediary (its SPDP carries
//! PID_SIFTDDS_PEER_GROUP_CAPABILITY and it matches the group's intermediary rule); on an
//! intermediary, the per-(group, type) caches that take definitions (DATA + PID 0x8100) and
//! restore abbreviated samples (vendor submessage 0x81) into ordinary DATA handed to the
//! local readers (the router's proxy readers, which forward them in full).
//!
//! Cooperation (docs/peer-group-cache.md §5 rules 13–15): a member writer's SEDP data carries
//! its current projection digests (PID 0x8102), re-announced when a new one enters; the
//! intermediary's caches keep announced entries; its evictions go out as notices in its SPDP
//! (PID 0x8103, at most once per [`NOTICE_INTERVAL`]), and every SPDP update of an
//! intermediary refreshes the peer state of the local writers matched with it.
//!
//! Owns ([`PeerGroup`], a part of the participant): the intermediary's caches and when its
//! eviction notices last moved an announcement. The configuration, our SPDP data (capability
//! and notices) and the local writers are handed in.
//!
//! Must not: read a vendor PID or submessage from anything but a siftdds sender, deliver a
//! sample it could not restore exactly (an unknown key delivers nothing; the reliable reader
//! NACKs the hole and the writer repairs it in full), share a cache across groups, hold more
//! than [`MAX_CACHES`] caches, or do I/O.

use std::collections::BTreeMap;

use super::ParticipantConfig;
use super::discovery::Discovery;
use super::endpoints::Endpoints;
use super::receiver::ReceiverState;
use crate::cdr::{CdrReader, CdrWriter, Endianness};
use crate::core::peer_group::config::{PeerGroupConfig, PeerGroupError, type_hash, validate_all};
use crate::core::peer_group::intermediary::{
    CacheStats, DefineOutcome, GroupCache, GroupConfig, Restore,
};
use crate::core::peer_group::split::check_common;
use crate::core::writer::{GroupMembership, PeerGroupWriterCounters};
use crate::time::{Instant, Now};
use crate::wire::plist::pid::PID_KEY_HASH;
use crate::wire::plist::{Parameter, ParameterListView, Value, emit_parameter_list};
use crate::wire::submessage::{Data, DataPayload};
use crate::wire::{
    AbbreviatedData, Capability, EntityId, EvictionNotice, Guid, GuidPrefix, KeyDefinition,
    MAX_EVICTION_NOTICES, SequenceNumber, VendorId,
};

/// Most (group, type) caches one intermediary holds.
pub const MAX_CACHES: usize = 64;
/// Shortest time between two SPDP announcements made early for new eviction notices (the
/// periodic announcement carries them too).
pub const NOTICE_INTERVAL: core::time::Duration = core::time::Duration::from_millis(100);

/// The intermediary's caches.
#[derive(Debug, Default)]
pub(super) struct PeerGroup {
    caches: BTreeMap<(u32, u64), GroupCache>,
    /// Definitions whose PID did not decode, and caches refused for the bound.
    malformed: u64,
    /// When SPDP was last moved earlier for eviction notices.
    notice_at: Option<Instant>,
}

/// The peer-group counters of a participant: its caches' (as intermediary) and its
/// writers' (as member), summed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PeerGroupStats {
    /// Summed over the intermediary's caches.
    pub cache: CacheStats,
    /// Summed over the member writers.
    pub writers: PeerGroupWriterCounters,
    /// Entries held now.
    pub entries: usize,
    /// Malformed definitions, and caches refused for [`MAX_CACHES`].
    pub malformed: u64,
}

/// The capability our SPDP announces: the largest capacity of the groups we are the
/// intermediary of, and generation `generation`.
pub(super) fn capability_of(
    groups: &[PeerGroupConfig],
    name: Option<&str>,
    prefix: GuidPrefix,
    generation: u32,
) -> Option<Capability> {
    let capacity = groups
        .iter()
        .filter(|g| g.is_intermediary(name, prefix.0))
        .map(|g| g.capacity)
        .max()?;
    Some(Capability {
        capacity: u32::try_from(capacity).unwrap_or(u32::MAX),
        generation,
    })
}

/// The generation a participant starts at: from its GUID prefix, so a restarted
/// intermediary (a new prefix) starts another one. The prefix's three 32-bit words are
/// folded (XOR): a runtime prefix is the vendor id and 80 random bits
/// (`runtime::guid::random_guid_prefix`), so all 32 bits of the generation are random, not
/// only the 16 beside the vendor id.
pub(super) fn first_generation(prefix: GuidPrefix) -> u32 {
    let [a, b, c, d, e, f, g, h, i, j, k, l] = prefix.0;
    u32::from_be_bytes([a, b, c, d])
        ^ u32::from_be_bytes([e, f, g, h])
        ^ u32::from_be_bytes([i, j, k, l])
}

/// An abbreviated sample restored: the DATA it stands for.
pub(super) struct Restored {
    endian: Endianness,
    reader_id: EntityId,
    writer_id: EntityId,
    writer_sn: SequenceNumber,
    key_hash: Option<[u8; 16]>,
    payload: Vec<u8>,
}

impl Restored {
    /// Calls `f` with the DATA (a keyed sample's PID_KEY_HASH inline, flag H, as the DATA
    /// would have carried it). `None` when the inline QoS does not encode.
    pub(super) fn with_data<R>(&self, f: impl FnOnce(Data<'_>) -> R) -> Option<R> {
        let mut qos = Vec::new();
        if let Some(k) = self.key_hash {
            let p = Parameter::Known {
                pid: PID_KEY_HASH,
                value: Value::KeyHash(k),
            };
            emit_parameter_list([&p], &mut CdrWriter::new(&mut qos, self.endian)).ok()?;
        }
        let inline_qos = match qos.is_empty() {
            true => None,
            false => {
                Some(ParameterListView::new_checked(&mut CdrReader::new(&qos, self.endian)).ok()?)
            }
        };
        Some(f(Data {
            endian: self.endian,
            extra_flags: 0,
            reader_id: self.reader_id,
            writer_id: self.writer_id,
            writer_sn: self.writer_sn,
            inline_qos,
            payload: DataPayload::Data(&self.payload),
        }))
    }
}

impl PeerGroup {
    /// Replaces the configured peer groups in `config` (a writer leaves its group when its
    /// rule goes; the caller re-syncs every local writer, [`Self::sync_writer`]). Our SPDP
    /// is re-announced at the next timeout when our capability changed.
    ///
    /// Errors: a group's configuration is invalid ([`PeerGroupConfig::validate`]) or two
    /// groups share a wire id.
    pub(super) fn set_groups(
        &mut self,
        groups: Vec<PeerGroupConfig>,
        config: &mut ParticipantConfig,
        discovery: &mut Discovery,
    ) -> Result<(), PeerGroupError> {
        validate_all(&groups)?;
        // What our caches' contents depend on (membership does not: it is checked per
        // message, and entries are keyed by content).
        let (name, prefix) = (config.entity_name.clone(), config.guid_prefix);
        let cached = |gs: &[PeerGroupConfig]| -> Vec<PeerGroupConfig> {
            gs.iter()
                .filter(|g| g.is_intermediary(name.as_deref(), prefix.0))
                .map(|g| PeerGroupConfig {
                    members: Vec::new(),
                    ..g.clone()
                })
                .collect()
        };
        let changed = cached(&config.peer_groups) != cached(&groups);
        config.peer_groups = groups;
        let mut generation = discovery
            .local_data()
            .peer_group
            .map_or_else(|| first_generation(prefix), |c| c.generation);
        // Another configuration drops our caches: a new generation, which every writer
        // learns from our SPDP (rule "first sample in full").
        if changed && !self.caches.is_empty() {
            self.caches.clear();
            discovery.local_data_mut().peer_group_evicted.clear();
            generation = generation.wrapping_add(1);
        }
        let cap = capability_of(
            &config.peer_groups,
            config.entity_name.as_deref(),
            prefix,
            generation,
        );
        if cap != discovery.local_data().peer_group {
            discovery.local_data_mut().peer_group = cap;
            discovery.announce_by(Instant::ZERO);
        }
        Ok(())
    }

    /// The peer-group counters.
    pub(super) fn stats(&self, endpoints: &Endpoints) -> PeerGroupStats {
        let mut s = PeerGroupStats {
            malformed: self.malformed,
            ..Default::default()
        };
        for c in self.caches.values() {
            let t = c.stats();
            let a = &mut s.cache;
            a.defines = a.defines.saturating_add(t.defines);
            a.hits = a.hits.saturating_add(t.hits);
            a.misses = a.misses.saturating_add(t.misses);
            a.evictions = a.evictions.saturating_add(t.evictions);
            a.refused_non_member = a.refused_non_member.saturating_add(t.refused_non_member);
            a.refused_bad = a.refused_bad.saturating_add(t.refused_bad);
            a.collisions = a.collisions.saturating_add(t.collisions);
            a.kept_announced = a.kept_announced.saturating_add(t.kept_announced);
            a.stale_generation = a.stale_generation.saturating_add(t.stale_generation);
            a.announcements = a.announcements.saturating_add(t.announcements);
            a.departed = a.departed.saturating_add(t.departed);
            a.unbound_aliases = a.unbound_aliases.saturating_add(t.unbound_aliases);
            s.entries = s.entries.saturating_add(c.len());
        }
        for (_, w) in endpoints.writers() {
            let t = w.writer.peer_group_counters();
            let a = &mut s.writers;
            a.full = a.full.saturating_add(t.full);
            a.defines = a.defines.saturating_add(t.defines);
            a.abbreviated = a.abbreviated.saturating_add(t.abbreviated);
            a.aliased = a.aliased.saturating_add(t.aliased);
            a.upstream_bytes = a.upstream_bytes.saturating_add(t.upstream_bytes);
            a.nacked = a.nacked.saturating_add(t.nacked);
            a.evicted_forgotten = a.evicted_forgotten.saturating_add(t.evicted_forgotten);
            a.announcements = a.announcements.saturating_add(t.announcements);
        }
        s
    }

    /// Re-evaluates local writer `writer`'s membership and every matched reader's peer state.
    pub(super) fn sync_writer(
        &self,
        writer: Guid,
        config: &ParticipantConfig,
        endpoints: &mut Endpoints,
        discovery: &Discovery,
    ) {
        let membership = member_group(writer, config, endpoints).and_then(|g| {
            let w = endpoints.writer(writer)?;
            let desc = w.spec.descriptor.clone()?;
            if let Err(e) = check_common(&desc, &g.common, &g.sensitive) {
                log::warn!("writer {writer}: not caching in peer group {}: {e}", g.name);
                return None;
            }
            Some(GroupMembership {
                group: g.name.clone(),
                type_name: w.spec.type_name.clone(),
                common: g.common.clone(),
                descriptor: desc,
            })
        });
        let Some(w) = endpoints.writer_mut(writer) else {
            return;
        };
        w.writer.set_peer_group(membership);
        let readers: Vec<Guid> = w.matched.iter().copied().collect();
        for r in readers {
            self.matched(writer, r, config, endpoints, discovery);
        }
    }

    /// Local writer `writer` matched (or re-matched) remote reader `reader`. The reader is a
    /// peer when the writer is a member and the reader's participant is a siftdds
    /// intermediary of the group that announced the capability.
    pub(super) fn matched(
        &self,
        writer: Guid,
        reader: Guid,
        config: &ParticipantConfig,
        endpoints: &mut Endpoints,
        discovery: &Discovery,
    ) {
        let coop = config.peer_group_cooperation;
        let peer = member_group(writer, config, endpoints).and_then(|g| {
            let d = discovery.remote_participant(reader.prefix)?;
            let ok = d.vendor_id == VendorId::SIFTDDS
                && g.is_intermediary(d.entity_name.as_deref(), reader.prefix.0);
            // Without cooperation the notices are ignored (evicted keys cost a NACK).
            let notices = if coop {
                d.peer_group_evicted.clone()
            } else {
                Vec::new()
            };
            ok.then(|| d.peer_group.map(|c| (c, notices))).flatten()
        });
        if let Some(w) = endpoints.writer_mut(writer) {
            match peer {
                Some((cap, evicted)) => w.writer.set_peer_group_peer(reader, Some(cap), &evicted),
                None => w.writer.set_peer_group_peer(reader, None, &[]),
            }
        }
    }

    /// The SPDP data of participant `prefix` changed (capability, generation, eviction
    /// notices). Every local writer matched with one of its readers refreshes that peer.
    pub(super) fn participant_updated(
        &self,
        prefix: GuidPrefix,
        config: &ParticipantConfig,
        endpoints: &mut Endpoints,
        discovery: &Discovery,
    ) {
        let ours = config.guid_prefix;
        let pairs: Vec<(Guid, Guid)> = endpoints
            .writers()
            .flat_map(|(id, w)| {
                let me = Guid::new(ours, *id);
                w.matched
                    .iter()
                    .filter(|r| r.prefix == prefix)
                    .map(move |r| (me, *r))
            })
            .collect();
        for (w, r) in pairs {
            self.matched(w, r, config, endpoints, discovery);
        }
    }

    /// Remote writer `writer`'s SEDP data arrived (its projection announcement).
    pub(super) fn writer_announced(
        &mut self,
        writer: Guid,
        config: &ParticipantConfig,
        discovery: &Discovery,
    ) {
        if discovery.local_data().peer_group.is_some() {
            let _ = self.cache_for(writer, config, discovery);
        }
    }

    /// Remote writer `writer` is gone (SEDP dispose, or its participant's lease expired,
    /// RTPS 2.5 §8.5.3.3): no longer a member of any cache, its announcement no longer keeps
    /// entries, and the entries only it defined are dropped (`GroupCache::forget_writer`);
    /// their eviction notices go out from the next timeout ([`Self::reannounce`]).
    pub(super) fn writer_gone(&mut self, writer: Guid) {
        for c in self.caches.values_mut() {
            c.forget_writer(&writer);
        }
    }

    /// Records the entries dropped outside a definition (a member gone) as eviction notices,
    /// and returns the local writers whose projections changed, to re-announce (SEDP), at
    /// most once per `writer::peer_group::ANNOUNCE_INTERVAL` each.
    pub(super) fn reannounce(
        &mut self,
        now: Now,
        ours: GuidPrefix,
        endpoints: &mut Endpoints,
        discovery: &mut Discovery,
    ) -> Vec<Guid> {
        let dropped: Vec<(u32, Vec<u64>)> = self
            .caches
            .iter_mut()
            .filter(|(_, c)| c.has_evicted())
            .map(|((group, _), c)| (*group, c.take_evicted()))
            .collect();
        for (group, evicted) in dropped {
            self.notices(now, (group, evicted, None), discovery);
        }
        endpoints
            .writers_mut()
            .filter_map(|(id, w)| {
                w.writer
                    .peer_group_take_announcement(now.mono)
                    .then(|| Guid::new(ours, *id))
            })
            .collect()
    }

    /// The earliest re-announcement of a local writer's projections.
    pub(super) fn poll_timeout(&self, endpoints: &Endpoints) -> Option<Instant> {
        if self.caches.values().any(GroupCache::has_evicted) {
            return Some(Instant::ZERO);
        }
        endpoints
            .writers()
            .filter_map(|(_, w)| w.writer.peer_group_announce_due())
            .min()
    }

    /// Records what a definition evicted (and that `stored` is held again) in our SPDP's
    /// eviction notices; new notices move the next SPDP announcement earlier (rate-limited).
    fn notices(
        &mut self,
        now: Now,
        (group, evicted, stored): (u32, Vec<u64>, Option<u64>),
        discovery: &mut Discovery,
    ) {
        let list = &mut discovery.local_data_mut().peer_group_evicted;
        let before = list.clone();
        if let Some(d) = stored {
            list.retain(|n| !(n.group == group && n.digest == d));
        }
        for digest in evicted {
            let n = EvictionNotice { group, digest };
            list.retain(|o| *o != n);
            list.insert(0, n);
        }
        list.truncate(MAX_EVICTION_NOTICES);
        if *list != before {
            let at = self.notice_at.map_or(now.mono, |t| {
                t.saturating_add(NOTICE_INTERVAL).max(now.mono)
            });
            discovery.announce_by(at);
            self.notice_at = Some(at);
        }
    }

    /// The cache for remote writer `writer`'s group and type, created on first use, with the
    /// writer's membership brought up to date. `None`: we are not the intermediary of a group
    /// on its topic.
    fn cache_for(
        &mut self,
        writer: Guid,
        config: &ParticipantConfig,
        discovery: &Discovery,
    ) -> Option<&mut GroupCache> {
        let rw = discovery.remote_writer(writer)?;
        let (me, my_prefix) = (config.entity_name.as_deref(), config.guid_prefix);
        let g = config
            .peer_groups
            .iter()
            .find(|g| g.topic == rw.topic_name && g.is_intermediary(me, my_prefix.0))?;
        let name = discovery
            .remote_participant(writer.prefix)
            .and_then(|p| p.entity_name.as_deref());
        let member = g.is_member(&rw.topic_name, name, writer.prefix.0);
        let announced = rw
            .peer_group
            .as_ref()
            .filter(|a| a.group == g.id())
            .map(|a| a.digests.clone())
            .unwrap_or_default();
        let key = (g.id(), type_hash(&rw.type_name));
        let cache_config = GroupConfig {
            group: key.0,
            type_hash: key.1,
            capacity: g.capacity,
        };
        let generation = discovery
            .local_data()
            .peer_group
            .map_or_else(|| first_generation(my_prefix), |c| c.generation);
        if !self.caches.contains_key(&key) && self.caches.len() >= MAX_CACHES {
            self.malformed = self.malformed.saturating_add(1);
            return None;
        }
        let cache = self
            .caches
            .entry(key)
            .or_insert_with(|| GroupCache::new(cache_config, generation));
        if member {
            cache.add_member(writer);
            // Without cooperation announcements keep nothing (plain LRU).
            if config.peer_group_cooperation {
                cache.announce(&writer, &announced);
            }
        } else {
            cache.remove_member(&writer);
        }
        Some(cache)
    }

    /// A DATA from `src` (a definition when it carries PID_SIFTDDS_PEER_GROUP_KEY from a
    /// siftdds sender). The DATA itself is delivered as usual whatever this decides.
    pub(super) fn definition(
        &mut self,
        now: Now,
        (state, d): (&ReceiverState, &Data<'_>),
        config: &ParticipantConfig,
        discovery: &mut Discovery,
    ) {
        if discovery.local_data().peer_group.is_none() {
            return;
        }
        let (Some(qos), DataPayload::Data(payload)) = (&d.inline_qos, d.payload) else {
            return;
        };
        let Some(def) = KeyDefinition::from_inline_qos(state.source_vendor_id, qos) else {
            return;
        };
        let writer = Guid::new(state.source_guid_prefix, d.writer_id);
        let def = match def {
            Ok(def) => def,
            Err(_) => {
                self.malformed = self.malformed.saturating_add(1);
                return;
            }
        };
        let Some(cache) = self.cache_for(writer, config, discovery) else {
            return;
        };
        let outcome = cache.handle_definition_at(&writer, d.writer_sn, &def, payload);
        log::trace!("definition from {writer}: {outcome:?}");
        let evicted = cache.take_evicted();
        let stored = (outcome == DefineOutcome::Stored).then_some(def.key.digest);
        self.notices(now, (def.key.group, evicted, stored), discovery);
    }

    /// A vendor submessage addressed to us. Only siftdds's abbreviated sample is read:
    /// restored, it is the DATA it stands for (the caller routes it); an unknown key restores
    /// nothing (the reader's NACK brings the sample in full).
    pub(super) fn restore(
        &mut self,
        state: &ReceiverState,
        (id, flags, body): (u8, u8, &[u8]),
        config: &ParticipantConfig,
        discovery: &Discovery,
    ) -> Option<Restored> {
        discovery.local_data().peer_group?;
        let Some(Ok(a)) =
            AbbreviatedData::from_not_understood(state.source_vendor_id, id, flags, body)
        else {
            return None;
        };
        let writer = Guid::new(state.source_guid_prefix, a.writer_id);
        let cache = self.cache_for(writer, config, discovery)?;
        let Restore::Full(full) = cache.restore_ref(&writer, a.writer_sn, &a.key, a.rest) else {
            return None;
        };
        Some(Restored {
            endian: a.endian,
            reader_id: a.reader_id,
            writer_id: a.writer_id,
            writer_sn: a.writer_sn,
            key_hash: a.key_hash,
            payload: full,
        })
    }
}

/// The group local writer `writer` is a member of, if any.
fn member_group<'c>(
    writer: Guid,
    config: &'c ParticipantConfig,
    endpoints: &Endpoints,
) -> Option<&'c PeerGroupConfig> {
    let w = endpoints.writer(writer)?;
    let (name, prefix) = (config.entity_name.as_deref(), config.guid_prefix);
    config
        .peer_groups
        .iter()
        .find(|g| g.is_member(&w.spec.topic_name, name, prefix.0))
}
