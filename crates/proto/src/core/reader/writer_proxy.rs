//! The reader's state for one matched remote writer: which sequence numbers it has, which
//! are missing or irrelevant, fragment reassembly, heartbeat tracking and the ACKNACK /
//! NACK_FRAG it owes. Delivery to the reader (the [`Slot`] a buffered SN holds, the [`Sink`]
//! in-order changes go to) is `writer_proxy/delivery.rs`.
//!
//! Must not: read clocks (deadlines are computed from the `now` passed in), buffer without
//! bound (out-of-order changes are kept only inside a window above the first missing SN), or
//! trust any count, SN or range from the writer.
//!
//! RTPS 2.5 §8.4.10.4 (WriterProxy: changes_from_writer, available_changes_max,
//! irrelevant_change_set, lost_changes_update, missing_changes_update), §8.4.12 (reliable
//! StatefulReader behaviour), §8.4.11 (best-effort), §8.4.15.7 (heartbeat count).
//!
//! # Overview
//! `next_expected` is the first SN not yet delivered or skipped; everything below it is done.
//! `buffered` holds received or irrelevant SNs above it, at most `window` SNs ahead and at most
//! `byte_budget` payload octets; anything further is dropped and re-requested later by
//! ACKNACK. A reliable proxy delivers strictly in order and stalls when the delivery queue is
//! full (KEEP_ALL flow control: the SN is then not acknowledged, so the writer keeps it). A
//! best-effort proxy delivers anything newer than the last delivered SN and counts the jump as
//! lost samples.

use std::collections::BTreeMap;

use super::ReaderCounters;
use super::coherent::CoherentSets;
use super::reassembly::Reassembly;
use crate::cdr::Endianness;
use crate::core::{RemoteWriter, Transmit};
use crate::time::Instant;
use crate::wire::submessage::{
    AckNack, Gap, Heartbeat, HeartbeatFrag, InfoDst, NackFrag, Submessage,
};
use crate::wire::{Guid, Header, MAX_SET_BITS, SequenceNumber, SequenceNumberSet, emit_message};
pub(super) use delivery::{Sink, Slot};
use delivery::{hand_over, hand_over_loss, slot_fits};

mod delivery;

/// How often a pre-emptive ACKNACK is repeated until the writer's first HEARTBEAT arrives
/// (as Cyclone does): the writer may not know us yet. RTPS 2.5 §8.4.2.3.4.
pub const PREEMPTIVE_ACKNACK_PERIOD: core::time::Duration = core::time::Duration::from_secs(1);

/// Payload octets a writer may park out of order before changes are dropped (raised to
/// `max_sample_size` so one maximal sample always fits). docs/conventions.md §4: bounded
/// allocation.
pub const MAX_OUT_OF_ORDER_BYTES: usize = 64 * 1024 * 1024;

/// `b - a` as a count (0 when `b ≤ a`).
fn span(a: SequenceNumber, b: SequenceNumber) -> u64 {
    u64::try_from(b.0.saturating_sub(a.0)).unwrap_or(0)
}

/// How far behind the last accepted count a HEARTBEAT count may be and still be a stale
/// copy of the writer's own: a writer sends a few HEARTBEATs a second, so a copy delayed on
/// another path (multicast and unicast) is a handful behind, never this many.
const MAX_STALE_COUNT: i32 = 1 << 16;

/// True if a HEARTBEAT with `count` is taken after `last` (serial-number comparison, so
/// wrap-around is fine). RTPS 2.5 §8.4.15.7: a reader ignores heartbeats whose count is not
/// greater than the last. A count more than [`MAX_STALE_COUNT`] behind is taken too: the last
/// one jumped where the writer's own counting cannot have gone (a forged HEARTBEAT with a count
/// of 2^30 would otherwise silence the writer's real HEARTBEATs for 2^30 periods, so losses
/// would never be repaired again).
fn is_newer(count: i32, last: Option<i32>) -> bool {
    last.is_none_or(|l| {
        let d = count.wrapping_sub(l);
        d > 0 || d < MAX_STALE_COUNT.wrapping_neg()
    })
}

