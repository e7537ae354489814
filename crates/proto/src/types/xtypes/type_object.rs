//! `TypeObject` (DDS-XTypes 1.3 §7.3.4.5–§7.3.4.8, Annex B): the minimal and complete
//! descriptions of structs, unions, enums, aliases, sequences and arrays, and their XCDR2
//! serialization. One Rust value holds both representations' data: names and type names are
//! written only in the complete form, name hashes only in the minimal one, and the
//! [`TypeObject::kind`] decides which is written.
//!
//! The extensibility of each part follows the IDL Cyclone DDS serializes (the golden vectors
//! in tests/data/xtypes pin it): `TypeObject` is an appendable union, `Minimal/CompleteTypeObject`
//! final unions, the `*Type` structs final (`CompleteArrayType` appendable), headers, members,
//! bodies and elements appendable (a DHEADER each), the `Common*` parts final except
//! `CommonEnumeratedLiteral`, which is appendable.
//!
//! Must not: allocate from an unchecked count, recurse deeper than
//! [`MAX_DEPTH`](super::MAX_DEPTH), or panic on any input. Bitmask, bitset, map and
//! annotation TypeObjects are refused when decoded.

use md5::{Digest, Md5};

use super::type_identifier::{
    EK_COMPLETE, EK_MINIMAL, EquivalenceKind, TK_ALIAS, TK_ARRAY, TK_ENUM, TK_SEQUENCE,
    TK_STRUCTURE, TK_UNION, TypeIdentifier,
};
use super::{
    MAX_LABELS, MAX_MEMBERS, MAX_TYPE_OBJECT_SIZE, begin_dheader, bounded_len, dheader,
    end_dheader, read_bool, read_name, xcdr2_reader, xcdr2_writer,
};
use crate::cdr::{CdrError, CdrReader, CdrWriter, Endianness};

/// `NameHash`: the first 4 bytes of the MD5 of a member name (§7.3.4.3).
pub type NameHash = [u8; 4];

/// The `NameHash` of `name`.
pub fn name_hash(name: &str) -> NameHash {
    let d = Md5::digest(name.as_bytes());
    let mut out = [0u8; 4];
    for (o, b) in out.iter_mut().zip(d.iter()) {
        *o = *b;
    }
    out
}

/// A TypeObject of one equivalence kind.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeObject {
    /// Minimal or complete: which form [`TypeObject::emit`] writes.
    pub kind: EquivalenceKind,
    /// The type.
    pub body: TypeObjectBody,
}

/// The type a TypeObject describes.
#[derive(Clone, Debug, PartialEq)]
pub enum TypeObjectBody {
    /// `TK_ALIAS`.
    Alias(AliasType),
    /// `TK_STRUCTURE`.
    Struct(StructType),
    /// `TK_UNION`.
    Union(UnionType),
    /// `TK_ENUM`.
    Enum(EnumType),
    /// `TK_SEQUENCE`.
    Sequence(CollectionType),
    /// `TK_ARRAY`.
    Array(CollectionType),
}

/// `Minimal/CompleteStructType`.
#[derive(Clone, Debug, PartialEq)]
pub struct StructType {
    /// `StructTypeFlag`s (`IS_FINAL`, `IS_APPENDABLE`, `IS_MUTABLE`, ...).
    pub flags: u16,
    /// The base type, [`TypeIdentifier::None`] when there is none.
    pub base: TypeIdentifier,
    /// The fully qualified name (`a::b::C`), complete form only.
    pub type_name: String,
    /// The members, in declaration order.
    pub members: Vec<StructMember>,
}

/// `Minimal/CompleteStructMember`.
#[derive(Clone, Debug, PartialEq)]
pub struct StructMember {
    /// `MemberId`.
    pub id: u32,
    /// `StructMemberFlag`s (`TRY_CONSTRUCT1`, `IS_OPTIONAL`, `IS_KEY`, ...).
    pub flags: u16,
    /// The member's type.
    pub type_id: TypeIdentifier,
    /// Its name (complete form; empty when decoded from a minimal one).
    pub name: String,
    /// The `NameHash` of its name (minimal form).
    pub name_hash: NameHash,
}

/// `Minimal/CompleteUnionType`.
#[derive(Clone, Debug, PartialEq)]
pub struct UnionType {
    /// `UnionTypeFlag`s.
    pub flags: u16,
    /// The fully qualified name, complete form only.
    pub type_name: String,
    /// `UnionDiscriminatorFlag`s.
    pub discriminator_flags: u16,
    /// The discriminator's type.
    pub discriminator: TypeIdentifier,
    /// The cases.
    pub members: Vec<UnionMember>,
}

