//! The reader's instance-level QoS, applied to each change as it leaves in-order delivery and
//! before it enters the delivery queue: LIFESPAN expiry, EXCLUSIVE ownership, instance
//! liveliness (which writers still write an instance, for NOT_ALIVE_NO_WRITERS),
//! TIME_BASED_FILTER and the REQUESTED_DEADLINE period; and the DCPS instance states the
//! application reads back (instance and view state, generation counts).
//!
//! Must not: read a clock (time arrives as `now`), know about sequence numbers, or grow past
//! its caps: instances are bounded by RESOURCE_LIMITS max_instances and
//! [`MAX_TRACKED_INSTANCES`], the writers of an instance by the matched writers.
//!
//! DDS 1.4 §2.2.3.7 (DEADLINE), §2.2.3.9-10 (OWNERSHIP, OWNERSHIP_STRENGTH), §2.2.3.12
//! (TIME_BASED_FILTER), §2.2.3.16 (LIFESPAN), §2.2.2.5.1.4 / §2.2.3.23 (instance states).
//!
//! # Overview
//! An instance is a key hash (a keyless topic has one instance). A keyed change whose key
//! hash is unknown (no PID_KEY_HASH and no key hasher) cannot be attributed and passes with
//! only the lifespan check. Per instance the table keeps the writers that wrote it and have
//! not unregistered it, the exclusive owner, whether it is alive and when a sample was last
//! delivered. Ownership: the first writer of an instance owns it; a stronger writer (higher
//! strength, ties to the lower GUID) takes it over; when the owner unregisters or unmatches,
//! the strongest remaining writer of the instance inherits it. Samples of other writers are
//! dropped. Ownership is not lost on a missed deadline (a simplification of §2.2.3.9).
//!
//! Instance states (DDS 1.4 §2.2.2.5.1.3-§2.2.2.5.1.5, figure 2.11): an ALIVE sample makes
//! the instance ALIVE, and if it was not alive, NEW again with the matching generation count
//! incremented (disposed_generation_count after NOT_ALIVE_DISPOSED, no_writers_generation_count
//! after NOT_ALIVE_NO_WRITERS); a dispose makes it NOT_ALIVE_DISPOSED; the last writer's
//! unregister, or its loss, makes an ALIVE instance NOT_ALIVE_NO_WRITERS. The view state turns
//! NOT_NEW when a read or take returns one of its samples ([`InstanceTable::accessed`]).

use std::collections::{BTreeMap, BTreeSet};

use super::sample_info::{Generations, InstanceHandle, InstanceState, InstanceView, ViewState};
use crate::core::deadline::{DeadlineTracker, InstanceId};
use crate::core::{CacheChange, ChangeKind};
use crate::time::{Instant, Now};
use crate::wire::Guid;

/// Most instances tracked per reader (when RESOURCE_LIMITS max_instances is larger).
pub const MAX_TRACKED_INSTANCES: usize = 65_536;

/// What the reader knows of a matched writer for instance purposes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct WriterInfo {
    strength: i32,
    lifespan_ns: Option<u64>,
}

#[derive(Debug)]
struct Instance {
    /// Matched writers that wrote the instance and did not unregister it.
    writers: BTreeSet<Guid>,
    /// The exclusive owner (EXCLUSIVE ownership only).
    owner: Option<Guid>,
    /// ALIVE or NOT_ALIVE_*.
    state: InstanceState,
    /// NEW until a read or take returns one of its samples.
    view: ViewState,
    /// Times it came back to ALIVE.
    generations: Generations,
    /// When a sample of the instance was last delivered (TIME_BASED_FILTER).
    last_delivered: Option<Instant>,
}

impl Default for Instance {
    fn default() -> Self {
        Instance {
            writers: BTreeSet::new(),
            owner: None,
            state: InstanceState::Alive,
            view: ViewState::New,
            generations: Generations::default(),
            last_delivered: None,
        }
    }
}

impl Instance {
    fn alive(&self) -> bool {
        self.state == InstanceState::Alive
    }

    /// DDS 1.4 §2.2.2.5.1.5: an ALIVE sample on a not-alive instance starts a new
    /// generation, and the instance is NEW again (§2.2.2.5.1.8).
    fn become_alive(&mut self) {
        let g = &mut self.generations;
        match self.state {
            InstanceState::Alive => return,
            InstanceState::NotAliveDisposed => g.disposed = g.disposed.saturating_add(1),
            InstanceState::NotAliveNoWriters => g.no_writers = g.no_writers.saturating_add(1),
        }
        self.state = InstanceState::Alive;
        self.view = ViewState::New;
    }

    fn view(&self) -> InstanceView {
        InstanceView {
            state: self.state,
            view: self.view,
            generations: self.generations,
        }
    }
}

/// An [`InstanceId`] as an integer map key: the key hash read big-endian orders exactly as
/// its octets do (`None`, keyless, first), without a memcmp per comparison.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key(Option<u128>);

impl Key {
    fn of(id: InstanceId) -> Self {
        Key(id.map(u128::from_be_bytes))
    }

