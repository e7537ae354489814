//! DDS Security access control in the participant (`access.rs`) on the simulated LAN: two
//! participants authenticate, then each checks the other's permissions document (from the
//! handshake) against the governance: a document without a grant for the remote's subject,
//! one signed by another CA, a denied topic next to an allowed one, local creation checks,
//! and unauthenticated participants under `allow_unauthenticated_participants`.

use std::sync::Arc;

use super::security::secure_node_with;
use super::*;
use crate::core::sim::Node;
use crate::security::access::test_docs::{GovernanceXml, TopicRuleXml, grant_xml, permissions_xml};
use crate::security::access::tests::sign;
use crate::security::access::{Governance, Permissions};
use crate::security::auth::IdentityConfig;
use crate::security::auth::tests::{Ca, ca, identity};

/// Join, read and write access control on every topic, nothing protected; with
/// `unauthenticated`, unauthenticated participants allowed and topic `Open*` free of access
/// control.
fn governance(unauthenticated: bool) -> String {
    let guarded = TopicRuleXml {
        read_access_control: true,
        write_access_control: true,
        ..TopicRuleXml::open("*")
    };
    let topic_rules = match unauthenticated {
        true => vec![TopicRuleXml::open("Open*"), guarded],
        false => vec![guarded],
    };
    GovernanceXml {
        allow_unauthenticated_participants: unauthenticated,
        enable_join_access_control: true,
        ..GovernanceXml::new(topic_rules)
    }
    .xml()
}

/// A grant for `cn` that denies topic `Secret` and allows every other one.
fn grant(cn: &str) -> String {
    grant_xml(cn, &["Secret"], &["Secret"])
}

fn permissions(grants: &[&str]) -> String {
    let grants: Vec<String> = grants.iter().map(|cn| grant(cn)).collect();
    permissions_xml(&grants)
}

/// The access-control documents of one node: governance and permissions as signed by
/// `signer` (normally the permissions CA), and the CA it trusts.
struct Documents<'a> {
    trust: &'a Ca,
    signer: &'a Ca,
    unauthenticated: bool,
    grants: &'a [&'a str],
}

fn node(i: usize, id: Option<&IdentityConfig>, docs: &Documents<'_>) -> Node {
    secure_node_with(i, id, |identity| {
        let perm = permissions(docs.grants);
        let governance = Governance::parse(&governance(docs.unauthenticated)).unwrap();
        SecurityConfig {
            identity,
            permissions_document: sign(&perm, &docs.signer.cert, &docs.signer.key, true),
            allow_unauthenticated: docs.unauthenticated,
            governance: Some(Arc::new(governance)),
            permissions_ca: Some(docs.trust.cert.to_pem().unwrap()),
            permissions: Some(Arc::new(Permissions::parse(&perm).unwrap())),
        }
    })
}

/// A permissions CA, and alice's and bob's identities from an identity CA.
fn pki() -> (Ca, IdentityConfig, IdentityConfig) {
    let id_ca = ca("Test CA", true);
    let alice = identity("alice", &id_ca, true);
    let bob = identity("bob", &id_ca, true);
    (ca("Permissions CA", true), alice, bob)
}

fn spec_on(topic: &str) -> (WriterSpec, ReaderSpec) {
    let mut w = writer_spec(true);
    w.topic_name = topic.into();
    let mut r = reader_spec(true);
    r.topic_name = topic.into();
    (w, r)
}

/// Node 0 writes `topics`, node 1 reads them; returns the pairs after 500 ms.
fn pairs(net: &mut SimNet, topics: &[&str]) -> Vec<(Guid, Guid)> {
    let now = net.now();
    let out = topics
        .iter()
        .map(|t| {
            let (ws, rs) = spec_on(t);
            (
                net.nodes[0].p.create_writer(now, ws),
                net.nodes[1].p.create_reader(now, rs),
            )
        })
        .collect();
    net.run_for(500);
    out
}

fn denials(net: &mut SimNet, i: usize) -> Vec<(Option<String>, String)> {
    net.events(i)
        .into_iter()
        .filter_map(|e| match e {
            Event::AccessDenied { topic, reason, .. } => Some((topic, reason)),
            _ => None,
        })
        .collect()
}

