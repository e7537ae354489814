//! The async write path against the blocking one: samples/s of a reliable KEEP_ALL stream of
//! 1 KiB ShapeType samples between two participants of this process over loopback, written
//! with `DataWriter::write` and read with `wait_take` (each on a thread), or written with
//! `write_async` and read through `DataReader::stream()` (two tasks on a tokio multi-thread
//! runtime). Pipelined writes, a 64-sample writer history.
//!
//! ```text
//! async_rate blocking|async SECONDS
//! ```
//!
//! Prints one `summary:` line: mode, samples, seconds from the first write until the reader
//! took the last sample (the writer's acknowledgements included), samples/s. Opens sockets:
//! run it only inside the network sandbox:
//! `scripts/netns-run target/release/examples/async_rate async 3`.

// An example/benchmark/test: it indexes and counts what it built itself and unwraps what must
// work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
// A measuring tool outside the sans-IO core: it reads the clock.
#![allow(clippy::disallowed_methods)]

use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use siftdds::api::{DataReader, DataWriter, DomainParticipant};
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, Length, PublisherQos, Reliability, ResourceLimits,
    SubscriberQos, TopicQos,
};
use siftdds::types::ShapeType;

const PAYLOAD: usize = 1024;
const WRITER_HISTORY: u32 = 64;

fn endpoints() -> (
    DomainParticipant,
    DataWriter<ShapeType>,
    DomainParticipant,
    DataReader<ShapeType>,
) {
    let a = DomainParticipant::new(0).unwrap();
    let b = DomainParticipant::new(0).unwrap();
    let topic = a.create_topic::<ShapeType>("Rate", TopicQos::default());
    let writer = a
        .create_publisher(PublisherQos::default())
        .create_datawriter(
            &topic,
            DataWriterQos {
                // The blocking writer waits as long as the async one may.
                reliability: Reliability {
                    max_blocking_time: siftdds::time::Duration::from_std(Duration::from_secs(30)),
                    ..Reliability::reliable()
                },
                history: History::KeepAll,
                resource_limits: ResourceLimits {
                    max_samples: Length::Limited(WRITER_HISTORY),
                    ..ResourceLimits::default()
                },
                ..DataWriterQos::default()
            },
        )
        .unwrap();
    writer.set_pipelined(true);
    let topic = b.create_topic::<ShapeType>("Rate", TopicQos::default());
    let reader = b
        .create_subscriber(SubscriberQos::default())
        .create_datareader(
            &topic,
            DataReaderQos {
                reliability: Reliability::reliable(),
                history: History::KeepAll,
                ..DataReaderQos::default()
            },
        )
        .unwrap();
    writer.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    reader.wait_for_matched(1, Duration::from_secs(10)).unwrap();
    (a, writer, b, reader)
}

fn sample(x: i32) -> ShapeType {
    ShapeType {
        color: "RED".into(),
        x,
        additional_payload_size: vec![0x5a; PAYLOAD],
        ..Default::default()
    }
}

/// Samples written, once the writer finished (-1 before).
type Total = std::sync::Arc<AtomicI32>;

fn finished(total: &Total, got: i32) -> bool {
    let n = total.load(Ordering::SeqCst);
    n >= 0 && got >= n
}

/// Writes for `seconds` with `write`, reads with `wait_take` on another thread; returns
/// samples received.
fn blocking(seconds: Duration) -> (i32, Duration) {
    let (_a, writer, _b, reader) = endpoints();
    let total = Total::new(AtomicI32::new(-1));
    let start = Instant::now();
    let got = std::thread::scope(|s| {
        s.spawn(|| {
            let start = Instant::now();
            let mut x = 0;
            while start.elapsed() < seconds {
                writer.write(&sample(x)).unwrap();
                x += 1;
            }
            writer
                .wait_for_acknowledgments(Duration::from_secs(30))
                .unwrap();
            total.store(x, Ordering::SeqCst);
        });
        let mut got = 0;
        while !finished(&total, got) {
            // Only ALIVE samples count (a deleted writer's instances are disposed).
            for s in reader.wait_take(Duration::from_millis(100)).unwrap() {
                if let Some(v) = s.value {
                    assert_eq!(v.x, got);
                    got += 1;
                }
            }
        }
        got
    });
    (got, start.elapsed())
}

/// Writes for `seconds` with `write_async`, reads through `stream()`, as two tasks of a
/// tokio multi-thread runtime; returns samples received.
fn asynchronous(seconds: Duration) -> (i32, Duration) {
    let (_a, writer, _b, reader) = endpoints();
    let total = Total::new(AtomicI32::new(-1));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    let done = total.clone();
    let start = Instant::now();
    let got = rt.block_on(async move {
        let w = tokio::spawn(async move {
            let start = Instant::now();
            let mut x = 0;
            while start.elapsed() < seconds {
                writer.write_async(&sample(x)).await.unwrap();
                x += 1;
            }
            writer.wait_for_acknowledgments_async().await.unwrap();
            done.store(x, Ordering::SeqCst);
        });
        let r = tokio::spawn(async move {
            let mut stream = reader.stream();
            let mut got = 0;
            while !finished(&total, got) {
                let next = tokio::time::timeout(Duration::from_millis(100), stream.next());
                // Only ALIVE samples count (a deleted writer's instances are disposed).
                if let Ok(s) = next.await {
                    if let Some(v) = s.expect("the participant stopped").value {
                        assert_eq!(v.x, got);
                        got += 1;
                    }
                }
            }
            got
        });
        w.await.unwrap();
        r.await.unwrap()
    });
    (got, start.elapsed())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).map(String::as_str).unwrap_or("async");
    let seconds = Duration::from_secs(args.get(2).map_or(3, |s| s.parse().unwrap()));
    let (n, took) = match mode {
        "blocking" => blocking(seconds),
        "async" => asynchronous(seconds),
        _ => panic!("usage: async_rate blocking|async SECONDS"),
    };
    let secs = took.as_secs_f64();
    println!(
        "summary: {mode} samples {n} seconds {secs:.2} samples/s {:.0}",
        f64::from(n) / secs
    );
}
