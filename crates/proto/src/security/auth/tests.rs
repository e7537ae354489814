//! siftdds ↔ siftdds handshakes in memory, over a PKI made here with OpenSSL (EC and RSA),
//! with ECDH and MODP in both public-key encodings; refusals (tampered signature, another
//! CA, expired certificate, wrong GUID, malformed tokens) without panics.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
#![allow(clippy::arithmetic_side_effects, clippy::panic)]

use openssl::asn1::{Asn1Integer, Asn1Time};
use openssl::bn::BigNum;
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::rsa::Rsa;
use openssl::x509::extension::BasicConstraints;
use openssl::x509::{X509, X509Name, X509NameBuilder};

use super::handshake::{cdr_of, der_integer, parse_der_integer};
use super::identity::sha256;
use super::*;
use crate::cdr::Endianness;
use crate::wire::GuidPrefix;
use crate::wire::data_holder::DataHolder;

/// 2027-01-15, inside every test certificate's validity but the expired one's.
const NOW: i64 = 1_800_000_000;
/// 2020-01-15, inside the expired certificate's validity.
const IN_2020: i64 = 1_579_046_400;

fn name(cn: &str) -> X509Name {
    let mut b = X509NameBuilder::new().unwrap();
    b.append_entry_by_nid(Nid::COUNTRYNAME, "NL").unwrap();
    b.append_entry_by_nid(Nid::ORGANIZATIONNAME, "Siftdds Test")
        .unwrap();
    b.append_entry_by_nid(Nid::COMMONNAME, cn).unwrap();
    b.build()
}

fn key(ec: bool) -> PKey<Private> {
    if ec {
        let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap();
        PKey::from_ec_key(EcKey::generate(&group).unwrap()).unwrap()
    } else {
        PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap()
    }
}

pub(crate) struct Ca {
    pub(crate) cert: X509,
    pub(crate) key: PKey<Private>,
}

fn cert(subject: &X509Name, key: &PKey<Private>, issuer: Option<&Ca>, from: i64, to: i64) -> X509 {
    let mut b = X509::builder().unwrap();
    b.set_version(2).unwrap();
    let serial = Asn1Integer::from_bn(&BigNum::from_u32(from as u32 ^ 0x5a5a).unwrap()).unwrap();
    b.set_serial_number(&serial).unwrap();
    b.set_subject_name(subject).unwrap();
    b.set_pubkey(key).unwrap();
    b.set_not_before(&Asn1Time::from_unix(from).unwrap())
        .unwrap();
    b.set_not_after(&Asn1Time::from_unix(to).unwrap()).unwrap();
    match issuer {
        Some(ca) => {
            b.set_issuer_name(ca.cert.subject_name()).unwrap();
            b.sign(&ca.key, MessageDigest::sha256()).unwrap();
        }
        None => {
            b.set_issuer_name(subject).unwrap();
            b.append_extension(BasicConstraints::new().critical().ca().build().unwrap())
                .unwrap();
            b.sign(key, MessageDigest::sha256()).unwrap();
        }
    }
    b.build()
}

pub(crate) fn ca(cn: &str, ec: bool) -> Ca {
    let key = key(ec);
    let cert = cert(&name(cn), &key, None, 1_500_000_000, 2_200_000_000);
    Ca { cert, key }
}

/// A participant identity for `cn` signed by `issuer`, trusting `trust`.
pub(crate) fn identity_between(
    cn: &str,
    issuer: &Ca,
    trust: &Ca,
    ec: bool,
    from: i64,
    to: i64,
) -> IdentityConfig {
    let k = key(ec);
    let c = cert(&name(cn), &k, Some(issuer), from, to);
    IdentityConfig {
        identity_ca: trust.cert.to_pem().unwrap(),
        identity_certificate: c.to_pem().unwrap(),
        private_key: k.private_key_to_pem_pkcs8().unwrap(),
        password: None,
    }
}

