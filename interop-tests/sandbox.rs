//! The network sandbox itself: inside `netns-run`, multicast on loopback must work (RTPS
//! discovery needs it). The project's socket tests run only inside such a namespace
//! (README, "Network safety"): [`may_open_sockets`] skips them anywhere else.

#![allow(clippy::disallowed_types)] // this test checks the sandbox itself with plain sockets
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::time::Duration;

use siftdds::transport::scope;

/// Returns true when this test may open sockets (inside a private network namespace, with
/// multicast: not forced loopback-only), printing why it is skipped otherwise.
pub fn may_open_sockets(test: &str) -> bool {
    let loopback_only = std::env::var(scope::LOOPBACK_ONLY_VAR).as_deref() == Ok("1");
    match scope::inside_namespace() && !loopback_only {
        true => true,
        false => {
            // Written to the stderr handle directly: the test harness captures eprintln!, and a
            // skip must never be silent.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED {test}: needs multicast inside a private network namespace \
                 (run scripts/test)"
            );
            false
        }
    }
}

#[test]
fn multicast_loops_back_inside_the_namespace() {
    if !may_open_sockets("multicast_loops_back_inside_the_namespace") {
        return;
    }
    let group = Ipv4Addr::new(239, 255, 0, 1);
    let rx = UdpSocket::bind(SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, 0)).unwrap();
    rx.join_multicast_v4(&group, &Ipv4Addr::LOCALHOST).unwrap();
    rx.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let port = rx.local_addr().unwrap().port();
    let tx = UdpSocket::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0)).unwrap();
    tx.set_multicast_loop_v4(true).unwrap();
    tx.send_to(b"RTPS", SocketAddrV4::new(group, port)).unwrap();
    let mut buf = [0u8; 16];
    let (n, _) = rx.recv_from(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"RTPS");
}
