//! What one matched reader asked for: its ACKNACK / NACK_FRAG applied to the proxy
//! (acknowledged floor, requested whole changes and fragments, where a fragmented repair
//! resumes) and the stale-count check.
//!
//! Must not: trust the submessage (a request outside `[base, base + 256)` or beyond the
//! writer's last SN is dropped, whole-change requests stay under 2 × `MAX_SET_BITS` and
//! fragment requests under [`MAX_FRAG_REQUESTS`] samples), schedule or send anything (the
//! writer does, `acknack.rs`), or do I/O / read clocks.
//!
//! RTPS 2.5 §8.4.9.2.8 (acked_changes_set, requested_changes_set), §8.3.7.8 (NACK_FRAG),
//! §8.4.15.7 (stale counts ignored).

use std::collections::BTreeSet;

use super::{MAX_FRAG_REQUESTS, ReaderProxy, succ};
use crate::wire::{FragmentNumber, MAX_SET_BITS, SequenceNumber};

impl ReaderProxy {
    /// Applies an ACKNACK's readerSNState: everything below `base` is acknowledged, set bits
    /// are requested. `last` is the writer's highest SN: acknowledgements beyond it are clamped
    /// and requests beyond it dropped. Returns true if anything was requested.
    /// RTPS 2.5 §8.4.9.2.8 (acked_changes_set(base − 1), requested_changes_set(set)).
    ///
    /// Requests below our `acked` are kept for this round: a VOLATILE late joiner NACKs
    /// changes before its start, which we count as acknowledged but must answer with GAP.
    /// Bounded: kept requests lie in `[base, base + 256)` of this ACKNACK or in
    /// `(acked, acked + 256]`, so at most 512 entries.
    pub(in crate::core::writer) fn apply_acknack(
        &mut self,
        base: SequenceNumber,
        missing: impl Iterator<Item = SequenceNumber>,
        last: SequenceNumber,
    ) -> bool {
        let acked = base.checked_sub(1).unwrap_or(SequenceNumber(0)).min(last);
        if acked > self.acked {
            self.acked = acked;
        }
        let floor = self.acked;
        self.requested.retain(|sn| *sn > floor);
        self.requested_frags.retain(|sn, _| *sn > floor);
        let ceiling = base
            .checked_add(i64::from(MAX_SET_BITS))
            .unwrap_or(base)
            .min(succ(last));
        let mut any = false;
        for sn in missing {
            if sn >= base && sn >= SequenceNumber::ONE && sn < ceiling {
                self.requested.insert(sn);
                any = true;
            }
        }
        if any {
            // A new request restarts fragmented repairs from the first fragment.
            self.repair_frag = (SequenceNumber(0), 1);
        }
        // Changes it acknowledged need not be pushed to it any more.
        if self.next_unsent <= self.acked {
            self.next_unsent = succ(self.acked);
            self.next_frag = 1;
        }
        // Nor told that acknowledged changes are irrelevant.
        self.gap_from = self.gap_from.max(succ(self.acked)).min(self.next_unsent);
        any
    }

    /// Requests one whole change (NACK_FRAG for an unfragmented or no longer stored change).
    /// Hard-capped at 2 × [`MAX_SET_BITS`] outstanding requests.
    pub(in crate::core::writer) fn request(
        &mut self,
        sn: SequenceNumber,
        last: SequenceNumber,
    ) -> bool {
        let cap = usize::try_from(MAX_SET_BITS)
            .unwrap_or(256)
            .saturating_mul(2);
        if sn < SequenceNumber::ONE || sn > last || self.requested.len() >= cap {
            return false;
        }
        self.requested.insert(sn);
        true
    }

    /// Records NACK_FRAG fragment requests for `sn`, which has `total` fragments. Fragments
    /// outside `1..=total` are dropped. Returns true if anything was requested.
    pub(in crate::core::writer) fn apply_nack_frag(
        &mut self,
        sn: SequenceNumber,
        frags: impl Iterator<Item = FragmentNumber>,
        total: u32,
    ) -> bool {
        if sn <= self.acked {
            return false;
        }
        let wanted: BTreeSet<u32> = frags
            .map(|f| f.0)
            .filter(|f| (1..=total).contains(f))
            .collect();
        if wanted.is_empty() {
            return false;
        }
        if !self.requested_frags.contains_key(&sn)
            && self.requested_frags.len() >= MAX_FRAG_REQUESTS
        {
            // Bounded: forget the oldest request; the reader will NACK it again.
            self.requested_frags.pop_first();
        }
        self.requested_frags.entry(sn).or_default().extend(wanted);
        true
    }

