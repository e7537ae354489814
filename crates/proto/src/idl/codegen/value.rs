//! Expressions that encode and decode one value of a resolved [`Ty`] through the runtime
//! helpers in `types::codec` (named `_rt` in generated code), plus the static facts the
//! generator needs about a type: minimum size, whether XCDR2 collections of it need a
//! DHEADER, the EMHEADER length code of a member, its default value and the maximum size of
//! a key holder.
//!
//! Must not: emit items (only expressions), or recurse past the model's nesting (types are
//! resolved and acyclic except through sequences, which these functions do not follow).
//!
//! Encoding expressions use a writer named `w` and a reference expression for the value;
//! decoding expressions use a reader named `r`; both have type `Result<_, CdrError>`.

use super::names::{path_to, prim, prim_size, rust_ty};
use crate::idl::ast::Primitive;
use crate::idl::model::{ConstValue, Model, Ty};

/// Where generated code sits and what it can see.
pub(super) struct Ctx<'m> {
    /// The resolved IDL.
    pub model: &'m Model,
    /// The current module path.
    pub scope: Vec<String>,
}

impl Ctx<'_> {
    /// The Rust type of `ty` here.
    pub fn ty(&self, ty: &Ty) -> String {
        rust_ty(ty, &self.scope)
    }

    fn path(&self, fq: &str) -> String {
        path_to(&self.scope, fq)
    }
}

fn bound_lit(bound: Option<u32>) -> String {
    bound.map_or_else(|| "None".to_owned(), |b| format!("Some({b})"))
}

/// DDS-XTypes 1.3 §7.4.3.5.3: in XCDR2, sequences and arrays of non-primitive elements carry
/// a DHEADER. Primitive means the XTypes primitive types (§7.2.2.2: boolean, byte, integers,
/// floats, char8/char16); enums are not, so their collections get one too, as Cyclone writes.
pub(super) fn needs_dheader(elem: &Ty) -> bool {
    !matches!(elem, Ty::Prim(_))
}

/// `enc(ty, place)`: encodes `*place` (`place` is a reference expression).
pub(super) fn enc(ty: &Ty, place: &str, what: &str, key: bool) -> String {
    match ty {
        Ty::Prim(Primitive::WChar) => format!(
            "_rt::write_wchar(w, {})",
            place
                .strip_prefix('&')
                .map_or_else(|| format!("*{place}"), str::to_owned)
        ),
        Ty::Prim(_) | Ty::Enum(_) => format!("_rt::XcdrCodec::xcdr_write({place}, w)"),
        Ty::Struct(_) | Ty::Union(_) if key => {
            format!("_rt::XcdrCodec::xcdr_write_key({place}, w)")
        }
        Ty::Struct(_) | Ty::Union(_) => format!("_rt::XcdrCodec::xcdr_write({place}, w)"),
        Ty::String { bound } => {
            format!(
                "_rt::write_string(w, {place}, {}, {what:?})",
                bound_lit(*bound)
            )
        }
        Ty::WString { bound } => {
            format!(
                "_rt::write_wstring(w, {place}, {}, {what:?})",
                bound_lit(*bound)
            )
        }
        Ty::Sequence { elem, bound } => format!(
            "_rt::write_seq(w, {place}, {}, {}, {what:?}, |w, e| {})",
            bound_lit(*bound),
            needs_dheader(elem),
            enc(elem, "e", what, key)
        ),
        Ty::Array { elem, dims } => {
            let mut body = format!("{}?;", enc(elem, &format!("e{}", dims.len()), what, key));
            for depth in (0..dims.len()).rev() {
                let src = if depth == 0 {
                    by_value(place)
                } else {
                    format!("e{depth}")
                };
                body = format!(
                    "for e{} in {src}.iter() {{ {body} }}",
                    depth.saturating_add(1)
                );
            }
            format!(
                "_rt::write_array(w, {}, |w| {{ {body} Ok(()) }})",
                needs_dheader(elem)
            )
        }
    }
}

/// The place a reference expression points to: `&self.x` → `self.x`, `v` → `*v`.
fn by_value(place: &str) -> String {
    place
        .strip_prefix('&')
        .map_or_else(|| format!("(*{place})"), str::to_owned)
}

