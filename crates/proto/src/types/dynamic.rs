//! Decoding a serialized sample whose type is known only at run time, from its
//! [`TypeDescriptor`], into a [`DynamicValue`] tree that a tool can print (what `siftdds spy`
//! shows for a type given with `--idl`, and for the built-in ShapeType), and the key hash of
//! such a value ([`key_hash`], for writers that send no PID_KEY_HASH).
//!
//! Must not: panic, recurse deeper than the descriptor, or allocate more than
//! [`MAX_DYNAMIC_VALUES`] values on any payload (the bytes are untrusted; the descriptor is
//! trusted local data). No I/O.
//!
//! # Overview
//! Encodings (RTPS 2.5 §10.2, DDS-XTypes 1.3 §7.4.3): CDR_BE/LE (XCDR1 final and appendable),
//! CDR2_BE/LE (XCDR2 plain), D_CDR2_BE/LE (XCDR2, DHEADER before the top-level struct; nested
//! appendable structs and collections of non-primitive elements carry a DHEADER,
//! §7.4.3.5), PL_CDR and PL_CDR2 (mutable structs: XCDR1 parameter headers, XCDR2 DHEADER
//! and EMHEADERs, §7.4.3.5.4 and §7.4.1.2; members found by id in any order, absent ones
//! `None`). A union decodes as a struct of its one selected case (`{case: value}`; empty
//! when no case is selected), after its DHEADER when appendable in XCDR2 (§7.4.3.5.3).
//! XCDR1 optional members of non-mutable structs and mutable unions are reported as
//! [`DynamicError::Unsupported`]. An appendable struct
//! whose data ends at a member boundary (an older peer's type, like the vendors' 4-member
//! ShapeType) has its remaining members absent (`None`).

use core::fmt;

use super::codec::read_mutable;
use super::{Extensibility, TypeDescriptor, TypeKind, UnionDescriptor};
use crate::cdr::{CdrError, CdrReader, EncapsulationHeader, EncapsulationKind, Endianness};
use crate::cdr::{MAX_STRING, XcdrVersion};

/// Most values (members and elements, at every level) decoded from one sample.
pub const MAX_DYNAMIC_VALUES: usize = 100_000;

/// A decoded value.
#[derive(Clone, Debug, PartialEq)]
pub enum DynamicValue {
    /// `boolean`.
    Bool(bool),
    /// `char` (Latin-1).
    Char(char),
    /// A signed integer (`int8` to `int64`).
    Int(i64),
    /// An unsigned integer (`octet`, `uint8` to `uint64`).
    UInt(u64),
    /// `float` or `double`.
    Float(f64),
    /// A string.
    Str(String),
    /// An enum value and its label (`None` when no enumerator has that value).
    Enum {
        /// The enumerator's label.
        label: Option<String>,
        /// The encoded value.
        value: i32,
    },
    /// A struct: its members in declaration order; `None` for an absent optional member or
    /// one past the end of an appendable struct's data.
    Struct(Vec<(String, Option<DynamicValue>)>),
    /// A sequence or (flattened, row-major) array.
    Seq(Vec<DynamicValue>),
}

/// Why a sample could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DynamicError {
    /// The bytes do not follow the type (truncated, bad length, invalid value).
    Malformed(CdrError),
    /// An encoding or type construct this decoder does not handle.
    Unsupported(&'static str),
}

impl fmt::Display for DynamicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DynamicError::Malformed(e) => write!(f, "malformed sample: {e}"),
            DynamicError::Unsupported(what) => write!(f, "cannot decode: {what}"),
        }
    }
}

impl std::error::Error for DynamicError {}

impl From<CdrError> for DynamicError {
    fn from(e: CdrError) -> Self {
        DynamicError::Malformed(e)
    }
}

