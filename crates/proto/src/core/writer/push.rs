//! One push burst: the per-change decision ([`Burst::next_action`]) and the step that puts
//! it into the message ([`Burst::apply`]), for a reader pushed to alone or for readers
//! sharing a datagram. `send.rs` runs the loop and settles the burst (cursors, HEARTBEAT).
//!
//! Must not: mutate the history or a reader (the decision reads, the step writes only the
//! message and the burst's cursor), exceed the message, or return an action that does not
//! move the cursor or end the burst. No I/O, no clock.
//!
//! RTPS 2.5 §8.4.9.1.4 / §8.4.9.2.4 (T4: unsent change → DATA, or GAP when no longer
//! available), §8.7.3.2 (GAP instead of DATA for a filtered-out change; lazy, `send.rs`).

use super::change_filter::ReaderSlot;
use super::history::WriterHistory;
use super::message::{MessageBuilder, fragment_count};
use super::repair::{FilterInfo, count_filtered, filtered_out, info_for, irrelevant_run, succ};
use crate::wire::SequenceNumber;

/// What one burst knows about its destination, fixed for the burst.
#[derive(Copy, Clone, Debug)]
pub(super) struct Burst {
    /// Pushed to one reader alone: INFO_DST, its own filter info, its lazy GAPs, and the
    /// changes a multicast covered for it passed over. Else readers sharing one datagram.
    pub(super) solo: bool,
    /// The destination reader's filter slot when the burst has one reader (solo, or a
    /// shared burst of one).
    pub(super) dst_slot: Option<ReaderSlot>,
    /// The writer is reliable and so is at least one destination reader.
    pub(super) any_reliable: bool,
    /// The burst ends before this (SN, fragment).
    pub(super) stop: (SequenceNumber, u32),
    /// The writer's highest SN.
    pub(super) last: SequenceNumber,
    pub(super) frag_size: usize,
}

/// Where a burst is: the next change and fragment, and (solo) the start of the changes
/// passed over without a GAP yet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Cursor {
    pub(super) sn: SequenceNumber,
    pub(super) frag: u32,
    pub(super) gap_from: SequenceNumber,
}

/// What the burst does at its cursor.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Action {
    /// (a) The reader's pending lazy GAP `[gap_from, sn)` goes in front of the DATA for `sn`.
    FlushGap,
    /// A multicast delivered the change (`delivered`) or told the reader it is filtered:
    /// pass over it, nothing pending. RTPS 2.5 §8.7.3.2-§8.7.3.4.
    Covered { delivered: bool },
    /// The reader's filter rejects `[sn, end)` (or it is replaced): pass over the run, the
    /// GAP stays lazy. RTPS 2.5 §8.7.3.2.
    SkipRejected { end: SequenceNumber },
    /// The next DATA_FRAG of a change of `total` fragments.
    DataFrag { total: u32 },
    /// A DATA.
    Data,
    /// `[sn, end)` is no longer stored (KEEP_LAST replaced it before it was sent): a GAP for
    /// a shared reliable burst; a solo reader is told lazily with its filtered changes.
    Replaced { end: SequenceNumber },
}

impl Burst {
    /// True while the cursor is within the burst.
    pub(super) fn in_range(&self, at: Cursor) -> bool {
        at.sn <= self.last && (at.sn, at.frag) < self.stop
    }

    /// The one decision per change: what to do at `at`. `multicast_covered`: the solo
    /// reader's planner record says a multicast of `at.sn` covered it (`multicast.rs`).
    pub(super) fn next_action(
        &self,
        history: &WriterHistory,
        at: Cursor,
        multicast_covered: bool,
    ) -> Action {
        let sn = at.sn;
        let change = history.get(sn);
        let rejected = self.dst_slot.filter(|g| filtered_out(history, sn, *g));
        let covered = self.solo && at.frag == 1 && change.is_some() && multicast_covered;
        match (change, rejected) {
            (Some(_), None) if self.solo && at.gap_from < sn => Action::FlushGap,
            (Some(_), Some(_)) if covered && at.gap_from == sn => {
                Action::Covered { delivered: false }
            }
            (Some(_), None) if covered => Action::Covered { delivered: true },
            (Some(_), Some(reader)) => {
                let limit = self.stop.0.min(succ(self.last));
                let (end, _) = irrelevant_run(history, reader, sn, limit);
                Action::SkipRejected {
                    end: end.max(succ(sn)),
                }
            }
            (Some(c), None) if c.data.len() > self.frag_size => Action::DataFrag {
                total: fragment_count(c.data.len(), self.frag_size),
            },
            (Some(_), None) => Action::Data,
            (None, _) => {
                let next = history
                    .next_stored_from(sn)
                    .unwrap_or_else(|| succ(self.last));
                Action::Replaced {
                    end: next.min(self.stop.0).max(succ(sn)),
                }
            }
        }
    }

    /// Puts `action` into `b` and moves the cursor past it. False when the message is full
    /// (the burst ends with the cursor where it was).
    pub(super) fn apply(
        &self,
        history: &WriterHistory,
        b: &mut MessageBuilder,
        at: &mut Cursor,
        action: Action,
    ) -> bool {
        let sn = at.sn;
        let cfi = || info_for(history, sn, self.dst_slot);
        match action {
            Action::FlushGap => {
                let n = self
                    .dst_slot
                    .map_or(0, |g| count_filtered(history, g, at.gap_from, sn));
                if !b.filter_gap(at.gap_from, sn, n) {
                    return false;
                }
                at.gap_from = sn;
            }
            Action::Covered { .. } => at.next(succ(sn), true),
            Action::SkipRejected { end } => at.next(end, false),
            Action::DataFrag { total } => {
                let Some(c) = history.get(sn) else {
                    return false;
                };
                let cfi = cfi();
                let cfi = cfi.as_ref().map(FilterInfo::bytes);
                let frag = at.frag;
                if frag <= total && !b.data_frag(c, cfi, frag, self.frag_size) && b.has_content() {
                    return false;
                }
                at.frag = frag.saturating_add(1);
                if at.frag > total {
                    (at.sn, at.frag) = (succ(sn), 1);
                }
                at.gap_from = at.gap_from.max(at.sn);
            }
            Action::Data => {
                let Some(c) = history.get(sn) else {
                    return false;
                };
                let cfi = cfi();
                if !b.data(c, cfi.as_ref().map(FilterInfo::bytes)) && b.has_content() {
                    return false;
                }
                at.next(succ(sn), true);
            }
            Action::Replaced { end } => {
                if !self.solo && self.any_reliable && !b.gap(sn, end) && b.has_content() {
                    return false;
                }
                at.next(end, false);
            }
        }
        true
    }
}

impl Cursor {
    /// On to the first fragment of `sn`; `told`: nothing before it is pending any more.
    fn next(&mut self, sn: SequenceNumber, told: bool) {
        (self.sn, self.frag) = (sn, 1);
        if told {
            self.gap_from = sn;
        }
    }
}

#[cfg(test)]
mod tests;
