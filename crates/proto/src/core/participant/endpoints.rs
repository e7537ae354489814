//! The participant's local user DataWriters and DataReaders ([`Endpoints`]): entity id
//! allocation, creation, the SEDP data that announces them, matching them with remote
//! endpoints (`matching.rs` decides compatibility, this part applies it), and routing a
//! remote writer's submessages to the local readers matched with it.
//!
//! Owns: the local writers and readers, the next entity key, and the index from a remote
//! writer to the local readers matched with it (as Cyclone DDS's proxy writer keeps its
//! readers), so that a submessage reaches its readers without a scan of every reader.
//!
//! Invariant: a local reader is in a remote writer's index entry exactly when the reader
//! `is_matched` that writer (kept on match, unmatch and reader deletion).
//!
//! Must not: perform I/O, store remote endpoints (the discovery part does, `discovery.rs`),
//! or match anything that fails a check (a partial match is an incompatibility).
//!
//! DDS 1.4 §2.2.2.4 (Publisher/DataWriter), §2.2.2.5 (Subscriber/DataReader).

use super::discovery::Discovery;
use super::matching::{self, Side, TypeMatch};
use super::spec::{ReaderSpec, WriterSpec};
use super::{EventQueue, ParticipantConfig};
use crate::core::discovery::{EndpointData, PublicationData, SubscriptionData};
use crate::core::reader::{Reader, ReaderConfig, ReaderFilter};
use crate::core::writer::NotFiltering;
use crate::core::writer::{FilterUpdate, QuietWriter, WriteError, Writer, WriterConfig};
use crate::core::{Event, RemoteReader, RemoteWriter, Transmit, WriteRequest};
use crate::qos::{Durability, Ownership, QosPolicyId, ReliabilityKind};
use crate::time::{Instant, Now, Timestamp};
use crate::wire::submessage::{AckNack, NackFrag, Submessage};
use crate::wire::{EntityId, Guid, GuidPrefix, SequenceNumber, VendorId};
use std::collections::{BTreeMap, BTreeSet};

pub(super) struct LocalWriter {
    pub(super) writer: QuietWriter,
    pub(super) spec: WriterSpec,
    /// Remote readers currently matched (the writer keeps their protocol state).
    pub(super) matched: BTreeSet<Guid>,
    /// Matched readers whose announced filter we could not use and already reported
    /// ([`Event::RemoteFilterRejected`]); at most one entry per matched reader.
    pub(super) filter_rejected: BTreeSet<Guid>,
    /// Readers that already have this writer's history from the writer it took over from
    /// (the durability service, `durability.rs`): they are not sent it again.
    pub(super) served: BTreeSet<Guid>,
}

impl LocalWriter {
    /// Records what setting `reader`'s announced filter (`announced`: it has one) did;
    /// returns the rejection to report when it is new (once per reader until its filter is
    /// applied, removed or the reader unmatched).
    pub(super) fn note_filter_update(
        &mut self,
        reader: Guid,
        announced: bool,
        update: FilterUpdate,
    ) -> Option<NotFiltering> {
        if !announced {
            self.filter_rejected.remove(&reader);
        }
        match update {
            FilterUpdate::Rejected(why) => self.filter_rejected.insert(reader).then_some(why),
            FilterUpdate::Applied => {
                self.filter_rejected.remove(&reader);
                None
            }
            FilterUpdate::Unchanged => None,
        }
    }
}

pub(super) struct LocalReader {
    pub(super) reader: Reader,
    pub(super) spec: ReaderSpec,
}

impl LocalReader {
    pub(super) fn handle_from_writer(
        &mut self,
        now: Now,
        writer: Guid,
        ts: Option<Timestamp>,
        sm: &Submessage<'_>,
    ) {
        self.reader.handle_writer_submessage(now, writer, ts, sm);
    }

    /// True once after new samples (or instance notifications) became available.
    pub(super) fn take_data_available(&mut self) -> bool {
        self.reader.take_new_data()
    }
}

/// What a match evaluation changed that other parts follow up on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum MatchOutcome {
    /// A local writer matched (or re-matched) a remote reader.
    WriterMatched,
    /// A local reader matched (`true`) or unmatched a remote writer.
    ReaderChanged(bool),
}

/// The participant's local user endpoints (see the module overview).
pub(super) struct Endpoints {
    writers: BTreeMap<EntityId, LocalWriter>,
    readers: BTreeMap<EntityId, LocalReader>,
    next_entity_key: u32,
    /// Remote writer → the local readers matched with it.
    by_remote_writer: BTreeMap<Guid, BTreeSet<EntityId>>,
}

