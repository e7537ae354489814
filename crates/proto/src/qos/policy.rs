//! The individual QoS policies as plain values, each with its DDS 1.4 default.
//!
//! Must not: know about entities, the wire encoding (PIDs, enum numbers on the wire live in
//! `wire`) or matching; policies here are data plus their own ordering rules.
//!
//! DDS 1.4 §2.2.3 (supported QoS table, defaults) and §2.2.3.1–§2.2.3.23; DDS-XTypes 1.3
//! §7.6.3.1 for DataRepresentation, §7.6.3.4 for TypeConsistencyEnforcement. Kind enums derive `Ord` in the spec's RxO order
//! (e.g. `BestEffort < Reliable`), so "offered ≥ requested" is a plain comparison.

use core::cmp::Ordering;

use crate::time::Duration;

/// Compares two durations, treating every encoding of DURATION_INFINITE as equal and greater
/// than any finite value (the {0x7fffffff, 0x7fffffff} form sorts below the canonical one as raw
/// fields). RTPS 2.5 §9.3.2.
pub(crate) fn cmp_duration(a: Duration, b: Duration) -> Ordering {
    match (a.is_infinite(), b.is_infinite()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.cmp(&b),
    }
}

/// A resource count that may be `LENGTH_UNLIMITED` (DDS 1.4 §2.2.3.19, IDL `long`, -1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Length {
    /// `LENGTH_UNLIMITED`.
    #[default]
    Unlimited,
    /// At most this many; must be positive and fit an IDL `long`.
    Limited(u32),
}

impl Length {
    /// The IDL `LENGTH_UNLIMITED` constant.
    pub const UNLIMITED_I32: i32 = -1;

    /// Decodes the IDL `long` form: -1 is unlimited; other negative values are invalid.
    pub fn from_i32(value: i32) -> Option<Self> {
        match value {
            Self::UNLIMITED_I32 => Some(Length::Unlimited),
            v => u32::try_from(v).ok().map(Length::Limited),
        }
    }

    /// The IDL `long` form (-1 for unlimited), saturating at `i32::MAX`.
    pub fn as_i32(self) -> i32 {
        match self {
            Length::Unlimited => Self::UNLIMITED_I32,
            Length::Limited(n) => i32::try_from(n).unwrap_or(i32::MAX),
        }
    }

    /// True if `n` is within the limit.
    pub fn allows(self, n: u32) -> bool {
        match self {
            Length::Unlimited => true,
            Length::Limited(max) => n <= max,
        }
    }
}

/// DURABILITY kind (DDS 1.4 §2.2.3.4). Ordered `Volatile < TransientLocal < Transient <
/// Persistent` for RxO. Default `Volatile`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Durability {
    /// No samples are kept for late joiners.
    #[default]
    Volatile,
    /// The writer keeps samples for late joiners while it lives.
    TransientLocal,
    /// A durability service keeps samples beyond the writer.
    Transient,
    /// Samples survive on permanent storage.
    Persistent,
}

/// DURABILITY_SERVICE (DDS 1.4 §2.2.3.5): the history kept by a durability service for
/// `Transient`/`Persistent` data.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DurabilityService {
    /// How long the service keeps an instance after its writers are gone. Default 0.
    pub service_cleanup_delay: Duration,
    /// History kept by the service. Default `KeepLast(1)`.
    pub history: History,
    /// Default unlimited.
    pub max_samples: Length,
    /// Default unlimited.
    pub max_instances: Length,
    /// Default unlimited.
    pub max_samples_per_instance: Length,
}

impl Default for DurabilityService {
    fn default() -> Self {
        DurabilityService {
            service_cleanup_delay: Duration::ZERO,
            history: History::default(),
            max_samples: Length::Unlimited,
            max_instances: Length::Unlimited,
            max_samples_per_instance: Length::Unlimited,
        }
    }
}

/// PRESENTATION access scope (DDS 1.4 §2.2.3.6). Ordered `Instance < Topic < Group` for RxO.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum PresentationAccessScope {
    /// Changes to one instance are ordered/coherent. Default.
    #[default]
    Instance,
    /// Across instances of one topic.
    Topic,
    /// Across all topics of the publisher/subscriber.
    Group,
}

