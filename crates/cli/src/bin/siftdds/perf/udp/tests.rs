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
fn the_relay_sends_pings_to_the_ponger_and_echoes_to_the_last_pinger() {
    let (pong, ping) = addresses(3).unwrap();
    let mut pinger = None;
    // An echo before any ping has nowhere to go.
    assert_eq!(relay_target(pong.into(), pong, &mut pinger), None);
    assert_eq!(
        relay_target(ping.into(), pong, &mut pinger),
        Some(pong.into())
    );
    assert_eq!(
        relay_target(pong.into(), pong, &mut pinger),
        Some(ping.into())
    );
    let other = SocketAddrV4::new(Ipv4Addr::new(198, 18, 1, 1), ping.port());
    assert_eq!(
        relay_target(other.into(), pong, &mut pinger),
        Some(pong.into())
    );
    assert_eq!(
        relay_target(pong.into(), pong, &mut pinger),
        Some(other.into())
    );
}

#[test]
fn other_than_loopback_addresses_only_inside_the_sandbox() {
    assert!(allowed(Ipv4Addr::new(127, 0, 0, 2), false).is_ok());
    let lan = Ipv4Addr::new(198, 18, 1, 2);
    assert!(allowed(lan, false).unwrap_err().contains("sandbox"));
    assert_eq!(allowed(lan, true), Ok(lan));
}

#[test]
fn the_spin_is_read_in_microseconds_and_capped() {
    assert_eq!(spin(None, RELAY_SPIN), RELAY_SPIN);
    assert_eq!(spin(None, Duration::ZERO), Duration::ZERO);
    assert_eq!(spin(Some("0"), RELAY_SPIN), Duration::ZERO);
    assert_eq!(
        spin(Some(" 20 "), Duration::ZERO),
        Duration::from_micros(20)
    );
    assert_eq!(spin(Some("lots"), RELAY_SPIN), RELAY_SPIN);
    assert_eq!(spin(Some("99999999"), Duration::ZERO), MAX_SPIN);
}
