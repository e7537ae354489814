//! Governance and permissions parsing (element order, first match, limits, positions), DN
//! matching, fnmatch, S/MIME verification with a CA made in the test (and the negative cases:
//! another CA, no `-text`, tampered content), and the access decisions.
#![allow(clippy::arithmetic_side_effects)]

use openssl::asn1::Asn1Time;
use openssl::bn::{BigNum, MsbOption};
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkcs7::{Pkcs7, Pkcs7Flags};
use openssl::pkey::{PKey, Private};
use openssl::stack::Stack;
use openssl::x509::extension::BasicConstraints;
use openssl::x509::{X509, X509NameBuilder};

use super::*;

/// 2026-12-06T00:00:00Z.
const NOW: i64 = 1_796_515_200;

pub(crate) fn make_ca(cn: &str) -> (X509, PKey<Private>) {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
    let key = PKey::from_ec_key(EcKey::generate(&group).unwrap()).unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("C", "NL").unwrap();
    name.append_entry_by_text("O", "Siftdds Test").unwrap();
    name.append_entry_by_text("CN", cn).unwrap();
    let name = name.build();
    let mut b = X509::builder().unwrap();
    b.set_version(2).unwrap();
    let mut serial = BigNum::new().unwrap();
    serial.rand(64, MsbOption::MAYBE_ZERO, false).unwrap();
    b.set_serial_number(&serial.to_asn1_integer().unwrap())
        .unwrap();
    b.set_subject_name(&name).unwrap();
    b.set_issuer_name(&name).unwrap();
    b.set_pubkey(&key).unwrap();
    b.set_not_before(&Asn1Time::from_unix(NOW - 86_400).unwrap())
        .unwrap();
    b.set_not_after(&Asn1Time::from_unix(NOW + 365 * 86_400).unwrap())
        .unwrap();
    b.append_extension(BasicConstraints::new().critical().ca().build().unwrap())
        .unwrap();
    b.sign(&key, MessageDigest::sha256()).unwrap();
    (b.build(), key)
}

/// What `openssl smime -sign -text` (and with `text: false`, without `-text`) writes.
pub(crate) fn sign(doc: &str, ca: &X509, key: &PKey<Private>, text: bool) -> Vec<u8> {
    let flags = if text {
        Pkcs7Flags::TEXT | Pkcs7Flags::DETACHED
    } else {
        Pkcs7Flags::DETACHED
    };
    let certs = Stack::new().unwrap();
    let p7 = Pkcs7::sign(ca, key, &certs, doc.as_bytes(), flags).unwrap();
    p7.to_smime(doc.as_bytes(), flags).unwrap()
}

pub(crate) const GOVERNANCE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<dds xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <domain_access_rules>
    <domain_rule>
      <domains><id>7</id></domains>
      <allow_unauthenticated_participants>true</allow_unauthenticated_participants>
      <enable_join_access_control>false</enable_join_access_control>
      <discovery_protection_kind>NONE</discovery_protection_kind>
      <liveliness_protection_kind>NONE</liveliness_protection_kind>
      <rtps_protection_kind>NONE</rtps_protection_kind>
      <topic_access_rules>
        <topic_rule>
          <topic_expression>*</topic_expression>
          <enable_discovery_protection>false</enable_discovery_protection>
          <enable_read_access_control>false</enable_read_access_control>
          <enable_write_access_control>false</enable_write_access_control>
          <metadata_protection_kind>NONE</metadata_protection_kind>
          <data_protection_kind>NONE</data_protection_kind>
        </topic_rule>
      </topic_access_rules>
    </domain_rule>
    <domain_rule>
      <!-- Not in XSD order on purpose: order-tolerant parsing. -->
      <rtps_protection_kind>SIGN</rtps_protection_kind>
      <topic_access_rules>
        <topic_rule>
          <topic_expression>Square*</topic_expression>
          <data_protection_kind>ENCRYPT</data_protection_kind>
          <metadata_protection_kind>ENCRYPT_WITH_ORIGIN_AUTHENTICATION</metadata_protection_kind>
          <enable_discovery_protection>true</enable_discovery_protection>
          <enable_liveliness_protection>1</enable_liveliness_protection>
          <enable_read_access_control>true</enable_read_access_control>
          <enable_write_access_control>true</enable_write_access_control>
        </topic_rule>
        <topic_rule>
          <topic_expression>*</topic_expression>
          <enable_discovery_protection>false</enable_discovery_protection>
          <enable_read_access_control>false</enable_read_access_control>
          <enable_write_access_control>false</enable_write_access_control>
          <metadata_protection_kind>NONE</metadata_protection_kind>
          <data_protection_kind>SIGN</data_protection_kind>
        </topic_rule>
      </topic_access_rules>
      <domains><id>0</id><id_range><min>10</min><max>20</max></id_range><id_range><min>100</min></id_range></domains>
      <allow_unauthenticated_participants>false</allow_unauthenticated_participants>
      <enable_join_access_control>true</enable_join_access_control>
      <discovery_protection_kind>ENCRYPT</discovery_protection_kind>
      <liveliness_protection_kind>SIGN_WITH_ORIGIN_AUTHENTICATION</liveliness_protection_kind>
    </domain_rule>
  </domain_access_rules>
