//! The TypeObject as Fast DDS 2.9 puts it inline in SEDP (PID_TYPE_OBJECTV1, 0x0072): the
//! XTypes 1.1/1.2 layout of the complete TypeObject, serialized as XCDR1 behind its own
//! encapsulation header, with no DHEADER anywhere (eProsima Fast DDS 2.9,
//! `src/cpp/dynamic-types/TypeObject.cpp`). [`parse`] maps a complete structure onto
//! [`TypeObject`], so the descriptor and the sample decoder serve it as any other type, and
//! gives the identifier Fast DDS announces for it in PID_TYPE_IDV1 (0x0069): `EK_COMPLETE`
//! and the first 14 bytes of the MD5 of the bytes after the encapsulation header (XTypes 1.3
//! §7.3.4.4's rule applied to this serialization).
//!
//! Layout, in order (XCDR1: primitives aligned to their size; strings and sequences behind
//! a 4-byte count):
//! `TypeObject` `{octet EK_COMPLETE; CompleteTypeObject {octet TK_STRUCTURE;
//! CompleteStructType {uint16 struct_flags; CompleteStructHeader {TypeIdentifier base_type;
//! CompleteTypeDetail}; sequence<CompleteStructMember>}}}`, where
//! `CompleteTypeDetail` is `{AppliedVerbatimAnnotation {string placement, language, text};
//! sequence<AppliedAnnotation> ann_custom; string type_name}`,
//! `CompleteStructMember` is `{uint32 member_id; uint16 member_flags; TypeIdentifier;
//! string name; AppliedBuiltinMemberAnnotations {string unit; AnnotationParameterValue min,
//! max; string hash_id}; sequence<AppliedAnnotation> ann_custom}`, an `AppliedAnnotation`
//! is `{TypeIdentifier annotation_typeid; sequence<{octet[4] paramname_hash;
//! AnnotationParameterValue}>}` and an `AnnotationParameterValue` a union on a `TypeKind`
//! octet (`TK_NONE`: empty). Every annotation is read past and not kept: `@key` is also
//! in the member flags. A plain collection header's equivalence kind is taken as written
//! (Fast DDS 2.9 writes the element's type kind there).
//!
//! Must not: decode anything but a complete structure (other kinds, minimal objects:
//! refused), read beyond [`MAX_TYPE_OBJECT_V1_SIZE`] bytes, more than [`MAX_MEMBERS`]
//! members or [`MAX_ANNOTATIONS`] annotations per list, or panic on any input.

use super::type_identifier::parse_lenient;
use super::{
    EK_COMPLETE, EquivalenceKind, MAX_DEPTH, MAX_MEMBERS, StructMember, StructType, TK_STRUCTURE,
    TypeIdentifier, TypeObject, TypeObjectBody, equivalence_hash, name_hash, read_name,
};
use crate::cdr::{CdrError, CdrReader, Endianness, XcdrVersion};

/// The largest PID_TYPE_OBJECTV1 value decoded.
pub const MAX_TYPE_OBJECT_V1_SIZE: usize = 64 * 1024;
/// Applied annotations (or annotation parameters) read past per list.
pub const MAX_ANNOTATIONS: usize = 64;
/// Annotation strings (verbatim text, units) are at most this long.
const MAX_ANNOTATION_TEXT: usize = 4096;

/// Decodes a PID_TYPE_OBJECTV1 value (encapsulation header included, CDR_LE or CDR_BE):
/// the identifier Fast DDS gives it and the structure it describes. Untrusted input:
/// bounded, never panics.
pub fn parse(value: &[u8]) -> Result<(TypeIdentifier, TypeObject), CdrError> {
    const WHAT: &str = "TypeObjectV1";
    if value.len() > MAX_TYPE_OBJECT_V1_SIZE {
        return Err(CdrError::TooLarge(WHAT));
    }
    let (header, body) = value.split_at_checked(4).ok_or(CdrError::Truncated(WHAT))?;
    let endian = match header {
        [0x00, 0x00, _, _] => Endianness::Big,
        [0x00, 0x01, _, _] => Endianness::Little,
        _ => return Err(CdrError::Invalid("TypeObjectV1 encapsulation")),
    };
    let mut r = CdrReader::new(body, endian);
    r.set_xcdr(XcdrVersion::Xcdr1);
    if r.u8(WHAT)? != EK_COMPLETE {
        return Err(CdrError::Invalid("TypeObjectV1: not a complete TypeObject"));
    }
    if r.u8(WHAT)? != TK_STRUCTURE {
        return Err(CdrError::Invalid("TypeObjectV1: not a structure"));
    }
    let structure = parse_struct(&mut r)?;
    let used = body.len().saturating_sub(r.rest().len());
    // §7.3.4.4 over the bytes as Fast DDS serializes them (its hash is taken over the
    // little-endian form; big-endian bytes hash to an identifier it never announces).
    let hash = equivalence_hash(body.get(..used).unwrap_or(&[]));
    let object = TypeObject {
        kind: EquivalenceKind::Complete,
        body: TypeObjectBody::Struct(structure),
    };
    Ok((TypeIdentifier::Complete(hash), object))
}

