//! The `#[dds(...)]` and `#[key]` attributes: parsed once into plain values, each error
//! spanned at the attribute that is wrong.
//!
//! Must not: decide encodings (that is `member`, `structs` and `enums`); accept an attribute
//! it does not know (a typo must not silently change the wire format).

use md5::{Digest, Md5};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Ident, LitInt, LitStr, Type};

/// Largest member id (DDS-XTypes 1.3 §7.3.1.2.1.1: ids fit 28 bits).
pub const MAX_MEMBER_ID: u32 = 0x0FFF_FFFF;

/// DDS-XTypes 1.3 §7.3.1.2.1.1: the first 4 bytes of MD5(`name`) as a little-endian `uint32`,
/// masked with `0x0FFFFFFF` (as `idl::resolve::hash_id`).
pub fn hash_id(name: &str) -> u32 {
    let digest = Md5::digest(name.as_bytes());
    let mut first = [0u8; 4];
    for (o, b) in first.iter_mut().zip(digest.iter()) {
        *o = *b;
    }
    u32::from_le_bytes(first) & MAX_MEMBER_ID
}

/// DDS-XTypes 1.3 §7.2.2.4.4.4.7; IDL 4 (and the generator) default to appendable.
#[derive(Copy, Clone, PartialEq, Eq)]
pub enum Ext {
    Final,
    Appendable,
    Mutable,
}

/// Attributes of the struct or enum.
pub struct Container {
    pub ext: Ext,
    pub type_name: Option<String>,
    pub autoid_hash: bool,
    pub discriminator: Option<Type>,
    pub krate: Option<syn::Path>,
}

impl Container {
    /// The type name announced in SEDP: `type_name`, else the Rust name.
    pub fn name_of(&self, ident: &Ident) -> String {
        self.type_name
            .clone()
            .unwrap_or_else(|| ident.unraw().to_string())
    }

    /// Refuses `discriminator` on anything but a union.
    pub fn no_discriminator(&self, ident: &Ident) -> syn::Result<()> {
        match self.discriminator {
            Some(_) => Err(syn::Error::new(
                ident.span(),
                "`discriminator` belongs on a union (an enum with fields)",
            )),
            None => Ok(()),
        }
    }
}

/// How a member's id is chosen.
pub enum IdRule {
    /// The previous id + 1 (or the hash under `autoid = "hash"`).
    Auto,
    /// `id = N`.
    Fixed(u32),
    /// `hashid` / `hashid = "name"`.
    Hash(Option<String>),
}

/// Attributes of a struct member or a union variant.
pub struct Field {
    pub key: bool,
    pub id: IdRule,
    pub bound: Option<(u32, proc_macro2::Span)>,
    pub wide: bool,
    /// Union case labels (`discriminant = ...`, repeatable).
    pub labels: Vec<Expr>,
    /// The union's `default` case.
    pub default: Option<proc_macro2::Span>,
}

fn is_dds(a: &Attribute) -> bool {
    a.path().is_ident("dds")
}

fn lit_u32(lit: &LitInt) -> syn::Result<u32> {
    lit.base10_parse::<u32>()
}

/// Parses the container's `#[dds(...)]`.
pub fn container(attrs: &[Attribute]) -> syn::Result<Container> {
    let mut c = Container {
        ext: Ext::Appendable,
        type_name: None,
        autoid_hash: false,
        discriminator: None,
        krate: None,
    };
    for a in attrs.iter().filter(|a| is_dds(a)) {
        a.parse_nested_meta(|meta| {
            if meta.path.is_ident("extensibility") {
                let s: LitStr = meta.value()?.parse()?;
                c.ext = match s.value().as_str() {
                    "final" => Ext::Final,
                    "appendable" => Ext::Appendable,
                    "mutable" => Ext::Mutable,
                    other => {
                        return Err(syn::Error::new(
                            s.span(),
                            format!(
                                "unknown extensibility \"{other}\": expected \"final\", \
                                 \"appendable\" or \"mutable\""
                            ),
                        ));
                    }
                };
            } else if meta.path.is_ident("type_name") {
                let s: LitStr = meta.value()?.parse()?;
                if s.value().is_empty() {
                    return Err(syn::Error::new(s.span(), "the type name must not be empty"));
                }
                c.type_name = Some(s.value());
            } else if meta.path.is_ident("autoid") {
                let s: LitStr = meta.value()?.parse()?;
                c.autoid_hash = match s.value().as_str() {
                    "hash" => true,
                    "sequential" => false,
                    _ => {
                        return Err(syn::Error::new(
                            s.span(),
                            "expected autoid = \"hash\" or \"sequential\"",
                        ));
                    }
                };
            } else if meta.path.is_ident("discriminator") {
                c.discriminator = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("crate") {
                let s: LitStr = meta.value()?.parse()?;
                c.krate = Some(s.parse()?);
            } else {
                return Err(meta.error(
                    "unknown dds attribute: expected extensibility, type_name, autoid, \
                     discriminator or crate",
                ));
            }
            Ok(())
        })?;
    }
    Ok(c)
}

/// Parses a member's or variant's `#[key]` and `#[dds(...)]`.
pub fn field(attrs: &[Attribute]) -> syn::Result<Field> {
    let mut f = Field {
        key: false,
        id: IdRule::Auto,
        bound: None,
        wide: false,
        labels: Vec::new(),
        default: None,
    };
    for a in attrs {
        if a.path().is_ident("key") {
            a.meta.require_path_only()?;
            f.key = true;
            continue;
        }
        if !is_dds(a) {
            continue;
        }
        a.parse_nested_meta(|meta| {
            if meta.path.is_ident("key") {
                f.key = true;
            } else if meta.path.is_ident("id") {
                let lit: LitInt = meta.value()?.parse()?;
                let id = lit_u32(&lit)?;
                if id > MAX_MEMBER_ID {
                    return Err(syn::Error::new(
                        lit.span(),
                        "member ids are 28 bits: 0..=0x0FFFFFFF",
                    ));
                }
                f.id = IdRule::Fixed(id);
            } else if meta.path.is_ident("hashid") {
                f.id = if meta.input.peek(syn::Token![=]) {
                    let s: LitStr = meta.value()?.parse()?;
                    IdRule::Hash(Some(s.value()))
                } else {
                    IdRule::Hash(None)
                };
            } else if meta.path.is_ident("bound") {
                let lit: LitInt = meta.value()?.parse()?;
                f.bound = Some((lit_u32(&lit)?, lit.span()));
            } else if meta.path.is_ident("wide") {
                f.wide = true;
            } else if meta.path.is_ident("discriminant") {
                let e: Expr = meta.value()?.parse()?;
                check_label(&e)?;
                f.labels.push(e);
            } else if meta.path.is_ident("default") {
                f.default = Some(meta.path.span());
            } else {
                return Err(meta.error(
                    "unknown dds attribute: expected key, id, hashid, bound, wide, \
                     discriminant or default",
                ));
            }
            Ok(())
        })?;
    }
    Ok(f)
}

/// A case label is used both as a value and as a pattern: a literal, a negated literal or a
/// path (an enumerator or a constant).
fn check_label(e: &Expr) -> syn::Result<()> {
    match e {
        Expr::Lit(_) | Expr::Path(_) => Ok(()),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) && matches!(*u.expr, Expr::Lit(_)) => {
            Ok(())
        }
        _ => Err(syn::Error::new(
            e.span(),
            "a discriminant is a literal, a negative literal or a path (enumerator or const)",
        )),
    }
}
