//! XCDR1 ("plain CDR") encoding rules on top of the bounded cursor, as two small traits that
//! generated types and hand-written reprs implement: [`CdrEncode`] and [`CdrDecode`].
//!
//! Must not: allocate from a length read off the wire before checking the bytes are there
//! (sequences go through [`CdrReader::seq_len`]), panic on any input, or know about RTPS.
//!
//! # Overview
//! OMG CDR (CORBA 3.4 Part 2 §9.3) as profiled by DDS-XTypes 1.3 §7.4.3 for XCDR version 1:
//! primitives are aligned to their size relative to the origin (the byte after the
//! encapsulation header, RTPS 2.5 §10.2); booleans are one octet holding 0 or 1; `char` is one
//! octet; strings are a u32 length including the NUL, the bytes and the NUL; sequences are a
//! u32 count then the elements; arrays are the elements only. XCDR2 (§7.4.3.4.1) differs for
//! plain types only in capping alignment at 4, which [`XcdrVersion`](super::XcdrVersion) captures; DHEADERs and
//! EMHEADERs for appendable/mutable types belong to the type layer, not here.

use super::{
    CdrError, CdrReader, CdrWriter, EncapsulationHeader, EncapsulationKind, Endianness, MAX_STRING,
};

/// A value that can be written as CDR. Encoding a value cannot fail (docs/conventions.md §3);
/// lengths that do not fit a u32 are a caller bug and saturate.
pub trait CdrEncode {
    /// Appends the value, with the alignment padding it needs before it.
    fn encode(&self, w: &mut CdrWriter<'_>);
}

/// A value that can be read from CDR, possibly borrowing from the input.
pub trait CdrDecode<'a>: Sized {
    /// The fewest bytes one encoded value occupies (without leading padding). Used to check a
    /// sequence count against the bytes left before allocating (docs/conventions.md §4).
    const MIN_SIZE: usize;

    /// Reads one value, skipping the alignment padding before it.
    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError>;
}

macro_rules! primitive {
    ($t:ty, $n:expr, $read:ident, $write:ident, $what:expr) => {
        impl CdrEncode for $t {
            fn encode(&self, w: &mut CdrWriter<'_>) {
                w.align_prim($n);
                w.$write(*self);
            }
        }

        impl<'a> CdrDecode<'a> for $t {
            const MIN_SIZE: usize = $n;

            fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
                r.align_prim($n, $what)?;
                r.$read($what)
            }
        }
    };
}

primitive!(u8, 1, u8, u8, "octet");
primitive!(u16, 2, u16, u16, "unsigned short");
primitive!(i16, 2, i16, i16, "short");
primitive!(u32, 4, u32, u32, "unsigned long");
primitive!(i32, 4, i32, i32, "long");
primitive!(u64, 8, u64, u64, "unsigned long long");
primitive!(i64, 8, i64, i64, "long long");

impl CdrEncode for i8 {
    fn encode(&self, w: &mut CdrWriter<'_>) {
        w.bytes(&self.to_ne_bytes());
    }
}

impl<'a> CdrDecode<'a> for i8 {
    const MIN_SIZE: usize = 1;

    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        Ok(i8::from_ne_bytes(r.take_array::<1>("int8")?))
    }
}

impl CdrEncode for f32 {
    fn encode(&self, w: &mut CdrWriter<'_>) {
        self.to_bits().encode(w);
    }
}

impl<'a> CdrDecode<'a> for f32 {
    const MIN_SIZE: usize = 4;

    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        u32::decode(r).map(f32::from_bits)
    }
}

impl CdrEncode for f64 {
    fn encode(&self, w: &mut CdrWriter<'_>) {
        self.to_bits().encode(w);
    }
}

impl<'a> CdrDecode<'a> for f64 {
    const MIN_SIZE: usize = 8;

    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        u64::decode(r).map(f64::from_bits)
    }
}

impl CdrEncode for bool {
    fn encode(&self, w: &mut CdrWriter<'_>) {
        w.u8(u8::from(*self));
    }
}

impl<'a> CdrDecode<'a> for bool {
    const MIN_SIZE: usize = 1;

    /// CDR 9.3.1.5: TRUE is 1, FALSE is 0; anything else is invalid.
    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        match r.u8("boolean")? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(CdrError::Invalid("boolean")),
        }
    }
}

/// IDL `char` (char8) is one octet. We map it to the Latin-1 range of Rust's `char`; encoding a
/// character above U+00FF writes `?`, since a valid value cannot fail to encode.
impl CdrEncode for char {
    fn encode(&self, w: &mut CdrWriter<'_>) {
        w.u8(u8::try_from(u32::from(*self)).unwrap_or(b'?'));
    }
}

