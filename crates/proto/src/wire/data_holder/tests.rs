use super::*;

fn holder() -> DataHolder {
    let mut h = DataHolder::new("DDS:Auth:PKI-DH:1.0+Req");
    h.push_property("dds.cert.sn", "/C=NL/O=Siftdds Test/CN=alice");
    h.push_binary("c.dsign_algo", b"ECDSA-SHA256\0".to_vec());
    h.push_binary("challenge1", vec![7; 32]);
    h
}

fn message() -> ParticipantGenericMessage {
    ParticipantGenericMessage {
        message_identity: MessageIdentity {
            source_guid: Guid {
                prefix: GuidPrefix([1; 12]),
                entity_id: EntityId([0, 2, 1, 0xc3]),
            },
            sequence_number: 5,
        },
        message_class_id: GMCLASSID_SECURITY_AUTH_HANDSHAKE.to_owned(),
        message_data: vec![holder()],
        ..ParticipantGenericMessage::default()
    }
}

#[test]
fn data_holder_round_trips_in_both_byte_orders() {
    for endian in [Endianness::Big, Endianness::Little] {
        let bytes = holder().to_bytes(endian);
        assert_eq!(DataHolder::from_bytes(&bytes, endian), Ok(holder()));
    }
}

#[test]
fn generic_message_round_trips() {
    let mut bytes = Vec::new();
    message().emit(&mut CdrWriter::new(&mut bytes, Endianness::Little));
    let got = ParticipantGenericMessage::parse(&mut CdrReader::new(&bytes, Endianness::Little));
    assert_eq!(got, Ok(message()));
}

#[test]
fn truncating_a_generic_message_at_every_offset_is_an_error() {
    let mut bytes = Vec::new();
    message().emit(&mut CdrWriter::new(&mut bytes, Endianness::Big));
    for cut in 0..bytes.len() {
        let r =
            ParticipantGenericMessage::parse(&mut CdrReader::new(&bytes[..cut], Endianness::Big));
        assert!(r.is_err(), "cut at {cut}");
    }
}

#[test]
fn huge_counts_are_refused_before_allocating() {
    // class_id "", then a property count of 2^31.
    let bytes = [0, 0, 0, 1, 0, 0, 0, 0, 0x80, 0, 0, 0];
    assert!(DataHolder::from_bytes(&bytes, Endianness::Big).is_err());
    let mut many = DataHolder::new("x");
    for _ in 0..=MAX_HOLDER_PROPERTIES {
        many.push_binary("a", Vec::new());
    }
    let bytes = many.to_bytes(Endianness::Big);
    assert_eq!(
        DataHolder::from_bytes(&bytes, Endianness::Big),
        Err(CdrError::TooLarge("DataHolder.binary_properties"))
    );
}
