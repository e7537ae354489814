//! Resolved structs → [`TypeDescriptor`]s (DDS-XTypes 1.3 §7.2: members in serialization
//! order, inherited members first, with their ids, keys and optionals).
//!
//! Must not: describe what the descriptor model cannot (`wchar`, `wstring`, `long double`,
//! recursive types) — those are errors naming the member — or recurse deeper than
//! [`MAX_NESTING`].

use super::model::{Decl, Model, Ty};
use super::resolve::all_members_of;
use super::{IdlError, Loc, MAX_NESTING};
use crate::idl::ast::Primitive;
use crate::types::{EnumDescriptor, Member, TypeDescriptor, TypeKind, UnionCase, UnionDescriptor};

/// The descriptor of struct `name`.
pub(super) fn struct_descriptor(model: &Model, name: &str) -> Result<TypeDescriptor, IdlError> {
    let mut stack = Vec::new();
    describe_struct(model, name, &mut stack)
}

fn describe_struct(
    model: &Model,
    name: &str,
    stack: &mut Vec<String>,
) -> Result<TypeDescriptor, IdlError> {
    let Some(s) = model.struct_type(name) else {
        return Err(IdlError {
            file: String::new(),
            line: 0,
            col: 0,
            message: format!("no struct named '{name}'"),
        });
    };
    if stack.len() >= MAX_NESTING {
        return Err(IdlError::at(
            &s.loc,
            format!("'{name}' nests deeper than {MAX_NESTING} levels"),
        ));
    }
    stack.push(name.to_owned());
    let mut members = Vec::new();
    for m in all_members_of(model, name) {
        let kind = kind(model, &m.ty, stack, &m.loc, &m.name)?;
        members.push(Member {
            name: m.name.clone(),
            id: m.id,
            kind,
            key: m.key,
            optional: m.optional,
        });
    }
    stack.pop();
    Ok(TypeDescriptor {
        name: name.to_owned(),
        extensibility: s.extensibility,
        members,
    })
}

fn kind(
    model: &Model,
    ty: &Ty,
    stack: &mut Vec<String>,
    loc: &Loc,
    member: &str,
) -> Result<TypeKind, IdlError> {
    let unsupported = |what: &str| {
        let msg = format!("member '{member}': {what} has no type descriptor kind yet");
        Err(IdlError::at(loc, msg))
    };
    Ok(match ty {
        Ty::Prim(p) => match p {
            Primitive::Bool => TypeKind::Bool,
            Primitive::Char => TypeKind::Char,
            Primitive::Octet => TypeKind::Octet,
            Primitive::I8 => TypeKind::I8,
            Primitive::U8 => TypeKind::U8,
            Primitive::I16 => TypeKind::I16,
            Primitive::U16 => TypeKind::U16,
            Primitive::I32 => TypeKind::I32,
            Primitive::U32 => TypeKind::U32,
            Primitive::I64 => TypeKind::I64,
            Primitive::U64 => TypeKind::U64,
            Primitive::F32 => TypeKind::F32,
            Primitive::F64 => TypeKind::F64,
            Primitive::WChar => return unsupported("wchar"),
            Primitive::F128 => return unsupported("long double"),
        },
        Ty::String { bound } => TypeKind::String { bound: *bound },
        Ty::WString { .. } => return unsupported("wstring"),
        Ty::Sequence { elem, bound } => TypeKind::Sequence {
            elem: Box::new(kind(model, elem, stack, loc, member)?),
            bound: *bound,
        },
        Ty::Array { elem, dims } => TypeKind::Array {
            elem: Box::new(kind(model, elem, stack, loc, member)?),
            dims: dims.clone(),
        },
        Ty::Struct(n) => {
            if stack.contains(n) {
                return unsupported(&format!("recursive type '{n}'"));
            }
            TypeKind::Struct(Box::new(describe_struct(model, n, stack)?))
        }
        Ty::Enum(n) => match model.get(n) {
            Some(Decl::Enum { name, enumerators }) => TypeKind::Enum(EnumDescriptor {
                name: name.clone(),
                labels: enumerators.clone(),
            }),
            _ => return unsupported(&format!("unknown enum '{n}'")),
        },
        Ty::Union(n) => {
            let Some(u) = model.union_type(n) else {
                return unsupported(&format!("unknown union '{n}'"));
            };
            if stack.contains(n) || stack.len() >= MAX_NESTING {
                return unsupported(&format!("recursive type '{n}'"));
            }
            stack.push(n.clone());
            let discriminator = kind(model, &u.discriminator, stack, loc, member)?;
            let mut cases = Vec::new();
            for c in &u.cases {
                let m = &c.member;
                let k = kind(model, &m.ty, stack, &m.loc, &m.name)?;
                cases.push(UnionCase {
                    labels: c.labels.clone(),
                    default: c.default,
                    member: Member {
                        name: m.name.clone(),
                        id: m.id,
                        kind: k,
                        key: false,
                        optional: false,
                    },
                });
            }
            stack.pop();
            TypeKind::Union(Box::new(UnionDescriptor {
                name: u.name.clone(),
                extensibility: u.extensibility,
                discriminator,
                cases,
            }))
        }
    })
}
