//! Topics, publishers, subscribers, DataWriters and DataReaders of the public API.
//!
//! Must not: hold protocol state; every operation is a command to the participant's event
//! loop. DDS 1.4 §2.2.2.3-§2.2.2.5.

use std::marker::PhantomData;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use bytes::Bytes;

use super::{DomainParticipant, Error};
use crate::cdr::Endianness;
use crate::core::discovery::ContentFilter;
use crate::core::participant::{ReaderSpec, WriterSpec};
use crate::core::reader::{KeyHasher, ReaderCounters, ReaderFilter};
use crate::core::writer::{WriterCounters, WriterFilterStats};
use crate::core::{CacheChange, ChangeKind, DeadlineMissedStatus, Participant, WriteRequest};
use crate::qos::{DataReaderQos, DataWriterQos, Durability, PublisherQos, SubscriberQos, TopicQos};
use crate::runtime::WriteCredit;
use crate::runtime::durability_store::PersistentWriteError;
use crate::time::{Now, Timestamp};
use crate::types::{TopicType, XcdrVersion};
use crate::wire::Guid;

/// Default DATA_FRAG threshold for user writers: large fragments (loopback MTU is 64 KiB).
pub const DEFAULT_FRAGMENT_SIZE: usize = 60_000;

/// A topic: a name bound to a type. DDS 1.4 §2.2.2.3.
#[derive(Clone, Debug)]
pub struct Topic<T> {
    name: String,
    qos: TopicQos,
    _type: PhantomData<fn() -> T>,
}

impl<T: TopicType> Topic<T> {
    pub(super) fn new(name: &str, qos: TopicQos) -> Self {
        Topic {
            name: name.to_string(),
            qos,
            _type: PhantomData,
        }
    }

    /// The topic name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The topic QoS.
    pub fn qos(&self) -> &TopicQos {
        &self.qos
    }
}

/// Groups writers; holds PARTITION and PRESENTATION. DDS 1.4 §2.2.2.4.1.
#[derive(Clone)]
pub struct Publisher {
    pub(super) participant: DomainParticipant,
    pub(super) qos: PublisherQos,
    /// The writers created by this publisher (and its clones), for coherent changes
    /// (`coherent.rs`).
    pub(super) writers: Arc<RwLock<Vec<Guid>>>,
}

impl Publisher {
    /// Creates a DataWriter on `topic`.
    pub fn create_datawriter<T: TopicType>(
        &self,
        topic: &Topic<T>,
        qos: DataWriterQos,
    ) -> Result<DataWriter<T>, Error> {
        self.create_datawriter_with_fragment_size(topic, qos, DEFAULT_FRAGMENT_SIZE)
    }

    /// Creates a DataWriter on `topic` that sends samples larger than `fragment_size` bytes as
    /// DATA_FRAG submessages of that size (clamped to `1..=65535` and to what fits a datagram).
    /// RTPS 2.5 §8.4.14.1.
    pub fn create_datawriter_with_fragment_size<T: TopicType>(
        &self,
        topic: &Topic<T>,
        qos: DataWriterQos,
        fragment_size: usize,
    ) -> Result<DataWriter<T>, Error> {
        self.make_datawriter(topic, qos, fragment_size, Participant::create_writer)
    }

    /// Test hook (feature `test-hooks`): a DataWriter that sends every sample to every reader
    /// it filters for, with that reader's PID_CONTENT_FILTER_INFO bit inverted (proves peers
    /// trust the bit).
    #[cfg(feature = "test-hooks")]
    pub fn create_datawriter_inverting_filter_bits_for_tests<T: TopicType>(
        &self,
        topic: &Topic<T>,
        qos: DataWriterQos,
    ) -> Result<DataWriter<T>, Error> {
        self.make_datawriter(
            topic,
            qos,
            DEFAULT_FRAGMENT_SIZE,
            Participant::create_writer_inverting_filter_bits_for_tests,
        )
    }

