//! DomainParticipant: opens the transport, starts the event loop, creates the rest.
//!
//! Must not: bypass the network-safety gate (the transport checks it before any socket).

use std::sync::Arc;
use std::time::Duration;

use super::Error;
use crate::core::discovery::{metatraffic_unicast_port, spdp_multicast_port};
use crate::core::{Event, Participant, ParticipantConfig};
use crate::qos::DomainParticipantQos;
use crate::runtime::{Runtime, RuntimeHandle};
use crate::transport::{DEFAULT_MULTICAST_GROUP, TransportConfig, UdpTransport};
use crate::wire::{GuidPrefix, Locator};

/// Builds a [`DomainParticipant`].
#[derive(Clone, Debug)]
pub struct ParticipantBuilder {
    domain_id: u32,
    participant_id: Option<u16>,
    multicast: bool,
    initial_peers: Vec<Locator>,
    lease_duration: Duration,
    announce_period: Duration,
    entity_name: Option<String>,
    loopback_only: bool,
    qos: DomainParticipantQos,
    user_multicast: bool,
    writer_multicast: crate::core::writer::MulticastConfig,
}

impl ParticipantBuilder {
    /// Loopback-only operation: 127.0.0.1 sockets, unicast discovery to the first
    /// participant indices on this host, no multicast. Safe outside the network sandbox.
    pub fn loopback_only(mut self) -> Self {
        self.loopback_only = true;
        self.multicast = false;
        self
    }

    /// Fixes the participant index (default: the first free one).
    pub fn participant_id(mut self, id: u16) -> Self {
        self.participant_id = Some(id);
        self
    }

    /// Multicast discovery on (default) or off (unicast to the initial peers only).
    pub fn multicast(mut self, on: bool) -> Self {
        self.multicast = on;
        self
    }

    /// Adds an SPDP initial peer (a metatraffic unicast locator).
    pub fn initial_peer(mut self, peer: Locator) -> Self {
        self.initial_peers.push(peer);
        self
    }

    /// SPDP lease duration (default 20 s).
    pub fn lease_duration(mut self, d: Duration) -> Self {
        self.lease_duration = d;
        self
    }

    /// SPDP announcement period (default 3 s).
    pub fn announce_period(mut self, d: Duration) -> Self {
        self.announce_period = d;
        self
    }

    /// PID_ENTITY_NAME announced in SPDP.
    pub fn entity_name(mut self, name: impl Into<String>) -> Self {
        self.entity_name = Some(name.into());
        self
    }

    /// The participant's QoS: USER_DATA is announced in SPDP (RTPS 2.5 §8.5.3.2);
    /// ENTITY_FACTORY is accepted (entities are always created enabled). DDS 1.4 §2.2.2.2.1.
    pub fn qos(mut self, qos: DomainParticipantQos) -> Self {
        self.qos = qos;
        self
    }

    /// Also listen for user data on the user-traffic multicast locator (239.255.0.1, port
    /// PB + DG·domain + d2), announced in SPDP and in our readers' SEDP data, so that writers
    /// can send a sample once to every reader here. Needs multicast (not loopback-only).
    pub fn user_multicast(mut self, on: bool) -> Self {
        self.user_multicast = on;
        self
    }

    /// How this participant's writers choose between one multicast datagram and unicast
    /// sends per sample (default: the cost model of `docs/filtering.md`).
    pub fn writer_multicast(mut self, config: crate::core::writer::MulticastConfig) -> Self {
        self.writer_multicast = config;
        self
    }

    /// Opens the sockets (refused outside the network sandbox unless loopback-only is
    /// configured) and starts the participant.
    pub fn build(self) -> Result<DomainParticipant, Error> {
        let mut tc = TransportConfig::new(self.domain_id);
        tc.participant_id = self.participant_id;
        tc.multicast = self.multicast;
        tc.loopback_only = self.loopback_only;
        tc.user_multicast = self.user_multicast && self.multicast;
        let transport = UdpTransport::open(&tc).map_err(Error::Transport)?;
        let multicast = transport.scope()
            == crate::transport::sandbox::NetworkScope::PrivateNamespace
            && self.multicast;
        let locators = transport.locators().clone();
        let guid_prefix = crate::runtime::random_guid_prefix();
        let mut config = ParticipantConfig::new(self.domain_id, guid_prefix);
        config.lease_duration = self.lease_duration;
        config.announce_period = self.announce_period;
        config.metatraffic_unicast_locators = locators.metatraffic_unicast.clone();
        config.metatraffic_multicast_locators = locators.metatraffic_multicast.clone();
        config.default_unicast_locators = locators.default_unicast.clone();
        config.default_multicast_locators = locators.default_multicast.clone();
        config.entity_name = self.entity_name;
        config.user_data = self.qos.user_data.value;
        config.writer_multicast = self.writer_multicast;
        if multicast {
            if let Some(port) = spdp_multicast_port(self.domain_id) {
                config
                    .spdp_destinations
                    .push(Locator::udpv4(DEFAULT_MULTICAST_GROUP.octets(), port));
            }
        } else if self.initial_peers.is_empty() {
            // Unicast discovery on this host: the first participant indices' metatraffic
            // ports, as Fast DDS does for its default localhost initial peers.
            for id in 0..DEFAULT_LOCAL_PEERS {
                if let Some(port) = metatraffic_unicast_port(self.domain_id, id) {
                    config
                        .spdp_destinations
                        .push(Locator::udpv4([127, 0, 0, 1], port));
                }
            }
        }
        config.spdp_destinations.extend(self.initial_peers);
        let participant = Participant::new(config);
        let handle = Runtime::spawn(participant, transport).map_err(Error::Io)?;
        Ok(DomainParticipant {
            inner: Arc::new(Inner {
                handle,
                guid_prefix,
                domain_id: self.domain_id,
            }),
        })
    }
}

