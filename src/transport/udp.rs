//! UDPv4 sockets of one participant: SPDP multicast, metatraffic unicast, user unicast and
//! (optionally) user multicast, bound with the RTPS port formula; sending a [`Transmit`] and
//! non-blocking receives.
//!
//! Must not: open a socket before [`sandbox::check`] allowed it, send to an address the
//! network scope forbids (only loopback unicast in [`NetworkScope::LoopbackOnly`]), or block.
//!
//! RTPS 2.5 §9.6.1 (default ports, default multicast group 239.255.0.1), §8.5.3.1 (SPDP is sent
//! to the metatraffic multicast and configured unicast locators).
//!
//! # Overview
//! Unicast sockets are bound without `SO_REUSEADDR`, so a port in use by another participant
//! fails to bind; automatic participant-index selection relies on that, as Fast DDS and Cyclone
//! do. Multicast sockets share their port (`SO_REUSEADDR` + `SO_REUSEPORT`): every participant
//! on the host joins 239.255.0.1 on the same SPDP port. All datagrams are sent from the
//! metatraffic unicast socket, whose multicast interface and loopback are set so that our
//! multicasts reach the other participants on this host.

use std::io::{self, IoSlice};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

use socket2::{Domain, Protocol, SockAddr, SockRef, Socket, Type};

use super::addr::locator_to_socket_addr;
use super::port::{
    DEFAULT_MULTICAST_GROUP, MAX_AUTO_PARTICIPANT_ID, metatraffic_unicast_port,
    spdp_multicast_port, user_multicast_port, user_unicast_port,
};
use super::sandbox::{self, NetworkScope, NotSandboxed};
use crate::core::Transmit;
use crate::wire::Locator;

/// How to open a participant's sockets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransportConfig {
    /// DDS domain id; selects the port range (RTPS 2.5 §9.6.1.1).
    pub domain_id: u32,
    /// Participant index; `None` picks the first free one in 0..=119.
    pub participant_id: Option<u16>,
    /// Address announced in unicast locators and used for multicast; defaults to 127.0.0.1.
    /// In [`NetworkScope::LoopbackOnly`] it must be a loopback address.
    pub interface: Option<Ipv4Addr>,
    /// Join and send to multicast groups (forced off in [`NetworkScope::LoopbackOnly`]).
    pub multicast: bool,
    /// Also open the user-traffic multicast socket (PB + DG·domain + d2); needs `multicast`.
    pub user_multicast: bool,
    /// `SO_RCVBUF` for every socket (default [`DEFAULT_RECV_BUFFER`]); `None` keeps the OS
    /// default.
    pub recv_buffer_size: Option<usize>,
    /// `SO_SNDBUF` for every socket (default [`DEFAULT_SEND_BUFFER`]); `None` keeps the OS
    /// default.
    pub send_buffer_size: Option<usize>,
    /// Force [`NetworkScope::LoopbackOnly`]: bind 127.0.0.1 only, no multicast, send only to
    /// 127/8. Safe on any machine, so it needs no sandbox (README, "Network safety").
    pub loopback_only: bool,
}

/// Default `SO_RCVBUF`: a writer's burst of 64 KiB datagrams must fit while the reader's loop
/// is busy, or it is dropped and repaired a heartbeat later (the Linux default of 208 KiB
/// holds three). The kernel caps it at `net.core.rmem_max`.
pub const DEFAULT_RECV_BUFFER: usize = 4 << 20;
/// Default `SO_SNDBUF` (capped at `net.core.wmem_max`).
pub const DEFAULT_SEND_BUFFER: usize = 1 << 20;

impl TransportConfig {
    /// Defaults for `domain_id`: automatic participant index, loopback interface, multicast
    /// discovery on, no user multicast, large socket buffers.
    pub fn new(domain_id: u32) -> Self {
        TransportConfig {
            domain_id,
            participant_id: None,
            interface: None,
            multicast: true,
            user_multicast: false,
            recv_buffer_size: Some(DEFAULT_RECV_BUFFER),
            send_buffer_size: Some(DEFAULT_SEND_BUFFER),
            loopback_only: false,
        }
    }
}

impl Default for TransportConfig {
    fn default() -> Self {
        Self::new(0)
    }
}

