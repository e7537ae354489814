//! DDS Security cryptography in the participant (`crypto.rs`): two secured participants under
//! a governance with RTPS protection ENCRYPT or SIGN authenticate, exchange their participant
//! CryptoTokens over the volatile secure topic, match, and deliver reliably with every
//! user-data datagram protected; a flipped bit, and a HEARTBEAT or GAP forged in the writer's
//! name (in clear, or protected under a key that is not the writer's), are dropped and
//! counted while the reader keeps delivering.
#![allow(clippy::arithmetic_side_effects)]

use std::sync::Arc;

use bytes::Bytes;

use super::security::secure_node_governed;
use super::source::{forged, gap, heartbeat};
use super::*;
use crate::cdr::Endianness;
use crate::core::participant::crypto::tests::governance_xml;
use crate::core::sim::Node;
use crate::core::{ChangeKind, WriteRequest};
use crate::security::access::governance::Governance;
use crate::security::auth::tests::{ca, identity};
use crate::security::crypto::{
    KeyMaterial, OsRandom, Protected, SenderSession, TransformationKind, encode_rtps_message,
    peek_crypto_header,
};
use crate::wire::Header;
use crate::wire::security::SRTPS_PREFIX;

/// A marker in every sample: it must never be seen in clear on the wire.
pub(super) const MARKER: &[u8] = b"MARKER-7f3a-plaintext";

fn governance(rtps: &str) -> Arc<Governance> {
    let xml = governance_xml(rtps, "NONE", "NONE", "NONE");
    Arc::new(Governance::parse(&xml).unwrap())
}

/// Two secured participants (alice, bob) under RTPS protection `rtps`, a reliable KEEP_ALL
/// writer on node 0 and a reader on node 1, before anything ran.
fn pair_under(rtps: &str) -> (SimNet, Guid, Guid) {
    pair_governed(governance(rtps))
}

/// Two secured participants (alice, bob) under governance `g`, a reliable KEEP_ALL writer on
/// node 0 and a reader on node 1, before anything ran.
pub(super) fn pair_governed(g: Arc<Governance>) -> (SimNet, Guid, Guid) {
    let ca = ca("Test CA", true);
    let alice = identity("alice", &ca, true);
    let bob = identity("bob", &ca, true);
    let nodes: Vec<Node> = vec![
        secure_node_governed(0, Some(&alice), Some(g.clone())),
        secure_node_governed(1, Some(&bob), Some(g)),
    ];
    let mut net = SimNet::with_nodes(nodes, SEED);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(true));
    let r = net.nodes[1].p.create_reader(now, reader_spec(true));
    (net, w, r)
}

/// [`pair_under`], authenticated, keys exchanged, the writer and reader matched.
fn secured_pair(rtps: &str) -> (SimNet, Guid, Guid) {
    let (mut net, w, r) = pair_under(rtps);
    let (p0, p1) = (net.nodes[0].p.guid_prefix(), net.nodes[1].p.guid_prefix());
    let ready = net.run_until(5_000, |net| {
        net.nodes[0].p.has_participant_keys(p1)
            && net.nodes[1].p.has_participant_keys(p0)
            && net.nodes[0].p.matched_readers(w) == 1
            && net.nodes[1].p.matched_writers(r) == 1
    });
    assert!(
        ready,
        "no key exchange or no match: keys {} {}, matched {} {}, stats {:?} {:?}",
        net.nodes[0].p.has_participant_keys(p1),
        net.nodes[1].p.has_participant_keys(p0),
        net.nodes[0].p.matched_readers(w),
        net.nodes[1].p.matched_writers(r),
        net.nodes[0].p.stats(),
        net.nodes[1].p.stats(),
    );
    (net, w, r)
}

