//! RTPS protection with origin authentication (`rtps_protection_kind`
//! SIGN_WITH_ORIGIN_AUTHENTICATION / ENCRYPT_WITH_ORIGIN_AUTHENTICATION, DDS-Security 1.1
//! §9.5.2.1.1, §9.5.3.3.4.4): three secured participants (alice writes, bob and carol read)
//! each get a receiver-specific key in alice's CryptoTokens; every protected message carries
//! a MAC per receiver (one when its INFO_DST names one participant), each receiver verifies its
//! own; a message that carries no valid MAC for its receiver is dropped, so carol, who holds
//! alice's common key, cannot forge alice's messages to bob, which she can without origin
//! authentication.
#![allow(clippy::arithmetic_side_effects)]

use std::sync::Arc;

use super::crypto::{MARKER, contains, sample, write_and_take};
use super::security::{governed, secure_node_configured, secure_node_governed};
use super::source::forged;
use super::*;
use crate::cdr::Endianness;
use crate::core::Transmit;
use crate::core::participant::crypto::tests::governance_xml;
use crate::core::sim::Node;
use crate::security::access::governance::Governance;
use crate::security::auth::tests::{ca, identity};
use crate::security::crypto::{KeyMaterial, OsRandom, SenderSession, encode_rtps_message};
use crate::wire::security::{SRTPS_POSTFIX, SRTPS_PREFIX};
use crate::wire::submessage::{Data, DataPayload, Submessage};
use crate::wire::{EntityId, Header, SequenceNumber, emit_message};

/// The user-data multicast group bob and carol join in [`trio_on_multicast`].
const GROUP: Locator = Locator::udpv4([239, 255, 0, 2], 7500);

/// alice (node 0, a reliable KEEP_ALL writer), bob and carol (nodes 1 and 2, a reader each)
/// under RTPS protection `rtps`, past the key exchange and matched.
fn trio(rtps: &str) -> (SimNet, Guid, Guid, Guid) {
    trio_with(rtps, false)
}

/// [`trio`] with bob and carol listening on [`GROUP`] for user data as well.
fn trio_on_multicast(rtps: &str) -> (SimNet, Guid, Guid, Guid) {
    trio_with(rtps, true)
}

fn trio_with(rtps: &str, multicast: bool) -> (SimNet, Guid, Guid, Guid) {
    let xml = governance_xml(rtps, "NONE", "NONE", "NONE");
    let g = Arc::new(Governance::parse(&xml).unwrap());
    let ca = ca("Test CA", true);
    let nodes: Vec<Node> = ["alice", "bob", "carol"]
        .iter()
        .enumerate()
        .map(|(i, cn)| {
            let id = identity(cn, &ca, true);
            let listens = multicast && i > 0;
            let mut node = secure_node_configured(i, Some(&id), governed(Some(g.clone())), |c| {
                if listens {
                    c.default_multicast_locators = vec![GROUP];
                }
            });
            if listens {
                node.locators.push(GROUP);
            }
            node
        })
        .collect();
    let mut net = SimNet::with_nodes(nodes, SEED);
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(true));
    let bob = net.nodes[1].p.create_reader(now, reader_spec(true));
    let carol = net.nodes[2].p.create_reader(now, reader_spec(true));
    let prefixes: Vec<GuidPrefix> = (0..3).map(|i| net.nodes[i].p.guid_prefix()).collect();
    let ready = net.run_until(5_000, |net| {
        (0..3).all(|i| (0..3).all(|j| i == j || net.nodes[i].p.has_participant_keys(prefixes[j])))
            && net.nodes[0].p.matched_readers(w) == 2
    });
    assert!(ready, "{rtps}: no key exchange or no match");
    (net, w, bob, carol)
}