/// Which of the participant's sockets a datagram arrived on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SocketKind {
    /// SPDP multicast (PB + DG·domain + d0, group 239.255.0.1).
    SpdpMulticast,
    /// Metatraffic unicast (PB + DG·domain + d1 + PG·participant).
    MetatrafficUnicast,
    /// User-traffic unicast (PB + DG·domain + d3 + PG·participant).
    UserUnicast,
    /// User-traffic multicast (PB + DG·domain + d2).
    UserMulticast,
}

impl SocketKind {
    /// Every kind, in [`index`](Self::index) order.
    pub const ALL: [SocketKind; 4] = [
        SocketKind::SpdpMulticast,
        SocketKind::MetatrafficUnicast,
        SocketKind::UserUnicast,
        SocketKind::UserMulticast,
    ];

    /// A dense index in `0..4` (the runtime uses it as the poll token).
    pub const fn index(self) -> usize {
        match self {
            SocketKind::SpdpMulticast => 0,
            SocketKind::MetatrafficUnicast => 1,
            SocketKind::UserUnicast => 2,
            SocketKind::UserMulticast => 3,
        }
    }

    /// The kind with this [`index`](Self::index).
    pub fn from_index(index: usize) -> Option<Self> {
        Self::ALL.get(index).copied()
    }

    /// True for the multicast sockets.
    pub const fn is_multicast(self) -> bool {
        matches!(self, SocketKind::SpdpMulticast | SocketKind::UserMulticast)
    }
}

/// The locators a participant announces for its sockets (RTPS 2.5 §8.5.3.2).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalLocators {
    /// metatrafficUnicastLocatorList.
    pub metatraffic_unicast: Vec<Locator>,
    /// metatrafficMulticastLocatorList (empty without multicast).
    pub metatraffic_multicast: Vec<Locator>,
    /// defaultUnicastLocatorList.
    pub default_unicast: Vec<Locator>,
    /// defaultMulticastLocatorList (empty unless the user multicast socket is open).
    pub default_multicast: Vec<Locator>,
}

/// One datagram read by [`UdpTransport::recv`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Received {
    /// Bytes written at the start of the buffer.
    pub len: usize,
    /// Where it came from.
    pub source: SocketAddr,
    /// Which socket it arrived on.
    pub kind: SocketKind,
}

/// Outcome of one [`UdpTransport::send`]: one count per destination.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SendReport {
    /// Destinations the datagram was handed to the kernel for.
    pub sent: u64,
    /// Bytes handed to the kernel (all destinations).
    pub bytes: u64,
    /// Destinations skipped as unreachable or forbidden by the scope or configuration.
    pub skipped: u64,
    /// Destinations whose send failed (including a full send buffer).
    pub errors: u64,
}

/// Why [`UdpTransport::open`] failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum TransportError {
    /// The network-safety gate refused (see [`sandbox`]).
    NotSandboxed(NotSandboxed),
    /// A port of this domain or participant index is above 65535.
    PortOutOfRange,
    /// Every participant index in 0..=119 is taken on this host.
    NoFreeParticipantIndex,
    /// The configuration cannot be honoured in this scope.
    InvalidConfig(&'static str),
    /// A socket operation failed.
    Io {
        /// What was being done.
        context: &'static str,
        /// The OS error.
        source: io::Error,
    },
}

impl core::fmt::Display for TransportError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TransportError::NotSandboxed(e) => e.fmt(f),
            TransportError::PortOutOfRange => f.write_str("RTPS port above 65535 for this domain"),
            TransportError::NoFreeParticipantIndex => {
                f.write_str("no free participant index in 0..=119")
            }
            TransportError::InvalidConfig(why) => write!(f, "invalid transport config: {why}"),
            TransportError::Io { context, source } => write!(f, "{context}: {source}"),
        }
    }
}

impl std::error::Error for TransportError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TransportError::NotSandboxed(e) => Some(e),
            TransportError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

fn io_err(context: &'static str) -> impl FnOnce(io::Error) -> TransportError {
    move |source| TransportError::Io { context, source }
}

/// The UDPv4 sockets of one participant.
#[derive(Debug)]
pub struct UdpTransport {
    scope: NetworkScope,
    domain_id: u32,
    participant_id: u16,
    multicast: bool,
    /// Indexed by [`SocketKind::index`].
    sockets: [Option<mio::net::UdpSocket>; 4],
    locators: LocalLocators,
}

