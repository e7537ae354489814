//! The generated types of idl/test_types.idl and idl/keys.idl: round trips in XCDR1 and XCDR2,
//! both byte orders; bounds on encode and decode; truncated and hostile input; unknown members
//! of appendable and mutable types; key hashes; descriptors equal to the IDL layer's.

use std::path::PathBuf;

use idl_tests::corpus::{
    AllPrimitives, ByChar, Choice, Color, Derived, Empty, Hashed, Node, Wide, inner::Point,
};
use idl_tests::keys::{Reordered, SpecExample, Unkeyed};
use siftdds::cdr::Endianness;
use siftdds::types::codec::LongDouble;
use siftdds::types::{TopicType, XcdrVersion};

const ALL: [(XcdrVersion, Endianness); 4] = [
    (XcdrVersion::Xcdr1, Endianness::Big),
    (XcdrVersion::Xcdr1, Endianness::Little),
    (XcdrVersion::Xcdr2, Endianness::Big),
    (XcdrVersion::Xcdr2, Endianness::Little),
];

fn derived() -> Derived {
    Derived {
        source: 7,
        name: "header".into(),
        stamp: -1 << 40,
        color: Some(Color::Purple),
        with_default: 5,
        values: vec![1, 2, 3],
        nested: vec![vec![1, 2], vec![]],
        matrix: [[1, 2, 3], [4, 5, 6]],
        names: ["a".into(), "".into(), "ccc".into(), "dd".into()],
        cube: [[[1, 2], [3, 4]], [[5, 6], [7, 8]]],
        origin: Point { x: 1.5, y: -2.5 },
        choice: Choice::Where(Color::Purple, Point { x: 0.0, y: 9.0 }),
        unbounded: "x".repeat(100),
        bounded_pair: ["p".into(), "q".into()],
        annotated: -9,
        module: 3,
    }
}

/// Every encoding decodes back to the value. No prefix of it panics; in XCDR2 every prefix is
/// refused (in XCDR1 an appendable type cut after a member legitimately decodes with the
/// missing trailing members defaulted, as from an older version of the type).
fn round_trip<T: TopicType + PartialEq + std::fmt::Debug>(value: &T) {
    for (version, endian) in ALL {
        // A DataWriter naming this version in DATA_REPRESENTATION is accepted.
        assert!(T::supports(version), "{version:?}");
        let bytes = value.serialize_as(version, endian).unwrap();
        assert_eq!(
            T::deserialize(&bytes).as_ref(),
            Ok(value),
            "{version:?} {endian:?}"
        );
        let pad = usize::from(bytes[3] & 3);
        for cut in 0..bytes.len() - pad {
            let got = T::deserialize(&bytes[..cut]);
            if version == XcdrVersion::Xcdr2 {
                assert_ne!(got.as_ref(), Ok(value), "{version:?} {endian:?} cut {cut}");
            }
        }
    }
    assert_eq!(
        T::deserialize(&value.serialize(Endianness::Little)).as_ref(),
        Ok(value)
    );
}

#[test]
fn every_construct_round_trips_in_every_encoding() {
    round_trip(&derived());
    round_trip(&Derived {
        color: None,
        choice: Choice::Text("t".into()),
        ..derived()
    });
    round_trip(&Derived {
        choice: Choice::Number(Color::Green, -4),
        ..derived()
    });
    let all = AllPrimitives {
        id: 1,
        s: -2,
        us: 3,
        l: -4,
        ul: 5,
        ll: -6,
        ull: 7,
        i8: -8,
        u8: 9,
        i16: -10,
        u16: 11,
        i32: -12,
        u32: 13,
        i64: -14,
        u64: 15,
        f: 16.5,
        d: -17.25,
        c: 'c',
        b: true,
        o: 0xFF,
    };
    round_trip(&all);
    let wide = Wide {
        wc: 'Ω',
        ld: LongDouble(0x3FFF_8000_0000_0000_0000_0000_0000_0000),
        ws: "wide ☃".into(),
        bws: "five!".into(),
    };
    round_trip(&wide);
    round_trip(&Hashed {
        alpha: 1,
        beta: 2,
        gamma: 3,
        delta: 4,
    });
    let tree = Node {
        children: vec![
            Node {
                children: vec![Node::default()],
            },
            Node::default(),
        ],
    };
    round_trip(&tree);
    assert_eq!(
        Empty::deserialize(&Empty {}.serialize(Endianness::Big)),
        Ok(Empty {})
    );
}

