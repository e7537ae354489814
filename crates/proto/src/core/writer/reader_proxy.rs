//! Per matched reader state of a stateful writer: what it acknowledged, what it asked for
//! again, what has not been sent to it yet, and when it is owed a HEARTBEAT or repairs.
//!
//! Must not: trust ACKNACK / NACK_FRAG contents (all arithmetic is checked and every set is
//! capped, so a peer cannot grow this state), build messages, or do I/O / read clocks.
//!
//! RTPS 2.5 §8.4.7.5 (ReaderProxy), §8.4.9.1 (best-effort: only the unsent cursor),
//! §8.4.9.2 (reliable: acked / requested / unsent sets), §8.4.15.7 (ignore stale counts).
//!
//! The requests (ACKNACK / NACK_FRAG applied, the requested sets and their caps) are
//! `reader_proxy/requests.rs`; this file keeps the cursors, multicast coverage and timers.

mod requests;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use super::flow::Flow;
use super::timer::{ReaderTimer, TimerTable};
use crate::core::RemoteReader;
use crate::time::Instant;
use crate::wire::{Locator, SequenceNumber};

/// The most samples per reader with outstanding NACK_FRAG fragment requests. A further
/// NACK_FRAG for another sample replaces the lowest one.
pub(super) const MAX_FRAG_REQUESTS: usize = 16;

/// The most multicast-covered changes remembered per reader ahead of its push cursor; beyond
/// that the oldest is forgotten and that change goes to it by unicast too (a duplicate the
/// reader drops, never a loss).
pub(super) const MAX_MULTICAST_COVERED: usize = 4096;

fn succ(sn: SequenceNumber) -> SequenceNumber {
    sn.checked_add(1).unwrap_or(sn)
}

/// A writer's view of one matched remote reader. RTPS 2.5 §8.4.7.5.
#[derive(Clone, Debug)]
pub(super) struct ReaderProxy {
    /// The reader as discovery described it.
    remote: RemoteReader,
    /// First sequence number relevant to this reader: earlier ones are answered with GAP
    /// (VOLATILE late joiner, DDS 1.4 §2.2.3.4) and excluded from its heartbeats' firstSN.
    start: SequenceNumber,
    /// Every SN ≤ `acked` is acknowledged (or irrelevant). Reliable only; for best-effort
    /// readers it tracks the unsent cursor minus one. RTPS 2.5 §8.4.9.2.8 (acked_changes_set).
    acked: SequenceNumber,
    /// Next change to push (and its next fragment, 1-based; 1 when none sent yet).
    /// RTPS 2.5 §8.4.7.5 (unsent_changes: every SN ≥ this).
    next_unsent: SequenceNumber,
    next_frag: u32,
    /// Start of the changes passed over by the push cursor without a GAP yet (lazy GAPs for
    /// content filtering, `send.rs`). Invariant: `gap_from <= next_unsent`, and every SN in
    /// `[gap_from, next_unsent)` is irrelevant to this reader (rejected by its filter, no
    /// longer stored, or before `start`). RTPS 2.5 §8.4.9.2.4 (T4 may send the GAP later),
    /// §8.7.3.2.
    gap_from: SequenceNumber,
    /// When the last unsolicited HEARTBEAT to it (piggy-backed on a push, or periodic) was
    /// sent or scheduled; HEARTBEATs answering an ACKNACK or announcing the match do not
    /// count. Limits unsolicited HEARTBEATs to one per heartbeat period.
    last_heartbeat: Option<Instant>,
    /// NACKed sequence numbers (RTPS 2.5 §8.4.9.2.8 requested_changes_set); at most
    /// 2 × [`MAX_SET_BITS`](crate::wire::MAX_SET_BITS) entries (see `apply_acknack`).
    requested: BTreeSet<SequenceNumber>,
    /// Where a fragmented whole-change repair stopped: (SN, next fragment).
    repair_frag: (SequenceNumber, u32),
    /// NACK_FRAG requests: sample → missing fragment numbers (each set ≤ 256 entries, at most
    /// [`MAX_FRAG_REQUESTS`] samples). RTPS 2.5 §8.4.9.2.x (NackFrag handling, §8.3.7.8).
    requested_frags: BTreeMap<SequenceNumber, BTreeSet<u32>>,
    /// When repairs are to be sent (after nack_response_delay, RTPS 2.5 §8.4.7.1) and when a
    /// HEARTBEAT addressed to this reader is owed.
    timers: TimerTable<ReaderTimer, 2>,
    /// Last accepted ACKNACK count. RTPS 2.5 §8.4.15.7.
    last_acknack_count: Option<i32>,
    /// The last ACKNACK that requested nothing and was answered with a HEARTBEAT: when, its
    /// bitmapBase and our lastSN then (`answers_empty_acknack`).
    empty_answered: Option<(Instant, SequenceNumber, SequenceNumber)>,
    /// Last accepted NACK_FRAG count. RTPS 2.5 §8.4.15.7.
    last_nack_frag_count: Option<i32>,
    /// Its slot in the writer's filter set at the generation `Readers` holds (resolved in
    /// one place, `Writer::resolve_filter_slots`, whenever the set changes).
    filter_slot: Option<usize>,
    /// In the writer's queue of readers pushed to alone (`push_queue.rs`).
    queued: bool,
    /// Changes at or after its push cursor that a multicast covered for it (delivered, or
    /// told filtered), ascending: recorded once, when planned (`multicast.rs`); its push
    /// passes over them (`push.rs`). At most [`MAX_MULTICAST_COVERED`].
    multicast_covered: VecDeque<SequenceNumber>,
    /// The first change planned while it could take a multicast: once matched (best-effort)
    /// or once it ACKNACKed (reliable). Changes multicast earlier are sent to it by unicast
    /// (a late joiner, or a reader the writer was not yet in contact with). `multicast.rs`.
    synced_from: Option<SequenceNumber>,
    /// Whether it still holds the writer back (`unresponsive.rs`).
    pub(super) responsiveness: super::unresponsive::Responsiveness,
    /// Its flow control: window, changes in flight, recent repairs (`flow.rs`).
    flow: Flow,
    /// A capable peer-group intermediary: pushed to alone (`peer_group.rs`).
    pub(super) peer_group_peer: bool,
}

