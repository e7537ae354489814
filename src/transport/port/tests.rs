use super::*;

#[test]
fn domain_zero_ports_match_the_spec_table() {
    assert_eq!(spdp_multicast_port(0), Some(7400));
    assert_eq!(user_multicast_port(0), Some(7401));
    assert_eq!(metatraffic_unicast_port(0, 0), Some(7410));
    assert_eq!(user_unicast_port(0, 0), Some(7411));
    assert_eq!(metatraffic_unicast_port(0, 1), Some(7412));
    assert_eq!(user_unicast_port(0, 1), Some(7413));
}

#[test]
fn domain_gain_is_250_and_participant_gain_is_2() {
    assert_eq!(spdp_multicast_port(1), Some(7650));
    assert_eq!(user_multicast_port(1), Some(7651));
    assert_eq!(metatraffic_unicast_port(3, 5), Some(7400 + 750 + 10 + 10));
    assert_eq!(user_unicast_port(3, 5), Some(7400 + 750 + 11 + 10));
}

#[test]
fn ports_beyond_65535_are_none() {
    // 7400 + 250·232 + 11 = 65411 still fits; domain 233 does not.
    assert_eq!(user_unicast_port(232, 0), Some(65_411));
    assert_eq!(spdp_multicast_port(233), None);
    assert_eq!(user_unicast_port(232, 100), None);
    assert_eq!(spdp_multicast_port(u32::MAX), None);
    assert_eq!(metatraffic_unicast_port(0, u16::MAX), None);
}