#[test]
fn permissions_without_a_grant_for_the_remote_subject_are_refused_with_the_reason() {
    let (perm_ca, alice, bob) = pki();
    let good = Documents {
        trust: &perm_ca,
        signer: &perm_ca,
        unauthenticated: false,
        grants: &["alice", "bob"],
    };
    // bob sends a document that grants only carol.
    let carol_only = Documents {
        grants: &["carol"],
        ..good
    };
    let mut net = SimNet::with_nodes(
        vec![
            node(0, Some(&alice), &good),
            node(1, Some(&bob), &carol_only),
        ],
        SEED,
    );
    let (w, r) = pairs(&mut net, &["Square"])[0];
    let bob_prefix = net.nodes[1].p.guid_prefix();
    let events = net.events(0);
    assert!(events.contains(&Event::ParticipantAuthenticated(bob_prefix)));
    assert!(
        events.contains(&Event::AccessDenied {
            participant: bob_prefix,
            endpoint: None,
            topic: None,
            reason: "its permissions document has no grant for its subject name".into(),
        }),
        "{events:?}"
    );
    assert_eq!(net.nodes[0].p.stats().access_denied, 1);
    assert_eq!(net.nodes[0].p.matched_readers(w), 0);
    assert_eq!(net.nodes[1].p.matched_writers(r), 0);
}

#[test]
fn permissions_signed_by_another_ca_are_refused_with_the_reason() {
    let (perm_ca, alice, bob) = pki();
    let other = ca("Permissions CA", true);
    let good = Documents {
        trust: &perm_ca,
        signer: &perm_ca,
        unauthenticated: false,
        grants: &["alice", "bob"],
    };
    let forged = Documents {
        signer: &other,
        ..good
    };
    let mut net = SimNet::with_nodes(
        vec![node(0, Some(&alice), &good), node(1, Some(&bob), &forged)],
        SEED,
    );
    let (w, _) = pairs(&mut net, &["Square"])[0];
    let denied = denials(&mut net, 0);
    assert_eq!(denied.len(), 1, "{denied:?}");
    assert!(
        denied[0]
            .1
            .starts_with("its permissions document: signature:")
            && denied[0].1.contains("certificate verify error"),
        "{denied:?}"
    );
    assert_eq!(net.nodes[0].p.matched_readers(w), 0);
}

#[test]
fn a_denied_topic_is_not_matched_while_another_topic_is() {
    let (perm_ca, alice, bob) = pki();
    let docs = Documents {
        trust: &perm_ca,
        signer: &perm_ca,
        unauthenticated: false,
        grants: &["alice", "bob"],
    };
    let mut net = SimNet::with_nodes(
        vec![node(0, Some(&alice), &docs), node(1, Some(&bob), &docs)],
        SEED,
    );
    // Our own permissions deny Secret: creating on it is refused with the rule.
    let now = net.now();
    assert_eq!(
        net.nodes[0].p.check_create_writer(now, "Secret", &[]),
        Err("grant \"alice\" deny_rule #1 applies".into())
    );
    assert_eq!(
        net.nodes[0].p.check_create_reader(now, "Square", &[]),
        Ok(())
    );
    assert_eq!(net.nodes[0].p.check_create_participant(now), Ok(()));
    // Created anyway (the core does not check; the API does): each side refuses the
    // other's endpoint on Secret and matches the one on Square.
    let made = pairs(&mut net, &["Square", "Secret"]);
    let (square, secret) = (made[0], made[1]);
    assert_eq!(net.nodes[0].p.matched_readers(square.0), 1);
    assert_eq!(net.nodes[1].p.matched_writers(square.1), 1);
    assert_eq!(net.nodes[0].p.matched_readers(secret.0), 0);
    assert_eq!(net.nodes[1].p.matched_writers(secret.1), 0);
    let want = vec![(
        Some("Secret".to_string()),
        "grant \"bob\" deny_rule #1 applies".to_string(),
    )];
    assert_eq!(denials(&mut net, 0), want);
    let want = vec![(
        Some("Secret".to_string()),
        "grant \"alice\" deny_rule #1 applies".to_string(),
    )];
    // Reported once, though SEDP announced it repeatedly.
    net.run_for(2000);
    assert_eq!(denials(&mut net, 1), want);
}

#[test]
fn an_unauthenticated_participant_matches_only_topics_without_access_control() {
    let (perm_ca, alice, _) = pki();
    let docs = Documents {
        trust: &perm_ca,
        signer: &perm_ca,
        unauthenticated: true,
        grants: &["alice"],
    };
    let mut net = SimNet::with_nodes(
        vec![node(0, Some(&alice), &docs), node(1, None, &docs)],
        SEED,
    );
    let made = pairs(&mut net, &["OpenSquare", "Square"]);
    assert_eq!(net.nodes[0].p.matched_readers(made[0].0), 1);
    assert_eq!(net.nodes[0].p.matched_readers(made[1].0), 0);
    let denied = denials(&mut net, 0);
    assert_eq!(denied.len(), 1, "{denied:?}");
    assert_eq!(denied[0].0.as_deref(), Some("Square"));
    assert!(denied[0].1.contains("not authenticated"), "{denied:?}");
}
