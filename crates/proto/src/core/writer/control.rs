//! The writer's per-reader control messages: repairs that are due, the reader's pending lazy
//! GAP and a HEARTBEAT it is owed, sent to that reader alone (INFO_DST), readers served
//! round-robin.
//!
//! Must not: push new changes (`send.rs`), send anything not owed (repairs wait for
//! nack_response_delay and are paced per reader, HEARTBEATs for their schedule), exceed
//! `max_message_size`, or loop without progress. No I/O, no clock.
//!
//! RTPS 2.5 §8.4.9.2.12 (repairs after nackResponseDelay), §8.3.7.4 (GAP), §8.4.7.5 and
//! §8.4.9.2.7 (HEARTBEAT range), §8.7.3.2 (lazy GAPs for filtered changes, the `send.rs`
//! overview (b) and (c)).

use super::Writer;
use super::change_filter::ReaderSlot;
use super::history::WriterHistory;
use super::message::{HEARTBEAT_LEN, MessageBuilder};
use super::push_queue::pushed_alone;
use super::reader_proxy::ReaderProxy;
use super::readers::ReaderKey;
use super::repair::{RepairInputs, count_filtered, fill_repairs, irrelevant_run, succ};
use crate::core::Transmit;
use crate::time::Now;
use crate::wire::SequenceNumber;

impl Writer {
    pub(super) fn poll_control(&mut self, now: Now) -> Option<Transmit> {
        if self.queue.control_idle(now.mono) {
            return None;
        }
        let n = self.readers.len();
        for k in 0..n {
            let i = self.next_reader.wrapping_add(k).checked_rem(n).unwrap_or(0);
            let Some(key) = self.readers.key_at(i) else {
                continue;
            };
            let Some(r) = self.readers.get(key) else {
                continue;
            };
            let repair_due = r.repair_due(now.mono);
            let heartbeat_due = r.heartbeat_due(now.mono);
            if !repair_due && !heartbeat_due {
                continue;
            }
            self.next_reader = i.wrapping_add(1).checked_rem(n).unwrap_or(0);
            if let Some(t) = self.control_message(now, key, repair_due, heartbeat_due) {
                return Some(t);
            }
        }
        // Nothing due: skip the scan until the earliest deadline.
        let next = self.readers.iter().filter_map(ReaderProxy::deadline).min();
        self.queue.control_scanned(next);
        None
    }

    /// Moves the push cursor of reader `key`, if it is pushed to alone, over the changes from
    /// there on that it gets no DATA for, so that a control message can tell them at once
    /// (lazy GAP, (b)/(c) in the `send.rs` overview).
    fn skip_irrelevant(&mut self, key: ReaderKey) {
        let last = self.history.last_sn();
        let (push_mode, reliable_writer) = (self.config.push_mode, self.config.reliable);
        let Some(r) = self.readers.get(key) else {
            return;
        };
        let pushed = push_mode || !(reliable_writer && r.reliable());
        let (next, frag) = r.cursor();
        if !pushed || frag != 1 || next > last || !pushed_alone(&self.config, r) {
            return;
        }
        let reader = self.reader_slot(r);
        let (end, _) = irrelevant_run(&self.history, reader, next, succ(last));
        if let Some(r) = self.readers.get_mut(key) {
            r.skip_to(end);
        }
    }

    /// Appends the pending lazy GAP of `r` (`[from, to)`) and marks it told, with the
    /// requests it answers.
    fn flush_gap(
        history: &WriterHistory,
        r: &mut ReaderProxy,
        reader: ReaderSlot,
        b: &mut MessageBuilder,
        (from, to): (SequenceNumber, SequenceNumber),
    ) {
        let n = count_filtered(history, reader, from, to);
        if b.filter_gap(from, to, n) {
            r.gap_told(from, to);
        }
    }

    /// Repairs and/or a HEARTBEAT for reader `key`, sent to it alone (INFO_DST), preceded by its
    /// pending lazy GAP.
    fn control_message(
        &mut self,
        now: Now,
        key: ReaderKey,
        repair_due: bool,
        heartbeat_due: bool,
    ) -> Option<Transmit> {
        self.skip_irrelevant(key);
        let last = self.history.last_sn();
        let frag_size = self.config.fragment_size;
        let guid = self.readers.get(key)?.guid();
        let reader = self.reader_slot(self.readers.get(key)?);
        let mut b = self.builder(Some(guid), HEARTBEAT_LEN);
        let r = self.readers.get_mut(key)?;
        // (b)/(c): the pending GAP goes first; requests it covers need no other answer.
        if let Some(gap) = r.pending_gap() {
            Self::flush_gap(&self.history, r, reader, &mut b, gap);
        }
        let mut drained = true;
        if repair_due {
            let cx = RepairInputs {
                history: &self.history,
                reader,
                frag_size,
                last,
            };
            drained = fill_repairs(cx, r, &mut b);
            r.flow_mut().repairs_sent_at(now.mono);
            if drained {
                r.repairs_sent();
            } else {
                // Paced per reader: the rest goes a nack_response_delay later, merged with
                // whatever it asks for meanwhile (Cyclone merges retransmits, §11.1).
                let at = now.mono.saturating_add(self.config.nack_response_delay);
                r.defer_repairs(at);
                self.queue.control_scheduled(at);
            }
        }
        let (start, acked, cursor) = (r.start(), r.acked(), r.next_unsent());
        if heartbeat_due || (repair_due && drained) {
            let first = self.history.first_sn().max(start);
            let last = self.announced_last(cursor);
            if self.add_heartbeat(&mut b, first, last, acked >= last) {
                if let Some(r) = self.readers.get_mut(key) {
                    r.heartbeat_sent();
                    if acked < last {
                        r.flow_mut().solicited(now.mono);
                    }
                }
            }
        }
        let r = self.readers.get_mut(key)?;
        if !b.has_content() {
            // invariant: an empty message always has room; never spin on this reader.
            r.heartbeat_sent();
            r.repairs_sent();
            return None;
        }
        let (transmit, sent) = b.finish(r.locators().to_vec());
        self.counters.account(sent, true);
        self.counters
            .count_wire(&transmit.destinations, transmit.len());
        Some(transmit)
    }
}