/// `dec(ty)`: decodes one value.
pub(super) fn dec(cx: &Ctx<'_>, ty: &Ty, what: &str) -> String {
    match ty {
        Ty::Prim(Primitive::WChar) => "_rt::read_wchar(r)".to_owned(),
        Ty::Prim(p) => format!("<{} as _rt::XcdrCodec>::xcdr_read(r)", prim(*p)),
        Ty::Struct(n) | Ty::Union(n) | Ty::Enum(n) => {
            format!("<{} as _rt::XcdrCodec>::xcdr_read(r)", cx.path(n))
        }
        Ty::String { bound } => format!("_rt::read_string(r, {}, {what:?})", bound_lit(*bound)),
        Ty::WString { bound } => {
            format!("_rt::read_wstring(r, {}, {what:?})", bound_lit(*bound))
        }
        Ty::Sequence { elem, bound } => format!(
            "_rt::read_seq(r, {}, {}, {}, {what:?}, {})",
            bound_lit(*bound),
            needs_dheader(elem),
            min_size(cx, elem),
            dec_fn(cx, elem).unwrap_or_else(|| format!("|r| {}", dec(cx, elem, what)))
        ),
        Ty::Array { elem, dims } => {
            let mut body = dec(cx, elem, what);
            for d in dims.iter().rev() {
                body = format!("_rt::try_array::<_, {d}>(|| {body})");
            }
            format!("_rt::read_array(r, {}, |r| {body})", needs_dheader(elem))
        }
    }
}

/// The decoding function of `ty` when it needs no arguments beyond the reader.
pub(super) fn dec_fn(cx: &Ctx<'_>, ty: &Ty) -> Option<String> {
    match ty {
        Ty::Prim(Primitive::WChar) => Some("_rt::read_wchar".to_owned()),
        Ty::Prim(p) => Some(format!("<{} as _rt::XcdrCodec>::xcdr_read", prim(*p))),
        Ty::Struct(n) | Ty::Union(n) | Ty::Enum(n) => {
            Some(format!("<{} as _rt::XcdrCodec>::xcdr_read", cx.path(n)))
        }
        _ => None,
    }
}

/// `var.unwrap_or_default()`, or with an explicit default for arrays (`[T; N]` implements
/// `Default` only up to 32 elements).
pub(super) fn or_default(var: &str, ty: &Ty) -> String {
    match ty {
        Ty::Array { .. } => format!("{var}.unwrap_or_else(|| {})", default_expr(ty)),
        _ => format!("{var}.unwrap_or_default()"),
    }
}

/// The fewest bytes a value of `ty` occupies, as a constant expression.
pub(super) fn min_size(cx: &Ctx<'_>, ty: &Ty) -> String {
    match ty {
        Ty::Prim(p) => prim_size(*p).to_string(),
        Ty::String { .. } | Ty::WString { .. } | Ty::Sequence { .. } => "4".to_owned(),
        Ty::Enum(_) => "4".to_owned(),
        Ty::Struct(n) | Ty::Union(n) => format!("<{} as _rt::XcdrCodec>::MIN_SIZE", cx.path(n)),
        Ty::Array { elem, dims } => {
            let n: u64 = dims.iter().map(|d| u64::from(*d)).product();
            format!("{n} * {}", min_size(cx, elem))
        }
    }
}

/// The EMHEADER length code Cyclone DDS picks for a member of type `ty` (XTypes 1.3
/// §7.4.3.4.8 leaves the choice to the writer; see tests/data/xcdr/README.md).
pub(super) fn length_code(ty: &Ty) -> &'static str {
    match ty {
        Ty::Prim(p) => match prim_size(*p) {
            1 => "Size1",
            2 => "Size2",
            4 => "Size4",
            8 => "Size8",
            _ => "NextInt",
        },
        Ty::Enum(_) => "Size4",
        Ty::String { .. } => "DualUse1",
        Ty::Sequence { elem, .. } => match elem.as_ref() {
            Ty::Prim(p) => match prim_size(*p) {
                1 => "DualUse1",
                4 => "DualUse4",
                8 => "DualUse8",
                _ => "NextInt",
            },
            _ => "DualUse1",
        },
        Ty::Array { elem, .. } if needs_dheader(elem) => "DualUse1",
        Ty::Array { .. } | Ty::WString { .. } | Ty::Struct(_) | Ty::Union(_) => "NextInt",
    }
}

/// The default value of `ty` (arrays of any length included).
pub(super) fn default_expr(ty: &Ty) -> String {
    match ty {
        Ty::Array { elem, dims } => {
            let mut e = default_expr(elem);
            for _ in dims {
                e = format!("::core::array::from_fn(|_| {e})");
            }
            e
        }
        _ => "Default::default()".to_owned(),
    }
}

