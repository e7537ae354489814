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
