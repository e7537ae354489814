//! Several protocols on one loop thread: the thread shared by their handles (joined when the
//! last one stops), and [`RuntimeHandle::adopt`], which starts a protocol on an existing
//! handle's loop rather than a thread of its own. Work one member hands to another (a
//! [`CommandSender`](super::CommandSender), e.g. the router's forward from an upstream site
//! to a downstream one) then runs on the same thread, without a wake-up or a context switch.
//!
//! Must not: stop a loop while a member is still on it, or let one member's shutdown take
//! another's protocol with it.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::batch::Batches;
use super::member::{Member, Message, TOKENS_PER_MEMBER};
use super::stats::Counters;
use super::{Protocol, RuntimeHandle};
use crate::transport::UdpTransport;

/// A loop thread and what adopting a member on it needs; the thread is joined when the last
/// handle that shares it drops this (by then every member has retired, so the loop ended).
pub(super) struct LoopThread {
    thread: Option<JoinHandle<()>>,
    /// The loop's poll registry, for the sockets of members adopted later.
    registry: mio::Registry,
    /// The next member's poll-token block.
    next_id: AtomicUsize,
}

impl LoopThread {
    pub(super) fn new(thread: JoinHandle<()>, registry: mio::Registry) -> Self {
        LoopThread {
            thread: Some(thread),
            registry,
            next_id: AtomicUsize::new(1),
        }
    }

    /// True while the thread runs.
    pub(super) fn is_running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }
}

impl Drop for LoopThread {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            // A panic was reported to the members' handles already.
            let _ = t.join();
        }
    }
}

/// A member `id` for `protocol` over `transport` (registered already) and its handle, which
/// has no loop thread yet (the caller sets `shared`).
pub(super) fn new_member<P: Protocol>(
    id: usize,
    protocol: P,
    transport: UdpTransport,
    waker: Arc<mio::Waker>,
    parked: &Arc<AtomicBool>,
) -> (RuntimeHandle<P>, Member<P>) {
    let locators = transport.locators().clone();
    let participant_id = transport.participant_id();
    let (commands_tx, commands_rx) = mpsc::channel();
    let (done_tx, done_rx): (SyncSender<P>, _) = mpsc::sync_channel(1);
    let counters = Arc::new(Counters::default());
    let batches = Arc::new(Batches::new());
    let member = Member {
        id,
        protocol,
        transport,
        commands: commands_rx,
        batches: Arc::clone(&batches),
        counters: Arc::clone(&counters),
        waiters: Vec::new(),
        done: done_tx,
        readable: [true; TOKENS_PER_MEMBER],
        more_transmits: true,
    };
    let handle = RuntimeHandle {
        commands: commands_tx,
        batches,
        waker,
        shared: None,
        done: Mutex::new(done_rx),
        counters,
        parked: Arc::clone(parked),
        locators,
        participant_id,
    };
    (handle, member)
}

impl<P: Protocol> RuntimeHandle<P> {
    /// Starts `protocol` over `transport` on this handle's loop thread instead of a thread of
    /// its own. The two then share that thread's time (a busy one delays the other) and
    /// hand each other work (a [`CommandSender`](super::CommandSender)) without a wake-up.
    /// The new handle works as one from [`Runtime::spawn`](super::Runtime::spawn); the
    /// thread ends when the last protocol on it is shut down.
    pub fn adopt(&self, protocol: P, mut transport: UdpTransport) -> io::Result<RuntimeHandle<P>> {
        let stopped = || io::Error::other("the runtime thread has stopped");
        let shared = self.shared.as_ref().ok_or_else(stopped)?;
        let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
        transport.register(&shared.registry, id * TOKENS_PER_MEMBER)?;
        let (mut handle, member) = new_member(
            id,
            protocol,
            transport,
            Arc::clone(&self.waker),
            &self.parked,
        );
        self.send(Message::Adopt(Box::new(member)))
            .map_err(|_| stopped())?;
        handle.shared = Some(Arc::clone(shared));
        Ok(handle)
    }
}
