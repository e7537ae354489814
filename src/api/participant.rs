//! DomainParticipant: gathers the participant's configuration, has the runtime start it
//! (`runtime::start_participant` opens the transport), creates the rest.
//!
//! Must not: open or inspect the transport itself; the runtime owns it and reports what it
//! decided ([`NetworkSummary`]).
//!
//! # Interface selection
//! [`ParticipantBuilder::interfaces`] wins over the QoS property
//! [`INTERFACES_PROPERTY`] (`siftdds.transport.interfaces`, from
//! [`ParticipantBuilder::qos`] or a profile), which wins over the environment variable
//! `SIFTDDS_INTERFACES`; `SIFTDDS_LOOPBACK_ONLY=1` and [`ParticipantBuilder::loopback_only`]
//! win over all of them. With none, a participant inside a network namespace made by
//! `netns-run`/`netns-sites` uses `auto`, and elsewhere loopback only (docs/architecture.md,
//! "Network scope and interface selection").

use std::sync::Arc;
use std::time::Duration;

use super::Error;
use crate::core::{Event, Participant, ParticipantConfig};
use crate::qos::DomainParticipantQos;
use crate::runtime::durability_store::{PersistentStore, StoreConfig, StoreError};
use crate::runtime::{
    InterfaceError, InterfaceSelection, NetworkConfig, NetworkSummary, RuntimeHandle, StartError,
    start_participant_on,
};
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
    /// From [`ParticipantBuilder::interfaces`]; a parse error is reported by `build`.
    interfaces: Option<Result<InterfaceSelection, InterfaceError>>,
    qos: DomainParticipantQos,
    user_multicast: bool,
    writer_multicast: crate::core::writer::MulticastConfig,
    persistence_file: Option<std::path::PathBuf>,
    unresponsive_reader_timeout: Option<Duration>,
    max_lease_duration: Option<Duration>,
    only_interface_subnets: bool,
    /// Run on this participant's loop thread ([`ParticipantBuilder::same_loop_as`]).
    same_loop: Option<SameLoop>,
}

/// The participant whose loop thread a new one shares.
#[derive(Clone)]
struct SameLoop(DomainParticipant);

impl core::fmt::Debug for SameLoop {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SameLoop({:?})", self.0.guid_prefix())
    }
}

impl ParticipantBuilder {
    /// Loopback-only operation: 127.0.0.1 sockets, unicast discovery to the first
    /// participant indices on this host, no multicast. Safe outside the network sandbox.
    pub fn loopback_only(mut self) -> Self {
        self.loopback_only = true;
        self.multicast = false;
        self
    }