pub(crate) fn identity(cn: &str, ca: &Ca, ec: bool) -> IdentityConfig {
    identity_between(cn, ca, ca, ec, 1_500_000_000, 2_200_000_000)
}

fn local(cfg: &IdentityConfig, seed: u8) -> LocalIdentity {
    LocalIdentity::validate(cfg, &GuidPrefix([seed; 12]), NOW).unwrap()
}

const PDATA_A: &[u8] = b"pdata of alice";
const PDATA_B: &[u8] = b"pdata of bob";
const PERM: &[u8] = b"permissions document";

/// Runs the whole handshake from `a` (initiator) to `b` and returns both outcomes.
fn handshake(
    a: &LocalIdentity,
    b: &LocalIdentity,
    kagree: KeyAgreement,
) -> (Authenticated, Authenticated, DataHolder) {
    let (mut ha, req) =
        Handshake::begin_request_with(a, b.guid_prefix(), PDATA_A, PERM, kagree).unwrap();
    let req = wire(&req);
    let (mut hb, reply) =
        Handshake::begin_reply(b, a.guid_prefix(), &req, PDATA_B, PERM, NOW).unwrap();
    let reply = wire(&reply);
    let (fin, done_a) = ha.process_reply(a, &reply, NOW).unwrap();
    let done_b = hb.process_final(&wire(&fin)).unwrap();
    assert!(ha.is_done() && hb.is_done());
    (done_a, done_b, reply)
}

/// A token through its CDR encoding, as the peer would see it.
fn wire(t: &DataHolder) -> DataHolder {
    DataHolder::from_bytes(&t.to_bytes(Endianness::Little), Endianness::Little).unwrap()
}

fn pair(ec: bool) -> (LocalIdentity, LocalIdentity) {
    let ca = ca("Test CA", ec);
    let alice = local(&identity("alice", &ca, ec), 1);
    let bob = local(&identity("bob", &ca, ec), 2);
    (alice, bob)
}

#[test]
fn guid_prefix_follows_the_subject_test_vector() {
    let alice = name("alice").to_der().unwrap();
    let bob = name("bob").to_der().unwrap();
    let p = derive_guid_prefix(&alice, &GuidPrefix([0; 12]));
    assert_eq!(p.0[..6], [0x86, 0x18, 0x5a, 0x8c, 0xd1, 0x51]);
    let q = derive_guid_prefix(&bob, &GuidPrefix([0; 12]));
    assert_eq!(q.0[..6], [0xd1, 0xed, 0x67, 0x42, 0x1a, 0xf2]);
    // alice's is smaller, so a participant holding alice's certificate initiates.
    assert_eq!(handshake_role(&p, &q), HandshakeRole::Initiator);
    assert_eq!(handshake_role(&q, &p), HandshakeRole::Replier);
    // The candidate changes only the second half.
    let p2 = derive_guid_prefix(&alice, &GuidPrefix([9; 12]));
    assert_eq!(p.0[..6], p2.0[..6]);
    assert_ne!(p.0[6..], p2.0[6..]);
}

#[test]
fn local_identity_derives_its_guid_and_token() {
    let (alice, _) = pair(true);
    assert_eq!(
        alice.guid_prefix().0[..6],
        [0x86, 0x18, 0x5a, 0x8c, 0xd1, 0x51]
    );
    let token = alice.identity_token();
    assert_eq!(token.class_id, IDENTITY_TOKEN_CLASS_ID);
    assert_eq!(
        token.property("dds.cert.sn"),
        Some("/C=NL/O=Siftdds Test/CN=alice")
    );
    assert_eq!(token.property("dds.cert.algo"), Some("EC-prime256v1"));
    assert_eq!(token.property("dds.ca.algo"), Some("EC-prime256v1"));
    assert_eq!(permissions_token().class_id, PERMISSIONS_TOKEN_CLASS_ID);
    assert!(permissions_token().properties.is_empty());
    let (rsa, _) = pair(false);
    assert_eq!(
        rsa.identity_token().property("dds.cert.algo"),
        Some("RSA-2048")
    );
}

