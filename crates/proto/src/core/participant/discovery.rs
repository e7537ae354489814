//! Discovery ([`Discovery`]): SPDP (announcing our participant, learning remote ones,
//! expiring their leases) and the SEDP builtin endpoints (`sedp.rs`) with the remote writers
//! and readers they announce. RTPS 2.5 §8.5.3 (SPDP), §9.6.2.1
//! (SPDPdiscoveredParticipantData), §8.5.4 (SEDP).
//!
//! Owns: our SPDP data and sequence number, the announce timer, the remote participants
//! (their leases and source bindings), the builtin endpoints, and the remote endpoints.
//! Produces: outcomes the participant acts on ([`SpdpOutcome`], [`RemoteChange`]); matching
//! remote endpoints with local ones is the endpoints part's (`endpoints.rs`).
//!
//! Must not: perform I/O; remember more than `ParticipantConfig::max_remote_participants`
//! participants or `ParticipantConfig::max_remote_endpoints` endpoints; answer a participant
//! that only claims an address with more than one reply per new participant (and the
//! outbound gate, `gate.rs`, bounds what an unverified address gets); take from the plain SEDP
//! readers an endpoint of a topic our governance discovery-protects, or change or dispose one
//! learned on the secure ones ([`announcement_admitted`], DDS-Security 1.1 §7.4.5).

use std::collections::{BTreeMap, BTreeSet};

use super::locator_select::{on_this_host, select_unicast};
use super::matching::{LocalType, RemoteType, TypeMatch, decide_types};
use super::sedp::Builtin;
use super::source_bind::{SourceBinding, SourceVerdict, local_hosts};
use super::type_client::{TypeClientStats, TypeLookupClient, TypeRegistry};
use super::type_lookup::{LocalTypes, TypeLookupServer};
use super::{ParticipantConfig, ParticipantStats};
use crate::cdr::{CdrReader, CdrWriter, Endianness};
use crate::core::discovery::{
    BuiltinEndpointSet, ParticipantMessageData, ParticipantProxyData, PublicationData,
    SubscriptionData,
};
use crate::core::receiver::ReceiverState;
use crate::core::{CacheChange, ChangeKind, Transmit};
use crate::time::{Instant, Now, Timestamp};
use crate::types::xtypes::{TypeIdentifier, TypeInformation};
use crate::wire::plist::pid::{PID_KEY_HASH, PID_STATUS_INFO};
use crate::wire::plist::{Parameter, ParameterListView, Value, emit_parameter_list};
use crate::wire::submessage::{AckNack, Data, DataPayload, InfoTs, NackFrag, Submessage};
use crate::wire::{EntityId, Guid, GuidPrefix, Header, Locator, SequenceNumber, emit_message};

/// A participant we heard from, and when its lease runs out.
pub(super) struct RemoteParticipant {
    pub(super) data: ParticipantProxyData,
    pub(super) lease_expires: Instant,
    /// Its SPDP came from a loopback address or one of ours (`locator_select::on_this_host`).
    pub(super) on_this_host: bool,
    /// The hosts it may send HEARTBEAT, GAP, ACKNACK, ... and SPDP from (`source_bind.rs`).
    pub(super) binding: SourceBinding,
    /// Not matched on SEDP (yet): it must authenticate first (DDS-Security 1.1 §8.8.2), or,
    /// without an identity token, it may not take part at all.
    pub(super) held: bool,
}

impl RemoteParticipant {
    /// The one unicast locator of `announced` (its own or one of its endpoints') we send to,
    /// given our interfaces. `locator_select.rs`.
    pub(super) fn unicast(&self, ours: &[ipnet::Ipv4Net], announced: &[Locator]) -> Vec<Locator> {
        select_unicast(ours, self.on_this_host, announced)
    }

    /// Where its discovery traffic goes: one of its metatraffic (else default) unicast
    /// locators.
    pub(super) fn metatraffic_destination(&self, ours: &[ipnet::Ipv4Net]) -> Vec<Locator> {
        self.unicast(ours, &super::sedp::metatraffic_locators(&self.data))
    }
}

/// Our own SPDP data from the configuration. We implement SPDP, both SEDP directions
/// (bits 0-5), the WLP participant-message writer and reader (bits 10, 11; `liveliness.rs`)
/// the TypeLookup server's request reader and reply writer (bits 13, 14;
/// `type_lookup.rs`) and its client's request writer and reply reader (bits 12, 15;
/// `type_client.rs`).
/// RTPS 2.5 §8.5.3.2, §9.3.2 (BuiltinEndpointSet).
pub(super) fn local_participant_data(config: &ParticipantConfig) -> ParticipantProxyData {
    let mut data = ParticipantProxyData::new(config.guid_prefix, config.domain_id);
    data.metatraffic_unicast_locators = config.metatraffic_unicast_locators.clone();
    data.metatraffic_multicast_locators = config.metatraffic_multicast_locators.clone();
    data.default_unicast_locators = config.default_unicast_locators.clone();
    data.default_multicast_locators = config.default_multicast_locators.clone();
    data.available_builtin_endpoints = BuiltinEndpointSet(
        BuiltinEndpointSet::PARTICIPANT_ANNOUNCER
            | BuiltinEndpointSet::PARTICIPANT_DETECTOR
            | BuiltinEndpointSet::PUBLICATIONS_ANNOUNCER
            | BuiltinEndpointSet::PUBLICATIONS_DETECTOR
            | BuiltinEndpointSet::SUBSCRIPTIONS_ANNOUNCER
            | BuiltinEndpointSet::SUBSCRIPTIONS_DETECTOR
            | BuiltinEndpointSet::PARTICIPANT_MESSAGE_WRITER
            | BuiltinEndpointSet::PARTICIPANT_MESSAGE_READER
            | TypeLookupServer::ENDPOINTS
            | TypeLookupClient::ENDPOINTS,
    );
    data.lease_duration = crate::time::Duration::from_std(config.lease_duration);
    data.entity_name = config.entity_name.clone();
    data.user_data = config.user_data.clone();
    // DDS-Security 1.1 §7.4.1.4-6, §7.4.7.1: tokens, security info and the stateless
    // handshake endpoints.
    #[cfg(feature = "security")]
    if let Some(sec) = &config.security {
        data.identity_token = Some(sec.identity.identity_token());
        data.permissions_token = Some(crate::security::auth::permissions_token());
        let rule = config.domain_rule();
        data.security_info = Some(super::crypto::Protection::security_info(rule));
        data.available_builtin_endpoints.0 |=
            super::auth::BUILTIN_PARTICIPANT_STATELESS_MESSAGE_WRITER
                | super::auth::BUILTIN_PARTICIPANT_STATELESS_MESSAGE_READER
                | super::auth::SPDP_RELIABLE_BUILTIN_PARTICIPANT_SECURE_WRITER;
        // §7.4.7.1: the volatile secure endpoints of the key exchange, when it is needed.
        if super::crypto::Protection::of(rule).key_exchange {
            data.available_builtin_endpoints.0 |=
                super::crypto::BUILTIN_PARTICIPANT_VOLATILE_MESSAGE_SECURE_WRITER
                    | super::crypto::BUILTIN_PARTICIPANT_VOLATILE_MESSAGE_SECURE_READER;
        }
        // §7.4.5-6, §7.4.7.1: the secure SEDP and WLP endpoints (bits 16-21), under
        // discovery or liveliness protection.
        if super::crypto::Protection::secure_builtin(rule).is_some() {
            data.available_builtin_endpoints.0 |= super::sedp::SECURE_BUILTIN_ENDPOINTS;
        }
    }
    data
}