/// Decodes a serialized sample (encapsulation header included) of type `desc`.
pub fn decode(payload: &[u8], desc: &TypeDescriptor) -> Result<DynamicValue, DynamicError> {
    let (header, mut r) = EncapsulationHeader::body(payload)?;
    let dheader = match header.kind {
        EncapsulationKind::Cdr | EncapsulationKind::Cdr2 => false,
        EncapsulationKind::DCdr2 => true,
        EncapsulationKind::PlCdr | EncapsulationKind::PlCdr2 => {
            if desc.extensibility != Extensibility::Mutable {
                return Err(DynamicError::Unsupported(
                    "parameter-list encapsulation of a non-mutable type",
                ));
            }
            false
        }
        EncapsulationKind::Xml => return Err(DynamicError::Unsupported("XML encapsulation")),
    };
    let mut d = Decoder { budget: 0 };
    if desc.extensibility == Extensibility::Mutable {
        return d.mutable_members(&mut r, desc);
    }
    if dheader {
        let mut sub = delimited(&mut r)?;
        d.members(&mut sub, desc, true)
    } else {
        d.members(
            &mut r,
            desc,
            desc.extensibility == Extensibility::Appendable,
        )
    }
}

/// Reads a DHEADER (XTypes §7.4.3.5.2) and returns a reader over the delimited bytes.
fn delimited<'a>(r: &mut CdrReader<'a>) -> Result<CdrReader<'a>, DynamicError> {
    r.align(4, "DHEADER")?;
    let len = usize::try_from(r.u32("DHEADER")?).map_err(|_| CdrError::TooLarge("DHEADER"))?;
    Ok(r.sub(len, "delimited body")?)
}

struct Decoder {
    /// Values decoded so far (bounded by [`MAX_DYNAMIC_VALUES`]).
    budget: usize,
}

impl Decoder {
    fn count(&mut self) -> Result<(), DynamicError> {
        self.budget = self.budget.saturating_add(1);
        if self.budget > MAX_DYNAMIC_VALUES {
            return Err(DynamicError::Unsupported(
                "more values than MAX_DYNAMIC_VALUES",
            ));
        }
        Ok(())
    }

    /// A struct body; `truncatable`: data ending at a member boundary leaves the remaining
    /// members absent (appendable types).
    // Recursion (with `value`) is bounded by the descriptor's depth.
    fn members(
        &mut self,
        r: &mut CdrReader<'_>,
        desc: &TypeDescriptor,
        truncatable: bool,
    ) -> Result<DynamicValue, DynamicError> {
        let mut out = Vec::new();
        for member in &desc.members {
            self.count()?;
            if truncatable && r.is_empty() {
                out.push((member.name.clone(), None));
                continue;
            }
            let present = if member.optional {
                if r.xcdr() != XcdrVersion::Xcdr2 {
                    return Err(DynamicError::Unsupported("optional member in XCDR1"));
                }
                // XTypes §7.4.3.5.3: an is_present octet.
                match r.u8("optional flag")? {
                    0 => false,
                    1 => true,
                    _ => return Err(CdrError::Invalid("optional flag").into()),
                }
            } else {
                true
            };
            let v = if present {
                Some(self.value(r, &member.kind)?)
            } else {
                None
            };
            out.push((member.name.clone(), v));
        }
        Ok(DynamicValue::Struct(out))
    }

