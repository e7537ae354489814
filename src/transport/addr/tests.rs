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
