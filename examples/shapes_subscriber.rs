//! Prints the shapes published on topic "Square" (domain 0) for twenty seconds.
//!
//! Outside a network namespace it stays on loopback (README, "Network safety"); the project
//! runs it inside the network sandbox:
//! `cargo build --examples && scripts/netns-run target/debug/examples/shapes_subscriber`

use std::time::Duration;

use siftdds::api::DomainParticipant;
use siftdds::qos::{DataReaderQos, Reliability, SubscriberQos, TopicQos};
use siftdds::types::ShapeType;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let participant = DomainParticipant::new(0)?;
    let topic = participant.create_topic::<ShapeType>("Square", TopicQos::default());
    let qos = DataReaderQos {
        reliability: Reliability::reliable(),
        ..DataReaderQos::default()
    };
    let reader = participant
        .create_subscriber(SubscriberQos::default())
        .create_datareader(&topic, qos)?;
    for _ in 0..200 {
        for sample in reader.wait_take(Duration::from_millis(100))? {
            match sample.value {
                Some(s) => println!(
                    "{:<10} {:<10} {:03} {:03} [{}]",
                    "Square", s.color, s.x, s.y, s.shapesize
                ),
                None => println!("instance change: {:?}", sample.kind),
            }
        }
    }
    Ok(())
}
