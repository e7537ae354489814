//! The async surface over real UDP sockets, under three executors: a writer task using
//! `write_async` and a reader task draining `DataReader::stream()` exchange reliable
//! KEEP_ALL samples through a writer history small enough that `write_async` waits for
//! acknowledgements, under a tokio multi-thread runtime, a tokio current-thread runtime (both
//! tasks on one thread: the futures only wait, the loop threads do the protocol work) and
//! smol; and a dropped `write_async` and a dropped stream leave no wait registered, the
//! withdrawn write never happens, and the participants keep working; `wait_event_async` sees
//! the PUBLICATION_MATCHED status; eight streams at once each get every sample; the untyped
//! writer's `write_async` waits for room too; a LIVELINESS_CHANGED reaches a StatusCondition,
//! a listener and `liveliness_changed_async`. Domains 91-98.
//!
//! Must not: open a socket outside a private network namespace (each test skips, counted,
//! when not inside `scripts/netns-run`), or sleep: every wait is bounded by an executor timer.

// Test code over real sockets: it indexes and counts what it built itself and unwraps what
// must work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

#[path = "../interop-tests/skip.rs"]
mod skip;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use siftdds::api::{DataReader, DataWriter, DomainParticipant};
use siftdds::cdr::Endianness;
use siftdds::core::{ChangeKind, Event, WriteRequest};
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, Length, PublisherQos, Reliability, ResourceLimits,
    SubscriberQos, TopicQos,
};
use siftdds::transport::scope;
use siftdds::types::{ShapeType, TopicType};

/// Samples each exchange sends.
const N: i32 = 300;
/// The writer's history: far fewer samples than it sends, so `write_async` waits.
const WRITER_HISTORY: u32 = 8;
/// Bound on one whole test.
const LIMIT: Duration = Duration::from_secs(60);

/// True when this test may open sockets; records a skip otherwise.
fn may_open_sockets(test: &str) -> bool {
    let loopback_only = std::env::var(scope::LOOPBACK_ONLY_VAR).as_deref() == Ok("1");
    let inside = scope::inside_namespace() && !loopback_only;
    if !inside {
        skip::skip(
            test,
            "needs multicast inside a private network namespace (scripts/netns-run)",
        );
    }
    inside
}

fn limits(n: u32) -> ResourceLimits {
    ResourceLimits {
        max_samples: Length::Limited(n),
        max_instances: Length::Unlimited,
        max_samples_per_instance: Length::Limited(n),
    }
}

/// Two participants on `domain`: a reliable KEEP_ALL writer of [`WRITER_HISTORY`] samples
/// on the first, a reliable KEEP_ALL reader holding at most `reader_history` on the second.
fn pair(
    domain: u32,
    reader_history: Option<u32>,
) -> (
    DomainParticipant,
    DataWriter<ShapeType>,
    DomainParticipant,
    DataReader<ShapeType>,
) {
    let build = || {
        DomainParticipant::builder(domain)
            .announce_period(Duration::from_millis(200))
            .build()
            .unwrap()
    };
    let (a, b) = (build(), build());
    let topic = a.create_topic::<ShapeType>("AsyncSquare", TopicQos::default());
    let wqos = DataWriterQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        resource_limits: limits(WRITER_HISTORY),
        ..DataWriterQos::default()
    };
    let writer = a
        .create_publisher(PublisherQos::default())
        .create_datawriter(&topic, wqos)
        .unwrap();
    writer.set_pipelined(true);
    let rqos = DataReaderQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        resource_limits: reader_history.map_or_else(ResourceLimits::default, limits),
        ..DataReaderQos::default()
    };
    let topic = b.create_topic::<ShapeType>("AsyncSquare", TopicQos::default());
    let reader = b
        .create_subscriber(SubscriberQos::default())
        .create_datareader(&topic, rqos)
        .unwrap();
    (a, writer, b, reader)
}

fn shape(x: i32) -> ShapeType {
    ShapeType {
        color: "BLUE".into(),
        x,
        y: 0,
        shapesize: 30,
        additional_payload_size: vec![],
    }
}

/// A future that counts whether it was ever not ready.
struct Pended<F> {
    future: F,
    pended: bool,
}

