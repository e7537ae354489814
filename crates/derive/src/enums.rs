//! Rust enums. A fieldless enum is an IDL enum: an `int32` on the wire (the generator's only
//! bit bound, DDS-XTypes 1.3 §7.4.3.4.4), its discriminants as the enumerator values. An enum
//! with fields is an IDL union, in the generator's Rust form (`idl::codegen::unions`): a
//! variant with one label holds only its member; a variant with several labels, or the
//! `default` one, holds the discriminator first; a `default` variant holding only the
//! discriminator is the generator's `NoMember`. Cases are member ids 1, 2, … (the
//! discriminator is 0; DDS-XTypes 1.3 §7.2.2.4.4.4.6).
//!
//! Must not: accept a discriminator a variant does not own on encode (an error, as the
//! generated code), a variant without a label, two `default`s, or a discriminant that is not
//! an `int32` literal on an IDL enum.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{DataEnum, DeriveInput, Expr, Fields, Ident, Lit, Type, UnOp};

use crate::attr::{self, Container, Ext};
use crate::member::Shape;
use crate::structs::{assign_id, push};

/// The impls for an enum: an IDL enum when no variant has fields, otherwise a union.
pub fn derive(
    input: &DeriveInput,
    data: &DataEnum,
    c: &Container,
    rt: &TokenStream,
) -> syn::Result<TokenStream> {
    if data
        .variants
        .iter()
        .all(|v| matches!(v.fields, Fields::Unit))
    {
        idl_enum(input, data, c, rt)
    } else {
        union(input, data, c, rt)
    }
}

fn int_of(e: &Expr) -> Option<i128> {
    match e {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse::<i128>().ok(),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => int_of(&u.expr).map(|v| -v),
        Expr::Group(g) => int_of(&g.expr),
        Expr::Paren(p) => int_of(&p.expr),
        _ => None,
    }
}

fn idl_enum(
    input: &DeriveInput,
    data: &DataEnum,
    c: &Container,
    rt: &TokenStream,
) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let type_name = c.name_of(name);
    c.no_discriminator(name)?;
    for a in input.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let mut ok = true;
        a.parse_nested_meta(|meta| {
            ok &= meta.path.is_ident("i32");
            Ok(())
        })?;
        if !ok {
            return Err(syn::Error::new(
                a.span(),
                "an IDL enum is an int32 (@bit_bound(32)): use #[repr(i32)] or no repr",
            ));
        }
    }
    if data.variants.is_empty() {
        return Err(syn::Error::new(
            name.span(),
            "an IDL enum has at least one enumerator",
        ));
    }
    let mut next: i128 = 0;
    let mut values = Vec::new();
    let mut errors = None;
    for v in &data.variants {
        if let Err(e) = attr::field(&v.attrs).and_then(|a| {
            if a.key || !a.labels.is_empty() || a.default.is_some() || a.bound.is_some() {
                Err(syn::Error::new(
                    v.span(),
                    "enumerators take no dds attributes",
                ))
            } else {
                Ok(())
            }
        }) {
            push(&mut errors, e);
        }
        let value = match &v.discriminant {
            Some((_, e)) => match int_of(e) {
                Some(x) => x,
                None => {
                    push(
                        &mut errors,
                        syn::Error::new(e.span(), "an enumerator value is an integer literal"),
                    );
                    next
                }
            },
            None => next,
        };
        let Ok(value) = i32::try_from(value) else {
            push(
                &mut errors,
                syn::Error::new(
                    v.span(),
                    format!("enumerator value {value} does not fit int32"),
                ),
            );
            continue;
        };
        next = i128::from(value) + 1;
        values.push((v.ident.clone(), value));
    }
    if let Some(e) = errors {
        return Err(e);
    }
    let idents: Vec<&Ident> = values.iter().map(|(i, _)| i).collect();
    let vals: Vec<i32> = values.iter().map(|(_, v)| *v).collect();
    Ok(quote! {
        #[automatically_derived]
        impl #rt::XcdrCodec for #name {
            const MIN_SIZE: usize = 4;
            const LENGTH_CODE: #rt::LengthCode = #rt::LengthCode::Size4;
            const KEY_END: #rt::KeyEnd = #rt::KeyEnd::primitive(4);
            fn xcdr_write(&self, w: &mut #rt::CdrWriter<'_>) -> ::core::result::Result<(), #rt::CdrError> {
                let v: i32 = match self { #(Self::#idents => #vals,)* };
                #rt::XcdrCodec::xcdr_write(&v, w)
            }
            fn xcdr_read(r: &mut #rt::CdrReader<'_>) -> ::core::result::Result<Self, #rt::CdrError> {
                match <i32 as #rt::XcdrCodec>::xcdr_read(r)? {
                    #(#vals => Ok(Self::#idents),)*
                    _ => Err(#rt::CdrError::Invalid(#type_name)),
                }
            }
        }
    })
}

