//! Endpoints of a topic whose type is not known at compile time: the untyped DataReader,
//! which hands out the changes as received (what `siftdds spy` and the router's proxy and
//! witness readers use), and the untyped DataWriter, which writes requests made by the caller
//! (serialized payload, key hash, status, identity: the router's downstream writers), with a
//! [`UntypedWriteSender`] a listener on another participant of the same loop can hand writes
//! to without waiting.
//!
//! Must not: decode samples (the caller does, with a descriptor if it has one:
//! [`crate::types::dynamic`]) or hold protocol logic: an untyped endpoint is an ordinary core
//! endpoint made from a [`ReaderSpec`] or [`WriterSpec`], announced in SEDP like any other (a
//! spy is visible on the domain, as RTI's `rtiddsspy` and Cyclone's `cyclonedds subscribe`
//! are), and matched by the core's usual rules (DDS 1.4 §2.2.3 RxO, RTPS 2.5 §8.5.5).

use std::sync::Arc;
use std::time::Duration;

use super::reader::{
    attach_listener, delete_reader, select_changes, take_changes, wait_take_changes,
};
use super::writer::{delete_writer, wait_for_acknowledgments};
use super::{
    DEFAULT_FRAGMENT_SIZE, ListenerContext, Publisher, Subscriber, matched, wait_for_matched,
};
use crate::api::{DomainParticipant, Error};
use crate::core::discovery::ContentFilter;
use crate::core::participant::{ReaderSpec, WriterSpec};
use crate::core::reader::{KeyHasher, ReadSelection, SampleInfo, StateMasks};
use crate::core::{CacheChange, Participant, WriteRequest};
use crate::qos::{DataReaderQos, DataWriterQos};
use crate::runtime::{CommandSender, WriteCredit};
use crate::types::TypeDescriptor;
use crate::wire::Guid;

/// What an untyped reader may ask for beyond its topic, type name and QoS
/// ([`Subscriber::create_untyped_datareader_with`]); the default asks for nothing more.
#[derive(Clone, Debug, Default)]
pub struct UntypedReaderOptions {
    /// A content filter to announce (PID_CONTENT_FILTER_PROPERTY), so that writers can filter
    /// for this reader; applied on delivery too when `descriptor` is given.
    pub content_filter: Option<ContentFilter>,
    /// The sample type, if the caller knows it: `content_filter` is compiled against it.
    pub descriptor: Option<Arc<TypeDescriptor>>,
    /// Computes the key hash of samples that arrive without PID_KEY_HASH.
    pub key_hasher: Option<KeyHasher>,
    /// Where the reader starts each matched writer: `None` by its durability (a VOLATILE
    /// reader where the writer stood at the match, its first HEARTBEAT; a TRANSIENT_LOCAL
    /// one with the writer's history; `ReaderSpec::starts_at_match`), `Some(true)` at the
    /// match whatever the durability, `Some(false)` with the writer's history.
    pub start_at_match: Option<bool>,
    /// The path vector of router ids to announce (PID_SIFTDDS_ROUTER_PATH, docs/router.md);
    /// empty for an application reader.
    pub router_path: Vec<u64>,
}

/// A DataReader that matches writers by announced topic and type name and returns their
/// samples serialized. Deleted (and unannounced) when dropped.
pub struct UntypedDataReader {
    pub(super) participant: DomainParticipant,
    pub(super) guid: Guid,
}

impl Subscriber {
    /// Creates an untyped reader of `topic_name` announcing `type_name` (a keyed reader when
    /// `keyed`, entity kind 0x07, else 0x04: peers match on both). The QoS is checked for
    /// consistency; no descriptor is known, so no content filter and no key hashes beyond
    /// those the writers send.
    pub fn create_untyped_datareader(
        &self,
        topic_name: &str,
        type_name: &str,
        keyed: bool,
        qos: DataReaderQos,
    ) -> Result<UntypedDataReader, Error> {
        let options = UntypedReaderOptions::default();
        self.create_untyped_datareader_with(topic_name, type_name, keyed, qos, options)
    }

