use super::*;

#[test]
fn spdp_goes_to_the_group_with_multicast_and_to_local_ports_without() {
    let group = Locator::udpv4([239, 255, 0, 1], 7400);
    assert_eq!(spdp_destinations(0, true, Vec::new()), [group]);
    let local = spdp_destinations(0, false, Vec::new());
    assert_eq!(local.len(), DEFAULT_LOCAL_PEERS as usize);
    assert_eq!(local[0], Locator::udpv4([127, 0, 0, 1], 7410));
    assert_eq!(local[1], Locator::udpv4([127, 0, 0, 1], 7412));
    let peer = Locator::udpv4([198, 18, 1, 2], 7410);
    assert_eq!(spdp_destinations(0, false, vec![peer]), [peer]);
    assert_eq!(spdp_destinations(0, true, vec![peer]), [group, peer]);
}

#[test]
fn summary_line_lists_the_announced_addresses() {
    let s = NetworkSummary {
        scope: NetworkScope::Auto,
        announced: vec![Ipv4Addr::new(198, 18, 1, 1), Ipv4Addr::new(198, 18, 2, 1)],
        multicast: true,
    };
    assert_eq!(
        s.to_string(),
        "scope auto, announcing 198.18.1.1, 198.18.2.1"
    );
    let lo = NetworkSummary {
        scope: NetworkScope::LoopbackOnly,
        announced: vec![Ipv4Addr::LOCALHOST],
        multicast: false,
    };
    assert_eq!(lo.to_string(), "scope loopback-only, announcing 127.0.0.1");
}
