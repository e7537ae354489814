//! One protocol served by an event loop: its transport, its command channel (the
//! [`Message`]s its handle sends) and batches, its waits, and what it still has to read or
//! send. A loop serves one member per
//! [`RuntimeHandle`](super::RuntimeHandle) (several when participants share a loop,
//! [`RuntimeHandle::adopt`](super::RuntimeHandle::adopt)).
//!
//! Must not: interpret datagrams (the protocol does), block, or do unbounded work per call
//! (reads and transmits are bounded per wakeup).
//!
//! docs/conventions.md §2 (runtime loop: read until empty → handle → drain poll_transmit).

use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError};
use std::time::{Duration, Instant};

use super::batch::{self, Batches};
use super::clock::Clock;
use super::protocol::Protocol;
use super::stats::Counters;
use super::waiter::Waiter;
use crate::time::Now;
use crate::transport::{Received, RecvHeaders, SocketKind, UdpTransport, socket_addr_to_locator};

/// Poll tokens per member: member `id`'s sockets are `id * TOKENS_PER_MEMBER + kind.index()`.
pub(crate) const TOKENS_PER_MEMBER: usize = SocketKind::ALL.len();
/// Datagrams read from one socket per wakeup before the other work gets a turn.
const MAX_DATAGRAMS_PER_SOCKET: usize = 64;
/// Datagrams read per system call (`recvmmsg`, `UdpTransport::recv_many`); the loop's
/// receive buffer holds this many of the largest size.
pub(crate) const RECV_SLOTS: usize = 8;
/// What the loop thread keeps from one read to the next, so that a read allocates nothing:
/// the `recvmmsg` headers and what the last call received.
pub(crate) struct RecvScratch {
    headers: RecvHeaders,
    got: Vec<Option<Received>>,
}

impl RecvScratch {
    /// Made by the loop thread (the headers stay on it).
    pub(crate) fn new() -> Self {
        RecvScratch {
            headers: RecvHeaders::new(RECV_SLOTS),
            got: Vec::with_capacity(RECV_SLOTS),
        }
    }
}

/// Transmits drained per wakeup before the sockets get a turn again.
const MAX_TRANSMITS_PER_WAKEUP: usize = 1024;

/// A closure the handle runs on the loop thread.
pub(crate) type Command<P> = Box<dyn FnOnce(&mut P, Now) + Send>;

/// Messages from a handle to its member on the loop.
pub(crate) enum Message<P: Protocol> {
    /// Run this with the protocol.
    Run(Command<P>),
    /// Run the oldest batch of [`Protocol::Command`]s (`batch.rs`).
    Drain,
    /// Check this now and after every wakeup that did something, until it is satisfied.
    Wait(Box<dyn Waiter<P>>),
    /// A wait was withdrawn (its future dropped): drop the withdrawn waits (`future.rs`).
    Withdraw,
    /// Serve this member too (its sockets are registered already).
    Adopt(Box<Member<P>>),
    /// Take this member off the loop and return its protocol.
    Shutdown,
}

/// What a member's command channel said.
pub(crate) enum Flow {
    /// Carry on; this many commands ran.
    Continue(usize),
    /// Its handle stopped it (or is gone).
    Stop,
}

/// One protocol on a loop and everything the loop keeps for it.
pub(crate) struct Member<P: Protocol> {
    /// Its poll-token block (see [`TOKENS_PER_MEMBER`]).
    pub(crate) id: usize,
    pub(crate) protocol: P,
    pub(crate) transport: UdpTransport,
    pub(crate) commands: Receiver<Message<P>>,
    /// Batched commands (`batch.rs`), one batch per [`Message::Drain`].
    pub(crate) batches: Arc<Batches<P::Command>>,
    pub(crate) counters: Arc<Counters>,
    /// Pending `wait_for` checks and listeners, run after every wakeup that did something.
    pub(crate) waiters: Vec<Box<dyn Waiter<P>>>,
    /// Where the protocol goes when the member stops (its handle's `shutdown` waits on it).
    pub(crate) done: SyncSender<P>,
    /// Sockets that may still hold datagrams: mio readiness is edge-triggered, so a socket
    /// left before it was found empty must be read again without waiting for a new edge.
    /// All start readable: datagrams may have arrived between bind and register.
    pub(crate) readable: [bool; TOKENS_PER_MEMBER],
    /// The protocol may have more transmits than the last flush sent.
    pub(crate) more_transmits: bool,
}

impl<P: Protocol> Member<P> {
    /// True while it has sockets to read again or transmits left.
    pub(crate) fn busy(&self) -> bool {
        self.more_transmits || self.readable.iter().any(|r| *r)
    }

    /// Flags socket `kind` readable.
    pub(crate) fn mark_readable(&mut self, kind: usize) {
        if let Some(flag) = self.readable.get_mut(kind) {
            *flag = true;
        }
    }

    /// Reads the sockets flagged readable, a bounded number of datagrams each, counting
    /// those handed to the protocol in `handled`. `buf` holds [`RECV_SLOTS`] datagrams of
    /// up to `buf.len() / RECV_SLOTS` bytes; `scratch` is the loop's, kept between calls.
    pub(crate) fn receive(
        &mut self,
        now: Now,
        buf: &mut [u8],
        scratch: &mut RecvScratch,
        handled: &mut usize,
    ) {
        for kind in SocketKind::ALL {
            if self.readable.get(kind.index()).copied().unwrap_or(false) {
                let more = self.receive_from(now, kind, buf, scratch, handled);
                if let Some(flag) = self.readable.get_mut(kind.index()) {
                    *flag = more;
                }
            }
        }
    }

