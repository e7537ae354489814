//! DDS-XTypes 1.3 type representation on the wire: [`TypeIdentifier`] (§7.3.4.2),
//! [`TypeObject`] minimal and complete (§7.3.4.5–§7.3.4.8), [`TypeInformation`] (§7.6.3.2.2),
//! their XCDR2 serialization as the spec's own IDL (Annex B) declares it, and the equivalence
//! hash (§7.3.4.4: the first 14 bytes of the MD5 of the TypeObject's XCDR2 little-endian
//! serialization). The builder from the IDL model lives in `idl::to_type_object`; a
//! [`TopicType`](super::TopicType) hands its result out as [`TypeRepresentation`].
//!
//! Decoding is for untrusted input (SEDP's PID_TYPE_INFORMATION, TypeLookup replies): it goes
//! through `cdr::CdrReader`, never panics, bounds nesting ([`MAX_DEPTH`]), counts
//! ([`MAX_MEMBERS`], [`MAX_DEPENDENT_TYPEIDS`], [`MAX_ARRAY_DIMENSIONS`], [`MAX_LABELS`]) and
//! sizes ([`MAX_TYPE_OBJECT_SIZE`]) before allocating, refuses strongly connected components
//! (recursive types), and skips applied annotations (their DHEADERs say how long they are).
//!
//! Must not: know about RTPS, SEDP or the TypeLookup service, or perform I/O.

pub mod assignability;
pub mod to_descriptor;
mod type_identifier;
mod type_information;
pub mod type_lookup;
mod type_object;
pub mod type_object_v1;

pub use type_identifier::{
    EK_BOTH, EK_COMPLETE, EK_MINIMAL, EquivalenceHash, EquivalenceKind, PlainCollectionHeader,
    TK_ALIAS, TK_ARRAY, TK_BOOLEAN, TK_BYTE, TK_CHAR8, TK_CHAR16, TK_ENUM, TK_FLOAT32, TK_FLOAT64,
    TK_FLOAT128, TK_INT8, TK_INT16, TK_INT32, TK_INT64, TK_NONE, TK_SEQUENCE, TK_STRUCTURE,
    TK_UINT8, TK_UINT16, TK_UINT32, TK_UINT64, TK_UNION, TypeIdentifier, primitive_kind,
};
pub use type_information::{
    TypeIdentifierWithDependencies, TypeIdentifierWithSize, TypeInformation,
};
pub use type_object::{
    AliasType, CollectionType, EnumLiteral, EnumType, NameHash, StructMember, StructType,
    TypeObject, TypeObjectBody, UnionMember, UnionType, name_hash,
};

use md5::{Digest, Md5};

use crate::cdr::{CdrError, CdrReader, CdrWriter, Endianness, XcdrVersion};

/// Deepest nesting of type identifiers (plain collections of plain collections) and
/// annotation values a decoder follows.
pub const MAX_DEPTH: usize = 16;
/// Most members, literals or union cases in one decoded TypeObject.
pub const MAX_MEMBERS: usize = 4096;
/// Most dimensions of a decoded array.
pub const MAX_ARRAY_DIMENSIONS: usize = 32;
/// Most labels of one decoded union case.
pub const MAX_LABELS: usize = 1024;
/// Most dependent type identifiers kept from one decoded TypeInformation.
pub const MAX_DEPENDENT_TYPEIDS: usize = 256;
/// Largest serialized TypeObject accepted (and announced size believed).
pub const MAX_TYPE_OBJECT_SIZE: usize = 256 * 1024;
/// `MEMBER_NAME_MAX_LENGTH` and `TYPE_NAME_MAX_LENGTH` (§7.3.4.1.1): names are `string<256>`.
pub const MAX_NAME_LENGTH: usize = 256;

