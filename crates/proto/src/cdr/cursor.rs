//! The one bounded cursor every decoder reads through, its writing twin, and the XCDR version
//! whose alignment rules both follow.
//!
//! Must not: index raw bytes outside these two types, panic, or allocate from a read length.
//!
//! Alignment is relative to the cursor's origin: for CDR that is the byte after the
//! encapsulation header (RTPS 2.5 §10.2), for a parameter value the start of that value
//! (RTPS 2.5 §9.4.2.11), and for submessage bodies the start of the submessage.

use super::{CdrError, Endianness, MAX_STRING};

/// The two versions of the extended CDR representation (DDS-XTypes 1.3 §7.4.3): which
/// alignment rules a cursor follows, and the version a sample is serialized in. Their
/// DATA_REPRESENTATION ids are XCDR_DATA_REPRESENTATION = 0 and XCDR2_DATA_REPRESENTATION = 2
/// (§7.6.3.1.1).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum XcdrVersion {
    /// XCDR1 / classic CDR: 8-byte primitives align to 8; PL_CDR for mutable types.
    #[default]
    Xcdr1,
    /// XCDR2: maximum alignment is 4 (§7.4.3.4.1, `MAXALIGN = 4`); DHEADER for appendable,
    /// EMHEADER for mutable types.
    Xcdr2,
}

impl XcdrVersion {
    /// The DataRepresentationId announced in PID_DATA_REPRESENTATION.
    pub const fn representation_id(self) -> i16 {
        match self {
            XcdrVersion::Xcdr1 => 0,
            XcdrVersion::Xcdr2 => 2,
        }
    }

    /// The version of a DataRepresentationId, `None` for XML (1) and unknown ids.
    pub const fn from_representation_id(id: i16) -> Option<Self> {
        match id {
            0 => Some(XcdrVersion::Xcdr1),
            2 => Some(XcdrVersion::Xcdr2),
            _ => None,
        }
    }

    /// The alignment of a primitive of `size` bytes (1, 2, 4 or 8).
    pub fn align_of(self, size: usize) -> usize {
        match self {
            XcdrVersion::Xcdr1 => size,
            XcdrVersion::Xcdr2 => size.min(4),
        }
    }
}

/// A read cursor over borrowed bytes. Every read checks bounds; nothing panics.
#[derive(Clone, Debug)]
pub struct CdrReader<'a> {
    buf: &'a [u8],
    pos: usize,
    endian: Endianness,
    xcdr: XcdrVersion,
}

