//! Which matched readers have work, so that draining a writer's output after a write costs
//! time linear in the number of readers: readers pushed to alone wait in a queue (each is
//! visited once per change, not once per datagram of every other reader), readers sharing
//! datagrams are scanned only while one of them has work, and the per-reader control scan
//! is skipped until a repair or HEARTBEAT can be due.
//!
//! Must not: decide what is sent (`send.rs`), lose a reader with work (every input that can
//! give a reader work marks it or asks for a full rescan), or hold stale indices (a removed
//! reader resets the queue). No I/O, no clock.
//!
//! RTPS 2.5 §8.4.9.2.4 (pushing unsent changes), §8.4.9.2.7 / §8.4.9.2.12 (HEARTBEAT and
//! repair timing).

use std::collections::VecDeque;

use super::WriterConfig;
use super::config::MulticastMode;
use super::reader_proxy::ReaderProxy;
use super::readers::{ReaderKey, Readers};
use crate::time::Instant;
use crate::wire::SequenceNumber;

/// Readers touched by inputs between two drains beyond which a full rescan is cheaper.
const MAX_TOUCHED: usize = 64;

/// An input that can give readers work. [`PushQueue::invalidate`] is the one place each is
/// mapped to what the queue must look at again.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Input {
    /// A change was written: every reader may have push work.
    Written,
    /// A reader matched: push work, and its initial HEARTBEAT is scheduled.
    Matched,
    /// A reader's locators were updated, or a filter change moved who is pushed to alone.
    Regrouped,
    /// A reader left: the queue restarts, in match order.
    Unmatched,
    /// An ACKNACK from this reader: its cursors and schedule moved.
    AckNack(ReaderKey),
    /// A NACK_FRAG or expired timers: some schedule moved.
    Rescheduled,
}

/// The writer's work queue (keys of `Writer::readers`).
#[derive(Debug)]
pub(super) struct PushQueue {
    /// Readers pushed to alone that may have changes to push, in arrival order.
    solo: VecDeque<ReaderKey>,
    /// Classify every reader at the next drain (after a write, a match, a filter change).
    scan: bool,
    /// Readers whose cursors an input moved since the last drain.
    touched: Vec<ReaderKey>,
    /// A reader that shares datagrams may have changes to push.
    shared: bool,
    /// `Some(t)`: no reader has a repair or HEARTBEAT due before `t` (`None` inside: none
    /// scheduled at all); `None`: unknown, scan.
    control_clear: Option<Option<Instant>>,
}

impl PushQueue {
    pub(super) fn new() -> Self {
        PushQueue {
            solo: VecDeque::new(),
            scan: true,
            touched: Vec::new(),
            shared: false,
            control_clear: None,
        }
    }

    /// What `input` may have changed is looked at again at the next drain.
    pub(super) fn invalidate(&mut self, input: Input, readers: &mut Readers) {
        match input {
            Input::Written | Input::Regrouped => self.scan = true,
            Input::Matched => {
                self.scan = true;
                self.control_clear = None;
            }
            Input::Unmatched => self.reset(readers),
            Input::AckNack(key) => {
                self.control_clear = None;
                self.touch(key);
            }
            Input::Rescheduled => self.control_clear = None,
        }
    }

    /// Reader `key`'s cursors moved (an ACKNACK).
    fn touch(&mut self, key: ReaderKey) {
        if self.touched.len() >= MAX_TOUCHED {
            self.scan = true;
        } else {
            self.touched.push(key);
        }
    }

    /// A reader left: forget the queue and rescan, in match order.
    fn reset(&mut self, readers: &mut Readers) {
        self.solo.clear();
        self.touched.clear();
        for r in readers.iter_mut() {
            r.set_queued(false);
        }
        self.scan = true;
        self.shared = true;
        self.control_clear = None;
    }

    /// A reader's HEARTBEAT or repair was scheduled at `at`.
    pub(super) fn control_scheduled(&mut self, at: Instant) {
        if let Some(clear) = self.control_clear.as_mut() {
            *clear = Some(clear.map_or(at, |t| t.min(at)));
        }
    }

    /// True when no control message can be due at `now`.
    pub(super) fn control_idle(&self, now: Instant) -> bool {
        match self.control_clear {
            Some(None) => true,
            Some(Some(t)) => now < t,
            None => false,
        }
    }

