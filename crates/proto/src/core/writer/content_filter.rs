//! Writer-side content filtering glue: the writer's [`FilterSet`], evaluating each change once
//! into the result it keeps ([`ChangeFilter`], `change_filter.rs`), and the filter statistics.
//!
//! Must not: evaluate a filter more than once per change (the result is stored with the
//! change and reused for pushes, repairs and every fragment), or decide what goes on the wire
//! (`send.rs` does). No I/O, no clock.
//!
//! RTPS 2.5 §8.7.3-§8.7.4 (content-filtered topics, writer filtering), §9.6.4.1
//! (ContentFilterInfo_t).
//!
//! # Overview
//! On each ALIVE write while at least one matched reader is filtered for, the sample is
//! evaluated once (memoized by the [`FilterSet`]). The change keeps the `Arc<PassSet>` and
//! the [`SlotTable`] it refers to (reader → slot, signatures; one `Arc` shared by every change
//! written until the filter set changes), so the per-change cost on a memo hit does not grow
//! with the number of filtered readers. Readers are decided by slot index ([`ReaderSlot`],
//! resolved for every proxy whenever the filter set changes, `resolve_filter_slots`). A reader
//! the change does not pass gets a GAP instead of DATA (RTPS 2.5 §8.7.3.2), told lazily
//! (`send.rs`); every DATA and DATA_FRAG of the change carries the info (docs/interop-facts.md
//! §2.1, §2.3). A datagram for one reader carries only that reader's signature and bit
//! ([`ChangeFilter::info_for`]: a reader looks only for its own signature, docs/interop-facts.md
//! §2.3), one shared by several readers the full list ([`ChangeFilter::shared_info`], built at send
//! time; RTPS 2.5 §8.7.3.2). Both are built from the table and pass set. Readers matched or
//! re-filtered after the write get the stored changes they have not acknowledged evaluated
//! again under the new filter set ([`Writer::refilter_history`]), so a TRANSIENT_LOCAL late
//! joiner's history and its repairs are filtered as live data is (a reader that cannot filter
//! itself, such as a router's proxy reader for a type it does not know, depends on it).
//! Dispose / unregister changes are not filtered (RTPS 2.5 §8.7.4: instance state changes
//! still reach every reader).

use std::collections::BTreeMap;

use super::Writer;
use super::change_filter::{ChangeFilter, ReaderSlot};
use super::filter_set::{FilterSet, FilterStats, NotFiltering};
use super::message::MESSAGE_OVERHEAD;
use super::push_queue::Input;
use super::reader_proxy::ReaderProxy;
use crate::core::ChangeKind;
use crate::core::discovery::ContentFilter;
use crate::wire::Guid;

/// What [`Writer::set_reader_filter`] did.
#[derive(Clone, Debug, PartialEq)]
pub enum FilterUpdate {
    /// The same filter (same signature) or still none: nothing changed.
    Unchanged,
    /// The writer now filters for the reader (or, with `None`, stopped filtering for it).
    Applied,
    /// The announced filter is not usable here: the reader gets every sample.
    Rejected(NotFiltering),
}

/// Writer-side filtering figures: the [`FilterSet`] counters plus what the filtering changed
/// on the wire.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WriterFilterStats {
    /// Memo lookups, hits, evaluations.
    pub filter: FilterStats,
    /// Readers currently filtered for.
    pub filtered_readers: usize,
    /// DATA and DATA_FRAG submessages sent (first transmissions and repairs).
    pub data_sent: u64,
    /// GAP submessages sent because of filtering (consecutive filtered SNs share one); an
    /// undercount once the history dropped the changes (see
    /// [`WriterCounters::filter_gaps_sent`](super::WriterCounters::filter_gaps_sent)).
    pub filter_gaps_sent: u64,
    /// (reader, sequence number) pairs answered with GAP instead of DATA by filtering
    /// (repairs included: a re-requested filtered SN counts again).
    pub samples_filtered: u64,
    /// Datagrams this writer put on the wire (one per destination locator), control
    /// messages and liveliness included.
    pub datagrams_sent: u64,
    /// Bytes of those datagrams (RTPS messages, without UDP/IP headers).
    pub bytes_sent: u64,
    /// HEARTBEAT submessages sent (piggy-backed or alone).
    pub heartbeats_sent: u64,
    /// GAP submessages sent (for any reason, filtering included).
    pub gaps_sent: u64,
    /// Samples sent as one multicast datagram to a group of listeners (per-sample choice,
    /// `multicast.rs`).
    pub samples_multicast: u64,
    /// Samples at least one reader got by unicast.
    pub samples_unicast: u64,
    /// Samples written while filtering, whose info did not fit a fragment's message (sent
    /// to everyone without PID_CONTENT_FILTER_INFO; the readers filter).
    pub info_too_large: u64,
}

