//! Golden layouts of the secure submessages, big-endian lengths under either E flag, and
//! bounded decoding of truncated and oversized input.
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::wire::submessage::{SubmessageHeader, SubmessageIter, SubmessageOutcome};

fn header() -> CryptoHeader {
    CryptoHeader {
        transform_identifier: CryptoTransformIdentifier {
            transformation_kind: [0, 0, 0, 2],
            transformation_key_id: [1, 2, 3, 4],
        },
        session_id: [5, 6, 7, 8],
        initialization_vector_suffix: [9, 10, 11, 12, 13, 14, 15, 16],
    }
}

#[test]
fn crypto_header_is_twenty_octets_in_order_and_gives_the_iv() {
    let mut buf = Vec::new();
    emit_prefix(&mut buf, SEC_PREFIX, Endianness::Little, &header());
    // Submessage header: id, flags with E, octetsToNextHeader 20 little-endian.
    assert_eq!(&buf[..4], &[SEC_PREFIX, 0x01, 20, 0]);
    assert_eq!(
        &buf[4..],
        &[
            0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
        ]
    );
    let parsed = SecureSubmessage::parse(SEC_PREFIX, &buf[4..]).unwrap();
    assert_eq!(parsed, Some(SecureSubmessage::SecPrefix(header())));
    assert_eq!(
        header().initialization_vector(),
        [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
    );
}

#[test]
fn crypto_content_length_is_big_endian_under_either_e_flag_and_body_is_padded() {
    for endian in [Endianness::Little, Endianness::Big] {
        let mut buf = Vec::new();
        let data = [0xaa; 5];
        emit_body(
            &mut buf,
            endian,
            &CryptoContent {
                crypto_content: &data,
            },
        );
        // 4 (length) + 5 (data) + 3 (padding) = 12 octets of body.
        assert_eq!(buf.len(), 4 + 12);
        assert_eq!(&buf[4..8], &[0, 0, 0, 5]);
        assert_eq!(&buf[13..], &[0, 0, 0]);
        let Some(SecureSubmessage::SecBody(c)) =
            SecureSubmessage::parse(SEC_BODY, &buf[4..]).unwrap()
        else {
            panic!("not a SEC_BODY");
        };
        assert_eq!(c.crypto_content, &data);
    }
}

#[test]
fn crypto_footer_round_trips_with_receiver_specific_macs() {
    let macs: Vec<ReceiverSpecificMac> = (0..3u8)
        .map(|i| ReceiverSpecificMac {
            receiver_mac_key_id: [0, 0, 0, i],
            receiver_mac: [i; 16],
        })
        .collect();
    let mut buf = Vec::new();
    emit_postfix(
        &mut buf,
        SRTPS_POSTFIX,
        Endianness::Little,
        &CryptoFooter::new([7; 16]),
        &macs,
    );
    assert_eq!(buf.len(), 4 + 16 + 4 + 3 * 20);
    assert_eq!(&buf[20..24], &[0, 0, 0, 3], "count is big-endian");
    let Some(SecureSubmessage::SrtpsPostfix(f)) =
        SecureSubmessage::parse(SRTPS_POSTFIX, &buf[4..]).unwrap()
    else {
        panic!("not an SRTPS_POSTFIX");
    };
    assert_eq!(f.common_mac, [7; 16]);
    assert_eq!(f.receiver_specific_macs().collect::<Vec<_>>(), macs);
    // Re-emitting a parsed footer with one more MAC appends it.
    let mut again = Vec::new();
    emit_postfix(
        &mut again,
        SRTPS_POSTFIX,
        Endianness::Little,
        &f,
        &macs[..1],
    );
    assert_eq!(again.len(), buf.len() + 20);
}

#[test]
fn truncated_and_oversized_inputs_are_errors() {
    assert_eq!(
        SecureSubmessage::parse(SEC_PREFIX, &[0; 19]),
        Err(WireError::Truncated("CryptoHeader"))
    );
    // A content length past the body.
    assert!(matches!(
        SecureSubmessage::parse(SEC_BODY, &[0, 0, 0, 9, 1, 2]),
        Err(WireError::Truncated(_))
    ));
    assert!(matches!(
        SecureSubmessage::parse(SEC_BODY, &[0xff, 0xff, 0xff, 0xff]),
        Err(WireError::Truncated(_))
    ));
    // A MAC count past the bound, and one past the bytes.
    let mut footer = vec![0u8; 16];
    footer.extend_from_slice(&[0xff, 0xff, 0xff, 0xff]);
    assert!(matches!(
        SecureSubmessage::parse(SEC_POSTFIX, &footer),
        Err(WireError::TooLarge(_))
    ));
    let mut footer = vec![0u8; 16];
    footer.extend_from_slice(&[0, 0, 0, 2]);
    footer.extend_from_slice(&[0; 20]);
    assert!(matches!(
        SecureSubmessage::parse(SEC_POSTFIX, &footer),
        Err(WireError::Truncated(_))
    ));
    assert_eq!(SecureSubmessage::parse(0x15, &[]), Ok(None));
}

#[test]
fn the_submessage_iterator_skips_secure_submessages_as_not_understood() {
    // The participant decides what to do with them; the generic walk just carries them.
    let mut buf = Vec::new();
    emit_prefix(&mut buf, SEC_PREFIX, Endianness::Big, &header());
    let outcomes: Vec<_> = SubmessageIter::new(&buf).collect();
    assert!(matches!(
        outcomes.as_slice(),
        [SubmessageOutcome::NotUnderstood { id: SEC_PREFIX, .. }]
    ));
    let mut r = CdrReader::new(&buf, Endianness::Big);
    assert_eq!(
        SubmessageHeader::parse(&mut r)
            .unwrap()
            .octets_to_next_header,
        20
    );
}
