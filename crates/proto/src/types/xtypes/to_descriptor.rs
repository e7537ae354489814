//! A [`TypeDescriptor`] from a TypeObject and the TypeObjects it refers to (DDS-XTypes 1.3
//! §7.3.4: the type system that the TypeObject representation describes), so that the
//! dynamic decoder (`types::dynamic`) can decode samples of a type learned from a peer
//! through the TypeLookup service. Complete TypeObjects give member names; minimal ones give
//! none (members are then named `#<member id>`).
//!
//! Must not: follow references deeper than [`MAX_DEPTH`], panic on an inconsistent set of
//! TypeObjects (a missing or unsupported referenced type is an error), know about RTPS or
//! the TypeLookup service (the caller supplies the TypeObjects through a lookup function).

use super::type_identifier::{
    TK_BOOLEAN, TK_BYTE, TK_CHAR8, TK_FLOAT32, TK_FLOAT64, TK_INT8, TK_INT16, TK_INT32, TK_INT64,
    TK_UINT8, TK_UINT16, TK_UINT32, TK_UINT64,
};
use super::{
    IS_APPENDABLE, IS_DEFAULT, IS_KEY, IS_MUTABLE, IS_OPTIONAL, MAX_DEPTH, StructType,
    TypeIdentifier, TypeObject, TypeObjectBody, UnionType,
};
use crate::types::{
    EnumDescriptor, Extensibility, Member, TypeDescriptor, TypeKind, UnionCase, UnionDescriptor,
};

/// Why no descriptor could be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DescriptorError {
    /// A referenced TypeObject is not known.
    Missing(TypeIdentifier),
    /// A construct the descriptor model does not have (maps, wide strings and characters,
    /// `float128`, references nested deeper than [`MAX_DEPTH`]).
    Unsupported(&'static str),
    /// The top-level type is not a structure.
    NotAStruct,
}

impl core::fmt::Display for DescriptorError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DescriptorError::Missing(id) => write!(f, "type {id:?} is not known"),
            DescriptorError::Unsupported(what) => write!(f, "unsupported in a type: {what}"),
            DescriptorError::NotAStruct => write!(f, "the topic type is not a structure"),
        }
    }
}

impl std::error::Error for DescriptorError {}

/// The descriptor of the structure `id` names, every TypeObject it reaches found with
/// `lookup`.
pub fn type_descriptor<'a>(
    lookup: &dyn Fn(&TypeIdentifier) -> Option<&'a TypeObject>,
    id: &TypeIdentifier,
) -> Result<TypeDescriptor, DescriptorError> {
    match kind_of(lookup, id, 0)? {
        TypeKind::Struct(d) => Ok(*d),
        _ => Err(DescriptorError::NotAStruct),
    }
}

fn kind_of<'a>(
    lookup: &dyn Fn(&TypeIdentifier) -> Option<&'a TypeObject>,
    id: &TypeIdentifier,
    depth: usize,
) -> Result<TypeKind, DescriptorError> {
    if depth > MAX_DEPTH {
        return Err(DescriptorError::Unsupported(
            "nesting deeper than MAX_DEPTH",
        ));
    }
    let next = depth.saturating_add(1);
    let bound = |b: u32| (b != 0).then_some(b);
    Ok(match id {
        TypeIdentifier::Primitive(tk) => primitive(*tk)?,
        TypeIdentifier::StringSmall {
            wide: false,
            bound: b,
        } => TypeKind::String {
            bound: bound(u32::from(*b)),
        },
        TypeIdentifier::StringLarge {
            wide: false,
            bound: b,
        } => TypeKind::String { bound: bound(*b) },
        TypeIdentifier::StringSmall { .. } | TypeIdentifier::StringLarge { .. } => {
            return Err(DescriptorError::Unsupported("wide string"));
        }
        TypeIdentifier::SequenceSmall {
            bound: b, element, ..
        } => TypeKind::Sequence {
            elem: Box::new(kind_of(lookup, element, next)?),
            bound: bound(u32::from(*b)),
        },
        TypeIdentifier::SequenceLarge {
            bound: b, element, ..
        } => TypeKind::Sequence {
            elem: Box::new(kind_of(lookup, element, next)?),
            bound: bound(*b),
        },
        TypeIdentifier::ArraySmall {
            bounds, element, ..
        } => array(
            kind_of(lookup, element, next)?,
            bounds.iter().map(|b| u32::from(*b)),
        )?,
        TypeIdentifier::ArrayLarge {
            bounds, element, ..
        } => array(kind_of(lookup, element, next)?, bounds.iter().copied())?,
        TypeIdentifier::Map { .. } => return Err(DescriptorError::Unsupported("map")),
        TypeIdentifier::None => return Err(DescriptorError::Unsupported("TK_NONE member")),
        TypeIdentifier::Minimal(_) | TypeIdentifier::Complete(_) => {
            let object = lookup(id).ok_or_else(|| DescriptorError::Missing(id.clone()))?;
            object_kind(lookup, object, next)?
        }
    })
}