impl UdpTransport {
    /// Opens the sockets described by `config`, after [`sandbox::check`] allowed it (or in
    /// the loopback-only scope when the configuration asks for it).
    pub fn open(config: &TransportConfig) -> Result<Self, TransportError> {
        let scope = if config.loopback_only {
            NetworkScope::LoopbackOnly
        } else {
            sandbox::check().map_err(TransportError::NotSandboxed)?
        };
        Self::open_in_scope(config, scope)
    }

    /// Only [`open`](Self::open) may call this: the scope must come from the gate.
    fn open_in_scope(
        config: &TransportConfig,
        scope: NetworkScope,
    ) -> Result<Self, TransportError> {
        let interface = config.interface.unwrap_or(Ipv4Addr::LOCALHOST);
        if interface.is_unspecified() || interface.is_multicast() || interface.is_broadcast() {
            return Err(TransportError::InvalidConfig(
                "interface must be a unicast address",
            ));
        }
        let (unicast_bind, multicast) = match scope {
            NetworkScope::PrivateNamespace => (Ipv4Addr::UNSPECIFIED, config.multicast),
            NetworkScope::LoopbackOnly => {
                if !interface.is_loopback() {
                    return Err(TransportError::InvalidConfig(
                        "loopback-only scope needs a loopback interface address",
                    ));
                }
                if config.multicast {
                    log::debug!("loopback-only scope: multicast disabled");
                }
                (interface, false)
            }
        };
        let domain = config.domain_id;
        let spdp_port = spdp_multicast_port(domain).ok_or(TransportError::PortOutOfRange)?;
        let user_mc_port = user_multicast_port(domain).ok_or(TransportError::PortOutOfRange)?;

        let (participant_id, meta, user) = match config.participant_id {
            Some(pid) => {
                let pair = open_unicast_pair(config, unicast_bind, interface, multicast, pid)?;
                pair.ok_or(TransportError::Io {
                    context: "binding the unicast ports of the configured participant index",
                    source: io::Error::from(io::ErrorKind::AddrInUse),
                })
                .map(|(m, u)| (pid, m, u))?
            }
            None => {
                let mut found = None;
                for pid in 0..=MAX_AUTO_PARTICIPANT_ID {
                    if let Some((m, u)) =
                        open_unicast_pair(config, unicast_bind, interface, multicast, pid)?
                    {
                        found = Some((pid, m, u));
                        break;
                    }
                }
                found.ok_or(TransportError::NoFreeParticipantIndex)?
            }
        };

        let mut locators = LocalLocators {
            metatraffic_unicast: vec![Locator::udpv4(interface.octets(), meta.port)],
            default_unicast: vec![Locator::udpv4(interface.octets(), user.port)],
            ..LocalLocators::default()
        };
        let group = DEFAULT_MULTICAST_GROUP;
        let mut sockets: [Option<mio::net::UdpSocket>; 4] = [None, None, None, None];
        sockets[SocketKind::MetatrafficUnicast.index()] = Some(meta.socket);
        sockets[SocketKind::UserUnicast.index()] = Some(user.socket);
        if multicast {
            let s = open_multicast(config, interface, spdp_port)?;
            sockets[SocketKind::SpdpMulticast.index()] = Some(s);
            locators
                .metatraffic_multicast
                .push(Locator::udpv4(group.octets(), spdp_port));
            if config.user_multicast {
                let s = open_multicast(config, interface, user_mc_port)?;
                sockets[SocketKind::UserMulticast.index()] = Some(s);
                locators
                    .default_multicast
                    .push(Locator::udpv4(group.octets(), user_mc_port));
            }
        }
        log::debug!(
            "transport open: domain {domain}, participant {participant_id}, scope {scope:?}, \
             locators {locators:?}"
        );
        Ok(UdpTransport {
            scope,
            domain_id: domain,
            participant_id,
            multicast,
            sockets,
            locators,
        })
    }

    /// The network scope the gate granted.
    pub fn scope(&self) -> NetworkScope {
        self.scope
    }

    /// The domain id.
    pub fn domain_id(&self) -> u32 {
        self.domain_id
    }

