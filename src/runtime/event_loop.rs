//! The loop thread: waits for readiness or the protocols' next timeout, reads datagrams,
//! runs commands from the handles, fires the timeouts and drains transmits, for each member
//! it serves (`member.rs`: one protocol with its transport; several when participants share
//! a loop, so that work handed from one to another needs no other thread).
//!
//! Must not: interpret datagrams (the protocols do), block anywhere but in `Poll::poll`,
//! or do unbounded work per wakeup.
//!
//! docs/conventions.md §2 (runtime loop: wait → read until empty → handle → drain
//! poll_transmit).

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mio::{Events, Poll, Token};

use super::clock::Clock;
use super::member::{Flow, Member, RECV_SLOTS, RecvScratch, TOKENS_PER_MEMBER};
use super::protocol::Protocol;
use super::spin::SpinPolicy;
use super::turn::{Turn, TurnProfile};

/// Poll token of the waker; socket tokens are `member id * TOKENS_PER_MEMBER + kind`.
pub(crate) const WAKER: Token = Token(usize::MAX);
/// Receive buffer per datagram: the largest UDP payload fits ([`RECV_SLOTS`] of them).
const RECV_BUFFER: usize = 64 * 1024;
/// Longest single wait, so that a far-off or bogus timeout never parks the thread for ever.
const MAX_WAIT: Duration = Duration::from_secs(3600);

/// Everything the loop thread owns.
pub(crate) struct EventLoop<P: Protocol, C> {
    pub(crate) members: Vec<Member<P>>,
    pub(crate) clock: C,
    pub(crate) poll: Poll,
    /// True while the loop may block in `poll`: a sender that clears it must wake the loop.
    pub(crate) parked: Arc<AtomicBool>,
    /// How long it polls before parking (`spin.rs`).
    pub(crate) spin: SpinPolicy,
    /// The last spin found work: the next one may poll without yielding.
    pub(crate) armed: bool,
    /// Times the turns that read and sent datagrams, when asked for (`turn.rs`).
    pub(crate) profile: Option<TurnProfile>,
}

/// How a spin before parking ended.
enum Spin {
    /// This many commands ran: do a round without blocking.
    Work(usize),
    /// A socket became readable (already flagged): read it, no need to poll again.
    Readable,
    /// Nothing came within the spin ([`SpinPolicy::total`]): park.
    Idle,
}

