//! Policy settings read from XML, as partial values ("patches") that overwrite only the fields
//! a file wrote, and their application to the entity QoS aggregates.
//!
//! Must not: parse XML (that is `omg_policy` and `fastdds`) or check consistency (the model's
//! `check_consistency` does, after all patches of a profile chain are applied).
//!
//! DDS-XML 1.0 §7.3.2.4.2: a derived profile changes only what it sets; DDS 1.4 §2.2.3 decides
//! which policy belongs to which entity (the `impl_apply!` lists mirror `entity.rs`).

use crate::qos::{
    DataReaderQos, DataRepresentation, DataWriterQos, Deadline, DestinationOrder,
    DomainParticipantQos, Durability, DurabilityService, EntityFactory, GroupData, History,
    LatencyBudget, Length, Lifespan, Liveliness, LivelinessKind, Ownership, OwnershipStrength,
    Partition, Presentation, PresentationAccessScope, Property, PublisherQos, ReaderDataLifecycle,
    Reliability, ReliabilityKind, ResourceLimits, SubscriberQos, TimeBasedFilter, TopicData,
    TopicQos, TransportPriority, UserData, WriterDataLifecycle,
};
use crate::time::Duration;

use super::EntityKind;

/// HISTORY kind without the depth (the model folds the depth into `History::KeepLast`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum HistoryKind {
    /// `KEEP_LAST_HISTORY_QOS`.
    KeepLast,
    /// `KEEP_ALL_HISTORY_QOS`.
    KeepAll,
}

/// HISTORY fields as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct HistoryPatch {
    /// `<kind>`.
    pub kind: Option<HistoryKind>,
    /// `<depth>`.
    pub depth: Option<u32>,
}

/// RESOURCE_LIMITS fields as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct LimitsPatch {
    /// `<max_samples>`.
    pub max_samples: Option<Length>,
    /// `<max_instances>`.
    pub max_instances: Option<Length>,
    /// `<max_samples_per_instance>`.
    pub max_samples_per_instance: Option<Length>,
}

/// DURABILITY_SERVICE fields as written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct DurabilityServicePatch {
    /// `<service_cleanup_delay>`.
    pub service_cleanup_delay: Option<Duration>,
    /// `<history_kind>` and `<history_depth>`.
    pub history: HistoryPatch,
    /// `<max_samples>`, `<max_instances>`, `<max_samples_per_instance>`.
    pub limits: LimitsPatch,
}

/// One policy element as written; `None` fields keep the inherited value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PolicyPatch {
    /// USER_DATA value.
    UserData(Option<Vec<u8>>),
    /// TOPIC_DATA value.
    TopicData(Option<Vec<u8>>),
    /// GROUP_DATA value.
    GroupData(Option<Vec<u8>>),
    /// DURABILITY kind.
    Durability(Option<Durability>),
    /// DURABILITY_SERVICE.
    DurabilityService(Box<DurabilityServicePatch>),
    /// PRESENTATION access_scope, coherent_access, ordered_access.
    Presentation(Option<PresentationAccessScope>, Option<bool>, Option<bool>),
    /// DEADLINE period.
    Deadline(Option<Duration>),
    /// LATENCY_BUDGET duration.
    LatencyBudget(Option<Duration>),
    /// OWNERSHIP kind.
    Ownership(Option<Ownership>),
    /// OWNERSHIP_STRENGTH value.
    OwnershipStrength(Option<i32>),
    /// LIVELINESS kind and lease_duration.
    Liveliness(Option<LivelinessKind>, Option<Duration>),
    /// TIME_BASED_FILTER minimum_separation.
    TimeBasedFilter(Option<Duration>),
    /// PARTITION names.
    Partition(Option<Vec<String>>),
    /// RELIABILITY kind and max_blocking_time.
    Reliability(Option<ReliabilityKind>, Option<Duration>),
    /// TRANSPORT_PRIORITY value.
    TransportPriority(Option<i32>),
    /// LIFESPAN duration.
    Lifespan(Option<Duration>),
    /// DESTINATION_ORDER kind.
    DestinationOrder(Option<DestinationOrder>),
    /// HISTORY.
    History(HistoryPatch),
    /// RESOURCE_LIMITS.
    ResourceLimits(LimitsPatch),
    /// ENTITY_FACTORY autoenable_created_entities.
    EntityFactory(Option<bool>),
    /// WRITER_DATA_LIFECYCLE autodispose_unregistered_instances.
    WriterDataLifecycle(Option<bool>),
    /// READER_DATA_LIFECYCLE nowriter and disposed delays.
    ReaderDataLifecycle(Option<Duration>, Option<Duration>),
    /// DATA_REPRESENTATION ids.
    DataRepresentation(Option<Vec<i16>>),
    /// PROPERTY name/value pairs (each overrides the inherited value of its name).
    Property(Vec<(String, String)>),
}

