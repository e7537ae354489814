//! What the writer sends next: per-reader control messages (repairs, GAPs, HEARTBEATs) and
//! pushes of new changes shared by readers at the same place.
//!
//! Must not: send anything not owed (repairs wait for nack_response_delay, heartbeats for
//! their schedule), exceed `max_message_size`, or loop without progress. No I/O, no clock.
//!
//! RTPS 2.5 §8.4.9.1.4 / §8.4.9.2.4 (pushing unsent changes), §8.4.9.2.7 (HEARTBEAT),
//! §8.4.9.2.12 (repairs after nackResponseDelay), §8.3.7.4 (GAP), §8.4.7.5 (HEARTBEAT range),
//! §8.7.3.2-§8.7.4 (content filtering: GAP instead of DATA, ContentFilterInfo on DATA).
//!
//! # Overview
//! A reader the writer filters for is pushed to alone (INFO_DST + its readerId), so that a
//! datagram shared by several readers (readerId ENTITYID_UNKNOWN) only goes to readers that
//! get every DATA in it; unfiltered readers at the same cursor still share datagrams. A DATA
//! for one reader carries only its own filter signature and bit; a shared one the full list.
//! Readers on a multicast group are pushed to alone too: their push passes over the changes
//! a multicast covered for them (`multicast.rs`), flushing a pending GAP first when the
//! change passes them. Which readers have work is kept in a queue (`push_queue.rs`), so a
//! drain visits each reader once per change.
//!
//! Lazy GAPs: the push cursor of a reader pushed to alone passes over the changes its filter
//! rejected (and ones no longer stored) without sending anything; they stay pending in its
//! proxy (`gap_from..next_unsent`) and are told in one GAP range (RTPS 2.5 §8.4.9.2.4 T4 and
//! §8.7.3.2 do not say when) that is
//! (a) prepended to the next DATA datagram for it (INFO_DST, GAP, INFO_TS, DATA), so its
//!     in-order delivery never waits for a GAP,
//! (b) sent with its next HEARTBEAT (a reliable reader then acknowledges without NACKing the
//!     filtered changes first; a reader that never passes anything still acknowledges), or
//! (c) covered by the answer to an ACKNACK asking for them (`repair.rs`).
//! A best-effort reader never gets a GAP alone, only prepended to DATA.
//!
//! Piggy-backed HEARTBEATs: a push to reliable readers carries a HEARTBEAT only when no
//! unsolicited HEARTBEAT went to them for a `heartbeat_period`. A push without one arms a
//! per-reader backstop ([`HEARTBEAT_BACKSTOP_PERIODS`] periods, [`SKIPPED_BACKSTOP_PERIODS`]
//! when it only passed over filtered changes) that a later piggy-backed HEARTBEAT cancels, and the periodic HEARTBEAT skips readers with a backstop armed or a
//! HEARTBEAT during the last period. So a reader gets at most about one HEARTBEAT per period
//! however fast the writer writes, nearly always inside a DATA datagram, each with F = 0 while
//! it has unacknowledged changes (RTPS 2.5 §8.4.7.1 heartbeatPeriod, §8.4.15.1 piggy-backing).
//! Every change pushed is announced by a HEARTBEAT within the backstop, so loss is still
//! detected (later, by up to one more period, when writing is continuous).

use super::Writer;
use super::content_filter::ReaderSlot;
use super::history::WriterHistory;
use super::message::{HEARTBEAT_LEN, MessageBuilder, Sent, fragment_count};
use super::reader_proxy::ReaderProxy;
use super::readers::ReaderKey;
use super::repair::{
    FilterInfo, count_filtered, fill_repairs, filtered_out, info_for, irrelevant_run, succ,
};
use crate::core::Transmit;
use crate::time::Now;
use crate::wire::{Locator, SequenceNumber};

/// Heartbeat periods after a push that sent changes without a HEARTBEAT before the reader
/// gets one of its own (unless a later push carries one first): bounds loss detection.
const HEARTBEAT_BACKSTOP_PERIODS: u32 = 2;

/// The same after a push that only passed over changes the reader's filter rejected: nothing
/// can be lost, only its acknowledgement (history cleanup, `all_acked`) waits, so a sparse
/// reader's next DATA nearly always carries the HEARTBEAT first.
const SKIPPED_BACKSTOP_PERIODS: u32 = 10;

