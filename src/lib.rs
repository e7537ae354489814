//! siftdds: an RTPS/DDS publisher middleware that speaks the OMG DDSI-RTPS 2.5 wire protocol
//! and filters on the writer side at scale.
//!
//! Must not: expose internal layers' error types through the public API except via
//! [`Error`]. Layers and their import direction are described in `docs/architecture.md`.

pub mod cdr;
pub mod time;
pub mod wire;