impl ReaderProxy {
    /// A proxy whose first relevant change is `start`.
    pub(super) fn new(remote: RemoteReader, start: SequenceNumber) -> Self {
        ReaderProxy {
            remote,
            start,
            acked: start.checked_sub(1).unwrap_or(SequenceNumber(0)),
            next_unsent: start,
            next_frag: 1,
            gap_from: start,
            last_heartbeat: None,
            requested: BTreeSet::new(),
            repair_frag: (SequenceNumber(0), 1),
            requested_frags: BTreeMap::new(),
            timers: TimerTable::new(),
            last_acknack_count: None,
            empty_answered: None,
            last_nack_frag_count: None,
            filter_slot: None,
            queued: false,
            multicast_covered: VecDeque::new(),
            synced_from: None,
            responsiveness: Default::default(),
            flow: Flow::default(),
            peer_group_peer: false,
        }
    }

    /// The reader as discovery described it.
    pub(super) fn remote(&self) -> &RemoteReader {
        &self.remote
    }

    /// Its GUID.
    pub(super) fn guid(&self) -> crate::wire::Guid {
        self.remote.guid
    }

    /// Discovery updated it (locators, flags).
    pub(super) fn set_remote(&mut self, remote: RemoteReader) {
        self.remote = remote;
    }

    /// Its first relevant sequence number.
    pub(super) fn start(&self) -> SequenceNumber {
        self.start
    }

    /// Every SN up to this one is acknowledged (or irrelevant).
    pub(super) fn acked(&self) -> SequenceNumber {
        self.acked
    }

    /// Its push cursor: the next change to push and its next fragment (1-based).
    pub(super) fn cursor(&self) -> (SequenceNumber, u32) {
        (self.next_unsent, self.next_frag)
    }

    /// The next change to push to it.
    pub(super) fn next_unsent(&self) -> SequenceNumber {
        self.next_unsent
    }

    /// Start of the changes its push cursor passed over without a GAP yet.
    pub(super) fn gap_from(&self) -> SequenceNumber {
        self.gap_from
    }

