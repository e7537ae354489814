//! A participant's transport configuration ([`TransportConfig`]) and why opening it can
//! fail ([`TransportError`]): plain values shared by the socket plan, the socket helpers and
//! the transport itself.
//!
//! Must not: open sockets or read the environment.

use std::io;

use super::interface::{InterfaceError, InterfaceSelection};

/// How to open a participant's sockets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransportConfig {
    /// DDS domain id; selects the port range (RTPS 2.5 §9.6.1.1).
    pub domain_id: u32,
    /// Participant index; `None` picks the first free one in 0..=119.
    pub participant_id: Option<u16>,
    /// Interfaces chosen in code or configuration; `None` leaves it to the environment
    /// (`SIFTDDS_INTERFACES`, else `auto` inside a network namespace, else loopback-only; see
    /// `scope.rs`).
    pub interfaces: Option<InterfaceSelection>,
    /// Join and send to multicast groups (forced off in [`NetworkScope::LoopbackOnly`](super::NetworkScope::LoopbackOnly)).
    pub multicast: bool,
    /// Also open the user-traffic multicast socket (PB + DG·domain + d2); needs `multicast`.
    pub user_multicast: bool,
    /// `SO_RCVBUF` for every socket (default `DEFAULT_RECV_BUFFER`); `None` keeps the OS
    /// default.
    pub recv_buffer_size: Option<usize>,
    /// `SO_SNDBUF` for every socket (default `DEFAULT_SEND_BUFFER`); `None` keeps the OS
    /// default.
    pub send_buffer_size: Option<usize>,
    /// Force [`NetworkScope::LoopbackOnly`](super::NetworkScope::LoopbackOnly): bind 127.0.0.1 only, no multicast, send only to
    /// 127/8 (README, "Network safety").
    pub loopback_only: bool,
}

/// Default `SO_RCVBUF`: a writer's burst of 64 KiB datagrams must fit while the reader's loop
/// is busy, or it is dropped and repaired a heartbeat later (the Linux default of 208 KiB
/// holds three). The kernel caps it at `net.core.rmem_max`.
pub const DEFAULT_RECV_BUFFER: usize = 4 << 20;
/// Default `SO_SNDBUF` (capped at `net.core.wmem_max`).
pub const DEFAULT_SEND_BUFFER: usize = 1 << 20;

impl TransportConfig {
    /// Defaults for `domain_id`: automatic participant index, interfaces from the environment,
    /// multicast discovery on, no user multicast, large socket buffers.
    pub fn new(domain_id: u32) -> Self {
        TransportConfig {
            domain_id,
            participant_id: None,
            interfaces: None,
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

/// Why `UdpTransport::open` failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum TransportError {
    /// The interface selection names something this host does not have, or is malformed.
    Interface(InterfaceError),
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
            TransportError::Interface(e) => e.fmt(f),
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
            TransportError::Interface(e) => Some(e),
            TransportError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

pub(super) fn io_err(context: &'static str) -> impl FnOnce(io::Error) -> TransportError {
    move |source| TransportError::Io { context, source }
}