/// `Minimal/CompleteUnionMember`.
#[derive(Clone, Debug, PartialEq)]
pub struct UnionMember {
    /// `MemberId`.
    pub id: u32,
    /// `UnionMemberFlag`s (`IS_DEFAULT` for the default case).
    pub flags: u16,
    /// The member's type.
    pub type_id: TypeIdentifier,
    /// The case labels.
    pub labels: Vec<i32>,
    /// Its name (complete form).
    pub name: String,
    /// Its `NameHash` (minimal form).
    pub name_hash: NameHash,
}

/// `Minimal/CompleteEnumeratedType`.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumType {
    /// `EnumTypeFlag`s.
    pub flags: u16,
    /// `BitBound` (32 for IDL enums).
    pub bit_bound: u16,
    /// The fully qualified name, complete form only.
    pub type_name: String,
    /// The literals.
    pub literals: Vec<EnumLiteral>,
}

/// `Minimal/CompleteEnumeratedLiteral`.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumLiteral {
    /// Its value.
    pub value: i32,
    /// `EnumeratedLiteralFlag`s.
    pub flags: u16,
    /// Its name (complete form).
    pub name: String,
    /// Its `NameHash` (minimal form).
    pub name_hash: NameHash,
}

/// `Minimal/CompleteAliasType`.
#[derive(Clone, Debug, PartialEq)]
pub struct AliasType {
    /// `AliasTypeFlag`s (unused, 0).
    pub flags: u16,
    /// The fully qualified name, complete form only.
    pub type_name: String,
    /// `AliasMemberFlag`s (unused, 0).
    pub related_flags: u16,
    /// The aliased type.
    pub related: TypeIdentifier,
}

/// `Minimal/CompleteSequenceType` and `Minimal/CompleteArrayType` (for collections a plain
/// TypeIdentifier cannot describe).
#[derive(Clone, Debug, PartialEq)]
pub struct CollectionType {
    /// `CollectionTypeFlag`s (unused, 0).
    pub flags: u16,
    /// The bounds: one for a sequence (0 unbounded), the dimensions of an array.
    pub bounds: Vec<u32>,
    /// The name of a complete array's (or named sequence's) detail, complete form only.
    pub type_name: Option<String>,
    /// `CollectionElementFlag`s.
    pub element_flags: u16,
    /// The element type.
    pub element: TypeIdentifier,
}

impl TypeObject {
    /// The kind of TypeObject this is.
    pub fn equivalence_kind(&self) -> EquivalenceKind {
        self.kind
    }

