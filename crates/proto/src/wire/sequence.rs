//! SequenceNumber and FragmentNumber newtypes with checked arithmetic.
//!
//! Must not: panic on overflow; SN arithmetic from wire values is checked or saturating.
//!
//! RTPS 2.5 §9.3.2 (SequenceNumber_t = {int32 high, uint32 low}; FragmentNumber_t = uint32).

use crate::cdr::{CdrError, CdrReader, CdrWriter};

/// SequenceNumber_t as a signed 64-bit value. RTPS 2.5 §9.3.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SequenceNumber(pub i64);

impl SequenceNumber {
    /// SEQUENCENUMBER_UNKNOWN = {-1, 0}.
    pub const UNKNOWN: SequenceNumber = SequenceNumber(-(1i64 << 32));
    /// The first sequence number a writer uses.
    pub const ONE: SequenceNumber = SequenceNumber(1);

    /// Reads {int32 high, uint32 low}.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        let high = r.i32("sequenceNumber.high")?;
        let low = r.u32("sequenceNumber.low")?;
        Ok(SequenceNumber((i64::from(high) << 32) | i64::from(low)))
    }

    /// Writes {int32 high, uint32 low}.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        // invariant: the shift/truncation split an i64 into its two 32-bit halves exactly.
        w.i32((self.0 >> 32) as i32);
        w.u32(self.0 as u32);
    }

    /// `self + n`, or `None` on overflow.
    pub fn checked_add(self, n: i64) -> Option<Self> {
        self.0.checked_add(n).map(SequenceNumber)
    }

    /// `self - n`, or `None` on overflow.
    pub fn checked_sub(self, n: i64) -> Option<Self> {
        self.0.checked_sub(n).map(SequenceNumber)
    }
}

impl core::fmt::Display for SequenceNumber {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// FragmentNumber_t: 1-based fragment index. RTPS 2.5 §9.3.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct FragmentNumber(pub u32);

impl FragmentNumber {
    /// Reads a uint32.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        Ok(FragmentNumber(r.u32("fragmentNumber")?))
    }

    /// Writes a uint32.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        w.u32(self.0);
    }
}

impl core::fmt::Display for FragmentNumber {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests;
