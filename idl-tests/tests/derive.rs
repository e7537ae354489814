//! `#[derive(siftdds::TopicType)]` against the IDL generator: for random values of each
//! derived type in `idl_tests::derived`, the generated type of the same IDL (reached by
//! decoding the derived bytes) must give the same XCDR1 and XCDR2 payloads in both byte
//! orders, the same key holder, key hash and serialized keys, and each side must decode the
//! other's bytes. Covers final, appendable and mutable structs, keys (several, reordered by
//! id, nested struct keys, MD5 and raw hashes), optionals, bounded strings and sequences,
//! arrays, nested structs, enums, unions (final, appendable, mutable; with and without a
//! default case) and wide types.

use std::fmt::Debug;

use idl_tests::{derived as d, extra, keys, xv};
use proptest::prelude::*;
use siftdds::cdr::Endianness;
use siftdds::types::codec::{LongDouble, XcdrCodec, key_holder_be};
use siftdds::types::{TopicType, XcdrVersion};

const VERSIONS: [XcdrVersion; 2] = [XcdrVersion::Xcdr1, XcdrVersion::Xcdr2];
const ENDIANS: [Endianness; 2] = [Endianness::Big, Endianness::Little];

/// Compares derived value `v` with the generated type `G` holding the same value.
fn same<D, G>(v: &D) -> Result<(), TestCaseError>
where
    D: TopicType + XcdrCodec + PartialEq + Debug + Clone,
    G: TopicType + XcdrCodec + Debug,
{
    prop_assert_eq!(D::type_name(), G::type_name());
    prop_assert_eq!(D::is_keyed(), G::is_keyed());
    prop_assert_eq!(D::MIN_SIZE, G::MIN_SIZE);
    let first = v
        .serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
        .unwrap();
    let g = G::deserialize(&first).unwrap();
    for version in VERSIONS {
        for endian in ENDIANS {
            let ours = v.serialize_as(version, endian).unwrap();
            let theirs = g.serialize_as(version, endian).unwrap();
            prop_assert_eq!(&ours, &theirs, "{:?} {:?}", version, endian);
            prop_assert_eq!(D::deserialize(&theirs), Ok(v.clone()));
            prop_assert_eq!(
                v.serialize_key_as(version, endian),
                g.serialize_key_as(version, endian)
            );
        }
    }
    for endian in ENDIANS {
        prop_assert_eq!(v.serialize(endian), g.serialize(endian));
        prop_assert_eq!(v.serialize_key(endian), g.serialize_key(endian));
        if let Some(key) = v.serialize_key(endian) {
            prop_assert_eq!(D::key_hash_from_serialized_key(&key), v.key_hash());
            prop_assert_eq!(G::key_hash_from_serialized_key(&key), g.key_hash());
        }
    }
    prop_assert_eq!(key_holder_be(v).unwrap(), key_holder_be(&g).unwrap());
    prop_assert_eq!(v.key_hash(), g.key_hash());
    Ok(())
}

fn latin1() -> impl Strategy<Value = char> {
    (0x20u8..=0xFF).prop_map(char::from)
}

fn bmp() -> impl Strategy<Value = char> {
    prop::char::range('\u{20}', '\u{D7FF}')
}

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::string::string_regex(&format!("[a-zA-Z0-9 ]{{0,{max}}}")).unwrap()
}

fn f64s() -> impl Strategy<Value = f64> {
    -1e12f64..1e12
}

fn color() -> impl Strategy<Value = d::Color> {
    prop_oneof![
        Just(d::Color::Red),
        Just(d::Color::Green),
        Just(d::Color::Blue)
    ]
}

prop_compose! {
    fn prims()(id in any::<i32>(), b in any::<bool>(), o in any::<u8>(), c in latin1(),
               i8 in any::<i8>(), u8 in any::<u8>(), s in any::<i16>(), us in any::<u16>(),
               l in any::<i32>(), ul in any::<u32>(), ll in any::<i64>(), ull in any::<u64>(),
               f in -1e6f32..1e6, dd in f64s(), wc in bmp()) -> d::Prims {
        d::Prims { id, b, o, c, i8, u8, s, us, l, ul, ll, ull, f, d: dd, wc }
    }
}

prop_compose! {
    fn inner()(a in any::<i16>(), b in f64s()) -> d::Inner { d::Inner { a, b } }
}

prop_compose! {
    fn app_inner()(tag in any::<u8>(), name in text(12)) -> d::AppInner {
        d::AppInner { tag, name }
    }
}

