//! SEDP: the four reliable builtin endpoints that exchange DiscoveredWriterData and
//! DiscoveredReaderData (plus the WLP pair of the same shape), owned by the discovery part
//! (`discovery.rs`), which stores the remote endpoints they announce; whether those match
//! local ones is `matching.rs`. RTPS 2.5 §8.5.4 (SEDP), §8.5.5.1 (matching the builtin
//! endpoints). Under a governance with discovery or liveliness protection, also their secure
//! counterparts (DDS-Security 1.1 §7.4.5-6, Table 9-10): SEDPbuiltinPublicationsSecure,
//! SEDPbuiltinSubscriptionsSecure and BuiltinParticipantMessageSecure, on which the endpoints
//! of topics with `enable_discovery_protection` are announced and, under
//! `liveliness_protection_kind`, liveliness is asserted. Their submessages are protected by
//! the cryptography part (`crypto.rs`), which also exchanges their key material.
//!
//! Must not: perform I/O, or match a remote participant's secure endpoints before it
//! authenticated.

use std::collections::BTreeSet;

use bytes::Bytes;

use crate::cdr::Endianness;
use crate::core::discovery::{
    BuiltinEndpointSet, ParticipantMessageData, ParticipantProxyData, PublicationData,
    SubscriptionData,
};
use crate::core::reader::{Reader, ReaderConfig};
use crate::core::writer::{QuietWriter, Writer, WriterConfig};
use crate::core::{CacheChange, ChangeKind, RemoteReader, RemoteWriter, Transmit, WriteRequest};
use crate::qos::History;
use crate::time::{Instant, Now, Timestamp};
use crate::wire::submessage::{AckNack, NackFrag, Submessage};
use crate::wire::{EntityId, Guid, GuidPrefix, Locator};

/// SEDPbuiltinPublicationsSecureWriter (DDS-Security 1.1 §7.4.5.3, Table 9).
pub const SEDP_PUBLICATIONS_SECURE_WRITER: EntityId = EntityId([0xff, 0, 3, 0xc2]);
/// SEDPbuiltinPublicationsSecureReader (§7.4.5.3).
pub const SEDP_PUBLICATIONS_SECURE_READER: EntityId = EntityId([0xff, 0, 3, 0xc7]);
/// SEDPbuiltinSubscriptionsSecureWriter (§7.4.5.4).
pub const SEDP_SUBSCRIPTIONS_SECURE_WRITER: EntityId = EntityId([0xff, 0, 4, 0xc2]);
/// SEDPbuiltinSubscriptionsSecureReader (§7.4.5.4).
pub const SEDP_SUBSCRIPTIONS_SECURE_READER: EntityId = EntityId([0xff, 0, 4, 0xc7]);
/// BuiltinParticipantMessageSecureWriter (§7.4.6.3, Table 10).
pub const PARTICIPANT_MESSAGE_SECURE_WRITER: EntityId = EntityId([0xff, 2, 0, 0xc2]);
/// BuiltinParticipantMessageSecureReader (§7.4.6.3).
pub const PARTICIPANT_MESSAGE_SECURE_READER: EntityId = EntityId([0xff, 2, 0, 0xc7]);

/// BuiltinEndpointSet bits of the secure SEDP and WLP endpoints (§7.4.7.1): publications
/// secure writer 16 and reader 17, subscriptions secure writer 18 and reader 19, participant
/// message secure writer 20 and reader 21.
pub const SEDP_PUBLICATIONS_SECURE_ANNOUNCER: u32 = 1 << 16;
/// §7.4.7.1.
pub const SEDP_PUBLICATIONS_SECURE_DETECTOR: u32 = 1 << 17;
/// §7.4.7.1.
pub const SEDP_SUBSCRIPTIONS_SECURE_ANNOUNCER: u32 = 1 << 18;
/// §7.4.7.1.
pub const SEDP_SUBSCRIPTIONS_SECURE_DETECTOR: u32 = 1 << 19;
/// §7.4.7.1.
pub const PARTICIPANT_MESSAGE_SECURE_ANNOUNCER: u32 = 1 << 20;
/// §7.4.7.1.
pub const PARTICIPANT_MESSAGE_SECURE_DETECTOR: u32 = 1 << 21;
/// All six (announced only by a participant with security).
#[cfg_attr(not(feature = "security"), allow(dead_code))]
pub const SECURE_BUILTIN_ENDPOINTS: u32 = SEDP_PUBLICATIONS_SECURE_ANNOUNCER
    | SEDP_PUBLICATIONS_SECURE_DETECTOR
    | SEDP_SUBSCRIPTIONS_SECURE_ANNOUNCER
    | SEDP_SUBSCRIPTIONS_SECURE_DETECTOR
    | PARTICIPANT_MESSAGE_SECURE_ANNOUNCER
    | PARTICIPANT_MESSAGE_SECURE_DETECTOR;

