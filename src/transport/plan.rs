//! What a participant's sockets will be, decided from the scope, the configuration and this
//! host's interface list before any socket exists: the unicast bind address, the interfaces
//! whose addresses are announced, and the interfaces that join and send multicast.
//!
//! Must not: open sockets or read the environment; a pure function, unit-tested with fake
//! interface lists.

use std::net::Ipv4Addr;

use super::config::TransportConfig;
use super::interface::{Interface, InterfaceError};
use super::scope::{NetworkScope, Scope};

/// The sockets to open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SocketPlan {
    /// The scope in force.
    pub scope: NetworkScope,
    /// Where the unicast sockets bind: 127.0.0.1 in loopback-only, else 0.0.0.0.
    pub bind: Ipv4Addr,
    /// The interfaces in use; each address is announced in the unicast locators.
    pub interfaces: Vec<Interface>,
    /// Addresses of the interfaces that join and send multicast (empty: no multicast).
    pub multicast_interfaces: Vec<Ipv4Addr>,
}

/// The plan for `config` in `scope` on a host with the interfaces `have`. `Err` names the
/// selection item this host cannot satisfy.
pub(crate) fn plan(
    config: &TransportConfig,
    scope: &Scope,
    have: &[Interface],
) -> Result<SocketPlan, InterfaceError> {
    let interfaces = scope.interfaces(have)?;
    if scope.scope == NetworkScope::LoopbackOnly {
        if config.multicast {
            log::debug!("loopback-only scope: multicast disabled");
        }
        return Ok(SocketPlan {
            scope: scope.scope,
            bind: Ipv4Addr::LOCALHOST,
            interfaces,
            multicast_interfaces: Vec::new(),
        });
    }
    let multicast_interfaces = if config.multicast {
        let capable: Vec<Ipv4Addr> = interfaces
            .iter()
            .filter(|i| i.multicast)
            .map(|i| i.address)
            .collect();
        if capable.is_empty() {
            log::info!("siftdds: no selected interface can multicast; unicast discovery only");
        }
        capable
    } else {
        Vec::new()
    };
    Ok(SocketPlan {
        scope: scope.scope,
        bind: Ipv4Addr::UNSPECIFIED,
        interfaces,
        multicast_interfaces,
    })
}

#[cfg(test)]
mod tests;
