//! `QosPolicyId_t`: the numeric identity of each QoS policy, used to report which policies made
//! an offered/requested pair incompatible.
//!
//! Must not: know anything about policy values; this is a name table only.
//!
//! DDS 1.4 §2.2.3 and its IDL (`*_QOS_POLICY_ID`, `*_QOS_POLICY_NAME`); DDS-XTypes 1.3 §7.6.3.1
//! adds `DATA_REPRESENTATION_QOS_POLICY_ID = 23` and §7.6.3.4
//! `TYPE_CONSISTENCY_ENFORCEMENT_QOS_POLICY_ID = 24`.

/// The DDS `QosPolicyId_t` of a policy. Values are the IDL constants (DDS 1.4 §2.2.3 IDL).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u32)]
#[non_exhaustive]
pub enum QosPolicyId {
    /// `USERDATA_QOS_POLICY_ID`.
    UserData = 1,
    /// `DURABILITY_QOS_POLICY_ID`.
    Durability = 2,
    /// `PRESENTATION_QOS_POLICY_ID`.
    Presentation = 3,
    /// `DEADLINE_QOS_POLICY_ID`.
    Deadline = 4,
    /// `LATENCYBUDGET_QOS_POLICY_ID`.
    LatencyBudget = 5,
    /// `OWNERSHIP_QOS_POLICY_ID`.
    Ownership = 6,
    /// `OWNERSHIPSTRENGTH_QOS_POLICY_ID`.
    OwnershipStrength = 7,
    /// `LIVELINESS_QOS_POLICY_ID`.
    Liveliness = 8,
    /// `TIMEBASEDFILTER_QOS_POLICY_ID`.
    TimeBasedFilter = 9,
    /// `PARTITION_QOS_POLICY_ID`.
    Partition = 10,
    /// `RELIABILITY_QOS_POLICY_ID`.
    Reliability = 11,
    /// `DESTINATIONORDER_QOS_POLICY_ID`.
    DestinationOrder = 12,
    /// `HISTORY_QOS_POLICY_ID`.
    History = 13,
    /// `RESOURCELIMITS_QOS_POLICY_ID`.
    ResourceLimits = 14,
    /// `ENTITYFACTORY_QOS_POLICY_ID`.
    EntityFactory = 15,
    /// `WRITERDATALIFECYCLE_QOS_POLICY_ID`.
    WriterDataLifecycle = 16,
    /// `READERDATALIFECYCLE_QOS_POLICY_ID`.
    ReaderDataLifecycle = 17,
    /// `TOPICDATA_QOS_POLICY_ID`.
    TopicData = 18,
    /// `GROUPDATA_QOS_POLICY_ID`.
    GroupData = 19,
    /// `TRANSPORTPRIORITY_QOS_POLICY_ID`.
    TransportPriority = 20,
    /// `LIFESPAN_QOS_POLICY_ID`.
    Lifespan = 21,
    /// `DURABILITYSERVICE_QOS_POLICY_ID`.
    DurabilityService = 22,
    /// `DATA_REPRESENTATION_QOS_POLICY_ID` (DDS-XTypes 1.3 §7.6.3.1).
    DataRepresentation = 23,
    /// `TYPE_CONSISTENCY_ENFORCEMENT_QOS_POLICY_ID` (DDS-XTypes 1.3 §7.6.3.4).
    TypeConsistencyEnforcement = 24,
}

impl QosPolicyId {
    /// Every id, in ascending numeric order.
    pub const ALL: [QosPolicyId; 24] = [
        QosPolicyId::UserData,
        QosPolicyId::Durability,
        QosPolicyId::Presentation,
        QosPolicyId::Deadline,
        QosPolicyId::LatencyBudget,
        QosPolicyId::Ownership,
        QosPolicyId::OwnershipStrength,
        QosPolicyId::Liveliness,
        QosPolicyId::TimeBasedFilter,
        QosPolicyId::Partition,
        QosPolicyId::Reliability,
        QosPolicyId::DestinationOrder,
        QosPolicyId::History,
        QosPolicyId::ResourceLimits,
        QosPolicyId::EntityFactory,
        QosPolicyId::WriterDataLifecycle,
        QosPolicyId::ReaderDataLifecycle,
        QosPolicyId::TopicData,
        QosPolicyId::GroupData,
        QosPolicyId::TransportPriority,
        QosPolicyId::Lifespan,
        QosPolicyId::DurabilityService,
        QosPolicyId::DataRepresentation,
        QosPolicyId::TypeConsistencyEnforcement,
    ];

    /// The numeric `QosPolicyId_t` value.
    pub const fn as_u32(self) -> u32 {
        self as u32
    }

    /// The policy with numeric id `value`, if it is one we know.
    pub fn from_u32(value: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|id| id.as_u32() == value)
    }

    /// The IDL `*_QOS_POLICY_NAME` string, e.g. `"Reliability"` (DDS 1.4 §2.2.3 IDL).
    pub const fn name(self) -> &'static str {
        match self {
            QosPolicyId::UserData => "UserData",
            QosPolicyId::Durability => "Durability",
            QosPolicyId::Presentation => "Presentation",
            QosPolicyId::Deadline => "Deadline",
            QosPolicyId::LatencyBudget => "LatencyBudget",
            QosPolicyId::Ownership => "Ownership",
            QosPolicyId::OwnershipStrength => "OwnershipStrength",
            QosPolicyId::Liveliness => "Liveliness",
            QosPolicyId::TimeBasedFilter => "TimeBasedFilter",
            QosPolicyId::Partition => "Partition",
            QosPolicyId::Reliability => "Reliability",
            QosPolicyId::DestinationOrder => "DestinationOrder",
            QosPolicyId::History => "History",
            QosPolicyId::ResourceLimits => "ResourceLimits",
            QosPolicyId::EntityFactory => "EntityFactory",
            QosPolicyId::WriterDataLifecycle => "WriterDataLifecycle",
            QosPolicyId::ReaderDataLifecycle => "ReaderDataLifecycle",
            QosPolicyId::TopicData => "TopicData",
            QosPolicyId::GroupData => "GroupData",
            QosPolicyId::TransportPriority => "TransportPriority",
            QosPolicyId::Lifespan => "Lifespan",
            QosPolicyId::DurabilityService => "DurabilityService",
            QosPolicyId::DataRepresentation => "DataRepresentation",
            QosPolicyId::TypeConsistencyEnforcement => "TypeConsistencyEnforcement",
        }
    }
}

impl core::fmt::Display for QosPolicyId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests;
