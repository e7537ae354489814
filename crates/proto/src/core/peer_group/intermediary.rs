//! The intermediary side of the peer-group cache: one bounded cache per group, membership,
//! checked definitions, restores, and counters. docs/peer-group-cache.md §5 rules 6–12.
//!
//! Cooperation (§5 rules 13–15): member writers announce the digests of their current
//! projections (SEDP, `wire::ProjectionAnnouncement`); an entry whose digest a live member
//! announces is *kept*: eviction takes the least recently used entry no member announces, and
//! an announced one only when every entry is announced. Evicted digests are reported to the
//! driver ([`GroupCache::take_evicted`]), which announces them in SPDP so writers stop using
//! the key. An announcement never creates an entry: only a checked definition does.
//!
//! Must not: share entries across groups (one [`GroupCache`] per group), accept a definition
//! from a non-member or one whose bytes do not match its digest, restore from a key it does
//! not hold exactly, resolve an alias to anything but the binding of the one definition SN
//! it names (below the sample's SN, stored by this cache for this writer; §5 rule 16), grow
//! beyond its capacity, send anything or read a clock.
//!
//! # Overview
//! Entries are keyed by [`CacheKey`]; each holds the layout and the common bytes. Eviction is
//! least recently used: a definition or a restore moves the entry to the back of the
//! `recency` order (a `BTreeMap` from a use counter to the key). A key seen again with other
//! bytes is a digest collision: the entry is dropped and the key is poisoned (never cached
//! again in this generation), so both contents travel in full.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::wire::{MAX_ANNOUNCED_PROJECTIONS, MAX_EVICTION_NOTICES};

use super::alias::Bindings;
use super::split::{MAX_COMMON_BYTES, digest, merge};
use crate::wire::{CacheKey, Guid, KeyDefinition, KeyRef, Segment, SequenceNumber};

pub use crate::qos::peer_group::MAX_CAPACITY;
/// Poisoned keys remembered per group (oldest forgotten first).
pub const MAX_POISONED: usize = 256;
/// Members remembered as an entry's definers; an entry defined by more is *shared* and is
/// never dropped for a departure (only evicted).
pub const MAX_DEFINERS: usize = 8;

/// A group as the intermediary knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupConfig {
    /// The group's 32-bit wire id.
    pub group: u32,
    /// The type hash keys must carry.
    pub type_hash: u64,
    /// Entries kept (clamped to 1..=[`MAX_CAPACITY`]).
    pub capacity: usize,
}

/// What became of a definition.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DefineOutcome {
    /// Stored (or refreshed).
    Stored,
    /// The writer is not a member (rule 8).
    RefusedNonMember,
    /// Another group, type or generation.
    RefusedForeignKey,
    /// The digest does not match the layout and bytes, or the layout does not fit the sample.
    RefusedBadDigest,
    /// Same key, other bytes: dropped and poisoned (rule 9).
    Collision,
}

/// What became of an abbreviated sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Restore {
    /// The full serialized sample.
    Full(Vec<u8>),
    /// Unknown key: ask for the sample again (rule 6).
    Unknown,
    /// The writer is not a member: ask for the sample again, in full.
    RefusedNonMember,
}

/// Counters since creation.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Definitions stored.
    pub defines: u64,
    /// Abbreviated samples restored.
    pub hits: u64,
    /// Abbreviated samples with an unknown key.
    pub misses: u64,
    /// Entries evicted to make room.
    pub evictions: u64,
    /// Definitions or abbreviated samples from non-members.
    pub refused_non_member: u64,
    /// Definitions with a bad digest or a foreign key (another group or type).
    pub refused_bad: u64,
    /// Definitions of another generation of this group and type (sent before a flush).
    pub stale_generation: u64,
    /// Digest collisions detected.
    pub collisions: u64,
    /// Evictions that passed over an entry a live member announces (kept, rule 14).
    pub kept_announced: u64,
    /// Projection announcements taken from members.
    pub announcements: u64,
    /// Entries dropped because every member that defined them is gone (lease, dispose).
    pub departed: u64,
    /// Abbreviated samples whose alias named no bound definition (counted in `misses` too).
    pub unbound_aliases: u64,
}

