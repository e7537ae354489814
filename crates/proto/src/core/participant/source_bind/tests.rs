use super::*;

fn at(a: [u8; 4], port: u16) -> Locator {
    Locator::udpv4(a, port)
}

#[test]
fn a_submessage_from_the_spdp_source_on_any_port_is_accepted() {
    let b = SourceBinding::new(&at([10, 0, 0, 5], 40000), 1, &[], &[]);
    assert_eq!(b.check(&at([10, 0, 0, 5], 7411)), SourceVerdict::Accept);
    assert_eq!(b.check(&at([10, 0, 0, 6], 40000)), SourceVerdict::Drop);
}

#[test]
fn every_announced_unicast_locator_of_a_multi_homed_peer_is_bound_but_multicast_is_not() {
    let announced = [
        at([198, 18, 1, 1], 7411),
        at([198, 18, 2, 1], 7411),
        at([239, 255, 0, 1], 7400),
    ];
    let b = SourceBinding::new(&at([198, 18, 1, 1], 7400), 1, &announced, &[]);
    assert_eq!(b.check(&at([198, 18, 2, 1], 51000)), SourceVerdict::Accept);
    assert_eq!(b.check(&at([239, 255, 0, 1], 7400)), SourceVerdict::Drop);
}

#[test]
fn a_peer_on_this_host_may_use_127_0_0_1_and_our_addresses_but_not_other_loopbacks() {
    let ours = ["10.1.2.3/24".parse().unwrap()];
    let local = local_hosts(&ours);
    let b = SourceBinding::new(
        &at([10, 1, 2, 3], 7400),
        1,
        &[at([10, 1, 2, 3], 7411)],
        &local,
    );
    assert_eq!(b.check(&at([127, 0, 0, 1], 1)), SourceVerdict::Accept);
    assert_eq!(b.check(&at([10, 1, 2, 3], 1)), SourceVerdict::Accept);
    assert_eq!(b.check(&at([127, 0, 0, 3], 1)), SourceVerdict::Drop);
    // A remote peer's binding has no local part: 127.0.0.1 is foreign to it.
    let remote = SourceBinding::new(&at([10, 1, 2, 9], 7400), 1, &[], &[]);
    assert_eq!(remote.check(&at([127, 0, 0, 1], 1)), SourceVerdict::Drop);
}

#[test]
fn an_announcement_from_a_new_host_rebinds_only_with_a_higher_sequence_number() {
    let mut b = SourceBinding::new(&at([10, 0, 0, 5], 7400), 7, &[at([10, 0, 0, 5], 7411)], &[]);
    let new = at([10, 0, 0, 9], 7400);
    assert_eq!(b.check_announcement(&new, 7), SourceVerdict::Drop);
    assert_eq!(b.check_announcement(&new, 6), SourceVerdict::Drop);
    assert_eq!(b.check_announcement(&new, 8), SourceVerdict::Rebind);
    b.rebind(&new, 8, &[at([10, 0, 0, 9], 7411)], &[]);
    assert_eq!(b.check(&at([10, 0, 0, 9], 1)), SourceVerdict::Accept);
    // The old address is foreign now, and an old announcement from it cannot take it back.
    assert_eq!(b.check(&at([10, 0, 0, 5], 1)), SourceVerdict::Drop);
    assert_eq!(
        b.check_announcement(&at([10, 0, 0, 5], 7400), 8),
        SourceVerdict::Drop
    );
}

#[test]
fn an_announcement_from_a_bound_host_naming_new_locators_binds_them() {
    let mut b = SourceBinding::new(&at([10, 0, 0, 5], 7400), 1, &[at([10, 0, 0, 5], 7411)], &[]);
    assert_eq!(
        b.check_announcement(&at([10, 0, 0, 5], 7400), 1),
        SourceVerdict::Accept
    );
    b.accept_announcement(&at([10, 0, 0, 5], 7400), 1, &[at([10, 0, 0, 7], 7411)]);
    assert_eq!(b.check(&at([10, 0, 0, 7], 1)), SourceVerdict::Accept);
    // The SPDP source stays bound; the locator no longer announced does not.
    assert_eq!(b.check(&at([10, 0, 0, 5], 1)), SourceVerdict::Accept);
}

#[test]
fn the_binding_is_capped() {
    let many: Vec<Locator> = (0..=255u8).map(|i| at([10, 0, 1, i], 7411)).collect();
    let b = SourceBinding::new(&at([10, 0, 0, 5], 7400), 1, &many, &[]);
    let bound = many.iter().filter(|l| b.binds(l)).count();
    assert_eq!(bound, MAX_BOUND_ADDRESSES - 1);
}