/// One union case.
struct Case {
    variant: Ident,
    /// `None`: the default case.
    labels: Option<Vec<Expr>>,
    /// The member (absent for the `NoMember` form), its id and shape.
    member: Option<(u32, Shape)>,
    /// Holds the discriminator first.
    carries: bool,
}

fn cases(data: &DataEnum, c: &Container) -> syn::Result<Vec<Case>> {
    let mut out: Vec<Case> = Vec::new();
    let mut errors = None;
    let mut next = 1u32;
    let mut default_seen = false;
    let mut ids: Vec<(u32, Ident)> = Vec::new();
    let mut seen_labels: Vec<String> = Vec::new();
    for v in &data.variants {
        let a = match attr::field(&v.attrs) {
            Ok(a) => a,
            Err(e) => {
                push(&mut errors, e);
                continue;
            }
        };
        if a.key {
            push(
                &mut errors,
                syn::Error::new(v.span(), "union cases cannot be keys"),
            );
        }
        let Fields::Unnamed(fields) = &v.fields else {
            push(
                &mut errors,
                syn::Error::new(
                    v.span(),
                    "a union variant holds its member (and the discriminator first when it \
                     has several labels or is the default): `V(T)` or `V(D, T)`",
                ),
            );
            continue;
        };
        let types: Vec<&Type> = fields.unnamed.iter().map(|f| &f.ty).collect();
        let is_default = a.default.is_some();
        if is_default && default_seen {
            push(
                &mut errors,
                syn::Error::new(v.ident.span(), "a union has at most one default case"),
            );
        }
        default_seen |= is_default;
        if a.labels.is_empty() && !is_default {
            push(
                &mut errors,
                syn::Error::new(
                    v.ident.span(),
                    "a union variant needs #[dds(discriminant = ...)] or #[dds(default)]",
                ),
            );
            continue;
        }
        if is_default && !a.labels.is_empty() {
            push(
                &mut errors,
                syn::Error::new(v.ident.span(), "the default case takes no discriminant"),
            );
        }
        for l in &a.labels {
            // Labels compare by their text: `1` and `0x1` are not caught here, the rest are.
            let text = quote!(#l).to_string();
            if seen_labels.contains(&text) {
                push(
                    &mut errors,
                    syn::Error::new(l.span(), format!("duplicate case label {text}")),
                );
            }
            seen_labels.push(text);
        }
        let carries = is_default || a.labels.len() > 1;
        let value_ty = match (carries, types.as_slice()) {
            (false, [t]) | (true, [_, t]) => Some(*t),
            (true, [_]) if is_default => None,
            _ => {
                let msg = if carries {
                    "this variant holds the discriminator, then its member: `V(D, T)`"
                } else {
                    "a variant with one discriminant holds only its member: `V(T)`"
                };
                push(&mut errors, syn::Error::new(fields.span(), msg));
                continue;
            }
        };
        let member = match value_ty {
            None => None,
            Some(t) => {
                let name = v.ident.unraw().to_string();
                let id = assign_id(&a.id, &name, c.autoid_hash, &mut next);
                if let Some((_, other)) = ids.iter().find(|(i, _)| *i == id) {
                    push(
                        &mut errors,
                        syn::Error::new(
                            v.ident.span(),
                            format!("member id {id} is already used by `{other}`"),
                        ),
                    );
                }
                ids.push((id, v.ident.clone()));
                match Shape::of(t, a.bound, a.wide) {
                    Ok(s) => Some((id, s)),
                    Err(e) => {
                        push(&mut errors, e);
                        continue;
                    }
                }
            }
        };
        out.push(Case {
            variant: v.ident.clone(),
            labels: (!is_default).then_some(a.labels),
            member,
            carries,
        });
    }
    match errors {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

fn union(
    input: &DeriveInput,
    data: &DataEnum,
    c: &Container,
    rt: &TokenStream,
) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let type_name = c.name_of(name);
    let d_ty: Type = c
        .discriminator
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(i32));
    let cases = cases(data, c)?;
    let explicit: Vec<&Expr> = cases
        .iter()
        .filter_map(|c| c.labels.as_ref())
        .flatten()
        .collect();
    let mutable = c.ext == Ext::Mutable;
    let bad_msg = format!("{type_name} discriminator");
    let bad = quote!(return Err(#rt::CdrError::Invalid(#bad_msg)));
    let what = type_name.as_str();

    // Encoding.
    let wrap = |disc: TokenStream, member: Option<&(u32, Shape)>| -> TokenStream {
        if mutable {
            let mut s = quote! {
                m.member(0, true, <#d_ty as #rt::XcdrCodec>::LENGTH_CODE, |w| <#d_ty as #rt::XcdrCodec>::xcdr_write(#disc, w))?;
            };
            if let Some((id, shape)) = member {
                let lc = shape.length_code(rt);
                let e = shape.enc(rt, &quote!(v), what, false);
                s.extend(quote!(m.member(#id, false, #lc, |w| #e)?;));
            }
            s
        } else {
            let mut s = quote!(<#d_ty as #rt::XcdrCodec>::xcdr_write(#disc, w)?;);
            if let Some((_, shape)) = member {
                let e = shape.enc(rt, &quote!(v), what, false);
                s.extend(quote!(#e?;));
            }
            s
        }
    };
    let mut arms = TokenStream::new();
    for case in &cases {
        let variant = &case.variant;
        let own_check = match &case.labels {
            None if explicit.is_empty() => quote!(),
            None => quote!(if matches!(d, #(#explicit)|*) { #bad }),
            Some(labels) => quote!(if !matches!(d, #(#labels)|*) { #bad }),
        };
        match (&case.member, case.carries) {
            (Some(m), true) => {
                let body = wrap(quote!(d), Some(m));
                arms.extend(quote!(Self::#variant(d, v) => { #own_check #body }));
            }
            (Some(m), false) => {
                let label = case.labels.as_ref().and_then(|l| l.first());
                let body = wrap(quote!(&disc), Some(m));
                arms.extend(quote!(Self::#variant(v) => { let disc: #d_ty = #label; #body }));
            }
            (None, _) => {
                let body = wrap(quote!(d), None);
                arms.extend(quote!(Self::#variant(d) => { #own_check #body }));
            }
        }
    }
    let body = quote!(match self { #arms } Ok(()));
    let write = match c.ext {
        Ext::Final => body,
        Ext::Appendable => quote!(#rt::write_appendable(w, |w| { #body })),
        Ext::Mutable => quote!(#rt::write_mutable(w, |m| { #body })),
    };

    // Decoding: the default arm last, whatever its place among the variants.
    let select = |value: &dyn Fn(usize, &Case) -> TokenStream| -> TokenStream {
        let mut explicit_arms = TokenStream::new();
        let mut default_arm = quote!(_ => #bad,);
        for (i, case) in cases.iter().enumerate() {
            let variant = &case.variant;
            let built = match (&case.member, case.carries) {
                (Some(_), true) => {
                    let v = value(i, case);
                    quote!(Self::#variant(d, #v))
                }
                (Some(_), false) => {
                    let v = value(i, case);
                    quote!(Self::#variant(#v))
                }
                (None, _) => quote!(Self::#variant(d)),
            };
            match &case.labels {
                Some(labels) => explicit_arms.extend(quote!(#(#labels)|* => #built,)),
                None => default_arm = quote!(_ => #built,),
            }
        }
        quote!(Ok(match d { #explicit_arms #default_arm }))
    };
    let read = if mutable {
        let vars: Vec<Ident> = (0..cases.len())
            .map(|i| Ident::new(&format!("c{i}"), Span::call_site()))
            .collect();
        let mut member_arms = TokenStream::new();
        for (case, var) in cases.iter().zip(&vars) {
            if let Some((id, shape)) = &case.member {
                let d = shape.dec(rt, what, false);
                member_arms.extend(quote!(#id => #var = ::core::option::Option::Some(#d?),));
            }
        }
        let missing = format!("{type_name} discriminator missing");
        let sel = select(&|i, case| {
            let var = &vars[i];
            let d = case.member.as_ref().map(|(_, s)| s.default_expr());
            quote!(#var.unwrap_or_else(|| #d))
        });
        quote! {
            let mut disc = ::core::option::Option::None;
            #(let mut #vars = ::core::option::Option::None;)*
            #rt::read_mutable(r, |id, r| {
                match id {
                    0 => disc = ::core::option::Option::Some(<#d_ty as #rt::XcdrCodec>::xcdr_read(r)?),
                    #member_arms
                    _ => return Ok(false),
                }
                Ok(true)
            })?;
            let d: #d_ty = disc.ok_or(#rt::CdrError::Invalid(#missing))?;
            #sel
        }
    } else {
        let sel = select(&|_, case| match &case.member {
            Some((_, shape)) => {
                let d = shape.dec(rt, what, false);
                quote!(#d?)
            }
            None => quote!(),
        });
        let body = quote!(let d: #d_ty = <#d_ty as #rt::XcdrCodec>::xcdr_read(r)?; #sel);
        match c.ext {
            Ext::Appendable => quote!(#rt::read_appendable(r, |r| { #body })),
            _ => body,
        }
    };
    let min = if mutable { 4usize } else { 1usize };
    Ok(quote! {
        #[automatically_derived]
        impl #rt::XcdrCodec for #name {
            const MIN_SIZE: usize = #min;
            #[allow(unreachable_patterns, clippy::manual_range_patterns, clippy::match_overlapping_arm)]
            fn xcdr_write(&self, w: &mut #rt::CdrWriter<'_>) -> ::core::result::Result<(), #rt::CdrError> {
                #write
            }
            #[allow(unreachable_patterns, clippy::manual_range_patterns, clippy::match_overlapping_arm)]
            fn xcdr_read(r: &mut #rt::CdrReader<'_>) -> ::core::result::Result<Self, #rt::CdrError> {
                #read
            }
        }
    })
}