#[derive(Clone, Debug)]
struct Entry {
    segments: Vec<Segment>,
    common: Vec<u8>,
    used: u64,
    /// The members whose definitions stored or refreshed it (at most [`MAX_DEFINERS`]).
    definers: Vec<Guid>,
    /// More than [`MAX_DEFINERS`] members defined it: kept when any of them goes.
    shared: bool,
}

/// The cache of one group at the intermediary.
#[derive(Clone, Debug)]
pub struct GroupCache {
    config: GroupConfig,
    generation: u32,
    members: BTreeSet<Guid>,
    entries: HashMap<CacheKey, Entry>,
    recency: BTreeMap<u64, CacheKey>,
    poisoned: BTreeSet<CacheKey>,
    /// Each member's announced projection digests (at most [`MAX_ANNOUNCED_PROJECTIONS`]).
    announced: BTreeMap<Guid, Vec<u64>>,
    /// Digest → members announcing it (derived from `announced`, kept by `set_announced`).
    pins: BTreeMap<u64, usize>,
    /// Digests evicted since the driver last took them (at most [`MAX_EVICTION_NOTICES`]).
    evicted: Vec<u64>,
    /// Each member's alias bindings (definition SN → key), bounded per writer.
    bindings: BTreeMap<Guid, Bindings>,
    clock: u64,
    stats: CacheStats,
    /// The digest function ([`digest`]; tests swap in a weak one to force collisions).
    digest: fn(&[Segment], &[u8]) -> u64,
}

impl GroupCache {
    /// An empty cache for `config` at `generation`.
    pub fn new(mut config: GroupConfig, generation: u32) -> Self {
        config.capacity = config.capacity.clamp(1, MAX_CAPACITY);
        GroupCache {
            config,
            generation,
            members: BTreeSet::new(),
            entries: HashMap::new(),
            recency: BTreeMap::new(),
            poisoned: BTreeSet::new(),
            announced: BTreeMap::new(),
            pins: BTreeMap::new(),
            evicted: Vec::new(),
            bindings: BTreeMap::new(),
            clock: 0,
            stats: CacheStats::default(),
            digest,
        }
    }

    /// The same cache with another digest function (tests force collisions with it).
    #[cfg(test)]
    pub(crate) fn with_digest(mut self, digest: fn(&[Segment], &[u8]) -> u64) -> Self {
        self.digest = digest;
        self
    }

    /// The current generation (announced in discovery).
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// The full key of a short one (flag S: only its digest was sent): this group, this
    /// type, the current generation.
    pub fn complete_key(&self, digest: u64) -> CacheKey {
        CacheKey {
            group: self.config.group,
            generation: self.generation,
            type_hash: self.config.type_hash,
            digest,
        }
    }

