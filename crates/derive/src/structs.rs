//! Structs: the `XcdrCodec` impl (final, appendable and mutable, XCDR1 and XCDR2, the key
//! holder, the descriptor) and the `TopicType` impl, the same calls into `types::codec` in the same order as
//! `idl::codegen::structs` generates for the same IDL struct, so both produce the same bytes.
//!
//! Must not: write a wire rule of its own; accept duplicate member ids or a `#[key]` on an
//! `Option` (IDL forbids an optional key).
//!
//! DDS-XTypes 1.3 §7.4.3.5 (XCDR2: final = plain, appendable = DHEADER, mutable = DHEADER +
//! EMHEADERs), §7.4.1.2 / §7.4.3.5.3 (XCDR1 PL_CDR for mutable types and optionals); RTPS 2.5
//! §9.6.4.8 (key holder and key hash).

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{DataStruct, DeriveInput, Fields, Ident};

use crate::attr::{self, Container, Ext, IdRule};
use crate::member::{Shape, generic_arg};

/// One member, resolved.
struct Member {
    ident: Ident,
    id: u32,
    key: bool,
    optional: bool,
    shape: Shape,
    what: String,
}

/// Assigns member ids as `idl::resolve` does: `id = N`, else `hashid`, else the hash under
/// `autoid = "hash"`, else the previous id + 1; the next automatic id follows the last.
pub fn assign_id(rule: &IdRule, name: &str, autoid_hash: bool, next: &mut u32) -> u32 {
    let id = match rule {
        IdRule::Fixed(n) => *n,
        IdRule::Hash(Some(s)) => attr::hash_id(s),
        IdRule::Hash(None) => attr::hash_id(name),
        IdRule::Auto if autoid_hash => attr::hash_id(name),
        IdRule::Auto => *next,
    };
    *next = id.saturating_add(1);
    id
}

fn members(
    data: &DataStruct,
    c: &Container,
    type_name: &str,
    errors: &mut Option<syn::Error>,
) -> Vec<Member> {
    let fields = match &data.fields {
        Fields::Named(n) => n.named.iter().collect::<Vec<_>>(),
        Fields::Unit => Vec::new(),
        Fields::Unnamed(u) => {
            push(
                errors,
                syn::Error::new(u.span(), "a TopicType struct has named members"),
            );
            return Vec::new();
        }
    };
    let mut out: Vec<Member> = Vec::new();
    let mut next = 0u32;
    for f in fields {
        let Some(ident) = f.ident.clone() else {
            continue;
        };
        let name = ident.unraw().to_string();
        let a = match attr::field(&f.attrs) {
            Ok(a) => a,
            Err(e) => {
                push(errors, e);
                continue;
            }
        };
        if !a.labels.is_empty() || a.default.is_some() {
            push(
                errors,
                syn::Error::new(
                    f.span(),
                    "`discriminant` and `default` belong on union variants",
                ),
            );
        }
        let inner = generic_arg(&f.ty, "Option");
        if a.key && inner.is_some() {
            push(
                errors,
                syn::Error::new(
                    f.ty.span(),
                    "a #[key] member cannot be an Option (@optional)",
                ),
            );
        }
        let shape = match Shape::of(inner.unwrap_or(&f.ty), a.bound, a.wide) {
            Ok(s) => s,
            Err(e) => {
                push(errors, e);
                continue;
            }
        };
        let id = assign_id(&a.id, &name, c.autoid_hash, &mut next);
        if let Some(other) = out.iter().find(|m| m.id == id) {
            push(
                errors,
                syn::Error::new(
                    ident.span(),
                    format!("member id {id} is already used by `{}`", other.ident),
                ),
            );
        }
        out.push(Member {
            ident,
            id,
            key: a.key,
            optional: inner.is_some(),
            shape,
            what: format!("{type_name}.{name}"),
        });
    }
    out
}

/// Adds `e` to the errors reported together.
pub fn push(errors: &mut Option<syn::Error>, e: syn::Error) {
    match errors {
        Some(all) => all.combine(e),
        None => *errors = Some(e),
    }
}