    /// Creates the writer on the loop with `create` (the core participant's constructor).
    fn make_datawriter<T: TopicType>(
        &self,
        topic: &Topic<T>,
        qos: DataWriterQos,
        fragment_size: usize,
        create: fn(&mut Participant, Now, WriterSpec) -> Guid,
    ) -> Result<DataWriter<T>, Error> {
        qos.check_consistency().map_err(Error::Qos)?;
        let representation = writer_representation::<T>(&qos)?;
        let max_blocking = qos
            .reliability
            .max_blocking_time
            .to_std()
            .unwrap_or(Duration::MAX);
        let spec = WriterSpec {
            topic_name: topic.name.clone(),
            type_name: T::type_name().to_string(),
            keyed: T::is_keyed(),
            qos,
            publisher_qos: self.qos.clone(),
            fragment_size,
            descriptor: T::descriptor().map(|d| Arc::new(d.clone())),
        };
        let persistent = spec.qos.durability == Durability::Persistent;
        let inner = &self.participant.inner;
        let guid = match persistent {
            // DDS 1.4 §2.2.3.4: it starts with what the store kept of the topic.
            true => inner
                .handle
                .create_persistent_writer(
                    &inner.store,
                    &spec.topic_name.clone(),
                    &spec.type_name.clone(),
                    spec.qos.durability_service.clone(),
                    move |p, now| create(p, now, spec),
                )
                .map_err(|e| Error::from(PersistentWriteError::Store(e)))?,
            false => inner.handle.execute(move |p, now| create(p, now, spec))?,
        };
        self.joined(guid)?;
        Ok(DataWriter {
            persistent,
            participant: self.participant.clone(),
            guid,
            max_blocking,
            representation,
            credit: WriteCredit::new(),
            _type: PhantomData,
        })
    }
}

/// Groups readers; holds PARTITION and PRESENTATION. DDS 1.4 §2.2.2.5.1.
#[derive(Clone)]
pub struct Subscriber {
    pub(super) participant: DomainParticipant,
    pub(super) qos: SubscriberQos,
}

impl Subscriber {
    /// Creates a DataReader on `topic`.
    pub fn create_datareader<T: TopicType>(
        &self,
        topic: &Topic<T>,
        qos: DataReaderQos,
    ) -> Result<DataReader<T>, Error> {
        self.create_reader(topic, qos, None)
    }

    /// Creates a DataReader on a ContentFilteredTopic of `topic`: the filter is announced to
    /// writers (PID_CONTENT_FILTER_PROPERTY) so that they can filter for us.
    pub fn create_filtered_datareader<T: TopicType>(
        &self,
        topic: &Topic<T>,
        filtered_topic_name: &str,
        expression: &str,
        parameters: &[&str],
        qos: DataReaderQos,
    ) -> Result<DataReader<T>, Error> {
        let filter = ContentFilter {
            content_filtered_topic_name: filtered_topic_name.to_string(),
            related_topic_name: topic.name.clone(),
            filter_class_name: "DDSSQL".to_string(),
            filter_expression: expression.to_string(),
            expression_parameters: parameters.iter().map(|s| s.to_string()).collect(),
        };
        // A filter that does not parse or type-check fails the creation (as Cyclone, Fast
        // DDS and RTI do), instead of a reader that silently delivers everything.
        ReaderFilter::check(&filter, T::descriptor()).map_err(Error::ContentFilter)?;
        self.create_reader(topic, qos, Some(filter))
    }

    fn create_reader<T: TopicType>(
        &self,
        topic: &Topic<T>,
        qos: DataReaderQos,
        content_filter: Option<ContentFilter>,
    ) -> Result<DataReader<T>, Error> {
        qos.check_consistency().map_err(Error::Qos)?;
        check_reader_representations::<T>(&qos)?;
        let spec = ReaderSpec {
            topic_name: topic.name.clone(),
            type_name: T::type_name().to_string(),
            keyed: T::is_keyed(),
            qos,
            subscriber_qos: self.qos.clone(),
            content_filter,
            descriptor: T::descriptor().map(|d| Arc::new(d.clone())),
            key_hasher: T::is_keyed().then_some(KeyHasher(key_hash_of::<T>)),
            start_at_match: false,
            router_path: Vec::new(),
        };
        let guid = self
            .participant
            .inner
            .handle
            .execute(move |p, now| p.create_reader(now, spec))?;
        Ok(DataReader {
            participant: self.participant.clone(),
            guid,
            _type: PhantomData,
        })
    }
}

/// What a listener may do on the event-loop thread: write, without waiting.
pub struct ListenerContext<'a> {
    participant: &'a mut Participant,
    now: Now,
}

