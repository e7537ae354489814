//! Fragment reassembly for one remote writer: DATA_FRAG submessages become whole samples.
//!
//! Must not: allocate from a wire field before checking it against the configured limits
//! (sampleSize ≤ max_sample_size, samples in flight ≤ the cap; docs/conventions.md §4), trust a
//! fragment's range, or let fragments of one sample disagree on its shape.
//!
//! RTPS 2.5 §8.3.7.3 (DataFrag), §8.4.14.1 (large data), §8.3.7.6 (HeartbeatFrag),
//! §8.3.7.8 (NackFrag).
//!
//! # Overview
//! Each sample in flight has a buffer with room for `sampleSize` octets and a bitmap of
//! received fragments. The first fragment fixes sampleSize, fragmentSize and the K flag; a
//! later fragment that disagrees means the writer (or an attacker) is inconsistent, so the
//! partial sample is dropped and will be re-requested. When all fragments are in, the buffer
//! becomes the sample's payload without a copy.
//!
//! The buffer is not zeroed up front: fragments arriving in order are appended, and only the
//! room before a fragment that overtakes missing ones is zero-filled (then overwritten when
//! they come). Each writer keeps a handle on the buffer of its last completed sample; once the
//! application has dropped that sample, the next sample of the writer is reassembled in the
//! same allocation (no allocation, and no fresh pages to fault in, per large sample). A
//! reclaimable buffer counts towards [`Reassembly::bytes`] (the reader-wide budget). The
//! runtime hands a wakeup's samples to the application after the whole batch of datagrams,
//! so a writer keeps the handles of its last few samples ([`MAX_SPARES`], at most
//! [`MAX_SPARE_BYTES`] in all).

use std::collections::{BTreeMap, VecDeque};

use bytes::{Bytes, BytesMut};

use super::inline_qos::InlineInfo;
use crate::time::Timestamp;
use crate::wire::submessage::DataFrag;
use crate::wire::{FragmentNumber, FragmentNumberSet, MAX_SET_BITS, SequenceNumber};

/// Bits per bitmap word.
const WORD_BITS: u32 = 64;
/// Buffers of completed samples a writer keeps for reuse…
const MAX_SPARES: usize = 16;
/// …and their total size at most (a larger sample is not kept).
const MAX_SPARE_BYTES: usize = 1 << 20;

/// Default cap on the reassembly buffers of one reader over all its remote writers
/// (`ReaderConfig::max_reassembly_bytes`): a partial sample reserves its whole sampleSize at
/// its first fragment, so without it an attacker announcing many writers could reserve
/// writers × in-flight × max_sample_size.
pub const DEFAULT_MAX_REASSEMBLY_BYTES: usize = 64 * 1024 * 1024;

/// True when starting the sample of `frag` would take the buffers of `all` (every remote
/// writer of one reader) past `budget`. A sample above `max_sample_size` is not judged here:
/// [`Reassembly::handle`] refuses it as too large.
pub(super) fn over_budget<'a>(
    all: impl Iterator<Item = &'a Reassembly>,
    frag: &DataFrag<'_>,
    max_sample_size: usize,
    budget: usize,
) -> bool {
    let Ok(size) = usize::try_from(frag.sample_size) else {
        return false;
    };
    let reserved = all.map(Reassembly::bytes).fold(0, usize::saturating_add);
    size <= max_sample_size && reserved.saturating_add(size) > budget
}

/// Why a DATA_FRAG was not used.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum FragRefusal {
    /// sampleSize above `max_sample_size`: refused before allocating.
    TooLarge,
    /// sampleSize, fragmentSize or K differ from earlier fragments: the partial was dropped.
    Inconsistent,
    /// A fragment lies outside the sample or its bytes are missing.
    BadRange,
    /// The in-flight cap is zero.
    NoCapacity,
}

/// The outcome of one DATA_FRAG.
#[derive(Debug)]
pub(super) enum FragOutcome {
    /// Stored; more fragments are needed.
    Incomplete,
    /// The last missing fragment arrived.
    Complete(Completed),
    /// Not used.
    Refused(FragRefusal),
}

/// A reassembled sample.
#[derive(Debug)]
pub(super) struct Completed {
    /// The whole serializedPayload.
    pub data: Bytes,
    /// The fragments were of the serialized key (DATA_FRAG K flag).
    pub key: bool,
    /// Inline QoS of the first fragment that carried any.
    pub inline: InlineInfo,
    /// Source timestamp of the first fragment that had one.
    pub source_timestamp: Option<Timestamp>,
}

