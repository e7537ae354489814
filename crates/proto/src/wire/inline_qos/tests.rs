//! [`InlineQos`] and [`SampleIdentity`]: golden bytes in both byte orders, round trips,
//! malformed values, and the in-place SN patch.

// Test arithmetic works on small, known inputs; docs/conventions.md §4 targets parse paths.
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::wire::{EntityId, GroupDigest, GuidPrefix};

fn guid(b: u8) -> Guid {
    Guid::new(GuidPrefix([b; 12]), EntityId([0, 0, 1, 2]))
}

const CFI: [u8; 6] = [1, 2, 3, 4, 5, 6];
const PEER_GROUP_KEY: [u8; 3] = [9, 8, 7];

/// Every parameter set.
fn full() -> InlineQos<'static> {
    InlineQos {
        key_hash: Some([0xAB; 16]),
        status_info: Some(1),
        content_filter_info: Some(&CFI),
        coherent_set: Some(SequenceNumber(3)),
        group_seq_num: Some(SequenceNumber(0x1_0000_0007)),
        group_coherent_set: Some(SequenceNumber(6)),
        writer_group_info: Some(WriterGroupInfo {
            writer_set: GroupDigest([1, 2, 3, 4]),
        }),
        original_writer_info: Some(SampleIdentity {
            writer_guid: guid(7),
            sequence_number: SequenceNumber(0x2_0000_0011),
        }),
        peer_group_key: Some(&PEER_GROUP_KEY),
    }
}

fn emitted(q: &InlineQos<'_>, endian: Endianness) -> Vec<u8> {
    let mut out = Vec::new();
    q.emit(&mut CdrWriter::new(&mut out, endian)).unwrap();
    assert_eq!(out.len(), q.buffer_len());
    out
}

fn view(bytes: &[u8], endian: Endianness) -> ParameterListView<'_> {
    ParameterListView::new_checked(&mut CdrReader::new(bytes, endian)).unwrap()
}

/// What the writer's hand-made encoding produced for the same change.
#[rustfmt::skip]
const FULL_LE: [u8; 128] = [
    112, 0, 16, 0, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171,
    113, 0, 4, 0, 0, 0, 0, 1,
    85, 0, 8, 0, 1, 2, 3, 4, 5, 6, 0, 0,
    86, 0, 8, 0, 0, 0, 0, 0, 3, 0, 0, 0,
    100, 0, 8, 0, 1, 0, 0, 0, 7, 0, 0, 0,
    99, 0, 8, 0, 0, 0, 0, 0, 6, 0, 0, 0,
    101, 0, 4, 0, 1, 2, 3, 4,
    97, 0, 28, 0, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 0, 0, 1, 2, 2, 0, 0, 0, 17, 0, 0, 0, 1, 0, 0, 0,
    0, 129, 4, 0, 9, 8, 7, 0,
    1, 0, 0, 0,
];

#[rustfmt::skip]
const FULL_BE: [u8; 128] = [
    0, 112, 0, 16, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171, 171,
    0, 113, 0, 4, 0, 0, 0, 1,
    0, 85, 0, 8, 1, 2, 3, 4, 5, 6, 0, 0,
    0, 86, 0, 8, 0, 0, 0, 0, 0, 0, 0, 3,
    0, 100, 0, 8, 0, 0, 0, 1, 0, 0, 0, 7,
    0, 99, 0, 8, 0, 0, 0, 0, 0, 0, 0, 6,
    0, 101, 0, 4, 1, 2, 3, 4,
    0, 97, 0, 28, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 0, 0, 1, 2, 0, 0, 0, 2, 0, 0, 0, 17, 0, 1, 0, 0,
    129, 0, 0, 4, 9, 8, 7, 0,
    0, 1, 0, 0,
];

#[test]
fn emits_the_bytes_of_the_previous_encoding() {
    assert_eq!(emitted(&full(), Endianness::Little), FULL_LE);
    assert_eq!(emitted(&full(), Endianness::Big), FULL_BE);
    let key_only = InlineQos {
        key_hash: Some([0xAB; 16]),
        ..InlineQos::default()
    };
    let mut expected = vec![112, 0, 16, 0];
    expected.extend([0xAB; 16]);
    expected.extend([1, 0, 0, 0]);
    assert_eq!(emitted(&key_only, Endianness::Little), expected);
    assert!(!key_only.is_empty());
    assert!(InlineQos::default().is_empty());
    assert_eq!(
        emitted(&InlineQos::default(), Endianness::Big),
        [0, 1, 0, 0]
    );
}

