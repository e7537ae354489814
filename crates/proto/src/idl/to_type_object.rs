//! Resolved IDL types → DDS-XTypes 1.3 TypeObjects (§7.3.4): the minimal and complete
//! TypeObject of a struct, union or enum and of every type it reaches, their hashes, and the
//! TypeInformation that lists them ([`TypeRepresentation`]). Flags follow what Cyclone DDS
//! writes (the golden vectors in tests/data/xtypes pin it): `TRY_CONSTRUCT1` on every member
//! and collection element, `IS_KEY | IS_MUST_UNDERSTAND` on keys, `IS_MUST_UNDERSTAND` on a
//! union's discriminator, `IS_DEFAULT` on its default case, an enum's extensibility flag
//! (`IS_FINAL`) on the enum, and `uint8` described as `octet` (`TK_BYTE`: Cyclone 0.10
//! cannot resolve a type with `TK_UINT8`; `int8` keeps `TK_INT8`, which it cannot resolve
//! either).
//!
//! Must not: build TypeObjects for recursive types (refused with an error naming the type;
//! strongly connected components are not implemented) or recurse deeper than
//! [`MAX_NESTING`]. Typedefs are flattened by the resolver, so a member declared with a
//! typedef is described by the aliased type (no `TK_ALIAS` object).

use std::collections::BTreeMap;

use super::ast::Primitive;
use super::model::{Decl, Model, Ty};
use super::{IdlError, MAX_NESTING};
use crate::types::Extensibility;
use crate::types::xtypes::{
    EnumLiteral, EnumType, EquivalenceKind, IS_APPENDABLE, IS_DEFAULT, IS_FINAL, IS_KEY,
    IS_MUST_UNDERSTAND, IS_MUTABLE, IS_OPTIONAL, StructMember, StructType, TK_BOOLEAN, TK_BYTE,
    TK_CHAR8, TK_CHAR16, TK_FLOAT32, TK_FLOAT64, TK_FLOAT128, TK_INT8, TK_INT16, TK_INT32,
    TK_INT64, TK_UINT16, TK_UINT32, TK_UINT64, TRY_CONSTRUCT1, TypeIdentifier, TypeObject,
    TypeObjectBody, TypeRepresentation, UnionMember, UnionType, name_hash,
};

/// Test support: the representation of `name` declared in the IDL text `idl`, and its
/// TypeObjects decoded by identifier (what a TypeLookup client holds once it resolved them).
#[cfg(test)]
pub(crate) fn of_idl_text(
    idl: &str,
    name: &str,
) -> (TypeRepresentation, Vec<(TypeIdentifier, TypeObject)>) {
    use crate::cdr::Endianness;
    let loader = super::MemLoader::new().with("t.idl", idl);
    let spec = super::parse_with(&loader, std::path::Path::new("t.idl"), &[])
        .unwrap_or_else(|e| panic!("{e}"));
    let rep = type_representation(&spec.model, name).unwrap_or_else(|e| panic!("{e}"));
    let objects = rep
        .objects
        .iter()
        .map(|(id, b)| {
            let o = TypeObject::from_bytes(b, Endianness::Little).unwrap_or_else(|e| panic!("{e}"));
            (id.clone(), o)
        })
        .collect();
    (rep, objects)
}

/// The TypeObjects of `name` (a struct, union or enum of `model`) and of everything it
/// reaches, with its TypeInformation.
pub fn type_representation(model: &Model, name: &str) -> Result<TypeRepresentation, IdlError> {
    let mut b = Builder {
        model,
        built: BTreeMap::new(),
        stack: Vec::new(),
    };
    let min = b.named(name, EquivalenceKind::Minimal)?;
    let com = b.named(name, EquivalenceKind::Complete)?;
    let object = |id: &TypeIdentifier| b.by_id(id);
    let (Some(minimal), Some(complete)) = (object(&min), object(&com)) else {
        return Err(error(format!("'{name}' has no TypeObject")));
    };
    let mut deps = Vec::new();
    for root in [&min, &com] {
        let mut seen = vec![root.clone()];
        b.collect(root, &mut seen, &mut deps);
    }
    Ok(TypeRepresentation::new(minimal, complete, &deps))
}

struct Builder<'m> {
    model: &'m Model,
    /// (type name, kind) → (its object, its identifier).
    built: BTreeMap<(String, EquivalenceKind), (TypeObject, TypeIdentifier)>,
    /// The types being built, to refuse recursion.
    stack: Vec<String>,
}

fn error(message: String) -> IdlError {
    IdlError {
        file: String::new(),
        line: 0,
        col: 0,
        message,
    }
}

fn extensibility_flag(e: Extensibility) -> u16 {
    match e {
        Extensibility::Final => IS_FINAL,
        Extensibility::Appendable => IS_APPENDABLE,
        Extensibility::Mutable => IS_MUTABLE,
    }
}

fn primitive(p: Primitive) -> u8 {
    match p {
        Primitive::Bool => TK_BOOLEAN,
        Primitive::Char => TK_CHAR8,
        Primitive::WChar => TK_CHAR16,
        Primitive::Octet => TK_BYTE,
        Primitive::I8 => TK_INT8,
        // Cyclone DDS 0.10 knows no TK_UINT8 (a type holding one is "invalid" to it and never
        // matches) and its idlc writes `uint8` as `octet`: so do we, for the same one-byte
        // unsigned wire form.
        Primitive::U8 => TK_BYTE,
        Primitive::I16 => TK_INT16,
        Primitive::U16 => TK_UINT16,
        Primitive::I32 => TK_INT32,
        Primitive::U32 => TK_UINT32,
        Primitive::I64 => TK_INT64,
        Primitive::U64 => TK_UINT64,
        Primitive::F32 => TK_FLOAT32,
        Primitive::F64 => TK_FLOAT64,
        Primitive::F128 => TK_FLOAT128,
    }
}

