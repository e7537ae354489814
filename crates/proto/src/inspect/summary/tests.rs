use super::*;

fn datagram(frame: u64, payload: &[u8]) -> Datagram {
    Datagram {
        frame,
        src: "127.0.0.1:7400".parse().unwrap(),
        dst: "127.0.0.1:7410".parse().unwrap(),
        payload: payload.to_vec(),
    }
}

/// RTI's 16-byte ping is a ping, not a malformed message (docs/interop-facts.md §5.11).
#[test]
fn rtis_ping_counts_as_a_ping() {
    let mut totals = Totals::default();
    let mut out = Vec::new();
    summarize(
        &datagram(1, b"RTPS\x02\x05\x01\x01NDDSPING"),
        &mut out,
        &mut totals,
    )
    .unwrap();
    summarize(
        &datagram(2, b"RTPS\x02\x05\x01\x01NDDSPONG"),
        &mut out,
        &mut totals,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("     1 127.0.0.1:7400 > 127.0.0.1:7410 PING NDDSPING (RTI"),
        "{text}"
    );
    assert_eq!((totals.pings, totals.messages, totals.malformed), (1, 1, 1));
    assert!(totals.to_string().ends_with(", pings: 1"));
}

/// DDS-Security 1.1 §7.3.7: an RTPS message protected at the message level
/// (SRTPS_PREFIX, SEC_BODY, SRTPS_POSTFIX) is shown part by part, not as skipped submessages.
#[test]
fn secure_submessages_are_decoded() {
    use crate::cdr::Endianness;
    use crate::wire::security::{
        CryptoContent, CryptoFooter, CryptoHeader, CryptoTransformIdentifier, ReceiverSpecificMac,
        SRTPS_POSTFIX, SRTPS_PREFIX, emit_body, emit_postfix, emit_prefix,
    };
    let mut msg = b"RTPS\x02\x05\x01\x10".to_vec();
    msg.extend_from_slice(&[1; 12]);
    let h = CryptoHeader {
        transform_identifier: CryptoTransformIdentifier {
            transformation_kind: [0, 0, 0, 2],
            transformation_key_id: [0, 0, 0, 7],
        },
        session_id: [0, 0, 0, 1],
        initialization_vector_suffix: [0, 0, 0, 0, 0, 0, 0, 9],
    };
    emit_prefix(&mut msg, SRTPS_PREFIX, Endianness::Little, &h);
    emit_body(
        &mut msg,
        Endianness::Little,
        &CryptoContent {
            crypto_content: &[0x5a; 40],
        },
    );
    let mac = ReceiverSpecificMac {
        receiver_mac_key_id: [0, 0, 0, 3],
        receiver_mac: [2; 16],
    };
    emit_postfix(
        &mut msg,
        SRTPS_POSTFIX,
        Endianness::Little,
        &CryptoFooter::new([1; 16]),
        &[mac],
    );
    let mut totals = Totals::default();
    let mut out = Vec::new();
    summarize(&datagram(1, &msg), &mut out, &mut totals).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("SRTPS_PREFIX   kind=AES128_GCM key=00000007 session=00000001"),
        "{text}"
    );
    assert!(text.contains("SEC_BODY       content=40 octets"), "{text}");
    assert!(
        text.contains("SRTPS_POSTFIX  common_mac=01010101"),
        "{text}"
    );
    assert!(
        text.contains("receiver_macs=1 keys=[key=00000003]"),
        "{text}"
    );
    assert_eq!(
        (totals.submessages, totals.not_understood, totals.malformed),
        (3, 0, 0)
    );
}

