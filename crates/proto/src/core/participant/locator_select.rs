//! Which one of the unicast locators a remote participant or endpoint announced we send to.
//!
//! Must not: perform I/O, or return more than one locator (a reader that announced one
//! locator per interface must not get every datagram once per locator).
//!
//! # Overview
//! A multi-homed peer announces a unicast locator per interface (RTPS 2.5 §8.5.3.2
//! metatrafficUnicastLocatorList / defaultUnicastLocatorList, §8.5.4.2 per endpoint); any of
//! them reaches it, so one is enough. Cyclone DDS and Fast DDS choose the same way:
//! 1. a locator in the subnet of one of our interfaces (directly reachable);
//! 2. for a peer on this host, a loopback locator;
//! 3. any other routable unicast locator (reachable through a gateway, perhaps);
//!
//! the first announced wins a tie. A loopback locator of a peer on another host names that
//! host's own loopback, which we cannot reach: it is never chosen. A peer is on this host when
//! the source address of its SPDP announcement is one of our addresses or a loopback address
//! ([`on_this_host`]). Only UDPv4 locators with a usable port are candidates; when none is
//! left the result is empty and the caller falls back to the peer's multicast locators.

use std::net::Ipv4Addr;

use ipnet::Ipv4Net;

use crate::wire::Locator;

/// True when a datagram from `source` was sent by a participant on this host: its address
/// is loopback or one of `ours`.
pub fn on_this_host(ours: &[Ipv4Net], source: &Locator) -> bool {
    match udpv4_address(source) {
        Some(ip) => ip.is_loopback() || ours.iter().any(|n| n.addr() == ip),
        None => false,
    }
}

/// The one unicast locator of `announced` to send to (empty when none is reachable), given
/// our interfaces `ours` (address and prefix length) and whether the peer is on this host.
pub fn select_unicast(
    ours: &[Ipv4Net],
    peer_on_this_host: bool,
    announced: &[Locator],
) -> Vec<Locator> {
    announced
        .iter()
        .filter_map(|l| Some((rank(ours, peer_on_this_host, l)?, l)))
        // min_by_key keeps the first of equal ranks: announcement order breaks ties.
        .min_by_key(|(rank, _)| *rank)
        .map(|(_, l)| vec![*l])
        .unwrap_or_default()
}

/// Preference of `locator` (lower is better), `None` when it cannot be used.
fn rank(ours: &[Ipv4Net], peer_on_this_host: bool, locator: &Locator) -> Option<u8> {
    let port_ok = (1..=u32::from(u16::MAX)).contains(&locator.port);
    let ip = udpv4_address(locator).filter(|_| port_ok)?;
    if ip.is_unspecified() || ip.is_multicast() || ip.is_broadcast() {
        return None;
    }
    if ip.is_loopback() {
        // Another host's loopback is its own: unreachable from here.
        if !peer_on_this_host {
            return None;
        }
        return Some(if ours.iter().any(|n| n.contains(&ip)) {
            0
        } else {
            1
        });
    }
    Some(if ours.iter().any(|n| n.contains(&ip)) {
        0
    } else {
        2
    })
}

/// The IPv4 address of a UDPv4 locator.
fn udpv4_address(locator: &Locator) -> Option<Ipv4Addr> {
    if locator.kind != Locator::KIND_UDPV4 {
        return None;
    }
    locator.ipv4().map(Ipv4Addr::from)
}

#[cfg(test)]
mod tests;
