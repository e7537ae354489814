//! The DCPS reading model's vocabulary: the sample, view and instance states and their masks,
//! the [`InstanceHandle`], the [`SampleInfo`] handed out with each sample, the
//! [`ReadSelection`] a read or take asks for, and the ranks of a returned collection.
//!
//! Must not: hold the reader's state (the delivery queue and the instance table own it) or
//! decide state transitions (the instance table does, `instance.rs`); the functions here are
//! pure.
//!
//! DDS 1.4 §2.2.2.5.1.1-§2.2.2.5.1.6 (access, states, generation counts, ranks), §2.2.2.5.4
//! (SampleInfo), §2.2.2.5.5 (ReadCondition masks).

use std::collections::BTreeMap;
use std::sync::Arc;

use bitflags::bitflags;

use crate::core::deadline::InstanceId;
use crate::core::{CacheChange, ChangeKind};
use crate::filter::Program;
use crate::time::Timestamp;
use crate::wire::Guid;

bitflags! {
    /// Which sample states a read, take or condition selects. DDS 1.4 §2.2.2.5.1.2.
    #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
    pub struct SampleStateMask: u8 {
        /// Samples an earlier read returned.
        const READ = 1;
        /// Samples no read returned yet.
        const NOT_READ = 2;
        /// Either (ANY_SAMPLE_STATE).
        const ANY = 3;
    }

    /// Which view states a read, take or condition selects. DDS 1.4 §2.2.2.5.1.8.
    #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
    pub struct ViewStateMask: u8 {
        /// Instances not accessed since they were first seen or reborn.
        const NEW = 1;
        /// Instances accessed since.
        const NOT_NEW = 2;
        /// Either (ANY_VIEW_STATE).
        const ANY = 3;
    }

    /// Which instance states a read, take or condition selects. DDS 1.4 §2.2.2.5.1.3.
    #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
    pub struct InstanceStateMask: u8 {
        /// Written and neither disposed nor left by all its writers.
        const ALIVE = 1;
        /// Disposed by a writer.
        const NOT_ALIVE_DISPOSED = 2;
        /// Every writer of it unregistered it or went away.
        const NOT_ALIVE_NO_WRITERS = 4;
        /// Either not-alive state (NOT_ALIVE_INSTANCE_STATE).
        const NOT_ALIVE = 6;
        /// Any (ANY_INSTANCE_STATE).
        const ANY = 7;
    }
}

/// Whether a read returned the sample before. DDS 1.4 §2.2.2.5.1.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SampleState {
    /// Returned by an earlier read.
    Read,
    /// Not returned by any read yet.
    NotRead,
}

impl SampleState {
    /// The mask with only this state.
    pub fn mask(self) -> SampleStateMask {
        match self {
            SampleState::Read => SampleStateMask::READ,
            SampleState::NotRead => SampleStateMask::NOT_READ,
        }
    }
}

/// Whether the application accessed the instance since it was first seen or reborn.
/// DDS 1.4 §2.2.2.5.1.8.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ViewState {
    /// Not accessed yet (first seen, or alive again after being not alive).
    New,
    /// Accessed since.
    NotNew,
}

impl ViewState {
    /// The mask with only this state.
    pub fn mask(self) -> ViewStateMask {
        match self {
            ViewState::New => ViewStateMask::NEW,
            ViewState::NotNew => ViewStateMask::NOT_NEW,
        }
    }
}

/// The state of an instance. DDS 1.4 §2.2.2.5.1.3.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum InstanceState {
    /// Written, and neither disposed nor left by all its writers.
    Alive,
    /// Disposed by a writer.
    NotAliveDisposed,
    /// Every writer of it unregistered it or went away.
    NotAliveNoWriters,
}

impl InstanceState {
    /// The mask with only this state.
    pub fn mask(self) -> InstanceStateMask {
        match self {
            InstanceState::Alive => InstanceStateMask::ALIVE,
            InstanceState::NotAliveDisposed => InstanceStateMask::NOT_ALIVE_DISPOSED,
            InstanceState::NotAliveNoWriters => InstanceStateMask::NOT_ALIVE_NO_WRITERS,
        }
    }
}

/// Identifies an instance of a reader's topic: its key hash (RTPS 2.5 §9.6.4.8), the one
/// instance of a keyless topic, or [`InstanceHandle::NIL`]. Handles order as `NIL`, the
/// keyless instance, then key hashes by their octets: the order of `read_next_instance`.
/// DDS 1.4 §2.2.2.5.3.16.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InstanceHandle(Handle);

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Handle {
    Nil,
    Keyless,
    /// The key hash read big-endian (orders as the octets do).
    Key(u128),
}

