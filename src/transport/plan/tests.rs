use super::*;
use crate::transport::interface::{InterfaceErrorReason, InterfaceSelection};
use crate::transport::scope::{ScopeRequest, decide};

fn iface(name: &str, addr: [u8; 4], loopback: bool, multicast: bool) -> Interface {
    Interface {
        name: name.to_string(),
        address: Ipv4Addr::from(addr),
        prefix_len: if loopback { 8 } else { 24 },
        up: true,
        loopback,
        multicast,
    }
}

/// A node with links to A and B (multicast on), and a loopback with multicast, as
/// `netns-sites` makes them.
fn host() -> Vec<Interface> {
    vec![
        iface("lo", [127, 0, 0, 1], true, true),
        iface("A", [198, 18, 1, 1], false, true),
        iface("B", [198, 18, 2, 1], false, true),
    ]
}

#[test]
fn empty_environment_outside_a_namespace_binds_loopback_and_sends_no_multicast() {
    let scope = decide(&ScopeRequest::default(), |_| None).unwrap();
    let p = plan(&TransportConfig::new(0), &scope, &host()).unwrap();
    assert_eq!(p.scope, NetworkScope::LoopbackOnly);
    assert_eq!(p.bind, Ipv4Addr::LOCALHOST);
    assert_eq!(p.interfaces, [Interface::loopback()]);
    assert!(p.multicast_interfaces.is_empty());
}

#[test]
fn loopback_only_never_announces_a_network_address() {
    // Forced loopback-only with a selection naming a network interface: still 127.0.0.1.
    let request = ScopeRequest {
        loopback_only: true,
        interfaces: Some(InterfaceSelection::parse("A").unwrap()),
    };
    let scope = decide(&request, |_| None).unwrap();
    let p = plan(&TransportConfig::new(0), &scope, &host()).unwrap();
    assert_eq!(p.bind, Ipv4Addr::LOCALHOST);
    assert!(p.interfaces.iter().all(|i| i.address.is_loopback()));
    assert!(p.multicast_interfaces.is_empty());
}

#[test]
fn auto_in_a_namespace_uses_every_link_with_multicast_on_each() {
    let scope = decide(&ScopeRequest::default(), |n| {
        (n == "NETNS_RUN_INSIDE").then(|| "1".to_string())
    })
    .unwrap();
    let p = plan(&TransportConfig::new(0), &scope, &host()).unwrap();
    assert_eq!(p.scope, NetworkScope::Auto);
    assert_eq!(p.bind, Ipv4Addr::UNSPECIFIED);
    assert_eq!(
        p.multicast_interfaces,
        [Ipv4Addr::new(198, 18, 1, 1), Ipv4Addr::new(198, 18, 2, 1)]
    );
    // netns-run: loopback alone, with multicast, as before.
    let lo = [iface("lo", [127, 0, 0, 1], true, true)];
    let p = plan(&TransportConfig::new(0), &scope, &lo).unwrap();
    assert_eq!(p.multicast_interfaces, [Ipv4Addr::LOCALHOST]);
}

#[test]
fn configured_interfaces_are_exactly_those_and_multicast_follows_the_config() {
    let request = ScopeRequest {
        interfaces: Some(InterfaceSelection::parse("B").unwrap()),
        ..ScopeRequest::default()
    };
    let scope = decide(&request, |_| None).unwrap();
    let p = plan(&TransportConfig::new(0), &scope, &host()).unwrap();
    assert_eq!(p.scope, NetworkScope::Configured);
    assert_eq!(p.interfaces.len(), 1);
    assert_eq!(p.multicast_interfaces, [Ipv4Addr::new(198, 18, 2, 1)]);
    let unicast = TransportConfig {
        multicast: false,
        ..TransportConfig::new(0)
    };
    assert!(
        plan(&unicast, &scope, &host())
            .unwrap()
            .multicast_interfaces
            .is_empty()
    );
    // An interface without IFF_MULTICAST is used for unicast only.
    let ptp = [iface("B", [198, 18, 2, 1], false, false)];
    assert!(
        plan(&TransportConfig::new(0), &scope, &ptp)
            .unwrap()
            .multicast_interfaces
            .is_empty()
    );
}

#[test]
fn bad_interface_name_or_cidr_fails_before_any_socket() {
    let request = ScopeRequest {
        interfaces: Some(InterfaceSelection::parse("eth9").unwrap()),
        ..ScopeRequest::default()
    };
    let scope = decide(&request, |_| None).unwrap();
    let e = plan(&TransportConfig::new(0), &scope, &host()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "interface \"eth9\": no such interface (have: lo, A, B)"
    );
    // Through the variable, the same for a bad CIDR: the error comes from the scope.
    let e = decide(&ScopeRequest::default(), |n| {
        (n == "SIFTDDS_INTERFACES").then(|| "198.18.2.0/33".to_string())
    })
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "interface \"198.18.2.0/33\": bad CIDR prefix (prefix length above 32)"
    );
    assert!(matches!(e.reason, InterfaceErrorReason::BadCidr(_)));
}
