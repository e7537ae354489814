//! The stateful RTPS reader. RTPS 2.5 §8.4.10-§8.4.12.
//!
//! Must not: perform I/O or read clocks.