    fn value(
        &mut self,
        r: &mut CdrReader<'_>,
        kind: &TypeKind,
    ) -> Result<DynamicValue, DynamicError> {
        if let Some(size) = kind.primitive_size() {
            r.align_prim(size, "member")?;
        }
        Ok(match kind {
            TypeKind::Bool => match r.u8("boolean")? {
                0 => DynamicValue::Bool(false),
                1 => DynamicValue::Bool(true),
                _ => return Err(CdrError::Invalid("boolean").into()),
            },
            TypeKind::Char => DynamicValue::Char(char::from(r.u8("char")?)),
            TypeKind::Octet | TypeKind::U8 => DynamicValue::UInt(u64::from(r.u8("octet")?)),
            TypeKind::I8 => DynamicValue::Int(i64::from(i8::from_ne_bytes([r.u8("int8")?]))),
            TypeKind::I16 => DynamicValue::Int(i64::from(r.i16("int16")?)),
            TypeKind::U16 => DynamicValue::UInt(u64::from(r.u16("uint16")?)),
            TypeKind::I32 => DynamicValue::Int(i64::from(r.i32("int32")?)),
            TypeKind::U32 => DynamicValue::UInt(u64::from(r.u32("uint32")?)),
            TypeKind::I64 => DynamicValue::Int(r.i64("int64")?),
            TypeKind::U64 => DynamicValue::UInt(r.u64("uint64")?),
            TypeKind::F32 => DynamicValue::Float(f64::from(f32::from_bits(r.u32("float")?))),
            TypeKind::F64 => DynamicValue::Float(f64::from_bits(r.u64("double")?)),
            TypeKind::String { bound } => {
                let max = bound
                    .and_then(|b| usize::try_from(b).ok())
                    .map_or(MAX_STRING, |b| b.saturating_add(1));
                let bytes = r.string(max, "string")?;
                DynamicValue::Str(String::from_utf8_lossy(bytes).into_owned())
            }
            TypeKind::Enum(e) => {
                r.align(4, "enum")?;
                let value = r.i32("enum")?;
                DynamicValue::Enum {
                    label: e.label_of(value).map(str::to_string),
                    value,
                }
            }
            TypeKind::Struct(d) => match d.extensibility {
                Extensibility::Mutable => self.mutable_members(r, d)?,
                Extensibility::Appendable if r.xcdr() == XcdrVersion::Xcdr2 => {
                    let mut sub = delimited(r)?;
                    self.members(&mut sub, d, true)?
                }
                _ => self.members(r, d, false)?,
            },
            TypeKind::Sequence { elem, bound } => {
                let mut delimited_body;
                let r = if r.xcdr() == XcdrVersion::Xcdr2 && elem.primitive_size().is_none() {
                    delimited_body = delimited(r)?;
                    &mut delimited_body
                } else {
                    r
                };
                let n = r.seq_len(elem.primitive_size().unwrap_or(1), "sequence length")?;
                if bound.is_some_and(|b| u64::try_from(n).unwrap_or(u64::MAX) > u64::from(b)) {
                    return Err(CdrError::TooLarge("sequence over its bound").into());
                }
                self.elems(r, elem, n)?
            }
            TypeKind::Array { elem, dims } => {
                let n = dims
                    .iter()
                    .try_fold(1usize, |acc, d| acc.checked_mul(usize::try_from(*d).ok()?))
                    .ok_or(DynamicError::Unsupported("array too large"))?;
                if r.xcdr() == XcdrVersion::Xcdr2 && elem.primitive_size().is_none() {
                    let mut sub = delimited(r)?;
                    self.elems(&mut sub, elem, n)?
                } else {
                    self.elems(r, elem, n)?
                }
            }
            TypeKind::Union(u) => match u.extensibility {
                Extensibility::Mutable => return Err(DynamicError::Unsupported("mutable union")),
                Extensibility::Appendable if r.xcdr() == XcdrVersion::Xcdr2 => {
                    let mut sub = delimited(r)?;
                    self.union_body(&mut sub, u)?
                }
                _ => self.union_body(r, u)?,
            },
        })
    }