// XTypes 1.3 §7.3.4.3 (TypeFlag, MemberFlag bits).
/// `IS_FINAL`.
pub const IS_FINAL: u16 = 1 << 0;
/// `IS_APPENDABLE`.
pub const IS_APPENDABLE: u16 = 1 << 1;
/// `IS_MUTABLE`.
pub const IS_MUTABLE: u16 = 1 << 2;
/// `IS_NESTED`.
pub const IS_NESTED: u16 = 1 << 3;
/// `IS_AUTOID_HASH`.
pub const IS_AUTOID_HASH: u16 = 1 << 4;
/// `TRY_CONSTRUCT1` (with `TRY_CONSTRUCT2` clear: `@try_construct(DISCARD)`, the default).
pub const TRY_CONSTRUCT1: u16 = 1 << 0;
/// `TRY_CONSTRUCT2`.
pub const TRY_CONSTRUCT2: u16 = 1 << 1;
/// `IS_EXTERNAL`.
pub const IS_EXTERNAL: u16 = 1 << 2;
/// `IS_OPTIONAL`.
pub const IS_OPTIONAL: u16 = 1 << 3;
/// `IS_MUST_UNDERSTAND`.
pub const IS_MUST_UNDERSTAND: u16 = 1 << 4;
/// `IS_KEY`.
pub const IS_KEY: u16 = 1 << 5;
/// `IS_DEFAULT`.
pub const IS_DEFAULT: u16 = 1 << 6;

/// What a [`TopicType`](super::TopicType) announces about its type: its TypeInformation
/// (PID_TYPE_INFORMATION in SEDP) and every TypeObject it names, minimal and complete, as
/// serialized XCDR2 little-endian bytes ready to put in a TypeLookup reply. Built once per
/// type (generated code and [`ShapeType`](super::ShapeType) keep it in a `OnceLock`).
#[derive(Clone, Debug, PartialEq)]
pub struct TypeRepresentation {
    /// The TypeInformation.
    pub information: TypeInformation,
    /// The serialized TypeInformation (a PID_TYPE_INFORMATION value).
    pub information_bytes: Vec<u8>,
    /// Each TypeObject by its (hash) identifier, the type's own first (minimal, then
    /// complete), then its dependencies.
    pub objects: Vec<(TypeIdentifier, Vec<u8>)>,
}

impl TypeRepresentation {
    /// Builds the representation of a type from its TypeObjects: `minimal` and `complete` are
    /// the type's own, `dependencies` every TypeObject they reach (minimal and complete, in
    /// first-reached order, each once). The TypeInformation lists the dependencies of each
    /// kind with their serialized sizes, as DDS-XTypes 1.3 §7.6.3.2.2 has it.
    pub fn new(minimal: &TypeObject, complete: &TypeObject, dependencies: &[TypeObject]) -> Self {
        let mut objects = Vec::new();
        let mut with_size = |o: &TypeObject| {
            let bytes = o.to_bytes();
            let id = TypeIdentifier::for_serialized(o.equivalence_kind(), &bytes);
            let size = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
            objects.push((id.clone(), bytes));
            TypeIdentifierWithSize {
                type_id: id,
                typeobject_serialized_size: size,
            }
        };
        let min = with_size(minimal);
        let com = with_size(complete);
        let (mut min_deps, mut com_deps) = (Vec::new(), Vec::new());
        for d in dependencies {
            let ws = with_size(d);
            match d.equivalence_kind() {
                EquivalenceKind::Minimal => min_deps.push(ws),
                EquivalenceKind::Complete => com_deps.push(ws),
            }
        }
        let deps = |typeid_with_size, dependent_typeids: Vec<TypeIdentifierWithSize>| {
            TypeIdentifierWithDependencies {
                typeid_with_size,
                dependent_typeid_count: i32::try_from(dependent_typeids.len()).unwrap_or(-1),
                dependent_typeids,
            }
        };
        let information = TypeInformation {
            minimal: deps(min, min_deps),
            complete: deps(com, com_deps),
        };
        let information_bytes = information.to_bytes();
        TypeRepresentation {
            information,
            information_bytes,
            objects,
        }
    }

    /// [`TypeRepresentation::new`] from serialized TypeObjects (XCDR2 little-endian), as
    /// generated code holds them.
    pub fn from_serialized(
        minimal: &[u8],
        complete: &[u8],
        dependencies: &[&[u8]],
    ) -> Result<Self, CdrError> {
        let decode = |b: &[u8]| TypeObject::from_bytes(b, Endianness::Little);
        let deps = dependencies
            .iter()
            .map(|b| decode(b))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self::new(&decode(minimal)?, &decode(complete)?, &deps))
    }

    /// The type's own TypeObjects and its dependencies, serialized, in the order
    /// [`TypeRepresentation::from_serialized`] takes them.
    pub fn serialized(&self) -> (&[u8], &[u8], Vec<&[u8]>) {
        let mut it = self.objects.iter().map(|(_, b)| b.as_slice());
        let minimal = it.next().unwrap_or(&[]);
        let complete = it.next().unwrap_or(&[]);
        (minimal, complete, it.collect())
    }

    /// The serialized TypeObject that `id` names, if this type has it.
    pub fn object(&self, id: &TypeIdentifier) -> Option<&[u8]> {
        self.objects
            .iter()
            .find(|(i, _)| i == id)
            .map(|(_, b)| b.as_slice())
    }
}