/// Real bytes: datagrams two Cyclone DDS 0.10.2 `ddsperf` processes exchanged under a
/// governance with discovery, liveliness, metadata and data ENCRYPT and RTPS SIGN
/// (`tests/data/security/README.md`): SEC_PREFIX/SEC_BODY/SEC_POSTFIX, alone and inside
/// SRTPS_PREFIX … SRTPS_POSTFIX. Without the keys only the structure can be checked: every
/// secure submessage decodes, nothing is malformed or skipped, and each SRTPS message's
/// protected part is found between its prefix and postfix.
#[cfg(feature = "security")]
#[test]
fn cyclone_secure_capture_decodes_structurally() {
    use crate::inspect::run;
    use crate::security::crypto::{Protected, peek_crypto_header};
    let bytes = include_bytes!("../../../tests/data/security/cyclone-ddsperf-encrypt.pcapng");
    let mut out = Vec::new();
    let totals = run(&bytes[..], &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(totals.messages, 7, "{text}");
    assert_eq!((totals.malformed, totals.not_understood), (0, 0), "{text}");
    for name in [
        "SRTPS_PREFIX",
        "SRTPS_POSTFIX",
        "SEC_PREFIX",
        "SEC_BODY",
        "SEC_POSTFIX",
    ] {
        assert!(text.contains(name), "{name} missing:\n{text}");
    }
    // Cyclone's transformation kinds: AES256-GCM for submessages, AES256-GMAC for RTPS SIGN.
    assert!(text.contains("SEC_PREFIX     kind=AES256_GCM"), "{text}");
    assert!(text.contains("SRTPS_PREFIX   kind=AES256_GMAC"), "{text}");
    let mut srtps = 0;
    crate::inspect::capture::for_each_datagram(&bytes[..], |d| {
        if d.payload.get(20) == Some(&crate::wire::security::SRTPS_PREFIX) {
            let h = peek_crypto_header(&d.payload, Protected::Message).unwrap();
            assert_eq!(h.transform_identifier.transformation_kind, [0, 0, 0, 3]);
            srtps += 1;
        }
    })
    .unwrap();
    assert_eq!(srtps, 4);
}

/// A stateless message's DATA (DDS-Security 1.1 §7.4.3) shows the message class and the class
/// id of its handshake token, which says the step of the handshake (§9.3.2.5); a payload that
/// is not a ParticipantGenericMessage is reported invalid, and the walk goes on.
#[test]
fn stateless_handshake_messages_show_their_token_class_ids() {
    use crate::cdr::{CdrWriter, Endianness};
    use crate::wire::data_holder::{
        DataHolder, GMCLASSID_SECURITY_AUTH_HANDSHAKE, ParticipantGenericMessage,
    };
    use crate::wire::{GuidPrefix, Header, SequenceNumber, emit_message};
    let stateless = |payload: &[u8]| {
        let data = Data {
            endian: Endianness::Little,
            extra_flags: 0,
            reader_id: EntityId([0, 2, 1, 0xc4]),
            writer_id: STATELESS_WRITER,
            writer_sn: SequenceNumber(1),
            inline_qos: None,
            payload: DataPayload::Data(payload),
        };
        let mut msg = Vec::new();
        emit_message(
            &Header::new(GuidPrefix([1; 12])),
            &[Submessage::Data(data)],
            &mut msg,
        );
        msg
    };
    let mut token = DataHolder::new("DDS:Auth:PKI-DH:1.0+Req");
    token.push_binary("challenge1", vec![7; 32]);
    let m = ParticipantGenericMessage {
        message_class_id: GMCLASSID_SECURITY_AUTH_HANDSHAKE.into(),
        message_data: vec![token],
        ..ParticipantGenericMessage::default()
    };
    let mut payload = vec![0, 1, 0, 0];
    m.emit(&mut CdrWriter::new(&mut payload, Endianness::Little));
    let mut totals = Totals::default();
    let mut out = Vec::new();
    summarize(&datagram(1, &stateless(&payload)), &mut out, &mut totals).unwrap();
    summarize(
        &datagram(2, &stateless(&[0, 1, 0, 0, 9])),
        &mut out,
        &mut totals,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("DATA(stateless) w=000201c3")
            && text.contains(" class=dds.sec.auth tokens=[DDS:Auth:PKI-DH:1.0+Req]"),
        "{text}"
    );
    assert!(text.contains("message=INVALID("), "{text}");
    assert_eq!((totals.messages, totals.malformed), (2, 0));
}