impl InstanceHandle {
    /// No instance (HANDLE_NIL): a sample whose instance could not be identified, or the
    /// start of a `read_next_instance` iteration.
    pub const NIL: InstanceHandle = InstanceHandle(Handle::Nil);

    /// The single instance of a keyless topic.
    pub const KEYLESS: InstanceHandle = InstanceHandle(Handle::Keyless);

    /// The instance with this key hash.
    pub fn from_key_hash(key_hash: [u8; 16]) -> Self {
        InstanceHandle(Handle::Key(u128::from_be_bytes(key_hash)))
    }

    /// The key hash, for an instance of a keyed topic.
    pub fn key_hash(self) -> Option<[u8; 16]> {
        match self.0 {
            Handle::Key(k) => Some(k.to_be_bytes()),
            _ => None,
        }
    }

    /// True for [`InstanceHandle::NIL`].
    pub fn is_nil(self) -> bool {
        self.0 == Handle::Nil
    }

    /// The handle of the instance the reader's instance table calls `id` (`None`: keyless).
    pub(super) fn of_instance(id: InstanceId) -> Self {
        id.map_or(InstanceHandle::KEYLESS, InstanceHandle::from_key_hash)
    }
}

/// How often an instance came back to ALIVE after being disposed and after having no
/// writers. DDS 1.4 §2.2.2.5.1.5.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Generations {
    /// disposed_generation_count.
    pub disposed: u32,
    /// no_writers_generation_count.
    pub no_writers: u32,
}

impl Generations {
    /// disposed + no_writers, the quantity the generation ranks subtract.
    fn sum(self) -> u32 {
        self.disposed.saturating_add(self.no_writers)
    }
}

/// What the reader tells the application about one returned sample. DDS 1.4 §2.2.2.5.4.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SampleInfo {
    /// READ if an earlier read returned this sample.
    pub sample_state: SampleState,
    /// NEW if the application had not accessed the instance since it was first seen or
    /// reborn (before this call).
    pub view_state: ViewState,
    /// The instance's state when the sample was returned.
    pub instance_state: InstanceState,
    /// The instance's disposed generation count when the sample was received.
    pub disposed_generation_count: u32,
    /// The instance's no-writers generation count when the sample was received.
    pub no_writers_generation_count: u32,
    /// Samples of the same instance that follow this one in the returned collection.
    pub sample_rank: u32,
    /// Generations between this sample and the most recent sample of the same instance in
    /// the returned collection.
    pub generation_rank: u32,
    /// Generations between this sample and the instance's current generation.
    pub absolute_generation_rank: u32,
    /// The writer's source timestamp (INFO_TS), when it sent one.
    pub source_timestamp: Option<Timestamp>,
    /// When the reader received the sample (wall clock).
    pub reception_timestamp: Timestamp,
    /// The sample's instance ([`InstanceHandle::NIL`] when it could not be identified).
    pub instance_handle: InstanceHandle,
    /// The writer that wrote the sample (its GUID is its publication handle).
    pub publication_handle: Guid,
    /// True when the sample carries data; false for an instance state change (a dispose,
    /// an unregister, a writer gone) that carries only the key.
    pub valid_data: bool,
}

/// The three state masks of a read, take or ReadCondition. DDS 1.4 §2.2.2.5.5.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct StateMasks {
    /// Sample states selected.
    pub sample: SampleStateMask,
    /// View states selected.
    pub view: ViewStateMask,
    /// Instance states selected.
    pub instance: InstanceStateMask,
}

impl StateMasks {
    /// Every sample.
    pub const ANY: StateMasks = StateMasks {
        sample: SampleStateMask::ANY,
        view: ViewStateMask::ANY,
        instance: InstanceStateMask::ANY,
    };

    /// The samples no read returned yet, of any instance.
    pub const NOT_READ: StateMasks = StateMasks {
        sample: SampleStateMask::NOT_READ,
        view: ViewStateMask::ANY,
        instance: InstanceStateMask::ANY,
    };

    /// True if a sample in these states is selected.
    pub fn matches(&self, sample: SampleState, view: ViewState, instance: InstanceState) -> bool {
        self.sample.contains(sample.mask())
            && self.view.contains(view.mask())
            && self.instance.contains(instance.mask())
    }
}

