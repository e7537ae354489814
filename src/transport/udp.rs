//! UDPv4 sockets of one participant: SPDP multicast, metatraffic unicast, user unicast and
//! (optionally) user multicast, bound with the RTPS port formula; sending a [`Transmit`] and
//! non-blocking receives.
//!
//! Must not: open a socket before the scope and the interface selection are decided and
//! valid (`scope.rs`, `plan.rs`), send to an address the scope forbids (only loopback unicast
//! in [`NetworkScope::LoopbackOnly`]), send a multicast twice on one interface, or block.
//!
//! RTPS 2.5 §9.6.1 (default ports, default multicast group 239.255.0.1), §8.5.3.1 (SPDP is sent
//! to the metatraffic multicast and configured unicast locators).
//!
//! # Overview
//! Unicast sockets are bound without `SO_REUSEADDR`, so a port in use by another participant
//! fails to bind; automatic participant-index selection relies on that, as Fast DDS and Cyclone
//! do. Outside loopback-only they are bound to 0.0.0.0, like Cyclone's: one socket per port
//! receives on every selected interface (only the selected addresses are announced), and the
//! participant-index probe stays one bind per port whatever the number of interfaces.
//! Multicast sockets share their port (`SO_REUSEADDR` + `SO_REUSEPORT`): every participant
//! on the host joins 239.255.0.1 on the same SPDP port, on each selected multicast-capable
//! interface. Unicast datagrams are sent from the metatraffic unicast socket. A multicast goes
//! out once per selected interface: from the metatraffic unicast socket on the first
//! (IP_MULTICAST_IF), and from one send socket per further interface, bound to that
//! interface's address (as Cyclone keeps one transmit socket per interface); multicast
//! loopback is on so that our multicasts reach the other participants on this host.

use std::io::{self, IoSlice};
use std::net::{Ipv4Addr, SocketAddr};

use socket2::{SockAddr, SockRef};

use super::addr::locator_to_socket_addr;
use super::config::io_err;
pub use super::config::{TransportConfig, TransportError};
use super::interface::{self, Interface};
use super::plan::{SocketPlan, plan};
use super::port::{
    DEFAULT_MULTICAST_GROUP, MAX_AUTO_PARTICIPANT_ID, spdp_multicast_port, user_multicast_port,
};
use super::scope::{self, NetworkScope, ScopeRequest};
use super::socket::{open_multicast, open_multicast_sender, open_unicast_pair};
use crate::core::Transmit;
use crate::wire::Locator;

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

/// Most datagrams one [`UdpTransport::recv_many`] reads.
const MAX_RECV_BATCH: usize = 64;

/// The message headers of [`UdpTransport::recv_many`] (`recvmmsg`): made once by the thread
/// that reads and passed to every call, so that a read allocates nothing. They hold raw
/// pointers into the last call's buffer, never followed after it returned, so they are not
/// `Send`: they stay with the thread that made them.
pub struct RecvHeaders {
    headers: nix::sys::socket::MultiHeaders<nix::sys::socket::SockaddrIn>,
    slots: usize,
}

impl RecvHeaders {
    /// Headers for reads of up to `slots` datagrams (at most 64).
    pub fn new(slots: usize) -> Self {
        let slots = slots.min(MAX_RECV_BATCH);
        RecvHeaders {
            headers: nix::sys::socket::MultiHeaders::preallocate(slots, None),
            slots,
        }
    }
}

impl std::fmt::Debug for RecvHeaders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecvHeaders")
            .field("slots", &self.slots)
            .finish_non_exhaustive()
    }
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

/// The UDPv4 sockets of one participant.
#[derive(Debug)]
pub struct UdpTransport {
    scope: NetworkScope,
    domain_id: u32,
    participant_id: u16,
    multicast: bool,
    /// Indexed by [`SocketKind::index`].
    sockets: [Option<mio::net::UdpSocket>; 4],
    /// Multicast send sockets of the second and further multicast interfaces.
    multicast_senders: Vec<std::net::UdpSocket>,
    /// The interfaces in use, in selection order (their addresses are announced).
    interfaces: Vec<Interface>,
    locators: LocalLocators,
}

