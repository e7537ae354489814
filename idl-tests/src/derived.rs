//! The types of `idl/xcdr_vectors.idl`, `idl/shape.idl`, `idl/keys.idl` and
//! `idl/codegen_extra.idl` written again in Rust with `#[derive(siftdds::TopicType)]`, for
//! `tests/derive.rs` (every encoding, key hash and serialized key equals the generated type's)
//! and `tests/vectors.rs` (the derived ShapeType against Cyclone's bytes). Each carries the
//! IDL type's name, so the two announce the same type.

use siftdds::TopicType;
use siftdds::types::codec::LongDouble;

/// `xv::Color`.
#[derive(TopicType, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(i32)]
pub enum Color {
    /// `RED`.
    #[default]
    Red,
    /// `GREEN`.
    Green,
    /// `@value(10) BLUE`.
    Blue = 10,
}

/// `xv::Prims`.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "final", type_name = "xv::Prims")]
pub struct Prims {
    #[key]
    pub id: i32,
    pub b: bool,
    pub o: u8,
    pub c: char,
    pub i8: i8,
    pub u8: u8,
    pub s: i16,
    pub us: u16,
    pub l: i32,
    pub ul: u32,
    pub ll: i64,
    pub ull: u64,
    pub f: f32,
    pub d: f64,
    #[dds(wide)]
    pub wc: char,
}

/// `xv::Inner`.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "final", type_name = "xv::Inner")]
pub struct Inner {
    pub a: i16,
    pub b: f64,
}

/// `xv::AppInner` (appendable: the default).
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(type_name = "xv::AppInner")]
pub struct AppInner {
    pub tag: u8,
    pub name: String,
}

/// `xv::Collections`.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "final", type_name = "xv::Collections")]
pub struct Collections {
    #[dds(bound = 8)]
    pub bs: String,
    pub us: String,
    pub bytes: Vec<u8>,
    #[dds(bound = 4)]
    pub longs: Vec<i32>,
    #[dds(bound = 3)]
    pub doubles: Vec<f64>,
    pub strings: Vec<String>,
    pub inners: Vec<Inner>,
    #[dds(bound = 2)]
    pub apps: Vec<AppInner>,
    pub grid: [[i16; 3]; 2],
    pub pair: [Inner; 2],
    pub names: [String; 2],
    pub nested: Vec<Vec<i16>>,
}

/// `xv::Enums`.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "final", type_name = "xv::Enums")]
pub struct Enums {
    pub colors: Vec<Color>,
    pub pair: [Color; 2],
    #[dds(bound = 3)]
    pub few: Vec<Color>,
}

/// `xv::AppDerived` (its base `xv::AppBase`'s members first, as XCDR serializes them).
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "appendable", type_name = "xv::AppDerived")]
pub struct AppDerived {
    #[key]
    pub id: i32,
    #[dds(bound = 16)]
    pub label: String,
    pub color: Color,
    pub maybe: Option<i32>,
    pub note: Option<String>,
    pub inner: AppInner,
}

/// `xv::Mut`, with the types of its struct and enum members as parameters.
macro_rules! mut_type {
    ($(#[$doc:meta])* $name:ident, $inner:ty, $app:ty, $color:ty) => {
        $(#[$doc])*
        #[derive(TopicType, Clone, Debug, Default, PartialEq)]
        #[dds(extensibility = "mutable", type_name = "xv::Mut")]
        pub struct $name {
            #[key]
            #[dds(id = 5)]
            pub id: i32,
            #[dds(id = 2)]
            pub name: String,
            #[dds(id = 7)]
            pub value: Option<f64>,
            #[dds(id = 9)]
            pub absent: Option<i16>,
            #[dds(id = 20)]
            pub longs: Vec<i32>,
            #[dds(id = 21)]
            pub bytes: Vec<u8>,
            #[dds(id = 22)]
            pub lls: Vec<i64>,
            #[dds(id = 23)]
            pub shorts: Vec<i16>,
            #[dds(id = 30)]
            pub inner: $inner,
            #[dds(id = 31)]
            pub app: $app,
            #[dds(id = 32)]
            pub color: $color,
            #[dds(id = 33)]
            pub flag: bool,
            #[dds(id = 34)]
            pub big: i64,
            #[dds(id = 35)]
            pub grid: [[i16; 2]; 2],
            #[dds(id = 36)]
            pub words: Vec<String>,
            #[dds(id = 37)]
            pub letter: char,
        }
    };
}

mut_type!(
    /// `xv::Mut`.
    Mut,
    Inner,
    AppInner,
    Color
);

mut_type!(
    /// `xv::Mut` again, with the generated `xv::Inner`, `xv::AppInner` and `xv::Color` as
    /// members: the generated types' length codes and bounds serve derived aggregates.
    MixedMut,
    crate::xv::Inner,
    crate::xv::AppInner,
    crate::xv::Color
);

/// `xv::Hashed`.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
// `crate` names the library where it is not `::siftdds` (here it is, spelled out).
#[dds(
    extensibility = "mutable",
    autoid = "hash",
    type_name = "xv::Hashed",
    crate = "::siftdds"
)]
pub struct Hashed {
    pub alpha: i32,
    pub beta: String,
}