/// The writer's filtering state.
pub(super) struct Filtering {
    set: FilterSet,
    /// Signature of the filter each reader last announced (usable or not), so that SEDP
    /// re-announcements of the same filter neither invalidate the memo nor warn again.
    announced: BTreeMap<Guid, [u8; 16]>,
    info_too_large: u64,
}

impl core::fmt::Debug for Filtering {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Filtering")
            .field("readers", &self.set.len())
            .finish()
    }
}

impl Filtering {
    pub(super) fn new(set: FilterSet) -> Self {
        Filtering {
            set,
            announced: BTreeMap::new(),
            info_too_large: 0,
        }
    }
}

impl Writer {
    /// Sets, replaces or (with `None`) removes the content filter a matched reader announced
    /// (PID_CONTENT_FILTER_PROPERTY). A changed filter invalidates the memoized results; the
    /// same filter again is a no-op. Without a type descriptor the writer filters for nobody.
    /// RTPS 2.5 §8.7.3.1 (a changed filter re-publishes the DATA(r)).
    pub fn set_reader_filter(
        &mut self,
        reader: Guid,
        filter: Option<&ContentFilter>,
    ) -> FilterUpdate {
        let Some(f) = self.filtering.as_mut() else {
            return match filter {
                Some(_) => FilterUpdate::Rejected(NotFiltering::NoTypeDescriptor),
                None => FilterUpdate::Unchanged,
            };
        };
        let signature = filter.map(ContentFilter::signature);
        if f.announced.get(&reader).copied() == signature {
            return FilterUpdate::Unchanged;
        }
        // Who is pushed to alone may change.
        self.queue.invalidate(Input::Regrouped, &mut self.readers);
        match signature {
            Some(s) => f.announced.insert(reader, s),
            None => f.announced.remove(&reader),
        };
        let update = match f.set.set_reader_filter(reader, filter) {
            Ok(()) => FilterUpdate::Applied,
            Err(e) => FilterUpdate::Rejected(e),
        };
        self.resolve_filter_slots();
        if update == FilterUpdate::Applied && filter.is_some() {
            self.refilter_history(reader);
        }
        update
    }

    /// Evaluates again, under the current filter set, the stored changes `reader` has not
    /// acknowledged (from its start when it is new): its filter came after they were
    /// written, so their stored outcome does not list it. The memo makes changes with a
    /// projection seen before cost one lookup. RTPS 2.5 §8.7.3.2 (a writer that filters sends
    /// a GAP for what a reader's filter rejects).
    fn refilter_history(&mut self, reader: Guid) {
        let Some(from) = self
            .readers
            .find(reader)
            .and_then(|k| self.readers.get(k))
            .map(|r| r.acked().checked_add(1).unwrap_or(r.acked()).max(r.start()))
        else {
            return;
        };
        if from > self.history.last_sn() {
            return;
        }
        let (max_message, fragment) = (self.config.max_message_size, self.config.fragment_size);
        let invert = self.config.inverts_filter_bits();
        let Some(f) = self.filtering.as_mut() else {
            return;
        };
        self.history.refilter(from, |c| {
            let room = info_room(max_message, fragment, c.data.len());
            evaluate(f, c.kind, &c.data, room, invert)
        });
    }