    /// The participant index whose ports this transport bound.
    pub fn participant_id(&self) -> u16 {
        self.participant_id
    }

    /// All local locators.
    pub fn locators(&self) -> &LocalLocators {
        &self.locators
    }

    /// metatrafficUnicastLocatorList for SPDP.
    pub fn metatraffic_unicast_locators(&self) -> &[Locator] {
        &self.locators.metatraffic_unicast
    }

    /// metatrafficMulticastLocatorList for SPDP (empty without multicast).
    pub fn metatraffic_multicast_locators(&self) -> &[Locator] {
        &self.locators.metatraffic_multicast
    }

    /// defaultUnicastLocatorList for SPDP.
    pub fn default_unicast_locators(&self) -> &[Locator] {
        &self.locators.default_unicast
    }

    /// defaultMulticastLocatorList for SPDP (empty without the user multicast socket).
    pub fn default_multicast_locators(&self) -> &[Locator] {
        &self.locators.default_multicast
    }

    /// Registers every open socket for readability, with token [`SocketKind::index`].
    pub fn register(&mut self, registry: &mio::Registry) -> io::Result<()> {
        for (index, socket) in self.sockets.iter_mut().enumerate() {
            if let Some(socket) = socket {
                registry.register(socket, mio::Token(index), mio::Interest::READABLE)?;
            }
        }
        Ok(())
    }

