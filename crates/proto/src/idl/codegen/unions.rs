//! Enums and unions → Rust. An IDL enum becomes a fieldless Rust enum with its `@value`s as
//! discriminants, encoded as an int32 (the default `@bit_bound(32)`; DDS-XTypes 1.3
//! §7.4.3.4.4). A union becomes a Rust enum with one variant per case: a case with exactly
//! one label holds only its value; a case with several labels, and the `default` case, also
//! hold the discriminator; a union without `default` gets `NoMember(discriminator)` for the
//! values no case selects (IDL 4.2 §7.4.1.4.4.4).
//!
//! Must not: emit wire rules (see `types::codec`), or accept a discriminator a case does not
//! own on encode: that is an error, not a silently different sample.

use std::fmt::Write as _;

use super::names::{enumerator, ident, last, variant_names};
use super::value::{Ctx, dec, default_expr, enc, length_code, or_default};
use crate::idl::ast::Primitive;
use crate::idl::model::{Decl, Ty, UnionType};
use crate::types::Extensibility;

/// Emits enum `name` with `enumerators`.
pub(super) fn emit_enum(name: &str, enumerators: &[(String, i32)], out: &mut String) {
    let rname = ident(last(name));
    let labels: Vec<&str> = enumerators.iter().map(|(l, _)| l.as_str()).collect();
    let variants = variant_names(&labels, &[]);
    let _ = writeln!(out, "/// IDL enum `{name}` (encoded as an int32).");
    let _ = writeln!(
        out,
        "#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]"
    );
    let _ = writeln!(out, "#[repr(i32)]");
    let _ = writeln!(out, "pub enum {rname} {{");
    for (i, ((label, value), variant)) in enumerators.iter().zip(&variants).enumerate() {
        let _ = writeln!(out, "/// `{label}`");
        if i == 0 {
            let _ = writeln!(out, "#[default]");
        }
        let _ = writeln!(out, "{variant} = {value},");
    }
    let _ = writeln!(out, "}}\n");
    let _ = writeln!(out, "impl {rname} {{");
    let _ = writeln!(out, "/// The enumerator's value.");
    let _ = writeln!(out, "pub const fn value(self) -> i32 {{ self as i32 }}");
    let _ = writeln!(out, "/// The enumerator with `value`, if any.");
    let _ = writeln!(
        out,
        "pub const fn from_value(value: i32) -> Option<Self> {{ match value {{"
    );
    for ((_, value), variant) in enumerators.iter().zip(&variants) {
        let _ = writeln!(out, "{value} => Some(Self::{variant}),");
    }
    let _ = writeln!(out, "_ => None, }} }}");
    let _ = writeln!(out, "}}\n");
    let _ = writeln!(out, "impl _rt::XcdrCodec for {rname} {{");
    let _ = writeln!(out, "const MIN_SIZE: usize = 4;");
    let _ = writeln!(
        out,
        "const LENGTH_CODE: _rt::LengthCode = _rt::LengthCode::Size4;"
    );
    let _ = writeln!(
        out,
        "const KEY_END: _rt::KeyEnd = _rt::KeyEnd::primitive(4);"
    );
    let _ = writeln!(
        out,
        "fn xcdr_write(&self, w: &mut _rt::CdrWriter<'_>) -> Result<(), _rt::CdrError> {{ _rt::XcdrCodec::xcdr_write(&self.value(), w) }}"
    );
    let _ = writeln!(
        out,
        "fn xcdr_read(r: &mut _rt::CdrReader<'_>) -> Result<Self, _rt::CdrError> {{"
    );
    let _ = writeln!(
        out,
        "Self::from_value(<i32 as _rt::XcdrCodec>::xcdr_read(r)?).ok_or(_rt::CdrError::Invalid({name:?})) }}"
    );
    let _ = writeln!(out, "}}\n");
}

/// One union case as emitted.
struct Case {
    variant: String,
    /// Holds the discriminator too (several labels, or default).
    carries: bool,
    /// The pattern matching its labels (`_` for default).
    pattern: String,
    /// The first label as a value.
    first: Option<String>,
    ty: Ty,
    id: u32,
}

/// The literal of discriminator value `v` (enum by value).
fn label_lit(cx: &Ctx<'_>, disc: &Ty, v: i64) -> String {
    match disc {
        Ty::Enum(n) => {
            let label = match cx.model.get(n) {
                Some(Decl::Enum { enumerators, .. }) => enumerators
                    .iter()
                    .find(|(_, x)| i64::from(*x) == v)
                    .map(|(l, _)| enumerator(cx.model, n, l)),
                _ => None,
            };
            format!(
                "{}::{}",
                cx.ty(disc),
                label.unwrap_or_else(|| "Unknown".to_owned())
            )
        }
        Ty::Prim(Primitive::Bool) => (v != 0).to_string(),
        Ty::Prim(Primitive::Char | Primitive::WChar) => {
            format!(
                "{:?}",
                u32::try_from(v)
                    .ok()
                    .and_then(char::from_u32)
                    .unwrap_or('\0')
            )
        }
        Ty::Prim(p) => format!("{v}_{}", super::names::prim(*p)),
        _ => v.to_string(),
    }
}