/// How our secure SEDP and WLP endpoints are used, `None` without them (DDS-Security 1.1
/// §7.4.5-6: they exist under discovery or liveliness protection).
#[cfg(feature = "security")]
fn secure_use(config: &ParticipantConfig) -> Option<super::sedp::SecureUse> {
    super::crypto::Protection::secure_builtin(Some(config.domain_rule()?))
}

#[cfg(not(feature = "security"))]
fn secure_use(_config: &ParticipantConfig) -> Option<super::sedp::SecureUse> {
    None
}

/// Matches our builtin endpoints (SEDP, the TypeLookup server and client) with those of the
/// remote participant `p`, reached at `locators`: the one place a remote participant is
/// admitted to them, whether on discovery, on an SPDP update or once its authentication
/// completed.
fn match_builtin_endpoints(
    builtin: &mut Builtin,
    type_lookup: &mut TypeLookupServer,
    type_client: &mut TypeLookupClient,
    now: Now,
    p: &ParticipantProxyData,
    locators: Vec<Locator>,
) {
    type_lookup.add_remote_participant(now, p, &locators);
    type_client.add_remote_participant(now, p, &locators);
    builtin.add_remote_participant(now, p, locators);
}

/// Whether a remote participant must wait for authentication before SEDP matches it: with
/// security configured, one that announces an identity token waits for its handshake, and
/// one that announces none waits forever unless the governance allows unauthenticated
/// participants.
#[cfg(feature = "security")]
fn held_for_auth(config: &ParticipantConfig, data: &ParticipantProxyData) -> bool {
    match &config.security {
        None => false,
        Some(sec) => data.identity_token.is_some() || !sec.allow_unauthenticated,
    }
}

#[cfg(not(feature = "security"))]
fn held_for_auth(_config: &ParticipantConfig, _data: &ParticipantProxyData) -> bool {
    false
}

/// Whether our governance's topic rule for `topic` sets `enable_discovery_protection`
/// (DDS-Security 1.1 §9.4.1.2.6; first matching rule of our domain rule).
#[cfg(feature = "security")]
fn discovery_protected(config: &ParticipantConfig, topic: &str) -> bool {
    config
        .domain_rule()
        .and_then(|r| r.topic_rule(topic))
        .is_some_and(|t| t.enable_discovery_protection)
}

#[cfg(not(feature = "security"))]
fn discovery_protected(_config: &ParticipantConfig, _topic: &str) -> bool {
    false
}

/// Which SEDP reader an endpoint announcement came in on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Via {
    /// SEDPbuiltinPublicationsReader / SEDPbuiltinSubscriptionsReader (RTPS 2.5 §8.5.4.2).
    Plain,
    /// Their secure counterparts (DDS-Security 1.1 §7.4.5), matched only with authenticated
    /// participants, what they receive protected per `discovery_protection_kind`.
    Secure,
}

impl Via {
    /// The reader an announcement came on; one on the secure readers is counted.
    fn counted(secure: bool, stats: &mut ParticipantStats) -> Via {
        if !secure {
            return Via::Plain;
        }
        stats.secure_discovery_received = stats.secure_discovery_received.saturating_add(1);
        Via::Secure
    }
}

/// Whether an endpoint announcement (alive or a dispose) is taken, given the reader it came
/// on (`via`), whether our governance discovery-protects its topic (`protected_topic`; for a
/// dispose, the topic of the endpoint as we know it) and whether we learned that endpoint on
/// the secure SEDP readers (`learned_securely`).
///
/// DDS-Security 1.1 §7.4.5, §8.4.2.9.2 (`is_discovery_protected`), §9.4.1.2.6
/// (`enable_discovery_protection`): the endpoints of a topic with discovery protection are
/// announced on the secure SEDP writers, which only an authenticated participant reaches and
/// whose submessages are protected; so one announced on the plain SEDP is not taken (from an
/// attacker on the link, an unauthenticated participant, or an authenticated one bypassing
/// the protection), and an endpoint learned securely is not changed or disposed from the
/// plain SEDP. The decision rests on our governance, not on the PID_ENDPOINT_SECURITY_INFO the
/// announcement carries (the sender chooses that). An announcement on the secure readers is
/// taken whatever the topic, as Cyclone DDS 0.10 (`builtins_dqueue_handler` hands both
/// readers' samples to the same `handle_sedp`) and Fast DDS 2.9 (`EDPSimple.cpp` gives both
/// readers the same `EDPSimplePUBListener`) do: a peer whose governance protects a topic ours
/// does not still matches. Neither vendor refuses the plain announcement of a
/// discovery-protected endpoint.
pub(super) fn announcement_admitted(
    via: Via,
    protected_topic: bool,
    learned_securely: bool,
) -> bool {
    via == Via::Secure || !(protected_topic || learned_securely)
}

/// What a received SPDP DATA changed.
#[derive(Debug)]
pub(super) enum SpdpOutcome {
    /// Nothing for the participant to do.
    Nothing,
    /// The participant `prefix` announced it is leaving (a dispose): forget it.
    Leaving(GuidPrefix),
    /// A known participant's data changed; `peer_group`: its peer-group capability or
    /// eviction notices did.
    Updated {
        prefix: GuidPrefix,
        peer_group: bool,
    },
    /// A new participant, to be answered at once at `reply_to`.
    Discovered {
        prefix: GuidPrefix,
        reply_to: Vec<Locator>,
    },
}