/// One sample being reassembled.
#[derive(Debug)]
struct Partial {
    sample_size: u32,
    fragment_size: u16,
    key: bool,
    total: u32,
    /// Room for `sample_size` octets; filled up to its length (see [`write_fragment`]).
    buf: BytesMut,
    received: Vec<u64>,
    received_count: u32,
    inline: InlineInfo,
    source_timestamp: Option<Timestamp>,
    /// Creation order, for evicting the oldest.
    order: u64,
    /// Highest fragment a HEARTBEAT_FRAG announced.
    announced_last: u32,
}

impl Partial {
    fn has(&self, frag: u32) -> bool {
        let Some(i) = frag.checked_sub(1) else {
            return false;
        };
        self.word(i / WORD_BITS) & (1u64 << (i % WORD_BITS)) != 0
    }

    fn word(&self, w: u32) -> u64 {
        usize::try_from(w)
            .ok()
            .and_then(|w| self.received.get(w))
            .copied()
            .unwrap_or(u64::MAX)
    }

    /// Marks `frag` (1-based) received; false if it already was.
    fn mark(&mut self, frag: u32) -> bool {
        let Some(i) = frag.checked_sub(1) else {
            return false;
        };
        let slot = usize::try_from(i / WORD_BITS)
            .ok()
            .and_then(|w| self.received.get_mut(w));
        let Some(word) = slot else {
            return false;
        };
        let bit = 1u64 << (i % WORD_BITS);
        if *word & bit != 0 {
            return false;
        }
        *word |= bit;
        self.received_count = self.received_count.saturating_add(1);
        true
    }

    /// The first fragment number ≥ 1 not yet received, or `None` when complete.
    fn first_missing(&self) -> Option<u32> {
        let (w, word) = self
            .received
            .iter()
            .enumerate()
            .find(|(_, word)| **word != u64::MAX)?;
        let w = u32::try_from(w).ok()?;
        let frag = w
            .checked_mul(WORD_BITS)?
            .checked_add(word.trailing_ones())?
            .checked_add(1)?;
        (frag <= self.total).then_some(frag)
    }

    /// Missing fragments up to `last` (at most 256 from the first missing one).
    fn missing_set(&self, last: u32) -> Option<FragmentNumberSet> {
        let last = last.min(self.total);
        let first = self.first_missing().filter(|f| *f <= last)?;
        let end = first
            .saturating_add(MAX_SET_BITS.saturating_sub(1))
            .min(last);
        let members = (first..=end).filter(|f| !self.has(*f)).map(FragmentNumber);
        FragmentNumberSet::from_members(FragmentNumber(first), members).ok()
    }
}

/// All samples of one writer being reassembled.
#[derive(Debug, Default)]
pub(super) struct Reassembly {
    partials: BTreeMap<SequenceNumber, Partial>,
    next_order: u64,
    /// The payloads of the last completed samples, oldest first: a buffer is reused for a
    /// new sample once nothing else refers to it.
    spares: VecDeque<Bytes>,
}

/// Writes the fragment `bytes` at `offset` of `buf`, whose capacity covers the sample and
/// whose length is the end of the highest fragment so far: a fragment at the end is
/// appended, one beyond it first zero-fills the gap (its missing fragments overwrite the
/// zeros later), one below it overwrites. `offset + bytes.len()` is within the sample
/// ([`fragment_ranges`]), so the buffer never grows past its reserved capacity.
fn write_fragment(buf: &mut BytesMut, offset: usize, bytes: &[u8]) {
    if offset > buf.len() {
        buf.resize(offset, 0);
    }
    let inside = buf.len().saturating_sub(offset).min(bytes.len());
    let (overwrite, append) = bytes.split_at(inside);
    let end = offset.saturating_add(inside);
    if let Some(dst) = buf.get_mut(offset..end) {
        dst.copy_from_slice(overwrite);
    }
    buf.extend_from_slice(append);
}

