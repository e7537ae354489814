//! The writing side of the public API: the Publisher and its DataWriters (creation with its
//! data representation, write, dispose, unregister, waits and status).
//!
//! Must not: hold protocol state; every operation is a command to the participant's event
//! loop (a write is one `WriteRequest` handed to the runtime). DDS 1.4 §2.2.2.4.

use std::marker::PhantomData;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use bytes::Bytes;

use super::{Topic, matched, wait_for_matched};
use crate::api::{ConfigError, DomainParticipant, Error, UsageError};
use crate::cdr::Endianness;
use crate::core::participant::WriterSpec;
use crate::core::writer::{WriterCounters, WriterFilterStats};
use crate::core::{ChangeKind, DeadlineMissedStatus, Participant, WriteRequest};
use crate::qos::{DataWriterQos, Durability, PublisherQos};
use crate::runtime::WriteCredit;
use crate::time::{Now, Timestamp};
use crate::types::{TopicType, XcdrVersion};
use crate::wire::Guid;

/// Default DATA_FRAG threshold for user writers: large fragments (loopback MTU is 64 KiB).
pub const DEFAULT_FRAGMENT_SIZE: usize = 60_000;
/// Groups writers; holds PARTITION and PRESENTATION. DDS 1.4 §2.2.2.4.1.
#[derive(Clone)]
pub struct Publisher {
    pub(in crate::api) participant: DomainParticipant,
    pub(in crate::api) qos: PublisherQos,
    /// The writers created by this publisher (and its clones), for coherent changes
    /// (`coherent.rs`).
    pub(in crate::api) writers: Arc<RwLock<Vec<Guid>>>,
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
        qos.check_consistency().map_err(Error::from)?;
        let representation = writer_representation::<T>(&qos)?;
        super::check_access(
            &self.participant,
            true,
            &topic.name,
            &self.qos.partition.names,
        )?;
        let max_blocking = qos
            .reliability
            .max_blocking_time
            .to_std()
            .unwrap_or(Duration::MAX);
        if let Some(rep) = T::type_representation() {
            // DDS-XTypes 1.3 §7.6.3: announced in SEDP, served by TypeLookup.
            let name = T::type_name();
            let handle = &self.participant.inner.handle;
            handle.execute(move |p, _| p.register_type(name, rep))?;
        }
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
                .map_err(Error::from)?,
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
/// Writes samples of `T`. Deleted (and unannounced) when dropped.
pub struct DataWriter<T> {
    pub(in crate::api) participant: DomainParticipant,
    pub(super) guid: Guid,
    max_blocking: Duration,
    /// The XCDR version of every sample: the first id of its DATA_REPRESENTATION QoS.
    representation: XcdrVersion,
    /// How many writes may be handed to the event loop without waiting
    /// ([`DataWriter::set_pipelined`]).
    pub(super) credit: WriteCredit,
    /// PERSISTENT: each write returns once stored (and is never pipelined).
    pub(super) persistent: bool,
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
        self.write_change(self.alive_request(sample, timestamp)?)
    }

    /// The write request of `sample` (ALIVE), serialized in the writer's representation,
    /// with `timestamp` (else the time of the write) as its source timestamp.
    pub(super) fn alive_request(
        &self,
        sample: &T,
        timestamp: Option<Timestamp>,
    ) -> Result<WriteRequest, Error> {
        // The representation was checked at creation: `None` now means this sample breaks a
        // bound of its type (a string, sequence or array too long).
        let invalid = Error::Usage(UsageError::InvalidSample {
            type_name: T::type_name(),
        });
        let data = sample
            .serialize_as(self.representation, Endianness::Little)
            .ok_or(invalid)?;
        Ok(
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
    pub(super) fn write_change(&self, request: WriteRequest) -> Result<(), Error> {
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
            .map_err(Error::from)
    }

    /// Waits until every matched reliable reader acknowledged every sample.
    /// DDS 1.4 §2.2.2.4.2.15.
    pub fn wait_for_acknowledgments(&self, timeout: Duration) -> Result<(), Error> {
        wait_for_acknowledgments(&self.participant, self.guid, timeout)
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
        matched(&self.participant, self.guid, Participant::matched_readers)
    }

    /// Waits until at least `n` readers are matched.
    pub fn wait_for_matched(&self, n: usize, timeout: Duration) -> Result<(), Error> {
        wait_for_matched(
            &self.participant,
            self.guid,
            n,
            timeout,
            Participant::matched_readers,
        )
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
        delete_writer(&self.participant, self.guid);
    }
}

/// Waits up to `timeout` until every matched reliable reader acknowledged every sample of
/// the local writer `guid` (shared with `untyped::UntypedDataWriter`).
pub(in crate::api) fn wait_for_acknowledgments(
    participant: &DomainParticipant,
    guid: Guid,
    timeout: Duration,
) -> Result<(), Error> {
    match participant
        .inner
        .handle
        .wait_for(timeout, all_acked(guid))?
    {
        Some(()) => Ok(()),
        None => Err(Error::Timeout),
    }
}

/// The check of an acknowledgement wait (blocking or async): satisfied once every matched
/// reliable reader acknowledged every sample of the local writer `guid`.
pub(super) fn all_acked(
    guid: Guid,
) -> impl FnMut(&mut Participant, Now) -> Option<()> + Send + 'static {
    move |p, _| p.all_acked(guid).then_some(())
}

/// Deletes (and unannounces) the writer `guid`; nothing to do when the participant stopped.
pub(in crate::api) fn delete_writer(participant: &DomainParticipant, guid: Guid) {
    let _ = participant
        .inner
        .handle
        .execute(move |p, now| p.delete_writer(now, guid));
}
/// The XCDR version a writer with `qos` writes: its DATA_REPRESENTATION's first id (XCDR
/// when empty), refused when `T` cannot write it. DDS-XTypes 1.3 §7.6.3.1.2.
fn writer_representation<T: TopicType>(qos: &DataWriterQos) -> Result<XcdrVersion, Error> {
    let id = qos.data_representation.offered_id();
    XcdrVersion::from_representation_id(id)
        .filter(|v| T::supports(*v))
        .ok_or(Error::Config(ConfigError::UnsupportedDataRepresentation {
            type_name: T::type_name(),
            id,
        }))
}