prop_compose! {
    fn collections()(bs in text(8), us in text(20),
                     bytes in prop::collection::vec(any::<u8>(), 0..9),
                     longs in prop::collection::vec(any::<i32>(), 0..=4),
                     doubles in prop::collection::vec(f64s(), 0..=3),
                     strings in prop::collection::vec(text(5), 0..4),
                     inners in prop::collection::vec(inner(), 0..3),
                     apps in prop::collection::vec(app_inner(), 0..=2),
                     grid in any::<[[i16; 3]; 2]>(),
                     pair in [inner(), inner()],
                     names in [text(4), text(4)],
                     nested in prop::collection::vec(prop::collection::vec(any::<i16>(), 0..4), 0..4))
                     -> d::Collections {
        d::Collections { bs, us, bytes, longs, doubles, strings, inners, apps, grid, pair, names,
                         nested }
    }
}

prop_compose! {
    fn enums()(colors in prop::collection::vec(color(), 0..5), pair in [color(), color()],
               few in prop::collection::vec(color(), 0..=3)) -> d::Enums {
        d::Enums { colors, pair, few }
    }
}

prop_compose! {
    fn app_derived()(id in any::<i32>(), label in text(16), color in color(),
                     maybe in any::<Option<i32>>(), note in prop::option::of(text(6)),
                     inner in app_inner()) -> d::AppDerived {
        d::AppDerived { id, label, color, maybe, note, inner }
    }
}

prop_compose! {
    fn mutable()(id in any::<i32>(), name in text(10), value in prop::option::of(f64s()),
                 absent in any::<Option<i16>>(),
                 longs in prop::collection::vec(any::<i32>(), 0..4),
                 bytes in prop::collection::vec(any::<u8>(), 0..6),
                 lls in prop::collection::vec(any::<i64>(), 0..3),
                 shorts in prop::collection::vec(any::<i16>(), 0..4),
                 inner in inner(), app in app_inner(), color in color(), flag in any::<bool>(),
                 big in any::<i64>(), grid in any::<[[i16; 2]; 2]>(),
                 words in prop::collection::vec(text(3), 0..3), letter in latin1())
                 -> d::Mut {
        d::Mut { id, name, value, absent, longs, bytes, lls, shorts, inner, app, color, flag,
                 big, grid, words, letter }
    }
}

fn final_u() -> impl Strategy<Value = d::FinalU> {
    prop_oneof![
        any::<i32>().prop_map(d::FinalU::Number),
        (2i32..=3, text(6)).prop_map(|(k, s)| d::FinalU::Text(k, s)),
        ((4i32..1000).prop_union(-1000i32..1), f64s()).prop_map(|(k, x)| d::FinalU::Other(k, x)),
    ]
}

fn app_u() -> impl Strategy<Value = d::AppU> {
    prop_oneof![
        any::<u8>().prop_map(d::AppU::Small),
        inner().prop_map(d::AppU::Inner),
        text(6).prop_map(|s| d::AppU::Other(d::Color::Blue, s)),
    ]
}

fn short_u() -> impl Strategy<Value = d::ShortU> {
    prop_oneof![
        any::<i16>().prop_map(d::ShortU::A),
        any::<i64>().prop_map(d::ShortU::B),
        (3i16..100).prop_map(d::ShortU::NoMember),
    ]
}

fn mut_u() -> impl Strategy<Value = d::MutU> {
    prop_oneof![
        text(6).prop_map(d::MutU::S),
        (2i16..=3, any::<i32>()).prop_map(|(k, x)| d::MutU::L(k, x)),
        (4i16..100, any::<u8>()).prop_map(|(k, x)| d::MutU::O(k, x)),
    ]
}

prop_compose! {
    fn with_unions()(k in any::<i16>(), f in final_u(), a in app_u(), s in short_u())
                     -> d::WithUnions {
        d::WithUnions { k, f, a, s }
    }
}

prop_compose! {
    fn with_mut_u()(id in any::<i32>(), u in mut_u(), maybe in prop::option::of(mut_u()),
                    ws in prop::collection::vec(bmp(), 0..=4), ld in any::<u128>(), wc in bmp(),
                    wcs in prop::collection::vec(bmp(), 0..=3)) -> d::WithMutU {
        d::WithMutU { id, u, maybe, ws: ws.into_iter().collect(), ld: LongDouble(ld), wc, wcs }
    }
}

