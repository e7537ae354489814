//! The DomainParticipant's protocol engine: one sans-IO struct that owns its parts and
//! dispatches to them — every received submessage to the part it is for, every timer to the
//! part that set it — and collects what they want to send and report.
//!
//! Must not: touch sockets or clocks (time arrives as `now`), block, let a remote peer grow
//! its state without bound (remote participants and endpoints are capped, see
//! [`ParticipantConfig`]), or send volume to an address it has not heard from (every transmit
//! passes the outbound gate, `gate.rs`; `docs/security.md`).
//!
//! # Overview
//! RTPS 2.5 §8.5 (discovery), §8.3.4 (receiver). Inputs: [`Participant::handle_datagram`],
//! [`Participant::handle_timeout`] and the entity commands (`create_writer`, `write`, ...).
//! Outputs: [`Participant::poll_transmit`], [`Participant::poll_timeout`],
//! [`Participant::poll_event`].
//!
//! `impl Participant` is this file alone: it coordinates. The behaviour lives in owned parts,
//! one per file, each a struct owning its state and invariants, with `handle_*`/`poll_*`
//! methods that take what they need from their neighbours as arguments and return outcomes
//! (no part points back at the participant):
//!
//! | part | file | owns |
//! |------|------|------|
//! | `Discovery` | `discovery.rs` (+ `sedp.rs`) | SPDP: our data, its sequence number, the announce timer, remote participants and their leases and source bindings (`source_bind.rs`, `locator_select.rs`); the SEDP and WLP builtin endpoints; the remote writers and readers (capped) |
//! | `Endpoints` | `endpoints.rs` (+ `matching.rs`, `spec.rs`) | local writers and readers (created from a `WriterSpec`/`ReaderSpec`), entity ids, applying matches, the remote writer → matched local readers index |
//! | `Liveliness` | `liveliness.rs` | the WLP schedule and the liveliness of local and remote writers |
//! | `Durability` | `durability.rs` | TRANSIENT/PERSISTENT histories, service writers, store actions |
//! | `Presentation` | `presentation.rs` (+ `group.rs`, `group_sets.rs`, `coherent.rs`) | PRESENTATION access scope GROUP: writer groups, group coherent sets under assembly, coherent changes |
//! | `PeerGroup` | `peer_group.rs` | the peer-group caches of an intermediary (docs/peer-group-cache.md) |
//! | `OutboundGate` | `gate.rs` | what an unverified address may be sent |
//! | `Authentication` | `auth.rs` (feature `security`) | the DDS Security stateless handshake endpoints and one handshake per remote participant that announces an identity token |
//! | `AccessControl` | `access.rs` (feature `security`) | our governance, permissions and permissions CA; each admitted remote participant's grant; the remote endpoints refused |
//! | `Cryptography` | `crypto.rs` (feature `security`) | the key exchange (volatile secure endpoints, KxKey), our participant key material and each authenticated peer's, the key material of our endpoints on protected topics and of the remote endpoints matched with them; the send and receive transforms of RTPS messages, submessages and payloads |
//! | `TypeLookupServer`, `TypeLookupClient` | `type_lookup.rs`, `type_client.rs` (inside `Discovery`) | the TypeLookup service: serving our types; asking peers for theirs and the registry of resolved remote types |
//!
//! The participant itself keeps the configuration, the counters ([`ParticipantStats`]), the
//! queue of datagrams to send first (`pending`) and the events for the application.
//!
//! Tests: `tests.rs` (the simulated network and shared helpers) and one module per topic in
//! `tests/`; the sans-IO pieces with no neighbours (`gate.rs`, `source_bind.rs`,
//! `locator_select.rs`, `matching.rs`, `group.rs`) have their own unit tests.
//!
//! # Where security sits
//! - Handshake endpoints (built): the `Authentication` part (`auth.rs`), routed from `route`
//!   beside the SEDP builtin endpoints; `Discovery` holds a peer with an identity token back
//!   from SEDP until its handshake completes (`Discovery::admit`).
//! - Access control (built): the `AccessControl` part (`access.rs`) admits an authenticated
//!   participant only if its permissions let it join (`Participant::apply_auth`) and each
//!   remote endpoint only if they let it use the topic and partitions (`add_remote_writer`,
//!   `add_remote_reader`); a refusal is [`Event::AccessDenied`] and a warning.
//! - Key exchange: the `Cryptography` part (`crypto.rs`), started for a peer once its
//!   handshake completed (`apply_auth`); its volatile secure datagrams leave through
//!   `next_transmit` like the other parts'.
//! - Receive transform: at the start of [`Participant::handle_datagram`], before
//!   `receiver::receive_items`: an SRTPS-protected message is decoded and the volatile secure
//!   submessages are taken out, a remote endpoint's SEC_PREFIX submessage and protected payload
//!   decoded; under RTPS protection a user-endpoint submessage from an authenticated peer that
//!   did not come protected is dropped (`stats().unprotected`), and so is one of a remote
//!   endpoint on a topic with submessage protection.
//! - Send transform: in [`Participant::poll_transmit`], on each datagram before the outbound
//!   gate (`Cryptography::protect`): our protected endpoints' submessages and payloads, then
//!   the whole message.
//! - Discovery protection, receive side: `Discovery::poll_remote_change` takes an endpoint of
//!   a topic our governance gives `enable_discovery_protection` only from the secure SEDP
//!   readers, and keeps one learned there from being changed or disposed from the plain ones
//!   (`discovery::announcement_admitted`, `stats().plain_discovery_refused`).
//! - Endpoint protection: an endpoint's key material is created when it is announced
//!   (`announce_writer`, `create_reader`: PID_ENDPOINT_SECURITY_INFO), its tokens sent when it
//!   matches (`evaluate_match`).

#[cfg(feature = "security")]
mod access;
#[cfg(feature = "security")]
mod auth;
mod coherent;
#[cfg(feature = "security")]
mod crypto;
mod discovery;
mod durability;
mod endpoints;
mod gate;
mod group;
mod group_sets;
mod liveliness;
pub mod locator_select;
mod matching;
mod peer_group;
mod presentation;
mod sedp;
pub mod source_bind;
mod spec;
#[cfg(test)]
mod tests;
pub mod type_client;
mod type_lookup;

use std::collections::{BTreeSet, VecDeque};

#[cfg(feature = "security")]
pub use access::MAX_REMEMBERED_REFUSALS;
#[cfg(feature = "security")]
pub use auth::{
    BUILTIN_PARTICIPANT_STATELESS_MESSAGE_READER, BUILTIN_PARTICIPANT_STATELESS_MESSAGE_WRITER,
    MAX_RESENDS, RESEND_PERIOD, STATELESS_MESSAGE_READER, STATELESS_MESSAGE_WRITER, SecurityConfig,
};
#[cfg(feature = "security")]
pub use crypto::{
    BUILTIN_PARTICIPANT_VOLATILE_MESSAGE_SECURE_READER,
    BUILTIN_PARTICIPANT_VOLATILE_MESSAGE_SECURE_WRITER,
    GMCLASSID_SECURITY_DATAREADER_CRYPTO_TOKENS, GMCLASSID_SECURITY_DATAWRITER_CRYPTO_TOKENS,
    GMCLASSID_SECURITY_PARTICIPANT_CRYPTO_TOKENS, MAX_VOLATILE_RESENDS,
    VOLATILE_MESSAGE_SECURE_READER, VOLATILE_MESSAGE_SECURE_WRITER, VOLATILE_RESEND_PERIOD,
};
pub use gate::{
    GateConfig, GateStats, MAX_TRACKED_HOSTS, UNVERIFIED_BUDGET_WINDOW, UNVERIFIED_BYTE_BUDGET,
    UNVERIFIED_DATAGRAM_BUDGET,
};
pub use liveliness::{
    AUTOMATIC_LIVELINESS_UPDATE, LivelinessChangedStatus, MANUAL_LIVELINESS_UPDATE,
    MAX_PARTICIPANT_MESSAGE_DATA, MIN_AUTOMATIC_PERIOD, ParticipantMessageData,
};
pub use peer_group::{MAX_CACHES, PeerGroupStats};
pub use spec::{ReaderSpec, WriterSpec};

use crate::core::discovery::{ParticipantProxyData, PublicationData, SubscriptionData};
use crate::core::durability::{DurableSample, StoreAction};
use crate::core::peer_group::config::{PeerGroupConfig, PeerGroupError};
use crate::core::receiver::{self, ReceiverState};
use crate::core::writer::{WriteError, WriterCounters, WriterFilterStats};
use crate::core::{CacheChange, DeadlineMissedStatus, Event, Transmit, WriteRequest};
use crate::qos::{Durability as DurabilityKind, LivelinessKind};
use crate::time::{Instant, Now};
use crate::wire::plist::describe;
use crate::wire::submessage::{Data, Submessage};
use crate::wire::{EntityId, Guid, GuidPrefix, Locator, SequenceNumber, VendorId};

use discovery::{Discovery, RemoteChange, SpdpOutcome, Via};
use durability::Durability;
use endpoints::{Endpoints, MatchOutcome};
use gate::OutboundGate;
use liveliness::Liveliness;
use matching::TypeMatch;
use peer_group::PeerGroup;
use presentation::Presentation;

