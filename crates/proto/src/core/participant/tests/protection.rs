//! Per-endpoint protection in the participant (`crypto.rs`): two secured participants under a
//! governance whose topic rule sets `metadata_protection_kind` and `data_protection_kind`
//! (RTPS protection NONE) announce PID_ENDPOINT_SECURITY_INFO, exchange their writer's and
//! reader's CryptoTokens, and deliver reliably with every user submessage in SEC_PREFIX …
//! SEC_POSTFIX (also inside RTPS protection); a flipped bit and a DATA sent in clear are
//! dropped and counted.
#![allow(clippy::arithmetic_side_effects)]

use std::sync::Arc;

use bytes::Bytes;

use super::crypto::{MARKER, contains, pair_governed, write_and_take, write_one_by_hand};
use super::*;
use crate::core::participant::crypto::tests::governance_xml;
use crate::core::{ChangeKind, WriteRequest};
use crate::security::access::governance::Governance;
use crate::wire::Header;
use crate::wire::security::{SEC_BODY, SEC_PREFIX};
use crate::wire::submessage::DATA;

/// Two secured participants under metadata protection `meta` and data protection `data`, a
/// reliable KEEP_ALL writer on node 0 and a reader on node 1, matched and past the endpoint
/// key exchange.
fn protected_pair(meta: &str, data: &str) -> (SimNet, Guid, Guid) {
    protected_pair_under("NONE", meta, data)
}

/// [`protected_pair`] under RTPS protection `rtps` as well.
fn protected_pair_under(rtps: &str, meta: &str, data: &str) -> (SimNet, Guid, Guid) {
    let xml = governance_xml(rtps, "NONE", meta, data);
    let (mut net, w, r) = pair_governed(Arc::new(Governance::parse(&xml).unwrap()));
    let ready = net.run_until(5_000, |net| {
        net.nodes[0].p.matched_readers(w) == 1 && net.nodes[1].p.matched_writers(r) == 1
    });
    assert!(ready, "not matched: {:?}", net.nodes[1].p.stats());
    // The endpoint tokens travel over the volatile secure writer after the match.
    net.run_for(2_000);
    (net, w, r)
}

/// The ids of `d`'s submessages.
fn submessage_ids(d: &[u8]) -> Vec<u8> {
    let mut ids = Vec::new();
    let mut at = Header::LEN;
    while at + 4 <= d.len() {
        ids.push(d[at]);
        let little = d[at + 1] & 1 == 1;
        let b = [d[at + 2], d[at + 3]];
        let len = if little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        };
        if len == 0 {
            break;
        }
        at += 4 + usize::from(len);
    }
    ids
}

#[test]
fn endpoints_announce_their_protection() {
    let (net, w, r) = protected_pair("ENCRYPT", "ENCRYPT");
    let writer = net.nodes[1]
        .p
        .remote_writers()
        .find(|d| d.endpoint.guid == w)
        .expect("node 1 knows the writer");
    let info = writer.endpoint.security_info.expect("security info");
    // Valid, submessage, payload and key protected; submessage and payload encrypted.
    assert_eq!(info.endpoint_security_attributes, 0x8000_0038);
    assert_eq!(info.plugin_endpoint_security_attributes, 0x8000_0003);
    let reader = net.nodes[0]
        .p
        .remote_readers()
        .find(|d| d.endpoint.guid == r)
        .expect("node 0 knows the reader");
    assert_eq!(reader.endpoint.security_info, Some(info));
}

#[test]
fn metadata_and_data_encrypt_deliver_reliably_with_no_plaintext_on_the_wire() {
    let (mut net, w, r) = protected_pair("ENCRYPT", "ENCRYPT");
    assert_eq!(write_and_take(&mut net, w, r, 50), 50);
    let acked = net.run_until(3_000, |net| net.nodes[0].p.all_acked(w));
    assert!(
        acked,
        "{:?} {:?}",
        net.nodes[0].p.stats(),
        net.nodes[1].p.stats()
    );
    let datagrams = write_one_by_hand(&mut net, w);
    assert!(!datagrams.is_empty());
    for d in &datagrams {
        assert!(!contains(d, MARKER), "the sample went out in plaintext");
        let ids = submessage_ids(d);
        assert!(!ids.contains(&DATA), "a DATA in clear: {ids:02x?}");
    }
    assert!(datagrams.iter().any(|d| {
        let ids = submessage_ids(d);
        ids.contains(&SEC_PREFIX) && ids.contains(&SEC_BODY)
    }));
    let src = net.nodes[0].locators[0];
    let now = net.now();
    for d in &datagrams {
        net.nodes[1].p.handle_datagram(now, src, d);
    }
    let got = net.nodes[1].p.take(now, r).expect("the protected sample");
    assert!(contains(&got.data, MARKER));
    for i in 0..2 {
        let stats = net.nodes[i].p.stats();
        assert_eq!(stats.unprotected, 0, "node {i}");
    }
}