    /// [`Subscriber::create_untyped_datareader`] with `options`: an announced content
    /// filter, the type's descriptor or key hasher, start at the match, a router path.
    pub fn create_untyped_datareader_with(
        &self,
        topic_name: &str,
        type_name: &str,
        keyed: bool,
        qos: DataReaderQos,
        options: UntypedReaderOptions,
    ) -> Result<UntypedDataReader, Error> {
        qos.check_consistency().map_err(Error::from)?;
        super::check_access(
            &self.participant,
            false,
            topic_name,
            &self.qos.partition.names,
        )?;
        let UntypedReaderOptions {
            content_filter,
            descriptor,
            key_hasher,
            start_at_match,
            router_path,
        } = options;
        let spec = ReaderSpec {
            subscriber_qos: self.qos.clone(),
            content_filter,
            descriptor,
            key_hasher,
            start_at_match,
            router_path,
            ..ReaderSpec::new(topic_name, type_name, keyed, qos)
        };
        let guid = self
            .participant
            .inner
            .handle
            .execute(move |p, now| p.create_reader(now, spec))?;
        Ok(UntypedDataReader {
            participant: self.participant.clone(),
            guid,
        })
    }
}

impl UntypedDataReader {
    /// The reader's GUID.
    pub fn guid(&self) -> Guid {
        self.guid
    }

    /// Takes every available change, as received (payload = serialized sample or key,
    /// encapsulation header included).
    pub fn take(&self) -> Result<Vec<CacheChange>, Error> {
        take_changes(&self.participant, self.guid)
    }

    /// Waits up to `timeout` until a change can be taken, then takes all available.
    pub fn wait_take(&self, timeout: Duration) -> Result<Vec<CacheChange>, Error> {
        wait_take_changes(&self.participant, self.guid, timeout)
    }

    /// Reads (leaves them, marked READ) at most `max_samples` changes in the states `masks`
    /// selects, each with its [`SampleInfo`] (as the typed [`super::DataReader::read_with`]).
    pub fn read_with(
        &self,
        masks: StateMasks,
        max_samples: usize,
    ) -> Result<Vec<(CacheChange, SampleInfo)>, Error> {
        let selection = ReadSelection {
            max_samples,
            ..ReadSelection::with_masks(masks)
        };
        select_changes(&self.participant, self.guid, selection, false)
    }

    /// Takes at most `max_samples` changes in the states `masks` selects, each with its
    /// [`SampleInfo`] (as the typed [`super::DataReader::take_with`]).
    pub fn take_with(
        &self,
        masks: StateMasks,
        max_samples: usize,
    ) -> Result<Vec<(CacheChange, SampleInfo)>, Error> {
        let selection = ReadSelection {
            max_samples,
            ..ReadSelection::with_masks(masks)
        };
        select_changes(&self.participant, self.guid, selection, true)
    }

    /// Number of matched writers.
    pub fn matched_publications(&self) -> Result<usize, Error> {
        matched(&self.participant, self.guid, Participant::matched_writers)
    }

    /// Waits until at least `n` writers are matched.
    pub fn wait_for_matched(&self, n: usize, timeout: Duration) -> Result<(), Error> {
        wait_for_matched(
            &self.participant,
            self.guid,
            n,
            timeout,
            Participant::matched_writers,
        )
    }

