//! Discovery and liveliness protection in the participant (`sedp.rs`, `crypto.rs`;
//! DDS-Security 1.1 §7.4.5-6): two secured participants under a governance whose domain rule
//! sets `discovery_protection_kind` and `liveliness_protection_kind` and whose topic rule
//! sets `enable_discovery_protection` (with metadata and data protection) announce the secure
//! SEDP and WLP endpoints, exchange their CryptoTokens, announce their endpoints on the secure
//! SEDP writers only, match and deliver reliably; under ENCRYPT a topic name announced later
//! never shows in clear on the wire. On the receiving side, an endpoint of a topic our
//! governance discovery-protects is taken only from the secure SEDP readers: one forged on the
//! plain SEDP in an authenticated peer's name, or announced there by an unauthenticated
//! participant, is not matched, and does not change or dispose one learned securely; a
//! participant cannot dispose another's endpoint.
#![allow(clippy::arithmetic_side_effects)]

use std::sync::Arc;

use super::crypto::{contains, pair_governed, write_and_take};
use super::security::{secure_node_governed, secure_node_with};
use super::source::forged;
use super::*;
use crate::cdr::{CdrReader, CdrWriter, Endianness};
use crate::core::discovery::{PublicationData, SubscriptionData};
use crate::core::participant::sedp::{
    SECURE_BUILTIN_ENDPOINTS, SEDP_PUBLICATIONS_SECURE_READER, SEDP_PUBLICATIONS_SECURE_WRITER,
};
use crate::security::access::governance::Governance;
use crate::security::access::test_docs::{GovernanceXml, TopicRuleXml};
use crate::security::auth::tests::{ca, identity};
use crate::wire::plist::pid::{PID_KEY_HASH, PID_STATUS_INFO};
use crate::wire::plist::{Parameter, ParameterListView, Value, emit_parameter_list};
use crate::wire::security::SEC_PREFIX;
use crate::wire::submessage::{Data, DataPayload};
use crate::wire::{Header, SequenceNumber};

/// A governance like the vendors' stock ones: discovery and liveliness protection `kind`,
/// metadata and data protection `kind`, discovery and liveliness protection enabled on the
/// topic rule `*`, RTPS protection `rtps`; before it, a rule for the topics `Unprotected*`
/// that protects nothing.
fn governance(kind: &str, rtps: &str) -> Arc<Governance> {
    governance_allowing(kind, rtps, false)
}

