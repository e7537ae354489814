//! What the router does differently on a link to a peer router (a WAN): its SPDP
//! announcement period and lease, and where its periodic SPDP goes. A link peer given as a
//! bare IP is probed on the metatraffic ports of its first participant indices
//! (`driver::PEER_INDICES`); once the peer router is found at that IP, the periodic
//! announcements go to its own metatraffic unicast locators only, and back to every probe
//! when no router is left there. Discovery bytes on the WAN: docs/router.md.
//!
//! Must not: decide routes, or touch a LAN site (its announcements serve the takeover of
//! redundant routers, `driver::ROUTER_ANNOUNCE`).

use std::time::Duration;

use super::marker::router_of;
use crate::core::discovery::ParticipantProxyData;
use crate::wire::Locator;

/// SPDP announcement period of the router's participant on a link once its peer router is
/// found: the idle cost of the link.
pub const LINK_ANNOUNCE: Duration = Duration::from_secs(10);
/// SPDP announcement period of a link participant while no peer router has been found there:
/// a peer that starts later, or a first announcement lost on a lossy link, must not wait
/// `LINK_ANNOUNCE` to be discovered (seen: a 10 % loss WAN discovered 9.5 s late, every
/// sample written meanwhile lost to its VOLATILE readers).
pub const LINK_PROBE: Duration = Duration::from_secs(1);
/// SPDP lease of the router's participant on a link: four announcements, and every
/// submessage from the peer renews it (`core::participant::discovery`), so a lossy idle link
/// keeps the peer.
pub const LINK_LEASE: Duration = Duration::from_secs(40);

/// The period and destinations of a link participant's periodic SPDP, given the remote
/// `participants` it knows: the peer routers found at the addresses of its `probes` (their
/// metatraffic unicast locators), or every probe while none is found.
pub fn announcements(
    participants: &[ParticipantProxyData],
    probes: &[Locator],
) -> (Duration, Vec<Locator>) {
    let ips: Vec<[u8; 4]> = probes.iter().filter_map(Locator::ipv4).collect();
    let mut found: Vec<Locator> = participants
        .iter()
        .filter(|r| router_of(&r.user_data).is_some())
        .flat_map(|r| r.metatraffic_unicast_locators.iter().copied())
        .filter(|l| l.ipv4().is_some_and(|ip| ips.contains(&ip)))
        .collect();
    found.sort_by_key(|l| (l.address, l.port));
    found.dedup();
    if found.is_empty() {
        (LINK_PROBE, probes.to_vec())
    } else {
        (LINK_ANNOUNCE, found)
    }
}

#[cfg(test)]
mod tests;
