//! Writer-side content filtering under DDS Security protection, on the simulated LAN at 10 %
//! loss: a filtering writer (alice) and two content-filtered readers (bob: `color = 'RED'`,
//! carol: `shapesize <= 20`) under submessage protection SIGN or ENCRYPT, or RTPS protection
//! SIGN or ENCRYPT, with read and write access control; a fourth participant (dave) whose
//! permissions deny subscribing to the topic. Each filtered reader gets exactly its samples,
//! the filtered-out sequence numbers reach it as GAPs inside the protection (no DATA or GAP of
//! the writer in clear on the wire), PID_CONTENT_FILTER_INFO travels inside the protected
//! submessage, the writer's memo table answers repeated samples, and dave's reader is never
//! matched, never evaluated and gets nothing. RTPS 2.5 §8.7.3-4, DDS-Security 1.1 §8.4.2.4,
//! §8.8.5-6, §9.4.3.
#![allow(clippy::arithmetic_side_effects)]

use std::sync::Arc;

use super::content_filter::{filtered_spec, shapes};
use super::security::secure_node_with;
use super::*;
use crate::core::sim::Node;
use crate::security::access::test_docs::{GovernanceXml, TopicRuleXml, grant_xml, permissions_xml};
use crate::security::access::tests::sign;
use crate::security::access::{Governance, Permissions};
use crate::security::auth::IdentityConfig;
use crate::security::auth::tests::{Ca, ca, identity};
use crate::wire::Header;
use crate::wire::plist::pid::PID_CONTENT_FILTER_INFO;
use crate::wire::security::{SEC_PREFIX, SRTPS_PREFIX};
use crate::wire::submessage::{DATA, GAP, Submessage, SubmessageHeader};

/// Read and write access control on every topic, with the protection kinds given.
fn governance(rtps: &str, meta: &str) -> String {
    GovernanceXml {
        enable_join_access_control: true,
        rtps_protection_kind: rtps,
        ..GovernanceXml::new(vec![TopicRuleXml {
            read_access_control: true,
            write_access_control: true,
            metadata_protection_kind: meta,
            ..TopicRuleXml::open("*")
        }])
    }
    .xml()
}

/// A grant for `cn`: everything allowed, but for dave subscribing to `Square` denied.
fn grant(cn: &str) -> String {
    let deny: &[&str] = match cn {
        "dave" => &["Square"],
        _ => &[],
    };
    grant_xml(cn, &[], deny)
}

/// The four participants' identities and the permissions CA.
fn pki() -> (Ca, Vec<IdentityConfig>) {
    let id_ca = ca("Test CA", true);
    let ids = ["alice", "bob", "carol", "dave"]
        .iter()
        .map(|cn| identity(cn, &id_ca, true))
        .collect();
    (ca("Permissions CA", true), ids)
}

fn node(i: usize, id: &IdentityConfig, perm_ca: &Ca, xml: &str) -> Node {
    secure_node_with(i, Some(id), |identity| {
        let grants: Vec<String> = ["alice", "bob", "carol", "dave"]
            .iter()
            .map(|cn| grant(cn))
            .collect();
        let perm = permissions_xml(&grants);
        SecurityConfig {
            identity,
            permissions_document: sign(&perm, &perm_ca.cert, &perm_ca.key, true),
            allow_unauthenticated: false,
            governance: Some(Arc::new(Governance::parse(xml).unwrap())),
            permissions_ca: Some(perm_ca.cert.to_pem().unwrap()),
            permissions: Some(Arc::new(Permissions::parse(&perm).unwrap())),
        }
    })
}

/// What one run showed.
struct Outcome {
    stats: crate::core::writer::WriterFilterStats,
    counters: Vec<crate::core::reader::ReaderCounters>,
    /// Datagrams node 0 (the writer's participant) sent after the readers matched.
    wire: Vec<Vec<u8>>,
    writer: Guid,
}