    /// A mutable struct's members (DDS-XTypes 1.3 §7.4.3.5.4 XCDR2 EMHEADERs, §7.4.1.2.1
    /// XCDR1 parameter headers), by member id in any order; members not sent are `None`.
    fn mutable_members(
        &mut self,
        r: &mut CdrReader<'_>,
        desc: &TypeDescriptor,
    ) -> Result<DynamicValue, DynamicError> {
        let mut values: Vec<Option<DynamicValue>> = desc.members.iter().map(|_| None).collect();
        let mut failure = None;
        let read = read_mutable(r, |id, v| {
            let Some(i) = desc.members.iter().position(|m| m.id == id) else {
                return Ok(false);
            };
            let (Some(member), Some(slot)) = (desc.members.get(i), values.get_mut(i)) else {
                return Ok(false);
            };
            match self.count().and_then(|()| self.value(v, &member.kind)) {
                Ok(x) => {
                    *slot = Some(x);
                    Ok(true)
                }
                Err(e) => {
                    failure = Some(e);
                    Err(CdrError::Invalid("mutable member"))
                }
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        read?;
        Ok(DynamicValue::Struct(
            desc.members
                .iter()
                .zip(values)
                .map(|(m, v)| (m.name.clone(), v))
                .collect(),
        ))
    }

    /// A union's discriminator and selected case (DDS-XTypes 1.3 §7.4.3.5.3): the case
    /// whose labels hold the discriminator's value, else the default case, else none.
    fn union_body(
        &mut self,
        r: &mut CdrReader<'_>,
        u: &UnionDescriptor,
    ) -> Result<DynamicValue, DynamicError> {
        self.count()?;
        let d = match self.value(r, &u.discriminator)? {
            DynamicValue::Int(i) => i,
            DynamicValue::UInt(v) => {
                i64::try_from(v).map_err(|_| CdrError::Invalid("union discriminator"))?
            }
            DynamicValue::Bool(b) => i64::from(b),
            DynamicValue::Char(c) => i64::from(u32::from(c)),
            DynamicValue::Enum { value, .. } => i64::from(value),
            _ => return Err(DynamicError::Unsupported("union discriminator type")),
        };
        let case = u
            .cases
            .iter()
            .find(|c| c.labels.contains(&d))
            .or_else(|| u.cases.iter().find(|c| c.default));
        Ok(DynamicValue::Struct(match case {
            Some(c) => vec![(c.member.name.clone(), Some(self.value(r, &c.member.kind)?))],
            None => Vec::new(),
        }))
    }

    fn elems(
        &mut self,
        r: &mut CdrReader<'_>,
        elem: &TypeKind,
        n: usize,
    ) -> Result<DynamicValue, DynamicError> {
        let mut out = Vec::new();
        for _ in 0..n {
            // Counted first: a huge array of a type that fails to read stops at the budget.
            self.count()?;
            out.push(self.value(r, elem)?);
        }
        Ok(DynamicValue::Seq(out))
    }
}

impl DynamicValue {
    /// The value at a dotted member path (`a.b`), if this is a struct that has it.
    pub fn field(&self, path: &str) -> Option<&DynamicValue> {
        let mut v = self;
        for name in path.split('.') {
            let DynamicValue::Struct(members) = v else {
                return None;
            };
            v = members.iter().find(|(n, _)| n == name)?.1.as_ref()?;
        }
        Some(v)
    }
}

/// The key hash (PID_KEY_HASH) of a decoded sample of `desc`, for writers that send none
/// (Cyclone): its key holder — the key members (every member when none is a key) in member-id
/// order, PLAIN_CDR2 big-endian — or the MD5 of it when its largest size exceeds 16 bytes.
/// RTPS 2.5 §9.6.4.8. `None` for keys this does not cover (nested structs, collections,
/// optional keys) or a value that is not a decoded `desc`.
pub fn key_hash(value: &DynamicValue, desc: &TypeDescriptor) -> Option<[u8; 16]> {
    let DynamicValue::Struct(values) = value else {
        return None;
    };
    let any_key = desc.members.iter().any(|m| m.key);
    let mut keys: Vec<_> = desc.members.iter().filter(|m| m.key || !any_key).collect();
    keys.sort_by_key(|m| m.id);
    let mut holder = Vec::new();
    let mut w = crate::cdr::CdrWriter::new(&mut holder, Endianness::Big);
    w.set_xcdr(XcdrVersion::Xcdr2);
    // The holder's largest size (`None`: unbounded), as the IDL generator's MAX_KEY_SIZE.
    let mut max = Some(0usize);
    let grow = |max: Option<usize>, align: usize, size: Option<usize>| {
        let a = align.min(4);
        let at = max?
            .checked_add(a.checked_sub(1)?)?
            .checked_div(a)?
            .checked_mul(a)?;
        at.checked_add(size?)
    };
    for m in keys {
        if m.optional {
            return None;
        }
        let v = values.iter().find(|(n, _)| *n == m.name)?.1.as_ref()?;
        match (&m.kind, v) {
            (TypeKind::String { bound }, DynamicValue::Str(text)) => {
                w.align(4);
                w.string(text.as_bytes());
                let most = bound.and_then(|b| usize::try_from(b).ok()?.checked_add(5));
                max = grow(max, 4, most);
            }
            (TypeKind::Enum(_), DynamicValue::Enum { value, .. }) => {
                w.align(4);
                w.i32(*value);
                max = grow(max, 4, Some(4));
            }
            (kind, v) => {
                let size = kind.primitive_size()?;
                w.align_prim(size);
                match (size, v) {
                    (1, DynamicValue::Bool(b)) => w.u8(u8::from(*b)),
                    (1, DynamicValue::Char(c)) => w.u8(u8::try_from(u32::from(*c)).ok()?),
                    (1, DynamicValue::Int(i)) => w.bytes(&i8::try_from(*i).ok()?.to_be_bytes()),
                    (1, DynamicValue::UInt(u)) => w.u8(u8::try_from(*u).ok()?),
                    (2, DynamicValue::Int(i)) => w.i16(i16::try_from(*i).ok()?),
                    (2, DynamicValue::UInt(u)) => w.u16(u16::try_from(*u).ok()?),
                    (4, DynamicValue::Int(i)) => w.i32(i32::try_from(*i).ok()?),
                    (4, DynamicValue::UInt(u)) => w.u32(u32::try_from(*u).ok()?),
                    (4, DynamicValue::Float(x)) => w.bytes(&(*x as f32).to_be_bytes()),
                    (8, DynamicValue::Int(i)) => w.i64(*i),
                    (8, DynamicValue::UInt(u)) => w.u64(*u),
                    (8, DynamicValue::Float(x)) => w.bytes(&x.to_be_bytes()),
                    _ => return None,
                }
                max = grow(max, size, Some(size));
            }
        }
    }
    Some(super::key_hash_from_key_bytes(
        &holder,
        max.unwrap_or(usize::MAX),
    ))
}

/// Elements of a sequence or array the one-line form shows before eliding the rest.
pub const SHOWN_ELEMENTS: usize = 8;

impl fmt::Display for DynamicValue {
    /// A compact, one-line form: `{color: "RED", x: 10, y: 20}`; absent members are left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DynamicValue::Bool(b) => write!(f, "{b}"),
            DynamicValue::Char(c) => write!(f, "{c:?}"),
            DynamicValue::Int(i) => write!(f, "{i}"),
            DynamicValue::UInt(u) => write!(f, "{u}"),
            DynamicValue::Float(x) => write!(f, "{x}"),
            DynamicValue::Str(s) => write!(f, "{s:?}"),
            DynamicValue::Enum { label: Some(l), .. } => write!(f, "{l}"),
            DynamicValue::Enum { label: None, value } => write!(f, "{value}"),
            DynamicValue::Struct(members) => {
                write!(f, "{{")?;
                let mut first = true;
                for (name, v) in members {
                    let Some(v) = v else { continue };
                    if !first {
                        write!(f, ", ")?;
                    }
                    first = false;
                    write!(f, "{name}: {v}")?;
                }
                write!(f, "}}")
            }
            DynamicValue::Seq(items) => {
                write!(f, "[")?;
                for (i, v) in items.iter().take(SHOWN_ELEMENTS).enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                if items.len() > SHOWN_ELEMENTS {
                    write!(f, ", … {} in all", items.len())?;
                }
                write!(f, "]")
            }
        }
    }
}

#[cfg(test)]
mod tests;