impl<P: Protocol, C: Clock> EventLoop<P, C> {
    /// Runs until every member was shut down (or a fatal poll error).
    pub(crate) fn run(mut self) {
        let mut events = Events::with_capacity(64);
        let mut buf = vec![0u8; RECV_BUFFER * RECV_SLOTS];
        let mut scratch = RecvScratch::new();
        let mut worked = false;
        while !self.members.is_empty() {
            let mut busy = self.members.iter().any(Member::busy);
            let mut polled = false;
            // Commands run before the poll count as work of this wakeup: the waits see them.
            let mut ran_early = 0;
            if !busy && worked {
                match self.spin(&mut events) {
                    Spin::Work(ran) => (busy, ran_early) = (true, ran),
                    Spin::Readable => (busy, polled) = (true, true),
                    Spin::Idle => {}
                }
            }
            if !busy {
                // Park, then run what was sent before parking (its sender saw no need to wake
                // us); anything sent from here on clears `parked` and wakes the poll.
                self.parked.store(true, Ordering::SeqCst);
                ran_early = self.run_commands();
                busy = ran_early > 0;
                if self.members.is_empty() {
                    break;
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
                self.mark_readable(&events);
            }
            let woke = self.profile.is_some().then(std::time::Instant::now);
            let now = self.clock.now();
            let mut handled = ran_early;
            for m in &mut self.members {
                m.receive(now, &mut buf, &mut scratch, &mut handled);
            }
            let received = handled > ran_early;
            let read = woke.map(|w| w.elapsed());
            handled += self.run_commands();
            // Commands may have taken a while, and a command's caller may have moved a
            // manual clock: read it again for the timeouts and the transmits.
            let now = self.clock.now();
            for m in &mut self.members {
                if m.timeout(now) {
                    handled += 1;
                }
            }
            if handled > 0 {
                for m in &mut self.members {
                    m.poll_waiters(now);
                }
                // What the listeners handed to other members (the router's forwards) runs
                // now, so that it goes out with this flush, and the waits see it.
                if self.members.len() > 1 && self.run_commands() > 0 {
                    for m in &mut self.members {
                        m.poll_waiters(now);
                    }
                }
            }
            let worked_at = woke.map(|w| w.elapsed());
            let (mut sent, mut in_send) = (false, Duration::ZERO);
            for m in &mut self.members {
                sent |= m.flush(now, woke.is_some().then_some(&mut in_send));
            }
            if let (Some(p), Some(woke), Some(read), Some(worked_at)) =
                (&mut self.profile, woke, read, worked_at)
                && received
                && sent
            {
                let flush = woke.elapsed().saturating_sub(worked_at);
                p.record(Turn {
                    receive: read,
                    work: worked_at.saturating_sub(read),
                    flush,
                    send: in_send,
                });
            }
            worked = handled > 0;
        }
        if let Some(p) = self.profile.as_ref().filter(|p| p.turns() > 0) {
            log::info!("runtime: {}", p.summary());
        }
        // Whichever way the loop stopped, the members left send what their last commands
        // queued and hand their protocols back.
        let now = self.clock.now();
        for m in self.members.drain(..) {
            m.retire(now, self.poll.registry());
        }
    }

    /// Flags the sockets `events` reported readable (the waker's event flags none).
    fn mark_readable(&mut self, events: &Events) {
        for event in events {
            let token = event.token().0;
            if token == WAKER.0 {
                continue;
            }
            let (id, kind) = (token / TOKENS_PER_MEMBER, token % TOKENS_PER_MEMBER);
            if let Some(m) = self.members.iter_mut().find(|m| m.id == id) {
                m.mark_readable(kind);
            }
        }
    }

    /// Stays awake up to [`SpinPolicy::total`] after a wakeup that did work, polling the
    /// command channels and (without blocking) the sockets. Parking and being woken costs a
    /// system call per hand-off from the application and, for a datagram, a wake-up that
    /// crosses processors when the sender runs on another core; a ping-pong, a router's
    /// forwards or a stream of hand-offs usually brings the next piece of work within the
    /// spin. For its busy part ([`SpinPolicy::busy`], only while the last spin found work) it
    /// keeps the core; after that it yields between polls, so a shared core stays usable by
    /// the peer.
    fn spin(&mut self, events: &mut Events) -> Spin {
        let start = std::time::Instant::now();
        let found = loop {
            let ran = self.run_commands();
            if ran > 0 || self.members.is_empty() {
                break Spin::Work(ran);
            }
            // A failed poll is left to the blocking poll that follows, which reports it.
            if self.poll.poll(events, Some(Duration::ZERO)).is_ok() && !events.is_empty() {
                self.mark_readable(events);
                break Spin::Readable;
            }
            let spun = start.elapsed();
            if spun >= self.spin.total {
                break Spin::Idle;
            }
            if self.spin.yields(spun, self.armed) {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        };
        self.armed = !matches!(found, Spin::Idle);
        found
    }

    /// How long to wait for readiness: until the protocols' next timeout, or indefinitely.
    fn wait_timeout(&self) -> Option<Duration> {
        let deadline = self
            .members
            .iter()
            .filter_map(|m| m.protocol.poll_timeout())
            .min()?;
        let left = deadline.saturating_duration_since(self.clock.now().mono);
        Some(left.min(MAX_WAIT))
    }

    /// Runs every member's queued commands; members whose handle stopped them retire, and
    /// members handed over for adoption join. Returns how many commands ran.
    fn run_commands(&mut self) -> usize {
        let mut ran = 0;
        let mut adopted = Vec::new();
        let mut i = 0;
        while let Some(m) = self.members.get_mut(i) {
            match m.run_commands(&self.clock, &mut adopted) {
                Flow::Continue(n) => {
                    ran += n;
                    i += 1;
                }
                Flow::Stop => {
                    let m = self.members.remove(i);
                    m.retire(self.clock.now(), self.poll.registry());
                    ran += 1;
                }
            }
        }
        // They run from the next round (the adoption counted as work, so it does not park).
        self.members.append(&mut adopted);
        ran
    }
}
