use super::*;

pub(crate) fn sample() -> ParticipantProxyData {
    let mut p = ParticipantProxyData::new(GuidPrefix([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), 7);
    p.domain_tag = "tag".into();
    p.expects_inline_qos = true;
    p.metatraffic_unicast_locators = vec![Locator::udpv4([10, 0, 0, 1], 9160)];
    p.metatraffic_multicast_locators = vec![Locator::udpv4([239, 255, 0, 1], 9150)];
    p.default_unicast_locators = vec![
        Locator::udpv4([10, 0, 0, 1], 9161),
        Locator::udpv4([10, 0, 0, 2], 9161),
    ];
    p.default_multicast_locators = vec![Locator::udpv4([239, 255, 0, 1], 9151)];
    p.lease_duration = Duration {
        seconds: 20,
        fraction: 0,
    };
    p.manual_liveliness_count = 3;
    p.user_data = vec![1, 2, 3];
    p.entity_name = Some("router".into());
    p.properties = vec![("a".into(), "b".into())];
    p
}

#[test]
fn round_trips_in_both_byte_orders() {
    for endian in [Endianness::Big, Endianness::Little] {
        let p = sample();
        let bytes = p.to_payload(endian).unwrap();
        assert_eq!(
            ParticipantProxyData::from_payload(&bytes, VendorId::UNKNOWN),
            Ok(p)
        );
        let minimal = ParticipantProxyData::new(GuidPrefix([9; 12]), 0);
        let bytes = minimal.to_payload(endian).unwrap();
        assert_eq!(
            ParticipantProxyData::from_payload(&bytes, VendorId::UNKNOWN),
            Ok(minimal)
        );
    }
}

#[test]
fn empty_domain_tag_is_not_sent_and_mandatory_pids_are() {
    let bytes = ParticipantProxyData::new(GuidPrefix([9; 12]), 0)
        .to_payload(Endianness::Little)
        .unwrap();
    let params = decode(&bytes, VendorId::SIFTDDS).unwrap();
    let pids: Vec<u16> = params.iter().map(Parameter::pid).collect();
    assert!(!pids.contains(&PID_DOMAIN_TAG));
    for pid in [
        PID_PARTICIPANT_GUID,
        PID_BUILTIN_ENDPOINT_SET,
        PID_PROTOCOL_VERSION,
        PID_VENDORID,
        PID_PARTICIPANT_LEASE_DURATION,
        PID_DOMAIN_ID,
    ] {
        assert!(pids.contains(&pid), "0x{pid:04x} missing");
    }
}

fn payload(params: &[Parameter<'_>]) -> Vec<u8> {
    encode(params, Endianness::Little).unwrap()
}

#[test]
fn defaults_fallbacks_and_rejections() {
    let g = Guid::new(GuidPrefix([4; 12]), EntityId::PARTICIPANT);
    let version = known(
        PID_PROTOCOL_VERSION,
        Value::ProtocolVersion(ProtocolVersion { major: 2, minor: 1 }),
    );
    let set = known(PID_BUILTIN_ENDPOINT_SET, Value::U32(0x3f));
    // Key hash instead of PARTICIPANT_GUID; no lease: 100 s; vendor from the header.
    let p = ParticipantProxyData::from_payload(
        &payload(&[
            version.clone(),
            set.clone(),
            known(PID_KEY_HASH, Value::KeyHash(g.to_bytes())),
        ]),
        VendorId::CYCLONE_DDS,
    )
    .unwrap();
    assert_eq!(p.guid(), g);
    assert_eq!(p.lease_duration, DEFAULT_LEASE_DURATION);
    assert_eq!(p.vendor_id, VendorId::CYCLONE_DDS);
    assert_eq!(p.domain_id, None);
    let guid = known(PID_PARTICIPANT_GUID, Value::Guid(g));
    let err = |params: &[Parameter<'_>]| {
        ParticipantProxyData::from_payload(&payload(params), VendorId::UNKNOWN)
    };
    assert_eq!(
        err(&[version.clone(), set.clone()]),
        Err(DiscoveryError::Missing("PID_PARTICIPANT_GUID"))
    );
    assert_eq!(
        err(&[version.clone(), guid.clone()]),
        Err(DiscoveryError::Missing("PID_BUILTIN_ENDPOINT_SET"))
    );
    assert_eq!(
        err(&[set.clone(), guid.clone()]),
        Err(DiscoveryError::Missing("PID_PROTOCOL_VERSION"))
    );
    let v1 = known(
        PID_PROTOCOL_VERSION,
        Value::ProtocolVersion(ProtocolVersion { major: 1, minor: 0 }),
    );
    assert!(matches!(
        err(&[v1, set.clone(), guid.clone()]),
        Err(DiscoveryError::Invalid(_))
    ));
    // The deprecated PID_PARTICIPANT_BUILTIN_ENDPOINTS stands in for the set.
    let legacy = known(PID_PARTICIPANT_BUILTIN_ENDPOINTS, Value::U32(0x3f));
    assert_eq!(
        err(&[version.clone(), legacy, guid.clone()]).map(|p| p.available_builtin_endpoints.0),
        Ok(0x3f)
    );
    // Unknown PIDs are skipped; an unknown must-understand PID is not understood.
    let raw = |pid| {
        Parameter::Unknown(crate::wire::plist::RawParameter {
            pid,
            value: &[0, 0, 0, 0],
        })
    };
    assert!(err(&[raw(0x0fff), version.clone(), set.clone(), guid.clone()]).is_ok());
    assert_eq!(
        err(&[raw(0x4fff), version, set, guid]),
        Err(DiscoveryError::NotUnderstood(0x4fff))
    );
}

#[test]
fn more_than_max_locators_are_dropped() {
    let mut p = ParticipantProxyData::new(GuidPrefix([4; 12]), 0);
    p.default_unicast_locators = (0..40u16)
        .map(|i| Locator::udpv4([10, 0, 0, 1], i))
        .collect();
    let bytes = p.to_payload(Endianness::Big).unwrap();
    let back = ParticipantProxyData::from_payload(&bytes, VendorId::UNKNOWN).unwrap();
    assert_eq!(
        back.default_unicast_locators.len(),
        super::super::MAX_LOCATORS
    );
}

#[test]
fn security_tokens_round_trip_in_both_byte_orders() {
    for endian in [Endianness::Big, Endianness::Little] {
        let mut p = sample();
        let mut token = DataHolder::new("DDS:Auth:PKI-DH:1.0");
        token.push_property("dds.cert.sn", "/C=NL/O=Siftdds Test/CN=alice");
        token.push_property("dds.cert.algo", "EC-prime256v1");
        p.identity_token = Some(token);
        p.permissions_token = Some(DataHolder::new("DDS:Access:Permissions:1.0"));
        p.security_info = Some(ParticipantSecurityInfo::UNPROTECTED);
        let bytes = p.to_payload(endian).unwrap();
        assert_eq!(
            ParticipantProxyData::from_payload(&bytes, VendorId::UNKNOWN),
            Ok(p)
        );
    }
}