impl<'a> CdrDecode<'a> for char {
    const MIN_SIZE: usize = 1;

    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        r.u8("char").map(char::from)
    }
}

impl CdrEncode for str {
    fn encode(&self, w: &mut CdrWriter<'_>) {
        w.string(self.as_bytes());
    }
}

impl CdrEncode for String {
    fn encode(&self, w: &mut CdrWriter<'_>) {
        w.string(self.as_bytes());
    }
}

impl<'a> CdrDecode<'a> for &'a str {
    /// Length word; a zero-length string (no NUL) is tolerated by [`CdrReader::string`].
    const MIN_SIZE: usize = 4;

    /// Strings must be UTF-8 to become `str`; bounded by [`MAX_STRING`].
    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        let bytes = r.string(MAX_STRING, "string")?;
        core::str::from_utf8(bytes).map_err(|_| CdrError::Invalid("string (not UTF-8)"))
    }
}

impl<'a> CdrDecode<'a> for String {
    const MIN_SIZE: usize = 4;

    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        <&str>::decode(r).map(str::to_owned)
    }
}

impl<T: CdrEncode + ?Sized> CdrEncode for &T {
    fn encode(&self, w: &mut CdrWriter<'_>) {
        (**self).encode(w);
    }
}

impl<T: CdrEncode> CdrEncode for [T] {
    /// CDR 9.3.2.2: u32 count, then the elements.
    fn encode(&self, w: &mut CdrWriter<'_>) {
        w.align(4);
        w.u32(u32::try_from(self.len()).unwrap_or(u32::MAX));
        for item in self {
            item.encode(w);
        }
    }
}

impl<T: CdrEncode> CdrEncode for Vec<T> {
    fn encode(&self, w: &mut CdrWriter<'_>) {
        self.as_slice().encode(w);
    }
}

impl<'a, T: CdrDecode<'a>> CdrDecode<'a> for Vec<T> {
    const MIN_SIZE: usize = 4;

    /// The count is checked against the bytes left (`count * T::MIN_SIZE`) before allocating.
    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        let n = r.seq_len(T::MIN_SIZE, "sequence length")?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(T::decode(r)?);
        }
        Ok(out)
    }
}

impl<T: CdrEncode, const N: usize> CdrEncode for [T; N] {
    /// CDR 9.3.2.1: arrays carry no length.
    fn encode(&self, w: &mut CdrWriter<'_>) {
        for item in self {
            item.encode(w);
        }
    }
}

impl<'a, T: CdrDecode<'a>, const N: usize> CdrDecode<'a> for [T; N] {
    const MIN_SIZE: usize = T::MIN_SIZE.saturating_mul(N);

    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        if Self::MIN_SIZE > r.remaining() {
            return Err(CdrError::Truncated("array"));
        }
        let mut out = Vec::with_capacity(N);
        for _ in 0..N {
            out.push(T::decode(r)?);
        }
        out.try_into().map_err(|_| CdrError::Invalid("array"))
    }
}

/// Serializes `value` as a complete XCDR1 payload: the CDR_BE/CDR_LE encapsulation header
/// (RTPS 2.5 §10.2) and the body, zero-padded to a multiple of 4 with the pad count in the low
/// two bits of the options (DDS-XTypes 1.3 §7.6.3.1.2).
pub fn serialize_payload<T: CdrEncode + ?Sized>(value: &T, endian: Endianness) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = CdrWriter::new(&mut out, endian);
    EncapsulationHeader::new(EncapsulationKind::Cdr, endian).emit(&mut w);
    let pad = {
        let mut body = w.nested();
        value.encode(&mut body);
        let before = body.position();
        body.align(4);
        body.position().saturating_sub(before)
    };
    // invariant: pad < 4, so it fits the two option bits.
    if let Some(options) = out.get_mut(3) {
        *options = u8::try_from(pad & 3).unwrap_or(0);
    }
    out
}

/// Decodes a complete XCDR1 payload written by [`serialize_payload`] or a peer: the
/// encapsulation must be CDR_BE or CDR_LE; alignment restarts after the header (RTPS 2.5
/// §10.2). Trailing bytes (padding) are ignored.
pub fn deserialize_payload<'a, T: CdrDecode<'a>>(bytes: &'a [u8]) -> Result<T, CdrError> {
    let mut r = CdrReader::new(bytes, Endianness::Big);
    let header = EncapsulationHeader::parse(&mut r)?;
    if header.kind != EncapsulationKind::Cdr {
        return Err(CdrError::Invalid("encapsulation (expected CDR_BE/CDR_LE)"));
    }
    let mut body = CdrReader::new(r.rest(), header.endian);
    T::decode(&mut body)
}

#[cfg(test)]
mod tests;