impl UdpTransport {
    /// Opens the sockets described by `config`: decides the scope (`scope.rs`), matches the
    /// selection against this host's interfaces, then binds. A selection naming something this
    /// host does not have fails before any socket is opened.
    pub fn open(config: &TransportConfig) -> Result<Self, TransportError> {
        let request = ScopeRequest {
            loopback_only: config.loopback_only,
            interfaces: config.interfaces.clone(),
        };
        let scope = scope::from_environment(&request).map_err(TransportError::Interface)?;
        let have = if scope.needs_interface_list() {
            interface::enumerate().map_err(io_err("listing the network interfaces"))?
        } else {
            Vec::new()
        };
        let plan = plan(config, &scope, &have).map_err(TransportError::Interface)?;
        Self::open_planned(config, plan)
    }

    /// Binds what `plan` says. Only [`open`](Self::open) and tests call this.
    fn open_planned(config: &TransportConfig, plan: SocketPlan) -> Result<Self, TransportError> {
        let SocketPlan {
            scope,
            bind: unicast_bind,
            interfaces,
            multicast_interfaces,
        } = plan;
        let multicast = !multicast_interfaces.is_empty();
        let first_multicast = multicast_interfaces.first().copied();
        let domain = config.domain_id;
        let spdp_port = spdp_multicast_port(domain).ok_or(TransportError::PortOutOfRange)?;
        let user_mc_port = user_multicast_port(domain).ok_or(TransportError::PortOutOfRange)?;

        let (participant_id, meta, user) = match config.participant_id {
            Some(pid) => {
                let pair = open_unicast_pair(config, unicast_bind, first_multicast, pid)?;
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
                        open_unicast_pair(config, unicast_bind, first_multicast, pid)?
                    {
                        found = Some((pid, m, u));
                        break;
                    }
                }
                found.ok_or(TransportError::NoFreeParticipantIndex)?
            }
        };

