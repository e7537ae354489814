//! One member's Rust type read as an IDL type: `String` (`string<N>`, or `wstring` with
//! `wide`), `Vec<T>` (`sequence<T, N>`), `[T; N]` (arrays, nested arrays flattened into
//! dimensions as IDL writes them), and every other path a type implementing `XcdrCodec`
//! (primitives, `LongDouble`, derived or generated enums, structs and unions). For each, the
//! expressions that encode and decode it through the runtime helpers (`types::codec`) the IDL
//! generator's code calls, and the constant facts it needs (minimum size, DHEADER, length
//! code, key holder bound), spelled as the generator spells them (`idl::codegen::value`).
//!
//! Must not: guess a fact the source text does not show: those come from the member type's
//! `XcdrCodec` constants at compile time, so a type alias or a generated type is read right.
//! Only the type path carries the member's span (for errors): the locals the expressions use
//! (`w`, `r`, `depth`) keep the derive's, so a type from a `macro_rules!` resolves them too.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, GenericArgument, PathArguments, Type};

/// A member type as IDL sees it.
pub enum Shape {
    /// A type implementing `XcdrCodec`.
    Leaf(Type),
    /// `wchar` (a `char` with `wide`).
    WChar,
    /// `string<bound>` / `wstring<bound>`.
    Str { bound: Option<u32>, wide: bool },
    /// `sequence<elem, bound>`.
    Seq {
        elem: Box<Shape>,
        bound: Option<u32>,
    },
    /// `elem name[d0][d1]...`.
    Array { elem: Box<Shape>, dims: Vec<Expr> },
}

/// Rust types with no IDL counterpart, named so the error says what to use instead.
const NO_IDL: &[(&str, &str)] = &[
    ("usize", "use u32 or u64"),
    ("isize", "use i32 or i64"),
    ("u128", "IDL has no 128-bit integer"),
    ("i128", "IDL has no 128-bit integer"),
    ("str", "use String"),
    ("Box", "use the value itself"),
    ("Rc", "use the value itself"),
    ("Arc", "use the value itself"),
    ("Cow", "use String or Vec"),
    (
        "HashMap",
        "IDL 4 maps are not supported; use a sequence of structs",
    ),
    (
        "BTreeMap",
        "IDL 4 maps are not supported; use a sequence of structs",
    ),
    ("HashSet", "use Vec"),
    ("BTreeSet", "use Vec"),
    ("VecDeque", "use Vec"),
];

fn unsupported(span: Span, why: &str) -> syn::Error {
    syn::Error::new(span, format!("unsupported member type: {why}"))
}

/// The single type argument of `Name<T>`, if `ty` is a path ending in `name` with one.
pub fn generic_arg<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.iter().collect::<Vec<_>>().as_slice() {
        [GenericArgument::Type(t)] => Some(t),
        _ => None,
    }
}

fn is_plain(ty: &Type, name: &str) -> bool {
    match ty {
        Type::Path(p) => {
            p.qself.is_none()
                && p.path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == name && s.arguments.is_empty())
        }
        _ => false,
    }
}

impl Shape {
    /// Reads `ty` (an `Option` already removed); `bound` applies to the outermost string or
    /// sequence, `wide` to the innermost `char` or `String`.
    pub fn of(ty: &Type, bound: Option<(u32, Span)>, wide: bool) -> syn::Result<Shape> {
        let shape = Shape::read(ty, wide)?;
        match (bound, shape) {
            (None, s) => Ok(s),
            (Some((b, _)), Shape::Str { wide, .. }) => Ok(Shape::Str {
                bound: Some(b),
                wide,
            }),
            (Some((b, _)), Shape::Seq { elem, .. }) => Ok(Shape::Seq {
                elem,
                bound: Some(b),
            }),
            (Some((_, span)), _) => Err(syn::Error::new(
                span,
                "`bound` applies to a String or a Vec member",
            )),
        }
    }

