//! A writer with its quiet mark: after [`Writer::poll_transmit`] found nothing to send, the
//! writer has nothing until an input reaches it or its next timer is due, so the
//! participant's polls after every input (`poll_transmit` and `poll_timeout` over every
//! builtin and user writer, several times per datagram routed) skip it without scanning its
//! readers.
//!
//! Must not: skip a writer that may have something to send. Every mutable access goes
//! through [`DerefMut`], which clears the mark, so only [`QuietWriter::poll_transmit`] itself
//! sets it; the writer has no interior mutability, so shared access changes nothing.
//!
//! Why the mark is sound: with no input, what `Writer::poll_transmit` sends depends on the
//! time only through the readers' repair and HEARTBEAT deadlines and the lifespan expiries
//! (`send.rs`, `control.rs`), all before [`Writer::poll_timeout`]. The push queue, the
//! multicast plan and the garbage collection it also runs change only with inputs, and a
//! call that found nothing left them drained.

use core::ops::{Deref, DerefMut};

use super::Writer;
use crate::core::Transmit;
use crate::time::{Instant, Now};

/// A [`Writer`] and whether its last `poll_transmit` found nothing (see the module header).
#[derive(Debug)]
pub(crate) struct QuietWriter {
    writer: Writer,
    /// `Some(until)`: the last `poll_transmit` found nothing and nothing reached the writer
    /// since; it has nothing to send and no timer before `until` (its `poll_timeout` then;
    /// `None` inside: no timer at all). `None`: unknown, poll it.
    quiet: Option<Option<Instant>>,
}

impl QuietWriter {
    pub(crate) fn new(writer: Writer) -> Self {
        QuietWriter {
            writer,
            quiet: None,
        }
    }

    /// [`Writer::poll_transmit`], skipped while the writer is quiet and its next timer is
    /// not due at `now`.
    pub(crate) fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        if let Some(until) = self.quiet
            && until.is_none_or(|t| now.mono < t)
        {
            return None;
        }
        let t = self.writer.poll_transmit(now);
        self.quiet = match t {
            None => Some(self.writer.poll_timeout()),
            Some(_) => None,
        };
        t
    }

    /// [`Writer::poll_timeout`], as computed when the writer went quiet.
    pub(crate) fn poll_timeout(&self) -> Option<Instant> {
        match self.quiet {
            Some(until) => until,
            None => self.writer.poll_timeout(),
        }
    }
}

impl Deref for QuietWriter {
    type Target = Writer;

    fn deref(&self) -> &Writer {
        &self.writer
    }
}

impl DerefMut for QuietWriter {
    /// Any mutable access may give the writer something to send: the mark is cleared.
    fn deref_mut(&mut self) -> &mut Writer {
        self.quiet = None;
        &mut self.writer
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests;
