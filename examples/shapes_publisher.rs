//! Publishes a moving RED square on topic "Square" (domain 0), reliable, for ten seconds.
//!
//! Outside a network namespace it stays on loopback (README, "Network safety"); the project
//! runs it inside the network sandbox:
//! `cargo build --examples && scripts/netns-run target/debug/examples/shapes_publisher`
//! Any DDS Shapes subscriber on the same domain (Cyclone, Fast DDS, siftdds) receives it.

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

use siftdds::api::DomainParticipant;
use siftdds::qos::{DataWriterQos, PublisherQos, TopicQos};
use siftdds::types::ShapeType;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let participant = DomainParticipant::new(0)?;
    let topic = participant.create_topic::<ShapeType>("Square", TopicQos::default());
    let writer = participant
        .create_publisher(PublisherQos::default())
        .create_datawriter(&topic, DataWriterQos::default())?;
    let mut shape = ShapeType {
        color: "RED".into(),
        x: 0,
        y: 100,
        shapesize: 30,
        ..Default::default()
    };
    for _ in 0..100 {
        shape.x = (shape.x + 5) % 240;
        writer.write(&shape)?;
        println!("wrote {} {} {}", shape.color, shape.x, shape.y);
        // Examples use the public API only; pacing with the wait API keeps them clock-free.
        let _ = writer.wait_for_matched(usize::MAX, Duration::from_millis(100));
    }
    Ok(())
}
