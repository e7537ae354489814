//! The TypeLookup client against our own server in the simulated network, and its reply
//! handling on its own (a reply captured from Cyclone DDS, bounds, retries).
#![allow(clippy::arithmetic_side_effects)]

use super::*;
use crate::core::participant::WriterSpec;
use crate::core::sim::{SimNet, sim_now};
use crate::idl::{MemLoader, parse_with, to_type_object};
use crate::qos::{DataRepresentation, DataWriterQos};
use crate::types::xtypes::TypeRepresentation;
use crate::types::xtypes::type_lookup::{TypeLookupReturn, reply_payload};

fn nested() -> &'static TypeRepresentation {
    let idl = "module m { enum E { A, B }; @final struct P { long x; E e; }; \
               @appendable struct T { P a; sequence<P> b; string s; }; };";
    let loader = MemLoader::new().with("t.idl", idl);
    let spec = parse_with(&loader, std::path::Path::new("t.idl"), &[]).unwrap();
    Box::leak(Box::new(
        to_type_object::type_representation(&spec.model, "m::T").unwrap(),
    ))
}

#[test]
fn a_siftdds_client_resolves_a_nested_type_from_a_siftdds_server() {
    let mut net = SimNet::new(2, 0x5eed, |_| {});
    net.run_for(100);
    let rep = nested();
    net.nodes[0].p.register_type("m::T", rep);
    let qos = DataWriterQos {
        data_representation: DataRepresentation {
            value: vec![DataRepresentation::XCDR2],
        },
        ..DataWriterQos::default()
    };
    let now = net.now();
    let w = net.nodes[0]
        .p
        .create_writer(now, WriterSpec::new("Topic", "m::T", false, qos));
    net.run_for(200);
    let complete = rep.information.complete.typeid_with_size.type_id.clone();
    let announced = net.nodes[1]
        .p
        .remote_writers()
        .find(|d| d.guid == w)
        .and_then(|d| d.type_information.clone())
        .expect("the writer announces PID_TYPE_INFORMATION");
    assert_eq!(
        crate::core::Participant::announced_type_id(&announced),
        Some(complete.clone())
    );
    let now = net.now();
    assert!(net.nodes[1].p.request_writer_type(now, w));
    net.run_for(300);
    assert!(
        net.events(1)
            .contains(&crate::core::Event::RemoteTypeResolved(complete.clone()))
    );
    let registry = net.nodes[1].p.remote_types();
    assert_eq!(registry.first_missing(&complete), None);
    // T, P and E, complete: three TypeObjects, each the server's own bytes.
    assert_eq!(registry.len(), 3);
    for (id, bytes) in &rep.objects {
        if let Some(o) = registry.get(id) {
            assert_eq!(&o.to_bytes(), bytes);
        }
    }
    // getTypes(T), getTypeDependencies(T) answered with [P, E], getTypes(P), getTypes(E).
    let stats = net.nodes[1].p.type_client_stats();
    assert_eq!(stats.requests_sent, 4);
    assert_eq!(stats.replies_matched, 4);
    assert_eq!(stats.objects_refused, 0);
    // Asking again is answered from the registry at once, without a request.
    let now = net.now();
    assert!(net.nodes[1].p.request_writer_type(now, w));
    assert!(
        net.events(1)
            .contains(&crate::core::Event::RemoteTypeResolved(complete))
    );
    assert_eq!(net.nodes[1].p.type_client_stats().requests_sent, 4);
}

fn cyclone_reply() -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/xtypes/typelookup.vectors");
    let text = std::fs::read_to_string(path).unwrap();
    let hex = text
        .lines()
        .find_map(|l| l.strip_prefix("REPLY ").map(str::trim))
        .unwrap();
    hex.as_bytes()
        .chunks(2)
        .map(|c| u8::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
        .collect()
}

