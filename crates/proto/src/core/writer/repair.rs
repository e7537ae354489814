//! Answers to a reader's requests (ACKNACK / NACK_FRAG): DATA / DATA_FRAG for the stored
//! changes it may have, GAP for everything irrelevant to it, with consecutive and nearby
//! irrelevant sequence numbers folded into one GAP (range + 256-bit gapList).
//!
//! Must not: send DATA for a change the reader's filter rejected, leave a request for an
//! irrelevant change unanswered (reliability would stall), exceed the message, or do I/O /
//! read clocks. Request sets are capped by `reader_proxy.rs`; everything here is bounded by
//! them.
//!
//! RTPS 2.5 §8.4.9.2.12 (T12: a requested change → DATA, or GAP when irrelevant), §8.3.7.4
//! (GAP: gapStart + gapList), §8.7.3.2 (a filtered-out change is irrelevant → GAP).

use super::change_filter::{ChangeFilter, ReaderSlot, SINGLE_INFO_LEN};
use super::history::WriterHistory;
use super::message::{MessageBuilder, fragment_count};
use super::reader_proxy::ReaderProxy;
use crate::wire::{MAX_SET_BITS, SequenceNumber};

pub(super) fn succ(sn: SequenceNumber) -> SequenceNumber {
    sn.checked_add(1).unwrap_or(sn)
}

/// The end (exclusive, ≤ `limit`) of the run of sequence numbers from `from` on that `reader`
/// gets no DATA for — not stored, or stored and rejected by its filter — and how many of them
/// its filter rejected. Consecutive filtered SNs thus share one GAP. RTPS 2.5 §8.7.3.2.
pub(super) fn irrelevant_run(
    history: &WriterHistory,
    reader: ReaderSlot,
    from: SequenceNumber,
    limit: SequenceNumber,
) -> (SequenceNumber, u64) {
    let mut filtered = 0u64;
    for sn in history.stored_from(from) {
        if sn >= limit {
            break;
        }
        match history.filter(sn) {
            Some(f) if !f.sends_to(reader) => filtered = filtered.saturating_add(1),
            _ => return (sn, filtered),
        }
    }
    (limit, filtered)
}

/// How many stored changes in `[from, to)` `reader`'s filter rejected (for the counters).
pub(super) fn count_filtered(
    history: &WriterHistory,
    reader: ReaderSlot,
    from: SequenceNumber,
    to: SequenceNumber,
) -> u64 {
    let n = history
        .stored_from(from)
        .take_while(|sn| *sn < to)
        .filter(|sn| filtered_out(history, *sn, reader))
        .count();
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// True when the stored change `sn` was filtered out for `reader`.
pub(super) fn filtered_out(
    history: &WriterHistory,
    sn: SequenceNumber,
    reader: ReaderSlot,
) -> bool {
    history.filter(sn).is_some_and(|f| !f.sends_to(reader))
}

/// True when `sn` is irrelevant to reader `r`: before its start, no longer stored, or
/// rejected by its filter. RTPS 2.5 §8.4.9.2.12, §8.7.3.2.
fn irrelevant(
    history: &WriterHistory,
    r: &ReaderProxy,
    reader: ReaderSlot,
    sn: SequenceNumber,
) -> bool {
    sn < r.start() || history.get(sn).is_none() || filtered_out(history, sn, reader)
}

/// The PID_CONTENT_FILTER_INFO value a DATA / DATA_FRAG of change `sn` carries.
pub(super) enum FilterInfo {
    /// Every filtered reader's signature and bit: the datagram goes to several readers.
    Shared(Vec<u8>),
    /// The destination reader's own signature and bit only. Facts §2.3.
    Single([u8; SINGLE_INFO_LEN]),
}

impl FilterInfo {
    /// The encoded value.
    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            FilterInfo::Shared(b) => b,
            FilterInfo::Single(b) => b,
        }
    }
}

/// The filter info for change `sn` in a datagram for reader `dst` alone (its own signature
/// only; none if it was not filtered for) or, with `None`, for several readers (the full
/// list). RTPS 2.5 §8.7.3.2, §9.6.4.1; docs/interop-facts.md §2.1, §2.3.
pub(super) fn info_for(
    history: &WriterHistory,
    sn: SequenceNumber,
    dst: Option<ReaderSlot>,
) -> Option<FilterInfo> {
    let f: &ChangeFilter = history.filter(sn)?;
    match dst {
        Some(g) => f.info_for(g).map(FilterInfo::Single),
        None => Some(FilterInfo::Shared(f.shared_info())),
    }
}

/// What answering one reader's requests reads besides its proxy: the history, the reader's
/// filter slot, the fragment size and the writer's highest SN.
#[derive(Copy, Clone)]
pub(super) struct RepairInputs<'a> {
    pub(super) history: &'a WriterHistory,
    pub(super) reader: ReaderSlot,
    pub(super) frag_size: usize,
    pub(super) last: SequenceNumber,
}