/// Sample `i`: its index and [`MARKER`], padded to 4 octets.
pub(super) fn sample(i: u32) -> WriteRequest {
    let mut payload = vec![0u8, 1, 0, 0];
    payload.extend_from_slice(&i.to_le_bytes());
    payload.extend_from_slice(MARKER);
    payload.resize(payload.len().next_multiple_of(4), 0);
    WriteRequest::new(ChangeKind::Alive, Some([1; 16]), Bytes::from(payload))
}

/// Writes `n` samples on the simulated network and returns how many node 1's reader took;
/// each taken while writing holds [`MARKER`] (it was decoded, not garbled).
pub(super) fn write_and_take(net: &mut SimNet, w: Guid, r: Guid, n: u32) -> usize {
    let mut got = 0;
    for i in 0..n {
        let now = net.now();
        net.nodes[0].p.write(now, w, sample(i)).unwrap();
        net.run_for(5);
        let now = net.now();
        while let Some(s) = net.nodes[1].p.take(now, r) {
            assert!(contains(&s.data, MARKER));
            got += 1;
        }
    }
    net.run_for(300);
    let now = net.now();
    while net.nodes[1].p.take(now, r).is_some() {
        got += 1;
    }
    got
}

/// Writes one sample and takes node 0's datagrams off the network by hand.
pub(super) fn write_one_by_hand(net: &mut SimNet, w: Guid) -> Vec<Vec<u8>> {
    let now = net.now();
    net.nodes[0].p.write(now, w, sample(99)).unwrap();
    let mut out = Vec::new();
    while let Some(t) = net.nodes[0].p.poll_transmit(now) {
        out.push(t.datagram().to_vec());
    }
    out
}

pub(super) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn rtps_encrypt_participants_exchange_keys_and_deliver_reliably_with_no_plaintext_on_the_wire() {
    let (mut net, w, r) = secured_pair("ENCRYPT");
    assert_eq!(write_and_take(&mut net, w, r, 50), 50);
    assert!(net.nodes[0].p.all_acked(w));
    let datagrams = write_one_by_hand(&mut net, w);
    assert!(!datagrams.is_empty());
    for d in &datagrams {
        assert!(!contains(d, MARKER), "the sample went out in plaintext");
        assert_eq!(d.get(Header::LEN), Some(&SRTPS_PREFIX));
    }
    let src = net.nodes[0].locators[0];
    let now = net.now();
    for d in &datagrams {
        net.nodes[1].p.handle_datagram(now, src, d);
    }
    let got = net.nodes[1]
        .p
        .take(now, r)
        .expect("the protected sample is delivered");
    assert!(contains(&got.data, MARKER));
    for i in 0..2 {
        let stats = net.nodes[i].p.stats();
        assert_eq!(stats.unprotected, 0, "node {i}");
        assert_eq!(stats.authenticated, 1, "node {i}");
    }
}

#[test]
fn rtps_sign_participants_deliver_reliably_and_sign_every_user_datagram() {
    let (mut net, w, r) = secured_pair("SIGN");
    assert_eq!(write_and_take(&mut net, w, r, 50), 50);
    let datagrams = write_one_by_hand(&mut net, w);
    // GMAC: the submessages travel in clear between SRTPS_PREFIX and SRTPS_POSTFIX.
    assert!(datagrams.iter().any(|d| contains(d, MARKER)));
    for d in &datagrams {
        assert_eq!(d.get(Header::LEN), Some(&SRTPS_PREFIX));
        let h = peek_crypto_header(d, Protected::Message).unwrap();
        assert_eq!(
            h.transform_identifier.transformation_kind,
            TransformationKind::Aes256Gmac.octets()
        );
    }
    assert_eq!(net.nodes[1].p.stats().unprotected, 0);
}

