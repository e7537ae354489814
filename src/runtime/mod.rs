//! The event loop: owns the sockets and the clock, drives the sans-IO core.
//!
//! Must not: contain protocol logic, or be imported by anything below `api`.
//!
//! docs/conventions.md §2 (sans-IO core and runtime loop).
//!
//! # Overview
//! [`Runtime::spawn`] moves a [`Protocol`] and a [`UdpTransport`] onto one thread that owns a
//! `mio::Poll`, the sockets and a [`Clock`]; this is the only place the clock is read. Each
//! wakeup: wait until readiness or [`Protocol::poll_timeout`] → read a bounded number of
//! datagrams per socket (until a short batch finds it empty) → [`Protocol::handle_datagram`]
//! → run commands from the [`RuntimeHandle`] → [`Protocol::handle_timeout`] if due → drain
//! [`Protocol::poll_transmit`] and send. The API layer reaches the protocol only through
//! [`RuntimeHandle::execute`], which runs a closure on the loop thread (channel + `mio::Waker`),
//! its variants, and [`RuntimeHandle::submit_command`], which hands over plain commands in
//! batches (`batch.rs`). A DataWriter's write goes through [`RuntimeHandle::write`]
//! (`participant.rs`): its [`WriteRequest`](crate::core::WriteRequest) is batched as a
//! [`Command::Write`] while the writer's [`WriteCredit`] (`credit.rs`) covers it, and
//! otherwise runs on the loop, waiting for history room. [`RuntimeHandle::wait_async`]
//! (`future.rs`) is the async form of [`RuntimeHandle::wait_for`]: the loop wakes a task's
//! `Waker` instead of a thread.

// This layer owns the threads, the poll and the clocks (docs/conventions.md §1).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod batch;
mod clock;
mod credit;
pub mod durability_store;
mod event_loop;
mod future;
mod guid;
mod member;
mod participant;
mod protocol;
mod sender;
mod shared;
mod signal;
mod spin;
mod start;
mod stats;
#[cfg(test)]
mod tests;
mod turn;
mod waiter;

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};

use batch::Batches;
use event_loop::{EventLoop, WAKER};
use member::Message;
use shared::LoopThread;

/// The interface selection a [`NetworkConfig`] carries (parsed by the transport).
pub use crate::transport::{InterfaceError, InterfaceSelection, NetworkScope};
pub use clock::{Clock, ManualClock, SystemClock};
pub use credit::{MAX_PIPELINED_WRITES, WriteCredit};
pub use future::WaitFuture;
pub use guid::random_guid_prefix;
pub use participant::Command;
pub use protocol::Protocol;
pub use sender::CommandSender;
pub use signal::{Signal, Signals};
pub use spin::{BUSY_POLL_VAR, SPIN_VAR};
pub use start::{
    DEFAULT_LOCAL_PEERS, NetworkConfig, NetworkSummary, StartError, start_participant,
    start_participant_on,
};
pub use stats::RuntimeStats;

use crate::time::Now;
use crate::transport::{LocalLocators, UdpTransport};
use stats::Counters;
use waiter::{Listener, Outcome, Slot, Wait};

/// Wakes the loop after a message was sent, if it is parked. The loop sets `parked` and
/// then drains the channel before blocking, so a message sent while `parked` is false is run
/// without a wake-up.
fn wake_after_send(parked: &AtomicBool, waker: &mio::Waker) -> Result<(), RuntimeStopped> {
    if parked.swap(false, Ordering::SeqCst) {
        waker.wake().map_err(|_| RuntimeStopped)?;
    }
    Ok(())
}

/// Starts event loops.
#[derive(Debug)]
pub struct Runtime;

impl Runtime {
    /// Starts the loop thread for `protocol` over `transport`, on the [`SystemClock`].
    pub fn spawn<P: Protocol>(
        protocol: P,
        transport: UdpTransport,
    ) -> io::Result<RuntimeHandle<P>> {
        Self::spawn_with_clock(protocol, transport, SystemClock::new())
    }

