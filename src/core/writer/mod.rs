//! The stateful RTPS writer. RTPS 2.5 §8.4.7-§8.4.9.
//!
//! Must not: perform I/O or read clocks.