impl Default for Endpoints {
    fn default() -> Self {
        Endpoints {
            writers: BTreeMap::new(),
            readers: BTreeMap::new(),
            next_entity_key: 1,
            by_remote_writer: BTreeMap::new(),
        }
    }
}

impl Endpoints {
    /// A fresh entity id of `kind` (RTPS 2.5 §9.3.1.2: a 3-octet key and the kind).
    pub(super) fn next_entity_id(&mut self, kind: u8) -> EntityId {
        let key = self.next_entity_key;
        self.next_entity_key = self.next_entity_key.wrapping_add(1);
        let [_, a, b, c] = key.to_be_bytes();
        EntityId([a, b, c, kind])
    }

    pub(super) fn writer(&self, guid: Guid) -> Option<&LocalWriter> {
        self.writers.get(&guid.entity_id)
    }

    pub(super) fn writer_mut(&mut self, guid: Guid) -> Option<&mut LocalWriter> {
        self.writers.get_mut(&guid.entity_id)
    }

    pub(super) fn reader(&self, guid: Guid) -> Option<&LocalReader> {
        self.readers.get(&guid.entity_id)
    }

    pub(super) fn reader_mut(&mut self, guid: Guid) -> Option<&mut LocalReader> {
        self.readers.get_mut(&guid.entity_id)
    }

    pub(super) fn writer_by_id_mut(&mut self, id: EntityId) -> Option<&mut LocalWriter> {
        self.writers.get_mut(&id)
    }

    pub(super) fn reader_by_id_mut(&mut self, id: EntityId) -> Option<&mut LocalReader> {
        self.readers.get_mut(&id)
    }

    pub(super) fn has_writer(&self, id: EntityId) -> bool {
        self.writers.contains_key(&id)
    }

    /// The local writers, by entity id.
    pub(super) fn writers(&self) -> impl Iterator<Item = (&EntityId, &LocalWriter)> {
        self.writers.iter()
    }

    pub(super) fn writers_mut(&mut self) -> impl Iterator<Item = (&EntityId, &mut LocalWriter)> {
        self.writers.iter_mut()
    }

    pub(super) fn readers_mut(&mut self) -> impl Iterator<Item = (&EntityId, &mut LocalReader)> {
        self.readers.iter_mut()
    }

    /// The GUIDs of our writers (prefix `ours`).
    pub(super) fn writer_guids(&self, ours: GuidPrefix) -> Vec<Guid> {
        self.writers.keys().map(|id| Guid::new(ours, *id)).collect()
    }

    /// The GUIDs of our readers (prefix `ours`).
    pub(super) fn reader_guids(&self, ours: GuidPrefix) -> Vec<Guid> {
        self.readers.keys().map(|id| Guid::new(ours, *id)).collect()
    }

    /// The local readers matched with remote writer `writer`, by GUID.
    pub(super) fn readers_of(&self, writer: Guid) -> Vec<Guid> {
        let Some(ids) = self.by_remote_writer.get(&writer) else {
            return Vec::new();
        };
        ids.iter()
            .filter_map(|id| self.readers.get(id))
            .map(|r| r.reader.guid())
            .collect()
    }

    /// True when some local reader is matched with remote writer `writer`.
    pub(super) fn any_reader_of(&self, writer: Guid) -> bool {
        self.by_remote_writer.contains_key(&writer)
    }

    /// Builds the writer `guid` (its entity id already allocated) from `spec`; `served`
    /// readers are not sent its history. Announcing and matching it is the caller's.
    pub(super) fn insert_writer(
        &mut self,
        guid: Guid,
        spec: WriterSpec,
        invert_filter_bits: bool,
        served: BTreeSet<Guid>,
        participant: &ParticipantConfig,
    ) {
        let mut config = WriterConfig::new(guid);
        config.reliable = spec.qos.reliability.kind == ReliabilityKind::Reliable;
        config.history = spec.qos.history;
        config.resource_limits = spec.qos.resource_limits;
        config.durability_transient_local = spec.qos.durability >= Durability::TransientLocal;
        config.fragment_size = spec.fragment_size;
        config.keyed = spec.keyed;
        config.deadline = spec.qos.deadline.period.to_std();
        config.lifespan = spec.qos.lifespan.duration.to_std();
        config.topic_name = spec.topic_name.clone();
        config.descriptor = spec.descriptor.clone();
        #[cfg(any(test, feature = "test-hooks"))]
        {
            config.invert_filter_bit_for_tests = invert_filter_bits;
        }
        #[cfg(not(any(test, feature = "test-hooks")))]
        debug_assert!(
            !invert_filter_bits,
            "the test hook needs the test-hooks feature"
        );
        config.multicast = participant.writer_multicast;
        config.unresponsive_reader_timeout = participant.unresponsive_reader_timeout;
        let writer = QuietWriter::new(Writer::new(config));
        self.writers.insert(
            guid.entity_id,
            LocalWriter {
                writer,
                spec,
                matched: BTreeSet::new(),
                filter_rejected: BTreeSet::new(),
                served,
            },
        );
    }

