use super::*;

#[test]
fn domain_zero_ports_match_the_spec_examples() {
    assert_eq!(spdp_multicast_port(0), Some(7400));
    assert_eq!(user_multicast_port(0), Some(7401));
    assert_eq!(metatraffic_unicast_port(0, 0), Some(7410));
    assert_eq!(metatraffic_unicast_port(0, 1), Some(7412));
    assert_eq!(user_unicast_port(0, 0), Some(7411));
    assert_eq!(user_unicast_port(0, 1), Some(7413));
    assert_eq!(spdp_multicast_port(1), Some(7650));
}

#[test]
fn out_of_range_domains_and_participants_give_none() {
    assert_eq!(user_unicast_port(MAX_DOMAIN_ID, 0), Some(65411));
    assert_eq!(spdp_multicast_port(233), None);
    assert_eq!(user_unicast_port(MAX_DOMAIN_ID, 62), Some(65535));
    assert_eq!(user_unicast_port(MAX_DOMAIN_ID, 63), None);
    assert_eq!(metatraffic_unicast_port(0, u32::MAX), None);
    assert_eq!(spdp_multicast_port(u32::MAX), None);
}

#[test]
fn default_set_has_spdp_sedp_and_wlp_bits() {
    let s = BuiltinEndpointSet::DEFAULT;
    assert_eq!(s.0, 0x0c3f);
    assert!(s.contains(
        BuiltinEndpointSet::PUBLICATIONS_ANNOUNCER | BuiltinEndpointSet::SUBSCRIPTIONS_DETECTOR
    ));
    assert!(!s.contains(BuiltinEndpointSet::TOPICS_ANNOUNCER));
}