impl ListenerContext<'_> {
    /// Writes `sample` with the writer `writer` ([`DataWriter::guid`]) now; a full KEEP_ALL
    /// history is an error at once (a listener cannot block). The listener holds the GUID,
    /// not the `DataWriter`: a handle dropped on the loop thread would wait for itself.
    /// DDS 1.4 §2.2.2.4.2.11.
    pub fn write<U: TopicType>(&mut self, writer: Guid, sample: &U) -> Result<(), Error> {
        self.write_stamped(writer, sample, None)
    }

    /// [`ListenerContext::write`] with `timestamp` as the source timestamp instead of now.
    /// DDS 1.4 §2.2.2.4.2.12 (write_w_timestamp).
    pub fn write_w_timestamp<U: TopicType>(
        &mut self,
        writer: Guid,
        sample: &U,
        timestamp: Timestamp,
    ) -> Result<(), Error> {
        self.write_stamped(writer, sample, Some(timestamp))
    }

    /// Writes `sample` now; `timestamp` (else now) is its source timestamp.
    fn write_stamped<U: TopicType>(
        &mut self,
        writer: Guid,
        sample: &U,
        timestamp: Option<Timestamp>,
    ) -> Result<(), Error> {
        let data = Bytes::from(sample.serialize(Endianness::Little));
        let request = WriteRequest::new(ChangeKind::Alive, sample.key_hash(), data)
            .with_source_timestamp(timestamp);
        self.participant
            .write(self.now, writer, request)
            .map_err(Error::Write)?;
        Ok(())
    }
}

/// Writes samples of `T`. Deleted (and unannounced) when dropped.
pub struct DataWriter<T> {
    participant: DomainParticipant,
    guid: Guid,
    max_blocking: Duration,
    /// The XCDR version of every sample: the first id of its DATA_REPRESENTATION QoS.
    representation: XcdrVersion,
    /// How many writes may be handed to the event loop without waiting
    /// ([`DataWriter::set_pipelined`]).
    credit: WriteCredit,
    /// PERSISTENT: each write returns once stored (and is never pipelined).
    persistent: bool,
    _type: PhantomData<fn(T)>,
}

impl<T: TopicType> DataWriter<T> {
    /// The writer's GUID.
    pub fn guid(&self) -> Guid {
        self.guid
    }

    /// Publishes a sample. With a full KEEP_ALL history it blocks up to the RELIABILITY
    /// max_blocking_time for readers to acknowledge. DDS 1.4 §2.2.2.4.2.11.
    pub fn write(&self, sample: &T) -> Result<(), Error> {
        self.write_stamped(sample, None)
    }

    /// [`DataWriter::write`] with `timestamp` as the source timestamp instead of the time of
    /// the write. DDS 1.4 §2.2.2.4.2.12.
    pub fn write_w_timestamp(&self, sample: &T, timestamp: Timestamp) -> Result<(), Error> {
        self.write_stamped(sample, Some(timestamp))
    }

    fn write_stamped(&self, sample: &T, timestamp: Option<Timestamp>) -> Result<(), Error> {
        // The representation was checked at creation: `None` now means this sample breaks a
        // bound of its type (a string, sequence or array too long).
        let invalid = Error::InvalidSample {
            type_name: T::type_name(),
        };
        let data = sample
            .serialize_as(self.representation, Endianness::Little)
            .ok_or(invalid)?;
        self.write_change(
            WriteRequest::new(ChangeKind::Alive, sample.key_hash(), Bytes::from(data))
                .with_source_timestamp(timestamp),
        )
    }

    /// Disposes the instance of `sample`'s key. DDS 1.4 §2.2.2.4.2.13.
    pub fn dispose(&self, sample: &T) -> Result<(), Error> {
        self.write_change(WriteRequest::new(
            ChangeKind::NotAliveDisposed,
            sample.key_hash(),
            self.key_payload(sample),
        ))
    }

    /// Unregisters the instance of `sample`'s key. DDS 1.4 §2.2.2.4.2.7.
    pub fn unregister_instance(&self, sample: &T) -> Result<(), Error> {
        self.write_change(WriteRequest::new(
            ChangeKind::NotAliveUnregistered,
            sample.key_hash(),
            self.key_payload(sample),
        ))
    }

