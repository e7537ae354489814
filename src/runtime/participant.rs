//! Drives the sans-IO [`Participant`] from the event loop.
//!
//! Must not: add behaviour; this is the adapter between the two traits' shapes.

use super::Protocol;
use crate::core::{Participant, Transmit};
use crate::time::{Instant, Now};
use crate::wire::Locator;

impl Protocol for Participant {
    fn handle_datagram(&mut self, now: Now, source: Locator, data: &[u8]) {
        Participant::handle_datagram(self, now, source, data);
    }

    fn handle_timeout(&mut self, now: Now) {
        Participant::handle_timeout(self, now);
    }

    fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        Participant::poll_transmit(self, now)
    }

    fn poll_timeout(&self) -> Option<Instant> {
        Participant::poll_timeout(self)
    }
}