/// The first SN ≥ `from` that `gap` does not make irrelevant. RTPS 2.5 §8.3.7.4.
fn first_not_in(gap: &Gap, from: SequenceNumber) -> SequenceNumber {
    let mut sn = from;
    if gap.gap_start <= sn && sn < gap.gap_list.bitmap_base() {
        sn = gap.gap_list.bitmap_base();
    }
    // At most numBits (≤ 256) further members.
    while gap.gap_list.contains(sn) {
        match sn.checked_add(1) {
            Some(n) => sn = n,
            None => break,
        }
    }
    sn
}

/// State for one matched writer.
#[derive(Debug)]
pub(super) struct WriterProxy {
    /// Discovery data (locators, reliability).
    pub remote: RemoteWriter,
    /// Reliable protocol (both sides reliable); otherwise best-effort. RTPS 2.5 §8.4.10.
    reliable: bool,
    /// First SN not yet delivered or skipped.
    next_expected: SequenceNumber,
    /// Highest SN known to exist: the lastSN of the latest HEARTBEAT (a claim, replaced by the
    /// next one rather than kept as a maximum) or the highest SN sent. RTPS 2.5 §8.4.10.4.
    available_max: SequenceNumber,
    /// Highest SN the writer has shown us it reached: a DATA or DATA_FRAG received (wanted or
    /// not), or the lastSN of its first HEARTBEAT. What a HEARTBEAT or GAP may make us give up
    /// is bounded by it ([`WriterProxy::skip_limit`], [`WriterProxy::horizon`]).
    sent_max: SequenceNumber,
    /// The contiguous range `[gapStart, gapList.bitmapBase)` of the last GAP that reached
    /// beyond `sent_max`: taken whole once a DATA at or past its end arrives (a real writer
    /// sends `GAP(filtered run) DATA(next)`; a forged range is never corroborated).
    pending_gap: Option<(SequenceNumber, SequenceNumber)>,
    /// Received or irrelevant SNs in `[next_expected, next_expected + window)`.
    buffered: BTreeMap<SequenceNumber, Slot>,
    window: i64,
    /// Payload octets in `buffered`, and their bound.
    buffered_bytes: usize,
    byte_budget: usize,
    /// Samples being reassembled from DATA_FRAGs.
    pub reassembly: Reassembly,
    last_heartbeat_count: Option<i32>,
    last_heartbeat_frag_count: Option<i32>,
    heard_heartbeat: bool,
    /// When the next ACKNACK is due.
    ack_deadline: Option<Instant>,
    acknack_count: i32,
    nackfrag_count: i32,
    /// In-order delivery stopped because the delivery queue is full.
    stalled: bool,
    /// Coherent-set assembly between in-order delivery and the sink (RTPS 2.5 §8.7.5).
    coherent: CoherentSets,
    /// Skip what the writer had written before its first HEARTBEAT to us
    /// (`ReaderConfig::start_at_match`).
    pub start_at_match: bool,
    /// The lowest SN of its DATA that reached us before it matched
    /// (`Reader::note_unmatched_data`): with `start_at_match`, we start there at the latest.
    pub early_from: Option<SequenceNumber>,
}

impl WriterProxy {
    /// The writer's coherent-set assembly (`group.rs` collects group parts from it).
    pub(super) fn coherent_mut(&mut self) -> &mut CoherentSets {
        &mut self.coherent
    }

    /// The highest SN known to exist: the latest HEARTBEAT's lastSN or the highest SN sent.
    /// RTPS 2.5 §8.4.10.4.4 (missing_changes_update).
    pub(super) fn available_max(&self) -> SequenceNumber {
        self.available_max
    }