/// A remote endpoint the SEDP readers announced (and on which reader) or disposed.
#[derive(Debug)]
pub(super) enum RemoteChange {
    Writer(PublicationData, Via),
    Reader(SubscriptionData, Via),
    WriterGone(Guid),
    ReaderGone(Guid),
}

/// The participant's discovery state (see the module overview).
pub(super) struct Discovery {
    local_data: ParticipantProxyData,
    /// SPDP announcement sequence number (incremented when our data changes).
    spdp_sn: i64,
    next_announce: Instant,
    /// The first input arrived (announcing starts with it).
    started: bool,
    remote_participants: BTreeMap<GuidPrefix, RemoteParticipant>,
    builtin: Builtin,
    remote_writers: BTreeMap<Guid, PublicationData>,
    remote_readers: BTreeMap<Guid, SubscriptionData>,
    /// The remote writers and readers last announced on the secure SEDP readers (a subset of
    /// the keys of `remote_writers` and `remote_readers`).
    learned_securely: BTreeSet<Guid>,
    /// Our types' XTypes representations (`type_lookup.rs`).
    types: LocalTypes,
    /// The TypeLookup service serving them.
    type_lookup: TypeLookupServer,
    /// The TypeLookup client asking for remote types.
    type_client: TypeLookupClient,
}

impl Discovery {
    pub(super) fn new(config: &ParticipantConfig) -> Self {
        Discovery {
            local_data: local_participant_data(config),
            spdp_sn: 1,
            next_announce: Instant::ZERO,
            started: false,
            remote_participants: BTreeMap::new(),
            builtin: Builtin::new(config.guid_prefix, secure_use(config)),
            remote_writers: BTreeMap::new(),
            remote_readers: BTreeMap::new(),
            learned_securely: BTreeSet::new(),
            types: LocalTypes::default(),
            type_lookup: TypeLookupServer::new(config.guid_prefix),
            type_client: TypeLookupClient::new(config.guid_prefix),
        }
    }

    /// Registers a local type's XTypes representation: endpoints of `type_name` announce its
    /// TypeInformation from then on. DDS-XTypes 1.3 §7.6.3.2.
    pub(super) fn register_type(
        &mut self,
        type_name: &str,
        rep: &'static crate::types::xtypes::TypeRepresentation,
    ) {
        self.types.register(type_name, rep);
    }

    /// The first input: the first announcement is due at once.
    pub(super) fn start(&mut self, now: Now) {
        if !self.started {
            self.started = true;
            self.next_announce = now.mono;
        }
    }

    /// Our SPDP data.
    pub(super) fn local_data(&self) -> &ParticipantProxyData {
        &self.local_data
    }

    /// Our SPDP data, to change (the next announcement carries it).
    pub(super) fn local_data_mut(&mut self) -> &mut ParticipantProxyData {
        &mut self.local_data
    }

    /// Moves the next periodic announcement to `at` at the latest.
    pub(super) fn announce_by(&mut self, at: Instant) {
        self.next_announce = self.next_announce.min(at);
    }

    pub(super) fn remote_participant(&self, prefix: GuidPrefix) -> Option<&ParticipantProxyData> {
        self.remote_participants.get(&prefix).map(|p| &p.data)
    }

    pub(super) fn remote_participants(&self) -> impl Iterator<Item = &ParticipantProxyData> {
        self.remote_participants.values().map(|p| &p.data)
    }

    pub(super) fn remote_writer(&self, guid: Guid) -> Option<&PublicationData> {
        self.remote_writers.get(&guid)
    }

    pub(super) fn remote_reader(&self, guid: Guid) -> Option<&SubscriptionData> {
        self.remote_readers.get(&guid)
    }

    pub(super) fn remote_writers(&self) -> impl Iterator<Item = &PublicationData> {
        self.remote_writers.values()
    }

    pub(super) fn remote_readers(&self) -> impl Iterator<Item = &SubscriptionData> {
        self.remote_readers.values()
    }

    pub(super) fn remote_writer_guids(&self) -> Vec<Guid> {
        self.remote_writers.keys().copied().collect()
    }

    pub(super) fn remote_reader_guids(&self) -> Vec<Guid> {
        self.remote_readers.keys().copied().collect()
    }

    /// True (and the timer rearmed for `period` later) when the periodic announcement is due.
    pub(super) fn announce_due(&mut self, now: Now, period: core::time::Duration) -> bool {
        if now.mono < self.next_announce {
            return false;
        }
        self.next_announce = now.mono.saturating_add(period);
        true
    }

    /// Our DATA(p) to the SPDP destinations, or to `only` (a newly found peer).
    pub(super) fn announce(
        &self,
        now: Now,
        config: &ParticipantConfig,
        only: Option<Vec<Locator>>,
    ) -> Option<Transmit> {
        let payload = match self.local_data.to_payload(Endianness::Little) {
            Ok(p) => p,
            Err(e) => {
                log::error!("cannot encode our SPDP data: {e}");
                return None;
            }
        };
        let destinations = only.unwrap_or_else(|| config.spdp_destinations.clone());
        self.spdp_message(now, config, None, DataPayload::Data(&payload), destinations)
    }

    /// One SPDP DATA (after an INFO_TS) with our current SPDP sequence number.
    fn spdp_message(
        &self,
        now: Now,
        config: &ParticipantConfig,
        inline_qos: Option<ParameterListView<'_>>,
        payload: DataPayload<'_>,
        destinations: Vec<Locator>,
    ) -> Option<Transmit> {
        if destinations.is_empty() {
            return None;
        }
        let data = Data {
            endian: Endianness::Little,
            extra_flags: 0,
            reader_id: EntityId::SPDP_PARTICIPANT_DETECTOR,
            writer_id: EntityId::SPDP_PARTICIPANT_ANNOUNCER,
            writer_sn: SequenceNumber(self.spdp_sn),
            inline_qos,
            payload,
        };
        let ts = InfoTs {
            endian: Endianness::Little,
            timestamp: Some(now.wall),
        };
        let mut buf = Vec::with_capacity(data.buffer_len().saturating_add(64));
        emit_message(
            &Header::new(config.guid_prefix),
            &[Submessage::InfoTs(ts), Submessage::Data(data)],
            &mut buf,
        );
        Some(Transmit::new(destinations, buf))
    }

