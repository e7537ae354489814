//! siftdds: an RTPS/DDS publisher middleware that speaks the OMG DDSI-RTPS 2.5 wire protocol
//! and filters on the writer side at scale.
//!
//! Must not: let anything below `runtime`/`transport` touch sockets, threads or clocks
//! (enforced by clippy.toml). Layers and their import direction: `docs/architecture.md`.
//!
//! Layers so far, leaves first: [`time`], [`memo`], [`cdr`] → [`wire`] → [`inspect`] (capture
//! decoding for the `siftdds inspect` tool); [`transport`] holds the network-safety gate.

pub mod api;
pub mod cdr;
pub mod core;
pub mod filter;
#[doc(hidden)]
pub mod fuzzing;
pub mod idl;
pub mod inspect;
pub mod memo;
pub mod qos;
pub mod router;
pub mod runtime;
#[cfg(test)]
mod test_rng;
pub mod time;
pub mod transport;
pub mod types;
pub mod wire;
