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
//! A reader the writer filters for is pushed to alone (INFO_DST + its readerId), so that a
//! datagram shared by several readers (readerId ENTITYID_UNKNOWN) only goes to readers that
//! get every DATA in it; unfiltered readers at the same cursor still share datagrams.

use super::Writer;
use super::history::WriterHistory;
use super::message::{HEARTBEAT_LEN, MessageBuilder, Sent, fragment_count};
use super::reader_proxy::ReaderProxy;
use crate::core::Transmit;
use crate::time::Now;
use crate::wire::{Guid, Locator, SequenceNumber};

/// The outcome of one push attempt.
enum Push {
    /// A datagram to send.
    Sent(Transmit),
    /// Cursors moved (changes skipped for best-effort readers) but nothing to send yet.
    Advanced,
    /// Nothing left to push.
    Idle,
}

fn succ(sn: SequenceNumber) -> SequenceNumber {
    sn.checked_add(1).unwrap_or(sn)
}

/// The end (exclusive, ≤ `limit`) of the run of sequence numbers from `from` on that `reader`
/// gets no DATA for — not stored, or stored and rejected by its filter — and how many of them
/// its filter rejected. Consecutive filtered SNs thus share one GAP. RTPS 2.5 §8.7.3.2.
fn irrelevant_run(
    history: &WriterHistory,
    reader: Guid,
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

/// True when the stored change `sn` was filtered out for `reader`.
fn filtered_out(history: &WriterHistory, sn: SequenceNumber, reader: Guid) -> bool {
    history.filter(sn).is_some_and(|f| !f.sends_to(reader))
}

/// The encoded PID_CONTENT_FILTER_INFO value stored with change `sn`, if any.
fn info(history: &WriterHistory, sn: SequenceNumber) -> Option<&[u8]> {
    history.filter(sn).map(|f| f.info.as_slice())
}

/// Fills `b` with the reader's requested repairs in SN order: DATA or DATA_FRAG for stored
/// relevant changes, GAP for the rest (including changes its content filter rejected, so that
/// reliability never stalls). Returns true when all requests were served.
/// RTPS 2.5 §8.4.9.2.12 (T12: requested change → DATA or GAP), §8.7.3.2.
fn fill_repairs(
    history: &WriterHistory,
    r: &mut ReaderProxy,
    b: &mut MessageBuilder,
    frag_size: usize,
    last: SequenceNumber,
) -> bool {
    let reader = r.remote.guid;
    while let Some(sn) = r.requested.first().copied() {
        let stored = history
            .get(sn)
            .filter(|_| sn >= r.start && !filtered_out(history, sn, reader));
        let Some(change) = stored else {
            // Not in the history (KEEP_LAST replaced it), before this reader's start, or
            // rejected by its filter: irrelevant up to the next change it gets.
            // RTPS 2.5 §8.4.9.2.12, §8.7.3.2.
            let from = sn.max(r.start);
            let (end, filtered) = irrelevant_run(history, reader, from, succ(last));
            let end = end.max(succ(sn));
            let ok = if filtered > 0 { b.filter_gap(sn, end, filtered) } else { b.gap(sn, end) };
            if !ok {
                return false;
            }
            r.requested = r.requested.split_off(&end);
            continue;
        };
        let cfi = info(history, sn);
        if change.data.len() > frag_size {
            // A fragmented repair may span datagrams: resume where the last one stopped.
            let total = fragment_count(change.data.len(), frag_size);
            let mut f = if r.repair_frag.0 == sn {
                r.repair_frag.1
            } else {
                1
            };
            while f <= total {
                if !b.data_frag(change, cfi, f, frag_size) {
                    r.repair_frag = (sn, f);
                    return false;
                }
                f = f.saturating_add(1);
            }
            r.repair_frag = (SequenceNumber(0), 1);
        } else if !b.data(change, cfi) {
            return false;
        }
        r.requested.remove(&sn);
    }
    while let Some(sn) = r.requested_frags.keys().next().copied() {
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
                let cfi = info(history, sn);
                let Some(set) = r.requested_frags.get_mut(&sn) else {
                    break;
                };
                while let Some(f) = set.first().copied() {
                    if !b.data_frag(change, cfi, f, frag_size) {
                        return false;
                    }
                    set.remove(&f);
                }
            }
        }
        r.requested_frags.remove(&sn);
    }
    true
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
    /// served round-robin), then new changes. Call until `None` after every input.
    pub fn poll_transmit(&mut self, now: Now) -> Option<Transmit> {
        // An expired change is never sent (GAP instead). DDS 1.4 §2.2.3.16.
        self.expire_lifespan(now);
        if let Some(t) = self.poll_control(now) {
            return Some(t);
        }
        loop {
            match self.push_once() {
                Push::Sent(t) => return Some(t),
                Push::Advanced => continue,
                Push::Idle => return None,
            }
        }
    }

    fn account(&mut self, sent: Sent, repair: bool) {
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
        }
        ok
    }

    fn poll_control(&mut self, now: Now) -> Option<Transmit> {
        let n = self.readers.len();
        for k in 0..n {
            let i = self.next_reader.wrapping_add(k).checked_rem(n).unwrap_or(0);
            let Some(r) = self.readers.get(i) else {
                continue;
            };
            let repair_due = r.has_requests() && r.repair_at.is_some_and(|t| t <= now.mono);
            let heartbeat_due = r.heartbeat_at.is_some_and(|t| t <= now.mono);
            if !repair_due && !heartbeat_due {
                continue;
            }
            self.next_reader = i.wrapping_add(1).checked_rem(n).unwrap_or(0);
            if let Some(t) = self.control_message(i, repair_due, heartbeat_due) {
                return Some(t);
            }
        }
        None
    }

    /// Repairs and/or a HEARTBEAT for reader `i`, sent to it alone (INFO_DST).
    fn control_message(
        &mut self,
        i: usize,
        repair_due: bool,
        heartbeat_due: bool,
    ) -> Option<Transmit> {
        let last = self.history.last_sn();
        let frag_size = self.config.fragment_size;
        let guid = self.readers.get(i)?.remote.guid;
        let mut b = self.builder(Some(guid), HEARTBEAT_LEN);
        let r = self.readers.get_mut(i)?;
        let mut drained = true;
        if repair_due {
            drained = fill_repairs(&self.history, r, &mut b, frag_size, last);
            if drained {
                r.repair_at = None;
            }
        }
        let (start, acked) = (r.start, r.acked);
        if heartbeat_due || (repair_due && drained) {
            let first = self.history.first_sn().max(start);
            if self.add_heartbeat(&mut b, first, acked >= last) {
                if let Some(r) = self.readers.get_mut(i) {
                    r.heartbeat_at = None;
                }
            }
        }
        let r = self.readers.get_mut(i)?;
        if !b.has_content() {
            // invariant: an empty message always has room; never spin on this reader.
            r.heartbeat_at = None;
            r.repair_at = None;
            return None;
        }
        let dest = r.locators().to_vec();
        let (payload, sent) = b.finish();
        self.account(sent, true);
        Some(Transmit {
            destinations: dest,
            payload,
        })
    }

    /// Pushes the lowest unsent changes to every reader whose cursor is exactly there (a
    /// reader filtered for is pushed to alone). RTPS 2.5 §8.4.9.2.4 (T4: unsent change →
    /// DATA, or GAP when no longer available), §8.7.3.2 (GAP when its filter rejects it).
    fn push_once(&mut self) -> Push {
        let last = self.history.last_sn();
        let (push_mode, reliable_writer) = (self.config.push_mode, self.config.reliable);
        let frag_size = self.config.fragment_size;
        let eligible = |r: &ReaderProxy| {
            r.next_unsent <= last && (push_mode || !(reliable_writer && r.reliable()))
        };
        let cursor = |r: &ReaderProxy| (r.next_unsent, r.next_frag);
        let Some(key) = self.readers.iter().filter(|r| eligible(r)).map(cursor).min() else {
            return Push::Idle;
        };
        let filtered: Vec<bool> =
            self.readers.iter().map(|r| self.is_filtered(r.remote.guid)).collect();
        let at_key =
            |i: usize| self.readers.get(i).is_some_and(|r| eligible(r) && cursor(r) == key);
        let Some(leader) = (0..self.readers.len()).find(|&i| at_key(i)) else {
            return Push::Idle;
        };
        let solo = filtered.get(leader).copied().unwrap_or(false);
        let member_idx: Vec<usize> = if solo {
            vec![leader]
        } else {
            (0..self.readers.len())
                .filter(|&i| at_key(i) && !filtered.get(i).copied().unwrap_or(false))
                .collect()
        };
        // Stop where another unfiltered reader's cursor is, so that it joins the group from
        // there on (a filtered reader never joins one).
        let joins = |i: usize| !solo && !filtered.get(i).copied().unwrap_or(true);
        let stop = self
            .readers
            .iter()
            .enumerate()
            .filter(|&(i, r)| {
                eligible(r) && joins(i) && !member_idx.contains(&i) && cursor(r) > key
            })
            .map(|(_, r)| cursor(r))
            .min()
            .unwrap_or((succ(last), 1));
        let members = || member_idx.iter().filter_map(|&i| self.readers.get(i));
        let any_reliable = reliable_writer && members().any(ReaderProxy::reliable);
        let dst = match member_idx.as_slice() {
            [only] => self.readers.get(*only).map(|r| r.remote.guid),
            _ => None,
        };
        let dest = union_locators(members());
        let mut b = self.builder(dst, if any_reliable { HEARTBEAT_LEN } else { 0 });
        let (mut sn, mut frag) = key;
        while sn <= last && (sn, frag) < stop {
            let rejected = dst.filter(|g| filtered_out(&self.history, sn, *g));
            match (self.history.get(sn), rejected) {
                (Some(_), Some(reader)) => {
                    // Its filter rejects the change: GAP over the whole run of rejected (or
                    // replaced) changes, best-effort readers included. RTPS 2.5 §8.7.3.2.
                    let limit = stop.0.min(succ(last));
                    let (end, n) = irrelevant_run(&self.history, reader, sn, limit);
                    let end = end.max(succ(sn));
                    if !b.filter_gap(sn, end, n) && b.has_content() {
                        break;
                    }
                    (sn, frag) = (end, 1);
                }
                (Some(c), None) if c.data.len() > frag_size => {
                    let total = fragment_count(c.data.len(), frag_size);
                    let cfi = info(&self.history, sn);
                    if frag <= total && !b.data_frag(c, cfi, frag, frag_size) && b.has_content() {
                        break;
                    }
                    frag = frag.saturating_add(1);
                    if frag > total {
                        (sn, frag) = (succ(sn), 1);
                    }
                }
                (Some(c), None) => {
                    if !b.data(c, info(&self.history, sn)) && b.has_content() {
                        break;
                    }
                    (sn, frag) = (succ(sn), 1);
                }
                (None, _) => {
                    // Replaced (KEEP_LAST) before it was sent: reliable readers get a GAP.
                    let next = self
                        .history
                        .next_stored_from(sn)
                        .unwrap_or_else(|| succ(last));
                    let end = next.min(stop.0).max(succ(sn));
                    if any_reliable && !b.gap(sn, end) && b.has_content() {
                        break;
                    }
                    (sn, frag) = (end, 1);
                }
            }
        }
        for &i in &member_idx {
            if let Some(r) = self.readers.get_mut(i) {
                (r.next_unsent, r.next_frag) = (sn, frag);
            }
        }
        if sn > last && any_reliable {
            // RTPS 2.5 §8.4.9.2.7: piggy-back a HEARTBEAT after the burst.
            let first = match dst {
                Some(g) => self
                    .readers
                    .iter()
                    .find(|r| r.remote.guid == g)
                    .map_or(SequenceNumber::ONE, |r| r.start),
                None => SequenceNumber::ONE,
            };
            let first = self.history.first_sn().max(first);
            self.add_heartbeat(&mut b, first, false);
        }
        self.collect_garbage();
        if !b.has_content() {
            return Push::Advanced;
        }
        let (payload, sent) = b.finish();
        self.account(sent, false);
        Push::Sent(Transmit {
            destinations: dest,
            payload,
        })
    }
}
