//! Drives the sans-IO [`Participant`] from the event loop: the [`Protocol`] adapter, the
//! command the API hands over in batches ([`Command`], a pipelined write), and the write
//! hand-off of a DataWriter ([`RuntimeHandle::write`]: pipelined under its [`WriteCredit`],
//! else waiting for history room).
//!
//! Must not: add protocol behaviour; this is the adapter between the two traits' shapes and
//! the flow control between an application thread and the loop.

use std::time::Duration;

use super::{CommandSender, Protocol, RuntimeHandle, RuntimeStopped, WriteCredit};
use crate::core::writer::{WriteError, request_footprint};
use crate::core::{Participant, Transmit, WriteRequest};
use crate::time::{Instant, Now};
use crate::wire::{Guid, Locator};

/// Work handed to the loop without waiting for its outcome
/// ([`RuntimeHandle::submit_command`]).
#[derive(Debug)]
pub enum Command {
    /// A pipelined write: the request for the local writer with this GUID, as
    /// [`Participant::write`] takes them. Its caller made sure the history has room (its
    /// [`WriteCredit`]); a failure is logged.
    Write(Guid, WriteRequest),
}

impl Protocol for Participant {
    type Command = Command;

    fn handle_command(&mut self, now: Now, command: Command) {
        match command {
            Command::Write(writer, request) => {
                if let Err(e) = self.write(now, writer, request) {
                    log::error!("writer {writer}: pipelined write failed: {e}");
                }
            }
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

impl RuntimeHandle<Participant> {
    /// Hands `request` to the local writer `writer`. With `credit` for it (pipelined writes,
    /// [`WriteCredit`]) it is queued as a [`Command::Write`] and this returns at once;
    /// otherwise the write runs on the loop and, while the history is full, is retried after
    /// every wakeup for up to `max_blocking` (then [`WriteError::HistoryFull`]). A write that
    /// waited refills an enabled `credit` with the room left, and the payloads the history
    /// released are freed here, on the caller's thread. DDS 1.4 §2.2.2.4.2.11, §2.2.3.14
    /// (RELIABILITY max_blocking_time).
    pub fn write(
        &self,
        credit: &WriteCredit,
        writer: Guid,
        request: WriteRequest,
        max_blocking: Duration,
    ) -> Result<Result<(), WriteError>, RuntimeStopped> {
        let pipelined = credit.is_enabled();
        if take_credit(credit, &request) {
            self.submit_command(Command::Write(writer, request))?;
            return Ok(Ok(()));
        }
        let written = self.write_waiting(writer, request, max_blocking, move |p| {
            p.writer_room(writer)
        })?;
        Ok(written.map(|room| refill(credit, pipelined, room)))
    }

    /// [`RuntimeHandle::write`] as a future: the same hand-off under `credit`, and the same
    /// attempt on the loop, retried after every wakeup while the history is full; the task
    /// waits (its `Waker` woken by the loop) instead of a thread. No max_blocking_time: the
    /// caller bounds the wait with its executor's timer. Dropped before it is ready, the
    /// write is withdrawn (it never runs after the drop; one that already ran stays written).
    pub async fn write_async(
        &self,
        credit: &WriteCredit,
        writer: Guid,
        request: WriteRequest,
    ) -> Result<Result<(), WriteError>, RuntimeStopped> {
        let pipelined = credit.is_enabled();
        if take_credit(credit, &request) {
            self.submit_command(Command::Write(writer, request))?;
            return Ok(Ok(()));
        }
        let attempt = write_attempt(writer, request, move |p| p.writer_room(writer));
        Ok(written(self.wait_async(attempt).await?).map(|room| refill(credit, pipelined, room)))
    }

    /// The one waiting write: runs `request` on the loop, retried after every wakeup while the
    /// writer's history is full, for up to `max_blocking` (then [`WriteError::HistoryFull`]);
    /// once written, `then` reads what the caller needs from the participant in the same loop
    /// turn. The payloads the history released are freed here, on the caller's thread, rather
    /// than by the event loop.
    pub fn write_waiting<T, F>(
        &self,
        writer: Guid,
        request: WriteRequest,
        max_blocking: Duration,
        then: F,
    ) -> Result<Result<T, WriteError>, RuntimeStopped>
    where
        T: Send + 'static,
        F: Fn(&mut Participant) -> T + Send + 'static,
    {
        let attempt = write_attempt(writer, request, then);
        Ok(match self.wait_for(max_blocking, attempt)? {
            Some(outcome) => written(outcome),
            None => Err(WriteError::HistoryFull),
        })
    }
}

/// What a write attempt on the loop gives: what `then` read, and the payloads the history
/// released (freed by the caller, off the loop).
type Attempted<T> = Result<(T, Vec<bytes::Bytes>), WriteError>;

/// The write attempt a waiting write runs on the loop (blocking or async): `None` while the
/// history is full (try again after the next wakeup), else the outcome, with what `then`
/// read from the participant in the same turn.
fn write_attempt<T, F>(
    writer: Guid,
    request: WriteRequest,
    then: F,
) -> impl FnMut(&mut Participant, Now) -> Option<Attempted<T>> + Send + 'static
where
    T: Send + 'static,
    F: Fn(&mut Participant) -> T + Send + 'static,
{
    move |p: &mut Participant, now| match p.write(now, writer, request.clone()) {
        Err(WriteError::HistoryFull) => None,
        Ok(_) => Some(Ok((then(p), p.take_released(writer)))),
        Err(e) => Some(Err(e)),
    }
}

/// The outcome of an attempt that ran; the released payloads are freed here.
fn written<T>(outcome: Attempted<T>) -> Result<T, WriteError> {
    outcome.map(|(out, released)| {
        drop(released);
        out
    })
}

/// Refills `credit` with the history's `room` after a write that waited, if pipelining was
/// on when it started.
fn refill(credit: &WriteCredit, pipelined: bool, room: (usize, usize)) {
    if pipelined {
        credit.refill(room);
    }
}

/// Takes `credit` for `request`: true when it may be handed over without waiting. The
/// history had room for this change when the credit was granted, and room only grows until
/// our own writes use it, so such a write cannot find it full.
fn take_credit(credit: &WriteCredit, request: &WriteRequest) -> bool {
    credit.try_take(request_footprint(request))
}

impl CommandSender<Participant> {
    /// The pipelined half of [`RuntimeHandle::write`], never waiting: with `credit` for it,
    /// `request` is queued as a [`Command::Write`] and `Ok(None)` returned; without, it is
    /// given back (the caller writes it through [`RuntimeHandle::write`], which may wait).
    pub fn try_write(
        &self,
        credit: &WriteCredit,
        writer: Guid,
        request: WriteRequest,
    ) -> Result<Option<WriteRequest>, RuntimeStopped> {
        if !take_credit(credit, &request) {
            return Ok(Some(request));
        }
        self.submit_command(Command::Write(writer, request))?;
        Ok(None)
    }
}