/// Static configuration of a participant.
#[derive(Clone, Debug)]
pub struct ParticipantConfig {
    /// DDS domain id.
    pub domain_id: u32,
    /// Our GUID prefix (unique per participant; the runtime draws it at random).
    pub guid_prefix: GuidPrefix,
    /// Lease announced in SPDP: peers drop us if they hear nothing for this long.
    pub lease_duration: core::time::Duration,
    /// Period of SPDP announcements.
    pub announce_period: core::time::Duration,
    /// Where we receive discovery traffic by unicast.
    pub metatraffic_unicast_locators: Vec<Locator>,
    /// Where we receive discovery traffic by multicast.
    pub metatraffic_multicast_locators: Vec<Locator>,
    /// Where we receive user traffic by unicast.
    pub default_unicast_locators: Vec<Locator>,
    /// Where we receive user traffic by multicast.
    pub default_multicast_locators: Vec<Locator>,
    /// Where SPDP announcements go: the SPDP multicast group and the initial peers.
    pub spdp_destinations: Vec<Locator>,
    /// Our interfaces (address and prefix length): which of a remote's unicast locators we
    /// send to, and whether a remote is on this host, depend on them (`locator_select.rs`).
    pub interfaces: Vec<ipnet::Ipv4Net>,
    /// Most remote participants remembered at once; announcements from more are ignored.
    pub max_remote_participants: usize,
    /// Most remote endpoints (writers + readers) remembered at once.
    pub max_remote_endpoints: usize,
    /// The outbound gate's limits and allow list: what an address we have not heard from may
    /// be sent (see `gate.rs` and `docs/security.md`).
    pub gate: GateConfig,
    /// Optional PID_ENTITY_NAME.
    pub entity_name: Option<String>,
    /// PID_USER_DATA of the participant (its USER_DATA QoS; sent when non-empty).
    pub user_data: Vec<u8>,
    /// How our writers choose between multicast and unicast per sample
    /// (`core::writer::MulticastConfig`; default: the cost model).
    pub writer_multicast: crate::core::writer::MulticastConfig,
    /// Each writer's `WriterConfig::unresponsive_reader_timeout` (`core/writer/unresponsive.rs`).
    pub unresponsive_reader_timeout: core::time::Duration,
    /// The longest lease a remote participant gets, whatever it announces (an infinite one
    /// included): a peer gone silent is forgotten within this. Default
    /// [`DEFAULT_MAX_LEASE_DURATION`].
    pub max_lease_duration: core::time::Duration,
    /// Ignore every datagram whose IPv4 source is in none of [`Self::interfaces`]' subnets
    /// (a router's participants, one per site, all bind 0.0.0.0 on one host: without this a
    /// unicast datagram meant for one site's participant would also reach another's).
    pub only_interface_subnets: bool,
    /// The peer groups (docs/peer-group-cache.md): our writers that are members may send
    /// abbreviated samples to the group's intermediary; if we are an intermediary, we
    /// restore them. Checked by `Participant::set_peer_groups`; empty by default.
    pub peer_groups: Vec<crate::core::peer_group::config::PeerGroupConfig>,
    /// Peer-group cooperation (docs/peer-group-cache.md §4.3): as intermediary, keep the
    /// entries members announce (SEDP PID 0x8102); as member, forget the keys an
    /// intermediary's SPDP announces evicted (PID 0x8103). Default true; false gives the
    /// plain LRU and NACK-driven behaviour (for measurements, `tests/peer_group_faults.rs`).
    pub peer_group_cooperation: bool,
    /// DDS Security (docs/security.md §7): our identity and permissions. With it, SPDP
    /// announces our identity and permissions tokens, and a remote participant that
    /// announces an identity token is matched on SEDP only once its handshake completed
    /// (`auth.rs`). `None` (the default): no security, nothing changes. The GUID prefix must
    /// then be the identity's ([`crate::security::auth::LocalIdentity::guid_prefix`]).
    #[cfg(feature = "security")]
    pub security: Option<std::sync::Arc<SecurityConfig>>,
}

/// Default for [`ParticipantConfig::max_remote_participants`].
pub const DEFAULT_MAX_REMOTE_PARTICIPANTS: usize = 256;
/// Default for [`ParticipantConfig::max_remote_endpoints`].
pub const DEFAULT_MAX_REMOTE_ENDPOINTS: usize = 4096;
/// Default for [`ParticipantConfig::max_lease_duration`]: 300 s. Above the leases vendors
/// announce by default (Cyclone 10 s, Fast DDS 20 s, RTI Connext 100 s), so no real peer is
/// cut; a peer announcing 100,000 s or infinity (RTPS 2.5 §8.5.3.3 allows any) that goes
/// silent is dropped after 5 minutes instead of days.
pub const DEFAULT_MAX_LEASE_DURATION: core::time::Duration = core::time::Duration::from_secs(300);

impl ParticipantConfig {
    /// Default limits and periods (lease 20 s, announcements every 3 s, like Fast DDS), no
    /// locators: the runtime fills them from the transport.
    pub fn new(domain_id: u32, guid_prefix: GuidPrefix) -> Self {
        ParticipantConfig {
            domain_id,
            guid_prefix,
            lease_duration: core::time::Duration::from_secs(20),
            announce_period: core::time::Duration::from_secs(3),
            metatraffic_unicast_locators: Vec::new(),
            metatraffic_multicast_locators: Vec::new(),
            default_unicast_locators: Vec::new(),
            default_multicast_locators: Vec::new(),
            spdp_destinations: Vec::new(),
            interfaces: Vec::new(),
            max_remote_participants: DEFAULT_MAX_REMOTE_PARTICIPANTS,
            max_remote_endpoints: DEFAULT_MAX_REMOTE_ENDPOINTS,
            gate: GateConfig::default(),
            entity_name: None,
            user_data: Vec::new(),
            writer_multicast: crate::core::writer::MulticastConfig::default(),
            unresponsive_reader_timeout: crate::core::writer::DEFAULT_UNRESPONSIVE_READER_TIMEOUT,
            max_lease_duration: DEFAULT_MAX_LEASE_DURATION,
            only_interface_subnets: false,
            peer_groups: Vec::new(),
            peer_group_cooperation: true,
            #[cfg(feature = "security")]
            security: None,
        }
    }

    /// Our governance's domain rule for our domain (DDS-Security 1.1 §9.4.1.2.1: the first
    /// rule whose domains include it), if any.
    #[cfg(feature = "security")]
    pub(crate) fn domain_rule(&self) -> Option<&crate::security::access::governance::DomainRule> {
        self.security
            .as_ref()?
            .governance
            .as_ref()?
            .domain_rule(self.domain_id)
    }
}

/// Counters for everything a peer can do to us; misbehaviour is counted, never an error.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ParticipantStats {
    /// Datagrams handed to [`Participant::handle_datagram`].
    pub datagrams: u64,
    /// Datagrams with a malformed header or submessage.
    pub malformed: u64,
    /// RTI Connext's 16-byte participant pings (`wire::is_vendor_ping`), ignored.
    pub pings: u64,
    /// Submessages skipped as not understood.
    pub not_understood: u64,
    /// Submessages for endpoints we do not have (or writers we have not matched).
    pub unroutable: u64,
    /// SPDP or SEDP data we could not decode.
    pub bad_discovery_data: u64,
    /// Remote participants or endpoints ignored because a limit was reached.
    pub over_limit: u64,
    /// What the outbound gate let through to, and kept from, unverified addresses.
    pub gate: GateStats,
    /// HEARTBEAT, HEARTBEAT_FRAG, GAP, ACKNACK, NACK_FRAG and SPDP submessages dropped because
    /// they claimed a known participant's GUID prefix from a host it is not bound to
    /// (`source_bind.rs`, `docs/security.md` §6).
    pub foreign_source: u64,
    /// Participants re-bound to a new address (an SPDP announcement from a new host with a
    /// higher sequence number: the participant moved).
    pub rebound: u64,
    /// Datagrams ignored because their source is outside our interfaces' subnets
    /// ([`ParticipantConfig::only_interface_subnets`]).
    pub off_subnet: u64,
    /// Remote participants authenticated (DDS Security handshakes completed).
    pub authenticated: u64,
    /// DDS Security handshakes that failed (each also an `Event::AuthenticationFailed`).
    pub authentication_failed: u64,
    /// Stateless-topic messages that did not decode or were not authentication messages.
    pub bad_handshake_messages: u64,
    /// Remote participants and endpoints refused by access control (each also an
    /// `Event::AccessDenied` the first time).
    pub access_denied: u64,
    /// Protected datagrams or submessages refused by the receive transform: from a
    /// participant we hold no key of, or whose MAC did not verify (DDS-Security 1.1
    /// §8.5.1.9).
    pub crypto_rejected: u64,
    /// Of `crypto_rejected`, the parts whose MAC did not verify under a key held for their
    /// sender, or that carried no receiver-specific MAC for us: forgeries, or (when every
    /// part from one peer is refused so) a key exchange that gave the two sides different
    /// keys.
    pub crypto_unverified: u64,
    /// Submessages of user endpoints dropped because they came in clear from an
    /// authenticated participant while the governance asks for RTPS protection.
    pub unprotected: u64,
    /// Endpoint announcements (SEDP DATA(w), DATA(r), disposes included) received on the
    /// secure SEDP readers (DDS-Security 1.1 §7.4.5: endpoints of topics with discovery
    /// protection).
    pub secure_discovery_received: u64,
    /// Endpoint announcements (SEDP DATA(w), DATA(r), disposes included) ignored because they
    /// came on the plain SEDP readers for a topic our governance gives
    /// `enable_discovery_protection`, or for an endpoint learned on the secure ones
    /// (DDS-Security 1.1 §7.4.5: such endpoints are announced on the secure SEDP writers only).
    pub plain_discovery_refused: u64,
    /// Announcements of our endpoints written on the secure SEDP writers.
    pub secure_discovery_announced: u64,
}

/// The protocol state of one DomainParticipant: the configuration, the parts (see the
/// module overview), and what waits to be sent or reported.
pub struct Participant {
    config: ParticipantConfig,
    discovery: Discovery,
    endpoints: Endpoints,
    liveliness: Liveliness,
    durability: Durability,
    presentation: Presentation,
    peer_group: PeerGroup,
    gate: OutboundGate,
    /// Datagrams to send before any endpoint's (SPDP, merged coherent-set ends, manual
    /// liveliness heartbeats).
    pending: VecDeque<Transmit>,
    events: EventQueue,
    stats: ParticipantStats,
    #[cfg(feature = "security")]
    auth: Option<auth::Authentication>,
    #[cfg(feature = "security")]
    access: Option<access::AccessControl>,
    #[cfg(feature = "security")]
    crypto: Option<crypto::Cryptography>,
}

