//! Converting a serialized sample of a type known only at run time (its [`TypeDescriptor`])
//! between the two extended CDR representations and byte orders, without building a value
//! tree: each member is read in the source encoding and written at once in the target one.
//! XCDR1 is PLAIN_CDR (final, appendable) or PL_CDR (mutable); XCDR2 is PLAIN_CDR2 (final),
//! D_CDR2 (appendable) or PL_CDR2 (mutable). Also the key members of a sample or of a
//! key-only payload (a dispose, an unregister), and the key-only payload a writer of a given
//! representation sends (what the router needs to relay a dispose between representations).
//!
//! Must not: panic, recurse deeper than the descriptor, or transcode more than
//! [`MAX_TRANSCODE_VALUES`] values of one payload (the bytes are untrusted; the descriptor is
//! trusted local data). No I/O, nothing about RTPS.
//!
//! # Overview
//! DDS-XTypes 1.3 §7.4.3 (encodings), §7.6.3.1.2 (encapsulation kinds), §7.4.3.5.2–3
//! (DHEADER before appendable structs and before collections of non-primitive elements in
//! XCDR2; EMHEADERs for mutable members; XCDR2 optional = an is_present octet, XCDR1 optional
//! = a parameter header of length 0 when absent, §7.4.1.2). The target is written as the
//! siftdds IDL code generator writes it (`types::codec`: the same length codes, no
//! must-understand flags, trailing padding counted in the options), so an XCDR1 sample
//! transcoded to XCDR2 is byte for byte what the typed writer sends in XCDR2. An appendable
//! struct whose data ends at a member boundary (an older peer's type, like the vendors'
//! 4-member ShapeType) is written with the members it has: at the top level, or behind a
//! DHEADER; a nested one truncated towards XCDR1 (no delimiter) is an error. Unions are not
//! handled (an error): the caller forwards such payloads as they are.

use super::codec::{self, LengthCode};
use super::{Extensibility, Member, TypeDescriptor, TypeKind, XcdrVersion};
use crate::cdr::{CdrError, EncapsulationHeader, EncapsulationKind, Endianness, MAX_STRING};
use crate::cdr::{CdrReader, CdrWriter};

/// Most values (members and elements, at every level; a collection of primitives counts
/// once) transcoded from one payload.
pub const MAX_TRANSCODE_VALUES: usize = 100_000;

/// The XCDR version of a payload's encapsulation header; `None` for XML or no header.
pub fn payload_version(payload: &[u8]) -> Option<XcdrVersion> {
    let (header, _) = EncapsulationHeader::body(payload).ok()?;
    version_of(header.kind)
}

fn version_of(kind: EncapsulationKind) -> Option<XcdrVersion> {
    match kind {
        EncapsulationKind::Cdr | EncapsulationKind::PlCdr => Some(XcdrVersion::Xcdr1),
        EncapsulationKind::Cdr2 | EncapsulationKind::DCdr2 | EncapsulationKind::PlCdr2 => {
            Some(XcdrVersion::Xcdr2)
        }
        EncapsulationKind::Xml => None,
    }
}

/// The sample `payload` (encapsulation header included) of type `desc` re-serialized in
/// `to` and `endian`: the encapsulation kind from `to` and the type's extensibility, the body
/// zero-padded to a multiple of 4 with the count in the options.
pub fn transcode(
    payload: &[u8],
    desc: &TypeDescriptor,
    to: XcdrVersion,
    endian: Endianness,
) -> Result<Vec<u8>, CdrError> {
    let (header, mut r) = EncapsulationHeader::body(payload)?;
    let mutable = matches!(
        header.kind,
        EncapsulationKind::PlCdr | EncapsulationKind::PlCdr2
    );
    if version_of(header.kind).is_none()
        || mutable != (desc.extensibility == Extensibility::Mutable)
    {
        return Err(CdrError::Invalid("encapsulation for the type"));
    }
    let kind = codec::encapsulation(to, desc.extensibility);
    let dheader = header.kind == EncapsulationKind::DCdr2;
    let mut t = Transcoder::default();
    codec::encapsulate(kind, to, endian, true, |w| {
        t.top(&mut r, w, desc, dheader, false)
    })
}

