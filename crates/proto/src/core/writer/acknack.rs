//! The writer's inputs from its readers: ACKNACK and NACK_FRAG, turned into acknowledgements,
//! repair requests and owed HEARTBEATs on the reader's proxy.
//!
//! Must not: send anything (answers are scheduled on the proxy and built by `send.rs` /
//! `repair.rs`), trust the submessage (counts, bases and sets are untrusted; the proxy caps
//! what is kept, `reader_proxy.rs`), or do I/O / read clocks.
//!
//! RTPS 2.5 §8.4.9.2.8 (acked / requested changes), §8.3.7.8 and §8.4.9.2 (NACK_FRAG),
//! §8.4.15.7 (stale counts ignored).

use super::Writer;
use super::flow;
use super::message::fragment_count;
use super::push_queue::Input;
use super::unresponsive::Change;
use crate::time::Now;
use crate::wire::submessage::{AckNack, NackFrag};
use crate::wire::{Guid, SequenceNumber};

impl Writer {
    /// Handles an ACKNACK from `reader` (its GUID: the message's source prefix + readerId).
    /// RTPS 2.5 §8.4.9.2.8 (acked / requested changes), §8.4.15.7 (stale counts ignored).
    /// A pre-emptive ACKNACK (bitmapBase 0 / numBits 0, or an empty set while the reader
    /// lacks changes) and any non-final ACKNACK get a HEARTBEAT so the reader learns the range;
    /// the same request-nothing ACKNACK repeated within a heartbeat period is answered once
    /// (`ReaderProxy::answers_empty_acknack`), so a peer answering every HEARTBEAT cannot
    /// start a loop.
    pub fn handle_acknack(&mut self, now: Now, reader: Guid, ack: &AckNack) {
        self.counters.acknacks_received = self.counters.acknacks_received.saturating_add(1);
        let last = self.history.last_sn();
        let delay = now.mono.saturating_add(self.config.nack_response_delay);
        let (reliable, push_mode) = (self.config.reliable, self.config.push_mode);
        let period = self.heartbeat_interval(now.mono);
        let hold_off = flow::resolicit(self.config.heartbeat_period);
        let plan_next = self.planner.plan_next();
        let Some(key) = self.readers.find(reader) else {
            self.counters.acknacks_ignored = self.counters.acknacks_ignored.saturating_add(1);
            return;
        };
        self.queue
            .invalidate(Input::AckNack(key), &mut self.readers);
        let Some(r) = self.readers.get_mut(key) else {
            return;
        };
        if !reliable || !r.reliable() || !r.accept_acknack_count(ack.count) {
            self.counters.acknacks_ignored = self.counters.acknacks_ignored.saturating_add(1);
            return;
        }
        // In contact: multicasts planned from now on may cover it (`multicast.rs`).
        r.mark_synced(plan_next);
        let set = &ack.reader_sn_state;
        // Pre-emptive form (docs/interop-facts.md §5.8): base 0 acknowledges nothing; treated as
        // base 1.
        let base = set.bitmap_base().max(SequenceNumber::ONE);
        if self.peer_group.is_peer(reader) {
            let asked: Vec<SequenceNumber> = set.iter().collect();
            self.peer_group.on_acknack(reader, base, &asked);
        }
        // Pre-emptive: "I have nothing" before any HEARTBEAT; answered, F or not, but once per
        // heartbeat period while it repeats unchanged. To an empty writer (lastSN 0)
        // ACKNACK(1, {}) also acknowledges everything (RTPS 2.5 §8.4.9.2.8), so a peer that
        // sends it in answer to every HEARTBEAT gets one HEARTBEAT, not one per round trip.
        let preemptive = set.bitmap_base() <= SequenceNumber::ONE && set.is_empty();
        // A NACK for a change repaired moments ago crossed the repair: not answered again.
        let mut missing: Vec<SequenceNumber> = set.iter().collect();
        let dropped = r
            .flow_mut()
            .suppress_duplicates(now.mono, hold_off, &mut missing);
        let dropped = u64::try_from(dropped).unwrap_or(u64::MAX);
        self.counters.nacks_suppressed = self.counters.nacks_suppressed.saturating_add(dropped);
        let first_missing = missing.first().copied();
        let before = r.acked();
        let requested = r.apply_acknack(base, missing.into_iter(), last);
        let acked = r.acked();
        if r.responsiveness.acknowledged(before.0, acked.0) == Change::Recovered {
            let c = &mut self.counters.readers_recovered;
            *c = c.saturating_add(1);
        }
        r.flow_mut().acknowledged(acked, first_missing);
        // A final ACKNACK that lacks later changes gets a HEARTBEAT only if no unsolicited one
        // went out during the last period (else the next one will do): while the writer
        // writes continuously, every ACKNACK lags behind and would otherwise double them.
        // Behind what was pushed to it (push mode; flow control may hold the rest back).
        let pushed = if push_mode {
            last.min(r.next_unsent().checked_sub(1).unwrap_or(SequenceNumber(0)))
        } else {
            last
        };
        let behind = r.acked() < pushed && r.heartbeat_stale(now.mono, period);
        if requested {
            r.schedule_repair(delay);
        } else if behind
            || ((preemptive || !ack.final_flag)
                && r.answers_empty_acknack(now.mono, self.config.heartbeat_period, base, last))
        {
            r.schedule_heartbeat(delay);
        }
        self.collect_garbage();
    }

    /// Handles a NACK_FRAG from `reader`: the listed fragments of `writerSN` are resent after
    /// `nack_response_delay` (a change no longer stored is answered with GAP).
    /// RTPS 2.5 §8.3.7.8, §8.4.9.2 (NackFrag), §8.4.15.7.
    pub fn handle_nack_frag(&mut self, now: Now, reader: Guid, nack: &NackFrag) {
        self.counters.nack_frags_received = self.counters.nack_frags_received.saturating_add(1);
        let last = self.history.last_sn();
        let delay = now.mono.saturating_add(self.config.nack_response_delay);
        let frag_size = self.config.fragment_size;
        let reliable = self.config.reliable;
        let total = self
            .history
            .get(nack.writer_sn)
            .map(|c| fragment_count(c.data.len(), frag_size));
        let Some(key) = self.readers.find(reader) else {
            self.counters.nack_frags_ignored = self.counters.nack_frags_ignored.saturating_add(1);
            return;
        };
        self.queue.invalidate(Input::Rescheduled, &mut self.readers);
        let Some(r) = self.readers.get_mut(key) else {
            return;
        };
        if !reliable
            || !r.reliable()
            || nack.writer_sn > last
            || !r.accept_nack_frag_count(nack.count)
        {
            self.counters.nack_frags_ignored = self.counters.nack_frags_ignored.saturating_add(1);
            return;
        }
        let frags = nack.fragment_number_state.iter();
        let requested = match total {
            Some(n) if n > 1 && nack.writer_sn >= r.start() => {
                r.apply_nack_frag(nack.writer_sn, frags, n)
            }
            // Not stored (→ GAP) or not fragmented (→ DATA): request the whole change.
            _ => r.request(nack.writer_sn, last),
        };
        if requested {
            r.schedule_repair(delay);
        }
    }
}
