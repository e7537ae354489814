//! Topics and the entities shared by both sides of the public API: the topic, the
//! [`ListenerContext`] a reader's listener writes through, and the participant's factories of
//! publishers, subscribers and topics. The writing side lives in `endpoint/writer.rs`
//! (Publisher, DataWriter), the reading side in `endpoint/reader.rs` (Subscriber, DataReader,
//! Sample), the endpoints of a type not known at compile time in `endpoint/untyped.rs`, the
//! async forms of writes and waits and the sample stream in `endpoint/asynch.rs`.
//!
//! Must not: hold protocol state; every operation is a command to the participant's event
//! loop. DDS 1.4 §2.2.2.2.1, §2.2.2.3, §2.2.4.4.

mod asynch;
mod reader;
mod untyped;
mod writer;

pub use asynch::SampleStream;
pub use reader::{DataReader, Sample, Subscriber};
pub use untyped::{UntypedDataReader, UntypedDataWriter, UntypedReaderOptions, UntypedWriteSender};
pub use writer::{DEFAULT_FRAGMENT_SIZE, DataWriter, Publisher};

use std::marker::PhantomData;
use std::sync::Arc;

use bytes::Bytes;

use super::{DomainParticipant, Error};
use crate::cdr::Endianness;
use crate::core::{ChangeKind, Participant, WriteRequest};
use crate::qos::{PublisherQos, SubscriberQos, TopicQos};
use crate::time::{Now, Timestamp};
use crate::types::TopicType;
use crate::wire::Guid;

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
            .map_err(Error::from)?;
        Ok(())
    }
}
/// How many endpoints `count` (the core's count of the endpoints matched with a local one)
/// says the local endpoint `guid` has matched.
pub(in crate::api) fn matched(
    participant: &DomainParticipant,
    guid: Guid,
    count: fn(&Participant, Guid) -> usize,
) -> Result<usize, Error> {
    Ok(participant
        .inner
        .handle
        .execute(move |p, _| count(p, guid))?)
}

/// Waits up to `timeout` until `count` (the core's count of the endpoints matched with the
/// local endpoint `guid`) reaches `n` (the typed and untyped readers' and writers'
/// `wait_for_matched`).
pub(in crate::api) fn wait_for_matched(
    participant: &DomainParticipant,
    guid: Guid,
    n: usize,
    timeout: std::time::Duration,
    count: fn(&Participant, Guid) -> usize,
) -> Result<(), Error> {
    match participant
        .inner
        .handle
        .wait_for(timeout, matched_at_least(guid, n, count))?
    {
        Some(()) => Ok(()),
        None => Err(Error::Timeout),
    }
}

/// The check of a match wait (blocking or async): satisfied once `count` (the core's count
/// of the endpoints matched with the local endpoint `guid`) reaches `n`.
pub(in crate::api) fn matched_at_least(
    guid: Guid,
    n: usize,
    count: fn(&Participant, Guid) -> usize,
) -> impl FnMut(&mut Participant, Now) -> Option<()> + Send + 'static {
    move |p, _| (count(p, guid) >= n).then_some(())
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

/// DDS-Security 1.1 §9.4.3.2-3 (check_create_datawriter / check_create_datareader): whether
/// our permissions let `participant` create a writer (`writer`) or reader of `topic` in
/// `partitions`. A refusal is [`super::ConfigError::Security`] with the rule that decided.
fn check_access(
    participant: &DomainParticipant,
    writer: bool,
    topic: &str,
    partitions: &[String],
) -> Result<(), Error> {
    let (topic, partitions) = (topic.to_owned(), partitions.to_vec());
    let checked = participant
        .inner
        .handle
        .execute(move |p, now| match writer {
            true => p.check_create_writer(now, &topic, &partitions),
            false => p.check_create_reader(now, &topic, &partitions),
        })?;
    checked.map_err(|reason| {
        let what = if writer { "DataWriter" } else { "DataReader" };
        Error::Config(super::ConfigError::Security(format!(
            "access control: creating a {what} is denied: {reason}"
        )))
    })
}