</dds>
"#;

pub(crate) const PERMISSIONS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<dds>
  <permissions>
    <grant name="alice">
      <subject_name>CN=alice,O=Siftdds Test,C=NL</subject_name>
      <validity><not_before>2026-01-01T00:00:00</not_before><not_after>2027-01-01T00:00:00</not_after></validity>
      <deny_rule>
        <domains><id>0</id></domains>
        <publish><topics><topic>SquareSecret</topic></topics></publish>
      </deny_rule>
      <allow_rule>
        <domains><id_range><min>0</min><max>20</max></id_range></domains>
        <publish><topics><topic>Square*</topic></topics><partitions><partition>A*</partition><partition></partition></partitions></publish>
        <subscribe><topics><topic>*</topic></topics></subscribe>
      </allow_rule>
      <default>DENY</default>
    </grant>
    <grant name="expired">
      <subject_name>CN=old,O=Siftdds Test,C=NL</subject_name>
      <validity><not_before>2020-01-01T00:00:00Z</not_before><not_after>2021-01-01T00:00:00+01:00</not_after></validity>
      <allow_rule><domains><id>0</id></domains><publish><topics><topic>*</topic></topics></publish></allow_rule>
      <default>ALLOW</default>
    </grant>
  </permissions>
</dds>
"#;

fn alice() -> DistinguishedName {
    DistinguishedName::parse("/C=NL/O=Siftdds Test/CN=alice").unwrap()
}

#[test]
fn governance_is_read_in_any_order_and_applies_first_match() {
    let g = Governance::parse(GOVERNANCE).unwrap();
    assert_eq!(g.domain_rules.len(), 2);
    let r = g.domain_rule(15).unwrap();
    assert!(r.enable_join_access_control && !r.allow_unauthenticated_participants);
    assert_eq!(r.discovery_protection_kind, ProtectionKind::Encrypt);
    assert_eq!(
        r.liveliness_protection_kind,
        ProtectionKind::SignWithOriginAuthentication
    );
    assert_eq!(r.rtps_protection_kind, ProtectionKind::Sign);
    assert!(g.domain_rule(100).is_some() && g.domain_rule(4_000_000).is_some());
    assert!(g.domain_rule(9).is_none() && g.domain_rule(21).is_none());
    // Domain 7 hits the first rule.
    assert!(g.domain_rule(7).unwrap().allow_unauthenticated_participants);
    let t = r.topic_rule("SquareX").unwrap();
    assert_eq!(
        t.metadata_protection_kind,
        ProtectionKind::EncryptWithOriginAuthentication
    );
    assert_eq!(t.data_protection_kind, BasicProtectionKind::Encrypt);
    assert!(t.enable_liveliness_protection);
    // First match: "Circle" falls through to "*".
    let t = r.topic_rule("Circle").unwrap();
    assert_eq!(t.data_protection_kind, BasicProtectionKind::Sign);
    assert!(!t.enable_liveliness_protection, "absent means false");
}

