//! PID_CONTENT_FILTER_INFO (0x0055, inline QoS of DATA/DATA_FRAG): the borrowed view a reader
//! looks its own signature up in, the owned repr a writer builds, and the one-signature
//! encoding a writer sends to a single reader.
//!
//! Must not: allocate while reading (the view scans in place), size an allocation from a wire
//! count before the bytes are known to be there, or panic on any input.
//!
//! RTPS 2.5 §9.6.4.1, Table 9.21 (ContentFilterInfo_t: numBitmaps, filterResult bitmaps
//! MSB-first, numSignatures, 16-octet FilterSignature_t each, never byte-swapped); layout
//! docs/interop-facts.md §2.1, reader lookup docs/interop-facts.md §2.3.

use crate::cdr::{CdrReader, CdrWriter, Endianness};
use crate::wire::WireError;

/// Bytes of a one-signature value ([`ContentFilterInfo::emit_single`]): numBitmaps, one
/// bitmap, numSignatures, one signature. RTPS 2.5 §9.6.4.1.
pub const SINGLE_FILTER_INFO_LEN: usize = 28;

/// Size of one FilterSignature_t (an MD5 digest). RTPS 2.5 §9.6.4.1.
const SIGNATURE_LEN: usize = 16;

/// A checked, borrowed PID_CONTENT_FILTER_INFO value.
///
/// Invariant (kept by [`ContentFilterInfoView::new_checked`]): `bitmaps.len() == 4 *
/// ceil(n / 32)` and `signatures.len() == 16 * n` for n filters, so every accessor stays in
/// bounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ContentFilterInfoView<'a> {
    bitmaps: &'a [u8],
    signatures: &'a [u8],
    endian: Endianness,
}

impl<'a> ContentFilterInfoView<'a> {
    /// Checks a parameter value (`value`, in the submessage's byte order): numBitmaps,
    /// numSignatures and their bytes present, numBitmaps == ceil(numSignatures / 32). Bytes
    /// after the signatures (parameter padding) are ignored. RTPS 2.5 §9.6.4.1.
    pub fn new_checked(value: &'a [u8], endian: Endianness) -> Result<Self, WireError> {
        Self::read(&mut CdrReader::new(value, endian))
    }

    /// As [`ContentFilterInfoView::new_checked`], reading from (and advancing) a cursor.
    pub fn read(r: &mut CdrReader<'a>) -> Result<Self, WireError> {
        let endian = r.endian();
        let nb = r.seq_len(4, "filterResult")?;
        let bitmaps = r.take(nb.saturating_mul(4), "filterResult")?;
        let ns = r.seq_len(SIGNATURE_LEN, "filterSignatures")?;
        if nb != ns.div_ceil(32) {
            return Err(WireError::Invalid(
                "filterResult length vs filterSignatures",
            ));
        }
        let signatures = r.take(ns.saturating_mul(SIGNATURE_LEN), "filterSignature")?;
        Ok(ContentFilterInfoView {
            bitmaps,
            signatures,
            endian,
        })
    }

    /// Number of filters (numSignatures).
    pub fn len(&self) -> usize {
        self.signatures
            .len()
            .checked_div(SIGNATURE_LEN)
            .unwrap_or(0)
    }

    /// True when no filter is listed.
    pub fn is_empty(&self) -> bool {
        self.signatures.is_empty()
    }

    /// The filterResult bitmaps, decoded in the value's byte order.
    pub fn bitmaps(&self) -> impl Iterator<Item = u32> + 'a {
        let endian = self.endian;
        self.bitmaps
            .chunks_exact(4)
            .filter_map(move |c| c.try_into().ok().map(|b| word(b, endian)))
    }

    /// The filter signatures, in order (raw bytes, never byte-swapped).
    pub fn signatures(&self) -> impl Iterator<Item = [u8; 16]> + 'a {
        self.signatures
            .chunks_exact(SIGNATURE_LEN)
            .filter_map(|c| c.try_into().ok())
    }

    /// The result of filter `i`, if present.
    pub fn passed(&self, i: usize) -> Option<bool> {
        if i >= self.len() {
            return None;
        }
        let (word_index, mask) = bit_position(i);
        let at = word_index.checked_mul(4)?;
        let bytes: [u8; 4] = self.bitmaps.get(at..at.checked_add(4)?)?.try_into().ok()?;
        Some(word(bytes, self.endian) & mask != 0)
    }

    /// The result listed for `signature` (what a reader looks up for its own filter), `None`
    /// when it is not listed. RTPS 2.5 §8.7.3.4, docs/interop-facts.md §2.3.
    pub fn bit_for(&self, signature: &[u8; 16]) -> Option<bool> {
        let i = self.signatures().position(|s| s == *signature)?;
        self.passed(i)
    }
}

fn word(b: [u8; 4], endian: Endianness) -> u32 {
    match endian {
        Endianness::Little => u32::from_le_bytes(b),
        Endianness::Big => u32::from_be_bytes(b),
    }
}

