//! The loop thread: waits for readiness or the protocol's next timeout, reads datagrams,
//! runs commands from the handle, fires the timeout and drains transmits.
//!
//! Must not: interpret datagrams (the protocol does), block anywhere but in `Poll::poll`,
//! or do unbounded work per wakeup.
//!
//! STYLE.md §2 (runtime loop: wait → read until WouldBlock → handle → drain poll_transmit).

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::Duration;

use mio::{Events, Poll, Token};

use super::batch::{self, Batches};
use super::clock::Clock;
use super::protocol::Protocol;
use super::stats::Counters;
use super::waiter::Waiter;
use crate::time::Now;
use crate::transport::{SocketKind, UdpTransport, socket_addr_to_locator};

/// Poll token of the waker; socket tokens are `SocketKind::index()` (0..4).
pub(crate) const WAKER: Token = Token(usize::MAX);
/// Datagrams read from one socket per wakeup before the other work gets a turn.
const MAX_DATAGRAMS_PER_SOCKET: usize = 64;
/// Transmits drained per wakeup before the sockets get a turn again.
const MAX_TRANSMITS_PER_WAKEUP: usize = 1024;
/// Receive buffer: the largest UDP payload fits.
const RECV_BUFFER: usize = 64 * 1024;
/// How long the loop keeps polling its command channel and its sockets before it parks,
/// after a wakeup that did work (see [`EventLoop::spin`]).
const SPIN_BEFORE_PARK: Duration = Duration::from_micros(50);
/// Longest single wait, so that a far-off or bogus timeout never parks the thread for ever.
const MAX_WAIT: Duration = Duration::from_secs(3600);

/// A closure the handle runs on the loop thread.
pub(crate) type Command<P> = Box<dyn FnOnce(&mut P, Now) + Send>;

/// Messages from the handle to the loop.
pub(crate) enum Message<P> {
    /// Run this with the protocol.
    Run(Command<P>),
    /// Run the oldest batch of [`Protocol::Command`]s (`batch.rs`).
    Drain,
    /// Check this now and after every wakeup that did something, until it is satisfied.
    Wait(Box<dyn Waiter<P>>),
    /// Stop the loop and return the protocol.
    Shutdown,
}

/// Flags the sockets `events` reported readable (the waker's event flags none).
fn mark_readable(events: &Events, readable: &mut [bool; SocketKind::ALL.len()]) {
    for event in events {
        if let Some(flag) =
            SocketKind::from_index(event.token().0).and_then(|kind| readable.get_mut(kind.index()))
        {
            *flag = true;
        }
    }
}

/// Everything the loop thread owns.
pub(crate) struct EventLoop<P: Protocol, C> {
    pub(crate) protocol: P,
    pub(crate) transport: UdpTransport,
    pub(crate) clock: C,
    pub(crate) poll: Poll,
    pub(crate) commands: Receiver<Message<P>>,
    /// Batched commands (`batch.rs`), one batch per [`Message::Drain`].
    pub(crate) batches: Arc<Batches<P::Command>>,
    pub(crate) counters: Arc<Counters>,
    /// Pending `wait_for` checks, run after every wakeup that did something.
    pub(crate) waiters: Vec<Box<dyn Waiter<P>>>,
    /// True while the loop may block in `poll`: a sender that clears it must wake the loop.
    pub(crate) parked: Arc<AtomicBool>,
}

/// What the command channel said.
enum Flow {
    /// Carry on; this many commands ran.
    Continue(usize),
    Stop,
}

/// How a spin before parking ended.
enum Spin {
    /// Commands ran: do a round without blocking.
    Work,
    /// A socket became readable (already flagged): read it, no need to poll again.
    Readable,
    /// Nothing came within [`SPIN_BEFORE_PARK`]: park.
    Idle,
    /// Shutdown.
    Stop,
}