/// A discriminator value no explicit label uses (for the default case's `Default`).
fn free_value(cx: &Ctx<'_>, u: &UnionType) -> i64 {
    let used: Vec<i64> = u
        .cases
        .iter()
        .flat_map(|c| c.labels.iter().copied())
        .collect();
    let candidates: Vec<i64> = match &u.discriminator {
        Ty::Enum(n) => match cx.model.get(n) {
            Some(Decl::Enum { enumerators, .. }) => {
                enumerators.iter().map(|(_, v)| i64::from(*v)).collect()
            }
            _ => vec![0],
        },
        Ty::Prim(Primitive::Bool) => vec![0, 1],
        _ => (0..=i64::from(u16::MAX)).collect(),
    };
    candidates
        .into_iter()
        .find(|v| !used.contains(v))
        .unwrap_or(0)
}

/// Emits union `u`.
pub(super) fn emit_union(cx: &Ctx<'_>, u: &UnionType, out: &mut String) {
    let name = ident(last(&u.name));
    let d = cx.ty(&u.discriminator);
    let has_default = u.cases.iter().any(|c| c.default);
    let member_names: Vec<&str> = u.cases.iter().map(|c| c.member.name.as_str()).collect();
    let variants = variant_names(&member_names, &["NoMember"]);
    let cases: Vec<Case> = u
        .cases
        .iter()
        .zip(variants)
        .map(|(c, variant)| {
            let pats: Vec<String> = c
                .labels
                .iter()
                .map(|l| label_lit(cx, &u.discriminator, *l))
                .collect();
            Case {
                variant,
                carries: c.default || c.labels.len() != 1,
                pattern: if c.default {
                    "_".to_owned()
                } else {
                    pats.join(" | ")
                },
                first: pats.first().cloned(),
                ty: c.member.ty.clone(),
                id: c.member.id,
            }
        })
        .collect();
    let explicit: Vec<&str> = cases
        .iter()
        .filter(|c| c.pattern != "_")
        .map(|c| c.pattern.as_str())
        .collect();
    let explicit = explicit.join(" | ");

    let _ = writeln!(
        out,
        "/// IDL union `{}` ({:?}) with discriminator `{d}`.",
        u.name, u.extensibility
    );
    let _ = writeln!(out, "#[derive(Clone, Debug, PartialEq)]");
    let _ = writeln!(out, "pub enum {name} {{");
    for (c, item) in cases.iter().zip(&u.cases) {
        let t = cx.ty(&c.ty);
        let _ = writeln!(out, "/// `{}` (member id {}).", item.member.name, c.id);
        if c.carries {
            let _ = writeln!(out, "{}({d}, {t}),", c.variant);
        } else {
            let _ = writeln!(out, "{}({t}),", c.variant);
        }
    }
    if !has_default {
        let _ = writeln!(out, "/// A discriminator that selects no member.");
        let _ = writeln!(out, "NoMember({d}),");
    }
    let _ = writeln!(out, "}}\n");

    // Default: the first case with its first label (or a free value for `default`).
    if let Some(c) = cases.first() {
        let v = default_expr(&c.ty);
        let disc = if c.pattern == "_" {
            label_lit(cx, &u.discriminator, free_value(cx, u))
        } else {
            c.first.clone().unwrap_or_default()
        };
        let value = if c.carries { format!("{disc}, {v}") } else { v };
        let _ = writeln!(
            out,
            "impl Default for {name} {{ fn default() -> Self {{ Self::{}({value}) }} }}\n",
            c.variant
        );
    } else {
        let _ = writeln!(
            out,
            "impl Default for {name} {{ fn default() -> Self {{ Self::NoMember(Default::default()) }} }}\n"
        );
    }

    let mutable = u.extensibility == Extensibility::Mutable;
    let _ = writeln!(out, "impl _rt::XcdrCodec for {name} {{");
    let _ = writeln!(
        out,
        "const MIN_SIZE: usize = {};",
        if mutable { "4" } else { "1" }
    );
    // Encoding.
    let _ = writeln!(out, "#[allow(clippy::manual_range_patterns)]");
    let _ = writeln!(
        out,
        "fn xcdr_write(&self, w: &mut _rt::CdrWriter<'_>) -> Result<(), _rt::CdrError> {{"
    );
    let disc_lc = length_code(&u.discriminator);
    let wrap = |disc: &str, value: Option<(u32, &Ty)>| -> String {
        let value_enc = value.map(|(_, t)| enc(t, "v", &u.name, false));
        if mutable {
            let mut s = format!(
                "m.member(0, true, _rt::LengthCode::{disc_lc}, |w| _rt::XcdrCodec::xcdr_write({disc}, w))?;"
            );
            if let (Some((id, t)), Some(e)) = (value, value_enc) {
                let _ = write!(
                    s,
                    "m.member({id}, false, _rt::LengthCode::{}, |w| {e})?;",
                    length_code(t)
                );
            }
            s
        } else {
            let mut s = format!("_rt::XcdrCodec::xcdr_write({disc}, w)?;");
            if let Some(e) = value_enc {
                let _ = write!(s, "{e}?;");
            }
            s
        }
    };
    let mut arms = String::new();
    let bad = format!(
        "return Err(_rt::CdrError::Invalid(\"{} discriminator\"))",
        u.name
    );
    for c in &cases {
        if c.carries {
            let check = if c.pattern == "_" {
                if explicit.is_empty() {
                    String::new()
                } else {
                    format!("if matches!(d, {explicit}) {{ {bad} }}")
                }
            } else {
                format!("if !matches!(d, {}) {{ {bad} }}", c.pattern)
            };
            let _ = writeln!(
                arms,
                "Self::{}(d, v) => {{ {check} {} }}",
                c.variant,
                wrap("d", Some((c.id, &c.ty)))
            );
        } else {
            let disc = format!("&{}", c.first.clone().unwrap_or_default());
            let _ = writeln!(
                arms,
                "Self::{}(v) => {{ {} }}",
                c.variant,
                wrap(&disc, Some((c.id, &c.ty)))
            );
        }
    }
    if !has_default {
        let check = if explicit.is_empty() {
            String::new()
        } else {
            format!("if matches!(d, {explicit}) {{ {bad} }}")
        };
        let _ = writeln!(
            arms,
            "Self::NoMember(d) => {{ {check} {} }}",
            wrap("d", None)
        );
    }
    let body = format!("match self {{ {arms} }} Ok(())");
    let _ = match u.extensibility {
        Extensibility::Final => writeln!(out, "{body}"),
        Extensibility::Appendable => writeln!(out, "_rt::write_appendable(w, |w| {{ {body} }})"),
        Extensibility::Mutable => writeln!(out, "_rt::write_mutable(w, |m| {{ {body} }})"),
    };
    let _ = writeln!(out, "}}");

    // Decoding.
    let _ = writeln!(
        out,
        "#[allow(unreachable_patterns, clippy::manual_range_patterns)]"
    );
    let _ = writeln!(
        out,
        "fn xcdr_read(r: &mut _rt::CdrReader<'_>) -> Result<Self, _rt::CdrError> {{"
    );
    let select = |value: &dyn Fn(usize, &Case) -> String| -> String {
        let mut s = String::from("Ok(match d {");
        for (i, c) in cases.iter().enumerate() {
            let v = value(i, c);
            if c.carries {
                let _ = write!(s, "{} => Self::{}(d, {v}),", c.pattern, c.variant);
            } else {
                let _ = write!(s, "{} => Self::{}({v}),", c.pattern, c.variant);
            }
        }
        if !has_default {
            s.push_str("_ => Self::NoMember(d),");
        }
        s.push_str("})");
        s
    };
    if mutable {
        let _ = writeln!(out, "let mut disc = None;");
        for (i, _) in cases.iter().enumerate() {
            let _ = writeln!(out, "let mut c{i} = None;");
        }
        let _ = writeln!(
            out,
            "_rt::read_mutable(r, |id, r| {{ match id {{ 0 => disc = Some({}?),",
            dec(cx, &u.discriminator, &u.name)
        );
        for (i, c) in cases.iter().enumerate() {
            let _ = writeln!(
                out,
                "{} => c{i} = Some({}?),",
                c.id,
                dec(cx, &c.ty, &u.name)
            );
        }
        let _ = writeln!(out, "_ => return Ok(false), }} Ok(true) }})?;");
        let _ = writeln!(
            out,
            "let d = disc.ok_or(_rt::CdrError::Invalid(\"{} discriminator missing\"))?;",
            u.name
        );
        let sel = select(&|i, c| or_default(&format!("c{i}"), &c.ty));
        let _ = writeln!(out, "{sel}");
    } else {
        let sel = select(&|_, c| format!("{}?", dec(cx, &c.ty, &u.name)));
        let body = format!("let d = {}?; {sel}", dec(cx, &u.discriminator, &u.name));
        let _ = match u.extensibility {
            Extensibility::Appendable => writeln!(out, "_rt::read_appendable(r, |r| {{ {body} }})"),
            _ => writeln!(out, "{body}"),
        };
    }
    let _ = writeln!(out, "}}");
    let _ = writeln!(out, "}}\n");
}