/// Most events queued before the oldest are dropped (an application that never polls).
const MAX_QUEUED_EVENTS: usize = 4096;

/// The events for the application, oldest first, at most [`MAX_QUEUED_EVENTS`] (the oldest
/// are dropped). The parts push into it.
#[derive(Debug, Default)]
struct EventQueue(VecDeque<Event>);

impl EventQueue {
    fn push(&mut self, e: Event) {
        if self.0.len() >= MAX_QUEUED_EVENTS {
            self.0.pop_front();
        }
        self.0.push_back(e);
    }

    fn pop(&mut self) -> Option<Event> {
        self.0.pop_front()
    }
}

impl Participant {
    /// A participant that starts announcing itself at the first `handle_timeout`.
    pub fn new(mut config: ParticipantConfig) -> Self {
        let groups = core::mem::take(&mut config.peer_groups);
        let mut p = Self::without_groups(config);
        if let Err(e) = p.set_peer_groups(groups) {
            log::warn!("peer groups ignored: {e}");
        }
        p
    }

    fn without_groups(config: ParticipantConfig) -> Self {
        #[allow(unused_mut)]
        let mut p = Participant {
            discovery: Discovery::new(&config),
            endpoints: Endpoints::default(),
            liveliness: Liveliness::default(),
            durability: Durability::default(),
            presentation: Presentation::default(),
            peer_group: PeerGroup::default(),
            gate: OutboundGate::new(config.gate.clone(), &config.spdp_destinations),
            pending: VecDeque::new(),
            events: EventQueue::default(),
            stats: ParticipantStats::default(),
            #[cfg(feature = "security")]
            auth: None,
            #[cfg(feature = "security")]
            access: None,
            #[cfg(feature = "security")]
            crypto: None,
            config,
        };
        #[cfg(feature = "security")]
        if let Some(sec) = p.config.security.clone() {
            p.auth = Some(auth::Authentication::new(
                sec.clone(),
                p.discovery.local_data(),
            ));
            p.access = access::AccessControl::new(&sec, p.config.domain_id);
            let protection = crypto::Protection::of(p.config.domain_rule());
            match crypto::Cryptography::new(p.config.guid_prefix, protection) {
                Ok(c) => p.crypto = c,
                Err(e) => log::error!("no key material, nothing will be protected: {e}"),
            }
        }
        p
    }

    /// Our GUID prefix.
    pub fn guid_prefix(&self) -> GuidPrefix {
        self.config.guid_prefix
    }

    /// The configuration.
    pub fn config(&self) -> &ParticipantConfig {
        &self.config
    }

    /// Counters of what peers sent us.
    pub fn stats(&self) -> ParticipantStats {
        ParticipantStats {
            gate: self.gate.stats(),
            secure_discovery_announced: self.discovery.secure_announced(),
            ..self.stats
        }
    }

    /// True when remote participant `prefix` sent us its participant CryptoTokens over the
    /// volatile secure topic (DDS-Security 1.1 §7.4.4), so its protected messages decode.
    #[cfg(feature = "security")]
    pub fn has_participant_keys(&self, prefix: GuidPrefix) -> bool {
        self.crypto
            .as_ref()
            .is_some_and(|c| c.has_remote_keys(prefix))
    }

    /// Forgets remote participant `prefix` now, as if its lease had expired: its endpoints
    /// are unmatched (no more HEARTBEATs or DATA to its readers) and `ParticipantLost` is
    /// queued. For a caller that knows it is gone before its lease says so (a router whose
    /// peer restarted at the same locator with a new GUID prefix, `router::link`). A later
    /// SPDP announcement of it discovers it again. False if it was not known.
    pub fn forget_participant(&mut self, prefix: GuidPrefix) -> bool {
        let known = self.remote_participants().any(|p| p.guid_prefix == prefix);
        self.remove_participant(prefix);
        known
    }

    /// Remote participants currently alive.
    pub fn remote_participants(&self) -> impl Iterator<Item = &ParticipantProxyData> {
        self.discovery.remote_participants()
    }

    /// Remote writers currently known through SEDP (what `siftdds ls` lists and a router learns its routes from).
    pub fn remote_writers(&self) -> impl Iterator<Item = &PublicationData> {
        self.discovery.remote_writers()
    }

    /// Remote readers currently known through SEDP, with their announced content filters
    /// (what `siftdds ls` lists and a router learns its routes from).
    pub fn remote_readers(&self) -> impl Iterator<Item = &SubscriptionData> {
        self.discovery.remote_readers()
    }

    // ---- inputs and outputs ----

    /// Handles one received datagram. Never fails: bad input is counted in [`Self::stats`].
    pub fn handle_datagram(&mut self, now: Now, source: Locator, datagram: &[u8]) {
        self.discovery.start(now);
        self.stats.datagrams = self.stats.datagrams.saturating_add(1);
        if self.config.only_interface_subnets && !self.config.interfaces.is_empty() {
            let inside = source.ipv4().is_some_and(|ip| {
                let ip = std::net::Ipv4Addr::from(ip);
                self.config.interfaces.iter().any(|net| net.contains(&ip))
            });
            if !inside {
                self.stats.off_subnet = self.stats.off_subnet.saturating_add(1);
                return;
            }
        }
        let our_prefix = self.config.guid_prefix;
        // The receive transform (`crypto.rs`): what is protected is decoded before routing.
        #[cfg(feature = "security")]
        let decoded;
        #[cfg(feature = "security")]
        let (datagram, rtps_source) = match self.receive_transform(now, datagram) {
            None => return,
            Some(crypto::Received::Decoded { bytes, rtps }) => {
                decoded = bytes;
                // The protection vouches for the participant whose key verified it, the
                // header's: not for another one an INFO_SRC inside may name.
                let source = crypto::header_prefix(&decoded).filter(|_| rtps);
                (decoded.as_slice(), source)
            }
            Some(_) => (datagram, None),
        };
        // The source participant whose lease was renewed for this datagram (it changes only
        // with INFO_SRC): once per datagram and source, not per submessage.
        let mut renewed: Option<GuidPrefix> = None;
        let outcome = receiver::receive_items(datagram, our_prefix, understood, |state, item| {
            let src = state.source_guid_prefix;
            if src == our_prefix {
                return;
            }
            // DDS-Security 1.1 §8.5.1.9: under RTPS protection, what an authenticated peer's
            // user endpoints send must have come protected.
            #[cfg(feature = "security")]
            if rtps_source != Some(src)
                && self.crypto.as_ref().is_some_and(|c| c.rtps_required(src))
            {
                // A vendor submessage is user data only from siftdds (its abbreviated samples);
                // another vendor's (Fast DDS's statistics) is not routed anyway.
                let user = match &item {
                    receiver::Item::Entity(sm) => crypto::concerns_user_endpoint(sm),
                    receiver::Item::Vendor { .. } => state.source_vendor_id == VendorId::SIFTDDS,
                };
                if user {
                    self.stats.unprotected = self.stats.unprotected.saturating_add(1);
                    return;
                }
            }
            let sm = match item {
                receiver::Item::Entity(sm) => sm,
                // docs/peer-group-cache.md §4.2: an abbreviated sample (siftdds only).
                receiver::Item::Vendor { id, flags, body } => {
                    self.handle_abbreviated(now, source, state, (id, flags, body));
                    return;
                }
            };
            // A submessage that claims a known participant from a host it is not bound to is
            // dropped before it renews anything (`source_bind.rs`).
            if !self.discovery.source_admits(&source, src, &sm) {
                self.stats.foreign_source = self.stats.foreign_source.saturating_add(1);
                log::debug!("dropped a submessage claiming {src} from {source:?}: not bound");
                return;
            }
            if renewed != Some(src) {
                renewed = Some(src);
                self.discovery.renew_lease(now, src, &self.config);
                let events = &mut self.events;
                self.liveliness
                    .heard_from(now, src, &self.endpoints, events);
            }
            self.route(now, source, state, sm);
        });
        // A datagram that carried a submessage for us verifies its source host (`gate.rs`).
        if outcome.delivered > 0 {
            self.gate.heard_from(now.mono, &source);
        }
        if outcome.malformed {
            self.stats.malformed = self.stats.malformed.saturating_add(1);
        }
        if outcome.ping {
            self.stats.pings = self.stats.pings.saturating_add(1);
        }
        self.stats.not_understood = self
            .stats
            .not_understood
            .saturating_add(u64::from(outcome.not_understood));
        self.process_discovery(now);
        self.process_liveliness(now);
        self.presentation
            .assemble(now, &mut self.endpoints, &self.discovery);
        self.collect_data_available();
    }

    /// The receive transform: `None` when the datagram is dropped, else what to route
    /// (`Plain` with no cryptography part).
    #[cfg(feature = "security")]
    fn receive_transform(&mut self, now: Now, datagram: &[u8]) -> Option<crypto::Received> {
        let Some(c) = self.crypto.as_mut() else {
            return Some(crypto::Received::Plain);
        };
        let (received, refused) = c.receive(now, datagram);
        let s = &mut self.stats;
        s.crypto_rejected = s.crypto_rejected.saturating_add(refused.all);
        s.crypto_unverified = s.crypto_unverified.saturating_add(refused.unverified);
        let unprotected = c.take_unprotected();
        self.stats.unprotected = self.stats.unprotected.saturating_add(unprotected);
        match received {
            crypto::Received::Dropped => None,
            r => Some(r),
        }
    }

