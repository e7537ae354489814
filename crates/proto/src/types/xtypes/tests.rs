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

fn typelookup_vector(kind: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/xtypes/typelookup.vectors");
    let text = std::fs::read_to_string(path).unwrap();
    let hex = text
        .lines()
        .find_map(|l| l.strip_prefix(kind).map(str::trim))
        .unwrap();
    hex.as_bytes()
        .chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
        .collect()
}

#[test]
fn typelookup_request_from_cyclone_decodes_and_our_reply_matches_cyclones() {
    use type_lookup::{TypeLookupCall, TypeLookupRequest, TypeLookupReturn, reply_payload};
    let request = TypeLookupRequest::from_payload(&typelookup_vector("REQUEST ")).unwrap();
    let reply = typelookup_vector("REPLY ");
    // The reply's one pair: the identifier at 64, its TypeObject (DHEADER 128) at 80.
    let id = TypeIdentifier::from_bytes(&reply[64..79], Endianness::Little).unwrap();
    let object = &reply[80..212];
    assert_eq!(request.call, TypeLookupCall::GetTypes(vec![id.clone()]));
    assert_eq!(request.request_id.low, 1);
    assert_eq!(
        id,
        TypeObject::from_bytes(object, Endianness::Little)
            .unwrap()
            .identifier()
    );
    let ours = reply_payload(
        &request.request_id,
        &TypeLookupReturn::Types(vec![(id, object)]),
    );
    assert_eq!(ours, reply);
}

#[test]
fn typelookup_requests_never_panic_when_truncated_or_flipped() {
    let request = typelookup_vector("REQUEST ");
    for n in 0..request.len() {
        let _ = type_lookup::TypeLookupRequest::from_payload(&request[..n]);
        let mut flipped = request.clone();
        flipped[n] ^= 0xFF;
        let _ = type_lookup::TypeLookupRequest::from_payload(&flipped);
    }
}

#[test]
fn hashed_member_ids_are_the_md5_of_their_names() {
    use md5::{Digest, Md5};
    let id = |name: &str| {
        let d = Md5::digest(name.as_bytes());
        u32::from_le_bytes([d[0], d[1], d[2], d[3]]) & 0x0FFF_FFFF
    };
    assert_eq!(id("getTypes"), type_lookup::GET_TYPES_HASH_ID);
    assert_eq!(id("getDependencies"), type_lookup::GET_DEPENDENCIES_HASH_ID);
    assert_eq!(id("type_ids"), type_lookup::MEMBER_TYPE_IDS);
    assert_eq!(id("types"), type_lookup::MEMBER_TYPES);
    assert_eq!(
        id("complete_to_minimal"),
        type_lookup::MEMBER_COMPLETE_TO_MINIMAL
    );
    assert_eq!(
        id("dependent_typeids"),
        type_lookup::MEMBER_DEPENDENT_TYPEIDS
    );
    assert_eq!(
        id("continuation_point"),
        type_lookup::MEMBER_CONTINUATION_POINT
    );
}

#[test]
fn our_request_encodes_as_cyclones_and_cyclones_reply_decodes_verified() {
    use type_lookup::{ReplyReturn, TypeLookupReply, TypeLookupRequest, request_payload};
    let cyclone_request = typelookup_vector("REQUEST ");
    let request = TypeLookupRequest::from_payload(&cyclone_request).unwrap();
    let ours = request_payload(&request.request_id, &request.call);
    assert_eq!(TypeLookupRequest::from_payload(&ours).unwrap(), request);
    assert_eq!(hex(&ours), hex(&cyclone_request));
    let reply = TypeLookupReply::from_payload(&typelookup_vector("REPLY ")).unwrap();
    assert_eq!(reply.request_id, request.request_id);
    let ReplyReturn::Types(types) = reply.ret else {
        panic!("not a getTypes reply: {:?}", reply.ret)
    };
    assert_eq!(types.len(), 1);
    assert!(types[0].verified);
    assert_eq!(
        type_lookup::TypeLookupCall::GetTypes(vec![types[0].id.clone()]),
        request.call
    );
}

#[test]
fn dependency_replies_round_trip_and_mismatched_objects_are_not_verified() {
    use type_lookup::{ReplyReturn, RequestId, TypeLookupReply, TypeLookupReturn, reply_payload};
    let rid = RequestId {
        writer_guid: [7; 16],
        high: 0,
        low: 9,
    };
    let deps = vec![TypeIdentifierWithSize {
        type_id: TypeIdentifier::Complete([3; 14]),
        typeobject_serialized_size: 120,
    }];
    let bytes = reply_payload(
        &rid,
        &TypeLookupReturn::Dependencies(deps.clone(), vec![1, 2]),
    );
    let reply = TypeLookupReply::from_payload(&bytes).unwrap();
    assert_eq!(reply.request_id, rid);
    assert_eq!(reply.ret, ReplyReturn::Dependencies(deps, vec![1, 2]));
    // A TypeObject paired with an identifier it does not hash to.
    let cyclone = typelookup_vector("REPLY ");
    let object = &cyclone[80..212];
    let wrong = TypeIdentifier::Complete([0; 14]);
    let bytes = reply_payload(&rid, &TypeLookupReturn::Types(vec![(wrong, object)]));
    let ReplyReturn::Types(t) = TypeLookupReply::from_payload(&bytes).unwrap().ret else {
        panic!("not a getTypes reply")
    };
    assert!(!t[0].verified);
}

#[test]
fn typelookup_replies_never_panic_when_truncated_or_flipped() {
    let reply = typelookup_vector("REPLY ");
    for n in 0..reply.len() {
        let _ = type_lookup::TypeLookupReply::from_payload(&reply[..n]);
        for bit in [0x01u8, 0x80, 0xFF] {
            let mut flipped = reply.clone();
            flipped[n] ^= bit;
            let _ = type_lookup::TypeLookupReply::from_payload(&flipped);
        }
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