/// PRESENTATION (DDS 1.4 §2.2.3.6), a Publisher/Subscriber policy.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Presentation {
    /// Scope of coherence and ordering. Default `Instance`.
    pub access_scope: PresentationAccessScope,
    /// Coherent change sets. Default false.
    pub coherent_access: bool,
    /// Ordered access within the scope. Default false.
    pub ordered_access: bool,
}

/// DEADLINE (DDS 1.4 §2.2.3.7): maximum period between samples of an instance.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Deadline {
    /// Default DURATION_INFINITE.
    pub period: Duration,
}

impl Default for Deadline {
    fn default() -> Self {
        Deadline {
            period: Duration::INFINITE,
        }
    }
}

/// LATENCY_BUDGET (DDS 1.4 §2.2.3.8): a hint of acceptable delivery delay.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct LatencyBudget {
    /// Default 0.
    pub duration: Duration,
}

/// OWNERSHIP kind (DDS 1.4 §2.2.3.9). Default `Shared`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Ownership {
    /// Every writer may update every instance. Default.
    #[default]
    Shared,
    /// Only the strongest live writer updates an instance.
    Exclusive,
}

/// OWNERSHIP_STRENGTH (DDS 1.4 §2.2.3.10). Default 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct OwnershipStrength {
    /// Higher wins exclusive ownership.
    pub value: i32,
}

/// LIVELINESS kind (DDS 1.4 §2.2.3.11). Ordered `Automatic < ManualByParticipant <
/// ManualByTopic` for RxO.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum LivelinessKind {
    /// The infrastructure asserts liveliness. Default.
    #[default]
    Automatic,
    /// Any manual assertion on the participant counts.
    ManualByParticipant,
    /// Each writer must assert its own liveliness.
    ManualByTopic,
}

/// LIVELINESS (DDS 1.4 §2.2.3.11).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Liveliness {
    /// Default `Automatic`.
    pub kind: LivelinessKind,
    /// Default DURATION_INFINITE.
    pub lease_duration: Duration,
}

impl Default for Liveliness {
    fn default() -> Self {
        Liveliness {
            kind: LivelinessKind::Automatic,
            lease_duration: Duration::INFINITE,
        }
    }
}

/// TIME_BASED_FILTER (DDS 1.4 §2.2.3.12): a reader wants at most one sample per instance per
/// `minimum_separation`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TimeBasedFilter {
    /// Default 0 (no filtering).
    pub minimum_separation: Duration,
}

/// PARTITION (DDS 1.4 §2.2.3.13). Empty means the default partition `""`. Names may be
/// fnmatch patterns; see [`crate::qos::partitions_match`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Partition {
    /// Partition names or patterns. Default empty.
    pub names: Vec<String>,
}

impl Partition {
    /// A partition list from names.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(names: I) -> Self {
        Partition {
            names: names.into_iter().map(Into::into).collect(),
        }
    }
}

/// RELIABILITY kind (DDS 1.4 §2.2.3.14). Ordered `BestEffort < Reliable` for RxO. On the wire
/// these are 1 and 2 (docs/interop-facts.md §5.4); that mapping belongs to `wire`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum ReliabilityKind {
    /// Samples may be lost. Default for readers and topics.
    #[default]
    BestEffort,
    /// Samples are repaired. Default for writers.
    Reliable,
}

/// RELIABILITY (DDS 1.4 §2.2.3.14).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reliability {
    /// Default `BestEffort` (topic, reader) or `Reliable` (writer).
    pub kind: ReliabilityKind,
    /// How long `write` may block on full history. Default 100 ms.
    pub max_blocking_time: Duration,
}

impl Reliability {
    /// The default `max_blocking_time`: 100 ms (DDS 1.4 §2.2.3 QoS table), with the fraction
    /// rounded to nearest as Cyclone encodes it, so it converts back to exactly 100 ms.
    pub const DEFAULT_MAX_BLOCKING_TIME: Duration = Duration {
        seconds: 0,
        fraction: 0x1999_999a,
    };