/// DDS-XTypes 1.3 §7.3.4.4: the equivalence hash of a serialized TypeObject, the first 14
/// bytes of the MD5 of its XCDR2 little-endian serialization.
pub fn equivalence_hash(serialized_type_object: &[u8]) -> EquivalenceHash {
    let digest = Md5::digest(serialized_type_object);
    let mut out = [0u8; 14];
    for (o, d) in out.iter_mut().zip(digest.iter()) {
        *o = *d;
    }
    out
}

/// A little-endian XCDR2 writer: every TypeObject, TypeIdentifier and TypeInformation is
/// serialized this way (§7.3.4.4 fixes the byte order for hashing).
pub(crate) fn xcdr2_writer(buf: &mut Vec<u8>) -> CdrWriter<'_> {
    let mut w = CdrWriter::new(buf, Endianness::Little);
    w.set_xcdr(XcdrVersion::Xcdr2);
    w
}

/// An XCDR2 reader over `bytes` in byte order `endian`.
pub(crate) fn xcdr2_reader(bytes: &[u8], endian: Endianness) -> CdrReader<'_> {
    let mut r = CdrReader::new(bytes, endian);
    r.set_xcdr(XcdrVersion::Xcdr2);
    r
}

/// Writes a DHEADER placeholder (XTypes 1.3 §7.4.3.5.2: appendable structs and sequences of
/// non-primitive elements) and returns where to patch it with [`end_dheader`].
pub(crate) fn begin_dheader(w: &mut CdrWriter<'_>) -> usize {
    w.align(4);
    let at = w.offset();
    w.u32(0);
    at
}

/// Patches the DHEADER written at `at` with the number of bytes written after it.
pub(crate) fn end_dheader(w: &mut CdrWriter<'_>, at: usize) {
    let len = w.offset().saturating_sub(at).saturating_sub(4);
    w.patch_u32(at, u32::try_from(len).unwrap_or(u32::MAX));
}

/// Reads a DHEADER and returns a reader over the body it announces. Bodies start 4-aligned
/// and nothing in these types aligns to more than 4 in XCDR2, so the sub-reader's new origin
/// keeps every alignment.
pub(crate) fn dheader<'a>(
    r: &mut CdrReader<'a>,
    what: &'static str,
) -> Result<CdrReader<'a>, CdrError> {
    r.align(4, what)?;
    let len = usize::try_from(r.u32(what)?).map_err(|_| CdrError::TooLarge(what))?;
    if len > MAX_TYPE_OBJECT_SIZE {
        return Err(CdrError::TooLarge(what));
    }
    r.sub(len, what)
}

/// Reads a sequence length for elements of at least `min_elem_size` bytes, refusing more than
/// `max` elements.
pub(crate) fn bounded_len(
    r: &mut CdrReader<'_>,
    min_elem_size: usize,
    max: usize,
    what: &'static str,
) -> Result<usize, CdrError> {
    let n = r.seq_len(min_elem_size, what)?;
    if n > max {
        return Err(CdrError::TooLarge(what));
    }
    Ok(n)
}

/// Reads a `string<256>` name (member or type name) as UTF-8.
pub(crate) fn read_name(r: &mut CdrReader<'_>, what: &'static str) -> Result<String, CdrError> {
    let bytes = r.string(MAX_NAME_LENGTH.saturating_add(1), what)?;
    let s = core::str::from_utf8(bytes).map_err(|_| CdrError::Invalid(what))?;
    Ok(s.to_owned())
}

/// Reads an XCDR2 boolean (0 or 1).
pub(crate) fn read_bool(r: &mut CdrReader<'_>, what: &'static str) -> Result<bool, CdrError> {
    match r.u8(what)? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(CdrError::Invalid(what)),
    }
}

#[cfg(test)]
mod tests;