    /// Builds the reader `guid` (its entity id already allocated) from `spec`.
    pub(super) fn insert_reader(&mut self, guid: Guid, spec: ReaderSpec) {
        let reliable = spec.qos.reliability.kind == ReliabilityKind::Reliable;
        let mut config = ReaderConfig::new(guid, reliable, spec.keyed);
        config.history = spec.qos.history;
        config.resource_limits = spec.qos.resource_limits;
        config.deadline = spec.qos.deadline.period.to_std();
        config.time_based_filter = spec.qos.time_based_filter.minimum_separation.to_std();
        config.exclusive_ownership = spec.qos.ownership == Ownership::Exclusive;
        config.key_hasher = spec.key_hasher;
        config.presentation = spec.subscriber_qos.presentation;
        config.start_at_match = spec.starts_at_match();
        config.content_filter = spec.content_filter.as_ref().and_then(|f| {
            let d = spec.descriptor.as_ref()?;
            match ReaderFilter::compile(f, d) {
                Ok(rf) => Some(rf),
                Err(e) => {
                    let expr = &f.filter_expression;
                    log::warn!("reader {guid}: filter {expr:?} not applied locally: {e}");
                    None
                }
            }
        });
        let reader = Reader::new(config);
        self.readers
            .insert(guid.entity_id, LocalReader { reader, spec });
    }

    /// Removes a local writer, returning it.
    pub(super) fn remove_writer(&mut self, writer: Guid) -> Option<LocalWriter> {
        self.writers.remove(&writer.entity_id)
    }

    /// Removes a local reader (and its index entries). False when there was none.
    pub(super) fn remove_reader(&mut self, reader: Guid) -> bool {
        if self.readers.remove(&reader.entity_id).is_none() {
            return false;
        }
        self.by_remote_writer.retain(|_, ids| {
            ids.remove(&reader.entity_id);
            !ids.is_empty()
        });
        true
    }

    /// Hands `request` to local writer `writer`.
    pub(super) fn write(
        &mut self,
        now: Now,
        writer: Guid,
        request: WriteRequest,
    ) -> Result<SequenceNumber, WriteError> {
        match self.writers.get_mut(&writer.entity_id) {
            Some(w) => w.writer.write(now, request),
            None => Err(WriteError::UnknownWriter),
        }
    }

    /// Gives a writer's submessage to every local reader matched with that writer (or only
    /// to the addressed one). Returns false when no reader took it.
    pub(super) fn deliver(
        &mut self,
        now: Now,
        writer: Guid,
        ts: Option<Timestamp>,
        sm: &Submessage<'_>,
    ) -> bool {
        let Some(reader_id) = sm.reader_id() else {
            return false;
        };
        let Some(ids) = self.by_remote_writer.get(&writer) else {
            // No reader matched with it yet: a reader that starts at the match may want to
            // know its DATA came first (`Reader::note_unmatched_data`).
            let sn = match sm {
                Submessage::Data(d) => d.writer_sn,
                Submessage::DataFrag(f) => f.writer_sn,
                _ => return false,
            };
            for (id, r) in &mut self.readers {
                if reader_id == EntityId::UNKNOWN || *id == reader_id {
                    r.reader.note_unmatched_data(writer, sn);
                }
            }
            return false;
        };
        let mut taken = false;
        for id in ids {
            if reader_id != EntityId::UNKNOWN && *id != reader_id {
                continue;
            }
            let Some(r) = self.readers.get_mut(id) else {
                continue;
            };
            if !r.reader.is_matched(writer) {
                continue;
            }
            taken = true;
            r.handle_from_writer(now, writer, ts, sm);
        }
        taken
    }