/// The secure builtin endpoints as (ours, the remote one it matches, the BuiltinEndpointSet bit
/// that announces that remote one).
pub const SECURE_BUILTIN_PAIRS: [(EntityId, EntityId, u32); 6] = [
    (
        SEDP_PUBLICATIONS_SECURE_WRITER,
        SEDP_PUBLICATIONS_SECURE_READER,
        SEDP_PUBLICATIONS_SECURE_DETECTOR,
    ),
    (
        SEDP_PUBLICATIONS_SECURE_READER,
        SEDP_PUBLICATIONS_SECURE_WRITER,
        SEDP_PUBLICATIONS_SECURE_ANNOUNCER,
    ),
    (
        SEDP_SUBSCRIPTIONS_SECURE_WRITER,
        SEDP_SUBSCRIPTIONS_SECURE_READER,
        SEDP_SUBSCRIPTIONS_SECURE_DETECTOR,
    ),
    (
        SEDP_SUBSCRIPTIONS_SECURE_READER,
        SEDP_SUBSCRIPTIONS_SECURE_WRITER,
        SEDP_SUBSCRIPTIONS_SECURE_ANNOUNCER,
    ),
    (
        PARTICIPANT_MESSAGE_SECURE_WRITER,
        PARTICIPANT_MESSAGE_SECURE_READER,
        PARTICIPANT_MESSAGE_SECURE_DETECTOR,
    ),
    (
        PARTICIPANT_MESSAGE_SECURE_READER,
        PARTICIPANT_MESSAGE_SECURE_WRITER,
        PARTICIPANT_MESSAGE_SECURE_ANNOUNCER,
    ),
];

/// True for the secure SEDP and WLP endpoints' entity ids.
pub fn is_secure_builtin(id: EntityId) -> bool {
    SECURE_BUILTIN_PAIRS.iter().any(|(ours, _, _)| *ours == id)
}

/// EndpointSecurityAttributes bit `is_discovery_protected` (DDS-Security 1.1 §7.4.1.5): an
/// endpoint with it is announced on the secure SEDP writers (§7.4.5).
const IS_DISCOVERY_PROTECTED: u32 = 1 << 2;

/// How the secure builtin endpoints are used.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct SecureUse {
    /// Liveliness is asserted on BuiltinParticipantMessageSecureWriter
    /// (`liveliness_protection_kind` not NONE, §7.4.6; as Fast DDS 2.9 does, `WLP.cpp`).
    pub(super) liveliness: bool,
}

/// The secure SEDP and WLP endpoints (DDS-Security 1.1 §7.4.5-6): the same shape as the plain
/// ones.
struct SecureBuiltin {
    publications_writer: QuietWriter,
    publications_reader: Reader,
    subscriptions_writer: QuietWriter,
    subscriptions_reader: Reader,
    wlp_writer: QuietWriter,
    wlp_reader: Reader,
    usage: SecureUse,
    /// Our endpoints announced on the secure SEDP writers (their dispose goes there too).
    announced: BTreeSet<Guid>,
}

/// The SEDP builtin writers and readers. RTPS 2.5 §8.5.4.2: reliable, TRANSIENT_LOCAL,
/// keyed by the endpoint GUID.
pub(super) struct Builtin {
    publications_writer: QuietWriter,
    pub(super) publications_reader: Reader,
    subscriptions_writer: QuietWriter,
    pub(super) subscriptions_reader: Reader,
    /// WLP participant-message writer (`liveliness.rs`). RTPS 2.5 §8.4.13.3: reliable,
    /// TRANSIENT_LOCAL, KEEP_LAST(1) per instance, keyed — the same shape as the SEDP writers.
    pub(super) wlp_writer: QuietWriter,
    /// WLP participant-message reader.
    pub(super) wlp_reader: Reader,
    /// The secure SEDP and WLP endpoints, under discovery or liveliness protection.
    secure: Option<SecureBuiltin>,
    /// How many endpoint announcements (DATA(w), DATA(r)) went on the secure SEDP writers.
    pub(super) secure_announced: u64,
}

