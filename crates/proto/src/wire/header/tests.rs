use super::*;

#[test]
fn rtis_ping_is_recognised_by_its_exact_shape() {
    let ping = *b"RTPS\x02\x05\x01\x01NDDSPING";
    assert!(is_vendor_ping(&ping));
    assert!(!is_vendor_ping(&ping[..15]));
    let mut longer = ping.to_vec();
    longer.push(0);
    assert!(!is_vendor_ping(&longer));
    let mut other = ping;
    other[0] = b'X';
    assert!(!is_vendor_ping(&other));
    other = ping;
    other[15] = b'X';
    assert!(!is_vendor_ping(&other));
    // Still not an RTPS message.
    assert!(Header::parse(&mut CdrReader::new(&ping, Endianness::Big)).is_err());
}

const GOLDEN: [u8; 20] = [
    b'R', b'T', b'P', b'S', 2, 1, 0x01, 0x10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
];

#[test]
fn header_parses_and_round_trips() {
    let h = Header::parse(&mut CdrReader::new(&GOLDEN, Endianness::Little)).unwrap();
    assert_eq!(h.version, ProtocolVersion { major: 2, minor: 1 });
    assert_eq!(h.vendor_id, VendorId::CYCLONE_DDS);
    assert_eq!(
        h.guid_prefix,
        GuidPrefix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    );
    let mut v = Vec::new();
    h.emit(&mut v);
    assert_eq!(v, GOLDEN);
}

#[test]
fn header_with_wrong_magic_is_invalid() {
    let mut b = GOLDEN;
    b[0] = b'X';
    assert!(Header::parse(&mut CdrReader::new(&b, Endianness::Big)).is_err());
}

#[test]
fn header_with_major_version_3_is_invalid() {
    let mut b = GOLDEN;
    b[4] = 3;
    assert_eq!(
        Header::parse(&mut CdrReader::new(&b, Endianness::Big)),
        Err(WireError::Invalid("header.version.major"))
    );
}

#[test]
fn truncated_header_is_an_error_at_every_offset() {
    for cut in 0..GOLDEN.len() {
        assert!(Header::parse(&mut CdrReader::new(&GOLDEN[..cut], Endianness::Big)).is_err());
    }
}