    /// Routes an ACKNACK to the local writer it names. False when there is none.
    pub(super) fn handle_acknack(&mut self, now: Now, reader: Guid, a: &AckNack) -> bool {
        match self.writers.get_mut(&a.writer_id) {
            Some(w) => {
                w.writer.handle_acknack(now, reader, a);
                true
            }
            None => false,
        }
    }

    /// Routes a NACK_FRAG to the local writer it names. False when there is none.
    pub(super) fn handle_nack_frag(&mut self, now: Now, reader: Guid, n: &NackFrag) -> bool {
        match self.writers.get_mut(&n.writer_id) {
            Some(w) => {
                w.writer.handle_nack_frag(now, reader, n);
                true
            }
            None => false,
        }
    }

    pub(super) fn handle_writers_timeout(&mut self, now: Now) {
        for w in self.writers.values_mut() {
            w.writer.handle_timeout(now);
        }
    }

    pub(super) fn handle_readers_timeout(&mut self, now: Now) {
        for r in self.readers.values_mut() {
            r.reader.handle_timeout(now);
        }
    }

    /// The earliest timer of any local writer or reader.
    pub(super) fn poll_timeout(&self) -> Option<Instant> {
        let writers = self
            .writers
            .values()
            .filter_map(|w| w.writer.poll_timeout());
        let readers = self
            .readers
            .values()
            .filter_map(|r| r.reader.poll_timeout());
        writers.chain(readers).min()
    }

    /// The next datagram a local writer, else a local reader, wants sent.
    pub(super) fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
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

    /// The readers that got new data since the last call.
    pub(super) fn take_data_available(&mut self) -> Vec<Guid> {
        self.readers
            .values_mut()
            .filter_map(|r| r.take_data_available().then(|| r.reader.guid()))
            .collect()
    }

    /// Turns the endpoints' missed deadlines into events (after timers ran).
    pub(super) fn collect_deadline_events(&mut self, events: &mut EventQueue) {
        for w in self.writers.values_mut() {
            let writer = w.writer.guid();
            while let Some(key_hash) = w.writer.poll_deadline_missed() {
                events.push(Event::OfferedDeadlineMissed { writer, key_hash });
            }
        }
        for r in self.readers.values_mut() {
            let reader = r.reader.guid();
            while let Some(key_hash) = r.reader.poll_deadline_missed() {
                events.push(Event::RequestedDeadlineMissed { reader, key_hash });
            }
        }
    }

    /// The SEDP data describing one of our writers; `group_guid` names its writer group.
    pub(super) fn publication_data(
        &self,
        guid: Guid,
        config: &ParticipantConfig,
        group_guid: Option<Guid>,
    ) -> Option<PublicationData> {
        let w = self.writers.get(&guid.entity_id)?;
        Some(PublicationData {
            endpoint: EndpointData {
                guid,
                participant_guid: Guid::new(config.guid_prefix, EntityId::PARTICIPANT),
                topic_name: w.spec.topic_name.clone(),
                type_name: w.spec.type_name.clone(),
                unicast_locators: Vec::new(),
                multicast_locators: Vec::new(),
                presentation: w.spec.publisher_qos.presentation,
                partition: w.spec.publisher_qos.partition.clone(),
                group_data: w.spec.publisher_qos.group_data.clone(),
                topic_data: Default::default(),
                group_guid,
                type_information: None,
                type_object_v1: None,
                router_path: Vec::new(),
                security_info: None,
                vendor_id: VendorId::SIFTDDS,
            },
            qos: w.spec.qos.clone(),
            peer_group: w.writer.peer_group_announcement(),
        })
    }

    /// The SEDP data describing one of our readers.
    pub(super) fn subscription_data(
        &self,
        guid: Guid,
        config: &ParticipantConfig,
    ) -> Option<SubscriptionData> {
        let r = self.readers.get(&guid.entity_id)?;
        Some(SubscriptionData {
            endpoint: EndpointData {
                guid,
                participant_guid: Guid::new(config.guid_prefix, EntityId::PARTICIPANT),
                topic_name: r.spec.topic_name.clone(),
                type_name: r.spec.type_name.clone(),
                // With a user multicast locator, announce both lists (an endpoint that lists
                // any locator does not inherit the participant's defaults). RTPS 2.5 §8.5.3.2.
                unicast_locators: match config.default_multicast_locators.is_empty() {
                    true => Vec::new(),
                    false => config.default_unicast_locators.clone(),
                },
                multicast_locators: config.default_multicast_locators.clone(),
                presentation: r.spec.subscriber_qos.presentation,
                partition: r.spec.subscriber_qos.partition.clone(),
                group_data: r.spec.subscriber_qos.group_data.clone(),
                topic_data: Default::default(),
                group_guid: None,
                router_path: r.spec.router_path.clone(),
                type_information: None,
                security_info: None,
                type_object_v1: None,
                vendor_id: VendorId::SIFTDDS,
            },
            expects_inline_qos: false,
            qos: r.spec.qos.clone(),
            content_filter: r.spec.content_filter.clone(),
        })
    }

