use super::*;

#[test]
fn ports_are_per_domain_and_below_the_rtps_range() {
    let (pong, ping) = addresses(0).unwrap();
    assert_eq!((pong.port(), ping.port()), (6_000, 6_001));
    let (pong, ping) = addresses(232).unwrap();
    assert_eq!((pong.port(), ping.port()), (6_464, 6_465));
    assert!(pong.ip().is_loopback() && ping.ip().is_loopback());
    assert!(addresses(700).is_err());
}

#[test]
fn the_relay_shares_the_pongers_port_on_another_loopback_address() {
    let (pong, ping) = addresses(3).unwrap();
    let relay = relay_address(pong);
    assert_eq!(relay.port(), pong.port());
    assert_ne!(relay.ip(), pong.ip());
    assert!(relay.ip().is_loopback());
    assert_eq!(relay_target(ping.into(), pong, ping), Some(pong));
    assert_eq!(relay_target(pong.into(), pong, ping), Some(ping));
    let stranger = SocketAddrV4::new(Ipv4Addr::LOCALHOST, 7_000);
    assert_eq!(relay_target(stranger.into(), pong, ping), None);
}

#[test]
fn the_relay_spin_is_read_in_microseconds_and_capped() {
    assert_eq!(relay_spin(None), RELAY_SPIN);
    assert_eq!(relay_spin(Some("0")), Duration::ZERO);
    assert_eq!(relay_spin(Some(" 20 ")), Duration::from_micros(20));
    assert_eq!(relay_spin(Some("lots")), RELAY_SPIN);
    assert_eq!(relay_spin(Some("99999999")), MAX_RELAY_SPIN);
}
