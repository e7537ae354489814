//! Discovery and liveliness protection against the vendors (DDS-Security 1.1 §7.4.5-6,
//! §8.4.2.4): governance `sign` / `encrypt` of `scripts/test-pki` (discovery and liveliness
//! protection SIGN or ENCRYPT, the topic rule with `enable_discovery_protection` and
//! `enable_liveliness_protection`, metadata and data protection of the same kind, RTPS NONE,
//! read and write access control on), as the vendors' stock governances. siftdds and the
//! vendor announce the secure SEDP and WLP endpoints (BuiltinEndpointSet bits 16-21), exchange
//! their CryptoTokens over the volatile secure endpoints, announce their Square endpoints on
//! the secure SEDP writers only, match and deliver reliably each way. Without a capture: our
//! participant's counters show its endpoint went out on the secure SEDP writer
//! (`secure_discovery_announced`) and the vendor's came in on the secure SEDP reader
//! (`secure_discovery_received`), nothing came in clear (`unprotected` 0), and no endpoint
//! announcement was refused for coming on the plain SEDP (`plain_discovery_refused` 0: the
//! vendor announces its discovery-protected endpoints on the secure writers only). Each case runs
//! twice: siftdds holding alice's certificate (it initiates the handshake), then bob's (the
//! vendor initiates); the ENCRYPT cases then twice more under `all_encrypt` (RTPS protection
//! ENCRYPT too, the topic rule without liveliness protection, as Fast DDS's stock "all
//! enable" governance).

use crate::security::{
    ALL_ENCRYPT, DISCOVERY_ENCRYPT, DISCOVERY_SIGN, Docs, Vendor, protected_case_initiated,
};

/// [`protected_case_initiated`] on `domain` under each governance of `docs`, one run after
/// the other, each twice: siftdds initiating the handshake (alice's certificate), then the
/// vendor (siftdds holding bob's); after each, the counters: our Square endpoint was announced
/// on the secure SEDP writer and the vendor's came in on the secure SEDP reader.
fn discovery_case(test: &str, domain: u32, docs: &[Docs<'static>], writer: &str, vendor: Vendor) {
    let runs = docs
        .iter()
        .enumerate()
        .flat_map(|(i, d)| [(i, *d, true), (i, *d, false)]);
    for (i, docs, siftdds_initiates) in runs {
        let governance = match i {
            0 => String::new(),
            _ => format!("_{}", docs.governance.trim_end_matches(".p7s")),
        };
        let case = match siftdds_initiates {
            true => format!("{test}{governance}"),
            false => format!("{test}{governance}_vendor_initiates"),
        };
        let stats =
            protected_case_initiated(&case, domain, docs, writer, vendor, siftdds_initiates);
        // `None`: the vendor is missing and the case recorded its skip.
        let Some(stats) = stats else {
            return;
        };
        eprintln!(
            "{case}: secure SEDP: {} announced, {} received; plain refused {}, unprotected {}, \
             crypto_rejected {}",
            stats.secure_discovery_announced,
            stats.secure_discovery_received,
            stats.plain_discovery_refused,
            stats.unprotected,
            stats.crypto_rejected
        );
        assert!(
            stats.secure_discovery_announced >= 1,
            "{case}: our endpoint was not announced on the secure SEDP writer: {stats:?}"
        );
        assert!(
            stats.secure_discovery_received >= 1,
            "{case}: the vendor's endpoint did not come on the secure SEDP reader: {stats:?}"
        );
        assert_eq!(
            stats.plain_discovery_refused, 0,
            "{case}: an endpoint announcement on the plain SEDP was refused: {stats:?}"
        );
        if vendor == Vendor::Cyclone {
            cyclone_took_our_secure_liveliness(&case, siftdds_initiates);
        }
    }
}

/// Cyclone's trace of `case`: it took our liveliness assertion from our
/// BuiltinParticipantMessageSecureWriter (DDS-Security 1.1 §7.4.6), decoded
/// (`data(builtin, …): <our prefix>…:ff0200c2 … DCPSParticipantMessageSecure`). Our GUID prefix
/// starts 86185a8c as alice, d1ed6742 as bob.
fn cyclone_took_our_secure_liveliness(case: &str, alice: bool) {
    let log = std::path::PathBuf::from(repo_path!("target")).join(format!("security-{case}.log"));
    let trace = std::fs::read_to_string(&log).unwrap_or_default();
    let ours = if alice { "86185a8c" } else { "d1ed6742" };
    let taken = trace
        .lines()
        .filter(|l| l.contains("data(builtin") && l.contains(ours))
        .filter(|l| l.contains(":ff0200c2 #") && l.contains("DCPSParticipantMessageSecure"))
        .count();
    eprintln!("{case}: Cyclone took {taken} secure liveliness updates of ours");
    assert!(
        taken >= 1,
        "{case}: no secure liveliness update of ours in {log:?}"
    );
}

#[test]
fn cyclone_under_discovery_encrypt_receives_from_siftdds() {
    let test = "cyclone_under_discovery_encrypt_receives_from_siftdds";
    discovery_case(
        test,
        54,
        &[DISCOVERY_ENCRYPT, ALL_ENCRYPT],
        "siftdds",
        Vendor::Cyclone,
    );
}

#[test]
fn cyclone_under_discovery_encrypt_sends_to_siftdds() {
    let test = "cyclone_under_discovery_encrypt_sends_to_siftdds";
    discovery_case(
        test,
        56,
        &[DISCOVERY_ENCRYPT, ALL_ENCRYPT],
        "cyclone",
        Vendor::Cyclone,
    );
}

#[test]
fn cyclone_under_discovery_sign_receives_from_siftdds() {
    let test = "cyclone_under_discovery_sign_receives_from_siftdds";
    discovery_case(test, 57, &[DISCOVERY_SIGN], "siftdds", Vendor::Cyclone);
}

#[test]
fn cyclone_under_discovery_sign_sends_to_siftdds() {
    let test = "cyclone_under_discovery_sign_sends_to_siftdds";
    discovery_case(test, 58, &[DISCOVERY_SIGN], "cyclone", Vendor::Cyclone);
}

#[test]
fn fastdds_under_discovery_encrypt_receives_from_siftdds() {
    let test = "fastdds_under_discovery_encrypt_receives_from_siftdds";
    discovery_case(
        test,
        62,
        &[DISCOVERY_ENCRYPT, ALL_ENCRYPT],
        "siftdds",
        Vendor::FastDds,
    );
}

#[test]
fn fastdds_under_discovery_encrypt_sends_to_siftdds() {
    let test = "fastdds_under_discovery_encrypt_sends_to_siftdds";
    discovery_case(
        test,
        63,
        &[DISCOVERY_ENCRYPT, ALL_ENCRYPT],
        "fastdds",
        Vendor::FastDds,
    );
}

#[test]
fn fastdds_under_discovery_sign_receives_from_siftdds() {
    let test = "fastdds_under_discovery_sign_receives_from_siftdds";
    discovery_case(test, 67, &[DISCOVERY_SIGN], "siftdds", Vendor::FastDds);
}

#[test]
fn fastdds_under_discovery_sign_sends_to_siftdds() {
    let test = "fastdds_under_discovery_sign_sends_to_siftdds";
    discovery_case(test, 69, &[DISCOVERY_SIGN], "fastdds", Vendor::FastDds);
}