fn parse_struct(r: &mut CdrReader<'_>) -> Result<StructType, CdrError> {
    const WHAT: &str = "CompleteStructType";
    r.align(2, WHAT)?;
    let flags = r.u16("struct_flags")?;
    let base = parse_lenient(r, MAX_DEPTH.saturating_sub(4))?;
    let type_name = parse_type_detail(r)?;
    // A member takes at least 4 + 2 + 1 + 4 (name) + 4 + 3 + 4 + 4 bytes.
    let n = super::bounded_len(r, 24, MAX_MEMBERS, "member_seq")?;
    let mut members = Vec::with_capacity(n);
    for _ in 0..n {
        r.align(4, WHAT)?;
        let id = r.u32("member_id")?;
        let member_flags = r.u16("member_flags")?;
        let type_id = parse_lenient(r, MAX_DEPTH.saturating_sub(4))?;
        let name = read_name(r, "member name")?;
        skip_member_annotations(r)?;
        members.push(StructMember {
            id,
            flags: member_flags,
            type_id,
            name_hash: name_hash(&name),
            name,
        });
    }
    Ok(StructType {
        flags,
        base,
        type_name,
        members,
    })
}

/// `CompleteTypeDetail`: the verbatim annotation and custom annotations read past; the type
/// name returned.
fn parse_type_detail(r: &mut CdrReader<'_>) -> Result<String, CdrError> {
    for what in ["placement", "language", "text"] {
        r.string(MAX_ANNOTATION_TEXT, what)?;
    }
    skip_applied_annotations(r)?;
    read_name(r, "type_name")
}

/// `AppliedBuiltinMemberAnnotations` and the member's `ann_custom`.
fn skip_member_annotations(r: &mut CdrReader<'_>) -> Result<(), CdrError> {
    r.string(MAX_ANNOTATION_TEXT, "unit")?;
    skip_parameter_value(r)?;
    skip_parameter_value(r)?;
    r.string(MAX_ANNOTATION_TEXT, "hash_id")?;
    skip_applied_annotations(r)
}

/// `sequence<AppliedAnnotation>`.
fn skip_applied_annotations(r: &mut CdrReader<'_>) -> Result<(), CdrError> {
    let n = super::bounded_len(r, 5, MAX_ANNOTATIONS, "ann_custom")?;
    for _ in 0..n {
        parse_lenient(r, MAX_DEPTH.saturating_sub(4))?;
        let params = super::bounded_len(r, 5, MAX_ANNOTATIONS, "param_seq")?;
        for _ in 0..params {
            r.take(4, "paramname_hash")?;
            skip_parameter_value(r)?;
        }
    }
    Ok(())
}

/// `AnnotationParameterValue`: a union on a `TypeKind` octet (XTypes 1.3 §7.3.4.9.1).
fn skip_parameter_value(r: &mut CdrReader<'_>) -> Result<(), CdrError> {
    const WHAT: &str = "AnnotationParameterValue";
    let size = match r.u8(WHAT)? {
        super::TK_NONE => 0,
        super::TK_BOOLEAN | super::TK_BYTE | super::TK_INT8 | super::TK_UINT8 | super::TK_CHAR8 => {
            1
        }
        super::TK_INT16 | super::TK_UINT16 | super::TK_CHAR16 => 2,
        super::TK_INT32 | super::TK_UINT32 | super::TK_FLOAT32 | super::TK_ENUM => 4,
        super::TK_INT64 | super::TK_UINT64 | super::TK_FLOAT64 => 8,
        super::TK_FLOAT128 => 16,
        // TK_STRING8.
        0x20 => {
            r.string(MAX_ANNOTATION_TEXT, WHAT)?;
            return Ok(());
        }
        _ => return Err(CdrError::Invalid(WHAT)),
    };
    if size > 0 {
        r.align_prim(size.min(8), WHAT)?;
        r.take(size, WHAT)?;
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests;
