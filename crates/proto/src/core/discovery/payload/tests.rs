use super::*;
use crate::wire::plist::emit_parameter_list;
use crate::wire::{EntityId, GuidPrefix};

fn guid() -> Guid {
    Guid::new(
        GuidPrefix([7; 12]),
        EntityId([0, 0, 1, EntityId::KIND_WRITER_WITH_KEY]),
    )
}

#[test]
fn key_payload_is_above_the_fast_dds_16_byte_quirk_and_round_trips() {
    for endian in [Endianness::Big, Endianness::Little] {
        let p = key_payload(PID_ENDPOINT_GUID, guid(), endian).unwrap();
        assert_eq!(p.len(), 28);
        assert_eq!(key_from_payload(&p, VendorId::SIFTDDS), Ok(guid()));
    }
}

#[test]
fn key_hash_alone_names_the_entity() {
    let p = encode(
        &disposal_inline_qos(guid().to_bytes(), STATUS_INFO_DISPOSED),
        Endianness::Little,
    )
    .unwrap();
    assert_eq!(key_from_payload(&p, VendorId::FAST_DDS), Ok(guid()));
    let empty = encode(&[], Endianness::Little).unwrap();
    assert_eq!(
        key_from_payload(&empty, VendorId::FAST_DDS),
        Err(DiscoveryError::Missing("key (GUID or PID_KEY_HASH)"))
    );
}

#[test]
fn disposal_inline_qos_writes_status_info_big_endian() {
    let qos = disposal_inline_qos(
        guid().to_bytes(),
        STATUS_INFO_DISPOSED | STATUS_INFO_UNREGISTERED,
    );
    let mut buf = Vec::new();
    emit_parameter_list(
        &qos,
        &mut crate::cdr::CdrWriter::new(&mut buf, Endianness::Little),
    )
    .unwrap();
    // KEY_HASH (4 + 16), STATUS_INFO header, then 00 00 00 03, then the sentinel.
    assert_eq!(buf.get(20..28), Some(&[0x71, 0, 4, 0, 0, 0, 0, 3][..]));
    assert_eq!(buf.len(), 32);
}
