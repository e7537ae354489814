//! `siftdds perf udp-ping`, `udp-pong` and `udp-relay`: the raw-UDP reference for the
//! round-trip goal (siftdds p50 ≤ 1.75× raw UDP) and for the router's hop (what a forwarder
//! that does nothing but receive and send adds). Plain UDP sockets on loopback addresses, a
//! datagram of `--size` bytes bounced back and forth, reported like `perf ping` (a line per
//! second and the same `summary: samples=N p50_us=.. p90_us=.. p99_us=.. max_us=..` line).
//!
//! Must not: bind or send anywhere but loopback addresses (the loopback-only scope, safe on
//! any machine) unless it runs inside the network sandbox (`NETNS_RUN_INSIDE=1`, set by
//! `netns-run` and `netns-sites`), or count a round trip for a stale echo (only the echo of
//! the outstanding number).
//!
//! No RTPS is involved: the pinger sends the datagram, waits in `recv` until its echo comes
//! back and sends the next one; the ponger waits in `recv_from` and sends every datagram back
//! to where it came from. Both block at once unless `SIFTDDS_SPIN_US` asks them to poll first,
//! as siftdds' loop does after work (then their waits are comparable with `perf ping/pong`'s:
//! on an idle VM a blocked process's wake-up alone can take tens of µs). Ports:
//! [`UDP_PORT_BASE`] + 2·domain (ponger) and + 1 (pinger), on 127.0.0.1. With `--via-relay`
//! the pinger sends to the relay instead, on [`RELAY_IP`] at the ponger's port; the relay
//! passes each datagram from the pinger to the ponger and each from the ponger to the pinger,
//! one socket, one thread, spinning like the router's loop before it parks
//! (`SIFTDDS_SPIN_US`, default for the relay [`RELAY_SPIN`]; 0 parks in `recv_from` at once).
//!
//! Inside the sandbox the three can sit in different namespaces (a router's sites): `--bind
//! IP` is the local address (every mode), `--to IP` where the pinger sends (the ponger or the
//! relay) and where the relay sends the pings (the ponger); the ports stay as above.

// A raw-UDP baseline needs raw sockets; they are bound to the loopback address only (the
// transport's loopback-only scope).
#![allow(clippy::disallowed_types)]

use std::net::{Ipv4Addr, SocketAddrV4, UdpSocket};
use std::time::{Duration, Instant};

use siftdds::runtime::SPIN_VAR;

use super::PerfOptions;
use super::report::Latencies;

/// First port of the raw-UDP pairs: 6000 + 2·domain stays below 7400, where the RTPS ports of
/// domain 0 start (RTPS 2.5 §9.6.1.1: PB 7400 + DG 250·d), for every domain id up to 232.
const UDP_PORT_BASE: u16 = 6_000;
/// A ping not answered within this long is sent again (UDP may drop it).
const PING_TIMEOUT: Duration = Duration::from_secs(1);
/// The ponger stops this long after its last echo once it has echoed something.
const PONG_IDLE: Duration = Duration::from_secs(1);
/// Largest datagram: the UDPv4 payload limit.
const MAX_DATAGRAM: usize = 65_507;
/// The relay's address: another loopback address, so it can use the ponger's port.
const RELAY_IP: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
/// How long the relay polls (yielding between polls) after a datagram before it parks when
/// `SIFTDDS_SPIN_US` is not set: the router loop's default.
const RELAY_SPIN: Duration = Duration::from_micros(50);
/// Longest spin `SIFTDDS_SPIN_US` may ask for.
const MAX_SPIN: Duration = Duration::from_millis(10);

/// The ponger's and the pinger's loopback addresses for `domain`.
fn addresses(domain: u32) -> Result<(SocketAddrV4, SocketAddrV4), String> {
    let pong = u16::try_from(domain)
        .ok()
        .and_then(|d| d.checked_mul(2))
        .and_then(|d| d.checked_add(UDP_PORT_BASE))
        .filter(|p| *p < 7_400)
        .ok_or_else(|| format!("domain {domain} is too large for the raw-UDP ports"))?;
    Ok((
        SocketAddrV4::new(Ipv4Addr::LOCALHOST, pong),
        SocketAddrV4::new(Ipv4Addr::LOCALHOST, pong + 1),
    ))
}

/// Whether this process runs inside the network sandbox (`netns-run`, `netns-sites`).
fn inside_sandbox() -> bool {
    std::env::var(siftdds::transport::scope::NAMESPACE_VAR).is_ok_and(|v| v == "1")
}

