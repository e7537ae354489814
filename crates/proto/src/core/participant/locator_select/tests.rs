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