fn builtin_writer(prefix: GuidPrefix, id: EntityId) -> QuietWriter {
    let mut config = WriterConfig::new(Guid::new(prefix, id));
    config.reliable = true;
    config.keyed = true;
    config.durability_transient_local = true;
    config.history = History::KeepLast(1);
    QuietWriter::new(Writer::new(config))
}

fn builtin_reader(prefix: GuidPrefix, id: EntityId) -> Reader {
    let mut config = ReaderConfig::new(Guid::new(prefix, id), true, true);
    config.history = History::KeepAll;
    Reader::new(config)
}

impl Builtin {
    /// The builtin endpoints of participant `prefix`; the secure ones too with `secure`.
    pub(super) fn new(prefix: GuidPrefix, secure: Option<SecureUse>) -> Self {
        let secure = secure.map(|usage| SecureBuiltin {
            publications_writer: builtin_writer(prefix, SEDP_PUBLICATIONS_SECURE_WRITER),
            publications_reader: builtin_reader(prefix, SEDP_PUBLICATIONS_SECURE_READER),
            subscriptions_writer: builtin_writer(prefix, SEDP_SUBSCRIPTIONS_SECURE_WRITER),
            subscriptions_reader: builtin_reader(prefix, SEDP_SUBSCRIPTIONS_SECURE_READER),
            wlp_writer: builtin_writer(prefix, PARTICIPANT_MESSAGE_SECURE_WRITER),
            wlp_reader: builtin_reader(prefix, PARTICIPANT_MESSAGE_SECURE_READER),
            usage,
            announced: BTreeSet::new(),
        });
        Builtin {
            secure,
            secure_announced: 0,
            publications_writer: builtin_writer(prefix, EntityId::SEDP_PUBLICATIONS_ANNOUNCER),
            publications_reader: builtin_reader(prefix, EntityId::SEDP_PUBLICATIONS_DETECTOR),
            subscriptions_writer: builtin_writer(prefix, EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER),
            subscriptions_reader: builtin_reader(prefix, EntityId::SEDP_SUBSCRIPTIONS_DETECTOR),
            wlp_writer: builtin_writer(prefix, EntityId::P2P_PARTICIPANT_MESSAGE_WRITER),
            wlp_reader: builtin_reader(prefix, EntityId::P2P_PARTICIPANT_MESSAGE_READER),
        }
    }

