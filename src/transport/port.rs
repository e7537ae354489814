//! The RTPS well-known port formula, private to the transport until the canonical one in
//! `core::discovery::ports` lands.
//!
//! Must not: open sockets; this is plain arithmetic.
//!
//! RTPS 2.5 §9.6.1.1 (default port numbers): PB = 7400, DG = 250, PG = 2, d0 = 0, d1 = 10,
//! d2 = 1, d3 = 11 (docs/interop-facts.md §5.2, same as Cyclone `ddsi_portmapping.c` and Fast DDS
//! `PortParameters.h`).

use std::net::Ipv4Addr;

/// Port base (PB).
const PORT_BASE: u32 = 7400;
/// Domain id gain (DG).
const DOMAIN_GAIN: u32 = 250;
/// Participant id gain (PG).
const PARTICIPANT_GAIN: u32 = 2;
/// Offset d0: SPDP (metatraffic) multicast.
const OFFSET_METATRAFFIC_MULTICAST: u32 = 0;
/// Offset d1: metatraffic unicast.
const OFFSET_METATRAFFIC_UNICAST: u32 = 10;
/// Offset d2: user-traffic multicast.
const OFFSET_USER_MULTICAST: u32 = 1;
/// Offset d3: user-traffic unicast.
const OFFSET_USER_UNICAST: u32 = 11;

/// The default SPDP and user-traffic multicast group. RTPS 2.5 §9.6.1.4.1.
pub(crate) const DEFAULT_MULTICAST_GROUP: Ipv4Addr = Ipv4Addr::new(239, 255, 0, 1);

/// Highest participant index probed by automatic selection (Fast DDS and Cyclone probe
/// 0..=119 as well).
pub(crate) const MAX_AUTO_PARTICIPANT_ID: u16 = 119;

fn port(domain_id: u32, participant_id: u16, offset: u32, per_participant: bool) -> Option<u16> {
    let pid = if per_participant {
        u32::from(participant_id)
    } else {
        0
    };
    let p = DOMAIN_GAIN
        .checked_mul(domain_id)?
        .checked_add(PORT_BASE)?
        .checked_add(offset)?
        .checked_add(PARTICIPANT_GAIN.checked_mul(pid)?)?;
    u16::try_from(p).ok()
}

/// SPDP multicast port: PB + DG·domain + d0. `None` when it does not fit a UDP port.
pub(crate) fn spdp_multicast_port(domain_id: u32) -> Option<u16> {
    port(domain_id, 0, OFFSET_METATRAFFIC_MULTICAST, false)
}

/// User-traffic multicast port: PB + DG·domain + d2.
pub(crate) fn user_multicast_port(domain_id: u32) -> Option<u16> {
    port(domain_id, 0, OFFSET_USER_MULTICAST, false)
}

/// Metatraffic unicast port: PB + DG·domain + d1 + PG·participant.
pub(crate) fn metatraffic_unicast_port(domain_id: u32, participant_id: u16) -> Option<u16> {
    port(domain_id, participant_id, OFFSET_METATRAFFIC_UNICAST, true)
}

/// User-traffic unicast port: PB + DG·domain + d3 + PG·participant.
pub(crate) fn user_unicast_port(domain_id: u32, participant_id: u16) -> Option<u16> {
    port(domain_id, participant_id, OFFSET_USER_UNICAST, true)
}

#[cfg(test)]
mod tests;
