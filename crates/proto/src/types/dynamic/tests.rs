use super::*;
use crate::types::{ShapeType, TopicType, XcdrVersion as Version};

fn shape() -> ShapeType {
    ShapeType {
        color: "BLUE".into(),
        x: 10,
        y: -20,
        shapesize: 30,
        ..ShapeType::default()
    }
}

#[test]
fn a_shape_decodes_in_every_version_and_byte_order() {
    let desc = ShapeType::descriptor();
    for version in [Version::Xcdr1, Version::Xcdr2] {
        for endian in [Endianness::Little, Endianness::Big] {
            let Some(bytes) = shape().serialize_as(version, endian) else {
                continue;
            };
            let v = decode(&bytes, desc).unwrap();
            assert_eq!(v.field("color"), Some(&DynamicValue::Str("BLUE".into())));
            assert_eq!(v.field("x"), Some(&DynamicValue::Int(10)));
            assert_eq!(v.field("y"), Some(&DynamicValue::Int(-20)));
            assert_eq!(v.field("shapesize"), Some(&DynamicValue::Int(30)));
            assert!(
                v.to_string()
                    .starts_with("{color: \"BLUE\", x: 10, y: -20, shapesize: 30")
            );
        }
    }
}

#[test]
fn the_vendors_four_member_shape_leaves_the_rest_absent() {
    // CDR_LE, "RED", x=1, y=2, size=3: what Cyclone and Fast DDS send.
    let mut b = vec![0, 1, 0, 0, 4, 0, 0, 0];
    b.extend_from_slice(b"RED\0");
    for v in [1u32, 2, 3] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    let v = decode(&b, ShapeType::descriptor()).unwrap();
    assert_eq!(v.to_string(), "{color: \"RED\", x: 1, y: 2, shapesize: 3}");
}

#[test]
fn the_key_hash_of_a_decoded_sample_is_the_types_own() {
    let desc = ShapeType::descriptor();
    let bytes = shape()
        .serialize_as(Version::Xcdr1, Endianness::Little)
        .unwrap();
    let v = decode(&bytes, desc).unwrap();
    assert_eq!(key_hash(&v, desc), shape().key_hash());
    // A key of one int32: the bytes themselves (RTPS 2.5 §9.6.4.8, no MD5).
    let int_key = TypeDescriptor {
        name: "K".into(),
        extensibility: Extensibility::Final,
        members: vec![
            crate::types::Member::new("id", 0, TypeKind::I32).key(),
            crate::types::Member::new("v", 1, TypeKind::F64),
        ],
    };
    let v = DynamicValue::Struct(vec![
        ("id".into(), Some(DynamicValue::Int(0x1234_5678))),
        ("v".into(), Some(DynamicValue::Float(1.5))),
    ]);
    let mut want = [0u8; 16];
    want[..4].copy_from_slice(&[0x12, 0x34, 0x56, 0x78]);
    assert_eq!(key_hash(&v, &int_key), Some(want));
}

#[test]
fn every_truncation_is_an_error_or_a_shorter_struct_never_a_panic() {
    let desc = ShapeType::descriptor();
    let bytes = shape()
        .serialize_as(Version::Xcdr2, Endianness::Little)
        .unwrap();
    for n in 0..bytes.len() {
        let _ = decode(&bytes[..n], desc);
    }
    assert!(decode(&bytes[..3], desc).is_err());
}