#[test]
fn a_protected_datagram_with_one_bit_flipped_is_dropped_and_counted() {
    for kind in ["ENCRYPT", "SIGN"] {
        let (mut net, w, r) = secured_pair(kind);
        let datagrams = write_one_by_hand(&mut net, w);
        let src = net.nodes[0].locators[0];
        let now = net.now();
        let before = net.nodes[1].p.stats();
        for d in &datagrams {
            // A bit of the protected bytes: after the SRTPS_PREFIX's 24 octets and, encrypted,
            // the CryptoContent's submessage header and length (8 octets), so it is the MAC
            // that refuses it.
            let mut bad = d.clone();
            bad[Header::LEN + 34] ^= 0x10;
            net.nodes[1].p.handle_datagram(now, src, &bad);
        }
        let after = net.nodes[1].p.stats();
        let n = datagrams.len() as u64;
        assert_eq!(after.crypto_rejected - before.crypto_rejected, n, "{kind}");
        // Refused by the MAC, under the sender's own key.
        assert_eq!(
            after.crypto_unverified - before.crypto_unverified,
            n,
            "{kind}"
        );
        assert!(net.nodes[1].p.take(now, r).is_none(), "{kind}");
        for d in &datagrams {
            net.nodes[1].p.handle_datagram(now, src, d);
        }
        assert!(net.nodes[1].p.take(now, r).is_some(), "{kind}");
    }
}

#[test]
fn forged_heartbeat_and_gap_from_the_writers_address_are_dropped_and_the_reader_keeps_delivering() {
    let (mut net, w, r) = secured_pair("ENCRYPT");
    assert_eq!(write_and_take(&mut net, w, r, 10), 10);
    // The writer's own source address and GUID prefix: source binding lets them through.
    let src = net.nodes[0].locators[0];
    let genuine = write_one_by_hand(&mut net, w);
    let key = peek_crypto_header(&genuine[0], Protected::Message).unwrap();
    // A key of the writer's key id and kind, but not the writer's key.
    let mut fake =
        KeyMaterial::generate(TransformationKind::Aes256Gcm, false, &mut OsRandom).unwrap();
    fake.sender_key_id = key.transform_identifier.transformation_key_id;
    let mut session = SenderSession::new(fake, &mut OsRandom).unwrap();
    let now = net.now();
    let mut attacks = 0;
    let attack = [
        heartbeat(w, r, 10_000_000, 10_000_000),
        gap(w, r, 1, 10_000_000),
    ];
    for sm in attack {
        let plain = forged(w.prefix, r.prefix, sm);
        // In clear.
        net.nodes[1].p.handle_datagram(now, src, &plain);
        // Protected under the wrong key.
        let mut bad = Vec::new();
        encode_rtps_message(&mut session, &plain, &mut [], Endianness::Little, &mut bad).unwrap();
        net.nodes[1].p.handle_datagram(now, src, &bad);
        attacks += 1;
    }
    let stats = net.nodes[1].p.stats();
    assert_eq!(stats.unprotected, attacks);
    assert_eq!(stats.crypto_rejected, attacks);
    assert_eq!(stats.crypto_unverified, attacks);
    // The genuine datagrams of the sample written by hand, then 20 more through the network.
    for d in &genuine {
        net.nodes[1].p.handle_datagram(now, src, d);
    }
    assert!(net.nodes[1].p.take(now, r).is_some());
    assert_eq!(write_and_take(&mut net, w, r, 20), 20);
    assert!(net.nodes[0].p.all_acked(w));
}

#[test]
fn a_participant_under_governance_none_exchanges_no_keys_and_sends_in_clear() {
    let (mut net, w, _r) = pair_under("NONE");
    net.run_for(500);
    assert_eq!(net.nodes[0].p.matched_readers(w), 1);
    let p1 = net.nodes[1].p.guid_prefix();
    assert!(!net.nodes[0].p.has_participant_keys(p1));
    let datagrams = write_one_by_hand(&mut net, w);
    assert!(datagrams.iter().any(|d| contains(d, MARKER)));
    let volatile = BUILTIN_PARTICIPANT_VOLATILE_MESSAGE_SECURE_WRITER;
    let remote = net.nodes[1].p.remote_participants().next().unwrap();
    assert_eq!(remote.available_builtin_endpoints.0 & volatile, 0);
}
