//! The relation repository of one downstream route (a downstream site and the writer the
//! router writes there through): what was already sent, so that a sample arriving again (a
//! redundant path, a loop of routers) is suppressed, and the per-instance state, so that a
//! dispose or an unregister is forwarded once.
//!
//! - **Sample identity**: per original writer (PID_ORIGINAL_WRITER_INFO, RTPS 2.5 §8.7.9),
//!   the highest sequence number forwarded. Every path delivers a writer's samples in order,
//!   so "forward iff newer" is exactly once and in order; a late copy from a lagging path is
//!   dropped.
//! - **Instance state**: per key hash, the last forwarded identity, whether it is disposed,
//!   and the sources (original writers) that have it registered; an unregister is forwarded
//!   when the last source leaves; a dispose of an instance already disposed is dropped.
//!
//! Bounded by [`RepositoryLimits`]. Eviction order: writers least recently forwarded first;
//! instances that are not alive (disposed or without sources) first, then least recently
//! updated. An evicted writer's next sample is forwarded again (a possible duplicate only if
//! an old copy was still in flight on another path, which the limits make unlikely).
//!
//! Must not: touch the payload beyond hashing it (opt-in suppression of unchanged samples),
//! or grow past its limits whatever the input.

use std::collections::BTreeMap;

// The maps are keyed by what remote participants choose (writer GUIDs, key hashes), so
// their hasher is seeded per map (foldhash's `RandomState`), but it need not be the std's
// SipHash: they are looked up several times per forwarded sample (docs/router.md, "Router
// cost per sample").
use foldhash::HashMap;

use crate::core::{ChangeKind, SampleIdentity};
use crate::time::Instant;
use crate::wire::{Guid, SequenceNumber};
use core::time::Duration;

/// Default for [`RepositoryLimits::max_writers`].
pub const DEFAULT_MAX_WRITERS: usize = 4096;
/// Default for [`RepositoryLimits::max_instances`].
pub const DEFAULT_MAX_INSTANCES: usize = 65_536;
/// Sources (original writers) remembered per instance.
pub const MAX_SOURCES_PER_INSTANCE: usize = 16;

/// The named limits of one repository.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RepositoryLimits {
    /// Original writers whose highest forwarded SN is kept.
    pub max_writers: usize,
    /// Instances whose state is kept.
    pub max_instances: usize,
}

impl Default for RepositoryLimits {
    fn default() -> Self {
        RepositoryLimits {
            max_writers: DEFAULT_MAX_WRITERS,
            max_instances: DEFAULT_MAX_INSTANCES,
        }
    }
}

/// The opt-in per-topic forwarding policies of a route.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct InstancePolicy {
    /// Drop an ALIVE sample whose payload equals the last one forwarded for its instance
    /// (state topics).
    pub suppress_unchanged: bool,
    /// Forward at most one ALIVE sample per instance per this interval.
    pub min_interval: Option<Duration>,
}

/// What the repository says about one change.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Forward it, as this kind (a lost upstream writer becomes an unregister).
    Forward(ChangeKind),
    /// Already sent (same or older identity from another path).
    Duplicate,
    /// Its instance is already in that state, or other sources still have it registered.
    InstanceUnchanged,
    /// Suppressed by the instance policy (unchanged payload, rate cap).
    Policy,
}

/// Counters of one repository.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RepositoryCounters {
    /// Changes forwarded.
    pub forwarded: u64,
    /// Suppressed as duplicates by sample identity.
    pub duplicates: u64,
    /// Suppressed by instance state.
    pub instance_unchanged: u64,
    /// Suppressed by the instance policy.
    pub policy: u64,
    /// Writer entries evicted.
    pub writers_evicted: u64,
    /// Instance entries evicted.
    pub instances_evicted: u64,
}

#[derive(Clone, Debug)]
struct WriterMark {
    highest: SequenceNumber,
    last_used: u64,
}

#[derive(Clone, Debug, Default)]
struct InstanceState {
    last: Option<SampleIdentity>,
    disposed: bool,
    /// Original writer → the upstream writer it last came through.
    sources: Vec<(Guid, Guid)>,
    payload_hash: Option<u64>,
    last_alive: Option<Instant>,
    last_used: u64,
}

impl InstanceState {
    fn alive(&self) -> bool {
        !self.disposed && !self.sources.is_empty()
    }
}

/// One change as the repository sees it.
#[derive(Copy, Clone, Debug)]
pub struct Incoming<'a> {
    /// ALIVE, dispose, unregister, or NOT_ALIVE_NO_WRITERS (the upstream writer was lost).
    pub kind: ChangeKind,
    /// The sample's identity; `None` for a NOT_ALIVE_NO_WRITERS notification.
    pub identity: Option<SampleIdentity>,
    /// The writer the router received it from (the original one, or a router's).
    pub via: Guid,
    /// The instance.
    pub key_hash: Option<[u8; 16]>,
    /// The serialized payload.
    pub data: &'a [u8],
}

