//! [`Locator`] ⇄ [`SocketAddr`] conversions. IPv4 only for now: UDPv6 locators are ignored
//! (with a debug log) until the transport opens IPv6 sockets.
//!
//! Must not: open sockets or resolve names.
//!
//! RTPS 2.5 §9.3.2 (Locator_t), §9.6.1.4 (UDPv4 locators carry the address in the last four
//! octets).

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};

use crate::wire::Locator;

/// The socket address a UDPv4 locator names, or `None` when it names none we can use: another
/// kind (UDPv6 is logged at debug level), or port 0 or above 65535.
pub fn locator_to_socket_addr(locator: &Locator) -> Option<SocketAddr> {
    match locator.kind {
        Locator::KIND_UDPV4 => {}
        Locator::KIND_UDPV6 => {
            log::debug!("ignoring IPv6 locator {locator}: IPv6 is not supported yet");
            return None;
        }
        _ => return None,
    }
    let port = u16::try_from(locator.port).ok().filter(|p| *p != 0)?;
    let ip = Ipv4Addr::from(locator.ipv4()?);
    Some(SocketAddr::V4(SocketAddrV4::new(ip, port)))
}

/// The UDPv4 locator for a socket address; `None` (with a debug log) for IPv6 addresses.
pub fn socket_addr_to_locator(addr: SocketAddr) -> Option<Locator> {
    match addr {
        SocketAddr::V4(v4) => Some(Locator::udpv4(v4.ip().octets(), v4.port())),
        SocketAddr::V6(v6) => {
            log::debug!("ignoring IPv6 address {v6}: IPv6 is not supported yet");
            None
        }
    }
}

#[cfg(test)]
mod tests;