macro_rules! read_int {
    ($(#[$m:meta])* $name:ident, $t:ty, $n:expr) => {
        $(#[$m])*
        pub fn $name(&mut self, what: &'static str) -> Result<$t, CdrError> {
            let b = self.take_array::<$n>(what)?;
            Ok(match self.endian {
                Endianness::Big => <$t>::from_be_bytes(b),
                Endianness::Little => <$t>::from_le_bytes(b),
            })
        }
    };
}

impl<'a> CdrReader<'a> {
    /// A cursor at the start of `buf`, which is also the alignment origin.
    pub fn new(buf: &'a [u8], endian: Endianness) -> Self {
        CdrReader {
            buf,
            pos: 0,
            endian,
            xcdr: XcdrVersion::Xcdr1,
        }
    }

    /// The byte order used by the integer reads.
    pub fn endian(&self) -> Endianness {
        self.endian
    }

    /// The XCDR version whose alignment rules [`CdrReader::align_prim`] follows (default XCDR1).
    pub fn xcdr(&self) -> XcdrVersion {
        self.xcdr
    }

    /// Selects the XCDR version for subsequent aligned primitive reads.
    pub fn set_xcdr(&mut self, xcdr: XcdrVersion) {
        self.xcdr = xcdr;
    }

    /// Aligns for a primitive of `size` bytes under the cursor's XCDR version.
    /// DDS-XTypes 1.3 §7.4.3.4.1 (XCDR1: 8-byte types align to 8; XCDR2: to 4).
    pub fn align_prim(&mut self, size: usize, what: &'static str) -> Result<(), CdrError> {
        self.align(self.xcdr.align_of(size), what)
    }

    /// Changes the byte order for subsequent reads.
    pub fn set_endian(&mut self, endian: Endianness) {
        self.endian = endian;
    }

    /// Bytes consumed so far (offset from the origin).
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    /// True when nothing is left.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The unread bytes, without consuming them.
    pub fn rest(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or(&[])
    }

    /// Consumes and returns the next `n` bytes.
    pub fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], CdrError> {
        let (head, _) = self
            .rest()
            .split_at_checked(n)
            .ok_or(CdrError::Truncated(what))?;
        self.pos = self.pos.saturating_add(n);
        Ok(head)
    }

    /// Consumes and returns the next `N` bytes as an array.
    pub fn take_array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], CdrError> {
        let head = self.take(N, what)?;
        let mut out = [0u8; N];
        out.copy_from_slice(head);
        Ok(out)
    }

    /// Consumes everything that is left.
    pub fn take_rest(&mut self) -> &'a [u8] {
        let rest = self.rest();
        self.pos = self.buf.len();
        rest
    }

    /// Consumes the next `n` bytes and returns a cursor over them whose origin is their start.
    pub fn sub(&mut self, n: usize, what: &'static str) -> Result<CdrReader<'a>, CdrError> {
        let (endian, xcdr) = (self.endian, self.xcdr);
        let mut sub = CdrReader::new(self.take(n, what)?, endian);
        sub.xcdr = xcdr;
        Ok(sub)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize, what: &'static str) -> Result<(), CdrError> {
        self.take(n, what).map(|_| ())
    }

    /// Skips padding so that the position is a multiple of `align` (1, 2, 4 or 8).
    pub fn align(&mut self, align: usize, what: &'static str) -> Result<(), CdrError> {
        let pad = padding(self.pos, align);
        self.skip(pad, what)
    }

    /// Reads one octet.
    pub fn u8(&mut self, what: &'static str) -> Result<u8, CdrError> {
        Ok(self.take_array::<1>(what)?[0])
    }

    read_int!(/// Reads a u16 in the cursor's byte order (no alignment).
        u16, u16, 2);
    read_int!(/// Reads an i16 in the cursor's byte order (no alignment).
        i16, i16, 2);
    read_int!(/// Reads a u32 in the cursor's byte order (no alignment).
        u32, u32, 4);
    read_int!(/// Reads an i32 in the cursor's byte order (no alignment).
        i32, i32, 4);
    read_int!(/// Reads a u64 in the cursor's byte order (no alignment).
        u64, u64, 8);
    read_int!(/// Reads an i64 in the cursor's byte order (no alignment).
        i64, i64, 8);

    /// Reads a u32 always big-endian (PID_STATUS_INFO, RTPS 2.5 §9.6.4.9).
    pub fn u32_be(&mut self, what: &'static str) -> Result<u32, CdrError> {
        Ok(u32::from_be_bytes(self.take_array::<4>(what)?))
    }

    /// Reads a CDR string: aligned u32 length including the NUL, the bytes, the NUL.
    /// Returns the bytes without the NUL. Lengths above `max` (and [`MAX_STRING`]) are refused
    /// before anything is read. CDR 9.3.2.7.
    pub fn string(&mut self, max: usize, what: &'static str) -> Result<&'a [u8], CdrError> {
        self.align(4, what)?;
        let len = usize::try_from(self.u32(what)?).map_err(|_| CdrError::TooLarge(what))?;
        if len > max.min(MAX_STRING) {
            return Err(CdrError::TooLarge(what));
        }
        let bytes = self.take(len, what)?;
        match bytes.split_last() {
            Some((0, text)) => Ok(text),
            // A zero length is not valid CDR, but several stacks send it for "".
            None => Ok(&[]),
            Some(_) => Err(CdrError::Invalid(what)),
        }
    }

    /// Reads an aligned u32 sequence length and checks that `len * min_elem_size` bytes could
    /// follow, so that a caller may size an allocation from it. docs/conventions.md §4.
    pub fn seq_len(&mut self, min_elem_size: usize, what: &'static str) -> Result<usize, CdrError> {
        self.align(4, what)?;
        let len = usize::try_from(self.u32(what)?).map_err(|_| CdrError::TooLarge(what))?;
        let need = len
            .checked_mul(min_elem_size.max(1))
            .ok_or(CdrError::TooLarge(what))?;
        if need > self.remaining() {
            return Err(CdrError::Truncated(what));
        }
        Ok(len)
    }
}

/// Bytes of padding needed after `pos` to reach a multiple of `align`.
pub(crate) fn padding(pos: usize, align: usize) -> usize {
    match align {
        0 | 1 => 0,
        a => a
            .wrapping_sub(pos.checked_rem(a).unwrap_or(0))
            .checked_rem(a)
            .unwrap_or(0),
    }
}

/// A write cursor appending to a `Vec<u8>`. Alignment is relative to the length the vector
/// had when the writer was created (its origin).
#[derive(Debug)]
pub struct CdrWriter<'b> {
    buf: &'b mut Vec<u8>,
    origin: usize,
    endian: Endianness,
    xcdr: XcdrVersion,
}

