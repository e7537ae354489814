use super::*;

#[test]
fn round_trips_in_both_byte_orders_and_peeks_without_the_baggage() {
    let s = KeyedSeq {
        seq: 7,
        keyval: 3,
        baggage: vec![0xee; 5],
    };
    for e in [Endianness::Little, Endianness::Big] {
        let bytes = s.serialize(e);
        assert_eq!(bytes.len(), 4 + 12 + 5);
        assert_eq!(KeyedSeq::deserialize(&bytes), Ok(s.clone()));
        assert_eq!(KeyedSeq::peek(&bytes), Ok((7, 3, 17)));
    }
}

#[test]
fn peek_refuses_truncated_samples_and_a_baggage_longer_than_the_bytes() {
    let bytes = KeyedSeq {
        seq: 1,
        keyval: 2,
        baggage: vec![1; 8],
    }
    .serialize(Endianness::Big);
    for cut in 0..bytes.len() {
        assert!(KeyedSeq::peek(&bytes[..cut]).is_err(), "cut {cut}");
    }
    assert_eq!(KeyedSeq::peek(&bytes), Ok((1, 2, 20)));
}

#[test]
fn reads_the_bytes_ddsperf_sends() {
    // CDR_LE, seq 1, keyval 0, baggage of 4 octets 0xee (ddsperf `size 16`).
    let wire = [
        0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0xee, 0xee, 0xee, 0xee,
    ];
    let got = KeyedSeq::deserialize(&wire);
    assert_eq!(
        got,
        Ok(KeyedSeq {
            seq: 1,
            keyval: 0,
            baggage: vec![0xee; 4]
        })
    );
    assert_eq!(got.map(|s| s.size()), Ok(16));
}

#[test]
fn truncated_or_oversized_payloads_are_errors() {
    let bytes = KeyedSeq {
        seq: 1,
        keyval: 2,
        baggage: vec![1; 8],
    }
    .serialize(Endianness::Little);
    for cut in 0..bytes.len() {
        assert!(KeyedSeq::deserialize(&bytes[..cut]).is_err(), "cut {cut}");
    }
    let mut huge = bytes.clone();
    huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(KeyedSeq::deserialize(&huge).is_err());
}

#[test]
fn key_hash_is_the_big_endian_keyval_and_matches_the_serialized_key() {
    let s = KeyedSeq {
        seq: 0,
        keyval: 0x0102_0304,
        baggage: vec![],
    };
    let mut expected = [0u8; 16];
    expected[..4].copy_from_slice(&[1, 2, 3, 4]);
    assert_eq!(s.key_hash(), Some(expected));
    let key = s.serialize_key(Endianness::Little);
    assert_eq!(
        key.as_deref()
            .and_then(KeyedSeq::key_hash_from_serialized_key),
        Some(expected)
    );
}