prop_compose! {
    fn shape()(color in text(128), x in any::<i32>(), y in any::<i32>(),
               shapesize in any::<i32>(),
               additional_payload_size in prop::collection::vec(any::<u8>(), 0..8))
               -> d::ShapeType {
        d::ShapeType { color, x, y, shapesize, additional_payload_size }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn final_structs_of_primitives_with_a_key(v in prims()) {
        same::<_, xv::Prims>(&v)?;
    }

    #[test]
    fn nested_structs(v in inner(), w in app_inner()) {
        same::<_, xv::Inner>(&v)?;
        same::<_, xv::AppInner>(&w)?;
    }

    #[test]
    fn bounded_and_unbounded_strings_sequences_and_arrays(v in collections()) {
        same::<_, xv::Collections>(&v)?;
    }

    #[test]
    fn enums_alone_and_in_collections(v in enums()) {
        same::<_, xv::Enums>(&v)?;
    }

    #[test]
    fn appendable_with_optionals(v in app_derived()) {
        same::<_, xv::AppDerived>(&v)?;
    }

    #[test]
    fn mutable_with_ids_and_optionals(v in mutable()) {
        same::<_, xv::Mut>(&v)?;
    }

    #[test]
    fn derived_aggregates_of_generated_members(v in mutable()) {
        let mixed = d::MixedMut {
            id: v.id, name: v.name, value: v.value, absent: v.absent, longs: v.longs,
            bytes: v.bytes, lls: v.lls, shorts: v.shorts,
            inner: xv::Inner { a: v.inner.a, b: v.inner.b },
            app: xv::AppInner { tag: v.app.tag, name: v.app.name },
            color: match v.color {
                d::Color::Red => xv::Color::Red,
                d::Color::Green => xv::Color::Green,
                d::Color::Blue => xv::Color::Blue,
            },
            flag: v.flag, big: v.big, grid: v.grid, words: v.words, letter: v.letter,
        };
        same::<_, xv::Mut>(&mixed)?;
    }

    #[test]
    fn mutable_with_hashed_ids(alpha in any::<i32>(), beta in text(8)) {
        same::<_, xv::Hashed>(&d::Hashed { alpha, beta })?;
    }

    #[test]
    fn final_and_appendable_unions(v in with_unions()) {
        same::<_, xv::WithUnions>(&v)?;
    }

    #[test]
    fn mutable_unions_and_wide_types(v in with_mut_u()) {
        same::<_, extra::WithMutU>(&v)?;
    }

    #[test]
    fn several_keys_and_nested_keys(id in any::<u64>(), tag in latin1(), value in any::<i32>(),
                                    n in inner(), v in any::<i32>()) {
        same::<_, xv::KeyedFinal>(&d::KeyedFinal { id, tag, value })?;
        same::<_, xv::NestedKey>(&d::NestedKey { r#where: n.clone(), v })?;
        let generated = xv::Inner { a: n.a, b: n.b };
        same::<_, xv::NestedKey>(&d::MixedKey { r#where: generated, v })?;
    }

    #[test]
    fn md5_keys_and_keys_reordered_by_id(color in text(12), id in any::<i64>(),
                                         x in any::<i32>(), late in any::<i32>(),
                                         early in any::<i16>(), t in text(6)) {
        same::<_, keys::SpecExample>(&d::SpecExample { color, id, x })?;
        same::<_, keys::Reordered>(&d::Reordered { late, early, text: t })?;
    }

    #[test]
    fn shape_type(v in shape()) {
        same::<_, idl_tests::ShapeType>(&v)?;
        // And the hand-written ShapeType of the library.
        let lib = siftdds::types::ShapeType::deserialize(&v.serialize(Endianness::Little)).unwrap();
        prop_assert_eq!(lib.key_hash(), v.key_hash());
        for e in ENDIANS {
            prop_assert_eq!(lib.serialize_as(XcdrVersion::Xcdr2, e), v.serialize_as(XcdrVersion::Xcdr2, e));
        }
    }
}

/// The key hash decision (RTPS 2.5 §9.6.4.8) the derived types make from their `KEY_END`:
/// the bytes when the key holder can never pass 16 bytes, otherwise MD5 (`None`). The
/// generated struct's bound is the generator's own computation.
#[test]
fn key_holder_bounds_match_the_generator() {
    assert_eq!(<d::Prims as XcdrCodec>::KEY_END.at(0), Some(4));
    assert_eq!(<d::KeyedFinal as XcdrCodec>::KEY_END.at(0), Some(9));
    assert_eq!(<d::NestedKey as XcdrCodec>::KEY_END.at(0), Some(12));
    assert_eq!(<d::MixedKey as XcdrCodec>::KEY_END.at(0), Some(12));
    assert_eq!(<xv::NestedKey as XcdrCodec>::KEY_END.at(0), Some(12));
    assert_eq!(<d::SpecExample as XcdrCodec>::KEY_END.at(0), None);
    assert_eq!(<d::ShapeType as XcdrCodec>::KEY_END.at(0), None);
    assert_eq!(<d::Reordered as XcdrCodec>::KEY_END.at(0), Some(8));
    // From every start offset, each derived type's bound is the generated type's.
    fn same_end<D: XcdrCodec, G: XcdrCodec>() {
        assert_eq!(D::KEY_END, G::KEY_END, "{}", std::any::type_name::<D>());
    }
    same_end::<d::Prims, xv::Prims>();
    same_end::<d::Inner, xv::Inner>();
    same_end::<d::AppInner, xv::AppInner>();
    same_end::<d::Collections, xv::Collections>();
    same_end::<d::Enums, xv::Enums>();
    same_end::<d::AppDerived, xv::AppDerived>();
    same_end::<d::Mut, xv::Mut>();
    same_end::<d::MixedMut, xv::Mut>();
    same_end::<d::Hashed, xv::Hashed>();
    same_end::<d::WithUnions, xv::WithUnions>();
    same_end::<d::KeyedFinal, xv::KeyedFinal>();
    same_end::<d::NestedKey, xv::NestedKey>();
    same_end::<d::ShapeType, idl_tests::ShapeType>();
    same_end::<d::SpecExample, keys::SpecExample>();
    same_end::<d::Reordered, keys::Reordered>();
    same_end::<d::WithMutU, extra::WithMutU>();
    same_end::<d::Color, xv::Color>();
}

/// Bounds: a derived type refuses to encode past them and to decode past them.
#[test]
fn bounds_are_checked_on_encode_and_decode() {
    let mut v = d::Collections {
        bs: "123456789".into(),
        ..Default::default()
    };
    for version in VERSIONS {
        assert_eq!(v.serialize_as(version, Endianness::Little), None);
    }
    v.bs = "12345678".into();
    v.longs = vec![1, 2, 3, 4, 5];
    assert_eq!(v.serialize_as(XcdrVersion::Xcdr2, Endianness::Big), None);
    // Four longs decode; the same payload claiming five (the bytes are there: the empty
    // sequences after it) is over the bound of 4.
    v.longs = vec![1, 2, 3, 4];
    let mut bytes = v
        .serialize_as(XcdrVersion::Xcdr1, Endianness::Little)
        .unwrap();
    assert_eq!(d::Collections::deserialize(&bytes), Ok(v.clone()));
    let at = bytes
        .windows(4)
        .position(|w| w == [4, 0, 0, 0])
        .expect("the longs count");
    bytes[at] = 5;
    assert_eq!(
        d::Collections::deserialize(&bytes),
        Err(siftdds::cdr::CdrError::TooLarge("xv::Collections.longs"))
    );
}

/// A type that holds itself (through a sequence).
#[derive(siftdds::TopicType, Clone, Debug, Default, PartialEq)]
struct Node {
    label: String,
    children: Vec<Node>,
}

/// The descriptor content filters compile against: the generated one, for types whose
/// members all have a description; none for enums, unions and wide types (not described
/// yet) and for a type that holds itself (no finite descriptor).
#[test]
fn descriptors_equal_the_generated_ones() {
    // `u8` describes as uint8 where the IDL may say octet: the filters read both alike.
    fn same_descriptor<D: TopicType, G: TopicType>() {
        let ours = format!("{:?}", D::descriptor());
        let theirs = format!("{:?}", G::descriptor()).replace("Octet", "U8");
        assert_eq!(ours, theirs, "{}", D::type_name());
        assert!(D::descriptor().is_some(), "{}", D::type_name());
    }
    same_descriptor::<d::ShapeType, idl_tests::ShapeType>();
    same_descriptor::<d::Inner, xv::Inner>();
    same_descriptor::<d::AppInner, xv::AppInner>();
    same_descriptor::<d::KeyedFinal, xv::KeyedFinal>();
    same_descriptor::<d::NestedKey, xv::NestedKey>();
    same_descriptor::<d::Hashed, xv::Hashed>();
    same_descriptor::<d::SpecExample, keys::SpecExample>();
    same_descriptor::<d::Reordered, keys::Reordered>();
    same_descriptor::<d::Collections, xv::Collections>();
    assert_eq!(d::Prims::descriptor(), None);
    assert_eq!(d::Enums::descriptor(), None);
    assert_eq!(d::WithUnions::descriptor(), None);
    assert_eq!(Node::descriptor(), None);
    let node = Node {
        label: "root".into(),
        children: vec![Node::default()],
    };
    let bytes = node
        .serialize_as(XcdrVersion::Xcdr2, Endianness::Big)
        .unwrap();
    assert_eq!(Node::deserialize(&bytes), Ok(node));
}
