//! The DomainParticipant's protocol engine: one sans-IO struct owning SPDP, the SEDP builtin
//! endpoints, and every local writer and reader, routing received submessages to them and
//! collecting what they want to send.
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
//! [`Participant::poll_event`]. SPDP lives in `spdp.rs`, SEDP in `sedp.rs`, matching in
//! `matching.rs`, local user endpoints in `endpoints.rs`, the Writer Liveliness Protocol in
//! `liveliness.rs`.

mod coherent;
mod durability;
#[cfg(test)]
mod durability_tests;
mod endpoints;
#[cfg(test)]
mod filter_event_tests;
mod gate;
mod group;
mod group_sets;
mod liveliness;
pub mod locator_select;
mod matching;
mod pgcache;
#[cfg(test)]
mod pgcache_fault_tests;
#[cfg(test)]
mod pgcache_tests;
mod sedp;
pub mod source_bind;
#[cfg(test)]
mod source_tests;
mod spdp;
#[cfg(test)]
mod stuck_reader_tests;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, VecDeque};

pub use endpoints::{ReaderSpec, WriterSpec};
pub use gate::{
    GateConfig, GateStats, MAX_TRACKED_HOSTS, UNVERIFIED_BUDGET_WINDOW, UNVERIFIED_BYTE_BUDGET,
    UNVERIFIED_DATAGRAM_BUDGET,
};
pub use liveliness::{
    AUTOMATIC_LIVELINESS_UPDATE, MANUAL_LIVELINESS_UPDATE, MAX_PARTICIPANT_MESSAGE_DATA,
    MIN_AUTOMATIC_PERIOD, ParticipantMessageData,
};
pub use pgcache::{MAX_CACHES, PeerGroupStats};

use crate::core::discovery::{ParticipantProxyData, PublicationData, SubscriptionData};
use crate::core::receiver::{self, ReceiverState};
use crate::core::{Event, Transmit};
use crate::time::{Instant, Now};
use crate::wire::plist::describe;
use crate::wire::submessage::Submessage;
use crate::wire::{EntityId, Guid, GuidPrefix, Locator, VendorId};

use endpoints::{LocalReader, LocalWriter};
use gate::OutboundGate;
use sedp::Builtin;
use spdp::RemoteParticipant;

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
    pub peer_groups: Vec<crate::core::pgcache::config::PeerGroupConfig>,
    /// Peer-group cooperation (docs/peer-group-cache.md §4.3): as intermediary, keep the
    /// entries members announce (SEDP PID 0x8102); as member, forget the keys an
    /// intermediary's SPDP announces evicted (PID 0x8103). Default true; false gives the
    /// plain LRU and NACK-driven behaviour (for measurements, `pgcache_fault_tests`).
    pub peer_group_cooperation: bool,
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
        }
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
}

/// The protocol state of one DomainParticipant.
pub struct Participant {
    config: ParticipantConfig,
    local_data: ParticipantProxyData,
    /// SPDP announcement sequence number (incremented when our data changes).
    spdp_sn: i64,
    next_announce: Instant,
    remote_participants: BTreeMap<GuidPrefix, RemoteParticipant>,
    builtin: Builtin,
    writers: BTreeMap<EntityId, LocalWriter>,
    readers: BTreeMap<EntityId, LocalReader>,
    remote_writers: BTreeMap<Guid, PublicationData>,
    remote_readers: BTreeMap<Guid, SubscriptionData>,
    liveliness: liveliness::LivelinessState,
    next_entity_key: u32,
    pending: VecDeque<Transmit>,
    gate: OutboundGate,
    events: VecDeque<Event>,
    stats: ParticipantStats,
    started: bool,
    durability: durability::DurabilityState,
    /// Writer groups (GROUP access scope publishers), `group.rs`.
    groups: group::WriterGroups,
    /// Group coherent sets under assembly (subscriber side), `group_sets.rs`.
    group_sets: group_sets::GroupSets,
    /// The peer-group caches of an intermediary (`pgcache.rs`).
    pgcache: pgcache::PgState,
}

