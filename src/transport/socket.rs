//! Creating and configuring the participant's UDP sockets: exclusive unicast binds (the
//! participant-index probe relies on a taken port failing), shared multicast sockets joined on
//! each multicast interface, and per-interface multicast send sockets.
//!
//! Must not: decide which interfaces or addresses to use (`plan.rs` does), or send.
//!
//! RTPS 2.5 §9.6.1 (ports, default multicast group 239.255.0.1).

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

use socket2::{Domain, Protocol, Socket, Type};

use super::config::{TransportConfig, TransportError, io_err};
use super::port::{DEFAULT_MULTICAST_GROUP, metatraffic_unicast_port, user_unicast_port};

/// A bound unicast socket and its port.
pub(super) struct Bound {
    pub(super) socket: mio::net::UdpSocket,
    pub(super) port: u16,
}

/// Binds the metatraffic and user unicast ports of `pid`; `Ok(None)` when either is taken.
pub(super) fn open_unicast_pair(
    config: &TransportConfig,
    bind: Ipv4Addr,
    multicast_interface: Option<Ipv4Addr>,
    pid: u16,
) -> Result<Option<(Bound, Bound)>, TransportError> {
    let domain = config.domain_id;
    let meta_port = metatraffic_unicast_port(domain, pid).ok_or(TransportError::PortOutOfRange)?;
    let user_port = user_unicast_port(domain, pid).ok_or(TransportError::PortOutOfRange)?;
    let Some(meta) = bind_unicast(config, SocketAddrV4::new(bind, meta_port))? else {
        return Ok(None);
    };
    if let Some(interface) = multicast_interface {
        // This socket sends everything, multicast on the first interface included.
        meta.set_multicast_if_v4(&interface)
            .map_err(io_err("setting IP_MULTICAST_IF"))?;
        meta.set_multicast_loop_v4(true)
            .map_err(io_err("setting IP_MULTICAST_LOOP"))?;
    }
    let Some(user) = bind_unicast(config, SocketAddrV4::new(bind, user_port))? else {
        return Ok(None);
    };
    Ok(Some((
        Bound {
            socket: into_mio(meta),
            port: meta_port,
        },
        Bound {
            socket: into_mio(user),
            port: user_port,
        },
    )))
}

/// A new non-blocking UDPv4 socket with the configured buffer sizes.
fn new_socket(config: &TransportConfig) -> Result<Socket, TransportError> {
    let socket = Socket::new(Domain::IPV4, Type::DGRAM, Some(Protocol::UDP))
        .map_err(io_err("creating a UDP socket"))?;
    if let Some(size) = config.recv_buffer_size {
        socket
            .set_recv_buffer_size(size)
            .map_err(io_err("setting SO_RCVBUF"))?;
    }
    if let Some(size) = config.send_buffer_size {
        socket
            .set_send_buffer_size(size)
            .map_err(io_err("setting SO_SNDBUF"))?;
    }
    socket
        .set_nonblocking(true)
        .map_err(io_err("setting O_NONBLOCK"))?;
    Ok(socket)
}

/// Binds an exclusive unicast socket; `Ok(None)` when the port is taken.
fn bind_unicast(
    config: &TransportConfig,
    addr: SocketAddrV4,
) -> Result<Option<Socket>, TransportError> {
    let socket = new_socket(config)?;
    match socket.bind(&SocketAddr::V4(addr).into()) {
        Ok(()) => Ok(Some(socket)),
        Err(e) if e.kind() == io::ErrorKind::AddrInUse => Ok(None),
        Err(e) => Err(TransportError::Io {
            context: "binding a unicast socket",
            source: e,
        }),
    }
}

/// Binds a shared socket on `0.0.0.0:port` and joins the default group on each of
/// `interfaces` (non-empty; the first is also its multicast send interface).
pub(super) fn open_multicast(
    config: &TransportConfig,
    interfaces: &[Ipv4Addr],
    port: u16,
) -> Result<mio::net::UdpSocket, TransportError> {
    let socket = new_socket(config)?;
    socket
        .set_reuse_address(true)
        .map_err(io_err("setting SO_REUSEADDR"))?;
    // Not on Linux: there SO_REUSEADDR alone shares the port, and every socket gets its
    // copy of a multicast datagram (then filtered by its own memberships, below). With
    // SO_REUSEPORT the sockets form a reuseport group and Linux hands each multicast
    // datagram to ONE of them, chosen by a hash of its source, whichever interface it
    // joined on: in a process with one participant per interface (`siftdds router`), a
    // peer's SPDP on LAN L then went to the LAN M participant, which dropped it as off its
    // subnets, and redundant routers never saw each other (measured on 6.18: 20 datagrams
    // on L gave 10 to the socket joined on L and 10 to the one joined on M; with
    // SO_REUSEADDR only, 20 and 0). docs/router.md "Redundant routers".
    #[cfg(all(unix, not(target_os = "linux")))]
    socket
        .set_reuse_port(true)
        .map_err(io_err("setting SO_REUSEPORT"))?;
    // Only datagrams for groups this socket joined (Linux delivers all groups by default).
    #[cfg(target_os = "linux")]
    socket
        .set_multicast_all_v4(false)
        .map_err(io_err("clearing IP_MULTICAST_ALL"))?;
    let bind = SocketAddrV4::new(Ipv4Addr::UNSPECIFIED, port);
    socket
        .bind(&SocketAddr::V4(bind).into())
        .map_err(io_err("binding a multicast socket"))?;
    for interface in interfaces {
        socket
            .join_multicast_v4(&DEFAULT_MULTICAST_GROUP, interface)
            .map_err(io_err("joining 239.255.0.1"))?;
    }
    socket
        .set_multicast_loop_v4(true)
        .map_err(io_err("setting IP_MULTICAST_LOOP"))?;
    if let Some(interface) = interfaces.first() {
        socket
            .set_multicast_if_v4(interface)
            .map_err(io_err("setting IP_MULTICAST_IF"))?;
    }
    Ok(into_mio(socket))
}

/// A send-only socket for multicast out of `interface`, bound to its address (ephemeral port).
pub(super) fn open_multicast_sender(
    config: &TransportConfig,
    interface: Ipv4Addr,
) -> Result<std::net::UdpSocket, TransportError> {
    let socket = new_socket(config)?;
    socket
        .bind(&SocketAddr::V4(SocketAddrV4::new(interface, 0)).into())
        .map_err(io_err("binding a multicast send socket"))?;
    socket
        .set_multicast_if_v4(&interface)
        .map_err(io_err("setting IP_MULTICAST_IF"))?;
    socket
        .set_multicast_loop_v4(true)
        .map_err(io_err("setting IP_MULTICAST_LOOP"))?;
    Ok(std::net::UdpSocket::from(socket))
}

fn into_mio(socket: Socket) -> mio::net::UdpSocket {
    mio::net::UdpSocket::from_std(std::net::UdpSocket::from(socket))
}
