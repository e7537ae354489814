//! What the writer sends next: per-reader control messages first (`control.rs`), then
//! pushes of new changes, to one reader alone or shared by readers at the same place.
//!
//! Must not: send anything not owed (heartbeats wait for their schedule; repairs are
//! `control.rs`), exceed `max_message_size`, or loop without progress. No I/O, no clock.
//!
//! RTPS 2.5 §8.4.9.1.4 / §8.4.9.2.4 (pushing unsent changes), §8.4.9.2.7 (HEARTBEAT),
//! §8.3.7.4 (GAP), §8.4.7.5 (HEARTBEAT range), §8.7.3.2-§8.7.4 (content filtering: GAP
//! instead of DATA, ContentFilterInfo on DATA).
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
use super::change_filter::ReaderSlot;
use super::flow;
use super::message::{HEARTBEAT_LEN, MessageBuilder};
use super::push::{Action, Burst, Cursor};
use super::push_queue::{Route, route};
use super::reader_proxy::ReaderProxy;
use super::readers::ReaderKey;
use super::repair::{count_filtered, succ};
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
        if let Some(t) = self.planner.pop_transmit() {
            return Some(t);
        }
        let (config, last) = (&self.config, self.history.last_sn());
        self.queue
            .refresh(&mut self.readers, |r| route(config, last, r));
        while let Some(key) = self.queue.front() {
            match self.push_solo(now, key) {
                // It stays first: its datagram may have been full.
                Push::Sent(t) => return Some(t),
                Push::Advanced => continue,
                Push::Idle => {
                    let (config, last) = (&self.config, self.history.last_sn());
                    self.queue
                        .dequeue_front(&mut self.readers, |r| route(config, last, r));
                }
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

    pub(super) fn builder(&self, dst: Option<crate::wire::Guid>, reserve: usize) -> MessageBuilder {
        let g = self.config.guid;
        MessageBuilder::new(
            g.prefix,
            g.entity_id,
            dst,
            self.config.max_message_size,
            reserve,
            self.config.keyed,
        )
        .with_submessage_overhead(self.config.submessage_overhead)
    }

    /// The lastSN a HEARTBEAT to readers whose push cursors are at `cursor` announces: in
    /// push mode only what was pushed to them, so that a reader held back by its
    /// flow-control window does not NACK, and get as repairs, what the window has not let
    /// through yet (Cyclone's HEARTBEAT likewise announces only what it transmitted,
    /// docs/interop-facts.md §11.1). Pull mode announces everything (the reader asks for it).
    pub(super) fn announced_last(&self, cursor: SequenceNumber) -> SequenceNumber {
        let last = self.history.last_sn();
        if self.config.push_mode {
            last.min(cursor.checked_sub(1).unwrap_or(SequenceNumber(0)))
        } else {
            last
        }
    }

    /// Appends a HEARTBEAT announcing `[first, last]` (`last` at most the writer's highest
    /// SN); consumes a count only if it fits.
    pub(super) fn add_heartbeat(
        &mut self,
        b: &mut MessageBuilder,
        first: SequenceNumber,
        last: SequenceNumber,
        fin: bool,
    ) -> bool {
        let last = last.min(self.history.last_sn());
        // RTPS 2.5 §8.3.7.5: firstSN ≥ 1, lastSN ≥ firstSN − 1 (empty: first = last + 1).
        let first = first.max(SequenceNumber::ONE).min(succ(last));
        let count = self.announced.next_count();
        let group = self.heartbeat_group_info(first, last);
        let ok = b.heartbeat(first, last, count, fin, group);
        if ok {
            self.announced.announced(count, last);
        }
        ok
    }

    /// Marks reader `key` as able to take multicasts from the next change planned on.
    pub(super) fn mark_synced(&mut self, key: ReaderKey) {
        let from = self.planner.plan_next();
        if let Some(r) = self.readers.get_mut(key) {
            r.mark_synced(from);
        }
    }

    /// Plans the changes written since the last call (`Planner::plan`) and records the
    /// coverage it decided in the readers.
    fn plan_changes(&mut self) {
        let covered = self.planner.plan(
            &self.config,
            &self.history,
            &self.readers,
            &mut self.counters,
        );
        for (key, sn) in covered {
            if let Some(r) = self.readers.get_mut(key) {
                r.record_multicast(sn);
            }
        }
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
            .filter(|(_, r)| route(&self.config, last, r) == Some(Route::Shared))
            .map(|(k, r)| (k, r.cursor()))
            .collect();
        let Some(start) = shared.iter().map(|(_, c)| *c).min() else {
            return Push::Idle;
        };
        let members: Vec<ReaderKey> = shared
            .iter()
            .filter(|(_, c)| *c == start)
            .map(|(k, _)| *k)
            .collect();
        // Stop where another sharing reader's cursor is, so that it joins the group from
        // there on (a reader pushed to alone never joins one).
        let stop = shared
            .iter()
            .map(|(_, c)| *c)
            .filter(|c| *c > start)
            .min()
            .unwrap_or((succ(last), 1));
        let burst = self.burst(&members, stop, false);
        self.push_burst(now, &members, start, burst)
    }

    /// Pushes the unsent changes of reader `reader`, pushed to alone (filtered for, owed a
    /// GAP, or listening on a multicast group). RTPS 2.5 §8.4.9.2.4, §8.7.3.2 (GAP when its
    /// filter rejects a change; lazy, see the overview).
    fn push_solo(&mut self, now: Now, reader: ReaderKey) -> Push {
        let last = self.history.last_sn();
        let Some(r) = self.readers.get(reader) else {
            return Push::Idle;
        };
        if route(&self.config, last, r) != Some(Route::Alone) {
            return Push::Idle;
        }
        let start = r.cursor();
        let burst = self.burst(&[reader], (succ(last), 1), true);
        self.push_burst(now, &[reader], start, burst)
    }

    /// What a burst to `members` knows about them (`push.rs`).
    fn burst(&self, members: &[ReaderKey], stop: (SequenceNumber, u32), solo: bool) -> Burst {
        let proxies = || members.iter().filter_map(|&k| self.readers.get(k));
        let dst_slot = match members {
            [only] => self.readers.get(*only).map(|r| self.reader_slot(r)),
            _ => None,
        };
        Burst {
            solo,
            dst_slot,
            any_reliable: self.config.reliable && proxies().any(ReaderProxy::reliable),
            stop,
            last: self.history.last_sn(),
            frag_size: self.config.fragment_size,
        }
    }

    /// Pushes changes from `start` up to the burst's stop to `members` (all at `start`): one
    /// reader alone (INFO_DST, its own filter info, its lazy GAPs) or several sharing one
    /// datagram (readerId ENTITYID_UNKNOWN, sent to the union of their locators). Each step
    /// is [`Burst::next_action`] applied.
    fn push_burst(
        &mut self,
        now: Now,
        members: &[ReaderKey],
        start: (SequenceNumber, u32),
        burst: Burst,
    ) -> Push {
        let Some(&leader) = members.first() else {
            return Push::Idle;
        };
        let dst = match members {
            [only] => self.readers.get(*only).map(ReaderProxy::guid),
            _ => None,
        };
        let reserve = if burst.any_reliable { HEARTBEAT_LEN } else { 0 };
        let mut b = self.builder(dst, reserve);
        // A burst of changes: size the buffer for a full message once.
        if burst.last.0.saturating_sub(start.0.0) > 0 {
            b.reserve_total(self.config.max_message_size);
        }
        let leader_gap = self
            .readers
            .get(leader)
            .map_or(start.0, ReaderProxy::gap_from);
        let gap_from = if burst.solo { leader_gap } else { start.0 };
        let mut at = Cursor {
            sn: start.0,
            frag: start.1,
            gap_from,
        };
        // Changes a multicast delivered to (or told as filtered to) the solo reader.
        let mut delivered = false;
        while burst.in_range(at) {
            let covered = burst.solo
                && self
                    .readers
                    .get(leader)
                    .is_some_and(|r| r.multicast_covered(at.sn));
            let action = burst.next_action(&self.history, at, covered);
            let sends = matches!(
                action,
                Action::Data | Action::DataFrag { .. } | Action::Covered { delivered: true }
            );
            // Flow control (`flow.rs`): a change starts only while every member's window
            // has room; the datagram so far goes out.
            if sends && at.frag == 1 && b.has_content() && !self.windows_open(members) {
                break;
            }
            let sn = at.sn;
            // A capable intermediary may get it abbreviated or defining (`peer_group.rs`).
            let pg = self.peer_group_step(dst, &burst, &mut b, &mut at, action);
            if !pg.unwrap_or_else(|| burst.apply(&self.history, &mut b, &mut at, action)) {
                break;
            }
            if sends && at.sn > sn {
                self.in_flight(members, sn);
            }
            delivered |= action == Action::Covered { delivered: true };
        }
        if !burst.solo {
            at.gap_from = at.sn;
        }
        self.settle_burst(now, members, &burst, b, start, at, delivered)
    }

    /// True when every reliable member's flow-control window has room for another change.
    fn windows_open(&self, members: &[ReaderKey]) -> bool {
        let reliable = self.config.reliable;
        members
            .iter()
            .filter_map(|&k| self.readers.get(k))
            .all(|r| !(reliable && r.reliable()) || r.flow().may_send())
    }

    /// Change `sn` went (whole) to the reliable `members`: it is in flight to them.
    fn in_flight(&mut self, members: &[ReaderKey], sn: SequenceNumber) {
        if !self.config.reliable {
            return;
        }
        let len = self.history.get(sn).map_or(0, |c| c.data.len());
        for &k in members {
            if let Some(r) = self.readers.get_mut(k) {
                if r.reliable() {
                    r.flow_mut().sent(sn, len);
                }
            }
        }
    }

    /// Ends a burst: the filtered tail's GAP and a piggy-backed HEARTBEAT when one is due
    /// (else the backstop), the readers' cursors, and the datagram.
    #[allow(clippy::too_many_arguments)]
    fn settle_burst(
        &mut self,
        now: Now,
        members: &[ReaderKey],
        burst: &Burst,
        mut b: MessageBuilder,
        start: (SequenceNumber, u32),
        mut at: Cursor,
        delivered: bool,
    ) -> Push {
        let period = self.heartbeat_interval(now.mono);
        let resolicit = flow::resolicit(self.config.heartbeat_period);
        let proxies = || members.iter().filter_map(|&k| self.readers.get(k));
        // A member's window half full asks for its acknowledgement now (`flow.rs`), else a
        // HEARTBEAT ends the burst by volume or once per (reader-count scaled) period.
        let ack_wanted = proxies().any(|r| r.reliable() && r.flow().wants_ack(now.mono, resolicit));
        let hb_due = burst.any_reliable
            && b.has_content()
            && (ack_wanted
                || (at.sn > burst.last
                    && (self
                        .announced
                        .by_volume(burst.last, self.config.resource_limits.max_samples)
                        || proxies().any(|r| r.heartbeat_stale(now.mono, period)))));
        if hb_due && at.gap_from < at.sn {
            // The HEARTBEAT announces up to `last`: tell the filtered tail first, so that
            // the reader does not NACK it.
            let reader = burst
                .dst_slot
                .unwrap_or(ReaderSlot::unresolved(self.config.guid));
            let n = count_filtered(&self.history, reader, at.gap_from, at.sn);
            if b.filter_gap(at.gap_from, at.sn, n) {
                at.gap_from = at.sn;
            }
        }
        for &k in members {
            if let Some(r) = self.readers.get_mut(k) {
                r.set_push_cursor(at.sn, at.frag, at.gap_from);
            }
        }
        if hb_due && at.gap_from >= at.sn {
            self.piggyback_heartbeat(now, members, &mut b);
        } else if (at.sn, at.frag) != start && burst.any_reliable {
            self.arm_backstop(now, members, b.has_content() || delivered);
        }
        self.watch_windows(now, members, resolicit);
        if !b.has_content() {
            return Push::Advanced;
        }
        let dest = union_locators(members.iter().filter_map(|&k| self.readers.get(k)));
        let (transmit, sent) = b.finish(dest);
        self.counters.account(sent, false);
        self.counters
            .count_wire(&transmit.destinations, transmit.len());
        Push::Sent(transmit)
    }

    /// RTPS 2.5 §8.4.9.2.7, §8.4.15.1: piggy-backs a HEARTBEAT after the burst, at most one
    /// per reader and heartbeat period; it also answers any HEARTBEAT owed to them.
    fn piggyback_heartbeat(&mut self, now: Now, members: &[ReaderKey], b: &mut MessageBuilder) {
        let first = match members {
            [only] => self
                .readers
                .get(*only)
                .map_or(SequenceNumber::ONE, ReaderProxy::start),
            _ => SequenceNumber::ONE,
        };
        let first = self.history.first_sn().max(first);
        // The members' cursors were just set to where the burst ended.
        let cursor = members
            .iter()
            .filter_map(|&k| self.readers.get(k))
            .map(ReaderProxy::next_unsent)
            .min()
            .unwrap_or(first);
        let last = self.announced_last(cursor);
        if self.add_heartbeat(b, first, last, false) {
            for &k in members {
                if let Some(r) = self.readers.get_mut(k) {
                    r.unsolicited_heartbeat(now.mono, true);
                    r.flow_mut().solicited(now.mono);
                }
            }
        }
    }

    /// A member whose window is full gets a HEARTBEAT of its own if its acknowledgement
    /// does not come within `resolicit` (the request or its answer was lost).
    fn watch_windows(&mut self, now: Now, members: &[ReaderKey], resolicit: core::time::Duration) {
        let at = now.mono.saturating_add(resolicit);
        let mut armed = false;
        for &k in members {
            if let Some(r) = self.readers.get_mut(k) {
                if r.reliable() && !r.flow().may_send() {
                    r.schedule_heartbeat(at);
                    armed = true;
                }
            }
        }
        if armed {
            self.queue.control_scheduled(at);
        }
    }

    /// Changes went out (or were passed over, `sent` false) without a HEARTBEAT: a later push
    /// will likely carry one; if none does, a HEARTBEAT of its own comes after the backstop
    /// (the earliest one armed stands).
    fn arm_backstop(&mut self, now: Now, members: &[ReaderKey], sent: bool) {
        let periods = if sent {
            HEARTBEAT_BACKSTOP_PERIODS
        } else {
            SKIPPED_BACKSTOP_PERIODS
        };
        let backstop = self.heartbeat_interval(now.mono).saturating_mul(periods);
        let at = now.mono.saturating_add(backstop);
        self.queue.control_scheduled(at);
        for &k in members {
            if let Some(r) = self.readers.get_mut(k) {
                if r.reliable() {
                    r.schedule_heartbeat(at);
                }
            }
        }
    }
}