#[test]
fn ec_ecdh_handshake_agrees_on_one_secret() {
    let (alice, bob) = pair(true);
    let (a, b, _) = handshake(&alice, &bob, KeyAgreement::EcdhP256);
    assert_eq!(a.secret, b.secret);
    assert_eq!(a.secret.challenge1.len(), 32);
    assert_eq!(a.remote.subject_text(), "/C=NL/O=Siftdds Test/CN=bob");
    assert_eq!(b.remote.subject_text(), "/C=NL/O=Siftdds Test/CN=alice");
    assert_eq!(a.remote_pdata, PDATA_B);
    assert_eq!(b.remote_pdata, PDATA_A);
    assert_eq!(b.remote_permissions, PERM);
}

#[test]
fn rsa_handshake_agrees_on_one_secret() {
    let (alice, bob) = pair(false);
    let (a, b, _) = handshake(&alice, &bob, KeyAgreement::EcdhP256);
    assert_eq!(a.secret, b.secret);
}

#[test]
fn modp_handshake_with_raw_and_der_public_keys_answers_in_the_form_received() {
    for ec in [true, false] {
        let (alice, bob) = pair(ec);
        for der in [false, true] {
            let (a, b, reply) = handshake(&alice, &bob, KeyAgreement::Modp2048 { der });
            assert_eq!(a.secret, b.secret);
            assert_eq!(b.key_agreement, KeyAgreement::Modp2048 { der });
            let dh2 = reply.binary_property("dh2").unwrap();
            assert_eq!(parse_der_integer(dh2).is_some(), der, "der={der}");
        }
    }
}

/// Two MODP-2048 private keys whose agreed value g^(ab) mod p is 255 octets long: its first
/// octet is zero, as in about one MODP-2048 handshake in 135 (p starts with octet 0x87).
const MODP_A: &str = "4CF09558D6F3251E351B2A216631E546EB3A7D2E1FA27270795EA11469181C40";
const MODP_B: &str = "1CF1F566C70DF9F3697784F3F8FA389BDF5CF3D416B61EDA4BCBA5872E56FBB5";

/// SharedSecret is SHA-256 of the agreed value without leading zero octets, as both vendors
/// hash what EVP_PKEY_derive gives. Hashed in another form, such a value gives a KxKey of its
/// own, and a Fast DDS peer (which initiates with DH+MODP-2048-256) and we then decode none of
/// each other's volatile secure messages.
#[test]
fn modp_secret_with_a_leading_zero_octet_is_hashed_as_the_vendors_derive_it() {
    let private = |hex: &str| {
        let x = BigNum::from_hex_str(hex).unwrap();
        openssl::dh::Dh::get_2048_256()
            .unwrap()
            .set_private_key(x)
            .unwrap()
    };
    let (a, b) = (private(MODP_A), private(MODP_B));
    // The agreed value, computed apart from the key agreement: the peer's public key to our
    // private exponent, as a minimal big-endian number.
    let mut value = BigNum::new().unwrap();
    let mut ctx = openssl::bn::BigNumContext::new().unwrap();
    value
        .mod_exp(b.public_key(), a.private_key(), a.prime_p(), &mut ctx)
        .unwrap();
    let value = value.to_vec();
    assert_eq!(
        value.len(),
        255,
        "the case: the value's first octet is zero"
    );
    let expected = sha256(&value);
    let (b_raw, a_raw) = (b.public_key().to_vec(), a.public_key().to_vec());
    let ours = super::handshake::DhKey::Modp(a, false);
    assert_eq!(ours.agree(&b_raw).unwrap(), expected);
    let theirs = super::handshake::DhKey::Modp(b, true);
    assert_eq!(theirs.agree(&der_integer(&a_raw)).unwrap(), expected);
}

