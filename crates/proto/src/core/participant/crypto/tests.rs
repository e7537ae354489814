//! The key-exchange key, the protection the governance asks for, and the Fast DDS trailer.
// Offsets into test datagrams.
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::security::access::governance::Governance;
use crate::security::access::test_docs::{GovernanceXml, TopicRuleXml};

/// A governance document with one domain rule for domain 0 and one topic rule for every topic,
/// access control off, with these protection kinds (also used by the participant's tests).
pub(in crate::core::participant) fn governance_xml(
    rtps: &str,
    discovery: &str,
    meta: &str,
    data: &str,
) -> String {
    GovernanceXml {
        discovery_protection_kind: discovery,
        rtps_protection_kind: rtps,
        ..GovernanceXml::new(vec![TopicRuleXml {
            metadata_protection_kind: meta,
            data_protection_kind: data,
            ..TopicRuleXml::open("*")
        }])
    }
    .xml()
}

fn rule(rtps: &str, discovery: &str, meta: &str, data: &str) -> DomainRule {
    let xml = governance_xml(rtps, discovery, meta, data);
    Governance::parse(&xml).unwrap().domain_rules.remove(0)
}

#[test]
fn governance_all_none_needs_no_key_exchange() {
    let r = rule("NONE", "NONE", "NONE", "NONE");
    assert!(!Protection::of(Some(&r)).key_exchange);
    assert!(!Protection::of(None).key_exchange);
    assert_eq!(
        Protection::security_info(Some(&r)),
        ParticipantSecurityInfo::UNPROTECTED
    );
    assert!(
        Cryptography::new(GuidPrefix([1; 12]), Protection::of(Some(&r)))
            .unwrap()
            .is_none()
    );
}

#[test]
fn rtps_protection_sets_the_security_info_bits() {
    let encrypt = Protection::security_info(Some(&rule("ENCRYPT", "NONE", "NONE", "NONE")));
    assert_eq!(encrypt.participant_security_attributes, 0x8000_0001);
    assert_eq!(encrypt.plugin_participant_security_attributes, 0x8000_0001);
    let sign = Protection::security_info(Some(&rule("SIGN", "NONE", "NONE", "NONE")));
    assert_eq!(sign.participant_security_attributes, 0x8000_0001);
    assert_eq!(sign.plugin_participant_security_attributes, 0x8000_0000);
    let both = Protection::security_info(Some(&rule(
        "SIGN_WITH_ORIGIN_AUTHENTICATION",
        "ENCRYPT",
        "NONE",
        "NONE",
    )));
    assert_eq!(both.participant_security_attributes, 0x8000_0003);
    assert_eq!(both.plugin_participant_security_attributes, 0x8000_000a);
    assert!(Protection::of(Some(&rule("NONE", "NONE", "SIGN", "NONE"))).key_exchange);
}

#[test]
fn kx_key_is_aes256_gcm_with_key_id_zero_and_depends_on_every_input() {
    let secret = SharedSecretHandle {
        challenge1: vec![1; 32],
        challenge2: vec![2; 32],
        shared_secret: [3; 32],
    };
    let k = kx_key_material(&secret).unwrap();
    assert_eq!(k.transformation_kind, TransformationKind::Aes256Gcm);
    assert_eq!(
        (k.sender_key_id, k.receiver_specific_key_id),
        ([0; 4], [0; 4])
    );
    assert_eq!((k.master_salt.len(), k.master_sender_key.len()), (32, 32));
    k.validate().unwrap();
    assert_eq!(kx_key_material(&secret.clone()).unwrap(), k);
    let mut swapped = secret.clone();
    std::mem::swap(&mut swapped.challenge1, &mut swapped.challenge2);
    assert_ne!(kx_key_material(&swapped).unwrap(), k);
    let mut other = secret;
    other.shared_secret[0] ^= 1;
    assert_ne!(
        kx_key_material(&other).unwrap().master_sender_key,
        k.master_sender_key
    );
}

#[test]
fn a_fast_dds_trailer_after_the_srtps_postfix_is_cut_off_and_nothing_else() {
    use crate::wire::security::{SRTPS_POSTFIX, SRTPS_PREFIX};
    let mut message = Vec::new();
    Header::new(GuidPrefix([7; 12])).emit(&mut message);
    let fast = {
        let mut m = message.clone();
        m[6..8].copy_from_slice(&crate::wire::VendorId::FAST_DDS.0);
        m
    };
    // SRTPS_PREFIX (4 octets of body), SRTPS_POSTFIX (4), then a vendor submessage (8).
    let body = [
        SRTPS_PREFIX,
        1,
        4,
        0,
        0,
        0,
        0,
        0,
        SRTPS_POSTFIX,
        1,
        4,
        0,
        0,
        0,
        0,
        0,
    ];
    let trailer = [0x80, 1, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8];
    let whole = |head: &[u8]| [head, &body[..], &trailer[..]].concat();
    let from_fast = whole(&fast);
    assert_eq!(
        without_trailer(&from_fast),
        &from_fast[..from_fast.len() - 12]
    );
    let from_other = whole(&message);
    assert_eq!(without_trailer(&from_other), &from_other[..]);
    // No postfix: the datagram as it is.
    let cut = &from_fast[..Header::LEN + 8];
    assert_eq!(without_trailer(cut), cut);
}