    /// Decides whether `writer` and `reader` (one local, one remote) communicate, their
    /// `types` already decided (`matching::decide_types`), and makes the local side match,
    /// unmatch or report incompatible QoS. DDS 1.4 §2.2.3; RTPS 2.5 §8.5.5 (topic and type
    /// names, keyed-ness, RxO, partitions); DDS-XTypes 1.3 §7.6.3.4 (a writer's type not
    /// assignable to the reader's is reported as TYPE_CONSISTENCY_ENFORCEMENT, with one log
    /// line giving the reason). Returns what other parts follow up on.
    pub(super) fn evaluate_match(
        &mut self,
        now: Now,
        (writer, reader): (Guid, Guid),
        types: TypeMatch,
        config: &ParticipantConfig,
        discovery: &Discovery,
        events: &mut EventQueue,
    ) -> Option<MatchOutcome> {
        let ours = config.guid_prefix;
        let offered = if writer.prefix == ours {
            let w = self.writers.get(&writer.entity_id)?;
            Side::local_writer(&w.spec)
        } else {
            Side::remote_writer(discovery.remote_writer(writer)?)
        };
        let requested = if reader.prefix == ours {
            let r = self.readers.get(&reader.entity_id)?;
            Side::local_reader(&r.spec)
        } else {
            Side::remote_reader(discovery.remote_reader(reader)?)
        };
        let verdict = matching::decide(writer, reader, &offered, &requested, types)?;
        let mut failed = verdict.rxo.err().unwrap_or_default();
        if let TypeMatch::NotAssignable(why) = &verdict.types {
            if verdict.same_type_and_partitions {
                log::warn!(
                    "writer {writer} and reader {reader}: not matched, the writer's type is \
                     not assignable to the reader's: {why}"
                );
                failed.insert(QosPolicyId::TypeConsistencyEnforcement);
            }
        }
        if !failed.is_empty() && verdict.same_type_and_partitions {
            let policies = failed;
            let event = if writer.prefix == ours {
                Event::OfferedIncompatibleQos {
                    writer,
                    reader,
                    policies,
                }
            } else {
                Event::RequestedIncompatibleQos {
                    reader,
                    writer,
                    policies,
                }
            };
            events.push(event);
        }
        let compatible = verdict.compatible();
        if writer.prefix == ours {
            self.apply_writer_match(now, (writer, reader), compatible, config, discovery, events)
        } else {
            self.apply_reader_match(now, (writer, reader), compatible, config, discovery, events)
        }
    }

    fn apply_writer_match(
        &mut self,
        now: Now,
        (writer, reader): (Guid, Guid),
        compatible: bool,
        config: &ParticipantConfig,
        discovery: &Discovery,
        events: &mut EventQueue,
    ) -> Option<MatchOutcome> {
        let remote = discovery.remote_reader(reader)?;
        let (unicast, multicast) = discovery.endpoint_locators(
            reader.prefix,
            &remote.unicast_locators,
            &remote.multicast_locators,
            &config.interfaces,
        );
        let mut proxy = RemoteReader {
            guid: reader,
            unicast_locators: unicast,
            multicast_locators: multicast,
            reliable: remote.qos.reliability.kind == ReliabilityKind::Reliable,
            expects_inline_qos: remote.expects_inline_qos,
            wants_history: remote.qos.durability >= Durability::TransientLocal,
        };
        let filter = remote.content_filter.clone();
        let w = self.writers.get_mut(&writer.entity_id)?;
        // A reader the durability service already served its history to (durability.rs).
        proxy.wants_history &= !w.served.contains(&reader);
        let was = w.matched.contains(&reader);
        if compatible {
            w.writer.matched_reader_add(now, proxy);
            w.matched.insert(reader);
            // RTPS 2.5 §8.7.3: filter for it if we can (a re-announced changed filter replaces
            // the old one); an unusable filter means it gets everything and filters itself.
            let update = w.writer.set_reader_filter(reader, filter.as_ref());
            if let Some(reason) = w.note_filter_update(reader, filter.is_some(), update) {
                log::warn!("writer {writer}: not filtering for reader {reader}: {reason}");
                events.push(Event::RemoteFilterRejected {
                    writer,
                    reader,
                    reason,
                });
            }
        } else if was {
            w.writer.matched_reader_remove(reader);
            w.matched.remove(&reader);
            w.filter_rejected.remove(&reader);
        }
        if compatible != was {
            events.push(Event::PublicationMatched {
                writer,
                reader,
                matched: compatible,
            });
        }
        compatible.then_some(MatchOutcome::WriterMatched)
    }

