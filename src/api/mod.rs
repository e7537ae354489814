//! The public DDS-shaped API: DomainParticipant → Publisher/Subscriber → Topic →
//! DataWriter/DataReader, over types implementing [`TopicType`](crate::types::TopicType).
//!
//! Must not: contain protocol logic (it lives in `core`), or read clocks and sleep itself
//! (waiting is delegated to `runtime`). DDS 1.4 §2.2.2 (platform-independent model).

mod coherent;
mod condition;
mod endpoint;
mod error;
mod observe;
mod participant;
mod peer_group;
mod profile;
#[cfg(feature = "security")]
pub mod security;
mod waitset;

pub use crate::core::reader::{
    InstanceHandle, InstanceState, InstanceStateMask, SampleInfo, SampleState, SampleStateMask,
    StateMasks, ViewState, ViewStateMask,
};
pub use condition::{
    Condition, ConditionId, GuardCondition, QueryCondition, ReadCondition, StatusCondition,
    StatusMask,
};
pub use endpoint::SampleStream;
pub use endpoint::{
    DEFAULT_FRAGMENT_SIZE, DataReader, DataWriter, ListenerContext, Publisher, Sample, Subscriber,
    Topic, UntypedDataReader, UntypedDataWriter, UntypedReaderOptions, UntypedWriteSender,
};
pub use error::{ConfigError, Error, IoError, PeerError, UsageError};
pub use observe::{DiscoverySnapshot, reader_qos_matching};
pub use participant::{
    DEFAULT_LOCAL_PEERS, DomainParticipant, INTERFACES_PROPERTY, ParticipantBuilder,
};
pub use peer_group::{
    DEFAULT_PEER_GROUP_CAPACITY, ParticipantMatch, PeerGroup, PeerGroupError, PeerGroupStats,
};
pub use waitset::WaitSet;