    /// DATA(p[UD]): our participant is leaving. Sent to the SPDP destinations and to every
    /// known participant's metatraffic unicast locators, so that peers drop us and our
    /// endpoints at once rather than when our lease expires (Cyclone DDS and Fast DDS send
    /// the same when a participant is deleted). It carries PID_KEY_HASH and PID_STATUS_INFO
    /// (disposed | unregistered) inline and the serialized key (PL_CDR_LE:
    /// PID_PARTICIPANT_GUID, PID_SENTINEL), with a sequence number above our announcements'
    /// (stateless readers may ignore one they have seen). RTPS 2.5 §8.5.3.2, §9.6.4.8,
    /// §9.6.4.9.
    pub(super) fn leave(&mut self, now: Now, config: &ParticipantConfig) -> Option<Transmit> {
        let guid = Guid::new(config.guid_prefix, EntityId::PARTICIPANT).to_bytes();
        let mut qos = Vec::with_capacity(40);
        let params = [
            Parameter::Known {
                pid: PID_KEY_HASH,
                value: Value::KeyHash(guid),
            },
            Parameter::Known {
                pid: PID_STATUS_INFO,
                value: Value::StatusInfo(ChangeKind::NotAliveDisposedUnregistered.status_info()),
            },
        ];
        if emit_parameter_list(
            params.iter(),
            &mut CdrWriter::new(&mut qos, Endianness::Little),
        )
        .is_err()
        {
            return None; // invariant: two fixed-size parameters always encode.
        }
        let Ok(inline_qos) =
            ParameterListView::new_checked(&mut CdrReader::new(&qos, Endianness::Little))
        else {
            return None;
        };
        // Encapsulation PL_CDR_LE (0x0003), PID_PARTICIPANT_GUID (0x0050, 16), PID_SENTINEL.
        let mut key = vec![0x00, 0x03, 0x00, 0x00, 0x50, 0x00, 0x10, 0x00];
        key.extend_from_slice(&guid);
        key.extend_from_slice(&[0x01, 0x00, 0x00, 0x00]);
        self.spdp_sn = self.spdp_sn.saturating_add(1);
        let mut destinations = config.spdp_destinations.clone();
        for p in self.remote_participants.values() {
            for l in p.metatraffic_destination(&config.interfaces) {
                if !destinations.contains(&l) {
                    destinations.push(l);
                }
            }
        }
        let payload = DataPayload::Key(&key);
        self.spdp_message(now, config, Some(inline_qos), payload, destinations)
    }