/// ContentFilterInfo_t: which filters a sample was evaluated against (by signature) and
/// whether it passed each. RTPS 2.5 §9.6.4.1, Table 9.21; layout docs/interop-facts.md §2.1.
///
/// Invariant: `bitmaps.len() == signatures.len().div_ceil(32)`. Bit i is the MSB-first bit
/// `1 << (31 - i % 32)` of `bitmaps[i / 32]`; set means the sample passed filter i.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContentFilterInfo {
    bitmaps: Vec<u32>,
    signatures: Vec<[u8; 16]>,
}

fn bit_position(i: usize) -> (usize, u32) {
    let word = i.checked_div(32).unwrap_or(0);
    let bit = u32::try_from(i.checked_rem(32).unwrap_or(0)).unwrap_or(0);
    (
        word,
        1u32.checked_shl(31u32.saturating_sub(bit)).unwrap_or(0),
    )
}

impl ContentFilterInfo {
    /// An empty info (no filters). Do not send it empty: Fast DDS ignores numSignatures = 0.
    pub fn new() -> Self {
        ContentFilterInfo::default()
    }

    /// Appends a filter with its signature and result; returns its index.
    pub fn push(&mut self, signature: [u8; 16], passed: bool) -> usize {
        let i = self.signatures.len();
        self.signatures.push(signature);
        if self.bitmaps.len() < self.signatures.len().div_ceil(32) {
            self.bitmaps.push(0);
        }
        self.set(i, passed);
        i
    }

    /// Sets the result of filter `i`; false if there is no such filter.
    pub fn set(&mut self, i: usize, passed: bool) -> bool {
        if i >= self.signatures.len() {
            return false;
        }
        let (word, mask) = bit_position(i);
        match self.bitmaps.get_mut(word) {
            Some(w) if passed => *w |= mask,
            Some(w) => *w &= !mask,
            None => return false,
        }
        true
    }

    /// The result of filter `i`, if present.
    pub fn passed(&self, i: usize) -> Option<bool> {
        if i >= self.signatures.len() {
            return None;
        }
        let (word, mask) = bit_position(i);
        self.bitmaps.get(word).map(|w| w & mask != 0)
    }

    /// The result recorded for the filter with this signature (what a reader looks up).
    pub fn result_for(&self, signature: &[u8; 16]) -> Option<bool> {
        let i = self.signatures.iter().position(|s| s == signature)?;
        self.passed(i)
    }

    /// The filter signatures, in order.
    pub fn signatures(&self) -> &[[u8; 16]] {
        &self.signatures
    }

    /// The result bitmaps (filterResult), in order.
    pub fn bitmaps(&self) -> &[u32] {
        &self.bitmaps
    }

    /// Number of filters.
    pub fn len(&self) -> usize {
        self.signatures.len()
    }

    /// True when no filter is listed.
    pub fn is_empty(&self) -> bool {
        self.signatures.is_empty()
    }

    /// Reads the value through [`ContentFilterInfoView::read`] (numBitmaps, the bitmaps in
    /// message byte order, numSignatures, 16 raw MD5 bytes per signature, numBitmaps ==
    /// ceil(numSignatures / 32); RTPS 2.5 §9.6.4.1) and copies it. There is no cap on the
    /// number of filters beyond the bytes present.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, WireError> {
        Ok(Self::from_view(&ContentFilterInfoView::read(r)?))
    }

    /// The owned copy of a checked view.
    pub fn from_view(v: &ContentFilterInfoView<'_>) -> Self {
        ContentFilterInfo {
            bitmaps: v.bitmaps().collect(),
            signatures: v.signatures().collect(),
        }
    }

    /// Writes the value (signatures as raw bytes, never byte-swapped: docs/interop-facts.md §2.1).
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.align(4);
        w.u32(u32::try_from(self.bitmaps.len()).unwrap_or(u32::MAX));
        for b in &self.bitmaps {
            w.u32(*b);
        }
        w.u32(u32::try_from(self.signatures.len()).unwrap_or(u32::MAX));
        for s in &self.signatures {
            w.bytes(s);
        }
    }

    /// Writes the one-signature value a datagram to a single reader carries: its signature
    /// and bit only ([`SINGLE_FILTER_INFO_LEN`] bytes, as [`ContentFilterInfo::emit`] of a
    /// one-filter info). RTPS 2.5 §9.6.4.1; docs/interop-facts.md §2.3.
    pub fn emit_single(w: &mut CdrWriter<'_>, signature: &[u8; 16], passed: bool) {
        w.align(4);
        w.u32(1);
        w.u32(if passed { 0x8000_0000 } else { 0 });
        w.u32(1);
        w.bytes(signature);
    }

    /// Bytes [`ContentFilterInfo::emit`] writes: 4 + 4·numBitmaps + 4 + 16·numSignatures.
    pub fn buffer_len(&self) -> usize {
        8usize
            .saturating_add(self.bitmaps.len().saturating_mul(4))
            .saturating_add(self.signatures.len().saturating_mul(16))
    }
}
