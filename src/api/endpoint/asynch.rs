//! The async surface of the endpoints, for any executor: `write_async` on the typed and
//! untyped writers (waiting for history room and reliable acknowledgements without blocking
//! a thread), [`DataReader::stream`] (the samples as a `futures_core::Stream`), and the async
//! forms of the match, acknowledgement and status-event waits.
//!
//! Each future is a [`WaitFuture`](crate::runtime::WaitFuture) over the same check its
//! blocking twin hands to `RuntimeHandle::wait_for`: the event loop thread runs the check
//! (the write, the take) and wakes the task's `Waker` when it succeeds, so a future only
//! waits, and writers and readers may share one executor thread. There is no timeout
//! argument: an application bounds a wait with its executor's timer, and dropping a future
//! withdraws its wait (a dropped `write_async` that had not written never writes).
//!
//! Must not: depend on an async runtime (tokio, async-std, smol: only `futures-core`'s
//! `Stream` trait), block the polling thread (except a PERSISTENT writer's store commit), or
//! hold protocol state. DDS 1.4 §2.2.2.4.2.11 (write), §2.2.2.4.2.15
//! (wait_for_acknowledgments), §2.2.2.5.3.9 (take).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;

use super::reader::DataReader;
use super::untyped::{UntypedDataReader, UntypedDataWriter};
use super::writer::{DataWriter, all_acked};
use super::{Sample, matched_at_least};
use crate::api::{DomainParticipant, Error};
use crate::core::participant::LivelinessChangedStatus;
use crate::core::reader::{ReadSelection, SampleInfo};
use crate::core::{CacheChange, Event, Participant, WriteRequest};
use crate::runtime::WaitFuture;
use crate::time::Timestamp;
use crate::types::TopicType;
use crate::wire::Guid;

impl<T: TopicType> DataWriter<T> {
    /// [`DataWriter::write`] as a future: with a full KEEP_ALL history it waits, without
    /// blocking a thread, until readers acknowledged enough for the history to take it. The
    /// sample is serialized at once. No RELIABILITY max_blocking_time: bound the wait with
    /// the executor's timer; dropping the future before it is ready withdraws the write. A
    /// PERSISTENT writer writes and commits to its store as `write` does, on the polling
    /// thread. DDS 1.4 §2.2.2.4.2.11.
    pub fn write_async<'a>(
        &'a self,
        sample: &T,
    ) -> impl Future<Output = Result<(), Error>> + Send + use<'a, T> {
        let request = self.alive_request(sample, None);
        async move { self.write_request_async(request?).await }
    }

    /// [`DataWriter::write_async`] with `timestamp` as the source timestamp.
    /// DDS 1.4 §2.2.2.4.2.12.
    pub fn write_w_timestamp_async<'a>(
        &'a self,
        sample: &T,
        timestamp: Timestamp,
    ) -> impl Future<Output = Result<(), Error>> + Send + use<'a, T> {
        let request = self.alive_request(sample, Some(timestamp));
        async move { self.write_request_async(request?).await }
    }

    async fn write_request_async(&self, request: WriteRequest) -> Result<(), Error> {
        if self.persistent {
            return self.write_change(request);
        }
        let handle = &self.participant.inner.handle;
        handle
            .write_async(&self.credit, self.guid, request)
            .await?
            .map_err(Error::from)
    }

    /// [`DataWriter::wait_for_acknowledgments`] as a future (no timeout).
    pub async fn wait_for_acknowledgments_async(&self) -> Result<(), Error> {
        acknowledged(&self.participant, self.guid).await
    }

    /// [`DataWriter::wait_for_matched`] as a future (no timeout): at least `n` readers.
    pub async fn wait_for_matched_async(&self, n: usize) -> Result<(), Error> {
        let count = Participant::matched_readers;
        matched_async(&self.participant, self.guid, n, count).await
    }
}

impl UntypedDataWriter {
    /// [`UntypedDataWriter::write`] as a future: handed over at once while the history is
    /// known to have room, else written on the loop when a KEEP_ALL history has room, the
    /// task waiting without blocking a thread. No timeout: bound it with the executor's
    /// timer; dropping the future before it is ready withdraws the write.
    /// DDS 1.4 §2.2.2.4.2.11.
    pub async fn write_async(&self, request: WriteRequest) -> Result<(), Error> {
        let s = &self.sender;
        let handle = &self.participant.inner.handle;
        handle
            .write_async(&s.credit, s.guid, request)
            .await?
            .map_err(Error::from)
    }

    /// [`UntypedDataWriter::wait_for_acknowledgments`] as a future (no timeout).
    pub async fn wait_for_acknowledgments_async(&self) -> Result<(), Error> {
        acknowledged(&self.participant, self.guid()).await
    }

    /// [`UntypedDataWriter::wait_for_matched`] as a future (no timeout).
    pub async fn wait_for_matched_async(&self, n: usize) -> Result<(), Error> {
        let count = Participant::matched_readers;
        matched_async(&self.participant, self.guid(), n, count).await
    }
}