#[test]
fn round_trips_in_both_byte_orders() {
    // Raw values come back with their padding to 4 octets.
    let padded = InlineQos {
        content_filter_info: Some(&[1, 2, 3, 4, 5, 6, 0, 0]),
        peer_group_key: Some(&[9, 8, 7, 0]),
        ..full()
    };
    for endian in [Endianness::Little, Endianness::Big] {
        for q in [full(), padded] {
            let bytes = emitted(&q, endian);
            assert_eq!(
                InlineQos::parse(&view(&bytes, endian)),
                padded,
                "{endian:?}"
            );
        }
        let id = full().original_writer_info.unwrap();
        let mut value = Vec::new();
        id.emit(&mut CdrWriter::new(&mut value, endian));
        assert_eq!(value.len(), SampleIdentity::LEN);
        assert_eq!(SampleIdentity::parse(&value, endian), Ok(id));
    }
}

#[test]
fn malformed_values_are_absent_and_the_first_occurrence_wins() {
    // Values too short for their type, then well-formed repeats that must not be taken.
    #[rustfmt::skip]
    let bytes = [
        0x70, 0, 4, 0, 1, 2, 3, 4,          // KEY_HASH, 4 octets
        0x71, 0, 0, 0,                      // STATUS_INFO, empty
        0x56, 0, 4, 0, 0, 0, 0, 0,          // COHERENT_SET, 4 octets
        0x64, 0, 4, 0, 0, 0, 0, 0,          // GROUP_SEQ_NUM, 4 octets
        0x63, 0, 0, 0,                      // GROUP_COHERENT_SET, empty
        0x65, 0, 0, 0,                      // WRITER_GROUP_INFO, empty
        0x61, 0, 16, 0, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 0, 0, 1, 2, // ORIGINAL_WRITER_INFO, no SN
        0x71, 0, 4, 0, 0, 0, 0, 3,          // STATUS_INFO again: ignored
        0x99, 0, 4, 0, 1, 1, 1, 1,          // an unknown PID: skipped
        1, 0, 0, 0,
    ];
    let q = InlineQos::parse(&view(&bytes, Endianness::Little));
    assert_eq!(q, InlineQos::default());
    // A longer value is read up to what its type needs (the types may grow).
    #[rustfmt::skip]
    let longer = [
        0x65, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8,
        0x56, 0, 12, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
        1, 0, 0, 0,
    ];
    let q = InlineQos::parse(&view(&longer, Endianness::Little));
    assert_eq!(
        q.writer_group_info.unwrap().writer_set,
        GroupDigest([1, 2, 3, 4])
    );
    assert_eq!(q.coherent_set, Some(SequenceNumber(9)));
}

#[test]
fn a_value_too_long_for_a_parameter_is_refused_with_nothing_written() {
    let long = vec![0u8; usize::from(u16::MAX)];
    let q = InlineQos {
        key_hash: Some([1; 16]),
        content_filter_info: Some(&long),
        ..InlineQos::default()
    };
    let mut out = Vec::new();
    assert!(
        q.emit(&mut CdrWriter::new(&mut out, Endianness::Little))
            .is_err()
    );
    assert!(out.is_empty());
}

#[test]
fn a_patched_list_is_the_encoding_with_the_new_sn() {
    for endian in [Endianness::Little, Endianness::Big] {
        let mut q = full();
        q.peer_group_key = None;
        let mut list = emitted(&q, endian);
        let len = list.len() - 4;
        for sn in [6, 1 << 33, -1] {
            let id = SampleIdentity {
                writer_guid: guid(7),
                sequence_number: SequenceNumber(sn),
            };
            assert!(patch_original_sn(&mut list, len, id, endian));
            q.original_writer_info = Some(id);
            assert_eq!(list, emitted(&q, endian), "sn {sn} {endian:?}");
        }
        // Another writer, or a list not ending with PID_ORIGINAL_WRITER_INFO: untouched.
        let before = list.clone();
        let other = SampleIdentity {
            writer_guid: guid(8),
            sequence_number: SequenceNumber(1),
        };
        assert!(!patch_original_sn(&mut list, len, other, endian));
        assert!(!patch_original_sn(&mut list, 3, other, endian));
        assert!(!patch_original_sn(&mut list, len + 100, other, endian));
        assert_eq!(list, before);
        let mut with_key = emitted(&full(), endian);
        let key_len = with_key.len() - 4;
        let id = full().original_writer_info.unwrap();
        assert!(!patch_original_sn(&mut with_key, key_len, id, endian));
    }
}
