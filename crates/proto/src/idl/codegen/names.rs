//! Rust names and types for resolved IDL: identifier escaping, enumerator and union variant
//! casing, relative paths between generated modules, and the Rust type of every [`Ty`].
//!
//! Must not: emit code (only names and type expressions), or depend on where the generated
//! file is `include!`d: every path is relative (`super::`), never `crate::`.

use crate::idl::ast::Primitive;
use crate::idl::model::{Decl, Model, Ty};

/// Rust keywords (2024 edition, reserved ones included) that need `r#` or a suffix.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// Names of prelude types the generated code uses unqualified; IDL types may not take them.
pub(super) const RESERVED_TYPE_NAMES: &[&str] = &[
    "String", "Vec", "Option", "Result", "Box", "Ok", "Err", "Some", "None", "Default",
];

/// `name` as a Rust identifier: keywords become raw identifiers; `self`, `Self`, `super` and
/// `crate`, which cannot be raw, get a trailing underscore.
pub(super) fn ident(name: &str) -> String {
    if matches!(name, "self" | "Self" | "super" | "crate") {
        format!("{name}_")
    } else if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_owned()
    }
}

/// `RED_ALERT` / `red_alert` / `redAlert` → `RedAlert` (enumerators, union variants).
pub(super) fn upper_camel(name: &str) -> String {
    let mut out = String::new();
    let all_upper = !name.chars().any(|c| c.is_ascii_lowercase());
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            let rest: String = chars.collect();
            if all_upper {
                out.push_str(&rest.to_ascii_lowercase());
            } else {
                out.push_str(&rest);
            }
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    ident(&out)
}

/// Rust variant names for `names` (enumerators or union members): UpperCamelCase, unless two
/// would collide (`RED` and `Red`) or one would take a `reserved` name; then the IDL names.
pub(super) fn variant_names(names: &[&str], reserved: &[&str]) -> Vec<String> {
    let camel: Vec<String> = names.iter().map(|n| upper_camel(n)).collect();
    let clash = camel
        .iter()
        .enumerate()
        .any(|(i, c)| camel.iter().take(i).any(|d| d == c) || reserved.contains(&c.as_str()));
    if clash {
        names.iter().map(|n| ident(n)).collect()
    } else {
        camel
    }
}

/// The Rust variant of enumerator `label` of enum `enum_fq`.
pub(super) fn enumerator(model: &Model, enum_fq: &str, label: &str) -> String {
    let Some(Decl::Enum { enumerators, .. }) = model.get(enum_fq) else {
        return upper_camel(label);
    };
    let names: Vec<&str> = enumerators.iter().map(|(l, _)| l.as_str()).collect();
    let variants = variant_names(&names, &[]);
    names
        .iter()
        .position(|n| *n == label)
        .and_then(|i| variants.get(i).cloned())
        .unwrap_or_else(|| upper_camel(label))
}

/// The last component of a fully qualified name.
pub(super) fn last(fq: &str) -> &str {
    fq.rsplit("::").next().unwrap_or(fq)
}

/// The module parts of a fully qualified name (all but the last).
pub(super) fn scope_of(fq: &str) -> Vec<String> {
    let mut parts: Vec<String> = fq.split("::").map(str::to_owned).collect();
    parts.pop();
    parts
}

/// The path from module `from` to the item `fq`.
pub(super) fn path_to(from: &[String], fq: &str) -> String {
    let target: Vec<&str> = fq.split("::").collect();
    let modules = target.len().saturating_sub(1);
    let common = from
        .iter()
        .zip(target.iter().take(modules))
        .take_while(|(a, b)| a.as_str() == **b)
        .count();
    let mut out = "super::".repeat(from.len().saturating_sub(common));
    let rest: Vec<String> = target.iter().skip(common).map(|p| ident(p)).collect();
    out.push_str(&rest.join("::"));
    out
}

/// The Rust type of a primitive.
pub(super) fn prim(p: Primitive) -> &'static str {
    match p {
        Primitive::Bool => "bool",
        Primitive::Char | Primitive::WChar => "char",
        Primitive::Octet | Primitive::U8 => "u8",
        Primitive::I8 => "i8",
        Primitive::I16 => "i16",
        Primitive::U16 => "u16",
        Primitive::I32 => "i32",
        Primitive::U32 => "u32",
        Primitive::I64 => "i64",
        Primitive::U64 => "u64",
        Primitive::F32 => "f32",
        Primitive::F64 => "f64",
        Primitive::F128 => "_rt::LongDouble",
    }
}

/// The Rust type of `ty` as seen from module `from`.
pub(super) fn rust_ty(ty: &Ty, from: &[String]) -> String {
    match ty {
        Ty::Prim(p) => prim(*p).to_owned(),
        Ty::String { .. } | Ty::WString { .. } => "String".to_owned(),
        Ty::Sequence { elem, .. } => format!("Vec<{}>", rust_ty(elem, from)),
        Ty::Array { elem, dims } => {
            let mut t = rust_ty(elem, from);
            for d in dims.iter().rev() {
                t = format!("[{t}; {d}]");
            }
            t
        }
        Ty::Struct(n) | Ty::Union(n) | Ty::Enum(n) => path_to(from, n),
    }
}

/// The encoded size of a primitive (`wchar` as UTF-16, `long double` 16 bytes).
pub(super) fn prim_size(p: Primitive) -> usize {
    match p {
        Primitive::Bool | Primitive::Char | Primitive::Octet | Primitive::I8 | Primitive::U8 => 1,
        Primitive::WChar | Primitive::I16 | Primitive::U16 => 2,
        Primitive::I32 | Primitive::U32 | Primitive::F32 => 4,
        Primitive::I64 | Primitive::U64 | Primitive::F64 => 8,
        Primitive::F128 => 16,
    }
}

#[cfg(test)]
mod tests;