#[test]
fn metadata_and_data_sign_deliver_reliably_and_sign_every_user_submessage() {
    let (mut net, w, r) = protected_pair("SIGN", "SIGN");
    assert_eq!(write_and_take(&mut net, w, r, 50), 50);
    let datagrams = write_one_by_hand(&mut net, w);
    // GMAC: the DATA travels in clear between SEC_PREFIX and SEC_POSTFIX.
    assert!(datagrams.iter().any(|d| contains(d, MARKER)));
    for d in &datagrams {
        let ids = submessage_ids(d);
        if let Some(i) = ids.iter().position(|id| *id == DATA) {
            assert!(i > 0 && ids[i - 1] == SEC_PREFIX, "{ids:02x?}");
        }
    }
    assert_eq!(net.nodes[1].p.stats().unprotected, 0);
}

#[test]
fn endpoint_protection_inside_rtps_protection_delivers_reliably() {
    let (mut net, w, r) = protected_pair_under("ENCRYPT", "SIGN", "ENCRYPT");
    assert_eq!(write_and_take(&mut net, w, r, 50), 50);
    let datagrams = write_one_by_hand(&mut net, w);
    for d in &datagrams {
        assert!(!contains(d, MARKER), "the sample went out in plaintext");
        assert_eq!(
            d.get(Header::LEN),
            Some(&crate::wire::security::SRTPS_PREFIX)
        );
    }
    for i in 0..2 {
        let stats = net.nodes[i].p.stats();
        assert_eq!(stats.unprotected, 0, "node {i}");
    }
}

#[test]
fn a_protected_submessage_with_one_bit_flipped_is_dropped_and_counted() {
    let (mut net, w, r) = protected_pair("ENCRYPT", "ENCRYPT");
    let datagrams = write_one_by_hand(&mut net, w);
    let src = net.nodes[0].locators[0];
    let now = net.now();
    let before = net.nodes[1].p.stats().crypto_rejected;
    let mut flipped = 0;
    for d in &datagrams {
        let Some(at) = submessage_at(d, SEC_BODY) else {
            continue;
        };
        let mut bad = d.clone();
        bad[at + 10] ^= 0x10;
        net.nodes[1].p.handle_datagram(now, src, &bad);
        flipped += 1;
    }
    assert!(flipped > 0);
    let after = net.nodes[1].p.stats().crypto_rejected;
    assert_eq!(after - before, flipped);
    assert!(net.nodes[1].p.take(now, r).is_none());
    for d in &datagrams {
        net.nodes[1].p.handle_datagram(now, src, d);
    }
    assert!(net.nodes[1].p.take(now, r).is_some());
}

#[test]
fn a_data_in_clear_from_a_protected_writer_is_dropped_and_counted() {
    // The same writer and reader, unprotected: what the writer sends is then in clear.
    let (mut net, w, r) = protected_pair("ENCRYPT", "NONE");
    let datagrams = write_one_by_hand(&mut net, w);
    let src = net.nodes[0].locators[0];
    let now = net.now();
    let plain = sample_datagram_in_clear(&net, w);
    let before = net.nodes[1].p.stats().unprotected;
    net.nodes[1].p.handle_datagram(now, src, &plain);
    assert_eq!(net.nodes[1].p.stats().unprotected - before, 1);
    assert!(net.nodes[1].p.take(now, r).is_none());
    for d in &datagrams {
        net.nodes[1].p.handle_datagram(now, src, d);
    }
    assert!(net.nodes[1].p.take(now, r).is_some());
}