#[test]
fn reply_carries_every_optional_field() {
    let (alice, bob) = pair(true);
    let (_, _, reply) = handshake(&alice, &bob, KeyAgreement::EcdhP256);
    for p in [
        "hash_c1",
        "hash_c2",
        "dh1",
        "dh2",
        "challenge1",
        "challenge2",
        "signature",
    ] {
        assert!(reply.binary_property(p).is_some(), "{p}");
    }
}

/// A Cyclone-style Request: string values with a trailing NUL, hash_c1 over them as sent.
#[test]
fn request_with_nul_terminated_algorithms_is_hashed_as_received() {
    let (alice, bob) = pair(true);
    let (_, mut req) = Handshake::begin_request(&alice, bob.guid_prefix(), PDATA_A, PERM).unwrap();
    for p in &mut req.binary_properties {
        if p.name == "c.dsign_algo" || p.name == "c.kagree_algo" {
            p.value.push(0);
        }
    }
    let c: Vec<_> = req
        .binary_properties
        .iter()
        .filter(|p| p.name.starts_with("c."))
        .cloned()
        .collect();
    let hash_c1 = sha256(&cdr_of(&c)).to_vec();
    for p in &mut req.binary_properties {
        if p.name == "hash_c1" {
            p.value = hash_c1.clone();
        }
    }
    let (_, reply) =
        Handshake::begin_reply(&bob, alice.guid_prefix(), &req, PDATA_B, PERM, NOW).unwrap();
    assert_eq!(reply.binary_property("hash_c1"), Some(&hash_c1[..]));
    // A Request without hash_c1 is accepted too, and the Reply still carries it.
    req.binary_properties.retain(|p| p.name != "hash_c1");
    let (_, reply) =
        Handshake::begin_reply(&bob, alice.guid_prefix(), &req, PDATA_B, PERM, NOW).unwrap();
    assert_eq!(reply.binary_property("hash_c1"), Some(&hash_c1[..]));
}

#[test]
fn algorithm_names_are_read_in_both_spellings_with_or_without_nul() {
    use SignatureAlgorithm::*;
    for (n, a) in [
        (&b"ECDSA-SHA256"[..], EcdsaSha256),
        (b"EC-prime256v1\0", EcdsaSha256),
        (b"RSASSA-PSS-SHA256\0", RsaPssSha256),
        (b"RSA-2048", RsaPssSha256),
    ] {
        assert_eq!(SignatureAlgorithm::from_name(n), Some(a));
    }
    assert_eq!(SignatureAlgorithm::from_name(b"DSA"), None);
}

#[test]
fn tampered_reply_or_final_signature_is_refused() {
    let (alice, bob) = pair(true);
    let (mut ha, req) = Handshake::begin_request(&alice, bob.guid_prefix(), PDATA_A, PERM).unwrap();
    let (mut hb, mut reply) =
        Handshake::begin_reply(&bob, alice.guid_prefix(), &req, PDATA_B, PERM, NOW).unwrap();
    let good = reply.clone();
    for p in &mut reply.binary_properties {
        if p.name == "signature" {
            let last = p.value.len() - 1;
            p.value[last] ^= 1;
        }
    }
    assert_eq!(
        ha.process_reply(&alice, &reply, NOW).unwrap_err(),
        AuthError::Signature
    );
    // A replaced dh2 breaks the signature as well.
    let mut swapped = good.clone();
    for p in &mut swapped.binary_properties {
        if p.name == "dh2" {
            p.value = req.binary_property("dh1").unwrap().to_vec();
        }
    }
    assert_eq!(
        ha.process_reply(&alice, &swapped, NOW).unwrap_err(),
        AuthError::Signature
    );
    let (mut fin, _) = ha.process_reply(&alice, &good, NOW).unwrap();
    for p in &mut fin.binary_properties {
        if p.name == "signature" {
            p.value[10] ^= 0x40;
        }
    }
    assert_eq!(hb.process_final(&fin).unwrap_err(), AuthError::Signature);
}