/// The key members of the sample `payload` of type `desc`, in declaration order, as the body
/// of a final struct in XCDR2 little-endian (the form [`key_payload`] reads): what identifies
/// its instance, kept to build a dispose's serialized key later. `desc` may end at its last
/// key member (what follows is not read).
pub fn sample_key(payload: &[u8], desc: &TypeDescriptor) -> Result<Vec<u8>, CdrError> {
    let (header, mut r) = EncapsulationHeader::body(payload)?;
    if version_of(header.kind).is_none() {
        return Err(CdrError::Invalid("encapsulation (XML)"));
    }
    let dheader = header.kind == EncapsulationKind::DCdr2;
    let mut out = Vec::new();
    let mut w = CdrWriter::new(&mut out, Endianness::Little);
    w.set_xcdr(XcdrVersion::Xcdr2);
    Transcoder::default().top(&mut r, &mut w, desc, dheader, true)?;
    Ok(out)
}

/// The key members of a key-only payload (a dispose's or unregister's serialized key, any
/// form `types::codec::read_key_only` reads: XCDR1, XCDR2 with or without a DHEADER) of a
/// type whose key members are `key_only` (final), in the form of [`sample_key`]. `None` when
/// it does not decode (PL_CDR and PL_CDR2 keys are not read).
pub fn key_of_key_payload(data: &[u8], key_only: &TypeDescriptor) -> Option<Vec<u8>> {
    codec::read_key_only(data, |r| {
        let mut out = Vec::new();
        let mut w = CdrWriter::new(&mut out, Endianness::Little);
        w.set_xcdr(XcdrVersion::Xcdr2);
        Transcoder::default().members(r, &mut w, key_only, false, false, false)?;
        Ok(out)
    })
}

/// The serialized key a writer of representation `to` sends for a dispose or unregister of a
/// type of extensibility `ext` whose key members are `key_only`, from `key` (the form of
/// [`sample_key`]), as `types::codec::serialize_key_as` writes it: XCDR1 CDR, unpadded;
/// XCDR2 the type's encapsulation, the key members without a DHEADER (Cyclone DDS 0.10's
/// form, docs/interop-facts.md §5.10), padded to 4. A mutable type's key is not built.
pub fn key_payload(
    key: &[u8],
    key_only: &TypeDescriptor,
    ext: Extensibility,
    to: XcdrVersion,
    endian: Endianness,
) -> Result<Vec<u8>, CdrError> {
    if ext == Extensibility::Mutable {
        return Err(CdrError::Invalid("mutable key (not built)"));
    }
    let kind = match to {
        XcdrVersion::Xcdr1 => EncapsulationKind::Cdr,
        XcdrVersion::Xcdr2 => codec::encapsulation(to, ext),
    };
    let mut r = CdrReader::new(key, Endianness::Little);
    r.set_xcdr(XcdrVersion::Xcdr2);
    let pad = to == XcdrVersion::Xcdr2;
    codec::encapsulate(kind, to, endian, pad, |w| {
        Transcoder::default().members(&mut r, w, key_only, false, false, false)
    })
}

/// The length code of a mutable member of `kind`, as the IDL code generator picks it
/// (`idl::codegen::value::length_code`).
fn length_code(kind: &TypeKind) -> LengthCode {
    match kind {
        TypeKind::String { .. } => LengthCode::DualUse1,
        TypeKind::Sequence { elem, .. } if dheader(elem) => LengthCode::DualUse1,
        TypeKind::Sequence { elem, .. } => match elem.primitive_size() {
            Some(1) | None => LengthCode::DualUse1,
            Some(4) => LengthCode::DualUse4,
            Some(8) => LengthCode::DualUse8,
            Some(_) => LengthCode::NextInt,
        },
        TypeKind::Array { elem, .. } if dheader(elem) => LengthCode::DualUse1,
        k => match k.primitive_size() {
            Some(1) => LengthCode::Size1,
            Some(2) => LengthCode::Size2,
            Some(4) => LengthCode::Size4,
            Some(8) => LengthCode::Size8,
            _ => LengthCode::NextInt,
        },
    }
}

/// Whether XCDR2 puts a DHEADER before a collection of `elem`: elements that are not
/// primitive, enums included (DDS-XTypes 1.3 §7.4.3.5.3; what Cyclone writes, the vectors'
/// `Enums`).
fn dheader(elem: &TypeKind) -> bool {
    elem.primitive_size().is_none() || matches!(elem, TypeKind::Enum(_))
}

/// Reads a DHEADER and returns a reader over the bytes it delimits.
fn delimited<'a>(r: &mut CdrReader<'a>) -> Result<CdrReader<'a>, CdrError> {
    r.align(4, "DHEADER")?;
    let len = usize::try_from(r.u32("DHEADER")?).map_err(|_| CdrError::TooLarge("DHEADER"))?;
    r.sub(len, "DHEADER body")
}