    /// Moves its push cursor (at a change's first fragment) forward to `sn` over changes it
    /// gets no DATA for; they stay pending for the lazy GAP.
    pub(super) fn skip_to(&mut self, sn: SequenceNumber) {
        if self.next_frag == 1 {
            self.next_unsent = self.next_unsent.max(sn);
        }
    }

    /// Its pending lazy GAP was told up to `upto` (at most its push cursor); requests for
    /// the changes it covered from `from` on need no other answer.
    pub(super) fn gap_told(&mut self, from: SequenceNumber, upto: SequenceNumber) {
        self.gap_from = self.gap_from.max(upto.min(self.next_unsent));
        self.requested.retain(|sn| *sn < from || *sn >= upto);
    }

    /// The first change it may take from a multicast (`None`: not yet in contact).
    pub(super) fn synced_from(&self) -> Option<SequenceNumber> {
        self.synced_from
    }

    /// It can take multicasts of changes from `from` on (kept if already set).
    pub(super) fn mark_synced(&mut self, from: SequenceNumber) {
        self.synced_from.get_or_insert(from);
    }

    /// In the writer's queue of readers pushed to alone.
    pub(super) fn queued(&self) -> bool {
        self.queued
    }

    /// Enters or leaves the writer's queue of readers pushed to alone.
    pub(super) fn set_queued(&mut self, queued: bool) {
        self.queued = queued;
    }

    /// An unsolicited HEARTBEAT to it is scheduled or sent at `now` (periodic, or
    /// piggy-backed on a push, which also answers any HEARTBEAT owed).
    pub(super) fn unsolicited_heartbeat(&mut self, now: Instant, piggybacked: bool) {
        if piggybacked {
            self.heartbeat_sent();
        } else {
            self.schedule_heartbeat(now);
        }
        self.last_heartbeat = Some(now);
    }

    /// Its flow control (`flow.rs`).
    pub(super) fn flow(&self) -> &Flow {
        &self.flow
    }

    /// Its flow control, to update (`flow.rs`).
    pub(super) fn flow_mut(&mut self) -> &mut Flow {
        &mut self.flow
    }

    /// The rest of its repairs waits until `at` (repairs are paced per reader).
    pub(super) fn defer_repairs(&mut self, at: Instant) {
        self.timers.set(ReaderTimer::Repair, Some(at));
    }

    /// Its slot in the writer's filter set (see `Readers::filter_slot`).
    pub(super) fn filter_slot(&self) -> Option<usize> {
        self.filter_slot
    }

    /// Sets its slot in the writer's filter set.
    pub(super) fn set_filter_slot(&mut self, slot: Option<usize>) {
        self.filter_slot = slot;
    }

    /// RELIABLE reader.
    pub(super) fn reliable(&self) -> bool {
        self.remote.reliable
    }

    /// Where datagrams for this reader go: its unicast locators, else its multicast ones.
    pub(super) fn locators(&self) -> &[Locator] {
        if self.remote.unicast_locators.is_empty() {
            &self.remote.multicast_locators
        } else {
            &self.remote.unicast_locators
        }
    }

    /// True while it has not acknowledged everything up to `last`.
    pub(super) fn unacked(&self, last: SequenceNumber) -> bool {
        self.reliable() && self.acked < last
    }

    /// The irrelevant changes it has not been told about yet, `[from, to)`, if any.
    pub(super) fn pending_gap(&self) -> Option<(SequenceNumber, SequenceNumber)> {
        (self.gap_from < self.next_unsent).then_some((self.gap_from, self.next_unsent))
    }

    /// True when no HEARTBEAT went to it during the `period` before `now`.
    ///
    /// Until the reader's first ACKNACK every push carries a HEARTBEAT: a reader may not
    /// yet know our writer when our first HEARTBEAT arrives (SEDP race), and Cyclone 0.10
    /// starts a volatile reader after the first HEARTBEAT it sees, dropping earlier data
    /// (seen in interop: the first of 10,000 samples was lost without this).
    pub(super) fn heartbeat_stale(&self, now: Instant, period: core::time::Duration) -> bool {
        self.last_acknack_count.is_none()
            || self
                .last_heartbeat
                .is_none_or(|t| t.saturating_add(period) <= now)
    }