    /// Handles a DATA from a remote SPDP writer. RTPS 2.5 §8.5.3.
    pub(super) fn handle_spdp(
        &mut self,
        now: Now,
        (source, state, d): (Locator, &ReceiverState, &Data<'_>),
        config: &ParticipantConfig,
        stats: &mut ParticipantStats,
    ) -> SpdpOutcome {
        let prefix = state.source_guid_prefix;
        let sn = d.writer_sn.0;
        let payload = match d.payload {
            DataPayload::Data(p) => p,
            // A dispose/unregister of the participant (key only or no payload): it is leaving.
            DataPayload::Key(_) | DataPayload::None => {
                return match disposes(d.inline_qos.as_ref()) {
                    true => SpdpOutcome::Leaving(prefix),
                    false => SpdpOutcome::Nothing,
                };
            }
        };
        let mut data = match ParticipantProxyData::from_payload(payload, state.source_vendor_id) {
            Ok(data) => data,
            Err(e) => {
                log::debug!("bad SPDP data from {prefix}: {e}");
                stats.bad_discovery_data = stats.bad_discovery_data.saturating_add(1);
                return SpdpOutcome::Nothing;
            }
        };
        // Cyclone: drop announcements for another domain (an absent DOMAIN_ID, as Fast DDS
        // sends, means ours). RTPS 2.5 §9.6.2.2.
        if data.guid_prefix != prefix || data.domain_id.is_some_and(|d| d != config.domain_id) {
            return SpdpOutcome::Nothing;
        }
        // Cyclone 0.10 falls back to the packet's source when no unicast locator is
        // announced (docs/interop-facts.md §5.3).
        if data.metatraffic_unicast_locators.is_empty() && data.default_unicast_locators.is_empty()
        {
            data.metatraffic_unicast_locators.push(source);
            data.default_unicast_locators.push(source);
        }
        let lease_expires = now.mono.saturating_add(capped_lease(config, &data));
        let announced = announced_unicast(&data);
        let interfaces = &config.interfaces;
        let local_for = |source: &Locator| {
            if on_this_host(interfaces, source) {
                local_hosts(interfaces)
            } else {
                Vec::new()
            }
        };
        if let Some(known) = self.remote_participants.get_mut(&prefix) {
            match known.binding.check_announcement(&source, sn) {
                SourceVerdict::Accept => known.binding.accept_announcement(&source, sn, &announced),
                SourceVerdict::Rebind => {
                    // It moved: a new host and a higher SPDP sequence number.
                    known
                        .binding
                        .rebind(&source, sn, &announced, &local_for(&source));
                    known.on_this_host = on_this_host(interfaces, &source);
                    stats.rebound = stats.rebound.saturating_add(1);
                }
                // invariant: `source_admits` already dropped it (and counted it).
                SourceVerdict::Drop => return SpdpOutcome::Nothing,
            }
            known.lease_expires = lease_expires;
            if known.data == data {
                return SpdpOutcome::Nothing;
            }
            let peer_group = (known.data.peer_group, &known.data.peer_group_evicted)
                != (data.peer_group, &data.peer_group_evicted);
            known.data = data;
            let locators = known.metatraffic_destination(interfaces);
            if !known.held {
                match_builtin_endpoints(
                    &mut self.builtin,
                    &mut self.type_lookup,
                    &mut self.type_client,
                    now,
                    &known.data,
                    locators,
                );
            }
            // An intermediary's new generation or eviction notices reach our writers.
            return SpdpOutcome::Updated { prefix, peer_group };
        }
        if self.remote_participants.len() >= config.max_remote_participants {
            stats.over_limit = stats.over_limit.saturating_add(1);
            return SpdpOutcome::Nothing;
        }
        let binding = SourceBinding::new(&source, sn, &announced, &local_for(&source));
        let remote = RemoteParticipant {
            held: held_for_auth(config, &data),
            data,
            lease_expires,
            on_this_host: on_this_host(interfaces, &source),
            binding,
        };
        let reply_to = remote.metatraffic_destination(interfaces);
        if !remote.held {
            match_builtin_endpoints(
                &mut self.builtin,
                &mut self.type_lookup,
                &mut self.type_client,
                now,
                &remote.data,
                reply_to.clone(),
            );
        }
        self.remote_participants.insert(prefix, remote);
        SpdpOutcome::Discovered { prefix, reply_to }
    }

    /// Matches a held participant on SEDP: its authentication completed.
    #[cfg(feature = "security")]
    pub(super) fn admit(&mut self, now: Now, prefix: GuidPrefix, config: &ParticipantConfig) {
        let Some(p) = self.remote_participants.get_mut(&prefix) else {
            return;
        };
        if !p.held {
            return;
        }
        p.held = false;
        let locators = p.metatraffic_destination(&config.interfaces);
        match_builtin_endpoints(
            &mut self.builtin,
            &mut self.type_lookup,
            &mut self.type_client,
            now,
            &p.data,
            locators,
        );
    }

    /// Extends the lease of a known participant we just heard a submessage from. RTPS 2.5
    /// §8.5.3.3 speaks of announcements; like Cyclone (which renews a proxy participant's lease
    /// on any message from it) we count every submessage, so that on a lossy link a run of lost
    /// SPDP announcements does not drop a participant whose data and ACKNACKs keep arriving.
    pub(super) fn renew_lease(&mut self, now: Now, prefix: GuidPrefix, config: &ParticipantConfig) {
        if let Some(p) = self.remote_participants.get_mut(&prefix) {
            let lease = capped_lease(config, &p.data);
            p.lease_expires = p.lease_expires.max(now.mono.saturating_add(lease));
        }
    }

    /// The participants whose lease ran out. RTPS 2.5 §8.5.3.3 (leaseDuration).
    pub(super) fn expired(&self, now: Now) -> Vec<GuidPrefix> {
        self.remote_participants
            .iter()
            .filter(|(_, p)| p.lease_expires <= now.mono)
            .map(|(k, _)| *k)
            .collect()
    }

    /// Forgets participant `prefix` and its builtin endpoints' matches. Returns its remote
    /// writers and readers (for the participant to remove one by one), `None` when unknown.
    pub(super) fn remove_participant(
        &mut self,
        prefix: GuidPrefix,
    ) -> Option<(Vec<Guid>, Vec<Guid>)> {
        self.remote_participants.remove(&prefix)?;
        self.builtin.remove_remote_participant(prefix);
        self.type_lookup.remove_remote_participant(prefix);
        self.type_client.remove_remote_participant(prefix);
        let of = |g: &&Guid| g.prefix == prefix;
        let writers = self.remote_writers.keys().filter(of).copied().collect();
        let readers = self.remote_readers.keys().filter(of).copied().collect();
        Some((writers, readers))
    }

    /// False when `sm` claims known participant `prefix` from a host it is not bound to and
    /// is one of the checked kinds: HEARTBEAT, HEARTBEAT_FRAG, GAP, ACKNACK, NACK_FRAG, and
    /// SPDP (a dispose from a foreign host, or an announcement from one that is not a move).
    /// `source_bind.rs`.
    pub(super) fn source_admits(
        &self,
        source: &Locator,
        prefix: GuidPrefix,
        sm: &Submessage<'_>,
    ) -> bool {
        let Some(p) = self.remote_participants.get(&prefix) else {
            return true;
        };
        let verdict = match sm {
            Submessage::Heartbeat(_)
            | Submessage::HeartbeatFrag(_)
            | Submessage::Gap(_)
            | Submessage::AckNack(_)
            | Submessage::NackFrag(_) => p.binding.check(source),
            Submessage::Data(d) if d.writer_id == EntityId::SPDP_PARTICIPANT_ANNOUNCER => {
                match d.payload {
                    DataPayload::Data(_) => p.binding.check_announcement(source, d.writer_sn.0),
                    DataPayload::Key(_) | DataPayload::None => p.binding.check(source),
                }
            }
            _ => SourceVerdict::Accept,
        };
        verdict != SourceVerdict::Drop
    }

    /// The next remote endpoint the SEDP readers received (new, changed or removed).
    /// Endpoints of unknown participants are skipped (RTPS 2.5 §8.5.5), and so is what
    /// [`announcement_admitted`] refuses (counted in `plain_discovery_refused`).
    pub(super) fn poll_remote_change(
        &mut self,
        config: &ParticipantConfig,
        stats: &mut ParticipantStats,
    ) -> Option<RemoteChange> {
        while let Some((change, secure)) = self.builtin.poll_publication() {
            let prefix = change.writer_guid.prefix;
            let Some(p) = self.remote_participants.get(&prefix) else {
                continue;
            };
            let via = Via::counted(secure, stats);
            if change.kind == ChangeKind::Alive {
                match PublicationData::from_payload(&change.data, p.data.vendor_id) {
                    Ok(data) if data.guid.prefix == prefix => {
                        if self.admits(config, via, data.guid, Some(&data.topic_name), stats) {
                            return Some(RemoteChange::Writer(data, via));
                        }
                    }
                    _ => stats.bad_discovery_data = stats.bad_discovery_data.saturating_add(1),
                }
            } else if let Some(key) = change.key_hash {
                if let Some(guid) = self.dispose_admitted(config, (prefix, via), key, true, stats) {
                    return Some(RemoteChange::WriterGone(guid));
                }
            }
        }
        while let Some((change, secure)) = self.builtin.poll_subscription() {
            let prefix = change.writer_guid.prefix;
            let Some(p) = self.remote_participants.get(&prefix) else {
                continue;
            };
            let via = Via::counted(secure, stats);
            if change.kind == ChangeKind::Alive {
                match SubscriptionData::from_payload(&change.data, p.data.vendor_id) {
                    Ok(data) if data.guid.prefix == prefix => {
                        if self.admits(config, via, data.guid, Some(&data.topic_name), stats) {
                            return Some(RemoteChange::Reader(data, via));
                        }
                    }
                    _ => stats.bad_discovery_data = stats.bad_discovery_data.saturating_add(1),
                }
            } else if let Some(key) = change.key_hash {
                if let Some(guid) = self.dispose_admitted(config, (prefix, via), key, false, stats)
                {
                    return Some(RemoteChange::ReaderGone(guid));
                }
            }
        }
        None
    }

    /// The endpoint a dispose from participant `prefix` (received `via`) names by its `key`,
    /// a remote writer's (`writer`) or reader's, when it is taken: only a participant's own
    /// endpoint (as for an announcement; otherwise counted in `bad_discovery_data`), and
    /// [`announcement_admitted`] for the topic we know it on.
    fn dispose_admitted(
        &self,
        config: &ParticipantConfig,
        (prefix, via): (GuidPrefix, Via),
        key: [u8; 16],
        writer: bool,
        stats: &mut ParticipantStats,
    ) -> Option<Guid> {
        let guid = guid_from_key(key);
        if guid.prefix != prefix {
            stats.bad_discovery_data = stats.bad_discovery_data.saturating_add(1);
            return None;
        }
        let topic = match writer {
            true => self
                .remote_writers
                .get(&guid)
                .map(|d| d.topic_name.as_str()),
            false => self
                .remote_readers
                .get(&guid)
                .map(|d| d.topic_name.as_str()),
        };
        self.admits(config, via, guid, topic, stats).then_some(guid)
    }

    /// [`announcement_admitted`] for the announcement of endpoint `guid` on `topic` (`None`:
    /// a dispose of an endpoint we do not know); a refusal is counted and logged.
    fn admits(
        &self,
        config: &ParticipantConfig,
        via: Via,
        guid: Guid,
        topic: Option<&str>,
        stats: &mut ParticipantStats,
    ) -> bool {
        let protected = topic.is_some_and(|t| discovery_protected(config, t));
        let secure = self.learned_securely.contains(&guid);
        if announcement_admitted(via, protected, secure) {
            return true;
        }
        stats.plain_discovery_refused = stats.plain_discovery_refused.saturating_add(1);
        log::debug!(
            "ignored the plain SEDP announcement of endpoint {guid} (topic {topic:?}): it is \
             discovery-protected (topic rule: {protected}, learned securely: {secure})"
        );
        false
    }

    /// Whether an endpoint (`known` already, or new) may be stored: a new one only below
    /// the endpoint limit (a refusal is counted).
    fn room_for(
        &self,
        known: bool,
        config: &ParticipantConfig,
        stats: &mut ParticipantStats,
    ) -> bool {
        let count = self
            .remote_writers
            .len()
            .saturating_add(self.remote_readers.len());
        if !known && count >= config.max_remote_endpoints {
            stats.over_limit = stats.over_limit.saturating_add(1);
            return false;
        }
        true
    }

    /// Stores (or updates) a remote writer announced `via` that reader; false when over the
    /// endpoint limit (counted).
    pub(super) fn insert_remote_writer(
        &mut self,
        data: PublicationData,
        via: Via,
        config: &ParticipantConfig,
        stats: &mut ParticipantStats,
    ) -> bool {
        let known = self.remote_writers.contains_key(&data.guid);
        if !self.room_for(known, config, stats) {
            return false;
        }
        self.learned(data.guid, via);
        self.remote_writers.insert(data.guid, data);
        true
    }

    /// Stores (or updates) a remote reader announced `via` that reader; false when over the
    /// endpoint limit (counted).
    pub(super) fn insert_remote_reader(
        &mut self,
        data: SubscriptionData,
        via: Via,
        config: &ParticipantConfig,
        stats: &mut ParticipantStats,
    ) -> bool {
        let known = self.remote_readers.contains_key(&data.guid);
        if !self.room_for(known, config, stats) {
            return false;
        }
        self.learned(data.guid, via);
        self.remote_readers.insert(data.guid, data);
        true
    }

    /// Remembers which reader endpoint `guid` was last announced on.
    fn learned(&mut self, guid: Guid, via: Via) {
        match via {
            Via::Secure => self.learned_securely.insert(guid),
            Via::Plain => self.learned_securely.remove(&guid),
        };
    }

    /// Forgets a remote writer; false when unknown.
    pub(super) fn remove_remote_writer(&mut self, guid: Guid) -> bool {
        self.learned_securely.remove(&guid);
        self.remote_writers.remove(&guid).is_some()
    }

    /// Forgets a remote reader; false when unknown.
    pub(super) fn remove_remote_reader(&mut self, guid: Guid) -> bool {
        self.learned_securely.remove(&guid);
        self.remote_readers.remove(&guid).is_some()
    }

    /// An endpoint's locators, or its participant's default ones when it announced none
    /// (Cyclone omits them in SEDP, docs/interop-facts.md §5.4 / discovery tests); of the
    /// unicast ones, the one we send to (`locator_select.rs`).
    pub(super) fn endpoint_locators(
        &self,
        prefix: GuidPrefix,
        unicast: &[Locator],
        multicast: &[Locator],
        ours: &[ipnet::Ipv4Net],
    ) -> (Vec<Locator>, Vec<Locator>) {
        let Some(p) = self.remote_participants.get(&prefix) else {
            // Not reached (endpoints of unknown participants are not processed); where it
            // would be, nothing says the peer is on this host.
            return (select_unicast(ours, false, unicast), multicast.to_vec());
        };
        if !unicast.is_empty() || !multicast.is_empty() {
            return (p.unicast(ours, unicast), multicast.to_vec());
        }
        (
            p.unicast(ours, &p.data.default_unicast_locators),
            p.data.default_multicast_locators.clone(),
        )
    }

    /// Announces (SEDP DATA(w)) one of our writers.
    pub(super) fn announce_writer(&mut self, now: Now, data: &PublicationData) {
        let xcdr2 = announces_types(&data.qos.data_representation);
        match self.types.information(&data.type_name) {
            // PID_TYPE_INFORMATION, DDS-XTypes 1.3 §7.6.2.1.
            Some(info) if xcdr2 && data.type_information.is_none() => {
                let mut data = data.clone();
                data.type_information = Some(info.to_vec());
                self.builtin.announce_writer(now, &data);
            }
            _ => self.builtin.announce_writer(now, data),
        }
    }

    /// Announces (SEDP DATA(r)) one of our readers.
    pub(super) fn announce_reader(&mut self, now: Now, data: &SubscriptionData) {
        let xcdr2 = announces_types(&data.qos.data_representation);
        match self.types.information(&data.type_name) {
            Some(info) if xcdr2 && data.type_information.is_none() => {
                let mut data = data.clone();
                data.type_information = Some(info.to_vec());
                self.builtin.announce_reader(now, &data);
            }
            _ => self.builtin.announce_reader(now, data),
        }
    }

    /// Disposes (SEDP) one of our writers.
    pub(super) fn unannounce_writer(&mut self, now: Now, guid: Guid) {
        self.builtin.unannounce_writer(now, guid);
    }

    /// Disposes (SEDP) one of our readers.
    pub(super) fn unannounce_reader(&mut self, now: Now, guid: Guid) {
        self.builtin.unannounce_reader(now, guid);
    }

    /// How many of our endpoint announcements went on the secure SEDP writers.
    pub(super) fn secure_announced(&self) -> u64 {
        self.builtin.secure_announced
    }

    /// Writes one WLP update (`liveliness.rs`).
    pub(super) fn write_wlp(&mut self, now: Now, m: ParticipantMessageData) {
        self.builtin.write_wlp(now, m);
    }

    /// The next sample the WLP reader received.
    pub(super) fn poll_wlp(&mut self) -> Option<CacheChange> {
        self.builtin.poll_wlp()
    }

    /// The WLP writer (tests read its sequence numbers).
    #[cfg(test)]
    pub(super) fn wlp_writer(&self) -> &crate::core::writer::Writer {
        &self.builtin.wlp_writer
    }

    /// Routes a writer-side submessage from a remote builtin writer. False when not ours.
    pub(super) fn handle_from_writer(
        &mut self,
        now: Now,
        writer: Guid,
        ts: Option<Timestamp>,
        sm: &Submessage<'_>,
    ) -> bool {
        let types = &self.types;
        if let Some(()) = self
            .type_lookup
            .handle_from_writer(now, writer, ts, sm, types)
        {
            return true;
        }
        if let Some(()) = self.type_client.handle_from_writer(now, writer, ts, sm) {
            return true;
        }
        self.builtin.handle_from_writer(now, writer, ts, sm)
    }

    /// Routes an ACKNACK for one of our builtin writers. False when not ours.
    pub(super) fn handle_acknack(&mut self, now: Now, reader: Guid, a: &AckNack) -> bool {
        self.type_lookup.handle_acknack(now, reader, a)
            || self.type_client.handle_acknack(now, reader, a)
            || self.builtin.handle_acknack(now, reader, a)
    }

    /// Routes a NACK_FRAG for one of our builtin writers. False when not ours.
    pub(super) fn handle_nack_frag(&mut self, now: Now, reader: Guid, n: &NackFrag) -> bool {
        self.type_lookup.handle_nack_frag(now, reader, n)
            || self.type_client.handle_nack_frag(now, reader, n)
            || self.builtin.handle_nack_frag(now, reader, n)
    }

    /// The builtin endpoints' timers (announcements and leases are the participant's to
    /// drive: [`Self::announce_due`], [`Self::expired`]).
    pub(super) fn handle_timeout(&mut self, now: Now) {
        self.builtin.handle_timeout(now);
        self.type_lookup.handle_timeout(now);
        self.type_client.handle_timeout(now);
    }

    /// The earliest of the next announcement (at once before the first input), the leases,
    /// and the builtin endpoints' timers.
    pub(super) fn poll_timeout(&self) -> Instant {
        let mut t = if self.started {
            self.next_announce
        } else {
            Instant::ZERO
        };
        for p in self.remote_participants.values() {
            t = t.min(p.lease_expires);
        }
        if let Some(b) = self.builtin.poll_timeout() {
            t = t.min(b);
        }
        if let Some(b) = self.type_lookup.poll_timeout() {
            t = t.min(b);
        }
        if let Some(b) = self.type_client.poll_timeout() {
            t = t.min(b);
        }
        t
    }

    pub(super) fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        self.builtin
            .poll_transmit(now)
            .or_else(|| self.type_lookup.poll_transmit(now))
            .or_else(|| self.type_client.poll_transmit(now))
    }