/// The run under `rtps` and `meta` protection (see the module overview).
fn run(rtps: &str, meta: &str) -> Outcome {
    let (perm_ca, ids) = pki();
    let xml = governance(rtps, meta);
    let nodes = (0..4).map(|i| node(i, &ids[i], &perm_ca, &xml)).collect();
    let mut net = SimNet::with_nodes(nodes, SEED);
    let now = net.now();
    let mut wspec = writer_spec(true);
    wspec.descriptor = Some(Arc::new(ShapeType::descriptor().clone()));
    let w = net.nodes[0].p.create_writer(now, wspec);
    let red = net.nodes[1]
        .p
        .create_reader(now, filtered_spec("color = %0", &["'RED'"]));
    let small = net.nodes[2]
        .p
        .create_reader(now, filtered_spec("shapesize <= 20", &[]));
    let denied = net.nodes[3]
        .p
        .create_reader(now, filtered_spec("color = %0", &["'RED'"]));
    let ready = net.run_until(5_000, |net| {
        net.nodes[0].p.matched_readers(w) == 2
            && net.nodes[1].p.matched_writers(red) == 1
            && net.nodes[2].p.matched_writers(small) == 1
    });
    assert!(ready, "{rtps}/{meta}: not matched");
    // The endpoint tokens travel over the volatile secure writer after the match.
    net.run_for(2_000);
    net.tap = Some(Vec::new());
    net.faults.loss_percent = 10;
    // 60 writes of 12 distinct samples: the memo table answers the repeats.
    let shapes = shapes(60, |i| (i % 12) as i32);
    for s in &shapes {
        let now = net.now();
        let data = Bytes::from(s.serialize(crate::cdr::Endianness::Little));
        let req = WriteRequest::new(ChangeKind::Alive, s.key_hash(), data);
        net.nodes[0].p.write(now, w, req).unwrap();
        net.run_for(1);
    }
    let acked = net.run_until(100_000, |net| net.nodes[0].p.all_acked(w));
    assert!(acked, "{rtps}/{meta}: reliability stalled");
    let now = net.now();
    let mut take = |node: usize, r| {
        let mut xs = Vec::new();
        while let Some(c) = net.nodes[node].p.take(now, r) {
            xs.push(ShapeType::deserialize(&c.data).unwrap().x);
        }
        xs
    };
    let want = |keep: &dyn Fn(&ShapeType) -> bool| -> Vec<i32> {
        shapes.iter().filter(|s| keep(s)).map(|s| s.x).collect()
    };
    assert_eq!(take(1, red), want(&|s| s.color == "RED"), "{rtps}/{meta}");
    assert_eq!(
        take(2, small),
        want(&|s| s.shapesize <= 20),
        "{rtps}/{meta}"
    );
    // dave's reader: refused by alice (its permissions deny the topic), never matched.
    assert_eq!(take(3, denied), Vec::<i32>::new(), "{rtps}/{meta}");
    assert_eq!(net.nodes[0].p.matched_readers(w), 2, "{rtps}/{meta}");
    for i in 0..4 {
        assert_eq!(
            net.nodes[i].p.stats().unprotected,
            0,
            "{rtps}/{meta} node {i}"
        );
    }
    let counters = vec![
        net.nodes[1].p.reader_counters(red).unwrap(),
        net.nodes[2].p.reader_counters(small).unwrap(),
        net.nodes[3].p.reader_counters(denied).unwrap(),
    ];
    let wire = net
        .tap
        .take()
        .unwrap()
        .into_iter()
        .filter(|(i, _)| *i == 0)
        .map(|(_, d)| d)
        .collect();
    Outcome {
        stats: net.nodes[0].p.writer_filter_stats(w).unwrap(),
        counters,
        wire,
        writer: w,
    }
}

/// The submessages of `d` walked at the top level: (id, offset). Under GMAC the protected
/// submessages stay in place between SEC_PREFIX and SEC_POSTFIX (or SRTPS_PREFIX and
/// SRTPS_POSTFIX); under AES-GCM they are inside a SEC_BODY.
fn submessages(d: &[u8]) -> Vec<(u8, usize)> {
    let mut out = Vec::new();
    let mut at = Header::LEN;
    while at + 4 <= d.len() {
        out.push((d[at], at));
        let b = [d[at + 2], d[at + 3]];
        let len = match d[at + 1] & 1 == 1 {
            true => u16::from_le_bytes(b),
            false => u16::from_be_bytes(b),
        };
        if len == 0 {
            break;
        }
        at += 4 + usize::from(len);
    }
    out
}

/// The writer's DATA and GAP submessages seen in clear in `d`: (id, preceded by SEC_PREFIX,
/// carries PID_CONTENT_FILTER_INFO).
fn writer_submessages_in_clear(d: &[u8], writer: Guid) -> Vec<(u8, bool, bool)> {
    let sms = submessages(d);
    let mut out = Vec::new();
    for (k, (id, at)) in sms.iter().enumerate() {
        if *id != DATA && *id != GAP {
            continue;
        }
        let h = SubmessageHeader::parse(&mut crate::cdr::CdrReader::new(
            &d[*at..],
            crate::cdr::Endianness::Big,
        ))
        .unwrap();
        let end = (*at + SubmessageHeader::LEN + usize::from(h.octets_to_next_header)).min(d.len());
        let body = &d[*at + SubmessageHeader::LEN..end];
        let (writer_id, info) = match Submessage::parse(h, body) {
            Ok(Some(Submessage::Data(x))) => (
                x.writer_id,
                x.inline_qos
                    .is_some_and(|q| q.find(PID_CONTENT_FILTER_INFO).is_some()),
            ),
            Ok(Some(Submessage::Gap(g))) => (g.writer_id, false),
            _ => continue,
        };
        if writer_id != writer.entity_id {
            continue;
        }
        let protected = k > 0 && sms[k - 1].0 == SEC_PREFIX;
        out.push((*id, protected, info));
    }
    out
}

