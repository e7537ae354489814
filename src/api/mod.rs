//! The public DDS-shaped API: DomainParticipant → Publisher/Subscriber → Topic →
//! DataWriter/DataReader, over types implementing [`TopicType`](crate::types::TopicType).
//!
//! Must not: contain protocol logic (it lives in `core`), or read clocks and sleep itself
//! (waiting is delegated to `runtime`). DDS 1.4 §2.2.2 (platform-independent model).

mod coherent;
mod endpoint;
mod error;
mod observe;
mod participant;
mod peer_group;
mod profile;

pub use endpoint::SampleStream;
pub use endpoint::{
    DEFAULT_FRAGMENT_SIZE, DataReader, DataWriter, ListenerContext, Publisher, Sample, SampleState,
    Subscriber, Topic, UntypedDataReader, UntypedDataWriter, UntypedReaderOptions,
    UntypedWriteSender,
};
pub use error::Error;
pub use observe::{DiscoverySnapshot, reader_qos_matching};
pub use participant::{
    DEFAULT_LOCAL_PEERS, DomainParticipant, INTERFACES_PROPERTY, ParticipantBuilder,
};
pub use peer_group::{
    DEFAULT_PEER_GROUP_CAPACITY, ParticipantMatch, PeerGroup, PeerGroupError, PeerGroupStats,
};
