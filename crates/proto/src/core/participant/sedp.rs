//! SEDP: the four reliable builtin endpoints that exchange DiscoveredWriterData and
//! DiscoveredReaderData (plus the WLP pair of the same shape), owned by the discovery part
//! (`discovery.rs`), which stores the remote endpoints they announce; whether those match
//! local ones is `matching.rs`. RTPS 2.5 §8.5.4 (SEDP), §8.5.5.1 (matching the builtin
//! endpoints).
//!
//! Must not: perform I/O.

use bytes::Bytes;

use crate::cdr::Endianness;
use crate::core::discovery::{
    BuiltinEndpointSet, ParticipantMessageData, ParticipantProxyData, PublicationData,
    SubscriptionData,
};
use crate::core::reader::{Reader, ReaderConfig};
use crate::core::writer::{Writer, WriterConfig};
use crate::core::{ChangeKind, RemoteReader, RemoteWriter, Transmit, WriteRequest};
use crate::qos::History;
use crate::time::{Instant, Now, Timestamp};
use crate::wire::submessage::{AckNack, NackFrag, Submessage};
use crate::wire::{EntityId, Guid, GuidPrefix, Locator};

/// The SEDP builtin writers and readers. RTPS 2.5 §8.5.4.2: reliable, TRANSIENT_LOCAL,
/// keyed by the endpoint GUID.
pub(super) struct Builtin {
    publications_writer: Writer,
    pub(super) publications_reader: Reader,
    subscriptions_writer: Writer,
    pub(super) subscriptions_reader: Reader,
    /// WLP participant-message writer (`liveliness.rs`). RTPS 2.5 §8.4.13.3: reliable,
    /// TRANSIENT_LOCAL, KEEP_LAST(1) per instance, keyed — the same shape as the SEDP writers.
    pub(super) wlp_writer: Writer,
    /// WLP participant-message reader.
    pub(super) wlp_reader: Reader,
}

fn builtin_writer(prefix: GuidPrefix, id: EntityId) -> Writer {
    let mut config = WriterConfig::new(Guid::new(prefix, id));
    config.reliable = true;
    config.keyed = true;
    config.durability_transient_local = true;
    config.history = History::KeepLast(1);
    Writer::new(config)
}

fn builtin_reader(prefix: GuidPrefix, id: EntityId) -> Reader {
    let mut config = ReaderConfig::new(Guid::new(prefix, id), true, true);
    config.history = History::KeepAll;
    Reader::new(config)
}

impl Builtin {
    pub(super) fn new(prefix: GuidPrefix) -> Self {
        Builtin {
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
            id if id.is_builtin() => {}
            _ => return false,
        }
        true
    }

    /// DATA(w): announces one of our writers.
    pub(super) fn announce_writer(&mut self, now: Now, data: &PublicationData) {
        let payload = data.to_payload(Endianness::Little);
        announce(&mut self.publications_writer, now, data.guid, payload);
    }

    /// DATA(r): announces one of our readers.
    pub(super) fn announce_reader(&mut self, now: Now, data: &SubscriptionData) {
        let payload = data.to_payload(Endianness::Little);
        announce(&mut self.subscriptions_writer, now, data.guid, payload);
    }

    /// Writes one update on the WLP writer (KEEP_LAST(1) per kind replaces the previous
    /// one).
    pub(super) fn write_wlp(&mut self, now: Now, m: ParticipantMessageData) {
        let payload = Bytes::from(m.to_payload(Endianness::Little));
        if let Err(e) = self.wlp_writer.write(
            now,
            WriteRequest::new(ChangeKind::Alive, Some(m.key_hash()), payload),
        ) {
            log::warn!("cannot write a liveliness update: {e}");
        }
    }

    pub(super) fn unannounce_writer(&mut self, now: Now, guid: Guid) {
        let _ = self.publications_writer.write(
            now,
            WriteRequest::new(
                ChangeKind::NotAliveDisposedUnregistered,
                Some(guid.to_bytes()),
                Bytes::new(),
            ),
        );
    }

    pub(super) fn unannounce_reader(&mut self, now: Now, guid: Guid) {
        let _ = self.subscriptions_writer.write(
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
