//! Structs → Rust: the struct (base members flattened first, as XCDR serializes them), its
//! `Default`, its [`XcdrCodec`](crate::types::codec::XcdrCodec) impl for final, appendable
//! and mutable extensibility in XCDR1 and XCDR2, its key holder, and for top-level types
//! (`@topic`, or not `@nested`) the `TopicType` impl with key hash, descriptor and XTypes
//! type representation.
//!
//! Must not: decide encodings itself — every wire rule lives in the runtime helpers
//! (`types::codec`); this module only strings calls to them together.
//!
//! DDS-XTypes 1.3 §7.4.3.5 (XCDR2: final = plain, appendable = DHEADER, mutable = DHEADER +
//! EMHEADERs), §7.4.1.2 / §7.4.3.5.3 (XCDR1 PL_CDR for mutable types and optionals).

use std::fmt::Write as _;

use super::names::{ident, last};
use super::value::{
    Ctx, const_lit, dec, dec_fn, default_expr, enc, key_max_end, length_code, min_size, or_default,
};
use crate::idl::model::{MemberItem, StructType, Ty};
use crate::idl::resolve::all_members_of;
use crate::types::{Extensibility, TypeDescriptor};

/// Emits struct `s` into `out`.
pub(super) fn emit(cx: &Ctx<'_>, s: &StructType, desc: Option<&TypeDescriptor>, out: &mut String) {
    let members = all_members_of(cx.model, &s.name);
    let name = ident(last(&s.name));
    let ext = ext_path(s.extensibility);

    // `Default` is derived unless an array or an `@default` needs spelling out.
    let derive_default = members
        .iter()
        .all(|m| m.optional || (m.default.is_none() && !matches!(m.ty, Ty::Array { .. })));
    let derives = if derive_default {
        "Clone, Debug, Default, PartialEq"
    } else {
        "Clone, Debug, PartialEq"
    };
    let _ = writeln!(out, "/// IDL `{}` ({:?}).", s.name, s.extensibility);
    let _ = writeln!(out, "#[derive({derives})]");
    let _ = writeln!(out, "pub struct {name} {{");
    for m in &members {
        let t = cx.ty(&m.ty);
        let t = if m.optional {
            format!("Option<{t}>")
        } else {
            t
        };
        let flags = match (m.key, m.optional) {
            (true, _) => " `@key`",
            (false, true) => " `@optional`",
            _ => "",
        };
        let _ = writeln!(out, "/// `{}`, member id {}{flags}.", m.name, m.id);
        let _ = writeln!(out, "pub {}: {t},", ident(&m.name));
    }
    let _ = writeln!(out, "}}\n");

    if !derive_default {
        default_impl(cx, &name, &members, out);
    }

    let min: Vec<String> = match s.extensibility {
        Extensibility::Mutable => vec!["4".to_owned()],
        _ => members
            .iter()
            .map(|m| {
                if m.optional {
                    "1".to_owned()
                } else {
                    min_size(cx, &m.ty)
                }
            })
            .collect(),
    };
    let min = if min.is_empty() {
        "0".to_owned()
    } else {
        min.join(" + ")
    };
    let _ = writeln!(out, "impl _rt::XcdrCodec for {name} {{");
    let _ = writeln!(out, "const MIN_SIZE: usize = {min};");
    // The key holder's bound for the structs that hold this one as a key (derived ones too).
    let ends: Vec<String> = (0..4)
        .map(|pos| match key_max_end(cx.model, &s.name, pos, 0) {
            Some(n) => format!("Some({n})"),
            None => "None".to_owned(),
        })
        .collect();
    let _ = writeln!(
        out,
        "const KEY_END: _rt::KeyEnd = _rt::KeyEnd::from_ends([{}]);",
        ends.join(", ")
    );
    write_fn(s, &members, out);
    read_fn(cx, s, &members, out);
    key_fn(cx, &members, out);
    let _ = writeln!(out, "}}\n");

    if !s.nested || s.topic {
        topic_impl(cx, s, &members, &name, ext, desc, out);
    }
}

fn ext_path(e: Extensibility) -> &'static str {
    match e {
        Extensibility::Final => "_rt::Extensibility::Final",
        Extensibility::Appendable => "_rt::Extensibility::Appendable",
        Extensibility::Mutable => "_rt::Extensibility::Mutable",
    }
}

fn what(s: &StructType, m: &MemberItem) -> String {
    format!("{}.{}", s.name, m.name)
}