    /// Asks the participant of remote writer `writer` for its type: the complete
    /// TypeIdentifier of its PID_TYPE_INFORMATION, else the minimal one; a TypeObject it sent
    /// inline (Fast DDS 2.x) resolves at once. False when the writer is unknown, announced
    /// neither in a form decoded, or a bound was hit. DDS-XTypes 1.3 §7.6.3.3.
    pub(super) fn request_writer_type(&mut self, now: Now, writer: Guid) -> bool {
        if !self.remote_writers.contains_key(&writer) {
            return false;
        }
        let id = self.endpoint_type_id(writer);
        id.is_some_and(|id| self.type_client.request(now, writer.prefix, id))
    }

    /// [`Self::request_writer_type`] for a remote writer or reader (both announce
    /// PID_TYPE_INFORMATION, DDS-XTypes 1.3 §7.6.2.1).
    /// Only PID_TYPE_INFORMATION is taken here (the router's types from the wire), not a
    /// TypeObject sent inline: see [`Self::endpoint_type_id`].
    pub(super) fn request_endpoint_type(&mut self, now: Now, endpoint: Guid) -> bool {
        let info = match self.remote_writers.get(&endpoint) {
            Some(w) => w.type_information.as_deref(),
            None => self
                .remote_readers
                .get(&endpoint)
                .and_then(|r| r.type_information.as_deref()),
        };
        let id = info.and_then(wanted_type_id);
        id.is_some_and(|id| self.type_client.request(now, endpoint.prefix, id))
    }