    /// Runs every timer that is due.
    pub fn handle_timeout(&mut self, now: Now) {
        self.discovery.start(now);
        self.drain_resolved_types(now);
        if self
            .discovery
            .announce_due(now, self.config.announce_period)
        {
            let t = self.discovery.announce(now, &self.config, None);
            self.pending.extend(t);
        }
        for prefix in self.discovery.expired(now) {
            self.remove_participant(prefix);
        }
        let ours = self.config.guid_prefix;
        let updates = self
            .liveliness
            .handle_timeout(now, ours, &self.endpoints, &mut self.events);
        for m in updates {
            self.discovery.write_wlp(now, m);
        }
        self.discovery.handle_timeout(now);
        #[cfg(feature = "security")]
        if let Some(a) = self.auth.as_mut() {
            for outcome in a.handle_timeout(now) {
                self.apply_auth(now, outcome);
            }
        }
        #[cfg(feature = "security")]
        if let Some(c) = self.crypto.as_mut() {
            c.handle_timeout(now);
        }
        self.endpoints.handle_writers_timeout(now);
        let due = self
            .peer_group
            .reannounce(now, ours, &mut self.endpoints, &mut self.discovery);
        for w in due {
            self.announce_writer(now, w);
        }
        self.endpoints.handle_readers_timeout(now);
        self.process_discovery(now);
        // Missed deadlines, and NOT_ALIVE_NO_WRITERS after a lease expiry.
        self.endpoints.collect_deadline_events(&mut self.events);
        self.presentation
            .assemble(now, &mut self.endpoints, &self.discovery);
        self.collect_data_available();
    }

