//! Runtime support for the types `src/idl/codegen` generates and `#[derive(TopicType)]`
//! (`siftdds-derive`) derives: the [`XcdrCodec`] trait (one value in XCDR1 or XCDR2, the
//! version being the cursor's) and the helpers that code calls for strings, sequences,
//! arrays, optionals, DHEADERs, EMHEADERs and payloads. Generated code names this module
//! `_rt`, so it re-exports what that code needs; `member` holds the facts derived code reads
//! from its members' types.
//!
//! Must not: panic or allocate from a wire length before checking the bytes are there; know
//! about RTPS; hold state. Encoding fails only for values that break their IDL bounds.
//!
//! # Overview
//! DDS-XTypes 1.3 §7.4.3.5: XCDR2 puts a DHEADER (u32 byte count) before appendable types
//! and before sequences/arrays of non-primitive elements, and encodes mutable types as a
//! DHEADER then one EMHEADER (M flag, length code LC, member id; §7.4.3.4.8) per member.
//! XCDR1 (§7.4.1.2, §7.4.3.5.3 for mutable) uses the PL_CDR parameter form instead:
//! PID_EXTENDED (0x3F01) headers with the member id and length, PID_LIST_END (0x3F02) at the
//! end; XCDR1 `@optional` members of final/appendable types use the same header, length 0
//! when absent. The choices left open by the spec (which LC to use, must-understand on keys,
//! extended vs short PIDs) follow what Cyclone DDS writes, so that payloads compare equal
//! byte for byte (tests/data/xcdr).
pub use super::{
    EnumDescriptor, Extensibility, Member, TopicType, TypeDescriptor, TypeKind, UnionCase,
    UnionDescriptor, XcdrVersion, key_hash_from_key_bytes,
};
pub use crate::cdr::{CdrError, CdrReader, CdrWriter, Endianness};

use crate::cdr::{CdrDecode, CdrEncode, EncapsulationHeader, EncapsulationKind, MAX_STRING};

#[doc(hidden)]
pub mod fuzz;
mod key;
mod member;
mod mutable;

pub use key::{key_hash_from_serialized_key, read_key_only, serialize_key, serialize_key_as};

pub use member::{
    KeyEnd, MAX_DESCRIBED_DEPTH, array_length_code, primitive_length_code, sequence_length_code,
};
pub(crate) use mutable::parameter_header;
pub use mutable::{LengthCode, MutableWriter, read_mutable, write_mutable};
use mutable::{MEMBER_ID_MASK, PID_EXTENDED_MU};

/// One value of a generated (or primitive) type in the XCDR version of the cursor.
pub trait XcdrCodec: Sized {
    /// The fewest bytes one encoded value occupies, used to bound sequence counts.
    const MIN_SIZE: usize;

    /// The size of an XTypes primitive (DDS-XTypes 1.3 §7.2.2.2: boolean, byte, integers,
    /// floats, chars), 0 for every other type. Collections of non-primitives carry a DHEADER
    /// in XCDR2 (§7.4.3.5.3). Read by derived types (`member`); generated code knows it.
    const PRIMITIVE_SIZE: usize = 0;

    /// The EMHEADER length code of a member of this type in a mutable aggregate (§7.4.3.4.8;
    /// the choice Cyclone makes). Read by derived types.
    const LENGTH_CODE: LengthCode = LengthCode::NextInt;

    /// Where this type's key holder ends at the latest (RTPS 2.5 §9.6.4.8), for the choice
    /// between the bytes and their MD5. Read by derived types; unbounded unless said.
    const KEY_END: KeyEnd = KeyEnd::UNBOUNDED;

    /// The type as a member of a [`TypeDescriptor`] (content filters compile against it), at
    /// nesting `depth`, or `None` when it has no description: derived structs and the
    /// primitives describe themselves; a struct with an undescribed member, or nested deeper
    /// than [`MAX_DESCRIBED_DEPTH`] (a type that holds itself), has none.
    fn type_kind(_depth: usize) -> Option<TypeKind> {
        None
    }