    fn read(ty: &Type, wide: bool) -> syn::Result<Shape> {
        match ty {
            Type::Group(g) => Shape::read(&g.elem, wide),
            Type::Paren(p) => Shape::read(&p.elem, wide),
            Type::Array(a) => {
                let inner = Shape::read(&a.elem, wide)?;
                Ok(match inner {
                    Shape::Array { elem, mut dims } => {
                        dims.insert(0, a.len.clone());
                        Shape::Array { elem, dims }
                    }
                    other => Shape::Array {
                        elem: Box::new(other),
                        dims: vec![a.len.clone()],
                    },
                })
            }
            Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return Err(unsupported(ty.span(), "an empty path"));
                };
                let name = last.ident.to_string();
                if let Some((_, why)) = NO_IDL.iter().find(|(n, _)| *n == name) {
                    return Err(unsupported(ty.span(), &format!("`{name}`: {why}")));
                }
                if name == "Option" {
                    return Err(unsupported(
                        ty.span(),
                        "`Option` marks an @optional member and cannot be nested",
                    ));
                }
                if is_plain(ty, "String") {
                    return Ok(Shape::Str { bound: None, wide });
                }
                if let Some(elem) = generic_arg(ty, "Vec") {
                    return Ok(Shape::Seq {
                        elem: Box::new(Shape::read(elem, wide)?),
                        bound: None,
                    });
                }
                if name == "Vec" {
                    return Err(unsupported(ty.span(), "`Vec` takes one element type"));
                }
                if wide && is_plain(ty, "char") {
                    return Ok(Shape::WChar);
                }
                Ok(Shape::Leaf(ty.clone()))
            }
            Type::Reference(_) => Err(unsupported(
                ty.span(),
                "a reference: members are owned (String, Vec<T>)",
            )),
            Type::Slice(_) => Err(unsupported(ty.span(), "a slice: use Vec<T> or [T; N]")),
            Type::Tuple(_) => Err(unsupported(
                ty.span(),
                "a tuple: use a struct that derives TopicType",
            )),
            _ => Err(unsupported(ty.span(), "not an IDL type")),
        }
    }

    /// The XTypes primitive size (0: not primitive), a `usize` constant expression.
    pub fn primitive_size(&self, rt: &TokenStream) -> TokenStream {
        match self {
            Shape::Leaf(t) => quote_spanned!(t.span()=> <#t as #rt::XcdrCodec>::PRIMITIVE_SIZE),
            Shape::WChar => quote!(2usize),
            _ => quote!(0usize),
        }
    }

    /// XCDR2 puts a DHEADER before collections of non-primitives (§7.4.3.5.3).
    fn dheader(&self, rt: &TokenStream) -> TokenStream {
        let p = self.primitive_size(rt);
        quote!((#p == 0))
    }

    fn count(dims: &[Expr]) -> TokenStream {
        quote!((1usize #(* (#dims))*))
    }

    /// `MIN_SIZE` contribution.
    pub fn min_size(&self, rt: &TokenStream) -> TokenStream {
        match self {
            Shape::Leaf(t) => quote_spanned!(t.span()=> <#t as #rt::XcdrCodec>::MIN_SIZE),
            Shape::WChar => quote!(2usize),
            Shape::Str { .. } | Shape::Seq { .. } => quote!(4usize),
            Shape::Array { elem, dims } => {
                let n = Shape::count(dims);
                let e = elem.min_size(rt);
                quote!((#n * #e))
            }
        }
    }

    /// The EMHEADER length code of a member of this shape.
    pub fn length_code(&self, rt: &TokenStream) -> TokenStream {
        match self {
            Shape::Leaf(t) => quote_spanned!(t.span()=> <#t as #rt::XcdrCodec>::LENGTH_CODE),
            Shape::WChar => quote!(#rt::LengthCode::Size2),
            Shape::Str { wide: false, .. } => quote!(#rt::LengthCode::DualUse1),
            Shape::Str { wide: true, .. } => quote!(#rt::LengthCode::NextInt),
            Shape::Seq { elem, .. } => {
                let p = elem.primitive_size(rt);
                quote!(#rt::sequence_length_code(#p))
            }
            Shape::Array { elem, .. } => {
                let p = elem.primitive_size(rt);
                quote!(#rt::array_length_code(#p))
            }
        }
    }

    /// The key holder bound (`KeyEnd`) of a key member of this shape.
    pub fn key_end(&self, rt: &TokenStream) -> TokenStream {
        match self {
            Shape::Leaf(t) => quote_spanned!(t.span()=> <#t as #rt::XcdrCodec>::KEY_END),
            Shape::WChar => quote!(#rt::KeyEnd::primitive(2)),
            Shape::Str { bound, wide: false } => {
                let b = opt_u32(*bound);
                quote!(#rt::KeyEnd::string(#b))
            }
            Shape::Str { wide: true, .. } => quote!(#rt::KeyEnd::UNBOUNDED),
            // Unbounded without asking the element (which may be the type itself).
            Shape::Seq { bound: None, .. } => quote!(#rt::KeyEnd::UNBOUNDED),
            Shape::Seq { elem, bound } => {
                let e = elem.key_end(rt);
                let p = elem.primitive_size(rt);
                let b = opt_u32(*bound);
                quote!(#e.sequence(#p != 0, #b))
            }
            Shape::Array { elem, dims } => {
                let e = elem.key_end(rt);
                let p = elem.primitive_size(rt);
                let n = Shape::count(dims);
                quote!(#e.array(#p != 0, #n))
            }
        }
    }

    /// The member's `TypeKind` for the descriptor, an `Option<TypeKind>` expression used
    /// inside a function of `depth` returning `Option` (wide types have none, as in
    /// `idl::to_descriptor`).
    pub fn kind(&self, rt: &TokenStream) -> TokenStream {
        match self {
            Shape::Leaf(t) => {
                let f = quote_spanned!(t.span()=> <#t as #rt::XcdrCodec>::type_kind);
                quote!(#f(depth.checked_add(1)?))
            }
            Shape::WChar | Shape::Str { wide: true, .. } => {
                quote!(::core::option::Option::<#rt::TypeKind>::None)
            }
            Shape::Str { bound, wide: false } => {
                let b = opt_u32(*bound);
                quote!(::core::option::Option::Some(#rt::TypeKind::String { bound: #b }))
            }
            Shape::Seq { elem, bound } => {
                let e = elem.kind(rt);
                let b = opt_u32(*bound);
                quote!(::core::option::Option::Some(#rt::TypeKind::Sequence {
                    elem: ::std::boxed::Box::new(#e?),
                    bound: #b,
                }))
            }
            Shape::Array { elem, dims } => {
                let e = elem.kind(rt);
                quote!(::core::option::Option::Some(#rt::TypeKind::Array {
                    elem: ::std::boxed::Box::new(#e?),
                    dims: ::std::vec![#(u32::try_from(#dims).ok()?),*],
                }))
            }
        }
    }

    /// Encodes `*place` (`place` is a reference expression) with writer `w`; a
    /// `Result<(), CdrError>` expression. In a key holder (`key`), nested aggregates write
    /// their own key holders.
    pub fn enc(&self, rt: &TokenStream, place: &TokenStream, what: &str, key: bool) -> TokenStream {
        match self {
            Shape::Leaf(t) => {
                let f = if key {
                    quote_spanned!(t.span()=> <#t as #rt::XcdrCodec>::xcdr_write_key)
                } else {
                    quote_spanned!(t.span()=> <#t as #rt::XcdrCodec>::xcdr_write)
                };
                quote!(#f(#place, w))
            }
            Shape::WChar => quote!(#rt::write_wchar(w, *#place)),
            Shape::Str { bound, wide } => {
                let b = opt_u32(*bound);
                if *wide {
                    quote!(#rt::write_wstring(w, #place, #b, #what))
                } else {
                    quote!(#rt::write_string(w, #place, #b, #what))
                }
            }
            Shape::Seq { elem, bound } => {
                let b = opt_u32(*bound);
                let d = elem.dheader(rt);
                let e = elem.enc(rt, &quote!(e), what, key);
                quote!(#rt::write_seq(w, #place, #b, #d, #what, |w, e| #e))
            }
            Shape::Array { elem, dims } => {
                let leaf = syn::Ident::new(&format!("e{}", dims.len()), Span::call_site());
                let mut body = {
                    let e = elem.enc(rt, &quote!(#leaf), what, key);
                    quote!(#e?;)
                };
                for depth in (0..dims.len()).rev() {
                    let var = syn::Ident::new(&format!("e{}", depth + 1), Span::call_site());
                    let src = if depth == 0 {
                        quote!((#place))
                    } else {
                        let v = syn::Ident::new(&format!("e{depth}"), Span::call_site());
                        quote!(#v)
                    };
                    body = quote!(for #var in #src.iter() { #body });
                }
                let d = elem.dheader(rt);
                quote!(#rt::write_array(w, #d, |w| { #body Ok(()) }))
            }
        }
    }

    /// Decodes one value with reader `r`; a `Result<T, CdrError>` expression.
    pub fn dec(&self, rt: &TokenStream, what: &str, key: bool) -> TokenStream {
        match self {
            Shape::Leaf(t) => {
                let f = if key {
                    quote_spanned!(t.span()=> <#t as #rt::XcdrCodec>::xcdr_read_key)
                } else {
                    quote_spanned!(t.span()=> <#t as #rt::XcdrCodec>::xcdr_read)
                };
                quote!(#f(r))
            }
            Shape::WChar => quote!(#rt::read_wchar(r)),
            Shape::Str { bound, wide } => {
                let b = opt_u32(*bound);
                if *wide {
                    quote!(#rt::read_wstring(r, #b, #what))
                } else {
                    quote!(#rt::read_string(r, #b, #what))
                }
            }
            Shape::Seq { elem, bound } => {
                let b = opt_u32(*bound);
                let d = elem.dheader(rt);
                let min = elem.min_size(rt);
                let e = elem.dec(rt, what, key);
                quote!(#rt::read_seq(r, #b, #d, #min, #what, |r| #e))
            }
            Shape::Array { elem, dims } => {
                let mut body = elem.dec(rt, what, key);
                for d in dims.iter().rev() {
                    body = quote!(#rt::try_array::<_, { #d }>(|| #body));
                }
                let d = elem.dheader(rt);
                quote!(#rt::read_array(r, #d, |r| #body))
            }
        }
    }

    /// The value a member takes when the sample does not carry it (appendable and mutable
    /// types, members outside a key holder): its `Default`.
    pub fn default_expr(&self) -> TokenStream {
        match self {
            Shape::Array { elem, dims } => {
                let mut e = elem.default_expr();
                for _ in dims {
                    e = quote!(::core::array::from_fn(|_| #e));
                }
                e
            }
            Shape::Leaf(t) => {
                quote_spanned!(t.span()=> <#t as ::core::default::Default>::default())
            }
            _ => quote!(::core::default::Default::default()),
        }
    }
}

/// `Some(n)` / `None` as an `Option<u32>` expression.
pub fn opt_u32(v: Option<u32>) -> TokenStream {
    match v {
        Some(n) => quote!(::core::option::Option::Some(#n)),
        None => quote!(::core::option::Option::None),
    }
}