    /// Whether an ACKNACK that requests nothing (bitmapBase `base` while our lastSN is `last`)
    /// gets a HEARTBEAT. The same ACKNACK again within `period` of the last one answered does
    /// not: a peer that answers every HEARTBEAT with an ACKNACK would otherwise keep both
    /// sides sending as fast as the round trip allows (hdds 1.1 against an empty builtin
    /// writer: ~190 datagrams/s each way). A changed base or lastSN is news and is answered.
    pub(super) fn answers_empty_acknack(
        &mut self,
        now: Instant,
        period: core::time::Duration,
        base: SequenceNumber,
        last: SequenceNumber,
    ) -> bool {
        let repeat = self
            .empty_answered
            .is_some_and(|(t, b, l)| b == base && l == last && now < t.saturating_add(period));
        if !repeat {
            self.empty_answered = Some((now, base, last));
        }
        !repeat
    }

    /// Moves its push cursor to `(sn, frag)` with the lazy GAP pending from `gap_from`
    /// (kept ≤ `sn`, the invariant of `gap_from`); forgets multicast records it passed.
    pub(super) fn set_push_cursor(
        &mut self,
        sn: SequenceNumber,
        frag: u32,
        gap_from: SequenceNumber,
    ) {
        (self.next_unsent, self.next_frag, self.gap_from) = (sn, frag, gap_from.min(sn));
        self.forget_covered_before(sn);
    }

    fn forget_covered_before(&mut self, sn: SequenceNumber) {
        while self.multicast_covered.front().is_some_and(|c| *c < sn) {
            self.multicast_covered.pop_front();
        }
    }

    /// Records that the multicast of change `sn` covered it (planned in SN order).
    pub(super) fn record_multicast(&mut self, sn: SequenceNumber) {
        self.forget_covered_before(self.next_unsent);
        if self.multicast_covered.back().is_some_and(|c| *c >= sn) {
            return;
        }
        if self.multicast_covered.len() >= MAX_MULTICAST_COVERED {
            self.multicast_covered.pop_front();
        }
        self.multicast_covered.push_back(sn);
    }

    /// True when a multicast of change `sn` covered it.
    pub(super) fn multicast_covered(&self, sn: SequenceNumber) -> bool {
        self.multicast_covered.binary_search(&sn).is_ok()
    }

    /// Schedules repairs at `at` unless they are already due earlier.
    pub(super) fn schedule_repair(&mut self, at: Instant) {
        self.timers.set_earliest(ReaderTimer::Repair, at);
    }

    /// Schedules a heartbeat at `at` unless one is already due earlier.
    pub(super) fn schedule_heartbeat(&mut self, at: Instant) {
        self.timers.set_earliest(ReaderTimer::Heartbeat, at);
    }

    /// The earliest of its own deadlines.
    pub(super) fn deadline(&self) -> Option<Instant> {
        let repair = self
            .timers
            .get(ReaderTimer::Repair)
            .filter(|_| self.has_requests());
        match (repair, self.timers.get(ReaderTimer::Heartbeat)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// True when it has repairs pending and their time came.
    pub(super) fn repair_due(&self, now: Instant) -> bool {
        self.has_requests() && self.timers.is_due(ReaderTimer::Repair, now)
    }

    /// True when a HEARTBEAT to it is owed by `now`.
    pub(super) fn heartbeat_due(&self, now: Instant) -> bool {
        self.timers.is_due(ReaderTimer::Heartbeat, now)
    }

    /// When a HEARTBEAT to it is scheduled (owed, or a push backstop, `send.rs`).
    pub(super) fn heartbeat_deadline(&self) -> Option<Instant> {
        self.timers.get(ReaderTimer::Heartbeat)
    }

    /// Its repairs were all sent.
    pub(super) fn repairs_sent(&mut self) {
        self.timers.stop(ReaderTimer::Repair);
    }

    /// A HEARTBEAT went to it: none is owed any more.
    pub(super) fn heartbeat_sent(&mut self) {
        self.timers.stop(ReaderTimer::Heartbeat);
    }
}

#[cfg(test)]
mod tests;