/// `(byte offset, length)` of every fragment in `frag`, checked against the sample.
/// RTPS 2.5 §8.3.7.3.3: fragmentStartingNum ≥ 1, fragmentSize > 0, and every fragment inside
/// sampleSize; the last fragment of the sample may be short. The bytes must all be present.
fn fragment_ranges(frag: &DataFrag<'_>) -> Option<Vec<(usize, usize)>> {
    let size = u64::from(frag.fragment_size);
    let sample = u64::from(frag.sample_size);
    if size == 0 || frag.fragment_starting_num.0 == 0 || frag.fragments_in_submessage == 0 {
        return None;
    }
    let mut ranges = Vec::new();
    let mut bytes_needed = 0u64;
    for i in 0..u64::from(frag.fragments_in_submessage) {
        let index = u64::from(frag.fragment_starting_num.0)
            .checked_sub(1)?
            .checked_add(i)?;
        let offset = index.checked_mul(size)?;
        if offset >= sample {
            return None;
        }
        let len = size.min(sample.checked_sub(offset)?);
        bytes_needed = bytes_needed.checked_add(len)?;
        ranges.push((usize::try_from(offset).ok()?, usize::try_from(len).ok()?));
    }
    // Trailing octets beyond the declared fragments (padding) are tolerated.
    (u64::try_from(frag.fragments.len()).ok()? >= bytes_needed).then_some(ranges)
}