    /// Matches the remote participant's SEDP endpoints that its BuiltinEndpointSet announces,
    /// reached at `locators` (the one chosen of its metatraffic locators). RTPS 2.5 §8.5.5.1.
    pub(super) fn add_remote_participant(
        &mut self,
        now: Now,
        p: &ParticipantProxyData,
        locators: Vec<Locator>,
    ) {
        let set = p.available_builtin_endpoints;
        let reader = |id| RemoteReader {
            guid: Guid::new(p.guid_prefix, id),
            unicast_locators: locators.clone(),
            multicast_locators: Vec::new(),
            reliable: true,
            expects_inline_qos: false,
            wants_history: true,
        };
        let writer = |id| RemoteWriter {
            guid: Guid::new(p.guid_prefix, id),
            unicast_locators: locators.clone(),
            multicast_locators: Vec::new(),
            reliable: true,
            ownership_strength: 0,
            lifespan: None,
        };
        if set.contains(BuiltinEndpointSet::PUBLICATIONS_DETECTOR) {
            self.publications_writer
                .matched_reader_add(now, reader(EntityId::SEDP_PUBLICATIONS_DETECTOR));
        }
        if set.contains(BuiltinEndpointSet::PUBLICATIONS_ANNOUNCER) {
            self.publications_reader
                .matched_writer_add(now, writer(EntityId::SEDP_PUBLICATIONS_ANNOUNCER));
        }
        if set.contains(BuiltinEndpointSet::SUBSCRIPTIONS_DETECTOR) {
            self.subscriptions_writer
                .matched_reader_add(now, reader(EntityId::SEDP_SUBSCRIPTIONS_DETECTOR));
        }
        if set.contains(BuiltinEndpointSet::SUBSCRIPTIONS_ANNOUNCER) {
            self.subscriptions_reader
                .matched_writer_add(now, writer(EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER));
        }
        // WLP endpoints, BuiltinEndpointSet bits 10/11. RTPS 2.5 §8.4.13.3.
        if set.contains(BuiltinEndpointSet::PARTICIPANT_MESSAGE_READER) {
            self.wlp_writer
                .matched_reader_add(now, reader(EntityId::P2P_PARTICIPANT_MESSAGE_READER));
        }
        if set.contains(BuiltinEndpointSet::PARTICIPANT_MESSAGE_WRITER) {
            self.wlp_reader
                .matched_writer_add(now, writer(EntityId::P2P_PARTICIPANT_MESSAGE_WRITER));
        }
        // DDS-Security 1.1 §7.4.5-6, §7.4.7.1: the secure ones (bits 16-21), only with a
        // participant that authenticates (one with an identity token is matched here only
        // once its handshake completed: `discovery.rs`, held_for_auth).
        let Some(s) = self.secure.as_mut() else {
            return;
        };
        if p.identity_token.is_none() {
            return;
        }
        let has = |bit: u32| set.0 & bit != 0;
        if has(SEDP_PUBLICATIONS_SECURE_DETECTOR) {
            s.publications_writer
                .matched_reader_add(now, reader(SEDP_PUBLICATIONS_SECURE_READER));
        }
        if has(SEDP_PUBLICATIONS_SECURE_ANNOUNCER) {
            s.publications_reader
                .matched_writer_add(now, writer(SEDP_PUBLICATIONS_SECURE_WRITER));
        }
        if has(SEDP_SUBSCRIPTIONS_SECURE_DETECTOR) {
            s.subscriptions_writer
                .matched_reader_add(now, reader(SEDP_SUBSCRIPTIONS_SECURE_READER));
        }
        if has(SEDP_SUBSCRIPTIONS_SECURE_ANNOUNCER) {
            s.subscriptions_reader
                .matched_writer_add(now, writer(SEDP_SUBSCRIPTIONS_SECURE_WRITER));
        }
        if has(PARTICIPANT_MESSAGE_SECURE_DETECTOR) {
            s.wlp_writer
                .matched_reader_add(now, reader(PARTICIPANT_MESSAGE_SECURE_READER));
        }
        if has(PARTICIPANT_MESSAGE_SECURE_ANNOUNCER) {
            s.wlp_reader
                .matched_writer_add(now, writer(PARTICIPANT_MESSAGE_SECURE_WRITER));
        }
    }

    pub(super) fn remove_remote_participant(&mut self, prefix: GuidPrefix) {
        let g = |id| Guid::new(prefix, id);
        self.publications_writer
            .matched_reader_remove(g(EntityId::SEDP_PUBLICATIONS_DETECTOR));
        self.publications_reader
            .matched_writer_remove(g(EntityId::SEDP_PUBLICATIONS_ANNOUNCER));
        self.subscriptions_writer
            .matched_reader_remove(g(EntityId::SEDP_SUBSCRIPTIONS_DETECTOR));
        self.subscriptions_reader
            .matched_writer_remove(g(EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER));
        self.wlp_writer
            .matched_reader_remove(g(EntityId::P2P_PARTICIPANT_MESSAGE_READER));
        self.wlp_reader
            .matched_writer_remove(g(EntityId::P2P_PARTICIPANT_MESSAGE_WRITER));
        if let Some(s) = self.secure.as_mut() {
            s.publications_writer
                .matched_reader_remove(g(SEDP_PUBLICATIONS_SECURE_READER));
            s.publications_reader
                .matched_writer_remove(g(SEDP_PUBLICATIONS_SECURE_WRITER));
            s.subscriptions_writer
                .matched_reader_remove(g(SEDP_SUBSCRIPTIONS_SECURE_READER));
            s.subscriptions_reader
                .matched_writer_remove(g(SEDP_SUBSCRIPTIONS_SECURE_WRITER));
            s.wlp_writer
                .matched_reader_remove(g(PARTICIPANT_MESSAGE_SECURE_READER));
            s.wlp_reader
                .matched_writer_remove(g(PARTICIPANT_MESSAGE_SECURE_WRITER));
        }
    }