#[test]
fn certificate_of_another_ca_is_refused_with_openssls_reason() {
    let ca1 = ca("Test CA", true);
    let other = ca("Other CA", true);
    let alice = local(
        &identity_between("alice", &other, &other, true, 1_500_000_000, 2_200_000_000),
        1,
    );
    let bob = local(&identity("bob", &ca1, true), 2);
    let (_, req) = Handshake::begin_request(&alice, bob.guid_prefix(), PDATA_A, PERM).unwrap();
    let err =
        Handshake::begin_reply(&bob, alice.guid_prefix(), &req, PDATA_B, PERM, NOW).unwrap_err();
    assert_eq!(
        err,
        AuthError::Certificate("unable to get local issuer certificate".into())
    );
    // Our own certificate from another CA is refused at validation.
    let mixed = identity_between("alice", &other, &ca1, true, 1_500_000_000, 2_200_000_000);
    assert!(matches!(
        LocalIdentity::validate(&mixed, &GuidPrefix([1; 12]), NOW),
        Err(AuthError::Certificate(_))
    ));
}

#[test]
fn expired_certificate_is_refused_locally_and_remotely() {
    let ca = ca("Test CA", true);
    let expired = identity_between("alice", &ca, &ca, true, 1_577_836_800, 1_580_515_200);
    assert_eq!(
        LocalIdentity::validate(&expired, &GuidPrefix([1; 12]), NOW).unwrap_err(),
        AuthError::Certificate("certificate has expired".into())
    );
    // Valid in 2020: alice starts a handshake then; bob checks it now.
    let alice = LocalIdentity::validate(&expired, &GuidPrefix([1; 12]), IN_2020).unwrap();
    let bob = local(&identity("bob", &ca, true), 2);
    let (_, req) = Handshake::begin_request(&alice, bob.guid_prefix(), PDATA_A, PERM).unwrap();
    let err =
        Handshake::begin_reply(&bob, alice.guid_prefix(), &req, PDATA_B, PERM, NOW).unwrap_err();
    assert_eq!(
        err,
        AuthError::Certificate("certificate has expired".into())
    );
}

#[test]
fn a_guid_not_derived_from_the_subject_is_refused() {
    let (alice, bob) = pair(true);
    let (_, req) = Handshake::begin_request(&alice, bob.guid_prefix(), PDATA_A, PERM).unwrap();
    let err =
        Handshake::begin_reply(&bob, GuidPrefix([0x80; 12]), &req, PDATA_B, PERM, NOW).unwrap_err();
    assert_eq!(err, AuthError::GuidMismatch);
}

#[test]
fn key_not_matching_the_certificate_is_refused() {
    let ca = ca("Test CA", true);
    let mut cfg = identity("alice", &ca, true);
    cfg.private_key = key(true).private_key_to_pem_pkcs8().unwrap();
    assert!(matches!(
        LocalIdentity::validate(&cfg, &GuidPrefix([1; 12]), NOW),
        Err(AuthError::LocalIdentity(_))
    ));
}