#[derive(Default)]
struct Transcoder {
    /// Values transcoded so far (bounded by [`MAX_TRANSCODE_VALUES`]).
    budget: usize,
}

impl Transcoder {
    fn count(&mut self) -> Result<(), CdrError> {
        self.budget = self.budget.saturating_add(1);
        if self.budget > MAX_TRANSCODE_VALUES {
            return Err(CdrError::TooLarge("values (MAX_TRANSCODE_VALUES)"));
        }
        Ok(())
    }

    /// The top-level struct; `dheader`: the source is D_CDR2 (a DHEADER first); `keys`:
    /// write only the key members (all when none is), as a final struct.
    fn top(
        &mut self,
        r: &mut CdrReader<'_>,
        w: &mut CdrWriter<'_>,
        desc: &TypeDescriptor,
        dheader: bool,
        keys: bool,
    ) -> Result<(), CdrError> {
        if desc.extensibility == Extensibility::Mutable {
            if keys {
                return Err(CdrError::Invalid("mutable key (not read)"));
            }
            return self.mutable(r, w, desc);
        }
        let appendable = desc.extensibility == Extensibility::Appendable;
        let mut sub;
        let src = if dheader && r.xcdr() == XcdrVersion::Xcdr2 {
            sub = delimited(r)?;
            &mut sub
        } else {
            r
        };
        // The top level may end early whatever the target: the payload's end delimits it.
        let truncatable = appendable || dheader;
        if appendable && w.xcdr() == XcdrVersion::Xcdr2 && !keys {
            codec::delimited(w, |w| self.members(src, w, desc, truncatable, true, false))
        } else {
            self.members(src, w, desc, truncatable, true, keys)
        }
    }

    /// A struct body; `truncatable`: data ending at a member boundary leaves the remaining
    /// members absent (appendable types), allowed only if `may_end` (the target delimits the
    /// struct); `keys`: only the key members are written.
    // Recursion (with `value`) is bounded by the descriptor's depth.
    fn members(
        &mut self,
        r: &mut CdrReader<'_>,
        w: &mut CdrWriter<'_>,
        desc: &TypeDescriptor,
        truncatable: bool,
        may_end: bool,
        keys: bool,
    ) -> Result<(), CdrError> {
        let any_key = desc.members.iter().any(|m| m.key);
        for m in &desc.members {
            self.count()?;
            if truncatable && r.is_empty() {
                if may_end {
                    return Ok(());
                }
                return Err(CdrError::Invalid("truncated appendable struct"));
            }
            if keys && any_key && !m.key {
                // Read through, written nowhere.
                let mut sink = Vec::new();
                let mut skip = CdrWriter::new(&mut sink, Endianness::Little);
                skip.set_xcdr(XcdrVersion::Xcdr2);
                self.member(r, &mut skip, m)?;
            } else {
                self.member(r, w, m)?;
            }
        }
        Ok(())
    }

    /// One member of a final or appendable struct (its optional form included).
    fn member(
        &mut self,
        r: &mut CdrReader<'_>,
        w: &mut CdrWriter<'_>,
        m: &Member,
    ) -> Result<(), CdrError> {
        if !m.optional {
            return self.value(r, w, &m.kind);
        }
        let mut param;
        let (present, src) = match r.xcdr() {
            // XTypes §7.4.3.5.3: an is_present octet, then the value.
            XcdrVersion::Xcdr2 => match r.u8("optional flag")? {
                0 => (false, r),
                1 => (true, r),
                _ => return Err(CdrError::Invalid("optional flag")),
            },
            // §7.4.1.2: a parameter header, length 0 when absent; the value aligned from
            // its own start.
            XcdrVersion::Xcdr1 => {
                let (_, len, _) = codec::parameter_header(r)?;
                param = r.sub(len, "optional member")?;
                (len != 0, &mut param)
            }
        };
        codec::write_optional(w, m.id, present.then_some(&()), |w, ()| {
            self.value(src, w, &m.kind)
        })
    }

    /// A mutable struct: its members in the order received, unknown ones dropped (an unknown
    /// must-understand member is an error, `types::codec::read_mutable`).
    fn mutable(
        &mut self,
        r: &mut CdrReader<'_>,
        w: &mut CdrWriter<'_>,
        desc: &TypeDescriptor,
    ) -> Result<(), CdrError> {
        codec::write_mutable(w, |mw| {
            codec::read_mutable(r, |id, v| {
                let Some(m) = desc.members.iter().find(|m| m.id == id) else {
                    return Ok(false);
                };
                self.count()?;
                mw.member(id, false, length_code(&m.kind), |w| {
                    self.value(v, w, &m.kind)
                })?;
                Ok(true)
            })
        })
    }

