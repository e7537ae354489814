//! SequenceNumberSet and FragmentNumberSet: a base plus a bitmap of at most 256 bits.
//!
//! Must not: accept more than [`MAX_SET_BITS`] bits, read more bitmap words than numBits needs,
//! panic on any input, or allocate.
//!
//! RTPS 2.5 §9.4.2.6 (SequenceNumberSet), §9.4.2.8 (FragmentNumberSet): {base, uint32 numBits,
//! uint32 bitmap[(numBits+31)/32]}; member `base + i` is set when bit `31 - i%32` of
//! `bitmap[i/32]` is one (most significant bit first).

use crate::cdr::{CdrReader, CdrWriter};
use crate::wire::{FragmentNumber, SequenceNumber, WireError};

/// Upper bound on numBits. RTPS 2.5 §9.4.2.6/§9.4.2.8: numBits ≤ 256.
pub const MAX_SET_BITS: u32 = 256;
/// Number of 32-bit words holding [`MAX_SET_BITS`].
const MAX_WORDS: usize = 8;

/// numBits and its words; everything of a set but its base. Bits beyond numBits in the last
/// word are kept as received (so re-emitting reproduces the bytes) but are never members.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
struct Bitmap {
    num_bits: u32,
    words: [u32; MAX_WORDS],
}

impl Bitmap {
    fn empty(num_bits: u32) -> Result<Self, WireError> {
        if num_bits > MAX_SET_BITS {
            return Err(WireError::TooLarge("numBits"));
        }
        Ok(Bitmap {
            num_bits,
            words: [0; MAX_WORDS],
        })
    }

    /// (numBits + 31) / 32; numBits ≤ 256 so this is at most 8.
    fn word_count(&self) -> usize {
        usize::try_from(self.num_bits.div_ceil(32))
            .unwrap_or(MAX_WORDS)
            .min(MAX_WORDS)
    }

    fn parse(r: &mut CdrReader<'_>) -> Result<Self, WireError> {
        let num_bits = r.u32("numBits")?;
        // RTPS 2.5 §9.4.2.6: a set with numBits > 256 is invalid.
        let mut bm = Bitmap::empty(num_bits)?;
        let n = bm.word_count();
        for w in bm.words.iter_mut().take(n) {
            *w = r.u32("bitmap")?;
        }
        Ok(bm)
    }

    fn emit(&self, w: &mut CdrWriter<'_>) {
        w.u32(self.num_bits);
        for word in self.words.iter().take(self.word_count()) {
            w.u32(*word);
        }
    }

    /// 4 (numBits) + 4 per word.
    fn buffer_len(&self) -> usize {
        self.word_count().saturating_mul(4).saturating_add(4)
    }

    fn mask(offset: u32) -> u32 {
        0x8000_0000u32.checked_shr(offset % 32).unwrap_or(0)
    }

    fn word_index(offset: u32) -> usize {
        usize::try_from(offset / 32).unwrap_or(usize::MAX)
    }

    fn contains(&self, offset: u32) -> bool {
        offset < self.num_bits
            && self
                .words
                .get(Self::word_index(offset))
                .is_some_and(|w| w & Self::mask(offset) != 0)
    }

    /// Sets bit `offset`; false if it is outside numBits.
    fn insert(&mut self, offset: u32) -> bool {
        if offset >= self.num_bits {
            return false;
        }
        match self.words.get_mut(Self::word_index(offset)) {
            Some(w) => {
                *w |= Self::mask(offset);
                true
            }
            None => false,
        }
    }

    fn offsets(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.num_bits).filter(|&i| self.contains(i))
    }
}