#[test]
fn unions_keep_their_discriminator() {
    for (version, endian) in ALL {
        for u in [ByChar::A(7), ByChar::B('b', 1.0), ByChar::B('z', 2.0)] {
            let d = Derived {
                choice: Choice::Where(Color::Blue, Point::default()),
                ..derived()
            };
            assert!(
                d.serialize_as(version, endian).is_none(),
                "BLUE is Text's label"
            );
            let mut buf = Vec::new();
            let mut w = siftdds::cdr::CdrWriter::new(&mut buf, endian);
            w.set_xcdr(version);
            siftdds::types::codec::XcdrCodec::xcdr_write(&u, &mut w).unwrap();
            let mut r = siftdds::cdr::CdrReader::new(&buf, endian);
            r.set_xcdr(version);
            assert_eq!(
                <ByChar as siftdds::types::codec::XcdrCodec>::xcdr_read(&mut r),
                Ok(u)
            );
        }
    }
}

#[test]
fn bounds_are_checked_on_encode_and_decode() {
    let too_long = Derived {
        values: vec![0; 9],
        ..derived()
    };
    for (version, endian) in ALL {
        assert!(
            too_long.serialize_as(version, endian).is_none(),
            "sequence<long, 8>"
        );
    }
    // serialize() cannot fail: it sends a bare header that no reader accepts.
    let bare = too_long.serialize(Endianness::Little);
    assert_eq!(bare.len(), 4);
    assert!(Derived::deserialize(&bare).is_err());
    let long_name = Derived {
        name: "n".repeat(33),
        ..derived()
    };
    assert!(
        long_name
            .serialize_as(XcdrVersion::Xcdr2, Endianness::Big)
            .is_none()
    );
    // Decoding: a string over its bound (string<32> name; its length word follows the u32 source).
    let mut bytes = derived()
        .serialize_as(XcdrVersion::Xcdr1, Endianness::Big)
        .unwrap();
    bytes[8..12].copy_from_slice(&34u32.to_be_bytes());
    assert!(Derived::deserialize(&bytes).is_err());
    // A sequence count far beyond the payload is refused before allocating.
    let empty = Node::default()
        .serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
        .unwrap();
    let mut hostile = empty.clone();
    hostile[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(Node::deserialize(&hostile).is_err());
}

#[test]
fn unknown_members_are_skipped_unless_must_understand() {
    // AllPrimitives is @mutable; in XCDR2: encapsulation, DHEADER, then EMHEADER members.
    let all = AllPrimitives {
        id: 3,
        ..AllPrimitives::default()
    };
    let bytes = all
        .serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
        .unwrap();
    let splice = |flag: u32| {
        let mut out = bytes[..4].to_vec();
        let len = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) + 8;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(flag | 2 << 28 | 0x00AB_CDEF).to_le_bytes());
        out.extend_from_slice(&[1, 2, 3, 4]);
        out.extend_from_slice(&bytes[8..]);
        out
    };
    assert_eq!(AllPrimitives::deserialize(&splice(0)), Ok(all.clone()));
    assert!(AllPrimitives::deserialize(&splice(0x8000_0000)).is_err());
    // Appendable (XCDR2): bytes appended inside the DHEADER by a newer version are skipped.
    let w = Wide {
        ws: "a".into(),
        ..Wide::default()
    };
    let bytes = w.serialize_as(XcdrVersion::Xcdr2, Endianness::Big).unwrap();
    let body_len = u32::from_be_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let mut longer = bytes[..8 + body_len].to_vec();
    longer[4..8].copy_from_slice(&(body_len as u32 + 4).to_be_bytes());
    longer.extend_from_slice(&[9, 9, 9, 9]);
    assert_eq!(Wide::deserialize(&longer), Ok(w));
}

#[test]
fn key_hashes_follow_rtps_9_6_4_8() {
    let spec = SpecExample {
        color: "BLUE".into(),
        id: 0x1234_5678_9abc_def0,
        x: 1,
    };
    let want = [
        0xf9, 0x1a, 0x59, 0xe3, 0x2e, 0x45, 0x35, 0xd9, 0xa6, 0x9c, 0xd5, 0xd9, 0xf5, 0xb6, 0xe3,
        0x6e,
    ];
    assert_eq!(spec.key_hash(), Some(want));
    assert_eq!(SpecExample::MAX_KEY_SIZE, Some(4 + 13 + 3 + 8));
    // Holder in member-id order: early (id 3, short) then late (id 9, long), ≤ 16 bytes.
    let r = Reordered {
        late: 0x0102_0304,
        early: 0x0506,
        text: "ignored".into(),
    };
    assert_eq!(
        r.key_hash(),
        Some([5, 6, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0])
    );
    assert!(Reordered::is_keyed() && !Unkeyed::is_keyed());
    assert_eq!(Unkeyed { a: 1 }.key_hash(), None);
    // The XCDR1 serialized key (dispose payload) holds the key members only.
    let key = r.serialize_key(Endianness::Little).unwrap();
    assert_eq!(key, [0, 1, 0, 0, 6, 5, 0, 0, 4, 3, 2, 1]);
}