    fn value(
        &mut self,
        r: &mut CdrReader<'_>,
        w: &mut CdrWriter<'_>,
        kind: &TypeKind,
    ) -> Result<(), CdrError> {
        self.count()?;
        if let Some(size) = kind.primitive_size() {
            return primitives(r, w, size, 1);
        }
        match kind {
            TypeKind::String { bound } => {
                let max = bound
                    .and_then(|b| usize::try_from(b).ok())
                    .map_or(MAX_STRING, |b| b.saturating_add(1));
                let bytes = r.string(max, "string")?;
                w.string(bytes);
                Ok(())
            }
            TypeKind::Struct(d) => match d.extensibility {
                Extensibility::Final => self.members(r, w, d, false, false, false),
                Extensibility::Appendable => {
                    let mut sub;
                    let src = if r.xcdr() == XcdrVersion::Xcdr2 {
                        sub = delimited(r)?;
                        &mut sub
                    } else {
                        r
                    };
                    let (truncatable, may_end) = (
                        src.xcdr() == XcdrVersion::Xcdr2,
                        w.xcdr() == XcdrVersion::Xcdr2,
                    );
                    codec::write_appendable(w, |w| {
                        self.members(src, w, d, truncatable, may_end, false)
                    })
                }
                Extensibility::Mutable => self.mutable(r, w, d),
            },
            TypeKind::Sequence { elem, bound } => {
                let dh = dheader(elem);
                let mut sub;
                let src = if dh && r.xcdr() == XcdrVersion::Xcdr2 {
                    sub = delimited(r)?;
                    &mut sub
                } else {
                    r
                };
                let n = src.seq_len(elem.primitive_size().unwrap_or(1), "sequence length")?;
                if bound.is_some_and(|b| u64::try_from(n).unwrap_or(u64::MAX) > u64::from(b)) {
                    return Err(CdrError::TooLarge("sequence over its bound"));
                }
                let count = u32::try_from(n).map_err(|_| CdrError::TooLarge("sequence"))?;
                codec::write_array(w, dh, |w| {
                    w.align(4);
                    w.u32(count);
                    self.elems(src, w, elem, n)
                })
            }
            TypeKind::Array { elem, dims } => {
                let n = dims
                    .iter()
                    .try_fold(1usize, |acc, d| acc.checked_mul(usize::try_from(*d).ok()?))
                    .ok_or(CdrError::TooLarge("array"))?;
                let dh = dheader(elem);
                let mut sub;
                let src = if dh && r.xcdr() == XcdrVersion::Xcdr2 {
                    sub = delimited(r)?;
                    &mut sub
                } else {
                    r
                };
                codec::write_array(w, dh, |w| self.elems(src, w, elem, n))
            }
            TypeKind::Union(_) => Err(CdrError::Invalid("union (not transcoded)")),
            _ => Err(CdrError::Invalid("member kind")),
        }
    }

    fn elems(
        &mut self,
        r: &mut CdrReader<'_>,
        w: &mut CdrWriter<'_>,
        elem: &TypeKind,
        n: usize,
    ) -> Result<(), CdrError> {
        if let Some(size) = elem.primitive_size() {
            return primitives(r, w, size, n);
        }
        for _ in 0..n {
            self.value(r, w, elem)?;
        }
        Ok(())
    }
}

/// `n` primitives of `size` bytes, contiguous after the first one's alignment (none when
/// `n` is 0): copied as they are in the same byte order, else byte-swapped one by one.
fn primitives(
    r: &mut CdrReader<'_>,
    w: &mut CdrWriter<'_>,
    size: usize,
    n: usize,
) -> Result<(), CdrError> {
    if n == 0 {
        return Ok(());
    }
    r.align_prim(size, "primitive")?;
    let total = size
        .checked_mul(n)
        .ok_or(CdrError::TooLarge("primitives"))?;
    let bytes = r.take(total, "primitive")?;
    w.align_prim(size);
    if size == 1 || r.endian() == w.endian() {
        w.bytes(bytes);
    } else {
        for one in bytes.chunks_exact(size) {
            for b in one.iter().rev() {
                w.u8(*b);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