/// The receiver-specific MAC count of `d`'s SRTPS_POSTFIX (its CryptoFooter: the 16-octet
/// common MAC, then a big-endian count).
fn receiver_macs(d: &[u8]) -> u32 {
    let mut at = Header::LEN;
    while at + 4 <= d.len() {
        let b = [d[at + 2], d[at + 3]];
        let len = match d[at + 1] & 1 == 1 {
            true => u16::from_le_bytes(b),
            false => u16::from_be_bytes(b),
        };
        if d[at] == SRTPS_POSTFIX {
            let c = &d[at + 4 + 16..at + 4 + 20];
            return u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        if len == 0 {
            break;
        }
        at += 4 + usize::from(len);
    }
    panic!("no SRTPS_POSTFIX");
}

/// A DATA of writer `w` holding [`MARKER`], sequence number `sn`, in a message from
/// `from`, with an INFO_DST naming `to` (none when `None`).
fn data_message(from: GuidPrefix, to: Option<GuidPrefix>, w: Guid, sn: i64) -> Vec<u8> {
    let payload = sample(7).data;
    let data = Submessage::Data(Data {
        endian: Endianness::Little,
        extra_flags: 0,
        reader_id: EntityId::UNKNOWN,
        writer_id: w.entity_id,
        writer_sn: SequenceNumber(sn),
        inline_qos: None,
        payload: DataPayload::Data(&payload),
    });
    match to {
        Some(to) => forged(from, to, data),
        None => {
            let mut out = Vec::new();
            emit_message(&Header::new(from), &[data], &mut out);
            out
        }
    }
}

/// `plain` through node 0's send transform.
fn protect(net: &mut SimNet, plain: Vec<u8>) -> Vec<u8> {
    let mut t = Transmit {
        destinations: Vec::new(),
        payload: plain,
        splice: None,
    };
    let c = net.nodes[0].p.crypto.as_mut().expect("secured");
    assert!(c.protect(&mut t));
    t.datagram().to_vec()
}

#[test]
fn origin_authenticated_participants_deliver_reliably_with_a_mac_per_receiver() {
    for kind in [
        "SIGN_WITH_ORIGIN_AUTHENTICATION",
        "ENCRYPT_WITH_ORIGIN_AUTHENTICATION",
    ] {
        let (mut net, w, bob, carol) = trio(kind);
        // Each peer's tokens carry a receiver-specific key, each a different one.
        let alice = net.nodes[0].p.guid_prefix();
        let key = |net: &SimNet, i: usize| -> KeyMaterial {
            let c = net.nodes[i].p.crypto.as_ref().unwrap();
            c.remote_key_material(alice).unwrap().clone()
        };
        let (kb, kc) = (key(&net, 1), key(&net, 2));
        assert!(kb.has_receiver_specific_key() && kc.has_receiver_specific_key());
        assert_ne!(kb.receiver_specific_key_id, kc.receiver_specific_key_id);
        assert_ne!(
            kb.master_receiver_specific_key,
            kc.master_receiver_specific_key
        );
        assert_eq!(kb.master_sender_key, kc.master_sender_key);
        // 30 samples reach both readers over the network.
        assert_eq!(write_and_take(&mut net, w, bob, 30), 30, "{kind}");
        let now = net.now();
        let mut at_carol = 0;
        while net.nodes[2].p.take(now, carol).is_some() {
            at_carol += 1;
        }
        assert_eq!(at_carol, 30, "{kind}");
        // A message for everyone carries two MACs and both receivers take it (the next
        // sequence number, 31, so the reliable readers deliver it at once).
        let bp = net.nodes[1].p.guid_prefix();
        let d = protect(&mut net, data_message(alice, None, w, 31));
        assert_eq!(d.get(Header::LEN), Some(&SRTPS_PREFIX));
        assert_eq!(receiver_macs(&d), 2, "{kind}");
        let src = net.nodes[0].locators[0];
        for (node, r) in [(1, bob), (2, carol)] {
            net.nodes[node].p.handle_datagram(now, src, &d);
            let got = net.nodes[node].p.take(now, r);
            assert!(
                got.is_some_and(|s| contains(&s.data, MARKER)),
                "{kind} node {node}"
            );
        }
        // A message for bob (INFO_DST) carries one MAC: bob takes it, carol refuses it.
        let d = protect(&mut net, data_message(alice, Some(bp), w, 32));
        assert_eq!(receiver_macs(&d), 1, "{kind}");
        net.nodes[1].p.handle_datagram(now, src, &d);
        assert!(net.nodes[1].p.take(now, bob).is_some(), "{kind}");
        let before = net.nodes[2].p.stats();
        // Carol has no MAC of hers in it (the MAC count is not covered by the common MAC,
        // but her own key is needed to make one).
        net.nodes[2].p.handle_datagram(now, src, &d);
        let after = net.nodes[2].p.stats();
        assert_eq!(after.crypto_rejected - before.crypto_rejected, 1, "{kind}");
        assert_eq!(
            after.crypto_unverified - before.crypto_unverified,
            1,
            "{kind}"
        );
        for i in 0..3 {
            assert_eq!(net.nodes[i].p.stats().unprotected, 0, "{kind} node {i}");
        }
    }
}

/// carol holds alice's common key (alice's tokens to carol) and forges a message in alice's
/// name to bob (sequence number 1, the next bob expects), protected with that key only:
/// without origin authentication bob cannot tell and takes it; with it, the message has no
/// MAC for bob and is dropped.
fn forge_as_alice_to_bob(net: &mut SimNet, w: Guid) -> Vec<u8> {
    let alice = net.nodes[0].p.guid_prefix();
    let bob = net.nodes[1].p.guid_prefix();
    let held = net.nodes[2].p.crypto.as_ref().unwrap();
    let mut common = held.remote_key_material(alice).unwrap().clone();
    common.receiver_specific_key_id = [0; 4];
    common.master_receiver_specific_key = Vec::new();
    let mut session = SenderSession::new(common, &mut OsRandom).unwrap();
    let plain = data_message(alice, Some(bob), w, 1);
    let mut out = Vec::new();
    encode_rtps_message(&mut session, &plain, &mut [], Endianness::Little, &mut out).unwrap();
    out
}

#[test]
fn a_message_forged_by_another_authenticated_peer_with_the_common_key_is_dropped_under_origin_authentication()
 {
    let (mut net, w, bob, _) = trio("SIGN_WITH_ORIGIN_AUTHENTICATION");
    let forged = forge_as_alice_to_bob(&mut net, w);
    let now = net.now();
    let src = net.nodes[0].locators[0];
    let before = net.nodes[1].p.stats();
    net.nodes[1].p.handle_datagram(now, src, &forged);
    let after = net.nodes[1].p.stats();
    assert_eq!(after.crypto_rejected - before.crypto_rejected, 1);
    assert_eq!(after.crypto_unverified - before.crypto_unverified, 1);
    assert!(net.nodes[1].p.take(now, bob).is_none());
    // bob keeps taking alice's genuine samples.
    assert_eq!(write_and_take(&mut net, w, bob, 10), 10);
}

#[test]
fn without_origin_authentication_the_same_forgery_is_taken() {
    let (mut net, w, bob, _) = trio("SIGN");
    let forged = forge_as_alice_to_bob(&mut net, w);
    let now = net.now();
    let src = net.nodes[0].locators[0];
    net.nodes[1].p.handle_datagram(now, src, &forged);
    let got = net.nodes[1].p.take(now, bob);
    assert!(got.is_some_and(|s| contains(&s.data, MARKER)));
}

#[test]
fn a_peer_whose_tokens_lack_a_receiver_specific_key_is_not_decoded_under_origin_authentication() {
    // alice under origin authentication, bob's governance without it: bob's tokens carry no
    // receiver-specific key, so alice refuses them and drops his protected messages.
    let ca = ca("Test CA", true);
    let gov = |kind: &str| {
        let xml = governance_xml(kind, "NONE", "NONE", "NONE");
        Some(Arc::new(Governance::parse(&xml).unwrap()))
    };
    let nodes = vec![
        secure_node_governed(
            0,
            Some(&identity("alice", &ca, true)),
            gov("SIGN_WITH_ORIGIN_AUTHENTICATION"),
        ),
        secure_node_governed(1, Some(&identity("bob", &ca, true)), gov("SIGN")),
    ];
    let mut net = SimNet::with_nodes(nodes, SEED);
    let now = net.now();
    let r = net.nodes[0].p.create_reader(now, reader_spec(true));
    let w = net.nodes[1].p.create_writer(now, writer_spec(true));
    net.run_for(3_000);
    let bob = net.nodes[1].p.guid_prefix();
    assert_eq!(net.nodes[0].p.stats().authenticated, 1);
    assert!(!net.nodes[0].p.has_participant_keys(bob));
    let now = net.now();
    let _ = net.nodes[1].p.write(now, w, sample(1));
    net.run_for(500);
    let now = net.now();
    assert!(net.nodes[0].p.take(now, r).is_none());
    assert!(net.nodes[0].p.stats().crypto_rejected > 0);
}

/// bob and carol on one multicast group: alice's writer sends samples once to the group, and
/// that one datagram carries a MAC for each of them (no INFO_DST), which each verifies.
#[test]
fn a_multicast_datagram_carries_a_mac_per_receiver_and_both_take_it() {
    let (mut net, w, bob, carol) = trio_on_multicast("SIGN_WITH_ORIGIN_AUTHENTICATION");
    net.tap = Some(Vec::new());
    assert_eq!(write_and_take(&mut net, w, bob, 30), 30);
    let now = net.now();
    let mut at_carol = 0;
    while net.nodes[2].p.take(now, carol).is_some() {
        at_carol += 1;
    }
    assert_eq!(at_carol, 30);
    let stats = net.nodes[0].p.writer_filter_stats(w).unwrap();
    assert!(stats.samples_multicast > 0, "{stats:?}");
    let two = net
        .tap
        .take()
        .unwrap()
        .iter()
        .filter(|(i, d)| *i == 0 && d.get(Header::LEN) == Some(&SRTPS_PREFIX))
        .filter(|(_, d)| receiver_macs(d) == 2)
        .count();
    assert!(
        two > 0,
        "no protected datagram with a MAC for each receiver"
    );
    for i in 0..3 {
        assert_eq!(net.nodes[i].p.stats().unprotected, 0, "node {i}");
    }
}
