//! Writer-side content filtering glue: the writer's [`FilterSet`], the per-change result it
//! keeps (pass set + encoded PID_CONTENT_FILTER_INFO), and the filter statistics.
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
//! evaluated once (memoized by the [`FilterSet`]). The change keeps the `Arc<PassSet>`, the
//! reader → slot map it refers to (shared, copy-on-write) and the encoded
//! PID_CONTENT_FILTER_INFO value listing every filtered reader's signature and bit. A reader
//! the change does not pass gets a GAP instead of DATA (RTPS 2.5 §8.7.3.2), told lazily
//! (`send.rs`); every DATA and DATA_FRAG of the change carries the info (facts §2.1, §2.3).
//! A datagram for one reader carries only that reader's signature and bit
//! ([`ChangeFilter::info_for`]: a reader looks only for its own signature, facts §2.3), one
//! shared by several readers the full list (RTPS 2.5 §8.7.3.2). Readers matched or
//! re-filtered after the write are not in the stored map: they get DATA and filter themselves.
//! Dispose / unregister changes are not filtered (RTPS 2.5 §8.7.4: instance state changes
//! still reach every reader).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Writer;
use super::message::{ENDIAN, MESSAGE_OVERHEAD};
use crate::cdr;
use crate::core::ChangeKind;
use crate::core::discovery::ContentFilter;
use crate::core::filtering::{FilterSet, FilterStats, NotFiltering, PassSet, SlotMap};
use crate::wire::Guid;

/// The filter outcome stored with one change.
#[derive(Clone, Debug)]
pub(super) struct ChangeFilter {
    pass: Arc<PassSet>,
    slots: Arc<SlotMap>,
    /// Test-only mode: every filtered reader gets DATA, with its bit inverted.
    invert: bool,
    /// The encoded PID_CONTENT_FILTER_INFO value (no parameter header). RTPS 2.5 §9.6.4.1.
    pub(super) info: Vec<u8>,
}

/// Bytes of a one-signature PID_CONTENT_FILTER_INFO value: numBitmaps, one bitmap,
/// numSignatures, one signature. RTPS 2.5 §9.6.4.1.
pub(super) const SINGLE_INFO_LEN: usize = 28;

impl ChangeFilter {
    /// The PID_CONTENT_FILTER_INFO value for a datagram to `reader` alone: its own signature
    /// and bit only, copied from the full list (so it says what was decided when the change
    /// was written, inverted-bit test mode included). `None` when the reader was not filtered
    /// for then: no signature of its own is listed, and it filters the sample itself (facts
    /// §2.3). RTPS 2.5 §9.6.4.1: MSB-first bitmap, numBitmaps = ceil(numSignatures / 32).
    pub(super) fn info_for(&self, reader: Guid) -> Option<[u8; SINGLE_INFO_LEN]> {
        let slot = *self.slots.get(&reader)?;
        let mut r = cdr::Reader::new(&self.info, ENDIAN);
        let nb = usize::try_from(r.u32("numBitmaps").ok()?).ok()?;
        let word = slot.checked_div(32)?;
        let bit = u32::try_from(slot.checked_rem(32)?).ok()?;
        let mask = 1u32.checked_shl(31u32.checked_sub(bit)?)?;
        r.skip(word.checked_mul(4)?, "filterResult").ok()?;
        let passed = r.u32("filterResult").ok()? & mask != 0;
        r.skip(nb.checked_sub(word)?.checked_sub(1)?.checked_mul(4)?, "filterResult").ok()?;
        r.u32("numSignatures").ok()?;
        r.skip(slot.checked_mul(16)?, "filterSignatures").ok()?;
        let signature = r.take_array::<16>("filterSignature").ok()?;
        let mut out = [0u8; SINGLE_INFO_LEN];
        let mut v = Vec::with_capacity(SINGLE_INFO_LEN);
        let w = &mut cdr::Writer::new(&mut v, ENDIAN);
        w.u32(1);
        w.u32(if passed { 0x8000_0000 } else { 0 });
        w.u32(1);
        w.bytes(&signature);
        out.copy_from_slice(v.get(..SINGLE_INFO_LEN)?);
        Some(out)
    }

    /// True when `reader` gets DATA for this change: it was not filtered for when the change
    /// was written, or the change passes its filter.
    pub(super) fn sends_to(&self, reader: Guid) -> bool {
        if self.invert {
            return true;
        }
        match self.slots.get(&reader) {
            Some(&i) => self.pass.contains(i),
            None => true,
        }
    }
}

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
    /// GAP submessages sent because of filtering (consecutive filtered SNs share one).
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
        match signature {
            Some(s) => f.announced.insert(reader, s),
            None => f.announced.remove(&reader),
        };
        match f.set.set_reader_filter(reader, filter) {
            Ok(()) => FilterUpdate::Applied,
            Err(e) => FilterUpdate::Rejected(e),
        }
    }

    /// Forgets a reader's filter (unmatched).
    pub(super) fn forget_reader_filter(&mut self, reader: Guid) {
        if let Some(f) = self.filtering.as_mut() {
            f.announced.remove(&reader);
            f.set.remove_reader(reader);
        }
    }

    /// Evaluates a new change once against every filtered reader. `None` when nothing is
    /// filtered (no filtered reader, not ALIVE, or the info would not fit a message).
    pub(super) fn evaluate_change(
        &mut self,
        kind: ChangeKind,
        data: &[u8],
    ) -> Option<ChangeFilter> {
        let room = self
            .config
            .max_message_size
            .saturating_sub(MESSAGE_OVERHEAD)
            .saturating_sub(self.config.fragment_size.min(data.len()));
        let invert = self.config.invert_filter_bit_for_tests;
        let f = self.filtering.as_mut()?;
        if kind != ChangeKind::Alive || f.set.is_empty() {
            return None;
        }
        let pass = f.set.evaluate(data);
        let mut info = f.set.filter_info(&pass);
        if invert {
            for i in 0..info.len() {
                let bit = info.passed(i).unwrap_or(false);
                info.set(i, !bit);
            }
        }
        // The info rides on every DATA_FRAG: it must fit next to a full fragment, and in a
        // parameter (length is a u16). Otherwise send to everyone without it (no stall).
        let len = info.buffer_len().saturating_add(4);
        if len > room || len > usize::from(u16::MAX) {
            f.info_too_large = f.info_too_large.saturating_add(1);
            return None;
        }
        let mut encoded = Vec::with_capacity(info.buffer_len());
        info.emit(&mut cdr::Writer::new(&mut encoded, ENDIAN));
        Some(ChangeFilter {
            pass,
            slots: f.set.slot_map(),
            invert,
            info: encoded,
        })
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
            ..WriterFilterStats::default()
        };
        if let Some(f) = &self.filtering {
            s.filter = f.set.stats();
            s.filtered_readers = f.set.len();
            s.info_too_large = f.info_too_large;
        }
        s
    }

    /// True when `reader` is currently filtered for (it is then never grouped with others).
    pub(super) fn is_filtered(&self, reader: Guid) -> bool {
        self.filtering
            .as_ref()
            .is_some_and(|f| f.set.slot_of(reader).is_some())
    }
}