macro_rules! write_int {
    ($(#[$m:meta])* $name:ident, $t:ty) => {
        $(#[$m])*
        pub fn $name(&mut self, v: $t) {
            match self.endian {
                Endianness::Big => self.buf.extend_from_slice(&v.to_be_bytes()),
                Endianness::Little => self.buf.extend_from_slice(&v.to_le_bytes()),
            }
        }
    };
}

impl<'b> CdrWriter<'b> {
    /// A writer appending to `buf`; alignment origin is the current end of `buf`.
    pub fn new(buf: &'b mut Vec<u8>, endian: Endianness) -> Self {
        let origin = buf.len();
        CdrWriter {
            buf,
            origin,
            endian,
            xcdr: XcdrVersion::Xcdr1,
        }
    }

    /// A writer appending to the same buffer whose alignment origin is the current end (for a
    /// parameter value, RTPS 2.5 §9.4.2.11, or a CDR body after its encapsulation header).
    pub fn nested(&mut self) -> CdrWriter<'_> {
        let origin = self.buf.len();
        CdrWriter {
            buf: &mut *self.buf,
            origin,
            endian: self.endian,
            xcdr: self.xcdr,
        }
    }

    /// The byte order used by the integer writes.
    pub fn endian(&self) -> Endianness {
        self.endian
    }

    /// The XCDR version whose alignment rules [`CdrWriter::align_prim`] follows (default XCDR1).
    pub fn xcdr(&self) -> XcdrVersion {
        self.xcdr
    }

    /// Selects the XCDR version for subsequent aligned primitive writes.
    pub fn set_xcdr(&mut self, xcdr: XcdrVersion) {
        self.xcdr = xcdr;
    }

    /// Pads for a primitive of `size` bytes under the writer's XCDR version.
    /// DDS-XTypes 1.3 §7.4.3.4.1.
    pub fn align_prim(&mut self, size: usize) {
        self.align(self.xcdr.align_of(size));
    }

    /// Bytes written since the origin.
    pub fn position(&self) -> usize {
        self.buf.len().saturating_sub(self.origin)
    }

    /// Absolute offset in the underlying vector (for later [`CdrWriter::patch_u16`]).
    pub fn offset(&self) -> usize {
        self.buf.len()
    }

    /// Appends raw bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Appends zero bytes until the position is a multiple of `align`.
    pub fn align(&mut self, align: usize) {
        let pad = padding(self.position(), align);
        self.buf.resize(self.buf.len().saturating_add(pad), 0);
    }

    /// Appends one octet.
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    write_int!(/// Appends a u16 (no alignment).
        u16, u16);
    write_int!(/// Appends an i16 (no alignment).
        i16, i16);
    write_int!(/// Appends a u32 (no alignment).
        u32, u32);
    write_int!(/// Appends an i32 (no alignment).
        i32, i32);
    write_int!(/// Appends a u64 (no alignment).
        u64, u64);
    write_int!(/// Appends an i64 (no alignment).
        i64, i64);

    /// Appends a u32 big-endian whatever the writer's byte order.
    pub fn u32_be(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    /// Appends a CDR string (aligned length including NUL, bytes, NUL).
    pub fn string(&mut self, s: &[u8]) {
        self.align(4);
        let len = u32::try_from(s.len().saturating_add(1)).unwrap_or(u32::MAX);
        self.u32(len);
        self.bytes(s);
        self.u8(0);
    }

    /// Overwrites four bytes at absolute `offset` with `v` in the writer's byte order (a
    /// DHEADER or member length filled in once the body is written; DDS-XTypes 1.3
    /// §7.4.3.5.2). Out-of-range offsets are ignored.
    pub fn patch_u32(&mut self, offset: usize, v: u32) {
        let b = match self.endian {
            Endianness::Big => v.to_be_bytes(),
            Endianness::Little => v.to_le_bytes(),
        };
        if let Some(dst) = self.buf.get_mut(offset..offset.saturating_add(4)) {
            dst.copy_from_slice(&b);
        }
    }

    /// Overwrites two bytes at absolute `offset` with `v` in the writer's byte order.
    /// Used to fill in lengths once the body is written; out-of-range offsets are ignored.
    pub fn patch_u16(&mut self, offset: usize, v: u16) {
        let b = match self.endian {
            Endianness::Big => v.to_be_bytes(),
            Endianness::Little => v.to_le_bytes(),
        };
        if let Some(dst) = self.buf.get_mut(offset..offset.saturating_add(2)) {
            dst.copy_from_slice(&b);
        }
    }
}

#[cfg(test)]
mod tests;