#[test]
fn descriptors_equal_what_the_idl_layer_builds() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../idl");
    let spec =
        siftdds::idl::parse_file(&dir.join("test_types.idl"), std::slice::from_ref(&dir)).unwrap();
    let want = siftdds::idl::descriptor(&spec, "corpus::Derived").unwrap();
    assert_eq!(Derived::descriptor(), Some(&want));
    let want = siftdds::idl::descriptor(&spec, "corpus::AllPrimitives").unwrap();
    assert_eq!(AllPrimitives::descriptor(), Some(&want));
    assert_eq!(
        Wide::descriptor(),
        None,
        "wchar and long double have no descriptor kind"
    );
    assert_eq!(Derived::type_name(), "corpus::Derived");
}

#[test]
fn mutable_unions_wide_types_and_long_arrays_round_trip() {
    use idl_tests::extra::{ANSWER, Defaults, MutU, WithMutU};
    for u in [MutU::S("s".into()), MutU::L(3, -1), MutU::O(9, 0xEE)] {
        let v = WithMutU {
            id: 1,
            u: u.clone(),
            maybe: Some(u),
            ws: "wxyz".into(),
            ld: LongDouble(u128::MAX - 1),
            wc: 'ž',
            wcs: vec!['a', 'Ω'],
        };
        round_trip(&v);
        round_trip(&WithMutU { maybe: None, ..v });
    }
    let too_wide = WithMutU {
        ws: "12345".into(),
        ..WithMutU::default()
    };
    assert!(
        too_wide
            .serialize_as(XcdrVersion::Xcdr2, Endianness::Big)
            .is_none()
    );
    let d = Defaults::default();
    assert_eq!((d.seven, d.half, d.big.len()), (7, 2.5, 40));
    round_trip(&Defaults {
        big: std::array::from_fn(|i| i as i32),
        ..d
    });
    assert_eq!(ANSWER, 42);
}

#[test]
fn constants_and_typedefs_keep_their_values() {
    use idl_tests::corpus::{B, BOUND, C, D, FAVOURITE, L, LongSeqAlias, Matrix, STR, U64, UL};
    assert_eq!((L, UL, BOUND, U64), (19, u32::MAX, 8, 14));
    assert_eq!((STR, C, B, D), ("concat", 'x', true, 1250.0));
    assert_eq!(FAVOURITE, Color::Blue);
    let m: Matrix = [[0; 3]; 2];
    let s: LongSeqAlias = vec![1];
    assert_eq!((m.len(), s.len()), (2, 1));
}

#[test]
fn generated_shape_type_matches_the_hand_written_one() {
    let hand = siftdds::types::ShapeType {
        color: "BLUE".into(),
        x: 1,
        y: 2,
        shapesize: 30,
        additional_payload_size: vec![1, 2, 3],
    };
    let generated = idl_tests::ShapeType {
        color: "BLUE".into(),
        x: 1,
        y: 2,
        shapesize: 30,
        additional_payload_size: vec![1, 2, 3],
    };
    for e in [Endianness::Big, Endianness::Little] {
        let ours = generated.serialize(e);
        let theirs = hand.serialize(e);
        assert_eq!(ours[..2], theirs[..2]);
        assert_eq!(ours[4..theirs.len()], theirs[4..], "same XCDR1 body");
        assert_eq!(
            siftdds::types::ShapeType::deserialize(&ours),
            Ok(hand.clone())
        );
        assert_eq!(
            idl_tests::ShapeType::deserialize(&theirs).as_ref(),
            Ok(&generated)
        );
    }
    assert_eq!(generated.key_hash(), hand.key_hash());
    assert_eq!(
        idl_tests::ShapeType::descriptor(),
        Some(siftdds::types::ShapeType::descriptor())
    );
}

#[test]
fn appendable_types_read_an_older_shorter_version() {
    use idl_tests::xv::AppInner;
    // `@appendable struct AppInner { octet tag; }` from an older peer: XCDR1 with the padding
    // count in the options, and XCDR2 with a DHEADER covering only `tag`.
    let xcdr1 = [0x00, 0x01, 0x00, 0x03, 9, 0, 0, 0];
    let xcdr2 = [0x00, 0x09, 0x00, 0x03, 1, 0, 0, 0, 9, 0, 0, 0];
    let want = AppInner {
        tag: 9,
        name: String::new(),
    };
    assert_eq!(AppInner::deserialize(&xcdr1), Ok(want.clone()));
    assert_eq!(AppInner::deserialize(&xcdr2), Ok(want));
}

#[test]
fn generated_type_representation_matches_the_hand_written_one() {
    // DDS-XTypes 1.3 TypeObjects: built from the IDL at generation time, decoded once.
    let generated = <idl_tests::ShapeType as TopicType>::type_representation().unwrap();
    let hand = <siftdds::types::ShapeType as TopicType>::type_representation().unwrap();
    assert_eq!(generated, hand);
    assert_eq!(generated.information_bytes.len(), 100);
}