    /// The serialized key sent with a dispose/unregister (K flag) in the writer's data
    /// representation, empty if the type has none.
    fn key_payload(&self, sample: &T) -> Bytes {
        sample
            .serialize_key_as(self.representation, Endianness::Little)
            .map(Bytes::from)
            .unwrap_or_default()
    }

    /// Pipelined writes (off by default): `write` hands the sample to the event loop and
    /// returns without waiting for it while the history is known to have room, so the loop
    /// takes many writes per wakeup and packs their DATA into shared datagrams. Write errors
    /// and blocking on a full KEEP_ALL history keep their meaning: the history's room is
    /// learnt at each write that waits, and only that many writes go ahead unawaited. A
    /// PERSISTENT writer is never pipelined: each write returns once stored.
    pub fn set_pipelined(&self, on: bool) {
        self.credit.set_enabled(on);
    }

    /// Writes one change: pipelined or waiting, as the runtime's write hand-off decides.
    fn write_change(&self, request: WriteRequest) -> Result<(), Error> {
        let inner = &self.participant.inner;
        if self.persistent {
            let (guid, blocking) = (self.guid, self.max_blocking);
            return Ok(inner
                .handle
                .write_persistent(&inner.store, guid, request, blocking)?);
        }
        self.participant
            .inner
            .handle
            .write(&self.credit, self.guid, request, self.max_blocking)?
            .map_err(Error::Write)
    }

    /// Waits until every matched reliable reader acknowledged every sample.
    /// DDS 1.4 §2.2.2.4.2.15.
    pub fn wait_for_acknowledgments(&self, timeout: Duration) -> Result<(), Error> {
        let guid = self.guid;
        match self
            .participant
            .inner
            .handle
            .wait_for(timeout, move |p, _| p.all_acked(guid).then_some(()))?
        {
            Some(()) => Ok(()),
            None => Err(Error::Timeout),
        }
    }

    /// OFFERED_DEADLINE_MISSED status: instances not written within the DEADLINE period.
    /// DDS 1.4 §2.2.2.4.2.19.
    pub fn offered_deadline_missed_status(&self) -> Result<DeadlineMissedStatus, Error> {
        let guid = self.guid;
        let status = self
            .participant
            .inner
            .handle
            .execute(move |p, _| p.offered_deadline_missed(guid))?;
        Ok(status.unwrap_or_default())
    }

    /// Writer-side content filtering figures: memo lookups / hits / evaluations, readers
    /// filtered for, DATA sent and GAPs sent because of filtering.
    pub fn filter_stats(&self) -> Result<WriterFilterStats, Error> {
        let guid = self.guid;
        let stats = self
            .participant
            .inner
            .handle
            .execute(move |p, _| p.writer_filter_stats(guid))?;
        Ok(stats.unwrap_or_default())
    }

    /// The writer's protocol counters: DATA pushed, repairs resent on request, heartbeats,
    /// ACKNACKs and NACK_FRAGs received.
    pub fn counters(&self) -> Result<WriterCounters, Error> {
        let guid = self.guid;
        let counters = self
            .participant
            .inner
            .handle
            .execute(move |p, _| p.writer_counters(guid))?;
        Ok(counters.unwrap_or_default())
    }

    /// Number of matched readers (PUBLICATION_MATCHED current_count).
    pub fn matched_subscriptions(&self) -> Result<usize, Error> {
        let guid = self.guid;
        Ok(self
            .participant
            .inner
            .handle
            .execute(move |p, _| p.matched_readers(guid))?)
    }

    /// Waits until at least `n` readers are matched.
    pub fn wait_for_matched(&self, n: usize, timeout: Duration) -> Result<(), Error> {
        let guid = self.guid;
        match self
            .participant
            .inner
            .handle
            .wait_for(timeout, move |p, _| {
                (p.matched_readers(guid) >= n).then_some(())
            })? {
            Some(()) => Ok(()),
            None => Err(Error::Timeout),
        }
    }

    /// Manually asserts this writer's liveliness (only needed when it does not write
    /// regularly): MANUAL_BY_TOPIC sends a HEARTBEAT with the liveliness flag,
    /// MANUAL_BY_PARTICIPANT asserts the whole participant. DDS 1.4 §2.2.2.4.2.22.
    pub fn assert_liveliness(&self) -> Result<(), Error> {
        let guid = self.guid;
        self.participant
            .inner
            .handle
            .execute(move |p, now| p.assert_writer_liveliness(now, guid))?;
        Ok(())
    }
}

