//! [`Locator`] ⇄ [`SocketAddr`] conversions. IPv4 only for now: UDPv6 locators are ignored
//! (with a debug log) until the transport opens IPv6 sockets.
//!
//! Must not: open sockets or resolve names.
//!
//! RTPS 2.5 §9.3.2 (Locator_t), §9.6.1.4 (UDPv4 locators carry the address in the last four
//! octets).

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

use crate::wire::Locator;

/// The socket address a UDPv4 locator names, or `None` when it names none we can use: another
/// kind (UDPv6 is logged at debug level), or port 0 or above 65535.
pub fn locator_to_socket_addr(locator: &Locator) -> Option<SocketAddr> {
    match locator.kind {
        Locator::KIND_UDPV4 => {}
        Locator::KIND_UDPV6 => {
            log::debug!("ignoring IPv6 locator {locator}: IPv6 is not supported yet");
            return None;
        }
        _ => return None,
    }
    let port = u16::try_from(locator.port).ok().filter(|p| *p != 0)?;
    let ip = Ipv4Addr::from(locator.ipv4()?);
    Some(SocketAddr::V4(SocketAddrV4::new(ip, port)))
}

/// The UDPv4 locator for a socket address; `None` (with a debug log) for IPv6 addresses.
pub fn socket_addr_to_locator(addr: SocketAddr) -> Option<Locator> {
    match addr {
        SocketAddr::V4(v4) => Some(Locator::udpv4(v4.ip().octets(), v4.port())),
        SocketAddr::V6(v6) => {
            log::debug!("ignoring IPv6 address {v6}: IPv6 is not supported yet");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv6Addr, SocketAddrV6};

    #[test]
    fn udpv4_locator_round_trips_through_socket_addr() {
        let l = Locator::udpv4([127, 0, 0, 1], 7410);
        let a = locator_to_socket_addr(&l);
        assert_eq!(a, Some("127.0.0.1:7410".parse().unwrap()));
        assert_eq!(socket_addr_to_locator(a.unwrap()), Some(l));
    }

    #[test]
    fn multicast_locator_converts() {
        let l = Locator::udpv4([239, 255, 0, 1], 7400);
        assert_eq!(
            locator_to_socket_addr(&l),
            Some("239.255.0.1:7400".parse().unwrap())
        );
    }

    #[test]
    fn port_zero_and_ports_above_65535_have_no_address() {
        let mut l = Locator::udpv4([127, 0, 0, 1], 0);
        assert_eq!(locator_to_socket_addr(&l), None);
        l.port = 65_536;
        assert_eq!(locator_to_socket_addr(&l), None);
        l.port = u32::MAX;
        assert_eq!(locator_to_socket_addr(&l), None);
        l.port = 65_535;
        assert_eq!(
            locator_to_socket_addr(&l),
            Some("127.0.0.1:65535".parse().unwrap())
        );
    }

    #[test]
    fn non_udpv4_kinds_have_no_address() {
        for kind in [
            Locator::KIND_INVALID,
            Locator::KIND_RESERVED,
            Locator::KIND_UDPV6,
            Locator::KIND_FASTDDS_SHM,
        ] {
            let l = Locator {
                kind,
                port: 7410,
                address: [1; 16],
            };
            assert_eq!(locator_to_socket_addr(&l), None, "kind {kind}");
        }
    }

    #[test]
    fn ipv6_socket_addr_has_no_locator() {
        let a = SocketAddr::V6(SocketAddrV6::new(Ipv6Addr::LOCALHOST, 7410, 0, 0));
        assert_eq!(socket_addr_to_locator(a), None);
    }
}
