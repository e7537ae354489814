//! Per-endpoint protection against the vendors (DDS-Security 1.1 §8.4.2.4, §9.5.3.3.4):
//! governance `meta_encrypt` / `meta_sign` of `scripts/test-pki` (the topic rule's
//! `metadata_protection_kind` and `data_protection_kind` ENCRYPT or SIGN, RTPS, discovery and
//! liveliness protection NONE, read and write access control on). siftdds and the vendor
//! announce PID_ENDPOINT_SECURITY_INFO, exchange their writer's and reader's CryptoTokens
//! over the volatile secure endpoints, and the samples flow in SEC_PREFIX … SEC_POSTFIX with
//! the payload encoded, each way; nothing of the vendor's user endpoints may come in clear
//! (`ParticipantStats::unprotected` 0).

use crate::security::{Docs, Vendor, protected_case};

/// Metadata and data protection ENCRYPT.
const META_ENCRYPT: Docs<'static> = Docs {
    governance: "governance_meta_encrypt.p7s",
    permissions: "permissions.p7s",
};

/// Metadata and data protection SIGN.
const META_SIGN: Docs<'static> = Docs {
    governance: "governance_meta_sign.p7s",
    permissions: "permissions.p7s",
};

#[test]
fn cyclone_under_metadata_encrypt_receives_from_siftdds() {
    let test = "cyclone_under_metadata_encrypt_receives_from_siftdds";
    protected_case(test, 206, META_ENCRYPT, "siftdds", Vendor::Cyclone);
}

#[test]
fn cyclone_under_metadata_encrypt_sends_to_siftdds() {
    let test = "cyclone_under_metadata_encrypt_sends_to_siftdds";
    protected_case(test, 207, META_ENCRYPT, "cyclone", Vendor::Cyclone);
}

#[test]
fn cyclone_under_metadata_sign_receives_from_siftdds() {
    let test = "cyclone_under_metadata_sign_receives_from_siftdds";
    protected_case(test, 208, META_SIGN, "siftdds", Vendor::Cyclone);
}

#[test]
fn cyclone_under_metadata_sign_sends_to_siftdds() {
    let test = "cyclone_under_metadata_sign_sends_to_siftdds";
    protected_case(test, 209, META_SIGN, "cyclone", Vendor::Cyclone);
}

#[test]
fn fastdds_under_metadata_encrypt_receives_from_siftdds() {
    let test = "fastdds_under_metadata_encrypt_receives_from_siftdds";
    protected_case(test, 220, META_ENCRYPT, "siftdds", Vendor::FastDds);
}

#[test]
fn fastdds_under_metadata_encrypt_sends_to_siftdds() {
    let test = "fastdds_under_metadata_encrypt_sends_to_siftdds";
    protected_case(test, 221, META_ENCRYPT, "fastdds", Vendor::FastDds);
}

#[test]
fn fastdds_under_metadata_sign_receives_from_siftdds() {
    let test = "fastdds_under_metadata_sign_receives_from_siftdds";
    protected_case(test, 188, META_SIGN, "siftdds", Vendor::FastDds);
}

#[test]
fn fastdds_under_metadata_sign_sends_to_siftdds() {
    let test = "fastdds_under_metadata_sign_sends_to_siftdds";
    protected_case(test, 189, META_SIGN, "fastdds", Vendor::FastDds);
}