/// The captured Cyclone reply, re-addressed to `request_id` (its body unchanged).
fn cyclone_reply_to(request_id: &RequestId) -> (TypeIdentifier, Vec<u8>) {
    let reply = cyclone_reply();
    let TypeLookupReply {
        ret: ReplyReturn::Types(types),
        ..
    } = TypeLookupReply::from_payload(&reply).unwrap()
    else {
        panic!("not a getTypes reply")
    };
    let id = types[0].id.clone();
    let object = &reply[80..212];
    let ours = reply_payload(
        request_id,
        &TypeLookupReturn::Types(vec![(id.clone(), object)]),
    );
    // Same bytes as Cyclone's but for the request id (encapsulation, GUID, sequence number).
    assert_eq!(ours[28..], reply[28..]);
    (id, ours)
}

fn client() -> TypeLookupClient {
    TypeLookupClient::new(GuidPrefix([9; 12]))
}

fn request_id(c: &TypeLookupClient, sn: u32) -> RequestId {
    RequestId {
        writer_guid: c.guid.to_bytes(),
        high: 0,
        low: sn,
    }
}

#[test]
fn a_reply_captured_from_cyclone_resolves_the_type_it_answers() {
    let mut c = client();
    let (id, reply) = cyclone_reply_to(&request_id(&client(), 1));
    assert!(c.request(sim_now(0), GuidPrefix([2; 12]), id.clone()));
    assert_eq!(c.outstanding.len(), 1);
    // A reply to another client's request (same sequence number) is not ours.
    let mut other = reply.clone();
    other[4] ^= 0xFF;
    c.take_reply(GuidPrefix([2; 12]), &other);
    assert_eq!(c.outstanding.len(), 1);
    c.take_reply(GuidPrefix([2; 12]), &reply);
    assert!(c.outstanding.is_empty());
    assert_eq!(c.poll_resolved(), Some(id.clone()));
    assert!(c.registry.get(&id).is_some());
    assert_eq!(c.stats.replies_matched, 1);
}

#[test]
fn a_cyclone_010_reply_that_echoes_no_request_identity_answers_the_request_it_resolves() {
    let server = GuidPrefix([2; 12]);
    // Cyclone 0.10: its own reply writer's GUID, word by word little-endian, and its own
    // reply sequence number.
    let mut own = Guid::new(server, TL_SVC_REPLY_WRITER).to_bytes();
    for word in own.chunks_exact_mut(4) {
        word.reverse();
    }
    let (id, reply) = cyclone_reply_to(&RequestId {
        writer_guid: own,
        high: 0,
        low: 1,
    });
    let mut c = client();
    assert!(c.request(sim_now(0), server, id.clone()));
    // From another participant it is not taken.
    c.take_reply(GuidPrefix([3; 12]), &reply);
    assert_eq!(c.outstanding.len(), 1);
    c.take_reply(server, &reply);
    assert!(c.outstanding.is_empty());
    assert_eq!(c.poll_resolved(), Some(id));
    assert_eq!(c.stats.replies_matched, 1);
}

#[test]
fn an_object_not_hashing_to_the_requested_identifier_is_refused() {
    let mut c = client();
    let (id, _) = cyclone_reply_to(&request_id(&client(), 1));
    let TypeIdentifier::Complete(mut h) = id else {
        panic!("complete identifier expected")
    };
    h[0] ^= 1;
    let wrong = TypeIdentifier::Complete(h);
    assert!(c.request(sim_now(0), GuidPrefix([2; 12]), wrong.clone()));
    // The server answers with an object for a different identifier than asked.
    let (_, reply) = cyclone_reply_to(&request_id(&c, 1));
    c.take_reply(GuidPrefix([2; 12]), &reply);
    assert!(c.registry.is_empty());
    assert_eq!(c.stats.objects_refused, 1);
    assert_eq!(c.poll_resolved(), None);
    // Nothing usable came: asked again at the retry time, as if unanswered, and given up
    // once the attempts are spent.
    assert_eq!(c.roots.len(), 1);
    assert_eq!(c.stats.given_up, 0);
    let mut t = 0u64;
    for _ in 0..20 {
        t += 500_000_000;
        c.handle_timeout(sim_now(t));
    }
    assert_eq!(c.stats.requests_sent, u64::from(MAX_ATTEMPTS));
    assert!(c.roots.is_empty());
    assert_eq!(c.stats.given_up, 1);
    assert!(c.has_given_up(&wrong));
}