impl Builder<'_> {
    fn by_id(&self, id: &TypeIdentifier) -> Option<&TypeObject> {
        self.built.values().find(|(_, i)| i == id).map(|(o, _)| o)
    }

    /// Preorder: each dependency once, then the ones it reaches, in member order.
    fn collect(
        &self,
        id: &TypeIdentifier,
        seen: &mut Vec<TypeIdentifier>,
        out: &mut Vec<TypeObject>,
    ) {
        let Some(object) = self.by_id(id) else {
            return;
        };
        for dep in object.dependencies() {
            if seen.contains(&dep) {
                continue;
            }
            seen.push(dep.clone());
            if let Some(o) = self.by_id(&dep) {
                out.push(o.clone());
            }
            self.collect(&dep, seen, out);
        }
    }

    fn ty(&mut self, ty: &Ty, kind: EquivalenceKind) -> Result<TypeIdentifier, IdlError> {
        Ok(match ty {
            Ty::Prim(p) => TypeIdentifier::Primitive(primitive(*p)),
            Ty::String { bound } => TypeIdentifier::string(false, bound.unwrap_or(0)),
            Ty::WString { bound } => TypeIdentifier::string(true, bound.unwrap_or(0)),
            Ty::Sequence { elem, bound } => {
                TypeIdentifier::sequence(self.ty(elem, kind)?, TRY_CONSTRUCT1, bound.unwrap_or(0))
            }
            Ty::Array { elem, dims } => {
                TypeIdentifier::array(self.ty(elem, kind)?, TRY_CONSTRUCT1, dims)
            }
            Ty::Struct(n) | Ty::Union(n) | Ty::Enum(n) => self.named(n, kind)?,
        })
    }

    /// The identifier of named type `name`, building its TypeObject first if needed.
    fn named(&mut self, name: &str, kind: EquivalenceKind) -> Result<TypeIdentifier, IdlError> {
        if let Some((_, id)) = self.built.get(&(name.to_owned(), kind)) {
            return Ok(id.clone());
        }
        if self.stack.iter().any(|n| n == name) {
            return Err(error(format!(
                "'{name}' is recursive: TypeObjects for recursive types are not supported"
            )));
        }
        if self.stack.len() >= MAX_NESTING {
            return Err(error(format!(
                "'{name}' nests deeper than {MAX_NESTING} levels"
            )));
        }
        self.stack.push(name.to_owned());
        let body = self.body(name, kind);
        self.stack.pop();
        let object = TypeObject { kind, body: body? };
        let id = object.identifier();
        self.built
            .insert((name.to_owned(), kind), (object, id.clone()));
        Ok(id)
    }

    fn body(&mut self, name: &str, kind: EquivalenceKind) -> Result<TypeObjectBody, IdlError> {
        let model = self.model;
        match model.get(name) {
            Some(Decl::Struct(s)) => {
                let base = match &s.base {
                    Some(b) => self.named(b, kind)?,
                    None => TypeIdentifier::None,
                };
                let mut members = Vec::with_capacity(s.members.len());
                for m in &s.members {
                    let mut flags = TRY_CONSTRUCT1;
                    if m.optional {
                        flags |= IS_OPTIONAL;
                    }
                    if m.key {
                        flags |= IS_KEY | IS_MUST_UNDERSTAND;
                    }
                    members.push(StructMember {
                        id: m.id,
                        flags,
                        type_id: self.ty(&m.ty, kind)?,
                        name: m.name.clone(),
                        name_hash: name_hash(&m.name),
                    });
                }
                Ok(TypeObjectBody::Struct(StructType {
                    flags: extensibility_flag(s.extensibility),
                    base,
                    type_name: s.name.clone(),
                    members,
                }))
            }
            Some(Decl::Union(u)) => {
                let mut discriminator_flags = TRY_CONSTRUCT1 | IS_MUST_UNDERSTAND;
                if u.key_discriminator {
                    discriminator_flags |= IS_KEY;
                }
                let discriminator = self.ty(&u.discriminator, kind)?;
                let mut members = Vec::with_capacity(u.cases.len());
                for c in &u.cases {
                    let m = &c.member;
                    let labels = c
                        .labels
                        .iter()
                        .map(|l| i32::try_from(*l))
                        .collect::<Result<Vec<i32>, _>>()
                        .map_err(|_| error(format!("'{name}': a case label exceeds 32 bits")))?;
                    let mut flags = TRY_CONSTRUCT1;
                    if c.default {
                        flags |= IS_DEFAULT;
                    }
                    members.push(UnionMember {
                        id: m.id,
                        flags,
                        type_id: self.ty(&m.ty, kind)?,
                        labels,
                        name: m.name.clone(),
                        name_hash: name_hash(&m.name),
                    });
                }
                Ok(TypeObjectBody::Union(UnionType {
                    flags: extensibility_flag(u.extensibility),
                    type_name: u.name.clone(),
                    discriminator_flags,
                    discriminator,
                    members,
                }))
            }
            Some(Decl::Enum { name, enumerators }) => Ok(TypeObjectBody::Enum(EnumType {
                flags: IS_FINAL,
                bit_bound: 32,
                type_name: name.clone(),
                literals: enumerators
                    .iter()
                    .map(|(label, value)| EnumLiteral {
                        value: *value,
                        flags: 0,
                        name: label.clone(),
                        name_hash: name_hash(label),
                    })
                    .collect(),
            })),
            _ => Err(error(format!("no struct, union or enum named '{name}'"))),
        }
    }
}

#[cfg(test)]
mod tests;
