//! XCDR1/XCDR2 alignment and encoding rules on known values and proptest round trips
//! (DDS-XTypes 1.3 §7.4.3). Must not: depend on anything above `cdr`.

// Test arithmetic works on small, known inputs; docs/conventions.md §4 targets parse paths.
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::cdr::XcdrVersion;
use proptest::prelude::*;

/// A hand-written struct in the shape the IDL generator will produce.
#[derive(Clone, Debug, PartialEq)]
struct Shape {
    color: String,
    x: i32,
    big: u64,
    flag: bool,
    c: char,
    tag: u8,
    size: f64,
    points: Vec<i16>,
    names: Vec<String>,
    matrix: [u16; 3],
}

impl CdrEncode for Shape {
    fn encode(&self, w: &mut CdrWriter<'_>) {
        self.color.encode(w);
        self.x.encode(w);
        self.big.encode(w);
        self.flag.encode(w);
        self.c.encode(w);
        self.tag.encode(w);
        self.size.encode(w);
        self.points.encode(w);
        self.names.encode(w);
        self.matrix.encode(w);
    }
}

impl<'a> CdrDecode<'a> for Shape {
    const MIN_SIZE: usize = 4;

    fn decode(r: &mut CdrReader<'a>) -> Result<Self, CdrError> {
        Ok(Shape {
            color: String::decode(r)?,
            x: i32::decode(r)?,
            big: u64::decode(r)?,
            flag: bool::decode(r)?,
            c: char::decode(r)?,
            tag: u8::decode(r)?,
            size: f64::decode(r)?,
            points: Vec::decode(r)?,
            names: Vec::decode(r)?,
            matrix: <[u16; 3]>::decode(r)?,
        })
    }
}

fn encode_with(v: &impl CdrEncode, endian: Endianness, xcdr: XcdrVersion) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = CdrWriter::new(&mut out, endian);
    w.set_xcdr(xcdr);
    v.encode(&mut w);
    out
}

#[test]
fn xcdr1_aligns_long_long_to_8_and_xcdr2_to_4() {
    let v = (7u32, 0x0102_0304_0506_0708u64);
    struct Pair((u32, u64));
    impl CdrEncode for Pair {
        fn encode(&self, w: &mut CdrWriter<'_>) {
            self.0.0.encode(w);
            self.0.1.encode(w);
        }
    }
    let le1 = encode_with(&Pair(v), Endianness::Little, XcdrVersion::Xcdr1);
    assert_eq!(le1, [7, 0, 0, 0, 0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1]);
    let be1 = encode_with(&Pair(v), Endianness::Big, XcdrVersion::Xcdr1);
    assert_eq!(be1, [0, 0, 0, 7, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
    let le2 = encode_with(&Pair(v), Endianness::Little, XcdrVersion::Xcdr2);
    assert_eq!(le2, [7, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1]);
}

#[test]
fn payload_golden_bytes_in_both_byte_orders() {
    // struct { string color; long x; } = {"BLUE", 5}
    struct S;
    impl CdrEncode for S {
        fn encode(&self, w: &mut CdrWriter<'_>) {
            "BLUE".encode(w);
            5i32.encode(w);
            1u8.encode(w);
        }
    }
    let le = serialize_payload(&S, Endianness::Little);
    assert_eq!(
        le,
        [
            0, 1, 0, 3, 5, 0, 0, 0, b'B', b'L', b'U', b'E', 0, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0
        ]
    );
    let be = serialize_payload(&S, Endianness::Big);
    assert_eq!(
        be,
        [
            0, 0, 0, 3, 0, 0, 0, 5, b'B', b'L', b'U', b'E', 0, 0, 0, 0, 0, 0, 0, 5, 1, 0, 0, 0
        ]
    );
    let mut r = CdrReader::new(&le, Endianness::Big);
    let h = EncapsulationHeader::parse(&mut r).unwrap();
    assert_eq!(
        (h.kind, h.endian, h.options),
        (EncapsulationKind::Cdr, Endianness::Little, 3)
    );
    assert_eq!(deserialize_payload::<&str>(&be), Ok("BLUE"));
}

#[test]
fn bool_other_than_zero_or_one_is_invalid() {
    let b = [2u8];
    assert_eq!(
        bool::decode(&mut CdrReader::new(&b, Endianness::Little)),
        Err(CdrError::Invalid("boolean"))
    );
}

#[test]
fn huge_sequence_count_is_refused_before_allocating() {
    let b = [0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4];
    assert!(Vec::<u32>::decode(&mut CdrReader::new(&b, Endianness::Little)).is_err());
    assert!(Vec::<Vec<u8>>::decode(&mut CdrReader::new(&b, Endianness::Little)).is_err());
}

#[test]
fn non_utf8_string_is_invalid_and_pl_cdr_payload_is_refused() {
    let b = [0, 1, 0, 0, 2, 0, 0, 0, 0xff, 0];
    assert!(deserialize_payload::<&str>(&b).is_err());
    let pl = [0, 3, 0, 0, 1, 0, 0, 0, 0];
    assert!(deserialize_payload::<&str>(&pl).is_err());
}

fn sample() -> Shape {
    Shape {
        color: "RED".into(),
        x: -3,
        big: u64::MAX - 1,
        flag: true,
        c: 'z',
        tag: 9,
        size: 1.5,
        points: vec![1, -2, 3],
        names: vec!["a".into(), String::new(), "ccc".into()],
        matrix: [1, 2, 3],
    }
}

#[test]
fn truncating_a_payload_at_every_offset_is_an_error() {
    for endian in [Endianness::Little, Endianness::Big] {
        let full = serialize_payload(&sample(), endian);
        assert_eq!(deserialize_payload::<Shape>(&full), Ok(sample()));
        // The last 4 bytes hold the u16 array's tail and trailing padding; cut only before the
        // last meaningful byte.
        let meaningful = full.len() - usize::from(full[3] & 3);
        for cut in 0..meaningful {
            assert!(
                deserialize_payload::<Shape>(&full[..cut]).is_err(),
                "cut at {cut}"
            );
        }
    }
}

fn any_char8() -> impl Strategy<Value = char> {
    (0u8..=255).prop_map(char::from)
}

prop_compose! {
    fn any_shape()(
        color in ".{0,20}",
        x in any::<i32>(),
        big in any::<u64>(),
        flag in any::<bool>(),
        c in any_char8(),
        tag in any::<u8>(),
        size in any::<f64>().prop_filter("NaN != NaN", |f| !f.is_nan()),
        points in prop::collection::vec(any::<i16>(), 0..8),
        names in prop::collection::vec(".{0,5}", 0..4),
        matrix in any::<[u16; 3]>(),
    ) -> Shape {
        Shape { color, x, big, flag, c, tag, size, points, names, matrix }
    }
}

proptest! {
    #[test]
    fn cdr_round_trips(s in any_shape(), little in any::<bool>()) {
        let endian = if little { Endianness::Little } else { Endianness::Big };
        let bytes = serialize_payload(&s, endian);
        prop_assert_eq!(bytes.len() % 4, 0);
        prop_assert_eq!(deserialize_payload::<Shape>(&bytes), Ok(s));
    }

    #[test]
    fn arbitrary_bytes_never_panic(b in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = deserialize_payload::<Shape>(&b);
    }
}