    /// Sets a DATA_AVAILABLE listener, as
    /// [`DataReader::set_listener_serialized`](crate::api::DataReader::set_listener_serialized):
    /// `f` runs on the participant's
    /// event-loop thread with the changes taken, each time some arrived, and must not block
    /// or own API handles; it ends when it returns `false` or the reader is deleted.
    pub fn set_listener<F>(&self, f: F) -> Result<(), Error>
    where
        F: FnMut(Vec<CacheChange>, &mut ListenerContext<'_>) -> bool + Send + 'static,
    {
        attach_listener(&self.participant, self.guid, f)
    }

    /// Deletes the reader now (as dropping it does).
    pub fn delete(self) {}
}

impl Drop for UntypedDataReader {
    fn drop(&mut self) {
        delete_reader(&self.participant, self.guid);
    }
}

/// A DataWriter of requests made by the caller ([`WriteRequest`]: the serialized payload
/// with its key hash, status, source timestamp and identity). Its writes are pipelined: each
/// is handed to the event loop without waiting while the writer's history is known to have
/// room (the room learnt at the last write that waited). Deleted (and unannounced) when
/// dropped.
pub struct UntypedDataWriter {
    pub(super) participant: DomainParticipant,
    pub(super) sender: UntypedWriteSender,
}

/// Hands writes to one untyped writer without ever waiting
/// ([`UntypedDataWriter::sender`]): cloneable, and it owns no participant, so a listener on
/// the event loop (of this participant or of another one on the same loop thread) may keep
/// it. Writes after the writer was deleted are dropped (logged by the loop).
#[derive(Clone)]
pub struct UntypedWriteSender {
    commands: CommandSender<Participant>,
    pub(super) credit: Arc<WriteCredit>,
    pub(super) guid: Guid,
}

impl Publisher {
    /// Creates an untyped writer of `topic_name` announcing `type_name` (a keyed writer when
    /// `keyed`), sending samples above [`DEFAULT_FRAGMENT_SIZE`] bytes as DATA_FRAG. The QoS
    /// is checked for consistency; the writer announces the first id of its
    /// DATA_REPRESENTATION, and the caller writes payloads in it. No descriptor is known, so
    /// it does not filter for readers.
    pub fn create_untyped_datawriter(
        &self,
        topic_name: &str,
        type_name: &str,
        keyed: bool,
        qos: DataWriterQos,
    ) -> Result<UntypedDataWriter, Error> {
        qos.check_consistency().map_err(Error::from)?;
        super::check_access(
            &self.participant,
            true,
            topic_name,
            &self.qos.partition.names,
        )?;
        let spec = WriterSpec {
            publisher_qos: self.qos.clone(),
            fragment_size: DEFAULT_FRAGMENT_SIZE,
            ..WriterSpec::new(topic_name, type_name, keyed, qos)
        };
        let handle = &self.participant.inner.handle;
        let guid = handle.execute(move |p, now| p.create_writer(now, spec))?;
        self.joined(guid)?;
        let credit = Arc::new(WriteCredit::new());
        credit.set_enabled(true);
        Ok(UntypedDataWriter {
            participant: self.participant.clone(),
            sender: UntypedWriteSender {
                commands: handle.command_sender(),
                credit,
                guid,
            },
        })
    }
}

impl UntypedWriteSender {
    /// Hands `request` to the writer's event loop without waiting if its history is known
    /// to have room for it (`Ok(None)`), else gives it back (`Ok(Some(request))`): write it
    /// with [`UntypedDataWriter::write`], which may wait.
    pub fn try_write(&self, request: WriteRequest) -> Result<Option<WriteRequest>, Error> {
        Ok(self.commands.try_write(&self.credit, self.guid, request)?)
    }

    /// The writer's GUID.
    pub fn guid(&self) -> Guid {
        self.guid
    }
}

impl UntypedDataWriter {
    /// The writer's GUID.
    pub fn guid(&self) -> Guid {
        self.sender.guid
    }

    /// A sender of writes to this writer that never waits (for listeners).
    pub fn sender(&self) -> UntypedWriteSender {
        self.sender.clone()
    }

    /// [`UntypedWriteSender::try_write`]: hands `request` over without waiting, or gives it
    /// back when the history may not have room.
    pub fn try_write(&self, request: WriteRequest) -> Result<Option<WriteRequest>, Error> {
        self.sender.try_write(request)
    }

    /// Writes `request`: handed over at once while the history is known to have room, else
    /// written on the loop, waiting up to `timeout` while a KEEP_ALL history is full (then
    /// [`Error::Peer`] with `HistoryFull`). DDS 1.4 §2.2.2.4.2.11.
    pub fn write(&self, request: WriteRequest, timeout: Duration) -> Result<(), Error> {
        let s = &self.sender;
        self.participant
            .inner
            .handle
            .write(&s.credit, s.guid, request, timeout)?
            .map_err(Error::from)
    }

    /// Waits until every matched reliable reader acknowledged every sample.
    /// DDS 1.4 §2.2.2.4.2.15.
    pub fn wait_for_acknowledgments(&self, timeout: Duration) -> Result<(), Error> {
        wait_for_acknowledgments(&self.participant, self.guid(), timeout)
    }

    /// Number of matched readers (PUBLICATION_MATCHED current_count).
    pub fn matched_subscriptions(&self) -> Result<usize, Error> {
        matched(&self.participant, self.guid(), Participant::matched_readers)
    }

    /// Waits until at least `n` readers are matched.
    pub fn wait_for_matched(&self, n: usize, timeout: Duration) -> Result<(), Error> {
        let guid = self.guid();
        wait_for_matched(
            &self.participant,
            guid,
            n,
            timeout,
            Participant::matched_readers,
        )
    }

    /// Deletes the writer now (as dropping it does).
    pub fn delete(self) {}
}

impl Drop for UntypedDataWriter {
    fn drop(&mut self) {
        delete_writer(&self.participant, self.guid());
    }
}