fn set<T: Clone>(dst: &mut T, src: &Option<T>) {
    if let Some(v) = src {
        *dst = v.clone();
    }
}

impl HistoryPatch {
    fn overlay(&self, h: &mut History) {
        let (kind, depth) = match *h {
            History::KeepLast(d) => (HistoryKind::KeepLast, Some(d)),
            History::KeepAll => (HistoryKind::KeepAll, None),
        };
        // DDS 1.4 §2.2.3.18: depth has no effect on KEEP_ALL; KEEP_LAST defaults to depth 1.
        *h = match self.kind.unwrap_or(kind) {
            HistoryKind::KeepLast => History::KeepLast(self.depth.or(depth).unwrap_or(1)),
            HistoryKind::KeepAll => History::KeepAll,
        };
    }
}

/// Overwrites the fields of one policy value that a patch sets; other patches leave it alone.
pub(crate) trait Overlay<T> {
    /// Applies `self` to `target` if `self` is the patch for `T`.
    fn overlay(&self, target: &mut T);
}

/// Implements `Overlay<$ty>` for the `$variant` patch with the given body.
macro_rules! overlay {
    ($ty:ty, $variant:ident ( $($bind:ident),* ), |$t:ident| $body:block) => {
        impl Overlay<$ty> for PolicyPatch {
            fn overlay(&self, $t: &mut $ty) {
                if let PolicyPatch::$variant($($bind),*) = self $body
            }
        }
    };
}

overlay!(UserData, UserData(v), |t| { set(&mut t.value, v) });
overlay!(TopicData, TopicData(v), |t| { set(&mut t.value, v) });
overlay!(GroupData, GroupData(v), |t| { set(&mut t.value, v) });
overlay!(Durability, Durability(v), |t| { set(t, v) });
overlay!(DurabilityService, DurabilityService(p), |t| {
    set(&mut t.service_cleanup_delay, &p.service_cleanup_delay);
    p.history.overlay(&mut t.history);
    set(&mut t.max_samples, &p.limits.max_samples);
    set(&mut t.max_instances, &p.limits.max_instances);
    set(
        &mut t.max_samples_per_instance,
        &p.limits.max_samples_per_instance,
    );
});
overlay!(Presentation, Presentation(scope, coherent, ordered), |t| {
    set(&mut t.access_scope, scope);
    set(&mut t.coherent_access, coherent);
    set(&mut t.ordered_access, ordered);
});
overlay!(Deadline, Deadline(v), |t| { set(&mut t.period, v) });
overlay!(LatencyBudget, LatencyBudget(v), |t| {
    set(&mut t.duration, v)
});
overlay!(Ownership, Ownership(v), |t| { set(t, v) });
overlay!(OwnershipStrength, OwnershipStrength(v), |t| {
    set(&mut t.value, v)
});
overlay!(Liveliness, Liveliness(kind, lease), |t| {
    set(&mut t.kind, kind);
    set(&mut t.lease_duration, lease);
});
overlay!(TimeBasedFilter, TimeBasedFilter(v), |t| {
    set(&mut t.minimum_separation, v)
});
overlay!(Partition, Partition(v), |t| { set(&mut t.names, v) });
overlay!(Reliability, Reliability(kind, blocking), |t| {
    set(&mut t.kind, kind);
    set(&mut t.max_blocking_time, blocking);
});
overlay!(TransportPriority, TransportPriority(v), |t| {
    set(&mut t.value, v)
});
overlay!(Lifespan, Lifespan(v), |t| { set(&mut t.duration, v) });
overlay!(DestinationOrder, DestinationOrder(v), |t| { set(t, v) });
overlay!(History, History(p), |t| { p.overlay(t) });
overlay!(ResourceLimits, ResourceLimits(p), |t| {
    set(&mut t.max_samples, &p.max_samples);
    set(&mut t.max_instances, &p.max_instances);
    set(&mut t.max_samples_per_instance, &p.max_samples_per_instance);
});
overlay!(EntityFactory, EntityFactory(v), |t| {
    set(&mut t.autoenable_created_entities, v)
});
overlay!(WriterDataLifecycle, WriterDataLifecycle(v), |t| {
    set(&mut t.autodispose_unregistered_instances, v)
});
overlay!(
    ReaderDataLifecycle,
    ReaderDataLifecycle(nowriter, disposed),
    |t| {
        set(&mut t.autopurge_nowriter_samples_delay, nowriter);
        set(&mut t.autopurge_disposed_samples_delay, disposed);
    }
);
overlay!(DataRepresentation, DataRepresentation(v), |t| {
    set(&mut t.value, v)
});
overlay!(Property, Property(pairs), |t| {
    for (name, value) in pairs {
        t.set(name.clone(), value.clone());
    }
});

