//! Measures what a write costs per DURABILITY kind, with no reader: VOLATILE, TRANSIENT
//! (the durable history in memory) and PERSISTENT (each write returns once committed to the
//! SQLite store: WAL, synchronous=FULL). Prints writes per second and the mean write time.
//!
//! Run inside the network sandbox (it opens sockets):
//! `cargo build --release --examples && scripts/netns-run \
//!  target/release/examples/durable_write_rate [WRITES] [STORE_FILE]`
//! The store file (default `durable_write_rate.sqlite3` in the working directory) is removed
//! first.

// An example/benchmark/test: it indexes and counts what it built itself and unwraps what must
// work; the parse-path lints of the workspace are siftdds-proto's.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
// A measurement in real time: it reads the clock.
#![allow(clippy::disallowed_methods)]

use std::time::Instant;

use siftdds::api::DomainParticipant;
use siftdds::qos::{DataWriterQos, Durability, History, PublisherQos, TopicQos};
use siftdds::types::ShapeType;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let writes: u32 = args.next().map_or(Ok(2000), |a| a.parse())?;
    let store = args
        .next()
        .unwrap_or_else(|| "durable_write_rate.sqlite3".into());
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{store}{suffix}"));
    }
    let participant = DomainParticipant::builder(0)
        .persistence_file(&store)
        .build()?;
    let publisher = participant.create_publisher(PublisherQos::default());
    for (name, durability) in [
        ("VOLATILE", Durability::Volatile),
        ("TRANSIENT", Durability::Transient),
        ("PERSISTENT", Durability::Persistent),
    ] {
        let topic = participant.create_topic::<ShapeType>(name, TopicQos::default());
        let qos = DataWriterQos {
            durability,
            history: History::KeepLast(1),
            ..DataWriterQos::default()
        };
        let writer = publisher.create_datawriter(&topic, qos)?;
        let mut shape = ShapeType {
            color: "RED".into(),
            shapesize: 30,
            ..Default::default()
        };
        let start = Instant::now();
        for i in 0..writes {
            shape.x = (i % 240) as i32;
            writer.write(&shape)?;
        }
        let took = start.elapsed();
        let per = took / writes;
        let rate = f64::from(writes) / took.as_secs_f64();
        println!("{name:<10} {writes} writes in {took:.2?}: {rate:.0} writes/s, {per:.1?} each");
    }
    Ok(())
}
