//! SequenceNumber and FragmentNumber newtypes with checked arithmetic.
//!
//! Must not: panic on overflow; SN arithmetic from wire values is checked or saturating.
//!
//! RTPS 2.5 §9.3.2 (SequenceNumber_t = {int32 high, uint32 low}; FragmentNumber_t = uint32).

use crate::cdr::{CdrError, Reader, Writer};

/// SequenceNumber_t as a signed 64-bit value. RTPS 2.5 §9.3.2.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SequenceNumber(pub i64);

impl SequenceNumber {
    /// SEQUENCENUMBER_UNKNOWN = {-1, 0}.
    pub const UNKNOWN: SequenceNumber = SequenceNumber(-(1i64 << 32));
    /// The first sequence number a writer uses.
    pub const ONE: SequenceNumber = SequenceNumber(1);

    /// Reads {int32 high, uint32 low}.
    pub fn parse(r: &mut Reader<'_>) -> Result<Self, CdrError> {
        let high = r.i32("sequenceNumber.high")?;
        let low = r.u32("sequenceNumber.low")?;
        Ok(SequenceNumber((i64::from(high) << 32) | i64::from(low)))
    }

    /// Writes {int32 high, uint32 low}.
    pub fn emit(&self, w: &mut Writer<'_>) {
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
    pub fn parse(r: &mut Reader<'_>) -> Result<Self, CdrError> {
        Ok(FragmentNumber(r.u32("fragmentNumber")?))
    }

    /// Writes a uint32.
    pub fn emit(&self, w: &mut Writer<'_>) {
        w.u32(self.0);
    }
}

impl core::fmt::Display for FragmentNumber {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdr::Endianness;

    #[test]
    fn unknown_is_minus_one_zero_on_the_wire() {
        let mut v = Vec::new();
        SequenceNumber::UNKNOWN.emit(&mut Writer::new(&mut v, Endianness::Big));
        assert_eq!(v, [0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
        assert_eq!(
            SequenceNumber::parse(&mut Reader::new(&v, Endianness::Big)),
            Ok(SequenceNumber::UNKNOWN)
        );
    }

    #[test]
    fn high_word_carries_bits_above_32() {
        let b = [1, 0, 0, 0, 2, 0, 0, 0];
        let sn = SequenceNumber::parse(&mut Reader::new(&b, Endianness::Little));
        assert_eq!(sn, Ok(SequenceNumber((1 << 32) | 2)));
    }
}
