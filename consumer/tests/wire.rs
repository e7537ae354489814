//! The derived [`Shape`] against the library's `ShapeType` (the OMG Shapes type of
//! `idl/shape.idl`, which the interoperability tests use with every vendor): the same type
//! name, keys, descriptor, and the same bytes for samples, serialized keys and key hashes in
//! XCDR1 and XCDR2, both byte orders, up to the count of the trailing padding; each decodes the other's
//! samples. No sockets.

// Test code: it unwraps what must work and pads what it built.
#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use siftdds::cdr::Endianness;
use siftdds::types::{ShapeType, TopicType, XcdrVersion};
use siftdds_consumer::Shape;

/// Checks that `ours` (a derived type's sample) is `theirs` (the hand-written `ShapeType`'s)
/// with the trailing padding counted: the derived (and IDL-generated) types pad the body to a
/// multiple of 4 and count the padding in the encapsulation options' low two bits; the
/// hand-written type leaves the count at 0 (and its XCDR1 body unpadded). DDS-XTypes 1.3
/// §7.6.3.1.2. The same encapsulation kind, the same body, the rest zeros.
fn assert_same_up_to_padding(ours: &[u8], theirs: &[u8], ctx: &str) {
    assert_eq!(ours[..2], theirs[..2], "encapsulation kind: {ctx}");
    assert_eq!(ours.len() % 4, 0, "{ctx}");
    let body = &ours[4..ours.len() - usize::from(ours[3] & 3)];
    assert!(theirs[4..].starts_with(body), "{ctx}\n{ours:?}\n{theirs:?}");
    assert!(theirs[4 + body.len()..].iter().all(|&b| b == 0), "{ctx}");
    assert!(theirs.len() - 4 - body.len() < 4, "{ctx}");
}

fn samples() -> Vec<(Shape, ShapeType)> {
    let mut out = Vec::new();
    for (color, x, payload) in [("RED", 0, 0usize), ("BLUE", -7, 3), ("", i32::MAX, 17)] {
        let payload: Vec<u8> = (0..payload).map(|b| b as u8).collect();
        let shape = Shape {
            color: color.into(),
            x,
            y: x.wrapping_mul(3),
            shapesize: 30,
            additional_payload_size: payload.clone(),
        };
        let idl = ShapeType {
            color: color.into(),
            x,
            y: x.wrapping_mul(3),
            shapesize: 30,
            additional_payload_size: payload,
        };
        out.push((shape, idl));
    }
    out
}

#[test]
fn derived_shape_is_announced_like_the_idl_shape_type() {
    assert_eq!(Shape::type_name(), ShapeType::type_name());
    assert_eq!(Shape::is_keyed(), ShapeType::is_keyed());
    assert_eq!(
        Shape::descriptor().unwrap(),
        <ShapeType as TopicType>::descriptor().unwrap()
    );
}

#[test]
fn derived_shape_encodes_and_decodes_like_the_idl_shape_type() {
    for (shape, idl) in samples() {
        assert_eq!(shape.key_hash(), idl.key_hash(), "{shape:?}");
        for version in [XcdrVersion::Xcdr1, XcdrVersion::Xcdr2] {
            for endian in [Endianness::Little, Endianness::Big] {
                let ctx = format!("{shape:?} {version:?} {endian:?}");
                let ours = shape.serialize_as(version, endian).unwrap();
                let theirs = idl.serialize_as(version, endian).unwrap();
                assert_same_up_to_padding(&ours, &theirs, &ctx);
                assert_eq!(
                    shape.serialize_key_as(version, endian),
                    idl.serialize_key_as(version, endian),
                    "{ctx}"
                );
                assert_eq!(Shape::deserialize(&theirs).unwrap(), shape, "{ctx}");
                assert_eq!(ShapeType::deserialize(&ours).unwrap(), idl, "{ctx}");
            }
        }
    }
}

#[test]
fn a_sample_without_the_trailing_member_decodes_it_empty() {
    // What a peer with the 4-member OMG ShapeType writes: XCDR2, appendable (D_CDR2 with a
    // DHEADER), little-endian, "RED" at (1, 2), size 30.
    let mut bytes = vec![0x00, 0x09, 0x00, 0x00];
    let body: Vec<u8> = [
        &4u32.to_le_bytes()[..],
        b"RED\0",
        &1i32.to_le_bytes(),
        &2i32.to_le_bytes(),
        &30i32.to_le_bytes(),
    ]
    .concat();
    bytes.extend((body.len() as u32).to_le_bytes());
    bytes.extend(body);
    assert_eq!(Shape::deserialize(&bytes).unwrap(), Shape::new("RED", 1, 2));
}