/// `ip` when it is a loopback address or the process runs inside the sandbox.
fn allowed(ip: Ipv4Addr, inside: bool) -> Result<Ipv4Addr, String> {
    if ip.is_loopback() || inside {
        Ok(ip)
    } else {
        Err(format!(
            "{ip} is not a loopback address, and this is not inside the network sandbox \
             (scripts/netns-run)"
        ))
    }
}

/// `default` at `port`, or `--bind`'s / `--to`'s address (`chosen`) when given.
fn at(chosen: Option<Ipv4Addr>, default: Ipv4Addr, port: u16) -> Result<SocketAddrV4, String> {
    let ip = allowed(chosen.unwrap_or(default), inside_sandbox())?;
    Ok(SocketAddrV4::new(ip, port))
}

fn check_size(o: &PerfOptions) -> Result<(), String> {
    if o.size > MAX_DATAGRAM {
        return Err(format!(
            "--size {} is above the UDP limit of {MAX_DATAGRAM} bytes",
            o.size
        ));
    }
    Ok(())
}

/// `udp-ping`: round trips until `--count` or `--duration`; true when at least one completed.
pub fn ping(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    check_size(o)?;
    let (pong_addr, ping_addr) = addresses(o.domain)?;
    let default_to = if o.via_relay {
        RELAY_IP
    } else {
        *pong_addr.ip()
    };
    let pong_addr = at(o.udp_to, default_to, pong_addr.port())?;
    let socket = UdpSocket::bind(at(o.udp_bind, *ping_addr.ip(), ping_addr.port())?)?;
    socket.connect(pong_addr)?;
    socket.set_read_timeout(Some(PING_TIMEOUT))?;
    let mut receiver = SpinReceiver::from_env(Duration::ZERO);
    println!("udp-ping: {} bytes to {pong_addr}", o.size);
    // The first 8 bytes carry the ping number (or fewer, for tiny sizes).
    let mut out = vec![0xeeu8; o.size.max(1)];
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let tag_len = out.len().min(8);
    let mut lat = Latencies::default();
    let start = Instant::now();
    let mut next_report = start + Duration::from_secs(1);
    let mut number = 0u64;
    let mut timeouts = 0u64;
    loop {
        if o.count.is_some_and(|n| lat.count() as u64 >= n)
            || o.duration
                .is_some_and(|d| start.elapsed().as_secs_f64() >= d)
        {
            break;
        }
        if let Some(rate) = o.rate {
            let due = start + Duration::from_secs_f64(number as f64 / rate);
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
        }
        let tag = number.to_le_bytes();
        out[..tag_len].copy_from_slice(&tag[..tag_len]);
        let sent = Instant::now();
        // Connection refused (no ponger yet) shows up on send or receive: retry after a pause.
        if socket.send(&out).is_err() {
            std::thread::sleep(Duration::from_millis(100));
            continue;
        }
        let answered = loop {
            match receiver.recv_from(&socket, &mut buf) {
                Ok((n, _)) if n == out.len() && buf[..tag_len] == tag[..tag_len] => break true,
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    break false;
                }
                Err(_) => {
                    std::thread::sleep(Duration::from_millis(100));
                    break false;
                }
            }
        };
        if answered {
            lat.record(sent.elapsed());
        } else if lat.count() > 0 {
            timeouts += 1;
        }
        number = number.wrapping_add(1);
        if Instant::now() >= next_report {
            lat.report_interval(start.elapsed().as_secs_f64());
            next_report += Duration::from_secs(1);
        }
    }
    if timeouts > 0 {
        println!("udp-ping: {timeouts} pings timed out and were sent again");
    }
    lat.summary();
    Ok(lat.count() > 0)
}

/// `udp-pong`: echoes every datagram until `--duration` passes or the pinger has been quiet
/// for [`PONG_IDLE`] after the first echo.
pub fn pong(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    let (pong_addr, _) = addresses(o.domain)?;
    let pong_addr = at(o.udp_bind, *pong_addr.ip(), pong_addr.port())?;
    let socket = UdpSocket::bind(pong_addr)?;
    // Answers only where it may send: loopback, or anywhere inside the sandbox.
    let inside = inside_sandbox();
    let mut receiver = SpinReceiver::from_env(Duration::ZERO);
    println!("udp-pong: echoing on {pong_addr}");
    let echoed = pass_on(o, &socket, &mut receiver, o.count, |from| {
        (from.ip().is_loopback() || inside).then_some(from)
    })?;
    println!("summary: samples={echoed}");
    Ok(echoed > 0)
}

/// The spin from `value` (`SIFTDDS_SPIN_US`, whole µs; unset or unreadable: `default`),
/// capped at [`MAX_SPIN`].
fn spin(value: Option<&str>, default: Duration) -> Duration {
    value
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(default, Duration::from_micros)
        .min(MAX_SPIN)
}