impl Default for StateMasks {
    fn default() -> Self {
        StateMasks::ANY
    }
}

/// Which instances a read or take looks at. DDS 1.4 §2.2.2.5.3.14-17.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum InstanceSelector {
    /// Every instance (read, take).
    #[default]
    Any,
    /// This instance only (read_instance, take_instance).
    Instance(InstanceHandle),
    /// The instance with the smallest handle greater than this one that has selected
    /// samples (read_next_instance, take_next_instance).
    Next(InstanceHandle),
}

/// What a read or take returns: the samples in the given states, of the given instances,
/// passing the query, at most `max_samples`.
#[derive(Clone, Debug)]
pub struct ReadSelection {
    /// The state masks.
    pub masks: StateMasks,
    /// The instances.
    pub instance: InstanceSelector,
    /// At most this many samples (LENGTH_UNLIMITED: `usize::MAX`).
    pub max_samples: usize,
    /// A QueryCondition's compiled DDS-SQL program: only samples with data that pass it (a
    /// sample it cannot decode does not). DDS 1.4 §2.2.2.5.9.
    pub query: Option<Arc<Program>>,
}

impl ReadSelection {
    /// Every sample of every instance.
    pub fn any() -> Self {
        ReadSelection::with_masks(StateMasks::ANY)
    }

    /// The samples in these states, of every instance.
    pub fn with_masks(masks: StateMasks) -> Self {
        ReadSelection {
            masks,
            instance: InstanceSelector::Any,
            max_samples: usize::MAX,
            query: None,
        }
    }

    /// True if the query (if any) passes the change: data that the filter accepts. A
    /// state change without data passes no query (it has no fields to test).
    pub(super) fn passes_query(&self, change: &CacheChange) -> bool {
        match &self.query {
            None => true,
            Some(p) => {
                change.kind == ChangeKind::Alive && p.evaluate(&change.data).unwrap_or(false)
            }
        }
    }
}

/// The current state of an instance, as the instance table reports it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InstanceView {
    /// ALIVE or how it stopped being alive.
    pub state: InstanceState,
    /// NEW until a read or take returns one of its samples.
    pub view: ViewState,
    /// Its generation counts now.
    pub generations: Generations,
}

impl InstanceView {
    /// An instance the table does not track (no key hash, or beyond its bound): alive and new.
    pub const UNTRACKED: InstanceView = InstanceView {
        state: InstanceState::Alive,
        view: ViewState::New,
        generations: Generations {
            disposed: 0,
            no_writers: 0,
        },
    };
}

/// The SampleInfo of a sample before ranks: its states and handles. `received` are the
/// generation counts it was received with, `instance` the instance now.
pub(super) fn info_of(
    change: &CacheChange,
    read: bool,
    received: Generations,
    reception: Timestamp,
    handle: InstanceHandle,
    instance: InstanceView,
) -> SampleInfo {
    SampleInfo {
        sample_state: if read {
            SampleState::Read
        } else {
            SampleState::NotRead
        },
        view_state: instance.view,
        instance_state: instance.state,
        disposed_generation_count: received.disposed,
        no_writers_generation_count: received.no_writers,
        sample_rank: 0,
        generation_rank: 0,
        absolute_generation_rank: instance.generations.sum().saturating_sub(received.sum()),
        source_timestamp: change.source_timestamp,
        reception_timestamp: reception,
        instance_handle: handle,
        publication_handle: change.writer_guid,
        valid_data: change.kind == ChangeKind::Alive,
    }
}

/// Sets sample_rank and generation_rank relative to the collection, in its order: per
/// instance, the samples after this one, and the generations between this one and the most
/// recent sample of the instance in the collection (MRSIC). DDS 1.4 §2.2.2.5.1.6.
pub fn rank<T>(collection: &mut [T], info: impl Fn(&mut T) -> &mut SampleInfo) {
    // Per instance: (samples seen so far from the end, the MRSIC's generation sum).
    let mut later: BTreeMap<InstanceHandle, (u32, u32)> = BTreeMap::new();
    for item in collection.iter_mut().rev() {
        let i = info(item);
        let own = Generations {
            disposed: i.disposed_generation_count,
            no_writers: i.no_writers_generation_count,
        }
        .sum();
        let (count, mrsic) = later.entry(i.instance_handle).or_insert((0, own));
        i.sample_rank = *count;
        i.generation_rank = mrsic.saturating_sub(own);
        *count = count.saturating_add(1);
    }
}