/// An entity QoS aggregate that XML patches apply to.
pub(crate) trait EntityQos: Sized {
    /// The entity kind.
    const KIND: EntityKind;
    /// The DDS default.
    fn initial() -> Self;
    /// Applies `patch`; false if the policy does not belong to this entity.
    fn apply(&mut self, patch: &PolicyPatch) -> bool;
    /// The model's consistency check, as a message.
    fn check(&self) -> Result<(), String>;
}

/// Implements [`EntityQos`] for `$ty`: `$variant => $field` lists the policies it holds.
macro_rules! impl_apply {
    ($ty:ty, $kind:ident, |$q:ident| $check:expr, { $($variant:ident => $field:ident),* $(,)? }) => {
        impl EntityQos for $ty {
            const KIND: EntityKind = EntityKind::$kind;
            fn initial() -> Self {
                <$ty>::default()
            }
            fn apply(&mut self, patch: &PolicyPatch) -> bool {
                match patch {
                    $(PolicyPatch::$variant(..) => {
                        Overlay::overlay(patch, &mut self.$field);
                        true
                    })*
                    #[allow(unreachable_patterns)]
                    _ => false,
                }
            }
            fn check(&self) -> Result<(), String> {
                let $q = self;
                $check
            }
        }
    };
}

impl_apply!(TopicQos, Topic, |q| q.check_consistency().map_err(|e| e.to_string()), {
    TopicData => topic_data, Durability => durability, DurabilityService => durability_service,
    Deadline => deadline, LatencyBudget => latency_budget, Liveliness => liveliness,
    Reliability => reliability, DestinationOrder => destination_order, History => history,
    ResourceLimits => resource_limits, TransportPriority => transport_priority,
    Lifespan => lifespan, Ownership => ownership, DataRepresentation => data_representation,
});
impl_apply!(DataWriterQos, DataWriter, |q| q.check_consistency().map_err(|e| e.to_string()), {
    Durability => durability, DurabilityService => durability_service, Deadline => deadline,
    LatencyBudget => latency_budget, Liveliness => liveliness, Reliability => reliability,
    DestinationOrder => destination_order, History => history,
    ResourceLimits => resource_limits, TransportPriority => transport_priority,
    Lifespan => lifespan, UserData => user_data, Ownership => ownership,
    OwnershipStrength => ownership_strength, WriterDataLifecycle => writer_data_lifecycle,
    DataRepresentation => data_representation,
});
impl_apply!(DataReaderQos, DataReader, |q| q.check_consistency().map_err(|e| e.to_string()), {
    Durability => durability, Deadline => deadline, LatencyBudget => latency_budget,
    Liveliness => liveliness, Reliability => reliability,
    DestinationOrder => destination_order, History => history,
    ResourceLimits => resource_limits, UserData => user_data, Ownership => ownership,
    TimeBasedFilter => time_based_filter, ReaderDataLifecycle => reader_data_lifecycle,
    DataRepresentation => data_representation,
});
impl_apply!(PublisherQos, Publisher, |_q| Ok(()), {
    Presentation => presentation, Partition => partition, GroupData => group_data,
    EntityFactory => entity_factory,
});
impl_apply!(SubscriberQos, Subscriber, |_q| Ok(()), {
    Presentation => presentation, Partition => partition, GroupData => group_data,
    EntityFactory => entity_factory,
});
impl_apply!(DomainParticipantQos, Participant, |_q| Ok(()), {
    UserData => user_data, EntityFactory => entity_factory, Property => property,
});

/// True if `patch` names a policy that entities of `kind` have (DDS 1.4 §2.2.3 QoS table).
pub(crate) fn applies_to(kind: EntityKind, patch: &PolicyPatch) -> bool {
    match kind {
        EntityKind::Participant => DomainParticipantQos::initial().apply(patch),
        EntityKind::Topic => TopicQos::initial().apply(patch),
        EntityKind::Publisher => PublisherQos::initial().apply(patch),
        EntityKind::Subscriber => SubscriberQos::initial().apply(patch),
        EntityKind::DataWriter => DataWriterQos::initial().apply(patch),
        EntityKind::DataReader => DataReaderQos::initial().apply(patch),
    }
}
