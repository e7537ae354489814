//! Whether a reliable reader still holds its writer back: one that makes no acknowledgement
//! progress for [`DEFAULT_UNRESPONSIVE_READER_TIMEOUT`] (configurable,
//! `WriterConfig::unresponsive_reader_timeout`) while it has unacknowledged changes is
//! *unresponsive*: its acknowledgements no longer bound the writer's history, so a KEEP_ALL
//! writer keeps serving its other readers. It is served again (and holds the writer back
//! again) as soon as it acknowledges something new.
//!
//! Must not: read a clock (time arrives as `now`), decide anything else about the reader
//! (the proxy keeps sending it HEARTBEATs and repairs; changes the history dropped meanwhile
//! reach it as GAPs, RTPS 2.5 §8.4.9.2.4), or hold more than two fields per reader.
//!
//! # Why
//! DDS 1.4 §2.2.3.14 lets a KEEP_ALL writer block for `max_blocking_time` and then fail
//! while a reliable reader has not acknowledged; RTPS 2.5 §8.4.7.5 keeps the change until
//! every reliable reader proxy has acknowledged it. A peer that announces a reliable reader
//! and never acknowledges (issue 15: one SPDP + one SEDP DATA(r) with a 100,000 s lease)
//! then stops the writer, and every real reader with it, for as long as it likes. Cyclone DDS
//! 0.10 behaves so: `throttle_writer` (`q_transmit.c`) waits for the WHC to drain below its
//! low-water mark for up to `max_blocking_time` and then fails the write with
//! DDS_RETCODE_TIMEOUT, whoever holds it. RTI Connext instead marks a reader that does not
//! answer `max_heartbeat_retries` HEARTBEATs inactive (ReliableReaderActivityChangedStatus)
//! and stops waiting for it; this is that idea, measured in time of no progress rather than
//! in HEARTBEATs (`docs/interop-facts.md` §10.3).

use crate::time::Instant;

/// Default for `WriterConfig::unresponsive_reader_timeout`: how long a reliable reader may
/// leave changes unacknowledged without any progress before it stops holding the writer.
pub const DEFAULT_UNRESPONSIVE_READER_TIMEOUT: core::time::Duration =
    core::time::Duration::from_secs(10);

/// The responsiveness of one reliable reader proxy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Responsiveness {
    /// Since when it has had unacknowledged changes without acknowledging anything new.
    waiting_since: Option<Instant>,
    /// Marked unresponsive: its acknowledgements no longer bound the history.
    unresponsive: bool,
}

/// What a step changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Change {
    /// Nothing.
    None,
    /// It has just been marked unresponsive.
    MarkedUnresponsive,
    /// It acknowledged something new after being unresponsive.
    Recovered,
}

impl Responsiveness {
    /// True while its acknowledgements do not bound the writer.
    pub(super) fn is_unresponsive(&self) -> bool {
        self.unresponsive
    }

    /// An ACKNACK moved its acknowledged floor from `before` to `after`.
    pub(super) fn acknowledged(&mut self, before: i64, after: i64) -> Change {
        if after <= before {
            return Change::None;
        }
        self.waiting_since = None;
        if core::mem::take(&mut self.unresponsive) {
            Change::Recovered
        } else {
            Change::None
        }
    }

    /// The writer's periodic check at `now`: `waiting` when it has unacknowledged changes.
    pub(super) fn check(
        &mut self,
        now: Instant,
        waiting: bool,
        timeout: core::time::Duration,
    ) -> Change {
        if !waiting {
            self.waiting_since = None;
            return Change::None;
        }
        let since = *self.waiting_since.get_or_insert(now);
        if !self.unresponsive && now >= since.saturating_add(timeout) {
            self.unresponsive = true;
            return Change::MarkedUnresponsive;
        }
        Change::None
    }
}

#[cfg(test)]
// Test arithmetic works on small, known inputs.
#[allow(clippy::arithmetic_side_effects)]
mod tests;