    /// The capacity (announced in discovery).
    pub fn capacity(&self) -> usize {
        self.config.capacity
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The counters.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// A writer joins the group (matched against the configured members by the driver).
    pub fn add_member(&mut self, writer: Guid) {
        self.members.insert(writer);
    }

    /// A writer leaves (configuration or lease). Its entries stay: they are keyed by content;
    /// its announcement goes (its entries are no longer kept for it).
    pub fn remove_member(&mut self, writer: &Guid) {
        self.members.remove(writer);
        self.bindings.remove(writer);
        self.set_announced(writer, &[]);
    }

    /// Member `writer` announces the digests of its current projections (SEDP). From a
    /// non-member it is ignored (returns false): only members influence what is kept. At most
    /// [`MAX_ANNOUNCED_PROJECTIONS`] digests are taken, duplicates once.
    pub fn announce(&mut self, writer: &Guid, digests: &[u64]) -> bool {
        if !self.members.contains(writer) {
            return false;
        }
        if self.announced.get(writer).map(Vec::as_slice) != Some(digests) {
            self.stats.announcements = self.stats.announcements.saturating_add(1);
        }
        self.set_announced(writer, digests);
        true
    }

    fn set_announced(&mut self, writer: &Guid, digests: &[u64]) {
        for d in self.announced.remove(writer).unwrap_or_default() {
            if let Some(n) = self.pins.get_mut(&d) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    self.pins.remove(&d);
                }
            }
        }
        let mut list: Vec<u64> = Vec::new();
        for d in digests.iter().take(MAX_ANNOUNCED_PROJECTIONS) {
            if !list.contains(d) {
                list.push(*d);
                let n = self.pins.entry(*d).or_insert(0);
                *n = n.saturating_add(1);
            }
        }
        if !list.is_empty() {
            self.announced.insert(*writer, list);
        }
    }

    /// A member that announces its projections just defined `digest`: that is its newest
    /// projection now, as its next announcement will say (the writer keeps the same
    /// most-recent-first list), so its list takes it in front at the same length. Without
    /// this, the announcement still in flight would keep the entry the writer just left.
    fn note_defined(&mut self, writer: &Guid, digest: u64) {
        let Some(list) = self.announced.get(writer) else {
            return;
        };
        if list.first() == Some(&digest) {
            return;
        }
        let mut new = vec![digest];
        new.extend(list.iter().filter(|d| **d != digest));
        new.truncate(list.len());
        self.set_announced(writer, &new);
    }

    /// True when a live member announces `digest` as current.
    pub fn is_announced(&self, digest: u64) -> bool {
        self.pins.contains_key(&digest)
    }

    /// The digests evicted since the last call (the driver announces them, §4.3).
    pub fn take_evicted(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.evicted)
    }

    /// True when evictions wait for [`Self::take_evicted`].
    pub fn has_evicted(&self) -> bool {
        !self.evicted.is_empty()
    }

    /// Member `writer` is gone: its SEDP data was disposed or its participant's lease expired
    /// (RTPS 2.5 §8.5.3.3), so its state here goes with it (the issue's "lease expiry on
    /// either side drops the cache"): it is no longer a member, its announcement no longer
    /// keeps entries, and the entries only it defined are dropped and reported as evicted
    /// (the driver announces them, §4.3), so a rediscovered writer that still believes them
    /// acknowledged re-defines them, or, if it abbreviates first, misses and is repaired in
    /// full (rule 6). Entries other members defined too stay (keyed by content, rule 12).
    /// Returns how many entries were dropped.
    pub fn forget_writer(&mut self, writer: &Guid) -> usize {
        self.remove_member(writer);
        let mut gone = Vec::new();
        for (key, e) in &mut self.entries {
            let before = e.definers.len();
            e.definers.retain(|d| d != writer);
            if e.definers.is_empty() && before > 0 && !e.shared {
                gone.push((*key, e.used));
            }
        }
        for (key, used) in &gone {
            self.entries.remove(key);
            self.recency.remove(used);
            self.note_evicted(key.digest);
        }
        let n = u64::try_from(gone.len()).unwrap_or(u64::MAX);
        self.stats.departed = self.stats.departed.saturating_add(n);
        gone.len()
    }

    fn note_evicted(&mut self, digest: u64) {
        if self.evicted.len() >= MAX_EVICTION_NOTICES {
            self.evicted.remove(0);
        }
        self.evicted.push(digest);
    }

    /// Records `writer` as a definer of the entry under `key`.
    fn note_definer(&mut self, key: &CacheKey, writer: &Guid) {
        if let Some(e) = self.entries.get_mut(key) {
            if !e.definers.contains(writer) {
                match e.definers.len() < MAX_DEFINERS {
                    true => e.definers.push(*writer),
                    false => e.shared = true,
                }
            }
        }
    }

    /// Drops everything and starts generation `generation + 1` (configuration change). Writers
    /// learn it from the generation in the intermediary's SPDP and forget their keys.
    pub fn flush(&mut self) {
        self.entries.clear();
        self.recency.clear();
        self.poisoned.clear();
        self.evicted.clear();
        self.bindings.clear();
        self.generation = self.generation.wrapping_add(1);
    }

    /// The entry to evict: the least recently used one no live member announces; if every
    /// entry is announced, the least recently used (rule 14: kept when others are available).
    fn victim(&mut self) -> Option<(u64, CacheKey)> {
        let first = self.recency.iter().next().map(|(u, k)| (*u, *k))?;
        let free = self
            .recency
            .iter()
            .find(|(_, k)| !self.pins.contains_key(&k.digest))
            .map(|(u, k)| (*u, *k));
        if free.is_some_and(|f| f != first) {
            self.stats.kept_announced = self.stats.kept_announced.saturating_add(1);
        }
        Some(free.unwrap_or(first))
    }

    fn ours(&self, key: &CacheKey) -> bool {
        key.group == self.config.group
            && key.type_hash == self.config.type_hash
            && key.generation == self.generation
    }

    fn touch(&mut self, key: CacheKey) {
        self.clock = self.clock.wrapping_add(1);
        if let Some(e) = self.entries.get_mut(&key) {
            self.recency.remove(&e.used);
            e.used = self.clock;
            self.recency.insert(self.clock, key);
        }
    }

    /// A DATA from `writer` carrying the definition `def`, whose full payload is `payload`.
    /// The DATA itself is forwarded whatever the outcome.
    pub fn handle_definition(
        &mut self,
        writer: &Guid,
        def: &KeyDefinition,
        payload: &[u8],
    ) -> DefineOutcome {
        if !self.members.contains(writer) {
            self.stats.refused_non_member = self.stats.refused_non_member.saturating_add(1);
            return DefineOutcome::RefusedNonMember;
        }
        if !self.ours(&def.key) {
            // Of an earlier generation (in flight across a flush): stale, not bad.
            let stale =
                def.key.group == self.config.group && def.key.type_hash == self.config.type_hash;
            let n = match stale {
                true => &mut self.stats.stale_generation,
                false => &mut self.stats.refused_bad,
            };
            *n = n.saturating_add(1);
            return DefineOutcome::RefusedForeignKey;
        }
        let Some(common) = gather(def.segments(), payload) else {
            self.stats.refused_bad = self.stats.refused_bad.saturating_add(1);
            return DefineOutcome::RefusedBadDigest;
        };
        if common.len() > MAX_COMMON_BYTES
            || (self.digest)(def.segments(), &common) != def.key.digest
        {
            self.stats.refused_bad = self.stats.refused_bad.saturating_add(1);
            return DefineOutcome::RefusedBadDigest;
        }
        if self.poisoned.contains(&def.key) {
            return DefineOutcome::Collision;
        }
        if let Some(e) = self.entries.get(&def.key) {
            if e.common != common || e.segments != def.segments() {
                // Rule 9: detected, never trusted.
                self.stats.collisions = self.stats.collisions.saturating_add(1);
                let used = e.used;
                self.entries.remove(&def.key);
                self.recency.remove(&used);
                if self.poisoned.len() >= MAX_POISONED {
                    self.poisoned.pop_first();
                }
                self.poisoned.insert(def.key);
                return DefineOutcome::Collision;
            }
            self.touch(def.key);
            self.note_definer(&def.key, writer);
            self.note_defined(writer, def.key.digest);
            return DefineOutcome::Stored;
        }
        while self.entries.len() >= self.config.capacity {
            let Some((used, old)) = self.victim() else {
                break;
            };
            self.recency.remove(&used);
            self.entries.remove(&old);
            self.stats.evictions = self.stats.evictions.saturating_add(1);
            self.note_evicted(old.digest);
        }
        self.entries.insert(
            def.key,
            Entry {
                segments: def.segments().to_vec(),
                common,
                used: 0,
                definers: vec![*writer],
                shared: false,
            },
        );
        self.touch(def.key);
        self.note_defined(writer, def.key.digest);
        self.stats.defines = self.stats.defines.saturating_add(1);
        DefineOutcome::Stored
    }

    /// A definition DATA from `writer` with writerSN `sn`: [`handle_definition`](Self::handle_definition),
    /// and when stored, `sn` is bound to the key so abbreviated samples may name it by alias.
    pub fn handle_definition_at(
        &mut self,
        writer: &Guid,
        sn: SequenceNumber,
        def: &KeyDefinition,
        payload: &[u8],
    ) -> DefineOutcome {
        let outcome = self.handle_definition(writer, def, payload);
        if outcome == DefineOutcome::Stored {
            self.bindings.entry(*writer).or_default().bind(sn, def.key);
        }
        outcome
    }

    /// The key an abbreviated sample at `sn` from `writer` names: a full key as is, a short
    /// one completed ([`complete_key`](Self::complete_key)), an alias only if the definition
    /// it names (an SN below `sn`) is bound for this writer.
    pub fn resolve(&self, writer: &Guid, sn: SequenceNumber, key: &KeyRef) -> Option<CacheKey> {
        match key {
            KeyRef::Full(k) => Some(*k),
            KeyRef::Digest(d) => Some(self.complete_key(*d)),
            KeyRef::Alias(a) => {
                let d = a.definition_sn(sn)?;
                self.bindings.get(writer)?.get(d)
            }
        }
    }

    /// Alias bindings held for `writer`.
    pub fn bindings_of(&self, writer: &Guid) -> usize {
        self.bindings.get(writer).map_or(0, Bindings::len)
    }

    /// An abbreviated sample at `sn` from `writer` naming its key by `key` (any form).
    pub fn restore_ref(
        &mut self,
        writer: &Guid,
        sn: SequenceNumber,
        key: &KeyRef,
        rest: &[u8],
    ) -> Restore {
        match self.resolve(writer, sn, key) {
            Some(k) => self.restore(writer, &k, rest),
            None if !self.members.contains(writer) => {
                self.stats.refused_non_member = self.stats.refused_non_member.saturating_add(1);
                Restore::RefusedNonMember
            }
            None => {
                self.stats.misses = self.stats.misses.saturating_add(1);
                self.stats.unbound_aliases = self.stats.unbound_aliases.saturating_add(1);
                Restore::Unknown
            }
        }
    }

    /// An abbreviated sample from `writer`: the full payload, or why not.
    pub fn restore(&mut self, writer: &Guid, key: &CacheKey, rest: &[u8]) -> Restore {
        if !self.members.contains(writer) {
            self.stats.refused_non_member = self.stats.refused_non_member.saturating_add(1);
            return Restore::RefusedNonMember;
        }
        let full = self
            .entries
            .get(key)
            .filter(|_| self.ours(key))
            .and_then(|e| merge(&e.segments, &e.common, rest));
        match full {
            Some(full) => {
                self.touch(*key);
                self.stats.hits = self.stats.hits.saturating_add(1);
                Restore::Full(full)
            }
            None => {
                self.stats.misses = self.stats.misses.saturating_add(1);
                Restore::Unknown
            }
        }
    }
}

/// The bytes of `segments` in `payload`, `None` if one lies outside it.
fn gather(segments: &[Segment], payload: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for s in segments {
        let start = usize::try_from(s.offset).ok()?;
        let end = start.checked_add(usize::try_from(s.length).ok()?)?;
        out.extend_from_slice(payload.get(start..end)?);
    }
    Some(out)
}
