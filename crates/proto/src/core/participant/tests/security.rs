//! DDS Security authentication in the participant: two secured participants on the simulated
//! LAN authenticate over the stateless topic before SEDP matches them; a participant without
//! an identity token, or with a certificate of another CA, is never matched.

use std::sync::Arc;

use super::*;
use crate::core::sim::{Node, SPDP_GROUP};
use crate::security::auth::tests::{Ca, ca, identity, identity_between};
use crate::security::auth::{IdentityConfig, LocalIdentity};

fn secure_node(i: usize, id: Option<&IdentityConfig>) -> Node {
    secure_node_governed(i, id, None)
}

/// Node `i` on the simulated LAN with identity `id` under `governance`, without access control.
pub(super) fn secure_node_governed(
    i: usize,
    id: Option<&IdentityConfig>,
    governance: Option<Arc<crate::security::access::governance::Governance>>,
) -> Node {
    secure_node_with(i, id, governed(governance))
}

/// The security configuration of a validated identity under `governance`, without access
/// control.
pub(super) fn governed(
    governance: Option<Arc<crate::security::access::governance::Governance>>,
) -> impl FnOnce(LocalIdentity) -> SecurityConfig {
    |identity| SecurityConfig {
        identity,
        permissions_document: b"signed permissions".to_vec(),
        allow_unauthenticated: false,
        governance,
        permissions_ca: None,
        permissions: None,
    }
}

/// Node `i` on the simulated LAN; with `id`, secured by the configuration `security` makes
/// from the validated identity.
pub(super) fn secure_node_with(
    i: usize,
    id: Option<&IdentityConfig>,
    security: impl FnOnce(LocalIdentity) -> SecurityConfig,
) -> Node {
    secure_node_configured(i, id, security, |_| {})
}

/// [`secure_node_with`], its configuration then changed by `configure`.
pub(super) fn secure_node_configured(
    i: usize,
    id: Option<&IdentityConfig>,
    security: impl FnOnce(LocalIdentity) -> SecurityConfig,
    configure: impl FnOnce(&mut ParticipantConfig),
) -> Node {
    let candidate = GuidPrefix([1, 0x5e, 0, 0, 0, 0, 0, 0, 0, 0, 0, i as u8 + 1]);
    let meta = Locator::udpv4([127, 0, 0, 1], 7410 + 2 * i as u16);
    let user = Locator::udpv4([127, 0, 0, 1], 7411 + 2 * i as u16);
    let mut config = ParticipantConfig::new(0, candidate);
    if let Some(id) = id {
        let wall = crate::core::sim::sim_now(0).wall.seconds;
        let identity = LocalIdentity::validate(id, &candidate, i64::from(wall)).unwrap();
        config.guid_prefix = identity.guid_prefix();
        config.security = Some(Arc::new(security(identity)));
    }
    config.metatraffic_unicast_locators = vec![meta];
    config.default_unicast_locators = vec![user];
    config.metatraffic_multicast_locators = vec![SPDP_GROUP];
    config.spdp_destinations = vec![SPDP_GROUP];
    configure(&mut config);
    Node {
        p: Participant::new(config),
        locators: vec![meta, user],
    }
}

fn net(a: Option<&IdentityConfig>, b: Option<&IdentityConfig>) -> SimNet {
    SimNet::with_nodes(vec![secure_node(0, a), secure_node(1, b)], SEED)
}

fn matched_pair(net: &mut SimNet) -> (Guid, Guid) {
    let now = net.now();
    let w = net.nodes[0].p.create_writer(now, writer_spec(true));
    let r = net.nodes[1].p.create_reader(now, reader_spec(true));
    net.run_for(500);
    (w, r)
}