    fn apply_reader_match(
        &mut self,
        now: Now,
        (writer, reader): (Guid, Guid),
        compatible: bool,
        config: &ParticipantConfig,
        discovery: &Discovery,
        events: &mut EventQueue,
    ) -> Option<MatchOutcome> {
        let remote = discovery.remote_writer(writer)?;
        let (unicast, multicast) = discovery.endpoint_locators(
            writer.prefix,
            &remote.unicast_locators,
            &remote.multicast_locators,
            &config.interfaces,
        );
        let proxy = RemoteWriter {
            guid: writer,
            unicast_locators: unicast,
            multicast_locators: multicast,
            reliable: remote.qos.reliability.kind == ReliabilityKind::Reliable,
            ownership_strength: remote.qos.ownership_strength.value,
            lifespan: remote.qos.lifespan.duration.to_std(),
        };
        let r = self.readers.get_mut(&reader.entity_id)?;
        let was = r.reader.is_matched(writer);
        if compatible {
            r.reader.matched_writer_add(now, proxy);
            self.index_add(writer, reader.entity_id);
        } else if was {
            r.reader.matched_writer_remove(writer);
            self.index_remove(writer, reader.entity_id);
        }
        if compatible == was {
            return None;
        }
        events.push(Event::SubscriptionMatched {
            reader,
            writer,
            matched: compatible,
        });
        Some(MatchOutcome::ReaderChanged(compatible))
    }

    /// Unmatches remote writer `writer` (gone) from every local reader; returns those that
    /// were matched with it.
    pub(super) fn unmatch_remote_writer(&mut self, writer: Guid) -> Vec<Guid> {
        let Some(ids) = self.by_remote_writer.remove(&writer) else {
            return Vec::new();
        };
        let mut unmatched = Vec::new();
        for id in ids {
            if let Some(r) = self.readers.get_mut(&id) {
                if r.reader.matched_writer_remove(writer) {
                    unmatched.push(r.reader.guid());
                }
            }
        }
        unmatched
    }

    /// Unmatches remote reader `reader` (gone) from every local writer; returns those that
    /// were matched with it.
    pub(super) fn unmatch_remote_reader(&mut self, reader: Guid) -> Vec<Guid> {
        let mut unmatched = Vec::new();
        for w in self.writers.values_mut() {
            w.filter_rejected.remove(&reader);
            if w.matched.remove(&reader) {
                w.writer.matched_reader_remove(reader);
                unmatched.push(w.writer.guid());
            }
        }
        unmatched
    }

    fn index_add(&mut self, writer: Guid, reader: EntityId) {
        self.by_remote_writer
            .entry(writer)
            .or_default()
            .insert(reader);
    }

    fn index_remove(&mut self, writer: Guid, reader: EntityId) {
        if let Some(ids) = self.by_remote_writer.get_mut(&writer) {
            ids.remove(&reader);
            if ids.is_empty() {
                self.by_remote_writer.remove(&writer);
            }
        }
    }

    /// Test aid: the index agrees with every reader's matched writers.
    #[cfg(test)]
    pub(super) fn index_is_consistent(&self, remote_writers: &[Guid]) -> bool {
        let indexed = self.by_remote_writer.iter().all(|(w, ids)| {
            !ids.is_empty()
                && ids.iter().all(|id| {
                    self.readers
                        .get(id)
                        .is_some_and(|r| r.reader.is_matched(*w))
                })
        });
        let complete = remote_writers.iter().all(|w| {
            self.readers.iter().all(|(id, r)| {
                r.reader.is_matched(*w)
                    == self
                        .by_remote_writer
                        .get(w)
                        .is_some_and(|ids| ids.contains(id))
            })
        });
        indexed && complete
    }
}
