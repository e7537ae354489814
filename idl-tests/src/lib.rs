//! Rust types generated at build time from the IDL files in `idl/` (see build.rs), used by
//! the tests in `tests/` to check the generator end to end: round trips in every encoding,
//! key hashes, descriptors, and byte-for-byte agreement with Cyclone DDS (tests/data/xcdr).
#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

include!(concat!(env!("OUT_DIR"), "/idl_types.rs"));

pub mod derived;