    /// A proxy for a newly matched writer. A reliable proxy owes a pre-emptive ACKNACK at
    /// once so the writer learns about us (RTPS 2.5 §8.4.2.3.4; Cyclone/Fast DDS do the same).
    pub(super) fn new(
        remote: RemoteWriter,
        reader_reliable: bool,
        window: usize,
        byte_budget: usize,
        now: Instant,
        coherent_access: bool,
    ) -> Self {
        let reliable = reader_reliable && remote.reliable;
        WriterProxy {
            remote,
            reliable,
            next_expected: SequenceNumber::ONE,
            available_max: SequenceNumber(0),
            sent_max: SequenceNumber(0),
            pending_gap: None,
            buffered: BTreeMap::new(),
            window: i64::try_from(window.max(1)).unwrap_or(i64::MAX),
            buffered_bytes: 0,
            byte_budget,
            reassembly: Reassembly::default(),
            last_heartbeat_count: None,
            last_heartbeat_frag_count: None,
            heard_heartbeat: false,
            ack_deadline: reliable.then_some(now),
            acknack_count: 0,
            nackfrag_count: 0,
            stalled: false,
            coherent: CoherentSets::new(coherent_access),
            start_at_match: false,
            early_from: None,
        }
    }

    /// Stalled on a full delivery queue.
    pub(super) fn is_stalled(&self) -> bool {
        self.stalled
    }

    /// When an ACKNACK is due, if one is.
    pub(super) fn ack_deadline(&self) -> Option<Instant> {
        self.ack_deadline
    }

    fn schedule_ack(&mut self, at: Instant) {
        self.ack_deadline = Some(self.ack_deadline.map_or(at, |d| d.min(at)));
    }

    /// A DATA or DATA_FRAG with this SN arrived from the writer: it has reached `sn`. Called
    /// before the change is looked at, so that a pending GAP it corroborates is taken first.
    pub(super) fn note_sent(&mut self, sn: SequenceNumber, sink: &mut Sink<'_>) {
        self.sent_max = self.sent_max.max(sn);
        if let Some((start, end)) = self.pending_gap {
            if sn >= end {
                self.pending_gap = None;
                self.skip_contiguous(start, end, sink);
            }
        }
    }

    /// The first SN a HEARTBEAT's firstSN or a GAP's contiguous range may move
    /// `next_expected` to: one past the highest SN the writer has shown us. A range beyond it
    /// names SNs the writer has not sent (as far as we can tell); taking it would make us
    /// drop every change the real writer sends below it, which is what one forged
    /// `HEARTBEAT(firstSN = lastSN = 10,000,000)` or `GAP(1..10,000,000)` does to Cyclone DDS
    /// 0.10 (`handle_Heartbeat` treats `[1, firstSN)` as a gap unconditionally) and Fast DDS 2.9
    /// (`WriterProxy::process_heartbeat` calls `lost_changes_update(first_seq)`); see
    /// `docs/interop-facts.md` §10.2. A real writer whose history moved on past what we saw
    /// answers our next ACKNACK with a GAP, which the cut-back range lets through as DATA
    /// arrive; RTPS 2.5 §8.4.10.4.3 (lost_changes_update) assumes a trusted writer.
    fn skip_limit(&self) -> SequenceNumber {
        self.sent_max.checked_add(1).unwrap_or(self.sent_max)
    }

    /// The highest SN a HEARTBEAT's lastSN may claim: one out-of-order window beyond
    /// `sent_max`, so a forged claim makes the reader ask for at most that many SNs until the
    /// writer's next HEARTBEAT replaces it.
    fn horizon(&self) -> SequenceNumber {
        self.sent_max
            .checked_add(self.window)
            .unwrap_or(self.sent_max)
    }

    fn in_window(&self, sn: SequenceNumber) -> bool {
        sn >= self.next_expected && sn.0.saturating_sub(self.next_expected.0) < self.window
    }

    /// Whether a change with this SN is still wanted (not a duplicate, not beyond the window),
    /// checked before reassembling or copying anything.
    pub(super) fn wants(&self, sn: SequenceNumber) -> bool {
        if self.reliable {
            self.in_window(sn) && !self.buffered.contains_key(&sn)
        } else {
            sn >= self.next_expected
        }
    }