/// The outcome of one push attempt.
enum Push {
    /// A datagram to send.
    Sent(Transmit),
    /// Cursors moved (changes skipped for best-effort readers) but nothing to send yet.
    Advanced,
    /// Nothing left to push.
    Idle,
}

fn union_locators<'a>(readers: impl Iterator<Item = &'a ReaderProxy>) -> Vec<Locator> {
    let mut out: Vec<Locator> = Vec::new();
    for r in readers {
        for l in r.locators() {
            if !out.contains(l) {
                out.push(*l);
            }
        }
    }
    out
}

impl Writer {
    /// The next datagram to send, if any: first repairs and HEARTBEATs that are due (readers
    /// served round-robin), then multicasts of new changes (`multicast.rs`), then pushes of
    /// new changes to readers one at a time (`push_queue.rs`) and to readers sharing
    /// datagrams. Call until `None` after every input.
    pub fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        // An expired change is never sent (GAP instead). DDS 1.4 §2.2.3.16.
        self.expire_lifespan(now);
        if let Some(t) = self.poll_control(now) {
            return Some(t);
        }
        self.plan_changes();
        if let Some(t) = self.outbox.pop_front() {
            return Some(t);
        }
        self.refresh_queue();
        while let Some(key) = self.queue.front() {
            match self.push_solo(now, key) {
                // It stays first: its datagram may have been full.
                Push::Sent(t) => return Some(t),
                Push::Advanced => continue,
                Push::Idle => self.dequeue_front(),
            }
        }
        while self.queue.shared_pending() {
            match self.push_shared(now) {
                Push::Sent(t) => return Some(t),
                Push::Advanced => continue,
                Push::Idle => self.queue.shared_done(),
            }
        }
        self.collect_garbage();
        None
    }

    pub(super) fn account(&mut self, sent: Sent, repair: bool) {
        let c = &mut self.counters;
        if repair {
            c.repairs_sent = c
                .repairs_sent
                .saturating_add(sent.data.saturating_add(sent.data_frag));
        } else {
            c.data_sent = c.data_sent.saturating_add(sent.data);
            c.data_frag_sent = c.data_frag_sent.saturating_add(sent.data_frag);
        }
        c.gaps_sent = c.gaps_sent.saturating_add(sent.gaps);
        c.filter_gaps_sent = c.filter_gaps_sent.saturating_add(sent.filter_gaps);
        c.samples_filtered = c.samples_filtered.saturating_add(sent.filtered);
        c.heartbeats_sent = c.heartbeats_sent.saturating_add(sent.heartbeats);
        c.datagrams_sent = c.datagrams_sent.saturating_add(1);
    }

    fn builder(&self, dst: Option<crate::wire::Guid>, reserve: usize) -> MessageBuilder {
        let g = self.config.guid;
        MessageBuilder::new(
            g.prefix,
            g.entity_id,
            dst,
            self.config.max_message_size,
            reserve,
            self.config.keyed,
        )
    }

    /// Appends a HEARTBEAT announcing `[first, last]`; consumes a count only if it fits.
    fn add_heartbeat(&mut self, b: &mut MessageBuilder, first: SequenceNumber, fin: bool) -> bool {
        let last = self.history.last_sn();
        // RTPS 2.5 §8.3.7.5: firstSN ≥ 1, lastSN ≥ firstSN − 1 (empty: first = last + 1).
        let first = first.max(SequenceNumber::ONE).min(succ(last));
        let count = self.heartbeat_count.wrapping_add(1);
        let ok = b.heartbeat(first, last, count, fin);
        if ok {
            self.heartbeat_count = count;
            self.heartbeat_last_sn = last;
            self.unannounced_bytes = 0;
        }
        ok
    }

    /// True when reader `r` is pushed to alone: it is filtered for, it has a pending GAP
    /// (its filter was just removed) that must come before anything shared, or it listens on
    /// a multicast group (its pushes pass over the changes a multicast covered for it).
    pub(super) fn pushed_alone(&self, r: &ReaderProxy) -> bool {
        r.pending_gap().is_some() || self.is_filtered(r) || self.multicast_listener(r)
    }

    fn poll_control(&mut self, now: Now) -> Option<Transmit> {
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
            if let Some(t) = self.control_message(key, repair_due, heartbeat_due) {
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
    /// (lazy GAP, (b)/(c) in the overview).
    fn skip_irrelevant(&mut self, key: ReaderKey) {
        let last = self.history.last_sn();
        let (push_mode, reliable_writer) = (self.config.push_mode, self.config.reliable);
        let Some(r) = self.readers.get(key) else {
            return;
        };
        let pushed = push_mode || !(reliable_writer && r.reliable());
        if !pushed || r.next_frag != 1 || r.next_unsent > last || !self.pushed_alone(r) {
            return;
        }
        let reader = self.reader_slot(r);
        let (end, _) = irrelevant_run(&self.history, reader, r.next_unsent, succ(last));
        if let Some(r) = self.readers.get_mut(key) {
            r.next_unsent = r.next_unsent.max(end);
        }
    }

    /// Appends the pending lazy GAP of `r` (`[gap_from, upto)`) and marks it told.
    fn flush_gap(
        history: &WriterHistory,
        r: &mut ReaderProxy,
        reader: ReaderSlot,
        b: &mut MessageBuilder,
        upto: SequenceNumber,
    ) -> bool {
        if r.gap_from >= upto {
            return true;
        }
        let n = count_filtered(history, reader, r.gap_from, upto);
        if !b.filter_gap(r.gap_from, upto, n) {
            return false;
        }
        r.gap_from = upto;
        true
    }

    /// Repairs and/or a HEARTBEAT for reader `key`, sent to it alone (INFO_DST), preceded by its
    /// pending lazy GAP.
    fn control_message(
        &mut self,
        key: ReaderKey,
        repair_due: bool,
        heartbeat_due: bool,
    ) -> Option<Transmit> {
        self.skip_irrelevant(key);
        let last = self.history.last_sn();
        let frag_size = self.config.fragment_size;
        let guid = self.readers.get(key)?.remote.guid;
        let reader = self.reader_slot(self.readers.get(key)?);
        let mut b = self.builder(Some(guid), HEARTBEAT_LEN);
        let r = self.readers.get_mut(key)?;
        // (b)/(c): the pending GAP goes first; requests it covers need no other answer.
        if let Some((from, to)) = r.pending_gap() {
            if Self::flush_gap(&self.history, r, reader, &mut b, to) {
                r.requested.retain(|sn| *sn < from || *sn >= to);
            }
        }
        let mut drained = true;
        if repair_due {
            drained = fill_repairs(&self.history, r, reader, &mut b, frag_size, last);
            if drained {
                r.repairs_sent();
            }
        }
        let (start, acked) = (r.start, r.acked);
        if heartbeat_due || (repair_due && drained) {
            let first = self.history.first_sn().max(start);
            if self.add_heartbeat(&mut b, first, acked >= last) {
                if let Some(r) = self.readers.get_mut(key) {
                    r.heartbeat_sent();
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
        self.account(sent, true);
        self.counters
            .count_wire(&transmit.destinations, transmit.len());
        Some(transmit)
    }

    /// Pushes the lowest unsent changes to every reader sharing datagrams whose cursor is
    /// exactly there. RTPS 2.5 §8.4.9.2.4 (T4: unsent change → DATA, or GAP when no longer
    /// available).
    fn push_shared(&mut self, now: Now) -> Push {
        let last = self.history.last_sn();
        // The sharing readers and their cursors, in match order.
        let shared: Vec<(ReaderKey, (SequenceNumber, u32))> = self
            .readers
            .entries()
            .filter(|(_, r)| self.push_eligible(r) && !self.pushed_alone(r))
            .map(|(k, r)| (k, (r.next_unsent, r.next_frag)))
            .collect();
        let Some(key) = shared.iter().map(|(_, c)| *c).min() else {
            return Push::Idle;
        };
        let member_idx: Vec<ReaderKey> = shared
            .iter()
            .filter(|(_, c)| *c == key)
            .map(|(k, _)| *k)
            .collect();
        // Stop where another sharing reader's cursor is, so that it joins the group from
        // there on (a reader pushed to alone never joins one).
        let stop = shared
            .iter()
            .map(|(_, c)| *c)
            .filter(|c| *c > key)
            .min()
            .unwrap_or((succ(last), 1));
        self.push_members(now, &member_idx, key, stop, false)
    }

    /// Pushes the unsent changes of reader `reader`, pushed to alone (filtered for, owed a GAP, or
    /// listening on a multicast group). RTPS 2.5 §8.4.9.2.4, §8.7.3.2 (GAP when its filter
    /// rejects a change; lazy, see the overview).
    fn push_solo(&mut self, now: Now, reader: ReaderKey) -> Push {
        let last = self.history.last_sn();
        let Some(r) = self.readers.get(reader) else {
            return Push::Idle;
        };
        if !self.push_eligible(r) || !self.pushed_alone(r) {
            return Push::Idle;
        }
        let key = (r.next_unsent, r.next_frag);
        self.push_members(now, &[reader], key, (succ(last), 1), true)
    }

    /// Pushes changes from `key` up to `stop` (exclusive) to `member_idx` (all at `key`): one
    /// reader alone (`solo`: INFO_DST, its own filter info, its lazy GAPs) or several sharing
    /// one datagram (readerId ENTITYID_UNKNOWN, sent to the union of their locators).
    fn push_members(
        &mut self,
        now: Now,
        member_idx: &[ReaderKey],
        key: (SequenceNumber, u32),
        stop: (SequenceNumber, u32),
        solo: bool,
    ) -> Push {
        let last = self.history.last_sn();
        let reliable_writer = self.config.reliable;
        let frag_size = self.config.fragment_size;
        let Some(&leader) = member_idx.first() else {
            return Push::Idle;
        };
        let members = || member_idx.iter().filter_map(|&k| self.readers.get(k));
        let any_reliable = reliable_writer && members().any(ReaderProxy::reliable);
        let dst = match member_idx {
            [only] => self.readers.get(*only).map(|r| r.remote.guid),
            _ => None,
        };
        let dst_slot = match member_idx {
            [only] => self.readers.get(*only).map(|r| self.reader_slot(r)),
            _ => None,
        };
        let dest = union_locators(members());
        let mut b = self.builder(dst, if any_reliable { HEARTBEAT_LEN } else { 0 });
        // A burst of changes: size the buffer for a full message once.
        let pending = last.0.saturating_sub(key.0.0);
        if pending > 0 {
            b.reserve_total(self.config.max_message_size);
        }
        // The solo reader's pending lazy GAP start (for a group: nothing pending).
        let mut gap_from = match solo {
            true => self.readers.get(leader).map_or(key.0, |r| r.gap_from),
            false => key.0,
        };
        let (mut sn, mut frag) = key;
        // Changes a multicast delivered to (or told as filtered to) the solo reader.
        let mut multicast_delivered = false;
        while sn <= last && (sn, frag) < stop {
            let rejected = dst_slot.filter(|g| filtered_out(&self.history, sn, *g));
            let change = self.history.get(sn);
            let covered = solo
                && frag == 1
                && change.is_some()
                && self
                    .readers
                    .get(leader)
                    .is_some_and(|r| self.multicast_covers(r, sn));
            if change.is_some() && rejected.is_none() && solo && gap_from < sn {
                // (a) the pending GAP rides in front of the next DATA for this reader.
                let n = dst_slot.map_or(0, |g| count_filtered(&self.history, g, gap_from, sn));
                if !b.filter_gap(gap_from, sn, n) {
                    break;
                }
                gap_from = sn;
            }
            match (change, rejected) {
                (Some(_), Some(_)) if covered && gap_from == sn => {
                    // The multicast's filter info told it this change is filtered: nothing
                    // pending, so no GAP is owed for it. RTPS 2.5 §8.7.3.2-§8.7.3.4.
                    (sn, frag) = (succ(sn), 1);
                    gap_from = sn;
                }
                (Some(_), None) if covered => {
                    // Delivered by the multicast (its pending GAP went in front, above).
                    (sn, frag) = (succ(sn), 1);
                    gap_from = sn;
                    multicast_delivered = true;
                }
                (Some(_), Some(reader)) => {
                    // Its filter rejects the change: pass over the whole run of rejected (or
                    // replaced) changes; the GAP is lazy. RTPS 2.5 §8.7.3.2.
                    let limit = stop.0.min(succ(last));
                    let (end, _) = irrelevant_run(&self.history, reader, sn, limit);
                    (sn, frag) = (end.max(succ(sn)), 1);
                }
                (Some(c), None) if c.data.len() > frag_size => {
                    let total = fragment_count(c.data.len(), frag_size);
                    let cfi = info_for(&self.history, sn, dst_slot);
                    let cfi = cfi.as_ref().map(FilterInfo::bytes);
                    if frag <= total && !b.data_frag(c, cfi, frag, frag_size) && b.has_content() {
                        break;
                    }
                    frag = frag.saturating_add(1);
                    if frag > total {
                        (sn, frag) = (succ(sn), 1);
                    }
                    gap_from = gap_from.max(sn);
                }
                (Some(c), None) => {
                    let cfi = info_for(&self.history, sn, dst_slot);
                    let cfi = cfi.as_ref().map(FilterInfo::bytes);
                    if !b.data(c, cfi) && b.has_content() {
                        break;
                    }
                    (sn, frag) = (succ(sn), 1);
                    gap_from = sn;
                }
                (None, _) => {
                    // Replaced (KEEP_LAST) before it was sent: reliable readers get a GAP (a
                    // reader pushed to alone lazily, with its filtered changes).
                    let next = self
                        .history
                        .next_stored_from(sn)
                        .unwrap_or_else(|| succ(last));
                    let end = next.min(stop.0).max(succ(sn));
                    if !solo && any_reliable && !b.gap(sn, end) && b.has_content() {
                        break;
                    }
                    (sn, frag) = (end, 1);
                }
            }
        }
        if !solo {
            gap_from = sn;
        }
        let hb_due = any_reliable
            && sn > last
            && b.has_content()
            && (self.heartbeat_by_volume()
                || members().any(|r| r.heartbeat_stale(now.mono, self.config.heartbeat_period)));
        if hb_due && gap_from < sn {
            // The HEARTBEAT announces up to `last`: tell the filtered tail first, so that
            // the reader does not NACK it.
            let reader = dst_slot.unwrap_or(ReaderSlot::unresolved(self.config.guid));
            let n = count_filtered(&self.history, reader, gap_from, sn);
            if b.filter_gap(gap_from, sn, n) {
                gap_from = sn;
            }
        }
        let advanced = (sn, frag) != key;
        for &k in member_idx {
            if let Some(r) = self.readers.get_mut(k) {
                (r.next_unsent, r.next_frag, r.gap_from) = (sn, frag, gap_from.min(sn));
            }
        }
        if hb_due && gap_from >= sn {
            // RTPS 2.5 §8.4.9.2.7, §8.4.15.1: piggy-back a HEARTBEAT after the burst, at most
            // one per reader and heartbeat period.
            let first = match dst {
                Some(g) => self
                    .readers
                    .iter()
                    .find(|r| r.remote.guid == g)
                    .map_or(SequenceNumber::ONE, |r| r.start),
                None => SequenceNumber::ONE,
            };
            let first = self.history.first_sn().max(first);
            if self.add_heartbeat(&mut b, first, false) {
                for &k in member_idx {
                    if let Some(r) = self.readers.get_mut(k) {
                        r.last_heartbeat = Some(now.mono);
                        // It also answers any HEARTBEAT owed to them.
                        r.heartbeat_sent();
                    }
                }
            }
        } else if advanced && any_reliable {
            // Changes went out (or were passed over) without a HEARTBEAT: a later push will
            // likely carry one; if none does, a HEARTBEAT of its own comes after the backstop
            // (the earliest one armed stands).
            let periods = if b.has_content() || multicast_delivered {
                HEARTBEAT_BACKSTOP_PERIODS
            } else {
                SKIPPED_BACKSTOP_PERIODS
            };
            let backstop = self.config.heartbeat_period.saturating_mul(periods);
            let at = now.mono.saturating_add(backstop);
            self.queue.control_scheduled(at);
            for &k in member_idx {
                if let Some(r) = self.readers.get_mut(k) {
                    if r.reliable() {
                        r.schedule_heartbeat(at);
                    }
                }
            }
        }
        if !b.has_content() {
            return Push::Advanced;
        }
        let (transmit, sent) = b.finish(dest);
        self.account(sent, false);
        self.counters
            .count_wire(&transmit.destinations, transmit.len());
        Push::Sent(transmit)
    }
}
