//! A writer's configuration ([`WriterConfig`], with its multicast cost model settings
//! [`MulticastConfig`]) and why a write is refused ([`WriteError`]).
//!
//! Must not: hold state; the writer clamps the sizes when it is built (`Writer::new`).
//!
//! RTPS 2.5 §8.4.7.1 (writer attributes); DDS 1.4 §2.2.3 (the QoS policies named here).

use std::sync::Arc;

use crate::core::MAX_DATAGRAM;
use crate::qos::{History, ResourceLimits};
use crate::types::TypeDescriptor;
use crate::wire::Guid;

/// Configuration of one writer. Build with [`WriterConfig::new`] and adjust fields.
#[derive(Clone, Debug, PartialEq)]
pub struct WriterConfig {
    /// The writer's GUID (its prefix is the RTPS header's sourceGuidPrefix).
    pub guid: Guid,
    /// RELIABLE (true) or BEST_EFFORT. A best-effort writer never heartbeats or repairs.
    pub reliable: bool,
    /// HISTORY policy. DDS 1.4 §2.2.3.18.
    pub history: History,
    /// RESOURCE_LIMITS policy. DDS 1.4 §2.2.3.19.
    pub resource_limits: ResourceLimits,
    /// DURABILITY TRANSIENT_LOCAL (or stronger): late joiners that want history get it.
    pub durability_transient_local: bool,
    /// Samples longer than this go as DATA_FRAG. Clamped to `1..=65535` and to what fits in
    /// `max_message_size`. Default 8192.
    pub fragment_size: usize,
    /// Largest datagram built, ≤ [`MAX_DATAGRAM`]. Default [`MAX_DATAGRAM`].
    pub max_message_size: usize,
    /// Octets a protection transform may add to each submessage after the writer built the
    /// datagram (`Writer::set_protection_overhead`); counted against `max_message_size`.
    pub(crate) submessage_overhead: usize,
    /// Period of HEARTBEATs while changes are unacknowledged. Default 100 ms.
    pub heartbeat_period: core::time::Duration,
    /// Delay before answering a NACK (lets several ACKNACKs merge). Default 5 ms.
    /// RTPS 2.5 §8.4.7.1 (nackResponseDelay).
    pub nack_response_delay: core::time::Duration,
    /// Send new changes at once to reliable readers (else only announce them by HEARTBEAT).
    /// RTPS 2.5 §8.4.7.1 (pushMode). Best-effort readers are always pushed to.
    pub push_mode: bool,
    /// The topic is keyed: ALIVE DATA carries PID_KEY_HASH inline.
    pub keyed: bool,
    /// DEADLINE period offered (`None`: infinite). DDS 1.4 §2.2.3.7.
    pub deadline: Option<core::time::Duration>,
    /// LIFESPAN of every change (`None`: infinite). DDS 1.4 §2.2.3.16.
    pub lifespan: Option<core::time::Duration>,
    /// The topic name: a reader's filter is evaluated here only if its relatedTopicName is
    /// this (docs/interop-facts.md §1.2). Default empty.
    pub topic_name: String,
    /// The sample type's descriptor. With it the writer filters for readers that announce a
    /// usable DDSSQL filter (RTPS 2.5 §8.7.3); without, it sends everything. Default `None`.
    pub descriptor: Option<Arc<TypeDescriptor>>,
    /// The per-sample multicast/unicast choice (`multicast.rs`). Default: the cost model.
    pub multicast: MulticastConfig,
    /// How long a reliable reader may leave changes unacknowledged without any progress
    /// before it no longer holds the history back (`unresponsive.rs`). Default
    /// [`DEFAULT_UNRESPONSIVE_READER_TIMEOUT`](super::DEFAULT_UNRESPONSIVE_READER_TIMEOUT).
    pub unresponsive_reader_timeout: core::time::Duration,
    /// Test only (interop proof that peers trust our PID_CONTENT_FILTER_INFO): every filtered
    /// reader gets DATA for every sample, with its filter bit inverted.
    /// Only with `cfg(test)` or the `test-hooks` feature.
    #[doc(hidden)]
    #[cfg(any(test, feature = "test-hooks"))]
    pub invert_filter_bit_for_tests: bool,
}