        let mut locators = LocalLocators {
            metatraffic_unicast: interfaces
                .iter()
                .map(|i| Locator::udpv4(i.address.octets(), meta.port))
                .collect(),
            default_unicast: interfaces
                .iter()
                .map(|i| Locator::udpv4(i.address.octets(), user.port))
                .collect(),
            ..LocalLocators::default()
        };
        let group = DEFAULT_MULTICAST_GROUP;
        let mut sockets: [Option<mio::net::UdpSocket>; 4] = [None, None, None, None];
        sockets[SocketKind::MetatrafficUnicast.index()] = Some(meta.socket);
        sockets[SocketKind::UserUnicast.index()] = Some(user.socket);
        let mut multicast_senders = Vec::new();
        if multicast {
            let s = open_multicast(config, &multicast_interfaces, spdp_port)?;
            sockets[SocketKind::SpdpMulticast.index()] = Some(s);
            locators
                .metatraffic_multicast
                .push(Locator::udpv4(group.octets(), spdp_port));
            if config.user_multicast {
                let s = open_multicast(config, &multicast_interfaces, user_mc_port)?;
                sockets[SocketKind::UserMulticast.index()] = Some(s);
                locators
                    .default_multicast
                    .push(Locator::udpv4(group.octets(), user_mc_port));
            }
            for address in multicast_interfaces.iter().skip(1) {
                multicast_senders.push(open_multicast_sender(config, *address)?);
            }
        }
        log::debug!(
            "transport open: domain {domain}, participant {participant_id}, scope {scope}, \
             multicast on {multicast_interfaces:?}, locators {locators:?}"
        );
        Ok(UdpTransport {
            scope,
            domain_id: domain,
            participant_id,
            multicast,
            sockets,
            multicast_senders,
            interfaces,
            locators,
        })
    }

    /// The interfaces in use (their addresses are in the unicast locators), in selection order.
    pub fn interfaces(&self) -> &[Interface] {
        &self.interfaces
    }

    /// True when multicast is joined and sent (on at least one interface).
    pub fn multicast(&self) -> bool {
        self.multicast
    }

    /// The network scope in force.
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

    /// Registers every open socket for readability, with token `base` +
    /// [`SocketKind::index`] (several transports may share one poll).
    pub fn register(&mut self, registry: &mio::Registry, base: usize) -> io::Result<()> {
        for (index, socket) in self.sockets.iter_mut().enumerate() {
            if let Some(socket) = socket {
                registry.register(socket, mio::Token(base + index), mio::Interest::READABLE)?;
            }
        }
        Ok(())
    }

    /// Takes every open socket off `registry` (before the transport is dropped while the
    /// poll lives on); a socket that was never registered is skipped.
    pub fn deregister(&mut self, registry: &mio::Registry) {
        for socket in self.sockets.iter_mut().flatten() {
            let _ = registry.deregister(socket);
        }
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

    /// Reads up to `buf.len() / slot` datagrams (at most as many as `headers` has room for)
    /// from the `kind` socket in one system call (`recvmmsg`, without blocking), datagram
    /// `i` into `buf[i * slot..][..slot]`, and sets `got` (cleared first) to what arrived, in
    /// order: `got[i]` for slot `i`, `None` for a datagram without an IPv4 source (never
    /// seen; the caller counts it dropped). Fewer than asked (none included) means the
    /// socket was empty when the kernel looked, so that with edge-triggered readiness no
    /// further read is needed until the next event: one datagram costs one call, not a
    /// second one that finds nothing. A datagram longer than `slot` is truncated. Nothing
    /// when that socket is not open. Allocates nothing: the message headers are the
    /// caller's, kept from one call to the next.
    pub fn recv_many(
        &self,
        kind: SocketKind,
        buf: &mut [u8],
        slot: usize,
        headers: &mut RecvHeaders,
        got: &mut Vec<Option<Received>>,
    ) -> io::Result<()> {
        use std::os::fd::AsRawFd;

        use nix::sys::socket::{MsgFlags, recvmmsg};

        got.clear();
        let Some(Some(socket)) = self.sockets.get(kind.index()) else {
            return Ok(());
        };
        if slot == 0 {
            return Ok(());
        }
        // One iovec per slot, on the stack; `recvmmsg` fills as many messages as there are
        // both iovecs and headers.
        let mut chunks = buf.chunks_exact_mut(slot);
        let count = chunks.len().min(headers.slots);
        let mut slices: [[io::IoSliceMut<'_>; 1]; MAX_RECV_BATCH] =
            std::array::from_fn(|_| [io::IoSliceMut::new(chunks.next().unwrap_or(&mut []))]);
        let received = recvmmsg(
            socket.as_raw_fd(),
            &mut headers.headers,
            slices.iter_mut().take(count),
            MsgFlags::MSG_DONTWAIT,
            None,
        );
        match received {
            Ok(results) => {
                got.extend(results.map(|r| {
                    r.address.map(|a| Received {
                        len: r.bytes.min(slot),
                        source: SocketAddr::V4(std::net::SocketAddrV4::from(a)),
                        kind,
                    })
                }));
                Ok(())
            }
            Err(nix::errno::Errno::EAGAIN) => Ok(()),
            Err(e) => Err(io::Error::from(e)),
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
            send_one(SockRef::from(socket), transmit, addr, &mut report);
            if addr.ip().is_multicast() {
                // Once more out of each further interface.
                for sender in &self.multicast_senders {
                    send_one(SockRef::from(sender), transmit, addr, &mut report);
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

/// Sends `transmit` to `addr` from `socket` (a gather send when it has a splice) and counts it.
fn send_one(socket: SockRef<'_>, transmit: &Transmit, addr: SocketAddr, report: &mut SendReport) {
    let sent = match &transmit.splice {
        None => socket.send_to(&transmit.payload, &SockAddr::from(addr)),
        Some(_) => {
            let [head, splice, tail] = transmit.parts();
            let parts = [IoSlice::new(head), IoSlice::new(splice), IoSlice::new(tail)];
            socket.send_to_vectored(&parts, &SockAddr::from(addr))
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

/// Whether the network scope and the multicast setting allow sending to `ip`.
fn allowed_destination(scope: NetworkScope, multicast: bool, ip: Ipv4Addr) -> bool {
    if ip.is_unspecified() || ip.is_broadcast() {
        return false;
    }
    match scope {
        // The sandbox contract: loopback unicast only, no multicast.
        NetworkScope::LoopbackOnly => ip.is_loopback(),
        NetworkScope::Auto | NetworkScope::Configured => multicast || !ip.is_multicast(),
    }
}

#[cfg(test)]
mod tests;
