//! A writer task and a reader task on one tokio runtime: `write_async` publishes 1000 Square
//! samples through a reliable KEEP_ALL writer whose history holds 16 (so it waits for the
//! reader's acknowledgements without blocking a thread), and `DataReader::stream()` yields
//! them in order. Both participants are in this process, on domain 0.
//!
//! It opens sockets: run it only inside the network sandbox,
//! `cargo build --examples && scripts/netns-run target/debug/examples/async_pubsub`.

// An example/benchmark/test: it indexes and counts what it built itself and unwraps what must
// work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use std::time::Duration;

use futures::StreamExt;
use siftdds::api::DomainParticipant;
use siftdds::qos::{
    DataReaderQos, DataWriterQos, History, Length, PublisherQos, Reliability, ResourceLimits,
    SubscriberQos, TopicQos,
};
use siftdds::types::ShapeType;

const SAMPLES: i32 = 1000;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let publishing = DomainParticipant::new(0)?;
    let subscribing = DomainParticipant::new(0)?;
    let topic = publishing.create_topic::<ShapeType>("Square", TopicQos::default());
    let writer = publishing
        .create_publisher(PublisherQos::default())
        .create_datawriter(
            &topic,
            DataWriterQos {
                reliability: Reliability::reliable(),
                history: History::KeepAll,
                resource_limits: ResourceLimits {
                    max_samples: Length::Limited(16),
                    ..ResourceLimits::default()
                },
                ..DataWriterQos::default()
            },
        )?;
    let topic = subscribing.create_topic::<ShapeType>("Square", TopicQos::default());
    let reader = subscribing
        .create_subscriber(SubscriberQos::default())
        .create_datareader(
            &topic,
            DataReaderQos {
                reliability: Reliability::reliable(),
                history: History::KeepAll,
                ..DataReaderQos::default()
            },
        )?;

    let publish = tokio::spawn(async move {
        writer.wait_for_matched_async(1).await?;
        for x in 0..SAMPLES {
            let shape = ShapeType {
                color: "RED".into(),
                x,
                y: x / 2,
                shapesize: 30,
                ..Default::default()
            };
            writer.write_async(&shape).await?;
        }
        writer.wait_for_acknowledgments_async().await?;
        Ok::<_, siftdds::api::Error>(())
    });
    let subscribe = tokio::spawn(async move {
        let mut samples = reader.stream();
        let mut last = -1;
        while last + 1 < SAMPLES {
            let sample = samples.next().await.expect("the participant stopped");
            let shape = sample.value.expect("only ALIVE samples are written");
            assert_eq!(shape.x, last + 1, "in order, none lost");
            last = shape.x;
        }
        last + 1
    });

    // The executor's timer bounds the whole exchange; a dropped future withdraws its wait.
    let (published, received) = tokio::time::timeout(Duration::from_secs(60), async {
        (publish.await, subscribe.await)
    })
    .await?;
    published??;
    println!("received {} samples in order", received?);
    Ok(())
}