#[test]
fn malformed_tokens_are_refused_without_panic() {
    let (alice, bob) = pair(true);
    let (mut ha, req) = Handshake::begin_request(&alice, bob.guid_prefix(), PDATA_A, PERM).unwrap();
    // Each property removed, each value emptied or replaced by garbage.
    for i in 0..req.binary_properties.len() {
        let mut t = req.clone();
        let removed = t.binary_properties.remove(i).name;
        let r = Handshake::begin_reply(&bob, alice.guid_prefix(), &t, PDATA_B, PERM, NOW);
        if ["c.id", "c.dsign_algo", "c.kagree_algo", "dh1", "challenge1"]
            .contains(&removed.as_str())
        {
            assert!(r.is_err(), "without {removed}");
        }
        for garbage in [Vec::new(), vec![0xff; 3], vec![0x02; 700]] {
            let mut t = req.clone();
            t.binary_properties[i].value = garbage;
            let _ = Handshake::begin_reply(&bob, alice.guid_prefix(), &t, PDATA_B, PERM, NOW);
        }
    }
    let mut t = req.clone();
    t.class_id = "DDS:Auth:PKI-DH:1.0+Reply".into();
    assert!(matches!(
        Handshake::begin_reply(&bob, alice.guid_prefix(), &t, PDATA_B, PERM, NOW),
        Err(AuthError::Token(_))
    ));
    // A Request where a Reply is expected, and a Final before any Reply.
    assert!(ha.process_reply(&alice, &req, NOW).is_err());
    let (mut hb, reply) =
        Handshake::begin_reply(&bob, alice.guid_prefix(), &req, PDATA_B, PERM, NOW).unwrap();
    assert_eq!(
        hb.process_final(&reply).unwrap_err(),
        AuthError::Token(
            "class \"DDS:Auth:PKI-DH:1.0+Reply\" where DDS:Auth:PKI-DH:1.0+Final was expected"
                .into()
        )
    );
    // Every truncation of the encoded Reply decodes to an error or to a token the handshake
    // refuses.
    let bytes = reply.to_bytes(Endianness::Big);
    for cut in (0..bytes.len()).step_by(7) {
        if let Ok(t) = DataHolder::from_bytes(&bytes[..cut], Endianness::Big) {
            assert!(ha.process_reply(&alice, &t, NOW).is_err());
        }
    }
    // Bit flips anywhere in the Reply: never a panic, never a success unless it is intact.
    for pos in (0..bytes.len()).step_by(13) {
        let mut b = bytes.clone();
        b[pos] ^= 0x55;
        if let Ok(t) = DataHolder::from_bytes(&b, Endianness::Big) {
            let mut fresh = Handshake::begin_request(&alice, bob.guid_prefix(), PDATA_A, PERM)
                .unwrap()
                .0;
            assert!(fresh.process_reply(&alice, &t, NOW).is_err());
        }
    }
}

#[test]
fn der_integer_round_trips_and_raw_keys_are_not_mistaken_for_it() {
    for raw in [vec![0x7f; 256], vec![0x80; 256], vec![0, 0, 5], vec![1]] {
        let der = der_integer(&raw);
        let back = parse_der_integer(&der).unwrap();
        let trimmed: Vec<u8> = back.iter().copied().skip_while(|b| *b == 0).collect();
        let expect: Vec<u8> = raw.iter().copied().skip_while(|b| *b == 0).collect();
        assert_eq!(trimmed, expect);
    }
    assert!(parse_der_integer(&[0x02; 256]).is_none());
    assert!(parse_der_integer(&[0x02, 0x82, 0xff]).is_none());
}

#[test]
fn subject_names_compare_as_parsed_dns() {
    let dn = DistinguishedName::of(&name("alice"));
    assert_eq!(
        DistinguishedName::parse("CN=alice,O=Siftdds Test,C=NL"),
        Some(dn.clone())
    );
    assert_eq!(
        DistinguishedName::parse("/C=NL/O=Siftdds Test/CN=alice"),
        Some(dn.clone())
    );
    assert_eq!(
        DistinguishedName::parse("C=NL, O=Siftdds Test, CN=alice"),
        Some(dn.clone())
    );
    assert_ne!(
        DistinguishedName::parse("CN=bob,O=Siftdds Test,C=NL"),
        Some(dn)
    );
    assert_eq!(DistinguishedName::parse("no equals sign"), None);
}

#[test]
fn identity_uris_name_files_or_carry_data() {
    assert_eq!(
        IdentityUri::parse("file:///etc/ca.pem"),
        Ok(IdentityUri::File("/etc/ca.pem"))
    );
    assert_eq!(
        IdentityUri::parse("file:/etc/ca.pem"),
        Ok(IdentityUri::File("/etc/ca.pem"))
    );
    assert_eq!(
        IdentityUri::parse("file:ca.pem"),
        Ok(IdentityUri::File("ca.pem"))
    );
    assert_eq!(
        IdentityUri::parse("data:,-----BEGIN"),
        Ok(IdentityUri::Data(b"-----BEGIN"))
    );
    assert!(IdentityUri::parse("pkcs11:object=key").is_err());
}