    /// Accepts an ACKNACK count if newer than the last one. RTPS 2.5 §8.4.15.7.
    pub(in crate::core::writer) fn accept_acknack_count(&mut self, count: i32) -> bool {
        Self::accept_count(&mut self.last_acknack_count, count)
    }

    /// Accepts a NACK_FRAG count if newer than the last one. RTPS 2.5 §8.4.15.7.
    pub(in crate::core::writer) fn accept_nack_frag_count(&mut self, count: i32) -> bool {
        Self::accept_count(&mut self.last_nack_frag_count, count)
    }

    /// Accepts a count if newer than the last one seen. RTPS 2.5 §8.4.15.7: a count not
    /// greater than the previous one is a duplicate or stale message and is ignored.
    fn accept_count(last: &mut Option<i32>, count: i32) -> bool {
        match *last {
            Some(prev) if count <= prev => false,
            _ => {
                *last = Some(count);
                true
            }
        }
    }

    /// The lowest requested whole change.
    pub(in crate::core::writer) fn first_request(&self) -> Option<SequenceNumber> {
        self.requested.first().copied()
    }

    /// Requested whole changes in `[from, to)`, ascending.
    pub(in crate::core::writer) fn requests_in(
        &self,
        from: SequenceNumber,
        to: SequenceNumber,
    ) -> Vec<SequenceNumber> {
        self.requested.range(from..to).copied().collect()
    }

    /// Requests below `end` and the listed `bits` were answered with one GAP.
    pub(in crate::core::writer) fn gap_answered(
        &mut self,
        end: SequenceNumber,
        bits: &[SequenceNumber],
    ) {
        self.requested = self.requested.split_off(&end);
        for s in bits {
            self.requested.remove(s);
        }
    }

    /// Requested whole change `sn` was sent.
    pub(in crate::core::writer) fn request_answered(&mut self, sn: SequenceNumber) {
        self.requested.remove(&sn);
        self.flow.repaired(sn);
    }

    /// The fragment a fragmented whole-change repair of `sn` resumes at (1: from the start).
    pub(in crate::core::writer) fn repair_resume(&self, sn: SequenceNumber) -> u32 {
        if self.repair_frag.0 == sn {
            self.repair_frag.1
        } else {
            1
        }
    }

    /// A fragmented repair of `sn` stopped before fragment `frag` (`None`: it is complete).
    pub(in crate::core::writer) fn repair_stopped(&mut self, stop: Option<(SequenceNumber, u32)>) {
        self.repair_frag = stop.unwrap_or((SequenceNumber(0), 1));
    }

    /// The lowest change with NACK_FRAG fragment requests.
    pub(in crate::core::writer) fn first_frag_request(&self) -> Option<SequenceNumber> {
        self.requested_frags.keys().next().copied()
    }

    /// The lowest requested fragment of `sn`.
    pub(in crate::core::writer) fn first_frag_of(&self, sn: SequenceNumber) -> Option<u32> {
        self.requested_frags.get(&sn)?.first().copied()
    }

    /// Fragment `frag` of `sn` was resent.
    pub(in crate::core::writer) fn frag_answered(&mut self, sn: SequenceNumber, frag: u32) {
        if let Some(set) = self.requested_frags.get_mut(&sn) {
            set.remove(&frag);
        }
    }

    /// Every fragment request for `sn` was answered.
    pub(in crate::core::writer) fn frag_request_answered(&mut self, sn: SequenceNumber) {
        self.requested_frags.remove(&sn);
    }

    /// True when it has repairs pending.
    pub(in crate::core::writer) fn has_requests(&self) -> bool {
        !self.requested.is_empty() || !self.requested_frags.is_empty()
    }
}
