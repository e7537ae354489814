//! Byte-for-byte conformance with Cyclone DDS: every payload in tests/data/xcdr/vectors.txt
//! (written by scripts/gen-xcdr-vectors.py with the cyclonedds Python package) must equal what
//! the generated types produce for the same value, in XCDR1 and XCDR2, both byte orders, and
//! must decode to that value. Key holders and key hashes are compared too.
//!
//! One documented difference: Cyclone's Python serializer ends a payload right after the last
//! member, while we pad it to a multiple of 4 and put the pad count in the options' low bits
//! (DDS-XTypes 1.3 §7.6.3.1.2, as Cyclone's C core does). So a vector must equal our bytes
//! with our options set to 0 and our trailing padding removed, and the padding must be zeros.

use idl_tests::xv::{
    AppBase, AppDerived, AppInner, AppU, Collections, Color, Enums, FinalU, Hashed, Inner,
    KeyedFinal, Mut, NestedKey, Prims, ShortU, WithUnions,
};
use siftdds::cdr::Endianness;
use siftdds::types::codec::{XcdrCodec, key_holder_be};
use siftdds::types::{Extensibility, TopicType, XcdrVersion};

struct Vector {
    value: String,
    version: XcdrVersion,
    endian: Endianness,
    bytes: Vec<u8>,
}

struct KeyVector {
    value: String,
    holder: Vec<u8>,
    hash: Vec<u8>,
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn load() -> (Vec<Vector>, Vec<KeyVector>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/xcdr/vectors.txt"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let (mut data, mut keys) = (Vec::new(), Vec::new());
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let f: Vec<&str> = line.split(' ').collect();
        if f[0] == "key" {
            keys.push(KeyVector {
                value: f[1].into(),
                holder: hex(f[2]),
                hash: hex(f[3]),
            });
            continue;
        }
        let version = if f[1] == "xcdr1" {
            XcdrVersion::Xcdr1
        } else {
            XcdrVersion::Xcdr2
        };
        let endian = if f[2] == "be" {
            Endianness::Big
        } else {
            Endianness::Little
        };
        data.push(Vector {
            value: f[0].into(),
            version,
            endian,
            bytes: hex(f[3]),
        });
    }
    (data, keys)
}

/// The `prims` vector's value, for the generated and the derived type.
macro_rules! prims {
    ($($t:ident)::+) => {
        $($t)::+ {
            id: -7,
            b: true,
            o: 0xAB,
            c: 'z',
            i8: -5,
            u8: 250,
            s: -300,
            us: 60000,
            l: -70000,
            ul: 4_000_000_000,
            ll: -(1 << 40),
            ull: (1 << 63) + 5,
            f: 1.5,
            d: -2.25,
            wc: 'é',
        }
    };
}

/// The `mut` vector's value, for the generated and the derived type.
macro_rules! mutable {
    ($($t:ident)::+, $inner:expr, $app:expr, $color:expr) => {
        $($t)::+ {
            id: 11,
            name: "mutable".into(),
            value: Some(3.25),
            absent: None,
            longs: vec![1, 2],
            bytes: vec![7, 8, 9],
            lls: vec![-1, 1 << 33],
            shorts: vec![5, 6, 7],
            inner: $inner,
            app: $app,
            color: $color,
            flag: true,
            big: 1 << 50,
            grid: [[1, 2], [3, 4]],
            words: vec!["w1".into(), "w2".into()],
            letter: 'Q',
        }
    };
}

fn inner(a: i16, b: f64) -> Inner {
    Inner { a, b }
}

fn app(tag: u8, name: &str) -> AppInner {
    AppInner {
        tag,
        name: name.into(),
    }
}

fn collections() -> Collections {
    Collections {
        bs: "eight".into(),
        us: "unbounded".into(),
        bytes: vec![1, 2, 3],
        longs: vec![10, -20, 30],
        doubles: vec![0.5, 1e300],
        strings: vec!["a".into(), "bc".into(), "".into()],
        inners: vec![inner(1, 2.0), inner(-1, -0.5)],
        apps: vec![app(9, "nine")],
        grid: [[1, 2, 3], [4, 5, 6]],
        pair: [inner(7, 7.5), inner(8, 8.5)],
        names: ["x".into(), "yz".into()],
        nested: vec![vec![1], vec![], vec![2, 3]],
    }
}