    /// A received change (or an irrelevant SN). RTPS 2.5 §8.4.12.2 (reliable: store, deliver
    /// in order) and §8.4.11.2 (best-effort: deliver if newer, count the skipped SNs as lost).
    pub(super) fn receive(&mut self, sn: SequenceNumber, slot: Slot, sink: &mut Sink<'_>) {
        self.reassembly.remove(sn);
        if sn < self.next_expected || (self.reliable && self.buffered.contains_key(&sn)) {
            sink.counters.duplicates = sink.counters.duplicates.saturating_add(1);
            return;
        }
        if !self.reliable {
            let lost = span(self.next_expected, sn);
            sink.counters.samples_lost = sink.counters.samples_lost.saturating_add(lost);
            self.next_expected = sn.checked_add(1).unwrap_or(sn);
            self.reassembly.drop_below(self.next_expected);
            if lost > 0 {
                hand_over_loss(&mut self.coherent, sink);
            }
            hand_over(&mut self.coherent, sn, slot, sink);
            return;
        }
        if !self.in_window(sn) {
            // Beyond the out-of-order window: drop now, the ACKNACK will ask again later.
            sink.counters.out_of_window = sink.counters.out_of_window.saturating_add(1);
            return;
        }
        let len = slot.len();
        if sn != self.next_expected && self.buffered_bytes.saturating_add(len) > self.byte_budget {
            // Over the byte budget: same as beyond the window (the next in-order SN is always
            // taken, so progress is never blocked by the budget).
            sink.counters.out_of_window = sink.counters.out_of_window.saturating_add(1);
            return;
        }
        self.available_max = self.available_max.max(sn);
        if sn == self.next_expected && self.buffered.is_empty() && slot_fits(&slot, sink.queue) {
            // The usual case: in order with nothing parked, so it is delivered without passing
            // through `buffered` (what `pump` would do after inserting it).
            // No `reassembly.drop_below`: partial samples are only started for wanted SNs
            // (≥ next_expected) and every move of next_expected drops those below it, so after
            // `remove(sn)` above none is ≤ sn.
            hand_over(&mut self.coherent, sn, slot, sink);
            self.stalled = false;
            self.next_expected = sn.checked_add(1).unwrap_or(sn);
            return;
        }
        self.buffered_bytes = self.buffered_bytes.saturating_add(len);
        self.buffered.insert(sn, slot);
        self.pump(sink);
    }

    /// Delivers buffered changes from `next_expected` on, stopping at the first hole or when
    /// the delivery queue is full.
    pub(super) fn pump(&mut self, sink: &mut Sink<'_>) {
        self.stalled = false;
        while let Some(entry) = self.buffered.first_entry() {
            if *entry.key() != self.next_expected {
                break;
            }
            if !slot_fits(entry.get(), sink.queue) {
                self.stalled = true;
                break;
            }
            let sn = *entry.key();
            let slot = entry.remove();
            self.buffered_bytes = self.buffered_bytes.saturating_sub(slot.len());
            hand_over(&mut self.coherent, sn, slot, sink);
            match self.next_expected.checked_add(1) {
                Some(n) => self.next_expected = n,
                None => break,
            }
        }
        self.reassembly.drop_below(self.next_expected);
    }