/// The impls for a struct.
pub fn derive(
    input: &DeriveInput,
    data: &DataStruct,
    c: &Container,
    rt: &TokenStream,
) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let type_name = c.name_of(name);
    c.no_discriminator(name)?;
    let mut errors = None;
    let members = members(data, c, &type_name, &mut errors);
    if let Some(e) = errors {
        return Err(e);
    }
    let ext = ext_tokens(c.ext, rt);

    let min: Vec<TokenStream> = match c.ext {
        Ext::Mutable => vec![quote!(4usize)],
        _ => members
            .iter()
            .map(|m| {
                if m.optional {
                    quote!(1usize)
                } else {
                    m.shape.min_size(rt)
                }
            })
            .collect(),
    };
    let write = write_fn(c.ext, &members, rt);
    let read = read_fn(c.ext, &members, rt);
    let (key_write, key_read, key_end) = key_fns(&members, rt);
    let keyed = members.iter().any(|m| m.key);
    let keyed_fns = if keyed {
        quote! {
            fn key_hash(&self) -> ::core::option::Option<[u8; 16]> {
                #rt::key_hash(self, <Self as #rt::XcdrCodec>::KEY_END.at(0)).ok()
            }
            fn serialize_key(&self, endian: #rt::Endianness) -> ::core::option::Option<::std::vec::Vec<u8>> {
                #rt::serialize_key(self, endian).ok()
            }
            fn serialize_key_as(
                &self,
                version: #rt::XcdrVersion,
                endian: #rt::Endianness,
            ) -> ::core::option::Option<::std::vec::Vec<u8>> {
                #rt::serialize_key_as(self, #ext, version, endian).ok()
            }
            fn key_hash_from_serialized_key(data: &[u8]) -> ::core::option::Option<[u8; 16]> {
                #rt::key_hash_from_serialized_key::<Self>(data, <Self as #rt::XcdrCodec>::KEY_END.at(0))
            }
        }
    } else {
        quote! {
            fn key_hash(&self) -> ::core::option::Option<[u8; 16]> { ::core::option::Option::None }
        }
    };
    let described = members.iter().map(|m| {
        let member_name = m.ident.unraw().to_string();
        let id = m.id;
        let kind = m.shape.kind(rt);
        let (key, optional) = (m.key, m.optional);
        quote!(#rt::Member {
            name: ::std::string::String::from(#member_name),
            id: #id,
            kind: #kind?,
            key: #key,
            optional: #optional,
        })
    });
    Ok(quote! {
        #[automatically_derived]
        impl #rt::XcdrCodec for #name {
            const MIN_SIZE: usize = 0usize #(+ #min)*;
            const KEY_END: #rt::KeyEnd = #key_end;
            fn type_kind(depth: usize) -> ::core::option::Option<#rt::TypeKind> {
                if depth > #rt::MAX_DESCRIBED_DEPTH {
                    return ::core::option::Option::None;
                }
                ::core::option::Option::Some(#rt::TypeKind::Struct(::std::boxed::Box::new(
                    #rt::TypeDescriptor {
                        name: ::std::string::String::from(#type_name),
                        extensibility: #ext,
                        members: ::std::vec![#(#described),*],
                    },
                )))
            }
            #write
            #read
            #key_write
            #key_read
        }

        #[automatically_derived]
        impl #rt::TopicType for #name {
            fn type_name() -> &'static str { #type_name }
            fn is_keyed() -> bool { #keyed }
            fn serialize(&self, endian: #rt::Endianness) -> ::std::vec::Vec<u8> {
                #rt::serialize_or_empty(self, #ext, endian)
            }
            fn serialize_as(
                &self,
                version: #rt::XcdrVersion,
                endian: #rt::Endianness,
            ) -> ::core::option::Option<::std::vec::Vec<u8>> {
                #rt::serialize(self, #ext, version, endian).ok()
            }
            fn supports(_version: #rt::XcdrVersion) -> bool { true }
            fn deserialize(data: &[u8]) -> ::core::result::Result<Self, #rt::CdrError> {
                #rt::deserialize(data)
            }
            #keyed_fns
            fn descriptor() -> ::core::option::Option<&'static #rt::TypeDescriptor> {
                static DESCRIPTOR: ::std::sync::OnceLock<::core::option::Option<#rt::TypeDescriptor>> =
                    ::std::sync::OnceLock::new();
                DESCRIPTOR
                    .get_or_init(|| match <Self as #rt::XcdrCodec>::type_kind(0) {
                        ::core::option::Option::Some(#rt::TypeKind::Struct(d)) => {
                            ::core::option::Option::Some(*d)
                        }
                        _ => ::core::option::Option::None,
                    })
                    .as_ref()
            }
        }
    })
}

