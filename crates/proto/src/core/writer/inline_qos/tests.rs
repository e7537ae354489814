use super::*;
use crate::core::change::SampleIdentity;
use crate::core::writer::message::ENDIAN;
use crate::wire::{EntityId, Guid, GuidPrefix, SequenceNumber};
use bytes::Bytes;

fn guid(b: u8) -> Guid {
    Guid::new(GuidPrefix([b; 12]), EntityId([0, 0, 1, 2]))
}

fn relayed(key: u8, writer: u8, sn: i64) -> CacheChange {
    CacheChange {
        kind: ChangeKind::Alive,
        writer_guid: guid(9),
        sequence_number: SequenceNumber(sn),
        key_hash: Some([key; 16]),
        source_timestamp: None,
        data: Bytes::new(),
        coherent_set: None,
        group: None,
        original_writer: Some(SampleIdentity {
            writer_guid: guid(writer),
            sequence_number: SequenceNumber(sn + (1 << 40)),
        }),
    }
}

/// The list for `c` and its length without the sentinel.
fn encoded(c: &CacheChange) -> (Vec<u8>, usize) {
    encoded_in(c, ENDIAN)
}

fn encoded_in(c: &CacheChange, endian: Endianness) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    inline_qos_into(c, true, None, None, &mut out, endian);
    let len = out.len() - 4;
    (out, len)
}

#[test]
fn a_patched_list_is_the_next_changes_encoding() {
    for endian in [Endianness::Little, Endianness::Big] {
        let (mut qos, len) = encoded_in(&relayed(1, 7, 5), endian);
        for sn in [6, 7, 1 << 33, -1] {
            let next = relayed(1, 7, sn);
            let id = next.original_writer.unwrap();
            assert!(patch_original_sn(&mut qos, len, id, endian));
            assert_eq!(qos, encoded_in(&next, endian).0, "sn {sn} {endian:?}");
        }
    }
}

#[test]
fn a_list_of_another_writer_or_shape_is_not_patched() {
    let (mut qos, len) = encoded(&relayed(1, 7, 5));
    let before = qos.clone();
    let other = relayed(1, 8, 6).original_writer.unwrap();
    assert!(!patch_original_sn(&mut qos, len, other, ENDIAN));
    // Not ending with PID_ORIGINAL_WRITER_INFO (no original writer at all).
    let mut plain = relayed(1, 7, 5);
    plain.original_writer = None;
    let (mut p, plen) = encoded(&plain);
    let id = relayed(1, 7, 6).original_writer.unwrap();
    assert!(!patch_original_sn(&mut p, plen, id, ENDIAN));
    assert!(!patch_original_sn(&mut qos, 3, id, ENDIAN));
    assert!(!patch_original_sn(&mut qos, len + 100, id, ENDIAN));
    assert_eq!(qos, before);
}

#[test]
fn a_list_is_encoded_into_a_buffer_of_its_exact_length() {
    // A relayed keyed change (key hash, original writer) and a dispose (key hash, status).
    let mut dispose = relayed(2, 7, 5);
    dispose.kind = ChangeKind::NotAliveDisposed;
    dispose.original_writer = None;
    for c in [relayed(1, 7, 5), dispose] {
        let (out, _) = encoded(&c);
        assert_eq!(out.capacity(), out.len(), "{:?}", c.kind);
    }
}