#[test]
fn secured_participants_authenticate_then_match_in_both_roles() {
    let ca: Ca = ca("Test CA", true);
    let alice = identity("alice", &ca, true);
    let bob = identity("bob", &ca, true);
    // alice's GUID prefix is the smaller: node 0 initiates in the first run, node 1 in the
    // second.
    for (a, b) in [(&alice, &bob), (&bob, &alice)] {
        let mut net = net(Some(a), Some(b));
        let (w, r) = matched_pair(&mut net);
        let p0 = net.nodes[0].p.guid_prefix();
        let p1 = net.nodes[1].p.guid_prefix();
        assert!(net.events(0).contains(&Event::ParticipantAuthenticated(p1)));
        assert!(net.events(1).contains(&Event::ParticipantAuthenticated(p0)));
        assert_eq!(net.nodes[0].p.stats().authenticated, 1);
        let remote = net.nodes[1].p.remote_participants().next().unwrap();
        assert!(remote.identity_token.is_some() && remote.security_info.is_some());
        let stateless = BUILTIN_PARTICIPANT_STATELESS_MESSAGE_WRITER
            | BUILTIN_PARTICIPANT_STATELESS_MESSAGE_READER;
        assert_eq!(remote.available_builtin_endpoints.0 & stateless, stateless);
        assert_eq!(net.nodes[1].p.stats().authentication_failed, 0);
        assert_eq!(net.nodes[0].p.matched_readers(w), 1);
        assert_eq!(net.nodes[1].p.matched_writers(r), 1);
    }
}

#[test]
fn handshakes_authenticate_when_every_datagram_arrives_twice() {
    // A repeated Request (a resend, or a duplicate on the link) gets the Reply already sent:
    // a fresh one would carry another challenge2 and DH key than the ones the initiator's
    // Final answers, and the replier would refuse that Final.
    let ca: Ca = ca("Test CA", true);
    let alice = identity("alice", &ca, true);
    let bob = identity("bob", &ca, true);
    for (a, b) in [(&alice, &bob), (&bob, &alice)] {
        let mut net = net(Some(a), Some(b));
        net.faults.duplicate_percent = 100;
        let (w, r) = matched_pair(&mut net);
        for node in 0..2 {
            let stats = net.nodes[node].p.stats();
            assert_eq!(
                (stats.authenticated, stats.authentication_failed),
                (1, 0),
                "node {node}"
            );
        }
        assert_eq!(net.nodes[0].p.matched_readers(w), 1);
        assert_eq!(net.nodes[1].p.matched_writers(r), 1);
    }
}

#[test]
fn participant_without_identity_token_is_not_matched() {
    let ca = ca("Test CA", true);
    let alice = identity("alice", &ca, true);
    let mut net = net(Some(&alice), None);
    let (w, r) = matched_pair(&mut net);
    assert_eq!(net.nodes[0].p.matched_readers(w), 0);
    assert_eq!(net.nodes[1].p.matched_writers(r), 0);
    assert_eq!(net.nodes[0].p.stats().authenticated, 0);
}

#[test]
fn certificate_of_another_ca_fails_with_the_reason_and_is_not_matched() {
    let ca1 = ca("Test CA", true);
    let other = ca("Other CA", true);
    let bob = identity("bob", &ca1, true);
    // alice's certificate is from another CA, but she trusts it and bob's CA is not hers.
    let alice = identity_between("alice", &other, &other, true, 1_500_000_000, 2_200_000_000);
    let mut net = net(Some(&alice), Some(&bob));
    let (w, r) = matched_pair(&mut net);
    let failed: Vec<Event> = net
        .events(1)
        .into_iter()
        .filter(|e| matches!(e, Event::AuthenticationFailed { .. }))
        .collect();
    assert!(
        failed
            .iter()
            .any(|e| matches!(e, Event::AuthenticationFailed { reason, .. }
            if reason.contains("unable to get local issuer certificate"))),
        "{failed:?}"
    );
    assert_eq!(net.nodes[0].p.matched_readers(w), 0);
    assert_eq!(net.nodes[1].p.matched_writers(r), 0);
}