    /// [`spawn`](Self::spawn) with a chosen clock (a [`ManualClock`] in tests).
    pub fn spawn_with_clock<P: Protocol, C: Clock>(
        protocol: P,
        mut transport: UdpTransport,
        clock: C,
    ) -> io::Result<RuntimeHandle<P>> {
        let poll = mio::Poll::new()?;
        let waker = Arc::new(mio::Waker::new(poll.registry(), WAKER)?);
        transport.register(poll.registry(), 0)?;
        let registry = poll.registry().try_clone()?;
        let parked = Arc::new(AtomicBool::new(false));
        let (mut handle, member) = shared::new_member(0, protocol, transport, waker, &parked);
        let event_loop = EventLoop {
            members: vec![member],
            clock,
            poll,
            parked,
            spin: spin::SpinPolicy::from_env(),
            armed: false,
            profile: turn::TurnProfile::from_env(),
        };
        let thread = std::thread::Builder::new()
            .name(format!("siftdds-rt-{}", handle.participant_id))
            .spawn(move || event_loop.run())?;
        handle.shared = Some(Arc::new(LoopThread::new(thread, registry)));
        Ok(handle)
    }
}

/// The loop thread has stopped (shut down, or the protocol panicked).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RuntimeStopped;

impl core::fmt::Display for RuntimeStopped {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("the runtime thread has stopped")
    }
}

impl std::error::Error for RuntimeStopped {}

/// Controls a running loop: runs closures on it, reads its counters, stops it (also on drop).
pub struct RuntimeHandle<P: Protocol> {
    commands: Sender<Message<P>>,
    /// Batched commands ([`RuntimeHandle::submit_command`]).
    batches: Arc<Batches<P::Command>>,
    waker: Arc<mio::Waker>,
    /// The loop thread (shared with the other members' handles); `None` once stopped.
    shared: Option<Arc<LoopThread>>,
    /// Where the loop hands the protocol back when it retires this member.
    done: Mutex<Receiver<P>>,
    counters: Arc<Counters>,
    /// Set by the loop before it blocks in `poll`; whoever clears it wakes the loop.
    parked: Arc<AtomicBool>,
    locators: LocalLocators,
    participant_id: u16,
}

impl<P: Protocol> RuntimeHandle<P> {
    /// Runs `f` on the loop thread with the protocol and the current time, and returns its
    /// result. Transmits and timeouts it causes are handled in the same wakeup. Must not be
    /// called from inside another `execute` closure (it would wait for itself).
    pub fn execute<R, F>(&self, f: F) -> Result<R, RuntimeStopped>
    where
        R: Send + 'static,
        F: FnOnce(&mut P, Now) -> R + Send + 'static,
    {
        let (reply_tx, reply_rx) = mpsc::sync_channel(1);
        let command = Box::new(move |p: &mut P, now: Now| {
            // The caller may have given up waiting; nothing to do then.
            let _ = reply_tx.send(f(p, now));
        });
        self.send(Message::Run(command))?;
        reply_rx.recv().map_err(|_| RuntimeStopped)
    }

    /// Queues `f` to run on the loop thread and returns at once: the cheap hand-off for work
    /// whose result nobody waits for (pipelined writes). Commands run in the order sent,
    /// `execute`'s included. The loop is woken (a system call) only when it is parked.
    pub fn submit<F>(&self, f: F) -> Result<(), RuntimeStopped>
    where
        F: FnOnce(&mut P, Now) + Send + 'static,
    {
        self.send(Message::Run(Box::new(f)))
    }

    /// Hands `command` to the loop and returns at once: the cheapest hand-off, for work
    /// whose result nobody waits for (pipelined writes). Commands made in a row go in one
    /// batch: one message (and one wake-up of a parked loop) per batch, one clock reading
    /// for all of its commands ([`Protocol::handle_command`]). Commands run in the order
    /// made, relative to every other command (`execute`, `submit`, …) too. The caller bounds
    /// how many it hands over without waiting.
    pub fn submit_command(&self, command: P::Command) -> Result<(), RuntimeStopped> {
        self.batches.push(command, || self.send_now(Message::Drain))
    }

