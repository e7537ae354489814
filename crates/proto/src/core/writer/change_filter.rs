//! The filter outcome a change carries ([`ChangeFilter`]: its memoized pass set and the slot
//! table it refers to) and the per-reader handle decisions use ([`ReaderSlot`]), with the
//! PID_CONTENT_FILTER_INFO values built from them (encoded by `wire::plist`).
//!
//! Must not: evaluate a filter (the writer's filter set did, once, when the change was
//! written: `content_filter.rs`), decide what goes on the wire (`send.rs`), or depend on the
//! writer's other parts (history, readers, planner and repair all read it). No I/O, no clock.
//!
//! RTPS 2.5 §8.7.3.2 (DATA to a filtered reader carries the writer's result), §9.6.4.1
//! (ContentFilterInfo_t: MSB-first bitmaps, numBitmaps = ceil(numSignatures / 32));
//! docs/interop-facts.md §2.1, §2.3.

use std::sync::Arc;

use super::filter_set::{PassSet, SlotTable};
use super::message::ENDIAN;
use crate::cdr;
use crate::wire::Guid;
use crate::wire::plist::ContentFilterInfo;

/// The filter outcome stored with one change: the memoized pass set and the slot table it
/// refers to (shared by every change written while the filter set did not change).
#[derive(Clone, Debug)]
pub(super) struct ChangeFilter {
    pass: Arc<PassSet>,
    table: Arc<SlotTable>,
    /// Test-only mode: every filtered reader gets DATA, with its bit inverted.
    invert: bool,
}

/// Bytes of a one-signature PID_CONTENT_FILTER_INFO value: numBitmaps, one bitmap,
/// numSignatures, one signature. RTPS 2.5 §9.6.4.1.
pub(super) const SINGLE_INFO_LEN: usize = crate::wire::plist::SINGLE_FILTER_INFO_LEN;

/// A reader and its slot in the writer's filter set at one generation (`Readers::filter_slot`,
/// resolved by `Writer::resolve_filter_slots`), so that per-change decisions under that generation's slot table are
/// one bit test, not a map lookup.
#[derive(Copy, Clone, Debug)]
pub(super) struct ReaderSlot {
    guid: Guid,
    generation: u64,
    slot: Option<usize>,
}

impl ReaderSlot {
    /// Reader `guid` at `slot` of the filter set at `generation`.
    pub(super) fn new(guid: Guid, generation: u64, slot: Option<usize>) -> Self {
        ReaderSlot {
            guid,
            generation,
            slot,
        }
    }

    /// A destination that is not a filtered reader (decided by lookup in each change's table).
    pub(super) fn unresolved(guid: Guid) -> Self {
        ReaderSlot {
            guid,
            generation: u64::MAX,
            slot: None,
        }
    }
}

impl ChangeFilter {
    /// The outcome `pass` under `table` (`invert`: the test-only inverted-bit mode).
    pub(super) fn new(pass: Arc<PassSet>, table: Arc<SlotTable>, invert: bool) -> Self {
        ChangeFilter {
            pass,
            table,
            invert,
        }
    }

    /// `reader`'s slot in this change's table, if it was filtered for when it was written.
    fn slot(&self, reader: ReaderSlot) -> Option<usize> {
        if reader.generation == self.table.generation() {
            reader.slot
        } else {
            self.table.slot_of(reader.guid)
        }
    }

    /// The PID_CONTENT_FILTER_INFO value for a datagram to `reader` alone: its own signature
    /// and bit only (what was decided when the change was written, inverted-bit test mode
    /// included). `None` when the reader was not filtered for then: no signature of its own
    /// is listed, and it filters the sample itself (docs/interop-facts.md §2.3). RTPS 2.5 §9.6.4.1:
    /// MSB-first bitmap, numBitmaps = ceil(numSignatures / 32).
    pub(super) fn info_for(&self, reader: ReaderSlot) -> Option<[u8; SINGLE_INFO_LEN]> {
        let slot = self.slot(reader)?;
        let signature = self.table.signature(slot)?;
        let passed = self.pass.contains(slot) != self.invert;
        let mut out = [0u8; SINGLE_INFO_LEN];
        let mut v = Vec::with_capacity(SINGLE_INFO_LEN);
        let w = &mut cdr::CdrWriter::new(&mut v, ENDIAN);
        ContentFilterInfo::emit_single(w, &signature, passed);
        out.copy_from_slice(v.get(..SINGLE_INFO_LEN)?);
        Some(out)
    }

    /// The encoded PID_CONTENT_FILTER_INFO value listing every filtered reader's signature
    /// and bit, for a datagram shared by several readers. RTPS 2.5 §8.7.3.2, §9.6.4.1.
    pub(super) fn shared_info(&self) -> Vec<u8> {
        let info = self.table.filter_info(&self.pass, self.invert);
        let mut encoded = Vec::with_capacity(info.buffer_len());
        info.emit(&mut cdr::CdrWriter::new(&mut encoded, ENDIAN));
        encoded
    }

    /// The generation of the slot table this change was evaluated under.
    pub(super) fn table_generation(&self) -> u64 {
        self.table.generation()
    }

    /// `reader`'s slot in this change's table and its filter's signature, if it was filtered
    /// for when the change was written.
    pub(super) fn slot_signature(&self, reader: ReaderSlot) -> Option<(usize, [u8; 16])> {
        let slot = self.slot(reader)?;
        Some((slot, self.table.signature(slot)?))
    }

    /// How many of `readers` matched readers get DATA for this change: the filtered ones it
    /// passes and every reader not filtered for when it was written.
    pub(super) fn passing_readers(&self, readers: usize) -> usize {
        if self.invert {
            return readers;
        }
        self.pass
            .count()
            .saturating_add(readers.saturating_sub(self.table.len()))
    }

    /// The encoded PID_CONTENT_FILTER_INFO value for a multicast datagram: the signature and
    /// bit of each slot in `slots` (one per distinct filter among the group's listeners).
    /// `None` when no listener is filtered for. RTPS 2.5 §8.7.3.2, §9.6.4.1.
    pub(super) fn group_info(&self, slots: &[usize]) -> Option<Vec<u8>> {
        let mut info = ContentFilterInfo::new();
        for &slot in slots {
            info.push(
                self.table.signature(slot)?,
                self.pass.contains(slot) != self.invert,
            );
        }
        if slots.is_empty() {
            return None;
        }
        let mut encoded = Vec::with_capacity(info.buffer_len());
        info.emit(&mut cdr::CdrWriter::new(&mut encoded, ENDIAN));
        Some(encoded)
    }

    /// True when `reader` gets DATA for this change: it was not filtered for when the change
    /// was written, or the change passes its filter.
    pub(super) fn sends_to(&self, reader: ReaderSlot) -> bool {
        if self.invert {
            return true;
        }
        match self.slot(reader) {
            Some(i) => self.pass.contains(i),
            None => true,
        }
    }
}