    /// The earliest instant at which [`Self::handle_timeout`] has work.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let parts = [
            self.liveliness.poll_timeout(),
            self.peer_group.poll_timeout(&self.endpoints),
            self.endpoints.poll_timeout(),
        ];
        let discovery = self.discovery.poll_timeout();
        #[cfg(feature = "security")]
        let discovery = self
            .auth
            .as_ref()
            .and_then(|a| a.poll_timeout())
            .map_or(discovery, |t| t.min(discovery));
        #[cfg(feature = "security")]
        let discovery = self
            .crypto
            .as_ref()
            .and_then(|c| c.poll_timeout())
            .map_or(discovery, |t| t.min(discovery));
        Some(parts.into_iter().flatten().fold(discovery, Instant::min))
    }

    /// The next datagram to send, if any. Call until `None` after every input. Every
    /// datagram passes the outbound gate: destinations it refuses are removed, and a datagram
    /// left with none is dropped (`gate.rs`).
    pub fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        loop {
            let mut t = self.next_transmit(now)?;
            // The send transform (`crypto.rs`), before the gate.
            #[cfg(feature = "security")]
            if !self.crypto.as_mut().is_none_or(|c| c.protect(&mut t)) {
                continue;
            }
            if self.gate.admit(now.mono, &mut t) {
                return Some(t);
            }
        }
    }

    /// The next datagram any part wants sent, before the gate.
    fn next_transmit(&mut self, now: Now) -> Option<Transmit> {
        if let Some(t) = self.pending.pop_front() {
            return Some(t);
        }
        #[cfg(feature = "security")]
        if let Some(t) = self.auth.as_mut().and_then(|a| a.poll_transmit()) {
            return Some(t);
        }
        #[cfg(feature = "security")]
        if let Some(t) = self.crypto.as_mut().and_then(|c| c.poll_transmit()) {
            return Some(t);
        }
        if let Some(t) = self.discovery.poll_transmit(now) {
            return Some(t);
        }
        self.endpoints.poll_transmit(now)
    }

    /// The next event for the application.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop()
    }

    // ---- routing ----

    /// Hands one entity submessage to the part it is for. RTPS 2.5 §8.3.7 (each
    /// submessage's "logical interpretation" names the endpoint).
    fn route(&mut self, now: Now, source: Locator, state: &ReceiverState, sm: Submessage<'_>) {
        let src = state.source_guid_prefix;
        self.liveliness
            .on_submessage(now, (src, &sm), &self.endpoints, &mut self.events);
        match sm {
            Submessage::Data(d) if d.writer_id == EntityId::SPDP_PARTICIPANT_ANNOUNCER => {
                self.handle_spdp(now, source, state, &d);
            }
            // DDS-Security 1.1 §7.4.3: the handshake messages, beside SEDP.
            #[cfg(feature = "security")]
            Submessage::Data(d) if d.writer_id == auth::STATELESS_MESSAGE_WRITER => {
                // Only participants discovery remembers (and so caps) get handshake state; an
                // early Request is resent by its initiator.
                let known = self.discovery.remote_participant(src).is_some();
                let Some(a) = self.auth.as_mut().filter(|_| known) else {
                    self.stats.unroutable = self.stats.unroutable.saturating_add(1);
                    return;
                };
                let (understood, outcome) = a.handle_data(now, src, &d);
                self.after_handshake_message(now, understood, outcome);
            }
            #[cfg(feature = "security")]
            Submessage::DataFrag(f) if f.writer_id == auth::STATELESS_MESSAGE_WRITER => {
                let known = self.discovery.remote_participant(src).is_some();
                let Some(a) = self.auth.as_mut().filter(|_| known) else {
                    self.stats.unroutable = self.stats.unroutable.saturating_add(1);
                    return;
                };
                let (understood, outcome) = a.handle_frag(now, src, &f);
                self.after_handshake_message(now, understood, outcome);
            }
            #[cfg(feature = "security")]
            Submessage::Heartbeat(_) | Submessage::Gap(_)
                if sm.writer_id() == Some(auth::STATELESS_MESSAGE_WRITER) =>
            {
                // Best effort: nothing to acknowledge or repair.
            }
            Submessage::Data(_)
            | Submessage::DataFrag(_)
            | Submessage::Heartbeat(_)
            | Submessage::HeartbeatFrag(_)
            | Submessage::Gap(_) => {
                let Some(writer_id) = sm.writer_id() else {
                    return;
                };
                let writer = Guid::new(src, writer_id);
                if let Submessage::Data(d) = &sm {
                    let config = &self.config;
                    self.peer_group
                        .definition(now, (state, d), config, &mut self.discovery);
                }
                // Security hook (handshake endpoints): routed beside the SEDP ones.
                if !self
                    .discovery
                    .handle_from_writer(now, writer, state.timestamp, &sm)
                    && !self.endpoints.deliver(now, writer, state.timestamp, &sm)
                {
                    self.stats.unroutable = self.stats.unroutable.saturating_add(1);
                }
            }
            Submessage::AckNack(a) => {
                let reader = Guid::new(src, a.reader_id);
                if !self.discovery.handle_acknack(now, reader, &a)
                    && !self.endpoints.handle_acknack(now, reader, &a)
                {
                    self.stats.unroutable = self.stats.unroutable.saturating_add(1);
                }
            }
            Submessage::NackFrag(n) => {
                let reader = Guid::new(src, n.reader_id);
                if !self.discovery.handle_nack_frag(now, reader, &n)
                    && !self.endpoints.handle_nack_frag(now, reader, &n)
                {
                    self.stats.unroutable = self.stats.unroutable.saturating_add(1);
                }
            }
            _ => {}
        }
    }

    /// A DATA from a remote SPDP writer. RTPS 2.5 §8.5.3.
    fn handle_spdp(&mut self, now: Now, source: Locator, state: &ReceiverState, d: &Data<'_>) {
        let input = (source, state, d);
        match self
            .discovery
            .handle_spdp(now, input, &self.config, &mut self.stats)
        {
            SpdpOutcome::Nothing => {}
            SpdpOutcome::Leaving(prefix) => self.remove_participant(prefix),
            SpdpOutcome::Updated { prefix, peer_group } => {
                // An intermediary's new generation or eviction notices reach our writers.
                if peer_group {
                    let (config, endpoints) = (&self.config, &mut self.endpoints);
                    self.peer_group
                        .participant_updated(prefix, config, endpoints, &self.discovery);
                }
            }
            SpdpOutcome::Discovered { prefix, reply_to } => {
                self.events.push(Event::ParticipantDiscovered(prefix));
                #[cfg(feature = "security")]
                self.start_auth(now, prefix, reply_to.clone());
                // Answer a new participant at once so it need not wait a whole announce
                // period.
                let t = self.discovery.announce(now, &self.config, Some(reply_to));
                self.pending.extend(t);
            }
        }
    }

    /// A vendor submessage: siftdds's abbreviated sample, restored by the peer-group part,
    /// is routed as the DATA it stands for (docs/peer-group-cache.md §4.2).
    fn handle_abbreviated(
        &mut self,
        now: Now,
        source: Locator,
        state: &ReceiverState,
        vendor: (u8, u8, &[u8]),
    ) {
        let config = &self.config;
        let Some(restored) = self
            .peer_group
            .restore(state, vendor, config, &self.discovery)
        else {
            return;
        };
        restored.with_data(|d| {
            let sm = Submessage::Data(d);
            // As for any DATA: from the host its participant is bound to (`source_bind.rs`).
            if !self
                .discovery
                .source_admits(&source, state.source_guid_prefix, &sm)
            {
                self.stats.foreign_source = self.stats.foreign_source.saturating_add(1);
                return;
            }
            self.route(now, source, state, sm);
        });
    }

    // ---- discovery follow-ups ----

    /// A new participant that announces an identity token: its handshake starts (or waits
    /// for its Request). `Discovery` holds it back from SEDP until [`Self::apply_auth`].
    #[cfg(feature = "security")]
    fn start_auth(&mut self, now: Now, prefix: GuidPrefix, reply_to: Vec<Locator>) {
        let Some(a) = self.auth.as_mut() else {
            return;
        };
        let announces = self
            .discovery
            .remote_participant(prefix)
            .is_some_and(|p| p.identity_token.is_some());
        if !announces {
            return;
        }
        if let Some(outcome) = a.discovered(now, prefix, reply_to) {
            self.apply_auth(now, outcome);
        }
    }

    /// Counts a stateless message we could not use and applies a handshake's outcome.
    #[cfg(feature = "security")]
    fn after_handshake_message(
        &mut self,
        now: Now,
        understood: bool,
        outcome: Option<auth::AuthOutcome>,
    ) {
        if !understood {
            self.stats.bad_handshake_messages = self.stats.bad_handshake_messages.saturating_add(1);
        }
        if let Some(outcome) = outcome {
            self.apply_auth(now, outcome);
        }
    }

    /// A handshake ended: match the participant on SEDP, or report why not.
    #[cfg(feature = "security")]
    fn apply_auth(&mut self, now: Now, outcome: auth::AuthOutcome) {
        match outcome {
            auth::AuthOutcome::Authenticated(prefix, done) => {
                log::info!(
                    "authenticated participant {prefix} ({}, {:?})",
                    done.remote.subject_text(),
                    done.key_agreement
                );
                self.stats.authenticated = self.stats.authenticated.saturating_add(1);
                self.events.push(Event::ParticipantAuthenticated(prefix));
                // DDS-Security 1.1 §8.8.2.1: validate_remote_permissions, then
                // check_remote_participant, before the participant is matched.
                if let Some(a) = self.access.as_mut() {
                    let subject = done.remote.subject_text();
                    if let Err(reason) =
                        a.admit_remote(now, prefix, subject, &done.remote_permissions)
                    {
                        log::warn!(
                            "access control refused participant {prefix} ({subject}): {reason}"
                        );
                        self.deny_access(prefix, None, reason);
                        return;
                    }
                }
                // DDS-Security 1.1 §8.8.4: the key exchange follows the handshake.
                if let Some(c) = self.crypto.as_mut() {
                    let to = self.auth.as_ref().map(|a| a.destinations(prefix));
                    let to = to.unwrap_or_default();
                    if let Err(e) = c.authenticated(now, prefix, &done.secret, to) {
                        log::warn!("no key exchange with participant {prefix}: {e}");
                    }
                }
                self.discovery.admit(now, prefix, &self.config);
                // §7.4.5-6: the secure SEDP and WLP endpoints exchange their tokens too.
                let announced = self
                    .discovery
                    .remote_participant(prefix)
                    .map(|p| p.available_builtin_endpoints.0);
                if let (Some(c), Some(announced)) = (self.crypto.as_mut(), announced) {
                    c.builtin_matched(now, prefix, announced);
                }
            }
            auth::AuthOutcome::Failed(prefix, e) => {
                log::warn!("authentication of participant {prefix} failed: {e}");
                self.stats.authentication_failed =
                    self.stats.authentication_failed.saturating_add(1);
                self.events.push(Event::AuthenticationFailed {
                    participant: prefix,
                    reason: e.to_string(),
                });
            }
        }
    }

    /// Counts and reports an access-control refusal of a remote participant (`endpoint`
    /// `None`) or of one of its endpoints (with its topic).
    #[cfg(feature = "security")]
    fn deny_access(
        &mut self,
        participant: GuidPrefix,
        endpoint: Option<(Guid, &str)>,
        reason: String,
    ) {
        self.stats.access_denied = self.stats.access_denied.saturating_add(1);
        self.events.push(Event::AccessDenied {
            participant,
            endpoint: endpoint.map(|(g, _)| g),
            topic: endpoint.map(|(_, t)| t.to_owned()),
            reason,
        });
    }

    /// Access control for a remote endpoint SEDP announced (check_remote_datawriter /
    /// check_remote_datareader, DDS-Security 1.1 §8.8.5-6): true when it may be matched. A
    /// refusal is logged and reported once per endpoint and reason.
    #[cfg(feature = "security")]
    fn remote_endpoint_allowed(
        &mut self,
        now: Now,
        guid: Guid,
        kind: crate::security::access::Endpoint,
        topic: &str,
        partitions: &[String],
    ) -> bool {
        let Some(a) = self.access.as_mut() else {
            return true;
        };
        let Err(reason) = a.check_remote_endpoint(now, guid, kind, topic, partitions) else {
            a.forget_endpoint(guid);
            return true;
        };
        if a.refused(guid, &reason) {
            log::warn!(
                "access control refused remote endpoint {guid} on topic {topic:?}: {reason}"
            );
            self.deny_access(guid.prefix, Some((guid, topic)), reason);
        }
        false
    }

    /// A remote endpoint is gone: a refusal of it need not be remembered.
    #[allow(unused_variables)]
    fn forget_refusal(&mut self, guid: Guid) {
        #[cfg(feature = "security")]
        if let Some(a) = self.access.as_mut() {
            a.forget_endpoint(guid);
        }
    }

    /// Forgets a remote participant and its endpoints.
    fn remove_participant(&mut self, prefix: GuidPrefix) {
        #[cfg(feature = "security")]
        if let Some(a) = self.auth.as_mut() {
            a.remove(prefix);
        }
        #[cfg(feature = "security")]
        if let Some(a) = self.access.as_mut() {
            a.remove(prefix);
        }
        #[cfg(feature = "security")]
        if let Some(c) = self.crypto.as_mut() {
            c.remove(prefix);
        }
        let Some((writers, readers)) = self.discovery.remove_participant(prefix) else {
            return;
        };
        for w in writers {
            self.remove_remote_writer(w);
        }
        for r in readers {
            self.remove_remote_reader(r);
        }
        self.events.push(Event::ParticipantLost(prefix));
    }

    /// Applies what the SEDP readers received: new, changed and removed remote endpoints.
    fn process_discovery(&mut self, now: Now) {
        while let Some(change) = self
            .discovery
            .poll_remote_change(&self.config, &mut self.stats)
        {
            match change {
                RemoteChange::Writer(data, via) => self.add_remote_writer(now, data, via),
                RemoteChange::Reader(data, via) => self.add_remote_reader(now, data, via),
                RemoteChange::WriterGone(guid) => {
                    self.forget_refusal(guid);
                    self.remove_remote_writer(guid);
                }
                RemoteChange::ReaderGone(guid) => {
                    self.forget_refusal(guid);
                    self.remove_remote_reader(guid);
                }
            }
        }
        self.drain_resolved_types(now);
    }

    /// Reports the remote types the TypeLookup client resolved, and decides again the matches
    /// that waited for them or for a fetch it gave up on (those then match by type name).
    fn drain_resolved_types(&mut self, now: Now) {
        while let Some(id) = self.discovery.poll_resolved_type() {
            self.events.push(Event::RemoteTypeResolved(id.clone()));
            self.reevaluate_type(now, &id);
        }
        while let Some(id) = self.discovery.poll_failed_type() {
            log::warn!("remote type {id:?} could not be fetched: its endpoints match by type name");
            self.reevaluate_type(now, &id);
        }
    }

    /// Decides again every pair of a local endpoint and a remote one announcing `id`.
    fn reevaluate_type(&mut self, now: Now, id: &crate::types::xtypes::TypeIdentifier) {
        let (writers, readers) = self.discovery.endpoints_announcing(id);
        let ours = self.config.guid_prefix;
        for writer in writers {
            for reader in self.endpoints.reader_guids(ours) {
                self.evaluate_match(now, writer, reader);
            }
        }
        for reader in readers {
            for writer in self.endpoints.writer_guids(ours) {
                self.evaluate_match(now, writer, reader);
            }
        }
    }

    /// Decides the types of `writer` and `reader`, one local and one remote
    /// (`matching::decide_types`), under the reader's TYPE_CONSISTENCY_ENFORCEMENT.
    fn type_match(&self, writer: Guid, reader: Guid) -> TypeMatch {
        if writer.prefix == self.config.guid_prefix {
            let Some(w) = self.endpoints.writer(writer) else {
                return TypeMatch::ByName;
            };
            // A remote reader's PID_TYPE_CONSISTENCY is not read: its QoS has the defaults.
            let enforcement = self
                .discovery
                .remote_reader(reader)
                .map(|r| r.qos.type_consistency)
                .unwrap_or_default();
            let spec = &w.spec;
            let local = (
                spec.topic_name.as_str(),
                spec.type_name.as_str(),
                &spec.qos.data_representation,
            );
            self.discovery
                .type_match(local, false, reader, &enforcement)
        } else {
            let Some(r) = self.endpoints.reader(reader) else {
                return TypeMatch::ByName;
            };
            let spec = &r.spec;
            let local = (
                spec.topic_name.as_str(),
                spec.type_name.as_str(),
                &spec.qos.data_representation,
            );
            self.discovery
                .type_match(local, true, writer, &spec.qos.type_consistency)
        }
    }

    fn add_remote_writer(&mut self, now: Now, data: PublicationData, via: Via) {
        let guid = data.guid;
        #[cfg(feature = "security")]
        {
            let (topic, partitions) = (&data.topic_name, &data.partition.names);
            let writer = crate::security::access::Endpoint::Writer;
            if !self.remote_endpoint_allowed(now, guid, writer, topic, partitions) {
                // A writer that was allowed and changed to something refused is unmatched.
                self.remove_remote_writer(guid);
                return;
            }
        }
        if !self
            .discovery
            .insert_remote_writer(data, via, &self.config, &mut self.stats)
        {
            return;
        }
        for reader in self.endpoints.reader_guids(self.config.guid_prefix) {
            self.evaluate_match(now, guid, reader);
        }
        self.peer_group
            .writer_announced(guid, &self.config, &self.discovery);
    }

    fn add_remote_reader(&mut self, now: Now, data: SubscriptionData, via: Via) {
        let guid = data.guid;
        #[cfg(feature = "security")]
        {
            let (topic, partitions) = (&data.topic_name, &data.partition.names);
            let reader = crate::security::access::Endpoint::Reader;
            if !self.remote_endpoint_allowed(now, guid, reader, topic, partitions) {
                self.remove_remote_reader(guid);
                return;
            }
        }
        if !self
            .discovery
            .insert_remote_reader(data, via, &self.config, &mut self.stats)
        {
            return;
        }
        for writer in self.endpoints.writer_guids(self.config.guid_prefix) {
            self.evaluate_match(now, writer, guid);
        }
    }

    fn remove_remote_writer(&mut self, guid: Guid) {
        if !self.discovery.remove_remote_writer(guid) {
            return;
        }
        self.presentation
            .remote_writer_gone(guid.prefix, &mut self.endpoints);
        self.peer_group.writer_gone(guid);
        let readers = self.endpoints.unmatch_remote_writer(guid);
        self.liveliness.forget_remote(guid, &readers);
        for reader in readers {
            self.events.push(Event::SubscriptionMatched {
                reader,
                writer: guid,
                matched: false,
            });
        }
    }

    fn remove_remote_reader(&mut self, guid: Guid) {
        if !self.discovery.remove_remote_reader(guid) {
            return;
        }
        for writer in self.endpoints.unmatch_remote_reader(guid) {
            self.events.push(Event::PublicationMatched {
                writer,
                reader: guid,
                matched: false,
            });
        }
    }

    /// Matches (or unmatches) `writer` and `reader`, one local and one remote
    /// (`Endpoints::evaluate_match`), and lets the other parts follow.
    fn evaluate_match(&mut self, now: Now, writer: Guid, reader: Guid) {
        let mut types = self.type_match(writer, reader);
        if let TypeMatch::Pending(id) = &types {
            // The match waits for the remote type (DDS-XTypes 1.3 §7.6.3.3); a request the
            // client cannot take leaves the type names to decide.
            let remote = match writer.prefix == self.config.guid_prefix {
                true => reader,
                false => writer,
            };
            if !self.discovery.request_type(now, remote.prefix, id.clone()) {
                log::debug!("remote type {id:?} cannot be fetched: {remote} matches by type name");
                types = TypeMatch::ByNameAfterLookupFailed;
            }
        }
        let (config, discovery, events) = (&self.config, &self.discovery, &mut self.events);
        let outcome =
            self.endpoints
                .evaluate_match(now, (writer, reader), types, config, discovery, events);
        // DDS-Security 1.1 §8.8.5-6: a protected endpoint sends the matched one its tokens.
        #[cfg(feature = "security")]
        if let (Some(c), Some(o)) = (self.crypto.as_mut(), &outcome) {
            let ours = self.config.guid_prefix;
            match o {
                MatchOutcome::WriterMatched if writer.prefix == ours => {
                    c.matched(now, writer, reader);
                }
                MatchOutcome::ReaderChanged(true) if reader.prefix == ours => {
                    c.matched(now, reader, writer);
                }
                _ => {}
            }
        }
        match outcome {
            None => {}
            Some(MatchOutcome::WriterMatched) => {
                let endpoints = &mut self.endpoints;
                self.peer_group
                    .matched(writer, reader, config, endpoints, discovery);
            }
            Some(MatchOutcome::ReaderChanged(matched)) => self.liveliness.reader_matched(
                now,
                (writer, reader, matched),
                discovery,
                &self.endpoints,
                events,
            ),
        }
    }

    /// Drains the WLP reader into the liveliness part. RTPS 2.5 §8.4.13.5.
    fn process_liveliness(&mut self, now: Now) {
        while let Some(change) = self.discovery.poll_wlp() {
            let to = (&self.endpoints, &mut self.events, &mut self.stats);
            self.liveliness.handle_wlp(now, &change, to);
        }
    }

    fn collect_data_available(&mut self) {
        for reader in self.endpoints.take_data_available() {
            self.events.push(Event::DataAvailable { reader });
        }
    }

    // ---- SPDP commands ----

    /// Where the periodic SPDP announcements go (multicast group, initial peers).
    pub fn spdp_destinations(&self) -> &[Locator] {
        &self.config.spdp_destinations
    }

    /// Registers the XTypes representation of local type `type_name` (what
    /// `TopicType::type_representation` gives): its endpoints announce PID_TYPE_INFORMATION
    /// and the TypeLookup service serves its TypeObjects. DDS-XTypes 1.3 §7.6.3.
    pub fn register_type(
        &mut self,
        type_name: &str,
        rep: &'static crate::types::xtypes::TypeRepresentation,
    ) {
        self.discovery.register_type(type_name, rep);
    }

    /// Asks the participant of remote writer `writer` for the type it announced in
    /// PID_TYPE_INFORMATION (complete, else minimal) and every type it refers to, through
    /// the TypeLookup service; [`Event::RemoteTypeResolved`] follows when all are known
    /// ([`Participant::remote_types`]). A writer whose PID_TYPE_INFORMATION does not decode
    /// but that sent its TypeObject inline (Fast DDS 2.x, PID_TYPE_OBJECTV1) resolves at once
    /// ([`Participant::remote_endpoint_type_id`]). False when the writer is unknown,
    /// announced no TypeInformation, the client is at a bound, or it gave up on that type
    /// before (no answer after its retries). DDS-XTypes 1.3 §7.6.3.3.
    pub fn request_writer_type(&mut self, now: Now, writer: Guid) -> bool {
        let asked = self.discovery.request_writer_type(now, writer);
        self.drain_resolved_types(now);
        asked
    }

    /// [`Participant::request_writer_type`] for a remote writer or reader: both may announce
    /// PID_TYPE_INFORMATION (DDS-XTypes 1.3 §7.6.2.1), e.g. a router learning a topic's type
    /// from whichever endpoint of it announces one.
    pub fn request_endpoint_type(&mut self, now: Now, endpoint: Guid) -> bool {
        let asked = self.discovery.request_endpoint_type(now, endpoint);
        self.drain_resolved_types(now);
        asked
    }

    /// The TypeIdentifier of the type remote writer or reader `endpoint` announced: from its
    /// PID_TYPE_INFORMATION, else from the TypeObject Fast DDS 2.x sends inline in
    /// PID_TYPE_OBJECTV1, which is then kept among [`Participant::remote_types`]
    /// (`types::xtypes::type_object_v1`). `None` when it announced neither in a form we
    /// decode.
    pub fn remote_endpoint_type_id(
        &mut self,
        endpoint: Guid,
    ) -> Option<crate::types::xtypes::TypeIdentifier> {
        self.discovery.endpoint_type_id(endpoint)
    }

    /// The remote TypeObjects the TypeLookup client resolved, by identifier.
    pub fn remote_types(&self) -> &type_client::TypeRegistry {
        self.discovery.type_registry()
    }

    /// The TypeLookup client's counters.
    pub fn type_client_stats(&self) -> type_client::TypeClientStats {
        self.discovery.type_client_stats()
    }

    /// True when the type a remote endpoint announced (`type_information`, its
    /// PID_TYPE_INFORMATION bytes) was requested and given up on: no answer after the
    /// client's attempts, or none that held it. It is not asked for again.
    pub fn announced_type_given_up(&self, type_information: &[u8]) -> bool {
        Self::announced_type_id(type_information)
            .is_some_and(|id| self.discovery.type_given_up(&id))
    }

    /// The TypeIdentifier to ask for from a writer's serialized PID_TYPE_INFORMATION: the
    /// complete one, else the minimal one.
    pub fn announced_type_id(
        type_information: &[u8],
    ) -> Option<crate::types::xtypes::TypeIdentifier> {
        discovery::wanted_type_id(type_information)
    }

    /// Replaces where the periodic SPDP announcements go, e.g. a router narrowing the
    /// initial peers it probes to the one peer it found there. A newly found participant is
    /// still answered at once (at its own locators). RTPS 2.5 §8.5.3.2.
    pub fn set_spdp_destinations(&mut self, destinations: Vec<Locator>) {
        self.config.spdp_destinations = destinations;
    }

    /// The period of the SPDP announcements from the next one on (RTPS 2.5 §8.5.3.2,
    /// resendPeriod), e.g. a router's link: fast while it probes for its peer, slow once found.
    pub fn set_announce_period(&mut self, period: core::time::Duration) {
        self.config.announce_period = period;
    }

    /// Queues DATA(p\[UD\]): our participant is leaving, so that peers drop us and our
    /// endpoints at once rather than when our lease expires (`Discovery::leave`). RTPS 2.5
    /// §8.5.3.2, §9.6.4.8, §9.6.4.9.
    pub fn leave(&mut self, now: Now) {
        let t = self.discovery.leave(now, &self.config);
        self.pending.extend(t);
    }

    // ---- entity commands ----

    /// DDS-Security 1.1 §9.4.3.1 check_create_participant: whether our permissions let us
    /// join our domain under our governance. `Ok` without access control.
    pub fn check_create_participant(&self, now: Now) -> Result<(), String> {
        #[cfg(feature = "security")]
        if let Some(a) = &self.access {
            return a.check_local_participant(now);
        }
        let _ = now;
        Ok(())
    }

    /// DDS-Security 1.1 §9.4.3.2 check_create_datawriter: whether our permissions let us
    /// create a DataWriter of `topic` in `partitions` (none: the default partition). `Err`
    /// holds the reason; `Ok` without access control. The API calls it before
    /// [`Self::create_writer`].
    pub fn check_create_writer(
        &self,
        now: Now,
        topic: &str,
        partitions: &[String],
    ) -> Result<(), String> {
        self.check_create_endpoint(now, true, topic, partitions)
    }

    /// DDS-Security 1.1 §9.4.3.3 check_create_datareader: [`Self::check_create_writer`] for
    /// a DataReader.
    pub fn check_create_reader(
        &self,
        now: Now,
        topic: &str,
        partitions: &[String],
    ) -> Result<(), String> {
        self.check_create_endpoint(now, false, topic, partitions)
    }

    fn check_create_endpoint(
        &self,
        now: Now,
        writer: bool,
        topic: &str,
        partitions: &[String],
    ) -> Result<(), String> {
        #[cfg(feature = "security")]
        if let Some(a) = &self.access {
            use crate::security::access::Endpoint;
            let kind = if writer {
                Endpoint::Writer
            } else {
                Endpoint::Reader
            };
            return a.check_local_endpoint(now, kind, topic, partitions);
        }
        let _ = (now, writer, topic, partitions);
        Ok(())
    }

    /// Creates a DataWriter and announces it through SEDP. Returns its GUID.
    pub fn create_writer(&mut self, now: Now, spec: WriterSpec) -> Guid {
        self.add_writer(now, spec, false)
    }

    /// Test hook (feature `test-hooks`): [`Participant::create_writer`] for a writer that
    /// sends every sample to every reader it filters for, with that reader's
    /// PID_CONTENT_FILTER_INFO bit inverted (proves peers trust the bit).
    #[cfg(feature = "test-hooks")]
    pub fn create_writer_inverting_filter_bits_for_tests(
        &mut self,
        now: Now,
        spec: WriterSpec,
    ) -> Guid {
        self.add_writer(now, spec, true)
    }

    fn add_writer(&mut self, now: Now, spec: WriterSpec, invert_filter_bits: bool) -> Guid {
        self.discovery.start(now);
        let kind = if spec.keyed {
            EntityId::KIND_WRITER_WITH_KEY
        } else {
            EntityId::KIND_WRITER_NO_KEY
        };
        let guid = Guid::new(self.config.guid_prefix, self.endpoints.next_entity_id(kind));
        self.insert_writer(now, guid, spec, invert_filter_bits, BTreeSet::new());
        guid
    }

    /// Creates the writer `guid` (its entity id already allocated), announces and matches
    /// it; `served` readers are not sent its history.
    fn insert_writer(
        &mut self,
        now: Now,
        guid: Guid,
        spec: WriterSpec,
        invert_filter_bits: bool,
        served: BTreeSet<Guid>,
    ) {
        let liveliness = spec.qos.liveliness;
        #[cfg(feature = "security")]
        let overhead = self
            .crypto
            .as_ref()
            .map(|c| c.send_overhead(&spec.topic_name));
        let config = &self.config;
        self.endpoints
            .insert_writer(guid, spec, invert_filter_bits, served, config);
        #[cfg(feature = "security")]
        if let (Some((per_submessage, per_message)), Some(w)) =
            (overhead, self.endpoints.writer_mut(guid))
        {
            w.writer
                .set_protection_overhead(per_submessage, per_message);
        }
        // A TRANSIENT or PERSISTENT writer takes over from its topic's service writer.
        if let Some(service) = self
            .durability
            .writer_created(now, guid, &mut self.endpoints)
        {
            self.discovery.unannounce_writer(now, service);
        }
        self.liveliness.writer_created(now, guid, liveliness);
        let endpoints = &mut self.endpoints;
        self.peer_group
            .sync_writer(guid, &self.config, endpoints, &self.discovery);
        self.announce_writer(now, guid);
        for reader in self.discovery.remote_reader_guids() {
            self.evaluate_match(now, guid, reader);
        }
    }

    /// Creates a DataReader and announces it through SEDP. Returns its GUID.
    pub fn create_reader(&mut self, now: Now, spec: ReaderSpec) -> Guid {
        self.discovery.start(now);
        let kind = if spec.keyed {
            EntityId::KIND_READER_WITH_KEY
        } else {
            EntityId::KIND_READER_NO_KEY
        };
        let guid = Guid::new(self.config.guid_prefix, self.endpoints.next_entity_id(kind));
        self.endpoints.insert_reader(guid, spec);
        #[cfg_attr(not(feature = "security"), allow(unused_mut))]
        if let Some(mut data) = self.endpoints.subscription_data(guid, &self.config) {
            // DDS-Security 1.1 §7.4.1.5: the endpoint's protection, its key material created.
            #[cfg(feature = "security")]
            if let Some(c) = self.crypto.as_mut() {
                data.endpoint.security_info =
                    c.local_endpoint(guid.entity_id, &data.endpoint.topic_name, false);
            }
            self.discovery.announce_reader(now, &data);
        }
        for writer in self.discovery.remote_writer_guids() {
            self.evaluate_match(now, writer, guid);
        }
        guid
    }

    /// Announces (SEDP) one of our writers, with its writer group.
    fn announce_writer(&mut self, now: Now, guid: Guid) {
        let prefix = self.config.guid_prefix;
        let group = self.presentation.writer_group_guid(prefix, guid.entity_id);
        #[cfg_attr(not(feature = "security"), allow(unused_mut))]
        if let Some(mut data) = self.endpoints.publication_data(guid, &self.config, group) {
            // DDS-Security 1.1 §7.4.1.5: the endpoint's protection, its key material created.
            #[cfg(feature = "security")]
            if let Some(c) = self.crypto.as_mut() {
                data.endpoint.security_info =
                    c.local_endpoint(guid.entity_id, &data.endpoint.topic_name, true);
            }
            self.discovery.announce_writer(now, &data);
        }
    }

    /// Deletes a writer: unannounces it (SEDP dispose) and forgets it; the last TRANSIENT or
    /// PERSISTENT writer of a topic leaves a service writer behind (`durability.rs`).
    pub fn delete_writer(&mut self, now: Now, writer: Guid) {
        let Some(w) = self.endpoints.remove_writer(writer) else {
            return;
        };
        #[cfg(feature = "security")]
        if let Some(c) = self.crypto.as_mut() {
            c.forget_local(writer.entity_id);
        }
        self.discovery.unannounce_writer(now, writer);
        if let Some((guid, spec, served)) = self.durability.writer_deleted(w, &mut self.endpoints) {
            self.insert_writer(now, guid, spec, false, served);
        }
    }

    /// Deletes a reader: unannounces it (SEDP dispose) and forgets it.
    pub fn delete_reader(&mut self, now: Now, reader: Guid) {
        if self.endpoints.remove_reader(reader) {
            self.discovery.unannounce_reader(now, reader);
            self.liveliness.forget_reader(reader);
        }
        #[cfg(feature = "security")]
        if let Some(c) = self.crypto.as_mut() {
            c.forget_local(reader.entity_id);
        }
    }

    /// Hands `request` (a serialized sample or an instance change) to the local writer
    /// `writer`.
    pub fn write(
        &mut self,
        now: Now,
        writer: Guid,
        mut request: WriteRequest,
    ) -> Result<SequenceNumber, WriteError> {
        // RTPS 2.5 §8.7.6: a grouped writer's change carries its group SN (`group.rs`).
        request.group = self.presentation.stamp(writer.entity_id);
        let grouped = request.group.is_some();
        let durable = match self.endpoints.writer(writer) {
            Some(w) => w.spec.qos.durability >= DurabilityKind::Transient,
            None => return Err(WriteError::UnknownWriter),
        };
        let sn = if durable {
            // TRANSIENT and PERSISTENT writes also enter the durable history.
            let sn = self.endpoints.write(now, writer, request.clone())?;
            self.durability
                .written(now, writer, &request, &self.endpoints);
            sn
        } else {
            self.endpoints.write(now, writer, request)?
        };
        if grouped {
            self.presentation
                .written(writer.entity_id, &mut self.endpoints);
        }
        // Writing asserts the writer's liveliness (DDS 1.4 §2.2.3.11).
        self.liveliness.writer_wrote(now, writer);
        Ok(sn)
    }

    /// Writer-side content-filtering figures of a local writer.
    pub fn writer_filter_stats(&self, writer: Guid) -> Option<WriterFilterStats> {
        self.endpoints
            .writer(writer)
            .map(|w| w.writer.filter_stats())
    }

    /// A local writer's counters: first transmissions, repairs, heartbeats, ACKNACKs.
    pub fn writer_counters(&self, writer: Guid) -> Option<WriterCounters> {
        self.endpoints.writer(writer).map(|w| w.writer.counters())
    }

    /// A local reader's counters (content-filter decisions included).
    pub fn reader_counters(&self, reader: Guid) -> Option<crate::core::reader::ReaderCounters> {
        self.endpoints.reader(reader).map(|r| *r.reader.counters())
    }

    /// Lower bounds on how many more changes, and payload bytes in all, a local writer
    /// accepts without [`WriteError::HistoryFull`] (none for an unknown writer).
    pub fn writer_room(&self, writer: Guid) -> (usize, usize) {
        self.endpoints
            .writer(writer)
            .map_or((0, 0), |w| w.writer.room())
    }

    /// The payloads a local writer's history removed since the last call, for the caller to
    /// drop (free) off the event loop's thread.
    pub fn take_released(&mut self, writer: Guid) -> Vec<bytes::Bytes> {
        self.endpoints
            .writer_mut(writer)
            .map(|w| w.writer.take_released())
            .unwrap_or_default()
    }

    /// True when every reliable matched reader acknowledged everything written.
    pub fn all_acked(&self, writer: Guid) -> bool {
        self.endpoints
            .writer(writer)
            .is_none_or(|w| w.writer.all_acked())
    }

    /// Number of readers matched with a local writer.
    pub fn matched_readers(&self, writer: Guid) -> usize {
        self.endpoints
            .writer(writer)
            .map_or(0, |w| w.writer.matched_readers())
    }

    /// True when a local reader has samples to take.
    pub fn has_samples(&self, reader: Guid) -> bool {
        self.endpoints
            .reader(reader)
            .is_some_and(|r| r.reader.samples_queued() > 0)
    }

    /// A local reader's matched writers with the highest SN each announced (HEARTBEAT
    /// lastSN) or sent ([`crate::core::reader::Reader::writers_last_sn`]); empty for an
    /// unknown reader.
    pub fn reader_writers_last_sn(&self, reader: Guid) -> Vec<(Guid, SequenceNumber)> {
        self.endpoints
            .reader(reader)
            .map_or_else(Vec::new, |r| r.reader.writers_last_sn())
    }

    /// Number of remote writers matched with a local reader.
    pub fn matched_writers(&self, reader: Guid) -> usize {
        let Some(r) = self.endpoints.reader(reader) else {
            return 0;
        };
        self.discovery
            .remote_writers()
            .filter(|w| r.reader.is_matched(w.guid))
            .count()
    }

    /// Takes (removes) the next received sample or instance change from a local reader,
    /// read or not; samples whose lifespan ended are dropped. DDS 1.4 §2.2.2.5.3.9.
    pub fn take(&mut self, now: Now, reader: Guid) -> Option<CacheChange> {
        self.endpoints.reader_mut(reader)?.reader.take(now)
    }

    /// Takes every sample of a local reader into `out`; `None` when the reader does not exist.
    pub fn take_all(
        &mut self,
        now: Now,
        reader: Guid,
        out: &mut Vec<CacheChange>,
    ) -> Option<usize> {
        Some(self.endpoints.reader_mut(reader)?.reader.take_all(now, out))
    }

    /// Reads (`take` false) or takes the samples of a local reader that `selection` asks
    /// for, each with its SampleInfo; empty for an unknown reader. DDS 1.4 §2.2.2.5.3.8-17.
    pub fn select(
        &mut self,
        now: Now,
        reader: Guid,
        selection: &crate::core::reader::ReadSelection,
        take: bool,
    ) -> Vec<(CacheChange, crate::core::reader::SampleInfo)> {
        self.endpoints
            .reader_mut(reader)
            .map_or_else(Vec::new, |r| r.reader.select(now, selection, take))
    }

    /// True if the local reader `reader` exists.
    pub fn has_reader(&self, reader: Guid) -> bool {
        self.endpoints.reader(reader).is_some()
    }

    /// True if a local reader knows the instance `handle` (DDS 1.4 §2.2.2.5.3.33).
    pub fn reader_has_instance(
        &self,
        reader: Guid,
        handle: crate::core::reader::InstanceHandle,
    ) -> bool {
        self.endpoints
            .reader(reader)
            .is_some_and(|r| r.reader.has_instance(handle))
    }

    /// True if a local reader holds a sample `selection` asks for (a ReadCondition's trigger
    /// value, DDS 1.4 §2.2.2.5.8).
    pub fn any_selected(
        &self,
        now: Now,
        reader: Guid,
        selection: &crate::core::reader::ReadSelection,
    ) -> bool {
        self.endpoints
            .reader(reader)
            .is_some_and(|r| r.reader.any_selected(now, selection))
    }

    /// True when a local reader has samples `read` has not returned yet.
    pub fn has_unread(&self, reader: Guid) -> bool {
        self.endpoints
            .reader(reader)
            .is_some_and(|r| r.reader.samples_unread() > 0)
    }

    /// OFFERED_DEADLINE_MISSED status of a local writer. DDS 1.4 §2.2.4.1.
    pub fn offered_deadline_missed(&self, writer: Guid) -> Option<DeadlineMissedStatus> {
        self.endpoints
            .writer(writer)
            .map(|w| w.writer.deadline_status())
    }

    /// REQUESTED_DEADLINE_MISSED status of a local reader. DDS 1.4 §2.2.4.1.
    pub fn requested_deadline_missed(&self, reader: Guid) -> Option<DeadlineMissedStatus> {
        self.endpoints
            .reader(reader)
            .map(|r| r.reader.deadline_status())
    }

    /// LIVELINESS_CHANGED status of a local reader (`None` for an unknown reader); the
    /// change counts are relative to the last [`Participant::take_liveliness_changed`].
    /// DDS 1.4 §2.2.4.1.
    pub fn liveliness_changed(&self, reader: Guid) -> Option<LivelinessChangedStatus> {
        let r = self.endpoints.reader(reader)?;
        let matched = self
            .discovery
            .remote_writers()
            .filter(|w| r.reader.is_matched(w.guid))
            .map(|w| w.guid);
        Some(self.liveliness.reader_status(reader, matched))
    }

    /// [`Participant::liveliness_changed`], and its counts now become the base of the next
    /// change counts (reading the status, DDS 1.4 §2.2.2.5.3.25).
    pub fn take_liveliness_changed(&mut self, reader: Guid) -> Option<LivelinessChangedStatus> {
        let status = self.liveliness_changed(reader)?;
        self.liveliness.status_taken(reader, &status);
        Some(status)
    }

    // ---- liveliness commands (`liveliness.rs`) ----

    /// Asserts the liveliness of every MANUAL_BY_PARTICIPANT writer of this participant and
    /// sends a WLP MANUAL_LIVELINESS_UPDATE. DDS 1.4 §2.2.2.2.1.27 (assert_liveliness);
    /// RTPS 2.5 §8.4.13.5.
    pub fn assert_liveliness(&mut self, now: Now) {
        self.discovery.start(now);
        self.liveliness.assert_participant(now);
        let m = ParticipantMessageData::manual(self.config.guid_prefix);
        self.discovery.write_wlp(now, m);
    }

    /// Asserts one writer's liveliness (DataWriter::assert_liveliness, DDS 1.4 §2.2.2.4.2.22):
    /// MANUAL_BY_TOPIC sends a HEARTBEAT with the L flag to its readers, MANUAL_BY_PARTICIPANT
    /// asserts the participant, AUTOMATIC needs nothing. False for an unknown writer.
    pub fn assert_writer_liveliness(&mut self, now: Now, writer: Guid) -> bool {
        let Some(w) = self.endpoints.writer_mut(writer) else {
            return false;
        };
        match w.spec.qos.liveliness.kind {
            LivelinessKind::Automatic => {}
            LivelinessKind::ManualByParticipant => self.assert_liveliness(now),
            LivelinessKind::ManualByTopic => {
                if let Some(t) = w.writer.liveliness_heartbeat() {
                    self.pending.push_back(t);
                }
                self.liveliness.writer_wrote(now, writer);
            }
        }
        true
    }

    // ---- durability commands (`durability.rs`) ----

    /// Hands the participant what the runtime loaded from its store for a PERSISTENT topic,
    /// before its first writer is created. Ignored when the topic already has a durable
    /// history here (it is at least as new as the store). Samples trimmed to the writers'
    /// DURABILITY_SERVICE limits become [`StoreAction::Remove`]s.
    pub fn restore_persistent(
        &mut self,
        topic: &str,
        type_name: &str,
        limits: crate::qos::DurabilityService,
        samples: Vec<DurableSample>,
    ) {
        self.durability
            .restore_persistent(topic, type_name, limits, samples);
    }

    /// Takes the store actions queued for PERSISTENT topics, oldest first.
    pub fn take_store_actions(&mut self) -> Vec<StoreAction> {
        self.durability.take_store_actions()
    }

    /// The service writer serving `topic`'s durable history while no application writer of
    /// it exists, if there is one.
    pub fn durability_service_writer(&self, topic: &str) -> Option<Guid> {
        let id = self.durability.service_writer(topic)?;
        Some(Guid::new(self.config.guid_prefix, id))
    }

    /// Number of samples the durability service keeps for `topic`.
    pub fn durable_samples(&self, topic: &str) -> usize {
        self.durability.samples(topic)
    }

    // ---- presentation commands (`presentation.rs`) ----

    /// Puts `writers` (local writers of one publisher, in creation order) into one writer
    /// group, named by the first one, with or without group coherent sets: from now on each of
    /// their changes carries a group sequence number (RTPS 2.5 §8.7.6). Called by the API for a
    /// publisher with PRESENTATION access scope GROUP and coherent or ordered access, each time
    /// it gains a writer. Unknown writers and those past `group::MAX_GROUP_WRITERS` are left
    /// out.
    pub fn join_writer_group(&mut self, now: Now, writers: &[Guid], coherent: bool) {
        let joined = self
            .presentation
            .join_writer_group(writers, coherent, &self.endpoints);
        // Its DATA(w) now names its group (PID_GROUP_GUID): announce it again.
        for guid in joined {
            self.announce_writer(now, guid);
        }
    }

    /// The group GUID (PID_GROUP_GUID: the publisher) of local writer `writer`, if grouped:
    /// our prefix with the group's key and entity kind 0x08 (user-defined writer group, RTPS
    /// 2.5 Table 9.1).
    pub fn writer_group_guid(&self, writer: EntityId) -> Option<Guid> {
        self.presentation
            .writer_group_guid(self.config.guid_prefix, writer)
    }

    /// Starts (or nests) a coherent set on each of `writers` (unknown ones are skipped: a
    /// deleted writer has nothing left to make coherent).
    pub fn begin_coherent_changes(&mut self, writers: &[Guid]) {
        self.presentation
            .begin_coherent_changes(writers, &mut self.endpoints);
    }

    /// Ends the coherent set of each of `writers`: each writes its end-of-set marker. The
    /// first error is returned after every writer was ended.
    pub fn end_coherent_changes(&mut self, now: Now, writers: &[Guid]) -> Result<(), WriteError> {
        let endpoints = &mut self.endpoints;
        let (result, out) = self
            .presentation
            .end_coherent_changes(now, writers, endpoints);
        // `pending` goes out first, through the outbound gate like everything else.
        self.pending.extend(out);
        result
    }

    // ---- peer-group commands (`peer_group.rs`) ----

    /// Replaces the configured peer groups (a writer leaves its group when its rule goes).
    /// Our SPDP is re-announced at the next timeout when our capability changed.
    ///
    /// Errors: a group's configuration is invalid ([`PeerGroupConfig::validate`]) or two
    /// groups share a wire id.
    pub fn set_peer_groups(&mut self, groups: Vec<PeerGroupConfig>) -> Result<(), PeerGroupError> {
        self.peer_group
            .set_groups(groups, &mut self.config, &mut self.discovery)?;
        for w in self.endpoints.writer_guids(self.config.guid_prefix) {
            let endpoints = &mut self.endpoints;
            self.peer_group
                .sync_writer(w, &self.config, endpoints, &self.discovery);
        }
        Ok(())
    }

    /// The peer-group counters.
    pub fn peer_group_stats(&self) -> PeerGroupStats {
        self.peer_group.stats(&self.endpoints)
    }
}

/// Must-understand inline QoS we understand: every PID in our table (e.g. PID_DOMAIN_TAG).
fn understood(pid: u16) -> bool {
    describe(pid, VendorId::UNKNOWN).is_some()
}