impl<F: Future + Unpin> Future for Pended<F> {
    type Output = (F::Output, bool);

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        match Pin::new(&mut this.future).poll(cx) {
            Poll::Ready(out) => Poll::Ready((out, this.pended)),
            Poll::Pending => {
                this.pended = true;
                Poll::Pending
            }
        }
    }
}

/// Writes `from..to` with `write_async`; returns how many writes had to wait.
async fn write_all(writer: &DataWriter<ShapeType>, from: i32, to: i32) -> usize {
    writer.wait_for_matched_async(1).await.unwrap();
    let mut waited = 0;
    for x in from..to {
        let future = Box::pin(writer.write_async(&shape(x)));
        let (written, pended) = Pended {
            future,
            pended: false,
        }
        .await;
        written.unwrap();
        waited += usize::from(pended);
    }
    writer.wait_for_acknowledgments_async().await.unwrap();
    waited
}

/// Compiles only for a `Send` value.
fn assert_send<S: Send>(_: &S) {}

/// Reads `count` samples from a new stream of `reader`; returns their `x`.
async fn read_n(reader: &DataReader<ShapeType>, count: usize) -> Vec<i32> {
    reader.wait_for_matched_async(1).await.unwrap();
    let mut stream = reader.stream();
    assert_send(&stream);
    let mut xs = Vec::with_capacity(count);
    while xs.len() < count {
        let sample = stream.next().await.expect("the stream ended early");
        xs.push(sample.value.unwrap().x);
    }
    xs
}