    /// Registers `f` to run on the loop thread now and after every wakeup that handled input
    /// or commands, until it returns true or the loop stops: work that must react to input
    /// without a hand-off to another thread (a listener). `f` must be bounded work and must
    /// not own anything whose drop calls back into this handle (it is dropped on the loop).
    pub fn attach<F>(&self, f: F) -> Result<(), RuntimeStopped>
    where
        F: FnMut(&mut P, Now) -> bool + Send + 'static,
    {
        self.send(Message::Wait(Box::new(Listener(f))))
    }

    /// Sends `message` after the batched commands made so far (`batch.rs`).
    fn send(&self, message: Message<P>) -> Result<(), RuntimeStopped> {
        self.batches.seal(|| self.send_now(message))
    }

    fn send_now(&self, message: Message<P>) -> Result<(), RuntimeStopped> {
        self.commands.send(message).map_err(|_| RuntimeStopped)?;
        wake_after_send(&self.parked, &self.waker)
    }

    /// Waits until `check` returns `Some` or `timeout` passes. The check runs on the loop
    /// thread: at once, then after every wakeup that handled input (datagrams, due timers)
    /// or commands, and never after the wait timed out; this thread is woken once, with the
    /// result. The check always runs at least once: a timeout that expires before the loop
    /// reached it (a busy or CPU-starved loop) is extended until that first run.
    pub fn wait_for<R, F>(
        &self,
        timeout: std::time::Duration,
        check: F,
    ) -> Result<Option<R>, RuntimeStopped>
    where
        R: Send + 'static,
        F: FnMut(&mut P, Now) -> Option<R> + Send + 'static,
    {
        let deadline = std::time::Instant::now() + timeout;
        let slot = Slot::new();
        self.send(Message::Wait(Box::new(Wait {
            slot: Arc::clone(&slot),
            check,
        })))?;
        match slot.wait(deadline) {
            Outcome::Done(r) => Ok(Some(r)),
            Outcome::TimedOut => Ok(None),
            Outcome::Stopped => Err(RuntimeStopped),
        }
    }

    /// The current counters.
    pub fn stats(&self) -> RuntimeStats {
        self.counters.snapshot()
    }

    /// The transport's local locators.
    pub fn locators(&self) -> &LocalLocators {
        &self.locators
    }

    /// The transport's participant index.
    pub fn participant_id(&self) -> u16 {
        self.participant_id
    }

    /// Takes this protocol off its loop and returns it (`None` if the loop panicked); the
    /// loop thread stops, and is joined, with the last protocol it served.
    pub fn shutdown(mut self) -> Option<P> {
        self.stop()
    }
}

impl<P: Protocol> RuntimeHandle<P> {
    /// Retires this member once (later calls return `None`); the last handle of a loop
    /// joins its thread.
    fn stop(&mut self) -> Option<P> {
        let shared = self.shared.take()?;
        // Either may fail only when the loop is already gone; the reply reports that.
        let _ = self.commands.send(Message::Shutdown);
        let _ = self.waker.wake();
        let done = self.done.get_mut().unwrap_or_else(PoisonError::into_inner);
        let protocol = done.recv().ok();
        if protocol.is_none() {
            log::error!("runtime thread panicked");
        }
        drop(shared);
        protocol
    }
}

impl<P: Protocol> core::fmt::Debug for RuntimeHandle<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RuntimeHandle")
            .field("participant_id", &self.participant_id)
            .field(
                "running",
                &self.shared.as_ref().is_some_and(|l| l.is_running()),
            )
            .finish_non_exhaustive()
    }
}

impl<P: Protocol> Drop for RuntimeHandle<P> {
    fn drop(&mut self) {
        drop(self.stop());
    }
}
