//! What the writer's HEARTBEATs have announced: the HEARTBEAT count, the lastSN of the latest
//! one, and the payload written since; from them, when the next push must carry a HEARTBEAT
//! whatever the period ([`HEARTBEAT_VOLUME`]).
//!
//! Must not: decide when a HEARTBEAT is due by time (the timer tables do), or let the count
//! go backwards (liveliness HEARTBEATs share it). No I/O, no clock.
//!
//! RTPS 2.5 §8.3.7.5 (HEARTBEAT count), §8.4.7.1 (heartbeatPeriod), §8.4.15.1 (piggy-backing).

use super::HEARTBEAT_VOLUME;
use super::history::KEEP_ALL_BYTES_LIMIT;
use crate::qos::Length;
use crate::wire::SequenceNumber;

/// The writer's HEARTBEAT announcements so far.
#[derive(Copy, Clone, Debug)]
pub(super) struct Announcements {
    /// Incremented per HEARTBEAT sent. RTPS 2.5 §8.3.7.5.
    count: i32,
    /// lastSN of the latest HEARTBEAT sent (to any reader).
    last_sn: SequenceNumber,
    /// Payload bytes written since.
    unannounced_bytes: usize,
}

impl Announcements {
    pub(super) fn new() -> Self {
        Announcements {
            count: 0,
            last_sn: SequenceNumber(0),
            unannounced_bytes: 0,
        }
    }

    /// The count the next HEARTBEAT carries.
    pub(super) fn next_count(&self) -> i32 {
        self.count.wrapping_add(1)
    }

    /// A HEARTBEAT with `count` announcing up to `last` went into a message.
    pub(super) fn announced(&mut self, count: i32, last: SequenceNumber) {
        self.count = count;
        self.last_sn = last;
        self.unannounced_bytes = 0;
    }

    /// A liveliness HEARTBEAT takes the next count (it announces no volume).
    pub(super) fn take_liveliness_count(&mut self) -> i32 {
        self.count = self.next_count();
        self.count
    }

    /// A change of `len` payload bytes was written.
    pub(super) fn written(&mut self, len: usize) {
        self.unannounced_bytes = self.unannounced_bytes.saturating_add(len);
    }

    /// True when so many changes (a quarter of `max_samples`, at most [`HEARTBEAT_VOLUME`])
    /// or bytes were written since the last HEARTBEAT, up to `last`, that the next push
    /// should carry one.
    pub(super) fn by_volume(&self, last: SequenceNumber, max_samples: Length) -> bool {
        let step = match max_samples {
            Length::Limited(n) => (i64::from(n) / 4).clamp(1, HEARTBEAT_VOLUME),
            Length::Unlimited => HEARTBEAT_VOLUME,
        };
        last.0.saturating_sub(self.last_sn.0) >= step
            || self.unannounced_bytes >= KEEP_ALL_BYTES_LIMIT / 4
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)]
mod tests;
