use super::*;
use crate::cdr::Endianness;

#[test]
fn name_hash_is_md5_prefix() {
    // "color" from ShapeType, as Cyclone DDS 0.10's idlc writes it (tests/data/xtypes).
    assert_eq!(name_hash("color"), [0x70, 0xdd, 0xa5, 0xdf]);
}

#[test]
fn type_identifiers_round_trip() {
    let ids = [
        TypeIdentifier::None,
        TypeIdentifier::Primitive(0x04),
        TypeIdentifier::string(false, 128),
        TypeIdentifier::string(true, 1000),
        TypeIdentifier::sequence(TypeIdentifier::Minimal([7; 14]), TRY_CONSTRUCT1, 0),
        TypeIdentifier::sequence(TypeIdentifier::Primitive(0x02), TRY_CONSTRUCT1, 70000),
        TypeIdentifier::array(TypeIdentifier::Primitive(0x03), TRY_CONSTRUCT1, &[3, 4]),
        TypeIdentifier::array(TypeIdentifier::Complete([9; 14]), TRY_CONSTRUCT1, &[300]),
    ];
    for id in ids {
        let bytes = id.to_bytes();
        assert_eq!(
            TypeIdentifier::from_bytes(&bytes, Endianness::Little),
            Ok(id)
        );
    }
}

#[test]
fn strongly_connected_components_are_refused() {
    let bytes = [0xB0u8, 0xF1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    assert!(TypeIdentifier::from_bytes(&bytes, Endianness::Little).is_err());
}

#[test]
fn deep_nesting_is_refused() {
    let mut id = TypeIdentifier::Primitive(0x04);
    for _ in 0..MAX_DEPTH {
        id = TypeIdentifier::sequence(id, TRY_CONSTRUCT1, 0);
    }
    let bytes = id.to_bytes();
    assert_eq!(
        TypeIdentifier::from_bytes(&bytes, Endianness::Little),
        Err(crate::cdr::CdrError::TooLarge("TypeIdentifier nesting"))
    );
}

#[test]
fn truncated_input_never_panics() {
    let to = TypeObject {
        kind: EquivalenceKind::Complete,
        body: TypeObjectBody::Struct(StructType {
            flags: IS_APPENDABLE,
            base: TypeIdentifier::None,
            type_name: "T".into(),
            members: vec![StructMember {
                id: 0,
                flags: TRY_CONSTRUCT1,
                type_id: TypeIdentifier::Primitive(0x04),
                name: "x".into(),
                name_hash: name_hash("x"),
            }],
        }),
    };
    let bytes = to.to_bytes();
    assert_eq!(TypeObject::from_bytes(&bytes, Endianness::Little), Ok(to));
    for n in 0..bytes.len() {
        assert!(TypeObject::from_bytes(&bytes[..n], Endianness::Little).is_err());
    }
}
