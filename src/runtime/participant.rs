//! Drives the sans-IO [`Participant`] from the event loop, and defines the command the API
//! hands over in batches ([`WriteCommand`], a pipelined write).
//!
//! Must not: add protocol behaviour; this is the adapter between the two traits' shapes.

use bytes::Bytes;

use super::Protocol;
use crate::core::{ChangeKind, Participant, Transmit};
use crate::time::{Instant, Now, Timestamp};
use crate::wire::{Guid, Locator};

/// A write handed to the loop without waiting for its outcome
/// ([`RuntimeHandle::submit_command`](super::RuntimeHandle::submit_command)): the arguments
/// of [`Participant::write`]. Its caller made sure the history has room; a failure is logged.
#[derive(Debug)]
pub struct WriteCommand {
    /// The local writer.
    pub writer: Guid,
    /// ALIVE, dispose or unregister.
    pub kind: ChangeKind,
    /// The instance's key hash (keyed topics).
    pub key_hash: Option<[u8; 16]>,
    /// The serialized sample or key.
    pub data: Bytes,
    /// The source timestamp; `None`: the time the loop runs the write.
    pub timestamp: Option<Timestamp>,
}

impl Protocol for Participant {
    type Command = WriteCommand;

    fn handle_command(&mut self, now: Now, c: WriteCommand) {
        let now = Now {
            wall: c.timestamp.unwrap_or(now.wall),
            ..now
        };
        if let Err(e) = self.write(now, c.writer, c.kind, c.key_hash, c.data) {
            log::error!("writer {}: pipelined write failed: {e}", c.writer);
        }
    }

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
