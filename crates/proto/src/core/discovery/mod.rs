//! SPDP and SEDP discovery data and rules. RTPS 2.5 §8.5, §9.6.2.
//!
//! Must not: perform I/O or read clocks. Everything here decodes untrusted input from the
//! network, so nothing may panic, index unchecked, or allocate from a wire count
//! (docs/conventions.md §4).
//!
//! # Overview
//! * [`ParticipantProxyData`]: the SPDP DATA(p) body (SPDPdiscoveredParticipantData,
//!   RTPS 2.5 §8.5.3.2, §9.6.2.2).
//! * [`PublicationData`] / [`SubscriptionData`]: the SEDP DATA(w) / DATA(r) bodies
//!   (DiscoveredWriterData / DiscoveredReaderData, RTPS 2.5 §8.5.4.4, §9.6.2.2.4), with the
//!   QoS that travel in SEDP mapped to and from [`crate::qos`] policy types, and the reader's
//!   owned [`ContentFilter`].
//! * `ports`: the well-known port formula, the SPDP multicast group and the
//!   BuiltinEndpointSet bits (RTPS 2.5 §9.6.1.1, §9.3.2.12; docs/interop-facts.md §5.2, §5.3).
//! * `payload`: key-only payloads and inline QoS for disposing/unregistering a discovered
//!   entity (RTPS 2.5 §9.6.4.8/9, docs/interop-facts.md §5.7).
//!
//! Each body has `to_payload(endian)` (PL_CDR encapsulation + parameter list + sentinel) and
//! `from_payload(bytes, vendor)`: unknown PIDs are skipped, an unknown must-understand PID
//! gives [`DiscoveryError::NotUnderstood`], a malformed known PID gives
//! [`DiscoveryError::Wire`].
mod content_filter;
mod endpoint_data;
mod error;
mod participant_data;
mod participant_message;
mod payload;
mod ports;
mod qos_wire;

pub use content_filter::ContentFilter;
pub use endpoint_data::{
    EndpointData, EndpointSecurityInfo, MAX_DATA_REPRESENTATIONS, MAX_PARTITIONS, PublicationData,
    SubscriptionData,
};
pub use error::DiscoveryError;
pub use participant_data::{
    DEFAULT_LEASE_DURATION, MAX_PROPERTIES, ParticipantProxyData, ParticipantSecurityInfo,
};
pub use participant_message::{
    AUTOMATIC_LIVELINESS_UPDATE, MANUAL_LIVELINESS_UPDATE, MAX_PARTICIPANT_MESSAGE_DATA,
    ParticipantMessageData,
};
pub use payload::{
    MAX_LOCATORS, STATUS_INFO_DISPOSED, STATUS_INFO_UNREGISTERED, disposal_inline_qos,
    key_from_payload, key_payload,
};
pub use ports::{
    BuiltinEndpointSet, DOMAIN_GAIN, MAX_DOMAIN_ID, OFFSET_D0, OFFSET_D1, OFFSET_D2, OFFSET_D3,
    PARTICIPANT_GAIN, PORT_BASE, SPDP_MULTICAST_ADDRESS, metatraffic_unicast_port,
    spdp_multicast_port, user_multicast_port, user_unicast_port,
};

#[cfg(test)]
mod tests;