    /// The XCDR2 little-endian serialization whose MD5 gives the type's hash (§7.3.4.4).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut buf = Vec::new();
        self.emit(&mut xcdr2_writer(&mut buf));
        buf
    }

    /// This TypeObject's identifier (the hash of [`TypeObject::to_bytes`]).
    pub fn identifier(&self) -> TypeIdentifier {
        TypeIdentifier::for_serialized(self.kind, &self.to_bytes())
    }

    /// Decodes a serialized TypeObject in byte order `endian`.
    pub fn from_bytes(bytes: &[u8], endian: Endianness) -> Result<Self, CdrError> {
        if bytes.len() > MAX_TYPE_OBJECT_SIZE {
            return Err(CdrError::TooLarge("TypeObject"));
        }
        Self::parse(&mut xcdr2_reader(bytes, endian))
    }

    /// Every hash identifier the TypeObject refers to, in order, each once.
    pub fn dependencies(&self) -> Vec<TypeIdentifier> {
        let mut out = Vec::new();
        match &self.body {
            TypeObjectBody::Alias(a) => a.related.hashes(&mut out),
            TypeObjectBody::Struct(s) => {
                s.base.hashes(&mut out);
                for m in &s.members {
                    m.type_id.hashes(&mut out);
                }
            }
            TypeObjectBody::Union(u) => {
                u.discriminator.hashes(&mut out);
                for m in &u.members {
                    m.type_id.hashes(&mut out);
                }
            }
            TypeObjectBody::Enum(_) => {}
            TypeObjectBody::Sequence(c) | TypeObjectBody::Array(c) => c.element.hashes(&mut out),
        }
        let mut seen = Vec::with_capacity(out.len());
        out.retain(|id| {
            let new = !seen.contains(id);
            if new {
                seen.push(id.clone());
            }
            new
        });
        out
    }

    /// Serializes the TypeObject: an appendable union (DHEADER, `EquivalenceKind` octet) of a
    /// final union (`TypeKind` octet) of the type.
    pub fn emit(&self, w: &mut CdrWriter<'_>) {
        let complete = self.kind == EquivalenceKind::Complete;
        let at = begin_dheader(w);
        w.u8(self.kind.octet());
        match &self.body {
            TypeObjectBody::Alias(a) => {
                w.u8(TK_ALIAS);
                w.align(2);
                w.u16(a.flags);
                let h = begin_dheader(w);
                if complete {
                    emit_type_detail(w, &a.type_name);
                }
                end_dheader(w, h);
                let b = begin_dheader(w);
                w.align(2);
                w.u16(a.related_flags);
                a.related.emit(w);
                if complete {
                    emit_absent_annotations(w);
                }
                end_dheader(w, b);
            }
            TypeObjectBody::Struct(s) => {
                w.u8(TK_STRUCTURE);
                w.align(2);
                w.u16(s.flags);
                let h = begin_dheader(w);
                s.base.emit(w);
                if complete {
                    emit_type_detail(w, &s.type_name);
                }
                end_dheader(w, h);
                let seq = begin_dheader(w);
                w.u32(len_u32(s.members.len()));
                for m in &s.members {
                    let at = begin_dheader(w);
                    w.u32(m.id);
                    w.u16(m.flags);
                    m.type_id.emit(w);
                    emit_member_detail(w, complete, &m.name, &m.name_hash);
                    end_dheader(w, at);
                }
                end_dheader(w, seq);
            }
            TypeObjectBody::Union(u) => {
                w.u8(TK_UNION);
                w.align(2);
                w.u16(u.flags);
                let h = begin_dheader(w);
                if complete {
                    emit_type_detail(w, &u.type_name);
                }
                end_dheader(w, h);
                let d = begin_dheader(w);
                w.u16(u.discriminator_flags);
                u.discriminator.emit(w);
                if complete {
                    emit_absent_annotations(w);
                }
                end_dheader(w, d);
                let seq = begin_dheader(w);
                w.u32(len_u32(u.members.len()));
                for m in &u.members {
                    let at = begin_dheader(w);
                    w.u32(m.id);
                    w.u16(m.flags);
                    m.type_id.emit(w);
                    w.align(4);
                    w.u32(len_u32(m.labels.len()));
                    for l in &m.labels {
                        w.i32(*l);
                    }
                    emit_member_detail(w, complete, &m.name, &m.name_hash);
                    end_dheader(w, at);
                }
                end_dheader(w, seq);
            }
            TypeObjectBody::Enum(e) => {
                w.u8(TK_ENUM);
                w.align(2);
                w.u16(e.flags);
                let h = begin_dheader(w);
                w.u16(e.bit_bound);
                if complete {
                    emit_type_detail(w, &e.type_name);
                }
                end_dheader(w, h);
                let seq = begin_dheader(w);
                w.u32(len_u32(e.literals.len()));
                for l in &e.literals {
                    let at = begin_dheader(w);
                    let common = begin_dheader(w);
                    w.i32(l.value);
                    w.u16(l.flags);
                    end_dheader(w, common);
                    emit_member_detail(w, complete, &l.name, &l.name_hash);
                    end_dheader(w, at);
                }
                end_dheader(w, seq);
            }
            TypeObjectBody::Sequence(c) => {
                w.u8(TK_SEQUENCE);
                w.align(2);
                w.u16(c.flags);
                let h = begin_dheader(w);
                w.u32(c.bounds.first().copied().unwrap_or(0));
                if complete {
                    match &c.type_name {
                        Some(name) => {
                            w.u8(1);
                            emit_type_detail(w, name);
                        }
                        None => w.u8(0),
                    }
                }
                end_dheader(w, h);
                emit_element(w, complete, c);
            }
            TypeObjectBody::Array(c) => {
                w.u8(TK_ARRAY);
                // CompleteArrayType is appendable in the IDL Cyclone DDS serializes.
                let outer = complete.then(|| begin_dheader(w));
                w.align(2);
                w.u16(c.flags);
                let h = begin_dheader(w);
                w.u32(len_u32(c.bounds.len()));
                for b in &c.bounds {
                    w.u32(*b);
                }
                if complete {
                    emit_type_detail(w, c.type_name.as_deref().unwrap_or(""));
                }
                end_dheader(w, h);
                emit_element(w, complete, c);
                if let Some(outer) = outer {
                    end_dheader(w, outer);
                }
            }
        }
        end_dheader(w, at);
    }

    /// Decodes a TypeObject.
    pub fn parse(r: &mut CdrReader<'_>) -> Result<Self, CdrError> {
        const WHAT: &str = "TypeObject";
        let mut r = dheader(r, WHAT)?;
        let r = &mut r;
        let kind = match r.u8(WHAT)? {
            EK_MINIMAL => EquivalenceKind::Minimal,
            EK_COMPLETE => EquivalenceKind::Complete,
            _ => return Err(CdrError::Invalid("TypeObject equivalence kind")),
        };
        let complete = kind == EquivalenceKind::Complete;
        let body = match r.u8(WHAT)? {
            TK_ALIAS => {
                r.align(2, WHAT)?;
                let flags = r.u16(WHAT)?;
                let mut h = dheader(r, "alias header")?;
                let type_name = if complete {
                    parse_type_detail(&mut h)?
                } else {
                    String::new()
                };
                let mut b = dheader(r, "alias body")?;
                b.align(2, WHAT)?;
                let related_flags = b.u16(WHAT)?;
                let related = TypeIdentifier::parse(&mut b, 0)?;
                TypeObjectBody::Alias(AliasType {
                    flags,
                    type_name,
                    related_flags,
                    related,
                })
            }
            TK_STRUCTURE => {
                r.align(2, WHAT)?;
                let flags = r.u16(WHAT)?;
                let mut h = dheader(r, "struct header")?;
                let base = TypeIdentifier::parse(&mut h, 0)?;
                let type_name = if complete {
                    parse_type_detail(&mut h)?
                } else {
                    String::new()
                };
                let mut seq = dheader(r, "struct members")?;
                let n = bounded_len(&mut seq, 4, MAX_MEMBERS, "struct members")?;
                let mut members = Vec::with_capacity(n);
                for _ in 0..n {
                    let mut m = dheader(&mut seq, "struct member")?;
                    let id = m.u32("member id")?;
                    let flags = m.u16("member flags")?;
                    let type_id = TypeIdentifier::parse(&mut m, 0)?;
                    let (name, name_hash) = parse_member_detail(&mut m, complete)?;
                    members.push(StructMember {
                        id,
                        flags,
                        type_id,
                        name,
                        name_hash,
                    });
                }
                TypeObjectBody::Struct(StructType {
                    flags,
                    base,
                    type_name,
                    members,
                })
            }
            TK_UNION => {
                r.align(2, WHAT)?;
                let flags = r.u16(WHAT)?;
                let mut h = dheader(r, "union header")?;
                let type_name = if complete {
                    parse_type_detail(&mut h)?
                } else {
                    String::new()
                };
                let mut d = dheader(r, "union discriminator")?;
                let discriminator_flags = d.u16("discriminator flags")?;
                let discriminator = TypeIdentifier::parse(&mut d, 0)?;
                let mut seq = dheader(r, "union members")?;
                let n = bounded_len(&mut seq, 4, MAX_MEMBERS, "union members")?;
                let mut members = Vec::with_capacity(n);
                for _ in 0..n {
                    let mut m = dheader(&mut seq, "union member")?;
                    let id = m.u32("member id")?;
                    let flags = m.u16("member flags")?;
                    let type_id = TypeIdentifier::parse(&mut m, 0)?;
                    let nl = bounded_len(&mut m, 4, MAX_LABELS, "union labels")?;
                    let mut labels = Vec::with_capacity(nl);
                    for _ in 0..nl {
                        labels.push(m.i32("union label")?);
                    }
                    let (name, name_hash) = parse_member_detail(&mut m, complete)?;
                    members.push(UnionMember {
                        id,
                        flags,
                        type_id,
                        labels,
                        name,
                        name_hash,
                    });
                }
                TypeObjectBody::Union(UnionType {
                    flags,
                    type_name,
                    discriminator_flags,
                    discriminator,
                    members,
                })
            }
            TK_ENUM => {
                r.align(2, WHAT)?;
                let flags = r.u16(WHAT)?;
                let mut h = dheader(r, "enum header")?;
                let bit_bound = h.u16("bit bound")?;
                let type_name = if complete {
                    parse_type_detail(&mut h)?
                } else {
                    String::new()
                };
                let mut seq = dheader(r, "enum literals")?;
                let n = bounded_len(&mut seq, 4, MAX_MEMBERS, "enum literals")?;
                let mut literals = Vec::with_capacity(n);
                for _ in 0..n {
                    let mut l = dheader(&mut seq, "enum literal")?;
                    let mut common = dheader(&mut l, "enum literal")?;
                    let value = common.i32("enum value")?;
                    let flags = common.u16("enum literal flags")?;
                    let (name, name_hash) = parse_member_detail(&mut l, complete)?;
                    literals.push(EnumLiteral {
                        value,
                        flags,
                        name,
                        name_hash,
                    });
                }
                TypeObjectBody::Enum(EnumType {
                    flags,
                    bit_bound,
                    type_name,
                    literals,
                })
            }
            TK_SEQUENCE => {
                r.align(2, WHAT)?;
                let flags = r.u16(WHAT)?;
                let mut h = dheader(r, "sequence header")?;
                let bound = h.u32("sequence bound")?;
                let type_name = if complete && read_bool(&mut h, "sequence detail")? {
                    Some(parse_type_detail(&mut h)?)
                } else {
                    None
                };
                let (element_flags, element) = parse_element(r)?;
                TypeObjectBody::Sequence(CollectionType {
                    flags,
                    bounds: vec![bound],
                    type_name,
                    element_flags,
                    element,
                })
            }
            TK_ARRAY => {
                let mut outer = if complete {
                    dheader(r, "array type")?
                } else {
                    r.clone()
                };
                let o = &mut outer;
                o.align(2, WHAT)?;
                let flags = o.u16(WHAT)?;
                let mut h = dheader(o, "array header")?;
                let n = bounded_len(&mut h, 4, super::MAX_ARRAY_DIMENSIONS, "array bounds")?;
                let mut bounds = Vec::with_capacity(n);
                for _ in 0..n {
                    bounds.push(h.u32("array bound")?);
                }
                let type_name = if complete {
                    Some(parse_type_detail(&mut h)?)
                } else {
                    None
                };
                let (element_flags, element) = parse_element(o)?;
                TypeObjectBody::Array(CollectionType {
                    flags,
                    bounds,
                    type_name,
                    element_flags,
                    element,
                })
            }
            _ => return Err(CdrError::Invalid("unsupported TypeObject kind")),
        };
        Ok(TypeObject { kind, body })
    }
}