/// The relation repository of one downstream route.
#[derive(Debug)]
pub struct Repository {
    limits: RepositoryLimits,
    policy: InstancePolicy,
    writers: HashMap<Guid, WriterMark>,
    instances: HashMap<[u8; 16], InstanceState>,
    clock: u64,
    counters: RepositoryCounters,
}

impl Repository {
    /// An empty repository.
    pub fn new(limits: RepositoryLimits, policy: InstancePolicy) -> Self {
        Repository {
            limits,
            policy,
            writers: HashMap::default(),
            instances: HashMap::default(),
            clock: 0,
            counters: RepositoryCounters::default(),
        }
    }

    /// The counters so far.
    pub fn counters(&self) -> RepositoryCounters {
        self.counters
    }

    /// Writer and instance entries held.
    pub fn len(&self) -> (usize, usize) {
        (self.writers.len(), self.instances.len())
    }

    /// True when nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.writers.is_empty() && self.instances.is_empty()
    }

    /// Records that the downstream site already has `c` (another router's copy of it was
    /// seen there, `router::standby`): later copies of it, and older samples of its writer,
    /// are duplicates here; with a key hash, its instance takes the state `c` leaves it in
    /// (alive with `c`'s writer as a source, disposed, or unregistered by it), as if it had
    /// been forwarded here — so a dispose or unregister the site had is not forwarded again.
    /// The policies do not apply (the site has it). A copy older than what is known teaches
    /// nothing. Bounded like a forward.
    pub fn learn(&mut self, now: Instant, c: Incoming<'_>) {
        self.clock = self.clock.wrapping_add(1);
        let Some(id) = c.identity else {
            return;
        };
        if self
            .writers
            .get(&id.writer_guid)
            .is_some_and(|m| m.highest >= id.sequence_number)
        {
            return;
        }
        if let Some(key) = c.key_hash
            && c.kind != ChangeKind::NotAliveNoWriters
        {
            self.instance_verdict(now, key, &c, false);
        }
        self.mark_writer(id);
    }

    /// Whether this route has had the sample `id` or a later one of its writer (forwarded,
    /// or learnt from the site).
    pub fn has(&self, id: SampleIdentity) -> bool {
        self.writers
            .get(&id.writer_guid)
            .is_some_and(|m| m.highest >= id.sequence_number)
    }

    /// Decides whether `c` goes on to this route and records it if so. The one forwarding
    /// decision of the router.
    pub fn decide(&mut self, now: Instant, c: Incoming<'_>) -> Verdict {
        self.clock = self.clock.wrapping_add(1);
        let verdict = self.verdict(now, c);
        let k = &mut self.counters;
        let n = match verdict {
            Verdict::Forward(_) => &mut k.forwarded,
            Verdict::Duplicate => &mut k.duplicates,
            Verdict::InstanceUnchanged => &mut k.instance_unchanged,
            Verdict::Policy => &mut k.policy,
        };
        *n = n.saturating_add(1);
        verdict
    }

    fn verdict(&mut self, now: Instant, c: Incoming<'_>) -> Verdict {
        if let Some(id) = c.identity {
            if self
                .writers
                .get(&id.writer_guid)
                .is_some_and(|m| m.highest >= id.sequence_number)
            {
                return Verdict::Duplicate;
            }
        }
        let verdict = match c.key_hash {
            Some(key) => self.instance_verdict(now, key, &c, true),
            None => match c.kind {
                ChangeKind::NotAliveNoWriters => Verdict::InstanceUnchanged,
                kind => Verdict::Forward(kind),
            },
        };
        // A suppressed change is still "seen": its copies on other paths are duplicates.
        if let Some(id) = c.identity {
            self.mark_writer(id);
        }
        verdict
    }

    fn mark_writer(&mut self, id: SampleIdentity) {
        let clock = self.clock;
        if !self.writers.contains_key(&id.writer_guid)
            && self.writers.len() >= self.limits.max_writers
        {
            // Least recently forwarded first.
            if let Some(old) = self
                .writers
                .iter()
                .min_by_key(|(_, m)| m.last_used)
                .map(|(g, _)| *g)
            {
                self.writers.remove(&old);
                self.counters.writers_evicted = self.counters.writers_evicted.saturating_add(1);
            }
        }
        if self.limits.max_writers == 0 {
            return;
        }
        let m = self.writers.entry(id.writer_guid).or_insert(WriterMark {
            highest: id.sequence_number,
            last_used: clock,
        });
        m.highest = m.highest.max(id.sequence_number);
        m.last_used = clock;
    }

    /// The instance verdict on `c` (the opt-in policies only if `policies`), its state
    /// updated as if forwarded when the verdict is Forward.
    fn instance_verdict(
        &mut self,
        now: Instant,
        key: [u8; 16],
        c: &Incoming<'_>,
        policies: bool,
    ) -> Verdict {
        self.make_room(key);
        if self.limits.max_instances == 0 {
            return Verdict::Forward(c.kind);
        }
        let clock = self.clock;
        let policy = self.policy;
        let i = self.instances.entry(key).or_default();
        i.last_used = clock;
        let source = c.identity.map(|id| id.writer_guid).unwrap_or(c.via);
        match c.kind {
            ChangeKind::Alive => {
                let hash = policy.suppress_unchanged.then(|| payload_hash(c.data));
                let was_alive = i.alive() && policies;
                if was_alive && hash.is_some() && hash == i.payload_hash {
                    return Verdict::Policy;
                }
                if let (true, Some(min), Some(last)) =
                    (was_alive, policy.min_interval, i.last_alive)
                    && now.saturating_duration_since(last) < min
                {
                    return Verdict::Policy;
                }
                i.disposed = false;
                add_source(&mut i.sources, source, c.via);
                i.payload_hash = hash;
                i.last_alive = Some(now);
                i.last = c.identity;
                Verdict::Forward(ChangeKind::Alive)
            }
            ChangeKind::NotAliveDisposed => {
                if i.disposed {
                    return Verdict::InstanceUnchanged;
                }
                i.disposed = true;
                i.payload_hash = None;
                i.last = c.identity;
                Verdict::Forward(ChangeKind::NotAliveDisposed)
            }
            ChangeKind::NotAliveUnregistered | ChangeKind::NotAliveDisposedUnregistered => {
                let disposing = c.kind == ChangeKind::NotAliveDisposedUnregistered && !i.disposed;
                let had = i.sources.len();
                // Every source that came through the writer we received it from goes too: a
                // router forwards an unregister only once the instance has no source left
                // there (its lost upstream writer's, in its own name, or the last original
                // writer's), so nothing of the instance comes through it any more; the next
                // router then forwards it on. An application writer's sources are its own.
                i.sources.retain(|(s, v)| *s != source && *v != c.via);
                let last_left = had > 0 && i.sources.is_empty();
                i.last = c.identity;
                if disposing {
                    i.disposed = true;
                }
                match (disposing, last_left) {
                    (true, true) => Verdict::Forward(ChangeKind::NotAliveDisposedUnregistered),
                    (true, false) => Verdict::Forward(ChangeKind::NotAliveDisposed),
                    (false, true) => Verdict::Forward(ChangeKind::NotAliveUnregistered),
                    (false, false) => Verdict::InstanceUnchanged,
                }
            }
            ChangeKind::NotAliveNoWriters => {
                // The upstream writer `via` was lost: every source that came through it goes.
                let had = i.sources.len();
                i.sources.retain(|(_, v)| *v != c.via);
                if had > 0 && i.sources.is_empty() {
                    Verdict::Forward(ChangeKind::NotAliveUnregistered)
                } else {
                    Verdict::InstanceUnchanged
                }
            }
        }
    }

    /// The instances that have a source which came through `via` (an upstream writer).
    pub fn instances_via(&self, via: Guid) -> Vec<[u8; 16]> {
        self.instances
            .iter()
            .filter(|(_, i)| i.sources.iter().any(|(_, v)| *v == via))
            .map(|(k, _)| *k)
            .collect()
    }

    /// Evicts one instance when `key` is new and the table is full: a not-alive one first,
    /// then the least recently updated.
    fn make_room(&mut self, key: [u8; 16]) {
        if self.instances.contains_key(&key) || self.instances.len() < self.limits.max_instances {
            return;
        }
        let victim = self
            .instances
            .iter()
            .min_by_key(|(_, s)| (s.alive(), s.last_used))
            .map(|(k, _)| *k);
        if let Some(k) = victim {
            self.instances.remove(&k);
            self.counters.instances_evicted = self.counters.instances_evicted.saturating_add(1);
        }
    }

    /// The instances currently alive here with their last forwarded identity (for tests
    /// and diagnostics), ordered by key.
    pub fn alive_instances(&self) -> BTreeMap<[u8; 16], Option<SampleIdentity>> {
        self.instances
            .iter()
            .filter(|(_, s)| s.alive())
            .map(|(k, s)| (*k, s.last))
            .collect()
    }
}

fn add_source(sources: &mut Vec<(Guid, Guid)>, source: Guid, via: Guid) {
    if let Some(s) = sources.iter_mut().find(|(s, _)| *s == source) {
        s.1 = via;
        return;
    }
    if sources.len() >= MAX_SOURCES_PER_INSTANCE {
        sources.remove(0);
    }
    sources.push((source, via));
}

/// FNV-1a over the payload: equality of consecutive samples of one instance, not security.
fn payload_hash(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}
