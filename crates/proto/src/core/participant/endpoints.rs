//! Local user DataWriters and DataReaders inside the participant: creation, the SEDP data
//! that announces them, and the commands the API layer issues (write, take).
//!
//! Must not: perform I/O or match endpoints itself (`matching.rs` decides matches).
//!
//! DDS 1.4 §2.2.2.4 (Publisher/DataWriter), §2.2.2.5 (Subscriber/DataReader).

use super::Participant;
use crate::core::discovery::{ContentFilter, EndpointData, PublicationData, SubscriptionData};
use crate::core::reader::{KeyHasher, Reader, ReaderConfig, ReaderFilter};
use crate::core::writer::NotFiltering;
use crate::core::writer::{FilterUpdate, WriteError, Writer, WriterConfig, WriterFilterStats};
use crate::core::{CacheChange, DeadlineMissedStatus, Event, WriteRequest};
use crate::qos::{
    DataReaderQos, DataWriterQos, Durability, Ownership, PublisherQos, ReliabilityKind,
    SubscriberQos,
};
use crate::time::{Now, Timestamp};
use crate::types::TypeDescriptor;
use crate::wire::submessage::Submessage;
use crate::wire::{EntityId, Guid, SequenceNumber, VendorId};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What the application asks for when it creates a DataWriter.
#[derive(Clone, Debug)]
pub struct WriterSpec {
    /// Topic name.
    pub topic_name: String,
    /// Type name as peers know it (e.g. `ShapeType`).
    pub type_name: String,
    /// The type has key fields (entity kind 0x02 instead of 0x03).
    pub keyed: bool,
    /// The writer's QoS.
    pub qos: DataWriterQos,
    /// Its publisher's QoS (partition, presentation).
    pub publisher_qos: PublisherQos,
    /// Samples larger than this are fragmented.
    pub fragment_size: usize,
    /// The sample type's descriptor: with it the writer filters for readers that announce a
    /// content filter (RTPS 2.5 §8.7.3). `None`: it sends everything.
    pub descriptor: Option<Arc<TypeDescriptor>>,
}

/// What the application asks for when it creates a DataReader.
#[derive(Clone, Debug)]
pub struct ReaderSpec {
    /// Topic name.
    pub topic_name: String,
    /// Type name as peers know it.
    pub type_name: String,
    /// The type has key fields (entity kind 0x07 instead of 0x04).
    pub keyed: bool,
    /// The reader's QoS.
    pub qos: DataReaderQos,
    /// Its subscriber's QoS (partition, presentation).
    pub subscriber_qos: SubscriberQos,
    /// A content filter to announce (ContentFilteredTopic), if any. With `descriptor` it is
    /// also applied on delivery unless the writer already did (RTPS 2.5 §8.7.3.3).
    pub content_filter: Option<ContentFilter>,
    /// The sample type's descriptor, to compile `content_filter` against.
    pub descriptor: Option<Arc<TypeDescriptor>>,
    /// Computes key hashes of samples that arrive without PID_KEY_HASH, so that instance QoS
    /// (ownership, deadline, time-based filter, instance states) works with every writer.
    pub key_hasher: Option<KeyHasher>,
    /// Take nothing written before the match (`ReaderConfig::start_at_match`).
    pub start_at_match: bool,
    /// The path vector a router's proxy reader announces (PID_SIFTDDS_ROUTER_PATH,
    /// `router`); empty for application readers.
    pub router_path: Vec<u64>,
}

impl WriterSpec {
    /// Fragment size of [`WriterSpec::new`]: samples above 1024 octets are fragmented.
    pub const DEFAULT_FRAGMENT_SIZE: usize = 1024;

    /// A writer of `topic_name`/`type_name` with `qos`, the default publisher QoS,
    /// [`Self::DEFAULT_FRAGMENT_SIZE`], no type descriptor (no writer-side filtering); set the
    /// fields for anything else.
    pub fn new(
        topic_name: impl Into<String>,
        type_name: impl Into<String>,
        keyed: bool,
        qos: DataWriterQos,
    ) -> Self {
        WriterSpec {
            topic_name: topic_name.into(),
            type_name: type_name.into(),
            keyed,
            qos,
            publisher_qos: PublisherQos::default(),
            fragment_size: Self::DEFAULT_FRAGMENT_SIZE,
            descriptor: None,
        }
    }
}