    fn id(self) -> InstanceId {
        self.0.map(u128::to_be_bytes)
    }
}

/// The outcome of [`InstanceTable::admit`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Queue it; it expires at this wall time (Unix ns) if the writer has a lifespan.
    Deliver {
        /// Source timestamp (or reception time) + lifespan, in Unix nanoseconds.
        expires_ns: Option<u64>,
        /// The instance's generation counts with this change applied (zero when untracked).
        generations: Generations,
    },
    /// Source timestamp + lifespan already passed.
    Expired,
    /// Another writer owns the instance (EXCLUSIVE ownership).
    NotOwner,
    /// Within TIME_BASED_FILTER minimum_separation of the last delivered sample.
    Filtered,
}

/// Per-instance state of one reader.
#[derive(Debug)]
pub(super) struct InstanceTable {
    keyed: bool,
    exclusive: bool,
    minimum_separation: Option<core::time::Duration>,
    max_instances: usize,
    writers: BTreeMap<Guid, WriterInfo>,
    instances: BTreeMap<Key, Instance>,
    pub(super) deadline: DeadlineTracker,
}

fn nanos(d: core::time::Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl InstanceTable {
    /// A table for these policies. `max_instances` is RESOURCE_LIMITS max_instances.
    pub(super) fn new(
        keyed: bool,
        exclusive: bool,
        minimum_separation: Option<core::time::Duration>,
        deadline: Option<core::time::Duration>,
        max_instances: usize,
    ) -> Self {
        InstanceTable {
            keyed,
            exclusive,
            minimum_separation: minimum_separation.filter(|d| !d.is_zero()),
            max_instances: max_instances.clamp(1, MAX_TRACKED_INSTANCES),
            writers: BTreeMap::new(),
            instances: BTreeMap::new(),
            deadline: DeadlineTracker::new(deadline),
        }
    }

    /// A writer matched (or its strength / lifespan changed through SEDP).
    pub(super) fn writer_added(
        &mut self,
        writer: Guid,
        strength: i32,
        lifespan: Option<core::time::Duration>,
    ) {
        let lifespan_ns = lifespan.map(nanos);
        self.writers.insert(
            writer,
            WriterInfo {
                strength,
                lifespan_ns,
            },
        );
    }

    /// A writer unmatched (or its participant was lost): it stops writing every instance,
    /// ownership passes to the strongest remaining writer, and the instances it was the last
    /// writer of become NOT_ALIVE_NO_WRITERS. Returns those instances with their generation
    /// counts. DDS 1.4 §2.2.3.9, §2.2.2.5.1.4.
    pub(super) fn writer_removed(&mut self, writer: Guid) -> Vec<(InstanceId, Generations)> {
        self.writers.remove(&writer);
        let mut no_writers = Vec::new();
        let writers = &self.writers;
        for (key, inst) in &mut self.instances {
            if !inst.writers.remove(&writer) && inst.owner != Some(writer) {
                continue;
            }
            if inst.owner == Some(writer) {
                inst.owner = strongest(writers, &inst.writers);
            }
            if inst.writers.is_empty() && inst.alive() {
                inst.state = InstanceState::NotAliveNoWriters;
                no_writers.push((key.id(), inst.generations));
            }
        }
        for (key, _) in &no_writers {
            self.deadline.remove(*key);
        }
        no_writers
    }

    /// The state of the instance `id` now ([`InstanceView::UNTRACKED`] when not tracked).
    pub(super) fn view_of(&self, id: InstanceId) -> InstanceView {
        self.instances
            .get(&Key::of(id))
            .map_or(InstanceView::UNTRACKED, Instance::view)
    }

    /// True if the instance of `handle` has tracked state.
    pub(super) fn tracks(&self, handle: InstanceHandle) -> bool {
        let id = match handle.key_hash() {
            Some(k) => Some(k),
            None if handle == InstanceHandle::KEYLESS => None,
            None => return false,
        };
        self.instances.contains_key(&Key::of(id))
    }

    /// A read or take returned samples of the instance `id`: it is NOT_NEW.
    /// DDS 1.4 §2.2.2.5.1.8.
    pub(super) fn accessed(&mut self, id: InstanceId) {
        if let Some(inst) = self.instances.get_mut(&Key::of(id)) {
            inst.view = ViewState::NotNew;
        }
    }

    /// The instance of a change: `Some(None)` for a keyless topic, `None` when it cannot be
    /// attributed.
    pub(super) fn instance_of(&self, c: &CacheChange) -> Option<InstanceId> {
        if self.keyed {
            c.key_hash.map(Some)
        } else {
            Some(None)
        }
    }

    /// Decides whether a change from a matched writer is delivered, and updates the instance.
    pub(super) fn admit(&mut self, now: Now, c: &CacheChange) -> Verdict {
        let info = self.writers.get(&c.writer_guid).copied();
        // DDS 1.4 §2.2.3.16: expiration time = source timestamp + the writer's lifespan. A
        // change without one (no INFO_TS: RustDDS 0.15.1 sends none) is stamped with its
        // reception time, which is what DDS 1.4 §2.2.3.16 says the reader may use when the
        // clocks are not synchronized; here `now`, when it leaves in-order delivery (the
        // same as its reception unless it waited for a missing earlier change).
        let stamp = c.source_timestamp.unwrap_or(now.wall);
        let expires_ns = info
            .and_then(|i| i.lifespan_ns)
            .zip(stamp.to_unix_nanos())
            .map(|(l, t)| t.saturating_add(l));
        let expired = expires_ns
            .zip(now.wall.to_unix_nanos())
            .is_some_and(|(e, n)| n >= e);
        if c.kind == ChangeKind::Alive && expired {
            return Verdict::Expired;
        }
        let untracked = Verdict::Deliver {
            expires_ns,
            generations: Generations::default(),
        };
        let Some(key) = self.instance_of(c) else {
            return untracked;
        };
        let id = key;
        let key = Key::of(id);
        if !self.instances.contains_key(&key) && !self.make_room() {
            // Untracked: no ownership, filter, deadline or state for it (bounded state wins).
            return untracked;
        }
        let writer = c.writer_guid;
        let exclusive = self.exclusive;
        let separation = self.minimum_separation;
        let writers = &self.writers;
        let inst = self.instances.entry(key).or_default();
        // DDS 1.4 §2.2.3.9: only the owner's changes reach the application.
        if exclusive && c.kind != ChangeKind::NotAliveNoWriters {
            let owns = match inst.owner {
                None => true,
                Some(o) if o == writer => true,
                Some(o) => stronger(writers, writer, o),
            };
            if owns {
                inst.owner = Some(writer);
            } else {
                match c.kind {
                    ChangeKind::Alive => {
                        inst.writers.insert(writer);
                    }
                    ChangeKind::NotAliveUnregistered | ChangeKind::NotAliveDisposedUnregistered => {
                        inst.writers.remove(&writer);
                    }
                    _ => {}
                }
                return Verdict::NotOwner;
            }
        }
        match c.kind {
            ChangeKind::Alive => {
                // The usual case, one writer per instance, needs no search.
                if inst.writers.first() != Some(&writer) {
                    inst.writers.insert(writer);
                }
                inst.become_alive();
                self.deadline.touch(id, now.mono);
                // DDS 1.4 §2.2.3.12: at most one sample per minimum_separation.
                if let Some(sep) = separation {
                    if inst
                        .last_delivered
                        .is_some_and(|last| now.mono < last.saturating_add(sep))
                    {
                        return Verdict::Filtered;
                    }
                    inst.last_delivered = Some(now.mono);
                }
            }
            ChangeKind::NotAliveDisposed => {
                inst.state = InstanceState::NotAliveDisposed;
                self.deadline.remove(id);
            }
            ChangeKind::NotAliveUnregistered | ChangeKind::NotAliveDisposedUnregistered => {
                inst.writers.remove(&writer);
                if inst.owner == Some(writer) {
                    inst.owner = strongest(writers, &inst.writers);
                }
                if c.kind == ChangeKind::NotAliveDisposedUnregistered {
                    inst.state = InstanceState::NotAliveDisposed;
                    self.deadline.remove(id);
                } else if inst.writers.is_empty() && inst.alive() {
                    // DDS 1.4 §2.2.2.5.1.3: the last writer's unregister.
                    inst.state = InstanceState::NotAliveNoWriters;
                    self.deadline.remove(id);
                }
            }
            ChangeKind::NotAliveNoWriters => {}
        }
        Verdict::Deliver {
            expires_ns,
            generations: inst.generations,
        }
    }

    /// Makes room for one more instance by forgetting a not-alive one without writers.
    fn make_room(&mut self) -> bool {
        if self.instances.len() < self.max_instances {
            return true;
        }
        let victim = self
            .instances
            .iter()
            .find(|(_, i)| !i.alive() && i.writers.is_empty())
            .map(|(k, _)| *k);
        match victim {
            Some(k) => {
                self.instances.remove(&k);
                self.deadline.remove(k.id());
                true
            }
            None => false,
        }
    }
}

/// True if writer `a` beats writer `b` for ownership: higher strength, ties to the lower GUID.
/// An unmatched `b` always loses. DDS 1.4 §2.2.3.9.
fn stronger(writers: &BTreeMap<Guid, WriterInfo>, a: Guid, b: Guid) -> bool {
    let Some(sb) = writers.get(&b).map(|i| i.strength) else {
        return true;
    };
    let sa = writers.get(&a).map_or(i32::MIN, |i| i.strength);
    sa > sb || (sa == sb && a < b)
}

/// The strongest of `candidates` (ties to the lowest GUID).
fn strongest(writers: &BTreeMap<Guid, WriterInfo>, candidates: &BTreeSet<Guid>) -> Option<Guid> {
    let mut best: Option<Guid> = None;
    for c in candidates {
        best = match best {
            Some(b) if !stronger(writers, *c, b) => Some(b),
            _ => Some(*c),
        };
    }
    best
}