/// What every run must show about the filtering, whatever the protection.
fn assert_filtering(o: &Outcome, what: &str) {
    let s = &o.stats;
    assert_eq!(s.filtered_readers, 2, "{what}: {s:?}");
    // 40 samples rejected for bob's reader, 30 for carol's: each covered by a GAP (more with
    // repairs of lost ones).
    assert!(s.samples_filtered >= 70, "{what}: {s:?}");
    assert!(s.filter_gaps_sent > 0, "{what}: {s:?}");
    // Each write looked up once; 12 distinct samples evaluated, the 48 repeats answered by
    // the memo table.
    assert_eq!(s.filter.lookups, 60, "{what}: {s:?}");
    assert_eq!(s.filter.misses, 12, "{what}: {s:?}");
    assert_eq!(s.filter.hits, 48, "{what}: {s:?}");
    for c in &o.counters[..2] {
        // The readers trusted the writer's PID_CONTENT_FILTER_INFO, which reached them only
        // inside the protection, and never evaluated a DATA themselves.
        assert_eq!(c.content_filtered_locally, 0, "{what}: {c:?}");
        assert!(c.content_passed_by_writer > 0, "{what}: {c:?}");
    }
    // dave's reader heard nothing from the writer.
    let dave = &o.counters[2];
    assert_eq!(
        (dave.content_filtered_locally, dave.content_passed_by_writer),
        (0, 0),
        "{what}: {dave:?}"
    );
    assert!(!o.wire.is_empty(), "{what}");
}

/// Under submessage SIGN (GMAC): every DATA and GAP of the writer is readable but right after
/// its SEC_PREFIX, GAPs among them, and every DATA holds PID_CONTENT_FILTER_INFO.
fn assert_signed_submessages(o: &Outcome) {
    let seen: Vec<_> = o
        .wire
        .iter()
        .flat_map(|d| writer_submessages_in_clear(d, o.writer))
        .collect();
    assert!(seen.iter().all(|(_, protected, _)| *protected), "{seen:?}");
    assert!(seen.iter().any(|(id, _, _)| *id == GAP), "no GAP: {seen:?}");
    let datas: Vec<_> = seen.iter().filter(|(id, _, _)| *id == DATA).collect();
    assert!(!datas.is_empty());
    assert!(datas.iter().all(|(_, _, info)| *info), "{datas:?}");
}

/// Under RTPS SIGN (GMAC): every DATA and GAP of the writer is readable but only inside an
/// SRTPS_PREFIX … SRTPS_POSTFIX message, GAPs among them, and every DATA holds
/// PID_CONTENT_FILTER_INFO.
fn assert_signed_messages(o: &Outcome) {
    let mut gaps = 0;
    for d in &o.wire {
        let seen = writer_submessages_in_clear(d, o.writer);
        if seen.is_empty() {
            continue;
        }
        assert_eq!(d.get(Header::LEN), Some(&SRTPS_PREFIX), "{seen:?}");
        gaps += seen.iter().filter(|(id, _, _)| *id == GAP).count();
        for (id, _, info) in &seen {
            assert!(*id != DATA || *info, "a DATA without its filter info");
        }
    }
    assert!(gaps > 0);
}

#[test]
fn under_submessage_sign_filtered_readers_get_exactly_their_samples_with_gaps_signed() {
    let o = run("NONE", "SIGN");
    assert_filtering(&o, "submessage SIGN");
    assert_signed_submessages(&o);
}

#[test]
fn under_submessage_encrypt_filtered_readers_get_exactly_their_samples_and_no_data_or_gap_is_in_clear()
 {
    let o = run("NONE", "ENCRYPT");
    assert_filtering(&o, "submessage ENCRYPT");
    for d in &o.wire {
        let seen = writer_submessages_in_clear(d, o.writer);
        assert!(seen.is_empty(), "in clear: {seen:?}");
    }
}

#[test]
fn under_rtps_encrypt_filtered_readers_get_exactly_their_samples_and_no_data_or_gap_is_in_clear() {
    let o = run("ENCRYPT", "NONE");
    assert_filtering(&o, "rtps ENCRYPT");
    for d in &o.wire {
        let seen = writer_submessages_in_clear(d, o.writer);
        assert!(seen.is_empty(), "in clear: {seen:?}");
    }
    // Every datagram that served the filtered readers was SRTPS-protected.
    assert!(
        o.wire
            .iter()
            .any(|d| d.get(Header::LEN) == Some(&SRTPS_PREFIX))
    );
}

#[test]
fn under_rtps_sign_filtered_readers_get_exactly_their_samples_inside_signed_messages() {
    let o = run("SIGN", "NONE");
    assert_filtering(&o, "rtps SIGN");
    assert_signed_messages(&o);
}

#[test]
fn under_origin_authentication_filtered_readers_get_exactly_their_samples() {
    let kind = "SIGN_WITH_ORIGIN_AUTHENTICATION";
    // RTPS protection with a MAC per receiver.
    let o = run(kind, "NONE");
    assert_filtering(&o, "rtps origin");
    assert_signed_messages(&o);
    // Submessage protection with a MAC per reader.
    let o = run("NONE", kind);
    assert_filtering(&o, "submessage origin");
    assert_signed_submessages(&o);
}