impl ReaderSpec {
    /// A reader of `topic_name`/`type_name` with `qos`, the default subscriber QoS, no content
    /// filter, descriptor or key hasher; set the fields for anything else.
    pub fn new(
        topic_name: impl Into<String>,
        type_name: impl Into<String>,
        keyed: bool,
        qos: DataReaderQos,
    ) -> Self {
        ReaderSpec {
            topic_name: topic_name.into(),
            type_name: type_name.into(),
            keyed,
            qos,
            subscriber_qos: SubscriberQos::default(),
            content_filter: None,
            descriptor: None,
            key_hasher: None,
            start_at_match: false,
            router_path: Vec::new(),
        }
    }
}

pub(super) struct LocalWriter {
    pub(super) writer: Writer,
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
        feed_reader(&mut self.reader, now, writer, ts, sm);
    }

    /// True once after new samples (or instance notifications) became available.
    pub(super) fn take_data_available(&mut self) -> bool {
        self.reader.take_new_data()
    }
}

/// Hands a writer-side submessage to a reader.
pub(super) fn feed_reader(
    reader: &mut Reader,
    now: Now,
    writer: Guid,
    ts: Option<Timestamp>,
    sm: &Submessage<'_>,
) {
    match sm {
        Submessage::Data(d) => reader.handle_data(now, writer, ts, d),
        Submessage::DataFrag(d) => reader.handle_data_frag(now, writer, ts, d),
        Submessage::Heartbeat(h) => reader.handle_heartbeat(now, writer, h),
        Submessage::HeartbeatFrag(h) => reader.handle_heartbeat_frag(now, writer, h),
        Submessage::Gap(g) => reader.handle_gap(now, writer, g),
        _ => {}
    }
}