    /// Reads up to a bounded number of datagrams from one socket, [`RECV_SLOTS`] per system
    /// call; true when it may hold more (a full batch: a shorter one found it empty).
    fn receive_from(
        &mut self,
        now: Now,
        kind: SocketKind,
        buf: &mut [u8],
        scratch: &mut RecvScratch,
        handled: &mut usize,
    ) -> bool {
        let slot = buf.len() / RECV_SLOTS;
        let RecvScratch { headers, got } = scratch;
        for _ in 0..MAX_DATAGRAMS_PER_SOCKET / RECV_SLOTS {
            if let Err(e) = self.transport.recv_many(kind, buf, slot, headers, got) {
                // Pending socket errors (e.g. ICMP feedback) are one-shot: keep reading.
                self.counters.receive_error();
                log::debug!("runtime: receive on {kind:?} failed: {e}");
                continue;
            }
            for (i, received) in got.iter().enumerate() {
                let Some(received) = received else {
                    self.counters.dropped();
                    continue;
                };
                self.counters.received(received.len);
                let at = i.saturating_mul(slot);
                let (Some(source), Some(data)) = (
                    socket_addr_to_locator(received.source),
                    buf.get(at..at.saturating_add(received.len)),
                ) else {
                    self.counters.dropped();
                    continue;
                };
                self.protocol.handle_datagram(now, source, data);
                *handled += 1;
            }
            if got.len() < RECV_SLOTS {
                return false;
            }
        }
        true
    }

    /// Runs every queued command, each with a fresh clock reading (a command sees time as at
    /// least as late as when its caller sent it); a batch of commands shares one reading.
    /// Members handed over for adoption are put in `adopted`.
    pub(crate) fn run_commands(
        &mut self,
        clock: &impl Clock,
        adopted: &mut Vec<Member<P>>,
    ) -> Flow {
        let mut ran = 0;
        loop {
            match self.commands.try_recv() {
                Ok(Message::Run(command)) => {
                    command(&mut self.protocol, clock.now());
                    ran += 1;
                }
                Ok(Message::Drain) => {
                    if let Some(mut commands) = self.batches.take() {
                        ran += batch::run(&mut self.protocol, clock.now(), &mut commands);
                        self.batches.recycle(commands);
                    }
                }
                Ok(Message::Wait(mut w)) => {
                    if !w.poll(&mut self.protocol, clock.now()) {
                        self.waiters.push(w);
                        self.counters.set_waits(self.waiters.len());
                    }
                    ran += 1;
                }
                // Not work: nothing changed that a check could see.
                Ok(Message::Withdraw) => {
                    self.waiters.retain(|w| !w.withdrawn());
                    self.counters.set_waits(self.waiters.len());
                }
                Ok(Message::Adopt(member)) => {
                    adopted.push(*member);
                    ran += 1;
                }
                Ok(Message::Shutdown) | Err(TryRecvError::Disconnected) => return Flow::Stop,
                Err(TryRecvError::Empty) => return Flow::Continue(ran),
            }
        }
    }

    /// Fires the protocol's timeout if due; true if it ran.
    pub(crate) fn timeout(&mut self, now: Now) -> bool {
        if self.protocol.poll_timeout().is_some_and(|t| t <= now.mono) {
            self.protocol.handle_timeout(now);
            return true;
        }
        false
    }

    /// Runs the pending waits and listeners once.
    pub(crate) fn poll_waiters(&mut self, now: Now) {
        let protocol = &mut self.protocol;
        self.waiters.retain_mut(|w| !w.poll(protocol, now));
        self.counters.set_waits(self.waiters.len());
    }

    /// Sends what the protocol has queued, up to a bound per wakeup; true if it handed any
    /// datagram to the kernel. With `in_send`, adds the time spent in the sends to it
    /// (`turn.rs`).
    pub(crate) fn flush(&mut self, now: Now, mut in_send: Option<&mut Duration>) -> bool {
        let mut sent = false;
        for _ in 0..MAX_TRANSMITS_PER_WAKEUP {
            let Some(transmit) = self.protocol.poll_transmit(now) else {
                self.more_transmits = false;
                return sent;
            };
            let start = in_send.is_some().then(Instant::now);
            let report = self.transport.send(&transmit);
            if let (Some(total), Some(start)) = (in_send.as_deref_mut(), start) {
                *total += start.elapsed();
            }
            sent |= report.sent > 0;
            self.counters.sent(&report);
        }
        self.more_transmits = true;
        sent
    }

    /// Takes the member off the loop: sends what its last commands queued (a deleted
    /// writer's SEDP dispose, the participant's goodbye: otherwise peers only learn of it
    /// when our lease expires), closes its sockets and hands the protocol to its handle.
    /// Pending waits are released as they drop.
    pub(crate) fn retire(mut self, now: Now, registry: &mio::Registry) {
        self.flush(now, None);
        self.transport.deregister(registry);
        self.counters.set_waits(0);
        // Its handle may be gone (dropped without waiting); nothing to do then.
        let _ = self.done.try_send(self.protocol);
    }
}