    /// BEST_EFFORT with the default blocking time (the topic/reader default).
    pub const fn best_effort() -> Self {
        Reliability {
            kind: ReliabilityKind::BestEffort,
            max_blocking_time: Self::DEFAULT_MAX_BLOCKING_TIME,
        }
    }

    /// RELIABLE with the default 100 ms blocking time (the writer default).
    pub const fn reliable() -> Self {
        Reliability {
            kind: ReliabilityKind::Reliable,
            max_blocking_time: Self::DEFAULT_MAX_BLOCKING_TIME,
        }
    }
}

impl Default for Reliability {
    fn default() -> Self {
        Reliability::best_effort()
    }
}

/// TRANSPORT_PRIORITY (DDS 1.4 §2.2.3.15). Default 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TransportPriority {
    /// Higher is more urgent; meaning is transport-specific.
    pub value: i32,
}

/// LIFESPAN (DDS 1.4 §2.2.3.16): how long a written sample stays valid.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lifespan {
    /// Default DURATION_INFINITE.
    pub duration: Duration,
}

impl Default for Lifespan {
    fn default() -> Self {
        Lifespan {
            duration: Duration::INFINITE,
        }
    }
}

/// DESTINATION_ORDER kind (DDS 1.4 §2.2.3.17). Ordered `ByReceptionTimestamp <
/// BySourceTimestamp` for RxO.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum DestinationOrder {
    /// Order by arrival at the reader. Default.
    #[default]
    ByReceptionTimestamp,
    /// Order by the writer's source timestamp.
    BySourceTimestamp,
}

/// HISTORY (DDS 1.4 §2.2.3.18). Default `KeepLast(1)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum History {
    /// Keep the most recent `depth` samples per instance; `depth` must be ≥ 1.
    KeepLast(u32),
    /// Keep everything, bounded by RESOURCE_LIMITS.
    KeepAll,
}

impl Default for History {
    fn default() -> Self {
        History::KeepLast(1)
    }
}

/// RESOURCE_LIMITS (DDS 1.4 §2.2.3.19). All default to unlimited.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ResourceLimits {
    /// Total samples across all instances.
    pub max_samples: Length,
    /// Number of instances.
    pub max_instances: Length,
    /// Samples kept per instance.
    pub max_samples_per_instance: Length,
}

/// ENTITY_FACTORY (DDS 1.4 §2.2.3.20).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EntityFactory {
    /// Created entities are enabled at once. Default true.
    pub autoenable_created_entities: bool,
}

impl Default for EntityFactory {
    fn default() -> Self {
        EntityFactory {
            autoenable_created_entities: true,
        }
    }
}

/// WRITER_DATA_LIFECYCLE (DDS 1.4 §2.2.3.21).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct WriterDataLifecycle {
    /// Unregistering an instance also disposes it. Default true.
    pub autodispose_unregistered_instances: bool,
}

impl Default for WriterDataLifecycle {
    fn default() -> Self {
        WriterDataLifecycle {
            autodispose_unregistered_instances: true,
        }
    }
}

/// READER_DATA_LIFECYCLE (DDS 1.4 §2.2.3.22).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReaderDataLifecycle {
    /// Purge samples of instances without writers after this long. Default infinite.
    pub autopurge_nowriter_samples_delay: Duration,
    /// Purge samples of disposed instances after this long. Default infinite.
    pub autopurge_disposed_samples_delay: Duration,
}

impl Default for ReaderDataLifecycle {
    fn default() -> Self {
        ReaderDataLifecycle {
            autopurge_nowriter_samples_delay: Duration::INFINITE,
            autopurge_disposed_samples_delay: Duration::INFINITE,
        }
    }
}

/// USER_DATA (DDS 1.4 §2.2.3.1): opaque application bytes. Default empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct UserData {
    /// The bytes.
    pub value: Vec<u8>,
}

/// PROPERTY (DDS-Security 1.1 §7.2.1, as RTI Connext and Fast DDS read it from QoS XML):
/// name/value pairs that configure the middleware locally. Default empty. siftdds reads
/// `siftdds.transport.interfaces` (see `api::INTERFACES_PROPERTY`); the pairs are not sent
/// to peers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Property {
    /// The pairs, each name once, in the order first set.
    pub value: Vec<(String, String)>,
}

