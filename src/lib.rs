//! siftdds: an RTPS/DDS middleware that speaks the OMG DDSI-RTPS 2.5 wire protocol and filters
//! on the writer side at scale. This is the crate applications link: the DDS API ([`api`]), the
//! event loop that drives the sans-IO protocol ([`runtime`]), UDP and the network-safety gate
//! ([`transport`]), and the router ([`router`]).
//!
//! The protocol itself lives in the `siftdds-proto` crate, re-exported here module by module
//! (`siftdds::wire`, `siftdds::core`, …), so one path names one item whichever crate holds it.
//!
//! # Quick start
//!
//! A type derived in Rust, a participant, a writer, and a reader consumed as an async stream
//! (any executor; `docs/library.md` has the rest):
//!
//! ```no_run
//! use futures::StreamExt;
//! use siftdds::TopicType;
//! use siftdds::api::DomainParticipant;
//! use siftdds::qos::{DataReaderQos, DataWriterQos, PublisherQos, SubscriberQos, TopicQos};
//!
//! #[derive(TopicType, Clone, Debug, Default, PartialEq)]
//! struct Temperature {
//!     #[key]
//!     sensor: u32,
//!     celsius: f64,
//! }
//!
//! fn main() -> Result<(), siftdds::api::Error> {
//!     let participant = DomainParticipant::new(0)?;
//!     let topic = participant.create_topic::<Temperature>("Temperature", TopicQos::default());
//!     let writer = participant
//!         .create_publisher(PublisherQos::default())
//!         .create_datawriter(&topic, DataWriterQos::default())?;
//!     let reader = participant
//!         .create_subscriber(SubscriberQos::default())
//!         .create_datareader(&topic, DataReaderQos::default())?;
//!     writer.write(&Temperature { sensor: 7, celsius: 21.5 })?;
//!     futures::executor::block_on(async {
//!         let mut samples = reader.stream();
//!         if let Some(sample) = samples.next().await {
//!             println!("{:?}", sample.value);
//!         }
//!     });
//!     Ok(())
//! }
//! ```
//!
//! Must not: let the protocol reach sockets, threads or clocks (it cannot: `siftdds-proto` has
//! no such dependency), or pull command-line crates into applications (the tools live in
//! `siftdds-cli`). Layers and their import direction: `docs/architecture.md`.

// The parse-path lints of the workspace (no unwrap, panic, indexing or unchecked arithmetic)
// are for code that decodes what peers send, all of it in siftdds-proto (and the router's
// filter composition, which denies them again). This crate drives sockets, threads and the clock.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

pub use siftdds_proto::{cdr, core, filter, idl, inspect, memo, qos, time, types, wire};

/// The trait a topic's sample type implements, and its derive (`#[derive(TopicType)]`,
/// the `siftdds-derive` crate; docs/library.md "Deriving a type"): one name for both, as
/// serde's `Serialize`.
pub use siftdds_derive::TopicType;
pub use siftdds_proto::types::TopicType;

#[doc(hidden)]
pub use siftdds_proto::fuzzing;
#[cfg(feature = "security")]
pub use siftdds_proto::security;

#[cfg(test)]
use siftdds_proto::test_rng;

pub mod api;
pub mod router;
pub mod runtime;
pub mod transport;