#[test]
fn an_empty_reply_is_asked_again_and_a_later_answer_resolves_the_type() {
    // A server whose endpoint announced the type may not hold it yet when asked.
    let server = GuidPrefix([2; 12]);
    let mut c = client();
    let (id, reply) = cyclone_reply_to(&request_id(&c, 2));
    assert!(c.request(sim_now(0), server, id.clone()));
    let empty = reply_payload(&request_id(&c, 1), &TypeLookupReturn::Types(Vec::new()));
    c.take_reply(server, &empty);
    assert_eq!((c.stats.replies_matched, c.stats.given_up), (1, 0));
    assert_eq!(c.poll_resolved(), None);
    // Not before the retry time.
    c.handle_timeout(sim_now(1_000_000_000));
    assert_eq!(c.stats.requests_sent, 1);
    c.handle_timeout(sim_now(2_000_000_000));
    assert_eq!(c.stats.requests_sent, 2);
    c.take_reply(server, &reply);
    assert_eq!(c.poll_resolved(), Some(id));
    assert!(c.outstanding.is_empty());
}

#[test]
fn requests_are_bounded_per_peer_and_retried_then_given_up() {
    let mut c = client();
    let peer = GuidPrefix([2; 12]);
    for i in 0..10u8 {
        assert!(c.request(sim_now(0), peer, TypeIdentifier::Complete([i; 14])));
    }
    assert_eq!(c.outstanding.len(), MAX_OUTSTANDING_PER_PEER);
    assert_eq!(c.queue.len(), 10 - MAX_OUTSTANDING_PER_PEER);
    // Another peer has its own share.
    assert!(c.request(
        sim_now(0),
        GuidPrefix([3; 12]),
        TypeIdentifier::Complete([99; 14])
    ));
    assert_eq!(c.outstanding.len(), MAX_OUTSTANDING_PER_PEER + 1);
    let retry_at = c.poll_timeout().unwrap();
    assert!(retry_at <= sim_now(0).mono.saturating_add(RETRY_AFTER));
    // No answers: each request is sent MAX_ATTEMPTS times, then given up.
    let mut t = 0u64;
    for _ in 0..200 {
        t += 500_000_000;
        c.handle_timeout(sim_now(t));
    }
    assert!(c.outstanding.is_empty() && c.queue.is_empty() && c.roots.is_empty());
    assert_eq!(c.stats.given_up, 11);
    assert_eq!(c.stats.requests_sent, 11 * u64::from(MAX_ATTEMPTS));
}

#[test]
fn requested_types_are_bounded() {
    let mut c = client();
    let mut refused = 0;
    for i in 0..(MAX_ROOTS + 5) {
        let mut h = [0u8; 14];
        h[..8].copy_from_slice(&(i as u64).to_le_bytes());
        if !c.request(sim_now(0), GuidPrefix([2; 12]), TypeIdentifier::Complete(h)) {
            refused += 1;
        }
    }
    assert_eq!(refused, 5);
    assert!(!c.request(
        sim_now(0),
        GuidPrefix([2; 12]),
        TypeIdentifier::Primitive(4)
    ));
}

#[test]
fn mutated_replies_never_panic() {
    let mut c = client();
    let (id, reply) = cyclone_reply_to(&request_id(&client(), 1));
    c.request(sim_now(0), GuidPrefix([2; 12]), id);
    for n in 0..reply.len() {
        c.take_reply(GuidPrefix([2; 12]), &reply[..n]);
        let mut flipped = reply.clone();
        flipped[n] ^= 0x5A;
        c.take_reply(GuidPrefix([2; 12]), &flipped);
    }
}

/// A reply whose `remoteEx` says the server failed the call.
fn failed_reply(request_id: &RequestId) -> Vec<u8> {
    let mut b = vec![0x00, 0x07, 0x00, 0x00];
    b.extend_from_slice(&request_id.writer_guid);
    b.extend_from_slice(&request_id.high.to_le_bytes());
    b.extend_from_slice(&request_id.low.to_le_bytes());
    b.extend_from_slice(&1i32.to_le_bytes()); // REMOTE_EX_UNSUPPORTED
    b
}