/// Appends one GAP for the irrelevant request `sn`: the whole irrelevant run from it as the
/// range, then further requested irrelevant SNs (and their runs) within 256 of the range's end
/// as gapList bits. Removes what it covers from the requests. RTPS 2.5 §8.3.7.4.
fn gap_for_request(
    cx: RepairInputs<'_>,
    r: &mut ReaderProxy,
    b: &mut MessageBuilder,
    sn: SequenceNumber,
) -> bool {
    let (history, reader, last) = (cx.history, cx.reader, cx.last);
    let from = sn.max(r.start());
    let (end, mut filtered) = irrelevant_run(history, reader, from, succ(last));
    let end = end.max(succ(sn));
    let ceiling = end
        .checked_add(i64::from(MAX_SET_BITS))
        .unwrap_or(end)
        .min(succ(last));
    let wanted = r.requests_in(end, ceiling);
    let mut bits: Vec<SequenceNumber> = Vec::new();
    let mut covered = end;
    for s in wanted {
        if s < covered || !irrelevant(history, r, reader, s) {
            continue;
        }
        let (e, n) = irrelevant_run(history, reader, s.max(r.start()), ceiling);
        covered = e.max(succ(s));
        let mut x = s;
        while x < covered {
            bits.push(x);
            x = succ(x);
        }
        filtered = filtered.saturating_add(n);
    }
    if !b.gap_list(sn, end, &bits, filtered) {
        return false;
    }
    r.gap_answered(end, &bits);
    true
}

/// Fills `b` with the reader's requested repairs in SN order: DATA or DATA_FRAG for stored
/// relevant changes, GAP for the rest (including changes its content filter rejected, so that
/// reliability never stalls), then the fragments it asked for by NACK_FRAG. Returns true
/// when all requests were served. RTPS 2.5 §8.4.9.2.12 (T12: requested change → DATA or
/// GAP), §8.7.3.2.
pub(super) fn fill_repairs(
    cx: RepairInputs<'_>,
    r: &mut ReaderProxy,
    b: &mut MessageBuilder,
) -> bool {
    repair_changes(cx, r, b) && repair_fragments(cx, r, b)
}

/// The whole changes requested by ACKNACK (see [`fill_repairs`]).
fn repair_changes(cx: RepairInputs<'_>, r: &mut ReaderProxy, b: &mut MessageBuilder) -> bool {
    let (history, reader, frag_size) = (cx.history, cx.reader, cx.frag_size);
    while let Some(sn) = r.first_request() {
        let stored = history
            .get(sn)
            .filter(|_| !irrelevant(history, r, reader, sn));
        let Some(change) = stored else {
            // Not in the history (KEEP_LAST replaced it), before this reader's start, or
            // rejected by its filter. RTPS 2.5 §8.4.9.2.12, §8.7.3.2.
            if !gap_for_request(cx, r, b, sn) {
                return false;
            }
            continue;
        };
        let cfi = info_for(history, sn, Some(reader));
        let cfi = cfi.as_ref().map(FilterInfo::bytes);
        if change.data.len() > frag_size {
            // A fragmented repair may span datagrams: resume where the last one stopped.
            let total = fragment_count(change.data.len(), frag_size);
            let mut f = r.repair_resume(sn);
            while f <= total {
                if !b.data_frag(change, cfi, f, frag_size) {
                    r.repair_stopped(Some((sn, f)));
                    return false;
                }
                f = f.saturating_add(1);
            }
            r.repair_stopped(None);
        } else if !b.data(change, cfi) {
            return false;
        }
        r.request_answered(sn);
    }
    true
}

/// The fragments requested by NACK_FRAG (see [`fill_repairs`]).
fn repair_fragments(cx: RepairInputs<'_>, r: &mut ReaderProxy, b: &mut MessageBuilder) -> bool {
    let (history, reader, frag_size) = (cx.history, cx.reader, cx.frag_size);
    while let Some(sn) = r.first_frag_request() {
        match history.get(sn) {
            None => {
                if !b.gap(sn, succ(sn)) {
                    return false;
                }
            }
            Some(_) if filtered_out(history, sn, reader) => {
                if !b.filter_gap(sn, succ(sn), 1) {
                    return false;
                }
            }
            Some(change) => {
                let cfi = info_for(history, sn, Some(reader));
                let cfi = cfi.as_ref().map(FilterInfo::bytes);
                while let Some(f) = r.first_frag_of(sn) {
                    if !b.data_frag(change, cfi, f, frag_size) {
                        return false;
                    }
                    r.frag_answered(sn, f);
                }
            }
        }
        r.frag_request_answered(sn);
    }
    true
}