    /// Routes a writer-side submessage from a remote SEDP writer. False when not ours.
    pub(super) fn handle_from_writer(
        &mut self,
        now: Now,
        writer: Guid,
        ts: Option<Timestamp>,
        sm: &Submessage<'_>,
    ) -> bool {
        match writer.entity_id {
            EntityId::SEDP_PUBLICATIONS_ANNOUNCER => self
                .publications_reader
                .handle_writer_submessage(now, writer, ts, sm),
            EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER => self
                .subscriptions_reader
                .handle_writer_submessage(now, writer, ts, sm),
            EntityId::P2P_PARTICIPANT_MESSAGE_WRITER => self
                .wlp_reader
                .handle_writer_submessage(now, writer, ts, sm),
            // The secure ones (what reaches them was decoded by the receive transform).
            id if is_secure_builtin(id) => {
                if let Some(s) = self.secure.as_mut() {
                    let reader = match id {
                        SEDP_PUBLICATIONS_SECURE_WRITER => &mut s.publications_reader,
                        SEDP_SUBSCRIPTIONS_SECURE_WRITER => &mut s.subscriptions_reader,
                        PARTICIPANT_MESSAGE_SECURE_WRITER => &mut s.wlp_reader,
                        _ => return true,
                    };
                    reader.handle_writer_submessage(now, writer, ts, sm);
                }
            }
            // Builtin endpoints we do not implement (topics, type lookup, security):
            // silently ignored, as RTPS 2.5 §8.5.4.2 makes them optional.
            id if id.is_builtin() => {}
            _ => return false,
        }
        true
    }

    /// Routes an ACKNACK for one of our SEDP writers. False when not ours.
    pub(super) fn handle_acknack(&mut self, now: Now, reader: Guid, a: &AckNack) -> bool {
        match a.writer_id {
            EntityId::SEDP_PUBLICATIONS_ANNOUNCER => {
                self.publications_writer.handle_acknack(now, reader, a)
            }
            EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER => {
                self.subscriptions_writer.handle_acknack(now, reader, a)
            }
            EntityId::P2P_PARTICIPANT_MESSAGE_WRITER => {
                self.wlp_writer.handle_acknack(now, reader, a)
            }
            id if is_secure_builtin(id) => {
                if let Some(w) = self.secure_writer(id) {
                    w.handle_acknack(now, reader, a);
                }
            }
            // Fast DDS sends pre-emptive ACKNACKs to builtin writers we do not have
            // (TypeLookup, security): ignore them quietly (docs/interop-facts.md §5.9).
            id if id.is_builtin() => {}
            _ => return false,
        }
        true
    }

    /// Routes a NACK_FRAG for one of our SEDP writers. False when not ours.
    pub(super) fn handle_nack_frag(&mut self, now: Now, reader: Guid, n: &NackFrag) -> bool {
        match n.writer_id {
            EntityId::SEDP_PUBLICATIONS_ANNOUNCER => {
                self.publications_writer.handle_nack_frag(now, reader, n)
            }
            EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER => {
                self.subscriptions_writer.handle_nack_frag(now, reader, n)
            }
            EntityId::P2P_PARTICIPANT_MESSAGE_WRITER => {
                self.wlp_writer.handle_nack_frag(now, reader, n)
            }
            id if is_secure_builtin(id) => {
                if let Some(w) = self.secure_writer(id) {
                    w.handle_nack_frag(now, reader, n);
                }
            }
            id if id.is_builtin() => {}
            _ => return false,
        }
        true
    }

    /// Our secure writer `id`, if we have it.
    fn secure_writer(&mut self, id: EntityId) -> Option<&mut Writer> {
        let s = self.secure.as_mut()?;
        match id {
            SEDP_PUBLICATIONS_SECURE_WRITER => Some(&mut s.publications_writer),
            SEDP_SUBSCRIPTIONS_SECURE_WRITER => Some(&mut s.subscriptions_writer),
            PARTICIPANT_MESSAGE_SECURE_WRITER => Some(&mut s.wlp_writer),
            _ => None,
        }
    }