    /// Uses exactly these interfaces: `auto`, or interface names (`eth0`), IPv4 addresses
    /// (`198.18.1.1`) and CIDR prefixes (`198.18.1.0/24`); an item may itself be a
    /// comma-separated list, as in `SIFTDDS_INTERFACES`, which this overrides. Multicast is
    /// joined and sent on each selected multicast-capable interface, and every selected
    /// interface's address is announced. An unknown interface, a bad CIDR or an address no
    /// interface has makes [`build`](Self::build) fail with an error naming it, before any
    /// socket is opened.
    pub fn interfaces<I, S>(mut self, items: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let items: Vec<String> = items
            .into_iter()
            .flat_map(|s| {
                s.as_ref()
                    .split(',')
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        self.interfaces = Some(InterfaceSelection::from_items(items));
        self
    }

    /// [`interfaces`](Self::interfaces) with an already parsed selection.
    pub fn interface_selection(mut self, selection: InterfaceSelection) -> Self {
        self.interfaces = Some(Ok(selection));
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

    /// The SQLite file of this participant's PERSISTENT samples; wins over the QoS property
    /// `PERSISTENCE_FILE_PROPERTY`. Default: `siftdds-persistence-d<domain>-p<index>.sqlite3`
    /// in the current directory (docs/durability.md).
    pub fn persistence_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.persistence_file = Some(path.into());
        self
    }

    /// How long a reliable remote reader may leave our writers' changes unacknowledged
    /// without progress before it no longer holds them back (default
    /// [`crate::core::writer::DEFAULT_UNRESPONSIVE_READER_TIMEOUT`]; `docs/security.md` §6).
    pub fn unresponsive_reader_timeout(mut self, timeout: Duration) -> Self {
        self.unresponsive_reader_timeout = Some(timeout);
        self
    }

    /// The longest lease a remote participant may announce and get (default
    /// [`crate::core::participant::DEFAULT_MAX_LEASE_DURATION`]).
    pub fn max_lease_duration(mut self, lease: Duration) -> Self {
        self.max_lease_duration = Some(lease);
        self
    }

    /// Ignore datagrams from outside the selected interfaces' subnets (off by default): for
    /// several participants of one process on several networks (`siftdds router`), which
    /// all bind 0.0.0.0 and would otherwise hear each other's unicast peers.
    pub fn only_interface_subnets(mut self, on: bool) -> Self {
        self.only_interface_subnets = on;
        self
    }

    /// Runs the new participant on `other`'s event loop thread instead of a thread of its
    /// own (default: its own): work handed between the two (the router's forwards from one
    /// site to another) then needs no wake-up of another thread, and the two share that
    /// thread's time. Either may be dropped first.
    pub fn same_loop_as(mut self, other: &DomainParticipant) -> Self {
        self.same_loop = Some(SameLoop(other.clone()));
        self
    }

    /// Sets one PROPERTY QoS entry (e.g. the DDS Security `dds.sec.auth.identity_ca`;
    /// `api::security`), keeping the others.
    pub fn property(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.qos.property.set(name, value);
        self
    }

    /// Has the runtime open the sockets (in the network scope the configuration and the
    /// environment decide; see the module docs) and start the participant.
    pub fn build(self) -> Result<DomainParticipant, Error> {
        let interfaces = match self.interfaces {
            Some(selection) => Some(selection),
            None => self
                .qos
                .property
                .get(INTERFACES_PROPERTY)
                .map(InterfaceSelection::parse),
        };
        let interfaces = interfaces
            .transpose()
            .map_err(|e| Error::from(StartError::Interface(e)))?;
        let network = NetworkConfig {
            participant_id: self.participant_id,
            interfaces,
            loopback_only: self.loopback_only,
            multicast: self.multicast,
            user_multicast: self.user_multicast,
            initial_peers: self.initial_peers,
        };
        #[allow(unused_mut)]
        let mut guid_prefix = crate::runtime::random_guid_prefix();
        // DDS-Security 1.1 §9.3.3: with an identity, the GUID prefix is the certificate's.
        #[cfg(feature = "security")]
        let security = {
            use crate::runtime::Clock;
            let wall = crate::runtime::SystemClock::new().now().wall.seconds;
            let property = &self.qos.property;
            super::security::from_properties(property, &guid_prefix, self.domain_id, wall.into())
                .map_err(|e| Error::Config(super::ConfigError::Security(e)))?
        };
        #[cfg(feature = "security")]
        if let Some(sec) = &security {
            guid_prefix = sec.identity.guid_prefix();
        }
        let mut config = ParticipantConfig::new(self.domain_id, guid_prefix);
        #[cfg(feature = "security")]
        {
            config.security = security.map(Arc::new);
        }
        config.lease_duration = self.lease_duration;
        config.announce_period = self.announce_period;
        config.entity_name = self.entity_name;
        config.user_data = self.qos.user_data.value;
        config.writer_multicast = self.writer_multicast;
        let mut store = StoreConfig::default_for(self.domain_id, 0);
        if let Some(max) = self.qos.property.get(PERSISTENCE_MAX_BYTES_PROPERTY) {
            store.max_bytes = max.trim().parse().map_err(|_| {
                Error::from(StoreError::BadProperty {
                    name: PERSISTENCE_MAX_BYTES_PROPERTY,
                    value: max.to_string(),
                })
            })?;
        }
        let configured = (self.persistence_file.clone()).or_else(|| {
            self.qos
                .property
                .get(PERSISTENCE_FILE_PROPERTY)
                .map(Into::into)
        });
        if let Some(t) = self.unresponsive_reader_timeout {
            config.unresponsive_reader_timeout = t;
        }
        if let Some(l) = self.max_lease_duration {
            config.max_lease_duration = l;
        }
        config.only_interface_subnets = self.only_interface_subnets;
        let on = self.same_loop.as_ref().map(|s| s.0.runtime_handle());
        let (handle, network) = start_participant_on(on, network, config).map_err(Error::from)?;
        store.path = match configured {
            Some(path) => path,
            None => StoreConfig::default_for(self.domain_id, handle.participant_id()).path,
        };
        Ok(DomainParticipant {
            inner: Arc::new(Inner {
                handle,
                guid_prefix,
                domain_id: self.domain_id,
                network,
                store: PersistentStore::new(store),
            }),
        })
    }
}

/// The DomainParticipant QoS property (RTI-style `<property>`) holding the interface
/// selection, in the syntax of `SIFTDDS_INTERFACES`.
pub const INTERFACES_PROPERTY: &str = "siftdds.transport.interfaces";

/// The DomainParticipant QoS property naming the SQLite file of PERSISTENT samples
/// ([`ParticipantBuilder::persistence_file`] wins over it).
pub const PERSISTENCE_FILE_PROPERTY: &str = "siftdds.durability.persistent.file";

/// The DomainParticipant QoS property bounding that file's size in bytes (default
/// [`crate::runtime::durability_store::DEFAULT_MAX_STORE_BYTES`]).
pub const PERSISTENCE_MAX_BYTES_PROPERTY: &str = "siftdds.durability.persistent.max_bytes";

/// Participant indices probed by unicast discovery when no initial peer is configured.
pub const DEFAULT_LOCAL_PEERS: u32 = crate::runtime::DEFAULT_LOCAL_PEERS;

pub(super) struct Inner {
    pub(super) handle: RuntimeHandle<Participant>,
    guid_prefix: GuidPrefix,
    domain_id: u32,
    network: NetworkSummary,
    /// PERSISTENT durability's store, opened at the first PERSISTENT writer.
    pub(super) store: PersistentStore,
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
            interfaces: None,
            qos: DomainParticipantQos::default(),
            user_multicast: false,
            writer_multicast: crate::core::writer::MulticastConfig::default(),
            persistence_file: None,
            unresponsive_reader_timeout: None,
            max_lease_duration: None,
            only_interface_subnets: false,
            same_loop: None,
        }
    }

