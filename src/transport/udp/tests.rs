use super::*;

#[test]
fn loopback_only_scope_allows_loopback_unicast_only() {
    let scope = NetworkScope::LoopbackOnly;
    assert!(allowed_destination(scope, true, Ipv4Addr::LOCALHOST));
    assert!(allowed_destination(
        scope,
        false,
        Ipv4Addr::new(127, 0, 0, 2)
    ));
    assert!(!allowed_destination(
        scope,
        true,
        Ipv4Addr::new(239, 255, 0, 1)
    ));
    assert!(!allowed_destination(
        scope,
        true,
        Ipv4Addr::new(192, 168, 1, 10)
    ));
    assert!(!allowed_destination(scope, true, Ipv4Addr::UNSPECIFIED));
}

#[test]
fn namespace_scope_sends_multicast_only_when_enabled() {
    let scope = NetworkScope::Auto;
    let group = Ipv4Addr::new(239, 255, 0, 1);
    assert!(allowed_destination(scope, true, group));
    assert!(!allowed_destination(scope, false, group));
    assert!(allowed_destination(
        scope,
        false,
        Ipv4Addr::new(10, 0, 0, 1)
    ));
    assert!(!allowed_destination(scope, true, Ipv4Addr::BROADCAST));
}

#[test]
fn socket_kind_index_round_trips() {
    for kind in SocketKind::ALL {
        assert_eq!(SocketKind::from_index(kind.index()), Some(kind));
    }
    assert_eq!(SocketKind::from_index(4), None);
}

#[test]
fn out_of_range_domain_is_rejected_before_opening_sockets() {
    let config = TransportConfig::new(233);
    let loopback = plan(
        &config,
        &crate::transport::scope::Scope::loopback_only(true),
        &[],
    );
    let r = UdpTransport::open_planned(&config, loopback.unwrap());
    assert!(matches!(r, Err(TransportError::PortOutOfRange)));
}