#[test]
fn malformed_documents_are_errors_with_a_position() {
    let e = Governance::parse("<dds>\n  <domain_access_rules>\n</dds>").unwrap_err();
    assert!(matches!(e, AccessError::Document { line: 3, .. }), "{e:?}");
    let bad = GOVERNANCE.replace(
        "<rtps_protection_kind>SIGN<",
        "<rtps_protection_kind>SIGNED<",
    );
    let e = Governance::parse(&bad).unwrap_err();
    let AccessError::Document { line, message, .. } = e else {
        panic!("{e:?}");
    };
    let at = bad.find("<rtps_protection_kind>SIGNED").unwrap();
    assert_eq!(line as usize, bad[..at].matches('\n').count() + 1);
    assert!(message.contains("SIGNED"), "{message}");
    let bad = GOVERNANCE.replace("<domains><id>7</id></domains>", "");
    assert!(matches!(
        Governance::parse(&bad),
        Err(AccessError::Document { message, .. }) if message.contains("<domains> missing")
    ));
    let bad = PERMISSIONS.replace("2027-01-01T00:00:00", "next year");
    assert!(Permissions::parse(&bad).is_err());
    let bad = PERMISSIONS.replace("<default>DENY</default>", "<default>MAYBE</default>");
    assert!(Permissions::parse(&bad).is_err());
    let huge = "<dds>".to_string() + &" ".repeat(MAX_DOCUMENT_LEN) + "</dds>";
    assert_eq!(
        Governance::parse(&huge),
        Err(AccessError::TooLarge("document"))
    );
    let many = format!(
        "<dds><permissions>{}</permissions></dds>",
        "<grant/>".repeat(MAX_ELEMENTS * 4)
    );
    assert!(Permissions::parse(&many).is_err());
    assert!(Governance::parse("<!DOCTYPE dds [<!ENTITY a 'b'>]><dds/>").is_err());
}

#[test]
fn subject_names_match_as_parsed_rdns() {
    let a = DistinguishedName::parse("CN=alice,O=Siftdds Test,C=NL").unwrap();
    assert_eq!(a, alice());
    assert_eq!(
        a,
        DistinguishedName::parse("c=NL, o=Siftdds Test, cn=alice").unwrap()
    );
    assert_eq!(
        DistinguishedName::parse(r"CN=a\,b,O=x").unwrap(),
        DistinguishedName::parse(r"O=x,CN=a\2Cb").unwrap()
    );
    assert_eq!(
        DistinguishedName::parse("emailAddress=a@b,CN=x").unwrap(),
        DistinguishedName::parse("/CN=x/E=a@b").unwrap()
    );
    assert_ne!(
        a,
        DistinguishedName::parse("CN=alice,O=Other,C=NL").unwrap()
    );
    assert_ne!(a, DistinguishedName::parse("CN=alice,C=NL").unwrap());
    assert!(DistinguishedName::parse("").is_err());
    assert!(DistinguishedName::parse("alice").is_err());
    let (ca, _) = make_ca("alice");
    assert_eq!(DistinguishedName::from_x509(ca.subject_name()).unwrap(), a);
}

#[test]
fn fnmatch_is_fnmatch() {
    assert!(fnmatch("Square*", "Square"));
    assert!(fnmatch("Square*", "SquareTopic"));
    assert!(!fnmatch("Square*", "ASquare"));
    assert!(fnmatch("S?uare", "Square"));
    assert!(fnmatch("[CS]*", "Circle") && !fnmatch("[!CS]*", "Circle"));
    assert!(fnmatch("a**b", "a/x/b"));
    assert!(fnmatch("rt/*", "rt/chatter"));
    assert!(fnmatch("", "") && !fnmatch("", "x"));
}

#[test]
fn smime_documents_verify_only_against_their_ca_and_only_with_text() {
    let (ca, key) = make_ca("Permissions CA");
    let signed = sign(GOVERNANCE, &ca, &key, true);
    let text = std::str::from_utf8(&signed).unwrap();
    assert!(text.contains("multipart/signed"), "{text}");
    assert!(text.contains("Content-Type: text/plain"), "{text}");
    let xml = verify_smime(&signed, &ca, NOW).unwrap();
    // The content comes back without the MIME header, in CRLF form.
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert_eq!(
        Governance::parse(&xml).unwrap(),
        Governance::parse(GOVERNANCE).unwrap()
    );
    // Signed by another CA.
    let (other, other_key) = make_ca("Permissions CA");
    let forged = sign(GOVERNANCE, &other, &other_key, true);
    assert!(matches!(
        verify_smime(&forged, &ca, NOW),
        Err(AccessError::Signature(_))
    ));
    // Signed without -text: the vendors refuse it, so do we.
    let binary = sign(GOVERNANCE, &ca, &key, false);
    assert!(verify_smime(&binary, &ca, NOW).is_err());
    // Tampered content.
    let tampered = text.replacen("<id>7</id>", "<id>8</id>", 1);
    assert!(verify_smime(tampered.as_bytes(), &ca, NOW).is_err());
    // The CA is not valid at that time.
    assert!(verify_smime(&signed, &ca, NOW + 400 * 86_400).is_err());
    // Not S/MIME at all, and truncated.
    assert!(verify_smime(GOVERNANCE.as_bytes(), &ca, NOW).is_err());
    for n in [0, 10, signed.len() / 2, signed.len() - 10] {
        assert!(verify_smime(&signed[..n], &ca, NOW).is_err());
    }
}

