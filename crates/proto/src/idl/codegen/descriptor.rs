//! A [`TypeDescriptor`] as a Rust expression that rebuilds it, so that a generated type's
//! `descriptor()` returns exactly what the IDL layer built (`idl::descriptor`).
//!
//! Must not: compute anything about the type; it prints what it is given.

use crate::types::{Extensibility, Member, TypeDescriptor, TypeKind, UnionDescriptor};

/// The expression that builds `d` (paths through `_rt`).
pub(super) fn literal(d: &TypeDescriptor) -> String {
    let members: Vec<String> = d.members.iter().map(member).collect();
    format!(
        "_rt::TypeDescriptor {{ name: {:?}.to_owned(), extensibility: {}, members: vec![{}] }}",
        d.name,
        ext(d.extensibility),
        members.join(", ")
    )
}

fn ext(e: Extensibility) -> &'static str {
    match e {
        Extensibility::Final => "_rt::Extensibility::Final",
        Extensibility::Appendable => "_rt::Extensibility::Appendable",
        Extensibility::Mutable => "_rt::Extensibility::Mutable",
    }
}

fn member(m: &Member) -> String {
    format!(
        "_rt::Member {{ name: {:?}.to_owned(), id: {}, kind: {}, key: {}, optional: {} }}",
        m.name,
        m.id,
        kind(&m.kind),
        m.key,
        m.optional
    )
}

fn bound(b: Option<u32>) -> String {
    b.map_or_else(|| "None".to_owned(), |b| format!("Some({b})"))
}

fn kind(k: &TypeKind) -> String {
    let simple = match k {
        TypeKind::Bool => "Bool",
        TypeKind::Char => "Char",
        TypeKind::Octet => "Octet",
        TypeKind::I8 => "I8",
        TypeKind::U8 => "U8",
        TypeKind::I16 => "I16",
        TypeKind::U16 => "U16",
        TypeKind::I32 => "I32",
        TypeKind::U32 => "U32",
        TypeKind::I64 => "I64",
        TypeKind::U64 => "U64",
        TypeKind::F32 => "F32",
        TypeKind::F64 => "F64",
        TypeKind::String { bound: b } => {
            return format!("_rt::TypeKind::String {{ bound: {} }}", bound(*b));
        }
        TypeKind::Enum(e) => {
            let labels: Vec<String> = e
                .labels
                .iter()
                .map(|(l, v)| format!("({l:?}.to_owned(), {v})"))
                .collect();
            return format!(
                "_rt::TypeKind::Enum(_rt::EnumDescriptor {{ name: {:?}.to_owned(), labels: vec![{}] }})",
                e.name,
                labels.join(", ")
            );
        }
        TypeKind::Struct(s) => return format!("_rt::TypeKind::Struct(Box::new({}))", literal(s)),
        TypeKind::Sequence { elem, bound: b } => {
            return format!(
                "_rt::TypeKind::Sequence {{ elem: Box::new({}), bound: {} }}",
                kind(elem),
                bound(*b)
            );
        }
        TypeKind::Array { elem, dims } => {
            return format!(
                "_rt::TypeKind::Array {{ elem: Box::new({}), dims: vec!{dims:?} }}",
                kind(elem)
            );
        }
        TypeKind::Union(u) => return format!("_rt::TypeKind::Union(Box::new({}))", union(u)),
    };
    format!("_rt::TypeKind::{simple}")
}

fn union(u: &UnionDescriptor) -> String {
    let cases: Vec<String> = u
        .cases
        .iter()
        .map(|c| {
            format!(
                "_rt::UnionCase {{ labels: vec!{:?}, default: {}, member: {} }}",
                c.labels,
                c.default,
                member(&c.member)
            )
        })
        .collect();
    format!(
        "_rt::UnionDescriptor {{ name: {:?}.to_owned(), extensibility: {}, discriminator: {}, cases: vec![{}] }}",
        u.name,
        ext(u.extensibility),
        kind(&u.discriminator),
        cases.join(", ")
    )
}