/// Most events queued before the oldest are dropped (an application that never polls).
const MAX_QUEUED_EVENTS: usize = 4096;

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
        let local_data = spdp::local_participant_data(&config);
        let builtin = Builtin::new(config.guid_prefix);
        let gate = OutboundGate::new(config.gate.clone(), &config.spdp_destinations);
        Participant {
            local_data,
            spdp_sn: 1,
            next_announce: Instant::ZERO,
            remote_participants: BTreeMap::new(),
            builtin,
            writers: BTreeMap::new(),
            readers: BTreeMap::new(),
            remote_writers: BTreeMap::new(),
            remote_readers: BTreeMap::new(),
            liveliness: liveliness::LivelinessState::default(),
            next_entity_key: 1,
            pending: VecDeque::new(),
            gate,
            events: VecDeque::new(),
            stats: ParticipantStats::default(),
            started: false,
            durability: durability::DurabilityState::default(),
            groups: group::WriterGroups::default(),
            group_sets: group_sets::GroupSets::default(),
            pgcache: pgcache::PgState::default(),
            config,
        }
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
            ..self.stats
        }
    }

    /// Remote participants currently alive.
    pub fn remote_participants(&self) -> impl Iterator<Item = &ParticipantProxyData> {
        self.remote_participants.values().map(|p| &p.data)
    }

    /// Remote writers currently known through SEDP (what `siftdds ls` lists and a router learns its routes from).
    pub fn remote_writers(&self) -> impl Iterator<Item = &PublicationData> {
        self.remote_writers.values()
    }

    /// Remote readers currently known through SEDP, with their announced content filters
    /// (what `siftdds ls` lists and a router learns its routes from).
    pub fn remote_readers(&self) -> impl Iterator<Item = &SubscriptionData> {
        self.remote_readers.values()
    }

    /// Handles one received datagram. Never fails: bad input is counted in [`Self::stats`].
    pub fn handle_datagram(&mut self, now: Now, source: Locator, datagram: &[u8]) {
        self.start(now);
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
        // The source participant whose lease was renewed for this datagram (it changes only
        // with INFO_SRC): once per datagram and source, not per submessage.
        let mut renewed: Option<GuidPrefix> = None;
        let outcome = receiver::receive_items(datagram, our_prefix, understood, |state, item| {
            let src = state.source_guid_prefix;
            if src == our_prefix {
                return;
            }
            let sm = match item {
                receiver::Item::Entity(sm) => sm,
                // docs/peer-group-cache.md §4.2: an abbreviated sample (siftdds only).
                receiver::Item::Vendor { id, flags, body } => {
                    self.pgcache_vendor(now, source, state, (id, flags, body));
                    return;
                }
            };
            // A submessage that claims a known participant from a host it is not bound to is
            // dropped before it renews anything (`source_bind.rs`).
            if !self.source_admits(&source, src, &sm) {
                self.stats.foreign_source = self.stats.foreign_source.saturating_add(1);
                log::debug!("dropped a submessage claiming {src} from {source:?}: not bound");
                return;
            }
            if renewed != Some(src) {
                renewed = Some(src);
                self.renew_lease(now, src);
                self.liveliness_from_participant(now, src);
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
        self.assemble_group_sets(now);
        self.collect_data_available();
    }

    /// Runs every timer that is due.
    pub fn handle_timeout(&mut self, now: Now) {
        self.start(now);
        if now.mono >= self.next_announce {
            self.announce(now, None);
            self.next_announce = now.mono.saturating_add(self.config.announce_period);
        }
        self.expire_leases(now);
        self.liveliness_timeout(now);
        self.builtin.handle_timeout(now);
        for w in self.writers.values_mut() {
            w.writer.handle_timeout(now);
        }
        self.pgcache_reannounce(now);
        for r in self.readers.values_mut() {
            r.reader.handle_timeout(now);
        }
        self.process_discovery(now);
        // Missed deadlines, and NOT_ALIVE_NO_WRITERS after a lease expiry.
        self.collect_deadline_events();
        self.assemble_group_sets(now);
        self.collect_data_available();
    }

    /// The earliest instant at which [`Self::handle_timeout`] has work.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let mut t = if self.started {
            self.next_announce
        } else {
            Instant::ZERO
        };
        let mut consider = |x: Option<Instant>| {
            if let Some(x) = x {
                t = t.min(x);
            }
        };
        for p in self.remote_participants.values() {
            consider(Some(p.lease_expires));
        }
        consider(self.builtin.poll_timeout());
        consider(self.liveliness.poll_timeout());
        consider(self.pgcache_poll_timeout());
        for w in self.writers.values() {
            consider(w.writer.poll_timeout());
        }
        for r in self.readers.values() {
            consider(r.reader.poll_timeout());
        }
        Some(t)
    }

    /// The next datagram to send, if any. Call until `None` after every input. Every
    /// datagram passes the outbound gate: destinations it refuses are removed, and a datagram
    /// left with none is dropped (`gate.rs`).
    pub fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        loop {
            let mut t = self.next_transmit(now)?;
            if self.gate.admit(now.mono, &mut t) {
                return Some(t);
            }
        }
    }

    /// The next datagram any endpoint wants sent, before the gate.
    fn next_transmit(&mut self, now: Now) -> Option<Transmit> {
        if let Some(t) = self.pending.pop_front() {
            return Some(t);
        }
        if let Some(t) = self.builtin.poll_transmit(now) {
            return Some(t);
        }
        for w in self.writers.values_mut() {
            if let Some(t) = w.writer.poll_transmit(now) {
                return Some(t);
            }
        }
        for r in self.readers.values_mut() {
            if let Some(t) = r.reader.poll_transmit(now) {
                return Some(t);
            }
        }
        None
    }

    /// The next event for the application.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    fn push_event(&mut self, e: Event) {
        if self.events.len() >= MAX_QUEUED_EVENTS {
            self.events.pop_front();
        }
        self.events.push_back(e);
    }

    fn start(&mut self, now: Now) {
        if !self.started {
            self.started = true;
            self.next_announce = now.mono;
        }
    }

    fn next_entity_id(&mut self, kind: u8) -> EntityId {
        let key = self.next_entity_key;
        self.next_entity_key = self.next_entity_key.wrapping_add(1);
        let [_, a, b, c] = key.to_be_bytes();
        EntityId([a, b, c, kind])
    }

    /// Hands one entity submessage to the endpoint it is for. RTPS 2.5 §8.3.7 (each
    /// submessage's "logical interpretation" names the endpoint).
    fn route(&mut self, now: Now, source: Locator, state: &ReceiverState, sm: Submessage<'_>) {
        let src = state.source_guid_prefix;
        self.liveliness_on_submessage(now, src, &sm);
        match sm {
            Submessage::Data(d) if d.writer_id == EntityId::SPDP_PARTICIPANT_ANNOUNCER => {
                self.handle_spdp(now, source, state, &d);
            }
            Submessage::Data(_)
            | Submessage::DataFrag(_)
            | Submessage::Heartbeat(_)
            | Submessage::HeartbeatFrag(_)
            | Submessage::Gap(_) => {
                let writer_id = match &sm {
                    Submessage::Data(d) => d.writer_id,
                    Submessage::DataFrag(d) => d.writer_id,
                    Submessage::Heartbeat(h) => h.writer_id,
                    Submessage::HeartbeatFrag(h) => h.writer_id,
                    Submessage::Gap(g) => g.writer_id,
                    _ => return,
                };
                let writer = Guid::new(src, writer_id);
                if let Submessage::Data(d) = &sm {
                    self.pgcache_definition(now, state, d);
                }
                if !self
                    .builtin
                    .handle_from_writer(now, writer, state.timestamp, &sm)
                    && !self.deliver_to_readers(now, writer, state, &sm)
                {
                    self.stats.unroutable = self.stats.unroutable.saturating_add(1);
                }
            }
            Submessage::AckNack(a) => {
                let reader = Guid::new(src, a.reader_id);
                if !self.builtin.handle_acknack(now, reader, &a) {
                    match self.writers.get_mut(&a.writer_id) {
                        Some(w) => w.writer.handle_acknack(now, reader, &a),
                        None => self.stats.unroutable = self.stats.unroutable.saturating_add(1),
                    }
                }
            }
            Submessage::NackFrag(n) => {
                let reader = Guid::new(src, n.reader_id);
                if !self.builtin.handle_nack_frag(now, reader, &n) {
                    match self.writers.get_mut(&n.writer_id) {
                        Some(w) => w.writer.handle_nack_frag(now, reader, &n),
                        None => self.stats.unroutable = self.stats.unroutable.saturating_add(1),
                    }
                }
            }
            _ => {}
        }
    }

    /// Gives a writer's submessage to every local reader matched with that writer (or only
    /// to the addressed one). Returns false when no reader took it.
    fn deliver_to_readers(
        &mut self,
        now: Now,
        writer: Guid,
        state: &ReceiverState,
        sm: &Submessage<'_>,
    ) -> bool {
        let reader_id = match sm {
            Submessage::Data(d) => d.reader_id,
            Submessage::DataFrag(d) => d.reader_id,
            Submessage::Heartbeat(h) => h.reader_id,
            Submessage::HeartbeatFrag(h) => h.reader_id,
            Submessage::Gap(g) => g.reader_id,
            _ => return false,
        };
        let mut taken = false;
        for (id, r) in self.readers.iter_mut() {
            if (reader_id != EntityId::UNKNOWN && *id != reader_id) || !r.reader.is_matched(writer)
            {
                continue;
            }
            taken = true;
            r.handle_from_writer(now, writer, state.timestamp, sm);
        }
        taken
    }

    fn collect_data_available(&mut self) {
        let ready: Vec<Guid> = self
            .readers
            .values_mut()
            .filter_map(|r| r.take_data_available().then(|| r.reader.guid()))
            .collect();
        for reader in ready {
            self.push_event(Event::DataAvailable { reader });
        }
    }
}

/// Must-understand inline QoS we understand: every PID in our table (e.g. PID_DOMAIN_TAG).
fn understood(pid: u16) -> bool {
    describe(pid, VendorId::UNKNOWN).is_some()
}