impl Reassembly {
    /// Number of samples being reassembled.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.partials.len()
    }

    /// Octets reserved by the partial samples (their buffers' capacity) and by the spare
    /// buffers only we hold.
    pub(super) fn bytes(&self) -> usize {
        let spare = self
            .spares
            .iter()
            .filter(|b| b.is_unique())
            .map(Bytes::len)
            .fold(0, usize::saturating_add);
        self.partials
            .values()
            .map(|p| p.buf.capacity())
            .fold(spare, usize::saturating_add)
    }

    /// True if `sn` is being reassembled.
    pub(super) fn contains(&self, sn: SequenceNumber) -> bool {
        self.partials.contains_key(&sn)
    }

    /// Forgets `sn` (it arrived whole, or became irrelevant).
    pub(super) fn remove(&mut self, sn: SequenceNumber) {
        self.partials.remove(&sn);
    }

    /// Forgets every sample below `sn`.
    pub(super) fn drop_below(&mut self, sn: SequenceNumber) {
        self.partials = self.partials.split_off(&sn);
    }

    /// Records a HEARTBEAT_FRAG: fragments up to `last` of `sn` exist. RTPS 2.5 §8.3.7.6.
    pub(super) fn note_heartbeat_frag(&mut self, sn: SequenceNumber, last: FragmentNumber) {
        if let Some(p) = self.partials.get_mut(&sn) {
            p.announced_last = p.announced_last.max(last.0);
        }
    }

    /// NACK_FRAG contents: per partial sample the writer is known to have, its missing
    /// fragments. A sample ≤ `available_max` (HEARTBEAT lastSN) exists whole; otherwise only
    /// the fragments a HEARTBEAT_FRAG announced. RTPS 2.5 §8.4.10.4 / §8.3.7.8.
    pub(super) fn nack_sets(
        &self,
        available_max: SequenceNumber,
    ) -> impl Iterator<Item = (SequenceNumber, FragmentNumberSet)> + '_ {
        self.partials.iter().filter_map(move |(sn, p)| {
            let last = if *sn <= available_max {
                p.total
            } else {
                p.announced_last
            };
            p.missing_set(last).map(|set| (*sn, set))
        })
    }

    /// Adds one DATA_FRAG. `max_sample_size` and `max_in_flight` are the configured limits.
    pub(super) fn handle(
        &mut self,
        frag: &DataFrag<'_>,
        source_timestamp: Option<Timestamp>,
        inline: InlineInfo,
        max_sample_size: usize,
        max_in_flight: usize,
    ) -> FragOutcome {
        let sn = frag.writer_sn;
        // Shape consistency with earlier fragments of the same sample (RTPS 2.5 §8.3.7.3:
        // sampleSize and fragmentSize are properties of the sample).
        if let Some(p) = self.partials.get(&sn) {
            if p.sample_size != frag.sample_size
                || p.fragment_size != frag.fragment_size
                || p.key != frag.key
            {
                self.partials.remove(&sn);
                return FragOutcome::Refused(FragRefusal::Inconsistent);
            }
        }
        // docs/conventions.md §4: check the wire size against our limit before allocating anything.
        let Ok(sample_size) = usize::try_from(frag.sample_size) else {
            return FragOutcome::Refused(FragRefusal::TooLarge);
        };
        if sample_size > max_sample_size {
            return FragOutcome::Refused(FragRefusal::TooLarge);
        }
        let Some(ranges) = fragment_ranges(frag) else {
            return FragOutcome::Refused(FragRefusal::BadRange);
        };
        if !self.partials.contains_key(&sn) {
            if max_in_flight == 0 {
                return FragOutcome::Refused(FragRefusal::NoCapacity);
            }
            // Cap on samples in flight per writer: evict the oldest incomplete one.
            while self.partials.len() >= max_in_flight {
                let oldest = self
                    .partials
                    .iter()
                    .min_by_key(|(_, p)| p.order)
                    .map(|(s, _)| *s);
                match oldest {
                    Some(o) => self.partials.remove(&o),
                    None => break,
                };
            }
            let partial = self.new_partial(frag, sample_size);
            self.partials.insert(sn, partial);
        }
        let Some(p) = self.partials.get_mut(&sn) else {
            return FragOutcome::Incomplete;
        };
        let mut data = frag.fragments;
        let mut number = frag.fragment_starting_num.0;
        for (offset, len) in ranges {
            let Some((bytes, rest)) = data.split_at_checked(len) else {
                break;
            };
            data = rest;
            if p.mark(number) {
                write_fragment(&mut p.buf, offset, bytes);
            }
            number = number.saturating_add(1);
        }
        if p.inline == InlineInfo::default() {
            p.inline = inline;
        }
        if p.source_timestamp.is_none() {
            p.source_timestamp = source_timestamp;
        }
        if p.received_count < p.total {
            return FragOutcome::Incomplete;
        }
        match self.partials.remove(&sn) {
            Some(mut p) => {
                // Every fragment was written, so the buffer already holds the whole sample;
                // this keeps the length right whatever the order was.
                p.buf.resize(sample_size, 0);
                let data = p.buf.freeze();
                // Keep a handle for reuse only when it costs nothing (the sample is the
                // application's now; our handle frees nothing until it lets go).
                self.keep_spare(&data);
                FragOutcome::Complete(Completed {
                    data,
                    key: p.key,
                    inline: p.inline,
                    source_timestamp: p.source_timestamp,
                })
            }
            None => FragOutcome::Incomplete,
        }
    }

    /// Keeps a handle on `data` for reuse, dropping the oldest handles beyond the caps.
    fn keep_spare(&mut self, data: &Bytes) {
        if data.len() > MAX_SPARE_BYTES {
            return;
        }
        self.spares.push_back(data.clone());
        let mut total = self
            .spares
            .iter()
            .map(Bytes::len)
            .fold(0, usize::saturating_add);
        while self.spares.len() > MAX_SPARES || total > MAX_SPARE_BYTES {
            let Some(old) = self.spares.pop_front() else {
                break;
            };
            total = total.saturating_sub(old.len());
        }
    }

    /// An empty buffer with room for `sample_size` octets: the oldest spare nothing else
    /// refers to any more (its allocation is kept if large enough), else a new one.
    fn buffer(&mut self, sample_size: usize) -> BytesMut {
        let free = self.spares.iter().position(Bytes::is_unique);
        match free
            .and_then(|i| self.spares.remove(i))
            .map(Bytes::try_into_mut)
        {
            Some(Ok(mut buf)) => {
                buf.clear();
                buf.reserve(sample_size);
                buf
            }
            Some(Err(_)) | None => BytesMut::with_capacity(sample_size),
        }
    }

    /// A fresh partial; `sample_size` has been checked against the limit.
    fn new_partial(&mut self, frag: &DataFrag<'_>, sample_size: usize) -> Partial {
        let total = frag
            .sample_size
            .div_ceil(u32::from(frag.fragment_size.max(1)));
        let words = usize::try_from(total.div_ceil(WORD_BITS)).unwrap_or(0);
        let mut received = vec![0u64; words];
        // Bits past `total` in the last word count as received so `first_missing` ends there.
        let tail = total % WORD_BITS;
        if let Some(last) = received.last_mut() {
            if tail != 0 {
                *last = !((1u64 << tail).wrapping_sub(1));
            }
        }
        let order = self.next_order;
        self.next_order = self.next_order.wrapping_add(1);
        Partial {
            sample_size: frag.sample_size,
            fragment_size: frag.fragment_size,
            key: frag.key,
            total,
            buf: self.buffer(sample_size),
            received,
            received_count: 0,
            inline: InlineInfo::default(),
            source_timestamp: None,
            order,
            announced_last: 0,
        }
    }
}
