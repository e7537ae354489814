//! UDP transport: the only place (with `runtime/`) that opens sockets.
//!
//! Must not: be imported by `wire`, `cdr`, `core` or anything below `runtime` except for
//! [`Locator`](crate::wire::Locator) conversions; open any socket before the network scope
//! and the interface selection are decided (`scope.rs`, `plan.rs`).
//!
//! Before any socket is opened, [`scope`] decides how this process may use the network
//! (README, "Network safety"; docs/architecture.md, "Network scope and interface selection"),
//! and [`interface`] matches the selection against this host's interfaces.
//!
//! RTPS 2.5 §9.6.1 (UDP/IP PSM: ports, multicast group), §9.3.2 (Locator_t).

// This layer owns the sockets (docs/conventions.md §1).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod addr;
mod config;
pub mod interface;
mod plan;
mod port;
pub mod scope;
mod socket;
#[cfg(test)]
pub(crate) mod tests;
mod udp;

pub use addr::{locator_to_socket_addr, socket_addr_to_locator};
pub use interface::{Interface, InterfaceError, InterfaceSelection};
pub use scope::NetworkScope;
pub use udp::{
    LocalLocators, Received, RecvHeaders, SendReport, SocketKind, TransportConfig, TransportError,
    UdpTransport,
};

/// The default SPDP and user-traffic multicast group, 239.255.0.1. RTPS 2.5 §9.6.1.4.1.
pub const DEFAULT_MULTICAST_GROUP: std::net::Ipv4Addr = port::DEFAULT_MULTICAST_GROUP;
