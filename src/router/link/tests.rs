use std::collections::BTreeMap;

use super::*;
use crate::router::marker::router_user_data;
use crate::router::table::RouterId;
use crate::wire::GuidPrefix;

fn participant(n: u8, router: bool, locators: &[Locator]) -> ParticipantProxyData {
    let mut p = ParticipantProxyData::new(GuidPrefix([n; 12]), 0);
    if router {
        p.user_data = router_user_data(RouterId(u64::from(n)));
    }
    p.metatraffic_unicast_locators = locators.to_vec();
    p
}

#[test]
fn a_link_probes_until_a_peer_router_is_found_at_a_probed_address_then_announces_to_it() {
    let probes = [
        Locator::udpv4([198, 18, 2, 2], 7410),
        Locator::udpv4([198, 18, 2, 2], 7412),
    ];
    assert_eq!(announcements(&[], &probes), (LINK_PROBE, probes.to_vec()));
    // A non-router at the address, and a router elsewhere, change nothing.
    let other = [
        participant(1, false, &[Locator::udpv4([198, 18, 2, 2], 7414)]),
        participant(2, true, &[Locator::udpv4([198, 18, 3, 3], 7410)]),
    ];
    assert_eq!(
        announcements(&other, &probes),
        (LINK_PROBE, probes.to_vec())
    );
    let found = Locator::udpv4([198, 18, 2, 2], 7416);
    let mut with_peer = other.to_vec();
    with_peer.push(participant(3, true, &[found, found]));
    assert_eq!(
        announcements(&with_peer, &probes),
        (LINK_ANNOUNCE, vec![found])
    );
}

#[test]
fn a_router_restarted_at_the_same_locator_replaces_the_old_one() {
    let at = [Locator::udpv4([198, 18, 2, 2], 7410)];
    let mut last = BTreeMap::new();
    let old = participant(1, true, &at);
    assert!(replaced(std::slice::from_ref(&old), &mut last).is_empty());
    assert!(
        replaced(std::slice::from_ref(&old), &mut last).is_empty(),
        "the same again"
    );
    // Restarted: a new GUID prefix at the same locator while the old lease still runs.
    let new = participant(2, true, &at);
    assert_eq!(
        replaced(&[new.clone(), old.clone()], &mut last),
        [GuidPrefix([1; 12])]
    );
    // Forgotten: the new one alone; a router elsewhere or a non-router replaces nothing.
    let elsewhere = participant(3, true, &[Locator::udpv4([198, 18, 2, 2], 7412)]);
    let plain = participant(4, false, &at);
    assert!(replaced(&[new, elsewhere, plain], &mut last).is_empty());
    // Two met at once cannot be told apart: neither is forgotten, then or later.
    let mut fresh = BTreeMap::new();
    let (a, b) = (participant(5, true, &at), participant(6, true, &at));
    assert!(replaced(&[a.clone(), b.clone()], &mut fresh).is_empty());
    assert!(replaced(&[b, a], &mut fresh).is_empty());
}