    /// Appends the value (alignment padding first). Errs when a bound is exceeded.
    fn xcdr_write(&self, w: &mut CdrWriter<'_>) -> Result<(), CdrError>;

    /// Reads one value.
    fn xcdr_read(r: &mut CdrReader<'_>) -> Result<Self, CdrError>;

    /// Appends the value as a member of a key holder (RTPS 2.5 §9.6.4.8: structs contribute
    /// their key members, or all members when they have none, as a final type).
    fn xcdr_write_key(&self, w: &mut CdrWriter<'_>) -> Result<(), CdrError> {
        self.xcdr_write(w)
    }

    /// Reads what [`XcdrCodec::xcdr_write_key`] wrote; members outside the key take their
    /// defaults.
    fn xcdr_read_key(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        Self::xcdr_read(r)
    }
}

macro_rules! primitive {
    ($($t:ty => $kind:ident),*) => {$(
        impl XcdrCodec for $t {
            const MIN_SIZE: usize = <$t as CdrDecode<'static>>::MIN_SIZE;
            const PRIMITIVE_SIZE: usize = <$t as CdrDecode<'static>>::MIN_SIZE;
            const LENGTH_CODE: LengthCode = primitive_length_code(Self::PRIMITIVE_SIZE);
            const KEY_END: KeyEnd = KeyEnd::primitive(Self::PRIMITIVE_SIZE);

            fn type_kind(_depth: usize) -> Option<TypeKind> {
                Some(TypeKind::$kind)
            }

            fn xcdr_write(&self, w: &mut CdrWriter<'_>) -> Result<(), CdrError> {
                self.encode(w);
                Ok(())
            }

            fn xcdr_read(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
                <$t>::decode(r)
            }
        }
    )*};
}

// `u8` is IDL `octet` or `uint8`: the filters read both alike.
primitive!(
    bool => Bool, i8 => I8, u8 => U8, i16 => I16, u16 => U16, i32 => I32, u32 => U32,
    i64 => I64, u64 => U64, f32 => F32, f64 => F64
);

/// IDL `char` (char8): one octet, Latin-1. A character above U+00FF does not fit: an error,
/// where the plain `CdrEncode` for `char` would write `?`.
impl XcdrCodec for char {
    const MIN_SIZE: usize = 1;
    const PRIMITIVE_SIZE: usize = 1;
    const LENGTH_CODE: LengthCode = LengthCode::Size1;
    const KEY_END: KeyEnd = KeyEnd::primitive(1);

    fn type_kind(_depth: usize) -> Option<TypeKind> {
        Some(TypeKind::Char)
    }

    fn xcdr_write(&self, w: &mut CdrWriter<'_>) -> Result<(), CdrError> {
        let octet =
            u8::try_from(u32::from(*self)).map_err(|_| CdrError::Invalid("char (above U+00FF)"))?;
        w.u8(octet);
        Ok(())
    }

    fn xcdr_read(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        char::decode(r)
    }
}

/// IDL `long double`: an IEEE 754 binary128 bit pattern (Rust has no stable `f128`). CDR
/// aligns it to 8 (XCDR1) or 4 (XCDR2) and writes its 16 bytes in the stream's byte order.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LongDouble(pub u128);

impl XcdrCodec for LongDouble {
    const MIN_SIZE: usize = 16;
    const PRIMITIVE_SIZE: usize = 16;
    const KEY_END: KeyEnd = KeyEnd::primitive(16);

    fn xcdr_write(&self, w: &mut CdrWriter<'_>) -> Result<(), CdrError> {
        w.align_prim(8);
        match w.endian() {
            Endianness::Big => w.bytes(&self.0.to_be_bytes()),
            Endianness::Little => w.bytes(&self.0.to_le_bytes()),
        }
        Ok(())
    }

    fn xcdr_read(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        r.align_prim(8, "long double")?;
        let b = r.take_array::<16>("long double")?;
        Ok(LongDouble(match r.endian() {
            Endianness::Big => u128::from_be_bytes(b),
            Endianness::Little => u128::from_le_bytes(b),
        }))
    }
}

/// `wchar` as a UTF-16 code unit (XCDR2 `char16`, §7.4.3.4.1); characters outside the Basic
/// Multilingual Plane do not fit.
pub fn write_wchar(w: &mut CdrWriter<'_>, c: char) -> Result<(), CdrError> {
    let unit =
        u16::try_from(u32::from(c)).map_err(|_| CdrError::Invalid("wchar (not in the BMP)"))?;
    unit.encode(w);
    Ok(())
}

/// Reads a `wchar`; a lone surrogate is invalid.
pub fn read_wchar(r: &mut CdrReader<'_>) -> Result<char, CdrError> {
    let unit = u16::decode(r)?;
    char::from_u32(u32::from(unit)).ok_or(CdrError::Invalid("wchar (surrogate)"))
}

fn check_bound(len: usize, bound: Option<u32>, what: &'static str) -> Result<(), CdrError> {
    match bound {
        Some(b) if u64::try_from(len).unwrap_or(u64::MAX) > u64::from(b) => {
            Err(CdrError::TooLarge(what))
        }
        _ => Ok(()),
    }
}

fn len_u32(len: usize, what: &'static str) -> Result<u32, CdrError> {
    u32::try_from(len).map_err(|_| CdrError::TooLarge(what))
}

/// A `string<bound>`: the bound counts bytes without the NUL (CDR 9.3.2.7).
pub fn write_string(
    w: &mut CdrWriter<'_>,
    s: &str,
    bound: Option<u32>,
    what: &'static str,
) -> Result<(), CdrError> {
    check_bound(s.len(), bound, what)?;
    if s.len() >= MAX_STRING {
        return Err(CdrError::TooLarge(what));
    }
    w.string(s.as_bytes());
    Ok(())
}

/// Reads a `string<bound>` (UTF-8; longer than the bound is an error).
pub fn read_string(
    r: &mut CdrReader<'_>,
    bound: Option<u32>,
    what: &'static str,
) -> Result<String, CdrError> {
    let max = bound.map_or(MAX_STRING, |b| {
        usize::try_from(b).unwrap_or(MAX_STRING).saturating_add(1)
    });
    let bytes = r.string(max, what)?;
    let s = core::str::from_utf8(bytes).map_err(|_| CdrError::Invalid(what))?;
    Ok(s.to_owned())
}

/// A `wstring<bound>`: u32 length in bytes, then UTF-16 code units, no NUL (XCDR2,
/// §7.4.3.4.2; the same layout is used for XCDR1). The bound counts code units.
pub fn write_wstring(
    w: &mut CdrWriter<'_>,
    s: &str,
    bound: Option<u32>,
    what: &'static str,
) -> Result<(), CdrError> {
    let units: Vec<u16> = s.encode_utf16().collect();
    check_bound(units.len(), bound, what)?;
    w.align(4);
    w.u32(len_u32(units.len().saturating_mul(2), what)?);
    for u in units {
        w.u16(u);
    }
    Ok(())
}

/// Reads a `wstring<bound>`.
pub fn read_wstring(
    r: &mut CdrReader<'_>,
    bound: Option<u32>,
    what: &'static str,
) -> Result<String, CdrError> {
    r.align(4, what)?;
    let bytes = usize::try_from(r.u32(what)?).map_err(|_| CdrError::TooLarge(what))?;
    if bytes % 2 != 0 || bytes > MAX_STRING.saturating_mul(2) {
        return Err(CdrError::Invalid(what));
    }
    let n = bytes / 2;
    check_bound(n, bound, what)?;
    let mut units = Vec::with_capacity(n.min(r.remaining() / 2));
    for _ in 0..n {
        units.push(r.u16(what)?);
    }
    String::from_utf16(&units).map_err(|_| CdrError::Invalid(what))
}

/// Writes `body` behind a DHEADER (its length in bytes) in XCDR2. §7.4.3.5.2.
pub fn delimited(
    w: &mut CdrWriter<'_>,
    body: impl FnOnce(&mut CdrWriter<'_>) -> Result<(), CdrError>,
) -> Result<(), CdrError> {
    w.align(4);
    let at = w.offset();
    w.u32(0);
    let start = w.position();
    body(w)?;
    let len = len_u32(w.position().saturating_sub(start), "DHEADER")?;
    w.patch_u32(at, len);
    Ok(())
}

/// Reads a DHEADER and runs `body` on exactly the bytes it delimits (what `body` leaves
/// unread, such as members appended by a newer version of the type, is skipped).
pub fn read_delimited<T>(
    r: &mut CdrReader<'_>,
    body: impl FnOnce(&mut CdrReader<'_>) -> Result<T, CdrError>,
) -> Result<T, CdrError> {
    r.align(4, "DHEADER")?;
    let len = usize::try_from(r.u32("DHEADER")?).map_err(|_| CdrError::TooLarge("DHEADER"))?;
    let mut sub = r.sub(len, "DHEADER body")?;
    body(&mut sub)
}

/// The body of an appendable type: behind a DHEADER in XCDR2, plain in XCDR1.
pub fn write_appendable(
    w: &mut CdrWriter<'_>,
    body: impl FnOnce(&mut CdrWriter<'_>) -> Result<(), CdrError>,
) -> Result<(), CdrError> {
    match w.xcdr() {
        XcdrVersion::Xcdr1 => body(w),
        XcdrVersion::Xcdr2 => delimited(w, body),
    }
}

/// Reads what [`write_appendable`] wrote.
pub fn read_appendable<T>(
    r: &mut CdrReader<'_>,
    body: impl FnOnce(&mut CdrReader<'_>) -> Result<T, CdrError>,
) -> Result<T, CdrError> {
    match r.xcdr() {
        XcdrVersion::Xcdr1 => body(r),
        XcdrVersion::Xcdr2 => read_delimited(r, body),
    }
}

/// `sequence<T, bound>`: u32 count then the elements; in XCDR2 behind a DHEADER when
/// `dheader` (non-primitive elements, §7.4.3.5.3).
pub fn write_seq<T>(
    w: &mut CdrWriter<'_>,
    items: &[T],
    bound: Option<u32>,
    dheader: bool,
    what: &'static str,
    mut elem: impl FnMut(&mut CdrWriter<'_>, &T) -> Result<(), CdrError>,
) -> Result<(), CdrError> {
    check_bound(items.len(), bound, what)?;
    let count = len_u32(items.len(), what)?;
    let body = |w: &mut CdrWriter<'_>| {
        w.align(4);
        w.u32(count);
        items.iter().try_for_each(|item| elem(w, item))
    };
    write_array(w, dheader, body)
}

/// Reads a `sequence<T, bound>`; the count is checked against the bound and against the
/// bytes left (`count * min_elem`) before anything is allocated.
pub fn read_seq<T>(
    r: &mut CdrReader<'_>,
    bound: Option<u32>,
    dheader: bool,
    min_elem: usize,
    what: &'static str,
    mut elem: impl FnMut(&mut CdrReader<'_>) -> Result<T, CdrError>,
) -> Result<Vec<T>, CdrError> {
    let body = |r: &mut CdrReader<'_>| {
        let n = r.seq_len(min_elem, what)?;
        check_bound(n, bound, what)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(elem(r)?);
        }
        Ok(out)
    };
    read_array(r, dheader, body)
}

/// An array (or a sequence body): behind a DHEADER in XCDR2 when `dheader`.
pub fn write_array(
    w: &mut CdrWriter<'_>,
    dheader: bool,
    body: impl FnOnce(&mut CdrWriter<'_>) -> Result<(), CdrError>,
) -> Result<(), CdrError> {
    if dheader && w.xcdr() == XcdrVersion::Xcdr2 {
        delimited(w, body)
    } else {
        body(w)
    }
}

/// Reads what [`write_array`] wrote.
pub fn read_array<T>(
    r: &mut CdrReader<'_>,
    dheader: bool,
    body: impl FnOnce(&mut CdrReader<'_>) -> Result<T, CdrError>,
) -> Result<T, CdrError> {
    if dheader && r.xcdr() == XcdrVersion::Xcdr2 {
        read_delimited(r, body)
    } else {
        body(r)
    }
}

/// Builds `[T; N]` from `N` fallible reads (N is a constant from the IDL, not from the wire).
pub fn try_array<T, const N: usize>(
    mut elem: impl FnMut() -> Result<T, CdrError>,
) -> Result<[T; N], CdrError> {
    let mut out = Vec::with_capacity(N);
    for _ in 0..N {
        out.push(elem()?);
    }
    out.try_into().map_err(|_| CdrError::Invalid("array"))
}

/// An `@optional` member of a final or appendable type. XCDR2: a boolean then the value
/// (§7.4.3.5.3). XCDR1: a PID_EXTENDED parameter header carrying member `id` and the value's
/// length, 0 when absent, the value aligned from its own start (§7.4.1.2).
pub fn write_optional<T>(
    w: &mut CdrWriter<'_>,
    id: u32,
    value: Option<&T>,
    body: impl FnOnce(&mut CdrWriter<'_>, &T) -> Result<(), CdrError>,
) -> Result<(), CdrError> {
    match w.xcdr() {
        XcdrVersion::Xcdr2 => {
            w.u8(u8::from(value.is_some()));
            value.map_or(Ok(()), |v| body(w, v))
        }
        XcdrVersion::Xcdr1 => {
            w.align(4);
            w.u16(PID_EXTENDED_MU);
            w.u16(8);
            w.u32(id & MEMBER_ID_MASK);
            let at = w.offset();
            w.u32(0);
            if let Some(v) = value {
                let len = {
                    let mut inner = w.nested();
                    body(&mut inner, v)?;
                    inner.position()
                };
                w.patch_u32(at, len_u32(len, "optional member")?);
            }
            Ok(())
        }
    }
}

/// Reads what [`write_optional`] wrote.
pub fn read_optional<T>(
    r: &mut CdrReader<'_>,
    body: impl FnOnce(&mut CdrReader<'_>) -> Result<T, CdrError>,
) -> Result<Option<T>, CdrError> {
    match r.xcdr() {
        XcdrVersion::Xcdr2 => {
            if bool::decode(r)? {
                body(r).map(Some)
            } else {
                Ok(None)
            }
        }
        XcdrVersion::Xcdr1 => {
            let (_, len, _) = parameter_header(r)?;
            if len == 0 {
                return Ok(None);
            }
            let mut sub = r.sub(len, "optional member")?;
            body(&mut sub).map(Some)
        }
    }
}

/// The encapsulation kind of a top-level type (§7.6.3.1.2).
pub fn encapsulation(version: XcdrVersion, ext: Extensibility) -> EncapsulationKind {
    match (version, ext) {
        (XcdrVersion::Xcdr1, Extensibility::Mutable) => EncapsulationKind::PlCdr,
        (XcdrVersion::Xcdr1, _) => EncapsulationKind::Cdr,
        (XcdrVersion::Xcdr2, Extensibility::Final) => EncapsulationKind::Cdr2,
        (XcdrVersion::Xcdr2, Extensibility::Appendable) => EncapsulationKind::DCdr2,
        (XcdrVersion::Xcdr2, Extensibility::Mutable) => EncapsulationKind::PlCdr2,
    }
}

/// A complete payload: encapsulation header (kind from version and extensibility) and the
/// body, zero-padded to a multiple of 4 with the pad count in the options' low two bits
/// (DDS-XTypes 1.3 §7.6.3.1.2, RTPS 2.5 §10.2).
pub fn serialize<T: XcdrCodec>(
    value: &T,
    ext: Extensibility,
    version: XcdrVersion,
    endian: Endianness,
) -> Result<Vec<u8>, CdrError> {
    let kind = encapsulation(version, ext);
    encapsulate(kind, version, endian, true, |w| value.xcdr_write(w))
}

/// The encapsulation header of `kind`, then what `body` writes in `version`'s alignment;
/// with `pad`, zero-padded to a multiple of 4 with the count in the options' low two bits.
pub(crate) fn encapsulate(
    kind: EncapsulationKind,
    version: XcdrVersion,
    endian: Endianness,
    pad: bool,
    body: impl FnOnce(&mut CdrWriter<'_>) -> Result<(), CdrError>,
) -> Result<Vec<u8>, CdrError> {
    let mut out = Vec::new();
    let mut w = CdrWriter::new(&mut out, endian);
    EncapsulationHeader::new(kind, endian).emit(&mut w);
    let padding = {
        let mut nested = w.nested();
        nested.set_xcdr(version);
        body(&mut nested)?;
        let before = nested.position();
        if pad {
            nested.align(4);
        }
        nested.position().saturating_sub(before)
    };
    if let Some(options) = out.get_mut(3) {
        *options = u8::try_from(padding & 3).unwrap_or(0);
    }
    Ok(out)
}

/// [`serialize`] in XCDR1 for `TopicType::serialize`, which cannot fail: a sample that breaks
/// its IDL bounds is logged and sent as a bare encapsulation header, which every reader
/// rejects, rather than as bytes that claim to be a valid sample. `serialize_as` reports it.
pub fn serialize_or_empty<T: XcdrCodec>(
    value: &T,
    ext: Extensibility,
    endian: Endianness,
) -> Vec<u8> {
    serialize(value, ext, XcdrVersion::Xcdr1, endian).unwrap_or_else(|e| {
        log::error!("sample not serialized: {e}");
        let mut out = Vec::new();
        EncapsulationHeader::new(encapsulation(XcdrVersion::Xcdr1, ext), endian)
            .emit(&mut CdrWriter::new(&mut out, endian));
        out
    })
}

/// Decodes a payload in any version, dispatching on the encapsulation header; alignment
/// restarts after the header. Trailing padding, counted in the options or not, is ignored.
pub fn deserialize<T: XcdrCodec>(data: &[u8]) -> Result<T, CdrError> {
    let mut r = CdrReader::new(data, Endianness::Big);
    let header = EncapsulationHeader::parse(&mut r)?;
    let version = match header.kind {
        EncapsulationKind::Cdr | EncapsulationKind::PlCdr => XcdrVersion::Xcdr1,
        EncapsulationKind::Cdr2 | EncapsulationKind::DCdr2 | EncapsulationKind::PlCdr2 => {
            XcdrVersion::Xcdr2
        }
        EncapsulationKind::Xml => return Err(CdrError::Invalid("encapsulation (XML)")),
    };
    // §7.6.3.1.2: the options' low two bits count the padding after the last member; without
    // it, an appendable type from an older peer ends exactly where its members end.
    let pad = usize::from(header.options & 3);
    let rest = r.rest();
    let rest = rest.get(..rest.len().saturating_sub(pad)).unwrap_or(rest);
    let mut body = CdrReader::new(rest, header.endian);
    body.set_xcdr(version);
    T::xcdr_read(&mut body)
}

/// The key holder of `value` as PLAIN_CDR2 big-endian (RTPS 2.5 §9.6.4.8).
pub fn key_holder_be<T: XcdrCodec>(value: &T) -> Result<Vec<u8>, CdrError> {
    let mut out = Vec::new();
    let mut w = CdrWriter::new(&mut out, Endianness::Big);
    w.set_xcdr(XcdrVersion::Xcdr2);
    value.xcdr_write_key(&mut w)?;
    Ok(out)
}

/// The key hash of `value` whose key holder serializes to at most `max_key_size` bytes
/// (`None`: unbounded). RTPS 2.5 §9.6.4.8.
pub fn key_hash<T: XcdrCodec>(
    value: &T,
    max_key_size: Option<usize>,
) -> Result<[u8; 16], CdrError> {
    let key = key_holder_be(value)?;
    Ok(key_hash_from_key_bytes(
        &key,
        max_key_size.unwrap_or(usize::MAX),
    ))
}

#[cfg(test)]
mod tests;