/// A datagram from node 0 holding a DATA of writer `w` in clear (sequence number 1000).
fn sample_datagram_in_clear(net: &SimNet, w: Guid) -> Vec<u8> {
    use crate::cdr::Endianness;
    use crate::wire::submessage::{Data, DataPayload, Submessage};
    use crate::wire::{EntityId, SequenceNumber, emit_message};
    let mut payload = vec![0u8, 1, 0, 0];
    payload.extend_from_slice(MARKER);
    let data = Data {
        endian: Endianness::Little,
        extra_flags: 0,
        reader_id: EntityId::UNKNOWN,
        writer_id: w.entity_id,
        writer_sn: SequenceNumber(1000),
        inline_qos: None,
        payload: DataPayload::Data(&payload),
    };
    let mut out = Vec::new();
    emit_message(
        &Header::new(net.nodes[0].p.guid_prefix()),
        &[Submessage::Data(data)],
        &mut out,
    );
    out
}

/// The offset of the first submessage of id `id` in `d`.
fn submessage_at(d: &[u8], id: u8) -> Option<usize> {
    let mut at = Header::LEN;
    while at + 4 <= d.len() {
        if d[at] == id {
            return Some(at);
        }
        let little = d[at + 1] & 1 == 1;
        let b = [d[at + 2], d[at + 3]];
        let len = if little {
            u16::from_le_bytes(b)
        } else {
            u16::from_be_bytes(b)
        };
        if len == 0 {
            return None;
        }
        at += 4 + usize::from(len);
    }
    None
}

#[test]
fn payloads_of_any_length_round_trip_under_sign_and_encrypt() {
    for kind in ["SIGN", "ENCRYPT"] {
        let (mut net, w, r) = protected_pair(kind, kind);
        for len in [1usize, 2, 3, 5, 7] {
            let mut payload = vec![0u8, 1, 0, 0];
            payload.extend(std::iter::repeat_n(0xa5, len));
            let now = net.now();
            let req = WriteRequest::new(ChangeKind::Alive, Some([1; 16]), Bytes::from(payload));
            net.nodes[0].p.write(now, w, req).unwrap();
            net.run_for(200);
            let now = net.now();
            let got = net.nodes[1].p.take(now, r);
            let got = got
                .unwrap_or_else(|| panic!("{kind} {len}: nothing; {:?}", net.nodes[1].p.stats()));
            assert_eq!(got.data.len(), 4 + len, "{kind} {len}");
        }
    }
}

/// A sample of `len` payload octets after the encapsulation: its index, [`MARKER`], then a
/// pattern that depends on the offset.
fn large_sample(i: u32, len: usize) -> WriteRequest {
    let mut payload = vec![0u8, 1, 0, 0];
    payload.extend_from_slice(&i.to_le_bytes());
    payload.extend_from_slice(MARKER);
    while payload.len() < 4 + len {
        payload.push((payload.len() % 251) as u8);
    }
    WriteRequest::new(ChangeKind::Alive, Some([1; 16]), Bytes::from(payload))
}

