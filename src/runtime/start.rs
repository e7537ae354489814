//! Starting a DomainParticipant: opens its transport for a [`NetworkConfig`], derives the
//! protocol configuration the transport decides (announced locators, SPDP destinations, the
//! interface list for locator selection) and starts the event loop. The API passes plain
//! configuration and never sees the sockets.
//!
//! Must not: contain protocol logic, or open sockets other than through
//! [`UdpTransport::open`] (which decides the network scope first).
//!
//! RTPS 2.5 §8.5.3.1 (SPDP goes to the metatraffic multicast locator and the configured
//! unicast peers), §9.6.1 (ports).

use std::io;
use std::net::Ipv4Addr;

use super::{Runtime, RuntimeHandle};
use crate::core::discovery::{metatraffic_unicast_port, spdp_multicast_port};
use crate::core::{Participant, ParticipantConfig};
use crate::transport::{
    DEFAULT_MULTICAST_GROUP, InterfaceError, InterfaceSelection, NetworkScope, TransportConfig,
    TransportError, UdpTransport,
};
use crate::wire::Locator;

/// Participant indices probed by unicast discovery on this host when there is no multicast
/// and no initial peer (as Fast DDS does for its default localhost initial peers).
pub const DEFAULT_LOCAL_PEERS: u32 = 60;

/// How a participant uses the network: plain configuration, from the API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkConfig {
    /// Participant index; `None` picks the first free one.
    pub participant_id: Option<u16>,
    /// Interfaces chosen in code or configuration; `None` leaves it to the environment
    /// (`SIFTDDS_INTERFACES`, `auto` inside a network namespace, else loopback-only).
    pub interfaces: Option<InterfaceSelection>,
    /// Force loopback-only operation.
    pub loopback_only: bool,
    /// Multicast discovery (where the scope allows it).
    pub multicast: bool,
    /// Also receive user data on the user-traffic multicast locator.
    pub user_multicast: bool,
    /// SPDP initial peers (metatraffic unicast locators).
    pub initial_peers: Vec<Locator>,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        NetworkConfig {
            participant_id: None,
            interfaces: None,
            loopback_only: false,
            multicast: true,
            user_multicast: false,
            initial_peers: Vec::new(),
        }
    }
}

/// What a started participant does on the network (for the start-up line of the binaries).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkSummary {
    /// The scope in force.
    pub scope: NetworkScope,
    /// The unicast addresses in the announced locators, one per interface in use.
    pub announced: Vec<Ipv4Addr>,
    /// Multicast joined and sent.
    pub multicast: bool,
}

impl core::fmt::Display for NetworkSummary {
    /// `scope auto, announcing 198.18.1.1, 198.18.2.1`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "scope {}, announcing ", self.scope)?;
        for (i, a) in self.announced.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a}")?;
        }
        Ok(())
    }
}

/// Why a participant could not start.
#[derive(Debug)]
#[non_exhaustive]
pub enum StartError {
    /// The interface selection names something this host does not have, or is malformed;
    /// nothing was opened.
    Interface(InterfaceError),
    /// The sockets could not be opened (ports taken, an OS error).
    Transport(TransportError),
    /// The event loop thread could not be started.
    Io(io::Error),
}

impl core::fmt::Display for StartError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            StartError::Interface(e) => e.fmt(f),
            StartError::Transport(e) => write!(f, "transport: {e}"),
            StartError::Io(e) => write!(f, "I/O: {e}"),
        }
    }
}

impl std::error::Error for StartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StartError::Interface(e) => Some(e),
            StartError::Transport(e) => Some(e),
            StartError::Io(e) => Some(e),
        }
    }
}

impl From<TransportError> for StartError {
    fn from(e: TransportError) -> Self {
        match e {
            TransportError::Interface(e) => StartError::Interface(e),
            e => StartError::Transport(e),
        }
    }
}

/// Opens the transport for `network`, completes `config` with what it decided (locators,
/// SPDP destinations, our interfaces) and starts the loop thread.
pub fn start_participant(
    network: NetworkConfig,
    config: ParticipantConfig,
) -> Result<(RuntimeHandle<Participant>, NetworkSummary), StartError> {
    start_participant_on(None, network, config)
}

/// [`start_participant`] on the loop thread of `on` when given (its participant and this
/// one then share that thread: [`RuntimeHandle::adopt`]), else on a loop of its own.
pub fn start_participant_on(
    on: Option<&RuntimeHandle<Participant>>,
    network: NetworkConfig,
    mut config: ParticipantConfig,
) -> Result<(RuntimeHandle<Participant>, NetworkSummary), StartError> {
    let mut tc = TransportConfig::new(config.domain_id);
    tc.participant_id = network.participant_id;
    tc.interfaces = network.interfaces;
    tc.loopback_only = network.loopback_only;
    tc.multicast = network.multicast && !network.loopback_only;
    tc.user_multicast = network.user_multicast && tc.multicast;
    let transport = UdpTransport::open(&tc)?;
    let summary = NetworkSummary {
        scope: transport.scope(),
        announced: transport.interfaces().iter().map(|i| i.address).collect(),
        multicast: transport.multicast(),
    };
    let locators = transport.locators();
    config.metatraffic_unicast_locators = locators.metatraffic_unicast.clone();
    config.metatraffic_multicast_locators = locators.metatraffic_multicast.clone();
    config.default_unicast_locators = locators.default_unicast.clone();
    config.default_multicast_locators = locators.default_multicast.clone();
    config.interfaces = transport.interfaces().iter().map(|i| i.network()).collect();
    config.spdp_destinations =
        spdp_destinations(config.domain_id, summary.multicast, network.initial_peers);
    let participant = Participant::new(config);
    let handle = match on {
        Some(on) => on.adopt(participant, transport),
        None => Runtime::spawn(participant, transport),
    }
    .map_err(StartError::Io)?;
    Ok((handle, summary))
}

/// Where SPDP announcements go: the SPDP multicast group when multicast is on, else (without
/// initial peers) the metatraffic ports of the first [`DEFAULT_LOCAL_PEERS`] participant
/// indices on 127.0.0.1; and the initial peers.
fn spdp_destinations(domain_id: u32, multicast: bool, initial_peers: Vec<Locator>) -> Vec<Locator> {
    let mut out = Vec::new();
    if multicast {
        if let Some(port) = spdp_multicast_port(domain_id) {
            out.push(Locator::udpv4(DEFAULT_MULTICAST_GROUP.octets(), port));
        }
    } else if initial_peers.is_empty() {
        for id in 0..DEFAULT_LOCAL_PEERS {
            if let Some(port) = metatraffic_unicast_port(domain_id, id) {
                out.push(Locator::udpv4([127, 0, 0, 1], port));
            }
        }
    }
    out.extend(initial_peers);
    out
}

#[cfg(test)]
mod tests;