/// Waits for datagrams the way siftdds' loop waits for work: after a datagram it keeps
/// polling without blocking for `spin`, yielding the core between polls, then parks in a
/// blocking receive (bounded by the socket's read timeout). A zero spin always blocks.
struct SpinReceiver {
    spin: Duration,
    /// The socket is non-blocking (polling) rather than parked.
    spinning: bool,
    /// When the last datagram came.
    last: Instant,
}

impl SpinReceiver {
    /// The spin from [`SPIN_VAR`], `default` when it is unset or unreadable.
    fn from_env(default: Duration) -> Self {
        SpinReceiver {
            spin: spin(std::env::var(SPIN_VAR).ok().as_deref(), default),
            spinning: false,
            last: Instant::now(),
        }
    }

    /// The next datagram; `WouldBlock` or `TimedOut` when the read timeout passed while
    /// parked.
    fn recv_from(
        &mut self,
        socket: &UdpSocket,
        buf: &mut [u8],
    ) -> std::io::Result<(usize, std::net::SocketAddr)> {
        loop {
            match socket.recv_from(buf) {
                Ok(got) => {
                    self.last = Instant::now();
                    if !self.spinning && !self.spin.is_zero() {
                        socket.set_nonblocking(true)?;
                        self.spinning = true;
                    }
                    return Ok(got);
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock && self.spinning => {
                    if self.last.elapsed() < self.spin {
                        std::thread::yield_now();
                    } else {
                        socket.set_nonblocking(false)?;
                        self.spinning = false;
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// Where the relay sends a datagram that came from `from`: the ponger's go to the pinger (the
/// last sender that was not the ponger), anyone else's to the ponger, and that sender becomes
/// the pinger. `None` for an echo before any ping.
fn relay_target(
    from: std::net::SocketAddr,
    pong: SocketAddrV4,
    pinger: &mut Option<std::net::SocketAddr>,
) -> Option<std::net::SocketAddr> {
    if from == std::net::SocketAddr::V4(pong) {
        *pinger
    } else {
        *pinger = Some(from);
        Some(pong.into())
    }
}

/// `udp-relay`: passes datagrams between the pinger and the ponger until `--duration` passes
/// or both have been quiet for [`PONG_IDLE`] after the first. After each datagram it keeps
/// polling for the spin (yielding the core between polls) before it parks in `recv_from`.
pub fn relay(o: &PerfOptions) -> Result<bool, Box<dyn std::error::Error>> {
    let (pong_addr, _) = addresses(o.domain)?;
    let port = pong_addr.port();
    let local = at(o.udp_bind, RELAY_IP, port)?;
    let pong_addr = at(o.udp_to, *pong_addr.ip(), port)?;
    let socket = UdpSocket::bind(local)?;
    let mut receiver = SpinReceiver::from_env(RELAY_SPIN);
    println!(
        "udp-relay: on {local}, pings to {pong_addr}, spin {:?}",
        receiver.spin
    );
    let mut pinger = None;
    let relayed = pass_on(o, &socket, &mut receiver, None, |from| {
        relay_target(from, pong_addr, &mut pinger)
    })?;
    println!("summary: relayed={relayed}");
    Ok(relayed > 0)
}

/// Receives datagrams on `socket` and sends each on to `target(from)` (none: dropped) until
/// `--duration` passes, `limit` were sent on, or none came for [`PONG_IDLE`] after the first;
/// returns how many were sent on. The socket is unconnected, so it gets no ICMP errors: a
/// target that is not up yet fails nothing here.
fn pass_on(
    o: &PerfOptions,
    socket: &UdpSocket,
    receiver: &mut SpinReceiver,
    limit: Option<u64>,
    mut target: impl FnMut(std::net::SocketAddr) -> Option<std::net::SocketAddr>,
) -> Result<u64, Box<dyn std::error::Error>> {
    socket.set_read_timeout(Some(Duration::from_millis(100)))?;
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let start = Instant::now();
    let mut sent = 0u64;
    let mut last = Instant::now();
    loop {
        if o.duration
            .is_some_and(|d| start.elapsed().as_secs_f64() >= d)
            || limit.is_some_and(|c| sent >= c)
        {
            return Ok(sent);
        }
        match receiver.recv_from(socket, &mut buf) {
            Ok((n, from)) => {
                if let Some(to) = target(from)
                    && socket.send_to(&buf[..n], to).is_ok()
                {
                    sent += 1;
                    last = Instant::now();
                }
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if sent > 0 && last.elapsed() >= PONG_IDLE {
                    return Ok(sent);
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests;
