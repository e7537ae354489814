//! The per-entity QoS aggregates (`TopicQos`, `DataWriterQos`, …) with DDS defaults and
//! builder-style setters.
//!
//! Must not: check consistency (see `consistency`) or matching (see `matching`); this module is
//! the shape of each entity's QoS and nothing else.
//!
//! DDS 1.4 §2.2.3 (QoS table: which policy applies to which entity, defaults) and §2.2.2.4.1.x
//! (`copy_from_topic_qos`); DDS-XTypes 1.3 §7.6.3.1 adds DataRepresentation to topic, writer
//! and reader QoS, §7.6.3.4 TypeConsistencyEnforcement to reader QoS.

use crate::qos::policy::{
    DataRepresentation, Deadline, DestinationOrder, Durability, DurabilityService, EntityFactory,
    GroupData, History, LatencyBudget, Lifespan, Liveliness, Ownership, OwnershipStrength,
    Partition, Presentation, Property, ReaderDataLifecycle, Reliability, ResourceLimits,
    TimeBasedFilter, TopicData, TransportPriority, TypeConsistencyEnforcement, UserData,
    WriterDataLifecycle,
};

/// Generates one `fn field(self, value) -> Self` setter per listed field.
macro_rules! setters {
    ($ty:ident { $($field:ident : $pty:ty),* $(,)? }) => {
        impl $ty {
            $(
                #[doc = concat!("Returns `self` with `", stringify!($field), "` replaced.")]
                #[must_use]
                pub fn $field(mut self, value: $pty) -> Self {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}

/// QoS of a Topic (DDS 1.4 §2.2.3). `Default` gives the spec defaults, with BEST_EFFORT
/// reliability.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TopicQos {
    /// TOPIC_DATA.
    pub topic_data: TopicData,
    /// DURABILITY.
    pub durability: Durability,
    /// DURABILITY_SERVICE.
    pub durability_service: DurabilityService,
    /// DEADLINE.
    pub deadline: Deadline,
    /// LATENCY_BUDGET.
    pub latency_budget: LatencyBudget,
    /// LIVELINESS.
    pub liveliness: Liveliness,
    /// RELIABILITY (default BEST_EFFORT, 100 ms).
    pub reliability: Reliability,
    /// DESTINATION_ORDER.
    pub destination_order: DestinationOrder,
    /// HISTORY.
    pub history: History,
    /// RESOURCE_LIMITS.
    pub resource_limits: ResourceLimits,
    /// TRANSPORT_PRIORITY.
    pub transport_priority: TransportPriority,
    /// LIFESPAN.
    pub lifespan: Lifespan,
    /// OWNERSHIP.
    pub ownership: Ownership,
    /// DATA_REPRESENTATION.
    pub data_representation: DataRepresentation,
}

setters!(TopicQos {
    topic_data: TopicData,
    durability: Durability,
    durability_service: DurabilityService,
    deadline: Deadline,
    latency_budget: LatencyBudget,
    liveliness: Liveliness,
    reliability: Reliability,
    destination_order: DestinationOrder,
    history: History,
    resource_limits: ResourceLimits,
    transport_priority: TransportPriority,
    lifespan: Lifespan,
    ownership: Ownership,
    data_representation: DataRepresentation,
});

/// QoS of a DataWriter (DDS 1.4 §2.2.3). `Default` gives the spec defaults: RELIABLE with a
/// 100 ms `max_blocking_time`, `KeepLast(1)`, VOLATILE, and so on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DataWriterQos {
    /// DURABILITY.
    pub durability: Durability,
    /// DURABILITY_SERVICE.
    pub durability_service: DurabilityService,
    /// DEADLINE.
    pub deadline: Deadline,
    /// LATENCY_BUDGET.
    pub latency_budget: LatencyBudget,
    /// LIVELINESS.
    pub liveliness: Liveliness,
    /// RELIABILITY (default RELIABLE, 100 ms).
    pub reliability: Reliability,
    /// DESTINATION_ORDER.
    pub destination_order: DestinationOrder,
    /// HISTORY.
    pub history: History,
    /// RESOURCE_LIMITS.
    pub resource_limits: ResourceLimits,
    /// TRANSPORT_PRIORITY.
    pub transport_priority: TransportPriority,
    /// LIFESPAN.
    pub lifespan: Lifespan,
    /// USER_DATA.
    pub user_data: UserData,
    /// OWNERSHIP.
    pub ownership: Ownership,
    /// OWNERSHIP_STRENGTH.
    pub ownership_strength: OwnershipStrength,
    /// WRITER_DATA_LIFECYCLE.
    pub writer_data_lifecycle: WriterDataLifecycle,
    /// DATA_REPRESENTATION; the writer uses the first id (empty = XCDR).
    pub data_representation: DataRepresentation,
}

impl Default for DataWriterQos {
    fn default() -> Self {
        DataWriterQos {
            durability: Durability::default(),
            durability_service: DurabilityService::default(),
            deadline: Deadline::default(),
            latency_budget: LatencyBudget::default(),
            liveliness: Liveliness::default(),
            // DDS 1.4 §2.2.3 QoS table: RELIABLE is the DataWriter default.
            reliability: Reliability::reliable(),
            destination_order: DestinationOrder::default(),
            history: History::default(),
            resource_limits: ResourceLimits::default(),
            transport_priority: TransportPriority::default(),
            lifespan: Lifespan::default(),
            user_data: UserData::default(),
            ownership: Ownership::default(),
            ownership_strength: OwnershipStrength::default(),
            writer_data_lifecycle: WriterDataLifecycle::default(),
            data_representation: DataRepresentation::default(),
        }
    }
}

setters!(DataWriterQos {
    durability: Durability,
    durability_service: DurabilityService,
    deadline: Deadline,
    latency_budget: LatencyBudget,
    liveliness: Liveliness,
    reliability: Reliability,
    destination_order: DestinationOrder,
    history: History,
    resource_limits: ResourceLimits,
    transport_priority: TransportPriority,
    lifespan: Lifespan,
    user_data: UserData,
    ownership: Ownership,
    ownership_strength: OwnershipStrength,
    writer_data_lifecycle: WriterDataLifecycle,
    data_representation: DataRepresentation,
});

impl DataWriterQos {
    /// Returns `self` with every policy it shares with `topic` copied from `topic`
    /// (`Publisher::copy_from_topic_qos`, DDS 1.4 §2.2.2.4.1.x).
    #[must_use]
    pub fn with_topic_qos(mut self, topic: &TopicQos) -> Self {
        self.durability = topic.durability;
        self.durability_service = topic.durability_service.clone();
        self.deadline = topic.deadline;
        self.latency_budget = topic.latency_budget;
        self.liveliness = topic.liveliness;
        self.reliability = topic.reliability;
        self.destination_order = topic.destination_order;
        self.history = topic.history;
        self.resource_limits = topic.resource_limits;
        self.transport_priority = topic.transport_priority;
        self.lifespan = topic.lifespan;
        self.ownership = topic.ownership;
        self.data_representation = topic.data_representation.clone();
        self
    }
}

/// QoS of a DataReader (DDS 1.4 §2.2.3). `Default` gives the spec defaults: BEST_EFFORT,
/// `KeepLast(1)`, VOLATILE, and so on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DataReaderQos {
    /// DURABILITY.
    pub durability: Durability,
    /// DEADLINE.
    pub deadline: Deadline,
    /// LATENCY_BUDGET.
    pub latency_budget: LatencyBudget,
    /// LIVELINESS.
    pub liveliness: Liveliness,
    /// RELIABILITY (default BEST_EFFORT).
    pub reliability: Reliability,
    /// DESTINATION_ORDER.
    pub destination_order: DestinationOrder,
    /// HISTORY.
    pub history: History,
    /// RESOURCE_LIMITS.
    pub resource_limits: ResourceLimits,
    /// USER_DATA.
    pub user_data: UserData,
    /// OWNERSHIP.
    pub ownership: Ownership,
    /// TIME_BASED_FILTER.
    pub time_based_filter: TimeBasedFilter,
    /// READER_DATA_LIFECYCLE.
    pub reader_data_lifecycle: ReaderDataLifecycle,
    /// DATA_REPRESENTATION; the ids this reader accepts (empty = XCDR only).
    pub data_representation: DataRepresentation,
    /// TYPE_CONSISTENCY_ENFORCEMENT: how a writer's announced type is compared with ours
    /// (DDS-XTypes 1.3 §7.6.3.4).
    pub type_consistency: TypeConsistencyEnforcement,
}

setters!(DataReaderQos {
    durability: Durability,
    deadline: Deadline,
    latency_budget: LatencyBudget,
    liveliness: Liveliness,
    reliability: Reliability,
    destination_order: DestinationOrder,
    history: History,
    resource_limits: ResourceLimits,
    user_data: UserData,
    ownership: Ownership,
    time_based_filter: TimeBasedFilter,
    reader_data_lifecycle: ReaderDataLifecycle,
    data_representation: DataRepresentation,
    type_consistency: TypeConsistencyEnforcement,
});

impl DataReaderQos {
    /// Returns `self` with every policy it shares with `topic` copied from `topic`
    /// (`Subscriber::copy_from_topic_qos`, DDS 1.4 §2.2.2.5.1.x).
    #[must_use]
    pub fn with_topic_qos(mut self, topic: &TopicQos) -> Self {
        self.durability = topic.durability;
        self.deadline = topic.deadline;
        self.latency_budget = topic.latency_budget;
        self.liveliness = topic.liveliness;
        self.reliability = topic.reliability;
        self.destination_order = topic.destination_order;
        self.history = topic.history;
        self.resource_limits = topic.resource_limits;
        self.ownership = topic.ownership;
        self.data_representation = topic.data_representation.clone();
        self
    }
}

/// QoS of a Publisher (DDS 1.4 §2.2.3). Its presentation and partition take part in matching.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct PublisherQos {
    /// PRESENTATION.
    pub presentation: Presentation,
    /// PARTITION.
    pub partition: Partition,
    /// GROUP_DATA.
    pub group_data: GroupData,
    /// ENTITY_FACTORY.
    pub entity_factory: EntityFactory,
}

setters!(PublisherQos {
    presentation: Presentation,
    partition: Partition,
    group_data: GroupData,
    entity_factory: EntityFactory,
});

/// QoS of a Subscriber (DDS 1.4 §2.2.3). Its presentation and partition take part in matching.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct SubscriberQos {
    /// PRESENTATION.
    pub presentation: Presentation,
    /// PARTITION.
    pub partition: Partition,
    /// GROUP_DATA.
    pub group_data: GroupData,
    /// ENTITY_FACTORY.
    pub entity_factory: EntityFactory,
}

setters!(SubscriberQos {
    presentation: Presentation,
    partition: Partition,
    group_data: GroupData,
    entity_factory: EntityFactory,
});

/// QoS of a DomainParticipant (DDS 1.4 §2.2.3).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DomainParticipantQos {
    /// USER_DATA.
    pub user_data: UserData,
    /// ENTITY_FACTORY.
    pub entity_factory: EntityFactory,
    /// PROPERTY: local middleware settings (`siftdds.transport.interfaces`).
    pub property: Property,
}

setters!(DomainParticipantQos {
    user_data: UserData,
    entity_factory: EntityFactory,
    property: Property
});

#[cfg(test)]
mod tests;