impl WriterConfig {
    /// Whether the writer inverts every filtered reader's PID_CONTENT_FILTER_INFO bit (the
    /// interop test hook; always false without `cfg(test)` or the `test-hooks` feature).
    pub(crate) fn inverts_filter_bits(&self) -> bool {
        #[cfg(any(test, feature = "test-hooks"))]
        return self.invert_filter_bit_for_tests;
        #[cfg(not(any(test, feature = "test-hooks")))]
        return false;
    }

    /// Defaults: reliable, KEEP_LAST(1), unlimited resources, VOLATILE, fragment 8192,
    /// max message [`MAX_DATAGRAM`], heartbeat 100 ms, NACK response 5 ms, push, unkeyed.
    pub fn new(guid: Guid) -> Self {
        WriterConfig {
            guid,
            reliable: true,
            history: History::KeepLast(1),
            resource_limits: ResourceLimits::default(),
            durability_transient_local: false,
            fragment_size: 8192,
            max_message_size: MAX_DATAGRAM,
            submessage_overhead: 0,
            heartbeat_period: core::time::Duration::from_millis(100),
            nack_response_delay: core::time::Duration::from_millis(5),
            push_mode: true,
            keyed: false,
            deadline: None,
            lifespan: None,
            topic_name: String::new(),
            descriptor: None,
            multicast: MulticastConfig::default(),
            unresponsive_reader_timeout: super::DEFAULT_UNRESPONSIVE_READER_TIMEOUT,
            #[cfg(any(test, feature = "test-hooks"))]
            invert_filter_bit_for_tests: false,
        }
    }
}

/// Why [`Writer::write`](super::Writer::write) refused a change.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WriteError {
    /// KEEP_ALL or a sample limit is reached and every stored change is still unacknowledged
    /// by some reliable reader. The API layer blocks (up to max_blocking_time) and retries.
    /// DDS 1.4 §2.2.3.14 (RELIABILITY max_blocking_time), §2.2.3.19.
    HistoryFull,
    /// RESOURCE_LIMITS max_instances reached and the change is for a new instance.
    TooManyInstances,
    /// The payload is longer than a DATA_FRAG sampleSize (u32) can describe.
    SampleTooLarge,
    /// 2^63 − 1 changes written: no sequence number left.
    SequenceNumbersExhausted,
    /// No such writer in this participant (deleted, or a handle from another participant).
    UnknownWriter,
    /// `end_coherent_changes` without a matching `begin_coherent_changes`
    /// (DDS 1.4 §2.2.2.4.1.11: PRECONDITION_NOT_MET).
    NotInCoherentSet,
}

impl core::fmt::Display for WriteError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            WriteError::HistoryFull => "writer history full of unacknowledged changes",
            WriteError::TooManyInstances => "writer max_instances reached",
            WriteError::SampleTooLarge => "sample larger than 4 GiB",
            WriteError::SequenceNumbersExhausted => "sequence numbers exhausted",
            WriteError::UnknownWriter => "no such writer",
            WriteError::NotInCoherentSet => "end_coherent_changes without begin_coherent_changes",
        })
    }
}

impl std::error::Error for WriteError {}

/// How a writer sends a sample that several readers on one multicast group want.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum MulticastMode {
    /// Per sample, the cheaper plan by the cost model (default).
    #[default]
    Auto,
    /// Never multicast user data: every reader gets its own datagrams.
    AlwaysUnicast,
    /// Multicast every sample that at least one covered listener on a group passes.
    AlwaysMulticast,
}

/// The multicast/unicast cost model of a writer (`multicast.rs`'s overview
/// and `docs/filtering.md`). Costs are in byte-equivalents.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MulticastConfig {
    /// Auto (cost model), or an override.
    pub mode: MulticastMode,
    /// `a`: cost of one datagram sent or received (system call, per-packet processing, UDP/IP
    /// and link headers). Default 1024.
    pub datagram_cost: u64,
    /// `b`: cost of one byte of RTPS message. Default 1.
    pub byte_cost: u64,
    /// In `Auto`, the fewest covered listeners passing a sample for a multicast to be
    /// considered. Default 2: with one, unicast costs the same datagrams and does not reach
    /// participants that listen on the group without a matched reader.
    pub min_listeners: usize,
}

impl Default for MulticastConfig {
    fn default() -> Self {
        MulticastConfig {
            mode: MulticastMode::Auto,
            datagram_cost: 1024,
            byte_cost: 1,
            min_listeners: 2,
        }
    }
}