fn primitive(tk: u8) -> Result<TypeKind, DescriptorError> {
    Ok(match tk {
        TK_BOOLEAN => TypeKind::Bool,
        TK_BYTE => TypeKind::Octet,
        TK_INT8 => TypeKind::I8,
        TK_UINT8 => TypeKind::U8,
        TK_INT16 => TypeKind::I16,
        TK_UINT16 => TypeKind::U16,
        TK_INT32 => TypeKind::I32,
        TK_UINT32 => TypeKind::U32,
        TK_INT64 => TypeKind::I64,
        TK_UINT64 => TypeKind::U64,
        TK_FLOAT32 => TypeKind::F32,
        TK_FLOAT64 => TypeKind::F64,
        TK_CHAR8 => TypeKind::Char,
        _ => return Err(DescriptorError::Unsupported("primitive kind")),
    })
}

/// An array; an array of arrays is flattened into one with their dimensions.
fn array(elem: TypeKind, dims: impl Iterator<Item = u32>) -> Result<TypeKind, DescriptorError> {
    let mut dims: Vec<u32> = dims.collect();
    if dims.is_empty() {
        return Err(DescriptorError::Unsupported("array without dimensions"));
    }
    let elem = match elem {
        TypeKind::Array { elem, dims: inner } => {
            dims.extend(inner);
            *elem
        }
        other => other,
    };
    Ok(TypeKind::Array {
        elem: Box::new(elem),
        dims,
    })
}

fn extensibility(flags: u16) -> Extensibility {
    if flags & IS_MUTABLE != 0 {
        Extensibility::Mutable
    } else if flags & IS_APPENDABLE != 0 {
        Extensibility::Appendable
    } else {
        Extensibility::Final
    }
}

fn member_name(name: &str, id: u32) -> String {
    if name.is_empty() {
        format!("#{id}")
    } else {
        name.to_owned()
    }
}

fn object_kind<'a>(
    lookup: &dyn Fn(&TypeIdentifier) -> Option<&'a TypeObject>,
    object: &TypeObject,
    depth: usize,
) -> Result<TypeKind, DescriptorError> {
    Ok(match &object.body {
        TypeObjectBody::Struct(s) => TypeKind::Struct(Box::new(structure(lookup, s, depth)?)),
        TypeObjectBody::Union(u) => TypeKind::Union(Box::new(union(lookup, u, depth)?)),
        TypeObjectBody::Enum(e) => TypeKind::Enum(EnumDescriptor {
            name: e.type_name.clone(),
            labels: e
                .literals
                .iter()
                .map(|l| {
                    let name = if l.name.is_empty() {
                        format!("#{}", l.value)
                    } else {
                        l.name.clone()
                    };
                    (name, l.value)
                })
                .collect(),
        }),
        TypeObjectBody::Alias(a) => kind_of(lookup, &a.related, depth)?,
        TypeObjectBody::Sequence(c) => TypeKind::Sequence {
            elem: Box::new(kind_of(lookup, &c.element, depth)?),
            bound: c.bounds.first().copied().filter(|b| *b != 0),
        },
        TypeObjectBody::Array(c) => array(
            kind_of(lookup, &c.element, depth)?,
            c.bounds.iter().copied(),
        )?,
    })
}

fn structure<'a>(
    lookup: &dyn Fn(&TypeIdentifier) -> Option<&'a TypeObject>,
    s: &StructType,
    depth: usize,
) -> Result<TypeDescriptor, DescriptorError> {
    // §7.2.2.4.4.4.5: a derived struct's members follow its base's.
    let mut members = match &s.base {
        TypeIdentifier::None => Vec::new(),
        base => match kind_of(lookup, base, depth)? {
            TypeKind::Struct(d) => d.members,
            _ => return Err(DescriptorError::Unsupported("base type not a structure")),
        },
    };
    for m in &s.members {
        members.push(Member {
            name: member_name(&m.name, m.id),
            id: m.id,
            kind: kind_of(lookup, &m.type_id, depth)?,
            key: m.flags & IS_KEY != 0,
            optional: m.flags & IS_OPTIONAL != 0,
        });
    }
    Ok(TypeDescriptor {
        name: s.type_name.clone(),
        extensibility: extensibility(s.flags),
        members,
    })
}

fn union<'a>(
    lookup: &dyn Fn(&TypeIdentifier) -> Option<&'a TypeObject>,
    u: &UnionType,
    depth: usize,
) -> Result<UnionDescriptor, DescriptorError> {
    let mut cases = Vec::with_capacity(u.members.len());
    for m in &u.members {
        cases.push(UnionCase {
            labels: m.labels.iter().map(|l| i64::from(*l)).collect(),
            default: m.flags & IS_DEFAULT != 0,
            member: Member {
                name: member_name(&m.name, m.id),
                id: m.id,
                kind: kind_of(lookup, &m.type_id, depth)?,
                key: false,
                optional: false,
            },
        });
    }
    Ok(UnionDescriptor {
        name: u.type_name.clone(),
        extensibility: extensibility(u.flags),
        discriminator: kind_of(lookup, &u.discriminator, depth)?,
        cases,
    })
}

#[cfg(test)]
mod tests;