    /// After a full control scan found nothing due: nothing is before `next`.
    pub(super) fn control_scanned(&mut self, next: Option<Instant>) {
        self.control_clear = Some(next);
    }

    /// The reader pushed to alone to serve next.
    pub(super) fn front(&self) -> Option<ReaderKey> {
        self.solo.front().copied()
    }

    /// True while a reader that shares datagrams may have work.
    pub(super) fn shared_pending(&self) -> bool {
        self.shared
    }

    /// The shared readers have nothing left to push.
    pub(super) fn shared_done(&mut self) {
        self.shared = false;
    }
}

/// How the push reaches a reader that has changes to push.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// Pushed to alone (`send.rs` overview).
    Alone,
    /// In datagrams shared with the readers at the same cursor.
    Shared,
}

/// The push route of reader `r`, if the push has changes for it (the writer's last SN is
/// `last`).
pub(super) fn route(config: &WriterConfig, last: SequenceNumber, r: &ReaderProxy) -> Option<Route> {
    if !push_eligible(config, last, r) {
        return None;
    }
    Some(if pushed_alone(config, r) {
        Route::Alone
    } else {
        Route::Shared
    })
}

/// True when reader `r` has unsent changes the push sends it.
/// RTPS 2.5 §8.4.7.1 (pushMode; best-effort readers are always pushed to).
/// A reliable reader whose flow-control window is full waits for its acknowledgement
/// (`flow.rs`).
pub(super) fn push_eligible(config: &WriterConfig, last: SequenceNumber, r: &ReaderProxy) -> bool {
    let reliable = config.reliable && r.reliable();
    r.next_unsent() <= last && (config.push_mode || !reliable) && (!reliable || r.flow().may_send())
}

/// True when reader `r` is pushed to alone: it is filtered for, it has a pending GAP (its
/// filter was just removed) that must come before anything shared, or it listens on a
/// multicast group (its pushes pass over the changes a multicast covered for it), or it is a
/// peer-group intermediary (its pushes may be abbreviated, `peer_group.rs`).
pub(super) fn pushed_alone(config: &WriterConfig, r: &ReaderProxy) -> bool {
    r.pending_gap().is_some()
        || r.filter_slot().is_some()
        || multicast_listener(config, r)
        || r.peer_group_peer
}

/// True when reader `r` listens on a multicast group the writer may use.
pub(super) fn multicast_listener(config: &WriterConfig, r: &ReaderProxy) -> bool {
    config.multicast.mode != MulticastMode::AlwaysUnicast
        && !r.remote().multicast_locators.is_empty()
}

impl PushQueue {
    /// Queues reader `key` (pushed to alone) or notes shared work, if it has any.
    fn classify(
        &mut self,
        readers: &mut Readers,
        key: ReaderKey,
        route: &impl Fn(&ReaderProxy) -> Option<Route>,
    ) {
        let Some(r) = readers.get_mut(key) else {
            return;
        };
        match route(r) {
            Some(Route::Shared) => self.shared = true,
            Some(Route::Alone) if !r.queued() => {
                r.set_queued(true);
                self.solo.push_back(key);
            }
            _ => {}
        }
    }

    /// Brings the queue up to date with the inputs since the last drain: O(readers) after a
    /// write, O(touched) after ACKNACKs.
    pub(super) fn refresh(
        &mut self,
        readers: &mut Readers,
        route: impl Fn(&ReaderProxy) -> Option<Route>,
    ) {
        if self.scan {
            self.scan = false;
            self.touched.clear();
            for i in 0..readers.len() {
                if let Some(key) = readers.key_at(i) {
                    self.classify(readers, key, &route);
                }
            }
        } else {
            let touched = core::mem::take(&mut self.touched);
            for &key in &touched {
                self.classify(readers, key, &route);
            }
        }
    }

    /// The reader at the front of the queue has nothing more to push alone: dequeue it (it
    /// may now share datagrams with others).
    pub(super) fn dequeue_front(
        &mut self,
        readers: &mut Readers,
        route: impl Fn(&ReaderProxy) -> Option<Route>,
    ) {
        if let Some(key) = self.solo.pop_front() {
            if let Some(r) = readers.get_mut(key) {
                r.set_queued(false);
                if route(r) == Some(Route::Shared) {
                    self.shared = true;
                }
            }
        }
    }
}
