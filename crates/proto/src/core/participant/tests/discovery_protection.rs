//! Discovery and liveliness protection in the participant (`sedp.rs`, `crypto.rs`;
//! DDS-Security 1.1 §7.4.5-6): two secured participants under a governance whose domain rule
//! sets `discovery_protection_kind` and `liveliness_protection_kind` and whose topic rule
//! sets `enable_discovery_protection` (with metadata and data protection) announce the secure
//! SEDP and WLP endpoints, exchange their CryptoTokens, announce their endpoints on the secure
//! SEDP writers only, match and deliver reliably; under ENCRYPT a topic name announced later
//! never shows in clear on the wire.
#![allow(clippy::arithmetic_side_effects)]

use std::sync::Arc;

use super::crypto::{contains, pair_governed, write_and_take};
use super::*;
use crate::core::participant::sedp::SECURE_BUILTIN_ENDPOINTS;
use crate::security::access::governance::Governance;
use crate::wire::Header;
use crate::wire::security::SEC_PREFIX;

/// A governance like the vendors' stock ones: discovery and liveliness protection `kind`,
/// metadata and data protection `kind`, discovery and liveliness protection enabled on the
/// topic rule, RTPS protection `rtps`.
fn governance(kind: &str, rtps: &str) -> Arc<Governance> {
    let xml = format!(
        r#"<dds><domain_access_rules><domain_rule>
<domains><id>0</id></domains>
<allow_unauthenticated_participants>false</allow_unauthenticated_participants>
<enable_join_access_control>false</enable_join_access_control>
<discovery_protection_kind>{kind}</discovery_protection_kind>
<liveliness_protection_kind>{kind}</liveliness_protection_kind>
<rtps_protection_kind>{rtps}</rtps_protection_kind>
<topic_access_rules><topic_rule><topic_expression>*</topic_expression>
<enable_discovery_protection>true</enable_discovery_protection>
<enable_liveliness_protection>true</enable_liveliness_protection>
<enable_read_access_control>false</enable_read_access_control>
<enable_write_access_control>false</enable_write_access_control>
<metadata_protection_kind>{kind}</metadata_protection_kind>
<data_protection_kind>{kind}</data_protection_kind>
</topic_rule></topic_access_rules>
</domain_rule></domain_access_rules></dds>"#
    );
    Arc::new(Governance::parse(&xml).unwrap())
}

/// Two participants under [`governance`] `kind` (RTPS protection `rtps`), the writer and
/// reader matched and past the endpoint key exchange.
fn discovery_protected_pair(kind: &str, rtps: &str) -> (SimNet, Guid, Guid) {
    let (mut net, w, r) = pair_governed(governance(kind, rtps));
    let ready = net.run_until(8_000, |net| {
        net.nodes[0].p.matched_readers(w) == 1 && net.nodes[1].p.matched_writers(r) == 1
    });
    assert!(
        ready,
        "not matched: {:?} {:?}",
        net.nodes[0].p.stats(),
        net.nodes[1].p.stats()
    );
    net.run_for(2_000);
    (net, w, r)
}

/// The submessages of `d` after its header: (id, whole submessage).
fn submessages(d: &[u8]) -> Vec<(u8, &[u8])> {
    let mut out = Vec::new();
    let mut at = Header::LEN;
    while at + 4 <= d.len() {
        let little = d[at + 1] & 1 == 1;
        let b = [d[at + 2], d[at + 3]];
        let len = usize::from(if little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        });
        let end = if len == 0 {
            d.len()
        } else {
            (at + 4 + len).min(d.len())
        };
        out.push((d[at], &d[at..end]));
        if len == 0 {
            break;
        }
        at = end;
    }
    out
}

fn discovery_protection_delivers(kind: &str, rtps: &str) {
    let (mut net, w, r) = discovery_protected_pair(kind, rtps);
    // Bits 16-21 announced, and each side knows the other's.
    for i in 0..2 {
        let other = net.nodes[1 - i].p.guid_prefix();
        let bes = net.nodes[i]
            .p
            .remote_participants()
            .find(|p| p.guid_prefix == other)
            .expect("the other participant")
            .available_builtin_endpoints
            .0;
        assert_eq!(bes & SECURE_BUILTIN_ENDPOINTS, SECURE_BUILTIN_ENDPOINTS);
    }
    assert_eq!(write_and_take(&mut net, w, r, 20), 20);
    for i in 0..2 {
        let s = net.nodes[i].p.stats();
        // Each announced its endpoint on the secure SEDP writer and learned the other's on
        // the secure SEDP reader; nothing came in clear, nothing was refused for good.
        assert!(s.secure_discovery_announced >= 1, "node {i}: {s:?}");
        assert!(s.secure_discovery_received >= 1, "node {i}: {s:?}");
        assert_eq!(s.unprotected, 0, "node {i}: {s:?}");
    }
    // The remote endpoint's protection as announced (§7.4.1.5): discovery and liveliness
    // protected too.
    let writer = net.nodes[1]
        .p
        .remote_writers()
        .find(|d| d.endpoint.guid == w)
        .expect("node 1 knows the writer");
    let info = writer.endpoint.security_info.expect("security info");
    assert_eq!(info.endpoint_security_attributes & 0x44, 0x44);
}

#[test]
fn discovery_and_liveliness_encrypt_announce_on_the_secure_endpoints_and_deliver() {
    discovery_protection_delivers("ENCRYPT", "NONE");
}

#[test]
fn discovery_and_liveliness_sign_announce_on_the_secure_endpoints_and_deliver() {
    discovery_protection_delivers("SIGN", "NONE");
}

#[test]
fn discovery_encrypt_inside_rtps_encrypt_announces_on_the_secure_endpoints_and_delivers() {
    discovery_protection_delivers("ENCRYPT", "ENCRYPT");
}

#[test]
fn under_discovery_encrypt_a_topic_name_never_shows_in_clear() {
    let (mut net, _, _) = discovery_protected_pair("ENCRYPT", "NONE");
    let announced = net.nodes[0].p.stats().secure_discovery_announced;
    let now = net.now();
    let mut spec = super::writer_spec(true);
    spec.topic_name = "SecretTopicName".into();
    let w2 = net.nodes[0].p.create_writer(now, spec);
    // Node 0's datagrams right after the creation, by hand: the announcement is among them.
    let mut seen = Vec::new();
    while let Some(t) = net.nodes[0].p.poll_transmit(now) {
        seen.push(t.datagram().to_vec());
    }
    let src = net.nodes[0].locators[0];
    for d in &seen {
        net.nodes[1].p.handle_datagram(now, src, d);
    }
    let learned = net.run_until(3_000, |net| {
        net.nodes[1]
            .p
            .remote_writers()
            .any(|d| d.endpoint.guid == w2)
    });
    assert!(learned, "node 1 never learned the new writer");
    assert!(net.nodes[0].p.stats().secure_discovery_announced > announced);
    assert!(!seen.is_empty());
    for d in &seen {
        assert!(!contains(d, b"SecretTopicName"), "the topic name in clear");
    }
    // It travelled in SEC_PREFIX … SEC_POSTFIX.
    assert!(
        seen.iter()
            .any(|d| submessages(d).iter().any(|(id, _)| *id == SEC_PREFIX))
    );
}