/// A number type a bitmap set can be based on: [`SequenceNumber`] (RTPS 2.5 §9.4.2.6) or
/// [`FragmentNumber`] (§9.4.2.8). Only the base's encoding and the offset arithmetic differ.
pub trait SetMember: Copy + Sized {
    /// Encoded size of the bitmapBase (8 for a SequenceNumber, 4 for a FragmentNumber).
    const BASE_LEN: usize;
    /// `self - base` when it is in `0..=u32::MAX`.
    fn offset_from(self, base: Self) -> Option<u32>;
    /// `self + offset`, `None` on overflow.
    fn add_offset(self, offset: u32) -> Option<Self>;
    /// Reads a bitmapBase.
    fn parse_base(r: &mut CdrReader<'_>) -> Result<Self, WireError>;
    /// Writes a bitmapBase.
    fn emit_base(&self, w: &mut CdrWriter<'_>);
}

impl SetMember for SequenceNumber {
    const BASE_LEN: usize = 8;

    fn offset_from(self, base: Self) -> Option<u32> {
        self.0
            .checked_sub(base.0)
            .and_then(|d| u32::try_from(d).ok())
    }

    fn add_offset(self, offset: u32) -> Option<Self> {
        self.checked_add(i64::from(offset))
    }

    fn parse_base(r: &mut CdrReader<'_>) -> Result<Self, WireError> {
        Ok(SequenceNumber::parse(r)?)
    }

    fn emit_base(&self, w: &mut CdrWriter<'_>) {
        self.emit(w);
    }
}

impl SetMember for FragmentNumber {
    const BASE_LEN: usize = 4;

    fn offset_from(self, base: Self) -> Option<u32> {
        self.0.checked_sub(base.0)
    }

    fn add_offset(self, offset: u32) -> Option<Self> {
        self.0.checked_add(offset).map(FragmentNumber)
    }

    fn parse_base(r: &mut CdrReader<'_>) -> Result<Self, WireError> {
        Ok(FragmentNumber::parse(r)?)
    }

    fn emit_base(&self, w: &mut CdrWriter<'_>) {
        self.emit(w);
    }
}

/// A bitmapBase plus a bitmap of at most [`MAX_SET_BITS`] bits: the one set type behind
/// [`SequenceNumberSet`] and [`FragmentNumberSet`]. The invariant numBits ≤ 256 is kept by
/// every constructor, so emitting cannot fail.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct NumberSet<N> {
    bitmap_base: N,
    bits: Bitmap,
}

/// SequenceNumberSet. RTPS 2.5 §9.4.2.6.
pub type SequenceNumberSet = NumberSet<SequenceNumber>;

/// FragmentNumberSet. RTPS 2.5 §9.4.2.8.
pub type FragmentNumberSet = NumberSet<FragmentNumber>;

impl<N: SetMember> NumberSet<N> {
    /// An empty set covering `[bitmap_base, bitmap_base + num_bits)`.
    pub fn new(bitmap_base: N, num_bits: u32) -> Result<Self, WireError> {
        Ok(NumberSet {
            bitmap_base,
            bits: Bitmap::empty(num_bits)?,
        })
    }

    /// The smallest set starting at `bitmap_base` holding `members`; numBits is the highest
    /// member's offset plus one. Errors if a member is below the base or 256 or more above it.
    pub fn from_members(
        bitmap_base: N,
        members: impl IntoIterator<Item = N>,
    ) -> Result<Self, WireError> {
        let mut offsets = [0u32; MAX_SET_BITS as usize];
        let mut n = 0usize;
        let mut num_bits = 0u32;
        for m in members {
            let off = m
                .offset_from(bitmap_base)
                .filter(|&d| d < MAX_SET_BITS)
                .ok_or(WireError::TooLarge("sequence number set member"))?;
            num_bits = num_bits.max(off.saturating_add(1));
            if let Some(slot) = offsets.get_mut(n) {
                *slot = off;
                n = n.saturating_add(1);
            } else {
                // More than 256 members means duplicates; they are already recorded.
            }
        }
        let mut set = Self::new(bitmap_base, num_bits)?;
        for off in offsets.iter().take(n) {
            set.bits.insert(*off);
        }
        Ok(set)
    }

    /// bitmapBase.
    pub fn bitmap_base(&self) -> N {
        self.bitmap_base
    }

    /// numBits (≤ 256).
    pub fn num_bits(&self) -> u32 {
        self.bits.num_bits
    }

    /// The bitmap words (only the first `(numBits+31)/32` are on the wire).
    pub fn bitmap(&self) -> &[u32; 8] {
        &self.bits.words
    }

    /// True if `m` is in the set.
    pub fn contains(&self, m: N) -> bool {
        m.offset_from(self.bitmap_base)
            .is_some_and(|off| self.bits.contains(off))
    }

    /// Adds `m`; false (and no change) if it is outside `[base, base + numBits)`.
    pub fn insert(&mut self, m: N) -> bool {
        m.offset_from(self.bitmap_base)
            .is_some_and(|off| self.bits.insert(off))
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = N> + '_ {
        self.bits
            .offsets()
            .filter_map(|off| self.bitmap_base.add_offset(off))
    }

    /// True when no bit is set.
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
    }

    /// Reads a set; numBits > 256 is an error. The base is not range-checked here: each
    /// submessage applies its own rule (see the ACKNACK quirk in `submessage::ack`).
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, WireError> {
        let bitmap_base = N::parse_base(r)?;
        Ok(NumberSet {
            bitmap_base,
            bits: Bitmap::parse(r)?,
        })
    }

    /// Writes the set.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        self.bitmap_base.emit_base(w);
        self.bits.emit(w);
    }

    /// Encoded size: the base (8 for sequence numbers, 4 for fragment numbers), 4 (numBits)
    /// and 4 per bitmap word.
    pub fn buffer_len(&self) -> usize {
        self.bits.buffer_len().saturating_add(N::BASE_LEN)
    }
}

#[cfg(test)]
mod tests;