impl Participant {
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
        self.start(now);
        let kind = if spec.keyed {
            EntityId::KIND_WRITER_WITH_KEY
        } else {
            EntityId::KIND_WRITER_NO_KEY
        };
        let guid = Guid::new(self.config.guid_prefix, self.next_entity_id(kind));
        self.insert_writer(now, guid, spec, invert_filter_bits, BTreeSet::new());
        guid
    }

    /// Creates the writer `guid` (its entity id already allocated), announces and matches
    /// it; `served` readers are not sent its history.
    pub(super) fn insert_writer(
        &mut self,
        now: Now,
        guid: Guid,
        spec: WriterSpec,
        invert_filter_bits: bool,
        served: BTreeSet<Guid>,
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
        config.multicast = self.config.writer_multicast;
        config.unresponsive_reader_timeout = self.config.unresponsive_reader_timeout;
        let writer = Writer::new(config);
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
        self.durable_writer_created(now, guid);
        self.liveliness_writer_created(now, guid);
        self.pgcache_sync_writer(guid);
        self.announce_writer(now, guid);
        self.match_local_writer(now, guid);
    }

    /// Creates a DataReader and announces it through SEDP. Returns its GUID.
    pub fn create_reader(&mut self, now: Now, spec: ReaderSpec) -> Guid {
        self.start(now);
        let kind = if spec.keyed {
            EntityId::KIND_READER_WITH_KEY
        } else {
            EntityId::KIND_READER_NO_KEY
        };
        let guid = Guid::new(self.config.guid_prefix, self.next_entity_id(kind));
        let reliable = spec.qos.reliability.kind == ReliabilityKind::Reliable;
        let mut config = ReaderConfig::new(guid, reliable, spec.keyed);
        config.history = spec.qos.history;
        config.resource_limits = spec.qos.resource_limits;
        config.deadline = spec.qos.deadline.period.to_std();
        config.time_based_filter = spec.qos.time_based_filter.minimum_separation.to_std();
        config.exclusive_ownership = spec.qos.ownership == Ownership::Exclusive;
        config.key_hasher = spec.key_hasher;
        config.presentation = spec.subscriber_qos.presentation;
        config.start_at_match = spec.start_at_match;
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
        self.announce_reader(now, guid);
        self.match_local_reader(now, guid);
        guid
    }

    /// Deletes a writer: unannounces it (SEDP dispose) and forgets it.
    pub fn delete_writer(&mut self, now: Now, writer: Guid) {
        if let Some(w) = self.writers.remove(&writer.entity_id) {
            self.builtin.unannounce_writer(now, writer);
            self.durable_writer_deleted(now, w);
        }
    }

    /// Deletes a reader: unannounces it (SEDP dispose) and forgets it.
    pub fn delete_reader(&mut self, now: Now, reader: Guid) {
        if self.readers.remove(&reader.entity_id).is_some() {
            self.builtin.unannounce_reader(now, reader);
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
        request.group = self.group_stamp(writer.entity_id);
        let grouped = request.group.is_some();
        let sn = match self.writers.get_mut(&writer.entity_id) {
            // TRANSIENT and PERSISTENT writes also enter the durable history.
            Some(w) if w.spec.qos.durability >= Durability::Transient => {
                let sn = w.writer.write(now, request.clone())?;
                self.durable_written(now, writer, &request);
                sn
            }
            Some(w) => w.writer.write(now, request)?,
            None => return Err(WriteError::UnknownWriter),
        };
        if grouped {
            self.group_written(writer.entity_id);
        }
        // Writing asserts the writer's liveliness (DDS 1.4 §2.2.3.11).
        self.liveliness_writer_wrote(now, writer);
        Ok(sn)
    }

    /// Writer-side content-filtering figures of a local writer.
    pub fn writer_filter_stats(&self, writer: Guid) -> Option<WriterFilterStats> {
        self.writers
            .get(&writer.entity_id)
            .map(|w| w.writer.filter_stats())
    }

    /// A local writer's counters: first transmissions, repairs, heartbeats, ACKNACKs.
    pub fn writer_counters(&self, writer: Guid) -> Option<crate::core::writer::WriterCounters> {
        self.writers
            .get(&writer.entity_id)
            .map(|w| w.writer.counters())
    }

    /// A local reader's counters (content-filter decisions included).
    pub fn reader_counters(&self, reader: Guid) -> Option<crate::core::reader::ReaderCounters> {
        self.readers
            .get(&reader.entity_id)
            .map(|r| *r.reader.counters())
    }

    /// Lower bounds on how many more changes, and payload bytes in all, a local writer
    /// accepts without [`WriteError::HistoryFull`] (none for an unknown writer).
    pub fn writer_room(&self, writer: Guid) -> (usize, usize) {
        self.writers
            .get(&writer.entity_id)
            .map_or((0, 0), |w| w.writer.room())
    }

    /// The payloads a local writer's history removed since the last call, for the caller to
    /// drop (free) off the event loop's thread.
    pub fn take_released(&mut self, writer: Guid) -> Vec<bytes::Bytes> {
        self.writers
            .get_mut(&writer.entity_id)
            .map(|w| w.writer.take_released())
            .unwrap_or_default()
    }

    /// True when every reliable matched reader acknowledged everything written.
    pub fn all_acked(&self, writer: Guid) -> bool {
        self.writers
            .get(&writer.entity_id)
            .is_none_or(|w| w.writer.all_acked())
    }

    /// Number of readers matched with a local writer.
    pub fn matched_readers(&self, writer: Guid) -> usize {
        self.writers
            .get(&writer.entity_id)
            .map_or(0, |w| w.writer.matched_readers())
    }

    /// True when a local reader has samples to take.
    pub fn has_samples(&self, reader: Guid) -> bool {
        self.readers
            .get(&reader.entity_id)
            .is_some_and(|r| r.reader.samples_queued() > 0)
    }

    /// A local reader's matched writers with the highest SN each announced (HEARTBEAT
    /// lastSN) or sent ([`Reader::writers_last_sn`]); empty for an unknown reader.
    pub fn reader_writers_last_sn(&self, reader: Guid) -> Vec<(Guid, SequenceNumber)> {
        self.readers
            .get(&reader.entity_id)
            .map_or_else(Vec::new, |r| r.reader.writers_last_sn())
    }

    /// Number of remote writers matched with a local reader.
    pub fn matched_writers(&self, reader: Guid) -> usize {
        let Some(r) = self.readers.get(&reader.entity_id) else {
            return 0;
        };
        self.remote_writers
            .keys()
            .filter(|w| r.reader.is_matched(**w))
            .count()
    }

    /// Takes (removes) the next received sample or instance change from a local reader,
    /// read or not; samples whose lifespan ended are dropped. DDS 1.4 §2.2.2.5.3.9.
    pub fn take(&mut self, now: Now, reader: Guid) -> Option<CacheChange> {
        self.readers.get_mut(&reader.entity_id)?.reader.take(now)
    }

    /// Takes every sample of a local reader into `out`; `None` when the reader does not exist.
    pub fn take_all(
        &mut self,
        now: Now,
        reader: Guid,
        out: &mut Vec<CacheChange>,
    ) -> Option<usize> {
        Some(
            self.readers
                .get_mut(&reader.entity_id)?
                .reader
                .take_all(now, out),
        )
    }

    /// Returns the samples a local reader has not returned by an earlier `read`, marking
    /// them READ; they stay available to [`Participant::take`]. DDS 1.4 §2.2.2.5.3.8
    /// (read, simplified to NOT_READ samples).
    pub fn read(&mut self, now: Now, reader: Guid) -> Vec<CacheChange> {
        self.readers
            .get_mut(&reader.entity_id)
            .map_or_else(Vec::new, |r| r.reader.read(now))
    }

    /// Every sample a local reader holds, each with whether an earlier read had returned it
    /// (SampleState READ); all are marked READ and stay available to [`Participant::take`].
    /// DDS 1.4 §2.2.2.5.3.8 (read with ANY_SAMPLE_STATE).
    pub fn read_all(&mut self, now: Now, reader: Guid) -> Vec<(CacheChange, bool)> {
        self.readers
            .get_mut(&reader.entity_id)
            .map_or_else(Vec::new, |r| r.reader.read_all(now))
    }

    /// True when a local reader has samples `read` has not returned yet.
    pub fn has_unread(&self, reader: Guid) -> bool {
        self.readers
            .get(&reader.entity_id)
            .is_some_and(|r| r.reader.samples_unread() > 0)
    }

    /// OFFERED_DEADLINE_MISSED status of a local writer. DDS 1.4 §2.2.4.1.
    pub fn offered_deadline_missed(&self, writer: Guid) -> Option<DeadlineMissedStatus> {
        self.writers
            .get(&writer.entity_id)
            .map(|w| w.writer.deadline_status())
    }

    /// REQUESTED_DEADLINE_MISSED status of a local reader. DDS 1.4 §2.2.4.1.
    pub fn requested_deadline_missed(&self, reader: Guid) -> Option<DeadlineMissedStatus> {
        self.readers
            .get(&reader.entity_id)
            .map(|r| r.reader.deadline_status())
    }

    /// Turns the endpoints' missed deadlines into events (after timers ran).
    pub(super) fn collect_deadline_events(&mut self) {
        let mut events = Vec::new();
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
        for e in events {
            self.push_event(e);
        }
    }

    /// The SEDP data describing one of our writers.
    pub(super) fn publication_data(&self, guid: Guid) -> Option<PublicationData> {
        let w = self.writers.get(&guid.entity_id)?;
        Some(PublicationData {
            endpoint: EndpointData {
                guid,
                participant_guid: Guid::new(self.config.guid_prefix, EntityId::PARTICIPANT),
                topic_name: w.spec.topic_name.clone(),
                type_name: w.spec.type_name.clone(),
                unicast_locators: Vec::new(),
                multicast_locators: Vec::new(),
                presentation: w.spec.publisher_qos.presentation,
                partition: w.spec.publisher_qos.partition.clone(),
                group_data: w.spec.publisher_qos.group_data.clone(),
                topic_data: Default::default(),
                group_guid: self.writer_group_guid(guid.entity_id),
                type_information: None,
                router_path: Vec::new(),
                vendor_id: VendorId::SIFTDDS,
            },
            qos: w.spec.qos.clone(),
            pgcache: w.writer.pgcache_announcement(),
        })
    }

    /// The SEDP data describing one of our readers.
    pub(super) fn subscription_data(&self, guid: Guid) -> Option<SubscriptionData> {
        let r = self.readers.get(&guid.entity_id)?;
        Some(SubscriptionData {
            endpoint: EndpointData {
                guid,
                participant_guid: Guid::new(self.config.guid_prefix, EntityId::PARTICIPANT),
                topic_name: r.spec.topic_name.clone(),
                type_name: r.spec.type_name.clone(),
                // With a user multicast locator, announce both lists (an endpoint that lists
                // any locator does not inherit the participant's defaults). RTPS 2.5 §8.5.3.2.
                unicast_locators: match self.config.default_multicast_locators.is_empty() {
                    true => Vec::new(),
                    false => self.config.default_unicast_locators.clone(),
                },
                multicast_locators: self.config.default_multicast_locators.clone(),
                presentation: r.spec.subscriber_qos.presentation,
                partition: r.spec.subscriber_qos.partition.clone(),
                group_data: r.spec.subscriber_qos.group_data.clone(),
                topic_data: Default::default(),
                group_guid: None,
                router_path: r.spec.router_path.clone(),
                type_information: None,
                vendor_id: VendorId::SIFTDDS,
            },
            expects_inline_qos: false,
            qos: r.spec.qos.clone(),
            content_filter: r.spec.content_filter.clone(),
        })
    }
}
