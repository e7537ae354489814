//! `#[derive(TopicType)]`: a Rust type becomes a DDS topic type (or a member of one) encoded
//! exactly as the code `siftdds::idl::codegen` generates for the same type written in IDL —
//! the same XCDR1 and XCDR2 bytes in both byte orders, the same key holder, key hash and
//! serialized key — because the derived impls call the same runtime helpers
//! (`siftdds::types::codec`) in the same order. Derived and generated types nest in each other.
//!
//! Must not: decide a wire rule (they live in `types::codec`); accept an attribute it does not
//! know, or a member type without an IDL meaning: each is a compile error at its span.
//!
//! Use it as `siftdds::TopicType`, which names both the trait and this derive (applications
//! do not depend on this crate directly). The attributes are listed in `docs/library.md`
//! ("Deriving a type").
//!
//! ```
//! use siftdds::TopicType;
//! use siftdds::cdr::Endianness;
//! use siftdds::types::XcdrVersion;
//!
//! #[derive(TopicType, Clone, Debug, Default, PartialEq)]
//! #[dds(extensibility = "final", type_name = "demo::Reading")]
//! struct Reading {
//!     #[key]
//!     sensor: u32,
//!     #[dds(bound = 16)]
//!     unit: String,
//!     value: Option<f64>,
//! }
//!
//! let r = Reading { sensor: 7, unit: "degC".into(), value: Some(21.5) };
//! let bytes = r.serialize_as(XcdrVersion::Xcdr2, Endianness::Little).unwrap();
//! assert_eq!(&bytes[..4], &[0x00, 0x07, 0x00, 0x00]); // CDR2_LE: a final type
//! assert_eq!(Reading::deserialize(&bytes), Ok(r.clone()));
//! // A 4-byte key holder is its own key hash (RTPS 2.5 §9.6.4.8).
//! assert_eq!(r.key_hash().unwrap()[..4], [0, 0, 0, 7]);
//! assert_eq!(Reading::type_name(), "demo::Reading");
//! ```

// The parse-path lints of the workspace are for what peers send; this crate reads the
// application's own source at compile time, where a panic is a compile error.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

mod attr;
mod enums;
mod member;
mod structs;

use proc_macro::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput, parse_macro_input};

/// Derives `siftdds::types::TopicType` (structs) and `siftdds::types::codec::XcdrCodec`
/// (structs, fieldless enums as IDL enums, enums with fields as IDL unions). See the crate
/// documentation and `docs/library.md` for the attributes.
#[proc_macro_derive(TopicType, attributes(key, dds))]
pub fn derive_topic_type(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(ts) => ts.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(input: &DeriveInput) -> syn::Result<proc_macro2::TokenStream> {
    if let Some(p) = input.generics.params.first() {
        return Err(syn::Error::new_spanned(
            p,
            "TopicType cannot be derived for a generic type: a topic type has one wire layout",
        ));
    }
    if let Some(w) = &input.generics.where_clause {
        return Err(syn::Error::new_spanned(
            w,
            "TopicType cannot be derived for a generic type: a topic type has one wire layout",
        ));
    }
    let c = attr::container(&input.attrs)?;
    let rt = match &c.krate {
        Some(p) => quote!(#p::types::codec),
        None => quote!(::siftdds::types::codec),
    };
    match &input.data {
        Data::Struct(s) => structs::derive(input, s, &c, &rt),
        Data::Enum(e) => enums::derive(input, e, &c, &rt),
        Data::Union(u) => Err(syn::Error::new(
            u.union_token.span,
            "a Rust `union` has no discriminator: write an IDL union as an enum with fields",
        )),
    }
}