fn len_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// `CompleteTypeDetail` (final): `@optional ann_builtin`, `@optional ann_custom` (both
/// absent: one `false` octet each), `type_name`.
fn emit_type_detail(w: &mut CdrWriter<'_>, type_name: &str) {
    emit_absent_annotations(w);
    w.string(type_name.as_bytes());
}

/// Two absent `@optional` annotation members of a final struct (XCDR2: a boolean each).
fn emit_absent_annotations(w: &mut CdrWriter<'_>) {
    w.u8(0);
    w.u8(0);
}

/// `MinimalMemberDetail` (`name_hash`) or `CompleteMemberDetail` (`name`, two absent
/// optionals).
fn emit_member_detail(w: &mut CdrWriter<'_>, complete: bool, name: &str, hash: &NameHash) {
    if complete {
        w.string(name.as_bytes());
        emit_absent_annotations(w);
    } else {
        w.bytes(hash);
    }
}

/// `Minimal/CompleteCollectionElement` (appendable): `CommonCollectionElement` (flags, type),
/// and for the complete form a `CompleteElementDetail` with both optionals absent.
fn emit_element(w: &mut CdrWriter<'_>, complete: bool, c: &CollectionType) {
    let at = begin_dheader(w);
    w.u16(c.element_flags);
    c.element.emit(w);
    if complete {
        emit_absent_annotations(w);
    }
    end_dheader(w, at);
}

fn parse_element(r: &mut CdrReader<'_>) -> Result<(u16, TypeIdentifier), CdrError> {
    let mut e = dheader(r, "collection element")?;
    let flags = e.u16("element flags")?;
    Ok((flags, TypeIdentifier::parse(&mut e, 0)?))
}

/// Skips an `@optional` annotation member: appendable structs and sequences of appendable
/// structs, each behind a DHEADER.
fn skip_optional(r: &mut CdrReader<'_>, what: &'static str) -> Result<(), CdrError> {
    if read_bool(r, what)? {
        dheader(r, what)?;
    }
    Ok(())
}

fn parse_type_detail(r: &mut CdrReader<'_>) -> Result<String, CdrError> {
    skip_optional(r, "type annotations")?;
    skip_optional(r, "type annotations")?;
    read_name(r, "type name")
}

fn parse_member_detail(
    r: &mut CdrReader<'_>,
    complete: bool,
) -> Result<(String, NameHash), CdrError> {
    if complete {
        let name = read_name(r, "member name")?;
        skip_optional(r, "member annotations")?;
        skip_optional(r, "member annotations")?;
        let hash = name_hash(&name);
        Ok((name, hash))
    } else {
        Ok((String::new(), r.take_array("member name hash")?))
    }
}
