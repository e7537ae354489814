//! QoS policies (DDS 1.4 §2.2.3), their defaults, and request/offered (RxO) matching.
//!
//! Must not: read clocks or perform I/O (except [`xml`] reading the profile files the
//! application names); depends only on `time`. Partition names and remote
//! QoS reach this module from the network, so nothing here may panic or recurse on input
//! (docs/conventions.md §4 lints below).
//!
//! # Overview
//! * Policy types (`Reliability`, `History`, …) are plain values with the DDS 1.4
//!   defaults; kind enums are ordered so that RxO rules are comparisons.
//! * Entity aggregates ([`DataWriterQos`], [`DataReaderQos`], …) have spec defaults, builder
//!   setters, and `check_consistency` returning a [`QosError`] that names the policy.
//! * [`check_compatibility`] lists every incompatible policy of a writer/reader pair as
//!   [`QosPolicyId`]s; [`partitions_match`] decides PARTITION matching with fnmatch patterns.
//! * [`xml`] loads QoS profiles (OMG DDS-XML 1.0, RTI conventions, Fast DDS import) into an
//!   [`xml::QosProvider`].
mod consistency;
mod entity;
mod id;
mod matching;
mod partition;
pub mod peer_group;
mod policy;
pub mod xml;

pub use consistency::QosError;
pub use entity::{
    DataReaderQos, DataWriterQos, DomainParticipantQos, PublisherQos, SubscriberQos, TopicQos,
};
pub use id::QosPolicyId;
pub use matching::{IncompatiblePolicies, Offered, Requested, check_compatibility};
pub use partition::{
    MAX_PATTERN_LEN, is_pattern, partition_names_match, partitions_match, wildcard_match,
};
pub use policy::{
    DataRepresentation, Deadline, DestinationOrder, Durability, DurabilityService, EntityFactory,
    GroupData, History, LatencyBudget, Length, Lifespan, Liveliness, LivelinessKind, Ownership,
    OwnershipStrength, Partition, Presentation, PresentationAccessScope, Property,
    ReaderDataLifecycle, Reliability, ReliabilityKind, ResourceLimits, TimeBasedFilter, TopicData,
    TransportPriority, TypeConsistencyEnforcement, TypeConsistencyKind, UserData,
    WriterDataLifecycle,
};