impl<P: Protocol, C: Clock> EventLoop<P, C> {
    /// Runs until shutdown (or a fatal poll error) and gives the protocol back.
    pub(crate) fn run(mut self) -> P {
        let mut events = Events::with_capacity(64);
        let mut buf = vec![0u8; RECV_BUFFER];
        // Sockets that may still hold datagrams: mio readiness is edge-triggered, so a socket
        // left before WouldBlock must be read again without waiting for a new edge. All start
        // readable: datagrams may have arrived between bind and register.
        let mut readable = [true; SocketKind::ALL.len()];
        let mut more_transmits = true;
        let mut worked = false;
        loop {
            let mut busy = more_transmits || readable.iter().any(|r| *r);
            let mut polled = false;
            if !busy && worked {
                match self.spin(&mut events, &mut readable) {
                    Spin::Stop => break,
                    Spin::Work => busy = true,
                    Spin::Readable => (busy, polled) = (true, true),
                    Spin::Idle => {}
                }
            }
            if !busy {
                // Park, then run what was sent before parking (its sender saw no need to wake
                // us); anything sent from here on clears `parked` and wakes the poll.
                self.parked.store(true, Ordering::SeqCst);
                match self.run_commands() {
                    Flow::Stop => break,
                    Flow::Continue(ran) => busy = ran > 0,
                }
            }
            if !polled {
                let timeout = if busy {
                    Some(Duration::ZERO)
                } else {
                    self.wait_timeout()
                };
                let result = self.poll.poll(&mut events, timeout);
                self.parked.store(false, Ordering::SeqCst);
                match result {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        log::error!("runtime: poll failed, stopping: {e}");
                        break;
                    }
                }
                mark_readable(&events, &mut readable);
            }
            let now = self.clock.now();
            let mut handled = 0;
            for kind in SocketKind::ALL {
                if let Some(flag) = readable.get_mut(kind.index()) {
                    if *flag {
                        *flag = self.receive(now, kind, &mut buf, &mut handled);
                    }
                }
            }
            let commands_ran = match self.run_commands() {
                Flow::Stop => break,
                Flow::Continue(ran) => ran,
            };
            handled += commands_ran;
            // Commands may have taken a while, and a command's caller may have moved a
            // manual clock: read it again for the timeout and the transmits.
            let now = self.clock.now();
            if self.protocol.poll_timeout().is_some_and(|t| t <= now.mono) {
                self.protocol.handle_timeout(now);
                handled += 1;
            }
            if handled > 0 && !self.waiters.is_empty() {
                let protocol = &mut self.protocol;
                self.waiters.retain_mut(|w| !w.poll(protocol, now));
            }
            more_transmits = self.flush(now);
            worked = handled > 0;
        }
        // Whichever way the loop stopped (the shutdown may have been read while spinning or
        // just before parking), send what the last commands queued (a deleted writer's SEDP
        // dispose): otherwise peers only learn of the deletion when our lease expires.
        self.flush(self.clock.now());
        // Pending waits (registered or still queued) are released as they drop with the loop.
        self.protocol
    }

    /// Stays awake up to [`SPIN_BEFORE_PARK`] after a wakeup that did work, polling the
    /// command channel and (without blocking) the sockets, yielding the core in between.
    /// Parking and being woken costs a system call per hand-off from the application and,
    /// for an answer arriving on the socket, a wake-up that crosses processors when the
    /// peer runs on another core; a ping-pong or a stream of hand-offs usually brings the
    /// next piece of work within the spin. Yielding keeps a shared core usable by the peer.
    fn spin(&mut self, events: &mut Events, readable: &mut [bool; SocketKind::ALL.len()]) -> Spin {
        let until = std::time::Instant::now() + SPIN_BEFORE_PARK;
        loop {
            match self.run_commands() {
                Flow::Stop => return Spin::Stop,
                Flow::Continue(ran) if ran > 0 => return Spin::Work,
                Flow::Continue(_) => {}
            }
            // A failed poll is left to the blocking poll that follows, which reports it.
            if self.poll.poll(events, Some(Duration::ZERO)).is_ok() && !events.is_empty() {
                mark_readable(events, readable);
                return Spin::Readable;
            }
            if std::time::Instant::now() >= until {
                return Spin::Idle;
            }
            std::thread::yield_now();
        }
    }

    /// How long to wait for readiness: until the protocol's next timeout, or indefinitely.
    fn wait_timeout(&self) -> Option<Duration> {
        let deadline = self.protocol.poll_timeout()?;
        let left = deadline.saturating_duration_since(self.clock.now().mono);
        Some(left.min(MAX_WAIT))
    }

    /// Reads up to a bounded number of datagrams from one socket, counting those handed to
    /// the protocol in `handled`; true when the socket may hold more.
    fn receive(&mut self, now: Now, kind: SocketKind, buf: &mut [u8], handled: &mut usize) -> bool {
        for _ in 0..MAX_DATAGRAMS_PER_SOCKET {
            let received = match self.transport.recv(kind, buf) {
                Ok(Some(r)) => r,
                Ok(None) => return false,
                Err(e) => {
                    // Pending socket errors (e.g. ICMP feedback) are one-shot: keep reading.
                    self.counters.receive_error();
                    log::debug!("runtime: receive on {kind:?} failed: {e}");
                    continue;
                }
            };
            self.counters.received(received.len);
            let (Some(source), Some(data)) = (
                socket_addr_to_locator(received.source),
                buf.get(..received.len),
            ) else {
                self.counters.dropped();
                continue;
            };
            self.protocol.handle_datagram(now, source, data);
            *handled += 1;
        }
        true
    }

    /// Runs every queued command, each with a fresh clock reading (a command sees time as at
    /// least as late as when its caller sent it); a batch of commands shares one reading.
    fn run_commands(&mut self) -> Flow {
        let mut ran = 0;
        loop {
            match self.commands.try_recv() {
                Ok(Message::Run(command)) => {
                    command(&mut self.protocol, self.clock.now());
                    ran += 1;
                }
                Ok(Message::Drain) => {
                    if let Some(mut commands) = self.batches.take() {
                        ran += batch::run(&mut self.protocol, self.clock.now(), &mut commands);
                        self.batches.recycle(commands);
                    }
                }
                Ok(Message::Wait(mut w)) => {
                    if !w.poll(&mut self.protocol, self.clock.now()) {
                        self.waiters.push(w);
                    }
                    ran += 1;
                }
                Ok(Message::Shutdown) | Err(TryRecvError::Disconnected) => return Flow::Stop,
                Err(TryRecvError::Empty) => return Flow::Continue(ran),
            }
        }
    }

    /// Sends what the protocol has queued; true when it may have more.
    fn flush(&mut self, now: Now) -> bool {
        for _ in 0..MAX_TRANSMITS_PER_WAKEUP {
            let Some(transmit) = self.protocol.poll_transmit(now) else {
                return false;
            };
            let report = self.transport.send(&transmit);
            self.counters.sent(&report);
        }
        true
    }
}
