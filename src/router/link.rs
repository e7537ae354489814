//! What the router does differently on a link to a peer router (a WAN): its SPDP
//! announcement period and lease, and where its periodic SPDP goes. A link peer given as a
//! bare IP is probed on the metatraffic ports of its first participant indices
//! (`driver::PEER_INDICES`); once the peer router is found at that IP, the periodic
//! announcements go to its own metatraffic unicast locators only, and back to every probe
//! when no router is left there. A peer router replaced at the same locator by a new one
//! (restarted, new GUID prefix) is forgotten at once ([`replaced`]). Discovery bytes on the
//! WAN: docs/router.md.
//!
//! Must not: decide routes, or touch a LAN site (its announcements serve the takeover of
//! redundant routers, `driver::ROUTER_ANNOUNCE`).

use std::collections::BTreeMap;
use std::time::Duration;

use super::marker::router_of;
use crate::core::discovery::ParticipantProxyData;
use crate::wire::{GuidPrefix, Locator};

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

/// The peer routers that another router has replaced at the same metatraffic unicast
/// locator (address and port: two live processes cannot hold one unicast port, so the old
/// one is gone, restarted with a new GUID prefix), given the remote `participants` known now
/// and `last`, the router participants known at the previous call with their locators
/// (updated here). Forgetting them at once stops the HEARTBEATs and DATA to their readers
/// that would otherwise go on until their `LINK_LEASE` expired. Only a router first seen now
/// replaces one seen before (two met at once cannot be told apart by age: the lease decides).
pub fn replaced(
    participants: &[ParticipantProxyData],
    last: &mut BTreeMap<GuidPrefix, Vec<Locator>>,
) -> Vec<GuidPrefix> {
    let routers: Vec<&ParticipantProxyData> = participants
        .iter()
        .filter(|r| router_of(&r.user_data).is_some())
        .collect();
    let mut gone: Vec<GuidPrefix> = Vec::new();
    for r in routers
        .iter()
        .filter(|r| !last.contains_key(&r.guid_prefix))
    {
        for (old, at) in last.iter() {
            let still = routers.iter().any(|o| o.guid_prefix == *old);
            if still
                && at
                    .iter()
                    .any(|l| r.metatraffic_unicast_locators.contains(l))
            {
                gone.push(*old);
            }
        }
    }
    gone.sort();
    gone.dedup();
    *last = routers
        .iter()
        .filter(|r| !gone.contains(&r.guid_prefix))
        .map(|r| (r.guid_prefix, r.metatraffic_unicast_locators.clone()))
        .collect();
    gone
}

#[cfg(test)]
mod tests;
