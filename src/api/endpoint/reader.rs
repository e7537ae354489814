//! The reading side of the public API: the Subscriber and its DataReaders (creation with a
//! content filter and representation checks; read and take with state masks, per instance and
//! by condition; waits, listeners, status), the returned [`Sample`] with its
//! [`SampleInfo`], and the reader operations `untyped.rs` shares for untyped readers.
//!
//! Must not: hold protocol state; every operation is a command to the participant's event
//! loop. DDS 1.4 §2.2.2.5.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use super::{ListenerContext, Topic, matched, wait_for_matched};
use crate::api::{ConfigError, DomainParticipant, Error};
use crate::core::discovery::ContentFilter;
use crate::core::participant::{LivelinessChangedStatus, ReaderSpec};
use crate::core::reader::{
    InstanceHandle, InstanceSelector, KeyHasher, ReadSelection, ReaderCounters, ReaderFilter,
    SampleInfo, StateMasks,
};
use crate::core::{CacheChange, ChangeKind, DeadlineMissedStatus, Participant};
use crate::qos::{DataReaderQos, SubscriberQos};
use crate::types::{TopicType, XcdrVersion};
use crate::wire::Guid;

/// Groups readers; holds PARTITION and PRESENTATION. DDS 1.4 §2.2.2.5.1.
#[derive(Clone)]
pub struct Subscriber {
    pub(in crate::api) participant: DomainParticipant,
    pub(in crate::api) qos: SubscriberQos,
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
        ReaderFilter::check(&filter, T::descriptor()).map_err(Error::from)?;
        self.create_reader(topic, qos, Some(filter))
    }

    fn create_reader<T: TopicType>(
        &self,
        topic: &Topic<T>,
        qos: DataReaderQos,
        content_filter: Option<ContentFilter>,
    ) -> Result<DataReader<T>, Error> {
        qos.check_consistency().map_err(Error::from)?;
        check_reader_representations::<T>(&qos)?;
        super::check_access(
            &self.participant,
            false,
            &topic.name,
            &self.qos.partition.names,
        )?;
        if let Some(rep) = T::type_representation() {
            // DDS-XTypes 1.3 §7.6.3: announced in SEDP, served by TypeLookup.
            let name = T::type_name();
            let handle = &self.participant.inner.handle;
            handle.execute(move |p, _| p.register_type(name, rep))?;
        }
        let spec = ReaderSpec {
            topic_name: topic.name.clone(),
            type_name: T::type_name().to_string(),
            keyed: T::is_keyed(),
            qos,
            subscriber_qos: self.qos.clone(),
            content_filter,
            descriptor: T::descriptor().map(|d| Arc::new(d.clone())),
            key_hasher: T::is_keyed().then_some(KeyHasher(key_hash_of::<T>)),
            start_at_match: None,
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
/// One sample returned by a read or take: the value, when the sample carries data, and what
/// the reader knows about it. DDS 1.4 §2.2.2.5.3.8, §2.2.2.5.4.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample<T> {
    /// The value when `info.valid_data`; `None` for an instance state change (dispose,
    /// unregister, writers gone).
    pub value: Option<T>,
    /// What the writer did: wrote (ALIVE), disposed, unregistered, or went away
    /// (NOT_ALIVE_NO_WRITERS).
    pub kind: ChangeKind,
    /// Sample, view and instance state, generation counts and ranks, timestamps, handles.
    pub info: SampleInfo,
}

impl<T> Sample<T> {
    /// The instance's key hash (`None` for a keyless topic or an unidentified instance).
    pub fn key_hash(&self) -> Option<[u8; 16]> {
        self.info.instance_handle.key_hash()
    }
}

/// Reads samples of `T`. Deleted (and unannounced) when dropped.
pub struct DataReader<T> {
    pub(in crate::api) participant: DomainParticipant,
    pub(in crate::api) guid: Guid,
    _type: PhantomData<fn() -> T>,
}

impl<T: TopicType> DataReader<T> {
    /// The reader's GUID.
    pub fn guid(&self) -> Guid {
        self.guid
    }

    /// Takes (removes) every sample the reader holds, read or not. A payload that does not
    /// decode as `T` is an error for that sample only (it is dropped, the rest are returned).
    /// DDS 1.4 §2.2.2.5.3.9 (take with the ANY states).
    pub fn take(&self) -> Result<Vec<Sample<T>>, Error> {
        self.select(ReadSelection::any(), true)
    }

    /// Returns every sample the reader holds and leaves them there, marked READ (a later
    /// read returns them again, with `sample_state` READ, until a take or the history's
    /// depth removes them); their instances become NOT_NEW. DDS 1.4 §2.2.2.5.3.8 (read with
    /// the ANY states).
    pub fn read(&self) -> Result<Vec<Sample<T>>, Error> {
        self.select(ReadSelection::any(), false)
    }

    /// [`DataReader::read`] of at most `max_samples` samples in the states `masks` selects.
    /// DDS 1.4 §2.2.2.5.3.8.
    pub fn read_with(
        &self,
        masks: StateMasks,
        max_samples: usize,
    ) -> Result<Vec<Sample<T>>, Error> {
        self.select(selection(masks, max_samples, InstanceSelector::Any), false)
    }

    /// [`DataReader::take`] of at most `max_samples` samples in the states `masks` selects.
    /// DDS 1.4 §2.2.2.5.3.9.
    pub fn take_with(
        &self,
        masks: StateMasks,
        max_samples: usize,
    ) -> Result<Vec<Sample<T>>, Error> {
        self.select(selection(masks, max_samples, InstanceSelector::Any), true)
    }

    /// [`DataReader::read_with`] limited to the instance `handle`. DDS 1.4 §2.2.2.5.3.14.
    pub fn read_instance(
        &self,
        handle: InstanceHandle,
        masks: StateMasks,
        max_samples: usize,
    ) -> Result<Vec<Sample<T>>, Error> {
        let instance = InstanceSelector::Instance(handle);
        self.select(selection(masks, max_samples, instance), false)
    }

    /// [`DataReader::take_with`] limited to the instance `handle`. DDS 1.4 §2.2.2.5.3.15.
    pub fn take_instance(
        &self,
        handle: InstanceHandle,
        masks: StateMasks,
        max_samples: usize,
    ) -> Result<Vec<Sample<T>>, Error> {
        let instance = InstanceSelector::Instance(handle);
        self.select(selection(masks, max_samples, instance), true)
    }

    /// [`DataReader::read_with`] limited to the instance with the smallest handle greater
    /// than `previous` that has samples in the states `masks` selects ([`InstanceHandle::NIL`]
    /// starts from the first); empty when there is none. Iterate by passing the returned
    /// samples' `instance_handle` back. DDS 1.4 §2.2.2.5.3.16.
    pub fn read_next_instance(
        &self,
        previous: InstanceHandle,
        masks: StateMasks,
        max_samples: usize,
    ) -> Result<Vec<Sample<T>>, Error> {
        let instance = InstanceSelector::Next(previous);
        self.select(selection(masks, max_samples, instance), false)
    }

    /// [`DataReader::read_next_instance`], taking. DDS 1.4 §2.2.2.5.3.17.
    pub fn take_next_instance(
        &self,
        previous: InstanceHandle,
        masks: StateMasks,
        max_samples: usize,
    ) -> Result<Vec<Sample<T>>, Error> {
        let instance = InstanceSelector::Next(previous);
        self.select(selection(masks, max_samples, instance), true)
    }

    /// The handle of the instance whose key `key_sample` holds (its other fields are
    /// ignored), or [`InstanceHandle::NIL`] when the reader has no such instance.
    /// DDS 1.4 §2.2.2.5.3.33 (lookup_instance).
    pub fn lookup_instance(&self, key_sample: &T) -> Result<InstanceHandle, Error> {
        let handle = match key_sample.key_hash() {
            Some(k) => InstanceHandle::from_key_hash(k),
            None if T::is_keyed() => return Ok(InstanceHandle::NIL),
            None => InstanceHandle::KEYLESS,
        };
        let guid = self.guid;
        let known = self
            .participant
            .inner
            .handle
            .execute(move |p, _| p.reader_has_instance(guid, handle))?;
        Ok(if known { handle } else { InstanceHandle::NIL })
    }

    /// Reads or takes what `selection` asks for, decoded.
    pub(in crate::api) fn select(
        &self,
        selection: ReadSelection,
        take: bool,
    ) -> Result<Vec<Sample<T>>, Error> {
        let changes = select_changes(&self.participant, self.guid, selection, take)?;
        Ok(Self::samples(self.guid, changes))
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

    /// LIVELINESS_CHANGED status: how many matched writers are alive and not, the change of
    /// each since this status was last read, and the writer of the last change; reading it
    /// makes the counts now the base of the next changes. A writer with an infinite lease
    /// is alive while matched. DDS 1.4 §2.2.2.5.3.25, §2.2.4.1.
    pub fn liveliness_changed_status(&self) -> Result<LivelinessChangedStatus, Error> {
        let guid = self.guid;
        let status = self
            .participant
            .inner
            .handle
            .execute(move |p, _| p.take_liveliness_changed(guid))?;
        Ok(status.unwrap_or_default())
    }

    /// Sets a LIVELINESS_CHANGED listener: `f` runs on the participant's event-loop thread
    /// with the status (read, as [`DataReader::liveliness_changed_status`]) each time a
    /// matched writer's liveliness changed. `f` must not block; the listener ends when it
    /// returns `false` or the reader is deleted. DDS 1.4 §2.2.4.4.
    pub fn set_liveliness_listener<F>(&self, mut f: F) -> Result<(), Error>
    where
        F: FnMut(LivelinessChangedStatus) -> bool + Send + 'static,
    {
        let guid = self.guid;
        let mut seen = None;
        self.participant.inner.handle.attach(move |p, _| {
            let Some(now) = p.liveliness_changed(guid) else {
                // The reader was deleted: the listener ends.
                return true;
            };
            // The first call only notes where the changes stand.
            let changed = seen.is_some_and(|t| t != now.total_changes);
            seen = Some(now.total_changes);
            match changed {
                true => p.take_liveliness_changed(guid).is_some_and(|s| !f(s)),
                false => false,
            }
        })?;
        Ok(())
    }

    /// Decodes the valid data of `changes`; a sample whose payload does not decode as `T`
    /// is logged and left out.
    pub(in crate::api) fn samples(
        guid: Guid,
        changes: Vec<(CacheChange, SampleInfo)>,
    ) -> Vec<Sample<T>> {
        let mut out = Vec::with_capacity(changes.len());
        for (c, info) in changes {
            let value = if info.valid_data {
                match T::deserialize(&c.data) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        log::warn!(
                            "reader {guid}: undecodable sample from {}: {e}",
                            c.writer_guid
                        );
                        continue;
                    }
                }
            } else {
                None
            };
            out.push(Sample {
                value,
                kind: c.kind,
                info,
            });
        }
        out
    }

    /// Waits up to `timeout` until a sample can be taken, then takes all available (in the
    /// same visit to the event loop that found them).
    pub fn wait_take(&self, timeout: Duration) -> Result<Vec<Sample<T>>, Error> {
        let guid = self.guid;
        let any = ReadSelection::any();
        let changes = self
            .participant
            .inner
            .handle
            .wait_for(timeout, move |p, now| {
                let changes = p.select(now, guid, &any, true);
                (!changes.is_empty()).then_some(changes)
            })?;
        Ok(Self::samples(guid, changes.unwrap_or_default()))
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
        let any = ReadSelection::any();
        self.participant.inner.handle.attach(move |p, now| {
            let changes = p.select(now, guid, &any, true);
            if changes.is_empty() {
                // Nothing new, or the reader was deleted: the listener ends then.
                return !p.has_reader(guid);
            }
            let samples = Self::samples(guid, changes);
            !f(
                samples,
                &mut ListenerContext {
                    participant: p,
                    now,
                },
            )
        })?;
        Ok(())
    }

    /// [`DataReader::set_listener`] without decoding: the changes as received (see
    /// [`DataReader::wait_take_serialized`]).
    pub fn set_listener_serialized<F>(&self, f: F) -> Result<(), Error>
    where
        F: FnMut(Vec<CacheChange>, &mut ListenerContext<'_>) -> bool + Send + 'static,
    {
        attach_listener(&self.participant, self.guid, f)
    }

    /// Number of matched writers (SUBSCRIPTION_MATCHED current_count).
    pub fn matched_publications(&self) -> Result<usize, Error> {
        matched(&self.participant, self.guid, Participant::matched_writers)
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
        wait_for_matched(
            &self.participant,
            self.guid,
            n,
            timeout,
            Participant::matched_writers,
        )
    }
}

impl<T> Drop for DataReader<T> {
    fn drop(&mut self) {
        delete_reader(&self.participant, self.guid);
    }
}

/// Runs `f` on the loop with the changes of the local reader `guid` each time some arrived,
/// until it returns `false` or the reader is deleted (the listeners of typed and untyped
/// readers).
pub(in crate::api) fn attach_listener<F>(
    participant: &DomainParticipant,
    guid: Guid,
    mut f: F,
) -> Result<(), Error>
where
    F: FnMut(Vec<CacheChange>, &mut ListenerContext<'_>) -> bool + Send + 'static,
{
    participant.inner.handle.attach(move |p, now| {
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

/// The selection of `max_samples` samples in the states `masks` of the instances `instance`.
fn selection(masks: StateMasks, max_samples: usize, instance: InstanceSelector) -> ReadSelection {
    ReadSelection {
        masks,
        instance,
        max_samples,
        query: None,
    }
}

/// Reads or takes what `selection` asks for from the local reader `guid`, with SampleInfo
/// (shared with `untyped::UntypedDataReader`).
pub(in crate::api) fn select_changes(
    participant: &DomainParticipant,
    guid: Guid,
    selection: ReadSelection,
    take: bool,
) -> Result<Vec<(CacheChange, SampleInfo)>, Error> {
    Ok(participant
        .inner
        .handle
        .execute(move |p, now| p.select(now, guid, &selection, take))?)
}

/// Takes every change of the local reader `guid` (shared with `untyped::UntypedDataReader`).
pub(in crate::api) fn take_changes(
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
pub(in crate::api) fn wait_take_changes(
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

/// Deletes (and unannounces) the reader `guid`; nothing to do when the participant stopped.
pub(in crate::api) fn delete_reader(participant: &DomainParticipant, guid: Guid) {
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
        Some(id) => Err(Error::Config(ConfigError::UnsupportedDataRepresentation {
            type_name: T::type_name(),
            id,
        })),
        None => Ok(()),
    }
}