    /// The secure builtin endpoints, when we have them.
    fn secure_if(
        &mut self,
        security_info: Option<&crate::core::discovery::EndpointSecurityInfo>,
    ) -> Option<&mut SecureBuiltin> {
        // DDS-Security 1.1 §7.4.5, §8.8.2.2: an endpoint whose topic rule has
        // enable_discovery_protection is announced on the secure SEDP writers (Cyclone DDS
        // 0.10 `determine_publication_writer`, Fast DDS 2.9 `EDPSimple::processLocalWriterProxyData`).
        let protected = security_info
            .is_some_and(|i| i.endpoint_security_attributes & IS_DISCOVERY_PROTECTED != 0);
        self.secure.as_mut().filter(|_| protected)
    }

    /// DATA(w): announces one of our writers.
    pub(super) fn announce_writer(&mut self, now: Now, data: &PublicationData) {
        let payload = data.to_payload(Endianness::Little);
        let guid = data.guid;
        match self.secure_if(data.endpoint.security_info.as_ref()) {
            Some(s) => {
                s.announced.insert(guid);
                announce(&mut s.publications_writer, now, guid, payload);
                self.secure_announced = self.secure_announced.saturating_add(1);
            }
            None => announce(&mut self.publications_writer, now, guid, payload),
        }
    }

    /// DATA(r): announces one of our readers.
    pub(super) fn announce_reader(&mut self, now: Now, data: &SubscriptionData) {
        let payload = data.to_payload(Endianness::Little);
        let guid = data.guid;
        match self.secure_if(data.endpoint.security_info.as_ref()) {
            Some(s) => {
                s.announced.insert(guid);
                announce(&mut s.subscriptions_writer, now, guid, payload);
                self.secure_announced = self.secure_announced.saturating_add(1);
            }
            None => announce(&mut self.subscriptions_writer, now, guid, payload),
        }
    }

    /// The next sample the SEDP publications readers (plain, then secure) received.
    pub(super) fn poll_publication(&mut self) -> Option<(CacheChange, bool)> {
        if let Some(c) = self.publications_reader.poll_sample() {
            return Some((c, false));
        }
        let s = self.secure.as_mut()?;
        s.publications_reader.poll_sample().map(|c| (c, true))
    }

    /// The next sample the SEDP subscriptions readers (plain, then secure) received.
    pub(super) fn poll_subscription(&mut self) -> Option<(CacheChange, bool)> {
        if let Some(c) = self.subscriptions_reader.poll_sample() {
            return Some((c, false));
        }
        let s = self.secure.as_mut()?;
        s.subscriptions_reader.poll_sample().map(|c| (c, true))
    }

    /// The next sample the WLP readers (plain, then secure) received.
    pub(super) fn poll_wlp(&mut self) -> Option<CacheChange> {
        if let Some(c) = self.wlp_reader.poll_sample() {
            return Some(c);
        }
        self.secure.as_mut()?.wlp_reader.poll_sample()
    }

    /// Writes one update on the WLP writer (KEEP_LAST(1) per kind replaces the previous
    /// one): the secure one under liveliness protection (DDS-Security 1.1 §7.4.6).
    pub(super) fn write_wlp(&mut self, now: Now, m: ParticipantMessageData) {
        let payload = Bytes::from(m.to_payload(Endianness::Little));
        let writer = match self.secure.as_mut() {
            Some(s) if s.usage.liveliness => &mut s.wlp_writer,
            _ => &mut self.wlp_writer,
        };
        if let Err(e) = writer.write(
            now,
            WriteRequest::new(ChangeKind::Alive, Some(m.key_hash()), payload),
        ) {
            log::warn!("cannot write a liveliness update: {e}");
        }
    }

    pub(super) fn unannounce_writer(&mut self, now: Now, guid: Guid) {
        let secure = self.secure.as_mut().filter(|s| s.announced.contains(&guid));
        let writer = match secure {
            Some(s) => {
                s.announced.remove(&guid);
                &mut s.publications_writer
            }
            None => &mut self.publications_writer,
        };
        let _ = writer.write(
            now,
            WriteRequest::new(
                ChangeKind::NotAliveDisposedUnregistered,
                Some(guid.to_bytes()),
                Bytes::new(),
            ),
        );
    }