    /// The TypeIdentifier of the type remote endpoint `endpoint` announced: from its
    /// PID_TYPE_INFORMATION, else the identifier of the TypeObject it sent inline in
    /// PID_TYPE_OBJECTV1 (Fast DDS 2.x, whose PID_TYPE_INFORMATION does not decode), which is
    /// then put in the registry of remote types as if fetched
    /// (`types::xtypes::type_object_v1`).
    pub(super) fn endpoint_type_id(&mut self, endpoint: Guid) -> Option<TypeIdentifier> {
        let data = match self.remote_writers.get(&endpoint) {
            Some(w) => Some(&w.endpoint),
            None => self.remote_readers.get(&endpoint).map(|r| &r.endpoint),
        }?;
        if let Some(id) = data.type_information.as_deref().and_then(wanted_type_id) {
            return Some(id);
        }
        let (id, object) =
            crate::types::xtypes::type_object_v1::parse(data.type_object_v1.as_deref()?).ok()?;
        self.type_client.insert_inline(&id, object).then_some(id)
    }

    /// The next remote type that became resolved.
    pub(super) fn poll_resolved_type(&mut self) -> Option<TypeIdentifier> {
        self.type_client.poll_resolved()
    }

    /// The next remote type the TypeLookup client gave up on.
    pub(super) fn poll_failed_type(&mut self) -> Option<TypeIdentifier> {
        self.type_client.poll_failed()
    }

    /// Asks the participant `peer` for the type `id` (a match waits for it). False when the
    /// peer announces no TypeLookup server (its type cannot be fetched), or the client is at
    /// a bound or gave up on `id` before.
    pub(super) fn request_type(&mut self, now: Now, peer: GuidPrefix, id: TypeIdentifier) -> bool {
        let server = BuiltinEndpointSet::TYPE_LOOKUP_REQUEST_READER
            | BuiltinEndpointSet::TYPE_LOOKUP_REPLY_WRITER;
        let serves = self
            .remote_participants
            .get(&peer)
            .is_some_and(|p| p.data.available_builtin_endpoints.contains(server));
        serves && self.type_client.request(now, peer, id)
    }