#[test]
fn payload_protected_samples_of_100kb_go_in_fragments_each_encoded_and_are_reassembled() {
    use crate::wire::submessage::DATA_FRAG;
    const LEN: usize = 100_000;
    for data in ["SIGN", "ENCRYPT"] {
        for meta in ["NONE", data] {
            let (mut net, w, r) = protected_pair(meta, data);
            let mut got = Vec::new();
            for i in 0..5 {
                let now = net.now();
                net.nodes[0].p.write(now, w, large_sample(i, LEN)).unwrap();
                net.run_for(100);
                let now = net.now();
                while let Some(s) = net.nodes[1].p.take(now, r) {
                    got.push(s);
                }
            }
            net.run_for(2_000);
            let now = net.now();
            while let Some(s) = net.nodes[1].p.take(now, r) {
                got.push(s);
            }
            let what = format!("meta {meta} data {data}");
            assert_eq!(got.len(), 5, "{what}: {:?}", net.nodes[1].p.stats());
            for (i, s) in got.iter().enumerate() {
                assert_eq!(&s.data[..], &large_sample(i as u32, LEN).data[..], "{what}");
            }
            // One more by hand: each DATA_FRAG carries its fragments encoded.
            let rejected = net.nodes[1].p.stats().crypto_rejected;
            let src = net.nodes[0].locators[0];
            let now = net.now();
            net.nodes[0].p.write(now, w, large_sample(9, LEN)).unwrap();
            let mut datagrams = Vec::new();
            while let Some(t) = net.nodes[0].p.poll_transmit(now) {
                datagrams.push(t.datagram().to_vec());
            }
            let frags = datagrams
                .iter()
                .map(|d| {
                    submessage_ids(d)
                        .iter()
                        .filter(|id| **id == DATA_FRAG)
                        .count()
                })
                .sum::<usize>();
            if meta == "NONE" {
                // The DATA_FRAGs in clear: at least 12 of 8 KiB or less.
                assert!(frags >= 12, "{what}: {frags} DATA_FRAG submessages");
            }
            if data == "ENCRYPT" {
                for d in &datagrams {
                    assert!(!contains(d, MARKER), "{what}: the sample in plaintext");
                }
            } else {
                // GMAC: the payload travels in clear, between its CryptoHeader and footer.
                assert!(datagrams.iter().any(|d| contains(d, MARKER)), "{what}");
            }
            for d in &datagrams {
                net.nodes[1].p.handle_datagram(now, src, d);
            }
            let s = net.nodes[1]
                .p
                .take(now, r)
                .expect("the sample written by hand");
            assert_eq!(&s.data[..], &large_sample(9, LEN).data[..], "{what}");
            assert_eq!(net.nodes[1].p.stats().crypto_rejected, rejected, "{what}");
            for i in 0..2 {
                assert_eq!(net.nodes[i].p.stats().unprotected, 0, "{what} node {i}");
            }
        }
    }
}

/// The receiver-specific MAC count of the SEC_POSTFIX at `at` in `d` (its CryptoFooter: the
/// 16-octet common MAC, then a big-endian count).
fn postfix_macs(d: &[u8], at: usize) -> u32 {
    let c = &d[at + 4 + 16..at + 4 + 20];
    u32::from_be_bytes([c[0], c[1], c[2], c[3]])
}

/// `d` with the receiver-specific MACs of its SEC_POSTFIX at `at` cut off (count 0): the
/// common MAC, which does not cover the postfix, still verifies.
fn without_receiver_macs(d: &[u8], at: usize) -> Vec<u8> {
    let n = postfix_macs(d, at) as usize;
    let mut out = d[..at + 4 + 16].to_vec();
    out.extend_from_slice(&0u32.to_be_bytes());
    out.extend_from_slice(&d[at + 4 + 20 + 20 * n..]);
    let len = u16::from_le_bytes([d[at + 2], d[at + 3]]) - (20 * n) as u16;
    out[at + 2..at + 4].copy_from_slice(&len.to_le_bytes());
    out
}

#[test]
fn metadata_origin_authentication_adds_a_mac_for_the_reader_and_a_submessage_without_it_is_dropped()
{
    use crate::wire::security::SEC_POSTFIX;
    for kind in [
        "SIGN_WITH_ORIGIN_AUTHENTICATION",
        "ENCRYPT_WITH_ORIGIN_AUTHENTICATION",
    ] {
        let (mut net, w, r) = protected_pair(kind, "NONE");
        assert_eq!(write_and_take(&mut net, w, r, 50), 50, "{kind}");
        let datagrams = write_one_by_hand(&mut net, w);
        let src = net.nodes[0].locators[0];
        let now = net.now();
        let mut stripped = 0;
        for d in &datagrams {
            let Some(at) = submessage_at(d, SEC_POSTFIX) else {
                continue;
            };
            // One matched reader: one receiver-specific MAC.
            assert_eq!(postfix_macs(d, at), 1, "{kind}");
            let before = net.nodes[1].p.stats().crypto_rejected;
            net.nodes[1]
                .p
                .handle_datagram(now, src, &without_receiver_macs(d, at));
            assert_eq!(net.nodes[1].p.stats().crypto_rejected - before, 1, "{kind}");
            stripped += 1;
        }
        assert!(stripped > 0, "{kind}");
        assert!(net.nodes[1].p.take(now, r).is_none(), "{kind}");
        for d in &datagrams {
            net.nodes[1].p.handle_datagram(now, src, d);
        }
        assert!(net.nodes[1].p.take(now, r).is_some(), "{kind}");
        for i in 0..2 {
            assert_eq!(net.nodes[i].p.stats().unprotected, 0, "{kind} node {i}");
        }
    }
}
