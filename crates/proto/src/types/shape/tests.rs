use super::*;

#[test]
fn round_trips_and_reads_the_four_member_vendor_form() {
    let s = ShapeType {
        color: "RED".into(),
        x: 10,
        y: 20,
        shapesize: 30,
        additional_payload_size: vec![1, 2],
    };
    for e in [Endianness::Little, Endianness::Big] {
        assert_eq!(ShapeType::deserialize(&s.serialize(e)), Ok(s.clone()));
    }
    // What Cyclone's and Fast DDS's demo ShapeType (no sequence) put on the wire.
    let vendor = [
        0, 1, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0,
    ];
    let got = ShapeType::deserialize(&vendor);
    assert_eq!(
        got,
        Ok(ShapeType {
            additional_payload_size: vec![],
            ..s
        })
    );
}

#[test]
fn serialized_key_is_the_xcdr1_color_and_maps_back_to_the_key_hash() {
    let s = ShapeType {
        color: "RED".into(),
        x: 1,
        y: 2,
        shapesize: 3,
        additional_payload_size: vec![7],
    };
    let key = s.serialize_key(Endianness::Little).unwrap();
    assert_eq!(key, [0, 1, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0]);
    assert_eq!(ShapeType::key_hash_from_serialized_key(&key), s.key_hash());
    // Big-endian, and with trailing zero padding (what our writer sends, see core::writer).
    let mut be = s.serialize_key(Endianness::Big).unwrap();
    be.resize(20, 0);
    assert_eq!(ShapeType::key_hash_from_serialized_key(&be), s.key_hash());
    assert_eq!(ShapeType::key_hash_from_serialized_key(&key[..7]), None);
}

/// What pip `cyclonedds` 11.0.1 `ShapeType.serialize(use_version_2=True)` gives for the
/// 5-member @appendable type, plus the trailing padding Cyclone's serdata adds (counted
/// in the options): D_CDR2, DHEADER 26.
#[test]
fn xcdr2_is_d_cdr2_with_dheader_in_both_byte_orders() {
    let s = ShapeType {
        color: "RED".into(),
        x: 10,
        y: 20,
        shapesize: 30,
        additional_payload_size: vec![1, 2],
    };
    let le = s
        .serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
        .unwrap();
    assert_eq!(
        le,
        [
            0, 9, 0, 2, 26, 0, 0, 0, 4, 0, 0, 0, b'R', b'E', b'D', 0, 10, 0, 0, 0, 20, 0, 0, 0, 30,
            0, 0, 0, 2, 0, 0, 0, 1, 2, 0, 0
        ]
    );
    let be = s.serialize_as(XcdrVersion::Xcdr2, Endianness::Big).unwrap();
    assert_eq!(
        be,
        [
            0, 8, 0, 2, 0, 0, 0, 26, 0, 0, 0, 4, b'R', b'E', b'D', 0, 0, 0, 0, 10, 0, 0, 0, 20, 0,
            0, 0, 30, 0, 0, 0, 2, 1, 2, 0, 0
        ]
    );
    for bytes in [le, be] {
        assert_eq!(ShapeType::deserialize(&bytes), Ok(s.clone()));
    }
    assert_eq!(
        s.serialize_as(XcdrVersion::Xcdr1, Endianness::Little),
        Some(s.serialize(Endianness::Little))
    );
    assert!(ShapeType::supports(XcdrVersion::Xcdr2) && ShapeType::supports(XcdrVersion::Xcdr1));
}

/// pip `cyclonedds` 11.0.1, 4-member @appendable ShapeType, XCDR2 (the vendors' demo type):
/// its DHEADER ends after `shapesize`; a newer type's appended members are skipped.
#[test]
fn xcdr2_reads_older_and_newer_appendable_forms() {
    let older = [
        0, 9, 0, 0, 24, 0, 0, 0, 5, 0, 0, 0, b'B', b'L', b'U', b'E', 0, 0, 0, 0, 1, 0, 0, 0, 2, 0,
        0, 0, 3, 0, 0, 0,
    ];
    let want = ShapeType {
        color: "BLUE".into(),
        x: 1,
        y: 2,
        shapesize: 3,
        additional_payload_size: vec![],
    };
    assert_eq!(ShapeType::deserialize(&older), Ok(want.clone()));
    // A newer writer appended a long after the sequence: DHEADER 28 + 4.
    let mut newer = want
        .serialize_as(XcdrVersion::Xcdr2, Endianness::Little)
        .unwrap();
    assert_eq!(newer.get(4), Some(&28));
    newer[4] = 32;
    newer.extend_from_slice(&[9, 9, 9, 9]);
    assert_eq!(ShapeType::deserialize(&newer), Ok(want.clone()));
    // A DHEADER longer than the payload, and the final (CDR2, no DHEADER) form.
    newer[4] = 40;
    assert!(ShapeType::deserialize(&newer).is_err());
    let mut plain = older.to_vec();
    plain.drain(4..8);
    plain[1] = 7;
    assert_eq!(ShapeType::deserialize(&plain), Ok(want));
    // Cyclone's XCDR2 serialized key (`serialize_key(use_version_2=True)`): D_CDR2 + DHEADER.
    let key = [
        0, 9, 0, 0, 9, 0, 0, 0, 5, 0, 0, 0, b'B', b'L', b'U', b'E', 0,
    ];
    assert_eq!(
        ShapeType::key_hash_from_serialized_key(&key),
        Some(color_key_hash("BLUE"))
    );
    assert_eq!(ShapeType::key_hash_from_serialized_key(&key[..12]), None);
}

#[test]
fn xcdr2_truncations_and_other_encapsulations_are_errors() {
    let s = ShapeType {
        color: "BLUE".into(),
        x: 1,
        y: 2,
        shapesize: 3,
        additional_payload_size: vec![9; 5],
    };
    let bytes = s.serialize_as(XcdrVersion::Xcdr2, Endianness::Big).unwrap();
    for cut in 0..28 {
        assert!(ShapeType::deserialize(&bytes[..cut]).is_err(), "cut {cut}");
    }
    for id in [2u8, 3, 4, 10, 11] {
        let mut other = bytes.clone();
        other[1] = id;
        assert!(
            ShapeType::deserialize(&other).is_err(),
            "encapsulation {id}"
        );
    }
}

#[test]
fn truncated_payloads_are_errors() {
    let s = ShapeType {
        color: "BLUE".into(),
        x: 1,
        y: 2,
        shapesize: 3,
        additional_payload_size: vec![9; 5],
    };
    let bytes = s.serialize(Endianness::Little);
    for cut in 0..20 {
        assert!(ShapeType::deserialize(&bytes[..cut]).is_err(), "cut {cut}");
    }
}

#[test]
fn xcdr1_payload_is_padded_to_4_with_the_count_in_the_options() {
    for size in [0usize, 1, 2, 3, 1021, 1024] {
        let s = ShapeType {
            color: "BLUE".into(),
            x: 1,
            y: 2,
            shapesize: 3,
            additional_payload_size: vec![7; size],
        };
        for e in [Endianness::Big, Endianness::Little] {
            let bytes = s.serialize(e);
            // header 4, color 4 + 5 + 3 (align), x y shapesize 12, length 4, then the octets
            let unpadded = 32 + size;
            assert_eq!(bytes.len() % 4, 0, "size {size}");
            assert_eq!(usize::from(bytes[3] & 3), bytes.len() - unpadded);
            assert_eq!(ShapeType::deserialize(&bytes), Ok(s.clone()));
        }
    }
}
