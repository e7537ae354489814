//! Socket tests of the transport. They open sockets, so each one first asks the network
//! gate and records a skip when it may not (`interop-tests/skip.rs`, shared with the interop
//! tests so that `scripts/test` counts every skip the same way).
//!
//! Must not: send anywhere but 127.0.0.1 and the loopback multicast group.

use std::time::Duration;

use super::scope::{self, NetworkScope};
use super::*;
use crate::core::{Splice, Transmit};
use crate::wire::Locator;

#[path = "../../interop-tests/skip.rs"]
mod skip;
use skip::skip;

/// The scope this test may use, or `None` after recording it as skipped (printed, and counted
/// by `scripts/test`).
pub(crate) fn may_open_sockets(test: &str, needs_multicast: bool) -> Option<NetworkScope> {
    let loopback_only = std::env::var(scope::LOOPBACK_ONLY_VAR).as_deref() == Ok("1");
    match (loopback_only, scope::inside_namespace()) {
        (true, _) if !needs_multicast => Some(NetworkScope::LoopbackOnly),
        (false, true) => Some(NetworkScope::Auto),
        _ => {
            let multicast = if needs_multicast {
                " and multicast"
            } else {
                ""
            };
            skip(
                test,
                &format!(
                    "needs sockets{multicast} inside a private network namespace \
                     (run scripts/netns-run cargo test --offline, or scripts/test)"
                ),
            );
            None
        }
    }
}

/// Waits (bounded) until `transport`'s `kind` socket has a datagram, then reads it.
fn recv_within(
    transport: &mut UdpTransport,
    kind: SocketKind,
    timeout: Duration,
) -> Option<(Vec<u8>, Received)> {
    let mut poll = mio::Poll::new().unwrap();
    transport.register(poll.registry(), 0).unwrap();
    let mut events = mio::Events::with_capacity(8);
    let deadline = std::time::Instant::now() + timeout;
    let mut buf = vec![0u8; 65_536];
    loop {
        if let Some(r) = transport.recv(kind, &mut buf).unwrap() {
            return Some((buf[..r.len].to_vec(), r));
        }
        let left = deadline.checked_duration_since(std::time::Instant::now())?;
        poll.poll(&mut events, Some(left)).unwrap();
    }
}

#[test]
fn two_transports_on_one_domain_get_different_participant_indices() {
    let test = "two_transports_on_one_domain_get_different_participant_indices";
    let Some(_scope) = may_open_sockets(test, false) else {
        return;
    };
    let domain = 41;
    let a = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
    let b = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
    assert_ne!(a.participant_id(), b.participant_id());
    for t in [&a, &b] {
        let pid = t.participant_id();
        let meta = port::metatraffic_unicast_port(domain, pid).unwrap();
        let user = port::user_unicast_port(domain, pid).unwrap();
        assert_eq!(
            t.metatraffic_unicast_locators(),
            [Locator::udpv4([127, 0, 0, 1], meta)]
        );
        assert_eq!(
            t.default_unicast_locators(),
            [Locator::udpv4([127, 0, 0, 1], user)]
        );
    }

    // An explicit index that is taken fails instead of silently sharing the port.
    let taken = TransportConfig {
        participant_id: Some(a.participant_id()),
        ..TransportConfig::new(domain)
    };
    match UdpTransport::open(&taken) {
        Err(TransportError::Io { source, .. }) => {
            assert_eq!(source.kind(), std::io::ErrorKind::AddrInUse);
        }
        other => panic!("expected AddrInUse, got {other:?}"),
    }
}

#[test]
fn send_skips_unusable_locators_and_delivers_to_the_rest() {
    let test = "send_skips_unusable_locators_and_delivers_to_the_rest";
    let Some(_scope) = may_open_sockets(test, false) else {
        return;
    };
    let domain = 42;
    let a = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
    let mut b = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
    let target = b.default_unicast_locators()[0];
    let mut port_zero = target;
    port_zero.port = 0;
    let mut too_big = target;
    too_big.port = 70_000;
    let ipv6 = Locator {
        kind: Locator::KIND_UDPV6,
        port: 7411,
        address: [0; 16],
    };
    let transmit = Transmit::new(
        vec![port_zero, too_big, ipv6, target],
        b"RTPS-test".to_vec(),
    );
    let report = a.send(&transmit);
    assert_eq!(
        report,
        SendReport {
            sent: 1,
            bytes: 9,
            skipped: 3,
            errors: 0
        }
    );

    let (bytes, received) = recv_within(&mut b, SocketKind::UserUnicast, Duration::from_secs(5))
        .expect("datagram within 5 s");
    assert_eq!(bytes, b"RTPS-test");
    assert_eq!(received.kind, SocketKind::UserUnicast);
    // Everything is sent from the metatraffic unicast socket.
    assert_eq!(
        socket_addr_to_locator(received.source),
        Some(a.metatraffic_unicast_locators()[0])
    );
}

#[test]
fn a_spliced_transmit_arrives_as_one_datagram_with_the_splice_in_place() {
    let test = "a_spliced_transmit_arrives_as_one_datagram_with_the_splice_in_place";
    let Some(_scope) = may_open_sockets(test, false) else {
        return;
    };
    let domain = 194;
    let a = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
    let mut b = UdpTransport::open(&TransportConfig::new(domain)).unwrap();
    let sample: Vec<u8> = (0..40_000u32).map(|i| (i % 251) as u8).collect();
    let mut transmit = Transmit::new(b.default_unicast_locators().to_vec(), b"headtail".to_vec());
    transmit.splice = Some(Splice {
        at: 4,
        bytes: bytes::Bytes::from(sample.clone()),
    });
    let report = a.send(&transmit);
    assert_eq!(
        report,
        SendReport {
            sent: 1,
            bytes: 40_008,
            skipped: 0,
            errors: 0
        }
    );
    let (got, _) = recv_within(&mut b, SocketKind::UserUnicast, Duration::from_secs(5))
        .expect("datagram within 5 s");
    assert_eq!(got, [&b"head"[..], &sample, &b"tail"[..]].concat());
}

#[test]
fn multicast_locators_follow_the_config() {
    let test = "multicast_locators_follow_the_config";
    let Some(_scope) = may_open_sockets(test, true) else {
        return;
    };
    let domain = 43;
    let with_user = TransportConfig {
        user_multicast: true,
        ..TransportConfig::new(domain)
    };
    let t = UdpTransport::open(&with_user).unwrap();
    let group = DEFAULT_MULTICAST_GROUP.octets();
    assert_eq!(
        t.metatraffic_multicast_locators(),
        [Locator::udpv4(group, 7400 + 250 * 43)]
    );
    assert_eq!(
        t.default_multicast_locators(),
        [Locator::udpv4(group, 7401 + 250 * 43)]
    );

    let unicast_only = TransportConfig {
        multicast: false,
        ..TransportConfig::new(domain)
    };
    let u = UdpTransport::open(&unicast_only).unwrap();
    assert!(u.metatraffic_multicast_locators().is_empty());
    assert!(u.default_multicast_locators().is_empty());
    let to_group = Transmit::new(t.metatraffic_multicast_locators().to_vec(), b"x".to_vec());
    assert_eq!(u.send(&to_group).skipped, 1);
}