    /// The runtime handle, for the API's modules (nothing outside `api` drives the core
    /// participant or its runtime directly).
    pub(super) fn runtime_handle(&self) -> &RuntimeHandle<Participant> {
        &self.inner.handle
    }

    /// Our GUID prefix.
    pub fn guid_prefix(&self) -> GuidPrefix {
        self.inner.guid_prefix
    }

    /// The domain id.
    pub fn domain_id(&self) -> u32 {
        self.inner.domain_id
    }

    /// The network scope and the unicast addresses announced: what the binaries print at
    /// start-up (`siftdds: scope auto, announcing 198.18.1.1`).
    pub fn network(&self) -> &NetworkSummary {
        &self.inner.network
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

    /// Where the periodic SPDP announcements go: the multicast group and the initial peers
    /// unless [`DomainParticipant::set_spdp_announcements`] changed them.
    pub fn spdp_destinations(&self) -> Result<Vec<Locator>, Error> {
        Ok(self
            .inner
            .handle
            .execute(|p, _| p.spdp_destinations().to_vec())?)
    }

    /// From the next announcement on, sends the periodic SPDP announcements every `period`
    /// (the builder's [`ParticipantBuilder::announce_period`]) to `destinations` instead: e.g.
    /// a router's link narrowing the initial peers it probes to the one peer it found there.
    /// A newly found participant is still answered at once, at its own locators. Returns
    /// whether the destinations changed. RTPS 2.5 §8.5.3.2.
    pub fn set_spdp_announcements(
        &self,
        period: Duration,
        destinations: Vec<Locator>,
    ) -> Result<bool, Error> {
        Ok(self.inner.handle.execute(move |p, _| {
            p.set_announce_period(period);
            let changed = p.spdp_destinations() != destinations.as_slice();
            if changed {
                p.set_spdp_destinations(destinations);
            }
            changed
        })?)
    }

    /// Forgets remote participant `prefix` now, as if its lease had expired
    /// ([`crate::core::Participant::forget_participant`]). False if it was not known.
    pub fn forget_participant(&self, prefix: GuidPrefix) -> Result<bool, Error> {
        Ok(self
            .inner
            .handle
            .execute(move |p, _| p.forget_participant(prefix))?)
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

    /// Where this participant keeps its PERSISTENT samples.
    pub fn persistence_file(&self) -> &std::path::Path {
        &self.inner.store.config().path
    }

    /// Counters of the protocol engine (malformed input, unroutable submessages, ...).
    pub fn stats(&self) -> Result<crate::core::participant::ParticipantStats, Error> {
        Ok(self.inner.handle.execute(|p, _| p.stats())?)
    }
}

#[cfg(test)]
mod tests;