    /// Decides the types of a local endpoint of `topic` and `type_name` with
    /// `representation` and the remote endpoint `remote` under the reader's `enforcement`
    /// (`matching::decide_types`). Our endpoint takes part with the TypeInformation it
    /// announces: only an endpoint that speaks XCDR2 and not XCDR1 announces one
    /// ([`announces_types`]). Endpoints of another topic or type name are left to the names
    /// (nothing is fetched for them).
    pub(super) fn type_match(
        &self,
        (topic, type_name, representation): (&str, &str, &crate::qos::DataRepresentation),
        local_is_reader: bool,
        remote: Guid,
        enforcement: &crate::qos::TypeConsistencyEnforcement,
    ) -> TypeMatch {
        let remote_endpoint = match local_is_reader {
            true => self.remote_writer(remote).map(|w| &w.endpoint),
            false => self.remote_reader(remote).map(|r| &r.endpoint),
        };
        let Some(endpoint) = remote_endpoint else {
            return TypeMatch::ByName;
        };
        if endpoint.topic_name != topic || endpoint.type_name != type_name {
            return TypeMatch::ByName;
        }
        let information = Some(&endpoint.type_information);
        let local = LocalType {
            representation: announces_types(representation)
                .then(|| self.types.representation(type_name))
                .flatten(),
            is_reader: local_is_reader,
        };
        let client = &self.type_client;
        let given_up = |id: &TypeIdentifier| client.has_given_up(id);
        let remote = RemoteType {
            information: information.and_then(|i| i.as_deref()),
            registry: &client.registry,
            given_up: &given_up,
        };
        decide_types(&local, &remote, enforcement)
    }

    /// The remote writers and readers whose announced TypeInformation names `id` (as the
    /// type to fetch, [`wanted_type_id`]).
    pub(super) fn endpoints_announcing(&self, id: &TypeIdentifier) -> (Vec<Guid>, Vec<Guid>) {
        let names =
            |info: &Option<Vec<u8>>| info.as_deref().and_then(wanted_type_id).as_ref() == Some(id);
        let writers = self
            .remote_writers
            .iter()
            .filter(|(_, w)| names(&w.type_information))
            .map(|(g, _)| *g)
            .collect();
        let readers = self
            .remote_readers
            .iter()
            .filter(|(_, r)| names(&r.type_information))
            .map(|(g, _)| *g)
            .collect();
        (writers, readers)
    }

    /// The remote TypeObjects known.
    pub(super) fn type_registry(&self) -> &TypeRegistry {
        &self.type_client.registry
    }

    /// True when the TypeLookup client gave up on the requested type `id` (it is not asked
    /// for again).
    pub(super) fn type_given_up(&self, id: &TypeIdentifier) -> bool {
        self.type_client.has_given_up(id)
    }

    /// The TypeLookup client's counters.
    pub(super) fn type_client_stats(&self) -> TypeClientStats {
        self.type_client.stats
    }
}

/// Whether an endpoint with `representation` announces its TypeInformation: only when it
/// speaks XCDR2 and not XCDR1. An endpoint that writes or accepts XCDR1 stays matched by type
/// name alone, as before XTypes: Cyclone DDS compares announced types strictly (its `@final`
/// copy of a type is "inconsistent" with our `@appendable` one, though their XCDR1 bytes are
/// the same), and XCDR1 peers are the ones that keep such copies. DDS-XTypes 1.3 §7.6.3.1.2,
/// §7.6.3.4.2.
fn announces_types(representation: &crate::qos::DataRepresentation) -> bool {
    let id = |v: crate::cdr::XcdrVersion| v.representation_id();
    let ids = &representation.value;
    ids.contains(&id(crate::cdr::XcdrVersion::Xcdr2))
        && !ids.contains(&id(crate::cdr::XcdrVersion::Xcdr1))
}

/// The lease `data` announces, at most [`ParticipantConfig::max_lease_duration`] (an
/// infinite one gets the cap). RTPS 2.5 §8.5.3.3 (leaseDuration).
fn capped_lease(config: &ParticipantConfig, data: &ParticipantProxyData) -> core::time::Duration {
    let cap = config.max_lease_duration;
    data.lease_duration.to_std().unwrap_or(cap).min(cap)
}

/// The endpoint GUID behind an SEDP instance key (the key hash is the GUID, §9.6.4.8).
fn guid_from_key(key: [u8; 16]) -> Guid {
    let mut prefix = [0u8; 12];
    let mut entity = [0u8; 4];
    let (p, e) = key.split_at(12);
    prefix.copy_from_slice(p);
    entity.copy_from_slice(e);
    Guid::new(GuidPrefix(prefix), EntityId(entity))
}

/// Every unicast locator `data` announces (metatraffic and default): the hosts it is bound to
/// besides its SPDP source.
fn announced_unicast(data: &ParticipantProxyData) -> Vec<Locator> {
    data.metatraffic_unicast_locators
        .iter()
        .chain(&data.default_unicast_locators)
        .copied()
        .collect()
}

/// True when the inline QoS carries a STATUS_INFO with the disposed or unregistered flag.
fn disposes(qos: Option<&ParameterListView<'_>>) -> bool {
    let Some(qos) = qos else { return false };
    let Some(p) = qos.find(crate::wire::plist::pid::PID_STATUS_INFO) else {
        return false;
    };
    let Some(bytes) = p.value.get(..4) else {
        return false;
    };
    let mut b = [0u8; 4];
    b.copy_from_slice(bytes);
    // PID_STATUS_INFO is big-endian whatever the submessage's byte order (docs/interop-facts.md
    // §5.7).
    ChangeKind::from_status_info(u32::from_be_bytes(b)) != ChangeKind::Alive
}

/// The identifier to ask for from a serialized TypeInformation: the complete one when it is a
/// hash, else the minimal one. DDS-XTypes 1.3 §7.6.3.2.2.
pub(super) fn wanted_type_id(type_information: &[u8]) -> Option<TypeIdentifier> {
    use crate::cdr::Endianness;
    // The value's byte order is its parameter list's; SEDP is little-endian in practice.
    let info = TypeInformation::from_bytes(type_information, Endianness::Little)
        .or_else(|_| TypeInformation::from_bytes(type_information, Endianness::Big))
        .ok()?;
    [info.complete, info.minimal]
        .into_iter()
        .map(|w| w.typeid_with_size.type_id)
        .find(|id| matches!(id, TypeIdentifier::Complete(_) | TypeIdentifier::Minimal(_)))
}