/// A literal for an `@default(value)` or constant of type `ty`, `None` if it does not fit.
pub(super) fn const_lit(cx: &Ctx<'_>, ty: &Ty, v: &ConstValue, owned: bool) -> Option<String> {
    Some(match (ty, v) {
        (Ty::Prim(Primitive::F32), ConstValue::Float(f)) => float_lit(*f, "f32"),
        (Ty::Prim(Primitive::F64 | Primitive::F128), ConstValue::Float(f)) => float_lit(*f, "f64"),
        (Ty::Prim(Primitive::F32), ConstValue::Int(i)) => format!("{i}.0_f32"),
        (Ty::Prim(Primitive::F64 | Primitive::F128), ConstValue::Int(i)) => format!("{i}.0_f64"),
        (Ty::Prim(p), ConstValue::Int(i)) if p.is_integer() => format!("{i}_{}", prim(*p)),
        (Ty::Prim(Primitive::Char | Primitive::WChar), ConstValue::Char(c)) => format!("{c:?}"),
        (Ty::Prim(Primitive::Bool), ConstValue::Bool(b)) => b.to_string(),
        (Ty::String { .. } | Ty::WString { .. }, ConstValue::Str(s)) if owned => {
            format!("String::from({s:?})")
        }
        (Ty::String { .. } | Ty::WString { .. }, ConstValue::Str(s)) => format!("{s:?}"),
        (Ty::Enum(n), ConstValue::Enum { label, .. }) => {
            format!(
                "{}::{}",
                cx.path(n),
                super::names::enumerator(cx.model, n, label)
            )
        }
        _ => return None,
    })
}

fn float_lit(f: f64, suffix: &str) -> String {
    if f.is_nan() {
        format!("{suffix}::NAN")
    } else if f.is_infinite() {
        format!("{suffix}::{}INFINITY", if f < 0.0 { "NEG_" } else { "" })
    } else {
        let s = format!("{f:?}");
        if s.contains(['.', 'e']) {
            format!("{s}_{suffix}")
        } else {
            format!("{s}.0_{suffix}")
        }
    }
}

/// The largest PLAIN_CDR2 size of the key holder of struct `name` from offset `pos`, `None`
/// when unbounded (or absurdly large). RTPS 2.5 §9.6.4.8 picks MD5 when it exceeds 16.
pub(super) fn key_max_end(model: &Model, name: &str, pos: usize, depth: usize) -> Option<usize> {
    let members = crate::idl::resolve::all_members_of(model, name);
    let keys: Vec<_> = if members.iter().any(|m| m.key) {
        members.iter().filter(|m| m.key).collect()
    } else {
        members.iter().collect()
    };
    let mut keys = keys;
    keys.sort_by_key(|m| m.id);
    keys.iter().try_fold(pos, |p, m| {
        let p = if m.optional { p.checked_add(1)? } else { p };
        max_end(model, &m.ty, p, depth, true)
    })
}

fn align4(pos: usize, a: usize) -> Option<usize> {
    let a = a.min(4);
    pos.checked_add(a.checked_sub(1)?)?
        .checked_div(a)?
        .checked_mul(a)
}

const MAX_KEY_SCAN: usize = 1 << 20;

fn max_end(model: &Model, ty: &Ty, pos: usize, depth: usize, key: bool) -> Option<usize> {
    if depth > crate::idl::MAX_NESTING || pos > MAX_KEY_SCAN {
        return None;
    }
    let depth = depth.checked_add(1)?;
    match ty {
        Ty::Prim(p) => {
            let s = prim_size(*p);
            align4(pos, s)?.checked_add(s)
        }
        Ty::Enum(_) => align4(pos, 4)?.checked_add(4),
        Ty::String { bound: Some(b) } => align4(pos, 4)?
            .checked_add(5)?
            .checked_add(usize::try_from(*b).ok()?),
        Ty::Sequence { bound: Some(b), .. } if usize::try_from(*b).ok()? > MAX_KEY_SCAN => None,
        Ty::Sequence {
            elem,
            bound: Some(b),
        } => {
            let mut p = align4(pos, 4)?.checked_add(if needs_dheader(elem) { 8 } else { 4 })?;
            for _ in 0..*b {
                p = max_end(model, elem, p, depth, key)?.checked_add(3)?;
            }
            Some(p)
        }
        Ty::Array { elem, dims } => {
            let n = dims
                .iter()
                .try_fold(1usize, |a, d| a.checked_mul(usize::try_from(*d).ok()?))?;
            let mut p = if needs_dheader(elem) {
                align4(pos, 4)?.checked_add(4)?
            } else {
                pos
            };
            for _ in 0..n.min(MAX_KEY_SCAN) {
                p = max_end(model, elem, p, depth, key)?;
            }
            Some(p)
        }
        Ty::Struct(n) if key => key_max_end(model, n, pos, depth),
        Ty::Struct(_) | Ty::Union(_) | Ty::String { bound: None } | Ty::WString { .. } => None,
        Ty::Sequence { bound: None, .. } => None,
    }
}