/// `xv::FinalU`.
#[derive(TopicType, Clone, Debug, PartialEq)]
#[dds(extensibility = "final", type_name = "xv::FinalU")]
pub enum FinalU {
    #[dds(discriminant = 1)]
    Number(i32),
    #[dds(discriminant = 2, discriminant = 3)]
    Text(i32, String),
    #[dds(default)]
    Other(i32, f64),
}

impl Default for FinalU {
    fn default() -> Self {
        FinalU::Number(0)
    }
}

/// `xv::AppU`.
#[derive(TopicType, Clone, Debug, PartialEq)]
#[dds(discriminator = Color, type_name = "xv::AppU")]
pub enum AppU {
    #[dds(discriminant = Color::Red)]
    Small(u8),
    #[dds(discriminant = Color::Green)]
    Inner(Inner),
    #[dds(default)]
    Other(Color, String),
}

impl Default for AppU {
    fn default() -> Self {
        AppU::Small(0)
    }
}

/// `xv::ShortU`: no IDL default, so the default variant holds only the discriminator.
#[derive(TopicType, Clone, Debug, PartialEq)]
#[dds(extensibility = "final", discriminator = i16, type_name = "xv::ShortU")]
pub enum ShortU {
    #[dds(discriminant = 1)]
    A(i16),
    #[dds(discriminant = 2)]
    B(i64),
    #[dds(default)]
    NoMember(i16),
}

impl Default for ShortU {
    fn default() -> Self {
        ShortU::A(0)
    }
}

/// `xv::WithUnions`.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(type_name = "xv::WithUnions")]
pub struct WithUnions {
    #[key]
    pub k: i16,
    pub f: FinalU,
    pub a: AppU,
    pub s: ShortU,
}

/// `xv::KeyedFinal`.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "final", type_name = "xv::KeyedFinal")]
pub struct KeyedFinal {
    #[key]
    pub id: u64,
    #[key]
    pub tag: char,
    pub value: i32,
}

/// `xv::NestedKey`.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "final", type_name = "xv::NestedKey")]
pub struct NestedKey {
    #[key]
    pub r#where: Inner,
    pub v: i32,
}

/// `xv::NestedKey` again, its key member the generated `xv::Inner`: derived and generated
/// types nest in each other.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "final", type_name = "xv::NestedKey")]
pub struct MixedKey {
    #[key]
    pub r#where: crate::xv::Inner,
    pub v: i32,
}

/// `ShapeType`, the interoperability demo's type.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
pub struct ShapeType {
    #[key]
    #[dds(bound = 128)]
    pub color: String,
    pub x: i32,
    pub y: i32,
    pub shapesize: i32,
    pub additional_payload_size: Vec<u8>,
}

/// `keys::SpecExample`.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "final", type_name = "keys::SpecExample")]
pub struct SpecExample {
    #[key]
    #[dds(bound = 12)]
    pub color: String,
    #[key]
    pub id: i64,
    pub x: i32,
}

/// `keys::Reordered`.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "mutable", type_name = "keys::Reordered")]
pub struct Reordered {
    #[key]
    #[dds(id = 9)]
    pub late: i32,
    #[key]
    #[dds(id = 3)]
    pub early: i16,
    #[dds(id = 4)]
    pub text: String,
}

/// `extra::MutU`.
#[derive(TopicType, Clone, Debug, PartialEq)]
#[dds(extensibility = "mutable", discriminator = i16, type_name = "extra::MutU")]
pub enum MutU {
    #[dds(discriminant = 1)]
    S(String),
    #[dds(discriminant = 2, discriminant = 3)]
    L(i16, i32),
    #[dds(default)]
    O(i16, u8),
}

impl Default for MutU {
    fn default() -> Self {
        MutU::S(String::new())
    }
}

/// `extra::WithMutU`.
#[derive(TopicType, Clone, Debug, Default, PartialEq)]
#[dds(extensibility = "mutable", type_name = "extra::WithMutU")]
pub struct WithMutU {
    #[key]
    pub id: i32,
    pub u: MutU,
    pub maybe: Option<MutU>,
    #[dds(bound = 4, wide)]
    pub ws: String,
    pub ld: LongDouble,
    #[dds(wide)]
    pub wc: char,
    #[dds(bound = 3, wide)]
    pub wcs: Vec<char>,
}