/// [`governance`], allowing unauthenticated participants or not.
fn governance_allowing(kind: &str, rtps: &str, unauthenticated: bool) -> Arc<Governance> {
    let protected = TopicRuleXml {
        discovery_protection: true,
        liveliness_protection: true,
        metadata_protection_kind: kind,
        data_protection_kind: kind,
        ..TopicRuleXml::open("*")
    };
    let xml = GovernanceXml {
        allow_unauthenticated_participants: unauthenticated,
        discovery_protection_kind: kind,
        liveliness_protection_kind: kind,
        rtps_protection_kind: rtps,
        ..GovernanceXml::new(vec![TopicRuleXml::open("Unprotected*"), protected])
    }
    .xml();
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

/// An SEDP DATA in `from`'s name to `to`, from its builtin writer `writer_id` to our
/// `reader_id`, sequence number `sn`: the endpoint `key` alive with `payload`, or disposed
/// (and unregistered) without one. PID_KEY_HASH (and PID_STATUS_INFO) inline, as the SEDP
/// writers send them.
fn sedp_data(
    (from, to): (GuidPrefix, GuidPrefix),
    (writer_id, reader_id): (EntityId, EntityId),
    sn: i64,
    key: Guid,
    payload: Option<&[u8]>,
) -> Vec<u8> {
    let mut params = vec![Parameter::Known {
        pid: PID_KEY_HASH,
        value: Value::KeyHash(key.to_bytes()),
    }];
    if payload.is_none() {
        params.push(Parameter::Known {
            pid: PID_STATUS_INFO,
            value: Value::StatusInfo(ChangeKind::NotAliveDisposedUnregistered.status_info()),
        });
    }
    let mut qos = Vec::new();
    emit_parameter_list(
        params.iter(),
        &mut CdrWriter::new(&mut qos, Endianness::Little),
    )
    .unwrap();
    let inline_qos =
        ParameterListView::new_checked(&mut CdrReader::new(&qos, Endianness::Little)).unwrap();
    let d = Data {
        endian: Endianness::Little,
        extra_flags: 0,
        reader_id,
        writer_id,
        writer_sn: SequenceNumber(sn),
        inline_qos: Some(inline_qos),
        payload: match payload {
            Some(p) => DataPayload::Data(p),
            None => DataPayload::None,
        },
    };
    forged(from, to, Submessage::Data(d))
}

/// [`sedp_data`] on the plain SEDP publications endpoints: DATA(w) of `data`, or with `None`
/// a dispose of writer `key`.
fn plain_publication(
    route: (GuidPrefix, GuidPrefix),
    sn: i64,
    key: Guid,
    data: Option<&PublicationData>,
) -> Vec<u8> {
    let payload = data.map(|d| d.to_payload(Endianness::Little).unwrap());
    let ids = (
        EntityId::SEDP_PUBLICATIONS_ANNOUNCER,
        EntityId::SEDP_PUBLICATIONS_DETECTOR,
    );
    sedp_data(route, ids, sn, key, payload.as_deref())
}

/// What node `i` knows of remote writer `w`.
fn known_writer(net: &SimNet, i: usize, w: Guid) -> Option<PublicationData> {
    net.nodes[i]
        .p
        .remote_writers()
        .find(|d| d.guid == w)
        .cloned()
}

#[test]
fn a_plain_sedp_announcement_of_a_discovery_protected_endpoint_is_not_matched() {
    let (mut net, w, r) = discovery_protected_pair("ENCRYPT", "NONE");
    let (p0, p1) = (w.prefix, r.prefix);
    let src0 = net.nodes[0].locators[0];
    let src1 = net.nodes[1].locators[0];
    // The real writer and reader were learned on the secure SEDP readers and matched.
    let learned = known_writer(&net, 1, w).expect("node 1 learned the writer");
    assert_eq!(net.nodes[1].p.matched_writers(r), 1);
    assert_eq!(net.nodes[0].p.matched_readers(w), 1);
    // A writer on the same topic forged in node 0's name on its plain SEDP writer (nothing
    // went on that one yet: sequence number 1), PID_ENDPOINT_SECURITY_INFO and all.
    let mut rogue = learned.clone();
    rogue.endpoint.guid = Guid::new(p0, EntityId([0, 0, 0x42, 0x02]));
    let now = net.now();
    let forged_w = plain_publication((p0, p1), 1, rogue.guid, Some(&rogue));
    net.nodes[1].p.handle_datagram(now, src0, &forged_w);
    // And a reader forged in node 1's name on its plain SEDP subscriptions writer.
    let mut rogue_r: SubscriptionData = net.nodes[0]
        .p
        .remote_readers()
        .find(|d| d.guid == r)
        .cloned()
        .expect("node 0 learned the reader");
    rogue_r.endpoint.guid = Guid::new(p1, EntityId([0, 0, 0x43, 0x07]));
    let payload = rogue_r.to_payload(Endianness::Little).unwrap();
    let ids = (
        EntityId::SEDP_SUBSCRIPTIONS_ANNOUNCER,
        EntityId::SEDP_SUBSCRIPTIONS_DETECTOR,
    );
    let forged_r = sedp_data((p1, p0), ids, 1, rogue_r.guid, Some(&payload));
    net.nodes[0].p.handle_datagram(now, src1, &forged_r);
    net.run_for(500);
    // Neither is known nor matched; each refusal is counted.
    assert!(known_writer(&net, 1, rogue.guid).is_none());
    assert!(
        !net.nodes[0]
            .p
            .remote_readers()
            .any(|d| d.guid == rogue_r.guid)
    );
    assert_eq!(net.nodes[1].p.matched_writers(r), 1);
    assert_eq!(net.nodes[0].p.matched_readers(w), 1);
    assert_eq!(net.nodes[1].p.stats().plain_discovery_refused, 1);
    assert_eq!(net.nodes[0].p.stats().plain_discovery_refused, 1);
    assert_eq!(write_and_take(&mut net, w, r, 5), 5);
}

#[test]
fn the_same_endpoint_on_the_secure_sedp_writer_is_matched() {
    let (mut net, w, r) = discovery_protected_pair("SIGN", "NONE");
    for i in 0..2 {
        let s = net.nodes[i].p.stats();
        assert!(s.secure_discovery_received >= 1, "node {i}: {s:?}");
        assert_eq!(s.plain_discovery_refused, 0, "node {i}: {s:?}");
    }
    assert!(known_writer(&net, 1, w).is_some());
    assert_eq!(net.nodes[1].p.matched_writers(r), 1);
    assert_eq!(net.nodes[0].p.matched_readers(w), 1);
    assert_eq!(write_and_take(&mut net, w, r, 5), 5);
}

#[test]
fn a_plain_sedp_update_or_dispose_does_not_touch_an_endpoint_learned_securely() {
    let (mut net, w, r) = discovery_protected_pair("ENCRYPT", "NONE");
    let route = (w.prefix, r.prefix);
    let src0 = net.nodes[0].locators[0];
    let learned = known_writer(&net, 1, w).expect("node 1 learned the writer");
    // The same writer GUID, its locators moved to another host and its QoS changed; then the
    // same on a topic node 1's governance does not protect (refused because the writer was
    // learned securely); then a dispose.
    let mut moved = learned.clone();
    moved.endpoint.unicast_locators = vec![Locator::udpv4([10, 9, 9, 9], 7411)];
    moved.qos.reliability = Reliability::best_effort();
    let mut renamed = moved.clone();
    renamed.endpoint.topic_name = "UnprotectedSquare".into();
    let now = net.now();
    let datagrams = [
        plain_publication(route, 1, w, Some(&moved)),
        plain_publication(route, 2, w, Some(&renamed)),
        plain_publication(route, 3, w, None),
    ];
    for d in &datagrams {
        net.nodes[1].p.handle_datagram(now, src0, d);
    }
    net.run_for(500);
    assert_eq!(known_writer(&net, 1, w), Some(learned));
    assert_eq!(net.nodes[1].p.matched_writers(r), 1);
    assert_eq!(net.nodes[1].p.stats().plain_discovery_refused, 3);
    assert!(
        !net.events(1)
            .iter()
            .any(|e| matches!(e, Event::SubscriptionMatched { matched: false, .. })),
        "the writer was unmatched"
    );
    assert_eq!(write_and_take(&mut net, w, r, 5), 5);
}

/// The SEDP data of a writer `guid` on `topic` (type ShapeType, reliable).
fn writer_data(guid: Guid, topic: &str) -> PublicationData {
    let config = ParticipantConfig::new(0, guid.prefix);
    let mut spec = writer_spec(true);
    spec.topic_name = topic.into();
    let mut endpoints = super::endpoints::Endpoints::default();
    endpoints.insert_writer(guid, spec, false, Default::default(), &config);
    endpoints.publication_data(guid, &config, None).unwrap()
}

#[test]
fn announcements_of_a_participant_that_must_authenticate_and_did_not_are_refused() {
    let ca = ca("Test CA", true);
    let alice = identity("alice", &ca, true);
    let g = governance("ENCRYPT", "NONE");
    let nodes = vec![
        secure_node_governed(0, None, None),
        secure_node_governed(1, Some(&alice), Some(g)),
    ];
    let mut net = SimNet::with_nodes(nodes, SEED);
    let now = net.now();
    let mut open = writer_spec(true);
    open.topic_name = "UnprotectedSquare".into();
    let w = net.nodes[0].p.create_writer(now, open);
    let mut open = reader_spec(true);
    open.topic_name = "UnprotectedSquare".into();
    let r = net.nodes[1].p.create_reader(now, open);
    net.run_for(1_000);
    // Node 1 knows participant 0 from SPDP but holds it back from SEDP: its announcement on
    // the plain SEDP (sequence number 1) went nowhere, even for a topic that protects nothing.
    assert!(
        net.nodes[1]
            .p
            .remote_participants()
            .any(|p| p.guid_prefix == w.prefix)
    );
    assert!(known_writer(&net, 1, w).is_none());
    assert_eq!(net.nodes[1].p.matched_writers(r), 0);
    // Forged again, then on the secure SEDP reader (in clear: it has no keys), on both topics.
    let route = (w.prefix, r.prefix);
    let src0 = net.nodes[0].locators[0];
    let secure_ids = (
        SEDP_PUBLICATIONS_SECURE_WRITER,
        SEDP_PUBLICATIONS_SECURE_READER,
    );
    let rogue = Guid::new(w.prefix, EntityId([0, 0, 0x42, 0x02]));
    let now = net.now();
    for (i, (guid, topic)) in [(w, "UnprotectedSquare"), (rogue, "Square")]
        .into_iter()
        .enumerate()
    {
        let data = writer_data(guid, topic);
        let payload = data.to_payload(Endianness::Little).unwrap();
        let sn = 2 + i as i64;
        let plain = plain_publication(route, sn, guid, Some(&data));
        let secure = sedp_data(route, secure_ids, 1 + i as i64, guid, Some(&payload));
        net.nodes[1].p.handle_datagram(now, src0, &plain);
        net.nodes[1].p.handle_datagram(now, src0, &secure);
    }
    net.run_for(500);
    assert_eq!(net.nodes[1].p.remote_writers().count(), 0);
    assert_eq!(net.nodes[1].p.matched_writers(r), 0);
    assert_eq!(net.nodes[1].p.stats().authenticated, 0);
}

#[test]
fn an_admitted_unauthenticated_participant_is_matched_only_on_topics_without_discovery_protection()
{
    let ca = ca("Test CA", true);
    let alice = identity("alice", &ca, true);
    let g = governance_allowing("ENCRYPT", "NONE", true);
    let allowing = |identity| SecurityConfig {
        allow_unauthenticated: true,
        ..super::security::governed(Some(g))(identity)
    };
    let nodes = vec![
        secure_node_governed(0, None, None),
        secure_node_with(1, Some(&alice), allowing),
    ];
    let mut net = SimNet::with_nodes(nodes, SEED);
    let now = net.now();
    let (mut open_w, mut open_r) = (writer_spec(true), reader_spec(true));
    open_w.topic_name = "UnprotectedSquare".into();
    open_r.topic_name = "UnprotectedSquare".into();
    let w_open = net.nodes[0].p.create_writer(now, open_w);
    let w_protected = net.nodes[0].p.create_writer(now, writer_spec(true));
    let r_open = net.nodes[1].p.create_reader(now, open_r);
    let r_protected = net.nodes[1].p.create_reader(now, reader_spec(true));
    net.run_for(1_000);
    // Its writer on the open topic is matched and delivers; the one on Square, announced on
    // the plain SEDP (it has no other), is refused and counted.
    assert!(known_writer(&net, 1, w_open).is_some());
    assert_eq!(net.nodes[1].p.matched_writers(r_open), 1);
    assert!(known_writer(&net, 1, w_protected).is_none());
    assert_eq!(net.nodes[1].p.matched_writers(r_protected), 0);
    assert!(net.nodes[1].p.stats().plain_discovery_refused >= 1);
    assert_eq!(write_and_take(&mut net, w_open, r_open, 5), 5);
}

#[test]
fn a_dispose_of_another_participants_endpoint_is_ignored() {
    // Node 0 writes, node 1 reads, node 2 disposes node 0's writer on its own plain SEDP
    // publications writer (nothing went on it yet: sequence number 1). No security needed.
    let mut net = SimNet::new(3, SEED, |_| {});
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(true));
    let r = net.nodes[1].p.create_reader(now, reader_spec(true));
    net.run_for(500);
    assert_eq!(net.nodes[1].p.matched_writers(r), 1);
    let p2 = net.nodes[2].p.guid_prefix();
    let src2 = net.nodes[2].locators[0];
    let bad = net.nodes[1].p.stats().bad_discovery_data;
    let now = net.now();
    let dispose = plain_publication((p2, r.prefix), 1, w, None);
    net.nodes[1].p.handle_datagram(now, src2, &dispose);
    net.run_for(200);
    assert!(known_writer(&net, 1, w).is_some());
    assert_eq!(net.nodes[1].p.matched_writers(r), 1);
    assert_eq!(net.nodes[1].p.stats().bad_discovery_data, bad + 1);
}