/// Participant indices probed by unicast discovery when no initial peer is configured.
pub const DEFAULT_LOCAL_PEERS: u32 = 60;

pub(super) struct Inner {
    pub(super) handle: RuntimeHandle<Participant>,
    guid_prefix: GuidPrefix,
    domain_id: u32,
}

impl Drop for Inner {
    /// The last handle is gone: tell the peers we leave (SPDP DATA(p[UD])); the runtime then
    /// stops with `handle` and sends it before its thread ends.
    fn drop(&mut self) {
        let _ = self.handle.execute(|p, now| p.leave(now));
    }
}

/// An RTPS DomainParticipant: the sockets, the discovery protocol and every entity below
/// it. Cloning gives another handle to the same participant; it stops when the last handle,
/// writer and reader is dropped.
#[derive(Clone)]
pub struct DomainParticipant {
    pub(super) inner: Arc<Inner>,
}

impl DomainParticipant {
    /// A participant in `domain_id` with default settings.
    pub fn new(domain_id: u32) -> Result<Self, Error> {
        Self::builder(domain_id).build()
    }

    /// A builder for a participant in `domain_id`.
    pub fn builder(domain_id: u32) -> ParticipantBuilder {
        ParticipantBuilder {
            domain_id,
            participant_id: None,
            multicast: true,
            initial_peers: Vec::new(),
            lease_duration: Duration::from_secs(20),
            announce_period: Duration::from_secs(3),
            entity_name: None,
            loopback_only: false,
            qos: DomainParticipantQos::default(),
            user_multicast: false,
            writer_multicast: crate::core::writer::MulticastConfig::default(),
        }
    }

    /// Our GUID prefix.
    pub fn guid_prefix(&self) -> GuidPrefix {
        self.inner.guid_prefix
    }

    /// The domain id.
    pub fn domain_id(&self) -> u32 {
        self.inner.domain_id
    }

    /// The participant index (selects the unicast ports).
    pub fn participant_id(&self) -> u16 {
        self.inner.handle.participant_id()
    }

    /// The next status event, if any.
    pub fn poll_event(&self) -> Result<Option<Event>, Error> {
        Ok(self.inner.handle.execute(|p, _| p.poll_event())?)
    }

    /// Waits up to `timeout` for the next status event.
    pub fn wait_event(&self, timeout: Duration) -> Result<Option<Event>, Error> {
        Ok(self.inner.handle.wait_for(timeout, |p, _| p.poll_event())?)
    }

    /// Number of remote participants currently alive.
    pub fn discovered_participants(&self) -> Result<usize, Error> {
        Ok(self
            .inner
            .handle
            .execute(|p, _| p.remote_participants().count())?)
    }

    /// Manually asserts the liveliness of this participant's MANUAL_BY_PARTICIPANT writers
    /// (a WLP MANUAL_LIVELINESS_UPDATE). DDS 1.4 §2.2.2.2.1.27; RTPS 2.5 §8.4.13.
    pub fn assert_liveliness(&self) -> Result<(), Error> {
        Ok(self
            .inner
            .handle
            .execute(|p, now| p.assert_liveliness(now))?)
    }

    /// Counters of the event loop: datagrams and bytes received and sent.
    pub fn runtime_stats(&self) -> crate::runtime::RuntimeStats {
        self.inner.handle.stats()
    }

    /// Counters of the protocol engine (malformed input, unroutable submessages, ...).
    pub fn stats(&self) -> Result<crate::core::participant::ParticipantStats, Error> {
        Ok(self.inner.handle.execute(|p, _| p.stats())?)
    }
}