impl<T> Drop for DataWriter<T> {
    fn drop(&mut self) {
        let guid = self.guid;
        let _ = self
            .participant
            .inner
            .handle
            .execute(move |p, now| p.delete_writer(now, guid));
    }
}

/// One received sample or instance change.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample<T> {
    /// The value for ALIVE samples; `None` for dispose/unregister notifications.
    pub value: Option<T>,
    /// ALIVE, or how the instance stopped being alive.
    pub kind: ChangeKind,
    /// The instance's key hash: as the writer sent it, else computed from the sample or the
    /// serialized key (`None` for unkeyed types or when neither is available).
    pub key_hash: Option<[u8; 16]>,
    /// The writer's source timestamp.
    pub source_timestamp: Option<Timestamp>,
    /// The writer that produced it.
    pub writer: Guid,
}

/// Whether a read had returned a sample before (DDS 1.4 §2.2.2.5.4 SampleInfo.sample_state).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SampleState {
    /// Returned by an earlier read.
    Read,
    /// Not returned by any read yet.
    NotRead,
}

/// Reads samples of `T`. Deleted (and unannounced) when dropped.
pub struct DataReader<T> {
    pub(super) participant: DomainParticipant,
    pub(super) guid: Guid,
    _type: PhantomData<fn() -> T>,
}

impl<T: TopicType> DataReader<T> {
    /// The reader's GUID.
    pub fn guid(&self) -> Guid {
        self.guid
    }

    /// Takes (removes) every available sample, including those already returned by
    /// [`DataReader::read`]. A payload that does not decode as `T` is an error for that sample
    /// only (it is dropped, the rest are returned). DDS 1.4 §2.2.2.5.3.9.
    pub fn take(&self) -> Result<Vec<Sample<T>>, Error> {
        let changes = take_changes(&self.participant, self.guid)?;
        Ok(Self::samples(self.guid, changes))
    }

    /// Returns the samples not returned by an earlier `read` and leaves them in the reader
    /// (marked READ): a later [`DataReader::take`] still returns them. A simplified sample
    /// state: `read` never returns a sample twice. DDS 1.4 §2.2.2.5.3.8.
    pub fn read(&self) -> Result<Vec<Sample<T>>, Error> {
        let guid = self.guid;
        let changes = self
            .participant
            .inner
            .handle
            .execute(move |p, now| p.read(now, guid))?;
        Ok(Self::samples(guid, changes))
    }

    /// Returns every sample the reader holds (read with ANY_SAMPLE_STATE), each with its
    /// [`SampleState`] before this call, and marks them all READ; they stay in the reader, so
    /// the next `read_all` returns them again (as READ) until a [`DataReader::take`] or the
    /// history's depth removes them. DDS 1.4 §2.2.2.5.3.8, §2.2.2.5.4.
    pub fn read_all(&self) -> Result<Vec<(SampleState, Sample<T>)>, Error> {
        let guid = self.guid;
        let changes = self
            .participant
            .inner
            .handle
            .execute(move |p, now| p.read_all(now, guid))?;
        Ok(changes
            .into_iter()
            .filter_map(|(c, was_read)| {
                let state = if was_read {
                    SampleState::Read
                } else {
                    SampleState::NotRead
                };
                Self::samples(guid, vec![c]).pop().map(|s| (state, s))
            })
            .collect())
    }

    /// REQUESTED_DEADLINE_MISSED status: instances that received no sample within the
    /// DEADLINE period. DDS 1.4 §2.2.2.5.3.27.
    pub fn requested_deadline_missed_status(&self) -> Result<DeadlineMissedStatus, Error> {
        let guid = self.guid;
        let status = self
            .participant
            .inner
            .handle
            .execute(move |p, _| p.requested_deadline_missed(guid))?;
        Ok(status.unwrap_or_default())
    }

