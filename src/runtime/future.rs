//! Waits evaluated on the loop thread whose result wakes a task instead of a thread:
//! [`RuntimeHandle::wait_async`] gives a [`WaitFuture`] that, when first polled, hands its
//! check to the loop (as `wait_for` does, `waiter.rs`); the loop runs the check then and
//! after every wakeup that handled input or commands, and on success stores the result and
//! wakes the task's [`Waker`]. The future itself only waits: the protocol work (the write,
//! the take, the acknowledgements) is done by the loop thread, so any executor may poll it,
//! on any thread, several on one thread.
//!
//! Must not: run a check after its future was dropped (a check may have side effects: a
//! write that succeeds), leave a dropped future's wait in the loop's table (the drop
//! withdraws it), block (the future's lock is held by the loop only while a check runs, and
//! by the future only to read or store a waker), or depend on an async runtime crate.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};

use super::member::Message;
use super::waiter::Waiter;
use super::{Protocol, RuntimeHandle, RuntimeStopped};
use crate::time::Now;

/// A check as the loop runs it.
type Check<P, R> = Box<dyn FnMut(&mut P, Now) -> Option<R> + Send>;

enum State<R> {
    /// Not decided yet; the waker of the task that last polled.
    Pending(Option<Waker>),
    Done(R),
    /// The future took the result, or was dropped.
    Closed,
    /// The loop stopped before the check succeeded.
    Stopped,
}

/// What the loop and the future share.
struct Shared<R> {
    state: Mutex<State<R>>,
}

impl<R> Shared<R> {
    fn lock(&self) -> MutexGuard<'_, State<R>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Ends a pending wait with `end` and wakes its task.
    fn finish(&self, end: State<R>) {
        let mut s = self.lock();
        if let State::Pending(waker) = &mut *s {
            let waker = waker.take();
            *s = end;
            drop(s);
            if let Some(w) = waker {
                w.wake();
            }
        }
    }
}

/// The loop's side of a [`WaitFuture`]. Dropped by the loop (the loop stopped, or panicked)
/// while pending, it releases its task with [`RuntimeStopped`].
struct AsyncWait<P, R> {
    shared: Arc<Shared<R>>,
    check: Check<P, R>,
}

impl<P, R: Send> Waiter<P> for AsyncWait<P, R> {
    fn poll(&mut self, protocol: &mut P, now: Now) -> bool {
        // The lock is held while the check runs: a future dropped meanwhile waits for it,
        // and a dropped future's check never starts.
        let mut s = self.shared.lock();
        if !matches!(*s, State::Pending(_)) {
            return true;
        }
        let Some(r) = (self.check)(protocol, now) else {
            return false;
        };
        if let State::Pending(Some(waker)) = std::mem::replace(&mut *s, State::Done(r)) {
            drop(s);
            waker.wake();
        }
        true
    }

    fn withdrawn(&self) -> bool {
        matches!(*self.shared.lock(), State::Closed)
    }
}

impl<P, R> Drop for AsyncWait<P, R> {
    fn drop(&mut self) {
        self.shared.finish(State::Stopped);
    }
}

/// A wait on the loop thread, as a future ([`RuntimeHandle::wait_async`]): ready with the
/// check's first `Some`, or [`RuntimeStopped`]. Nothing happens until it is first polled;
/// dropped before it is ready, its check never runs again and the loop forgets it.
#[must_use = "a future does nothing unless polled"]
pub struct WaitFuture<'a, P: Protocol, R> {
    handle: &'a RuntimeHandle<P>,
    /// The check until the first poll hands it to the loop.
    check: Option<Check<P, R>>,
    /// Set by the first poll.
    shared: Option<Arc<Shared<R>>>,
}

impl<P: Protocol, R: Send + 'static> Future for WaitFuture<'_, P, R> {
    type Output = Result<R, RuntimeStopped>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if let Some(check) = this.check.take() {
            let shared = Arc::new(Shared {
                state: Mutex::new(State::Pending(Some(cx.waker().clone()))),
            });
            let wait = AsyncWait {
                shared: Arc::clone(&shared),
                check,
            };
            this.shared = Some(shared);
            // A loop that stopped drops the wait, which marks it stopped.
            let _ = this.handle.send(Message::Wait(Box::new(wait)));
        }
        let Some(shared) = &this.shared else {
            return Poll::Ready(Err(RuntimeStopped));
        };
        let mut s = shared.lock();
        match std::mem::replace(&mut *s, State::Closed) {
            State::Done(r) => Poll::Ready(Ok(r)),
            State::Stopped | State::Closed => Poll::Ready(Err(RuntimeStopped)),
            State::Pending(waker) => {
                let waker = match waker {
                    Some(w) if w.will_wake(cx.waker()) => w,
                    _ => cx.waker().clone(),
                };
                *s = State::Pending(Some(waker));
                Poll::Pending
            }
        }
    }
}

impl<P: Protocol, R> Drop for WaitFuture<'_, P, R> {
    fn drop(&mut self) {
        let Some(shared) = self.shared.take() else {
            return;
        };
        let mut s = shared.lock();
        let pending = matches!(*s, State::Pending(_));
        // A result not taken (a write that succeeded) is dropped here, with the future.
        *s = State::Closed;
        drop(s);
        if pending {
            // The loop drops closed waits when told to; a stopped loop has none left.
            let _ = self.handle.send(Message::Withdraw);
        }
    }
}

impl<P: Protocol> RuntimeHandle<P> {
    /// The future of a wait on the loop thread: `check` runs on the loop when the future is
    /// first polled, then after every wakeup that handled input (datagrams, due timers) or
    /// commands, until it returns `Some`, which wakes the task and is the future's output.
    /// No timeout: the caller bounds the wait with its executor's timer, and dropping the
    /// future withdraws the check (it never runs again). The async form of
    /// [`RuntimeHandle::wait_for`].
    pub fn wait_async<R, F>(&self, check: F) -> WaitFuture<'_, P, R>
    where
        R: Send + 'static,
        F: FnMut(&mut P, Now) -> Option<R> + Send + 'static,
    {
        WaitFuture {
            handle: self,
            check: Some(Box::new(check)),
            shared: None,
        }
    }

    /// Test hook (feature `test-hooks`): how many waits and listeners this loop member has
    /// registered, as of the last command it ran (a round trip such as
    /// [`RuntimeHandle::execute`] first makes it current).
    #[cfg(any(test, feature = "test-hooks"))]
    pub fn registered_waits_for_tests(&self) -> usize {
        self.counters.waits()
    }
}