    /// Moves `next_expected` to `target`: buffered changes below it are delivered (even past
    /// a full queue, where they count as rejected) and the unreceived ones are skipped.
    fn advance_to(&mut self, target: SequenceNumber, sink: &mut Sink<'_>) -> u64 {
        if target <= self.next_expected {
            return 0;
        }
        let above = self.buffered.split_off(&target);
        let below = core::mem::replace(&mut self.buffered, above);
        let skipped = span(self.next_expected, target)
            .saturating_sub(u64::try_from(below.len()).unwrap_or(u64::MAX));
        // An SN below `target` that is not buffered is lost: the coherent set open at that
        // point cannot be complete.
        let mut expect = self.next_expected;
        for (sn, slot) in below {
            if sn != expect {
                hand_over_loss(&mut self.coherent, sink);
            }
            self.buffered_bytes = self.buffered_bytes.saturating_sub(slot.len());
            hand_over(&mut self.coherent, sn, slot, sink);
            expect = sn.checked_add(1).unwrap_or(sn);
        }
        if expect != target {
            hand_over_loss(&mut self.coherent, sink);
        }
        self.next_expected = target;
        self.reassembly.drop_below(target);
        self.pump(sink);
        skipped
    }

    fn mark_irrelevant(&mut self, sn: SequenceNumber) {
        if self.in_window(sn) {
            self.reassembly.remove(sn);
            self.buffered.entry(sn).or_insert(Slot::Irrelevant);
        }
    }

    /// GAP: the listed SNs not already received are irrelevant. RTPS 2.5 §8.3.7.4.5 and
    /// §8.4.10.4 (irrelevant_change_set).
    ///
    /// A GAP may only name SNs the writer has shown to exist before it: sent to us, or
    /// announced by a HEARTBEAT's lastSN (a real writer announces what it filters out for us,
    /// HEARTBEAT(1, 4) GAP(3..5), or leads up to the DATA it sends next, GAP(3..5) DATA(5),
    /// taken when that DATA arrives, `pending_gap`). SNs beyond that are not marked: if they
    /// later arrive as DATA they are delivered, so one forged GAP(1..10,000,000) costs at most
    /// the SNs the writer had shown and we still lacked, never the stream after it. A real
    /// writer whose GAP ran ahead of both repeats it when our ACKNACK asks for the SNs.
    pub(super) fn handle_gap(&mut self, gap: &Gap, sink: &mut Sink<'_>) {
        let base = gap.gap_list.bitmap_base();
        // One past the highest SN this GAP may mark irrelevant.
        let shown = self.available_max.max(self.sent_max);
        let reach = shown.checked_add(1).unwrap_or(shown);
        if base > reach || gap.gap_list.iter().any(|sn| sn >= reach) {
            sink.counters.ranges_clamped = sink.counters.ranges_clamped.saturating_add(1);
        }
        if base > self.skip_limit() {
            self.pending_gap = Some((gap.gap_start, base));
        }
        if !self.reliable {
            // Best effort keeps no buffer: only a gap at the front matters.
            let stop = first_not_in(gap, self.next_expected).min(self.skip_limit());
            if stop > self.next_expected {
                self.coherent.irrelevant(self.next_expected);
            }
            self.next_expected = self.next_expected.max(stop);
            self.reassembly.drop_below(self.next_expected);
            return;
        }
        self.skip_contiguous(gap.gap_start, base, sink);
        // What remains of the contiguous range and the listed members, inside the window and
        // at most up to the horizon.
        let lo = gap.gap_start.max(self.next_expected);
        let hi = base
            .min(self.next_expected.checked_add(self.window).unwrap_or(base))
            .min(reach);
        let mut sn = lo;
        while sn < hi {
            self.mark_irrelevant(sn);
            match sn.checked_add(1) {
                Some(n) => sn = n,
                None => break,
            }
        }
        for sn in gap.gap_list.iter().filter(|sn| *sn < reach) {
            self.mark_irrelevant(sn);
        }
        self.pump(sink);
        self.skip_contiguous(gap.gap_start, base, sink);
    }

    /// Jumps over `[start, end)` in one step when it covers `next_expected` and holds no
    /// buffered change (so a GAP of a million SNs costs nothing).
    fn skip_contiguous(&mut self, start: SequenceNumber, end: SequenceNumber, sink: &mut Sink<'_>) {
        let end = end.min(self.skip_limit());
        let ne = self.next_expected;
        if start <= ne && ne < end && self.buffered.range(ne..end).next().is_none() {
            self.coherent.irrelevant(ne);
            self.next_expected = end;
            self.reassembly.drop_below(end);
            self.pump(sink);
        }
    }