/// What every exchange must show: all N samples, in order, exactly once, and writes that
/// waited for the small history.
fn check_exchange(xs: &[i32], waited: usize) {
    assert_eq!(xs, (0..N).collect::<Vec<_>>());
    assert!(waited > 0, "no write_async waited for history room");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn write_async_and_stream_exchange_in_order_on_tokio_multi_thread() {
    if !may_open_sockets("write_async_and_stream_exchange_in_order_on_tokio_multi_thread") {
        return;
    }
    let (_a, writer, _b, reader) = pair(91, None);
    let w = tokio::spawn(async move { write_all(&writer, 0, N).await });
    let r = tokio::spawn(async move { read_n(&reader, N as usize).await });
    let (waited, xs) = tokio::time::timeout(LIMIT, async { (w.await, r.await) })
        .await
        .expect("the exchange did not finish");
    check_exchange(&xs.unwrap(), waited.unwrap());
}

#[tokio::test(flavor = "current_thread")]
async fn write_async_and_stream_share_one_tokio_thread_without_deadlock() {
    if !may_open_sockets("write_async_and_stream_share_one_tokio_thread_without_deadlock") {
        return;
    }
    let (_a, writer, _b, reader) = pair(92, None);
    let test_thread = std::thread::current().id();
    let w = tokio::spawn(async move {
        assert_eq!(std::thread::current().id(), test_thread);
        write_all(&writer, 0, N).await
    });
    let r = tokio::spawn(async move {
        assert_eq!(std::thread::current().id(), test_thread);
        read_n(&reader, N as usize).await
    });
    let (waited, xs) = tokio::time::timeout(LIMIT, async { (w.await, r.await) })
        .await
        .expect("the exchange did not finish (deadlock?)");
    check_exchange(&xs.unwrap(), waited.unwrap());
}

#[test]
fn write_async_and_stream_exchange_in_order_on_smol() {
    if !may_open_sockets("write_async_and_stream_exchange_in_order_on_smol") {
        return;
    }
    let (_a, writer, _b, reader) = pair(93, None);
    let ex = smol::LocalExecutor::new();
    let (waited, xs) = smol::block_on(ex.run(async {
        let w = ex.spawn(write_all(&writer, 0, N));
        let r = ex.spawn(read_n(&reader, N as usize));
        let both = async { (w.await, r.await) };
        let timeout = async {
            smol::Timer::after(LIMIT).await;
            panic!("the exchange did not finish");
        };
        smol::future::or(both, timeout).await
    }));
    check_exchange(&xs, waited);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropped_write_async_and_stream_leave_nothing_registered_and_never_write() {
    if !may_open_sockets("dropped_write_async_and_stream_leave_nothing_registered_and_never_write")
    {
        return;
    }
    // The reader holds 2 samples and nobody takes them: it stops acknowledging, and the
    // writer's history fills.
    let (a, writer, b, reader) = pair(94, Some(2));
    let (a_base, b_base) = (
        a.registered_waits_for_tests().unwrap(),
        b.registered_waits_for_tests().unwrap(),
    );
    writer.wait_for_matched_async(1).await.unwrap();
    reader.wait_for_matched_async(1).await.unwrap();
    let mut written = 0;
    loop {
        let write = writer.write_async(&shape(written));
        match tokio::time::timeout(Duration::from_millis(500), write).await {
            Ok(result) => {
                result.unwrap();
                written += 1;
                assert!(written < 1000, "the writer's history never filled");
            }
            // Dropped mid-way: the write of `written` is withdrawn.
            Err(_) => break,
        }
    }
    assert!(written >= WRITER_HISTORY as i32);
    assert_eq!(a.registered_waits_for_tests().unwrap(), a_base);

    // A stream takes what is there, then is dropped while waiting for more.
    let mut xs = Vec::new();
    {
        let mut stream = reader.stream();
        while let Ok(Some(sample)) =
            tokio::time::timeout(Duration::from_millis(500), stream.next()).await
        {
            xs.push(sample.value.unwrap().x);
        }
        assert_eq!(b.registered_waits_for_tests().unwrap(), b_base + 1);
    }
    assert_eq!(b.registered_waits_for_tests().unwrap(), b_base);
    // Everything written, and nothing of the withdrawn write.
    assert_eq!(xs, (0..written).collect::<Vec<_>>());

    // Both keep working: the withdrawn sample and more, once each, in order.
    let more = written + 50;
    let (_, rest) = tokio::time::timeout(
        LIMIT,
        futures::future::join(
            write_all(&writer, written, more),
            read_n(&reader, (more - written) as usize),
        ),
    )
    .await
    .expect("the participants stopped working");
    assert_eq!(rest, (written..more).collect::<Vec<_>>());
    assert_eq!(a.registered_waits_for_tests().unwrap(), a_base);
    assert_eq!(b.registered_waits_for_tests().unwrap(), b_base);
}

#[tokio::test(flavor = "current_thread")]
async fn wait_event_async_sees_the_publication_matched_status() {
    if !may_open_sockets("wait_event_async_sees_the_publication_matched_status") {
        return;
    }
    let (a, _writer, _b, _reader) = pair(95, None);
    let base = a.registered_waits_for_tests().unwrap();
    let matched = tokio::time::timeout(LIMIT, async {
        loop {
            if let Event::PublicationMatched { matched: true, .. } =
                a.wait_event_async().await.unwrap()
            {
                return;
            }
        }
    })
    .await;
    assert!(matched.is_ok(), "no PUBLICATION_MATCHED event");
    assert_eq!(a.registered_waits_for_tests().unwrap(), base);
}

#[tokio::test(flavor = "current_thread")]
async fn untyped_write_async_waits_for_room_and_delivers_in_order() {
    if !may_open_sockets("untyped_write_async_waits_for_room_and_delivers_in_order") {
        return;
    }
    let (a, _writer, _b, reader) = pair(96, None);
    let qos = DataWriterQos {
        reliability: Reliability::reliable(),
        history: History::KeepAll,
        resource_limits: limits(4),
        ..DataWriterQos::default()
    };
    let untyped = a
        .create_publisher(PublisherQos::default())
        .create_untyped_datawriter("AsyncSquare", ShapeType::type_name(), true, qos)
        .unwrap();
    let n = 100;
    let write = async {
        untyped.wait_for_matched_async(1).await.unwrap();
        for x in 0..n {
            let s = shape(x);
            let data = Bytes::from(s.serialize(Endianness::Little));
            let request = WriteRequest::new(ChangeKind::Alive, s.key_hash(), data);
            let write = untyped.write_async(request);
            // Any executor may move it between threads.
            assert_send(&write);
            write.await.unwrap();
        }
        untyped.wait_for_acknowledgments_async().await.unwrap();
    };
    // Both writers match the reader; only the untyped one writes.
    let (_, xs) = tokio::time::timeout(
        LIMIT,
        futures::future::join(write, read_n(&reader, n as usize)),
    )
    .await
    .expect("the exchange did not finish");
    assert_eq!(xs, (0..n).collect::<Vec<_>>());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_streams_at_once_each_get_every_sample_in_order() {
    if !may_open_sockets("many_streams_at_once_each_get_every_sample_in_order") {
        return;
    }
    const READERS: usize = 8;
    let (_a, writer, b, reader) = pair(97, None);
    let base = b.registered_waits_for_tests().unwrap();
    let topic = b.create_topic::<ShapeType>("AsyncSquare", TopicQos::default());
    let subscriber = b.create_subscriber(SubscriberQos::default());
    let mut readers = vec![reader];
    for _ in 1..READERS {
        let qos = DataReaderQos {
            reliability: Reliability::reliable(),
            history: History::KeepAll,
            ..DataReaderQos::default()
        };
        readers.push(subscriber.create_datareader(&topic, qos).unwrap());
    }
    let n = 100;
    let tasks: Vec<_> = readers
        .into_iter()
        .map(|r| tokio::spawn(async move { read_n(&r, n as usize).await }))
        .collect();
    writer
        .wait_for_matched_async(READERS)
        .await
        .expect("every reader matched");
    let all = tokio::time::timeout(LIMIT, async {
        write_all(&writer, 0, n).await;
        let mut all = Vec::new();
        for t in tasks {
            all.push(t.await.unwrap());
        }
        all
    })
    .await
    .expect("the streams did not finish");
    for xs in all {
        assert_eq!(xs, (0..n).collect::<Vec<_>>());
    }
    // The readers (and their streams) are gone: nothing is left registered.
    assert_eq!(b.registered_waits_for_tests().unwrap(), base);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn liveliness_changed_reaches_a_status_condition_a_listener_and_a_future() {
    use siftdds::api::{Condition, StatusMask, WaitSet};
    if !may_open_sockets("liveliness_changed_reaches_a_status_condition_a_listener_and_a_future") {
        return;
    }
    let (_a, writer, _b, reader) = pair(98, None);
    tokio::time::timeout(LIMIT, reader.wait_for_matched_async(1))
        .await
        .unwrap()
        .unwrap();
    // Matched: alive (an infinite lease is alive while matched). Reading it makes the
    // counts the base of the next changes.
    let s = reader.liveliness_changed_status().unwrap();
    assert_eq!((s.alive_count, s.not_alive_count), (1, 0), "{s:?}");
    assert_eq!(s.last_publication_handle, Some(writer.guid()));
    let status = reader
        .status_condition(StatusMask::LIVELINESS_CHANGED)
        .unwrap();
    let mut ws = WaitSet::new();
    ws.attach(&status);
    let (tx, heard) = std::sync::mpsc::channel();
    reader
        .set_liveliness_listener(move |s| tx.send(s).is_ok())
        .unwrap();
    let gone = reader.liveliness_changed_async();
    tokio::pin!(gone);
    assert!(futures::poll!(&mut gone).is_pending());
    // The writer goes: alive_count 0. The listener and the future each read the status.
    let guid = writer.guid();
    drop(writer);
    let s = tokio::time::timeout(LIMIT, gone).await.unwrap().unwrap();
    assert_eq!(
        (s.alive_count, s.last_publication_handle),
        (0, Some(guid)),
        "{s:?}"
    );
    let woke = tokio::task::block_in_place(|| ws.wait(LIMIT)).unwrap();
    assert_eq!(woke, [status.id()]);
    assert_eq!(
        status.take_changes().unwrap(),
        StatusMask::LIVELINESS_CHANGED
    );
    let s = tokio::task::block_in_place(|| heard.recv_timeout(LIMIT)).unwrap();
    assert_eq!(s.alive_count, 0, "{s:?}");
    // Read by them already: no change since.
    let s = reader.liveliness_changed_status().unwrap();
    assert_eq!((s.alive_count, s.alive_count_change), (0, 0), "{s:?}");
}
