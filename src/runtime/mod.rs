//! The event loop: owns the sockets and the clock, drives the sans-IO core.
//!
//! Must not: contain protocol logic.