impl<T: TopicType> DataReader<T> {
    /// The samples this reader receives, as a stream: each batch is taken (as
    /// [`DataReader::take`]) on the event loop when it arrives, and its samples are yielded
    /// one by one. Samples stay in the reader's history until the stream asks for more, so a
    /// slow consumer holds back a reliable KEEP_ALL writer as `take` does. Ends when the
    /// participant stops. Several streams of one reader share its samples (each sample goes
    /// to one of them); dropping a stream withdraws its wait.
    pub fn stream(&self) -> SampleStream<'_, T> {
        SampleStream {
            reader: self,
            ready: Vec::new().into_iter(),
            wait: None,
            ended: false,
        }
    }

    /// [`DataReader::wait_for_matched`] as a future (no timeout): at least `n` writers.
    pub async fn wait_for_matched_async(&self, n: usize) -> Result<(), Error> {
        let count = Participant::matched_writers;
        matched_async(&self.participant, self.guid, n, count).await
    }

    /// The next LIVELINESS_CHANGED of this reader (a writer matched, unmatched, lost or
    /// regained its liveliness after the future was first polled), then the status, read
    /// as [`DataReader::liveliness_changed_status`] reads it (no timeout). DDS 1.4 §2.2.4.1.
    pub async fn liveliness_changed_async(&self) -> Result<LivelinessChangedStatus, Error> {
        let guid = self.guid;
        let mut from = None;
        let next = move |p: &mut Participant, _: crate::time::Now| {
            let total = p.liveliness_changed(guid)?.total_changes;
            match *from.get_or_insert(total) == total {
                true => None,
                false => p.take_liveliness_changed(guid),
            }
        };
        Ok(self.participant.inner.handle.wait_async(next).await?)
    }
}

impl UntypedDataReader {
    /// [`UntypedDataReader::wait_for_matched`] as a future (no timeout).
    pub async fn wait_for_matched_async(&self, n: usize) -> Result<(), Error> {
        let count = Participant::matched_writers;
        matched_async(&self.participant, self.guid, n, count).await
    }
}

impl DomainParticipant {
    /// [`DomainParticipant::wait_event`] as a future (no timeout): the next status event.
    pub async fn wait_event_async(&self) -> Result<Event, Error> {
        Ok(self.inner.handle.wait_async(|p, _| p.poll_event()).await?)
    }

    /// Test hook (feature `test-hooks`): how many waits (blocking, async, stream takes) and
    /// listeners this participant's event loop holds, after a round trip to the loop (so a
    /// future or stream dropped before this call is counted out).
    #[cfg(feature = "test-hooks")]
    pub fn registered_waits_for_tests(&self) -> Result<usize, Error> {
        self.inner.handle.execute(|_, _| ())?;
        Ok(self.inner.handle.registered_waits_for_tests())
    }
}

/// The stream of a reader's samples ([`DataReader::stream`]).
#[must_use = "a stream does nothing unless polled"]
pub struct SampleStream<'a, T> {
    reader: &'a DataReader<T>,
    /// Samples of the last batch not yielded yet.
    ready: std::vec::IntoIter<Sample<T>>,
    /// The take waiting on the loop for the next batch.
    wait: Option<Batch<'a>>,
    /// The loop stopped (or the reader is gone): nothing more will come.
    ended: bool,
}

/// A take on the loop: `Some(changes)` once some arrived, `None` if the reader is gone.
type Batch<'a> = WaitFuture<'a, Participant, Option<Vec<(CacheChange, SampleInfo)>>>;

// Nothing in a `SampleStream` is pinned: the pending take is a `WaitFuture`, which is `Unpin`
// and polled through `Pin::new`.
impl<T> Unpin for SampleStream<'_, T> {}

impl<T: TopicType> Stream for SampleStream<'_, T> {
    type Item = Sample<T>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Sample<T>>> {
        let this = &mut *self;
        loop {
            if let Some(sample) = this.ready.next() {
                return Poll::Ready(Some(sample));
            }
            if this.ended {
                return Poll::Ready(None);
            }
            let reader = this.reader;
            let wait = this.wait.get_or_insert_with(|| next_batch(reader));
            let batch = match Pin::new(wait).poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(batch) => batch,
            };
            this.wait = None;
            match batch {
                Ok(Some(changes)) => this.ready = stream_items(reader.guid, changes).into_iter(),
                Ok(None) | Err(_) => this.ended = true,
            }
        }
    }
}

/// The items a stream yields for the changes taken from the reader `guid`: the one place a
/// stream item is made (undecodable samples are dropped and logged, as by `take`).
fn stream_items<T: TopicType>(
    guid: Guid,
    changes: Vec<(CacheChange, SampleInfo)>,
) -> Vec<Sample<T>> {
    DataReader::<T>::samples(guid, changes)
}

/// Waits on the loop until `reader` has changes, then takes them all in the same visit.
fn next_batch<T>(reader: &DataReader<T>) -> Batch<'_> {
    let guid = reader.guid;
    let any = ReadSelection::any();
    reader.participant.inner.handle.wait_async(move |p, now| {
        if !p.has_reader(guid) {
            return Some(None);
        }
        let changes = p.select(now, guid, &any, true);
        (!changes.is_empty()).then_some(Some(changes))
    })
}

/// Waits until every matched reliable reader acknowledged every sample of the local writer
/// `guid` (the typed and untyped writers').
async fn acknowledged(participant: &DomainParticipant, guid: Guid) -> Result<(), Error> {
    Ok(participant.inner.handle.wait_async(all_acked(guid)).await?)
}

/// Waits until `count` of the local endpoint `guid` reaches `n` (every endpoint's
/// `wait_for_matched_async`).
async fn matched_async(
    participant: &DomainParticipant,
    guid: Guid,
    n: usize,
    count: fn(&Participant, Guid) -> usize,
) -> Result<(), Error> {
    let check = matched_at_least(guid, n, count);
    Ok(participant.inner.handle.wait_async(check).await?)
}
