//! The interface between the event loop and a sans-IO protocol state machine (the core's
//! participant implements it; tests implement toy ones).
//!
//! Must not: mention sockets, threads or clocks; everything time-dependent takes `now`.
//!
//! docs/conventions.md §2 (sans-IO core: inputs `handle_*`, outputs `poll_*`).

use crate::core::Transmit;
use crate::time::{Instant, Now};
use crate::wire::Locator;

/// A sans-IO protocol driven by the runtime. Every call is bounded work and must not block.
pub trait Protocol: Send + 'static {
    /// Work handed over in batches by [`RuntimeHandle::submit_command`](super::RuntimeHandle::submit_command)
    /// (a pipelined write): a plain value, so that the hand-off allocates nothing per command.
    type Command: Send + 'static;

    /// Runs one handed-over command. Commands of one batch share `now`.
    fn handle_command(&mut self, now: Now, command: Self::Command);

    /// One datagram received from `source` (its UDPv4 locator). Bad input is counted and
    /// dropped by the implementation, never a panic.
    fn handle_datagram(&mut self, now: Now, source: Locator, data: &[u8]);

    /// Called when `now.mono` has reached [`poll_timeout`](Self::poll_timeout). The
    /// implementation must move its timeout forward (or clear it), otherwise the loop spins.
    fn handle_timeout(&mut self, now: Now);

    /// The next datagram to send, if any. The runtime drains this after every wakeup.
    fn poll_transmit(&mut self, now: Now) -> Option<Transmit>;

    /// The earliest instant at which [`handle_timeout`](Self::handle_timeout) should run.
    fn poll_timeout(&self) -> Option<Instant>;
}
