//! siftdds-proto: the sans-IO half of siftdds. The RTPS 2.5 wire codec, CDR/XCDR, QoS, DDS-SQL
//! filters, topic types and IDL, and the protocol state machines of a DomainParticipant
//! (`core`): bytes and `now` in; datagrams, timers and events out.
//!
//! Must not: open sockets, spawn threads, read clocks or touch files at run time. This crate's
//! dependency tree has no socket, event-loop or database crate, so it cannot; clippy.toml also
//! refuses clock reads, sleeps, std sockets and locks. The `siftdds` crate drives it over UDP.
//!
//! Layers, leaves first (an arrow means "may import"): [`time`], [`memo`], [`cdr`] are leaves;
//! [`wire`] → cdr, time; [`qos`] → time; [`types`] → cdr; [`filter`] → cdr, memo, types;
//! [`idl`] → filter, types; [`inspect`] → cdr, wire; [`core`] → all of them. The map:
//! `docs/architecture.md`.

pub mod cdr;
pub mod core;
pub mod filter;
#[doc(hidden)]
pub mod fuzzing;
pub mod idl;
pub mod inspect;
pub mod memo;
pub mod qos;
#[cfg(feature = "security")]
pub mod security;
#[cfg(any(test, feature = "sim"))]
#[doc(hidden)]
pub mod test_rng;
pub mod time;
pub mod types;
pub mod wire;