/// The client's requested root T, answered with its TypeObject: a getTypeDependencies of T
/// is outstanding as request 2.
fn client_with_root() -> (TypeLookupClient, TypeIdentifier, GuidPrefix) {
    let rep = nested();
    let root = rep.information.complete.typeid_with_size.type_id.clone();
    let bytes = &rep.objects.iter().find(|(id, _)| *id == root).unwrap().1;
    let peer = GuidPrefix([2; 12]);
    let mut c = client();
    assert!(c.request(sim_now(0), peer, root.clone()));
    let reply = reply_payload(
        &request_id(&c, 1),
        &TypeLookupReturn::Types(vec![(root.clone(), bytes.as_slice())]),
    );
    c.take_reply(peer, &reply);
    c.pump(sim_now(0));
    assert!(c.registry.get(&root).is_some());
    let o = &c.outstanding[&2];
    assert_eq!(o.id, root);
    assert_eq!(
        o.op,
        Op::Dependencies {
            continuation: Vec::new(),
            page: 0
        }
    );
    (c, root, peer)
}

#[test]
fn a_server_failing_get_type_dependencies_is_asked_per_hash() {
    let (mut c, root, peer) = client_with_root();
    c.take_reply(peer, &failed_reply(&request_id(&c, 2)));
    c.pump(sim_now(0));
    // T refers to P only (E through P): getTypes(P), and the peer is remembered.
    let asked: Vec<_> = c
        .outstanding
        .values()
        .map(|o| (o.id.clone(), o.op.clone()))
        .collect();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].1, Op::Types);
    assert_eq!(c.registry.missing(&root), vec![asked[0].0.clone()]);
    assert!(c.no_dependencies.contains(&peer));
    // Unanswered getTypeDependencies falls back the same way after its attempts.
    let (mut c, _, _) = client_with_root();
    let mut t = 0u64;
    for _ in 0..20 {
        t += 1_000_000_000;
        c.handle_timeout(sim_now(t));
    }
    assert!(c.no_dependencies.contains(&peer));
    // getTypes(T), getTypeDependencies(T) three times, then getTypes(P) three times, which
    // is given up in turn.
    assert_eq!(c.stats.requests_sent, 7);
    assert_eq!(c.stats.given_up, 1);
}

#[test]
fn get_type_dependencies_follows_continuation_points_for_bounded_pages() {
    let (mut c, root, peer) = client_with_root();
    let missing = c.registry.missing(&root);
    let p = missing[0].clone();
    let e = TypeIdentifier::Complete([0xEE; 14]);
    let mut sn = 2u32;
    for page in 0..MAX_DEPENDENCY_PAGES {
        let listed = if page == 0 { p.clone() } else { e.clone() };
        let reply = reply_payload(
            &request_id(&c, sn),
            &TypeLookupReturn::Dependencies(
                vec![crate::types::xtypes::TypeIdentifierWithSize {
                    type_id: listed,
                    typeobject_serialized_size: 10,
                }],
                vec![page as u8 + 1],
            ),
        );
        c.take_reply(peer, &reply);
        c.pump(sim_now(0));
        let deps: Vec<_> = c
            .outstanding
            .iter()
            .filter(|(_, o)| matches!(o.op, Op::Dependencies { .. }))
            .map(|(sn, o)| (*sn, o.op.clone()))
            .collect();
        if page + 1 < MAX_DEPENDENCY_PAGES {
            assert_eq!(deps.len(), 1, "page {page}");
            assert_eq!(
                deps[0].1,
                Op::Dependencies {
                    continuation: vec![page as u8 + 1],
                    page: page + 1
                }
            );
            sn = deps[0].0 as u32;
        } else {
            // The last page allowed: no further request.
            assert!(deps.is_empty());
        }
    }
    // Each listed type asked for once with getTypes.
    let types: Vec<_> = c
        .outstanding
        .values()
        .filter(|o| o.op == Op::Types)
        .map(|o| o.id.clone())
        .collect();
    assert_eq!(types.len(), 2);
    assert!(types.contains(&p) && types.contains(&e));
    assert!(c.no_dependencies.is_empty());
}