    /// The highest SN received or skipped (delivered, buffered or irrelevant).
    fn received_max(&self) -> SequenceNumber {
        let done = self
            .next_expected
            .checked_sub(1)
            .unwrap_or(SequenceNumber(0));
        self.buffered
            .keys()
            .next_back()
            .map_or(done, |sn| done.max(*sn))
    }

    /// True if some SN up to `available_max` is neither received nor irrelevant.
    fn has_missing(&self) -> bool {
        let expected = span(self.next_expected, self.available_max).saturating_add(1);
        if self.available_max < self.next_expected {
            return false;
        }
        let have = self
            .buffered
            .range(self.next_expected..=self.available_max)
            .count();
        u64::try_from(have).unwrap_or(u64::MAX) < expected
    }

    /// HEARTBEAT from this writer. Returns false if ignored (best-effort or stale count).
    pub(super) fn handle_heartbeat(
        &mut self,
        now: Instant,
        delay: core::time::Duration,
        hb: &Heartbeat,
        sink: &mut Sink<'_>,
    ) -> bool {
        // RTPS 2.5 §8.4.11: a best-effort reader ignores HEARTBEATs.
        if !self.reliable || !is_newer(hb.count, self.last_heartbeat_count) {
            return false;
        }
        self.last_heartbeat_count = Some(hb.count);
        if !self.heard_heartbeat {
            // The writer knows us now: stop repeating the pre-emptive ACKNACK.
            self.heard_heartbeat = true;
            self.ack_deadline = None;
            // Before its first HEARTBEAT we know nothing of the writer: a late joiner takes
            // its range as it comes (Cyclone 0.10 does the same, treating `[1, lastSN]` of a
            // writer's first HEARTBEAT as known). Later ones are held to what it sent.
            self.sent_max = self.sent_max.max(hb.last_sn);
            if self.start_at_match {
                // Start after its lastSN, or at the first change it already sent us (also
                // before the match: its DATA overtook its SEDP, and it is asked for again).
                let after = hb.last_sn.checked_add(1).unwrap_or(hb.last_sn);
                let first_held = self.buffered.keys().next().copied().unwrap_or(after);
                let start = after.min(first_held).min(self.early_from.unwrap_or(after));
                if start > self.next_expected && self.buffered.range(..start).next().is_none() {
                    self.next_expected = start;
                    self.reassembly.drop_below(start);
                    self.pump(sink);
                }
            }
        }
        // A range beyond anything the writer sent is cut back to it (`skip_limit`).
        let first_sn = hb.first_sn.min(self.skip_limit());
        let last_sn = hb.last_sn.min(self.horizon());
        if first_sn < hb.first_sn || last_sn < hb.last_sn {
            sink.counters.ranges_clamped = sink.counters.ranges_clamped.saturating_add(1);
        }
        // missing_changes_update(lastSN). RTPS 2.5 §8.4.10.4.4. A real writer's lastSN never
        // goes back (its HEARTBEATs are ordered by count), so the latest one replaces the
        // previous claim: a forged lastSN lasts until the writer's next HEARTBEAT.
        self.available_max = last_sn.max(self.received_max());
        // lost_changes_update(firstSN): SNs below firstSN that we lack are gone for good.
        // RTPS 2.5 §8.4.10.4.3.
        let lost = self.advance_to(first_sn, sink);
        sink.counters.samples_lost = sink.counters.samples_lost.saturating_add(lost);
        // RTPS 2.5 §8.4.12.1.2 / §8.3.7.5: without F the reader must answer; with F only if
        // something is missing. Answer after heartbeatResponseDelay.
        if !hb.final_flag || self.has_missing() {
            self.schedule_ack(now.saturating_add(delay));
        }
        true
    }