/// The `Extensibility` value.
pub fn ext_tokens(e: Ext, rt: &TokenStream) -> TokenStream {
    match e {
        Ext::Final => quote!(#rt::Extensibility::Final),
        Ext::Appendable => quote!(#rt::Extensibility::Appendable),
        Ext::Mutable => quote!(#rt::Extensibility::Mutable),
    }
}

fn write_fn(ext: Ext, members: &[Member], rt: &TokenStream) -> TokenStream {
    let mut body = TokenStream::new();
    for m in members {
        let ident = &m.ident;
        let field = quote!(&self.#ident);
        let what = m.what.as_str();
        let id = m.id;
        if ext == Ext::Mutable {
            let lc = m.shape.length_code(rt);
            if m.optional {
                let e = m.shape.enc(rt, &quote!(v), what, false);
                body.extend(quote! {
                    if let ::core::option::Option::Some(v) = #field {
                        m.member(#id, false, #lc, |w| #e)?;
                    }
                });
            } else {
                let e = m.shape.enc(rt, &field, what, false);
                body.extend(quote!(m.member(#id, false, #lc, |w| #e)?;));
            }
        } else if m.optional {
            let e = m.shape.enc(rt, &quote!(v), what, false);
            body.extend(quote!(#rt::write_optional(w, #id, self.#ident.as_ref(), |w, v| #e)?;));
        } else {
            let e = m.shape.enc(rt, &field, what, false);
            body.extend(quote!(#e?;));
        }
    }
    let inner = match ext {
        Ext::Final if members.is_empty() => quote!(let _ = w; Ok(())),
        Ext::Final => quote!(#body Ok(())),
        Ext::Appendable if members.is_empty() => quote!(#rt::write_appendable(w, |_| Ok(()))),
        Ext::Appendable => quote!(#rt::write_appendable(w, |w| { #body Ok(()) })),
        Ext::Mutable => quote!(#rt::write_mutable(w, |m| { #body Ok(()) })),
    };
    quote! {
        fn xcdr_write(&self, w: &mut #rt::CdrWriter<'_>) -> ::core::result::Result<(), #rt::CdrError> {
            #inner
        }
    }
}

fn read_fn(ext: Ext, members: &[Member], rt: &TokenStream) -> TokenStream {
    let value = |m: &Member| {
        let d = m.shape.dec(rt, &m.what, false);
        if m.optional {
            quote!(#rt::read_optional(r, |r| #d)?)
        } else {
            quote!(#d?)
        }
    };
    let idents: Vec<&Ident> = members.iter().map(|m| &m.ident).collect();
    let inner = match ext {
        Ext::Final => {
            let values = members.iter().map(value);
            let unused = members.is_empty().then(|| quote!(let _ = r;));
            quote!(#unused Ok(Self { #(#idents: #values,)* }))
        }
        Ext::Appendable if members.is_empty() => quote!(#rt::read_appendable(r, |_| Ok(Self {}))),
        Ext::Appendable => {
            // Members a shorter (older) version of the type does not send take defaults.
            let values = members.iter().map(|m| {
                let absent = if m.optional {
                    quote!(::core::option::Option::None)
                } else {
                    m.shape.default_expr()
                };
                let v = value(m);
                quote!(if r.is_empty() { #absent } else { #v })
            });
            quote!(#rt::read_appendable(r, |r| Ok(Self { #(#idents: #values,)* })))
        }
        Ext::Mutable => {
            let vars: Vec<Ident> = (0..members.len())
                .map(|i| Ident::new(&format!("m{i}"), proc_macro2::Span::call_site()))
                .collect();
            let arms = members.iter().zip(&vars).map(|(m, v)| {
                let id = m.id;
                let d = m.shape.dec(rt, &m.what, false);
                quote!(#id => #v = ::core::option::Option::Some(#d?),)
            });
            let values = members.iter().zip(&vars).map(|(m, v)| {
                if m.optional {
                    quote!(#v)
                } else {
                    let d = m.shape.default_expr();
                    quote!(#v.unwrap_or_else(|| #d))
                }
            });
            quote! {
                #(let mut #vars = ::core::option::Option::None;)*
                #rt::read_mutable(r, |id, r| {
                    match id {
                        #(#arms)*
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                Ok(Self { #(#idents: #values,)* })
            }
        }
    };
    quote! {
        fn xcdr_read(r: &mut #rt::CdrReader<'_>) -> ::core::result::Result<Self, #rt::CdrError> {
            #inner
        }
    }
}

/// The key holder: key members (all members when none is a key) in member id order, as a
/// final type. RTPS 2.5 §9.6.4.8, DDS-XTypes 1.3 §7.6.8.
fn key_fns(members: &[Member], rt: &TokenStream) -> (TokenStream, TokenStream, TokenStream) {
    let mut keys: Vec<&Member> = if members.iter().any(|m| m.key) {
        members.iter().filter(|m| m.key).collect()
    } else {
        members.iter().collect()
    };
    keys.sort_by_key(|m| m.id);
    let mut writes = TokenStream::new();
    let mut ends = Vec::new();
    for m in &keys {
        let ident = &m.ident;
        let what = m.ident.unraw().to_string();
        let id = m.id;
        let end = m.shape.key_end(rt);
        if m.optional {
            let e = m.shape.enc(rt, &quote!(v), &what, true);
            writes.extend(quote!(#rt::write_optional(w, #id, self.#ident.as_ref(), |w, v| #e)?;));
            ends.push(quote!((#end).optional()));
        } else {
            let e = m.shape.enc(rt, &quote!(&self.#ident), &what, true);
            writes.extend(quote!(#e?;));
            ends.push(end);
        }
    }
    let w = if keys.is_empty() {
        quote!(_w)
    } else {
        quote!(w)
    };
    let write = quote! {
        fn xcdr_write_key(&self, #w: &mut #rt::CdrWriter<'_>) -> ::core::result::Result<(), #rt::CdrError> {
            #writes
            Ok(())
        }
    };
    // Fields are evaluated in the order written: the holder's order, then the rest.
    let key_fields = keys.iter().map(|m| {
        let ident = &m.ident;
        let what = m.ident.unraw().to_string();
        let d = m.shape.dec(rt, &what, true);
        if m.optional {
            quote!(#ident: #rt::read_optional(r, |r| #d)?,)
        } else {
            quote!(#ident: #d?,)
        }
    });
    let rest = members
        .iter()
        .filter(|m| !keys.iter().any(|k| k.ident == m.ident))
        .map(|m| {
            let ident = &m.ident;
            let d = if m.optional {
                quote!(::core::option::Option::None)
            } else {
                m.shape.default_expr()
            };
            quote!(#ident: #d,)
        });
    let r = if keys.is_empty() {
        quote!(_r)
    } else {
        quote!(r)
    };
    let read = quote! {
        fn xcdr_read_key(#r: &mut #rt::CdrReader<'_>) -> ::core::result::Result<Self, #rt::CdrError> {
            Ok(Self { #(#key_fields)* #(#rest)* })
        }
    };
    let end = quote!(#rt::KeyEnd::EMPTY #(.then(#ends))*);
    (write, read, end)
}