fn write_fn(s: &StructType, members: &[MemberItem], out: &mut String) {
    let _ = writeln!(
        out,
        "fn xcdr_write(&self, w: &mut _rt::CdrWriter<'_>) -> Result<(), _rt::CdrError> {{"
    );
    if members.is_empty() && s.extensibility == Extensibility::Appendable {
        let _ = writeln!(out, "_rt::write_appendable(w, |_| Ok(())) }}");
        return;
    }
    let mut body = String::new();
    for m in members {
        let field = format!("&self.{}", ident(&m.name));
        let what = what(s, m);
        if s.extensibility == Extensibility::Mutable {
            let lc = length_code(&m.ty);
            let e = enc(&m.ty, if m.optional { "v" } else { &field }, &what, false);
            let call = format!(
                "m.member({}, false, _rt::LengthCode::{lc}, |w| {e})?;",
                m.id
            );
            if m.optional {
                let _ = writeln!(body, "if let Some(v) = {field} {{ {call} }}");
            } else {
                let _ = writeln!(body, "{call}");
            }
        } else if m.optional {
            let e = enc(&m.ty, "v", &what, false);
            let _ = writeln!(
                body,
                "_rt::write_optional(w, {}, self.{}.as_ref(), |w, v| {e})?;",
                m.id,
                ident(&m.name)
            );
        } else {
            let _ = writeln!(body, "{}?;", enc(&m.ty, &field, &what, false));
        }
    }
    match s.extensibility {
        Extensibility::Final => {
            let unused = if members.is_empty() { "let _ = w;" } else { "" };
            let _ = writeln!(out, "{unused}{body}Ok(())");
        }
        Extensibility::Appendable => {
            let _ = writeln!(out, "_rt::write_appendable(w, |w| {{ {body} Ok(()) }})");
        }
        Extensibility::Mutable => {
            let _ = writeln!(out, "_rt::write_mutable(w, |m| {{ {body} Ok(()) }})");
        }
    }
    let _ = writeln!(out, "}}");
}

fn read_fn(cx: &Ctx<'_>, s: &StructType, members: &[MemberItem], out: &mut String) {
    let _ = writeln!(
        out,
        "fn xcdr_read(r: &mut _rt::CdrReader<'_>) -> Result<Self, _rt::CdrError> {{"
    );
    let value = |m: &MemberItem| {
        let d = dec(cx, &m.ty, &what(s, m));
        if m.optional {
            let f = dec_fn(cx, &m.ty).unwrap_or_else(|| format!("|r| {d}"));
            format!("_rt::read_optional(r, {f})?")
        } else {
            format!("{d}?")
        }
    };
    match s.extensibility {
        Extensibility::Final => {
            let unused = if members.is_empty() { "let _ = r;" } else { "" };
            let _ = writeln!(out, "{unused}Ok(Self {{");
            for m in members {
                let _ = writeln!(out, "{}: {},", ident(&m.name), value(m));
            }
            let _ = writeln!(out, "}})");
        }
        Extensibility::Appendable if members.is_empty() => {
            let _ = writeln!(out, "_rt::read_appendable(r, |_| Ok(Self {{}}))");
        }
        Extensibility::Appendable => {
            // Members a shorter (older) version of the type does not send take defaults.
            let _ = writeln!(out, "_rt::read_appendable(r, |r| Ok(Self {{");
            for m in members {
                let absent = if m.optional {
                    "None".to_owned()
                } else {
                    default_expr(&m.ty)
                };
                let _ = writeln!(
                    out,
                    "{}: if r.is_empty() {{ {absent} }} else {{ {} }},",
                    ident(&m.name),
                    value(m)
                );
            }
            let _ = writeln!(out, "}}))");
        }
        Extensibility::Mutable => {
            for (i, _) in members.iter().enumerate() {
                let _ = writeln!(out, "let mut m{i} = None;");
            }
            let _ = writeln!(out, "_rt::read_mutable(r, |id, r| {{ match id {{");
            for (i, m) in members.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "{} => m{i} = Some({}?),",
                    m.id,
                    dec(cx, &m.ty, &what(s, m))
                );
            }
            let _ = writeln!(out, "_ => return Ok(false), }} Ok(true) }})?;");
            let _ = writeln!(out, "Ok(Self {{");
            for (i, m) in members.iter().enumerate() {
                if m.optional {
                    let _ = writeln!(out, "{}: m{i},", ident(&m.name));
                } else {
                    let v = or_default(&format!("m{i}"), &m.ty);
                    let _ = writeln!(out, "{}: {v},", ident(&m.name));
                }
            }
            let _ = writeln!(out, "}})");
        }
    }
    let _ = writeln!(out, "}}");
}