    /// Reads one datagram from the `kind` socket into `buf` without blocking. `Ok(None)` when
    /// nothing is queued or that socket is not open. A datagram longer than `buf` is truncated.
    pub fn recv(&self, kind: SocketKind, buf: &mut [u8]) -> io::Result<Option<Received>> {
        let Some(Some(socket)) = self.sockets.get(kind.index()) else {
            return Ok(None);
        };
        match socket.recv_from(buf) {
            Ok((len, source)) => Ok(Some(Received { len, source, kind })),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Sends the datagram to each destination we may and can reach, without blocking. A
    /// transmit with a splice goes out in one gather send (`sendmsg`, one iovec per piece),
    /// so the spliced sample bytes are copied only by the kernel.
    pub fn send(&self, transmit: &Transmit) -> SendReport {
        let mut report = SendReport::default();
        let Some(Some(socket)) = self.sockets.get(SocketKind::MetatrafficUnicast.index()) else {
            report.skipped = u64::try_from(transmit.destinations.len()).unwrap_or(u64::MAX);
            return report;
        };
        for destination in &transmit.destinations {
            let Some(addr) = self.destination(destination) else {
                report.skipped += 1;
                continue;
            };
            let sent = match &transmit.splice {
                None => socket.send_to(&transmit.payload, addr),
                Some(_) => {
                    let [head, splice, tail] = transmit.parts();
                    let parts = [IoSlice::new(head), IoSlice::new(splice), IoSlice::new(tail)];
                    SockRef::from(socket).send_to_vectored(&parts, &SockAddr::from(addr))
                }
            };
            match sent {
                Ok(n) => {
                    report.sent += 1;
                    report.bytes += u64::try_from(n).unwrap_or(u64::MAX);
                }
                Err(e) => {
                    report.errors += 1;
                    log::debug!("send to {addr} failed: {e}");
                }
            }
        }
        report
    }

    /// The socket address for `locator`, or `None` when it is unusable or not allowed.
    fn destination(&self, locator: &Locator) -> Option<SocketAddr> {
        let addr = locator_to_socket_addr(locator)?;
        let SocketAddr::V4(v4) = addr else {
            return None;
        };
        if allowed_destination(self.scope, self.multicast, *v4.ip()) {
            Some(addr)
        } else {
            log::debug!(
                "not sending to {locator}: outside the {:?} scope or config",
                self.scope
            );
            None
        }
    }
}

/// Whether the network scope and the multicast setting allow sending to `ip`.
fn allowed_destination(scope: NetworkScope, multicast: bool, ip: Ipv4Addr) -> bool {
    if ip.is_unspecified() || ip.is_broadcast() {
        return false;
    }
    match scope {
        // The sandbox contract: loopback unicast only, no multicast.
        NetworkScope::LoopbackOnly => ip.is_loopback(),
        NetworkScope::PrivateNamespace => multicast || !ip.is_multicast(),
    }
}

/// A bound unicast socket and its port.
struct Bound {
    socket: mio::net::UdpSocket,
    port: u16,
}

/// Binds the metatraffic and user unicast ports of `pid`; `Ok(None)` when either is taken.
fn open_unicast_pair(
    config: &TransportConfig,
    bind: Ipv4Addr,
    interface: Ipv4Addr,
    multicast: bool,
    pid: u16,
) -> Result<Option<(Bound, Bound)>, TransportError> {
    let domain = config.domain_id;
    let meta_port = metatraffic_unicast_port(domain, pid).ok_or(TransportError::PortOutOfRange)?;
    let user_port = user_unicast_port(domain, pid).ok_or(TransportError::PortOutOfRange)?;
    let Some(meta) = bind_unicast(config, SocketAddrV4::new(bind, meta_port))? else {
        return Ok(None);
    };
    if multicast {
        // This socket sends everything, multicast included.
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

/// Binds a shared socket on `0.0.0.0:port` and joins the default group on `interface`.
fn open_multicast(
    config: &TransportConfig,
    interface: Ipv4Addr,
    port: u16,
) -> Result<mio::net::UdpSocket, TransportError> {
    let socket = new_socket(config)?;
    socket
        .set_reuse_address(true)
        .map_err(io_err("setting SO_REUSEADDR"))?;
    #[cfg(unix)]
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
    socket
        .join_multicast_v4(&DEFAULT_MULTICAST_GROUP, &interface)
        .map_err(io_err("joining 239.255.0.1"))?;
    socket
        .set_multicast_loop_v4(true)
        .map_err(io_err("setting IP_MULTICAST_LOOP"))?;
    socket
        .set_multicast_if_v4(&interface)
        .map_err(io_err("setting IP_MULTICAST_IF"))?;
    Ok(into_mio(socket))
}

fn into_mio(socket: Socket) -> mio::net::UdpSocket {
    mio::net::UdpSocket::from_std(std::net::UdpSocket::from(socket))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_only_scope_allows_loopback_unicast_only() {
        let scope = NetworkScope::LoopbackOnly;
        assert!(allowed_destination(scope, true, Ipv4Addr::LOCALHOST));
        assert!(allowed_destination(
            scope,
            false,
            Ipv4Addr::new(127, 0, 0, 2)
        ));
        assert!(!allowed_destination(
            scope,
            true,
            Ipv4Addr::new(239, 255, 0, 1)
        ));
        assert!(!allowed_destination(
            scope,
            true,
            Ipv4Addr::new(192, 168, 1, 10)
        ));
        assert!(!allowed_destination(scope, true, Ipv4Addr::UNSPECIFIED));
    }

    #[test]
    fn namespace_scope_sends_multicast_only_when_enabled() {
        let scope = NetworkScope::PrivateNamespace;
        let group = Ipv4Addr::new(239, 255, 0, 1);
        assert!(allowed_destination(scope, true, group));
        assert!(!allowed_destination(scope, false, group));
        assert!(allowed_destination(
            scope,
            false,
            Ipv4Addr::new(10, 0, 0, 1)
        ));
        assert!(!allowed_destination(scope, true, Ipv4Addr::BROADCAST));
    }

    #[test]
    fn socket_kind_index_round_trips() {
        for kind in SocketKind::ALL {
            assert_eq!(SocketKind::from_index(kind.index()), Some(kind));
        }
        assert_eq!(SocketKind::from_index(4), None);
    }

    #[test]
    fn loopback_only_rejects_a_non_loopback_interface_before_opening_sockets() {
        let config = TransportConfig {
            interface: Some(Ipv4Addr::new(192, 168, 1, 1)),
            ..TransportConfig::new(0)
        };
        let r = UdpTransport::open_in_scope(&config, NetworkScope::LoopbackOnly);
        assert!(matches!(r, Err(TransportError::InvalidConfig(_))));
    }

    #[test]
    fn out_of_range_domain_is_rejected_before_opening_sockets() {
        let r = UdpTransport::open_in_scope(&TransportConfig::new(233), NetworkScope::LoopbackOnly);
        assert!(matches!(r, Err(TransportError::PortOutOfRange)));
    }
}