    /// HEARTBEAT_FRAG: fragments up to lastFragmentNum of writerSN exist. RTPS 2.5 §8.3.7.6.
    pub(super) fn handle_heartbeat_frag(
        &mut self,
        now: Instant,
        delay: core::time::Duration,
        hbf: &HeartbeatFrag,
    ) -> bool {
        if !self.reliable || !is_newer(hbf.count, self.last_heartbeat_frag_count) {
            return false;
        }
        self.last_heartbeat_frag_count = Some(hbf.count);
        if !self.wants(hbf.writer_sn) {
            return true;
        }
        self.reassembly
            .note_heartbeat_frag(hbf.writer_sn, hbf.last_fragment_num);
        self.schedule_ack(now.saturating_add(delay));
        true
    }

    /// Takes the due ACKNACK, if its deadline has passed.
    pub(super) fn take_due(&mut self, now: Instant) -> bool {
        if self.ack_deadline.is_some_and(|d| d <= now) {
            self.ack_deadline = None;
            return true;
        }
        false
    }

    /// Builds `INFO_DST + ACKNACK (+ NACK_FRAG per partial sample)` for this writer.
    /// RTPS 2.5 §8.4.12.1.4 (ACKNACK with the missing set), §8.3.7.1, §8.3.7.8.
    pub(super) fn build_ack(
        &mut self,
        now: Instant,
        reader: Guid,
        counters: &mut ReaderCounters,
    ) -> Option<Transmit> {
        let base = self.next_expected;
        let last = self
            .available_max
            .min(base.checked_add(i64::from(MAX_SET_BITS).saturating_sub(1))?);
        // Missing = not received, not irrelevant, and not being reassembled (those get a
        // NACK_FRAG instead, so the writer resends only the missing fragments).
        let mut missing = Vec::new();
        let mut sn = base;
        while sn <= last {
            if !self.buffered.contains_key(&sn) && !self.reassembly.contains(sn) {
                missing.push(sn);
            }
            sn = sn.checked_add(1)?;
        }
        let set = SequenceNumberSet::from_members(base, missing).ok()?;
        let nack_frags: Vec<_> = self.reassembly.nack_sets(self.available_max).collect();
        // Final (no HEARTBEAT wanted) only when we know the writer's state and lack nothing;
        // the pre-emptive ACKNACK is non-final to ask for a HEARTBEAT.
        let final_flag = self.heard_heartbeat && set.is_empty() && nack_frags.is_empty();
        self.acknack_count = self.acknack_count.wrapping_add(1);
        let endian = Endianness::Little;
        let mut subs = vec![
            Submessage::InfoDst(InfoDst {
                endian,
                guid_prefix: self.remote.guid.prefix,
            }),
            Submessage::AckNack(AckNack {
                endian,
                final_flag,
                reader_id: reader.entity_id,
                writer_id: self.remote.guid.entity_id,
                reader_sn_state: set,
                count: self.acknack_count,
            }),
        ];
        for (writer_sn, fragment_number_state) in nack_frags {
            self.nackfrag_count = self.nackfrag_count.wrapping_add(1);
            counters.nackfrags_sent = counters.nackfrags_sent.saturating_add(1);
            subs.push(Submessage::NackFrag(NackFrag {
                endian,
                reader_id: reader.entity_id,
                writer_id: self.remote.guid.entity_id,
                writer_sn,
                fragment_number_state,
                count: self.nackfrag_count,
            }));
        }
        counters.acknacks_sent = counters.acknacks_sent.saturating_add(1);
        if !self.heard_heartbeat {
            self.schedule_ack(now.saturating_add(PREEMPTIVE_ACKNACK_PERIOD));
        }
        let mut payload = Vec::new();
        emit_message(&Header::new(reader.prefix), &subs, &mut payload);
        let destinations = if self.remote.unicast_locators.is_empty() {
            self.remote.multicast_locators.clone()
        } else {
            self.remote.unicast_locators.clone()
        };
        Some(Transmit::new(destinations, payload))
    }
}