/// The key holder: key members (all members when none is a key) in member id order, as a
/// final type. RTPS 2.5 §9.6.4.8, DDS-XTypes 1.3 §7.6.8.
fn key_fn(cx: &Ctx<'_>, members: &[MemberItem], out: &mut String) {
    let mut keys: Vec<&MemberItem> = if members.iter().any(|m| m.key) {
        members.iter().filter(|m| m.key).collect()
    } else {
        members.iter().collect()
    };
    keys.sort_by_key(|m| m.id);
    let w = if keys.is_empty() { "_w" } else { "w" };
    let _ = writeln!(
        out,
        "fn xcdr_write_key(&self, {w}: &mut _rt::CdrWriter<'_>) -> Result<(), _rt::CdrError> {{"
    );
    for m in &keys {
        let what = m.name.as_str();
        if m.optional {
            let e = enc(&m.ty, "v", what, true);
            let _ = writeln!(
                out,
                "_rt::write_optional(w, {}, self.{}.as_ref(), |w, v| {e})?;",
                m.id,
                ident(&m.name)
            );
        } else {
            let field = format!("&self.{}", ident(&m.name));
            let _ = writeln!(out, "{}?;", enc(&m.ty, &field, what, true));
        }
    }
    let _ = writeln!(out, "Ok(()) }}");
    let r = if keys.is_empty() { "_r" } else { "r" };
    let _ = writeln!(
        out,
        "fn xcdr_read_key({r}: &mut _rt::CdrReader<'_>) -> Result<Self, _rt::CdrError> {{"
    );
    // Fields are evaluated in the order written: the holder's order.
    let _ = writeln!(out, "Ok(Self {{");
    for m in &keys {
        let _ = writeln!(out, "{}: {},", ident(&m.name), dec_key(cx, m));
    }
    let rest = if keys.len() == members.len() {
        ""
    } else {
        "..Default::default()"
    };
    let _ = writeln!(out, "{rest} }})");
    let _ = writeln!(out, "}}");
}

/// Reads one key holder member (nested structs contribute their own key holders).
fn dec_key(cx: &Ctx<'_>, m: &MemberItem) -> String {
    let d = match &m.ty {
        Ty::Struct(n) => format!(
            "<{} as _rt::XcdrCodec>::xcdr_read_key(r)",
            super::names::path_to(&cx.scope, n)
        ),
        t => dec(cx, t, &m.name),
    };
    if m.optional {
        format!("_rt::read_optional(r, |r| {d})?")
    } else {
        format!("{d}?")
    }
}

