//! The sans-IO RTPS protocol engine: participant, discovery (SPDP/SEDP), stateful writers and
//! readers, matching and timers.
//!
//! Must not: touch sockets, threads, locks, channels or clocks (clippy.toml enforces it). Input
//! arrives as `(now, bytes)` and commands; output is pulled as [`Transmit`]s, timer deadlines
//! and events. Tests drive it in a deterministic simulator.
//!
//! RTPS 2.5 §8.4 (behaviour), §8.5 (discovery).

mod change;
pub mod deadline;
pub mod discovery;
pub mod durability;
mod event;
pub mod participant;
pub mod peer_group;
mod proxy;
pub mod reader;
pub mod receiver;
#[cfg(any(test, feature = "sim"))]
#[doc(hidden)]
pub mod sim;
mod transmit;
pub mod writer;

pub use change::{CacheChange, ChangeKind, GroupStamp, SampleIdentity, WriteRequest};
pub use deadline::DeadlineMissedStatus;
pub use event::Event;
pub use participant::{Participant, ParticipantConfig};
pub use proxy::{RemoteReader, RemoteWriter};
pub use transmit::{MAX_DATAGRAM, Splice, Transmit};
