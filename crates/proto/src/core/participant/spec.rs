//! What the application asks for when it creates a local DataWriter ([`WriterSpec`]) or
//! DataReader ([`ReaderSpec`]): plain values the endpoints part creates from and the matching
//! decision reads.
//!
//! Must not: hold state or behaviour beyond defaults.

use std::sync::Arc;

use crate::core::discovery::ContentFilter;
use crate::core::reader::KeyHasher;
use crate::qos::{DataReaderQos, DataWriterQos, Durability, PublisherQos, SubscriberQos};
use crate::types::TypeDescriptor;

/// What the application asks for when it creates a DataWriter.
#[derive(Clone, Debug)]
pub struct WriterSpec {
    /// Topic name.
    pub topic_name: String,
    /// Type name as peers know it (e.g. `ShapeType`).
    pub type_name: String,
    /// The type has key fields (entity kind 0x02 instead of 0x03).
    pub keyed: bool,
    /// The writer's QoS.
    pub qos: DataWriterQos,
    /// Its publisher's QoS (partition, presentation).
    pub publisher_qos: PublisherQos,
    /// Samples larger than this are fragmented.
    pub fragment_size: usize,
    /// The sample type's descriptor: with it the writer filters for readers that announce a
    /// content filter (RTPS 2.5 §8.7.3). `None`: it sends everything.
    pub descriptor: Option<Arc<TypeDescriptor>>,
}

/// What the application asks for when it creates a DataReader.
#[derive(Clone, Debug)]
pub struct ReaderSpec {
    /// Topic name.
    pub topic_name: String,
    /// Type name as peers know it.
    pub type_name: String,
    /// The type has key fields (entity kind 0x07 instead of 0x04).
    pub keyed: bool,
    /// The reader's QoS.
    pub qos: DataReaderQos,
    /// Its subscriber's QoS (partition, presentation).
    pub subscriber_qos: SubscriberQos,
    /// A content filter to announce (ContentFilteredTopic), if any. With `descriptor` it is
    /// also applied on delivery unless the writer already did (RTPS 2.5 §8.7.3.3).
    pub content_filter: Option<ContentFilter>,
    /// The sample type's descriptor, to compile `content_filter` against.
    pub descriptor: Option<Arc<TypeDescriptor>>,
    /// Computes key hashes of samples that arrive without PID_KEY_HASH, so that instance QoS
    /// (ownership, deadline, time-based filter, instance states) works with every writer.
    pub key_hasher: Option<KeyHasher>,
    /// Where the reader starts a matched writer (`ReaderConfig::start_at_match`): `None`
    /// by its durability — a VOLATILE reader where the writer stood at the match, a
    /// TRANSIENT_LOCAL one with what the writer holds ([`ReaderSpec::starts_at_match`]);
    /// `Some` overrides it (a router's standby proxy takes the history of VOLATILE writers).
    pub start_at_match: Option<bool>,
    /// The path vector a router's proxy reader announces (PID_SIFTDDS_ROUTER_PATH,
    /// `router`); empty for application readers.
    pub router_path: Vec<u64>,
}

impl WriterSpec {
    /// Fragment size of [`WriterSpec::new`]: samples above 1024 octets are fragmented.
    pub const DEFAULT_FRAGMENT_SIZE: usize = 1024;

    /// A writer of `topic_name`/`type_name` with `qos`, the default publisher QoS,
    /// [`Self::DEFAULT_FRAGMENT_SIZE`], no type descriptor (no writer-side filtering); set the
    /// fields for anything else.
    pub fn new(
        topic_name: impl Into<String>,
        type_name: impl Into<String>,
        keyed: bool,
        qos: DataWriterQos,
    ) -> Self {
        WriterSpec {
            topic_name: topic_name.into(),
            type_name: type_name.into(),
            keyed,
            qos,
            publisher_qos: PublisherQos::default(),
            fragment_size: Self::DEFAULT_FRAGMENT_SIZE,
            descriptor: None,
        }
    }
}

impl ReaderSpec {
    /// A reader of `topic_name`/`type_name` with `qos`, the default subscriber QoS, no content
    /// filter, descriptor or key hasher; set the fields for anything else.
    pub fn new(
        topic_name: impl Into<String>,
        type_name: impl Into<String>,
        keyed: bool,
        qos: DataReaderQos,
    ) -> Self {
        ReaderSpec {
            topic_name: topic_name.into(),
            type_name: type_name.into(),
            keyed,
            qos,
            subscriber_qos: SubscriberQos::default(),
            content_filter: None,
            descriptor: None,
            key_hasher: None,
            start_at_match: None,
            router_path: Vec::new(),
        }
    }

    /// Whether the reader starts each matched writer where it stood at the match: the
    /// override if set, else for a VOLATILE reader only. One rule for application and
    /// router proxy readers alike, as Cyclone DDS starts a volatile reader of a
    /// non-Cyclone writer at its first HEARTBEAT's lastSN + 1 (docs/durability.md, "Where
    /// a VOLATILE reader starts"). DDS 1.4 §2.2.3.4: a VOLATILE reader gets no sample
    /// written before it matched; a TRANSIENT_LOCAL one gets what the writer still holds.
    pub fn starts_at_match(&self) -> bool {
        self.start_at_match
            .unwrap_or(self.qos.durability == Durability::Volatile)
    }
}