#[test]
fn writers_and_readers_are_allowed_or_denied_with_a_reason() {
    let g = Governance::parse(GOVERNANCE).unwrap();
    let p = Permissions::parse(PERMISSIONS).unwrap();
    let a = alice();
    let w = |topic: &str, parts: &[&str], domain: u32, now: i64| {
        check_create_datawriter(&g, &p, &a, domain, topic, parts, now)
    };
    let d = w("SquareX", &[], 0, NOW);
    assert!(d.allowed, "{d:?}");
    assert!(d.reason.contains("allow_rule #2"), "{d:?}");
    assert!(w("SquareX", &["Alpha", "A2"], 0, NOW).allowed);
    // Not every partition is allowed.
    let d = w("SquareX", &["Alpha", "B"], 0, NOW);
    assert!(!d.allowed && d.reason.contains("defaults to DENY"), "{d:?}");
    // The deny rule comes first.
    let d = w("SquareSecret", &[], 0, NOW);
    assert!(!d.allowed && d.reason.contains("deny_rule #1"), "{d:?}");
    // ... but only in its domain.
    assert!(w("SquareSecret", &[], 15, NOW).allowed);
    // Write access control is off for topics outside Square*.
    let d = w("Circle", &[], 0, NOW);
    assert!(
        d.allowed && d.reason.contains("does not control write"),
        "{d:?}"
    );
    // No domain rule.
    let d = w("SquareX", &[], 9, NOW);
    assert!(!d.allowed && d.reason.contains("no domain rule"), "{d:?}");
    // The grant has expired (or is not yet valid).
    assert!(!w("SquareX", &[], 0, NOW + 365 * 86_400).allowed);
    // Unknown subject.
    let bob = DistinguishedName::parse("CN=bob,O=Siftdds Test,C=NL").unwrap();
    let d = check_create_datawriter(&g, &p, &bob, 0, "SquareX", &[], NOW);
    assert!(!d.allowed && d.reason.contains("no grant"), "{d:?}");
    // An expired grant with default ALLOW still denies.
    let old = DistinguishedName::parse("CN=old,O=Siftdds Test,C=NL").unwrap();
    let d = check_remote_datawriter(&g, &p, &old, 0, "SquareX", &[], NOW);
    assert!(!d.allowed && d.reason.contains("not valid"), "{d:?}");
    // Readers: subscribe "*", default partition only.
    assert!(check_create_datareader(&g, &p, &a, 0, "SquareX", &[], NOW).allowed);
    assert!(!check_remote_datareader(&g, &p, &a, 0, "SquareX", &["P"], NOW).allowed);
    // Participants.
    assert!(check_create_participant(&g, &p, &a, 0, NOW).allowed);
    assert!(
        check_remote_participant(&g, &p, &bob, 7, NOW).allowed,
        "join control off"
    );
    assert!(!check_remote_participant(&g, &p, &bob, 0, NOW).allowed);
    assert!(!check_create_participant(&g, &p, &a, 100, NOW).allowed);
}

#[test]
fn date_times_are_utc_seconds() {
    use super::xml::parse_date_time;
    assert_eq!(parse_date_time("1970-01-01T00:00:00"), Some(0));
    assert_eq!(parse_date_time("2026-12-06T00:00:00Z"), Some(NOW));
    assert_eq!(parse_date_time("2026-12-06T01:00:00+01:00"), Some(NOW));
    assert_eq!(parse_date_time("2026-12-05T23:00:00.5-01:00"), Some(NOW));
    assert_eq!(parse_date_time("2026-13-06T00:00:00"), None);
    assert_eq!(parse_date_time("2026-12-06"), None);
    assert_eq!(parse_date_time("99999999999999999999-01-01T00:00:00"), None);
}
