//! The RTPS 2.5 wire format: message header, submessages, parameter lists and the identifier
//! types they carry, each as a borrowed view for decoding and an owned repr for encoding.
//!
//! Must not: perform I/O, read clocks, panic on any input, or allocate from a length field
//! before checking the bytes are there (docs/conventions.md §4). Every read goes through
//! [`crate::cdr::CdrReader`].
//!
//! # Overview
//! RTPS 2.5 §8.3 (message module) and §9.4 (PSM mapping). A datagram is a [`Header`] followed
//! by submessages; each submessage decodes to one of three outcomes (accept, not understood,
//! malformed), see [`submessage`].
pub mod data_holder;
mod error;
mod group;
mod guid;
mod header;
pub mod inline_qos;
mod locator;
mod message;
mod peer_group;
mod peer_group_coop;
pub mod plist;
pub mod security;
mod sequence;
mod sn_set;
pub mod submessage;

pub use error::WireError;
pub use group::{GroupDigest, WriterGroupInfo};
pub use guid::{EntityId, Guid, GuidPrefix, ProtocolVersion, VendorId};
pub use header::{Header, VENDOR_PING_LEN, is_vendor_ping};
pub use inline_qos::{InlineQos, SampleIdentity};
pub use locator::Locator;
pub use message::{Message, emit_message};
pub use peer_group::{
    ABBREVIATED_FLAG_ALIAS, ABBREVIATED_FLAG_NARROW, AbbreviatedData, Alias, CacheKey, Capability,
    KeyDefinition, KeyRef, MAX_REST, MAX_SEGMENTS, NARROW_WINDOW,
    PID_SIFTDDS_PEER_GROUP_CAPABILITY, PID_SIFTDDS_PEER_GROUP_KEY, SHORT_KEY_LEN,
    SIFTDDS_ABBREVIATED_DATA, Segment, WIDE_WINDOW,
};
pub use peer_group_coop::{
    EvictionNotice, MAX_ANNOUNCED_PROJECTIONS, MAX_EVICTION_NOTICES, ProjectionAnnouncement,
};
pub use sequence::{FragmentNumber, SequenceNumber};
pub use sn_set::{FragmentNumberSet, MAX_SET_BITS, NumberSet, SequenceNumberSet, SetMember};