    pub(super) fn unannounce_reader(&mut self, now: Now, guid: Guid) {
        let secure = self.secure.as_mut().filter(|s| s.announced.contains(&guid));
        let writer = match secure {
            Some(s) => {
                s.announced.remove(&guid);
                &mut s.subscriptions_writer
            }
            None => &mut self.subscriptions_writer,
        };
        let _ = writer.write(
            now,
            WriteRequest::new(
                ChangeKind::NotAliveDisposedUnregistered,
                Some(guid.to_bytes()),
                Bytes::new(),
            ),
        );
    }

    pub(super) fn handle_timeout(&mut self, now: Now) {
        self.publications_writer.handle_timeout(now);
        self.subscriptions_writer.handle_timeout(now);
        self.publications_reader.handle_timeout(now);
        self.subscriptions_reader.handle_timeout(now);
        self.wlp_writer.handle_timeout(now);
        self.wlp_reader.handle_timeout(now);
        if let Some(s) = self.secure.as_mut() {
            s.publications_writer.handle_timeout(now);
            s.subscriptions_writer.handle_timeout(now);
            s.publications_reader.handle_timeout(now);
            s.subscriptions_reader.handle_timeout(now);
            s.wlp_writer.handle_timeout(now);
            s.wlp_reader.handle_timeout(now);
        }
    }

    pub(super) fn poll_timeout(&self) -> Option<Instant> {
        [
            self.publications_writer.poll_timeout(),
            self.subscriptions_writer.poll_timeout(),
            self.publications_reader.poll_timeout(),
            self.subscriptions_reader.poll_timeout(),
            self.wlp_writer.poll_timeout(),
            self.wlp_reader.poll_timeout(),
        ]
        .into_iter()
        .chain(self.secure.iter().flat_map(|s| {
            [
                s.publications_writer.poll_timeout(),
                s.subscriptions_writer.poll_timeout(),
                s.publications_reader.poll_timeout(),
                s.subscriptions_reader.poll_timeout(),
                s.wlp_writer.poll_timeout(),
                s.wlp_reader.poll_timeout(),
            ]
        }))
        .flatten()
        .min()
    }

    pub(super) fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        self.publications_writer
            .poll_transmit(now)
            .or_else(|| self.subscriptions_writer.poll_transmit(now))
            .or_else(|| self.publications_reader.poll_transmit(now))
            .or_else(|| self.subscriptions_reader.poll_transmit(now))
            .or_else(|| self.wlp_writer.poll_transmit(now))
            .or_else(|| self.wlp_reader.poll_transmit(now))
            .or_else(|| {
                let s = self.secure.as_mut()?;
                s.publications_writer
                    .poll_transmit(now)
                    .or_else(|| s.subscriptions_writer.poll_transmit(now))
                    .or_else(|| s.publications_reader.poll_transmit(now))
                    .or_else(|| s.subscriptions_reader.poll_transmit(now))
                    .or_else(|| s.wlp_writer.poll_transmit(now))
                    .or_else(|| s.wlp_reader.poll_transmit(now))
            })
    }
}

/// Writes the SEDP data of our endpoint `guid` (its key) on `writer`.
fn announce<E: core::fmt::Display>(
    writer: &mut Writer,
    now: Now,
    guid: Guid,
    payload: Result<Vec<u8>, E>,
) {
    match payload {
        Ok(payload) => {
            let request = WriteRequest::new(
                ChangeKind::Alive,
                Some(guid.to_bytes()),
                Bytes::from(payload),
            );
            let _ = writer.write(now, request);
        }
        Err(e) => log::warn!("cannot announce endpoint {guid}: {e}"),
    }
}

/// Where a remote participant wants discovery traffic: its metatraffic unicast locators,
/// else its default unicast ones.
pub(super) fn metatraffic_locators(p: &ParticipantProxyData) -> Vec<Locator> {
    if p.metatraffic_unicast_locators.is_empty() {
        p.default_unicast_locators.clone()
    } else {
        p.metatraffic_unicast_locators.clone()
    }
}