fn with_unions(k: i16, f: FinalU, a: AppU, s: ShortU) -> WithUnions {
    WithUnions { k, f, a, s }
}

/// Checks one value against its vectors; returns how many payloads were compared. Appends our
/// payloads to `ours_out` as `<value> <hex>` lines, which `scripts/gen-xcdr-vectors.py --check`
/// decodes with Cyclone.
fn check<T: TopicType + XcdrCodec + PartialEq + std::fmt::Debug>(
    name: &str,
    value: &T,
    ext: Extensibility,
    vectors: &[Vector],
    keys: &[KeyVector],
    ours_out: &mut String,
) -> usize {
    let mine: Vec<&Vector> = vectors.iter().filter(|v| v.value == name).collect();
    assert_eq!(mine.len(), 4, "{name}: two versions x two byte orders");
    for v in &mine {
        let ours = value.serialize_as(v.version, v.endian).unwrap();
        ours_out.push_str(&format!("{name} {}\n", hex_of(&ours)));
        let what = format!("{name} {:?} {:?}", v.version, v.endian);
        let pad = usize::from(ours[3] & 3);
        assert!(ours.len() % 4 == 0, "{what}: our payload is padded to 4");
        assert!(
            ours[ours.len() - pad..].iter().all(|b| *b == 0),
            "{what}: zero padding"
        );
        let mut unpadded = ours[..ours.len() - pad].to_vec();
        unpadded[3] = 0;
        assert_eq!(
            hex_of(&unpadded),
            hex_of(&v.bytes),
            "{what}: bytes differ from Cyclone"
        );
        assert_eq!(
            T::deserialize(&v.bytes).as_ref(),
            Ok(value),
            "{what}: decoding Cyclone's"
        );
        assert_eq!(
            T::deserialize(&ours).as_ref(),
            Ok(value),
            "{what}: decoding ours"
        );
    }
    if let Some(k) = keys.iter().find(|k| k.value == name) {
        let holder = key_holder_be(value).unwrap();
        let hash = value.key_hash().unwrap();
        // Cyclone's serialized key, as a dispose payload (big-endian XCDR2 header of the
        // type's kind), maps to our key hash.
        let kind: u8 = match ext {
            Extensibility::Final => 0x06,
            Extensibility::Appendable => 0x08,
            Extensibility::Mutable => 0x0a,
        };
        let mut payload = vec![0, kind, 0, 0];
        payload.extend_from_slice(&k.holder);
        assert_eq!(
            T::key_hash_from_serialized_key(&payload),
            Some(hash),
            "{name}: from key"
        );
        let ours = value.serialize_key(Endianness::Little).unwrap();
        assert_eq!(
            T::key_hash_from_serialized_key(&ours),
            Some(hash),
            "{name}: our key"
        );
        match ext {
            // A final type's key holder is the same with or without XTypes headers.
            Extensibility::Final => {
                assert_eq!(hex_of(&holder), hex_of(&k.holder), "{name}: key holder");
                assert_eq!(hex_of(&hash), hex_of(&k.hash), "{name}: key hash");
            }
            // Cyclone's Python serializes the key of an appendable type with its DHEADER; the
            // RTPS 2.5 §9.6.4.8 key holder is final: the same bytes without that header.
            Extensibility::Appendable => {
                let len = u32::from_be_bytes(k.holder[..4].try_into().unwrap());
                assert_eq!(len as usize, k.holder.len() - 4, "{name}: DHEADER");
                assert_eq!(
                    hex_of(&holder),
                    hex_of(&k.holder[4..]),
                    "{name}: key holder"
                );
            }
            // Mutable with one key member: DHEADER + EMHEADER, then the member.
            _ => assert_eq!(
                hex_of(&holder),
                hex_of(&k.holder[8..]),
                "{name}: key holder"
            ),
        }
    } else {
        assert!(!T::is_keyed(), "{name}: keyed types have a key vector");
    }
    mine.len()
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn every_vector_matches_cyclone_byte_for_byte_and_decodes() {
    let (v, k) = load();
    let mut ours = String::new();
    let mut n = 0;
    n += check(
        "prims",
        &prims!(Prims),
        Prims::EXTENSIBILITY,
        &v,
        &k,
        &mut ours,
    );
    n += check(
        "collections",
        &collections(),
        Collections::EXTENSIBILITY,
        &v,
        &k,
        &mut ours,
    );
    let empty = Collections {
        bs: String::new(),
        us: String::new(),
        bytes: vec![],
        longs: vec![],
        doubles: vec![],
        strings: vec![],
        inners: vec![],
        apps: vec![],
        grid: [[0; 3]; 2],
        pair: [inner(0, 0.0), inner(0, 0.0)],
        names: [String::new(), String::new()],
        nested: vec![],
    };
    n += check(
        "collections_empty",
        &empty,
        Collections::EXTENSIBILITY,
        &v,
        &k,
        &mut ours,
    );
    let enums = Enums {
        colors: vec![Color::Blue, Color::Red],
        pair: [Color::Green, Color::Blue],
        few: vec![Color::Green],
    };
    n += check("enums", &enums, Enums::EXTENSIBILITY, &v, &k, &mut ours);
    let derived = AppDerived {
        id: 42,
        label: "base".into(),
        color: Color::Blue,
        maybe: Some(-1),
        note: Some("hi".into()),
        inner: app(1, "in"),
    };
    n += check(
        "app_derived",
        &derived,
        AppDerived::EXTENSIBILITY,
        &v,
        &k,
        &mut ours,
    );
    let absent = AppDerived {
        id: 43,
        label: String::new(),
        color: Color::Green,
        maybe: None,
        note: None,
        inner: app(2, ""),
    };
    n += check(
        "app_derived_absent",
        &absent,
        AppDerived::EXTENSIBILITY,
        &v,
        &k,
        &mut ours,
    );
    let m = mutable!(Mut, inner(3, 4.5), app(5, "app"), Color::Blue);
    n += check("mut", &m, Mut::EXTENSIBILITY, &v, &k, &mut ours);
    n += check(
        "hashed",
        &Hashed {
            alpha: 5,
            beta: "hash".into(),
        },
        Hashed::EXTENSIBILITY,
        &v,
        &k,
        &mut ours,
    );
    let u = with_unions(1, FinalU::Number(99), AppU::Small(3), ShortU::A(-2));
    n += check(
        "with_unions_number",
        &u,
        WithUnions::EXTENSIBILITY,
        &v,
        &k,
        &mut ours,
    );
    let u = with_unions(
        2,
        FinalU::Text(3, "three".into()),
        AppU::Inner(inner(4, 0.25)),
        ShortU::B(1 << 40),
    );
    n += check(
        "with_unions_text",
        &u,
        WithUnions::EXTENSIBILITY,
        &v,
        &k,
        &mut ours,
    );
    let u = with_unions(
        3,
        FinalU::Other(77, 6.5),
        AppU::Other(Color::Blue, "blue".into()),
        ShortU::NoMember(9),
    );
    n += check(
        "with_unions_default",
        &u,
        WithUnions::EXTENSIBILITY,
        &v,
        &k,
        &mut ours,
    );
    let kf = KeyedFinal {
        id: 0x0102_0304_0506_0708,
        tag: 'K',
        value: -1,
    };
    n += check(
        "keyed_final",
        &kf,
        KeyedFinal::EXTENSIBILITY,
        &v,
        &k,
        &mut ours,
    );
    n += check(
        "nested_key",
        &NestedKey {
            r#where: inner(2, 3.5),
            v: 6,
        },
        NestedKey::EXTENSIBILITY,
        &v,
        &k,
        &mut ours,
    );
    assert_eq!(n, v.len(), "every payload vector was compared");
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("xcdr-ours.txt");
    std::fs::write(path, ours).unwrap();
    let _ = AppBase::default();
}

/// The types written in Rust with `#[derive(TopicType)]` (`idl_tests::derived`) match
/// Cyclone's vectors as the generated ones do: primitives with a key, a mutable type with
/// member ids and optionals, hashed ids, and unions.
#[test]
fn derived_types_match_cyclone_byte_for_byte() {
    use idl_tests::derived as d;
    let (v, k) = load();
    let mut ours = String::new();
    let prims = prims!(d::Prims);
    let mut n = check("prims", &prims, Extensibility::Final, &v, &k, &mut ours);
    let m = mutable!(
        d::Mut,
        d::Inner { a: 3, b: 4.5 },
        d::AppInner {
            tag: 5,
            name: "app".into(),
        },
        d::Color::Blue
    );
    n += check("mut", &m, Extensibility::Mutable, &v, &k, &mut ours);
    let h = d::Hashed {
        alpha: 5,
        beta: "hash".into(),
    };
    n += check("hashed", &h, Extensibility::Mutable, &v, &k, &mut ours);
    let u = d::WithUnions {
        k: 3,
        f: d::FinalU::Other(77, 6.5),
        a: d::AppU::Other(d::Color::Blue, "blue".into()),
        s: d::ShortU::NoMember(9),
    };
    n += check(
        "with_unions_default",
        &u,
        Extensibility::Appendable,
        &v,
        &k,
        &mut ours,
    );
    let nk = d::NestedKey {
        r#where: d::Inner { a: 2, b: 3.5 },
        v: 6,
    };
    n += check("nested_key", &nk, Extensibility::Final, &v, &k, &mut ours);
    assert_eq!(n, 20);
}

/// The derived ShapeType against what Cyclone DDS writes: pip `cyclonedds` 11.0.1
/// `ShapeType.serialize(use_version_2=True)` for the 5-member type (plus the trailing padding
/// Cyclone's serdata adds, counted in the options), the vendors' 4-member XCDR1 and XCDR2
/// forms, Cyclone 0.10's XCDR2 serialized key (no DHEADER, docs/interop-facts.md §5.10) and
/// pip `cyclonedds`' (with one).
#[test]
fn derived_shape_type_reproduces_cyclone() {
    use idl_tests::derived::ShapeType;
    let red = ShapeType {
        color: "RED".into(),
        x: 10,
        y: 20,
        shapesize: 30,
        additional_payload_size: vec![1, 2],
    };
    let le = [
        0, 9, 0, 2, 26, 0, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0,
        0, 0, 2, 0, 0, 0, 1, 2, 0, 0,
    ];
    let be = [
        0, 8, 0, 2, 0, 0, 0, 26, 0, 0, 0, 4, b'R', b'E', b'D', 0, 0, 0, 0, 10, 0, 0, 0, 20, 0, 0,
        0, 30, 0, 0, 0, 2, 1, 2, 0, 0,
    ];
    assert_eq!(
        red.serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
            .unwrap(),
        le
    );
    assert_eq!(
        red.serialize_as(XcdrVersion::Xcdr2, Endianness::Big)
            .unwrap(),
        be
    );
    assert_eq!(ShapeType::deserialize(&le), Ok(red.clone()));
    assert_eq!(ShapeType::deserialize(&be), Ok(red.clone()));
    let four = ShapeType {
        additional_payload_size: vec![],
        ..red.clone()
    };
    let xcdr1 = [
        0, 1, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0,
    ];
    assert_eq!(ShapeType::deserialize(&xcdr1), Ok(four.clone()));
    let blue = ShapeType {
        color: "BLUE".into(),
        x: 1,
        y: 2,
        shapesize: 3,
        additional_payload_size: vec![],
    };
    let xcdr2_four = [
        0, 9, 0, 0, 24, 0, 0, 0, 5, 0, 0, 0, b'B', b'L', b'U', b'E', 0, 0, 0, 0, 1, 0, 0, 0, 2, 0,
        0, 0, 3, 0, 0, 0,
    ];
    assert_eq!(ShapeType::deserialize(&xcdr2_four), Ok(blue.clone()));
    let c_key = [0, 9, 0, 3, 5, 0, 0, 0, b'B', b'L', b'U', b'E', 0, 0, 0, 0];
    assert_eq!(
        blue.serialize_key_as(XcdrVersion::Xcdr2, Endianness::Little),
        Some(c_key.to_vec())
    );
    let py_key = [
        0, 9, 0, 0, 9, 0, 0, 0, 5, 0, 0, 0, b'B', b'L', b'U', b'E', 0,
    ];
    let hash = blue.key_hash().unwrap();
    assert_eq!(ShapeType::key_hash_from_serialized_key(&c_key), Some(hash));
    assert_eq!(ShapeType::key_hash_from_serialized_key(&py_key), Some(hash));
    // The library's hand-written ShapeType hashes the same key.
    let lib = siftdds::types::ShapeType {
        color: "BLUE".into(),
        ..Default::default()
    };
    assert_eq!(lib.key_hash(), Some(hash));
    assert_eq!(ShapeType::type_name(), "ShapeType");
}