    /// The one place the readers' filter slots are resolved: after every change of the
    /// filter set (a new reader is resolved when matched).
    pub(super) fn resolve_filter_slots(&mut self) {
        if let Some(f) = &self.filtering {
            let set = &f.set;
            self.readers
                .resolve_filter_slots(set.generation(), |g| set.slot_of(g));
        }
    }

    /// A new reader's slot in the current filter set.
    pub(super) fn filter_slot_of(&self, reader: Guid) -> Option<usize> {
        self.filtering.as_ref()?.set.slot_of(reader)
    }

    /// Forgets a reader's filter (unmatched).
    pub(super) fn forget_reader_filter(&mut self, reader: Guid) {
        if let Some(f) = self.filtering.as_mut() {
            f.announced.remove(&reader);
            f.set.remove_reader(reader);
        }
        self.resolve_filter_slots();
    }

    /// Evaluates a new change once against every filtered reader. `None` when nothing is
    /// filtered (no filtered reader, not ALIVE, or the info would not fit a message).
    pub(super) fn evaluate_change(
        &mut self,
        kind: ChangeKind,
        data: &[u8],
    ) -> Option<ChangeFilter> {
        let room = info_room(
            self.config.max_message_size,
            self.config.fragment_size,
            data.len(),
        );
        let invert = self.config.inverts_filter_bits();
        let f = self.filtering.as_mut()?;
        evaluate(f, kind, data, room, invert)
    }

    /// Writer-side filtering figures (all zero when the writer has no type descriptor).
    pub fn filter_stats(&self) -> WriterFilterStats {
        let c = &self.counters;
        let mut s = WriterFilterStats {
            data_sent: c
                .data_sent
                .saturating_add(c.data_frag_sent)
                .saturating_add(c.repairs_sent),
            filter_gaps_sent: c.filter_gaps_sent,
            datagrams_sent: c.wire_datagrams,
            bytes_sent: c.wire_bytes,
            heartbeats_sent: c.heartbeats_sent,
            gaps_sent: c.gaps_sent,
            samples_filtered: c.samples_filtered,
            samples_multicast: c.samples_multicast,
            samples_unicast: c.samples_unicast,
            ..WriterFilterStats::default()
        };
        if let Some(f) = &self.filtering {
            s.filter = f.set.stats();
            s.filtered_readers = f.set.len();
            s.info_too_large = f.info_too_large;
        }
        s
    }

    /// Reader `r`'s slot in the current filter set (`Readers::filter_slot`).
    pub(super) fn reader_slot(&self, r: &ReaderProxy) -> ReaderSlot {
        self.readers.filter_slot(r)
    }
}

/// One change's outcome under `f`'s current filter set: `None` when nothing is filtered (no
/// filtered reader, not ALIVE, or the info would not fit in `room` bytes of a message).
fn evaluate(
    f: &mut Filtering,
    kind: ChangeKind,
    data: &[u8],
    room: usize,
    invert: bool,
) -> Option<ChangeFilter> {
    if kind != ChangeKind::Alive || f.set.is_empty() {
        return None;
    }
    let pass = f.set.evaluate(data);
    let table = f.set.slot_table();
    // The info rides on every DATA_FRAG: it must fit next to a full fragment, and in a
    // parameter (length is a u16). Otherwise send to everyone without it (no stall).
    let len = table.info_len().saturating_add(4);
    if len > room || len > usize::from(u16::MAX) {
        f.info_too_large = f.info_too_large.saturating_add(1);
        return None;
    }
    Some(ChangeFilter::new(pass, table, invert))
}

/// Bytes a message of at most `max_message` bytes has for PID_CONTENT_FILTER_INFO next to the
/// first fragment (at most `fragment` bytes) of a `len`-byte payload.
fn info_room(max_message: usize, fragment: usize, len: usize) -> usize {
    max_message
        .saturating_sub(MESSAGE_OVERHEAD)
        .saturating_sub(fragment.min(len))
}
