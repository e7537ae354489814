//! UDP transport: the only place (with `runtime/`) that opens sockets.
//!
//! Must not: be imported by `wire`, `cdr`, `core` or anything below `runtime` except for
//! [`Locator`](crate::wire::Locator) conversions; open any socket without [`sandbox::check`].
//!
//! Before any socket is opened, [`sandbox::check`] decides whether this process may talk on
//! the network at all (see the project README, "Network safety").
//!
//! RTPS 2.5 §9.6.1 (UDP/IP PSM: ports, multicast group), §9.3.2 (Locator_t).

// This layer owns the sockets (STYLE.md §1).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod addr;
mod port;
pub mod sandbox;
#[cfg(test)]
pub(crate) mod tests;
mod udp;

pub use addr::{locator_to_socket_addr, socket_addr_to_locator};
pub use udp::{
    LocalLocators, Received, SendReport, SocketKind, TransportConfig, TransportError, UdpTransport,
};

/// The default SPDP and user-traffic multicast group, 239.255.0.1. RTPS 2.5 §9.6.1.4.1.
pub const DEFAULT_MULTICAST_GROUP: std::net::Ipv4Addr = port::DEFAULT_MULTICAST_GROUP;
