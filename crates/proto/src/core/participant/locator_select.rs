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
mod tests {
    use super::*;

    fn net(s: &str) -> Ipv4Net {
        s.parse().unwrap()
    }

    fn l(ip: [u8; 4], port: u32) -> Locator {
        Locator::udpv4(ip, port as u16)
    }

    /// Host H with links to A (198.18.1.0/24) and B (198.18.2.0/24).
    fn h() -> Vec<Ipv4Net> {
        vec![net("198.18.1.1/24"), net("198.18.2.1/24")]
    }

    #[test]
    fn same_subnet_wins_over_announcement_order() {
        let peer = [l([10, 0, 0, 7], 7410), l([198, 18, 2, 2], 7410)];
        assert_eq!(select_unicast(&h(), false, &peer), [peer[1]]);
    }

    #[test]
    fn exactly_one_locator_for_a_peer_on_two_of_our_subnets() {
        let peer = [l([198, 18, 1, 2], 7411), l([198, 18, 2, 2], 7411)];
        assert_eq!(select_unicast(&h(), false, &peer), [peer[0]]);
    }

    #[test]
    fn loopback_of_another_host_is_never_chosen() {
        let peer = [l([127, 0, 0, 1], 7410), l([203, 0, 113, 5], 7410)];
        assert_eq!(select_unicast(&h(), false, &peer), [peer[1]]);
        assert!(select_unicast(&h(), false, &peer[..1]).is_empty());
    }

    #[test]
    fn a_peer_on_this_host_may_be_reached_on_loopback() {
        let peer = [l([203, 0, 113, 5], 7410), l([127, 0, 0, 1], 7410)];
        assert_eq!(select_unicast(&h(), true, &peer), [peer[1]]);
        // ... but a locator in our subnet is still better.
        let peer = [l([127, 0, 0, 1], 7410), l([198, 18, 1, 1], 7412)];
        assert_eq!(select_unicast(&h(), true, &peer), [peer[1]]);
        // Inside netns-run our only interface is lo: its locators are "same subnet".
        let lo = [net("127.0.0.1/8")];
        let peer = [l([127, 0, 0, 1], 7412)];
        assert_eq!(select_unicast(&lo, true, &peer), peer);
    }

    #[test]
    fn routable_others_are_used_when_nothing_is_on_our_subnets() {
        let peer = [l([203, 0, 113, 5], 7410), l([192, 0, 2, 9], 7410)];
        assert_eq!(select_unicast(&h(), false, &peer), [peer[0]]);
    }

    #[test]
    fn unusable_locators_are_skipped() {
        let mut port0 = l([198, 18, 1, 2], 0);
        port0.port = 0;
        let mut big = l([198, 18, 1, 2], 1);
        big.port = 70_000;
        let v6 = Locator {
            kind: Locator::KIND_UDPV6,
            port: 7410,
            address: [0; 16],
        };
        let shm = Locator {
            kind: Locator::KIND_FASTDDS_SHM,
            port: 7410,
            address: [0; 16],
        };
        let multicast = l([239, 255, 0, 1], 7401);
        let unspecified = l([0, 0, 0, 0], 7410);
        let good = l([192, 0, 2, 9], 7410);
        let peer = [port0, big, v6, shm, multicast, unspecified, good];
        assert_eq!(select_unicast(&h(), false, &peer), [good]);
        assert!(select_unicast(&h(), false, &peer[..6]).is_empty());
        assert!(select_unicast(&h(), false, &[]).is_empty());
    }

    #[test]
    fn this_host_is_loopback_or_one_of_our_addresses() {
        assert!(on_this_host(&h(), &l([127, 0, 0, 1], 40000)));
        assert!(on_this_host(&h(), &l([198, 18, 2, 1], 40000)));
        assert!(!on_this_host(&h(), &l([198, 18, 2, 2], 40000)));
        assert!(on_this_host(&[], &l([127, 0, 0, 1], 7410)));
        assert!(!on_this_host(&[], &l([10, 0, 0, 1], 7410)));
    }
}
