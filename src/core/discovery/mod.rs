//! SPDP and SEDP discovery data and rules. RTPS 2.5 §8.5, §9.6.2.
//!
//! Must not: perform I/O or read clocks.