impl Property {
    /// The value of `name`, if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.value
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets `name` to `value`, replacing an earlier value.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        let (name, value) = (name.into(), value.into());
        match self.value.iter_mut().find(|(n, _)| *n == name) {
            Some(pair) => pair.1 = value,
            None => self.value.push((name, value)),
        }
    }
}

/// TOPIC_DATA (DDS 1.4 §2.2.3.2): opaque application bytes. Default empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TopicData {
    /// The bytes.
    pub value: Vec<u8>,
}

/// GROUP_DATA (DDS 1.4 §2.2.3.3): opaque application bytes. Default empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GroupData {
    /// The bytes.
    pub value: Vec<u8>,
}

/// `TypeConsistencyKind` (DDS-XTypes 1.3 §7.6.3.4.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum TypeConsistencyKind {
    /// `DISALLOW_TYPE_COERCION`: the writer's and the reader's types must be the same (each
    /// assignable to the other, no type widening).
    DisallowTypeCoercion,
    /// `ALLOW_TYPE_COERCION` (the default): the writer's type must be assignable to the
    /// reader's (§7.2.4.4).
    #[default]
    AllowTypeCoercion,
}

/// TYPE_CONSISTENCY_ENFORCEMENT (DDS-XTypes 1.3 §7.6.3.4): how a DataReader compares its type
/// with a DataWriter's when both announce TypeInformation. `Default` gives the specification's
/// defaults.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeConsistencyEnforcement {
    /// `kind` (default ALLOW_TYPE_COERCION).
    pub kind: TypeConsistencyKind,
    /// `ignore_sequence_bounds` (default true).
    pub ignore_sequence_bounds: bool,
    /// `ignore_string_bounds` (default true).
    pub ignore_string_bounds: bool,
    /// `ignore_member_names` (default false).
    pub ignore_member_names: bool,
    /// `prevent_type_widening` (default false).
    pub prevent_type_widening: bool,
    /// `force_type_validation` (default false): match only once the writer's type is known,
    /// even when the reader's type name and TypeInformation would do.
    pub force_type_validation: bool,
}

impl Default for TypeConsistencyEnforcement {
    fn default() -> Self {
        TypeConsistencyEnforcement {
            kind: TypeConsistencyKind::AllowTypeCoercion,
            ignore_sequence_bounds: true,
            ignore_string_bounds: true,
            ignore_member_names: false,
            prevent_type_widening: false,
            force_type_validation: false,
        }
    }
}

/// DATA_REPRESENTATION (DDS-XTypes 1.3 §7.6.3.1): representation ids in preference order.
/// A writer uses its first id; a reader accepts any listed id. Empty means `[XCDR]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DataRepresentation {
    /// `DataRepresentationId_t` values. Default empty (= `[XCDR]`).
    pub value: Vec<i16>,
}

impl DataRepresentation {
    /// `XCDR_DATA_REPRESENTATION` (XCDR1).
    pub const XCDR: i16 = 0;
    /// `XML_DATA_REPRESENTATION`.
    pub const XML: i16 = 1;
    /// `XCDR2_DATA_REPRESENTATION`.
    pub const XCDR2: i16 = 2;

    /// A policy listing `ids` in preference order.
    pub fn new<I: IntoIterator<Item = i16>>(ids: I) -> Self {
        DataRepresentation {
            value: ids.into_iter().collect(),
        }
    }

    /// The id a writer with this policy uses: the first one, or XCDR if empty
    /// (DDS-XTypes 1.3 §7.6.3.1.2).
    pub fn offered_id(&self) -> i16 {
        self.value.first().copied().unwrap_or(Self::XCDR)
    }

    /// True if a reader with this policy accepts `id`; an empty list accepts only XCDR
    /// (DDS-XTypes 1.3 §7.6.3.1.2; Cyclone and OpenDDS default, docs/interop-facts.md §5.4).
    pub fn accepts(&self, id: i16) -> bool {
        if self.value.is_empty() {
            id == Self::XCDR
        } else {
            self.value.contains(&id)
        }
    }
}

#[cfg(test)]
mod tests;
