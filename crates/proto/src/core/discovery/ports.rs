//! Well-known numbers of discovery: the port mapping formula, the SPDP multicast group, and
//! the BuiltinEndpointSet bits a participant announces in SPDP.
//!
//! Must not: open sockets or choose interfaces (that is `transport/`); this is arithmetic on
//! constants, checked so that no domain or participant id can overflow a UDP port.
//!
//! RTPS 2.5 §9.6.1.1 (default port numbers: PB + DG·domainId + offset [+ PG·participantId]),
//! §9.6.1.4.1 (SPDP multicast address 239.255.0.1), §9.3.2.12 / Table 9.4 (BuiltinEndpointSet);
//! vendor agreement checked in docs/interop-facts.md §5.2, §5.3.

/// PB, the port base. RTPS 2.5 §9.6.1.1.
pub const PORT_BASE: u32 = 7400;
/// DG, the domain id gain.
pub const DOMAIN_GAIN: u32 = 250;
/// PG, the participant id gain.
pub const PARTICIPANT_GAIN: u32 = 2;
/// d0: SPDP (metatraffic) multicast offset.
pub const OFFSET_D0: u32 = 0;
/// d1: metatraffic unicast offset.
pub const OFFSET_D1: u32 = 10;
/// d2: user-traffic multicast offset.
pub const OFFSET_D2: u32 = 1;
/// d3: user-traffic unicast offset.
pub const OFFSET_D3: u32 = 11;
/// The largest domain id whose ports fit in 16 bits (7400 + 250·232 + 11 = 65411).
pub const MAX_DOMAIN_ID: u32 = 232;
/// SPDP's default multicast group, 239.255.0.1. RTPS 2.5 §9.6.1.4.1.
pub const SPDP_MULTICAST_ADDRESS: [u8; 4] = [239, 255, 0, 1];

/// PB + DG·domain + offset + PG·participant_id, or `None` when the domain is above
/// [`MAX_DOMAIN_ID`] or the result does not fit a UDP port.
fn port(domain: u32, offset: u32, participant_id: u32) -> Option<u16> {
    if domain > MAX_DOMAIN_ID {
        return None;
    }
    let p = DOMAIN_GAIN
        .checked_mul(domain)?
        .checked_add(PORT_BASE)?
        .checked_add(offset)?
        .checked_add(PARTICIPANT_GAIN.checked_mul(participant_id)?)?;
    u16::try_from(p).ok()
}

/// The SPDP multicast port of `domain` (7400 for domain 0).
pub fn spdp_multicast_port(domain: u32) -> Option<u16> {
    port(domain, OFFSET_D0, 0)
}

/// The metatraffic (SPDP/SEDP) unicast port of participant `participant_id` in `domain`
/// (7410, 7412, ... in domain 0).
pub fn metatraffic_unicast_port(domain: u32, participant_id: u32) -> Option<u16> {
    port(domain, OFFSET_D1, participant_id)
}

/// The user-traffic multicast port of `domain` (7401 for domain 0).
pub fn user_multicast_port(domain: u32) -> Option<u16> {
    port(domain, OFFSET_D2, 0)
}

/// The user-traffic unicast port of participant `participant_id` in `domain` (7411, 7413,
/// ... in domain 0).
pub fn user_unicast_port(domain: u32, participant_id: u32) -> Option<u16> {
    port(domain, OFFSET_D3, participant_id)
}

/// BuiltinEndpointSet_t: which builtin endpoints a participant has (PID_BUILTIN_ENDPOINT_SET).
/// Bit numbers from RTPS 2.5 Table 9.4 and Cyclone `q_protocol.h` (docs/interop-facts.md §5.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct BuiltinEndpointSet(pub u32);

impl BuiltinEndpointSet {
    /// Bit 0: SPDP participant announcer (writer).
    pub const PARTICIPANT_ANNOUNCER: u32 = 1 << 0;
    /// Bit 1: SPDP participant detector (reader).
    pub const PARTICIPANT_DETECTOR: u32 = 1 << 1;
    /// Bit 2: SEDP publications announcer (writer).
    pub const PUBLICATIONS_ANNOUNCER: u32 = 1 << 2;
    /// Bit 3: SEDP publications detector (reader).
    pub const PUBLICATIONS_DETECTOR: u32 = 1 << 3;
    /// Bit 4: SEDP subscriptions announcer (writer).
    pub const SUBSCRIPTIONS_ANNOUNCER: u32 = 1 << 4;
    /// Bit 5: SEDP subscriptions detector (reader).
    pub const SUBSCRIPTIONS_DETECTOR: u32 = 1 << 5;
    /// Bit 10: participant-message (WLP) writer.
    pub const PARTICIPANT_MESSAGE_WRITER: u32 = 1 << 10;
    /// Bit 11: participant-message (WLP) reader.
    pub const PARTICIPANT_MESSAGE_READER: u32 = 1 << 11;
    /// Bit 12: TypeLookup request writer (DDS-XTypes 1.3 §7.6.3.3.4).
    pub const TYPE_LOOKUP_REQUEST_WRITER: u32 = 1 << 12;
    /// Bit 13: TypeLookup request reader.
    pub const TYPE_LOOKUP_REQUEST_READER: u32 = 1 << 13;
    /// Bit 14: TypeLookup reply writer.
    pub const TYPE_LOOKUP_REPLY_WRITER: u32 = 1 << 14;
    /// Bit 15: TypeLookup reply reader.
    pub const TYPE_LOOKUP_REPLY_READER: u32 = 1 << 15;
    /// Bit 28: SEDP topics announcer.
    pub const TOPICS_ANNOUNCER: u32 = 1 << 28;
    /// Bit 29: SEDP topics detector.
    pub const TOPICS_DETECTOR: u32 = 1 << 29;

    /// The set a participant needs for SPDP and both SEDP directions plus automatic
    /// liveliness: bits 0-5, 10 and 11.
    pub const DEFAULT: BuiltinEndpointSet = BuiltinEndpointSet(
        Self::PARTICIPANT_ANNOUNCER
            | Self::PARTICIPANT_DETECTOR
            | Self::PUBLICATIONS_ANNOUNCER
            | Self::PUBLICATIONS_DETECTOR
            | Self::SUBSCRIPTIONS_ANNOUNCER
            | Self::SUBSCRIPTIONS_DETECTOR
            | Self::PARTICIPANT_MESSAGE_WRITER
            | Self::PARTICIPANT_MESSAGE_READER,
    );

    /// True if every bit of `bits` is set.
    pub fn contains(self, bits: u32) -> bool {
        self.0 & bits == bits
    }
}

#[cfg(test)]
mod tests;