    pub(super) fn samples(guid: Guid, changes: Vec<CacheChange>) -> Vec<Sample<T>> {
        let mut out = Vec::with_capacity(changes.len());
        for c in changes {
            let value = match c.kind {
                ChangeKind::Alive => match T::deserialize(&c.data) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        log::warn!(
                            "reader {guid}: undecodable sample from {}: {e}",
                            c.writer_guid
                        );
                        continue;
                    }
                },
                _ => None,
            };
            // Writers need not send PID_KEY_HASH (Cyclone does not): compute it then.
            let key_hash = c.key_hash.or_else(|| match &value {
                Some(v) => v.key_hash(),
                None => T::key_hash_from_serialized_key(&c.data),
            });
            out.push(Sample {
                value,
                kind: c.kind,
                key_hash,
                source_timestamp: c.source_timestamp,
                writer: c.writer_guid,
            });
        }
        out
    }

    /// Waits up to `timeout` until a sample can be taken, then takes all available (in the
    /// same visit to the event loop that found them).
    pub fn wait_take(&self, timeout: Duration) -> Result<Vec<Sample<T>>, Error> {
        Ok(Self::samples(
            self.guid,
            self.wait_take_serialized(timeout)?,
        ))
    }

    /// [`DataReader::wait_take`] without decoding: the changes as received, each payload the
    /// serialized sample (encapsulation header included) sharing the reader's buffer. For
    /// applications that read a few fields, forward the bytes, or reuse their own memory.
    pub fn wait_take_serialized(&self, timeout: Duration) -> Result<Vec<CacheChange>, Error> {
        wait_take_changes(&self.participant, self.guid, timeout)
    }

    /// What the reader received, delivered, dropped and acknowledged.
    pub fn counters(&self) -> Result<ReaderCounters, Error> {
        let guid = self.guid;
        let counters = self
            .participant
            .inner
            .handle
            .execute(move |p, _| p.reader_counters(guid))?;
        Ok(counters.unwrap_or_default())
    }

    /// Sets a DATA_AVAILABLE listener: `f` runs on the participant's event-loop thread with
    /// the samples taken (each time some arrived), and may write through the
    /// [`ListenerContext`] at once, without handing anything to another thread (a reply
    /// leaves in the same wakeup that received the request). `f` must not block; the
    /// listener ends when it returns `false` or the reader is deleted. It must not own API
    /// handles (readers, writers, participants): it is dropped on the loop thread, where their
    /// drop would wait for the loop itself. DDS 1.4 §2.2.4.4.
    pub fn set_listener<F>(&self, mut f: F) -> Result<(), Error>
    where
        F: FnMut(Vec<Sample<T>>, &mut ListenerContext<'_>) -> bool + Send + 'static,
    {
        let guid = self.guid;
        self.set_listener_serialized(move |changes, ctx| f(Self::samples(guid, changes), ctx))
    }

    /// [`DataReader::set_listener`] without decoding: the changes as received (see
    /// [`DataReader::wait_take_serialized`]).
    pub fn set_listener_serialized<F>(&self, mut f: F) -> Result<(), Error>
    where
        F: FnMut(Vec<CacheChange>, &mut ListenerContext<'_>) -> bool + Send + 'static,
    {
        let guid = self.guid;
        self.participant.inner.handle.attach(move |p, now| {
            let mut changes = Vec::new();
            match p.take_all(now, guid, &mut changes) {
                // The reader was deleted: the listener ends.
                None => return true,
                Some(0) => return false,
                Some(_) => {}
            }
            !f(
                changes,
                &mut ListenerContext {
                    participant: p,
                    now,
                },
            )
        })?;
        Ok(())
    }

    /// Number of matched writers (SUBSCRIPTION_MATCHED current_count).
    pub fn matched_publications(&self) -> Result<usize, Error> {
        matched_writers(&self.participant, self.guid)
    }

    /// Each matched writer with the highest sequence number known to exist from it (its
    /// HEARTBEATs' lastSN or the greatest received): compare with the last sequence number
    /// taken to count samples lost at the tail of a stream. RTPS 2.5 §8.4.10.4.4.
    pub fn matched_writers_last_sn(&self) -> Result<Vec<(Guid, i64)>, Error> {
        let guid = self.guid;
        Ok(self.participant.inner.handle.execute(move |p, _| {
            p.reader_writers_last_sn(guid)
                .into_iter()
                .map(|(g, sn)| (g, sn.0))
                .collect::<Vec<_>>()
        })?)
    }

    /// Waits until at least `n` writers are matched.
    pub fn wait_for_matched(&self, n: usize, timeout: Duration) -> Result<(), Error> {
        let guid = self.guid;
        match self
            .participant
            .inner
            .handle
            .wait_for(timeout, move |p, _| {
                (p.matched_writers(guid) >= n).then_some(())
            })? {
            Some(()) => Ok(()),
            None => Err(Error::Timeout),
        }
    }
}

impl<T> Drop for DataReader<T> {
    fn drop(&mut self) {
        delete_reader(&self.participant, self.guid);
    }
}

/// Takes every change of the local reader `guid` (shared with `observe::UntypedDataReader`).
pub(super) fn take_changes(
    participant: &DomainParticipant,
    guid: Guid,
) -> Result<Vec<CacheChange>, Error> {
    Ok(participant.inner.handle.execute(move |p, now| {
        let mut changes = Vec::new();
        p.take_all(now, guid, &mut changes);
        changes
    })?)
}

/// Waits up to `timeout` until the reader `guid` has changes, then takes them all.
pub(super) fn wait_take_changes(
    participant: &DomainParticipant,
    guid: Guid,
    timeout: Duration,
) -> Result<Vec<CacheChange>, Error> {
    let changes = participant.inner.handle.wait_for(timeout, move |p, now| {
        let mut changes = Vec::new();
        p.take_all(now, guid, &mut changes);
        (!changes.is_empty()).then_some(changes)
    })?;
    Ok(changes.unwrap_or_default())
}

/// Number of writers matched with the reader `guid`.
pub(super) fn matched_writers(participant: &DomainParticipant, guid: Guid) -> Result<usize, Error> {
    Ok(participant
        .inner
        .handle
        .execute(move |p, _| p.matched_writers(guid))?)
}

/// Deletes (and unannounces) the reader `guid`; nothing to do when the participant stopped.
pub(super) fn delete_reader(participant: &DomainParticipant, guid: Guid) {
    let _ = participant
        .inner
        .handle
        .execute(move |p, now| p.delete_reader(now, guid));
}

/// The key hash of a serialized sample (ALIVE) or serialized key (otherwise) of `T`, for
/// writers that do not send PID_KEY_HASH (the core reader's [`KeyHasher`]).
fn key_hash_of<T: TopicType>(kind: ChangeKind, data: &[u8]) -> Option<[u8; 16]> {
    match kind {
        ChangeKind::Alive => T::deserialize(data).ok()?.key_hash(),
        _ => T::key_hash_from_serialized_key(data),
    }
}

/// The XCDR version a writer with `qos` writes: its DATA_REPRESENTATION's first id (XCDR
/// when empty), refused when `T` cannot write it. DDS-XTypes 1.3 §7.6.3.1.2.
fn writer_representation<T: TopicType>(qos: &DataWriterQos) -> Result<XcdrVersion, Error> {
    let id = qos.data_representation.offered_id();
    XcdrVersion::from_representation_id(id)
        .filter(|v| T::supports(*v))
        .ok_or(Error::UnsupportedDataRepresentation {
            type_name: T::type_name(),
            id,
        })
}

/// A reader must be able to decode every representation its DATA_REPRESENTATION accepts
/// (an empty list accepts XCDR only).
fn check_reader_representations<T: TopicType>(qos: &DataReaderQos) -> Result<(), Error> {
    let unsupported = qos
        .data_representation
        .value
        .iter()
        .copied()
        .find(|id| !XcdrVersion::from_representation_id(*id).is_some_and(T::supports));
    match unsupported {
        Some(id) => Err(Error::UnsupportedDataRepresentation {
            type_name: T::type_name(),
            id,
        }),
        None => Ok(()),
    }
}

/// The factories of the entities above (DDS 1.4 §2.2.2.2.1: a participant creates publishers,
/// subscribers and topics), kept with the types they construct so that `participant.rs` does
/// not depend on this module.
impl DomainParticipant {
    /// A publisher with the given QoS.
    pub fn create_publisher(&self, qos: PublisherQos) -> Publisher {
        Publisher {
            participant: self.clone(),
            qos,
            writers: Arc::default(),
        }
    }

    /// A subscriber with the given QoS.
    pub fn create_subscriber(&self, qos: SubscriberQos) -> Subscriber {
        Subscriber {
            participant: self.clone(),
            qos,
        }
    }

    /// A topic of type `T`.
    pub fn create_topic<T: TopicType>(&self, name: &str, qos: TopicQos) -> Topic<T> {
        Topic::new(name, qos)
    }
}
