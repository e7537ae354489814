//! Validation rules taken from Cyclone DDS: what makes a submessage malformed (RTPS 2.5 §8.3.7, §9.4.5).
//! Must not: open sockets or read files.

// Test arithmetic works on small, known inputs; docs/conventions.md §4 targets parse paths.
#![allow(clippy::arithmetic_side_effects)]

use super::*;

// ---------- validation rules ----------

/// RTI Connext 6.1's habit (docs/interop-facts.md §5.8): first 90, last 86 is accepted and read
/// as the empty range 90..=89; a negative lastSN stays malformed.
#[test]
fn heartbeat_last_below_first_minus_one_is_an_empty_range_but_negative_is_malformed() {
    match accept_one(&heartbeat_bytes((0, 90), (0, 86))) {
        Submessage::Heartbeat(h) => {
            assert_eq!((h.first_sn.0, h.last_sn.0), (90, 89));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        malformed_one(&heartbeat_bytes((0, 5), (-1, 3))),
        WireError::Invalid("HEARTBEAT.lastSN")
    );
}

#[test]
fn heartbeat_empty_history_last_equals_first_minus_one_is_accepted() {
    accept_one(&heartbeat_bytes((0, 1), (0, 0)));
}

#[test]
fn heartbeat_first_sn_zero_or_negative_is_malformed() {
    malformed_one(&heartbeat_bytes((0, 0), (0, 0)));
    malformed_one(&heartbeat_bytes((-1, 0), (0, 1)));
}

#[test]
fn heartbeat_frag_writer_sn_zero_or_last_fragment_zero_is_malformed() {
    malformed_one(&sub(
        HEARTBEAT_FRAG,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 0),
            F::U32(1),
            F::I32(1),
        ],
    ));
    malformed_one(&sub(
        HEARTBEAT_FRAG,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 1),
            F::U32(0),
            F::I32(1),
        ],
    ));
}

#[test]
fn acknack_preemptive_base_zero_num_bits_zero_is_accepted_as_vendor_quirk() {
    let bytes = sub(
        ACKNACK,
        0,
        Little,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 0),
            F::U32(0),
            F::I32(1),
        ],
    );
    let Submessage::AckNack(a) = accept_one(&bytes) else {
        panic!("not ACKNACK")
    };
    assert!(a.is_preemptive());
}

#[test]
fn acknack_base_zero_with_bits_is_malformed() {
    let bytes = sub(
        ACKNACK,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 0),
            F::U32(1),
            F::U32(0),
            F::I32(1),
        ],
    );
    malformed_one(&bytes);
}

#[test]
fn acknack_with_more_than_256_bits_is_malformed() {
    let mut fields = vec![F::B(&RID.0), F::B(&WID.0), F::Sn(0, 1), F::U32(257)];
    fields.extend([F::U32(0); 9]);
    fields.push(F::I32(1));
    malformed_one(&sub(ACKNACK, 0, Big, &fields));
}

#[test]
fn nack_frag_base_zero_is_malformed() {
    let bytes = sub(
        NACK_FRAG,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 1),
            F::U32(0),
            F::U32(0),
            F::I32(1),
        ],
    );
    malformed_one(&bytes);
}

#[test]
fn gap_start_zero_is_malformed() {
    let bytes = sub(
        GAP,
        0,
        Big,
        &[
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 0),
            F::Sn(0, 1),
            F::U32(0),
        ],
    );
    malformed_one(&bytes);
}

#[test]
fn data_with_d_and_k_is_malformed() {
    assert_eq!(
        malformed_one(&data_bytes(0x0c, 16, (0, 1), &[])),
        WireError::Invalid("DATA flags D and K")
    );
}

#[test]
fn data_writer_sn_zero_or_negative_is_malformed() {
    malformed_one(&data_bytes(0x04, 16, (0, 0), &[]));
    malformed_one(&data_bytes(0x04, 16, (-1, 5), &[]));
}

#[test]
fn data_octets_to_inline_qos_above_16_skips_unknown_octets() {
    let bytes = data_bytes(0x04, 20, (0, 1), &[9, 9, 9, 9]);
    let Submessage::Data(d) = accept_one(&bytes) else {
        panic!("not DATA")
    };
    assert_eq!(d.payload, DataPayload::Data(&[0, 0, 0, 0]));
}

#[test]
fn data_octets_to_inline_qos_below_16_is_malformed() {
    malformed_one(&data_bytes(0x04, 12, (0, 1), &[]));
}

fn frag_bytes(start: u32, count: u16, size: u16, sample: u32) -> Vec<u8> {
    sub(
        DATA_FRAG,
        0,
        Big,
        &[
            F::U16(0),
            F::U16(28),
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 1),
            F::U32(start),
            F::U16(count),
            F::U16(size),
            F::U32(sample),
            F::B(&[1, 2, 3, 4]),
        ],
    )
}

#[test]
fn data_frag_fragment_size_zero_is_malformed() {
    malformed_one(&frag_bytes(1, 1, 0, 100));
}

#[test]
fn data_frag_starting_num_zero_is_malformed() {
    malformed_one(&frag_bytes(0, 1, 4, 100));
}

#[test]
fn data_frag_fragment_beyond_sample_size_is_malformed() {
    // Fragment 3 of size 4 starts at offset 8; a sample of 8 octets has no fragment 3.
    malformed_one(&frag_bytes(3, 1, 4, 8));
    // First fragment inside, but the second of this submessage starts past the sample.
    malformed_one(&frag_bytes(2, 2, 4, 8));
    accept_one(&frag_bytes(2, 1, 4, 8));
    accept_one(&frag_bytes(2, 1, 4, 5));
}

#[test]
fn data_frag_writer_sn_zero_is_malformed() {
    let bytes = sub(
        DATA_FRAG,
        0,
        Big,
        &[
            F::U16(0),
            F::U16(28),
            F::B(&RID.0),
            F::B(&WID.0),
            F::Sn(0, 0),
            F::U32(1),
            F::U16(1),
            F::U16(4),
            F::U32(4),
        ],
    );
    malformed_one(&bytes);
}

#[test]
fn info_reply_locator_count_above_cap_is_refused_before_allocation() {
    // A count of 65 with 65 * 24 octets present: over our cap.
    let locs = vec![0u8; 65 * 24];
    let bytes = sub(INFO_REPLY, 0, Big, &[F::U32(65), F::B(&locs)]);
    assert_eq!(
        malformed_one(&bytes),
        WireError::TooLarge("INFO_REPLY.locatorList")
    );
    // A huge count with few bytes: truncated, checked before any allocation.
    let bytes = sub(INFO_REPLY, 0, Big, &[F::U32(0xffff_ffff), F::B(&[0; 24])]);
    malformed_one(&bytes);
}

#[test]
fn info_ts_with_zero_length_and_no_invalidate_flag_is_malformed() {
    // RTPS 2.5 §9.4.5.1.3: for INFO_TS, octetsToNextHeader 0 means an empty body.
    let mut bytes = vec![INFO_TS, 0x01, 0, 0];
    bytes.extend(sub(INFO_DST, 0, Little, &[F::B(&PREFIX.0)]));
    malformed_one(&bytes[..4]);
    let mut ok = vec![INFO_TS, 0x03, 0, 0];
    ok.extend(sub(INFO_DST, 0, Little, &[F::B(&PREFIX.0)]));
    assert_eq!(outcomes(&ok).len(), 2);
}
