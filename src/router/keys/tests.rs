use super::*;
use crate::cdr::Endianness;
use crate::types::{TopicType, XcdrVersion};
use proptest::prelude::*;

fn shape(color: &str, x: i32) -> ShapeType {
    ShapeType {
        color: color.into(),
        x,
        y: 2,
        shapesize: 30,
        ..ShapeType::default()
    }
}

#[test]
fn a_large_payload_after_the_key_is_not_decoded() {
    // 200 KB of additional payload: more values than `types::dynamic` decodes at all,
    // but the key comes first.
    let k = KeyTypes::new().resolve("Square", "ShapeType").unwrap();
    let s = ShapeType {
        additional_payload_size: vec![7; 200_000],
        ..shape("BLUE", 1)
    };
    for version in [XcdrVersion::Xcdr1, XcdrVersion::Xcdr2] {
        let data = s.serialize_as(version, Endianness::Little).unwrap();
        assert_eq!(k.key_hash(ChangeKind::Alive, &data), s.key_hash());
    }
}

const IDL: &str = "module m { @appendable struct Reading { long v; @key unsigned long id; \
                       @key string site; double t; }; };";

fn idl_types() -> KeyTypes {
    let loader = crate::idl::MemLoader::new().with("r.idl", IDL);
    let spec = crate::idl::parse_with(&loader, std::path::Path::new("r.idl"), &[]).unwrap();
    let mut k = KeyTypes::new();
    k.add(
        glob::Pattern::new("Read*").unwrap(),
        None,
        crate::idl::descriptors(&spec),
    );
    k
}

proptest! {
    /// The router's key hash of a ShapeType sample (and of its serialized key, as a
    /// dispose carries it) is the PID_KEY_HASH a siftdds writer sends, in every
    /// representation and byte order.
    #[test]
    fn the_router_computes_the_key_hash_a_siftdds_writer_sends(
        color in "[A-Z]{0,20}", x in any::<i32>()
    ) {
        let k = KeyTypes::new().resolve("Square", "ShapeType").unwrap();
        let s = shape(&color, x);
        let want = s.key_hash();
        for version in [XcdrVersion::Xcdr1, XcdrVersion::Xcdr2] {
            for endian in [Endianness::Little, Endianness::Big] {
                let data = s.serialize_as(version, endian).unwrap();
                prop_assert_eq!(k.key_hash(ChangeKind::Alive, &data), want);
                let key = s.serialize_key_as(version, endian).unwrap();
                prop_assert_eq!(k.key_hash(ChangeKind::NotAliveDisposed, &key), want);
            }
        }
    }
}

#[test]
fn an_idl_type_named_per_topic_gives_the_key_of_its_key_members() {
    let types = idl_types();
    let k = types.resolve("Readings", "m::Reading").unwrap();
    // D_CDR2 LE: DHEADER, v, id, site, t.
    let mut body = Vec::new();
    body.extend_from_slice(&7i32.to_le_bytes());
    body.extend_from_slice(&0x0102_0304u32.to_le_bytes());
    body.extend_from_slice(&3u32.to_le_bytes());
    body.extend_from_slice(b"ab\0\0");
    body.extend_from_slice(&1.5f64.to_le_bytes());
    let mut data = vec![0, 9, 0, 0];
    data.extend_from_slice(&(body.len() as u32).to_le_bytes());
    data.extend_from_slice(&body);
    // Key holder, PLAIN_CDR2 BE in member-id order: id, then the string (unbounded:
    // MD5).
    let mut holder = 0x0102_0304u32.to_be_bytes().to_vec();
    holder.extend_from_slice(&3u32.to_be_bytes());
    holder.extend_from_slice(b"ab\0");
    let want = crate::types::key_hash_from_key_bytes(&holder, usize::MAX);
    assert_eq!(k.key_hash(ChangeKind::Alive, &data), Some(want));
    // A dispose's serialized key: the key members only, no DHEADER.
    let mut key = vec![0, 9, 0, 0];
    key.extend_from_slice(&0x0102_0304u32.to_le_bytes());
    key.extend_from_slice(&3u32.to_le_bytes());
    key.extend_from_slice(b"ab\0\0");
    assert_eq!(k.key_hash(ChangeKind::NotAliveDisposed, &key), Some(want));
    assert_eq!(k.key_hash(ChangeKind::Alive, &data[..9]), None);
    // Another type name, a topic no pattern names (and not ShapeType).
    assert!(types.resolve("Readings", "Other").is_none());
    assert!(types.resolve("X", "m::Reading").is_none());
    assert!(types.resolve("Readings", "::m::Reading").is_some());
}

#[test]
fn a_named_type_wins_over_the_announced_name() {
    let loader = crate::idl::MemLoader::new().with("r.idl", IDL);
    let spec = crate::idl::parse_with(&loader, std::path::Path::new("r.idl"), &[]).unwrap();
    let mut k = KeyTypes::new();
    k.add(
        glob::Pattern::new("*").unwrap(),
        Some("m::Reading".into()),
        crate::idl::descriptors(&spec),
    );
    assert!(k.resolve("T", "ReadingType_").is_some());
    // A pattern that matches hides the built-in ShapeType for that topic.
    assert!(idl_types().resolve("Reads", "ShapeType").is_none());
    assert!(idl_types().resolve("Square", "ShapeType").is_some());
}

#[test]
fn a_type_a_writer_announced_comes_before_shape_type_and_a_readers_after_it() {
    let final_shape = TypeDescriptor {
        extensibility: Extensibility::Final,
        ..ShapeType::descriptor().clone()
    };
    let mut k = KeyTypes::new();
    // A reader's type: the built-in ShapeType is kept for that name; for another name it is
    // all there is.
    k.learn("Sq", "ShapeType", final_shape.clone(), false);
    k.learn("Other", "O", final_shape.clone(), false);
    assert_eq!(
        k.descriptor("Sq", "ShapeType").unwrap().extensibility,
        ShapeType::descriptor().extensibility
    );
    assert_eq!(k.descriptor("Other", "O"), Some(&final_shape));
    // A writer's type wins, and a reader's does not replace it.
    k.learn("Sq", "ShapeType", final_shape.clone(), true);
    k.learn("Sq", "ShapeType", ShapeType::descriptor().clone(), false);
    assert_eq!(k.descriptor("Sq", "ShapeType"), Some(&final_shape));
    // A configured IDL file overrides the wire.
    let mut k = idl_types();
    k.learn("Reading", "m::Reading", final_shape.clone(), true);
    assert_eq!(
        k.descriptor("Reading", "m::Reading").unwrap().name,
        "m::Reading"
    );
}
