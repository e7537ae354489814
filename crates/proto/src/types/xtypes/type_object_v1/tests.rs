//! The PID_TYPE_OBJECTV1 decoder against a value captured from Fast DDS 2.9.1.
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::types::xtypes::to_descriptor::type_descriptor;

/// Fast DDS 2.9.1's PID_TYPE_OBJECTV1 value for `shapes_fastdds`' ShapeType (fastddsgen 2.3.0
/// `-typeobject`), captured in the network sandbox: `@key string<128> color; long x, y,
/// shapesize; sequence<octet> additional_payload_size`.
pub(crate) const FASTDDS_SHAPE_TYPE_OBJECT: &str = "\
    00010000f251000000000000010000000000000001000000000000000100000000000000000000000a0000\
    0053686170655479706500000005000000000000002000708006000000636f6c6f72000000010000000000\
    0000010000000000000001000000f20ba8be56ae1cdf65bf428da8657200010000002063c1600101000001\
    00000000000400020000007800000001000000000000000100000000000000000000000200000000000400\
    0200000079000000010000000000000001000000000000000000000003000000000004000a000000736861\
    706573697a6500000001000000000000000100000000000000000000000400000000008002000000021800\
    00006164646974696f6e616c5f7061796c6f61645f73697a65000100000000000000010000000000000000\
    000000";

/// Its PID_TYPE_IDV1 (0x0069) value: the complete identifier Fast DDS announces.
const FASTDDS_SHAPE_TYPE_ID: &str = "00010000f2f6046f77e5f950be32cca83a593e00";

pub(crate) fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    s.as_bytes()
        .chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
        .collect()
}

#[test]
fn fastdds_shape_type_decodes_with_its_announced_identifier() {
    let value = hex(FASTDDS_SHAPE_TYPE_OBJECT);
    assert_eq!(value.len(), 304);
    let (id, object) = parse(&value).unwrap();
    let announced = hex(FASTDDS_SHAPE_TYPE_ID);
    let mut r = CdrReader::new(&announced[4..], Endianness::Little);
    assert_eq!(id, TypeIdentifier::parse(&mut r, 0).unwrap());
    let TypeObjectBody::Struct(s) = &object.body else {
        panic!("a structure")
    };
    assert_eq!(s.type_name, "ShapeType");
    assert_eq!(s.base, TypeIdentifier::None);
    let names: Vec<_> = s.members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        ["color", "x", "y", "shapesize", "additional_payload_size"]
    );
    let ids: Vec<_> = s.members.iter().map(|m| m.id).collect();
    assert_eq!(ids, [0, 1, 2, 3, 4]);
    assert_eq!(s.members[0].flags, 0x20); // IS_KEY
    assert_eq!(
        s.members[0].type_id,
        TypeIdentifier::StringSmall {
            wide: false,
            bound: 128
        }
    );
    assert_eq!(
        s.members[1].type_id,
        TypeIdentifier::Primitive(super::super::TK_INT32)
    );
    assert!(matches!(
        &s.members[4].type_id,
        TypeIdentifier::SequenceSmall { bound: 0, element, header }
            if **element == TypeIdentifier::Primitive(super::super::TK_BYTE)
                && header.equiv_kind == super::super::EK_BOTH
    ));
    // The descriptor the sample decoder uses: member names, the key.
    let lookup = |i: &TypeIdentifier| (*i == id).then_some(&object);
    let desc = type_descriptor(&lookup, &id).unwrap();
    assert_eq!(desc.name, "ShapeType");
}

#[test]
fn every_truncation_is_an_error_and_mutations_never_panic() {
    let value = hex(FASTDDS_SHAPE_TYPE_OBJECT);
    // The last member's trailing annotation count is its last field: nothing shorter decodes.
    for n in 0..value.len() {
        assert!(parse(&value[..n]).is_err(), "truncated at {n}");
    }
    for i in 0..value.len() {
        for x in [0x01u8, 0x80, 0xFF] {
            let mut m = value.clone();
            m[i] ^= x;
            let _ = parse(&m);
        }
    }
}

#[test]
fn other_kinds_and_oversized_values_are_refused() {
    let mut value = hex(FASTDDS_SHAPE_TYPE_OBJECT);
    value[4] = super::super::EK_MINIMAL;
    assert!(parse(&value).is_err());
    let mut value = hex(FASTDDS_SHAPE_TYPE_OBJECT);
    value[5] = super::super::TK_ENUM;
    assert!(parse(&value).is_err());
    assert!(parse(&vec![0u8; MAX_TYPE_OBJECT_V1_SIZE + 1]).is_err());
}
