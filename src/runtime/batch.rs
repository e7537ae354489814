//! Commands handed to the loop in batches: the cheap hand-off for work nobody waits for
//! (pipelined writes). A command is a plain value ([`Protocol::Command`]) appended to the
//! open batch under one uncontended lock; only the first command of a batch sends a message
//! (and wakes a parked loop), and the loop runs a whole batch with one clock reading.
//!
//! Must not: let a command run before a message sent ahead of it or after one sent behind
//! it (the order of `submit`, `execute` and batched commands is the order they were made),
//! or give a command a time earlier than when it was handed over.
//!
//! docs/conventions.md §2 (the runtime drives the core; commands are inputs like datagrams).

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::protocol::Protocol;

/// Emptied batches kept for reuse (their capacity), per handle.
const SPARE_BATCHES: usize = 4;

/// The batches between a handle and its loop.
pub(crate) struct Batches<C> {
    state: Mutex<State<C>>,
}

struct State<C> {
    /// Batches in the order of their `Message::Drain`; only the last may be open.
    queued: VecDeque<Vec<C>>,
    /// The last queued batch still takes commands: no other message was sent after its drain.
    open: bool,
    spare: Vec<Vec<C>>,
}

impl<C> Batches<C> {
    pub(crate) fn new() -> Self {
        Batches {
            state: Mutex::new(State {
                queued: VecDeque::new(),
                open: false,
                spare: Vec::new(),
            }),
        }
    }

    /// The state; a panic elsewhere while it was held leaves it consistent (every update is
    /// a single push or pop), so a poisoned lock is used as is.
    fn lock(&self) -> MutexGuard<'_, State<C>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends `command` to the open batch, or opens a new one and calls `send_drain` (under
    /// the lock, so that drain messages and batches keep one order). `send_drain`'s error is
    /// returned and the new batch dropped.
    pub(crate) fn push<E>(
        &self,
        command: C,
        send_drain: impl FnOnce() -> Result<(), E>,
    ) -> Result<(), E> {
        let mut s = self.lock();
        if s.open {
            if let Some(batch) = s.queued.back_mut() {
                batch.push(command);
                return Ok(());
            }
        }
        let mut batch = s.spare.pop().unwrap_or_default();
        batch.push(command);
        send_drain()?;
        s.queued.push_back(batch);
        s.open = true;
        Ok(())
    }

    /// Closes the open batch before another message is sent by `send` (under the lock):
    /// commands made after that message go into a batch drained after it.
    pub(crate) fn seal<R>(&self, send: impl FnOnce() -> R) -> R {
        let mut s = self.lock();
        s.open = false;
        send()
    }

    /// Takes the oldest batch (for its drain message); it takes no more commands.
    pub(crate) fn take(&self) -> Option<Vec<C>> {
        let mut s = self.lock();
        let batch = s.queued.pop_front();
        if s.queued.is_empty() {
            s.open = false;
        }
        batch
    }

    /// Gives back a drained batch for reuse.
    pub(crate) fn recycle(&self, mut batch: Vec<C>) {
        batch.clear();
        let mut s = self.lock();
        if s.spare.len() < SPARE_BATCHES {
            s.spare.push(batch);
        }
    }
}

/// Runs a taken batch: `now` is read once, after the batch was closed to new commands, so it
/// is at least as late as the hand-over of each. Returns how many commands ran.
pub(crate) fn run<P: Protocol>(
    protocol: &mut P,
    now: crate::time::Now,
    batch: &mut Vec<P::Command>,
) -> usize {
    let n = batch.len();
    for command in batch.drain(..) {
        protocol.handle_command(now, command);
    }
    n
}
