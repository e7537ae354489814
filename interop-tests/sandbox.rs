//! The network sandbox itself: inside `netns-run`, multicast on loopback must work (RTPS
//! discovery needs it). The project's socket tests run only inside such a namespace
//! (README, "Network safety"): [`may_open_sockets`] skips them anywhere else.
//!
//! Each socket test also gets a network namespace of its own: the test binary's tests run in
//! parallel threads, and two of them on one loopback with the same domain id would discover
//! each other's participants. A network namespace belongs to a thread (unshare(2),
//! CLONE_NEWNET), and every thread and process the test starts afterwards inherits it, so
//! [`may_open_sockets`] moves the calling test thread into a fresh one: its participants,
//! vendor peers and captures see only that test's traffic, and domain ids need be unique
//! only within one test.
//!
//! Must not: configure anything but the new namespace's loopback, or move a thread that is
//! already in a namespace this process made (a test's own helper threads stay with it).

#![allow(clippy::disallowed_types)] // this test checks the sandbox itself with plain sockets
use std::collections::BTreeSet;
use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::os::unix::fs::MetadataExt;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use nix::sched::{CloneFlags, unshare};
use siftdds::transport::scope;

use crate::skip::skip;

/// Returns true when this test may open sockets (inside a private network namespace, with
/// multicast: not forced loopback-only), after moving the calling thread into a namespace of
/// its own ([`isolate`]); records the test as skipped otherwise.
pub fn may_open_sockets(test: &str) -> bool {
    let loopback_only = std::env::var(scope::LOOPBACK_ONLY_VAR).as_deref() == Ok("1");
    match scope::inside_namespace() && !loopback_only {
        true => {
            if let Err(e) = isolate() {
                panic!("{test}: no network namespace of its own: {e}");
            }
            true
        }
        false => {
            skip(
                test,
                "needs multicast inside a private network namespace (run scripts/test)",
            );
            false
        }
    }
}

/// The network namespaces this process made, by inode.
static MADE: Mutex<BTreeSet<u64>> = Mutex::new(BTreeSet::new());

/// The inode of the calling thread's network namespace.
fn namespace_of_this_thread() -> std::io::Result<u64> {
    std::fs::metadata("/proc/thread-self/ns/net").map(|m| m.ino())
}

/// Moves the calling thread into a new network namespace with a multicast-capable loopback
/// (what `scripts/netns-run` sets up), unless it is in one this process made already.
fn isolate() -> Result<(), String> {
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    let current = namespace_of_this_thread().map_err(|e| e.to_string())?;
    if made.contains(&current) {
        return Ok(());
    }
    unshare(CloneFlags::CLONE_NEWNET).map_err(|e| format!("unshare(CLONE_NEWNET): {e}"))?;
    // A child process starts in its parent thread's namespace: these configure the new one.
    for args in [
        &["link", "set", "lo", "up", "multicast", "on"][..],
        &["route", "add", "224.0.0.0/4", "dev", "lo"][..],
    ] {
        let out = Command::new("ip")
            .args(args)
            .output()
            .map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
        if !out.status.success() {
            return Err(format!(
                "ip {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
    }
    made.insert(namespace_of_this_thread().map_err(|e| e.to_string())?);
    Ok(())
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

#[test]
fn each_socket_test_has_a_network_namespace_of_its_own() {
    if !may_open_sockets("each_socket_test_has_a_network_namespace_of_its_own") {
        return;
    }
    let own = namespace_of_this_thread().unwrap();
    let process = std::fs::metadata("/proc/self/ns/net").unwrap().ino();
    assert_ne!(
        own, process,
        "the test thread is still in the process's namespace"
    );
    // Asking again, and from a thread the test starts, keeps the test's namespace.
    assert!(may_open_sockets(
        "each_socket_test_has_a_network_namespace_of_its_own"
    ));
    assert_eq!(namespace_of_this_thread().unwrap(), own);
    let helper = std::thread::spawn(|| {
        assert!(may_open_sockets(
            "each_socket_test_has_a_network_namespace_of_its_own"
        ));
        namespace_of_this_thread().unwrap()
    });
    assert_eq!(helper.join().unwrap(), own);
}
