//! A cloneable, non-blocking hand-off of batched commands to a loop ([`CommandSender`]):
//! for code that runs on one loop (a listener) and must hand work to another loop without
//! ever waiting for it (the router's forwards from an upstream site to a downstream one).
//!
//! Must not: block, wait for an outcome, or own the loop (dropping a sender never stops
//! it: the loop stops on its handle's shutdown message).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::Sender;

use super::batch::Batches;
use super::member::Message;
use super::{Protocol, RuntimeHandle, RuntimeStopped, wake_after_send};

/// Submits batched commands to one loop ([`RuntimeHandle::command_sender`]); cloneable and
/// `Send`, so it may live on another loop's thread.
pub struct CommandSender<P: Protocol> {
    pub(super) commands: Sender<Message<P>>,
    pub(super) batches: Arc<Batches<P::Command>>,
    pub(super) waker: Arc<mio::Waker>,
    pub(super) parked: Arc<AtomicBool>,
}

impl<P: Protocol> Clone for CommandSender<P> {
    fn clone(&self) -> Self {
        CommandSender {
            commands: self.commands.clone(),
            batches: Arc::clone(&self.batches),
            waker: Arc::clone(&self.waker),
            parked: Arc::clone(&self.parked),
        }
    }
}

impl<P: Protocol> CommandSender<P> {
    /// As [`RuntimeHandle::submit_command`]: queued in the open batch, in order with every
    /// other command of this loop; wakes the loop only when it is parked.
    pub fn submit_command(&self, command: P::Command) -> Result<(), RuntimeStopped> {
        self.batches.push(command, || {
            self.commands
                .send(Message::Drain)
                .map_err(|_| RuntimeStopped)?;
            wake_after_send(&self.parked, &self.waker)
        })
    }
}

impl<P: Protocol> RuntimeHandle<P> {
    /// A sender of batched commands to this loop, for another thread or loop.
    pub fn command_sender(&self) -> CommandSender<P> {
        CommandSender {
            commands: self.commands.clone(),
            batches: Arc::clone(&self.batches),
            waker: Arc::clone(&self.waker),
            parked: Arc::clone(&self.parked),
        }
    }
}