fn topic_impl(
    cx: &Ctx<'_>,
    s: &StructType,
    members: &[MemberItem],
    name: &str,
    ext: &str,
    desc: Option<&TypeDescriptor>,
    out: &mut String,
) {
    let keyed = members.iter().any(|m| m.key);
    let _ = writeln!(out, "impl {name} {{");
    let _ = writeln!(
        out,
        "/// The extensibility that selects the encapsulation kind."
    );
    let _ = writeln!(out, "pub const EXTENSIBILITY: _rt::Extensibility = {ext};");
    if keyed {
        let max = key_max_end(cx.model, &s.name, 0, 0)
            .map_or_else(|| "None".to_owned(), |n| format!("Some({n})"));
        let _ = writeln!(
            out,
            "/// The largest PLAIN_CDR2 key holder, `None` when unbounded (RTPS 2.5 §9.6.4.8)."
        );
        let _ = writeln!(out, "pub const MAX_KEY_SIZE: Option<usize> = {max};");
    }
    let _ = writeln!(out, "}}\n");

    let _ = writeln!(out, "impl _rt::TopicType for {name} {{");
    let _ = writeln!(out, "fn type_name() -> &'static str {{ {:?} }}", s.name);
    let _ = writeln!(out, "fn is_keyed() -> bool {{ {keyed} }}");
    let _ = writeln!(
        out,
        "fn serialize(&self, endian: _rt::Endianness) -> Vec<u8> {{"
    );
    let _ = writeln!(
        out,
        "_rt::serialize_or_empty(self, Self::EXTENSIBILITY, endian) }}"
    );
    let _ = writeln!(
        out,
        "fn serialize_as(&self, version: _rt::XcdrVersion, endian: _rt::Endianness) -> Option<Vec<u8>> {{"
    );
    let _ = writeln!(
        out,
        "_rt::serialize(self, Self::EXTENSIBILITY, version, endian).ok() }}"
    );
    // Both versions are generated: a writer may name either in DATA_REPRESENTATION.
    let _ = writeln!(
        out,
        "fn supports(_version: _rt::XcdrVersion) -> bool {{ true }}"
    );
    let _ = writeln!(
        out,
        "fn deserialize(data: &[u8]) -> Result<Self, _rt::CdrError> {{ _rt::deserialize(data) }}"
    );
    if keyed {
        let _ = writeln!(
            out,
            "fn key_hash(&self) -> Option<[u8; 16]> {{ _rt::key_hash(self, Self::MAX_KEY_SIZE).ok() }}"
        );
        let _ = writeln!(
            out,
            "fn serialize_key(&self, endian: _rt::Endianness) -> Option<Vec<u8>> {{ _rt::serialize_key(self, endian).ok() }}"
        );
        let _ = writeln!(
            out,
            "fn serialize_key_as(&self, version: _rt::XcdrVersion, endian: _rt::Endianness) -> Option<Vec<u8>> {{"
        );
        let _ = writeln!(
            out,
            "_rt::serialize_key_as(self, Self::EXTENSIBILITY, version, endian).ok() }}"
        );
        let _ = writeln!(
            out,
            "fn key_hash_from_serialized_key(data: &[u8]) -> Option<[u8; 16]> {{"
        );
        let _ = writeln!(
            out,
            "_rt::key_hash_from_serialized_key::<Self>(data, Self::MAX_KEY_SIZE) }}"
        );
    } else {
        let _ = writeln!(out, "fn key_hash(&self) -> Option<[u8; 16]> {{ None }}");
    }
    if let Some(d) = desc {
        let _ = writeln!(
            out,
            "fn descriptor() -> Option<&'static _rt::TypeDescriptor> {{"
        );
        let _ = writeln!(
            out,
            "static DESCRIPTOR: std::sync::OnceLock<_rt::TypeDescriptor> = std::sync::OnceLock::new();"
        );
        let _ = writeln!(
            out,
            "Some(DESCRIPTOR.get_or_init(|| {}))",
            super::descriptor::literal(d)
        );
        let _ = writeln!(out, "}}");
    }
    if let Ok(rep) = crate::idl::to_type_object::type_representation(cx.model, &s.name) {
        type_representation_fn(&rep, out);
    }
    let _ = writeln!(out, "}}\n");
}

/// `type_representation()`: the TypeObjects built at generation time, kept serialized and
/// turned into a `TypeRepresentation` once (DDS-XTypes 1.3 §7.3.4).
fn type_representation_fn(rep: &crate::types::xtypes::TypeRepresentation, out: &mut String) {
    let lit = |b: &[u8]| {
        let mut s = String::from("b\"");
        for x in b {
            let _ = write!(s, "\\x{x:02x}");
        }
        s.push('"');
        s
    };
    let (minimal, complete, deps) = rep.serialized();
    let deps: Vec<String> = deps.iter().map(|d| lit(d)).collect();
    let _ = writeln!(
        out,
        "fn type_representation() -> Option<&'static _xt::TypeRepresentation> {{"
    );
    let _ = writeln!(
        out,
        "static REPRESENTATION: std::sync::OnceLock<Option<_xt::TypeRepresentation>> = std::sync::OnceLock::new();"
    );
    let _ = writeln!(
        out,
        "REPRESENTATION.get_or_init(|| _xt::TypeRepresentation::from_serialized({}, {}, &[{}]).ok()).as_ref()",
        lit(minimal),
        lit(complete),
        deps.join(", ")
    );
    let _ = writeln!(out, "}}");
}

/// `Default` with `@default` values and arrays of any length.
fn default_impl(cx: &Ctx<'_>, name: &str, members: &[MemberItem], out: &mut String) {
    let _ = writeln!(
        out,
        "impl Default for {name} {{ fn default() -> Self {{ Self {{"
    );
    for m in members {
        let v = if m.optional {
            "None".to_owned()
        } else {
            m.default
                .as_ref()
                .and_then(|d| const_lit(cx, &m.ty, d, true))
                .unwrap_or_else(|| default_expr(&m.ty))
        };
        let _ = writeln!(out, "{}: {v},", ident(&m.name));
    }
    let _ = writeln!(out, "}} }} }}\n");
}
